// SPDX-License-Identifier: GPL-2.0
/*
 * conf-parse-net.c - lnet.conf's net: and ip2nets: sections: local NIs
 * in Lustre's form (net type, local NI(s)) and the Multi-Rail design's
 * (net, interfaces, pattern), and ip2nets rules, into net ops.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf-int.h"
#include "engine/tunables.h"

/* One local NI (net:) or one ip2nets rule. */
struct ni_spec {
	yaml_node_t *net; /* net type / net-spec */
	struct cfp_nodes ifs, ranges;
	char *cpts;
	bool tun_set[LNE_TUN__COUNT];
	uint32_t tun[LNE_TUN__COUNT];
};

static void ni_spec_free(struct ni_spec *s)
{
	free(s->ifs.v);
	free(s->ranges.v);
	free(s->cpts);
}

static int h_interfaces(struct cfp *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	struct ni_spec *s = st;

	return cfp_get_strs(p, k, v, &s->ifs);
}

static int h_ip_range(struct cfp *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	struct ni_spec *s = st;

	return cfp_get_strs(p, k, v, &s->ranges);
}

/* CPT: "[0,1]" as Lustre prints it, or a list of CPT numbers. */
static int h_cpt(struct cfp *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	struct ni_spec *s = st;
	const yaml_node_item_t *it;
	const char *str;
	size_t len = 0;
	FILE *f;
	int rc;

	if (s->cpts)
		return cfp_fail(p, k, "CPT", "given twice (once in tunables)");
	if (v->type != YAML_SEQUENCE_NODE) {
		rc = cfp_get_str(p, "CPT", v, &str);
		if (!rc && !(s->cpts = strdup(str)))
			return cfp_nomem(p);
		return rc;
	}
	if (v->data.sequence.items.start == v->data.sequence.items.top)
		return cfp_fail(p, v, "CPT", "lists no CPT");
	f = open_memstream(&s->cpts, &len);
	if (!f)
		return cfp_nomem(p);
	fputc('[', f);
	/* Each item a CPT or a range of them, as Lustre's CPT: [0-3] */
	for (it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
		yaml_node_t *item = cfp_node(p, *it);
		const char *t = item->type == YAML_SCALAR_NODE ? cfp_sval(item) : "";
		size_t a = strspn(t, "0123456789"),
		       b = t[a] == '-' ? strspn(t + a + 1, "0123456789") : 0;

		uint32_t cpt;

		if (a && a <= 2 && t[a] == '-') {
			if (!b || b > 2 || t[a + 1 + b]) {
				fclose(f);
				return cfp_fail(p, item, "CPT",
						"'%s' is not a range of CPTs like 0-3", t);
			}
		} else if ((rc = cfp_get_u32(p, "CPT", item, &cpt, NULL))) {
			fclose(f);
			return rc;
		}
		fprintf(f, "%s%s", it == v->data.sequence.items.start ? "" : ",", t);
	}
	fputc(']', f);
	return fclose(f) ? cfp_nomem(p) : 0;
}

/* One tunable (engine/tunables.h): its key names it. */
static int h_tun(struct cfp *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	struct ni_spec *s = st;
	int t = lne_tun_lookup(cfp_sval(k)), rc;
	bool dflt;

	if (t < 0) /* only the tunables' keys come here */
		return cfp_fail(p, k, cfp_sval(k), "is not a tunable");
	rc = cfp_get_u32(p, cfp_sval(k), v, &s->tun[t], &dflt);
	/* -1: the LND's default, as Lustre's import leaves a negative tunable alone. */
	s->tun_set[t] = !rc && !dflt;
	return rc;
}

/*
 * A tunables block: the tunables of engine/tunables.h's "tunables" section
 * and @extra (to its NULL; a NULL handler: accepted, ignored).  Any other
 * key is ignored with a warning naming it, as Lustre's import ignores the
 * keys it does not know (a site's file may carry o2iblnd's peer_credits_hiw
 * and the like).
 */
