// SPDX-License-Identifier: GPL-2.0
/*
 * bench-engine - the engine's figures, each a ratio measured in this run:
 *
 *   P1  select() with 1,000 rules / with 0 rules, 4 local NIs x 4 peer NIs
 *       (target <= 1.05; ns per select printed too)
 *   P2  adding one rule with 50k peers x 2 NIDs and 1,000 rules present:
 *       incremental / recomputing every construct from every rule, the way
 *       upstream does it (target <= 0.01)
 *   P6  engine heap bytes per peer NI, peers included (target <= 256)
 *
 * Prints "name: value" lines and a final "ok" or "FAIL" (a missed target:
 * the exit status stays 0, it is a figure, not a test), and records each
 * figure for doc/BENCHMARKS.md (bench/figure.h).  Timings are the best of
 * several rounds, so a busy machine skews them less.
 */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/figure.h"
#include "engine/model.h"
#include "engine/select.h"
#include "engine/udsp.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static struct lne_nid ip(unsigned int lnd, unsigned int num, unsigned int a)
{
	struct lne_nid nid = {.lnd = (u8)lnd, .num = (u16)num, .alen = 4};

	nid.addr[0] = 10;
	nid.addr[1] = (u8)(a >> 16);
	nid.addr[2] = (u8)(a >> 8);
	nid.addr[3] = (u8)a;
	return nid;
}

static void die(const char *what, int rc)
{
	fprintf(stderr, "bench-engine: %s failed (%d)\n", what, rc);
	exit(2);
}

/* 1,000 rules of every kind; a few match the benchmark's constructs. */
static void add_rules(struct lne_inst *ln, int n)
{
	char src[64], dst[64];
	int i, rc;

	for (i = 0; i < n; i++) {
		unsigned int net = (unsigned int)i % 40 + 1;

		snprintf(src, sizeof(src), "10.%u.%u.[1-200]@o2ib%u", i / 256, i % 256, net);
		snprintf(dst, sizeof(dst), "10.%u.%u.*@tcp%u", i % 7, i % 256, net);
		switch (i % 5) {
		case 0:
			rc = lne_rule_add(
				ln, &(struct lne_rule_conf){.src = src, .priority = (u32)i % 9}, -1,
				NULL, NULL, NULL);
			break;
		case 1:
			rc = lne_rule_add(
				ln, &(struct lne_rule_conf){.dst = dst, .priority = (u32)i % 9}, -1,
				NULL, NULL, NULL);
			break;
		case 2:
			rc = lne_rule_add(ln,
					  &(struct lne_rule_conf){.src = src,
								  .dst = dst,
								  .priority = LNE_PRIO_NONE},
					  -1, NULL, NULL, NULL);
			break;
		case 3:
			rc = lne_rule_add(ln,
					  &(struct lne_rule_conf){.dst = dst,
								  .rte = src,
								  .priority = LNE_PRIO_NONE},
					  -1, NULL, NULL, NULL);
			break;
		default:
			snprintf(src, sizeof(src), "tcp%u", 100 + i);
			rc = lne_rule_add(
				ln, &(struct lne_rule_conf){.src = src, .priority = (u32)i % 9}, -1,
				NULL, NULL, NULL);
			break;
		}
		if (rc)
			die("rule add", rc);
	}
	/* And some that do apply to the constructs select() looks at. */
	if (lne_rule_add(ln, &(struct lne_rule_conf){.src = "10.0.0.[1-4]@tcp", .priority = 1}, -1,
			 NULL, NULL, NULL) ||
	    lne_rule_add(ln, &(struct lne_rule_conf){.dst = "10.0.1.[1-4]@tcp", .priority = 1}, -1,
			 NULL, NULL, NULL) ||
	    lne_rule_add(ln,
			 &(struct lne_rule_conf){.src = "10.0.0.[1-2]@tcp",
						 .dst = "10.0.1.*@tcp",
						 .priority = LNE_PRIO_NONE},
			 -1, NULL, NULL, NULL))
		die("rule add", -1);
}

static struct lne_inst *p1_instance(int rules)
{
	struct lne_inst *ln = lne_inst_new();
	struct lne_nid prim = ip(LNE_LND_TCP, 0, 0x101);
	unsigned int i;

	for (i = 1; i <= 4; i++) {
		struct lne_ni_conf c = {.nid = ip(LNE_LND_TCP, 0, i), .dev_cpt = LNE_CPT_ANY};

		if (lne_ni_add(ln, &c, NULL))
			die("ni add", -1);
	}
	if (lne_peer_add(ln, &(struct lne_peer_conf){.primary = prim, .multi_rail = true}, NULL))
		die("peer add", -1);
	for (i = 2; i <= 4; i++) {
		struct lne_nid n = ip(LNE_LND_TCP, 0, 0x100 + i);

		if (lne_peer_add_nid(ln, &prim, &n, NULL))
			die("peer nid add", -1);
	}
	if (rules)
		add_rules(ln, rules);
	return ln;
}

static double select_ns(struct lne_inst *ln, int iters)
{
	struct lne_sel_req req = {.dst = ip(LNE_LND_TCP, 0, 0x101), .md_cpt = LNE_CPT_ANY};
	struct lne_sel sel;
	double t = now();
	int i;

	for (i = 0; i < iters; i++)
		if (lne_select(ln, &req, &sel, NULL, NULL))
			die("select", -1);
	return (now() - t) * 1e9 / iters;
}

