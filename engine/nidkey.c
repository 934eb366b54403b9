// SPDX-License-Identifier: GPL-2.0
/*
 * nidkey.c - the node's table of large NIDs and their 8-byte keys (nidkey.h).
 */
#include "nidkey.h"

static u64 key_of(const struct lne_nid *nid, u32 idx)
{
	return (u64)lne_nid_net(nid) << 32 | idx;
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
	*key = key_of(nid, i);
	return 0;
}

static int grow(struct lne_nidtab *t)
{
	u32 cap = t->cap ? t->cap * 2 : 16;
	struct lne_nid *nid;
	u32 *next;

	nid = lne_realloc_array(t->nid, cap, sizeof(*nid));
	if (!nid)
		return -ENOMEM;
	t->nid = nid;
	next = lne_realloc_array(t->next, cap, sizeof(*next));
	if (!next)
		return -ENOMEM;
	t->next = next;
	t->cap = cap;
	return 0;
}

int lne_nidkey(struct lne_nidtab *t, const struct lne_nid *nid, u64 *key)
{
	u32 b, i;
	int rc;

	if (nid->alen == 4) {
		rc = lnw_nid4(nid, key);
		return rc ?: lne_nidkey_is_large(*key) ? -EINVAL : 0;
	}
	if (nid->alen != 16 || !lne_lnd_name(nid->lnd) || lne_lnd_addr_class(nid->lnd) != LNE_AC_IP)
		return -EINVAL;
	i = lookup(t, nid);
	if (!i) {
		if (t->n >= LNE_NIDKEY_MAX)
			return -ENOSPC;
		if (t->n == t->cap && (rc = grow(t)))
			return rc;
		b = bucket(t, nid);
		t->nid[t->n] = *nid;
		t->next[t->n] = t->head[b];
		i = ++t->n;
		t->head[b] = i;
	}
	*key = key_of(nid, i);
	return 0;
}

void lne_nidkey_nid(const struct lne_nidtab *t, u64 key, struct lne_nid *out)
{
	u32 i = (u32)key;

	if (lne_nidkey_is_large(key) && i <= t->n &&
	    (u64)lne_nid_net(&t->nid[i - 1]) == key >> 32) {
		*out = t->nid[i - 1];
		return;
	}
	lnw_nid_from4(key, out);
}

void lne_nidkey_fini(struct lne_nidtab *t)
{
	lne_free(t->nid);
	lne_free(t->next);
	memset(t, 0, sizeof(*t));
}
