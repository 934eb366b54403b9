// SPDX-License-Identifier: GPL-2.0
/*
 * lnet.conf YAML <-> lnetd ops and the YAML writer, case by case with the
 * YAML inline: scalars, op fields, quoting and what emitting refuses, the
 * globals' names, parse errors, canonical order, the writer itself and the
 * reader's bounds.  Part of the conf suite (test-conf.c, the corpus).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/model.h"
#include "lnetctl/conf.h"
#include "lnetctl/yout.h"
#include "test-conf.h"

static void parse_ok(const char *yaml, enum cf_mode mode, struct cf_doc *d)
{
	char err[512];

	ck_assert_msg(!cf_parse(yaml, strlen(yaml), "t.yaml", mode, d, err, sizeof(err)),
		      "'%s': %s", yaml, err);
}

static void parse_err(const char *yaml, const char *want)
{
	struct cf_doc d;
	char err[512];
	int rc = cf_parse(yaml, strlen(yaml), "t.yaml", CF_ADD, &d, err, sizeof(err));

	ck_assert_msg(rc == -EINVAL, "'%s': rc %d, expected an error", yaml, rc);
	ck_assert_msg(strstr(err, want), "'%s': error '%s' lacks '%s'", yaml, err, want);
	ck_assert(doc_empty(&d));
}

/* Numbers and booleans: what a tunable and Multi-Rail take. */
START_TEST(scalars)
{
	static const struct {
		const char *in, *want; /* want: the value, or "!error text" */
	} num[] = {
		{"0", "0"},
		{"180", "180"},
		{"4294967295", "4294967295"},
		{"4294967296", "!4294967296 is above the largest value"},
		{"99999999999999999999999", "!is above the largest value"},
		{"-1", "-"}, /* Lustre's "leave it at the default": not given */
		{"-5", "!must not be negative"},
		/* Quoted numbers are numbers, as in Lustre's import. */
		{"\"180\"", "180"},
		{"'7'", "7"},
		{"\"\"", "!expected a number, got ''"},
		{"\"abc\"", "!expected a number, got 'abc'"},
		{"0180", "!leading zeros"},
		{"0x10", "!expected a number, got '0x10'"},
		{"1.5", "!expected a number, got '1.5'"},
		{"1e3", "!expected a number"},
		{"+5", "!expected a number"},
		{"abc", "!expected a number, got 'abc'"},
		{"", "!has no value"},
		{"~", "!has no value"},
		{"[1]", "!expected a number, got a list"},
		{"{a: 1}", "!expected a number, got a mapping"},
	};
	static const struct {
		const char *in, *want;
	} bools[] = {
		{"True", "true"},      {"False", "false"},
		{"true", "true"},      {"false", "false"},
		{"yes", "true"},       {"no", "false"},
		{"1", "true"},	       {"0", "false"},
		{"\"True\"", "true"},  {"maybe", "!expected True or False, got 'maybe'"},
		{"[]", "!got a list"},
	};
	char yaml[256], want[128], *t;
	struct cf_doc d;
	size_t i;

	for (i = 0; i < sizeof(num) / sizeof(num[0]); i++) {
		snprintf(yaml, sizeof(yaml),
			 "net:\n - net type: tcp\n   local NI(s):\n    - interfaces: [eth0]\n"
			 "      tunables: {credits: %s}\n",
			 num[i].in);
		if (num[i].want[0] == '!') {
			parse_err(yaml, num[i].want + 1);
			continue;
		}
		parse_ok(yaml, CF_ADD, &d);
		ck_assert_uint_eq(d.nop, 1);
		if (!strcmp(num[i].want, "-"))
			ck_assert_uint_eq(d.op[0].nf, 2);
		else
			ck_assert_uint_eq(d.op[0].f[2].val.u, strtoul(num[i].want, NULL, 10));
		cf_doc_free(&d);
	}
	for (i = 0; i < sizeof(bools) / sizeof(bools[0]); i++) {
		snprintf(yaml, sizeof(yaml),
			 "peer:\n - primary nid: 1.2.3.4@tcp\n   Multi-Rail: %s\n", bools[i].in);
		if (bools[i].want[0] == '!') {
			parse_err(yaml, bools[i].want + 1);
			continue;
		}
		parse_ok(yaml, CF_ADD, &d);
		snprintf(want, sizeof(want),
			 "add peer primary=\"1.2.3.4@tcp\" nids=[] multi_rail=%s", bools[i].want);
		t = cf_op_text(&d.op[0]);
		ck_assert_str_eq(t, want);
		free(t);
		cf_doc_free(&d);
	}
}
END_TEST

