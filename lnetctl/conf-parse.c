// SPDX-License-Identifier: GPL-2.0
/*
 * conf-parse.c - Lustre's lnet.conf YAML into lnetd ops (the format: conf.h):
 * the reader's helpers, the bounds' passes, the loader and cf_parse().  The
 * sections' handlers are in conf-parse-*.c, named after the sections.
 *
 * Why it is built the way it is:
 *  - The file is loaded whole as a libyaml document and walked against one
 *    table {key, handler} per kind of mapping (netplan's habit), so an
 *    unknown key or a node of the wrong type is an error that names the
 *    key, its line and its column.  A handler of NULL marks a key Lustre's
 *    show prints about the running state: accepted, ignored.
 *  - An entry's keys come in any order, so a walk collects an entry into a
 *    small spec and the ops are built from the spec afterwards, their
 *    fields in the vocabulary's order.
 *  - Everything is parsed into a private document that is moved to the
 *    caller only at the end: an error leaves nothing behind.
 *  - A pass over libyaml's tokens, then one over its events check the
 *    bounds (conf.h) and stop at the first one broken: libyaml's cost
 *    grows faster than the nesting and the number of %TAG directives, and
 *    anchors and aliases are refused (lnet.conf has no use for them, and
 *    libyaml's loader shares aliased nodes, so a small file could expand
 *    hugely).  The event pass builds the document as it goes (what
 *    yaml_parser_load() would build): the file is not parsed a third time.
 *  - Numbers are decimal up to 2^32-1, quoted or not: Lustre's import
 *    reads a scalar's text whatever its style, so "180" is 180 there and
 *    here.  Lustre prints -1 for "default" in a route's hop,
 *    priority and health_sensitivity (and -1 leaves a buffer count alone):
 *    there, and only there, -1 means "not given".
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "conf-int.h"

/* ---------------------------------------------------------------------- */
/* Parsing: errors, warnings, scalars                                      */
/* ---------------------------------------------------------------------- */

/* "FILE:LINE:COL: key 'K': why" at @m; returns -EINVAL. */
static int __attribute__((format(printf, 4, 0)))
vfail_mark(struct cfp *p, const yaml_mark_t *m, const char *key, const char *fmt, va_list ap)
{
	char msg[512];

	if (!p->errlen)
		return -EINVAL;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (key)
		snprintf(p->err, p->errlen, "%s:%zu:%zu: key '%s': %s", p->fname, m->line + 1,
			 m->column + 1, key, msg);
	else
		snprintf(p->err, p->errlen, "%s:%zu:%zu: %s", p->fname, m->line + 1, m->column + 1,
			 msg);
	return -EINVAL;
}

static int __attribute__((format(printf, 3, 4)))
fail_mark(struct cfp *p, const yaml_mark_t *m, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vfail_mark(p, m, NULL, fmt, ap);
	va_end(ap);
	return rc;
}

/* "FILE:LINE:COL: key 'K': why" at the node @at; returns -EINVAL. */
int __attribute__((format(printf, 4, 5)))
cfp_fail(struct cfp *p, const yaml_node_t *at, const char *key, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vfail_mark(p, &at->start_mark, key, fmt, ap);
	va_end(ap);
	return rc;
}

int cfp_nomem(struct cfp *p)
{
	if (p->errlen)
		snprintf(p->err, p->errlen, "%s: out of memory", p->fname);
	return -ENOMEM;
}

int __attribute__((format(printf, 3, 4)))
cfp_warning_at(struct cfp *p, const yaml_node_t *at, const char *fmt, ...)
{
	char msg[512], **w, *s;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (asprintf(&s, "%s:%zu:%zu: %s", p->fname, cfp_line_of(at), cfp_col_of(at), msg) < 0)
		return cfp_nomem(p);
	w = realloc(p->out.warning, (p->out.nwarning + 1) * sizeof(*w));
	if (!w) {
		free(s);
		return cfp_nomem(p);
	}
	p->out.warning = w;
	w[p->out.nwarning++] = s;
	return 0;
}

/* "a mapping", "a list" or the scalar itself, for messages. */
const char *cfp_kind(struct cfp *p, const yaml_node_t *n)
{
	if (n->type == YAML_MAPPING_NODE)
		return "a mapping";
	if (n->type == YAML_SEQUENCE_NODE)
		return "a list";
	if (cfp_is_null(n))
		return "nothing";
	snprintf(p->kind, sizeof(p->kind), "'%.60s%s'", cfp_sval(n),
		 strlen(cfp_sval(n)) > 60 ? "..." : "");
	return p->kind;
}

