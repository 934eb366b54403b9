// SPDX-License-Identifier: GPL-2.0
/*
 * lnetk-client.c - the userspace side of kernel/uapi/lnetk.h, over libnl.
 *
 * Why it looks the way it does:
 *
 *  - libnl builds messages and runs the receive loop; its -NLE_* codes
 *    become errno in exactly one place, nlerr().  The kernel's own errno is
 *    taken from the NLMSG_ERROR (or a dump's NLMSG_DONE) itself, because
 *    libnl's translation of it is lossy (EHOSTUNREACH, E2BIG... collapse).
 *  - NETLINK_CAP_ACK: an error does not echo the request, which for a
 *    multi-megabyte batch would be a multi-megabyte error message.
 *  - Reads use a fixed buffer and no MSG_PEEK (one syscall per message):
 *    no reply of the contract exceeds one attribute (64 KiB) plus headers,
 *    and the kernel caps a dump message at 32 KiB.
 *  - Replies are parsed leniently (unknown attributes are skipped, so an
 *    older client reads a newer module) but sizes are checked: a value
 *    that does not fit is -EPROTO, never silently cut.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/netlink.h>
#include <netlink/attr.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/family.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>

#include "lnetk-client.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

#define __maybe_unused __attribute__((unused))

/* The genl controller (the kernel's "nlctrl" family) and its announcements. */
#define CTRL_NAME	  "nlctrl"
#define CTRL_GROUP_NOTIFY "notify"

#define RECV_BUF_DEFAULT (68 * 1024)
#define BATCH_SIZE_FIRST (64 * 1024)
#define BATCH_SIZE_MAX	 (1024 * 1024 * 1024)

struct lnetk {
	struct nl_sock *sk;
	struct nl_cb *cb;
	int family;
	int sndbuf; /* what SO_SNDBUF was last raised to */
	uint64_t generation;
	unsigned int reads;
};

/* One request in flight: what came back, and what to do with each reply. */
struct req {
	struct lnetk *lk;
	struct lnetk_err *err;
	const struct nlmsghdr *sent; /* to find the batch item an error offset points into */
	bool batch;
	int (*parse)(struct req *rq, struct nlattr **tb, struct nlmsghdr *nlh);
	void *arg;
	int error; /* the kernel's, or the first a parser or callback returned */
	bool done, intr;
};

/* The one place libnl's error codes become errno. */
static int nlerr(int e)
{
	switch (e < 0 ? -e : e) {
	case 0:
		return 0;
	case NLE_NOMEM:
		return -ENOMEM;
	case NLE_INTR:
		return -EINTR;
	case NLE_AGAIN:
		return -EAGAIN;
	case NLE_EXIST:
		return -EEXIST;
	case NLE_INVAL:
	case NLE_MISSING_ATTR:
		return -EINVAL;
	case NLE_RANGE:
		return -ERANGE;
	case NLE_MSGSIZE:
	case NLE_MSG_TRUNC:
	case NLE_ATTRSIZE:
		return -EMSGSIZE;
	case NLE_OPNOTSUPP:
	case NLE_AF_NOSUPPORT:
		return -EOPNOTSUPP;
	case NLE_OBJ_NOTFOUND:
		return -ENOENT;
	case NLE_BUSY:
		return -EBUSY;
	case NLE_PERM:
		return -EPERM;
	case NLE_NOACCESS:
		return -EACCES;
	case NLE_NODEV:
		return -ENODEV;
	case NLE_DUMP_INTR:
		return -EAGAIN;
	case NLE_MSG_OVERFLOW:
		return -ENOBUFS;
	default:
		return -EPROTO;
	}
}

static void err_reset(struct lnetk_err *err)
{
	if (!err)
		return;
	err->msg[0] = '\0';
	err->attr_offset = -1;
	err->item = -1;
}

/* The index of the batch item (top-level attribute but FLAGS) holding byte @off of @nlh. */
static int batch_item_at(const struct nlmsghdr *nlh, uint32_t off)
{
	const char *base = (const char *)nlh;
	struct nlattr *a;
	int rem, n = 0;

	nla_for_each_attr(a, genlmsg_attrdata(nlmsg_data(nlh), 0),
			  genlmsg_attrlen(nlmsg_data(nlh), 0), rem) {
		uint32_t start = (uint32_t)((const char *)a - base);

		if (nla_type(a) == LNETK_A_FLAGS)
			continue;
		if (off >= start && off < start + (uint32_t)nla_total_size(nla_len(a)))
			return n;
		n++;
	}
	return -1;
}

/* The extack TLVs start at @off in @nlh (an NLMSG_ERROR or NLMSG_DONE). */
static void parse_extack(struct req *rq, const struct nlmsghdr *nlh, size_t off)
{
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	struct lnetk_err *err = rq->err;

	if (!err || !(nlh->nlmsg_flags & NLM_F_ACK_TLVS) || off >= nlh->nlmsg_len)
		return;
	if (nla_parse(tb, NLMSGERR_ATTR_MAX, (struct nlattr *)((char *)nlh + off),
		      (int)(nlh->nlmsg_len - off), NULL) < 0)
		return;
	if (tb[NLMSGERR_ATTR_MSG])
		snprintf(err->msg, sizeof(err->msg), "%.*s",
			 (int)strnlen(nla_data(tb[NLMSGERR_ATTR_MSG]),
				      nla_len(tb[NLMSGERR_ATTR_MSG])),
			 (const char *)nla_data(tb[NLMSGERR_ATTR_MSG]));
	if (tb[NLMSGERR_ATTR_OFFS] && nla_len(tb[NLMSGERR_ATTR_OFFS]) >= 4) {
		uint32_t at = nla_get_u32(tb[NLMSGERR_ATTR_OFFS]);

		err->attr_offset = (int)at;
		if (rq->batch && rq->sent)
			err->item = batch_item_at(rq->sent, at);
	}
}

static int on_error(struct sockaddr_nl *who __maybe_unused, struct nlmsgerr *e, void *arg)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)((char *)e - NLMSG_HDRLEN);
	struct req *rq = arg;
	size_t off = NLMSG_HDRLEN + sizeof(*e);

	/* Without NLM_F_CAPPED the whole request is echoed before the TLVs. */
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += NLMSG_ALIGN(e->msg.nlmsg_len) - sizeof(e->msg);
	rq->done = true;
	rq->error = e->error;
	parse_extack(rq, nlh, off);
	return NL_STOP;
}

static int on_ack(struct nl_msg *msg __maybe_unused, void *arg)
{
	struct req *rq = arg;

	rq->done = true;
	return NL_STOP;
}

/* A dump ends with NLMSG_DONE, which carries the dump's errno (and extack). */
static int on_finish(struct nl_msg *msg, void *arg)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct req *rq = arg;
	int e;

	rq->done = true;
	if (nlmsg_datalen(nlh) >= (int)sizeof(int)) {
		memcpy(&e, nlmsg_data(nlh), sizeof(e));
		if (e < 0 && !rq->error) {
			rq->error = e;
			parse_extack(rq, nlh, NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(int)));
		}
	}
	return NL_STOP;
}

static int on_dump_intr(struct nl_msg *msg __maybe_unused, void *arg)
{
	struct req *rq = arg;

	rq->intr = true;
	return NL_OK;
}

/* What replies carry at the top level (libnl checks the sizes). */
static const struct nla_policy top_policy[LNETK_A_MAX + 1] = {
	[LNETK_A_GENERATION] = {.type = NLA_U64}, /* every reply */
	[LNETK_A_VERSION] = {.type = NLA_STRING},
	[LNETK_A_COUNT] = {.type = NLA_U32},
	[LNETK_A_FLAGS] = {.type = NLA_U32},
	[LNETK_A_NI] = {.type = NLA_NESTED}, /* the objects: one per message, */
	[LNETK_A_PEER] = {.type = NLA_NESTED},
	[LNETK_A_PEER_NI] = {.type = NLA_NESTED},
	[LNETK_A_ROUTE] = {.type = NLA_NESTED},
	[LNETK_A_RULE] = {.type = NLA_NESTED},
	[LNETK_A_GLOBAL] = {.type = NLA_NESTED}, /* but globals: all in one */
	[LNETK_A_NUMA] = {.type = NLA_NESTED},
	[LNETK_A_SELECT] = {.type = NLA_NESTED},
	[LNETK_A_TBF] = {.type = NLA_NESTED},
};

/* A reply: note its generation, then hand it to the request's parser. */
static int on_valid(struct nl_msg *msg, void *arg)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct nlattr *tb[LNETK_A_MAX + 1];
	struct req *rq = arg;
	int rc;

	rc = genlmsg_parse(nlh, 0, tb, LNETK_A_MAX, top_policy);
	if (rc < 0) {
		if (!rq->error)
			rq->error = -EPROTO;
		return NL_OK;
	}
	if (tb[LNETK_A_GENERATION])
		rq->lk->generation = nla_get_u64(tb[LNETK_A_GENERATION]);
	if (rq->parse && !rq->error) {
		rc = rq->parse(rq, tb, nlh);
		if (rc < 0)
			rq->error = rc;
	}
	return NL_OK;
}

/* libnl's read hook has no user pointer: the handle being read, per thread. */
static __thread struct lnetk *reading;

static int counted_recv(struct nl_sock *sk, struct sockaddr_nl *nla, unsigned char **buf,
			struct ucred **creds)
{
	int n = nl_recv(sk, nla, buf, creds);

	if (n > 0 && reading)
		reading->reads++;
	return n;
}

static int read_replies(struct lnetk *lk, struct req *rq)
{
	int rc = 0;

	reading = lk;
	while (!rq->done) {
		rc = nl_recvmsgs(lk->sk, lk->cb);
		if (rc < 0 && !rq->done)
			break;
		rc = 0;
	}
	reading = NULL;
	return nlerr(rc);
}

/* Send @msg and read until its ACK, error or end of dump. */
static int transact(struct lnetk *lk, struct nl_msg *msg, struct req *rq)
{
	int rc;

	rq->lk = lk;
	err_reset(rq->err);
	lk->reads = 0;
	nl_cb_set(lk->cb, NL_CB_VALID, NL_CB_CUSTOM, on_valid, rq);
	nl_cb_set(lk->cb, NL_CB_ACK, NL_CB_CUSTOM, on_ack, rq);
	nl_cb_set(lk->cb, NL_CB_FINISH, NL_CB_CUSTOM, on_finish, rq);
	nl_cb_set(lk->cb, NL_CB_DUMP_INTR, NL_CB_CUSTOM, on_dump_intr, rq);
	nl_cb_err(lk->cb, NL_CB_CUSTOM, on_error, rq);

	rc = nl_send_auto(lk->sk, msg);
	if (rc < 0)
		return nlerr(rc);
	rq->sent = nlmsg_hdr(msg);
	rc = read_replies(lk, rq);
	if (rc)
		return rc;
	if (rq->error)
		return rq->error;
	return rq->intr ? -EAGAIN : 0;
}

/* A request for @cmd with room for @size bytes of attributes. */
static struct nl_msg *new_msg(const struct lnetk *lk, uint8_t cmd, int flags, size_t size)
{
	struct nl_msg *msg = nlmsg_alloc_size(NLMSG_HDRLEN + GENL_HDRLEN + size + 256);

	if (!msg)
		return NULL;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, lk->family, 0, flags, cmd,
			 LNETK_GENL_VERSION)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

/* Build with @put (which returns a libnl code), send, and parse with @rq. */
static int run(struct lnetk *lk, uint8_t cmd, int flags, size_t size,
	       int (*put)(struct nl_msg *msg, const void *in), const void *in, struct req *rq)
{
	struct nl_msg *msg = new_msg(lk, cmd, flags, size);
	int rc;

	if (!msg) {
		err_reset(rq->err);
		return -ENOMEM;
	}
	rc = put ? nlerr(put(msg, in)) : 0;
	if (rc)
		err_reset(rq->err);
	else
		rc = transact(lk, msg, rq);
	nlmsg_free(msg);
	return rc;
}

/* --- connection --------------------------------------------------------------- */

static int set_int_opt(int fd, int level, int name, int value)
{
	return setsockopt(fd, level, name, &value, sizeof(value)) < 0 ? -errno : 0;
}

