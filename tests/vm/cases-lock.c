// SPDX-License-Identifier: GPL-2.0
/*
 * cases-lock.c - selection under the instance's reader lock (instance.h).
 *
 * lock: an instance of 4 NIs and 30,000 peers.  Two processes select side
 * by side, 2,000 times each, towards a peer with two NIDs from two local
 * NIs: every selection succeeds, and round robin, moved by both at once,
 * still shares the four (NI, peer NI) pairs within a few per cent.  Then
 * a batch is built on a copy of the instance (the copy of 60,000 peer NIDs
 * and 500 rules): no selection may wait for the build, only for the swap.
 * The module (LNETK_DEBUG) holds a batch between its build and its swap
 * while its test_hold_batch parameter is set: selections made meanwhile
 * must all be answered, whatever the guest's load, and the batch then
 * completes.  How long selections took while an unheld batch was built is
 * a figure (a diagnostic), not a verdict.
 *
 * EXPLAIN answers what SELECT would, moving nothing: asked twice it says
 * the same, the SELECT after it takes what it said, and the EXPLAIN after
 * that has moved on with the round robin.  Anyone may ask it (SELECT
 * needs CAP_NET_ADMIN), and it takes no flags.
 *
 * Runs in a network namespace of its own.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vm.h"

#define NPEERS 30000
#define NRULES 500
#define ROUNDS 2000

static int fill(struct lnetk *lk)
{
	char a[LNETK_NID_MAX], b[LNETK_NID_MAX];
	const char *nids[2] = {a, b};
	struct lnetk_batch *batch;
	struct lnetk_err err;
	struct lnetk_ni ni;
	int rc, i;

	rc = lnetk_batch_new(lk, LNETK_F_REPLACE, &batch);
	for (i = 0; !rc && i < 4; i++) {
		memset(&ni, 0, sizeof(ni));
		snprintf(ni.nid, sizeof(ni.nid), "192.168.%d.1@tcp", i);
		rc = lnetk_batch_ni(batch, &ni);
	}
	for (i = 0; !rc && i < NPEERS; i++) {
		snprintf(a, sizeof(a), "10.1.%d.%d@tcp", i / 250, i % 250 + 1);
		snprintf(b, sizeof(b), "10.2.%d.%d@tcp", i / 250, i % 250 + 1);
		rc = lnetk_batch_peer(batch, a, true, nids, 2);
	}
	rc = rc ?: lnetk_batch_send(batch, NULL, &err);
	lnetk_batch_free(batch);
	return rc;
}

/* One selector: @n selections (0: until SIGTERM), each timed; results down @fd. */
struct sel_result {
	int done, failed;
	int by_ni[4];
	double slowest;
};

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static int selector(int fd, int n)
{
	struct lnetk_select_req req = {.dst = "10.1.0.1@tcp", .md_cpt = -1};
	struct sel_result res = {0};
	struct lnetk_selection sel;
	struct lnetk *lk;
	double t;
	int k;

	signal(SIGTERM, on_term);
	if (lnetk_open(&lk))
		return 1;
	while (!stop && (!n || res.done + res.failed < n)) {
		t = now();
		if (lnetk_select(lk, &req, &sel, NULL, NULL)) {
			res.failed++;
		} else {
			res.done++;
			k = sel.ni[8] - '0'; /* "192.168.K.1@tcp" */
			if (k >= 0 && k < 4)
				res.by_ni[k]++;
		}
		t = now() - t;
		if (t > res.slowest)
			res.slowest = t;
		if (res.done + res.failed == 1 && write(fd, "s", 1) != 1)
			return 1;
	}
	lnetk_close(lk);
	return write(fd, &res, sizeof(res)) == (ssize_t)sizeof(res) ? 0 : 1;
}

/* Start a selector; returns its pid and the read end of its pipe, after its first selection. */
static pid_t spawn_selector(int n, int *rfd)
{
	int fds[2];
	char c;
	pid_t pid;

	if (pipe(fds))
		return -1;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		_exit(selector(fds[1], n));
	}
	close(fds[1]);
	if (pid < 0 || read(fds[0], &c, 1) != 1) {
		close(fds[0]);
		return -1;
	}
	*rfd = fds[0];
	return pid;
}

static int reap(pid_t pid, int rfd, struct sel_result *res)
{
	ssize_t got = read(rfd, res, sizeof(*res));
	int status = 0;

	close(rfd);
	waitpid(pid, &status, 0);
	return got == (ssize_t)sizeof(*res) && WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -EIO;
}

