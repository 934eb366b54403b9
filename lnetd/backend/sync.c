// SPDX-License-Identifier: GPL-2.0
/*
 * sync.c - the differences between lnetd's mirror and an engine's copy,
 * sent through the engine's writer (sync.h says in what order and how).
 * Engine-agnostic: the engine and libc only, so the unit tier drives it
 * with a recording writer.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

#include "engine/udsp.h"
#include "sync.h"

#define BATCH_MIN   64 /* fewer additions than this go one request each */
#define BATCH_RATIO 16 /* ... and so do fewer than 1/16 of what the engine holds */

enum mode {
	M_SEND,	   /* one request each, applied to @have when accepted */
	M_COUNT,   /* only count the additions */
	M_COLLECT, /* put the additions in a batch */
	M_LOCAL,   /* the batch went through: apply them to @have */
};

/* The kinds of additions, in their order (additions()). */
enum {
	A_GLOBALS,
	A_NIS,
	A_PEERS,
	A_ROUTES,
	A_RULES,
	A__COUNT
};

struct sync {
	const struct bk_writer *w;
	const struct bk_sync_opts *o;
	void *ctx;
	const char *who;
	struct lne_inst **have;	     /* the engine's copy: a replacing batch swaps it */
	const struct lne_inst *want; /* the mirror */
	enum mode mode;
	struct bk_sync_result *r;
	struct lne_err err;	     /* the writer's, for one request */
	size_t items;		     /* M_COUNT, M_COLLECT: additions seen */
	size_t kind_items[A__COUNT]; /* M_COUNT's items of each kind */
	int build;		     /* M_COLLECT: < 0, the batch could not be built */
	struct lne_nid *nids;	     /* a peer's NIDs, for one request */
	size_t nidcap;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void say(struct sync *s, int prio, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void say(struct sync *s, int prio, const char *fmt, ...)
{
	char line[BK_WHY_MAX];
	va_list ap;

	if (!s->o->log)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	s->o->log(s->ctx, prio, line);
}

size_t bk_objects(const struct lne_inst *ln)
{
	return ln ? ln->nni + ln->npni + ln->nroute + ln->udsp.nrules : 0;
}

bool bk_sync_count(struct bk_sync_result *r, const char *who, int rc, const struct lne_err *err,
		   const char *what)
{
	r->requests++;
	if (!rc) {
		r->changes++;
		return true;
	}
	if (!err || !err->msg[0]) {
		/* No sentence: the engine is gone, or lnetd may not talk to it. */
		snprintf(r->first, sizeof(r->first), "cannot reach the %s (%s: %s)", who, what,
			 strerror(-rc));
		r->stop = rc;
		return false;
	}
	if (!r->refused++)
		snprintf(r->first, sizeof(r->first), "the %s refused %s: %s", who, what, err->msg);
	return false;
}

/* The writer's sentence for the next request: none yet. */
static struct lne_err *fresh(struct sync *s)
{
	s->err.pos = -1;
	s->err.msg[0] = '\0';
	return &s->err;
}

/* A refused request: its name made only now, for the sentence. */
static bool refused(struct sync *s, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static bool refused(struct sync *s, int rc, const char *fmt, ...)
{
	char what[LNE_ERR_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return bk_sync_count(s->r, s->who, rc, &s->err, what);
}

/*
 * After a request (M_SEND) or batch item (M_COLLECT): whether the change
 * should now be applied to @have.  M_COUNT counts it; M_LOCAL applies it.
 */
static bool sent_ok(struct sync *s, int rc)
{
	switch (s->mode) {
	case M_COUNT:
		s->items++;
		return false;
	case M_COLLECT:
		if (rc)
			s->build = rc;
		else
			s->items++;
		return false;
	case M_LOCAL:
		return true;
	case M_SEND:
		break;
	}
	return bk_sync_count(s->r, s->who, 0, NULL, NULL);
}

/* The arguments after @rc name the request, formatted only when it was refused. */
#define SENT(s, rc, ...) \
	((s)->mode != M_SEND || !(rc) ? sent_ok(s, rc) : refused(s, rc, __VA_ARGS__))

/* The same change on @have; the engine's copy refusing what the engine took means they parted. */
static void local(struct sync *s, int rc, const struct lne_err *err, const char *what)
{
	if (!rc || s->r->local_bad)
		return;
	s->r->local_bad = true;
	snprintf(s->r->local_why, sizeof(s->r->local_why), "%s (%s)", what, err->msg);
}

static bool live(const struct sync *s)
{
	return !s->r->stop && !s->build;
}

static struct lne_inst *have(const struct sync *s)
{
	return *s->have;
}

static const char *nid_text(const struct lne_nid *nid, char buf[LNE_NID_STR_MAX])
{
	lne_nid_format(nid, buf, LNE_NID_STR_MAX);
	return buf;
}

static const char *net_text(lne_net_t net, char buf[LNE_NET_STR_MAX])
{
	lne_net_format(net, buf, LNE_NET_STR_MAX);
	return buf;
}

/* Room for @n peer NIDs. */
static int nid_room(struct sync *s, size_t n)
{
	if (n <= s->nidcap)
		return 0;
	free(s->nids);
	s->nids = calloc(n, sizeof(*s->nids));
	s->nidcap = s->nids ? n : 0;
	return s->nids ? 0 : -ENOMEM;
}

static void no_memory(struct sync *s)
{
	if (!s->r->stop)
		snprintf(s->r->first, sizeof(s->r->first), "out of memory");
	s->r->stop = -ENOMEM;
}

/* --- peers: what stays ----------------------------------------------------------------- */

/*
 * A peer of @have stays when the mirror has a peer with the same primary
 * NID that the engine can turn it into by adding NIDs: an explicit one
 * with the same Multi-Rail setting, or any when it is implicit now (adding
 * it makes it explicit).  Anything else is deleted and added again.
 */
static const struct lne_peer *peer_match(const struct lne_inst *want, const struct lne_peer *p)
{
	const struct lne_peer *m = lne_peer_find(want, &p->primary);

	if (!m || (!p->implicit && (m->implicit || m->mr != p->mr)))
		return NULL;
	return m;
}

/* Whether @pni stays in the mirror's peer @m (its own peer's match, NULL for none). */
static bool pni_stays_in(const struct lne_inst *want, const struct lne_peer *m,
			 const struct lne_peer_ni *pni)
{
	const struct lne_peer_ni *w = m ? lne_peer_ni_find(want, &pni->nid) : NULL;

	return w && lne_peer_of(w) == m;
}

static bool pni_stays(const struct lne_inst *want, const struct lne_peer_ni *pni)
{
	return pni_stays_in(want, peer_match(want, lne_peer_of(pni)), pni);
}

/* --- deletions -------------------------------------------------------------------------- */

static bool expr_same(const struct lne_expr *a, const struct lne_expr *b)
{
	return !a == !b && (!a || lne_expr_equal(a, b));
}

static bool rule_same(const struct lne_rule *a, const struct lne_rule *b)
{
	return a->kind == b->kind && a->prio == b->prio && expr_same(a->src, b->src) &&
	       expr_same(a->dst, b->dst) && expr_same(a->rte, b->rte);
}

static struct lne_rule **rule_array(const struct lne_inst *ln)
{
	struct lne_rule **a = calloc(ln->udsp.nrules + 1, sizeof(*a)), *r;
	size_t i = 0;

	if (a)
		lne_list_for_each_entry(r, &ln->udsp.rules, link)
			a[i++] = r;
	return a;
}

/* The rules both lists start with (@k) and end with (@suffix, not overlapping @k). */
static int rules_common(const struct lne_inst *want, const struct lne_inst *h, u32 *k, u32 *suffix)
{
	struct lne_rule **w = rule_array(want), **a = rule_array(h);
	u32 nw = want->udsp.nrules, nh = h->udsp.nrules;
	int rc = w && a ? 0 : -ENOMEM;

	*k = *suffix = 0;
	while (!rc && *k < nw && *k < nh && rule_same(w[*k], a[*k]))
		(*k)++;
	while (!rc && *k + *suffix < nw && *k + *suffix < nh &&
	       rule_same(w[nw - 1 - *suffix], a[nh - 1 - *suffix]))
		(*suffix)++;
	free(w);
	free(a);
	return rc;
}

static void rules_delete(struct sync *s)
{
	struct lne_err le = {.msg = ""};
	u32 k, suffix, idx;
	int rc;

	if (rules_common(s->want, have(s), &k, &suffix)) {
		no_memory(s);
		return;
	}
	if (k + suffix == have(s)->udsp.nrules)
		return;
	if (!k && !suffix && have(s)->udsp.nrules > 1 && s->w->rule_del_all) {
		rc = s->w->rule_del_all(s->ctx, fresh(s));
		if (SENT(s, rc, "the deletion of every rule"))
			lne_rule_del_all(have(s));
		return;
	}
	/* From the last: the idx of those before stays put. */
	for (idx = have(s)->udsp.nrules - suffix; live(s) && idx-- > k;) {
		rc = s->w->rule_del(s->ctx, idx, fresh(s));
		if (SENT(s, rc, "the deletion of rule %u", idx))
			local(s, lne_rule_del(have(s), idx, &le), &le, "a rule deletion");
	}
}

static bool route_same(const struct lne_route *a, const struct lne_route *b)
{
	return !memcmp(a->v, b->v, sizeof(a->v));
}

static void routes_delete(struct sync *s)
{
	char net[LNE_NET_STR_MAX], gw[LNE_NID_STR_MAX];
	struct lne_route *rt, *next;
	struct lne_err le = {.msg = ""};
	const struct lne_route *w;
	struct lne_nid gwnid;
	lne_net_t id;
	int rc;

	lne_list_for_each_entry_safe(rt, next, &have(s)->routes, link) {
		if (!live(s))
			return;
		w = lne_route_find(s->want, rt->rnet->id, &rt->gw->nid);
		if (w && route_same(w, rt) && pni_stays(s->want, rt->gw))
			continue;
		id = rt->rnet->id;
		gwnid = rt->gw->nid;
		/* Deleting a route may take its implicit gateway peer, never the next route. */
		rc = s->w->route_del(s->ctx, rt, fresh(s));
		if (SENT(s, rc, "the deletion of the route to %s via %s", net_text(id, net),
			 nid_text(&gwnid, gw)))
			local(s, lne_route_del(have(s), id, &gwnid, &le), &le, "a route deletion");
	}
}

static void peers_delete(struct sync *s)
{
	char primary[LNE_NID_STR_MAX];
	const struct lne_peer *m;
	struct lne_peer *p, *next;
	struct lne_peer_net *pnet;
	struct lne_peer_ni *pni;
	struct lne_err le = {.msg = ""};
	struct lne_nid pnid;
	size_t n, i;
	int rc;

	/*
	 * Every sync walks every peer, a udsp add with 10,000 peers too: a
	 * peer that stays whole costs its match and one lookup per NID, and
	 * no text (a NID as text is made only for a refusal).
	 */
	lne_list_for_each_entry_safe(p, next, &have(s)->peers, link) {
		if (!live(s))
			return;
		/* An implicit peer goes with its last route: the routes went first. */
		if (p->implicit)
			continue;
		pnid = p->primary;
		m = peer_match(s->want, p);
		if (!m) {
			rc = s->w->peer_del(s->ctx, p, NULL, 0, fresh(s));
			if (SENT(s, rc, "the deletion of peer %s", nid_text(&pnid, primary)))
				local(s, lne_peer_del(have(s), &pnid, &le), &le, "a peer deletion");
			continue;
		}
		if (nid_room(s, p->npni)) {
			no_memory(s);
			return;
		}
		n = 0;
		lne_list_for_each_entry(pnet, &p->pnets, link)
			lne_list_for_each_entry(pni, &pnet->pnis, pnet_link)
				if (!pni_stays_in(s->want, m, pni))
					s->nids[n++] = pni->nid;
		if (!n)
			continue;
		rc = s->w->peer_del(s->ctx, p, s->nids, n, fresh(s));
		if (!SENT(s, rc, "the deletion of %zu NID(s) of peer %s", n,
			  nid_text(&pnid, primary)))
			continue;
		for (i = 0; i < n; i++)
			local(s, lne_peer_del_nid(have(s), &pnid, &s->nids[i], &le), &le,
			      "a peer NID deletion");
	}
}

static bool ni_same(const struct lne_ni *a, const struct lne_ni *b)
{
	return !strcmp(a->ifname, b->ifname) && a->cpts == b->cpts && a->dev_cpt == b->dev_cpt &&
	       a->id == b->id && !memcmp(&a->tun, &b->tun, sizeof(a->tun));
}

static void nis_delete(struct sync *s)
{
	char nid[LNE_NID_STR_MAX];
	struct lne_err le = {.msg = ""};
	struct lne_ni *ni, *next;
	const struct lne_ni *w;
	struct lne_nid id;
	int rc;

	lne_list_for_each_entry_safe(ni, next, &have(s)->nis, all_link) {
		if (!live(s))
			return;
		w = lne_ni_find(s->want, &ni->nid);
		if (w && ni_same(w, ni))
			continue;
		id = ni->nid;
		rc = s->w->ni_del(s->ctx, ni, fresh(s));
		if (SENT(s, rc, "the deletion of NI %s", nid_text(&id, nid)))
			local(s, lne_ni_del(have(s), &id, &le), &le, "an NI deletion");
	}
}

/* --- additions -------------------------------------------------------------------------- */

/* Whether the writer is called: to send or to collect; the other modes only walk. */
static bool calls(const struct sync *s)
{
	return s->mode == M_SEND || s->mode == M_COLLECT;
}

/* Returns whether the engine took it (so that the order of the next ones holds). */
static bool global_add(struct sync *s, int g, u32 value)
{
	struct lne_err le = {.msg = ""};
	int rc = calls(s) ? s->w->global_set(s->ctx, g, value, fresh(s)) : 0;

	if (SENT(s, rc, "global %s %u", lne_global_info(g)->name, value))
		local(s, lne_global_set(have(s), g, value, &le), &le, "a global");
	return s->mode != M_SEND || !rc;
}

static void globals_add(struct sync *s)
{
	struct lne_inst *scratch = lne_inst_new();
	bool progress, done[LNE_G__COUNT] = {false};
	u32 want;
	int g;

	if (!scratch) {
		no_memory(s);
		return;
	}
	/* The order @have accepts, found on a scratch copy of its globals. */
	memcpy(scratch->globals, have(s)->globals, sizeof(scratch->globals));
	do {
		progress = false;
		for (g = 0; live(s) && g < LNE_G__COUNT; g++) {
			want = s->want->globals[g];
			if (done[g] || scratch->globals[g] == want)
				continue;
			if (lne_global_set(scratch, g, want, NULL))
				continue;
			done[g] = progress = true;
			if (!global_add(s, g, want))
				scratch->globals[g] = have(s)->globals[g];
		}
	} while (progress);
	/* What no order allows: the engine says why. */
	for (g = 0; live(s) && g < LNE_G__COUNT; g++)
		if (!done[g] && scratch->globals[g] != s->want->globals[g])
			global_add(s, g, s->want->globals[g]);
	lne_inst_free(scratch);
}

static void ni_add(struct sync *s, const struct lne_ni *w)
{
	struct lne_ni_conf c = {.nid = w->nid,
				.ifname = w->ifname[0] ? w->ifname : NULL,
				.cpts = w->cpts,
				.dev_cpt = w->dev_cpt,
				.tun = &w->tun,
				.order = w->id};
	char nid[LNE_NID_STR_MAX];
	struct lne_err le = {.msg = ""};
	int rc = calls(s) ? s->w->ni_add(s->ctx, w, fresh(s)) : 0;

	if (SENT(s, rc, "NI %s", nid_text(&w->nid, nid)))
		local(s, lne_ni_add(have(s), &c, &le), &le, "an NI");
}

static void nis_add(struct sync *s)
{
	const struct lne_ni *w;

	lne_list_for_each_entry(w, &s->want->nis, all_link) {
		if (!live(s))
			return;
		if (!lne_ni_find(have(s), &w->nid))
			ni_add(s, w);
	}
}

static void peer_add(struct sync *s, const struct lne_peer *w, size_t n)
{
	char primary[LNE_NID_STR_MAX];
	struct lne_err le = {.msg = ""};
	const struct lne_peer *p;
	size_t i;
	int rc = calls(s) ? s->w->peer_add(s->ctx, w, s->nids, n, fresh(s)) : 0;

	if (!SENT(s, rc, "peer %s", nid_text(&w->primary, primary)))
		return;
	p = lne_peer_find(have(s), &w->primary);
	if (!p || p->implicit)
		local(s,
		      lne_peer_add(have(s),
				   &(struct lne_peer_conf){.primary = w->primary,
							   .multi_rail = w->mr},
				   &le),
		      &le, "a peer");
	for (i = 0; i < n; i++)
		local(s, lne_peer_add_nid(have(s), &w->primary, &s->nids[i], &le), &le,
		      "a peer NID");
}

static void peers_add(struct sync *s)
{
	const struct lne_peer_net *pnet;
	const struct lne_peer_ni *pni, *h;
	const struct lne_peer *w, *p;
	size_t n;

	lne_list_for_each_entry(w, &s->want->peers, link) {
		if (!live(s))
			return;
		/* Routes bring implicit peers. */
		if (w->implicit)
			continue;
		if (nid_room(s, w->npni)) {
			no_memory(s);
			return;
		}
		p = lne_peer_find(have(s), &w->primary);
		n = 0;
		lne_list_for_each_entry(pnet, &w->pnets, link)
			lne_list_for_each_entry(pni, &pnet->pnis, pnet_link) {
				if (lne_nid_equal(&pni->nid, &w->primary))
					continue;
				h = p ? lne_peer_ni_find(have(s), &pni->nid) : NULL;
				if (h && lne_peer_of(h) == p)
					continue;
				s->nids[n++] = pni->nid;
			}
		if (!p || p->implicit || n)
			peer_add(s, w, n);
	}
}

static void route_add(struct sync *s, const struct lne_route *w)
{
	char net[LNE_NET_STR_MAX], gw[LNE_NID_STR_MAX];
	struct lne_err le = {.msg = ""};
	int rc = calls(s) ? s->w->route_add(s->ctx, w, fresh(s)) : 0;

	if (SENT(s, rc, "the route to %s via %s", net_text(w->rnet->id, net),
		 nid_text(&w->gw->nid, gw)))
		local(s, lne_route_add_v(have(s), w->rnet->id, &w->gw->nid, w->v, &le), &le,
		      "a route");
}

static void routes_add(struct sync *s)
{
	const struct lne_route *w;

	lne_list_for_each_entry(w, &s->want->routes, link) {
		if (!live(s))
			return;
		if (!lne_route_find(have(s), w->rnet->id, &w->gw->nid))
			route_add(s, w);
	}
}

/* @idx < 0 appends. */
static void rule_add(struct sync *s, const struct lne_rule *w, int64_t idx)
{
	struct lne_err le = {.msg = ""};
	char *src = NULL, *dst = NULL, *rte = NULL;
	int rc = calls(s) ? s->w->rule_add(s->ctx, w, idx, fresh(s)) : 0;

	if (s->mode == M_COUNT || s->mode == M_COLLECT) {
		sent_ok(s, rc);
		return;
	}
	src = lne_expr_text(w->src);
	dst = lne_expr_text(w->dst);
	rte = lne_expr_text(w->rte);
	if ((w->src && !src) || (w->dst && !dst) || (w->rte && !rte))
		no_memory(s);
	else if (SENT(s, rc, "rule %s%s%s%s%s%s (%s)", src ? "--src " : "", src ?: "",
		      dst ? " --dst " : "", dst ?: "", rte ? " --rte " : "", rte ?: "",
		      lne_rule_kind_name(w->kind)))
		local(s,
		      lne_rule_add(have(s),
				   &(struct lne_rule_conf){
					   .src = src, .dst = dst, .rte = rte, .priority = w->prio},
				   idx, NULL, NULL, &le),
		      &le, "a rule");
	free(src);
	free(dst);
	free(rte);
}

static void rules_add(struct sync *s)
{
	struct lne_rule **w;
	u32 k, suffix, i;

	if (rules_common(s->want, have(s), &k, &suffix)) {
		no_memory(s);
		return;
	}
	/* A deletion was refused: what to insert where is no longer clear. */
	if (k + suffix != have(s)->udsp.nrules || k + suffix == s->want->udsp.nrules)
		return;
	w = rule_array(s->want);
	if (!w) {
		no_memory(s);
		return;
	}
	for (i = k; live(s) && i < s->want->udsp.nrules - suffix; i++)
		rule_add(s, w[i], suffix ? (int64_t)i : -1);
	free(w);
}

/*
 * The additions, kind by kind.  The count (M_COUNT) comes first and says
 * which kinds have any: the walks that send, collect or apply them skip
 * the others (a udsp add walks the rules, not again every peer).
 */
static void additions(struct sync *s)
{
	static void (*const kinds[])(struct sync * s) = {globals_add, nis_add, peers_add,
							 routes_add, rules_add};
	size_t k, before;

	s->items = 0;
	for (k = 0; k < A__COUNT; k++) {
		if (s->mode != M_COUNT && !s->kind_items[k])
			continue;
		before = s->items;
		kinds[k](s);
		if (s->mode == M_COUNT)
			s->kind_items[k] = s->items - before;
	}
}

/* Link state, which an NI's addition (and so a batch) does not carry. */
static void ni_states(struct sync *s)
{
	char nid[LNE_NID_STR_MAX];
	struct lne_err le = {.msg = ""};
	const struct lne_ni *w;
	struct lne_ni *h;
	int rc;

	lne_list_for_each_entry(w, &s->want->nis, all_link) {
		if (!live(s))
			return;
		h = lne_ni_find(have(s), &w->nid);
		if (!h || h->up == w->up)
			continue;
		rc = s->w->ni_set_up(s->ctx, w, fresh(s));
		if (SENT(s, rc, "the link state of NI %s", nid_text(&w->nid, nid)))
			local(s, lne_ni_set_up(have(s), &w->nid, w->up, &le), &le, "a link state");
	}
}

/*
 * The additions in one batch.  Returns false when it could not be built or
 * the engine refused it: the caller sends them one by one.
 */
static bool batch(struct sync *s, bool replace)
{
	struct lne_inst *before = NULL;
	double t0 = now(), t1 = 0, t2 = 0;
	size_t applied = 0, bytes = 0, k;
	int rc;

	if (replace) {
		/* What the engine becomes: a fresh instance, then the batch. */
		before = *s->have;
		*s->have = lne_inst_new();
		if (!*s->have) {
			*s->have = before;
			return false;
		}
		/* The count was against what the engine held: every kind may come now. */
		for (k = 0; k < A__COUNT; k++)
			s->kind_items[k] = 1;
	}
	rc = s->w->batch_begin(s->ctx, replace, fresh(s));
	if (!rc) {
		s->mode = M_COLLECT;
		s->build = 0;
		additions(s);
		/* Not built (even for want of memory): the items go one by one instead. */
		rc = s->build ?: s->r->stop;
		s->build = s->r->stop = 0;
		if (rc) {
			s->w->batch_abort(s->ctx);
		} else {
			bytes = s->o->batch_bytes ? s->o->batch_bytes(s->ctx) : 0;
			t1 = now();
			rc = s->w->batch_send(s->ctx, &applied, fresh(s));
			t2 = now();
			if (rc && s->err.msg[0])
				say(s, LOG_WARNING,
				    "%s refused a batch of %zu items (%s); sending them one "
				    "request each",
				    s->who, s->items, s->err.msg);
		}
	}
	if (rc) {
		if (!s->err.msg[0])
			say(s, LOG_ERR, "a batch of %zu items could not be sent (%s)", s->items,
			    strerror(-rc));
		if (before) {
			lne_inst_free(*s->have);
			*s->have = before;
		}
		s->mode = M_SEND;
		return false;
	}
	lne_inst_free(before);
	s->r->requests++;
	s->r->changes += applied;
	s->mode = M_LOCAL;
	additions(s);
	s->mode = M_SEND;
	if (s->o->batch_bytes)
		say(s, LOG_INFO,
		    "%s took a %sbatch of %zu items (%zu bytes): built in %.2f s, applied in "
		    "%.2f s, copied in %.2f s",
		    s->who, replace ? "replacing " : "", applied, bytes, t1 - t0, t2 - t1,
		    now() - t2);
	else
		say(s, LOG_INFO,
		    "%s took a %sbatch of %zu items: built in %.2f s, applied in %.2f s, copied "
		    "in %.2f s",
		    s->who, replace ? "replacing " : "", applied, t1 - t0, t2 - t1, now() - t2);
	return true;
}

void bk_sync(const struct bk_writer *w, void *ctx, struct lne_inst **have,
	     const struct lne_inst *want, const struct bk_sync_opts *o, struct bk_sync_result *r)
{
	struct sync s = {.w = w,
			 .o = o,
			 .ctx = ctx,
			 .who = o->who ?: "engine",
			 .have = have,
			 .want = want,
			 .r = r};
	size_t held = bk_objects(*have);
	size_t min = o->batch_min ?: BATCH_MIN, ratio = o->batch_ratio ?: BATCH_RATIO;
	bool batching = w->batch_begin && w->batch_send && w->batch_abort;
	bool replace = o->replace || !held;

	memset(r, 0, sizeof(*r));
	s.mode = M_SEND;
	if (!replace) {
		rules_delete(&s);
		routes_delete(&s);
		peers_delete(&s);
		nis_delete(&s);
	}
	if (live(&s)) {
		s.mode = M_COUNT;
		additions(&s);
		s.mode = M_SEND;
		/* An unknown engine is emptied even when there is nothing to add. */
		if (batching && (o->replace || (replace && s.items >= min))) {
			r->replaced = batch(&s, true);
			if (!r->replaced)
				additions(&s);
		} else if (batching && s.items >= min && s.items * ratio >= held) {
			if (!batch(&s, false))
				additions(&s);
		} else if (s.items) {
			additions(&s);
		}
		if (w->ni_set_up)
			ni_states(&s);
	}
	free(s.nids);
}
