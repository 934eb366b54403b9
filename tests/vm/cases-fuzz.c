// SPDX-License-Identifier: GPL-2.0
/*
 * cases-fuzz.c - hostile generic netlink messages for every command of the
 * "lnetk" family (genl-test fuzz).
 *
 * A seeded generator builds each command's valid attribute tree from a
 * table of the contract (uapi/lnetk.h) and mutates it: attributes missing,
 * repeated, of the wrong size or type, out of their range, strings empty,
 * without NUL or too long, nests flat and flat attributes nested, nests
 * cut short, unknown attribute ids, attributes the command does not take,
 * huge repeat counts, random header flags and versions, NLM_F_DUMP where
 * there is no dump, unknown commands.  It knows which of its mutations the
 * contract promises to refuse ("poison": the policies, the genl core) and
 * which the command does not take, so it can judge each answer:
 *
 *   phase A  every message carries poison: each must be refused, and the
 *            instance must be byte-for-byte (and generation) as before;
 *   phase U  an unprivileged socket (uid 65534): every admin command is
 *            refused with EPERM, and nothing changes;
 *   phase B  poison, mutations and valid messages mixed (a quarter valid),
 *            so the handlers are reached deep: accepted changes may change
 *            the state, but nothing poisoned or not taken may be accepted,
 *            and afterwards the module must answer, take a change and its
 *            revert, and the kernel log must stay clean.
 *
 * Every refusal the module makes (not the genl core, not EPERM) must
 * carry an extack message and an errno the contract names; both are
 * counted per command.  Before the rounds, two deterministic cases: every
 * command (do and dump) with each attribute it does not take added to a
 * message it accepts, and BATCH on an instance its copy once could not
 * re-create (the regression cases of what this fuzzing found).
 *
 * The guest runs Debian's stock kernel: no KASAN, no kmemleak.  The
 * kernel log (/dev/kmsg) is read after each round for WARNING, BUG, Oops,
 * refcount and list corruption, lockdep and stall lines; the long mode
 * prints SUnreclaim and Slab every minute, after a reset to the base
 * state, to show a leak as growth.
 *
 * The environment (which the kernel fills from its command line: run.sh
 * passes LNETK_FUZZ_* through) sets the run:
 *   LNETK_FUZZ_SEED     the seed (default: from the clock; always printed)
 *   LNETK_FUZZ_ITERS    messages per round (default FUZZ_ITERS)
 *   LNETK_FUZZ_SECONDS  rounds until this many seconds have passed
 *   LNETK_FUZZ_ROUNDS   this many rounds (to replay a long run)
 * A round is phase A, U, B and U again, in shares 3:1:5:1.  Same seed,
 * same rounds: the same messages.
 *
 * This file holds the base state, the phases and the run; the contract's
 * tables are in fuzz-spec.c, the generator in fuzz-gen.c, sending and
 * judging in fuzz-check.c, the attributes not taken in fuzz-taken.c.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "fuzz.h"

#define FUZZ_ITERS 20000

/* --- the state the fuzzing starts from, again and again -------------------------------------- */

/* NIs, peers, a route, rules, a global and two TBF policies: something for every handler. */
static void base_state(struct lnetk *lk)
{
	const char *p1[] = {"10.7.0.101@tcp", "192.168.7.50@o2ib"}, *none[] = {NULL};
	struct lnetk_ni n1 = {.nid = "10.7.0.1@tcp"}, n2 = {.nid = "192.168.7.1@o2ib"};
	struct lnetk_route r = {.net = "o2ib7", .gateway = "10.7.0.50@tcp"};
	struct lnetk_rule r1 = {.src = "o2ib", .prio = 1, .idx = -1},
			  r2 = {.dst = "10.7.0.[100-101]@tcp", .prio = 0, .idx = -1},
			  r3 = {.src = "10.7.0.1@tcp",
				.dst = "10.7.0.100@tcp",
				.prio = 2,
				.idx = -1};

	lnetk_ni_add(lk, &n1, NULL);
	lnetk_ni_add(lk, &n2, NULL);
	lnetk_peer_add(lk, "10.7.0.100@tcp", true, p1, 2, NULL);
	lnetk_peer_add(lk, "172.16.7.1@o2ib7", true, none, 0, NULL);
	lnetk_route_add(lk, &r, NULL);
	lnetk_rule_add(lk, &r1, NULL, NULL, NULL);
	lnetk_rule_add(lk, &r2, NULL, NULL, NULL);
	lnetk_rule_add(lk, &r3, NULL, NULL, NULL);
	lnetk_global_set(lk, "numa_range", 5, NULL);
	lnetk_tbf_set(lk, "fz", -1, NULL, 0, NULL);
	lnetk_tbf_cmd(lk, "fz", "start r1 nid={10.7.0.[1-4]@tcp} rate=500", NULL);
	lnetk_tbf_set(lk, "fz2", LNETK_TBF_HP, "jobid", 4, NULL);
}

