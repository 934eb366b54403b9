// SPDX-License-Identifier: GPL-2.0
/*
 * hostile - the calls an unprivileged local user can make to hurt lnetd.
 *
 *   hostile corrupt ROUNDS      the two dry-run Applies of issue 13 (a good
 *                               list, then one whose third operation is bogus)
 *   hostile peer-nids N [dry]   one Apply "add peer" carrying N NIDs
 *   hostile ops N               a dry-run Apply of N "add peer" operations
 *   hostile long-string LEN     AddRule with a src of LEN bytes
 *   hostile long-nid LEN        a dry-run Apply of a peer whose primary, then
 *                               whose NID, is LEN bytes
 *   hostile deep                a variant nested as deep as D-Bus allows
 *   hostile rules N             a dry-run Apply of N UDSP rules matching every peer
 *   hostile peers N             (as root) configure N peers and 100 rules
 *   hostile bench               the worst call an unprivileged caller can
 *                               build, timed against a trivial call
 *   hostile hold N              (with $HOSTILE_DIRECT) open N connections to
 *                               lnetd's socket, say how many lnetd kept, and
 *                               hold them until stdin closes
 *
 * Each call prints one line, "ok" or the error's name and message, and the
 * seconds it took; the exit status is 0 when every call got an answer
 * (lnetd's refusals included) and 1 when one did not (no reply: lnetd died
 * or hung past the timeout).  The bus is $DBUS_SYSTEM_BUS_ADDRESS, or with
 * $HOSTILE_DIRECT set, lnetd's own socket at that path (lnetd --private-socket),
 * peer to peer.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <time.h>
#include <unistd.h>

#include "lnetctl/direct.h"
#include "lnetd/lnetd.h"

#define DEST  LNETD_BUS_NAME
#define PATH  LNETD_BUS_PATH
#define IFACE LNETD_BUS_MANAGER

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static bool quiet; /* bench: only the figures */

/* Send @m; print the outcome.  1: answered, 0: no answer. */
static int call(sd_bus *bus, sd_bus_message *m, const char *what, double *secs)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	double t0 = now();
	int rc = sd_bus_call(bus, m, 60 * 1000000ULL, &e, &reply), ok;
	double dt = now() - t0;

	if (secs)
		*secs = dt;
	/* No reply at all means lnetd is gone or stuck: the one real failure. */
	ok = rc >= 0 || (e.name && strcmp(e.name, SD_BUS_ERROR_NO_REPLY) &&
			 strcmp(e.name, SD_BUS_ERROR_SERVICE_UNKNOWN) &&
			 strcmp(e.name, SD_BUS_ERROR_NAME_HAS_NO_OWNER) &&
			 strcmp(e.name, SD_BUS_ERROR_TIMEOUT));
	if (quiet && ok)
		;
	else if (rc >= 0)
		printf("%s: ok (%.3f s)\n", what, dt);
	else
		printf("%s: %s: %s (%.3f s)\n", what, e.name ? e.name : "-",
		       e.message ? e.message : strerror(-rc), dt);
	rc = ok;
	sd_bus_error_free(&e);
	sd_bus_message_unref(reply);
	return rc;
}

static int new_call(sd_bus *bus, const char *method, sd_bus_message **m)
{
	return sd_bus_message_new_method_call(bus, m, DEST, PATH, IFACE, method);
}

/* One "add peer" operation with @n NIDs on net @net. */
static int put_peer(sd_bus_message *m, unsigned int id, unsigned int n)
{
	char nid[64];
	unsigned int i;
	int rc = sd_bus_message_open_container(m, 'r', "ssa{sv}");

	if (rc >= 0)
		rc = sd_bus_message_append(m, "ss", "add", "peer");
	if (rc >= 0)
		rc = sd_bus_message_open_container(m, 'a', "{sv}");
	snprintf(nid, sizeof(nid), "10.%u.%u.%u@tcp", (id >> 16) & 255, (id >> 8) & 255, id & 255);
	if (rc >= 0)
		rc = sd_bus_message_append(m, "{sv}", "primary", "s", nid);
	if (rc >= 0)
		rc = sd_bus_message_open_container(m, 'e', "sv");
	if (rc >= 0)
		rc = sd_bus_message_append(m, "s", "nids");
	if (rc >= 0)
		rc = sd_bus_message_open_container(m, 'v', "as");
	if (rc >= 0)
		rc = sd_bus_message_open_container(m, 'a', "s");
	for (i = 0; rc >= 0 && i < n; i++) {
		snprintf(nid, sizeof(nid), "10.%u.%u.%u@o2ib%u", (id >> 8) & 255, id & 255, i & 255,
			 1 + (i >> 8) % 60000);
		rc = sd_bus_message_append(m, "s", nid);
	}
	for (i = 0; rc >= 0 && i < 5; i++)
		rc = sd_bus_message_close_container(m);
	return rc;
}

