// SPDX-License-Identifier: GPL-2.0
/*
 * lnet.conf YAML <-> lnetd ops (lnetctl/conf.h) and the YAML writer
 * (lnetctl/yout.h), driven by the corpus in tests/data/lnetconf/ (the
 * cases written inline are in test-conf-cases.c):
 *
 *   NAME.yaml  a good file; NAME.ops is what it parses to (CF_ADD):
 *              "@LINE:COL <op as cf_op_text() prints it>" per op and
 *              "! <warning>" per warning, in order; or one line
 *              "error: <start of the message>".  '#' lines and blank
 *              lines are comments.
 *   NAME.del   the same for CF_DEL (import --del), when present.
 *   bad/NAME.yaml  starts with "# error: <start of the message>" (which
 *              names NAME.yaml:LINE:COL), optionally followed by
 *              "# mode: del".
 *
 * Every good file also round-trips: parse(emit(parse(f))) == parse(f),
 * field for field, and emitting is stable byte for byte.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/model.h"
#include "lnetctl/conf.h"
#include "lnetctl/yout.h"
#include "test-conf.h"
#include "unit.h"

#define CORPUS TEST_DATA_DIR "/lnetconf"

static char *slurp(const char *path, size_t *lenp)
{
	size_t cap = 4096, len = 0, n;
	char *text = malloc(cap);
	FILE *f = fopen(path, "r");

	ck_assert_msg(f, "cannot open %s", path);
	ck_assert(text);
	while ((n = fread(text + len, 1, cap - len - 1, f)) > 0) {
		len += n;
		if (cap - len < 2) {
			cap *= 2;
			text = realloc(text, cap);
			ck_assert(text);
		}
	}
	fclose(f);
	text[len] = '\0';
	if (lenp)
		*lenp = len;
	return text;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The NAME.yaml files in @dir, sorted, NULL-terminated. */
static char **list_yaml(const char *dir, size_t *count)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **v = NULL;
	size_t n = 0, len;

	ck_assert_msg(d, "cannot open %s", dir);
	while ((e = readdir(d))) {
		len = strlen(e->d_name);
		if (len < 6 || strcmp(e->d_name + len - 5, ".yaml"))
			continue;
		v = realloc(v, (n + 2) * sizeof(*v));
		ck_assert(v);
		v[n] = strdup(e->d_name);
		ck_assert(v[n]);
		n++;
	}
	closedir(d);
	ck_assert_msg(n > 0, "%s has no .yaml files", dir);
	qsort(v, n, sizeof(*v), name_cmp);
	v[n] = NULL;
	*count = n;
	return v;
}

static void free_list(char **v)
{
	size_t i;

	for (i = 0; v[i]; i++)
		free(v[i]);
	free(v);
}

static char *path_of(const char *dir, const char *name, const char *suffix)
{
	char *p;
	size_t base = strlen(name) - strlen(".yaml");

	ck_assert(asprintf(&p, "%s/%.*s%s", dir, (int)base, name, suffix) > 0);
	return p;
}

/* A document as the .ops files write it. */
static char *render(const struct cf_doc *d)
{
	char *buf = NULL, *t;
	size_t len = 0, i;
	FILE *f = open_memstream(&buf, &len);

	ck_assert(f);
	for (i = 0; i < d->nop; i++) {
		t = cf_op_text(&d->op[i]);
		ck_assert(t);
		fprintf(f, "@%d:%d %s\n", d->op[i].line, d->op[i].col, t);
		free(t);
	}
	for (i = 0; i < d->nwarning; i++)
		fprintf(f, "! %s\n", d->warning[i]);
	fclose(f);
	return buf;
}

/* An expectation file without its comments and blank lines. */
static char *expectation(const char *path)
{
	char *text = slurp(path, NULL), *out = malloc(strlen(text) + 1), *line, *save;
	size_t len = 0;

	ck_assert(out);
	out[0] = '\0';
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == '#' || !line[0])
			continue;
		len += (size_t)sprintf(out + len, "%s\n", line);
	}
	free(text);
	return out;
}

