// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-net.c - lnetctl net add|del|show|set: local NIs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/nid.h"
#include "engine/tunables.h"
#include "lnetctl.h"
#include "yout.h"

/* The tunables and CPTs given on the command line, into @op. */
static int ni_options(struct ctl_opt *opt, struct cf_op *op)
{
	uint32_t v;
	int k, rc;

	for (k = 0; k < LNE_TUN__COUNT; k++) {
		const struct lne_tun_desc *t = &lne_tun_desc[k];
		struct ctl_opt *o = ctl_opt(opt, t->option);

		if (!o->given || !strcmp(o->val, "-1")) /* -1: the LND's default */
			continue;
		rc = ctl_u32(o, UINT32_MAX, &v);
		if (rc)
			return rc;
		if (cf_op_set_u32(op, t->name, v))
			return ctl_fail(EXIT_REFUSED, "out of memory");
	}
	if (ctl_opt(opt, "cpt")->given && cf_op_set_str(op, "cpts", ctl_opt(opt, "cpt")->val))
		return ctl_fail(EXIT_REFUSED, "out of memory");
	return 0;
}

/*
 * One NI.  "eth0[0,1]" is eth0 on CPTs [0,1], Lustre's way of writing
 * both; it and --cpt must then agree.
 */
static int push_ni(struct cf_doc *doc, struct ctl_opt *opt, const char *net, const char *ifname,
		   const char *pattern)
{
	struct cf_op *op = cf_op_new("add", "net");
	const char *br = ifname ? strchr(ifname, '[') : NULL;
	struct ctl_opt *cpt = ctl_opt(opt, "cpt");
	char *name = NULL;
	int rc;

	if (br && (br == ifname || ifname[strlen(ifname) - 1] != ']')) {
		cf_op_free(op);
		return ctl_usage("'%s' is not an interface, nor one with CPTs like eth0[0,1]",
				 ifname);
	}
	if (br && cpt->given && strcmp(cpt->val, br)) {
		cf_op_free(op);
		return ctl_usage("the CPTs of %s disagree with --cpt %s", ifname, cpt->val);
	}
	name = br ? strndup(ifname, (size_t)(br - ifname)) : NULL;
	if (!op || (br && !name) || cf_op_set_str(op, "net", net) ||
	    (ifname && cf_op_set_str(op, "interface", br ? name : ifname)) ||
	    (pattern && cf_op_set_str(op, "pattern", pattern))) {
		cf_op_free(op);
		free(name);
		return ctl_fail(EXIT_REFUSED, "out of memory");
	}
	free(name);
	rc = ni_options(opt, op);
	if (!rc && br && cf_op_set_str(op, "cpts", br))
		rc = ctl_fail(EXIT_REFUSED, "out of memory");
	if (rc) {
		cf_op_free(op);
		return rc;
	}
	return cf_doc_push(doc, op) ? ctl_fail(EXIT_REFUSED, "out of memory") : 0;
}

/*
 * Lustre's ip2nets string: rules separated by ';' or newlines, each
 * "NET[(IF[,IF...])] PATTERN [PATTERN...]".  A rule is one NI per interface
 * named (or one placed by the patterns alone), its patterns joined by
 * spaces: an interface is used when its address matches any of them.
 */
static int ip2nets(struct cf_doc *doc, struct ctl_opt *opt, const char *spec)
{
	char *copy = strdup(spec), *rule, *save = NULL;
	int rc = 0;

	if (!copy)
		return ctl_fail(EXIT_REFUSED, "out of memory");
	for (rule = strtok_r(copy, ";\n", &save); !rc && rule;
	     rule = strtok_r(NULL, ";\n", &save)) {
		char *net, *ifs = NULL, *pat, *s2 = NULL, *open, **ifv = NULL, pats[512] = "";
		size_t nif = 0, i, used = 0;

		net = strtok_r(rule, " \t", &s2);
		if (!net)
			continue;
		open = strchr(net, '(');
		if (open) {
			ifs = open + 1;
			*open = '\0';
			if (!strchr(ifs, ')') || strchr(ifs, ')')[1])
				rc = ctl_usage("--ip2net: '%s(%s': the interface list needs a ')'",
					       net, ifs);
			else
				*strchr(ifs, ')') = '\0';
			ifv = rc ? NULL : ctl_split(ifs, &nif);
		}
		while (!rc && (pat = strtok_r(NULL, " \t", &s2))) {
			used += (size_t)snprintf(pats + used, sizeof(pats) - used, "%s%s",
						 used ? " " : "", pat);
			if (used >= sizeof(pats))
				rc = ctl_usage("--ip2net: the patterns of %s are too long", net);
		}
		if (!rc && !used)
			rc = ctl_usage("--ip2net: the rule for %s has no address pattern", net);
		for (i = 0; !rc && i < (nif ? nif : 1); i++)
			rc = push_ni(doc, opt, net, nif ? ifv[i] : NULL, pats);
		ctl_strv_free(ifv);
	}
	free(copy);
	return rc;
}

