// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-select.c - lnetctl selection net|nid|peer add|del|show: the
 * Multi-Rail design's selection rules, as a view over the one UDSP rule
 * list (there is no second rule engine).
 *
 *   selection net  --net N        a local net priority rule (udsp --src N)
 *   selection nid  --nid P        a local NID priority rule (udsp --src P)
 *   selection peer --local L --remote R
 *                                 a NID pair rule (udsp --src L --dst R)
 *
 * The design calls them net, NID and point-to-point rules and says the
 * selection algorithm prefers the NIs they rank: a net or NI priority is
 * what the UDSP engine calls a local net or local NID priority, and a
 * local-to-remote pathway is a NID pair rule with its priority.  A rule's
 * "id" is its UDSP idx.  Deleting by pattern finds the rule by what its
 * expressions mean (o2ib0 is o2ib); given an id too, both must name the
 * same rule, as the design asks.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lnetctl.h"
#include "yout.h"

enum sel_type {
	SEL_NET,
	SEL_NID,
	SEL_PEER
};

static const char *const sel_kind[] = {"local net priority", "local NID priority", "NID pair"};
static const char *const sel_name[] = {"net", "nid", "peer"};

/* The rule's expressions from the options: src (and dst for peer). */
static int patterns(struct ctl_opt *opt, enum sel_type t, const char **src, const char **dst,
		    bool required, bool together)
{
	struct ctl_opt *a = ctl_opt(opt, t == SEL_NET ? "net" : t == SEL_NID ? "nid" : "local");

	*src = a->given ? a->val : NULL;
	*dst = NULL;
	if (t == SEL_PEER) {
		struct ctl_opt *r = ctl_opt(opt, "remote");

		*dst = r->given ? r->val : NULL;
		if (together && a->given != r->given)
			return ctl_usage("--local and --remote go together");
	}
	if (required && !*src)
		return ctl_usage("--%s is required", a->name);
	/* The design keeps the kinds apart: a net is no NID, and no NID a net. */
	if (*src && t == SEL_NET && strchr(*src, '@') && strncmp(*src, "*@", 2))
		return ctl_usage("--net: '%s' names NIDs, not networks (see 'selection nid')",
				 *src);
	if (*src && t == SEL_NID && (!strchr(*src, '@') || !strncmp(*src, "*@", 2)))
		return ctl_usage("--nid: '%s' names a network, not NIDs (see 'selection net')",
				 *src);
	return 0;
}

static int sel_add(struct ctl_opt *opt, enum sel_type t)
{
	struct ctl_opt *prio = ctl_opt(opt, "priority");
	const char *src, *dst;
	struct cf_op *op;
	uint32_t p = 0;
	int rc;

	rc = patterns(opt, t, &src, &dst, true, true);
	if (!rc && !prio->given)
		rc = ctl_usage("--priority is required");
	if (!rc)
		rc = ctl_u32(prio, 4294967294u, &p);
	if (rc)
		return rc;
	op = cf_op_new("add", "udsp");
	if (op && (cf_op_set_str(op, "src", src) || cf_op_set_str(op, "dst", dst ?: "") ||
		   cf_op_set_u32(op, "priority", p) || cf_op_set_str(op, "kind", sel_kind[t]))) {
		cf_op_free(op);
		op = NULL;
	}
	return ctl_apply_op(op);
}

/* The kind of rule @idx, from ListRules, into @kind (static storage of the reply). */
static int rule_kind(sd_bus *bus, uint32_t idx, char *kind, size_t len)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *r = NULL;
	struct ctl_rule rule;
	int rc;

	*kind = '\0';
	rc = ctl_call(bus, "ListRules", &r, NULL);
	if (rc)
		return rc;
	rc = sd_bus_message_enter_container(r, 'a', "(usssa{sv})");
	while (rc >= 0 && (rc = ctl_rule_next(r, &rule)) > 0)
		if (rule.idx == idx)
			snprintf(kind, len, "%s", rule.kind);
	return rc < 0 ? ctl_fail(EXIT_REFUSED, "lnetd's rules make no sense: %s", strerror(-rc))
		      : 0;
}

