// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-dp.c - the data path's commands: ping, stats show, stats reset, as
 * Lustre's lnetctl spells and prints them (lnetd's extra counters follow
 * Lustre's own under their own names).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/nid.h"
#include "lnetctl.h"
#include "yout.h"

struct ping_out {
	struct yout *y;
	const char *primary;
	int mr;
};

static int read_primary(sd_bus_message *r, void *rec)
{
	struct ping_out *p = rec;
	const char *s;

	/* 0@lo answers for the node, and names itself so, as upstream's does */
	if (sd_bus_message_read(r, "v", "s", &s) < 0)
		return -EBADMSG;
	if (!p->primary)
		p->primary = s;
	return 1;
}

static int write_nids(sd_bus_message *r, void *rec)
{
	struct ping_out *p = rec;
	int rc;

	/* the primary and Multi-Rail come first in lnetd's reply: print them, then the NIDs */
	yout_map_begin(p->y);
	yout_key(p->y, "primary nid");
	yout_str(p->y, p->primary ? p->primary : "");
	yout_key(p->y, "Multi-Rail");
	yout_bool(p->y, p->mr);
	yout_key(p->y, "peer ni");
	yout_seq_begin(p->y);
	rc = sd_bus_message_enter_container(r, 'v', "a(ss)");
	if (rc >= 0)
		rc = sd_bus_message_enter_container(r, 'a', "(ss)");
	while (rc >= 0) {
		const char *nid, *status;

		rc = sd_bus_message_read(r, "(ss)", &nid, &status);
		if (rc <= 0)
			break;
		yout_map_begin(p->y);
		yout_key(p->y, "nid");
		yout_str(p->y, nid);
		yout_map_end(p->y);
	}
	if (rc >= 0)
		rc = sd_bus_message_exit_container(r);
	if (rc >= 0)
		rc = sd_bus_message_exit_container(r);
	yout_seq_end(p->y);
	yout_map_end(p->y);
	return rc < 0 ? rc : 1;
}

/* Ping's reply, key by key; the primary and Multi-Rail come before the NIDs. */
static const struct ctl_key ping_keys[] = {
	CTL_KEY_FN("primary", read_primary),
	CTL_KEY("multi_rail", 'b', struct ping_out, mr),
	CTL_KEY_FN("nids", write_nids),
	{NULL},
};

/* The NIDs that did not answer, for upstream's "manage:" list after the answers. */
struct unreached {
	size_t n, cap;
	int *err;
	char **descr;
};

/*
 * lnetd's "failed to ping NID: why" names the NID its message went to,
 * which may be another NID of the same node: say the one asked for
 * (@nid, in canonical form), as upstream does.  0, or -ENOMEM.
 */
static int unreached_add(struct unreached *u, const char *key, const char *nid,
			 const sd_bus_error *e)
{
	const char *msg = e->message ?: "", *why = msg;
	char canon[LNE_NID_STR_MAX];
	struct lne_nid x;

	if (!strncmp(msg, "failed to ", 10) && strstr(msg, ": "))
		why = strstr(msg, ": ") + 2;
	if (lne_nid_parse(nid, &x, NULL))
		snprintf(canon, sizeof(canon), "%s", nid);
	else
		lne_nid_format(&x, canon, sizeof(canon));
	if (u->n == u->cap) {
		size_t cap = u->cap ? 2 * u->cap : 8;
		int *err = realloc(u->err, cap * sizeof(*err));
		char **descr = err ? realloc(u->descr, cap * sizeof(*descr)) : NULL;

		if (err)
			u->err = err;
		if (!descr)
			return -ENOMEM;
		u->descr = descr;
		u->cap = cap;
	}
	if (asprintf(&u->descr[u->n], "failed to %s %s: %s", key, canon, why) < 0)
		return -ENOMEM;
	u->err[u->n++] = ctl_errno_of(why, -EHOSTUNREACH);
	return 0;
}

static void unreached_free(struct unreached *u)
{
	size_t i;

	for (i = 0; i < u->n; i++)
		free(u->descr[i]);
	free(u->descr);
	free(u->err);
}

