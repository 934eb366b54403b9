// SPDX-License-Identifier: GPL-2.0
/*
 * NRS TBF: the rule grammar (both syntaxes), rule order, matching and
 * re-matching, and the scheduler on a virtual clock: rates, starvation,
 * exact tokens, the highest rate, hp and realtime order, statistics,
 * class limits and reclaim.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/tbf.h"
#include "unit.h"

#define SEC 1000000000ull

struct treq {
	struct lne_tbf_req r;
	int who;
	enum lne_tbf_queue q;
};

static struct lne_tbf *policy(const char *type)
{
	struct lne_tbf *tbf = NULL;
	struct lne_err err;
	int q;

	ck_assert_int_eq(lne_tbf_new("ost_io", &tbf, &err), 0);
	for (q = 0; type && q < LNE_TBF_NQUEUES; q++)
		ck_assert_msg(!lne_tbf_set_type(tbf, (enum lne_tbf_queue)q, type, &err), "%s",
			      err.msg);
	return tbf;
}

static void cmd_ok(struct lne_tbf *tbf, const char *cmd, u64 now)
{
	struct lne_err err = {.pos = -2};

	ck_assert_msg(!lne_tbf_command(tbf, cmd, now, &err), "'%s': %s", cmd, err.msg);
}

static void req_set(struct lne_tbf_req *r, const char *nid, const char *jobid, u32 opcode, u32 uid,
		    u32 gid)
{
	memset(r, 0, sizeof(*r));
	ck_assert_msg(!lne_nid_parse(nid, &r->nid, NULL), "bad NID %s", nid);
	snprintf(r->jobid, sizeof(r->jobid), "%s", jobid ? jobid : "");
	r->opcode = opcode;
	r->uid = uid;
	r->gid = gid;
}

static struct treq *treqs(int n)
{
	struct treq *t = calloc((size_t)n, sizeof(*t));

	ck_assert_ptr_nonnull(t);
	return t;
}

/* The rule names of @q in match order, space separated. */
static const char *order(struct lne_tbf *tbf, enum lne_tbf_queue q)
{
	static char buf[512];
	const struct lne_tbf_rule *r = NULL;

	buf[0] = '\0';
	while ((r = lne_tbf_rule_next(tbf, q, r))) {
		if (buf[0])
			strcat(buf, " ");
		strcat(buf, r->name);
	}
	return buf;
}

static const char *rule_text(const struct lne_tbf_rule *r)
{
	static char buf[1024];
	int n = lne_tbf_rule_format(r, buf, sizeof(buf));

	ck_assert_int_lt(n, (int)sizeof(buf));
	ck_assert_int_eq(lne_tbf_rule_format(r, NULL, 0), n);
	return buf;
}

/*
 * Serve from *@now to @end inclusive.  Each dispatch takes @service_ns (0:
 * an infinitely fast server) and its request comes straight back, so every
 * class stays backlogged.  Dispatches are counted per treq->who.
 */
static void serve(struct lne_tbf *tbf, u64 *now, u64 end, u64 service_ns, u64 *count)
{
	struct lne_tbf_req *r;
	struct treq *t;
	u64 next = 0;

	while (*now <= end) {
		r = lne_tbf_dequeue(tbf, *now, &next);
		if (!r) {
			ck_assert_uint_gt(next, *now);
			if (next == LNE_TBF_NEVER || next > end)
				break;
			*now = next;
			continue;
		}
		t = lne_container_of(r, struct treq, r);
		count[t->who]++;
		ck_assert_int_eq(lne_tbf_enqueue(tbf, r, t->q, *now), 0);
		*now += service_ns;
	}
}

/* --- the grammar -------------------------------------------------------------------------- */

START_TEST(parse_good)
{
	static const struct {
		const char *cmd;
		const char *rule; /* a rule of the reg queue afterwards, or NULL */
		const char *text; /* and its canonical command */
	} rows[] = {
		{"start a nid={192.168.1.[1-128]@tcp}&opcode={ost_write} rate=500", "a",
		 "start a nid={192.168.1.[1-128]@tcp}&opcode={ost_write} rate=500"},
		{"start b jobid={dd.* compile.1000}", "b",
		 "start b jobid={dd.* compile.1000} rate=10000"},
		{"start c uid={500 501},gid={100} rate=7 realtime=1", "c",
		 "start c uid={500 501},gid={100} rate=7 realtime=1"},
		{"start d nid={2001:db8::/64@tcp} & uid={0} , opcode={ost_read  ost_write} rate=1",
		 "d", "start d nid={2001:db8::/64@tcp}&uid={0},opcode={ost_read ost_write} rate=1"},
		{"start e1 nid={10.0.0.1@tcp 10.0.0.2@o2ib1} realtime=0 rate=3", "e1",
		 "start e1 nid={10.0.0.1@tcp 10.0.0.2@o2ib1} rate=3"},
		{"reg start e {10.0.0.[1-4]@tcp} 100", "e",
		 "start e nid={10.0.0.[1-4]@tcp} rate=100"},
		{"hp start f {192.168.*.*@tcp} 1000000000", NULL, NULL},
		{"start g opcode={mds_reint ldlm_enqueue obd_ping} rate=5 rank=a", "g",
		 "start g opcode={mds_reint ldlm_enqueue obd_ping} rate=5"},
		{"start h gid={4294967295} rate=1000000000 rank=default", "h",
		 "start h gid={4294967295} rate=1000000000"},
		{"start Old_1 {tcp1} 10", "Old_1", "start Old_1 nid={tcp1} rate=10"},
		{"change a rate=1000", "a",
		 "start a nid={192.168.1.[1-128]@tcp}&opcode={ost_write} rate=1000"},
		{"change a 2000", "a",
		 "start a nid={192.168.1.[1-128]@tcp}&opcode={ost_write} rate=2000"},
		{"reg change e 5", "e", "start e nid={10.0.0.[1-4]@tcp} rate=5"},
		{"change b rank=default rate=9", "b", "start b jobid={dd.* compile.1000} rate=9"},
		{"change default rate=42", "default", "change default rate=42"},
		{"  stop   c  ", NULL, NULL},
		{"hp stop f", NULL, NULL},
		{"hp change Old_1 rate=11", NULL, NULL},
	};
	struct lne_tbf *tbf = policy("nid+jobid+opcode+uid+gid");
	const struct lne_tbf_rule *r;
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		cmd_ok(tbf, rows[i].cmd, 0);
		if (!rows[i].rule)
			continue;
		r = lne_tbf_rule_find(tbf, LNE_TBF_REG, rows[i].rule);
		ck_assert_ptr_nonnull(r);
		ck_assert_str_eq(rule_text(r), rows[i].text);
	}
	ck_assert_str_eq(order(tbf, LNE_TBF_REG), "Old_1 e e1 d g a h b default");
	ck_assert_str_eq(order(tbf, LNE_TBF_HP), "Old_1 e1 d g a h b default");
	ck_assert_ptr_null(lne_tbf_rule_find(tbf, LNE_TBF_REG, "c"));
	ck_assert_ptr_null(lne_tbf_rule_find(tbf, LNE_TBF_HP, "f"));
	ck_assert_uint_eq(lne_tbf_rule_find(tbf, LNE_TBF_HP, "Old_1")->rate, 11);
	ck_assert_uint_eq(lne_tbf_rule_find(tbf, LNE_TBF_REG, "Old_1")->rate, 10);
	lne_tbf_free(tbf);
}
END_TEST

