// SPDX-License-Identifier: GPL-2.0
/*
 * lu-read.c - lu_read(): what lnet.ko holds that lnetd owns, as an engine
 * instance, so that the generic sync compares it with the store's as it
 * does the other engines'.
 *
 *  - NIs in lnet.ko's order, with their interface, CPTs (the set 0@lo spans
 *    is "every CPT") and tunables; the LND timeout is the LND's parameter;
 *  - peers added by a configuration only: lnet.ko's state bit
 *    LNET_PEER_CONFIGURED (every version gives it, with GET_PEER_NI and in
 *    the netlink dump).  Peers discovery or traffic made, and route
 *    gateways, are not lnetd's; a gateway comes back as the engine's
 *    implicit peer of its route.  Over /dev/lnet a configured peer's NIDs
 *    cannot be told from NIDs discovery added to it: all are read; a peer
 *    whose primary NID is IPv6 is not named there (lu_info()->peers_unnamed
 *    counts them; lu_peer_get_many() reads them by the primaries lnetd
 *    owns);
 *  - routes (a hop count not given reads as 1, the engine's default);
 *  - UDSP rules in lnet.ko's order;
 *  - every global this lnet.ko has (lu-sysfs.c's table).
 *
 * lu_read_since() is the drift poll's cheaper read of the same (lu.h).
 */
#include "lu-int.h"

struct peer_ctx {
	struct lne_inst *ln;
	struct lne_err *err;
	u32 n;
};

static int add_peer(const struct lu_peer *p, void *arg)
{
	struct peer_ctx *c = arg;
	enum lne_peer_got got;
	struct lne_peer *peer;
	size_t i;
	int rc;

	if (!p->configured)
		return 0;
	rc = lne_peer_get(c->ln, &p->primary, p->mr, &peer, &got, c->err);
	for (i = 0; !rc && i < p->n; i++)
		if (!lne_nid_equal(&p->nids[i], &p->primary))
			rc = lne_peer_add_nid_to(c->ln, peer, &p->nids[i], c->err);
	if (!rc && ++c->n % 4096 == 0)
		lne_inst_reserve(c->ln, 8192);
	return rc;
}

static int read_nis(struct lu *lu, struct lne_inst *ln, struct lne_err *err)
{
	struct lu_ni *nis;
	size_t n, i;
	int rc;

	rc = lu_ni_list(lu, &nis, &n, err);
	if (rc)
		return rc;
	for (i = 0; !rc && i < n; i++) {
		struct lne_ni_conf c;
		u32 t;

		memset(&c, 0, sizeof(c));
		c.nid = nis[i].nid;
		c.ifname = nis[i].ifname[0] ? nis[i].ifname : NULL;
		c.cpts = nis[i].cpts;
		c.dev_cpt = nis[i].dev_cpt < 0 ? LNE_CPT_ANY : nis[i].dev_cpt;
		if (!lu_lnd_timeout_get(lu, c.nid.lnd, &t, NULL))
			nis[i].tun.timeout = t;
		c.tun = &nis[i].tun;
		rc = lne_ni_add(ln, &c, err);
	}
	free(nis);
	return rc;
}

static int read_routes(struct lu *lu, struct lne_inst *ln, struct lne_err *err)
{
	struct lu_route *rs;
	size_t n, i;
	int rc;

	rc = lu_route_list(lu, &rs, &n, err);
	if (rc)
		return rc;
	for (i = 0; !rc && i < n; i++) {
		u32 v[LNE_ROUTE_A__COUNT];

		lne_route_defaults(v);
		v[LNE_ROUTE_A_HOPS] = rs[i].hops == LU_HOPS_NONE ? LNE_HOPS_DEFAULT : rs[i].hops;
		v[LNE_ROUTE_A_PRIORITY] = rs[i].priority;
		v[LNE_ROUTE_A_SENSITIVITY] = rs[i].sensitivity;
		rc = lne_route_add_v(ln, rs[i].net, &rs[i].gw, v, err);
	}
	free(rs);
	return rc;
}

static int read_rules(struct lu *lu, struct lne_inst *ln, struct lne_err *err)
{
	struct lu_rule *rs;
	size_t n, i;
	int rc;

	rc = lu_rule_list(lu, &rs, &n, err);
	if (rc)
		return rc;
	for (i = 0; !rc && i < n; i++) {
		enum lne_rule_outcome out;
		u32 idx;

		struct lne_rule_conf c = {.src = rs[i].src[0] ? rs[i].src : NULL,
					  .dst = rs[i].dst[0] ? rs[i].dst : NULL,
					  .rte = rs[i].rte[0] ? rs[i].rte : NULL,
					  .priority = rs[i].prio};

		rc = lne_rule_add(ln, &c, -1, &out, &idx, err);
	}
	free(rs);
	return rc;
}

static int read_globals(struct lu *lu, struct lne_inst *ln, struct lne_err *err)
{
	/* transaction_timeout before retry_count: the engine keeps one below the other */
	static const enum lne_global first = LNE_G_TRANSACTION_TIMEOUT;
	int g, rc;
	u32 v;

	for (g = -1; g < LNE_G__COUNT; g++) {
		enum lne_global gg = g < 0 ? first : (enum lne_global)g;

		if ((g >= 0 && gg == first) || !lu_global_held(lu, gg))
			continue;
		rc = lu_global_get(lu, gg, &v, err);
		if (rc)
			return rc;
		rc = lne_global_set(ln, gg, v, err);
		if (rc)
			return rc;
	}
	return 0;
}

