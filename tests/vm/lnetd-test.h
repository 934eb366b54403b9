/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lnetd-test.h - what the files of the VM tier's lnetd-test share: the
 * processes it runs (lnetd-test.c), the module and lnetd as the same text
 * (lnetd-text.c), and the case groups (lnetd-cases.c, lnetd-cases-scale.c).
 */
#ifndef LNETD_VM_LNETD_TEST_H
#define LNETD_VM_LNETD_TEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <systemd/sd-bus.h>

#include "vm.h"

#define SMALL_DIR "/tmp/lnetd-small"
#define BIG_DIR	  "/tmp/lnetd-big"
#define BIG_STORE "/data/lnetd-big" /* the big configuration's store, filled on the host */

#define MANAGER "org.lnetd1", "/org/lnetd1", "org.lnetd1.Manager"
#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

/* --- processes (lnetd-test.c) ------------------------------------------------------ */

/* Where things are: in the guest, or on the host for "fill". */
struct paths {
	const char *lnetd, *dbus, *conf, *sock, *log, *engine;
};
extern struct paths P;

extern const char *ko;
extern sd_bus *bus;
extern pid_t lnetd_pid;
extern bool have_lnetctl;
/* lnetd under valgrind (LNETD_VM_VALGRIND=1): time limits stretch by @slow. */
extern bool valgrind;
extern double slow;
/*
 * The bound of every wait for a condition, in seconds (times @slow): long,
 * since it only turns a hang into a failure.  No case asserts how long a
 * wait took: that is a figure of the guest's load (printed as a diagnostic).
 */
#define WAIT_S 120

int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* How many lines of lnetd's log contain @what. */
int log_count(const char *what);
/* The number after @key in the last line of lnetd's log holding it, or -1. */
double log_number(const char *key);
pid_t spawn(const char *out, char *const argv[]);
/* Start lnetd on @dir; the seconds until it owns its name, or < 0. */
double start_lnetd(const char *dir);
void stop_lnetd(int sig);

/* --- the same state as text, from both sides (lnetd-text.c) ------------------------ */

int call(const char *method, sd_bus_message **reply);
/* What lnetd says LNet is (NIs: those applied). */
int lnetd_text(struct strbuf *sb);
bool text_same(const struct strbuf *a, const struct strbuf *b);
/* Module and lnetd agree; @what names the moment.  Diagnostics when not. */
bool agree(const char *what, bool quiet);
/* Poll until they agree, up to @limit seconds; the time it took, or < 0. */
double converge(double limit);
/* Status: whether lnetd says the module is missing (@why its sentence). */
int module_pending(char *why, size_t len);
uint64_t module_generation(void);

/* --- the cases (lnetd-cases.c, lnetd-cases-scale.c), in the order main() runs them -- */

void case_configure(void);
void case_tbf(void);
void case_tbf_random(void);
void case_explain_module(void);
void case_change(void);
void case_drift(void);
void case_flood(void);
void case_refusal(void);
void case_restart(void);
void case_rmmod(void);
void case_set_health(void);
void case_ni_down_restart(void);
/* The big configuration in one Apply (also "fill", on the host). */
int apply_big(const struct restore *rs, double *secs);
void case_scale(void);

#endif
