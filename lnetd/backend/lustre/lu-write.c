// SPDX-License-Identifier: GPL-2.0
/*
 * lu-write.c - the writer (lu-writer.h) for lnet.ko: each engine object the
 * generic sync hands over, as the library's requests.
 *
 *  - a peer is added with its primary NID locked: lnetd's configured peers
 *    keep their primary whatever discovery finds (the engine's rule), which
 *    is lnet.ko's lock_prim; deleting a whole peer is therefore forced;
 *  - an NI's LND timeout (its "timeout" tunable) is its LND's parameter in
 *    lnet.ko, one per LND: written after the NI, whose LND module loads
 *    with the first NI; 0 is "derived" in both;
 *  - an NI's link state is the LND's business in lnet.ko (no ni_set_up).
 */
#include "lu-int.h"
#include "lu-writer.h"

static int w_rule_del(void *ctx, u32 idx, struct lne_err *err)
{
	if (idx > INT32_MAX)
		return lne_err_set(err, -ERANGE, NULL, -1, "rule %u is beyond lnet.ko's indexes",
				   idx);
	return lu_rule_del(ctx, (s32)idx, err);
}

static int w_rule_del_all(void *ctx, struct lne_err *err)
{
	return lu_rule_del(ctx, -1, err);
}

static int w_route_del(void *ctx, const struct lne_route *have, struct lne_err *err)
{
	return lu_route_del(ctx, have->rnet->id, &have->gw->nid, err);
}

static int w_peer_del(void *ctx, const struct lne_peer *have, const struct lne_nid *nids, size_t n,
		      struct lne_err *err)
{
	return lu_peer_del(ctx, &have->primary, nids, n, err);
}

static int w_ni_del(void *ctx, const struct lne_ni *have, struct lne_err *err)
{
	return lu_ni_del(ctx, &have->nid, err);
}

static int w_global_set(void *ctx, int g, u32 value, struct lne_err *err)
{
	return lu_global_set(ctx, (enum lne_global)g, value, err);
}

static int w_ni_add(void *ctx, const struct lne_ni *want, struct lne_err *err)
{
	struct lu *lu = ctx;
	struct lu_ni ni;
	int rc;

	memset(&ni, 0, sizeof(ni));
	ni.nid = want->nid;
	memcpy(ni.ifname, want->ifname, sizeof(ni.ifname));
	ni.cpts = want->cpts;
	ni.tun = want->tun;
	rc = lu_ni_add(lu, &ni, err);
	if (rc)
		return rc;
	/* the LNDs lnetd can hold a timeout for; the others keep lnet.ko's */
	if (want->nid.lnd == LNE_LND_TCP || want->nid.lnd == LNE_LND_O2IB) {
		u32 cur;

		if (!lu_lnd_timeout_get(lu, want->nid.lnd, &cur, NULL) && cur == want->tun.timeout)
			return 0;
		return lu_lnd_timeout_set(lu, want->nid.lnd, want->tun.timeout, err);
	}
	return 0;
}

static int w_peer_add(void *ctx, const struct lne_peer *want, const struct lne_nid *nids, size_t n,
		      struct lne_err *err)
{
	return lu_peer_add(ctx, &want->primary, want->mr, true, nids, n, err);
}

static int w_route_add(void *ctx, const struct lne_route *want, struct lne_err *err)
{
	struct lu_route r;

	memset(&r, 0, sizeof(r));
	r.net = want->rnet->id;
	r.gw = want->gw->nid;
	r.hops = want->hops;
	r.priority = want->priority;
	r.sensitivity = want->sensitivity;
	return lu_route_add(ctx, &r, err);
}

static int w_rule_add(void *ctx, const struct lne_rule *want, int64_t idx, struct lne_err *err)
{
	return lu_rule_add(ctx, want, idx, err);
}

const struct bk_writer lu_writer = {
	.rule_del = w_rule_del,
	.rule_del_all = w_rule_del_all,
	.route_del = w_route_del,
	.peer_del = w_peer_del,
	.ni_del = w_ni_del,
	.global_set = w_global_set,
	.ni_add = w_ni_add,
	.peer_add = w_peer_add,
	.route_add = w_route_add,
	.rule_add = w_rule_add,
};
