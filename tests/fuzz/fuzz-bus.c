// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz-bus - lnetd's D-Bus methods, fed calls built from the fuzzer's bytes.
 *
 * The real handlers (lnetd/bus/bus.c, the bounds filter included) serve one end
 * of a socketpair, a direct sd-bus connection; this end sends the calls.
 * The daemon is whole but for its name and its kernel backend: the
 * userspace engine mirror, the store (SQLite in a temporary directory) and
 * the interfaces as rtnetlink shows them.
 *
 * Input: a sequence of calls.  For each, one byte picks the method; the
 * arguments follow its signature (or, now and then, a wrong one), each
 * value drawn from the bytes: strings from a dictionary of the words lnetd
 * knows (verbs, objects, field names, NIDs, nets, expressions, TBF rules)
 * or short printable runs, numbers whole, arrays with a count, a{sv}
 * entries with any key and any of the types a field can have.  Every call
 * must be answered; after each input what it committed is rolled back, so
 * inputs start from the same configuration.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>
#include <unistd.h>

#include "lnetd/change.h"
#include "lnetd/lnetd.h"
#include "lnetd/nrs.h"

struct in {
	const uint8_t *p;
	size_t n;
};

static uint8_t byte(struct in *in)
{
	uint8_t b = 0;

	if (in->n) {
		b = *in->p++;
		in->n--;
	}
	return b;
}

static uint32_t num(struct in *in)
{
	uint32_t v = byte(in);

	/* Small values most of the time: they are the ones with meaning. */
	if (v & 0x80)
		v = (uint32_t)byte(in) << 24 | (uint32_t)byte(in) << 16 | (uint32_t)byte(in) << 8 |
		    byte(in);
	return v;
}

static const char *const words[] = {
	"add",
	"del",
	"set",
	"net",
	"peer",
	"route",
	"global",
	"udsp",
	"tbf",
	"bogus",
	"",
	"interface",
	"pattern",
	"cpts",
	"peer_timeout",
	"peer_credits",
	"peer_buffer_credits",
	"credits",
	"primary",
	"nids",
	"multi_rail",
	"gateway",
	"hops",
	"priority",
	"sensitivity",
	"src",
	"dst",
	"rte",
	"idx",
	"all",
	"kind",
	"name",
	"value",
	"service",
	"queue",
	"type",
	"depth",
	"rules",
	"command",
	"dry_run",
	"exclusive",
	"ni",
	"peer_ni",
	"tcp",
	"tcp1",
	"o2ib",
	"o2ib3",
	"lo",
	"eth0",
	"ib0",
	"10.0.0.1@tcp",
	"10.0.0.2@tcp",
	"10.0.0.3@o2ib",
	"192.168.1.1@o2ib1",
	"0@lo",
	"42@gni",
	"2001:db8::1@tcp",
	"10.0.0.[1-9/2]@tcp",
	"10.0.*.*@tcp",
	"*@o2ib1",
	"*.*.*.*@tcp",
	"tcp*",
	"10.0.16.0/20@tcp",
	"10.0.0.*",
	"10.0.[0-3].*",
	"0-3",
	"[0,1]",
	"discovery",
	"max_interfaces",
	"retry_count",
	"numa_range",
	"health_sensitivity",
	"transaction_timeout",
	"drop_asym_route",
	"ost_io",
	"mds",
	"reg",
	"hp",
	"fifo",
	"nid",
	"jobid",
	"opcode",
	"uid",
	"gid",
	"nid+jobid",
	"start r1 nid={10.0.0.1@tcp} rate=100",
	"start r2 jobid={dd.*} rate=50 rank=r1",
	"stop r1",
	"change r2 rate=10",
	"start r3 opcode={ost_read} uid={500} rate=1000 realtime=1",
	"default",
	"10.0.0.1@tcp 10.0.0.2@tcp",
	"@tcp",
	"tcp0",
	"99999999999@tcp",
	"1.2.3.4.5@tcp",
};

#define NWORDS (sizeof(words) / sizeof(words[0]))

static const char *str(struct in *in, char *buf, size_t len)
{
	uint8_t b = byte(in);
	size_t i, n;

	if (b < 0xe0)
		return words[b % NWORDS];
	/* A short run of printable bytes (D-Bus strings are UTF-8). */
	n = byte(in) % (len - 1);
	for (i = 0; i < n; i++)
		buf[i] = (char)(0x20 + byte(in) % 0x5f);
	buf[n] = '\0';
	return buf;
}

static int value(sd_bus_message *m, const char **sig, struct in *in, unsigned int depth);

/* One complete type from *@sig: its text, for containers' contents. */
static size_t type_len(const char *sig)
{
	size_t n = 1, open = 0;

	if (*sig == 'a')
		return 1 + type_len(sig + 1);
	if (*sig != '(' && *sig != '{')
		return 1;
	do {
		if (sig[n - 1] == '(' || sig[n - 1] == '{')
			open++;
		else if (sig[n - 1] == ')' || sig[n - 1] == '}')
			open--;
	} while (open && sig[n++]);
	return n;
}

