// SPDX-License-Identifier: GPL-2.0
/*
 * opts.c - one command's options, as Lustre's lnetctl takes them: anywhere
 * among its arguments ("ping NID --timeout 2"), long names with '_' or
 * '-' ("--prim_nid" is "--prim-nid"), a value as the next word or after
 * '=', and "--" ending them; and the command's --help.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lnetctl.h"

/* Most words one command line may have (an interactive line too). */
#define WORDS_MAX 4096
/* lnetd's longest string (lnetd(8), bounds: 4096 bytes in any string). */
#define STR_MAX	  4096u

static void help(const struct ctl_cmd *c)
{
	const struct ctl_opt *o;

	/*
	 * Each option as "--name: ...", the layout of Lustre's helps, which
	 * scripts read (sanity-lnet greps `net set -h` for "--lnd-timeout:").
	 */
	printf("Usage: lnetctl %s%s%s\n%s\n", c->name, *c->usage ? " " : "", c->usage, c->about);
	if (c->opt[0].name)
		printf("\nOptions:\n");
	for (o = c->opt; o->name; o++) {
		char left[64];

		snprintf(left, sizeof(left), "%s%c%s--%s:", o->shrt ? "-" : "",
			 o->shrt ? o->shrt : ' ', o->shrt ? ", " : "  ", o->name);
		printf("  %-26s %s%s%s\n", left, o->arg ?: "", o->arg ? ": " : "", o->help);
	}
	printf("  %-26s %s\n", "-h, --help:", "show this help and exit");
}

/* The option of @c whose long name is @name (@len bytes), exactly or by a prefix only it has. */
static const struct ctl_opt *long_named(const struct ctl_cmd *c, const char *name, size_t len)
{
	const struct ctl_opt *o, *found = NULL;
	int n = 0;

	for (o = c->opt; o->name; o++) {
		if (strlen(o->name) == len && !strncmp(o->name, name, len))
			return o;
		if (!strncmp(o->name, name, len)) {
			found = o;
			n++;
		}
	}
	return n == 1 ? found : NULL;
}

static const struct ctl_opt *short_named(const struct ctl_cmd *c, char k)
{
	const struct ctl_opt *o;

	for (o = c->opt; o->name; o++)
		if (o->shrt == k)
			return o;
	return NULL;
}

static char end_of_options[] = "--";

/* "-1", "-20": a negative number, a value (set NAME -1), never an option. */
static bool negative_number(const char *w)
{
	return w[0] == '-' && w[1] >= '0' && w[1] <= '9';
}

/*
 * @in's words (@n, after the command's own) as getopt wants them: the
 * options and their values first, then "--", then the positional words.
 * An option's value is the next word whatever it looks like (getopt's
 * rule); an unknown option stays among the options, for getopt to name.
 * Long names are copied with '-' for '_'.  Returns the number of words
 * put in @out (room for @n + 2), or -ENOMEM; *@npos the positional ones,
 * *@missing the first option whose value is missing (the last word).
 */
static int permute(const struct ctl_cmd *c, char **in, int n, char **out, int *npos, char **owned,
		   const char **missing)
{
	char **pos = calloc((size_t)n + 1, sizeof(*pos));
	int i, k = 0, np = 0, no = 0;

	if (!pos)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		char *w = in[i];

		if (!strcmp(w, "--")) {
			while (++i < n)
				pos[np++] = in[i];
			break;
		}
		if (!strncmp(w, "--", 2)) {
			size_t len = strcspn(w + 2, "=");
			const struct ctl_opt *o;
			char *p;

			w = owned[no++] = strdup(w);
			if (!w) {
				free(pos);
				return -ENOMEM;
			}
			for (p = w + 2; *p && *p != '='; p++)
				if (*p == '_')
					*p = '-';
			o = long_named(c, w + 2, len);
			out[k++] = w;
			if (o && o->arg && !w[2 + len] && i + 1 < n)
				out[k++] = in[++i];
			else if (o && o->arg && !w[2 + len] && !*missing)
				*missing = w;
			continue;
		}
		if (w[0] == '-' && w[1] && !negative_number(w)) {
			const char *p;

			out[k++] = w;
			for (p = w + 1; *p; p++) {
				const struct ctl_opt *o = short_named(c, *p);

				if (o && o->arg) {
					if (!p[1] && i + 1 < n)
						out[k++] = in[++i];
					else if (!p[1] && !*missing)
						*missing = w;
					break;
				}
			}
			continue;
		}
		pos[np++] = w;
	}
	out[k++] = end_of_options;
	memcpy(out + k, pos, (size_t)np * sizeof(*pos));
	free(pos);
	*npos = np;
	return k + np;
}

/*
 * Lustre's shows take a level after -v (net show -v 3), each level
 * printing more; lnetd's -v prints everything, so the level is dropped.
 */
static int drop_levels(char **w, int n)
{
	int i, k = 0;

	for (i = 0; i < n; i++) {
		w[k++] = w[i];
		if (!strcmp(w[i], "--")) {
			while (++i < n)
				w[k++] = w[i];
			break;
		}
		if ((!strcmp(w[i], "-v") || !strcmp(w[i], "--verbose")) && i + 1 < n && *w[i + 1] &&
		    !w[i + 1][strspn(w[i + 1], "0123456789")])
			i++;
	}
	return k;
}

