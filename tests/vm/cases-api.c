// SPDX-License-Identifier: GPL-2.0
/*
 * cases-api.c - every command's happy path, through lnetk-client: what goes
 * in comes back (in canonical form), rules flatten onto the objects they
 * match, every change is announced on the "events" group with its
 * generation, and each reply carries that generation.
 *
 * Here: the bookkeeping of every mutation (vm.h's struct api), the
 * generation in reads' replies, the events group, and the driver; the
 * commands on each kind of object are in cases-api-objs.c.
 *
 * Runs in a network namespace of its own: a fresh instance, generation 0.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "vm.h"

static void on_event(uint8_t cmd, uint64_t gen, void *arg)
{
	struct api *a = arg;

	if (a->ngot < API_MAX_EVENTS)
		a->got[a->ngot++] = (struct api_event){cmd, gen};
}

/*
 * Note a mutation's outcome: what the events group must announce, and its
 * reply's generation (@raw: sent without the client, no reply to look at).
 */
int mut_(struct api *a, uint8_t cmd, int rc, bool raw)
{
	struct lnetk_info info;
	uint64_t reply_gen = lnetk_last_generation(a->lk);
	unsigned int msgs = lnetk_last_reads(a->lk);

	if (rc) {
		diag("cmd %u: %s (%s)", cmd, errname(rc), a->err.msg);
		return rc;
	}
	a->mutations++;
	if (lnetk_get_info(a->lk, &info, NULL))
		return -EIO;
	if (a->nwant < API_MAX_EVENTS)
		a->want[a->nwant++] = (struct api_event){cmd, info.generation};
	if (!raw && (!msgs || reply_gen != info.generation)) {
		if (!a->reply_gen_bad)
			diag("cmd %u: the reply (%u messages) carries generation %" PRIu64
			     ", GET_INFO says %" PRIu64,
			     cmd, msgs, reply_gen, info.generation);
		a->reply_gen_bad++;
	}
	return 0;
}

int mut(struct api *a, uint8_t cmd, int rc)
{
	return mut_(a, cmd, rc, false);
}

/*
 * SELECT is an admin command (it moves the round robin) but not a change
 * to the state: it is not announced.  Its reply still carries the
 * generation, which it must not have moved.
 */
int sel_(struct api *a, int rc)
{
	struct lnetk_info info;

	if (rc) {
		diag("SELECT: %s (%s)", errname(rc), a->err.msg);
		return rc;
	}
	if (lnetk_get_info(a->lk, &info, NULL) || !lnetk_last_reads(a->lk) ||
	    info.generation != lnetk_last_generation(a->lk) ||
	    (a->nwant && info.generation != a->want[a->nwant - 1].gen)) {
		diag("SELECT: generation %" PRIu64 " in its reply, %" PRIu64 " now",
		     lnetk_last_generation(a->lk), info.generation);
		a->reply_gen_bad++;
	}
	return 0;
}

/* --- reads and events ---------------------------------------------------------------------- */

/* The dumps below also note an NI and a peer that exist, for the single GETs. */
static char some_ni[LNETK_NID_MAX], some_peer[LNETK_NID_MAX];

static int first_ni(const struct lnetk_ni *ni, void *arg)
{
	snprintf(some_ni, sizeof(some_ni), "%s", ni->nid);
	return 0;
}

static int first_peer(const struct lnetk_peer *p, void *arg)
{
	snprintf(some_peer, sizeof(some_peer), "%s", p->primary);
	return 0;
}

static int first_route(const struct lnetk_route *r, void *arg)
{
	return 0;
}

static int first_rule(const struct lnetk_rule *r, void *arg)
{
	return 0;
}

static int first_global(const struct lnetk_global *g, void *arg)
{
	return 0;
}

/* Reads too: a fresh client knows no generation until a reply tells it. */
static void case_read_generation(struct api *a)
{
	static const char *const names[] = {"NI_GET dump", "NI_GET",	     "PEER_GET dump",
					    "PEER_GET",	   "ROUTE_GET dump", "RULE_GET dump",
					    "GLOBAL_GET"};
	struct lnetk_info info;
	char bad[256] = "";
	size_t i, used = 0;
	int rc;

	lnetk_get_info(a->lk, &info, NULL);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct lnetk_peer *peer = NULL;
		struct lnetk_ni ni;
		struct lnetk *lk;

		if (lnetk_open(&lk))
			continue;
		/* The state is whatever the cases before left: GET what a dump saw. */
		rc = i == 0   ? lnetk_ni_dump(lk, first_ni, NULL, NULL)
		     : i == 1 ? lnetk_ni_get(lk, some_ni, &ni, NULL)
		     : i == 2 ? lnetk_peer_dump(lk, first_peer, NULL, NULL)
		     : i == 3 ? lnetk_peer_get(lk, some_peer, &peer, NULL)
		     : i == 4 ? lnetk_route_dump(lk, first_route, NULL, NULL)
		     : i == 5 ? lnetk_rule_dump(lk, first_rule, NULL, NULL)
			      : lnetk_global_get(lk, first_global, NULL, NULL);
		if (rc || lnetk_last_generation(lk) != info.generation)
			used += (size_t)snprintf(bad + used, sizeof(bad) - used, " %s", names[i]);
		lnetk_peer_free(peer);
		lnetk_close(lk);
	}
	tap(!bad[0], "the replies of reads and dumps carry the generation too%s%s",
	    bad[0] ? "; these do not:" : "", bad);
}

