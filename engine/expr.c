// SPDX-License-Identifier: GPL-2.0
/*
 * expr.c - what is done with a parsed NID expression (expr-parse.c makes
 * them): canonical printing, matching NIDs and nets, listing the NIDs it
 * names on a net, and equality with its hash.
 */
#include "expr-int.h"
#include "text.h"

/* --- canonical text ------------------------------------------------------------ */

static void print_list(struct lne_sb *sb, const struct lne_expr *e, struct lne_rlist l)
{
	const struct lne_range *r;
	u16 i;

	/* Test the count first: an expression of '*'s has no range array. */
	if (!l.count) {
		lne_sb_putc(sb, '*');
		return;
	}
	r = e->range + l.first;
	if (l.count == 1 && r->lo == r->hi) {
		lne_sb_putu(sb, r->lo);
		return;
	}
	lne_sb_putc(sb, '[');
	for (i = 0; i < l.count; i++) {
		if (i)
			lne_sb_putc(sb, ',');
		lne_sb_putu(sb, r[i].lo);
		if (r[i].hi == r[i].lo)
			continue;
		lne_sb_putc(sb, '-');
		lne_sb_putu(sb, r[i].hi);
		if (r[i].step > 1) {
			lne_sb_putc(sb, '/');
			lne_sb_putu(sb, r[i].step);
		}
	}
	lne_sb_putc(sb, ']');
}

static void print_pat(struct lne_sb *sb, const struct lne_expr *e, const struct lne_pat *pat)
{
	int i;

	switch (pat->kind) {
	case LNE_PAT_NET:
		break;
	case LNE_PAT_ANY:
		lne_sb_putc(sb, '*');
		break;
	case LNE_PAT_IP4:
		for (i = 0; i < 4; i++) {
			if (i)
				lne_sb_putc(sb, '.');
			print_list(sb, e, pat->a.oct[i]);
		}
		break;
	case LNE_PAT_IP6:
		lne_print_ip6(sb, pat->a.ip6);
		if (pat->prefix < 128) {
			lne_sb_putc(sb, '/');
			lne_sb_putu(sb, pat->prefix);
		}
		break;
	case LNE_PAT_NUM:
		print_list(sb, e, pat->a.num);
		break;
	}
	if (pat->kind != LNE_PAT_NET)
		lne_sb_putc(sb, '@');
	lne_sb_puts(sb, lne_lnd_name(pat->lnd));
	/* Net number 0 prints as the bare name, as in NIDs. */
	if (pat->net.count != 1 || e->range[pat->net.first].lo != e->range[pat->net.first].hi ||
	    e->range[pat->net.first].lo)
		print_list(sb, e, pat->net);
}

char *lne_expr_text(const struct lne_expr *e)
{
	char *text;
	int n;

	if (!e)
		return NULL;
	n = lne_expr_format(e, NULL, 0);
	text = lne_zalloc((size_t)n + 1);
	if (text)
		lne_expr_format(e, text, (size_t)n + 1);
	return text;
}

int lne_expr_format(const struct lne_expr *e, char *buf, size_t size)
{
	struct lne_sb sb;
	u16 i;

	lne_sb_init(&sb, buf, size);
	for (i = 0; i < e->npat; i++) {
		if (i)
			lne_sb_putc(&sb, ' ');
		print_pat(&sb, e, &e->pat[i]);
	}
	return lne_sb_result(&sb);
}

int expri_pat_format(const struct lne_expr *e, const struct lne_pat *pat, char *buf, size_t size)
{
	struct lne_sb sb;

	lne_sb_init(&sb, buf, size);
	print_pat(&sb, e, pat);
	return lne_sb_result(&sb);
}

/* --- matching ------------------------------------------------------------------ */

bool lne_expr_is_net(const struct lne_expr *e)
{
	return e->npat && e->pat[0].kind == LNE_PAT_NET;
}

