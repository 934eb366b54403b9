// SPDX-License-Identifier: GPL-2.0
/*
 * lu-tbf's drift sentences and writes (lnetd/backend/lustre/lu-tbf-plan.c):
 * exact sentences and plans for the cases the guest test makes with lctl,
 * and, for random policies against random service states, the writes
 * replayed on a model of Lustre's rule lists (nrs_tbf.c's semantics: a
 * start goes first or just before rank=, change moves a rule just before
 * rank=, stop of an unknown name succeeds, a policy start frees the rules
 * and makes a default rule at tbf_rate), listed as Lustre lists them,
 * parsed back, compared: nothing may differ, and a second plan is empty.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/tbf.h"
#include "lnetd/backend/lustre/lu-tbf.h"
#include "lutbf-sim.h"
#include "unit.h"

static struct lne_tbf *policy_of(const char *type, const char *const *cmds, size_t n)
{
	struct lne_err err = {.pos = -1};
	struct lne_tbf *tbf;
	size_t i;
	int q;

	ck_assert_int_eq(lne_tbf_new("ost_io", &tbf, &err), 0);
	for (q = 0; q < LNE_TBF_NQUEUES; q++)
		ck_assert_int_eq(lne_tbf_set_type(tbf, (enum lne_tbf_queue)q, type, &err), 0);
	for (i = 0; i < n; i++)
		ck_assert_msg(!lne_tbf_command(tbf, cmds[i], 0, &err), "%s: %s", cmds[i], err.msg);
	return tbf;
}

static void want_of(const char *type, const char *const *cmds, size_t n, unsigned ncpt, bool has_hp,
		    struct lutbf_want *w)
{
	struct lutbf_caps c = {.ver = {2, 17, 57}, .ncpt = ncpt, .has_hp = has_hp, .depth = 3};
	struct lne_tbf *tbf = policy_of(type, cmds, n);
	char msg[512];

	ck_assert_msg(!lutbf_convert(tbf, &c, w, msg, sizeof(msg)), "%s", msg);
	lne_tbf_free(tbf);
}

struct said {
	int n;
	char text[8][512];
};

static void collect(void *arg, const char *sentence)
{
	struct said *s = arg;

	if (s->n < 8)
		snprintf(s->text[s->n], sizeof(s->text[0]), "%s", sentence);
	s->n++;
}

static const char *plan_text(const struct lutbf_plan *p)
{
	static char buf[4096];
	size_t i, n = 0;

	buf[0] = '\0';
	for (i = 0; i < p->n; i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s%s", i ? " | " : "",
				      p->w[i].file == LUTBF_POLICIES ? "P: " : "", p->w[i].text);
	return buf;
}

/* Apply @w's plan to @s; then Lustre must show exactly @w. */
static void converge(struct sim *s, const struct lutbf_want *w)
{
	struct lutbf_shown shown = {0};
	struct lutbf_plan p;
	struct said said = {0};
	size_t i;

	sim_shown(s, &shown);
	ck_assert_int_eq(lutbf_plan(w, &shown, &p), 0);
	for (i = 0; i < p.n; i++)
		ck_assert_int_eq(sim_write(s, &p.w[i]), 0);
	lutbf_plan_free(&p);
	sim_shown(s, &shown);
	ck_assert_msg(lutbf_compare(w, &shown, collect, &said) == 0, "%d differences, first: %s",
		      said.n, said.text[0]);
	ck_assert_int_eq(lutbf_plan(w, &shown, &p), 0);
	ck_assert_msg(p.n == 0, "a second plan: %s", plan_text(&p));
	lutbf_shown_free(&shown);
}

