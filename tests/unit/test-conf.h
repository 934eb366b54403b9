/* SPDX-License-Identifier: GPL-2.0 */
/* The conf suite's shared helpers (test-conf.c) and its second file's tests. */
#ifndef LNETD_TEST_CONF_H
#define LNETD_TEST_CONF_H

#include <check.h>
#include <stdbool.h>

#include "lnetctl/conf.h"

/* Whether @d holds neither ops nor warnings (as a refused parse leaves it). */
bool doc_empty(const struct cf_doc *d);

/* Emit @d into a string; the rc in *@rc. */
char *emit_str(const struct cf_doc *d, int *rc);

/* Same ops, field for field and in the same order; positions aside. */
bool docs_equal(const struct cf_doc *a, const struct cf_doc *b, const char *what);

/* test-conf-cases.c's tests, added after the corpus's. */
void conf_cases_tests(TCase *tc);
/* test-yout.c's: lnetctl's YAML writer against libyaml's emitter. */
void yout_tests(TCase *tc);

#endif
