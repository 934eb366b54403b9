// SPDX-License-Identifier: GPL-2.0
/*
 * lustre-test.c - in the guest: the lnet.ko library against upstream
 * Lustre's lnet.ko (tests/vm/lustre-init boots one guest per version).
 *
 *   lustre-test VERSION MODE [PEERS]   every case, TAP lines on stdout
 *   lustre-test --absent               lu_open() before lnet.ko is loaded
 *
 * MODE "auto" lets the library choose netlink or ioctl as the module's op
 * list says; "ioctl" keeps it on /dev/lnet (upstream's fallback path).
 * The guest has dummy interfaces d0 (10.1.0.1/24), d1 (10.2.0.1/24) and d2
 * (10.1.0.2/24), two CPTs (lustre-init), and upstream's lnetctl as
 * upstream-lnetctl.  Every case checks the kernel log afterwards.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/wait.h>
#include <time.h>

#include "lustre-test.h"

static char *klog_seen;

void tap(struct lt *t, bool ok, const char *fmt, ...)
{
	static double last;
	struct timespec ts;
	double now;
	va_list ap;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = ts.tv_sec + ts.tv_nsec / 1e9;
	printf("%s - %s/%s: ", ok ? "ok" : "not ok", t->version, t->mode);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	/* where a guest's time goes, for the one step that takes long */
	if (last && now - last > 2)
		printf(" (%.1f s)", now - last);
	last = now;
	printf("\n");
	fflush(stdout);
	t->failed += !ok;
}

/* The kernel's log lines that say it went wrong, counted over the whole buffer. */
static int klog_bad(char **text)
{
	static const char *const bad[] = {"WARNING:", "BUG:",  "Oops",	     "general protection",
					  "UBSAN",    "KASAN", "refcount_t", "corruption"};
	int n = klogctl(10, NULL, 0), got, count = 0;
	char *buf, *line, *save = NULL;
	size_t i;

	if (n <= 0)
		return 0;
	buf = calloc(1, n + 1);
	if (!buf)
		return 0;
	got = klogctl(3, buf, n);
	if (got < 0)
		got = 0;
	buf[got] = '\0';
	if (text)
		*text = strdup(buf);
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
			if (strstr(line, bad[i])) {
				count++;
				break;
			}
	free(buf);
	return count;
}

void kcheck(struct lt *t, const char *after)
{
	static int seen;
	char *text = NULL;
	int n = klog_bad(&text);
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	tap(t, n == seen, "the kernel log has no warning after %s (at %.1f s)", after,
	    now.tv_sec + now.tv_nsec / 1e9);
	if (n != seen && text) {
		char *p = text;

		/* the new lines, roughly: the tail */
		if (strlen(p) > 3000)
			p += strlen(p) - 3000;
		printf("# %s\n", p);
	}
	seen = n;
	free(klog_seen);
	klog_seen = text;
}

