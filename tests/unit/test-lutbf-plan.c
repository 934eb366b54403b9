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
#include "unit.h"

#define SIM_RULES 64
#define SIM_CPTS  4

struct srule {
	char name[16];
	char conds[256];
	unsigned rate;
};

struct sim {
	char policy[2][64]; /* "fifo", "tbf nid" */
	unsigned ncpt;
	bool has_hp;
	unsigned n[2][SIM_CPTS];
	struct srule r[2][SIM_CPTS][SIM_RULES];
};

static int sim_find(struct sim *s, int q, unsigned k, const char *name)
{
	unsigned i;

	for (i = 0; i < s->n[q][k]; i++)
		if (!strcmp(s->r[q][k][i].name, name))
			return (int)i;
	return -1;
}

static void sim_insert(struct sim *s, int q, unsigned k, unsigned at, const struct srule *r)
{
	memmove(&s->r[q][k][at + 1], &s->r[q][k][at], (s->n[q][k] - at) * sizeof(*r));
	s->r[q][k][at] = *r;
	s->n[q][k]++;
}

static void sim_remove(struct sim *s, int q, unsigned k, unsigned at)
{
	memmove(&s->r[q][k][at], &s->r[q][k][at + 1], (s->n[q][k] - at - 1) * sizeof(struct srule));
	s->n[q][k]--;
}

static void sim_fresh(struct sim *s, int q, const char *policy)
{
	unsigned k;

	snprintf(s->policy[q], sizeof(s->policy[q]), "%s", policy);
	for (k = 0; k < s->ncpt; k++) {
		s->n[q][k] = 1;
		snprintf(s->r[q][k][0].name, 16, "default");
		snprintf(s->r[q][k][0].conds, 256, "*");
		s->r[q][k][0].rate = 10000;
	}
}

/* One write, as Lustre takes it; the errno it would give. */
static int sim_write(struct sim *s, const struct lutbf_write *w)
{
	char text[4096], *p, *conds = NULL, *end;
	const char *words[8] = {NULL};
	unsigned k, rate = 0, nw = 0;
	const char *rank = NULL;
	int q, at, nx;

	snprintf(text, sizeof(text), "%s", w->text);
	if (w->file == LUTBF_POLICIES) {
		/* "tbf <q> <type>": the policy "tbf <type>" on queue q */
		char name[16], queue[8], type[32], policy[64];

		ck_assert_int_eq(sscanf(text, "%15s %7s %31s", name, queue, type), 3);
		q = !strcmp(queue, "hp");
		ck_assert(q || !strcmp(queue, "reg"));
		ck_assert(!q || s->has_hp);
		snprintf(policy, sizeof(policy), "%s %s", name, type);
		if (strcmp(s->policy[q], policy))
			sim_fresh(s, q, policy);
		return 0;
	}
	/* "<q> start <name> <conds> rate=<n> rank=<r>[ realtime=1]" and the others */
	q = !strncmp(text, "hp ", 3);
	ck_assert_msg(!strncmp(text, q ? "hp " : "reg ", q ? 3 : 4), "%s", w->text);
	ck_assert(!q || s->has_hp);
	p = text + (q ? 3 : 4);
	if (!strncmp(p, "start ", 6)) {
		conds = strchr(p + 6, ' ');
		ck_assert_ptr_nonnull(conds);
		*conds++ = '\0';
		end = strrchr(conds, '}'); /* as Lustre cuts them */
		ck_assert_ptr_nonnull(end);
		*++end = '\0';
		words[nw++] = "start";
		words[nw++] = p + 6;
		p = end + 1;
	}
	for (; (p = strtok(p, " ")); p = NULL) {
		ck_assert(nw < 8);
		words[nw++] = p;
	}
	for (k = 2; k < nw; k++) {
		if (!strncmp(words[k], "rate=", 5))
			rate = (unsigned)strtoul(words[k] + 5, NULL, 10);
		else if (!strncmp(words[k], "rank=", 5))
			rank = words[k] + 5;
		else
			ck_assert_msg(!strcmp(words[k], "realtime=1"), "%s", w->text);
	}
	ck_assert_msg(strncmp(s->policy[q], "tbf", 3) == 0, "%s on %s", w->text, s->policy[q]);
	ck_assert(!rate || rate <= LUTBF_RATE_MAX);
	for (k = 0; k < s->ncpt; k++) {
		at = sim_find(s, q, k, words[1]);
		nx = rank ? sim_find(s, q, k, rank) : 0;
		if (!strcmp(words[0], "stop")) {
			ck_assert(strcmp(words[1], "default"));
			if (at >= 0)
				sim_remove(s, q, k, (unsigned)at);
		} else if (!strcmp(words[0], "start")) {
			struct srule r = {.rate = rate ? rate : 10000};

			ck_assert_msg(at < 0, "start of %s: EEXIST", words[1]);
			ck_assert_msg(nx >= 0, "rank=%s: ENOENT", rank);
			snprintf(r.name, sizeof(r.name), "%s", words[1]);
			snprintf(r.conds, sizeof(r.conds), "%s", conds);
			sim_insert(s, q, k, (unsigned)nx, &r);
		} else {
			struct srule r;

			ck_assert_msg(!strcmp(words[0], "change") && at >= 0, "%s", w->text);
			ck_assert(rate || rank);
			if (rate)
				s->r[q][k][at].rate = rate;
			if (rank) {
				ck_assert(nx >= 0);
				r = s->r[q][k][at];
				sim_remove(s, q, k, (unsigned)at);
				nx = sim_find(s, q, k, rank);
				sim_insert(s, q, k, (unsigned)nx, &r);
			}
		}
	}
	return 0;
}

