// SPDX-License-Identifier: GPL-2.0
/*
 * lu-nl.c - the generic netlink transport of the lnet.ko library: one
 * socket, messages built here, replies walked with every length checked.
 *
 * Why not libnl: its 4 KiB default message is what stops upstream's
 * lnetctl at ~25 peers, and its receive buffer decides how big lnet.ko's
 * one-skb dumps may grow (INTERFACES.md §2): both sizes must be ours.  The
 * receive buffer is 64 KiB, over the 32 KiB a dump skb can reach, so a
 * dump's message never arrives cut.
 */
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "lu-nl.h"

#define LU_NL_RX (64 * 1024)

int lu_msg_init(struct lu_msg *m, u16 family, u16 flags, u8 cmd, u8 version)
{
	struct nlmsghdr *nh;
	struct genlmsghdr *gh;

	m->cap = 1024;
	m->buf = calloc(1, m->cap);
	m->err = m->buf ? 0 : -ENOMEM;
	m->len = NLMSG_HDRLEN + GENL_HDRLEN;
	if (m->err)
		return m->err;
	nh = (struct nlmsghdr *)m->buf;
	nh->nlmsg_type = family;
	nh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	gh = (struct genlmsghdr *)(m->buf + NLMSG_HDRLEN);
	gh->cmd = cmd;
	gh->version = version;
	return 0;
}

void lu_msg_free(struct lu_msg *m)
{
	free(m->buf);
	m->buf = NULL;
}

static bool room(struct lu_msg *m, size_t more)
{
	size_t cap = m->cap;
	u8 *b;

	if (m->err)
		return false;
	/* netlink lengths are 32 bits, an attribute's 16: a nest checks its own */
	if (m->len + more > 0x7fffffff) {
		m->err = -EMSGSIZE;
		return false;
	}
	while (m->len + more > cap)
		cap *= 2;
	if (cap == m->cap)
		return true;
	b = realloc(m->buf, cap);
	if (!b) {
		m->err = -ENOMEM;
		return false;
	}
	memset(b + m->cap, 0, cap - m->cap);
	m->buf = b;
	m->cap = cap;
	return true;
}

void lu_msg_put(struct lu_msg *m, u16 type, const void *data, size_t len)
{
	struct nlattr *a;
	size_t total = NLA_HDRLEN + len;

	if (total > 0xffff) {
		m->err = m->err ?: -EMSGSIZE;
		return;
	}
	if (!room(m, NLA_ALIGN(total)))
		return;
	a = (struct nlattr *)(m->buf + m->len);
	a->nla_type = type;
	a->nla_len = total;
	if (len)
		memcpy(m->buf + m->len + NLA_HDRLEN, data, len);
	m->len += NLA_ALIGN(total);
}

void lu_msg_put_str(struct lu_msg *m, u16 type, const char *s)
{
	lu_msg_put(m, type, s, strlen(s) + 1);
}

void lu_msg_put_s64(struct lu_msg *m, u16 type, s64 v)
{
	lu_msg_put(m, type, &v, sizeof(v));
}

size_t lu_msg_nest(struct lu_msg *m, u16 type)
{
	size_t at = m->len;

	lu_msg_put(m, type | NLA_F_NESTED, NULL, 0);
	return at;
}

void lu_msg_nest_end(struct lu_msg *m, size_t at)
{
	struct nlattr *a;

	if (m->err)
		return;
	if (m->len - at > 0xffff) {
		m->err = -EMSGSIZE;
		return;
	}
	a = (struct nlattr *)(m->buf + at);
	a->nla_len = m->len - at;
}

void lu_attrs_init(struct lu_attrs *it, const void *data, size_t len)
{
	it->p = data;
	it->end = it->p + len;
	it->bad = false;
}

