// SPDX-License-Identifier: GPL-2.0
/* NID expressions: the tests/data/expr-*.tsv tables plus properties. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/expr.h"
#include "tsv.h"
#include "unit.h"

static char *format_alloc(const struct lne_expr *e)
{
	int n = lne_expr_format(e, NULL, 0);
	char *s = malloc((size_t)n + 1);

	ck_assert(s);
	ck_assert_int_eq(lne_expr_format(e, s, (size_t)n + 1), n);
	return s;
}

static struct lne_expr *parse_ok(const char *s)
{
	struct lne_expr *e = NULL;
	struct lne_err err;

	ck_assert_msg(!lne_expr_parse(s, &e, &err), "'%s': %s", s, err.msg);
	return e;
}

static int check_parse_error(const char *path, const struct tsv_row *row, int rc,
			     struct lne_expr *e, const struct lne_err *err)
{
	const char *in = row->field[0], *want = row->field[1];
	char *text;

	if (!rc) {
		text = format_alloc(e);
		fprintf(stderr, "%s:%d: '%s' parsed as '%s', expected an error\n", path, row->line,
			in, text);
		free(text);
		lne_expr_free(e);
		return 1;
	}
	if (!strstr(err->msg, want + 1) || err->pos < 0 || err->pos > (int)strlen(in)) {
		fprintf(stderr, "%s:%d: '%s': error '%s' (pos %d) lacks '%s'\n", path, row->line,
			in, err->msg, err->pos, want + 1);
		return 1;
	}
	return 0;
}

static int check_parse_row(const char *path, const struct tsv_row *row)
{
	const char *in = row->field[0], *want = row->field[1];
	struct lne_expr *e = NULL, *e2 = NULL;
	struct lne_err err = {.pos = -2};
	int rc = lne_expr_parse(in, &e, &err), bad = 0;
	char *text, *again;

	if (want[0] == '!')
		return check_parse_error(path, row, rc, e, &err);
	if (rc) {
		fprintf(stderr, "%s:%d: '%s' failed: %s\n", path, row->line, in, err.msg);
		return 1;
	}
	text = format_alloc(e);
	if (strcmp(text, want)) {
		fprintf(stderr, "%s:%d: '%s' printed '%s', expected '%s'\n", path, row->line, in,
			text, want);
		bad = 1;
	} else if (lne_expr_parse(text, &e2, &err)) {
		fprintf(stderr, "%s:%d: canonical '%s' does not parse: %s\n", path, row->line, text,
			err.msg);
		bad = 1;
	} else {
		/* The canonical form is a fixed point, and equal to the original. */
		again = format_alloc(e2);
		if (strcmp(text, again) || !lne_expr_equal(e, e2)) {
			fprintf(stderr, "%s:%d: '%s' is not a fixed point ('%s')\n", path,
				row->line, text, again);
			bad = 1;
		}
		free(again);
	}
	free(text);
	lne_expr_free(e);
	lne_expr_free(e2);
	return bad;
}

START_TEST(expr_parse_table)
{
	struct tsv t;
	int bad = 0;
	size_t i;

	tsv_load(&t, "expr-parse.tsv", 2);
	for (i = 0; i < t.nrows; i++)
		bad += check_parse_row(t.path, &t.rows[i]);
	ck_assert_msg(!bad, "%d of %zu expression cases failed (see stderr)", bad, t.nrows);
	tsv_free(&t);
}
END_TEST

START_TEST(expr_match_table)
{
	struct tsv t;
	int bad = 0;
	size_t i;

	tsv_load(&t, "expr-match.tsv", 3);
	for (i = 0; i < t.nrows; i++) {
		const struct tsv_row *r = &t.rows[i];
		struct lne_expr *e = parse_ok(r->field[0]);
		bool want = !strcmp(r->field[2], "1");
		struct lne_err err;
		struct lne_nid nid;

		ck_assert_msg(!lne_nid_parse(r->field[1], &nid, &err), "%s:%d: %s", t.path, r->line,
			      err.msg);
		if (lne_expr_match_nid(e, &nid) != want) {
			fprintf(stderr, "%s:%d: '%s' %s '%s'\n", t.path, r->line, r->field[0],
				want ? "should match" : "should not match", r->field[1]);
			bad++;
		}
		lne_expr_free(e);
	}
	ck_assert_msg(!bad, "%d of %zu match cases failed", bad, t.nrows);
	tsv_free(&t);
}
END_TEST