/* Back to the base state: objects, globals and the fuzzer's TBF policies. */
void reset_state(struct lnetk *lk)
{
	struct lnetk_batch *b;
	size_t i;

	if (!lnetk_batch_new(lk, LNETK_F_REPLACE, &b)) {
		lnetk_batch_send(b, NULL, NULL);
		lnetk_batch_free(b);
	}
	lnetk_rule_del_all(lk, NULL);
	for (i = 0; i < N(services); i++)
		lnetk_tbf_del(lk, services[i], NULL);
	base_state(lk);
}

/* --- the phases --------------------------------------------------------------------- */

struct cfg {
	uint64_t seed;
	long iters, seconds, rounds;
};

static long env_long(const char *name, long dflt)
{
	const char *v = getenv(name);

	return v && *v ? strtol(v, NULL, 0) : dflt;
}

struct gen *gbuf;

/* Phase A: @n poisoned messages; all refused, nothing changed. */
static bool phase_refuse(struct lnetk *lk, struct fsock *s, long n)
{
	struct state before, after;
	long i, bad = 0;
	bool same;

	state_take(lk, &before);
	for (i = 0; i < n; i++)
		if (!one_message(s, gbuf, PH_REFUSE, 30 + (int)below(60)))
			if (++bad > 20)
				break;
	state_take(lk, &after);
	same = state_same(&before, &after);
	if (!same)
		state_diff(&before, &after);
	state_free(&before);
	state_free(&after);
	return !bad && same;
}

struct unpriv_arg {
	int family;
	uint64_t seed;
	long n;
};

static int unpriv_child(void *arg)
{
	struct unpriv_arg *u = arg;
	struct fsock s;
	long i, bad = 0;

	rng = u->seed;
	if (drop_to_nobody() < 0 || fsock_open(&s, u->family) < 0)
		return 2;
	for (i = 0; i < u->n; i++)
		if (!one_message(&s, gbuf, PH_UNPRIV, (int)below(90)))
			if (++bad > 20)
				break;
	fsock_close(&s);
	return bad ? 1 : 0;
}

/* Phase U: @n messages from uid 65534; admin ones EPERM, nothing changed. */
static bool phase_unpriv(struct lnetk *lk, int family, long n)
{
	struct unpriv_arg u = {.family = family, .seed = rnd(), .n = n};
	struct state before, after;
	bool same;
	int v;

	state_take(lk, &before);
	v = in_child(unpriv_child, &u);
	state_take(lk, &after);
	same = state_same(&before, &after);
	if (!same)
		state_diff(&before, &after);
	state_free(&before);
	state_free(&after);
	if (v)
		diag("unprivileged child: exit status %d", v);
	return v == 0 && same;
}

/* Phase B: @n messages, a quarter valid; the base state comes back every 200. */
static bool phase_mixed(struct lnetk *lk, struct fsock *s, long n)
{
	long i, bad = 0;

	check_lk = lk;
	for (i = 0; i < n; i++) {
		if (i % 200 == 0)
			base_state(lk);
		if (!one_message(s, gbuf, PH_MIXED, chance(25) ? 0 : 5 + (int)below(40)))
			if (++bad > 20)
				break;
	}
	return !bad;
}

