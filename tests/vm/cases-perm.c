// SPDX-License-Identifier: GPL-2.0
/*
 * cases-perm.c - who may do what, and where.
 *
 * perm: an unprivileged caller (uid 65534, no capabilities) may read
 * everything and join the events group; every admin command is refused
 * with EPERM before its attributes are looked at (so without extack), and
 * nothing changes.
 *
 * netns: each network namespace has its own instance; creating one adds an
 * instance (the module's "instances" parameter), deleting it frees it.  And
 * its interfaces' renames (NETDEV_CHANGENAME): an NI follows its interface's
 * name, as lnetd configures it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vm.h"

/* --- an unprivileged caller ----------------------------------------------------- */

static int nop_ni(const struct lnetk_ni *ni, void *arg)
{
	++*(int *)arg;
	return 0;
}

static int nop_peer(const struct lnetk_peer *p, void *arg)
{
	++*(int *)arg;
	return 0;
}

static int nop_route(const struct lnetk_route *r, void *arg)
{
	++*(int *)arg;
	return 0;
}

static int nop_rule(const struct lnetk_rule *r, void *arg)
{
	++*(int *)arg;
	return 0;
}

static int nop_global(const struct lnetk_global *g, void *arg)
{
	++*(int *)arg;
	return 0;
}

static void nop_event(uint8_t cmd, uint64_t gen, void *arg)
{
}

static int nop_kv(void *arg, const char *key, uint64_t v)
{
	(void)key;
	(void)v;
	++*(int *)arg;
	return 0;
}

static int nop_fault(void *arg, const struct lnetk_fault_rule *f)
{
	(void)f;
	++*(int *)arg;
	return 0;
}

static int nop_queued(void *arg, const char *nid, uint32_t pings, uint64_t next_ms)
{
	(void)nid;
	(void)pings;
	(void)next_ms;
	++*(int *)arg;
	return 0;
}

static void read_ok(const char *what, int rc, int n, int want_min)
{
	tap(rc == 0 && n >= want_min, "unprivileged %s is allowed (%s, %d objects)", what,
	    errname(rc), n);
}

static void admin_refused(const char *what, int rc, const struct lnetk_err *err)
{
	tap(rc == -EPERM && !err->msg[0],
	    "unprivileged %s is refused with EPERM, before parsing (%s%s%s)", what, errname(rc),
	    err->msg[0] ? ", extack: " : "", err->msg);
}

