// SPDX-License-Identifier: GPL-2.0
/*
 * conf-emit.c - lnetd ops out as Lustre's lnet.conf YAML (the format: conf.h).
 *
 * Everything is written through yout (libyaml's emitter), never printf, so
 * every string is quoted exactly when YAML needs it.  The ops are checked
 * against the vocabulary before a byte is written: an op lnet.conf cannot
 * say is refused, not dropped.  The layout is Lustre's export: a section
 * per kind in Lustre's order, NIs grouped under their net while
 * consecutive (so the order of the ops survives), the primary NID listed
 * first among a peer's NIs, "max_intf" for max_interfaces.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "conf-int.h"
#include "engine/peer-attrs.h"
#include "engine/route-attrs.h"
#include "engine/tunables.h"
#include "yout.h"

struct fielddef {
	const char *obj, *key;
	enum cf_type type;
	bool required;
};

/* What cf_emit() accepts of an add/set op: the vocabulary in conf.h, an object's fields together. */
static const struct fielddef schema[] = {
	{"net", "net", CF_STR, true},
	{"net", "interface", CF_STR, false},
	{"net", "pattern", CF_STR, false},
	{"net", "cpts", CF_STR, false},
#define TUN_FIELD(id, name, ...) {"net", #name, CF_U32, false},
	LNE_TUNABLES(TUN_FIELD)
#undef TUN_FIELD
		{"peer", "primary", CF_STR, true},
	{"peer", "nids", CF_STRV, false},
#define PEER_FIELD(id, name, ...) {"peer", #name, CF_BOOL, false},
	LNE_PEER_ATTRS(PEER_FIELD)
#undef PEER_FIELD
		{"route", "net", CF_STR, true},
	{"route", "gateway", CF_STR, true},
#define ROUTE_FIELD(id, name, ...) {"route", #name, CF_U32, false},
	LNE_ROUTE_ATTRS(ROUTE_FIELD)
#undef ROUTE_FIELD
#define RULE_FIELD(id, name, kind, ...) {"udsp", #name, RULE_CF_##kind, false},
#define RULE_CF_EXPR			CF_STR
#define RULE_CF_PRIO			CF_U32
		LNE_RULE_ATTRS(RULE_FIELD)
#undef RULE_FIELD
			{"udsp", "idx", CF_U32, false},
	{"udsp", "kind", CF_STR, false}, /* selection:'s; lnet.conf's udsp: has no such key */
	{"global", "name", CF_STR, true},
	{"global", "value", CF_U32, true},
	{"tbf", "service", CF_STR, true},
	{"tbf", "queue", CF_STR, false},
	{"tbf", "type", CF_STR, false},
	{"tbf", "depth", CF_U32, false},
	{"tbf", "rules", CF_STRV, false},
};

/* 0: emit it; -EINVAL: not something lnet.conf can say. */
static int emit_check(const struct cf_op *op)
{
	const struct fielddef *d, *lo = schema, *hi = schema + sizeof(schema) / sizeof(schema[0]);
	enum cf_rank r = cf_op_rank(op);
	const char *pat;
	size_t i, j;

	if (r == CF_R_OTHER ||
	    strcmp(op->verb, r == CF_R_GLOBAL || r == CF_R_TBF || r == CF_R_PEERS ? "set" : "add"))
		return -EINVAL;
	/* The object's fields, which stand together: once per op, not once per field. */
	while (lo < hi && (lo->obj[0] != op->obj[0] || strcmp(lo->obj, op->obj)))
		lo++;
	for (d = lo; d < hi && !strcmp(d->obj, op->obj); d++)
		;
	hi = d;
	for (i = 0; i < op->nf; i++) {
		const struct cf_val *v = &op->f[i].val;

		for (d = lo; d < hi && strcmp(d->key, op->f[i].key); d++)
			;
		if (d == hi || d->type != v->type)
			return -EINVAL;
		/* Empty strings do not read back: lnet.conf has no way to say "". */
		if (v->type == CF_STR && !*v->s)
			return -EINVAL;
		for (j = 0; v->type == CF_STRV && j < v->sv.n; j++)
			if (!*v->sv.v[j])
				return -EINVAL;
	}
	for (d = lo; d < hi; d++)
		if (d->required && !cf_op_get(op, d->key))
			return -EINVAL;
	pat = cf_op_get_str(op, "pattern");
	if (!strcmp(op->obj, "net") && !cf_op_get_str(op, "interface") &&
	    (!pat || strspn(pat, " \t") == strlen(pat)))
		return -EINVAL;
	if (!strcmp(op->obj, "net") && cf_net_is_lo(cf_op_get_str(op, "net")))
		return -EINVAL; /* lnet.conf's lo entries are skipped */
	if (!strcmp(op->obj, "global") && cf_global_by_name(cf_op_get_str(op, "name")) < 0)
		return -EINVAL;
	return 0;
}

