// SPDX-License-Identifier: GPL-2.0
/*
 * lu-nl-ops.c - the objects lnet.ko 2.16 and later serve over its genl
 * family "lnet": configure, NIs, and the peers, routes and pings that
 * carry a large (IPv6) NID, which /dev/lnet cannot (lu-dispatch.c decides).
 *
 * Requests are built here in buffers that grow as needed (never libnl's
 * 4 KiB page that stops upstream's lnetctl at ~25 peers); replies are read
 * with lu-yaml.c.  What the kernel's handlers do, read from 2.16.1 and
 * 2.17.57, and why some objects stay on /dev/lnet:
 *  - PEERS with NLM_F_CREATE creates the primary NID as a Multi-Rail peer
 *    before it reads "Multi-Rail" (which it then forgets per attribute),
 *    so a non-Multi-Rail peer cannot be made over netlink; and when a later
 *    step fails it deletes the primary's peer, even one that was there
 *    before.  So peers go over netlink only when a NID is large, and only
 *    Multi-Rail ones;
 *  - a peer dump is one reply buffer whose size lnet.ko never checks: it
 *    dereferences NULL when a peer does not fit (below), so peers are
 *    dumped one at a time and never unfiltered; a dump filtered by several
 *    primaries fails as a whole (-ENOENT) when one is missing;
 *  - a route dump and a NET dump are small; a route's health sensitivity
 *    is parsed by neither side.
 */
#include <sys/socket.h>
#include <sys/time.h>

#include "lu-yaml.h"

static int msg_new(struct lu *lu, struct lu_msg *m, u16 flags, u8 cmd, u8 version)
{
	return lu_msg_init(m, lu->info.genl_id, flags, cmd, version);
}

static int request(struct lu *lu, struct lu_msg *m, struct lu_ydump *d, const char *input,
		   const char *what, struct lne_err *err)
{
	int rc = lu_nl_request(lu, m, d ? lu_ydump_cb : NULL, d, input, what, err);

	lu_msg_free(m);
	if (!rc && d && d->err)
		rc = lne_err_set(err, d->err, input, -1,
				 "lnet.ko %s answered %s in a form this library cannot read",
				 lu->vname, what);
	return rc;
}

int lu_nl_configure(struct lu *lu, bool up, struct lne_err *err)
{
	struct lu_msg m;
	int rc;

	/*
	 * NLM_F_EXCL: not the module parameters' nets, lnetd adds its own;
	 * NLM_F_APPEND: large NIDs, so that the LNDs see IPv6 addresses
	 */
	if (msg_new(lu, &m, up ? NLM_F_CREATE | NLM_F_EXCL | NLM_F_APPEND : 0, LU_CMD_CONFIGURE, 0))
		return lne_err_set(err, -ENOMEM, NULL, -1, "out of memory");
	rc = request(lu, &m, NULL, NULL, up ? "bring LNet up" : "take LNet down", err);
	if (rc == -EBUSY && !up)
		return lne_err_set(err, rc, NULL, -1,
				   "lnet.ko %s keeps LNet up: Lustre holds it (a mount or a "
				   "service), and it stays so until that ends",
				   lu->vname);
	return rc;
}

/* --- NIs ----------------------------------------------------------------------- */

