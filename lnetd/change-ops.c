// SPDX-License-Identifier: GPL-2.0
/*
 * change-ops.c - the operations of a change, one object kind at a time:
 * each parses the caller's strings, is judged by the engine mirror and is
 * written to the store in the list's open transaction (change.c runs the
 * list and undoes it).  A refusal comes back as a negative errno with its
 * sentence.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "change.h"

int lnetd_say(struct lnetd_msg *m, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(m->s, m->len, fmt, ap);
	va_end(ap);
	return rc;
}

int lnetd_say_store(struct lnetd_msg *m, int rc, const struct store_err *serr)
{
	return lnetd_say(m, rc, "%s", serr->msg[0] ? serr->msg : "the store refused the change");
}

const char *lnetd_opt(const char *s)
{
	return s && *s ? s : NULL;
}

char *lnetd_expr_text(const struct lne_expr *e)
{
	return e ? lne_expr_text(e) : strdup("");
}

/* --- NIs ------------------------------------------------------------------------ */

static bool ni_key_is(const struct lnetd_ni *n, const char *net, const char *ifname,
		      const char *pattern)
{
	if (strcmp(n->net, net))
		return false;
	return *ifname ? !strcmp(n->ifname, ifname) : !*n->ifname && !strcmp(n->pattern, pattern);
}

/*
 * Equal values are equal settings: a tunable left to the LND's default and
 * one given as that default are the same NI (tun holds the values in
 * effect), so an import of the NI with its defaults written out is no change.
 */
static bool ni_same(const struct lnetd *d, const struct lnetd_ni *a, const struct lnetd_ni *b)
{
	return !strcmp(a->pattern, b->pattern) && lnetd_ni_cpts_same(d, a, b) &&
	       !memcmp(a->tun.v, b->tun.v, sizeof(a->tun.v));
}

static const char *ni_where(const struct lnetd_ni *n)
{
	return *n->ifname ? n->ifname : n->pattern;
}

static void ni_remove(struct lnetd *d, struct lnetd_ni *n)
{
	lnetd_ni_unrealise(d, n);
	lnetd_ni_clear(n);
	memmove(n, n + 1, (size_t)(d->nis + d->nnis - (n + 1)) * sizeof(*n));
	d->nnis--;
}

static int op_net_add(struct lnetd *d, struct lnetd_op *op, struct lnetd_msg *m)
{
	struct store_err serr = {""};
	struct lnetd_ni n, *grown;
	struct st_ni sn;
	bool changed;
	size_t i, at;
	int rc;

	rc = lnetd_ni_init(&n, &op->u.ni, m->s, m->len);
	if (rc)
		return rc;
	for (i = 0; i < d->nnis; i++) {
		if (!ni_key_is(&d->nis[i], n.net, n.ifname, n.pattern))
			continue;
		rc = op->ensure && ni_same(d, &d->nis[i], &n)
			     ? 0
			     : lnetd_say(m, -EEXIST, "%s on %s is configured already", n.net,
					 ni_where(&n));
		lnetd_ni_clear(&n);
		return rc;
	}
	grown = realloc(d->nis, (d->nnis + 1) * sizeof(*d->nis));
	if (!grown) {
		lnetd_ni_clear(&n);
		return lnetd_say(m, -ENOMEM, "out of memory");
	}
	d->nis = grown;
	at = lnetd_ni_place(d, &n);
	memmove(&d->nis[at + 1], &d->nis[at], (d->nnis - at) * sizeof(*d->nis));
	d->nis[at] = n;
	d->nnis++;
	d->nis_dirty = true;
	/* Judged now if its interface is there; else accepted as pending. */
	rc = lnetd_ni_reconcile(d, &d->nis[at], &changed);
	if (rc)
		return lnetd_say(m, rc, "%s", d->nis[at].reason);
	sn = (struct st_ni){.id = n.id,
			    .net = n.net,
			    .ifname = lnetd_opt(n.ifname),
			    .pattern = lnetd_opt(n.pattern),
			    .cpts = lnetd_opt(n.cpts)};
	memcpy(sn.tun, n.tunv, sizeof(sn.tun));
	rc = store_ni_add(d->store, &sn, &serr);
	return rc ? lnetd_say_store(m, rc, &serr) : 0;
}