static char *repeat(const char *head, const char *item, int n, const char *tail)
{
	size_t len = strlen(head) + strlen(tail) + (size_t)n * strlen(item) + 1;
	char *s = malloc(len);
	int i;

	ck_assert_ptr_nonnull(s);
	strcpy(s, head);
	for (i = 0; i < n; i++)
		strcat(s, item);
	strcat(s, tail);
	return s;
}

START_TEST(parse_bad)
{
	static const struct {
		const char *cmd;
		int rc;
		const char *msg; /* a part of the sentence */
		const char *at;	 /* the text the position points to, NULL: not checked */
	} rows[] = {
		{"", -EINVAL, "empty command", NULL},
		{"launch a uid={1}", -EINVAL, "'launch' is not a command (start, change or stop)",
		 "launch"},
		{"reg", -EINVAL, "missing start, change or stop after the queue", NULL},
		{"hp start", -EINVAL, "missing the rule name", NULL},
		{"start a-b uid={1}", -EINVAL, "rule name 'a-b' may hold only letters", "a-b"},
		{"start abcdefghijklmnop uid={1}", -EINVAL,
		 "rule name 'abcdefghijklmnop' is longer than 15 characters", "abcdefghijklmnop"},
		{"start default uid={1}", -EINVAL, "the default rule always exists", "default"},
		{"stop default", -EINVAL, "the default rule cannot be stopped", "default"},
		{"start a", -EINVAL, "start needs conditions", NULL},
		{"start a rate=5", -EINVAL, "start needs conditions", "rate=5"},
		{"start a foo={1}", -EINVAL, "'foo' is not a field (nid, jobid, opcode, uid, gid)",
		 "foo"},
		{"start a uid=1", -EINVAL, "uid must be followed by ={list}", "uid"},
		{"start a uid={ }", -EINVAL, "uid={} is empty", "uid"},
		{"start a uid={1", -EINVAL, "missing '}' in 'uid={1'", "uid"},
		{"start a uid=1}", -EINVAL, "'}' without '{'", "}"},
		{"start a uid={{1}}", -EINVAL, "'{' inside a {list}", "{1}}"},
		{"start a nid={10.0.0.[5-2]@tcp}", -EINVAL,
		 "10.0.0.[5-2]@tcp: range start 5 is above its end 2", "5-2]"},
		{"start a nid={10.0.0.1@foo}", -EINVAL, "unknown network type 'foo'", NULL},
		{"start a uid={abc}", -EINVAL, "uid 'abc' is not a number", "abc"},
		{"start a gid={1 4294967296}", -EINVAL, "gid 4294967296 is above 4294967295",
		 "4294967296"},
		{"start a opcode={ost_read ost_foo}", -EINVAL, "'ost_foo' is not an opcode",
		 "ost_foo"},
		{"start a jobid={aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa}", -EINVAL,
		 "is longer than 32 characters", "aaaa"},
		{"start a uid={1}&", -EINVAL, "missing a condition after '&'", NULL},
		{"start a uid={1}&,gid={2}", -EINVAL, "expected a condition such as nid={...}",
		 ",gid"},
		{"start a uid={1},gid={2}&gid={3}", -EINVAL, "gid appears twice in one '&' group",
		 "gid={3}"},
		{"start a uid={1} gid={2}", -EINVAL, "missing '&' or ',' before 'gid={2}'", "gid"},
		{"start a uid={1} burst=3", -EINVAL,
		 "'burst=3' is neither a condition nor an option (rate=, rank=, realtime=)",
		 "burst"},
		{"start a uid={1} quickly", -EINVAL, "expected '&' or ',' before 'quickly'",
		 "quickly"},
		{"start a uid={1} rate=0", -EINVAL, "rate must be at least 1", "0"},
		{"start a uid={1} rate=abc", -EINVAL, "rate 'abc' is not a number", "abc"},
		{"start a uid={1} rate=1000000001", -EINVAL,
		 "rate 1000000001 is above the maximum 1000000000", "1000000001"},
		{"start a uid={1} rate=5 rate=6", -EINVAL, "the rate is given twice", "6"},
		{"start a uid={1} rate=5 uid={2}", -EINVAL, "'uid={2}' is not an option",
		 "uid={2}"},
		{"start a uid={1} realtime=2", -EINVAL, "realtime= takes 0 or 1, not '2'", "2"},
		{"start a uid={1} realtime=1 realtime=1", -EINVAL, "realtime= is given twice",
		 NULL},
		{"start a uid={1} rank=nosuch", -ENOENT,
		 "rank=nosuch: no rule named 'nosuch' in the reg queue", "nosuch"},
		{"start a uid={1} rank=a", -EINVAL, "a rule cannot be ranked before itself", "a"},
		{"start a uid={1} rank=x rank=x", -EINVAL, "rank= is given twice", NULL},
		{"start a uid={1} rank=b-c", -EINVAL, "rank= rule name 'b-c' may hold only", "b-c"},
		{"start x uid={2}", -EEXIST, "a rule named 'x' already exists in the reg queue",
		 "x"},
		{"change x", -EINVAL, "change needs rate=<n> or rank=<rule>", NULL},
		{"change x realtime=1", -EINVAL, "change cannot set realtime=", "realtime"},
		{"change x burst=1", -EINVAL, "'burst=1' is not an option (rate=, rank=)", "burst"},
		{"change x 5 6", -EINVAL, "'6' is not an option", "6"},
		{"change nosuch rate=5", -ENOENT, "no rule named 'nosuch' in the reg queue",
		 "nosuch"},
		{"change default rank=x", -EINVAL,
		 "the default rule is always last: no rank=", "x"},
		{"change x rank=x", -EINVAL, "a rule cannot be ranked before itself", NULL},
		{"stop x now", -EINVAL, "stop takes only a rule name, not 'now'", "now"},
		{"stop nosuch", -ENOENT, "no rule named 'nosuch' in the reg queue", "nosuch"},
		{"hp stop x", -ENOENT, "no rule named 'x' in the hp queue", "x"},
		{"start a {10.0.0.1@tcp}", -EINVAL, "'start <name> {<nids>} <rate>' needs a rate",
		 NULL},
		{"start a {10.0.0.1@tcp} fast", -EINVAL, "rate 'fast' is not a number", "fast"},
		{"start a {10.0.0.1@tcp}x 5", -EINVAL, "'{10.0.0.1@tcp}x' has text after its '}'",
		 "{10"},
		{"start a {10.0.0.1@tcp} 5 6", -EINVAL, "'6' is not an option", "6"},
		{"start a {} 5", -EINVAL, "nid={} is empty", "{}"},
	};
	struct lne_tbf *tbf = policy("nid+jobid+opcode+uid+gid");
	struct lne_err err;
	char *cmd;
	size_t i;
	int rc;

	cmd_ok(tbf, "reg start x uid={7} rate=3", 0);
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		err.pos = -2;
		rc = lne_tbf_command(tbf, rows[i].cmd, 0, &err);
		ck_assert_msg(rc == rows[i].rc, "'%s': rc %d, want %d (%s)", rows[i].cmd, rc,
			      rows[i].rc, err.msg);
		ck_assert_msg(strstr(err.msg, rows[i].msg), "'%s': '%s' lacks '%s'", rows[i].cmd,
			      err.msg, rows[i].msg);
		/* The sentence quotes the command, then names the bad part. */
		ck_assert_msg(!strncmp(err.msg, rows[i].cmd, strlen(rows[i].cmd)), "'%s': '%s'",
			      rows[i].cmd, err.msg);
		ck_assert_msg(err.pos >= 0 && err.pos <= (int)strlen(rows[i].cmd), "'%s': pos %d",
			      rows[i].cmd, err.pos);
		if (rows[i].at)
			ck_assert_msg(!strncmp(rows[i].cmd + err.pos, rows[i].at,
					       strlen(rows[i].at)),
				      "'%s': pos %d points at '%s', not '%s'", rows[i].cmd, err.pos,
				      rows[i].cmd + err.pos, rows[i].at);
	}
	/* Nothing was changed by any of them. */
	ck_assert_str_eq(order(tbf, LNE_TBF_REG), "x default");
	ck_assert_str_eq(order(tbf, LNE_TBF_HP), "default");

	/* Limits: terms, values, length. */
	cmd = repeat("start a uid={1}", "&gid={2},uid={1}", 8, "");
	ck_assert_int_eq(lne_tbf_command(tbf, cmd, 0, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "more than 16 conditions"));
	free(cmd);
	cmd = repeat("start a uid={", "1 ", 65, "}");
	ck_assert_int_eq(lne_tbf_command(tbf, cmd, 0, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "more than 64 values in uid={...}"));
	free(cmd);
	cmd = repeat("start a jobid={", "x ", 2100, "}");
	ck_assert_int_eq(lne_tbf_command(tbf, cmd, 0, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "command is longer than 4096 bytes"));
	free(cmd);
	cmd = repeat("start a uid={", "1 ", 64, "}");
	cmd_ok(tbf, cmd, 0);
	free(cmd);
	lne_tbf_free(tbf);
}
END_TEST

