// SPDX-License-Identifier: GPL-2.0
/*
 * conf-parse-walk.c - the lnet.conf reader's walks over mappings and lists
 * (conf-int.h): a mapping's keys checked against a table, its pairs and a
 * list's items handed to handlers, string lists collected.  The loader and
 * cf_parse() are in conf-parse.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "conf-int.h"

/* ---------------------------------------------------------------------- */
/* Parsing: mappings and lists                                             */
/* ---------------------------------------------------------------------- */

struct keyref {
	const char *s;
	size_t i;
};

static int keyref_cmp(const void *a, const void *b)
{
	const struct keyref *x = a, *y = b;
	int c = strcmp(x->s, y->s);

	return c ? c : (x->i > y->i) - (x->i < y->i);
}

/* @n must be a mapping whose keys are distinct strings. */
int cfp_check_map(struct cfp *p, const yaml_node_t *n, const char *key, const char *what)
{
	const yaml_node_pair_t *pairs;
	size_t np, i, dup = SIZE_MAX;
	struct keyref *r;

	if (n->type != YAML_MAPPING_NODE)
		return cfp_fail(p, n, key, "expected a mapping (%s), got %s", what, cfp_kind(p, n));
	pairs = n->data.mapping.pairs.start;
	np = (size_t)(n->data.mapping.pairs.top - pairs);
	for (i = 0; i < np; i++) {
		const yaml_node_t *k = cfp_node(p, pairs[i].key);

		if (k->type != YAML_SCALAR_NODE || cfp_is_null(k) ||
		    strlen(cfp_sval(k)) != k->data.scalar.length)
			return cfp_fail(p, k, NULL, "a key in %s must be a string", what);
	}
	if (np < 2)
		return 0;
	/* A few keys (an entry's): each against those before it, nothing to allocate. */
	for (i = 1; np <= 8 && i < np; i++) {
		const char *ki = cfp_sval(cfp_node(p, pairs[i].key));
		size_t j;

		for (j = 0; j < i; j++)
			if (!strcmp(cfp_sval(cfp_node(p, pairs[j].key)), ki))
				return cfp_fail(p, cfp_node(p, pairs[i].key), ki,
						"given twice in %s", what);
	}
	if (np <= 8)
		return 0;
	r = malloc(np * sizeof(*r));
	if (!r)
		return cfp_nomem(p);
	for (i = 0; i < np; i++)
		r[i] = (struct keyref){cfp_sval(cfp_node(p, pairs[i].key)), i};
	qsort(r, np, sizeof(*r), keyref_cmp);
	/* Of all repeats, report the first one in the file. */
	for (i = 1; i < np; i++)
		if (!strcmp(r[i - 1].s, r[i].s) && r[i].i < dup)
			dup = r[i].i;
	free(r);
	if (dup != SIZE_MAX)
		return cfp_fail(p, cfp_node(p, pairs[dup].key),
				cfp_sval(cfp_node(p, pairs[dup].key)), "given twice in %s", what);
	return 0;
}

/* Walk a mapping (or nothing, an empty one) against @tab. */
int cfp_walk_map(struct cfp *p, yaml_node_t *n, const char *key, const char *what,
		 const struct cfp_keydef *tab, void *st)
{
	const yaml_node_pair_t *pr;
	int rc;

	if (cfp_is_null(n))
		return 0;
	rc = cfp_check_map(p, n, key, what);
	for (pr = n->data.mapping.pairs.start; !rc && pr < n->data.mapping.pairs.top; pr++) {
		yaml_node_t *k = cfp_node(p, pr->key), *v = cfp_node(p, pr->value);
		const struct cfp_keydef *d;

		for (d = tab; d->name && strcmp(d->name, cfp_sval(k)); d++)
			;
		if (!d->name)
			return cfp_fail(p, k, cfp_sval(k), "invalid key in %s", what);
		if (d->fn)
			rc = d->fn(p, k, v, st);
	}
	return rc;
}

/* Walk a list (or nothing, an empty one), calling @fn on each item. */
int cfp_walk_seq(struct cfp *p, yaml_node_t *n, const char *key, const char *what,
		 int (*fn)(struct cfp *p, yaml_node_t *item, void *st), void *st)
{
	const yaml_node_item_t *it;
	int rc = 0;

	if (cfp_is_null(n))
		return 0;
	if (n->type != YAML_SEQUENCE_NODE)
		return cfp_fail(p, n, key, "expected a list of %s, got %s", what, cfp_kind(p, n));
	for (it = n->data.sequence.items.start; !rc && it < n->data.sequence.items.top; it++)
		rc = fn(p, cfp_node(p, *it), st);
	return rc;
}

int cfp_nodes_push(struct cfp *p, struct cfp_nodes *ns, yaml_node_t *n)
{
	yaml_node_t **v = realloc(ns->v, (ns->n + 1) * sizeof(*v));

	if (!v)
		return cfp_nomem(p);
	ns->v = v;
	v[ns->n++] = n;
	return 0;
}

/* Lustre's string lists: "{0: eth0, 1: eth1}", or a plain list "[eth0, eth1]". */
int cfp_get_strs(struct cfp *p, const yaml_node_t *k, yaml_node_t *v, struct cfp_nodes *out)
{
	const char *key = cfp_sval(k), *s;
	size_t before = out->n;
	int rc = 0;

	if (v->type == YAML_MAPPING_NODE) {
		const yaml_node_pair_t *pr;

		rc = cfp_check_map(p, v, key, key);
		for (pr = v->data.mapping.pairs.start; !rc && pr < v->data.mapping.pairs.top;
		     pr++) {
			rc = cfp_get_str(p, key, cfp_node(p, pr->value), &s);
			rc = rc ? rc : cfp_nodes_push(p, out, cfp_node(p, pr->value));
		}
	} else if (v->type == YAML_SEQUENCE_NODE) {
		const yaml_node_item_t *it;

		for (it = v->data.sequence.items.start; !rc && it < v->data.sequence.items.top;
		     it++) {
			rc = cfp_get_str(p, key, cfp_node(p, *it), &s);
			rc = rc ? rc : cfp_nodes_push(p, out, cfp_node(p, *it));
		}
	} else {
		return cfp_fail(p, v, key, "expected a mapping like {0: %s} or a list, got %s",
				strcmp(key, "ip-range") ? "eth0" : "10.0.0.*", cfp_kind(p, v));
	}
	if (!rc && out->n == before)
		return cfp_fail(p, v, key, "lists nothing");
	return rc;
}
