/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vm.h - what the VM tier's guest program (genl-test) shares between its
 * case files: TAP output, children with another identity or namespace,
 * raw requests for malformed input, and the instance's state as text.
 */
#ifndef LNETD_VM_H
#define LNETD_VM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lnetk-client.h"

#define NOBODY 65534

extern int vm_failures;

void tap(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
double now(void);

/* Run @fn(@arg) in a forked child; returns its exit status (or 128 + signal). */
int in_child(int (*fn)(void *arg), void *arg);
int drop_to_nobody(void);
/* Move this process into a new network namespace, with a fresh lnetk instance. */
int new_netns(void);
/* Open a client or say why not as a failing case. */
struct lnetk *open_or_fail(const char *what);
const char *errname(int err);

/* A growing string. */
struct strbuf {
	char *s;
	size_t len, cap;
};

void sb_printf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_free(struct strbuf *sb);

/* Every object of the instance, as text, and its generation: before/after comparisons. */
int state_text(struct lnetk *lk, struct strbuf *sb);
struct snapshot {
	struct strbuf text;
	uint64_t generation;
	int rc;
};
void snapshot_take(struct lnetk *lk, struct snapshot *s);
bool snapshot_same(const struct snapshot *a, const struct snapshot *b);
void snapshot_free(struct snapshot *s);

/* --- raw requests, for what the client would never send ----------------------- */

struct raw;

struct raw *raw_new(uint8_t cmd);
void raw_u8(struct raw *r, int type, uint8_t v);
void raw_u16(struct raw *r, int type, uint16_t v);
void raw_u32(struct raw *r, int type, uint32_t v);
void raw_u64(struct raw *r, int type, uint64_t v);
void raw_str(struct raw *r, int type, const char *s);
void raw_bin(struct raw *r, int type, const void *data, size_t len);
void raw_nest(struct raw *r, int type);
void raw_end(struct raw *r);
/* Send, free, and return the kernel's errno (0 on success) and its extack message. */
int raw_send(struct raw *r, char *ext, size_t extlen);

/* --- the case groups ----------------------------------------------------------- */

void cases_basic(void);
void cases_api(void);
void cases_refuse(void);
void cases_perm(void);
void cases_netns(void);
void cases_scale(void);
void cases_conformance(const char *path);
void cases_explain(const char *path);
int populate(struct lnetk *lk);

#endif
