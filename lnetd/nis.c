// SPDX-License-Identifier: GPL-2.0
/*
 * nis.c - configured NIs against the interfaces that exist.
 *
 * The store keeps what the admin configured (a net on an interface); the
 * engine gets an NI only when the interface exists and has an IPv4
 * address, which gives the NID.  Reconciling runs at start and after every
 * rtnetlink change: an NI whose interface or address appears is applied, one
 * whose address changes is replaced, one whose interface or address goes
 * back to pending.  Nothing configured is dropped because hardware is late.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lnetd.h"

static void set_pending(struct lnetd_ni *n, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void set_pending(struct lnetd_ni *n, const char *fmt, ...)
{
	va_list ap;

	n->applied = false;
	va_start(ap, fmt);
	vsnprintf(n->reason, sizeof(n->reason), fmt, ap);
	va_end(ap);
}

/*
 * One NI.  Returns the engine's refusal (negative errno, the sentence in
 * n->reason) when the NI could be applied but the engine says no, 0
 * otherwise (applied, or pending for want of hardware).  *@changed says
 * whether it went from pending to applied or back.
 */
int lnetd_ni_reconcile(struct lnetd *d, struct lnetd_ni *n, bool *changed)
{
	struct lne_ni_conf c = {.dev_cpt = LNE_CPT_ANY, .ifname = n->ifname, .tun = &n->tun};
	struct lne_err err = {.msg = ""};
	bool was = n->applied;
	struct netif_state st;
	lne_net_t net;
	int rc = 0;

	*changed = false;
	if (netif_lookup(d->netif, n->ifname, &st) < 0 || lne_net_parse(n->net, &net, NULL))
		return 0; /* keep what we have; the next event looks again */
	c.nid = (struct lne_nid){.lnd = LNE_NET_LND(net), .num = LNE_NET_NUM(net), .alen = 4};
	if (st.has_ip4)
		memcpy(c.nid.addr, st.ip4, 4);
	if (n->applied && (!st.has_ip4 || !lne_nid_equal(&n->nid, &c.nid))) {
		lne_ni_del(d->mirror, &n->nid, NULL);
		n->applied = false;
	}
	if (!st.exists) {
		set_pending(n, "interface %s does not exist", n->ifname);
	} else if (!st.has_ip4) {
		set_pending(n, "interface %s has no IPv4 address", n->ifname);
	} else if (!n->applied) {
		rc = lne_ni_add(d->mirror, &c, &err);
		if (rc) {
			set_pending(n, "%s", err.msg);
		} else {
			n->applied = true;
			n->nid = c.nid;
			n->reason[0] = '\0';
		}
	}
	if (n->applied)
		lne_ni_set_up(d->mirror, &n->nid, st.up, NULL);
	*changed = was != n->applied;
	return rc;
}

void lnetd_nis_reconcile(struct lnetd *d)
{
	bool changed;
	size_t i;

	for (i = 0; i < d->nnis; i++) {
		lnetd_ni_reconcile(d, &d->nis[i], &changed);
		if (changed)
			fprintf(stderr, "lnetd: NI %s on %s: %s%s\n", d->nis[i].net,
				d->nis[i].ifname, d->nis[i].applied ? "applied" : "pending: ",
				d->nis[i].applied ? "" : d->nis[i].reason);
	}
}

static int load_one(const struct st_ni *ni, void *data)
{
	struct lnetd *d = data;
	struct lnetd_ni *n, *grown;
	lne_net_t net;

	if (!ni->ifname)
		return 0; /* ip2nets patterns: not handled yet, kept in the store */
	grown = realloc(d->nis, (d->nnis + 1) * sizeof(*d->nis));
	if (!grown)
		return -ENOMEM;
	d->nis = grown;
	n = &d->nis[d->nnis++];
	memset(n, 0, sizeof(*n));
	snprintf(n->net, sizeof(n->net), "%s", ni->net);
	snprintf(n->ifname, sizeof(n->ifname), "%s", ni->ifname);
	lne_tunables_default(lne_net_parse(ni->net, &net, NULL) ? 0 : LNE_NET_LND(net), &n->tun);
	if (ni->peer_timeout != ST_UNSET)
		n->tun.peer_timeout = (u32)ni->peer_timeout;
	if (ni->peer_credits != ST_UNSET)
		n->tun.peer_credits = (u32)ni->peer_credits;
	if (ni->peer_buffer_credits != ST_UNSET)
		n->tun.peer_buffer_credits = (u32)ni->peer_buffer_credits;
	if (ni->credits != ST_UNSET)
		n->tun.credits = (u32)ni->credits;
	set_pending(n, "%s", "not looked at yet");
	return 0;
}

int lnetd_nis_load(struct lnetd *d)
{
	return store_ni_list(d->store, load_one, d);
}