START_TEST(op_fields)
{
	static const char *const nids[] = {"a@tcp", "b\"q@tcp"};
	struct cf_op *op = cf_op_new("add", "peer"), *op2;
	char *const *sv;
	struct cf_doc d = {0};
	uint32_t u = 0;
	bool b = false;
	size_t n = 0;
	char *t;

	ck_assert_ptr_nonnull(op);
	ck_assert_int_eq(cf_op_set_str(op, "primary", "p@tcp"), 0);
	ck_assert_int_eq(cf_op_set_strv(op, "nids", nids, 2), 0);
	ck_assert_int_eq(cf_op_set_bool(op, "multi_rail", false), 0);
	ck_assert_int_eq(cf_op_set_u32(op, "x", 7), 0);
	ck_assert_str_eq(cf_op_get_str(op, "primary"), "p@tcp");
	ck_assert_ptr_null(cf_op_get_str(op, "x")); /* another type */
	ck_assert_ptr_null(cf_op_get(op, "nope"));
	ck_assert(cf_op_get_u32(op, "x", &u) && u == 7);
	ck_assert(!cf_op_get_u32(op, "primary", &u));
	ck_assert(cf_op_get_bool(op, "multi_rail", &b) && !b);
	sv = cf_op_get_strv(op, "nids", &n);
	ck_assert(sv && n == 2 && !strcmp(sv[1], "b\"q@tcp"));
	/* Setting a key again replaces it in place, even with another type. */
	ck_assert_int_eq(cf_op_set_str(op, "x", "tab\there\x01"), 0);
	ck_assert_uint_eq(op->nf, 4);
	t = cf_op_text(op);
	ck_assert_str_eq(t, "add peer primary=\"p@tcp\" nids=[\"a@tcp\",\"b\\\"q@tcp\"] "
			    "multi_rail=false x=\"tab\\there\\x01\"");
	free(t);

	/* Equality ignores field order and positions, not values. */
	op2 = cf_op_new("add", "peer");
	ck_assert_int_eq(cf_op_set_str(op2, "x", "tab\there\x01"), 0);
	ck_assert_int_eq(cf_op_set_bool(op2, "multi_rail", false), 0);
	ck_assert_int_eq(cf_op_set_strv(op2, "nids", nids, 2), 0);
	ck_assert(!cf_op_equal(op, op2));
	ck_assert_int_eq(cf_op_set_str(op2, "primary", "p@tcp"), 0);
	op2->line = 9;
	ck_assert(cf_op_equal(op, op2));
	ck_assert_int_eq(cf_op_set_strv(op2, "nids", nids, 1), 0);
	ck_assert(!cf_op_equal(op, op2));
	ck_assert_int_eq(cf_op_set_strv(op2, "nids", NULL, 0), 0);
	ck_assert(!cf_op_equal(op, op2));

	ck_assert_int_eq(cf_doc_push(&d, op), 0);
	ck_assert_int_eq(cf_doc_push(&d, op2), 0);
	ck_assert_uint_eq(d.nop, 2);
	ck_assert_str_eq(d.op[0].verb, "add");
	cf_doc_free(&d);
	ck_assert(doc_empty(&d));
	cf_doc_free(&d); /* twice is fine */
	cf_op_free(NULL);
}
END_TEST

static struct cf_op *mkop(const char *verb, const char *obj, const char *k1, const char *v1,
			  const char *k2, const char *v2)
{
	struct cf_op *op = cf_op_new(verb, obj);

	ck_assert_ptr_nonnull(op);
	if (k1)
		ck_assert_int_eq(cf_op_set_str(op, k1, v1), 0);
	if (k2)
		ck_assert_int_eq(cf_op_set_str(op, k2, v2), 0);
	return op;
}

