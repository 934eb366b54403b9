/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nl-int.h - what the files of the generic netlink family share (not for
 * the rest of the module: main.c sees netlink.h only).
 *
 * netlink.c owns the family, its policies and ops table, and the helpers
 * below; each nl-*.c serves the commands of one kind of object and hands
 * its handlers to the ops table.  Every name here starts with lnk_nl_, so
 * that none is shared with the userspace client (liblnetk/), whose
 * functions are named after the same commands.
 */
#ifndef LNETK_NL_INT_H
#define LNETK_NL_INT_H

#include <net/genetlink.h>

#include "engine/model.h"
#include "uapi/lnetk.h"

struct lnetk_net;

/* --- netlink.c: the family and its policies ----------------------------------- */

extern struct genl_family lnk_nl_family;

/* The nests' policies: handlers name the one a nest was validated with. */
extern const struct nla_policy lnk_nl_ni_policy[LNETK_NI_A_MAX + 1];
extern const struct nla_policy lnk_nl_pni_policy[LNETK_PNI_A_MAX + 1];
extern const struct nla_policy lnk_nl_peer_policy[LNETK_PEER_A_MAX + 1];
extern const struct nla_policy lnk_nl_route_policy[LNETK_ROUTE_A_MAX + 1];
extern const struct nla_policy lnk_nl_rule_policy[LNETK_RULE_A_MAX + 1];
extern const struct nla_policy lnk_nl_global_policy[LNETK_GLOBAL_A_MAX + 1];
extern const struct nla_policy lnk_nl_numa_policy[LNETK_NUMA_A_MAX + 1];
extern const struct nla_policy lnk_nl_sel_policy[LNETK_SEL_A_MAX + 1];
extern const struct nla_policy lnk_nl_tbf_policy[LNETK_TBF_A_MAX + 1];
extern const struct nla_policy lnk_nl_ping_policy[LNETK_PING_A_MAX + 1];
extern const struct nla_policy lnk_nl_test_policy[LNETK_TEST_A_MAX + 1];
extern const struct nla_policy lnk_nl_tbfl_policy[LNETK_TBFL_A_MAX + 1];
extern const struct nla_policy lnk_nl_fault_policy[LNETK_FAULT_A_MAX + 1];
extern const struct nla_policy lnk_nl_health_policy[LNETK_HEALTH_A_MAX + 1];

/* --- netlink.c: refusals and attributes --------------------------------------- */

/* Refuse with @rc, saying @msg and pointing at @attr (may be NULL). */
int lnk_nl_refuse(struct netlink_ext_ack *extack, const struct nlattr *attr, int rc,
		  const char *msg);
/* An engine refusal: its sentence, or a fallback for one without. */
int lnk_nl_engine_refusal(struct netlink_ext_ack *extack, const struct nlattr *attr, int rc,
			  const struct lne_err *err);
/* Required attribute @type of nest @tb, or a refusal naming it. */
struct nlattr *lnk_nl_need(struct nlattr **tb, int type, const char *name,
			   const struct nlattr *nest, struct netlink_ext_ack *extack);
/* Only the attributes in @allowed (bits by type) of @tb, parsed up to @max. */
int lnk_nl_only(struct nlattr **tb, int max, u32 allowed, struct netlink_ext_ack *extack);
/* Only the top-level attributes in @allowed. */
int lnk_nl_info_only(struct genl_info *info, u32 allowed);
/* A dump's step: only the top-level attributes in @allowed. */
int lnk_nl_dump_only(struct netlink_callback *cb, u32 allowed);
/* LNETK_A_FLAGS, or 0. */
u32 lnk_nl_flags(struct genl_info *info);
/* Flag bits the command does not know are refused, as unsupported. */
int lnk_nl_flags_only(struct genl_info *info, u32 allowed);
/* Parse a nest the family policy has already validated (@policy documents it). */
int lnk_nl_parse_nest(struct nlattr **tb, int max, const struct nlattr *nest,
		      const struct nla_policy *policy, struct netlink_ext_ack *extack);
