// SPDX-License-Identifier: GPL-2.0
/*
 * ktbf.c - the lnetk module's NRS TBF policies made equal to the mirror's.
 *
 * TBF policies are not engine instance objects (BATCH does not carry
 * them, and lnetd's copy of the module, kernel.c's @pushed, has none), so
 * each sync reads the module's policies whole (a dump: a few messages) and
 * compares them with the mirror's by their text: each queue's type and
 * depth, and its rules as the commands that recreate them
 * (lne_tbf_rule_format, the same code on both sides).  Per queue:
 *
 *   1. stop the rules the mirror lacks, and those whose conditions or
 *      realtime flag differ (a rule cannot change those in place);
 *   2. set the type and depth (after the stops: a type may be refused while
 *      a rule tests a field it lacks; before the starts: a new rule may test
 *      a field only the new type has);
 *   3. from the last rule to the first, place each just before its
 *      successor in the mirror's order: start it there (rank=) if the
 *      module lacks it, else change its rate and rank only as needed;
 *   4. the default rule's rate.
 *
 * A rule that survives keeps its classes and statistics in the module:
 * traffic goes on being shaped while lnetd changes the policy around it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "engine/tbf.h"
#include "kernel-int.h"
#include "ktbf.h"
#include "liblnetk/lnetk-client.h"

#define RULES_MAX (LNE_TBF_RULES_MAX + 1) /* the default included */

struct mrule {
	char name[LNE_TBF_NAME_MAX + 1];
	char *text; /* the command that recreates it */
	uint32_t rate;
};

struct mqueue {
	char type[LNETK_TBF_TYPE_MAX];
	uint32_t depth;
	size_t n;
	struct mrule *r; /* match order, default last */
};

struct mpol {
	char service[LNETK_TBF_SERVICE_MAX];
	struct mqueue q[LNE_TBF_NQUEUES];
};

struct mpols {
	struct mpol *p;
	size_t n;
	int rc;
};

static void mpol_clear(struct mpol *p)
{
	size_t q, i;

	for (q = 0; q < LNE_TBF_NQUEUES; q++) {
		for (i = 0; i < p->q[q].n; i++)
			free(p->q[q].r[i].text);
		free(p->q[q].r);
		p->q[q].r = NULL;
		p->q[q].n = 0;
	}
}

static void mpols_free(struct mpols *m)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		mpol_clear(&m->p[i]);
	free(m->p);
	m->p = NULL;
	m->n = 0;
}

/* A queue's rule, added at the end. */
static int mq_add(struct mqueue *q, const char *name, const char *text, uint32_t rate)
{
	struct mrule *r;

	if (q->n >= RULES_MAX)
		return -E2BIG;
	if (!q->r) {
		q->r = calloc(RULES_MAX, sizeof(*q->r));
		if (!q->r)
			return -ENOMEM;
	}
	r = &q->r[q->n];
	snprintf(r->name, sizeof(r->name), "%s", name);
	r->text = strdup(text);
	r->rate = rate;
	if (!r->text)
		return -ENOMEM;
	q->n++;
	return 0;
}

/* What the module holds: a dump's policies, copied (the callback's strings do not last). */
static int read_cb(const struct lnetk_tbf *t, void *arg)
{
	struct mpols *m = arg;
	struct mpol *p, *grown;
	size_t q, i;

	grown = realloc(m->p, (m->n + 1) * sizeof(*m->p));
	if (!grown)
		return m->rc = -ENOMEM;
	m->p = grown;
	p = &m->p[m->n++];
	memset(p, 0, sizeof(*p));
	snprintf(p->service, sizeof(p->service), "%s", t->service);
	for (q = 0; q < t->nqueues; q++) {
		const struct lnetk_tbf_qinfo *qi = &t->queues[q];
		struct mqueue *mq;

		if (qi->queue >= LNE_TBF_NQUEUES)
			return m->rc = -EPROTO;
		mq = &p->q[qi->queue];
		snprintf(mq->type, sizeof(mq->type), "%s", qi->type);
		mq->depth = qi->depth;
		for (i = 0; i < qi->nrules; i++)
			if ((m->rc = mq_add(mq, qi->rules[i].name, qi->rules[i].text,
					    qi->rules[i].rate)))
				return m->rc;
	}
	return 0;
}

