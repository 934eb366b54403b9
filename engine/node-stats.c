// SPDX-License-Identifier: GPL-2.0
/*
 * node-stats.c - the node's counters (node.h): by local NI and peer NI,
 * and every counter by name, as `stats show`, the D-Bus Counters call and
 * the module's LNETK_CMD_COUNTERS name them.
 */
#include "node-int.h"

/* Statistics, by nid4: local NIs and the peer NIs links go to. */
struct lne_stat *lne_nd_stat_get(struct lne_node *n, u64 nid, bool local)
{
	u32 b = lne_nd_stat_bucket(n, nid, local);
	struct lne_stat *s;

	for (s = n->stats[b]; s; s = s->hnext)
		if (s->nid == nid && s->local == local)
			return s;
	/* a key taken back (node-keys.c) names nobody now */
	if (lne_nidkey_is_large(nid) && !lne_nidkey_live(&n->keys, nid))
		return NULL;
	s = lne_zalloc(sizeof(*s));
	if (!s)
		return NULL;
	s->nid = nid;
	s->local = local;
	s->hnext = n->stats[b];
	n->stats[b] = s;
	n->nstats++;
	return s;
}

/*
 * Strangers' counters.  Every NID a link or message comes from gets an
 * entry, and a peer may claim a new NID on each connection (or route
 * messages from new ones through a router), so the entries of NIDs the
 * node does not know are freed once LNE_STAT_STRANGERS entries were made
 * since the last sweep.  Kept: a local NI's, a peer NI's (configured or
 * discovered; gateways are peer NIs), an open link's, a NID's discovery is
 * pinging, and counters in use (lne_nd_stat_busy).  Nothing else reads a
 * stranger's counters but the listings of all counters (D-Bus Counters,
 * metrics, the module's LNETK_CMD_COUNTERS).  The sweep runs where the
 * key sweep does, at the end of an input or tick, so no caller holds an
 * entry it frees; it costs one look per entry, once per
 * LNE_STAT_STRANGERS new ones.
 */
static void mark_linked(struct lne_node *n, u64 nid, bool local)
{
	struct lne_stat *s;

	for (s = n->stats[lne_nd_stat_bucket(n, nid, local)]; s; s = s->hnext)
		if (s->nid == nid && s->local == local)
			s->linked = true;
}

static bool stranger(struct lne_node *n, struct lne_stat *s)
{
	struct lne_nid nid;

	if (s->linked) {
		s->linked = false;
		return false;
	}
	if (lne_nd_stat_busy(s) || lne_nd_disc_busy(n, s->nid))
		return false;
	/* a key taken back names nobody: node-keys.c frees its entries anyway */
	if (lne_nidkey_is_large(s->nid) && !lne_nidkey_live(&n->keys, s->nid))
		return true;
	lne_node_nid(n, s->nid, &nid);
	return !lne_ni_find(n->ln, &nid) && !lne_peer_ni_find(n->ln, &nid);
}

void lne_nd_stats_sweep(struct lne_node *n)
{
	const struct lne_link *l;
	u32 b;

	if (n->nstats <= n->stats_kept + LNE_STAT_STRANGERS)
		return;
	for (b = 0; b < LNE_LINK_HASH; b++)
		for (l = n->links[b]; l; l = l->hnext) {
			mark_linked(n, l->peer, false);
			mark_linked(n, l->local, true);
		}
	for (b = 0; b < LNE_STAT_HASH; b++) {
		struct lne_stat **pp = &n->stats[b];

		while (*pp) {
			struct lne_stat *s = *pp;

			if (!stranger(n, s)) {
				pp = &s->hnext;
				continue;
			}
			*pp = s->hnext;
			lne_free(s);
			n->nstats--;
		}
	}
	n->stats_kept = n->nstats;
}

const struct lne_counts *lne_node_counts(const struct lne_node *n, const struct lne_nid *nid)
{
	u64 k;
	int local;

	if (lne_node_key_find(n, nid, &k))
		return NULL;
	for (local = 1; local >= 0; local--) {
		const struct lne_stat *s = n->stats[lne_nd_stat_bucket(n, k, local)];

		for (; s; s = s->hnext)
			if (s->nid == k && s->local == local)
				return &s->c;
	}
	return NULL;
}

void lne_node_stats_reset(struct lne_node *n)
{
	struct lne_stat *s;
	u32 b;

	memset(&n->st.c, 0, sizeof(n->st.c));
	n->st.errors = n->st.route_count = n->st.route_length = 0;
	memset(n->st.faults, 0, sizeof(n->st.faults));
	memset(&n->dst, 0, sizeof(n->dst));
	memset(n->st.hs, 0, sizeof(n->st.hs));
	n->st.resend_count = n->st.failed_resends = n->st.successful_resends = 0;
	n->st.response_timeout_count = n->st.recovery_pings = 0;
	n->st.router_pings = n->st.asym_drops = 0;
	for (b = 0; b < LNE_STAT_HASH; b++)
		for (s = n->stats[b]; s; s = s->hnext)
			memset(&s->c, 0, sizeof(s->c));
}