static int op_net_del(struct lnetd *d, struct lnetd_op *op, struct lnetd_msg *m)
{
	const struct st_ni *k = &op->u.ni;
	struct store_err serr = {""};
	char net[LNE_NET_STR_MAX];
	struct lne_err err;
	struct st_ni key;
	lne_net_t id;
	size_t i = 0, gone = 0;
	int rc;

	if (lne_net_parse(k->net ?: "", &id, &err))
		return lnetd_say(m, -EINVAL, "%s", err.msg);
	lne_net_format(id, net, sizeof(net));
	while (i < d->nnis) {
		struct lnetd_ni *n = &d->nis[i];

		if (strcmp(n->net, net) || (lnetd_opt(k->ifname) && strcmp(n->ifname, k->ifname)) ||
		    (lnetd_opt(k->pattern) && strcmp(n->pattern, k->pattern)) ||
		    (lnetd_opt(k->pattern) && !lnetd_opt(k->ifname) && *n->ifname)) {
			i++;
			continue;
		}
		key = (struct st_ni){.net = n->net,
				     .ifname = lnetd_opt(n->ifname),
				     .pattern = lnetd_opt(n->pattern)};
		rc = store_ni_del(d->store, &key, &serr);
		if (rc)
			return lnetd_say_store(m, rc, &serr);
		if (lnetd_nis_gone(d, n))
			return lnetd_say(m, -ENOMEM, "out of memory");
		ni_remove(d, n);
		d->nis_dirty = true;
		gone++;
	}
	if (gone || op->ensure)
		return 0;
	if (lnetd_opt(k->ifname) || lnetd_opt(k->pattern))
		return lnetd_say(m, -ENOENT, "no NI of %s is configured on %s", net,
				 lnetd_opt(k->ifname) ?: k->pattern);
	return lnetd_say(m, -ENOENT, "no NI of %s is configured", net);
}

/* --- peers ------------------------------------------------------------------------ */

static int nid_parse(const char *s, struct lne_nid *nid, char *canon, struct lnetd_msg *m)
{
	struct lne_err err;

	if (lne_nid_parse(s ?: "", nid, &err))
		return lnetd_say(m, -EINVAL, "%s", err.msg);
	lne_nid_format(nid, canon, LNE_NID_STR_MAX);
	return 0;
}

/*
 * A route's gateway is a peer of its routes' making (implicit).  Lustre
 * refuses to add it (sanity-lnet 105), or to give its NID to another peer:
 * so does lnetd, but an add of it as it is (non-Multi-Rail, its one NID,
 * as export writes it) is an add of what exists: 1, for the caller to judge.
 */
static int gateway_check(struct lnetd *d, const struct lne_peer *peer, const struct lne_nid *prim,
			 const struct lnetd_op *op, const struct lne_nid *nids,
			 char (*canon)[LNE_NID_STR_MAX], struct lnetd_msg *m)
{
	char pbuf[LNE_NID_STR_MAX];
	size_t i;

	lne_nid_format(prim, pbuf, sizeof(pbuf));
	for (i = 0; peer && peer->implicit && i < op->u.peer.n; i++)
		if (!lne_nid_equal(&nids[i], prim))
			break;
	if (peer && peer->implicit)
		return op->u.peer.multi_rail == 0 && i == op->u.peer.n
			       ? 1
			       : lnetd_say(
					 m, -EBUSY,
					 "%s is a route's gateway: its peer is non-Multi-Rail with this "
					 "one NID; delete its routes to configure it otherwise",
					 pbuf);
	for (i = 0; i < op->u.peer.n; i++) {
		const struct lne_peer_ni *pni = lne_peer_ni_find(d->mirror, &nids[i]);

		if (pni && lne_peer_of(pni)->implicit)
			return lnetd_say(m, -EBUSY, "%s is a route's gateway, not a NID of peer %s",
					 canon[i], pbuf);
	}
	return 0;
}

