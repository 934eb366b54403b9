// SPDX-License-Identifier: GPL-2.0
/*
 * lnetd's TBF layer for Lustre's services (lnetd/backend/lustre/lu-tbf.h):
 * versions and places, the listings Lustre prints (as they came out of a
 * 2.17.57 guest, and hostile ones), lnetd's policies in Lustre's terms
 * with every refusal, drift in words, and the writes that remove it,
 * checked against a model of Lustre's rule lists for random policies.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/tbf.h"
#include "lnetd/backend/lustre/lu-tbf.h"
#include "unit.h"

static const struct lutbf_version v2_17_57 = {2, 17, 57}, v2_15_8 = {2, 15, 8},
				  v2_16_1 = {2, 16, 1};

/* nrs_policies of ost_io in the guest, TBF started on both queues (abridged: no crrn/orr/trr). */
static const char policies_tbf[] =
	"\nregular_requests:\n"
	"  - name: fifo\n    state: started\n    fallback: yes\n    queued: 0                   \n"
	"    active: 0                   \n\n"
	"  - name: tbf nid\n    state: started\n    fallback: no\n    queued: 0                   \n"
	"    active: 0                   \n\n"
	"  - name: delay\n    state: stopped\n    fallback: no\n    queued: 0\n    active: 0\n\n"
	"high_priority_requests:\n"
	"  - name: fifo\n    state: started\n    fallback: yes\n    queued: 0\n    active: 0\n\n"
	"  - name: tbf nid\n    state: started\n    fallback: no\n    queued: 0\n    active: 0\n\n";

static const char policies_fifo_reg_only[] =
	"\nregular_requests:\n"
	"  - name: fifo\n    state: started\n    fallback: yes\n    queued: 0\n    active: 0\n\n"
	"  - name: tbf\n    state: stopped\n    fallback: no\n    queued: 0\n    active: 0\n\n";

/* nrs_tbf_rule after "start cli nid={0@lo} rate=10" on 2 CPTs */
static const char rules_2cpt[] = "regular_requests:\n"
				 "CPT 0:\n"
				 "cli nid={0@lo} 10, ref 1\n"
				 "default * 5000, ref 0\n"
				 "CPT 1:\n"
				 "cli nid={0@lo} 10, ref 0\n"
				 "default * 5000, ref 0\n"
				 "high_priority_requests:\n"
				 "CPT 0:\n"
				 "cli nid={0@lo} 10, ref 0\n"
				 "default * 5000, ref 0\n"
				 "CPT 1:\n"
				 "cli nid={0@lo} 10, ref 0\n"
				 "default * 5000, ref 0\n";

static struct lne_tbf *pol(const char *service, const char *type, const char *const *cmds)
{
	struct lne_err err = {.pos = -1};
	struct lne_tbf *tbf = NULL;
	int q;

	ck_assert_int_eq(lne_tbf_new(service, &tbf, &err), 0);
	for (q = 0; type && q < LNE_TBF_NQUEUES; q++)
		ck_assert_msg(!lne_tbf_set_type(tbf, (enum lne_tbf_queue)q, type, &err), "%s",
			      err.msg);
	for (; cmds && *cmds; cmds++)
		ck_assert_msg(!lne_tbf_command(tbf, *cmds, 0, &err), "%s: %s", *cmds, err.msg);
	return tbf;
}

static struct lutbf_caps caps(struct lutbf_version v, unsigned ncpt)
{
	struct lutbf_caps c = {.ver = v, .ncpt = ncpt, .has_hp = true, .depth = 3};

	return c;
}

/* Convert one rule command on @type; the wanted reg rule @name, or fail with @msg. */
static int conv1(const char *type, const char *cmd, struct lutbf_caps c, struct lutbf_want *w,
		 char *msg, size_t len)
{
	const char *cmds[] = {cmd, NULL};
	struct lne_tbf *tbf = pol("ost_io", type, cmd ? cmds : NULL);
	int rc;

	msg[0] = '\0';
	rc = lutbf_convert(tbf, &c, w, msg, len);
	lne_tbf_free(tbf);
	return rc;
}