static double p1(void)
{
	struct lne_inst *a = p1_instance(0), *b = p1_instance(1000);
	double best0 = 1e9, best1 = 1e9, r;
	char fm[64], fb[64], fq[32];
	int round;

	/* Interleaved rounds: both see the same machine. */
	for (round = 0; round < 15; round++) {
		double t0 = select_ns(a, 200000), t1 = select_ns(b, 200000);

		best0 = t0 < best0 ? t0 : best0;
		best1 = t1 < best1 ? t1 : best1;
	}
	r = best1 / best0;
	printf("P1 select ns, 0 rules: %.1f\n", best0);
	printf("P1 select ns, 1000 rules: %.1f\n", best1);
	printf("P1 ratio (target <= 1.05): %.3f\n", r);
	bench_figure("P1", "-",
		     "select() with 1,000 UDSP rules ÷ with none (4 local NIs × 4 peer NIs)",
		     bench_fmt(fm, "%.1f ns per select, 1,000 rules", best1),
		     bench_fmt(fb, "%.1f ns, no rules", best0), bench_fmt(fq, "%.3f", r), "≤ 1.05",
		     bench_verdict(r <= 1.05));
	lne_inst_free(a);
	lne_inst_free(b);
	return r;
}

/* 50k peers x 2 NIDs, spread over four nets. */
static void add_peers(struct lne_inst *ln, unsigned int npeers)
{
	unsigned int i;

	for (i = 0; i < npeers; i++) {
		struct lne_nid a = ip(LNE_LND_O2IB, i % 4, i),
			       b = ip(LNE_LND_O2IB, i % 4, i + 0x800000);

		if (lne_peer_add(ln, &(struct lne_peer_conf){.primary = a, .multi_rail = true},
				 NULL) ||
		    lne_peer_add_nid(ln, &a, &b, NULL))
			die("peer add", -1);
	}
}

static double p2(void)
{
	struct lne_inst *ln = lne_inst_new();
	double inc = 1e9, full = 1e9, t, r;
	char fm[64], fb[64], fq[32];
	int round;

	add_peers(ln, 50000);
	add_rules(ln, 1000);
	for (round = 0; round < 3; round++) {
		t = now();
		if (lne_rule_add(ln,
				 &(struct lne_rule_conf){.dst = "10.*.*.[0-127]@o2ib2",
							 .priority = 3},
				 0, NULL, NULL, NULL))
			die("rule add", -1);
		t = now() - t;
		inc = t < inc ? t : inc;
		if (lne_rule_del(ln, 0, NULL))
			die("rule del", -1);
	}
	if (lne_rule_add(ln, &(struct lne_rule_conf){.dst = "10.*.*.[0-127]@o2ib2", .priority = 3},
			 0, NULL, NULL, NULL))
		die("rule add", -1);
	t = now();
	if (lne_udsp_recompute_all(ln))
		die("recompute", -1);
	full = now() - t;
	r = inc / full;
	printf("P2 add one rule, incremental ms: %.3f\n", inc * 1e3);
	printf("P2 recompute everything ms: %.1f\n", full * 1e3);
	printf("P2 ratio (target <= 0.01): %.5f\n", r);
	bench_figure("P2", "-",
		     "adding one UDSP rule incrementally ÷ recomputing every construct from every "
		     "rule, as upstream does (50,000 peers × 2 NIDs, 1,000 rules)",
		     bench_fmt(fm, "%.3f ms incremental", inc * 1e3),
		     bench_fmt(fb, "%.1f ms, everything", full * 1e3), bench_fmt(fq, "%.5f", r),
		     "≤ 0.01", bench_verdict(r <= 0.01));
	lne_inst_free(ln);
	return r;
}

static double p6(void)
{
	struct mallinfo2 before = mallinfo2(), after;
	struct lne_inst *ln = lne_inst_new();
	char fm[64], fb[64], fq[32];
	double per;

	add_peers(ln, 50000);
	after = mallinfo2();
	per = (double)(after.uordblks + after.hblkhd - before.uordblks - before.hblkhd) /
	      (double)ln->npni;
	printf("P6 peer NIs: %u\n", ln->npni);
	printf("P6 bytes per peer NI (target <= 256): %.1f\n", per);
	bench_figure("P6", "-",
		     "the engine's heap per peer NI, its peer included (50,000 peers × 2 NIDs), ÷ "
		     "the bare NID it holds",
		     bench_fmt(fm, "%.1f bytes per peer NI", per),
		     bench_fmt(fb, "%zu bytes (sizeof struct lne_nid)", sizeof(struct lne_nid)),
		     bench_fmt(fq, "%.1f", per / (double)sizeof(struct lne_nid)), "≤ 256 bytes",
		     bench_verdict(per <= 256));
	lne_inst_free(ln);
	return per;
}

int main(void)
{
	double r1 = p1(), r2 = p2(), r6 = p6();
	bool ok = r1 <= 1.05 && r2 <= 0.01 && r6 <= 256;

	printf("%s\n", ok ? "ok" : "FAIL");
	return 0;
}