bool lu_attr_next(struct lu_attrs *it, struct lu_attr *a)
{
	struct nlattr na;
	size_t left = it->end - it->p;

	if (left < NLA_HDRLEN) {
		it->bad |= left != 0 && left >= sizeof(na);
		return false;
	}
	memcpy(&na, it->p, sizeof(na));
	if (na.nla_len < NLA_HDRLEN || na.nla_len > left) {
		it->bad = true;
		return false;
	}
	a->type = na.nla_type & NLA_TYPE_MASK;
	a->nested = na.nla_type & NLA_F_NESTED;
	a->data = it->p + NLA_HDRLEN;
	a->len = na.nla_len - NLA_HDRLEN;
	it->p += (size_t)NLA_ALIGN(na.nla_len) <= left ? (size_t)NLA_ALIGN(na.nla_len) : left;
	return true;
}

bool lu_attr_u16(const struct lu_attr *a, u16 *v)
{
	if (a->len < sizeof(*v))
		return false;
	memcpy(v, a->data, sizeof(*v));
	return true;
}

bool lu_attr_u32(const struct lu_attr *a, u32 *v)
{
	if (a->len < sizeof(*v))
		return false;
	memcpy(v, a->data, sizeof(*v));
	return true;
}

bool lu_attr_s64(const struct lu_attr *a, s64 *v)
{
	if (a->len < sizeof(*v))
		return false;
	memcpy(v, a->data, sizeof(*v));
	return true;
}

const char *lu_attr_str(const struct lu_attr *a)
{
	if (!a->len || a->data[a->len - 1] != '\0')
		return NULL;
	return (const char *)a->data;
}

