/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rule.h - a UDSP rule and the instance's list of them: what the model
 * (model.h) holds and points at, without the rules' API, which is udsp.h's.
 * model.h includes this, and udsp.h includes model.h; neither header needs
 * the other's declarations to be complete.
 */
#ifndef LNE_RULE_H
#define LNE_RULE_H

#include "list.h"
#include "port.h"

struct lne_expr;

enum lne_rule_kind {
	LNE_RULE_SRC_NET,
	LNE_RULE_SRC_NID,
	LNE_RULE_DST_NET,
	LNE_RULE_DST_NID,
	LNE_RULE_PAIR,
	LNE_RULE_ROUTER,
};

struct lne_rule {
	struct lne_list link; /* in inst->udsp.rules, in idx order */
	u32 idx;	      /* position, 0 first */
	u8 kind;	      /* enum lne_rule_kind */
	u32 prio;	      /* LNE_PRIO_NONE when not given */
	u32 key;	      /* hash of the three expressions: rules_key() */
	struct lne_expr *src, *dst, *rte;
};

/* The rules of an instance (inst->udsp), in idx order. */
struct lne_udsp {
	struct lne_list rules;
	u32 nrules;
	u64 visits; /* constructs visited by rule changes: tests check the index */
	bool quiet; /* lne_inst_copy() at work: constructs come without the rules */
};

/* The idx of the rule behind a flattened value, or -1. */
static inline s32 lne_rule_idx(const struct lne_rule *r)
{
	return r ? (s32)r->idx : -1;
}

#endif /* LNE_RULE_H */