int ctl_each_node(int argc, char **argv, const char *key, ctl_node_call call, void *arg)
{
	struct unreached u = {0};
	struct yout *y = NULL;
	sd_bus *bus = NULL;
	int rc, i, failed = 0;

	rc = ctl_bus(&bus);
	if (rc)
		return rc;
	for (i = 0; i < argc; i++) {
		char **nids = NULL;
		size_t n = 0, k;

		nids = ctl_split(argv[i], &n);
		for (k = 0; k < n; k++) {
			_cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
			_cleanup_(sd_bus_message_unrefp) sd_bus_message *r = NULL;
			struct ping_out p = {0};

			rc = call(bus, nids[k], &r, &e, arg);
			if (rc < 0 && sd_bus_error_has_name(&e, "org.lnetd1.Error.Unreachable")) {
				/* reached lnetd, not the node: upstream's list after the answers */
				if (unreached_add(&u, key, nids[k], &e))
					failed = ctl_fail(EXIT_REFUSED, "out of memory");
				else
					failed = EXIT_REFUSED;
			} else if (rc < 0) {
				failed = ctl_bus_error(&e, rc);
			}
			if (rc < 0)
				continue;
			if (!y) {
				y = yout_begin(stdout);
				yout_map_begin(y);
				yout_key(y, key);
				yout_seq_begin(y);
			}
			p.y = y;
			if (!strcmp(nids[k], "0@lo"))
				p.primary = "0@lo";
			rc = ctl_read_record(r, ping_keys, &p);
			if (rc < 0)
				failed = ctl_fail(EXIT_REFUSED,
						  "lnetd's %s reply makes no sense: %s", key,
						  strerror(-rc));
		}
		ctl_strv_free(nids);
	}
	if (y) {
		yout_seq_end(y);
		yout_map_end(y);
		yout_end(y);
	}
	if (ctl_yerr_nodes(key, u.n, u.err, (const char *const *)u.descr))
		failed = ctl_fail(EXIT_REFUSED, "cannot print the NIDs that did not answer");
	unreached_free(&u);
	sd_bus_flush_close_unref(bus);
	return failed;
}

struct ping_args {
	const char *src;
	uint32_t timeout_ms;
};

static int ping_call(sd_bus *bus, const char *nid, sd_bus_message **r, sd_bus_error *e, void *arg)
{
	const struct ping_args *a = arg;

	return ctl_call_e(bus, "Ping", r, e, "ssu", nid, a->src, a->timeout_ms);
}

static int ping(struct ctl_opt *opt, int argc, char **argv)
{
	struct ctl_opt *src = ctl_opt(opt, "source"), *to = ctl_opt(opt, "timeout");
	uint32_t timeout_s = 1;
	struct ping_args a;

	if (to->given && (ctl_u32(to, 300, &timeout_s) || !timeout_s))
		return to->given && !timeout_s ? ctl_usage("--timeout must be 1 to 300 seconds")
					       : EXIT_USAGE;
	if (src->given && ctl_canon(src, true))
		return EXIT_USAGE;
	a.src = src->given ? src->val : "";
	a.timeout_ms = timeout_s * 1000;
	return ctl_each_node(argc, argv, "ping", ping_call, &a);
}

static int print_counts(sd_bus_message *r, struct yout *y, const char *const *only)
{
	const char *key;
	uint64_t v;
	int rc = sd_bus_message_enter_container(r, 'a', "{st}");

	while (rc >= 0 && (rc = sd_bus_message_read(r, "{st}", &key, &v)) > 0) {
		size_t i;
		bool want = !only;

		/* a name ending in '*' takes every counter it begins */
		for (i = 0; only && only[i]; i++) {
			size_t len = strlen(only[i]);

			want |= only[i][len - 1] == '*' ? !strncmp(only[i], key, len - 1)
							: !strcmp(only[i], key);
		}
		if (!want)
			continue;
		yout_key(y, key);
		yout_u64(y, v);
	}
	if (rc >= 0)
		rc = sd_bus_message_exit_container(r);
	return rc;
}

