// SPDX-License-Identifier: GPL-2.0
/*
 * cases-api-objs.c - the api cases (cases-api.c) on each kind of object:
 * NIs, peers, routes, rules and how they flatten, globals, selection, NUMA
 * defaults, GET_INFO's count, batches, and a peer too big for one message.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "engine/model.h"
#include "vm.h"

static const struct lnetk_peer_ni *find_pni(const struct lnetk_peer *p, const char *nid)
{
	size_t i;

	for (i = 0; p && i < p->nnis; i++)
		if (!strcmp(p->nis[i].nid, nid))
			return &p->nis[i];
	return NULL;
}

static bool has_pref(const struct lnetk_pref *p, size_t n, const char *nid)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(p[i].nid, nid))
			return true;
	return false;
}

/* --- NIs ------------------------------------------------------------------------ */

struct names {
	char s[16][LNETK_NID_MAX];
	int n;
};

static int collect_ni(const struct lnetk_ni *ni, void *arg)
{
	struct names *nm = arg;

	if (nm->n < 16)
		snprintf(nm->s[nm->n++], LNETK_NID_MAX, "%s", ni->nid);
	return 0;
}

static void case_ni(struct api *a)
{
	struct lnetk_ni in = {.has = LNETK_HAS_NI_IFNAME | LNETK_HAS_NI_CPTS | LNETK_HAS_NI_DEV_CPT,
			      .tun_has = LNETK_TUN_ALL,
			      .nid = "10.0.0.1@tcp0",
			      .ifname = "eth0",
			      .cpts = 0x3,
			      .dev_cpt = 1,
			      .tun.peer_timeout = 100,
			      .tun.peer_credits = 16,
			      .tun.peer_buffer_credits = 4,
			      .tun.credits = 512,
			      .tun.conns_per_peer = 3};
	struct lnetk_ni ni, o2ib = {.nid = "192.168.0.1@o2ib"}, two = {.nid = "10.0.0.2@tcp"};
	struct lnetk_ni set = {.has = LNETK_HAS_NI_HEALTH | LNETK_HAS_NI_UP |
				      LNETK_HAS_NI_TX_CREDITS,
			       .nid = "10.0.0.2@tcp",
			       .health = 500,
			       .up = false,
			       .tx_credits = -3};
	struct names nm = {.n = 0};
	int rc, rc2;

	rc = mut(a, LNETK_CMD_NI_ADD, lnetk_ni_add(a->lk, &in, &a->err));
	rc2 = lnetk_ni_get(a->lk, "10.0.0.1@tcp", &ni, &a->err);
	diag("NI_GET: %s nid %s if %s cpts %#" PRIx64 " dev_cpt %d tun %u/%u/%u/%u up %d health %u "
	     "prio %u/%d",
	     errname(rc2), ni.nid, ni.ifname, ni.cpts, ni.dev_cpt, ni.tun.peer_timeout,
	     ni.tun.peer_credits, ni.tun.peer_buffer_credits, ni.tun.credits, ni.up, ni.health,
	     ni.prio, ni.prio_rule);
	tap(!rc && !rc2 && !strcmp(ni.nid, "10.0.0.1@tcp") && !strcmp(ni.ifname, "eth0") &&
		    ni.cpts == 0x3 && ni.dev_cpt == 1 && ni.tun.peer_timeout == 100 &&
		    ni.tun.peer_credits == 16 && ni.tun.peer_buffer_credits == 4 &&
		    ni.tun.credits == 512 && ni.tun.conns_per_peer == 3 && ni.up &&
		    ni.health == 1000 && ni.prio == LNETK_PRIO_NONE && ni.prio_rule == -1,
	    "NI_ADD with every attribute; NI_GET gives each back, the NID in canonical form");

	rc = mut(a, LNETK_CMD_NI_ADD, lnetk_ni_add(a->lk, &two, &a->err));
	if (!rc)
		rc = mut(a, LNETK_CMD_NI_ADD, lnetk_ni_add(a->lk, &o2ib, &a->err));
	rc2 = lnetk_ni_get(a->lk, "192.168.0.1@o2ib", &ni, &a->err);
	tap(!rc && !rc2 && ni.tun.peer_timeout == 180 && ni.tun.peer_credits == 32 &&
		    ni.tun.credits == 256 && ni.tun.conns_per_peer == 1 && ni.dev_cpt == -1 &&
		    ni.up,
	    "NI_ADD with only a NID gets the LND's defaults (o2ib: 180 s, 32 peer credits, 256, "
	    "1 connection per peer)");

	rc = lnetk_ni_dump(a->lk, collect_ni, &nm, &a->err);
	tap(!rc && nm.n == 3 && !strcmp(nm.s[0], "10.0.0.1@tcp") &&
		    !strcmp(nm.s[1], "10.0.0.2@tcp") && !strcmp(nm.s[2], "192.168.0.1@o2ib"),
	    "an NI dump lists every NI in creation order (%d)", nm.n);

	rc = mut(a, LNETK_CMD_NI_SET, lnetk_ni_set(a->lk, &set, &a->err));
	rc2 = lnetk_ni_get(a->lk, "10.0.0.2@tcp", &ni, &a->err);
	tap(!rc && !rc2 && ni.health == 500 && !ni.up && ni.tx_credits == -3,
	    "NI_SET health, link state and tx credits; NI_GET shows them");

	rc = mut(a, LNETK_CMD_NI_DEL, lnetk_ni_del(a->lk, "10.0.0.2@tcp", &a->err));
	rc2 = lnetk_ni_get(a->lk, "10.0.0.2@tcp", &ni, &a->err);
	tap(!rc && rc2 == -ENOENT && a->err.msg[0],
	    "NI_DEL; NI_GET of it then says ENOENT, with a reason (\"%s\")", a->err.msg);
}

