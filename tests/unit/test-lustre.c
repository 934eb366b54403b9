// SPDX-License-Identifier: GPL-2.0
/*
 * The lnet.ko library (lnetd/backend/lustre/) where no module is needed:
 * NIDs to nid4 and back, the refusals that name a version's limit, UDSP
 * descriptors against hand-built bytes (and hostile ones), the peers'
 * bulk, and the globals on a fake /sys/module tree.  The layouts are
 * asserted at build time (lu-abi.h); the module itself in the VM tier.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lnetd/backend/lustre/lu-int.h"
#include "lnetd/backend/lustre/lu-nl.h"
#include "lnetd/backend/lustre/lu-yaml.h"
#include "unit.h"

static struct lne_nid N(const char *s) {
	struct lne_nid n;
	struct lne_err e;

	ck_assert_msg(!lne_nid_parse(s, &n, &e), "%s", e.msg);
	return n;
}

/* A struct lu as lu_open() makes it for a release, without a module. */
static struct lu *
fake_lu(const char *release, u32 tun)
{
	struct lu *lu = lne_zalloc(sizeof(*lu));

	lu->fd = -1;
	lu->nl = -1;
	snprintf(lu->vname, sizeof(lu->vname), "%s", release);
	lu->info.tun_lnd = tun;
	return lu;
}

START_TEST(nid4_both_ways)
{
	struct lu *lu = fake_lu("2.15", LU_TUN_LND_2_15);
	struct lne_nid a = N("10.1.2.3@tcp7"), b;
	struct lne_err e;
	u64 v = 0;

	ck_assert_int_eq(lu_nid4(lu, &a, &v, NULL, &e), 0);
	ck_assert_uint_eq(v, 0x000200070a010203ull);
	ck_assert(lu_nid_from4(v, &b));
	ck_assert(lne_nid_equal(&a, &b));
	a = N("12@gni3");
	ck_assert_int_eq(lu_nid4(lu, &a, &v, NULL, &e), 0);
	ck_assert(lu_nid_from4(v, &b) && lne_nid_equal(&a, &b));
	/* LND 99 is nothing the engine can name; "any" is no NID */
	ck_assert(!lu_nid_from4(0x0063000000000001ull, &b));
	ck_assert(!lu_nid_from4(LU_NID_ANY, &b));
	ck_assert(!lu_nid_from4(0, &b));
	a = N("2001:db8::1@tcp");
	ck_assert_int_eq(lu_nid4(lu, &a, &v, NULL, &e), -EOPNOTSUPP);
	ck_assert_str_eq(e.msg,
			 "2001:db8::1@tcp: lnet.ko 2.15 takes only IPv4 NIDs over /dev/lnet");
	lne_free(lu);
}
END_TEST

/* An engine rule, for the encoder. */
static struct lne_rule *rule(struct lne_inst *ln, const char *src, const char *dst, const char *rte,
			     u32 prio)
{
	enum lne_rule_outcome out;
	struct lne_err e;
	u32 at;

	ck_assert_msg(!lne_rule_add(ln,
				    &(struct lne_rule_conf){
					    .src = src, .dst = dst, .rte = rte, .priority = prio},
				    -1, &out, &at, &e),
		      "%s", e.msg);
	return lne_rule_at(ln, at);
}

struct bytes {
	u8 b[4096];
	size_t n;
};

static void u32s(struct bytes *o, int count, ...)
{
	va_list ap;
	int i;

	va_start(ap, count);
	for (i = 0; i < count; i++) {
		u32 v = va_arg(ap, u32);

		memcpy(o->b + o->n, &v, 4);
		o->n += 4;
	}
	va_end(ap);
}

#define SRC 0x00435253u
#define DST 0x00545344u
#define RTE 0x00455452u

START_TEST(udsp_encode_by_hand)
{
	struct lu *lu = fake_lu("2.15", LU_TUN_LND_2_15);
	struct lne_inst *ln = lne_inst_new();
	struct bytes want = {.n = 0};
	struct lne_err e;
	u8 got[1024];
	int n;

	/* --src tcp1 --dst 10.1.[2-6/2].*@tcp: a NID pair */
	u32s(&want, 4, SRC, 0u, 2u, 1u);
	u32s(&want, 3, 1u, 1u, 1u);	  /* net number 1 */
	u32s(&want, 4, DST, 4u, 2u, 0u);  /* net 0: no ranges */
	u32s(&want, 4, 1u, 10u, 10u, 1u); /* 10 */
	u32s(&want, 4, 1u, 1u, 1u, 1u);	  /* 1 */
	u32s(&want, 4, 1u, 2u, 6u, 2u);	  /* [2-6/2] */
	u32s(&want, 4, 1u, 0u, 255u, 1u); /* * */
	u32s(&want, 4, RTE, 0u, 0u, 0u);  /* no rte */
	n = lu_udsp_encode(lu, rule(ln, "tcp1", "10.1.[2-6/2].*@tcp", NULL, LNE_PRIO_NONE), got,
			   sizeof(got), &e);
	ck_assert_msg(n == (int)want.n, "%d bytes (want %zu): %s", n, want.n, e.msg);
	ck_assert_mem_eq(got, want.b, want.n);

	/* --dst o2ib* --rte 7@gni2: a router rule with a numeric gateway */
	want.n = 0;
	u32s(&want, 4, SRC, 0u, 0u, 0u);
	u32s(&want, 4, DST, 0u, 5u, 1u);
	u32s(&want, 3, 0u, 0xffffffffu, 1u); /* o2ib*: any net number */
	u32s(&want, 4, RTE, 1u, 13u, 1u);
	u32s(&want, 3, 2u, 2u, 1u);
	u32s(&want, 4, 1u, 7u, 7u, 1u);
	n = lu_udsp_encode(lu, rule(ln, NULL, "o2ib*", "7@gni2", LNE_PRIO_NONE), got, sizeof(got),
			   &e);
	ck_assert_msg(n == (int)want.n, "%d bytes (want %zu): %s", n, want.n, e.msg);
	ck_assert_mem_eq(got, want.b, want.n);
	lne_inst_free(ln);
	lne_free(lu);
}
END_TEST

