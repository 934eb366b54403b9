// SPDX-License-Identifier: GPL-2.0
/*
 * yerr.c - a failure as Lustre's lnetctl prints it: a YAML block on
 * standard error naming the operation, its errno (negative) and what went
 * wrong, which site scripts parse.  Upstream has two layouts, and each
 * command keeps the one upstream's prints:
 *
 *   the netlink commands (net, peer, route, ping, discover, import, lnet),
 *   libyaml's emitter at indent 6, a document of its own:
 *	---
 *	add:
 *	-     net:
 *	      errno: -100
 *	      descr: ! "cannot add LNet NI"
 *	...
 *
 *   the older ones (set, global, routing, stats, udsp), cYAML's tree:
 *	add:
 *	    - udsp:
 *	          errno: -2
 *	          descr: "cannot del udsp: No such file or directory"
 *
 * lnetd's own commands take the first layout.  The descr is lnetd's or
 * lnetctl's sentence, on one line (libyaml would fold one past 80 columns;
 * a grep finds it whole).  Upstream's descr strings are its own: scripts
 * read the keys, errno and the exit status.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "lnetctl.h"
#include "progress.h"

/* How upstream's command of that name prints a failure. */
static const struct shape {
	const char *cmd;  /* lnetctl's command ("net add"), or its first word ("tbf") */
	bool tree;	  /* cYAML's layout */
	const char *verb; /* the top key */
	const char *what; /* the key in its list; NULL: the command's argument (set NAME) */
} shapes[] = {
	{"net add", false, "add", "net"},
	{"net del", false, "del", "net"},
	{"net show", false, "show", "net"},
	{"net set", false, "set", "net"},
	{"peer add", false, "add", "peer"},
	{"peer del", false, "del", "peer"},
	{"peer show", false, "show", "peer"},
	{"peer list", false, "show", "peer"},
	{"peer set", false, "set", "peer"},
	{"route add", false, "add", "route"},
	{"route del", false, "del", "route"},
	{"route show", false, "show", "route"},
	{"ping", false, "manage", "ping"},
	{"discover", false, "manage", "discover"},
	{"import", false, "add", "import"},
	{"export", false, "show", "export"},
	{"lnet configure", false, "configure", "lnet"},
	{"lnet unconfigure", false, "configure", "lnet"},
	/* cYAML's: set NAME is "add:" and the name; upstream's udsp del says "add:" too */
	{"set", true, "add", NULL},
	{"global show", true, "show", "global"},
	{"routing show", true, "show", "routing"},
	{"stats show", true, "show", "statistics"},
	{"stats reset", true, "reset", "statistics"},
	{"udsp add", true, "add", "udsp"},
	{"udsp del", true, "add", "udsp"},
	{"udsp show", true, "show", "udsp"},
	{"policy add", true, "add", "udsp"},
	{"policy del", true, "add", "udsp"},
	{"policy show", true, "show", "udsp"},
	{"selection net show", true, "show", "udsp"},
	{"selection nid show", true, "show", "udsp"},
	{"selection peer show", true, "show", "udsp"},
	{"selection", true, "add", "udsp"},
	{"fault drop show", true, "show", "fault"},
	{"fault delay show", true, "show", "fault"},
	{"fault", true, "manage", "fault"},
	{"debug recovery", true, "show", "recovery"},
	/* lnetd's own */
	{"explain", false, "show", "explain"},
	{"status", false, "show", "status"},
	{"history", false, "show", "history"},
	{"rollback", false, "manage", "rollback"},
	{"tbf show", false, "show", "tbf"},
	{"tbf del", false, "del", "tbf"},
	{"tbf", false, "set", "tbf"},
	{"selftest", false, "manage", "selftest"},
	{NULL, false, "manage", NULL},
};

/* What a command said of its failures' layout (ctl_err_as, ctl_err_name); NULL: the table's. */
static const struct shape *shape_override;
static struct shape shape_as;
static const char *what_arg;

void ctl_err_as(bool tree, const char *verb, const char *what)
{
	shape_as = (struct shape){"", tree, verb, what};
	shape_override = verb ? &shape_as : NULL;
}

void ctl_err_name(const char *name)
{
	what_arg = name;
}

static const struct shape *shape_of(const char *cmd)
{
	const struct shape *s;

	for (s = shapes; s->cmd; s++) {
		size_t len = strlen(s->cmd);

		if (!strncmp(cmd, s->cmd, len) && (!cmd[len] || cmd[len] == ' '))
			return s;
	}
	return s;
}

static int scalar(yaml_emitter_t *e, const char *tag, const char *v, yaml_scalar_style_t style)
{
	yaml_event_t ev;

	/* plain_implicit 1, quoted_implicit 0, as upstream's: a quoted scalar gets "! " */
	return yaml_scalar_event_initialize(&ev, NULL, (yaml_char_t *)tag, (yaml_char_t *)v,
					    (int)strlen(v), 1, 0, style) &&
	       yaml_emitter_emit(e, &ev);
}

/*
 * verb: [ {what: "", errno: N, descr: text} ] through libyaml, as upstream
 * emits it: @indent 6 and a document of its own for a command's failure;
 * @indent 2, no document markers, for the NIDs a ping could not reach
 * (upstream's ping prints those after its answers, on standard output).
 */
