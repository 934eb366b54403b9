// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-fault.c - lnetctl fault: drop and delay rules, as Lustre's
 *
 *   fault drop add --source NID --dest NID --rate N|--interval S [--portal P]
 *                  [--message PUT|ACK|GET|REPLY] [--health_error STATUS]
 *   fault delay add ... --latency S
 *   fault drop|delay del --source NID --dest NID | --all
 *   fault drop|delay show
 *   fault drop|delay reset
 *
 * lnetd checks every option (engine/fault.h), so the errors are one set.
 */
#include <string.h>
#include <systemd/sd-bus.h>

#include "lnetctl.h"
#include "yout.h"

/* The options add passes on, by the names FaultAdd takes. */
static const char *const add_keys[] = {"source",  "dest",    "rate",	     "interval", "portal",
				       "message", "latency", "health-error", NULL};

static int fault_add(struct ctl_opt *opt, const char *kind)
{
	sd_bus_message *m = NULL;
	sd_bus *bus = NULL;
	int rc, k;

	if (!ctl_opt(opt, "source")->given || !ctl_opt(opt, "dest")->given)
		return ctl_usage("a rule needs --source and --dest (a NID, or * for any)");
	rc = ctl_bus(&bus);
	if (rc)
		return ctl_finish(rc, bus, NULL);
	rc = sd_bus_message_new_method_call(bus, &m, LNETD_BUS_NAME, LNETD_BUS_PATH,
					    LNETD_BUS_MANAGER, "FaultAdd");
	if (rc >= 0)
		rc = sd_bus_message_append(m, "s", kind);
	if (rc >= 0)
		rc = sd_bus_message_open_container(m, 'a', "{ss}");
	for (k = 0; rc >= 0 && add_keys[k]; k++) {
		const struct ctl_opt *o;

		if (!strcmp(add_keys[k], strcmp(kind, "drop") ? "health-error" : "latency"))
			continue;
		o = ctl_opt(opt, add_keys[k]);
		if (o->given)
			rc = sd_bus_message_append(
				m, "{ss}",
				strcmp(o->name, "health-error") ? o->name : "health_error", o->val);
	}
	if (rc >= 0)
		rc = sd_bus_message_close_container(m);
	return ctl_finish(ctl_send(bus, m, rc), bus, NULL);
}

static int fault_del(struct ctl_opt *opt, const char *kind)
{
	struct ctl_opt *src = ctl_opt(opt, "source"), *dst = ctl_opt(opt, "dest");
	bool all = ctl_opt(opt, "all")->given;
	sd_bus_message *r = NULL;
	sd_bus *bus = NULL;
	int rc;

	if (all == (src->given || dst->given))
		return ctl_usage("say --all, or the rules' --source and/or --dest");
	rc = ctl_bus(&bus);
	if (!rc)
		rc = ctl_call(bus, "FaultDelete", &r, "sssb", kind, src->given ? src->val : "",
			      dst->given ? dst->val : "", all);
	return ctl_finish(rc, bus, r);
}

static int fault_reset(const char *kind)
{
	sd_bus_message *r = NULL;
	sd_bus *bus = NULL;
	int rc = ctl_bus(&bus);

	if (!rc)
		rc = ctl_call(bus, "FaultReset", &r, "s", kind);
	return ctl_finish(rc, bus, r);
}

/* One rule's a{ss} or a{st} as YAML keys. */
static int rule_dict(sd_bus_message *r, struct yout *y, bool counts)
{
	const char *key, *s;
	uint64_t v;
	int rc;

	rc = sd_bus_message_enter_container(r, 'a', counts ? "{st}" : "{ss}");
	while (rc >= 0 && (rc = counts ? sd_bus_message_read(r, "{st}", &key, &v)
				       : sd_bus_message_read(r, "{ss}", &key, &s)) > 0) {
		yout_key(y, key);
		if (counts)
			yout_u64(y, v);
		else
			yout_str(y, s);
	}
	if (rc >= 0)
		rc = sd_bus_message_exit_container(r);
	return rc;
}

