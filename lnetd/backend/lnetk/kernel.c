// SPDX-License-Identifier: GPL-2.0
/*
 * kernel.c - the kernel backend: the lnetk module holds what the mirror
 * holds (kernel.h says what; this says how).  This file holds the backend
 * itself: the connection, the announcements, when to sync and what came
 * of it; kernel-load.c reads the module, kernel-sync.c sends it the
 * differences.
 *
 * The backend keeps @pushed, an engine instance (the module's own code)
 * holding what the module holds as far as lnetd knows: every request the
 * module accepts is applied to @pushed too.  A sync sends the differences
 * between the mirror and @pushed: sync.c walks them (deletions, then
 * additions, then link states; sync.h says in what order), kernel-sync.c
 * writes them as liblnetk requests, BATCHes when there are many (the
 * module builds a batch on a copy of its state; an empty module gets
 * everything in one LNETK_F_REPLACE batch, nothing lost and nobody else's
 * leftovers surviving), then the NRS TBF policies (ktbf.c).  A refusal by
 * the module never stops a sync (the first one is the backend's reason,
 * Status shows it); losing the module (no extack, no reply) does, and a
 * timer tries again.
 *
 * When the two may have parted, @pushed is read back from the module's
 * dumps instead (taken between two GET_INFOs with the same generation, so
 * it is one state): at start (lnetd restarted, the module stayed), when
 * the family appears (the genl controller's announcement: insmod), and
 * when the module announces a generation lnetd did not cause.  Every
 * reply carries the generation after the request, so the generations of
 * lnetd's own changes are kept in a queue until their announcements come
 * back; an announcement that is not at the head of the queue (or lost
 * announcements: ENOBUFS) means someone else changed the module, and a
 * deferred repair reads it and syncs.  During a long sync the events
 * socket is read every DRAIN_EVERY requests so that it never overflows
 * with lnetd's own announcements.
 *
 * Everything runs in lnetd's event loop; a sync runs to completion.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include "kernel-int.h"
#include "lnetd/events.h"
#include "lnetd/log.h"

#define RETRY_USEC  1000000   /* after losing the module without its announcement */
#define BUSY_USEC   2000000   /* after the module said busy (a source holds a TBF policy) */
#define EVENTS_ROOM (1 << 20) /* socket buffer for announcements: about 1,000 */
#define NOT_LOADED  "the lnetk module is not loaded"

/* --- whose generation: ours, or someone else's ----------------------------------------- */

void kb_mine_push(struct kbackend *kb, uint64_t gen)
{
	if (kb->mine.head + kb->mine.n == kb->mine.cap) {
		if (kb->mine.head) {
			memmove(kb->mine.gen, kb->mine.gen + kb->mine.head,
				kb->mine.n * sizeof(*kb->mine.gen));
			kb->mine.head = 0;
		} else {
			size_t cap = kb->mine.cap ? 2 * kb->mine.cap : 256;
			uint64_t *g = realloc(kb->mine.gen, cap * sizeof(*g));

			/* Without room we cannot tell ours apart: the next one looks
			 * foreign and costs a read of the module, nothing worse. */
			if (!g)
				return;
			kb->mine.gen = g;
			kb->mine.cap = cap;
		}
	}
	kb->mine.gen[kb->mine.head + kb->mine.n++] = gen;
}

/* Forget our generations up to @gen: they are behind us. */
void kb_mine_drop(struct kbackend *kb, uint64_t gen)
{
	while (kb->mine.n && kb->mine.gen[kb->mine.head] <= gen) {
		kb->mine.head++;
		kb->mine.n--;
	}
	if (!kb->mine.n)
		kb->mine.head = 0;
}

static bool repair_scheduled(struct kbackend *kb)
{
	int on = SD_EVENT_OFF;

	sd_event_source_get_enabled(kb->repair, &on);
	return on != SD_EVENT_OFF;
}

static void schedule_repair(struct kbackend *kb)
{
	sd_event_source_set_enabled(kb->repair, SD_EVENT_ONESHOT);
}

