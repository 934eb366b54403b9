// SPDX-License-Identifier: GPL-2.0
/*
 * conf-parse-peer.c - lnet.conf's peer: and route: sections, and the
 * Multi-Rail design's peers:, into peer and route ops.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "conf-int.h"
#include "engine/peer-attrs.h"
#include "engine/route-attrs.h"

/* ---------------------------------------------------------------------- */
/* peer:                                                                  */
/* ---------------------------------------------------------------------- */

struct peer_spec {
	yaml_node_t *prim;
	struct cfp_nodes nids;
	bool got[LNE_PEER_A__COUNT], v[LNE_PEER_A__COUNT]; /* engine/peer-attrs.h's settings */
};

static int h_pni_nid(struct cfp *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	yaml_node_t **nid = st;
	const char *s;

	*nid = v;
	return cfp_get_str(p, "nid", v, &s);
}

static const struct cfp_keydef peer_ni_keys[] = {
	{"nid", h_pni_nid},
	{"state", NULL},
	{"max_ni_tx_credits", NULL},
	{"available_tx_credits", NULL},
	{"min_tx_credits", NULL},
	{"tx_q_num_of_buf", NULL},
	{"available_rtr_credits", NULL},
	{"min_rtr_credits", NULL},
	{"refcount", NULL},
	{"statistics", NULL},
	{"sent_stats", NULL},
	{"received_stats", NULL},
	{"dropped_stats", NULL},
	{"health stats", NULL},
	{"udsp info", NULL},
	{NULL, NULL},
};

static int do_peer_ni(struct cfp *p, yaml_node_t *item, void *st)
{
	struct peer_spec *s = st;
	yaml_node_t *nid = NULL;
	int rc = cfp_walk_map(p, item, "peer ni", "a peer NI", peer_ni_keys, &nid);

	if (!rc && !nid)
		rc = cfp_fail(p, item, "nid", "missing in a peer NI");
	return rc ? rc : cfp_nodes_push(p, &s->nids, nid);
}

static int h_primary(struct cfp *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	struct peer_spec *s = st;
	const char *str;

	s->prim = v;
	return cfp_get_str(p, "primary nid", v, &str);
}

/* A setting of engine/peer-attrs.h, by its YAML key ("Multi-Rail"). */
static int h_setting(struct cfp *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	struct peer_spec *s = st;
	const char *key = cfp_sval(k);
	int a;

	for (a = 0; a < LNE_PEER_A__COUNT; a++)
		if (lne_peer_desc[a].yaml[0] && !strcmp(lne_peer_desc[a].yaml, key))
			break;
	if (a == LNE_PEER_A__COUNT)
		return cfp_fail(p, k, key, "invalid key in a peer");
	s->got[a] = true;
	return cfp_get_bool(p, lne_peer_desc[a].yaml, v, &s->v[a]);
}

/* The settings Lustre's YAML has; the others (yaml "") have no key. */
#define PEER_KEY(id, name, yaml, ...) {yaml, h_setting},

static int h_peer_nis(struct cfp *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	return cfp_walk_seq(p, v, "peer ni", "peer NIs", do_peer_ni, st);
}

static const struct cfp_keydef peer_keys[] = {
	{"primary nid", h_primary},
	LNE_PEER_ATTRS(PEER_KEY){"peer ni", h_peer_nis},
	{"peer state", NULL},
	{"seq_no", NULL},
	{NULL, NULL},
};

int cfp_peer_item(struct cfp *p, yaml_node_t *item, void *st)
{
	struct peer_spec s = {0};
	const char **nids = NULL;
	struct cf_op *op;
	bool whole = false; /* del: the primary is listed, the peer goes */
	size_t i, n = 0;
	int rc = cfp_walk_map(p, item, "peer", "a peer", peer_keys, &s);

	if (!rc && !s.prim)
		rc = cfp_fail(p, item, "primary nid", "missing in a peer");
	if (rc)
		goto out;
	/* Lustre lists the primary among the peer NIs; the op names it once. */
	nids = calloc(s.nids.n + 1, sizeof(*nids));
	if (!nids) {
		rc = cfp_nomem(p);
		goto out;
	}
	for (i = 0; i < s.nids.n; i++) {
		if (strcmp(cfp_sval(s.nids.v[i]), cfp_sval(s.prim)))
			nids[n++] = cfp_sval(s.nids.v[i]);
		else
			whole = true;
	}
	op = cfp_op_at(cfp_verb(p), "peer", item);
	if (!op) {
		rc = cfp_nomem(p);
		goto out;
	}
	rc = cf_op_set_str(op, "primary", cfp_sval(s.prim));
	/* An add always lists the other NIDs, as lnetd's Export does; a del only to remove some. */
	if (!rc && (p->mode == CF_ADD || (n && !whole)))
		rc = cf_op_set_strv(op, "nids", nids, n);
	for (i = 0; i < LNE_PEER_A__COUNT; i++)
		if (!rc && s.got[i] && p->mode == CF_ADD)
			rc = cf_op_set_bool(op, lne_peer_desc[i].name, s.v[i]);
	rc = cfp_push(p, op, rc);
out:
	free(nids);
	free(s.nids.v);
	return rc;
}

int cfp_sec_peer(struct cfp *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	if (p->streamed && v == cfp_node(p, p->streamed))
		return cfp_streamed(p); /* walked as it was read */
	return cfp_walk_seq(p, v, "peer", "peers", cfp_peer_item, NULL);
}

/* ---------------------------------------------------------------------- */
/* peers: (the Multi-Rail design's form)                                  */
/* ---------------------------------------------------------------------- */