static int container(sd_bus_message *m, char type, const char *contents, struct in *in,
		     unsigned int depth)
{
	char inner[64];
	const char *s;
	unsigned int i, count;
	int rc;

	rc = sd_bus_message_open_container(m, type, contents);
	if (rc < 0)
		return rc;
	if (type == 'a') {
		count = byte(in) % 6;
		if (count == 5)
			count = byte(in); /* now and then a longer list */
		for (i = 0; rc >= 0 && i < count && in->n; i++) {
			s = contents;
			rc = value(m, &s, in, depth + 1);
		}
	} else {
		snprintf(inner, sizeof(inner), "%s", contents);
		s = inner;
		while (rc >= 0 && *s)
			rc = value(m, &s, in, depth + 1);
	}
	if (rc >= 0)
		rc = sd_bus_message_close_container(m);
	return rc;
}

/* The types a field of an a{sv} can have, right or wrong. */
static const char *const variant_types[] = {"s", "u", "b", "as", "x", "i", "t", "v", "a{sv}"};

static int value(sd_bus_message *m, const char **sig, struct in *in, unsigned int depth)
{
	char buf[64], contents[64];
	const char *t = *sig;
	size_t len = type_len(t);
	uint32_t u;
	int b, rc;

	*sig += len;
	if (depth > 8)
		return -E2BIG;
	switch (*t) {
	case 's':
		return sd_bus_message_append_basic(m, 's', str(in, buf, sizeof(buf)));
	case 'u':
		u = num(in);
		return sd_bus_message_append_basic(m, 'u', &u);
	case 'b':
		b = byte(in) & 1;
		return sd_bus_message_append_basic(m, 'b', &b);
	case 'x':
	case 'i':
	case 't': {
		uint64_t v = (uint64_t)num(in) << 32 | num(in);

		return sd_bus_message_append_basic(m, *t, &v);
	}
	case 'v': {
		const char *vt =
			variant_types[byte(in) % (sizeof(variant_types) / sizeof(variant_types[0]))];

		rc = sd_bus_message_open_container(m, 'v', vt);
		if (rc >= 0)
			rc = value(m, &vt, in, depth + 1);
		return rc < 0 ? rc : sd_bus_message_close_container(m);
	}
	case 'a':
		snprintf(contents, sizeof(contents), "%.*s", (int)(len - 1), t + 1);
		return container(m, 'a', contents, in, depth);
	case '(':
		snprintf(contents, sizeof(contents), "%.*s", (int)(len - 2), t + 1);
		return container(m, 'r', contents, in, depth);
	case '{':
		snprintf(contents, sizeof(contents), "%.*s", (int)(len - 2), t + 1);
		return container(m, 'e', contents, in, depth);
	}
	return -EINVAL;
}

/* Every method of org.lnetd1.Manager with its input signature. */
static const struct {
	const char *name, *sig;
} methods[] = {
	{"SetGlobal", "su"},
	{"ListGlobals", ""},
	{"AddNI", "ssa{sv}"},
	{"DeleteNI", "ss"},
	{"ListNIs", ""},
	{"AddPeer", "sasa{sv}"},
	{"DeletePeer", "sas"},
	{"ListPeers", ""},
	{"AddRoute", "ssa{sv}"},
	{"DeleteRoute", "ss"},
	{"ListRoutes", ""},
	{"AddRule", "sssa{sv}"},
	{"DeleteRule", "u"},
	{"DeleteRuleMatching", "sssa{sv}"},
	{"DeleteAllRules", ""},
	{"ListRules", ""},
	{"UdspInfo", "s"},
	{"Explain", "ss"},
	{"SetHealth", "ssu"},
	{"TbfSetPolicy", "ssa{sv}"},
	{"TbfCommand", "ss"},
	{"TbfDelete", "s"},
	{"ListTbf", ""},
	{"Apply", "a(ssa{sv})b"},
	{"ApplyWith", "a(ssa{sv})a{sv}"},
	{"Apply", "a(ssa{sv})b"}, /* twice: the method with the most to check */
	{"Export", ""},
	{"Status", ""},
	{"Rollback", "t"},
	{"History", "u"},
};

#define NMETHODS (sizeof(methods) / sizeof(methods[0]))

/* Wrong signatures, for the checks sd-bus and the handlers make on their own. */
static const char *const wrong_sigs[] = {"", "s", "u", "as", "a{sv}", "sss", "ssa{ss}", "a(ss)b"};

static struct lnetd d = {.engine = "userspace"};
static sd_bus *client;
static char state[256];

static int answered(sd_bus_message *reply, void *userdata, sd_bus_error *e)
{
	*(int *)userdata = 1;
	return 0;
}

