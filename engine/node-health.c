// SPDX-License-Identifier: GPL-2.0
/*
 * node-health.c - health, resend and recovery for the node (node.h), as
 * seed 001's "Resending Messages" and "Peer NI Health" describe them.
 *
 * A send that fails is blamed on the local NI, the peer NI (the next hop)
 * or both, by its health status; the side blamed loses health_sensitivity
 * and waits on the recovery queue.  Selection ranks by health, so the
 * message sent again (resent) goes over another path.  A resend happens for
 * the statuses upstream resends (dropped, aborted, interrupted, no route,
 * local timeout), at most retry_count times and not after
 * transaction_timeout.  Sending well raises a local NI's health; hearing
 * from a peer NI raises the peer NI's.
 *
 * Recovery pings each queued NI (its own NID, from itself) and peer NI
 * (from a local NI on its net), the first after recovery_interval and each
 * failure doubling the wait up to max_recovery_ping_interval.  A ping that
 * is answered proves the path and returns its health to 1000 at once
 * (upstream raises it by health_sensitivity a message); a peer NI not heard
 * of for recovery_limit seconds (0: no limit) leaves the queue.
 */
#include "node-int.h"

const char *lne_hstatus_name(enum lne_hstatus hs)
{
	static const char *const names[LNE_HS__COUNT] = {
		[LNE_HS_OK] = "ok",
		[LNE_HS_LOCAL_INTERRUPT] = "local_interrupt",
		[LNE_HS_LOCAL_DROPPED] = "local_dropped",
		[LNE_HS_LOCAL_ABORTED] = "local_aborted",
		[LNE_HS_LOCAL_NO_ROUTE] = "local_no_route",
		[LNE_HS_LOCAL_TIMEOUT] = "local_timeout",
		[LNE_HS_LOCAL_ERROR] = "local_error",
		[LNE_HS_REMOTE_DROPPED] = "remote_dropped",
		[LNE_HS_REMOTE_ERROR] = "remote_error",
		[LNE_HS_REMOTE_TIMEOUT] = "remote_timeout",
		[LNE_HS_NETWORK_TIMEOUT] = "network_timeout",
	};

	return (unsigned int)hs < LNE_HS__COUNT ? names[hs] : "unknown";
}

u32 lne_node_lnd_timeout(const struct lne_inst *ln)
{
	u32 t = (ln->globals[LNE_G_TRANSACTION_TIMEOUT] - 1) / (ln->globals[LNE_G_RETRY_COUNT] + 1);

	return t ? t : 1;
}

const struct lne_health *lne_node_health(const struct lne_node *n, const struct lne_nid *nid)
{
	u64 k;
	int local;

	if (lne_node_key_find(n, nid, &k))
		return NULL;
	for (local = 1; local >= 0; local--) {
		const struct lne_stat *s = n->stats[lne_nd_stat_bucket(n, k, local)];

		for (; s; s = s->hnext)
			if (s->nid == k && s->local == local)
				return &s->h;
	}
	return NULL;
}

/* The health value a stat entry stands for, in the node's instance (NULL: gone). */
static s32 *health_of(struct lne_node *n, const struct lne_stat *s)
{
	struct lne_nid nid;

	lne_node_nid(n, s->nid, &nid);
	if (s->local) {
		struct lne_ni *ni = lne_ni_find(n->ln, &nid);

		return ni ? &ni->health : NULL;
	} else {
		struct lne_peer_ni *pni = lne_peer_ni_find(n->ln, &nid);

		return pni ? &pni->health : NULL;
	}
}

static u64 ping_wait_ms(const struct lne_node *n, u32 ping_count)
{
	u64 max = n->ln->globals[LNE_G_MAX_RECOVERY_PING_INTERVAL];
	u64 wait = n->ln->globals[LNE_G_RECOVERY_INTERVAL];

	wait = ping_count < 32 ? wait << ping_count : max;
	return (wait < max ? wait : max) * 1000;
}