/* --- the drift poll's read: the peer list whole, peers only where it changed ---------- */

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static const struct lu_memo_peer *memo_find(const struct lu_memo *m, u64 nid4)
{
	size_t lo = 0, hi = m->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->v[mid].nid4 == nid4)
			return &m->v[mid];
		if (m->v[mid].nid4 < nid4)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* A peer as lnetd's copy has it (what lnet.ko held at the last look, and lnetd's writes since). */
static int copy_peer(struct peer_ctx *c, const struct lne_peer *from)
{
	const struct lne_peer_net *pnet;
	const struct lne_peer_ni *pni;
	enum lne_peer_got got;
	struct lne_peer *peer;
	int rc = lne_peer_get(c->ln, &from->primary, from->mr, &peer, &got, c->err);

	lne_list_for_each_entry(pnet, &from->pnets, link)
		lne_list_for_each_entry(pni, &pnet->pnis, pnet_link) {
			if (!rc && !lne_nid_equal(&pni->nid, &from->primary))
				rc = lne_peer_add_nid_to(c->ln, peer, &pni->nid, c->err);
		}
	if (!rc && ++c->n % 4096 == 0)
		lne_inst_reserve(c->ln, 8192);
	return rc;
}

/* Look into one peer (GET_PEER_NI); *configured says whether it is lnetd's kind. */
static int fetch_peer(struct lu *lu, struct peer_ctx *c, u64 nid4, bool *configured, u8 **bulk,
		      size_t *bcap)
{
	struct lu_peer p;
	int rc = lu_ioc_peer_get4(lu, nid4, &p, bulk, bcap);

	*configured = false;
	if (rc == -ENOENT || rc == -EPROTO) {
		lu_peer_free(&p);
		return 0; /* gone since the list, or a NID the engine cannot name */
	}
	if (rc) {
		lu_peer_free(&p);
		return rc == -ENOMEM ? lne_err_set(c->err, rc, NULL, -1, "out of memory")
				     : lu_refused(lu, c->err, rc, NULL, "show a peer");
	}
	*configured = p.configured;
	rc = add_peer(&p, c);
	lu_peer_free(&p);
	return rc;
}

static int read_peers_since(struct lu *lu, struct lne_inst *ln, const struct lne_inst *prev,
			    struct lu_memo *memo, struct lne_err *err)
{
	struct peer_ctx pc = {ln, err, 0};
	struct lu_memo_peer *next = NULL;
	size_t bcap = 16 * LU_PNI_ENTRY, n = 0, large = 0, i, slice, start, fetched = 0;
	u8 *bulk = malloc(bcap);
	u64 *ids = NULL;
	int rc = bulk ? lu_ioc_peer_list(lu, &ids, &n, &large, err)
		      : lne_err_set(err, -ENOMEM, NULL, -1, "out of memory");

	lu->info.peers_unnamed = large;
	if (!rc) {
		next = malloc((n ? n : 1) * sizeof(*next));
		if (!next)
			rc = lne_err_set(err, -ENOMEM, NULL, -1, "out of memory");
	}
	if (!rc)
		qsort(ids, n, sizeof(*ids), cmp_u64);
	slice = n / LU_MEMO_PASS + 1;
	if (slice < LU_MEMO_SLICE)
		slice = LU_MEMO_SLICE;
	start = n ? memo->cursor % n : 0;
	for (i = 0; !rc && i < n; i++) {
		const struct lu_memo_peer *was = prev ? memo_find(memo, ids[i]) : NULL;
		bool roll = (i + n - start) % n < slice;
		const struct lne_peer *had = NULL;
		struct lne_nid prim;

		next[i].nid4 = ids[i];
		next[i].configured = was && was->configured;
		if (was && !roll && !was->configured)
			continue; /* not lnetd's kind (discovery's, traffic's) at the last look */
		if (was && !roll && lu_nid_from4(ids[i], &prim))
			had = lne_peer_find(prev, &prim);
		if (had && !had->implicit) {
			rc = copy_peer(&pc, had);
			continue;
		}
		fetched++;
		rc = fetch_peer(lu, &pc, ids[i], &next[i].configured, &bulk, &bcap);
	}
	if (!rc) {
		lu_memo_free(memo);
		memo->v = next;
		memo->n = n;
		memo->cursor = n ? (start + slice) % n : 0;
		memo->listed = n;
		memo->fetched = fetched;
		next = NULL;
	}
	free(next);
	free(ids);
	free(bulk);
	return rc;
}

void lu_memo_free(struct lu_memo *memo)
{
	free(memo->v);
	memo->v = NULL;
	memo->n = 0;
}

int lu_read_since(struct lu *lu, struct lne_inst *into, const struct lne_inst *prev,
		  struct lu_memo *memo, struct lne_err *err)
{
	int rc;

	rc = read_nis(lu, into, err);
	if (!rc)
		rc = read_peers_since(lu, into, prev, memo, err);
	if (!rc)
		rc = read_routes(lu, into, err);
	if (!rc)
		rc = read_rules(lu, into, err);
	if (!rc)
		rc = read_globals(lu, into, err);
	return rc;
}

int lu_read(struct lu *lu, struct lne_inst *into, struct lne_err *err)
{
	struct peer_ctx pc = {into, err, 0};
	int rc;

	rc = read_nis(lu, into, err);
	if (!rc)
		rc = lu_peer_each(lu, add_peer, &pc, err);
	if (!rc)
		rc = read_routes(lu, into, err);
	if (!rc)
		rc = read_rules(lu, into, err);
	if (!rc)
		rc = read_globals(lu, into, err);
	return rc;
}
