// SPDX-License-Identifier: GPL-2.0
/*
 * test-svc.c - services on a node (engine/node-svc.h) on simulated links
 * with a virtual clock: requests from three client nodes pass through the
 * service's TBF policy before the handler runs and the answer goes back.
 * No class ever gets more than rate x time + depth; each gets its rate in
 * virtual time; a client's requests are handled in the order they came;
 * hp before reg; the test-request body is bounds-checked; a policy that
 * goes away and comes back loses no request.
 */
#include "engine/node-svc.h"
#include "simnet.h"
#include "unit.h"

#define PORTAL	 61
#define BACKLOG	 8 /* requests each client keeps in flight */
#define NCLIENTS 3 /* match bits: the client << 56 | its sequence number */

static const char *const S_NIDS[] = {"10.0.0.100@tcp", NULL};
static const char *const C_NIDS[NCLIENTS][2] = {
	{"10.0.0.1@tcp", NULL}, {"10.0.0.2@tcp", NULL}, {"10.0.0.3@tcp", NULL}};

struct client {
	struct simnode *sn;
	u64 sent, acked, handled, last_seq, order_errors;
	bool hp, get, stop;
	u32 opcode;
};

struct world {
	struct simnet s;
	struct simnode *srv;
	struct client c[NCLIENTS];
	struct lne_tbf *tbf;
	char order[64]; /* who was handled, in order, within one tick: 'a'+client */
	size_t norder;
};

static struct world *W;

static struct lne_nid N(const char *s) {
	struct lne_nid nid;

	ck_assert_msg(!lne_nid_parse(s, &nid, NULL), "%s", s);
	return nid;
}

static void
handler(void *arg, struct lne_svc_req *r)
{
	struct world *w = arg;
	u32 who = (u32)(r->hdr.match >> 56);
	u64 seq = r->hdr.match & 0xffffffffffffull;
	struct client *c;

	ck_assert_uint_lt(who, NCLIENTS);
	c = &w->c[who];
	/* the classification fields came from the body (or the NID alone for a GET) */
	ck_assert_uint_eq(r->tbf.opcode, c->get ? 0 : c->opcode);
	ck_assert_int_eq(r->hp, c->hp);
	if (seq != c->last_seq + 1)
		c->order_errors++;
	c->last_seq = seq;
	c->handled++;
	if (w->norder < sizeof(w->order) - 1)
		w->order[w->norder++] = (char)('a' + who);
}

static void send_one(struct world *w, int i);

static void on_ack(struct lne_msg *m, int status)
{
	struct client *c = m->arg;
	int i = (int)(c - W->c);

	if (status == -ESHUTDOWN)
		return; /* the world ends with requests in flight */
	ck_assert_int_eq(status, 0);
	c->acked++;
	if (!c->stop)
		send_one(W, i);
}

static void send_one(struct world *w, int i)
{
	struct client *c = &w->c[i];
	struct lne_nid dst = N(S_NIDS[0]);
	struct lne_svc_body b = {.hp = c->hp, .opcode = c->opcode, .uid = 500, .gid = 100};
	u64 match = ++c->sent | (u64)i << 56;
	struct lne_err err = {.msg = ""};
	u8 *body;

	if (c->get) {
		ck_assert_msg(!lne_node_get(&c->sn->node, &dst, NULL, PORTAL, match, 16, 100000,
					    on_ack, c, &err),
			      "%s", err.msg);
		return;
	}
	snprintf(b.jobid, sizeof(b.jobid), "job.%d", i);
	body = malloc(LNE_SVC_BODY);
	ck_assert_ptr_nonnull(body);
	lne_svc_body_pack(&b, body);
	ck_assert_msg(!lne_node_put(&c->sn->node, &dst, NULL, PORTAL, match, 0, body, LNE_SVC_BODY,
				    true, 100000, on_ack, c, &err),
		      "%s", err.msg);
}

static void cmd(struct world *w, const char *c)
{
	struct lne_err err = {.msg = ""};

	ck_assert_msg(!lne_tbf_command(w->tbf, c, w->s.now_ms * 1000000ull, &err), "%s: %s", c,
		      err.msg);
}

