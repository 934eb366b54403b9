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
#include "lustre-tbf.h"

#define DRIFT_LOG_MAX 8 /* requests of one drift repair named in the log */

struct lsync {
	struct lbackend *lb;
	struct lu *lu;
	bool drift; /* a repair after the poll: name what is put back */
	unsigned int named;
};

/* A drift repair's request, named in the log (the first few of each repair). */
static void name_it(struct lsync *s, const char *verb, const char *kind, const struct lne_nid *nid,
		    const char *more)
{
	char text[LNE_NID_STR_MAX] = "";

	if (!s->drift || s->named++ >= DRIFT_LOG_MAX)
		return;
	if (nid)
		lne_nid_format(nid, text, sizeof(text));
	log_notice("lnet.ko drift: %s %s %s%s", verb, kind, text, more ? more : "");
}

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
	name_it(ctx, "delete", "a UDSP rule", NULL, NULL);
	return lu_writer.rule_del(((struct lsync *)ctx)->lu, idx, err);
}

static int w_rule_del_all(void *ctx, struct lne_err *err)
{
	name_it(ctx, "delete", "every UDSP rule", NULL, NULL);
	return lu_writer.rule_del_all(((struct lsync *)ctx)->lu, err);
}

static int w_route_del(void *ctx, const struct lne_route *have, struct lne_err *err)
{
	name_it(ctx, "delete", "the route via", &have->gw->nid, NULL);
	return lu_writer.route_del(((struct lsync *)ctx)->lu, have, err);
}

static int w_peer_del(void *ctx, const struct lne_peer *have, const struct lne_nid *nids, size_t n,
		      struct lne_err *err)
{
	name_it(ctx, "delete", n ? "NIDs of peer" : "peer", &have->primary, NULL);
	return lu_writer.peer_del(((struct lsync *)ctx)->lu, have, nids, n, err);
}

static int w_ni_del(void *ctx, const struct lne_ni *have, struct lne_err *err)
{
	/* lnet.ko drops what rides the NI (peer NIs of its net, routes through it) */
	((struct lsync *)ctx)->lb->reread = true;
	name_it(ctx, "delete", "NI", &have->nid, NULL);
	return lu_writer.ni_del(((struct lsync *)ctx)->lu, have, err);
}

static int w_global_set(void *ctx, int g, u32 value, struct lne_err *err)
{
	name_it(ctx, "set", lne_global_info(g)->name, NULL, NULL);
	return lu_writer.global_set(((struct lsync *)ctx)->lu, g, value, err);
}

/* --- NIs: what lnet.ko shows of what lnetd added -------------------------------------------- */

void lb_ni_fields_of(const struct lne_ni *ni, struct lb_ni_fields *f)
{
	memset(f, 0, sizeof(*f));
	memcpy(f->ifname, ni->ifname, sizeof(f->ifname));
	f->cpts = ni->cpts;
	f->tun = ni->tun;
}

static struct lb_ni_print *print_find(struct lbackend *lb, const struct lne_nid *nid)
{
	size_t i;

	for (i = 0; i < lb->nprints; i++)
		if (lne_nid_equal(&lb->prints[i].nid, nid))
			return &lb->prints[i];
	return NULL;
}

/* Read back the NI just added, as lu_read() would (lu-read.c), and keep its print. */
static void print_take(struct lsync *s, const struct lne_ni *want)
{
	struct lbackend *lb = s->lb;
	struct lb_ni_print *p = print_find(lb, &want->nid);
	struct lu_ni *nis = NULL;
	size_t n = 0, i;
	u32 t;

	if (lu_ni_list(s->lu, &nis, &n, NULL))
		return;
	for (i = 0; i < n && !lne_nid_equal(&nis[i].nid, &want->nid); i++)
		;
	if (i < n && !p && lb->nprints == lb->capprints) {
		size_t cap = lb->capprints ? 2 * lb->capprints : 8;
		struct lb_ni_print *grown = realloc(lb->prints, cap * sizeof(*grown));

		if (grown) {
			lb->prints = grown;
			lb->capprints = cap;
		}
	}
	if (i < n && !p && lb->nprints < lb->capprints)
		p = &lb->prints[lb->nprints++];
	if (i < n && p) {
		memset(p, 0, sizeof(*p));
		p->nid = want->nid;
		lb_ni_fields_of(want, &p->want);
		memcpy(p->got.ifname, nis[i].ifname, sizeof(p->got.ifname));
		p->got.cpts = nis[i].cpts;
		p->got.tun = nis[i].tun;
		if (!lu_lnd_timeout_get(s->lu, want->nid.lnd, &t, NULL))
			p->got.tun.timeout = t;
	}
	free(nis);
}

/*
 * Whether lnet.ko showing @got is what lnetd asked with @want, where
 * lnet.ko puts its own value for lnetd's "the LND decides": conns_per_peer
 * 0 (socklnd picks by link speed, 1 on most), tos off (2.16 on shows 0).
 */
