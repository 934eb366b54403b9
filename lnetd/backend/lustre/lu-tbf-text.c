// SPDX-License-Identifier: GPL-2.0
/*
 * lu-tbf-text.c - what a Lustre service shows of its NRS policies and TBF
 * rules, read; compared with what lnetd wants; and the writes that make
 * the one into the other.
 *
 * The listings are the kernel's, but they are text from a file any root
 * process may have replaced (debugfs can be mounted over): every line is
 * checked, sizes are bounded (LUTBF_CPT_MAX, LUTBF_RULES_MAX), and an
 * unreadable line is refused with its number rather than skipped.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lu-tbf.h"

/* The next line of *@p without its end-of-line and trailing blanks. */
static bool next_line(const char **p, const char **line, size_t *n)
{
	const char *s = *p, *e;

	if (!*s)
		return false;
	e = strchr(s, '\n');
	*p = e ? e + 1 : s + strlen(s);
	if (!e)
		e = *p;
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		e--;
	*line = s;
	*n = (size_t)(e - s);
	return true;
}

static bool is_name(const char *p, size_t n)
{
	size_t i;

	if (!n || n > LUTBF_NAME_MAX)
		return false;
	for (i = 0; i < n; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_",
			    p[i]) ||
		    !p[i])
			return false;
	return true;
}

static bool printable(const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if ((unsigned char)p[i] < 0x20 || (unsigned char)p[i] == 0x7f)
			return false;
	return true;
}

/* A decimal in [0, @max], the whole span. */
static bool span_uint(const char *p, size_t n, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (!n || n > 20)
		return false;
	for (i = 0; i < n; i++) {
		if (p[i] < '0' || p[i] > '9')
			return false;
		v = v * 10 + (uint64_t)(p[i] - '0');
		if (v > max)
			return false;
	}
	*out = v;
	return true;
}

static int section(const char *line, size_t n)
{
	if (n == 17 && !memcmp(line, "regular_requests:", 17))
		return LUTBF_REG;
	if (n == 23 && !memcmp(line, "high_priority_requests:", 23))
		return LUTBF_HP;
	return -1;
}

/* --- nrs_policies -------------------------------------------------------------------- */

struct pol {
	char name[LUTBF_POLICY_MAX];
	bool started, fallback;
};

/* The running primary of one queue's entries: a started non-fallback, else the fallback. */
static void pick(const struct pol *p, size_t n, char *out, size_t size)
{
	size_t i;

	snprintf(out, size, "%s", "");
	for (i = 0; i < n; i++)
		if (p[i].started && p[i].fallback && !out[0])
			snprintf(out, size, "%s", p[i].name);
	for (i = 0; i < n; i++)
		if (p[i].started && !p[i].fallback)
			snprintf(out, size, "%s", p[i].name);
}

#define POLS_MAX 32

int lutbf_parse_policies(const char *text, struct lutbf_shown *s, char *msg, size_t len)
{
	char got[LUTBF_NQUEUES][LUTBF_POLICY_MAX] = {{0}};
	struct pol pols[POLS_MAX];
	bool seen[LUTBF_NQUEUES] = {false, false};
	const char *p = text, *line, *colon, *v;
	size_t n, npol = 0, vn, lno = 0;
	int q = -1, sec;

	while (next_line(&p, &line, &n)) {
		lno++;
		while (n && (*line == ' ' || *line == '\t')) {
			line++;
			n--;
		}
		if (!n)
			continue;
		if (!printable(line, n))
			return lutbf_say(msg, len, -EINVAL,
					 "nrs_policies line %zu: control characters", lno);
		sec = section(line, n);
		if (sec >= 0) {
			if (q >= 0)
				pick(pols, npol, got[q], sizeof(got[q]));
			if (seen[sec])
				return lutbf_say(msg, len, -EINVAL,
						 "nrs_policies line %zu: %.*s twice", lno, (int)n,
						 line);
			q = sec;
			seen[q] = true;
			npol = 0;
			continue;
		}
		if (q < 0)
			return lutbf_say(msg, len, -EINVAL,
					 "nrs_policies line %zu: '%.*s' before regular_requests:",
					 lno, (int)(n < 60 ? n : 60), line);
		if (n > 8 && !memcmp(line, "- name: ", 8)) {
			if (npol == POLS_MAX)
				return lutbf_say(msg, len, -EINVAL,
						 "nrs_policies line %zu: more than %d policies",
						 lno, POLS_MAX);
			if (n - 8 >= LUTBF_POLICY_MAX)
				return lutbf_say(
					msg, len, -EINVAL,
					"nrs_policies line %zu: a policy name of %zu characters",
					lno, n - 8);
			memset(&pols[npol], 0, sizeof(pols[npol]));
			memcpy(pols[npol].name, line + 8, n - 8);
			npol++;
			continue;
		}
		colon = memchr(line, ':', n);
		if (!colon || !npol || colon[1] != ' ')
			return lutbf_say(
				msg, len, -EINVAL,
				"nrs_policies line %zu: '%.*s' is neither '- name: <policy>' "
				"nor '<key>: <value>'",
				lno, (int)(n < 60 ? n : 60), line);
		v = colon + 2;
		vn = n - (size_t)(v - line);
		if ((size_t)(colon - line) == 5 && !memcmp(line, "state", 5))
			pols[npol - 1].started = vn == 7 && !memcmp(v, "started", 7);
		else if ((size_t)(colon - line) == 8 && !memcmp(line, "fallback", 8))
			pols[npol - 1].fallback = vn == 3 && !memcmp(v, "yes", 3);
	}
	if (q >= 0)
		pick(pols, npol, got[q], sizeof(got[q]));
	if (!seen[LUTBF_REG])
		return lutbf_say(msg, len, -EINVAL, "nrs_policies lists no regular_requests:");
	for (q = 0; q < LUTBF_NQUEUES; q++)
		memcpy(s->q[q].policy, got[q], sizeof(got[q]));
	s->has_hp = seen[LUTBF_HP];
	s->policies = true;
	return 0;
}