/* What the mirror wants, in the same form. */
static int want_of(const struct lne_tbf *tbf, struct mpol *p)
{
	char text[LNE_TBF_CMD_MAX + 1];
	struct lne_tbf_queue_info qi;
	const struct lne_tbf_rule *r;
	int q, rc = 0;

	memset(p, 0, sizeof(*p));
	snprintf(p->service, sizeof(p->service), "%s", lne_tbf_service(tbf));
	for (q = 0; !rc && q < LNE_TBF_NQUEUES; q++) {
		lne_tbf_queue_info(tbf, q, &qi);
		lne_tbf_type_format(qi.fields, p->q[q].type, sizeof(p->q[q].type));
		p->q[q].depth = qi.depth;
		for (r = lne_tbf_rule_next(tbf, q, NULL); !rc && r;
		     r = lne_tbf_rule_next(tbf, q, r)) {
			lne_tbf_rule_format(r, text, sizeof(text));
			rc = mq_add(&p->q[q], r->name, text, r->rate);
		}
	}
	return rc;
}

static int read_module(struct lnetk *lk, const char *service, struct mpols *m,
		       struct lnetk_err *err)
{
	int rc;

	m->rc = 0;
	rc = service ? lnetk_tbf_get(lk, service, read_cb, m, err)
		     : lnetk_tbf_dump(lk, read_cb, m, err);
	return rc ? rc : m->rc;
}

static struct mpol *mpol_find(struct mpols *m, const char *service)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		if (!strcmp(m->p[i].service, service))
			return &m->p[i];
	return NULL;
}

static ssize_t mq_find(const struct mqueue *q, const char *name)
{
	size_t i;

	for (i = 0; i < q->n; i++)
		if (!strcmp(q->r[i].name, name))
			return (ssize_t)i;
	return -1;
}

/* Whether two rules' texts say the same but perhaps for the rate. */
static bool same_but_rate(const char *a, const char *b)
{
	for (;;) {
		if (!strncmp(a, " rate=", 6) && !strncmp(b, " rate=", 6)) {
			a += 6 + strspn(a + 6, "0123456789");
			b += 6 + strspn(b + 6, "0123456789");
			continue;
		}
		if (*a != *b)
			return false;
		if (!*a)
			return true;
		a++;
		b++;
	}
}

/* Move rule @from of @q to just before index @to (as the module just did). */
static void mq_move(struct mqueue *q, size_t from, size_t to)
{
	struct mrule r = q->r[from];

	if (from < to) {
		memmove(&q->r[from], &q->r[from + 1], (to - 1 - from) * sizeof(r));
		q->r[to - 1] = r;
	} else if (from > to) {
		memmove(&q->r[to + 1], &q->r[to], (from - to) * sizeof(r));
		q->r[to] = r;
	}
}

struct run {
	struct lnetk *lk;
	struct lnetk_err *err;
	ktbf_sent_fn sent;
	void *ctx;
	const char *service;
	bool stop;
};

/* One rule command on the module; whether it was taken. */
static bool command(struct run *r, const char *queue, const char *cmd)
{
	char full[LNE_TBF_CMD_MAX + 64], what[sizeof(full) + LNETK_TBF_SERVICE_MAX + 32];
	int rc;

	snprintf(full, sizeof(full), "%s %s", queue, cmd);
	snprintf(what, sizeof(what), "TBF command \"%s\" of service %s", full, r->service);
	rc = lnetk_tbf_cmd(r->lk, r->service, full, r->err);
	if (!r->sent(r->ctx, rc, what))
		r->stop = true;
	return !rc;
}

