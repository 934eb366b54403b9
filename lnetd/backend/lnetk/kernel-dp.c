// SPDX-License-Identifier: GPL-2.0
/*
 * kernel-dp.c - the kernel engine's data path ops (backend.h): the
 * module's node answers.  LNETK_CMD_PING (ping, discover) and
 * LNETK_CMD_SELFTEST wait in the module for the network, so each runs on a
 * thread of its own with a netlink socket of its own
 * (bk_call_on_thread()); the rest are one request each on lnetd's socket.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel-int.h"

#define NOT_LOADED "the lnetk module is not loaded"

struct lnetk *kb_lnetk(struct backend *b)
{
	return ((struct kbackend *)b)->lk;
}

/* The module's sentence, or the errno's words, into @err; returns @rc. */
int kb_fail(struct lne_err *err, int rc, const struct lnetk_err *lerr, const char *what)
{
	if (lerr && lerr->msg[0])
		return lne_err_set(err, rc, NULL, -1, "%s", lerr->msg);
	return lne_err_set(err, rc, NULL, -1, "%s: %s", what, strerror(-rc));
}

/* -ENODEV with the sentence when the module is away; 0 when it is there. */
int kb_absent(struct backend *b, struct lne_err *err, const char *has_no)
{
	if (kb_lnetk(b))
		return 0;
	return lne_err_set(err, -ENODEV, NULL, -1, NOT_LOADED ": it has no %s", has_no);
}

/* --- calls that wait: a thread each ----------------------------------------------------- */

static void call_failed(struct bk_call *c, int rc, const struct lnetk_err *lerr, const char *verb)
{
	char dst[LNE_NID_STR_MAX];

	lne_nid_format(&c->dst, dst, sizeof(dst));
	c->rc = lne_err_set(&c->err, rc, NULL, -1, "failed to %s %s: %s", verb, dst,
			    lerr->msg[0] ? lerr->msg : strerror(-rc));
}

/* The module's ping info, as every engine answers a ping. */
static void ping_info(struct bk_call *c, const struct lnetk_ping *p)
{
	unsigned int i;

	c->ping.features = p->features;
	c->ping.pid = p->pid;
	c->ping.n = 0;
	for (i = 0; i < p->n && i < BK_PING_NIDS_MAX; i++) {
		snprintf(c->ping.nid[i].nid, sizeof(c->ping.nid[i].nid), "%s", p->nid[i].nid);
		c->ping.nid[i].status = p->nid[i].status == LNETK_NI_STATUS_UP	   ? LNE_PNI_UP
					: p->nid[i].status == LNETK_NI_STATUS_DOWN ? LNE_PNI_DOWN
										   : LNE_PNI_NA;
		c->ping.n++;
	}
}

/* On the thread: a ping or a discovery (@c->force says which for a discovery). */
static void run_ping(struct bk_call *c, bool discover)
{
	struct lnetk_ping *out = calloc(1, sizeof(*out));
	char dst[LNE_NID_STR_MAX], src[LNE_NID_STR_MAX];
	struct lnetk_err lerr = {""};
	struct lnetk *lk = NULL;
	int rc = out ? lnetk_open(&lk) : -ENOMEM;

	lne_nid_format(&c->dst, dst, sizeof(dst));
	if (c->has_src)
		lne_nid_format(&c->src, src, sizeof(src));
	if (!rc && discover)
		rc = lnetk_discover(lk, dst, c->force, c->timeout_ms, out, &lerr);
	else if (!rc)
		rc = lnetk_ping(lk, dst, c->has_src ? src : NULL, c->timeout_ms, out, &lerr);
	lnetk_close(lk);
	if (rc)
		call_failed(c, rc, &lerr, discover ? "discover" : "ping");
	else
		ping_info(c, out);
	free(out);
}

static void run_ping_only(struct bk_call *c)
{
	run_ping(c, false);
}

static void run_discover(struct bk_call *c)
{
	run_ping(c, true);
}

int kb_ping(struct backend *b, struct bk_call *c)
{
	return kb_absent(b, &c->err, "data path") ?: bk_call_on_thread(b, c, run_ping_only);
}