int lu_nl_open(struct lu *lu)
{
	struct sockaddr_nl sa = {.nl_family = AF_NETLINK};
	socklen_t salen = sizeof(sa);
	struct timeval tv = {.tv_sec = 30};
	int one = 1, rcv = 1 << 20;

	lu->nl = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (lu->nl < 0)
		return -errno;
	if (bind(lu->nl, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    getsockname(lu->nl, (struct sockaddr *)&sa, &salen) < 0) {
		int rc = -errno;

		close(lu->nl);
		lu->nl = -1;
		return rc;
	}
	lu->nl_port = sa.nl_pid;
	/* the kernel's sentence with an error, and only the header of our request back */
	setsockopt(lu->nl, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(lu->nl, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	setsockopt(lu->nl, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof(rcv));
	/* an answer that never comes (the module going away under a request) ends */
	setsockopt(lu->nl, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (!lu->rx) {
		lu->rx = malloc(LU_NL_RX);
		if (!lu->rx) {
			lu_nl_close(lu);
			return -ENOMEM;
		}
		lu->rx_size = LU_NL_RX;
	}
	return 0;
}

void lu_nl_close(struct lu *lu)
{
	if (lu->nl >= 0)
		close(lu->nl);
	lu->nl = -1;
}

/* The extack text of an error message, if it has one. */
static const char *extack_msg(const struct nlmsghdr *nh, size_t len)
{
	const struct nlmsgerr *e = NLMSG_DATA(nh);
	size_t off = NLMSG_HDRLEN + sizeof(*e);
	struct lu_attrs it;
	struct lu_attr a;

	if (!(nh->nlmsg_flags & NLM_F_ACK_TLVS))
		return NULL;
	/* with NETLINK_CAP_ACK only our header is echoed; else the whole request */
	if (!(nh->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - sizeof(e->msg);
	if (off > len)
		return NULL;
	lu_attrs_init(&it, (const u8 *)nh + off, len - off);
	while (lu_attr_next(&it, &a))
		if (a.type == NLMSGERR_ATTR_MSG)
			return lu_attr_str(&a);
	return NULL;
}

static int nl_error(const struct lu *lu, const struct nlmsghdr *nh, size_t len, const char *input,
		    const char *what, struct lne_err *err)
{
	const struct nlmsgerr *e = NLMSG_DATA(nh);
	const char *msg;

	if (len < NLMSG_HDRLEN + sizeof(*e))
		return lne_err_set(err, -EPROTO, input, -1, "lnet.ko %s answered a cut error",
				   lu->vname);
	if (!e->error)
		return 0;
	msg = extack_msg(nh, len);
	if (msg && *msg)
		return lne_err_set(err, e->error < 0 ? e->error : -EPROTO, input, -1,
				   "lnet.ko %s refused to %s: %s (%s)", lu->vname, what,
				   strerror(-e->error), msg);
	return lu_refused(lu, err, e->error < 0 ? e->error : -EPROTO, input, what);
}

int lu_nl_request(struct lu *lu, struct lu_msg *m, lu_nl_cb fn, void *arg, const char *input,
		  const char *what, struct lne_err *err)
{
	struct nlmsghdr *nh = (struct nlmsghdr *)m->buf;
	struct sockaddr_nl to = {.nl_family = AF_NETLINK};
	u32 seq;
	int rc = 0;
	bool done = false;

	if (m->err)
		return lne_err_set(err, m->err, input, -1, "the request to %s could not be built",
				   what);
	if (lu->nl < 0)
		return lu_gone(err, -ENOTCONN);
	nh->nlmsg_len = m->len;
	seq = ++lu->nl_seq;
	nh->nlmsg_seq = seq;
	nh->nlmsg_pid = lu->nl_port;
	if (sendto(lu->nl, m->buf, m->len, 0, (struct sockaddr *)&to, sizeof(to)) < 0)
		return lu_gone(err, -errno);
	while (!done) {
		ssize_t got = recv(lu->nl, lu->rx, lu->rx_size, 0);
		size_t left;
		const u8 *p;

		if (got < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				return lne_err_set(err, -ETIMEDOUT, input, -1,
						   "lnet.ko %s did not answer in 30 s, asked to %s",
						   lu->vname, what);
			/* ENOBUFS: replies were lost; what was read is not the whole answer */
			return errno == ENOBUFS
				       ? lne_err_set(err, -ENOBUFS, input, -1,
						     "the answer to %s overflowed the socket", what)
				       : lu_gone(err, -errno);
		}
		p = lu->rx;
		left = (size_t)got;
		while (left >= NLMSG_HDRLEN) {
			const struct nlmsghdr *r = (const struct nlmsghdr *)p;
			size_t rl = r->nlmsg_len;

			if (rl < NLMSG_HDRLEN || rl > left)
				return lne_err_set(err, -EPROTO, input, -1,
						   "lnet.ko %s answered a cut message", lu->vname);
			if (r->nlmsg_seq != seq || r->nlmsg_pid != lu->nl_port)
				goto next; /* an old answer: a request given up on */
			if (r->nlmsg_type == NLMSG_ERROR) {
				int e = nl_error(lu, r, rl, input, what, err);

				return rc ? rc : e;
			}
			if (r->nlmsg_type == NLMSG_DONE) {
				/* a dump's end carries its status */
				if (rl >= NLMSG_HDRLEN + sizeof(int)) {
					int st;

					memcpy(&st, NLMSG_DATA(r), sizeof(st));
					if (st < 0 && !rc)
						rc = lu_refused(lu, err, st, input, what);
				}
				done = true;
				goto next;
			}
			if (rl < NLMSG_HDRLEN + GENL_HDRLEN)
				return lne_err_set(
					err, -EPROTO, input, -1,
					"lnet.ko %s answered a message without its header",
					lu->vname);
			if (fn && !rc) {
				rc = fn(p + NLMSG_HDRLEN + GENL_HDRLEN,
					rl - NLMSG_HDRLEN - GENL_HDRLEN, r->nlmsg_flags, arg);
				if (rc > 0)
					rc = 0;
				else if (rc < 0 && err && !err->msg[0])
					lne_err_set(err, rc, input, -1,
						    "lnet.ko %s answered %s with what this library "
						    "cannot read",
						    lu->vname, what);
			}
next:
			rl = NLMSG_ALIGN(rl) < left ? NLMSG_ALIGN(rl) : left;
			p += rl;
			left -= rl;
		}
	}
	/*
	 * A dump ends with NLMSG_DONE and then, as we asked for one, an ACK:
	 * read it so that it does not answer the next request.
	 */
	for (;;) {
		ssize_t got = recv(lu->nl, lu->rx, lu->rx_size, MSG_DONTWAIT);
		const struct nlmsghdr *r = (const struct nlmsghdr *)lu->rx;

		if (got < 0 && errno == EINTR)
			continue;
		if (got < (ssize_t)NLMSG_HDRLEN || r->nlmsg_seq != seq)
			break;
		if (r->nlmsg_type == NLMSG_ERROR)
			break;
	}
	return rc;
}
