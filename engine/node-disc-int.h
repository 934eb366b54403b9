/* SPDX-License-Identifier: GPL-2.0 */
/*
 * node-disc-int.h - what discovery's rounds (node-disc.c) and its merge of
 * ping and push data (node-disc-merge.c) share and nobody else uses.
 */
#ifndef LNE_NODE_DISC_INT_H
#define LNE_NODE_DISC_INT_H

#include "node-int.h"

/* node-disc.c */
/* The peer that owns NID @nid4 (NULL: none). */
struct lne_peer *lne_nd_disc_peer_of(struct lne_node *n, u64 nid4);

/* node-disc-merge.c */
/* The counter names of refused data (`stats show`), by enum lne_disc_bad. */
extern const char *const lne_nd_disc_bad_names[LNE_DBAD__COUNT];
/* @p was configured: its primary NID is locked and its NIDs are kept. */
bool lne_nd_disc_configured(const struct lne_peer *p);
/* A new discovered peer with primary NID @nid, the right to change the instance asked first. */
struct lne_peer *lne_nd_disc_peer_new(struct lne_node *n, const struct lne_nid *nid, bool mr);
/* Merge a ping reply or (@push) a push from @from: 0, -EPROTO (refused) or -ESTALE. */
int lne_nd_disc_merge(struct lne_node *n, u64 from, const u8 *buf, u32 len, bool push, u64 inc);

#endif /* LNE_NODE_DISC_INT_H */