static void emit_ni_body(struct yout *y, const struct cf_op *op)
{
	const char *s;
	unsigned int sec;
	uint32_t u;
	size_t t;

	/* Lustre's blocks: "tunables", then "lnd tunables". */
	for (sec = 0; sec < LNE_ARRAY_SIZE(lne_tun_section_name); sec++) {
		bool open = false;

		for (t = 0; t < LNE_TUN__COUNT; t++) {
			if (lne_tun_desc[t].section != sec ||
			    (lne_tun_desc[t].flags & LNE_TUN_F_SHOWN) ||
			    !cf_op_get_u32(op, lne_tun_desc[t].name, &u))
				continue;
			if (!open) {
				yout_key(y, lne_tun_section_name[sec]);
				yout_map_begin(y);
				open = true;
			}
			yout_key(y, lne_tun_desc[t].name);
			yout_tun(y, t, u);
		}
		if (open)
			yout_map_end(y);
	}
	s = cf_op_get_str(op, "cpts");
	if (s) {
		yout_key(y, "CPT");
		yout_str(y, s);
	}
}

/* "interfaces: {0: eth0}", Lustre's way of listing them. */
static void emit_interface(struct yout *y, const char *ifname)
{
	yout_key(y, "interfaces");
	yout_map_begin(y);
	yout_u32(y, 0);
	yout_str(y, ifname);
	yout_map_end(y);
}

static bool ni_of(const struct cf_op *op, const char *net)
{
	return cf_op_rank(op) == CF_R_NET && !emit_check(op) &&
	       (!net || !strcmp(cf_op_get_str(op, "net"), net));
}

/*
 * One "net type" entry per net, where its first NI is, holding the net's NIs
 * in their order: the NIs' order as lnetd lists them (the order added), as
 * Lustre's export has it.
 */
static int emit_nets(struct yout *y, const struct cf_doc *doc)
{
	const char *net;
	size_t i, j, k;

	yout_key(y, "net");
	yout_seq_begin(y);
	for (i = 0; i < doc->nop; i++) {
		if (!ni_of(&doc->op[i], NULL))
			continue;
		net = cf_op_get_str(&doc->op[i], "net");
		for (k = 0; k < i && !ni_of(&doc->op[k], net); k++)
			;
		if (k < i)
			continue; /* listed with its net's first NI */
		yout_map_begin(y);
		yout_key(y, "net type");
		yout_str(y, net);
		yout_key(y, "local NI(s)");
		yout_seq_begin(y);
		for (j = i; j < doc->nop; j++) {
			if (!ni_of(&doc->op[j], net))
				continue;
			yout_map_begin(y);
			emit_interface(y, cf_op_get_str(&doc->op[j], "interface"));
			emit_ni_body(y, &doc->op[j]);
			yout_map_end(y);
		}
		yout_seq_end(y);
		yout_map_end(y);
	}
	yout_seq_end(y);
	return 0;
}

