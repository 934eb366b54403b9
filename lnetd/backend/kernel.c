// SPDX-License-Identifier: GPL-2.0
/*
 * kernel.c - the kernel backend: the lnetk module holds what the mirror
 * holds (kernel.h says what; this says how).
 *
 * The backend keeps @pushed, an engine instance (the module's own code)
 * holding what the module holds as far as lnetd knows: every request the
 * module accepts is applied to @pushed too.  A sync walks the mirror and
 * @pushed side by side and sends the differences, in an order the object
 * model accepts:
 *
 *   1. deletions: the rules past the common prefix and suffix of the two
 *      ordered lists, routes, peers and peer NIDs, NIs;
 *   2. additions: globals (retry_count and transaction_timeout in whichever
 *      order the engine accepts), NIs, peers and their NIDs, routes, rules
 *      (inserted between the common prefix and suffix);
 *   3. the link state of NIs (NI_SET, which a batch cannot carry);
 *   4. the NRS TBF policies (ktbf.c: read from the module and compared each
 *      time, as they are not objects of the engine instance).
 *
 * Health, credits and round robin are running state, not configuration:
 * they are never compared, so a sync touches only what the configuration
 * changed, and an object it does not touch keeps its running state.
 *
 * Additions go in one BATCH when there are many of them (the module builds
 * a batch on a copy of its state, so "many" grows with what it holds); an
 * empty module gets everything in one LNETK_F_REPLACE batch (nothing lost,
 * and nobody else's leftovers survive).  A batch is all or nothing: if the
 * module refuses it, the same additions go again one request each, so one
 * bad object keeps out only itself.  A refusal by the module never stops a
 * sync (the first one is the backend's reason, Status shows it); losing
 * the module (no extack, no reply) does, and a timer tries again.
 *
 * When the two may have parted, @pushed is read back from the module's
 * dumps instead (taken between two GET_INFOs with the same generation, so
 * it is one state): at start (lnetd restarted, the module stayed), when
 * the family appears (the genl controller's announcement: insmod), and
 * when the module announces a generation lnetd did not cause.  Every
 * reply carries the generation after the request, so the generations of
 * lnetd's own changes are kept in a queue until their announcements come
 * back; an announcement that is not at the head of the queue (or lost
 * announcements: ENOBUFS) means someone else changed the module, and a
 * deferred repair reads it and syncs.  During a long sync the events
 * socket is read every DRAIN_EVERY requests so that it never overflows
 * with lnetd's own announcements.
 *
 * Everything runs in lnetd's event loop; a sync runs to completion.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>

#include "kernel.h"
#include "ktbf.h"
#include "lnetd/lnetd.h"
#include "liblnetk/lnetk-client.h"
#include "engine/udsp.h"

#define WHY_MAX	    512
#define BATCH_MIN   64	      /* fewer additions than this go one request each */
#define BATCH_RATIO 16	      /* ... and so do fewer than 1/16 of what the module holds */
#define DRAIN_EVERY 256	      /* requests between two reads of the events socket */
#define DUMP_TRIES  5	      /* reads of the module's state that a change may interrupt */
#define RETRY_USEC  1000000   /* after losing the module without its announcement */
#define BUSY_USEC   2000000   /* after the module said busy (a source holds a TBF policy) */
#define EVENTS_ROOM (1 << 20) /* socket buffer for announcements: about 1,000 */
#define NOT_LOADED  "the lnetk module is not loaded"

