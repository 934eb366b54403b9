// SPDX-License-Identifier: GPL-2.0
/*
 * lu-ni.c - NIs over /dev/lnet: ADD_LOCAL_NI, DEL_LOCAL_NI, GET_LOCAL_NI.
 *
 * An NI is added by its net and interface (the LND takes the address from
 * the interface), its CPTs and its tunables.  The tunables travel after
 * the request in the version's layout (lu-abi.h): lnet.ko ignores every
 * one of them when the request is shorter than its own union, so the
 * request is sized to the version (and GET_LOCAL_NI refuses a short one).
 *
 * What lnet.ko cannot hold is refused here rather than changed by it:
 * peer_timeout 0 and credits 0 (it takes 0 as its default), peer_credits
 * above credits (it lowers them to credits), a TOS before 2.16 (socklnd
 * has none).  lnet.ko replaces conns_per_peer 0 with a number of its own
 * choosing (by link speed); lnetd's 0 means one, so 0 goes as 1.
 */
#include "lu-int.h"

/* Room for the largest request: the NI, its stats and tunables. */
#define NI_BUF \
	(sizeof(struct lu_ioc_ni) + sizeof(struct lu_ioc_elem_stats) + sizeof(struct lu_ioc_tun))

static u32 ni_add_len(const struct lu *lu)
{
	return sizeof(struct lu_ioc_ni) + sizeof(struct lu_ioc_tun_cmn) + lu->info.tun_lnd;
}

static u32 ni_get_len(const struct lu *lu)
{
	return ni_add_len(lu) + sizeof(struct lu_ioc_elem_stats);
}

int lu_ni_check(const struct lu *lu, const struct lu_ni *ni, const char *s, struct lne_err *err)
{
	const struct lne_tunables *t = &ni->tun;

	if (!t->peer_timeout)
		return lne_err_set(err, -EOPNOTSUPP, s, -1,
				   "lnet.ko %s takes peer_timeout 0 as its default (180)",
				   lu->vname);
	if (t->peer_credits > t->credits)
		return lne_err_set(err, -EOPNOTSUPP, s, -1,
				   "lnet.ko %s lowers peer_credits %u to credits %u", lu->vname,
				   t->peer_credits, t->credits);
	if (t->peer_timeout > INT32_MAX || t->credits > INT32_MAX || t->peer_credits > INT32_MAX ||
	    t->peer_buffer_credits > INT32_MAX)
		return lne_err_set(err, -EOPNOTSUPP, s, -1, "lnet.ko %s holds tunables up to %d",
				   lu->vname, INT32_MAX);
	if (t->conns_per_peer > 0xffff)
		return lne_err_set(err, -EOPNOTSUPP, s, -1,
				   "lnet.ko %s holds conns_per_peer up to 65535", lu->vname);
	if (t->tos != LNE_TUN_OFF && lu->info.tun_lnd < LU_TUN_LND_2_16)
		return lne_err_set(err, -EOPNOTSUPP, s, -1,
				   "lnet.ko %s has no tos for an NI (2.16 has)", lu->vname);
	if (ni->cpts >> 63)
		return lne_err_set(err, -EOPNOTSUPP, s, -1, "CPT 63 is beyond what lnetd lists");
	return 0;
}

static void tun_encode(const struct lu_ni *ni, struct lu_ioc_tun *t)
{
	u16 cpp = ni->tun.conns_per_peer ? ni->tun.conns_per_peer : 1;
	s16 tos = ni->tun.tos == LNE_TUN_OFF ? -1 : (s16)ni->tun.tos;

	t->cmn.peer_timeout = ni->tun.peer_timeout;
	t->cmn.peer_tx_credits = ni->tun.peer_credits;
	t->cmn.peer_rtr_credits = ni->tun.peer_buffer_credits;
	t->cmn.max_tx_credits = ni->tun.credits;
	switch (ni->nid.lnd) {
	case LNE_LND_TCP:
		t->lnd.sock.version = 1;
		t->lnd.sock.conns_per_peer = cpp;
		t->lnd.sock.tos = tos;
		break;
	case LNE_LND_O2IB:
		t->lnd.o2ib.version = 1;
		t->lnd.o2ib.conns_per_peer = cpp;
		t->lnd.o2ib.tos = tos;
		break;
	default:
		break;
	}
}

