/* SPDX-License-Identifier: GPL-2.0 */
/* The tbf suite's shared helpers (test-tbf.c) and its second file's tests. */
#ifndef LNETD_TEST_TBF_H
#define LNETD_TEST_TBF_H

#include <check.h>

#include "engine/tbf.h"

/* A policy for ost_io, with every queue of @type (NULL: the default). */
struct lne_tbf *policy(const char *type);

/* Run the command @cmd at @now, which must succeed. */
void cmd_ok(struct lne_tbf *tbf, const char *cmd, u64 now);

/* The rule names of @q in match order, space separated (a static buffer). */
const char *order(struct lne_tbf *tbf, enum lne_tbf_queue q);

/* test-tbf-sched.c's tests, added after the grammar's. */
void tbf_sched_tests(TCase *tc);

#endif
