// SPDX-License-Identifier: GPL-2.0
/* NIDs and nets: the table in tests/data/nid-parse.tsv plus properties. */
#include <stdio.h>
#include <string.h>

#include "engine/nid.h"
#include "tsv.h"
#include "unit.h"

/* Check one row of the parse table; returns 0 when it holds. */
static int check_parse_row(const char *path, const struct tsv_row *row)
{
	const char *in = row->field[0], *want = row->field[1];
	char buf[LNE_NID_STR_MAX], again[LNE_NID_STR_MAX];
	struct lne_err err = {.pos = -2};
	struct lne_nid nid, nid2;
	int rc = lne_nid_parse(in, &nid, &err);

	if (want[0] == '!') {
		if (!rc) {
			lne_nid_format(&nid, buf, sizeof(buf));
			fprintf(stderr, "%s:%d: '%s' parsed as '%s', expected an error\n", path,
				row->line, in, buf);
			return 1;
		}
		/* The message names the input, then says what is wrong. */
		if (!strstr(err.msg, want + 1) || err.pos < 0 ||
		    strncmp(err.msg, in, strlen(in) < 32 ? strlen(in) : 32)) {
			fprintf(stderr, "%s:%d: '%s': error '%s' (pos %d) lacks '%s'\n", path,
				row->line, in, err.msg, err.pos, want + 1);
			return 1;
		}
		return 0;
	}
	if (rc) {
		fprintf(stderr, "%s:%d: '%s' failed: %s\n", path, row->line, in, err.msg);
		return 1;
	}
	lne_nid_format(&nid, buf, sizeof(buf));
	if (strcmp(buf, want)) {
		fprintf(stderr, "%s:%d: '%s' printed '%s', expected '%s'\n", path, row->line, in,
			buf, want);
		return 1;
	}
	/* print -> parse -> print is the identity. */
	if (lne_nid_parse(buf, &nid2, NULL) || !lne_nid_equal(&nid, &nid2) ||
	    lne_nid_format(&nid2, again, sizeof(again)) < 0 || strcmp(buf, again)) {
		fprintf(stderr, "%s:%d: '%s' does not round-trip\n", path, row->line, buf);
		return 1;
	}
	return 0;
}

START_TEST(nid_parse_table)
{
	struct tsv t;
	int bad = 0;
	size_t i;

	tsv_load(&t, "nid-parse.tsv", 2);
	for (i = 0; i < t.nrows; i++)
		bad += check_parse_row(t.path, &t.rows[i]);
	ck_assert_msg(!bad, "%d of %zu NID cases failed (see stderr)", bad, t.nrows);
	tsv_free(&t);
}
END_TEST

START_TEST(nid_binary_form)
{
	struct lne_nid nid;

	ck_assert_int_eq(lne_nid_parse("192.168.1.2@tcp3", &nid, NULL), 0);
	ck_assert_int_eq(nid.lnd, LNE_LND_TCP);
	ck_assert_int_eq(nid.num, 3);
	ck_assert_int_eq(nid.alen, 4);
	ck_assert_uint_eq(lne_nid_ip4(&nid), 0xc0a80102u);
	ck_assert_uint_eq(lne_nid_net(&nid), 0x00020003u);

	ck_assert_int_eq(lne_nid_parse("0xdeadbeef@kfi65535", &nid, NULL), 0);
	ck_assert_int_eq(nid.lnd, LNE_LND_KFI);
	ck_assert_int_eq(nid.num, 65535);
	ck_assert_uint_eq(lne_nid_ip4(&nid), 0xdeadbeefu);

	ck_assert_int_eq(lne_nid_parse("2001:db8::1@o2ib", &nid, NULL), 0);
	ck_assert_int_eq(nid.alen, 16);
	ck_assert_int_eq(nid.addr[0], 0x20);
	ck_assert_int_eq(nid.addr[1], 0x01);
	ck_assert_int_eq(nid.addr[2], 0x0d);
	ck_assert_int_eq(nid.addr[3], 0xb8);
	ck_assert_int_eq(nid.addr[14], 0);
	ck_assert_int_eq(nid.addr[15], 1);

	ck_assert_int_eq(lne_nid_parse("0@lo", &nid, NULL), 0);
	ck_assert_int_eq(nid.lnd, LNE_LND_LO);
	ck_assert_uint_eq(lne_nid_ip4(&nid), 0);
}
END_TEST