static const struct lutbf_rule *wrule(const struct lutbf_want *w, int q, const char *name)
{
	size_t i;

	for (i = 0; i < w->q[q].rules.n; i++)
		if (!strcmp(w->q[q].rules.r[i].name, name))
			return &w->q[q].rules.r[i];
	ck_abort_msg("no wanted rule %s", name);
	abort();
}

START_TEST(versions_and_places)
{
	struct lutbf_version v;
	char msg[256], dir[256];

	ck_assert_int_eq(lutbf_version_parse("2.17.57\n", &v, msg, sizeof(msg)), 0);
	ck_assert(v.major == 2 && v.minor == 17 && v.patch == 57);
	ck_assert_int_eq(lutbf_version_parse("lustre: 2.12.9", &v, msg, sizeof(msg)), 0);
	ck_assert(v.major == 2 && v.minor == 12 && v.patch == 9);
	ck_assert_int_eq(lutbf_version_parse("2.16", &v, msg, sizeof(msg)), 0);
	ck_assert(v.minor == 16 && v.patch == 0);
	ck_assert_int_eq(lutbf_version_parse("2.15.8_1-g0a1b", &v, msg, sizeof(msg)), 0);
	ck_assert_int_eq(lutbf_version_parse("x2.17", &v, msg, sizeof(msg)), -EINVAL);
	ck_assert_str_eq(msg, "'x2.17' is not a Lustre version (e.g. 2.17.57)");
	ck_assert_int_eq(lutbf_version_parse("2.", &v, msg, sizeof(msg)), -EINVAL);
	ck_assert_int_eq(lutbf_version_parse("", &v, msg, sizeof(msg)), -EINVAL);
	ck_assert_int_eq(lutbf_version_parse("2.17.", &v, msg, sizeof(msg)), -EINVAL);
	ck_assert_int_eq(lutbf_version_parse("99999999999.1", &v, msg, sizeof(msg)), -EINVAL);
	ck_assert_int_lt(lutbf_version_cmp(&v2_16_1, 2, 17, 0), 0);
	ck_assert_int_eq(lutbf_version_cmp(&v2_15_8, 2, 15, 8), 0);
	ck_assert_int_gt(lutbf_version_cmp(&v2_17_57, 2, 17, 0), 0);

	ck_assert_int_eq(lutbf_service_dir("/d", "ost_io", dir, sizeof(dir), msg, sizeof(msg)), 0);
	ck_assert_str_eq(dir, "/d/lustre/ost/OSS/ost_io");
	ck_assert_int_eq(lutbf_service_dir(NULL, "mdt_fld", dir, sizeof(dir), msg, sizeof(msg)), 0);
	ck_assert_str_eq(dir, "/sys/kernel/debug/lustre/mds/MDS/mdt_fld");
	ck_assert_int_eq(lutbf_service_dir("/d", "ldlm_canceld", dir, sizeof(dir), msg, 256), 0);
	ck_assert_str_eq(dir, "/d/lustre/ldlm/services/ldlm_canceld");
	ck_assert_int_eq(lutbf_service_dir("/d", "mgs", dir, sizeof(dir), msg, sizeof(msg)), 0);
	ck_assert_str_eq(dir, "/d/lustre/mgs/MGS/mgs");
	ck_assert_int_eq(lutbf_service_dir("/d", "lnet_test", dir, sizeof(dir), msg, 256), -ENOENT);
	ck_assert(strstr(msg, "'lnet_test' is not a Lustre service with NRS"));
	ck_assert_int_eq(lutbf_service_dir("/d", "ost_io", dir, 10, msg, sizeof(msg)),
			 -ENAMETOOLONG);
	ck_assert(lutbf_service_known("mdt_readpage") && !lutbf_service_known("ost_ior"));
}
END_TEST

