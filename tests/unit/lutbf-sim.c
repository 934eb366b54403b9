// SPDX-License-Identifier: GPL-2.0
/* lutbf-sim.c - a model of Lustre's NRS TBF rule lists (lutbf-sim.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lutbf-sim.h"
#include "unit.h"

int sim_find(struct sim *s, int q, unsigned k, const char *name)
{
	unsigned i;

	for (i = 0; i < s->n[q][k]; i++)
		if (!strcmp(s->r[q][k][i].name, name))
			return (int)i;
	return -1;
}

void sim_insert(struct sim *s, int q, unsigned k, unsigned at, const struct srule *r)
{
	memmove(&s->r[q][k][at + 1], &s->r[q][k][at], (s->n[q][k] - at) * sizeof(*r));
	s->r[q][k][at] = *r;
	s->n[q][k]++;
}

void sim_remove(struct sim *s, int q, unsigned k, unsigned at)
{
	memmove(&s->r[q][k][at], &s->r[q][k][at + 1], (s->n[q][k] - at - 1) * sizeof(struct srule));
	s->n[q][k]--;
}

void sim_fresh(struct sim *s, int q, const char *policy)
{
	unsigned k;

	snprintf(s->policy[q], sizeof(s->policy[q]), "%s", policy);
	for (k = 0; k < s->ncpt; k++) {
		s->n[q][k] = 1;
		snprintf(s->r[q][k][0].name, 16, "default");
		snprintf(s->r[q][k][0].conds, 256, "*");
		s->r[q][k][0].rate = 10000;
	}
}

/* One write, as Lustre takes it; the errno it would give. */
int sim_write(struct sim *s, const struct lutbf_write *w)
{
	char text[4096], *p, *conds = NULL, *end;
	const char *words[8] = {NULL};
	unsigned k, rate = 0, nw = 0;
	const char *rank = NULL;
	int q, at, nx;

	snprintf(text, sizeof(text), "%s", w->text);
	if (w->file == LUTBF_POLICIES) {
		/* "tbf <q> <type>": the policy "tbf <type>" on queue q */
		char name[16], queue[8], type[32], policy[64];

		int got = sscanf(text, "%15s %7s %31s", name, queue, type);

		/* or "fifo <q>" */
		ck_assert_msg(got == 3 || (got == 2 && !strcmp(name, "fifo")), "%s", w->text);
		q = !strcmp(queue, "hp");
		ck_assert(q || !strcmp(queue, "reg"));
		ck_assert(!q || s->has_hp);
		if (got == 2)
			snprintf(policy, sizeof(policy), "fifo");
		else
			snprintf(policy, sizeof(policy), "%s %s", name, type);
		if (strcmp(s->policy[q], policy))
			sim_fresh(s, q, policy);
		return 0;
	}
	/* "<q> start <name> <conds> rate=<n> rank=<r>[ realtime=1]" and the others */
	q = !strncmp(text, "hp ", 3);
	ck_assert_msg(!strncmp(text, q ? "hp " : "reg ", q ? 3 : 4), "%s", w->text);
	ck_assert(!q || s->has_hp);
	p = text + (q ? 3 : 4);
	if (!strncmp(p, "start ", 6)) {
		conds = strchr(p + 6, ' ');
		ck_assert_ptr_nonnull(conds);
		*conds++ = '\0';
		end = strrchr(conds, '}'); /* as Lustre cuts them */
		ck_assert_ptr_nonnull(end);
		*++end = '\0';
		words[nw++] = "start";
		words[nw++] = p + 6;
		p = end + 1;
	}
	for (; (p = strtok(p, " ")); p = NULL) {
		ck_assert(nw < 8);
		words[nw++] = p;
	}
	for (k = 2; k < nw; k++) {
		if (!strncmp(words[k], "rate=", 5))
			rate = (unsigned)strtoul(words[k] + 5, NULL, 10);
		else if (!strncmp(words[k], "rank=", 5))
			rank = words[k] + 5;
		else
			ck_assert_msg(!strcmp(words[k], "realtime=1"), "%s", w->text);
	}
	ck_assert_msg(strncmp(s->policy[q], "tbf", 3) == 0, "%s on %s", w->text, s->policy[q]);
	ck_assert(!rate || rate <= LUTBF_RATE_MAX);
	for (k = 0; k < s->ncpt; k++) {
		at = sim_find(s, q, k, words[1]);
		nx = rank ? sim_find(s, q, k, rank) : 0;
		if (!strcmp(words[0], "stop")) {
			ck_assert(strcmp(words[1], "default"));
			if (at >= 0)
				sim_remove(s, q, k, (unsigned)at);
		} else if (!strcmp(words[0], "start")) {
			struct srule r = {.rate = rate ? rate : 10000};

			ck_assert_msg(at < 0, "start of %s: EEXIST", words[1]);
			ck_assert_msg(nx >= 0, "rank=%s: ENOENT", rank);
			snprintf(r.name, sizeof(r.name), "%s", words[1]);
			snprintf(r.conds, sizeof(r.conds), "%s", conds);
			sim_insert(s, q, k, (unsigned)nx, &r);
		} else {
			struct srule r;

			ck_assert_msg(!strcmp(words[0], "change") && at >= 0, "%s", w->text);
			ck_assert(rate || rank);
			if (rate)
				s->r[q][k][at].rate = rate;
			if (rank) {
				ck_assert(nx >= 0);
				r = s->r[q][k][at];
				sim_remove(s, q, k, (unsigned)at);
				nx = sim_find(s, q, k, rank);
				sim_insert(s, q, k, (unsigned)nx, &r);
			}
		}
	}
	return 0;
}