START_TEST(expr_equal_table)
{
	struct tsv t;
	int bad = 0;
	size_t i;

	tsv_load(&t, "expr-equal.tsv", 3);
	for (i = 0; i < t.nrows; i++) {
		const struct tsv_row *r = &t.rows[i];
		struct lne_expr *a = parse_ok(r->field[0]), *b = parse_ok(r->field[1]);
		bool want = !strcmp(r->field[2], "1");
		char *ta = format_alloc(a), *tb = format_alloc(b);

		/* Equality and equal canonical text must agree. */
		if (lne_expr_equal(a, b) != want || lne_expr_equal(b, a) != want ||
		    !strcmp(ta, tb) != want) {
			fprintf(stderr, "%s:%d: '%s' vs '%s': expected %s\n", t.path, r->line, ta,
				tb, want ? "equal" : "different");
			bad++;
		}
		free(ta);
		free(tb);
		lne_expr_free(a);
		lne_expr_free(b);
	}
	ck_assert_msg(!bad, "%d of %zu equality cases failed", bad, t.nrows);
	tsv_free(&t);
}
END_TEST

START_TEST(expr_netmatch_table)
{
	struct tsv t;
	int bad = 0;
	size_t i;

	tsv_load(&t, "expr-netmatch.tsv", 3);
	for (i = 0; i < t.nrows; i++) {
		const struct tsv_row *r = &t.rows[i];
		struct lne_expr *e = parse_ok(r->field[0]);
		bool want = !strcmp(r->field[2], "1");
		struct lne_err err;
		lne_net_t net;

		ck_assert_msg(!lne_net_parse(r->field[1], &net, &err), "%s:%d: %s", t.path, r->line,
			      err.msg);
		if (lne_expr_match_net(e, net) != want) {
			fprintf(stderr, "%s:%d: '%s' on net '%s': expected %d\n", t.path, r->line,
				r->field[0], r->field[1], want);
			bad++;
		}
		lne_expr_free(e);
	}
	ck_assert_msg(!bad, "%d of %zu net match cases failed", bad, t.nrows);
	tsv_free(&t);
}
END_TEST

START_TEST(expr_error_message_and_position)
{
	struct lne_expr *e = NULL;
	struct lne_err err;

	ck_assert_int_eq(lne_expr_parse("10.0.0.[5-2]@tcp", &e, &err), -EINVAL);
	ck_assert_str_eq(err.msg, "10.0.0.[5-2]@tcp: range start 5 is above its end 2");
	ck_assert_int_eq(err.pos, 8);
	ck_assert_ptr_null(e);

	ck_assert_int_eq(lne_expr_parse("10.0.0.1@tcp o2ib1", &e, &err), -EINVAL);
	ck_assert_int_eq(err.pos, 13);
	ck_assert_ptr_nonnull(strstr(err.msg, "cannot mix"));

	ck_assert_int_eq(lne_expr_parse("10.0.[1-3.4@tcp", &e, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "missing ']'"));

	ck_assert_int_eq(lne_expr_parse("10.0.0.1@foo2", &e, &err), -EINVAL);
	ck_assert_int_eq(err.pos, 9);
	ck_assert_ptr_nonnull(strstr(err.msg, "unknown network type 'foo'"));
}
END_TEST