static void on_event(uint8_t cmd, uint64_t gen, void *arg)
{
	struct kbackend *kb = arg;
	bool ours;

	if (!kb->pushed || gen <= kb->horizon)
		return;
	/* Announcements come in generation order, as our replies did. */
	kb_mine_drop(kb, gen - 1);
	ours = kb->mine.n && kb->mine.gen[kb->mine.head] == gen;
	kb_mine_drop(kb, gen);
	kb->horizon = gen;
	if (ours || repair_scheduled(kb))
		return;
	log_notice("lnetk module changed behind lnetd's back (command %u, generation %llu)", cmd,
		   (unsigned long long)gen);
	schedule_repair(kb);
}

/* Read what the events socket holds; lost announcements mean: read the module again. */
void kb_drain(struct kbackend *kb)
{
	int rc;

	if (!kb->ev)
		return;
	do
		rc = lnetk_events_dispatch(kb->ev);
	while (rc > 0);
	if (rc == -ENOBUFS) {
		log_warning("lnetk module announcements were lost: reading it again");
		schedule_repair(kb);
		while (lnetk_events_dispatch(kb->ev) > 0)
			;
	} else if (rc < 0) {
		log_warning("lnetk module announcements: %s, ignoring", strerror(-rc));
	}
}

static int on_events_io(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	kb_drain(userdata);
	return 0;
}

/* --- the module's data path, told as the userspace engine's is ------------------------------ */

static void on_dp_state(void *arg, const char *nid, bool local, const char *state, uint32_t health)
{
	struct kbackend *kb = arg;

	lnetd_event(kb->d, &(struct lnetd_event){.kind = LNETD_EV_HEALTH,
						 .nid = nid,
						 .peer = !local,
						 .health = health,
						 .state = state});
}

static void on_dp_peer(void *arg, const char *const *nids, size_t n)
{
	struct kbackend *kb = arg;

	lnetd_event(kb->d, &(struct lnetd_event){.kind = LNETD_EV_PEER_DISCOVERED,
						 .nid = nids[0],
						 .nids = nids,
						 .nnids = n});
}

static void on_dp_route(void *arg, const char *net, const char *gateway, bool up)
{
	struct kbackend *kb = arg;

	lnetd_event(kb->d, &(struct lnetd_event){.kind = LNETD_EV_ROUTE,
						 .ni = net,
						 .nid = gateway,
						 .state = up ? "up" : "down"});
}

static int on_dp_io(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct kbackend *kb = userdata;
	int rc;

	(void)s;
	(void)fd;
	(void)revents;
	rc = lnetk_events_dispatch(kb->dpev);
	while (rc > 0)
		rc = lnetk_events_dispatch(kb->dpev);
	if (rc == -ENOBUFS)
		log_warning("lnetk data path announcements were lost (signals missed)");
	return 0;
}

/* Hear the module's data path; without it lnetd still works, only its signals are missing. */
static void dp_events_open(struct kbackend *kb)
{
	int rc = lnetk_dp_events_open(on_dp_state, on_dp_peer, on_dp_route, kb, &kb->dpev);

	if (!rc)
		rc = sd_event_add_io(kb->d->event, &kb->dpev_io, lnetk_events_fd(kb->dpev), EPOLLIN,
				     on_dp_io, kb);
	if (rc < 0) {
		log_warning("cannot hear the lnetk module's data path: %s; its HealthChanged, "
			    "PeerDiscovered and RouteStateChanged signals are missing",
			    strerror(-rc));
		lnetk_events_close(kb->dpev);
		kb->dpev = NULL;
	}
}

/* --- the backend's state ------------------------------------------------------------------ */

enum cause {
	C_CHANGE,   /* the mirror changed */
	C_START,    /* lnetd starts */
	C_APPEARED, /* the family appeared */
	C_REPAIR,   /* the module changed behind lnetd's back */
};