/* Strings YAML would mangle come back as the same strings. */
START_TEST(emit_quoting)
{
	static const char *const tricky[] = {
		"yes",
		"No",
		"true",
		"null",
		"~",
		"123",
		"0x1f",
		"1.5",
		"1:20",
		"-1",
		".inf",
		"[0,1]",
		"*@tcp",
		"*.*.*.*@o2ib1",
		"a: b",
		"a #b",
		"#c",
		"&x",
		"!tag",
		"%p",
		"@at",
		"'q'",
		"\"dq\"",
		"-x",
		"? x",
		"::1@tcp",
		"::@tcp",
		"2001:db8::1@tcp",
		"fe80::1:2@o2ib",
		"10.10.*.*",
		"o2ib[1-3] tcp*",
		"{a}",
		"x:",
		"|",
		">",
		"tab\tin",
		"new\nline",
		" lead",
		"trail ",
		"é@tcp",
		"=",
		"<<",
		"10.0.0.[1-4]@tcp",
	};
	struct cf_doc d = {0}, back;
	size_t i, n = sizeof(tricky) / sizeof(tricky[0]);
	char err[512] = "", *y;
	int rc;

	/* In canonical order, so that the parse gives the same list back. */
	ck_assert_int_eq(cf_doc_push(&d, mkop("add", "net", "net", "tcp", "interface", "0")), 0);
	ck_assert_int_eq(
		cf_doc_push(&d, mkop("add", "net", "net", "1", "pattern", "*.*.*.* [::1]")), 0);
	for (i = 0; i < n; i++) {
		const char *s = tricky[i];
		struct cf_op *op = mkop("add", "peer", "primary", "p@tcp", NULL, NULL);

		ck_assert_int_eq(cf_op_set_strv(op, "nids", &s, 1), 0);
		ck_assert_int_eq(cf_doc_push(&d, op), 0);
		op = mkop("add", "peer", "primary", s, NULL, NULL);
		ck_assert_int_eq(cf_op_set_strv(op, "nids", NULL, 0), 0);
		ck_assert_int_eq(cf_doc_push(&d, op), 0);
	}
	for (i = 0; i < n; i++)
		ck_assert_int_eq(cf_doc_push(&d, mkop("add", "route", "net", tricky[i], "gateway",
						      tricky[i])),
				 0);
	for (i = 0; i < n; i++)
		ck_assert_int_eq(
			cf_doc_push(&d, mkop("add", "udsp", "src", tricky[i], "rte", tricky[i])),
			0);
	y = emit_str(&d, &rc);
	ck_assert_int_eq(rc, 0);
	rc = cf_parse(y, strlen(y), "q.yaml", CF_ADD, &back, err, sizeof(err));
	if (rc || !docs_equal(&d, &back, "quoting"))
		fprintf(stderr, "%s\n%s", err, y);
	ck_assert_int_eq(rc, 0);
	ck_assert(docs_equal(&d, &back, "quoting"));
	/* Lustre prints CPTs in double quotes; numbers stay plain. */
	ck_assert(yout_needs_quotes("[0]"));
	ck_assert(!yout_needs_quotes("eth0"));
	ck_assert(!yout_needs_quotes("192.168.1.[1-4]@tcp"));
	ck_assert(!yout_needs_quotes("2001:db8::1@tcp"));
	ck_assert(yout_needs_quotes("::1@tcp"));
	ck_assert(yout_needs_quotes("192.168.0.1")); /* could be read as a float */
	ck_assert(yout_needs_quotes(""));
	free(y);
	cf_doc_free(&d);
	cf_doc_free(&back);
}
END_TEST

/* What cf_emit() refuses: an op outside the vocabulary, with nothing written. */
START_TEST(emit_refuses)
{
	struct {
		struct cf_op *op;
		const char *why;
	} bad[] = {
		{mkop("del", "net", "net", "tcp", "interface", "eth0"), "a del"},
		{mkop("add", "global", "name", "discovery", NULL, NULL), "global with add"},
		{mkop("add", "nope", NULL, NULL, NULL, NULL), "unknown object"},
		{mkop("add", "net", "net", "tcp", NULL, NULL),
		 "an NI with no interface or pattern"},
		{mkop("add", "net", "net", "tcp", "pattern", "  "), "a blank pattern"},
		{mkop("add", "net", "interface", "eth0", NULL, NULL), "no net"},
		{mkop("add", "net", "net", "tcp", "interface", ""), "an empty string"},
		{mkop("add", "net", "net", "tcp", "interfaces", "eth0"), "an unknown field"},
		{mkop("add", "route", "net", "tcp", NULL, NULL), "a route without gateway"},
		{mkop("set", "global", "name", "max_intf", NULL, NULL), "a global by its YAML key"},
		{mkop("set", "global", "name", "discovery", NULL, NULL), "a global without value"},
		{mkop("add", "peer", "primary", "a@tcp", "multi_rail", "True"),
		 "a string for a bool"},
	};
	struct cf_doc d = {0};
	char *y;
	size_t i;
	int rc;

	ck_assert_int_eq(cf_op_set_u32(bad[9].op, "value", 1), 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_int_eq(
			cf_doc_push(&d, mkop("add", "peer", "primary", "ok@tcp", NULL, NULL)), 0);
		ck_assert_int_eq(cf_doc_push(&d, bad[i].op), 0);
		y = emit_str(&d, &rc);
		ck_assert_msg(rc == -EINVAL, "%s: rc %d", bad[i].why, rc);
		ck_assert_msg(!y || !*y, "%s: wrote '%s'", bad[i].why, y);
		free(y);
		cf_doc_free(&d);
	}
	/* A global twice would be a duplicate key. */
	for (i = 0; i < 2; i++) {
		struct cf_op *op = mkop("set", "global", "name", "discovery", NULL, NULL);

		ck_assert_int_eq(cf_op_set_u32(op, "value", 1), 0);
		ck_assert_int_eq(cf_doc_push(&d, op), 0);
	}
	y = emit_str(&d, &rc);
	ck_assert_int_eq(rc, -EINVAL);
	free(y);
	ck_assert_int_eq(cf_emit(stdout, &d, 1), -EINVAL);
	cf_doc_free(&d);

	/* tbf: a whole queue ("set") is lnetd's tbf: section; one rule command is not
	 * something a file can say. */
	ck_assert_int_eq(
		cf_doc_push(&d, mkop("add", "tbf", "service", "ost_io", "command", "stop x")), 0);
	y = emit_str(&d, &rc);
	ck_assert_int_eq(rc, -EINVAL);
	ck_assert_str_eq(y, "");
	free(y);
	cf_doc_free(&d);
	ck_assert_int_eq(
		cf_doc_push(&d, mkop("set", "tbf", "service", "ost_io", "type", "nid+opcode")), 0);
	y = emit_str(&d, &rc);
	ck_assert_int_eq(rc, 0);
	ck_assert_str_eq(y, "tbf:\n-   service: ost_io\n    type: nid+opcode\n");
	free(y);
	cf_doc_free(&d);
	/* A document with nothing to say writes nothing. */
	y = emit_str(&d, &rc);
	ck_assert_int_eq(rc, 0);
	ck_assert_str_eq(y, "");
	free(y);
}
END_TEST