static void world_init(struct world *w)
{
	struct lne_err err = {.msg = ""};
	int i;

	memset(w, 0, sizeof(*w));
	W = w;
	simnet_init(&w->s, 4096);
	w->s.now_ms = 1000;
	w->srv = simnet_node(&w->s, S_NIDS);
	w->srv->node.now_ms = w->s.now_ms;
	for (i = 0; i < NCLIENTS; i++) {
		w->c[i].sn = simnet_node(&w->s, C_NIDS[i]);
		w->c[i].sn->node.now_ms = w->s.now_ms;
		w->c[i].opcode = (u32)(3 + i);
	}
	ck_assert_msg(!lne_svc_register(&w->srv->node, "svc_t", PORTAL, handler, w, &err), "%s",
		      err.msg);
	ck_assert_int_eq(lne_tbf_new("svc_t", &w->tbf, &err), 0);
}

static void world_fini(struct world *w)
{
	simnet_fini(&w->s);
	lne_tbf_free(w->tbf);
}

static void start_load(struct world *w)
{
	int i, k;

	for (i = 0; i < NCLIENTS; i++)
		for (k = 0; k < BACKLOG; k++)
			send_one(w, i);
	simnet_pump(&w->s);
}

/* Run @ms of virtual time 1 ms at a time, checking the bound after every step. */
static void run_checked(struct world *w, u64 ms, const u32 *rate, u32 depth, u64 t0)
{
	u64 i;
	int c;

	for (i = 0; i < ms; i++) {
		simnet_advance(&w->s, 1);
		simnet_pump(&w->s);
		for (c = 0; c < NCLIENTS; c++) {
			u64 el = w->s.now_ms - t0;
			u64 bound = rate[c] * el / 1000 + depth;

			ck_assert_msg(w->c[c].handled <= bound,
				      "client %d at %u/s: %llu handled after %llu ms (bound %llu)",
				      c, rate[c], (unsigned long long)w->c[c].handled,
				      (unsigned long long)el, (unsigned long long)bound);
		}
	}
}

START_TEST(body_round_trip_and_hostile)
{
	struct lne_svc_body b = {.hp = true, .opcode = 4, .uid = 7, .gid = 9, .jobid = "dd.0"}, o;
	struct lne_err err = {.msg = ""};
	u8 buf[LNE_SVC_BODY];

	lne_svc_body_pack(&b, buf);
	ck_assert_int_eq(lne_svc_body_unpack(buf, sizeof(buf), &o, &err), 0);
	ck_assert(o.hp && o.opcode == 4 && o.uid == 7 && o.gid == 9 && !strcmp(o.jobid, "dd.0"));
	/* a 32-byte jobid fills its field, no NUL */
	memset(b.jobid, 'j', LNE_TBF_JOBID_MAX);
	lne_svc_body_pack(&b, buf);
	ck_assert_int_eq(lne_svc_body_unpack(buf, sizeof(buf), &o, &err), 0);
	ck_assert_uint_eq(strlen(o.jobid), LNE_TBF_JOBID_MAX);

	ck_assert_int_eq(lne_svc_body_unpack(buf, LNE_SVC_BODY - 1, &o, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "shorter"));
	buf[4] = 2;
	ck_assert_int_eq(lne_svc_body_unpack(buf, sizeof(buf), &o, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "version 2"));
	buf[4] = 1;
	buf[6] = 0x3;
	ck_assert_int_eq(lne_svc_body_unpack(buf, sizeof(buf), &o, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "flags"));
	buf[6] = 1;
	buf[21] = 1;
	ck_assert_int_eq(lne_svc_body_unpack(buf, sizeof(buf), &o, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "reserved"));
	buf[21] = 0;
	buf[30] = '\n';
	ck_assert_int_eq(lne_svc_body_unpack(buf, sizeof(buf), &o, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "jobid has byte 0x0a at 6"));
	buf[0] = 0;
	ck_assert_int_eq(lne_svc_body_unpack(buf, sizeof(buf), &o, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "magic"));
}
END_TEST