static void disconnect(struct kbackend *kb)
{
	kb->ev_io = sd_event_source_disable_unref(kb->ev_io);
	lnetk_events_close(kb->ev);
	kb->ev = NULL;
	kb->dpev_io = sd_event_source_disable_unref(kb->dpev_io);
	lnetk_events_close(kb->dpev);
	kb->dpev = NULL;
	lnetk_close(kb->lk);
	kb->lk = NULL;
	lne_inst_free(kb->pushed);
	kb->pushed = NULL;
	kb->replace = false;
	kb->mine.n = kb->mine.head = 0;
	kb->horizon = 0;
	kb->applied = false;
	snprintf(kb->why, sizeof(kb->why), NOT_LOADED);
	sd_event_source_set_enabled(kb->repair, SD_EVENT_OFF);
	sd_event_source_set_enabled(kb->retry, SD_EVENT_OFF);
	sd_event_source_set_enabled(kb->busy, SD_EVENT_OFF);
}

static void arm_timer(struct kbackend *kb, sd_event_source *timer, uint64_t usec)
{
	uint64_t t;

	if (sd_event_now(kb->d->event, CLOCK_MONOTONIC, &t) >= 0 &&
	    sd_event_source_set_time(timer, t + usec) >= 0)
		sd_event_source_set_enabled(timer, SD_EVENT_ONESHOT);
}

static void arm_retry(struct kbackend *kb)
{
	arm_timer(kb, kb->retry, RETRY_USEC);
}

static void run_sync(struct kbackend *kb, enum cause cause)
{
	static const char *const verb[] = {"", " at start", " appeared", " repaired"};
	struct kb_result r;
	bool read = !kb->pushed;
	size_t before;
	double t0 = now();
	int rc;

	if (!kb->lk) {
		kb->applied = false;
		snprintf(kb->why, sizeof(kb->why), NOT_LOADED);
		return;
	}
	sd_event_source_set_enabled(kb->retry, SD_EVENT_OFF);
	sd_event_source_set_enabled(kb->busy, SD_EVENT_OFF);
	if (read) {
		rc = kb_read_module(kb);
		if (rc) {
			kb->applied = false;
			snprintf(kb->why, sizeof(kb->why),
				 "cannot read what the lnetk module holds: %s", strerror(-rc));
			log_error("%s", kb->why);
			arm_retry(kb);
			return;
		}
		/* Whatever changed the module before is in what was read. */
		sd_event_source_set_enabled(kb->repair, SD_EVENT_OFF);
	}
	before = objects(kb->pushed);
	kb_push(kb, &r);
	kb_drain(kb);
	kb->applied = !r.stop && !r.refused;
	if (kb->applied)
		kb->why[0] = '\0';
	else
		snprintf(kb->why, sizeof(kb->why), "%s", r.first[0] ? r.first : strerror(-r.stop));
	if (read && !before && r.changes)
		log_info("lnetk module%s: %zu objects pushed in %.2f s", verb[cause],
			 objects(kb->pushed), now() - t0);
	else if (read)
		log_info("lnetk module%s: it held %zu objects, %zu changes made in %.2f s",
			 verb[cause], before, r.changes, now() - t0);
	else if (now() - t0 >= 1)
		log_info("lnetk module: %zu changes made in %.2f s", r.changes, now() - t0);
	if (r.refused)
		log_warning("lnetk module refused %zu change(s); the first: %s", r.refused,
			    r.first);
	if (r.stop) {
		log_error("%s", kb->why);
		arm_retry(kb);
	} else if (r.busy) {
		arm_timer(kb, kb->busy, BUSY_USEC);
	}
	if (r.local_bad) {
		/* The copy is no longer what the module holds: read the module again. */
		lne_inst_free(kb->pushed);
		kb->pushed = NULL;
		schedule_repair(kb);
	}
}