/* The export's exact shape for one of each kind of op. */
START_TEST(emit_shape)
{
	static const char *want = "net:\n"
				  "-   net type: tcp\n"
				  "    local NI(s):\n"
				  "    -   interfaces:\n"
				  "            0: eth0\n"
				  "        tunables:\n"
				  "            peer_timeout: 180\n"
				  "        CPT: \"[0,1]\"\n"
				  "-   net type: o2ib\n"
				  "    local NI(s):\n"
				  "    -   interfaces:\n"
				  "            0: ib0\n"
				  "peer:\n"
				  "-   primary nid: 10.0.0.1@tcp\n"
				  "    Multi-Rail: False\n"
				  "    peer ni:\n"
				  "    -   nid: 10.0.0.1@tcp\n"
				  "    -   nid: 10.0.1.1@o2ib\n"
				  "global:\n"
				  "    max_intf: 300\n";
	static const char *const nids[] = {"10.0.1.1@o2ib"};
	struct cf_doc d = {0};
	struct cf_op *op;
	char *y;
	int rc;

	op = mkop("set", "global", "name", "max_interfaces", NULL, NULL);
	ck_assert_int_eq(cf_op_set_u32(op, "value", 300), 0);
	ck_assert_int_eq(cf_doc_push(&d, op), 0);
	op = mkop("add", "net", "net", "tcp", "interface", "eth0");
	ck_assert_int_eq(cf_op_set_str(op, "cpts", "[0,1]"), 0);
	ck_assert_int_eq(cf_op_set_u32(op, "peer_timeout", 180), 0);
	ck_assert_int_eq(cf_doc_push(&d, op), 0);
	op = mkop("add", "peer", "primary", "10.0.0.1@tcp", NULL, NULL);
	ck_assert_int_eq(cf_op_set_bool(op, "multi_rail", false), 0);
	ck_assert_int_eq(cf_op_set_strv(op, "nids", nids, 1), 0);
	ck_assert_int_eq(cf_doc_push(&d, op), 0);
	ck_assert_int_eq(cf_doc_push(&d, mkop("add", "net", "net", "o2ib", "interface", "ib0")), 0);
	y = emit_str(&d, &rc);
	ck_assert_int_eq(rc, 0);
	ck_assert_str_eq(y, want);
	free(y);
	cf_doc_free(&d);
}
END_TEST

/* Every global the engine has reads and writes under Lustre's spelling. */
START_TEST(globals_match_engine)
{
	char yaml[128], want[128], *y, *t;
	struct cf_doc d, back;
	int g, rc;

	for (g = 0; g < LNE_G__COUNT; g++) {
		const struct lne_global_info *gi = lne_global_info(g);
		const char *name = gi->name;

		/* global: by name; routing: and buffers: by their key there */
		if (gi->section)
			snprintf(yaml, sizeof(yaml), "%s:\n    %s: 1\n", gi->section, gi->yaml);
		else
			snprintf(yaml, sizeof(yaml), "global:\n    %s: 1\n", name);
		parse_ok(yaml, CF_ADD, &d);
		ck_assert_uint_eq(d.nop, 1);
		snprintf(want, sizeof(want), "set global name=\"%s\" value=1", name);
		t = cf_op_text(&d.op[0]);
		ck_assert_str_eq(t, want);
		free(t);
		y = emit_str(&d, &rc);
		ck_assert_int_eq(rc, 0);
		parse_ok(y, CF_ADD, &back);
		ck_assert(docs_equal(&d, &back, name));
		free(y);
		cf_doc_free(&d);
		cf_doc_free(&back);
	}
	/* Lustre's older spelling, and nothing the engine lacks. */
	parse_ok("global: {max_intf: 9}", CF_ADD, &d);
	ck_assert_int_eq(lne_global_lookup(cf_op_get_str(&d.op[0], "name")), LNE_G_MAX_INTERFACES);
	cf_doc_free(&d);
	parse_err("global: {tiny_buffers: 1}", "key 'tiny_buffers': not a global setting");
	parse_err("global: {enable: 1}", "key 'enable': not a global setting");
	parse_err("buffers: {huge: 1}", "key 'huge': invalid key in buffers");
	parse_err("global: {lnd_timeout: 1, max_interfaces: 1, max_intf: 2}",
		  "max_interfaces is set twice (also at line 1, column 26)");
}
END_TEST

