// SPDX-License-Identifier: GPL-2.0
/*
 * yamlcmp.c - compare two YAML files as data, the way Lustre's test suite
 * does (it loads both with a YAML library and compares the objects):
 * mappings by their keys whatever the order, sequences item by item,
 * plain scalars by what they mean (7 and 07 and 0x7 are one integer, True
 * and true one boolean, "" and ~ and null nothing) and quoted scalars as
 * text.  Exit 0: equal; 1: different (the first difference on stderr);
 * 2: a file is unreadable or not YAML.  An empty file is nothing (null).
 *
 *   yamlcmp ACTUAL EXPECTED
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

enum kind {
	K_NULL,
	K_BOOL,
	K_INT,
	K_STR
};

static bool is_null(const char *s)
{
	return !*s || !strcmp(s, "~") || !strcasecmp(s, "null");
}

/* YAML 1.1's booleans, as a Python loader reads them. */
static int as_bool(const char *s)
{
	static const char *const t[] = {"true", "yes", "on", NULL};
	static const char *const f[] = {"false", "no", "off", NULL};
	int i;

	for (i = 0; t[i]; i++)
		if (!strcasecmp(s, t[i]))
			return 1;
	for (i = 0; f[i]; i++)
		if (!strcasecmp(s, f[i]))
			return 0;
	return -1;
}

static bool as_int(const char *s, long long *v)
{
	char *end;
	int base = 10;
	const char *p = s;

	if (*p == '-' || *p == '+')
		p++;
	if (!*p || !(*p >= '0' && *p <= '9'))
		return false;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		base = 16;
	else if (p[0] == '0' && p[1])
		base = 8;
	errno = 0;
	*v = strtoll(s, &end, base);
	return !*end && !errno;
}

static enum kind scalar_kind(const yaml_node_t *n, long long *iv)
{
	const char *s = (const char *)n->data.scalar.value;
	int b;

	if (n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return K_STR;
	if (is_null(s))
		return K_NULL;
	b = as_bool(s);
	if (b >= 0) {
		*iv = b;
		return K_BOOL;
	}
	if (as_int(s, iv))
		return K_INT;
	return K_STR;
}

/* The first difference found (the comparison stops there). */
static void say(const char *path, const char *what)
{
	fprintf(stderr, "yamlcmp: %s: %s\n", *path ? path : "(top)", what);
}

/* A path or message; too long for @buf, it is cut short (only printed). */
#define PRINT(buf, ...) ((void)(snprintf(buf, sizeof(buf), __VA_ARGS__) < 0))

static bool same(yaml_document_t *a, yaml_node_t *x, yaml_document_t *b, yaml_node_t *y,
		 const char *path);

static bool scalar_eq(const yaml_node_t *x, const yaml_node_t *y)
{
	long long u = 0, v = 0;
	enum kind kx = scalar_kind(x, &u), ky = scalar_kind(y, &v);

	if (kx != ky)
		return false;
	if (kx == K_STR)
		return !strcmp((const char *)x->data.scalar.value,
			       (const char *)y->data.scalar.value);
	return u == v;
}

static yaml_node_t *lookup(yaml_document_t *d, yaml_node_t *map, yaml_node_t *key)
{
	yaml_node_pair_t *p;
	yaml_node_t *found = NULL;

	/* the last of equal keys wins, as in a Python dict */
	for (p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(d, p->key);

		if (k->type == YAML_SCALAR_NODE && scalar_eq(k, key))
			found = yaml_document_get_node(d, p->value);
	}
	return found;
}

static bool map_covers(yaml_document_t *a, yaml_node_t *x, yaml_document_t *b, yaml_node_t *y,
		       const char *path, bool compare)
{
	yaml_node_pair_t *p;
	char sub[4096];

	for (p = x->data.mapping.pairs.start; p < x->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(a, p->key);
		yaml_node_t *other;

		if (k->type != YAML_SCALAR_NODE) {
			say(path, "a key that is not a scalar");
			return false;
		}
		PRINT(sub, "%s/%s", path, (const char *)k->data.scalar.value);
		other = lookup(b, y, k);
		if (!other) {
			say(sub, compare ? "only in the first file" : "only in the second file");
			return false;
		}
		if (compare && !same(a, lookup(a, x, k), b, other, sub))
			return false;
	}
	return true;
}

static bool same(yaml_document_t *a, yaml_node_t *x, yaml_document_t *b, yaml_node_t *y,
		 const char *path)
{
	char sub[4096];

	if (x->type != y->type) {
		say(path, "not the same kind of node");
		return false;
	}
	switch (x->type) {
	case YAML_SCALAR_NODE:
		if (scalar_eq(x, y))
			return true;
		PRINT(sub, "'%s' against '%s'", (const char *)x->data.scalar.value,
		      (const char *)y->data.scalar.value);
		say(path, sub);
		return false;
	case YAML_SEQUENCE_NODE: {
		yaml_node_item_t *i = x->data.sequence.items.start;
		yaml_node_item_t *j = y->data.sequence.items.start;
		int k = 0;

		for (; i < x->data.sequence.items.top && j < y->data.sequence.items.top;
		     i++, j++, k++) {
			PRINT(sub, "%s[%d]", path, k);
			if (!same(a, yaml_document_get_node(a, *i), b,
				  yaml_document_get_node(b, *j), sub))
				return false;
		}
		if (i != x->data.sequence.items.top || j != y->data.sequence.items.top) {
			say(path, "sequences of different lengths");
			return false;
		}
		return true;
	}
	case YAML_MAPPING_NODE:
		return map_covers(a, x, b, y, path, true) && map_covers(b, y, a, x, path, false);
	default:
		say(path, "an empty node");
		return false;
	}
}

static int load(const char *name, yaml_document_t *doc, bool *empty)
{
	yaml_parser_t p;
	FILE *f = fopen(name, "r");
	int ok;

	if (!f) {
		fprintf(stderr, "yamlcmp: %s: %s\n", name, strerror(errno));
		return -1;
	}
	yaml_parser_initialize(&p);
	yaml_parser_set_input_file(&p, f);
	ok = yaml_parser_load(&p, doc);
	if (!ok)
		fprintf(stderr, "yamlcmp: %s: line %zu: %s\n", name, p.problem_mark.line + 1,
			p.problem ? p.problem : "not YAML");
	yaml_parser_delete(&p);
	fclose(f);
	if (!ok)
		return -1;
	*empty = !yaml_document_get_root_node(doc);
	return 0;
}

int main(int argc, char **argv)
{
	yaml_document_t a, b;
	bool ea, eb, eq;

	if (argc != 3) {
		fprintf(stderr, "usage: yamlcmp ACTUAL EXPECTED\n");
		return 2;
	}
	if (load(argv[1], &a, &ea))
		return 2;
	if (load(argv[2], &b, &eb)) {
		yaml_document_delete(&a);
		return 2;
	}
	if (ea || eb) {
		eq = ea == eb;
		if (!eq)
			say("", "one file is empty");
	} else {
		eq = same(&a, yaml_document_get_root_node(&a), &b, yaml_document_get_root_node(&b),
			  "");
	}
	yaml_document_delete(&a);
	yaml_document_delete(&b);
	return eq ? 0 : 1;
}
