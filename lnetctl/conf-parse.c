// SPDX-License-Identifier: GPL-2.0
/*
 * conf-parse.c - Lustre's lnet.conf YAML into lnetd ops (the format: conf.h).
 *
 * Why it is built the way it is:
 *  - The file is loaded whole with libyaml's loader and walked against one
 *    table {key, handler} per kind of mapping (netplan's habit), so an
 *    unknown key or a node of the wrong type is an error that names the
 *    key, its line and its column.  A handler of NULL marks a key Lustre's
 *    show prints about the running state: accepted, ignored.
 *  - An entry's keys come in any order, so a walk collects an entry into a
 *    small spec and the ops are built from the spec afterwards, their
 *    fields in the vocabulary's order.
 *  - Everything is parsed into a private document that is moved to the
 *    caller only at the end: an error leaves nothing behind.
 *  - Before the loader, a pass over libyaml's tokens and one over its
 *    events check the bounds (conf.h) and stop at the first one broken:
 *    libyaml's cost grows faster than the nesting and the number of %TAG
 *    directives, and anchors and aliases are refused (lnet.conf has no use
 *    for them, and the loader shares aliased nodes, so a small file could
 *    expand hugely).
 *  - Numbers are plain decimal up to 2^32-1.  A quoted "180" is a string
 *    (Lustre's lnetctl would read it as 0), so it is refused where a
 *    number is due.  Lustre prints -1 for "default" in a route's hop,
 *    priority and health_sensitivity (and -1 leaves a buffer count alone):
 *    there, and only there, -1 means "not given".
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "conf-int.h"

/* ---------------------------------------------------------------------- */
/* Parsing: errors, warnings, scalars                                      */
/* ---------------------------------------------------------------------- */

struct ps {
	yaml_document_t *yd;
	const char *fname;
	enum cf_mode mode;
	struct cf_doc out; /* ops in file order, warnings */
	char *err;
	size_t errlen;
	const yaml_node_t *gset[CF_NGLOBALS]; /* where each global was set */
	char kind[80];			      /* kind()'s text */
};

static size_t line_of(const yaml_node_t *n)
{
	return n->start_mark.line + 1;
}

static size_t col_of(const yaml_node_t *n)
{
	return n->start_mark.column + 1;
}

/* "FILE:LINE:COL: key 'K': why" at @m; returns -EINVAL. */
static int __attribute__((format(printf, 4, 0)))
vfail_mark(struct ps *p, const yaml_mark_t *m, const char *key, const char *fmt, va_list ap)
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
fail_mark(struct ps *p, const yaml_mark_t *m, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vfail_mark(p, m, NULL, fmt, ap);
	va_end(ap);
	return rc;
}

/* "FILE:LINE:COL: key 'K': why" at the node @at; returns -EINVAL. */
static int __attribute__((format(printf, 4, 5)))
fail(struct ps *p, const yaml_node_t *at, const char *key, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vfail_mark(p, &at->start_mark, key, fmt, ap);
	va_end(ap);
	return rc;
}

static int nomem(struct ps *p)
{
	if (p->errlen)
		snprintf(p->err, p->errlen, "%s: out of memory", p->fname);
	return -ENOMEM;
}

static int __attribute__((format(printf, 3, 4)))
warning_at(struct ps *p, const yaml_node_t *at, const char *fmt, ...)
{
	char msg[512], **w, *s;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (asprintf(&s, "%s:%zu:%zu: %s", p->fname, line_of(at), col_of(at), msg) < 0)
		return nomem(p);
	w = realloc(p->out.warning, (p->out.nwarning + 1) * sizeof(*w));
	if (!w) {
		free(s);
		return nomem(p);
	}
	p->out.warning = w;
	w[p->out.nwarning++] = s;
	return 0;
}

static yaml_node_t *node(struct ps *p, int i)
{
	return yaml_document_get_node(p->yd, i);
}

static const char *sval(const yaml_node_t *n)
{
	return (const char *)n->data.scalar.value;
}

static bool is_null(const yaml_node_t *n)
{
	const char *s;

	if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	s = sval(n);
	return !*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") ||
	       !strcmp(s, "NULL");
}

/* "a mapping", "a list" or the scalar itself, for messages. */
static const char *kind(struct ps *p, const yaml_node_t *n)
{
	if (n->type == YAML_MAPPING_NODE)
		return "a mapping";
	if (n->type == YAML_SEQUENCE_NODE)
		return "a list";
	if (is_null(n))
		return "nothing";
	snprintf(p->kind, sizeof(p->kind), "'%.60s%s'", sval(n), strlen(sval(n)) > 60 ? "..." : "");
	return p->kind;
}

static int get_str(struct ps *p, const char *key, const yaml_node_t *n, const char **out)
{
	if (n->type != YAML_SCALAR_NODE)
		return fail(p, n, key, "expected a string, got %s", kind(p, n));
	if (is_null(n))
		return fail(p, n, key, "has no value");
	if (strlen(sval(n)) != n->data.scalar.length)
		return fail(p, n, key, "contains a NUL character");
	if (!*sval(n))
		return fail(p, n, key, "must not be empty");
	*out = sval(n);
	return 0;
}

