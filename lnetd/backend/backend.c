// SPDX-License-Identifier: GPL-2.0
/*
 * backend.c - the engines lnetd knows (engines.h), the hooks each caller
 * calls whatever runs, and what engines share: calls on a thread of their
 * own, the health table, and explain on an engine instance.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "backend.h"
#include "lnetd/lnetd.h"

#define BACKEND_ENGINE(ops) extern const struct backend_ops ops;
#include "engines.h"
#undef BACKEND_ENGINE

static const struct backend_ops *const engines[] = {
#define BACKEND_ENGINE(ops) &ops,
#include "engines.h"
#undef BACKEND_ENGINE
};

/* Without an engine (a test harness): nothing runs, every data path op is missing. */
static const struct backend_ops none = {.name = "none"};

const struct backend_ops *backend_engine(size_t i)
{
	return i < sizeof(engines) / sizeof(engines[0]) ? engines[i] : NULL;
}

const struct backend_ops *backend_find(const char *name)
{
	const struct backend_ops *ops;
	size_t i;

	for (i = 0; (ops = backend_engine(i)); i++)
		if (!strcmp(ops->name, name))
			return ops;
	return NULL;
}

int backend_start(struct lnetd *d, const struct backend_ops *ops)
{
	struct backend *b = NULL;
	int rc = ops->start(d, &b);

	if (rc)
		return rc;
	b->ops = ops;
	b->d = d;
	d->backend = b;
	return 0;
}

void backend_stop(struct lnetd *d)
{
	struct backend *b = d->backend;

	if (!b)
		return;
	d->backend = NULL;
	b->ops->stop(b);
}

const struct backend_ops *backend_ops_of(const struct lnetd *d)
{
	return d->backend ? d->backend->ops : &none;
}

void backend_sync(struct lnetd *d)
{
	if (d->backend && d->backend->ops->sync)
		d->backend->ops->sync(d->backend);
}

bool backend_applied(const struct lnetd *d, const struct lnetd_ni *n, char *why, size_t len)
{
	if (!d->backend || !d->backend->ops->applied)
		return true;
	return d->backend->ops->applied(d->backend, n, why, len);
}

int backend_judge(struct lnetd *d, const struct lnetd_op *ops, size_t n, size_t *index, char *msg,
		  size_t len)
{
	if (!d->backend || !d->backend->ops->judge)
		return 0;
	return d->backend->ops->judge(d->backend, ops, n, index, msg, len);
}

void backend_mirror_replaced(struct lnetd *d)
{
	if (d->backend && d->backend->ops->mirror_replaced)
		d->backend->ops->mirror_replaced(d->backend);
}

void backend_tbf_changed(struct lnetd *d, bool detach)
{
	if (d->backend && d->backend->ops->tbf_changed)
		d->backend->ops->tbf_changed(d->backend, detach);
}

bool backend_ni_link(struct lnetd *d, const struct lne_nid *nid, bool up)
{
	return d->backend && d->backend->ops->ni_link &&
	       d->backend->ops->ni_link(d->backend, nid, up);
}

/* --- calls on a thread of their own ---------------------------------------------------- */

struct bk_thread {
	struct backend *b;
	struct bk_call *c;
	void (*run)(struct bk_call *c);
	int efd;
	sd_event_source *ev;
	pthread_t th;
};

struct bk_call *bk_call_new(void)
{
	struct bk_call *c = calloc(1, sizeof(*c));

	if (c)
		c->err.pos = -1;
	return c;
}

void bk_call_free(struct bk_call *c)
{
	if (!c)
		return;
	free(c->test.trace);
	free(c);
}

static void *thread_main(void *arg)
{
	struct bk_thread *t = arg;
	uint64_t one = 1;

	t->run(t->c);
	/* The loop finishes the call; if it cannot hear of it, the call fails there. */
	if (write(t->efd, &one, sizeof(one)) < 0 && !t->c->rc)
		t->c->rc = -errno;
	return NULL;
}

static int on_thread_done(sd_event_source *s, int fd, uint32_t events, void *userdata)
{
	struct bk_thread *t = userdata;
	struct bk_call *c = t->c;

	(void)s;
	(void)fd;
	(void)events;
	pthread_join(t->th, NULL);
	t->b->calls--;
	sd_event_source_disable_unref(t->ev);
	close(t->efd);
	free(t);
	c->done(c);
	return 0;
}