START_TEST(expr_length_limits)
{
	size_t n = LNE_EXPR_MAX_LEN + 1;
	char *s = malloc(n + 1);
	struct lne_expr *e = NULL;
	struct lne_err err;
	int i;

	ck_assert(s);
	memset(s, ' ', n);
	memcpy(s, "tcp", 3);
	s[n] = '\0';
	ck_assert_int_eq(lne_expr_parse(s, &e, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "longer than 4096"));

	/* 300 distinct items: over the item limit, refused cleanly. */
	s[0] = '\0';
	for (i = 0; i < 300; i++)
		sprintf(s + strlen(s), "%d@gni ", i);
	ck_assert_int_eq(lne_expr_parse(s, &e, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "more than 256 items"));

	/* 256 items is the limit itself, and fine. */
	s[0] = '\0';
	for (i = 0; i < 256; i++)
		sprintf(s + strlen(s), "%d@gni ", i);
	e = parse_ok(s);
	ck_assert_int_eq(e->npat, 256);
	lne_expr_free(e);
	free(s);
}
END_TEST

/* Every IPv4 CIDR length, checked against plain mask arithmetic. */
START_TEST(expr_cidr_matches_mask_arithmetic)
{
	unsigned int len, k;
	char buf[64];

	for (len = 0; len <= 32; len++) {
		unsigned int mask = len ? ~0u << (32 - len) : 0;
		unsigned int base = 0xac10a5c3u & mask; /* from 172.16.165.195 */
		struct lne_expr *e;

		snprintf(buf, sizeof(buf), "%u.%u.%u.%u/%u@tcp", base >> 24, (base >> 16) & 255,
			 (base >> 8) & 255, base & 255, len);
		e = parse_ok(buf);
		for (k = 0; k < 2000; k++) {
			/* Addresses around the block's start, and anywhere. */
			unsigned int a = k < 1000 ? base + k - 500 : k * 2654435761u;
			struct lne_nid nid = {.lnd = LNE_LND_TCP, .alen = 4};

			nid.addr[0] = (unsigned char)(a >> 24);
			nid.addr[1] = (unsigned char)(a >> 16);
			nid.addr[2] = (unsigned char)(a >> 8);
			nid.addr[3] = (unsigned char)a;
			ck_assert_msg(lne_expr_match_nid(e, &nid) == ((a & mask) == base),
				      "%s and %08x", buf, a);
		}
		lne_expr_free(e);
	}
}
END_TEST

START_TEST(expr_ip6_prefix_every_length)
{
	static const unsigned char base[16] = {0x20, 0x01, 0x0d, 0xb8, 0xff, 0xff, 0xaa, 0x55,
					       0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0};
	unsigned int len, bit;
	char buf[128];

	for (len = 0; len <= 128; len++) {
		struct lne_nid nid = {.lnd = LNE_LND_TCP, .alen = 16};
		unsigned char pfx[16];
		struct lne_expr *e;
		unsigned int i;

		for (i = 0; i < 16; i++) {
			unsigned int bits = len > 8 * i ? len - 8 * i : 0;

			pfx[i] = bits >= 8 ? base[i]
					   : base[i] & (unsigned char)(0xff << (8 - bits));
		}
		memcpy(nid.addr, pfx, 16);
		i = (unsigned int)lne_nid_format(&nid, buf, sizeof(buf));
		snprintf(buf + i - 4, sizeof(buf) - i + 4, "/%u@tcp", len);
		e = parse_ok(buf);
		/* Flipping a bit inside the prefix breaks the match; outside, not. */
		for (bit = 0; bit < 128; bit++) {
			memcpy(nid.addr, pfx, 16);
			nid.addr[bit / 8] ^= (unsigned char)(0x80 >> (bit % 8));
			ck_assert_msg(lne_expr_match_nid(e, &nid) == (bit >= len), "%s, bit %u",
				      buf, bit);
		}
		lne_expr_free(e);
	}
}
END_TEST

/* Strided octet lists against arithmetic, for many shapes. */
START_TEST(expr_stride_matches_arithmetic)
{
	unsigned int lo, hi, step, v;
	char buf[64];

	for (lo = 0; lo < 256; lo += 37)
		for (hi = lo; hi < 256; hi += 29)
			for (step = 1; step < 12; step += 3) {
				struct lne_expr *e;

				snprintf(buf, sizeof(buf), "10.0.0.[%u-%u/%u]@tcp", lo, hi, step);
				e = parse_ok(buf);
				for (v = 0; v < 256; v++) {
					struct lne_nid nid = {.lnd = LNE_LND_TCP,
							      .alen = 4,
							      .addr = {10, 0, 0, (unsigned char)v}};
					bool want = v >= lo && v <= hi && (v - lo) % step == 0;

					ck_assert_msg(lne_expr_match_nid(e, &nid) == want,
						      "%s and .%u", buf, v);
				}
				lne_expr_free(e);
			}
}
END_TEST

