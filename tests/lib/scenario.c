// SPDX-License-Identifier: GPL-2.0
/* The scenario parser and runner: see scenario.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario.h"

static const char *const op_names[SCN__COUNT] = {
	[SCN_SCENARIO] = "scenario",
	[SCN_NI] = "ni",
	[SCN_NI_DEL] = "ni-del",
	[SCN_NI_HEALTH] = "ni-health",
	[SCN_NI_DOWN] = "ni-down",
	[SCN_NI_UP] = "ni-up",
	[SCN_NI_CREDITS] = "ni-credits",
	[SCN_PEER] = "peer",
	[SCN_PEER_DEL] = "peer-del",
	[SCN_PNI_HEALTH] = "pni-health",
	[SCN_PNI_CREDITS] = "pni-credits",
	[SCN_ROUTE] = "route",
	[SCN_ROUTE_DEL] = "route-del",
	[SCN_RULE] = "rule",
	[SCN_RULE_DEL] = "rule-del",
	[SCN_GLOBAL] = "global",
	[SCN_NUMA] = "numa",
	[SCN_SELECT] = "select",
	[SCN_SPREAD] = "spread",
};

static const struct {
	int err;
	const char *name;
} errnames[] = {
	{EINVAL, "EINVAL"},
	{ENOENT, "ENOENT"},
	{EEXIST, "EEXIST"},
	{ERANGE, "ERANGE"},
	{EBUSY, "EBUSY"},
	{E2BIG, "E2BIG"},
	{EHOSTUNREACH, "EHOSTUNREACH"},
	{EADDRNOTAVAIL, "EADDRNOTAVAIL"},
	{ENETDOWN, "ENETDOWN"},
	{ENOMEM, "ENOMEM"},
	{EPERM, "EPERM"},
	{EOPNOTSUPP, "EOPNOTSUPP"},
};

const char *scn_errno_name(int err)
{
	size_t i;

	if (err < 0)
		err = -err;
	for (i = 0; i < sizeof(errnames) / sizeof(errnames[0]); i++)
		if (errnames[i].err == err)
			return errnames[i].name;
	return "E?";
}

const char *scn_opt(const struct scn_cmd *c, const char *key, const char *def)
{
	int i;

	for (i = 0; i < c->nopts; i++)
		if (!strcmp(c->key[i], key))
			return c->val[i];
	return def;
}

/* Split @line in place into words; "double quotes" keep spaces in a word. */
static int split(char *line, char **words, int max)
{
	int n = 0;
	char *p = line;

	for (;;) {
		char *w;

		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			return n;
		if (n == max)
			return -1;
		w = p;
		words[n++] = w;
		while (*p && *p != ' ' && *p != '\t') {
			if (*p == '"') {
				char *q = strchr(p + 1, '"');

				if (!q)
					return -1;
				memmove(p, p + 1, (size_t)(q - p - 1));
				memmove(q - 1, q + 1, strlen(q + 1) + 1);
				p = q - 1;
				continue;
			}
			p++;
		}
		if (*p)
			*p++ = '\0';
	}
}

static int parse_line(char *line, int lineno, struct scn_cmd *c)
{
	char *words[2 * SCN_MAX_ARGS + 4], *arrow = strstr(line, "=>");
	int n, i, first = 0;

	memset(c, 0, sizeof(*c));
	c->line = lineno;
	if (arrow) {
		*arrow = '\0';
		c->expect = arrow + 2;
		while (*c->expect == ' ')
			c->expect++;
	}
	n = split(line, words, (int)(sizeof(words) / sizeof(words[0])));
	if (n <= 0)
		return -1;
	if (!strcmp(words[0], "fail")) {
		c->fail = 1;
		first = 1;
		if (n < 2 || !c->expect)
			return -1;
	}
	for (c->op = 0; c->op < SCN__COUNT; c->op++)
		if (!strcmp(words[first], op_names[c->op]))
			break;
	if (c->op == SCN__COUNT)
		return -1;
	for (i = first + 1; i < n; i++) {
		char *eq = strchr(words[i], '=');

		if (eq && eq != words[i]) {
			if (c->nopts == SCN_MAX_ARGS)
				return -1;
			*eq = '\0';
			c->key[c->nopts] = words[i];
			c->val[c->nopts++] = eq + 1;
		} else {
			if (c->nargs == SCN_MAX_ARGS)
				return -1;
			c->args[c->nargs++] = words[i];
		}
	}
	return 0;
}