static int walk_tunables(struct cfp *p, yaml_node_t *v, const struct cfp_keydef *extra, void *st)
{
	const yaml_node_pair_t *pr;
	int rc;

	if (cfp_is_null(v))
		return 0;
	rc = cfp_check_map(p, v, "tunables", "tunables");
	for (pr = v->data.mapping.pairs.start; !rc && pr < v->data.mapping.pairs.top; pr++) {
		yaml_node_t *key = cfp_node(p, pr->key);
		const char *name = cfp_sval(key);
		const struct cfp_keydef *d;
		int t = lne_tun_lookup(name);

		if (t >= 0 && lne_tun_desc[t].section == LNE_TUN_NET) {
			rc = h_tun(p, key, cfp_node(p, pr->value), st);
			continue;
		}
		for (d = extra; d->name && strcmp(d->name, name); d++)
			;
		if (d->name) {
			rc = d->fn ? d->fn(p, key, cfp_node(p, pr->value), st) : 0;
		} else if (p->mode == CF_DEL) {
			continue;
		} else if (t >= 0) {
			rc = cfp_warning_at(p, key,
					    "key '%s': an LND tunable, read in lnd tunables, "
					    "ignored here",
					    name);
		} else {
			rc = cfp_warning_at(p, key, "key '%s': not a tunable lnetd knows, ignored",
					    name);
		}
	}
	return rc;
}

static int h_tunables(struct cfp *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	static const struct cfp_keydef extra[] = {
		{"CPT", h_cpt}, /* where Lustre's import also looks for it */
		{NULL, NULL},
	};

	return walk_tunables(p, v, extra, st);
}

/*
 * LND tunables: those of engine/tunables.h are read; Lustre has more
 * (o2iblnd's map_on_demand, concurrent_sends, ...), which lnetd leaves to
 * the LNDs' defaults: say so, naming them.
 */
static int h_lnd_tunables(struct cfp *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	const yaml_node_pair_t *pr;
	char names[256] = "";
	size_t len = 0;
	int rc;

	if (cfp_is_null(v))
		return 0;
	rc = cfp_check_map(p, v, "lnd tunables", "lnd tunables");
	if (rc || v->data.mapping.pairs.start == v->data.mapping.pairs.top)
		return rc;
	for (pr = v->data.mapping.pairs.start; !rc && pr < v->data.mapping.pairs.top; pr++) {
		yaml_node_t *key = cfp_node(p, pr->key);
		const char *name = cfp_sval(key);
		int t = lne_tun_lookup(name);

		if (t >= 0 && lne_tun_desc[t].section == LNE_TUN_LND) {
			/* Lustre's read-only kind (the LND timeout): shown, not a setting. */
			if (p->mode != CF_DEL && !(lne_tun_desc[t].flags & LNE_TUN_F_SHOWN))
				rc = h_tun(p, key, cfp_node(p, pr->value), st);
			continue;
		}
		if (p->mode == CF_DEL)
			continue;
		if (len + strlen(name) + 8 >= sizeof(names)) {
			snprintf(names + len, sizeof(names) - len, ", ...");
			break;
		}
		len += (size_t)snprintf(names + len, sizeof(names) - len, "%s%s", len ? ", " : "",
					name);
	}
	if (rc || !len)
		return rc;
	return cfp_warning_at(p, k, "lnd tunables (%s): not acted on by lnetd", names);
}

/* One op per interface ("eth0[0,1]" carries its own CPTs, as in Lustre). */
static int ni_op(struct cfp *p, const struct ni_spec *s, const yaml_node_t *at, const char *ifname,
		 const char *cpts, const char *pattern)
{
	struct cf_op *op = cfp_op_at(cfp_verb(p), "net", at);
	int rc = op ? 0 : -ENOMEM;
	size_t t;

	rc = rc ? rc : cf_op_set_str(op, "net", cfp_sval(s->net));
	if (!rc && ifname)
		rc = cf_op_set_str(op, "interface", ifname);
	/* A del names the NI by its interface when it has one, else its pattern. */
	if (!rc && pattern && (p->mode == CF_ADD || !ifname))
		rc = cf_op_set_str(op, "pattern", pattern);
	if (p->mode == CF_ADD) {
		if (!rc && cpts)
			rc = cf_op_set_str(op, "cpts", cpts);
		for (t = 0; !rc && t < LNE_TUN__COUNT; t++)
			if (s->tun_set[t])
				rc = cf_op_set_u32(op, lne_tun_desc[t].name, s->tun[t]);
	}
	return cfp_push(p, op, rc);
}

