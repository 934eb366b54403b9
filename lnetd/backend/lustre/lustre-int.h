/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lustre-int.h - what the files of the lustre engine (--engine=lustre:
 * Lustre's own lnet.ko holds what lnetd's mirror holds) share.
 *
 * Files: lustre.c (the engine's life: lnet.ko coming and going, when to
 * sync, drift, what is applied), lustre-sync.c (a sync: the generic walk
 * of sync.h over the library's requests, and judging what the running
 * version cannot hold), lustre-view.c (running state and the data path:
 * route states, counters, health, ping, discover), lustre-state.c (each
 * NI's and peer NI's status, health and counters as lnet.ko keeps them).  The library underneath
 * is lu.h; lustre-tbf.c (NRS TBF) is added beside these.
 *
 * lnet.ko is never held open between two operations: a descriptor of
 * /dev/lnet holds a reference on the module, and `lustre_rmmod` (lnetctl
 * lnet unconfigure, then rmmod) must not fail because lnetd is running.
 * Each sync, poll or view opens the library (lu_open(): a few sysfs reads,
 * the device, the genl family) and closes it when done.
 */
#ifndef LNETD_LUSTRE_INT_H
#define LNETD_LUSTRE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "lnetd/backend/backend.h"
#include "lnetd/backend/sync.h"
#include "lnetd/lnetd.h"
#include "lu.h"

#define LB_WHY_MAX    512
#define LB_NOT_LOADED "lnet.ko not loaded"

/* An NI lnet.ko refused at the last sync, and its sentence (per-NI applied). */
struct lb_refusal {
	struct lne_nid nid;
	char why[LNE_ERR_MSG_MAX];
};

/*
 * What lnet.ko showed of an NI right after lnetd added it (@got), for what
 * lnetd asked (@want): lnet.ko normalises some of it (LND tunables it does
 * not keep, CPTs), so a later read that shows @got again while the mirror
 * still asks @want is no drift.
 */
struct lb_ni_fields {
	char ifname[LNE_IFNAME_MAX];
	u64 cpts;
	struct lne_tunables tun;
};
struct lb_ni_print {
	struct lne_nid nid;
	struct lb_ni_fields want, got;
};

struct lbackend {
	struct backend b; /* first */
	struct lnetd *d;
	int uev; /* kernel uevents: /module/lnet added, removed */
	sd_event_source *uev_io;
	sd_event_source *poll;	 /* timer: presence, then drift */
	sd_event_source *appear; /* deferred: lnet.ko (re)appeared */
	struct lne_inst *have;	 /* what lnet.ko holds as lnetd knows it; NULL: read it */
	bool loaded;		 /* lnet.ko was there at the last look */
	bool let_go;		 /* LNet was unconfigured behind lnetd's back: leave it down */
	bool applied;
	char why[LB_WHY_MAX];	    /* why not applied */
	char version[32];	    /* the release lnet.ko said at the last open */
	uint64_t poll_usec;	    /* the drift period in use (lustre.c says how it is chosen) */
	double last_read_s;	    /* what the last read of lnet.ko took */
	double full_read_s;	    /* ... the last full one (no copy to compare with) */
	bool told_read;		    /* the poll's read time was logged since that */
	struct lu_memo memo;	    /* lnet.ko's peer list at the last read (lu.h) */
	struct lb_refusal *refused; /* NIs lnet.ko refused at the last sync */
	size_t nrefused, caprefused;
	struct lb_ni_print *prints; /* one per NI lnetd added */
	size_t nprints, capprints;
	bool reread;   /* a sync deleted an NI: lnet.ko's side effects, read soon */
	size_t drifts; /* changes behind lnetd's back put back (the log says each) */
};

/* lustre.c */
double lb_now(void);
/* Open the library: 0, or -ENODEV (lnet.ko not there, @err says) or another errno. */
int lb_open(struct lbackend *lb, struct lu **lu, struct lne_err *err);

/* lustre-sync.c: what lnet.ko shows of an NI, as lu_read() reads it */
void lb_ni_fields_of(const struct lne_ni *ni, struct lb_ni_fields *f);
/* @have as read, made comparable with the mirror (NI places, normalised fields) */
void lb_have_normalise(struct lbackend *lb);
/* lustre-sync.c: one sync through @lu, @lb->have read already; fills @r.  @drift: a
 * repair after the poll, whose first requests the log names. */
void lb_push(struct lbackend *lb, struct lu *lu, bool drift, struct bk_sync_result *r);
int lb_judge(struct backend *b, const struct lnetd_op *ops, size_t n, size_t *index, char *msg,
	     size_t len);

/* lustre-view.c: the views and the data path (backend.h) */
int lb_route_states(struct backend *b, bk_route_fn fn, void *arg);
int lb_counters(struct backend *b, bk_count_fn fn, void *arg, struct lne_err *err);
int lb_counters_reset(struct backend *b, struct lne_err *err);
int lb_set_health(struct backend *b, bool peer, const struct lne_nid *nid, uint32_t value,
		  struct lne_err *err);
int lb_ping(struct backend *b, struct bk_call *c);
int lb_discover(struct backend *b, struct bk_call *c);

/* lustre-state.c: lnet.ko's own running state of NIs and peer NIs (net/peer show -v) */
int lb_health(struct backend *b, bool peers, struct bk_health **out);
int lb_health_stats(struct backend *b, const struct lne_nid *nid, bool *local, uint32_t *health,
		    bk_kv_fn fn, void *arg, struct lne_err *err);
int lb_rtr_credits(struct backend *b, const struct lne_nid *nid, int32_t *avail, int32_t *min,
		   struct lne_err *err);
/* Each NI's and each owned peer NI's counters through @lu (lb_counters' second half). */
int lb_counters_by_nid(struct backend *b, struct lu *lu, bk_count_fn fn, void *arg,
		       struct lne_err *err);

#endif /* LNETD_LUSTRE_INT_H */
