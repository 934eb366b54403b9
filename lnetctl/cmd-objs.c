// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-objs.c - lnetctl route, udsp, set and global: the objects with one
 * line of configuration each.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/model.h"
#include "engine/route-attrs.h"
#include "lnetctl.h"
#include "yout.h"

/* --- routes --------------------------------------------------------------------- */

/*
 * route add|del: one route per gateway of --gateway, a NID or a range
 * (Lustre's "10.0.0.[1-4]@tcp"), all of them or none (one change).
 */
static int route_change(struct ctl_opt *opt, const char *verb)
{
	const struct lne_route_desc *a = lne_route_desc;
	struct ctl_opt *net = ctl_opt(opt, "net"), *gw = ctl_opt(opt, "gateway");
	struct cf_doc doc = {0};
	char **gws = NULL, **changes = NULL;
	sd_bus *bus = NULL;
	uint32_t v[LNE_ROUTE_A__COUNT];
	uint64_t gen;
	size_t n = 0, i;
	int rc = 0, k;

	if (!net->given || !gw->given)
		return ctl_usage("--net and --gateway are required");
	/* Each setting of engine/route-attrs.h, by its option. */
	for (k = 0; !rc && k < LNE_ROUTE_A__COUNT; k++)
		if (!strcmp(verb, "add") && ctl_opt(opt, a[k].option)->given) {
			rc = ctl_u32(ctl_opt(opt, a[k].option), a[k].max, &v[k]);
			if (!rc && v[k] < a[k].min)
				rc = ctl_usage("--%s: %s are %u to %u", a[k].option, a[k].name,
					       a[k].min, a[k].max);
		}
	if (!rc)
		rc = ctl_nids_expand(gw->val, "--gateway", &gws, &n);
	if (!rc && !n)
		rc = ctl_usage("--gateway: no NID in '%s'", gw->val);
	for (i = 0; !rc && i < n; i++) {
		struct cf_op *op = cf_op_new(verb, "route");
		int e = !op || cf_op_set_str(op, "net", net->val) ||
			cf_op_set_str(op, "gateway", gws[i]);

		for (k = 0; !e && !strcmp(verb, "add") && k < LNE_ROUTE_A__COUNT; k++)
			if (ctl_opt(opt, a[k].option)->given)
				e = cf_op_set_u32(op, a[k].name, v[k]);
		if (e || cf_doc_push(&doc, op)) {
			cf_op_free(op);
			rc = ctl_fail(EXIT_REFUSED, "out of memory");
		}
	}
	if (!rc)
		rc = ctl_bus(&bus);
	if (!rc)
		rc = ctl_apply(bus, &doc, false, true, &gen, &changes, "--gateway");
	ctl_strv_free(changes);
	ctl_strv_free(gws);
	cf_doc_free(&doc);
	return ctl_finish(rc, bus, NULL);
}

static int route_add(struct ctl_opt *opt, int argc, char **argv)
{
	return route_change(opt, "add");
}

static int route_del(struct ctl_opt *opt, int argc, char **argv)
{
	return route_change(opt, "del");
}

/* One route of ListRoutes: its settings by name (engine/route-attrs.h). */
struct route_row {
	const char *net, *gw;
	uint32_t v[LNE_ROUTE_A__COUNT];
	bool got[LNE_ROUTE_A__COUNT];
	const char *state; /* the router checker's "up" or "down" (NULL: none known) */
};

/* ListRoutes' keys beside the settings. */
static const struct ctl_key route_keys[] = {
	CTL_KEY("state", 's', struct route_row, state),
	{NULL},
};

static int route_entry(sd_bus_message *r, const char *key, void *arg)
{
	struct route_row *row = arg;
	int k = lne_route_attr_by_name(key), rc;

	if (k < 0)
		return ctl_key_entry(r, key, route_keys, row);
	rc = sd_bus_message_read(r, "v", "u", &row->v[k]);
	row->got[k] = rc > 0;
	return rc;
}