START_TEST(nid_error_names_position)
{
	struct lne_err err;
	struct lne_nid nid;

	ck_assert_int_eq(lne_nid_parse("10.0.0.1@tcpx", &nid, &err), -EINVAL);
	ck_assert_str_eq(err.msg, "10.0.0.1@tcpx: network number 'x' is not a number");
	ck_assert_int_eq(err.pos, 12);

	ck_assert_int_eq(lne_nid_parse("10.0.0.1@eth0", &nid, &err), -EINVAL);
	ck_assert_int_eq(err.pos, 9);
	ck_assert_ptr_nonnull(strstr(err.msg, "unknown network type 'eth'"));

	ck_assert_int_eq(lne_nid_parse("10.0.0.x", &nid, &err), -EINVAL);
	ck_assert_str_eq(err.msg, "10.0.0.x: missing '@' between address and network, and "
				  "'10.0.0.x' is not an IP address (an address alone is on tcp)");
	ck_assert_int_eq(err.pos, 0);

	/* Without '@', an IP address is on tcp, as Lustre's libcfs_strnid() reads it. */
	ck_assert_int_eq(lne_nid_parse("10.0.0.1", &nid, &err), 0);
	ck_assert_uint_eq(lne_nid_net(&nid), LNE_MKNET(LNE_LND_TCP, 0));
	ck_assert_uint_eq(lne_nid_ip4(&nid), 0x0a000001u);
}
END_TEST

START_TEST(nid_long_input_is_quoted_short)
{
	char in[300];
	struct lne_err err;
	struct lne_nid nid;

	memset(in, '1', sizeof(in));
	strcpy(in + sizeof(in) - 5, "@tcp");
	ck_assert_int_eq(lne_nid_parse(in, &nid, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "...: '"));
	ck_assert_uint_lt(strlen(err.msg), LNE_ERR_MSG_MAX);
}
END_TEST

START_TEST(nid_failed_parse_leaves_output)
{
	struct lne_nid nid, before;

	ck_assert_int_eq(lne_nid_parse("10.1.2.3@tcp7", &nid, NULL), 0);
	before = nid;
	ck_assert_int_ne(lne_nid_parse("10.1.2.300@tcp", &nid, NULL), 0);
	ck_assert(!memcmp(&nid, &before, sizeof(nid)));
}
END_TEST

START_TEST(net_parse_format)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{"tcp", "tcp"},	     {"tcp0", "tcp"},
		{"tcp1", "tcp1"},    {"o2ib65535", "o2ib65535"},
		{"o2ib65536", NULL}, {"lo", "lo"},
		{"lo1", NULL},	     {"gni7", "gni7"},
		{"ptlf", "ptlf"},    {"kfi02", "kfi2"},
		{"gip3", "gip3"},    {"ib0", "o2ib"},
		{"", NULL},	     {"TCP", NULL},
		{"tcp-1", NULL},     {"tcp 1", NULL},
	};
	char buf[LNE_NET_STR_MAX];
	lne_net_t net;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct lne_err err = {.msg = ""};
		int rc = lne_net_parse(cases[i].in, &net, &err);

		ck_assert_msg(!rc == !!cases[i].out, "'%s': rc %d", cases[i].in, rc);
		if (rc) {
			ck_assert_msg(err.msg[0], "'%s': no message", cases[i].in);
			continue;
		}
		lne_net_format(net, buf, sizeof(buf));
		ck_assert_str_eq(buf, cases[i].out);
	}
}
END_TEST