/* The module answers, takes a change and its revert, and reads back the same. */
static bool alive(struct lnetk *lk)
{
	struct lnetk_ni ni = {.nid = "10.7.9.9@tcp"};
	struct lnetk_info info;
	struct state before, after;
	bool ok;
	int rc;

	rc = lnetk_get_info(lk, &info, NULL);
	state_take(lk, &before);
	if (!rc)
		rc = lnetk_ni_add(lk, &ni, NULL);
	if (!rc)
		rc = lnetk_ni_del(lk, ni.nid, NULL);
	state_take(lk, &after);
	ok = !rc && !before.rc && !after.rc &&
	     after.snap.generation == before.snap.generation + 2 &&
	     before.snap.text.len == after.snap.text.len &&
	     !memcmp(before.snap.text.s, after.snap.text.s, before.snap.text.len) &&
	     before.tbf.len == after.tbf.len && !memcmp(before.tbf.s, after.tbf.s, before.tbf.len);
	if (!ok)
		diag("alive: %s; generation %" PRIu64 " -> %" PRIu64, errname(rc),
		     before.snap.generation, after.snap.generation);
	state_free(&before);
	state_free(&after);
	return ok;
}

/* One BATCH adding NI @nid, without LNETK_F_REPLACE: built on a copy of the instance. */
static int batch_one_ni(struct lnetk *lk, const char *nid, struct lnetk_err *err)
{
	struct lnetk_ni ni = {0};
	struct lnetk_batch *b;
	int rc = lnetk_batch_new(lk, 0, &b);

	snprintf(ni.nid, sizeof(ni.nid), "%s", nid);
	if (rc)
		return rc;
	rc = lnetk_batch_ni(b, &ni) ?: lnetk_batch_send(b, NULL, err);
	lnetk_batch_free(b);
	return rc;
}

/*
 * A BATCH is built on a copy of the instance, which re-adds every object:
 * the copy must not meet limits that came after the objects.  Found by
 * fuzzing as BATCH refused with "out of memory".
 */
static void case_batch_copy(struct lnetk *lk)
{
	struct lnetk_route r = {.net = "o2ib9", .gateway = "10.7.0.50@tcp"};
	struct lnetk_ni o2ib9 = {.nid = "192.168.9.1@o2ib9"};
	const char *none[] = {NULL};
	const char *pnids[20];
	char buf[20][LNETK_NID_MAX];
	struct lnetk_err err = {0};
	int i, rc, rc2;

	reset_state(lk);
	for (i = 0; i < 20; i++) {
		snprintf(buf[i], sizeof(buf[i]), "10.7.5.%d@tcp", i + 2);
		pnids[i] = buf[i];
	}
	rc = lnetk_peer_add(lk, "10.7.5.1@tcp", true, pnids, 20, NULL)
		     ?: lnetk_global_set(lk, "max_interfaces", 16, NULL);
	rc2 = rc ?: batch_one_ni(lk, "10.7.6.1@tcp", &err);
	diag("a peer of 21 NIDs, then max_interfaces 16: %s; a BATCH after: %s (%s)", errname(rc),
	     errname(rc2), err.msg);
	tap(!rc && !rc2, "fuzz: BATCH works after max_interfaces went below a peer's NIDs");

	reset_state(lk);
	memset(&err, 0, sizeof(err));
	rc = lnetk_route_add(lk, &r, NULL);
	rc2 = rc ?: lnetk_ni_add(lk, &o2ib9, NULL);
	diag("a route to o2ib9, then a local NI on o2ib9: %s, %s", errname(rc), errname(rc2));
	if (!rc && !rc2)
		rc2 = batch_one_ni(lk, "10.7.6.1@tcp", &err);
	diag("a BATCH after: %s (%s)", errname(rc2), err.msg);
	tap(!rc && !rc2, "fuzz: BATCH works after a routed net became a local one");

	/*
	 * The loopback NI is local: a route through it made an implicit peer
	 * 0@lo, which PEER_ADD then made explicit, and which no copy could
	 * make again (a peer's NID cannot be local).
	 */
	reset_state(lk);
	memset(&err, 0, sizeof(err));
	snprintf(r.gateway, sizeof(r.gateway), "0@lo");
	rc = lnetk_route_add(lk, &r, &err);
	diag("a route through 0@lo: %s (%s)", errname(rc), err.msg);
	rc2 = rc ? 0 : lnetk_peer_add(lk, "0@lo", true, none, 0, NULL);
	if (!rc2 && !rc)
		rc2 = batch_one_ni(lk, "10.7.6.1@tcp", &err);
	tap(rc == -EINVAL && err.msg[0] && !rc2,
	    "fuzz: a route through the loopback NI is refused (a gateway is a peer)");
	reset_state(lk);
}

