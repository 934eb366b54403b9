// SPDX-License-Identifier: GPL-2.0
/*
 * genl-test.c - module-only tests of the "lnetk" generic netlink family,
 * run inside the VM against the real module (tests/vm/run.sh).
 *
 * Prints one TAP line per case, without numbers ("ok - ..."): the guest's
 * /init runs several groups and the host numbers the lines.  Diagnostics
 * are "# " lines.  Exit status 0 when every case passed.
 *
 *   genl-test basic         GET_INFO, BUMP, events, namespaces (this file)
 *   genl-test api           every command's happy path (cases-api.c)
 *   genl-test refuse        malformed input (cases-refuse.c)
 *   genl-test perm          an unprivileged caller (cases-perm.c)
 *   genl-test netns         independent instances, their lifetime (cases-perm.c)
 *   genl-test tbf           NRS TBF policies: set, cmd, del, get; refusals (cases-tbf.c)
 *   genl-test source KO     a request source module (KO) on the TBF API (cases-source.c)
 *   genl-test lock          selection under the reader lock, beside changes (cases-lock.c)
 *   genl-test scale         100,000 peer NIDs: dumps and batches (cases-scale.c)
 *   genl-test fuzz          hostile messages for every command (cases-fuzz.c)
 *   genl-test conformance FILE   replay a scenario file (scn-kernel.c)
 *   genl-test explain FILE  the same, explain compared with the engine's (cases-explain.c)
 *   genl-test populate      leave some state in this namespace
 *   genl-test hold          hold a namespace with state until killed
 *   genl-test resolve       only resolve the family (loads it on demand)
 *
 * The basic cases below talk raw libnl on purpose: they check the wire
 * (sizes, unknown attributes) under the client library the others use.
 * Cases that need another identity (an unprivileged uid, another network
 * namespace) run in a forked child that reports through its exit status,
 * so the parent's socket and namespace stay untouched.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <linux/netlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>

#include "kernel/uapi/lnetk.h"
#include "scn-kernel.h"
#include "tests/lib/scenario.h"
#include "vm.h"

/* A socket speaking the family, with extack and capped acks turned on. */
struct conn {
	struct nl_sock *sk;
	int family;
};

/* What one request brought back. */
struct result {
	bool done;
	int err;       /* 0 or the kernel's negative errno */
	char ext[256]; /* the kernel's extack message, "" if none */
	bool has_gen;
	uint64_t gen;	  /* LNETK_A_GENERATION */
	char version[64]; /* LNETK_A_VERSION */
	int cmd;	  /* genl command of the last message parsed */
};

static int conn_open(struct conn *c)
{
	int one = 1;
	int fd;

	c->sk = nl_socket_alloc();
	if (!c->sk)
		return -ENOMEM;
	if (genl_connect(c->sk) < 0)
		goto err;
	fd = nl_socket_get_fd(c->sk);
	if (setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one)) < 0 ||
	    setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one)) < 0)
		goto err;
	c->family = genl_ctrl_resolve(c->sk, LNETK_GENL_NAME);
	if (c->family < 0)
		goto err;
	return 0;
err:
	nl_socket_free(c->sk);
	c->sk = NULL;
	return -ENOENT;
}

static void conn_close(struct conn *c)
{
	nl_socket_free(c->sk);
	c->sk = NULL;
}

static int parse_attrs(struct nl_msg *msg, struct result *r)
{
	struct nlattr *tb[LNETK_A_MAX + 1];
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct genlmsghdr *gh = nlmsg_data(nlh);

	if (genlmsg_parse(nlh, 0, tb, LNETK_A_MAX, NULL) < 0)
		return NL_SKIP;
	r->cmd = gh->cmd;
	if (tb[LNETK_A_GENERATION] && nla_len(tb[LNETK_A_GENERATION]) == sizeof(uint64_t)) {
		r->has_gen = true;
		r->gen = nla_get_u64(tb[LNETK_A_GENERATION]);
	}
	if (tb[LNETK_A_VERSION])
		snprintf(r->version, sizeof(r->version), "%.*s", nla_len(tb[LNETK_A_VERSION]),
			 (const char *)nla_data(tb[LNETK_A_VERSION]));
	return NL_OK;
}

static int on_valid(struct nl_msg *msg, void *arg)
{
	return parse_attrs(msg, arg);
}

/* Notifications carry no sequence number to match. */
static int any_seq(struct nl_msg *msg, void *arg)
{
	return NL_OK;
}

static int on_ack(struct nl_msg *msg, void *arg)
{
	struct result *r = arg;

	r->done = true;
	return NL_STOP;
}