START_TEST(policies_listing)
{
	struct lutbf_shown s = {0};
	char msg[256];

	ck_assert_int_eq(lutbf_parse_policies(policies_tbf, &s, msg, sizeof(msg)), 0);
	ck_assert(s.policies && s.has_hp);
	ck_assert_str_eq(s.q[LUTBF_REG].policy, "tbf nid");
	ck_assert_str_eq(s.q[LUTBF_HP].policy, "tbf nid");
	ck_assert_int_eq(lutbf_parse_policies(policies_fifo_reg_only, &s, msg, sizeof(msg)), 0);
	ck_assert(!s.has_hp);
	ck_assert_str_eq(s.q[LUTBF_REG].policy, "fifo");
	ck_assert_str_eq(s.q[LUTBF_HP].policy, "");

	/* hostile: each refused with its line, @s kept */
	ck_assert_int_eq(lutbf_parse_policies("", &s, msg, sizeof(msg)), -EINVAL);
	ck_assert_str_eq(msg, "nrs_policies lists no regular_requests:");
	ck_assert_int_eq(lutbf_parse_policies("  - name: tbf\n", &s, msg, sizeof(msg)), -EINVAL);
	ck_assert_str_eq(msg, "nrs_policies line 1: '- name: tbf' before regular_requests:");
	ck_assert_int_eq(lutbf_parse_policies("regular_requests:\n  state: started\n", &s, msg,
					      sizeof(msg)),
			 -EINVAL);
	ck_assert(strstr(msg, "line 2: 'state: started' is neither"));
	ck_assert_int_eq(lutbf_parse_policies("regular_requests:\n - name: a\x01\n", &s, msg,
					      sizeof(msg)),
			 -EINVAL);
	ck_assert_str_eq(msg, "nrs_policies line 2: control characters");
	ck_assert_int_eq(lutbf_parse_policies("regular_requests:\nregular_requests:\n", &s, msg,
					      sizeof(msg)),
			 -EINVAL);
	ck_assert_int_eq(lutbf_parse_policies("regular_requests:\n - name: "
					      "0123456789012345678901234567890123456789012345678901"
					      "234567890123\n",
					      &s, msg, sizeof(msg)),
			 -EINVAL);
	ck_assert(strstr(msg, "a policy name of 64 characters"));
	ck_assert_str_eq(s.q[LUTBF_REG].policy, "fifo"); /* as it was */
}
END_TEST