int cfp_get_str(struct cfp *p, const char *key, const yaml_node_t *n, const char **out)
{
	if (n->type != YAML_SCALAR_NODE)
		return cfp_fail(p, n, key, "expected a string, got %s", cfp_kind(p, n));
	if (cfp_is_null(n))
		return cfp_fail(p, n, key, "has no value");
	if (strlen(cfp_sval(n)) != n->data.scalar.length)
		return cfp_fail(p, n, key, "contains a NUL character");
	if (!*cfp_sval(n))
		return cfp_fail(p, n, key, "must not be empty");
	*out = cfp_sval(n);
	return 0;
}

/* A u32; with @dflt, "-1" (Lustre's "default") sets *@dflt and nothing else. */
int cfp_get_u32(struct cfp *p, const char *key, const yaml_node_t *n, uint32_t *out, bool *dflt)
{
	const char *s;
	uint64_t v = 0;
	size_t len, i;

	if (n->type != YAML_SCALAR_NODE)
		return cfp_fail(p, n, key, "invalid value, expected a number, got %s",
				cfp_kind(p, n));
	if (cfp_is_null(n))
		return cfp_fail(p, n, key, "has no value");
	s = cfp_sval(n);
	if (dflt && !strcmp(s, "-1")) {
		*dflt = true;
		return 0;
	}
	len = strlen(s);
	if (s[0] == '-' && len > 1 && strspn(s + 1, "0123456789") == len - 1)
		return cfp_fail(p, n, key, "must not be negative (got %s)", s);
	if (!len || strspn(s, "0123456789") != len)
		return cfp_fail(p, n, key, "invalid value, expected a number, got %s",
				cfp_kind(p, n));
	if (len > 1 && s[0] == '0')
		return cfp_fail(p, n, key, "%s: leading zeros are not allowed (octal or decimal?)",
				s);
	for (i = 0; i < len; i++) {
		v = v * 10 + (uint64_t)(s[i] - '0');
		if (v > UINT32_MAX)
			return cfp_fail(p, n, key, "%s is above the largest value, 4294967295", s);
	}
	*out = (uint32_t)v;
	if (dflt)
		*dflt = false;
	return 0;
}

/*
 * Lustre writes Multi-Rail as True/False and compares the text, quoted or
 * not; the usual YAML spellings also do.
 */
int cfp_get_bool(struct cfp *p, const char *key, const yaml_node_t *n, bool *out)
{
	static const char *const yes[] = {"True", "true", "yes", "1"};
	static const char *const no[] = {"False", "false", "no", "0"};
	size_t i;

	if (n->type != YAML_SCALAR_NODE)
		return cfp_fail(p, n, key, "expected True or False, got %s", cfp_kind(p, n));
	for (i = 0; i < CF_ARRAY_SIZE(yes); i++) {
		if (!strcmp(cfp_sval(n), yes[i]) || !strcmp(cfp_sval(n), no[i])) {
			*out = !strcmp(cfp_sval(n), yes[i]);
			return 0;
		}
	}
	return cfp_fail(p, n, key, "expected True or False, got %s", cfp_kind(p, n));
}

/* ---------------------------------------------------------------------- */
/* Parsing: building ops                                                   */
/* ---------------------------------------------------------------------- */

struct cf_op *cfp_op_at(const char *verb, const char *obj, const yaml_node_t *at)
{
	struct cf_op *op = cf_op_new(verb, obj);

	if (op) {
		op->line = (int)cfp_line_of(at);
		op->col = (int)cfp_col_of(at);
	}
	return op;
}

/* Keep @op if building it went well (@rc 0); free it otherwise. */
int cfp_push(struct cfp *p, struct cf_op *op, int rc)
{
	if (!op)
		return cfp_nomem(p);
	if (rc) {
		cf_op_free(op);
		return rc == -ENOMEM ? cfp_nomem(p) : rc;
	}
	return cf_doc_push(&p->out, op) ? cfp_nomem(p) : 0;
}