/* --- nrs_tbf_rule ---------------------------------------------------------------------- */

static void rules_free(struct lutbf_rules *r)
{
	size_t i;

	for (i = 0; i < r->n; i++) {
		free(r->r[i].conds);
		free(r->r[i].shown);
	}
	free(r->r);
	r->r = NULL;
	r->n = 0;
}

static void queue_free(struct lutbf_shown *s, int q)
{
	size_t k;

	for (k = 0; k < s->q[q].ncpt; k++)
		rules_free(&s->q[q].rules[k]);
	free(s->q[q].rules);
	free(s->q[q].cpt);
	s->q[q].rules = NULL;
	s->q[q].cpt = NULL;
	s->q[q].ncpt = 0;
}

void lutbf_shown_free(struct lutbf_shown *s)
{
	int q;

	for (q = 0; q < LUTBF_NQUEUES; q++)
		queue_free(s, q);
	memset(s, 0, sizeof(*s));
}

/* "<name> <conditions> <rate>, ref <n>" */
static int rule_line(const char *line, size_t n, struct lutbf_rule *r)
{
	const char *sp = memchr(line, ' ', n), *ref, *rate;
	uint64_t v;
	size_t i;

	if (!sp || !is_name(line, (size_t)(sp - line)))
		return -EINVAL;
	for (ref = NULL, i = n; i-- > 0;)
		if (line[i] == ',') {
			ref = line + i;
			break;
		}
	if (!ref || ref <= sp || (size_t)(line + n - ref) < 7 || memcmp(ref, ", ref ", 6) ||
	    !span_uint(ref + 6, (size_t)(line + n - ref - 6), UINT32_MAX, &v))
		return -EINVAL;
	for (rate = ref; rate > sp && rate[-1] != ' ';)
		rate--;
	if (rate <= sp + 2 || !span_uint(rate, (size_t)(ref - rate), UINT32_MAX, &v))
		return -EINVAL;
	memset(r, 0, sizeof(*r));
	memcpy(r->name, line, (size_t)(sp - line));
	r->rate = (uint32_t)v;
	r->conds = strndup(sp + 1, (size_t)(rate - 1 - (sp + 1)));
	return r->conds ? 0 : -ENOMEM;
}

static int add_rule(struct lutbf_rules *rs, const struct lutbf_rule *r)
{
	struct lutbf_rule *grown;
	size_t i;

	for (i = 0; i < rs->n; i++)
		if (!strcmp(rs->r[i].name, r->name))
			return -EEXIST;
	if (rs->n == LUTBF_RULES_MAX)
		return -E2BIG;
	grown = realloc(rs->r, (rs->n + 1) * sizeof(*rs->r));
	if (!grown)
		return -ENOMEM;
	rs->r = grown;
	rs->r[rs->n++] = *r;
	return 0;
}