static int net_add(struct ctl_opt *opt, int argc, char **argv)
{
	struct ctl_opt *net = ctl_opt(opt, "net"), *ifs = ctl_opt(opt, "if"),
		       *ip2 = ctl_opt(opt, "ip2net"), *nid = ctl_opt(opt, "nid");
	struct cf_doc doc = {0};
	sd_bus *bus = NULL;
	char **ifv = NULL, **changes = NULL;
	uint64_t gen;
	size_t n = 0, i;
	int rc = 0;

	if (nid->given) {
		char nnet[LNE_NET_STR_MAX], addr[64];

		if (net->given || ifs->given || ip2->given)
			return ctl_usage("--nid names the NI itself: no --net, --if or --ip2net");
		rc = ctl_nid_split(nid->val, nnet, sizeof(nnet), addr, sizeof(addr));
		if (!rc)
			rc = push_ni(&doc, opt, nnet, NULL, addr);
		goto apply;
	}
	if (!ip2->given && !net->given)
		return ctl_usage("--net is required (or --ip2net or --nid)");
	if (!ip2->given && !ifs->given)
		return ctl_usage("--if is required (or --ip2net)");
	if (ip2->given && (net->given || ifs->given))
		return ctl_usage("--ip2net names its nets and interfaces itself: no --net or --if");
	if (ip2->given) {
		rc = ip2nets(&doc, opt, ip2->val);
	} else {
		ifv = ctl_split(ifs->val, &n);
		if (!n)
			rc = ctl_usage("--if: no interface in '%s'", ifs->val);
		for (i = 0; !rc && i < n; i++)
			rc = push_ni(&doc, opt, net->val, ifv[i], NULL);
	}
apply:
	if (!rc)
		rc = ctl_bus(&bus);
	/* One change, all the NIs or none; an NI there already is refused. */
	if (!rc) {
		rc = ctl_apply(bus, &doc, false, true, &gen, &changes, NULL);
	}
	ctl_strv_free(changes);
	ctl_strv_free(ifv);
	cf_doc_free(&doc);
	sd_bus_flush_close_unref(bus);
	return rc;
}

static int net_del(struct ctl_opt *opt, int argc, char **argv)
{
	struct ctl_opt *net = ctl_opt(opt, "net"), *ifs = ctl_opt(opt, "if");
	struct cf_doc doc = {0};
	char **ifv = NULL, **changes = NULL;
	sd_bus *bus = NULL;
	uint64_t gen;
	size_t n = 0, i;
	int rc;

	if (ctl_opt(opt, "nid")->given) {
		if (net->given || ifs->given)
			return ctl_usage("--nid names the NI itself: no --net or --if");
		rc = ctl_bus(&bus);
		if (!rc)
			rc = ctl_net_del_nid(bus, ctl_opt(opt, "nid")->val);
		sd_bus_flush_close_unref(bus);
		return rc;
	}
	if (!net->given)
		return ctl_usage("--net is required (or --nid)");
	if (ifs->given) {
		ifv = ctl_split(ifs->val, &n);
		if (!n) {
			ctl_strv_free(ifv);
			return ctl_usage("--if: no interface in '%s'", ifs->val);
		}
	}
	rc = ctl_bus(&bus);
	/*
	 * Through Apply, whatever was named: the whole net (no --if), one
	 * interface or ip2nets pattern (a digit or '*' first, and a '.', as
	 * lnetd's DeleteNI tells them), or several interfaces, one change.
	 */
	for (i = 0; !rc && i < (n ? n : 1); i++) {
		struct cf_op *op = cf_op_new("del", "net");
		bool pattern = n == 1 && strchr(ifv[0], '.') &&
			       strpbrk(ifv[0], "*[0123456789") == ifv[0];

		if (op && (cf_op_set_str(op, "net", net->val) ||
			   (n && cf_op_set_str(op, pattern ? "pattern" : "interface", ifv[i])))) {
			cf_op_free(op);
			op = NULL;
		}
		if (!op || cf_doc_push(&doc, op))
			rc = ctl_fail(EXIT_REFUSED, "out of memory");
	}
	if (!rc)
		rc = ctl_apply(bus, &doc, false, true, &gen, &changes, NULL);
	ctl_strv_free(changes);
	cf_doc_free(&doc);
	ctl_strv_free(ifv);
	sd_bus_flush_close_unref(bus);
	return rc;
}