/* A u32; with @dflt, "-1" (Lustre's "default") sets *@dflt and nothing else. */
static int get_u32(struct ps *p, const char *key, const yaml_node_t *n, uint32_t *out, bool *dflt)
{
	const char *s;
	uint64_t v = 0;
	size_t len, i;

	if (n->type != YAML_SCALAR_NODE)
		return fail(p, n, key, "expected a number, got %s", kind(p, n));
	if (is_null(n))
		return fail(p, n, key, "has no value");
	s = sval(n);
	if (n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return fail(p, n, key, "expected a number, got the quoted string %s", kind(p, n));
	if (dflt && !strcmp(s, "-1")) {
		*dflt = true;
		return 0;
	}
	len = strlen(s);
	if (s[0] == '-' && len > 1 && strspn(s + 1, "0123456789") == len - 1)
		return fail(p, n, key, "must not be negative (got %s)", s);
	if (!len || strspn(s, "0123456789") != len)
		return fail(p, n, key, "expected a number, got %s", kind(p, n));
	if (len > 1 && s[0] == '0')
		return fail(p, n, key, "%s: leading zeros are not allowed (octal or decimal?)", s);
	for (i = 0; i < len; i++) {
		v = v * 10 + (uint64_t)(s[i] - '0');
		if (v > UINT32_MAX)
			return fail(p, n, key, "%s is above the largest value, 4294967295", s);
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
static int get_bool(struct ps *p, const char *key, const yaml_node_t *n, bool *out)
{
	static const char *const yes[] = {"True", "true", "yes", "1"};
	static const char *const no[] = {"False", "false", "no", "0"};
	size_t i;

	if (n->type != YAML_SCALAR_NODE)
		return fail(p, n, key, "expected True or False, got %s", kind(p, n));
	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (!strcmp(sval(n), yes[i]) || !strcmp(sval(n), no[i])) {
			*out = !strcmp(sval(n), yes[i]);
			return 0;
		}
	}
	return fail(p, n, key, "expected True or False, got %s", kind(p, n));
}

/* ---------------------------------------------------------------------- */
/* Parsing: mappings and lists                                             */
/* ---------------------------------------------------------------------- */

struct keydef {
	const char *name;
	/* NULL: a key about the running state, ignored */
	int (*fn)(struct ps *p, yaml_node_t *key, yaml_node_t *val, void *st);
};

struct keyref {
	const char *s;
	size_t i;
};

static int keyref_cmp(const void *a, const void *b)
{
	const struct keyref *x = a, *y = b;
	int c = strcmp(x->s, y->s);

	return c ? c : (x->i > y->i) - (x->i < y->i);
}

/* @n must be a mapping whose keys are distinct strings. */
static int check_map(struct ps *p, const yaml_node_t *n, const char *key, const char *what)
{
	const yaml_node_pair_t *pairs;
	size_t np, i, dup = SIZE_MAX;
	struct keyref *r;

	if (n->type != YAML_MAPPING_NODE)
		return fail(p, n, key, "expected a mapping (%s), got %s", what, kind(p, n));
	pairs = n->data.mapping.pairs.start;
	np = (size_t)(n->data.mapping.pairs.top - pairs);
	for (i = 0; i < np; i++) {
		const yaml_node_t *k = node(p, pairs[i].key);

		if (k->type != YAML_SCALAR_NODE || is_null(k) ||
		    strlen(sval(k)) != k->data.scalar.length)
			return fail(p, k, NULL, "a key in %s must be a string", what);
	}
	if (np < 2)
		return 0;
	r = malloc(np * sizeof(*r));
	if (!r)
		return nomem(p);
	for (i = 0; i < np; i++)
		r[i] = (struct keyref){sval(node(p, pairs[i].key)), i};
	qsort(r, np, sizeof(*r), keyref_cmp);
	/* Of all repeats, report the first one in the file. */
	for (i = 1; i < np; i++)
		if (!strcmp(r[i - 1].s, r[i].s) && r[i].i < dup)
			dup = r[i].i;
	free(r);
	if (dup != SIZE_MAX)
		return fail(p, node(p, pairs[dup].key), sval(node(p, pairs[dup].key)),
			    "given twice in %s", what);
	return 0;
}

/* Walk a mapping (or nothing, an empty one) against @tab. */
static int walk_map(struct ps *p, yaml_node_t *n, const char *key, const char *what,
		    const struct keydef *tab, void *st)
{
	const yaml_node_pair_t *pr;
	int rc;

	if (is_null(n))
		return 0;
	rc = check_map(p, n, key, what);
	for (pr = n->data.mapping.pairs.start; !rc && pr < n->data.mapping.pairs.top; pr++) {
		yaml_node_t *k = node(p, pr->key), *v = node(p, pr->value);
		const struct keydef *d;

		for (d = tab; d->name && strcmp(d->name, sval(k)); d++)
			;
		if (!d->name)
			return fail(p, k, sval(k), "unknown key in %s", what);
		if (d->fn)
			rc = d->fn(p, k, v, st);
	}
	return rc;
}

/* Walk a list (or nothing, an empty one), calling @fn on each item. */
static int walk_seq(struct ps *p, yaml_node_t *n, const char *key, const char *what,
		    int (*fn)(struct ps *p, yaml_node_t *item, void *st), void *st)
{
	const yaml_node_item_t *it;
	int rc = 0;

	if (is_null(n))
		return 0;
	if (n->type != YAML_SEQUENCE_NODE)
		return fail(p, n, key, "expected a list of %s, got %s", what, kind(p, n));
	for (it = n->data.sequence.items.start; !rc && it < n->data.sequence.items.top; it++)
		rc = fn(p, node(p, *it), st);
	return rc;
}

/* String nodes, in file order; the array is owned, the nodes are the document's. */
struct nodes {
	yaml_node_t **v;
	size_t n;
};

static int nodes_push(struct ps *p, struct nodes *ns, yaml_node_t *n)
{
	yaml_node_t **v = realloc(ns->v, (ns->n + 1) * sizeof(*v));

	if (!v)
		return nomem(p);
	ns->v = v;
	v[ns->n++] = n;
	return 0;
}

/* Lustre's string lists: "{0: eth0, 1: eth1}", or a plain list "[eth0, eth1]". */
static int get_strs(struct ps *p, const yaml_node_t *k, yaml_node_t *v, struct nodes *out)
{
	const char *key = sval(k), *s;
	size_t before = out->n;
	int rc = 0;

	if (v->type == YAML_MAPPING_NODE) {
		const yaml_node_pair_t *pr;

		rc = check_map(p, v, key, key);
		for (pr = v->data.mapping.pairs.start; !rc && pr < v->data.mapping.pairs.top;
		     pr++) {
			rc = get_str(p, key, node(p, pr->value), &s);
			rc = rc ? rc : nodes_push(p, out, node(p, pr->value));
		}
	} else if (v->type == YAML_SEQUENCE_NODE) {
		const yaml_node_item_t *it;

		for (it = v->data.sequence.items.start; !rc && it < v->data.sequence.items.top;
		     it++) {
			rc = get_str(p, key, node(p, *it), &s);
			rc = rc ? rc : nodes_push(p, out, node(p, *it));
		}
	} else {
		return fail(p, v, key, "expected a mapping like {0: %s} or a list, got %s",
			    strcmp(key, "ip-range") ? "eth0" : "10.0.0.*", kind(p, v));
	}
	if (!rc && out->n == before)
		return fail(p, v, key, "lists nothing");
	return rc;
}

/* ---------------------------------------------------------------------- */
/* Parsing: building ops                                                   */
/* ---------------------------------------------------------------------- */

static struct cf_op *op_at(const char *verb, const char *obj, const yaml_node_t *at)
{
	struct cf_op *op = cf_op_new(verb, obj);

	if (op) {
		op->line = (int)line_of(at);
		op->col = (int)col_of(at);
	}
	return op;
}

/* Keep @op if building it went well (@rc 0); free it otherwise. */
static int push(struct ps *p, struct cf_op *op, int rc)
{
	if (!op)
		return nomem(p);
	if (rc) {
		cf_op_free(op);
		return rc == -ENOMEM ? nomem(p) : rc;
	}
	return cf_doc_push(&p->out, op) ? nomem(p) : 0;
}

static const char *verb(const struct ps *p)
{
	return p->mode == CF_DEL ? "del" : "add";
}

/* ---------------------------------------------------------------------- */
/* net: and ip2nets:                                                       */
/* ---------------------------------------------------------------------- */

/* One local NI (net:) or one ip2nets rule. */
struct ni_spec {
	yaml_node_t *net; /* net type / net-spec */
	struct nodes ifs, ranges;
	char *cpts;
	bool tun_set[CF_NTUN];
	uint32_t tun[CF_NTUN];
};

static void ni_spec_free(struct ni_spec *s)
{
	free(s->ifs.v);
	free(s->ranges.v);
	free(s->cpts);
}

static int h_interfaces(struct ps *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	struct ni_spec *s = st;

	return get_strs(p, k, v, &s->ifs);
}

static int h_ip_range(struct ps *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	struct ni_spec *s = st;

	return get_strs(p, k, v, &s->ranges);
}

/* CPT: "[0,1]" as Lustre prints it, or a list of CPT numbers. */
static int h_cpt(struct ps *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	struct ni_spec *s = st;
	const yaml_node_item_t *it;
	const char *str;
	size_t len = 0;
	FILE *f;
	int rc;

	if (s->cpts)
		return fail(p, k, "CPT", "given twice (once in tunables)");
	if (v->type != YAML_SEQUENCE_NODE) {
		rc = get_str(p, "CPT", v, &str);
		if (!rc && !(s->cpts = strdup(str)))
			return nomem(p);
		return rc;
	}
	if (v->data.sequence.items.start == v->data.sequence.items.top)
		return fail(p, v, "CPT", "lists no CPT");
	f = open_memstream(&s->cpts, &len);
	if (!f)
		return nomem(p);
	fputc('[', f);
	for (it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
		uint32_t cpt;

		rc = get_u32(p, "CPT", node(p, *it), &cpt, NULL);
		if (rc) {
			fclose(f);
			return rc;
		}
		fprintf(f, "%s%u", it == v->data.sequence.items.start ? "" : ",", cpt);
	}
	fputc(']', f);
	return fclose(f) ? nomem(p) : 0;
}

static int h_tun(struct ps *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	struct ni_spec *s = st;
	size_t t;

	for (t = 0; strcmp(cf_tun_keys[t], sval(k)); t++)
		;
	s->tun_set[t] = true;
	return get_u32(p, sval(k), v, &s->tun[t], NULL);
}

static const struct keydef tunables_keys[] = {
	{"peer_timeout", h_tun},
	{"peer_credits", h_tun},
	{"peer_buffer_credits", h_tun},
	{"credits", h_tun},
	{"CPT", h_cpt}, /* where Lustre's import also looks for it */
	{NULL, NULL},
};

static int h_tunables(struct ps *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	return walk_map(p, v, "tunables", "tunables", tunables_keys, st);
}

/* LND tunables: lnetd leaves them to the LNDs' defaults; say so. */
static int h_lnd_tunables(struct ps *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	const yaml_node_pair_t *pr;
	char names[256] = "";
	size_t len = 0;
	int rc;

	if (is_null(v))
		return 0;
	rc = check_map(p, v, "lnd tunables", "lnd tunables");
	if (rc || p->mode == CF_DEL || v->data.mapping.pairs.start == v->data.mapping.pairs.top)
		return rc;
	for (pr = v->data.mapping.pairs.start; pr < v->data.mapping.pairs.top; pr++) {
		const char *name = sval(node(p, pr->key));

		if (len + strlen(name) + 8 >= sizeof(names)) {
			snprintf(names + len, sizeof(names) - len, ", ...");
			break;
		}
		len += (size_t)snprintf(names + len, sizeof(names) - len, "%s%s", len ? ", " : "",
					name);
	}
	return warning_at(p, k, "lnd tunables (%s): not acted on by lnetd", names);
}

/* One op per interface ("eth0[0,1]" carries its own CPTs, as in Lustre). */
static int ni_op(struct ps *p, const struct ni_spec *s, const yaml_node_t *at, const char *ifname,
		 const char *cpts, const char *pattern)
{
	struct cf_op *op = op_at(verb(p), "net", at);
	int rc = op ? 0 : -ENOMEM;
	size_t t;

	rc = rc ? rc : cf_op_set_str(op, "net", sval(s->net));
	if (!rc && ifname)
		rc = cf_op_set_str(op, "interface", ifname);
	/* A del names the NI by its interface when it has one, else its pattern. */
	if (!rc && pattern && (p->mode == CF_ADD || !ifname))
		rc = cf_op_set_str(op, "pattern", pattern);
	if (p->mode == CF_ADD) {
		if (!rc && cpts)
			rc = cf_op_set_str(op, "cpts", cpts);
		for (t = 0; !rc && t < CF_NTUN; t++)
			if (s->tun_set[t])
				rc = cf_op_set_u32(op, cf_tun_keys[t], s->tun[t]);
	}
	return push(p, op, rc);
}

static int ni_ops(struct ps *p, const struct ni_spec *s, const char *pattern)
{
	size_t i;
	int rc = 0;

	for (i = 0; !rc && i < s->ifs.n; i++) {
		const yaml_node_t *n = s->ifs.v[i];
		const char *name = sval(n), *br = strchr(name, '[');
		const char *cpts = s->cpts;
		char *ifname;

		if (br) {
			if (br == name || name[strlen(name) - 1] != ']')
				return fail(
					p, n, "interfaces",
					"'%s' is not an interface, nor one with CPTs like eth0[0,1]",
					name);
			if (s->cpts && strcmp(s->cpts, br))
				return fail(p, n, "interfaces", "CPTs %s disagree with CPT '%s'",
					    br, s->cpts);
			cpts = br;
		}
		ifname = strndup(name, br ? (size_t)(br - name) : strlen(name));
		if (!ifname)
			return nomem(p);
		rc = ni_op(p, s, n, ifname, cpts, pattern);
		free(ifname);
	}
	if (!rc && !s->ifs.n && pattern)
		rc = ni_op(p, s, s->ranges.v[0], NULL, s->cpts, pattern);
	return rc;
}

static const struct keydef local_ni_keys[] = {
	{"interfaces", h_interfaces},
	{"tunables", h_tunables},
	{"lnd tunables", h_lnd_tunables},
	{"CPT", h_cpt},
	{"nid", NULL},
	{"status", NULL},
	{"statistics", NULL},
	{"sent_stats", NULL},
	{"received_stats", NULL},
	{"dropped_stats", NULL},
	{"health stats", NULL},
	{"udsp info", NULL},
	{"dev cpt", NULL},
	{"tcp bonding", NULL},
	{NULL, NULL},
};

struct net_entry {
	yaml_node_t *net, *nis;
	size_t nops; /* ops made from its NIs */
};

static int do_local_ni(struct ps *p, yaml_node_t *item, void *st)
{
	struct net_entry *e = st;
	struct ni_spec s = {.net = e->net};
	size_t before = p->out.nop;
	int rc;

	rc = walk_map(p, item, "local NI(s)", "a local NI", local_ni_keys, &s);
	if (!rc && !s.ifs.n && p->mode == CF_ADD)
		rc = fail(p, item, "interfaces", "missing: a local NI needs an interface");
	rc = rc ? rc : ni_ops(p, &s, NULL);
	e->nops += p->out.nop - before;
	ni_spec_free(&s);
	return rc;
}

static int h_net_type(struct ps *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	struct net_entry *e = st;
	const char *s;

	e->net = v;
	return get_str(p, "net type", v, &s);
}

static int h_local_nis(struct ps *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	struct net_entry *e = st;

	e->nis = v;
	return 0;
}

static const struct keydef net_keys[] = {
	{"net type", h_net_type},
	{"local NI(s)", h_local_nis},
	{"seq_no", NULL},
	{NULL, NULL},
};

/*
 * The Multi-Rail design's net: entries, beside Lustre's "net type" form:
 *   - net: o2ib1                        - net: o2ib
 *     interfaces:                         intf: ib0        (optional)
 *       - intf: ib0                       pattern: 192.168.2.*
 *         CPT: 1,3
 *     tunables: {...}
 * and, to delete, "- net: o2ib1" alone (the whole net) or with interfaces.
 */
struct seed_net {
	struct ni_spec s;
	yaml_node_t *ifaces, *pattern;
};

static int h_seed_net(struct ps *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	struct seed_net *n = st;
	const char *str;

	n->s.net = v;
	return get_str(p, "net", v, &str);
}

static int h_seed_intf(struct ps *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	struct ni_spec *s = st;
	const char *str;
	int rc = get_str(p, "intf", v, &str);

	return rc ? rc : nodes_push(p, &s->ifs, v);
}

static int h_seed_ifaces(struct ps *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	((struct seed_net *)st)->ifaces = v;
	return 0;
}

static int h_seed_pattern(struct ps *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	struct seed_net *n = st;
	const char *str;

	n->pattern = v;
	return get_str(p, "pattern", v, &str);
}

static int h_seed_tunables(struct ps *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	static const struct keydef keys[] = {
		{"peer_timeout", h_tun}, {"peer_credits", h_tun}, {"peer_buffer_credits", h_tun},
		{"credits", h_tun},	 {"seq_no", NULL},	  {NULL, NULL},
	};

	return walk_map(p, v, "tunables", "tunables", keys, &((struct seed_net *)st)->s);
}

static int h_seed_entry_intf(struct ps *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	return h_seed_intf(p, k, v, &((struct seed_net *)st)->s);
}

static int h_seed_entry_cpt(struct ps *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	return h_cpt(p, k, v, &((struct seed_net *)st)->s);
}

static const struct keydef seed_net_keys[] = {
	{"net", h_seed_net},
	{"interfaces", h_seed_ifaces},
	{"tunables", h_seed_tunables},
	{"intf", h_seed_entry_intf},
	{"pattern", h_seed_pattern},
	{"CPT", h_seed_entry_cpt},
	{"seq_no", NULL},
	{NULL, NULL},
};

static const struct keydef seed_intf_keys[] = {
	{"intf", h_seed_intf},
	{"CPT", h_cpt},
	{"detail", NULL}, /* the design's show-only flag */
	{NULL, NULL},
};

/* One "- intf: ib0  CPT: 1,3" item: an NI with the entry's net and tunables. */
static int do_seed_intf(struct ps *p, yaml_node_t *item, void *st)
{
	const struct seed_net *n = st;
	struct ni_spec it = {.net = n->s.net};
	int rc;

	memcpy(it.tun_set, n->s.tun_set, sizeof(it.tun_set));
	memcpy(it.tun, n->s.tun, sizeof(it.tun));
	rc = walk_map(p, item, "interfaces", "an interface", seed_intf_keys, &it);
	if (!rc && !it.ifs.n)
		rc = fail(p, item, "intf", "missing in an interface");
	if (!rc && !it.cpts && n->s.cpts && !(it.cpts = strdup(n->s.cpts)))
		rc = nomem(p);
	rc = rc ? rc : ni_ops(p, &it, NULL);
	ni_spec_free(&it);
	return rc;
}

static int do_seed_net(struct ps *p, yaml_node_t *item)
{
	struct seed_net n = {0};
	int rc = walk_map(p, item, "net", "a net", seed_net_keys, &n);

	if (rc)
		goto out;
	if (cf_net_is_lo(sval(n.s.net)))
		goto out;
	if (n.pattern && n.ifaces)
		rc = fail(p, n.ifaces, "interfaces",
			  "a pattern entry names at most one interface, with intf:");
	else if (n.pattern && !(rc = nodes_push(p, &n.s.ranges, n.pattern)))
		rc = ni_ops(p, &n.s, sval(n.pattern));
	else if (n.s.ifs.n)
		rc = fail(p, n.s.ifs.v[0], "intf", "goes with a pattern (or under interfaces:)");
	else if (n.ifaces && !is_null(n.ifaces))
		rc = walk_seq(p, n.ifaces, "interfaces", "interfaces", do_seed_intf, &n);
	else if (p->mode == CF_DEL) {
		struct cf_op *op = op_at("del", "net", n.s.net);

		rc = push(p, op, op ? cf_op_set_str(op, "net", sval(n.s.net)) : 0);
	} else
		rc = fail(p, item, "interfaces", "missing: a net needs interfaces or a pattern");
out:
	ni_spec_free(&n.s);
	return rc;
}

/* Which form a net: entry is in: Lustre's says "net type", the design's "net". */
static bool seed_form(struct ps *p, yaml_node_t *item)
{
	const yaml_node_pair_t *pr;

	if (item->type != YAML_MAPPING_NODE)
		return false;
	for (pr = item->data.mapping.pairs.start; pr < item->data.mapping.pairs.top; pr++)
		if (!strcmp(sval(node(p, pr->key)), "net"))
			return true;
	return false;
}

static int do_net(struct ps *p, yaml_node_t *item, void *st)
{
	struct net_entry e = {0};
	int rc;

	if (seed_form(p, item))
		return do_seed_net(p, item);
	rc = walk_map(p, item, "net", "a net", net_keys, &e);

	if (rc)
		return rc;
	if (!e.net)
		return fail(p, item, "net type", "missing in a net");
	/* 0@lo always exists; Lustre's export lists it. */
	if (cf_net_is_lo(sval(e.net)))
		return 0;
	if (p->mode == CF_ADD && (!e.nis || is_null(e.nis)))
		return fail(p, item, "local NI(s)", "missing in a net");
	if (e.nis)
		rc = walk_seq(p, e.nis, "local NI(s)", "local NIs", do_local_ni, &e);
	if (!rc && p->mode == CF_ADD && !e.nops)
		rc = fail(p, e.nis, "local NI(s)", "lists no local NI");
	/* A del naming no interface deletes the whole net. */
	if (!rc && p->mode == CF_DEL && !e.nops) {
		struct cf_op *op = op_at("del", "net", e.net);

		rc = push(p, op, op ? cf_op_set_str(op, "net", sval(e.net)) : 0);
	}
	return rc;
}

static int h_net_spec(struct ps *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	struct ni_spec *s = st;
	const char *str;
	int rc = get_str(p, "net-spec", v, &str);

	if (!rc && strchr(str, '('))
		return fail(p, v, "net-spec", "'%s': give the interfaces under 'interfaces:'", str);
	s->net = v;
	return rc;
}

static const struct keydef ip2nets_keys[] = {
	{"net-spec", h_net_spec},
	{"interfaces", h_interfaces},
	{"ip-range", h_ip_range},
	{"tunables", h_tunables},
	{"lnd tunables", h_lnd_tunables},
	{"CPT", h_cpt},
	{"seq_no", NULL},
	{NULL, NULL},
};

/* The ip-range entries as one pattern: their address patterns, single spaces between. */
static char *join_ranges(const struct nodes *ranges)
{
	size_t i, len = 0, cap = 1;
	char *pat, *tok, *save, *copy;

	for (i = 0; i < ranges->n; i++)
		cap += strlen(sval(ranges->v[i])) + 1;
	pat = calloc(1, cap);
	if (!pat)
		return NULL;
	for (i = 0; i < ranges->n; i++) {
		copy = strdup(sval(ranges->v[i]));
		if (!copy) {
			free(pat);
			return NULL;
		}
		for (tok = strtok_r(copy, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save))
			len += (size_t)snprintf(pat + len, cap - len, "%s%s", len ? " " : "", tok);
		free(copy);
	}
	return pat;
}

static int do_ip2nets(struct ps *p, yaml_node_t *item, void *st)
{
	struct ni_spec s = {0};
	char *pattern = NULL;
	int rc = walk_map(p, item, "ip2nets", "an ip2nets rule", ip2nets_keys, &s);

	if (!rc && !s.net)
		rc = fail(p, item, "net-spec", "missing in an ip2nets rule");
	if (!rc && cf_net_is_lo(sval(s.net)))
		goto out; /* as in a net: entry, and in Lustre */
	if (!rc && !s.ifs.n && !s.ranges.n)
		rc = fail(p, item, "ip-range",
			  "missing: an ip2nets rule needs ip-range or interfaces");
	if (!rc && s.ranges.n) {
		pattern = join_ranges(&s.ranges);
		if (!pattern)
			rc = nomem(p);
		else if (!*pattern)
			rc = fail(p, s.ranges.v[0], "ip-range", "has no address pattern");
	}
	rc = rc ? rc : ni_ops(p, &s, pattern);
out:
	free(pattern);
	ni_spec_free(&s);
	return rc;
}

/* ---------------------------------------------------------------------- */
/* peer:                                                                   */
/* ---------------------------------------------------------------------- */

struct peer_spec {
	yaml_node_t *prim;
	struct nodes nids;
	bool mr_set, mr;
};

static int h_pni_nid(struct ps *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	yaml_node_t **nid = st;
	const char *s;

	*nid = v;
	return get_str(p, "nid", v, &s);
}

static const struct keydef peer_ni_keys[] = {
	{"nid", h_pni_nid},
	{"state", NULL},
	{"max_ni_tx_credits", NULL},
	{"available_tx_credits", NULL},
	{"min_tx_credits", NULL},
	{"tx_q_num_of_buf", NULL},
	{"available_rtr_credits", NULL},
	{"min_rtr_credits", NULL},
	{"refcount", NULL},
	{"statistics", NULL},
	{"sent_stats", NULL},
	{"received_stats", NULL},
	{"dropped_stats", NULL},
	{"health stats", NULL},
	{"udsp info", NULL},
	{NULL, NULL},
};

static int do_peer_ni(struct ps *p, yaml_node_t *item, void *st)
{
	struct peer_spec *s = st;
	yaml_node_t *nid = NULL;
	int rc = walk_map(p, item, "peer ni", "a peer NI", peer_ni_keys, &nid);

	if (!rc && !nid)
		rc = fail(p, item, "nid", "missing in a peer NI");
	return rc ? rc : nodes_push(p, &s->nids, nid);
}

static int h_primary(struct ps *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	struct peer_spec *s = st;
	const char *str;

	s->prim = v;
	return get_str(p, "primary nid", v, &str);
}

static int h_multi_rail(struct ps *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	struct peer_spec *s = st;

	s->mr_set = true;
	return get_bool(p, "Multi-Rail", v, &s->mr);
}

static int h_peer_nis(struct ps *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	return walk_seq(p, v, "peer ni", "peer NIs", do_peer_ni, st);
}

static const struct keydef peer_keys[] = {
	{"primary nid", h_primary}, {"Multi-Rail", h_multi_rail},
	{"peer ni", h_peer_nis},    {"peer state", NULL},
	{"seq_no", NULL},	    {NULL, NULL},
};

static int do_peer(struct ps *p, yaml_node_t *item, void *st)
{
	struct peer_spec s = {0};
	const char **nids = NULL;
	struct cf_op *op;
	bool whole = false; /* del: the primary is listed, the peer goes */
	size_t i, n = 0;
	int rc = walk_map(p, item, "peer", "a peer", peer_keys, &s);

	if (!rc && !s.prim)
		rc = fail(p, item, "primary nid", "missing in a peer");
	if (rc)
		goto out;
	/* Lustre lists the primary among the peer NIs; the op names it once. */
	nids = calloc(s.nids.n + 1, sizeof(*nids));
	if (!nids) {
		rc = nomem(p);
		goto out;
	}
	for (i = 0; i < s.nids.n; i++) {
		if (strcmp(sval(s.nids.v[i]), sval(s.prim)))
			nids[n++] = sval(s.nids.v[i]);
		else
			whole = true;
	}
	op = op_at(verb(p), "peer", item);
	if (!op) {
		rc = nomem(p);
		goto out;
	}
	rc = cf_op_set_str(op, "primary", sval(s.prim));
	/* An add always lists the other NIDs, as lnetd's Export does; a del only to remove some. */
	if (!rc && (p->mode == CF_ADD || (n && !whole)))
		rc = cf_op_set_strv(op, "nids", nids, n);
	if (!rc && s.mr_set && p->mode == CF_ADD)
		rc = cf_op_set_bool(op, "multi_rail", s.mr);
	rc = push(p, op, rc);
out:
	free(nids);
	free(s.nids.v);
	return rc;
}

/* ---------------------------------------------------------------------- */
/* route:                                                                  */
/* ---------------------------------------------------------------------- */

struct route_spec {
	yaml_node_t *net, *gw;
	bool set[3];
	uint32_t v[3];
};

static int h_route_str(struct ps *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	struct route_spec *s = st;
	const char *str;

	if (!strcmp(sval(k), "net"))
		s->net = v;
	else
		s->gw = v;
	return get_str(p, sval(k), v, &str);
}

static int h_route_u32(struct ps *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	struct route_spec *s = st;
	bool dflt;
	size_t i;
	int rc;

	for (i = 0; strcmp(cf_route_nums[i].key, sval(k)); i++)
		;
	rc = get_u32(p, sval(k), v, &s->v[i], &dflt);
	s->set[i] = !rc && !dflt;
	return rc;
}

static const struct keydef route_keys[] = {
	{"net", h_route_str},
	{"gateway", h_route_str},
	{"hop", h_route_u32},
	{"priority", h_route_u32},
	{"health_sensitivity", h_route_u32},
	{"state", NULL},
	{"type", NULL},
	{"seq_no", NULL},
	{NULL, NULL},
};

static int do_route(struct ps *p, yaml_node_t *item, void *st)
{
	struct route_spec s = {0};
	struct cf_op *op;
	size_t i;
	int rc = walk_map(p, item, "route", "a route", route_keys, &s);

	if (rc)
		return rc;
	if (!s.net)
		return fail(p, item, "net", "missing in a route");
	if (!s.gw)
		return fail(p, item, "gateway", "missing in a route");
	op = op_at(verb(p), "route", item);
	if (!op)
		return nomem(p);
	rc = cf_op_set_str(op, "net", sval(s.net));
	rc = rc ? rc : cf_op_set_str(op, "gateway", sval(s.gw));
	for (i = 0; !rc && p->mode == CF_ADD && i < CF_NROUTE_NUMS; i++)
		if (s.set[i])
			rc = cf_op_set_u32(op, cf_route_nums[i].field, s.v[i]);
	return push(p, op, rc);
}

/* ---------------------------------------------------------------------- */
/* udsp:                                                                   */
/* ---------------------------------------------------------------------- */

struct udsp_spec {
	yaml_node_t *src, *dst, *rte, *prio_key;
	bool idx_set, prio_set;
	uint32_t idx, prio;
};

/* Lustre's udsp show prints "NA" for a criterion the rule does not have. */
static int h_udsp_expr(struct ps *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	struct udsp_spec *s = st;
	const char *str;
	int rc = get_str(p, sval(k), v, &str);

	if (rc || !strcmp(str, "NA"))
		return rc;
	if (!strcmp(sval(k), "src"))
		s->src = v;
	else if (!strcmp(sval(k), "dst"))
		s->dst = v;
	else
		s->rte = v;
	return 0;
}

static int h_udsp_idx(struct ps *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	struct udsp_spec *s = st;

	s->idx_set = true;
	return get_u32(p, "idx", v, &s->idx, NULL);
}

static int h_udsp_prio(struct ps *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	struct udsp_spec *s = st;

	if (s->prio_set)
		return fail(p, k, "priority", "given twice in the action");
	s->prio_set = true;
	return get_u32(p, "priority", v, &s->prio, NULL);
}

static const struct keydef action_keys[] = {
	{"priority", h_udsp_prio},
	{NULL, NULL},
};

static int do_action_item(struct ps *p, yaml_node_t *item, void *st)
{
	return walk_map(p, item, "action", "a UDSP action", action_keys, st);
}

/* "action: {priority: N}" as Lustre prints it, or the design's list form. */
static int h_udsp_action(struct ps *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	if (v->type == YAML_SEQUENCE_NODE)
		return walk_seq(p, v, "action", "actions", do_action_item, st);
	return walk_map(p, v, "action", "a UDSP action", action_keys, st);
}

static const struct keydef udsp_keys[] = {
	{"idx", h_udsp_idx},	   {"src", h_udsp_expr}, {"dst", h_udsp_expr}, {"rte", h_udsp_expr},
	{"action", h_udsp_action}, {"seq_no", NULL},	 {NULL, NULL},
};

static int do_udsp(struct ps *p, yaml_node_t *item, void *st)
{
	struct udsp_spec s = {0};
	struct cf_op *op;
	int rc = walk_map(p, item, "udsp", "a UDSP rule", udsp_keys, &s);

	if (rc)
		return rc;
	if (p->mode == CF_DEL) {
		if (!s.idx_set)
			return fail(p, item, "idx", "missing: a UDSP rule is deleted by its idx");
		op = op_at("del", "udsp", item);
		return push(p, op, op ? cf_op_set_u32(op, "idx", s.idx) : 0);
	}
	op = op_at("add", "udsp", item);
	rc = op ? 0 : -ENOMEM;
	if (!rc && s.src)
		rc = cf_op_set_str(op, "src", sval(s.src));
	if (!rc && s.dst)
		rc = cf_op_set_str(op, "dst", sval(s.dst));
	if (!rc && s.rte)
		rc = cf_op_set_str(op, "rte", sval(s.rte));
	if (!rc && s.prio_set)
		rc = cf_op_set_u32(op, "priority", s.prio);
	if (!rc && s.idx_set)
		rc = cf_op_set_u32(op, "idx", s.idx);
	return push(p, op, rc);
}

/* ---------------------------------------------------------------------- */
/* global:, numa:, routing:, buffers:                                      */
/* ---------------------------------------------------------------------- */

static int set_global(struct ps *p, yaml_node_t *k, size_t g, yaml_node_t *v)
{
	const char *key = sval(k);
	struct cf_op *op;
	uint32_t u;
	int rc;

	if (p->mode == CF_DEL)
		return fail(p, k, key,
			    "global settings cannot be deleted (set the value wanted instead)");
	rc = get_u32(p, key, v, &u, NULL);
	if (rc)
		return rc;
	if (p->gset[g])
		return fail(p, k, key, "%s is set twice (also at line %zu, column %zu)",
			    cf_globals[g].name, line_of(p->gset[g]), col_of(p->gset[g]));
	p->gset[g] = k;
	op = op_at("set", "global", k);
	if (!op)
		return nomem(p);
	rc = cf_op_set_str(op, "name", cf_globals[g].name);
	rc = rc ? rc : cf_op_set_u32(op, "value", u);
	return push(p, op, rc);
}

static int sec_global(struct ps *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	const yaml_node_pair_t *pr;
	int rc;

	if (is_null(v))
		return 0;
	rc = check_map(p, v, "global", "global");
	for (pr = v->data.mapping.pairs.start; !rc && pr < v->data.mapping.pairs.top; pr++) {
		yaml_node_t *gk = node(p, pr->key);
		const char *name = sval(gk);
		int g = cf_global_lookup(name);

		/* lnd_timeout is derived (transaction_timeout over retries): shown, not set. */
		if (!strcmp(name, "lnd_timeout") || !strcmp(name, "seq_no"))
			continue;
		if (g < 0)
			return fail(p, gk, name, "not a global setting");
		rc = set_global(p, gk, (size_t)g, node(p, pr->value));
	}
	return rc;
}

static int h_numa_range(struct ps *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	return set_global(p, k, (size_t)cf_global_lookup("numa_range"), v);
}

static const struct keydef numa_keys[] = {
	{"range", h_numa_range},
	{"seq_no", NULL},
	{NULL, NULL},
};

static int sec_numa(struct ps *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	return walk_map(p, v, "numa", "numa", numa_keys, NULL);
}

static int h_check_u32(struct ps *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	uint32_t u;
	bool dflt;

	return get_u32(p, sval(k), v, &u, &dflt);
}

static const struct keydef routing_keys[] = {
	{"enable", h_check_u32},
	{"seq_no", NULL},
	{NULL, NULL},
};

/* Lustre's show prints routing as a list: "- cpt[N]: {buffer pools}" and "- enable: N". */
static int do_routing_item(struct ps *p, yaml_node_t *item, void *st)
{
	const yaml_node_pair_t *pr;
	int rc = check_map(p, item, "routing", "routing");

	for (pr = item->data.mapping.pairs.start; !rc && pr < item->data.mapping.pairs.top; pr++) {
		yaml_node_t *k = node(p, pr->key);

		if (!strcmp(sval(k), "enable"))
			rc = h_check_u32(p, k, node(p, pr->value), NULL);
		else if (strncmp(sval(k), "cpt[", 4))
			rc = fail(p, k, sval(k), "unknown key in routing");
	}
	return rc;
}

static int sec_routing(struct ps *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	int rc;

	if (is_null(v))
		return 0;
	if (v->type == YAML_SEQUENCE_NODE)
		rc = walk_seq(p, v, "routing", "routing entries", do_routing_item, NULL);
	else
		rc = walk_map(p, v, "routing", "routing", routing_keys, NULL);
	return rc ? rc : warning_at(p, k, "routing: not acted on by lnetd");
}

static const struct keydef buffers_keys[] = {
	{"tiny", h_check_u32}, {"small", h_check_u32}, {"large", h_check_u32},
	{"seq_no", NULL},      {NULL, NULL},
};

static int sec_buffers(struct ps *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	int rc;

	if (is_null(v))
		return 0;
	rc = walk_map(p, v, "buffers", "buffers", buffers_keys, NULL);
	return rc ? rc : warning_at(p, k, "buffers: not acted on by lnetd");
}

static int sec_net(struct ps *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	return walk_seq(p, v, "net", "nets", do_net, NULL);
}

static int sec_ip2nets(struct ps *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	return walk_seq(p, v, "ip2nets", "ip2nets rules", do_ip2nets, NULL);
}

static int sec_peer(struct ps *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	return walk_seq(p, v, "peer", "peers", do_peer, NULL);
}

static int sec_route(struct ps *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	return walk_seq(p, v, "route", "routes", do_route, NULL);
}

static int sec_udsp(struct ps *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	return walk_seq(p, v, "udsp", "UDSP rules", do_udsp, NULL);
}

/* ---------------------------------------------------------------------- */
/* tbf: (lnetd's; Lustre keeps NRS TBF in lctl set_param, not in lnet.conf) */
/* ---------------------------------------------------------------------- */

struct tbf_spec {
	yaml_node_t *service, *queue, *type, *depth_key;
	uint32_t depth;
	struct nodes rules;
	bool has_rules, shown; /* shown: tbf show's entries, in match order */
};

static int h_tbf_str(struct ps *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	struct tbf_spec *s = st;
	const char *str;
	int rc = get_str(p, sval(k), v, &str);

	if (rc)
		return rc;
	if (!strcmp(sval(k), "service"))
		s->service = v;
	else if (!strcmp(sval(k), "queue")) {
		if (strcmp(str, "reg") && strcmp(str, "hp"))
			return fail(p, v, "queue", "'%s' is neither reg nor hp", str);
		s->queue = v;
	} else
		s->type = v;
	return 0;
}

static int h_tbf_depth(struct ps *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	struct tbf_spec *s = st;

	s->depth_key = k;
	return get_u32(p, "depth", v, &s->depth, NULL);
}

/* A rule as text, or as tbf show prints it: {name, rule, rate, ..., stats}. */
static const struct keydef tbf_shown_rule_keys[] = {
	{"name", NULL},	   {"rule", NULL},  {"rate", NULL}, {"realtime", NULL},
	{"classes", NULL}, {"stats", NULL}, {NULL, NULL},
};

static int do_tbf_rule(struct ps *p, yaml_node_t *item, void *st)
{
	struct tbf_spec *s = st;
	const yaml_node_pair_t *pr;
	const char *str;
	int rc;

	if (item->type == YAML_MAPPING_NODE) {
		rc = walk_map(p, item, "rules", "a TBF rule", tbf_shown_rule_keys, NULL);
		for (pr = item->data.mapping.pairs.start; !rc && pr < item->data.mapping.pairs.top;
		     pr++)
			if (!strcmp(sval(node(p, pr->key)), "rule")) {
				s->shown = true;
				rc = get_str(p, "rule", node(p, pr->value), &str);
				return rc ? rc : nodes_push(p, &s->rules, node(p, pr->value));
			}
		return rc ? rc : fail(p, item, "rule", "missing in a TBF rule");
	}
	rc = get_str(p, "rules", item, &str);
	return rc ? rc : nodes_push(p, &s->rules, item);
}

static int h_tbf_rules(struct ps *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	struct tbf_spec *s = st;

	s->has_rules = true;
	return walk_seq(p, v, "rules", "TBF rules", do_tbf_rule, st);
}

static const struct keydef tbf_keys[] = {
	{"service", h_tbf_str}, {"queue", h_tbf_str},	{"type", h_tbf_str},
	{"depth", h_tbf_depth}, {"rules", h_tbf_rules}, {"classes", NULL}, /* tbf show -v */
	{NULL, NULL},
};

static int do_tbf(struct ps *p, yaml_node_t *item, void *st)
{
	struct tbf_spec s = {0};
	struct cf_op *op;
	size_t i;
	int rc = walk_map(p, item, "tbf", "a TBF policy", tbf_keys, &s);

	if (!rc && !s.service)
		rc = fail(p, item, "service", "missing in a TBF policy");
	if (rc) {
		free(s.rules.v);
		return rc;
	}
	op = op_at(p->mode == CF_DEL ? "del" : "set", "tbf", item);
	rc = op ? cf_op_set_str(op, "service", sval(s.service)) : -ENOMEM;
	if (p->mode != CF_DEL) {
		const char **v = calloc(s.rules.n + 1, sizeof(*v));

		if (!rc)
			rc = cf_op_set_str(op, "queue", s.queue ? sval(s.queue) : "reg");
		if (!rc && s.type)
			rc = cf_op_set_str(op, "type", sval(s.type));
		if (!rc && s.depth_key)
			rc = cf_op_set_u32(op, "depth", s.depth);
		/* tbf show lists rules in match order; replaying goes last rule first. */
		for (i = 0; v && i < s.rules.n; i++)
			v[i] = sval(s.rules.v[s.shown ? s.rules.n - 1 - i : i]);
		if (!rc && s.has_rules)
			rc = v ? cf_op_set_strv(op, "rules", v, s.rules.n) : -ENOMEM;
		free(v);
	}
	free(s.rules.v);
	return push(p, op, rc);
}

static int sec_tbf(struct ps *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	return walk_seq(p, v, "tbf", "TBF policies", do_tbf, NULL);
}

/* ---------------------------------------------------------------------- */
/* peers: and selection: (the Multi-Rail design's forms)                   */
/* ---------------------------------------------------------------------- */

/*
 * A peer's nids: "nids: {0: a, 1: b}" or a list; or, as the design prints
 * its first examples, "- nids:" with the numbered NIDs at the same indent,
 * which YAML reads as siblings of an empty nids: (taken as meant).
 */
static int seed_peer_nids(struct ps *p, yaml_node_t *item, struct nodes *nids)
{
	const yaml_node_pair_t *pr;
	bool have_nids = false;
	const char *str;
	int rc = check_map(p, item, "peers", "a peer");

	for (pr = item->data.mapping.pairs.start; !rc && pr < item->data.mapping.pairs.top; pr++) {
		yaml_node_t *k = node(p, pr->key), *v = node(p, pr->value);
		const char *key = sval(k);

		if (!strcmp(key, "nids")) {
			have_nids = true;
			if (!is_null(v))
				rc = get_strs(p, k, v, nids);
		} else if (*key && strspn(key, "0123456789") == strlen(key)) {
			rc = get_str(p, key, v, &str);
			rc = rc ? rc : nodes_push(p, nids, v);
		} else if (strcmp(key, "seq_no")) {
			rc = fail(p, k, key, "unknown key in a peer");
		}
	}
	if (!rc && !have_nids)
		rc = fail(p, item, "nids", "missing in a peer");
	return rc;
}

/*
 * "- nids: {0: a, 1: b}": a peer with exactly these NIDs.  Importing it again
 * with another list refreshes the peer (set peer: NIDs added and removed to
 * match); with --del, the listed NIDs of the peer that has them go.
 */
static int do_seed_peer(struct ps *p, yaml_node_t *item, void *st)
{
	struct nodes nids = {0};
	const char **v = NULL;
	struct cf_op *op = NULL;
	size_t i;
	int rc = seed_peer_nids(p, item, &nids);

	if (!rc && !nids.n)
		rc = fail(p, item, "nids", "missing in a peer");
	if (!rc) {
		v = calloc(nids.n, sizeof(*v));
		op = op_at(p->mode == CF_DEL ? "del" : "set", "peer", item);
		rc = v && op ? cf_op_set_str(op, "primary", sval(nids.v[0])) : -ENOMEM;
		/* set: the others; del: all of them, the first too (it names the peer). */
		for (i = 0; v && i < nids.n; i++)
			v[i] = sval(nids.v[i]);
		if (!rc)
			rc = p->mode == CF_DEL ? cf_op_set_strv(op, "nids", v, nids.n)
					       : cf_op_set_strv(op, "nids", v + 1, nids.n - 1);
		rc = push(p, op, rc);
	}
	free(v);
	free(nids.v);
	return rc;
}

static int sec_peers(struct ps *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	return walk_seq(p, v, "peers", "peers", do_seed_peer, NULL);
}

struct sel_spec {
	yaml_node_t *type, *a, *a_key, *b;
	uint32_t prio, id;
	bool prio_set, id_set;
};

static int h_sel_str(struct ps *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	struct sel_spec *s = st;
	const char *key = sval(k), *str;
	int rc = get_str(p, key, v, &str);

	if (!strcmp(key, "type"))
		s->type = v;
	else if (!strcmp(key, "remote"))
		s->b = v;
	else if (s->a)
		return fail(p, k, key, "a selection rule names one of net, nid or local");
	else {
		s->a = v;
		s->a_key = k;
	}
	return rc;
}

static int h_sel_prio(struct ps *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	struct sel_spec *s = st;

	s->prio_set = true;
	return get_u32(p, "priority", v, &s->prio, NULL);
}

/* selection show prints the rule's id: under --del it must name the same rule as the
 * patterns (lnetd checks), as the design asks; an add ignores it. */
static int h_sel_id(struct ps *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	struct sel_spec *s = st;

	s->id_set = true;
	return get_u32(p, "id", v, &s->id, NULL);
}

static const struct keydef sel_keys[] = {
	{"type", h_sel_str},  {"net", h_sel_str},    {"nid", h_sel_str},
	{"local", h_sel_str}, {"remote", h_sel_str}, {"priority", h_sel_prio},
	{"id", h_sel_id}, /* selection show's */
	{"seq_no", NULL},     {NULL, NULL},
};

/*
 * "- type: net|nid|peer" with net:, nid:, or local: and remote:, and
 * priority: the UDSP rules lnetctl selection makes (cmd-select.c): a local
 * net or NID priority, or a NID pair.  --del finds the rule by its patterns.
 */
static int do_selection(struct ps *p, yaml_node_t *item, void *st)
{
	struct sel_spec s = {0};
	const char *type, *want;
	struct cf_op *op;
	int rc = walk_map(p, item, "selection", "a selection rule", sel_keys, &s);

	if (rc)
		return rc;
	if (!s.type)
		return fail(p, item, "type", "missing in a selection rule (net, nid or peer)");
	type = sval(s.type);
	want = !strcmp(type, "net") ? "net" : !strcmp(type, "nid") ? "nid" : "local";
	if (strcmp(type, "net") && strcmp(type, "nid") && strcmp(type, "peer"))
		return fail(p, s.type, "type", "'%s' is not net, nid or peer", type);
	if (!s.a)
		return fail(p, item, want, "missing in a %s selection rule", type);
	if (strcmp(sval(s.a_key), want))
		return fail(p, s.a_key, sval(s.a_key), "a %s selection rule takes %s:", type, want);
	if (!strcmp(type, "peer") != !!s.b)
		return fail(p, s.b ? s.b : item, "remote",
			    !strcmp(type, "peer") ? "missing in a peer selection rule"
						  : "only a peer selection rule has one");
	if (p->mode == CF_ADD && !s.prio_set)
		return fail(p, item, "priority", "missing in a selection rule");
	op = op_at(verb(p), "udsp", item);
	rc = op ? cf_op_set_str(op, "src", sval(s.a)) : -ENOMEM;
	if (!rc && s.b)
		rc = cf_op_set_str(op, "dst", sval(s.b));
	if (!rc && p->mode == CF_ADD)
		rc = cf_op_set_u32(op, "priority", s.prio);
	if (!rc && p->mode == CF_DEL && s.id_set)
		rc = cf_op_set_u32(op, "idx", s.id);
	/* The rule must be the kind the entry says (lnetd refuses another). */
	if (!rc && p->mode == CF_ADD)
		rc = cf_op_set_str(op, "kind",
				   !strcmp(type, "net")	  ? "local net priority"
				   : !strcmp(type, "nid") ? "local NID priority"
							  : "NID pair");
	return push(p, op, rc);
}

static int sec_selection(struct ps *p, yaml_node_t *k, yaml_node_t *v, void *st)
{
	return walk_seq(p, v, "selection", "selection rules", do_selection, NULL);
}

static const struct keydef top_keys[] = {
	{"net", sec_net},     {"ip2nets", sec_ip2nets}, {"peer", sec_peer},
	{"route", sec_route}, {"udsp", sec_udsp},	{"global", sec_global},
	{"numa", sec_numa},   {"routing", sec_routing}, {"buffers", sec_buffers},
	{"tbf", sec_tbf},     {"peers", sec_peers},	{"selection", sec_selection},
	{"statistics", NULL}, /* lnetctl export's counters */
	{NULL, NULL},
};

/* ---------------------------------------------------------------------- */
/* Parsing: the document                                                   */
/* ---------------------------------------------------------------------- */

static int yaml_error(struct ps *p, const yaml_parser_t *yp, const char *text, size_t len)
{
	size_t i, line = 1, col = 1;

	if (yp->error == YAML_MEMORY_ERROR)
		return nomem(p);
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

static int event_anchor(struct ps *p, const yaml_event_t *ev)
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

static int too_deep(struct ps *p, const yaml_mark_t *m)
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
static int precheck_tokens(struct ps *p, const char *text, size_t len)
{
	yaml_parser_t yp;
	yaml_token_t tok;
	size_t depth = 0, directives = 0;
	bool end = false;
	int rc = 0;

	if (!yaml_parser_initialize(&yp))
		return nomem(p);
	yaml_parser_set_input_string(&yp, (const unsigned char *)text, len);
	while (!rc && !end) {
		if (!yaml_parser_scan(&yp, &tok)) {
			rc = yp.error == YAML_MEMORY_ERROR ? nomem(p) : 0;
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

/*
 * The bounds (conf.h), in passes that stop at the first one broken, before
 * the loader builds anything: the tokens (above), then libyaml's events.
 * Each is linear in what it reads; libyaml's cost is not linear in
 * nesting, so both stop as soon as the nesting passes the bound.  An alias
 * is refused where it or its anchor stands: the loader would share the
 * aliased node, and a few lines of aliases of aliases make a document
 * that expands exponentially when walked.
 */
static int precheck(struct ps *p, const char *text, size_t len)
{
	yaml_parser_t yp;
	yaml_event_t ev;
	size_t depth = 0, docs = 0;
	bool end = false;
	int rc = 0;

	if (len > CF_MAX_BYTES) {
		if (p->errlen)
			snprintf(
				p->err, p->errlen,
				"%s: %zu bytes, above the limit of %u bytes (%u MiB) for lnet.conf",
				p->fname, len, CF_MAX_BYTES, CF_MAX_BYTES >> 20);
		return -EINVAL;
	}
	rc = precheck_tokens(p, text, len);
	if (rc)
		return rc;
	if (!yaml_parser_initialize(&yp))
		return nomem(p);
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
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&yp);
	return rc;
}

/* Load the one document of the stream into *@yd (deleted by the caller on success). */
static int load(struct ps *p, const char *text, size_t len, yaml_document_t *yd)
{
	yaml_parser_t yp;
	yaml_document_t more;
	int rc = 0;

	if (!yaml_parser_initialize(&yp))
		return nomem(p);
	yaml_parser_set_input_string(&yp, (const unsigned char *)text, len);
	if (!yaml_parser_load(&yp, yd)) {
		rc = yaml_error(p, &yp, text, len);
		yaml_parser_delete(&yp);
		return rc;
	}
	if (!yaml_parser_load(&yp, &more)) {
		rc = yaml_error(p, &yp, text, len);
	} else {
		if (yaml_document_get_root_node(&more))
			rc = fail(p, yaml_document_get_root_node(&more), NULL,
				  "a second YAML document: lnet.conf has one");
		yaml_document_delete(&more);
	}
	yaml_parser_delete(&yp);
	if (rc)
		yaml_document_delete(yd);
	return rc;
}

/* Move the ops into @doc in canonical order (see conf.h); warnings as they came. */
static int finish(struct ps *p, struct cf_doc *doc)
{
	if (cf_doc_sort(&p->out, p->mode))
		return nomem(p);
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
	struct ps p = {.fname = fname ? fname : "-", .mode = mode, .err = err, .errlen = errlen};
	yaml_document_t yd;
	yaml_node_t *root;
	int rc;

	memset(doc, 0, sizeof(*doc));
	if (errlen)
		err[0] = '\0';
	rc = precheck(&p, text, len);
	if (!rc)
		rc = load(&p, text, len, &yd);
	if (rc)
		return rc;
	p.yd = &yd;
	root = yaml_document_get_root_node(&yd);
	if (root && !is_null(root)) {
		if (root->type != YAML_MAPPING_NODE)
			rc = fail(&p, root, NULL,
				  "expected a mapping of sections (net, peer, route, ...), got %s",
				  kind(&p, root));
		else
			rc = walk_map(&p, root, NULL, "the top level", top_keys, NULL);
	}
	rc = rc ? rc : finish(&p, doc);
	cf_doc_free(&p.out);
	yaml_document_delete(&yd);
	return rc;
}