/*
 * A peer's nids: "nids: {0: a, 1: b}" or a list; or, as the design prints
 * its first examples, "- nids:" with the numbered NIDs at the same indent,
 * which YAML reads as siblings of an empty nids: (taken as meant).
 */
static int seed_peer_nids(struct cfp *p, yaml_node_t *item, struct cfp_nodes *nids)
{
	const yaml_node_pair_t *pr;
	bool have_nids = false;
	const char *str;
	int rc = cfp_check_map(p, item, "peers", "a peer");

	for (pr = item->data.mapping.pairs.start; !rc && pr < item->data.mapping.pairs.top; pr++) {
		yaml_node_t *k = cfp_node(p, pr->key), *v = cfp_node(p, pr->value);
		const char *key = cfp_sval(k);

		if (!strcmp(key, "nids")) {
			have_nids = true;
			if (!cfp_is_null(v))
				rc = cfp_get_strs(p, k, v, nids);
		} else if (*key && strspn(key, "0123456789") == strlen(key)) {
			rc = cfp_get_str(p, key, v, &str);
			rc = rc ? rc : cfp_nodes_push(p, nids, v);
		} else if (strcmp(key, "seq_no")) {
			rc = cfp_fail(p, k, key, "invalid key in a peer");
		}
	}
	if (!rc && !have_nids)
		rc = cfp_fail(p, item, "nids", "missing in a peer");
	return rc;
}

/*
 * "- nids: {0: a, 1: b}": a peer with exactly these NIDs.  Importing it again
 * with another list refreshes the peer (set peer: NIDs added and removed to
 * match); with --del, the listed NIDs of the peer that has them go.
 */
static int do_seed_peer(struct cfp *p, yaml_node_t *item, void *st)
{
	struct cfp_nodes nids = {0};
	const char **v = NULL;
	struct cf_op *op = NULL;
	size_t i;
	int rc = seed_peer_nids(p, item, &nids);

	if (!rc && !nids.n)
		rc = cfp_fail(p, item, "nids", "missing in a peer");
	if (!rc) {
		v = calloc(nids.n, sizeof(*v));
		op = cfp_op_at(p->mode == CF_DEL ? "del" : "set", "peer", item);
		rc = v && op ? cf_op_set_str(op, "primary", cfp_sval(nids.v[0])) : -ENOMEM;
		/* set: the others; del: all of them, the first too (it names the peer). */
		for (i = 0; v && i < nids.n; i++)
			v[i] = cfp_sval(nids.v[i]);
		if (!rc)
			rc = p->mode == CF_DEL ? cf_op_set_strv(op, "nids", v, nids.n)
					       : cf_op_set_strv(op, "nids", v + 1, nids.n - 1);
		rc = cfp_push(p, op, rc);
	}
	free(v);
	free(nids.v);
	return rc;
}

int cfp_sec_peers(struct cfp *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	return cfp_walk_seq(p, v, "peers", "peers", do_seed_peer, NULL);
}

/* ---------------------------------------------------------------------- */
/* route:                                                                  */
/* ---------------------------------------------------------------------- */

struct route_spec {
	yaml_node_t *net, *gw;
	bool set[LNE_ROUTE_A__COUNT];
	uint32_t v[LNE_ROUTE_A__COUNT];
};

static int h_route_str(struct cfp *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	struct route_spec *s = st;
	const char *str;

	if (!strcmp(cfp_sval(k), "net"))
		s->net = v;
	else
		s->gw = v;
	return cfp_get_str(p, cfp_sval(k), v, &str);
}

static int h_route_u32(struct cfp *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	struct route_spec *s = st;
	int i = lne_route_attr_by_yaml(cfp_sval(k));
	bool dflt;
	int rc;

	if (i < 0) /* only the keys of route_keys come here */
		return cfp_fail(p, k, cfp_sval(k), "is not a route setting");
	rc = cfp_get_u32(p, cfp_sval(k), v, &s->v[i], &dflt);
	s->set[i] = !rc && !dflt;
	return rc;
}

static const struct cfp_keydef route_keys[] = {
	{"net", h_route_str},
	{"gateway", h_route_str},
#define ROUTE_KEY(id, name, yaml, ...) {yaml, h_route_u32},
	LNE_ROUTE_ATTRS(ROUTE_KEY)
#undef ROUTE_KEY
		{"state", NULL},
	{"type", NULL},
	{"seq_no", NULL},
	{NULL, NULL},
};

static int do_route(struct cfp *p, yaml_node_t *item, void *st)
{
	struct route_spec s = {0};
	struct cf_op *op;
	size_t i;
	int rc = cfp_walk_map(p, item, "route", "a route", route_keys, &s);

	if (rc)
		return rc;
	if (!s.net)
		return cfp_fail(p, item, "net", "missing in a route");
	if (!s.gw)
		return cfp_fail(p, item, "gateway", "missing in a route");
	op = cfp_op_at(cfp_verb(p), "route", item);
	if (!op)
		return cfp_nomem(p);
	rc = cf_op_set_str(op, "net", cfp_sval(s.net));
	rc = rc ? rc : cf_op_set_str(op, "gateway", cfp_sval(s.gw));
	for (i = 0; !rc && p->mode == CF_ADD && i < LNE_ROUTE_A__COUNT; i++)
		if (s.set[i])
			rc = cf_op_set_u32(op, lne_route_desc[i].name, s.v[i]);
	return cfp_push(p, op, rc);
}

int cfp_sec_route(struct cfp *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	return cfp_walk_seq(p, v, "route", "routes", do_route, NULL);
}