/* --- peers and routes --------------------------------------------------------------- */

static int count_peer(const struct lnetk_peer *p, void *arg)
{
	struct names *nm = arg;

	if (nm->n < 16)
		snprintf(nm->s[nm->n++], LNETK_NID_MAX, "%s", p->primary);
	return 0;
}

static void case_peer(struct api *a)
{
	const char *nids[] = {"10.0.0.101@tcp", "192.168.0.100@o2ib"}, *more[] = {"10.0.0.102@tcp"};
	struct lnetk_peer_ni set = {.has = LNETK_HAS_PNI_HEALTH | LNETK_HAS_PNI_CREDITS,
				    .nid = "10.0.0.101@tcp",
				    .health = 10,
				    .credits = -2};
	const struct lnetk_peer_ni *p;
	struct lnetk_peer *peer = NULL;
	struct names nm = {.n = 0};
	struct raw *r;
	char ext[256];
	int rc, rc2;

	rc = mut(a, LNETK_CMD_PEER_ADD,
		 lnetk_peer_add(a->lk, "10.0.0.100@tcp", true, nids, 2, &a->err));
	rc2 = lnetk_peer_get(a->lk, "192.168.0.100@o2ib", &peer, &a->err);
	tap(!rc && !rc2 && !strcmp(peer->primary, "10.0.0.100@tcp") && peer->mr &&
		    !peer->implicit && peer->nnis == 3 && find_pni(peer, "10.0.0.100@tcp") &&
		    find_pni(peer, "10.0.0.101@tcp") && find_pni(peer, "192.168.0.100@o2ib") &&
		    find_pni(peer, "10.0.0.101@tcp")->health == 1000,
	    "PEER_ADD with a primary and two NIDs; PEER_GET by any NID gives the whole peer");
	lnetk_peer_free(peer);

	rc = mut(a, LNETK_CMD_PEER_ADD,
		 lnetk_peer_add(a->lk, "10.0.0.100@tcp", true, more, 1, &a->err));
	rc2 = lnetk_peer_get(a->lk, "10.0.0.100@tcp", &peer, &a->err);
	tap(!rc && !rc2 && peer->nnis == 4 && find_pni(peer, "10.0.0.102@tcp"),
	    "PEER_ADD to an existing peer adds the NIDs to it");
	lnetk_peer_free(peer);

	rc = mut(a, LNETK_CMD_PEER_NI_SET, lnetk_peer_ni_set(a->lk, &set, &a->err));
	rc2 = lnetk_peer_get(a->lk, "10.0.0.101@tcp", &peer, &a->err);
	p = rc2 ? NULL : find_pni(peer, "10.0.0.101@tcp");
	tap(!rc && p && p->health == 10 && p->credits == -2,
	    "PEER_NI_SET health and credits; PEER_GET shows them");
	lnetk_peer_free(peer);

	rc = mut(a, LNETK_CMD_PEER_DEL, lnetk_peer_del(a->lk, "10.0.0.100@tcp", more, 1, &a->err));
	rc2 = lnetk_peer_get(a->lk, "10.0.0.100@tcp", &peer, &a->err);
	tap(!rc && !rc2 && peer->nnis == 3 && !find_pni(peer, "10.0.0.102@tcp"),
	    "PEER_DEL with one NID removes only that NID");
	lnetk_peer_free(peer);

	rc = mut(a, LNETK_CMD_PEER_ADD,
		 lnetk_peer_add(a->lk, "10.0.0.200@tcp", false, NULL, 0, &a->err));
	rc2 = lnetk_peer_get(a->lk, "10.0.0.200@tcp", &peer, &a->err);
	tap(!rc && !rc2 && !peer->mr && peer->nnis == 1, "PEER_ADD of a non-Multi-Rail peer");
	lnetk_peer_free(peer);

	rc = lnetk_peer_dump(a->lk, count_peer, &nm, &a->err);
	tap(!rc && nm.n == 2 && !strcmp(nm.s[0], "10.0.0.100@tcp") &&
		    !strcmp(nm.s[1], "10.0.0.200@tcp"),
	    "a peer dump gives each peer once, in creation order");

	/* Without LNETK_PEER_A_MR (the client always sends it): Multi-Rail. */
	r = raw_new(LNETK_CMD_PEER_ADD);
	raw_nest(r, LNETK_A_PEER);
	raw_str(r, LNETK_PEER_A_PRIMARY, "10.0.0.150@tcp0");
	raw_end(r);
	rc = mut_(a, LNETK_CMD_PEER_ADD, raw_send(r, ext, sizeof(ext)), true);
	rc2 = lnetk_peer_get(a->lk, "10.0.0.150@tcp", &peer, &a->err);
	tap(!rc && !rc2 && peer->mr && !strcmp(peer->primary, "10.0.0.150@tcp"),
	    "PEER_ADD without LNETK_PEER_A_MR makes a Multi-Rail peer; its NID comes back canonical");
	lnetk_peer_free(peer);
	mut(a, LNETK_CMD_PEER_DEL, lnetk_peer_del(a->lk, "10.0.0.150@tcp", NULL, 0, &a->err));

	rc = mut(a, LNETK_CMD_PEER_DEL, lnetk_peer_del(a->lk, "10.0.0.200@tcp", NULL, 0, &a->err));
	rc2 = lnetk_peer_get(a->lk, "10.0.0.200@tcp", &peer, &a->err);
	tap(!rc && rc2 == -ENOENT, "PEER_DEL without NIDs removes the whole peer");
}

