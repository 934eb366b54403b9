// SPDX-License-Identifier: GPL-2.0
/*
 * lu-tbf-plan.c - what lnetd wants of a Lustre service against what the
 * service shows: the differences in words (drift), and the writes that
 * remove them.
 *
 * Conditions are compared as text: the listing shows a rule's conditions
 * exactly as they were written (before 2.17 the inner "{...}" only), and
 * lutbf_convert() predicts that text.  A rule written by hand with the
 * same meaning but other spelling is therefore drift, and is put back by
 * a stop and a start: what lnetd wrote is what it can check.
 *
 * The writes per queue, as ktbf.c does with lnetk: the policy and its type
 * first if they differ (Lustre then frees every rule of the queue and
 * starts a default rule at tbf_rate); the rules that go, or whose
 * conditions differ, stopped (also those the CPTs disagree on: every write
 * reaches every CPT, and a start where a CPT has the name fails); from the
 * last rule to the first, each started with rank= its successor, or its
 * rate and rank changed as needed; the default rule's rate.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lu-tbf.h"

#define RATE_UNKNOWN UINT32_MAX

static const char *const qnames[LUTBF_NQUEUES] = {"reg", "hp"};

/* --- drift ------------------------------------------------------------------------------- */

struct talk {
	lutbf_say_fn say;
	void *arg;
	int n;
	char where[96];
};

static void tell(struct talk *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void tell(struct talk *t, const char *fmt, ...)
{
	char text[1400];
	va_list ap;
	int n;

	t->n++;
	if (!t->say)
		return;
	n = snprintf(text, sizeof(text), "%s: ", t->where);
	va_start(ap, fmt);
	vsnprintf(text + n, sizeof(text) - (size_t)n, fmt, ap);
	va_end(ap);
	t->say(t->arg, text);
}

static ssize_t find(const struct lutbf_rules *rs, const char *name)
{
	size_t i;

	for (i = 0; i < rs->n; i++)
		if (!strcmp(rs->r[i].name, name))
			return (ssize_t)i;
	return -1;
}

static bool rules_same(const struct lutbf_rules *a, const struct lutbf_rules *b)
{
	size_t i;

	if (a->n != b->n)
		return false;
	for (i = 0; i < a->n; i++)
		if (strcmp(a->r[i].name, b->r[i].name) || strcmp(a->r[i].conds, b->r[i].conds) ||
		    a->r[i].rate != b->r[i].rate)
			return false;
	return true;
}

/* The names of @rs that @other has too, in @rs's order, into @buf. */
static void order_text(const struct lutbf_rules *rs, const struct lutbf_rules *other, char *buf,
		       size_t size)
{
	size_t i, n = 0;
	int k;

	buf[0] = '\0';
	for (i = 0; i < rs->n && n + 1 < size; i++) {
		if (find(other, rs->r[i].name) < 0)
			continue;
		k = snprintf(buf + n, size - n, "%s%s", n ? " " : "", rs->r[i].name);
		if (k < 0 || (size_t)k >= size - n)
			break;
		n += (size_t)k;
	}
}

static void compare_cpt(struct talk *t, unsigned div, const struct lutbf_rules *want,
			const struct lutbf_rules *have)
{
	char a[512], b[512];
	ssize_t at;
	size_t i;

	for (i = 0; i < want->n; i++) {
		const struct lutbf_rule *wr = &want->r[i];

		at = find(have, wr->name);
		if (at < 0) {
			tell(t, "rule %s is missing", wr->name);
			continue;
		}
		if (strcmp(have->r[at].conds, wr->shown))
			tell(t, "rule %s tests '%.400s', lnetd wants '%.400s'", wr->name,
			     have->r[at].conds, wr->shown);
		if (have->r[at].rate != wr->rate)
			tell(t, "rule %s rate is %u, lnetd wants %u (%u RPC/s divided by %u)",
			     wr->name, have->r[at].rate, wr->rate, wr->asked, div);
	}
	for (i = 0; i < have->n; i++)
		if (find(want, have->r[i].name) < 0)
			tell(t, "rule %s (%.400s, rate %u) is not lnetd's", have->r[i].name,
			     have->r[i].conds, have->r[i].rate);
	order_text(have, want, a, sizeof(a));
	order_text(want, have, b, sizeof(b));
	if (strcmp(a, b))
		tell(t, "the rules match in the order %s, lnetd wants %s", a, b);
}

int lutbf_compare(const struct lutbf_want *w, const struct lutbf_shown *s, lutbf_say_fn say,
		  void *arg)
{
	struct talk t = {.say = say, .arg = arg};
	size_t k;
	int q;

	for (q = 0; q < LUTBF_NQUEUES; q++) {
		if (q == LUTBF_HP && !w->has_hp)
			continue;
		snprintf(t.where, sizeof(t.where), "%s %s", w->service, qnames[q]);
		if (q == LUTBF_HP && s->policies && !s->has_hp) {
			tell(&t, "the service lists no high-priority queue");
			continue;
		}
		if (s->policies && strcmp(s->q[q].policy, w->q[q].policy)) {
			tell(&t, "the policy is '%s', lnetd wants '%s'", s->q[q].policy,
			     w->q[q].policy);
			continue;
		}
		if (!s->q[q].ncpt) {
			tell(&t, "nrs_tbf_rule lists no CPT");
			continue;
		}
		if (s->q[q].ncpt != w->ncpt && !w->q[q].by_nid)
			tell(&t, "%zu CPU partitions are listed, lnetd's rates were divided by %u",
			     s->q[q].ncpt, w->q[q].div);
		for (k = 0; k < s->q[q].ncpt; k++) {
			if (k && rules_same(&s->q[q].rules[k], &s->q[q].rules[0]))
				continue;
			snprintf(t.where, sizeof(t.where), "%s %s CPT %d", w->service, qnames[q],
				 s->q[q].cpt[k]);
			compare_cpt(&t, w->q[q].div, &w->q[q].rules, &s->q[q].rules[k]);
		}
	}
	return t.n;
}

/* --- writes ------------------------------------------------------------------------------ */

struct m {
	char name[LUTBF_NAME_MAX + 1];
	const char *shown;
	uint32_t rate;
};

struct model {
	size_t n;
	struct m *r; /* room for as many as have and want together */
};

static ssize_t mfind(const struct model *m, const char *name)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		if (!strcmp(m->r[i].name, name))
			return (ssize_t)i;
	return -1;
}

