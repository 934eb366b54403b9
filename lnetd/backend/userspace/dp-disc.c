// SPDX-License-Identifier: GPL-2.0
/*
 * dp-disc.c - the userspace engine's discovery (engine/node-disc.c) in
 * lnetd: `lnetctl discover` over D-Bus, the node's log lines, and the push
 * to its peers when the local NIs change (an interface came or went).
 *
 * What discovery finds lives in the mirror (the node's instance) only:
 * the store, and so SQLite, holds what was configured, and a rebuild of the
 * mirror from the store forgets discovered peers (the next send finds them
 * again).  Discovery never deletes a configured peer or NID.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dp.h"
#include "lnetd/bus/bus-errors.h"
#include "lnetd/events.h"
#include "lnetd/lnetd.h"
#include "lnetd/log.h"

struct disc_call {
	struct lnetd_dp *dp;
	sd_bus_message *m;
	struct lne_nid nid;
};

static unsigned int calls; /* waiting, at most LNETD_PINGS_MAX */

/* The peer that has @nid, as Ping's reply puts a node: its primary NID first. */
static int reply_peer(sd_bus_message *m, const struct lne_inst *ln, const struct lne_nid *nid)
{
	const struct lne_peer_ni *pni = lne_peer_ni_find(ln, nid);
	const struct lne_peer_net *pnet;
	const struct lne_peer *peer;
	struct lnetk_ping *out;
	int rc;

	if (!pni) /* deleted while it was discovered */
		return sd_bus_reply_method_errorf(m, LNETD_ERR_NOT_FOUND, "the peer is gone");
	peer = lne_peer_of(pni);
	out = calloc(1, sizeof(*out));
	if (!out)
		return -ENOMEM;
	out->pid = LNW_PID_LUSTRE;
	out->features = peer->mr ? LNW_PING_FEAT_MULTI_RAIL : 0;
	lne_nid_format(&peer->primary, out->nid[0].nid, sizeof(out->nid[0].nid));
	out->nid[0].status = LNETK_NI_STATUS_UP;
	out->n = 1;
	lne_list_for_each_entry(pnet, &peer->pnets, link)
		lne_list_for_each_entry(pni, &pnet->pnis, pnet_link) {
			if (lne_nid_equal(&pni->nid, &peer->primary) ||
			    out->n == LNETK_PING_NIDS_MAX)
				continue;
			lne_nid_format(&pni->nid, out->nid[out->n].nid, sizeof(out->nid[0].nid));
			out->nid[out->n++].status = LNETK_NI_STATUS_UP;
		}
	rc = lnetd_ping_reply(m, out);
	free(out);
	return rc;
}

static void on_discovered(void *arg, int status)
{
	struct disc_call *c = arg;
	char buf[LNE_NID_STR_MAX];

	calls--;
	lne_nid_format(&c->nid, buf, sizeof(buf));
	if (status)
		sd_bus_reply_method_errorf(
			c->m, status == -ESHUTDOWN ? LNETD_ERR_UNSUPPORTED : LNETD_ERR_UNREACHABLE,
			"failed to discover %s: %s", buf, strerror(-status));
	else if (reply_peer(c->m, lnetd_dp_node(c->dp)->ln, &c->nid) < 0)
		sd_bus_reply_method_errorf(c->m, LNETD_ERR_PROTOCOL,
					   "cannot build the reply for %s", buf);
	sd_bus_message_unref(c->m);
	free(c);
}

int lnetd_dp_discover(struct lnetd_dp *dp, sd_bus_message *m, const struct lne_nid *nid, bool force,
		      sd_bus_error *e)
{
	struct lne_err err = {.msg = ""};
	struct disc_call *c;
	int rc;

	if (calls >= LNETD_PINGS_MAX)
		return sd_bus_error_setf(e, LNETD_ERR_LIMIT,
					 "%u discoveries are waiting already: try again later",
					 LNETD_PINGS_MAX);
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->dp = dp;
	c->m = sd_bus_message_ref(m);
	c->nid = *nid;
	calls++;
	rc = lne_node_discover(lnetd_dp_node(dp), nid, force, on_discovered, c, &err);
	if (rc) {
		calls--;
		sd_bus_message_unref(c->m);
		free(c);
		return sd_bus_error_setf(e,
					 rc == -EOPNOTSUPP     ? LNETD_ERR_UNSUPPORTED
					 : rc == -EHOSTUNREACH ? LNETD_ERR_UNREACHABLE
							       : LNETD_ERR_INVALID,
					 "%s", err.msg[0] ? err.msg : strerror(-rc));
	}
	lnetd_dp_kick(dp);
	return 1;
}

/* PeerDiscovered, through lnetd_event (the log and the bus agree). */
void lnetd_dp_discovered(void *ctx, const struct lne_peer *peer)
{
	struct lnetd *d = lnetd_dp_daemon(ctx);
	char prim[LNE_NID_STR_MAX], (*nids)[LNE_NID_STR_MAX] = NULL;
	const char **v = NULL;
	const struct lne_peer_net *pnet;
	const struct lne_peer_ni *pni;
	size_t n = 0;

	nids = calloc(peer->npni ? peer->npni : 1, sizeof(*nids));
	v = calloc(peer->npni ? peer->npni : 1, sizeof(*v));
	lne_list_for_each_entry(pnet, &peer->pnets, link)
		lne_list_for_each_entry(pni, &pnet->pnis, pnet_link)
			if (nids && v && n < peer->npni) {
				lne_nid_format(&pni->nid, nids[n], sizeof(nids[n]));
				v[n] = nids[n];
				n++;
			}
	lne_nid_format(&peer->primary, prim, sizeof(prim));
	lnetd_event(d,
		    &(struct lnetd_event){
			    .kind = LNETD_EV_PEER_DISCOVERED, .nid = prim, .nids = v, .nnids = n});
	free(v);
	free(nids);
}

void lnetd_dp_log(void *ctx, const char *line)
{
	(void)ctx;
	log_warning("data path: %s", line);
}

void lnetd_dp_nis_check(struct lnetd_dp *dp)
{
	struct lne_node *n = lnetd_dp_node(dp);
	u64 seq = n->ping_seq;

	lne_node_nis_check(n);
	if (n->ping_seq != seq)
		lnetd_dp_kick(dp);
}