int bk_call_on_thread(struct backend *b, struct bk_call *c, void (*run)(struct bk_call *c))
{
	struct bk_thread *t;
	int rc;

	if (b->calls >= LNETD_PINGS_MAX)
		return lne_err_set(&c->err, -E2BIG, NULL, -1,
				   "%u calls wait for the module already: try again later",
				   LNETD_PINGS_MAX);
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	*t = (struct bk_thread){.b = b, .c = c, .run = run};
	t->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	rc = t->efd < 0 ? -errno : 0;
	if (!rc)
		rc = sd_event_add_io(b->d->event, &t->ev, t->efd, EPOLLIN, on_thread_done, t);
	if (!rc)
		rc = -pthread_create(&t->th, NULL, thread_main, t);
	if (rc) {
		sd_event_source_disable_unref(t->ev);
		if (t->efd >= 0)
			close(t->efd);
		free(t);
		return rc;
	}
	b->calls++;
	return 0;
}

/* --- the health table ------------------------------------------------------------------ */

struct bk_health *bk_health_new(void)
{
	return calloc(1, sizeof(struct bk_health));
}

int bk_health_add(struct bk_health *h, const struct bk_health_one *one)
{
	if (h->n == h->cap) {
		size_t cap = h->cap ? 2 * h->cap : 64;
		struct bk_health_one *v = realloc(h->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		h->v = v;
		h->cap = cap;
	}
	h->v[h->n++] = *one;
	return 0;
}

static int by_nid(const void *a, const void *b, void *arg)
{
	const struct bk_health *h = arg;

	return lne_nid_cmp(&h->v[*(const size_t *)a].nid, &h->v[*(const size_t *)b].nid);
}

int bk_health_sort(struct bk_health *h)
{
	size_t i;

	free(h->sorted);
	h->sorted = malloc((h->n ? h->n : 1) * sizeof(*h->sorted));
	if (!h->sorted)
		return -ENOMEM;
	for (i = 0; i < h->n; i++)
		h->sorted[i] = i;
	qsort_r(h->sorted, h->n, sizeof(*h->sorted), by_nid, h);
	return 0;
}

const struct bk_health_one *bk_health_find(const struct bk_health *h, const struct lne_nid *nid)
{
	size_t lo = 0, hi, mid;
	int c;

	if (!h || !h->sorted)
		return NULL;
	hi = h->n;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		c = lne_nid_cmp(nid, &h->v[h->sorted[mid]].nid);
		if (!c)
			return &h->v[h->sorted[mid]];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

uint32_t bk_health_get(const struct bk_health *h, const struct lne_nid *nid, uint32_t fallback)
{
	const struct bk_health_one *one = bk_health_find(h, nid);

	return one ? one->health : fallback;
}

const char *bk_health_state(const struct bk_health *h, const struct lne_nid *nid)
{
	const struct bk_health_one *one = bk_health_find(h, nid);

	return one ? lne_pni_state_name((enum lne_pni_state)one->state) : NULL;
}

void bk_health_free(struct bk_health *h)
{
	if (!h)
		return;
	free(h->v);
	free(h->sorted);
	free(h);
}

/* --- explain on an instance ------------------------------------------------------------ */

int bk_explain_inst(struct lne_inst *ln, struct bk_explain *x, struct lne_err *err)
{
	/* A read: decide as the next message would, moving no round robin. */
	struct lne_sel_req req = {.dst = *x->dst,
				  .src = x->src,
				  .md_cpt = LNE_CPT_ANY,
				  .kind = LNE_MSG_PUT,
				  .peek = true};
	struct lne_sel sel;
	int rc = lne_select(ln, &req, &sel, x->ex, err);

	if (rc)
		return rc;
	lne_nid_format(&sel.ni->nid, x->ni, sizeof(x->ni));
	lne_nid_format(&sel.pni->nid, x->pni, sizeof(x->pni));
	x->gw[0] = '\0';
	if (sel.route)
		lne_nid_format(&sel.route->gw->nid, x->gw, sizeof(x->gw));
	return 0;
}
