// SPDX-License-Identifier: GPL-2.0
/*
 * lnetd-test.c - lnetd with the kernel engine against the real module, in
 * the VM (tests/vm/run.sh puts lnetd, lnetctl, dbus-daemon and this in the
 * initramfs; tests/vm/init runs "lnetd-test KO").
 *
 * It starts a private dbus-daemon and lnetd (--engine=kernel), configures
 * LNet through lnetctl (busctl where lnetctl was not built), and checks
 * the module against lnetd: the module's dumps and lnetd's List* calls are
 * both turned into the same sorted text (health aside: it is running
 * state), which must be identical.  Then it works the module behind
 * lnetd's back (direct lnetk-client calls, rmmod and insmod, kill -9 of
 * lnetd) and checks that lnetd puts it right, and restores the big
 * configuration (64 NIs, 50,000 peers x 2 NIDs, 1,000 rules) at lnetd's
 * start, with the time it takes and its ratio to one request per object
 * as "# bench:" lines (never asserted).
 *
 * TAP lines without numbers, as genl-test prints them; exit status 0 when
 * every case passed.
 *
 * This file runs the processes (dbus-daemon, lnetd) and the cases in
 * order; lnetd-text.c compares the two sides, lnetd-cases.c and
 * lnetd-cases-scale.c hold the cases.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <systemd/sd-bus.h>

#include "lnetd-test.h"

/* Where things are: in the guest, or on the host for "fill". */
struct paths P = {"/bin/lnetd",	    "/bin/dbus-daemon", "/etc/lnetd-vm/bus.conf",
		  "/tmp/lnetd-bus", "/tmp/lnetd.log",	"kernel"};

const char *ko;
sd_bus *bus;
pid_t lnetd_pid;
static pid_t bus_pid;
bool have_lnetctl;
/*
 * LNETD_VM_VALGRIND=1 (run.sh): lnetd runs under valgrind's memcheck, and
 * every lnetd stopped with SIGTERM must exit clean (no error, no definite
 * leak).  Everything is slower then: time limits stretch by @slow, and the
 * restore at scale is left out.
 */
bool valgrind;
double slow = 1;
static int vg_runs, vg_bad;

/* --- processes ------------------------------------------------------------------ */

int sh(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;
	int rc;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	fflush(stdout);
	rc = system(cmd);
	rc = rc < 0 ? 127 : WIFEXITED(rc) ? WEXITSTATUS(rc) : 128 + WTERMSIG(rc);
	if (rc)
		diag("'%s' exited with %d", cmd, rc);
	return rc;
}

/* The lines of lnetd's log (for diagnostics). */
static void log_tail(int lines)
{
	sh("tail -n %d %s | sed 's/^/# lnetd: /'", lines, P.log);
}

/* How many lines of lnetd's log contain @what. */
int log_count(const char *what)
{
	char line[1024];
	FILE *f = fopen(P.log, "r");
	int n = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		n += strstr(line, what) != NULL;
	fclose(f);
	return n;
}

/* The number after @key in the last line of lnetd's log holding it, or -1. */
double log_number(const char *key)
{
	char line[1024];
	FILE *f = fopen(P.log, "r");
	double v = -1;
	char *p;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if ((p = strstr(line, key)))
			v = strtod(p + strlen(key), NULL);
	fclose(f);
	return v;
}

pid_t spawn(const char *out, char *const argv[])
{
	pid_t pid;
	int fd;

	fflush(stdout);
	pid = fork();
	if (pid)
		return pid;
	fd = open(out, O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (fd >= 0) {
		dup2(fd, 1);
		dup2(fd, 2);
		close(fd);
	}
	execv(argv[0], argv);
	_exit(127);
}

static int start_bus(void)
{
	char conf[256], addr[256],
		*argv[] = {(char *)P.dbus, conf, addr, "--nofork", "--nopidfile", NULL};
	int i, rc = -1;

	snprintf(conf, sizeof(conf), "--config-file=%s", P.conf);
	snprintf(addr, sizeof(addr), "--address=unix:path=%s", P.sock);
	setenv("DBUS_SYSTEM_BUS_ADDRESS", addr + strlen("--address="), 1);
	bus_pid = spawn(P.log, argv);
	for (i = 0; i < WAIT_S * 50 && rc < 0; i++) {
		usleep(20000);
		rc = sd_bus_open_system(&bus);
	}
	if (rc < 0) {
		diag("cannot reach the private bus: %s", strerror(-rc));
		log_tail(10);
	}
	return rc;
}

static void stop_bus(void)
{
	sd_bus_flush_close_unref(bus);
	bus = NULL;
	kill(bus_pid, SIGTERM);
	waitpid(bus_pid, NULL, 0);
}

static bool lnetd_ready(void)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	int has = 0;

	if (sd_bus_call_method(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
			       "org.freedesktop.DBus", "NameHasOwner", &e, &reply, "s",
			       "org.lnetd1") >= 0)
		sd_bus_message_read(reply, "b", &has);
	sd_bus_error_free(&e);
	sd_bus_message_unref(reply);
	return has;
}