static int parse_file(const char *dir, const char *name, enum cf_mode mode, struct cf_doc *d,
		      char *err, size_t errlen)
{
	char *path = path_of(dir, name, ".yaml");
	size_t len;
	char *text = slurp(path, &len);
	int rc = cf_parse(text, len, name, mode, d, err, errlen);

	free(text);
	free(path);
	return rc;
}

bool doc_empty(const struct cf_doc *d)
{
	return !d->nop && !d->op && !d->nwarning && !d->warning;
}

/* Compare parsing @name in @mode with the expectation in @expect_path; 0 if equal. */
static int check_expectation(const char *name, enum cf_mode mode, const char *expect_path)
{
	char err[512], *want = expectation(expect_path), *got;
	struct cf_doc d;
	int rc = parse_file(CORPUS, name, mode, &d, err, sizeof(err)), bad = 0;

	if (!strncmp(want, "error: ", 7)) {
		want[strlen(want) - 1] = '\0';
		if (rc != -EINVAL || strncmp(err, want + 7, strlen(want + 7)) || !doc_empty(&d)) {
			fprintf(stderr, "%s: expected error '%s', got rc %d '%s'\n", expect_path,
				want + 7, rc, rc ? err : "");
			bad = 1;
		}
	} else if (rc) {
		fprintf(stderr, "%s: %s\n", expect_path, err);
		bad = 1;
	} else {
		got = render(&d);
		if (strcmp(got, want)) {
			fprintf(stderr, "%s: parse gave\n%s--- expected\n%s---\n", expect_path, got,
				want);
			bad = 1;
		}
		free(got);
	}
	cf_doc_free(&d);
	free(want);
	return bad;
}

START_TEST(corpus_add)
{
	size_t n, i;
	char **names = list_yaml(CORPUS, &n), *ops;
	int bad = 0;

	for (i = 0; i < n; i++) {
		ops = path_of(CORPUS, names[i], ".ops");
		bad += check_expectation(names[i], CF_ADD, ops);
		free(ops);
	}
	free_list(names);
	ck_assert_msg(!bad, "%d corpus files parse differently than their .ops say", bad);
}
END_TEST

START_TEST(corpus_del)
{
	size_t n, i, seen = 0;
	char **names = list_yaml(CORPUS, &n), *del;
	int bad = 0;
	FILE *f;

	for (i = 0; i < n; i++) {
		del = path_of(CORPUS, names[i], ".del");
		f = fopen(del, "r");
		if (f) {
			fclose(f);
			seen++;
			bad += check_expectation(names[i], CF_DEL, del);
		}
		free(del);
	}
	free_list(names);
	ck_assert_msg(seen >= 3, "only %zu .del files", seen);
	ck_assert_msg(!bad, "%d corpus files parse differently in del mode", bad);
}
END_TEST

START_TEST(corpus_bad)
{
	size_t n, i, len;
	char **names = list_yaml(CORPUS "/bad", &n), *path, *text, *want, *eol, err[512];
	struct cf_doc d;
	enum cf_mode mode;
	int bad = 0, rc;

	for (i = 0; i < n; i++) {
		path = path_of(CORPUS "/bad", names[i], ".yaml");
		text = slurp(path, &len);
		ck_assert_msg(!strncmp(text, "# error: ", 9), "%s lacks '# error: '", path);
		eol = strchr(text, '\n');
		ck_assert(eol);
		want = strndup(text + 9, (size_t)(eol - text - 9));
		ck_assert(want);
		/* The expectation names the file and a position in it. */
		ck_assert_msg(!strncmp(want, names[i], strlen(names[i])) &&
				      want[strlen(names[i])] == ':',
			      "%s: the expected error must start with '%s:'", path, names[i]);
		mode = strncmp(eol + 1, "# mode: del\n", 12) ? CF_ADD : CF_DEL;
		memset(err, 'x', sizeof(err));
		rc = cf_parse(text, len, names[i], mode, &d, err, sizeof(err));
		if (rc != -EINVAL || strncmp(err, want, strlen(want))) {
			fprintf(stderr, "%s: expected error '%s', got rc %d '%s'\n", path, want, rc,
				rc ? err : "(none)");
			bad++;
		}
		if (!doc_empty(&d)) {
			fprintf(stderr, "%s: the document is not empty after an error\n", path);
			bad++;
		}
		cf_doc_free(&d);
		free(want);
		free(text);
		free(path);
	}
	free_list(names);
	ck_assert_msg(n >= 30, "only %zu bad files", n);
	ck_assert_msg(!bad, "%d bad files did not fail as expected", bad);
}
END_TEST

