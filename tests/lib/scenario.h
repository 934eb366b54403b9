/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scenario.h - the conformance scenarios (tests/data/NAME.scn): a tiny
 * command language that builds LNet state and states the selections it
 * must give.  One parser, several backends: the engine in-process (unit
 * tier) and the kernel module over netlink (VM tier) replay the same files
 * and must agree.  The language is described at the top of
 * tests/data/select-conformance.scn.
 */
#ifndef LNETD_SCENARIO_H
#define LNETD_SCENARIO_H

#include <stddef.h>

#define SCN_MAX_ARGS 16

enum scn_op {
	SCN_SCENARIO, /* start afresh: args[0] is the name */
	SCN_NI,
	SCN_NI_DEL,
	SCN_NI_HEALTH,
	SCN_NI_DOWN,
	SCN_NI_UP,
	SCN_NI_CREDITS,
	SCN_PEER,
	SCN_PEER_DEL,
	SCN_PNI_HEALTH,
	SCN_PNI_CREDITS,
	SCN_ROUTE,
	SCN_ROUTE_DEL,
	SCN_RULE,
	SCN_RULE_DEL,
	SCN_GLOBAL,
	SCN_NUMA,
	SCN_SELECT,
	SCN_SPREAD,
	SCN__COUNT
};

/* One line: an op, positional args, key=value options, and an expectation. */
struct scn_cmd {
	enum scn_op op;
	int line;
	int nargs;
	const char *args[SCN_MAX_ARGS];
	int nopts;
	const char *key[SCN_MAX_ARGS], *val[SCN_MAX_ARGS];
	const char *expect; /* text after "=>", NULL if none */
	int fail;	    /* the line began with "fail": it must be refused */
};

/* The option @key's value, or @def. */
const char *scn_opt(const struct scn_cmd *c, const char *key, const char *def);

/*
 * A backend runs one command.  It returns 0 and, for select/spread, writes
 * the outcome to @out (the form the expectations use); or returns a
 * negative errno and writes a reason to @out.
 */
struct scn_backend {
	void *ctx;
	int (*exec)(void *ctx, const struct scn_cmd *cmd, char *out, size_t len);
};

/*
 * Run a scenario file; every mismatch is printed to stderr with its line.
 * Returns the number of failed checks (0: all passed), or -1 if the file
 * cannot be read or parsed.  *@checks counts the checks made.
 */
int scn_run_file(const char *path, const struct scn_backend *be, int *checks);

const char *scn_errno_name(int err);

/* Helpers every backend needs, so they parse and report alike. */

/* A whole number (0x for hex): 0, or -EINVAL. */
int scn_num(const char *s, long *v);
/* numa NCPT D,D,...: the distances into @dist (at most @max); 0 or -EINVAL. */
int scn_numa(const struct scn_cmd *c, unsigned int *dist, size_t max, long *ncpt);

/*
 * One selection for spread: run it as @c says and write the NID that
 * "what" (ni, pni, gw) names, or "direct" for gw when not routed, into
 * @nid.  Errors as for exec.
 */
typedef int (*scn_pick_fn)(void *ctx, const struct scn_cmd *c, const char *what, char *nid,
			   size_t size, char *out, size_t len);
/* spread COUNT what=...: COUNT picks, tallied as "NID:COUNT ..." sorted by NID. */
int scn_spread(const struct scn_cmd *c, scn_pick_fn pick, void *ctx, char *out, size_t len);

#endif