int lu_ioc_ni_add(struct lu *lu, const struct lu_ni *ni, struct lne_err *err)
{
	u8 buf[NI_BUF];
	struct lu_ioc_ni *r = (struct lu_ioc_ni *)buf;
	struct lu_ioc_tun t;
	char s[LNE_NID_STR_MAX + LNE_IFNAME_MAX + 8];
	u64 nid4;
	int rc, i;

	lne_net_format(lne_nid_net(&ni->nid), s, sizeof(s));
	if (ni->ifname[0])
		snprintf(s + strlen(s), sizeof(s) - strlen(s), " on %s", ni->ifname);
	rc = lu_nid4(lu, &ni->nid, &nid4, NULL, err);
	if (rc)
		return rc;
	rc = lu_ni_check(lu, ni, s, err);
	if (rc)
		return rc;
	memset(buf, 0, sizeof(buf));
	r->nid = nid4;
	snprintf(r->intf, sizeof(r->intf), "%s", ni->ifname);
	for (i = 0; i < 64; i++)
		if (ni->cpts & (1ull << i))
			r->cpts[r->ncpts++] = i;
	memset(&t, 0, sizeof(t));
	tun_encode(ni, &t);
	memcpy(buf + LU_IOC_NI_BULK, &t, sizeof(t));
	rc = lu_ioc(lu, LU_IOC_ADD_LOCAL_NI, buf, ni_add_len(lu));
	if (rc == -EINVAL)
		return lne_err_set(
			err, rc, s, -1,
			"lnet.ko %s refused to add the NI: %s (an LND it lacks, a CPT it "
			"does not have, or LNet brought up by Lustre rather than "
			"configured)",
			lu->vname, strerror(-rc));
	if (rc == -ENETDOWN)
		return lne_err_set(err, rc, s, -1,
				   "lnet.ko %s refused to add the NI: %s (the interface is missing "
				   "or has no address)",
				   lu->vname, strerror(-rc));
	if (rc)
		return lu_refused(lu, err, rc, s, "add the NI");
	return 0;
}

int lu_ioc_ni_del(struct lu *lu, const struct lne_nid *nid, struct lne_err *err)
{
	struct lu_ioc_ni r;
	char s[LNE_NID_STR_MAX];
	u64 nid4;
	int rc;

	rc = lu_nid4(lu, nid, &nid4, NULL, err);
	if (rc)
		return rc;
	memset(&r, 0, sizeof(r));
	r.nid = nid4;
	rc = lu_ioc(lu, LU_IOC_DEL_LOCAL_NI, &r, sizeof(r));
	if (rc)
		return lu_refused(lu, err, rc, lu_nidstr(nid, s), "delete the NI");
	return 0;
}

/* One GET_LOCAL_NI reply into @ni; its CPTs as a set in *cpts (bit per CPT). */
static void ni_decode(const struct lu *lu, const u8 *buf, struct lu_ni *ni, u64 *cpts)
{
	const struct lu_ioc_ni *r = (const struct lu_ioc_ni *)buf;
	struct lu_ioc_elem_stats st;
	struct lu_ioc_tun t;
	u32 i, n = r->ncpts < LU_NI_MAX_CPTS ? r->ncpts : LU_NI_MAX_CPTS;

	memset(ni, 0, sizeof(*ni));
	lu_nid_from4(r->nid, &ni->nid);
	memcpy(ni->ifname, r->intf, sizeof(ni->ifname) - 1);
	ni->up = r->status == LU_NI_STATUS_UP;
	ni->dev_cpt = (s16)r->dev_cpt;
	*cpts = 0;
	for (i = 0; i < n; i++)
		if (r->cpts[i] < 64)
			*cpts |= 1ull << r->cpts[i];
	memcpy(&st, buf + LU_IOC_NI_BULK, sizeof(st));
	ni->send = st.send;
	ni->recv = st.recv;
	ni->drop = st.drop;
	memset(&t, 0, sizeof(t));
	memcpy(&t, buf + LU_IOC_NI_BULK + sizeof(st), sizeof(t.cmn) + lu->info.tun_lnd);
	lne_tunables_default(ni->nid.lnd, &ni->tun);
	ni->tun.peer_timeout = t.cmn.peer_timeout;
	ni->tun.peer_credits = t.cmn.peer_tx_credits;
	ni->tun.peer_buffer_credits = t.cmn.peer_rtr_credits;
	ni->tun.credits = t.cmn.max_tx_credits;
	ni->tun.timeout = 0;
	if (ni->nid.lnd == LNE_LND_TCP) {
		ni->tun.conns_per_peer = t.lnd.sock.conns_per_peer;
		if (lu->info.tun_lnd >= LU_TUN_LND_2_16)
			ni->tun.tos = t.lnd.sock.tos < 0 ? LNE_TUN_OFF : (u32)t.lnd.sock.tos;
	} else if (ni->nid.lnd == LNE_LND_O2IB) {
		ni->tun.conns_per_peer = t.lnd.o2ib.conns_per_peer;
		if (lu->info.tun_lnd >= LU_TUN_LND_2_16)
			ni->tun.tos = t.lnd.o2ib.tos < 0 ? LNE_TUN_OFF : (u32)t.lnd.o2ib.tos;
	}
}

