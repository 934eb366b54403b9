// SPDX-License-Identifier: GPL-2.0
/*
 * lustre-tbf-bk.c - lustre-tbf.h's work put on the lustre engine: the
 * functions its ops table points at or calls, a timer for the periodic
 * check, and a listener of Lustre's uevents that starts a fast poll when
 * an OSS or MDS is set up (its services follow without uevents of their
 * own).  The engine's struct is the engine's: the TBF side's state is
 * found from the struct backend pointer in a short list of its own.
 */
#include <errno.h>
#include <linux/netlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <syslog.h>
#include <systemd/sd-event.h>
#include <unistd.h>

#include "lnetd/change.h"
#include "lnetd/lnetd.h"
#include "lnetd/log.h"
#include "lnetd/nrs.h"
#include "lustre-tbf.h"

struct bk_tbf {
	struct backend *b;
	struct lnetd *d;
	bool synced; /* the first sync, on the first tick after start */
	struct ltbf *t;
	uint64_t period_us;
	unsigned fast; /* fast polls left */
	sd_event_source *timer, *uevent;
	int fd;
	struct bk_tbf *next;
};

static struct bk_tbf *all;

static struct bk_tbf *of(const struct backend *b)
{
	struct bk_tbf *x;

	for (x = all; x; x = x->next)
		if (x->b == b)
			return x;
	return NULL;
}

static void log_cb(void *arg, int level, const char *sentence)
{
	(void)arg;
	lnetd_log(level, "%s", sentence);
}

static void arm(struct bk_tbf *x)
{
	uint64_t now;

	if (!x->timer || sd_event_now(x->d->event, CLOCK_MONOTONIC, &now) < 0)
		return;
	sd_event_source_set_time(x->timer,
				 !x->synced ? now : now + (x->fast ? LTBF_FAST_US : x->period_us));
	sd_event_source_set_enabled(x->timer, SD_EVENT_ONESHOT);
}

static int on_timer(sd_event_source *s, uint64_t usec, void *arg)
{
	struct bk_tbf *x = arg;
	struct lnetd *d = x->d;

	(void)s;
	(void)usec;
	if (!x->synced) {
		x->synced = true;
		ltbf_sync(x->t, d->tbf, d->ntbf, NULL);
		arm(x);
		return 0;
	}
	ltbf_poll(x->t, d->tbf, d->ntbf, NULL);
	if (x->fast)
		x->fast--;
	arm(x);
	return 0;
}

/* "add@/fs/lustre/ost/OSS" and its SUBSYSTEM=lustre: an OSS or MDS came. */
static bool server_event(const char *buf, size_t n)
{
	const char *p = buf, *end = buf + n;
	bool lustre = false, server = false;

	for (; p < end; p += strlen(p) + 1) {
		if (!strcmp(p, "SUBSYSTEM=lustre"))
			lustre = true;
		else if (!strncmp(p, "add@", 4) || !strncmp(p, "ACTION=add", 10))
			server |= !!strstr(p, "/fs/lustre/ost/OSS") ||
				  !!strstr(p, "/fs/lustre/mds/MDS");
		else if (!strncmp(p, "DEVPATH=", 8))
			server |= !strcmp(p + 8, "/fs/lustre/ost/OSS") ||
				  !strcmp(p + 8, "/fs/lustre/mds/MDS");
	}
	return lustre && server;
}

static int on_uevent(sd_event_source *s, int fd, uint32_t revents, void *arg)
{
	struct bk_tbf *x = arg;
	char buf[8192];
	ssize_t n;

	(void)s;
	(void)revents;
	while ((n = recv(fd, buf, sizeof(buf) - 1, MSG_DONTWAIT)) > 0) {
		buf[n] = '\0';
		if (server_event(buf, (size_t)n))
			lustre_tbf_kick(x->b);
	}
	return 0;
}

/* The kernel's uevents: anyone may listen; without them the period finds the services. */
static void listen_uevents(struct bk_tbf *x)
{
	struct sockaddr_nl sa = {.nl_family = AF_NETLINK, .nl_groups = 1};

	x->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_KOBJECT_UEVENT);
	if (x->fd >= 0 && bind(x->fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 &&
	    sd_event_add_io(x->d->event, &x->uevent, x->fd, EPOLLIN, on_uevent, x) >= 0)
		return;
	log_info("no uevents for Lustre's servers (%s): their TBF policies are applied "
		 "within %llu s of their services appearing",
		 strerror(errno), (unsigned long long)(x->period_us / 1000000));
	if (x->fd >= 0)
		close(x->fd);
	x->fd = -1;
}

int lustre_tbf_start(struct backend *b, struct lnetd *d, const struct lutbf_env *env,
		     uint64_t period_us)
{
	struct bk_tbf *x = calloc(1, sizeof(*x));
	int rc;

	if (!x)
		return -ENOMEM;
	x->b = b;
	x->d = d;
	x->fd = -1;
	x->period_us = period_us ? period_us : LTBF_PERIOD_US;
	x->t = ltbf_new(env, log_cb, x);
	if (!x->t) {
		free(x);
		return -ENOMEM;
	}
	x->next = all;
	all = x;
	if (!d->event)
		return 0;
	rc = sd_event_add_time(d->event, &x->timer, CLOCK_MONOTONIC, UINT64_MAX, 0, on_timer, x);
	if (rc < 0) {
		lustre_tbf_stop(b);
		return rc;
	}
	listen_uevents(x);
	arm(x);
	return 0;
}

void lustre_tbf_stop(struct backend *b)
{
	struct bk_tbf **pp, *x;

	for (pp = &all; *pp && (*pp)->b != b; pp = &(*pp)->next)
		;
	x = *pp;
	if (!x)
		return;
	*pp = x->next;
	sd_event_source_unref(x->timer);
	sd_event_source_unref(x->uevent);
	if (x->fd >= 0)
		close(x->fd);
	ltbf_free(x->t);
	free(x);
}

void lustre_tbf_sync(struct backend *b)
{
	struct bk_tbf *x = of(b);

	if (!x)
		return;
	x->synced = true;
	ltbf_sync(x->t, x->d->tbf, x->d->ntbf, NULL);
}

bool lustre_tbf_applied(const struct backend *b, char *why, size_t len)
{
	struct bk_tbf *x = of(b);

	return !x || ltbf_applied(x->t, why, len);
}

int lustre_tbf_judge(struct backend *b, const struct lnetd_op *ops, size_t n, size_t *index,
		     char *msg, size_t len)
{
	struct bk_tbf *x = of(b);
	const struct lne_tbf *tbf;
	size_t i;
	int rc;

	for (i = 0; i < n; i++) {
		if (ops[i].obj != OBJ_TBF || ops[i].verb == VERB_DEL)
			continue;
		tbf = lnetd_tbf_find(x ? x->d : b->d, ops[i].u.tbf.service);
		if (!tbf)
			continue;
		rc = ltbf_judge(x ? ltbf_env(x->t) : NULL, tbf, msg, len);
		if (rc) {
			*index = i;
			return rc;
		}
	}
	return 0;
}

int lustre_tbf_read(struct backend *b, bk_tbf_fn fn, void *arg, struct lne_err *err)
{
	struct bk_tbf *x = of(b);

	return ltbf_read(x ? ltbf_env(x->t) : NULL, fn, arg, err);
}

void lustre_tbf_kick(struct backend *b)
{
	struct bk_tbf *x = of(b);

	if (!x)
		return;
	x->fast = LTBF_FAST_POLLS;
	arm(x);
}
