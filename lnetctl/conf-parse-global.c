// SPDX-License-Identifier: GPL-2.0
/*
 * conf-parse-global.c - lnet.conf's global:, numa:, routing: and buffers:
 * sections into set global ops.
 */
#include <string.h>

#include "conf-int.h"

static int set_global(struct cfp *p, yaml_node_t *k, size_t g, yaml_node_t *v)
{
	const char *key = cfp_sval(k);
	struct cf_op *op;
	uint32_t u;
	int rc;

	if (p->mode == CF_DEL)
		return cfp_fail(p, k, key,
				"global settings cannot be deleted (set the value wanted instead)");
	rc = cfp_get_u32(p, key, v, &u, NULL);
	if (rc)
		return rc;
	if (p->gset[g])
		return cfp_fail(p, k, key, "%s is set twice (also at line %zu, column %zu)",
				lne_global_info(g)->name, cfp_line_of(p->gset[g]),
				cfp_col_of(p->gset[g]));
	p->gset[g] = k;
	op = cfp_op_at("set", "global", k);
	if (!op)
		return cfp_nomem(p);
	rc = cf_op_set_str(op, "name", lne_global_info(g)->name);
	rc = rc ? rc : cf_op_set_u32(op, "value", u);
	return cfp_push(p, op, rc);
}

int cfp_sec_global(struct cfp *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	const yaml_node_pair_t *pr;
	int rc;

	if (cfp_is_null(v))
		return 0;
	rc = cfp_check_map(p, v, "global", "global");
	for (pr = v->data.mapping.pairs.start; !rc && pr < v->data.mapping.pairs.top; pr++) {
		yaml_node_t *gk = cfp_node(p, pr->key);
		const char *name = cfp_sval(gk);
		int g = cf_global_lookup(name);

		/* lnd_timeout is derived (transaction_timeout over retries): shown, not set. */
		if (!strcmp(name, "lnd_timeout") || !strcmp(name, "seq_no"))
			continue;
		if (g < 0)
			return cfp_fail(p, gk, name, "not a global setting");
		rc = set_global(p, gk, (size_t)g, cfp_node(p, pr->value));
	}
	return rc;
}

static int h_numa_range(struct cfp *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	return set_global(p, k, (size_t)cf_global_lookup("numa_range"), v);
}

static const struct cfp_keydef numa_keys[] = {
	{"range", h_numa_range},
	{"seq_no", NULL},
	{NULL, NULL},
};

int cfp_sec_numa(struct cfp *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	return cfp_walk_map(p, v, "numa", "numa", numa_keys, NULL);
}

static int h_routing(struct cfp *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	return set_global(p, k, LNE_G_ROUTING, v);
}

static const struct cfp_keydef routing_keys[] = {
	{"enable", h_routing},
	{"seq_no", NULL},
	{NULL, NULL},
};

/*
 * Lustre's show prints routing as a list: "- cpt[N]: {buffer pools}" (what
 * the router holds now: shown, not set) and "- enable: N".
 */
static int do_routing_item(struct cfp *p, yaml_node_t *item, void *st)
{
	const yaml_node_pair_t *pr;
	int rc = cfp_check_map(p, item, "routing", "routing");

	for (pr = item->data.mapping.pairs.start; !rc && pr < item->data.mapping.pairs.top; pr++) {
		yaml_node_t *k = cfp_node(p, pr->key);

		if (!strcmp(cfp_sval(k), "enable"))
			rc = h_routing(p, k, cfp_node(p, pr->value), NULL);
		else if (strncmp(cfp_sval(k), "cpt[", 4))
			rc = cfp_fail(p, k, cfp_sval(k), "invalid key in routing");
	}
	return rc;
}

int cfp_sec_routing(struct cfp *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	if (cfp_is_null(v))
		return 0;
	/* An exported file deletes what it added; a setting stays (Lustre turns routing off). */
	if (p->mode == CF_DEL)
		return cfp_warning_at(p, k, "routing: settings are not deleted (set routing 0)");
	if (v->type == YAML_SEQUENCE_NODE)
		return cfp_walk_seq(p, v, "routing", "routing entries", do_routing_item, NULL);
	return cfp_walk_map(p, v, "routing", "routing", routing_keys, NULL);
}

static int h_buffers(struct cfp *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	static const enum lne_global pool[] = {LNE_G_TINY_BUFFERS, LNE_G_SMALL_BUFFERS,
					       LNE_G_LARGE_BUFFERS};
	uint32_t u;
	bool dflt;
	size_t i;
	int rc;

	/* Lustre's -1: the pool keeps its size (nothing set) */
	rc = cfp_get_u32(p, cfp_sval(k), v, &u, &dflt);
	if (rc || dflt)
		return rc;
	for (i = 0; i < LNE_ARRAY_SIZE(pool); i++)
		if (!strcmp(cfp_sval(k), lne_global_info(pool[i])->yaml))
			return set_global(p, k, pool[i], v);
	return cfp_fail(p, k, cfp_sval(k), "invalid key in buffers");
}

static const struct cfp_keydef buffers_keys[] = {
	{"tiny", h_buffers}, {"small", h_buffers}, {"large", h_buffers},
	{"seq_no", NULL},    {NULL, NULL},
};

int cfp_sec_buffers(struct cfp *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	if (cfp_is_null(v))
		return 0;
	if (p->mode == CF_DEL)
		return cfp_warning_at(p, k, "buffers: settings are not deleted");
	return cfp_walk_map(p, v, "buffers", "buffers", buffers_keys, NULL);
}