/*
 * PEER_DEL lists NIDs to delete, the primary last of all: a NID listed
 * twice counted twice, so the primary could seem to go with every other
 * NID while one stayed; the others were deleted, then the primary was
 * refused (EBUSY), and the refusal had changed the peer.  Found by
 * fuzzing (LNETK_FUZZ_SEED=20261126, round 1614).
 */
static void case_peer_del_twice(struct lnetk *lk)
{
	static const char *const lists[][3] = {
		{"10.7.0.101@tcp", "10.7.0.100@tcp", "10.7.0.100@tcp"},
		{"10.7.0.101@tcp", "10.7.0.101@tcp", "10.7.0.100@tcp"},
	};
	struct state before, after;
	struct lnetk_err err;
	bool ok = true;
	size_t i;
	int rc;

	for (i = 0; i < N(lists); i++) {
		reset_state(lk);
		memset(&err, 0, sizeof(err));
		state_take(lk, &before);
		/* the peer has three NIDs: 192.168.7.50@o2ib is not listed */
		rc = lnetk_peer_del(lk, "10.7.0.100@tcp", lists[i], 3, &err);
		state_take(lk, &after);
		diag("PEER_DEL 10.7.0.100@tcp with %s, %s, %s: %s (%s)%s", lists[i][0], lists[i][1],
		     lists[i][2], errname(rc), err.msg,
		     state_same(&before, &after) ? "" : "; the peer changed");
		ok &= rc == -EBUSY && state_same(&before, &after);
		state_free(&before);
		state_free(&after);
	}
	reset_state(lk);
	tap(ok, "fuzz: PEER_DEL of a peer's primary and all but one NID, some listed twice, is "
		"refused and changes nothing");
}

static void report(double t0)
{
	int i;

	diag("%-14s %8s %8s %8s %8s %8s %8s", "command", "sent", "ok", "refused", "core", "eperm",
	     "no-ext");
	for (i = 0; i <= NCMDS; i++) {
		const struct stats *st = &fs->cmd[i];

		diag("%-14s %8" PRIu64 " %8" PRIu64 " %8" PRIu64 " %8" PRIu64 " %8" PRIu64
		     " %8" PRIu64,
		     i < NCMDS ? cmds[i].name : "(unknown)", st->sent, st->ok, st->refused,
		     st->core, st->eperm, st->noext);
	}
	diag("%" PRIu64 " messages (%" PRIu64 " dump replies) in %.1f s; SUnreclaim %ld kB",
	     fs->messages, fs->dump_msgs, now() - t0, meminfo("SUnreclaim"));
	for (i = 1; i < (int)N(fs->errnos); i++)
		if (fs->errnos[i])
			diag("refused with %s: %" PRIu64 "%s", errname(-i), fs->errnos[i],
			     documented(-i) ? "" : " (an errno the contract does not name)");
}