/* Start lnetd on @dir; the seconds until it owns its name, or < 0. */
double start_lnetd(const char *dir)
{
	char state[256], engine[64];
	char *argv[] = {(char *)P.lnetd, engine, state, NULL};
	char *vg[] = {"/bin/valgrind.bin",
		      "--leak-check=full",
		      "--errors-for-leak-kinds=definite",
		      "--error-exitcode=99",
		      "--log-fd=2",
		      (char *)P.lnetd,
		      engine,
		      state,
		      NULL};
	double t0 = now();
	int status;

	snprintf(state, sizeof(state), "--state-dir=%s", dir);
	snprintf(engine, sizeof(engine), "--engine=%s", P.engine);
	lnetd_pid = spawn(P.log, valgrind ? vg : argv);
	while (now() - t0 < WAIT_S * 5 * slow) {
		if (lnetd_ready())
			return now() - t0;
		if (waitpid(lnetd_pid, &status, WNOHANG) == lnetd_pid) {
			diag("lnetd exited (status %#x)", status);
			log_tail(20);
			lnetd_pid = 0;
			return -1;
		}
		usleep(10000);
	}
	diag("lnetd did not take its bus name in %.0f s", WAIT_S * 5 * slow);
	return -1;
}

void stop_lnetd(int sig)
{
	int status = 0;

	if (lnetd_pid <= 0)
		return;
	kill(lnetd_pid, sig);
	waitpid(lnetd_pid, &status, 0);
	lnetd_pid = 0;
	if (valgrind && sig == SIGTERM) {
		vg_runs++;
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			vg_bad++;
			diag("lnetd under valgrind exited with status %#x", status);
		}
	}
	/* Its name must be gone before the next one starts. */
	while (lnetd_ready())
		usleep(10000);
}

/*
 * On the host, before the boot: a store holding the big configuration,
 * made by the lnetd under test (userspace engine) from one Apply.
 */
static int fill(const char *work, const char *lnetd, const char *dbus)
{
	char conf[512], sock[512], log[512], state[512];
	struct restore *rs = restore_new();
	double t_start, t = -1;
	int rc;

	snprintf(conf, sizeof(conf), "%s/bus.conf", work);
	snprintf(sock, sizeof(sock), "%s/fill-bus", work);
	snprintf(log, sizeof(log), "%s/fill.log", work);
	snprintf(state, sizeof(state), "%s/lnetd-big", work);
	P.lnetd = lnetd;
	P.dbus = dbus;
	P.conf = conf;
	P.sock = sock;
	P.log = log;
	P.engine = "userspace";
	rc = start_bus();
	t_start = rc < 0 ? -1 : start_lnetd(state);
	rc = t_start < 0 ? -1 : apply_big(rs, &t);
	stop_lnetd(SIGTERM);
	if (bus)
		stop_bus();
	restore_free(rs);
	printf("# the big store filled in %.2f s by one Apply: %s\n", t, rc ? "FAILED" : "done");
	return rc ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct stat st;
	double t;

	if (argc == 5 && !strcmp(argv[1], "fill"))
		return fill(argv[2], argv[3], argv[4]);
	if (argc != 2) {
		fprintf(stderr, "usage: lnetd-test LNETK.KO | lnetd-test fill WORKDIR LNETD "
				"DBUS-DAEMON\n");
		return 2;
	}
	ko = argv[1];
	have_lnetctl = !stat("/bin/lnetctl", &st);
	valgrind = !access("/lnetd-valgrind", F_OK);
	slow = valgrind ? 30 : 1;
	if (access("/sys/module/lnetk", F_OK) && sh("insmod %s", ko))
		return 1;
	if (sh("modprobe dummy && for i in 0 1 2 3; do ip link add c$i type dummy && ip addr add "
	       "172.16.$i.1/24 dev c$i && ip link set c$i up || exit 1; done") ||
	    start_bus() < 0) {
		tap(false, "the guest has dummy interfaces and a private bus");
		return 1;
	}
	t = start_lnetd(SMALL_DIR);
	tap(t >= 0 && !module_pending((char[64]){0}, 64),
	    "lnetd --engine=kernel starts (%.2f s) and Status says the module holds its state", t);
	if (t < 0)
		return 1;
	case_configure();
	case_tbf();
	case_tbf_random();
	case_explain_module();
	case_change();
	case_drift();
	case_flood();
	case_refusal();
	case_restart();
	case_rmmod();
	case_set_health();
	case_ni_down_restart();
	case_scale();
	if (vm_failures)
		log_tail(60);
	stop_lnetd(SIGTERM);
	if (valgrind) {
		if (vg_bad)
			sh("grep -E '^==[0-9]+== ' %s | grep -v -E 'Copyright|Using Valgrind|Command:|"
			   "^==[0-9]+== $' | tail -n 80 | sed 's/^/# /'",
			   P.log);
		tap(vg_runs && !vg_bad,
		    "lnetd under valgrind: %d clean stops, none with an error or a definite leak",
		    vg_runs);
	}
	stop_bus();
	return vm_failures ? 1 : 0;
}