START_TEST(register_refusals)
{
	struct world w;
	struct lne_err err = {.msg = ""};
	struct lne_node *n;

	world_init(&w);
	n = &w.srv->node;
	ck_assert_int_eq(lne_svc_register(n, "svc_t", 62, handler, &w, &err), -EEXIST);
	ck_assert_int_eq(lne_svc_register(n, "other", PORTAL, handler, &w, &err), -EEXIST);
	ck_assert_ptr_nonnull(strstr(err.msg, "portal 61 is bound to the service svc_t"));
	ck_assert_int_eq(lne_svc_register(n, "bad-name", 62, handler, &w, &err), -EINVAL);
	ck_assert_int_eq(lne_svc_register(n, "", 62, handler, &w, &err), -EINVAL);
	ck_assert_int_eq(lne_svc_register(n, "x", LNW_PORTAL_RESERVED, handler, &w, &err), -EINVAL);
	ck_assert_int_eq(lne_svc_register(n, "x", LNW_PORTALS, handler, &w, &err), -EINVAL);
	ck_assert_int_eq(lne_svc_set_policy(n, "nosuch", &lne_svc_tbf_ops, w.tbf), -ENOENT);
	lne_svc_unregister(n, "svc_t");
	ck_assert_ptr_null(lne_svc_find(n, "svc_t"));
	ck_assert_int_eq(lne_svc_register(n, "svc_t", PORTAL, handler, &w, &err), 0);
	world_fini(&w);
}
END_TEST

/*
 * Three clients with rules at 100, 200 and 400 requests/s, each keeping a
 * backlog: never more than rate x time + depth at any millisecond; in
 * virtual time each gets its rate to within a token; every client's
 * requests handled in the order they were sent.
 */
START_TEST(rates_enforced_in_order)
{
	static const u32 rate[NCLIENTS] = {100, 200, 400};
	struct world w;
	char c[128];
	u64 t0;
	int i;

	world_init(&w);
	for (i = NCLIENTS - 1; i >= 0; i--) {
		snprintf(c, sizeof(c), "reg start c%d nid={%s} rate=%u", i, C_NIDS[i][0], rate[i]);
		cmd(&w, c);
	}
	ck_assert_int_eq(lne_svc_set_policy(&w.srv->node, "svc_t", &lne_svc_tbf_ops, w.tbf), 0);
	t0 = w.s.now_ms;
	start_load(&w);
	run_checked(&w, 2000, rate, LNE_TBF_DEPTH_DEFAULT, t0);
	for (i = 0; i < NCLIENTS; i++) {
		u64 want = rate[i] * 2 + LNE_TBF_DEPTH_DEFAULT;

		ck_assert_msg(w.c[i].handled + 1 >= want && w.c[i].handled <= want,
			      "client %d: %llu handled in 2 s at %u/s", i,
			      (unsigned long long)w.c[i].handled, rate[i]);
		ck_assert_uint_eq(w.c[i].order_errors, 0);
		/* every handled request was answered, the rest wait */
		ck_assert_uint_eq(w.c[i].acked, w.c[i].handled);
	}
	{
		struct lne_svc *s = lne_svc_find(&w.srv->node, "svc_t");

		ck_assert_uint_eq(s->st.queued, NCLIENTS * BACKLOG);
		ck_assert_uint_eq(s->st.arrived, s->st.handled + s->st.queued);
	}
	/* a rate change applies to queued traffic at once, and the bound follows it */
	cmd(&w, "reg change c2 rate=50");
	t0 = w.s.now_ms;
	for (i = 0; i < NCLIENTS; i++)
		w.c[i].handled = 0;
	{
		static const u32 rate2[NCLIENTS] = {100, 200, 50};

		run_checked(&w, 1000, rate2, LNE_TBF_DEPTH_DEFAULT, t0);
		ck_assert_uint_ge(w.c[2].handled, 49);
	}
	world_fini(&w);
}
END_TEST

/*
 * GETs are requests too, classified by the NID alone; hp requests go first:
 * with both queues ready in one tick, the hp client's requests are handled
 * before the reg ones.
 */
