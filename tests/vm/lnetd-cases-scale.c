// SPDX-License-Identifier: GPL-2.0
/*
 * lnetd-cases-scale.c - lnetd-test's big configuration (64 NIs, 50,000
 * peers x 2 NIDs, 1,000 rules): filled by one Apply, and restored at
 * lnetd's start against one request per object.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <systemd/sd-bus.h>

#include "lnetd-test.h"

/* --- the big restore ------------------------------------------------------------------------ */

int apply_big(const struct restore *rs, double *secs)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *m = NULL, *reply = NULL;
	char net[16], ifname[16];
	unsigned int i;
	double t0;
	int rc;

	rc = sd_bus_message_new_method_call(bus, &m, MANAGER, "Apply");
	if (rc >= 0)
		rc = sd_bus_message_open_container(m, 'a', "(ssa{sv})");
	for (i = 0; rc >= 0 && i < SCALE_NNIS; i++) {
		snprintf(net, sizeof(net), "o2ib%u", i % 4 + 1);
		snprintf(ifname, sizeof(ifname), "b%u", i);
		rc = sd_bus_message_append(m, "(ssa{sv})", "add", "net", 2, "net", "s", net,
					   "interface", "s", ifname);
	}
	for (i = 0; rc >= 0 && i < SCALE_NPEERS; i++)
		rc = sd_bus_message_append(m, "(ssa{sv})", "add", "peer", 3, "primary", "s",
					   rs->nid[i][0], "nids", "as", 1, rs->nid[i][1],
					   "multi_rail", "b", 1);
	for (i = 0; rc >= 0 && i < SCALE_NRULES; i++) {
		const struct lnetk_rule *r = &rs->rule[i];

		rc = sd_bus_message_open_container(m, 'r', "ssa{sv}");
		if (rc >= 0)
			rc = sd_bus_message_append(m, "ss", "add", "udsp");
		if (rc >= 0)
			rc = sd_bus_message_open_container(m, 'a', "{sv}");
		if (rc >= 0 && r->src)
			rc = sd_bus_message_append(m, "{sv}", "src", "s", r->src);
		if (rc >= 0 && r->dst)
			rc = sd_bus_message_append(m, "{sv}", "dst", "s", r->dst);
		if (rc >= 0 && r->rte)
			rc = sd_bus_message_append(m, "{sv}", "rte", "s", r->rte);
		if (rc >= 0 && r->prio != LNETK_PRIO_NONE)
			rc = sd_bus_message_append(m, "{sv}", "priority", "u", r->prio);
		if (rc >= 0)
			rc = sd_bus_message_close_container(m);
		if (rc >= 0)
			rc = sd_bus_message_close_container(m);
	}
	if (rc >= 0)
		rc = sd_bus_message_close_container(m);
	if (rc >= 0)
		rc = sd_bus_message_append(m, "b", 0);
	t0 = now();
	if (rc >= 0)
		rc = sd_bus_call(bus, m, 600 * 1000000ULL, &e, &reply);
	*secs = now() - t0;
	if (rc < 0)
		diag("Apply of the big configuration: %s", e.message ?: strerror(-rc));
	sd_bus_error_free(&e);
	sd_bus_message_unref(m);
	sd_bus_message_unref(reply);
	return rc < 0 ? rc : 0;
}

/* Seconds until the module holds @count objects, or < 0. */
static double wait_count(uint32_t count, double limit)
{
	struct lnetk_info info = {0};
	double t0 = now();
	struct lnetk *lk = NULL;

	while (now() - t0 < limit) {
		if (!lk && lnetk_open(&lk))
			lk = NULL;
		if (lk && !lnetk_get_info(lk, &info, NULL) && info.count == count)
			break;
		usleep(10000);
	}
	lnetk_close(lk);
	return info.count == count ? now() - t0 : -1;
}

/* Shared with the child that times one request per object. */
static double *one_secs;