START_TEST(udsp_encode_refusals)
{
	struct lu *lu = fake_lu("2.16", LU_TUN_LND_2_16);
	struct lne_inst *ln = lne_inst_new();
	struct lne_err e;
	char many[1024] = "10.0.0.[";
	u8 got[8192];
	int i;

	ck_assert_int_eq(lu_udsp_encode(lu, rule(ln, "2001:db8::/64@tcp", NULL, NULL, 1), got,
					sizeof(got), &e),
			 -EOPNOTSUPP);
	ck_assert_str_eq(e.msg,
			 "2001:db8::/64@tcp: lnet.ko 2.16 takes only IPv4 patterns in UDSP rules");
	ck_assert_int_eq(lu_udsp_encode(lu, rule(ln, "tcp o2ib", NULL, NULL, 1), got, sizeof(got),
					&e),
			 -EOPNOTSUPP);
	ck_assert(strstr(e.msg, "one NID pattern on each side"));
	ck_assert_int_eq(lu_udsp_encode(lu, rule(ln, "tcp", "10.0.0.*@tcp", NULL, 3), got,
					sizeof(got), &e),
			 -EOPNOTSUPP);
	ck_assert(strstr(e.msg, "keeps no priority on a NID pair rule"));
	/* 65 ranges in an octet: more than the decoder reads back */
	for (i = 0; i < 65; i++)
		snprintf(many + strlen(many), sizeof(many) - strlen(many), "%s%d", i ? "," : "",
			 i * 3);
	strcat(many, "]@tcp");
	ck_assert_int_eq(lu_udsp_encode(lu, rule(ln, many, NULL, NULL, 1), got, sizeof(got), &e),
			 -EOPNOTSUPP);
	ck_assert(strstr(e.msg, "at most 64 ranges"));
	/* a rule larger than the room given */
	ck_assert_int_eq(lu_udsp_encode(lu, rule(ln, "10.0.0.1@tcp", NULL, NULL, 1), got, 20, &e),
			 -ENOSPC);
	lne_inst_free(ln);
	lne_free(lu);
}
END_TEST

/* Every expression lnetd may send reads back as the engine's same expression. */
START_TEST(udsp_round_trip)
{
	static const char *const exprs[] = {
		"tcp",
		"tcp1",
		"tcp*",
		"tcp[1-3]",
		"o2ib[0-5/2,9]",
		"10.0.0.1@tcp",
		"10.0.[1-4].*@tcp",
		"*.*.*.*@tcp1",
		"12@gni",
		"[1-9/2]@gni3",
		"0@lo",
		"10.0.16.0/20@o2ib2",
		"10.[0,2,4].[1-200/3].7@tcp9",
	};
	struct lu *lu = fake_lu("2.17.57", LU_TUN_LND_2_17);
	struct lne_inst *ln = lne_inst_new();
	struct lu_rule back;
	struct lne_err e;
	size_t i;
	u8 buf[2048];
	int n;

	for (i = 0; i < LNE_ARRAY_SIZE(exprs); i++) {
		struct lne_rule *r = rule(ln, NULL, exprs[i], NULL, (u32)i);
		char *want = lne_expr_text(r->dst);
		struct lne_expr *x;

		n = lu_udsp_encode(lu, r, buf, sizeof(buf), &e);
		ck_assert_msg(n > 0, "%s: %s", exprs[i], e.msg);
		ck_assert_int_eq(lu_udsp_decode(buf, n, &back), 0);
		ck_assert_str_eq(back.src, "");
		ck_assert_str_eq(back.rte, "");
		/* the engine reads the text back as the same expression */
		ck_assert_msg(!lne_expr_parse(back.dst, &x, &e), "%s -> %s: %s", exprs[i], back.dst,
			      e.msg);
		ck_assert_msg(lne_expr_equal(x, r->dst), "%s came back as %s", want, back.dst);
		lne_expr_free(x);
		free(want);
	}
	/* "*@tcp" is lnet.ko's net rule, which reads back as the net */
	n = lu_udsp_encode(lu, rule(ln, "*@tcp5", NULL, NULL, 1), buf, sizeof(buf), &e);
	ck_assert_int_eq(lu_udsp_decode(buf, n, &back), 0);
	ck_assert_str_eq(back.src, "tcp5");
	lne_inst_free(ln);
	lne_free(lu);
}
END_TEST

