// SPDX-License-Identifier: GPL-2.0
/*
 * lustre.c - the lustre engine (--engine=lustre): Lustre's own lnet.ko
 * holds what lnetd's mirror holds, through the library of lu.h.  This file
 * is the engine's life; lustre-sync.c sends the differences, lustre-view.c
 * answers the views and the data path.
 *
 * What lnet.ko speaks (its release, /dev/lnet, the genl family and its
 * ops) is found each time the library is opened, so a module replaced by
 * another version is driven as that version.
 *
 * lnet.ko announces nothing (no multicast, no generation), so the engine
 * learns of changes three ways:
 *  - kernel uevents of the module (SUBSYSTEM=module, DEVPATH=/module/lnet):
 *    "add" comes after the module's init (the genl family and /dev/lnet
 *    exist then), "remove" when it is gone.  A reload is healed as soon as
 *    its "add" arrives: LNet is configured and the whole mirror pushed;
 *  - its own changes, when the mirror changes (sync);
 *  - a poll: every period lnet.ko is read (lu_read_since: its NIs, the
 *    peers lnetd could have configured, routes, UDSP rules, globals) into
 *    @have and the mirror's differences are written back.  Peers cost one
 *    GET_PEER_NI each, so the poll reads lnet.ko's peer list (one request)
 *    and looks only into the peers whose entry is new or gone since the
 *    last read, plus a rolling 1/16 of the list (a NID added to or taken
 *    from a peer is found within 16 polls); the others are lnetd's copy.
 *    The period is POLL_SHARE times what the last read took, within
 *    POLL_MIN_USEC and POLL_MAX_USEC, so the poll costs at most
 *    1/POLL_SHARE of one CPU and of lnetd's loop.  The read times are
 *    logged: the full one (start, lnet.ko appearing), then the poll's once.
 *    The poll also looks at whether the module is there, should a uevent
 *    be missed.
 *
 * LNet itself (LNetNIInit): configured by lnetd when lnet.ko appears or
 * lnetd starts and it is down.  lnetd never unconfigures it: Lustre may
 * hold it (-EBUSY), and a configuration without NIs is lnet.ko's to keep.
 * When someone else unconfigures it (lustre_rmmod: `lnetctl lnet
 * unconfigure`, then rmmod), lnetd lets it be: every object waits until
 * lnet.ko is loaded again, someone configures LNet again, or lnetd's
 * configuration changes.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lnetd/log.h"
#include "lustre-int.h"
#include "lustre-tbf.h"

#define POLL_MIN_USEC 3000000ull   /* drift is found within this, at the least */
#define POLL_MAX_USEC 600000000ull /* ... and at the most: 10 minutes */
#define POLL_SHARE    10	   /* the poll's period is 10 times the read's */
#define RETRY_USEC    250000ull	   /* after losing lnet.ko in the middle of a request */
#define UEVENT_ROOM   (256 << 10)
#define LET_GO_WHY                                                                              \
	"LNet was unconfigured behind lnetd's back: lnetd configures it again when lnet.ko is " \
	"loaded again or its configuration changes"

enum cause {
	C_CHANGE,   /* the mirror changed */
	C_START,    /* lnetd starts */
	C_APPEARED, /* lnet.ko appeared */
	C_POLL,	    /* the periodic comparison */
};