/* Delete through Apply, as udsp del does: by pattern (and --id if given), or by --id alone. */
static int sel_del(struct ctl_opt *opt, enum sel_type t)
{
	struct ctl_opt *id = ctl_opt(opt, "id");
	const char *src, *dst;
	struct cf_op *op;
	char kind[64];
	sd_bus *bus = NULL;
	uint32_t idx = 0;
	int rc;

	rc = patterns(opt, t, &src, &dst, false, true);
	if (!rc && !src && !id->given)
		rc = ctl_usage("say which rule: its pattern, its --id, or both");
	if (!rc && id->given)
		rc = ctl_u32(id, UINT32_MAX, &idx);
	if (!rc && !src) {
		/* By id alone: it must be a rule of this kind. */
		rc = ctl_bus(&bus);
		if (!rc)
			rc = rule_kind(bus, idx, kind, sizeof(kind));
		if (!rc && !*kind)
			rc = ctl_fail(EXIT_REFUSED, "there is no rule %u", idx);
		if (!rc && strcmp(kind, sel_kind[t]))
			rc = ctl_fail(EXIT_REFUSED, "rule %u is a %s rule, not a %s selection rule",
				      idx, kind, sel_name[t]);
		sd_bus_flush_close_unref(bus);
	}
	if (rc)
		return rc;
	op = cf_op_new("del", "udsp");
	if (op && ((src && cf_op_set_str(op, "src", src)) ||
		   (src && dst && cf_op_set_str(op, "dst", dst)) ||
		   (id->given && cf_op_set_u32(op, "idx", idx)))) {
		cf_op_free(op);
		op = NULL;
	}
	return ctl_apply_op(op);
}

/* The rules of this kind, in the design's YAML (the form selection: imports). */
static int sel_show(struct ctl_opt *opt, enum sel_type t)
{
	const char *fsrc, *fdst;
	sd_bus_message *r = NULL;
	struct ctl_rule rule;
	struct yout *y;
	sd_bus *bus = NULL;
	int rc, yrc;

	rc = patterns(opt, t, &fsrc, &fdst, false, false);
	if (!rc)
		rc = ctl_bus(&bus);
	if (!rc)
		rc = ctl_call(bus, "ListRules", &r, NULL);
	if (rc)
		return ctl_finish(rc, bus, r);
	y = yout_begin(stdout);
	yout_map_begin(y);
	yout_key(y, "selection");
	yout_seq_begin(y);
	rc = sd_bus_message_enter_container(r, 'a', "(usssa{sv})");
	while (rc >= 0 && (rc = ctl_rule_next(r, &rule)) > 0) {
		/* Filters compare lnetd's canonical text: give patterns as show prints them. */
		if (strcmp(rule.kind, sel_kind[t]) ||
		    (fsrc && strcmp(fsrc, rule.expr[LNE_RULE_A_SRC])) ||
		    (fdst && strcmp(fdst, rule.expr[LNE_RULE_A_DST])))
			continue;
		yout_map_begin(y);
		yout_key(y, "type");
		yout_str(y, sel_name[t]);
		if (t == SEL_PEER) {
			yout_key(y, "local");
			yout_str(y, rule.expr[LNE_RULE_A_SRC]);
			yout_key(y, "remote");
			yout_str(y, rule.expr[LNE_RULE_A_DST]);
		} else {
			yout_key(y, sel_name[t]);
			yout_str(y, rule.expr[LNE_RULE_A_SRC]);
		}
		if (rule.has[LNE_RULE_A_PRIORITY]) {
			yout_key(y, "priority");
			yout_u32(y, rule.num[LNE_RULE_A_PRIORITY]);
		}
		yout_key(y, "id");
		yout_u32(y, rule.idx);
		yout_map_end(y);
	}
	yout_seq_end(y);
	yout_map_end(y);
	yrc = yout_end(y);
	if (rc < 0 || yrc < 0)
		rc = ctl_fail(EXIT_REFUSED, "cannot show the selection rules: %s",
			      strerror(-(rc < 0 ? rc : yrc)));
	else
		rc = 0;
	return ctl_finish(rc, bus, r);
}