struct kbackend {
	struct lnetd *d;
	struct lnetk_watch *watch; /* the genl controller: the family comes and goes */
	sd_event_source *watch_io;
	struct lnetk *lk; /* NULL while the module is not loaded */
	struct lnetk_events *ev;
	sd_event_source *ev_io;
	sd_event_source *repair; /* deferred: read the module back and repair it */
	sd_event_source *retry;	 /* timer: after losing contact */
	sd_event_source *busy;	 /* timer: sync again after a refusal that passes (EBUSY) */
	struct lne_inst *pushed; /* what the module holds; NULL: read it first */
	bool replace;		 /* what the module holds is unknown: replace it whole */
	struct {
		uint64_t *gen; /* our own changes' generations, oldest first */
		size_t head, n, cap;
	} mine;
	uint64_t horizon; /* announcements up to this are in @pushed already */
	bool applied;
	char why[WHY_MAX];
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static size_t objects(const struct lne_inst *ln)
{
	return ln ? ln->nni + ln->npni + ln->nroute + ln->udsp.nrules : 0;
}

static const char *nid_text(const struct lne_nid *nid, char buf[LNE_NID_STR_MAX])
{
	lne_nid_format(nid, buf, LNE_NID_STR_MAX);
	return buf;
}

/* --- whose generation: ours, or someone else's ----------------------------------------- */

static void mine_push(struct kbackend *kb, uint64_t gen)
{
	if (kb->mine.head + kb->mine.n == kb->mine.cap) {
		if (kb->mine.head) {
			memmove(kb->mine.gen, kb->mine.gen + kb->mine.head,
				kb->mine.n * sizeof(*kb->mine.gen));
			kb->mine.head = 0;
		} else {
			size_t cap = kb->mine.cap ? 2 * kb->mine.cap : 256;
			uint64_t *g = realloc(kb->mine.gen, cap * sizeof(*g));

			/* Without room we cannot tell ours apart: the next one looks
			 * foreign and costs a read of the module, nothing worse. */
			if (!g)
				return;
			kb->mine.gen = g;
			kb->mine.cap = cap;
		}
	}
	kb->mine.gen[kb->mine.head + kb->mine.n++] = gen;
}

/* Forget our generations up to @gen: they are behind us. */
static void mine_drop(struct kbackend *kb, uint64_t gen)
{
	while (kb->mine.n && kb->mine.gen[kb->mine.head] <= gen) {
		kb->mine.head++;
		kb->mine.n--;
	}
	if (!kb->mine.n)
		kb->mine.head = 0;
}

static bool repair_scheduled(struct kbackend *kb)
{
	int on = SD_EVENT_OFF;

	sd_event_source_get_enabled(kb->repair, &on);
	return on != SD_EVENT_OFF;
}

static void schedule_repair(struct kbackend *kb)
{
	sd_event_source_set_enabled(kb->repair, SD_EVENT_ONESHOT);
}

static void on_event(uint8_t cmd, uint64_t gen, void *arg)
{
	struct kbackend *kb = arg;
	bool ours;

	if (!kb->pushed || gen <= kb->horizon)
		return;
	/* Announcements come in generation order, as our replies did. */
	mine_drop(kb, gen - 1);
	ours = kb->mine.n && kb->mine.gen[kb->mine.head] == gen;
	mine_drop(kb, gen);
	kb->horizon = gen;
	if (ours || repair_scheduled(kb))
		return;
	fprintf(stderr,
		"lnetd: lnetk module changed behind lnetd's back (command %u, generation %llu)\n",
		cmd, (unsigned long long)gen);
	schedule_repair(kb);
}

/* Read what the events socket holds; lost announcements mean: read the module again. */
static void drain(struct kbackend *kb)
{
	int rc;

	if (!kb->ev)
		return;
	do
		rc = lnetk_events_dispatch(kb->ev);
	while (rc > 0);
	if (rc == -ENOBUFS) {
		fprintf(stderr, "lnetd: lnetk module announcements were lost: reading it again\n");
		schedule_repair(kb);
		while (lnetk_events_dispatch(kb->ev) > 0)
			;
	} else if (rc < 0) {
		fprintf(stderr, "lnetd: lnetk module announcements: %s, ignoring\n", strerror(-rc));
	}
}

static int on_events_io(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	drain(userdata);
	return 0;
}

/* --- reading the module into an engine instance ---------------------------------------- */

struct gw_health {
	struct lne_nid nid;
	int32_t health;
};

struct load {
	struct lne_inst *ln;
	struct lne_err err;
	char what[LNE_ERR_MSG_MAX + LNETK_NID_MAX + 32]; /* what the engine refused */
	struct lnetk_global *globals;
	size_t nglobals;
	struct gw_health *gws; /* implicit peers' health: they come with their routes */
	size_t ngws;
	bool refused; /* the engine refused what the module holds */
};

static int load_refused(struct load *l, const char *kind, const char *name)
{
	snprintf(l->what, sizeof(l->what), "%s %s: %s", kind, name, l->err.msg);
	l->refused = true;
	return -EINVAL;
}

static int load_global(const struct lnetk_global *g, void *arg)
{
	struct load *l = arg;
	struct lnetk_global *grown = realloc(l->globals, (l->nglobals + 1) * sizeof(*grown));

	if (!grown)
		return -ENOMEM;
	l->globals = grown;
	l->globals[l->nglobals++] = *g;
	return 0;
}

static int load_ni(const struct lnetk_ni *k, void *arg)
{
	struct load *l = arg;
	struct lne_tunables tun;
	struct lne_ni_conf c = {.ifname = k->ifname[0] ? k->ifname : NULL,
				.cpts = k->cpts,
				.dev_cpt = (s16)k->dev_cpt,
				.tun = &tun};

	if (lne_nid_parse(k->nid, &c.nid, &l->err))
		return load_refused(l, "NI", k->nid);
	lne_tunables_default(c.nid.lnd, &tun);
	if (k->has & LNETK_HAS_NI_PEER_TIMEOUT)
		tun.peer_timeout = k->peer_timeout;
	if (k->has & LNETK_HAS_NI_PEER_CREDITS)
		tun.peer_credits = k->peer_credits;
	if (k->has & LNETK_HAS_NI_PEER_BUFFER_CREDITS)
		tun.peer_buffer_credits = k->peer_buffer_credits;
	if (k->has & LNETK_HAS_NI_CREDITS)
		tun.credits = k->credits;
	if (!(k->has & LNETK_HAS_NI_DEV_CPT))
		c.dev_cpt = LNE_CPT_ANY;
	if (lne_ni_add(l->ln, &c, &l->err))
		return load_refused(l, "NI", k->nid);
	if (k->has & LNETK_HAS_NI_UP)
		lne_ni_set_up(l->ln, &c.nid, k->up, NULL);
	if (k->has & LNETK_HAS_NI_HEALTH)
		lne_ni_set_health(l->ln, &c.nid, (s32)k->health, NULL);
	return 0;
}

static int load_peer(const struct lnetk_peer *p, void *arg)
{
	struct load *l = arg;
	struct lne_nid primary, nid;
	size_t i;

	if (lne_nid_parse(p->primary, &primary, &l->err))
		return load_refused(l, "peer", p->primary);
	if (p->implicit) {
		struct gw_health *grown = realloc(l->gws, (l->ngws + 1) * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		l->gws = grown;
		l->gws[l->ngws].nid = primary;
		l->gws[l->ngws++].health = p->nnis ? (int32_t)p->nis[0].health : -1;
		return 0;
	}
	if (lne_peer_add(l->ln, &primary, p->mr, &l->err))
		return load_refused(l, "peer", p->primary);
	for (i = 0; i < p->nnis; i++) {
		if (lne_nid_parse(p->nis[i].nid, &nid, &l->err))
			return load_refused(l, "peer NID", p->nis[i].nid);
		if (!lne_nid_equal(&nid, &primary) &&
		    lne_peer_add_nid(l->ln, &primary, &nid, &l->err))
			return load_refused(l, "peer NID", p->nis[i].nid);
		if (p->nis[i].has & LNETK_HAS_PNI_HEALTH)
			lne_peer_ni_set_health(l->ln, &nid, (s32)p->nis[i].health, NULL);
	}
	return 0;
}

static int load_route(const struct lnetk_route *r, void *arg)
{
	struct load *l = arg;
	struct lne_nid gw;
	lne_net_t net;

	if (lne_net_parse(r->net, &net, &l->err) || lne_nid_parse(r->gateway, &gw, &l->err) ||
	    lne_route_add(l->ln, net, &gw,
			  r->has & LNETK_HAS_ROUTE_HOPS ? r->hops : LNE_HOPS_DEFAULT,
			  r->has & LNETK_HAS_ROUTE_PRIORITY ? r->priority : 0,
			  r->has & LNETK_HAS_ROUTE_SENSITIVITY ? r->sensitivity : 1, &l->err))
		return load_refused(l, "route to", r->net);
	return 0;
}

static int load_rule(const struct lnetk_rule *r, void *arg)
{
	struct load *l = arg;
	char idx[16];

	if (lne_rule_add(l->ln, r->src, r->dst, r->rte, r->prio, -1, NULL, NULL, &l->err)) {
		snprintf(idx, sizeof(idx), "%lld", (long long)r->idx);
		return load_refused(l, "rule", idx);
	}
	return 0;
}

/*
 * Globals in whichever order the engine takes them (retry_count must stay
 * below transaction_timeout at every step): set what is accepted, again,
 * until nothing more is.  Returns how many could not be set.
 */
static unsigned int globals_settle(struct lne_inst *ln, const uint32_t want[LNE_G__COUNT])
{
	unsigned int left;
	bool progress;
	int g;

	do {
		progress = false;
		left = 0;
		for (g = 0; g < LNE_G__COUNT; g++) {
			if (ln->globals[g] == want[g])
				continue;
			if (lne_global_set(ln, g, want[g], NULL))
				left++;
			else
				progress = true;
		}
	} while (progress && left);
	return left;
}

static int load_all(struct lnetk *lk, struct load *l)
{
	uint32_t want[LNE_G__COUNT];
	struct lnetk_err err;
	size_t i;
	int rc, g;

	rc = lnetk_global_get(lk, load_global, l, &err);
	if (!rc)
		rc = lnetk_ni_dump(lk, load_ni, l, &err);
	/* The module's own limit applied when its peers were made; here it must not refuse. */
	l->ln->globals[LNE_G_MAX_INTERFACES] = UINT32_MAX;
	if (!rc)
		rc = lnetk_peer_dump(lk, load_peer, l, &err);
	if (!rc)
		rc = lnetk_route_dump(lk, load_route, l, &err);
	for (i = 0; !rc && i < l->ngws; i++)
		if (l->gws[i].health >= 0)
			lne_peer_ni_set_health(l->ln, &l->gws[i].nid, l->gws[i].health, NULL);
	if (!rc)
		rc = lnetk_rule_dump(lk, load_rule, l, &err);
	if (rc)
		return rc;
	memcpy(want, l->ln->globals, sizeof(want));
	want[LNE_G_MAX_INTERFACES] = lne_global_info(LNE_G_MAX_INTERFACES)->def;
	for (i = 0; i < l->nglobals; i++) {
		g = lne_global_lookup(l->globals[i].name);
		if (g >= 0)
			want[g] = l->globals[i].value;
	}
	if (globals_settle(l->ln, want)) {
		snprintf(l->what, sizeof(l->what), "its globals");
		l->refused = true;
		return -EINVAL;
	}
	return 0;
}

/*
 * @pushed from the module's dumps, all taken at one generation.  When the
 * engine refuses what the module holds (another version?), nothing of it
 * can be trusted: @pushed starts empty and the module is replaced whole.
 */
static int read_module(struct kbackend *kb)
{
	struct lnetk_info before, after;
	int rc = -EAGAIN, tries;

	for (tries = 0; rc == -EAGAIN && tries < DUMP_TRIES; tries++) {
		struct load l = {.ln = lne_inst_new()};

		if (!l.ln)
			return -ENOMEM;
		rc = lnetk_get_info(kb->lk, &before, NULL);
		if (!rc)
			rc = load_all(kb->lk, &l);
		if (!rc)
			rc = lnetk_get_info(kb->lk, &after, NULL);
		if (!rc && before.generation != after.generation)
			rc = -EAGAIN;
		if (!rc) {
			lne_inst_free(kb->pushed);
			kb->pushed = l.ln;
			kb->replace = false;
			kb->horizon = after.generation;
			mine_drop(kb, after.generation);
			l.ln = NULL;
		} else if (l.refused) {
			fprintf(stderr,
				"lnetd: lnetk module holds what lnetd's engine refuses (%s): "
				"replacing its state\n",
				l.what);
			lne_inst_free(kb->pushed);
			kb->pushed = lne_inst_new();
			kb->replace = true;
			kb->horizon = before.generation;
			mine_drop(kb, before.generation);
			rc = kb->pushed ? 0 : -ENOMEM;
		}
		lne_inst_free(l.ln);
		free(l.globals);
		free(l.gws);
	}
	return rc;
}

/* --- a sync: the differences, in an order the model accepts ----------------------------- */

enum mode {
	M_SEND,	   /* one request each, applied to @pushed when accepted */
	M_COUNT,   /* only count the additions */
	M_COLLECT, /* put the additions in a batch */
	M_LOCAL,   /* the batch went through: apply them to @pushed */
};

struct sync {
	struct kbackend *kb;
	const struct lne_inst *want; /* the mirror */
	enum mode mode;
	struct lnetk_batch *batch;
	struct lnetk_err err;
	size_t items;	     /* M_COUNT, M_COLLECT: additions seen */
	size_t changes;	     /* requests and batch items the module accepted */
	size_t requests;     /* requests sent */
	size_t refused;	     /* refusals */
	int stop;	     /* < 0: the module cannot be reached, or the batch not built */
	bool local_bad;	     /* @pushed refused what the module accepted */
	bool busy;	     /* a refusal was EBUSY: it may pass, so try again later */
	char first[WHY_MAX]; /* the first refusal */
	char (*nidbuf)[LNETK_NID_MAX]; /* peer NIDs as text, for one request */
	const char **nidp;
	struct lne_nid *nids;
	size_t nidcap;
};

/*
 * After a request (M_SEND) or batch item (M_COLLECT): whether the addition
 * should now be applied to @pushed.  Refusals are counted and the first
 * kept; a failure without the module's word stops the sync.
 */
static bool sent(struct sync *s, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static bool sent(struct sync *s, int rc, const char *fmt, ...)
{
	char what[LNE_ERR_MSG_MAX];
	va_list ap;

	switch (s->mode) {
	case M_COUNT:
		s->items++;
		return false;
	case M_COLLECT:
		if (rc)
			s->stop = rc;
		else
			s->items++;
		return false;
	case M_LOCAL:
		return true;
	case M_SEND:
		break;
	}
	s->requests++;
	if (!rc) {
		mine_push(s->kb, lnetk_last_generation(s->kb->lk));
		s->changes++;
		if (!(s->requests % DRAIN_EVERY))
			drain(s->kb);
		return true;
	}
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (!s->err.msg[0]) {
		/* No extack: the module is gone, or lnetd may not talk to it. */
		snprintf(s->first, sizeof(s->first), "cannot reach the lnetk module (%s: %s)", what,
			 strerror(-rc));
		s->stop = rc;
		return false;
	}
	if (!s->refused++)
		snprintf(s->first, sizeof(s->first), "the lnetk module refused %s: %s", what,
			 s->err.msg);
	return false;
}

/* The same change on @pushed; the engine refusing what the module took means they parted. */
static void local(struct sync *s, int rc, const struct lne_err *err, const char *what)
{
	if (!rc || s->local_bad)
		return;
	s->local_bad = true;
	fprintf(stderr,
		"lnetd: lnetd's copy of the lnetk module refused %s (%s): reading it again\n", what,
		err->msg);
}

static bool live(const struct sync *s)
{
	return !s->stop;
}

/* Room for @n peer NIDs as text and as NIDs. */
static int nid_room(struct sync *s, size_t n)
{
	if (n <= s->nidcap)
		return 0;
	free(s->nidbuf);
	free(s->nidp);
	free(s->nids);
	s->nidbuf = calloc(n, sizeof(*s->nidbuf));
	s->nidp = calloc(n, sizeof(*s->nidp));
	s->nids = calloc(n, sizeof(*s->nids));
	s->nidcap = s->nidbuf && s->nidp && s->nids ? n : 0;
	return s->nidcap ? 0 : -ENOMEM;
}

static char *expr_text(const struct lne_expr *e)
{
	char *text;
	int n;

	if (!e)
		return NULL;
	n = lne_expr_format(e, NULL, 0);
	text = malloc((size_t)n + 1);
	if (text)
		lne_expr_format(e, text, (size_t)n + 1);
	return text;
}

/* --- peers: what stays ----------------------------------------------------------------- */

/*
 * A peer of @pushed stays when the mirror has a peer with the same primary
 * NID that the module can turn it into by adding NIDs: an explicit one
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

static bool pni_stays(const struct lne_inst *want, const struct lne_peer_ni *pni)
{
	const struct lne_peer *m = peer_match(want, lne_peer_of(pni));
	const struct lne_peer_ni *w = lne_peer_ni_find(want, &pni->nid);

	return m && w && lne_peer_of(w) == m;
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
static int rules_common(const struct lne_inst *want, const struct lne_inst *have, u32 *k,
			u32 *suffix)
{
	struct lne_rule **w = rule_array(want), **h = rule_array(have);
	u32 nw = want->udsp.nrules, nh = have->udsp.nrules;
	int rc = w && h ? 0 : -ENOMEM;

	*k = *suffix = 0;
	while (!rc && *k < nw && *k < nh && rule_same(w[*k], h[*k]))
		(*k)++;
	while (!rc && *k + *suffix < nw && *k + *suffix < nh &&
	       rule_same(w[nw - 1 - *suffix], h[nh - 1 - *suffix]))
		(*suffix)++;
	free(w);
	free(h);
	return rc;
}

static void rules_delete(struct sync *s)
{
	struct lne_inst *have = s->kb->pushed;
	struct lne_err le = {.msg = ""};
	u32 k, suffix, idx;
	int rc;

	if (rules_common(s->want, have, &k, &suffix)) {
		s->stop = -ENOMEM;
		return;
	}
	if (k + suffix == have->udsp.nrules)
		return;
	if (!k && !suffix && have->udsp.nrules > 1) {
		rc = lnetk_rule_del_all(s->kb->lk, &s->err);
		if (sent(s, rc, "the deletion of every rule"))
			lne_rule_del_all(have);
		return;
	}
	/* From the last: the idx of those before stays put. */
	for (idx = have->udsp.nrules - suffix; live(s) && idx-- > k;) {
		rc = lnetk_rule_del(s->kb->lk, idx, &s->err);
		if (sent(s, rc, "the deletion of rule %u", idx))
			local(s, lne_rule_del(have, idx, &le), &le, "a rule deletion");
	}
}

static bool route_same(const struct lne_route *a, const struct lne_route *b)
{
	return a->hops == b->hops && a->priority == b->priority && a->sensitivity == b->sensitivity;
}

static void routes_delete(struct sync *s)
{
	struct lne_inst *have = s->kb->pushed;
	char net[LNE_NET_STR_MAX], gw[LNE_NID_STR_MAX];
	struct lne_route *rt, *next;
	struct lne_err le = {.msg = ""};
	const struct lne_route *w;
	struct lne_nid gwnid;
	lne_net_t id;
	int rc;

	lne_list_for_each_entry_safe(rt, next, &have->routes, link) {
		if (!live(s))
			return;
		w = lne_route_find(s->want, rt->rnet->id, &rt->gw->nid);
		if (w && route_same(w, rt) && pni_stays(s->want, rt->gw))
			continue;
		id = rt->rnet->id;
		gwnid = rt->gw->nid;
		lne_net_format(id, net, sizeof(net));
		nid_text(&gwnid, gw);
		/* Deleting a route may take its implicit gateway peer, never the next route. */
		rc = lnetk_route_del(s->kb->lk, net, gw, &s->err);
		if (sent(s, rc, "the deletion of the route to %s via %s", net, gw))
			local(s, lne_route_del(have, id, &gwnid, &le), &le, "a route deletion");
	}
}

static void peers_delete(struct sync *s)
{
	struct lne_inst *have = s->kb->pushed;
	char primary[LNE_NID_STR_MAX];
	struct lne_peer *p, *next;
	struct lne_peer_net *pnet;
	struct lne_peer_ni *pni;
	struct lne_err le = {.msg = ""};
	struct lne_nid pnid;
	size_t n, i;
	int rc;

	lne_list_for_each_entry_safe(p, next, &have->peers, link) {
		if (!live(s))
			return;
		/* An implicit peer goes with its last route: the routes went first. */
		if (p->implicit)
			continue;
		pnid = p->primary;
		nid_text(&pnid, primary);
		if (!peer_match(s->want, p)) {
			rc = lnetk_peer_del(s->kb->lk, primary, NULL, 0, &s->err);
			if (sent(s, rc, "the deletion of peer %s", primary))
				local(s, lne_peer_del(have, &pnid, &le), &le, "a peer deletion");
			continue;
		}
		if (nid_room(s, p->npni)) {
			s->stop = -ENOMEM;
			return;
		}
		n = 0;
		lne_list_for_each_entry(pnet, &p->pnets, link)
			lne_list_for_each_entry(pni, &pnet->pnis, pnet_link)
				if (!pni_stays(s->want, pni)) {
					s->nids[n] = pni->nid;
					s->nidp[n] = nid_text(&pni->nid, s->nidbuf[n]);
					n++;
				}
		if (!n)
			continue;
		rc = lnetk_peer_del(s->kb->lk, primary, s->nidp, n, &s->err);
		if (!sent(s, rc, "the deletion of %zu NID(s) of peer %s", n, primary))
			continue;
		for (i = 0; i < n; i++)
			local(s, lne_peer_del_nid(have, &pnid, &s->nids[i], &le), &le,
			      "a peer NID deletion");
	}
}

static bool ni_same(const struct lne_ni *a, const struct lne_ni *b)
{
	return !strcmp(a->ifname, b->ifname) && a->cpts == b->cpts && a->dev_cpt == b->dev_cpt &&
	       a->tun.peer_timeout == b->tun.peer_timeout &&
	       a->tun.peer_credits == b->tun.peer_credits &&
	       a->tun.peer_buffer_credits == b->tun.peer_buffer_credits &&
	       a->tun.credits == b->tun.credits;
}

static void nis_delete(struct sync *s)
{
	struct lne_inst *have = s->kb->pushed;
	char nid[LNE_NID_STR_MAX];
	struct lne_err le = {.msg = ""};
	struct lne_ni *ni, *next;
	const struct lne_ni *w;
	struct lne_nid id;
	int rc;

	lne_list_for_each_entry_safe(ni, next, &have->nis, all_link) {
		if (!live(s))
			return;
		w = lne_ni_find(s->want, &ni->nid);
		if (w && ni_same(w, ni))
			continue;
		id = ni->nid;
		nid_text(&id, nid);
		rc = lnetk_ni_del(s->kb->lk, nid, &s->err);
		if (sent(s, rc, "the deletion of NI %s", nid))
			local(s, lne_ni_del(have, &id, &le), &le, "an NI deletion");
	}
}

/* --- additions -------------------------------------------------------------------------- */

/* Returns whether the module took it (so that the order of the next ones holds). */
static bool global_add(struct sync *s, int g, uint32_t value)
{
	const char *name = lne_global_info(g)->name;
	struct lne_err le = {.msg = ""};
	int rc = 0;

	if (s->mode == M_COLLECT)
		rc = lnetk_batch_global(s->batch, name, value);
	else if (s->mode == M_SEND)
		rc = lnetk_global_set(s->kb->lk, name, value, &s->err);
	if (sent(s, rc, "global %s %u", name, value))
		local(s, lne_global_set(s->kb->pushed, g, value, &le), &le, "a global");
	return s->mode != M_SEND || !rc;
}

static void globals_add(struct sync *s)
{
	struct lne_inst *scratch = lne_inst_new();
	bool progress, done[LNE_G__COUNT] = {false};
	uint32_t want;
	int g;

	if (!scratch) {
		s->stop = -ENOMEM;
		return;
	}
	/* The order @pushed accepts, found on a scratch copy of its globals. */
	memcpy(scratch->globals, s->kb->pushed->globals, sizeof(scratch->globals));
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
				scratch->globals[g] = s->kb->pushed->globals[g];
		}
	} while (progress);
	/* What no order allows: the module says why. */
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
				.tun = &w->tun};
	struct lnetk_ni k = {.has = LNETK_HAS_NI_CPTS | LNETK_HAS_NI_DEV_CPT |
				    LNETK_HAS_NI_PEER_TIMEOUT | LNETK_HAS_NI_PEER_CREDITS |
				    LNETK_HAS_NI_PEER_BUFFER_CREDITS | LNETK_HAS_NI_CREDITS,
			     .cpts = w->cpts,
			     .dev_cpt = w->dev_cpt,
			     .peer_timeout = w->tun.peer_timeout,
			     .peer_credits = w->tun.peer_credits,
			     .peer_buffer_credits = w->tun.peer_buffer_credits,
			     .credits = w->tun.credits};
	struct lne_err le = {.msg = ""};
	int rc = 0;

	nid_text(&w->nid, k.nid);
	if (w->ifname[0]) {
		k.has |= LNETK_HAS_NI_IFNAME;
		snprintf(k.ifname, sizeof(k.ifname), "%s", w->ifname);
	}
	if (s->mode == M_COLLECT)
		rc = lnetk_batch_ni(s->batch, &k);
	else if (s->mode == M_SEND)
		rc = lnetk_ni_add(s->kb->lk, &k, &s->err);
	if (sent(s, rc, "NI %s", k.nid))
		local(s, lne_ni_add(s->kb->pushed, &c, &le), &le, "an NI");
}