static void tell(struct lne_node *n, const struct lne_stat *s, const char *state)
{
	s32 *h = health_of(n, s);
	struct lne_nid nid;

	if (!n->ops || !n->ops->state)
		return;
	lne_node_nid(n, s->nid, &nid);
	if (s->local && !strcmp(state, "recovering") && !lne_ni_find(n->ln, &nid)->up)
		return; /* "down" said it */
	n->ops->state(n->ctx, &nid, s->local, state, h ? *h : 0);
}

static void recovery_queue(struct lne_node *n, struct lne_stat *s)
{
	s32 *h = health_of(n, s);

	if (s->h.queued || !h || *h >= LNE_HEALTH_MAX)
		return;
	tell(n, s, "recovering");
	s->h.queued = true;
	s->h.since_ms = n->now_ms;
	s->h.next_ping_ms = n->now_ms + ping_wait_ms(n, s->h.ping_count);
	s->h.rnext = n->recq;
	n->recq = s;
}

/* @s's side failed: health_sensitivity less, and recovery for it. */
static void health_down(struct lne_node *n, struct lne_stat *s)
{
	s32 *h = s ? health_of(n, s) : NULL;
	s32 sens = (s32)n->ln->globals[LNE_G_HEALTH_SENSITIVITY];

	if (!h)
		return;
	*h = *h < sens ? 0 : *h - sens;
	recovery_queue(n, s);
}

static void health_up(struct lne_node *n, struct lne_stat *s, bool full)
{
	s32 *h = s ? health_of(n, s) : NULL;
	s32 sens = (s32)n->ln->globals[LNE_G_HEALTH_SENSITIVITY];

	if (!h)
		return;
	*h = full || *h + sens > LNE_HEALTH_MAX ? LNE_HEALTH_MAX : *h + sens;
}

/* The status a failed send's errno means, as socklnd sets it. */
static enum lne_hstatus status_of(struct lne_node *n, const struct lne_msg *m, int err)
{
	struct lne_ni *ni = lne_ni_find(n->ln, &m->ni);

	if (m->fault_hs)
		return (enum lne_hstatus)m->fault_hs; /* a fault rule simulates it */
	if (ni && !ni->up)
		return LNE_HS_LOCAL_DROPPED; /* our link went down under it */
	switch (err) {
	case -ETIMEDOUT:
		return LNE_HS_NETWORK_TIMEOUT;
	case -ENETDOWN:
	case -EHOSTUNREACH:
	case -ENETUNREACH:
	case -ECONNREFUSED:
	case -ECONNRESET:
	case -ENOTCONN:
		return LNE_HS_REMOTE_DROPPED;
	default:
		return LNE_HS_LOCAL_ERROR;
	}
}

/* A peer with one NI is not blamed or resent to, unless it routes (upstream's rule). */
static bool peer_multi(struct lne_node *n, u64 via)
{
	struct lne_nid nid;
	struct lne_peer_ni *pni;

	lne_node_nid(n, via, &nid);
	pni = lne_peer_ni_find(n->ln, &nid);
	return pni &&
	       (lne_peer_of(pni)->npni > 1 || pni->gw_refs || lne_global_get(n->ln, LNE_G_ROUTING));
}

