// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - lnetd: the daemon that owns LNet's configuration.
 *
 * One sd-event loop carries everything: the bus, signals and the systemd
 * watchdog (later: udev, rtnetlink and the module's events).  lnetd runs in
 * the foreground, logs to stderr (the journal under systemd), and tells
 * systemd it is ready once its bus name is owned.  SIGTERM and SIGINT stop
 * it cleanly; SIGHUP re-reads nothing, because nothing is read from files:
 * the configuration lives in the store and changes over the bus.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include "lnetd.h"
#include "lnetd/backend/backend.h"
#include "lnetd/log.h"
#include "metrics.h"
#include "nrs.h"
#include "numa.h"

#define SUN_PATH_SIZE sizeof(((struct sockaddr_un *)0)->sun_path)

/* --engine's words and what each is, from the table of engines (backend/engines.h). */
static void usage_engines(FILE *f)
{
	const struct backend_ops *ops;
	size_t i;

	fprintf(f, "  --engine=ENGINE            where LNet runs:\n");
	for (i = 0; (ops = backend_engine(i)); i++)
		fprintf(f, "%29s%-10s %s%s\n", "", ops->name, ops->help, i ? "" : " (default)");
}

static void usage(FILE *f)
{
	fprintf(f, "Usage: lnetd [OPTIONS]\n"
		   "\n"
		   "The daemon that owns LNet's configuration (see lnetd(8)).\n"
		   "\n");
	usage_engines(f);
	fprintf(f,
		"  --lnet-port=PORT           the userspace engine's LNet port (default 988)\n"
		"  --state-dir=DIR            where lnetd.db lives, one lnetd at a time\n"
		"                             (default: $STATE_DIRECTORY, else /var/lib/lnetd)\n"
		"  --history-keep=N           keep the last N changes in the history\n"
		"                             (default %u; 0: no bound)\n"
		"  --history-days=N           and none older than N days (default %u; 0: no bound)\n"
		"  --metrics-file=PATH        keep PATH current for Prometheus (node_exporter's\n"
		"                             textfile collector: PATH ends in .prom)\n"
		"  --metrics-interval=SECONDS rewrite it this often (default %u), and on changes\n"
		"  --metrics-peers            and a series per peer NI in it (many, at scale)\n"
		"  --router-check-interval=SECONDS\n"
		"                             the userspace engine pings each gateway this\n"
		"                             often (default 60; 0: never)\n"
		"  --router-ping-timeout=SECONDS\n"
		"                             and takes it as down without an answer in\n"
		"                             this time (default 50)\n"
		"  --avoid-asym-router-failure=0|1\n"
		"                             1 (the default): a route is down while its\n"
		"                             gateway says its NIs on the route's net are\n"
		"                             down; 0: only the gateway's own answer counts\n"
		"  --private-socket=PATH      serve org.lnetd1 peer to peer on PATH too, for\n"
		"                             root's lnetctl (lnetd.service: /run/lnetd/private)\n"
		"  -h, --help                 this text\n"
		"  --version                  the version\n"
		"\n"
		"The bus is the system bus ($DBUS_SYSTEM_BUS_ADDRESS if set).\n",
		STORE_KEEP_CHANGES, STORE_KEEP_DAYS, LNETD_METRICS_INTERVAL_DEFAULT);
}

static void on_netif_change(void *data)
{
	lnetd_nis_reconcile(data);
	lnetd_mirror_changed(data);
}

static int on_hup(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
	log_notice("SIGHUP: nothing to re-read (the configuration is in the store)");
	return 0;
}

/*
 * One lnetd per state directory, whatever bus each is on: before anything
 * else (the store, the bus, the interfaces, the module) lnetd takes a write
 * lock on DIR/lnetd.lock, and holds it until it exits, however it exits
 * (the kernel drops it: a lock file left behind is no lock).
 *
 * A POSIX record lock (fcntl F_SETLK), not flock() or an OFD lock, because
 * F_GETLK gives a second lnetd the holder's pid for its sentence, as the
 * kernel knows it, never stale.  Their two traps miss lnetd: any close() of
 * the file by the process drops the lock (lnetd opens it here, once, and
 * never closes it), and children do not inherit it (they need not: the
 * descriptor is O_CLOEXEC, and what lnetd starts execs).  The pid is also
 * written into the file, for people.  The file is never removed: removing
 * it would let a third lnetd lock a new file while the second still holds
 * the old one.
 *
 * Returns the descriptor, to keep open, or -1 having said why.
 */
static int lock_state_dir(const char *dir)
{
	struct flock fl = {.l_whence = SEEK_SET};
	char *path = NULL, pid[32];
	int fd, tries, n, e = 0;

	if (asprintf(&path, "%s/lnetd.lock", dir) < 0)
		return -1;
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0600);
	if (fd < 0) {
		log_error("cannot lock the state directory %s: %s: %s", dir, path, strerror(errno));
		free(path);
		return -1;
	}
	for (tries = 0; tries < 3; tries++) {
		fl.l_type = F_WRLCK;
		if (!fcntl(fd, F_SETLK, &fl)) {
			/* Ours: the pid for people; F_GETLK is what lnetd asks. */
			n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
			if (ftruncate(fd, 0) || pwrite(fd, pid, n, 0) != n)
				log_error("%s: cannot write the pid: %s", path, strerror(errno));
			free(path);
			return fd;
		}
		e = errno;
		if (e != EACCES && e != EAGAIN)
			break;
		/* Who holds it?  Nobody, if it was let go meanwhile: try again. */
		fl.l_type = F_WRLCK;
		if (fcntl(fd, F_GETLK, &fl)) {
			e = errno;
			break;
		}
		if (fl.l_type == F_UNLCK)
			continue;
		if (fl.l_pid > 0)
			log_error("the state directory %s is in use by another lnetd (pid %ld); "
				  "stop it first, or give this one a --state-dir of its own",
				  dir, (long)fl.l_pid);
		else
			log_error(
				"the state directory %s is in use by another lnetd (on "
				"another host or in another PID namespace); stop it first, or give "
				"this one a --state-dir of its own",
				dir);
		e = 0;
		break;
	}
	if (e)
		log_error("cannot lock the state directory %s: %s: %s", dir, path, strerror(e));
	close(fd);
	free(path);
	return -1;
}

