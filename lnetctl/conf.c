// SPDX-License-Identifier: GPL-2.0
/*
 * conf.c - the ops and documents of conf.h, and the vocabulary's tables
 * the parser (conf-parse.c) and the emitter (conf-emit.c) share.
 *
 * An op keeps its fields in the order they were set (a set of an existing
 * key replaces it in place), so cf_op_text() is deterministic and the
 * parser's output reads in the vocabulary's order; cf_op_equal() compares
 * them as a set.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "conf-int.h"

/* ---------------------------------------------------------------------- */
/* Ops and documents                                                       */
/* ---------------------------------------------------------------------- */

static void val_clear(struct cf_val *v)
{
	size_t i;

	if (v->type == CF_STR) {
		free(v->s);
	} else if (v->type == CF_STRV) {
		for (i = 0; i < v->sv.n; i++)
			free(v->sv.v[i]);
		free(v->sv.v);
	}
	memset(v, 0, sizeof(*v));
}

static void op_clear(struct cf_op *op)
{
	size_t i;

	for (i = 0; i < op->nf; i++) {
		free(op->f[i].key);
		val_clear(&op->f[i].val);
	}
	free(op->f);
	free(op->verb);
	free(op->obj);
	memset(op, 0, sizeof(*op));
}

struct cf_op *cf_op_new(const char *verb, const char *obj)
{
	struct cf_op *op = calloc(1, sizeof(*op));

	if (!op)
		return NULL;
	op->verb = strdup(verb);
	op->obj = strdup(obj);
	if (!op->verb || !op->obj) {
		cf_op_free(op);
		return NULL;
	}
	return op;
}

void cf_op_free(struct cf_op *op)
{
	if (!op)
		return;
	op_clear(op);
	free(op);
}

/* Store @nv (taken over, freed on failure) under @key. */
static int set_val(struct cf_op *op, const char *key, struct cf_val *nv)
{
	struct cf_field *f;
	size_t i;

	for (i = 0; i < op->nf; i++) {
		if (!strcmp(op->f[i].key, key)) {
			val_clear(&op->f[i].val);
			op->f[i].val = *nv;
			return 0;
		}
	}
	f = realloc(op->f, (op->nf + 1) * sizeof(*f));
	if (!f)
		goto nomem;
	op->f = f;
	f[op->nf].key = strdup(key);
	if (!f[op->nf].key)
		goto nomem;
	f[op->nf++].val = *nv;
	return 0;
nomem:
	val_clear(nv);
	return -ENOMEM;
}

void cf_op_unset(struct cf_op *op, const char *key)
{
	size_t i;

	for (i = 0; i < op->nf; i++)
		if (!strcmp(op->f[i].key, key)) {
			free(op->f[i].key);
			val_clear(&op->f[i].val);
			memmove(&op->f[i], &op->f[i + 1], (op->nf - i - 1) * sizeof(*op->f));
			op->nf--;
			return;
		}
}

int cf_op_set_str(struct cf_op *op, const char *key, const char *s)
{
	struct cf_val v = {.type = CF_STR, .s = strdup(s)};

	if (!v.s)
		return -ENOMEM;
	return set_val(op, key, &v);
}

int cf_op_set_u32(struct cf_op *op, const char *key, uint32_t u)
{
	struct cf_val v = {.type = CF_U32, .u = u};

	return set_val(op, key, &v);
}

int cf_op_set_bool(struct cf_op *op, const char *key, bool b)
{
	struct cf_val v = {.type = CF_BOOL, .b = b};

	return set_val(op, key, &v);
}

int cf_op_set_strv(struct cf_op *op, const char *key, const char *const *sv, size_t n)
{
	struct cf_val v = {.type = CF_STRV};

	if (n) {
		v.sv.v = calloc(n, sizeof(*v.sv.v));
		if (!v.sv.v)
			return -ENOMEM;
	}
	for (v.sv.n = 0; v.sv.n < n; v.sv.n++) {
		v.sv.v[v.sv.n] = strdup(sv[v.sv.n]);
		if (!v.sv.v[v.sv.n]) {
			val_clear(&v);
			return -ENOMEM;
		}
	}
	return set_val(op, key, &v);
}