int kb_discover(struct backend *b, struct bk_call *c)
{
	return kb_absent(b, &c->err, "data path") ?: bk_call_on_thread(b, c, run_discover);
}

/* The module's trace rows (stride 1 + LNETK_TEST_RAILS_MAX) as the generator keeps them. */
static void test_trace(struct lne_test *t, const struct lnetk_test *o)
{
	size_t stride = t->nrails + 1;
	uint32_t i;

	if (!o->nsamples || t->nrails != o->nrails)
		return;
	t->trace = calloc((size_t)o->nsamples * stride, sizeof(uint64_t));
	if (!t->trace)
		return; /* the answer goes without it */
	for (i = 0; i < o->nsamples; i++)
		memcpy(t->trace + i * stride, o->trace + (size_t)i * (LNETK_TEST_RAILS_MAX + 1),
		       stride * sizeof(uint64_t));
	t->nsamples = t->max_samples = o->nsamples;
}

/* On the thread: LNETK_CMD_SELFTEST, its results as the engine's generator keeps them. */
static void run_selftest(struct bk_call *c)
{
	struct lnetk_test *o = calloc(1, sizeof(*o));
	struct lne_test *t = &c->test;
	char dst[LNE_NID_STR_MAX];
	struct lnetk_err lerr = {""};
	struct lnetk *lk = NULL;
	unsigned int i;
	int rc = o ? lnetk_open(&lk) : -ENOMEM;

	lne_nid_format(&c->dst, dst, sizeof(dst));
	if (!rc) {
		o->dst = dst;
		o->mode = (uint8_t)t->mode;
		o->size = t->size;
		o->count = t->count;
		o->concurrency = t->conc;
		o->no_ack = !t->ack;
		o->timeout_ms = t->timeout_ms;
	}
	if (!rc && c->interval_ms) {
		o->trace = calloc((size_t)LNETK_TEST_SAMPLES_MAX * (LNETK_TEST_RAILS_MAX + 1),
				  sizeof(uint64_t));
		o->max_samples = LNETK_TEST_SAMPLES_MAX;
		o->interval_ms = c->interval_ms;
		rc = o->trace ? 0 : -ENOMEM;
	}
	if (!rc)
		rc = lnetk_selftest(lk, o, &lerr);
	lnetk_close(lk);
	if (rc) {
		call_failed(c, rc, &lerr, "test");
	} else {
		t->trace = NULL;
		t->finished = o->messages;
		t->failed = o->failed;
		t->first_err = o->error;
		t->nrails = 0;
		for (i = 0; i < o->nrails && i < LNE_TEST_RAILS_MAX; i++)
			if (!lne_nid_parse(o->rail[i].nid, &t->rails[t->nrails].nid, NULL)) {
				t->rails[t->nrails].sent = o->rail[i].sent;
				t->rails[t->nrails++].received = o->rail[i].received;
			}
		test_trace(t, o);
		c->elapsed_ns = o->elapsed_ns;
	}
	if (o)
		free(o->trace);
	free(o);
}

int kb_selftest(struct backend *b, struct bk_call *c)
{
	c->test.trace = NULL;
	return kb_absent(b, &c->err, "data path") ?: bk_call_on_thread(b, c, run_selftest);
}

/* --- one request each ---------------------------------------------------------------------- */

int kb_counters(struct backend *b, bk_count_fn fn, void *arg, struct lne_err *err)
{
	struct lnetk_err lerr = {""};
	int rc = kb_absent(b, err, "counters");

	if (!rc)
		rc = lnetk_counters(kb_lnetk(b), fn, arg, NULL, &lerr);
	return rc && !err->msg[0] ? kb_fail(err, rc, &lerr, "the module's counters") : rc;
}

int kb_counters_reset(struct backend *b, struct lne_err *err)
{
	struct lnetk_err lerr = {""};
	int rc = kb_absent(b, err, "counters");

	if (!rc)
		rc = lnetk_counters_reset(kb_lnetk(b), &lerr);
	return rc && !err->msg[0] ? kb_fail(err, rc, &lerr, "the module's counters") : rc;
}