struct routes {
	struct lnetk_route r[8];
	int n;
};

static int collect_route(const struct lnetk_route *r, void *arg)
{
	struct routes *rs = arg;

	if (rs->n < 8)
		rs->r[rs->n++] = *r;
	return 0;
}

static void case_route(struct api *a)
{
	struct lnetk_route r = {.has = LNETK_HAS_ROUTE_HOPS | LNETK_HAS_ROUTE_PRIORITY |
				       LNETK_HAS_ROUTE_SENSITIVITY,
				.net = "o2ib2",
				.gateway = "10.0.0.50@tcp",
				.hops = 3,
				.priority = 2,
				.sensitivity = 5};
	struct lnetk_route plain = {.net = "o2ib3", .gateway = "10.0.0.50@tcp"};
	const struct lnetk_peer_ni *gw;
	struct lnetk_peer *peer = NULL;
	struct routes rs = {.n = 0};
	int rc, rc2, rc3;

	rc = mut(a, LNETK_CMD_ROUTE_ADD, lnetk_route_add(a->lk, &r, &a->err));
	if (!rc)
		rc = mut(a, LNETK_CMD_ROUTE_ADD, lnetk_route_add(a->lk, &plain, &a->err));
	rc2 = lnetk_route_dump(a->lk, collect_route, &rs, &a->err);
	tap(!rc && !rc2 && rs.n == 2 && !strcmp(rs.r[0].net, "o2ib2") &&
		    !strcmp(rs.r[0].gateway, "10.0.0.50@tcp") && rs.r[0].hops == 3 &&
		    rs.r[0].priority == 2 && rs.r[0].sensitivity == 5 && rs.r[1].hops == 1 &&
		    rs.r[1].priority == 0 && rs.r[1].sensitivity == 1,
	    "ROUTE_ADD with and without hops, priority, sensitivity; the dump shows them and the "
	    "defaults (1, 0, 1)");

	rc3 = lnetk_peer_get(a->lk, "10.0.0.50@tcp", &peer, &a->err);
	gw = rc3 ? NULL : find_pni(peer, "10.0.0.50@tcp");
	tap(gw && peer->implicit && gw->gw_routes == 2,
	    "a route's gateway becomes an implicit peer whose NID counts its routes");
	lnetk_peer_free(peer);

	rc = mut(a, LNETK_CMD_ROUTE_DEL, lnetk_route_del(a->lk, "o2ib3", "10.0.0.50@tcp", &a->err));
	rs.n = 0;
	rc2 = lnetk_route_dump(a->lk, collect_route, &rs, &a->err);
	tap(!rc && !rc2 && rs.n == 1 && !strcmp(rs.r[0].net, "o2ib2"),
	    "ROUTE_DEL removes that route");
}