static void nis_add(struct sync *s)
{
	const struct lne_ni *w;

	lne_list_for_each_entry(w, &s->want->nis, all_link) {
		if (!live(s))
			return;
		if (!lne_ni_find(s->kb->pushed, &w->nid))
			ni_add(s, w);
	}
}

static void peer_add(struct sync *s, const struct lne_peer *w, size_t n)
{
	struct lne_inst *have = s->kb->pushed;
	char primary[LNE_NID_STR_MAX];
	struct lne_err le = {.msg = ""};
	const struct lne_peer *p;
	size_t i;
	int rc = 0;

	nid_text(&w->primary, primary);
	if (s->mode == M_COLLECT)
		rc = lnetk_batch_peer(s->batch, primary, w->mr, s->nidp, n);
	else if (s->mode == M_SEND)
		rc = lnetk_peer_add(s->kb->lk, primary, w->mr, s->nidp, n, &s->err);
	if (!sent(s, rc, "peer %s", primary))
		return;
	p = lne_peer_find(have, &w->primary);
	if (!p || p->implicit)
		local(s, lne_peer_add(have, &w->primary, w->mr, &le), &le, "a peer");
	for (i = 0; i < n; i++)
		local(s, lne_peer_add_nid(have, &w->primary, &s->nids[i], &le), &le, "a peer NID");
}