static int unprivileged(void *arg)
{
	static const uint32_t dist[4] = {10, 20, 20, 10};
	const char *nids[] = {"10.9.0.111@tcp"};
	struct lnetk_ni ni = {.nid = "10.9.0.2@tcp"},
			set = {.has = LNETK_HAS_NI_HEALTH, .nid = "10.9.0.1@tcp", .health = 1};
	struct lnetk_peer_ni pset = {.has = LNETK_HAS_PNI_HEALTH, .nid = "10.9.0.101@tcp"};
	struct lnetk_route route = {.net = "o2ib7", .gateway = "10.9.0.77@tcp"};
	struct lnetk_rule rule = {.src = "tcp7", .prio = 1, .idx = -1};
	struct lnetk_select_req sreq = {.dst = "10.9.0.100@tcp", .md_cpt = -1};
	struct lnetk_selection sel;
	struct lnetk_events *ev = NULL;
	struct lnetk_batch *b = NULL;
	struct lnetk_peer *peer = NULL;
	static const char *const fkeys[] = {"source", "dest", "rate"}, *const fvals[] = {"*", "*",
											 "1"};
	struct lnetk_info info;
	struct lnetk_err err;
	struct lnetk *lk;
	struct raw *r;
	uint32_t id;
	char ext[256];
	int rc, n;

	if (drop_to_nobody() || lnetk_open(&lk)) {
		tap(false, "unprivileged: become uid %d and open a client", NOBODY);
		return 1;
	}
	/* Each read first, then its verdict: arguments are evaluated in no set order. */
	rc = lnetk_get_info(lk, &info, &err);
	read_ok("GET_INFO", rc, (int)info.count, 1);
	n = 0;
	rc = lnetk_ni_dump(lk, nop_ni, &n, &err);
	read_ok("NI_GET dump", rc, n, 2);
	rc = lnetk_ni_get(lk, "10.9.0.1@tcp", &ni, &err);
	read_ok("NI_GET of one NI", rc, 1, 1);
	n = 0;
	rc = lnetk_peer_dump(lk, nop_peer, &n, &err);
	read_ok("PEER_GET dump", rc, n, 2);
	rc = lnetk_peer_get(lk, "10.9.0.101@tcp", &peer, &err);
	read_ok("PEER_GET of one peer", rc, peer ? (int)peer->nnis : 0, 3);
	lnetk_peer_free(peer);
	n = 0;
	rc = lnetk_route_dump(lk, nop_route, &n, &err);
	read_ok("ROUTE_GET dump", rc, n, 1);
	n = 0;
	rc = lnetk_rule_dump(lk, nop_rule, &n, &err);
	read_ok("RULE_GET dump", rc, n, 3);
	n = 0;
	rc = lnetk_global_get(lk, nop_global, &n, &err);
	read_ok("GLOBAL_GET", rc, n, 12);
	n = 0;
	rc = lnetk_fault_list(lk, false, nop_fault, &n, &err);
	read_ok("FAULT_GET", rc, n, 0);
	n = 0;
	rc = lnetk_health_get(lk, "10.9.0.1@tcp", &(bool){false}, &(uint32_t){0}, nop_kv, &n, &err);
	read_ok("HEALTH_GET of an NI", rc, n, 6);
	n = 0;
	rc = lnetk_recovery_get(lk, true, nop_queued, &n, &err);
	read_ok("RECOVERY_GET", rc, n, 0);
	rc = lnetk_events_open(nop_event, NULL, &ev);
	tap(!rc, "unprivileged joining of the events group is allowed (%s)", errname(rc));
	lnetk_events_close(ev);

	strcpy(ni.nid, "10.9.0.2@tcp");
	admin_refused("BUMP", lnetk_bump(lk, 1, NULL, &err), &err);
	admin_refused("NI_ADD", lnetk_ni_add(lk, &ni, &err), &err);
	admin_refused("NI_SET", lnetk_ni_set(lk, &set, &err), &err);
	admin_refused("NI_DEL", lnetk_ni_del(lk, "10.9.0.1@tcp", &err), &err);
	admin_refused("PEER_ADD", lnetk_peer_add(lk, "10.9.0.100@tcp", true, nids, 1, &err), &err);
	admin_refused("PEER_DEL", lnetk_peer_del(lk, "10.9.0.100@tcp", NULL, 0, &err), &err);
	admin_refused("PEER_NI_SET", lnetk_peer_ni_set(lk, &pset, &err), &err);
	admin_refused("ROUTE_ADD", lnetk_route_add(lk, &route, &err), &err);
	admin_refused("ROUTE_DEL", lnetk_route_del(lk, "o2ib9", "10.9.0.50@tcp", &err), &err);
	admin_refused("RULE_ADD", lnetk_rule_add(lk, &rule, NULL, NULL, &err), &err);
	admin_refused("RULE_DEL", lnetk_rule_del(lk, 0, &err), &err);
	admin_refused("RULE_DEL of every rule", lnetk_rule_del_all(lk, &err), &err);
	admin_refused("GLOBAL_SET", lnetk_global_set(lk, "numa_range", 9, &err), &err);
	admin_refused("NUMA_SET", lnetk_numa_set(lk, 2, dist, &err), &err);
	admin_refused("SELECT", lnetk_select(lk, &sreq, &sel, NULL, &err), &err);
	admin_refused("FAULT add", lnetk_fault_add(lk, false, fkeys, fvals, 3, &id, &err), &err);
	admin_refused("FAULT reset", lnetk_fault_reset(lk, false, &err), &err);
	rc = lnetk_batch_new(lk, LNETK_F_REPLACE, &b) ?: lnetk_batch_ni(b, &ni);
	admin_refused("BATCH", rc ? rc : lnetk_batch_send(b, NULL, &err), &err);
	lnetk_batch_free(b);

	/* Garbage too: the permission check comes first. */
	r = raw_new(LNETK_CMD_NI_ADD);
	raw_u32(r, LNETK_A_MAX + 1, 1);
	raw_u8(r, LNETK_A_NI, 1);
	rc = raw_send(r, ext, sizeof(ext));
	tap(rc == -EPERM && !ext[0], "unprivileged malformed NI_ADD is refused with EPERM too (%s)",
	    errname(rc));
	lnetk_close(lk);
	return vm_failures;
}