/* One NI entry from ListNIs, its details read into these. */
struct ni_row {
	sd_bus *bus;			     /* for show -v's UDSP info */
	const struct ctl_counters *counters; /* show -v's statistics */
	const char *net, *ifname, *state, *nid, *reason, *pattern, *cpts;
	const char *cpts_in_effect; /* show -v's CPT when none is configured */
	uint32_t tun[LNE_TUN__COUNT], health;
	uint32_t lnd_timeout; /* the global one, which an LND timeout of 0 follows */
	int up;
	struct ctl_ni_nid nids[64]; /* "nis" */
	int32_t dev_cpts[64];	    /* each NID's */
	size_t nnids, ndev;
};

static int read_ni_row(sd_bus_message *r, struct ni_row *row, struct yout *y, bool verbose);

/* The nets of ListNIs' rows, each once, in order. */
static int row_nets(sd_bus_message *r, char ***nets, size_t *n)
{
	const char *net;
	size_t i;
	int rc;

	*nets = NULL;
	*n = 0;
	rc = sd_bus_message_enter_container(r, 'a', "(sssa{sv})");
	while (rc >= 0 && (rc = sd_bus_message_enter_container(r, 'r', "sssa{sv}")) > 0) {
		rc = sd_bus_message_read(r, "s", &net);
		if (rc >= 0)
			rc = sd_bus_message_skip(r, "ssa{sv}");
		if (rc >= 0)
			rc = sd_bus_message_exit_container(r);
		for (i = 0; rc >= 0 && i < *n && strcmp((*nets)[i], net); i++)
			;
		if (rc >= 0 && i == *n) {
			char **grown = realloc(*nets, (*n + 2) * sizeof(**nets));

			if (!grown)
				return -ENOMEM;
			*nets = grown;
			/* Counted only once there: a hole would end the list early. */
			(*nets)[*n] = strdup(net);
			if (!(*nets)[*n])
				return -ENOMEM;
			(*nets)[++(*n)] = NULL;
		}
	}
	if (rc >= 0)
		rc = sd_bus_message_exit_container(r);
	return rc;
}

static int show_nis(sd_bus *bus, sd_bus_message *r, const char *want, bool verbose)
{
	struct yout *y = yout_begin(stdout);
	char **nets = NULL;
	struct ctl_counters *counters = verbose ? ctl_counters_read(bus) : NULL;
	struct ni_row row;
	uint32_t lnd_timeout = 0;
	size_t n = 0, i;
	int rc;

	rc = verbose ? ctl_lnd_timeout(bus, &lnd_timeout) : 0;
	if (rc >= 0)
		rc = row_nets(r, &nets, &n);
	/* Lustre's layout (its LNET_DEFAULT_INDENT): scripts splice text into it. */
	yout_indent(y, 6);
	yout_map_begin(y);
	yout_key(y, "net");
	yout_seq_begin(y);
	for (i = 0; rc >= 0 && i < n; i++) {
		if (want && strcmp(want, nets[i]))
			continue;
		yout_map_begin(y);
		yout_key(y, "net type");
		yout_str(y, nets[i]);
		yout_key(y, "local NI(s)");
		yout_seq_begin(y);
		rc = sd_bus_message_rewind(r, true);
		if (rc >= 0)
			rc = sd_bus_message_enter_container(r, 'a', "(sssa{sv})");
		while (rc >= 0 && (rc = sd_bus_message_enter_container(r, 'r', "sssa{sv}")) > 0) {
			memset(&row, 0, sizeof(row));
			row.bus = bus;
			row.counters = counters;
			row.lnd_timeout = lnd_timeout;
			rc = sd_bus_message_read(r, "sss", &row.net, &row.ifname, &row.state);
			if (rc >= 0 && strcmp(row.net, nets[i]))
				rc = sd_bus_message_skip(r, "a{sv}");
			else if (rc >= 0)
				rc = read_ni_row(r, &row, y, verbose);
			if (rc >= 0)
				rc = sd_bus_message_exit_container(r);
		}
		yout_seq_end(y);
		yout_map_end(y);
	}
	yout_seq_end(y);
	yout_map_end(y);
	ctl_strv_free(nets);
	ctl_counters_free(counters);
	i = (size_t)yout_end(y);
	rc = rc < 0 ? rc : (int)i;
	if (rc < 0)
		return ctl_fail(EXIT_REFUSED, "cannot show the NIs: %s", strerror(-rc));
	return 0;
}

