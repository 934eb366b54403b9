// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz-check.c - what genl-test fuzz judges the module's answers by: the
 * instance's state before and after, the kernel log, and each message
 * sent and its reply checked against what the generator put in it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "fuzz.h"

/* --- state and the kernel log --------------------------------------------------------- */

static int text_tbf(const struct lnetk_tbf *t, void *arg)
{
	struct strbuf *sb = arg;
	size_t q, r;

	sb_printf(sb, "tbf %s\n", t->service);
	for (q = 0; q < t->nqueues; q++) {
		const struct lnetk_tbf_qinfo *qi = &t->queues[q];

		sb_printf(sb, "  queue %u type=%s depth=%u\n", qi->queue, qi->type, qi->depth);
		for (r = 0; r < qi->nrules; r++)
			sb_printf(sb, "    rule %s rate=%u rt=%d: %s\n", qi->rules[r].name,
				  qi->rules[r].rate, qi->rules[r].realtime, qi->rules[r].text);
	}
	return 0;
}

void state_take(struct lnetk *lk, struct state *st)
{
	memset(st, 0, sizeof(*st));
	snapshot_take(lk, &st->snap);
	sb_printf(&st->tbf, "%s", "");
	st->rc = st->snap.rc ?: lnetk_tbf_dump(lk, text_tbf, &st->tbf, NULL);
}

bool state_same(const struct state *a, const struct state *b)
{
	return !a->rc && !b->rc && snapshot_same(&a->snap, &b->snap) && a->tbf.len == b->tbf.len &&
	       !memcmp(a->tbf.s, b->tbf.s, a->tbf.len);
}

void state_free(struct state *st)
{
	snapshot_free(&st->snap);
	sb_free(&st->tbf);
}

/* The first line where @a and @b differ, both versions: what a change touched. */
static void first_line_diff(const char *what, const struct strbuf *a, const struct strbuf *b)
{
	size_t i = 0, la, lb, start;

	while (i < a->len && i < b->len && a->s[i] == b->s[i])
		i++;
	if (i == a->len && i == b->len)
		return;
	start = i;
	while (start > 0 && a->s[start - 1] != '\n')
		start--;
	for (la = start; la < a->len && a->s[la] != '\n'; la++)
		;
	for (lb = start; lb < b->len && b->s[lb] != '\n'; lb++)
		;
	diag("%s before: %.*s", what, (int)(la - start), a->s + start);
	diag("%s after:  %.*s", what, (int)(lb - start), b->s + start);
}

void state_diff(const struct state *a, const struct state *b)
{
	diag("before: rc %d, generation %" PRIu64 ", %zu + %zu bytes", a->rc, a->snap.generation,
	     a->snap.text.len, a->tbf.len);
	diag("after:  rc %d, generation %" PRIu64 ", %zu + %zu bytes", b->rc, b->snap.generation,
	     b->snap.text.len, b->tbf.len);
	first_line_diff("state", &a->snap.text, &b->snap.text);
	first_line_diff("tbf", &a->tbf, &b->tbf);
}

/* The kernel log from where we started: /dev/kmsg, record by record. */
int kmsg_fd = -1;
int kmsg_bad;

static const char *const kmsg_patterns[] = {
	"WARNING:",	   "BUG:",	  "Oops",	"general protection", "UBSAN",
	"KASAN",	   "refcount_t",  "corruption", "lock held",	      "circular locking",
	"stack-protector", "double free", "kernel BUG", "Call Trace",	      "list_add",
	"list_del",	   "slab",	  "RCU stall",	"soft lockup",	      "hung task"};

void kmsg_open(void)
{
	kmsg_fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (kmsg_fd >= 0)
		lseek(kmsg_fd, 0, SEEK_END);
}

