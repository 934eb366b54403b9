// SPDX-License-Identifier: GPL-2.0
/*
 * rule-attrs.c - the table LNE_RULE_ATTRS() describes.
 */
#include "rule-attrs.h"
#include "error.h"
#include "model.h"

const struct lne_rule_desc lne_rule_desc[LNE_RULE_A__COUNT] = {
#define LNE_RULE_ROW(id, nm, kd, ym, genl, hlp)                         \
	[LNE_RULE_A_##id] = {.name = #nm,                               \
			     .kind = LNE_RULE_K_##kd,                   \
			     .yaml = ym,                                \
			     .off = offsetof(struct lne_rule_conf, nm), \
			     .help = hlp},
	LNE_RULE_ATTRS(LNE_RULE_ROW)
#undef LNE_RULE_ROW
};

void lne_rule_conf_init(struct lne_rule_conf *c)
{
	int a;

	for (a = 0; a < LNE_RULE_A__COUNT; a++)
		switch (lne_rule_desc[a].kind) {
		case LNE_RULE_K_EXPR:
			*lne_rule_conf_expr(c, a) = NULL;
			break;
		case LNE_RULE_K_PRIO:
			*lne_rule_conf_prio(c, a) = LNE_PRIO_NONE;
			break;
		}
}

int lne_rule_attr_by_yaml(const char *s)
{
	int i;

	for (i = 0; i < LNE_RULE_A__COUNT; i++)
		if (!strcmp(lne_rule_desc[i].yaml, s))
			return i;
	return -ENOENT;
}

int lne_rule_attr_by_name(const char *s)
{
	int i;

	for (i = 0; i < LNE_RULE_A__COUNT; i++)
		if (!strcmp(lne_rule_desc[i].name, s))
			return i;
	return -ENOENT;
}