static int ni_ops(struct cfp *p, const struct ni_spec *s, const char *pattern)
{
	size_t i;
	int rc = 0;

	for (i = 0; !rc && i < s->ifs.n; i++) {
		const yaml_node_t *n = s->ifs.v[i];
		const char *name = cfp_sval(n), *br = strchr(name, '[');
		const char *cpts = s->cpts;
		char *ifname;

		if (br) {
			if (br == name || name[strlen(name) - 1] != ']')
				return cfp_fail(
					p, n, "interfaces",
					"'%s' is not an interface, nor one with CPTs like eth0[0,1]",
					name);
			if (s->cpts && strcmp(s->cpts, br))
				return cfp_fail(p, n, "interfaces",
						"CPTs %s disagree with CPT '%s'", br, s->cpts);
			cpts = br;
		}
		ifname = strndup(name, br ? (size_t)(br - name) : strlen(name));
		if (!ifname)
			return cfp_nomem(p);
		rc = ni_op(p, s, n, ifname, cpts, pattern);
		free(ifname);
	}
	if (!rc && !s->ifs.n && pattern)
		rc = ni_op(p, s, s->ranges.v[0], NULL, s->cpts, pattern);
	return rc;
}

static const struct cfp_keydef local_ni_keys[] = {
	{"interfaces", h_interfaces},
	{"tunables", h_tunables},
	{"lnd tunables", h_lnd_tunables},
	{"CPT", h_cpt},
	{"nid", NULL},
	{"status", NULL},
	{"statistics", NULL},
	{"sent_stats", NULL},
	{"received_stats", NULL},
	{"dropped_stats", NULL},
	{"health stats", NULL},
	{"udsp info", NULL},
	{"dev cpt", NULL},
	{"tcp bonding", NULL},
	{NULL, NULL},
};

struct net_entry {
	yaml_node_t *net, *nis;
	size_t nops;	       /* ops made from its NIs */
	struct ni_spec shared; /* the net's tunables and CPT: each NI's unless its own */
};

static int do_local_ni(struct cfp *p, yaml_node_t *item, void *st)
{
	struct net_entry *e = st;
	struct ni_spec s = {.net = e->net};
	size_t before = p->out.nop;
	int rc, t;

	rc = cfp_walk_map(p, item, "local NI(s)", "a local NI", local_ni_keys, &s);
	for (t = 0; !rc && t < LNE_TUN__COUNT; t++)
		if (!s.tun_set[t] && e->shared.tun_set[t]) {
			s.tun_set[t] = true;
			s.tun[t] = e->shared.tun[t];
		}
	if (!rc && !s.cpts && e->shared.cpts && !(s.cpts = strdup(e->shared.cpts)))
		rc = cfp_nomem(p);
	if (!rc && !s.ifs.n && p->mode == CF_ADD)
		rc = cfp_fail(p, item, "interfaces", "missing: a local NI needs an interface");
	rc = rc ? rc : ni_ops(p, &s, NULL);
	e->nops += p->out.nop - before;
	ni_spec_free(&s);
	return rc;
}

static int h_net_type(struct cfp *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	struct net_entry *e = st;
	const char *s;

	e->net = v;
	return cfp_get_str(p, "net type", v, &s);
}

static int h_local_nis(struct cfp *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	struct net_entry *e = st;

	e->nis = v;
	return 0;
}

/* Tunables beside "local NI(s)": Lustre's net-wide ones, for every NI of the net. */
static int h_net_tunables(struct cfp *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	return h_tunables(p, k, v, &((struct net_entry *)st)->shared);
}

static int h_net_lnd_tunables(struct cfp *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	return h_lnd_tunables(p, k, v, &((struct net_entry *)st)->shared);
}

static const struct cfp_keydef net_keys[] = {
	{"net type", h_net_type},
	{"local NI(s)", h_local_nis},
	{"tunables", h_net_tunables},
	{"lnd tunables", h_net_lnd_tunables},
	{"seq_no", NULL},
	{NULL, NULL},
};

/*
 * The Multi-Rail design's net: entries, beside Lustre's "net type" form:
 *   - net: o2ib1                        - net: o2ib
 *     interfaces:                         intf: ib0        (optional)
 *       - intf: ib0                       pattern: 192.168.2.*
 *         CPT: 1,3
 *     tunables: {...}
 * and, to delete, "- net: o2ib1" alone (the whole net) or with interfaces.
 */
struct seed_net {
	struct ni_spec s;
	yaml_node_t *ifaces, *pattern;
};

static int h_seed_net(struct cfp *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	struct seed_net *n = st;
	const char *str;

	n->s.net = v;
	return cfp_get_str(p, "net", v, &str);
}

