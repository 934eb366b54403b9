// SPDX-License-Identifier: GPL-2.0
/*
 * cases-scale.c - 100,000 peer NIDs: restoring them one message per object
 * and in one batch (both must give the same state; the ratio of their times
 * is printed as a benchmark figure, target 10x), dumping them
 * whole (every NID exactly once), dumping them in small messages (resumed
 * from a cursor each time) and noticing a change made halfway through
 * (NLM_F_DUMP_INTR), and a batch with one bad item in the middle, which
 * must change nothing and name that item.
 *
 * The restore is the one lnetd does at start: 64 NIs, 50,000 peers with two
 * NIDs each, 1,000 rules that mostly name nets with nothing on them (as
 * bench/bench-engine.c's add_rules does).  Each restore gets a network
 * namespace of its own, so both start from an empty instance.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vm.h"

#define NNIS   SCALE_NNIS
#define NPEERS SCALE_NPEERS
#define NRULES SCALE_NRULES
#define NNIDS  SCALE_NNIDS

static void ni_at(unsigned int k, struct lnetk_ni *ni)
{
	memset(ni, 0, sizeof(*ni));
	snprintf(ni->nid, sizeof(ni->nid), "192.168.%u.1@o2ib%u", k, k % 4 + 1);
}

/* Peer @i: 10.a.b.c and 11.a.b.c on o2ib1..4. */
static void peer_at(unsigned int i, char *a, char *b)
{
	snprintf(a, LNETK_NID_MAX, "10.%u.%u.%u@o2ib%u", i >> 16, (i >> 8) & 255, i & 255,
		 i % 4 + 1);
	snprintf(b, LNETK_NID_MAX, "11.%u.%u.%u@o2ib%u", i >> 16, (i >> 8) & 255, i & 255,
		 i % 4 + 1);
}

/* bench-engine.c's add_rules, the last three made to touch what exists. */
static void rule_at(unsigned int i, struct lnetk_rule *r, char *src, char *dst)
{
	unsigned int net = i % 40 + 1;

	memset(r, 0, sizeof(*r));
	r->idx = -1;
	r->prio = LNETK_PRIO_NONE;
	snprintf(src, 64, "10.%u.%u.[1-200]@o2ib%u", i / 256, i % 256, net);
	snprintf(dst, 64, "10.%u.%u.*@tcp%u", i % 7, i % 256, net);
	if (i >= NRULES - 3) {
		snprintf(src, 64, "192.168.[0-15].1@o2ib1");
		snprintf(dst, 64, "10.0.0.[1-200]@o2ib1");
	}
	if (i == NRULES - 3) {
		r->src = src;
		r->prio = 1;
	} else if (i == NRULES - 2) {
		r->dst = dst;
		r->prio = 1;
	} else if (i == NRULES - 1) {
		r->src = src;
		r->dst = dst;
	} else if (i % 5 == 0) {
		r->src = src;
		r->prio = i % 9;
	} else if (i % 5 == 1) {
		r->dst = dst;
		r->prio = i % 9;
	} else if (i % 5 == 2) {
		r->src = src;
		r->dst = dst;
	} else if (i % 5 == 3) {
		r->dst = dst;
		r->rte = src;
	} else {
		snprintf(src, 64, "tcp%u", 100 + i);
		r->src = src;
		r->prio = i % 9;
	}
}

struct restore *restore_new(void)
{
	struct restore *rs = calloc(1, sizeof(*rs));
	unsigned int i;

	rs->nid = calloc(NPEERS, sizeof(*rs->nid));
	rs->expr = calloc(NRULES, sizeof(*rs->expr));
	if (!rs->nid || !rs->expr)
		abort();
	for (i = 0; i < NNIS; i++)
		ni_at(i, &rs->ni[i]);
	for (i = 0; i < NPEERS; i++)
		peer_at(i, rs->nid[i][0], rs->nid[i][1]);
	for (i = 0; i < NRULES; i++)
		rule_at(i, &rs->rule[i], rs->expr[i][0], rs->expr[i][1]);
	return rs;
}