/* A dry-run (or not) Apply of @nops peers of @nids NIDs each. */
static int apply_peers(sd_bus *bus, unsigned int nops, unsigned int nids, int dry, const char *what,
		       double *secs)
{
	sd_bus_message *m = NULL;
	unsigned int i;
	int rc = new_call(bus, "Apply", &m);

	if (rc >= 0)
		rc = sd_bus_message_open_container(m, 'a', "(ssa{sv})");
	for (i = 0; rc >= 0 && i < nops; i++)
		rc = put_peer(m, i, nids);
	if (rc >= 0)
		rc = sd_bus_message_close_container(m);
	if (rc >= 0)
		rc = sd_bus_message_append(m, "b", dry);
	if (rc < 0) {
		fprintf(stderr, "hostile: cannot build the call: %s\n", strerror(-rc));
		sd_bus_message_unref(m);
		return 0;
	}
	rc = call(bus, m, what, secs);
	sd_bus_message_unref(m);
	return rc;
}

/* A dry-run (or not) Apply of @n UDSP rules, each matching every NID on tcp. */
static int apply_rules(sd_bus *bus, unsigned int n, int dry, const char *what, double *secs)
{
	sd_bus_message *m = NULL;
	char src[64];
	unsigned int i;
	int rc = new_call(bus, "Apply", &m);

	if (rc >= 0)
		rc = sd_bus_message_open_container(m, 'a', "(ssa{sv})");
	for (i = 0; rc >= 0 && i < n; i++) {
		snprintf(src, sizeof(src), "10.%u.*.*@tcp", i % 256);
		rc = sd_bus_message_append(m, "(ssa{sv})", "add", "udsp", 3, "src", "s", src, "dst",
					   "s", "*.*.*.*@tcp", "priority", "u", i % 7);
	}
	if (rc >= 0)
		rc = sd_bus_message_close_container(m);
	if (rc >= 0)
		rc = sd_bus_message_append(m, "b", dry);
	rc = rc >= 0 ? call(bus, m, what, secs) : 0;
	sd_bus_message_unref(m);
	return rc;
}

/* Issue 13's heap corruption: a good list, then one that ends in a bogus operation. */
static int corrupt(sd_bus *bus, int rounds)
{
	int r, ok = 1;

	for (r = 0; ok && r < rounds; r++) {
		sd_bus_message *m = NULL;
		sd_bus_error e = SD_BUS_ERROR_NULL;
		int rc;

		ok &= apply_peers(bus, 3, 1, 1, "three peers (dry run)", NULL);
		rc = sd_bus_call_method(bus, DEST, PATH, IFACE, "Apply", &e, &m, "a(ssa{sv})b", 3,
					"set", "global", 2, "name", "s", "discovery", "value", "u",
					1, "set", "global", 2, "name", "s", "discovery", "value",
					"u", 1, "bogus", "peer", 0, 1);
		printf("a bogus third operation: %s: %s\n", rc >= 0 ? "ok" : e.name,
		       rc >= 0 ? "" : e.message);
		ok &= rc >= 0 || (e.name && strcmp(e.name, SD_BUS_ERROR_NO_REPLY));
		sd_bus_error_free(&e);
		sd_bus_message_unref(m);
	}
	return ok;
}

static int long_string(sd_bus *bus, size_t len)
{
	sd_bus_message *m = NULL;
	char *s = malloc(len + 1);
	int rc;

	if (!s)
		return 0;
	memset(s, '1', len);
	s[len] = '\0';
	rc = new_call(bus, "AddRule", &m);
	if (rc >= 0)
		rc = sd_bus_message_append(m, "sssa{sv}", s, "", "", 0);
	free(s);
	rc = rc >= 0 ? call(bus, m, "AddRule with a long src", NULL) : 0;
	sd_bus_message_unref(m);
	return rc;
}

/*
 * A dry-run Apply of one peer with a string of @len bytes: as its primary
 * NID, then as one of its NIDs (Apply measures as it reads: no filter).
 */