static int h_seed_intf(struct cfp *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	struct ni_spec *s = st;
	const char *str;
	int rc = cfp_get_str(p, "intf", v, &str);

	return rc ? rc : cfp_nodes_push(p, &s->ifs, v);
}

static int h_seed_ifaces(struct cfp *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	((struct seed_net *)st)->ifaces = v;
	return 0;
}

static int h_seed_pattern(struct cfp *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	struct seed_net *n = st;
	const char *str;

	n->pattern = v;
	return cfp_get_str(p, "pattern", v, &str);
}

static int h_seed_tunables(struct cfp *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	static const struct cfp_keydef extra[] = {
		{"seq_no", NULL},
		{NULL, NULL},
	};

	return walk_tunables(p, v, extra, &((struct seed_net *)st)->s);
}

static int h_seed_entry_intf(struct cfp *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	return h_seed_intf(p, k, v, &((struct seed_net *)st)->s);
}

static int h_seed_entry_cpt(struct cfp *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	return h_cpt(p, k, v, &((struct seed_net *)st)->s);
}

static const struct cfp_keydef seed_net_keys[] = {
	{"net", h_seed_net},
	{"interfaces", h_seed_ifaces},
	{"tunables", h_seed_tunables},
	{"intf", h_seed_entry_intf},
	{"pattern", h_seed_pattern},
	{"CPT", h_seed_entry_cpt},
	{"seq_no", NULL},
	{NULL, NULL},
};

static const struct cfp_keydef seed_intf_keys[] = {
	{"intf", h_seed_intf},
	{"CPT", h_cpt},
	{"detail", NULL}, /* the design's show-only flag */
	{NULL, NULL},
};

/* One "- intf: ib0  CPT: 1,3" item: an NI with the entry's net and tunables. */
static int do_seed_intf(struct cfp *p, yaml_node_t *item, void *st)
{
	const struct seed_net *n = st;
	struct ni_spec it = {.net = n->s.net};
	int rc;

	memcpy(it.tun_set, n->s.tun_set, sizeof(it.tun_set));
	memcpy(it.tun, n->s.tun, sizeof(it.tun));
	rc = cfp_walk_map(p, item, "interfaces", "an interface", seed_intf_keys, &it);
	if (!rc && !it.ifs.n)
		rc = cfp_fail(p, item, "intf", "missing in an interface");
	if (!rc && !it.cpts && n->s.cpts && !(it.cpts = strdup(n->s.cpts)))
		rc = cfp_nomem(p);
	rc = rc ? rc : ni_ops(p, &it, NULL);
	ni_spec_free(&it);
	return rc;
}

static int do_seed_net(struct cfp *p, yaml_node_t *item)
{
	struct seed_net n = {0};
	int rc = cfp_walk_map(p, item, "net", "a net", seed_net_keys, &n);

	if (rc)
		goto out;
	if (cf_net_is_lo(cfp_sval(n.s.net)))
		goto out;
	if (n.pattern && n.ifaces)
		rc = cfp_fail(p, n.ifaces, "interfaces",
			      "a pattern entry names at most one interface, with intf:");
	else if (n.pattern && !(rc = cfp_nodes_push(p, &n.s.ranges, n.pattern)))
		rc = ni_ops(p, &n.s, cfp_sval(n.pattern));
	else if (n.s.ifs.n)
		rc = cfp_fail(p, n.s.ifs.v[0], "intf",
			      "goes with a pattern (or under interfaces:)");
	else if (n.ifaces && !cfp_is_null(n.ifaces))
		rc = cfp_walk_seq(p, n.ifaces, "interfaces", "interfaces", do_seed_intf, &n);
	else if (p->mode == CF_DEL) {
		struct cf_op *op = cfp_op_at("del", "net", n.s.net);

		rc = cfp_push(p, op, op ? cf_op_set_str(op, "net", cfp_sval(n.s.net)) : 0);
	} else
		rc = cfp_fail(p, item, "interfaces",
			      "missing: a net needs interfaces or a pattern");
out:
	ni_spec_free(&n.s);
	return rc;
}

/* Which form a net: entry is in: Lustre's says "net type", the design's "net". */
static bool seed_form(struct cfp *p, yaml_node_t *item)
{
	const yaml_node_pair_t *pr;

	if (item->type != YAML_MAPPING_NODE)
		return false;
	for (pr = item->data.mapping.pairs.start; pr < item->data.mapping.pairs.top; pr++)
		if (!strcmp(cfp_sval(cfp_node(p, pr->key)), "net"))
			return true;
	return false;
}

