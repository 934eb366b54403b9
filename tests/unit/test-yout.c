// SPDX-License-Identifier: GPL-2.0
/*
 * test-yout.c - yout writes what libyaml's emitter wrote, byte for byte.
 *
 * lnetctl's YAML writer (lnetctl/yout.c) used to be libyaml's emitter and
 * is now direct writes; every show's output and every export must stay
 * the same.  Random documents (nesting, empty lists and mappings, long and
 * multi-line keys, scalars of indicators, quotes, breaks, control and
 * non-ASCII characters, another indent) go through both, and the bytes
 * are compared; so are the errors of events out of order.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "lnetctl/yout.h"
#include "test-conf.h"
#include "unit.h"

/* ---------------------------------------------------------------------- */
/* The reference: libyaml's emitter, set up as yout set it up              */
/* ---------------------------------------------------------------------- */

struct ref {
	yaml_emitter_t em;
	bool doc, failed;
};

static void ref_emit(struct ref *r, yaml_event_t *ev)
{
	if (!r->failed && !yaml_emitter_emit(&r->em, ev))
		r->failed = true;
}

static void ref_begin(struct ref *r, FILE *f, int indent)
{
	yaml_event_t ev;

	memset(r, 0, sizeof(*r));
	ck_assert(yaml_emitter_initialize(&r->em));
	yaml_emitter_set_output_file(&r->em, f);
	yaml_emitter_set_encoding(&r->em, YAML_UTF8_ENCODING);
	yaml_emitter_set_indent(&r->em, indent);
	yaml_emitter_set_width(&r->em, -1);
	yaml_emitter_set_unicode(&r->em, 1);
	yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING);
	ref_emit(r, &ev);
}

static void ref_node(struct ref *r)
{
	yaml_event_t ev;

	if (r->doc)
		return;
	r->doc = true;
	yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1);
	ref_emit(r, &ev);
}

static void ref_scalar(struct ref *r, const char *s)
{
	bool q = yout_needs_quotes(s);
	yaml_event_t ev;

	ref_node(r);
	yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)s, (int)strlen(s), !q, 1,
				     q ? YAML_DOUBLE_QUOTED_SCALAR_STYLE : YAML_PLAIN_SCALAR_STYLE);
	ref_emit(r, &ev);
}

static void ref_open(struct ref *r, bool map)
{
	yaml_event_t ev;

	ref_node(r);
	if (map)
		yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_MAPPING_STYLE);
	else
		yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_SEQUENCE_STYLE);
	ref_emit(r, &ev);
}

static void ref_close(struct ref *r, bool map)
{
	yaml_event_t ev;

	if (map)
		yaml_mapping_end_event_initialize(&ev);
	else
		yaml_sequence_end_event_initialize(&ev);
	ref_emit(r, &ev);
}

static bool ref_end(struct ref *r)
{
	yaml_event_t ev;

	if (r->doc) {
		yaml_document_end_event_initialize(&ev, 1);
		ref_emit(r, &ev);
	}
	yaml_stream_end_event_initialize(&ev);
	ref_emit(r, &ev);
	if (!r->failed && !yaml_emitter_flush(&r->em))
		r->failed = true;
	yaml_emitter_delete(&r->em);
	return !r->failed;
}

/* ---------------------------------------------------------------------- */
/* Random documents into both                                              */
/* ---------------------------------------------------------------------- */

struct both {
	struct ref r;
	struct yout *y;
	unsigned int seed;
};

static unsigned int rnd(struct both *b, unsigned int n)
{
	return (unsigned int)rand_r(&b->seed) % n;
}

/* A random scalar: a tricky word, or bytes of tricky pieces. */
static void random_text(struct both *b, char *out, size_t cap)
{
	static const char *const words[] = {
		"",
		"~",
		"yes",
		"123",
		"0x1f",
		"10.0.0.1@tcp",
		"a: b",
		"a #b",
		"...",
		"---",
		"...x",
		"--x",
		"-",
		"- a",
		"?",
		"? a",
		":",
		"a:",
		"#",
		"a#b",
		"[0,1]",
		"*@tcp",
		"'",
		"\"",
		"\\",
		"!x",
		"%",
		"@",
		"`",
		"a,b",
		"{x}",
		"a b",
		" a",
		"a ",
		"NA",
		"True",
		"é",
		"\xc2\x85",
		"\xe2\x80\xa8",
		"\xef\xbb\xbf",
		"\xf0\x9f\x98\x80",
		"\xc2\xa0",
		"\xef\xbf\xbe",
		"\xed\x9f\xbf",
		"\xee\x80\x80",
	};
	static const char *const pieces[] = {
		"a",
		"b",
		" ",
		":",
		"#",
		"-",
		"'",
		"\"",
		"\\",
		"\n",
		"\r",
		"\t",
		"\x01",
		"\x7f",
		"\x1b",
		"é",
		".",
		",",
		"[",
		"?",
		"\xc2\x85",
		"\xe2\x80\xa8",
		"\xe2\x80\xa9",
		"\xef\xbb\xbf",
		"\xf0\x9f\x98\x80",
		"\xc2\xa0",
		"\xe4\xb8\xad",
		"0",
		"x",
		"@",
	};
	size_t n, i, kinds, len = 0;

	if (rnd(b, 3) == 0) {
		snprintf(out, cap, "%s", words[rnd(b, sizeof(words) / sizeof(words[0]))]);
		return;
	}
	/* Now and then long: past 128 bytes, a key is no longer simple. */
	n = rnd(b, 8) == 0 ? 40 + rnd(b, 140) : 1 + rnd(b, 6);
	/* Long ones mostly on one line (the first pieces have no break), else rarely. */
	kinds = n > 40 && rnd(b, 2) ? 9 : sizeof(pieces) / sizeof(pieces[0]);
	out[0] = '\0';
	for (i = 0; i < n; i++) {
		const char *p = pieces[rnd(b, kinds)];

		if (len + strlen(p) + 1 >= cap)
			break;
		memcpy(out + len, p, strlen(p) + 1);
		len += strlen(p);
	}
}

