/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lu-int.h - what the files of the lnet.ko library share: the handle, the
 * two transports (lu-ioc.c for /dev/lnet, lu-nl.c for generic netlink),
 * NID conversion (lu-nid.c), and the sentences of refusals.
 *
 * Files: lu-probe.c (lu_open: what the module speaks), lu-dispatch.c (the
 * one place that picks ioctl or netlink per object), lu-ni.c, lu-peer.c,
 * lu-route.c, lu-udsp.c (the /dev/lnet side of each object), lu-sysfs.c
 * (globals), lu-misc.c (stats, health, ping), lu-nl*.c (the netlink side),
 * lu-read.c (lnet.ko into an engine instance), lu-write.c (the writer).
 */
#ifndef LU_INT_H
#define LU_INT_H

#include "lu-abi.h"
#include "lu.h"

#define LU_NID_ANY (~0ull)

struct lu {
	struct lu_info info;
	char root[200]; /* "" for "/" */
	char vname[32];
	int fd; /* /dev/lnet, -1 when not open */
	int nl; /* the genl socket, -1 when none */
	u32 nl_seq, nl_port;
	bool ioctl_only;
	u8 *rx; /* netlink receive buffer */
	size_t rx_size;
};

/* root-relative path into @buf; false when it does not fit. */
bool lu_path(const struct lu *lu, char *buf, size_t size, const char *rel);
/* The sysfs file of a module parameter (lu-probe.c), and its value (lu-sysfs.c). */
const char *lu_param_file(enum lu_param p);
int lu_sysfs_read_param(struct lu *lu, enum lu_param p, s64 *v);

/* --- /dev/lnet (lu-ioc.c) ------------------------------------------------- */
/*
 * Send request @nr with @buf (@len bytes, its header filled here with
 * @len and the version that request takes): 0 or a negative errno.  The
 * reply is in @buf.  -ENODEV-like errnos (the device went away) come back
 * as they are; lu_ioc_gone() tells them apart.
 */
int lu_ioc(struct lu *lu, unsigned int nr, void *buf, u32 len);
/* The same on a descriptor of the caller's (ping, discover in a thread). */
int lu_ioc_fd(int fd, unsigned int nr, void *buf, u32 len);
bool lu_ioc_gone(int rc);

/*
 * The sentence for lnet.ko's refusal of @what (e.g. "add the peer") about
 * @input; a known errno gets its meaning for that request.  An errno that
 * says lnet.ko is gone leaves the sentence empty.
 */
int lu_refused(const struct lu *lu, struct lne_err *err, int rc, const char *input,
	       const char *what);
/* Empty sentence: lnet.ko could not be reached. */
int lu_gone(struct lne_err *err, int rc);

/* --- NIDs (lu-nid.c) ------------------------------------------------------ */
/* nid4 of @nid, or -EOPNOTSUPP naming the limit ("... takes only IPv4 NIDs ..."). */
int lu_nid4(const struct lu *lu, const struct lne_nid *nid, u64 *out, const char *where,
	    struct lne_err *err);
/* The engine's NID of a nid4: false for one whose LND the engine does not know. */
bool lu_nid_from4(u64 nid4, struct lne_nid *out);
u64 lu_net4(lne_net_t net);
/* Printable NID (into a buffer of LNE_NID_STR_MAX). */
const char *lu_nidstr(const struct lne_nid *nid, char *buf);

/* --- UDSP descriptors (lu-udsp-code.c) ------------------------------------- */
/*
 * The bulk of one rule (after struct lu_ioc_udsp): its three descriptors.
 * lu_udsp_encode() writes into @buf (room @size), returns the bytes used or
 * a negative errno with @err's sentence for what lnet.ko cannot hold.
 * lu_udsp_decode() reads what lnet.ko answered: -EPROTO for anything
 * malformed (the reply is hostile input like any other).
 */
int lu_udsp_encode(const struct lu *lu, const struct lne_rule *r, u8 *buf, size_t size,
		   struct lne_err *err);
int lu_udsp_decode(const u8 *buf, size_t len, struct lu_rule *out);

/* --- the peers' bulk (lu-peer.c), exposed for the fuzz target -------------- */
int lu_peer_parse_bulk(const u8 *bulk, size_t len, u32 count, struct lu_peer *p);