static int do_net(struct cfp *p, yaml_node_t *item, void *st)
{
	struct net_entry e = {0};
	int rc;

	if (seed_form(p, item))
		return do_seed_net(p, item);
	rc = cfp_walk_map(p, item, "net", "a net", net_keys, &e);
	if (rc)
		goto out;
	if (!e.net) {
		rc = cfp_fail(p, item, "net type", "missing in a net");
		goto out;
	}
	/* 0@lo always exists; Lustre's export lists it. */
	if (cf_net_is_lo(cfp_sval(e.net)))
		goto out;
	if (p->mode == CF_ADD && (!e.nis || cfp_is_null(e.nis))) {
		rc = cfp_fail(p, item, "local NI(s)", "missing in a net");
		goto out;
	}
	if (e.nis)
		rc = cfp_walk_seq(p, e.nis, "local NI(s)", "local NIs", do_local_ni, &e);
	if (!rc && p->mode == CF_ADD && !e.nops)
		rc = cfp_fail(p, e.nis, "local NI(s)", "lists no local NI");
	/* A del naming no interface deletes the whole net. */
	if (!rc && p->mode == CF_DEL && !e.nops) {
		struct cf_op *op = cfp_op_at("del", "net", e.net);

		rc = cfp_push(p, op, op ? cf_op_set_str(op, "net", cfp_sval(e.net)) : 0);
	}
out:
	ni_spec_free(&e.shared);
	return rc;
}

int cfp_sec_net(struct cfp *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	return cfp_walk_seq(p, v, "net", "nets", do_net, NULL);
}

/* ---------------------------------------------------------------------- */
/* ip2nets:                                                               */
/* ---------------------------------------------------------------------- */

static int h_net_spec(struct cfp *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	struct ni_spec *s = st;
	const char *str;
	int rc = cfp_get_str(p, "net-spec", v, &str);

	if (!rc && strchr(str, '('))
		return cfp_fail(p, v, "net-spec", "'%s': give the interfaces under 'interfaces:'",
				str);
	s->net = v;
	return rc;
}

static const struct cfp_keydef ip2nets_keys[] = {
	{"net-spec", h_net_spec},
	{"interfaces", h_interfaces},
	{"ip-range", h_ip_range},
	{"tunables", h_tunables},
	{"lnd tunables", h_lnd_tunables},
	{"CPT", h_cpt},
	{"seq_no", NULL},
	{NULL, NULL},
};

/* The ip-range entries as one pattern: their address patterns, single spaces between. */
static char *join_ranges(const struct cfp_nodes *ranges)
{
	size_t i, len = 0, cap = 1;
	char *pat, *tok, *save, *copy;

	for (i = 0; i < ranges->n; i++)
		cap += strlen(cfp_sval(ranges->v[i])) + 1;
	pat = calloc(1, cap);
	if (!pat)
		return NULL;
	for (i = 0; i < ranges->n; i++) {
		copy = strdup(cfp_sval(ranges->v[i]));
		if (!copy) {
			free(pat);
			return NULL;
		}
		for (tok = strtok_r(copy, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save))
			len += (size_t)snprintf(pat + len, cap - len, "%s%s", len ? " " : "", tok);
		free(copy);
	}
	return pat;
}

/*
 * The (net, interface) pairs of the rules read so far.  As in Lustre, the
 * first rule that gives an interface to a net decides it: a later rule
 * naming an interface its net has already (a catch-all "*.*.*.*" masks the
 * rules after it) is skipped whole, with a warning.  Each rule of several
 * interfaces is one NI per interface, each carrying all the rule's ranges
 * (the Multi-Rail design's net, interface, pattern).
 */
struct ip2nets_seen {
	size_t rules;
	size_t n, cap;
	struct {
		lne_net_t net;
		const char *ifname; /* up to its "[CPTs]" */
		size_t len, rule;
	} * v;
};

static size_t ifname_len(const char *name)
{
	return strcspn(name, "[");
}