int lu_nl_ni_add(struct lu *lu, const struct lu_ni *ni, struct lne_err *err)
{
	char s[LNE_NID_STR_MAX + LNE_IFNAME_MAX + 8], net[LNE_NET_STR_MAX], n[LNE_NID_STR_MAX];
	size_t top, item, nis, one, blk;
	struct lu_msg m;
	int rc, i;

	lne_net_format(lne_nid_net(&ni->nid), net, sizeof(net));
	snprintf(s, sizeof(s), "%s%s%s", net, ni->ifname[0] ? " on " : "", ni->ifname);
	rc = lu_ni_check(lu, ni, s, err);
	if (rc)
		return rc;
	if (msg_new(lu, &m, NLM_F_CREATE, LU_CMD_NETS, 0))
		return lne_err_set(err, -ENOMEM, NULL, -1, "out of memory");
	top = lu_y_list(&m);
	item = lu_y_list(&m);
	lu_y_str(&m, "net type", net);
	lu_y_key(&m, "local NI(s)");
	nis = lu_y_list(&m);
	one = lu_y_list(&m);
	if (ni->ifname[0]) {
		lu_y_key(&m, "interfaces");
		blk = lu_y_list(&m);
		lu_y_str(&m, "0", ni->ifname);
		lu_msg_nest_end(&m, blk);
	}
	/* an IPv6 NI is named by its address: the interface's IPv4 one would be taken */
	if (ni->nid.alen == 16)
		lu_y_str(&m, "nid", lu_nidstr(&ni->nid, n));
	lu_y_key(&m, "tunables");
	blk = lu_y_list(&m);
	lu_y_int(&m, "peer_timeout", ni->tun.peer_timeout);
	lu_y_int(&m, "peer_credits", ni->tun.peer_credits);
	lu_y_int(&m, "peer_buffer_credits", ni->tun.peer_buffer_credits);
	lu_y_int(&m, "credits", ni->tun.credits);
	lu_msg_nest_end(&m, blk);
	if (ni->nid.lnd == LNE_LND_TCP || ni->nid.lnd == LNE_LND_O2IB) {
		lu_y_key(&m, "lnd tunables");
		blk = lu_y_list(&m);
		lu_y_int(&m, "conns_per_peer", ni->tun.conns_per_peer ? ni->tun.conns_per_peer : 1);
		if (ni->tun.tos != LNE_TUN_OFF)
			lu_y_int(&m, "tos", ni->tun.tos);
		lu_msg_nest_end(&m, blk);
	}
	if (ni->cpts) {
		lu_y_key(&m, "CPT");
		blk = lu_y_list(&m);
		for (i = 0; i < 64; i++)
			if (ni->cpts & (1ull << i))
				lu_msg_put_s64(&m, LU_YA_INT_VALUE, i);
		lu_msg_nest_end(&m, blk);
	}
	lu_msg_nest_end(&m, one);
	lu_msg_nest_end(&m, nis);
	lu_msg_nest_end(&m, item);
	lu_msg_nest_end(&m, top);
	return request(lu, &m, NULL, s, "add the NI", err);
}

int lu_nl_ni_del(struct lu *lu, const struct lne_nid *nid, struct lne_err *err)
{
	char net[LNE_NET_STR_MAX], n[LNE_NID_STR_MAX];
	size_t top, item, nis, one;
	static const u8 zero[16];
	struct lu_msg m;

	lne_net_format(lne_nid_net(nid), net, sizeof(net));
	lu_nidstr(nid, n);
	if (msg_new(lu, &m, 0, LU_CMD_NETS, 0))
		return lne_err_set(err, -ENOMEM, NULL, -1, "out of memory");
	top = lu_y_list(&m);
	item = lu_y_list(&m);
	lu_y_str(&m, "net type", net);
	/* no NI: the whole net */
	if (memcmp(nid->addr, zero, nid->alen)) {
		lu_y_key(&m, "local NI(s)");
		nis = lu_y_list(&m);
		one = lu_y_list(&m);
		lu_y_str(&m, "nid", n);
		lu_msg_nest_end(&m, one);
		lu_msg_nest_end(&m, nis);
	}
	lu_msg_nest_end(&m, item);
	lu_msg_nest_end(&m, top);
	return request(lu, &m, NULL, n, "delete the NI", err);
}

struct ni_list {
	struct lu_ni *nis;
	size_t n, cap;
	u64 all; /* the CPTs 0@lo spans */
};

/* "\"[0,1]\"" (lnet.ko's text) into a set of CPTs. */
static u64 cpt_set(const char *s)
{
	u64 set = 0;

	while (s && *s) {
		if (*s >= '0' && *s <= '9') {
			unsigned long c = strtoul(s, (char **)&s, 10);

			if (c < 64)
				set |= 1ull << c;
		} else {
			s++;
		}
	}
	return set;
}

static u32 num(const struct lu_yfield *f, u32 def)
{
	return f && f->num_ok ? (u32)f->num : def;
}

