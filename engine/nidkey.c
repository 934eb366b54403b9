// SPDX-License-Identifier: GPL-2.0
/*
 * nidkey.c - the node's table of large NIDs and their 8-byte keys (nidkey.h).
 */
#include "nidkey.h"

#define SLOT_MASK (LNE_NIDKEY_MAX - 1)

static u64 key_of(const struct lne_nidtab *t, u32 slot)
{
	return (u64)lne_nid_net(&t->nid[slot]) << 32 | (u32)t->gen[slot] << 16 | slot;
}

/* The chain of @nid: its address and net mixed under the table's seed. */
static u32 bucket(const struct lne_nidtab *t, const struct lne_nid *nid)
{
	const u64 k = 0x9e3779b97f4a7c15ull;
	u64 w[2] = {0, 0}, h = t->seed;
	u32 i;

	for (i = 0; i < nid->alen && i < 16; i++)
		w[i / 8] |= (u64)nid->addr[i] << (8 * (i % 8));
	h = (h ^ w[0]) * k;
	h = (h ^ h >> 32 ^ w[1]) * k;
	h = (h ^ h >> 29 ^ lne_nid_net(nid)) * k;
	return (u32)(h >> (64 - LNE_NIDKEY_BITS));
}

void lne_nidkey_init(struct lne_nidtab *t)
{
	memset(t, 0, sizeof(*t));
	t->seed = lne_random_u64();
}

/* The slot + 1 of @nid (0: none). */
static u32 lookup(const struct lne_nidtab *t, const struct lne_nid *nid)
{
	u32 i;

	for (i = t->head[bucket(t, nid)]; i; i = t->next[i - 1])
		if (lne_nid_equal(&t->nid[i - 1], nid))
			return i;
	return 0;
}

int lne_nidkey_find(const struct lne_nidtab *t, const struct lne_nid *nid, u64 *key)
{
	u32 i;

	if (nid->alen == 4)
		return lnw_nid4(nid, key) || lne_nidkey_is_large(*key) ? -ENOENT : 0;
	i = lookup(t, nid);
	if (!i)
		return -ENOENT;
	*key = key_of(t, i - 1);
	return 0;
}

static int grow(struct lne_nidtab *t)
{
	u32 cap = t->cap ? t->cap * 2 : 16;
	void *p;

	if ((p = lne_realloc_array(t->nid, cap, sizeof(*t->nid))))
		t->nid = p;
	if (p && (p = lne_realloc_array(t->next, cap, sizeof(*t->next))))
		t->next = p;
	if (p && (p = lne_realloc_array(t->holds, cap, sizeof(*t->holds))))
		t->holds = p;
	if (p && (p = lne_realloc_array(t->gen, cap, sizeof(*t->gen))))
		t->gen = p;
	if (!p)
		return -ENOMEM;
	t->cap = cap;
	return 0;
}

/* Take slot @s off its chain and give it a new generation. */
static void unlink_slot(struct lne_nidtab *t, u32 s)
{
	u32 *pp = &t->head[bucket(t, &t->nid[s])];

	while (*pp != s + 1)
		pp = &t->next[*pp - 1];
	*pp = t->next[s];
	t->gen[s] = t->gen[s] == 0xff ? 1 : t->gen[s] + 1;
	t->reclaimed++;
}

/* A slot for a new entry: a fresh one, or the oldest nobody holds (-ENOSPC: none). */
static int take_slot(struct lne_nidtab *t, u32 *slot)
{
	u32 i;
	int rc;

	if (t->n < LNE_NIDKEY_MAX) {
		if (t->n == t->cap && (rc = grow(t)))
			return rc;
		t->gen[t->n] = 1;
		*slot = t->n++;
		return 0;
	}
	for (i = 0; i < LNE_NIDKEY_TRIES; i++) {
		u32 s = t->hand;

		t->hand = (t->hand + 1) & SLOT_MASK;
		if (t->holds[s] || (t->reclaim && !t->reclaim(t->arg, key_of(t, s), &t->nid[s])))
			continue;
		unlink_slot(t, s);
		*slot = s;
		return 0;
	}
	return -ENOSPC;
}

int lne_nidkey(struct lne_nidtab *t, const struct lne_nid *nid, u64 *key)
{
	u32 b, i, s;
	int rc;

	if (nid->alen == 4) {
		rc = lnw_nid4(nid, key);
		return rc ?: lne_nidkey_is_large(*key) ? -EINVAL : 0;
	}
	if (nid->alen != 16 || !lne_lnd_name(nid->lnd) || lne_lnd_addr_class(nid->lnd) != LNE_AC_IP)
		return -EINVAL;
	i = lookup(t, nid);
	if (!i) {
		rc = take_slot(t, &s);
		t->refusing = rc == -ENOSPC;
		if (rc)
			return rc;
		b = bucket(t, nid);
		t->nid[s] = *nid;
		t->holds[s] = 0;
		t->next[s] = t->head[b];
		i = s + 1;
		t->head[b] = i;
	}
	*key = key_of(t, i - 1);
	return 0;
}

/* The slot of @key if it is live, else -1. */
static s64 slot_of(const struct lne_nidtab *t, u64 key)
{
	u32 s = (u32)key & SLOT_MASK;

	if (!lne_nidkey_is_large(key) || s >= t->n || key_of(t, s) != key)
		return -1;
	return s;
}

bool lne_nidkey_live(const struct lne_nidtab *t, u64 key)
{
	return slot_of(t, key) >= 0;
}

void lne_nidkey_hold(struct lne_nidtab *t, u64 key, int delta)
{
	s64 s = slot_of(t, key);

	if (s >= 0 && (delta > 0 || t->holds[s]))
		t->holds[s] += delta;
}

void lne_nidkey_nid(const struct lne_nidtab *t, u64 key, struct lne_nid *out)
{
	s64 s = slot_of(t, key);

	if (s >= 0)
		*out = t->nid[s];
	else
		lnw_nid_from4(key, out);
}

void lne_nidkey_fini(struct lne_nidtab *t)
{
	lne_free(t->nid);
	lne_free(t->next);
	lne_free(t->holds);
	lne_free(t->gen);
	memset(t, 0, sizeof(*t));
}
