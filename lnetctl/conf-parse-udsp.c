// SPDX-License-Identifier: GPL-2.0
/*
 * conf-parse-udsp.c - lnet.conf's udsp: section, and the Multi-Rail
 * design's selection:, into udsp ops.
 */
#include <errno.h>
#include <string.h>

#include "conf-int.h"

/* ---------------------------------------------------------------------- */
/* udsp:                                                                  */
/* ---------------------------------------------------------------------- */

/* A udsp: entry: a value per row of engine/rule-attrs.h, by its YAML key, and its idx. */
struct udsp_spec {
	yaml_node_t *expr[LNE_RULE_A__COUNT], *num_key[LNE_RULE_A__COUNT];
	bool idx_set, num_set[LNE_RULE_A__COUNT];
	uint32_t idx, num[LNE_RULE_A__COUNT];
};

/* Lustre's udsp show prints "NA" for a criterion the rule does not have. */
static int h_udsp_expr(struct cfp *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	struct udsp_spec *s = st;
	const char *str;
	int rc = cfp_get_str(p, cfp_sval(k), v, &str);

	if (rc || !strcmp(str, "NA"))
		return rc;
	s->expr[lne_rule_attr_by_yaml(cfp_sval(k))] = v;
	return 0;
}

static int h_udsp_idx(struct cfp *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	struct udsp_spec *s = st;

	s->idx_set = true;
	return cfp_get_u32(p, "idx", v, &s->idx, NULL);
}

/* A number of the action (a priority). */
static int h_udsp_num(struct cfp *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	struct udsp_spec *s = st;
	int a = lne_rule_attr_by_yaml(cfp_sval(k));

	if (s->num_set[a])
		return cfp_fail(p, k, cfp_sval(k), "given twice in the action");
	s->num_set[a] = true;
	return cfp_get_u32(p, cfp_sval(k), v, &s->num[a], NULL);
}

/* Each row's key: an expression in the entry, a number in its action. */
#define UDSP_KEY(id, name, kind, yaml, ...) UDSP_KEY_##kind(yaml)
#define UDSP_KEY_EXPR(yaml)		    {yaml, h_udsp_expr},
#define UDSP_KEY_PRIO(yaml)
#define ACTION_KEY(id, name, kind, yaml, ...) ACTION_KEY_##kind(yaml)
#define ACTION_KEY_EXPR(yaml)
#define ACTION_KEY_PRIO(yaml) {yaml, h_udsp_num},

static const struct cfp_keydef action_keys[] = {
	LNE_RULE_ATTRS(ACTION_KEY){NULL, NULL},
};

static int do_action_item(struct cfp *p, yaml_node_t *item, void *st)
{
	return cfp_walk_map(p, item, "action", "a UDSP action", action_keys, st);
}

/* "action: {priority: N}" as Lustre prints it, or the design's list form. */
static int h_udsp_action(struct cfp *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	if (v->type == YAML_SEQUENCE_NODE)
		return cfp_walk_seq(p, v, "action", "actions", do_action_item, st);
	return cfp_walk_map(p, v, "action", "a UDSP action", action_keys, st);
}

static const struct cfp_keydef udsp_keys[] = {
	{"idx", h_udsp_idx},
	LNE_RULE_ATTRS(UDSP_KEY){"action", h_udsp_action},
	{"seq_no", NULL},
	{NULL, NULL},
};

static int do_udsp(struct cfp *p, yaml_node_t *item, void *st)
{
	struct udsp_spec s = {0};
	struct cf_op *op;
	int rc = cfp_walk_map(p, item, "udsp", "a UDSP rule", udsp_keys, &s), a;

	if (rc)
		return rc;
	if (p->mode == CF_DEL) {
		if (!s.idx_set)
			return cfp_fail(p, item, "idx",
					"missing: a UDSP rule is deleted by its idx");
		op = cfp_op_at("del", "udsp", item);
		return cfp_push(p, op, op ? cf_op_set_u32(op, "idx", s.idx) : 0);
	}
	op = cfp_op_at("add", "udsp", item);
	rc = op ? 0 : -ENOMEM;
	for (a = 0; !rc && a < LNE_RULE_A__COUNT; a++)
		switch (lne_rule_desc[a].kind) {
		case LNE_RULE_K_EXPR:
			if (s.expr[a])
				rc = cf_op_set_str(op, lne_rule_desc[a].name, cfp_sval(s.expr[a]));
			break;
		case LNE_RULE_K_PRIO:
			if (s.num_set[a])
				rc = cf_op_set_u32(op, lne_rule_desc[a].name, s.num[a]);
			break;
		}
	if (!rc && s.idx_set)
		rc = cf_op_set_u32(op, "idx", s.idx);
	return cfp_push(p, op, rc);
}