/* Errors: no partial document, positions, a short or absent buffer, no name. */
START_TEST(parse_errors)
{
	static const char *yaml = "peer:\n    - primary nid: 1.2.3.4@tcp\n"
				  "route:\n    - net: tcp\n      gateway: x@tcp\n      hop: many\n";
	struct cf_doc d;
	char err[16];
	int rc;

	rc = cf_parse(yaml, strlen(yaml), NULL, CF_ADD, &d, err, sizeof(err));
	ck_assert_int_eq(rc, -EINVAL);
	ck_assert_str_eq(err, "-:6:12: key 'ho"); /* truncated, still terminated */
	ck_assert(doc_empty(&d));
	ck_assert_int_eq(cf_parse(yaml, strlen(yaml), "f", CF_ADD, &d, NULL, 0), -EINVAL);
	ck_assert(doc_empty(&d));
	/* Only the given length is read. */
	rc = cf_parse(yaml, 37, "f", CF_ADD, &d, err, sizeof(err));
	ck_assert_int_eq(rc, 0);
	ck_assert_uint_eq(d.nop, 1);
	cf_doc_free(&d);
	/* Empty input and a lone document marker are empty documents. */
	parse_ok("", CF_ADD, &d);
	ck_assert(doc_empty(&d));
	parse_ok("---\n", CF_ADD, &d);
	ck_assert(doc_empty(&d));
	parse_ok("# nothing\n\n", CF_DEL, &d);
	ck_assert(doc_empty(&d));
}
END_TEST

/*
 * An ip2nets rule naming an interface twice is one NI, with a warning, and
 * its export reads back as it was (fuzz-conf found two NIs, then a skipped
 * rule on the way back).
 */
START_TEST(ip2nets_interface_twice)
{
	static const char *yaml = "ip2nets:\n- net-spec: o2ib1\n  interfaces: {0: ib0, 1: ib0}\n"
				  "  ip-range: {0: 10.0.0.*}\n";
	struct cf_doc d, d2;
	char err[512];
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	parse_ok(yaml, CF_ADD, &d);
	ck_assert_uint_eq(d.nop, 1);
	ck_assert_uint_eq(d.nwarning, 1);
	f = open_memstream(&out, &len);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(cf_emit(f, &d, 0), 0);
	fclose(f);
	ck_assert_int_eq(cf_parse(out, len, "out.yaml", CF_ADD, &d2, err, sizeof(err)), 0);
	ck_assert_uint_eq(d2.nop, 1);
	ck_assert_uint_eq(d2.nwarning, 0);
	free(out);
	cf_doc_free(&d);
	cf_doc_free(&d2);
}
END_TEST

/* The canonical order: sections sort, file order stays within each. */
START_TEST(canonical_order)
{
	static const char *yaml =
		"global: {discovery: 0}\n"
		"udsp: [{idx: 1, src: tcp}]\n"
		"route: [{net: o2ib, gateway: 1.1.1.1@tcp}]\n"
		"peer: [{primary nid: 2.2.2.2@tcp}, {primary nid: 1.1.1.1@tcp}]\n"
		"ip2nets: [{net-spec: tcp, interfaces: [eth9]},\n"
		"          {net-spec: tcp, ip-range: [10.0.0.*]}]\n"
		"net:\n - net type: tcp\n   local NI(s): [{interfaces: [eth1]}]\n";
	static const char *const add[] = {"net",  "net",   "net",  "peer",
					  "peer", "route", "udsp", "global"};
	static const char *const del[] = {"udsp", "route", "peer", "peer", "net", "net", "net"};
	struct cf_doc d;
	size_t i;

	parse_ok(yaml, CF_ADD, &d);
	ck_assert_uint_eq(d.nop, 8);
	for (i = 0; i < d.nop; i++)
		ck_assert_str_eq(d.op[i].obj, add[i]);
	ck_assert_str_eq(cf_op_get_str(&d.op[0], "interface"), "eth9");
	ck_assert_str_eq(cf_op_get_str(&d.op[1], "interface"), "eth1");
	ck_assert_str_eq(cf_op_get_str(&d.op[2], "pattern"), "10.0.0.*");
	ck_assert_str_eq(cf_op_get_str(&d.op[3], "primary"), "2.2.2.2@tcp");
	cf_doc_free(&d);
	parse_ok(strstr(yaml, "udsp:"), CF_DEL, &d);
	ck_assert_uint_eq(d.nop, 7);
	for (i = 0; i < d.nop; i++)
		ck_assert_str_eq(d.op[i].obj, del[i]);
	ck_assert_str_eq(cf_op_get_str(&d.op[4], "pattern"), "10.0.0.*");
	cf_doc_free(&d);
}
END_TEST

