// SPDX-License-Identifier: GPL-2.0
/* vm-util.c - the helpers every case file of genl-test uses (vm.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <inttypes.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/netlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>

#include "vm.h"

int vm_failures;

void tap(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s - ", ok ? "ok" : "not ok");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	if (!ok)
		vm_failures++;
}

void diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

/*
 * What a TBF policy guarantees whatever the load, for @n classes served
 * for @elapsed ns, each kept backlogged: none gets more than rate x elapsed
 * + depth; each gets at least its first bucket (none starves); with
 * @disorder, each class's requests left in the order they were queued.
 * How close each came to its rate is a figure of the machine, printed.
 */
void tbf_guarantees(const char *what, const char *const *name, const unsigned int *rate, int n,
		    unsigned long long elapsed, unsigned int depth, const unsigned long long *disp,
		    const unsigned long long *disorder, bool ran)
{
	int i;

	for (i = 0; i < n; i++) {
		unsigned long long bound = rate[i] * elapsed / 1000000000ull + depth;
		double want = rate[i] * (elapsed / 1e9);

		char order[64] = "";

		if (disorder)
			snprintf(order, sizeof(order), ", requests out of order: %llu",
				 disorder[i]);
		tap(ran && disp[i] <= bound && disp[i] >= depth && (!disorder || !disorder[i]),
		    "%s: %s at %u/s: %llu dispatched, at most rate x time + depth (%llu), at least "
		    "its first bucket (%u)%s",
		    what, name[i], rate[i], disp[i], bound, depth, order);
		diag("%s: %s: %.1f/s of %u/s (%+.2f%%), a figure of this machine's load", what,
		     name[i], elapsed ? disp[i] / (elapsed / 1e9) : 0, rate[i],
		     want > 0 ? (disp[i] - want) / want * 100 : 0);
	}
}

double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int in_child(int (*fn)(void *arg), void *arg)
{
	int status;
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		int rc = fn(arg);

		fflush(stdout);
		_exit(rc);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int drop_to_nobody(void)
{
	if (setgroups(0, NULL) < 0 || setgid(NOBODY) < 0 || setuid(NOBODY) < 0) {
		diag("dropping to uid %d: %s", NOBODY, strerror(errno));
		return -1;
	}
	return 0;
}

int new_netns(void)
{
	if (unshare(CLONE_NEWNET) < 0) {
		diag("unshare(CLONE_NEWNET): %s", strerror(errno));
		return -errno;
	}
	return 0;
}

struct lnetk *open_or_fail(const char *what)
{
	struct lnetk *lk;
	int rc = lnetk_open(&lk);

	if (rc) {
		tap(false, "%s: open a client (%s)", what, strerror(-rc));
		return NULL;
	}
	return lk;
}

const char *errname(int err)
{
	const char *s;

	if (!err)
		return "success";
	s = strerrorname_np(err < 0 ? -err : err);
	return s ? s : "E?";
}

void sb_printf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(sb->s ? sb->s + sb->len : NULL, sb->s ? sb->cap - sb->len : 0, fmt,
			      ap);
		va_end(ap);
		if (n < 0)
			return;
		if (sb->s && sb->len + (size_t)n < sb->cap) {
			sb->len += (size_t)n;
			return;
		}
		sb->cap = sb->cap ? sb->cap * 2 : 4096;
		while (sb->cap < sb->len + (size_t)n + 1)
			sb->cap *= 2;
		sb->s = realloc(sb->s, sb->cap);
		if (!sb->s)
			abort();
	}
}

void sb_free(struct strbuf *sb)
{
	free(sb->s);
	memset(sb, 0, sizeof(*sb));
}

/* --- the instance's state as text ------------------------------------------- */

/*
 * What was configured, and only that: the values the module changes by
 * itself (an NI's link state, health and credits, a peer NI's health and
 * credits) are left out.  Recovery pings and traffic move them at any
 * moment, so a comparison that held them judged the machine's load, not
 * the request (a fuzz run in CI saw a peer NI's health go from 140 to 139
 * around a refused message).  Changes to them are asserted where they are
 * made, with recovery held off.
 */