double lb_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Whether lnet.ko is loaded and its init is over ("live"); built in: its folder is there. */
static bool module_live(void)
{
	char state[16] = "";
	struct stat st;
	ssize_t n;
	int fd;

	if (stat("/sys/module/lnet/parameters", &st) < 0)
		return false;
	fd = open("/sys/module/lnet/initstate", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT;
	n = read(fd, state, sizeof(state) - 1);
	close(fd);
	return n > 0 && !strncmp(state, "live", 4);
}

int lb_open(struct lbackend *lb, struct lu **lu, struct lne_err *err)
{
	int rc = lu_open(lu, NULL, err);

	if (rc == -ENOENT)
		return lne_err_set(err, -ENODEV, NULL, -1, LB_NOT_LOADED);
	if (rc)
		return rc;
	snprintf(lb->version, sizeof(lb->version), "%s", lu_vname(*lu));
	return 0;
}

static void pending(struct lbackend *lb, const char *why)
{
	lb->applied = false;
	snprintf(lb->why, sizeof(lb->why), "%s", why);
}

static void forget(struct lbackend *lb)
{
	lne_inst_free(lb->have);
	lb->have = NULL;
	lb->nrefused = 0;
}

static bool poll_armed(struct lbackend *lb)
{
	int on = SD_EVENT_OFF;

	sd_event_source_get_enabled(lb->poll, &on);
	return on != SD_EVENT_OFF;
}

static void arm_poll(struct lbackend *lb, uint64_t usec)
{
	uint64_t t;

	if (sd_event_now(lb->d->event, CLOCK_MONOTONIC, &t) >= 0 &&
	    sd_event_source_set_time(lb->poll, t + usec) >= 0)
		sd_event_source_set_enabled(lb->poll, SD_EVENT_ONESHOT);
}

/* The drift period from what the last read took (see the top). */
static void set_period(struct lbackend *lb)
{
	uint64_t usec = (uint64_t)(lb->last_read_s * 1e6) * POLL_SHARE;

	lb->poll_usec = usec < POLL_MIN_USEC   ? POLL_MIN_USEC
			: usec > POLL_MAX_USEC ? POLL_MAX_USEC
					       : usec;
}

/* Read lnet.ko into @have (what it holds now). */
static int read_module(struct lbackend *lb, struct lu *lu)
{
	struct lne_err err = {.pos = -1, .msg = ""};
	struct lne_inst *ln = lne_inst_new();
	double t0 = lb_now();
	int rc;

	if (!ln)
		return -ENOMEM;
	/* lnet.ko's own limit applied when its peers were made; here it must not refuse */
	ln->globals[LNE_G_MAX_INTERFACES] = UINT32_MAX;
	/* with lnetd's copy, the peers whose entry in lnet.ko's list is unchanged come from it */
	rc = lu_read_since(lu, ln, lb->have, &lb->memo, &err);
	lb->last_read_s = lb_now() - t0;
	set_period(lb);
	if (!rc && !lb->have) {
		lb->full_read_s = lb->last_read_s;
		lb->told_read = false;
	} else if (!rc && !lb->told_read) {
		/* once after each full read: what the poll's read costs, beside it */
		lb->told_read = true;
		log_info("lnet.ko %s: the drift poll's read took %.3f s (%zu peers listed, %zu "
			 "looked into; the full read %.3f s); next in %.1f s",
			 lu_vname(lu), lb->last_read_s, lb->memo.listed, lb->memo.fetched,
			 lb->full_read_s, (double)lb->poll_usec / 1e6);
	}
	if (rc) {
		lne_inst_free(ln);
		if (err.msg[0])
			snprintf(lb->why, sizeof(lb->why), "cannot read what lnet.ko %s holds: %s",
				 lu_vname(lu), err.msg);
		else
			snprintf(lb->why, sizeof(lb->why), "lnet.ko went away while it was read");
		lb->applied = false;
		return rc;
	}
	lne_inst_free(lb->have);
	lb->have = ln;
	lb_have_normalise(lb);
	return 0;
}

/* LNet is down: configure it, or (someone else took it down) let it be.  0: it is up. */
static int bring_up(struct lbackend *lb, struct lu *lu, enum cause cause)
{
	struct lne_err err = {.pos = -1, .msg = ""};
	int rc;

	if (cause == C_POLL && (lb->have || lb->let_go)) {
		if (!lb->let_go)
			log_notice("lnet.ko %s: %s", lu_vname(lu), LET_GO_WHY);
		lb->let_go = true;
		forget(lb);
		pending(lb, LET_GO_WHY);
		return -ENETDOWN;
	}
	rc = lu_configure(lu, &err);
	if (rc) {
		snprintf(lb->why, sizeof(lb->why), "lnet.ko %s did not configure LNet: %s",
			 lu_vname(lu), err.msg[0] ? err.msg : strerror(-rc));
		lb->applied = false;
		log_error("%s", lb->why);
		return rc;
	}
	log_info("lnet.ko %s: LNet configured", lu_vname(lu));
	lb->let_go = false;
	forget(lb);
	return 0;
}

static void run_sync(struct lbackend *lb, enum cause cause)
{
	static const char *const verb[] = {"", " at start", " appeared", " drift"};
	struct lne_err err = {.pos = -1, .msg = ""};
	struct bk_sync_result r;
	struct lu *lu = NULL;
	size_t before;
	double t0 = lb_now();
	bool read;
	int rc, up;

	rc = lb_open(lb, &lu, &err);
	if (rc) {
		pending(lb, err.msg[0] ? err.msg : strerror(-rc));
		forget(lb);
		if (rc == -ENODEV)
			lb->loaded = false;
		return;
	}
	up = lu_running(lu);
	if (up < 0) {
		pending(lb, "lnet.ko does not say whether LNet is up");
		goto out;
	}
	if (!up && lb->let_go && cause != C_CHANGE && cause != C_APPEARED)
		goto out;
	if (up && lb->let_go) {
		log_notice("lnet.ko %s: LNet was configured again: lnetd takes it over",
			   lu_vname(lu));
		lb->let_go = false;
	}
	if (!up && bring_up(lb, lu, cause))
		goto out;
	read = !lb->have || cause == C_POLL;
	if (read && read_module(lb, lu)) {
		log_error("%s", lb->why);
		arm_poll(lb, RETRY_USEC);
		goto out;
	}
	before = bk_objects(lb->have);
	lb->reread = false;
	lb_push(lb, lu, cause == C_POLL, &r);
	lb->applied = !r.stop && !r.refused;
	if (lb->applied)
		lb->why[0] = '\0';
	else
		snprintf(lb->why, sizeof(lb->why), "%s", r.first[0] ? r.first : strerror(-r.stop));
	if (cause == C_POLL && r.changes) {
		lb->drifts += r.changes;
		log_notice("lnet.ko %s was changed behind lnetd's back: %zu change(s) put back in "
			   "%.2f s",
			   lu_vname(lu), r.changes, lb_now() - t0);
	} else if (read && cause != C_POLL) {
		log_info("lnet.ko %s%s: it held %zu objects, %zu changes made in %.2f s (its "
			 "read %.3f s)",
			 lu_vname(lu), verb[cause], before, r.changes, lb_now() - t0,
			 lb->full_read_s);
	} else if (lb_now() - t0 >= 1) {
		log_info("lnet.ko %s: %zu changes made in %.2f s", lu_vname(lu), r.changes,
			 lb_now() - t0);
	}
	if (r.refused && cause != C_POLL)
		log_warning("lnet.ko %s refused %zu change(s); the first: %s", lu_vname(lu),
			    r.refused, r.first);
	if (lb->reread && !r.stop) {
		/* what lnet.ko dropped with a deleted NI: read it back soon */
		arm_poll(lb, RETRY_USEC);
	}
	if (r.stop || r.local_bad) {
		/* lnet.ko went, or lnetd's copy is no longer what it holds: read it again */
		if (r.local_bad)
			log_warning("lnetd's copy of lnet.ko refused %s: reading it again",
				    r.local_why);
		forget(lb);
		arm_poll(lb, RETRY_USEC);
	}
out:
	lu_close(lu);
}

/* --- lnet.ko comes and goes -------------------------------------------------------------------- */

static void vanished(struct lbackend *lb)
{
	if (!lb->loaded)
		return;
	lb->loaded = false;
	lb->let_go = false;
	forget(lb);
	pending(lb, LB_NOT_LOADED);
	log_warning("lnet.ko %s was unloaded: every object waits for it", lb->version);
	arm_poll(lb, POLL_MIN_USEC);
}

static void appeared(struct lbackend *lb, enum cause cause)
{
	lb->loaded = true;
	lb->let_go = false;
	forget(lb);
	sd_event_source_set_enabled(lb->poll, SD_EVENT_OFF);
	run_sync(lb, cause);
	if (!poll_armed(lb))
		arm_poll(lb, lb->poll_usec);
}

static int on_appear(sd_event_source *s, void *userdata)
{
	struct lbackend *lb = userdata;

	(void)s;
	if (module_live())
		appeared(lb, C_APPEARED);
	return 0;
}

/* One uevent: "ACTION@DEVPATH", then KEY=VALUE strings, each ending in NUL. */
static void uevent(struct lbackend *lb, const char *buf, size_t len)
{
	const char *action = NULL, *devpath = NULL, *subsystem = NULL, *p;

	for (p = buf; p < buf + len; p += strlen(p) + 1) {
		if (!strncmp(p, "ACTION=", 7))
			action = p + 7;
		else if (!strncmp(p, "DEVPATH=", 8))
			devpath = p + 8;
		else if (!strncmp(p, "SUBSYSTEM=", 10))
			subsystem = p + 10;
	}
	if (action && subsystem && !strcmp(subsystem, "lustre") && !strcmp(action, "add")) {
		/* an OSS or MDS came: its services (and their TBF policies) follow */
		lustre_tbf_kick(&lb->b);
		return;
	}
	if (!action || !devpath || !subsystem || strcmp(subsystem, "module") ||
	    strcmp(devpath, "/module/lnet"))
		return;
	if (!strcmp(action, "add"))
		sd_event_source_set_enabled(lb->appear, SD_EVENT_ONESHOT);
	else if (!strcmp(action, "remove"))
		vanished(lb);
}

static int on_uevent(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct lbackend *lb = userdata;
	char buf[8192];
	struct sockaddr_nl from;
	struct iovec iov = {buf, sizeof(buf) - 1};
	struct msghdr mh = {
		.msg_name = &from, .msg_namelen = sizeof(from), .msg_iov = &iov, .msg_iovlen = 1};
	ssize_t n;

	(void)s;
	(void)revents;
	for (;;) {
		n = recvmsg(fd, &mh, MSG_DONTWAIT);
		if (n < 0 && errno == ENOBUFS) {
			/* some were lost: look instead */
			if (module_live() != lb->loaded)
				arm_poll(lb, 0);
			continue;
		}
		if (n <= 0)
			break;
		/* the kernel's only: anyone may send to the group's members otherwise */
		if (from.nl_pid != 0)
			continue;
		buf[n] = '\0';
		uevent(lb, buf, (size_t)n);
	}
	return 0;
}

static void uevent_open(struct lbackend *lb)
{
	struct sockaddr_nl sa = {.nl_family = AF_NETLINK, .nl_groups = 1};
	int room = UEVENT_ROOM, rc = 0;

	lb->uev = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
			 NETLINK_KOBJECT_UEVENT);
	if (lb->uev < 0 || bind(lb->uev, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		rc = -errno;
	if (!rc) {
		setsockopt(lb->uev, SOL_SOCKET, SO_RCVBUF, &room, sizeof(room));
		rc = sd_event_add_io(lb->d->event, &lb->uev_io, lb->uev, EPOLLIN, on_uevent, lb);
	}
	if (rc < 0) {
		log_warning("cannot hear the kernel's module uevents (%s): lnet.ko's loads are "
			    "seen by the poll only, every %llu s",
			    strerror(-rc), POLL_MIN_USEC / 1000000);
		if (lb->uev >= 0)
			close(lb->uev);
		lb->uev = -1;
	}
}

static int on_poll(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct lbackend *lb = userdata;
	bool live = module_live();

	(void)s;
	(void)usec;
	if (!live) {
		vanished(lb);
		arm_poll(lb, POLL_MIN_USEC);
		return 0;
	}
	if (!lb->loaded) {
		appeared(lb, C_APPEARED);
		return 0;
	}
	run_sync(lb, C_POLL);
	/* a retry armed by the sync stays */
	if (!poll_armed(lb))
		arm_poll(lb, lb->poll_usec);
	return 0;
}

/* --- the engine's ops (backend.h) ---------------------------------------------------------- */

static void lb_stop(struct backend *b)
{
	struct lbackend *lb = (struct lbackend *)b;

	if (!lb)
		return;
	lustre_tbf_stop(&lb->b);
	sd_event_source_disable_unref(lb->uev_io);
	if (lb->uev >= 0)
		close(lb->uev);
	sd_event_source_disable_unref(lb->poll);
	sd_event_source_disable_unref(lb->appear);
	lne_inst_free(lb->have);
	free(lb->refused);
	free(lb->prints);
	lu_memo_free(&lb->memo);
	free(lb);
}

static int lb_start(struct lnetd *d, struct backend **out)
{
	struct lbackend *lb = calloc(1, sizeof(*lb));
	int rc;

	*out = NULL;
	if (!lb)
		return -ENOMEM;
	lb->d = d;
	lb->uev = -1;
	lb->poll_usec = POLL_MIN_USEC;
	pending(lb, LB_NOT_LOADED);
	rc = sd_event_add_time(d->event, &lb->poll, CLOCK_MONOTONIC, UINT64_MAX, 0, on_poll, lb);
	if (rc >= 0)
		rc = sd_event_source_set_enabled(lb->poll, SD_EVENT_OFF);
	if (rc >= 0)
		rc = sd_event_add_defer(d->event, &lb->appear, on_appear, lb);
	if (rc >= 0)
		rc = sd_event_source_set_enabled(lb->appear, SD_EVENT_OFF);
	/* NRS TBF on Lustre's services: hG's side (lustre-tbf.h), its own timer */
	if (rc >= 0)
		rc = lustre_tbf_start(&lb->b, d, NULL, 0);
	if (rc < 0) {
		lb_stop(&lb->b);
		return rc;
	}
	/* Listen first: a module loaded from now on is heard. */
	uevent_open(lb);
	if (module_live()) {
		appeared(lb, C_START);
	} else {
		log_warning("%s: every object waits for it", LB_NOT_LOADED);
		arm_poll(lb, POLL_MIN_USEC);
	}
	*out = &lb->b;
	return 0;
}

static void lb_sync(struct backend *b)
{
	struct lbackend *lb = (struct lbackend *)b;

	/* the services' policies are Lustre's, whether lnet.ko is loaded or not */
	lustre_tbf_sync(b);

	if (!lb->loaded) {
		/* a load the uevents did not tell */
		if (module_live())
			appeared(lb, C_APPEARED);
		return;
	}
	run_sync(lb, C_CHANGE);
}

static void lb_mirror_replaced(struct backend *b)
{
	(void)b; /* @have is lnetd's copy of lnet.ko, not of the mirror: nothing points there */
}

static bool lb_applied(const struct backend *b, const struct lnetd_ni *n, char *why, size_t len)
{
	const struct lbackend *lb = (const struct lbackend *)b;
	size_t i, k;

	/* Not held at all: lnet.ko away, let go, or not reached. */
	if (!lb->loaded || lb->let_go || !lb->have) {
		snprintf(why, len, "%s", lb->why[0] ? lb->why : LB_NOT_LOADED);
		return false;
	}
	if (!n) {
		if (!lb->applied)
			snprintf(why, len, "%s", lb->why);
		return lb->applied && lustre_tbf_applied(b, why, len);
	}
	for (k = 0; k < n->nreal; k++)
		for (i = 0; i < lb->nrefused; i++)
			if (lne_nid_equal(&lb->refused[i].nid, &n->real[k].nid)) {
				snprintf(why, len, "%s", lb->refused[i].why);
				return false;
			}
	return true;
}

const struct backend_ops bk_lustre_ops = {
	.name = "lustre",
	.help = "Lustre's own lnet.ko (2.15 on)",
	.module = "lnet.ko",
	.start = lb_start,
	.stop = lb_stop,
	.sync = lb_sync,
	.applied = lb_applied,
	.judge = lb_judge,
	.mirror_replaced = lb_mirror_replaced,
	/* NRS TBF on Lustre's services: lustre-tbf.h (its sync follows lb_sync) */
	.tbf_read = lustre_tbf_read,
	.tbf_changed = NULL,
	/* NI and peer NI status, health and counters: lnet.ko's own (lustre-state.c) */
	.health = lb_health,
	.route_states = lb_route_states,
	.set_health = lb_set_health,
	.ping = lb_ping,
	.discover = lb_discover,
	.counters = lb_counters,
	.counters_reset = lb_counters_reset,
	.health_stats = lb_health_stats,
	.rtr_credits = lb_rtr_credits,
	/* lnet.ko has none of these for lnetd: NotSupported, "the lustre engine cannot ..." */
	.selftest = NULL,
	.test_service = NULL,
	.explain = NULL,
	.fault_add = NULL,
	.fault_del = NULL,
	.fault_reset = NULL,
	.fault_list = NULL,
	.recovery = NULL,
};
