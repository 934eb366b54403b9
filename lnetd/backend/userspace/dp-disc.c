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
#include "lnetd/events.h"
#include "lnetd/lnetd.h"
#include "lnetd/log.h"

struct disc_call {
	struct lnetd_dp *dp;
	struct bk_call *c;
};

static unsigned int calls; /* waiting, at most LNETD_PINGS_MAX */

/* The peer that has @nid, as a ping's answer puts a node: its primary NID first. */
static int peer_info(struct bk_call *c, const struct lne_inst *ln)
{
	const struct lne_peer_ni *pni = lne_peer_ni_find(ln, &c->dst);
	struct bk_ping_info *out = &c->ping;
	const struct lne_peer_net *pnet;
	const struct lne_peer *peer;

	if (!pni) /* deleted while it was discovered */
		return lne_err_set(&c->err, -ENOENT, NULL, -1, "the peer is gone");
	peer = lne_peer_of(pni);
	out->pid = LNW_PID_LUSTRE;
	out->features = peer->mr ? LNW_PING_FEAT_MULTI_RAIL : 0;
	lne_nid_format(&peer->primary, out->nid[0].nid, sizeof(out->nid[0].nid));
	out->nid[0].status = LNE_PNI_UP;
	out->n = 1;
	lne_list_for_each_entry(pnet, &peer->pnets, link)
		lne_list_for_each_entry(pni, &pnet->pnis, pnet_link) {
			if (lne_nid_equal(&pni->nid, &peer->primary) || out->n == BK_PING_NIDS_MAX)
				continue;
			lne_nid_format(&pni->nid, out->nid[out->n].nid, sizeof(out->nid[0].nid));
			out->nid[out->n++].status = LNE_PNI_UP;
		}
	return 0;
}

static void on_discovered(void *arg, int status)
{
	struct disc_call *dc = arg;
	struct bk_call *c = dc->c;
	char buf[LNE_NID_STR_MAX];

	calls--;
	lne_nid_format(&c->dst, buf, sizeof(buf));
	if (status)
		c->rc = lne_err_set(&c->err, status == -ESHUTDOWN ? -EOPNOTSUPP : -EHOSTUNREACH,
				    NULL, -1, "failed to discover %s: %s", buf, strerror(-status));
	else
		c->rc = peer_info(c, lnetd_dp_node(dc->dp)->ln);
	free(dc);
	c->done(c);
}

int lnetd_dp_discover(struct lnetd_dp *dp, struct bk_call *c)
{
	struct disc_call *dc;
	int rc;

	if (calls >= LNETD_PINGS_MAX)
		return lne_err_set(&c->err, -E2BIG, NULL, -1,
				   "%u discoveries are waiting already: try again later",
				   LNETD_PINGS_MAX);
	dc = calloc(1, sizeof(*dc));
	if (!dc)
		return -ENOMEM;
	dc->dp = dp;
	dc->c = c;
	calls++;
	rc = lne_node_discover(lnetd_dp_node(dp), &c->dst, c->force, on_discovered, dc, &c->err);
	if (rc) {
		calls--;
		free(dc);
		if (!c->err.msg[0])
			lne_err_set(&c->err, rc, NULL, -1, "%s", strerror(-rc));
		return rc;
	}
	lnetd_dp_kick(dp);
	return 0;
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