/* --- rules ------------------------------------------------------------------------------- */

struct rules {
	struct {
		uint8_t kind;
		uint32_t prio;
		int64_t idx;
		char src[64], dst[64], rte[64];
	} r[8];
	int n;
};

static int collect_rule(const struct lnetk_rule *r, void *arg)
{
	struct rules *rs = arg;

	if (rs->n < 8) {
		rs->r[rs->n].kind = r->kind;
		rs->r[rs->n].prio = r->prio;
		rs->r[rs->n].idx = r->idx;
		snprintf(rs->r[rs->n].src, 64, "%s", r->src ? r->src : "");
		snprintf(rs->r[rs->n].dst, 64, "%s", r->dst ? r->dst : "");
		snprintf(rs->r[rs->n].rte, 64, "%s", r->rte ? r->rte : "");
		rs->n++;
	}
	return 0;
}

static int rule(struct api *a, const char *src, const char *dst, const char *rte, uint32_t prio,
		int64_t idx, enum lnetk_rule_outcome *outcome, uint32_t *at)
{
	struct lnetk_rule r = {.src = src, .dst = dst, .rte = rte, .prio = prio, .idx = idx};

	*outcome = 99;
	*at = 999;
	return mut(a, LNETK_CMD_RULE_ADD, lnetk_rule_add(a->lk, &r, outcome, at, &a->err));
}