START_TEST(parse_type_and_queues)
{
	struct lne_tbf *tbf = policy(NULL);
	struct lne_tbf_queue_info info;
	struct lne_err err;
	char buf[64];
	u8 mask;

	/* A rule may test only the fields that key its queue's classes. */
	ck_assert_int_eq(lne_tbf_command(tbf, "start a nid={10.0.0.1@tcp}&uid={5}", 0, &err),
			 -EINVAL);
	ck_assert_str_eq(err.msg, "start a nid={10.0.0.1@tcp}&uid={5}: the reg queue's classes "
				  "are keyed by nid, so a rule cannot test uid (use a type that "
				  "includes it)");
	ck_assert_int_eq(err.pos, 27);
	ck_assert_int_eq(lne_tbf_set_type(tbf, LNE_TBF_REG, "uid+nid", &err), 0);
	/* Without reg/hp, both queues or neither: hp still keys by nid. */
	ck_assert_int_eq(lne_tbf_command(tbf, "start a nid={10.0.0.1@tcp}&uid={5}", 0, &err),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "the hp queue's classes are keyed by nid"));
	ck_assert_str_eq(order(tbf, LNE_TBF_REG), "default");
	cmd_ok(tbf, "reg start a nid={10.0.0.1@tcp}&uid={5}", 0);
	cmd_ok(tbf, "start b nid={10.0.0.2@tcp}", 0);
	ck_assert_str_eq(order(tbf, LNE_TBF_REG), "b a default");
	ck_assert_str_eq(order(tbf, LNE_TBF_HP), "b default");
	/* stop without a queue needs the rule in both. */
	ck_assert_int_eq(lne_tbf_command(tbf, "stop a", 0, &err), -ENOENT);
	ck_assert_ptr_nonnull(strstr(err.msg, "no rule named 'a' in the hp queue"));
	ck_assert_str_eq(order(tbf, LNE_TBF_REG), "b a default");
	cmd_ok(tbf, "stop b", 0);
	ck_assert_str_eq(order(tbf, LNE_TBF_REG), "a default");
	ck_assert_str_eq(order(tbf, LNE_TBF_HP), "default");

	/* A type change that would orphan a rule's condition is refused. */
	ck_assert_int_eq(lne_tbf_set_type(tbf, LNE_TBF_REG, "nid", &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "rule 'a' of the reg queue tests uid"));
	lne_tbf_queue_info(tbf, LNE_TBF_REG, &info);
	ck_assert_uint_eq(info.fields, LNE_TBF_NID | LNE_TBF_UID);
	ck_assert_uint_eq(info.nrules, 2);
	ck_assert_uint_eq(info.depth, LNE_TBF_DEPTH_DEFAULT);

	ck_assert_int_eq(lne_tbf_type_parse("jobid+gid", &mask, &err), 0);
	ck_assert_uint_eq(mask, LNE_TBF_JOBID | LNE_TBF_GID);
	ck_assert_int_eq(lne_tbf_type_format(LNE_TBF_FIELDS, buf, sizeof(buf)), 24);
	ck_assert_str_eq(buf, "nid+jobid+opcode+uid+gid");
	ck_assert_int_eq(lne_tbf_type_parse("nid+", &mask, &err), -EINVAL);
	ck_assert_str_eq(err.msg, "nid+: '' is not a field (nid, jobid, opcode, uid, gid)");
	ck_assert_int_eq(lne_tbf_type_parse("uid+uid", &mask, &err), -EINVAL);
	ck_assert_str_eq(err.msg, "uid+uid: uid appears twice");
	ck_assert_int_eq(lne_tbf_type_parse("nid+project", &mask, &err), -EINVAL);
	ck_assert_int_eq(err.pos, 4);
	ck_assert_int_eq(lne_tbf_set_depth(tbf, LNE_TBF_REG, 0, 0, &err), -EINVAL);
	ck_assert_int_eq(lne_tbf_set_depth(tbf, LNE_TBF_REG, LNE_TBF_DEPTH_MAX + 1, 0, &err),
			 -EINVAL);
	ck_assert_int_eq(lne_tbf_set_limits(tbf, 0, 0, &err), -EINVAL);
	lne_tbf_free(tbf);

	ck_assert_int_eq(lne_tbf_new("ost-io", &tbf, &err), -EINVAL);
	ck_assert_str_eq(err.msg, "ost-io: service name may hold only letters, digits and '_'");
	ck_assert_int_eq(lne_tbf_new("", &tbf, &err), -EINVAL);
	ck_assert_int_eq(lne_tbf_new("a_service_name_that_is_too_long_", &tbf, &err), -EINVAL);
	ck_assert_int_eq(lne_tbf_new("mdt_readpage", &tbf, &err), 0);
	ck_assert_str_eq(lne_tbf_service(tbf), "mdt_readpage");
	lne_tbf_free(tbf);
}
END_TEST

START_TEST(format_round_trip)
{
	static const char *const cmds[] = {
		"start a nid={10.0.0.[1-4]@tcp 10.0.1.*@o2ib}&opcode={ost_read} rate=10",
		"start b jobid={dd.*},uid={1 2}&gid={3} rate=20 realtime=1",
		"start c nid={fe80::/10@tcp} rate=30 rank=a",
		"change default rate=77",
	};
	struct lne_tbf *a = policy("nid+jobid+opcode+uid+gid");
	struct lne_tbf *b = policy("nid+jobid+opcode+uid+gid");
	const struct lne_tbf_rule *r, *rules[16];
	char want[1024];
	int n = 0;
	size_t i;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		cmd_ok(a, cmds[i], 0);
	for (r = NULL; (r = lne_tbf_rule_next(a, LNE_TBF_REG, r));)
		rules[n++] = r;
	/* Replayed last to first, the commands rebuild the same list. */
	while (n--)
		cmd_ok(b, rule_text(rules[n]), 0);
	ck_assert_str_eq(order(b, LNE_TBF_REG), order(a, LNE_TBF_REG));
	for (r = NULL; (r = lne_tbf_rule_next(a, LNE_TBF_REG, r));) {
		snprintf(want, sizeof(want), "%s", rule_text(r));
		ck_assert_str_eq(rule_text(lne_tbf_rule_find(b, LNE_TBF_REG, r->name)), want);
	}
	ck_assert_str_eq(order(b, LNE_TBF_REG), "b c a default");
	lne_tbf_free(a);
	lne_tbf_free(b);
}
END_TEST