START_TEST(hp_first_and_gets)
{
	static const u32 rate[NCLIENTS] = {100, 100, 100};
	struct world w;
	size_t k;
	int i;

	world_init(&w);
	w.c[0].get = true;
	w.c[2].hp = true;
	cmd(&w, "start c0 nid={10.0.0.1@tcp} rate=100");
	cmd(&w, "start c1 nid={10.0.0.2@tcp} rate=100");
	cmd(&w, "hp start c2 nid={10.0.0.3@tcp} rate=100");
	ck_assert_int_eq(lne_svc_set_policy(&w.srv->node, "svc_t", &lne_svc_tbf_ops, w.tbf), 0);
	start_load(&w);
	/* the first tokens go at once, as the requests arrive; then every 10 ms, together */
	simnet_advance(&w.s, 9);
	simnet_pump(&w.s);
	w.norder = 0;
	simnet_advance(&w.s, 1);
	simnet_pump(&w.s);
	ck_assert_uint_eq(w.norder, 3);
	ck_assert_int_eq(w.order[0], 'c');
	for (k = 1; k < w.norder; k++)
		ck_assert_int_ne(w.order[k], 'c');
	run_checked(&w, 500, rate, LNE_TBF_DEPTH_DEFAULT, w.s.now_ms - 10);
	for (i = 0; i < NCLIENTS; i++)
		ck_assert_uint_eq(w.c[i].order_errors, 0);
	ck_assert_uint_gt(w.c[0].handled, 40); /* GETs answered through the policy */
	world_fini(&w);
}
END_TEST

/*
 * A policy taken away keeps its requests waiting (none answered, none
 * lost); a new policy takes them in arrival order; with no policy at all
 * they are handled at the next tick.
 */
START_TEST(policy_detach_and_back)
{
	static const u32 rate[NCLIENTS] = {100, 100, 100};
	struct world w;
	struct lne_svc *s;
	u64 handled;
	int i;

	world_init(&w);
	cmd(&w, "start all nid={10.0.0.[1-3]@tcp} rate=100");
	ck_assert_int_eq(lne_svc_set_policy(&w.srv->node, "svc_t", &lne_svc_tbf_ops, w.tbf), 0);
	start_load(&w);
	run_checked(&w, 100, rate, LNE_TBF_DEPTH_DEFAULT, w.s.now_ms);
	s = lne_svc_find(&w.srv->node, "svc_t");
	ck_assert_uint_eq(s->st.queued, NCLIENTS * BACKLOG);
	/* the shell is about to free the policy */
	ck_assert_int_eq(lne_svc_set_policy(&w.srv->node, "svc_t", NULL, NULL), 0);
	lne_tbf_free(w.tbf);
	ck_assert_int_eq(lne_tbf_new("svc_t", &w.tbf, NULL), 0);
	cmd(&w, "start all nid={10.0.0.[1-3]@tcp} rate=100");
	handled = s->st.handled;
	ck_assert_int_eq(lne_svc_set_policy(&w.srv->node, "svc_t", &lne_svc_tbf_ops, w.tbf), 0);
	ck_assert_uint_eq(s->st.queued + s->st.handled - handled, NCLIENTS * BACKLOG);
	for (i = 0; i < NCLIENTS; i++)
		w.c[i].handled = 0;
	run_checked(&w, 300, rate, LNE_TBF_DEPTH_DEFAULT, w.s.now_ms);
	for (i = 0; i < NCLIENTS; i++) {
		ck_assert_uint_eq(w.c[i].order_errors, 0);
		w.c[i].stop = true;
	}
	/* no policy: everything waiting is handled at the next tick, and nothing is left */
	ck_assert_int_eq(lne_svc_set_policy(&w.srv->node, "svc_t", NULL, NULL), 0);
	ck_assert_uint_gt(s->st.queued, 0);
	simnet_advance(&w.s, 1);
	simnet_pump(&w.s);
	ck_assert_uint_eq(s->st.queued, 0);
	for (i = 0; i < NCLIENTS; i++) {
		ck_assert_uint_eq(w.c[i].acked, w.c[i].sent);
		ck_assert_uint_eq(w.c[i].order_errors, 0);
	}
	world_fini(&w);
}
END_TEST

/* A malformed body is dropped unanswered and counted; the sender times out. */
static int timed_out;
static void on_timeout(struct lne_msg *m, int status)
{
	(void)m;
	ck_assert_int_eq(status, -ETIMEDOUT);
	timed_out++;
}

