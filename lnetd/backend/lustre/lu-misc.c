// SPDX-License-Identifier: GPL-2.0
/*
 * lu-misc.c - counters, health, conns_per_peer, ping and discover over
 * /dev/lnet (lnetctl's stats, net/peer set --health, net set
 * --conns-per-peer, ping, discover).
 *
 * Ping and discover block in lnet.ko until the peer answers or the
 * timeout passes (discover: lnet.ko's own), so each opens a descriptor of
 * its own: the caller may run them in a thread while another uses the
 * struct lu.  Health and conns_per_peer answer 0 whatever they were given
 * (lnet.ko clamps a health value outside 0..1000 to 1000, and takes a
 * negative conns_per_peer as 1).
 */
#include <fcntl.h>
#include <unistd.h>

#include "lu-int.h"

int lu_stats(struct lu *lu, struct lu_stats *st, struct lne_err *err)
{
	struct lu_ioc_stats r;
	int rc;

	memset(&r, 0, sizeof(r));
	/* the largest layout: 2.15 and 2.16 fill the first 13 health counters */
	rc = lu_ioc(lu, LU_IOC_GET_LNET_STATS, &r, sizeof(r));
	if (rc)
		return lu_refused(lu, err, rc, NULL, "show its counters");
	memset(st, 0, sizeof(*st));
	st->msgs_alloc = r.msgs_alloc;
	st->msgs_max = r.msgs_max;
	st->errors = r.errors;
	st->send_count = r.send_count;
	st->recv_count = r.recv_count;
	st->route_count = r.route_count;
	st->drop_count = r.drop_count;
	st->send_length = r.send_length;
	st->recv_length = r.recv_length;
	st->route_length = r.route_length;
	st->drop_length = r.drop_length;
	memcpy(st->health, r.health, (lu->info.stats_resends ? 15 : 13) * sizeof(u32));
	return 0;
}

int lu_stats_reset(struct lu *lu, struct lne_err *err)
{
	struct lu_ioc_config r;
	int rc;

	memset(&r, 0, sizeof(r));
	rc = lu_ioc(lu, LU_IOC_RESET_STATS, &r, sizeof(r));
	return rc ? lu_refused(lu, err, rc, NULL, "reset its counters") : 0;
}

int lu_health_set(struct lu *lu, bool peer, const struct lne_nid *nid, s32 value,
		  struct lne_err *err)
{
	struct lu_ioc_health r;
	char s[LNE_NID_STR_MAX];
	u64 nid4 = LU_NID_ANY;
	int rc;

	if (value < 0 || value > LNE_HEALTH_MAX)
		return lne_err_set(err, -ERANGE, NULL, -1,
				   "a health value is 0 to %d (lnet.ko would make %d of it)",
				   LNE_HEALTH_MAX, LNE_HEALTH_MAX);
	if (nid) {
		rc = lu_nid4(lu, nid, &nid4, NULL, err);
		if (rc)
			return rc;
	}
	memset(&r, 0, sizeof(r));
	r.type = peer;
	r.flags = !nid;
	r.value = value;
	r.nid = nid4;
	rc = lu_ioc(lu, LU_IOC_SET_HEALTHV, &r, sizeof(r));
	return rc ? lu_refused(lu, err, rc, nid ? lu_nidstr(nid, s) : NULL, "set the health") : 0;
}

int lu_conns_per_peer_set(struct lu *lu, const struct lne_nid *nid, u32 value, struct lne_err *err)
{
	struct lu_ioc_cpp r;
	char s[LNE_NID_STR_MAX];
	u64 nid4 = LU_NID_ANY;
	int rc;

	if (!value || value > 0x7fff)
		return lne_err_set(err, -ERANGE, NULL, -1,
				   "lnet.ko %s takes conns_per_peer 1 to 32767 here", lu->vname);
	if (nid) {
		rc = lu_nid4(lu, nid, &nid4, NULL, err);
		if (rc)
			return rc;
	}
	memset(&r, 0, sizeof(r));
	r.flags = !nid;
	r.value = value;
	r.nid = nid4;
	rc = lu_ioc(lu, LU_IOC_SET_CONNS_PER_PEER, &r, sizeof(r));
	return rc ? lu_refused(lu, err, rc, nid ? lu_nidstr(nid, s) : NULL, "set conns_per_peer")
		  : 0;
}

int lu_ioc_ping(struct lu *lu, unsigned int nr, const struct lne_nid *nid, u32 param,
		const struct lne_nid *src, struct lu_ping_reply *reply, struct lne_err *err)
{
	struct lu_ioc_id ids[64];
	struct lu_ioc_ping r;
	char path[256], s[LNE_NID_STR_MAX];
	u64 nid4, src4 = LU_NID_ANY;
	u32 i, n;
	int fd, rc;

	memset(reply, 0, sizeof(*reply));
	rc = lu_nid4(lu, nid, &nid4, NULL, err);
	if (!rc && src)
		rc = lu_nid4(lu, src, &src4, NULL, err);
	if (rc)
		return rc;
	if (!lu_path(lu, path, sizeof(path), "dev/lnet"))
		return lu_gone(err, -ENAMETOOLONG);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return lu_gone(err, -errno);
	memset(&r, 0, sizeof(r));
	memset(ids, 0, sizeof(ids));
	r.param = param;
	r.count = LNE_ARRAY_SIZE(ids);
	r.id.nid = nid4;
	r.id.pid = 0xffffffffu; /* any: lnet.ko's own (12345) */
	r.buf = (u64)(uintptr_t)ids;
	r.src = src4;
	rc = lu_ioc_fd(fd, nr, &r, sizeof(r));
	close(fd);
	if (rc)
		return lu_refused(lu, err, rc, lu_nidstr(nid, s),
				  nr == LU_IOC_PING_PEER ? "ping" : "discover");
	if (!lu_nid_from4(r.id.nid, &reply->primary))
		reply->primary = *nid;
	reply->mr = r.mr;
	n = r.count < LNE_ARRAY_SIZE(ids) ? r.count : LNE_ARRAY_SIZE(ids);
	for (i = 0; i < n && reply->n < LNE_ARRAY_SIZE(reply->nids); i++)
		if (lu_nid_from4(ids[i].nid, &reply->nids[reply->n]))
			reply->n++;
	return 0;
}