void restore_free(struct restore *rs)
{
	free(rs->nid);
	free(rs->expr);
	free(rs);
}

int restore_one_by_one(struct lnetk *lk, const struct restore *rs, double t[2],
		       struct lnetk_err *err)
{
	double t0 = now();
	unsigned int i;
	int rc = 0;

	for (i = 0; !rc && i < NNIS; i++)
		rc = lnetk_ni_add(lk, &rs->ni[i], err);
	for (i = 0; !rc && i < NPEERS; i++) {
		const char *nids[1] = {rs->nid[i][1]};

		rc = lnetk_peer_add(lk, rs->nid[i][0], true, nids, 1, err);
	}
	t[0] = now() - t0;
	for (i = 0; !rc && i < NRULES; i++)
		rc = lnetk_rule_add(lk, &rs->rule[i], NULL, NULL, err);
	t[1] = now() - t0 - t[0];
	return rc;
}

enum parts {
	OBJECTS = 1,
	RULES = 2,
};

struct batch_run {
	uint32_t flags;
	unsigned int parts; /* enum parts */
	int bad_at;	    /* the item given a NID that does not parse, or -1 */
	uint32_t applied;
	size_t bytes;
	double build, send; /* seconds */
};

static int restore_batch(struct lnetk *lk, const struct restore *rs, struct batch_run *br,
			 struct lnetk_err *err)
{
	double t0 = now();
	struct lnetk_batch *batch;
	unsigned int i;
	int rc;

	rc = lnetk_batch_new(lk, br->flags, &batch);
	for (i = 0; !rc && (br->parts & OBJECTS) && i < NNIS; i++)
		rc = lnetk_batch_ni(batch, &rs->ni[i]);
	for (i = 0; !rc && (br->parts & OBJECTS) && i < NPEERS; i++) {
		const char *nids[1] = {rs->nid[i][1]};

		if ((int)lnetk_batch_items(batch) == br->bad_at)
			nids[0] = "10.0.0.300@o2ib1";
		rc = lnetk_batch_peer(batch, rs->nid[i][0], true, nids, 1);
	}
	for (i = 0; !rc && (br->parts & RULES) && i < NRULES; i++)
		rc = lnetk_batch_rule(batch, &rs->rule[i]);
	br->build = now() - t0;
	if (!rc) {
		br->bytes = lnetk_batch_bytes(batch);
		rc = lnetk_batch_send(batch, &br->applied, err);
	}
	br->send = now() - t0 - br->build;
	lnetk_batch_free(batch);
	return rc;
}

/* --- whole dumps --------------------------------------------------------------------- */

struct census {
	unsigned char seen[NNIDS];
	unsigned int peers, nids, dups, strangers, bad_shape, stop_after;
	struct lnetk *changer; /* make a change when stop_after peers were seen */
	int change_rc;
};

static int nid_index(const char *nid)
{
	unsigned int o1, o2, o3, o4, net;
	int i;

	if (sscanf(nid, "%u.%u.%u.%u@o2ib%u", &o1, &o2, &o3, &o4, &net) != 5 ||
	    (o1 != 10 && o1 != 11))
		return -1;
	i = (int)(o2 << 16 | o3 << 8 | o4);
	if (i >= NPEERS || net != (unsigned int)i % 4 + 1)
		return -1;
	return (o1 == 10 ? 0 : NPEERS) + i;
}

static int census_peer(const struct lnetk_peer *p, void *arg)
{
	struct census *c = arg;
	size_t k;

	c->peers++;
	if (p->nnis != 2 || nid_index(p->primary) < 0 || nid_index(p->primary) >= NPEERS)
		c->bad_shape++;
	for (k = 0; k < p->nnis; k++) {
		int i = nid_index(p->nis[k].nid);

		c->nids++;
		if (i < 0)
			c->strangers++;
		else if (c->seen[i]++)
			c->dups++;
	}
	if (c->changer && c->peers == c->stop_after) {
		struct lnetk_ni set = {.has = LNETK_HAS_NI_HEALTH, .health = 999};

		ni_at(0, &set);
		set.has = LNETK_HAS_NI_HEALTH;
		set.health = 999;
		c->change_rc = lnetk_ni_set(c->changer, &set, NULL);
	}
	return 0;
}