/* The extack TLVs follow the error and the (capped) echo of the request. */
static int on_error(struct sockaddr_nl *who, struct nlmsgerr *e, void *arg)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)((char *)e - NLMSG_HDRLEN);
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	struct result *r = arg;
	size_t off = sizeof(*e);
	char *end = (char *)nlh + nlh->nlmsg_len;

	r->done = true;
	r->err = e->error;
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return NL_STOP;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += NLMSG_ALIGN(e->msg.nlmsg_len) - sizeof(e->msg);
	if ((char *)e + off >= end)
		return NL_STOP;
	if (nla_parse(tb, NLMSGERR_ATTR_MAX, (struct nlattr *)((char *)e + off),
		      (int)(end - ((char *)e + off)), NULL) < 0)
		return NL_STOP;
	if (tb[NLMSGERR_ATTR_MSG])
		snprintf(r->ext, sizeof(r->ext), "%.*s", nla_len(tb[NLMSGERR_ATTR_MSG]),
			 (const char *)nla_data(tb[NLMSGERR_ATTR_MSG]));
	return NL_STOP;
}

enum count_form {
	COUNT_NONE,
	COUNT_U32,
	COUNT_U16,	   /* the wrong size */
	COUNT_AND_UNKNOWN, /* COUNT, and an attribute type the family does not know */
};

/* Send @cmd (with LNETK_A_COUNT in @form) and collect the reply or error. */
static int request(struct conn *c, uint8_t cmd, enum count_form form, uint32_t count,
		   struct result *r)
{
	struct nl_msg *msg;
	struct nl_cb *cb;
	int rc = -ENOMEM;

	memset(r, 0, sizeof(*r));
	msg = nlmsg_alloc();
	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!msg || !cb)
		goto out;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, c->family, 0, 0, cmd, LNETK_GENL_VERSION))
		goto out;
	if ((form == COUNT_U32 && nla_put_u32(msg, LNETK_A_COUNT, count) < 0) ||
	    (form == COUNT_U16 && nla_put_u16(msg, LNETK_A_COUNT, (uint16_t)count) < 0) ||
	    (form == COUNT_AND_UNKNOWN && (nla_put_u32(msg, LNETK_A_COUNT, count) < 0 ||
					   nla_put_u32(msg, LNETK_A_MAX + 1, count) < 0)))
		goto out;
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_valid, r);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, on_ack, r);
	nl_cb_err(cb, NL_CB_CUSTOM, on_error, r);
	rc = nl_send_auto(c->sk, msg);
	if (rc < 0) {
		rc = -EIO;
		goto out;
	}
	rc = 0;
	while (!r->done) {
		int n = nl_recvmsgs(c->sk, cb);

		if (n < 0 && !r->done) {
			diag("receiving: %s", nl_geterror(n));
			rc = -EIO;
			break;
		}
	}
out:
	nl_cb_put(cb);
	nlmsg_free(msg);
	return rc ? rc : r->err;
}

static int get_generation(struct conn *c, uint64_t *gen)
{
	struct result r;
	int rc = request(c, LNETK_CMD_GET_INFO, COUNT_NONE, 0, &r);

	if (rc)
		return rc;
	if (!r.has_gen)
		return -EBADMSG;
	*gen = r.gen;
	return 0;
}

/* A socket in the "events" group, read with a timeout. */
static struct nl_sock *events_open(void)
{
	struct nl_sock *sk = nl_socket_alloc();
	int grp;

	if (!sk)
		return NULL;
	if (genl_connect(sk) < 0)
		goto err;
	grp = genl_ctrl_resolve_grp(sk, LNETK_GENL_NAME, LNETK_MCGRP_EVENTS);
	if (grp < 0 || nl_socket_add_membership(sk, grp) < 0)
		goto err;
	return sk;
err:
	nl_socket_free(sk);
	return NULL;
}

/* 1 and @r filled when a notification came within @ms, 0 if none, <0 on error. */
static int events_read(struct nl_sock *sk, int ms, struct result *r)
{
	struct pollfd p = {.fd = nl_socket_get_fd(sk), .events = POLLIN};
	struct nl_cb *cb;
	int n;

	memset(r, 0, sizeof(*r));
	n = poll(&p, 1, ms);
	if (n <= 0)
		return n < 0 ? -errno : 0;
	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!cb)
		return -ENOMEM;
	nl_cb_set(cb, NL_CB_SEQ_CHECK, NL_CB_CUSTOM, any_seq, NULL);
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_valid, r);
	n = nl_recvmsgs(sk, cb);
	nl_cb_put(cb);
	if (n < 0) {
		diag("reading the events socket: %s", nl_geterror(n));
		return -EIO;
	}
	return 1;
}

