// SPDX-License-Identifier: GPL-2.0
/* The scenario backend that drives the engine in-process. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/select.h"
#include "engine/udsp.h"
#include "scn-engine.h"

static int nid_arg(const char *s, struct lne_nid *nid, char *out, size_t len)
{
	struct lne_err err;
	int rc = lne_nid_parse(s ? s : "", nid, &err);

	if (rc)
		snprintf(out, len, "%s", err.msg);
	return rc;
}

static int do_select(struct lne_inst *ln, const struct scn_cmd *c, struct lne_sel *sel, char *out,
		     size_t len)
{
	const char *kind = scn_opt(c, "kind", "put"), *src = scn_opt(c, "src", NULL);
	struct lne_sel_req req = {.md_cpt = LNE_CPT_ANY};
	struct lne_nid srcnid;
	struct lne_err err;
	long cpt;
	int rc;

	rc = nid_arg(scn_opt(c, "dst", NULL), &req.dst, out, len);
	if (rc)
		return rc;
	if (src) {
		rc = nid_arg(src, &srcnid, out, len);
		if (rc)
			return rc;
		req.src = &srcnid;
	}
	if (!scn_num(scn_opt(c, "cpt", NULL), &cpt))
		req.md_cpt = (s32)cpt;
	req.kind = !strcmp(kind, "get")	    ? LNE_MSG_GET
		   : !strcmp(kind, "ack")   ? LNE_MSG_ACK
		   : !strcmp(kind, "reply") ? LNE_MSG_REPLY
					    : LNE_MSG_PUT;
	rc = lne_select(ln, &req, sel, NULL, &err);
	if (rc)
		snprintf(out, len, "%s", err.msg);
	return rc;
}

static void sel_text(const struct lne_sel *sel, char *out, size_t len)
{
	char a[LNE_NID_STR_MAX], b[LNE_NID_STR_MAX], g[LNE_NID_STR_MAX];

	lne_nid_format(&sel->ni->nid, a, sizeof(a));
	lne_nid_format(&sel->pni->nid, b, sizeof(b));
	if (sel->route) {
		lne_nid_format(&sel->route->gw->nid, g, sizeof(g));
		snprintf(out, len, "ni=%s pni=%s gw=%s", a, b, g);
	} else {
		snprintf(out, len, "ni=%s pni=%s", a, b);
	}
}

/* One spread pick: select, then name the NID asked for. */
static int pick(void *ctx, const struct scn_cmd *c, const char *what, char *nid, size_t size,
		char *out, size_t len)
{
	struct scn_engine *se = ctx;
	struct lne_sel sel;
	int rc = do_select(se->ln, c, &sel, out, len);

	if (rc)
		return rc;
	if (!strcmp(what, "gw") && !sel.route)
		snprintf(nid, size, "direct");
	else
		lne_nid_format(!strcmp(what, "pni")  ? &sel.pni->nid
			       : !strcmp(what, "gw") ? &sel.route->gw->nid
						     : &sel.ni->nid,
			       nid, size);
	return 0;
}

static int do_peer(struct lne_inst *ln, const struct scn_cmd *c, char *out, size_t len)
{
	struct lne_nid prim, nid;
	struct lne_err err;
	int i, rc;

	if (!c->nargs)
		return -EINVAL;
	rc = nid_arg(c->args[0], &prim, out, len);
	if (!rc)
		rc = lne_peer_add(ln,
				  &(struct lne_peer_conf){
					  .primary = prim,
					  .multi_rail = strcmp(scn_opt(c, "mr", "1"), "0") != 0},
				  &err);
	for (i = 1; !rc && i < c->nargs; i++) {
		rc = nid_arg(c->args[i], &nid, out, len);
		if (!rc)
			rc = lne_peer_add_nid(ln, &prim, &nid, &err);
	}
	if (rc && !out[0])
		snprintf(out, len, "%s", err.msg);
	return rc;
}