static void gen_node(struct both *b, int depth);

static void gen_scalar(struct both *b)
{
	char s[512];

	random_text(b, s, sizeof(s));
	ref_scalar(&b->r, s);
	yout_str(b->y, s);
}

static void gen_collection(struct both *b, bool map, int depth)
{
	unsigned int n = rnd(b, 4) == 0 ? 0 : 1 + rnd(b, 4), i;

	ref_open(&b->r, map);
	if (map)
		yout_map_begin(b->y);
	else
		yout_seq_begin(b->y);
	for (i = 0; i < n; i++) {
		if (map)
			gen_scalar(b);
		gen_node(b, depth + 1);
	}
	ref_close(&b->r, map);
	if (map)
		yout_map_end(b->y);
	else
		yout_seq_end(b->y);
}

static void gen_node(struct both *b, int depth)
{
	unsigned int k = depth > 5 ? 0 : rnd(b, 3);

	if (k == 0)
		gen_scalar(b);
	else
		gen_collection(b, k == 1, depth);
}

START_TEST(yout_as_libyaml)
{
	int rounds = unit_rounds(3000), i;

	for (i = 0; i < rounds; i++) {
		struct both b = {.seed = (unsigned int)i};
		char *want = NULL, *got = NULL;
		size_t wlen = 0, glen = 0;
		FILE *fw = open_memstream(&want, &wlen), *fg = open_memstream(&got, &glen);
		int indent = rnd(&b, 4) == 0 ? (int)rnd(&b, 12) : 4;
		bool ok;
		int rc;

		ck_assert(fw && fg);
		ref_begin(&b.r, fw, indent);
		b.y = yout_begin(fg);
		ck_assert_ptr_nonnull(b.y);
		if (indent != 4)
			yout_indent(b.y, indent);
		gen_node(&b, rnd(&b, 5) == 0 ? 6 : 0);
		ok = ref_end(&b.r);
		rc = yout_end(b.y);
		fclose(fw);
		fclose(fg);
		ck_assert_msg(ok, "libyaml refused round %d", i);
		ck_assert_msg(rc == 0, "yout refused round %d: %d", i, rc);
		ck_assert_msg(wlen == glen && !memcmp(want, got, wlen),
			      "round %d (indent %d):\n--- libyaml\n%s--- yout\n%s", i, indent, want,
			      got);
		free(want);
		free(got);
	}
}
END_TEST

/* What libyaml refused, yout refuses: -EINVAL, and the first error sticks. */
START_TEST(yout_refuses_misorder)
{
	struct yout *y;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	ck_assert_ptr_nonnull(f);
	y = yout_begin(f); /* a key without a value */
	yout_map_begin(y);
	yout_key(y, "a");
	ck_assert_int_eq(yout_map_end(y), -EINVAL);
	ck_assert_int_eq(yout_str(y, "b"), -EINVAL);
	ck_assert_int_eq(yout_end(y), -EINVAL);
	y = yout_begin(f); /* the wrong end */
	yout_seq_begin(y);
	ck_assert_int_eq(yout_map_end(y), -EINVAL);
	ck_assert_int_eq(yout_end(y), -EINVAL);
	y = yout_begin(f); /* a second root */
	yout_str(y, "a");
	ck_assert_int_eq(yout_str(y, "b"), -EINVAL);
	ck_assert_int_eq(yout_end(y), -EINVAL);
	y = yout_begin(f); /* left open */
	yout_map_begin(y);
	ck_assert_int_eq(yout_end(y), -EINVAL);
	y = yout_begin(f); /* not UTF-8 */
	ck_assert_int_eq(yout_str(y, "\xff"), -EINVAL);
	ck_assert_int_eq(yout_end(y), -EINVAL);
	y = yout_begin(f); /* nothing at all writes nothing */
	ck_assert_int_eq(yout_end(y), 0);
	fclose(f);
	free(text);
}
END_TEST

void yout_tests(TCase *tc)
{
	tcase_add_test(tc, yout_as_libyaml);
	tcase_add_test(tc, yout_refuses_misorder);
}