/* --- rules and classes ------------------------------------------------------------------ */

static const char *rule_of(struct lne_tbf *tbf, enum lne_tbf_queue q, const char *nid,
			   const char *jobid, u32 opcode, u32 uid, u32 gid)
{
	struct lne_tbf_req r;
	const struct lne_tbf_class *c;
	const char *name;
	u64 next;

	req_set(&r, nid, jobid, opcode, uid, gid);
	ck_assert_int_eq(lne_tbf_enqueue(tbf, &r, q, 0), 0);
	c = lne_tbf_class_find(tbf, q, &r);
	ck_assert_ptr_eq(c, r.cls);
	name = lne_tbf_class_rule(tbf, c)->name;
	ck_assert_str_eq(c->rule->name, name);
	ck_assert_ptr_eq(lne_tbf_dequeue_queue(tbf, q, 0, &next), &r);
	return name;
}

START_TEST(matching)
{
	struct lne_tbf *tbf = policy("nid+jobid+opcode+uid+gid");

	cmd_ok(tbf, "start jobs jobid={dd.* *.1000 exact}", 0);
	cmd_ok(tbf, "start io nid={192.168.1.[1-128]@tcp}&opcode={ost_write ost_read} rate=5", 0);
	cmd_ok(tbf, "start users uid={500 501}&gid={100},uid={0}", 0);
	cmd_ok(tbf, "start six nid={2001:db8::/64@o2ib}", 0);
	ck_assert_str_eq(order(tbf, LNE_TBF_REG), "six users io jobs default");

	ck_assert_str_eq(rule_of(tbf, LNE_TBF_REG, "10.0.0.1@tcp", "dd.42", 1, 9, 9), "jobs");
	ck_assert_str_eq(rule_of(tbf, LNE_TBF_REG, "10.0.0.1@tcp", "make.1000", 1, 9, 9), "jobs");
	ck_assert_str_eq(rule_of(tbf, LNE_TBF_REG, "10.0.0.1@tcp", "dd", 1, 9, 9), "default");
	ck_assert_str_eq(rule_of(tbf, LNE_TBF_REG, "10.0.0.1@tcp", "exact", 1, 9, 9), "jobs");
	ck_assert_str_eq(rule_of(tbf, LNE_TBF_REG, "10.0.0.1@tcp", "exactly", 1, 9, 9), "default");
	ck_assert_str_eq(rule_of(tbf, LNE_TBF_REG, "192.168.1.7@tcp", "", 4, 9, 9), "io");
	ck_assert_str_eq(rule_of(tbf, LNE_TBF_REG, "192.168.1.7@tcp", "", 3, 9, 9), "io");
	ck_assert_str_eq(rule_of(tbf, LNE_TBF_REG, "192.168.1.7@tcp", "", 5, 9, 9), "default");
	ck_assert_str_eq(rule_of(tbf, LNE_TBF_REG, "192.168.1.200@tcp", "", 4, 9, 9), "default");
	/* '&' binds tighter than ',': (uid 500|501 and gid 100) or uid 0. */
	ck_assert_str_eq(rule_of(tbf, LNE_TBF_REG, "10.0.0.1@tcp", "", 1, 500, 100), "users");
	ck_assert_str_eq(rule_of(tbf, LNE_TBF_REG, "10.0.0.1@tcp", "", 1, 501, 101), "default");
	ck_assert_str_eq(rule_of(tbf, LNE_TBF_REG, "10.0.0.1@tcp", "", 1, 0, 101), "users");
	/* A rule earlier in the list wins. */
	ck_assert_str_eq(rule_of(tbf, LNE_TBF_REG, "192.168.1.7@tcp", "dd.1", 4, 0, 0), "users");
	ck_assert_str_eq(rule_of(tbf, LNE_TBF_REG, "2001:db8::5@o2ib", "", 1, 9, 9), "six");
	ck_assert_str_eq(rule_of(tbf, LNE_TBF_REG, "2001:db8:1::5@o2ib", "", 1, 9, 9), "default");
	ck_assert_str_eq(rule_of(tbf, LNE_TBF_REG, "10.0.0.1@tcp", "", 1, 0, 0), "users");
	lne_tbf_free(tbf);
}
END_TEST

START_TEST(rank_change_stop)
{
	struct lne_tbf *tbf = policy(NULL);
	const struct lne_tbf_class *c;
	struct lne_tbf_req r;
	char key[64];
	u64 next;

	cmd_ok(tbf, "start a nid={10.0.0.*@tcp} rate=10", 0);
	cmd_ok(tbf, "start b nid={10.0.0.[1-9]@tcp} rate=20", 0);
	ck_assert_str_eq(order(tbf, LNE_TBF_REG), "b a default"); /* newest first */
	cmd_ok(tbf, "start c nid={10.0.0.1@tcp} rate=30 rank=a", 0);
	ck_assert_str_eq(order(tbf, LNE_TBF_REG), "b c a default");
	cmd_ok(tbf, "change b rank=default", 0);
	ck_assert_str_eq(order(tbf, LNE_TBF_REG), "c a b default");
	cmd_ok(tbf, "change b rank=c", 0);
	ck_assert_str_eq(order(tbf, LNE_TBF_REG), "b c a default");
	cmd_ok(tbf, "change c rank=b rate=31", 0);
	ck_assert_str_eq(order(tbf, LNE_TBF_REG), "c b a default");
	ck_assert_uint_eq(lne_tbf_rule_find(tbf, LNE_TBF_REG, "c")->rate, 31);

	/* A class follows the first match; idle, it re-matches on next use. */
	req_set(&r, "10.0.0.1@tcp", NULL, 0, 0, 0);
	ck_assert_int_eq(lne_tbf_enqueue(tbf, &r, LNE_TBF_REG, 0), 0);
	c = r.cls;
	ck_assert_int_eq(lne_tbf_class_format(c, key, sizeof(key)), 16);
	ck_assert_str_eq(key, "nid=10.0.0.1@tcp");
	ck_assert_str_eq(c->rule->name, "c");
	ck_assert_ptr_eq(lne_tbf_dequeue(tbf, 0, &next), &r);
	ck_assert_uint_eq(lne_tbf_rule_find(tbf, LNE_TBF_REG, "c")->nclasses, 1);
	cmd_ok(tbf, "stop c", 1);
	ck_assert_ptr_null(c->rule); /* detached, not yet re-matched */
	ck_assert_str_eq(lne_tbf_class_rule(tbf, c)->name, "b");
	ck_assert_int_eq(lne_tbf_enqueue(tbf, &r, LNE_TBF_REG, 2), 0);
	ck_assert_str_eq(c->rule->name, "b");
	ck_assert_uint_eq(c->rate, 20);
	ck_assert_uint_eq(lne_tbf_rule_find(tbf, LNE_TBF_REG, "b")->nclasses, 1);
	ck_assert_uint_eq(lne_tbf_rule_find(tbf, LNE_TBF_REG, "b")->stats.queued, 1);
	ck_assert_ptr_eq(lne_tbf_dequeue(tbf, 2, &next), &r);
	/* A new rule takes the idle class over on its next request. */
	cmd_ok(tbf, "start d nid={10.0.0.1@tcp} rate=40", 3);
	ck_assert_str_eq(c->rule->name, "b");
	ck_assert_str_eq(lne_tbf_class_rule(tbf, c)->name, "d");
	ck_assert_int_eq(lne_tbf_enqueue(tbf, &r, LNE_TBF_REG, 4), 0);
	ck_assert_str_eq(c->rule->name, "d");
	ck_assert_uint_eq(lne_tbf_rule_find(tbf, LNE_TBF_REG, "b")->nclasses, 0);
	ck_assert_uint_eq(lne_tbf_rule_find(tbf, LNE_TBF_REG, "b")->stats.queued, 0);
	ck_assert_ptr_eq(lne_tbf_dequeue(tbf, 4, &next), &r);
	cmd_ok(tbf, "stop d", 5);
	cmd_ok(tbf, "stop b", 5);
	cmd_ok(tbf, "stop a", 5);
	ck_assert_str_eq(order(tbf, LNE_TBF_REG), "default");
	ck_assert_str_eq(lne_tbf_class_rule(tbf, c)->name, "default");
	lne_tbf_free(tbf);
}
END_TEST

