// SPDX-License-Identifier: GPL-2.0
/*
 * lu-peer.c - peers over /dev/lnet: ADD_PEER_NI and DEL_PEER_NI one NID at a
 * time, GET_PEER_LIST then GET_PEER_NI per peer.
 *
 *  - add: the primary NID alone (the other NID "any") makes the peer, with
 *    its Multi-Rail flag and, with count 1, its primary locked; each other
 *    NID is then added to it (lnet.ko insists the peer be a configured
 *    one, the NID its primary and the Multi-Rail flag the same);
 *  - delete: a peer whose primary is locked is only emptied unless forced
 *    (count 1), so a whole-peer delete is forced;
 *  - list: GET_PEER_LIST answers -E2BIG with the size it needs, and every
 *    primary NID after that (nid4 only: large ones are counted but left out,
 *    so the tail of the buffer may stay blank); GET_PEER_NI answers one
 *    peer's NIDs with their credits, stats and health, and the peer's state
 *    bits (LNET_PEER_CONFIGURED tells a configured peer from one discovery
 *    or traffic made, in every version).  No limit but memory: 50,000
 *    peers are one list and 50,000 small requests.
 */
#include "lu-int.h"

int lu_ioc_peer_add(struct lu *lu, const struct lne_nid *primary, bool mr, bool lock_prim,
		    const struct lne_nid *nids, size_t n, struct lne_err *err)
{
	struct lu_ioc_peer r;
	char s[LNE_NID_STR_MAX];
	u64 prim4, nid4;
	size_t i;
	int rc;

	rc = lu_nid4(lu, primary, &prim4, NULL, err);
	for (i = 0; !rc && i < n; i++)
		rc = lu_nid4(lu, &nids[i], &nid4, NULL, err);
	if (rc)
		return rc;
	lu_nidstr(primary, s);
	memset(&r, 0, sizeof(r));
	r.prim_nid = prim4;
	r.cfg_nid = LU_NID_ANY;
	r.mr = mr;
	r.count = lock_prim;
	rc = lu_ioc(lu, LU_IOC_ADD_PEER_NI, &r, sizeof(r));
	/* there already: the NIDs go onto it (lnet.ko checks it is the same peer) */
	if (rc && rc != -EEXIST)
		return lu_refused(lu, err, rc, s, "add the peer");
	for (i = 0; i < n; i++) {
		if (lne_nid_equal(&nids[i], primary))
			continue;
		lu_nid4(lu, &nids[i], &nid4, NULL, NULL);
		memset(&r, 0, sizeof(r));
		r.prim_nid = prim4;
		r.cfg_nid = nid4;
		r.mr = mr;
		r.count = lock_prim;
		rc = lu_ioc(lu, LU_IOC_ADD_PEER_NI, &r, sizeof(r));
		if (rc == -EEXIST)
			continue;
		if (rc) {
			char in[2 * LNE_NID_STR_MAX + 8], ns[LNE_NID_STR_MAX];

			snprintf(in, sizeof(in), "%s NID %s", s, lu_nidstr(&nids[i], ns));
			return lu_refused(lu, err, rc, in, "add the NID to the peer");
		}
	}
	return 0;
}

int lu_ioc_peer_del(struct lu *lu, const struct lne_nid *primary, const struct lne_nid *nids,
		    size_t n, struct lne_err *err)
{
	struct lu_ioc_peer r;
	char s[LNE_NID_STR_MAX];
	u64 prim4, nid4;
	size_t i;
	int rc;

	rc = lu_nid4(lu, primary, &prim4, NULL, err);
	for (i = 0; !rc && i < n; i++)
		rc = lu_nid4(lu, &nids[i], &nid4, NULL, err);
	if (rc)
		return rc;
	lu_nidstr(primary, s);
	memset(&r, 0, sizeof(r));
	r.prim_nid = prim4;
	r.cfg_nid = LU_NID_ANY;
	r.count = 1; /* forced: a locked primary goes too */
	if (!n) {
		rc = lu_ioc(lu, LU_IOC_DEL_PEER_NI, &r, sizeof(r));
		return rc ? lu_refused(lu, err, rc, s, "delete the peer") : 0;
	}
	for (i = 0; i < n; i++) {
		if (lne_nid_equal(&nids[i], primary))
			continue; /* the primary goes with the peer only */
		lu_nid4(lu, &nids[i], &nid4, NULL, NULL);
		r.cfg_nid = nid4;
		r.count = 0;
		rc = lu_ioc(lu, LU_IOC_DEL_PEER_NI, &r, sizeof(r));
		if (rc) {
			char in[2 * LNE_NID_STR_MAX + 8], ns[LNE_NID_STR_MAX];

			snprintf(in, sizeof(in), "%s NID %s", s, lu_nidstr(&nids[i], ns));
			return lu_refused(lu, err, rc, in, "delete the NID from the peer");
		}
	}
	return 0;
}