static void peers_add(struct sync *s)
{
	const struct lne_inst *have = s->kb->pushed;
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
			s->stop = -ENOMEM;
			return;
		}
		p = lne_peer_find(have, &w->primary);
		n = 0;
		lne_list_for_each_entry(pnet, &w->pnets, link)
			lne_list_for_each_entry(pni, &pnet->pnis, pnet_link) {
				if (lne_nid_equal(&pni->nid, &w->primary))
					continue;
				h = p ? lne_peer_ni_find(have, &pni->nid) : NULL;
				if (h && lne_peer_of(h) == p)
					continue;
				s->nids[n] = pni->nid;
				/* As text only for the module. */
				if (s->mode == M_SEND || s->mode == M_COLLECT)
					s->nidp[n] = nid_text(&pni->nid, s->nidbuf[n]);
				n++;
			}
		if (!p || p->implicit || n)
			peer_add(s, w, n);
	}
}

static void route_add(struct sync *s, const struct lne_route *w)
{
	struct lnetk_route k = {.has = LNETK_HAS_ROUTE_HOPS | LNETK_HAS_ROUTE_PRIORITY |
				       LNETK_HAS_ROUTE_SENSITIVITY,
				.hops = w->hops,
				.priority = w->priority,
				.sensitivity = w->sensitivity};
	struct lne_err le = {.msg = ""};
	int rc = 0;

	lne_net_format(w->rnet->id, k.net, sizeof(k.net));
	nid_text(&w->gw->nid, k.gateway);
	if (s->mode == M_COLLECT)
		rc = lnetk_batch_route(s->batch, &k);
	else if (s->mode == M_SEND)
		rc = lnetk_route_add(s->kb->lk, &k, &s->err);
	if (sent(s, rc, "the route to %s via %s", k.net, k.gateway))
		local(s,
		      lne_route_add(s->kb->pushed, w->rnet->id, &w->gw->nid, w->hops, w->priority,
				    w->sensitivity, &le),
		      &le, "a route");
}