/*
 * The kernel sizes dump messages after the largest read a socket has made,
 * so the read size must be set before the first one (the family lookup).
 */
static int set_recv_buffer(struct lnetk *lk, size_t bytes)
{
	int fd = nl_socket_get_fd(lk->sk);
	int rc;

	rc = set_int_opt(fd, SOL_SOCKET, SO_RCVBUFFORCE, (int)bytes);
	if (rc)
		rc = set_int_opt(fd, SOL_SOCKET, SO_RCVBUF, (int)bytes);
	return rc ? rc : nlerr(nl_socket_set_msg_buf_size(lk->sk, bytes));
}

int lnetk_open_buffer(struct lnetk **lkp, size_t recv_buffer)
{
	struct lnetk *lk;
	int rc = -ENOMEM, fd;

	*lkp = NULL;
	if (!recv_buffer)
		recv_buffer = RECV_BUF_DEFAULT;
	if (recv_buffer < 4096 || recv_buffer > 64 * 1024 * 1024)
		return -EINVAL;
	lk = calloc(1, sizeof(*lk));
	if (!lk)
		return -ENOMEM;
	lk->sk = nl_socket_alloc();
	lk->cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!lk->sk || !lk->cb)
		goto err;
	nl_cb_overwrite_recv(lk->cb, counted_recv);
	rc = nlerr(genl_connect(lk->sk));
	if (rc)
		goto err;
	fd = nl_socket_get_fd(lk->sk);
	/* Extack tells the person why; CAP_ACK keeps a refused batch from being echoed. */
	rc = set_int_opt(fd, SOL_NETLINK, NETLINK_EXT_ACK, 1);
	if (!rc)
		rc = set_int_opt(fd, SOL_NETLINK, NETLINK_CAP_ACK, 1);
	if (!rc)
		rc = set_recv_buffer(lk, recv_buffer);
	if (rc)
		goto err;
	lk->family = genl_ctrl_resolve(lk->sk, LNETK_GENL_NAME);
	if (lk->family < 0) {
		rc = lk->family == -NLE_OBJ_NOTFOUND ? -ENOENT : nlerr(lk->family);
		goto err;
	}
	*lkp = lk;
	return 0;
err:
	lnetk_close(lk);
	return rc;
}

int lnetk_open(struct lnetk **lkp)
{
	return lnetk_open_buffer(lkp, 0);
}

void lnetk_close(struct lnetk *lk)
{
	if (!lk)
		return;
	nl_cb_put(lk->cb);
	nl_socket_free(lk->sk);
	free(lk);
}

int lnetk_family(const struct lnetk *lk)
{
	return lk->family;
}

uint64_t lnetk_last_generation(const struct lnetk *lk)
{
	return lk->generation;
}

unsigned int lnetk_last_reads(const struct lnetk *lk)
{
	return lk->reads;
}

/* --- reply helpers ------------------------------------------------------------- */

/* Copy string attribute @a (absent: "") into @dst; -EPROTO if it does not fit. */
static int get_str(char *dst, size_t size, const struct nlattr *a)
{
	size_t len;

	dst[0] = '\0';
	if (!a)
		return 0;
	len = strnlen(nla_data(a), (size_t)nla_len(a));
	if (len >= size)
		return -EPROTO;
	memcpy(dst, nla_data(a), len);
	dst[len] = '\0';
	return 0;
}

static uint32_t get_u32_or(const struct nlattr *a, uint32_t def)
{
	return a ? nla_get_u32(a) : def;
}

static int32_t get_s32_or(const struct nlattr *a, int32_t def)
{
	return a ? (int32_t)nla_get_u32(a) : def;
}

static int parse_info(struct req *rq, struct nlattr **tb, struct nlmsghdr *nlh __maybe_unused)
{
	struct lnetk_info *info = rq->arg;

	info->generation = tb[LNETK_A_GENERATION] ? nla_get_u64(tb[LNETK_A_GENERATION]) : 0;
	info->count = get_u32_or(tb[LNETK_A_COUNT], 0);
	return get_str(info->version, sizeof(info->version), tb[LNETK_A_VERSION]);
}

int lnetk_get_info(struct lnetk *lk, struct lnetk_info *info, struct lnetk_err *err)
{
	struct req rq = {.err = err, .parse = parse_info, .arg = info};

	memset(info, 0, sizeof(*info));
	return run(lk, LNETK_CMD_GET_INFO, 0, 0, NULL, NULL, &rq);
}

static int put_bump(struct nl_msg *msg, const void *in)
{
	return nla_put_u32(msg, LNETK_A_COUNT, *(const uint32_t *)in);
}

int lnetk_bump(struct lnetk *lk, uint32_t count, uint64_t *generation, struct lnetk_err *err)
{
	struct req rq = {.err = err};
	int rc = run(lk, LNETK_CMD_BUMP, 0, 16, put_bump, &count, &rq);

	if (!rc && generation)
		*generation = lk->generation;
	return rc;
}

/* --- local NIs ---------------------------------------------------------------- */

#define NI_ADD_FIELDS                                                     \
	(LNETK_HAS_NI_IFNAME | LNETK_HAS_NI_CPTS | LNETK_HAS_NI_DEV_CPT | \
	 LNETK_HAS_NI_PEER_TIMEOUT | LNETK_HAS_NI_PEER_CREDITS |          \
	 LNETK_HAS_NI_PEER_BUFFER_CREDITS | LNETK_HAS_NI_CREDITS)
#define NI_SET_FIELDS (LNETK_HAS_NI_UP | LNETK_HAS_NI_HEALTH | LNETK_HAS_NI_TX_CREDITS)

/* One LNETK_A_NI nest with the fields of @ni in @fields. */
static int put_ni(struct nl_msg *msg, const struct lnetk_ni *ni, unsigned int fields)
{
	struct nlattr *nest = nla_nest_start(msg, LNETK_A_NI);
	unsigned int has = ni->has & fields;

	if (!nest || nla_put_string(msg, LNETK_NI_A_NID, ni->nid) < 0)
		return -NLE_NOMEM;
	if (((has & LNETK_HAS_NI_IFNAME) && nla_put_string(msg, LNETK_NI_A_IFNAME, ni->ifname)) ||
	    ((has & LNETK_HAS_NI_CPTS) && nla_put_u64(msg, LNETK_NI_A_CPTS, ni->cpts)) ||
	    ((has & LNETK_HAS_NI_DEV_CPT) && nla_put_s32(msg, LNETK_NI_A_DEV_CPT, ni->dev_cpt)) ||
	    ((has & LNETK_HAS_NI_PEER_TIMEOUT) &&
	     nla_put_u32(msg, LNETK_NI_A_PEER_TIMEOUT, ni->peer_timeout)) ||
	    ((has & LNETK_HAS_NI_PEER_CREDITS) &&
	     nla_put_u32(msg, LNETK_NI_A_PEER_CREDITS, ni->peer_credits)) ||
	    ((has & LNETK_HAS_NI_PEER_BUFFER_CREDITS) &&
	     nla_put_u32(msg, LNETK_NI_A_PEER_BUFFER_CREDITS, ni->peer_buffer_credits)) ||
	    ((has & LNETK_HAS_NI_CREDITS) && nla_put_u32(msg, LNETK_NI_A_CREDITS, ni->credits)) ||
	    ((has & LNETK_HAS_NI_UP) && nla_put_u8(msg, LNETK_NI_A_UP, ni->up)) ||
	    ((has & LNETK_HAS_NI_HEALTH) && nla_put_u32(msg, LNETK_NI_A_HEALTH, ni->health)) ||
	    ((has & LNETK_HAS_NI_TX_CREDITS) &&
	     nla_put_s32(msg, LNETK_NI_A_TX_CREDITS, ni->tx_credits)))
		return -NLE_NOMEM;
	return nla_nest_end(msg, nest);
}

static int put_ni_add(struct nl_msg *msg, const void *in)
{
	return put_ni(msg, in, NI_ADD_FIELDS);
}

static int put_ni_set(struct nl_msg *msg, const void *in)
{
	return put_ni(msg, in, NI_SET_FIELDS);
}

static int put_ni_nid(struct nl_msg *msg, const void *in)
{
	struct nlattr *nest = nla_nest_start(msg, LNETK_A_NI);

	if (!nest || nla_put_string(msg, LNETK_NI_A_NID, in) < 0)
		return -NLE_NOMEM;
	return nla_nest_end(msg, nest);
}

static const struct nla_policy ni_policy[LNETK_NI_A_MAX + 1] = {
	[LNETK_NI_A_NID] = {.type = NLA_STRING},
	[LNETK_NI_A_IFNAME] = {.type = NLA_STRING},
	[LNETK_NI_A_CPTS] = {.type = NLA_U64},
	[LNETK_NI_A_DEV_CPT] = {.type = NLA_U32},
	[LNETK_NI_A_PEER_TIMEOUT] = {.type = NLA_U32},
	[LNETK_NI_A_PEER_CREDITS] = {.type = NLA_U32},
	[LNETK_NI_A_PEER_BUFFER_CREDITS] = {.type = NLA_U32},
	[LNETK_NI_A_CREDITS] = {.type = NLA_U32},
	[LNETK_NI_A_UP] = {.type = NLA_U8},
	[LNETK_NI_A_HEALTH] = {.type = NLA_U32},
	[LNETK_NI_A_TX_CREDITS] = {.type = NLA_U32},
	[LNETK_NI_A_PRIO] = {.type = NLA_U32},
	[LNETK_NI_A_PRIO_RULE] = {.type = NLA_U32},
	[LNETK_NI_A_NET_PRIO] = {.type = NLA_U32},
	[LNETK_NI_A_NET_PRIO_RULE] = {.type = NLA_U32},
};

static int parse_ni(struct nlattr *nest, struct lnetk_ni *ni)
{
	struct nlattr *tb[LNETK_NI_A_MAX + 1];
	int rc;

	memset(ni, 0, sizeof(*ni));
	if (!nest)
		return -EPROTO;
	rc = nla_parse_nested(tb, LNETK_NI_A_MAX, nest, ni_policy);
	if (rc < 0 || !tb[LNETK_NI_A_NID])
		return -EPROTO;
	rc = get_str(ni->nid, sizeof(ni->nid), tb[LNETK_NI_A_NID]);
	if (!rc && tb[LNETK_NI_A_IFNAME]) {
		ni->has |= LNETK_HAS_NI_IFNAME;
		rc = get_str(ni->ifname, sizeof(ni->ifname), tb[LNETK_NI_A_IFNAME]);
	}
	if (rc)
		return rc;
	if (tb[LNETK_NI_A_CPTS]) {
		ni->has |= LNETK_HAS_NI_CPTS;
		ni->cpts = nla_get_u64(tb[LNETK_NI_A_CPTS]);
	}
	ni->dev_cpt = get_s32_or(tb[LNETK_NI_A_DEV_CPT], -1);
	ni->has |= tb[LNETK_NI_A_DEV_CPT] ? LNETK_HAS_NI_DEV_CPT : 0;
	ni->peer_timeout = get_u32_or(tb[LNETK_NI_A_PEER_TIMEOUT], 0);
	ni->has |= tb[LNETK_NI_A_PEER_TIMEOUT] ? LNETK_HAS_NI_PEER_TIMEOUT : 0;
	ni->peer_credits = get_u32_or(tb[LNETK_NI_A_PEER_CREDITS], 0);
	ni->has |= tb[LNETK_NI_A_PEER_CREDITS] ? LNETK_HAS_NI_PEER_CREDITS : 0;
	ni->peer_buffer_credits = get_u32_or(tb[LNETK_NI_A_PEER_BUFFER_CREDITS], 0);
	ni->has |= tb[LNETK_NI_A_PEER_BUFFER_CREDITS] ? LNETK_HAS_NI_PEER_BUFFER_CREDITS : 0;
	ni->credits = get_u32_or(tb[LNETK_NI_A_CREDITS], 0);
	ni->has |= tb[LNETK_NI_A_CREDITS] ? LNETK_HAS_NI_CREDITS : 0;
	ni->up = tb[LNETK_NI_A_UP] && nla_get_u8(tb[LNETK_NI_A_UP]);
	ni->has |= tb[LNETK_NI_A_UP] ? LNETK_HAS_NI_UP : 0;
	ni->health = get_u32_or(tb[LNETK_NI_A_HEALTH], 0);
	ni->has |= tb[LNETK_NI_A_HEALTH] ? LNETK_HAS_NI_HEALTH : 0;
	ni->tx_credits = get_s32_or(tb[LNETK_NI_A_TX_CREDITS], 0);
	ni->has |= tb[LNETK_NI_A_TX_CREDITS] ? LNETK_HAS_NI_TX_CREDITS : 0;
	ni->prio = get_u32_or(tb[LNETK_NI_A_PRIO], LNETK_PRIO_NONE);
	ni->prio_rule = get_s32_or(tb[LNETK_NI_A_PRIO_RULE], -1);
	ni->net_prio = get_u32_or(tb[LNETK_NI_A_NET_PRIO], LNETK_PRIO_NONE);
	ni->net_prio_rule = get_s32_or(tb[LNETK_NI_A_NET_PRIO_RULE], -1);
	return 0;
}

