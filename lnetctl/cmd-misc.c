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

static int done(int rc, struct yout *y, sd_bus *bus, const char *what)
{
	int yrc = y ? yout_end(y) : 0;

	if (!rc && yrc < 0)
		rc = ctl_fail(EXIT_REFUSED, "cannot print the %s: %s", what, strerror(-yrc));
	else if (rc < 0)
		rc = ctl_fail(EXIT_REFUSED, "lnetd's %s makes no sense: %s", what, strerror(-rc));
	sd_bus_flush_close_unref(bus);
	return rc;
}

/* An explanation's step being read: where its figures are printed, and the key read. */
struct reason {
	struct yout *y;
	const char *key;
};

/* A figure of its own name and type, as lnetd gives it. */
static int read_figure(sd_bus_message *r, void *rec)
{
	const struct reason *rs = rec;
	const char *contents;
	size_t len = strlen(rs->key);
	int64_t x;
	uint32_t u;
	char type;
	int rc = sd_bus_message_peek_type(r, &type, &contents);

	if (rc >= 0 && !strcmp(contents, "x")) {
		rc = sd_bus_message_read(r, "v", "x", &x);
		yout_key(rs->y, rs->key);
		/* a priority no rule set: -1, as net show's udsp info prints it */
		if (len >= 8 && !strcmp(rs->key + len - 8, "priority") && x == UINT32_MAX)
			yout_i64(rs->y, -1);
		else
			yout_i64(rs->y, x);
	} else if (rc >= 0 && !strcmp(contents, "u")) {
		rc = sd_bus_message_read(r, "v", "u", &u);
		yout_key(rs->y, rs->key);
		yout_u32(rs->y, u);
	} else if (rc > 0) {
		rc = 0;
	}
	return rc;
}

/*
 * "preferred": the engine ranks a candidate that is not preferred after
 * any priority (2^32); a preferred one by its rule's priority.
 */
static int read_preferred(sd_bus_message *r, void *rec)
{
	struct reason *rs = rec;
	int64_t x;
	int rc = sd_bus_message_read(r, "v", "x", &x);

	if (rc <= 0)
		return rc < 0 ? rc : -EBADMSG;
	yout_key(rs->y, rs->key);
	yout_bool(rs->y, x <= UINT32_MAX);
	if (x <= UINT32_MAX) {
		yout_key(rs->y, "preferred priority");
		yout_i64(rs->y, x == UINT32_MAX ? -1 : x);
	}
	return rc;
}

/* The figures with a meaning of their own; any other is printed as given. */
static const struct ctl_key reason_keys[] = {
	CTL_KEY_FN("preferred", read_preferred),
	{NULL},
};

static int reason_entry(sd_bus_message *r, const char *key, void *arg)
{
	struct reason rs = {arg, key};

	return ctl_key_entry(r, key, reason_keys, &rs) ?: read_figure(r, &rs);
}

static int explain(struct ctl_opt *opt, int argc, char **argv)
{
	struct ctl_opt *dst = ctl_opt(opt, "dst"), *src = ctl_opt(opt, "src");
	const char *ni, *pni, *gw, *step, *nid, *verdict;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *r = NULL;
	struct yout *y = NULL;
	sd_bus *bus = NULL;
	int rc;

	if (!dst->given)
		return ctl_usage("--dst is required");
	rc = ctl_bus(&bus);
	if (!rc)
		rc = ctl_call(bus, "Explain", &r, "ss", dst->val, src->given ? src->val : "");
	if (rc)
		return done(rc, NULL, bus, "explanation");
	rc = sd_bus_message_read(r, "sss", &ni, &pni, &gw);
	if (rc < 0)
		return done(rc, NULL, bus, "explanation");
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
	return done(rc < 0 ? rc : 0, y, bus, "explanation");
}

static int status(struct ctl_opt *opt, int argc, char **argv)
{
	const char *engine, *obj, *key, *reason;
	uint32_t conf, applied;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *r = NULL;
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
		return done(rc, NULL, bus, "status");
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
	return done(rc < 0 ? rc : 0, y, bus, "status");
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

/* history's options: --limit, --full. */
struct history_arg {
	uint32_t limit;
	bool full;
};

/* One change of History's reply. */
struct change {
	uint64_t gen;
	int64_t when;
	uint32_t uid, pid;
	const char *cmd, *summary;
};

static void change_emit(struct yout *y, const void *rec, void *arg)
{
	const struct change *c = rec;
	time_t t = (time_t)c->when;
	char stamp[32];
	struct tm tm;

	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
	yout_map_begin(y);
	yout_key(y, "generation");
	yout_u64(y, c->gen);
	yout_key(y, "time");
	yout_str(y, stamp);
	yout_key(y, "uid");
	yout_u32(y, c->uid);
	yout_key(y, "pid");
	yout_u32(y, c->pid);
	yout_key(y, "command");
	yout_str(y, c->cmd);
	yout_key(y, "changes");
	lines(y, c->summary, ((const struct history_arg *)arg)->full);
	yout_map_end(y);
}

static int history_call(sd_bus *bus, sd_bus_message **r, void *arg)
{
	return ctl_call(bus, "History", r, "u", ((const struct history_arg *)arg)->limit);
}

static int history(struct ctl_opt *opt, int argc, char **argv)
{
	static const struct ctl_key head[] = {
		CTL_KEY("generation", 't', struct change, gen),
		CTL_KEY("time", 'x', struct change, when),
		CTL_KEY("uid", 'u', struct change, uid),
		CTL_KEY("pid", 'u', struct change, pid),
		CTL_KEY("command", 's', struct change, cmd),
		CTL_KEY("summary", 's', struct change, summary),
		{NULL},
	};
	static const struct ctl_list changes = {
		.call = history_call,
		.top = "history",
		.head = head,
		.size = sizeof(struct change),
		.emit = change_emit,
		.bad_reply = "lnetd's history makes no sense",
		.bad_write = "cannot print the history",
	};
	struct ctl_opt *limit = ctl_opt(opt, "limit");
	struct history_arg a = {.limit = 20, .full = ctl_opt(opt, "full")->given};
	struct change c;
	int rc = limit->given ? ctl_u32(limit, UINT32_MAX, &a.limit) : 0;

	return rc ? rc : ctl_show_list(&changes, &c, &a);
}

static int rollback(struct ctl_opt *opt, int argc, char **argv)
{
	struct ctl_opt gen = {.name = "generation", .val = argv[0]};
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *r = NULL;
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
	return done(rc, NULL, bus, "rollback");
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