static int add_cpt(struct lutbf_shown *s, int q, int cpt)
{
	struct lutbf_rules *rules;
	int *cpts;
	size_t k;

	for (k = 0; k < s->q[q].ncpt; k++)
		if (s->q[q].cpt[k] == cpt)
			return -EEXIST;
	if (s->q[q].ncpt == LUTBF_CPT_MAX)
		return -E2BIG;
	cpts = realloc(s->q[q].cpt, (s->q[q].ncpt + 1) * sizeof(*cpts));
	if (!cpts)
		return -ENOMEM;
	s->q[q].cpt = cpts;
	rules = realloc(s->q[q].rules, (s->q[q].ncpt + 1) * sizeof(*rules));
	if (!rules)
		return -ENOMEM;
	s->q[q].rules = rules;
	memset(&rules[s->q[q].ncpt], 0, sizeof(*rules));
	cpts[s->q[q].ncpt++] = cpt;
	return 0;
}

int lutbf_parse_rules(const char *text, struct lutbf_shown *s, char *msg, size_t len)
{
	struct lutbf_shown t = {0};
	struct lutbf_rule r;
	const char *p = text, *line;
	size_t n, lno = 0;
	uint64_t v;
	int q = -1, sec, cpt, rc = 0;

	while (!rc && next_line(&p, &line, &n)) {
		lno++;
		if (!n)
			continue;
		if (!printable(line, n)) {
			rc = lutbf_say(msg, len, -EINVAL,
				       "nrs_tbf_rule line %zu: control characters", lno);
			break;
		}
		sec = section(line, n);
		if (sec >= 0) {
			if (sec <= q || t.q[sec].ncpt)
				rc = lutbf_say(msg, len, -EINVAL,
					       "nrs_tbf_rule line %zu: %.*s out of place", lno,
					       (int)n, line);
			q = sec;
			continue;
		}
		if (q < 0) {
			rc = lutbf_say(msg, len, -EINVAL,
				       "nrs_tbf_rule line %zu: '%.*s' before regular_requests:",
				       lno, (int)(n < 60 ? n : 60), line);
			break;
		}
		if (n > 5 && !memcmp(line, "CPT ", 4) && line[n - 1] == ':') {
			/* -1 (CFS_CPT_ANY): a service without CPT affinity, one section */
			if (n == 7 && !memcmp(line + 4, "-1", 2)) {
				cpt = -1;
			} else if (span_uint(line + 4, n - 5, 1u << 20, &v)) {
				cpt = (int)v;
			} else {
				rc = lutbf_say(msg, len, -EINVAL,
					       "nrs_tbf_rule line %zu: '%.*s' is not 'CPT <n>:'",
					       lno, (int)(n < 60 ? n : 60), line);
				break;
			}
			rc = add_cpt(&t, q, cpt);
			if (rc)
				rc = lutbf_say(msg, len, rc == -ENOMEM ? rc : -EINVAL,
					       "nrs_tbf_rule line %zu: %s", lno,
					       rc == -EEXIST ? "a CPT listed twice"
							     : "too many CPTs, or no memory");
			continue;
		}
		if (!t.q[q].ncpt) {
			rc = lutbf_say(msg, len, -EINVAL,
				       "nrs_tbf_rule line %zu: a rule before any 'CPT <n>:'", lno);
			break;
		}
		rc = rule_line(line, n, &r);
		if (rc == -ENOMEM)
			break;
		if (rc) {
			rc = lutbf_say(msg, len, -EINVAL,
				       "nrs_tbf_rule line %zu: '%.*s' is not '<name> <conditions> "
				       "<rate>, ref <n>'",
				       lno, (int)(n < 60 ? n : 60), line);
			break;
		}
		rc = add_rule(&t.q[q].rules[t.q[q].ncpt - 1], &r);
		if (rc) {
			free(r.conds);
			rc = lutbf_say(msg, len, rc == -ENOMEM ? rc : -EINVAL,
				       "nrs_tbf_rule line %zu: %s", lno,
				       rc == -EEXIST ? "a rule listed twice in one CPT"
						     : "too many rules in one CPT");
		}
	}
	if (!rc && q < 0)
		rc = lutbf_say(msg, len, -EINVAL, "nrs_tbf_rule lists no regular_requests:");
	if (rc) {
		lutbf_shown_free(&t);
		return rc;
	}
	for (q = 0; q < LUTBF_NQUEUES; q++) {
		queue_free(s, q);
		s->q[q].ncpt = t.q[q].ncpt;
		s->q[q].cpt = t.q[q].cpt;
		s->q[q].rules = t.q[q].rules;
	}
	return 0;
}