#define PEER_NIDS_ON_STACK 8

/*
 * Away with @peer's NIDs that @keep (@nkeep) does not list, a few at a
 * time, from the mirror and (those configured) the store.
 */
static int peer_drop_others(struct lnetd *d, struct lne_peer *peer, const struct lne_nid *keep,
			    size_t nkeep, const char *pbuf, struct lnetd_msg *m)
{
	struct lne_err lerr = {.msg = ""};
	struct store_err serr = {""};
	const struct lne_peer_net *pnet;
	const struct lne_peer_ni *pni;
	struct lne_nid prim = peer->primary, drop[64];
	bool stored[64], listed;
	char buf[LNE_NID_STR_MAX];
	size_t ndrop, k;
	int rc = 0;

	do {
		ndrop = 0;
		lne_list_for_each_entry(pnet, &peer->pnets, link)
			lne_list_for_each_entry(pni, &pnet->pnis, pnet_link) {
				for (k = 0, listed = false; k < nkeep; k++)
					listed |= lne_nid_equal(&keep[k], &pni->nid);
				if (!listed && ndrop < LNE_ARRAY_SIZE(drop)) {
					stored[ndrop] = !pni->discovered;
					drop[ndrop++] = pni->nid;
				}
			}
		for (k = 0; !rc && k < ndrop; k++) {
			lne_nid_format(&drop[k], buf, sizeof(buf));
			rc = lne_peer_del_nid(d->mirror, &prim, &drop[k], &lerr);
			if (rc)
				rc = lnetd_say(m, rc, "%s", lerr.msg);
			else if (stored[k] && (rc = store_peer_nid_del(d->store, pbuf, buf, &serr)))
				rc = lnetd_say_store(m, rc, &serr);
		}
	} while (!rc && ndrop == LNE_ARRAY_SIZE(drop));
	return rc;
}