START_TEST(plan_cases)
{
	const char *one[] = {"start cli nid={0@lo} rate=20"};
	const char *job[] = {"start j jobid={dd.0} rate=20"};
	const char *ab[] = {"start a nid={0@lo} rate=30", "start b nid={10.1.0.1@tcp} rate=40"};
	const char *ba[] = {"start b nid={10.1.0.1@tcp} rate=40", "start a nid={0@lo} rate=30"};
	char move_a[] = "reg change a rank=default";
	struct sim s = {.ncpt = 2, .has_hp = true};
	struct lutbf_shown shown = {0};
	struct lutbf_want w;
	struct lutbf_plan p;
	struct said said = {0};

	sim_fresh(&s, 0, "fifo");
	sim_fresh(&s, 1, "fifo");
	want_of("nid", one, 1, 2, true, &w);
	sim_shown(&s, &shown);
	ck_assert_int_eq(lutbf_compare(&w, &shown, collect, &said), 2);
	ck_assert_str_eq(said.text[0], "ost_io reg: the policy is 'fifo', lnetd wants 'tbf nid'");
	ck_assert_int_eq(lutbf_plan(&w, &shown, &p), 0);
	ck_assert_str_eq(plan_text(&p),
			 "P: tbf reg nid | reg start cli nid={0@lo} rate=20 rank=default | "
			 "reg change default rate=10000 | P: tbf hp nid | hp start cli nid={0@lo} "
			 "rate=20 rank=default | hp change default rate=10000");
	lutbf_plan_free(&p);
	converge(&s, &w);

	/* drift: a rate, an intruder, other conditions */
	s.r[0][1][0].rate = 50;
	snprintf(s.r[1][0][1].name, 16, "intruder");
	snprintf(s.r[1][0][1].conds, 256, "nid={1@lo}");
	s.r[1][0][1].rate = 5;
	s.n[1][0] = 3;
	snprintf(s.r[1][0][2].name, 16, "default");
	snprintf(s.r[1][0][2].conds, 256, "*");
	s.r[1][0][2].rate = 10000;
	sim_shown(&s, &shown);
	said.n = 0;
	ck_assert_int_eq(lutbf_compare(&w, &shown, collect, &said), 2);
	ck_assert_str_eq(
		said.text[0],
		"ost_io reg CPT 1: rule cli rate is 50, lnetd wants 20 (20 RPC/s divided by 1)");
	ck_assert_str_eq(said.text[1], "ost_io hp CPT 0: rule intruder (nid={1@lo}, rate 5) is not "
				       "lnetd's");
	ck_assert_int_eq(lutbf_plan(&w, &shown, &p), 0);
	ck_assert_str_eq(plan_text(&p), "reg change cli rate=20 | hp stop intruder");
	lutbf_plan_free(&p);
	converge(&s, &w);
	snprintf(s.r[0][0][0].conds, 256, "nid={0@lo 10.1.0.1@tcp}");
	snprintf(s.r[0][1][0].conds, 256, "nid={0@lo 10.1.0.1@tcp}");
	sim_shown(&s, &shown);
	said.n = 0;
	ck_assert_int_eq(lutbf_compare(&w, &shown, collect, &said), 1);
	ck_assert_str_eq(said.text[0],
			 "ost_io reg CPT 0: rule cli tests 'nid={0@lo 10.1.0.1@tcp}', "
			 "lnetd wants 'nid={0@lo}'");
	ck_assert_int_eq(lutbf_plan(&w, &shown, &p), 0);
	ck_assert_str_eq(plan_text(&p),
			 "reg stop cli | reg start cli nid={0@lo} rate=20 rank=default");
	lutbf_plan_free(&p);
	converge(&s, &w);
	lutbf_want_free(&w);

	/* order: b a, then a b by moving one rule; drift in order */
	want_of("nid", ab, 2, 2, true, &w);
	converge(&s, &w);
	ck_assert_str_eq(s.r[0][0][0].name, "b");
	lutbf_want_free(&w);
	want_of("nid", ba, 2, 2, true, &w);
	sim_shown(&s, &shown);
	ck_assert_int_eq(lutbf_plan(&w, &shown, &p), 0);
	ck_assert_str_eq(plan_text(&p), "reg change b rank=default | hp change b rank=default");
	lutbf_plan_free(&p);
	converge(&s, &w);
	sim_write(&s, &(struct lutbf_write){LUTBF_RULE, move_a});
	sim_shown(&s, &shown);
	said.n = 0;
	ck_assert_int_eq(lutbf_compare(&w, &shown, collect, &said), 1); /* CPT 1 lists the same */
	ck_assert_str_eq(said.text[0],
			 "ost_io reg CPT 0: the rules match in the order b a default, "
			 "lnetd wants a b default");
	converge(&s, &w);

	/* the CPTs disagree: the name stopped everywhere, then started */
	s.n[0][1] = 2; /* CPT 1 lost "a"... */
	s.r[0][1][0] = s.r[0][0][1];
	s.r[0][1][1] = s.r[0][0][2];
	sim_shown(&s, &shown);
	ck_assert_int_eq(lutbf_plan(&w, &shown, &p), 0);
	ck_assert_str_eq(plan_text(&p), "reg stop a | reg start a nid={0@lo} rate=30 rank=b");
	lutbf_plan_free(&p);
	converge(&s, &w);

	/* the CPT count changed since the conversion: nothing to a nid type, whose rates
	 * are not divided... */
	lutbf_want_free(&w);
	want_of("nid", ba, 2, 1, true, &w);
	sim_shown(&s, &shown);
	said.n = 0;
	ck_assert_int_eq(lutbf_compare(&w, &shown, collect, &said), 0);
	lutbf_want_free(&w);
	/* ...but drift to a type whose rates are (20 over 2 CPTs: 10 in each) */
	memset(&s, 0, sizeof(s));
	s.ncpt = 2;
	s.has_hp = true;
	sim_fresh(&s, 0, "fifo");
	sim_fresh(&s, 1, "fifo");
	want_of("jobid", job, 1, 2, true, &w);
	converge(&s, &w);
	ck_assert_int_eq(s.r[0][1][0].rate, 10);
	ck_assert_int_eq(s.r[1][0][1].rate, 5000);
	lutbf_want_free(&w);
	want_of("jobid", job, 1, 1, true, &w);
	sim_shown(&s, &shown);
	said.n = 0;
	ck_assert_int_gt(lutbf_compare(&w, &shown, collect, &said), 0);
	ck_assert_str_eq(
		said.text[0],
		"ost_io reg: 2 CPU partitions are listed, lnetd's rates were divided by 1");
	lutbf_want_free(&w);
	lutbf_shown_free(&shown);
}
END_TEST