static void routes_add(struct sync *s)
{
	const struct lne_route *w;

	lne_list_for_each_entry(w, &s->want->routes, link) {
		if (!live(s))
			return;
		if (!lne_route_find(s->kb->pushed, w->rnet->id, &w->gw->nid))
			route_add(s, w);
	}
}

/* @idx < 0 appends. */
static void rule_add(struct sync *s, const struct lne_rule *w, int64_t idx)
{
	struct lnetk_rule k = {.src = expr_text(w->src),
			       .dst = expr_text(w->dst),
			       .rte = expr_text(w->rte),
			       .prio = w->prio,
			       .idx = idx};
	struct lne_err le = {.msg = ""};
	int rc = 0;

	if ((w->src && !k.src) || (w->dst && !k.dst) || (w->rte && !k.rte)) {
		s->stop = -ENOMEM;
		goto out;
	}
	if (s->mode == M_COLLECT)
		rc = lnetk_batch_rule(s->batch, &k);
	else if (s->mode == M_SEND)
		rc = lnetk_rule_add(s->kb->lk, &k, NULL, NULL, &s->err);
	if (sent(s, rc, "rule %s%s%s%s%s%s (%s)", k.src ? "--src " : "", k.src ?: "",
		 k.dst ? " --dst " : "", k.dst ?: "", k.rte ? " --rte " : "", k.rte ?: "",
		 lne_rule_kind_name(w->kind)))
		local(s,
		      lne_rule_add(s->kb->pushed, k.src, k.dst, k.rte, w->prio, idx, NULL, NULL,
				   &le),
		      &le, "a rule");
out:
	free((char *)k.src);
	free((char *)k.dst);
	free((char *)k.rte);
}