static void connect_module(struct kbackend *kb, enum cause cause)
{
	int rc;

	rc = lnetk_open(&kb->lk);
	if (rc) {
		kb->lk = NULL;
		if (rc != -ENOENT)
			snprintf(kb->why, sizeof(kb->why), "cannot reach the lnetk module: %s",
				 strerror(-rc));
		log_warning("%s; every object waits for it", rc == -ENOENT ? NOT_LOADED : kb->why);
		/* Absent, the controller will say when it comes; anything else: try again. */
		if (rc != -ENOENT)
			arm_retry(kb);
		return;
	}
	rc = lnetk_events_open(on_event, kb, &kb->ev);
	if (!rc && lnetk_events_set_buffer(kb->ev, EVENTS_ROOM))
		log_warning("cannot enlarge the buffer of lnetk announcements, "
			    "ignoring");
	if (!rc)
		rc = sd_event_add_io(kb->d->event, &kb->ev_io, lnetk_events_fd(kb->ev), EPOLLIN,
				     on_events_io, kb);
	if (rc < 0) {
		/* Without announcements drift would go unseen: try again later. */
		log_error("cannot hear the lnetk module's announcements: %s", strerror(-rc));
		disconnect(kb);
		snprintf(kb->why, sizeof(kb->why), "cannot hear the lnetk module: %s",
			 strerror(-rc));
		arm_retry(kb);
		return;
	}
	dp_events_open(kb);
	run_sync(kb, cause);
}

static void on_family(bool present, int family, void *arg)
{
	struct kbackend *kb = arg;

	if (!present) {
		if (!kb->lk)
			return;
		disconnect(kb);
		log_warning("lnetk module vanished: every object waits for it");
		return;
	}
	/* Our own lnetk_open() may have loaded it: nothing new then. */
	if (kb->lk && family == lnetk_family(kb->lk))
		return;
	disconnect(kb);
	connect_module(kb, C_APPEARED);
}

static int on_watch_io(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct kbackend *kb = userdata;
	int rc = lnetk_watch_dispatch(kb->watch);

	if (rc == -ENOBUFS) {
		/* Missed announcements: look, without loading anything. */
		lnetk_watch_dispatch(kb->watch);
		rc = lnetk_family_present();
		if (rc > 0) {
			disconnect(kb);
			connect_module(kb, C_APPEARED);
		} else if (!rc && kb->lk) {
			on_family(false, -1, kb);
		}
	}
	if (rc < 0)
		log_warning("genl controller announcements: %s, ignoring", strerror(-rc));
	return 0;
}

static int on_repair(sd_event_source *s, void *userdata)
{
	struct kbackend *kb = userdata;

	if (!kb->lk)
		return 0;
	lne_inst_free(kb->pushed);
	kb->pushed = NULL;
	run_sync(kb, C_REPAIR);
	return 0;
}

static int on_retry(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct kbackend *kb = userdata;

	/* Only when it is there: lnetk_open() would load it again after an rmmod. */
	if (!kb->lk) {
		if (lnetk_family_present() > 0)
			connect_module(kb, C_APPEARED);
		return 0;
	}
	lne_inst_free(kb->pushed);
	kb->pushed = NULL;
	run_sync(kb, C_REPAIR);
	return 0;
}

/* A refusal that may pass (EBUSY): the same sync again, from what lnetd knows the module holds. */
static int on_busy(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct kbackend *kb = userdata;

	if (kb->lk && !kb->applied)
		run_sync(kb, C_CHANGE);
	return 0;
}

/* --- kernel.h ----------------------------------------------------------------------------- */