int lnetk_ni_add(struct lnetk *lk, const struct lnetk_ni *ni, struct lnetk_err *err)
{
	struct req rq = {.err = err};

	return run(lk, LNETK_CMD_NI_ADD, 0, 256, put_ni_add, ni, &rq);
}

int lnetk_ni_set(struct lnetk *lk, const struct lnetk_ni *ni, struct lnetk_err *err)
{
	struct req rq = {.err = err};

	return run(lk, LNETK_CMD_NI_SET, 0, 256, put_ni_set, ni, &rq);
}

int lnetk_ni_del(struct lnetk *lk, const char *nid, struct lnetk_err *err)
{
	struct req rq = {.err = err};

	return run(lk, LNETK_CMD_NI_DEL, 0, 128, put_ni_nid, nid, &rq);
}

static int parse_ni_one(struct req *rq, struct nlattr **tb, struct nlmsghdr *nlh __maybe_unused)
{
	return parse_ni(tb[LNETK_A_NI], rq->arg);
}

int lnetk_ni_get(struct lnetk *lk, const char *nid, struct lnetk_ni *ni, struct lnetk_err *err)
{
	struct req rq = {.err = err, .parse = parse_ni_one, .arg = ni};

	memset(ni, 0, sizeof(*ni));
	return run(lk, LNETK_CMD_NI_GET, 0, 128, put_ni_nid, nid, &rq);
}

/*
 * A dump's callback.  A parser returns the callback's error, which becomes
 * the request's: further messages are still read (the socket must be
 * drained) but no longer parsed.
 */
struct dump {
	union {
		lnetk_ni_cb ni;
		lnetk_peer_cb peer;
		lnetk_route_cb route;
		lnetk_rule_cb rule;
		lnetk_global_cb global;
		lnetk_tbf_class_cb tbf_class;
	} cb;
	void *arg;
};

static int cb_rc(int rc)
{
	return rc < 0 ? rc : 0;
}

static int parse_ni_dump(struct req *rq, struct nlattr **tb, struct nlmsghdr *nlh __maybe_unused)
{
	struct dump *d = rq->arg;
	struct lnetk_ni ni;
	int rc = parse_ni(tb[LNETK_A_NI], &ni);

	return rc ? rc : cb_rc(d->cb.ni(&ni, d->arg));
}

int lnetk_ni_dump(struct lnetk *lk, lnetk_ni_cb cb, void *arg, struct lnetk_err *err)
{
	struct dump d = {.cb.ni = cb, .arg = arg};
	struct req rq = {.err = err, .parse = parse_ni_dump, .arg = &d};

	return run(lk, LNETK_CMD_NI_GET, NLM_F_DUMP, 0, NULL, NULL, &rq);
}

/* --- peers ----------------------------------------------------------------------- */

struct peer_in {
	const char *primary;
	bool mr, with_mr;
	const char *const *nids;
	size_t nnids;
};

static size_t peer_size(size_t nnids)
{
	return 128 + nnids * (NLA_HDRLEN * 2 + LNETK_NID_MAX);
}

static int put_peer(struct nl_msg *msg, const void *in)
{
	const struct peer_in *p = in;
	struct nlattr *nest = nla_nest_start(msg, LNETK_A_PEER);
	size_t i;

	if (!nest || nla_put_string(msg, LNETK_PEER_A_PRIMARY, p->primary) < 0 ||
	    (p->with_mr && nla_put_u8(msg, LNETK_PEER_A_MR, p->mr) < 0))
		return -NLE_NOMEM;
	for (i = 0; i < p->nnids; i++) {
		struct nlattr *pni = nla_nest_start(msg, LNETK_PEER_A_PEER_NI);

		if (!pni || nla_put_string(msg, LNETK_PNI_A_NID, p->nids[i]) < 0)
			return -NLE_NOMEM;
		nla_nest_end(msg, pni);
	}
	return nla_nest_end(msg, nest);
}

int lnetk_peer_add(struct lnetk *lk, const char *primary, bool mr, const char *const *nids,
		   size_t nnids, struct lnetk_err *err)
{
	struct peer_in in = {primary, mr, true, nids, nnids};
	struct req rq = {.err = err};

	return run(lk, LNETK_CMD_PEER_ADD, 0, peer_size(nnids), put_peer, &in, &rq);
}

int lnetk_peer_del(struct lnetk *lk, const char *primary, const char *const *nids, size_t nnids,
		   struct lnetk_err *err)
{
	struct peer_in in = {primary, false, false, nids, nnids};
	struct req rq = {.err = err};

	return run(lk, LNETK_CMD_PEER_DEL, 0, peer_size(nnids), put_peer, &in, &rq);
}

static int put_pni_set(struct nl_msg *msg, const void *in)
{
	const struct lnetk_peer_ni *pni = in;
	struct nlattr *nest = nla_nest_start(msg, LNETK_A_PEER_NI);

	if (!nest || nla_put_string(msg, LNETK_PNI_A_NID, pni->nid) < 0 ||
	    ((pni->has & LNETK_HAS_PNI_HEALTH) &&
	     nla_put_u32(msg, LNETK_PNI_A_HEALTH, pni->health) < 0) ||
	    ((pni->has & LNETK_HAS_PNI_CREDITS) &&
	     nla_put_s32(msg, LNETK_PNI_A_CREDITS, pni->credits) < 0))
		return -NLE_NOMEM;
	return nla_nest_end(msg, nest);
}

int lnetk_peer_ni_set(struct lnetk *lk, const struct lnetk_peer_ni *pni, struct lnetk_err *err)
{
	struct req rq = {.err = err};

	return run(lk, LNETK_CMD_PEER_NI_SET, 0, 128, put_pni_set, pni, &rq);
}

static const struct nla_policy peer_policy[LNETK_PEER_A_MAX + 1] = {
	[LNETK_PEER_A_PRIMARY] = {.type = NLA_STRING},
	[LNETK_PEER_A_MR] = {.type = NLA_U8},
	[LNETK_PEER_A_IMPLICIT] = {.type = NLA_U8},
	[LNETK_PEER_A_PEER_NI] = {.type = NLA_NESTED},
};

static const struct nla_policy pni_policy[LNETK_PNI_A_MAX + 1] = {
	[LNETK_PNI_A_NID] = {.type = NLA_STRING},
	[LNETK_PNI_A_HEALTH] = {.type = NLA_U32},
	[LNETK_PNI_A_CREDITS] = {.type = NLA_U32},
	[LNETK_PNI_A_PRIO] = {.type = NLA_U32},
	[LNETK_PNI_A_PRIO_RULE] = {.type = NLA_U32},
	[LNETK_PNI_A_NET_PRIO] = {.type = NLA_U32},
	[LNETK_PNI_A_NET_PRIO_RULE] = {.type = NLA_U32},
	[LNETK_PNI_A_GW_ROUTES] = {.type = NLA_U32},
	[LNETK_PNI_A_PREF_SRC] = {.type = NLA_NESTED},
	[LNETK_PNI_A_PREF_GW] = {.type = NLA_NESTED},
};

static const struct nla_policy pref_policy[LNETK_PREF_A_MAX + 1] = {
	[LNETK_PREF_A_NID] = {.type = NLA_STRING},
	[LNETK_PREF_A_PRIO] = {.type = NLA_U32},
	[LNETK_PREF_A_RULE] = {.type = NLA_U32},
};

static int add_pref(struct lnetk_pref **arr, size_t *n, struct nlattr *nest)
{
	struct nlattr *tb[LNETK_PREF_A_MAX + 1];
	struct lnetk_pref *p = realloc(*arr, (*n + 1) * sizeof(**arr));

	if (!p)
		return -ENOMEM;
	*arr = p;
	p += *n;
	memset(p, 0, sizeof(*p));
	if (nla_parse_nested(tb, LNETK_PREF_A_MAX, nest, pref_policy) < 0)
		return -EPROTO;
	(*n)++;
	p->prio = get_u32_or(tb[LNETK_PREF_A_PRIO], LNETK_PRIO_NONE);
	p->rule = get_u32_or(tb[LNETK_PREF_A_RULE], 0);
	return get_str(p->nid, sizeof(p->nid), tb[LNETK_PREF_A_NID]);
}

static void pni_clear(struct lnetk_peer_ni *pni)
{
	free(pni->pref_src);
	free(pni->pref_gw);
}

/* Fills @pni; the caller frees what it holds with pni_clear() even on error. */
static int parse_pni(struct nlattr *nest, struct lnetk_peer_ni *pni)
{
	struct nlattr *tb[LNETK_PNI_A_MAX + 1], *a;
	int rc, rem;

	memset(pni, 0, sizeof(*pni));
	if (nla_parse_nested(tb, LNETK_PNI_A_MAX, nest, pni_policy) < 0 || !tb[LNETK_PNI_A_NID])
		return -EPROTO;
	rc = get_str(pni->nid, sizeof(pni->nid), tb[LNETK_PNI_A_NID]);
	if (rc)
		return rc;
	pni->has = (tb[LNETK_PNI_A_HEALTH] ? LNETK_HAS_PNI_HEALTH : 0) |
		   (tb[LNETK_PNI_A_CREDITS] ? LNETK_HAS_PNI_CREDITS : 0);
	pni->health = get_u32_or(tb[LNETK_PNI_A_HEALTH], 0);
	pni->credits = get_s32_or(tb[LNETK_PNI_A_CREDITS], 0);
	pni->prio = get_u32_or(tb[LNETK_PNI_A_PRIO], LNETK_PRIO_NONE);
	pni->prio_rule = get_s32_or(tb[LNETK_PNI_A_PRIO_RULE], -1);
	pni->net_prio = get_u32_or(tb[LNETK_PNI_A_NET_PRIO], LNETK_PRIO_NONE);
	pni->net_prio_rule = get_s32_or(tb[LNETK_PNI_A_NET_PRIO_RULE], -1);
	pni->gw_routes = get_u32_or(tb[LNETK_PNI_A_GW_ROUTES], 0);
	nla_for_each_nested(a, nest, rem) {
		if (nla_type(a) == LNETK_PNI_A_PREF_SRC)
			rc = add_pref(&pni->pref_src, &pni->npref_src, a);
		else if (nla_type(a) == LNETK_PNI_A_PREF_GW)
			rc = add_pref(&pni->pref_gw, &pni->npref_gw, a);
		if (rc)
			return rc;
	}
	return 0;
}

static void peer_clear(struct lnetk_peer *peer)
{
	size_t i;

	for (i = 0; i < peer->nnis; i++)
		pni_clear(&peer->nis[i]);
	free(peer->nis);
	memset(peer, 0, sizeof(*peer));
}

void lnetk_peer_free(struct lnetk_peer *peer)
{
	if (!peer)
		return;
	peer_clear(peer);
	free(peer);
}

/*
 * The peer being merged from consecutive messages with the same primary
 * NID.  With a dump callback, each peer is handed over when the next one
 * starts (or the dump ends); without, the one peer is kept (PEER_GET).
 */
struct peer_acc {
	struct lnetk_peer peer;
	size_t cap;
	bool have;
	struct dump *d;
};

static int peer_flush(struct peer_acc *acc)
{
	int rc = 0;

	if (acc->have && acc->d)
		rc = cb_rc(acc->d->cb.peer(&acc->peer, acc->d->arg));
	peer_clear(&acc->peer);
	acc->cap = 0;
	acc->have = false;
	return rc;
}

