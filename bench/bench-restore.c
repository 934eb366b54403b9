// SPDX-License-Identifier: GPL-2.0
/*
 * bench-restore - lnetd's start with a big configuration, with the
 * userspace engine: 64 NIs + 50,000 peers (100,000 NIDs) + 1,000 UDSP rules
 * from the store into the engine (lnetd_restore, then the NIs against the
 * host's interfaces), as lnetd does before it serves the bus.
 *
 *   R1  restore time (target <= 2 s on this machine), and its ratio to
 *       reading the same state out of SQLite alone in this run (what no
 *       restore can beat)
 *
 * Prints "name: value" lines and a final "ok" or "FAIL" (FAIL only when
 * something does not work, never for a time), and records the figure for
 * doc/BENCHMARKS.md (bench/figure.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench/figure.h"
#include "lnetd/lnetd.h"

#define NNIS   64
#define NPEERS 50000
#define NRULES 1000

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int fill(struct store *st)
{
	struct store_err err = {""};
	struct st_who who = {.command = "bench-restore"};
	char a[64], b[64], net[16], ifname[16];
	int i, rc = store_begin(st);

	for (i = 0; !rc && i < NNIS; i++) {
		struct st_ni ni = {.net = net, .ifname = ifname};

		st_ni_unset(&ni);
		snprintf(net, sizeof(net), "o2ib%d", i / 4);
		snprintf(ifname, sizeof(ifname), "bib%d", i);
		rc = store_ni_add(st, &ni, &err);
	}
	for (i = 0; !rc && i < NPEERS; i++) {
		const char *nids[1] = {b};
		struct st_peer p = {.nid = a, .mr = 1, .nnids = 1, .nids = nids};

		snprintf(a, sizeof(a), "10.%d.%d.1@o2ib%d", i / 250, i % 250, i % 16);
		snprintf(b, sizeof(b), "10.%d.%d.2@o2ib%d", i / 250, i % 250, (i + 1) % 16);
		rc = store_peer_add(st, &p, &err);
	}
	for (i = 0; !rc && i < NRULES; i++) {
		struct st_rule r = {.pos = -1, .priority = i % 7};
		int64_t pos;

		snprintf(a, sizeof(a), "10.%d.%d.[1-2]@o2ib%d", i / 250, i % 250, i % 16);
		r.dst = a;
		rc = store_rule_add(st, &r, &pos, &err);
	}
	if (!rc)
		rc = store_commit(st, &who, NULL, &err);
	if (rc)
		fprintf(stderr, "bench-restore: filling the store: %s\n", err.msg);
	return rc;
}

static void noop(void *data)
{
}

int main(void)
{
	char dir[] = "/tmp/bench-restore-XXXXXX", path[64];
	struct lnetd d = {.engine = "userspace"};
	struct store_err err = {""};
	double t0, t_read = 1e9, t_restore = 1e9;
	char fm[64], fb[64], fq[32];
	struct st_state state;
	char *why = NULL;
	int round, rc;

	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof(path), "%s/lnetd.db", dir);
	rc = store_open(path, &d.store, &err);
	if (!rc)
		rc = fill(d.store);
	if (!rc)
		rc = sd_event_default(&d.event);
	if (rc >= 0)
		rc = netif_open(d.event, noop, NULL, &d.netif);
	for (round = 0; rc >= 0 && round < 3; round++) {
		t0 = now();
		rc = store_state_get(d.store, &state);
		if (!rc) {
			double t = now() - t0;

			t_read = t < t_read ? t : t_read;
			st_state_clear(&state);
		}
		lne_inst_free(d.mirror);
		d.mirror = NULL;
		t0 = now();
		if (!rc)
			rc = lnetd_restore(&d, &d.mirror, &why);
		if (!rc)
			rc = lnetd_nis_load(&d);
		if (!rc)
			lnetd_nis_reconcile(&d);
		if (!rc) {
			double t = now() - t0;

			t_restore = t < t_restore ? t : t_restore;
		}
	}
	if (rc < 0 || rc > 0) {
		fprintf(stderr, "bench-restore: %s\n", why ?: strerror(rc < 0 ? -rc : rc));
		return 1;
	}
	printf("R1 objects restored: %d NIs, %d peers, %d NIDs, %u rules\n", NNIS, NPEERS,
	       2 * NPEERS, d.mirror->udsp.nrules);
	printf("R1 restore seconds (target <= 2): %.3f\n", t_restore);
	printf("R1 ratio restore / reading SQLite alone: %.2f\n", t_restore / t_read);
	bench_figure(
		"R1", "userspace",
		"lnetd's restore at start of 64 NIs + 50,000 peers (100,000 NIDs) + 1,000 rules "
		"÷ reading the same state out of SQLite alone (what no restore can beat)",
		bench_fmt(fm, "%.3f s", t_restore), bench_fmt(fb, "%.3f s reading SQLite", t_read),
		bench_fmt(fq, "%.2f", t_restore / t_read), "≤ 2 s", bench_verdict(t_restore <= 2));
	rc = d.mirror->udsp.nrules == NRULES && d.nnis == NNIS ? 0 : 1;
	lnetd_nis_free(&d);
	lne_inst_free(d.mirror);
	netif_close(d.netif);
	sd_event_unref(d.event);
	store_close(d.store);
	free(why);
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	if (system(path))
		rc = 1;
	printf("%s\n", rc ? "FAIL" : "ok");
	return rc;
}