bool lne_nd_send_failed(struct lne_node *n, struct lne_msg *m, int err)
{
	enum lne_hstatus hs;
	struct lne_stat *ls = NULL, *ps = NULL;
	bool local, remote, resend;
	u64 ni4;

	if (err == -ESHUTDOWN || n->closing || m->cancelled || !m->ni.alen)
		return false;
	if (n->now_ms >= m->txn_deadline_ms && m->txn_deadline_ms)
		return false; /* over its deadline: upstream neither blames nor resends */
	hs = status_of(n, m, err);
	if (!lne_node_key(n, &m->ni, &ni4))
		ls = lne_nd_stat_get(n, ni4, true);
	if (m->via && m->via != ni4 && peer_multi(n, m->via))
		ps = lne_nd_stat_get(n, m->via, false);
	n->st.hs[hs]++;
	local = hs <= LNE_HS_LOCAL_ERROR || hs == LNE_HS_NETWORK_TIMEOUT;
	remote = hs >= LNE_HS_REMOTE_DROPPED;
	/* a node of one NI has no other way out: upstream resends local failures only with two */
	resend = (hs < LNE_HS_LOCAL_ERROR && n->ln->nis.next->next != &n->ln->nis) ||
		 (hs == LNE_HS_REMOTE_DROPPED && ps);
	if (local && ls) {
		ls->h.hs[hs]++;
		health_down(n, ls);
	}
	if (remote && ps) {
		ps->h.hs[hs]++;
		health_down(n, ps);
	}
	if (!resend || m->recovery)
		return false;
	if (m->retries >= n->ln->globals[LNE_G_RETRY_COUNT]) {
		if (n->ln->globals[LNE_G_RETRY_COUNT])
			n->st.failed_resends++;
		return false;
	}
	m->retries++;
	n->st.resend_count++;
	m->sent = false;
	m->fault_hs = 0;
	if (!m->forward)
		m->hdr.dst_nid = m->target;
	if (!m->src_given)
		memset(&m->ni, 0, sizeof(m->ni));
	m->next = NULL;
	*n->resendtail = m;
	n->resendtail = &m->next;
	return true;
}

void lne_nd_send_ok(struct lne_node *n, struct lne_link *l, const struct lne_msg *m)
{
	struct lne_stat *ls = lne_nd_stat_get(n, l->local, true);

	n->st.hs[LNE_HS_OK]++;
	if (m->retries)
		n->st.successful_resends++;
	health_up(n, ls, false);
}

void lne_nd_heard(struct lne_node *n, struct lne_link *l, const struct lne_peer_ni *from)
{
	struct lne_stat *ps;

	if (!from)
		return; /* ourselves, or nobody we know */
	ps = lne_nd_stat_get(n, l->peer, false);
	if (!ps)
		return;
	ps->h.since_ms = n->now_ms;
	ps->h.ping_count = 0;
	health_up(n, ps, lne_global_get(n->ln, LNE_G_ROUTING));
	recovery_queue(n, ps);
}

static bool tracked(const struct lne_node *n, const struct lne_msg *m)
{
	u32 rt = n->ln->globals[LNE_G_RESPONSE_TRACKING];

	return rt == 3 || (rt == 2 && m->hdr.type == LNW_PUT) ||
	       (rt == 1 && m->hdr.type == LNW_GET);
}

void lne_nd_response_timeout(struct lne_node *n, struct lne_msg *m)
{
	struct lne_stat *ps;

	if (!tracked(n, m) || !m->via)
		return;
	n->st.response_timeout_count++;
	ps = lne_nd_stat_get(n, m->via, false);
	if (ps && peer_multi(n, m->via)) {
		ps->h.hs[LNE_HS_REMOTE_TIMEOUT]++;
		health_down(n, ps);
	}
}

int lne_nd_health_stats_each(const struct lne_node *n, lne_count_fn fn, void *arg)
{
	static const char *const names[LNE_HS__COUNT] = {
		[LNE_HS_LOCAL_INTERRUPT] = "local_interrupt_count",
		[LNE_HS_LOCAL_DROPPED] = "local_dropped_count",
		[LNE_HS_LOCAL_ABORTED] = "local_aborted_count",
		[LNE_HS_LOCAL_NO_ROUTE] = "local_no_route_count",
		[LNE_HS_LOCAL_TIMEOUT] = "local_timeout_count",
		[LNE_HS_LOCAL_ERROR] = "local_error_count",
		[LNE_HS_REMOTE_DROPPED] = "remote_dropped_count",
		[LNE_HS_REMOTE_ERROR] = "remote_error_count",
		[LNE_HS_REMOTE_TIMEOUT] = "remote_timeout_count",
		[LNE_HS_NETWORK_TIMEOUT] = "network_timeout_count",
	};
	const struct lne_node_stats *st = &n->st;
	int rc, hs;

	rc = fn(arg, "resend_count", st->resend_count);
	if (rc >= 0)
		rc = fn(arg, "response_timeout_count", st->response_timeout_count);
	for (hs = LNE_HS_LOCAL_INTERRUPT; rc >= 0 && hs < LNE_HS__COUNT; hs++) {
		rc = fn(arg, names[hs], st->hs[hs]);
	}
	if (rc >= 0)
		rc = fn(arg, "failed_resends", st->failed_resends);
	if (rc >= 0)
		rc = fn(arg, "successful_resends", st->successful_resends);
	if (rc >= 0)
		rc = fn(arg, "recovery_pings", st->recovery_pings);
	if (rc >= 0)
		rc = fn(arg, "router_pings", st->router_pings); /* node-gw.c */
	if (rc >= 0)
		rc = fn(arg, "asym_route_drops", st->asym_drops);
	return rc;
}