void cases_perm(void)
{
	struct snapshot before, after;
	struct lnetk *lk;
	int v, rc;

	if (new_netns()) {
		tap(false, "perm: a network namespace of its own");
		return;
	}
	lk = open_or_fail("perm");
	if (!lk)
		return;
	rc = populate(lk);
	snapshot_take(lk, &before);
	v = in_child(unprivileged, NULL);
	snapshot_take(lk, &after);
	if (v)
		vm_failures++; /* its lines are printed; count it here too for the exit status */
	tap(!rc && !before.rc && snapshot_same(&before, &after),
	    "nothing an unprivileged caller sent changed the instance");
	snapshot_free(&before);
	snapshot_free(&after);
	lnetk_close(lk);
}

/* --- namespaces ----------------------------------------------------------------- */

#define INSTANCES "/sys/module/lnetk/parameters/instances"

static long instances(void)
{
	FILE *f = fopen(INSTANCES, "r");
	long n = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%ld", &n) != 1)
		n = -1;
	fclose(f);
	return n;
}

static int count_nis(struct lnetk *lk)
{
	int n = 0;

	return lnetk_ni_dump(lk, nop_ni, &n, NULL) ? -1 : n;
}

/* In a second namespace: empty, and free to hold the same NID as the first. */
static int second_namespace(void *arg)
{
	struct lnetk_ni ni = {.nid = "10.20.0.1@tcp"};
	struct lnetk_info info;
	struct lnetk *lk;
	int nis, rc;

	if (new_netns() || lnetk_open(&lk))
		return 1;
	rc = lnetk_get_info(lk, &info, NULL);
	nis = count_nis(lk);
	diag("second namespace: count %u, generation %" PRIu64 ", %d NIs", info.count,
	     info.generation, nis);
	if (rc || info.count || info.generation || nis)
		return 2;
	rc = lnetk_ni_add(lk, &ni, NULL);
	lnetk_close(lk);
	return rc ? 3 : 0;
}

static int first_namespace(void *arg)
{
	struct lnetk_ni ni = {.nid = "10.20.0.1@tcp"};
	struct snapshot before, after;
	struct lnetk *lk;
	int v, rc;

	if (new_netns() || lnetk_open(&lk))
		return 1;
	rc = lnetk_ni_add(lk, &ni, NULL) ?: populate(lk);
	snapshot_take(lk, &before);
	v = in_child(second_namespace, NULL);
	snapshot_take(lk, &after);
	diag("first namespace: populate %s, second namespace's verdict %d, state %s", errname(rc),
	     v, snapshot_same(&before, &after) ? "unchanged" : "changed");
	rc = rc || v || before.rc || !snapshot_same(&before, &after);
	snapshot_free(&before);
	snapshot_free(&after);
	lnetk_close(lk);
	return rc;
}

static void case_independent(void)
{
	struct snapshot before, after;
	struct lnetk *lk = open_or_fail("netns");
	int v;

	if (!lk)
		return;
	snapshot_take(lk, &before);
	v = in_child(first_namespace, NULL);
	snapshot_take(lk, &after);
	tap(v == 0 && snapshot_same(&before, &after),
	    "two network namespaces hold independent state: what one adds, the other and this one "
	    "do not see");
	snapshot_free(&before);
	snapshot_free(&after);
	lnetk_close(lk);
}

/*
 * Namespaces of earlier cases are torn down by a kernel worker some time
 * after their last process went: wait until only this one is left, so that
 * their going does not count as ours.
 */
static long settled_instances(void)
{
	double t0 = now();
	long n;

	while ((n = instances()) > 1 && now() - t0 < 120)
		usleep(20000);
	return n;
}