/* Normalisation must not change which values a list holds. */
START_TEST(expr_normalisation_keeps_the_set)
{
	static const char *lists[] = {
		"[1-3,4,5-7]",	"[3,1,2]",	    "[1-10,5]",		 "[1-9/2,11]",
		"[1-10/4,2]",	"[1-2,1-9/2,3-20]", "[0-255/2,1-255/2]", "[7,7,7]",
		"[0-9/3,9-12]", "[250-255,0-5]",    "[1-100,10-20/2]",	 "[2-8/2,3-9/3,1]",
	};
	char buf[128];
	size_t i;
	unsigned int v;

	for (i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		struct lne_expr *e;

		snprintf(buf, sizeof(buf), "%s@gni", lists[i]);
		e = parse_ok(buf);
		for (v = 0; v < 300; v++) {
			/* The reference: parse the list by hand, naively. */
			const char *q = lists[i] + 1;
			bool want = false;

			while (*q && *q != ']') {
				unsigned int lo = (unsigned int)strtoul(q, (char **)&q, 10),
					     hi = lo, step = 1;

				if (*q == '-')
					hi = (unsigned int)strtoul(q + 1, (char **)&q, 10);
				if (*q == '/')
					step = (unsigned int)strtoul(q + 1, (char **)&q, 10);
				want |= v >= lo && v <= hi && (v - lo) % step == 0;
				if (*q == ',')
					q++;
			}
			struct lne_nid nid = {.lnd = LNE_LND_GNI, .alen = 4, .addr = {0, 0, 0, 0}};

			nid.addr[2] = (unsigned char)(v >> 8);
			nid.addr[3] = (unsigned char)v;
			ck_assert_msg(lne_expr_match_nid(e, &nid) == want, "%s and %u", buf, v);
		}
		lne_expr_free(e);
	}
}
END_TEST

START_TEST(expr_kinds)
{
	struct lne_expr *net = parse_ok("o2ib[1-3] tcp*");
	struct lne_expr *any = parse_ok("*@o2ib1");
	struct lne_expr *all4 = parse_ok("*.*.*.*@o2ib1");
	struct lne_nid v6, v4, mapped;

	ck_assert(lne_expr_is_net(net));
	ck_assert(!lne_expr_is_net(any));
	ck_assert(!lne_expr_equal(any, all4));
	ck_assert_int_eq(lne_nid_parse("fe80::1@o2ib1", &v6, NULL), 0);
	ck_assert_int_eq(lne_nid_parse("10.1.1.1@o2ib1", &v4, NULL), 0);
	ck_assert_int_eq(lne_nid_parse("::ffff:10.1.1.1@o2ib1", &mapped, NULL), 0);
	ck_assert(lne_expr_match_nid(any, &v6));
	ck_assert(!lne_expr_match_nid(all4, &v6));
	ck_assert(lne_expr_match_nid(all4, &v4));
	ck_assert(!lne_expr_match_nid(all4, &mapped));
	ck_assert(lne_expr_match_nid(net, &v4));
	lne_expr_free(net);
	lne_expr_free(any);
	lne_expr_free(all4);
}
END_TEST

/*
 * Listing (lne_expr_each_nid) against matching: random expressions whose
 * every match lies in a small universe, each net of which is tested whole.
 * What is listed must be exactly the universe's matching NIDs, each once,
 * no more than lne_expr_nids_on() announced.
 */
static unsigned long long lrng = 0x9e3779b97f4a7c15ull;
static unsigned int lrnd(unsigned int n)
{
	lrng ^= lrng << 13;
	lrng ^= lrng >> 7;
	lrng ^= lrng << 17;
	return (unsigned int)((lrng >> 11) % n);
}