static int parse(struct ctl_cmd *c, int argc, char **argv)
{
	struct option lo[20];
	char shorts[40] = "+h", *p = shorts + 2;
	int i, n = 0, k;

	for (i = 0; c->opt[i].name; i++) {
		lo[n++] = (struct option){c->opt[i].name,
					  c->opt[i].arg ? required_argument : no_argument, NULL,
					  256 + i};
		if (c->opt[i].shrt) {
			*p++ = c->opt[i].shrt;
			if (c->opt[i].arg)
				*p++ = ':';
		}
	}
	lo[n++] = (struct option){"help", no_argument, NULL, 'H'};
	lo[n] = (struct option){0};
	optind = 0; /* glibc: start afresh (an interactive line follows another) */
	opterr = 0;
	while ((k = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
		if (k == 'H' || k == 'h') {
			help(c);
			return -1;
		}
		if (k == '?' || k == ':') {
			const char *bad = argv[optind - 1];

			if (optopt && optopt < 256)
				return ctl_usage("option -%c %s", optopt,
						 k == ':' ? "needs an argument" : "is not known");
			if (k == ':' || (optopt >= 256 && c->opt[optopt - 256].arg))
				return ctl_usage("option %s needs an argument", bad);
			return ctl_usage("option %s is not known", bad);
		}
		if (k < 256) {
			for (i = 0; c->opt[i].name && c->opt[i].shrt != k; i++)
				;
		} else {
			i = k - 256;
		}
		if (c->opt[i].given && c->opt[i].arg)
			return ctl_usage("option --%s given twice", c->opt[i].name);
		/*
		 * getopt takes the next word as a required value whatever it is:
		 * "--if --net" would give an interface named "--net".  No value
		 * lnetctl takes starts with "--": it is an option, the value missing.
		 */
		if (c->opt[i].arg && !strncmp(optarg, "--", 2))
			return ctl_usage("option --%s needs a value, not the option '%s'",
					 c->opt[i].name, optarg);
		c->opt[i].given = true;
		c->opt[i].val = optarg;
	}
	return 0;
}

int ctl_run_cmd(const struct ctl_cmd *proto, int argc, char **argv)
{
	struct ctl_cmd c = *proto;
	char **w = NULL, **owned = NULL;
	const char *missing = NULL;
	int i, n, npos = 0, rc;

	ctl_cmd_name = c.name;
	if (argc > WORDS_MAX)
		return ctl_usage("%d words are too many (at most %d)", argc, WORDS_MAX);
	w = calloc((size_t)argc + 3, sizeof(*w));
	owned = calloc((size_t)argc + 1, sizeof(*owned));
	if (!w || !owned) {
		rc = ctl_fail(EXIT_REFUSED, "out of memory");
		goto out;
	}
	/* argv[0] is the command's last word, as getopt wants a program name there. */
	w[0] = argv[0];
	n = permute(&c, argv + 1, drop_levels(argv + 1, argc - 1), w + 1, &npos, owned, &missing);
	if (n < 0) {
		rc = ctl_fail(EXIT_REFUSED, "out of memory");
		goto out;
	}
	if (missing) {
		rc = ctl_usage("option %s needs an argument", missing);
		goto out;
	}
	rc = parse(&c, n + 1, w);
	if (rc) {
		rc = rc < 0 ? EXIT_OK : rc; /* -1: the help was asked for */
		goto out;
	}
	/*
	 * lnetd takes no string over 4096 bytes: say which word is too long,
	 * in the command's terms, rather than lnetd's "field 'interface'" or
	 * "argument 1" (lnetd(8), bounds).
	 */
	for (i = 0; c.opt[i].name; i++)
		if (c.opt[i].given && c.opt[i].arg && strlen(c.opt[i].val) > STR_MAX) {
			rc = ctl_usage("--%s: a value of %zu bytes; lnetd takes at most %u",
				       c.opt[i].name, strlen(c.opt[i].val), STR_MAX);
			goto out;
		}
	for (i = 0; i < npos; i++)
		if (strlen(w[n + 1 - npos + i]) > STR_MAX) {
			rc = ctl_usage(
				"'%.16s...': an argument of %zu bytes; lnetd takes at most %u",
				w[n + 1 - npos + i], strlen(w[n + 1 - npos + i]), STR_MAX);
			goto out;
		}
	if (npos < c.min_args || npos > c.max_args) {
		if (npos > c.max_args)
			rc = ctl_usage("unexpected argument '%s'", w[n + 1 - npos + c.max_args]);
		else
			rc = ctl_usage("missing argument: lnetctl %s %s", c.name, c.usage);
		goto out;
	}
	rc = c.run(c.opt, npos, w + n + 1 - npos);
out:
	for (i = 0; owned && owned[i]; i++)
		free(owned[i]);
	free(owned);
	free(w);
	return rc;
}