static int fault_show(const char *kind)
{
	sd_bus_message *r = NULL;
	struct yout *y;
	sd_bus *bus = NULL;
	uint32_t id;
	int rc, yrc;

	rc = ctl_bus(&bus);
	if (!rc)
		rc = ctl_call(bus, "FaultList", &r, "s", kind);
	if (rc)
		return ctl_finish(rc, bus, r);
	y = yout_begin(stdout);
	yout_map_begin(y);
	yout_key(y, kind);
	yout_seq_begin(y);
	rc = sd_bus_message_enter_container(r, 'a', "(ua{ss}a{st})");
	while (rc >= 0 && (rc = sd_bus_message_enter_container(r, 'r', "ua{ss}a{st}")) > 0) {
		rc = sd_bus_message_read(r, "u", &id);
		yout_map_begin(y);
		yout_key(y, "id");
		yout_u32(y, id);
		if (rc >= 0)
			rc = rule_dict(r, y, false);
		yout_key(y, "statistics");
		yout_map_begin(y);
		if (rc >= 0)
			rc = rule_dict(r, y, true);
		yout_map_end(y);
		yout_map_end(y);
		if (rc >= 0)
			rc = sd_bus_message_exit_container(r);
	}
	yout_seq_end(y);
	yout_map_end(y);
	yrc = yout_end(y);
	ctl_finish(0, bus, r);
	if (rc < 0)
		return ctl_fail(EXIT_REFUSED, "lnetd's fault rules make no sense: %s",
				strerror(-rc));
	return yrc < 0 ? ctl_fail(EXIT_REFUSED, "cannot write the rules: %s", strerror(-yrc)) : 0;
}

#define FAULT_CMD(kind)                                                     \
	static int kind##_add(struct ctl_opt *opt, int argc, char **argv)   \
	{                                                                   \
		(void)argc;                                                 \
		(void)argv;                                                 \
		return fault_add(opt, #kind);                               \
	}                                                                   \
	static int kind##_del(struct ctl_opt *opt, int argc, char **argv)   \
	{                                                                   \
		(void)argc;                                                 \
		(void)argv;                                                 \
		return fault_del(opt, #kind);                               \
	}                                                                   \
	static int kind##_show(struct ctl_opt *opt, int argc, char **argv)  \
	{                                                                   \
		(void)opt;                                                  \
		(void)argc;                                                 \
		(void)argv;                                                 \
		return fault_show(#kind);                                   \
	}                                                                   \
	static int kind##_reset(struct ctl_opt *opt, int argc, char **argv) \
	{                                                                   \
		(void)opt;                                                  \
		(void)argc;                                                 \
		(void)argv;                                                 \
		return fault_reset(#kind);                                  \
	}

FAULT_CMD(drop)
FAULT_CMD(delay)

#define MATCH_OPTS                                                                         \
	{"source", 's', "NID", "messages from NID (* for any)"},                           \
		{"dest", 'd', "NID", "messages to NID (* for any)"},                       \
		{"rate", 'r', "N", "one message in every N"},                              \
		{"interval", 'i', "S", "one message in every S seconds"},                  \
		{"portal", 'p', "P[,P...]", "only requests to these portals"},             \
	{                                                                                  \
		"message", 'm', "TYPE[,TYPE...]", "only these types: PUT, ACK, GET, REPLY" \
	}
#define DEL_OPTS                                                                                \
	{"source", 's', "NID", "the rules from NID"}, {"dest", 'd', "NID", "the rules to NID"}, \
	{                                                                                       \
		"all", 'a', NULL, "every rule"                                                  \
	}

const struct ctl_cmd ctl_fault_cmds[] = {
	{"fault drop add",
	 "--source NID --dest NID --rate N|--interval S [--portal P] [--message TYPE] "
	 "[--health_error STATUS]",
	 "Drop matching messages: with a health error, fail their sends here as the LND would; "
	 "without, drop them on arrival.",
	 drop_add,
	 {MATCH_OPTS,
	  {"health-error", 'e', "STATUS[,STATUS...]",
	   "the health status a dropped send simulates, e.g. remote_dropped"}},
	 0,
	 0},
	{"fault drop del",
	 "--source NID --dest NID | --all",
	 "Delete drop rules.",
	 drop_del,
	 {DEL_OPTS},
	 0,
	 0},
	{"fault drop show", "", "Show the drop rules and their counters.", drop_show, {{0}}, 0, 0},
	{"fault drop reset", "", "Zero the drop rules' counters.", drop_reset, {{0}}, 0, 0},
	{"fault delay add",
	 "--source NID --dest NID --rate N|--interval S --latency S [--portal P] [--message TYPE]",
	 "Hold matching messages this node sends for a latency.",
	 delay_add,
	 {MATCH_OPTS, {"latency", 'l', "S", "seconds each matching message is held"}},
	 0,
	 0},
	{"fault delay del",
	 "--source NID --dest NID | --all",
	 "Delete delay rules.",
	 delay_del,
	 {DEL_OPTS},
	 0,
	 0},
	{"fault delay show", "", "Show the delay rules and their counters.", delay_show, {{0}}, 0, 0},
	{"fault delay reset", "", "Zero the delay rules' counters.", delay_reset, {{0}}, 0, 0},
	{0},
};
