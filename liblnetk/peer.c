// SPDX-License-Identifier: GPL-2.0
/*
 * peer.c - peers: PEER_ADD, PEER_DEL, PEER_NI_SET, PEER_GET and its dump
 * (messages that repeat a primary NID merged into one peer).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "client-int.h"

struct peer_in {
	const char *primary;
	bool mr, with_mr;
	const char *const *nids;
	size_t nnids;
};

static size_t peer_size(size_t nnids)
{
	return 128 + nnids * (NLA_HDRLEN * 2 + LNETK_NID_MAX);
}

static int put_peer(struct nl_msg *msg, const void *in)
{
	const struct peer_in *p = in;
	struct nlattr *nest = nla_nest_start(msg, LNETK_A_PEER);
	size_t i;

	if (!nest || nla_put_string(msg, LNETK_PEER_A_PRIMARY, p->primary) < 0 ||
	    (p->with_mr && nla_put_u8(msg, LNETK_PEER_A_MR, p->mr) < 0))
		return -NLE_NOMEM;
	for (i = 0; i < p->nnids; i++) {
		struct nlattr *pni = nla_nest_start(msg, LNETK_PEER_A_PEER_NI);

		if (!pni || nla_put_string(msg, LNETK_PNI_A_NID, p->nids[i]) < 0)
			return -NLE_NOMEM;
		nla_nest_end(msg, pni);
	}
	return nla_nest_end(msg, nest);
}

int lnetk_peer_add(struct lnetk *lk, const char *primary, bool mr, const char *const *nids,
		   size_t nnids, struct lnetk_err *err)
{
	struct peer_in in = {primary, mr, true, nids, nnids};
	struct req rq = {.err = err};

	return lk_run(lk, LNETK_CMD_PEER_ADD, 0, peer_size(nnids), put_peer, &in, &rq);
}

int lnetk_peer_del(struct lnetk *lk, const char *primary, const char *const *nids, size_t nnids,
		   struct lnetk_err *err)
{
	struct peer_in in = {primary, false, false, nids, nnids};
	struct req rq = {.err = err};

	return lk_run(lk, LNETK_CMD_PEER_DEL, 0, peer_size(nnids), put_peer, &in, &rq);
}

static int put_pni_set(struct nl_msg *msg, const void *in)
{
	const struct lnetk_peer_ni *pni = in;
	struct nlattr *nest = nla_nest_start(msg, LNETK_A_PEER_NI);

	if (!nest || nla_put_string(msg, LNETK_PNI_A_NID, pni->nid) < 0 ||
	    ((pni->has & LNETK_HAS_PNI_HEALTH) &&
	     nla_put_u32(msg, LNETK_PNI_A_HEALTH, pni->health) < 0) ||
	    ((pni->has & LNETK_HAS_PNI_CREDITS) &&
	     nla_put_s32(msg, LNETK_PNI_A_CREDITS, pni->credits) < 0))
		return -NLE_NOMEM;
	return nla_nest_end(msg, nest);
}

int lnetk_peer_ni_set(struct lnetk *lk, const struct lnetk_peer_ni *pni, struct lnetk_err *err)
{
	struct req rq = {.err = err};

	return lk_run(lk, LNETK_CMD_PEER_NI_SET, 0, 128, put_pni_set, pni, &rq);
}

static const struct nla_policy peer_policy[LNETK_PEER_A_MAX + 1] = {
	[LNETK_PEER_A_PRIMARY] = {.type = NLA_STRING},
	[LNETK_PEER_A_MR] = {.type = NLA_U8},
	[LNETK_PEER_A_IMPLICIT] = {.type = NLA_U8},
	[LNETK_PEER_A_PEER_NI] = {.type = NLA_NESTED},
	[LNETK_PEER_A_DISCOVERED] = {.type = NLA_U8},
};

static const struct nla_policy pni_policy[LNETK_PNI_A_MAX + 1] = {
	[LNETK_PNI_A_NID] = {.type = NLA_STRING},
	[LNETK_PNI_A_HEALTH] = {.type = NLA_U32},
	[LNETK_PNI_A_CREDITS] = {.type = NLA_U32},
	[LNETK_PNI_A_PRIO] = {.type = NLA_U32},
	[LNETK_PNI_A_PRIO_RULE] = {.type = NLA_U32},
	[LNETK_PNI_A_NET_PRIO] = {.type = NLA_U32},
	[LNETK_PNI_A_NET_PRIO_RULE] = {.type = NLA_U32},
	[LNETK_PNI_A_GW_ROUTES] = {.type = NLA_U32},
	[LNETK_PNI_A_PREF_SRC] = {.type = NLA_NESTED},
	[LNETK_PNI_A_PREF_GW] = {.type = NLA_NESTED},
	[LNETK_PNI_A_DISCOVERED] = {.type = NLA_U8},
	[LNETK_PNI_A_STATE] = {.type = NLA_U8},
};

static const struct nla_policy pref_policy[LNETK_PREF_A_MAX + 1] = {
	[LNETK_PREF_A_NID] = {.type = NLA_STRING},
	[LNETK_PREF_A_PRIO] = {.type = NLA_U32},
	[LNETK_PREF_A_RULE] = {.type = NLA_U32},
};

static int add_pref(struct lnetk_pref **arr, size_t *n, struct nlattr *nest)
{
	struct nlattr *tb[LNETK_PREF_A_MAX + 1];
	struct lnetk_pref *p = realloc(*arr, (*n + 1) * sizeof(**arr));

	if (!p)
		return -ENOMEM;
	*arr = p;
	p += *n;
	memset(p, 0, sizeof(*p));
	if (nla_parse_nested(tb, LNETK_PREF_A_MAX, nest, pref_policy) < 0)
		return -EPROTO;
	(*n)++;
	p->prio = get_u32_or(tb[LNETK_PREF_A_PRIO], LNETK_PRIO_NONE);
	p->rule = get_u32_or(tb[LNETK_PREF_A_RULE], 0);
	return lk_get_str(p->nid, sizeof(p->nid), tb[LNETK_PREF_A_NID]);
}

static void pni_clear(struct lnetk_peer_ni *pni)
{
	free(pni->pref_src);
	free(pni->pref_gw);
}

/* Fills @pni; the caller frees what it holds with pni_clear() even on error. */
static int parse_pni(struct nlattr *nest, struct lnetk_peer_ni *pni)
{
	struct nlattr *tb[LNETK_PNI_A_MAX + 1], *a;
	int rc, rem;

	memset(pni, 0, sizeof(*pni));
	if (nla_parse_nested(tb, LNETK_PNI_A_MAX, nest, pni_policy) < 0 || !tb[LNETK_PNI_A_NID])
		return -EPROTO;
	rc = lk_get_str(pni->nid, sizeof(pni->nid), tb[LNETK_PNI_A_NID]);
	if (rc)
		return rc;
	pni->has = (tb[LNETK_PNI_A_HEALTH] ? LNETK_HAS_PNI_HEALTH : 0) |
		   (tb[LNETK_PNI_A_CREDITS] ? LNETK_HAS_PNI_CREDITS : 0);
	pni->health = get_u32_or(tb[LNETK_PNI_A_HEALTH], 0);
	pni->credits = get_s32_or(tb[LNETK_PNI_A_CREDITS], 0);
	pni->prio = get_u32_or(tb[LNETK_PNI_A_PRIO], LNETK_PRIO_NONE);
	pni->prio_rule = get_s32_or(tb[LNETK_PNI_A_PRIO_RULE], -1);
	pni->net_prio = get_u32_or(tb[LNETK_PNI_A_NET_PRIO], LNETK_PRIO_NONE);
	pni->net_prio_rule = get_s32_or(tb[LNETK_PNI_A_NET_PRIO_RULE], -1);
	pni->gw_routes = get_u32_or(tb[LNETK_PNI_A_GW_ROUTES], 0);
	pni->discovered = tb[LNETK_PNI_A_DISCOVERED] && nla_get_u8(tb[LNETK_PNI_A_DISCOVERED]);
	pni->state = tb[LNETK_PNI_A_STATE] ? nla_get_u8(tb[LNETK_PNI_A_STATE]) : 0;
	nla_for_each_nested(a, nest, rem) {
		if (nla_type(a) == LNETK_PNI_A_PREF_SRC)
			rc = add_pref(&pni->pref_src, &pni->npref_src, a);
		else if (nla_type(a) == LNETK_PNI_A_PREF_GW)
			rc = add_pref(&pni->pref_gw, &pni->npref_gw, a);
		if (rc)
			return rc;
	}
	return 0;
}