static bool route_keep(const void *rec, void *arg)
{
	const struct route_row *row = rec;
	struct ctl_opt *opt = arg, *net = ctl_opt(opt, "net"), *gw = ctl_opt(opt, "gateway");

	return (!net->given || !strcmp(net->val, row->net)) &&
	       (!gw->given || !strcmp(gw->val, row->gw));
}

static void route_emit(struct yout *y, const void *rec, void *arg)
{
	const struct route_row *row = rec;
	bool verbose = ctl_opt(arg, "verbose")->given;
	int k;

	yout_map_begin(y);
	yout_key(y, "net");
	yout_str(y, row->net);
	yout_key(y, "gateway");
	yout_str(y, row->gw);
	for (k = 0; k < LNE_ROUTE_A__COUNT; k++) {
		if (!row->got[k] || (!verbose && !lne_route_desc[k].shown))
			continue;
		yout_key(y, lne_route_desc[k].yaml);
		yout_u32(y, row->v[k]);
	}
	if (verbose && row->state) {
		yout_key(y, "state");
		yout_str(y, row->state);
	}
	yout_map_end(y);
}

static int route_show(struct ctl_opt *opt, int argc, char **argv)
{
	static const struct ctl_key head[] = {
		CTL_KEY("net", 's', struct route_row, net),
		CTL_KEY("gateway", 's', struct route_row, gw),
		{NULL},
	};
	static const struct ctl_list routes = {
		.method = "ListRoutes",
		.top = "route",
		.head = head,
		.entry = route_entry,
		.size = sizeof(struct route_row),
		.keep = route_keep,
		.emit = route_emit,
		.bad_reply = "cannot show the routes",
		.bad_write = "cannot show the routes",
	};
	struct route_row row;
	int rc;

	rc = ctl_canon(ctl_opt(opt, "net"), false) ?: ctl_canon(ctl_opt(opt, "gateway"), true);
	return rc ? rc : ctl_show_list(&routes, &row, opt);
}

/* --- UDSP info ---------------------------------------------------------------------- */

int ctl_udsp_info(struct ctl_ahead *a, sd_bus *bus, struct yout *y, const char *nid)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	const char *key, *contents, *s;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *r = NULL;
	char type, **v = NULL, **p;
	int64_t x;
	int rc;

	rc = ctl_ahead_call(a, bus, "UdspInfo", nid, &r, &e);
	if (rc < 0) {
		rc = ctl_bus_error(&e, rc);
		sd_bus_error_free(&e);
		return rc;
	}
	yout_key(y, "udsp info");
	yout_map_begin(y);
	rc = sd_bus_message_enter_container(r, 'a', "{sv}");
	while (rc >= 0 && (rc = sd_bus_message_enter_container(r, 'e', "sv")) > 0) {
		rc = sd_bus_message_read(r, "s", &key);
		if (rc >= 0)
			rc = sd_bus_message_peek_type(r, &type, &contents);
		if (rc >= 0 && !strcmp(key, "kind")) {
			rc = sd_bus_message_read(r, "v", "s", &s); /* said by where it is shown */
		} else if (rc >= 0 && !strcmp(contents, "x")) {
			rc = sd_bus_message_read(r, "v", "x", &x);
			yout_key(y, key);
			yout_i64(y, x);
		} else if (rc >= 0 && !strcmp(contents, "u")) {
			uint32_t u;

			rc = sd_bus_message_read(r, "v", "u", &u);
			yout_key(y, key);
			yout_u32(y, u);
		} else if (rc >= 0 && !strcmp(contents, "as")) {
			rc = sd_bus_message_enter_container(r, 'v', "as");
			if (rc >= 0)
				rc = ctl_read_strv(r, &v);
			if (rc >= 0)
				rc = sd_bus_message_exit_container(r);
			yout_key(y, key);
			yout_seq_begin(y);
			for (p = v; p && *p; p++)
				yout_str(y, *p);
			yout_seq_end(y);
			ctl_strv_free(v);
			v = NULL;
		} else if (rc >= 0) {
			rc = sd_bus_message_skip(r, "v");
		}
		if (rc >= 0)
			rc = sd_bus_message_exit_container(r);
	}
	yout_map_end(y);
	return rc < 0 ? ctl_fail(EXIT_REFUSED, "lnetd's UDSP info makes no sense: %s",
				 strerror(-rc))
		      : 0;
}