int lne_node_health_each(const struct lne_node *n, const struct lne_nid *nid, bool local,
			 lne_count_fn fn, void *arg)
{
	/* upstream's keys, in its order: an NI's, then a peer NI's */
	static const struct {
		const char *key;
		u8 hs;
	} ni_keys[] = {{"interrupts", LNE_HS_LOCAL_INTERRUPT}, {"dropped", LNE_HS_LOCAL_DROPPED},
		       {"aborted", LNE_HS_LOCAL_ABORTED},      {"no route", LNE_HS_LOCAL_NO_ROUTE},
		       {"timeouts", LNE_HS_LOCAL_TIMEOUT},     {"error", LNE_HS_LOCAL_ERROR}},
	  pni_keys[] = {{"dropped", LNE_HS_REMOTE_DROPPED},
			{"timeout", LNE_HS_REMOTE_TIMEOUT},
			{"error", LNE_HS_REMOTE_ERROR},
			{"network timeout", LNE_HS_NETWORK_TIMEOUT}};
	const struct lne_health none = {{0}}, *h = &none;
	const struct lne_stat *s;
	unsigned int i, nk = local ? 6 : 4;
	int rc = 0;
	u64 k;

	if (lne_node_key_find(n, nid, &k))
		return -EAFNOSUPPORT;
	for (s = n->stats[lne_nd_stat_bucket(n, k, local)]; s; s = s->hnext)
		if (s->nid == k && s->local == local)
			h = &s->h;
	for (i = 0; rc >= 0 && i < nk; i++)
		rc = local ? fn(arg, ni_keys[i].key, h->hs[ni_keys[i].hs])
			   : fn(arg, pni_keys[i].key, h->hs[pni_keys[i].hs]);
	if (rc >= 0)
		rc = fn(arg, "ping_count", h->ping_count);
	if (rc >= 0)
		rc = fn(arg, "next_ping", h->queued ? h->next_ping_ms / 1000 : 0);
	return rc;
}

int lne_node_recovery_each(const struct lne_node *n, bool local,
			   int (*fn)(void *arg, const struct lne_nid *nid,
				     const struct lne_health *h),
			   void *arg)
{
	const struct lne_stat *s;
	struct lne_nid nid;
	int rc = 0;

	for (s = n->recq; s && rc >= 0; s = s->h.rnext)
		if (s->local == local) {
			lne_node_nid(n, s->nid, &nid);
			rc = fn(arg, &nid, &s->h);
		}
	return rc;
}

static void rescan_one(struct lne_node *n, const struct lne_nid *nid, s32 health, bool local)
{
	struct lne_stat *s;
	u64 k;

	if (health >= LNE_HEALTH_MAX || lne_node_key(n, nid, &k))
		return;
	s = lne_nd_stat_get(n, k, local);
	if (s)
		recovery_queue(n, s);
}

void lne_node_health_rescan(struct lne_node *n)
{
	struct lne_peer *p;
	struct lne_peer_net *pnet;
	struct lne_peer_ni *pni;
	struct lne_ni *ni;

	lne_list_for_each_entry(ni, &n->ln->nis, all_link)
		rescan_one(n, &ni->nid, ni->health, true);
	lne_list_for_each_entry(p, &n->ln->peers, link)
		lne_list_for_each_entry(pnet, &p->pnets, link)
			lne_list_for_each_entry(pni, &pnet->pnis, pnet_link)
				rescan_one(n, &pni->nid, pni->health, false);
}