/* Compare ignoring runs of spaces. */
static int same_words(const char *a, const char *b)
{
	for (;;) {
		while (*a == ' ')
			a++;
		while (*b == ' ')
			b++;
		if (!*a || !*b)
			return !*a && !*b;
		while (*a && *a != ' ' && *a == *b) {
			a++;
			b++;
		}
		if ((*a && *a != ' ') || (*b && *b != ' '))
			return 0;
	}
}

int scn_run_file(const char *path, const struct scn_backend *be, int *checks)
{
	char line[1024], out[1024], scenario[128] = "(none)";
	int lineno = 0, failed = 0;
	FILE *f = fopen(path, "r");

	*checks = 0;
	if (!f) {
		fprintf(stderr, "%s: cannot open\n", path);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		struct scn_cmd c;
		char *nl = strchr(line, '\n');
		int rc;

		lineno++;
		if (nl)
			*nl = '\0';
		if (!line[strspn(line, " \t")] || line[strspn(line, " \t")] == '#')
			continue;
		if (parse_line(line, lineno, &c)) {
			fprintf(stderr, "%s:%d: cannot parse this line\n", path, lineno);
			fclose(f);
			return -1;
		}
		if (c.op == SCN_SCENARIO && c.nargs)
			snprintf(scenario, sizeof(scenario), "%s", c.args[0]);
		out[0] = '\0';
		rc = be->exec(be->ctx, &c, out, sizeof(out));
		if (c.fail) {
			(*checks)++;
			if (!rc || strcmp(scn_errno_name(rc), c.expect)) {
				fprintf(stderr, "%s:%d [%s]: expected %s, got %s (%s)\n", path,
					lineno, scenario, c.expect,
					rc ? scn_errno_name(rc) : "success", out);
				failed++;
			}
			continue;
		}
		if (rc) {
			(*checks)++;
			if (!c.expect || strcmp(c.expect, scn_errno_name(rc))) {
				fprintf(stderr, "%s:%d [%s]: %s: %s\n", path, lineno, scenario,
					scn_errno_name(rc), out);
				failed++;
			}
			continue;
		}
		if (c.expect) {
			(*checks)++;
			if (!same_words(out, c.expect)) {
				fprintf(stderr, "%s:%d [%s]: expected '%s', got '%s'\n", path,
					lineno, scenario, c.expect, out);
				failed++;
			}
		}
	}
	fclose(f);
	return failed;
}

int scn_num(const char *s, long *v)
{
	char *end;

	if (!s || !*s)
		return -EINVAL;
	*v = strtol(s, &end, 0);
	return *end ? -EINVAL : 0;
}

int scn_numa(const struct scn_cmd *c, unsigned int *dist, size_t max, long *ncpt)
{
	size_t n = 0;
	char *p, *copy;

	if (c->nargs != 2 || scn_num(c->args[0], ncpt) || *ncpt < 0)
		return -EINVAL;
	copy = strdup(c->args[1]);
	if (!copy)
		return -ENOMEM;
	for (p = strtok(copy, ","); p && n < max; p = strtok(NULL, ","))
		dist[n++] = (unsigned int)strtoul(p, NULL, 0);
	free(copy);
	return n == (size_t)(*ncpt * *ncpt) ? 0 : -EINVAL;
}

struct tally {
	char nid[64];
	long n;
};

static int cmp_tally(const void *a, const void *b)
{
	return strcmp(((const struct tally *)a)->nid, ((const struct tally *)b)->nid);
}

int scn_spread(const struct scn_cmd *c, scn_pick_fn pick, void *ctx, char *out, size_t len)
{
	const char *what = scn_opt(c, "what", "ni");
	struct tally t[64];
	size_t nt = 0, i, used = 0;
	long n, k;

	if (c->nargs != 1 || scn_num(c->args[0], &n))
		return -EINVAL;
	for (k = 0; k < n; k++) {
		char nid[64];
		int rc = pick(ctx, c, what, nid, sizeof(nid), out, len);

		if (rc)
			return rc;
		for (i = 0; i < nt && strcmp(t[i].nid, nid); i++)
			;
		if (i == nt) {
			if (nt == sizeof(t) / sizeof(t[0]))
				return -E2BIG;
			snprintf(t[nt].nid, sizeof(t[nt].nid), "%s", nid);
			t[nt++].n = 0;
		}
		t[i].n++;
	}
	qsort(t, nt, sizeof(t[0]), cmp_tally);
	out[0] = '\0';
	for (i = 0; i < nt && used < len; i++)
		used += (size_t)snprintf(out + used, len - used, "%s%s:%ld", i ? " " : "", t[i].nid,
					 t[i].n);
	return 0;
}