static void set_queue(struct run *r, int q, const char *type, uint32_t depth)
{
	char what[LNETK_TBF_SERVICE_MAX + LNETK_TBF_TYPE_MAX + 64];
	int rc;

	snprintf(what, sizeof(what), "TBF %s queue of service %s (type %s, depth %u)",
		 q ? "hp" : "reg", r->service, type ? type : "kept", depth);
	rc = lnetk_tbf_set(r->lk, r->service, q, type, depth, r->err);
	if (!r->sent(r->ctx, rc, what))
		r->stop = true;
}

static int sync_queue(struct run *r, int q, struct mqueue *have, const struct mqueue *want)
{
	const char *qname = q ? "hp" : "reg";
	char cmd[LNE_TBF_CMD_MAX + 64];
	size_t i, k;
	ssize_t at, nx;
	int n;

	/* 1. Rules that go, or cannot become what the mirror has in place. */
	for (i = 0; !r->stop && have->n && i < have->n - 1;) {
		at = mq_find(want, have->r[i].name);
		if (at >= 0 && same_but_rate(have->r[i].text, want->r[at].text)) {
			i++;
			continue;
		}
		snprintf(cmd, sizeof(cmd), "stop %s", have->r[i].name);
		if (!command(r, qname, cmd)) {
			i++;
			continue;
		}
		free(have->r[i].text);
		memmove(&have->r[i], &have->r[i + 1], (have->n - i - 1) * sizeof(*have->r));
		have->n--;
	}
	/* 2. Type and depth. */
	if (!r->stop && (strcmp(have->type, want->type) || have->depth != want->depth))
		set_queue(r, q, strcmp(have->type, want->type) ? want->type : NULL,
			  have->depth != want->depth ? want->depth : 0);
	/*
	 * 3. Each rule just before its successor, last first: the successor is
	 * in place already (want->r[n - 1] is the default, which every queue
	 * has), unless the module refused it, and then the next one that is.
	 */
	for (k = want->n - 1; !r->stop && k-- > 0;) {
		const struct mrule *w = &want->r[k];
		size_t j = k + 1;
		const char *next;

		while ((nx = mq_find(have, want->r[j].name)) < 0 && j + 1 < want->n)
			j++;
		if (nx < 0)
			return -EPROTO; /* a module without a default rule */
		next = want->r[j].name;
		at = mq_find(have, w->name);
		if (at < 0) {
			snprintf(cmd, sizeof(cmd), "%s rank=%s", w->text, next);
			if (command(r, qname, cmd) && !mq_add(have, w->name, w->text, w->rate))
				mq_move(have, have->n - 1, (size_t)nx);
			continue;
		}
		if (have->r[at].rate == w->rate && at + 1 == nx)
			continue;
		n = snprintf(cmd, sizeof(cmd), "change %s", w->name);
		if (have->r[at].rate != w->rate)
			n += snprintf(cmd + n, sizeof(cmd) - n, " rate=%u", w->rate);
		if (at + 1 != nx)
			snprintf(cmd + n, sizeof(cmd) - n, " rank=%s", next);
		if (command(r, qname, cmd)) {
			have->r[at].rate = w->rate;
			mq_move(have, (size_t)at, (size_t)nx);
		}
	}
	/* 4. The default rule's rate. */
	at = mq_find(have, "default");
	if (!r->stop && at >= 0 && want->n && have->r[at].rate != want->r[want->n - 1].rate) {
		snprintf(cmd, sizeof(cmd), "change default rate=%u", want->r[want->n - 1].rate);
		command(r, qname, cmd);
	}
	return 0;
}

static void sync_policy(struct run *r, struct mpol *have, const struct mpol *want)
{
	int q;

	for (q = 0; !r->stop && q < LNE_TBF_NQUEUES; q++)
		if (sync_queue(r, q, &have->q[q], &want->q[q]))
			break;
}

