// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-tbf.c - lnetctl tbf: NRS Token Bucket Filter policies and rules.
 *
 *   tbf policy set --service S [--queue reg|hp] [--type T] [--depth N]
 *   tbf policy set --service S "tbf [reg|hp] TYPE"     (the TBF design's form)
 *   tbf rule start|change|stop --service S [--queue reg|hp] RULE...
 *   tbf show [--service S] [-v]
 *   tbf del --service S
 *
 * A rule is the text lctl's nrs_tbf_rule takes, as is: both the newer
 * "start io nid={10.0.0.[1-9]@tcp}&opcode={ost_write} rate=100" and the
 * design's "start io {10.0.0.[1-9]@tcp} 100" forms, with an optional
 * leading reg or hp.  Without a queue a rule command applies to both.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/tbf.h"
#include "lnetctl.h"
#include "yout.h"

static int check_queue(const struct ctl_opt *q)
{
	if (q->given && strcmp(q->val, "reg") && strcmp(q->val, "hp"))
		return ctl_usage("--queue: '%s' is neither reg nor hp", q->val);
	return 0;
}

static int policy_set(struct ctl_opt *opt, int argc, char **argv)
{
	struct ctl_opt *svc = ctl_opt(opt, "service"), *queue = ctl_opt(opt, "queue"),
		       *type = ctl_opt(opt, "type"), *depth = ctl_opt(opt, "depth");
	/* No queue named: both, as lctl's nrs_policies and a rule without reg/hp do. */
	const char *q = queue->given ? queue->val : NULL, *t = type->given ? type->val : NULL;
	sd_bus_message *m = NULL;
	char words[3][32];
	sd_bus *bus = NULL;
	uint32_t dv = 0;
	int rc;

	if (!svc->given)
		return ctl_usage("--service is required");
	rc = check_queue(queue);
	/* The design's form: "tbf [reg|hp] TYPE". */
	if (!rc && argc) {
		int n = sscanf(argv[0], "%31s %31s %31s", words[0], words[1], words[2]);

		if (type->given || queue->given || strcmp(words[0], "tbf") || n < 2 ||
		    (n == 3 && strcmp(words[1], "reg") && strcmp(words[1], "hp")))
			return ctl_usage("'%s' is not \"tbf [reg|hp] TYPE\" (or use --queue and "
					 "--type, not both)",
					 argv[0]);
		q = n == 3 ? words[1] : NULL;
		t = n == 3 ? words[2] : words[1];
	}
	if (!rc && !t && !depth->given)
		return ctl_usage("say what to set: --type, --depth, or \"tbf [reg|hp] TYPE\"");
	if (!rc && depth->given) {
		char *end;
		unsigned long x = strtoul(depth->val, &end, 10);

		if (!*depth->val || *end || *depth->val == '-' || x < 1 || x > 1000000)
			return ctl_usage(
				"--depth: '%s' is not a number of tokens from 1 to 1000000",
				depth->val);
		dv = (uint32_t)x;
	}
	if (!rc)
		rc = ctl_bus(&bus);
	if (rc)
		return ctl_finish(rc, bus, NULL);
	if (!q) {
		/* Both queues, in one change. */
		struct cf_doc doc = {0};
		char **changes = NULL;
		uint64_t gen;
		int k;

		for (k = 0; !rc && k < 2; k++) {
			struct cf_op *op = cf_op_new("set", "tbf");

			if (!op || cf_op_set_str(op, "service", svc->val) ||
			    cf_op_set_str(op, "queue", k ? "hp" : "reg") ||
			    (t && cf_op_set_str(op, "type", t)) ||
			    (depth->given && cf_op_set_u32(op, "depth", dv))) {
				cf_op_free(op);
				op = NULL;
			}
			if (!op || cf_doc_push(&doc, op))
				rc = ctl_fail(EXIT_REFUSED, "out of memory");
		}
		if (!rc)
			rc = ctl_apply(bus, &doc, false, false, &gen, &changes, NULL);
		ctl_strv_free(changes);
		cf_doc_free(&doc);
		return ctl_finish(rc, bus, NULL);
	}
	rc = sd_bus_message_new_method_call(bus, &m, LNETD_BUS_NAME, LNETD_BUS_PATH,
					    LNETD_BUS_MANAGER, "TbfSetPolicy");
	if (rc >= 0)
		rc = sd_bus_message_append(m, "ss", svc->val, q);
	if (rc >= 0)
		rc = sd_bus_message_open_container(m, 'a', "{sv}");
	if (rc >= 0 && t)
		rc = sd_bus_message_append(m, "{sv}", "type", "s", t);
	if (rc >= 0 && depth->given)
		rc = sd_bus_message_append(m, "{sv}", "depth", "u", dv);
	if (rc >= 0)
		rc = sd_bus_message_close_container(m);
	return ctl_finish(ctl_send(bus, m, rc), bus, NULL);
}

/*
 * tbf rule [VERB]: the words after the options are the rule, as lctl takes
 * it; a leading reg or hp (the design writes "hp start ...") is the queue.
 * Without VERB the words are the whole command, the seed's string as is.
 */
static int rule(struct ctl_opt *opt, int argc, char **argv, const char *verb)
{
	struct ctl_opt *svc = ctl_opt(opt, "service"), *queue = ctl_opt(opt, "queue");
	struct cf_op *op;
	char *cmd;
	size_t len = 0;
	int i, rc;

	if (!svc->given)
		return ctl_usage("--service is required");
	rc = check_queue(queue);
	if (rc)
		return rc;
	for (i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	cmd = malloc(len + 32);
	if (!cmd)
		return ctl_fail(EXIT_REFUSED, "out of memory");
	/* The words as one text; its first word may be the queue. */
	char *words = malloc(len + 1), *w;
	size_t wl = 0, q;

	if (!words) {
		free(cmd);
		return ctl_fail(EXIT_REFUSED, "out of memory");
	}
	words[0] = '\0';
	for (i = 0; i < argc; i++)
		wl += (size_t)sprintf(words + wl, "%s%s", wl ? " " : "", argv[i]);
	w = words + strspn(words, " ");
	q = strcspn(w, " ");
	if ((q == 3 && !strncmp(w, "reg", 3)) || (q == 2 && !strncmp(w, "hp", 2))) {
		if (queue->given && (strlen(queue->val) != q || strncmp(queue->val, w, q))) {
			rc = ctl_usage("--queue %s and the rule's '%.*s' disagree", queue->val,
				       (int)q, w);
			free(words);
			free(cmd);
			return rc;
		}
		len = (size_t)sprintf(cmd, "%.*s", (int)q, w);
		w += q + strspn(w + q, " ");
	} else {
		len = (size_t)sprintf(cmd, "%s", queue->given ? queue->val : "");
	}
	if (verb)
		len += (size_t)sprintf(cmd + len, "%s%s", len ? " " : "", verb);
	sprintf(cmd + len, "%s%s", len && *w ? " " : "", w);
	free(words);
	op = cf_op_new("add", "tbf");
	if (op && (cf_op_set_str(op, "service", svc->val) || cf_op_set_str(op, "command", cmd))) {
		cf_op_free(op);
		op = NULL;
	}
	free(cmd);
	return ctl_apply_op(op);
}

static int rule_any(struct ctl_opt *opt, int argc, char **argv)
{
	return rule(opt, argc, argv, NULL);
}

static int rule_start(struct ctl_opt *opt, int argc, char **argv)
{
	return rule(opt, argc, argv, "start");
}

static int rule_change(struct ctl_opt *opt, int argc, char **argv)
{
	return rule(opt, argc, argv, "change");
}

static int rule_stop(struct ctl_opt *opt, int argc, char **argv)
{
	return rule(opt, argc, argv, "stop");
}

static int tbf_del(struct ctl_opt *opt, int argc, char **argv)
{
	struct ctl_opt *svc = ctl_opt(opt, "service");
	struct cf_op *op;

	if (!svc->given)
		return ctl_usage("--service is required");
	op = cf_op_new("del", "tbf");
	if (op && cf_op_set_str(op, "service", svc->val)) {
		cf_op_free(op);
		op = NULL;
	}
	return ctl_apply_op(op);
}

static void stats(struct yout *y, uint64_t s[5])
{
	static const char *const names[] = {"queued", "enqueued", "dispatched", "wait_ns",
					    "throttled"};
	int k;

	yout_key(y, "stats");
	yout_map_begin(y);
	for (k = 0; k < 5; k++) {
		yout_key(y, names[k]);
		yout_u64(y, s[k]);
	}
	yout_map_end(y);
}

static int tbf_show(struct ctl_opt *opt, int argc, char **argv)
{
	struct ctl_opt *svc = ctl_opt(opt, "service");
	bool verbose = ctl_opt(opt, "verbose")->given;
	const char *service, *queue, *type, *name, *text, *key, *follows;
	uint32_t depth, rate, nclasses;
	sd_bus_message *r = NULL;
	struct yout *y;
	sd_bus *bus = NULL;
	uint64_t s[5];
	int rc, yrc, rt, shown = 0;
	char *out = NULL;
	size_t outlen = 0;
	FILE *f;

	rc = ctl_bus(&bus);
	if (!rc)
		rc = ctl_call(bus, "ListTbf", &r, NULL);
	if (rc)
		return ctl_finish(rc, bus, r);
	/* Printed only when complete: an unknown service is an error, not an empty list. */
	f = open_memstream(&out, &outlen);
	y = yout_begin(f);
	yout_map_begin(y);
	yout_key(y, "tbf");
	yout_seq_begin(y);
	rc = sd_bus_message_enter_container(r, 'a', "(sssua(ssubuttttt)a(ssttttt))");
	while (rc >= 0 &&
	       (rc = sd_bus_message_enter_container(r, 'r', "sssua(ssubuttttt)a(ssttttt)")) > 0) {
		bool want;

		rc = sd_bus_message_read(r, "sssu", &service, &queue, &type, &depth);
		want = rc >= 0 && (!svc->given || !strcmp(svc->val, service));
		if (rc >= 0 && !want) {
			rc = sd_bus_message_skip(r, "a(ssubuttttt)a(ssttttt)");
			if (rc >= 0)
				rc = sd_bus_message_exit_container(r);
			continue;
		}
		shown++;
		yout_map_begin(y);
		yout_key(y, "service");
		yout_str(y, service);
		yout_key(y, "queue");
		yout_str(y, queue);
		yout_key(y, "type");
		yout_str(y, type);
		yout_key(y, "depth");
		yout_u32(y, depth);
		yout_key(y, "rules");
		yout_seq_begin(y);
		if (rc >= 0)
			rc = sd_bus_message_enter_container(r, 'a', "(ssubuttttt)");
		while (rc >= 0 && (rc = sd_bus_message_read(r, "(ssubuttttt)", &name, &text, &rate,
							    &rt, &nclasses, &s[0], &s[1], &s[2],
							    &s[3], &s[4])) > 0) {
			yout_map_begin(y);
			yout_key(y, "name");
			yout_str(y, name);
			yout_key(y, "rule");
			yout_str(y, text);
			yout_key(y, "rate");
			yout_u32(y, rate);
			yout_key(y, "realtime");
			yout_bool(y, rt);
			yout_key(y, "classes");
			yout_u32(y, nclasses);
			stats(y, s);
			yout_map_end(y);
		}
		yout_seq_end(y);
		if (rc >= 0)
			rc = sd_bus_message_exit_container(r);
		if (verbose) {
			yout_key(y, "classes");
			yout_seq_begin(y);
		}
		if (rc >= 0)
			rc = sd_bus_message_enter_container(r, 'a', "(ssttttt)");
		while (rc >= 0 && (rc = sd_bus_message_read(r, "(ssttttt)", &key, &follows, &s[0],
							    &s[1], &s[2], &s[3], &s[4])) > 0) {
			if (!verbose)
				continue;
			yout_map_begin(y);
			yout_key(y, "key");
			yout_str(y, key);
			yout_key(y, "rule");
			yout_str(y, follows);
			stats(y, s);
			yout_map_end(y);
		}
		if (verbose)
			yout_seq_end(y);
		if (rc >= 0)
			rc = sd_bus_message_exit_container(r);
		yout_map_end(y);
		if (rc >= 0)
			rc = sd_bus_message_exit_container(r);
	}
	yout_seq_end(y);
	yout_map_end(y);
	yrc = yout_end(y);
	if (f)
		fclose(f);
	if (rc >= 0 && yrc >= 0 && svc->given && !shown)
		rc = ctl_fail_errno(EXIT_REFUSED, -ENOENT, "no TBF policy for the service %s",
				    svc->val);
	else if (rc < 0 || yrc < 0)
		rc = ctl_fail(EXIT_REFUSED, "cannot show the TBF policies: %s",
			      strerror(-(rc < 0 ? rc : yrc)));
	else
		rc = fwrite(out, 1, outlen, stdout) == outlen ? 0 : EXIT_REFUSED;
	free(out);
	return ctl_finish(rc, bus, r);
}

#define SVC_OPT                                                           \
	{                                                                 \
		"service", 0, "SERVICE", "the request queue, e.g. ost_io" \
	}
#define QUEUE_OPT                                                                         \
	{                                                                                 \
		"queue", 0, "reg|hp", "regular or high-priority requests (default: both)" \
	}

const struct ctl_cmd ctl_tbf_cmds[] = {
	{"tbf policy set",
	 "--service SERVICE [--queue reg|hp] [--type TYPE] [--depth N] | \"tbf [reg|hp] TYPE\"",
	 "Set a TBF queue's type (" LNE_TBF_FIELD_NAMES ", or a+b) and bucket depth.",
	 policy_set,
	 {SVC_OPT,
	  {"queue", 0, "reg|hp", "the queue (default: both)"},
	  {"type", 0, "TYPE", "the request fields that form a class key, e.g. nid+opcode"},
	  {"depth", 0, "N", "tokens a class may save up (the burst), 1 to 1000000"}},
	 0,
	 1},
	{"tbf rule",
	 "--service SERVICE [--queue reg|hp] \"[reg|hp] start|change|stop NAME ...\"",
	 "Run a TBF rule command given whole, as lctl's nrs_tbf_rule takes it.",
	 rule_any,
	 {SVC_OPT, QUEUE_OPT},
	 1,
	 64},
	{"tbf rule start",
	 "--service SERVICE [--queue reg|hp] NAME CONDITIONS [rate=N] [rank=RULE] [realtime=1]",
	 "Start a TBF rule (lnet.conf(5) and the TBF design give the syntax).",
	 rule_start,
	 {SVC_OPT, QUEUE_OPT},
	 1,
	 64},
	{"tbf rule change",
	 "--service SERVICE [--queue reg|hp] NAME [rate=N] [rank=RULE]",
	 "Change a TBF rule's rate or place.",
	 rule_change,
	 {SVC_OPT, QUEUE_OPT},
	 1,
	 64},
	{"tbf rule stop",
	 "--service SERVICE [--queue reg|hp] NAME",
	 "Stop a TBF rule: its classes follow the next rule that matches.",
	 rule_stop,
	 {SVC_OPT, QUEUE_OPT},
	 1,
	 2},
	{"tbf show",
	 "[--service SERVICE] [-v]",
	 "Show TBF policies: rules with rates and statistics (-v: classes too).",
	 tbf_show,
	 {{"service", 0, "SERVICE", "only this service"},
	  {"verbose", 'v', NULL,
	   "also each class with its statistics (-v LEVEL: all levels alike)"}},
	 0,
	 0},
	{"tbf del", "--service SERVICE", "Remove a service's TBF policy.", tbf_del, {SVC_OPT}, 0, 0},
	{0},
};