static int op_peer_add(struct lnetd *d, struct lnetd_op *op, struct lnetd_msg *m)
{
	char pbuf[LNE_NID_STR_MAX], (*canon)[LNE_NID_STR_MAX] = NULL;
	char canon_s[PEER_NIDS_ON_STACK][LNE_NID_STR_MAX];
	struct lne_nid nids_s[PEER_NIDS_ON_STACK];
	const char *fresh_s[PEER_NIDS_ON_STACK];
	struct lne_err lerr = {.msg = ""};
	struct store_err serr = {""};
	struct lne_nid prim, *nids = NULL;
	const char **fresh = NULL;
	struct lne_peer *peer;
	size_t i, n = op->u.peer.n, nfresh = 0;
	struct lne_peer_conf pc;
	bool created;
	int rc, k;

	rc = nid_parse(op->u.peer.primary, &prim, pbuf, m);
	if (rc)
		return rc;
	peer = lne_peer_find(d->mirror, &prim);
	if (peer && !peer->implicit && !peer->discovered && op->u.peer.multi_rail >= 0 &&
	    peer->mr != !!op->u.peer.multi_rail)
		return lnetd_say(m, -EEXIST, "peer %s exists as %s; delete it to change that", pbuf,
				 peer->mr ? "Multi-Rail" : "non-Multi-Rail");
	/* A peer of a few NIDs (a site import's 50,000) needs no allocation. */
	if (n < PEER_NIDS_ON_STACK) {
		canon = canon_s;
		nids = nids_s;
		fresh = fresh_s;
	} else {
		canon = calloc(n + 1, sizeof(*canon));
		nids = calloc(n + 1, sizeof(*nids));
		fresh = calloc(n + 1, sizeof(*fresh));
	}
	if (!canon || !nids || !fresh) {
		rc = lnetd_say(m, -ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; !rc && i < n; i++)
		rc = nid_parse(op->u.peer.nids[i], &nids[i], canon[i], m);
	if (rc)
		goto out;
	rc = gateway_check(d, peer, &prim, op, nids, canon, m);
	if (rc > 0) { /* the gateway as it is: an import's no-op, else "exists already" */
		rc = op->ensure ? 0 : lnetd_say(m, -EEXIST, "peer %s exists already", pbuf);
		goto out;
	}
	if (rc)
		goto out;
	/* a peer discovery made becomes configured, and goes to the store */
	created = !peer || peer->implicit || peer->discovered;
	lnetd_peer_conf(op, &prim, &pc);
	if (created) {
		rc = lne_peer_add(d->mirror, &pc, &lerr);
		if (rc) {
			rc = lnetd_say(m, rc, "%s", lerr.msg);
			goto out;
		}
		peer = lne_peer_find(d->mirror, &prim);
	}
	for (i = 0; i < n; i++) {
		struct lne_peer_ni *pni = lne_peer_ni_find(d->mirror, &nids[i]);

		/* Lustre takes a NID the peer has already, and changes nothing... */
		if (pni && lne_peer_of(pni) == peer && !pni->discovered)
			continue;
		/* ...but one discovery found is configured now (lne_peer_add_nid) */
		rc = lne_peer_add_nid(d->mirror, &prim, &nids[i], &lerr);
		if (rc) {
			rc = lnetd_say(m, rc, "%s", lerr.msg);
			goto out;
		}
		fresh[nfresh++] = canon[i];
	}
	if (created) {
		/* A new peer goes to the store whole: one change, not one per NID. */
		struct st_peer sp = {.nid = pbuf, .nnids = nfresh, .nids = fresh};

		for (k = 0; k < LNE_PEER_A__COUNT; k++)
			sp.v[k] = (int)pc.v[k];
		rc = store_peer_add(d->store, &sp, &serr);
	} else {
		for (i = 0; !rc && i < nfresh; i++)
			rc = store_peer_nid_add(d->store, pbuf, fresh[i], &serr);
		if (!rc) /* --lock_prim: n counts it, a change (not "exists already") */
			rc = store_peer_update(d->store, pbuf, op->u.peer.v, &n, &serr);
	}
	if (rc)
		rc = lnetd_say_store(m, rc, &serr);
	else if (!created && !n && !op->ensure)
		rc = lnetd_say(m, -EEXIST, "peer %s exists already", pbuf);
out:
	if (canon != canon_s) {
		free(canon);
		free(nids);
		free(fresh);
	}
	return rc;
}

/*
 * set peer: the Multi-Rail design's refresh.  The peer is whichever owns
 * one of the NIDs (the first found); its NIDs become exactly these: missing
 * ones are added, others removed.  A peer whose primary NID is not in the
 * list is made again with the list's first NID as its primary; no owner
 * makes a new peer.
 */
static int op_peer_set(struct lnetd *d, struct lnetd_op *op, struct lnetd_msg *m)
{
	char(*canon)[LNE_NID_STR_MAX] = calloc(op->u.peer.n + 1, sizeof(*canon));
	struct lne_nid *all = calloc(op->u.peer.n + 1, sizeof(*all));
	char pbuf[LNE_NID_STR_MAX];
	struct lne_err lerr = {.msg = ""};
	struct store_err serr = {""};
	struct lne_peer *owner = NULL;
	const char **rest = NULL;
	size_t n = op->u.peer.n + 1, i;
	int rc = 0, mr_was = -1;

	if (!canon || !all) {
		rc = lnetd_say(m, -ENOMEM, "out of memory");
		goto out;
	}
	rc = nid_parse(op->u.peer.primary, &all[0], canon[0], m);
	for (i = 1; !rc && i < n; i++)
		rc = nid_parse(op->u.peer.nids[i - 1], &all[i], canon[i], m);
	for (i = 0; !rc && !owner && i < n; i++) {
		struct lne_peer_ni *pni = lne_peer_ni_find(d->mirror, &all[i]);

		/* a discovered peer is no owner: configuring takes its NIDs (model-peer.c) */
		if (pni && !lne_peer_of(pni)->implicit && !lne_peer_of(pni)->discovered)
			owner = lne_peer_of(pni);
	}
	if (rc)
		goto out;
	if (owner) {
		bool keep_primary = false;
		struct lne_nid prim = owner->primary;

		lne_nid_format(&prim, pbuf, sizeof(pbuf));
		if (op->u.peer.multi_rail >= 0 && owner->mr != !!op->u.peer.multi_rail) {
			rc = lnetd_say(m, -EEXIST, "peer %s exists as %s; delete it to change that",
				       pbuf, owner->mr ? "Multi-Rail" : "non-Multi-Rail");
			goto out;
		}
		for (i = 0; i < n; i++)
			keep_primary |= lne_nid_equal(&all[i], &prim);
		if (!keep_primary) {
			/* Made again with the first NID as primary, as it was otherwise. */
			if (op->u.peer.multi_rail < 0)
				mr_was = owner->mr;
			rc = lne_peer_del(d->mirror, &prim, &lerr);
			if (rc) {
				rc = lnetd_say(m, rc, "%s", lerr.msg);
				goto out;
			}
			rc = store_peer_del(d->store, pbuf, &serr);
			if (rc) {
				rc = lnetd_say_store(m, rc, &serr);
				goto out;
			}
			owner = NULL;
		} else {
			/* Away with the NIDs the list does not have. */
			rc = peer_drop_others(d, owner, all, n, pbuf, m);
			if (rc)
				goto out;
		}
	}
	/* Then what is missing: a new peer (primary first), or the owner's new NIDs. */
	rest = calloc(n, sizeof(*rest));
	if (!rest) {
		rc = lnetd_say(m, -ENOMEM, "out of memory");
		goto out;
	}
	for (i = 1; i < n; i++)
		rest[i - 1] = canon[i];
	{
		struct lnetd_op add = {.verb = VERB_ADD, .obj = OBJ_PEER, .ensure = true};

		add.u.peer.primary = owner ? pbuf : canon[0];
		if (owner) {
			/* The owner keeps its primary: every listed NID is to be there. */
			for (i = 0; i < n; i++)
				rest[i] = canon[i];
			add.u.peer.n = n;
		} else {
			add.u.peer.n = n - 1;
		}
		add.u.peer.nids = rest;
		add.u.peer.multi_rail = op->u.peer.multi_rail >= 0 ? op->u.peer.multi_rail : mr_was;
		rc = op_peer_add(d, &add, m);
	}
out:
	free(rest);
	free(canon);
	free(all);
	return rc;
}

static int op_peer_del(struct lnetd *d, struct lnetd_op *op, struct lnetd_msg *m)
{
	char pbuf[LNE_NID_STR_MAX], buf[LNE_NID_STR_MAX];
	struct lne_err lerr = {.msg = ""};
	struct store_err serr = {""};
	struct lne_nid prim, nid;
	struct lne_peer *peer;
	size_t i, n = op->u.peer.n;
	int rc;

	rc = nid_parse(op->u.peer.primary, &prim, pbuf, m);
	if (rc)
		return rc;
	peer = lne_peer_find(d->mirror, &prim);
	/* NIDs to delete name their peer by any of them, as the Multi-Rail design has it
	 * (peer del --nid, its peers: under --del); a peer named by its primary alone is
	 * that peer only. */
	for (i = 0; (!peer || peer->implicit) && n && i <= n; i++) {
		struct lne_nid any;
		struct lne_peer_ni *pni;

		if (i == 0)
			any = prim;
		else if (lne_nid_parse(op->u.peer.nids[i - 1], &any, NULL))
			continue;
		pni = lne_peer_ni_find(d->mirror, &any);
		if (pni && !lne_peer_of(pni)->implicit) {
			peer = lne_peer_of(pni);
			prim = peer->primary;
			lne_nid_format(&prim, pbuf, sizeof(pbuf));
		}
	}
	if (!peer || peer->implicit)
		return op->ensure ? 0
				  : lnetd_say(m, -ENOENT, "no peer has the primary NID %s", pbuf);
	/* Check every NID before touching anything. */
	for (i = 0; i < n; i++) {
		struct lne_peer_ni *pni;

		rc = nid_parse(op->u.peer.nids[i], &nid, buf, m);
		if (rc)
			return rc;
		pni = lne_peer_ni_find(d->mirror, &nid);
		if (!pni || lne_peer_of(pni) != peer)
			return lnetd_say(m, -ENOENT, "%s is not a NID of peer %s", buf, pbuf);
		if (lne_nid_equal(&nid, &prim) && n < peer->npni)
			return lnetd_say(m, -EBUSY,
					 "%s is peer %s's primary NID; delete the peer instead",
					 buf, pbuf);
	}
	/* The store has configured peers and NIDs only: discovered ones are runtime. */
	if (!n || n >= peer->npni) {
		bool stored = !peer->discovered;

		/* Lustre's del of a locked peer without --force: its other NIDs go */
		if (stored && !op->u.peer.force && store_peer_is_locked(d->store, pbuf))
			return peer_drop_others(d, peer, &prim, 1, pbuf, m);
		rc = lne_peer_del(d->mirror, &prim, &lerr);
		if (rc)
			return lnetd_say(m, rc, "%s", lerr.msg);
		rc = stored ? store_peer_del(d->store, pbuf, &serr) : 0;
		return rc ? lnetd_say_store(m, rc, &serr) : 0;
	}
	for (i = 0; i < n; i++) {
		bool stored;

		nid_parse(op->u.peer.nids[i], &nid, buf, m);
		stored = !lne_peer_ni_find(d->mirror, &nid)->discovered;
		rc = lne_peer_del_nid(d->mirror, &prim, &nid, &lerr);
		if (rc)
			return lnetd_say(m, rc, "%s", lerr.msg);
		rc = stored ? store_peer_nid_del(d->store, pbuf, buf, &serr) : 0;
		if (rc)
			return lnetd_say_store(m, rc, &serr);
	}
	return 0;
}

/* --- routes ------------------------------------------------------------------------ */

static int route_key(const struct st_route *r, lne_net_t *net, char *nbuf, struct lne_nid *gw,
		     char *gbuf, struct lnetd_msg *m)
{
	struct lne_err err;

	if (lne_net_parse(r->net ?: "", net, &err))
		return lnetd_say(m, -EINVAL, "%s", err.msg);
	lne_net_format(*net, nbuf, LNE_NET_STR_MAX);
	return nid_parse(r->gateway, gw, gbuf, m);
}

static int op_route_add(struct lnetd *d, struct lnetd_op *op, struct lnetd_msg *m)
{
	const struct st_route *r = &op->u.route;
	char nbuf[LNE_NET_STR_MAX], gbuf[LNE_NID_STR_MAX];
	struct lne_err lerr = {.msg = ""};
	struct store_err serr = {""};
	const struct lne_route *rt;
	struct st_route sr = {.net = nbuf, .gateway = gbuf};
	u32 v[LNE_ROUTE_A__COUNT];
	struct lne_nid gw;
	lne_net_t net;
	int rc, k;

	rc = route_key(r, &net, nbuf, &gw, gbuf, m);
	if (rc)
		return rc;
	for (k = 0; k < LNE_ROUTE_A__COUNT; k++)
		if (r->v[k] != ST_UNSET && (r->v[k] < 0 || r->v[k] > UINT32_MAX))
			return lnetd_say(m, -ERANGE, "route to %s via %s: %s %lld is out of range",
					 nbuf, gbuf, lne_route_desc[k].name, (long long)r->v[k]);
	lnetd_route_values(r, v);
	rt = lne_route_find(d->mirror, net, &gw);
	if (rt && op->ensure && !memcmp(rt->v, v, sizeof(v)))
		return 0;
	rc = lne_route_add_v(d->mirror, net, &gw, v, &lerr);
	if (rc)
		return lnetd_say(m, rc, "%s", lerr.msg);
	/* What was given is stored; an undefined setting (hops) stays not given. */
	for (k = 0; k < LNE_ROUTE_A__COUNT; k++)
		sr.v[k] = lne_route_desc[k].undef && r->v[k] == ST_UNSET ? ST_UNSET : (int64_t)v[k];
	rc = store_route_add(d->store, &sr, &serr);
	return rc ? lnetd_say_store(m, rc, &serr) : 0;
}

static int op_route_del(struct lnetd *d, struct lnetd_op *op, struct lnetd_msg *m)
{
	char nbuf[LNE_NET_STR_MAX], gbuf[LNE_NID_STR_MAX];
	struct lne_err lerr = {.msg = ""};
	struct store_err serr = {""};
	struct lne_nid gw;
	lne_net_t net;
	int rc;

	rc = route_key(&op->u.route, &net, nbuf, &gw, gbuf, m);
	if (rc)
		return rc;
	if (!lne_route_find(d->mirror, net, &gw))
		return op->ensure ? 0
				  : lnetd_say(m, -ENOENT, "no route to %s through %s", nbuf, gbuf);
	rc = lne_route_del(d->mirror, net, &gw, &lerr);
	if (rc)
		return lnetd_say(m, rc, "%s", lerr.msg);
	rc = store_route_del(d->store, nbuf, gbuf, &serr);
	return rc ? lnetd_say_store(m, rc, &serr) : 0;
}

/* --- globals ------------------------------------------------------------------------ */

static int op_global_set(struct lnetd *d, struct lnetd_op *op, struct lnetd_msg *m)
{
	struct lne_err lerr = {.msg = ""};
	struct store_err serr = {""};
	const char *name = op->u.global.name ?: "";
	int64_t stored;
	int g, rc;

	g = lne_global_lookup(name);
	if (g < 0)
		return lnetd_say(m, -ENOENT, "no global setting is called '%s'", name);
	rc = lne_global_set(d->mirror, g, op->u.global.value, &lerr);
	if (rc)
		return lnetd_say(m, rc, "%s", lerr.msg);
	/* Setting what is set already is no change. */
	if (!store_global_get(d->store, lne_global_info(g)->name, &stored, NULL) &&
	    stored == op->u.global.value)
		return 0;
	rc = store_global_set(d->store, lne_global_info(g)->name, op->u.global.value, &serr);
	return rc ? lnetd_say_store(m, rc, &serr) : 0;
}

/* --- one operation ------------------------------------------------------------------------ */

#define OP(obj, verb) ((obj)*VERB__COUNT + (verb))

static int op_run(struct lnetd *d, struct lnetd_op *op, struct lnetd_msg *m)
{
	switch (OP(op->obj, op->verb)) {
	case OP(OBJ_NET, VERB_ADD):
		return op_net_add(d, op, m);
	case OP(OBJ_NET, VERB_DEL):
		return op_net_del(d, op, m);
	case OP(OBJ_PEER, VERB_ADD):
		return op_peer_add(d, op, m);
	case OP(OBJ_PEER, VERB_DEL):
		return op_peer_del(d, op, m);
	case OP(OBJ_PEER, VERB_SET):
		return op_peer_set(d, op, m);
	case OP(OBJ_ROUTE, VERB_ADD):
		return op_route_add(d, op, m);
	case OP(OBJ_ROUTE, VERB_DEL):
		return op_route_del(d, op, m);
	case OP(OBJ_GLOBAL, VERB_SET):
		return op_global_set(d, op, m);
	case OP(OBJ_UDSP, VERB_ADD):
	case OP(OBJ_UDSP, VERB_DEL):
		return lnetd_rule_op(d, op, m->s, m->len);
	case OP(OBJ_TBF, VERB_SET):
	case OP(OBJ_TBF, VERB_ADD):
	case OP(OBJ_TBF, VERB_DEL):
		op->u.tbf.ensure = op->ensure;
		return lnetd_tbf_op(d, op->verb, &op->u.tbf, m->s, m->len);
	}
	return lnetd_say(m, -EINVAL, "a %s cannot be %s", lnetd_obj_name(op->obj),
			 op->verb == VERB_SET	? "set"
			 : op->verb == VERB_ADD ? "added"
						: "deleted");
}
int lnetd_op_run(struct lnetd *d, struct lnetd_op *op, char *msg, size_t len)
{
	struct lnetd_msg m = {.s = msg, .len = len};

	return op_run(d, op, &m);
}