/* --- recovery ------------------------------------------------------------ */

static void recovery_unlink(struct lne_node *n, struct lne_stat *s)
{
	struct lne_stat **pp;

	for (pp = &n->recq; *pp; pp = &(*pp)->h.rnext)
		if (*pp == s) {
			*pp = s->h.rnext;
			break;
		}
	s->h.rnext = NULL;
	s->h.queued = false;
}

static void recovery_done(struct lne_msg *m, int status)
{
	struct lne_node *n = m->node;
	struct lne_stat *s = m->arg;

	s->h.pinging = false;
	n->st.recovery_pings++;
	if (!status) {
		health_up(n, s, true);
		s->h.ping_count = 0;
		s->h.since_ms = n->now_ms;
		return; /* the next tick takes it off the queue */
	}
	s->h.ping_count++;
	s->h.next_ping_ms = n->now_ms + ping_wait_ms(n, s->h.ping_count);
}

/* The local NI a peer NI's recovery ping leaves from: the healthiest up on its net. */
static struct lne_ni *ping_src(struct lne_node *n, struct lne_peer_ni *pni)
{
	struct lne_net *net = pni->pnet->rnet->local;
	struct lne_ni *ni, *best = NULL;

	if (!net)
		return NULL;
	lne_list_for_each_entry(ni, &net->nis, link)
		if (ni->up && (!best || ni->health > best->health))
			best = ni;
	return best;
}

int lne_nd_recovery_path(struct lne_node *n, struct lne_msg *m, struct lne_ni **ni,
			 struct lne_peer_ni **pni)
{
	struct lne_nid dst;
	u64 k;

	*pni = NULL;
	*ni = lne_ni_find(n->ln, &m->ni);
	if (!*ni || !(*ni)->up)
		return -ENETDOWN;
	if (!lne_node_key(n, &(*ni)->nid, &k) && k == m->target)
		return 0; /* the NI itself */
	lne_node_nid(n, m->target, &dst);
	*pni = lne_peer_ni_find(n->ln, &dst);
	if (!*pni || (*pni)->pnet->rnet->local != (*ni)->net)
		return -EHOSTUNREACH;
	return 0;
}

static void recovery_ping(struct lne_node *n, struct lne_stat *s)
{
	struct lne_nid dst, src;

	lne_node_nid(n, s->nid, &dst);
	if (s->local) {
		struct lne_ni *ni = lne_ni_find(n->ln, &dst);

		if (!ni->up)
			return; /* a link that is down waits for its up event */
		src = dst;
	} else {
		struct lne_ni *ni = ping_src(n, lne_peer_ni_find(n->ln, &dst));

		if (!ni) {
			s->h.next_ping_ms = n->now_ms + ping_wait_ms(n, s->h.ping_count);
			return;
		}
		src = ni->nid;
	}
	s->h.pinging = true;
	if (lne_nd_ping_recovery(n, &dst, &src, lne_node_lnd_timeout(n->ln) * 1000, recovery_done,
				 s))
		s->h.pinging = false;
}

void lne_nd_recovery_tick(struct lne_node *n)
{
	u64 limit = (u64)n->ln->globals[LNE_G_RECOVERY_LIMIT] * 1000;
	struct lne_stat *s = n->recq, *next;

	for (; s; s = next) {
		s32 *h = health_of(n, s);

		next = s->h.rnext;
		if (s->h.pinging)
			continue;
		if (!h || *h >= LNE_HEALTH_MAX ||
		    (!s->local && limit && n->now_ms > s->h.since_ms + limit)) {
			recovery_unlink(n, s);
			if (h)
				tell(n, s, *h >= LNE_HEALTH_MAX ? "healthy" : "unreachable");
			continue;
		}
		if (n->now_ms >= s->h.next_ping_ms)
			recovery_ping(n, s);
	}
}

