// SPDX-License-Identifier: GPL-2.0
/*
 * expr-parse.c - parsing NID expressions into their canonical form.
 *
 * The grammar and the canonical form are described in expr.h.  Parsing
 * builds the items and their ranges in two growing arrays, normalises every
 * range list as soon as it is complete, and finally sorts the items by
 * their printed text, compacting both arrays.  Nothing here recurses.
 */
#include "expr-int.h"
#include "text.h"

struct parser {
	const char *in; /* the whole input, quoted in errors */
	struct lne_err *err;
	struct lne_expr *e;
	u16 cap_pat, cap_range;
};

static int fail(struct parser *p, const char *at, const char *fmt, ...) lne_printf(3, 4);

static int fail(struct parser *p, const char *at, const char *fmt, ...)
{
	char sentence[LNE_ERR_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(sentence, sizeof(sentence), fmt, ap);
	va_end(ap);
	return lne_err_set(p->err, -EINVAL, p->in, (int)(at - p->in), "%s", sentence);
}

static const char *span_chr(struct lne_span s, char c)
{
	return s.n ? memchr(s.p, c, s.n) : NULL;
}

static struct lne_span span_from(const char *from, const char *to)
{
	return (struct lne_span){from, (size_t)(to - from)};
}

static int expr_add_range(struct parser *p, u32 lo, u32 hi, u32 step)
{
	struct lne_expr *e = p->e;

	if (e->nrange == p->cap_range) {
		u16 cap = p->cap_range ? (u16)(p->cap_range * 2) : 16;
		struct lne_range *r;

		if (p->cap_range >= LNE_EXPR_MAX_RANGES)
			return fail(p, p->in, "more than %u ranges", LNE_EXPR_MAX_RANGES);
		r = lne_realloc_array(e->range, cap, sizeof(*r));
		if (!r)
			return -ENOMEM;
		e->range = r;
		p->cap_range = cap;
	}
	e->range[e->nrange++] = (struct lne_range){lo, hi, step};
	return 0;
}

/*
 * Lustre reads the numbers of an expression as C does (strtoul base 0):
 * "010" is octal 8 there, "08" no number at all.  The same rule file must
 * not name other NIDs here, so a decimal number of two or more digits that
 * starts with 0 is refused, with what Lustre would read.  @t is all digits
 * (or "0x..." hexadecimal, which is unaffected).
 */
static int refuse_leading_zero(struct parser *p, struct lne_span t)
{
	bool octal = true;
	u64 oct = 0;
	size_t i, z;

	if (t.n < 2 || t.p[0] != '0' || !lne_isdigit(t.p[1]))
		return 0;
	for (i = 0; i < t.n; i++) {
		octal = octal && t.p[i] <= '7' && oct <= U32_MAX;
		oct = oct * 8 + (u64)(t.p[i] - '0');
	}
	octal = octal && oct <= U32_MAX;
	for (z = 0; z + 1 < t.n && t.p[z] == '0'; z++)
		;
	/* Where octal and decimal agree (01..07, 00), only the spelling is off. */
	if (octal && (t.n - z > 1 || t.p[z] > '7'))
		return fail(p, t.p,
			    "'%.*s' has a leading zero, which Lustre reads as octal (%u): "
			    "write %u or %.*s",
			    (int)t.n, t.p, (u32)oct, (u32)oct, (int)(t.n - z), t.p + z);
	if (octal)
		return fail(p, t.p,
			    "'%.*s' has a leading zero, which Lustre reads as octal: write %.*s",
			    (int)t.n, t.p, (int)(t.n - z), t.p + z);
	return fail(p, t.p,
		    "'%.*s' has a leading zero, which makes it octal in Lustre, where it is no "
		    "number: write %.*s",
		    (int)t.n, t.p, (int)(t.n - z), t.p + z);
}

/* Each dot-separated part of a dotted quad already parsed, as above. */
static int refuse_leading_zeros_ip4(struct parser *p, struct lne_span a)
{
	const char *q = a.p, *end = a.p + a.n;
	int rc;

	while (q < end) {
		const char *dot = memchr(q, '.', (size_t)(end - q));
		const char *stop = dot ? dot : end;

		rc = refuse_leading_zero(p, span_from(q, stop));
		if (rc)
			return rc;
		q = stop + 1;
	}
	return 0;
}

/* "n", "n-m", "n-m/s" (each bound at most @max) or "*". */
static int parse_range(struct parser *p, struct lne_span s, u32 max, bool hex)
{
	const char *dash, *slash, *end;
	struct lne_span parts[3];
	u32 v[3] = {0, 0, 1};
	int i, nparts, rc;

	s = lne_span_trim(s);
	if (!s.n)
		return fail(p, s.p, "empty range in list");
	/* "[*]", "[1,*]": every number, as Lustre reads a '*' in a list. */
	if (s.n == 1 && s.p[0] == '*')
		return expr_add_range(p, 0, max, 1);
	end = s.p + s.n;
	dash = span_chr(s, '-');
	slash = span_chr(s, '/');
	if (slash && (!dash || slash < dash))
		return fail(p, s.p, "'%.*s' has a stride but no range (write n-m/stride)", (int)s.n,
			    s.p);
	parts[0] = span_from(s.p, dash ? dash : end);
	nparts = 1;
	if (dash) {
		parts[nparts++] = span_from(dash + 1, slash ? slash : end);
		if (slash)
			parts[nparts++] = span_from(slash + 1, end);
	}
	for (i = 0; i < nparts; i++) {
		struct lne_span t = lne_span_trim(parts[i]);

		if (!t.n)
			return fail(p, s.p, "'%.*s' is not a number or range", (int)s.n, s.p);
		rc = lne_parse_u32(t, hex && i < 2, i < 2 ? max : U32_MAX, &v[i]);
		if (rc == -ERANGE && i == 2)
			return fail(p, t.p, "stride %.*s is too large", (int)t.n, t.p);
		if (rc == -ERANGE)
			return fail(p, t.p, "%.*s is above the maximum %u", (int)t.n, t.p, max);
		if (rc)
			return fail(p, t.p, "'%.*s' is not a number", (int)t.n, t.p);
		rc = refuse_leading_zero(p, t);
		if (rc)
			return rc;
	}
	if (nparts == 1)
		v[1] = v[0];
	if (v[0] > v[1])
		return fail(p, s.p, "range start %u is above its end %u", v[0], v[1]);
	if (!v[2])
		return fail(p, parts[2].p, "stride 0 is not allowed");
	return expr_add_range(p, v[0], v[1], v[2]);
}

static int cmp_range(const void *a, const void *b)
{
	const struct lne_range *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	if (x->hi != y->hi)
		return x->hi < y->hi ? -1 : 1;
	if (x->step != y->step)
		return x->step < y->step ? -1 : 1;
	return 0;
}

static bool contained(const struct lne_range *r, const struct lne_range *in)
{
	return in->step == 1 && in->lo <= r->lo && r->hi <= in->hi;
}

/* Bring the list @l to canonical form over 0..@max; see expr.h. */
static void normalize(struct parser *p, struct lne_rlist *l, u32 max)
{
	struct lne_range *r = p->e->range + l->first; /* l->count >= 1: not NULL */
	u16 n = l->count, out = 0, i, j;
	int run = -1; /* the stride-1 range being extended */

	for (i = 0; i < n; i++) {
		if (r[i].step > 1)
			r[i].hi = r[i].lo + (r[i].hi - r[i].lo) / r[i].step * r[i].step;
		if (r[i].lo == r[i].hi)
			r[i].step = 1;
	}
	lne_sort(r, n, sizeof(*r), cmp_range);
	for (i = 0; i < n; i++) {
		if (r[i].step == 1 && run >= 0 && (u64)r[i].lo <= (u64)r[run].hi + 1) {
			if (r[i].hi > r[run].hi)
				r[run].hi = r[i].hi;
			continue;
		}
		if (out && !cmp_range(&r[i], &r[out - 1]))
			continue;
		if (r[i].step == 1)
			run = out;
		r[out++] = r[i];
	}
	/* Strided ranges swallowed by a (possibly extended) stride-1 range. */
	n = out;
	out = 0;
	for (i = 0; i < n; i++) {
		bool drop = false;

		for (j = 0; j < n && r[i].step > 1 && !drop; j++)
			drop = contained(&r[i], &r[j]);
		if (!drop)
			r[out++] = r[i];
	}
	lne_sort(r, out, sizeof(*r), cmp_range);
	if (out == 1 && r[0].lo == 0 && r[0].hi == max && r[0].step == 1)
		out = 0;
	l->count = out;
}

/*
 * A number list over 0..@max: "*", a range, or "[range, ...]".  @l is left
 * covering the ranges added, in canonical form.
 */
static int parse_list(struct parser *p, struct lne_span s, u32 max, bool hex, struct lne_rlist *l)
{
	u16 first = p->e->nrange;
	int rc;

	l->first = first;
	l->count = 0;
	if (s.n == 1 && s.p[0] == '*')
		return 0;
	if (s.n && s.p[0] == '[') {
		const char *end, *q;

		if (s.p[s.n - 1] != ']')
			return fail(p, s.p, "missing ']' in '%.*s'", (int)s.n, s.p);
		s = (struct lne_span){s.p + 1, s.n - 2};
		if (!lne_span_trim(s).n)
			return fail(p, s.p, "empty list '[]'");
		end = s.p + s.n;
		for (q = s.p; q <= end;) {
			const char *comma = memchr(q, ',', (size_t)(end - q));
			const char *stop = comma ? comma : end;

			rc = parse_range(p, span_from(q, stop), max, hex);
			if (rc)
				return rc;
			q = stop + 1;
		}
	} else {
		if (span_chr(s, '[') || span_chr(s, ']') || span_chr(s, '*'))
			return fail(p, s.p, "'%.*s' is not a number, range or list", (int)s.n, s.p);
		rc = parse_range(p, s, max, hex);
		if (rc)
			return rc;
	}
	l->count = (u16)(p->e->nrange - first);
	normalize(p, l, max);
	return 0;
}

static int parse_netpat(struct parser *p, struct lne_span s, struct lne_pat *pat)
{
	struct lne_span rest;
	size_t name_len = 0;
	int type;

	type = lne_lnd_lookup(s.p, s.n, &name_len);
	if (type < 0) {
		size_t n = 0;

		while (n < s.n && s.p[n] != '[' && s.p[n] != '*')
			n++;
		return lne_err_unknown_lnd(p->err, p->in, (int)(s.p - p->in), s.p, n);
	}
	pat->lnd = (u8)type;
	rest = (struct lne_span){s.p + name_len, s.n - name_len};
	if (!rest.n) {
		pat->net.first = p->e->nrange;
		pat->net.count = 1;
		return expr_add_range(p, 0, 0, 1);
	}
	/* A number, '*' or a bracketed list; a bare range would read as a
	 * net name followed by junk ("tcp1-3"), so it must be bracketed. */
	if (rest.p[0] != '*' && rest.p[0] != '[') {
		size_t i;

		for (i = 0; i < rest.n; i++)
			if (!lne_isdigit(rest.p[i]))
				return fail(p, rest.p,
					    "network number '%.*s' is not a number, '*' or [list]",
					    (int)rest.n, rest.p);
	}
	if (type == LNE_LND_LO && !(rest.n == 1 && rest.p[0] == '0'))
		return fail(p, rest.p, "network number of lo must be 0");
	return parse_list(p, rest, LNE_NETNUM_MAX, false, &pat->net);
}

static int parse_ip4_cidr(struct parser *p, struct lne_span s, const char *slash,
			  struct lne_pat *pat)
{
	struct lne_span len_s = span_from(slash + 1, s.p + s.n);
	int i, rc;
	u8 a[4];
	u32 len;

	if (lne_parse_ip4(span_from(s.p, slash), a))
		return fail(p, s.p, "'%.*s' is not an IPv4 address", (int)(slash - s.p), s.p);
	if (lne_parse_u32(len_s, false, 32, &len))
		return fail(p, len_s.p, "prefix length '%.*s' is above 32 or not a number",
			    (int)len_s.n, len_s.p);
	rc = refuse_leading_zeros_ip4(p, span_from(s.p, slash));
	if (!rc)
		rc = refuse_leading_zero(p, len_s);
	if (rc)
		return rc;
	/* Host bits are masked off ("10.0.0.1/24" is 10.0.0.0/24), as Lustre does. */
	pat->kind = LNE_PAT_IP4;
	for (i = 0; i < 4; i++) {
		u32 bits = len > 8u * i ? len - 8u * i : 0;
		u8 m = bits >= 8 ? 0xff : (u8)(0xff << (8 - bits));

		pat->a.oct[i].first = p->e->nrange;
		pat->a.oct[i].count = 1;
		rc = expr_add_range(p, a[i] & m, (a[i] & m) | (u8)~m, 1);
		if (rc)
			return rc;
		normalize(p, &pat->a.oct[i], EXPRI_OCTET_MAX);
	}
	return 0;
}

/* The next '.' outside brackets, or NULL. */
static const char *next_dot(const char *q, const char *end)
{
	int depth = 0;

	for (; q < end; q++) {
		if (*q == '[')
			depth++;
		else if (*q == ']')
			depth--;
		else if (*q == '.' && !depth)
			return q;
	}
	return NULL;
}

static int parse_ip4_pat(struct parser *p, struct lne_span s, struct lne_pat *pat)
{
	const char *q, *end = s.p + s.n, *slash = span_chr(s, '/');
	int part, rc;

	/* "a.b.c.d/len" is CIDR; "a.b.c.1-9/2" and "[1-9/2]" are strides. */
	if (slash && !span_chr(s, '[') && !span_chr(s, '-') && !span_chr(s, '*'))
		return parse_ip4_cidr(p, s, slash, pat);

	pat->kind = LNE_PAT_IP4;
	for (q = s.p, part = 0; part < 4; part++) {
		const char *dot = next_dot(q, end);
		const char *stop = dot ? dot : end;

		if ((part < 3) != (dot != NULL) || q == stop)
			return fail(
				p, s.p,
				"'%.*s' is not an IPv4 address pattern (four dot-separated parts expected)",
				(int)s.n, s.p);
		rc = parse_list(p, span_from(q, stop), EXPRI_OCTET_MAX, false, &pat->a.oct[part]);
		if (rc)
			return rc;
		q = stop + 1;
	}
	return 0;
}

static int parse_ip6_pat(struct parser *p, struct lne_span s, struct lne_pat *pat)
{
	const char *slash = span_chr(s, '/');
	struct lne_span a = span_from(s.p, slash ? slash : s.p + s.n);
	u32 len = 128, i;

	if (lne_parse_ip6(a, pat->a.ip6))
		return fail(
			p, s.p,
			"'%.*s' is not an IPv6 address (IPv6 patterns take a /prefix, not ranges)",
			(int)a.n, a.p);
	if (slash) {
		struct lne_span l = span_from(slash + 1, s.p + s.n);

		if (lne_parse_u32(l, false, 128, &len))
			return fail(p, l.p, "prefix length '%.*s' is above 128 or not a number",
				    (int)l.n, l.p);
		if (refuse_leading_zero(p, l))
			return -EINVAL;
	}
	/* Host bits are masked off, as Lustre does (and as matching assumes). */
	for (i = len; i < 128; i++)
		pat->a.ip6[i / 8] &= (u8) ~(0x80 >> (i % 8));
	pat->kind = LNE_PAT_IP6;
	pat->prefix = (u8)len;
	return 0;
}

static int parse_addrpat(struct parser *p, struct lne_span s, struct lne_pat *pat)
{
	int rc;

	if (!s.n)
		return fail(p, s.p, "missing address before '@'");
	if (s.n == 1 && s.p[0] == '*') {
		pat->kind = LNE_PAT_ANY;
		return 0;
	}
	switch (lne_lnd_addr_class(pat->lnd)) {
	case LNE_AC_LO:
		if (!(s.n == 1 && s.p[0] == '0'))
			return fail(p, s.p, "lo takes only address 0 (or '*')");
		pat->kind = LNE_PAT_NUM;
		return parse_list(p, s, U32_MAX, false, &pat->a.num);
	case LNE_AC_NUM:
		pat->kind = LNE_PAT_NUM;
		rc = parse_list(p, s, U32_MAX, true, &pat->a.num);
		/* Every number is every address: the same as "*". */
		if (!rc && !pat->a.num.count)
			pat->kind = LNE_PAT_ANY;
		return rc;
	case LNE_AC_IP4:
		if (span_chr(s, ':'))
			return fail(p, s.p, "IPv6 addresses are not supported on %s",
				    lne_lnd_name(pat->lnd));
		return parse_ip4_pat(p, s, pat);
	case LNE_AC_IP:
		if (span_chr(s, ':'))
			return parse_ip6_pat(p, s, pat);
		return parse_ip4_pat(p, s, pat);
	}
	return -EINVAL;
}

static int parse_item(struct parser *p, struct lne_span s)
{
	const char *at = span_chr(s, '@'), *end = s.p + s.n;
	struct lne_expr *e = p->e;
	struct lne_pat *pat;
	int rc;

	if (e->npat == p->cap_pat) {
		u16 cap = p->cap_pat ? (u16)(p->cap_pat * 2) : 4;

		if (p->cap_pat >= LNE_EXPR_MAX_ITEMS)
			return fail(p, s.p, "more than %u items", LNE_EXPR_MAX_ITEMS);
		pat = lne_realloc_array(e->pat, cap, sizeof(*pat));
		if (!pat)
			return -ENOMEM;
		e->pat = pat;
		p->cap_pat = cap;
	}
	pat = &e->pat[e->npat];
	memset(pat, 0, sizeof(*pat));
	/* No LND name starts so: an address that lost its net. */
	if (!at && (lne_isdigit(s.p[0]) || s.p[0] == ':' || s.p[0] == '*' || s.p[0] == '['))
		return fail(p, s.p,
			    "missing '@network' after '%.*s' (an item without '@' is a net)",
			    (int)s.n, s.p);
	if (e->npat && (e->pat[0].kind == LNE_PAT_NET) != !at)
		return fail(p, s.p, "cannot mix networks and NID ranges in one expression");
	if (at && span_chr(span_from(at + 1, end), '@'))
		return fail(p, s.p, "'%.*s' has more than one '@'", (int)s.n, s.p);

	if (at) {
		rc = parse_netpat(p, span_from(at + 1, end), pat);
		if (!rc)
			rc = parse_addrpat(p, span_from(s.p, at), pat);
	} else {
		pat->kind = LNE_PAT_NET;
		rc = parse_netpat(p, s, pat);
	}
	if (rc)
		return rc;
	e->npat++;
	return 0;
}

static void copy_list(struct lne_range *dst, u16 *n, const struct lne_range *src,
		      struct lne_rlist *l)
{
	if (l->count)
		memcpy(dst + *n, src + l->first, l->count * sizeof(*dst));
	l->first = *n;
	*n = (u16)(*n + l->count);
}

/*
 * Sort the items by their text, drop duplicates, and pack the ranges the
 * survivors use (normalisation left holes behind).
 */
static int canonicalize(struct lne_expr *e)
{
	u16 *order = NULL, i, j, npat = 0, nrange = 0;
	size_t total = 0, cap = 0, *off = NULL;
	struct lne_range *ranges = NULL;
	struct lne_pat *pats = NULL;
	char *text = NULL;
	int rc = -ENOMEM;

	/* One item (most expressions) has nothing to sort: no text needed. */
	if (e->npat > 1) {
		for (i = 0; i < e->npat; i++)
			total += (size_t)expri_pat_format(e, &e->pat[i], NULL, 0) + 1;
		cap = total;
		text = lne_zalloc(cap);
		off = lne_zalloc(e->npat * sizeof(*off));
		if (!text || !off)
			goto out;
	}
	order = lne_zalloc(e->npat * sizeof(*order));
	pats = lne_zalloc(e->npat * sizeof(*pats));
	ranges = lne_zalloc((e->nrange ? e->nrange : 1) * sizeof(*ranges));
	if (!order || !pats || !ranges)
		goto out;
	for (i = 0, total = 0; i < e->npat; i++) {
		if (text) {
			off[i] = total;
			total +=
				(size_t)expri_pat_format(e, &e->pat[i], text + total, cap - total) +
				1;
		}
		order[i] = i;
	}
	/* Insertion sort: items are few, and this needs no sort context. */
	for (i = 1; i < e->npat; i++) {
		u16 k = order[i];

		for (j = i; j > 0 && strcmp(text + off[order[j - 1]], text + off[k]) > 0; j--)
			order[j] = order[j - 1];
		order[j] = k;
	}
	for (i = 0; i < e->npat; i++) {
		struct lne_pat pat = e->pat[order[i]];

		if (i && !strcmp(text + off[order[i]], text + off[order[i - 1]]))
			continue;
		copy_list(ranges, &nrange, e->range, &pat.net);
		if (pat.kind == LNE_PAT_IP4)
			for (j = 0; j < 4; j++)
				copy_list(ranges, &nrange, e->range, &pat.a.oct[j]);
		else if (pat.kind == LNE_PAT_NUM)
			copy_list(ranges, &nrange, e->range, &pat.a.num);
		pats[npat++] = pat;
	}
	lne_free(e->pat);
	lne_free(e->range);
	e->pat = pats;
	e->range = ranges;
	e->npat = npat;
	e->nrange = nrange;
	pats = NULL;
	ranges = NULL;
	rc = 0;
out:
	lne_free(text);
	lne_free(off);
	lne_free(order);
	lne_free(pats);
	lne_free(ranges);
	return rc;
}

int lne_expr_parse(const char *s, struct lne_expr **out, struct lne_err *err)
{
	struct parser p = {.in = s, .err = err};
	size_t len = strlen(s), i = 0;
	int rc;

	if (len > LNE_EXPR_MAX_LEN)
		return lne_err_set(err, -EINVAL, s, LNE_EXPR_MAX_LEN,
				   "expression is longer than %u characters", LNE_EXPR_MAX_LEN);
	p.e = lne_zalloc(sizeof(*p.e));
	if (!p.e)
		return -ENOMEM;
	for (;;) {
		size_t start;
		int depth = 0;

		while (i < len && lne_isspace(s[i]))
			i++;
		if (i == len)
			break;
		/* An item ends at whitespace outside brackets. */
		for (start = i; i < len && (depth || !lne_isspace(s[i])); i++) {
			if (s[i] == '[' && depth++) {
				rc = fail(&p, s + i, "nested '[' is not allowed");
				goto fail;
			}
			if (s[i] == ']' && --depth < 0) {
				rc = fail(&p, s + i, "']' without '['");
				goto fail;
			}
		}
		if (depth) {
			rc = fail(&p, s + start, "missing ']' in '%.*s'", (int)(i - start),
				  s + start);
			goto fail;
		}
		rc = parse_item(&p, (struct lne_span){s + start, i - start});
		if (rc)
			goto fail;
	}
	if (!p.e->npat) {
		rc = lne_err_set(err, -EINVAL, s, 0, "empty expression");
		goto fail;
	}
	rc = canonicalize(p.e);
	if (rc)
		goto fail;
	*out = p.e;
	return 0;
fail:
	lne_expr_free(p.e);
	return rc;
}

void lne_expr_free(struct lne_expr *e)
{
	if (!e)
		return;
	lne_free(e->pat);
	lne_free(e->range);
	lne_free(e);
}