/* --- UDSP rules ------------------------------------------------------------------- */

/* One option per field of a rule (engine/rule-attrs.h), sent by its name. */
#define UDSP_OPT(id, name, kind, yaml, genl, help) {#name, 0, LNE_RULE_META_##kind, help},

static int udsp_add(struct ctl_opt *opt, int argc, char **argv)
{
	struct ctl_opt *idx = ctl_opt(opt, "idx"), *o;
	struct cf_op *op;
	uint32_t v[LNE_RULE_A__COUNT], i = 0;
	bool exprs = false;
	int rc = 0, a;

	for (a = 0; a < LNE_RULE_A__COUNT; a++)
		exprs |= lne_rule_desc[a].kind == LNE_RULE_K_EXPR &&
			 ctl_opt(opt, lne_rule_desc[a].name)->given;
	if (!exprs)
		return ctl_usage("a rule needs --src, --dst or --rte");
	for (a = 0; !rc && a < LNE_RULE_A__COUNT; a++) {
		o = ctl_opt(opt, lne_rule_desc[a].name);
		if (o->given && lne_rule_desc[a].kind == LNE_RULE_K_PRIO)
			rc = ctl_u32(o, LNE_PRIO_MAX, &v[a]);
	}
	if (!rc && idx->given)
		rc = ctl_u32(idx, UINT32_MAX, &i);
	if (rc)
		return rc;
	op = cf_op_new("add", "udsp");
	for (a = 0; op && !rc && a < LNE_RULE_A__COUNT; a++) {
		o = ctl_opt(opt, lne_rule_desc[a].name);
		if (!o->given)
			continue;
		switch (lne_rule_desc[a].kind) {
		case LNE_RULE_K_EXPR:
			rc = cf_op_set_str(op, lne_rule_desc[a].name, o->val);
			break;
		case LNE_RULE_K_PRIO:
			rc = cf_op_set_u32(op, lne_rule_desc[a].name, v[a]);
			break;
		}
	}
	if (op && (rc || (idx->given && cf_op_set_u32(op, "idx", i)))) {
		cf_op_free(op);
		op = NULL;
	}
	return ctl_apply_op(op);
}

static int udsp_del(struct ctl_opt *opt, int argc, char **argv)
{
	struct ctl_opt *idx = ctl_opt(opt, "idx"), *all = ctl_opt(opt, "all");
	struct cf_op *op;
	uint32_t i = 0;
	int rc = 0;

	if (idx->given == all->given)
		return ctl_usage("say which rule: --idx IDX or --all");
	if (idx->given)
		rc = ctl_u32(idx, UINT32_MAX, &i);
	if (rc)
		return rc;
	op = cf_op_new("del", "udsp");
	if (op && (all->given ? cf_op_set_bool(op, "all", true) : cf_op_set_u32(op, "idx", i))) {
		cf_op_free(op);
		op = NULL;
	}
	return ctl_apply_op(op);
}

static int rule_entry(sd_bus_message *r, const char *key, void *arg)
{
	struct ctl_rule *rule = arg;
	int a = lne_rule_attr_by_name(key);

	if (a >= 0 && lne_rule_desc[a].kind == LNE_RULE_K_PRIO) {
		rule->has[a] = true;
		return sd_bus_message_read(r, "v", "u", &rule->num[a]);
	}
	if (!strcmp(key, "kind"))
		return sd_bus_message_read(r, "v", "s", &rule->kind);
	return 0;
}

