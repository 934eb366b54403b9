/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kernel-int.h - what the files of the kernel backend share: its state
 * (kernel.c), reading the module (kernel-load.c), a sync
 * (kernel-sync.c), and the small helpers all of them use.
 */
#ifndef LNETD_KERNEL_INT_H
#define LNETD_KERNEL_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "kernel.h"
#include "liblnetk/lnetk-client.h"
#include "lnetd/backend/backend.h"
#include "lnetd/lnetd.h"

#define WHY_MAX 512

struct kbackend {
	struct backend b; /* first */
	struct lnetd *d;
	struct lnetk_watch *watch; /* the genl controller: the family comes and goes */
	sd_event_source *watch_io;
	struct lnetk *lk; /* NULL while the module is not loaded */
	struct lnetk_events *ev;
	sd_event_source *ev_io;
	struct lnetk_events *dpev; /* the module's data path: state changes, discoveries */
	sd_event_source *dpev_io;
	sd_event_source *repair; /* deferred: read the module back and repair it */
	sd_event_source *retry;	 /* timer: after losing contact */
	sd_event_source *busy;	 /* timer: sync again after a refusal that passes (EBUSY) */
	struct lne_inst *pushed; /* what the module holds; NULL: read it first */
	bool replace;		 /* what the module holds is unknown: replace it whole */
	struct {
		uint64_t *gen; /* our own changes' generations, oldest first */
		size_t head, n, cap;
	} mine;
	uint64_t horizon; /* announcements up to this are in @pushed already */
	bool applied;
	char why[WHY_MAX];
};

static inline double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline size_t objects(const struct lne_inst *ln)
{
	return ln ? ln->nni + ln->npni + ln->nroute + ln->udsp.nrules : 0;
}

static inline const char *nid_text(const struct lne_nid *nid, char buf[LNE_NID_STR_MAX])
{
	lne_nid_format(nid, buf, LNE_NID_STR_MAX);
	return buf;
}

/* --- kernel.c: whose generation, ours or someone else's ---------------------------------- */

/* A generation one of our requests made: its announcement is not a change behind our back. */
void kb_mine_push(struct kbackend *kb, uint64_t gen);
/* Forget our generations up to @gen: they are behind us. */
void kb_mine_drop(struct kbackend *kb, uint64_t gen);
/* Read what the events socket holds; lost announcements mean: read the module again. */
void kb_drain(struct kbackend *kb);

/* --- kernel-load.c -------------------------------------------------------------------------- */

/* @kb->pushed from the module's dumps, all taken at one generation. */
int kb_read_module(struct kbackend *kb);

/* --- kernel-sync.c -------------------------------------------------------------------------- */

/* What a sync did: the backend's state and its log say it. */
struct kb_result {
	size_t changes;	     /* requests and batch items the module accepted */
	size_t refused;	     /* refusals */
	int stop;	     /* < 0: the module cannot be reached, or no memory */
	bool local_bad;	     /* @pushed refused what the module accepted */
	bool busy;	     /* a refusal was EBUSY: it may pass, so try again later */
	char first[WHY_MAX]; /* the first refusal */
};

/* Send the module the differences between the mirror and @kb->pushed (read already). */
void kb_push(struct kbackend *kb, struct kb_result *r);

/* --- the engine's ops (backend.h), listed in lnetk.c ------------------------------------ */

/* kernel.c */
int kb_start(struct lnetd *d, struct backend **out);
void kb_stop(struct backend *b);
void kb_sync(struct backend *b);
bool kb_applied(const struct backend *b, const struct lnetd_ni *n, char *why, size_t len);

/* kernel-dp.c: the module's data path */
struct lnetk *kb_lnetk(struct backend *b); /* NULL while the module is not loaded */
/* The module's sentence (or @what and the errno's words) into @err; returns @rc. */
int kb_fail(struct lne_err *err, int rc, const struct lnetk_err *lerr, const char *what);
/* 0 while the module is loaded; else -ENODEV, @err saying it has no @has_no. */
int kb_absent(struct backend *b, struct lne_err *err, const char *has_no);
int kb_ping(struct backend *b, struct bk_call *c);
int kb_discover(struct backend *b, struct bk_call *c);
int kb_selftest(struct backend *b, struct bk_call *c);
int kb_counters(struct backend *b, bk_count_fn fn, void *arg, struct lne_err *err);
int kb_counters_reset(struct backend *b, struct lne_err *err);
int kb_test_service(struct backend *b, bool on, struct lne_err *err);
int kb_set_health(struct backend *b, bool peer, const struct lne_nid *nid, uint32_t value,
		  struct lne_err *err);
int kb_health_stats(struct backend *b, const struct lne_nid *nid, bool *local, uint32_t *health,
		    bk_kv_fn fn, void *arg, struct lne_err *err);
int kb_rtr_credits(struct backend *b, const struct lne_nid *nid, int32_t *avail, int32_t *min,
		   struct lne_err *err);
int kb_recovery(struct backend *b, bool peer, bk_queued_fn fn, void *arg, struct lne_err *err);
int kb_fault_add(struct backend *b, const struct bk_fault *f, uint32_t *id, struct lne_err *err);
int kb_fault_del(struct backend *b, bool delay, const struct lne_nid *src,
		 const struct lne_nid *dst, bool all, uint32_t *gone, struct lne_err *err);
int kb_fault_reset(struct backend *b, bool delay, struct lne_err *err);
int kb_fault_list(struct backend *b, bool delay, bk_fault_fn fn, void *arg, struct lne_err *err);
int kb_explain(struct backend *b, struct bk_explain *x, struct lne_err *err);

/* kernel-load.c: the views, from the module's dumps */
int kb_health(struct backend *b, bool peers, struct bk_health **out);
int kb_route_states(struct backend *b, bk_route_fn fn, void *arg);
int kb_discovered(struct backend *b, struct lne_inst **out);
/* ktbf.c */
int kb_tbf_read(struct backend *b, bk_tbf_fn fn, void *arg, struct lne_err *err);

#endif /* LNETD_KERNEL_INT_H */