/* A class with queued requests moves to its new rule (and rate) at once. */
START_TEST(rematch_queued_class)
{
	struct lne_tbf *tbf = policy(NULL);
	struct treq *t = treqs(20);
	u64 now = 0, next = 0, n[1] = {0};
	int i;

	cmd_ok(tbf, "start slow nid={10.0.0.1@tcp} rate=1", 0);
	for (i = 0; i < 20; i++) {
		req_set(&t[i].r, "10.0.0.1@tcp", NULL, 0, 0, 0);
		ck_assert_int_eq(lne_tbf_enqueue(tbf, &t[i].r, LNE_TBF_REG, 0), 0);
	}
	for (i = 0; i < 3; i++) /* the burst */
		ck_assert_ptr_eq(lne_tbf_dequeue(tbf, 0, &next), &t[i].r);
	ck_assert_ptr_null(lne_tbf_dequeue(tbf, 0, &next));
	ck_assert_uint_eq(next, SEC);
	/* Half a token earned at 1/s becomes half a token at 1000/s: 0.5 ms. */
	cmd_ok(tbf, "change slow rate=1000", SEC / 2);
	ck_assert_ptr_null(lne_tbf_dequeue(tbf, SEC / 2, &next));
	ck_assert_uint_eq(next, SEC / 2 + 500000);
	/* Stopped: the class follows the default rule (10000/s) right away. */
	cmd_ok(tbf, "stop slow", SEC / 2 + 100000);
	ck_assert_ptr_null(lne_tbf_dequeue(tbf, SEC / 2 + 100000, &next));
	/* 0.4 ms of 1000/s owed = 0.4 tokens = 40 us at 10000/s. */
	ck_assert_uint_eq(next, SEC / 2 + 100000 + 40000);
	ck_assert_str_eq(t[3].r.cls->rule->name, "default");
	now = next;
	serve(tbf, &now, now + SEC / 1000 - 1, 0, n);
	ck_assert_uint_eq(n[0], 10); /* 10000/s for 1 ms */
	/* The default rule's rate can change; it applies to queued classes now. */
	cmd_ok(tbf, "change default rate=2", now);
	ck_assert_ptr_null(lne_tbf_dequeue(tbf, now, &next));
	ck_assert_uint_eq(next, now + SEC / 2); /* one token owed, now worth 0.5 s */
	lne_tbf_free(tbf);
	free(t);
}
END_TEST

/* --- the scheduler ------------------------------------------------------------------------ */

/* Several classes under different rules, each backlogged: each gets its rate. */
START_TEST(rates_under_overload)
{
	static const struct {
		const char *nid;
		u32 rate;
	} cls[] = {
		{"10.0.0.1@tcp", 50},	 {"10.0.0.2@tcp", 50},	 {"10.0.0.4@tcp", 333},
		{"10.0.0.5@tcp", 333},	 {"10.0.0.7@tcp", 1000}, {"10.0.0.9@tcp", 1000},
		{"10.0.0.10@tcp", 77},	 {"10.0.0.11@tcp", 77},	 {"::1@tcp", 0},
		{"10.0.1.1@o2ib", 7919},
	};
	enum {
		PER = 8,
		N = sizeof(cls) / sizeof(cls[0])
	};
	struct lne_tbf *tbf = policy(NULL);
	struct treq *t = treqs(N * PER);
	u64 now = 0, count[N] = {0};
	int i, j;

	cmd_ok(tbf, "start slow nid={10.0.0.[1-3]@tcp} rate=50", 0);
	cmd_ok(tbf, "start mid nid={10.0.0.[4-6]@tcp} rate=333", 0);
	cmd_ok(tbf, "start fast nid={10.0.0.[7-9]@tcp} rate=1000", 0);
	cmd_ok(tbf, "start big {*@o2ib} 7919", 0);
	cmd_ok(tbf, "change default rate=77", 0);
	for (i = 0; i < N; i++) {
		for (j = 0; j < PER; j++) {
			struct treq *q = &t[i * PER + j];

			req_set(&q->r, cls[i].nid, NULL, 0, 0, 0); /* rate 0: the default */
			q->who = i;
			ck_assert_int_eq(lne_tbf_enqueue(tbf, &q->r, LNE_TBF_REG, 0), 0);
		}
	}
	serve(tbf, &now, 10 * SEC, 0, count);
	for (i = 0; i < N; i++) {
		u64 want = (cls[i].rate ? cls[i].rate : 77) * 10ull;

		ck_assert_msg(count[i] * 100 >= want * 99 && count[i] * 100 <= want * 101,
			      "class %d: %llu dispatches in 10 s, want %llu +- 1%%", i,
			      (unsigned long long)count[i], (unsigned long long)want);
		/* Exactly: the burst, then one per 1/rate s, 10 s included. */
		ck_assert_uint_eq(count[i], want + LNE_TBF_DEPTH_DEFAULT);
	}
	lne_tbf_free(tbf);
	free(t);
}
END_TEST

/*
 * A server that cannot keep up (1000/s for 15010/s asked): every class
 * progresses, and the service is shared in proportion to the rates.
 */
START_TEST(no_starvation)
{
	enum {
		N = 52,
		PER = 4
	};
	struct lne_tbf *tbf = policy(NULL);
	struct treq *t = treqs(N * PER);
	u64 now = 0, count[N] = {0}, total = 0;
	char nid[32];
	int i, j;

	cmd_ok(tbf, "start ten nid={10.0.0.1@tcp} rate=10", 0);
	cmd_ok(tbf, "start hog nid={10.0.0.2@tcp} rate=10000", 0);
	cmd_ok(tbf, "change default rate=100", 0); /* the other 50 classes */
	for (i = 0; i < N; i++) {
		snprintf(nid, sizeof(nid), "10.0.0.%d@tcp", i + 1);
		for (j = 0; j < PER; j++) {
			req_set(&t[i * PER + j].r, nid, NULL, 0, 0, 0);
			t[i * PER + j].who = i;
			ck_assert_int_eq(lne_tbf_enqueue(tbf, &t[i * PER + j].r, LNE_TBF_REG, 0),
					 0);
		}
	}
	serve(tbf, &now, 10 * SEC - 1, SEC / 1000, count);
	for (i = 0; i < N; i++)
		total += count[i];
	ck_assert_uint_eq(total, 10000);
	/* Shares of 10000: 10/15010 -> 6.7, 10000/15010 -> 6662, 100/15010 -> 66.6. */
	ck_assert_msg(count[0] >= 6 && count[0] <= 8, "ten: %llu", (unsigned long long)count[0]);
	ck_assert_msg(count[1] >= 6600 && count[1] <= 6730, "hog: %llu",
		      (unsigned long long)count[1]);
	for (i = 2; i < N; i++)
		ck_assert_msg(count[i] >= 63 && count[i] <= 70, "class %d: %llu", i,
			      (unsigned long long)count[i]);
	lne_tbf_free(tbf);
	free(t);
}
END_TEST