static int text_ni(const struct lnetk_ni *ni, void *arg)
{
	int k;

	sb_printf(arg, "ni %s has=%#x if=%s cpts=%#" PRIx64 " dev_cpt=%d tun", ni->nid, ni->has,
		  ni->ifname, ni->cpts, ni->dev_cpt);
	for (k = 0; k < LNE_TUN__COUNT; k++) /* every tunable, given or not */
		sb_printf(arg, "%c%u", k ? '/' : '=', ni->tun.v[k]);
	sb_printf(arg, " tun_has=%#x prio=%u/%d net_prio=%u/%d\n", ni->tun_has, ni->prio,
		  ni->prio_rule, ni->net_prio, ni->net_prio_rule);
	return 0;
}

static void text_prefs(struct strbuf *sb, const char *what, const struct lnetk_pref *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		sb_printf(sb, " %s=%s:%u:%u", what, p[i].nid, p[i].prio, p[i].rule);
}

static int text_peer(const struct lnetk_peer *peer, void *arg)
{
	struct strbuf *sb = arg;
	size_t i;

	sb_printf(sb, "peer %s mr=%d implicit=%d\n", peer->primary, peer->mr, peer->implicit);
	for (i = 0; i < peer->nnis; i++) {
		const struct lnetk_peer_ni *p = &peer->nis[i];

		sb_printf(sb, "  pni %s prio=%u/%d net_prio=%u/%d gw_routes=%u", p->nid, p->prio,
			  p->prio_rule, p->net_prio, p->net_prio_rule, p->gw_routes);
		text_prefs(sb, "src", p->pref_src, p->npref_src);
		text_prefs(sb, "gw", p->pref_gw, p->npref_gw);
		sb_printf(sb, "\n");
	}
	return 0;
}

static int text_route(const struct lnetk_route *r, void *arg)
{
	sb_printf(arg, "route %s %s hops=%u prio=%u sens=%u\n", r->net, r->gateway, r->hops,
		  r->priority, r->sensitivity);
	return 0;
}

static int text_rule(const struct lnetk_rule *r, void *arg)
{
	sb_printf(arg, "rule %" PRId64 " kind=%u src=%s dst=%s rte=%s prio=%u\n", r->idx, r->kind,
		  r->src ? r->src : "-", r->dst ? r->dst : "-", r->rte ? r->rte : "-", r->prio);
	return 0;
}

static int text_global(const struct lnetk_global *g, void *arg)
{
	sb_printf(arg, "global %s %u\n", g->name, g->value);
	return 0;
}

int state_text(struct lnetk *lk, struct strbuf *sb)
{
	int rc, tries;

	for (tries = 0; tries < 3; tries++) {
		sb->len = 0;
		sb_printf(sb, "%s", "");
		rc = lnetk_ni_dump(lk, text_ni, sb, NULL);
		if (!rc)
			rc = lnetk_peer_dump(lk, text_peer, sb, NULL);
		if (!rc)
			rc = lnetk_route_dump(lk, text_route, sb, NULL);
		if (!rc)
			rc = lnetk_rule_dump(lk, text_rule, sb, NULL);
		if (!rc)
			rc = lnetk_global_get(lk, text_global, sb, NULL);
		if (rc != -EAGAIN)
			return rc;
	}
	return rc;
}

void snapshot_take(struct lnetk *lk, struct snapshot *s)
{
	struct lnetk_info info;

	memset(s, 0, sizeof(*s));
	s->rc = lnetk_get_info(lk, &info, NULL);
	s->generation = info.generation;
	if (!s->rc)
		s->rc = state_text(lk, &s->text);
}

bool snapshot_same(const struct snapshot *a, const struct snapshot *b)
{
	return !a->rc && !b->rc && a->generation == b->generation && a->text.len == b->text.len &&
	       !memcmp(a->text.s, b->text.s, a->text.len);
}

void snapshot_free(struct snapshot *s)
{
	sb_free(&s->text);
}

/* --- raw requests ---------------------------------------------------------------- */

struct raw {
	struct nl_msg *msg;
	struct nlattr *nest[8];
	int depth;
	bool bad; /* a put failed: the message is not what the case meant */
};

struct raw *raw_new(uint8_t cmd)
{
	struct raw *r = calloc(1, sizeof(*r));

