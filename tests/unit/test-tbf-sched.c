// SPDX-License-Identifier: GPL-2.0
/*
 * NRS TBF: rule order, matching and re-matching, and the scheduler on a
 * virtual clock: rates, starvation, exact tokens, the highest rate, hp and
 * realtime order, statistics, class limits and reclaim.  Part of the tbf
 * suite (test-tbf.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/tbf.h"
#include "test-tbf.h"

#define SEC 1000000000ull

struct treq {
	struct lne_tbf_req r;
	int who;
	enum lne_tbf_queue q;
};

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

/* --- rules and classes ------------------------------------------------------------------ */

/* The rule request @r follows in the reg queue (enqueued and dequeued again). */
static const char *rule_of_req(struct lne_tbf *tbf, struct lne_tbf_req *r)
{
	const struct lne_tbf_class *c;
	const char *name;
	u64 next;

	ck_assert_int_eq(lne_tbf_enqueue(tbf, r, LNE_TBF_REG, 0), 0);
	c = lne_tbf_class_find(tbf, LNE_TBF_REG, r);
	ck_assert_ptr_eq(c, r->cls);
	name = lne_tbf_class_rule(tbf, c)->name;
	ck_assert_str_eq(c->rule->name, name);
	ck_assert_ptr_eq(lne_tbf_dequeue_queue(tbf, LNE_TBF_REG, 0, &next), r);
	return name;
}

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

/*
 * Every request field, alone: a rule on it matches a request that agrees on
 * that field only, and not one that differs on that field only.  The cases
 * are indexed by field, so a field added to tbf.h without a case here fails
 * (its condition is NULL), as a match that falls to another field would.
 */
START_TEST(every_field_alone)
{
	static const struct {
		const char *cond; /* the rule's condition on the field */
		const char *nid, *jobid;
		int n;	 /* a u32 field: its index in .num[], else -1 */
		u32 num; /* its value */
	} cases[LNE_TBF_NFIELDS + 1] = {
		[LNE_TBF_I_NID] = {"nid={192.168.7.7@tcp}", "192.168.7.7@tcp", NULL, -1, 0},
		[LNE_TBF_I_JOBID] = {"jobid={dd.*}", NULL, "dd.7", -1, 0},
		[LNE_TBF_I_OPCODE] = {"opcode={ost_write}", NULL, NULL, LNE_TBF_N_OPCODE, 4},
		[LNE_TBF_I_UID] = {"uid={77}", NULL, NULL, LNE_TBF_N_UID, 77},
		[LNE_TBF_I_GID] = {"gid={77}", NULL, NULL, LNE_TBF_N_GID, 77},
		[LNE_TBF_I_PROJID] = {"projid={77}", NULL, NULL, LNE_TBF_N_PROJID, 77},
	};
	int i;

	ck_assert_ptr_null(cases[LNE_TBF_NFIELDS].cond);
	for (i = 0; i < LNE_TBF_NFIELDS; i++) {
		struct lne_tbf *tbf = policy(LNE_TBF_FIELD_LIST(LNE_TBF_FIELD_NAME, "+"));
		struct lne_tbf_req r;
		char name[16], cmd[128];

		ck_assert_msg(cases[i].cond, "field %d has no case", i);
		ck_assert_int_lt(lne_tbf_type_format((u8)(1u << i), name, sizeof(name)),
				 (int)sizeof(name));
		ck_assert_msg(!strncmp(cases[i].cond, name, strlen(name)), "%s: not %s",
			      cases[i].cond, name);
		snprintf(cmd, sizeof(cmd), "start f %s", cases[i].cond);
		cmd_ok(tbf, cmd, 0);
		/* agreeing on the field alone, every other field as the base request */
		req_set(&r, cases[i].nid ? cases[i].nid : "10.0.0.1@tcp",
			cases[i].jobid ? cases[i].jobid : "make.1", 1, 9, 9);
		r.projid = 9;
		if (cases[i].n >= 0)
			r.num[cases[i].n] = cases[i].num;
		ck_assert_str_eq(rule_of_req(tbf, &r), "f");
		/* the base request: differs on the field alone */
		req_set(&r, "10.0.0.1@tcp", "make.1", 1, 9, 9);
		r.projid = 9;
		ck_assert_str_eq(rule_of_req(tbf, &r), "default");
		lne_tbf_free(tbf);
	}
}
END_TEST

/*
 * Lustre's TBF projid (nrs_tbf.c's NRS_TBF_FLAG_PROJID): a queue keyed by
 * project ID takes projid={...} conditions, matches a request by its
 * projid, and says a class's projid.
 */
START_TEST(projid_field)
{
	struct lne_tbf *tbf = policy("uid+projid");
	const struct lne_tbf_class *c;
	struct lne_tbf_req r;
	char text[64];
	u64 next;

	cmd_ok(tbf, "start proj projid={500 501}&uid={0} rate=10", 0);
	ck_assert_int_gt(lne_tbf_type_format(LNE_TBF_UID | LNE_TBF_PROJID, text, sizeof(text)), 0);
	ck_assert_str_eq(text, "uid+projid");
	ck_assert_int_gt(lne_tbf_rule_format(lne_tbf_rule_next(tbf, LNE_TBF_REG, NULL), text,
					     sizeof(text)),
			 0);
	ck_assert_str_eq(text, "start proj projid={500 501}&uid={0} rate=10");

	req_set(&r, "10.0.0.1@tcp", "", 1, 0, 9);
	r.projid = 501;
	ck_assert_int_eq(lne_tbf_enqueue(tbf, &r, LNE_TBF_REG, 0), 0);
	c = lne_tbf_class_find(tbf, LNE_TBF_REG, &r);
	ck_assert_str_eq(lne_tbf_class_rule(tbf, c)->name, "proj");
	ck_assert_int_gt(lne_tbf_class_format(c, text, sizeof(text)), 0);
	ck_assert_str_eq(text, "uid=0 projid=501");
	ck_assert_ptr_eq(lne_tbf_dequeue_queue(tbf, LNE_TBF_REG, 0, &next), &r);
	/* another project, same uid: another class, the default rule's */
	r.projid = 7;
	ck_assert_str_eq(rule_of_req(tbf, &r), "default");
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

void tbf_sched_tests(TCase *tc)
{
	tcase_add_test(tc, matching);
	tcase_add_test(tc, projid_field);
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
	tcase_add_test(tc, every_field_alone);
	tcase_add_test(tc, opcodes_table);
}