static int ni_cb(const struct lu_ymap *m, void *arg)
{
	const struct lu_yfield *local = lu_yget(m, "local NI(s)"), *f;
	struct ni_list *l = arg;
	u32 i;

	for (i = 0; local && i < local->nitems; i++) {
		const struct lu_ymap *x = &local->items[i];
		struct lu_ni ni;

		memset(&ni, 0, sizeof(ni));
		f = lu_yget(x, "nid");
		if (!f || !f->str || lne_nid_parse(f->str, &ni.nid, NULL))
			continue;
		f = lu_yget(x, "CPT");
		ni.cpts = cpt_set(f ? f->str : NULL);
		if (ni.nid.lnd == LNE_LND_LO) {
			l->all = ni.cpts;
			continue;
		}
		f = lu_yget_in(x, "interfaces", "0");
		if (f && f->str)
			snprintf(ni.ifname, sizeof(ni.ifname), "%s", f->str);
		f = lu_yget(x, "status");
		ni.up = f && f->str && !strcmp(f->str, "up");
		f = lu_yget(x, "dev cpt");
		ni.dev_cpt = f && f->num_ok ? (s16)f->num : -1;
		lne_tunables_default(ni.nid.lnd, &ni.tun);
		ni.tun.peer_timeout = num(lu_yget_in(x, "tunables", "peer_timeout"), 0);
		ni.tun.peer_credits = num(lu_yget_in(x, "tunables", "peer_credits"), 0);
		ni.tun.peer_buffer_credits =
			num(lu_yget_in(x, "tunables", "peer_buffer_credits"), 0);
		ni.tun.credits = num(lu_yget_in(x, "tunables", "credits"), 0);
		ni.tun.conns_per_peer =
			num(lu_yget_in(x, "lnd tunables", "conns_per_peer"), ni.tun.conns_per_peer);
		f = lu_yget_in(x, "lnd tunables", "tos");
		if (f && f->num_ok)
			ni.tun.tos = f->num < 0 ? LNE_TUN_OFF : (u32)f->num;
		ni.tun.timeout = 0;
		ni.send = num(lu_yget_in(x, "statistics", "send_count"), 0);
		ni.recv = num(lu_yget_in(x, "statistics", "recv_count"), 0);
		ni.drop = num(lu_yget_in(x, "statistics", "drop_count"), 0);
		if (l->n == l->cap) {
			struct lu_ni *n =
				lne_realloc_array(l->nis, l->cap ? l->cap * 2 : 8, sizeof(*n));

			if (!n)
				return -ENOMEM;
			l->nis = n;
			l->cap = l->cap ? l->cap * 2 : 8;
		}
		l->nis[l->n++] = ni;
	}
	return 0;
}

/* The nets' names, from a version 0 dump (some 80 bytes an NI). */
struct nets {
	char (*name)[LNE_NET_STR_MAX];
	size_t n, cap;
};

static int nets_cb(const struct lu_ymap *m, void *arg)
{
	const struct lu_yfield *f = lu_yget(m, "net type");
	struct nets *l = arg;

	if (!f || !f->str || strlen(f->str) >= LNE_NET_STR_MAX)
		return 0;
	if (l->n == l->cap) {
		void *nn = lne_realloc_array(l->name, l->cap ? l->cap * 2 : 8, sizeof(*l->name));

		if (!nn)
			return -ENOMEM;
		l->name = nn;
		l->cap = l->cap ? l->cap * 2 : 8;
	}
	snprintf(l->name[l->n++], LNE_NET_STR_MAX, "%s", f->str);
	return 0;
}

/*
 * Every NI: the nets from a version 0 dump, then each net's NIs with
 * their tunables and CPTs from a version 1 dump filtered by it.  A NET dump
 * is one buffer of 64 KiB whose nests lnet.ko never checks: one net at a
 * time keeps a version 1 reply (about 600 bytes an NI) inside it up to
 * some 100 NIs on a net.
 */
