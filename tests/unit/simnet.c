// SPDX-License-Identifier: GPL-2.0
/* simnet.c - in-memory links for the data path's unit tests (simnet.h). */
#include "simnet.h"

#include <check.h>

static struct lne_link *sim_link_new(void *ctx)
{
	struct simnode *sn = ctx;
	struct simlink *sl = calloc(1, sizeof(*sl));

	ck_assert_ptr_nonnull(sl);
	sl->owner = sn;
	sl->next = sn->net->links;
	sn->net->links = sl;
	return &sl->l;
}

/* The node with the NI whose key (on @from) is @key. */
static struct simnode *owner_of(struct simnet *s, const struct simnode *from, u64 key)
{
	struct lne_nid nid;
	int i;

	lne_node_nid(&from->node, key, &nid);
	for (i = 0; i < s->n; i++)
		if (lne_ni_find(s->nodes[i]->ln, &nid))
			return s->nodes[i];
	return NULL;
}

static bool is_cut(const struct simnet *s, u64 nid4)
{
	int i;

	for (i = 0; i < s->ncut; i++)
		if (s->cut[i] == nid4)
			return true;
	return false;
}

static bool sim_connect(void *ctx, struct lne_link *l)
{
	struct simnode *sn = ctx;
	struct simnode *to = owner_of(sn->net, sn, l->peer);
	struct simlink *a = (struct simlink *)l, *b;

	if (!to || is_cut(sn->net, l->local) || is_cut(sn->net, l->peer))
		return false; /* connection refused */
	b = (struct simlink *)sim_link_new(to);
	lne_node_accepted(&to->node, &b->l);
	a->other = b;
	b->other = a;
	return true;
}

static void sim_wake(void *ctx, struct lne_link *l)
{
	(void)ctx;
	(void)l;
}

static void sim_close(void *ctx, struct lne_link *l)
{
	(void)ctx;
	((struct simlink *)l)->closed = true;
}

static void sim_recv(void *ctx, const struct lnw_hdr *h, const u8 *payload)
{
	struct simnode *sn = ctx;

	(void)payload;
	if (h->type == LNW_PUT)
		sn->recv_puts++;
}

static void sim_state(void *ctx, const struct lne_nid *nid, bool local, const char *state,
		      s32 health)
{
	struct simnode *sn = ctx;
	char buf[LNE_NID_STR_MAX];
	size_t len = strlen(sn->states);

	(void)local;
	(void)health;
	lne_nid_format(nid, buf, sizeof(buf));
	snprintf(sn->states + len, sizeof(sn->states) - len, "%s %s;", buf, state);
}

static void sim_route(void *ctx, lne_net_t net, const struct lne_nid *gw, bool up)
{
	struct simnode *sn = ctx;
	char ns[LNE_NET_STR_MAX], gs[LNE_NID_STR_MAX];
	size_t len = strlen(sn->routes);

	lne_net_format(net, ns, sizeof(ns));
	lne_nid_format(gw, gs, sizeof(gs));
	snprintf(sn->routes + len, sizeof(sn->routes) - len, "%s %s %s;", ns, gs,
		 up ? "up" : "down");
}

static void sim_discovered(void *ctx, const struct lne_peer *peer)
{
	struct simnode *sn = ctx;

	(void)peer;
	sn->discovered++;
}

static void sim_log(void *ctx, const char *line)
{
	(void)line;
	((struct simnode *)ctx)->logs++;
}

static bool sim_model_write(void *ctx, bool begin)
{
	return !begin || !((struct simnode *)ctx)->busy;
}

static s32 sim_cpt(void *ctx)
{
	return ((struct simnode *)ctx)->cpt;
}

static const struct lne_node_ops sim_ops = {
	.cpt = sim_cpt,
	.state = sim_state,
	.route = sim_route,
	.discovered = sim_discovered,
	.log = sim_log,
	.model_write = sim_model_write,
	.link_new = sim_link_new,
	.connect = sim_connect,
	.wake = sim_wake,
	.close = sim_close,
	.recv = sim_recv,
};