static int parse_peer_msg(struct req *rq, struct nlattr **tb, struct nlmsghdr *nlh __maybe_unused)
{
	struct nlattr *ptb[LNETK_PEER_A_MAX + 1], *a;
	struct peer_acc *acc = rq->arg;
	char primary[LNETK_NID_MAX];
	int rc, rem;

	if (!tb[LNETK_A_PEER] ||
	    nla_parse_nested(ptb, LNETK_PEER_A_MAX, tb[LNETK_A_PEER], peer_policy) < 0 ||
	    !ptb[LNETK_PEER_A_PRIMARY])
		return -EPROTO;
	rc = get_str(primary, sizeof(primary), ptb[LNETK_PEER_A_PRIMARY]);
	if (rc)
		return rc;
	if (acc->have && strcmp(primary, acc->peer.primary)) {
		rc = peer_flush(acc);
		if (rc)
			return rc;
	}
	if (!acc->have) {
		memcpy(acc->peer.primary, primary, sizeof(primary));
		acc->peer.mr = ptb[LNETK_PEER_A_MR] && nla_get_u8(ptb[LNETK_PEER_A_MR]);
		acc->peer.implicit = ptb[LNETK_PEER_A_IMPLICIT] &&
				     nla_get_u8(ptb[LNETK_PEER_A_IMPLICIT]);
		acc->have = true;
	}
	nla_for_each_nested(a, tb[LNETK_A_PEER], rem) {
		if (nla_type(a) != LNETK_PEER_A_PEER_NI)
			continue;
		if (acc->peer.nnis == acc->cap) {
			size_t cap = acc->cap ? acc->cap * 2 : 4;
			struct lnetk_peer_ni *nis = realloc(acc->peer.nis, cap * sizeof(*nis));

			if (!nis)
				return -ENOMEM;
			acc->peer.nis = nis;
			acc->cap = cap;
		}
		rc = parse_pni(a, &acc->peer.nis[acc->peer.nnis++]);
		if (rc)
			return rc;
	}
	return 0;
}

static int put_peer_nid(struct nl_msg *msg, const void *in)
{
	struct peer_in p = {.primary = in};

	return put_peer(msg, &p);
}

int lnetk_peer_get(struct lnetk *lk, const char *nid, struct lnetk_peer **peerp,
		   struct lnetk_err *err)
{
	struct peer_acc acc = {.have = false};
	struct req rq = {.err = err, .parse = parse_peer_msg, .arg = &acc};
	int rc;

	*peerp = NULL;
	rc = run(lk, LNETK_CMD_PEER_GET, 0, 128, put_peer_nid, nid, &rq);
	if (!rc && !acc.have)
		rc = -EPROTO;
	if (!rc) {
		*peerp = malloc(sizeof(**peerp));
		if (!*peerp)
			rc = -ENOMEM;
	}
	if (rc) {
		peer_clear(&acc.peer);
		return rc;
	}
	**peerp = acc.peer;
	return 0;
}

int lnetk_peer_dump(struct lnetk *lk, lnetk_peer_cb cb, void *arg, struct lnetk_err *err)
{
	struct dump d = {.cb.peer = cb, .arg = arg};
	struct peer_acc acc = {.d = &d};
	struct req rq = {.err = err, .parse = parse_peer_msg, .arg = &acc};
	int rc = run(lk, LNETK_CMD_PEER_GET, NLM_F_DUMP, 0, NULL, NULL, &rq), last;

	/* The last peer is complete only now; an interrupted dump still delivers it. */
	if (rc && rc != -EAGAIN)
		acc.d = NULL;
	last = peer_flush(&acc);
	return last ? last : rc;
}

/* --- routes ---------------------------------------------------------------------- */

static int put_route_fields(struct nl_msg *msg, const struct lnetk_route *r, bool all)
{
	struct nlattr *nest = nla_nest_start(msg, LNETK_A_ROUTE);
	unsigned int has = all ? r->has : 0;

	if (!nest || nla_put_string(msg, LNETK_ROUTE_A_NET, r->net) < 0 ||
	    nla_put_string(msg, LNETK_ROUTE_A_GATEWAY, r->gateway) < 0 ||
	    ((has & LNETK_HAS_ROUTE_HOPS) && nla_put_u32(msg, LNETK_ROUTE_A_HOPS, r->hops) < 0) ||
	    ((has & LNETK_HAS_ROUTE_PRIORITY) &&
	     nla_put_u32(msg, LNETK_ROUTE_A_PRIORITY, r->priority) < 0) ||
	    ((has & LNETK_HAS_ROUTE_SENSITIVITY) &&
	     nla_put_u32(msg, LNETK_ROUTE_A_SENSITIVITY, r->sensitivity) < 0))
		return -NLE_NOMEM;
	return nla_nest_end(msg, nest);
}

static int put_route(struct nl_msg *msg, const void *in)
{
	return put_route_fields(msg, in, true);
}

static int put_route_key(struct nl_msg *msg, const void *in)
{
	return put_route_fields(msg, in, false);
}

int lnetk_route_add(struct lnetk *lk, const struct lnetk_route *route, struct lnetk_err *err)
{
	struct req rq = {.err = err};

	return run(lk, LNETK_CMD_ROUTE_ADD, 0, 256, put_route, route, &rq);
}

int lnetk_route_del(struct lnetk *lk, const char *net, const char *gateway, struct lnetk_err *err)
{
	struct lnetk_route r = {.has = 0};
	struct req rq = {.err = err};

	/* Too long to fit is too long for the kernel too: let it say so. */
	if (strlen(net) >= sizeof(r.net) || strlen(gateway) >= sizeof(r.gateway)) {
		err_reset(err);
		if (err)
			snprintf(err->msg, sizeof(err->msg), "net or gateway name too long");
		return -EINVAL;
	}
	strcpy(r.net, net);
	strcpy(r.gateway, gateway);
	return run(lk, LNETK_CMD_ROUTE_DEL, 0, 256, put_route_key, &r, &rq);
}

static const struct nla_policy route_policy[LNETK_ROUTE_A_MAX + 1] = {
	[LNETK_ROUTE_A_NET] = {.type = NLA_STRING},
	[LNETK_ROUTE_A_GATEWAY] = {.type = NLA_STRING},
	[LNETK_ROUTE_A_HOPS] = {.type = NLA_U32},
	[LNETK_ROUTE_A_PRIORITY] = {.type = NLA_U32},
	[LNETK_ROUTE_A_SENSITIVITY] = {.type = NLA_U32},
};

static int parse_route_dump(struct req *rq, struct nlattr **tb, struct nlmsghdr *nlh __maybe_unused)
{
	struct nlattr *rtb[LNETK_ROUTE_A_MAX + 1];
	struct dump *d = rq->arg;
	struct lnetk_route r = {.has = 0};
	int rc;

	if (!tb[LNETK_A_ROUTE] ||
	    nla_parse_nested(rtb, LNETK_ROUTE_A_MAX, tb[LNETK_A_ROUTE], route_policy) < 0)
		return -EPROTO;
	rc = get_str(r.net, sizeof(r.net), rtb[LNETK_ROUTE_A_NET]);
	if (!rc)
		rc = get_str(r.gateway, sizeof(r.gateway), rtb[LNETK_ROUTE_A_GATEWAY]);
	if (rc)
		return rc;
	r.has = (rtb[LNETK_ROUTE_A_HOPS] ? LNETK_HAS_ROUTE_HOPS : 0) |
		(rtb[LNETK_ROUTE_A_PRIORITY] ? LNETK_HAS_ROUTE_PRIORITY : 0) |
		(rtb[LNETK_ROUTE_A_SENSITIVITY] ? LNETK_HAS_ROUTE_SENSITIVITY : 0);
	r.hops = get_u32_or(rtb[LNETK_ROUTE_A_HOPS], 0);
	r.priority = get_u32_or(rtb[LNETK_ROUTE_A_PRIORITY], 0);
	r.sensitivity = get_u32_or(rtb[LNETK_ROUTE_A_SENSITIVITY], 0);
	return cb_rc(d->cb.route(&r, d->arg));
}

int lnetk_route_dump(struct lnetk *lk, lnetk_route_cb cb, void *arg, struct lnetk_err *err)
{
	struct dump d = {.cb.route = cb, .arg = arg};
	struct req rq = {.err = err, .parse = parse_route_dump, .arg = &d};

	return run(lk, LNETK_CMD_ROUTE_GET, NLM_F_DUMP, 0, NULL, NULL, &rq);
}

/* --- UDSP rules -------------------------------------------------------------------- */

static size_t rule_size(const struct lnetk_rule *r)
{
	return 128 + (r->src ? strlen(r->src) : 0) + (r->dst ? strlen(r->dst) : 0) +
	       (r->rte ? strlen(r->rte) : 0);
}

static int put_rule(struct nl_msg *msg, const void *in)
{
	const struct lnetk_rule *r = in;
	struct nlattr *nest = nla_nest_start(msg, LNETK_A_RULE);

	if (!nest || (r->src && nla_put_string(msg, LNETK_RULE_A_SRC, r->src) < 0) ||
	    (r->dst && nla_put_string(msg, LNETK_RULE_A_DST, r->dst) < 0) ||
	    (r->rte && nla_put_string(msg, LNETK_RULE_A_RTE, r->rte) < 0) ||
	    (r->prio != LNETK_PRIO_NONE && nla_put_u32(msg, LNETK_RULE_A_PRIORITY, r->prio) < 0) ||
	    (r->idx >= 0 && nla_put_u32(msg, LNETK_RULE_A_IDX, (uint32_t)r->idx) < 0))
		return -NLE_NOMEM;
	/* A rule with nothing in it is for the kernel to refuse: keep the empty nest. */
	return nla_nest_end_keep_empty(msg, nest);
}

static const struct nla_policy rule_policy[LNETK_RULE_A_MAX + 1] = {
	[LNETK_RULE_A_SRC] = {.type = NLA_STRING}, [LNETK_RULE_A_DST] = {.type = NLA_STRING},
	[LNETK_RULE_A_RTE] = {.type = NLA_STRING}, [LNETK_RULE_A_PRIORITY] = {.type = NLA_U32},
	[LNETK_RULE_A_IDX] = {.type = NLA_U32},	   [LNETK_RULE_A_KIND] = {.type = NLA_U8},
	[LNETK_RULE_A_OUTCOME] = {.type = NLA_U8},
};

struct rule_added {
	enum lnetk_rule_outcome *outcome;
	uint32_t *idx;
};

static int parse_rule_added(struct req *rq, struct nlattr **tb, struct nlmsghdr *nlh __maybe_unused)
{
	struct nlattr *rtb[LNETK_RULE_A_MAX + 1];
	struct rule_added *out = rq->arg;

	if (!tb[LNETK_A_RULE] ||
	    nla_parse_nested(rtb, LNETK_RULE_A_MAX, tb[LNETK_A_RULE], rule_policy) < 0 ||
	    !rtb[LNETK_RULE_A_IDX] || !rtb[LNETK_RULE_A_OUTCOME])
		return -EPROTO;
	if (out->idx)
		*out->idx = nla_get_u32(rtb[LNETK_RULE_A_IDX]);
	if (out->outcome)
		*out->outcome = (enum lnetk_rule_outcome)nla_get_u8(rtb[LNETK_RULE_A_OUTCOME]);
	return 0;
}

int lnetk_rule_add(struct lnetk *lk, const struct lnetk_rule *rule,
		   enum lnetk_rule_outcome *outcome, uint32_t *idx, struct lnetk_err *err)
{
	struct rule_added out = {outcome, idx};
	struct req rq = {.err = err, .parse = parse_rule_added, .arg = &out};

	return run(lk, LNETK_CMD_RULE_ADD, 0, rule_size(rule), put_rule, rule, &rq);
}

static int put_rule_idx(struct nl_msg *msg, const void *in)
{
	struct nlattr *nest = nla_nest_start(msg, LNETK_A_RULE);

	if (!nest || nla_put_u32(msg, LNETK_RULE_A_IDX, *(const uint32_t *)in) < 0)
		return -NLE_NOMEM;
	return nla_nest_end(msg, nest);
}

int lnetk_rule_del(struct lnetk *lk, uint32_t idx, struct lnetk_err *err)
{
	struct req rq = {.err = err};

	return run(lk, LNETK_CMD_RULE_DEL, 0, 64, put_rule_idx, &idx, &rq);
}