/* rate=3 for 10 s: exactly 30 tokens plus the burst, however often polled. */
START_TEST(no_fraction_lost)
{
	/* Up to 1/3 s: the bucket (3 tokens) never overflows between polls. */
	static const u64 polls[] = {1000003, 7000000, 123456789, 333333333};
	struct lne_tbf *tbf;
	struct treq t[64];
	u64 now, next, count;
	size_t p;
	int i;

	for (p = 0; p < sizeof(polls) / sizeof(polls[0]); p++) {
		tbf = policy(NULL);
		cmd_ok(tbf, "start three nid={10.0.0.3@tcp} rate=3", 0);
		for (i = 0; i < 64; i++) {
			req_set(&t[i].r, "10.0.0.3@tcp", NULL, 0, 0, 0);
			ck_assert_int_eq(lne_tbf_enqueue(tbf, &t[i].r, LNE_TBF_REG, 0), 0);
		}
		/* A caller that polls every polls[p] ns and at 10 s, not at deadlines. */
		count = 0;
		for (now = 0;; now += polls[p]) {
			if (now > 10 * SEC)
				now = 10 * SEC;
			while (lne_tbf_dequeue(tbf, now, &next))
				count++;
			if (now == 10 * SEC)
				break;
		}
		ck_assert_msg(count == 33, "polling every %llu ns: %llu dispatches",
			      (unsigned long long)polls[p], (unsigned long long)count);
		ck_assert_uint_eq(next, 10 * SEC + SEC / 3 + 1);
		lne_tbf_free(tbf);
	}

	/* Polled at its deadlines, dispatch k happens at ceil(k * 1e9 / 3) ns. */
	tbf = policy(NULL);
	cmd_ok(tbf, "change default rate=3", 0);
	for (i = 0; i < 64; i++) {
		req_set(&t[i].r, "10.0.0.3@tcp", NULL, 0, 0, 0);
		ck_assert_int_eq(lne_tbf_enqueue(tbf, &t[i].r, LNE_TBF_REG, 0), 0);
	}
	for (i = 0; i < 3; i++)
		ck_assert_ptr_nonnull(lne_tbf_dequeue(tbf, 0, &next));
	for (i = 1; i <= 60; i++) {
		u64 want = (i * SEC + 2) / 3;

		ck_assert_ptr_null(lne_tbf_dequeue(tbf, want - 1, &next));
		ck_assert_uint_eq(next, want);
		ck_assert_ptr_nonnull(lne_tbf_dequeue(tbf, want, &next));
	}
	lne_tbf_free(tbf);
}
END_TEST

/* 10^9 requests per second with a 10^6 token bucket, late in the clock. */
START_TEST(highest_rate)
{
	struct lne_tbf *tbf = policy(NULL);
	u64 t0 = LNE_TBF_TIME_MAX - 2000000 * SEC, now = t0, next = 0, count[1] = {0};
	struct lne_err err;
	struct treq t[16];
	int i;

	ck_assert_int_eq(lne_tbf_set_depth(tbf, LNE_TBF_REG, LNE_TBF_DEPTH_MAX, 0, &err), 0);
	cmd_ok(tbf, "change default rate=1000000000", 0);
	memset(t, 0, sizeof(t));
	for (i = 0; i < 16; i++) {
		req_set(&t[i].r, "10.0.0.1@tcp", NULL, 0, 0, 0);
		ck_assert_int_eq(lne_tbf_enqueue(tbf, &t[i].r, LNE_TBF_REG, now), 0);
	}
	/* The burst at t0, then one per ns: 10^6 + 10^6 by t0 + 1 ms. */
	serve(tbf, &now, t0 + 1000000, 0, count);
	ck_assert_uint_eq(count[0], 2000000);
	ck_assert_ptr_null(lne_tbf_dequeue(tbf, t0 + 1000000, &next));
	ck_assert_uint_eq(next, t0 + 1000001);
	/* Down to 1/s and back with the deepest bucket: credit converts, no wrap. */
	cmd_ok(tbf, "change default rate=1", t0 + 1000000);
	ck_assert_ptr_null(lne_tbf_dequeue(tbf, t0 + 1000000, &next));
	ck_assert_uint_eq(next, t0 + 1000000 + SEC);
	/* Unserved for ~11.6 days: the bucket refills to 10^6 tokens exactly. */
	now = t0 + 1000000 + LNE_TBF_DEPTH_MAX * SEC;
	cmd_ok(tbf, "change default rate=1000000000", now);
	count[0] = 0;
	serve(tbf, &now, now, 0, count);
	ck_assert_uint_eq(count[0], LNE_TBF_DEPTH_MAX);
	lne_tbf_free(tbf);
}
END_TEST

START_TEST(hp_before_reg)
{
	struct lne_tbf *tbf = policy(NULL);
	struct lne_tbf_req reg, hp, rt, plain;
	u64 next;

	req_set(&reg, "10.0.0.1@tcp", NULL, 0, 0, 0);
	req_set(&hp, "10.0.0.1@tcp", NULL, 0, 0, 0);
	ck_assert_int_eq(lne_tbf_enqueue(tbf, &reg, LNE_TBF_REG, 0), 0);
	ck_assert_int_eq(lne_tbf_enqueue(tbf, &hp, LNE_TBF_HP, 1), 0);
	ck_assert_ptr_eq(lne_tbf_dequeue(tbf, 1, &next), &hp);
	ck_assert_ptr_eq(lne_tbf_dequeue(tbf, 1, &next), &reg);
	ck_assert_ptr_null(lne_tbf_dequeue(tbf, 1, &next));
	ck_assert_uint_eq(next, LNE_TBF_NEVER);

	/*
	 * An hp class without a token does not hold a ready reg request back.
	 * Two tokens of its burst are left, carried over to the new rate.
	 */
	cmd_ok(tbf, "hp change default rate=1", 1);
	ck_assert_int_eq(lne_tbf_enqueue(tbf, &hp, LNE_TBF_HP, 1), 0);
	ck_assert_ptr_eq(lne_tbf_dequeue(tbf, 1, &next), &hp);
	ck_assert_int_eq(lne_tbf_enqueue(tbf, &hp, LNE_TBF_HP, 1), 0);
	ck_assert_ptr_eq(lne_tbf_dequeue(tbf, 1, &next), &hp);
	ck_assert_int_eq(lne_tbf_enqueue(tbf, &hp, LNE_TBF_HP, 2), 0);
	ck_assert_int_eq(lne_tbf_enqueue(tbf, &reg, LNE_TBF_REG, 2), 0);
	ck_assert_ptr_eq(lne_tbf_dequeue(tbf, 2, &next), &reg);
	ck_assert_ptr_null(lne_tbf_dequeue(tbf, 2, &next));
	ck_assert_uint_eq(next, 1 + SEC);
	ck_assert_ptr_null(lne_tbf_dequeue_queue(tbf, LNE_TBF_REG, 2, &next));
	ck_assert_uint_eq(next, LNE_TBF_NEVER);
	ck_assert_ptr_eq(lne_tbf_dequeue(tbf, 1 + SEC, &next), &hp);

	/* Realtime classes go before the others of their queue, earlier or not. */
	cmd_ok(tbf, "reg start rt nid={10.0.0.9@tcp} realtime=1", 3 * SEC);
	req_set(&plain, "10.0.0.8@tcp", NULL, 0, 0, 0);
	req_set(&rt, "10.0.0.9@tcp", NULL, 0, 0, 0);
	ck_assert_int_eq(lne_tbf_enqueue(tbf, &plain, LNE_TBF_REG, 3 * SEC), 0);
	ck_assert_int_eq(lne_tbf_enqueue(tbf, &rt, LNE_TBF_REG, 3 * SEC + 5), 0);
	ck_assert_ptr_eq(lne_tbf_dequeue(tbf, 3 * SEC + 5, &next), &rt);
	ck_assert_ptr_eq(lne_tbf_dequeue(tbf, 3 * SEC + 5, &next), &plain);
	lne_tbf_free(tbf);
}
END_TEST