static bool list_has(const struct lne_expr *e, struct lne_rlist l, u32 v)
{
	const struct lne_range *r;
	u16 i;

	if (!l.count)
		return true;
	r = e->range + l.first;
	for (i = 0; i < l.count; i++)
		if (v >= r[i].lo && v <= r[i].hi && (v - r[i].lo) % r[i].step == 0)
			return true;
	return false;
}

static bool ip6_in_prefix(const u8 *addr, const u8 *prefix, unsigned int len)
{
	unsigned int bytes = len / 8, bits = len % 8;

	if (memcmp(addr, prefix, bytes))
		return false;
	return !bits || !((addr[bytes] ^ prefix[bytes]) & (u8)(0xff << (8 - bits)));
}

static bool pat_match(const struct lne_expr *e, const struct lne_pat *pat,
		      const struct lne_nid *nid)
{
	int i;

	if (pat->lnd != nid->lnd || !list_has(e, pat->net, nid->num))
		return false;
	switch (pat->kind) {
	case LNE_PAT_NET:
	case LNE_PAT_ANY:
		return true;
	case LNE_PAT_IP4:
		if (nid->alen != 4)
			return false;
		for (i = 0; i < 4; i++)
			if (!list_has(e, pat->a.oct[i], nid->addr[i]))
				return false;
		return true;
	case LNE_PAT_IP6:
		return nid->alen == 16 && ip6_in_prefix(nid->addr, pat->a.ip6, pat->prefix);
	case LNE_PAT_NUM:
		return nid->alen == 4 && list_has(e, pat->a.num, lne_nid_ip4(nid));
	}
	return false;
}

bool lne_expr_match_nid(const struct lne_expr *e, const struct lne_nid *nid)
{
	u16 i;

	for (i = 0; i < e->npat; i++)
		if (pat_match(e, &e->pat[i], nid))
			return true;
	return false;
}

bool lne_expr_match_net(const struct lne_expr *e, lne_net_t net)
{
	u16 i;

	for (i = 0; i < e->npat; i++)
		if (e->pat[i].lnd == LNE_NET_LND(net) &&
		    list_has(e, e->pat[i].net, LNE_NET_NUM(net)))
			return true;
	return false;
}

static bool list_equal(const struct lne_expr *a, struct lne_rlist la, const struct lne_expr *b,
		       struct lne_rlist lb)
{
	return la.count == lb.count &&
	       (!la.count || !memcmp(a->range + la.first, b->range + lb.first,
				     la.count * sizeof(struct lne_range)));
}

/* --- listing the NIDs an expression names ------------------------------------ */

/* How many values @l lists, duplicates in strided ranges counted twice; "*" is @max + 1. */
static u64 list_size(const struct lne_expr *e, struct lne_rlist l, u32 max)
{
	const struct lne_range *r;
	u64 n = 0;
	u16 i;

	if (!l.count)
		return (u64)max + 1;
	r = e->range + l.first;
	for (i = 0; i < l.count; i++)
		n += (r[i].hi - r[i].lo) / r[i].step + 1;
	return n;
}

/* A cursor over the values of a list, each given once. */
struct vals {
	const struct lne_range *r; /* NULL: every value 0..max */
	u16 n, i;		   /* ranges, and the one v is in */
	u32 v, max;
};

static void vals_init(struct vals *it, const struct lne_expr *e, struct lne_rlist l, u32 max)
{
	it->r = l.count ? e->range + l.first : NULL;
	it->n = l.count;
	it->i = 0;
	it->v = 0;
	it->max = max;
}

/* Strided ranges may overlap: a value an earlier range holds was given there. */
static bool vals_seen(const struct vals *it)
{
	u16 j;

	for (j = 0; j < it->i; j++)
		if (it->v >= it->r[j].lo && it->v <= it->r[j].hi &&
		    (it->v - it->r[j].lo) % it->r[j].step == 0)
			return true;
	return false;
}

