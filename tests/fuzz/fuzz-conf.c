// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for lnetctl's lnet.conf reader (lnetctl/conf.h).
 *
 * The fuzzer's bytes are a file anyone can hand to `lnetctl import`.  In
 * every mode (import, import --del) parsing must not crash, leak, read out
 * of bounds or hang; a refusal must say where ("FILE:LINE:COLUMN: ...")
 * and leave the document empty.  Whatever parses in add mode must emit as
 * YAML that parses back to the same operations (the "kind" of a
 * selection: rule aside, which lnet.conf's udsp: section cannot say and
 * cf_emit() leaves out), with no warnings, and emitting the second
 * document must give the same bytes as the first (the emitted form is a
 * fixed point).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lnetctl/conf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool empty(const struct cf_doc *d)
{
	return !d->op && !d->nop && !d->warning && !d->nwarning;
}

/* @b is @a read back: the same fields, but a udsp op's kind, which emit leaves out. */
static bool op_read_back(const struct cf_op *a, const struct cf_op *b)
{
	size_t i, na = 0;

	if (strcmp(a->verb, b->verb) || strcmp(a->obj, b->obj))
		return false;
	for (i = 0; i < a->nf; i++) {
		const struct cf_val *v;

		if (!strcmp(a->obj, "udsp") && !strcmp(a->f[i].key, "kind"))
			continue;
		v = cf_op_get(b, a->f[i].key);
		if (!v || !cf_val_equal(&a->f[i].val, v))
			return false;
		na++;
	}
	return na == b->nf;
}

static char *emit(const struct cf_doc *d, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	int rc;

	if (!f)
		abort();
	rc = cf_emit(f, d, 0);
	if (fclose(f) || rc == -ENOMEM)
		abort(); /* nothing the fuzzer can do brings memory to an end */
	if (rc) {
		fprintf(stderr, "a parsed document does not emit: %d\n", rc);
		abort();
	}
	return buf;
}

static void check_refusal(int rc, const struct cf_doc *d, const char *err)
{
	if (rc != -EINVAL || !empty(d))
		abort();
	/* "in.yaml:LINE:COLUMN: why", or "in.yaml: why" for the whole file. */
	if (strncmp(err, "in.yaml:", 8) || strlen(err) < 10)
		abort();
}

static void round_trip(const struct cf_doc *d1)
{
	struct cf_doc d2;
	char err[512], *y1, *y2;
	size_t len1, len2, i;
	int rc;

	y1 = emit(d1, &len1);
	rc = cf_parse(y1, len1, "emitted", CF_ADD, &d2, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "emitted YAML does not parse: %s\n%s", err, y1);
		abort();
	}
	if (d2.nop != d1->nop || d2.nwarning) {
		fprintf(stderr, "%zu ops, read back as %zu (%zu warnings):\n%s", d1->nop, d2.nop,
			d2.nwarning, y1);
		abort();
	}
	for (i = 0; i < d1->nop; i++) {
		if (!op_read_back(&d1->op[i], &d2.op[i])) {
			char *a = cf_op_text(&d1->op[i]), *b = cf_op_text(&d2.op[i]);

			fprintf(stderr, "op %zu: %s\nread back: %s\nemitted:\n%s", i, a, b, y1);
			abort();
		}
	}
	y2 = emit(&d2, &len2);
	if (len1 != len2 || memcmp(y1, y2, len1)) {
		fprintf(stderr, "emitting is not stable:\n%s---\n%s", y1, y2);
		abort();
	}
	free(y1);
	free(y2);
	cf_doc_free(&d2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum cf_mode modes[] = {CF_ADD, CF_DEL};
	struct cf_doc d;
	char err[512];
	size_t m;
	int rc;

	for (m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		rc = cf_parse((const char *)data, size, "in.yaml", modes[m], &d, err, sizeof(err));
		if (rc == -ENOMEM)
			abort();
		if (rc) {
			check_refusal(rc, &d, err);
			continue;
		}
		if (modes[m] == CF_ADD)
			round_trip(&d);
		cf_doc_free(&d);
	}
	return 0;
}