static unsigned int census_missing(const struct census *c)
{
	unsigned int i, n = 0;

	for (i = 0; i < NNIDS; i++)
		n += !c->seen[i];
	return n;
}

static bool census_complete(const struct census *c)
{
	return c->peers == NPEERS && c->nids == NNIDS && !c->dups && !c->strangers &&
	       !c->bad_shape && !census_missing(c);
}

static void census_diag(const char *what, int rc, const struct census *c, unsigned int reads,
			double secs)
{
	diag("%s: %s, %u peers, %u NIDs, %u missing, %u twice, %u unknown, %u misshapen; %u "
	     "reads, %.2f s",
	     what, errname(rc), c->peers, c->nids, census_missing(c), c->dups, c->strangers,
	     c->bad_shape, reads, secs);
}

static void case_dumps(struct lnetk *lk)
{
	struct census *c = calloc(1, sizeof(*c));
	struct lnetk *small = NULL;
	unsigned int msgs;
	double t0;
	int rc;

	t0 = now();
	rc = lnetk_peer_dump(lk, census_peer, c, NULL);
	census_diag("peer dump", rc, c, lnetk_last_reads(lk), now() - t0);
	tap(!rc && census_complete(c),
	    "a peer dump of 50,000 peers x 2 NIDs gives every NID exactly once");

	/* 4 KiB reads: the kernel fills 4 KiB messages, resuming from its cursor for each. */
	memset(c, 0, sizeof(*c));
	rc = lnetk_open_buffer(&small, 4096);
	t0 = now();
	if (!rc)
		rc = lnetk_peer_dump(small, census_peer, c, NULL);
	msgs = small ? lnetk_last_reads(small) : 0;
	census_diag("peer dump, 4 KiB reads", rc, c, msgs, now() - t0);
	tap(!rc && census_complete(c) && msgs >= 1000,
	    "the same dump through a 4 KiB receive buffer takes %u reads, each resumed where the "
	    "last stopped, and is still complete",
	    msgs);

	/* A change halfway through: the messages from then on carry NLM_F_DUMP_INTR. */
	memset(c, 0, sizeof(*c));
	c->changer = lk;
	c->stop_after = NPEERS / 2;
	rc = small ? lnetk_peer_dump(small, census_peer, c, NULL) : -EIO;
	diag("dump with a change after %u peers: %s (the change: %s)", c->stop_after, errname(rc),
	     errname(c->change_rc));
	tap(rc == -EAGAIN && !c->change_rc,
	    "a change made between two messages of a dump sets NLM_F_DUMP_INTR (the client says "
	    "EAGAIN)");

	memset(c, 0, sizeof(*c));
	rc = small ? lnetk_peer_dump(small, census_peer, c, NULL) : -EIO;
	tap(!rc && census_complete(c), "dumping again after the change is consistent and complete");
	lnetk_close(small);
	free(c);
}

/* --- a batch with one bad item --------------------------------------------------------- */

static void bad_batch_diag(const char *what, int rc, const struct lnetk_err *err)
{
	diag("%s: %s, extack \"%s\", offset %d -> item %d", what, errname(rc), err->msg,
	     err->attr_offset, err->item);
}

