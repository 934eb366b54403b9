// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-misc.c - what lnetd adds to Lustre's lnetctl: explain, status,
 * history, rollback.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lnetctl.h"
#include "yout.h"

static int done(int rc, struct yout *y, sd_bus *bus, sd_bus_message *r, const char *what)
{
	int yrc = y ? yout_end(y) : 0;

	if (!rc && yrc < 0)
		rc = ctl_fail(EXIT_REFUSED, "cannot print the %s: %s", what, strerror(-yrc));
	else if (rc < 0)
		rc = ctl_fail(EXIT_REFUSED, "lnetd's %s makes no sense: %s", what, strerror(-rc));
	sd_bus_message_unref(r);
	sd_bus_flush_close_unref(bus);
	return rc;
}

/* One figure of an explanation's step: numbers, by their name. */
static int reason_entry(sd_bus_message *r, const char *key, void *arg)
{
	const char *contents;
	struct yout *y = arg;
	int64_t x;
	uint32_t u;
	char type;
	int rc = sd_bus_message_peek_type(r, &type, &contents);

	if (rc >= 0 && !strcmp(contents, "x")) {
		size_t len = strlen(key);

		rc = sd_bus_message_read(r, "v", "x", &x);
		if (!strcmp(key, "preferred")) {
			/*
			 * The engine ranks a candidate that is not preferred after any
			 * priority (2^32); a preferred one by its rule's priority.
			 */
			yout_key(y, key);
			yout_bool(y, x <= UINT32_MAX);
			if (x > UINT32_MAX)
				return rc;
			key = "preferred priority";
			len = strlen(key);
		}
		yout_key(y, key);
		/* a priority no rule set: -1, as net show's udsp info prints it */
		if (len >= 8 && !strcmp(key + len - 8, "priority") && x == UINT32_MAX)
			yout_i64(y, -1);
		else
			yout_i64(y, x);
	} else if (rc >= 0 && !strcmp(contents, "u")) {
		rc = sd_bus_message_read(r, "v", "u", &u);
		yout_key(y, key);
		yout_u32(y, u);
	} else if (rc > 0) {
		rc = 0;
	}
	return rc;
}

static int explain(struct ctl_opt *opt, int argc, char **argv)
{
	struct ctl_opt *dst = ctl_opt(opt, "dst"), *src = ctl_opt(opt, "src");
	const char *ni, *pni, *gw, *step, *nid, *verdict;
	sd_bus_message *r = NULL;
	struct yout *y = NULL;
	sd_bus *bus = NULL;
	int rc;

	if (!dst->given)
		return ctl_usage("--dst is required");
	rc = ctl_bus(&bus);
	if (!rc)
		rc = ctl_call(bus, "Explain", &r, "ss", dst->val, src->given ? src->val : "");
	if (rc)
		return done(rc, NULL, bus, r, "explanation");
	rc = sd_bus_message_read(r, "sss", &ni, &pni, &gw);
	if (rc < 0)
		return done(rc, NULL, bus, r, "explanation");
	y = yout_begin(stdout);
	yout_map_begin(y);
	yout_key(y, "explain");
	yout_map_begin(y);
	yout_key(y, "dst");
	yout_str(y, dst->val);
	yout_key(y, "local ni");
	yout_str(y, ni);
	yout_key(y, "peer ni");
	yout_str(y, pni);
	if (*gw) {
		yout_key(y, "gateway");
		yout_str(y, gw);
	}
	yout_key(y, "reasons");
	yout_seq_begin(y);
	rc = sd_bus_message_enter_container(r, 'a', "(sssa{sv})");
	while (rc >= 0 && (rc = sd_bus_message_enter_container(r, 'r', "sssa{sv}")) > 0) {
		rc = sd_bus_message_read(r, "sss", &step, &nid, &verdict);
		yout_map_begin(y);
		yout_key(y, "step");
		yout_str(y, step);
		yout_key(y, "nid");
		yout_str(y, nid);
		yout_key(y, "verdict");
		yout_str(y, verdict);
		if (rc >= 0)
			rc = ctl_read_dict(r, reason_entry, y);
		if (rc >= 0)
			rc = sd_bus_message_exit_container(r);
		yout_map_end(y);
	}
	yout_seq_end(y);
	yout_map_end(y);
	yout_map_end(y);
	return done(rc < 0 ? rc : 0, y, bus, r, "explanation");
}

