// SPDX-License-Identifier: GPL-2.0
/*
 * lu-udsp-code.c - a UDSP rule's three descriptors in lnet.ko's binary form
 * (lu-abi.h, struct lu_ioc_udsp_descr), from an engine rule and back to the
 * engine's grammar.  Pure functions: the unit tier checks them against
 * hand-built bytes and the fuzz target feeds the decoder anything.
 *
 * lnet.ko holds, per side, one pattern: an LND, a list of ranges for the
 * net number (none: net number 0) and either no address (a net rule) or
 * the address's expressions (four octets of ranges for IPv4, one list for
 * a numeric address); a range is lo, hi, stride.  So the engine's
 *   "tcp", "*@tcp"        net only          (the engine reads both as the net)
 *   "tcp1", "tcp[1-3]"    net number ranges
 *   "10.0.[1-4].*@tcp"    4 octets: {10}, {0}, {1-4}, {0-255}
 *   "12@gni"              one numeric list
 * and it cannot hold several patterns on one side ("tcp o2ib"), IPv6
 * patterns, nor a priority on a NID pair or router rule (it keeps those as
 * preferred lists only): refused, with the limit in the sentence.
 */
#include "lu-int.h"

#define TYPE_SRC       0x00435253u /* "SRC" as lnet.ko compares it: a little-endian u32 */
#define TYPE_DST       0x00545344u
#define TYPE_RTE       0x00455452u
#define ANY_NUM	       0xffffffffu /* "*" for a number, as lnet.ko's own parser writes it */
#define LU_UDSP_RANGES 64	   /* ranges in one list, both ways */

struct out {
	u8 *buf;
	size_t size, len;
};

static bool put(struct out *o, const void *p, size_t n)
{
	if (o->len + n > o->size)
		return false;
	memcpy(o->buf + o->len, p, n);
	o->len += n;
	return true;
}

static bool put_u32(struct out *o, u32 v)
{
	return put(o, &v, sizeof(v));
}

static bool put_range(struct out *o, u32 lo, u32 hi, u32 stride)
{
	struct lu_ioc_range r = {lo, hi, stride ? stride : 1};

	return put(o, &r, sizeof(r));
}

/* An expression's list: count 0 is "any" (0..@max). */
static bool put_list(struct out *o, const struct lne_expr *e, struct lne_rlist l, u32 max,
		     bool counted)
{
	u32 i;

	if (counted && !put_u32(o, l.count ? l.count : 1))
		return false;
	if (!l.count)
		return put_range(o, 0, max, 1);
	for (i = 0; i < l.count; i++) {
		const struct lne_range *r = &e->range[l.first + i];

		if (!put_range(o, r->lo, r->hi, r->step))
			return false;
	}
	return true;
}

/* Whether a list of @p has more ranges than the decoder reads back. */
static bool too_long(const struct lne_expr *e, const struct lne_pat *p)
{
	int i;

	(void)e;
	if (p->net.count > LU_UDSP_RANGES)
		return true;
	if (p->kind == LNE_PAT_NUM)
		return p->a.num.count > LU_UDSP_RANGES;
	if (p->kind == LNE_PAT_IP4)
		for (i = 0; i < 4; i++)
			if (p->a.oct[i].count > LU_UDSP_RANGES)
				return true;
	return false;
}

static int side(const struct lu *lu, const struct lne_expr *e, u32 type, struct out *o,
		struct lne_err *err)
{
	struct lu_ioc_udsp_descr d;
	const struct lne_pat *p;
	char *text;
	int rc = -EOPNOTSUPP;