#define SEL_FNS(T, t)                                                   \
	static int t##_add(struct ctl_opt *opt, int argc, char **argv)  \
	{                                                               \
		return sel_add(opt, T);                                 \
	}                                                               \
	static int t##_del(struct ctl_opt *opt, int argc, char **argv)  \
	{                                                               \
		return sel_del(opt, T);                                 \
	}                                                               \
	static int t##_show(struct ctl_opt *opt, int argc, char **argv) \
	{                                                               \
		return sel_show(opt, T);                                \
	}

SEL_FNS(SEL_NET, net)
SEL_FNS(SEL_NID, nid)
SEL_FNS(SEL_PEER, peer)

#define PRIO_OPT                                                         \
	{                                                                \
		"priority", 0, "P", "the rule's priority, 0 the highest" \
	}
#define ID_OPT                                                              \
	{                                                                   \
		"id", 0, "ID", "the rule's id, as selection show prints it" \
	}
#define NET_OPT                                                                  \
	{                                                                        \
		"net", 0, "NET", "network string, e.g. o2ib, o2ib* or o2ib[1,2]" \
	}
#define NID_OPT                                                        \
	{                                                              \
		"nid", 0, "NID", "NID pattern, e.g. 10.0.0.[1-4]@o2ib" \
	}
#define LOCAL_OPT                                                \
	{                                                        \
		"local", 0, "NID", "local NID pattern (the NIs)" \
	}
#define REMOTE_OPT                                                      \
	{                                                               \
		"remote", 0, "NID", "remote NID pattern (the peer NIs)" \
	}

const struct ctl_cmd ctl_selection_cmds[] = {
	{"selection net add",
	 "--net NET --priority P",
	 "Rank a network: its NIs are preferred in priority order (a udsp --src NET rule).",
	 net_add,
	 {NET_OPT, PRIO_OPT},
	 0,
	 0},
	{"selection net del",
	 "--net NET [--id ID] | --id ID",
	 "Delete a network rule by pattern or id (both must agree when both are given).",
	 net_del,
	 {NET_OPT, ID_OPT},
	 0,
	 0},
	{"selection net show",
	 "[--net NET]",
	 "Show the network rules, filtered on a network if given.",
	 net_show,
	 {NET_OPT},
	 0,
	 0},
	{"selection nid add",
	 "--nid NID --priority P",
	 "Rank local NIs by NID pattern (a udsp --src NID rule).",
	 nid_add,
	 {NID_OPT, PRIO_OPT},
	 0,
	 0},
	{"selection nid del",
	 "--nid NID [--id ID] | --id ID",
	 "Delete a NID rule by pattern or id (both must agree when both are given).",
	 nid_del,
	 {NID_OPT, ID_OPT},
	 0,
	 0},
	{"selection nid show",
	 "[--nid NID]",
	 "Show the NID rules, filtered on a pattern if given.",
	 nid_show,
	 {NID_OPT},
	 0,
	 0},
	{"selection peer add",
	 "--local NID --remote NID --priority P",
	 "Prefer a local-to-remote pathway (a udsp --src LOCAL --dst REMOTE rule).",
	 peer_add,
	 {LOCAL_OPT, REMOTE_OPT, PRIO_OPT},
	 0,
	 0},
	{"selection peer del",
	 "--local NID --remote NID [--id ID] | --id ID",
	 "Delete a pathway rule by patterns or id (both must agree when both are given).",
	 peer_del,
	 {LOCAL_OPT, REMOTE_OPT, ID_OPT},
	 0,
	 0},
	{"selection peer show",
	 "[--local NID] [--remote NID]",
	 "Show the pathway rules, filtered on patterns if given.",
	 peer_show,
	 {LOCAL_OPT, REMOTE_OPT},
	 0,
	 0},
	{0},
};