static int put_flags(struct nl_msg *msg, const void *in)
{
	return nla_put_u32(msg, LNETK_A_FLAGS, *(const uint32_t *)in);
}

int lnetk_rule_del_all(struct lnetk *lk, struct lnetk_err *err)
{
	uint32_t flags = LNETK_F_ALL;
	struct req rq = {.err = err};

	return run(lk, LNETK_CMD_RULE_DEL, 0, 64, put_flags, &flags, &rq);
}

static const char *str_or_null(const struct nlattr *a)
{
	return a ? nla_data(a) : NULL;
}

static int parse_rule_dump(struct req *rq, struct nlattr **tb, struct nlmsghdr *nlh __maybe_unused)
{
	struct nlattr *rtb[LNETK_RULE_A_MAX + 1];
	struct dump *d = rq->arg;
	struct lnetk_rule r;

	/* NLA_STRING in the policy guarantees the NUL the pointers below rely on. */
	if (!tb[LNETK_A_RULE] ||
	    nla_parse_nested(rtb, LNETK_RULE_A_MAX, tb[LNETK_A_RULE], rule_policy) < 0 ||
	    !rtb[LNETK_RULE_A_IDX])
		return -EPROTO;
	r.src = str_or_null(rtb[LNETK_RULE_A_SRC]);
	r.dst = str_or_null(rtb[LNETK_RULE_A_DST]);
	r.rte = str_or_null(rtb[LNETK_RULE_A_RTE]);
	r.prio = get_u32_or(rtb[LNETK_RULE_A_PRIORITY], LNETK_PRIO_NONE);
	r.idx = nla_get_u32(rtb[LNETK_RULE_A_IDX]);
	r.kind = rtb[LNETK_RULE_A_KIND] ? nla_get_u8(rtb[LNETK_RULE_A_KIND]) : 0;
	return cb_rc(d->cb.rule(&r, d->arg));
}

int lnetk_rule_dump(struct lnetk *lk, lnetk_rule_cb cb, void *arg, struct lnetk_err *err)
{
	struct dump d = {.cb.rule = cb, .arg = arg};
	struct req rq = {.err = err, .parse = parse_rule_dump, .arg = &d};

	return run(lk, LNETK_CMD_RULE_GET, NLM_F_DUMP, 0, NULL, NULL, &rq);
}

/* --- globals and NUMA ----------------------------------------------------------------- */

static int put_global(struct nl_msg *msg, const void *in)
{
	const struct lnetk_global *g = in;
	struct nlattr *nest = nla_nest_start(msg, LNETK_A_GLOBAL);

	if (!nest || nla_put_string(msg, LNETK_GLOBAL_A_NAME, g->name) < 0 ||
	    nla_put_u32(msg, LNETK_GLOBAL_A_VALUE, g->value) < 0)
		return -NLE_NOMEM;
	return nla_nest_end(msg, nest);
}

/* A name too long for the struct is too long for the kernel: send it as is and let it say so. */
static int global_fill(struct lnetk_global *g, const char *name, uint32_t value)
{
	if (strlen(name) >= sizeof(g->name))
		return -EINVAL;
	strcpy(g->name, name);
	g->value = value;
	return 0;
}

int lnetk_global_set(struct lnetk *lk, const char *name, uint32_t value, struct lnetk_err *err)
{
	struct lnetk_global g;
	struct req rq = {.err = err};

	if (global_fill(&g, name, value)) {
		err_reset(err);
		if (err)
			snprintf(err->msg, sizeof(err->msg), "global name too long");
		return -EINVAL;
	}
	return run(lk, LNETK_CMD_GLOBAL_SET, 0, 128, put_global, &g, &rq);
}

static const struct nla_policy global_policy[LNETK_GLOBAL_A_MAX + 1] = {
	[LNETK_GLOBAL_A_NAME] = {.type = NLA_STRING},
	[LNETK_GLOBAL_A_VALUE] = {.type = NLA_U32},
};

/* One message, one LNETK_A_GLOBAL per setting: walk them all, not just the last. */
static int parse_globals(struct req *rq, struct nlattr **tb __maybe_unused, struct nlmsghdr *nlh)
{
	struct genlmsghdr *gh = nlmsg_data(nlh);
	struct dump *d = rq->arg;
	struct nlattr *a;
	int rem, rc;

	nla_for_each_attr(a, genlmsg_attrdata(gh, 0), genlmsg_attrlen(gh, 0), rem) {
		struct nlattr *gtb[LNETK_GLOBAL_A_MAX + 1];
		struct lnetk_global g;

		if (nla_type(a) != LNETK_A_GLOBAL)
			continue;
		if (nla_parse_nested(gtb, LNETK_GLOBAL_A_MAX, a, global_policy) < 0 ||
		    !gtb[LNETK_GLOBAL_A_NAME] || !gtb[LNETK_GLOBAL_A_VALUE])
			return -EPROTO;
		rc = get_str(g.name, sizeof(g.name), gtb[LNETK_GLOBAL_A_NAME]);
		if (rc)
			return rc;
		g.value = nla_get_u32(gtb[LNETK_GLOBAL_A_VALUE]);
		rc = cb_rc(d->cb.global(&g, d->arg));
		if (rc)
			return rc;
	}
	return 0;
}

int lnetk_global_get(struct lnetk *lk, lnetk_global_cb cb, void *arg, struct lnetk_err *err)
{
	struct dump d = {.cb.global = cb, .arg = arg};
	struct req rq = {.err = err, .parse = parse_globals, .arg = &d};

	return run(lk, LNETK_CMD_GLOBAL_GET, 0, 0, NULL, NULL, &rq);
}

struct numa_in {
	uint32_t ncpt;
	const uint32_t *dist;
};

static int put_numa(struct nl_msg *msg, const void *in)
{
	const struct numa_in *n = in;
	struct nlattr *nest = nla_nest_start(msg, LNETK_A_NUMA);

	if (!nest || nla_put_u32(msg, LNETK_NUMA_A_NCPT, n->ncpt) < 0 ||
	    (n->ncpt && nla_put(msg, LNETK_NUMA_A_DIST, (int)(n->ncpt * n->ncpt * sizeof(uint32_t)),
				n->dist) < 0))
		return -NLE_NOMEM;
	return nla_nest_end(msg, nest);
}

int lnetk_numa_set(struct lnetk *lk, uint32_t ncpt, const uint32_t *dist, struct lnetk_err *err)
{
	struct numa_in in = {ncpt, dist};
	struct req rq = {.err = err};

	/* The kernel refuses more than LNETK_MAX_CPTS; do not build a giant message first. */
	if (ncpt > 4 * LNETK_MAX_CPTS) {
		err_reset(err);
		return -ERANGE;
	}
	return run(lk, LNETK_CMD_NUMA_SET, 0, 64 + ncpt * ncpt * sizeof(uint32_t), put_numa, &in,
		   &rq);
}

/* --- NRS TBF policies ------------------------------------------------------------------ */

struct tbf_in {
	const char *service, *type, *cmd;
	int queue;
	uint32_t depth;
};

static int put_tbf(struct nl_msg *msg, const void *in)
{
	const struct tbf_in *t = in;
	struct nlattr *nest = nla_nest_start(msg, LNETK_A_TBF);

	if (!nest || nla_put_string(msg, LNETK_TBF_A_SERVICE, t->service) < 0 ||
	    (t->queue >= 0 && nla_put_u8(msg, LNETK_TBF_A_QUEUE, (uint8_t)t->queue) < 0) ||
	    (t->type && nla_put_string(msg, LNETK_TBF_A_TYPE, t->type) < 0) ||
	    (t->depth && nla_put_u32(msg, LNETK_TBF_A_DEPTH, t->depth) < 0) ||
	    (t->cmd && nla_put_string(msg, LNETK_TBF_A_CMD, t->cmd) < 0))
		return -NLE_NOMEM;
	return nla_nest_end(msg, nest);
}

static size_t tbf_size(const struct tbf_in *t)
{
	return 128 + strlen(t->service) + (t->type ? strlen(t->type) : 0) +
	       (t->cmd ? strlen(t->cmd) : 0);
}

int lnetk_tbf_set(struct lnetk *lk, const char *service, int queue, const char *type,
		  uint32_t depth, struct lnetk_err *err)
{
	struct tbf_in in = {.service = service, .type = type, .queue = queue, .depth = depth};
	struct req rq = {.err = err};

	return run(lk, LNETK_CMD_TBF_SET, 0, tbf_size(&in), put_tbf, &in, &rq);
}

int lnetk_tbf_cmd(struct lnetk *lk, const char *service, const char *cmd, struct lnetk_err *err)
{
	struct tbf_in in = {.service = service, .cmd = cmd, .queue = -1};
	struct req rq = {.err = err};

	return run(lk, LNETK_CMD_TBF_CMD, 0, tbf_size(&in), put_tbf, &in, &rq);
}

int lnetk_tbf_del(struct lnetk *lk, const char *service, struct lnetk_err *err)
{
	struct tbf_in in = {.service = service, .queue = -1};
	struct req rq = {.err = err};

	return run(lk, LNETK_CMD_TBF_DEL, 0, tbf_size(&in), put_tbf, &in, &rq);
}

static const struct nla_policy tbf_policy[LNETK_TBF_A_MAX + 1] = {
	[LNETK_TBF_A_SERVICE] = {.type = NLA_STRING},
	[LNETK_TBF_A_QUEUE_INFO] = {.type = NLA_NESTED},
	[LNETK_TBF_A_LOAD_CLASS] = {.type = NLA_NESTED},
	[LNETK_TBF_A_ELAPSED_NS] = {.type = NLA_U64},
	[LNETK_TBF_A_CLASS] = {.type = NLA_NESTED},
};

static const struct nla_policy tbfq_policy[LNETK_TBFQ_A_MAX + 1] = {
	[LNETK_TBFQ_A_QUEUE] = {.type = NLA_U8},    [LNETK_TBFQ_A_TYPE] = {.type = NLA_STRING},
	[LNETK_TBFQ_A_DEPTH] = {.type = NLA_U32},   [LNETK_TBFQ_A_NCLASSES] = {.type = NLA_U32},
	[LNETK_TBFQ_A_NACTIVE] = {.type = NLA_U32}, [LNETK_TBFQ_A_QUEUED] = {.type = NLA_U64},
	[LNETK_TBFQ_A_RULE] = {.type = NLA_NESTED}, [LNETK_TBFQ_A_FIRST] = {.type = NLA_U32},
};

static const struct nla_policy tbfr_policy[LNETK_TBFR_A_MAX + 1] = {
	[LNETK_TBFR_A_NAME] = {.type = NLA_STRING},  [LNETK_TBFR_A_TEXT] = {.type = NLA_STRING},
	[LNETK_TBFR_A_RATE] = {.type = NLA_U32},     [LNETK_TBFR_A_REALTIME] = {.type = NLA_U8},
	[LNETK_TBFR_A_NCLASSES] = {.type = NLA_U32}, [LNETK_TBFR_A_QUEUED] = {.type = NLA_U64},
	[LNETK_TBFR_A_ENQUEUED] = {.type = NLA_U64}, [LNETK_TBFR_A_DISPATCHED] = {.type = NLA_U64},
	[LNETK_TBFR_A_WAIT_NS] = {.type = NLA_U64},  [LNETK_TBFR_A_THROTTLED] = {.type = NLA_U64},
};

static uint64_t get_u64_or(const struct nlattr *a, uint64_t def)
{
	return a ? nla_get_u64(a) : def;
}

