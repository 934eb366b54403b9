// SPDX-License-Identifier: GPL-2.0
/*
 * batch.c - batches: many objects in one LNETK_CMD_BATCH message,
 * applied all or nothing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "client-int.h"

#define BATCH_SIZE_FIRST (64 * 1024)
#define BATCH_SIZE_MAX	 (1024 * 1024 * 1024)

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
	b->msg = lk_new_msg(lk, LNETK_CMD_BATCH, 0, b->size);
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
			return lk_nlerr(rc);
		rc = batch_grow(b);
		if (rc)
			return rc;
	}
}

int lnetk_batch_ni(struct lnetk_batch *b, const struct lnetk_ni *ni)
{
	return batch_put(b, lk_put_ni_add, ni);
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
 * A peer as put_peer() (peer.c) writes it, byte for byte, but with one reservation
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
	return batch_put(b, lk_put_route, route);
}

int lnetk_batch_rule(struct lnetk_batch *b, const struct lnetk_rule *rule)
{
	return batch_put(b, lk_put_rule, rule);
}

int lnetk_batch_global(struct lnetk_batch *b, const char *name, uint32_t value)
{
	struct lnetk_global g;

	return lk_global_fill(&g, name, value) ?: batch_put(b, lk_put_global, &g);
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

		if (!lk_set_int_opt(fd, SOL_SOCKET, SO_SNDBUFFORCE, want) ||
		    !lk_set_int_opt(fd, SOL_SOCKET, SO_SNDBUF, want))
			b->lk->sndbuf = want;
	}
	if (applied)
		*applied = 0;
	nlh->nlmsg_seq = NL_AUTO_SEQ; /* a fresh sequence number each time it is sent */
	return lk_transact(b->lk, b->msg, &rq);
}

void lnetk_batch_free(struct lnetk_batch *b)
{
	if (!b)
		return;
	nlmsg_free(b->msg);
	free(b);
}
