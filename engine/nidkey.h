/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nidkey.h - 8-byte keys for every NID the node meets, large ones included.
 *
 * The node (links, headers, counters, health, discovery) keys NIDs by a
 * u64: an 8-byte NID (IPv4, numbers) is its own key, the nid4 protocol
 * version 3 sends.  A large NID (IPv6) is interned in the node's table and
 * keyed by its net above a slot and the slot's generation in 0.0.0.0/8: an
 * address no IP host has, so the two kinds never meet, and selection,
 * hashing and credits work on the key unchanged.  Only the boundaries
 * translate: the wire (hello v4, the nid16 header, ping info's large part)
 * and whatever prints or reports a NID.  An 8-byte NID in 0.0.0.0/8 on an
 * IP LND is refused.
 *
 * The chains are hashed with a random seed (lne_nidkey_init), so a peer
 * that names many large NIDs cannot pile them into one chain.
 *
 * The table is bounded (LNE_NIDKEY_MAX) and strangers cannot fill it: once
 * full, a new NID takes the slot of the oldest entry nobody holds.  An
 * entry is held by lne_nidkey_hold() (links do) or by its owner's @reclaim
 * callback saying no (the node's NIs, peers, routes, fault rules, discovery
 * and busy counters).  A slot taken back gets a new generation, so its old
 * key never names the new NID: it reads as an 8-byte NID nobody has.  Only
 * when every entry is held is a new one refused (-ENOSPC).
 */
#ifndef LNE_NIDKEY_H
#define LNE_NIDKEY_H

#include "wire.h"

#define LNE_NIDKEY_MAX	   65536u /* slots: the key's low 16 bits */
#define LNE_NIDKEY_BITS	   12	  /* 4096 chains: short ones even when the table is full */
#define LNE_NIDKEY_BUCKETS (1u << LNE_NIDKEY_BITS)
#define LNE_NIDKEY_TRIES   64 /* slots one intern looks at for one to take back */

struct lne_nidtab {
	u64 seed;	     /* keys the chains' hash: a peer cannot aim at one chain */
	struct lne_nid *nid; /* by slot */
	u32 *next;	     /* hash chains by slot + 1, 0: the end */
	u32 *holds;	     /* lne_nidkey_hold()s by slot */
	u8 *gen;	     /* the slot's generation, 1-255: bits 16-23 of its key */
	u32 n, cap;
	u32 hand;      /* the next slot a full table looks at to take back */
	u64 reclaimed; /* entries taken back */
	bool refusing; /* the last new NID was refused: every slot looked at was held */
	/* May @key (of @nid) be taken back?  false keeps it (NULL: always may). */
	bool (*reclaim)(void *arg, u64 key, const struct lne_nid *nid);
	void *arg;
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
/* The NID of @key; a large key not interned (or taken back) reads as its 8-byte form. */
void lne_nidkey_nid(const struct lne_nidtab *t, u64 key, struct lne_nid *out);
/* Whether @key is a large key interned now (not one taken back). */
bool lne_nidkey_live(const struct lne_nidtab *t, u64 key);
/* Hold @key's entry (+1) or let it go (-1); nothing for other keys. */
void lne_nidkey_hold(struct lne_nidtab *t, u64 key, int delta);
/* An empty table with a fresh random seed. */
void lne_nidkey_init(struct lne_nidtab *t);
void lne_nidkey_fini(struct lne_nidtab *t);

#endif /* LNE_NIDKEY_H */