START_TEST(nid_format_truncates_safely)
{
	char small[8], full[LNE_NID_STR_MAX];
	struct lne_nid nid;
	int need;

	ck_assert_int_eq(lne_nid_parse("2001:db8:1:2:3:4:5:6@o2ib12", &nid, NULL), 0);
	need = lne_nid_format(&nid, full, sizeof(full));
	ck_assert_int_eq(need, (int)strlen("2001:db8:1:2:3:4:5:6@o2ib12"));
	memset(small, 'x', sizeof(small));
	ck_assert_int_eq(lne_nid_format(&nid, small, sizeof(small)), need);
	ck_assert_str_eq(small, "2001:db");
	ck_assert_int_eq(lne_nid_format(&nid, NULL, 0), need);
}
END_TEST

/* A tiny deterministic PRNG so failures reproduce. */
static unsigned long long rng_state = 0x9e3779b97f4a7c15ull;
static unsigned int rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (unsigned int)(rng_state >> 16);
}

START_TEST(nid_random_round_trip)
{
	static const unsigned char lnds[] = {LNE_LND_TCP, LNE_LND_O2IB, LNE_LND_GNI,
					     LNE_LND_GIP, LNE_LND_PTLF, LNE_LND_KFI};
	char buf[LNE_NID_STR_MAX];
	int i, j;

	for (i = 0; i < 20000; i++) {
		struct lne_nid nid = {0}, back;

		nid.lnd = lnds[rnd() % sizeof(lnds)];
		nid.num = (unsigned short)(rnd() % 4 ? rnd() % 8 : rnd());
		nid.alen = 4;
		if ((nid.lnd == LNE_LND_TCP || nid.lnd == LNE_LND_O2IB) && rnd() % 2)
			nid.alen = 16;
		for (j = 0; j < nid.alen; j++)
			/* Zero-heavy bytes exercise '::' compression. */
			nid.addr[j] = (unsigned char)(rnd() % 3 ? 0 : rnd());
		ck_assert_int_lt(lne_nid_format(&nid, buf, sizeof(buf)), LNE_NID_STR_MAX);
		ck_assert_msg(!lne_nid_parse(buf, &back, NULL), "'%s' does not parse", buf);
		ck_assert_msg(lne_nid_equal(&nid, &back), "'%s' came back different", buf);
	}
}
END_TEST

/* Text near the usual spelling "a.b.c.d@o2ibN": the edges of lne_nid_parse()'s fast path. */
static void near_nid(char *buf, size_t size)
{
	static const char *const lnds[] = {"tcp", "o2ib", "ib",	 "tc",	"o2i",	"o2ibb", "gip",
					   "lo",  "kfi",  "gni", "TCP", "tcpx", "",	 "tcp-"};
	static const char seps[] = "@:x -/";
	size_t n = 0;
	int parts = rnd() % 8 ? 4 : (int)(rnd() % 7), i, j, digits;

	for (i = 0; i < parts; i++) {
		digits = rnd() % 8 ? 1 + (int)(rnd() % 3) : (int)(rnd() % 6);
		for (j = 0; j < digits && n + 1 < size; j++)
			buf[n++] = rnd() % 4 ? "0112"[rnd() % 4] : (char)('0' + rnd() % 10);
		if (i + 1 < parts && n + 1 < size)
			buf[n++] = rnd() % 20 ? '.' : seps[rnd() % (sizeof(seps) - 1)];
	}
	if (rnd() % 20 && n + 1 < size)
		buf[n++] = '@';
	n += (size_t)snprintf(buf + n, size - n, "%s",
			      lnds[rnd() % 2 ? rnd() % 2 : rnd() % LNE_ARRAY_SIZE(lnds)]);
	digits = rnd() % 4 ? (int)(rnd() % 6) : (int)(rnd() % 8);
	for (j = 0; j < digits && n + 1 < size; j++)
		buf[n++] = rnd() % 2 ? (char)('0' + rnd() % 10) : "06"[rnd() % 2];
	if (!(rnd() % 20) && n + 1 < size)
		buf[n++] = seps[rnd() % (sizeof(seps) - 1)];
	buf[n] = '\0';
}

