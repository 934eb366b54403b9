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

#include "liblnetk/lnetk-client.h"

#define NOBODY 65534

extern int vm_failures;

void tap(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void tbf_guarantees(const char *what, const char *const *name, const unsigned int *rate, int n,
		    unsigned long long elapsed, unsigned int depth, const unsigned long long *disp,
		    const unsigned long long *disorder, bool ran);
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

/* --- the restore lnetd does at start: 64 NIs, 50,000 peers x 2 NIDs, 1,000 rules ------ */

#define SCALE_NNIS   64
#define SCALE_NPEERS 50000
#define SCALE_NRULES 1000
#define SCALE_NNIDS  (2 * SCALE_NPEERS)

/*
 * What a restore sends, made before any clock starts: lnetd has these
 * strings at hand (from its database), and making 100,000 of them with
 * snprintf under TCG would weigh on both sides of the comparison alike.
 * NI k is 192.168.k.1@o2ib(k % 4 + 1); peer i is 10.a.b.c and 11.a.b.c
 * on o2ib(i % 4 + 1); the rules are bench-engine.c's (cases-scale.c).
 */
struct restore {
	struct lnetk_ni ni[SCALE_NNIS];
	char (*nid)[2][LNETK_NID_MAX]; /* per peer: its primary NID and its second one */
	struct lnetk_rule rule[SCALE_NRULES];
	char (*expr)[2][64];
};

struct restore *restore_new(void);
void restore_free(struct restore *rs);
/* One message per object; @t gets the time the objects took and the time the rules took. */
int restore_one_by_one(struct lnetk *lk, const struct restore *rs, double t[2],
		       struct lnetk_err *err);

/* --- the api cases' bookkeeping (cases-api.c, cases-api-objs.c) ------------- */

#define API_MAX_EVENTS 256

struct api_event {
	uint8_t cmd;
	uint64_t gen;
};

/* A client, its events, and every mutation's outcome noted (mut()). */
struct api {
	struct lnetk *lk;
	struct lnetk_events *ev;
	struct lnetk_err err;
	struct api_event want[API_MAX_EVENTS], got[API_MAX_EVENTS];
	int nwant, ngot, reply_gen_bad, mutations;
};

/*
 * Note a mutation's outcome @rc, which is returned: what the events group
 * must announce, and its reply's generation (@raw: sent without the
 * client).  sel_() checks a SELECT, which must not move the generation.
 */
int mut_(struct api *a, uint8_t cmd, int rc, bool raw);
int mut(struct api *a, uint8_t cmd, int rc);
int sel_(struct api *a, int rc);
/* cases-api-objs.c: the cases on each kind of object, in order. */
void cases_api_objects(struct api *a);

/* --- the case groups ----------------------------------------------------------- */

void cases_basic(void);
void cases_api(void);
void cases_refuse(void);
void cases_perm(void);
void cases_netns(void);
void cases_scale(void);
void cases_tbf(void);
void cases_source(const char *ko);
void cases_lock(void);
void cases_conformance(const char *path);
void cases_explain(const char *path);
void cases_fuzz(void);
int populate(struct lnetk *lk);

#endif