static int status(struct ctl_opt *opt, int argc, char **argv)
{
	const char *engine, *obj, *key, *reason;
	uint32_t conf, applied;
	sd_bus_message *r = NULL;
	struct yout *y = NULL;
	sd_bus *bus = NULL;
	uint64_t gen;
	int rc;

	rc = ctl_bus(&bus);
	if (!rc)
		rc = ctl_call(bus, "Status", &r, NULL);
	if (!rc && sd_bus_message_read(r, "ts", &gen, &engine) < 0)
		rc = -EBADMSG;
	if (rc)
		return done(rc, NULL, bus, r, "status");
	y = yout_begin(stdout);
	yout_map_begin(y);
	yout_key(y, "status");
	yout_map_begin(y);
	yout_key(y, "generation");
	yout_u64(y, gen);
	yout_key(y, "engine");
	yout_str(y, engine);
	yout_key(y, "objects");
	yout_seq_begin(y);
	rc = sd_bus_message_enter_container(r, 'a', "(suu)");
	while (rc >= 0 && (rc = sd_bus_message_read(r, "(suu)", &obj, &conf, &applied)) > 0) {
		yout_map_begin(y);
		yout_key(y, "object");
		yout_str(y, obj);
		yout_key(y, "configured");
		yout_u32(y, conf);
		yout_key(y, "applied");
		yout_u32(y, applied);
		yout_map_end(y);
	}
	if (rc >= 0)
		rc = sd_bus_message_exit_container(r);
	yout_seq_end(y);
	yout_key(y, "pending");
	yout_seq_begin(y);
	if (rc >= 0)
		rc = sd_bus_message_enter_container(r, 'a', "(sss)");
	while (rc >= 0 && (rc = sd_bus_message_read(r, "(sss)", &obj, &key, &reason)) > 0) {
		yout_map_begin(y);
		yout_key(y, "object");
		yout_str(y, obj);
		yout_key(y, "name");
		yout_str(y, key);
		yout_key(y, "reason");
		yout_str(y, reason);
		yout_map_end(y);
	}
	yout_seq_end(y);
	yout_map_end(y);
	yout_map_end(y);
	return done(rc < 0 ? rc : 0, y, bus, r, "status");
}

/* Lines of a change listed in full; more are counted by kind unless --full. */
#define HISTORY_LINES 10

/* The kinds of change lines ("+peer", "~ni"), each once, with their counts. */
struct kinds {
	size_t n;
	struct {
		char kind[32];
		uint64_t count;
	} k[32];
};

static void kind_count(struct kinds *ks, const char *line, size_t len)
{
	size_t w = strcspn(line, " \n"), i;

	if (w > len)
		w = len;
	if (w >= sizeof(ks->k[0].kind))
		w = sizeof(ks->k[0].kind) - 1;
	for (i = 0; i < ks->n; i++)
		if (strlen(ks->k[i].kind) == w && !strncmp(ks->k[i].kind, line, w))
			break;
	if (i == ks->n) {
		if (ks->n == sizeof(ks->k) / sizeof(ks->k[0]))
			i--; /* the last one counts the rest: kinds are few (object kinds x3) */
		else
			snprintf(ks->k[ks->n++].kind, sizeof(ks->k[0].kind), "%.*s", (int)w, line);
	}
	ks->k[i].count++;
}

/*
 * "+peer X\n~peer X +nid Y" as a YAML list: the first HISTORY_LINES lines
 * (all with @full), and then, for a big change (a site import's 50,000
 * peers), how many more and every line's kind counted, not 50,000 lines.
 */