static void read_sysfs_version(char *buf, size_t size)
{
	FILE *f = fopen("/sys/module/lnetk/version", "r");

	buf[0] = '\0';
	if (!f)
		return;
	if (fgets(buf, (int)size, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

static void case_get_info(struct conn *c)
{
	char want[64];
	struct result r;
	int rc = request(c, LNETK_CMD_GET_INFO, COUNT_NONE, 0, &r);

	read_sysfs_version(want, sizeof(want));
	diag("GET_INFO: rc %d, generation %" PRIu64 ", version \"%s\" (modinfo \"%s\")", rc, r.gen,
	     r.version, want);
	tap(rc == 0 && r.cmd == LNETK_CMD_GET_INFO && r.has_gen && r.version[0] &&
		    !strcmp(r.version, want),
	    "GET_INFO replies with a generation and the module's version");
}

static void case_bump(struct conn *c)
{
	struct nl_sock *ev = events_open();
	uint64_t before = 0, after = 0;
	struct result r = {0}, n = {0};
	int rc, got = 0;

	rc = get_generation(c, &before);
	if (!rc)
		rc = request(c, LNETK_CMD_BUMP, COUNT_U32, 5, &r);
	if (!rc)
		rc = get_generation(c, &after);
	if (ev)
		got = events_read(ev, 60000, &n);
	diag("BUMP 5: rc %d, %" PRIu64 " -> reply %" PRIu64 ", now %" PRIu64, rc, before, r.gen,
	     after);
	tap(rc == 0 && r.has_gen && r.gen == before + 5 && after == before + 5,
	    "BUMP COUNT=5 raises the generation by exactly 5");
	diag("events: socket %s, read %d, cmd %d, generation %" PRIu64, ev ? "open" : "failed", got,
	     n.cmd, n.gen);
	tap(ev && got == 1 && n.cmd == LNETK_CMD_BUMP && n.has_gen && n.gen == before + 5,
	    "the \"events\" group announces BUMP with the new generation");
	if (ev)
		nl_socket_free(ev);
}

static void refused(struct conn *c, uint8_t cmd, enum count_form form, uint32_t count,
		    const char *what)
{
	uint64_t before = 0, after = 0;
	struct result r;
	int rc;

	get_generation(c, &before);
	rc = request(c, cmd, form, count, &r);
	get_generation(c, &after);
	diag("%s: rc %d (%s), extack \"%s\", generation %" PRIu64 " -> %" PRIu64, what, rc,
	     strerror(-rc), r.ext, before, after);
	tap(rc < 0 && r.ext[0] && before == after,
	    "%s is refused with an errno and an extack message, generation unchanged", what);
}

static void case_refusals(struct conn *c)
{
	refused(c, LNETK_CMD_BUMP, COUNT_NONE, 0, "BUMP without COUNT");
	refused(c, LNETK_CMD_BUMP, COUNT_U32, 0, "BUMP with COUNT=0");
	refused(c, LNETK_CMD_BUMP, COUNT_U32, LNETK_BUMP_MAX + 1, "BUMP with COUNT=1001");
	refused(c, LNETK_CMD_BUMP, COUNT_U16, 5, "BUMP with a 2-byte COUNT");
	refused(c, LNETK_CMD_BUMP, COUNT_AND_UNKNOWN, 5, "BUMP with an unknown attribute");
	refused(c, LNETK_CMD_GET_INFO, COUNT_U32, 5, "GET_INFO with an attribute it does not take");
}

/* Bits of the unprivileged child's verdict. */
enum {
	UNPRIV_SETUP = 1,
	UNPRIV_READ = 2,
	UNPRIV_WRITE = 4,
};

static int unprivileged(void *arg)
{
	struct conn c;
	struct result r;
	uint64_t gen;
	int rc, bad = 0;

	if (drop_to_nobody() < 0 || conn_open(&c) < 0)
		return UNPRIV_SETUP;
	rc = get_generation(&c, &gen);
	diag("uid %d: GET_INFO rc %d", (int)getuid(), rc);
	if (rc)
		bad |= UNPRIV_READ;
	rc = request(&c, LNETK_CMD_BUMP, COUNT_U32, 1, &r);
	diag("uid %d: BUMP rc %d (%s)", (int)getuid(), rc, strerror(-rc));
	if (rc != -EPERM)
		bad |= UNPRIV_WRITE;
	conn_close(&c);
	return bad;
}

static void case_unprivileged(struct conn *c, struct nl_sock *ev)
{
	uint64_t before = 0, after = 0;
	struct result n = {0};
	int v, got;

	get_generation(c, &before);
	v = in_child(unprivileged, NULL);
	get_generation(c, &after);
	got = events_read(ev, 100, &n);
	tap(v >= 0 && !(v & (UNPRIV_SETUP | UNPRIV_READ)), "an unprivileged caller can GET_INFO");
	tap(v >= 0 && !(v & (UNPRIV_SETUP | UNPRIV_WRITE)) && before == after && got == 0,
	    "an unprivileged caller's BUMP is refused with EPERM and changes nothing");
}

/* A fresh namespace has a fresh instance: generation 0, then its own bumps. */
static int fresh_namespace(const char *what)
{
	uint64_t first = ~0ull, last = ~0ull;
	struct conn c;
	struct result r;
	int rc;

	if (conn_open(&c) < 0)
		return 1;
	rc = get_generation(&c, &first);
	if (!rc)
		rc = request(&c, LNETK_CMD_BUMP, COUNT_U32, 7, &r);
	if (!rc)
		rc = get_generation(&c, &last);
	conn_close(&c);
	diag("%s: rc %d, generation %" PRIu64 " -> %" PRIu64, what, rc, first, last);
	return rc || first != 0 || last != 7;
}

static int fresh_netns(void *arg)
{
	if (unshare(CLONE_NEWNET) < 0) {
		diag("unshare(CLONE_NEWNET): %s", strerror(errno));
		return 1;
	}
	return fresh_namespace("new netns");
}

/* GENL_UNS_ADMIN_PERM: nobody may change the instance of a netns it owns. */
static int new_userns_netns(void *arg)
{
	if (drop_to_nobody() < 0)
		return 1;
	if (unshare(CLONE_NEWUSER | CLONE_NEWNET) < 0) {
		diag("uid %d: unshare(CLONE_NEWUSER | CLONE_NEWNET): %s", NOBODY, strerror(errno));
		return 1;
	}
	return fresh_namespace("uid 65534, new userns and netns");
}

static void case_namespaces(struct conn *c, struct nl_sock *ev)
{
	uint64_t before = 0, after = 0;
	struct result n = {0};
	int v1, v2, got;

	get_generation(c, &before);
	v1 = in_child(fresh_netns, NULL);
	v2 = in_child(fresh_netns, NULL);
	get_generation(c, &after);
	got = events_read(ev, 100, &n);
	diag("init netns generation %" PRIu64 " -> %" PRIu64 ", events seen here %d", before, after,
	     got);
	tap(v1 == 0 && v2 == 0 && before == after,
	    "two new network namespaces have their own generations, from 0");
	tap(got == 0, "a change in another namespace is not announced in this one");

	v1 = in_child(new_userns_netns, NULL);
	get_generation(c, &after);
	tap(v1 == 0 && before == after,
	    "an unprivileged user may BUMP in a netns its own user namespace owns");
}

void cases_basic(void)
{
	struct nl_sock *ev;
	struct conn c;

	if (conn_open(&c) < 0) {
		tap(false, "resolve the generic netlink family \"%s\"", LNETK_GENL_NAME);
		return;
	}
	case_get_info(&c);
	case_bump(&c);
	case_refusals(&c);

	/* Listens across the cases below: none of them may announce here. */
	ev = events_open();
	if (!ev) {
		tap(false, "join the \"events\" group");
		conn_close(&c);
		return;
	}
	case_unprivileged(&c, ev);
	case_namespaces(&c, ev);
	nl_socket_free(ev);
	conn_close(&c);
}

/* Replay a scenario file through the module: it must give what the engine gives. */
void cases_conformance(const char *path)
{
	struct scn_kernel sk;
	struct scn_backend be;
	int checks = 0, failed;
	double t0 = now();

	scn_kernel_init(&sk, &be);
	failed = scn_run_file(path, &be, &checks);
	scn_kernel_fini(&sk);
	diag("conformance: %d checks, %d failed, %d scenarios, %.1f s", checks, failed,
	     sk.scenarios, now() - t0);
	tap(failed == 0 && checks > 20,
	    "the conformance scenarios replayed through netlink give the engine's selections");
}

/* Hold a namespace with state in it until killed: rmmod must cope. */
static int hold(void)
{
	struct lnetk *lk;
	int rc;

	if (new_netns() || lnetk_open(&lk))
		return 1;
	rc = populate(lk);
	printf("# hold: a namespace with state: %s\n", rc ? errname(rc) : "ready");
	fflush(stdout);
	if (rc)
		return 1;
	for (;;)
		pause();
}

static int count_cb(void *arg, const char *nid, bool local, const char *name, uint64_t value)
{
	(void)nid, (void)local, (void)name, (void)value;
	++*(unsigned long *)arg;
	return 0;
}

static int kv_cb(void *arg, const char *key, uint64_t value)
{
	(void)key, (void)value;
	++*(unsigned long *)arg;
	return 0;
}

static volatile sig_atomic_t reader_stop;

static void on_reader_stop(int sig)
{
	(void)sig;
	reader_stop = 1;
}

/*
 * A figure's load, not a case: as uid 65534, RATE rounds a second until
 * SIGTERM (or SECONDS), each what `lnetctl net show -v` has lnetd read from
 * the module: the counters and each NID's health, reads that take the data
 * path's lock (issue 35); with "nolock", as many reads that do not (the
 * instance's info and each NI), to tell the lock from the CPU the reads
 * take.  Prints its rounds, their rate and the CPU it used.
 */
static int reader(int rate, int secs, bool nolock, char **nids, int n)
{
	unsigned long rounds = 0, got = 0;
	double t0 = now(), next = t0, cpu;
	struct lnetk_info info;
	struct lnetk_ni ni;
	struct rusage ru;
	struct lnetk *lk;
	uint32_t health;
	bool local;
	int i;

	signal(SIGTERM, on_reader_stop);
	if (rate <= 0 || drop_to_nobody() || lnetk_open(&lk))
		return 1;
	while (!reader_stop && now() - t0 < secs) {
		if (nolock)
			got += !lnetk_get_info(lk, &info, NULL);
		else
			lnetk_counters(lk, count_cb, &got, NULL, NULL);
		for (i = 0; i < n; i++)
			if (nolock)
				got += !lnetk_ni_get(lk, nids[i], &ni, NULL);
			else
				lnetk_health_get(lk, nids[i], &local, &health, kv_cb, &got, NULL);
		rounds++;
		next += 1.0 / rate;
		if (next > now())
			usleep((useconds_t)((next - now()) * 1e6));
	}
	getrusage(RUSAGE_SELF, &ru);
	cpu = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
	      ru.ru_stime.tv_usec / 1e6;
	printf("reader%s: %lu rounds in %.1f s (%.0f/s, %lu values), %.2f s on CPU\n",
	       nolock ? " (no lock)" : "", rounds, now() - t0, rounds / (now() - t0), got, cpu);
	lnetk_close(lk);
	return 0;
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "basic";
	struct conn c;

	setvbuf(stderr, NULL, _IONBF, 0);
	if (!strcmp(what, "resolve")) {
		if (conn_open(&c) < 0)
			return 1;
		conn_close(&c);
		return 0;
	}
	if (!strcmp(what, "basic"))
		cases_basic();
	else if (!strcmp(what, "api"))
		cases_api();
	else if (!strcmp(what, "refuse"))
		cases_refuse();
	else if (!strcmp(what, "perm"))
		cases_perm();
	else if (!strcmp(what, "netns"))
		cases_netns();
	else if (!strcmp(what, "tbf"))
		cases_tbf();
	else if (!strcmp(what, "lock"))
		cases_lock();
	else if (!strcmp(what, "source") && argc > 2)
		cases_source(argv[2]);
	else if (!strcmp(what, "scale"))
		cases_scale();
	else if (!strcmp(what, "fuzz"))
		cases_fuzz();
	else if (!strcmp(what, "conformance") && argc > 2)
		cases_conformance(argv[2]);
	else if (!strcmp(what, "explain") && argc > 2)
		cases_explain(argv[2]);
	else if (!strcmp(what, "hold"))
		return hold();
	else if (!strcmp(what, "reader") && argc > 4)
		return reader(atoi(argv[2]), atoi(argv[3]), !strcmp(argv[4], "nolock"), argv + 5,
			      argc - 5);
	else if (!strcmp(what, "populate")) {
		struct lnetk *lk;
		int rc = lnetk_open(&lk);

		rc = rc ? rc : populate(lk);
		tap(rc == 0, "leave NIs, peers, a route and rules in the init namespace (%s)",
		    errname(rc));
		lnetk_close(lk);
	} else {
		fprintf(stderr,
			"usage: genl-test [basic|api|refuse|perm|netns|tbf|source KO|lock|scale|fuzz|hold|populate|"
			"resolve|conformance FILE|explain FILE]\n");
		return 2;
	}
	return vm_failures ? 1 : 0;
}