static const struct cfp_keydef top_keys[] = {
	{"net", cfp_sec_net},
	{"ip2nets", cfp_sec_ip2nets},
	{"peer", cfp_sec_peer},
	{"route", cfp_sec_route},
	{"udsp", cfp_sec_udsp},
	{"global", cfp_sec_global},
	{"numa", cfp_sec_numa},
	{"routing", cfp_sec_routing},
	{"buffers", cfp_sec_buffers},
	{"tbf", cfp_sec_tbf},
	{"peers", cfp_sec_peers},
	{"selection", cfp_sec_selection},
	{"statistics", NULL}, /* lnetctl export's counters */
	{NULL, NULL},
};

/* ---------------------------------------------------------------------- */
/* Parsing: the document                                                   */
/* ---------------------------------------------------------------------- */

static int yaml_error(struct cfp *p, const yaml_parser_t *yp, const char *text, size_t len)
{
	size_t i, line = 1, col = 1;

	if (yp->error == YAML_MEMORY_ERROR)
		return cfp_nomem(p);
	if (!p->errlen)
		return -EINVAL;
	if (yp->error == YAML_READER_ERROR) {
		/* The reader knows a byte offset only: count lines and columns to it. */
		for (i = 0; i < yp->problem_offset && i < len; i++, col++)
			if (text[i] == '\n')
				line++, col = 0;
		snprintf(p->err, p->errlen, "%s:%zu:%zu: %s", p->fname, line, col,
			 yp->problem ? yp->problem : "cannot read");
	} else if (yp->context)
		snprintf(p->err, p->errlen, "%s:%zu:%zu: %s (%s at line %zu, column %zu)", p->fname,
			 yp->problem_mark.line + 1, yp->problem_mark.column + 1,
			 yp->problem ? yp->problem : "malformed YAML", yp->context,
			 yp->context_mark.line + 1, yp->context_mark.column + 1);
	else
		snprintf(p->err, p->errlen, "%s:%zu:%zu: %s", p->fname, yp->problem_mark.line + 1,
			 yp->problem_mark.column + 1, yp->problem ? yp->problem : "malformed YAML");
	return -EINVAL;
}

static int event_anchor(struct cfp *p, const yaml_event_t *ev)
{
	const yaml_char_t *anchor = NULL;

	if (ev->type == YAML_SCALAR_EVENT)
		anchor = ev->data.scalar.anchor;
	else if (ev->type == YAML_SEQUENCE_START_EVENT)
		anchor = ev->data.sequence_start.anchor;
	else if (ev->type == YAML_MAPPING_START_EVENT)
		anchor = ev->data.mapping_start.anchor;
	if (anchor || ev->type == YAML_ALIAS_EVENT)
		return fail_mark(p, &ev->start_mark, "anchors and aliases are not supported");
	return 0;
}

static int too_deep(struct cfp *p, const yaml_mark_t *m)
{
	return fail_mark(
		p, m, "lists and mappings nested more than %d deep, the limit (lnet.conf needs 7)",
		CF_MAX_DEPTH);
}

/*
 * libyaml's parser checks each %TAG directive against every one before it,
 * before it returns the document's first event: a few MiB of directives
 * would hold the event pass for hours.  So the scanner's tokens go first,
 * counting directives; and nesting, since the scanner's own cost grows
 * with it (each token looks at every open flow level).  A scanner error
 * stops this pass silently: the event pass, which reads the same tokens up
 * to there, says what is wrong, or something before it.
 */
static int precheck_tokens(struct cfp *p, const char *text, size_t len)
{
	yaml_parser_t yp;
	yaml_token_t tok;
	size_t depth = 0, directives = 0;
	bool end = false;
	int rc = 0;

	if (!yaml_parser_initialize(&yp))
		return cfp_nomem(p);
	yaml_parser_set_input_string(&yp, (const unsigned char *)text, len);
	while (!rc && !end) {
		if (!yaml_parser_scan(&yp, &tok)) {
			rc = yp.error == YAML_MEMORY_ERROR ? cfp_nomem(p) : 0;
			break;
		}
		switch (tok.type) {
		case YAML_STREAM_END_TOKEN:
			end = true;
			break;
		case YAML_VERSION_DIRECTIVE_TOKEN:
		case YAML_TAG_DIRECTIVE_TOKEN:
			if (++directives > CF_MAX_DIRECTIVES)
				rc = fail_mark(
					p, &tok.start_mark,
					"more than %d YAML directives (%%YAML, %%TAG), the limit "
					"(lnet.conf needs none)",
					CF_MAX_DIRECTIVES);
			break;
		case YAML_FLOW_SEQUENCE_START_TOKEN:
		case YAML_FLOW_MAPPING_START_TOKEN:
		case YAML_BLOCK_SEQUENCE_START_TOKEN:
		case YAML_BLOCK_MAPPING_START_TOKEN:
			if (++depth > CF_MAX_DEPTH)
				rc = too_deep(p, &tok.start_mark);
			break;
		case YAML_FLOW_SEQUENCE_END_TOKEN:
		case YAML_FLOW_MAPPING_END_TOKEN:
		case YAML_BLOCK_END_TOKEN:
			depth -= depth > 0;
			break;
		default:
			break;
		}
		yaml_token_delete(&tok);
	}
	yaml_parser_delete(&yp);
	return rc;
}