static void peer_clear(struct lnetk_peer *peer)
{
	size_t i;

	for (i = 0; i < peer->nnis; i++)
		pni_clear(&peer->nis[i]);
	free(peer->nis);
	memset(peer, 0, sizeof(*peer));
}

void lnetk_peer_free(struct lnetk_peer *peer)
{
	if (!peer)
		return;
	peer_clear(peer);
	free(peer);
}

/*
 * The peer being merged from consecutive messages with the same primary
 * NID.  With a dump callback, each peer is handed over when the next one
 * starts (or the dump ends); without, the one peer is kept (PEER_GET).
 */
struct peer_acc {
	struct lnetk_peer peer;
	size_t cap;
	bool have;
	struct dump *d;
};

static int peer_flush(struct peer_acc *acc)
{
	int rc = 0;

	if (acc->have && acc->d)
		rc = cb_rc(acc->d->cb.peer(&acc->peer, acc->d->arg));
	peer_clear(&acc->peer);
	acc->cap = 0;
	acc->have = false;
	return rc;
}

static int parse_peer_msg(struct req *rq, struct nlattr **tb, struct nlmsghdr *nlh __maybe_unused)
{
	struct nlattr *ptb[LNETK_PEER_A_MAX + 1], *a;
	struct peer_acc *acc = rq->arg;
	char primary[LNETK_NID_MAX];
	int rc, rem;

	if (!tb[LNETK_A_PEER] ||
	    nla_parse_nested(ptb, LNETK_PEER_A_MAX, tb[LNETK_A_PEER], peer_policy) < 0 ||
	    !ptb[LNETK_PEER_A_PRIMARY])
		return -EPROTO;
	rc = lk_get_str(primary, sizeof(primary), ptb[LNETK_PEER_A_PRIMARY]);
	if (rc)
		return rc;
	if (acc->have && strcmp(primary, acc->peer.primary)) {
		rc = peer_flush(acc);
		if (rc)
			return rc;
	}
	if (!acc->have) {
		memcpy(acc->peer.primary, primary, sizeof(primary));
		acc->peer.mr = ptb[LNETK_PEER_A_MR] && nla_get_u8(ptb[LNETK_PEER_A_MR]);
		acc->peer.implicit = ptb[LNETK_PEER_A_IMPLICIT] &&
				     nla_get_u8(ptb[LNETK_PEER_A_IMPLICIT]);
		acc->peer.discovered = ptb[LNETK_PEER_A_DISCOVERED] &&
				       nla_get_u8(ptb[LNETK_PEER_A_DISCOVERED]);
		acc->have = true;
	}
	nla_for_each_nested(a, tb[LNETK_A_PEER], rem) {
		if (nla_type(a) != LNETK_PEER_A_PEER_NI)
			continue;
		if (acc->peer.nnis == acc->cap) {
			size_t cap = acc->cap ? acc->cap * 2 : 4;
			struct lnetk_peer_ni *nis = realloc(acc->peer.nis, cap * sizeof(*nis));

			if (!nis)
				return -ENOMEM;
			acc->peer.nis = nis;
			acc->cap = cap;
		}
		rc = parse_pni(a, &acc->peer.nis[acc->peer.nnis++]);
		if (rc)
			return rc;
	}
	return 0;
}

