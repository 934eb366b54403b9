/* SPDX-License-Identifier: GPL-2.0 */
/*
 * model-int.h - what the object model's files share.  model.c holds the
 * instance (new, free, copy), the object pools, NUMA and the dump cursors;
 * model-ni.c the local nets and NIs; model-peer.c the NID hash, the peers
 * and their NIs; model-route.c the remote-net records and the routes.
 * Private to the engine's model; callers use model.h.
 */
#ifndef LNE_MODEL_INT_H
#define LNE_MODEL_INT_H

#include "model.h"

/*
 * The NID tables' hash.  lne_nid_hash() (FNV-1a, a byte at a time) stays
 * as it is for its other users; these tables take a word at a time, since
 * a restore of 100,000 NIDs hashes each of them several times.  Only what
 * lne_nid_equal() compares goes in, so equal NIDs hash equal; the last
 * steps fold the high bits into the low ones the tables index with.
 */
static inline u32 modeli_nid_hash(const struct lne_nid *nid)
{
	u32 h = ((u32)nid->lnd << 24 | (u32)nid->alen << 16 | nid->num) * 0x9e3779b1u, w;
	unsigned int i;

	for (i = 0; i + 4 <= nid->alen; i += 4) {
		memcpy(&w, nid->addr + i, 4);
		h = (h ^ w) * 0x85ebca6bu;
		h ^= h >> 15;
	}
	for (; i < nid->alen; i++)
		h = (h ^ nid->addr[i]) * 0x85ebca6bu;
	h ^= h >> 16;
	h *= 0xc2b2ae35u;
	return h ^ (h >> 13);
}

/* @nid's text in @buf (LNE_NID_STR_MAX bytes), for messages. */
static inline const char *modeli_nid_str(const struct lne_nid *nid, char *buf)
{
	lne_nid_format(nid, buf, LNE_NID_STR_MAX);
	return buf;
}

/* @net's text in @buf (LNE_NET_STR_MAX bytes), for messages. */
static inline const char *modeli_net_str(lne_net_t net, char *buf)
{
	lne_net_format(net, buf, LNE_NET_STR_MAX);
	return buf;
}

/* model.c: an object of @size from pool @p, zeroed; back to the pool. */
void *modeli_pool_get(struct lne_pool *p, size_t size);
void modeli_pool_put(struct lne_pool *p, void *obj);

/* model-ni.c: the local NI with @nid, whose modeli_nid_hash() is @h. */
struct lne_ni *modeli_ni_find(const struct lne_inst *ln, const struct lne_nid *nid, u32 h);
/* Refuse a health outside 0..LNE_HEALTH_MAX, quoting @what. */
int modeli_check_health(s32 health, const char *what, struct lne_err *err);

/* model-peer.c: a new peer with its primary NID (hash @h); NULL on -ENOMEM. */
struct lne_peer *modeli_peer_new(struct lne_inst *ln, const struct lne_nid *primary, u32 h, bool mr,
				 bool implicit);

/* model-route.c: the net's record, made on first use; one reference each. */
struct lne_rnet *modeli_rnet_get(struct lne_inst *ln, lne_net_t id);
void modeli_rnet_put(struct lne_rnet *rnet);
/* A route; @copy: one the source of a copy holds, to a net that may be local since. */
int modeli_route_add(struct lne_inst *ln, lne_net_t net, const struct lne_nid *gw,
		     const u32 v[LNE_ROUTE_A__COUNT], bool copy, struct lne_err *err);

#endif /* LNE_MODEL_INT_H */