static int rules_batch(struct lnetk *lk, int first, double *secs)
{
	char src[NRULES][64];
	struct lnetk_batch *batch;
	struct lnetk_rule r;
	struct lnetk_err err;
	double t0 = now();
	int rc, i;

	rc = lnetk_batch_new(lk, 0, &batch);
	for (i = 0; !rc && i < NRULES; i++) {
		memset(&r, 0, sizeof(r));
		snprintf(src[i], sizeof(src[i]), "10.%d.%d.[1-50]@tcp%d", 3 + (first + i) / 200,
			 (first + i) % 200, i % 9 + 1);
		r.src = src[i];
		r.prio = (uint32_t)(i % 7);
		r.idx = -1;
		rc = lnetk_batch_rule(batch, &r);
	}
	rc = rc ?: lnetk_batch_send(batch, NULL, &err);
	lnetk_batch_free(batch);
	*secs = now() - t0;
	return rc;
}

static int explain_unprivileged(void *arg)
{
	struct lnetk_select_req req = {.dst = "10.1.0.9@tcp", .md_cpt = -1};
	struct lnetk_selection sel;
	struct lnetk_err err;
	struct lnetk *lk;
	int rc, rs;

	if (drop_to_nobody() || lnetk_open(&lk)) {
		tap(false, "lock: become uid %d and open a client", NOBODY);
		return 1;
	}
	rc = lnetk_explain(lk, &req, &sel, NULL, &err);
	rs = lnetk_select(lk, &req, &sel, NULL, &err);
	tap(!rc && rs == -EPERM,
	    "lock: an unprivileged caller may EXPLAIN (%s) but not SELECT (%s)", errname(rc),
	    errname(rs));
	lnetk_close(lk);
	return vm_failures;
}

static bool same_sel(const struct lnetk_selection *a, const struct lnetk_selection *b)
{
	return !strcmp(a->ni, b->ni) && !strcmp(a->peer_ni, b->peer_ni);
}

/* EXPLAIN is SELECT's answer, moving nothing. */
static void explain_peek(struct lnetk *lk)
{
	struct lnetk_select_req req = {.dst = "10.1.0.7@tcp", .md_cpt = -1};
	struct lnetk_selection e1, e2, s1, e3;
	struct lnetk_entry ent[16];
	struct lnetk_explain ex = {.ent = ent, .cap = 16};
	struct lnetk_err err;
	char ext[256];
	struct raw *r;
	int rc;

	rc = lnetk_explain(lk, &req, &e1, &ex, &err) ?: lnetk_explain(lk, &req, &e2, NULL, &err)
	     ?: lnetk_select(lk, &req, &s1, NULL, &err) ?: lnetk_explain(lk, &req, &e3, NULL, &err);
	tap(!rc && ex.n >= 2 && same_sel(&e1, &e2) && same_sel(&e1, &s1) && !same_sel(&s1, &e3),
	    "lock: EXPLAIN says %s -> %s twice (%zu reasons), SELECT then takes it, and EXPLAIN "
	    "moves on to %s -> %s (%s)",
	    e1.ni, e1.peer_ni, ex.n, e3.ni, e3.peer_ni, errname(rc));
	if (in_child(explain_unprivileged, NULL))
		vm_failures++;
	r = raw_new(LNETK_CMD_EXPLAIN);
	raw_u32(r, LNETK_A_FLAGS, LNETK_F_EXPLAIN);
	raw_nest(r, LNETK_A_SELECT);
	raw_str(r, LNETK_SEL_A_DST, "10.1.0.7@tcp");
	raw_end(r);
	rc = raw_send(r, ext, sizeof(ext));
	tap(rc == -EINVAL && strstr(ext, "does not take"),
	    "lock: EXPLAIN with LNETK_A_FLAGS is refused: %s, \"%s\"", errname(rc), ext);
}

#define HOLD	 "/sys/module/lnetk/parameters/test_hold_batch"
#define HELD	 "/sys/module/lnetk/parameters/test_batch_held"
#define HELD_SEL 100

static int write_param(const char *path, const char *v)
{
	FILE *f = fopen(path, "w");
	int rc = f && fputs(v, f) >= 0 ? 0 : -EIO;

	if (f && fclose(f))
		rc = -EIO;
	return rc;
}

static bool batch_held(void)
{
	FILE *f = fopen(HELD, "r");
	int c = f ? fgetc(f) : EOF;

	if (f)
		fclose(f);
	return c == 'Y';
}