static int parse_tbf_rule(struct nlattr *nest, struct lnetk_tbf_rule *r)
{
	struct nlattr *tb[LNETK_TBFR_A_MAX + 1];

	if (nla_parse_nested(tb, LNETK_TBFR_A_MAX, nest, tbfr_policy) < 0 ||
	    !tb[LNETK_TBFR_A_NAME] || !tb[LNETK_TBFR_A_TEXT])
		return -EPROTO;
	memset(r, 0, sizeof(*r));
	r->text = nla_data(tb[LNETK_TBFR_A_TEXT]);
	r->rate = get_u32_or(tb[LNETK_TBFR_A_RATE], 0);
	r->realtime = tb[LNETK_TBFR_A_REALTIME] && nla_get_u8(tb[LNETK_TBFR_A_REALTIME]);
	r->nclasses = get_u32_or(tb[LNETK_TBFR_A_NCLASSES], 0);
	r->queued = get_u64_or(tb[LNETK_TBFR_A_QUEUED], 0);
	r->enqueued = get_u64_or(tb[LNETK_TBFR_A_ENQUEUED], 0);
	r->dispatched = get_u64_or(tb[LNETK_TBFR_A_DISPATCHED], 0);
	r->wait_ns = get_u64_or(tb[LNETK_TBFR_A_WAIT_NS], 0);
	r->throttled = get_u64_or(tb[LNETK_TBFR_A_THROTTLED], 0);
	return get_str(r->name, sizeof(r->name), tb[LNETK_TBFR_A_NAME]);
}

/*
 * A dump's policies are put together from its messages: a queue whose
 * rules do not fit one message goes on in the next with
 * LNETK_TBFQ_A_FIRST > 0, so a policy is handed to the callback once the
 * next policy (or the end of the dump) comes.  Its rule texts are copies.
 */
struct tbf_acc {
	struct lnetk_tbf t;
	bool have;
	lnetk_tbf_cb cb;
	void *arg;
};

static void tbf_acc_clear(struct tbf_acc *a)
{
	size_t q, i;

	for (q = 0; q < a->t.nqueues; q++) {
		for (i = 0; i < a->t.queues[q].nrules; i++)
			free((char *)a->t.queues[q].rules[i].text);
		free(a->t.queues[q].rules);
	}
	memset(&a->t, 0, sizeof(a->t));
	a->have = false;
}

static int tbf_acc_flush(struct tbf_acc *a)
{
	int rc = a->have ? cb_rc(a->cb(&a->t, a->arg)) : 0;

	tbf_acc_clear(a);
	return rc;
}

/* Append the LNETK_TBFQ_A_RULEs of @nest to @q. */
static int tbf_rules_add(struct lnetk_tbf_qinfo *q, struct nlattr *nest)
{
	struct lnetk_tbf_rule *grown;
	struct nlattr *a;
	size_t n = 0;
	int rem, rc;

	nla_for_each_nested(a, nest, rem) {
		if (nla_type(a) == LNETK_TBFQ_A_RULE)
			n++;
	}
	grown = realloc(q->rules, (q->nrules + n + 1) * sizeof(*q->rules));
	if (!grown)
		return -ENOMEM;
	q->rules = grown;
	nla_for_each_nested(a, nest, rem) {
		struct lnetk_tbf_rule *r = &q->rules[q->nrules];

		if (nla_type(a) != LNETK_TBFQ_A_RULE)
			continue;
		rc = parse_tbf_rule(a, r);
		if (rc)
			return rc;
		r->text = strdup(r->text);
		if (!r->text)
			return -ENOMEM;
		q->nrules++;
	}
	return 0;
}

/* One LNETK_TBF_A_QUEUE_INFO: a queue, or the rest of the last one. */
static int parse_tbf_queue(struct nlattr *nest, struct lnetk_tbf *t)
{
	struct nlattr *tb[LNETK_TBFQ_A_MAX + 1];
	struct lnetk_tbf_qinfo *q;
	uint32_t first;
	uint8_t queue;
	int rc;

	if (nla_parse_nested(tb, LNETK_TBFQ_A_MAX, nest, tbfq_policy) < 0 ||
	    !tb[LNETK_TBFQ_A_QUEUE])
		return -EPROTO;
	queue = nla_get_u8(tb[LNETK_TBFQ_A_QUEUE]);
	first = get_u32_or(tb[LNETK_TBFQ_A_FIRST], 0);
	if (first) {
		q = t->nqueues ? &t->queues[t->nqueues - 1] : NULL;
		if (!q || q->queue != queue || q->nrules != first)
			return -EPROTO;
		return tbf_rules_add(q, nest);
	}
	if (t->nqueues >= sizeof(t->queues) / sizeof(t->queues[0]))
		return -EPROTO;
	q = &t->queues[t->nqueues++];
	q->queue = queue;
	q->depth = get_u32_or(tb[LNETK_TBFQ_A_DEPTH], 0);
	q->nclasses = get_u32_or(tb[LNETK_TBFQ_A_NCLASSES], 0);
	q->nactive = get_u32_or(tb[LNETK_TBFQ_A_NACTIVE], 0);
	q->queued = get_u64_or(tb[LNETK_TBFQ_A_QUEUED], 0);
	rc = get_str(q->type, sizeof(q->type), tb[LNETK_TBFQ_A_TYPE]);
	return rc ? rc : tbf_rules_add(q, nest);
}

static int parse_tbf(struct req *rq, struct nlattr **top, struct nlmsghdr *nlh __maybe_unused)
{
	struct nlattr *tb[LNETK_TBF_A_MAX + 1], *a;
	char service[LNETK_TBF_SERVICE_MAX];
	struct tbf_acc *acc = rq->arg;
	int rem, rc;

	if (!top[LNETK_A_TBF] ||
	    nla_parse_nested(tb, LNETK_TBF_A_MAX, top[LNETK_A_TBF], tbf_policy) < 0 ||
	    !tb[LNETK_TBF_A_SERVICE])
		return -EPROTO;
	rc = get_str(service, sizeof(service), tb[LNETK_TBF_A_SERVICE]);
	if (rc)
		return rc;
	if (acc->have && strcmp(acc->t.service, service)) {
		rc = tbf_acc_flush(acc);
		if (rc)
			return rc;
	}
	if (!acc->have) {
		memcpy(acc->t.service, service, sizeof(service));
		acc->have = true;
	}
	nla_for_each_nested(a, top[LNETK_A_TBF], rem) {
		if (nla_type(a) != LNETK_TBF_A_QUEUE_INFO)
			continue;
		rc = parse_tbf_queue(a, &acc->t);
		if (rc)
			return rc;
	}
	return 0;
}

/* Both read by dump, so that a policy of any size comes whole. */
static int tbf_read(struct lnetk *lk, const char *service, lnetk_tbf_cb cb, void *arg,
		    struct lnetk_err *err)
{
	struct tbf_in in = {.service = service, .queue = -1};
	struct tbf_acc acc = {.cb = cb, .arg = arg};
	struct req rq = {.err = err, .parse = parse_tbf, .arg = &acc};
	int rc;

	rc = run(lk, LNETK_CMD_TBF_GET, NLM_F_DUMP, service ? tbf_size(&in) : 0,
		 service ? put_tbf : NULL, &in, &rq);
	if (!rc)
		return tbf_acc_flush(&acc);
	tbf_acc_clear(&acc);
	return rc;
}

int lnetk_tbf_get(struct lnetk *lk, const char *service, lnetk_tbf_cb cb, void *arg,
		  struct lnetk_err *err)
{
	return tbf_read(lk, service, cb, arg, err);
}

int lnetk_tbf_dump(struct lnetk *lk, lnetk_tbf_cb cb, void *arg, struct lnetk_err *err)
{
	return tbf_read(lk, NULL, cb, arg, err);
}

static const struct nla_policy tbfc_policy[LNETK_TBFC_A_MAX + 1] = {
	[LNETK_TBFC_A_QUEUE] = {.type = NLA_U8},     [LNETK_TBFC_A_KEY] = {.type = NLA_STRING},
	[LNETK_TBFC_A_RULE] = {.type = NLA_STRING},  [LNETK_TBFC_A_QUEUED] = {.type = NLA_U64},
	[LNETK_TBFC_A_ENQUEUED] = {.type = NLA_U64}, [LNETK_TBFC_A_DISPATCHED] = {.type = NLA_U64},
	[LNETK_TBFC_A_WAIT_NS] = {.type = NLA_U64},  [LNETK_TBFC_A_THROTTLED] = {.type = NLA_U64},
};

/* One message of a class dump: a policy's service and some of its classes. */
static int parse_tbf_classes(struct req *rq, struct nlattr **top,
			     struct nlmsghdr *nlh __maybe_unused)
{
	struct nlattr *tb[LNETK_TBF_A_MAX + 1], *ctb[LNETK_TBFC_A_MAX + 1], *a;
	struct dump *d = rq->arg;
	struct lnetk_tbf_class c;
	char service[LNETK_TBF_SERVICE_MAX];
	int rem, rc;

	if (!top[LNETK_A_TBF] ||
	    nla_parse_nested(tb, LNETK_TBF_A_MAX, top[LNETK_A_TBF], tbf_policy) < 0 ||
	    !tb[LNETK_TBF_A_SERVICE])
		return -EPROTO;
	rc = get_str(service, sizeof(service), tb[LNETK_TBF_A_SERVICE]);
	nla_for_each_nested(a, top[LNETK_A_TBF], rem) {
		if (rc || nla_type(a) != LNETK_TBF_A_CLASS)
			continue;
		if (nla_parse_nested(ctb, LNETK_TBFC_A_MAX, a, tbfc_policy) < 0 ||
		    !ctb[LNETK_TBFC_A_QUEUE] || !ctb[LNETK_TBFC_A_KEY] || !ctb[LNETK_TBFC_A_RULE]) {
			rc = -EPROTO;
			break;
		}
		memset(&c, 0, sizeof(c));
		c.service = service;
		c.queue = nla_get_u8(ctb[LNETK_TBFC_A_QUEUE]);
		c.key = nla_data(ctb[LNETK_TBFC_A_KEY]);
		c.rule = nla_data(ctb[LNETK_TBFC_A_RULE]);
		c.queued = get_u64_or(ctb[LNETK_TBFC_A_QUEUED], 0);
		c.enqueued = get_u64_or(ctb[LNETK_TBFC_A_ENQUEUED], 0);
		c.dispatched = get_u64_or(ctb[LNETK_TBFC_A_DISPATCHED], 0);
		c.wait_ns = get_u64_or(ctb[LNETK_TBFC_A_WAIT_NS], 0);
		c.throttled = get_u64_or(ctb[LNETK_TBFC_A_THROTTLED], 0);
		rc = cb_rc(d->cb.tbf_class(&c, d->arg));
	}
	return rc;
}

int lnetk_tbf_classes(struct lnetk *lk, const char *service, lnetk_tbf_class_cb cb, void *arg,
		      struct lnetk_err *err)
{
	struct tbf_in in = {.service = service, .queue = -1};
	struct dump d = {.cb.tbf_class = cb, .arg = arg};
	struct req rq = {.err = err, .parse = parse_tbf_classes, .arg = &d};

	return run(lk, LNETK_CMD_TBF_CLASS_GET, NLM_F_DUMP, service ? tbf_size(&in) : 0,
		   service ? put_tbf : NULL, &in, &rq);
}

struct load_in {
	const char *service;
	uint32_t ms;
	struct lnetk_tbf_load_class *cls;
	size_t n;
	uint64_t elapsed;
};

static int put_load(struct nl_msg *msg, const void *in)
{
	const struct load_in *l = in;
	struct nlattr *nest = nla_nest_start(msg, LNETK_A_TBF), *cn;
	size_t i;

	if (!nest || nla_put_string(msg, LNETK_TBF_A_SERVICE, l->service) < 0 ||
	    nla_put_u32(msg, LNETK_TBF_A_LOAD_MS, l->ms) < 0)
		return -NLE_NOMEM;
	for (i = 0; i < l->n; i++) {
		cn = nla_nest_start(msg, LNETK_TBF_A_LOAD_CLASS);
		if (!cn || nla_put_string(msg, LNETK_TBFL_A_NID, l->cls[i].nid) < 0 ||
		    (l->cls[i].queue >= 0 &&
		     nla_put_u8(msg, LNETK_TBFL_A_QUEUE, (uint8_t)l->cls[i].queue) < 0) ||
		    nla_nest_end(msg, cn) < 0)
			return -NLE_NOMEM;
	}
	return nla_nest_end(msg, nest);
}

static const struct nla_policy tbfl_policy[LNETK_TBFL_A_MAX + 1] = {
	[LNETK_TBFL_A_NID] = {.type = NLA_STRING},
	[LNETK_TBFL_A_QUEUE] = {.type = NLA_U8},
	[LNETK_TBFL_A_ENQUEUED] = {.type = NLA_U64},
	[LNETK_TBFL_A_DISPATCHED] = {.type = NLA_U64},
};

