// SPDX-License-Identifier: GPL-2.0
/*
 * scn-kernel.c - the scenario backend that drives the module over netlink.
 *
 * It mirrors tests/unit/scn-engine.c line for line: the same argument
 * checks made here (an argument count, a number that does not parse) give
 * the same errno, everything else is the module's verdict, and select and
 * spread print their outcome in the same words.  Where the engine backend
 * calls two engine functions (a peer, then its NIDs), this one sends the
 * one command that means both.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scn-kernel.h"

/* Copy @s into a fixed-size field; a NID too long to fit goes as is and the kernel refuses it. */
static int field(char *dst, size_t size, const char *s)
{
	if (!s || strlen(s) >= size)
		return -EINVAL;
	strcpy(dst, s);
	return 0;
}

static int done(int rc, const struct lnetk_err *err, char *out, size_t len)
{
	if (rc && !out[0])
		snprintf(out, len, "%s", err->msg);
	return rc;
}

static int do_select(struct lnetk *lk, const struct scn_cmd *c, struct lnetk_selection *sel,
		     char *out, size_t len)
{
	const char *kind = scn_opt(c, "kind", "put");
	struct lnetk_select_req req = {.md_cpt = -1};
	struct lnetk_err err;
	long cpt;

	/* The engine backend refuses a missing dst as a NID that does not parse. */
	req.dst = scn_opt(c, "dst", "");
	req.src = scn_opt(c, "src", NULL);
	if (!scn_num(scn_opt(c, "cpt", NULL), &cpt))
		req.md_cpt = (int32_t)cpt;
	req.kind = !strcmp(kind, "get")	    ? LNETK_MSG_GET
		   : !strcmp(kind, "ack")   ? LNETK_MSG_ACK
		   : !strcmp(kind, "reply") ? LNETK_MSG_REPLY
					    : LNETK_MSG_PUT;
	return done(lnetk_select(lk, &req, sel, NULL, &err), &err, out, len);
}

static void sel_text(const struct lnetk_selection *sel, char *out, size_t len)
{
	if (sel->gateway[0])
		snprintf(out, len, "ni=%s pni=%s gw=%s", sel->ni, sel->peer_ni, sel->gateway);
	else
		snprintf(out, len, "ni=%s pni=%s", sel->ni, sel->peer_ni);
}

/* One spread pick: select, then name the NID asked for. */
static int pick(void *ctx, const struct scn_cmd *c, const char *what, char *nid, size_t size,
		char *out, size_t len)
{
	struct scn_kernel *sk = ctx;
	struct lnetk_selection sel;
	int rc = do_select(sk->lk, c, &sel, out, len);

	if (rc)
		return rc;
	snprintf(nid, size, "%s",
		 !strcmp(what, "pni")  ? sel.peer_ni
		 : !strcmp(what, "gw") ? (sel.gateway[0] ? sel.gateway : "direct")
				       : sel.ni);
	return 0;
}

/* A brand-new instance: the one of a brand-new network namespace. */
static int fresh_instance(struct scn_kernel *sk)
{
	lnetk_close(sk->lk);
	sk->lk = NULL;
	if (unshare(CLONE_NEWNET) < 0)
		return -errno;
	sk->scenarios++;
	return lnetk_open(&sk->lk);
}

static int do_ni_op(struct lnetk *lk, const struct scn_cmd *c, struct lnetk_err *err)
{
	struct lnetk_ni ni = {.has = 0};
	struct lnetk_peer_ni pni = {.has = 0};
	bool peer = c->op == SCN_PNI_HEALTH || c->op == SCN_PNI_CREDITS;
	long v = 0;

	if (c->nargs < 1)
		return -EINVAL;
	if (c->op != SCN_NI_DEL && c->op != SCN_NI_DOWN && c->op != SCN_NI_UP &&
	    (c->nargs != 2 || scn_num(c->args[1], &v)))
		return -EINVAL;
	if (field(peer ? pni.nid : ni.nid, LNETK_NID_MAX, c->args[0]))
		return -EINVAL;
	switch (c->op) {
	case SCN_NI_DEL:
		return lnetk_ni_del(lk, c->args[0], err);
	case SCN_NI_DOWN:
	case SCN_NI_UP:
		ni.has = LNETK_HAS_NI_UP;
		ni.up = c->op == SCN_NI_UP;
		break;
	case SCN_NI_HEALTH:
		ni.has = LNETK_HAS_NI_HEALTH;
		ni.health = (uint32_t)v; /* -1 arrives as 4294967295: out of range either way */
		break;
	case SCN_NI_CREDITS:
		ni.has = LNETK_HAS_NI_TX_CREDITS;
		ni.tx_credits = (int32_t)v;
		break;
	case SCN_PNI_HEALTH:
		pni.has = LNETK_HAS_PNI_HEALTH;
		pni.health = (uint32_t)v;
		return lnetk_peer_ni_set(lk, &pni, err);
	default:
		pni.has = LNETK_HAS_PNI_CREDITS;
		pni.credits = (int32_t)v;
		return lnetk_peer_ni_set(lk, &pni, err);
	}
	return lnetk_ni_set(lk, &ni, err);
}

