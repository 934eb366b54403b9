/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lu-nl.h - generic netlink without a library: messages built in a growing
 * buffer, attributes walked with bounds checked at every step (a reply is
 * hostile input), and a request that collects replies until its ACK.
 *
 * lnet.ko's family answers in "YAML over netlink" (lu-yaml.c): requests are
 * nested lists of key/value scalars; a dump's first message carries a key
 * table, and the messages after it number their attributes by that table.
 */
#ifndef LU_NL_H
#define LU_NL_H

#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "lu-int.h"

/* A message being built; a failed put sets .err and later puts do nothing. */
struct lu_msg {
	u8 *buf;
	size_t len, cap;
	int err;
};

int lu_msg_init(struct lu_msg *m, u16 family, u16 flags, u8 cmd, u8 version);
void lu_msg_free(struct lu_msg *m);
void lu_msg_put(struct lu_msg *m, u16 type, const void *data, size_t len);
void lu_msg_put_str(struct lu_msg *m, u16 type, const char *s);
void lu_msg_put_s64(struct lu_msg *m, u16 type, s64 v);
/* The offset of the nest, for lu_msg_nest_end(). */
size_t lu_msg_nest(struct lu_msg *m, u16 type);
void lu_msg_nest_end(struct lu_msg *m, size_t at);
/* The payload's length after the genl header. */
static inline size_t lu_msg_payload(const struct lu_msg *m)
{
	return m->len - NLMSG_HDRLEN - GENL_HDRLEN;
}

/* An attribute stream: .p .. .end; lu_attr_next() gives each, or false at the end or on garbage. */
struct lu_attrs {
	const u8 *p, *end;
	bool bad; /* an attribute ran past the end */
};
struct lu_attr {
	u16 type; /* without the nested/byte-order flags */
	bool nested;
	const u8 *data;
	u16 len;
};
void lu_attrs_init(struct lu_attrs *it, const void *data, size_t len);
bool lu_attr_next(struct lu_attrs *it, struct lu_attr *a);
bool lu_attr_u16(const struct lu_attr *a, u16 *v);
bool lu_attr_u32(const struct lu_attr *a, u32 *v);
bool lu_attr_s64(const struct lu_attr *a, s64 *v);
/* A NUL-terminated string attribute, or NULL. */
const char *lu_attr_str(const struct lu_attr *a);

/*
 * Send @m (its sequence number and port filled here) and read the answer:
 * each data message to @fn (its genl payload and the message's flags), until
 * the ACK, NLMSG_DONE or an error; the kernel's error comes back as its
 * errno, with its extack text (or @what's sentence) in @err.
 */
typedef int (*lu_nl_cb)(const u8 *payload, size_t len, u16 flags, void *arg);
int lu_nl_request(struct lu *lu, struct lu_msg *m, lu_nl_cb fn, void *arg, const char *input,
		  const char *what, struct lne_err *err);

int lu_nl_open(struct lu *lu);
void lu_nl_close(struct lu *lu);

#endif /* LU_NL_H */
