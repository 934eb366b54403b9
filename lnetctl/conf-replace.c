// SPDX-License-Identifier: GPL-2.0
/*
 * conf-replace.c - cf_replace(): the ops that make a configuration (lnetd's
 * Export) exactly a file's (lnetctl import --replace).
 *
 * Each object is known by a key (an NI by its net and interface, or net and
 * pattern; a peer by its primary NID; a route by its net and gateway; a TBF
 * queue by its service and queue; a global by its name), NIDs and nets in
 * the engine's canonical text, and compared by the rest of its fields (a
 * peer's NIDs as a set).  Both sides are sorted by key and merged, so the
 * cost is n log n in the objects, whatever the share that changed.  UDSP
 * rules are an ordered list: the same list in the same order changes
 * nothing, any other is deleted whole and the file's added.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf-int.h"
#include "engine/peer-attrs.h"

/* One object of either side: its key and the text of what it holds. */
struct item {
	char *key, *val;
	const struct cf_op *op;
	enum cf_rank rank;
	int mr; /* a peer's Multi-Rail: 0, 1, or -1 where the file leaves it out */
};

/* Every line of @want (a "k=v" per line) is one of @have's: what a TBF queue leaves out is lnetd's. */
static bool lines_in(const char *want, const char *have)
{
	const char *l, *nl, *h, *hn;
	bool found;

	for (l = want; *l; l = *nl ? nl + 1 : nl) {
		nl = strchrnul(l, '\n');
		found = false;
		for (h = have; *h && !found; h = *hn ? hn + 1 : hn) {
			hn = strchrnul(h, '\n');
			found = hn - h == nl - l && !strncmp(h, l, (size_t)(nl - l));
		}
		if (!found)
			return false;
	}
	return true;
}

/* Whether @w (sorted by key) has a TBF queue of service @svc. */
static bool has_service(const struct item *w, size_t nw, const char *svc)
{
	size_t i;

	for (i = 0; i < nw; i++)
		if (w[i].rank == CF_R_TBF && !strcmp(cf_op_get_str(w[i].op, "service") ?: "", svc))
			return true;
	return false;
}

static void canon_net(const char *s, char *buf, size_t len)
{
	struct lne_err err;
	lne_net_t net;

	if (lne_net_parse(s, &net, &err) || lne_net_format(net, buf, len) < 0)
		snprintf(buf, len, "%s", s);
}

