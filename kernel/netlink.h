/* SPDX-License-Identifier: GPL-2.0 */
/*
 * netlink.h - the generic netlink family "lnetk" (see uapi/lnetk.h): what
 * netlink.c, which owns the family, its policies and the object commands,
 * shares with nrs.c, which serves the TBF commands.
 */
#ifndef LNETK_NETLINK_H
#define LNETK_NETLINK_H

#include <net/genetlink.h>

#include "uapi/lnetk.h"

struct lne_err;
struct lne_nid;
struct lnetk_net;

int lnetk_genetlink_init(void);
void lnetk_genetlink_uninit(void);

extern struct genl_family lnetk_genl_family;
extern const struct nla_policy lnetk_tbf_policy[LNETK_TBF_A_MAX + 1];
extern const struct nla_policy lnetk_tbfl_policy[LNETK_TBFL_A_MAX + 1];

/* Refuse with @rc, saying @msg and pointing at @attr (may be NULL). */
int lnetk_refuse(struct netlink_ext_ack *extack, const struct nlattr *attr, int rc,
		 const char *msg);
/* An engine refusal: its sentence, or a fallback for one without. */
int lnetk_engine_refusal(struct netlink_ext_ack *extack, const struct nlattr *attr, int rc,
			 const struct lne_err *err);
/* Required attribute @type of nest @tb, or a refusal naming it. */
struct nlattr *lnetk_need(struct nlattr **tb, int type, const char *name, const struct nlattr *nest,
			  struct netlink_ext_ack *extack);
/* Only the attributes in @allowed (bits by type) of @tb, parsed up to @max. */
int lnetk_only(struct nlattr **tb, int max, u32 allowed, struct netlink_ext_ack *extack);
/* A dump's step: only the top-level attributes in @allowed. */
int lnetk_dump_only(struct netlink_callback *cb, u32 allowed);
/* Parse a nest the family policy has already validated (@policy documents it). */
int lnetk_parse_nest(struct nlattr **tb, int max, const struct nlattr *nest,
		     const struct nla_policy *policy, struct netlink_ext_ack *extack);
int lnetk_get_nid(const struct nlattr *attr, struct lne_nid *nid, struct netlink_ext_ack *extack);
int lnetk_put_nid(struct sk_buff *skb, int type, const struct lne_nid *nid);
/* A message that carries a generation: replies and notifications. */
struct sk_buff *lnetk_msg_new(u32 portid, u32 seq, u8 cmd, size_t extra, void **hdr);

typedef int (*lnetk_change_fn)(struct lnetk_net *ln, struct genl_info *info, struct sk_buff *reply);
/*
 * Run one change: reply prepared first, @fn under the instance lock, the
 * generation bumped and announced only when @fn succeeded.
 */
int lnetk_change(struct genl_info *info, lnetk_change_fn fn, size_t reply_extra);
/* The object nest a command needs, after refusing every other top-level attribute. */
struct nlattr *lnetk_object(struct genl_info *info, int type, const char *name, u32 also);
#define OBJECT(info, type) lnetk_object(info, type, #type, 0)

/* nrs.c: the TBF commands. */
void lnetk_tbf_contract_checks(void);
int lnetk_tbf_set_doit(struct sk_buff *skb, struct genl_info *info);
int lnetk_tbf_cmd_doit(struct sk_buff *skb, struct genl_info *info);
int lnetk_tbf_del_doit(struct sk_buff *skb, struct genl_info *info);
int lnetk_tbf_get_doit(struct sk_buff *skb, struct genl_info *info);
int lnetk_tbf_dump(struct sk_buff *skb, struct netlink_callback *cb);
int lnetk_tbf_load_doit(struct sk_buff *skb, struct genl_info *info);
int lnetk_tbf_class_dump(struct sk_buff *skb, struct netlink_callback *cb);

#endif /* LNETK_NETLINK_H */