static int emit_block(FILE *f, int indent, bool doc, const char *verb, const char *what, int n,
		      const int *err, const char *const *descr, yaml_scalar_style_t style)
{
	yaml_emitter_t e;
	yaml_event_t ev;
	char num[16];
	int ok, i;

	if (!yaml_emitter_initialize(&e))
		return -ENOMEM;
	yaml_emitter_set_output_file(&e, f);
	yaml_emitter_set_indent(&e, indent);
	yaml_emitter_set_width(&e, -1);
	yaml_emitter_set_unicode(&e, 0);
	ok = yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING) &&
	     yaml_emitter_emit(&e, &ev);
	ok = ok && yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, !doc) &&
	     yaml_emitter_emit(&e, &ev);
	ok = ok &&
	     yaml_mapping_start_event_initialize(&ev, NULL, (yaml_char_t *)YAML_MAP_TAG, 1,
						 YAML_ANY_MAPPING_STYLE) &&
	     yaml_emitter_emit(&e, &ev);
	ok = ok && scalar(&e, YAML_STR_TAG, verb, YAML_PLAIN_SCALAR_STYLE);
	ok = ok &&
	     yaml_sequence_start_event_initialize(&ev, NULL, (yaml_char_t *)YAML_SEQ_TAG, 1,
						  YAML_ANY_SEQUENCE_STYLE) &&
	     yaml_emitter_emit(&e, &ev);
	for (i = 0; ok && i < n; i++) {
		snprintf(num, sizeof(num), "%d", err[i]);
		ok = yaml_mapping_start_event_initialize(&ev, NULL, (yaml_char_t *)YAML_MAP_TAG, 1,
							 YAML_ANY_MAPPING_STYLE) &&
		     yaml_emitter_emit(&e, &ev);
		ok = ok && scalar(&e, YAML_STR_TAG, what, YAML_PLAIN_SCALAR_STYLE);
		ok = ok && scalar(&e, YAML_STR_TAG, "", YAML_PLAIN_SCALAR_STYLE);
		ok = ok && scalar(&e, YAML_STR_TAG, "errno", YAML_PLAIN_SCALAR_STYLE);
		ok = ok && scalar(&e, YAML_INT_TAG, num, YAML_PLAIN_SCALAR_STYLE);
		ok = ok && scalar(&e, YAML_STR_TAG, "descr", YAML_PLAIN_SCALAR_STYLE);
		ok = ok && scalar(&e, YAML_STR_TAG, descr[i], style);
		ok = ok && yaml_mapping_end_event_initialize(&ev) && yaml_emitter_emit(&e, &ev);
	}
	ok = ok && yaml_sequence_end_event_initialize(&ev) && yaml_emitter_emit(&e, &ev);
	ok = ok && yaml_mapping_end_event_initialize(&ev) && yaml_emitter_emit(&e, &ev);
	ok = ok && yaml_document_end_event_initialize(&ev, !doc) && yaml_emitter_emit(&e, &ev);
	ok = ok && yaml_stream_end_event_initialize(&ev) && yaml_emitter_emit(&e, &ev);
	ok = ok && yaml_emitter_flush(&e);
	yaml_emitter_delete(&e);
	fflush(f);
	return ok ? 0 : -EIO;
}

/* cYAML's layout, by hand: the descr double-quoted, '"' and '\' and controls escaped. */
static void tree_block(FILE *f, const char *verb, const char *what, int err, const char *descr)
{
	const unsigned char *p;

	fprintf(f, "%s:\n    - %s:\n          errno: %d\n          descr: \"", verb, what, err);
	for (p = (const unsigned char *)descr; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", f);
		else if (*p == '\t')
			fputs("\\t", f);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(f, "\\x%02X", *p);
		else
			fputc(*p, f);
	}
	fputs("\"\n", f);
	fflush(f);
}

void ctl_yerr(int err, const char *descr)
{
	const struct shape *s = shape_override ? shape_override : shape_of(ctl_cmd_name);
	const char *verb = s->verb;
	const char *what = s->what	   ? s->what
			   : what_arg	   ? what_arg
			   : *ctl_cmd_name ? ctl_cmd_name
					   : "lnetctl";

	ctl_progress_clear();
	fflush(stdout);
	if (s->tree)
		tree_block(stderr, verb, what, err, descr);
	else if (emit_block(stderr, 6, true, verb, what, 1, &err, &descr,
			    YAML_DOUBLE_QUOTED_SCALAR_STYLE))
		fprintf(stderr, "lnetctl %s: %s\n", ctl_cmd_name, descr); /* libyaml failed */
}

int ctl_yerr_nodes(const char *what, size_t n, const int *err, const char *const *descr)
{
	if (!n)
		return 0;
	fflush(stdout);
	/* plain where it may be, else single-quoted with "! ", as upstream's ping prints them */
	return emit_block(stdout, 2, false, "manage", what, (int)n, err, descr,
			  YAML_PLAIN_SCALAR_STYLE);
}

int ctl_errno_of(const char *text, int dflt)
{
	int i;

	for (i = 1; i < 134; i++)
		if (!strcmp(text, strerror(i)))
			return -i;
	return dflt;
}