/* Pump both ends until the call is answered; abort if it never is. */
static void call(sd_bus_message *m)
{
	sd_bus_slot *slot = NULL;
	int done = 0, i, rc;

	rc = sd_bus_call_async(client, &slot, m, answered, &done, 0);
	if (rc < 0)
		return; /* a message sd-bus itself will not send */
	for (i = 0; !done && i < 100000; i++) {
		int a = sd_bus_process(client, NULL), b = sd_bus_process(d.bus, NULL);

		if (a < 0 || b < 0) {
			fprintf(stderr, "fuzz-bus: a connection broke: %s\n",
				strerror(-(a < 0 ? a : b)));
			abort();
		}
		if (!a && !b && !done) {
			sd_bus_wait(d.bus, 1000);
			sd_bus_wait(client, 1000);
		}
	}
	if (!done) {
		fprintf(stderr, "fuzz-bus: a call was never answered\n");
		abort();
	}
	sd_bus_slot_unref(slot);
}

static void die(const char *what, int rc)
{
	fprintf(stderr, "fuzz-bus: %s: %s\n", what, strerror(rc < 0 ? -rc : rc));
	exit(1);
}

static void quiet(void *data)
{
	lnetd_nis_reconcile(data);
}

static void remove_state(void)
{
	char cmd[sizeof(state) + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", state);
	if (system(cmd))
		fprintf(stderr, "fuzz-bus: %s is left behind\n", state);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct store_err serr = {""};
	char path[sizeof(state) + 16], *why = NULL;
	sd_id128_t id;
	int fds[2], rc;

	/* tmpfs by default: every accepted change is a commit, and commits fsync. */
	snprintf(state, sizeof(state), "%s/fuzz-bus.XXXXXX",
		 getenv("FUZZ_STATE_DIR")
			 ?: access("/dev/shm", W_OK) ? "/tmp"
						     : "/dev/shm");
	if (!mkdtemp(state))
		die("mkdtemp", errno);
	snprintf(path, sizeof(path), "%s/lnetd.db", state);
	d.state_dir = state;
	rc = store_open(path, &d.store, &serr);
	if (rc)
		die(serr.msg, rc);
	rc = store_generation(d.store, &d.generation);
	if (!rc)
		rc = lnetd_restore(&d, &d.mirror, &why);
	if (!rc)
		rc = lnetd_tbf_restore(&d, &why);
	if (rc)
		die(why ? why : "restore", rc);
	rc = sd_event_new(&d.event);
	if (rc >= 0)
		rc = netif_open(d.event, quiet, &d, &d.netif);
	if (rc >= 0)
		rc = lnetd_nis_load(&d);
	if (rc < 0)
		die("netif", rc);
	lnetd_nis_reconcile(&d);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, fds))
		die("socketpair", errno);
	rc = sd_id128_randomize(&id);
	if (rc >= 0)
		rc = sd_bus_new(&d.bus);
	if (rc >= 0)
		rc = sd_bus_set_fd(d.bus, fds[0], fds[0]);
	if (rc >= 0)
		rc = sd_bus_set_server(d.bus, 1, id);
	if (rc >= 0)
		rc = sd_bus_set_anonymous(d.bus, 1);
	if (rc >= 0)
		rc = sd_bus_start(d.bus);
	if (rc >= 0)
		rc = sd_bus_new(&client);
	if (rc >= 0)
		rc = sd_bus_set_fd(client, fds[1], fds[1]);
	if (rc >= 0)
		rc = sd_bus_set_anonymous(client, 1);
	if (rc >= 0)
		rc = sd_bus_start(client);
	if (rc >= 0)
		rc = lnetd_bus_add(&d);
	if (rc < 0)
		die("the bus pair", rc);
	/* Gone when the process ends: nothing of the store is worth keeping. */
	atexit(remove_state);
	free(why);
	(void)argc;
	(void)argv;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct in in = {data, size};
	uint64_t start = d.generation;
	int calls;

	for (calls = 0; in.n && calls < 16; calls++) {
		uint8_t pick = byte(&in);
		unsigned int k = pick % NMETHODS;
		const char *sig = methods[k].sig;
		sd_bus_message *m = NULL;
		int rc;

		/* One call in sixteen gets a signature its method does not take. */
		if ((pick >> 4) == 0xf)
			sig = wrong_sigs[byte(&in) % (sizeof(wrong_sigs) / sizeof(wrong_sigs[0]))];
		rc = sd_bus_message_new_method_call(client, &m, NULL, LNETD_BUS_PATH,
						    LNETD_BUS_MANAGER, methods[k].name);
		while (rc >= 0 && *sig)
			rc = value(m, &sig, &in, 0);
		if (rc >= 0)
			call(m);
		sd_bus_message_unref(m);
	}
	/* Undo what the input committed: the next one starts where this one did. */
	if (d.generation != start) {
		struct lnetd_change_err err;
		struct st_who who = {.uid = 0, .command = "fuzz-bus"};

		if (lnetd_rollback(&d, &who, start, &err)) {
			fprintf(stderr, "fuzz-bus: cannot roll back to %llu: %s\n",
				(unsigned long long)start, err.msg);
			abort();
		}
	}
	return 0;
}