START_TEST(rules_listing)
{
	static const struct {
		const char *text, *why;
	} bad[] = {
		{"CPT 0:\n", "line 1: 'CPT 0:' before regular_requests:"},
		{"regular_requests:\ncli nid={0@lo} 10, ref 0\n", "line 2: a rule before any"},
		{"regular_requests:\nCPT 0:\nCPT 0:\n", "line 3: a CPT listed twice"},
		{"regular_requests:\nCPT x:\n", "line 2: 'CPT x:' is not 'CPT <n>:'"},
		{"regular_requests:\nCPT 0:\ncli nid={0@lo} 10\n",
		 "line 3: 'cli nid={0@lo} 10' is not"},
		{"regular_requests:\nCPT 0:\ncli nid={0@lo} -10, ref 0\n", "is not '<name>"},
		{"regular_requests:\nCPT 0:\ncli nid={0@lo} 4294967296, ref 0\n", "is not '<name>"},
		{"regular_requests:\nCPT 0:\ncli 10, ref 0\n", "is not '<name>"},
		{"regular_requests:\nCPT 0:\ncli  10, ref 0\n", "is not '<name>"},
		{"regular_requests:\nCPT 0:\nc-li * 10, ref 0\n", "is not '<name>"},
		{"regular_requests:\nCPT 0:\n0123456789abcdef * 10, ref 0\n", "is not '<name>"},
		{"regular_requests:\nCPT 0:\na * 10, ref x\n", "is not '<name>"},
		{"regular_requests:\nCPT 0:\na * 10, ref 0\na * 10, ref 0\n",
		 "line 4: a rule listed twice"},
		{"regular_requests:\nCPT 0:\na\t* 10, ref 0\n", "control characters"},
		{"high_priority_requests:\nregular_requests:\n",
		 "line 2: regular_requests: out of place"},
		{"regular_requests:\nCPT 0:\nhigh_priority_requests:\nCPT 0:\nhigh_priority_requests:\n",
		 "line 5: high_priority_requests: out of place"},
		{"", "lists no regular_requests:"},
	};
	struct lutbf_shown s = {0};
	char msg[256];
	size_t i;

	ck_assert_int_eq(lutbf_parse_rules(rules_2cpt, &s, msg, sizeof(msg)), 0);
	ck_assert_int_eq(s.q[LUTBF_REG].ncpt, 2);
	ck_assert_int_eq(s.q[LUTBF_HP].ncpt, 2);
	ck_assert_int_eq(s.q[LUTBF_REG].cpt[1], 1);
	ck_assert_int_eq(s.q[LUTBF_REG].rules[1].n, 2);
	ck_assert_str_eq(s.q[LUTBF_REG].rules[1].r[0].name, "cli");
	ck_assert_str_eq(s.q[LUTBF_REG].rules[1].r[0].conds, "nid={0@lo}");
	ck_assert_int_eq(s.q[LUTBF_REG].rules[1].r[0].rate, 10);
	ck_assert_str_eq(s.q[LUTBF_REG].rules[1].r[1].conds, "*");
	ck_assert_int_eq(s.q[LUTBF_REG].rules[1].r[1].rate, 5000);
	/* conditions with spaces, and 2.15's "{...}" */
	ck_assert_int_eq(lutbf_parse_rules("regular_requests:\nCPT 3:\n"
					   "c nid={0@lo 10.0.0.[1-9]@tcp}&jobid={a b} 7, ref 2\n"
					   "d {dd.0 cp.*} 1, ref 0\n",
					   &s, msg, sizeof(msg)),
			 0);
	ck_assert_int_eq(s.q[LUTBF_HP].ncpt, 0);
	ck_assert_int_eq(s.q[LUTBF_REG].cpt[0], 3);
	ck_assert_str_eq(s.q[LUTBF_REG].rules[0].r[0].conds,
			 "nid={0@lo 10.0.0.[1-9]@tcp}&jobid={a b}");
	ck_assert_str_eq(s.q[LUTBF_REG].rules[0].r[1].conds, "{dd.0 cp.*}");
	/* a service without CPT affinity (mdt_fld, mgs, ...) lists one "CPT -1:" */
	ck_assert_msg(!lutbf_parse_rules("regular_requests:\nCPT -1:\ndefault * 10000, ref 0\n", &s,
					 msg, sizeof(msg)),
		      "%s", msg);
	ck_assert_int_eq(s.q[LUTBF_REG].ncpt, 1);
	ck_assert_int_eq(s.q[LUTBF_REG].cpt[0], -1);
	ck_assert_int_eq(lutbf_parse_rules("regular_requests:\nCPT -2:\n", &s, msg, sizeof(msg)),
			 -EINVAL);
	ck_assert_int_eq(lutbf_parse_rules("regular_requests:\nCPT 3:\n"
					   "c nid={0@lo 10.0.0.[1-9]@tcp}&jobid={a b} 7, ref 2\n"
					   "d {dd.0 cp.*} 1, ref 0\n",
					   &s, msg, sizeof(msg)),
			 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		msg[0] = '\0';
		ck_assert_msg(lutbf_parse_rules(bad[i].text, &s, msg, sizeof(msg)) == -EINVAL,
			      "accepted %s", bad[i].text);
		ck_assert_msg(strstr(msg, bad[i].why), "'%s': %s", bad[i].text, msg);
		/* the last good listing is kept */
		ck_assert_int_eq(s.q[LUTBF_REG].cpt[0], 3);
	}
	lutbf_shown_free(&s);
}
END_TEST

