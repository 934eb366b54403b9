// SPDX-License-Identifier: GPL-2.0
/*
 * node-test.c - the traffic generator (node-test.h).
 */
#include "node-test.h"
#include "node-svc.h"

int lne_test_check(const struct lne_test *t, struct lne_err *err)
{
	if (t->mode > LNE_TEST_PING)
		return lne_err_set(err, -EINVAL, "mode", -1, "none of write, read, ping");
	if (t->size > LNW_MTU)
		return lne_err_set(err, -EINVAL, "size", -1, "%u is above the MTU (%u)", t->size,
				   LNW_MTU);
	if (!t->count || t->count > LNE_TEST_COUNT_MAX)
		return lne_err_set(err, -EINVAL, "count", -1, "%u is outside 1..%u", t->count,
				   LNE_TEST_COUNT_MAX);
	if (!t->conc || t->conc > LNE_TEST_CONCURRENCY_MAX)
		return lne_err_set(err, -EINVAL, "concurrency", -1, "%u is outside 1..%u", t->conc,
				   LNE_TEST_CONCURRENCY_MAX);
	if (t->timeout_ms > LNE_TEST_TIMEOUT_MAX_MS)
		return lne_err_set(err, -EINVAL, "timeout", -1, "%u ms is above %u ms",
				   t->timeout_ms, LNE_TEST_TIMEOUT_MAX_MS);
	return 0;
}

static void rails_read(struct lne_test *t, bool start)
{
	u32 i;

	for (i = 0; i < t->nrails; i++) {
		const struct lne_counts *c = lne_node_counts(t->node, &t->rails[i].nid);
		u64 s = c ? c->send_length : 0, r = c ? c->recv_length : 0;

		if (start) {
			t->rails[i].sent0 = s;
			t->rails[i].received0 = r;
		}
		t->rails[i].sent = s - t->rails[i].sent0;
		t->rails[i].received = r - t->rails[i].received0;
	}
}

void lne_test_sample(struct lne_test *t, u64 t_ns)
{
	u64 *row;
	u32 i;

	if (!t->trace || t->nsamples == t->max_samples)
		return;
	row = t->trace + (size_t)t->nsamples++ * (t->nrails + 1);
	row[0] = t_ns;
	for (i = 0; i < t->nrails; i++) {
		const struct lne_counts *c = lne_node_counts(t->node, &t->rails[i].nid);

		row[i + 1] = c ? c->send_length + c->recv_length - t->rails[i].sent0 -
					     t->rails[i].received0
			       : 0;
	}
}

u64 lne_test_bytes(const struct lne_test *t)
{
	return t->mode == LNE_TEST_PING ? 0 : (u64)(t->finished - t->failed) * t->size;
}

static void topup(struct lne_test *t);

/*
 * A write's payload: one of LNE_SVC_BODY to LNE_TEST_BODY_MAX bytes starts
 * with a test-request body (node-svc.h: opcode ost_write, jobid
 * "lnet_selftest", uid and gid 0), as an RPC carries its fields, for the
 * service's TBF rules to read; other sizes are bulk, zeros the node lends,
 * classified by the NID alone.
 */
static u8 *write_payload(u32 size)
{
	struct lne_svc_body b = {.opcode = 4, .jobid = "lnet_selftest"};
	u8 *p;

	if (size < LNE_SVC_BODY || size > LNE_TEST_BODY_MAX)
		return NULL;
	p = lne_zalloc(size);
	if (p)
		lne_svc_body_pack(&b, p);
	return p;
}

static void ended(struct lne_test *t, int status)
{
	t->finished++;
	if (status) {
		t->failed++;
		if (!t->first_err)
			t->first_err = status;
	}
}

static void on_done(struct lne_msg *m, int status)
{
	struct lne_test *t = m->arg;

	t->inflight--;
	ended(t, status);
	topup(t);
}

/* Keep the window full; a message refused at once counts, and the loop goes on. */
static void topup(struct lne_test *t)
{
	struct lne_node *n = t->node;

	if (t->busy)
		return;
	t->busy = true;
	while (t->inflight < t->conc && t->started < t->count) {
		u32 wait = t->timeout_ms ? t->timeout_ms : LNE_TEST_TIMEOUT_MS;
		int rc;

		t->started++;
		t->inflight++;
		switch (t->mode) {
		case LNE_TEST_WRITE:
			rc = lne_node_put(n, &t->dst, NULL, LNE_PORTAL_TEST, 0, 0,
					  write_payload(t->size), t->size, t->ack, wait, on_done, t,
					  NULL);
			break;
		case LNE_TEST_READ:
			rc = lne_node_get(n, &t->dst, NULL, LNE_PORTAL_TEST, 0, t->size, wait,
					  on_done, t, NULL);
			break;
		default:
			rc = lne_node_ping(n, &t->dst, NULL, wait, on_done, t, NULL);
			break;
		}
		if (rc) { /* refused before it started: no callback comes */
			t->inflight--;
			ended(t, rc);
			if (rc == -ESHUTDOWN) /* the node is going: the rest would be too */
				t->count = t->started;
		}
	}
	t->busy = false;
	if (t->finished == t->count && !t->over) {
		rails_read(t, false);
		t->over = true;
		t->done(t);
	}
}

void lne_test_start(struct lne_test *t, struct lne_node *n)
{
	struct lne_ni *ni;

	t->node = n;
	t->started = t->finished = t->failed = t->inflight = 0;
	t->first_err = 0;
	t->busy = t->over = false;
	t->nrails = t->nsamples = 0;
	lne_list_for_each_entry(ni, &n->ln->nis, all_link) {
		if (t->nrails == LNE_TEST_RAILS_MAX)
			break;
		if (ni->nid.lnd != LNE_LND_LO)
			t->rails[t->nrails++].nid = ni->nid;
	}
	rails_read(t, true);
	lne_test_sample(t, 0); /* the first row: zeros at the start */
	topup(t);
}