static int parse_load(struct req *rq, struct nlattr **top, struct nlmsghdr *nlh __maybe_unused)
{
	struct nlattr *tb[LNETK_TBF_A_MAX + 1], *ctb[LNETK_TBFL_A_MAX + 1], *a;
	struct load_in *l = rq->arg;
	size_t i = 0;
	int rem;

	if (!top[LNETK_A_TBF] ||
	    nla_parse_nested(tb, LNETK_TBF_A_MAX, top[LNETK_A_TBF], tbf_policy) < 0 ||
	    !tb[LNETK_TBF_A_ELAPSED_NS])
		return -EPROTO;
	l->elapsed = nla_get_u64(tb[LNETK_TBF_A_ELAPSED_NS]);
	nla_for_each_nested(a, top[LNETK_A_TBF], rem) {
		if (nla_type(a) != LNETK_TBF_A_LOAD_CLASS)
			continue;
		if (i >= l->n || nla_parse_nested(ctb, LNETK_TBFL_A_MAX, a, tbfl_policy) < 0)
			return -EPROTO;
		l->cls[i].enqueued = get_u64_or(ctb[LNETK_TBFL_A_ENQUEUED], 0);
		l->cls[i].dispatched = get_u64_or(ctb[LNETK_TBFL_A_DISPATCHED], 0);
		i++;
	}
	return i == l->n ? 0 : -EPROTO;
}

int lnetk_tbf_load(struct lnetk *lk, const char *service, uint32_t ms,
		   struct lnetk_tbf_load_class *classes, size_t nclasses, uint64_t *elapsed_ns,
		   struct lnetk_err *err)
{
	struct load_in in = {service, ms, classes, nclasses, 0};
	struct req rq = {.err = err, .parse = parse_load, .arg = &in};
	int rc = run(lk, LNETK_CMD_TBF_LOAD, 0, 128 + strlen(service) + nclasses * 96, put_load,
		     &in, &rq);

	if (!rc && elapsed_ns)
		*elapsed_ns = in.elapsed;
	return rc;
}

/* --- selection ------------------------------------------------------------------------ */

struct select_in {
	const struct lnetk_select_req *req;
	bool explain;
};

static int put_select(struct nl_msg *msg, const void *in)
{
	const struct select_in *s = in;
	const struct lnetk_select_req *req = s->req;
	struct nlattr *nest;

	if (s->explain && nla_put_u32(msg, LNETK_A_FLAGS, LNETK_F_EXPLAIN) < 0)
		return -NLE_NOMEM;
	nest = nla_nest_start(msg, LNETK_A_SELECT);
	if (!nest || nla_put_string(msg, LNETK_SEL_A_DST, req->dst) < 0 ||
	    (req->src && nla_put_string(msg, LNETK_SEL_A_SRC, req->src) < 0) ||
	    nla_put_u8(msg, LNETK_SEL_A_KIND, req->kind) < 0 ||
	    nla_put_s32(msg, LNETK_SEL_A_MD_CPT, req->md_cpt) < 0)
		return -NLE_NOMEM;
	return nla_nest_end(msg, nest);
}

static const struct nla_policy sel_policy[LNETK_SEL_A_MAX + 1] = {
	[LNETK_SEL_A_NI] = {.type = NLA_STRING},
	[LNETK_SEL_A_PEER_NI] = {.type = NLA_STRING},
	[LNETK_SEL_A_GATEWAY] = {.type = NLA_STRING},
	[LNETK_SEL_A_ENTRY] = {.type = NLA_NESTED},
};

static const struct nla_policy entry_policy[LNETK_ENTRY_A_MAX + 1] = {
	[LNETK_ENTRY_A_STEP] = {.type = NLA_U8},    [LNETK_ENTRY_A_NID] = {.type = NLA_STRING},
	[LNETK_ENTRY_A_CRIT] = {.type = NLA_U8},    [LNETK_ENTRY_A_LOST_AT] = {.type = NLA_U8},
	[LNETK_ENTRY_A_KEY] = {.type = NLA_NESTED},
};

static const struct nla_policy key_policy[LNETK_KEY_A_MAX + 1] = {
	[LNETK_KEY_A_CRIT] = {.type = NLA_U8},
	[LNETK_KEY_A_VALUE] = {.type = NLA_U64},
	[LNETK_KEY_A_RULE] = {.type = NLA_U32},
};

static int parse_entry(struct nlattr *nest, struct lnetk_entry *e)
{
	struct nlattr *tb[LNETK_ENTRY_A_MAX + 1], *a;
	int rem, rc;

	memset(e, 0, sizeof(*e));
	if (nla_parse_nested(tb, LNETK_ENTRY_A_MAX, nest, entry_policy) < 0)
		return -EPROTO;
	e->step = tb[LNETK_ENTRY_A_STEP] ? nla_get_u8(tb[LNETK_ENTRY_A_STEP]) : 0;
	e->crit = tb[LNETK_ENTRY_A_CRIT] ? nla_get_u8(tb[LNETK_ENTRY_A_CRIT]) : 0;
	e->lost_at = tb[LNETK_ENTRY_A_LOST_AT] ? nla_get_u8(tb[LNETK_ENTRY_A_LOST_AT]) : 0;
	rc = get_str(e->nid, sizeof(e->nid), tb[LNETK_ENTRY_A_NID]);
	if (rc)
		return rc;
	nla_for_each_nested(a, nest, rem) {
		struct nlattr *ktb[LNETK_KEY_A_MAX + 1];
		struct lnetk_key *k;

		if (nla_type(a) != LNETK_ENTRY_A_KEY)
			continue;
		if (e->nkeys == LNETK_ENTRY_KEYS_MAX)
			return -EPROTO;
		if (nla_parse_nested(ktb, LNETK_KEY_A_MAX, a, key_policy) < 0)
			return -EPROTO;
		k = &e->key[e->nkeys++];
		k->crit = ktb[LNETK_KEY_A_CRIT] ? nla_get_u8(ktb[LNETK_KEY_A_CRIT]) : 0;
		k->value = ktb[LNETK_KEY_A_VALUE] ? (int64_t)nla_get_u64(ktb[LNETK_KEY_A_VALUE])
						  : 0;
		k->rule = get_s32_or(ktb[LNETK_KEY_A_RULE], -1);
	}
	return 0;
}

struct select_out {
	struct lnetk_selection *sel;
	struct lnetk_explain *ex;
};

static int parse_select(struct req *rq, struct nlattr **tb, struct nlmsghdr *nlh __maybe_unused)
{
	struct nlattr *stb[LNETK_SEL_A_MAX + 1], *a;
	struct select_out *out = rq->arg;
	int rem, rc;

	if (!tb[LNETK_A_SELECT] ||
	    nla_parse_nested(stb, LNETK_SEL_A_MAX, tb[LNETK_A_SELECT], sel_policy) < 0 ||
	    !stb[LNETK_SEL_A_NI] || !stb[LNETK_SEL_A_PEER_NI])
		return -EPROTO;
	rc = get_str(out->sel->ni, sizeof(out->sel->ni), stb[LNETK_SEL_A_NI]);
	if (!rc)
		rc = get_str(out->sel->peer_ni, sizeof(out->sel->peer_ni),
			     stb[LNETK_SEL_A_PEER_NI]);
	if (!rc)
		rc = get_str(out->sel->gateway, sizeof(out->sel->gateway),
			     stb[LNETK_SEL_A_GATEWAY]);
	if (rc || !out->ex)
		return rc;
	nla_for_each_nested(a, tb[LNETK_A_SELECT], rem) {
		if (nla_type(a) != LNETK_SEL_A_ENTRY)
			continue;
		if (out->ex->n == out->ex->cap) {
			out->ex->dropped++;
			continue;
		}
		rc = parse_entry(a, &out->ex->ent[out->ex->n]);
		if (rc)
			return rc;
		out->ex->n++;
	}
	return 0;
}

static int select_run(struct lnetk *lk, uint8_t cmd, const struct lnetk_select_req *req,
		      struct lnetk_selection *sel, struct lnetk_explain *ex, bool flag,
		      struct lnetk_err *err)
{
	struct select_in in = {req, flag};
	struct select_out out = {sel, ex};
	struct req rq = {.err = err, .parse = parse_select, .arg = &out};

	memset(sel, 0, sizeof(*sel));
	if (ex)
		ex->n = ex->dropped = 0;
	return run(lk, cmd, 0, 256, put_select, &in, &rq);
}

int lnetk_select(struct lnetk *lk, const struct lnetk_select_req *req, struct lnetk_selection *sel,
		 struct lnetk_explain *ex, struct lnetk_err *err)
{
	return select_run(lk, LNETK_CMD_SELECT, req, sel, ex, ex != NULL, err);
}

int lnetk_explain(struct lnetk *lk, const struct lnetk_select_req *req, struct lnetk_selection *sel,
		  struct lnetk_explain *ex, struct lnetk_err *err)
{
	return select_run(lk, LNETK_CMD_EXPLAIN, req, sel, ex, false, err);
}

/* --- batches ----------------------------------------------------------------------------- */

struct lnetk_batch {
	struct lnetk *lk;
	struct nl_msg *msg;
	size_t size; /* what msg can hold */
	size_t items;
};

int lnetk_batch_new(struct lnetk *lk, uint32_t flags, struct lnetk_batch **bp)
{
	struct lnetk_batch *b = calloc(1, sizeof(*b));

	*bp = NULL;
	if (!b)
		return -ENOMEM;
	b->lk = lk;
	b->size = BATCH_SIZE_FIRST;
	b->msg = new_msg(lk, LNETK_CMD_BATCH, 0, b->size);
	if (!b->msg || (flags && nla_put_u32(b->msg, LNETK_A_FLAGS, flags) < 0)) {
		lnetk_batch_free(b);
		return -ENOMEM;
	}
	*bp = b;
	return 0;
}

/*
 * When an item does not fit, it is cut off, the message doubled and the
 * item tried again.  The doubling is a realloc(): a multi-megabyte message
 * is mmap()ed, so the kernel moves its pages, where a new message meant a
 * copy into a fresh set of pages, each of them faulted in.
 */
static int batch_grow(struct lnetk_batch *b)
{
	if (b->size >= BATCH_SIZE_MAX)
		return -E2BIG;
	if (nlmsg_expand(b->msg, 2 * b->size + NLMSG_HDRLEN + GENL_HDRLEN + 256) < 0)
		return -ENOMEM;
	b->size *= 2;
	return 0;
}

static int batch_put(struct lnetk_batch *b, int (*put)(struct nl_msg *msg, const void *in),
		     const void *in)
{
	for (;;) {
		uint32_t mark = nlmsg_hdr(b->msg)->nlmsg_len;
		int rc = put(b->msg, in);

		if (rc >= 0) {
			b->items++;
			return 0;
		}
		nlmsg_hdr(b->msg)->nlmsg_len = mark;
		if (rc != -NLE_NOMEM)
			return nlerr(rc);
		rc = batch_grow(b);
		if (rc)
			return rc;
	}
}

int lnetk_batch_ni(struct lnetk_batch *b, const struct lnetk_ni *ni)
{
	return batch_put(b, put_ni_add, ni);
}

/*
 * One attribute at @at: its header, @len bytes of @data, zeroed padding;
 * returns what follows.  The padding is zeroed by zeroing the last four
 * bytes before the data goes in, not by a call to memset() for 0 to 3
 * bytes (@len is at least 1, so those four bytes are the attribute's).
 */
static char *batch_attr(char *at, uint16_t type, const void *data, size_t len)
{
	struct nlattr *nla = (struct nlattr *)at;
	char *end = at + NLA_HDRLEN + NLA_ALIGN(len);
	const uint32_t zero = 0;

	nla->nla_type = type;
	nla->nla_len = (uint16_t)(NLA_HDRLEN + len);
	memcpy(end - sizeof(zero), &zero, sizeof(zero));
	memcpy(at + NLA_HDRLEN, data, len);
	return end;
}

/*
 * A peer as put_peer() writes it, byte for byte, but with one reservation
 * for the whole item: a restore puts 50,000 peers, and libnl's per
 * attribute calls (a bounds check, a padding memset and a length update
 * each, through the PLT) were most of the time spent building the batch.
 * Each NID's length is taken once (for the first BATCH_NLEN NIDs).
 */