START_TEST(convert_rates)
{
	struct lutbf_want w;
	char msg[512];
	const struct lutbf_rule *r;

	ck_assert_int_eq(conv1("nid", "start cli nid={0@lo} rate=20 realtime=1", caps(v2_17_57, 2),
			       &w, msg, sizeof(msg)),
			 0);
	ck_assert_str_eq(w.q[LUTBF_REG].policy, "tbf nid");
	ck_assert_int_eq(w.ncpt, 2);
	/* keyed by nid: a class lives in one CPT, the rate is not divided */
	ck_assert_int_eq(w.q[LUTBF_REG].div, 1);
	r = wrule(&w, LUTBF_REG, "cli");
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(r->rate, 20);
	ck_assert_int_eq(r->asked, 20);
	ck_assert(r->realtime);
	ck_assert_str_eq(r->conds, "nid={0@lo}");
	ck_assert_str_eq(r->shown, "nid={0@lo}");
	r = wrule(&w, LUTBF_HP, "default");
	ck_assert_int_eq(r->rate, 10000);
	ck_assert_str_eq(r->conds, "*");
	ck_assert_str_eq(w.q[LUTBF_HP].rules.r[w.q[LUTBF_HP].rules.n - 1].name, "default");
	lutbf_want_free(&w);

	/* 1 RPC/s of a nid class over 2 CPTs: 1 */
	ck_assert_int_eq(conv1("nid", "start c nid={0@lo} rate=1", caps(v2_17_57, 2), &w, msg, 512),
			 0);
	ck_assert_int_eq(wrule(&w, LUTBF_REG, "c")->rate, 1);
	lutbf_want_free(&w);

	/* other types: divided by the CPTs, rounded to the nearest */
	ck_assert_int_eq(
		conv1("jobid", "start c jobid={x} rate=21", caps(v2_17_57, 2), &w, msg, 512), 0);
	ck_assert_int_eq(w.q[LUTBF_REG].div, 2);
	ck_assert_int_eq(wrule(&w, LUTBF_REG, "c")->rate, 11);
	ck_assert_int_eq(wrule(&w, LUTBF_REG, "default")->rate, 5000);
	lutbf_want_free(&w);
	ck_assert_int_eq(conv1("opcode", "start c opcode={ost_write} rate=4", caps(v2_17_57, 3), &w,
			       msg, 512),
			 0);
	ck_assert_int_eq(wrule(&w, LUTBF_REG, "c")->rate, 1);
	lutbf_want_free(&w);
	ck_assert_int_eq(conv1("jobid", "start c jobid={x} rate=1999998", caps(v2_17_57, 2), &w,
			       msg, 512),
			 0);
	ck_assert_int_eq(wrule(&w, LUTBF_REG, "c")->rate, 999999);
	lutbf_want_free(&w);

	/* what cannot be held */
	ck_assert_int_eq(conv1("jobid", "start c jobid={x} rate=1", caps(v2_17_57, 2), &w, msg,
			       512),
			 -ERANGE);
	ck_assert_str_eq(msg, "ost_io reg rule c: 1 RPC/s cannot be spread over the 2 CPU "
			      "partitions of ost_io (Lustre's rate is per partition, at least 1 "
			      "in each)");
	ck_assert_int_eq(conv1("jobid", "start c jobid={x} rate=1999999", caps(v2_17_57, 2), &w,
			       msg, 512),
			 -ERANGE);
	ck_assert(strstr(msg, "1999999 RPC/s over 2 CPU partitions is 1000000 in each"));
	ck_assert_int_eq(conv1("nid", "change default rate=1000000", caps(v2_17_57, 1), &w, msg,
			       512),
			 -ERANGE);
	ck_assert(strstr(msg, "rule default: 1000000 RPC/s: Lustre holds at most 999999 per rule"));
	ck_assert_int_eq(conv1("nid", "start c nid={0@lo} rate=1000000", caps(v2_17_57, 2), &w, msg,
			       512),
			 -ERANGE);
	ck_assert(strstr(msg, "at most 999999 per rule (a nid-keyed class lives in one CPU "
			      "partition)"));
	ck_assert_int_eq(w.q[LUTBF_REG].rules.n, 0); /* left empty */
}
END_TEST