	memset(&d, 0, sizeof(d));
	d.type = type;
	if (!e)
		return put(o, &d, sizeof(d)) ? 0 : -ENOSPC;
	text = lne_expr_text(e);
	if (e->npat != 1) {
		lne_err_set(
			err, rc, text, -1,
			"lnet.ko %s holds one NID pattern on each side of a rule: make one rule "
			"per pattern",
			lu->vname);
		goto out;
	}
	p = &e->pat[0];
	if (p->kind == LNE_PAT_IP6) {
		lne_err_set(err, rc, text, -1, "lnet.ko %s takes only IPv4 patterns in UDSP rules",
			    lu->vname);
		goto out;
	}
	d.net_type = p->lnd;
	/* net number 0 alone is the empty list, as lnet.ko's own "tcp" */
	if (p->net.count == 1 && e->range[p->net.first].lo == 0 && e->range[p->net.first].hi == 0)
		d.net_ranges = 0;
	else
		d.net_ranges = p->net.count ? p->net.count : 1;
	d.count = p->kind == LNE_PAT_IP4 ? 4 : p->kind == LNE_PAT_NUM ? 1 : 0;
	if (too_long(e, p)) {
		lne_err_set(err, rc, text, -1,
			    "lnet.ko's rules are read back with at most %u ranges in a list",
			    LU_UDSP_RANGES);
		goto out;
	}
	rc = -ENOSPC;
	if (!put(o, &d, sizeof(d)))
		goto out;
	if (d.net_ranges && !put_list(o, e, p->net, ANY_NUM, false))
		goto out;
	if (p->kind == LNE_PAT_IP4) {
		int i;

		for (i = 0; i < 4; i++)
			if (!put_list(o, e, p->a.oct[i], 255, true))
				goto out;
	} else if (p->kind == LNE_PAT_NUM && !put_list(o, e, p->a.num, ANY_NUM, true)) {
		goto out;
	}
	rc = 0;
out:
	if (rc == -ENOSPC)
		lne_err_set(err, rc, text, -1, "the rule is larger than one request holds");
	free(text);
	return rc;
}

int lu_udsp_encode(const struct lu *lu, const struct lne_rule *r, u8 *buf, size_t size,
		   struct lne_err *err)
{
	struct out o = {buf, size, 0};
	int rc;

	if ((r->kind == LNE_RULE_PAIR || r->kind == LNE_RULE_ROUTER) && r->prio != LNE_PRIO_NONE)
		return lne_err_set(err, -EOPNOTSUPP, NULL, -1,
				   "lnet.ko %s keeps no priority on a %s rule (only its preferred "
				   "list)",
				   lu->vname, r->kind == LNE_RULE_PAIR ? "NID pair" : "router");
	rc = side(lu, r->src, TYPE_SRC, &o, err);
	if (!rc)
		rc = side(lu, r->dst, TYPE_DST, &o, err);
	if (!rc)
		rc = side(lu, r->rte, TYPE_RTE, &o, err);
	return rc ? rc : (int)o.len;
}

/* --- decoding: lnet.ko's answer, checked at every step ------------------- */

struct in {
	const u8 *p;
	size_t left;
};

static bool get(struct in *in, void *v, size_t n)
{
	if (in->left < n)
		return false;
	memcpy(v, in->p, n);
	in->p += n;
	in->left -= n;
	return true;
}

struct text {
	char *buf;
	size_t size, len;
	bool over;
};

static void tprintf(struct text *t, const char *fmt, ...) lne_printf(2, 3);
static void tprintf(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (t->over)
		return;
	va_start(ap, fmt);
	n = vsnprintf(t->buf + t->len, t->size - t->len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= t->size - t->len)
		t->over = true;
	else
		t->len += n;
}