void simnet_init(struct simnet *s, size_t chunk)
{
	memset(s, 0, sizeof(*s));
	s->chunk = chunk;
	s->now_ms = 1000;
}

struct simnode *simnet_node(struct simnet *s, const char *const *nids)
{
	struct simnode *sn = calloc(1, sizeof(*sn));
	struct lne_err err;

	ck_assert_ptr_nonnull(sn);
	ck_assert_int_lt(s->n, SIM_NODES_MAX);
	sn->ln = lne_inst_new();
	sn->net = s;
	sn->cpt = LNE_CPT_ANY;
	for (; *nids; nids++) {
		struct lne_ni_conf c = {.dev_cpt = LNE_CPT_ANY};

		ck_assert_msg(!lne_nid_parse(*nids, &c.nid, &err), "%s", err.msg);
		ck_assert_msg(!lne_ni_add(sn->ln, &c, &err), "%s", err.msg);
	}
	/* the data path's tests count every message: discovery's tests turn it on */
	ck_assert_int_eq(lne_global_set(sn->ln, LNE_G_DISCOVERY, 0, NULL), 0);
	sn->inc = 0x1000 + (u64)s->n;
	lne_node_init(&sn->node, sn->ln, &sim_ops, sn, sn->inc);
	sn->node.now_ms = s->now_ms;
	s->nodes[s->n++] = sn;
	return sn;
}

void simnet_pair(struct simnet *s, size_t chunk, const char *const *an, const char *const *bn,
		 bool discovery, struct simnode **a, struct simnode **b)
{
	simnet_init(s, chunk);
	*a = simnet_node(s, an);
	*b = simnet_node(s, bn);
	ck_assert_int_eq(lne_global_set((*a)->ln, LNE_G_DISCOVERY, discovery, NULL), 0);
	ck_assert_int_eq(lne_global_set((*b)->ln, LNE_G_DISCOVERY, discovery, NULL), 0);
}

static void close_pair(struct simlink *a, int err)
{
	struct simlink *b = a->other;

	if (!a->closed) {
		a->closed = true;
		lne_node_closed(&a->owner->node, &a->l, err);
	}
	if (b && !b->closed) {
		b->closed = true;
		lne_node_closed(&b->owner->node, &b->l, err);
	}
}

size_t simnet_pump(struct simnet *s)
{
	size_t total = 0, moved;
	u8 buf[4096];

	do {
		struct simlink *a;

		moved = 0;
		for (a = s->links; a; a = a->next) {
			struct lne_iov iov[8];
			size_t n = 0, want = s->chunk < sizeof(buf) ? s->chunk : sizeof(buf);
			int k, i, rc;

			if (a->closed || !a->other || a->other->closed || a->other->owner->paused)
				continue;
			k = lne_conn_tx_iov(&a->l.conn, iov, 8);
			for (i = 0; i < k && n < want; i++) {
				size_t c = iov[i].len < want - n ? iov[i].len : want - n;

				memcpy(buf + n, iov[i].base, c);
				n += c;
			}
			if (!n)
				continue;
			lne_node_sent(&a->owner->node, &a->l, n);
			moved += n;
			if (a->other->owner->mute)
				continue; /* a black hole: it takes bytes and never reads them */
			rc = lne_node_input(&a->other->owner->node, &a->other->l, buf, n);
			if (rc < 0)
				close_pair(a, rc);
		}
		total += moved;
	} while (moved);
	return total;
}

void simnet_advance(struct simnet *s, u64 ms)
{
	int i;

	s->now_ms += ms;
	for (i = 0; i < s->n; i++)
		lne_node_tick(&s->nodes[i]->node, s->now_ms);
}