START_TEST(convert_refusals)
{
	struct lutbf_caps c = caps(v2_17_57, 1);
	const char *cmds[] = {"start c nid={0@lo} rate=20", NULL};
	struct lne_err err;
	struct lutbf_want w;
	struct lne_tbf *tbf;
	char msg[512];

	ck_assert_int_eq(conv1("opcode", "start o opcode={ldlm_enqueue} rate=5", c, &w, msg, 512),
			 -EINVAL);
	ck_assert(strstr(msg, "ost_io reg rule o: ldlm_enqueue (101): Lustre's TBF keeps a rule's "
			      "opcodes in a bitmap"));
	ck_assert_int_eq(conv1("opcode", "start o opcode={obd_ping} rate=5", c, &w, msg, 512),
			 -EINVAL);
	ck_assert_int_eq(
		conv1("opcode", "start o opcode={ost_write mds_batch} rate=5", c, &w, msg, 512), 0);
	ck_assert_str_eq(wrule(&w, LUTBF_REG, "o")->conds, "opcode={ost_write mds_batch}");
	lutbf_want_free(&w);
	ck_assert_int_eq(conv1("opcode", "start o opcode={mds_batch} rate=5", caps(v2_15_8, 1), &w,
			       msg, 512),
			 -EINVAL);
	ck_assert(strstr(msg, "mds_batch needs Lustre 2.16"));
	ck_assert_int_eq(conv1("opcode", "start o opcode={mds_getattr_name ost_read} rate=5", c, &w,
			       msg, 512),
			 0);
	ck_assert_str_eq(wrule(&w, LUTBF_REG, "o")->conds, "opcode={mds_getattr_lock ost_read}");
	lutbf_want_free(&w);

	ck_assert_int_eq(conv1("jobid", "start j jobid={a,b} rate=5", c, &w, msg, 512), -EINVAL);
	ck_assert(strstr(msg, "jobid={a,b}: Lustre cannot hold a jobid with ','"));
	ck_assert_int_eq(conv1("jobid", "start j jobid={a&b} rate=5", c, &w, msg, 512), -EINVAL);
	ck_assert_int_eq(conv1("jobid", "start j jobid={dd.* cp.0} rate=5", c, &w, msg, 512), 0);
	ck_assert_str_eq(wrule(&w, LUTBF_REG, "j")->conds, "jobid={dd.* cp.0}");
	lutbf_want_free(&w);

	ck_assert_int_eq(conv1("nid", "start n nid={tcp1} rate=5", c, &w, msg, 512), -EINVAL);
	ck_assert(strstr(msg, "'tcp1' names a net; Lustre's nid={...} takes NIDs such as *@tcp1"));
	ck_assert_int_eq(conv1("nid", "start n nid={*@tcp[1-3]} rate=5", c, &w, msg, 512), -EINVAL);
	ck_assert(strstr(msg, "not a net pattern"));
	ck_assert_int_eq(conv1("nid", "start n nid={*@o2ib*} rate=5", c, &w, msg, 512), -EINVAL);
	ck_assert_int_eq(conv1("nid", "start n nid={2001:db8::/32@tcp} rate=5", c, &w, msg, 512),
			 0);
	lutbf_want_free(&w);
	ck_assert_int_eq(conv1("nid", "start n nid={2001:db8::/32@tcp} rate=5", caps(v2_16_1, 1),
			       &w, msg, 512),
			 -EINVAL);
	ck_assert(strstr(msg, "IPv6 NIDs in TBF rules need Lustre 2.17"));

	ck_assert_int_eq(conv1("nid+jobid+opcode+uid+gid", NULL, c, &w, msg, 512), -EINVAL);
	ck_assert_str_eq(msg, "ost_io reg: type nid+jobid+opcode+uid+gid cannot be held: Lustre's "
			      "TBF type is at most 19 characters");
	ck_assert_int_eq(conv1("nid+jobid+opcode+uid", NULL, c, &w, msg, 512), -EINVAL);
	ck_assert_int_eq(conv1("nid+jobid+opcode", NULL, c, &w, msg, 512), 0);
	ck_assert_str_eq(w.q[LUTBF_REG].policy, "tbf nid+jobid+opcode");
	lutbf_want_free(&w);
	ck_assert_int_eq(conv1("nid+opcode", NULL, caps(v2_16_1, 1), &w, msg, 512), -EINVAL);
	ck_assert(strstr(msg, "Lustre 2.16.1 has one field per TBF type"));
	ck_assert_int_eq(conv1("nid", "start n nid={0@lo},nid={10.0.0.1@tcp} rate=5",
			       caps(v2_15_8, 1), &w, msg, 512),
			 -EINVAL);
	ck_assert(strstr(msg, "Lustre 2.15.8 takes one condition per rule"));
	ck_assert_int_eq(conv1("nid", NULL, caps((struct lutbf_version){2, 14, 0}, 1), &w, msg,
			       512),
			 -EOPNOTSUPP);
	ck_assert_str_eq(msg, "Lustre 2.14.0 is older than 2.15, the oldest lnetd drives TBF on");

	/* depth: ptlrpc's, one for all */
	tbf = pol("ost_io", "nid", cmds);
	ck_assert_int_eq(lne_tbf_set_depth(tbf, LNE_TBF_REG, 5, 0, &err), 0);
	ck_assert_int_eq(lutbf_convert(tbf, &c, &w, msg, sizeof(msg)), -EINVAL);
	ck_assert_str_eq(msg, "ost_io reg: depth 5 cannot be held: Lustre's bucket depth is "
			      "ptlrpc's tbf_depth (3), one for every service");
	c.depth = 0; /* not known: not checked */
	ck_assert_int_eq(lutbf_convert(tbf, &c, &w, msg, sizeof(msg)), 0);
	lutbf_want_free(&w);
	lne_tbf_free(tbf);

	/* no hp queue */
	c = caps(v2_17_57, 1);
	c.has_hp = false;
	ck_assert_int_eq(conv1("nid", "hp start h nid={0@lo} rate=5", c, &w, msg, 512), -EINVAL);
	ck_assert_str_eq(msg, "ost_io has no high-priority queue: hp rules other than reg's "
			      "cannot be held");
	ck_assert_int_eq(conv1("nid", "hp change default rate=5", c, &w, msg, 512), -EINVAL);
	ck_assert_int_eq(conv1("nid", "reg start h nid={0@lo} rate=5", c, &w, msg, 512), 0);
	ck_assert(!w.has_hp && w.q[LUTBF_HP].rules.n == 0 && w.q[LUTBF_REG].rules.n == 2);
	lutbf_want_free(&w);
	/* a command for both queues: Lustre's only queue gets it */
	ck_assert_int_eq(conv1("nid", "start h nid={0@lo} rate=5", c, &w, msg, 512), 0);
	ck_assert(!w.has_hp && w.q[LUTBF_HP].rules.n == 0 && w.q[LUTBF_REG].rules.n == 2);
	lutbf_want_free(&w);

	/* not a Lustre service */
	tbf = pol("lnet_test", "nid", NULL);
	ck_assert_int_eq(lutbf_convert(tbf, &c, &w, msg, sizeof(msg)), -ENOENT);
	lne_tbf_free(tbf);
}
END_TEST