static void lines(struct yout *y, const char *text, bool full)
{
	const char *p = text, *nl;
	struct kinds ks = {0};
	uint64_t n = 0;
	char buf[1024];
	size_t i;

	yout_seq_begin(y);
	while (*p) {
		nl = strchrnul(p, '\n');
		kind_count(&ks, p, (size_t)(nl - p));
		if (full || n < HISTORY_LINES) {
			snprintf(buf, sizeof(buf), "%.*s", (int)(nl - p), p);
			yout_str(y, buf);
		}
		n++;
		p = *nl ? nl + 1 : nl;
	}
	yout_seq_end(y);
	if (full || n <= HISTORY_LINES)
		return;
	yout_key(y, "more changes");
	yout_u64(y, n - HISTORY_LINES);
	yout_key(y, "changes by kind");
	yout_map_begin(y);
	for (i = 0; i < ks.n; i++) {
		yout_key(y, ks.k[i].kind);
		yout_u64(y, ks.k[i].count);
	}
	yout_map_end(y);
}

static int history(struct ctl_opt *opt, int argc, char **argv)
{
	struct ctl_opt *limit = ctl_opt(opt, "limit");
	const char *cmd, *summary;
	sd_bus_message *r = NULL;
	struct yout *y = NULL;
	uint32_t lim = 20, uid, pid;
	sd_bus *bus = NULL;
	uint64_t gen;
	int64_t when;
	int rc = 0;

	if (limit->given)
		rc = ctl_u32(limit, UINT32_MAX, &lim);
	if (!rc)
		rc = ctl_bus(&bus);
	if (!rc)
		rc = ctl_call(bus, "History", &r, "u", lim);
	if (rc)
		return done(rc, NULL, bus, r, "history");
	y = yout_begin(stdout);
	yout_map_begin(y);
	yout_key(y, "history");
	yout_seq_begin(y);
	rc = sd_bus_message_enter_container(r, 'a', "(txuuss)");
	while (rc >= 0 && (rc = sd_bus_message_read(r, "(txuuss)", &gen, &when, &uid, &pid, &cmd,
						    &summary)) > 0) {
		char stamp[32];
		time_t t = (time_t)when;
		struct tm tm;

		strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
		yout_map_begin(y);
		yout_key(y, "generation");
		yout_u64(y, gen);
		yout_key(y, "time");
		yout_str(y, stamp);
		yout_key(y, "uid");
		yout_u32(y, uid);
		yout_key(y, "pid");
		yout_u32(y, pid);
		yout_key(y, "command");
		yout_str(y, cmd);
		yout_key(y, "changes");
		lines(y, summary, ctl_opt(opt, "full")->given);
		yout_map_end(y);
	}
	yout_seq_end(y);
	yout_map_end(y);
	return done(rc < 0 ? rc : 0, y, bus, r, "history");
}

static int rollback(struct ctl_opt *opt, int argc, char **argv)
{
	struct ctl_opt gen = {.name = "generation", .val = argv[0]};
	sd_bus_message *r = NULL;
	sd_bus *bus = NULL;
	unsigned long long g;
	char *end;
	int rc;

	g = strtoull(argv[0], &end, 10);
	if (!*argv[0] || *end || *argv[0] == '-')
		return ctl_usage("'%s' is not a generation (a number, see 'lnetctl history')",
				 gen.val);
	rc = ctl_bus(&bus);
	if (!rc)
		rc = ctl_call(bus, "Rollback", &r, "t", (uint64_t)g);
	return done(rc, NULL, bus, r, "rollback");
}

const struct ctl_cmd ctl_misc_cmds[] = {
	{"explain",
	 "--dst NID [--src NID]",
	 "Say which local NI, peer NI and gateway a message to NID would take, and why.",
	 explain,
	 {{"dst", 0, "NID", "the destination"}, {"src", 0, "NID", "the source NID to use"}},
	 0,
	 0},
	{"status",
	 "",
	 "Show what is configured, what is applied, and why anything is pending.",
	 status,
	 {{0}},
	 0,
	 0},
	{"history",
	 "[--limit N] [--full]",
	 "Show the latest changes, newest first, with who made them.",
	 history,
	 {{"limit", 0, "N", "at most N changes (default 20, 0 for all)"},
	  {"full", 0, NULL, "every object a change made (else 10, and the rest counted by kind)"}},
	 0,
	 0},
	{"rollback",
	 "GENERATION",
	 "Return the configuration to a generation, as one new change.",
	 rollback,
	 {{0}},
	 1,
	 1},
	{0},
};