/* @n ranges of a number up to @max as the grammar writes them; "" for number 0 when @zero_empty. */
static int ranges_text(struct in *in, u32 n, u32 max, bool zero_empty, struct text *t)
{
	struct lu_ioc_range r[LU_UDSP_RANGES];
	u32 i;

	if (n > LU_UDSP_RANGES)
		return -EPROTO; /* more than the engine keeps readable, and than lnet.ko's parser makes */
	for (i = 0; i < n; i++) {
		if (!get(in, &r[i], sizeof(r[i])))
			return -EPROTO;
		if (r[i].lo > r[i].hi || !r[i].stride)
			return -EPROTO;
		/* beyond the domain only as lnet.ko writes "*": 0 to the largest number */
		if (r[i].hi > max && !(r[i].lo == 0 && r[i].hi == ANY_NUM))
			return -EPROTO;
	}
	if (n == 1 && r[0].lo == r[0].hi) {
		if (!(zero_empty && !r[0].lo))
			tprintf(t, "%u", r[0].lo);
		return 0;
	}
	if (n == 1 && r[0].lo == 0 && r[0].hi >= max && r[0].stride == 1) {
		tprintf(t, "*");
		return 0;
	}
	if (!max)
		return -EPROTO; /* 0@lo: nothing but 0 or "*" */
	tprintf(t, "[");
	for (i = 0; i < n; i++) {
		tprintf(t, "%s%u", i ? "," : "", r[i].lo);
		if (r[i].hi != r[i].lo)
			tprintf(t, "-%u", r[i].hi > max ? max : r[i].hi);
		if (r[i].stride != 1 && r[i].hi != r[i].lo)
			tprintf(t, "/%u", r[i].stride);
	}
	tprintf(t, "]");
	return 0;
}

static int side_decode(struct in *in, u32 type, char *buf, size_t size)
{
	struct lu_ioc_udsp_descr d;
	struct text t = {buf, size, 0, false}, net = {NULL, 0, 0, false};
	struct lne_expr *e;
	char nbuf[128];
	const char *lnd;
	int rc;

	buf[0] = '\0';
	if (!get(in, &d, sizeof(d)))
		return -EPROTO;
	if (!d.net_type)
		return 0; /* no such side */
	if (d.type != type)
		return -EPROTO;
	lnd = lne_lnd_name(d.net_type);
	if (!lnd)
		return -EPROTO;
	net.buf = nbuf;
	net.size = sizeof(nbuf);
	tprintf(&net, "%s", lnd);
	if (d.net_ranges) {
		rc = ranges_text(in, d.net_ranges, LNE_NETNUM_MAX, true, &net);
		if (rc)
			return rc;
	}
	switch (lne_lnd_addr_class(d.net_type)) {
	case LNE_AC_IP:
	case LNE_AC_IP4:
		if (d.count != 0 && d.count != 4)
			return -EPROTO;
		break;
	case LNE_AC_NUM:
	case LNE_AC_LO:
		if (d.count > 1)
			return -EPROTO;
		break;
	}
	if (d.count) {
		u32 i;

		for (i = 0; i < d.count; i++) {
			u32 n;

			if (!get(in, &n, sizeof(n)) || !n)
				return -EPROTO;
			if (i)
				tprintf(&t, ".");
			rc = ranges_text(in, n,
					 d.count == 4				       ? 255
					 : lne_lnd_addr_class(d.net_type) == LNE_AC_LO ? 0
										       : ANY_NUM,
					 false, &t);
			if (rc)
				return rc;
		}
		tprintf(&t, "@");
	}
	tprintf(&t, "%s", nbuf);
	if (t.over || net.over)
		return -EPROTO;
	/*
	 * What lnet.ko's ranges say may still be no expression the engine
	 * takes (a net number on lo, ...): the engine's grammar is the judge.
	 */
	if (lne_expr_parse(buf, &e, NULL))
		return -EPROTO;
	lne_expr_free(e);
	return 0;
}

int lu_udsp_decode(const u8 *buf, size_t len, struct lu_rule *out)
{
	struct in in = {buf, len};
	int rc;

	rc = side_decode(&in, TYPE_SRC, out->src, sizeof(out->src));
	if (!rc)
		rc = side_decode(&in, TYPE_DST, out->dst, sizeof(out->dst));
	if (!rc)
		rc = side_decode(&in, TYPE_RTE, out->rte, sizeof(out->rte));
	if (!rc && in.left)
		rc = -EPROTO; /* bytes the rule does not account for */
	if (!rc && !out->src[0] && !out->dst[0] && !out->rte[0])
		rc = -EPROTO;
	return rc;
}
