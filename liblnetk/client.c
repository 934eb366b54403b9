// SPDX-License-Identifier: GPL-2.0
/*
 * client.c - the userspace side of kernel/uapi/lnetk.h, over libnl: the socket,
 * the family, one request and its replies (ACK, error and extack, the
 * dump loop), and the module-level commands (GET_INFO, BUMP).
 *
 * Why it looks the way it does:
 *
 *  - libnl builds messages and runs the receive loop; its -NLE_* codes
 *    become errno in exactly one place, lk_nlerr().  The kernel's own errno is
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
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/netlink.h>
#include <netlink/genl/ctrl.h>

#include "client-int.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

#define RECV_BUF_DEFAULT (68 * 1024)

/* The one place libnl's error codes become errno. */
int lk_nlerr(int e)
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

void lk_err_reset(struct lnetk_err *err)
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
const struct nla_policy lk_top_policy[LNETK_A_MAX + 1] = {
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
	[LNETK_A_FAULT] = {.type = NLA_NESTED},
	[LNETK_A_HEALTH] = {.type = NLA_NESTED},
};

/* A reply: note its generation, then hand it to the request's parser. */
static int on_valid(struct nl_msg *msg, void *arg)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct nlattr *tb[LNETK_A_MAX + 1];
	struct req *rq = arg;
	int rc;

	rc = genlmsg_parse(nlh, 0, tb, LNETK_A_MAX, lk_top_policy);
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
	return lk_nlerr(rc);
}

/* Send @msg and read until its ACK, error or end of dump. */
int lk_transact(struct lnetk *lk, struct nl_msg *msg, struct req *rq)
{
	int rc;

	rq->lk = lk;
	lk_err_reset(rq->err);
	lk->reads = 0;
	nl_cb_set(lk->cb, NL_CB_VALID, NL_CB_CUSTOM, on_valid, rq);
	nl_cb_set(lk->cb, NL_CB_ACK, NL_CB_CUSTOM, on_ack, rq);
	nl_cb_set(lk->cb, NL_CB_FINISH, NL_CB_CUSTOM, on_finish, rq);
	nl_cb_set(lk->cb, NL_CB_DUMP_INTR, NL_CB_CUSTOM, on_dump_intr, rq);
	nl_cb_err(lk->cb, NL_CB_CUSTOM, on_error, rq);

	rc = nl_send_auto(lk->sk, msg);
	if (rc < 0)
		return lk_nlerr(rc);
	rq->sent = nlmsg_hdr(msg);
	rc = read_replies(lk, rq);
	if (rc)
		return rc;
	if (rq->error)
		return rq->error;
	return rq->intr ? -EAGAIN : 0;
}

/* A request for @cmd with room for @size bytes of attributes. */
struct nl_msg *lk_new_msg(const struct lnetk *lk, uint8_t cmd, int flags, size_t size)
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
int lk_run(struct lnetk *lk, uint8_t cmd, int flags, size_t size,
	   int (*put)(struct nl_msg *msg, const void *in), const void *in, struct req *rq)
{
	struct nl_msg *msg = lk_new_msg(lk, cmd, flags, size);
	int rc;

	if (!msg) {
		lk_err_reset(rq->err);
		return -ENOMEM;
	}
	rc = put ? lk_nlerr(put(msg, in)) : 0;
	if (rc)
		lk_err_reset(rq->err);
	else
		rc = lk_transact(lk, msg, rq);
	nlmsg_free(msg);
	return rc;
}

/* --- connection --------------------------------------------------------------- */

int lk_set_int_opt(int fd, int level, int name, int value)
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

	rc = lk_set_int_opt(fd, SOL_SOCKET, SO_RCVBUFFORCE, (int)bytes);
	if (rc)
		rc = lk_set_int_opt(fd, SOL_SOCKET, SO_RCVBUF, (int)bytes);
	return rc ? rc : lk_nlerr(nl_socket_set_msg_buf_size(lk->sk, bytes));
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
	rc = lk_nlerr(genl_connect(lk->sk));
	if (rc)
		goto err;
	fd = nl_socket_get_fd(lk->sk);
	/* Extack tells the person why; CAP_ACK keeps a refused batch from being echoed. */
	rc = lk_set_int_opt(fd, SOL_NETLINK, NETLINK_EXT_ACK, 1);
	if (!rc)
		rc = lk_set_int_opt(fd, SOL_NETLINK, NETLINK_CAP_ACK, 1);
	if (!rc)
		rc = set_recv_buffer(lk, recv_buffer);
	if (rc)
		goto err;
	lk->family = genl_ctrl_resolve(lk->sk, LNETK_GENL_NAME);
	if (lk->family < 0) {
		rc = lk->family == -NLE_OBJ_NOTFOUND ? -ENOENT : lk_nlerr(lk->family);
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
int lk_get_str(char *dst, size_t size, const struct nlattr *a)
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

/* --- the module: its version and generation ------------------------------------ */

static int parse_info(struct req *rq, struct nlattr **tb, struct nlmsghdr *nlh __maybe_unused)
{
	struct lnetk_info *info = rq->arg;

	info->generation = tb[LNETK_A_GENERATION] ? nla_get_u64(tb[LNETK_A_GENERATION]) : 0;
	info->count = get_u32_or(tb[LNETK_A_COUNT], 0);
	return lk_get_str(info->version, sizeof(info->version), tb[LNETK_A_VERSION]);
}

int lnetk_get_info(struct lnetk *lk, struct lnetk_info *info, struct lnetk_err *err)
{
	struct req rq = {.err = err, .parse = parse_info, .arg = info};

	memset(info, 0, sizeof(*info));
	return lk_run(lk, LNETK_CMD_GET_INFO, 0, 0, NULL, NULL, &rq);
}

static int put_bump(struct nl_msg *msg, const void *in)
{
	return nla_put_u32(msg, LNETK_A_COUNT, *(const uint32_t *)in);
}

int lnetk_bump(struct lnetk *lk, uint32_t count, uint64_t *generation, struct lnetk_err *err)
{
	struct req rq = {.err = err};
	int rc = lk_run(lk, LNETK_CMD_BUMP, 0, 16, put_bump, &count, &rq);

	if (!rc && generation)
		*generation = lk->generation;
	return rc;
}