#define BATCH_NLEN 8

int lnetk_batch_peer(struct lnetk_batch *b, const char *primary, bool mr, const char *const *nids,
		     size_t nnids)
{
	size_t plen = strlen(primary) + 1, len, i, nlens[BATCH_NLEN];
	struct nlattr *nest;
	char *at;
	uint8_t mr8 = mr;
	int rc;

	len = NLA_HDRLEN + NLA_ALIGN(NLA_HDRLEN + plen) + NLA_ALIGN(NLA_HDRLEN + 1);
	for (i = 0; i < nnids; i++) {
		size_t nlen = strlen(nids[i]) + 1;

		if (i < BATCH_NLEN)
			nlens[i] = nlen;
		len += 2 * NLA_HDRLEN + NLA_ALIGN(nlen);
	}
	/* Nests longer than an attribute can say: put_peer() refuses them too. */
	if (len > UINT16_MAX)
		return -EMSGSIZE;
	while (!(nest = nlmsg_reserve(b->msg, len, NLA_ALIGNTO))) {
		rc = batch_grow(b);
		if (rc)
			return rc;
	}
	nest->nla_type = NLA_F_NESTED | LNETK_A_PEER; /* as nla_nest_start() has it */
	nest->nla_len = (uint16_t)len;
	at = batch_attr((char *)nest + NLA_HDRLEN, LNETK_PEER_A_PRIMARY, primary, plen);
	at = batch_attr(at, LNETK_PEER_A_MR, &mr8, 1);
	for (i = 0; i < nnids; i++) {
		size_t nlen = i < BATCH_NLEN ? nlens[i] : strlen(nids[i]) + 1;
		struct nlattr *pni = (struct nlattr *)at;

		pni->nla_type = NLA_F_NESTED | LNETK_PEER_A_PEER_NI;
		pni->nla_len = (uint16_t)(2 * NLA_HDRLEN + NLA_ALIGN(nlen));
		at = batch_attr(at + NLA_HDRLEN, LNETK_PNI_A_NID, nids[i], nlen);
	}
	b->items++;
	return 0;
}

int lnetk_batch_route(struct lnetk_batch *b, const struct lnetk_route *route)
{
	return batch_put(b, put_route, route);
}

int lnetk_batch_rule(struct lnetk_batch *b, const struct lnetk_rule *rule)
{
	return batch_put(b, put_rule, rule);
}

int lnetk_batch_global(struct lnetk_batch *b, const char *name, uint32_t value)
{
	struct lnetk_global g;

	return global_fill(&g, name, value) ?: batch_put(b, put_global, &g);
}

size_t lnetk_batch_items(const struct lnetk_batch *b)
{
	return b->items;
}

size_t lnetk_batch_bytes(const struct lnetk_batch *b)
{
	return nlmsg_hdr(b->msg)->nlmsg_len;
}

static int parse_count(struct req *rq, struct nlattr **tb, struct nlmsghdr *nlh __maybe_unused)
{
	uint32_t *applied = rq->arg;

	if (applied && tb[LNETK_A_COUNT])
		*applied = nla_get_u32(tb[LNETK_A_COUNT]);
	return 0;
}

int lnetk_batch_send(struct lnetk_batch *b, uint32_t *applied, struct lnetk_err *err)
{
	struct nlmsghdr *nlh = nlmsg_hdr(b->msg);
	struct req rq = {.err = err, .batch = true, .parse = parse_count, .arg = applied};
	int fd = nl_socket_get_fd(b->lk->sk);

	/*
	 * The kernel takes a message only if it fits the socket's send buffer:
	 * raise it to the batch (SO_SNDBUFFORCE needs CAP_NET_ADMIN, which a
	 * batch needs anyway; SO_SNDBUF is capped by wmem_max).
	 */
	if ((int)nlh->nlmsg_len + 4096 > b->lk->sndbuf) {
		int want = (int)nlh->nlmsg_len + 64 * 1024;

		if (!set_int_opt(fd, SOL_SOCKET, SO_SNDBUFFORCE, want) ||
		    !set_int_opt(fd, SOL_SOCKET, SO_SNDBUF, want))
			b->lk->sndbuf = want;
	}
	if (applied)
		*applied = 0;
	nlh->nlmsg_seq = NL_AUTO_SEQ; /* a fresh sequence number each time it is sent */
	return transact(b->lk, b->msg, &rq);
}

void lnetk_batch_free(struct lnetk_batch *b)
{
	if (!b)
		return;
	nlmsg_free(b->msg);
	free(b);
}

/* --- change notifications ------------------------------------------------------------------- */

struct lnetk_events {
	struct nl_sock *sk;
	int family;
	lnetk_event_cb cb;
	void *arg;
	char *buf;
};

#define EVENTS_BUF 8192

int lnetk_events_open(lnetk_event_cb cb, void *arg, struct lnetk_events **evp)
{
	struct lnetk_events *ev = calloc(1, sizeof(*ev));
	int rc = -ENOMEM, grp;

	*evp = NULL;
	if (!ev)
		return -ENOMEM;
	ev->cb = cb;
	ev->arg = arg;
	ev->sk = nl_socket_alloc();
	ev->buf = malloc(EVENTS_BUF);
	if (!ev->sk || !ev->buf)
		goto err;
	rc = nlerr(genl_connect(ev->sk));
	if (rc)
		goto err;
	ev->family = genl_ctrl_resolve(ev->sk, LNETK_GENL_NAME);
	grp = genl_ctrl_resolve_grp(ev->sk, LNETK_GENL_NAME, LNETK_MCGRP_EVENTS);
	if (ev->family < 0 || grp < 0) {
		rc = (ev->family < 0 ? ev->family : grp) == -NLE_OBJ_NOTFOUND
			     ? -ENOENT
			     : nlerr(ev->family < 0 ? ev->family : grp);
		goto err;
	}
	rc = nlerr(nl_socket_add_membership(ev->sk, grp));
	if (rc)
		goto err;
	*evp = ev;
	return 0;
err:
	lnetk_events_close(ev);
	return rc;
}

int lnetk_events_fd(const struct lnetk_events *ev)
{
	return nl_socket_get_fd(ev->sk);
}

int lnetk_events_set_buffer(struct lnetk_events *ev, size_t bytes)
{
	int fd = nl_socket_get_fd(ev->sk);

	if (bytes > INT_MAX)
		return -EINVAL;
	/* SO_RCVBUFFORCE needs CAP_NET_ADMIN; SO_RCVBUF is capped by rmem_max. */
	if (!set_int_opt(fd, SOL_SOCKET, SO_RCVBUFFORCE, (int)bytes))
		return 0;
	return set_int_opt(fd, SOL_SOCKET, SO_RCVBUF, (int)bytes);
}

/*
 * Every datagram waiting on @sk, read by hand rather than through
 * nl_recvmsgs(): the one error that matters here, ENOBUFS (notifications
 * were lost), must reach the caller as itself.  @each gets every message
 * and says whether it was one for the caller (1) or not (0); returns how
 * many were, or a negative errno.
 */
static int read_datagrams(struct nl_sock *sk, char *buf, int (*each)(struct nlmsghdr *, void *),
			  void *arg)
{
	int fd = nl_socket_get_fd(sk), n = 0;

	for (;;) {
		ssize_t len = recv(fd, buf, EVENTS_BUF, MSG_DONTWAIT);
		struct nlmsghdr *nlh;
		int rem;

		if (len < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return n;
			return -errno;
		}
		rem = (int)len;
		for (nlh = (struct nlmsghdr *)buf; nlmsg_ok(nlh, rem); nlh = nlmsg_next(nlh, &rem))
			n += each(nlh, arg);
	}
}

static int one_event(struct nlmsghdr *nlh, void *arg)
{
	struct lnetk_events *ev = arg;
	struct nlattr *tb[LNETK_A_MAX + 1];
	struct genlmsghdr *gh = nlmsg_data(nlh);

	if (nlh->nlmsg_type != ev->family ||
	    genlmsg_parse(nlh, 0, tb, LNETK_A_MAX, top_policy) < 0 || !tb[LNETK_A_GENERATION])
		return 0;
	ev->cb(gh->cmd, nla_get_u64(tb[LNETK_A_GENERATION]), ev->arg);
	return 1;
}

int lnetk_events_dispatch(struct lnetk_events *ev)
{
	return read_datagrams(ev->sk, ev->buf, one_event, ev);
}

void lnetk_events_close(struct lnetk_events *ev)
{
	if (!ev)
		return;
	nl_socket_free(ev->sk);
	free(ev->buf);
	free(ev);
}

/* --- the family coming and going ---------------------------------------------------------- */

struct lnetk_watch {
	struct nl_sock *sk;
	lnetk_family_cb cb;
	void *arg;
	char *buf;
};

int lnetk_watch_open(lnetk_family_cb cb, void *arg, struct lnetk_watch **wp)
{
	struct lnetk_watch *w = calloc(1, sizeof(*w));
	int rc = -ENOMEM, grp;

	*wp = NULL;
	if (!w)
		return -ENOMEM;
	w->cb = cb;
	w->arg = arg;
	w->sk = nl_socket_alloc();
	w->buf = malloc(EVENTS_BUF);
	if (!w->sk || !w->buf)
		goto err;
	rc = nlerr(genl_connect(w->sk));
	if (rc)
		goto err;
	/* The controller is always there: resolving its group loads nothing. */
	grp = genl_ctrl_resolve_grp(w->sk, CTRL_NAME, CTRL_GROUP_NOTIFY);
	if (grp < 0) {
		rc = nlerr(grp);
		goto err;
	}
	rc = nlerr(nl_socket_add_membership(w->sk, grp));
	if (rc)
		goto err;
	*wp = w;
	return 0;
err:
	lnetk_watch_close(w);
	return rc;
}

int lnetk_watch_fd(const struct lnetk_watch *w)
{
	return nl_socket_get_fd(w->sk);
}

static const struct nla_policy ctrl_policy[CTRL_ATTR_MAX + 1] = {
	[CTRL_ATTR_FAMILY_ID] = {.type = NLA_U16},
	[CTRL_ATTR_FAMILY_NAME] = {.type = NLA_STRING},
};

static int one_family_change(struct nlmsghdr *nlh, void *arg)
{
	struct lnetk_watch *w = arg;
	struct nlattr *tb[CTRL_ATTR_MAX + 1];
	struct genlmsghdr *gh = nlmsg_data(nlh);

	if (nlh->nlmsg_type != GENL_ID_CTRL ||
	    (gh->cmd != CTRL_CMD_NEWFAMILY && gh->cmd != CTRL_CMD_DELFAMILY) ||
	    genlmsg_parse(nlh, 0, tb, CTRL_ATTR_MAX, ctrl_policy) < 0 ||
	    !tb[CTRL_ATTR_FAMILY_NAME] ||
	    strcmp(nla_get_string(tb[CTRL_ATTR_FAMILY_NAME]), LNETK_GENL_NAME))
		return 0;
	w->cb(gh->cmd == CTRL_CMD_NEWFAMILY,
	      tb[CTRL_ATTR_FAMILY_ID] ? nla_get_u16(tb[CTRL_ATTR_FAMILY_ID]) : -1, w->arg);
	return 1;
}

/* Read by hand, as events are: ENOBUFS must reach the caller as itself. */
int lnetk_watch_dispatch(struct lnetk_watch *w)
{
	return read_datagrams(w->sk, w->buf, one_family_change, w);
}

void lnetk_watch_close(struct lnetk_watch *w)
{
	if (!w)
		return;
	nl_socket_free(w->sk);
	free(w->buf);
	free(w);
}

int lnetk_family_present(void)
{
	struct nl_sock *sk = nl_socket_alloc();
	struct nl_cache *cache = NULL;
	struct genl_family *f;
	int rc;

	if (!sk)
		return -ENOMEM;
	/* A dump of every family: unlike a lookup by name, it loads no module. */
	rc = nlerr(genl_connect(sk));
	if (!rc)
		rc = nlerr(genl_ctrl_alloc_cache(sk, &cache));
	if (!rc) {
		f = genl_ctrl_search_by_name(cache, LNETK_GENL_NAME);
		rc = f != NULL;
		if (f)
			genl_family_put(f);
	}
	nl_cache_free(cache);
	nl_socket_free(sk);
	return rc;
}