int ctl_rule_next(sd_bus_message *r, struct ctl_rule *rule)
{
	int rc = sd_bus_message_enter_container(r, 'r', "usssa{sv}"), a;

	if (rc <= 0)
		return rc;
	*rule = (struct ctl_rule){.kind = ""};
	for (a = 0; a < LNE_RULE_A__COUNT; a++)
		rule->expr[a] = "";
	/* ListRules' signature: the three expressions, then the other rows in the dictionary */
	rc = sd_bus_message_read(r, "usss", &rule->idx, &rule->expr[LNE_RULE_A_SRC],
				 &rule->expr[LNE_RULE_A_DST], &rule->expr[LNE_RULE_A_RTE]);
	if (rc >= 0)
		rc = ctl_read_dict(r, rule_entry, rule);
	if (rc >= 0)
		rc = sd_bus_message_exit_container(r);
	return rc < 0 ? rc : 1;
}

/*
 * A rule's fields as Lustre's YAML has them, row by row: only the
 * expressions it has (no "NA", as current Lustre prints), its kind with
 * @verbose, then its numbers under action:.
 */
static void rule_yaml(struct yout *y, const struct ctl_rule *rule, bool verbose)
{
	bool action = false;
	int a;

	for (a = 0; a < LNE_RULE_A__COUNT; a++)
		if (lne_rule_desc[a].kind == LNE_RULE_K_EXPR && *rule->expr[a]) {
			yout_key(y, lne_rule_desc[a].yaml);
			yout_str(y, rule->expr[a]);
		}
	if (verbose && *rule->kind) {
		yout_key(y, "kind");
		yout_str(y, rule->kind);
	}
	for (a = 0; a < LNE_RULE_A__COUNT; a++) {
		if (lne_rule_desc[a].kind != LNE_RULE_K_PRIO || !rule->has[a])
			continue;
		if (!action) {
			yout_key(y, "action");
			yout_map_begin(y);
			action = true;
		}
		yout_key(y, lne_rule_desc[a].yaml);
		yout_u32(y, rule->num[a]);
	}
	if (action)
		yout_map_end(y);
}

static int udsp_show(struct ctl_opt *opt, int argc, char **argv)
{
	struct ctl_opt *idx = ctl_opt(opt, "idx");
	sd_bus_message *r = NULL;
	struct ctl_rule rule;
	uint32_t want = 0;
	struct yout *y;
	sd_bus *bus = NULL;
	int rc = 0, yrc;

	if (idx->given)
		rc = ctl_u32(idx, UINT32_MAX, &want);
	if (!rc)
		rc = ctl_bus(&bus);
	if (!rc)
		rc = ctl_call(bus, "ListRules", &r, NULL);
	if (rc)
		return ctl_finish(rc, bus, r);
	/* Lustre prints nothing at all when no rule is shown. */
	rc = sd_bus_message_enter_container(r, 'a', "(usssa{sv})");
	while (rc >= 0 && (rc = ctl_rule_next(r, &rule)) > 0 && idx->given && rule.idx != want)
		;
	if (rc >= 0)
		rc = rc ? sd_bus_message_rewind(r, true) : 0;
	if (rc <= 0)
		return ctl_finish(rc < 0 ? ctl_fail(EXIT_REFUSED, "cannot show the rules: %s",
						    strerror(-rc))
					 : 0,
				  bus, r);
	y = yout_begin(stdout);
	yout_map_begin(y);
	yout_key(y, "udsp");
	yout_seq_begin(y);
	rc = sd_bus_message_enter_container(r, 'a', "(usssa{sv})");
	while (rc >= 0 && (rc = ctl_rule_next(r, &rule)) > 0) {
		if (idx->given && rule.idx != want)
			continue;
		yout_map_begin(y);
		yout_key(y, "idx");
		yout_u32(y, rule.idx);
		rule_yaml(y, &rule, ctl_opt(opt, "verbose")->given);
		yout_map_end(y);
	}
	yout_seq_end(y);
	yout_map_end(y);
	yrc = yout_end(y);
	if (rc < 0 || yrc < 0)
		rc = ctl_fail(EXIT_REFUSED, "cannot show the rules: %s",
			      strerror(-(rc < 0 ? rc : yrc)));
	else
		rc = 0;
	return ctl_finish(rc, bus, r);
}

/* --- globals ------------------------------------------------------------------------ */