static int stats_show(struct ctl_opt *opt, int argc, char **argv)
{
	/* Lustre's keys, in Lustre's order, then lnetd's own */
	static const char *const node_first[] = {"msgs_alloc", "msgs_max", "errors", NULL};
	static const char *const totals[] = {"send_count",  "recv_count",  "drop_count",
					     "send_length", "recv_length", "drop_length",
					     NULL};
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *r = NULL;
	struct yout *y;
	sd_bus *bus = NULL;
	int rc;

	(void)opt;
	(void)argc;
	(void)argv;
	rc = ctl_bus(&bus);
	if (!rc)
		rc = ctl_call(bus, "Counters", &r, NULL);
	if (rc) {
		sd_bus_flush_close_unref(bus);
		return rc;
	}
	y = yout_begin(stdout);
	yout_map_begin(y);
	yout_key(y, "statistics");
	yout_map_begin(y);
	/* totals come first in the reply, but Lustre prints msgs_* first: read twice */
	rc = sd_bus_message_skip(r, "a{st}");
	if (rc >= 0)
		rc = print_counts(r, y, node_first);
	if (rc >= 0)
		rc = sd_bus_message_rewind(r, true);
	if (rc >= 0)
		rc = print_counts(r, y, totals);
	if (rc >= 0) {
		static const char *const rest[] = {"resend_count",
						   "response_timeout_count",
						   "local_interrupt_count",
						   "local_dropped_count",
						   "local_aborted_count",
						   "local_no_route_count",
						   "local_timeout_count",
						   "local_error_count",
						   "remote_dropped_count",
						   "remote_error_count",
						   "remote_timeout_count",
						   "network_timeout_count",
						   "failed_resends",
						   "successful_resends",
						   "route_count",
						   "route_length",
						   NULL};

		rc = print_counts(r, y, rest);
	}
	yout_map_end(y);
	yout_key(y, "lnetd");
	yout_map_begin(y);
	if (rc >= 0)
		rc = sd_bus_message_rewind(r, true);
	if (rc >= 0)
		rc = sd_bus_message_skip(r, "a{st}");
	if (rc >= 0) {
		static const char *const extra[] = {"connections_made", "connections_accepted",
						    "connections_closed", "disc_*", NULL};
		rc = print_counts(r, y, extra);
	}
	yout_map_end(y);
	yout_map_end(y);
	yout_end(y);
	sd_bus_flush_close_unref(bus);
	return rc < 0 ? ctl_fail(EXIT_REFUSED, "lnetd's counters make no sense: %s", strerror(-rc))
		      : 0;
}

static int stats_reset(struct ctl_opt *opt, int argc, char **argv)
{
	sd_bus *bus = NULL;
	int rc;

	(void)opt;
	(void)argc;
	(void)argv;
	rc = ctl_bus(&bus);
	if (!rc)
		rc = ctl_call(bus, "ResetCounters", NULL, NULL);
	sd_bus_flush_close_unref(bus);
	return rc;
}

#define TRACE_RAILS_MAX 64

struct st_out {
	struct yout *y;
	uint32_t messages, failed;
	uint64_t bytes, ns;
	char *rail[TRACE_RAILS_MAX]; /* names, for the trace's header */
	size_t nrails;
	FILE *trace;
};

/* The trace as CSV: seconds, then each rail's MB/s over the interval before. */
static int write_trace(sd_bus_message *r, void *rec)
{
	struct st_out *o = rec;
	uint64_t prev_t = 0, prev[TRACE_RAILS_MAX] = {0};
	size_t i;
	int rc;

	fprintf(o->trace, "seconds");
	for (i = 0; i < o->nrails; i++)
		fprintf(o->trace, ",%s", o->rail[i]);
	fprintf(o->trace, "\n");
	rc = sd_bus_message_enter_container(r, 'v', "a(tat)");
	if (rc >= 0)
		rc = sd_bus_message_enter_container(r, 'a', "(tat)");
	while (rc >= 0 && (rc = sd_bus_message_enter_container(r, 'r', "tat")) > 0) {
		uint64_t t, v;
		size_t k = 0;

		rc = sd_bus_message_read(r, "t", &t);
		if (rc >= 0)
			rc = sd_bus_message_enter_container(r, 'a', "t");
		if (rc >= 0 && t > prev_t)
			fprintf(o->trace, "%.3f", (double)t / 1e9);
		while (rc >= 0 && (rc = sd_bus_message_read(r, "t", &v)) > 0) {
			if (k < TRACE_RAILS_MAX && t > prev_t)
				fprintf(o->trace, ",%.2f",
					(double)(v - prev[k]) * 1e3 / (double)(t - prev_t));
			if (k < TRACE_RAILS_MAX)
				prev[k] = v;
			k++;
		}
		if (rc >= 0 && t > prev_t)
			fprintf(o->trace, "\n");
		prev_t = t > prev_t ? t : prev_t;
		if (rc >= 0)
			rc = sd_bus_message_exit_container(r);
		if (rc >= 0)
			rc = sd_bus_message_exit_container(r);
	}
	if (rc >= 0)
		rc = sd_bus_message_exit_container(r);
	if (rc >= 0)
		rc = sd_bus_message_exit_container(r);
	return rc < 0 ? rc : 1;
}

