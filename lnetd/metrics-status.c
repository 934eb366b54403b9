// SPDX-License-Identifier: GPL-2.0
/*
 * metrics-status.c - what Status and the metrics say of the configuration's
 * objects (metrics.h): their counts by kind, and the pending ones.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "events.h"
#include "lnetd.h"
#include "lnetd/backend/backend.h"
#include "lnetd/store/store.h"
#include "metrics.h"
/*
 * The configured objects by kind, as of generation ->gen: counted once
 * from the whole store, then kept current from the history's summaries of
 * each later change ("+peer NID", "-ni ...", "~global ..."), so a change
 * costs what it changed.  A generation the history no longer holds (or a
 * summary it cannot read) means counting the whole store again.
 */
static struct {
	bool valid;
	uint64_t gen;
	int64_t n[LNETD_KINDS];
} counted;

/* The store's kind names (a summary line's word after its + - ~), in LNETD_KINDS' order. */
static const char *const store_kinds[LNETD_KINDS] = {"ni",   "peer",   "route",
						     "rule", "global", "tbf"};

struct delta {
	uint64_t after, seen; /* the generations after ->after, newest first: how many seen */
	uint64_t next;	      /* the generation the next entry must have */
	int64_t n[LNETD_KINDS];
	bool bad;
};

static int count_delta(const struct st_hist *h, void *arg)
{
	struct delta *dl = arg;
	const char *line = h->summary ? h->summary : "";
	int k;

	if (h->gen != dl->next || h->gen <= dl->after) {
		dl->bad = true;
		return 1;
	}
	dl->next--;
	dl->seen++;
	while (*line) {
		size_t len = strcspn(line + 1, " \n");

		for (k = 0; k < LNETD_KINDS; k++)
			if (strlen(store_kinds[k]) == len &&
			    !strncmp(line + 1, store_kinds[k], len))
				break;
		if (k == LNETD_KINDS || !strchr("+-~", *line)) {
			dl->bad = true;
			return 1;
		}
		dl->n[k] += *line == '+' ? 1 : *line == '-' ? -1 : 0;
		line += strcspn(line, "\n");
		line += *line == '\n';
	}
	return 0;
}

static int count_all(struct lnetd *d)
{
	struct st_state st = {0};

	if (store_state_get(d->store, &st))
		return -EIO;
	counted.n[0] = (int64_t)st.n_ni;
	counted.n[1] = (int64_t)st.n_peer;
	counted.n[2] = (int64_t)st.n_route;
	counted.n[3] = (int64_t)st.n_rule;
	counted.n[4] = (int64_t)st.n_global;
	counted.n[5] = (int64_t)st.n_tbf;
	st_state_clear(&st);
	counted.valid = true;
	counted.gen = d->generation;
	return 0;
}

static int count_objects(struct lnetd *d)
{
	struct delta dl = {.after = counted.gen, .next = d->generation};
	uint64_t want = d->generation - counted.gen;
	int k;

	if (!counted.valid || d->generation < counted.gen)
		return count_all(d);
	if (!want)
		return 0;
	if (store_history_list(d->store, (int64_t)want, count_delta, &dl) || dl.bad ||
	    dl.seen != want)
		return count_all(d);
	for (k = 0; k < LNETD_KINDS; k++)
		if ((counted.n[k] += dl.n[k]) < 0)
			return count_all(d);
	counted.gen = d->generation;
	return 0;
}

int lnetd_status_read(struct lnetd *d, struct lnetd_status *s)
{
	static const char *const kinds[LNETD_KINDS] = {"net",  "peer",	 "route",
						       "udsp", "global", "tbf"};
	size_t i;
	int k;

	if (count_objects(d))
		return -EIO;
	memset(s, 0, sizeof(*s));
	for (i = 0; i < d->nnis; i++)
		s->applied[0] += lnetd_ni_applied(d, &d->nis[i], s->why, sizeof(s->why));
	/* Applied: in the engine that runs LNet.  The userspace engine is the mirror; the
	 * engine (backend.h: applied) says whether it holds what the mirror does. */
	s->in_module = backend_applied(d, NULL, s->why, sizeof(s->why));
	for (k = 0; k < LNETD_KINDS; k++) {
		s->kind[k] = kinds[k];
		s->configured[k] = (uint32_t)counted.n[k];
		if (k)
			s->applied[k] = s->in_module ? (uint32_t)counted.n[k] : 0;
	}
	return 0;
}

/* The routes through a gateway on a net no NI is configured on (kept: lnetd(8)). */
static int routes_pending(struct lnetd *d, lnetd_pending_fn fn, void *arg)
{
	char net[LNE_NET_STR_MAX], rnet[LNE_NET_STR_MAX], gw[LNE_NID_STR_MAX];
	char key[LNE_NET_STR_MAX + LNE_NID_STR_MAX + 2], why[LNE_NET_STR_MAX + 32];
	const struct lne_route *r;
	int rc = 0;

	lne_list_for_each_entry(r, &d->mirror->routes, link) {
		lne_net_format(lne_nid_net(&r->gw->nid), net, sizeof(net));
		if (rc < 0 || lnetd_net_configured(d, net))
			continue;
		lne_net_format(r->rnet->id, rnet, sizeof(rnet));
		lne_nid_format(&r->gw->nid, gw, sizeof(gw));
		snprintf(key, sizeof(key), "%s %s", rnet, gw);
		snprintf(why, sizeof(why), "no NI is configured on %s", net);
		rc = fn(arg, "route", key, why);
	}
	return rc;
}

int lnetd_pending_each(struct lnetd *d, const struct lnetd_status *s, lnetd_pending_fn fn,
		       void *arg)
{
	size_t i;
	const char *module = backend_ops_of(d)->module ?: d->engine;
	int rc = s->in_module ? 0 : fn(arg, "module", module, s->why);

	for (i = 0; rc >= 0 && i < d->nnis; i++) {
		const struct lnetd_ni *n = &d->nis[i];
		char key[LNETD_NI_NAME_MAX];

		if (n->nreal)
			continue;
		lnetd_ni_name(n, key, sizeof(key));
		rc = fn(arg, "net", key, n->reason);
	}
	return rc < 0 ? rc : routes_pending(d, fn, arg);
}