START_TEST(convert_nid_lists)
{
	struct lutbf_caps c = caps(v2_17_57, 1);
	static char big[4000];
	struct lutbf_want w;
	char msg[512];
	int i, n = 0;

	/* Lustre cuts the conditions at every ',': lists become items */
	ck_assert_int_eq(conv1("nid", "start n nid={10.0.0.[1,3]@tcp} rate=5", c, &w, msg, 512), 0);
	ck_assert_str_eq(wrule(&w, LUTBF_REG, "n")->conds, "nid={10.0.0.[1]@tcp 10.0.0.[3]@tcp}");
	lutbf_want_free(&w);
	ck_assert_int_eq(conv1("nid", "start n nid={10.0.[1,5].[5,7-9]@tcp 0@lo} rate=5", c, &w,
			       msg, 512),
			 0);
	ck_assert_str_eq(wrule(&w, LUTBF_REG, "n")->conds,
			 "nid={0@lo 10.0.[1].[5]@tcp 10.0.[1].[7-9]@tcp 10.0.[5].[5]@tcp "
			 "10.0.[5].[7-9]@tcp}");
	lutbf_want_free(&w);
	ck_assert_int_eq(conv1("nid", "start n nid={[1-3,7]@gni 10.0.0.[0-254/2]@tcp} rate=5", c,
			       &w, msg, 512),
			 0);
	ck_assert_str_eq(wrule(&w, LUTBF_REG, "n")->conds,
			 "nid={10.0.0.[0-254/2]@tcp [1-3]@gni [7]@gni}");
	lutbf_want_free(&w);
	/* '&' and ',' between terms, nid+jobid (2.17) */
	ck_assert_int_eq(conv1("nid+jobid", "start m nid={0@lo}&jobid={dd.0},jobid={cp.*} rate=5",
			       c, &w, msg, 512),
			 0);
	ck_assert_str_eq(wrule(&w, LUTBF_REG, "m")->conds, "nid={0@lo}&jobid={dd.0},jobid={cp.*}");
	ck_assert_str_eq(wrule(&w, LUTBF_REG, "m")->shown, "nid={0@lo}&jobid={dd.0},jobid={cp.*}");
	lutbf_want_free(&w);
	/* before 2.17 the listing shows the values only */
	ck_assert_int_eq(
		conv1("uid", "start u uid={500 501} rate=5", caps(v2_15_8, 1), &w, msg, 512), 0);
	ck_assert_str_eq(wrule(&w, LUTBF_REG, "u")->conds, "uid={500 501}");
	ck_assert_str_eq(wrule(&w, LUTBF_REG, "u")->shown, "{500 501}");
	ck_assert_str_eq(wrule(&w, LUTBF_REG, "default")->shown, "{*}");
	lutbf_want_free(&w);

	/* more than one command holds, once the lists are written out */
	n = snprintf(big, sizeof(big), "start b nid={");
	for (i = 0; i < 100; i++)
		n += snprintf(big + n, sizeof(big) - (size_t)n, "10.0.%d.[1,3,5]@tcp ", i);
	snprintf(big + n - 1, sizeof(big) - (size_t)n, "} rate=5");
	ck_assert_int_eq(conv1("nid", big, c, &w, msg, 512), -EINVAL);
	ck_assert(strstr(msg, "one nrs_tbf_rule command is at most 4095"));
	/* and too many items */
	ck_assert_int_eq(conv1("nid",
			       "start x nid={[0,2,4,6,8,10].[0,2,4,6,8,10].[0,2,4,6,8,10]."
			       "[0,2,4,6,8,10]@tcp} rate=5",
			       c, &w, msg, 512),
			 -EINVAL);
	ck_assert(strstr(msg, "more than 1024 items"));
}
END_TEST

void lutbf_tests_plan(TCase *tc);
void lutbf_tests_engine(TCase *tc);

Suite *make_lutbf_suite(void)
{
	Suite *s = suite_create("lutbf");
	TCase *tc = tcase_create("lutbf");

	tcase_add_test(tc, versions_and_places);
	tcase_add_test(tc, policies_listing);
	tcase_add_test(tc, rules_listing);
	tcase_add_test(tc, convert_rates);
	tcase_add_test(tc, convert_refusals);
	tcase_add_test(tc, convert_nid_lists);
	lutbf_tests_plan(tc);
	lutbf_tests_engine(tc);
	suite_add_tcase(s, tc);
	return s;
}