START_TEST(udsp_decode_hostile)
{
	struct lu_rule r;
	struct bytes b;

	/* each of these lnet.ko never sends; each must be refused, not read past */
	b.n = 0;
	u32s(&b, 4, SRC, 0u, 2u, 0u);
	ck_assert_int_eq(lu_udsp_decode(b.b, b.n, &r), -EPROTO); /* DST and RTE missing */
	u32s(&b, 4, DST, 0u, 0u, 0u);
	u32s(&b, 4, RTE, 0u, 0u, 0u);
	ck_assert_int_eq(lu_udsp_decode(b.b, b.n, &r), 0);
	ck_assert_str_eq(r.src, "tcp");
	u32s(&b, 1, 0u);
	ck_assert_int_eq(lu_udsp_decode(b.b, b.n, &r), -EPROTO); /* bytes left over */
	b.n = 0;
	u32s(&b, 4, DST, 0u, 2u, 0u); /* the dst descriptor where src goes */
	u32s(&b, 8, DST, 0u, 0u, 0u, RTE, 0u, 0u, 0u);
	ck_assert_int_eq(lu_udsp_decode(b.b, b.n, &r), -EPROTO);
	b.n = 0;
	u32s(&b, 4, SRC, 0u, 2u, 1u);
	u32s(&b, 3, 5u, 2u, 1u); /* lo above hi */
	u32s(&b, 8, DST, 0u, 0u, 0u, RTE, 0u, 0u, 0u);
	ck_assert_int_eq(lu_udsp_decode(b.b, b.n, &r), -EPROTO);
	b.n = 0;
	u32s(&b, 4, SRC, 0u, 2u, 1u);
	u32s(&b, 3, 1u, 9u, 0u); /* stride 0 */
	u32s(&b, 8, DST, 0u, 0u, 0u, RTE, 0u, 0u, 0u);
	ck_assert_int_eq(lu_udsp_decode(b.b, b.n, &r), -EPROTO);
	b.n = 0;
	u32s(&b, 4, SRC, 3u, 2u, 0u); /* 3 address expressions for IPv4 */
	u32s(&b, 12, 1u, 1u, 1u, 1u, 1u, 1u, 1u, 1u, 1u, 1u, 1u, 1u);
	u32s(&b, 8, DST, 0u, 0u, 0u, RTE, 0u, 0u, 0u);
	ck_assert_int_eq(lu_udsp_decode(b.b, b.n, &r), -EPROTO);
	b.n = 0;
	u32s(&b, 4, SRC, 0u, 77u, 0u); /* an LND nobody has */
	u32s(&b, 8, DST, 0u, 0u, 0u, RTE, 0u, 0u, 0u);
	ck_assert_int_eq(lu_udsp_decode(b.b, b.n, &r), -EPROTO);
	b.n = 0;
	u32s(&b, 4, SRC, 4u, 2u, 0u); /* an octet above 255 */
	u32s(&b, 16, 1u, 1u, 1u, 1u, 1u, 1u, 1u, 1u, 1u, 1u, 1u, 1u, 1u, 256u, 256u, 1u);
	u32s(&b, 8, DST, 0u, 0u, 0u, RTE, 0u, 0u, 0u);
	ck_assert_int_eq(lu_udsp_decode(b.b, b.n, &r), -EPROTO);
	b.n = 0;
	u32s(&b, 4, SRC, 0u, 2u, 0x40000000u); /* ranges past the end */
	ck_assert_int_eq(lu_udsp_decode(b.b, b.n, &r), -EPROTO);
	b.n = 0;
	u32s(&b, 12, SRC, 0u, 0u, 0u, DST, 0u, 0u, 0u, RTE, 0u, 0u, 0u);
	ck_assert_int_eq(lu_udsp_decode(b.b, b.n, &r), -EPROTO); /* a rule of nothing */
	/* found by fuzz-lustre: an address on lo other than 0 read as "7@lo" */
	b.n = 0;
	u32s(&b, 4, SRC, 1u, 9u, 0u);
	u32s(&b, 4, 1u, 7u, 7u, 1u);
	u32s(&b, 8, DST, 0u, 0u, 0u, RTE, 0u, 0u, 0u);
	ck_assert_int_eq(lu_udsp_decode(b.b, b.n, &r), -EPROTO);
	/* and again: lo's net numbers other than 0, read as "lo*" */
	b.n = 0;
	u32s(&b, 4, SRC, 0u, 9u, 1u);
	u32s(&b, 3, 0u, 0xffffffffu, 1u);
	u32s(&b, 8, DST, 0u, 0u, 0u, RTE, 0u, 0u, 0u);
	ck_assert_int_eq(lu_udsp_decode(b.b, b.n, &r), -EPROTO);
	/* and again: the largest number alone read as "4294967295@lo" */
	b.n = 0;
	u32s(&b, 4, SRC, 1u, 9u, 0u);
	u32s(&b, 4, 1u, 0xffffffffu, 0xffffffffu, 1u);
	u32s(&b, 8, DST, 0u, 0u, 0u, RTE, 0u, 0u, 0u);
	ck_assert_int_eq(lu_udsp_decode(b.b, b.n, &r), -EPROTO);
	b.n = 0;
	u32s(&b, 4, SRC, 1u, 9u, 0u);
	u32s(&b, 4, 1u, 0u, 0u, 1u);
	u32s(&b, 8, DST, 0u, 0u, 0u, RTE, 0u, 0u, 0u);
	ck_assert_int_eq(lu_udsp_decode(b.b, b.n, &r), 0);
	ck_assert_str_eq(r.src, "0@lo");
}
END_TEST