u64 lne_nd_recovery_deadline(const struct lne_node *n)
{
	const struct lne_stat *s;
	u64 best = ~0ull;

	/* an NI whose link is down is pinged when it comes up (link_change), not by a tick */
	for (s = n->recq; s; s = s->h.rnext)
		if (!s->h.pinging && !(s->local && s->h.down) && s->h.next_ping_ms < best)
			best = s->h.next_ping_ms;
	return best;
}

/* Act on local NI @ni's link going down or up, once per change the node sees. */
static int link_change(struct lne_node *n, struct lne_ni *ni, u64 k, bool up)
{
	struct lne_stat *self = lne_nd_stat_get(n, k, true), *s;

	if (!self)
		return -ENOMEM;
	if (self->h.down == !up && ni->up == up)
		return 0;
	ni->up = up;
	n->nis_dirty = true; /* its ping info status changes: tell the peers */
	self->h.down = !up;
	if (!up) {
		ni->health = 0;
		tell(n, self, "down");
		lne_nd_close_ni(n, k);
		if (ni->nid.lnd == LNE_LND_TCP) /* the others cannot be pinged: see below */
			recovery_queue(n, self);
		return 0;
	}
	/*
	 * The data path carries socklnd only: an NI of another LND (o2ib, ...)
	 * cannot be pinged back, so its link coming up is all the proof there
	 * is (else it would stay at health 0 for ever).
	 */
	if (ni->nid.lnd != LNE_LND_TCP) {
		ni->health = LNE_HEALTH_MAX;
		tell(n, self, "healthy");
		return 0;
	}
	/*
	 * Ping at once: the NI, which selection passes over until it is at full
	 * health, and the peer NIs on its net that wait in recovery, since the
	 * paths to them may have gone through this link (their backoff grew
	 * while it was down).
	 */
	for (s = n->recq; s; s = s->h.rnext) {
		struct lne_peer_ni *pni;
		struct lne_nid pn;

		lne_node_nid(n, s->nid, &pn);
		pni = s->local ? NULL : lne_peer_ni_find(n->ln, &pn);
		if (!s->local && (!pni || pni->pnet->rnet->local != ni->net))
			continue;
		s->h.ping_count = 0;
		s->h.next_ping_ms = n->now_ms;
	}
	self->h.ping_count = 0;
	self->h.next_ping_ms = n->now_ms;
	recovery_queue(n, self);
	lne_nd_recovery_tick(n);
	return 0;
}

int lne_node_ni_link(struct lne_node *n, const struct lne_nid *nid, bool up, struct lne_err *err)
{
	struct lne_ni *ni = lne_ni_find(n->ln, nid);
	u64 k;

	if (!ni || lne_node_key(n, nid, &k))
		return lne_err_set(err, -ENOENT, NULL, -1, "no local NI has this NID");
	return link_change(n, ni, k, up);
}

void lne_node_links_sync(struct lne_node *n)
{
	struct lne_ni *ni;
	u64 k;

	lne_list_for_each_entry(ni, &n->ln->nis, all_link) {
		const struct lne_health *h = lne_node_health(n, &ni->nid);

		if ((h && h->down) != !ni->up && !lne_node_key(n, &ni->nid, &k))
			link_change(n, ni, k, ni->up);
	}
}

/*
 * sanity-lnet 253/254: a message of this node's that waited for credits
 * past its transaction deadline is dropped when its turn comes, not sent
 * (and counted as dropped, on the peer it was for); a message a router
 * passes on has no deadline here and always goes on (256).
 */
bool lne_nd_expired(struct lne_node *n, struct lne_msg *m)
{
	if (m->forward || !m->txn_deadline_ms || n->now_ms < m->txn_deadline_ms)
		return false;
	lne_nd_count_drop_nid(n, m->target, m->hdr.type, m->hdr.payload);
	lne_nd_finish(n, m, -ETIMEDOUT);
	return true;
}