int kb_test_service(struct backend *b, bool on, struct lne_err *err)
{
	struct lnetk_err lerr = {""};
	int rc = kb_absent(b, err, "test service");

	if (!rc)
		rc = lnetk_test_service(kb_lnetk(b), on, &lerr);
	return rc && !err->msg[0] ? kb_fail(err, rc, &lerr, "the module's test service") : rc;
}

/* --- health, recovery and router credits: the module's node -------------------------------- */

int kb_set_health(struct backend *b, bool peer, const struct lne_nid *nid, uint32_t value,
		  struct lne_err *err)
{
	char why[LNE_ERR_MSG_MAX];
	int rc = kbackend_set_health((struct kbackend *)b, peer, nid, value, why, sizeof(why));

	return rc ? lne_err_set(err, rc, NULL, -1, "%s", why) : 0;
}

int kb_health_stats(struct backend *b, const struct lne_nid *nid, bool *local, uint32_t *health,
		    bk_kv_fn fn, void *arg, struct lne_err *err)
{
	struct lnetk_err lerr = {""};
	char canon[LNE_NID_STR_MAX];
	int rc = kb_absent(b, err, "data path");

	lne_nid_format(nid, canon, sizeof(canon));
	if (!rc)
		rc = lnetk_health_get(kb_lnetk(b), canon, local, health, fn, arg, &lerr);
	return rc && !err->msg[0] ? kb_fail(err, rc, &lerr, "the lnetk module refused") : rc;
}

int kb_rtr_credits(struct backend *b, const struct lne_nid *nid, int32_t *avail, int32_t *min,
		   struct lne_err *err)
{
	struct lnetk_err lerr = {""};
	char canon[LNE_NID_STR_MAX];
	int rc = kb_absent(b, err, "data path");

	lne_nid_format(nid, canon, sizeof(canon));
	if (!rc)
		rc = lnetk_rtr_credits(kb_lnetk(b), canon, avail, min, &lerr);
	return rc && !err->msg[0] ? kb_fail(err, rc, &lerr, "the lnetk module refused") : rc;
}

int kb_recovery(struct backend *b, bool peer, bk_queued_fn fn, void *arg, struct lne_err *err)
{
	struct lnetk_err lerr = {""};
	int rc = kb_absent(b, err, "data path");

	if (!rc)
		rc = lnetk_recovery_get(kb_lnetk(b), peer, fn, arg, &lerr);
	return rc < 0 && !err->msg[0] ? kb_fail(err, rc, &lerr, "the lnetk module refused") : rc;
}

/* --- fault injection: the module keeps the rules (LNETK_CMD_FAULT) ----------------------- */

int kb_fault_add(struct backend *b, const struct bk_fault *f, uint32_t *id, struct lne_err *err)
{
	struct lnetk_err lerr = {""};
	int rc = kb_absent(b, err, "data path");

	/* The options as given: the module checks them again, as lnetd did. */
	if (!rc)
		rc = lnetk_fault_add(kb_lnetk(b), f->attr->delay, f->key, f->value, f->n, id,
				     &lerr);
	return rc && !err->msg[0] ? kb_fail(err, rc, &lerr, "the lnetk module refused") : rc;
}

int kb_fault_del(struct backend *b, bool delay, const struct lne_nid *src,
		 const struct lne_nid *dst, bool all, uint32_t *gone, struct lne_err *err)
{
	char s[LNE_NID_STR_MAX], d[LNE_NID_STR_MAX];
	struct lnetk_err lerr = {""};
	int rc = kb_absent(b, err, "data path");

	if (src)
		lne_nid_format(src, s, sizeof(s));
	if (dst)
		lne_nid_format(dst, d, sizeof(d));
	if (!rc)
		rc = lnetk_fault_del(kb_lnetk(b), delay, src ? s : NULL, dst ? d : NULL, all, gone,
				     &lerr);
	return rc && !err->msg[0] ? kb_fail(err, rc, &lerr, "the lnetk module refused") : rc;
}

int kb_fault_reset(struct backend *b, bool delay, struct lne_err *err)
{
	struct lnetk_err lerr = {""};
	int rc = kb_absent(b, err, "data path");

	if (!rc)
		rc = lnetk_fault_reset(kb_lnetk(b), delay, &lerr);
	return rc && !err->msg[0] ? kb_fail(err, rc, &lerr, "the lnetk module refused") : rc;
}