int cfp_sec_udsp(struct cfp *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	return cfp_walk_seq(p, v, "udsp", "UDSP rules", do_udsp, NULL);
}

/* ---------------------------------------------------------------------- */
/* selection: (the Multi-Rail design's form)                              */
/* ---------------------------------------------------------------------- */

struct sel_spec {
	yaml_node_t *type, *a, *a_key, *b;
	uint32_t prio, id;
	bool prio_set, id_set;
};

static int h_sel_str(struct cfp *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	struct sel_spec *s = st;
	const char *key = cfp_sval(k), *str;
	int rc = cfp_get_str(p, key, v, &str);

	if (!strcmp(key, "type"))
		s->type = v;
	else if (!strcmp(key, "remote"))
		s->b = v;
	else if (s->a)
		return cfp_fail(p, k, key, "a selection rule names one of net, nid or local");
	else {
		s->a = v;
		s->a_key = k;
	}
	return rc;
}

static int h_sel_prio(struct cfp *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	struct sel_spec *s = st;

	s->prio_set = true;
	return cfp_get_u32(p, "priority", v, &s->prio, NULL);
}

/* selection show prints the rule's id: under --del it must name the same rule as the
 * patterns (lnetd checks), as the design asks; an add ignores it. */
static int h_sel_id(struct cfp *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	struct sel_spec *s = st;

	s->id_set = true;
	return cfp_get_u32(p, "id", v, &s->id, NULL);
}

static const struct cfp_keydef sel_keys[] = {
	{"type", h_sel_str},  {"net", h_sel_str},    {"nid", h_sel_str},
	{"local", h_sel_str}, {"remote", h_sel_str}, {"priority", h_sel_prio},
	{"id", h_sel_id}, /* selection show's */
	{"seq_no", NULL},     {NULL, NULL},
};

/*
 * "- type: net|nid|peer" with net:, nid:, or local: and remote:, and
 * priority: the UDSP rules lnetctl selection makes (cmd-select.c): a local
 * net or NID priority, or a NID pair.  --del finds the rule by its patterns.
 */
static int do_selection(struct cfp *p, yaml_node_t *item, void *st)
{
	struct sel_spec s = {0};
	const char *type, *want;
	struct cf_op *op;
	int rc = cfp_walk_map(p, item, "selection", "a selection rule", sel_keys, &s);

	if (rc)
		return rc;
	if (!s.type)
		return cfp_fail(p, item, "type", "missing in a selection rule (net, nid or peer)");
	type = cfp_sval(s.type);
	want = !strcmp(type, "net") ? "net" : !strcmp(type, "nid") ? "nid" : "local";
	if (strcmp(type, "net") && strcmp(type, "nid") && strcmp(type, "peer"))
		return cfp_fail(p, s.type, "type", "'%s' is not net, nid or peer", type);
	if (!s.a)
		return cfp_fail(p, item, want, "missing in a %s selection rule", type);
	if (strcmp(cfp_sval(s.a_key), want))
		return cfp_fail(p, s.a_key, cfp_sval(s.a_key),
				"a %s selection rule takes %s:", type, want);
	if (!strcmp(type, "peer") != !!s.b)
		return cfp_fail(p, s.b ? s.b : item, "remote",
				!strcmp(type, "peer") ? "missing in a peer selection rule"
						      : "only a peer selection rule has one");
	if (p->mode == CF_ADD && !s.prio_set)
		return cfp_fail(p, item, "priority", "missing in a selection rule");
	op = cfp_op_at(cfp_verb(p), "udsp", item);
	rc = op ? cf_op_set_str(op, "src", cfp_sval(s.a)) : -ENOMEM;
	if (!rc && s.b)
		rc = cf_op_set_str(op, "dst", cfp_sval(s.b));
	if (!rc && p->mode == CF_ADD)
		rc = cf_op_set_u32(op, "priority", s.prio);
	if (!rc && p->mode == CF_DEL && s.id_set)
		rc = cf_op_set_u32(op, "idx", s.id);
	/* The rule must be the kind the entry says (lnetd refuses another). */
	if (!rc && p->mode == CF_ADD)
		rc = cf_op_set_str(op, "kind",
				   !strcmp(type, "net")	  ? "local net priority"
				   : !strcmp(type, "nid") ? "local NID priority"
							  : "NID pair");
	return cfp_push(p, op, rc);
}

int cfp_sec_selection(struct cfp *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	return cfp_walk_seq(p, v, "selection", "selection rules", do_selection, NULL);
}