int sh(char **out, const char *fmt, ...)
{
	char cmd[4096];
	char *buf = NULL;
	size_t len = 0, cap = 0;
	va_list ap;
	FILE *f;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	for (;;) {
		if (len + 4096 + 1 > cap) {
			char *m = realloc(buf, cap ? cap * 2 : 8192);

			if (!m)
				break;
			buf = m;
			cap = cap ? cap * 2 : 8192;
		}
		size_t n = fread(buf + len, 1, 4096, f);

		if (!n)
			break;
		len += n;
	}
	if (buf)
		buf[len] = '\0';
	st = pclose(f);
	if (out)
		*out = buf ? buf : strdup("");
	else
		free(buf);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int ulnetctl(char **out, const char *args)
{
	return sh(out, "upstream-lnetctl %s 2>&1", args);
}

/* A YAML line without indentation and sequence dashes, spaces collapsed. */
static void norm(const char *l, size_t n, char *o, size_t size)
{
	size_t i = 0, j = 0;

	for (;;) {
		while (i < n && (l[i] == ' ' || l[i] == '\t'))
			i++;
		if (i + 1 < n && l[i] == '-' && (l[i + 1] == ' ' || l[i + 1] == '\t'))
			i++;
		else
			break;
	}
	for (; i < n && j + 1 < size; i++) {
		if ((l[i] == ' ' || l[i] == '\t') && j && o[j - 1] == ' ')
			continue;
		o[j++] = l[i] == '\t' ? ' ' : l[i];
	}
	while (j && o[j - 1] == ' ')
		j--;
	o[j] = '\0';
}

static int yaml_scan(const char *yaml, const char *line, bool key_only)
{
	const char *p = yaml, *e;
	char buf[512];
	int n = 0;
	size_t kl = strlen(line);

	if (!yaml)
		return 0;
	while (*p) {
		e = strchr(p, '\n');
		if (!e)
			e = p + strlen(p);
		norm(p, e - p, buf, sizeof(buf));
		if (key_only ? (!strncmp(buf, line, kl) && buf[kl] == ':') : !strcmp(buf, line))
			n++;
		p = *e ? e + 1 : e;
	}
	return n;
}

bool yaml_has(const char *yaml, const char *line)
{
	return yaml_scan(yaml, line, false) > 0;
}

int yaml_count(const char *yaml, const char *key)
{
	return yaml_scan(yaml, key, true);
}

struct lne_nid nid(const char *s)
{
	struct lne_nid n;
	struct lne_err e;

	if (lne_nid_parse(s, &n, &e)) {
		fprintf(stderr, "bad NID in the test: %s\n", e.msg);
		exit(2);
	}
	return n;
}

bool ver_ge(const struct lt *t, int a, int b)
{
	u32 v = lu_info(t->lu)->vcode;

	return v >= LU_VCODE(a, b, 0);
}

bool said(const struct lne_err *e, const char *want)
{
	return strstr(e->msg, want) != NULL;
}

/* --- lifecycle ------------------------------------------------------------ */

void case_lifecycle(struct lt *t)
{
	const struct lu_info *in = lu_info(t->lu);
	struct lu_ni ni;
	struct lne_err e;
	int rc;

	/* 2.15 and 2.16 say "0.7.0": their release is all the probe can tell */
	tap(t,
	    !strncmp(t->version, in->release, strlen(in->release)) &&
		    (ver_ge(t, 2, 17) ? !strcmp(in->version, t->version)
				      : !strcmp(in->version, "0.7.0")),
	    "lnet.ko is release %s of %s (its module version '%s')", in->release, t->version,
	    in->version);
	tap(t, in->dev, "/dev/lnet is there");
	tap(t, in->genl == ver_ge(t, 2, 16),
	    "the genl family is there from 2.16 only (%s, ops %#x)", in->genl ? "there" : "absent",
	    in->genl_ops);
	tap(t,
	    !!(in->params & (1u << LU_P_MAX_RECOVERY_PING_INTERVAL)) == ver_ge(t, 2, 16) &&
		    (in->params & (1u << LU_P_RETRY_COUNT)),
	    "the module parameters are the version's (%#x)", in->params);
	tap(t, lu_running(t->lu) == 0, "LNet is down before configure");
	memset(&ni, 0, sizeof(ni));
	ni.nid = nid("10.1.0.1@tcp");
	snprintf(ni.ifname, sizeof(ni.ifname), "d0");
	lne_tunables_default(LNE_LND_TCP, &ni.tun);
	rc = lu_ni_add(t->lu, &ni, &e);
	tap(t, rc < 0 && e.msg[0], "an NI before configure is refused with a sentence: %d %s", rc,
	    e.msg);
	rc = lu_configure(t->lu, &e);
	tap(t, !rc, "configure: %s", rc ? e.msg : "ok");
	tap(t, lu_running(t->lu) == 1, "LNet is up after configure");
	rc = lu_configure(t->lu, &e);
	tap(t, !rc, "configure again is no error: %s", rc ? e.msg : "ok");
	kcheck(t, "configure");
}

/* --- NIs ---------------------------------------------------------------- */

static void ni_conf(struct lu_ni *ni, const char *n, const char *ifname, u64 cpts)
{
	memset(ni, 0, sizeof(*ni));
	ni->nid = nid(n);
	snprintf(ni->ifname, sizeof(ni->ifname), "%s", ifname);
	ni->cpts = cpts;
	lne_tunables_default(ni->nid.lnd, &ni->tun);
}

static const struct lu_ni *find_ni(const struct lu_ni *nis, size_t n, const char *s)
{
	struct lne_nid x = nid(s);
	size_t i;

	for (i = 0; i < n; i++)
		if (lne_nid_equal(&nis[i].nid, &x))
			return &nis[i];
	return NULL;
}

void case_nis(struct lt *t)
{
	struct lu_ni a, b, c, *nis = NULL;
	const struct lu_ni *x;
	struct lne_err e;
	char *y = NULL;
	size_t n = 0;
	int rc;

	ni_conf(&a, "10.1.0.1@tcp", "d0", 0x2);
	a.tun.peer_timeout = 100;
	a.tun.peer_credits = 16;
	a.tun.credits = 512;
	a.tun.peer_buffer_credits = 32;
	a.tun.conns_per_peer = 2;
	if (ver_ge(t, 2, 16))
		a.tun.tos = 32;
	rc = lu_ni_add(t->lu, &a, &e);
	tap(t, !rc, "add 10.1.0.1@tcp on d0, CPT 1, with tunables: %s", rc ? e.msg : "ok");
	ni_conf(&b, "10.1.0.2@tcp", "d2", 0);
	rc = lu_ni_add(t->lu, &b, &e);
	tap(t, !rc, "add a second NI on tcp (d2): %s", rc ? e.msg : "ok");
	ni_conf(&c, "10.2.0.1@tcp1", "d1", 0);
	c.tun.peer_credits = 4;
	rc = lu_ni_add(t->lu, &c, &e);
	tap(t, !rc, "add 10.2.0.1@tcp1 on d1: %s", rc ? e.msg : "ok");
	rc = lu_ni_add(t->lu, &c, &e);
	tap(t, rc == -EEXIST && said(&e, "refused to add the NI"),
	    "the same NI again: lnet.ko's -EEXIST with a sentence: %d %s", rc, e.msg);

	rc = lu_ni_list(t->lu, &nis, &n, &e);
	tap(t, !rc && n == 3, "list: 3 NIs besides 0@lo (%zu): %s", n, rc ? e.msg : "ok");
	x = find_ni(nis, n, "10.1.0.1@tcp");
	tap(t,
	    x && !strcmp(x->ifname, "d0") && x->cpts == 0x2 && x->tun.peer_timeout == 100 &&
		    x->tun.peer_credits == 16 && x->tun.credits == 512 &&
		    x->tun.peer_buffer_credits == 32 && x->tun.conns_per_peer == 2 &&
		    (!ver_ge(t, 2, 16) || x->tun.tos == 32) && x->up,
	    "10.1.0.1@tcp reads back with its interface, CPT and tunables");
	x = find_ni(nis, n, "10.1.0.2@tcp");
	tap(t, x && !strcmp(x->ifname, "d2") && x->cpts == 0 && x->tun.conns_per_peer == 1,
	    "10.1.0.2@tcp reads back on every CPT, conns_per_peer 0 sent as 1");
	x = find_ni(nis, n, "10.2.0.1@tcp1");
	tap(t, x && x->tun.peer_credits == 4 && x->tun.credits == 256,
	    "10.2.0.1@tcp1 reads back with peer_credits 4");
	free(nis);

	rc = ulnetctl(&y, "net show -v");
	tap(t,
	    !rc && yaml_count(y, "nid") == 4 && yaml_has(y, "nid: 10.1.0.1@tcp") &&
		    yaml_has(y, "nid: 10.1.0.2@tcp") && yaml_has(y, "nid: 10.2.0.1@tcp1") &&
		    yaml_has(y, "0: d0") && yaml_has(y, "0: d2") && yaml_has(y, "0: d1") &&
		    yaml_has(y, "peer_timeout: 100") && yaml_has(y, "peer_credits: 16") &&
		    yaml_has(y, "credits: 512") && yaml_has(y, "peer_buffer_credits: 32") &&
		    yaml_has(y, "conns_per_peer: 2") && yaml_has(y, "peer_credits: 4") &&
		    (!ver_ge(t, 2, 16) || yaml_has(y, "tos: 32")),
	    "upstream's net show -v has exactly these NIs and tunables");
	if (rc || yaml_count(y, "nid") != 4)
		printf("# %s\n", y);
	free(y);
	rc = ulnetctl(&y, "net show -v --net tcp");
	tap(t,
	    !rc && (yaml_has(y, "CPT: \"[1]\"") || yaml_has(y, "CPT: [1]") ||
		    yaml_has(y, "CPT: '[1]'")),
	    "upstream's net show has CPT 1 on tcp");
	if (rc ||
	    !(yaml_has(y, "CPT: \"[1]\"") || yaml_has(y, "CPT: [1]") || yaml_has(y, "CPT: '[1]'")))
		printf("# %s\n", y);
	free(y);

	/* what lnet.ko would change is refused before it sees it */
	ni_conf(&b, "10.1.0.9@tcp9", "d0", 0);
	b.tun.peer_credits = 600;
	b.tun.credits = 512;
	rc = lu_ni_add(t->lu, &b, &e);
	tap(t, rc == -EOPNOTSUPP && said(&e, "lowers peer_credits"),
	    "peer_credits above credits is refused with the limit: %s", e.msg);
	if (!ver_ge(t, 2, 16)) {
		ni_conf(&b, "10.1.0.9@tcp9", "d0", 0);
		b.tun.tos = 16;
		rc = lu_ni_add(t->lu, &b, &e);
		tap(t, rc == -EOPNOTSUPP && said(&e, "no tos"), "tos is refused before 2.16: %s",
		    e.msg);
	}
	kcheck(t, "NIs");
}

/* --- peers ---------------------------------------------------------------- */

struct pfind {
	struct lne_nid want;
	struct lu_peer got;
	bool found;
	unsigned int configured, total;
};

static int pfind_cb(const struct lu_peer *p, void *arg)
{
	struct pfind *f = arg;
	size_t i;

	f->total++;
	f->configured += p->configured;
	if (!lne_nid_equal(&p->primary, &f->want))
		return 0;
	f->found = true;
	f->got = *p;
	f->got.nids = calloc(p->n ? p->n : 1, sizeof(*p->nids));
	for (i = 0; i < p->n; i++)
		f->got.nids[i] = p->nids[i];
	return 0;
}

static bool peer_has(const struct lu_peer *p, const char *s)
{
	struct lne_nid x = nid(s);
	size_t i;

	for (i = 0; i < p->n; i++)
		if (lne_nid_equal(&p->nids[i], &x))
			return true;
	return false;
}

static bool peer_find(struct lt *t, const char *prim, struct pfind *f)
{
	struct lne_err e;

	memset(f, 0, sizeof(*f));
	f->want = nid(prim);
	return !lu_peer_each(t->lu, pfind_cb, f, &e) && f->found;
}

void case_peers(struct lt *t)
{
	struct lne_nid nids[3] = {nid("10.1.1.2@tcp"), nid("10.2.1.1@tcp1"), nid("10.1.1.3@tcp")};
	struct lne_nid p1 = nid("10.1.1.1@tcp"), p2 = nid("10.1.1.5@tcp");
	struct pfind f;
	struct lne_err e;
	char *y = NULL;
	int rc;

	rc = lu_peer_add(t->lu, &p1, true, true, nids, 3, &e);
	tap(t, !rc, "add a Multi-Rail peer with 3 more NIDs, its primary locked: %s",
	    rc ? e.msg : "ok");
	rc = lu_peer_add(t->lu, &p2, false, false, NULL, 0, &e);
	tap(t, !rc, "add a non-Multi-Rail peer: %s", rc ? e.msg : "ok");
	tap(t,
	    peer_find(t, "10.1.1.1@tcp", &f) && f.got.n == 4 && f.got.mr && f.got.lock_prim &&
		    f.got.configured && peer_has(&f.got, "10.2.1.1@tcp1") &&
		    peer_has(&f.got, "10.1.1.3@tcp"),
	    "it reads back configured, Multi-Rail, locked, with its 4 NIDs (%zu)", f.got.n);
	free(f.got.nids);
	tap(t,
	    peer_find(t, "10.1.1.5@tcp", &f) && f.got.n == 1 && !f.got.mr && !f.got.lock_prim &&
		    f.configured == 2 && f.total == 2,
	    "the non-Multi-Rail one too, and no other peer (%u of %u configured)", f.configured,
	    f.total);
	free(f.got.nids);
	rc = ulnetctl(&y, "peer show");
	tap(t,
	    !rc && yaml_count(y, "primary nid") == 2 && yaml_has(y, "primary nid: 10.1.1.1@tcp") &&
		    yaml_has(y, "primary nid: 10.1.1.5@tcp") && yaml_has(y, "nid: 10.1.1.2@tcp") &&
		    yaml_has(y, "nid: 10.2.1.1@tcp1") && yaml_count(y, "nid") == 5 &&
		    (yaml_has(y, "Multi-Rail: False") || yaml_has(y, "Multi-Rail: false")),
	    "upstream's peer show has exactly these 2 peers and 5 NIDs");
	if (rc || yaml_count(y, "primary nid") != 2 || yaml_count(y, "nid") != 5)
		printf("# %s\n", y);
	free(y);

	/* refusals: lnet.ko's errno and the library's sentence */
	rc = lu_peer_add(t->lu, &p2, true, false, &nids[2], 1, &e);
	tap(t, rc == -EPERM && said(&e, "Multi-Rail setting differs"),
	    "a NID on another peer's net with the other Multi-Rail flag is refused: %d %s", rc,
	    e.msg);
	if (!lu_uses_genl(t->lu, LU_CMD_PEERS)) {
		struct lne_nid six = nid("2001:db8::5@tcp");

		rc = lu_peer_add(t->lu, &six, true, false, NULL, 0, &e);
		tap(t, rc == -EOPNOTSUPP && said(&e, "takes only IPv4 NIDs"),
		    "an IPv6 peer over /dev/lnet is refused naming the limit: %s", e.msg);
	}
	/* delete one NID, then a whole locked peer */
	rc = lu_peer_del(t->lu, &p1, &nids[2], 1, &e);
	tap(t,
	    !rc && peer_find(t, "10.1.1.1@tcp", &f) && f.got.n == 3 &&
		    !peer_has(&f.got, "10.1.1.3@tcp"),
	    "delete one NID of the peer: %s", rc ? e.msg : "ok");
	free(f.got.nids);
	rc = lu_peer_del(t->lu, &p2, NULL, 0, &e);
	tap(t, !rc && !peer_find(t, "10.1.1.5@tcp", &f), "delete the non-Multi-Rail peer: %s",
	    rc ? e.msg : "ok");
	rc = lu_peer_add(t->lu, &p2, false, true, NULL, 0, &e);
	rc = rc ?: lu_peer_del(t->lu, &p2, NULL, 0, &e);
	tap(t, !rc && !peer_find(t, "10.1.1.5@tcp", &f),
	    "a peer with its primary locked goes as a whole: %s", rc ? e.msg : "ok");
	kcheck(t, "peers");
}

static int count_cb(const struct lu_peer *p, void *arg)
{
	unsigned int *n = arg;

	n[0] += p->configured;
	n[1] += p->configured ? p->n : 0;
	return 0;
}

void case_scale(struct lt *t)
{
	struct lne_nid *prims;
	struct timespec a, b;
	struct lne_err e;
	unsigned int i, got[2] = {0, 0};
	double add, list;
	int rc = 0;

	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; !rc && i < t->peers; i++) {
		char s[64], s2[64];
		struct lne_nid p, q;

		snprintf(s, sizeof(s), "10.3.%u.%u@tcp", i / 250, i % 250 + 1);
		snprintf(s2, sizeof(s2), "10.4.%u.%u@tcp", i / 250, i % 250 + 1);
		p = nid(s);
		q = nid(s2);
		rc = lu_peer_add(t->lu, &p, true, true, &q, 1, &e);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	add = (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
	tap(t, !rc, "add %u peers of 2 NIDs: %s (%.2f s)", t->peers, rc ? e.msg : "ok", add);
	clock_gettime(CLOCK_MONOTONIC, &a);
	rc = lu_peer_each(t->lu, count_cb, got, &e);
	clock_gettime(CLOCK_MONOTONIC, &b);
	list = (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
	/* besides them: the peer of case_peers with its 3 NIDs */
	tap(t, !rc && got[0] == t->peers + 1 && got[1] == 2 * t->peers + 3,
	    "list all %u configured peers and %u NIDs back (%u, %u) in %.2f s", t->peers + 1,
	    2 * t->peers + 3, got[0], got[1], list);

	/* the peers lnetd owns, by their primaries, 3 of them missing */
	prims = calloc(t->peers + 3, sizeof(*prims));
	for (i = 0; i < t->peers; i++) {
		char s[64];

		snprintf(s, sizeof(s), "10.3.%u.%u@tcp", i / 250, i % 250 + 1);
		prims[i] = nid(s);
	}
	prims[t->peers] = nid("10.9.0.1@tcp");
	prims[t->peers + 1] = prims[t->peers / 2];
	prims[t->peers / 2] = nid("10.9.0.2@tcp");
	prims[t->peers + 2] = nid("10.9.0.3@tcp");
	got[0] = got[1] = 0;
	clock_gettime(CLOCK_MONOTONIC, &a);
	rc = lu_peer_get_many(t->lu, prims, t->peers + 3, count_cb, got, &e);
	clock_gettime(CLOCK_MONOTONIC, &b);
	list = (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
	tap(t, !rc && got[0] == t->peers && got[1] == 2 * t->peers,
	    "get the %u peers by primary NID, 3 missing ones left out (%u, %u), in %.2f s",
	    t->peers, got[0], got[1], list);
	free(prims);

	/* and as the engine's view: every configured peer */
	{
		struct lne_inst *ln = lne_inst_new();
		struct lne_cursor c = {0};
		struct lne_peer *lp;
		unsigned int np = 0, nn = 0;

		clock_gettime(CLOCK_MONOTONIC, &a);
		rc = lu_read(t->lu, ln, &e);
		clock_gettime(CLOCK_MONOTONIC, &b);
		while (!rc && (lp = lne_peer_next(ln, &c)))
			if (!lp->implicit) {
				np++;
				nn += lp->npni;
			}
		tap(t, !rc && np == t->peers + 1 && nn == 2 * t->peers + 3,
		    "lu_read holds all %u peers and %u NIDs (%u, %u) in %.2f s: %s", t->peers + 1,
		    2 * t->peers + 3, np, nn, (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9,
		    rc ? e.msg : "ok");
		lne_inst_free(ln);
	}
	kcheck(t, "the peers at scale");
}

/* --- held: unconfigure while something holds LNet --------------------------- */

void case_busy(struct lt *t)
{
	struct lne_err e;
	int rc;

	if (sh(NULL, "modprobe lnet_selftest")) {
		tap(t, false, "lnet_selftest loads (it holds LNet)");
		return;
	}
	rc = lu_unconfigure(t->lu, &e);
	tap(t, rc == -EBUSY && said(&e, "Lustre holds it") && lu_running(t->lu) == 1,
	    "unconfigure while held: -EBUSY with a sentence, LNet stays up: %d %s", rc, e.msg);
	sh(NULL, "rmmod lnet_selftest");
	rc = lu_unconfigure(t->lu, &e);
	tap(t, !rc && lu_running(t->lu) == 0, "unconfigure once released: %s", rc ? e.msg : "ok");
	kcheck(t, "unconfigure");
}

int main(int argc, char **argv)
{
	struct lt t = {.mode = "auto", .peers = 1000};
	struct lne_err e;
	int rc;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 2 && !strcmp(argv[1], "--absent")) {
		struct lu *lu;

		t.version = "none";
		rc = lu_open(&lu, NULL, &e);
		tap(&t, rc == -ENOENT && !strcmp(e.msg, "lnet.ko is not loaded"),
		    "lu_open without lnet.ko: -ENOENT, \"%s\"", e.msg);
		return t.failed ? 1 : 0;
	}
	if (argc < 3)
		return 2;
	t.version = argv[1];
	t.mode = argv[2];
	if (argc > 3)
		t.peers = strtoul(argv[3], NULL, 10);
	rc = lu_open(&t.lu, NULL, &e);
	tap(&t, !rc, "lu_open: %s", rc ? e.msg : "ok");
	if (rc)
		return 1;
	lu_set_ioctl_only(t.lu, !strcmp(t.mode, "ioctl"));
	kcheck(&t, "loading lnet.ko");
	case_lifecycle(&t);
	case_nis(&t);
	case_peers(&t);
	case_routes(&t);
	case_udsp(&t);
	case_globals(&t);
	case_misc(&t);
	case_read(&t);
	case_ipv6(&t);
	case_scale(&t);
	case_busy(&t);
	case_writer(&t);
	lu_close(t.lu);
	return t.failed ? 1 : 0;
}