static int emit_ip2nets(struct yout *y, const struct cf_doc *doc)
{
	char *copy, *tok, *save;
	uint32_t n;
	size_t i;

	yout_key(y, "ip2nets");
	yout_seq_begin(y);
	for (i = 0; i < doc->nop; i++) {
		const struct cf_op *op = &doc->op[i];

		if (cf_op_rank(op) != CF_R_IP2NETS || emit_check(op))
			continue;
		yout_map_begin(y);
		yout_key(y, "net-spec");
		yout_str(y, cf_op_get_str(op, "net"));
		if (cf_op_get_str(op, "interface"))
			emit_interface(y, cf_op_get_str(op, "interface"));
		yout_key(y, "ip-range");
		yout_map_begin(y);
		copy = strdup(cf_op_get_str(op, "pattern"));
		if (!copy)
			return -ENOMEM;
		n = 0;
		for (tok = strtok_r(copy, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
			yout_u32(y, n++);
			yout_str(y, tok);
		}
		free(copy);
		yout_map_end(y);
		emit_ni_body(y, op);
		yout_map_end(y);
	}
	yout_seq_end(y);
	return 0;
}

static int emit_peers(struct yout *y, const struct cf_doc *doc)
{
	char *const *nids;
	size_t i, j, n = 0;
	bool mr;
	int k;

	yout_key(y, "peer");
	yout_seq_begin(y);
	for (i = 0; i < doc->nop; i++) {
		const struct cf_op *op = &doc->op[i];
		const char *prim = cf_op_get_str(op, "primary");

		if (cf_op_rank(op) != CF_R_PEER || emit_check(op))
			continue;
		yout_map_begin(y);
		yout_key(y, "primary nid");
		yout_str(y, prim);
		/* the settings Lustre's YAML has, by its keys; lnetd's own stay in its store */
		for (k = 0; k < LNE_PEER_A__COUNT; k++)
			if (lne_peer_desc[k].yaml[0] &&
			    cf_op_get_bool(op, lne_peer_desc[k].name, &mr)) {
				yout_key(y, lne_peer_desc[k].yaml);
				yout_bool(y, mr);
			}
		/* Lustre lists the primary first among the peer NIs. */
		yout_key(y, "peer ni");
		yout_seq_begin(y);
		nids = cf_op_get_strv(op, "nids", &n);
		for (j = 0; j <= (nids ? n : 0); j++) {
			yout_map_begin(y);
			yout_key(y, "nid");
			yout_str(y, j ? nids[j - 1] : prim);
			yout_map_end(y);
		}
		yout_seq_end(y);
		yout_map_end(y);
	}
	yout_seq_end(y);
	return 0;
}

static int emit_routes(struct yout *y, const struct cf_doc *doc)
{
	uint32_t u;
	size_t i, k;

	yout_key(y, "route");
	yout_seq_begin(y);
	for (i = 0; i < doc->nop; i++) {
		const struct cf_op *op = &doc->op[i];

		if (cf_op_rank(op) != CF_R_ROUTE || emit_check(op))
			continue;
		yout_map_begin(y);
		yout_key(y, "net");
		yout_str(y, cf_op_get_str(op, "net"));
		yout_key(y, "gateway");
		yout_str(y, cf_op_get_str(op, "gateway"));
		for (k = 0; k < LNE_ROUTE_A__COUNT; k++) {
			if (cf_op_get_u32(op, lne_route_desc[k].name, &u)) {
				yout_key(y, lne_route_desc[k].yaml);
				yout_u32(y, u);
			} else if (lne_route_desc[k].undef) {
				/* Lustre's "undefined", which reads back as not given. */
				yout_key(y, lne_route_desc[k].yaml);
				yout_i64(y, -1);
			}
		}
		yout_map_end(y);
	}
	yout_seq_end(y);
	return 0;
}

static int emit_udsps(struct yout *y, const struct cf_doc *doc)
{
	uint32_t u;
	bool action;
	size_t i;
	int k;

	yout_key(y, "udsp");
	yout_seq_begin(y);
	for (i = 0; i < doc->nop; i++) {
		const struct cf_op *op = &doc->op[i];

		if (cf_op_rank(op) != CF_R_UDSP || emit_check(op))
			continue;
		yout_map_begin(y);
		if (cf_op_get_u32(op, "idx", &u)) {
			yout_key(y, "idx");
			yout_u32(y, u);
		}
		/* each row: an expression in the entry, a number in its action: */
		for (k = 0; k < LNE_RULE_A__COUNT; k++) {
			const struct lne_rule_desc *a = &lne_rule_desc[k];

			if (a->kind == LNE_RULE_K_EXPR && cf_op_get_str(op, a->name)) {
				yout_key(y, a->yaml);
				yout_str(y, cf_op_get_str(op, a->name));
			}
		}
		for (k = 0, action = false; k < LNE_RULE_A__COUNT; k++) {
			const struct lne_rule_desc *a = &lne_rule_desc[k];

			if (a->kind != LNE_RULE_K_PRIO || !cf_op_get_u32(op, a->name, &u))
				continue;
			if (!action) {
				yout_key(y, "action");
				yout_map_begin(y);
				action = true;
			}
			yout_key(y, a->yaml);
			yout_u32(y, u);
		}
		if (action)
			yout_map_end(y);
		yout_map_end(y);
	}
	yout_seq_end(y);
	return 0;
}

/* Lustre's sections of the globals, in cf_global_section()'s order. */
static int emit_globals(struct yout *y, const struct cf_doc *doc)
{
	static const char *const sections[CF_GSEC__COUNT] = {"global", "routing", "buffers"};
	uint32_t u = 0;
	size_t i;
	int sec;

	for (sec = 0; sec < CF_GSEC__COUNT; sec++) {
		bool open = false;

		for (i = 0; i < doc->nop; i++) {
			const struct cf_op *op = &doc->op[i];

			if (cf_op_rank(op) != CF_R_GLOBAL || emit_check(op) ||
			    cf_global_section(op) != sec)
				continue;
			if (!open) {
				yout_key(y, sections[sec]);
				yout_map_begin(y);
				open = true;
			}
			yout_key(y, lne_global_info(cf_global_by_name(cf_op_get_str(op, "name")))
					    ->yaml);
			cf_op_get_u32(op, "value", &u);
			yout_u32(y, u);
		}
		if (open)
			yout_map_end(y);
	}
	return 0;
}

/* peers: the Multi-Rail design's peers, each exactly its NIDs (set peer). */
static int emit_seed_peers(struct yout *y, const struct cf_doc *doc)
{
	char *const *nids;
	size_t i, k, n;

	yout_key(y, "peers");
	yout_seq_begin(y);
	for (i = 0; i < doc->nop; i++) {
		const struct cf_op *op = &doc->op[i];

		if (cf_op_rank(op) != CF_R_PEERS || emit_check(op))
			continue;
		nids = cf_op_get_strv(op, "nids", &n);
		yout_map_begin(y);
		yout_key(y, "nids");
		yout_seq_begin(y);
		yout_str(y, cf_op_get_str(op, "primary"));
		for (k = 0; nids && k < n; k++)
			yout_str(y, nids[k]);
		yout_seq_end(y);
		yout_map_end(y);
	}
	yout_seq_end(y);
	return 0;
}

/* tbf: lnetd's section, one entry per queue of a service's policy. */
static int emit_tbf(struct yout *y, const struct cf_doc *doc)
{
	static const char *const strs[] = {"service", "queue", "type"};
	char *const *rules;
	uint32_t u;
	size_t i, k, n;

	yout_key(y, "tbf");
	yout_seq_begin(y);
	for (i = 0; i < doc->nop; i++) {
		const struct cf_op *op = &doc->op[i];

		if (cf_op_rank(op) != CF_R_TBF || emit_check(op))
			continue;
		yout_map_begin(y);
		for (k = 0; k < 3; k++)
			if (cf_op_get_str(op, strs[k])) {
				yout_key(y, strs[k]);
				yout_str(y, cf_op_get_str(op, strs[k]));
			}
		if (cf_op_get_u32(op, "depth", &u)) {
			yout_key(y, "depth");
			yout_u32(y, u);
		}
		rules = cf_op_get_strv(op, "rules", &n);
		if (cf_op_get(op, "rules")) { /* an empty list says "no rule but default" */
			yout_key(y, "rules");
			yout_seq_begin(y);
			for (k = 0; k < n; k++)
				yout_str(y, rules[k]);
			yout_seq_end(y);
		}
		yout_map_end(y);
	}
	yout_seq_end(y);
	return 0;
}

int cf_emit(FILE *out, const struct cf_doc *doc, unsigned int flags)
{
	static int (*const section[])(struct yout *, const struct cf_doc *) = {
		[CF_R_NET] = emit_nets,	      [CF_R_IP2NETS] = emit_ip2nets,
		[CF_R_PEER] = emit_peers,     [CF_R_PEERS] = emit_seed_peers,
		[CF_R_ROUTE] = emit_routes,   [CF_R_UDSP] = emit_udsps,
		[CF_R_GLOBAL] = emit_globals, [CF_R_TBF] = emit_tbf,
	};
	bool used[CF_R__COUNT] = {false}, gseen[LNE_G__COUNT] = {false};
	struct yout *y;
	size_t i, r, n = 0;
	int rc, err;

	if (flags)
		return -EINVAL;
	for (i = 0; i < doc->nop; i++) {
		rc = emit_check(&doc->op[i]);
		if (rc < 0)
			return rc;
		if (rc)
			continue;
		if (cf_op_rank(&doc->op[i]) == CF_R_GLOBAL) {
			int g = cf_global_by_name(cf_op_get_str(&doc->op[i], "name"));

			/* One key per global: a second would be a duplicate key. */
			if (gseen[g])
				return -EINVAL;
			gseen[g] = true;
		}
		used[cf_op_rank(&doc->op[i])] = true;
		n++;
	}
	if (!n)
		return 0;
	y = yout_begin(out);
	yout_map_begin(y);
	for (r = 0, rc = 0; !rc && r < CF_R_OTHER; r++)
		if (used[r])
			rc = section[r](y, doc);
	yout_map_end(y);
	err = yout_end(y);
	return rc ? rc : err;
}