/* An octet or number list of values below @lim, in one of several shapes. */
static void rnd_list(char *buf, size_t size, unsigned int lim, bool star)
{
	unsigned int a = lrnd(lim), b = a + lrnd(lim - a), c = lrnd(lim), d = c + lrnd(lim - c);

	switch (lrnd(star ? 6 : 5)) {
	case 0:
		snprintf(buf, size, "%u", a);
		break;
	case 1:
		snprintf(buf, size, "[%u-%u]", a, b);
		break;
	case 2:
		snprintf(buf, size, "[%u-%u/%u]", a, b, 1 + lrnd(4));
		break;
	case 3: /* overlapping strides: listed once each */
		snprintf(buf, size, "[%u-%u/%u,%u-%u/%u,%u]", a, b, 2 + lrnd(3), c, d, 2 + lrnd(3),
			 lrnd(lim));
		break;
	case 4:
		snprintf(buf, size, "[%u,%u-%u,%u]", a, c, d, lrnd(lim));
		break;
	default:
		snprintf(buf, size, "*");
		break;
	}
}

struct listed {
	struct lne_nid nid[70000];
	unsigned int n;
};

static int collect(const struct lne_nid *nid, void *arg)
{
	struct listed *l = arg;

	ck_assert_uint_lt(l->n, 70000);
	l->nid[l->n++] = *nid;
	return 0;
}

static int cmp_nid(const void *a, const void *b)
{
	return lne_nid_cmp(a, b);
}

/* The universe on @net: 10-11.0-1.0-7.* for IPv4, 2001:db8::0-ff for IPv6, 0-63 for gni. */
static unsigned int universe(lne_net_t net, unsigned int i, struct lne_nid *nid)
{
	memset(nid, 0, sizeof(*nid));
	nid->lnd = LNE_NET_LND(net);
	nid->num = LNE_NET_NUM(net);
	nid->alen = 4;
	if (nid->lnd == LNE_LND_GNI) {
		nid->addr[3] = (u8)i;
		return 64;
	}
	if (i < 8192) {
		nid->addr[0] = (u8)(10 + (i >> 12));
		nid->addr[1] = (u8)((i >> 11) & 1);
		nid->addr[2] = (u8)((i >> 8) & 7);
		nid->addr[3] = (u8)i;
	} else if (i < 8192 + 256) {
		static const u8 pfx[16] = {0x20, 0x01, 0x0d, 0xb8};

		nid->alen = 16;
		memcpy(nid->addr, pfx, 16);
		nid->addr[15] = (u8)(i - 8192);
	}
	return 8192 + 256;
}