static void ni_entry(struct yout *y, const struct ni_row *row, const char *nid, const char *ifname,
		     int up, uint32_t health, int32_t dev_cpt, bool verbose)
{
	unsigned int sec;
	int k;

	yout_map_begin(y);
	if (nid) {
		yout_key(y, "nid");
		yout_str(y, nid);
	}
	/* lnetd's word on the entry: a NID known but not held by the module is pending too. */
	if (nid && row->state && !strcmp(row->state, "applied")) {
		/* lnetd's "up": the link, and health not set to 0 (Lustre's NI status) */
		yout_key(y, "status");
		yout_str(y, up ? "up" : "down");
	} else {
		yout_key(y, "status");
		yout_str(y, "pending");
		yout_key(y, "reason");
		yout_str(y, row->reason ?: "");
	}
	if (ifname && *ifname) {
		yout_key(y, "interfaces");
		yout_map_begin(y);
		yout_u32(y, 0); /* Lustre's key: a number, not a string */
		yout_str(y, ifname);
		yout_map_end(y);
	}
	if (row->pattern) {
		yout_key(y, "ip2nets pattern");
		yout_str(y, row->pattern);
	}
	/* Lustre's order: the counts, the UDSP priorities, the counts by type, health */
	if (verbose && nid) {
		ctl_counters_totals(y, row->counters, nid, true);
		ctl_udsp_info(NULL, row->bus, y, nid);
		ctl_counters_by_type(y, row->counters, nid, true);
		yout_key(y, "health stats");
		yout_map_begin(y);
		yout_key(y, "health value");
		yout_u32(y, health);
		ctl_health_stats(NULL, row->bus, y, nid);
		yout_map_end(y);
	}
	for (sec = 0; verbose && sec < LNE_ARRAY_SIZE(lne_tun_section_name); sec++) {
		bool open = false;

		for (k = 0; k < LNE_TUN__COUNT; k++) {
			if (lne_tun_desc[k].section != sec)
				continue;
			if (!open) {
				yout_key(y, lne_tun_section_name[sec]);
				yout_map_begin(y);
				open = true;
			}
			yout_key(y, lne_tun_desc[k].name);
			/* The LND timeout 0 is the global one, and shown as that, as Lustre's. */
			if (k == LNE_TUN_LND_TIMEOUT && !row->tun[k])
				yout_u32(y, row->lnd_timeout);
			else
				yout_tun(y, k, row->tun[k]);
		}
		if (open)
			yout_map_end(y);
	}
	/* Lustre's place for it: after the tunables, before CPT (-1: no NUMA node) */
	if (verbose && nid) {
		yout_key(y, "dev cpt");
		yout_i64(y, dev_cpt);
	}
	if (row->cpts || (verbose && row->cpts_in_effect)) {
		yout_key(y, "CPT");
		yout_str(y, row->cpts ?: row->cpts_in_effect);
	}
	yout_map_end(y);
}

static int row_nid(const struct ctl_ni_nid *n, void *arg)
{
	struct ni_row *row = arg;

	if (row->nnids < LNE_ARRAY_SIZE(row->nids))
		row->nids[row->nnids++] = *n;
	return 0;
}

static int read_row_nids(sd_bus_message *r, void *rec)
{
	return ctl_read_ni_nids(r, row_nid, rec);
}

