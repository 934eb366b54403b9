/* SPDX-License-Identifier: GPL-2.0 */
/*
 * siphash.h - SipHash-1-3 (Aumasson and Bernstein's keyed hash, one
 * compression and three finalisation rounds) of two 64-bit words: the
 * buckets of the node's tables, keyed per node, so that a peer, which
 * chooses the NIDs it claims, cannot aim them at one chain without the
 * key.  The words are hashed as numbers, not as bytes: the same on any
 * host's byte order.
 */
#ifndef LNE_SIPHASH_H
#define LNE_SIPHASH_H

#include "port.h"

static inline u64 lne_rotl64(u64 x, unsigned int b)
{
	return x << b | x >> (64 - b);
}

#define LNE_SIPROUND(v0, v1, v2, v3)          \
	do {                                  \
		v0 += v1;                     \
		v1 = lne_rotl64(v1, 13) ^ v0; \
		v0 = lne_rotl64(v0, 32);      \
		v2 += v3;                     \
		v3 = lne_rotl64(v3, 16) ^ v2; \
		v0 += v3;                     \
		v3 = lne_rotl64(v3, 21) ^ v0; \
		v2 += v1;                     \
		v1 = lne_rotl64(v1, 17) ^ v2; \
		v2 = lne_rotl64(v2, 32);      \
	} while (0)

/* SipHash-1-3 under the key (@k0, @k1) of the 16-byte message @a, @b. */
static inline u64 lne_siphash13(u64 k0, u64 k1, u64 a, u64 b)
{
	u64 v0 = k0 ^ 0x736f6d6570736575ull, v1 = k1 ^ 0x646f72616e646f6dull;
	u64 v2 = k0 ^ 0x6c7967656e657261ull, v3 = k1 ^ 0x7465646279746573ull;
	const u64 last = (u64)16 << 56; /* the length, in the last block's top byte */

	v3 ^= a;
	LNE_SIPROUND(v0, v1, v2, v3);
	v0 ^= a;
	v3 ^= b;
	LNE_SIPROUND(v0, v1, v2, v3);
	v0 ^= b;
	v3 ^= last;
	LNE_SIPROUND(v0, v1, v2, v3);
	v0 ^= last;
	v2 ^= 0xff;
	LNE_SIPROUND(v0, v1, v2, v3);
	LNE_SIPROUND(v0, v1, v2, v3);
	LNE_SIPROUND(v0, v1, v2, v3);
	return v0 ^ v1 ^ v2 ^ v3;
}

#endif /* LNE_SIPHASH_H */