static double per_s(uint64_t n, uint64_t ns)
{
	return ns ? (double)n * 1e9 / (double)ns : 0;
}

/* Selftest's trace, when one is written (--trace); else skipped. */
static int read_trace(sd_bus_message *r, void *rec)
{
	struct st_out *o = rec;

	return o->trace ? write_trace(r, rec) : 0;
}

static int write_rails(sd_bus_message *r, void *rec)
{
	struct st_out *o = rec;
	int rc;

	/* the totals came first: print them, then each rail */
	yout_key(o->y, "messages");
	yout_u32(o->y, o->messages);
	yout_key(o->y, "failed");
	yout_u32(o->y, o->failed);
	yout_key(o->y, "seconds");
	yout_number_fmt(o->y, "%.3f", (double)o->ns / 1e9);
	yout_key(o->y, "messages/s");
	yout_number_fmt(o->y, "%.0f", per_s(o->messages - o->failed, o->ns));
	yout_key(o->y, "MB/s");
	yout_number_fmt(o->y, "%.1f", per_s(o->bytes, o->ns) / 1e6);
	yout_key(o->y, "rails");
	yout_seq_begin(o->y);
	rc = sd_bus_message_enter_container(r, 'v', "a(stt)");
	if (rc >= 0)
		rc = sd_bus_message_enter_container(r, 'a', "(stt)");
	while (rc >= 0) {
		const char *nid;
		uint64_t sent, recvd;

		rc = sd_bus_message_read(r, "(stt)", &nid, &sent, &recvd);
		if (rc <= 0)
			break;
		if (o->nrails < TRACE_RAILS_MAX)
			o->rail[o->nrails++] = strdup(nid);
		yout_map_begin(o->y);
		yout_key(o->y, "nid");
		yout_str(o->y, nid);
		yout_key(o->y, "sent MB/s");
		yout_number_fmt(o->y, "%.1f", per_s(sent, o->ns) / 1e6);
		yout_key(o->y, "received MB/s");
		yout_number_fmt(o->y, "%.1f", per_s(recvd, o->ns) / 1e6);
		yout_map_end(o->y);
	}
	if (rc >= 0)
		rc = sd_bus_message_exit_container(r);
	if (rc >= 0)
		rc = sd_bus_message_exit_container(r);
	yout_seq_end(o->y);
	return rc < 0 ? rc : 1;
}

/* Selftest's reply: the totals come first, then the rails (printed with them), the trace. */
static const struct ctl_key st_keys[] = {
	CTL_KEY("messages", 'u', struct st_out, messages),
	CTL_KEY("failed", 'u', struct st_out, failed),
	CTL_KEY("bytes", 't', struct st_out, bytes),
	CTL_KEY("elapsed_ns", 't', struct st_out, ns),
	CTL_KEY_FN("rails", write_rails),
	CTL_KEY_FN("trace", read_trace),
	{NULL},
};