static void case_rules(struct api *a)
{
	const char *gwpeer[] = {NULL};
	enum lnetk_rule_outcome o1, o2, o3, o4;
	uint32_t i1, i2, i3, i4;
	const struct lnetk_peer_ni *p;
	struct lnetk_peer *peer = NULL;
	struct lnetk_ni ni, o2ib;
	struct rules rs = {.n = 0};
	int rc, rc2;

	rc = rule(a, "10.0.0.1@tcp", NULL, NULL, 3, -1, &o1, &i1);
	rc2 = lnetk_ni_get(a->lk, "10.0.0.1@tcp", &ni, &a->err);
	tap(!rc && o1 == LNETK_RULE_ADDED && i1 == 0 && !rc2 && ni.prio == 3 && ni.prio_rule == 0,
	    "RULE_ADD of a --src NID rule: added at 0, flattened onto the NI (prio %u, rule %d)",
	    ni.prio, ni.prio_rule);

	rc = rule(a, "10.0.0.1@tcp", NULL, NULL, 1, -1, &o1, &i1);
	rc2 = lnetk_ni_get(a->lk, "10.0.0.1@tcp", &ni, &a->err);
	tap(!rc && o1 == LNETK_RULE_UPDATED && i1 == 0 && !rc2 && ni.prio == 1,
	    "RULE_ADD with the same expressions updates the priority in place");

	rc = rule(a, NULL, "tcp", NULL, 5, -1, &o2, &i2);
	rc2 = lnetk_peer_get(a->lk, "10.0.0.100@tcp", &peer, &a->err);
	p = rc2 ? NULL : find_pni(peer, "10.0.0.101@tcp");
	tap(!rc && o2 == LNETK_RULE_ADDED && i2 == 1 && p && p->net_prio == 5 &&
		    p->net_prio_rule == 1,
	    "a --dst net rule appended at 1 sets the peer NIs' net priority");
	lnetk_peer_free(peer);

	rc = rule(a, "o2ib", NULL, NULL, 2, 0, &o3, &i3);
	rc2 = lnetk_ni_get(a->lk, "10.0.0.1@tcp", &ni, &a->err);
	rc2 = rc2 ? rc2 : lnetk_ni_get(a->lk, "192.168.0.1@o2ib", &o2ib, &a->err);
	tap(!rc && o3 == LNETK_RULE_ADDED && i3 == 0 && !rc2 && ni.prio_rule == 1 &&
		    o2ib.net_prio == 2 && o2ib.net_prio_rule == 0,
	    "RULE_ADD with an idx inserts before it; later rules move up one");

	rc = rule(a, "10.0.0.1@tcp", "10.0.0.101@tcp", NULL, LNETK_PRIO_NONE, -1, &o4, &i4);
	rc2 = lnetk_peer_get(a->lk, "10.0.0.101@tcp", &peer, &a->err);
	p = rc2 ? NULL : find_pni(peer, "10.0.0.101@tcp");
	tap(!rc && i4 == 3 && p && p->npref_src == 1 &&
		    has_pref(p->pref_src, p->npref_src, "10.0.0.1@tcp") && p->pref_src[0].rule == 3,
	    "a NID pair rule makes the local NI a preferred source of the peer NI");
	lnetk_peer_free(peer);

	rc = mut(a, LNETK_CMD_PEER_ADD,
		 lnetk_peer_add(a->lk, "172.16.0.1@o2ib2", true, gwpeer, 0, &a->err));
	if (!rc)
		rc = rule(a, NULL, "172.16.0.1@o2ib2", "10.0.0.50@tcp", LNETK_PRIO_NONE, -1, &o4,
			  &i4);
	rc2 = lnetk_peer_get(a->lk, "172.16.0.1@o2ib2", &peer, &a->err);
	p = rc2 ? NULL : find_pni(peer, "172.16.0.1@o2ib2");
	tap(!rc && i4 == 4 && p && has_pref(p->pref_gw, p->npref_gw, "10.0.0.50@tcp"),
	    "a router rule makes the gateway a preferred router of the remote peer NI");
	lnetk_peer_free(peer);

	rc = lnetk_rule_dump(a->lk, collect_rule, &rs, &a->err);
	tap(!rc && rs.n == 5 && rs.r[0].kind == LNETK_RULE_SRC_NET &&
		    !strcmp(rs.r[0].src, "o2ib") && rs.r[0].prio == 2 && rs.r[0].idx == 0 &&
		    rs.r[1].kind == LNETK_RULE_SRC_NID && rs.r[1].prio == 1 &&
		    rs.r[2].kind == LNETK_RULE_DST_NET && rs.r[3].kind == LNETK_RULE_PAIR &&
		    rs.r[3].prio == LNETK_PRIO_NONE && rs.r[4].kind == LNETK_RULE_ROUTER &&
		    !strcmp(rs.r[4].rte, "10.0.0.50@tcp") && rs.r[4].idx == 4,
	    "a rule dump gives every rule in idx order with its kind, expressions and priority");

	rc = mut(a, LNETK_CMD_RULE_DEL, lnetk_rule_del(a->lk, 1, &a->err));
	rc2 = lnetk_ni_get(a->lk, "10.0.0.1@tcp", &ni, &a->err);
	tap(!rc && !rc2 && ni.prio == LNETK_PRIO_NONE && ni.prio_rule == -1,
	    "RULE_DEL of one rule takes back what it decided");

	rc = mut(a, LNETK_CMD_RULE_DEL, lnetk_rule_del_all(a->lk, &a->err));
	rs.n = 0;
	rc2 = lnetk_rule_dump(a->lk, collect_rule, &rs, &a->err);
	rc2 = rc2 ? rc2 : lnetk_ni_get(a->lk, "192.168.0.1@o2ib", &o2ib, &a->err);
	tap(!rc && !rc2 && rs.n == 0 && o2ib.net_prio == LNETK_PRIO_NONE,
	    "RULE_DEL with LNETK_F_ALL removes every rule and what they decided");

	/* Two rules on one NI: the first decides; deleting it hands over to the second. */
	rc = rule(a, "10.0.0.[1,1]@tcp0", NULL, NULL, 3, -1, &o1, &i1);
	rc = rc ?: rule(a, "10.0.0.[1-4]@tcp", NULL, NULL, 7, 99, &o2, &i2);
	rs.n = 0;
	rc2 = lnetk_rule_dump(a->lk, collect_rule, &rs, &a->err);
	tap(!rc && !rc2 && i1 == 0 && i2 == 1 && rs.n == 2 && !strcmp(rs.r[0].src, "10.0.0.1@tcp"),
	    "RULE_ADD with an idx past the end appends; the dump prints expressions in canonical "
	    "form (\"%s\")",
	    rs.r[0].src);
	rc = mut(a, LNETK_CMD_RULE_DEL, lnetk_rule_del(a->lk, 0, &a->err));
	rc2 = lnetk_ni_get(a->lk, "10.0.0.1@tcp", &ni, &a->err);
	tap(!rc && !rc2 && ni.prio == 7 && ni.prio_rule == 0,
	    "RULE_DEL gives the NI what the surviving rule says (prio %u, rule %d)", ni.prio,
	    ni.prio_rule);
	mut(a, LNETK_CMD_RULE_DEL, lnetk_rule_del_all(a->lk, &a->err));
}