int ktbf_sync(struct lnetk *lk, struct lne_tbf *const *want, size_t nwant, ktbf_sent_fn sent,
	      void *ctx, struct lnetk_err *err)
{
	struct run r = {.lk = lk, .err = err, .sent = sent, .ctx = ctx};
	struct mpols have = {0}, fresh = {0};
	char what[LNETK_TBF_SERVICE_MAX + 64];
	struct mpol w, *h;
	size_t i;
	int rc;

	rc = read_module(lk, NULL, &have, err);
	for (i = 0; !rc && !r.stop && i < have.n; i++) {
		bool kept = false;
		size_t j;

		for (j = 0; j < nwant && !kept; j++)
			kept = !strcmp(lne_tbf_service(want[j]), have.p[i].service);
		if (kept)
			continue;
		snprintf(what, sizeof(what), "deleting the TBF policy of service %s",
			 have.p[i].service);
		if (!sent(ctx, lnetk_tbf_del(lk, have.p[i].service, err), what))
			r.stop = true;
	}
	for (i = 0; !rc && !r.stop && i < nwant; i++) {
		rc = want_of(want[i], &w);
		if (rc) {
			mpol_clear(&w);
			break;
		}
		r.service = w.service;
		h = mpol_find(&have, w.service);
		if (!h) {
			/* Create it with the reg queue's settings, then compare with what it is. */
			set_queue(&r, LNE_TBF_REG, w.q[0].type, w.q[0].depth);
			mpols_free(&fresh);
			if (!r.stop && !read_module(lk, w.service, &fresh, err))
				h = mpol_find(&fresh, w.service);
		}
		if (h)
			sync_policy(&r, h, &w);
		mpol_clear(&w);
	}
	mpols_free(&have);
	mpols_free(&fresh);
	return rc;
}

/* --- what the module runs, for ListTbf ------------------------------------------------- */

struct classes {
	struct ktbf_class *c;
	size_t n, cap;
	int rc;
};

static int class_cb(const struct lnetk_tbf_class *k, void *arg)
{
	struct classes *cs = arg;
	struct ktbf_class *c;

	if (cs->n == cs->cap) {
		size_t cap = cs->cap ? 2 * cs->cap : 64;
		struct ktbf_class *grown = realloc(cs->c, cap * sizeof(*cs->c));

		if (!grown)
			return cs->rc = -ENOMEM;
		cs->c = grown;
		cs->cap = cap;
	}
	c = &cs->c[cs->n];
	*c = (struct ktbf_class){.service = strdup(k->service),
				 .key = strdup(k->key),
				 .rule = strdup(k->rule),
				 .queue = k->queue,
				 .queued = k->queued,
				 .enqueued = k->enqueued,
				 .dispatched = k->dispatched,
				 .wait_ns = k->wait_ns,
				 .throttled = k->throttled};
	cs->n++;
	if (!c->service || !c->key || !c->rule)
		return cs->rc = -ENOMEM;
	return 0;
}

struct reading {
	struct classes *cs;
	ktbf_policy_fn cb;
	void *arg;
	int rc;
};

static int policy_cb(const struct lnetk_tbf *t, void *arg)
{
	struct reading *rd = arg;
	size_t first = 0, n = 0;

	/* Classes come policy by policy, in the same service order. */
	while (first < rd->cs->n && strcmp(rd->cs->c[first].service, t->service))
		first++;
	while (first + n < rd->cs->n && !strcmp(rd->cs->c[first + n].service, t->service))
		n++;
	return rd->rc = rd->cb(t, rd->cs->c + first, n, rd->arg);
}

/* Forget the classes read (their strings), keeping the array for another read. */
static void classes_clear(struct classes *cs)
{
	size_t i;

	for (i = 0; i < cs->n; i++) {
		free(cs->c[i].service);
		free(cs->c[i].key);
		free(cs->c[i].rule);
	}
	cs->n = 0;
	cs->rc = 0;
}

int ktbf_read(struct lnetk *lk, ktbf_policy_fn cb, void *arg, struct lnetk_err *err)
{
	struct classes cs = {0};
	struct reading rd = {.cs = &cs, .cb = cb, .arg = arg};
	int rc = -EAGAIN, tries;

	/* Traffic makes and reclaims classes: a dump it interrupted is read again. */
	for (tries = 0; rc == -EAGAIN && tries < 5; tries++) {
		classes_clear(&cs);
		rc = lnetk_tbf_classes(lk, NULL, class_cb, &cs, err);
		rc = rc ?: cs.rc;
	}
	if (!rc)
		rc = lnetk_tbf_dump(lk, policy_cb, &rd, err);
	rc = rc ?: rd.rc;
	classes_clear(&cs);
	free(cs.c);
	return rc;
}