/* A namespace made, counted, dropped: the instance must come and go with it. */
static void case_instances(void)
{
	int up[2], down[2];
	long n0 = settled_instances(), n1 = -1, n2 = -1;
	double t0;
	pid_t pid;
	char c = 0;

	if (n0 < 0) {
		tap(false, "%s is readable", INSTANCES);
		return;
	}
	if (pipe(up) || pipe(down)) {
		tap(false, "instances: pipes");
		return;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		close(up[0]);
		close(down[1]);
		c = new_netns() ? 'x' : 'y';
		if (write(up[1], &c, 1) != 1 || read(down[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	close(up[1]);
	close(down[0]);
	if (pid > 0 && read(up[0], &c, 1) == 1 && c == 'y')
		n1 = instances();
	close(down[1]);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	close(up[0]);
	/* A namespace is torn down by a kernel worker, some time after its last user. */
	t0 = now();
	do {
		n2 = instances();
		if (n2 == n0)
			break;
		usleep(20000);
	} while (now() - t0 < 120);
	diag("instances: %ld, with one more namespace %ld, after it went %ld (%.2f s)", n0, n1, n2,
	     now() - t0);
	tap(n0 >= 1 && n1 == n0 + 1 && n2 == n0,
	    "a new namespace adds an instance, and deleting it frees it (the instances parameter)");
}

/* --- an interface renamed --------------------------------------------------------- */

static int ni_up(struct lnetk *lk, const char *nid)
{
	struct lnetk_ni ni;

	return lnetk_ni_get(lk, nid, &ni, NULL) ? -1 : ni.up;
}

/* Until NI @nid's link is @up (the module acts on link events in its own time). */
static bool until_up(struct lnetk *lk, const char *nid, int up)
{
	double t0 = now();

	while (ni_up(lk, nid) != up && now() - t0 < 120)
		usleep(20000);
	return ni_up(lk, nid) == up;
}

/*
 * In a namespace of its own: an NI on x9, an interface nothing is called
 * yet, with its address on x0 (down).  x0 renamed x9: the NI's link is x0's,
 * down; x9 up: up.  Then x9, down, renamed x7 and up again: the NI, on a
 * name no interface has, stays down (its link down since x9 went down; x7's
 * up is not its: a second NI on x7 coming up shows the event was taken).
 */
static int rename_child(void *arg)
{
	struct lnetk_ni ni = {.has = LNETK_HAS_NI_IFNAME, .nid = "10.77.9.1@tcp", .ifname = "x9"};
	struct lnetk_ni other = {
		.has = LNETK_HAS_NI_IFNAME, .nid = "10.77.9.2@tcp", .ifname = "x7"};
	struct lnetk_err err;
	struct lnetk *lk;
	bool down, up, gone, took;
	int rc;

	(void)arg;
	if (new_netns() || lnetk_open(&lk))
		return 1;
	rc = system("ip link set lo up && ip link add x0 type dummy && "
		    "ip addr add 10.77.9.1/24 dev x0 && ip addr add 10.77.9.2/24 dev x0");
	rc = rc ?: lnetk_ni_add(lk, &ni, &err) ?: lnetk_ni_add(lk, &other, &err);
	tap(!rc && ni_up(lk, ni.nid) == 1,
	    "rename: an NI on x9, which no interface is called (taken as up until told) (%s %s)",
	    errname(rc), err.msg);
	down = !rc && !system("ip link set x0 name x9") && until_up(lk, ni.nid, 0);
	tap(down, "rename: x0, down, renamed x9: the NI on x9 goes down with it");
	up = down && !system("ip link set x9 up") && until_up(lk, ni.nid, 1);
	tap(up, "rename: x9 up: the NI comes up");
	gone = up && !system("ip link set x9 down && ip link set x9 name x7") &&
	       until_up(lk, ni.nid, 0);
	took = gone && !system("ip link set x7 up") && until_up(lk, other.nid, 1);
	tap(took && ni_up(lk, ni.nid) == 0,
	    "rename: x9 renamed x7 and up: the NI on x7 comes up, the one on x9 stays down");
	lnetk_close(lk);
	return vm_failures;
}

static void case_rename(void)
{
	if (in_child(rename_child, NULL))
		vm_failures++;
}

void cases_netns(void)
{
	case_independent();
	case_instances();
	case_rename();
}