struct listing {
	bk_fault_fn fn;
	void *arg;
};

static int rule_one(void *arg, const struct lnetk_fault_rule *k)
{
	struct listing *l = arg;
	struct bk_fault_rule r = {.id = k->id};
	unsigned int i;

	for (i = 0; i < k->nopt && i < BK_FAULT_OPTS_MAX; i++) {
		r.key[i] = k->key[i];
		r.value[i] = k->value[i];
	}
	r.nopt = i;
	for (i = 0; i < k->nstat && i < BK_FAULT_STATS_MAX; i++) {
		r.stat[i] = k->stat[i];
		r.count[i] = k->count[i];
	}
	r.nstat = i;
	return l->fn(l->arg, &r);
}

int kb_fault_list(struct backend *b, bool delay, bk_fault_fn fn, void *arg, struct lne_err *err)
{
	struct listing l = {fn, arg};
	struct lnetk_err lerr = {""};
	int rc = kb_absent(b, err, "data path");

	if (!rc)
		rc = lnetk_fault_list(kb_lnetk(b), delay, rule_one, &l, &lerr);
	return rc < 0 && !err->msg[0] ? kb_fail(err, rc, &lerr, "the lnetk module refused") : rc;
}

/* --- explain: the module decides on its running state ------------------------------------- */

_Static_assert((int)LNETK_CRIT_ROUND_ROBIN == (int)LNE_CRIT_ROUND_ROBIN &&
		       (int)LNETK_CRIT_CHOSEN == (int)LNE_CRIT_CHOSEN &&
		       (int)LNETK_STEP_GATEWAY == (int)LNE_STEP_GATEWAY,
	       "the module's criteria and steps are the engine's");

/*
 * Ask the module while it is loaded: it decides on its running state,
 * which lnetd's mirror does not see (health and round robin as traffic
 * left them).  Without it, the mirror decides.
 */
int kb_explain(struct backend *b, struct bk_explain *x, struct lne_err *err)
{
	char dst[LNE_NID_STR_MAX], src[LNE_NID_STR_MAX];
	struct lnetk_select_req req = {.dst = dst, .md_cpt = -1};
	struct lne_explain *ex = x->ex;
	struct lnetk_entry *ent;
	struct lnetk_explain kex;
	struct lnetk_err lerr = {.msg = ""};
	struct lnetk_selection sel;
	size_t i;
	unsigned int k;
	int rc;

	if (!kb_lnetk(b))
		return bk_explain_inst(b->d->mirror, x, err);
	ent = calloc(ex->cap ? ex->cap : 1, sizeof(*ent));
	if (!ent)
		return -ENOMEM;
	kex = (struct lnetk_explain){.ent = ent, .cap = ex->cap};
	lne_nid_format(x->dst, dst, sizeof(dst));
	if (x->src) {
		lne_nid_format(x->src, src, sizeof(src));
		req.src = src;
	}
	rc = lnetk_explain(kb_lnetk(b), &req, &sel, &kex, &lerr);
	if (rc) {
		free(ent);
		return lne_err_set(err, rc, NULL, -1, "%s", lerr.msg[0] ? lerr.msg : strerror(-rc));
	}
	snprintf(x->ni, sizeof(x->ni), "%s", sel.ni);
	snprintf(x->pni, sizeof(x->pni), "%s", sel.peer_ni);
	snprintf(x->gw, sizeof(x->gw), "%s", sel.gateway);
	for (i = 0; i < kex.n && ex->n < ex->cap; i++) {
		struct lne_exp_entry *e = &ex->ent[ex->n];

		memset(e, 0, sizeof(*e));
		if (lne_nid_parse(ent[i].nid, &e->nid, NULL))
			continue;
		e->step = ent[i].step;
		e->crit = ent[i].crit;
		e->lost_at = ent[i].lost_at;
		for (k = 0; k < ent[i].nkeys && k < LNE_KEY_MAX; k++) {
			e->key.crit[k] = ent[i].key[k].crit;
			e->key.v[k] = ent[i].key[k].value;
			e->key.rule[k] = ent[i].key[k].rule;
		}
		e->key.n = (u8)k;
		ex->n++;
	}
	free(ent);
	return 0;
}