/* rate=2, depth 1, by hand: see the comments for each step. */
START_TEST(statistics)
{
	struct lne_tbf *tbf = policy(NULL);
	const struct lne_tbf_rule *two, *dflt;
	const struct lne_tbf_class *c;
	struct lne_tbf_req a[4], other;
	struct lne_err err;
	u64 next;
	int i;

	ck_assert_int_eq(lne_tbf_set_depth(tbf, LNE_TBF_REG, 1, 0, &err), 0);
	cmd_ok(tbf, "reg start two nid={10.0.0.1@tcp} rate=2", 0);
	two = lne_tbf_rule_find(tbf, LNE_TBF_REG, "two");
	dflt = lne_tbf_rule_find(tbf, LNE_TBF_REG, "default");
	for (i = 0; i < 4; i++)
		req_set(&a[i], "10.0.0.1@tcp", NULL, 0, 0, 0);
	req_set(&other, "10.0.0.2@tcp", NULL, 0, 0, 0);
	/* t=0: a0 a1 a2 queued; a0 leaves at once (wait 0), a1 is throttled. */
	for (i = 0; i < 3; i++)
		ck_assert_int_eq(lne_tbf_enqueue(tbf, &a[i], LNE_TBF_REG, 0), 0);
	c = a[0].cls;
	ck_assert_uint_eq(c->stats.queued, 3);
	ck_assert_ptr_eq(lne_tbf_dequeue(tbf, 0, &next), &a[0]);
	ck_assert_ptr_null(lne_tbf_dequeue(tbf, 0, &next));
	ck_assert_uint_eq(next, SEC / 2);
	/* t=0.5: a1 (waited 0.5 s); a2 throttled. */
	ck_assert_ptr_eq(lne_tbf_dequeue(tbf, SEC / 2, &next), &a[1]);
	/* t=1.2: a2 (waited 1.2 s), late; the next token is at 1.7. */
	ck_assert_ptr_null(lne_tbf_dequeue(tbf, SEC / 2 + 1, &next));
	ck_assert_ptr_eq(lne_tbf_dequeue(tbf, 1200000000, &next), &a[2]);
	/* t=1.5: a3 arrives at an empty class with no token: throttled. */
	ck_assert_int_eq(lne_tbf_enqueue(tbf, &a[3], LNE_TBF_REG, 1500000000), 0);
	/* Another class, never throttled, under the default rule. */
	ck_assert_int_eq(lne_tbf_enqueue(tbf, &other, LNE_TBF_REG, 1500000000), 0);
	ck_assert_ptr_eq(lne_tbf_dequeue(tbf, 1600000000, &next), &other);
	ck_assert_ptr_null(lne_tbf_dequeue(tbf, 1600000000, &next));
	ck_assert_uint_eq(next, 1700000000);
	/* t=1.7: a3 (waited 0.2 s). */
	ck_assert_ptr_eq(lne_tbf_dequeue(tbf, 1700000000, &next), &a[3]);

	ck_assert_uint_eq(c->stats.enqueued, 4);
	ck_assert_uint_eq(c->stats.dispatched, 4);
	ck_assert_uint_eq(c->stats.queued, 0);
	ck_assert_uint_eq(c->stats.throttled, 3);
	ck_assert_uint_eq(c->stats.wait_ns, 1900000000);
	ck_assert_mem_eq(&two->stats, &c->stats, sizeof(c->stats));
	ck_assert_uint_eq(dflt->stats.enqueued, 1);
	ck_assert_uint_eq(dflt->stats.dispatched, 1);
	ck_assert_uint_eq(dflt->stats.throttled, 0);
	ck_assert_uint_eq(dflt->stats.wait_ns, 100000000);
	ck_assert_uint_eq(two->nclasses, 1);
	ck_assert_uint_eq(dflt->nclasses, 1);
	lne_tbf_free(tbf);
}
END_TEST

START_TEST(cancel_and_free)
{
	struct lne_tbf *tbf = policy(NULL);
	struct lne_tbf_queue_info info;
	struct lne_tbf_req r[3], keep;
	u64 next;
	int i;

	for (i = 0; i < 3; i++) {
		req_set(&r[i], "10.0.0.1@tcp", NULL, 0, 0, 0);
		ck_assert_int_eq(lne_tbf_enqueue(tbf, &r[i], LNE_TBF_REG, 0), 0);
	}
	lne_tbf_cancel(tbf, &r[1], 0);
	ck_assert_ptr_null(r[1].cls);
	lne_tbf_cancel(tbf, &r[1], 0); /* not queued: nothing */
	ck_assert_ptr_eq(lne_tbf_dequeue(tbf, 0, &next), &r[0]);
	lne_tbf_cancel(tbf, &r[2], 0);
	lne_tbf_queue_info(tbf, LNE_TBF_REG, &info);
	ck_assert_uint_eq(info.queued, 0);
	ck_assert_uint_eq(info.nactive, 0);
	ck_assert_uint_eq(info.nclasses, 1);
	ck_assert_ptr_null(lne_tbf_dequeue(tbf, 0, &next));
	ck_assert_uint_eq(next, LNE_TBF_NEVER);
	ck_assert_uint_eq(lne_tbf_rule_find(tbf, LNE_TBF_REG, "default")->stats.queued, 0);

	/* Freeing a policy with queued requests leaves them to the caller, unlinked. */
	req_set(&keep, "10.0.0.2@tcp", NULL, 0, 0, 0);
	ck_assert_int_eq(lne_tbf_enqueue(tbf, &keep, LNE_TBF_HP, 0), 0);
	ck_assert_int_eq(lne_tbf_enqueue(tbf, &r[0], LNE_TBF_REG, 0), 0);
	lne_tbf_free(tbf);
	ck_assert_ptr_null(keep.cls);
	ck_assert_ptr_eq(keep.link.next, &keep.link);
	ck_assert_ptr_null(r[0].cls);
}
END_TEST