static void case_events(struct api *a)
{
	int i, rc, bad = -1;

	rc = lnetk_events_dispatch(a->ev);
	for (i = 0; i < a->nwant && i < a->ngot; i++)
		if (a->want[i].cmd != a->got[i].cmd || a->want[i].gen != a->got[i].gen) {
			bad = i;
			break;
		}
	if (bad >= 0)
		diag("event %d: want cmd %u generation %" PRIu64 ", got cmd %u generation %" PRIu64,
		     bad, a->want[bad].cmd, a->want[bad].gen, a->got[bad].cmd, a->got[bad].gen);
	diag("%d mutations, %d events (%s)", a->nwant, a->ngot, errname(rc < 0 ? rc : 0));
	tap(rc >= 0 && bad < 0 && a->ngot == a->nwant && a->nwant > 20,
	    "the \"events\" group announces every change with its command and new generation, in "
	    "order");
	tap(!a->reply_gen_bad,
	    "every mutation's reply carries the generation after it (%d of %d did not)",
	    a->reply_gen_bad, a->mutations);
}

static void on_overrun_event(uint8_t cmd, uint64_t gen, void *arg)
{
	++*(int *)arg;
}

/* A listener that does not keep up is told so: ENOBUFS, then the changes that still fit. */
static void case_overrun(struct api *a)
{
	struct lnetk_events *ev = NULL;
	int i, rc, n = 0, later;

	rc = lnetk_events_open(on_overrun_event, &n, &ev);
	for (i = 0; !rc && i < 2000; i++)
		rc = lnetk_bump(a->lk, 1, NULL, NULL);
	rc = rc ?: lnetk_events_dispatch(ev);
	later = ev ? lnetk_events_dispatch(ev) : -1;
	diag("2000 changes unread: dispatch says %s, then %d", errname(rc < 0 ? rc : 0), later);
	tap(rc == -ENOBUFS && later >= 0,
	    "a listener that falls behind gets ENOBUFS, and can read on afterwards");
	lnetk_events_close(ev);
}

void cases_api(void)
{
	struct api a = {.lk = NULL};
	int rc;

	if (new_netns()) {
		tap(false, "api: a network namespace of its own");
		return;
	}
	a.lk = open_or_fail("api");
	if (!a.lk)
		return;
	rc = lnetk_events_open(on_event, &a, &a.ev);
	if (rc) {
		tap(false, "api: join the events group (%s)", errname(rc));
		lnetk_close(a.lk);
		return;
	}
	cases_api_objects(&a);
	case_read_generation(&a);
	case_events(&a);
	case_overrun(&a);
	lnetk_events_close(a.ev);
	lnetk_close(a.lk);
}

/*
 * Objects of every kind, for cases that need state to be there (and rmmod
 * with state): two NIs, a peer with three NIDs, a peer nothing reaches, a
 * route and its gateway, rules of three kinds, a global.
 */
int populate(struct lnetk *lk)
{
	const char *nids[] = {"10.9.0.101@tcp", "192.168.9.100@o2ib"}, *none[] = {NULL};
	struct lnetk_ni n1 = {.nid = "10.9.0.1@tcp"}, n2 = {.nid = "192.168.9.1@o2ib"};
	struct lnetk_route r = {.net = "o2ib9", .gateway = "10.9.0.50@tcp"};
	struct lnetk_rule r1 = {.src = "o2ib", .prio = 1, .idx = -1},
			  r2 = {.dst = "10.9.0.101@tcp", .prio = 0, .idx = -1},
			  r3 = {.src = "10.9.0.1@tcp",
				.dst = "10.9.0.100@tcp",
				.prio = LNETK_PRIO_NONE,
				.idx = -1};

	return lnetk_ni_add(lk, &n1, NULL) ?: lnetk_ni_add(lk, &n2, NULL)
		?: lnetk_peer_add(lk, "10.9.0.100@tcp", true, nids, 2, NULL)
		?: lnetk_peer_add(lk, "172.16.8.1@o2ib8", true, none, 0, NULL)
		?: lnetk_route_add(lk, &r, NULL) ?: lnetk_rule_add(lk, &r1, NULL, NULL, NULL)
		?: lnetk_rule_add(lk, &r2, NULL, NULL, NULL)
		?: lnetk_rule_add(lk, &r3, NULL, NULL, NULL)
		?: lnetk_global_set(lk, "numa_range", 5, NULL);
}
