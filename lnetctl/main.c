// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - lnetctl's command line: find the command, parse its options
 * (Lustre's spellings; "--prim_nid" and "--prim-nid" are the same), run it.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/nid.h"
#include "lnetctl.h"
#include "progress.h"

const char *ctl_cmd_name = "";

static const struct ctl_cmd *const families[] = {
	ctl_net_cmds,	    ctl_peer_cmds, ctl_route_cmds,   ctl_udsp_cmds, ctl_global_cmds,
	ctl_conf_cmds,	    ctl_lnet_cmds, ctl_misc_cmds,    ctl_tbf_cmds,  ctl_policy_cmds,
	ctl_selection_cmds, ctl_dp_cmds,   ctl_routing_cmds, ctl_disc_cmds, ctl_fault_cmds,
	ctl_health_cmds,    NULL,
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

static int vfail(int code, int err, const char *fmt, va_list ap)
{
	char *msg = NULL;

	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	ctl_yerr(err, msg ? msg : "out of memory");
	free(msg);
	return code;
}

int ctl_fail(int code, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vfail(code, code == EXIT_DENIED ? -EPERM : -EINVAL, fmt, ap);
	va_end(ap);
	return rc;
}

int ctl_fail_errno(int code, int err, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vfail(code, err > 0 ? -err : err, fmt, ap);
	va_end(ap);
	return rc;
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

static void overview(FILE *f)
{
	const struct ctl_cmd *const *fam;
	const struct ctl_cmd *c;

	fprintf(f, "Usage: lnetctl [COMMAND] [OPTIONS]... [ARGS]\n"
		   "Configure LNet through lnetd (Lustre's lnetctl syntax and YAML).\n"
		   "Without a command, lnetctl reads commands from its input, one a line\n"
		   "(interactive on a terminal).\n\n"
		   "Commands:\n");
	for (fam = families; *fam; fam++)
		for (c = *fam; c->name; c++)
			fprintf(f, "  %-20s %s\n", c->name, c->about);
	fprintf(f, "  %-20s %s\n", "help", "this text; 'help COMMAND' is 'COMMAND --help'");
	fprintf(f, "  %-20s %s\n", "list-commands", "the commands' first words, in columns");
	fprintf(f, "  %-20s %s\n", "quit", "end the commands read from the input");
	fprintf(f, "  %-20s %s\n", "exit", "the same as quit");
	fprintf(f, "  %-20s %s\n", "ignore_errors",
		"go on after a failed command read from the input");
	fprintf(f, "\nOptions (before or after the command):\n"
		   "  --no-ask-password    on a terminal, do not let polkit ask for a password\n"
		   "\n'lnetctl COMMAND --help' describes each; lnetctl(8) has the rest.\n");
}

/* How many of @w[0..@n-1] spell @name ("tbf rule start": 3), or 0. */
static int words_match(const char *name, int n, char **w)
{
	const char *p = name;
	int k = 0;
	size_t len;

	for (;; k++) {
		len = strcspn(p, " ");
		if (k >= n || strlen(w[k]) != len || strncmp(w[k], p, len))
			return 0;
		if (!p[len])
			return k + 1;
		p += len + 1;
	}
}

/* Whether @w[0..@n-1] is the start of @name ("tbf rule" of "tbf rule start"). */
static bool prefix_of(const char *name, int n, char **w)
{
	const char *p = name;
	int k;
	size_t len;

	for (k = 0; k < n; k++) {
		len = strcspn(p, " ");
		if (!p[len] || strlen(w[k]) != len || strncmp(w[k], p, len))
			return false;
		p += len + 1;
	}
	return true;
}

/*
 * The options of lnetctl itself, which go anywhere before "--" (as
 * systemctl's do), taken out of @w; the new count.
 */
static int global_options(int n, char **w)
{
	int i, k;

	for (i = k = 0; i < n; i++) {
		if (!strcmp(w[i], "--")) {
			while (i < n)
				w[k++] = w[i++];
			break;
		}
		if (!strcmp(w[i], "--no-ask-password") || !strcmp(w[i], "--no_ask_password")) {
			ctl_ask_password = false;
			continue;
		}
		w[k++] = w[i];
	}
	return k;
}

/*
 * --list-commands: the first word of every command, with lnetctl's own
 * words first, four to a line of 80 columns, as Lustre's lnetctl lists
 * them.
 */
static void list_commands(void)
{
	static const char *const own[] = {
		"quit",
		"exit",
		"help",
		"--help",
		"version",
		"--version",
		"list-commands",
		"--list-commands",
		"--ignore_errors",
		"ignore_errors",
	};
	const struct ctl_cmd *const *fam, *const *f2;
	const struct ctl_cmd *c, *c2;
	int col = 0;
	size_t i;

	for (i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		printf("%-19s %s", own[i], ++col % 4 ? "" : "\n");
	for (fam = families; *fam; fam++)
		for (c = *fam; c->name; c++) {
			size_t len = strcspn(c->name, " ");
			bool seen = false;

			/* once each: "net" for net add, net del and the rest */
			for (f2 = families; *f2 && !seen; f2++)
				for (c2 = *f2; c2->name && !seen; c2++) {
					if (c2 == c)
						goto first;
					seen = strcspn(c2->name, " ") == len &&
					       !strncmp(c2->name, c->name, len);
				}
first:
			if (!seen)
				printf("%-19.*s %s", (int)len, c->name, ++col % 4 ? "" : "\n");
		}
	if (col % 4)
		printf("\n");
}

/* Whether commands read from the input go on after a failure (ignore_errors). */
static bool ignore_errors;
/* Set by quit and exit. */
static bool quit;

/* One command: @w[0..@n-1] its words, without the program's name; its exit code. */
static int dispatch(int n, char **w)
{
	const struct ctl_cmd *const *fam;
	const struct ctl_cmd *c, *best = NULL;
	int k, nbest = 0, m;
	FILE *out;

	ctl_cmd_name = "";
	ctl_err_as(false, NULL, NULL);
	ctl_err_name(NULL);
	n = global_options(n, w);
	if (!n)
		return EXIT_OK;
	if (!strcmp(w[0], "--help") || !strcmp(w[0], "-h") || (!strcmp(w[0], "help") && n == 1)) {
		overview(stdout);
		return EXIT_OK;
	}
	if (!strcmp(w[0], "help")) {
		/* help net add: net add --help (w[n] has room: argv's NULL, or the line's) */
		static char help_word[] = "--help";

		w[n] = help_word;
		return dispatch(n, w + 1);
	}
	if (!strcmp(w[0], "--version") || !strcmp(w[0], "version")) {
		printf("lnetctl (lnetd) %s\n", PACKAGE_VERSION);
		return EXIT_OK;
	}
	if (!strcmp(w[0], "--list-commands") || !strcmp(w[0], "list-commands")) {
		list_commands();
		return EXIT_OK;
	}
	if (!strcmp(w[0], "quit") || !strcmp(w[0], "exit")) {
		quit = true;
		return EXIT_OK;
	}
	if (!strcmp(w[0], "ignore_errors") || !strcmp(w[0], "--ignore_errors")) {
		ignore_errors = true;
		return EXIT_OK;
	}
	/* The command whose words the arguments spell, the longest one. */
	for (fam = families; *fam; fam++)
		for (c = *fam; c->name; c++) {
			k = words_match(c->name, n, w);
			if (k > nbest) {
				best = c;
				nbest = k;
			}
		}
	if (best)
		return ctl_run_cmd(best, n - nbest + 1, w + nbest - 1);
	/* A group of commands ("lnetctl net", "lnetctl tbf"): list them. */
	for (m = n; m > 0; m--) {
		bool any = false;

		for (fam = families; *fam; fam++)
			for (c = *fam; c->name; c++)
				any |= prefix_of(c->name, m, w) && (int)strlen(c->name) > 0;
		if (!any)
			continue;
		ctl_cmd_name = w[0];
		if (m < n && strcmp(w[m], "--help"))
			return ctl_usage("'%s' is not a command here", w[m]);
		/* Asked for (--help): stdout; a command missing: stderr, and a usage error. */
		out = m < n ? stdout : stderr;
		fprintf(out, "Usage: lnetctl");
		for (k = 0; k < m; k++)
			fprintf(out, " %s", w[k]);
		fprintf(out, " COMMAND\n\nCommands:\n");
		for (fam = families; *fam; fam++)
			for (c = *fam; c->name; c++)
				if (prefix_of(c->name, m, w))
					fprintf(out, "  %-20s %s\n", c->name, c->about);
		return m < n ? EXIT_OK : EXIT_USAGE;
	}
	fprintf(stderr, "lnetctl: '%s' is not a command (see 'lnetctl --list-commands')\n", w[0]);
	return EXIT_USAGE;
}

/*
 * A line into words at @w (at most @max, NULL after the last): split at
 * blanks, with '...' and "..." quoting and '\' escaping as a shell does
 * (Lustre's lnetctl splits at blanks only; a quote is a superset).  The
 * words are made in @line itself.  The count, or -1 for an open quote.
 */
static int split_line(char *line, char **w, int max)
{
	char *r = line, *o = line;
	int n = 0;

	for (;;) {
		char q = 0;

		while (*r == ' ' || *r == '\t' || *r == '\n' || *r == '\r')
			r++;
		if (!*r)
			break;
		if (n >= max)
			return -2;
		w[n++] = o;
		while (*r && (q || (*r != ' ' && *r != '\t' && *r != '\n' && *r != '\r'))) {
			if (!q && (*r == '\'' || *r == '"'))
				q = *r++;
			else if (q && *r == q)
				q = 0, r++;
			else if (*r == '\\' && q != '\'' && r[1])
				*o++ = *++r, r++;
			else
				*o++ = *r++;
		}
		if (q)
			return -1;
		if (*r)
			r++;
		*o++ = '\0';
	}
	w[n] = NULL;
	return n;
}

/*
 * No command: commands from the input, one a line, as Lustre's lnetctl
 * reads them.  On a terminal, a prompt before each, and every command
 * runs whatever the one before did; the status is the last command's.
 * Otherwise (a script) the first failure ends it, unless ignore_errors
 * came before; the status is the first failure's.
 */
static int interactive(void)
{
	bool tty = isatty(STDIN_FILENO);
	char *line = NULL, *w[256];
	size_t cap = 0;
	int rc = EXIT_OK, first = EXIT_OK, n;

	quit = false;
	while (!quit) {
		if (tty) {
			fputs("> ", stdout); /* upstream's prompt */
			fflush(stdout);
		}
		if (getline(&line, &cap, stdin) < 0)
			break;
		n = split_line(line, w, (int)(sizeof(w) / sizeof(w[0])) - 2);
		if (n == 0 || (n > 0 && w[0][0] == '#'))
			continue;
		if (n < 0) {
			fprintf(stderr, "lnetctl: %s\n",
				n == -1 ? "a quote is not closed on this line" : "too many words");
			rc = EXIT_USAGE;
		} else {
			bool ask = ctl_ask_password; /* a line's --no-ask-password is its own */

			rc = dispatch(n, w);
			ctl_ask_password = ask;
		}
		fflush(stdout);
		if (rc && !first)
			first = rc;
		if (rc && !tty && !ignore_errors)
			break;
	}
	free(line);
	if (tty && !quit)
		fputc('\n', stdout);
	return tty ? rc : first;
}

int main(int argc, char **argv)
{
	/* lnetctl's own options alone ("lnetctl --no-ask-password"): no command */
	int n = global_options(argc - 1, argv + 1);

	if (!n)
		return interactive();
	return dispatch(n, argv + 1);
}
