// SPDX-License-Identifier: GPL-2.0
/*
 * The generic sync (lnetd/backend/sync.c) through a recording writer: its
 * "engine" is a second engine instance that every accepted request
 * changes, and every call is written down in order, so a test sees what
 * was sent, in what order, and that the engine ends equal to the mirror
 * (state_text(): every object with its flattened UDSP values).  The writer
 * refuses a chosen request with a sentence, stops answering from a chosen
 * call on, and batches when asked (all or nothing: a batch builds on a copy
 * of the engine).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <syslog.h>

#include "engine/expr.h"
#include "engine/udsp.h"
#include "lnetd/backend/sync.h"
#include "state.h"
#include "unit.h"

#define CALLS_MAX 1024

struct rec {
	struct lne_inst *eng;  /* what the engine holds */
	struct lne_inst *next; /* in a batch: what it will hold */
	char calls[CALLS_MAX][96];
	size_t n;
	const char *refuse;  /* a call starting with this is refused, with a sentence */
	size_t cut;	     /* from this call on (1 the first) nothing answers; 0 never */
	bool batching;	     /* offer batches */
	bool refuse_batches; /* ... and refuse them */
	size_t batched;
	char logged[8][BK_WHY_MAX];
	size_t nlogged;
};

static struct lne_nid N(const char *s) {
	struct lne_nid nid;
	struct lne_err err;

	ck_assert_msg(!lne_nid_parse(s, &nid, &err), "%s", err.msg);
	return nid;
}