/* The checks an NI's tunables get before either transport (lu-ni.c). */
int lu_ni_check(const struct lu *lu, const struct lu_ni *ni, const char *s, struct lne_err *err);

/* The ioctl side of each object (lu-ni.c, lu-peer.c, lu-route.c). */
int lu_ioc_ni_add(struct lu *lu, const struct lu_ni *ni, struct lne_err *err);
int lu_ioc_ni_del(struct lu *lu, const struct lne_nid *nid, struct lne_err *err);
int lu_ioc_ni_list(struct lu *lu, struct lu_ni **nis, size_t *n, struct lne_err *err);
int lu_ioc_peer_add(struct lu *lu, const struct lne_nid *primary, bool mr, bool lock_prim,
		    const struct lne_nid *nids, size_t n, struct lne_err *err);
int lu_ioc_peer_del(struct lu *lu, const struct lne_nid *primary, const struct lne_nid *nids,
		    size_t n, struct lne_err *err);
/* *large: the peers whose primary NID is large, which /dev/lnet counts but cannot name. */
int lu_ioc_peer_each(struct lu *lu, int (*fn)(const struct lu_peer *p, void *arg), void *arg,
		     size_t *large, struct lne_err *err);
/* GET_PEER_LIST: every nid4 primary NID, malloc()ed; *large counts the others. */
int lu_ioc_peer_list(struct lu *lu, u64 **ids, size_t *n, size_t *large, struct lne_err *err);
/* GET_PEER_NI of one peer (-ENOENT: none); @buf/@cap a bulk it may grow. */
int lu_ioc_peer_get4(struct lu *lu, u64 nid4, struct lu_peer *p, u8 **buf, size_t *cap);
int lu_ioc_peer_get(struct lu *lu, const struct lne_nid *nid, struct lu_peer *p,
		    struct lne_err *err);
int lu_ioc_route_add(struct lu *lu, const struct lu_route *r, struct lne_err *err);
int lu_ioc_route_del(struct lu *lu, lne_net_t net, const struct lne_nid *gw, struct lne_err *err);
int lu_ioc_route_list(struct lu *lu, struct lu_route **routes, size_t *n, struct lne_err *err);
int lu_ioc_configure(struct lu *lu, struct lne_err *err);
int lu_ioc_unconfigure(struct lu *lu, struct lne_err *err);
int lu_ioc_ping(struct lu *lu, unsigned int nr, const struct lne_nid *nid, u32 param,
		const struct lne_nid *src, struct lu_ping_reply *reply, struct lne_err *err);

/* The netlink side (lu-nl-ops.c). */
int lu_nl_configure(struct lu *lu, bool up, struct lne_err *err);
int lu_nl_ni_add(struct lu *lu, const struct lu_ni *ni, struct lne_err *err);
int lu_nl_ni_del(struct lu *lu, const struct lne_nid *nid, struct lne_err *err);
int lu_nl_ni_list(struct lu *lu, struct lu_ni **nis, size_t *n, struct lne_err *err);
int lu_nl_peer_add(struct lu *lu, const struct lne_nid *primary, bool mr, bool lock_prim,
		   const struct lne_nid *nids, size_t n, struct lne_err *err);
int lu_nl_peer_del(struct lu *lu, const struct lne_nid *primary, const struct lne_nid *nids,
		   size_t n, struct lne_err *err);
int lu_nl_peer_get(struct lu *lu, const struct lne_nid *nid, struct lu_peer *p,
		   struct lne_err *err);
int lu_nl_route_add(struct lu *lu, const struct lu_route *r, struct lne_err *err);
int lu_nl_route_del(struct lu *lu, lne_net_t net, const struct lne_nid *gw, struct lne_err *err);
int lu_nl_route_list(struct lu *lu, struct lu_route **routes, size_t *n, struct lne_err *err);
int lu_nl_ping(struct lu *lu, const struct lne_nid *nid, u32 timeout_ms, const struct lne_nid *src,
	       struct lu_ping_reply *reply, struct lne_err *err);

/* lu-probe.c: the genl family and its op list (also after a module reload). */
int lu_nl_probe(struct lu *lu);

#endif /* LU_INT_H */