static int read_dev_cpts(sd_bus_message *r, void *rec)
{
	struct ni_row *row = rec;
	int rc = sd_bus_message_enter_container(r, 'v', "ai");

	if (rc >= 0)
		rc = sd_bus_message_enter_container(r, 'a', "i");
	while (rc >= 0 && row->ndev < LNE_ARRAY_SIZE(row->dev_cpts) &&
	       (rc = sd_bus_message_read(r, "i", &row->dev_cpts[row->ndev])) > 0)
		row->ndev++;
	if (rc >= 0)
		rc = sd_bus_message_exit_container(r);
	if (rc >= 0)
		rc = sd_bus_message_exit_container(r);
	return rc < 0 ? rc : 1;
}

/* ListNIs' keys that are fields of the row (the tunables go by their table). */
static const struct ctl_key ni_keys[] = {
	CTL_KEY("reason", 's', struct ni_row, reason),
	CTL_KEY("pattern", 's', struct ni_row, pattern),
	CTL_KEY("cpts", 's', struct ni_row, cpts),
	CTL_KEY("cpts_in_effect", 's', struct ni_row, cpts_in_effect),
	CTL_KEY_FN("dev_cpts", read_dev_cpts),
	CTL_KEY_FN("nis", read_row_nids),
	{NULL},
};

static int ni_key(sd_bus_message *r, const char *key, void *arg)
{
	struct ni_row *row = arg;
	int k = lne_tun_lookup(key);

	if (k >= 0)
		return sd_bus_message_read(r, "v", "u", &row->tun[k]);
	return ctl_key_entry(r, key, ni_keys, row);
}

static int read_ni_row(sd_bus_message *r, struct ni_row *row, struct yout *y, bool verbose)
{
	size_t i;
	int rc = ctl_read_dict(r, ni_key, row);

	if (rc < 0)
		return rc;
	if (!row->nnids)
		ni_entry(y, row, NULL, row->ifname, 0, 0, -1, verbose);
	for (i = 0; i < row->nnids; i++)
		ni_entry(y, row, row->nids[i].nid, row->nids[i].ifname, row->nids[i].up,
			 row->nids[i].health, i < row->ndev ? row->dev_cpts[i] : -1, verbose);
	return 0;
}

static int net_show(struct ctl_opt *opt, int argc, char **argv)
{
	struct ctl_opt *net = ctl_opt(opt, "net");
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	sd_bus *bus = NULL;
	int rc;

	rc = ctl_canon(net, false);
	if (rc)
		return rc;
	rc = ctl_bus(&bus);
	if (!rc)
		rc = ctl_call(bus, "ListNIs", &reply, NULL);
	if (!rc)
		rc = show_nis(bus, reply, net->given ? net->val : NULL,
			      ctl_opt(opt, "verbose")->given);
	return ctl_finish(rc, bus, NULL);
}

/* The NI entry (net, interface, pattern) that has the NID @nid, from ListNIs. */
struct nid_owner {
	const char *nid;
	bool found;
	char *net, *ifname, *pattern;
};

static int nid_owner(sd_bus *bus, struct nid_owner *o)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *r = NULL;
	const char *net, *ifname, *state;
	int rc = ctl_call(bus, "ListNIs", &r, NULL);

	if (rc)
		return rc;
	rc = sd_bus_message_enter_container(r, 'a', "(sssa{sv})");
	while (rc >= 0 && !o->found &&
	       (rc = sd_bus_message_enter_container(r, 'r', "sssa{sv}")) > 0) {
		struct ctl_ni_holds h = {.nid = o->nid, .pattern = ""};

		rc = sd_bus_message_read(r, "sss", &net, &ifname, &state);
		if (rc >= 0)
			rc = ctl_read_record(r, ctl_ni_holds_keys, &h);
		if (rc >= 0 && h.holds) {
			o->found = true;
			o->net = strdup(net);
			o->ifname = strdup(ifname);
			o->pattern = strdup(h.pattern);
			if (!o->net || !o->ifname || !o->pattern)
				rc = -ENOMEM;
		}
		if (rc >= 0)
			rc = sd_bus_message_exit_container(r);
	}
	if (rc < 0)
		return ctl_fail(EXIT_REFUSED, "cannot list the NIs: %s", strerror(-rc));
	return o->found ? 0 : ctl_fail_errno(EXIT_REFUSED, -ENOENT, "%s: no such local NI", o->nid);
}