static int selftest_run(struct ctl_opt *opt, int argc, char **argv)
{
	struct ctl_opt *nid = ctl_opt(opt, "nid"), *mode = ctl_opt(opt, "mode");
	struct ctl_opt *size = ctl_opt(opt, "size"), *count = ctl_opt(opt, "count");
	struct ctl_opt *conc = ctl_opt(opt, "concurrency"), *noack = ctl_opt(opt, "no-ack");
	struct ctl_opt *trace = ctl_opt(opt, "trace"), *every = ctl_opt(opt, "interval");
	struct ctl_opt *to = ctl_opt(opt, "timeout");
	uint32_t sz = 1u << 20, n = 1000, c = 8, interval = 100, wait_s = 0;
	size_t i;
	struct st_out o = {0};
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *r = NULL;
	sd_bus *bus = NULL;
	int rc;

	(void)argc;
	(void)argv;
	if (!nid->given)
		return ctl_usage("--nid is required");
	if ((size->given && ctl_u32(size, 1u << 20, &sz)) ||
	    (count->given && ctl_u32(count, 10000000, &n)) ||
	    (conc->given && ctl_u32(conc, 256, &c)) ||
	    (every->given && ctl_u32(every, 60000, &interval)) ||
	    (to->given && ctl_u32(to, 300, &wait_s)))
		return EXIT_USAGE;
	if (to->given && !wait_s)
		return ctl_usage("--timeout must be 1 to 300 seconds");
	if (every->given && !trace->given)
		return ctl_usage("--interval goes with --trace");
	if (ctl_canon(nid, true))
		return EXIT_USAGE;
	rc = ctl_bus(&bus);
	if (!rc)
		rc = ctl_call(bus, "Selftest", &r, "sa{sv}", nid->val, 7, "mode", "s",
			      mode->given ? mode->val : "write", "size", "u", sz, "count", "u", n,
			      "concurrency", "u", c, "ack", "b", (int)!noack->given, "interval_ms",
			      "u", trace->given ? interval : 0, "timeout_ms", "u", wait_s * 1000);
	if (rc) {
		sd_bus_flush_close_unref(bus);
		return rc;
	}
	if (trace->given) {
		o.trace = fopen(trace->val, "w");
		if (!o.trace) {
			sd_bus_flush_close_unref(bus);
			return ctl_fail(EXIT_FILE, "%s: %s", trace->val, strerror(errno));
		}
	}
	o.y = yout_begin(stdout);
	yout_map_begin(o.y);
	yout_key(o.y, "selftest");
	yout_map_begin(o.y);
	yout_key(o.y, "nid");
	yout_str(o.y, nid->val);
	yout_key(o.y, "mode");
	yout_str(o.y, mode->given ? mode->val : "write");
	yout_key(o.y, "size");
	yout_u32(o.y, sz);
	rc = ctl_read_record(r, st_keys, &o);
	yout_map_end(o.y);
	yout_map_end(o.y);
	yout_end(o.y);
	if (o.trace && fclose(o.trace) && rc >= 0)
		rc = -errno;
	for (i = 0; i < o.nrails; i++)
		free(o.rail[i]);
	sd_bus_flush_close_unref(bus);
	return rc < 0 ? ctl_fail(EXIT_REFUSED, "lnetd's answer makes no sense: %s", strerror(-rc))
		      : 0;
}

static int selftest_service(struct ctl_opt *opt, int argc, char **argv)
{
	sd_bus *bus = NULL;
	int on, rc;

	(void)opt;
	(void)argc;
	if (!strcmp(argv[0], "on"))
		on = 1;
	else if (!strcmp(argv[0], "off"))
		on = 0;
	else
		return ctl_usage("'%s' is neither on nor off", argv[0]);
	rc = ctl_bus(&bus);
	if (!rc)
		rc = ctl_call(bus, "SetTestService", NULL, "b", on);
	sd_bus_flush_close_unref(bus);
	return rc;
}

const struct ctl_cmd ctl_dp_cmds[] = {
	{"ping",
	 "NID[,NID...] [NID...] [--timeout SECONDS] [--source NID]",
	 "Ping NIDs over LNet and show the NIDs each answering node has.",
	 ping,
	 {{"timeout", 't', "SECONDS", "how long to wait for each answer (default 1, at most 300)"},
	  {"source", 's', "NID", "send from this local NI"}},
	 1,
	 1024},
	{"stats show", "", "Show the node's message counters.", stats_show, {{0}}, 0, 0},
	{"stats reset", "", "Set the message counters back to zero.", stats_reset, {{0}}, 0, 0},
	{"selftest run",
	 "--nid NID [--mode write|read|ping] [--size BYTES] [--count N] [--concurrency N] "
	 "[--no-ack] [--timeout SECONDS] [--trace FILE [--interval MS]]",
	 "Send a stream of messages to NID and show the throughput, overall and per rail.",
	 selftest_run,
	 {{"nid", 0, "NID", "the peer (its test service must be on for write and read)"},
	  {"mode", 0, "MODE", "write: PUTs to it (default); read: GETs from it; ping"},
	  {"size", 0, "BYTES", "each message's payload (default 1048576, at most that)"},
	  {"count", 0, "N", "how many messages (default 1000)"},
	  {"concurrency", 0, "N", "how many at a time (default 8, at most 256)"},
	  {"no-ack", 0, NULL, "write: done when sent, no ACK asked for"},
	  {"timeout", 0, "SECONDS",
	   "how long each message's answer is waited for (default 64, 1 to 300)"},
	  {"trace", 0, "FILE", "write each rail's MB/s over time to FILE (CSV)"},
	  {"interval", 0, "MS", "the trace's step (default 100, 10 to 60000)"}},
	 0,
	 0},
	{"selftest service",
	 "on|off",
	 "Serve (or stop serving) the traffic generator's test portal on this node.",
	 selftest_service,
	 {{0}},
	 1,
	 1},
	{0},
};
