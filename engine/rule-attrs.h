/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rule-attrs.h - a UDSP rule's fields, described once (as route-attrs.h
 * does a route's settings): its three expressions and its priority.
 *
 * LNE_RULE_ATTRS() is the one list.  The engine's struct lne_rule_conf
 * (lne_rule_add(), lne_rule_find()), the module's RULE_ADD, lnetd's store
 * columns and history keys, its D-Bus decoder (AddRule, DeleteRuleMatching
 * and Apply's "udsp" operations alike) and ListRules, its change path and
 * restore, and lnetctl's udsp add options, YAML reader and writer and udsp
 * show walk it.  A rule's idx is its position, not a field: it stays by
 * name, as a route's net and gateway do.
 *
 * A row: X(ID, name, kind, yaml, genl, help)
 *   name   struct lne_rule_conf's field, lnetd's D-Bus key, Apply's field,
 *          the store's column and history key, lnetctl's option ("--name")
 *          and the op field lnetctl sends
 *   kind   LNE_RULE_K_EXPR: a NID or net expression (text; NULL or "" when
 *          absent, Lustre's "NA" in its YAML); LNE_RULE_K_PRIO: a priority,
 *          0..LNE_PRIO_MAX, LNE_PRIO_NONE when not given
 *   yaml   Lustre's YAML key in a udsp: entry (a priority is under action:)
 *   genl   the LNETK_RULE_A_* attribute carrying it
 *   help   lnetctl udsp add's help for the option
 */
#ifndef LNE_RULE_ATTRS_H
#define LNE_RULE_ATTRS_H

#include "port.h"

#define LNE_RULE_ATTRS(X)                                                                       \
	X(SRC, src, EXPR, "src", LNETK_RULE_A_SRC, "local NIs or nets: tcp1, 10.0.0.[1-4]@tcp") \
	X(DST, dst, EXPR, "dst", LNETK_RULE_A_DST, "peer NIs or nets")                          \
	X(RTE, rte, EXPR, "rte", LNETK_RULE_A_RTE, "routers")                                   \
	X(PRIORITY, priority, PRIO, "priority", LNETK_RULE_A_PRIORITY, "lower is preferred")

enum lne_rule_attr_kind {
	LNE_RULE_K_EXPR,
	LNE_RULE_K_PRIO,
};

enum lne_rule_attr {
#define LNE_RULE_ENUM(id, ...) LNE_RULE_A_##id,
	LNE_RULE_ATTRS(LNE_RULE_ENUM)
#undef LNE_RULE_ENUM
	LNE_RULE_A__COUNT
};

/* A rule as given: each row's field, of its kind's type. */
#define LNE_RULE_CTYPE_EXPR const char *
#define LNE_RULE_CTYPE_PRIO u32
struct lne_rule_conf {
#define LNE_RULE_CONF_FIELD(id, name, kind, ...) LNE_RULE_CTYPE_##kind name;
	LNE_RULE_ATTRS(LNE_RULE_CONF_FIELD)
#undef LNE_RULE_CONF_FIELD
};

struct lne_rule_desc {
	const char *name;
	enum lne_rule_attr_kind kind;
	const char *yaml;
	size_t off; /* in struct lne_rule_conf */
	const char *help;
};

extern const struct lne_rule_desc lne_rule_desc[LNE_RULE_A__COUNT];

/*
 * For the layers that include kernel/uapi/lnetk.h, each field's genl
 * attribute in enum order: {LNE_RULE_ATTRS(LNE_RULE_GENL)}.
 */
#define LNE_RULE_GENL(id, name, kind, yaml, genl, ...) genl,

/* A rule with no field given: no expression, no priority. */
void lne_rule_conf_init(struct lne_rule_conf *c);

/* Field @a of @c: an expression's text (rows of LNE_RULE_K_EXPR) or a priority. */
static inline const char **lne_rule_conf_expr(struct lne_rule_conf *c, int a)
{
	return (const char **)((char *)c + lne_rule_desc[a].off);
}

static inline u32 *lne_rule_conf_prio(struct lne_rule_conf *c, int a)
{
	return (u32 *)((char *)c + lne_rule_desc[a].off);
}

/* The field whose name is @s, or whose YAML key is @s, or -ENOENT. */
int lne_rule_attr_by_name(const char *s);
int lne_rule_attr_by_yaml(const char *s);

/* lnetctl's argument name of each kind in --help. */
#define LNE_RULE_META_EXPR "EXPR"
#define LNE_RULE_META_PRIO "P"

#endif /* LNE_RULE_ATTRS_H */