/* The first value (@first) or the next one; false past the last. */
static bool vals_next(struct vals *it, bool first)
{
	for (;;) {
		if (first) {
			it->i = 0;
			it->v = it->r ? it->r[0].lo : 0;
			first = false;
		} else if (!it->r) {
			if (it->v == it->max)
				return false;
			it->v++;
		} else if (it->r[it->i].hi - it->v >= it->r[it->i].step) {
			it->v += it->r[it->i].step;
		} else if (++it->i < it->n) {
			it->v = it->r[it->i].lo;
		} else {
			return false;
		}
		if (!it->r || !vals_seen(it))
			return true;
	}
}

static bool pat_on_net(const struct lne_expr *e, const struct lne_pat *pat, lne_net_t net)
{
	return pat->lnd == LNE_NET_LND(net) && list_has(e, pat->net, LNE_NET_NUM(net));
}

/* NIDs @pat names on a net it is on; more than 2^32 - 1 for what cannot be listed. */
static u64 pat_size(const struct lne_expr *e, const struct lne_pat *pat)
{
	u64 n = 1;
	int i;

	switch (pat->kind) {
	case LNE_PAT_IP4:
		/* Each factor is at most 2^16 (a list has at most 4096 ranges of
		 * at most 256 octets): the product of two never overflows, and a
		 * product already past 2^32 stops there. */
		for (i = 0; i < 4 && n <= U32_MAX; i++)
			n *= list_size(e, pat->a.oct[i], EXPRI_OCTET_MAX);
		return n;
	case LNE_PAT_NUM:
		return list_size(e, pat->a.num, U32_MAX);
	case LNE_PAT_IP6:
		return pat->prefix > 96 ? (u64)1 << (128 - pat->prefix) : (u64)1 << 32;
	default: /* a net, or '*': every address */
		return (u64)1 << 32;
	}
}

u32 lne_expr_nids_on(const struct lne_expr *e, lne_net_t net, u32 max)
{
	u64 n = 0;
	u16 i;

	for (i = 0; i < e->npat && n <= max; i++)
		if (pat_on_net(e, &e->pat[i], net))
			n += pat_size(e, &e->pat[i]);
	return n <= max ? (u32)n : U32_MAX;
}

/* Give @nid, named by item @k, unless an earlier item names it too (it was given then). */
static int give(const struct lne_expr *e, u16 k, const struct lne_nid *nid,
		int (*fn)(const struct lne_nid *nid, void *arg), void *arg)
{
	u16 j;

	for (j = 0; j < k; j++)
		if (pat_match(e, &e->pat[j], nid))
			return 0;
	return fn(nid, arg);
}

static void put_be32(u8 *p, u32 v)
{
	p[0] = (u8)(v >> 24);
	p[1] = (u8)(v >> 16);
	p[2] = (u8)(v >> 8);
	p[3] = (u8)v;
}

/* The NIDs of item @k on @net (the caller checked it is listable and on @net). */
static int pat_each(const struct lne_expr *e, u16 k, lne_net_t net,
		    int (*fn)(const struct lne_nid *nid, void *arg), void *arg)
{
	const struct lne_pat *pat = &e->pat[k];
	struct lne_nid nid;
	struct vals it[4];
	int i, rc = 0;
	bool more;
	u32 v, n;

	memset(&nid, 0, sizeof(nid));
	nid.lnd = LNE_NET_LND(net);
	nid.num = LNE_NET_NUM(net);
	nid.alen = 4;
	switch (pat->kind) {
	case LNE_PAT_IP4:
		/* An odometer over the four octets' values. */
		for (i = 0; i < 4; i++) {
			vals_init(&it[i], e, pat->a.oct[i], EXPRI_OCTET_MAX);
			vals_next(&it[i], true);
		}
		do {
			for (i = 0; i < 4; i++)
				nid.addr[i] = (u8)it[i].v;
			rc = give(e, k, &nid, fn, arg);
			for (i = 3; !rc && i >= 0 && !vals_next(&it[i], false); i--)
				vals_next(&it[i], true);
		} while (!rc && i >= 0);
		return rc;
	case LNE_PAT_NUM:
		vals_init(&it[0], e, pat->a.num, U32_MAX);
		for (more = vals_next(&it[0], true); !rc && more; more = vals_next(&it[0], false)) {
			put_be32(nid.addr, it[0].v);
			rc = give(e, k, &nid, fn, arg);
		}
		return rc;
	case LNE_PAT_IP6:
		/* The prefix has no bits past its length (the parser checks). */
		nid.alen = 16;
		memcpy(nid.addr, pat->a.ip6, 16);
		v = (u32)nid.addr[12] << 24 | (u32)nid.addr[13] << 16 | (u32)nid.addr[14] << 8 |
		    nid.addr[15];
		for (n = 0; !rc && n < (u32)pat_size(e, pat); n++) {
			put_be32(nid.addr + 12, v | n);
			rc = give(e, k, &nid, fn, arg);
		}
		return rc;
	}
	return -EINVAL; /* not listable: lne_expr_nids_on() said so */
}

