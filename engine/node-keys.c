// SPDX-License-Identifier: GPL-2.0
/*
 * node-keys.c - which large NIDs' keys the node still needs (nidkey.h).
 *
 * Strangers cannot fill the node's key table: a full table takes back the
 * oldest key nothing the node keeps names.  What keeps a key: a link
 * (lne_nd_link_hash_add holds its two keys), a local NI or peer NI of the
 * instance (routes' gateways are peer NIs), a fault rule, a discovery
 * round, and counters that are in use (lne_nd_stat_busy: on the recovery
 * queue, a gateway's checks, router credits lent or waited for).  The
 * idle counters of a key taken back go when the input or tick that took it
 * back ends, before the shell can list them (lne_nd_stat_get makes none
 * for such a key).  The counters of IPv4 strangers, which have no key to
 * take back, are bounded apart (node-stats.c, LNE_STAT_STRANGERS).
 */
#include "fault.h"
#include "node-int.h"

static bool key_unused(void *arg, u64 key, const struct lne_nid *nid)
{
	struct lne_node *n = arg;
	const struct lne_fault *f;
	int local;

	if (lne_ni_find(n->ln, nid) || lne_peer_ni_find(n->ln, nid) || lne_nd_disc_busy(n, key))
		return false;
	for (f = n->faults; f; f = f->next)
		if (f->a.src == key || f->a.dst == key)
			return false;
	for (local = 0; local < 2; local++) {
		const struct lne_stat *s = n->stats[lne_nd_stat_bucket(n, key, local)];

		for (; s; s = s->hnext)
			if (s->nid == key && lne_nd_stat_busy(s))
				return false;
	}
	if (n->nkeys_gone < LNE_KEYS_GONE)
		n->keys_gone[n->nkeys_gone] = key;
	if (n->nkeys_gone <= LNE_KEYS_GONE)
		n->nkeys_gone++;
	return true;
}

void lne_nd_keys_init(struct lne_node *n)
{
	n->keys.reclaim = key_unused;
	n->keys.arg = n;
}

/* Free the idle counters in chain @b whose key was taken back (@key, or any if 0). */
static void sweep_chain(struct lne_node *n, u32 b, u64 key)
{
	struct lne_stat **pp = &n->stats[b];

	while (*pp) {
		struct lne_stat *s = *pp;

		if ((key && s->nid != key) || !lne_nidkey_is_large(s->nid) ||
		    lne_nidkey_live(&n->keys, s->nid) || lne_nd_stat_busy(s)) {
			pp = &s->hnext;
			continue;
		}
		*pp = s->hnext;
		lne_free(s);
		n->nstats--;
	}
}

void lne_nd_keys_sweep(struct lne_node *n)
{
	u32 i, b;

	if (n->nkeys_gone > LNE_KEYS_GONE) {
		for (b = 0; b < LNE_STAT_HASH; b++)
			sweep_chain(n, b, 0);
	} else {
		for (i = 0; i < n->nkeys_gone; i++) {
			u64 k = n->keys_gone[i];

			sweep_chain(n, lne_nd_stat_bucket(n, k, false), k);
			sweep_chain(n, lne_nd_stat_bucket(n, k, true), k);
		}
	}
	n->nkeys_gone = 0;
}