/* The fast path gives the general parser's verdict and NID, or leaves the text to it. */
START_TEST(nid_fast_path_agrees)
{
	static const char *const edges[] = {
		"255.255.255.255@tcp65535",
		"256.0.0.1@tcp",
		"1.2.3.4@tcp65536",
		"1.2.3.4@o2ib00001",
		"1.2.3.4@o2ib000001",
		"01.002.003.4@tcp",
		"0001.2.3.4@tcp",
		"1.2.3@tcp",
		"1.2.3.4.5@tcp",
		"1.2.3.4@",
		"@tcp",
		"",
		"1.2.3.4@tcp1@tcp",
		"1.2.3.4@ib5",
		"1.2.3.4@o2ib-1",
		"1.2.3.4@o2ib99999",
		"0.0.0.0@tcp0",
		"1.2.3.4@tcp ",
		"1..3.4@tcp",
		"1.2.3.4@o2",
		"1.2.3.4@gip1",
	};
	char buf[LNE_NID_STR_MAX];
	unsigned int good = 0;
	int i;

	for (i = 0; i < unit_rounds(200000); i++) {
		struct lne_nid fast, slow;
		struct lne_err ef = {0}, es = {0};
		const char *in = buf;
		int rf, rs;

		if (i < (int)LNE_ARRAY_SIZE(edges))
			in = edges[i];
		else
			near_nid(buf, sizeof(buf));
		memset(&fast, 0xa5, sizeof(fast));
		memset(&slow, 0xa5, sizeof(slow));
		rf = lne_nid_parse(in, &fast, &ef);
		rs = lne_nid_parse_slow(in, &slow, &es);
		ck_assert_msg(rf == rs, "'%s': %d, the general parser %d", in, rf, rs);
		ck_assert_msg(!memcmp(&fast, &slow, sizeof(fast)), "'%s' parsed differently", in);
		ck_assert_msg(!strcmp(ef.msg, es.msg) && ef.pos == es.pos, "'%s': '%s' vs '%s'", in,
			      ef.msg, es.msg);
		good += !rf;
	}
	/* Both sides of the line are well covered. */
	ck_assert_uint_gt(good, (unsigned int)unit_rounds(200000) / 7);
	ck_assert_uint_lt(good, 170000);
}
END_TEST

START_TEST(nid_compare_and_hash)
{
	struct lne_nid a, b, c;

	ck_assert_int_eq(lne_nid_parse("10.0.0.1@tcp", &a, NULL), 0);
	ck_assert_int_eq(lne_nid_parse("010.000.000.001@tcp0", &b, NULL), 0);
	ck_assert_int_eq(lne_nid_parse("10.0.0.1@tcp1", &c, NULL), 0);
	ck_assert(lne_nid_equal(&a, &b));
	ck_assert_uint_eq(lne_nid_hash(&a), lne_nid_hash(&b));
	ck_assert(!lne_nid_equal(&a, &c));
	ck_assert_int_lt(lne_nid_cmp(&a, &c), 0);
	ck_assert_int_gt(lne_nid_cmp(&c, &a), 0);
}
END_TEST

/*
 * Lustre's LNDs, copied by hand from its nidstr.h (the numbers) and the
 * libcfs_netstrfns table of nidstrings.c (the names and how each reads an
 * address): the engine's list must be exactly this.
 * The class is that of Lustre's kernel (o2ib takes IPv6; its userspace
 * library reads o2ib as IPv4 only).  Type 17 (TOFULND) is
 * reserved in nidstr.h but has no entry in nidstrings.c, so no NID names it.
 */