int lne_expr_each_nid(const struct lne_expr *e, lne_net_t net,
		      int (*fn)(const struct lne_nid *nid, void *arg), void *arg)
{
	u16 k;
	int rc;

	for (k = 0; k < e->npat; k++) {
		if (!pat_on_net(e, &e->pat[k], net))
			continue;
		rc = pat_each(e, k, net, fn, arg);
		if (rc)
			return rc;
	}
	return 0;
}

/* --- equality and its hash ------------------------------------------------------ */

static u32 hash_mix(u32 h, u32 v)
{
	h = (h ^ v) * 0x9e3779b1u;
	return h ^ (h >> 16);
}

static u32 hash_list(u32 h, const struct lne_expr *e, struct lne_rlist l)
{
	const struct lne_range *r;
	u16 i;

	h = hash_mix(h, l.count);
	if (!l.count)
		return h; /* an expression of '*'s has no range array */
	r = e->range + l.first;
	for (i = 0; i < l.count; i++)
		h = hash_mix(hash_mix(hash_mix(h, r[i].lo), r[i].hi), r[i].step);
	return h;
}

u32 lne_expr_hash(const struct lne_expr *e)
{
	u32 h = hash_mix(0, e->npat);
	u16 i;
	int j;

	/* What lne_expr_equal() compares, and nothing else. */
	for (i = 0; i < e->npat; i++) {
		const struct lne_pat *x = &e->pat[i];

		h = hash_list(hash_mix(h, (u32)x->lnd << 8 | x->kind), e, x->net);
		switch (x->kind) {
		case LNE_PAT_IP4:
			for (j = 0; j < 4; j++)
				h = hash_list(h, e, x->a.oct[j]);
			break;
		case LNE_PAT_IP6:
			h = hash_mix(h, x->prefix);
			for (j = 0; j < 16; j++)
				h = hash_mix(h, x->a.ip6[j]);
			break;
		case LNE_PAT_NUM:
			h = hash_list(h, e, x->a.num);
			break;
		}
	}
	return h;
}

bool lne_expr_equal(const struct lne_expr *a, const struct lne_expr *b)
{
	u16 i;
	int j;

	if (a->npat != b->npat)
		return false;
	for (i = 0; i < a->npat; i++) {
		const struct lne_pat *x = &a->pat[i], *y = &b->pat[i];

		if (x->lnd != y->lnd || x->kind != y->kind || !list_equal(a, x->net, b, y->net))
			return false;
		switch (x->kind) {
		case LNE_PAT_IP4:
			for (j = 0; j < 4; j++)
				if (!list_equal(a, x->a.oct[j], b, y->a.oct[j]))
					return false;
			break;
		case LNE_PAT_IP6:
			if (x->prefix != y->prefix || memcmp(x->a.ip6, y->a.ip6, 16))
				return false;
			break;
		case LNE_PAT_NUM:
			if (!list_equal(a, x->a.num, b, y->a.num))
				return false;
			break;
		}
	}
	return true;
}