/* Write the call down; its answer: 0, a refusal with a sentence, or silence. */
static int
call(struct rec *w, struct lne_err *err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int call(struct rec *w, struct lne_err *err, const char *fmt, ...)
{
	char *c;
	va_list ap;

	ck_assert_uint_lt(w->n, CALLS_MAX);
	c = w->calls[w->n++];
	c[0] = w->next ? '+' : ' ';
	va_start(ap, fmt);
	vsnprintf(c + 1, sizeof(w->calls[0]) - 1, fmt, ap);
	va_end(ap);
	if (w->cut && w->n >= w->cut)
		return -ENOTCONN; /* no sentence: unreachable */
	if (w->refuse && !strncmp(c + 1, w->refuse, strlen(w->refuse)))
		return lne_err_set(err, -EINVAL, NULL, -1, "no: %s", c + 1);
	return 0;
}

/* Where an accepted request lands: the batch's copy, or the engine. */
static struct lne_inst *target(struct rec *w)
{
	if (w->next)
		w->batched++;
	return w->next ?: w->eng;
}

static const char *text(const struct lne_nid *nid, char buf[LNE_NID_STR_MAX])
{
	lne_nid_format(nid, buf, LNE_NID_STR_MAX);
	return buf;
}

static int w_rule_del(void *ctx, u32 idx, struct lne_err *err)
{
	struct rec *w = ctx;
	int rc = call(w, err, "rule_del %u", idx);

	return rc ?: lne_rule_del(target(w), idx, NULL);
}

static int w_rule_del_all(void *ctx, struct lne_err *err)
{
	struct rec *w = ctx;
	int rc = call(w, err, "rule_del_all");

	if (!rc)
		lne_rule_del_all(target(w));
	return rc;
}

static int w_route_del(void *ctx, const struct lne_route *have, struct lne_err *err)
{
	struct rec *w = ctx;
	char net[LNE_NET_STR_MAX], gw[LNE_NID_STR_MAX];
	int rc;

	lne_net_format(have->rnet->id, net, sizeof(net));
	rc = call(w, err, "route_del %s %s", net, text(&have->gw->nid, gw));
	return rc ?: lne_route_del(target(w), have->rnet->id, &have->gw->nid, NULL);
}

static int w_peer_del(void *ctx, const struct lne_peer *have, const struct lne_nid *nids, size_t n,
		      struct lne_err *err)
{
	struct rec *w = ctx;
	char p[LNE_NID_STR_MAX], first[LNE_NID_STR_MAX];
	size_t i;
	int rc = call(w, err, "peer_del %s %zu %s", text(&have->primary, p), n,
		      n ? text(&nids[0], first) : "");

	if (rc || !n)
		return rc ?: lne_peer_del(target(w), &have->primary, NULL);
	for (i = 0; !rc && i < n; i++)
		rc = lne_peer_del_nid(target(w), &have->primary, &nids[i], NULL);
	return rc;
}

static int w_ni_del(void *ctx, const struct lne_ni *have, struct lne_err *err)
{
	struct rec *w = ctx;
	char nid[LNE_NID_STR_MAX];
	int rc = call(w, err, "ni_del %s", text(&have->nid, nid));

	return rc ?: lne_ni_del(target(w), &have->nid, NULL);
}

static int w_global_set(void *ctx, int g, u32 value, struct lne_err *err)
{
	struct rec *w = ctx;
	int rc = call(w, err, "global %s %u", lne_global_info(g)->name, value);

	return rc ?: lne_global_set(target(w), g, value, NULL);
}

static int w_ni_add(void *ctx, const struct lne_ni *want, struct lne_err *err)
{
	struct rec *w = ctx;
	struct lne_ni_conf c = {.nid = want->nid,
				.ifname = want->ifname[0] ? want->ifname : NULL,
				.cpts = want->cpts,
				.dev_cpt = want->dev_cpt,
				.tun = &want->tun,
				.order = want->id};
	char nid[LNE_NID_STR_MAX];
	int rc = call(w, err, "ni_add %s", text(&want->nid, nid));

	return rc ?: lne_ni_add(target(w), &c, NULL);
}

static int w_peer_add(void *ctx, const struct lne_peer *want, const struct lne_nid *nids, size_t n,
		      struct lne_err *err)
{
	struct rec *w = ctx;
	char p[LNE_NID_STR_MAX];
	const struct lne_peer *had;
	struct lne_inst *t;
	size_t i;
	int rc = call(w, err, "peer_add %s +%zu", text(&want->primary, p), n);

	if (rc)
		return rc;
	t = target(w);
	had = lne_peer_find(t, &want->primary);
	if (!had || had->implicit)
		rc = lne_peer_add(t,
				  &(struct lne_peer_conf){.primary = want->primary,
							  .multi_rail = want->mr},
				  NULL);
	for (i = 0; !rc && i < n; i++)
		rc = lne_peer_add_nid(t, &want->primary, &nids[i], NULL);
	return rc;
}

static int w_route_add(void *ctx, const struct lne_route *want, struct lne_err *err)
{
	struct rec *w = ctx;
	char net[LNE_NET_STR_MAX], gw[LNE_NID_STR_MAX];
	int rc;

	lne_net_format(want->rnet->id, net, sizeof(net));
	rc = call(w, err, "route_add %s %s", net, text(&want->gw->nid, gw));
	return rc ?: lne_route_add_v(target(w), want->rnet->id, &want->gw->nid, want->v, NULL);
}

static int w_rule_add(void *ctx, const struct lne_rule *want, int64_t idx, struct lne_err *err)
{
	struct rec *w = ctx;
	char *src = lne_expr_text(want->src);
	int rc = call(w, err, "rule_add %s %lld", src ?: "-", (long long)idx);

	if (!rc)
		rc = lne_rule_add(target(w),
				  &(struct lne_rule_conf){.src = src, .priority = want->prio}, idx,
				  NULL, NULL, NULL);
	free(src);
	return rc;
}

static int w_ni_set_up(void *ctx, const struct lne_ni *want, struct lne_err *err)
{
	struct rec *w = ctx;
	char nid[LNE_NID_STR_MAX];
	int rc = call(w, err, "ni_up %s %d", text(&want->nid, nid), want->up);

	return rc ?: lne_ni_set_up(target(w), &want->nid, want->up, NULL);
}

static int w_batch_begin(void *ctx, bool replace, struct lne_err *err)
{
	struct rec *w = ctx;
	int rc = call(w, err, "batch_begin %s", replace ? "replace" : "add");

	if (rc)
		return rc;
	w->next = replace ? lne_inst_new() : lne_inst_copy(w->eng);
	w->batched = 0;
	return w->next ? 0 : -ENOMEM;
}

static int w_batch_send(void *ctx, size_t *applied, struct lne_err *err)
{
	struct rec *w = ctx;
	struct lne_inst *next = w->next;
	int rc;

	w->next = NULL;
	rc = call(w, err, "batch_send %zu", w->batched);
	if (!rc && w->refuse_batches)
		rc = lne_err_set(err, -EINVAL, NULL, -1, "batches are not taken here");
	if (rc) {
		lne_inst_free(next);
		return rc;
	}
	lne_inst_free(w->eng);
	w->eng = next;
	*applied = w->batched;
	return 0;
}

static void w_batch_abort(void *ctx)
{
	struct rec *w = ctx;

	lne_inst_free(w->next);
	w->next = NULL;
}

static void w_log(void *ctx, int prio, const char *line)
{
	struct rec *w = ctx;

	(void)prio;
	if (w->nlogged < 8)
		snprintf(w->logged[w->nlogged++], sizeof(w->logged[0]), "%s", line);
}

static const struct bk_writer plain = {
	.rule_del = w_rule_del,
	.rule_del_all = w_rule_del_all,
	.route_del = w_route_del,
	.peer_del = w_peer_del,
	.ni_del = w_ni_del,
	.global_set = w_global_set,
	.ni_add = w_ni_add,
	.peer_add = w_peer_add,
	.route_add = w_route_add,
	.rule_add = w_rule_add,
	.ni_set_up = w_ni_set_up,
};

static const struct bk_writer batching = {
	.rule_del = w_rule_del,
	.rule_del_all = w_rule_del_all,
	.route_del = w_route_del,
	.peer_del = w_peer_del,
	.ni_del = w_ni_del,
	.global_set = w_global_set,
	.ni_add = w_ni_add,
	.peer_add = w_peer_add,
	.route_add = w_route_add,
	.rule_add = w_rule_add,
	.ni_set_up = w_ni_set_up,
	.batch_begin = w_batch_begin,
	.batch_send = w_batch_send,
	.batch_abort = w_batch_abort,
};

/* --- building mirrors ------------------------------------------------------------------ */

static void ni(struct lne_inst *ln, const char *nid, u64 place)
{
	struct lne_ni_conf c = {.nid = N(nid), .dev_cpt = LNE_CPT_ANY, .order = place};
	struct lne_err err;

	ck_assert_msg(!lne_ni_add(ln, &c, &err), "%s", err.msg);
}

static void peer(struct lne_inst *ln, const char *primary, const char *other)
{
	struct lne_nid p = N(primary), o;
	struct lne_err err;

	ck_assert_msg(!lne_peer_add(ln, &(struct lne_peer_conf){.primary = p, .multi_rail = true},
				    &err),
		      "%s", err.msg);
	if (other) {
		o = N(other);
		ck_assert_msg(!lne_peer_add_nid(ln, &p, &o, &err), "%s", err.msg);
	}
}

static void route(struct lne_inst *ln, const char *net, const char *gw, u32 hops)
{
	u32 v[LNE_ROUTE_A__COUNT];
	struct lne_nid g = N(gw);
	struct lne_err err;
	lne_net_t id;

	lne_route_defaults(v);
	v[LNE_ROUTE_A_HOPS] = hops;
	ck_assert(!lne_net_parse(net, &id, NULL));
	ck_assert_msg(!lne_route_add_v(ln, id, &g, v, &err), "%s", err.msg);
}

static void rule(struct lne_inst *ln, const char *src, s64 idx)
{
	struct lne_err err;

	ck_assert_msg(!lne_rule_add(ln, &(struct lne_rule_conf){.src = src, .priority = 1}, idx,
				    NULL, NULL, &err),
		      "%s", err.msg);
}

static int by_line(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* @text's lines sorted, in place: the same objects listed in another order compare equal. */
static char *sorted(char *text)
{
	char *lines[4096], *p, *out = malloc(strlen(text) + 2);
	size_t n = 0, i;

	ck_assert_ptr_nonnull(out);
	out[0] = '\0';
	for (p = strtok(text, "\n"); p && n < 4096; p = strtok(NULL, "\n"))
		lines[n++] = p;
	qsort(lines, n, sizeof(*lines), by_line);
	for (i = 0; i < n; i++) {
		strcat(out, lines[i]);
		strcat(out, "\n");
	}
	free(text);
	return out;
}

/*
 * The engine, @have and the mirror hold the same, and a sync again sends
 * nothing.  @any_order: peers may be listed in another order (an engine
 * lists them in the order it took them).
 */
static void same_as(struct rec *w, struct lne_inst **have, const struct lne_inst *want,
		    bool any_order)
{
	struct bk_sync_opts o = {.who = "test engine", .log = w_log};
	struct bk_sync_result r;
	char *a = state_text(w->eng), *b = state_text(want), *c = state_text(*have);
	size_t before = w->n;

	if (any_order) {
		a = sorted(a);
		b = sorted(b);
		c = sorted(c);
	}

	ck_assert_str_eq(a, b);
	ck_assert_str_eq(c, b);
	free(a);
	free(b);
	free(c);
	bk_sync(&plain, w, have, want, &o, &r);
	ck_assert_uint_eq(r.requests, 0);
	ck_assert_uint_eq(w->n, before);
}

static void same(struct rec *w, struct lne_inst **have, const struct lne_inst *want)
{
	same_as(w, have, want, false);
}

/* The index of the first call starting with @what, or -1. */
static ssize_t called(const struct rec *w, const char *what)
{
	size_t i;

	for (i = 0; i < w->n; i++)
		if (!strncmp(w->calls[i] + 1, what, strlen(what)))
			return (ssize_t)i;
	return -1;
}

static struct lne_inst *base(void)
{
	struct lne_inst *ln = lne_inst_new();

	ni(ln, "10.0.0.1@tcp", 1);
	ni(ln, "10.1.0.1@tcp1", 2);
	peer(ln, "10.0.0.2@tcp", "10.1.0.2@tcp1");
	peer(ln, "10.0.0.3@tcp", NULL);
	peer(ln, "10.0.0.4@tcp", "10.1.0.4@tcp1");
	route(ln, "o2ib", "10.0.0.9@tcp", 1);
	rule(ln, "10.0.0.2@tcp", -1);
	rule(ln, "10.0.0.3@tcp", -1);
	rule(ln, "10.0.0.4@tcp", -1);
	return ln;
}

/* --- the tests ----------------------------------------------------------------------------- */

START_TEST(sync_fills_then_changes)
{
	struct rec *w = calloc(1, sizeof(*w));
	struct lne_inst *have = lne_inst_new(), *want = base();
	struct bk_sync_opts o = {.who = "test engine", .log = w_log};
	struct bk_sync_result r;
	ssize_t i, last_del = -1, first_add = -1;

	w->eng = lne_inst_new();
	bk_sync(&plain, w, &have, want, &o, &r);
	ck_assert_int_eq(r.stop, 0);
	ck_assert_uint_eq(r.refused, 0);
	ck_assert_uint_eq(r.changes, r.requests);
	ck_assert_uint_eq(r.requests, w->n);
	same(w, &have, want);

	/* Deletions and additions of every kind at once. */
	lne_inst_free(want);
	want = lne_inst_new();
	ni(want, "10.0.0.1@tcp", 1);
	ni(want, "10.2.0.1@tcp2", 3);		/* tcp1's NI went, tcp2's came */
	peer(want, "10.0.0.2@tcp", NULL);	/* lost a NID */
	peer(want, "10.0.0.5@tcp", NULL);	/* new; 10.0.0.3 and .4 went */
	route(want, "o2ib", "10.0.0.9@tcp", 3); /* its hops changed */
	rule(want, "10.0.0.2@tcp", -1);
	rule(want, "10.0.0.7@tcp", -1); /* in the middle; .3 went */
	rule(want, "10.0.0.4@tcp", -1);
	w->n = 0;
	bk_sync(&plain, w, &have, want, &o, &r);
	ck_assert_int_eq(r.stop, 0);
	ck_assert_uint_eq(r.refused, 0);
	for (i = 0; i < (ssize_t)w->n; i++) {
		if (strstr(w->calls[i], "_del"))
			last_del = i;
		else if (first_add < 0)
			first_add = i;
	}
	ck_assert_int_ge(last_del, 0);
	ck_assert_int_ge(first_add, 0);
	ck_assert_msg(last_del < first_add, "a deletion after an addition: %s then %s",
		      w->calls[first_add], w->calls[last_del]);
	/* The rules differ in the middle only: one out, one in, in place. */
	ck_assert_int_ge(called(w, "rule_del 1"), 0);
	ck_assert_int_ge(called(w, "rule_add 10.0.0.7@tcp 1"), 0);
	ck_assert_int_lt(called(w, "rule_del_all"), 0);
	/* The peer that lost a NID stays: only the NID goes. */
	ck_assert_int_ge(called(w, "peer_del 10.0.0.2@tcp 1 10.1.0.2@tcp1"), 0);
	ck_assert_int_ge(called(w, "peer_del 10.0.0.3@tcp 0"), 0);
	/* The route goes and comes back with its new hops. */
	ck_assert_int_lt(called(w, "route_del o2ib 10.0.0.9@tcp"),
			 called(w, "route_add o2ib 10.0.0.9@tcp"));
	ck_assert_int_lt(called(w, "ni_del 10.1.0.1@tcp1"), called(w, "ni_add 10.2.0.1@tcp2"));
	same(w, &have, want);
	lne_inst_free(want);
	lne_inst_free(have);
	lne_inst_free(w->eng);
	free(w);
}
END_TEST

/* Where a rule goes: between the common prefix and suffix, or every rule anew. */
START_TEST(sync_rule_positions)
{
	static const struct {
		const char *want[5];
		const char *calls[4];
	} cases[] = {
		{{"10.0.0.1@tcp", "10.0.0.9@tcp", "10.0.0.2@tcp", "10.0.0.3@tcp"},
		 {"rule_add 10.0.0.9@tcp 1"}},
		{{"10.0.0.9@tcp", "10.0.0.1@tcp", "10.0.0.2@tcp", "10.0.0.3@tcp"},
		 {"rule_add 10.0.0.9@tcp 0"}},
		{{"10.0.0.1@tcp", "10.0.0.2@tcp", "10.0.0.3@tcp", "10.0.0.9@tcp"},
		 {"rule_add 10.0.0.9@tcp -1"}},
		{{"10.0.0.1@tcp", "10.0.0.3@tcp"}, {"rule_del 1"}},
		{{"10.0.0.3@tcp"}, {"rule_del 1", "rule_del 0"}},
		{{"10.0.0.8@tcp", "10.0.0.9@tcp"},
		 {"rule_del_all", "rule_add 10.0.0.8@tcp -1", "rule_add 10.0.0.9@tcp -1"}},
	};
	size_t c, k;

	for (c = 0; c < LNE_ARRAY_SIZE(cases); c++) {
		struct rec *w = calloc(1, sizeof(*w));
		struct lne_inst *have = lne_inst_new(), *want = lne_inst_new();
		struct bk_sync_opts o = {.who = "test engine", .log = w_log};
		struct bk_sync_result r;

		/* An NI, so that neither copy is empty (that would replace whole). */
		ni(want, "10.0.0.100@tcp", 1);
		rule(want, "10.0.0.1@tcp", -1);
		rule(want, "10.0.0.2@tcp", -1);
		rule(want, "10.0.0.3@tcp", -1);
		w->eng = lne_inst_new();
		bk_sync(&plain, w, &have, want, &o, &r);
		lne_inst_free(want);
		want = lne_inst_new();
		ni(want, "10.0.0.100@tcp", 1);
		for (k = 0; cases[c].want[k]; k++)
			rule(want, cases[c].want[k], -1);
		w->n = 0;
		bk_sync(&plain, w, &have, want, &o, &r);
		for (k = 0; cases[c].calls[k]; k++) {
			ck_assert_msg(k < w->n, "case %zu: call %zu missing", c, k);
			ck_assert_str_eq(w->calls[k] + 1, cases[c].calls[k]);
		}
		ck_assert_uint_eq(w->n, k);
		same(w, &have, want);
		lne_inst_free(want);
		lne_inst_free(have);
		lne_inst_free(w->eng);
		free(w);
	}
}
END_TEST

/* retry_count must stay below transaction_timeout at every step: the order that allows it. */
START_TEST(sync_globals_in_an_accepted_order)
{
	struct rec *w = calloc(1, sizeof(*w));
	struct lne_inst *have = lne_inst_new(), *want = lne_inst_new();
	struct bk_sync_opts o = {.who = "test engine", .log = w_log};
	struct bk_sync_result r;

	ni(want, "10.0.0.1@tcp", 1);
	w->eng = lne_inst_new();
	bk_sync(&plain, w, &have, want, &o, &r);
	ck_assert(!lne_global_set(want, LNE_G_TRANSACTION_TIMEOUT, 170, NULL));
	ck_assert(!lne_global_set(want, LNE_G_RETRY_COUNT, 160, NULL));
	w->n = 0;
	bk_sync(&plain, w, &have, want, &o, &r);
	ck_assert_uint_eq(w->n, 2);
	ck_assert_str_eq(w->calls[0] + 1, "global transaction_timeout 170");
	ck_assert_str_eq(w->calls[1] + 1, "global retry_count 160");
	same(w, &have, want);
	lne_inst_free(want);
	lne_inst_free(have);
	lne_inst_free(w->eng);
	free(w);
}
END_TEST

/* A refusal is counted, the first kept as the reason, and the rest goes on. */
START_TEST(sync_refusal_counted)
{
	struct rec *w = calloc(1, sizeof(*w));
	struct lne_inst *have = lne_inst_new(), *want = base();
	struct bk_sync_opts o = {.who = "test engine", .log = w_log};
	struct bk_sync_result r;
	struct lne_nid refused = N("10.0.0.3@tcp");
	char *a, *b;

	w->eng = lne_inst_new();
	w->refuse = "peer_add 10.0.0.3@tcp";
	bk_sync(&plain, w, &have, want, &o, &r);
	ck_assert_int_eq(r.stop, 0);
	ck_assert_uint_eq(r.refused, 1);
	ck_assert_str_eq(r.first, "the test engine refused peer 10.0.0.3@tcp: no: peer_add "
				  "10.0.0.3@tcp +0");
	/* What came after it was sent and taken: the next peer, the route, the rules. */
	ck_assert_int_gt(called(w, "peer_add 10.0.0.4@tcp"), called(w, "peer_add 10.0.0.3@tcp"));
	ck_assert_int_ge(called(w, "route_add o2ib"), 0);
	ck_assert_int_ge(called(w, "rule_add 10.0.0.4@tcp"), 0);
	ck_assert_uint_eq(r.changes, w->n - 1);
	/* The engine and its copy lack only the refused peer. */
	ck_assert_ptr_null(lne_peer_find(w->eng, &refused));
	ck_assert_ptr_null(lne_peer_find(have, &refused));
	a = state_text(w->eng);
	b = state_text(have);
	ck_assert_str_eq(a, b);
	free(a);
	free(b);
	/* Taken the next time: the sync sends just that. */
	w->refuse = NULL;
	w->n = 0;
	bk_sync(&plain, w, &have, want, &o, &r);
	ck_assert_uint_eq(w->n, 1);
	ck_assert_str_eq(w->calls[0] + 1, "peer_add 10.0.0.3@tcp +0");
	same_as(w, &have, want, true);
	lne_inst_free(want);
	lne_inst_free(have);
	lne_inst_free(w->eng);
	free(w);
}
END_TEST

/* No sentence: the engine is unreachable, and nothing more is sent. */
START_TEST(sync_unreachable_stops)
{
	struct rec *w = calloc(1, sizeof(*w));
	struct lne_inst *have = lne_inst_new(), *want = base();
	struct bk_sync_opts o = {.who = "test engine", .log = w_log};
	struct bk_sync_result r;

	w->eng = lne_inst_new();
	w->cut = 3;
	bk_sync(&plain, w, &have, want, &o, &r);
	ck_assert_int_eq(r.stop, -ENOTCONN);
	ck_assert_uint_eq(w->n, 3);
	ck_assert_uint_eq(r.changes, 2);
	ck_assert_uint_eq(r.refused, 0);
	ck_assert_msg(!strncmp(r.first, "cannot reach the test engine (", 30), "%s", r.first);
	/* What was taken is in the copy: the next sync sends the rest only. */
	w->cut = 0;
	w->n = 0;
	bk_sync(&plain, w, &have, want, &o, &r);
	ck_assert_int_eq(r.stop, 0);
	ck_assert_int_lt(called(w, "ni_add 10.0.0.1@tcp"), 0);
	same(w, &have, want);
	lne_inst_free(want);
	lne_inst_free(have);
	lne_inst_free(w->eng);
	free(w);
}
END_TEST

static void peers(struct lne_inst *ln, int from, int n)
{
	char nid[32];
	int i;

	for (i = from; i < from + n; i++) {
		snprintf(nid, sizeof(nid), "10.9.%d.%d@tcp", i / 250, i % 250 + 1);
		peer(ln, nid, NULL);
	}
}

/* Many additions go in one batch: replacing an empty engine, else added to it. */
START_TEST(sync_batches)
{
	struct rec *w = calloc(1, sizeof(*w));
	struct lne_inst *have = lne_inst_new(), *want = lne_inst_new();
	struct bk_sync_opts o = {.who = "test engine", .log = w_log};
	struct bk_sync_result r;

	ni(want, "10.0.0.1@tcp", 1);
	peers(want, 0, 100);
	w->eng = lne_inst_new();
	bk_sync(&batching, w, &have, want, &o, &r);
	ck_assert(r.replaced);
	ck_assert_uint_eq(r.requests, 1);
	ck_assert_uint_eq(r.changes, 101);
	ck_assert_str_eq(w->calls[0] + 1, "batch_begin replace");
	ck_assert_str_eq(w->calls[1], "+ni_add 10.0.0.1@tcp");
	ck_assert_str_eq(w->calls[w->n - 1] + 1, "batch_send 101");
	ck_assert_msg(strstr(w->logged[0], "test engine took a replacing batch of 101 items"), "%s",
		      w->logged[0]);
	same(w, &have, want);

	/* 70 more: many, and more than 1/16 of what it holds: a batch added to it. */
	peers(want, 100, 70);
	w->n = 0;
	bk_sync(&batching, w, &have, want, &o, &r);
	ck_assert(!r.replaced);
	ck_assert_str_eq(w->calls[0] + 1, "batch_begin add");
	ck_assert_uint_eq(w->n, 72);
	same(w, &have, want);

	/* A few: one request each. */
	peers(want, 170, 5);
	w->n = 0;
	bk_sync(&batching, w, &have, want, &o, &r);
	ck_assert_uint_eq(w->n, 5);
	ck_assert_int_lt(called(w, "batch_begin"), 0);
	same(w, &have, want);

	/* A batch the engine refuses goes again one request each, and is no refusal. */
	peers(want, 175, 80);
	w->refuse_batches = true;
	w->n = 0;
	w->nlogged = 0;
	bk_sync(&batching, w, &have, want, &o, &r);
	ck_assert_uint_eq(r.refused, 0);
	ck_assert_int_eq(r.stop, 0);
	ck_assert_uint_eq(w->n, 1 + 80 + 1 + 80);
	ck_assert_msg(strstr(w->logged[0], "test engine refused a batch of 80 items"), "%s",
		      w->logged[0]);
	same(w, &have, want);
	lne_inst_free(want);
	lne_inst_free(have);
	lne_inst_free(w->eng);
	free(w);
}
END_TEST

/* An engine whose state is unknown is replaced whole, even with nothing to add. */
START_TEST(sync_replace_unknown)
{
	struct rec *w = calloc(1, sizeof(*w));
	struct lne_inst *have = lne_inst_new(), *want = lne_inst_new();
	struct bk_sync_opts o = {.replace = true, .who = "test engine", .log = w_log};
	struct bk_sync_result r;

	w->eng = lne_inst_new();
	peer(w->eng, "10.0.0.66@tcp", NULL); /* someone else's leftover */
	bk_sync(&batching, w, &have, want, &o, &r);
	ck_assert(r.replaced);
	ck_assert_str_eq(w->calls[0] + 1, "batch_begin replace");
	ck_assert_str_eq(w->calls[1] + 1, "batch_send 0");
	o.replace = false;
	same(w, &have, want);
	lne_inst_free(want);
	lne_inst_free(have);
	lne_inst_free(w->eng);
	free(w);
}
END_TEST

Suite *make_sync_suite(void)
{
	Suite *s = suite_create("sync");
	TCase *tc = tcase_create("sync");

	tcase_add_test(tc, sync_fills_then_changes);
	tcase_add_test(tc, sync_rule_positions);
	tcase_add_test(tc, sync_globals_in_an_accepted_order);
	tcase_add_test(tc, sync_refusal_counted);
	tcase_add_test(tc, sync_unreachable_stops);
	tcase_add_test(tc, sync_batches);
	tcase_add_test(tc, sync_replace_unknown);
	suite_add_tcase(s, tc);
	return s;
}
