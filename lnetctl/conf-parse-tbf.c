// SPDX-License-Identifier: GPL-2.0
/*
 * conf-parse-tbf.c - lnetd's tbf: section (Lustre keeps NRS TBF in lctl
 * set_param, not in lnet.conf) into tbf ops.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "conf-int.h"

struct tbf_spec {
	yaml_node_t *service, *queue, *type, *depth_key;
	uint32_t depth;
	struct cfp_nodes rules;
	bool has_rules, shown; /* shown: tbf show's entries, in match order */
};

static int h_tbf_str(struct cfp *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	struct tbf_spec *s = st;
	const char *str;
	int rc = cfp_get_str(p, cfp_sval(k), v, &str);

	if (rc)
		return rc;
	if (!strcmp(cfp_sval(k), "service"))
		s->service = v;
	else if (!strcmp(cfp_sval(k), "queue")) {
		if (strcmp(str, "reg") && strcmp(str, "hp"))
			return cfp_fail(p, v, "queue", "'%s' is neither reg nor hp", str);
		s->queue = v;
	} else
		s->type = v;
	return 0;
}

static int h_tbf_depth(struct cfp *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	struct tbf_spec *s = st;

	s->depth_key = k;
	return cfp_get_u32(p, "depth", v, &s->depth, NULL);
}

/* A rule as text, or as tbf show prints it: {name, rule, rate, ..., stats}. */
static const struct cfp_keydef tbf_shown_rule_keys[] = {
	{"name", NULL},	   {"rule", NULL},  {"rate", NULL}, {"realtime", NULL},
	{"classes", NULL}, {"stats", NULL}, {NULL, NULL},
};

static int do_tbf_rule(struct cfp *p, yaml_node_t *item, void *st)
{
	struct tbf_spec *s = st;
	const yaml_node_pair_t *pr;
	const char *str;
	int rc;

	if (item->type == YAML_MAPPING_NODE) {
		rc = cfp_walk_map(p, item, "rules", "a TBF rule", tbf_shown_rule_keys, NULL);
		for (pr = item->data.mapping.pairs.start; !rc && pr < item->data.mapping.pairs.top;
		     pr++)
			if (!strcmp(cfp_sval(cfp_node(p, pr->key)), "rule")) {
				s->shown = true;
				rc = cfp_get_str(p, "rule", cfp_node(p, pr->value), &str);
				return rc ? rc
					  : cfp_nodes_push(p, &s->rules, cfp_node(p, pr->value));
			}
		return rc ? rc : cfp_fail(p, item, "rule", "missing in a TBF rule");
	}
	rc = cfp_get_str(p, "rules", item, &str);
	return rc ? rc : cfp_nodes_push(p, &s->rules, item);
}

static int h_tbf_rules(struct cfp *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	struct tbf_spec *s = st;

	s->has_rules = true;
	return cfp_walk_seq(p, v, "rules", "TBF rules", do_tbf_rule, st);
}

static const struct cfp_keydef tbf_keys[] = {
	{"service", h_tbf_str}, {"queue", h_tbf_str},	{"type", h_tbf_str},
	{"depth", h_tbf_depth}, {"rules", h_tbf_rules}, {"classes", NULL}, /* tbf show -v */
	{NULL, NULL},
};

static int do_tbf(struct cfp *p, yaml_node_t *item, void *st)
{
	struct tbf_spec s = {0};
	struct cf_op *op;
	size_t i;
	int rc = cfp_walk_map(p, item, "tbf", "a TBF policy", tbf_keys, &s);

	if (!rc && !s.service)
		rc = cfp_fail(p, item, "service", "missing in a TBF policy");
	if (rc) {
		free(s.rules.v);
		return rc;
	}
	op = cfp_op_at(p->mode == CF_DEL ? "del" : "set", "tbf", item);
	rc = op ? cf_op_set_str(op, "service", cfp_sval(s.service)) : -ENOMEM;
	if (p->mode != CF_DEL) {
		const char **v = calloc(s.rules.n + 1, sizeof(*v));

		if (!rc)
			rc = cf_op_set_str(op, "queue", s.queue ? cfp_sval(s.queue) : "reg");
		if (!rc && s.type)
			rc = cf_op_set_str(op, "type", cfp_sval(s.type));
		if (!rc && s.depth_key)
			rc = cf_op_set_u32(op, "depth", s.depth);
		/* tbf show lists rules in match order; replaying goes last rule first. */
		for (i = 0; v && i < s.rules.n; i++)
			v[i] = cfp_sval(s.rules.v[s.shown ? s.rules.n - 1 - i : i]);
		if (!rc && s.has_rules)
			rc = v ? cf_op_set_strv(op, "rules", v, s.rules.n) : -ENOMEM;
		free(v);
	}
	free(s.rules.v);
	return cfp_push(p, op, rc);
}

int cfp_sec_tbf(struct cfp *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	return cfp_walk_seq(p, v, "tbf", "TBF policies", do_tbf, NULL);
}