/* Lustre's names that differ from lnetd's. */
static const char *global_name(const char *name)
{
	return strcmp(name, "max_intf") ? name : "max_interfaces";
}

static int set_global(struct ctl_opt *opt, int argc, char **argv)
{
	struct ctl_opt val = {.name = argv[0], .val = argv[1]};
	const char *name = global_name(argv[0]);
	struct cf_op *op;
	uint32_t v;
	int rc;

	ctl_err_name(name); /* upstream's failure names the setting: "add: - discovery:" */
	rc = ctl_u32(&val, UINT32_MAX, &v);
	if (rc)
		return rc;
	op = cf_op_new("set", "global");
	if (op && (cf_op_set_str(op, "name", name) || cf_op_set_u32(op, "value", v))) {
		cf_op_free(op);
		op = NULL;
	}
	return ctl_apply_op(op);
}

/* Lustre's lnd_timeout: transaction_timeout shared by the tries, at least 1. */
static uint32_t lnd_timeout_of(uint32_t transaction_timeout, uint32_t retry_count)
{
	uint32_t t = transaction_timeout ? (transaction_timeout - 1) / (retry_count + 1ull) : 0;

	return t ? t : 1;
}

/* What lnd_timeout is derived from, by global (lne_global_lookup(), or < 0). */
static void lnd_timeout_part(int g, uint32_t v, uint32_t *tt, uint32_t *retries)
{
	if (g == LNE_G_TRANSACTION_TIMEOUT)
		*tt = v;
	else if (g == LNE_G_RETRY_COUNT)
		*retries = v;
}

int ctl_lnd_timeout(sd_bus *bus, uint32_t *out)
{
	uint32_t v, tt = 0, retries = 0;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *r = NULL;
	const char *name;
	int rc;

	rc = ctl_call(bus, "ListGlobals", &r, NULL);
	if (rc)
		return -EIO;
	rc = sd_bus_message_enter_container(r, 'a', "(su)");
	while (rc >= 0 && (rc = sd_bus_message_read(r, "(su)", &name, &v)) > 0)
		lnd_timeout_part(lne_global_lookup(name), v, &tt, &retries);
	*out = lnd_timeout_of(tt, retries);
	return rc < 0 ? rc : 0;
}

static int global_show(struct ctl_opt *opt, int argc, char **argv)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *r = NULL;
	const char *name;
	struct yout *y;
	sd_bus *bus = NULL;
	uint32_t v, tt = 0, retries = 0;
	int rc, yrc;

	rc = ctl_bus(&bus);
	if (!rc)
		rc = ctl_call(bus, "ListGlobals", &r, NULL);
	if (rc)
		return ctl_finish(rc, bus, NULL);
	y = yout_begin(stdout);
	yout_map_begin(y);
	yout_key(y, "global");
	yout_map_begin(y);
	rc = sd_bus_message_enter_container(r, 'a', "(su)");
	while (rc >= 0 && (rc = sd_bus_message_read(r, "(su)", &name, &v)) > 0) {
		int g = lne_global_lookup(name);

		/* routing: and buffers: are routing show's */
		if (g >= 0 && lne_global_info(g)->section)
			continue;
		/* Lustre's YAML key (max_intf for max_interfaces) */
		yout_key(y, g >= 0 ? lne_global_info(g)->yaml : name);
		yout_u32(y, v);
		lnd_timeout_part(g, v, &tt, &retries);
	}
	/* Derived, shown as Lustre shows it: what an LND timeout of 0 follows. */
	yout_key(y, "lnd_timeout");
	yout_u32(y, lnd_timeout_of(tt, retries));
	yout_map_end(y);
	yout_map_end(y);
	yrc = yout_end(y);
	if (rc < 0 || yrc < 0)
		rc = ctl_fail(EXIT_REFUSED, "cannot show the globals: %s",
			      strerror(-(rc < 0 ? rc : yrc)));
	else
		rc = 0;
	return ctl_finish(rc, bus, NULL);
}