static int held_batch_child(void *arg)
{
	struct lnetk *lk;
	double t;
	int rc;

	(void)arg;
	if (lnetk_open(&lk))
		return 1;
	rc = rules_batch(lk, NRULES, &t);
	lnetk_close(lk);
	return rc ? 1 : 0;
}

/*
 * A batch held between its build and its swap (the module's test_hold_batch):
 * HELD_SEL selections (and an EXPLAIN) are answered while it waits, so none
 * waits for a build; then it is let go and completes.  No time is measured.
 */
static void held_batch(struct lnetk *lk)
{
	struct lnetk_select_req req = {.dst = "10.1.0.1@tcp", .md_cpt = -1};
	struct lnetk_selection sel;
	int rc, i, ok = 0, status = -1;
	bool held = false, still = false;
	double t0;
	pid_t pid;

	rc = write_param(HOLD, "1");
	if (rc) {
		tap(false, "lock: the module holds a batch before its swap (%s: %s)", HOLD,
		    errname(rc));
		return;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(held_batch_child(NULL));
	/* until the batch is built and held (the bound only turns a hang into a failure) */
	for (t0 = now(); pid > 0 && !(held = batch_held()) && now() - t0 < 300;)
		usleep(10000);
	for (i = 0; held && i < HELD_SEL; i++)
		ok += !lnetk_select(lk, &req, &sel, NULL, NULL);
	if (held)
		ok += !lnetk_explain(lk, &req, &sel, NULL, NULL);
	still = batch_held();
	write_param(HOLD, "0");
	if (pid > 0)
		waitpid(pid, &status, 0);
	tap(held && still && ok == HELD_SEL + 1,
	    "lock: while a batch is built and not yet swapped in, selections are answered (%d of "
	    "%d, the batch %s held meanwhile)",
	    ok, HELD_SEL + 1, held && still ? "still" : "not");
	tap(pid > 0 && WIFEXITED(status) && !WEXITSTATUS(status),
	    "lock: let go, the held batch of %d rules completes", NRULES);
}

void cases_lock(void)
{
	struct sel_result r[2];
	double t_batch = 0;
	struct lnetk *lk;
	pid_t pid[2];
	int fd[2], rc, i, sum[4] = {0, 0, 0, 0}, lo = ROUNDS, hi = 0;

	if (new_netns()) {
		tap(false, "lock: a network namespace of its own");
		return;
	}
	lk = open_or_fail("lock");
	if (!lk)
		return;
	rc = fill(lk);
	tap(!rc, "lock: 4 NIs and %d peers with 2 NIDs each (%s)", NPEERS, errname(rc));
	explain_peek(lk);

	/* Two selectors at once: the round robin they share stays fair. */
	pid[0] = spawn_selector(ROUNDS, &fd[0]);
	pid[1] = spawn_selector(ROUNDS, &fd[1]);
	rc = pid[0] < 0 || pid[1] < 0 ? -EIO : 0;
	rc = rc ?: reap(pid[0], fd[0], &r[0]);
	rc = rc ?: reap(pid[1], fd[1], &r[1]);
	for (i = 0; !rc && i < 4; i++) {
		sum[i] = r[0].by_ni[i] + r[1].by_ni[i];
		lo = sum[i] < lo ? sum[i] : lo;
		hi = sum[i] > hi ? sum[i] : hi;
	}
	/* Two local NIs toward this peer reach it: 192.168.0-3 are all on tcp. */
	tap(!rc && !r[0].failed && !r[1].failed && r[0].done + r[1].done == 2 * ROUNDS &&
		    hi - lo <= 2 * ROUNDS / 4 / 20,
	    "lock: two processes select side by side, %d times each: all succeed, and the NIs are "
	    "chosen %d, %d, %d and %d times (within 5%% of even)",
	    ROUNDS, sum[0], sum[1], sum[2], sum[3]);

	/* A batch built on a copy: selections go on while it is built. */
	pid[0] = spawn_selector(0, &fd[0]);
	rc = pid[0] < 0 ? -EIO : rules_batch(lk, 0, &t_batch);
	if (pid[0] > 0)
		kill(pid[0], SIGTERM);
	rc = rc ?: reap(pid[0], fd[0], &r[0]);
	diag("lock: batch of %d rules on a copy took %.3f s; %d selections meanwhile, the slowest "
	     "%.4f s (a figure of the guest's load)",
	     NRULES, t_batch, r[0].done, r[0].slowest);
	tap(!rc && !r[0].failed,
	    "lock: a batch of %d rules on a copy (%s), selections beside it "
	    "(%d, none failed)",
	    NRULES, errname(rc), r[0].done);
	held_batch(lk);
	lnetk_close(lk);
}