/* --- globals, NUMA, selection -------------------------------------------------------------- */

struct globals {
	int n;
	uint32_t numa_range, discovery;
};

static int collect_global(const struct lnetk_global *g, void *arg)
{
	struct globals *gs = arg;

	gs->n++;
	if (!strcmp(g->name, "numa_range"))
		gs->numa_range = g->value;
	if (!strcmp(g->name, "discovery"))
		gs->discovery = g->value;
	return 0;
}

static void case_globals(struct api *a)
{
	static const uint32_t dist[4] = {10, 20, 20, 10};
	struct globals gs = {0};
	int rc, rc2;

	rc = mut(a, LNETK_CMD_GLOBAL_SET, lnetk_global_set(a->lk, "numa_range", 42, &a->err));
	rc2 = lnetk_global_get(a->lk, collect_global, &gs, &a->err);
	tap(!rc && !rc2 && gs.n == LNE_G__COUNT && gs.numa_range == 42 && gs.discovery == 1,
	    "GLOBAL_SET numa_range; GLOBAL_GET gives every setting (%d) with the new value", gs.n);

	rc = mut(a, LNETK_CMD_NUMA_SET, lnetk_numa_set(a->lk, 2, dist, &a->err));
	tap(!rc, "NUMA_SET with a 2 x 2 distance table");
	rc = mut(a, LNETK_CMD_NUMA_SET, lnetk_numa_set(a->lk, 0, NULL, &a->err));
	tap(!rc, "NUMA_SET with NCPT 0 removes the table");
}

static void case_select(struct api *a)
{
	struct lnetk_select_req req = {.dst = "10.0.0.100@tcp", .md_cpt = -1};
	struct lnetk_entry ent[32];
	struct lnetk_explain ex = {.ent = ent, .cap = 32};
	struct lnetk_selection sel;
	bool chosen_ni = false, chosen_pni = false, keys = true;
	struct raw *r;
	char ext[256];
	size_t i;
	int rc;

	rc = sel_(a, lnetk_select(a->lk, &req, &sel, NULL, &a->err));
	tap(!rc && !strcmp(sel.ni, "10.0.0.1@tcp") && !strncmp(sel.peer_ni, "10.0.0.10", 9) &&
		    !sel.gateway[0],
	    "SELECT to a peer on a local net: ni %s, peer NI %s, no gateway", sel.ni, sel.peer_ni);

	rc = sel_(a, lnetk_select(a->lk, &req, &sel, &ex, &a->err));
	for (i = 0; i < ex.n; i++) {
		chosen_ni |= ent[i].step == LNETK_STEP_LOCAL_NI &&
			     ent[i].crit == LNETK_CRIT_CHOSEN && !strcmp(ent[i].nid, sel.ni);
		chosen_pni |= ent[i].step == LNETK_STEP_PEER_NI &&
			      ent[i].crit == LNETK_CRIT_CHOSEN && !strcmp(ent[i].nid, sel.peer_ni);
		keys &= ent[i].nkeys > 0 &&
			(ent[i].crit == LNETK_CRIT_CHOSEN || ent[i].lost_at < ent[i].nkeys);
	}
	diag("explain: %zu entries (%zu dropped)", ex.n, ex.dropped);
	tap(!rc && chosen_ni && chosen_pni && keys && ex.n >= 4,
	    "SELECT with LNETK_F_EXPLAIN: one entry per candidate, the chosen ones marked, each with "
	    "its keys");

	req.dst = "172.16.0.1@o2ib2";
	rc = sel_(a, lnetk_select(a->lk, &req, &sel, NULL, &a->err));
	tap(!rc && !strcmp(sel.gateway, "10.0.0.50@tcp") &&
		    !strcmp(sel.peer_ni, "172.16.0.1@o2ib2"),
	    "SELECT to a remote peer names the gateway (%s)", sel.gateway);

	/* Only the destination: kind PUT, memory CPT unknown. */
	r = raw_new(LNETK_CMD_SELECT);
	raw_nest(r, LNETK_A_SELECT);
	raw_str(r, LNETK_SEL_A_DST, "10.0.0.100@tcp");
	raw_end(r);
	rc = raw_send(r, ext, sizeof(ext));
	tap(!rc, "SELECT with only a destination takes the defaults (%s)", errname(rc));

	req.dst = "10.0.0.100@tcp";
	req.src = "10.0.0.1@tcp";
	req.kind = LNETK_MSG_GET;
	req.md_cpt = 0;
	rc = sel_(a, lnetk_select(a->lk, &req, &sel, NULL, &a->err));
	tap(!rc && !strcmp(sel.ni, "10.0.0.1@tcp"),
	    "SELECT with a source NID, a GET and a memory CPT");
}

