/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lustre-test.h - the guest program of the VM tier's "lustre" group: the
 * lnet.ko library (lnetd/backend/lustre/) against upstream Lustre's real
 * lnet.ko, one guest per version, read back by the library and by
 * upstream's own lnetctl.  lustre-test.c holds the helpers and the cases
 * of lifecycle, NIs and peers; lustre-cases.c routes, UDSP, globals,
 * counters, ping, the engine's view and the writer.
 */
#ifndef LUSTRE_TEST_H
#define LUSTRE_TEST_H

#include "lnetd/backend/lustre/lu.h"

struct lt {
	struct lu *lu;
	const char *version; /* what this guest's lnet.ko must say */
	const char *mode;    /* "auto" or "ioctl" (lu_set_ioctl_only) */
	int failed;
	unsigned int peers; /* the scale case's peer count */
};

/* One TAP line ("ok - VERSION/MODE: ..."), unnumbered: the host numbers them. */
void tap(struct lt *t, bool ok, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The kernel log has no WARNING/BUG/Oops since the last call: a TAP line. */
void kcheck(struct lt *t, const char *after);
/* A shell command's status; its output in *out (malloc()ed) when @out is not NULL. */
int sh(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Upstream's lnetctl; its YAML in *out. */
int ulnetctl(char **out, const char *args);
/* Whether the YAML has the line "key: value" (indentation and "- " ignored). */
bool yaml_has(const char *yaml, const char *line);
/* How many lines have the key "key" (any value). */
int yaml_count(const char *yaml, const char *key);
struct lne_nid nid(const char *s);
bool ver_ge(const struct lt *t, int a, int b);
/* An error's sentence contains @want. */
bool said(const struct lne_err *e, const char *want);

void case_lifecycle(struct lt *t);
void case_nis(struct lt *t);
void case_peers(struct lt *t);
void case_scale(struct lt *t);
void case_routes(struct lt *t);
void case_udsp(struct lt *t);
void case_globals(struct lt *t);
void case_misc(struct lt *t);
void case_read(struct lt *t);
void case_ipv6(struct lt *t);
void case_writer(struct lt *t);
void case_busy(struct lt *t);

#endif