static void mdel(struct model *m, size_t i)
{
	memmove(&m->r[i], &m->r[i + 1], (m->n - i - 1) * sizeof(*m->r));
	m->n--;
}

/* Move entry @from to just before index @to, as Lustre's rank= does. */
static void mmove(struct model *m, size_t from, size_t to)
{
	struct m r = m->r[from];

	if (from < to) {
		memmove(&m->r[from], &m->r[from + 1], (to - 1 - from) * sizeof(r));
		m->r[to - 1] = r;
	} else if (from > to) {
		memmove(&m->r[to + 1], &m->r[to], (from - to) * sizeof(r));
		m->r[to] = r;
	}
}

static int emit(struct lutbf_plan *p, enum lutbf_file file, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int emit(struct lutbf_plan *p, enum lutbf_file file, const char *fmt, ...)
{
	struct lutbf_write *grown;
	va_list ap;
	char *text;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&text, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	grown = realloc(p->w, (p->n + 1) * sizeof(*p->w));
	if (!grown) {
		free(text);
		return -ENOMEM;
	}
	p->w = grown;
	p->w[p->n].file = file;
	p->w[p->n].text = text;
	p->n++;
	return 0;
}

/* What the queue holds, as one list: CPT 0's, with the names CPTs disagree on stopped. */
static int have_of(const struct lutbf_shown *s, int q, bool fresh, struct model *m,
		   struct lutbf_plan *p)
{
	const struct lutbf_rules *r0;
	size_t k, i;
	ssize_t at;
	int rc;

	if (fresh || !s->q[q].ncpt) {
		snprintf(m->r[0].name, sizeof(m->r[0].name), "default");
		m->r[0].shown = "";
		m->r[0].rate = RATE_UNKNOWN;
		m->n = 1;
		return 0;
	}
	r0 = &s->q[q].rules[0];
	for (i = 0; i < r0->n; i++) {
		snprintf(m->r[i].name, sizeof(m->r[i].name), "%s", r0->r[i].name);
		m->r[i].shown = r0->r[i].conds;
		m->r[i].rate = r0->r[i].rate;
	}
	m->n = r0->n;
	for (k = 1; k < s->q[q].ncpt; k++) {
		const struct lutbf_rules *rk = &s->q[q].rules[k];

		for (i = 0; i < rk->n; i++) {
			at = mfind(m, rk->r[i].name);
			if (at >= 0 && !strcmp(m->r[at].shown, rk->r[i].conds)) {
				if (m->r[at].rate != rk->r[i].rate)
					m->r[at].rate = RATE_UNKNOWN;
				continue;
			}
			if (!strcmp(rk->r[i].name, "default"))
				continue;
			rc = emit(p, LUTBF_RULE, "%s stop %s", qnames[q], rk->r[i].name);
			if (rc)
				return rc;
			if (at >= 0)
				mdel(m, (size_t)at);
		}
		for (i = 0; i < m->n; i++) {
			if (!strcmp(m->r[i].name, "default") || find(rk, m->r[i].name) >= 0)
				continue;
			rc = emit(p, LUTBF_RULE, "%s stop %s", qnames[q], m->r[i].name);
			if (rc)
				return rc;
			mdel(m, i--);
		}
	}
	return 0;
}

static int plan_queue(const struct lutbf_want *w, const struct lutbf_shown *s, int q,
		      struct lutbf_plan *p)
{
	const struct lutbf_rules *want = &w->q[q].rules;
	const char *qn = qnames[q];
	struct model m = {0};
	bool fresh = !s->policies || strcmp(s->q[q].policy, w->q[q].policy);
	size_t i, k, cap = want->n + 1;
	ssize_t at, nx;
	int rc = 0;

	if (!want->n)
		return -EPROTO; /* every wanted queue has its default rule */
	if (!fresh && s->q[q].ncpt)
		cap += s->q[q].rules[0].n;
	m.r = calloc(cap, sizeof(*m.r));
	if (!m.r)
		return -ENOMEM;
	if (fresh)
		rc = emit(p, LUTBF_POLICIES, "%s %s %s", "tbf", qn, w->q[q].policy + 4);
	if (!rc)
		rc = have_of(s, q, fresh, &m, p);
	/* the rules that go, or cannot become lnetd's in place */
	for (i = 0; !rc && i < m.n;) {
		at = find(want, m.r[i].name);
		if (!strcmp(m.r[i].name, "default") ||
		    (at >= 0 && !strcmp(m.r[i].shown, want->r[at].shown))) {
			i++;
			continue;
		}
		rc = emit(p, LUTBF_RULE, "%s stop %s", qn, m.r[i].name);
		mdel(&m, i);
	}
	if (!rc && mfind(&m, "default") < 0)
		rc = -EPROTO; /* a listing without its default rule */
	/* each rule just before its successor, the last first */
	for (k = want->n - 1; !rc && k-- > 0;) {
		const struct lutbf_rule *r = &want->r[k];
		const char *next = want->r[k + 1].name;

		nx = mfind(&m, next);
		at = mfind(&m, r->name);
		if (at < 0) {
			rc = emit(p, LUTBF_RULE, "%s start %s %s rate=%u rank=%s%s", qn, r->name,
				  r->conds, r->rate, next, r->realtime ? " realtime=1" : "");
			snprintf(m.r[m.n].name, sizeof(m.r[m.n].name), "%s", r->name);
			m.r[m.n].shown = r->shown;
			m.r[m.n].rate = r->rate;
			m.n++;
			mmove(&m, m.n - 1, (size_t)nx);
			continue;
		}
		if (m.r[at].rate == r->rate && at + 1 == nx)
			continue;
		if (m.r[at].rate != r->rate && at + 1 != nx)
			rc = emit(p, LUTBF_RULE, "%s change %s rate=%u rank=%s", qn, r->name,
				  r->rate, next);
		else if (m.r[at].rate != r->rate)
			rc = emit(p, LUTBF_RULE, "%s change %s rate=%u", qn, r->name, r->rate);
		else
			rc = emit(p, LUTBF_RULE, "%s change %s rank=%s", qn, r->name, next);
		m.r[at].rate = r->rate;
		mmove(&m, (size_t)at, (size_t)nx);
	}
	at = mfind(&m, "default");
	if (!rc && at >= 0 && m.r[at].rate != want->r[want->n - 1].rate)
		rc = emit(p, LUTBF_RULE, "%s change default rate=%u", qn,
			  want->r[want->n - 1].rate);
	free(m.r);
	return rc;
}

void lutbf_plan_free(struct lutbf_plan *p)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		free(p->w[i].text);
	free(p->w);
	p->w = NULL;
	p->n = 0;
}

int lutbf_plan(const struct lutbf_want *w, const struct lutbf_shown *s, struct lutbf_plan *out)
{
	int q, rc = 0;

	memset(out, 0, sizeof(*out));
	for (q = 0; !rc && q < LUTBF_NQUEUES; q++) {
		if (q == LUTBF_HP && !w->has_hp)
			continue;
		rc = plan_queue(w, s, q, out);
	}
	if (rc)
		lutbf_plan_free(out);
	return rc;
}