static const char *str_or_empty(const struct cf_op *op, const char *key)
{
	return cf_op_get_str(op, key) ?: "";
}

/*
 * An NI as configured (@cur, from Export) with the tunables given changed:
 * its del, then its add, into @doc.  A tunable given as -1 goes back to
 * the LND's default.
 */
static int push_retuned(struct cf_doc *doc, const struct cf_op *cur, const bool *set,
			const bool *dflt, const uint32_t *v)
{
	static const char *const keep[] = {"net", "interface", "pattern", "cpts"};
	const char *ifname = str_or_empty(cur, "interface");
	struct cf_op *del = cf_op_new("del", "net"), *add = cf_op_new("add", "net");
	int e = !del || !add;
	uint32_t u;
	size_t i;
	int k;

	e = e || cf_op_set_str(del, "net", str_or_empty(cur, "net"));
	if (!e && *ifname)
		e = cf_op_set_str(del, "interface", ifname);
	else if (!e)
		e = cf_op_set_str(del, "pattern", str_or_empty(cur, "pattern"));
	for (i = 0; !e && i < LNE_ARRAY_SIZE(keep); i++)
		if (*str_or_empty(cur, keep[i]))
			e = cf_op_set_str(add, keep[i], cf_op_get_str(cur, keep[i]));
	for (k = 0; !e && k < LNE_TUN__COUNT; k++) {
		if (set[k] && !dflt[k])
			e = cf_op_set_u32(add, lne_tun_desc[k].name, v[k]);
		else if (!set[k] && cf_op_get_u32(cur, lne_tun_desc[k].name, &u))
			e = cf_op_set_u32(add, lne_tun_desc[k].name, u);
	}
	if (e || cf_doc_push(doc, del)) {
		cf_op_free(del);
		cf_op_free(add);
		return ctl_fail(EXIT_REFUSED, "out of memory");
	}
	return cf_doc_push(doc, add) ? ctl_fail(EXIT_REFUSED, "out of memory") : 0;
}

/* net set's tunables: the chosen NIs' configuration, changed as one change. */
static int net_retune(sd_bus *bus, struct ctl_opt *opt, const bool *set, const bool *dflt,
		      const uint32_t *v)
{
	struct ctl_opt *nid = ctl_opt(opt, "nid"), *net = ctl_opt(opt, "net");
	struct nid_owner o = {.nid = NULL};
	struct cf_doc cur = {0}, doc = {0};
	char **changes = NULL;
	uint64_t gen;
	size_t i;
	int rc;

	rc = ctl_canon(nid, true) ?: ctl_canon(net, false);
	if (!rc && nid->given) {
		o.nid = nid->val;
		rc = nid_owner(bus, &o);
	}
	if (!rc)
		rc = ctl_export(bus, &cur, &gen);
	for (i = 0; !rc && i < cur.nop; i++) {
		const struct cf_op *op = &cur.op[i];
		const char *onet = str_or_empty(op, "net");

		if (strcmp(op->verb, "add") || strcmp(op->obj, "net"))
			continue;
		if (net->given && strcmp(onet, net->val))
			continue;
		if (nid->given &&
		    (strcmp(onet, o.net) || strcmp(str_or_empty(op, "interface"), o.ifname) ||
		     (!*o.ifname && strcmp(str_or_empty(op, "pattern"), o.pattern))))
			continue;
		rc = push_retuned(&doc, op, set, dflt, v);
	}
	if (!rc && !doc.nop)
		rc = net->given ? ctl_fail_errno(EXIT_REFUSED, -ENOENT, "no NI of %s is configured",
						 net->val)
				: ctl_fail_errno(EXIT_REFUSED, -ENOENT, "no NI is configured");
	if (!rc)
		rc = ctl_apply(bus, &doc, false, true, &gen, &changes, NULL);
	ctl_strv_free(changes);
	cf_doc_free(&doc);
	cf_doc_free(&cur);
	free(o.net);
	free(o.ifname);
	free(o.pattern);
	return rc;
}