static int long_nid(sd_bus *bus, size_t len)
{
	const char *what[] = {"Apply with a long primary", "Apply with a long NID"};
	char *s = malloc(len + 1);
	int rc = 0, ok = 1, i;

	if (!s)
		return 0;
	memset(s, '1', len);
	s[len] = '\0';
	for (i = 0; ok && i < 2; i++) {
		sd_bus_message *m = NULL;

		rc = new_call(bus, "Apply", &m);
		if (rc >= 0)
			rc = sd_bus_message_append(m, "a(ssa{sv})b", 1, "add", "peer", 2, "primary",
						   "s", i ? "10.0.0.1@tcp" : s, "nids", "as", 1,
						   i ? s : "10.0.0.2@tcp", 1);
		ok = rc >= 0 && call(bus, m, what[i], NULL);
		sd_bus_message_unref(m);
	}
	free(s);
	return ok;
}

/* Apply whose options hold a variant in a variant, as deep as sd-bus builds. */
static int deep(sd_bus *bus)
{
	sd_bus_message *m = NULL;
	int rc = new_call(bus, "ApplyWith", &m), i, depth = 0;

	if (rc >= 0)
		rc = sd_bus_message_append(m, "a(ssa{sv})", 0);
	if (rc >= 0)
		rc = sd_bus_message_open_container(m, 'a', "{sv}");
	if (rc >= 0)
		rc = sd_bus_message_open_container(m, 'e', "sv");
	if (rc >= 0)
		rc = sd_bus_message_append(m, "s", "dry_run");
	for (i = 0; rc >= 0 && i < 60; i++, depth++)
		rc = sd_bus_message_open_container(m, 'v', "v");
	if (rc < 0) /* as deep as the library lets us: close down from there */
		rc = 0;
	if (rc >= 0)
		rc = sd_bus_message_open_container(m, 'v', "b");
	if (rc >= 0)
		rc = sd_bus_message_append(m, "b", 1);
	if (rc >= 0)
		rc = sd_bus_message_close_container(m);
	for (i = 0; rc >= 0 && i < depth; i++)
		rc = sd_bus_message_close_container(m);
	if (rc >= 0)
		rc = sd_bus_message_close_container(m);
	if (rc >= 0)
		rc = sd_bus_message_close_container(m);
	rc = rc >= 0 ? call(bus, m, "a deep variant", NULL) : 0;
	sd_bus_message_unref(m);
	return rc;
}