static const struct {
	unsigned int type;
	const char *name;
	enum lne_addr_class ac;
} lustre_lnds[] = {
	{2, "tcp", LNE_AC_IP},	 {5, "o2ib", LNE_AC_IP},  {9, "lo", LNE_AC_LO},
	{13, "gni", LNE_AC_NUM}, {14, "gip", LNE_AC_IP4}, {15, "ptlf", LNE_AC_NUM},
	{16, "kfi", LNE_AC_NUM}, {18, "efa", LNE_AC_IP},  {19, "bxi3f", LNE_AC_NUM},
};

START_TEST(lnd_list_is_lustres)
{
	unsigned int type, i, known = 0;

	for (type = 0; type < 256; type++) {
		const char *name = lne_lnd_name(type);

		for (i = 0; i < LNE_ARRAY_SIZE(lustre_lnds); i++)
			if (lustre_lnds[i].type == type)
				break;
		if (i == LNE_ARRAY_SIZE(lustre_lnds)) {
			ck_assert_msg(!name, "LND %u is '%s', which Lustre does not have", type,
				      name);
			continue;
		}
		known++;
		ck_assert_msg(name && !strcmp(name, lustre_lnds[i].name),
			      "LND %u is '%s', not '%s'", type, name ? name : "(none)",
			      lustre_lnds[i].name);
		ck_assert_msg(lne_lnd_addr_class(type) == lustre_lnds[i].ac,
			      "LND %s reads its addresses in the wrong class", name);
	}
	ck_assert_uint_eq(known, LNE_ARRAY_SIZE(lustre_lnds));
	/* Every name is found by its text, with and without a net number. */
	for (i = 0; i < LNE_ARRAY_SIZE(lustre_lnds); i++) {
		char net[16];
		size_t len = 0;
		lne_net_t n;

		ck_assert_int_eq(lne_lnd_lookup(lustre_lnds[i].name, strlen(lustre_lnds[i].name),
						&len),
				 (int)lustre_lnds[i].type);
		ck_assert_uint_eq(len, strlen(lustre_lnds[i].name));
		if (lustre_lnds[i].ac == LNE_AC_LO)
			continue;
		snprintf(net, sizeof(net), "%s7", lustre_lnds[i].name);
		ck_assert_int_eq(lne_net_parse(net, &n, NULL), 0);
		ck_assert_uint_eq(n, LNE_MKNET(lustre_lnds[i].type, 7));
	}
	/* "ib" is only an alias for reading (see nid.c); o2ib prints. */
	ck_assert_int_eq(lne_lnd_lookup("ib", 2, &(size_t){0}), LNE_LND_O2IB);
}
END_TEST

/* The error for an unknown LND lists every LND Lustre has. */
START_TEST(lnd_unknown_lists_all)
{
	struct lne_err err;
	struct lne_nid nid;
	size_t i;

	ck_assert_int_eq(lne_nid_parse("1@bogus", &nid, &err), -EINVAL);
	for (i = 0; i < LNE_ARRAY_SIZE(lustre_lnds); i++)
		ck_assert_msg(strstr(err.msg, lustre_lnds[i].name), "'%s' lacks %s", err.msg,
			      lustre_lnds[i].name);
}
END_TEST

Suite *make_nid_suite(void)
{
	Suite *s = suite_create("nid");
	TCase *tc = tcase_create("nid");

	tcase_add_test(tc, nid_parse_table);
	tcase_add_test(tc, nid_binary_form);
	tcase_add_test(tc, nid_error_names_position);
	tcase_add_test(tc, nid_long_input_is_quoted_short);
	tcase_add_test(tc, nid_failed_parse_leaves_output);
	tcase_add_test(tc, net_parse_format);
	tcase_add_test(tc, nid_format_truncates_safely);
	tcase_add_test(tc, nid_random_round_trip);
	tcase_add_test(tc, nid_fast_path_agrees);
	tcase_add_test(tc, nid_compare_and_hash);
	tcase_add_test(tc, lnd_list_is_lustres);
	tcase_add_test(tc, lnd_unknown_lists_all);
	suite_add_tcase(s, tc);
	return s;
}
