// SPDX-License-Identifier: GPL-2.0
/*
 * bench-tbf - the TBF scheduler's figure, measured against a plain FIFO in
 * the same run:
 *
 *   P5  dequeue decisions per second with 10,000 backlogged classes
 *       (target >= 5,000,000): draining 16 requests per class, and in a
 *       steady state where each dispatched request comes straight back
 *       (dequeue + enqueue); and the cost of that cycle over the same
 *       cycle through a plain linked-list FIFO (unlink the head, append at
 *       the tail) of the same requests.
 *
 * The clock is virtual: the classes' rates add up to 10^7 requests per
 * second and the clock moves 100 ns per decision, so every decision finds
 * about one class ready and the heap's top changes each time, as in a
 * loaded server.  Timings are the best of several rounds.  Prints "name:
 * value" lines and records the figure for doc/BENCHMARKS.md
 * (bench/figure.h); exits non-zero only if the scheduler misbehaves.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/figure.h"
#include "engine/tbf.h"

enum {
	CLASSES = 10000,
	PER_CLASS = 16,
	REQS = CLASSES * PER_CLASS,
	DECISIONS = 4000000,
	ROUNDS = 3,
};

struct breq {
	struct lne_tbf_req r;
	u32 who;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(const char *what, int rc)
{
	fprintf(stderr, "bench-tbf: %s failed (%d)\n", what, rc);
	exit(2);
}

static struct breq *make_reqs(void)
{
	struct breq *b = calloc(REQS, sizeof(*b));
	int i;

	if (!b)
		die("calloc", -ENOMEM);
	for (i = 0; i < REQS; i++) {
		u32 c = (u32)(i % CLASSES);

		b[i].who = c;
		b[i].r.nid.lnd = LNE_LND_TCP;
		b[i].r.nid.alen = 4;
		b[i].r.nid.addr[0] = 10;
		b[i].r.nid.addr[1] = 1;
		b[i].r.nid.addr[2] = (u8)(c >> 8);
		b[i].r.nid.addr[3] = (u8)c;
		b[i].r.opcode = 4; /* ost_write */
	}
	return b;
}

/* A policy with one rule and every request of @b queued at @now. */
static struct lne_tbf *loaded_policy(struct breq *b, u64 now)
{
	struct lne_tbf *tbf;
	struct lne_err err;
	int i, rc;

	rc = lne_tbf_new("ost_io", &tbf, &err);
	if (rc)
		die("lne_tbf_new", rc);
	rc = lne_tbf_command(tbf, "start io nid={10.1.*.*@tcp} rate=1000", 0, &err);
	if (rc)
		die(err.msg, rc);
	for (i = 0; i < REQS; i++) {
		rc = lne_tbf_enqueue(tbf, &b[i].r, LNE_TBF_REG, now);
		if (rc)
			die("enqueue", rc);
	}
	return tbf;
}

/* One round of TBF: returns seconds per dispatch; counts into @per_class. */
static double tbf_round(struct breq *b, u64 *per_class, u64 *decisions_out)
{
	u64 now = 1000000000ull, next, dispatched = 0, decisions = 0;
	struct lne_tbf *tbf;
	double t0, t1;
	int rc;

	tbf = loaded_policy(b, now);
	t0 = now_s();
	while (decisions < DECISIONS) {
		struct lne_tbf_req *r = lne_tbf_dequeue(tbf, now, &next);

		decisions++;
		if (!r) {
			now = next;
			continue;
		}
		dispatched++;
		per_class[lne_container_of(r, struct breq, r)->who]++;
		rc = lne_tbf_enqueue(tbf, r, LNE_TBF_REG, now);
		if (rc)
			die("enqueue", rc);
		now += 100;
	}
	t1 = now_s();
	lne_tbf_free(tbf);
	*decisions_out = decisions;
	return (t1 - t0) / (double)dispatched;
}

/* Dequeue every request: seconds per dequeue decision. */
static double drain_round(struct breq *b)
{
	u64 now = 1000000000ull, next, decisions = 0, dispatched = 0;
	struct lne_tbf *tbf;
	double t0, t1;

	tbf = loaded_policy(b, now);
	t0 = now_s();
	while (dispatched < REQS) {
		decisions++;
		if (!lne_tbf_dequeue(tbf, now, &next)) {
			if (next == LNE_TBF_NEVER)
				die("drain: requests lost", -EINVAL);
			now = next;
			continue;
		}
		dispatched++;
		now += 100;
	}
	t1 = now_s();
	lne_tbf_free(tbf);
	return (t1 - t0) / (double)decisions;
}

