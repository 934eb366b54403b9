/* SPDX-License-Identifier: GPL-2.0 */
/*
 * client-int.h - what the files of liblnetk share and lnetk-client.h does
 * not say: the handle, one request in flight and how it is run (client.c),
 * the reply helpers, and the attribute writers a batch reuses.
 */
#ifndef LNETD_LIBLNETK_CLIENT_INT_H
#define LNETD_LIBLNETK_CLIENT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>

#include "lnetk-client.h"

#define __maybe_unused __attribute__((unused))

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

static inline int cb_rc(int rc)
{
	return rc < 0 ? rc : 0;
}

/* --- client.c: requests ------------------------------------------------------- */

/* The one place libnl's error codes become errno. */
int lk_nlerr(int e);
void lk_err_reset(struct lnetk_err *err);
/* What replies carry at the top level (libnl checks the sizes). */
extern const struct nla_policy lk_top_policy[LNETK_A_MAX + 1];
/* Send @msg and read until its ACK, error or end of dump. */
int lk_transact(struct lnetk *lk, struct nl_msg *msg, struct req *rq);
/* A request for @cmd with room for @size bytes of attributes. */
struct nl_msg *lk_new_msg(const struct lnetk *lk, uint8_t cmd, int flags, size_t size);
/* Build with @put (which returns a libnl code), send, and parse with @rq. */
int lk_run(struct lnetk *lk, uint8_t cmd, int flags, size_t size,
	   int (*put)(struct nl_msg *msg, const void *in), const void *in, struct req *rq);
int lk_set_int_opt(int fd, int level, int name, int value);

/* --- client.c: reply helpers --------------------------------------------------- */

/* Copy string attribute @a (absent: "") into @dst; -EPROTO if it does not fit. */
int lk_get_str(char *dst, size_t size, const struct nlattr *a);

static inline uint32_t get_u32_or(const struct nlattr *a, uint32_t def)
{
	return a ? nla_get_u32(a) : def;
}

static inline int32_t get_s32_or(const struct nlattr *a, int32_t def)
{
	return a ? (int32_t)nla_get_u32(a) : def;
}

/* --- what a batch puts (ni.c, route.c, rule.c, global.c) ------------------------- */

int lk_put_ni_add(struct nl_msg *msg, const void *in); /* a struct lnetk_ni */
int lk_put_route(struct nl_msg *msg, const void *in);  /* a struct lnetk_route */
int lk_put_rule(struct nl_msg *msg, const void *in);   /* a struct lnetk_rule */
int lk_put_global(struct nl_msg *msg, const void *in); /* a struct lnetk_global */
/* A name too long for the struct is too long for the kernel: -EINVAL. */
int lk_global_fill(struct lnetk_global *g, const char *name, uint32_t value);

#endif /* LNETD_LIBLNETK_CLIENT_INT_H */