static int one_by_one(void *arg)
{
	struct restore *rs = arg;
	struct lnetk_err err;
	struct lnetk *lk;
	double t[2];
	int rc;

	if (new_netns() || lnetk_open(&lk))
		return 1;
	rc = restore_one_by_one(lk, rs, t, &err);
	lnetk_close(lk);
	if (rc) {
		diag("one request per object: %s (%s)", errname(rc), err.msg);
		return 1;
	}
	diag("one request per object: %.2f s (objects %.2f s, rules %.2f s)", t[0] + t[1], t[0],
	     t[1]);
	*one_secs = t[0] + t[1];
	return 0;
}

void case_scale(void)
{
	const uint32_t count = SCALE_NNIS + SCALE_NNIDS + SCALE_NRULES;
	struct restore *rs = restore_new();
	double t_start, t_ready, t_push, t_one, t0;
	uint64_t g0, g1;
	int rc, batches;

	if (valgrind) {
		printf("ok - the restore of %u objects at lnetd's start # SKIP too slow under "
		       "valgrind\n",
		       count);
		restore_free(rs);
		return;
	}
	if (access(BIG_STORE "/lnetd.db", F_OK)) {
		printf("ok - the restore of %u objects at lnetd's start # SKIP the host could not fill "
		       "the big store (tests/vm/work/fill.log)\n",
		       count);
		restore_free(rs);
		return;
	}
	one_secs = mmap(NULL, sizeof(*one_secs), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
			-1, 0);
	if (one_secs == MAP_FAILED)
		abort();

	/*
	 * The restore at start: an empty module, and lnetd's store holding the
	 * big configuration (filled on the host by "lnetd-test fill": the same
	 * Apply under TCG would take most of a minute, all of it in SQLite).
	 */
	stop_lnetd(SIGTERM);
	rc = sh("rmmod lnetk && insmod %s", ko)
		     ?: sh("for i in $(seq 0 %d); do ip link add b$i type dummy && ip addr add "
			   "192.168.$i.1/24 dev b$i && ip link set b$i up || exit 1; done",
			   SCALE_NNIS - 1)
		     ?: sh("mkdir -p " BIG_DIR " && cp " BIG_STORE "/lnetd.db* " BIG_DIR "/");
	batches = log_count("replacing batch");
	t0 = now();
	t_start = rc ? -1 : start_lnetd(BIG_DIR);
	t_ready = t_start >= 0 ? wait_count(count, WAIT_S * 5) : -1;
	if (t_ready >= 0)
		t_ready = now() - t0;
	t_push = log_number("objects pushed in ");
	sh("grep 'lnetk module' %s | tail -n 2 | sed 's/^/# /'", P.log);
	diag("bench: lnetd start over an empty module: bus name after %.2f s, %u objects in the "
	     "module after %.2f s; lnetd says %.2f s for the push",
	     t_start, count, t_ready, t_push);
	tap(t_ready >= 0 && t_push >= 0 && log_count("replacing batch") == batches + 1 &&
		    agree("after the restore at start", false),
	    "lnetd's start restores %u objects into an empty module with one batch, identical "
	    "to what it lists",
	    count);

	/* The same objects one request each, in a namespace of their own. */
	*one_secs = -1;
	in_child(one_by_one, rs);
	t_one = *one_secs;
	diag("bench: restore at lnetd's start: its push of %u objects in one batch %.2f s vs "
	     "one request per object %.2f s: ratio %.1f; the module held everything %.2f s "
	     "after lnetd started (its store read included)",
	     count, t_push, t_one, t_push > 0 && t_one > 0 ? t_one / t_push : 0, t_ready);

	/* kill -9 with the big state: the restart reads it back and changes nothing. */
	stop_lnetd(SIGKILL);
	g0 = module_generation();
	t_start = start_lnetd(BIG_DIR);
	g1 = module_generation();
	sh("grep 'lnetk module' %s | tail -n 1 | sed 's/^/# /'", P.log);
	diag("bench: lnetd restart over a module holding %u objects: %.2f s until it serves the "
	     "bus (it read the module back and compared)",
	     count, t_start);
	tap(t_start >= 0 && g0 && g0 == g1 && agree("after kill -9 at scale", false),
	    "kill -9 lnetd with %u objects and start it again: nothing in the module is changed "
	    "(generation %" PRIu64 " kept)",
	    count, g1);
	restore_free(rs);
	munmap(one_secs, sizeof(*one_secs));
}
