// SPDX-License-Identifier: GPL-2.0
/*
 * NRS TBF: the rule grammar (both syntaxes), its errors, the queue types,
 * and formatting rules back; with the helpers the suite shares
 * (test-tbf.h).  Rule order, matching and re-matching, and the scheduler
 * on a virtual clock are in test-tbf-sched.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/tbf.h"
#include "test-tbf.h"
#include "unit.h"

struct lne_tbf *policy(const char *type)
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

void cmd_ok(struct lne_tbf *tbf, const char *cmd, u64 now)
{
	struct lne_err err = {.pos = -2};

	ck_assert_msg(!lne_tbf_command(tbf, cmd, now, &err), "'%s': %s", cmd, err.msg);
}

/* The rule names of @q in match order, space separated. */
const char *order(struct lne_tbf *tbf, enum lne_tbf_queue q)
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
		{"start a foo={1}", -EINVAL,
		 "'foo' is not a field (nid, jobid, opcode, uid, gid, projid)", "foo"},
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
	ck_assert_int_eq(lne_tbf_type_format(LNE_TBF_FIELDS, buf, sizeof(buf)), 31);
	ck_assert_str_eq(buf, "nid+jobid+opcode+uid+gid+projid");
	ck_assert_int_eq(lne_tbf_type_parse("nid+", &mask, &err), -EINVAL);
	ck_assert_str_eq(err.msg, "nid+: '' is not a field (nid, jobid, opcode, uid, gid, projid)");
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

Suite *make_tbf_suite(void)
{
	Suite *s = suite_create("tbf");
	TCase *tc = tcase_create("tbf");

	tcase_add_test(tc, parse_good);
	tcase_add_test(tc, parse_bad);
	tcase_add_test(tc, parse_type_and_queues);
	tcase_add_test(tc, format_round_trip);
	tbf_sched_tests(tc);
	suite_add_tcase(s, tc);
	return s;
}