int lu_nl_ni_list(struct lu *lu, struct lu_ni **out, size_t *nout, struct lne_err *err)
{
	struct ni_list l = {0};
	struct nets nets = {0};
	struct lu_ydump d;
	struct lu_msg m;
	size_t i;
	int rc;

	*out = NULL;
	*nout = 0;
	if (msg_new(lu, &m, NLM_F_DUMP, LU_CMD_NETS, 0))
		return lne_err_set(err, -ENOMEM, NULL, -1, "out of memory");
	lu_ydump_init(&d, nets_cb, &nets);
	rc = request(lu, &m, &d, NULL, "list its nets", err);
	lu_ydump_free(&d);
	for (i = 0; !rc && i < nets.n; i++) {
		size_t top, item;

		if (msg_new(lu, &m, NLM_F_DUMP, LU_CMD_NETS, 1)) {
			rc = lne_err_set(err, -ENOMEM, NULL, -1, "out of memory");
			break;
		}
		top = lu_y_list(&m);
		item = lu_y_list(&m);
		lu_y_str(&m, "net type", nets.name[i]);
		lu_msg_nest_end(&m, item);
		lu_msg_nest_end(&m, top);
		lu_ydump_init(&d, ni_cb, &l);
		rc = request(lu, &m, &d, nets.name[i], "list its NIs", err);
		lu_ydump_free(&d);
	}
	free(nets.name);
	if (rc) {
		free(l.nis);
		return rc;
	}
	for (i = 0; i < l.n; i++)
		if (l.nis[i].cpts == l.all)
			l.nis[i].cpts = 0;
	*out = l.nis;
	*nout = l.n;
	return 0;
}

/* --- peers with a large NID ------------------------------------------------- */

static void peer_body(struct lu_msg *m, const struct lne_nid *primary, bool mr,
		      const struct lne_nid *nids, size_t n, bool with_mr)
{
	char s[LNE_NID_STR_MAX];
	size_t top, item, list, one, i;

	top = lu_y_list(m);
	item = lu_y_list(m);
	lu_y_str(m, "primary nid", lu_nidstr(primary, s));
	if (with_mr)
		lu_y_int(m, "Multi-Rail", mr);
	if (n) {
		lu_y_key(m, "peer ni");
		list = lu_y_list(m);
		for (i = 0; i < n; i++) {
			if (lne_nid_equal(&nids[i], primary))
				continue;
			one = lu_y_list(m);
			lu_y_str(m, "nid", lu_nidstr(&nids[i], s));
			lu_msg_nest_end(m, one);
		}
		lu_msg_nest_end(m, list);
	}
	lu_msg_nest_end(m, item);
	lu_msg_nest_end(m, top);
}

int lu_nl_peer_add(struct lu *lu, const struct lne_nid *primary, bool mr, bool lock_prim,
		   const struct lne_nid *nids, size_t n, struct lne_err *err)
{
	char s[LNE_NID_STR_MAX];
	struct lu_msg m;
	size_t i, others = 0;

	lu_nidstr(primary, s);
	if (!mr)
		return lne_err_set(err, -EOPNOTSUPP, s, -1,
				   "lnet.ko %s makes every peer Multi-Rail over netlink, the only "
				   "way it takes IPv6 NIDs",
				   lu->vname);
	for (i = 0; i < n; i++)
		others += !lne_nid_equal(&nids[i], primary);
	if (msg_new(lu, &m, NLM_F_CREATE | (lock_prim ? NLM_F_EXCL : 0), LU_CMD_PEERS, 0))
		return lne_err_set(err, -ENOMEM, NULL, -1, "out of memory");
	peer_body(&m, primary, mr, nids, others ? n : 0, true);
	return request(lu, &m, NULL, s, "add the peer", err);
}

int lu_nl_peer_del(struct lu *lu, const struct lne_nid *primary, const struct lne_nid *nids,
		   size_t n, struct lne_err *err)
{
	char s[LNE_NID_STR_MAX];
	struct lu_msg m;

	lu_nidstr(primary, s);
	/* NLM_F_EXCL: forced, so a locked primary goes too */
	if (msg_new(lu, &m, n ? 0 : NLM_F_EXCL, LU_CMD_PEERS, 0))
		return lne_err_set(err, -ENOMEM, NULL, -1, "out of memory");
	peer_body(&m, primary, true, nids, n, false);
	return request(lu, &m, NULL, s, n ? "delete the NIDs from the peer" : "delete the peer",
		       err);
}