static int exec_engine(void *ctx, const struct scn_cmd *c, char *out, size_t len)
{
	struct scn_engine *se = ctx;
	struct lne_inst *ln = se->ln;
	struct lne_err err = {.msg = ""};
	struct lne_nid nid, nid2;
	struct lne_sel sel;
	long v = 0;
	int rc = 0;

	if (c->op == SCN_SCENARIO) {
		lne_inst_free(se->ln);
		se->ln = lne_inst_new();
		return se->ln ? 0 : -ENOMEM;
	}
	if (!ln)
		return -EINVAL;
	switch (c->op) {
	case SCN_NI: {
		struct lne_ni_conf conf = {.dev_cpt = LNE_CPT_ANY,
					   .ifname = scn_opt(c, "if", NULL)};
		long cpt;

		rc = c->nargs == 1 ? nid_arg(c->args[0], &conf.nid, out, len) : -EINVAL;
		if (!rc && !scn_num(scn_opt(c, "cpt", NULL), &cpt))
			conf.dev_cpt = (s16)cpt;
		if (!rc)
			rc = lne_ni_add(ln, &conf, &err);
		break;
	}
	case SCN_NI_DEL:
	case SCN_NI_DOWN:
	case SCN_NI_UP:
	case SCN_NI_HEALTH:
	case SCN_NI_CREDITS:
	case SCN_PNI_HEALTH:
	case SCN_PNI_CREDITS:
		rc = c->nargs >= 1 ? nid_arg(c->args[0], &nid, out, len) : -EINVAL;
		if (!rc && c->op != SCN_NI_DEL && c->op != SCN_NI_DOWN && c->op != SCN_NI_UP)
			rc = c->nargs == 2 ? scn_num(c->args[1], &v) : -EINVAL;
		if (rc)
			break;
		rc = c->op == SCN_NI_DEL       ? lne_ni_del(ln, &nid, &err)
		     : c->op == SCN_NI_DOWN    ? lne_ni_set_up(ln, &nid, false, &err)
		     : c->op == SCN_NI_UP      ? lne_ni_set_up(ln, &nid, true, &err)
		     : c->op == SCN_NI_HEALTH  ? lne_ni_set_health(ln, &nid, (s32)v, &err)
		     : c->op == SCN_NI_CREDITS ? lne_ni_set_credits(ln, &nid, (s32)v, &err)
		     : c->op == SCN_PNI_HEALTH ? lne_peer_ni_set_health(ln, &nid, (s32)v, &err)
					       : lne_peer_ni_set_credits(ln, &nid, (s32)v, &err);
		break;
	case SCN_PEER:
		return do_peer(ln, c, out, len);
	case SCN_PEER_DEL:
		rc = c->nargs >= 1 ? nid_arg(c->args[0], &nid, out, len) : -EINVAL;
		if (!rc && c->nargs == 2)
			rc = nid_arg(c->args[1], &nid2, out, len);
		if (!rc)
			rc = c->nargs == 2 ? lne_peer_del_nid(ln, &nid, &nid2, &err)
					   : lne_peer_del(ln, &nid, &err);
		break;
	case SCN_ROUTE:
	case SCN_ROUTE_DEL: {
		lne_net_t net;
		long hops = LNE_HOPS_DEFAULT, prio = 0;

		if (c->nargs != 2)
			return -EINVAL;
		rc = lne_net_parse(c->args[0], &net, &err);
		if (!rc)
			rc = nid_arg(c->args[1], &nid, out, len);
		scn_num(scn_opt(c, "hops", NULL), &hops);
		scn_num(scn_opt(c, "prio", NULL), &prio);
		if (!rc)
			rc = c->op == SCN_ROUTE
				     ? lne_route_add(ln, net, &nid, (u32)hops, (u32)prio, 1, &err)
				     : lne_route_del(ln, net, &nid, &err);
		break;
	}
	case SCN_RULE: {
		enum lne_rule_outcome outcome;
		long prio = -1, idx = -1;
		u32 at;

		if (scn_opt(c, "prio", NULL) && scn_num(scn_opt(c, "prio", NULL), &prio))
			return -EINVAL;
		scn_num(scn_opt(c, "idx", NULL), &idx);
		rc = lne_rule_add(ln,
				  &(struct lne_rule_conf){.src = scn_opt(c, "src", NULL),
							  .dst = scn_opt(c, "dst", NULL),
							  .rte = scn_opt(c, "rte", NULL),
							  .priority = prio < 0 ? LNE_PRIO_NONE
									       : (u32)prio},
				  idx, &outcome, &at, &err);
		if (!rc)
			snprintf(out, len, "%s %u", outcome == LNE_RULE_ADDED ? "added" : "updated",
				 at);
		break;
	}
	case SCN_RULE_DEL:
		if (c->nargs == 1 && !strcmp(c->args[0], "all"))
			lne_rule_del_all(ln);
		else
			rc = c->nargs == 1 && !scn_num(c->args[0], &v)
				     ? lne_rule_del(ln, (u32)v, &err)
				     : -EINVAL;
		break;
	case SCN_GLOBAL: {
		int g = c->nargs == 2 ? lne_global_lookup(c->args[0]) : -EINVAL;

		rc = g < 0 ? g : scn_num(c->args[1], &v);
		if (!rc)
			rc = lne_global_set(ln, (enum lne_global)g, (u32)v, &err);
		break;
	}
	case SCN_NUMA: {
		unsigned int dist[LNE_MAX_CPTS * LNE_MAX_CPTS];
		long ncpt;

		rc = scn_numa(c, dist, LNE_ARRAY_SIZE(dist), &ncpt);
		if (rc)
			return rc;
		rc = lne_numa_set(ln, (u16)ncpt, dist, &err);
		break;
	}
	case SCN_SELECT:
		rc = do_select(ln, c, &sel, out, len);
		if (!rc)
			sel_text(&sel, out, len);
		return rc;
	case SCN_SPREAD:
		return scn_spread(c, pick, se, out, len);
	default:
		return -EINVAL;
	}
	if (rc && !out[0])
		snprintf(out, len, "%s", err.msg);
	return rc;
}

void scn_engine_init(struct scn_engine *se, struct scn_backend *be)
{
	se->ln = NULL;
	be->ctx = se;
	be->exec = exec_engine;
}

void scn_engine_fini(struct scn_engine *se)
{
	lne_inst_free(se->ln);
	se->ln = NULL;
}