const struct cf_val *cf_op_get(const struct cf_op *op, const char *key)
{
	size_t i;

	for (i = 0; i < op->nf; i++)
		if (!strcmp(op->f[i].key, key))
			return &op->f[i].val;
	return NULL;
}

const char *cf_op_get_str(const struct cf_op *op, const char *key)
{
	const struct cf_val *v = cf_op_get(op, key);

	return v && v->type == CF_STR ? v->s : NULL;
}

bool cf_op_get_u32(const struct cf_op *op, const char *key, uint32_t *u)
{
	const struct cf_val *v = cf_op_get(op, key);

	if (!v || v->type != CF_U32)
		return false;
	*u = v->u;
	return true;
}

bool cf_op_get_bool(const struct cf_op *op, const char *key, bool *b)
{
	const struct cf_val *v = cf_op_get(op, key);

	if (!v || v->type != CF_BOOL)
		return false;
	*b = v->b;
	return true;
}

char *const *cf_op_get_strv(const struct cf_op *op, const char *key, size_t *n)
{
	const struct cf_val *v = cf_op_get(op, key);

	if (!v || v->type != CF_STRV)
		return NULL;
	*n = v->sv.n;
	return v->sv.v;
}

bool cf_val_equal(const struct cf_val *a, const struct cf_val *b)
{
	size_t i;

	if (a->type != b->type)
		return false;
	switch (a->type) {
	case CF_STR:
		return !strcmp(a->s, b->s);
	case CF_U32:
		return a->u == b->u;
	case CF_BOOL:
		return a->b == b->b;
	case CF_STRV:
		if (a->sv.n != b->sv.n)
			return false;
		for (i = 0; i < a->sv.n; i++)
			if (strcmp(a->sv.v[i], b->sv.v[i]))
				return false;
		return true;
	}
	return false;
}

bool cf_op_equal(const struct cf_op *a, const struct cf_op *b)
{
	const struct cf_val *v;
	size_t i;

	if (strcmp(a->verb, b->verb) || strcmp(a->obj, b->obj) || a->nf != b->nf)
		return false;
	for (i = 0; i < a->nf; i++) {
		v = cf_op_get(b, a->f[i].key);
		if (!v || !cf_val_equal(&a->f[i].val, v))
			return false;
	}
	return true;
}

static void text_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\x%02x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