/* Where an event's node goes: the root, the next item of a list, a key or its value. */
struct build {
	struct cfp *p;
	yaml_document_t *yd;
	int open[CF_MAX_DEPTH + 1]; /* the node ids of the open lists and mappings */
	int key[CF_MAX_DEPTH + 1];  /* an open mapping's key waiting for its value, or 0 */
	size_t depth;
};

static int build_add(struct build *b, int id, const yaml_event_t *ev)
{
	yaml_node_t *n = id ? yaml_document_get_node(b->yd, id) : NULL;
	int up, ok = 1;

	if (!n)
		return 0;
	n->start_mark = ev->start_mark;
	n->end_mark = ev->end_mark;
	if (!b->depth)
		return id; /* the first node is the root */
	up = b->open[b->depth - 1];
	if (yaml_document_get_node(b->yd, up)->type == YAML_SEQUENCE_NODE) {
		ok = yaml_document_append_sequence_item(b->yd, up, id);
	} else if (!b->key[b->depth - 1]) {
		b->key[b->depth - 1] = id;
	} else {
		ok = yaml_document_append_mapping_pair(b->yd, up, b->key[b->depth - 1], id);
		b->key[b->depth - 1] = 0;
	}
	return ok ? id : 0;
}

/*
 * A node pushed onto the document's stack as libyaml's own functions push
 * it (realloc'd, freed by yaml_document_delete()), but without a tag (no
 * walker reads one: libyaml copies a default tag for each node) and with
 * the scalar's value taken from its event rather than copied: a third of
 * the allocations of reading a large file.  Its id, or 0.
 */
static int build_node(yaml_document_t *yd, const yaml_node_t *node)
{
	if (yd->nodes.top == yd->nodes.end) {
		size_t n = (size_t)(yd->nodes.end - yd->nodes.start);
		yaml_node_t *v = realloc(yd->nodes.start, 2 * n * sizeof(*v));

		if (!v)
			return 0;
		yd->nodes.top = v + n;
		yd->nodes.start = v;
		yd->nodes.end = v + 2 * n;
	}
	*yd->nodes.top++ = *node;
	return (int)(yd->nodes.top - yd->nodes.start);
}

/* A list's or a mapping's node, with libyaml's first stack of items (16). */
static int build_collection(yaml_document_t *yd, const yaml_event_t *ev)
{
	yaml_node_t node = {.start_mark = ev->start_mark, .end_mark = ev->end_mark};
	void *items;
	int id;

	if (ev->type == YAML_SEQUENCE_START_EVENT) {
		items = malloc(16 * sizeof(yaml_node_item_t));
		node.type = YAML_SEQUENCE_NODE;
		node.data.sequence.items.start = node.data.sequence.items.top = items;
		node.data.sequence.items.end = node.data.sequence.items.start + 16;
		node.data.sequence.style = ev->data.sequence_start.style;
	} else {
		items = malloc(16 * sizeof(yaml_node_pair_t));
		node.type = YAML_MAPPING_NODE;
		node.data.mapping.pairs.start = node.data.mapping.pairs.top = items;
		node.data.mapping.pairs.end = node.data.mapping.pairs.start + 16;
		node.data.mapping.style = ev->data.mapping_start.style;
	}
	id = items ? build_node(yd, &node) : 0;
	if (!id)
		free(items);
	return id;
}

/* Whether the list starting now is the top level's peer: (its key waits for it). */
static bool peer_list_starts(const struct build *b)
{
	const yaml_node_t *k = b->key[0] ? yaml_document_get_node(b->yd, b->key[0]) : NULL;

	return b->depth == 1 && !b->p->streamed && k && k->type == YAML_SCALAR_NODE &&
	       k->data.scalar.length == 4 && !memcmp(k->data.scalar.value, "peer", 4);
}

