// SPDX-License-Identifier: GPL-2.0
/*
 * lustre-sync.c - a sync of the lustre engine: sync.c walks the mirror and
 * lnetd's copy of lnet.ko (@have) and this writer sends the differences as
 * the library's requests (lu-write.c's, one object per request: a peer
 * and its NIDs, a NI, a route, a rule, a global; lnet.ko has no batch, and
 * each request is bounded, so no listing or request limit of upstream's
 * lnetctl applies).  It remembers which NIs lnet.ko refused, and why, so
 * that each NI says whether it is applied (per-NI Status).
 *
 * Judging: what the running lnet.ko cannot hold is refused before the
 * commit with a sentence naming the version's limit, when lnet.ko is
 * there to ask (else the sync keeps it pending with lnet.ko's own
 * sentence when it comes).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/udsp.h"
#include "lnetd/change.h"
#include "lnetd/log.h"
#include "lu-int.h"
#include "lu-writer.h"
#include "lustre-int.h"

struct lsync {
	struct lbackend *lb;
	struct lu *lu;
};

static void refusal_note(struct lbackend *lb, const struct lne_nid *nid, const char *why)
{
	if (lb->nrefused == lb->caprefused) {
		size_t cap = lb->caprefused ? 2 * lb->caprefused : 8;
		struct lb_refusal *r = realloc(lb->refused, cap * sizeof(*r));

		if (!r)
			return; /* the NI then reads as applied; Status still has the refusal */
		lb->refused = r;
		lb->caprefused = cap;
	}
	lb->refused[lb->nrefused].nid = *nid;
	snprintf(lb->refused[lb->nrefused].why, sizeof(lb->refused[0].why), "%s", why);
	lb->nrefused++;
}

static int w_rule_del(void *ctx, u32 idx, struct lne_err *err)
{
	return lu_writer.rule_del(((struct lsync *)ctx)->lu, idx, err);
}

static int w_rule_del_all(void *ctx, struct lne_err *err)
{
	return lu_writer.rule_del_all(((struct lsync *)ctx)->lu, err);
}

static int w_route_del(void *ctx, const struct lne_route *have, struct lne_err *err)
{
	return lu_writer.route_del(((struct lsync *)ctx)->lu, have, err);
}

static int w_peer_del(void *ctx, const struct lne_peer *have, const struct lne_nid *nids, size_t n,
		      struct lne_err *err)
{
	return lu_writer.peer_del(((struct lsync *)ctx)->lu, have, nids, n, err);
}

static int w_ni_del(void *ctx, const struct lne_ni *have, struct lne_err *err)
{
	return lu_writer.ni_del(((struct lsync *)ctx)->lu, have, err);
}

static int w_global_set(void *ctx, int g, u32 value, struct lne_err *err)
{
	return lu_writer.global_set(((struct lsync *)ctx)->lu, g, value, err);
}

static int w_ni_add(void *ctx, const struct lne_ni *want, struct lne_err *err)
{
	struct lsync *s = ctx;
	int rc = lu_writer.ni_add(s->lu, want, err);

	if (rc && err->msg[0])
		refusal_note(s->lb, &want->nid, err->msg);
	return rc;
}

static int w_peer_add(void *ctx, const struct lne_peer *want, const struct lne_nid *nids, size_t n,
		      struct lne_err *err)
{
	return lu_writer.peer_add(((struct lsync *)ctx)->lu, want, nids, n, err);
}

static int w_route_add(void *ctx, const struct lne_route *want, struct lne_err *err)
{
	return lu_writer.route_add(((struct lsync *)ctx)->lu, want, err);
}

static int w_rule_add(void *ctx, const struct lne_rule *want, int64_t idx, struct lne_err *err)
{
	return lu_writer.rule_add(((struct lsync *)ctx)->lu, want, idx, err);
}