static int put_peer_nid(struct nl_msg *msg, const void *in)
{
	struct peer_in p = {.primary = in};

	return put_peer(msg, &p);
}

int lnetk_peer_get(struct lnetk *lk, const char *nid, struct lnetk_peer **peerp,
		   struct lnetk_err *err)
{
	struct peer_acc acc = {.have = false};
	struct req rq = {.err = err, .parse = parse_peer_msg, .arg = &acc};
	int rc;

	*peerp = NULL;
	rc = lk_run(lk, LNETK_CMD_PEER_GET, 0, 128, put_peer_nid, nid, &rq);
	if (!rc && !acc.have)
		rc = -EPROTO;
	if (!rc) {
		*peerp = malloc(sizeof(**peerp));
		if (!*peerp)
			rc = -ENOMEM;
	}
	if (rc) {
		peer_clear(&acc.peer);
		return rc;
	}
	**peerp = acc.peer;
	return 0;
}

int lnetk_peer_dump(struct lnetk *lk, lnetk_peer_cb cb, void *arg, struct lnetk_err *err)
{
	struct dump d = {.cb.peer = cb, .arg = arg};
	struct peer_acc acc = {.d = &d};
	struct req rq = {.err = err, .parse = parse_peer_msg, .arg = &acc};
	int rc = lk_run(lk, LNETK_CMD_PEER_GET, NLM_F_DUMP, 0, NULL, NULL, &rq), last;

	/* The last peer is complete only now; an interrupted dump still delivers it. */
	if (rc && rc != -EAGAIN)
		acc.d = NULL;
	last = peer_flush(&acc);
	return last ? last : rc;
}
