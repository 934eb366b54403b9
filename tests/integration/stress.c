// SPDX-License-Identifier: GPL-2.0
/*
 * stress - many clients changing lnetd at once.
 *
 *   stress CLIENTS OPS
 *
 * Forks CLIENTS processes; each makes OPS calls on lnetd (on the bus in
 * DBUS_SYSTEM_BUS_ADDRESS): peers of its own added and deleted, UDSP rules
 * added at random places and deleted, a global set.  Some calls are refused
 * by design (a rule index another client just removed, a duplicate rule):
 * that is part of the test.  A call that changes nothing (a global set to
 * its value) is accepted without a new generation.  Prints how many distinct
 * generations the replies handed out, and the largest: each change lnetd
 * made must have been reported to exactly one caller, so both must equal
 * lnetd's generation afterwards.  Exit 0 unless a call failed in a way no
 * client should see (a transport error, a timeout).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <systemd/sd-bus.h>
#include <unistd.h>

#define DEST  "org.lnetd1"
#define PATH  "/org/lnetd1"
#define IFACE "org.lnetd1.Manager"

/* A call's outcome: 1 accepted, 0 refused by lnetd, -1 anything else. */
static int outcome(int rc, const sd_bus_error *e)
{
	if (rc >= 0)
		return 1;
	if (e->name && !strncmp(e->name, "org.lnetd1.Error.", 17))
		return 0;
	fprintf(stderr, "stress: %s: %s\n", e->name ? e->name : strerror(-rc),
		e->message ? e->message : "");
	return -1;
}

static int one_op(sd_bus *bus, int client, int i, unsigned int *seed, uint64_t *gen)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	char a[64], b[64];
	int rc;

	int op = rand_r(seed) % 5;

	switch (op) {
	case 0: /* a peer of this client's own */
		snprintf(a, sizeof(a), "10.%d.%d.%d@tcp", client, i / 250, i % 250);
		snprintf(b, sizeof(b), "10.%d.%d.%d@o2ib", client, i / 250, i % 250);
		rc = sd_bus_call_method(bus, DEST, PATH, IFACE, "AddPeer", &e, &reply, "sasa{sv}",
					a, 1, b, 1, "multi_rail", "b", 1);
		break;
	case 1: /* delete one of its earlier peers (may not exist: refused) */
		snprintf(a, sizeof(a), "10.%d.%d.%d@tcp", client, (i / 2) / 250, (i / 2) % 250);
		rc = sd_bus_call_method(bus, DEST, PATH, IFACE, "DeletePeer", &e, &reply, "sas", a,
					0);
		break;
	case 2: /* a rule somewhere in the list (duplicates are refused or update) */
		snprintf(a, sizeof(a), "10.%d.%d.[1-%d]@tcp", client, i % 7,
			 1 + rand_r(seed) % 200);
		rc = sd_bus_call_method(bus, DEST, PATH, IFACE, "AddRule", &e, &reply, "sssa{sv}",
					a, "", "", 2, "priority", "u", rand_r(seed) % 10, "idx",
					"u", rand_r(seed) % 50);
		break;
	case 3: /* delete a rule by idx (another client may have taken it: refused) */
		rc = sd_bus_call_method(bus, DEST, PATH, IFACE, "DeleteRule", &e, &reply, "u",
					rand_r(seed) % 40);
		break;
	default:
		rc = sd_bus_call_method(bus, DEST, PATH, IFACE, "SetGlobal", &e, &reply, "su",
					"numa_range", rand_r(seed) % 100);
		break;
	}
	rc = outcome(rc, &e);
	*gen = 0;
	/* Every change's reply ends with the generation it made. */
	if (rc == 1 && ((op == 2 && sd_bus_message_skip(reply, "ub") < 0) ||
			sd_bus_message_read(reply, "t", gen) < 0))
		rc = -1;
	sd_bus_error_free(&e);
	sd_bus_message_unref(reply);
	return rc;
}

static int client(int id, int ops, int out)
{
	unsigned int seed = (unsigned int)id * 7919u + 1;
	sd_bus *bus = NULL;
	uint64_t gen;
	int i, rc;

	if (sd_bus_open_system(&bus) < 0)
		return 1;
	/* A call waits behind every other client's: the bound only catches a hang. */
	sd_bus_set_method_call_timeout(bus, 300 * 1000000ULL);
	for (i = 0; i < ops; i++) {
		rc = one_op(bus, id, i, &seed, &gen);
		if (rc < 0)
			return 1;
		/* Pipe writes this small are atomic: no tearing between clients. */
		if (rc && write(out, &gen, sizeof(gen)) != sizeof(gen))
			return 1;
	}
	sd_bus_flush_close_unref(bus);
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	int clients, ops, i, fds[2], status, bad = 0;
	size_t n = 0, cap = 1024, distinct = 0;
	uint64_t *gens = malloc(cap * sizeof(*gens)), got;

	if (argc != 3 || (clients = atoi(argv[1])) <= 0 || (ops = atoi(argv[2])) <= 0) {
		fprintf(stderr, "usage: stress CLIENTS OPS\n");
		return 2;
	}
	if (pipe(fds))
		return 1;
	for (i = 0; i < clients; i++) {
		pid_t pid = fork();

		if (pid < 0)
			return 1;
		if (!pid) {
			close(fds[0]);
			_exit(client(i, ops, fds[1]));
		}
	}
	close(fds[1]);
	while (gens && read(fds[0], &got, sizeof(got)) == sizeof(got)) {
		if (n == cap)
			gens = realloc(gens, (cap *= 2) * sizeof(*gens));
		if (gens)
			gens[n++] = got;
	}
	while (wait(&status) > 0)
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			bad++;
	if (!gens)
		return 1;
	qsort(gens, n, sizeof(*gens), cmp_u64);
	for (i = 0; (size_t)i < n; i++)
		if (gens[i] && (!i || gens[i] != gens[i - 1]))
			distinct++;
	printf("%zu %llu %zu\n", distinct, n ? (unsigned long long)gens[n - 1] : 0ULL, n);
	free(gens);
	return bad ? 1 : 0;
}