static void canon_nid(const char *s, char *buf, size_t len)
{
	struct lne_err err;
	struct lne_nid nid;

	if (lne_nid_parse(s, &nid, &err) || lne_nid_format(&nid, buf, len) < 0)
		snprintf(buf, len, "%s", s);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_field(const void *a, const void *b)
{
	return strcmp((*(const struct cf_field *const *)a)->key,
		      (*(const struct cf_field *const *)b)->key);
}

static bool skipped(const char *key, const char *const *skip)
{
	for (; *skip; skip++)
		if (!strcmp(key, *skip))
			return true;
	return false;
}

/*
 * The fields of @op but those in @skip, sorted by key, as text; with @prim
 * (a peer's canonical primary NID), string lists are NIDs: canonical,
 * sorted, the primary left out (lnetd lists it apart).  Malloc'd, NULL
 * when out of memory.
 */
static char *op_val(const struct cf_op *op, const char *const *skip, const char *prim)
{
	const struct cf_field **f = calloc(op->nf + 1, sizeof(*f));
	char *buf = NULL, nid[LNE_NID_STR_MAX];
	size_t len = 0, i, k, n = 0;
	FILE *out = f ? open_memstream(&buf, &len) : NULL;
	int bad = !out;

	for (i = 0; out && i < op->nf; i++)
		if (!skipped(op->f[i].key, skip))
			f[n++] = &op->f[i];
	if (out)
		qsort(f, n, sizeof(*f), cmp_field);
	for (i = 0; out && !bad && i < n; i++) {
		const struct cf_val *v = &f[i]->val;

		fprintf(out, "%s=", f[i]->key);
		if (v->type == CF_STR) {
			fprintf(out, "%s\n", v->s);
		} else if (v->type == CF_U32) {
			fprintf(out, "%u\n", v->u);
		} else if (v->type == CF_BOOL) {
			fprintf(out, "%d\n", v->b);
		} else {
			char **sv = calloc(v->sv.n + 1, sizeof(*sv));
			size_t m = 0;

			for (k = 0; sv && !bad && k < v->sv.n; k++) {
				if (prim)
					canon_nid(v->sv.v[k], nid, sizeof(nid));
				if (prim && !strcmp(nid, prim))
					continue;
				sv[m] = strdup(prim ? nid : v->sv.v[k]);
				if (!sv[m++])
					bad = 1;
			}
			if (!sv)
				bad = 1;
			else if (!bad && prim)
				qsort(sv, m, sizeof(*sv), cmp_str);
			for (k = 0; sv && !bad && k < m; k++)
				fprintf(out, "%s%s", k ? "," : "", sv[k]);
			fputc('\n', out);
			for (k = 0; sv && k < m; k++)
				free(sv[k]);
			free(sv);
		}
	}
	free(f);
	if (out && (ferror(out) | fclose(out)))
		bad = 1;
	if (bad) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* A route's settings, each the default where @op leaves it out. */
static char *route_val(const struct cf_op *op)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	uint32_t u;
	int k;

	if (!out)
		return NULL;
	for (k = 0; k < LNE_ROUTE_A__COUNT; k++)
		fprintf(out, "%s=%u\n", lne_route_desc[k].name,
			cf_op_get_u32(op, lne_route_desc[k].name, &u) ? u : lne_route_desc[k].def);
	if (ferror(out) | fclose(out)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* @it's key and value from @op (an add or set of the vocabulary); -ENOMEM, or 1 to skip. */
static int item_of(const struct cf_op *op, struct item *it)
{
	static const char *const net_skip[] = {"net", "interface", NULL};
	/* a peer's settings are compared apart (Multi-Rail) or not at all (YAML has no key) */
#define PEER_SKIP(id, name, ...) #name,
	static const char *const peer_skip[] = {"primary", LNE_PEER_ATTRS(PEER_SKIP) NULL};
#undef PEER_SKIP
	static const char *const tbf_skip[] = {"service", "queue", NULL};
	static const char *const global_skip[] = {"name", NULL};
	char a[LNE_NID_STR_MAX], b[LNE_NID_STR_MAX];
	const char *s1 = NULL, *s2 = NULL;
	bool mr;
	int n = -1;

	memset(it, 0, sizeof(*it));
	it->op = op;
	it->rank = cf_op_rank(op);
	switch (it->rank) {
	case CF_R_NET:
	case CF_R_IP2NETS:
		canon_net(cf_op_get_str(op, "net") ?: "", a, sizeof(a));
		s1 = cf_op_get_str(op, "interface");
		n = s1 ? asprintf(&it->key, "net %s i %s", a, s1)
		       : asprintf(&it->key, "net %s p %s", a, cf_op_get_str(op, "pattern") ?: "");
		it->val = op_val(op, s1 ? net_skip : (const char *const[]){"net", NULL}, NULL);
		break;
	case CF_R_PEER:
	case CF_R_PEERS:
		canon_nid(cf_op_get_str(op, "primary") ?: "", a, sizeof(a));
		n = asprintf(&it->key, "peer %s", a);
		it->val = op_val(op, peer_skip, a);
		/* Multi-Rail the file does not state is whatever lnetd has. */
		it->mr = cf_op_get_bool(op, "multi_rail", &mr) ? mr : -1;
		break;
	case CF_R_ROUTE:
		canon_net(cf_op_get_str(op, "net") ?: "", a, sizeof(a));
		canon_nid(cf_op_get_str(op, "gateway") ?: "", b, sizeof(b));
		n = asprintf(&it->key, "route %s %s", a, b);
		it->val = route_val(op);
		break;
	case CF_R_GLOBAL:
		n = asprintf(&it->key, "global %s", cf_op_get_str(op, "name") ?: "");
		it->val = op_val(op, global_skip, NULL);
		break;
	case CF_R_TBF:
		s1 = cf_op_get_str(op, "service");
		s2 = cf_op_get_str(op, "queue");
		if (strcmp(op->verb, "set") || !s1)
			return 1;
		n = asprintf(&it->key, "tbf %s %s", s1, s2 ?: "reg");
		it->val = op_val(op, tbf_skip, NULL);
		break;
	default: /* rules: compared as a list, below */
		return 1;
	}
	if (n < 0)
		it->key = NULL;
	return it->key && it->val ? 0 : -ENOMEM;
}

/* The @doc's objects as items sorted by key, rules left out. */
static int items_of(const struct cf_doc *doc, struct item **out, size_t *n)
{
	struct item *v = calloc(doc->nop + 1, sizeof(*v));
	size_t i;
	int rc = 0;

	*n = 0;
	if (!v)
		return -ENOMEM;
	for (i = 0; !rc && i < doc->nop; i++) {
		if (strcmp(doc->op[i].verb, "add") && strcmp(doc->op[i].verb, "set"))
			continue;
		rc = item_of(&doc->op[i], &v[*n]);
		if (rc == 1) {
			rc = 0;
		} else if (!rc) {
			(*n)++;
		} else {
			free(v[*n].key);
			free(v[*n].val);
		}
	}
	if (!rc)
		qsort(v, *n, sizeof(*v), cmp_str); /* key is the first member */
	*out = v;
	return rc;
}

static void items_free(struct item *v, size_t n)
{
	size_t i;

	for (i = 0; v && i < n; i++) {
		free(v[i].key);
		free(v[i].val);
	}
	free(v);
}

/* A copy of @op, where it came from included. */
static struct cf_op *op_copy(const struct cf_op *op)
{
	struct cf_op *c = cf_op_new(op->verb, op->obj);
	size_t i;
	int rc = c ? 0 : -ENOMEM;

	for (i = 0; !rc && i < op->nf; i++) {
		const struct cf_val *v = &op->f[i].val;

		rc = v->type == CF_STR	  ? cf_op_set_str(c, op->f[i].key, v->s)
		     : v->type == CF_U32  ? cf_op_set_u32(c, op->f[i].key, v->u)
		     : v->type == CF_BOOL ? cf_op_set_bool(c, op->f[i].key, v->b)
					  : cf_op_set_strv(c, op->f[i].key,
							   (const char *const *)v->sv.v, v->sv.n);
	}
	if (rc) {
		cf_op_free(c);
		return NULL;
	}
	c->line = op->line;
	c->col = op->col;
	return c;
}

/* The del that removes what @op (of lnetd's export) adds; NULL when out of memory. */
static struct cf_op *del_of(const struct cf_op *op)
{
	static const char *const keys[][3] = {
		[CF_R_NET] = {"net", "interface", "pattern"},
		[CF_R_IP2NETS] = {"net", "interface", "pattern"},
		[CF_R_PEER] = {"primary"},
		[CF_R_PEERS] = {"primary"},
		[CF_R_ROUTE] = {"net", "gateway"},
		[CF_R_TBF] = {"service"},
	};
	enum cf_rank r = cf_op_rank(op);
	struct cf_op *d = cf_op_new("del", op->obj);
	const char *s;
	size_t i;

	for (i = 0; d && i < 3 && keys[r][i]; i++) {
		/*
		 * An NI with an interface is named by it, whatever its pattern
		 * (a del naming both would look for an NI with none).
		 */
		if ((r == CF_R_NET || r == CF_R_IP2NETS) && i == 2 &&
		    cf_op_get_str(op, "interface"))
			break;
		s = cf_op_get_str(op, keys[r][i]);
		if (s && cf_op_set_str(d, keys[r][i], s)) {
			cf_op_free(d);
			d = NULL;
		}
	}
	return d;
}

/* Move *@op to the end of @out (it is left zeroed); 0 or -ENOMEM. */
static int move_op(struct cf_doc *out, struct cf_op *op)
{
	struct cf_op *m = malloc(sizeof(*m));

	if (!m)
		return -ENOMEM;
	*m = *op;
	memset(op, 0, sizeof(*op));
	return cf_doc_push(out, m);
}

static int push_copy(struct cf_doc *out, const struct cf_op *op)
{
	struct cf_op *c = op_copy(op);

	return c ? cf_doc_push(out, c) : -ENOMEM;
}

/*
 * The rules of @doc as texts without their idx (or kind), in the order lnetd
 * holds them: a file's rule with an idx goes there (the end when it is past
 * it), the others at the end, as the adds would place them; lnetd's export
 * lists them in order.
 */
static int rules_of(const struct cf_doc *doc, bool want, char ***out, size_t *n)
{
	static const char *const skip[] = {"idx", "kind", NULL};
	char **v = calloc(doc->nop + 1, sizeof(*v)), *t;
	size_t i, at;
	uint32_t idx;

	*n = 0;
	*out = v;
	if (!v)
		return -ENOMEM;
	for (i = 0; i < doc->nop; i++) {
		if (strcmp(doc->op[i].obj, "udsp") || strcmp(doc->op[i].verb, "add"))
			continue;
		t = op_val(&doc->op[i], skip, NULL);
		if (!t)
			return -ENOMEM;
		at = *n;
		if (want && cf_op_get_u32(&doc->op[i], "idx", &idx) && idx < *n)
			at = idx;
		memmove(v + at + 1, v + at, (*n - at) * sizeof(*v));
		v[at] = t;
		(*n)++;
	}
	return 0;
}

/* @text without its "priority=N" line, into @buf of @len bytes. */
static const char *no_priority(const char *text, char *buf, size_t len)
{
	const char *p, *nl;
	size_t at;

	if (!strncmp(text, "priority=", 9))
		at = 0;
	else if ((p = strstr(text, "\npriority=")))
		at = (size_t)(p - text) + 1;
	else
		return text;
	if (strlen(text) >= len)
		return text;
	nl = strchrnul(text + at, '\n');
	snprintf(buf, len, "%.*s%s", (int)at, text, *nl ? nl + 1 : nl);
	return buf;
}

/*
 * The same rules in the same order; a rule of the file without a priority
 * is the same as lnetd's whatever priority lnetd gave it (lnetd gives some
 * kinds of rule one of their own).
 */
static bool rules_same(char **a, size_t na, char **b, size_t nb)
{
	char buf[CF_MAX_SCALAR * 4];
	size_t i;

	if (na != nb)
		return false;
	for (i = 0; i < na; i++) {
		const char *hb = b[i];

		if (strncmp(a[i], "priority=", 9) && !strstr(a[i], "\npriority="))
			hb = no_priority(b[i], buf, sizeof(buf));
		if (strcmp(a[i], hb))
			return false;
	}
	return true;
}

static void strv_free(char **v, size_t n)
{
	size_t i;

	for (i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

int cf_replace(const struct cf_doc *want, const struct cf_doc *have, struct cf_doc *out)
{
	struct item *w = NULL, *h = NULL;
	char **wr = NULL, **hr = NULL;
	size_t nw = 0, nh = 0, nwr = 0, nhr = 0, i, k;
	struct cf_doc dels = {0}, adds = {0};
	const char *gone_tbf = NULL;
	bool *keep = NULL;
	int r, rc;

	rc = items_of(want, &w, &nw);
	if (!rc)
		rc = items_of(have, &h, &nh);
	if (!rc)
		rc = rules_of(want, true, &wr, &nwr);
	if (!rc)
		rc = rules_of(have, false, &hr, &nhr);
	keep = rc ? NULL : calloc(want->nop + 1, sizeof(*keep));
	if (!rc && !keep)
		rc = -ENOMEM;
	/* Merge by key: what only lnetd has goes, what differs goes and comes back. */
	for (i = 0, k = 0; !rc && (i < nw || k < nh);) {
		int c = i == nw ? 1 : k == nh ? -1 : strcmp(w[i].key, h[k].key);
		size_t wi = i < nw ? (size_t)(w[i].op - want->op) : 0;

		if (c < 0) { /* only in the file */
			keep[wi] = true;
			i++;
			continue;
		}
		if (c > 0) { /* only in lnetd: globals cannot go, they stay */
			const char *svc = cf_op_get_str(h[k].op, "service");
			/*
			 * A policy goes once, whichever of its queues came first, and
			 * not when the file has its other queue.
			 */
			bool dup =
				h[k].rank == CF_R_TBF && svc &&
				((gone_tbf && !strcmp(svc, gone_tbf)) || has_service(w, nw, svc));
			struct cf_op *d;

			if (h[k].rank != CF_R_GLOBAL && !dup) {
				d = del_of(h[k].op);
				rc = d ? cf_doc_push(&dels, d) : -ENOMEM;
				if (h[k].rank == CF_R_TBF)
					gone_tbf = svc;
			}
			k++;
			continue;
		}
		if (w[i].rank == CF_R_TBF
			    ? !lines_in(w[i].val, h[k].val)
			    : strcmp(w[i].val, h[k].val) || (w[i].mr >= 0 && w[i].mr != h[k].mr)) {
			keep[wi] = true;
			/* A set replaces; an add must follow a del of the old. */
			if (strcmp(w[i].op->verb, "set") || w[i].rank == CF_R_PEERS) {
				struct cf_op *d = del_of(h[k].op);

				rc = d ? cf_doc_push(&dels, d) : -ENOMEM;
			}
		}
		i++;
		k++;
	}
	if (!rc && !rules_same(wr, nwr, hr, nhr)) {
		struct cf_op *d = nhr ? cf_op_new("del", "udsp") : NULL;

		if (nhr)
			rc = !d || cf_op_set_bool(d, "all", true) ? -ENOMEM : cf_doc_push(&dels, d);
		for (i = 0; !rc && i < want->nop; i++)
			if (!strcmp(want->op[i].obj, "udsp"))
				keep[i] = true;
	}
	/* Dels in the order cf_doc_sort() gives --del: rules before routes before nets. */
	if (!rc)
		rc = cf_doc_sort(&dels, CF_DEL);
	for (i = 0; !rc && i < want->nop; i++)
		if (keep[i] || (strcmp(want->op[i].verb, "add") && strcmp(want->op[i].verb, "set")))
			rc = push_copy(&adds, &want->op[i]);
	for (i = 0; !rc && i < dels.nop; i++)
		rc = move_op(out, &dels.op[i]);
	for (i = 0; !rc && i < adds.nop; i++)
		rc = move_op(out, &adds.op[i]);
	r = rc;
	if (r)
		cf_doc_free(out);
	cf_doc_free(&dels);
	cf_doc_free(&adds);
	items_free(w, nw);
	items_free(h, nh);
	strv_free(wr, nwr);
	strv_free(hr, nhr);
	free(keep);
	return r;
}