void cases_fuzz(void)
{
	struct cfg cfg;
	struct lnetk *lk;
	struct fsock s;
	bool ok_a = true, ok_u = true, ok_b = true;
	long round, na, nu, nb;
	uint64_t noext = 0, odd = 0;
	double t0 = now(), next_note = 0;
	int i, family;

	cfg.seed = (uint64_t)env_long("LNETK_FUZZ_SEED", 0);
	if (!cfg.seed) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		cfg.seed = (uint64_t)ts.tv_sec * 1000003u + (uint64_t)ts.tv_nsec % 1000003u;
		cfg.seed &= 0x7fffffffffffull;
	}
	cfg.iters = env_long("LNETK_FUZZ_ITERS", FUZZ_ITERS);
	cfg.seconds = env_long("LNETK_FUZZ_SECONDS", 0);
	cfg.rounds = env_long("LNETK_FUZZ_ROUNDS", cfg.seconds ? 0 : 1);
	rng = cfg.seed;
	diag("fuzz: seed %" PRIu64 ", %ld messages a round, %ld rounds, %ld s (replay: "
	     "LNETK_FUZZ_SEED=%" PRIu64 " LNETK_FUZZ_ITERS=%ld)",
	     cfg.seed, cfg.iters, cfg.rounds, cfg.seconds, cfg.seed, cfg.iters);

	fs = mmap(NULL, sizeof(*fs), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	gbuf = malloc(sizeof(*gbuf));
	if (fs == MAP_FAILED || !gbuf || new_netns()) {
		tap(false, "fuzz: set up (memory, a network namespace of its own)");
		return;
	}
	lk = open_or_fail("fuzz");
	if (!lk)
		return;
	family = lnetk_family(lk);
	if (fsock_open(&s, family) < 0) {
		tap(false, "fuzz: open a netlink socket");
		lnetk_close(lk);
		return;
	}
	kmsg_open();
	case_not_taken(lk, &s);
	case_batch_copy(lk);
	case_peer_del_twice(lk);
	reset_state(lk);
	na = cfg.iters * 3 / 10;
	nu = cfg.iters / 10;
	nb = cfg.iters / 2;
	for (round = 0; (cfg.rounds && round < cfg.rounds) ||
			(!cfg.rounds && now() - t0 < (double)cfg.seconds);
	     round++) {
		if (now() >= next_note) {
			/* after a reset: memory held by the kernel should not grow */
			diag("fuzz: round %ld at %.0f s: %" PRIu64 " messages, SUnreclaim %ld kB, "
			     "Slab %ld kB",
			     round, now() - t0, fs->messages, meminfo("SUnreclaim"),
			     meminfo("Slab"));
			next_note = now() + 60;
		}
		ok_a &= phase_refuse(lk, &s, na);
		ok_u &= phase_unpriv(lk, family, nu);
		ok_b &= phase_mixed(lk, &s, nb);
		ok_u &= phase_unpriv(lk, family, nu);
		reset_state(lk);
		kmsg_scan();
		if (!ok_a || !ok_u || !ok_b || kmsg_bad) {
			diag("fuzz: stopping after round %ld (replay with LNETK_FUZZ_ROUNDS=%ld)",
			     round, round + 1);
			round++;
			break;
		}
	}
	report(t0);
	for (i = 0; i < fs->nbad; i++)
		diag("first problems: %s", fs->first_bad[i]);
	for (i = 0; i < fs->nfindings; i++)
		diag("accepted, not taken: %s: %" PRIu64 " times", fs->finding[i].what,
		     fs->finding[i].count);
	for (i = 0; i < NCMDS; i++)
		noext += fs->cmd[i].noext;
	tap(ok_a,
	    "fuzz: every poisoned message is refused and the instance is as it was "
	    "(seed %" PRIu64 ")",
	    cfg.seed);
	tap(ok_u,
	    "fuzz: an unprivileged socket gets EPERM for every admin command and changes nothing");
	tap(ok_b && !fs->poison_accepted,
	    "fuzz: mixed messages: nothing poisoned is accepted, every message answered (%" PRIu64
	    " accepted poisoned, %" PRIu64 " unanswered)",
	    fs->poison_accepted, fs->lost);
	tap(!fs->refused_changed,
	    "fuzz: a refused change leaves the instance as it was (%" PRIu64 " of %" PRIu64
	    " checked did not)",
	    fs->refused_changed, fs->refusals_checked);
	tap(!fs->nottaken_accepted,
	    "fuzz: no command accepts an attribute it does not take (%" PRIu64 " did)",
	    fs->nottaken_accepted);
	tap(alive(lk), "fuzz: afterwards the module answers and takes a change and its revert");
	kmsg_scan();
	tap(kmsg_bad == 0, "fuzz: the kernel log has no warnings (%d lines)", kmsg_bad);
	for (i = 1; i < (int)N(fs->errnos); i++)
		if (!documented(-i))
			odd += fs->errnos[i];
	tap(odd == 0, "fuzz: every refusal has an errno the contract names (%" PRIu64 " not)", odd);
	tap(noext == 0,
	    "fuzz: every refusal of the module carries an extack message (%" PRIu64 " without)",
	    noext);
	fsock_close(&s);
	lnetk_close(lk);
	if (kmsg_fd >= 0)
		close(kmsg_fd);
	munmap(fs, sizeof(*fs));
	free(gbuf);
}