void lne_nd_count(struct lne_counts *c, bool send, u32 type, u32 bytes)
{
	if (!c || type > LNW_REPLY)
		return;
	if (send) {
		c->send_count++;
		c->send_length += bytes;
		c->sent[type]++;
	} else {
		c->recv_count++;
		c->recv_length += bytes;
		c->recvd[type]++;
	}
}

void lne_nd_count_drop(struct lne_node *n, struct lne_link *l, u32 type, u32 bytes)
{
	lne_nd_count_drop_nid(n, l ? l->peer : 0, type, bytes);
}

void lne_nd_count_drop_nid(struct lne_node *n, u64 peer, u32 type, u32 bytes)
{
	struct lne_stat *s = peer ? lne_nd_stat_get(n, peer, false) : NULL;

	n->st.c.drop_count++;
	n->st.c.drop_length += bytes;
	if (type <= LNW_REPLY)
		n->st.c.dropped[type]++;
	if (s) {
		s->c.drop_count++;
		s->c.drop_length += bytes;
		if (type <= LNW_REPLY)
			s->c.dropped[type]++;
	}
}

/* The counters by name, in the order `stats show` prints Lustre's. */
int lne_counts_each(const struct lne_counts *c, lne_count_fn fn, void *arg)
{
	static const char *const kinds[4][3] = {
		{"sent_ack", "received_ack", "dropped_ack"},
		{"sent_put", "received_put", "dropped_put"},
		{"sent_get", "received_get", "dropped_get"},
		{"sent_reply", "received_reply", "dropped_reply"},
	};
	int rc, t;

	rc = fn(arg, "send_count", c->send_count);
	if (rc >= 0)
		rc = fn(arg, "recv_count", c->recv_count);
	if (rc >= 0)
		rc = fn(arg, "drop_count", c->drop_count);
	if (rc >= 0)
		rc = fn(arg, "send_length", c->send_length);
	if (rc >= 0)
		rc = fn(arg, "recv_length", c->recv_length);
	if (rc >= 0)
		rc = fn(arg, "drop_length", c->drop_length);
	for (t = 0; rc >= 0 && t < 4; t++) {
		rc = fn(arg, kinds[t][0], c->sent[t]);
		if (rc >= 0)
			rc = fn(arg, kinds[t][1], c->recvd[t]);
		if (rc >= 0)
			rc = fn(arg, kinds[t][2], c->dropped[t]);
	}
	return rc;
}

int lne_node_stats_each(const struct lne_node *n, lne_count_fn fn, void *arg)
{
	/* each fault kind as a counter name (wire.h's enum lnw_fault) */
	static const char *const faults[LNW_F__COUNT] = {
		[LNW_F_MAGIC] = "fault_bad_magic",
		[LNW_F_VERSION] = "fault_unknown_version",
		[LNW_F_NID] = "fault_wrong_nid",
		[LNW_F_CTYPE] = "fault_unknown_connection_type",
		[LNW_F_MSGTYPE] = "fault_unknown_message_type",
		[LNW_F_LENGTH] = "fault_bad_payload_length",
		[LNW_F_FIELD] = "fault_field_out_of_range",
		[LNW_F_COOKIE] = "fault_unexpected_zero_copy_cookie",
		[LNW_F_UNMATCHED] = "fault_reply_to_nothing_sent",
	};
	const struct lne_node_stats *st = &n->st;
	int rc, f;

	rc = fn(arg, "msgs_alloc", st->msgs_alloc);
	if (rc >= 0)
		rc = fn(arg, "msgs_max", st->msgs_max);
	if (rc >= 0)
		rc = fn(arg, "errors", st->errors);
	if (rc >= 0)
		rc = fn(arg, "route_count", st->route_count);
	if (rc >= 0)
		rc = fn(arg, "route_length", st->route_length);
	if (rc >= 0)
		rc = fn(arg, "connections_made", st->links_made);
	if (rc >= 0)
		rc = fn(arg, "connections_accepted", st->links_accepted);
	if (rc >= 0)
		rc = fn(arg, "connections_closed", st->links_closed);
	if (rc >= 0)
		rc = fn(arg, "test_puts", st->test_puts);
	if (rc >= 0)
		rc = fn(arg, "test_gets", st->test_gets);
	if (rc >= 0)
		rc = lne_nd_health_stats_each(n, fn, arg);
	for (f = 1; rc >= 0 && f < LNW_F__COUNT; f++)
		rc = fn(arg, faults[f], st->faults[f]);
	for (f = 0; rc >= 0 && f < LNE_RB__COUNT; f++) {
		static const char *const names[LNE_RB__COUNT][3] = {
			{"router_tiny_in_use", "router_tiny_waiting", "router_tiny_peak"},
			{"router_small_in_use", "router_small_waiting", "router_small_peak"},
			{"router_large_in_use", "router_large_waiting", "router_large_peak"},
		};

		rc = fn(arg, names[f][0], n->rtr[f].used);
		if (rc >= 0)
			rc = fn(arg, names[f][1], n->rtr[f].queued);
		if (rc >= 0)
			rc = fn(arg, names[f][2], n->rtr[f].peak);
	}
	return rc < 0 ? rc : lne_node_disc_stats_each(n, fn, arg);
}