/* --- the same for the views (backend.h's tbf_read) ---------------------------------------- */

struct viewing {
	bk_tbf_fn fn;
	void *arg;
};

static enum lne_tbf_queue queue_of(uint8_t q)
{
	return q == LNETK_TBF_HP ? LNE_TBF_HP : LNE_TBF_REG;
}

static struct lne_tbf_stats stats_of(uint64_t queued, uint64_t enqueued, uint64_t dispatched,
				     uint64_t wait_ns, uint64_t throttled)
{
	return (struct lne_tbf_stats){.queued = queued,
				      .enqueued = enqueued,
				      .dispatched = dispatched,
				      .wait_ns = wait_ns,
				      .throttled = throttled};
}

static int view_policy(const struct lnetk_tbf *t, const struct ktbf_class *cls, size_t ncls,
		       void *arg)
{
	struct viewing *v = arg;
	struct bk_tbf_policy p = {.service = t->service, .ncls = ncls};
	struct bk_tbf_rule *rules[LNE_TBF_NQUEUES] = {NULL};
	struct bk_tbf_class *cs = calloc(ncls ? ncls : 1, sizeof(*cs));
	size_t q, i;
	int rc = cs ? 0 : -ENOMEM;

	for (q = 0; !rc && q < t->nqueues && q < LNE_TBF_NQUEUES; q++) {
		const struct lnetk_tbf_qinfo *qi = &t->queues[q];

		rules[q] = calloc(qi->nrules ? qi->nrules : 1, sizeof(*rules[q]));
		if (!rules[q]) {
			rc = -ENOMEM;
			break;
		}
		for (i = 0; i < qi->nrules; i++) {
			const struct lnetk_tbf_rule *k = &qi->rules[i];

			rules[q][i] = (struct bk_tbf_rule){.name = k->name,
							   .text = k->text,
							   .rate = k->rate,
							   .nclasses = k->nclasses,
							   .realtime = k->realtime,
							   .st = stats_of(k->queued, k->enqueued,
									  k->dispatched, k->wait_ns,
									  k->throttled)};
		}
		p.queues[q] = (struct bk_tbf_queue){.queue = queue_of(qi->queue),
						    .type = qi->type,
						    .depth = qi->depth,
						    .nclasses = qi->nclasses,
						    .nrules = qi->nrules,
						    .rules = rules[q]};
		p.nqueues++;
	}
	for (i = 0; !rc && i < ncls; i++)
		cs[i] = (struct bk_tbf_class){.key = cls[i].key ?: "",
					      .rule = cls[i].rule ?: "",
					      .queue = queue_of(cls[i].queue),
					      .st = stats_of(cls[i].queued, cls[i].enqueued,
							     cls[i].dispatched, cls[i].wait_ns,
							     cls[i].throttled)};
	p.cls = cs;
	if (!rc)
		rc = v->fn(v->arg, &p);
	for (q = 0; q < LNE_TBF_NQUEUES; q++)
		free(rules[q]);
	free(cs);
	return rc;
}

int kb_tbf_read(struct backend *b, bk_tbf_fn fn, void *arg, struct lne_err *err)
{
	struct viewing v = {fn, arg};
	struct lnetk_err lerr = {.msg = ""};
	struct lnetk *lk = kb_lnetk(b);
	int rc;

	if (!lk)
		return lne_err_set(err, -ENODEV, NULL, -1, "the lnetk module is not loaded");
	rc = ktbf_read(lk, view_policy, &v, &lerr);
	if (rc < 0 && lerr.msg[0])
		lne_err_set(err, rc, NULL, -1, "cannot read the lnetk module's TBF policies: %s",
			    lerr.msg);
	return rc;
}