/* A bound of the history: a decimal count, 0 for none. */
static int parse_count(const char *opt, const char *arg, unsigned int *out)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (!*arg || *end || *arg == '-' || errno || v > 1000000000ul) {
		log_error("%s: '%s' is not a count from 0 to 1000000000", opt, arg);
		return -EINVAL;
	}
	*out = (unsigned int)v;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"engine", required_argument, NULL, 'e'},
		{"lnet-port", required_argument, NULL, 'p'},
		{"state-dir", required_argument, NULL, 's'},
		{"history-keep", required_argument, NULL, 'k'},
		{"history-days", required_argument, NULL, 'd'},
		{"metrics-file", required_argument, NULL, 'm'},
		{"metrics-interval", required_argument, NULL, 'i'},
		{"metrics-peers", no_argument, NULL, 'N'},
		{"router-check-interval", required_argument, NULL, 'c'},
		{"router-ping-timeout", required_argument, NULL, 't'},
		{"avoid-asym-router-failure", required_argument, NULL, 'a'},
		{"private-socket", required_argument, NULL, 'P'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{0},
	};
	const struct backend_ops *engine = backend_engine(0); /* the default */
	struct lnetd d = {
		.engine = engine->name,
		.rtr_check_s = LNE_RTR_CHECK_S,
		.rtr_timeout_s = LNE_RTR_TIMEOUT_S,
		.avoid_asym = true,
	};
	unsigned long lnet_port = LNW_PORT_DEFAULT;
	char *end;
	unsigned int keep = STORE_KEEP_CHANGES, days = STORE_KEEP_DAYS;
	unsigned int metrics_interval = LNETD_METRICS_INTERVAL_DEFAULT;
	const char *metrics_file = NULL, *private_socket = NULL;
	bool metrics_peers = false;
	struct store_err serr = {""};
	char *path = NULL, *why = NULL;
	sigset_t mask;
	int c, rc, lock_fd;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'e':
			engine = backend_find(optarg);
			if (!engine) {
				char names[256] = "";
				const struct backend_ops *ops;
				size_t i, len = 0;

				for (i = 0; (ops = backend_engine(i)) && len < sizeof(names); i++)
					len += (size_t)snprintf(names + len, sizeof(names) - len,
								"%s%s", i ? ", " : "", ops->name);
				log_error("--engine: '%s' is no engine: say one of %s", optarg,
					  names);
				return 2;
			}
			d.engine = engine->name;
			break;
		case 's':
			d.state_dir = optarg;
			break;
		case 'p':
			errno = 0;
			lnet_port = strtoul(optarg, &end, 10);
			if (errno || *end || !*optarg || !lnet_port || lnet_port > 65535) {
				log_error("--lnet-port: '%s' is not a port number (1-65535)",
					  optarg);
				return 2;
			}
			break;
		case 'k':
		case 'd':
			if (parse_count(c == 'k' ? "--history-keep" : "--history-days", optarg,
					c == 'k' ? &keep : &days))
				return 2;
			break;
		case 'P':
			if (*optarg != '/' || strlen(optarg) >= SUN_PATH_SIZE) {
				log_error(
					"--private-socket: '%s' is not an absolute path of at most %zu "
					"bytes",
					optarg, SUN_PATH_SIZE - 1);
				return 2;
			}
			private_socket = optarg;
			break;
		case 'm':
			if (!*optarg) {
				log_error("--metrics-file: the path is empty");
				return 2;
			}
			metrics_file = optarg;
			break;
		case 'i':
			if (parse_count("--metrics-interval", optarg, &metrics_interval))
				return 2;
			if (!metrics_interval || metrics_interval > LNETD_METRICS_INTERVAL_MAX) {
				log_error("--metrics-interval: %u is outside 1..%u seconds",
					  metrics_interval, LNETD_METRICS_INTERVAL_MAX);
				return 2;
			}
			break;
		case 'N':
			metrics_peers = true;
			break;
		case 'c':
		case 't':
			if (parse_count(c == 'c' ? "--router-check-interval"
						 : "--router-ping-timeout",
					optarg, c == 'c' ? &d.rtr_check_s : &d.rtr_timeout_s))
				return 2;
			if (c == 't' && !d.rtr_timeout_s) {
				log_error(
					"--router-ping-timeout: 0 is outside 1..1000000000 seconds");
				return 2;
			}
			break;
		case 'a':
			if (strcmp(optarg, "0") && strcmp(optarg, "1")) {
				log_error("--avoid-asym-router-failure: '%s' is neither 0 nor 1",
					  optarg);
				return 2;
			}
			d.avoid_asym = *optarg == '1';
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("lnetd %s\n", PACKAGE_VERSION);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		log_error("unexpected argument '%s'", argv[optind]);
		return 2;
	}
	if (metrics_peers && !metrics_file) {
		log_error("--metrics-peers: there is no --metrics-file to put them in");
		return 2;
	}
	/*
	 * What lnetd makes is its own, whatever umask it was started with (the
	 * unit sets UMask=0077 too): the state directory 0700, the lock 0600, and
	 * the store 0600 (store_open() sees to that itself).  Exactly 0077: a
	 * stricter umask would make a directory lnetd cannot write.  Existing
	 * files and directories keep their modes.
	 */
	umask(0077);
	/* Never a silent fallback: the engine is chosen or refused. */
	if (!d.state_dir)
		d.state_dir = getenv("STATE_DIRECTORY") ?: "/var/lib/lnetd";
	if (mkdir(d.state_dir, 0700) && errno != EEXIST) {
		log_error("cannot create the state directory %s: %s", d.state_dir, strerror(errno));
		return 1;
	}
	/* Before anything else: a second lnetd here leaves everything as it was. */
	lock_fd = lock_state_dir(d.state_dir);
	if (lock_fd < 0)
		return 1;
	if (asprintf(&path, "%s/lnetd.db", d.state_dir) < 0) {
		close(lock_fd);
		return 1;
	}
	rc = store_open(path, &d.store, &serr);
	if (rc) {
		/* The store's sentences name the file. */
		if (serr.msg[0])
			log_error("%s", serr.msg);
		else
			log_error("%s: %s", path, strerror(-rc));
		free(path);
		close(lock_fd);
		return 1;
	}
	store_set_retention(d.store, keep, days);
	rc = store_generation(d.store, &d.generation);
	if (!rc)
		rc = lnetd_restore(&d, &d.mirror, &why);
	if (!rc)
		rc = lnetd_tbf_restore(&d, &why);
	if (rc) {
		log_error("cannot restore the configuration: %s", why ? why : strerror(-rc));
		goto out;
	}

	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	rc = sd_event_default(&d.event);
	if (rc >= 0)
		rc = sd_event_add_signal(d.event, NULL, SIGTERM, NULL, NULL);
	if (rc >= 0)
		rc = sd_event_add_signal(d.event, NULL, SIGINT, NULL, NULL);
	if (rc >= 0)
		rc = sd_event_add_signal(d.event, NULL, SIGHUP, on_hup, NULL);
	if (rc >= 0)
		rc = sd_event_set_watchdog(d.event, true);
	if (rc >= 0)
		rc = sd_bus_open_system(&d.bus);
	if (rc < 0) {
		log_error("cannot reach the system bus: %s", strerror(-rc));
		goto out;
	}
	/* NIs follow their interfaces: look now, and again on every change. */
	rc = netif_open(d.event, on_netif_change, &d, &d.netif);
	if (rc >= 0)
		rc = lnetd_nis_load(&d);
	if (rc < 0) {
		log_error("cannot watch the network interfaces: %s", strerror(-rc));
		goto out;
	}
	lnetd_nis_reconcile(&d);
	/* The engine gets what the mirror holds, now or when it appears; the userspace
	 * engine is a node itself: it sends, receives and answers pings. */
	d.lnet_port = (uint16_t)lnet_port;
	rc = backend_start(&d, engine);
	if (rc < 0) {
		log_error("cannot start the %s engine: %s", d.engine, strerror(-rc));
		goto out;
	}
	if (metrics_file) {
		rc = lnetd_metrics_start(&d, metrics_file, metrics_interval, metrics_peers);
		if (rc < 0)
			goto out;
	}
	/* Before the name: whoever sees lnetd on the bus finds its socket too.  Not fatal:
	 * lnetctl goes through the system bus without it. */
	rc = lnetd_bus_direct_start(&d, private_socket, &d.direct);
	if (rc < 0)
		log_warning("cannot listen on %s: %s; lnetctl will use the system bus",
			    private_socket, strerror(-rc));
	rc = sd_bus_attach_event(d.bus, d.event, SD_EVENT_PRIORITY_NORMAL);
	if (rc >= 0)
		rc = lnetd_bus_start(&d);
	if (rc < 0) {
		log_error("cannot serve %s on the bus: %s", LNETD_BUS_NAME, strerror(-rc));
		goto out;
	}
	log_info("serving %s (engine %s, state %s, generation %llu)", LNETD_BUS_NAME, d.engine,
		 path, (unsigned long long)d.generation);
	sd_notify(0, "READY=1");
	rc = sd_event_loop(d.event);
	sd_notify(0, "STOPPING=1");
	if (rc < 0)
		log_error("event loop: %s", strerror(-rc));
out:
	lnetd_metrics_stop(&d);
	lnetd_bus_direct_stop(d.direct);
	sd_bus_flush_close_unref(d.bus);
	backend_stop(&d); /* before lnetd_tbf_free_all: the engine may hold the policies */
	netif_close(d.netif);
	sd_event_unref(d.event);
	lnetd_nis_free(&d);
	lnetd_tbf_free_all(&d);
	lne_inst_free(d.mirror);
	store_close(d.store);
	free(why);
	free(path);
	/* Last: the directory is free once everything in it is closed. */
	close(lock_fd);
	/* The loop's exit code: 0 on a signal, EXIT_FAILURE when a change cannot be undone. */
	return rc < 0 ? 1 : rc;
}