static void rules_add(struct sync *s)
{
	const struct lne_inst *have = s->kb->pushed;
	struct lne_rule **w;
	u32 k, suffix, i;

	if (rules_common(s->want, have, &k, &suffix)) {
		s->stop = -ENOMEM;
		return;
	}
	/* A deletion was refused: what to insert where is no longer clear. */
	if (k + suffix != have->udsp.nrules || k + suffix == s->want->udsp.nrules)
		return;
	w = rule_array(s->want);
	if (!w) {
		s->stop = -ENOMEM;
		return;
	}
	for (i = k; live(s) && i < s->want->udsp.nrules - suffix; i++)
		rule_add(s, w[i], suffix ? (int64_t)i : -1);
	free(w);
}

static void additions(struct sync *s)
{
	s->items = 0;
	globals_add(s);
	nis_add(s);
	peers_add(s);
	routes_add(s);
	rules_add(s);
}

/* Link state, which NI_ADD (and so a batch) does not carry. */
static void ni_states(struct sync *s)
{
	struct lne_err le = {.msg = ""};
	const struct lne_ni *w;
	struct lne_ni *h;
	int rc;

	lne_list_for_each_entry(w, &s->want->nis, all_link) {
		struct lnetk_ni k = {.has = LNETK_HAS_NI_UP, .up = w->up};

		if (!live(s))
			return;
		h = lne_ni_find(s->kb->pushed, &w->nid);
		if (!h || h->up == w->up)
			continue;
		nid_text(&w->nid, k.nid);
		rc = lnetk_ni_set(s->kb->lk, &k, &s->err);
		if (sent(s, rc, "the link state of NI %s", k.nid))
			local(s, lne_ni_set_up(s->kb->pushed, &w->nid, w->up, &le), &le,
			      "a link state");
	}
}

/*
 * The additions in one batch.  Returns false when it could not be built or
 * the module refused it: the caller sends them one by one.
 */
static bool batch(struct sync *s, uint32_t flags)
{
	struct kbackend *kb = s->kb;
	struct lne_inst *before = NULL;
	double t0 = now(), t1 = 0, t2 = 0;
	uint32_t applied = 0;
	size_t bytes;
	int rc;

	if (flags & LNETK_F_REPLACE) {
		/* What the module becomes: a fresh instance, then the batch. */
		before = kb->pushed;
		kb->pushed = lne_inst_new();
		if (!kb->pushed) {
			kb->pushed = before;
			return false;
		}
	}
	rc = lnetk_batch_new(kb->lk, flags, &s->batch);
	if (!rc) {
		s->mode = M_COLLECT;
		additions(s);
		rc = s->stop;
		s->stop = 0;
	}
	if (!rc) {
		bytes = lnetk_batch_bytes(s->batch);
		t1 = now();
		rc = lnetk_batch_send(s->batch, &applied, &s->err);
		t2 = now();
		if (rc && s->err.msg[0])
			fprintf(stderr,
				"lnetd: lnetk module refused a batch of %zu items (%s); sending "
				"them one request each\n",
				s->items, s->err.msg);
	}
	lnetk_batch_free(s->batch);
	s->batch = NULL;
	if (rc) {
		if (!s->err.msg[0])
			fprintf(stderr, "lnetd: a batch of %zu items could not be sent (%s)\n",
				s->items, strerror(-rc));
		if (before) {
			lne_inst_free(kb->pushed);
			kb->pushed = before;
		}
		s->mode = M_SEND;
		return false;
	}
	lne_inst_free(before);
	mine_push(kb, lnetk_last_generation(kb->lk));
	s->requests++;
	s->changes += applied;
	s->mode = M_LOCAL;
	additions(s);
	s->mode = M_SEND;
	fprintf(stderr,
		"lnetd: lnetk module took a %sbatch of %u items (%zu bytes): built in %.2f s, "
		"applied in %.2f s, copied in %.2f s\n",
		flags & LNETK_F_REPLACE ? "replacing " : "", applied, bytes, t1 - t0, t2 - t1,
		now() - t2);
	return true;
}

/* ktbf.c's report of one request: counted like the others. */
static bool tbf_sent(void *ctx, int rc, const char *what)
{
	struct sync *s = ctx;

	/* A request source holds the policy: the delete waits until it lets go. */
	s->busy |= rc == -EBUSY;
	sent(s, rc, "%s", what);
	return live(s);
}

/* The TBF policies, after the objects (they do not depend on each other). */
static void tbf_push(struct sync *s)
{
	int rc;

	if (!live(s))
		return;
	s->mode = M_SEND;
	rc = ktbf_sync(s->kb->lk, s->kb->d->tbf, s->kb->d->ntbf, tbf_sent, s, &s->err);
	if (rc && !s->refused++)
		snprintf(s->first, sizeof(s->first),
			 "cannot read the lnetk module's TBF policies: %s",
			 s->err.msg[0] ? s->err.msg : strerror(-rc));
}

static void push(struct sync *s)
{
	struct kbackend *kb = s->kb;
	size_t have = objects(kb->pushed);
	bool replace = kb->replace || !have;

	s->mode = M_SEND;
	if (!replace) {
		rules_delete(s);
		routes_delete(s);
		peers_delete(s);
		nis_delete(s);
	}
	if (!live(s))
		return;
	s->mode = M_COUNT;
	additions(s);
	s->mode = M_SEND;
	/* An unreadable module is emptied even when there is nothing to add. */
	if (kb->replace || (replace && s->items >= BATCH_MIN)) {
		if (batch(s, LNETK_F_REPLACE))
			kb->replace = false;
		else
			additions(s);
	} else if (s->items >= BATCH_MIN && s->items * BATCH_RATIO >= have) {
		if (!batch(s, 0))
			additions(s);
	} else if (s->items) {
		additions(s);
	}
	ni_states(s);
	tbf_push(s);
}

/* --- the backend's state ------------------------------------------------------------------ */

enum cause {
	C_CHANGE,   /* the mirror changed */
	C_START,    /* lnetd starts */
	C_APPEARED, /* the family appeared */
	C_REPAIR,   /* the module changed behind lnetd's back */
};

static void disconnect(struct kbackend *kb)
{
	kb->ev_io = sd_event_source_disable_unref(kb->ev_io);
	lnetk_events_close(kb->ev);
	kb->ev = NULL;
	lnetk_close(kb->lk);
	kb->lk = NULL;
	lne_inst_free(kb->pushed);
	kb->pushed = NULL;
	kb->replace = false;
	kb->mine.n = kb->mine.head = 0;
	kb->horizon = 0;
	kb->applied = false;
	snprintf(kb->why, sizeof(kb->why), NOT_LOADED);
	sd_event_source_set_enabled(kb->repair, SD_EVENT_OFF);
	sd_event_source_set_enabled(kb->retry, SD_EVENT_OFF);
	sd_event_source_set_enabled(kb->busy, SD_EVENT_OFF);
}