void simnet_restart(struct simnet *s, struct simnode *sn)
{
	struct simlink *a;

	lne_node_fini(&sn->node); /* closes its ends */
	/* what discovery learnt is runtime only: it goes with the process */
	for (;;) {
		struct lne_peer *p, *found = NULL;
		struct lne_nid prim;

		lne_list_for_each_entry(p, &sn->ln->peers, link)
			if (p->discovered)
				found = p;
		if (!found)
			break;
		prim = found->primary;
		ck_assert_int_eq(lne_peer_del(sn->ln, &prim, NULL), 0);
	}
	sn->inc += 0x100000;
	lne_node_init(&sn->node, sn->ln, &sim_ops, sn, sn->inc);
	sn->node.now_ms = s->now_ms;
	/* then the other ends hear of it (and may connect again at once) */
	for (a = s->links; a; a = a->next)
		if (a->owner == sn)
			close_pair(a, -ECONNRESET);
}

int simnet_inject(struct simnet *s, struct simnode *to, const void *bytes, size_t len)
{
	struct simlink *b = (struct simlink *)sim_link_new(to);
	int rc;

	(void)s;
	lne_node_accepted(&to->node, &b->l);
	rc = lne_node_input(&to->node, &b->l, bytes, len);
	if (rc < 0 && !b->closed) {
		b->closed = true;
		lne_node_closed(&to->node, &b->l, rc);
	}
	return rc;
}

size_t simnet_hello16(u8 *buf, const struct lne_nid *to, const struct lne_nid *from)
{
	struct lnw_hello h = {.version = 4, .ctype = 1};

	lnw_connreq16_pack(to, buf);
	lnw_hello16_pack(&h, from, to, buf + LNW_CONNREQ16_SIZE);
	return LNW_CONNREQ16_SIZE + LNW_HELLO16_SIZE;
}

struct lne_nid simnet_nid(const char *s)
{
	struct lne_nid nid;

	ck_assert_msg(!lne_nid_parse(s, &nid, NULL), "%s", s);
	return nid;
}

void simnet_peer(struct simnode *n, const char *const *nids)
{
	struct lne_nid prim = simnet_nid(nids[0]);
	struct lne_err err;

	ck_assert_msg(!lne_peer_add(n->ln,
				    &(struct lne_peer_conf){.primary = prim, .multi_rail = true},
				    &err),
		      "%s", err.msg);
	for (nids++; *nids; nids++) {
		struct lne_nid x = simnet_nid(*nids);

		ck_assert_msg(!lne_peer_add_nid(n->ln, &prim, &x, &err), "%s", err.msg);
	}
}

void simnet_cut(struct simnet *s, const char *nid, bool cut)
{
	struct lne_nid n;
	struct simlink *a;
	u64 k;
	int i;

	ck_assert(!lne_nid_parse(nid, &n, NULL) && !lnw_nid4(&n, &k));
	for (i = 0; i < s->ncut && s->cut[i] != k; i++)
		;
	if (!cut) {
		if (i < s->ncut)
			s->cut[i] = s->cut[--s->ncut];
		return;
	}
	if (i == s->ncut) {
		ck_assert_int_lt(s->ncut, 16);
		s->cut[s->ncut++] = k;
	}
	for (a = s->links; a; a = a->next)
		if (!a->closed && (a->l.local == k || a->l.peer == k))
			close_pair(a, -ECONNRESET);
}

void simnet_fini(struct simnet *s)
{
	struct simlink *a, *next;
	int i;

	for (i = 0; i < s->n; i++) {
		lne_node_fini(&s->nodes[i]->node);
		lne_inst_free(s->nodes[i]->ln);
		free(s->nodes[i]);
	}
	for (a = s->links; a; a = next) {
		next = a->next;
		free(a);
	}
}

static void ping_done(struct lne_msg *m, int status)
{
	int *r = m->arg;

	*r = status;
}

int simnet_ping(struct simnet *s, struct simnode *from, const char *to)
{
	struct lne_nid dst = simnet_nid(to);
	int r = 1;

	ck_assert_int_eq(lne_node_ping(&from->node, &dst, NULL, 1000, ping_done, &r, NULL), 0);
	simnet_pump(s);
	return r;
}