START_TEST(class_limit_and_reclaim)
{
	struct lne_tbf *tbf = policy("jobid+uid");
	struct lne_tbf_queue_info info;
	const struct lne_tbf_class *c;
	struct lne_tbf_req r[4];
	struct lne_err err;
	char key[64];
	u64 next;
	int i, n;

	ck_assert_int_eq(lne_tbf_set_limits(tbf, 2, SEC, &err), 0);
	req_set(&r[0], "10.0.0.1@tcp", "dd.1", 0, 500, 0);
	req_set(&r[1], "10.0.0.2@tcp", "dd.1", 0, 500, 0); /* the same class: no nid in the key */
	req_set(&r[2], "10.0.0.1@tcp", "dd.1", 0, 501, 0);
	req_set(&r[3], "10.0.0.1@tcp", "cc.2", 0, 500, 0);
	ck_assert_int_eq(lne_tbf_enqueue(tbf, &r[0], LNE_TBF_REG, 0), 0);
	ck_assert_int_eq(lne_tbf_enqueue(tbf, &r[1], LNE_TBF_REG, 0), 0);
	ck_assert_ptr_eq(r[0].cls, r[1].cls);
	ck_assert_int_eq(lne_tbf_class_format(r[0].cls, key, sizeof(key)), 18);
	ck_assert_str_eq(key, "jobid=dd.1 uid=500");
	ck_assert_int_eq(lne_tbf_enqueue(tbf, &r[2], LNE_TBF_REG, 0), 0);
	/* At the limit with every class busy: refused, nothing queued. */
	ck_assert_int_eq(lne_tbf_enqueue(tbf, &r[3], LNE_TBF_REG, 0), -ENOSPC);
	ck_assert_ptr_null(r[3].cls);
	/* Once a class is idle, a new one takes the place of the longest idle. */
	lne_tbf_cancel(tbf, &r[2], 5);
	ck_assert_ptr_eq(lne_tbf_dequeue(tbf, 10, &next), &r[0]);
	ck_assert_ptr_eq(lne_tbf_dequeue(tbf, 10, &next), &r[1]);
	ck_assert_int_eq(lne_tbf_enqueue(tbf, &r[3], LNE_TBF_REG, 10), 0);
	lne_tbf_queue_info(tbf, LNE_TBF_REG, &info);
	ck_assert_uint_eq(info.nclasses, 2);
	ck_assert_ptr_null(lne_tbf_class_find(tbf, LNE_TBF_REG, &r[2]));
	ck_assert_ptr_nonnull(lne_tbf_class_find(tbf, LNE_TBF_REG, &r[0]));
	ck_assert_ptr_eq(lne_tbf_dequeue(tbf, 10, &next), &r[3]);

	/* Reclaim: idle for idle_ns, and a full bucket (at 10000/s, soon). */
	ck_assert_uint_eq(lne_tbf_reclaim(tbf, SEC + 9), 0);
	ck_assert_uint_eq(lne_tbf_reclaim(tbf, SEC + 10), 2);
	lne_tbf_queue_info(tbf, LNE_TBF_REG, &info);
	ck_assert_uint_eq(info.nclasses, 0);
	ck_assert_ptr_null(lne_tbf_class_next(tbf, LNE_TBF_REG, NULL));

	/* A bucket still filling is kept, even when idle long enough. */
	cmd_ok(tbf, "change default rate=1", 2 * SEC);
	for (i = 0; i < 3; i++) {
		ck_assert_int_eq(lne_tbf_enqueue(tbf, &r[0], LNE_TBF_REG, 2 * SEC), 0);
		ck_assert_ptr_eq(lne_tbf_dequeue(tbf, 2 * SEC, &next), &r[0]);
	}
	ck_assert_uint_eq(lne_tbf_reclaim(tbf, 4 * SEC), 0);
	ck_assert_uint_eq(lne_tbf_reclaim(tbf, 5 * SEC), 1);

	/* The walk sees each class once; enqueue reclaims old idle ones too. */
	ck_assert_int_eq(lne_tbf_set_limits(tbf, 1000, SEC, &err), 0);
	cmd_ok(tbf, "change default rate=10000", 6 * SEC);
	for (i = 0; i < 300; i++) {
		req_set(&r[0], "10.0.0.1@tcp", "job", 0, (u32)i, 0);
		ck_assert_int_eq(lne_tbf_enqueue(tbf, &r[0], LNE_TBF_REG, 6 * SEC), 0);
		ck_assert_ptr_eq(lne_tbf_dequeue(tbf, 6 * SEC, &next), &r[0]);
	}
	for (n = 0, c = NULL; (c = lne_tbf_class_next(tbf, LNE_TBF_REG, c));)
		n++;
	ck_assert_int_eq(n, 300);
	req_set(&r[0], "10.0.0.1@tcp", "job", 0, 1000, 0);
	ck_assert_int_eq(lne_tbf_enqueue(tbf, &r[0], LNE_TBF_REG, 8 * SEC), 0);
	lne_tbf_queue_info(tbf, LNE_TBF_REG, &info);
	ck_assert_uint_eq(info.nclasses, 299); /* two freed, one made */
	ck_assert_ptr_eq(lne_tbf_dequeue(tbf, 8 * SEC, &next), &r[0]);

	/* A type change needs an empty queue, and drops the classes. */
	ck_assert_int_eq(lne_tbf_enqueue(tbf, &r[0], LNE_TBF_REG, 8 * SEC), 0);
	ck_assert_int_eq(lne_tbf_set_type(tbf, LNE_TBF_REG, "gid", &err), -EBUSY);
	ck_assert_ptr_nonnull(strstr(err.msg, "the reg queue holds 1 requests"));
	ck_assert_ptr_eq(lne_tbf_dequeue(tbf, 8 * SEC, &next), &r[0]);
	ck_assert_int_eq(lne_tbf_set_type(tbf, LNE_TBF_REG, "gid", &err), 0);
	lne_tbf_queue_info(tbf, LNE_TBF_REG, &info);
	ck_assert_uint_eq(info.nclasses, 0);
	ck_assert_uint_eq(lne_tbf_rule_find(tbf, LNE_TBF_REG, "default")->nclasses, 0);
	lne_tbf_free(tbf);
}
END_TEST

START_TEST(opcodes_table)
{
	ck_assert_int_eq(lne_tbf_opcode_lookup("ost_read", 8), 3);
	ck_assert_int_eq(lne_tbf_opcode_lookup("ost_write", 9), 4);
	ck_assert_int_eq(lne_tbf_opcode_lookup("mds_reint", 9), 36);
	ck_assert_int_eq(lne_tbf_opcode_lookup("ldlm_enqueue", 12), 101);
	ck_assert_int_eq(lne_tbf_opcode_lookup("ost_readx", 9), -ENOENT);
	ck_assert_int_eq(lne_tbf_opcode_lookup("ost_readx", 8), 3);
	ck_assert_str_eq(lne_tbf_opcode_name(400), "obd_ping");
	ck_assert_ptr_null(lne_tbf_opcode_name(14));
}
END_TEST

Suite *make_tbf_suite(void)
{
	Suite *s = suite_create("tbf");
	TCase *tc = tcase_create("tbf");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, parse_good);
	tcase_add_test(tc, parse_bad);
	tcase_add_test(tc, parse_type_and_queues);
	tcase_add_test(tc, format_round_trip);
	tcase_add_test(tc, matching);
	tcase_add_test(tc, rank_change_stop);
	tcase_add_test(tc, rematch_queued_class);
	tcase_add_test(tc, rates_under_overload);
	tcase_add_test(tc, no_starvation);
	tcase_add_test(tc, no_fraction_lost);
	tcase_add_test(tc, highest_rate);
	tcase_add_test(tc, hp_before_reg);
	tcase_add_test(tc, statistics);
	tcase_add_test(tc, cancel_and_free);
	tcase_add_test(tc, class_limit_and_reclaim);
	tcase_add_test(tc, opcodes_table);
	suite_add_tcase(s, tc);
	return s;
}