static const struct bk_writer writer = {
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

static void w_log(void *ctx, int prio, const char *line)
{
	(void)ctx;
	lnetd_log(prio, "%s", line);
}

void lb_push(struct lbackend *lb, struct lu *lu, struct bk_sync_result *r)
{
	struct lsync s = {lb, lu};
	char who[64];
	struct bk_sync_opts o = {.who = who, .log = w_log};

	snprintf(who, sizeof(who), "lnet.ko %s", lu_vname(lu));
	lb->nrefused = 0;
	bk_sync(&writer, &s, &lb->have, lb->d->mirror, &o, r);
}

/* --- judging: what this lnet.ko cannot hold ------------------------------------------------- */

/* Every NID of a peer op over /dev/lnet must be IPv4. */
static int judge_peer(struct lu *lu, const struct lnetd_op *op, struct lne_err *err)
{
	struct lne_nid nid;
	u64 nid4;
	size_t i;

	if (lu_uses_genl(lu, LU_CMD_PEERS))
		return 0;
	for (i = 0; i <= op->u.peer.n; i++) {
		const char *s = i ? op->u.peer.nids[i - 1] : op->u.peer.primary;

		if (s && !lne_nid_parse(s, &nid, NULL) &&
		    lu_nid4(lu, &nid, &nid4, "for peers (no netlink family for them)", err))
			return -EOPNOTSUPP;
	}
	return 0;
}

static int judge_route(struct lu *lu, const struct lnetd_op *op, struct lne_err *err)
{
	const struct st_route *r = &op->u.route;
	struct lne_nid gw;
	u64 nid4;

	if (r->gateway && !lne_nid_parse(r->gateway, &gw, NULL) &&
	    !lu_uses_genl(lu, LU_CMD_ROUTES) &&
	    lu_nid4(lu, &gw, &nid4, "for gateways (no netlink family for routes)", err))
		return -EOPNOTSUPP;
	if (r->sensitivity == ST_UNSET || r->sensitivity == 1)
		return 0;
	if (!r->sensitivity)
		return lne_err_set(err, -EOPNOTSUPP, r->gateway, -1,
				   "lnet.ko %s takes a route's sensitivity 0 as 1", lu_vname(lu));
	if (!lu_info(lu)->route_sensitivity || lu_uses_genl(lu, LU_CMD_ROUTES))
		return lne_err_set(err, -EOPNOTSUPP, r->gateway, -1,
				   "lnet.ko %s keeps no health sensitivity for a route (only 1, "
				   "the default, holds)",
				   lu_vname(lu));
	return 0;
}

static int judge_global(struct lu *lu, const struct lnetd_op *op, struct lne_err *err)
{
	const char *name = op->u.global.name;
	u32 value = op->u.global.value, cur;
	int g = name ? lne_global_lookup(name) : -1;

	if (g < 0)
		return 0;
	if (!lu_global_held(lu, g))
		return value == lne_global_info(g)->def
			       ? 0
			       : lne_err_set(err, -EOPNOTSUPP, name, -1,
					     "lnet.ko %s has no such setting (only lnetd's "
					     "default, %u, can be kept)",
					     lu_vname(lu), lne_global_info(g)->def);
	if (g == LNE_G_DISCOVERY && value > 1)
		return lne_err_set(err, -EOPNOTSUPP, name, -1,
				   "lnet.ko %s has discovery on or off only; %u (verify only) is "
				   "lnetd's own",
				   lu_vname(lu), value);
	if (g == LNE_G_RECOVERY_INTERVAL && !lu_global_get(lu, g, &cur, NULL) && cur != value)
		return lne_err_set(err, -EOPNOTSUPP, name, -1,
				   "lnet.ko %s ignores recovery_interval (deprecated there); it "
				   "stays %u",
				   lu_vname(lu), cur);
	if (g == LNE_G_MAX_INTERFACES && value < 16)
		return lne_err_set(err, -EOPNOTSUPP, name, -1,
				   "lnet.ko %s takes max_interfaces below 16 as 200", lu_vname(lu));
	if (value > INT32_MAX)
		return lne_err_set(err, -EOPNOTSUPP, name, -1, "lnet.ko %s holds it up to %d",
				   lu_vname(lu), INT32_MAX);
	return 0;
}

/* A rule the mirror took, at op->idx: lnet.ko's encoding of it says what it cannot hold. */
static int judge_rule(struct lbackend *lb, struct lu *lu, const struct lnetd_op *op,
		      struct lne_err *err)
{
	static u8 buf[16384];
	const struct lne_rule *r;
	int len;

	lne_list_for_each_entry(r, &lb->d->mirror->udsp.rules, link) {
		if (r->idx != op->idx)
			continue;
		len = lu_udsp_encode(lu, r, buf, sizeof(buf), err);
		return len < 0 ? len : 0;
	}
	return 0;
}

int lb_judge(struct backend *b, const struct lnetd_op *ops, size_t n, size_t *index, char *msg,
	     size_t len)
{
	struct lbackend *lb = (struct lbackend *)b;
	struct lne_err err = {.pos = -1, .msg = ""};
	struct lu *lu = NULL;
	size_t i;
	int rc = 0;

	/* lnet.ko away: nothing to ask; what it cannot hold stays pending with its sentence */
	if (!lb->loaded || lb_open(lb, &lu, &err))
		return 0;
	for (i = 0; !rc && i < n; i++) {
		const struct lnetd_op *op = &ops[i];

		if (op->verb == VERB_DEL)
			continue;
		err.msg[0] = '\0';
		switch (op->obj) {
		case OBJ_PEER:
			rc = judge_peer(lu, op, &err);
			break;
		case OBJ_ROUTE:
			rc = judge_route(lu, op, &err);
			break;
		case OBJ_GLOBAL:
			rc = judge_global(lu, op, &err);
			break;
		case OBJ_UDSP:
			rc = judge_rule(lb, lu, op, &err);
			break;
		default:
			break;
		}
		if (rc) {
			*index = i;
			snprintf(msg, len, "%s", err.msg);
		}
	}
	lu_close(lu);
	return rc ? (rc == -EOPNOTSUPP ? -EINVAL : rc) : 0;
}
