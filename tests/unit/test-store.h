/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The store suite's fixture and helpers (test-store.c), shared by its
 * other files: test-store-objects.c and test-store-history.c add their
 * tests to the suite's one test case, with its fixture.
 */
#ifndef LNETD_TEST_STORE_H
#define LNETD_TEST_STORE_H

#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lnetd/store/store.h"

/* The store under test (closed by the fixture) and its file in a fresh folder. */
extern struct store *st;
extern char path[];

#define OK(call)                                                                 \
	do {                                                                     \
		struct store_err err_ = {""};                                    \
		struct store_err *err = &err_;                                   \
		int rc_ = (call);                                                \
		(void)err;                                                       \
		ck_assert_msg(rc_ == 0, "%s: rc %d (%s)", #call, rc_, err_.msg); \
	} while (0)

/* @call must fail with @want and a message containing @text. */
#define FAILS(want, text, call)                                                                 \
	do {                                                                                    \
		struct store_err err_ = {""};                                                   \
		struct store_err *err = &err_;                                                  \
		int rc_ = (call);                                                               \
		(void)err;                                                                      \
		ck_assert_msg(rc_ == (want), "%s: rc %d, wanted %d (%s)", #call, rc_, want,     \
			      err_.msg);                                                        \
		ck_assert_msg(strstr(err_.msg, text), "%s: message \"%s\" lacks \"%s\"", #call, \
			      err_.msg, text);                                                  \
	} while (0)

struct store *open_ok(void);
uint64_t commit(const char *command);
uint64_t generation(void);

/* The whole desired state as text, through the list functions. */
char *dump(void);

#define DUMP_EQ(want)                         \
	do {                                  \
		char *got_ = dump();          \
		ck_assert_str_eq(got_, want); \
		free(got_);                   \
	} while (0)

/* The first column of the first row of @q, as text (the caller frees). */
char *raw_text(const char *q);

#define RAW_EQ(q, want)                     \
	do {                                \
		char *v_ = raw_text(q);     \
		ck_assert_str_eq(v_, want); \
		free(v_);                   \
	} while (0)

/*
 * Objects with every optional field unset, and a rule added at @at (-1: at
 * the end).  clang-format 14 takes the capitalised names for macros.
 */
/* clang-format off */
static inline struct st_ni NI(const char *net, const char *ifname, const char *pattern)
{
	struct st_ni ni = {.net = net, .ifname = ifname, .pattern = pattern};

	st_ni_unset(&ni);
	return ni;
}

static inline struct st_route ROUTE(const char *net, const char *gw, int64_t hops)
{
	struct st_route r = {.net = net, .gateway = gw};

	st_route_unset(&r);
	r.hops = hops;
	return r;
}

static inline int64_t rule_add(const char *src, int64_t at)
{
	struct st_rule r = {.pos = at, .src = src, .priority = ST_UNSET};
	int64_t pos = -9;

	OK(store_rule_add(st, &r, &pos, err));
	return pos;
}
/* clang-format on */

/* The rules' sources in order, checking that positions are 0..n-1. */
int rule_src(const struct st_rule *r, void *data);

#define RULES_EQ(want)                                                    \
	do {                                                              \
		char buf_[256] = "";                                      \
		ck_assert_int_eq(store_rule_list(st, rule_src, buf_), 0); \
		ck_assert_str_eq(buf_, want);                             \
	} while (0)

/* The tests of the other files, added to the suite's test case in order. */
void store_objects_tests(TCase *tc);
void store_history_tests(TCase *tc);

#endif