/*
 * Item @id of the peer: list is complete: walk it (unless one before it
 * failed), then drop its nodes, which are the last ones of the document,
 * and its place in the list.
 */
static void peer_item_done(struct build *b, int id)
{
	struct cfp *p = b->p;
	yaml_node_t *n, *list = yaml_document_get_node(b->yd, p->streamed);

	if (!p->streamed_rc)
		p->streamed_rc = cfp_peer_item(p, yaml_document_get_node(b->yd, id), NULL);
	for (n = b->yd->nodes.start + id - 1; n < b->yd->nodes.top; n++) {
		if (n->type == YAML_SCALAR_NODE)
			free(n->data.scalar.value);
		else if (n->type == YAML_SEQUENCE_NODE)
			free(n->data.sequence.items.start);
		else if (n->type == YAML_MAPPING_NODE)
			free(n->data.mapping.pairs.start);
	}
	b->yd->nodes.top = b->yd->nodes.start + id - 1;
	list->data.sequence.items.top--;
}

/* Put @ev's node into the document @b builds (a scalar's value taken); 0 or -ENOMEM. */
static int build_event(struct build *b, yaml_event_t *ev)
{
	yaml_node_t node = {.type = YAML_SCALAR_NODE};
	bool peers;
	int id;

	switch (ev->type) {
	case YAML_SCALAR_EVENT:
		node.data.scalar.value = ev->data.scalar.value;
		node.data.scalar.length = ev->data.scalar.length;
		node.data.scalar.style = ev->data.scalar.style;
		id = build_node(b->yd, &node);
		if (id)
			ev->data.scalar.value = NULL; /* the document's now */
		if (!build_add(b, id, ev))
			return -ENOMEM;
		break;
	case YAML_SEQUENCE_START_EVENT:
	case YAML_MAPPING_START_EVENT:
		peers = ev->type == YAML_SEQUENCE_START_EVENT && peer_list_starts(b);
		id = build_collection(b->yd, ev);
		if (!build_add(b, id, ev))
			return -ENOMEM;
		if (peers)
			b->p->streamed = id;
		b->key[b->depth] = 0;
		b->open[b->depth++] = id;
		return 0;
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		b->depth--;
		id = b->open[b->depth];
		yaml_document_get_node(b->yd, id)->end_mark = ev->end_mark;
		break;
	default:
		return 0;
	}
	if (b->depth == 2 && b->p->streamed && b->open[1] == b->p->streamed)
		peer_item_done(b, id);
	return 0;
}

/*
 * The bounds (conf.h), in passes that stop at the first one broken: the
 * tokens (above), then libyaml's events, which also build the document the
 * walkers read (the nodes yaml_parser_load() would build, with their
 * marks), so that the file is parsed once, not once more to load it.
 * Each pass is linear in what it reads; libyaml's cost is not linear in
 * nesting, so both stop as soon as the nesting passes the bound.  An alias
 * is refused where it or its anchor stands: the loader would share the
 * aliased node, and a few lines of aliases of aliases make a document
 * that expands exponentially when walked.  On success *@yd holds the one
 * document (without a root node for an empty file), to be deleted.
 */