struct peer_walk {
	int (*fn)(const struct lu_peer *p, void *arg);
	void *arg;
	bool unused;
};

static int peer_cb(const struct lu_ymap *m, void *arg)
{
	const struct lu_yfield *f = lu_yget(m, "primary nid"), *pl = lu_yget(m, "peer ni");
	struct peer_walk *w = arg;
	struct lu_peer p;
	u32 i;
	int rc;

	memset(&p, 0, sizeof(p));
	if (!f || !f->str || lne_nid_parse(f->str, &p.primary, NULL))
		return 0;
	p.mr = lu_yget(m, "Multi-Rail") != NULL;
	f = lu_yget(m, "peer state");
	p.state = num(f, 0);
	p.state_known = f != NULL;
	p.configured = p.state & LU_PEER_CONFIGURED;
	p.lock_prim = p.state & LU_PEER_LOCK_PRIMARY;
	p.nids = calloc(pl && pl->nitems ? pl->nitems : 1, sizeof(*p.nids));
	if (!p.nids)
		return -ENOMEM;
	for (i = 0; pl && i < pl->nitems; i++) {
		f = lu_yget(&pl->items[i], "nid");
		if (f && f->str && !lne_nid_parse(f->str, &p.nids[p.n], NULL))
			p.n++;
	}
	rc = w->fn(&p, w->arg);
	free(p.nids);
	return rc;
}

/*
 * One peer as a netlink dump filtered by its primary NID, trimmed
 * (NLM_F_DUMP_FILTERED) of per-NID states.  lnet.ko does not check that
 * its attributes fit the dump's one buffer: a nest that does not fit
 * comes back NULL and is closed anyway, a NULL dereference (an Oops, seen
 * on 2.17.57 with 100 peers of 2 NIDs in a version 3 dump).  So one peer
 * per dump; version 0 first (about 60 bytes per NID), and version 3, which
 * brings the state bits but some 460 bytes of counters per NID, only for a
 * peer small enough for any buffer lnet.ko allocates (NLMSG_GOODSIZE).
 */
#define PEER_STATE_NIDS 6

static int peer_dump(struct lu *lu, const struct lne_nid *filter, u8 version,
		     int (*fn)(const struct lu_peer *p, void *arg), void *arg, struct lne_err *err)
{
	struct peer_walk w = {fn, arg, false};
	char s[LNE_NID_STR_MAX];
	struct lu_ydump d;
	struct lu_msg m;
	int rc;

	if (msg_new(lu, &m, NLM_F_DUMP | NLM_F_DUMP_FILTERED, LU_CMD_PEERS, version))
		return lne_err_set(err, -ENOMEM, NULL, -1, "out of memory");
	peer_body(&m, filter, true, NULL, 0, false);
	lu_ydump_init(&d, peer_cb, &w);
	rc = request(lu, &m, &d, lu_nidstr(filter, s), "show the peer", err);
	lu_ydump_free(&d);
	return rc;
}

struct one {
	struct lu_peer *p;
	bool found;
};

static int one_cb(const struct lu_peer *p, void *arg)
{
	struct one *o = arg;

	lu_peer_free(o->p);
	*o->p = *p;
	o->p->nids = lne_zalloc((p->n ? p->n : 1) * sizeof(*p->nids));
	if (!o->p->nids)
		return -ENOMEM;
	memcpy(o->p->nids, p->nids, p->n * sizeof(*p->nids));
	o->found = true;
	return 0;
}

int lu_nl_peer_get(struct lu *lu, const struct lne_nid *nid, struct lu_peer *p, struct lne_err *err)
{
	struct one o = {p, false};
	struct lu_peer st = {0};
	struct one os = {&st, false};
	char s[LNE_NID_STR_MAX];
	int rc;

	memset(p, 0, sizeof(*p));
	rc = peer_dump(lu, nid, 0, one_cb, &o, err);
	if (rc == -ENOENT || (!rc && !o.found))
		return lne_err_set(err, -ENOENT, lu_nidstr(nid, s), -1,
				   "lnet.ko %s has no such peer", lu->vname);
	if (rc || p->n > PEER_STATE_NIDS)
		return rc; /* the state stays unknown: too big a reply to ask for */
	rc = peer_dump(lu, nid, 3, one_cb, &os, err);
	if (!rc && os.found) {
		p->state = st.state;
		p->configured = st.configured;
		p->lock_prim = st.lock_prim;
		p->state_known = true;
	}
	lu_peer_free(&st);
	return rc == -ENOENT ? 0 : rc;
}