START_TEST(expr_listing_equals_matching)
{
	static struct listed l;
	static const lne_net_t nets[] = {LNE_MKNET(LNE_LND_TCP, 0), LNE_MKNET(LNE_LND_TCP, 1),
					 LNE_MKNET(LNE_LND_TCP, 2), LNE_MKNET(LNE_LND_GNI, 0),
					 LNE_MKNET(LNE_LND_GNI, 1)};
	static const char *const netpat[] = {"tcp", "tcp1", "tcp[1-2]", "tcp*", "tcp[0,2]"};
	unsigned int round, listable = 0;

	for (round = 0; round < 150; round++) {
		char text[1024] = "", item[256], o[4][48];
		unsigned int items = 1 + lrnd(3), k, ni, i, n;
		struct lne_expr *e;

		for (k = 0; k < items; k++) {
			switch (lrnd(5)) {
			case 0:
				rnd_list(o[0], sizeof(o[0]), 64, false);
				snprintf(item, sizeof(item), "%s@gni%s", o[0], lrnd(2) ? "1" : "");
				break;
			case 1:
				snprintf(item, sizeof(item), "2001:db8::%s@%s",
					 lrnd(2)   ? "/120"
					 : lrnd(2) ? "/125"
						   : "7",
					 netpat[lrnd(5)]);
				break;
			default:
				snprintf(o[0], sizeof(o[0]), "%s", lrnd(2) ? "[10-11]" : "10");
				snprintf(o[1], sizeof(o[1]), "%s", lrnd(2) ? "[0-1]" : "1");
				rnd_list(o[2], sizeof(o[2]), 8, false);
				rnd_list(o[3], sizeof(o[3]), 256, true);
				snprintf(item, sizeof(item), "%s.%s.%s.%s@%s", o[0], o[1], o[2],
					 o[3], netpat[lrnd(5)]);
				break;
			}
			strcat(text, k ? " " : "");
			strcat(text, item);
		}
		e = parse_ok(text);
		for (ni = 0; ni < sizeof(nets) / sizeof(nets[0]); ni++) {
			struct lne_nid nid;
			unsigned int want = 0;

			n = lne_expr_nids_on(e, nets[ni], 100000);
			if (n == U32_MAX)
				continue;
			listable++;
			/* The count is a bound: one less is "too many" exactly when it is reached. */
			ck_assert(!n || lne_expr_nids_on(e, nets[ni], n - 1) == U32_MAX);
			l.n = 0;
			ck_assert_int_eq(lne_expr_each_nid(e, nets[ni], collect, &l), 0);
			ck_assert_msg(l.n <= n, "%s: %u listed, %u announced", text, l.n, n);
			qsort(l.nid, l.n, sizeof(l.nid[0]), cmp_nid);
			for (i = 0; i < l.n; i++) {
				ck_assert_msg(lne_nid_net(&l.nid[i]) == nets[ni] &&
						      lne_expr_match_nid(e, &l.nid[i]),
					      "%s: listed a NID it does not match", text);
				ck_assert_msg(!i || cmp_nid(&l.nid[i - 1], &l.nid[i]),
					      "%s: listed a NID twice", text);
			}
			for (i = 0; i < universe(nets[ni], i, &nid); i++) {
				if (!lne_expr_match_nid(e, &nid))
					continue;
				want++;
				ck_assert_msg(bsearch(&nid, l.nid, l.n, sizeof(l.nid[0]), cmp_nid),
					      "%s: a matching NID was not listed", text);
			}
			ck_assert_msg(want == l.n, "%s: %u listed, %u match", text, l.n, want);
		}
		lne_expr_free(e);
	}
	ck_assert_uint_gt(listable, 100);
}
END_TEST

/* What cannot be listed says so, and what can is counted. */
START_TEST(expr_listing_limits)
{
	static const struct {
		const char *text;
		u32 n; /* on tcp1 */
	} cases[] = {
		{"*@tcp1", U32_MAX},
		{"tcp1", U32_MAX},
		{"10.0.0.*@tcp1", 256},
		{"*.*.*.*@tcp1", U32_MAX},
		{"10.0.0.[1-200]@tcp1 10.0.1.1@tcp1", 201},
		{"10.0.0.[1-200]@tcp2", 0},
		{"2001:db8::/120@tcp1", 256},
		{"2001:db8::/96@tcp1", U32_MAX},
		{"10.0.0.[1-9/2]@tcp[0-5]", 5},
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct lne_expr *e = parse_ok(cases[i].text);

		ck_assert_msg(lne_expr_nids_on(e, LNE_MKNET(LNE_LND_TCP, 1), 1000000) == cases[i].n,
			      "%s", cases[i].text);
		lne_expr_free(e);
	}
}
END_TEST

Suite *make_expr_suite(void)
{
	Suite *s = suite_create("expr");
	TCase *tc = tcase_create("expr");

	tcase_add_test(tc, expr_parse_table);
	tcase_add_test(tc, expr_match_table);
	tcase_add_test(tc, expr_equal_table);
	tcase_add_test(tc, expr_netmatch_table);
	tcase_add_test(tc, expr_error_message_and_position);
	tcase_add_test(tc, expr_length_limits);
	tcase_add_test(tc, expr_cidr_matches_mask_arithmetic);
	tcase_add_test(tc, expr_ip6_prefix_every_length);
	tcase_add_test(tc, expr_stride_matches_arithmetic);
	tcase_add_test(tc, expr_normalisation_keeps_the_set);
	tcase_add_test(tc, expr_kinds);
	tcase_add_test(tc, expr_listing_equals_matching);
	tcase_add_test(tc, expr_listing_limits);
	suite_add_tcase(s, tc);
	return s;
}
