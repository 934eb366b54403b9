/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lutbf-sim.h - a model of Lustre's NRS TBF rule lists for the unit suite
 * (nrs_tbf.c's semantics: a start goes first or just before rank=, change
 * moves a rule just before rank=, stop of an unknown name succeeds, a
 * policy start frees the rules and makes a default rule at tbf_rate),
 * listed as Lustre lists them.  Used by test-lutbf-plan.c and
 * test-lustre-tbf.c.
 */
#ifndef LNETD_TEST_LUTBF_SIM_H
#define LNETD_TEST_LUTBF_SIM_H

#include <stdbool.h>

#include "lnetd/backend/lustre/lu-tbf.h"

#define SIM_RULES 64
#define SIM_CPTS  4

struct srule {
	char name[16];
	char conds[256];
	unsigned rate;
};

struct sim {
	char policy[2][64]; /* "fifo", "tbf nid" */
	unsigned ncpt;
	bool has_hp;
	unsigned n[2][SIM_CPTS];
	struct srule r[2][SIM_CPTS][SIM_RULES];
};

int sim_find(struct sim *s, int q, unsigned k, const char *name);
void sim_insert(struct sim *s, int q, unsigned k, unsigned at, const struct srule *r);
void sim_remove(struct sim *s, int q, unsigned k, unsigned at);
void sim_fresh(struct sim *s, int q, const char *policy);
/* One write, as Lustre takes it (the unit's assertions fail on what Lustre refuses). */
int sim_write(struct sim *s, const struct lutbf_write *w);
/* The two files' texts as Lustre lists them (static buffers, valid until the next call). */
void sim_text(const struct sim *s, const char **policies, const char **rules);
/* The sim's two listings, parsed as lutbf_read() would. */
void sim_shown(const struct sim *s, struct lutbf_shown *out);

#endif