static int load(struct cfp *p, const char *text, size_t len, yaml_document_t *yd)
{
	struct build b = {.p = p, .yd = yd};
	yaml_parser_t yp;
	yaml_event_t ev;
	size_t depth = 0, docs = 0;
	bool end = false;
	int rc = 0;

	memset(yd, 0, sizeof(*yd));
	if (len > CF_MAX_BYTES) {
		if (p->errlen)
			snprintf(
				p->err, p->errlen,
				"%s: %zu bytes, above the limit of %u bytes (%u MiB) for lnet.conf",
				p->fname, len, CF_MAX_BYTES, CF_MAX_BYTES >> 20);
		return -EINVAL;
	}
	/*
	 * The token pass guards against what costs libyaml more than linear
	 * time: directives and flow collections.  A file with neither ('%',
	 * '[' or '{' nowhere in it: an export of peers, say) cannot have
	 * them, and the event pass below checks the block nesting itself.
	 */
	if (memchr(text, '%', len) || memchr(text, '[', len) || memchr(text, '{', len))
		rc = precheck_tokens(p, text, len);
	if (rc)
		return rc;
	if (!yaml_parser_initialize(&yp))
		return cfp_nomem(p);
	yaml_parser_set_input_string(&yp, (const unsigned char *)text, len);
	while (!rc && !end) {
		if (!yaml_parser_parse(&yp, &ev)) {
			rc = yaml_error(p, &yp, text, len);
			break;
		}
		end = ev.type == YAML_STREAM_END_EVENT;
		if (docs > 1 && ev.type != YAML_DOCUMENT_START_EVENT)
			rc = fail_mark(p, &ev.start_mark,
				       "a second YAML document: lnet.conf has one");
		else if (ev.type == YAML_DOCUMENT_START_EVENT)
			docs++;
		else if (ev.type == YAML_SEQUENCE_START_EVENT ||
			 ev.type == YAML_MAPPING_START_EVENT)
			depth++;
		else if (ev.type == YAML_SEQUENCE_END_EVENT || ev.type == YAML_MAPPING_END_EVENT)
			depth--;
		rc = rc ?: event_anchor(p, &ev);
		if (!rc && depth > CF_MAX_DEPTH)
			rc = too_deep(p, &ev.start_mark);
		if (!rc && ev.type == YAML_SCALAR_EVENT && ev.data.scalar.length > CF_MAX_SCALAR)
			rc = fail_mark(p, &ev.start_mark,
				       "a value of %zu bytes, above the limit of %d bytes",
				       ev.data.scalar.length, CF_MAX_SCALAR);
		/* The first document only: a second is refused at its first event. */
		if (!rc && ev.type == YAML_DOCUMENT_START_EVENT && docs == 1 &&
		    !yaml_document_initialize(yd, NULL, NULL, NULL, 1, 1))
			rc = cfp_nomem(p);
		if (!rc && build_event(&b, &ev))
			rc = cfp_nomem(p);
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&yp);
	if (rc)
		yaml_document_delete(yd);
	return rc;
}

/* The early ops go where the walk is, so that ops keep the file's order. */
int cfp_streamed(struct cfp *p)
{
	struct cf_op *v;

	if (p->streamed_rc || !p->early.nop)
		return p->streamed_rc;
	v = realloc(p->out.op, (p->out.nop + p->early.nop) * sizeof(*v));
	if (!v)
		return cfp_nomem(p);
	memcpy(v + p->out.nop, p->early.op, p->early.nop * sizeof(*v));
	p->out.op = v;
	p->out.nop += p->early.nop;
	free(p->early.op);
	p->early.op = NULL;
	p->early.nop = 0;
	return 0;
}

/* Move the ops into @doc in canonical order (see conf.h); warnings as they came. */
static int finish(struct cfp *p, struct cf_doc *doc)
{
	if (cf_doc_sort(&p->out, p->mode))
		return cfp_nomem(p);
	doc->op = p->out.op;
	doc->nop = p->out.nop;
	doc->warning = p->out.warning;
	doc->nwarning = p->out.nwarning;
	memset(&p->out, 0, sizeof(p->out));
	return 0;
}

int cf_parse(const char *text, size_t len, const char *fname, enum cf_mode mode, struct cf_doc *doc,
	     char *err, size_t errlen)
{
	struct cfp p = {.fname = fname ? fname : "-", .mode = mode, .err = err, .errlen = errlen};
	yaml_document_t yd;
	yaml_node_t *root;
	int rc;

	memset(doc, 0, sizeof(*doc));
	if (errlen)
		err[0] = '\0';
	p.yd = &yd;
	rc = load(&p, text, len, &yd);
	/* What the peer: list's items made, kept aside until the walk comes to them. */
	p.early = p.out;
	memset(&p.out, 0, sizeof(p.out));
	if (rc) {
		cf_doc_free(&p.early);
		return rc;
	}
	root = yaml_document_get_root_node(&yd);
	if (root && !cfp_is_null(root)) {
		if (root->type != YAML_MAPPING_NODE)
			rc = cfp_fail(
				&p, root, NULL,
				"expected a mapping of sections (net, peer, route, ...), got %s",
				cfp_kind(&p, root));
		else
			rc = cfp_walk_map(&p, root, NULL, "the top level", top_keys, NULL);
	}
	rc = rc ? rc : finish(&p, doc);
	cf_doc_free(&p.out);
	cf_doc_free(&p.early);
	yaml_document_delete(&yd);
	return rc;
}