static int net_set(struct ctl_opt *opt, int argc, char **argv)
{
	struct ctl_opt *nid = ctl_opt(opt, "nid"), *net = ctl_opt(opt, "net"),
		       *all = ctl_opt(opt, "all"), *health = ctl_opt(opt, "health");
	bool set[LNE_TUN__COUNT] = {false}, dflt[LNE_TUN__COUNT] = {false}, any = false;
	uint32_t tv[LNE_TUN__COUNT];
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	sd_bus *bus = NULL;
	uint32_t v;
	int rc = 0, k;

	for (k = 0; !rc && k < LNE_TUN__COUNT; k++) {
		struct ctl_opt *o = ctl_opt(opt, lne_tun_desc[k].option);

		if (!o->given)
			continue;
		set[k] = any = true;
		dflt[k] = !strcmp(o->val, "-1");
		if (!dflt[k])
			rc = ctl_u32(o, UINT32_MAX, &tv[k]);
	}
	if (rc)
		return rc;
	if (!health->given && !any)
		return ctl_usage("--health or a tunable (--conns-per-peer, ...) is required");
	if (nid->given + net->given + all->given != 1)
		return ctl_usage("say which NIs: exactly one of --nid, --net or --all");
	if (health->given)
		rc = ctl_u32(health, 1000, &v);
	if (!rc)
		rc = ctl_bus(&bus);
	if (!rc && any)
		rc = net_retune(bus, opt, set, dflt, tv);
	if (!rc && health->given)
		rc = ctl_call(bus, "SetHealth", &reply, "ssu", "ni",
			      nid->given   ? nid->val
			      : net->given ? net->val
					   : "",
			      v);
	return ctl_finish(rc, bus, NULL);
}

/* One option per tunable (engine/tunables.h), then --cpt. */
#define TUN_OPT(id, name, option, section, genl, lo, hi, dsock, do2ib, fl, help) \
	{option, 0, "N", help},
#define TUN_OPTS                                                               \
	LNE_TUNABLES(TUN_OPT)                                                  \
	{                                                                      \
		"cpt", 0, "\"[0,1]\"", "the CPTs the NI serves (default: all)" \
	}
/* net add's own options, the tunables and --cpt must fit in struct ctl_cmd. */
_Static_assert(4 + LNE_TUN__COUNT + 1 < 16, "net add has too many options for struct ctl_cmd");

const struct ctl_cmd ctl_net_cmds[] = {
	{"net add",
	 "--net NET --if IF[,IF...] [OPTIONS] | --nid NID [OPTIONS] | --ip2net \"NET(IF) PATTERN; ...\"",
	 "Configure local NIs: one per interface, or per matching interface (ip2nets).",
	 net_add,
	 {{"net", 0, "NET", "the network, e.g. tcp, o2ib1"},
	  {"if", 0, "IF[,IF...]", "the interfaces, comma separated"},
	  {"nid", 0, "NID", "the NI by its NID: on the interface holding its address"},
	  {"ip2net", 0, "SPEC", "ip2nets rules: NET[(IF,...)] PATTERN [PATTERN...]; ..."},
	  TUN_OPTS},
	 0,
	 0},
	{"net del",
	 "--net NET [--if IF[,IF...]] | --nid NID",
	 "Remove a net's NIs (all of them, or those on the interfaces given), or one NI by its NID.",
	 net_del,
	 {{"net", 0, "NET", "the network"},
	  {"if", 0, "IF[,IF...]", "only these interfaces"},
	  {"nid", 0, "NID", "the NI with this NID"}},
	 0,
	 0},
	{"net show",
	 "[--net NET] [-v]",
	 "Show the configured NIs, applied or pending, as YAML.",
	 net_show,
	 {{"net", 0, "NET", "only this network"},
	  {"verbose", 'v', NULL,
	   "also statistics, health and tunables (-v LEVEL: all levels alike)"}},
	 0,
	 0},
	{"net set",
	 "[--health VALUE] [--conns-per-peer N ...] --nid NID | --net NET | --all",
	 "Set the health value (0 to 1000) of local NIs, or change their tunables (-1: the "
	 "LND's default).",
	 net_set,
	 {{"health", 0, "VALUE", "the health value, 0 to 1000"},
	  {"nid", 0, "NID", "the NI with this NID"},
	  {"net", 0, "NET", "every NI of this network"},
	  {"all", 0, NULL, "every NI"},
	  LNE_TUNABLES(TUN_OPT)},
	 0,
	 0},
	{0},
};
