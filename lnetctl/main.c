// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - lnetctl's command line: find the command, parse its options
 * (Lustre's spellings; "--prim_nid" and "--prim-nid" are the same), run it.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/nid.h"
#include "lnetctl.h"
#include "progress.h"

const char *ctl_cmd_name = "";

static const struct ctl_cmd *const families[] = {
	ctl_net_cmds,	 ctl_peer_cmds,	     ctl_route_cmds,  ctl_udsp_cmds,
	ctl_global_cmds, ctl_conf_cmds,	     ctl_misc_cmds,   ctl_tbf_cmds,
	ctl_policy_cmds, ctl_selection_cmds, ctl_dp_cmds,     ctl_routing_cmds,
	ctl_disc_cmds,	 ctl_fault_cmds,     ctl_health_cmds, NULL,
};

int ctl_usage(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "lnetctl %s: ", ctl_cmd_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see 'lnetctl %s --help')\n", ctl_cmd_name);
	return EXIT_USAGE;
}

int ctl_fail(int code, const char *fmt, ...)
{
	va_list ap;

	ctl_progress_clear();
	fprintf(stderr, "lnetctl %s: ", ctl_cmd_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return code;
}

struct ctl_opt *ctl_opt(struct ctl_opt *opt, const char *name)
{
	for (; opt->name; opt++)
		if (!strcmp(opt->name, name))
			return opt;
	abort(); /* a command asked for an option it does not declare */
}

int ctl_u32(const struct ctl_opt *o, uint32_t max, uint32_t *v)
{
	unsigned long long x;
	char *end;

	errno = 0;
	x = strtoull(o->val, &end, 10); /* decimal, as lnet.conf: "010" is ten */
	if (!*o->val || *end || errno || x > max || *o->val == '-')
		return ctl_usage("--%s: '%s' is not a number from 0 to %u", o->name, o->val, max);
	*v = (uint32_t)x;
	return 0;
}

int ctl_canon(struct ctl_opt *o, bool nid)
{
	static char buf[2][LNE_NID_STR_MAX]; /* a command filters by two at most */
	static int next;
	struct lne_err err = {.msg = ""};
	struct lne_nid n;
	lne_net_t net;
	char *out = buf[next++ % 2];
	int rc;

	if (!o->given)
		return 0;
	rc = nid ? lne_nid_parse(o->val, &n, &err) : lne_net_parse(o->val, &net, &err);
	if (rc)
		return ctl_usage("--%s: %s", o->name, err.msg);
	if (nid)
		lne_nid_format(&n, out, sizeof(buf[0]));
	else
		lne_net_format(net, out, sizeof(buf[0]));
	o->val = out;
	return 0;
}

/* Commas inside brackets belong to the item: "eth0[0,1],eth1" is two. */
char **ctl_split(const char *s, size_t *n)
{
	char **v = calloc(strlen(s) + 2, sizeof(*v));
	const char *start = s, *p;
	int depth = 0;

	*n = 0;
	if (!v)
		return NULL;
	for (p = s;; p++) {
		depth += *p == '[' ? 1 : *p == ']' ? -1 : 0;
		if (*p && (*p != ',' || depth > 0))
			continue;
		if (p > start)
			v[(*n)++] = strndup(start, (size_t)(p - start));
		if (!*p)
			break;
		start = p + 1;
	}
	return v;
}

void ctl_strv_free(char **v)
{
	char **p;

	for (p = v; p && *p; p++)
		free(*p);
	free(v);
}

static void help(const struct ctl_cmd *c)
{
	const struct ctl_opt *o;

	printf("Usage: lnetctl %s%s%s\n%s\n", c->name, *c->usage ? " " : "", c->usage, c->about);
	if (c->opt[0].name)
		printf("\nOptions:\n");
	for (o = c->opt; o->name; o++) {
		char left[64];

		snprintf(left, sizeof(left), "%s%c%s--%s%s%s", o->shrt ? "-" : "",
			 o->shrt ? o->shrt : ' ', o->shrt ? ", " : "  ", o->name, o->arg ? " " : "",
			 o->arg ?: "");
		printf("  %-34s %s\n", left, o->help);
	}
	printf("  %-34s %s\n", "-h, --help", "show this help and exit");
}

static int run(const struct ctl_cmd *proto, int argc, char **argv)
{
	struct option lo[20];
	struct ctl_cmd c = *proto;
	char shorts[40] = "+h", *p = shorts + 2;
	int i, n = 0, k, npos;

	ctl_cmd_name = c.name;
	for (i = 0; c.opt[i].name; i++) {
		lo[n++] = (struct option){c.opt[i].name,
					  c.opt[i].arg ? required_argument : no_argument, NULL,
					  256 + i};
		if (c.opt[i].shrt) {
			*p++ = c.opt[i].shrt;
			if (c.opt[i].arg)
				*p++ = ':';
		}
	}
	lo[n++] = (struct option){"help", no_argument, NULL, 'H'};
	lo[n] = (struct option){0};
	/*
	 * Lustre's shows take a level after -v (net show -v 3), each level
	 * printing more; lnetd's -v prints everything, so the level is read
	 * and dropped.
	 */
	for (i = 1; i + 1 < argc && strcmp(argv[i], "--"); i++)
		if ((!strcmp(argv[i], "-v") || !strcmp(argv[i], "--verbose")) &&
		    argv[i + 1][strspn(argv[i + 1], "0123456789")] == '\0' && *argv[i + 1]) {
			memmove(&argv[i + 1], &argv[i + 2], (size_t)(argc - i - 1) * sizeof(*argv));
			argc--;
		}
	/* Lustre spells some options with '_' (--prim_nid): accept both. */
	for (i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strncmp(argv[i], "--", 2))
			for (p = argv[i] + 2; *p && *p != '='; p++)
				if (*p == '_')
					*p = '-';
	optind = 1;
	opterr = 0;
	while ((k = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
		if (k == 'H' || k == 'h') {
			help(&c);
			return EXIT_OK;
		}
		if (k == '?' || k == ':') {
			const char *bad = argv[optind - 1];

			if (optopt && optopt < 256)
				return ctl_usage("option -%c %s", optopt,
						 k == ':' ? "needs an argument" : "is not known");
			if (k == ':' || (optopt >= 256 && c.opt[optopt - 256].arg))
				return ctl_usage("option %s needs an argument", bad);
			return ctl_usage("option %s is not known", bad);
		}
		if (k < 256) {
			for (i = 0; c.opt[i].name && c.opt[i].shrt != k; i++)
				;
		} else {
			i = k - 256;
		}
		if (c.opt[i].given && c.opt[i].arg)
			return ctl_usage("option --%s given twice", c.opt[i].name);
		/*
		 * getopt takes the next word as a required value whatever it is:
		 * "--if --net" would give an interface named "--net".  No value
		 * lnetctl takes starts with "--": it is an option, the value missing.
		 */
		if (c.opt[i].arg && !strncmp(optarg, "--", 2))
			return ctl_usage("option --%s needs a value, not the option '%s'",
					 c.opt[i].name, optarg);
		c.opt[i].given = true;
		c.opt[i].val = optarg;
	}
	npos = argc - optind;
	if (npos < c.min_args || npos > c.max_args) {
		if (npos > c.max_args)
			return ctl_usage("unexpected argument '%s'", argv[optind + c.max_args]);
		return ctl_usage("missing argument: lnetctl %s %s", c.name, c.usage);
	}
	return c.run(c.opt, npos, argv + optind);
}

static void overview(FILE *f)
{
	const struct ctl_cmd *const *fam;
	const struct ctl_cmd *c;

	fprintf(f, "Usage: lnetctl COMMAND [OPTIONS]\n"
		   "Configure LNet through lnetd (Lustre's lnetctl syntax and YAML).\n\n"
		   "Commands:\n");
	for (fam = families; *fam; fam++)
		for (c = *fam; c->name; c++)
			fprintf(f, "  %-20s %s\n", c->name, c->about);
	fprintf(f, "\nOptions (before or after the command):\n"
		   "  --no-ask-password    on a terminal, do not let polkit ask for a password\n"
		   "\n'lnetctl COMMAND --help' describes each; lnetctl(8) has the rest.\n");
}

/* How many of argv[1..] spell @name ("tbf rule start": 3), or 0. */
static int words_match(const char *name, int argc, char **argv)
{
	const char *p = name;
	int k = 1;
	size_t len;

	for (;; k++) {
		len = strcspn(p, " ");
		if (k >= argc || strlen(argv[k]) != len || strncmp(argv[k], p, len))
			return 0;
		if (!p[len])
			return k;
		p += len + 1;
	}
}

/* Whether argv[1..argc-1] is the start of @name ("tbf rule" of "tbf rule start"). */
static bool prefix_of(const char *name, int argc, char **argv)
{
	const char *p = name;
	int k;
	size_t len;

	for (k = 1; k < argc; k++) {
		len = strcspn(p, " ");
		if (!p[len] || strlen(argv[k]) != len || strncmp(argv[k], p, len))
			return false;
		p += len + 1;
	}
	return true;
}

/*
 * The options of lnetctl itself, which go anywhere before "--" (as
 * systemctl's do), taken out of argv; the new argc.
 */
static int global_options(int argc, char **argv)
{
	int i, k;

	for (i = k = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			while (i < argc)
				argv[k++] = argv[i++];
			break;
		}
		if (!strcmp(argv[i], "--no-ask-password") ||
		    !strcmp(argv[i], "--no_ask_password")) {
			ctl_ask_password = false;
			continue;
		}
		argv[k++] = argv[i];
	}
	argv[k] = NULL;
	return k;
}

int main(int argc, char **argv)
{
	const struct ctl_cmd *const *fam;
	const struct ctl_cmd *c, *best = NULL;
	int k, nbest = 0, n;
	FILE *out;

	argc = global_options(argc, argv);
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		overview(argc < 2 ? stderr : stdout);
		return argc < 2 ? EXIT_USAGE : EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("lnetctl (lnetd) %s\n", PACKAGE_VERSION);
		return EXIT_OK;
	}
	/* The command whose words the arguments spell, the longest one. */
	for (fam = families; *fam; fam++)
		for (c = *fam; c->name; c++) {
			k = words_match(c->name, argc, argv);
			if (k > nbest) {
				best = c;
				nbest = k;
			}
		}
	if (best)
		return run(best, argc - nbest, argv + nbest);
	/* A group of commands ("lnetctl net", "lnetctl tbf"): list them. */
	for (n = argc; n > 1; n--) {
		bool any = false;

		for (fam = families; *fam; fam++)
			for (c = *fam; c->name; c++)
				any |= prefix_of(c->name, n, argv) && (int)strlen(c->name) > 0;
		if (!any)
			continue;
		ctl_cmd_name = argv[1];
		if (n < argc && strcmp(argv[n], "--help"))
			return ctl_usage("'%s' is not a command here", argv[n]);
		/* Asked for (--help): stdout; a command missing: stderr, and a usage error. */
		out = n < argc ? stdout : stderr;
		fprintf(out, "Usage: lnetctl");
		for (k = 1; k < n; k++)
			fprintf(out, " %s", argv[k]);
		fprintf(out, " COMMAND\n\nCommands:\n");
		for (fam = families; *fam; fam++)
			for (c = *fam; c->name; c++)
				if (prefix_of(c->name, n, argv))
					fprintf(out, "  %-20s %s\n", c->name, c->about);
		return n < argc ? EXIT_OK : EXIT_USAGE;
	}
	fprintf(stderr, "lnetctl: '%s' is not a command (see 'lnetctl --help')\n", argv[1]);
	return EXIT_USAGE;
}