	r->msg = nlmsg_alloc_size(64 * 1024);
	/* The family id is filled in by raw_send, once the socket has resolved it. */
	if (!r->msg ||
	    !genlmsg_put(r->msg, NL_AUTO_PORT, NL_AUTO_SEQ, 0, 0, 0, cmd, LNETK_GENL_VERSION))
		r->bad = true;
	return r;
}

void raw_u8(struct raw *r, int type, uint8_t v)
{
	r->bad |= nla_put_u8(r->msg, type, v) < 0;
}

void raw_u16(struct raw *r, int type, uint16_t v)
{
	r->bad |= nla_put_u16(r->msg, type, v) < 0;
}

void raw_u32(struct raw *r, int type, uint32_t v)
{
	r->bad |= nla_put_u32(r->msg, type, v) < 0;
}

void raw_u64(struct raw *r, int type, uint64_t v)
{
	r->bad |= nla_put_u64(r->msg, type, v) < 0;
}

void raw_str(struct raw *r, int type, const char *s)
{
	r->bad |= nla_put_string(r->msg, type, s) < 0;
}

void raw_bin(struct raw *r, int type, const void *data, size_t len)
{
	r->bad |= nla_put(r->msg, type, (int)len, data) < 0;
}

void raw_nest(struct raw *r, int type)
{
	r->nest[r->depth] = nla_nest_start(r->msg, type);
	r->bad |= !r->nest[r->depth];
	r->depth++;
}

void raw_end(struct raw *r)
{
	r->depth--;
	/* keep_empty: an empty nest is a case of its own. */
	r->bad |= nla_nest_end_keep_empty(r->msg, r->nest[r->depth]) < 0;
}

struct raw_result {
	bool done;
	int err;
	char *ext;
	size_t extlen;
};

static int raw_on_error(struct sockaddr_nl *who, struct nlmsgerr *e, void *arg)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)((char *)e - NLMSG_HDRLEN);
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	struct raw_result *res = arg;
	size_t off = NLMSG_HDRLEN + sizeof(*e);

	res->done = true;
	res->err = e->error;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += NLMSG_ALIGN(e->msg.nlmsg_len) - sizeof(e->msg);
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS) || off >= nlh->nlmsg_len)
		return NL_STOP;
	if (nla_parse(tb, NLMSGERR_ATTR_MAX, (struct nlattr *)((char *)nlh + off),
		      (int)(nlh->nlmsg_len - off), NULL) < 0)
		return NL_STOP;
	if (tb[NLMSGERR_ATTR_MSG])
		snprintf(res->ext, res->extlen, "%.*s", nla_len(tb[NLMSGERR_ATTR_MSG]),
			 (const char *)nla_data(tb[NLMSGERR_ATTR_MSG]));
	return NL_STOP;
}

static int raw_on_ack(struct nl_msg *msg, void *arg)
{
	((struct raw_result *)arg)->done = true;
	return NL_STOP;
}

static int raw_on_valid(struct nl_msg *msg, void *arg)
{
	return NL_OK;
}

int raw_send(struct raw *r, char *ext, size_t extlen)
{
	struct raw_result res = {.ext = ext, .extlen = extlen};
	struct nl_sock *sk = nl_socket_alloc();
	struct nl_cb *cb = nl_cb_alloc(NL_CB_DEFAULT);
	int one = 1, family, rc = -EIO;

	ext[0] = '\0';
	if (r->bad || r->depth || !sk || !cb || genl_connect(sk) < 0)
		goto out;
	setsockopt(nl_socket_get_fd(sk), SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(nl_socket_get_fd(sk), SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	family = genl_ctrl_resolve(sk, LNETK_GENL_NAME);
	if (family < 0)
		goto out;
	nlmsg_hdr(r->msg)->nlmsg_type = (uint16_t)family;
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, raw_on_valid, &res);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, raw_on_ack, &res);
	nl_cb_err(cb, NL_CB_CUSTOM, raw_on_error, &res);
	if (nl_send_auto(sk, r->msg) < 0)
		goto out;
	while (!res.done)
		if (nl_recvmsgs(sk, cb) < 0 && !res.done)
			goto out;
	rc = res.err;
out:
	if (rc == -EIO && !res.done)
		diag("raw request: could not build, send or read it");
	nl_cb_put(cb);
	nl_socket_free(sk);
	nlmsg_free(r->msg);
	free(r);
	return rc;
}
