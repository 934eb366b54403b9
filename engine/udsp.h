/* SPDX-License-Identifier: GPL-2.0 */
/*
 * udsp.h - User Defined Selection Policies: an ordered list of rules,
 * flattened onto the constructs they match.
 *
 * Rule kinds, by which of src/dst/rte are given (the UDSP design):
 *
 *   --src <net>             local net priority     (tcp1, o2ib*, *@o2ib1)
 *   --src <nid expr>        local NID priority     (10.0.0.[1-4]@tcp)
 *   --dst <net>             peer net priority      (o2ib, *@o2ib)
 *   --dst <nid expr>        peer NID priority
 *   --src <e> --dst <e>     NID pair: local NIs matching src become preferred
 *                           sources of the peer NIs matching dst
 *   --dst <e> --rte <e>     router: gateways matching rte become preferred
 *                           routers of the peer NIs matching dst
 *
 * An expression names a net when all its items are nets ("tcp1") or "*@net":
 * the design gives "*@o2ib1" (the network) and "*.*.*.*@o2ib1" (all NIDs in
 * it) different meanings, and so do we.
 *
 * Priorities: 0 is the highest.  The design says 0..255; Lustre stores a
 * 32-bit value and keeps the largest for "none", so any value up to
 * LNE_PRIO_MAX (4294967294) is accepted.  A net or NID rule needs one; on a
 * pair or router rule it is optional and orders the preferred sources or
 * routers among themselves (lower first; none is last).
 *
 * Flattening: the effective value of a property on a construct (a net's
 * priority, a peer NI's priority, whether local NI X is a preferred source
 * of peer NI Y, ...) is decided by the lowest-idx rule that matches it.
 * Adding a rule visits only the constructs on nets its expressions can
 * match, and takes over a property only where it now comes first; deleting
 * a rule recomputes, from the surviving rules, exactly the properties it
 * decided.  (Upstream leaves those properties unset: survivors are not
 * re-applied.  We do not copy that.)  Constructs created later get the
 * rules when they are created.  Selection reads only flattened values.
 */
#ifndef LNE_UDSP_H
#define LNE_UDSP_H

#include "expr.h"
#include "model.h"
#include "rule-attrs.h"
#include "rule.h"

/* enum lne_rule_kind, struct lne_rule and the rule list are in rule.h. */

/* What lne_rule_add() did. */
enum lne_rule_outcome {
	LNE_RULE_ADDED,
	LNE_RULE_UPDATED, /* same expressions: the priority was changed in place */
};

/*
 * Add rule @c (rule-attrs.h: its expressions' text, NULL or "" when absent,
 * and its priority, LNE_PRIO_NONE when not given).  @idx inserts before the
 * rule now at @idx; a negative @idx or one past the end appends.  A rule
 * whose expressions equal an existing rule's updates that rule's priority
 * in place (-EEXIST if nothing would change).
 */
int lne_rule_add(struct lne_inst *ln, const struct lne_rule_conf *c, s64 idx,
		 enum lne_rule_outcome *outcome, u32 *out_idx, struct lne_err *err);
int lne_rule_del(struct lne_inst *ln, u32 idx, struct lne_err *err);
/*
 * The rule whose expressions equal @c's (NULL or "" when absent; its
 * priority is not looked at), by meaning, not spelling ("o2ib0" is
 * "o2ib"): 0 and its idx, -ENOENT, or the parse error of a bad expression
 * (@err names it).
 */
int lne_rule_find(const struct lne_inst *ln, const struct lne_rule_conf *c, u32 *idx,
		  struct lne_err *err);
void lne_rule_del_all(struct lne_inst *ln);
/*
 * Row @a of rule-attrs.h in rule @r: its expression (a row of
 * LNE_RULE_K_EXPR; NULL when absent), or its number (LNE_PRIO_NONE: none).
 */
const struct lne_expr *lne_rule_expr(const struct lne_rule *r, int a);
u32 lne_rule_num(const struct lne_rule *r, int a);
struct lne_rule *lne_rule_at(const struct lne_inst *ln, u32 idx);
const char *lne_rule_kind_name(enum lne_rule_kind kind);

/* The priority @pni gives local NI @ni as a source: LNE_PRIO_NONE if not preferred. */
bool lne_pref_src(const struct lne_peer_ni *pni, const struct lne_ni *ni, u32 *prio,
		  const struct lne_rule **rule);
bool lne_pref_gw(const struct lne_peer_ni *pni, const struct lne_peer_ni *gw, u32 *prio,
		 const struct lne_rule **rule);

/*
 * Recompute every flattened value from every rule, the way upstream does
 * on each change.  Used as the reference in tests and as the baseline in
 * benchmarks; the incremental path must always agree with it.
 */
int lne_udsp_recompute_all(struct lne_inst *ln);

/*
 * For lne_inst_copy(), which adds @dst's rules first, then its constructs
 * with ln->udsp.quiet set, so that the hooks below leave them alone (each
 * would otherwise meet every rule: 100,000 peer NIDs times 1,000 rules),
 * and then calls this: every flattened value of @src, its preference
 * lists in the same order, onto the equal constructs and rules of @dst.
 * -ENOMEM leaves @dst for lne_inst_free().
 */
int lne_udsp_copy_flat(struct lne_inst *dst, const struct lne_inst *src);

/* --- hooks: the model calls these as constructs come and go --------------- */
void lne_udsp_net_added(struct lne_inst *ln, struct lne_net *net);
void lne_udsp_rnet_added(struct lne_inst *ln, struct lne_rnet *rnet);
int lne_udsp_ni_added(struct lne_inst *ln, struct lne_ni *ni);
void lne_udsp_ni_removing(struct lne_inst *ln, struct lne_ni *ni);
int lne_udsp_pni_added(struct lne_inst *ln, struct lne_peer_ni *pni);
void lne_udsp_pni_removing(struct lne_inst *ln, struct lne_peer_ni *pni);
int lne_udsp_gw_added(struct lne_inst *ln, struct lne_peer_ni *gw);
void lne_udsp_gw_removing(struct lne_inst *ln, struct lne_peer_ni *gw);

#endif /* LNE_UDSP_H */