/* Read what is new; count and show the lines that say the kernel is unwell. */
void kmsg_scan(void)
{
	char rec[8192];
	size_t i;

	if (kmsg_fd < 0)
		return;
	for (;;) {
		ssize_t n = read(kmsg_fd, rec, sizeof(rec) - 1);

		if (n < 0 && errno == EPIPE)
			continue; /* overrun: records were lost, read on */
		if (n <= 0)
			return;
		rec[n] = '\0';
		for (i = 0; i < N(kmsg_patterns); i++)
			if (strstr(rec, kmsg_patterns[i])) {
				char *msg = strchr(rec, ';');

				if (kmsg_bad++ < 40)
					diag("kernel: %s", msg ? msg + 1 : rec);
				break;
			}
	}
}

long meminfo(const char *key)
{
	char line[128];
	long v = -1;
	FILE *f = fopen("/proc/meminfo", "r");
	size_t n = strlen(key);

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n) && line[n] == ':')
			v = strtol(line + n + 1, NULL, 10);
	fclose(f);
	return v;
}

/* --- sending and judging -------------------------------------------------------- */

struct fuzz_stats *fs; /* shared with the unprivileged child */

static void note_bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void note_bad(const char *fmt, ...)
{
	va_list ap;

	if (fs->nbad >= 4)
		return;
	va_start(ap, fmt);
	vsnprintf(fs->first_bad[fs->nbad++], sizeof(fs->first_bad[0]), fmt, ap);
	va_end(ap);
}

static void note_finding(const char *what)
{
	int i;

	for (i = 0; i < fs->nfindings; i++)
		if (!strcmp(fs->finding[i].what, what)) {
			fs->finding[i].count++;
			return;
		}
	if (i == NFINDINGS)
		return;
	snprintf(fs->finding[i].what, sizeof(fs->finding[i].what), "%s", what);
	fs->finding[i].count = 1;
	fs->nfindings++;
}

#define RBUF (1024 * 1024)