static int exec_kernel(void *ctx, const struct scn_cmd *c, char *out, size_t len)
{
	struct scn_kernel *sk = ctx;
	struct lnetk *lk = sk->lk;
	struct lnetk_err err = {.msg = ""};
	struct lnetk_selection sel;
	long v = 0;
	int rc = 0;

	if (c->op == SCN_SCENARIO) {
		rc = fresh_instance(sk);
		if (rc)
			snprintf(out, len, "a new namespace and client: %s", strerror(-rc));
		return rc;
	}
	if (!lk)
		return -EINVAL;
	switch (c->op) {
	case SCN_NI: {
		struct lnetk_ni ni = {.has = 0};
		const char *ifname = scn_opt(c, "if", NULL);
		long cpt;

		if (c->nargs != 1 || field(ni.nid, sizeof(ni.nid), c->args[0]))
			return -EINVAL;
		if (ifname) {
			ni.has |= LNETK_HAS_NI_IFNAME;
			if (field(ni.ifname, sizeof(ni.ifname), ifname))
				return -EINVAL;
		}
		if (!scn_num(scn_opt(c, "cpt", NULL), &cpt)) {
			ni.has |= LNETK_HAS_NI_DEV_CPT;
			ni.dev_cpt = (int32_t)cpt;
		}
		rc = lnetk_ni_add(lk, &ni, &err);
		break;
	}
	case SCN_NI_DEL:
	case SCN_NI_DOWN:
	case SCN_NI_UP:
	case SCN_NI_HEALTH:
	case SCN_NI_CREDITS:
	case SCN_PNI_HEALTH:
	case SCN_PNI_CREDITS:
		rc = do_ni_op(lk, c, &err);
		break;
	case SCN_PEER:
		if (!c->nargs)
			return -EINVAL;
		rc = lnetk_peer_add(lk, c->args[0], strcmp(scn_opt(c, "mr", "1"), "0") != 0,
				    c->args + 1, (size_t)c->nargs - 1, &err);
		break;
	case SCN_PEER_DEL:
		if (c->nargs < 1)
			return -EINVAL;
		rc = lnetk_peer_del(lk, c->args[0], c->args + 1, c->nargs == 2 ? 1 : 0, &err);
		break;
	case SCN_ROUTE:
	case SCN_ROUTE_DEL: {
		struct lnetk_route r = {.has = LNETK_HAS_ROUTE_HOPS | LNETK_HAS_ROUTE_PRIORITY |
					       LNETK_HAS_ROUTE_SENSITIVITY,
					.hops = 1,
					.sensitivity = 1};
		long hops = 1, prio = 0;

		if (c->nargs != 2 || field(r.net, sizeof(r.net), c->args[0]) ||
		    field(r.gateway, sizeof(r.gateway), c->args[1]))
			return -EINVAL;
		scn_num(scn_opt(c, "hops", NULL), &hops);
		scn_num(scn_opt(c, "prio", NULL), &prio);
		r.hops = (uint32_t)hops;
		r.priority = (uint32_t)prio;
		rc = c->op == SCN_ROUTE ? lnetk_route_add(lk, &r, &err)
					: lnetk_route_del(lk, r.net, r.gateway, &err);
		break;
	}
	case SCN_RULE: {
		struct lnetk_rule rule = {.src = scn_opt(c, "src", NULL),
					  .dst = scn_opt(c, "dst", NULL),
					  .rte = scn_opt(c, "rte", NULL)};
		enum lnetk_rule_outcome outcome;
		long prio = -1, idx = -1;
		uint32_t at;

		if (scn_opt(c, "prio", NULL) && scn_num(scn_opt(c, "prio", NULL), &prio))
			return -EINVAL;
		scn_num(scn_opt(c, "idx", NULL), &idx);
		rule.prio = prio < 0 ? LNETK_PRIO_NONE : (uint32_t)prio;
		rule.idx = idx;
		rc = lnetk_rule_add(lk, &rule, &outcome, &at, &err);
		if (!rc)
			snprintf(out, len, "%s %u",
				 outcome == LNETK_RULE_ADDED ? "added" : "updated", at);
		break;
	}
	case SCN_RULE_DEL:
		if (c->nargs == 1 && !strcmp(c->args[0], "all"))
			rc = lnetk_rule_del_all(lk, &err);
		else
			rc = c->nargs == 1 && !scn_num(c->args[0], &v)
				     ? lnetk_rule_del(lk, (uint32_t)v, &err)
				     : -EINVAL;
		break;
	case SCN_GLOBAL:
		if (c->nargs != 2 || scn_num(c->args[1], &v))
			return -EINVAL;
		rc = lnetk_global_set(lk, c->args[0], (uint32_t)v, &err);
		break;
	case SCN_NUMA: {
		unsigned int dist[LNETK_MAX_CPTS * LNETK_MAX_CPTS];
		long ncpt;

		rc = scn_numa(c, dist, sizeof(dist) / sizeof(dist[0]), &ncpt);
		if (rc)
			return rc;
		rc = lnetk_numa_set(lk, (uint32_t)ncpt, dist, &err);
		break;
	}
	case SCN_SELECT:
		rc = do_select(lk, c, &sel, out, len);
		if (!rc)
			sel_text(&sel, out, len);
		return rc;
	case SCN_SPREAD:
		return scn_spread(c, pick, sk, out, len);
	default:
		return -EINVAL;
	}
	return done(rc, &err, out, len);
}

void scn_kernel_init(struct scn_kernel *sk, struct scn_backend *be)
{
	sk->lk = NULL;
	sk->scenarios = 0;
	be->ctx = sk;
	be->exec = exec_kernel;
}

void scn_kernel_fini(struct scn_kernel *sk)
{
	lnetk_close(sk->lk);
	sk->lk = NULL;
}