char *cf_op_text(const struct cf_op *op)
{
	char *buf = NULL;
	size_t len = 0, i, j;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	fprintf(f, "%s %s", op->verb, op->obj);
	for (i = 0; i < op->nf; i++) {
		const struct cf_val *v = &op->f[i].val;

		fprintf(f, " %s=", op->f[i].key);
		switch (v->type) {
		case CF_STR:
			text_str(f, v->s);
			break;
		case CF_U32:
			fprintf(f, "%u", v->u);
			break;
		case CF_BOOL:
			fputs(v->b ? "true" : "false", f);
			break;
		case CF_STRV:
			fputc('[', f);
			for (j = 0; j < v->sv.n; j++) {
				if (j)
					fputc(',', f);
				text_str(f, v->sv.v[j]);
			}
			fputc(']', f);
			break;
		}
	}
	if (ferror(f)) {
		fclose(f);
		free(buf);
		return NULL;
	}
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

int cf_doc_push(struct cf_doc *doc, struct cf_op *op)
{
	struct cf_op *v = realloc(doc->op, (doc->nop + 1) * sizeof(*v));

	if (!v) {
		cf_op_free(op);
		return -ENOMEM;
	}
	doc->op = v;
	doc->op[doc->nop++] = *op;
	free(op);
	return 0;
}

void cf_doc_free(struct cf_doc *doc)
{
	size_t i;

	for (i = 0; i < doc->nop; i++)
		op_clear(&doc->op[i]);
	free(doc->op);
	for (i = 0; i < doc->nwarning; i++)
		free(doc->warning[i]);
	free(doc->warning);
	memset(doc, 0, sizeof(*doc));
}

/* ---------------------------------------------------------------------- */
/* The vocabulary                                                          */
/* ---------------------------------------------------------------------- */

int cf_global_lookup(const char *s)
{
	size_t i;

	for (i = 0; i < LNE_G__COUNT; i++)
		if (!lne_global_info(i)->section &&
		    (!strcmp(lne_global_info(i)->yaml, s) || !strcmp(lne_global_info(i)->name, s)))
			return (int)i;
	return -1;
}

int cf_global_by_name(const char *name)
{
	size_t i;

	for (i = 0; i < LNE_G__COUNT; i++)
		if (!strcmp(lne_global_info(i)->name, name))
			return (int)i;
	return -1;
}

int cf_global_section(const struct cf_op *op)
{
	int g = cf_global_by_name(cf_op_get_str(op, "name"));
	const char *sec = g < 0 ? NULL : lne_global_info(g)->section;

	if (!sec)
		return CF_GSEC_GLOBAL;
	return strcmp(sec, "routing") ? CF_GSEC_BUFFERS : CF_GSEC_ROUTING;
}

/* An op's place: its rank, and for globals the section they are printed in. */
static int sort_key(const struct cf_op *op)
{
	int r = (int)cf_op_rank(op);

	return r * CF_GSEC__COUNT + (r == CF_R_GLOBAL ? cf_global_section(op) : 0);
}

int cf_doc_sort(struct cf_doc *doc, enum cf_mode mode)
{
	enum {
		NKEYS = CF_R__COUNT * CF_GSEC__COUNT
	};
	size_t i, at[NKEYS + 1] = {0};
	struct cf_op *v;
	int *key;

	if (!doc->nop)
		return 0;
	v = malloc(doc->nop * sizeof(*v));
	key = malloc(doc->nop * sizeof(*key));
	if (!v || !key) {
		free(v);
		free(key);
		return -ENOMEM;
	}
	/* A counting sort, stable: each op's key once (a pass per key was 27 passes). */
	for (i = 0; i < doc->nop; i++) {
		key[i] = sort_key(&doc->op[i]);
		if (mode == CF_DEL)
			key[i] = NKEYS - 1 - key[i];
		at[key[i] + 1]++;
	}
	for (i = 1; i <= NKEYS; i++)
		at[i] += at[i - 1];
	for (i = 0; i < doc->nop; i++)
		v[at[key[i]]++] = doc->op[i];
	free(key);
	free(doc->op);
	doc->op = v;
	return 0;
}

bool cf_net_is_lo(const char *net)
{
	return !strcmp(net, "lo") || !strcmp(net, "lo0");
}

enum cf_rank cf_op_rank(const struct cf_op *op)
{
	/* By the first letter, then one compare: each section of an export asks for every op. */
	switch (op->obj[0]) {
	case 'n':
		if (strcmp(op->obj, "net"))
			break;
		return cf_op_get_str(op, "pattern") ? CF_R_IP2NETS : CF_R_NET;
	case 'p':
		if (strcmp(op->obj, "peer"))
			break;
		return strcmp(op->verb, "set") ? CF_R_PEER : CF_R_PEERS;
	case 'r':
		return strcmp(op->obj, "route") ? CF_R_OTHER : CF_R_ROUTE;
	case 'u':
		return strcmp(op->obj, "udsp") ? CF_R_OTHER : CF_R_UDSP;
	case 'g':
		return strcmp(op->obj, "global") ? CF_R_OTHER : CF_R_GLOBAL;
	case 't':
		return strcmp(op->obj, "tbf") ? CF_R_OTHER : CF_R_TBF;
	default:
		break;
	}
	return CF_R_OTHER;
}