int kbackend_start(struct lnetd *d, struct kbackend **kbp)
{
	struct kbackend *kb = calloc(1, sizeof(*kb));
	int rc;

	*kbp = NULL;
	if (!kb)
		return -ENOMEM;
	kb->d = d;
	snprintf(kb->why, sizeof(kb->why), NOT_LOADED);
	rc = sd_event_add_defer(d->event, &kb->repair, on_repair, kb);
	if (rc >= 0)
		rc = sd_event_source_set_enabled(kb->repair, SD_EVENT_OFF);
	if (rc >= 0)
		rc = sd_event_add_time(d->event, &kb->retry, CLOCK_MONOTONIC, UINT64_MAX, 0,
				       on_retry, kb);
	if (rc >= 0)
		rc = sd_event_source_set_enabled(kb->retry, SD_EVENT_OFF);
	if (rc >= 0)
		rc = sd_event_add_time(d->event, &kb->busy, CLOCK_MONOTONIC, UINT64_MAX, 0, on_busy,
				       kb);
	if (rc >= 0)
		rc = sd_event_source_set_enabled(kb->busy, SD_EVENT_OFF);
	/* Watch first: a module loaded from now on is seen, even by our own lookup. */
	if (rc >= 0)
		rc = lnetk_watch_open(on_family, kb, &kb->watch);
	if (rc >= 0)
		rc = sd_event_add_io(d->event, &kb->watch_io, lnetk_watch_fd(kb->watch), EPOLLIN,
				     on_watch_io, kb);
	if (rc < 0) {
		kbackend_stop(kb);
		return rc;
	}
	connect_module(kb, C_START);
	*kbp = kb;
	return 0;
}

void kbackend_stop(struct kbackend *kb)
{
	if (!kb)
		return;
	disconnect(kb);
	sd_event_source_disable_unref(kb->repair);
	sd_event_source_disable_unref(kb->retry);
	sd_event_source_disable_unref(kb->busy);
	sd_event_source_disable_unref(kb->watch_io);
	lnetk_watch_close(kb->watch);
	free(kb->mine.gen);
	free(kb);
}

void kbackend_sync(struct kbackend *kb)
{
	run_sync(kb, C_CHANGE);
}

bool kbackend_applied(const struct kbackend *kb, char *why, size_t len)
{
	if (!kb->applied)
		snprintf(why, len, "%s", kb->why);
	return kb->applied;
}

int kbackend_set_health(struct kbackend *kb, bool peer, const struct lne_nid *nid, uint32_t value,
			char *why, size_t len)
{
	struct lnetk_err err;
	char text[LNE_NID_STR_MAX];
	int rc;

	if (!kb->lk) {
		snprintf(why, len, NOT_LOADED);
		return -ENODEV;
	}
	nid_text(nid, text);
	if (peer) {
		struct lnetk_peer_ni k = {.has = LNETK_HAS_PNI_HEALTH, .health = value};

		snprintf(k.nid, sizeof(k.nid), "%s", text);
		rc = lnetk_peer_ni_set(kb->lk, &k, &err);
	} else {
		struct lnetk_ni k = {.has = LNETK_HAS_NI_HEALTH, .health = value};

		snprintf(k.nid, sizeof(k.nid), "%s", text);
		rc = lnetk_ni_set(kb->lk, &k, &err);
	}
	if (rc) {
		snprintf(why, len, "the lnetk module refused the health of %s: %s", text,
			 err.msg[0] ? err.msg : strerror(-rc));
		return rc;
	}
	kb_mine_push(kb, lnetk_last_generation(kb->lk));
	if (kb->pushed) {
		if (peer)
			lne_peer_ni_set_health(kb->pushed, nid, (s32)value, NULL);
		else
			lne_ni_set_health(kb->pushed, nid, (s32)value, NULL);
	}
	return 0;
}

/* --- the engine's ops (backend.h) ------------------------------------------------------ */

int kb_start(struct lnetd *d, struct backend **out)
{
	struct kbackend *kb;
	int rc = kbackend_start(d, &kb);

	if (rc)
		return rc;
	*out = &kb->b;
	return 0;
}

void kb_stop(struct backend *b)
{
	kbackend_stop((struct kbackend *)b);
}

void kb_sync(struct backend *b)
{
	kbackend_sync((struct kbackend *)b);
}

bool kb_applied(const struct backend *b, const struct lnetd_ni *n, char *why, size_t len)
{
	(void)n; /* the module holds all of the mirror or lnetd says why not */
	return kbackend_applied((const struct kbackend *)b, why, len);
}
