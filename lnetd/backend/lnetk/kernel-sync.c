// SPDX-License-Identifier: GPL-2.0
/*
 * kernel-sync.c - the kernel backend sends the module the differences
 * between the mirror and @pushed: the walk is sync.c's (the order, the
 * batches, the counting), the requests are this writer's, over liblnetk;
 * the NRS TBF policies follow the objects (ktbf.c: read from the module
 * and compared each time, as they are not objects of the engine instance).
 *
 * Every request the module accepts carries the generation it made, kept in
 * the queue of lnetd's own (kernel.c) so that its announcement is not taken
 * for a change behind lnetd's back; during a long sync the events socket is
 * read every DRAIN_EVERY requests so that it never overflows with them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/udsp.h"
#include "kernel-int.h"
#include "ktbf.h"
#include "lnetd/backend/sync.h"
#include "lnetd/log.h"

#define DRAIN_EVERY 256 /* requests between two reads of the events socket */
#define WHO	    "lnetk module"

struct kwriter {
	struct kbackend *kb;
	struct lnetk_batch *batch; /* between batch_begin and its end: the adds collect */
	struct lnetk_err lerr;
	size_t requests;
	bool busy;		       /* a refusal was EBUSY: it may pass, so try again later */
	char (*nidbuf)[LNETK_NID_MAX]; /* peer NIDs as text, for one request */
	const char **nidp;
	size_t nidcap;
};

/* A request's end: ours if accepted (its generation), the module's sentence if not. */
static int sent(struct kwriter *k, int rc, struct lne_err *err)
{
	k->requests++;
	if (!rc) {
		kb_mine_push(k->kb, lnetk_last_generation(k->kb->lk));
		if (!(k->requests % DRAIN_EVERY))
			kb_drain(k->kb);
		return 0;
	}
	/* No extack: the module is gone, or lnetd may not talk to it (sync.h). */
	snprintf(err->msg, sizeof(err->msg), "%.*s", (int)sizeof(err->msg) - 1, k->lerr.msg);
	return rc;
}

static const char *nid_of(const struct lne_nid *nid, char buf[LNETK_NID_MAX])
{
	lne_nid_format(nid, buf, LNETK_NID_MAX);
	return buf;
}