/* The sim's two listings, parsed as lutbf_read() would. */
static void sim_shown(const struct sim *s, struct lutbf_shown *out)
{
	static char text[1 << 16];
	char msg[256];
	size_t n = 0;
	unsigned k, i;
	int q;

	n += (size_t)snprintf(text + n, sizeof(text) - n, "\n");
	for (q = 0; q < (s->has_hp ? 2 : 1); q++) {
		n += (size_t)snprintf(text + n, sizeof(text) - n,
				      "%s:\n  - name: fifo\n    state: started\n    fallback: yes\n"
				      "    queued: 0\n    active: 0\n\n",
				      q ? "high_priority_requests" : "regular_requests");
		if (strcmp(s->policy[q], "fifo"))
			n += (size_t)snprintf(
				text + n, sizeof(text) - n,
				"  - name: %s\n    state: started\n    fallback: no\n\n",
				s->policy[q]);
	}
	ck_assert_int_eq(lutbf_parse_policies(text, out, msg, sizeof(msg)), 0);
	n = 0;
	for (q = 0; q < (s->has_hp ? 2 : 1); q++) {
		n += (size_t)snprintf(text + n, sizeof(text) - n, "%s:\n",
				      q ? "high_priority_requests" : "regular_requests");
		if (!strcmp(s->policy[q], "fifo"))
			continue;
		for (k = 0; k < s->ncpt; k++) {
			n += (size_t)snprintf(text + n, sizeof(text) - n, "CPT %u:\n", k);
			for (i = 0; i < s->n[q][k]; i++)
				n += (size_t)snprintf(text + n, sizeof(text) - n,
						      "%s %s %u, ref 0\n", s->r[q][k][i].name,
						      s->r[q][k][i].conds, s->r[q][k][i].rate);
		}
	}
	ck_assert_int_eq(lutbf_parse_rules(text, out, msg, sizeof(msg)), 0);
}

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
			 "P: tbf reg nid | reg start cli nid={0@lo} rate=10 rank=default | "
			 "reg change default rate=5000 | P: tbf hp nid | hp start cli nid={0@lo} "
			 "rate=10 rank=default | hp change default rate=5000");
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
	s.r[1][0][2].rate = 5000;
	sim_shown(&s, &shown);
	said.n = 0;
	ck_assert_int_eq(lutbf_compare(&w, &shown, collect, &said), 2);
	ck_assert_str_eq(
		said.text[0],
		"ost_io reg CPT 1: rule cli rate is 50, lnetd wants 10 (20 RPC/s over 2 CPTs)");
	ck_assert_str_eq(said.text[1], "ost_io hp CPT 0: rule intruder (nid={1@lo}, rate 5) is not "
				       "lnetd's");
	ck_assert_int_eq(lutbf_plan(&w, &shown, &p), 0);
	ck_assert_str_eq(plan_text(&p), "reg change cli rate=10 | hp stop intruder");
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
			 "reg stop cli | reg start cli nid={0@lo} rate=10 rank=default");
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
	ck_assert_str_eq(plan_text(&p), "reg stop a | reg start a nid={0@lo} rate=15 rank=b");
	lutbf_plan_free(&p);
	converge(&s, &w);

	/* the CPT count changed since the conversion */
	lutbf_want_free(&w);
	want_of("nid", ba, 2, 1, true, &w);
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