/* Emit @d into a string; the rc in *@rc. */
char *emit_str(const struct cf_doc *d, int *rc)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert(f);
	*rc = cf_emit(f, d, 0);
	fclose(f);
	return buf;
}

/* Same ops, field for field and in the same order; positions aside. */
bool docs_equal(const struct cf_doc *a, const struct cf_doc *b, const char *what)
{
	size_t i;

	if (a->nop != b->nop) {
		fprintf(stderr, "%s: %zu ops, then %zu\n", what, a->nop, b->nop);
		return false;
	}
	for (i = 0; i < a->nop; i++) {
		char *ta = cf_op_text(&a->op[i]), *tb = cf_op_text(&b->op[i]);
		bool same = cf_op_equal(&a->op[i], &b->op[i]) && !strcmp(ta, tb);

		if (!same)
			fprintf(stderr, "%s: op %zu: %s\n  then: %s\n", what, i, ta, tb);
		free(ta);
		free(tb);
		if (!same)
			return false;
	}
	return true;
}

START_TEST(corpus_round_trip)
{
	size_t n, i, checked = 0;
	char **names = list_yaml(CORPUS, &n), err[512], *y1, *y2, *y3;
	struct cf_doc d1, d2;
	int bad = 0, rc;

	for (i = 0; i < n; i++) {
		if (parse_file(CORPUS, names[i], CF_ADD, &d1, err, sizeof(err)))
			continue; /* an add-mode error file: nothing to emit */
		checked++;
		y1 = emit_str(&d1, &rc);
		ck_assert_msg(!rc, "%s: emit: %d", names[i], rc);
		rc = cf_parse(y1, strlen(y1), "emitted", CF_ADD, &d2, err, sizeof(err));
		if (rc) {
			fprintf(stderr, "%s: the emitted YAML does not parse: %s\n%s", names[i],
				err, y1);
			bad++;
		} else if (!docs_equal(&d1, &d2, names[i]) || d2.nwarning) {
			fprintf(stderr, "%s: round trip differs; emitted:\n%s", names[i], y1);
			bad++;
		}
		/* Stable: the same ops give the same bytes, whichever parse made them. */
		y2 = emit_str(&d1, &rc);
		y3 = emit_str(&d2, &rc);
		if (strcmp(y1, y2) || strcmp(y1, y3)) {
			fprintf(stderr, "%s: emitting is not stable\n%s---\n%s", names[i], y1, y3);
			bad++;
		}
		free(y1);
		free(y2);
		free(y3);
		cf_doc_free(&d1);
		cf_doc_free(&d2);
	}
	free_list(names);
	ck_assert_msg(checked >= 10, "only %zu files round-tripped", checked);
	ck_assert_msg(!bad, "%d files do not round-trip", bad);
}
END_TEST

Suite *make_conf_suite(void)
{
	Suite *s = suite_create("conf");
	TCase *tc = tcase_create("conf");

	tcase_add_test(tc, corpus_add);
	tcase_add_test(tc, corpus_del);
	tcase_add_test(tc, corpus_bad);
	tcase_add_test(tc, corpus_round_trip);
	conf_cases_tests(tc);
	yout_tests(tc);
	suite_add_tcase(s, tc);
	return s;
}