int lnk_nl_get_nid(const struct nlattr *attr, struct lne_nid *nid, struct netlink_ext_ack *extack);
int lnk_nl_put_nid(struct sk_buff *skb, int type, const struct lne_nid *nid);
/* The object nest a command needs, after refusing every other top-level attribute. */
struct nlattr *lnk_nl_object(struct genl_info *info, int type, const char *name, u32 also);
#define OBJECT(info, type) lnk_nl_object(info, type, #type, 0)

/* --- netlink.c: the change path ------------------------------------------------ */

/* A message that carries a generation: replies and notifications. */
struct sk_buff *lnk_nl_msg_new(u32 portid, u32 seq, u8 cmd, size_t extra, void **hdr);

typedef int (*lnk_nl_change_fn)(struct lnetk_net *ln, struct genl_info *info,
				struct sk_buff *reply);
/*
 * Run one change: reply prepared first, @fn under the instance lock, the
 * generation bumped and announced only when @fn succeeded.  @in_place: @fn
 * changes the instance where selections read it, so they wait while it
 * runs; otherwise @fn takes ln->sel itself for the moment it swaps the
 * instance.
 */
int lnk_nl_run_change(struct genl_info *info, lnk_nl_change_fn fn, size_t reply_extra,
		      bool in_place);
/* lnk_nl_run_change() in place: what every change but BATCH is. */
int lnk_nl_change(struct genl_info *info, lnk_nl_change_fn fn, size_t reply_extra);

/* --- netlink.c: dumps of engine objects ---------------------------------------- */

/* Dump state, kept in cb->ctx between calls. */
struct lnk_nl_dump_ctx {
	struct lne_cursor c;
	const struct lne_peer *cur; /* a peer split over messages; valid while gen holds */
	u32 done;		    /* its NIDs already sent */
};

struct lnk_nl_dump_ctx *lnk_nl_dump_ctx(struct netlink_callback *cb);
/* A dump step's start: ln->lock taken, kept pointers dropped if the instance changed. */
struct lnetk_net *lnk_nl_dump_begin(struct sk_buff *skb, struct netlink_callback *cb);
/* A dump step's end: ln->lock dropped; a full skb is what the step sent. */
int lnk_nl_dump_end(struct lnetk_net *ln, struct sk_buff *skb, int rc);
/*
 * One object per message, from the cursor: @next walks the instance, @put
 * puts one object's nest.  Each message is command @cmd.
 */
int lnk_nl_cursor_dump(struct sk_buff *skb, struct netlink_callback *cb, u8 cmd,
		       void *(*next)(const struct lne_inst *inst, struct lne_cursor *c),
		       int (*put)(struct sk_buff *skb, const void *obj));

/* --- the objects from attributes: a command's, or a BATCH item's ----------------- */

int lnk_nl_ni_add_nest(struct lne_inst *inst, const struct nlattr *nest,
		       struct netlink_ext_ack *extack);
int lnk_nl_global_set_nest(struct lne_inst *inst, const struct nlattr *nest,
			   struct netlink_ext_ack *extack);
int lnk_nl_peer_add_nest(struct lne_inst *inst, const struct nlattr *nest,
			 struct netlink_ext_ack *extack);
/* Add the route @nest describes, or delete it if @del. */
int lnk_nl_route_add_nest(struct lne_inst *inst, const struct nlattr *nest, bool del,
			  struct netlink_ext_ack *extack);
/* Add a rule; @reply (may be NULL) gets its index and outcome. */
int lnk_nl_rule_add_nest(struct lne_inst *inst, const struct nlattr *nest, struct sk_buff *reply,
			 struct netlink_ext_ack *extack);

/* --- the handlers, by file: netlink.c's ops table lists them --------------------- */

/* nl-ni.c: NIs, globals, NUMA. */
int lnk_nl_ni_add(struct sk_buff *skb, struct genl_info *info);
int lnk_nl_ni_del(struct sk_buff *skb, struct genl_info *info);
int lnk_nl_ni_set(struct sk_buff *skb, struct genl_info *info);
int lnk_nl_ni_get(struct sk_buff *skb, struct genl_info *info);
int lnk_nl_ni_dump(struct sk_buff *skb, struct netlink_callback *cb);
int lnk_nl_global_set(struct sk_buff *skb, struct genl_info *info);
int lnk_nl_global_get(struct sk_buff *skb, struct genl_info *info);
int lnk_nl_numa_set(struct sk_buff *skb, struct genl_info *info);