/* 1,000 new peers, the 500th with a NID that does not parse, added to what is there. */
static void case_bad_batch(struct lnetk *lk)
{
	char a[LNETK_NID_MAX], b[LNETK_NID_MAX];
	const char *nids[1] = {b};
	struct snapshot before, after;
	struct lnetk_batch *batch;
	struct lnetk_err err;
	unsigned int i;
	int rc;

	snapshot_take(lk, &before);
	rc = lnetk_batch_new(lk, 0, &batch);
	for (i = 0; !rc && i < 1000; i++) {
		snprintf(a, sizeof(a), "12.0.%u.%u@o2ib1", i >> 8, i & 255);
		snprintf(b, sizeof(b), "13.0.%u.%u@o2ib1", i >> 8, i & 255);
		if (i == 500)
			strcpy(b, "13.0.1.300@o2ib1");
		rc = lnetk_batch_peer(batch, a, true, nids, 1);
	}
	if (!rc)
		rc = lnetk_batch_send(batch, NULL, &err);
	lnetk_batch_free(batch);
	snapshot_take(lk, &after);
	bad_batch_diag("batch of 1000 peers, item 500 bad", rc, &err);
	tap(rc == -EINVAL && err.msg[0] && err.item == 500 && !before.rc &&
		    snapshot_same(&before, &after),
	    "a batch with one bad item in the middle is refused, names the item (%d) and changes "
	    "nothing",
	    err.item);
	snapshot_free(&before);
	snapshot_free(&after);
}

/*
 * PEER_ADD refused after some of its NIDs went in: they come out again.
 * For a peer that was there (peer 5 of the restore), and for a route's
 * implicit gateway, which PEER_ADD makes explicit and must make implicit
 * again.  The module looks the peer up once and adds its NIDs to it in hand.
 */
static void case_bad_peer_add(struct lnetk *lk)
{
	const char *taken[] = {"12.9.9.1@o2ib2", "12.9.9.2@o2ib1", "11.0.0.7@o2ib4"},
		   *bad[] = {"12.9.9.3@o2ib1", "12.9.9.4@o2ib1", "12.9.9.300@o2ib1"};
	struct lnetk_route rt = {.net = "o2ib9", .gateway = "12.9.9.9@o2ib1"};
	struct snapshot before, after;
	struct lnetk_err e1, e2;
	int rc1, rc2, set;

	set = lnetk_route_add(lk, &rt, NULL);
	snapshot_take(lk, &before);
	rc1 = lnetk_peer_add(lk, "10.0.0.5@o2ib2", true, taken, 3, &e1);
	rc2 = lnetk_peer_add(lk, "12.9.9.9@o2ib1", true, bad, 3, &e2);
	snapshot_take(lk, &after);
	diag("PEER_ADD to peer 5 with a NID of peer 7: %s (%s); to an implicit gateway with a bad "
	     "third NID: %s (%s)",
	     errname(rc1), e1.msg, errname(rc2), e2.msg);
	tap(!set && rc1 == -EEXIST && rc2 == -EINVAL && !before.rc &&
		    snapshot_same(&before, &after),
	    "a PEER_ADD refused at its third NID takes out the two it added, to a peer that was "
	    "there and to an implicit gateway (which stays implicit)");
	lnetk_route_del(lk, rt.net, rt.gateway, NULL);
	snapshot_free(&before);
	snapshot_free(&after);
}

/* The whole restore again, replacing the state, with one bad NID halfway. */
static void case_bad_replace(struct lnetk *lk, const struct restore *rs)
{
	struct batch_run br = {
		.flags = LNETK_F_REPLACE, .parts = OBJECTS | RULES, .bad_at = NNIS + NPEERS / 2};
	struct snapshot before, after;
	struct lnetk_err err;
	int rc;

	snapshot_take(lk, &before);
	rc = restore_batch(lk, rs, &br, &err);
	snapshot_take(lk, &after);
	bad_batch_diag("REPLACE batch, an item halfway bad", rc, &err);
	tap(rc == -EINVAL && err.msg[0] && err.item == br.bad_at && !before.rc &&
		    snapshot_same(&before, &after),
	    "a LNETK_F_REPLACE batch with one bad item halfway is refused, names the item (%d) and "
	    "leaves all 100,000 NIDs as they were",
	    err.item);
	snapshot_free(&before);
	snapshot_free(&after);
}

/* What one request costs with nothing to do: the floor of one message per object. */
static double round_trip(struct lnetk *lk)
{
	struct lnetk_info info;
	double t0 = now();
	int i;

	for (i = 0; i < 2000; i++)
		lnetk_get_info(lk, &info, NULL);
	return (now() - t0) / 2000;
}