/* lnetd's CPU time so far (user + system, seconds), or -1 without $LNETD_PID. */
static double lnetd_cpu(void)
{
	const char *pid = getenv("LNETD_PID");
	unsigned long long ut = 0, st = 0;
	char path[64], buf[1024], *p;
	FILE *f;
	size_t n;

	if (!pid)
		return -1;
	snprintf(path, sizeof(path), "/proc/%s/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* Fields 14 and 15, counted after the command's closing parenthesis. */
	p = strrchr(buf, ')');
	if (!p ||
	    sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
		return -1;
	return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * B1: the worst call an unprivileged caller can build (the most operations
 * a dry run may carry without authorisation, each a peer with the most
 * NIDs a peer operation may carry, within the per-call budget), median of
 * a few, against a trivial dry run (no operation).
 */
static int bench(sd_bus *bus)
{
	double t[6], trivial[21], worst;
	unsigned int nids = LNETD_PEER_NIDS_MAX, nops = LNETD_DRY_ITEMS_UNPRIV / (nids + 1);
	int i, ok = 1;

	quiet = true;
	for (i = 0; ok && i < 21; i++)
		ok &= apply_peers(bus, 0, 0, 1, "trivial", &trivial[i]);
	qsort(trivial, 21, sizeof(*trivial), cmp_d);
	/*
	 * The three shapes of the worst call, within what an unprivileged dry
	 * run may carry: the most small peers, the widest peers, and the most
	 * rules, each matching every peer NI there is.
	 */
	/*
	 * What the call cost lnetd is its CPU time (when $LNETD_PID says whose):
	 * the wall time a caller sees also counts other processes' turns on a
	 * busy machine, and polkit's answer, during which lnetd serves others.
	 */
	for (i = 0; ok && i < 6; i++) {
		double c0 = lnetd_cpu(), c1;

		if (i % 3 == 0)
			ok &= apply_peers(bus, LNETD_DRY_ITEMS_UNPRIV / 3, 2, 1, "most peers",
					  &t[i]);
		else if (i % 3 == 1)
			ok &= apply_peers(bus, nops, nids, 1, "widest peers", &t[i]);
		else
			ok &= apply_rules(bus, LNETD_DRY_ITEMS_UNPRIV, 1, "most rules", &t[i]);
		c1 = lnetd_cpu();
		if (c0 >= 0 && c1 >= 0)
			t[i] = c1 - c0;
	}
	if (!ok)
		return 0;
	qsort(t, 6, sizeof(*t), cmp_d);
	worst = t[5];
	printf("B1: the worst unprivileged call cost lnetd %.3f s%s (slowest of 6; target <= %.1f "
	       "s), %.0f times a trivial call (%.2f ms)\n",
	       worst, lnetd_cpu() >= 0 ? " of CPU" : "", LNETD_UNPRIV_HOLD_S, worst / trivial[10],
	       trivial[10] * 1e3);
	if (worst > LNETD_UNPRIV_HOLD_S) {
		printf("B1: FAIL\n");
		return 0;
	}
	printf("B1: ok\n");
	return 1;
}

/* Open @n connections to @path; print how many lnetd served (a call answered); hold them. */
static int hold(const char *path, int n)
{
	sd_bus **b = calloc((size_t)(n > 0 ? n : 1), sizeof(*b));
	int i, served = 0;
	char c;

	if (!b || !path)
		return 0;
	for (i = 0; i < n; i++) {
		sd_bus_message *reply = NULL;

		if (ctl_direct_open(path, &b[i]) < 0)
			continue;
		if (sd_bus_call_method(b[i], DEST, PATH, "org.freedesktop.DBus.Properties", "Get",
				       NULL, &reply, "ss", IFACE, "Version") >= 0)
			served++;
		sd_bus_message_unref(reply);
	}
	printf("served %d of %d\n", served, n);
	fflush(stdout);
	while (read(STDIN_FILENO, &c, 1) > 0)
		;
	for (i = 0; i < n; i++)
		sd_bus_flush_close_unref(b[i]);
	free(b);
	return 1;
}

int main(int argc, char **argv)
{
	const char *direct = getenv("HOSTILE_DIRECT");
	sd_bus *bus = NULL;
	int rc, ok;

	if (argc < 2) {
		fprintf(stderr,
			"usage: hostile corrupt ROUNDS | peer-nids N [dry] | ops N | "
			"rules N | peers N | long-string LEN | long-nid LEN | deep | bench | "
			"hold N\n");
		return 2;
	}
	if (!strcmp(argv[1], "hold") && argc == 3)
		return hold(direct, atoi(argv[2])) ? 0 : 1;
	rc = direct ? ctl_direct_open(direct, &bus) : sd_bus_open_system(&bus);
	if (rc < 0) {
		fprintf(stderr, "hostile: no bus: %s\n", strerror(-rc));
		return 1;
	}
	if (!strcmp(argv[1], "corrupt") && argc == 3)
		ok = corrupt(bus, atoi(argv[2]));
	else if (!strcmp(argv[1], "peer-nids") && argc >= 3)
		ok = apply_peers(bus, 1, (unsigned int)atoi(argv[2]),
				 argc > 3 && !strcmp(argv[3], "dry"), "a wide peer", NULL);
	else if (!strcmp(argv[1], "ops") && argc == 3)
		ok = apply_peers(bus, (unsigned int)atoi(argv[2]), 1, 1, "many operations", NULL);
	else if (!strcmp(argv[1], "long-string") && argc == 3)
		ok = long_string(bus, (size_t)atol(argv[2]));
	else if (!strcmp(argv[1], "long-nid") && argc == 3)
		ok = long_nid(bus, (size_t)atol(argv[2]));
	else if (!strcmp(argv[1], "deep") && argc == 2)
		ok = deep(bus);
	else if (!strcmp(argv[1], "rules") && argc == 3)
		ok = apply_rules(bus, (unsigned int)atoi(argv[2]), 1, "many rules", NULL);
	else if (!strcmp(argv[1], "peers") && argc == 3)
		ok = apply_peers(bus, (unsigned int)atoi(argv[2]), 1, 0, "configure peers", NULL) &&
		     apply_rules(bus, 100, 0, "configure rules", NULL);
	else if (!strcmp(argv[1], "bench") && argc == 2)
		ok = bench(bus);
	else {
		fprintf(stderr, "hostile: unknown request '%s'\n", argv[1]);
		return 2;
	}
	sd_bus_flush_close_unref(bus);
	return ok ? 0 : 1;
}