int fsock_open(struct fsock *s, int family)
{
	struct sockaddr_nl sa = {.nl_family = AF_NETLINK};
	struct timeval tv = {.tv_sec = 30};
	int one = 1, big = 4 * 1024 * 1024;

	s->family = family;
	s->seq = 1;
	s->rbuf = malloc(RBUF);
	s->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (s->fd < 0 || !s->rbuf || bind(s->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return -errno;
	setsockopt(s->fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(s->fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	setsockopt(s->fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	setsockopt(s->fd, SOL_SOCKET, SO_SNDBUF, &big, sizeof(big));
	setsockopt(s->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return 0;
}

void fsock_close(struct fsock *s)
{
	if (s->fd >= 0)
		close(s->fd);
	free(s->rbuf);
}

/* The extack message among the TLVs at @p (@n bytes), into @ext. */
static void ext_msg(const uint8_t *p, size_t n, char *ext, size_t extlen)
{
	while (n >= NLA_HDRLEN) {
		const struct nlattr *a = (const struct nlattr *)p;
		size_t l = a->nla_len;

		if (l < NLA_HDRLEN || l > n)
			return;
		if ((a->nla_type & NLA_TYPE_MASK) == NLMSGERR_ATTR_MSG)
			snprintf(ext, extlen, "%.*s", (int)(l - NLA_HDRLEN), (const char *)(a + 1));
		n -= NLA_ALIGN(l) < n ? NLA_ALIGN(l) : n;
		p += NLA_ALIGN(l);
	}
}

/*
 * Send @len bytes of @buf and read until the answer to it: 0 or the
 * kernel's negative errno, its extack message into @ext.  -ETIMEDOUT or
 * -EIO when no answer came.
 */
int fsock_send(struct fsock *s, uint8_t *buf, size_t len, char *ext, size_t extlen, uint64_t *msgs)
{
	struct sockaddr_nl k = {.nl_family = AF_NETLINK};
	uint32_t seq = ((struct nlmsghdr *)buf)->nlmsg_seq;

	ext[0] = '\0';
	if (sendto(s->fd, buf, len, 0, (struct sockaddr *)&k, sizeof(k)) < 0)
		return -errno == -EMSGSIZE ? -EMSGSIZE : -EIO;
	for (;;) {
		ssize_t n = recv(s->fd, s->rbuf, RBUF, 0);
		struct nlmsghdr *h;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ENOBUFS)
				return -ENOBUFS;
			return errno == EAGAIN ? -ETIMEDOUT : -EIO;
		}
		for (h = (struct nlmsghdr *)s->rbuf; NLMSG_OK(h, (size_t)n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_seq != seq)
				continue;
			if (h->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(h);
				size_t off = NLMSG_HDRLEN + sizeof(*e);

				if (!(h->nlmsg_flags & NLM_F_CAPPED))
					off += NLMSG_ALIGN(e->msg.nlmsg_len) - sizeof(e->msg);
				if ((h->nlmsg_flags & NLM_F_ACK_TLVS) && off < h->nlmsg_len)
					ext_msg((uint8_t *)h + off, h->nlmsg_len - off, ext,
						extlen);
				return e->error;
			}
			if (h->nlmsg_type == NLMSG_DONE) {
				int err = 0;

				if (h->nlmsg_len >= NLMSG_HDRLEN + sizeof(int))
					memcpy(&err, NLMSG_DATA(h), sizeof(int));
				if ((h->nlmsg_flags & NLM_F_ACK_TLVS) &&
				    h->nlmsg_len > NLMSG_HDRLEN + sizeof(int))
					ext_msg((uint8_t *)NLMSG_DATA(h) + sizeof(int),
						h->nlmsg_len - NLMSG_HDRLEN - sizeof(int), ext,
						extlen);
				return err;
			}
			++*msgs;
		}
	}
}

static void hexdump(const uint8_t *p, size_t n)
{
	char line[128];
	size_t i, o = 0;

	for (i = 0; i < n && i < 192; i++) {
		o += (size_t)snprintf(line + o, sizeof(line) - o, "%02x", p[i]);
		if (i % 32 == 31 || i + 1 == n || i + 1 == 192) {
			diag("  %04zx: %s", i - i % 32, line);
			o = 0;
		}
	}
}

/* Phase B checks the state around some refusals with this client. */
struct lnetk *check_lk;

/* One message of phase @ph: build, send, judge.  False on a verdict the contract forbids. */
bool one_message(struct fsock *s, struct gen *g, enum phase ph, int mut)
{
	const struct cspec *c = chance(2) ? NULL : &cmds[below(NCMDS)];
	struct stats *st = c ? &fs->cmd[c - cmds] : &fs->cmd[NCMDS];
	struct state before, after;
	char ext[256];
	bool good = true, check;
	int rc, tries;

	for (tries = 0;; tries++) {
		gen_message(g, c, mut, s->seq++, s->family);
		if (ph != PH_REFUSE || g->poison)
			break;
		if (tries >= 6) {
			/* the poison of last resort: an unknown attribute at the top */
			int type = unknown_type(&top_nest);

			mark(g, "%s: unknown attribute id %d", "top-level", type);
			put_int(g, (uint16_t)type, 4, rnd());
			((struct nlmsghdr *)g->buf)->nlmsg_len = (uint32_t)g->len;
			break;
		}
	}
	/*
	 * A refused request changes nothing, and commands that take several
	 * objects apply all or none: checked around every fourth of those,
	 * every thirtieth of the other changes.
	 */
	/* not from the generator's stream: a seed replays the same messages either way */
	check = ph == PH_MIXED && check_lk && c && (c->ops & OP_ADMIN) &&
		(uint32_t)((fs->messages * 2654435761u) >> 8) % 100 <
			(c->cmd == LNETK_CMD_PEER_ADD || c->cmd == LNETK_CMD_PEER_DEL ||
					 c->cmd == LNETK_CMD_BATCH || c->cmd == LNETK_CMD_TBF_SET ||
					 c->cmd == LNETK_CMD_TBF_CMD
				 ? 25u
				 : 3u);
	if (check)
		state_take(check_lk, &before);
	rc = fsock_send(s, g->buf, g->len, ext, sizeof(ext), &fs->dump_msgs);
	fs->messages++;
	st->sent++;
	if (check) {
		if (rc && rc != -ETIMEDOUT && rc != -EIO) {
			state_take(check_lk, &after);
			fs->refusals_checked++;
			if (!state_same(&before, &after)) {
				fs->refused_changed++;
				note_bad("%s refused with %s, but the state changed", c->name,
					 errname(rc));
				state_diff(&before, &after);
				good = false;
			}
			state_free(&after);
		}
		state_free(&before);
	}
	if (rc == -ETIMEDOUT || rc == -EIO || rc == -ENOBUFS || rc == -EMSGSIZE) {
		fs->lost++;
		note_bad("%s: no answer (%s)", c ? c->name : "unknown", errname(rc));
		return false;
	}
	if (rc == 0) {
		st->ok++;
		if (g->poison) {
			fs->poison_accepted++;
			note_bad("%s accepted with poison: %s", c ? c->name : "?", g->why);
			good = false;
		} else if (g->nottaken) {
			char what[128];

			snprintf(what, sizeof(what), "%s (%s) accepts %s", c ? c->name : "?",
				 g->dump ? "dump" : "do", g->whynot);
			note_finding(what);
			fs->nottaken_accepted++;
		}
		if (ph == PH_UNPRIV && c && (c->ops & OP_ADMIN) && !g->core) {
			fs->eperm_missing++;
			note_bad("%s accepted from an unprivileged socket", c->name);
			good = false;
		}
		if (ph == PH_REFUSE)
			good = false;
	} else {
		st->refused++;
		if (-rc < (int)N(fs->errnos) && !fs->errnos[-rc]++ && !documented(rc)) {
			diag("first %s: %s (%s), extack \"%s\"", errname(rc),
			     c ? c->name : "unknown", g->dump ? "dump" : "do", ext);
			hexdump(g->buf, g->len);
			if (check_lk) {
				struct state now_st;

				/* the state it met, to replay */
				state_take(check_lk, &now_st);
				diag("the state, generation %" PRIu64 ":", now_st.snap.generation);
				fputs(now_st.snap.text.s ? now_st.snap.text.s : "", stdout);
				fputs(now_st.tbf.s ? now_st.tbf.s : "", stdout);
				state_free(&now_st);
			}
		}
		if (rc == -EPERM && ph == PH_UNPRIV) {
			st->eperm++;
		} else if (ph == PH_UNPRIV && c && (c->ops & OP_ADMIN) && !g->core) {
			fs->eperm_missing++;
			note_bad("%s from an unprivileged socket: %s, not EPERM (%s)", c->name,
				 errname(rc), g->why);
			good = false;
		} else if (g->core) {
			st->core++;
		} else if (!ext[0]) {
			st->noext++;
			if (st->noext <= 2)
				diag("%s refused with %s but no extack message (%s)",
				     c ? c->name : "?", errname(rc),
				     g->poison ? g->why : "no poison");
		}
	}
	if (!good) {
		diag("message %" PRIu64 " (%s, %s): %s, extack \"%s\"", fs->messages,
		     c ? c->name : "unknown", g->dump ? "dump" : "do", errname(rc), ext);
		hexdump(g->buf, g->len);
	}
	return good;
}

/*
 * The errnos uapi/lnetk.h names (EPERM included); out of memory is not
 * among them, nor anything else a fuzzing run should ever see.
 */
bool documented(int rc)
{
	static const int known[] = {EINVAL, ERANGE,	  ENOENT,	 EEXIST,   EBUSY,
				    E2BIG,  EHOSTUNREACH, EADDRNOTAVAIL, ENETDOWN, EOPNOTSUPP,
				    ENOSPC, EMSGSIZE,	  EPERM};
	size_t i;

	for (i = 0; i < N(known); i++)
		if (rc == -known[i])
			return true;
	return false;
}