START_TEST(malformed_request_dropped)
{
	struct world w;
	struct lne_nid dst = N(S_NIDS[0]);
	struct lne_svc_body b = {.opcode = 4};
	struct lne_svc *s;
	u8 *body;

	world_init(&w);
	body = malloc(LNE_SVC_BODY);
	ck_assert_ptr_nonnull(body);
	lne_svc_body_pack(&b, body);
	body[6] = 0x80; /* an unknown flag */
	timed_out = 0;
	ck_assert_int_eq(lne_node_put(&w.c[0].sn->node, &dst, NULL, PORTAL, 1, 0, body,
				      LNE_SVC_BODY, true, 50, on_timeout, NULL, NULL),
			 0);
	/* the magic but not the whole body */
	body = malloc(8);
	ck_assert_ptr_nonnull(body);
	lnw_put32(body, LNE_SVC_MAGIC);
	lnw_put32(body + 4, 1);
	ck_assert_int_eq(lne_node_put(&w.c[0].sn->node, &dst, NULL, PORTAL, 2, 0, body, 8, true, 50,
				      on_timeout, NULL, NULL),
			 0);
	simnet_pump(&w.s);
	simnet_advance(&w.s, 51);
	ck_assert_int_eq(timed_out, 2);
	s = lne_svc_find(&w.srv->node, "svc_t");
	ck_assert_uint_eq(s->st.malformed, 2);
	ck_assert_uint_eq(s->st.handled, 0);
	ck_assert_uint_eq(w.srv->node.st.c.dropped[LNW_PUT], 2);
	world_fini(&w);
}
END_TEST

/* The test service goes through a policy attached under its name. */
START_TEST(test_service_through_policy)
{
	struct world w;
	struct lne_nid dst = N(S_NIDS[0]);
	struct lne_tbf *t;
	int k;

	world_init(&w);
	w.srv->node.test_service = true;
	ck_assert_int_eq(lne_tbf_new(LNE_SVC_TEST_NAME, &t, NULL), 0);
	ck_assert_int_eq(lne_tbf_command(t, "start one nid={10.0.0.1@tcp} rate=10",
					 w.s.now_ms * 1000000ull, NULL),
			 0);
	ck_assert_int_eq(lne_svc_set_policy(&w.srv->node, LNE_SVC_TEST_NAME, &lne_svc_tbf_ops, t),
			 0);
	for (k = 0; k < 10; k++)
		ck_assert_int_eq(lne_node_put(&w.c[0].sn->node, &dst, NULL, LNE_PORTAL_TEST, 0, 0,
					      NULL, 0, true, 10000, NULL, NULL, NULL),
				 0);
	simnet_pump(&w.s);
	ck_assert_uint_eq(w.srv->node.st.test_puts, LNE_TBF_DEPTH_DEFAULT);
	simnet_advance(&w.s, 100);
	simnet_pump(&w.s);
	ck_assert_uint_eq(w.srv->node.st.test_puts, LNE_TBF_DEPTH_DEFAULT + 1);
	/* a long silence fills the bucket, no more: depth requests at once */
	simnet_advance(&w.s, 1000);
	simnet_pump(&w.s);
	ck_assert_uint_eq(w.srv->node.st.test_puts, 2 * LNE_TBF_DEPTH_DEFAULT + 1);
	for (k = 0; k < 3; k++) {
		simnet_advance(&w.s, 100);
		simnet_pump(&w.s);
	}
	ck_assert_uint_eq(w.srv->node.st.test_puts, 10);
	world_fini(&w);
	lne_tbf_free(t);
}
END_TEST

Suite *make_svc_suite(void)
{
	Suite *s = suite_create("svc");
	TCase *tc = tcase_create("svc");

	tcase_add_test(tc, body_round_trip_and_hostile);
	tcase_add_test(tc, register_refusals);
	tcase_add_test(tc, rates_enforced_in_order);
	tcase_add_test(tc, hp_first_and_gets);
	tcase_add_test(tc, policy_detach_and_back);
	tcase_add_test(tc, malformed_request_dropped);
	tcase_add_test(tc, test_service_through_policy);
	suite_add_tcase(s, tc);
	return s;
}
