// SPDX-License-Identifier: GPL-2.0
/*
 * nis-order.c - where a configured NI goes in d->nis (change.h).
 *
 * Lustre lists NIs in the order they were added, and a change of an NI's
 * tunables (net set) leaves it where it was.  lnetd's store keeps that order
 * as the NIs' row ids; d->nis follows it, so ListNIs, net show and export
 * agree before and after a restart.  lnetd changes an NI by deleting it and
 * adding it back in one change: the delete is noted here with the NI's id,
 * and the add takes the id, and so the place, again.  A new NI takes an id
 * past every other, deleted ones of the change included, so that it never
 * takes the row of one that comes back later in the same change.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "change.h"

static bool same_key(const struct lnetd_ni *a, const struct lnetd_ni *b)
{
	return !strcmp(a->net, b->net) && !strcmp(a->ifname, b->ifname) &&
	       (*a->ifname || !strcmp(a->pattern, b->pattern));
}

size_t lnetd_ni_place(struct lnetd *d, struct lnetd_ni *n)
{
	int64_t last = 0;
	size_t i;

	n->id = 0;
	for (i = 0; !n->id && i < d->nnis_gone; i++)
		if (same_key(&d->nis_gone[i], n))
			n->id = d->nis_gone[i].id;
	for (i = 0; !n->id && i < d->nnis_gone; i++)
		last = d->nis_gone[i].id > last ? d->nis_gone[i].id : last;
	for (i = 0; !n->id && i < d->nnis; i++)
		last = d->nis[i].id > last ? d->nis[i].id : last;
	if (!n->id)
		n->id = last + 1;
	for (i = 0; i < d->nnis && d->nis[i].id < n->id; i++)
		;
	return i;
}

int lnetd_nis_gone(struct lnetd *d, const struct lnetd_ni *n)
{
	struct lnetd_ni *grown = realloc(d->nis_gone, (d->nnis_gone + 1) * sizeof(*grown));

	if (!grown)
		return -ENOMEM;
	d->nis_gone = grown;
	/* The key and the id are all it needs: no pointer of @n is kept. */
	memset(&grown[d->nnis_gone], 0, sizeof(*grown));
	memcpy(grown[d->nnis_gone].net, n->net, sizeof(n->net));
	memcpy(grown[d->nnis_gone].ifname, n->ifname, sizeof(n->ifname));
	memcpy(grown[d->nnis_gone].pattern, n->pattern, sizeof(n->pattern));
	grown[d->nnis_gone++].id = n->id;
	return 0;
}

void lnetd_nis_gone_clear(struct lnetd *d)
{
	free(d->nis_gone);
	d->nis_gone = NULL;
	d->nnis_gone = 0;
}