/* The objects and the rules in two batches, to tell where the time goes. */
static void batch_parts(const struct restore *rs)
{
	struct batch_run objs = {.parts = OBJECTS, .bad_at = -1},
			 rules = {.parts = RULES, .bad_at = -1};
	struct lnetk *lk;
	int rc;

	if (new_netns() || lnetk_open(&lk))
		return;
	rc = restore_batch(lk, rs, &objs, NULL) ?: restore_batch(lk, rs, &rules, NULL);
	diag("in two batches (%s): objects %.2f s to build, %.2f s to send and apply; rules %.2f "
	     "s, %.2f s",
	     errname(rc), objs.build, objs.send, rules.build, rules.send);
	lnetk_close(lk);
}

void cases_scale(void)
{
	struct batch_run br = {.parts = OBJECTS | RULES, .bad_at = -1};
	struct lnetk *one = NULL, *all = NULL;
	struct lnetk_info i1 = {0}, i2 = {0};
	struct strbuf s1 = {0}, s2 = {0};
	struct restore *rs = restore_new();
	struct lnetk_err err;
	double t_one[2], t_all, per_msg;
	int rc1, rc2, rc;

	if (new_netns() || !(one = open_or_fail("scale")))
		return;
	rc1 = restore_one_by_one(one, rs, t_one, &err);
	if (rc1)
		diag("restore one message per object: %s (%s)", errname(rc1), err.msg);

	if (new_netns() || !(all = open_or_fail("scale"))) {
		lnetk_close(one);
		return;
	}
	rc2 = restore_batch(all, rs, &br, &err);
	t_all = br.build + br.send;
	if (rc2)
		diag("restore in one batch: %s (%s, item %d)", errname(rc2), err.msg, err.item);

	lnetk_get_info(one, &i1, NULL);
	lnetk_get_info(all, &i2, NULL);
	per_msg = round_trip(all);
	diag("restore of %d NIs, %d peers x 2 NIDs, %d rules: one message per object %.2f s "
	     "(objects %.2f s, rules %.2f s), one batch of %zu bytes %.2f s (build %.2f s, send and "
	     "apply %.2f s): ratio %.1f",
	     NNIS, NPEERS, NRULES, t_one[0] + t_one[1], t_one[0], t_one[1], br.bytes, t_all,
	     br.build, br.send, t_all > 0 ? (t_one[0] + t_one[1]) / t_all : 0);
	diag("one GET_INFO round trip: %.1f us, so %.2f s of the one-by-one restore is the floor "
	     "of %d round trips",
	     per_msg * 1e6, per_msg * (NNIS + NPEERS + NRULES), NNIS + NPEERS + NRULES);
	tap(!rc1 && !rc2 && br.applied == NNIS + NPEERS + NRULES &&
		    i1.count == NNIS + NNIDS + NRULES && i2.count == i1.count,
	    "both restores apply every object (count %u and %u, batch applied %u)", i1.count,
	    i2.count, br.applied);
	/* A figure, not a test (timings are benchmarks here): printed with its target. */
	diag("bench: batch restore ratio %.1f (target >= 10): %s",
	     t_all > 0 ? (t_one[0] + t_one[1]) / t_all : 0,
	     !rc1 && !rc2 && t_one[0] + t_one[1] >= 10 * t_all ? "ok" : "FAIL");

	rc = state_text(one, &s1) ?: state_text(all, &s2);
	tap(!rc && s1.len == s2.len && !memcmp(s1.s, s2.s, s1.len),
	    "the batch gives exactly the state the messages give (%zu bytes of dump text)", s1.len);
	sb_free(&s1);
	sb_free(&s2);
	lnetk_close(one);

	case_dumps(all);
	case_bad_batch(all);
	case_bad_peer_add(all);
	case_bad_replace(all, rs);
	lnetk_close(all);
	batch_parts(rs);
	restore_free(rs);
}