/* The NUMA value of the chosen local NI, from an explained selection. */
static int64_t numa_of_choice(struct lnetk *lk, int *rc)
{
	struct lnetk_select_req req = {.dst = "10.3.0.100@tcp", .md_cpt = 0};
	struct lnetk_entry ent[8];
	struct lnetk_explain ex = {.ent = ent, .cap = 8};
	struct lnetk_selection sel;
	size_t i;
	unsigned int j;

	*rc = lnetk_select(lk, &req, &sel, &ex, NULL);
	for (i = 0; !*rc && i < ex.n; i++)
		for (j = 0; ent[i].step == LNETK_STEP_LOCAL_NI && j < ent[i].nkeys; j++)
			if (ent[i].key[j].crit == LNETK_CRIT_NUMA)
				return ent[i].key[j].value;
	if (!*rc)
		*rc = -ENOENT;
	return -1;
}

/* "Without a table the module uses node_distance()": before one is set, and after it goes. */
static int numa_default(void *arg)
{
	static const uint32_t dist[4] = {10, 40, 40, 10};
	struct lnetk_ni ni = {.has = LNETK_HAS_NI_DEV_CPT, .nid = "10.3.0.1@tcp", .dev_cpt = 0};
	int64_t before, during, after;
	struct lnetk *lk;
	int rc, rc1 = 0, rc2 = 0, rc3 = 0;

	if (new_netns() || lnetk_open(&lk))
		return 1;
	rc = lnetk_ni_add(lk, &ni, NULL)
		     ?: lnetk_peer_add(lk, "10.3.0.100@tcp", true, NULL, 0, NULL);
	before = numa_of_choice(lk, &rc1);
	rc = rc ?: lnetk_numa_set(lk, 2, dist, NULL);
	during = numa_of_choice(lk, &rc2);
	rc = rc ?: lnetk_numa_set(lk, 0, NULL, NULL);
	after = numa_of_choice(lk, &rc3);
	diag("NUMA value of the chosen NI (dev_cpt 0, memory on CPT 0): %lld before any table, "
	     "%lld with one, %lld after NCPT 0 (%s %s %s %s)",
	     (long long)before, (long long)during, (long long)after, errname(rc), errname(rc1),
	     errname(rc2), errname(rc3));
	lnetk_close(lk);
	return rc || rc1 || rc2 || rc3 || before != after;
}

static void case_numa_default(void)
{
	tap(in_child(numa_default, NULL) == 0,
	    "NUMA_SET with NCPT 0 goes back to node_distance(), the table a new instance starts "
	    "with");
}

/* --- GET_INFO, batches, a big peer ----------------------------------------------------------------- */

struct totals {
	uint32_t nis, pnis, routes, rules;
};

static int tot_ni(const struct lnetk_ni *ni, void *arg)
{
	((struct totals *)arg)->nis++;
	return 0;
}

static int tot_peer(const struct lnetk_peer *p, void *arg)
{
	((struct totals *)arg)->pnis += (uint32_t)p->nnis;
	return 0;
}

static int tot_route(const struct lnetk_route *r, void *arg)
{
	((struct totals *)arg)->routes++;
	return 0;
}

static int tot_rule(const struct lnetk_rule *r, void *arg)
{
	((struct totals *)arg)->rules++;
	return 0;
}

static void case_info(struct api *a)
{
	struct totals t = {0};
	struct lnetk_info info;
	int rc;

	rc = lnetk_ni_dump(a->lk, tot_ni, &t, NULL) ?: lnetk_peer_dump(a->lk, tot_peer, &t, NULL)
		?: lnetk_route_dump(a->lk, tot_route, &t, NULL)
		?: lnetk_rule_dump(a->lk, tot_rule, &t, NULL)
		?: lnetk_get_info(a->lk, &info, &a->err);
	diag("GET_INFO count %u; dumps: %u NIs, %u peer NIs, %u routes, %u rules", info.count,
	     t.nis, t.pnis, t.routes, t.rules);
	tap(!rc && info.count == t.nis + t.pnis + t.routes + t.rules && info.count > 0,
	    "GET_INFO's count is NIs + peer NIs + routes + rules");
}