/* The sim's two listings, parsed as lutbf_read() would. */
void sim_text(const struct sim *s, const char **policies, const char **rules)
{
	static char ptext[1 << 14], rtext[1 << 16];
	size_t n = 0;
	unsigned k, i;
	int q;

	n += (size_t)snprintf(ptext + n, sizeof(ptext) - n, "\n");
	for (q = 0; q < (s->has_hp ? 2 : 1); q++) {
		n += (size_t)snprintf(ptext + n, sizeof(ptext) - n,
				      "%s:\n  - name: fifo\n    state: started\n    fallback: yes\n"
				      "    queued: 0\n    active: 0\n\n",
				      q ? "high_priority_requests" : "regular_requests");
		if (strcmp(s->policy[q], "fifo"))
			n += (size_t)snprintf(
				ptext + n, sizeof(ptext) - n,
				"  - name: %s\n    state: started\n    fallback: no\n\n",
				s->policy[q]);
	}
	n = 0;
	rtext[0] = '\0';
	for (q = 0; q < (s->has_hp ? 2 : 1); q++) {
		n += (size_t)snprintf(rtext + n, sizeof(rtext) - n, "%s:\n",
				      q ? "high_priority_requests" : "regular_requests");
		if (!strcmp(s->policy[q], "fifo"))
			continue;
		for (k = 0; k < s->ncpt; k++) {
			n += (size_t)snprintf(rtext + n, sizeof(rtext) - n, "CPT %u:\n", k);
			for (i = 0; i < s->n[q][k]; i++)
				n += (size_t)snprintf(rtext + n, sizeof(rtext) - n,
						      "%s %s %u, ref 0\n", s->r[q][k][i].name,
						      s->r[q][k][i].conds, s->r[q][k][i].rate);
		}
	}
	*policies = ptext;
	*rules = rtext;
}

void sim_shown(const struct sim *s, struct lutbf_shown *out)
{
	const char *p, *r;
	char msg[256];

	sim_text(s, &p, &r);
	ck_assert_int_eq(lutbf_parse_policies(p, out, msg, sizeof(msg)), 0);
	ck_assert_int_eq(lutbf_parse_rules(r, out, msg, sizeof(msg)), 0);
}