/* The same requests through a plain linked-list FIFO. */
static double fifo_round(struct breq *b, u64 *per_class)
{
	struct lne_list fifo;
	u64 n;
	double t0, t1;
	int i;

	lne_list_init(&fifo);
	for (i = 0; i < REQS; i++)
		lne_list_add_tail(&b[i].r.link, &fifo);
	t0 = now_s();
	for (n = 0; n < DECISIONS; n++) {
		struct lne_tbf_req *r = lne_list_entry(fifo.next, struct lne_tbf_req, link);

		lne_list_del(&r->link);
		per_class[lne_container_of(r, struct breq, r)->who]++;
		lne_list_add_tail(&r->link, &fifo);
	}
	t1 = now_s();
	return (t1 - t0) / (double)DECISIONS;
}

int main(void)
{
	u64 *per_class = calloc(CLASSES, sizeof(*per_class)), decisions = 0, lo, hi, total;
	double tbf = 1e9, fifo = 1e9, drain = 1e9, t;
	char fm[96], fb[64], fq[32];
	struct breq *b = make_reqs();
	int round, i;

	if (!per_class)
		die("calloc", -ENOMEM);
	for (round = 0; round < ROUNDS; round++) {
		t = tbf_round(b, per_class, &decisions);
		if (t < tbf)
			tbf = t;
		t = fifo_round(b, per_class);
		if (t < fifo)
			fifo = t;
		t = drain_round(b);
		if (t < drain)
			drain = t;
	}
	/* Functional check: equal rates, so every class got an equal share. */
	memset(per_class, 0, CLASSES * sizeof(*per_class));
	tbf_round(b, per_class, &decisions);
	lo = hi = per_class[0];
	for (i = 0, total = 0; i < CLASSES; i++) {
		total += per_class[i];
		lo = per_class[i] < lo ? per_class[i] : lo;
		hi = per_class[i] > hi ? per_class[i] : hi;
	}
	printf("P5 classes: %d, requests queued: %d\n", CLASSES, REQS);
	printf("P5 decisions per round: %llu, dispatched: %llu (per class %llu..%llu)\n",
	       (unsigned long long)decisions, (unsigned long long)total, (unsigned long long)lo,
	       (unsigned long long)hi);
	printf("P5 ns per TBF dequeue (drain): %.1f\n", drain * 1e9);
	printf("P5 ns per TBF cycle (dequeue + enqueue): %.1f\n", tbf * 1e9);
	printf("P5 ns per FIFO cycle (dequeue + enqueue): %.1f\n", fifo * 1e9);
	printf("P5 TBF dequeues/s with %d classes: %.0f\n", CLASSES, 1.0 / drain);
	printf("P5 TBF dequeue+enqueue cycles/s with %d classes: %.0f\n", CLASSES, 1.0 / tbf);
	printf("P5 ratio TBF/FIFO cost: %.1f\n", tbf / fifo);
	if (hi - lo > 2 || total < DECISIONS / 2) {
		printf("P5 FAIL: unequal shares or too few dispatches\n");
		return 1;
	}
	printf("P5 target >= 5000000 dequeues/s: %s\n", 1.0 / drain >= 5e6 ? "ok" : "below");
	bench_figure(
		"P5", "-",
		"TBF dequeue decisions per second with 10,000 backlogged classes; the ratio: a "
		"TBF dispatch cycle (dequeue + enqueue) ÷ the same cycle through a plain FIFO",
		bench_fmt(fm, "%.1f M dequeues/s (%.1f ns each); cycle %.1f ns", 1e-6 / drain,
			  drain * 1e9, tbf * 1e9),
		bench_fmt(fb, "FIFO cycle %.1f ns", fifo * 1e9), bench_fmt(fq, "%.1f", tbf / fifo),
		"≥ 5 M dequeues/s", bench_verdict(1.0 / drain >= 5e6));
	free(per_class);
	free(b);
	return 0;
}