START_TEST(plan_no_hp)
{
	const char *one[] = {"start cli nid={0@lo} rate=20"};
	struct sim s = {.ncpt = 1, .has_hp = false};
	struct lutbf_shown shown = {0};
	struct lutbf_want w;
	struct lutbf_plan p;

	sim_fresh(&s, 0, "fifo");
	want_of("nid", one, 1, 1, false, &w);
	sim_shown(&s, &shown);
	ck_assert(!shown.has_hp);
	ck_assert_int_eq(lutbf_plan(&w, &shown, &p), 0);
	ck_assert_str_eq(plan_text(&p), "P: tbf reg nid | reg start cli nid={0@lo} rate=20 "
					"rank=default | reg change default rate=10000");
	lutbf_plan_free(&p);
	converge(&s, &w);
	lutbf_want_free(&w);
	lutbf_shown_free(&shown);
}
END_TEST

/* Random policies against random states: the plan always converges. */
START_TEST(plan_random)
{
	static const char *const conds[] = {"nid={0@lo}", "nid={10.1.0.1@tcp}",
					    "nid={10.1.0.[1-9]@tcp}", "nid={*@tcp}",
					    "nid={0@lo 10.2.0.[1,3]@tcp}"};
	static const char *const names[] = {"a", "b", "c", "d", "e", "f", "g"};
	static const char *const types[] = {"nid", "jobid"};
	char cmds[16][128];
	const char *cp[16];
	struct lutbf_want w;
	unsigned seed = 12345, round, i, n, k;
	int q;

	for (round = 0; round < (unsigned)unit_rounds(600); round++) {
		struct sim s = {.ncpt = 1 + rand_r(&seed) % SIM_CPTS,
				.has_hp = rand_r(&seed) % 4 != 0};

		/* Lustre as it is: fifo, or TBF nid/jobid with some rules, CPTs may differ */
		for (q = 0; q < 2; q++) {
			sim_fresh(&s, q, rand_r(&seed) % 3 ? "tbf nid" : types[rand_r(&seed) % 2]);
			if (rand_r(&seed) % 4 == 0)
				sim_fresh(&s, q, "fifo");
			if (strcmp(s.policy[q], "tbf nid"))
				continue;
			for (k = 0; k < s.ncpt; k++) {
				n = rand_r(&seed) % 5;
				for (i = 0; i < n; i++) {
					struct srule r = {.rate = 1 + rand_r(&seed) % 50};
					const char *nm = names[rand_r(&seed) % 7];

					if (sim_find(&s, q, k, nm) >= 0)
						continue;
					snprintf(r.name, 16, "%s", nm);
					snprintf(r.conds, 256, "%s", conds[rand_r(&seed) % 5]);
					sim_insert(&s, q, k, rand_r(&seed) % s.n[q][k], &r);
				}
				if (k && rand_r(&seed) % 2) /* the same in every CPT, mostly */
					memcpy(s.r[q][k], s.r[q][0], sizeof(s.r[q][0])),
						s.n[q][k] = s.n[q][0];
			}
		}
		/* what lnetd wants */
		n = rand_r(&seed) % 7;
		for (i = 0; i < n; i++) {
			const char *qp =
				s.has_hp ? (const char *[]){"", "reg ", "hp "}[rand_r(&seed) % 3]
					 : "";

			if (rand_r(&seed) % 5 == 0)
				snprintf(cmds[i], sizeof(cmds[i]), "%schange default rate=%u", qp,
					 s.ncpt + rand_r(&seed) % 9000);
			else
				snprintf(cmds[i], sizeof(cmds[i]), "%sstart %s%u %s rate=%u%s", qp,
					 names[i], i, conds[rand_r(&seed) % 5],
					 s.ncpt + rand_r(&seed) % 90,
					 rand_r(&seed) % 3 ? "" : " realtime=1");
			cp[i] = cmds[i];
		}
		want_of("nid", cp, n, s.ncpt, s.has_hp, &w);
		converge(&s, &w);
		lutbf_want_free(&w);
	}
}
END_TEST

void lutbf_tests_plan(TCase *tc);

void lutbf_tests_plan(TCase *tc)
{
	tcase_add_test(tc, plan_cases);
	tcase_add_test(tc, plan_no_hp);
	tcase_add_test(tc, plan_random);
}