/* Any list (lnetd's Export sorts NIs by net, so patterns interleave): parse(emit) == sort. */
START_TEST(sort_then_round_trip)
{
	static const char *const want[] = {
		"add net net=\"tcp\" interface=\"eth0\"",
		"add net net=\"tcp2\" interface=\"eth2\"",
		"add net net=\"tcp1\" pattern=\"10.1.*.*\"",
		"add peer primary=\"1.1.1.1@tcp\" nids=[] multi_rail=true",
		"set global name=\"discovery\" value=0",
	};
	struct cf_doc d = {0}, back;
	struct cf_op *op;
	char *y, *t;
	size_t i;
	int rc;

	op = mkop("set", "global", "name", "discovery", NULL, NULL);
	ck_assert_int_eq(cf_op_set_u32(op, "value", 0), 0);
	ck_assert_int_eq(cf_doc_push(&d, op), 0);
	ck_assert_int_eq(cf_doc_push(&d, mkop("add", "net", "net", "tcp", "interface", "eth0")), 0);
	ck_assert_int_eq(cf_doc_push(&d, mkop("add", "net", "net", "tcp1", "pattern", "10.1.*.*")),
			 0);
	op = mkop("add", "peer", "primary", "1.1.1.1@tcp", NULL, NULL);
	ck_assert_int_eq(cf_op_set_strv(op, "nids", NULL, 0), 0);
	ck_assert_int_eq(cf_op_set_bool(op, "multi_rail", true), 0);
	ck_assert_int_eq(cf_doc_push(&d, op), 0);
	ck_assert_int_eq(cf_doc_push(&d, mkop("add", "net", "net", "tcp2", "interface", "eth2")),
			 0);
	y = emit_str(&d, &rc);
	ck_assert_int_eq(rc, 0);
	parse_ok(y, CF_ADD, &back);
	ck_assert_int_eq(cf_doc_sort(&d, CF_ADD), 0);
	ck_assert_uint_eq(d.nop, 5);
	for (i = 0; i < d.nop; i++) {
		t = cf_op_text(&d.op[i]);
		ck_assert_str_eq(t, want[i]);
		free(t);
	}
	ck_assert(docs_equal(&d, &back, "sorted"));
	/* In del mode the other way round, and sorting twice changes nothing. */
	ck_assert_int_eq(cf_doc_sort(&d, CF_DEL), 0);
	ck_assert_str_eq(d.op[0].obj, "global");
	ck_assert_str_eq(cf_op_get_str(&d.op[2], "pattern"), "10.1.*.*");
	ck_assert_str_eq(cf_op_get_str(&d.op[4], "interface"), "eth2");
	ck_assert_int_eq(cf_doc_sort(&d, CF_DEL), 0);
	ck_assert_str_eq(cf_op_get_str(&d.op[3], "interface"), "eth0");
	free(y);
	cf_doc_free(&d);
	cf_doc_free(&back);
}
END_TEST

/* yout: the shape it writes and the errors it reports. */
START_TEST(yout_basics)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct yout *y;
	int rc;

	ck_assert(f);
	y = yout_begin(f);
	ck_assert_ptr_nonnull(y);
	yout_map_begin(y);
	yout_key(y, "stats");
	yout_map_begin(y);
	yout_key(y, "big");
	yout_u64(y, UINT64_MAX);
	yout_key(y, "hop");
	yout_i64(y, -1);
	yout_key(y, "up");
	yout_bool(y, true);
	yout_key(y, "list");
	yout_seq_begin(y);
	yout_str(y, "no");
	yout_u32(y, 7);
	yout_seq_end(y);
	yout_map_end(y);
	yout_map_end(y);
	ck_assert_int_eq(yout_end(y), 0);
	fclose(f);
	ck_assert_str_eq(buf, "stats:\n    big: 18446744073709551615\n    hop: -1\n    up: True\n"
			      "    list:\n    - \"no\"\n    - 7\n");
	free(buf);

	/* Events out of order, text that is not UTF-8: -EINVAL, and it sticks. */
	f = open_memstream(&buf, &len);
	y = yout_begin(f);
	yout_map_begin(y);
	yout_seq_end(y); /* libyaml may notice only at a later event */
	yout_key(y, "a");
	yout_str(y, "b");
	ck_assert_int_eq(yout_key(y, "c"), -EINVAL);
	ck_assert_int_eq(yout_end(y), -EINVAL);
	fclose(f);
	free(buf);
	f = open_memstream(&buf, &len);
	y = yout_begin(f);
	ck_assert_int_eq(yout_str(y, "\xff"), -EINVAL);
	ck_assert_int_eq(yout_end(y), -EINVAL);
	fclose(f);
	free(buf);

	/* Nothing at all: nothing written. */
	f = open_memstream(&buf, &len);
	ck_assert_int_eq(yout_end(yout_begin(f)), 0);
	fclose(f);
	ck_assert_str_eq(buf, "");
	free(buf);

	/* A failing write is -EIO. */
	f = fopen("/dev/full", "w");
	if (f) {
		y = yout_begin(f);
		yout_map_begin(y);
		yout_key(y, "k");
		yout_str(y, "v");
		yout_map_end(y);
		rc = yout_end(y);
		ck_assert_int_eq(rc, -EIO);
		fclose(f);
	}
	ck_assert_int_eq(yout_map_begin(NULL), -ENOMEM);
	ck_assert_int_eq(yout_end(NULL), -ENOMEM);
}
END_TEST