/* --- routes through a large gateway --------------------------------------------- */

static void route_body(struct lu_msg *m, const struct lu_route *r)
{
	char net[LNE_NET_STR_MAX], gw[LNE_NID_STR_MAX];
	size_t top, item;

	lne_net_format(r->net, net, sizeof(net));
	top = lu_y_list(m);
	item = lu_y_list(m);
	lu_y_str(m, "net", net);
	lu_y_str(m, "gateway", lu_nidstr(&r->gw, gw));
	if (r->hops != 0)
		lu_y_int(m, "hop", r->hops == LU_HOPS_NONE ? -1 : (s64)r->hops);
	lu_y_int(m, "priority", r->priority);
	lu_msg_nest_end(m, item);
	lu_msg_nest_end(m, top);
}

int lu_nl_route_add(struct lu *lu, const struct lu_route *r, struct lne_err *err)
{
	char s[LNE_NET_STR_MAX + LNE_NID_STR_MAX + 8], gw[LNE_NID_STR_MAX];
	struct lu_msg m;

	lne_net_format(r->net, s, sizeof(s));
	snprintf(s + strlen(s), sizeof(s) - strlen(s), " via %s", lu_nidstr(&r->gw, gw));
	if (r->sensitivity != 1)
		return lne_err_set(
			err, -EOPNOTSUPP, s, -1,
			"lnet.ko %s keeps no health sensitivity for a route over netlink "
			"(only 1, the default, holds)",
			lu->vname);
	if (msg_new(lu, &m, NLM_F_CREATE, LU_CMD_ROUTES, 0))
		return lne_err_set(err, -ENOMEM, NULL, -1, "out of memory");
	route_body(&m, r);
	return request(lu, &m, NULL, s, "add the route", err);
}

int lu_nl_route_del(struct lu *lu, lne_net_t net, const struct lne_nid *gw, struct lne_err *err)
{
	struct lu_route r = {.net = net, .gw = *gw, .hops = 0, .priority = 0, .sensitivity = 1};
	char s[LNE_NET_STR_MAX + LNE_NID_STR_MAX + 8], g[LNE_NID_STR_MAX];
	struct lu_msg m;

	lne_net_format(net, s, sizeof(s));
	snprintf(s + strlen(s), sizeof(s) - strlen(s), " via %s", lu_nidstr(gw, g));
	if (msg_new(lu, &m, 0, LU_CMD_ROUTES, 0))
		return lne_err_set(err, -ENOMEM, NULL, -1, "out of memory");
	route_body(&m, &r);
	return request(lu, &m, NULL, s, "delete the route", err);
}

struct route_list {
	struct lu_route *rs;
	size_t n, cap;
};

static int route_cb(const struct lu_ymap *m, void *arg)
{
	const struct lu_yfield *f;
	struct route_list *l = arg;
	struct lu_route r;

	memset(&r, 0, sizeof(r));
	f = lu_yget(m, "net");
	if (!f || !f->str || lne_net_parse(f->str, &r.net, NULL))
		return 0;
	f = lu_yget(m, "gateway");
	/* a nid4 gateway: /dev/lnet lists it, with its sensitivity */
	if (!f || !f->str || lne_nid_parse(f->str, &r.gw, NULL) || r.gw.alen == 4)
		return 0;
	f = lu_yget(m, "hop");
	r.hops = f && f->num_ok && f->num > 0 ? (u32)f->num : LU_HOPS_NONE;
	r.priority = num(lu_yget(m, "priority"), 0);
	r.sensitivity = 1;
	f = lu_yget(m, "state");
	r.alive = f && f->str && !strcmp(f->str, "up");
	if (l->n == l->cap) {
		struct lu_route *n = lne_realloc_array(l->rs, l->cap ? l->cap * 2 : 8, sizeof(*n));

		if (!n)
			return -ENOMEM;
		l->rs = n;
		l->cap = l->cap ? l->cap * 2 : 8;
	}
	l->rs[l->n++] = r;
	return 0;
}