int lu_ioc_ni_list(struct lu *lu, struct lu_ni **out, size_t *nout, struct lne_err *err)
{
	u8 buf[NI_BUF];
	struct lu_ni *nis = NULL, ni;
	size_t n = 0, cap = 0;
	u64 cpts, all = 0;
	u32 idx;
	int rc;

	*out = NULL;
	*nout = 0;
	for (idx = 0;; idx++) {
		memset(buf, 0, sizeof(buf));
		((struct lu_ioc_ni *)buf)->idx = idx;
		rc = lu_ioc(lu, LU_IOC_GET_LOCAL_NI, buf, ni_get_len(lu));
		if (rc == -ENOENT)
			break;
		if (rc) {
			free(nis);
			return lu_refused(lu, err, rc, NULL, "list its NIs");
		}
		ni_decode(lu, buf, &ni, &cpts);
		/* 0@lo, always first, spans every CPT: the measure of "all" */
		if (ni.nid.lnd == LNE_LND_LO) {
			all = cpts;
			continue;
		}
		/* an IPv6 NI leaves the reply blank over ioctl: nothing to list */
		if (!ni.nid.lnd)
			continue;
		ni.cpts = cpts == all ? 0 : cpts;
		if (n == cap) {
			struct lu_ni *m = lne_realloc_array(nis, cap ? cap * 2 : 8, sizeof(*nis));

			if (!m) {
				free(nis);
				return lne_err_set(err, -ENOMEM, NULL, -1, "out of memory");
			}
			nis = m;
			cap = cap ? cap * 2 : 8;
		}
		nis[n++] = ni;
		if (idx > 100000)
			break; /* a module that never says ENOENT */
	}
	*out = nis;
	*nout = n;
	return 0;
}

/* One NI's health (GET_NI_HSTATS, by NID) and messages by type (GET_NI_MSG_STATS, by index). */
static int ni_state_more(struct lu *lu, u32 idx, u64 nid4, struct lu_nid_state *st)
{
	struct lu_ioc_ni_hstats h;
	struct lu_ioc_msg_stats m;
	const struct lu_ioc_msgs *by[3] = {&m.send, &m.recv, &m.drop};
	int rc, k;

	memset(&h, 0, sizeof(h));
	h.nid = nid4;
	rc = lu_ioc(lu, LU_IOC_GET_NI_HSTATS, &h, sizeof(h));
	if (rc)
		return rc;
	st->health = h.health;
	st->fatal = h.fatal;
	st->hs[0] = h.interrupt;
	st->hs[1] = h.dropped;
	st->hs[2] = h.aborted;
	st->hs[3] = h.no_route;
	st->hs[4] = h.timeout;
	st->hs[5] = h.error;
	st->ping_count = h.ping_count;
	st->next_ping = h.next_ping;
	memset(&m, 0, sizeof(m));
	m.idx = idx;
	rc = lu_ioc(lu, LU_IOC_GET_NI_MSG_STATS, &m, sizeof(m));
	if (rc)
		return rc;
	for (k = 0; k < 3; k++) {
		st->msgs[k].get = by[k]->get;
		st->msgs[k].put = by[k]->put;
		st->msgs[k].reply = by[k]->reply;
		st->msgs[k].ack = by[k]->ack;
	}
	return 0;
}

int lu_ni_states(struct lu *lu, struct lu_nid_state **out, size_t *nout, struct lne_err *err)
{
	u8 buf[NI_BUF];
	struct lu_nid_state *v = NULL, *m;
	struct lu_ni ni;
	size_t n = 0;
	u64 cpts, nid4;
	u32 idx;
	int rc = 0;

	*out = NULL;
	*nout = 0;
	for (idx = 0; idx <= 100000; idx++) {
		memset(buf, 0, sizeof(buf));
		((struct lu_ioc_ni *)buf)->idx = idx;
		rc = lu_ioc(lu, LU_IOC_GET_LOCAL_NI, buf, ni_get_len(lu));
		if (rc == -ENOENT) {
			rc = 0;
			break;
		}
		if (rc)
			break;
		ni_decode(lu, buf, &ni, &cpts);
		if (!ni.nid.lnd)
			continue; /* an IPv6 NI: /dev/lnet shows it blank */
		m = lne_realloc_array(v, n + 1, sizeof(*v));
		if (!m) {
			free(v);
			return lne_err_set(err, -ENOMEM, NULL, -1, "out of memory");
		}
		v = m;
		memset(&v[n], 0, sizeof(v[n]));
		v[n].nid = ni.nid;
		memcpy(v[n].ifname, ni.ifname, sizeof(v[n].ifname));
		v[n].up = ni.up;
		v[n].send = ni.send;
		v[n].recv = ni.recv;
		v[n].drop = ni.drop;
		nid4 = ((struct lu_ioc_ni *)buf)->nid;
		rc = ni_state_more(lu, idx, nid4, &v[n]);
		if (rc == -ENOENT) {
			rc = 0; /* gone since GET_LOCAL_NI: leave it out */
			continue;
		}
		if (rc)
			break;
		n++;
	}
	if (rc) {
		free(v);
		return lu_refused(lu, err, rc, NULL, "show its NIs' health");
	}
	*out = v;
	*nout = n;
	return 0;
}