static bool fields_as_asked(const struct lne_ni *got, const struct lne_ni *want)
{
	int t;

	if (strcmp(got->ifname, want->ifname) || got->cpts != want->cpts)
		return false;
	for (t = 0; t < LNE_TUN__COUNT; t++) {
		if (got->tun.v[t] == want->tun.v[t])
			continue;
		if (t == LNE_TUN_CONNS_PER_PEER && !want->tun.v[t])
			continue;
		if (t == LNE_TUN_TOS && want->tun.v[t] == LNE_TUN_OFF && !got->tun.v[t])
			continue;
		return false;
	}
	return true;
}

/* Name what lnet.ko's NI @h shows unlike the mirror's @w (it will be added again). */
static void ni_differs(const struct lne_ni *h, const struct lne_ni *w)
{
	char nid[LNE_NID_STR_MAX], what[256] = "";
	size_t at = 0;
	int t;

	if (strcmp(h->ifname, w->ifname))
		at += (size_t)snprintf(what + at, sizeof(what) - at, " interface %s", h->ifname);
	if (h->cpts != w->cpts && at < sizeof(what))
		at += (size_t)snprintf(what + at, sizeof(what) - at, " CPTs %#llx",
				       (unsigned long long)h->cpts);
	for (t = 0; t < LNE_TUN__COUNT && at < sizeof(what); t++)
		if (h->tun.v[t] != w->tun.v[t])
			at += (size_t)snprintf(what + at, sizeof(what) - at, " %s %u (not %u)",
					       lne_tun_desc[t].name, h->tun.v[t], w->tun.v[t]);
	if (at)
		log_notice("lnet.ko drift: NI %s has%s", lu_nidstr(&h->nid, nid), what);
}

/*
 * @have as lu_read() made it, comparable with the mirror: an NI's place is
 * lnetd's (lnet.ko keeps its own order: the mirror's places are given where
 * they keep lnet.ko's order), its device CPT lnet.ko's own (lnetd cannot
 * set it), the LND's choices where lnetd leaves them to it (fields_as_asked)
 * and fields lnet.ko showed just so after lnetd added the NI are what the
 * mirror asks.
 */
void lb_have_normalise(struct lbackend *lb)
{
	struct lb_ni_fields f;
	const struct lne_ni *w;
	struct lb_ni_print *p;
	struct lne_ni *h;
	u64 prev = 0, id;
	bool ordered = true;

	lne_list_for_each_entry(h, &lb->have->nis, all_link) {
		w = lne_ni_find(lb->d->mirror, &h->nid);
		id = w ? w->id : prev < LNE_NI_PLACE_AUTO ? LNE_NI_PLACE_AUTO : prev + 1;
		if (id <= prev && prev) {
			ordered = false;
			break;
		}
		prev = id;
	}
	prev = 0;
	lne_list_for_each_entry(h, &lb->have->nis, all_link) {
		w = lne_ni_find(lb->d->mirror, &h->nid);
		if (ordered) {
			h->id = w ? w->id : prev < LNE_NI_PLACE_AUTO ? LNE_NI_PLACE_AUTO : prev + 1;
			prev = h->id;
		}
		if (!w)
			continue;
		h->dev_cpt = w->dev_cpt;
		p = print_find(lb, &h->nid);
		if (fields_as_asked(h, w)) {
			h->tun = w->tun;
			continue;
		}
		if (!p) {
			ni_differs(h, w);
			continue;
		}
		lb_ni_fields_of(w, &f);
		if (memcmp(&f, &p->want, sizeof(f)))
			continue; /* the mirror asks something else now */
		lb_ni_fields_of(h, &f);
		if (memcmp(&f, &p->got, sizeof(f)))
			continue; /* changed behind lnetd's back */
		memcpy(h->ifname, w->ifname, sizeof(h->ifname));
		h->cpts = w->cpts;
		h->tun = w->tun;
	}
}

static int w_ni_add(void *ctx, const struct lne_ni *want, struct lne_err *err)
{
	struct lsync *s = ctx;
	int rc;

	name_it(s, "add", "NI", &want->nid, NULL);
	rc = lu_writer.ni_add(s->lu, want, err);
	if (rc && err->msg[0])
		refusal_note(s->lb, &want->nid, err->msg);
	if (!rc)
		print_take(s, want);
	return rc;
}

static int w_peer_add(void *ctx, const struct lne_peer *want, const struct lne_nid *nids, size_t n,
		      struct lne_err *err)
{
	name_it(ctx, "add", n ? "NIDs to peer" : "peer", &want->primary, NULL);
	return lu_writer.peer_add(((struct lsync *)ctx)->lu, want, nids, n, err);
}

static int w_route_add(void *ctx, const struct lne_route *want, struct lne_err *err)
{
	name_it(ctx, "add", "the route via", &want->gw->nid, NULL);
	return lu_writer.route_add(((struct lsync *)ctx)->lu, want, err);
}

static int w_rule_add(void *ctx, const struct lne_rule *want, int64_t idx, struct lne_err *err)
{
	name_it(ctx, "add", "a UDSP rule", NULL, NULL);
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

void lb_push(struct lbackend *lb, struct lu *lu, bool drift, struct bk_sync_result *r)
{
	struct lsync s = {lb, lu, drift, 0};
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

	/* TBF policies: the services', judged by the TBF side whether lnet.ko is there or not */
	rc = lustre_tbf_judge(b, ops, n, index, msg, len);
	if (rc)
		return rc;
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
