// SPDX-License-Identifier: GPL-2.0
/*
 * bus-direct.c - org.lnetd1 on a socket of lnetd's own (--private-socket),
 * peer to peer, as systemd serves systemctl on /run/systemd/private: the
 * same object, methods and bounds as on the system bus, for lnetctl run as
 * root.  A call then skips dbus-daemon's two hops, the Hello, and lnetd's
 * own question to dbus-daemon about who is calling: the socket's
 * SO_PEERCRED says that.  Signals stay on the system bus.
 *
 * Who may connect: the socket is 0600, owned by lnetd's user, and each peer
 * is checked once more on accept (root, or lnetd's own user when a test runs
 * it as someone else).  Authorisation is the system bus's (bus-auth.c): a
 * change needs uid 0, and with no bus name polkit is never asked.  At most
 * LNETD_DIRECT_MAX connections at once; more are closed on accept, and
 * lnetctl goes through the system bus then.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>
#include <unistd.h>

#include "bus-int.h"
#include "lnetd/lnetd.h"
#include "lnetd/log.h"

struct direct_conn {
	struct direct_conn *next;
	sd_bus *bus;
};

struct bus_direct {
	struct lnetd *d;
	int fd;
	char *path;
	ino_t ino; /* the socket's inode: unlinked at exit only while it is still ours */
	sd_event_source *src;
	struct direct_conn *conns;
	unsigned int n;
	sd_id128_t id;
};

static void conn_drop(struct bus_direct *x, sd_bus *bus)
{
	struct direct_conn **p, *c;

	for (p = &x->conns; *p; p = &(*p)->next)
		if ((*p)->bus == bus) {
			c = *p;
			*p = c->next;
			x->n--;
			/* Pending replies hold their own references; the bus goes with the last. */
			sd_bus_flush_close_unref(c->bus);
			free(c);
			return;
		}
}

static int on_disconnected(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	(void)e;
	conn_drop(userdata, sd_bus_message_get_bus(m));
	return 0;
}

static int conn_add(struct bus_direct *x, int fd)
{
	struct direct_conn *c = calloc(1, sizeof(*c));
	int rc;

	if (!c) {
		close(fd);
		return -ENOMEM;
	}
	rc = sd_bus_new(&c->bus);
	if (rc < 0) {
		close(fd);
		free(c);
		return rc;
	}
	rc = sd_bus_set_fd(c->bus, fd, fd);
	if (rc < 0)
		close(fd); /* not the bus's yet */
	if (rc >= 0)
		rc = sd_bus_set_server(c->bus, 1, x->id);
	if (rc >= 0)
		rc = sd_bus_set_description(c->bus, "lnetd-direct");
	if (rc >= 0)
		rc = sd_bus_match_signal(c->bus, NULL, "org.freedesktop.DBus.Local", NULL,
					 "org.freedesktop.DBus.Local", "Disconnected",
					 on_disconnected, x);
	if (rc >= 0)
		rc = lnetd_bus_serve(x->d, c->bus);
	if (rc >= 0)
		rc = sd_bus_start(c->bus);
	if (rc >= 0)
		rc = sd_bus_attach_event(c->bus, x->d->event, SD_EVENT_PRIORITY_NORMAL);
	if (rc < 0) {
		sd_bus_flush_close_unref(c->bus);
		free(c);
		return rc;
	}
	c->next = x->conns;
	x->conns = c;
	x->n++;
	return 0;
}

static int on_accept(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct bus_direct *x = userdata;
	struct ucred uc;
	socklen_t len = sizeof(uc);
	int c, rc;

	(void)s;
	(void)revents;
	c = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (c < 0) {
		if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
			log_warning("%s: cannot accept a connection: %s", x->path, strerror(errno));
		return 0;
	}
	if (getsockopt(c, SOL_SOCKET, SO_PEERCRED, &uc, &len) < 0 ||
	    (uc.uid != 0 && uc.uid != geteuid())) {
		log_warning("%s: refused a connection from uid %d: root only", x->path,
			    len == sizeof(uc) ? (int)uc.uid : -1);
		close(c);
		return 0;
	}
	if (x->n >= LNETD_DIRECT_MAX) {
		log_warning("%s: %u connections already, closing pid %d's (it can use the "
			    "system bus)",
			    x->path, x->n, (int)uc.pid);
		close(c);
		return 0;
	}
	rc = conn_add(x, c);
	if (rc < 0)
		log_warning("%s: cannot serve pid %d's connection: %s", x->path, (int)uc.pid,
			    strerror(-rc));
	return 0;
}

/* Make @path's directory if it is missing (one level, 0755, as RuntimeDirectory would). */
static void make_parent(const char *path)
{
	char *dir = strdup(path), *slash;

	if (!dir)
		return;
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		if (mkdir(dir, 0755) < 0 && errno != EEXIST)
			log_debug("cannot make %s: %s", dir, strerror(errno));
	}
	free(dir);
}

/* Whether something accepts connections at @sa (an lnetd serving it now). */
static bool someone_listens(const struct sockaddr_un *sa)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	bool yes;

	if (fd < 0)
		return false;
	yes = connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) == 0;
	close(fd);
	return yes;
}

int lnetd_bus_direct_start(struct lnetd *d, const char *path, struct bus_direct **out)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct bus_direct *x;
	struct stat st;
	mode_t old;
	int rc;

	*out = NULL;
	if (!path || !*path)
		return 0;
	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	x = calloc(1, sizeof(*x));
	if (!x)
		return -ENOMEM;
	x->d = d;
	x->fd = -1;
	x->path = strdup(path);
	rc = x->path ? sd_id128_randomize(&x->id) : -ENOMEM;
	if (rc < 0)
		goto fail;
	memcpy(sa.sun_path, path, strlen(path));
	/* A socket left by an lnetd that died goes; one another lnetd serves, and anything
	 * else there, is not ours to remove. */
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode)) {
			rc = -EEXIST;
			goto fail;
		}
		if (someone_listens(&sa)) {
			rc = -EADDRINUSE;
			goto fail;
		}
		unlink(path);
	}
	make_parent(path);
	x->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (x->fd < 0) {
		rc = -errno;
		goto fail;
	}
	old = umask(0177); /* the socket is born 0600: nobody else connects, even for a moment */
	rc = bind(x->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ? -errno : 0;
	umask(old);
	if (rc == 0 && lstat(path, &st) == 0)
		x->ino = st.st_ino;
	if (rc == 0)
		rc = listen(x->fd, 64) < 0 ? -errno : 0;
	if (rc == 0)
		rc = sd_event_add_io(d->event, &x->src, x->fd, EPOLLIN, on_accept, x);
	if (rc < 0)
		goto fail;
	*out = x;
	return 0;
fail:
	lnetd_bus_direct_stop(x);
	return rc;
}

void lnetd_bus_direct_stop(struct bus_direct *x)
{
	struct stat st;

	if (!x)
		return;
	while (x->conns)
		conn_drop(x, x->conns->bus);
	sd_event_source_disable_unref(x->src);
	if (x->fd >= 0) {
		close(x->fd);
		if (x->ino && lstat(x->path, &st) == 0 && st.st_ino == x->ino)
			unlink(x->path);
	}
	free(x->path);
	free(x);
}
