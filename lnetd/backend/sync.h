/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sync.h - make an engine hold what lnetd's mirror holds, by differences,
 * whatever the engine: the walk is here, the requests are the engine's
 * (struct bk_writer).
 *
 * The engine's backend keeps @have, an engine instance (lnetd's own code)
 * holding what the engine holds as far as lnetd knows: every request the
 * engine accepts is applied to @have too.  bk_sync() walks the mirror
 * (@want) and @have side by side and sends the differences, in an order
 * the object model accepts:
 *
 *   1. deletions: the rules past the common prefix and suffix of the two
 *      ordered lists (every rule at once when none is common), routes,
 *      peers and peer NIDs, NIs;
 *   2. additions: globals (retry_count and transaction_timeout in whichever
 *      order the engine accepts), NIs, peers and their NIDs, routes, rules
 *      (inserted between the common prefix and suffix);
 *   3. the link state of NIs (ni_set_up, which a batch cannot carry).
 *
 * Health, credits and round robin are running state, not configuration:
 * they are never compared, so a sync touches only what the configuration
 * changed, and an object it does not touch keeps its running state in the
 * engine.  A peer stays when the mirror has one with the same primary NID
 * that the engine can make of it by adding NIDs (the same Multi-Rail
 * setting, or an implicit one that becomes explicit); else it goes and
 * comes back.  Implicit peers (routes' gateways) are the engine's to make
 * and unmake with their routes.
 *
 * Every request's result is counted one way (bk_sync_count): 0 accepted
 * (applied to @have); a negative errno with a sentence in @err the engine
 * refused it (counted, the first kept as the reason, and the sync goes
 * on: one bad object keeps out only itself); a negative errno with no
 * sentence the engine cannot be reached (the sync stops).
 *
 * Batching (optional, lnetk's BATCH): when the additions are many
 * (@batch_min, and at least 1/@batch_ratio of what @have holds) they go
 * in one batch: batch_begin, then the add ops collect instead of sending
 * (their result then says only whether the item was built), then
 * batch_send.  An empty @have (or @replace: what the engine holds is
 * unknown) gets a replacing batch, all or nothing: the engine's state is
 * replaced whole.  A batch the engine refuses is sent again one request
 * each.  Without batching every addition is its own request.
 *
 * Runs to completion, in the caller's thread; the writer may do what its
 * engine needs between requests (lnetk's reads its events socket).
 */
#ifndef LNETD_BACKEND_SYNC_H
#define LNETD_BACKEND_SYNC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/error.h" /* struct lne_err: errno + sentence */
#include "engine/model.h"

struct bk_writer {
	/* deletions; @have is the object in the engine's copy (the "pushed" instance) */
	int (*rule_del)(void *ctx, u32 idx, struct lne_err *err);
	int (*rule_del_all)(void *ctx, struct lne_err *err); /* optional */
	int (*route_del)(void *ctx, const struct lne_route *have, struct lne_err *err);
	/* @n == 0: the whole peer; else these NIDs of it */
	int (*peer_del)(void *ctx, const struct lne_peer *have, const struct lne_nid *nids,
			size_t n, struct lne_err *err);
	int (*ni_del)(void *ctx, const struct lne_ni *have, struct lne_err *err);
	/* additions; @want is the mirror's object */
	int (*global_set)(void *ctx, int g, u32 value, struct lne_err *err);
	int (*ni_add)(void *ctx, const struct lne_ni *want, struct lne_err *err);
	/* the peer if the engine lacks it, and these NIDs (the primary excluded) */
	int (*peer_add)(void *ctx, const struct lne_peer *want, const struct lne_nid *nids,
			size_t n, struct lne_err *err);
	int (*route_add)(void *ctx, const struct lne_route *want, struct lne_err *err);
	/* @idx < 0 appends */
	int (*rule_add)(void *ctx, const struct lne_rule *want, int64_t idx, struct lne_err *err);
	int (*ni_set_up)(void *ctx, const struct lne_ni *want, struct lne_err *err); /* optional */
	/* optional batching (lnetk's BATCH): begin, then the add ops collect, then send */
	int (*batch_begin)(void *ctx, bool replace, struct lne_err *err);
	int (*batch_send)(void *ctx, size_t *applied, struct lne_err *err);
	void (*batch_abort)(void *ctx);
};

/* How a sync goes; what is not the writer's requests (all optional). */
struct bk_sync_opts {
	/* What the engine holds is unknown: replace it whole, with a batch (a writer without
	 * batching cannot: it reads the engine into @have instead). */
	bool replace;
	size_t batch_min;   /* fewer additions than this go one request each (0: 64) */
	size_t batch_ratio; /* ... and so do fewer than 1/this of what @have holds (0: 16) */
	/* The engine in sentences ("lnetk module": "the lnetk module refused ..."). */
	const char *who;
	/* The collected batch's size in bytes, for the log line (before batch_send). */
	size_t (*batch_bytes)(void *ctx);
	/* A line for lnetd's log (@prio: LOG_ERR, LOG_WARNING, LOG_INFO); @ctx the writer's. */
	void (*log)(void *ctx, int prio, const char *line);
};

#define BK_WHY_MAX 512

struct bk_sync_result {
	size_t changes;	 /* requests and batch items the engine accepted */
	size_t requests; /* requests sent (a batch is one) */
	size_t refused;	 /* refusals */
	int stop;	 /* < 0: the engine cannot be reached, or no memory: the sync stopped */
	bool local_bad;	 /* @have refused what the engine accepted: they parted, read it again */
	bool replaced;	 /* a replacing batch went through: @have is what the engine holds */
	char first[BK_WHY_MAX];	    /* the first refusal, or why it stopped */
	char local_why[BK_WHY_MAX]; /* what @have refused, when local_bad */
};

/* Objects of @ln that a sync compares: NIs, peer NIs, routes, rules. */
size_t bk_objects(const struct lne_inst *ln);

/*
 * Make the engine equal to @want through @w (@ctx its argument), @have its
 * copy (a replacing batch puts a new instance in *@have).  @r says what
 * came of it.
 */
void bk_sync(const struct bk_writer *w, void *ctx, struct lne_inst **have,
	     const struct lne_inst *want, const struct bk_sync_opts *o, struct bk_sync_result *r);

/*
 * Count one request's result @rc as bk_sync() does, for an engine's own
 * requests after it (the kernel engine's TBF policies): @what names it in
 * @r->first.  Returns whether it was accepted.
 */
bool bk_sync_count(struct bk_sync_result *r, const char *who, int rc, const struct lne_err *err,
		   const char *what);

#endif /* LNETD_BACKEND_SYNC_H */