/* A peer NI's running state from its entry in GET_PEER_NI's bulk. */
static void pni_state(const u8 *e, struct lu_nid_state *st)
{
	struct lu_ioc_msg_stats m;
	struct lu_ioc_elem_stats c;
	struct lu_ioc_pni_hstats h;
	const struct lu_ioc_msgs *by[3] = {&m.send, &m.recv, &m.drop};
	char alive[8];
	int k;

	memcpy(alive, e + LU_PNI_CREDITS + LU_PNI_CR_ALIVENESS, sizeof(alive));
	alive[sizeof(alive) - 1] = 0;
	st->state = !strcmp(alive, "up")     ? LNE_PNI_UP
		    : !strcmp(alive, "down") ? LNE_PNI_DOWN
					     : LNE_PNI_NA;
	memcpy(&st->rtr_credits, e + LU_PNI_CREDITS + LU_PNI_CR_RTR_CREDITS, 4);
	memcpy(&st->min_rtr_credits, e + LU_PNI_CREDITS + LU_PNI_CR_MIN_RTR, 4);
	memcpy(&c, e + LU_PNI_STATS, sizeof(c));
	st->send = c.send;
	st->recv = c.recv;
	st->drop = c.drop;
	memcpy(&m, e + LU_PNI_MSGS, sizeof(m));
	for (k = 0; k < 3; k++) {
		st->msgs[k].get = by[k]->get;
		st->msgs[k].put = by[k]->put;
		st->msgs[k].reply = by[k]->reply;
		st->msgs[k].ack = by[k]->ack;
	}
	memcpy(&h, e + LU_PNI_HSTATS, sizeof(h));
	st->health = h.health;
	st->hs[0] = h.dropped;
	st->hs[1] = h.timeout;
	st->hs[2] = h.error;
	st->hs[3] = h.network_timeout;
	st->ping_count = h.ping_count;
	st->next_ping = h.next_ping;
}

/*
 * GET_PEER_NI's bulk: @count entries of LU_PNI_ENTRY bytes (fewer when it
 * left out large NIDs).  Every NID is checked; one the engine cannot name
 * is left out.  Each NID's running state (health, aliveness, counters)
 * goes to p->st beside it.
 */
int lu_peer_parse_bulk(const u8 *bulk, size_t len, u32 count, struct lu_peer *p)
{
	size_t i, n = len / LU_PNI_ENTRY;

	if (count < n)
		n = count;
	p->nids = n ? lne_zalloc(n * sizeof(*p->nids)) : NULL;
	p->st = n ? lne_zalloc(n * sizeof(*p->st)) : NULL;
	p->n = 0;
	if (n && (!p->nids || !p->st)) {
		lu_peer_free(p);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		const u8 *e = bulk + i * LU_PNI_ENTRY;
		u64 nid4;

		memcpy(&nid4, e + LU_PNI_NID, sizeof(nid4));
		if (!nid4)
			break; /* the blank tail: large NIDs were counted, not written */
		if (!lu_nid_from4(nid4, &p->nids[p->n]))
			continue;
		p->st[p->n].nid = p->nids[p->n];
		pni_state(e, &p->st[p->n]);
		p->n++;
	}
	return 0;
}

void lu_peer_free(struct lu_peer *p)
{
	lne_free(p->nids);
	lne_free(p->st);
	p->nids = NULL;
	p->st = NULL;
	p->n = 0;
}

/* One peer by any of its NIDs (nid4), into @p; @buf/@cap a reusable bulk. */
static int peer_get4(struct lu *lu, u64 nid4, struct lu_peer *p, u8 **buf, size_t *cap)
{
	struct lu_ioc_peer r;
	int rc, tries;

	memset(p, 0, sizeof(*p));
	for (tries = 0; tries < 8; tries++) {
		memset(&r, 0, sizeof(r));
		r.prim_nid = nid4;
		r.size = *cap;
		r.bulk = (u64)(uintptr_t)*buf;
		rc = lu_ioc(lu, LU_IOC_GET_PEER_NI, &r, sizeof(r));
		if (rc == -E2BIG && r.size > *cap && r.size <= 64u << 20) {
			u8 *b = realloc(*buf, r.size);

			if (!b)
				return -ENOMEM;
			*buf = b;
			*cap = r.size;
			continue; /* NIDs came meanwhile: ask again */
		}
		if (rc)
			return rc;
		if (r.size > *cap)
			return -EPROTO;
		if (!lu_nid_from4(r.prim_nid, &p->primary))
			return -EPROTO;
		p->mr = r.mr;
		p->state = r.state;
		p->state_known = true;
		p->configured = r.state & LU_PEER_CONFIGURED;
		p->lock_prim = r.state & LU_PEER_LOCK_PRIMARY;
		return lu_peer_parse_bulk(*buf, r.size, r.count, p);
	}
	return -EAGAIN;
}