/* The earlier rule giving @s's net one of its interfaces (0: none); @at the interface. */
static size_t ip2nets_masked(const struct ip2nets_seen *seen, const struct ni_spec *s,
			     lne_net_t net, const yaml_node_t **at)
{
	size_t i, k;

	for (i = 0; i < s->ifs.n; i++) {
		const char *name = cfp_sval(s->ifs.v[i]);

		for (k = 0; k < seen->n; k++)
			if (seen->v[k].net == net && seen->v[k].len == ifname_len(name) &&
			    !strncmp(seen->v[k].ifname, name, seen->v[k].len)) {
				*at = s->ifs.v[i];
				return seen->v[k].rule;
			}
	}
	return 0;
}

static int ip2nets_remember(struct cfp *p, struct ip2nets_seen *seen, const struct ni_spec *s,
			    lne_net_t net)
{
	size_t i;

	for (i = 0; i < s->ifs.n; i++) {
		const char *name = cfp_sval(s->ifs.v[i]);

		if (seen->n == seen->cap) {
			size_t cap = seen->cap ? 2 * seen->cap : 8;
			void *v = realloc(seen->v, cap * sizeof(*seen->v));

			if (!v)
				return cfp_nomem(p);
			seen->v = v;
			seen->cap = cap;
		}
		seen->v[seen->n].net = net;
		seen->v[seen->n].ifname = name;
		seen->v[seen->n].len = ifname_len(name);
		seen->v[seen->n++].rule = seen->rules;
	}
	return 0;
}

/*
 * An interface a rule names twice is one NI: the second is dropped with a
 * warning (else the rule's NIs would be two of the same, and the export of
 * them two rules, the second skipped when read back).
 */
static int ip2nets_once(struct cfp *p, struct ni_spec *s)
{
	size_t i, k;
	int rc = 0;

	for (i = 1; !rc && i < s->ifs.n; i++)
		for (k = 0; k < i; k++) {
			const char *a = cfp_sval(s->ifs.v[i]), *b = cfp_sval(s->ifs.v[k]);

			if (ifname_len(a) != ifname_len(b) || strncmp(a, b, ifname_len(a)))
				continue;
			rc = cfp_warning_at(
				p, s->ifs.v[i],
				"interface %.*s is named twice in this rule: once is kept",
				(int)ifname_len(a), a);
			memmove(&s->ifs.v[i], &s->ifs.v[i + 1],
				(s->ifs.n - i - 1) * sizeof(s->ifs.v[0]));
			s->ifs.n--;
			i--;
			break;
		}
	return rc;
}

static int do_ip2nets(struct cfp *p, yaml_node_t *item, void *st)
{
	struct ip2nets_seen *seen = st;
	const yaml_node_t *at = NULL;
	struct ni_spec s = {0};
	char *pattern = NULL;
	size_t first;
	lne_net_t net;
	int rc = cfp_walk_map(p, item, "ip2nets", "an ip2nets rule", ip2nets_keys, &s);

	seen->rules++;
	if (!rc && !s.net)
		rc = cfp_fail(p, item, "net-spec", "missing in an ip2nets rule");
	if (!rc && cf_net_is_lo(cfp_sval(s.net)))
		goto out; /* as in a net: entry, and in Lustre */
	if (!rc && !s.ifs.n && !s.ranges.n)
		rc = cfp_fail(p, item, "ip-range",
			      "missing: an ip2nets rule needs ip-range or interfaces");
	if (!rc && s.ranges.n) {
		pattern = join_ranges(&s.ranges);
		if (!pattern)
			rc = cfp_nomem(p);
		else if (!*pattern)
			rc = cfp_fail(p, s.ranges.v[0], "ip-range", "has no address pattern");
	}
	if (!rc)
		rc = ip2nets_once(p, &s);
	if (!rc && !lne_net_parse(cfp_sval(s.net), &net, NULL)) {
		first = ip2nets_masked(seen, &s, net, &at);
		if (first) {
			rc = cfp_warning_at(p, at,
					    "ip2nets rule %zu: %s has interface %s by rule %zu "
					    "already; this rule is skipped, as in Lustre",
					    seen->rules, cfp_sval(s.net), cfp_sval(at), first);
			goto out;
		}
		rc = ip2nets_remember(p, seen, &s, net);
	}
	rc = rc ? rc : ni_ops(p, &s, pattern);
out:
	free(pattern);
	ni_spec_free(&s);
	return rc;
}

int cfp_sec_ip2nets(struct cfp *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	struct ip2nets_seen seen = {0};
	int rc = cfp_walk_seq(p, v, "ip2nets", "ip2nets rules", do_ip2nets, &seen);

	free(seen.v);
	return rc;
}
