// SPDX-License-Identifier: GPL-2.0
/*
 * lustre-view.c - the lustre engine's running state and data path
 * (backend.h): route states, counters and health from lnet.ko, and ping
 * and discover, which block in lnet.ko until the network answers: each
 * runs on a thread of its own with a library handle of its own
 * (bk_call_on_thread()).  What lnet.ko cannot do for lnetd (fault rules,
 * selftest, explain, recovery queues) has no op: callers get NotSupported.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lustre-int.h"

/* 0 with @lu open, or -ENODEV with the sentence when lnet.ko is away. */
static int open_for(struct backend *b, struct lu **lu, struct lne_err *err, const char *has_no)
{
	struct lbackend *lb = (struct lbackend *)b;
	struct lne_err e = {.pos = -1, .msg = ""};
	int rc = lb_open(lb, lu, &e);

	if (rc == -ENODEV)
		return err ? lne_err_set(err, rc, NULL, -1, LB_NOT_LOADED ": it has no %s", has_no)
			   : rc;
	if (rc && err)
		return lne_err_set(err, rc, NULL, -1, "%s", e.msg[0] ? e.msg : strerror(-rc));
	return rc;
}

int lb_route_states(struct backend *b, bk_route_fn fn, void *arg)
{
	struct lu_route *rs = NULL;
	struct lu *lu;
	size_t n = 0, i;
	int rc = open_for(b, &lu, NULL, "routes");

	if (rc)
		return rc;
	rc = lu_route_list(lu, &rs, &n, NULL);
	lu_close(lu);
	for (i = 0; !rc && i < n; i++)
		rc = fn(arg, rs[i].net, &rs[i].gw, !rs[i].alive);
	free(rs);
	return rc;
}

int lb_counters(struct backend *b, bk_count_fn fn, void *arg, struct lne_err *err)
{
	/* lnet.ko's health counters, in its order (the last two from 2.17) */
	static const char *const health[15] = {
		"rst_alloc",
		"resend_count",
		"response_timeout_count",
		"local_interrupt_count",
		"local_dropped_count",
		"local_aborted_count",
		"local_no_route_count",
		"local_timeout_count",
		"local_error_count",
		"remote_dropped_count",
		"remote_error_count",
		"remote_timeout_count",
		"network_timeout_count",
		"failed_resends",
		"successful_resends",
	};
	struct lu_stats st;
	struct lu *lu;
	unsigned int i, nh;
	int rc = open_for(b, &lu, err, "counters");

	if (rc)
		return rc;
	rc = lu_stats(lu, &st, err);
	nh = lu_info(lu)->stats_resends ? 15 : 13;
	if (rc) {
		lu_close(lu);
		return rc;
	}
	{
		const struct {
			const char *name;
			uint64_t v;
		} c[] = {
			{"msgs_alloc", st.msgs_alloc},	 {"msgs_max", st.msgs_max},
			{"errors", st.errors},		 {"send_count", st.send_count},
			{"recv_count", st.recv_count},	 {"route_count", st.route_count},
			{"drop_count", st.drop_count},	 {"send_length", st.send_length},
			{"recv_length", st.recv_length}, {"route_length", st.route_length},
			{"drop_length", st.drop_length},
		};

		for (i = 0; !rc && i < sizeof(c) / sizeof(c[0]); i++)
			rc = fn(arg, NULL, false, c[i].name, c[i].v);
	}
	for (i = 0; !rc && i < nh; i++)
		rc = fn(arg, NULL, false, health[i], st.health[i]);
	/* then each NI's and each owned peer NI's, lnet.ko's own (lustre-state.c) */
	if (!rc)
		rc = lb_counters_by_nid(b, lu, fn, arg, err);
	lu_close(lu);
	return rc < 0 ? rc : 0;
}

int lb_counters_reset(struct backend *b, struct lne_err *err)
{
	struct lu *lu;
	int rc = open_for(b, &lu, err, "counters");

	if (rc)
		return rc;
	rc = lu_stats_reset(lu, err);
	lu_close(lu);
	return rc;
}

int lb_set_health(struct backend *b, bool peer, const struct lne_nid *nid, uint32_t value,
		  struct lne_err *err)
{
	struct lu *lu;
	int rc = open_for(b, &lu, err, "health");

	if (rc)
		return rc;
	if (value > INT16_MAX)
		rc = lne_err_set(err, -ERANGE, NULL, -1, "lnet.ko %s holds health up to %d",
				 lu_vname(lu), INT16_MAX);
	else
		rc = lu_health_set(lu, peer, nid, (s32)value, err);
	lu_close(lu);
	return rc;
}

/* --- ping and discover: a thread each, a handle each -------------------------------------- */

static void ping_info(struct bk_call *c, const struct lu_ping_reply *p)
{
	size_t i;

	c->ping.features = 0;
	c->ping.pid = 12345; /* LNET_PID_LUSTRE, the only one lnet.ko answers from */
	c->ping.n = 0;
	for (i = 0; i < p->n && i < BK_PING_NIDS_MAX; i++) {
		lne_nid_format(&p->nids[i], c->ping.nid[i].nid, sizeof(c->ping.nid[i].nid));
		c->ping.nid[i].status = LNE_PNI_NA; /* lnet.ko's ping answer carries none */
		c->ping.n++;
	}
}

static void run_ping(struct bk_call *c, bool discover)
{
	struct lu_ping_reply *reply = calloc(1, sizeof(*reply));
	struct lne_err err = {.pos = -1, .msg = ""};
	char dst[LNE_NID_STR_MAX];
	struct lu *lu = NULL;
	int rc = reply ? lu_open(&lu, NULL, &err) : -ENOMEM;

	if (!rc && discover)
		rc = lu_discover(lu, &c->dst, c->force, reply, &err);
	else if (!rc)
		rc = lu_ping(lu, &c->dst, c->timeout_ms, c->has_src ? &c->src : NULL, reply, &err);
	lu_close(lu);
	if (rc) {
		lne_nid_format(&c->dst, dst, sizeof(dst));
		c->rc = lne_err_set(&c->err, rc, NULL, -1, "failed to %s %s: %s",
				    discover ? "discover" : "ping", dst,
				    err.msg[0] ? err.msg : strerror(-rc));
	} else {
		c->rc = 0;
		ping_info(c, reply);
	}
	free(reply);
}

static void run_ping_only(struct bk_call *c)
{
	run_ping(c, false);
}

static void run_discover(struct bk_call *c)
{
	run_ping(c, true);
}

static int absent(struct backend *b, struct lne_err *err)
{
	const struct lbackend *lb = (const struct lbackend *)b;

	if (lb->loaded)
		return 0;
	return lne_err_set(err, -ENODEV, NULL, -1, LB_NOT_LOADED ": it has no data path");
}

int lb_ping(struct backend *b, struct bk_call *c)
{
	return absent(b, &c->err) ?: bk_call_on_thread(b, c, run_ping_only);
}

int lb_discover(struct backend *b, struct bk_call *c)
{
	return absent(b, &c->err) ?: bk_call_on_thread(b, c, run_discover);
}