static void arm_timer(struct kbackend *kb, sd_event_source *timer, uint64_t usec)
{
	uint64_t t;

	if (sd_event_now(kb->d->event, CLOCK_MONOTONIC, &t) >= 0 &&
	    sd_event_source_set_time(timer, t + usec) >= 0)
		sd_event_source_set_enabled(timer, SD_EVENT_ONESHOT);
}

static void arm_retry(struct kbackend *kb)
{
	arm_timer(kb, kb->retry, RETRY_USEC);
}

static void run_sync(struct kbackend *kb, enum cause cause)
{
	static const char *const verb[] = {"", " at start", " appeared", " repaired"};
	struct sync s = {.kb = kb, .want = kb->d->mirror};
	bool read = !kb->pushed;
	size_t before;
	double t0 = now();
	int rc;

	if (!kb->lk) {
		kb->applied = false;
		snprintf(kb->why, sizeof(kb->why), NOT_LOADED);
		return;
	}
	sd_event_source_set_enabled(kb->retry, SD_EVENT_OFF);
	sd_event_source_set_enabled(kb->busy, SD_EVENT_OFF);
	if (read) {
		rc = read_module(kb);
		if (rc) {
			kb->applied = false;
			snprintf(kb->why, sizeof(kb->why),
				 "cannot read what the lnetk module holds: %s", strerror(-rc));
			fprintf(stderr, "lnetd: %s\n", kb->why);
			arm_retry(kb);
			return;
		}
		/* Whatever changed the module before is in what was read. */
		sd_event_source_set_enabled(kb->repair, SD_EVENT_OFF);
	}
	before = objects(kb->pushed);
	push(&s);
	drain(kb);
	free(s.nidbuf);
	free(s.nidp);
	free(s.nids);
	kb->applied = !s.stop && !s.refused;
	if (kb->applied)
		kb->why[0] = '\0';
	else
		snprintf(kb->why, sizeof(kb->why), "%s", s.first[0] ? s.first : strerror(-s.stop));
	if (read && !before && s.changes)
		fprintf(stderr, "lnetd: lnetk module%s: %zu objects pushed in %.2f s\n",
			verb[cause], objects(kb->pushed), now() - t0);
	else if (read)
		fprintf(stderr,
			"lnetd: lnetk module%s: it held %zu objects, %zu changes made in %.2f s\n",
			verb[cause], before, s.changes, now() - t0);
	else if (now() - t0 >= 1)
		fprintf(stderr, "lnetd: lnetk module: %zu changes made in %.2f s\n", s.changes,
			now() - t0);
	if (s.refused)
		fprintf(stderr, "lnetd: lnetk module refused %zu change(s); the first: %s\n",
			s.refused, s.first);
	if (s.stop) {
		fprintf(stderr, "lnetd: %s\n", kb->why);
		arm_retry(kb);
	} else if (s.busy) {
		arm_timer(kb, kb->busy, BUSY_USEC);
	}
	if (s.local_bad) {
		/* The copy is no longer what the module holds: read the module again. */
		lne_inst_free(kb->pushed);
		kb->pushed = NULL;
		schedule_repair(kb);
	}
}

static void connect_module(struct kbackend *kb, enum cause cause)
{
	int rc;

	rc = lnetk_open(&kb->lk);
	if (rc) {
		kb->lk = NULL;
		if (rc != -ENOENT)
			snprintf(kb->why, sizeof(kb->why), "cannot reach the lnetk module: %s",
				 strerror(-rc));
		fprintf(stderr, "lnetd: %s; every object waits for it\n",
			rc == -ENOENT ? NOT_LOADED : kb->why);
		/* Absent, the controller will say when it comes; anything else: try again. */
		if (rc != -ENOENT)
			arm_retry(kb);
		return;
	}
	rc = lnetk_events_open(on_event, kb, &kb->ev);
	if (!rc && lnetk_events_set_buffer(kb->ev, EVENTS_ROOM))
		fprintf(stderr, "lnetd: cannot enlarge the buffer of lnetk announcements, "
				"ignoring\n");
	if (!rc)
		rc = sd_event_add_io(kb->d->event, &kb->ev_io, lnetk_events_fd(kb->ev), EPOLLIN,
				     on_events_io, kb);
	if (rc < 0) {
		/* Without announcements drift would go unseen: try again later. */
		fprintf(stderr, "lnetd: cannot hear the lnetk module's announcements: %s\n",
			strerror(-rc));
		disconnect(kb);
		snprintf(kb->why, sizeof(kb->why), "cannot hear the lnetk module: %s",
			 strerror(-rc));
		arm_retry(kb);
		return;
	}
	run_sync(kb, cause);
}

static void on_family(bool present, int family, void *arg)
{
	struct kbackend *kb = arg;

	if (!present) {
		if (!kb->lk)
			return;
		disconnect(kb);
		fprintf(stderr, "lnetd: lnetk module vanished: every object waits for it\n");
		return;
	}
	/* Our own lnetk_open() may have loaded it: nothing new then. */
	if (kb->lk && family == lnetk_family(kb->lk))
		return;
	disconnect(kb);
	connect_module(kb, C_APPEARED);
}

static int on_watch_io(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct kbackend *kb = userdata;
	int rc = lnetk_watch_dispatch(kb->watch);

	if (rc == -ENOBUFS) {
		/* Missed announcements: look, without loading anything. */
		lnetk_watch_dispatch(kb->watch);
		rc = lnetk_family_present();
		if (rc > 0) {
			disconnect(kb);
			connect_module(kb, C_APPEARED);
		} else if (!rc && kb->lk) {
			on_family(false, -1, kb);
		}
	}
	if (rc < 0)
		fprintf(stderr, "lnetd: genl controller announcements: %s, ignoring\n",
			strerror(-rc));
	return 0;
}

static int on_repair(sd_event_source *s, void *userdata)
{
	struct kbackend *kb = userdata;

	if (!kb->lk)
		return 0;
	lne_inst_free(kb->pushed);
	kb->pushed = NULL;
	run_sync(kb, C_REPAIR);
	return 0;
}

static int on_retry(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct kbackend *kb = userdata;

	/* Only when it is there: lnetk_open() would load it again after an rmmod. */
	if (!kb->lk) {
		if (lnetk_family_present() > 0)
			connect_module(kb, C_APPEARED);
		return 0;
	}
	lne_inst_free(kb->pushed);
	kb->pushed = NULL;
	run_sync(kb, C_REPAIR);
	return 0;
}