/* nl-peer.c: peers and their NIs. */
int lnk_nl_peer_add(struct sk_buff *skb, struct genl_info *info);
int lnk_nl_peer_del(struct sk_buff *skb, struct genl_info *info);
int lnk_nl_peer_ni_set(struct sk_buff *skb, struct genl_info *info);
int lnk_nl_peer_get(struct sk_buff *skb, struct genl_info *info);
int lnk_nl_peer_dump(struct sk_buff *skb, struct netlink_callback *cb);

/* nl-route.c: routes. */
int lnk_nl_route_add(struct sk_buff *skb, struct genl_info *info);
int lnk_nl_route_del(struct sk_buff *skb, struct genl_info *info);
int lnk_nl_route_dump(struct sk_buff *skb, struct netlink_callback *cb);

/* nl-rule.c: UDSP rules, and selection. */
int lnk_nl_rule_add(struct sk_buff *skb, struct genl_info *info);
int lnk_nl_rule_del(struct sk_buff *skb, struct genl_info *info);
int lnk_nl_rule_dump(struct sk_buff *skb, struct netlink_callback *cb);
int lnk_nl_select(struct sk_buff *skb, struct genl_info *info);
int lnk_nl_explain(struct sk_buff *skb, struct genl_info *info);
/* nl-dp.c: the data path */
int lnk_nl_ping(struct sk_buff *skb, struct genl_info *info);
int lnk_nl_counters(struct sk_buff *skb, struct genl_info *info);
int lnk_nl_counters_reset(struct sk_buff *skb, struct genl_info *info);
int lnk_nl_test_service(struct sk_buff *skb, struct genl_info *info);
int lnk_nl_selftest(struct sk_buff *skb, struct genl_info *info);
/* nl-health.c: fault injection, health counters, recovery queues */
int lnk_nl_fault(struct sk_buff *skb, struct genl_info *info);
int lnk_nl_fault_get(struct sk_buff *skb, struct genl_info *info);
int lnk_nl_health_get(struct sk_buff *skb, struct genl_info *info);
int lnk_nl_recovery_get(struct sk_buff *skb, struct genl_info *info);

/* nl-batch.c: BATCH. */
int lnk_nl_batch(struct sk_buff *skb, struct genl_info *info);

/* nl-tbf.c: the NRS TBF commands. */
void lnk_nl_tbf_contract_checks(void);
/*
 * The LNETK_A_TBF nest of a command, parsed into @tb, after refusing every
 * other top-level attribute and every nested one not in @allowed (bits by
 * LNETK_TBF_A_* type); LNETK_TBF_A_SERVICE is always required.
 */
struct nlattr *lnk_nl_tbf_nest(struct genl_info *info, struct nlattr **tb, u32 allowed);
int lnk_nl_tbf_set(struct sk_buff *skb, struct genl_info *info);
int lnk_nl_tbf_cmd(struct sk_buff *skb, struct genl_info *info);
int lnk_nl_tbf_del(struct sk_buff *skb, struct genl_info *info);
int lnk_nl_tbf_get(struct sk_buff *skb, struct genl_info *info);
int lnk_nl_tbf_dump(struct sk_buff *skb, struct netlink_callback *cb);
int lnk_nl_tbf_class_dump(struct sk_buff *skb, struct netlink_callback *cb);

/* nl-test.c: the commands only tests use. */
int lnk_nl_bump(struct sk_buff *skb, struct genl_info *info);
int lnk_nl_tbf_load(struct sk_buff *skb, struct genl_info *info);
/*
 * A batch built, before its swap: while the debug parameter
 * test_hold_batch is set, wait (at most 10 minutes, or until a signal) with
 * test_batch_held set, so that a test can select meanwhile and prove that
 * selections wait for the swap only (tests/vm/cases-lock.c).
 */
void lnk_test_batch_hold(void);

#endif /* LNETK_NL_INT_H */