/* The routes through large gateways (the others come from /dev/lnet). */
int lu_nl_route_list(struct lu *lu, struct lu_route **out, size_t *nout, struct lne_err *err)
{
	struct route_list l = {0};
	struct lu_ydump d;
	struct lu_msg m;
	int rc;

	*out = NULL;
	*nout = 0;
	if (msg_new(lu, &m, NLM_F_DUMP, LU_CMD_ROUTES, 1))
		return lne_err_set(err, -ENOMEM, NULL, -1, "out of memory");
	lu_ydump_init(&d, route_cb, &l);
	rc = request(lu, &m, &d, NULL, "list its routes", err);
	lu_ydump_free(&d);
	/* no route at all is an error to lnet.ko's dump */
	if (rc == -ENOENT || rc == -ESRCH)
		rc = 0;
	if (rc) {
		free(l.rs);
		return rc;
	}
	*out = l.rs;
	*nout = l.n;
	return 0;
}

/* --- ping of a large NID ----------------------------------------------------- */

static int ping_cb(const struct lu_ymap *m, void *arg)
{
	const struct lu_yfield *f = lu_yget(m, "primary nid"), *pl = lu_yget(m, "peer_ni");
	struct lu_ping_reply *r = arg;
	u32 i;

	f = lu_yget(m, "errno");
	if (f && f->num_ok && f->num < 0)
		return (int)f->num;
	f = lu_yget(m, "primary nid");
	if (f && f->str)
		lne_nid_parse(f->str, &r->primary, NULL);
	r->mr = lu_yget(m, "Multi-Rail") != NULL;
	for (i = 0; pl && i < pl->nitems && r->n < LNE_ARRAY_SIZE(r->nids); i++) {
		f = lu_yget(&pl->items[i], "nid");
		if (f && f->str && !lne_nid_parse(f->str, &r->nids[r->n], NULL))
			r->n++;
	}
	return 0;
}

int lu_nl_ping(struct lu *lu, const struct lne_nid *nid, u32 timeout_ms, const struct lne_nid *src,
	       struct lu_ping_reply *reply, struct lne_err *err)
{
	struct lu own = *lu; /* a socket of its own: lnet.ko answers when the peer does */
	char s[LNE_NID_STR_MAX], ss[LNE_NID_STR_MAX];
	struct lu_ydump d;
	struct lu_msg m;
	size_t list;
	int rc;

	memset(reply, 0, sizeof(*reply));
	reply->primary = *nid;
	own.nl = -1;
	own.rx = NULL;
	own.nl_seq = 0;
	rc = lu_nl_open(&own);
	if (rc)
		return lu_gone(err, rc);
	{
		/* lnet.ko answers when the peer does, or at the timeout it was given */
		struct timeval tv = {.tv_sec = timeout_ms / 1000 + 30};

		setsockopt(own.nl, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	}
	if (msg_new(&own, &m, NLM_F_DUMP, LU_CMD_PING, 0)) {
		rc = lne_err_set(err, -ENOMEM, NULL, -1, "out of memory");
		goto out;
	}
	lu_y_int(&m, "timeout", timeout_ms);
	if (src)
		lu_y_str(&m, "source", lu_nidstr(src, ss));
	list = lu_y_list(&m);
	lu_msg_put_str(&m, LU_YA_VALUE, lu_nidstr(nid, s));
	lu_msg_nest_end(&m, list);
	lu_ydump_init(&d, ping_cb, reply);
	rc = lu_nl_request(&own, &m, lu_ydump_cb, &d, s, "ping", err);
	lu_msg_free(&m);
	if (!rc && d.err < 0 && d.err != -ENOMEM && d.err != -EPROTO)
		rc = lu_refused(lu, err, d.err, s, "ping");
	else if (!rc && d.err)
		rc = lne_err_set(err, d.err, s, -1,
				 "lnet.ko %s answered the ping in a form this library cannot read",
				 lu->vname);
	lu_ydump_free(&d);
out:
	lu_nl_close(&own);
	free(own.rx);
	return rc;
}