/* @text (@len bytes) is refused in both modes with an error starting with @want. */
static void refused(const char *text, size_t len, const char *want)
{
	static const enum cf_mode modes[] = {CF_ADD, CF_DEL};
	struct cf_doc d;
	char err[512];
	size_t m;
	int rc;

	for (m = 0; m < 2; m++) {
		rc = cf_parse(text, len, "t.yaml", modes[m], &d, err, sizeof(err));
		ck_assert_msg(rc == -EINVAL, "rc %d, expected a refusal '%s'", rc, want);
		ck_assert_msg(!strncmp(err, want, strlen(want)), "error '%s', expected '%s'", err,
			      want);
		ck_assert(doc_empty(&d));
	}
}

/* @n times @open, then @n times @close: nesting @n deep. */
static char *nest(const char *open, const char *close, size_t n, size_t *len)
{
	size_t lo = strlen(open), lc = strlen(close), i;
	char *s = malloc(n * (lo + lc) + 1), *p = s;

	ck_assert(s);
	for (i = 0; i < n; i++, p += lo)
		memcpy(p, open, lo);
	for (i = 0; i < n; i++, p += lc)
		memcpy(p, close, lc);
	*p = '\0';
	*len = (size_t)(p - s);
	return s;
}

/*
 * The reader's bounds (conf.h): nesting is refused at the first level
 * beyond CF_MAX_DEPTH, however deep the file goes on (libyaml's loader
 * took minutes over 100,000 levels); a scalar longer than CF_MAX_SCALAR
 * and a file longer than CF_MAX_BYTES are refused, each naming the limit.
 */
START_TEST(bounds)
{
	char *text, msg[160];
	struct cf_doc d;
	size_t len, n;

	ck_assert_int_eq(CF_MAX_DEPTH, 16);
	text = nest("[", "]", 100000, &len);
	refused(text, len,
		"t.yaml:1:17: lists and mappings nested more than 16 deep, the limit "
		"(lnet.conf needs 7)");
	free(text);
	text = nest("{a: ", "}", 100000, &len);
	refused(text, len, "t.yaml:1:65: lists and mappings nested more than 16 deep");
	free(text);
	text = nest("- ", "", 100000, &len);
	refused(text, len, "t.yaml:1:33: lists and mappings nested more than 16 deep");
	free(text);
	/* Sixteen levels are read (and refused by what they say, not how deep). */
	text = nest("[", "]", 16, &len);
	refused(text, len, "t.yaml:1:1: expected a mapping of sections");
	free(text);
	text = nest("{a: ", "}", 16, &len);
	refused(text, len, "t.yaml:1:2: key 'a': ");
	free(text);

	/* A value of CF_MAX_SCALAR bytes is read; one more is refused where it starts. */
	ck_assert_int_eq(CF_MAX_SCALAR, 4096);
	text = malloc(CF_MAX_SCALAR + 100);
	ck_assert(text);
	len = (size_t)sprintf(text, "net: [{net type: tcp, local NI(s): [{interfaces: [");
	memset(text + len, 'e', CF_MAX_SCALAR);
	strcpy(text + len + CF_MAX_SCALAR, "]}]}]");
	parse_ok(text, CF_ADD, &d);
	ck_assert_uint_eq(d.nop, 1);
	ck_assert_uint_eq(strlen(cf_op_get_str(&d.op[0], "interface")), CF_MAX_SCALAR);
	cf_doc_free(&d);
	memset(text + len, 'e', CF_MAX_SCALAR + 1);
	strcpy(text + len + CF_MAX_SCALAR + 1, "]}]}]");
	refused(text, strlen(text),
		"t.yaml:1:51: a value of 4097 bytes, above the limit of 4096 bytes");
	/* Keys too. */
	memset(text, 'k', CF_MAX_SCALAR + 1);
	strcpy(text + CF_MAX_SCALAR + 1, ": 1");
	refused(text, strlen(text), "t.yaml:1:1: a value of 4097 bytes, above the limit");
	free(text);

	/*
	 * CF_MAX_DIRECTIVES directives are read; one more is refused where it
	 * stands, however many follow (libyaml compares each %TAG with every
	 * one before it: 20,000 took seconds, 64 MiB of them hours).
	 */
	ck_assert_int_eq(CF_MAX_DIRECTIVES, 8);
	text = malloc(20000 * 32 + 64);
	ck_assert(text);
	for (len = 0, n = 0; n < 20000; n++) {
		if (n == CF_MAX_DIRECTIVES) {
			strcpy(text + len, "---\nnet: []\n");
			parse_ok(text, CF_ADD, &d);
			ck_assert(doc_empty(&d));
		}
		len += (size_t)sprintf(text + len, "%%TAG !t%zu! tag:lnet%zu:\n", n, n);
	}
	strcpy(text + len, "---\nnet: []\n");
	refused(text, strlen(text),
		"t.yaml:9:1: more than 8 YAML directives (%YAML, %TAG), the limit");
	free(text);

	/* One byte over CF_MAX_BYTES: refused before a byte is parsed. */
	ck_assert_uint_eq(CF_MAX_BYTES, 64u << 20);
	text = malloc(CF_MAX_BYTES + 1);
	ck_assert(text);
	memset(text, '#', CF_MAX_BYTES + 1);
	snprintf(msg, sizeof(msg), "t.yaml: %u bytes, above the limit of %u bytes (64 MiB)",
		 CF_MAX_BYTES + 1, CF_MAX_BYTES);
	refused(text, CF_MAX_BYTES + 1, msg);
	free(text);
}
END_TEST