/* A refusal that may pass (EBUSY): the same sync again, from what lnetd knows the module holds. */
static int on_busy(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct kbackend *kb = userdata;

	if (kb->lk && !kb->applied)
		run_sync(kb, C_CHANGE);
	return 0;
}

/* --- kernel.h ----------------------------------------------------------------------------- */

int kbackend_start(struct lnetd *d, struct kbackend **kbp)
{
	struct kbackend *kb = calloc(1, sizeof(*kb));
	int rc;

	*kbp = NULL;
	if (!kb)
		return -ENOMEM;
	kb->d = d;
	snprintf(kb->why, sizeof(kb->why), NOT_LOADED);
	rc = sd_event_add_defer(d->event, &kb->repair, on_repair, kb);
	if (rc >= 0)
		rc = sd_event_source_set_enabled(kb->repair, SD_EVENT_OFF);
	if (rc >= 0)
		rc = sd_event_add_time(d->event, &kb->retry, CLOCK_MONOTONIC, UINT64_MAX, 0,
				       on_retry, kb);
	if (rc >= 0)
		rc = sd_event_source_set_enabled(kb->retry, SD_EVENT_OFF);
	if (rc >= 0)
		rc = sd_event_add_time(d->event, &kb->busy, CLOCK_MONOTONIC, UINT64_MAX, 0, on_busy,
				       kb);
	if (rc >= 0)
		rc = sd_event_source_set_enabled(kb->busy, SD_EVENT_OFF);
	/* Watch first: a module loaded from now on is seen, even by our own lookup. */
	if (rc >= 0)
		rc = lnetk_watch_open(on_family, kb, &kb->watch);
	if (rc >= 0)
		rc = sd_event_add_io(d->event, &kb->watch_io, lnetk_watch_fd(kb->watch), EPOLLIN,
				     on_watch_io, kb);
	if (rc < 0) {
		kbackend_stop(kb);
		return rc;
	}
	connect_module(kb, C_START);
	*kbp = kb;
	return 0;
}

void kbackend_stop(struct kbackend *kb)
{
	if (!kb)
		return;
	disconnect(kb);
	sd_event_source_disable_unref(kb->repair);
	sd_event_source_disable_unref(kb->retry);
	sd_event_source_disable_unref(kb->busy);
	sd_event_source_disable_unref(kb->watch_io);
	lnetk_watch_close(kb->watch);
	free(kb->mine.gen);
	free(kb);
}

void kbackend_sync(struct kbackend *kb)
{
	run_sync(kb, C_CHANGE);
}

bool kbackend_applied(const struct kbackend *kb, char *why, size_t len)
{
	if (!kb->applied)
		snprintf(why, len, "%s", kb->why);
	return kb->applied;
}

int kbackend_set_health(struct kbackend *kb, bool peer, const struct lne_nid *nid, uint32_t value,
			char *why, size_t len)
{
	struct lnetk_err err;
	char text[LNE_NID_STR_MAX];
	int rc;

	if (!kb->lk) {
		snprintf(why, len, NOT_LOADED);
		return -ENODEV;
	}
	nid_text(nid, text);
	if (peer) {
		struct lnetk_peer_ni k = {.has = LNETK_HAS_PNI_HEALTH, .health = value};

		snprintf(k.nid, sizeof(k.nid), "%s", text);
		rc = lnetk_peer_ni_set(kb->lk, &k, &err);
	} else {
		struct lnetk_ni k = {.has = LNETK_HAS_NI_HEALTH, .health = value};

		snprintf(k.nid, sizeof(k.nid), "%s", text);
		rc = lnetk_ni_set(kb->lk, &k, &err);
	}
	if (rc) {
		snprintf(why, len, "the lnetk module refused the health of %s: %s", text,
			 err.msg[0] ? err.msg : strerror(-rc));
		return rc;
	}
	mine_push(kb, lnetk_last_generation(kb->lk));
	if (kb->pushed) {
		if (peer)
			lne_peer_ni_set_health(kb->pushed, nid, (s32)value, NULL);
		else
			lne_ni_set_health(kb->pushed, nid, (s32)value, NULL);
	}
	return 0;
}

struct lnetk *kbackend_lnetk(const struct kbackend *kb)
{
	return kb->lk;
}

/* --- health, as the module has it ------------------------------------------------------ */

struct khealth {
	struct khealth_one {
		struct lne_nid nid;
		uint32_t health;
	} * v;
	size_t n, cap;
	int rc;
};

static void health_add(struct khealth *h, const char *text, uint32_t health)
{
	struct khealth_one *grown;

	if (h->rc)
		return;
	if (h->n == h->cap) {
		/* The capacity grows with the block, never before it: a dump read again
		 * after a failed realloc must not write past the old one. */
		size_t cap = h->cap ? 2 * h->cap : 64;

		grown = realloc(h->v, cap * sizeof(*h->v));
		if (!grown) {
			h->rc = -ENOMEM;
			return;
		}
		h->v = grown;
		h->cap = cap;
	}
	if (!lne_nid_parse(text, &h->v[h->n].nid, NULL))
		h->v[h->n++].health = health;
}

static int health_ni(const struct lnetk_ni *k, void *arg)
{
	health_add(arg, k->nid, k->health);
	return 0;
}

static int health_peer(const struct lnetk_peer *p, void *arg)
{
	size_t i;

	for (i = 0; i < p->nnis; i++)
		health_add(arg, p->nis[i].nid, p->nis[i].health);
	return 0;
}

static int health_cmp(const void *a, const void *b)
{
	return lne_nid_cmp(&((const struct khealth_one *)a)->nid,
			   &((const struct khealth_one *)b)->nid);
}

struct khealth *kbackend_health(struct kbackend *kb, bool peers)
{
	struct khealth *h;
	int rc = -EAGAIN, tries;

	if (!kb->lk)
		return NULL;
	h = calloc(1, sizeof(*h));
	/* A change in the middle of the dumps: read again. */
	for (tries = 0; h && rc == -EAGAIN && tries < DUMP_TRIES; tries++) {
		h->n = 0;
		h->rc = 0;
		rc = lnetk_ni_dump(kb->lk, health_ni, h, NULL);
		if (!rc && peers)
			rc = lnetk_peer_dump(kb->lk, health_peer, h, NULL);
		rc = rc ?: h->rc;
	}
	if (!h || rc) {
		khealth_free(h);
		return NULL;
	}
	qsort(h->v, h->n, sizeof(*h->v), health_cmp);
	return h;
}

uint32_t khealth_get(const struct khealth *h, const struct lne_nid *nid, uint32_t fallback)
{
	struct khealth_one key = {.nid = *nid};
	const struct khealth_one *one;

	if (!h || !h->n)
		return fallback;
	one = bsearch(&key, h->v, h->n, sizeof(*h->v), health_cmp);
	return one ? one->health : fallback;
}

void khealth_free(struct khealth *h)
{
	if (!h)
		return;
	free(h->v);
	free(h);
}