int lu_ioc_peer_get(struct lu *lu, const struct lne_nid *nid, struct lu_peer *p,
		    struct lne_err *err)
{
	size_t cap = 16 * LU_PNI_ENTRY;
	u8 *buf = malloc(cap);
	char s[LNE_NID_STR_MAX];
	u64 nid4;
	int rc;

	memset(p, 0, sizeof(*p));
	if (!buf)
		return lne_err_set(err, -ENOMEM, NULL, -1, "out of memory");
	rc = lu_nid4(lu, nid, &nid4, NULL, err);
	if (!rc) {
		rc = peer_get4(lu, nid4, p, &buf, &cap);
		if (rc == -ENOENT)
			lne_err_set(err, rc, lu_nidstr(nid, s), -1, "lnet.ko %s has no such peer",
				    lu->vname);
		else if (rc)
			lu_refused(lu, err, rc, lu_nidstr(nid, s), "show the peer");
	}
	free(buf);
	return rc;
}

int lu_ioc_peer_list(struct lu *lu, u64 **out, size_t *nout, size_t *large, struct lne_err *err)
{
	struct lu_ioc_peer r;
	struct lu_ioc_id *ids = NULL;
	size_t cap = 0, i, n;
	u64 *v;
	int rc = -EAGAIN, tries;

	*out = NULL;
	*nout = 0;
	*large = 0;
	for (tries = 0; tries < 8; tries++) {
		memset(&r, 0, sizeof(r));
		r.size = cap * sizeof(*ids);
		r.bulk = (u64)(uintptr_t)ids;
		rc = lu_ioc(lu, LU_IOC_GET_PEER_LIST, &r, sizeof(r));
		if (rc == -E2BIG) {
			/* room for what it asks and some: peers come and go meanwhile */
			size_t want = r.size / sizeof(*ids) + 64;
			struct lu_ioc_id *m;

			if (r.size / sizeof(*ids) > (16u << 20)) {
				rc = -EPROTO;
				break;
			}
			m = realloc(ids, want * sizeof(*ids));
			if (!m) {
				rc = -ENOMEM;
				break;
			}
			ids = m;
			cap = want;
			memset(ids, 0, cap * sizeof(*ids));
			continue;
		}
		break;
	}
	n = rc ? 0 : r.count < cap ? r.count : cap;
	v = rc ? NULL : malloc((n ? n : 1) * sizeof(*v));
	if (!rc && !v)
		rc = -ENOMEM;
	if (rc) {
		free(ids);
		return rc == -ENOMEM ? lne_err_set(err, rc, NULL, -1, "out of memory")
				     : lu_refused(lu, err, rc, NULL, "list its peers");
	}
	for (i = 0; i < n; i++) {
		if (!ids[i].nid)
			++*large; /* a large primary NID: counted, not written */
		else
			v[(*nout)++] = ids[i].nid;
	}
	free(ids);
	*out = v;
	return 0;
}

int lu_ioc_peer_get4(struct lu *lu, u64 nid4, struct lu_peer *p, u8 **buf, size_t *cap)
{
	return peer_get4(lu, nid4, p, buf, cap);
}

int lu_ioc_peer_each(struct lu *lu, int (*fn)(const struct lu_peer *p, void *arg), void *arg,
		     size_t *large, struct lne_err *err)
{
	size_t bcap = 16 * LU_PNI_ENTRY, i, n;
	u8 *bulk = malloc(bcap);
	u64 *ids = NULL;
	int rc;

	if (!bulk)
		return lne_err_set(err, -ENOMEM, NULL, -1, "out of memory");
	rc = lu_ioc_peer_list(lu, &ids, &n, large, err);
	for (i = 0; !rc && i < n; i++) {
		struct lu_peer p;

		rc = peer_get4(lu, ids[i], &p, &bulk, &bcap);
		if (rc == -ENOENT) {
			rc = 0; /* gone since the list: not ours to show */
			continue;
		}
		if (rc == -EPROTO) {
			rc = 0; /* a NID the engine cannot name */
			lu_peer_free(&p);
			continue;
		}
		if (rc) {
			lu_peer_free(&p);
			rc = rc == -ENOMEM ? lne_err_set(err, rc, NULL, -1, "out of memory")
					   : lu_refused(lu, err, rc, NULL, "show a peer");
			break;
		}
		rc = fn(&p, arg);
		lu_peer_free(&p);
	}
	free(ids);
	free(bulk);
	return rc;
}