/*
 * The top level's peer: list is walked item by item as libyaml reads it (a
 * file of 50,000 peers is never a whole tree): its ops still take their
 * place in file order among another section's of the same rank, and the
 * error reported is still the one the walk of the whole file meets first.
 */
START_TEST(peer_list_read_early)
{
	static const char *peers_first = "peers:\n - nids: [1.1.1.1@tcp, 1.1.1.2@tcp]\n"
					 "peer:\n - primary nid: 3.3.3.3@tcp\n";
	static const char *peer_first = "peer:\n - primary nid: 3.3.3.3@tcp\n"
					"peers:\n - nids: [1.1.1.1@tcp, 1.1.1.2@tcp]\n";
	char *big = NULL;
	size_t len = 0, i;
	FILE *f;
	struct cf_doc d;

	/* --del: both sections make "del peer", kept in the file's order. */
	parse_ok(peers_first, CF_DEL, &d);
	ck_assert_uint_eq(d.nop, 2);
	ck_assert_str_eq(cf_op_get_str(&d.op[0], "primary"), "1.1.1.1@tcp");
	ck_assert_str_eq(cf_op_get_str(&d.op[1], "primary"), "3.3.3.3@tcp");
	cf_doc_free(&d);
	parse_ok(peer_first, CF_DEL, &d);
	ck_assert_uint_eq(d.nop, 2);
	ck_assert_str_eq(cf_op_get_str(&d.op[0], "primary"), "3.3.3.3@tcp");
	cf_doc_free(&d);
	/* A section above with an error: its error, not the peer's. */
	parse_err("net:\n - bogus: 1\npeer:\n - primary nid: 1.1.1.1@tcp\n   bad: 2\n",
		  "t.yaml:2:4: key 'bogus'");
	/* A peer's error, then one below: the peer's. */
	parse_err("peer:\n - primary nid: 1.1.1.1@tcp\n   bad: 2\nglobal:\n  bogus: 1\n",
		  "t.yaml:3:4: key 'bad'");
	/* Of the peers, the first one wrong. */
	parse_err("peer:\n - primary nid: 1.1.1.1@tcp\n - x: 1\n - y: 2\n", "t.yaml:3:4: key 'x'");
	/* YAML that does not parse, a key given twice, an alias: those first. */
	parse_err("peer:\n - bad: 1\nnet: [\n", "did not find expected node content");
	parse_err("peer:\n - bad: 1\npeer: []\n", "key 'peer': given twice");
	parse_err("peer:\n - bad: 1\nroute: &a []\n", "anchors and aliases");
	/* Many peers, in the file's order. */
	f = open_memstream(&big, &len);
	ck_assert_ptr_nonnull(f);
	fputs("peer:\n", f);
	for (i = 0; i < 3000; i++)
		fprintf(f,
			" - primary nid: 10.0.%zu.%zu@tcp\n   peer ni: [{nid: 11.0.%zu.%zu@tcp}]\n",
			i / 256, i % 256, i / 256, i % 256);
	fclose(f);
	parse_ok(big, CF_ADD, &d);
	ck_assert_uint_eq(d.nop, 3000);
	ck_assert_str_eq(cf_op_get_str(&d.op[2999], "primary"), "10.0.11.183@tcp");
	cf_doc_free(&d);
	free(big);
}
END_TEST

void conf_cases_tests(TCase *tc)
{
	tcase_add_test(tc, scalars);
	tcase_add_test(tc, op_fields);
	tcase_add_test(tc, emit_quoting);
	tcase_add_test(tc, emit_refuses);
	tcase_add_test(tc, emit_shape);
	tcase_add_test(tc, globals_match_engine);
	tcase_add_test(tc, parse_errors);
	tcase_add_test(tc, canonical_order);
	tcase_add_test(tc, ip2nets_interface_twice);
	tcase_add_test(tc, sort_then_round_trip);
	tcase_add_test(tc, yout_basics);
	tcase_add_test(tc, bounds);
	tcase_add_test(tc, peer_list_read_early);
}