static void pni(u8 *bulk, int i, u64 nid4)
{
	memset(bulk + i * LU_PNI_ENTRY, 0xa5, LU_PNI_ENTRY); /* stats: anything */
	memcpy(bulk + i * LU_PNI_ENTRY + LU_PNI_NID, &nid4, 8);
}

START_TEST(peer_bulk)
{
	u8 bulk[4 * LU_PNI_ENTRY];
	struct lu_peer p;
	char s[LNE_NID_STR_MAX];

	pni(bulk, 0, 0x000200000a010101ull);
	pni(bulk, 1, 0x000200010a020101ull);
	pni(bulk, 2, 0x0063000000000001ull); /* an LND the engine cannot name: left out */
	pni(bulk, 3, 0x000200000a010102ull);
	ck_assert_int_eq(lu_peer_parse_bulk(bulk, sizeof(bulk), 4, &p), 0);
	ck_assert_uint_eq(p.n, 3);
	ck_assert_str_eq(lu_nidstr(&p.nids[1], s), "10.2.1.1@tcp1");
	lu_peer_free(&p);
	/* a count larger than the bulk reads the bulk only; a short bulk reads whole entries */
	ck_assert_int_eq(lu_peer_parse_bulk(bulk, sizeof(bulk) - 1, 99, &p), 0);
	ck_assert_uint_eq(p.n, 2);
	lu_peer_free(&p);
	/* a blank entry ends it: large NIDs are counted but not written */
	memset(bulk + LU_PNI_ENTRY, 0, 8);
	ck_assert_int_eq(lu_peer_parse_bulk(bulk, sizeof(bulk), 4, &p), 0);
	ck_assert_uint_eq(p.n, 1);
	lu_peer_free(&p);
}
END_TEST

/* Each NID's running state comes with it: lnet.ko's aliveness, health, counters. */
START_TEST(peer_bulk_state)
{
	u8 bulk[2 * LU_PNI_ENTRY];
	struct lu_peer p;
	u8 *e = bulk + LU_PNI_ENTRY;
	s32 health = 0, rtr = -3;
	u32 send = 7, hs_timeout = 5, put_recv = 11;

	pni(bulk, 0, 0x000200000a010101ull);
	pni(bulk, 1, 0x000200000a010102ull);
	memcpy(bulk + LU_PNI_CREDITS + LU_PNI_CR_ALIVENESS, "NA", 3);
	memcpy(e + LU_PNI_CREDITS + LU_PNI_CR_ALIVENESS, "down", 5);
	memcpy(e + LU_PNI_CREDITS + LU_PNI_CR_RTR_CREDITS, &rtr, 4);
	memcpy(e + LU_PNI_STATS, &send, 4);
	/* the messages by type: header 8, index 4, then sent, received (get, put, ...) */
	memcpy(e + LU_PNI_MSGS + 12 + 20 + 4, &put_recv, 4);
	memcpy(e + LU_PNI_HSTATS + 4, &hs_timeout, 4);
	memcpy(e + LU_PNI_HSTATS + LU_PNI_HS_HEALTH, &health, 4);
	ck_assert_int_eq(lu_peer_parse_bulk(bulk, sizeof(bulk), 2, &p), 0);
	ck_assert_uint_eq(p.n, 2);
	ck_assert_ptr_nonnull(p.st);
	ck_assert_int_eq(p.st[0].state, LNE_PNI_NA);
	ck_assert(lne_nid_equal(&p.st[1].nid, &p.nids[1]));
	ck_assert_int_eq(p.st[1].state, LNE_PNI_DOWN);
	ck_assert_int_eq(p.st[1].health, 0);
	ck_assert_int_eq(p.st[1].rtr_credits, -3);
	ck_assert_uint_eq(p.st[1].send, 7);
	ck_assert_uint_eq(p.st[1].msgs[1].put, 11);
	ck_assert_uint_eq(p.st[1].hs[1], 5);
	lu_peer_free(&p);
	ck_assert_ptr_null(p.st);
}
END_TEST

