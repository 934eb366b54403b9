/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nidkey.h - 8-byte keys for every NID the node meets, large ones included.
 *
 * The node (links, headers, counters, health, discovery) keys NIDs by a
 * u64: an 8-byte NID (IPv4, numbers) is its own key, the nid4 protocol
 * version 3 sends.  A large NID (IPv6) is interned in the node's table and
 * keyed by its net above an index in 0.0.0.0/8: an address no IP host
 * has, so the two kinds never meet, and selection, hashing and credits
 * work on the key unchanged.  Only the boundaries translate: the wire
 * (hello v4, the nid16 header, ping info's large part) and whatever prints
 * or reports a NID.  An 8-byte NID in 0.0.0.0/8 on an IP LND is refused.
 *
 * The chains are hashed with a random seed (lne_nidkey_init), so a peer
 * that names many large NIDs cannot pile them into one chain.
 *
 * Entries are never taken back while the node lives (a key stays valid in
 * stats and health); the table is bounded (LNE_NIDKEY_MAX): a peer that
 * names more large NIDs than that is refused (LNW_F_NID).
 */
#ifndef LNE_NIDKEY_H
#define LNE_NIDKEY_H

#include "wire.h"

#define LNE_NIDKEY_MAX	   65536u
#define LNE_NIDKEY_BITS	   12 /* 4096 chains: short ones even when the table is full */
#define LNE_NIDKEY_BUCKETS (1u << LNE_NIDKEY_BITS)

struct lne_nidtab {
	u64 seed;	     /* keys the chains' hash: a peer cannot aim at one chain */
	struct lne_nid *nid; /* index - 1 */
	u32 *next;	     /* hash chains, 0: the end */
	u32 n, cap;
	u32 head[LNE_NIDKEY_BUCKETS];
};

/* Whether @key names a large NID (not that one is interned under it). */
static inline bool lne_nidkey_is_large(u64 key)
{
	u8 lnd = (u8)(key >> 48);
	u32 a = (u32)key;

	return a && a < (1u << 24) && lne_lnd_name(lnd) && lne_lnd_addr_class(lnd) == LNE_AC_IP;
}

/*
 * The key of @nid, interning a large one: 0, -EINVAL (an 8-byte NID in the
 * keys' range) or -ENOSPC / -ENOMEM (a large NID the table cannot take).
 */
int lne_nidkey(struct lne_nidtab *t, const struct lne_nid *nid, u64 *key);
/* The key of @nid if it has one already (no interning): 0 or -ENOENT. */
int lne_nidkey_find(const struct lne_nidtab *t, const struct lne_nid *nid, u64 *key);
/* The NID of @key; a large key not interned reads as its 8-byte form. */
void lne_nidkey_nid(const struct lne_nidtab *t, u64 key, struct lne_nid *out);
/* An empty table with a fresh random seed. */
void lne_nidkey_init(struct lne_nidtab *t);
void lne_nidkey_fini(struct lne_nidtab *t);

#endif /* LNE_NIDKEY_H */