static void case_batch(struct api *a)
{
	struct lnetk_ni ni = {.nid = "10.1.0.1@tcp"}, ni2 = {.nid = "10.1.0.2@tcp"};
	struct lnetk_route r = {.net = "o2ib5", .gateway = "10.1.0.50@tcp"};
	struct lnetk_rule rl = {.src = "tcp", .prio = 1, .idx = -1};
	const char *nids[] = {"10.1.0.101@tcp"};
	struct lnetk_batch *b = NULL;
	struct globals gs = {0};
	struct totals t = {0};
	uint32_t applied = 0;
	int rc;

	rc = lnetk_batch_new(a->lk, LNETK_F_REPLACE, &b) ?: lnetk_batch_ni(b, &ni)
		?: lnetk_batch_peer(b, "10.1.0.100@tcp", true, nids, 1) ?: lnetk_batch_route(b, &r)
		?: lnetk_batch_rule(b, &rl) ?: lnetk_batch_global(b, "numa_range", 7);
	if (!rc)
		rc = mut(a, LNETK_CMD_BATCH, lnetk_batch_send(b, &applied, &a->err));
	lnetk_batch_free(b);
	if (!rc)
		rc = lnetk_ni_dump(a->lk, tot_ni, &t, NULL) ?: lnetk_peer_dump(a->lk, tot_peer, &t, NULL)
			?: lnetk_route_dump(a->lk, tot_route, &t, NULL)
			?: lnetk_rule_dump(a->lk, tot_rule, &t, NULL)
			?: lnetk_global_get(a->lk, collect_global, &gs, NULL);
	diag("BATCH REPLACE: %s, applied %u; now %u NIs, %u peer NIs, %u routes, %u rules, "
	     "numa_range %u",
	     errname(rc), applied, t.nis, t.pnis, t.routes, t.rules, gs.numa_range);
	tap(!rc && applied == 5 && t.nis == 1 && t.pnis == 3 && t.routes == 1 && t.rules == 1 &&
		    gs.numa_range == 7,
	    "BATCH with LNETK_F_REPLACE: the batch becomes the whole state");

	b = NULL;
	rc = lnetk_batch_new(a->lk, 0, &b) ?: lnetk_batch_ni(b, &ni2);
	if (!rc)
		rc = mut(a, LNETK_CMD_BATCH, lnetk_batch_send(b, &applied, &a->err));
	lnetk_batch_free(b);
	memset(&t, 0, sizeof(t));
	if (!rc)
		rc = lnetk_ni_dump(a->lk, tot_ni, &t, NULL);
	tap(!rc && applied == 1 && t.nis == 2, "BATCH without flags adds to the state");
}

/* A peer with 200 NIDs does not fit one 4 KiB message: the dump splits it, the client merges. */
static void case_big_peer(struct api *a)
{
	char buf[199][LNETK_NID_MAX];
	const char *nids[199];
	struct names nm = {.n = 0};
	struct lnetk *small = NULL;
	struct lnetk_peer *peer = NULL;
	int i, rc, rc2;

	for (i = 0; i < 199; i++) {
		snprintf(buf[i], sizeof(buf[i]), "10.2.%d.%d@tcp", i / 100, i % 100 + 1);
		nids[i] = buf[i];
	}
	rc = mut(a, LNETK_CMD_PEER_ADD,
		 lnetk_peer_add(a->lk, "10.2.9.1@tcp", true, nids, 199, &a->err));
	rc2 = lnetk_open_buffer(&small, 4096);
	rc2 = rc2 ?: lnetk_peer_dump(small, count_peer, &nm, &a->err);
	diag("a 200-NID peer through 4 KiB reads: %s, %d peers, %u reads", errname(rc2), nm.n,
	     small ? lnetk_last_reads(small) : 0);
	rc2 = rc2 ?: lnetk_peer_get(a->lk, "10.2.1.99@tcp", &peer, &a->err);
	tap(!rc && !rc2 && nm.n == 3 && !strcmp(nm.s[2], "10.2.9.1@tcp") && peer->nnis == 200,
	    "a peer with 200 NIDs comes whole, from a dump in 4 KiB messages and from PEER_GET");
	lnetk_peer_free(peer);
	lnetk_close(small);
	mut(a, LNETK_CMD_PEER_DEL, lnetk_peer_del(a->lk, "10.2.9.1@tcp", NULL, 0, &a->err));
}

/* The cases above, in order; cases_api() runs them first. */
void cases_api_objects(struct api *a)
{
	case_ni(a);
	case_peer(a);
	case_route(a);
	case_rules(a);
	case_globals(a);
	case_select(a);
	case_numa_default();
	case_info(a);
	case_batch(a);
	case_big_peer(a);
}