/* --- a fake /sys and the globals ---------------------------------------------- */

static char root[64];

static void put(const char *rel, const char *text)
{
	char path[256], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (slash = strchr(path + strlen(root) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(path, 0755);
		*slash = '/';
	}
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

static char *get(const char *rel)
{
	static char buf[64];
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(fgets(buf, sizeof(buf), f));
	fclose(f);
	return buf;
}

static void fake_sys(const char *version, bool ping_interval)
{
	static const char *const p[] = {
		"lnet_peer_discovery_disabled 0",
		"lnet_interfaces_max 200",
		"lnet_drop_asym_route 0",
		"lnet_retry_count 2",
		"lnet_transaction_timeout 50",
		"lnet_health_sensitivity 100",
		"lnet_recovery_interval 1",
		"router_sensitivity_percentage 100",
		"lnet_response_tracking 3",
		"lnet_recovery_limit 0",
		"lnet_numa_range 0",
		"tiny_router_buffers 0",
		"small_router_buffers 512",
		"large_router_buffers 0",
	};
	char rel[160], name[64], val[32];
	size_t i;

	snprintf(root, sizeof(root), "/tmp/lnetd-lu.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
	put("sys/module/lnet/version", version);
	for (i = 0; i < LNE_ARRAY_SIZE(p); i++) {
		ck_assert_int_eq(sscanf(p[i], "%63s %30s", name, val), 2);
		snprintf(rel, sizeof(rel), "sys/module/lnet/parameters/%s", name);
		strcat(val, "\n");
		put(rel, val);
	}
	if (ping_interval)
		put("sys/module/lnet/parameters/lnet_max_recovery_ping_interval", "900\n");
	put("sys/module/ksocklnd/parameters/sock_timeout", "0\n");
}

static void rm_sys(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	ck_assert_int_eq(system(cmd), 0);
}

START_TEST(open_without_module)
{
	struct lne_err e;
	struct lu *lu;

	snprintf(root, sizeof(root), "/tmp/lnetd-lu.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
	ck_assert_int_eq(lu_open(&lu, root, &e), -ENOENT);
	ck_assert_ptr_null(lu);
	ck_assert_str_eq(e.msg, "lnet.ko is not loaded");
	rm_sys();
}
END_TEST

START_TEST(release_from_module_version)
{
	struct lne_err e;
	struct lu *lu;

	/* 2.15 and 2.16 say "0.7.0"; without a genl family it is 2.15's layout */
	fake_sys("0.7.0\n", false);
	ck_assert_int_eq(lu_open(&lu, root, &e), 0);
	ck_assert_str_eq(lu_info(lu)->version, "0.7.0");
	ck_assert_str_eq(lu_info(lu)->release, "2.15");
	ck_assert_uint_eq(lu_info(lu)->tun_lnd, LU_TUN_LND_2_15);
	ck_assert(lu_info(lu)->route_sensitivity);
	ck_assert(!lu_info(lu)->dev);
	lu_close(lu);
	rm_sys();
	fake_sys("2.17.57\n", true);
	ck_assert_int_eq(lu_open(&lu, root, &e), 0);
	ck_assert_str_eq(lu_info(lu)->release, "2.17.57");
	ck_assert_uint_eq(lu_info(lu)->vcode, LU_VCODE(2, 17, 57));
	ck_assert_uint_eq(lu_info(lu)->tun_lnd, LU_TUN_LND_2_17);
	ck_assert(!lu_info(lu)->route_sensitivity && lu_info(lu)->stats_resends);
	lu_close(lu);
	rm_sys();
}
END_TEST

START_TEST(globals_on_sysfs)
{
	struct lne_err e;
	struct lu *lu;
	u32 v;

	fake_sys("0.7.0\n", false);
	ck_assert_int_eq(lu_open(&lu, root, &e), 0);
	ck_assert(lu_global_held(lu, LNE_G_RETRY_COUNT));
	ck_assert(!lu_global_held(lu, LNE_G_MAX_RECOVERY_PING_INTERVAL));
	/* no /dev/lnet here: what goes over ioctl is not held */
	ck_assert(!lu_global_held(lu, LNE_G_NUMA_RANGE) && !lu_global_held(lu, LNE_G_ROUTING));
	ck_assert_int_eq(lu_global_get(lu, LNE_G_TRANSACTION_TIMEOUT, &v, &e), 0);
	ck_assert_uint_eq(v, 50);
	/* discovery is the parameter's opposite */
	ck_assert_int_eq(lu_global_get(lu, LNE_G_DISCOVERY, &v, &e), 0);
	ck_assert_uint_eq(v, 1);
	ck_assert_int_eq(lu_global_set(lu, LNE_G_DISCOVERY, 0, &e), 0);
	ck_assert_str_eq(get("sys/module/lnet/parameters/lnet_peer_discovery_disabled"), "1\n");
	ck_assert_int_eq(lu_global_set(lu, LNE_G_DISCOVERY, 2, &e), -EOPNOTSUPP);
	ck_assert_str_eq(e.msg, "discovery: lnet.ko 2.15 has discovery on or off only; 2 (verify "
				"only) is lnetd's own");
	ck_assert_int_eq(lu_global_set(lu, LNE_G_HEALTH_SENSITIVITY, 70, &e), 0);
	ck_assert_str_eq(get("sys/module/lnet/parameters/lnet_health_sensitivity"), "70\n");
	/* lnet.ko's setter takes any recovery_interval and keeps none */
	ck_assert_int_eq(lu_global_set(lu, LNE_G_RECOVERY_INTERVAL, 1, &e), 0);
	ck_assert_int_eq(lu_global_set(lu, LNE_G_RECOVERY_INTERVAL, 5, &e), -EOPNOTSUPP);
	ck_assert(strstr(e.msg, "ignores recovery_interval"));
	ck_assert_int_eq(lu_global_set(lu, LNE_G_MAX_INTERFACES, 8, &e), -EOPNOTSUPP);
	ck_assert_int_eq(lu_global_set(lu, LNE_G_MAX_RECOVERY_PING_INTERVAL, 60, &e), -EOPNOTSUPP);
	ck_assert_str_eq(e.msg, "max_recovery_ping_interval: lnet.ko 2.15 has no such setting");
	/* the pools as configured: 0 is lnet.ko's default, which is the engine's */
	ck_assert_int_eq(lu_global_get(lu, LNE_G_TINY_BUFFERS, &v, &e), 0);
	ck_assert_uint_eq(v, lne_global_info(LNE_G_TINY_BUFFERS)->def);
	ck_assert_int_eq(lu_global_get(lu, LNE_G_SMALL_BUFFERS, &v, &e), 0);
	ck_assert_uint_eq(v, 512);
	/* a parameter that reads as no number is said so */
	put("sys/module/lnet/parameters/lnet_retry_count", "two\n");
	ck_assert_int_eq(lu_global_get(lu, LNE_G_RETRY_COUNT, &v, &e), -EPROTO);
	ck_assert(strstr(e.msg, "lnet_retry_count could not be read"));
	/* the LND's timeout */
	ck_assert_int_eq(lu_lnd_timeout_set(lu, LNE_LND_TCP, 30, &e), 0);
	ck_assert_int_eq(lu_lnd_timeout_get(lu, LNE_LND_TCP, &v, &e), 0);
	ck_assert_uint_eq(v, 30);
	ck_assert_int_eq(lu_lnd_timeout_get(lu, LNE_LND_O2IB, &v, &e), -ENOENT);
	ck_assert(strstr(e.msg, "its LND module is not loaded"));
	lu_close(lu);
	rm_sys();
}
END_TEST

/* --- netlink: the scalar encoder, and dumps by their key table ----------------- */

/* Attributes by hand, to hold the encoder to: header, then data, padded to 4. */
static void nla(struct bytes *o, u16 type, const void *data, u16 len)
{
	u16 hdr[2] = {(u16)(4 + len), type};

	memcpy(o->b + o->n, hdr, 4);
	if (len)
		memcpy(o->b + o->n + 4, data, len);
	memset(o->b + o->n + 4 + len, 0, (4 - len % 4) % 4);
	o->n += 4 + len + (4 - len % 4) % 4;
}

static size_t nest(struct bytes *o, u16 type)
{
	size_t at = o->n;

	nla(o, type | NLA_F_NESTED, NULL, 0);
	return at;
}

static void nest_end(struct bytes *o, size_t at)
{
	u16 len = o->n - at;

	memcpy(o->b + at, &len, 2);
}

static void nstr(struct bytes *o, u16 type, const char *s)
{
	nla(o, type, s, strlen(s) + 1);
}

START_TEST(yaml_request_by_hand)
{
	struct bytes want = {.n = 0};
	struct lu_msg m;
	size_t a, b, x, y;
	s64 hop = 3;

	/* route: [ {net: tcp2, gateway: 2001:db8::1@tcp, hop: 3} ] */
	a = nest(&want, LU_YA_LIST);
	b = nest(&want, LU_YA_LIST);
	nstr(&want, LU_YA_VALUE, "net");
	nstr(&want, LU_YA_VALUE, "tcp2");
	nstr(&want, LU_YA_VALUE, "gateway");
	nstr(&want, LU_YA_VALUE, "2001:db8::1@tcp");
	nstr(&want, LU_YA_VALUE, "hop");
	nla(&want, LU_YA_INT_VALUE, &hop, 8);
	nest_end(&want, b);
	nest_end(&want, a);

	ck_assert_int_eq(lu_msg_init(&m, 0x1234, NLM_F_CREATE, LU_CMD_ROUTES, 0), 0);
	x = lu_y_list(&m);
	y = lu_y_list(&m);
	lu_y_str(&m, "net", "tcp2");
	lu_y_str(&m, "gateway", "2001:db8::1@tcp");
	lu_y_int(&m, "hop", 3);
	lu_msg_nest_end(&m, y);
	lu_msg_nest_end(&m, x);
	ck_assert_int_eq(m.err, 0);
	ck_assert_uint_eq(lu_msg_payload(&m), want.n);
	ck_assert_mem_eq(m.buf + NLMSG_HDRLEN + GENL_HDRLEN, want.b, want.n);
	ck_assert_uint_eq(((struct nlmsghdr *)m.buf)->nlmsg_type, 0x1234);
	ck_assert_uint_eq(((struct nlmsghdr *)m.buf)->nlmsg_flags,
			  NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE);
	ck_assert_uint_eq(((struct genlmsghdr *)(m.buf + NLMSG_HDRLEN))->cmd, LU_CMD_ROUTES);
	/* a request grows past any page: 2,000 NIDs in one */
	for (hop = 0; hop < 2000; hop++)
		lu_y_str(&m, "nid", "255.255.255.255@tcp65535");
	ck_assert_int_eq(m.err, 0);
	ck_assert_uint_gt(m.len, 64 * 1024);
	lu_msg_free(&m);
}
END_TEST

/* A key table lnet.ko would send for NETS, cut down: net, net type, local NI(s) {nid, tunables {peer_credits}}. */
static void key(struct bytes *o, u16 idx, const char *name, u16 type, bool last_open)
{
	size_t k = nest(o, idx);

	nla(o, LU_YA_INDEX, &idx, 2);
	nstr(o, LU_YA_VALUE, name);
	nla(o, LU_YA_NLA_TYPE, &type, 2);
	if (!last_open)
		nest_end(o, k);
}

static void net_table(struct bytes *o)
{
	size_t t, k3, l3, k2, l2;

	t = nest(o, LU_YA_LIST);
	key(o, 1, "net", LU_NLA_NUL_STRING, false);
	key(o, 2, "net type", LU_NLA_STRING, false);
	k3 = o->n;
	key(o, 3, "local NI(s)", LU_NLA_NESTED, true);
	l3 = nest(o, LU_YA_LIST);
	key(o, 1, "nid", LU_NLA_STRING, false);
	k2 = o->n;
	key(o, 2, "tunables", LU_NLA_NESTED, true);
	l2 = nest(o, LU_YA_LIST);
	key(o, 1, "peer_credits", LU_NLA_S32, false);
	nest_end(o, l2);
	nest_end(o, k2);
	nest_end(o, l3);
	nest_end(o, k3);
	nest_end(o, t);
}

struct seen {
	char type[16], nid[2][32];
	u32 nis;
	s64 credits;
	int calls;
};

static int seen_cb(const struct lu_ymap *m, void *arg)
{
	const struct lu_yfield *f = lu_yget(m, "net type"), *l = lu_yget(m, "local NI(s)");
	struct seen *s = arg;
	u32 i;

	s->calls++;
	snprintf(s->type, sizeof(s->type), "%s", f && f->str ? f->str : "?");
	s->nis = l ? l->nitems : 0;
	for (i = 0; l && i < l->nitems && i < 2; i++) {
		f = lu_yget(&l->items[i], "nid");
		snprintf(s->nid[i], sizeof(s->nid[i]), "%s", f && f->str ? f->str : "?");
	}
	f = l && l->nitems ? lu_yget_in(&l->items[0], "tunables", "peer_credits") : NULL;
	s->credits = f && f->num_ok ? f->num : -1;
	return 0;
}

START_TEST(yaml_dump_by_hand)
{
	struct bytes tab = {.n = 0}, val = {.n = 0};
	struct seen s = {.calls = 0};
	struct lu_ydump d;
	size_t l, i0, i1, tn, t0;
	s32 credits = -8;

	net_table(&tab);
	nstr(&val, 1, "");
	nstr(&val, 2, "tcp");
	nstr(&val, 9, "a key the table lacks: skipped");
	l = nest(&val, 3);
	i0 = nest(&val, 0);
	nstr(&val, 1, "10.1.0.1@tcp");
	tn = nest(&val, 2);
	t0 = nest(&val, 0);
	nla(&val, 1, &credits, 4);
	nest_end(&val, t0);
	nest_end(&val, tn);
	nest_end(&val, i0);
	i1 = nest(&val, 1);
	nstr(&val, 1, "10.1.0.2@tcp");
	nest_end(&val, i1);
	nest_end(&val, l);

	lu_ydump_init(&d, seen_cb, &s);
	/* a value before its table is refused */
	ck_assert_int_eq(lu_ydump_feed(&d, val.b, val.n, 0), -EPROTO);
	lu_ydump_init(&d, seen_cb, &s);
	ck_assert_int_eq(lu_ydump_feed(&d, tab.b, tab.n, NLM_F_CREATE), 0);
	ck_assert_int_eq(lu_ydump_feed(&d, val.b, val.n, 0), 0);
	ck_assert_int_eq(s.calls, 1);
	ck_assert_str_eq(s.type, "tcp");
	ck_assert_uint_eq(s.nis, 2);
	ck_assert_str_eq(s.nid[0], "10.1.0.1@tcp");
	ck_assert_str_eq(s.nid[1], "10.1.0.2@tcp");
	ck_assert_int_eq(s.credits, -8);
	/* a cut value message: refused, and the dump keeps its error */
	ck_assert_int_eq(lu_ydump_feed(&d, val.b, val.n - 6, 0), -EPROTO);
	ck_assert_int_eq(d.err, -EPROTO);
	lu_ydump_free(&d);
}
END_TEST

START_TEST(yaml_hostile_tables)
{
	struct bytes b = {.n = 0};
	struct lu_ydump d;
	size_t t, k;
	int depth;
	u16 idx = 0, type = LU_NLA_STRING;

	/* a key numbered 0 */
	t = nest(&b, LU_YA_LIST);
	k = nest(&b, 0);
	nstr(&b, LU_YA_VALUE, "x");
	nest_end(&b, k);
	nest_end(&b, t);
	lu_ydump_init(&d, NULL, NULL);
	ck_assert_int_eq(lu_ydump_feed(&d, b.b, b.n, NLM_F_CREATE), -EPROTO);
	lu_ydump_free(&d);
	/* a key twice */
	b.n = 0;
	t = nest(&b, LU_YA_LIST);
	key(&b, 1, "a", type, false);
	key(&b, 1, "b", type, false);
	nest_end(&b, t);
	lu_ydump_init(&d, NULL, NULL);
	ck_assert_int_eq(lu_ydump_feed(&d, b.b, b.n, NLM_F_CREATE), -EPROTO);
	lu_ydump_free(&d);
	/* a name without its NUL, and one too long */
	b.n = 0;
	t = nest(&b, LU_YA_LIST);
	k = nest(&b, 1);
	nla(&b, LU_YA_VALUE, "abc", 3);
	nest_end(&b, k);
	nest_end(&b, t);
	lu_ydump_init(&d, NULL, NULL);
	ck_assert_int_eq(lu_ydump_feed(&d, b.b, b.n, NLM_F_CREATE), -EPROTO);
	lu_ydump_free(&d);
	/* tables nested deeper than LU_Y_DEPTH */
	b.n = 0;
	{
		size_t opened[2 * LU_Y_DEPTH + 4];
		int n = 0;

		for (depth = 0; depth <= LU_Y_DEPTH + 1; depth++) {
			opened[n++] = nest(&b, LU_YA_LIST);
			opened[n++] = nest(&b, 1);
			nla(&b, LU_YA_INDEX, &idx, 2);
		}
		while (n)
			nest_end(&b, opened[--n]);
	}
	lu_ydump_init(&d, NULL, NULL);
	ck_assert_int_eq(lu_ydump_feed(&d, b.b, b.n, NLM_F_CREATE), -EPROTO);
	lu_ydump_free(&d);
	/* a table that is no list */
	b.n = 0;
	nstr(&b, LU_YA_VALUE, "net");
	lu_ydump_init(&d, NULL, NULL);
	ck_assert_int_eq(lu_ydump_feed(&d, b.b, b.n, NLM_F_CREATE), -EPROTO);
	lu_ydump_free(&d);
}
END_TEST

Suite *make_lustre_suite(void);
Suite *make_lustre_suite(void)
{
	Suite *s = suite_create("lustre");
	TCase *tc = tcase_create("lustre");

	tcase_add_test(tc, nid4_both_ways);
	tcase_add_test(tc, udsp_encode_by_hand);
	tcase_add_test(tc, udsp_encode_refusals);
	tcase_add_test(tc, udsp_round_trip);
	tcase_add_test(tc, udsp_decode_hostile);
	tcase_add_test(tc, peer_bulk);
	tcase_add_test(tc, peer_bulk_state);
	tcase_add_test(tc, open_without_module);
	tcase_add_test(tc, release_from_module_version);
	tcase_add_test(tc, globals_on_sysfs);
	tcase_add_test(tc, yaml_request_by_hand);
	tcase_add_test(tc, yaml_dump_by_hand);
	tcase_add_test(tc, yaml_hostile_tables);
	suite_add_tcase(s, tc);
	return s;
}

#ifdef LU_UNIT_MAIN
/* Its own runner (lustre.am says why), TAP as the unit tier's. */
int main(void)
{
	SRunner *sr = srunner_create(make_lustre_suite());
	int failed;

	setenv("CK_DEFAULT_TIMEOUT", "300", 0);
	srunner_set_tap(sr, "-");
	srunner_run_all(sr, CK_SILENT);
	failed = srunner_ntests_failed(sr);
	printf("# %d checks, %d failed\n", srunner_ntests_run(sr), failed);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
#endif