/* One option per route setting (engine/route-attrs.h). */
#define ROUTE_OPT(id, name, yaml, option, genl, lo, hi, def, shown, undef, help) \
	{option, 0, "N", help},

const struct ctl_cmd ctl_route_cmds[] = {
	{"route add",
	 "--net NET --gateway NID [--hop N] [--priority P] [--health_sensitivity S]",
	 "Configure a route to a remote net through a gateway.",
	 route_add,
	 {{"net", 'n', "NET", "the remote network"},
	  {"gateway", 'g', "NID[S]", "the router's NID, or a range: one route per gateway"},
	  LNE_ROUTE_ATTRS(ROUTE_OPT)},
	 0,
	 0},
	{"route del",
	 "--net NET --gateway NID",
	 "Remove a route.",
	 route_del,
	 {{"net", 'n', "NET", "the remote network"},
	  {"gateway", 'g', "NID[S]", "the router's NID, or a range"}},
	 0,
	 0},
	{"route show",
	 "[--net NET] [--gateway NID] [-v]",
	 "Show the configured routes as YAML.",
	 route_show,
	 {{"net", 'n', "NET", "only routes to this network"},
	  {"gateway", 'g', "NID", "only routes through this gateway"},
	  {"verbose", 'v', NULL,
	   "also the health sensitivity and the state (-v LEVEL: all levels alike)"}},
	 0,
	 0},
	{0},
};

const struct ctl_cmd ctl_udsp_cmds[] = {
	{"udsp add",
	 "[--src EXPR] [--dst EXPR] [--rte EXPR] [--priority P] [--idx IDX]",
	 "Add a User Defined Selection Policy rule (lnet.conf(5) says which wins).",
	 udsp_add,
	 {LNE_RULE_ATTRS(UDSP_OPT){"idx", 0, "IDX", "the rule's place (default: last)"}},
	 0,
	 0},
	{"udsp del",
	 "--idx IDX | --all",
	 "Delete a rule (what the others say then applies), or all of them.",
	 udsp_del,
	 {{"idx", 0, "IDX", "the rule's index"}, {"all", 0, NULL, "every rule"}},
	 0,
	 0},
	{"udsp show",
	 "[--idx IDX] [-v]",
	 "Show the rules in order as YAML.",
	 udsp_show,
	 {{"idx", 0, "IDX", "only this rule"},
	  {"verbose", 'v', NULL, "also each rule's kind (-v LEVEL: all levels alike)"}},
	 0,
	 0},
	{0},
};

/* The UDSP design's name for the same commands (lnetctl policy add ...). */
const struct ctl_cmd ctl_policy_cmds[] = {
	{"policy add",
	 "[--src EXPR] [--dst EXPR] [--rte EXPR] [--priority P] [--idx IDX]",
	 "The UDSP design's spelling of udsp add.",
	 udsp_add,
	 {LNE_RULE_ATTRS(UDSP_OPT){"idx", 0, "IDX", "the rule's place (default: last)"}},
	 0,
	 0},
	{"policy del",
	 "--idx IDX | --all",
	 "The UDSP design's spelling of udsp del.",
	 udsp_del,
	 {{"idx", 0, "IDX", "the rule's index"}, {"all", 0, NULL, "every rule"}},
	 0,
	 0},
	{"policy show",
	 "[--idx IDX] [-v]",
	 "The UDSP design's spelling of udsp show.",
	 udsp_show,
	 {{"idx", 0, "IDX", "only this rule"},
	  {"verbose", 'v', NULL, "also each rule's kind (-v LEVEL: all levels alike)"}},
	 0,
	 0},
	{0},
};

const struct ctl_cmd ctl_global_cmds[] = {
	{"set",
	 "NAME VALUE",
	 "Set a global: numa_range, max_interfaces, discovery, retry_count, ...",
	 set_global,
	 {{0}},
	 2,
	 2},
	{"global show",
	 "[-v]",
	 "Show every global setting as YAML.",
	 global_show,
	 {{"verbose", 'v', NULL, "accepted, as Lustre's: every global is always shown"}},
	 0,
	 0},
	{0},
};
