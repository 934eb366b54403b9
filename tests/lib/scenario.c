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
