/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lu-writer.h - the writer the generic sync drives (lnetd/backend/sync.h's
 * struct bk_writer, declared here in the same shape until that header is
 * on this branch: the lustre backend's glue includes sync.h instead and
 * drops this copy), and lnet.ko's implementation of it (lu-write.c).
 *
 * Each call returns 0 when lnet.ko took the change; a negative errno with
 * @err's sentence when lnet.ko (or the library, judging a limit of the
 * version) refused it; a negative errno with an empty sentence when
 * lnet.ko could not be reached.  ctx is the struct lu.
 */
#ifndef LU_WRITER_H
#define LU_WRITER_H

#ifndef BK_WRITER_DECLARED
#define BK_WRITER_DECLARED
#include "engine/model.h"

struct bk_writer {
	int (*rule_del)(void *ctx, u32 idx, struct lne_err *err);
	int (*rule_del_all)(void *ctx, struct lne_err *err); /* optional */
	int (*route_del)(void *ctx, const struct lne_route *have, struct lne_err *err);
	int (*peer_del)(void *ctx, const struct lne_peer *have, const struct lne_nid *nids,
			size_t n, struct lne_err *err); /* n == 0: the whole peer */
	int (*ni_del)(void *ctx, const struct lne_ni *have, struct lne_err *err);
	int (*global_set)(void *ctx, int g, u32 value, struct lne_err *err);
	int (*ni_add)(void *ctx, const struct lne_ni *want, struct lne_err *err);
	int (*peer_add)(void *ctx, const struct lne_peer *want, const struct lne_nid *nids,
			size_t n, struct lne_err *err); /* add the peer if absent, and these NIDs */
	int (*route_add)(void *ctx, const struct lne_route *want, struct lne_err *err);
	int (*rule_add)(void *ctx, const struct lne_rule *want, int64_t idx, struct lne_err *err);
	int (*ni_set_up)(void *ctx, const struct lne_ni *want, struct lne_err *err); /* optional */
	int (*batch_begin)(void *ctx, bool replace, struct lne_err *err);	     /* optional */
	int (*batch_send)(void *ctx, size_t *applied, struct lne_err *err);	     /* optional */
	void (*batch_abort)(void *ctx);						     /* optional */
};
#endif

/* lnet.ko's writer: ctx is a struct lu from lu_open(). */
extern const struct bk_writer lu_writer;

#endif /* LU_WRITER_H */