/* @n NIDs as text, for one request. */
static int nids_text(struct kwriter *k, const struct lne_nid *nids, size_t n)
{
	size_t i;

	if (n > k->nidcap) {
		free(k->nidbuf);
		free(k->nidp);
		k->nidbuf = calloc(n, sizeof(*k->nidbuf));
		k->nidp = calloc(n, sizeof(*k->nidp));
		k->nidcap = k->nidbuf && k->nidp ? n : 0;
		if (!k->nidcap)
			return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		k->nidp[i] = nid_of(&nids[i], k->nidbuf[i]);
	return 0;
}

/* --- deletions -------------------------------------------------------------------------- */

static int w_rule_del(void *ctx, u32 idx, struct lne_err *err)
{
	struct kwriter *k = ctx;

	return sent(k, lnetk_rule_del(k->kb->lk, idx, &k->lerr), err);
}

static int w_rule_del_all(void *ctx, struct lne_err *err)
{
	struct kwriter *k = ctx;

	return sent(k, lnetk_rule_del_all(k->kb->lk, &k->lerr), err);
}

static int w_route_del(void *ctx, const struct lne_route *have, struct lne_err *err)
{
	struct kwriter *k = ctx;
	char net[LNE_NET_STR_MAX], gw[LNETK_NID_MAX];

	lne_net_format(have->rnet->id, net, sizeof(net));
	return sent(k, lnetk_route_del(k->kb->lk, net, nid_of(&have->gw->nid, gw), &k->lerr), err);
}

static int w_peer_del(void *ctx, const struct lne_peer *have, const struct lne_nid *nids, size_t n,
		      struct lne_err *err)
{
	struct kwriter *k = ctx;
	char primary[LNETK_NID_MAX];

	if (nids_text(k, nids, n))
		return -ENOMEM;
	return sent(k,
		    lnetk_peer_del(k->kb->lk, nid_of(&have->primary, primary), n ? k->nidp : NULL,
				   n, &k->lerr),
		    err);
}

static int w_ni_del(void *ctx, const struct lne_ni *have, struct lne_err *err)
{
	struct kwriter *k = ctx;
	char nid[LNETK_NID_MAX];

	return sent(k, lnetk_ni_del(k->kb->lk, nid_of(&have->nid, nid), &k->lerr), err);
}

/* --- additions: a request each, or an item of the batch ------------------------------- */

static int w_global_set(void *ctx, int g, u32 value, struct lne_err *err)
{
	struct kwriter *k = ctx;
	const char *name = lne_global_info(g)->name;

	if (k->batch)
		return lnetk_batch_global(k->batch, name, value);
	return sent(k, lnetk_global_set(k->kb->lk, name, value, &k->lerr), err);
}

static int w_ni_add(void *ctx, const struct lne_ni *w, struct lne_err *err)
{
	struct kwriter *k = ctx;
	struct lnetk_ni ni = {.has = LNETK_HAS_NI_CPTS | LNETK_HAS_NI_DEV_CPT |
				     (w->id < LNE_NI_PLACE_AUTO ? LNETK_HAS_NI_PLACE : 0),
			      .cpts = w->cpts,
			      .dev_cpt = w->dev_cpt,
			      .place = w->id,
			      .tun = w->tun,
			      .tun_has = LNETK_TUN_ALL};

	nid_of(&w->nid, ni.nid);
	if (w->ifname[0]) {
		ni.has |= LNETK_HAS_NI_IFNAME;
		snprintf(ni.ifname, sizeof(ni.ifname), "%s", w->ifname);
	}
	if (k->batch)
		return lnetk_batch_ni(k->batch, &ni);
	return sent(k, lnetk_ni_add(k->kb->lk, &ni, &k->lerr), err);
}

static int w_peer_add(void *ctx, const struct lne_peer *w, const struct lne_nid *nids, size_t n,
		      struct lne_err *err)
{
	struct kwriter *k = ctx;
	char primary[LNETK_NID_MAX];

	if (nids_text(k, nids, n))
		return -ENOMEM;
	nid_of(&w->primary, primary);
	if (k->batch)
		return lnetk_batch_peer(k->batch, primary, w->mr, k->nidp, n);
	return sent(k, lnetk_peer_add(k->kb->lk, primary, w->mr, k->nidp, n, &k->lerr), err);
}

static int w_route_add(void *ctx, const struct lne_route *w, struct lne_err *err)
{
	struct kwriter *k = ctx;
	struct lnetk_route r = {.has = LNETK_ROUTE_ALL};

	memcpy(r.v, w->v, sizeof(r.v));
	lne_net_format(w->rnet->id, r.net, sizeof(r.net));
	nid_of(&w->gw->nid, r.gateway);
	if (k->batch)
		return lnetk_batch_route(k->batch, &r);
	return sent(k, lnetk_route_add(k->kb->lk, &r, &k->lerr), err);
}

static int w_rule_add(void *ctx, const struct lne_rule *w, int64_t idx, struct lne_err *err)
{
	struct kwriter *k = ctx;
	struct lnetk_rule r = {.src = lne_expr_text(w->src),
			       .dst = lne_expr_text(w->dst),
			       .rte = lne_expr_text(w->rte),
			       .prio = w->prio,
			       .idx = idx};
	int rc;

	if ((w->src && !r.src) || (w->dst && !r.dst) || (w->rte && !r.rte))
		rc = -ENOMEM;
	else if (k->batch)
		rc = lnetk_batch_rule(k->batch, &r);
	else
		rc = sent(k, lnetk_rule_add(k->kb->lk, &r, NULL, NULL, &k->lerr), err);
	free((char *)r.src);
	free((char *)r.dst);
	free((char *)r.rte);
	return rc;
}

/* Link state, which NI_ADD (and so a batch) does not carry: NI_SET. */
static int w_ni_set_up(void *ctx, const struct lne_ni *w, struct lne_err *err)
{
	struct kwriter *k = ctx;
	struct lnetk_ni ni = {.has = LNETK_HAS_NI_UP, .up = w->up};

	nid_of(&w->nid, ni.nid);
	return sent(k, lnetk_ni_set(k->kb->lk, &ni, &k->lerr), err);
}

/* --- the BATCH command: all or nothing in the module, built on a copy of its state ------ */

static int w_batch_begin(void *ctx, bool replace, struct lne_err *err)
{
	struct kwriter *k = ctx;

	(void)err;
	return lnetk_batch_new(k->kb->lk, replace ? LNETK_F_REPLACE : 0, &k->batch);
}

static int w_batch_send(void *ctx, size_t *applied, struct lne_err *err)
{
	struct kwriter *k = ctx;
	uint32_t n = 0;
	int rc = lnetk_batch_send(k->batch, &n, &k->lerr);

	lnetk_batch_free(k->batch);
	k->batch = NULL;
	*applied = n;
	if (!rc) {
		kb_mine_push(k->kb, lnetk_last_generation(k->kb->lk));
		return 0;
	}
	snprintf(err->msg, sizeof(err->msg), "%.*s", (int)sizeof(err->msg) - 1, k->lerr.msg);
	return rc;
}

static void w_batch_abort(void *ctx)
{
	struct kwriter *k = ctx;

	lnetk_batch_free(k->batch);
	k->batch = NULL;
}

static size_t w_batch_bytes(void *ctx)
{
	return lnetk_batch_bytes(((struct kwriter *)ctx)->batch);
}

static void w_log(void *ctx, int prio, const char *line)
{
	(void)ctx;
	lnetd_log(prio, "%s", line);
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
	.ni_set_up = w_ni_set_up,
	.batch_begin = w_batch_begin,
	.batch_send = w_batch_send,
	.batch_abort = w_batch_abort,
};

/* --- NRS TBF, after the objects (they do not depend on each other) ------------------------ */

struct tbf_run {
	struct kwriter *k;
	struct bk_sync_result *r;
};

/* ktbf.c's report of one request: counted like the others. */
static bool tbf_sent(void *ctx, int rc, const char *what)
{
	struct tbf_run *t = ctx;
	struct lne_err err = {.pos = -1, .msg = ""};

	/* A request source holds the policy: the delete waits until it lets go. */
	t->k->busy |= rc == -EBUSY;
	rc = sent(t->k, rc, &err);
	bk_sync_count(t->r, WHO, rc, &err, what);
	return !t->r->stop;
}

static void tbf_push(struct kwriter *k, struct bk_sync_result *r)
{
	struct tbf_run t = {k, r};
	int rc;

	if (r->stop)
		return;
	rc = ktbf_sync(k->kb->lk, k->kb->d->tbf, k->kb->d->ntbf, tbf_sent, &t, &k->lerr);
	if (rc && !r->refused++)
		snprintf(r->first, sizeof(r->first),
			 "cannot read the lnetk module's TBF policies: %s",
			 k->lerr.msg[0] ? k->lerr.msg : strerror(-rc));
}

void kb_push(struct kbackend *kb, struct kb_result *out)
{
	struct kwriter k = {.kb = kb};
	struct bk_sync_opts o = {
		.replace = kb->replace, .who = WHO, .batch_bytes = w_batch_bytes, .log = w_log};
	struct bk_sync_result r;

	bk_sync(&writer, &k, &kb->pushed, kb->d->mirror, &o, &r);
	if (r.replaced)
		kb->replace = false;
	if (r.local_bad)
		log_warning("lnetd's copy of the lnetk module refused %s: reading it again",
			    r.local_why);
	tbf_push(&k, &r);
	free(k.nidbuf);
	free(k.nidp);
	out->changes = r.changes;
	out->refused = r.refused;
	out->stop = r.stop;
	out->local_bad = r.local_bad;
	out->busy = k.busy;
	memcpy(out->first, r.first, sizeof(out->first));
}
