// SPDX-License-Identifier: GPL-2.0
/*
 * cases-refuse.c - malformed and impossible requests, sent raw (the client
 * would never build most of them): each must be refused with the errno
 * uapi/lnetk.h promises, with an extack sentence, and leave the instance
 * exactly as it was (every dump and the generation compared before and
 * after).
 *
 * Runs in a network namespace of its own, with objects of every kind in it
 * (populate()), so that "unchanged" means something.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "vm.h"

/* The errno, or for unknown flag bits either of the two the tree's habits allow. */
#define EINVAL_OR_EOPNOTSUPP (-1000)

struct refusal {
	const char *what;
	uint8_t cmd;
	int want;
	void (*build)(struct raw *r);
	const char *ext_has; /* text the extack must contain, or NULL */
};

static void ni_nid(struct raw *r, const char *nid)
{
	raw_nest(r, LNETK_A_NI);
	raw_str(r, LNETK_NI_A_NID, nid);
}

static void peer_primary(struct raw *r, const char *nid)
{
	raw_nest(r, LNETK_A_PEER);
	raw_str(r, LNETK_PEER_A_PRIMARY, nid);
}

static void route_both(struct raw *r)
{
	raw_nest(r, LNETK_A_ROUTE);
	raw_str(r, LNETK_ROUTE_A_NET, "o2ib7");
	raw_str(r, LNETK_ROUTE_A_GATEWAY, "10.9.0.77@tcp");
}

static void sel_dst(struct raw *r)
{
	raw_nest(r, LNETK_A_SELECT);
	raw_str(r, LNETK_SEL_A_DST, "10.9.0.100@tcp");
}

/* --- missing required attributes ------------------------------------------------ */

static void b_ni_add_nothing(struct raw *r)
{
}

static void b_ni_add_no_nid(struct raw *r)
{
	raw_nest(r, LNETK_A_NI);
	raw_str(r, LNETK_NI_A_IFNAME, "eth9");
	raw_end(r);
}

static void b_ni_del_empty(struct raw *r)
{
	raw_nest(r, LNETK_A_NI);
	raw_end(r);
}

static void b_peer_add_no_primary(struct raw *r)
{
	raw_nest(r, LNETK_A_PEER);
	raw_nest(r, LNETK_PEER_A_PEER_NI);
	raw_str(r, LNETK_PNI_A_NID, "10.9.0.120@tcp");
	raw_end(r);
	raw_end(r);
}

static void b_pni_set_no_nid(struct raw *r)
{
	raw_nest(r, LNETK_A_PEER_NI);
	raw_u32(r, LNETK_PNI_A_HEALTH, 5);
	raw_end(r);
}

static void b_route_no_gw(struct raw *r)
{
	raw_nest(r, LNETK_A_ROUTE);
	raw_str(r, LNETK_ROUTE_A_NET, "o2ib7");
	raw_end(r);
}

static void b_route_no_net(struct raw *r)
{
	raw_nest(r, LNETK_A_ROUTE);
	raw_str(r, LNETK_ROUTE_A_GATEWAY, "10.9.0.77@tcp");
	raw_end(r);
}

static void b_rule_del_nothing(struct raw *r)
{
}

static void b_global_no_value(struct raw *r)
{
	raw_nest(r, LNETK_A_GLOBAL);
	raw_str(r, LNETK_GLOBAL_A_NAME, "numa_range");
	raw_end(r);
}

static void b_numa_no_ncpt(struct raw *r)
{
	static const uint32_t d[4] = {10, 20, 20, 10};

	raw_nest(r, LNETK_A_NUMA);
	raw_bin(r, LNETK_NUMA_A_DIST, d, sizeof(d));
	raw_end(r);
}

static void b_select_no_dst(struct raw *r)
{
	raw_nest(r, LNETK_A_SELECT);
	raw_u8(r, LNETK_SEL_A_KIND, LNETK_MSG_PUT);
	raw_end(r);
}

/* --- wrong type or size ------------------------------------------------------------ */

static void b_health_u8(struct raw *r)
{
	ni_nid(r, "10.9.0.1@tcp");
	raw_u8(r, LNETK_NI_A_HEALTH, 5);
	raw_end(r);
}

static void b_cpts_u32(struct raw *r)
{
	ni_nid(r, "10.9.0.9@tcp");
	raw_u32(r, LNETK_NI_A_CPTS, 1);
	raw_end(r);
}

static void b_ni_not_nest(struct raw *r)
{
	raw_u32(r, LNETK_A_NI, 1);
}

static void b_mr_u32(struct raw *r)
{
	peer_primary(r, "10.9.0.120@tcp");
	raw_u32(r, LNETK_PEER_A_MR, 1);
	raw_end(r);
}

static void b_numa_short(struct raw *r)
{
	static const uint32_t d[3] = {10, 20, 20};

	raw_nest(r, LNETK_A_NUMA);
	raw_u32(r, LNETK_NUMA_A_NCPT, 2);
	raw_bin(r, LNETK_NUMA_A_DIST, d, sizeof(d));
	raw_end(r);
}

static void b_kind_u32(struct raw *r)
{
	sel_dst(r);
	raw_u32(r, LNETK_SEL_A_KIND, 1);
	raw_end(r);
}

static void b_count_u64(struct raw *r)
{
	raw_u64(r, LNETK_A_COUNT, 1);
}

/* --- out of range -------------------------------------------------------------------- */

static void b_health_1001(struct raw *r)
{
	ni_nid(r, "10.9.0.1@tcp");
	raw_u32(r, LNETK_NI_A_HEALTH, 1001);
	raw_end(r);
}

static void b_up_2(struct raw *r)
{
	ni_nid(r, "10.9.0.1@tcp");
	raw_u8(r, LNETK_NI_A_UP, 2);
	raw_end(r);
}

static void b_dev_cpt_64(struct raw *r)
{
	ni_nid(r, "10.9.0.9@tcp");
	raw_u32(r, LNETK_NI_A_DEV_CPT, 64);
	raw_end(r);
}

static void b_peer_credits_0(struct raw *r)
{
	ni_nid(r, "10.9.0.9@tcp");
	raw_u32(r, LNETK_NI_A_PEER_CREDITS, 0);
	raw_end(r);
}

static void b_conns_per_peer_128(struct raw *r)
{
	ni_nid(r, "10.9.0.9@tcp");
	raw_u32(r, LNETK_NI_A_CONNS_PER_PEER, 128);
	raw_end(r);
}

static void b_pni_health_1001(struct raw *r)
{
	raw_nest(r, LNETK_A_PEER_NI);
	raw_str(r, LNETK_PNI_A_NID, "10.9.0.101@tcp");
	raw_u32(r, LNETK_PNI_A_HEALTH, 1001);
	raw_end(r);
}

static void b_mr_2(struct raw *r)
{
	peer_primary(r, "10.9.0.120@tcp");
	raw_u8(r, LNETK_PEER_A_MR, 2);
	raw_end(r);
}

static void b_hops_0(struct raw *r)
{
	route_both(r);
	raw_u32(r, LNETK_ROUTE_A_HOPS, 0);
	raw_end(r);
}

static void b_hops_256(struct raw *r)
{
	route_both(r);
	raw_u32(r, LNETK_ROUTE_A_HOPS, 256);
	raw_end(r);
}

static void b_rule_prio_max(struct raw *r)
{
	raw_nest(r, LNETK_A_RULE);
	raw_str(r, LNETK_RULE_A_SRC, "tcp7");
	raw_u32(r, LNETK_RULE_A_PRIORITY, 0xffffffffu);
	raw_end(r);
}

static void b_ncpt_65(struct raw *r)
{
	raw_nest(r, LNETK_A_NUMA);
	raw_u32(r, LNETK_NUMA_A_NCPT, LNETK_MAX_CPTS + 1);
	raw_end(r);
}

static void b_kind_4(struct raw *r)
{
	sel_dst(r);
	raw_u8(r, LNETK_SEL_A_KIND, 4);
	raw_end(r);
}

static void b_md_cpt_64(struct raw *r)
{
	sel_dst(r);
	raw_u32(r, LNETK_SEL_A_MD_CPT, 64);
	raw_end(r);
}

static void b_md_cpt_minus2(struct raw *r)
{
	sel_dst(r);
	raw_u32(r, LNETK_SEL_A_MD_CPT, (uint32_t)-2);
	raw_end(r);
}

/* discovery is 0 (off), 1 (on) or 2 (verify only) */
static void b_global_discovery_3(struct raw *r)
{
	raw_nest(r, LNETK_A_GLOBAL);
	raw_str(r, LNETK_GLOBAL_A_NAME, "discovery");
	raw_u32(r, LNETK_GLOBAL_A_VALUE, 3);
	raw_end(r);
}

/* --- oversized strings --------------------------------------------------------------- */

static char long_text[LNETK_EXPR_MAX + 16];

static const char *repeat(char c, size_t n)
{
	memset(long_text, c, n);
	long_text[n] = '\0';
	return long_text;
}

static void b_nid_64(struct raw *r)
{
	char nid[LNETK_NID_MAX + 1];

	/* 64 characters and the NUL: one too many, however good a NID it is otherwise. */
	memcpy(nid, "10.9.0.9@tcp", 12);
	memcpy(nid + 12, repeat('0', LNETK_NID_MAX - 12), LNETK_NID_MAX - 12 + 1);
	ni_nid(r, nid);
	raw_end(r);
}

static void b_ifname_16(struct raw *r)
{
	ni_nid(r, "10.9.0.9@tcp");
	raw_str(r, LNETK_NI_A_IFNAME, repeat('e', LNETK_IFNAME_MAX));
	raw_end(r);
}

static void b_expr_4097(struct raw *r)
{
	raw_nest(r, LNETK_A_RULE);
	raw_str(r, LNETK_RULE_A_SRC, repeat(' ', LNETK_EXPR_MAX));
	raw_u32(r, LNETK_RULE_A_PRIORITY, 1);
	raw_end(r);
}

static void b_global_name_64(struct raw *r)
{
	raw_nest(r, LNETK_A_GLOBAL);
	raw_str(r, LNETK_GLOBAL_A_NAME, repeat('g', LNETK_NAME_MAX));
	raw_u32(r, LNETK_GLOBAL_A_VALUE, 1);
	raw_end(r);
}

static void b_net_16(struct raw *r)
{
	raw_nest(r, LNETK_A_ROUTE);
	raw_str(r, LNETK_ROUTE_A_NET, repeat('o', LNETK_NET_MAX));
	raw_str(r, LNETK_ROUTE_A_GATEWAY, "10.9.0.77@tcp");
	raw_end(r);
}

/* --- bad NIDs, nets and expressions -------------------------------------------------- */

static void b_nid_256(struct raw *r)
{
	ni_nid(r, "10.9.0.256@tcp");
	raw_end(r);
}

static void b_primary_garbage(struct raw *r)
{
	peer_primary(r, "not a nid");
	raw_end(r);
}

static void b_second_nid_bad(struct raw *r)
{
	peer_primary(r, "10.9.0.130@tcp");
	raw_nest(r, LNETK_PEER_A_PEER_NI);
	raw_str(r, LNETK_PNI_A_NID, "10.9.0.131@tcp");
	raw_end(r);
	raw_nest(r, LNETK_PEER_A_PEER_NI);
	raw_str(r, LNETK_PNI_A_NID, "10.9.0.132@");
	raw_end(r);
	raw_end(r);
}

static void b_select_bad_dst(struct raw *r)
{
	raw_nest(r, LNETK_A_SELECT);
	raw_str(r, LNETK_SEL_A_DST, "@tcp");
	raw_end(r);
}

static void b_rule_bad_range(struct raw *r)
{
	raw_nest(r, LNETK_A_RULE);
	raw_str(r, LNETK_RULE_A_SRC, "10.9.0.[5-2]@tcp");
	raw_u32(r, LNETK_RULE_A_PRIORITY, 1);
	raw_end(r);
}

static void b_route_bad_net(struct raw *r)
{
	raw_nest(r, LNETK_A_ROUTE);
	raw_str(r, LNETK_ROUTE_A_NET, "notanet");
	raw_str(r, LNETK_ROUTE_A_GATEWAY, "10.9.0.77@tcp");
	raw_end(r);
}

static void b_empty_nid(struct raw *r)
{
	ni_nid(r, "");
	raw_end(r);
}

/* --- unknown flags and attributes ----------------------------------------------------- */

static void b_rule_del_flag_bit5(struct raw *r)
{
	raw_u32(r, LNETK_A_FLAGS, 1u << 5);
}

static void b_batch_flag_bit31(struct raw *r)
{
	raw_u32(r, LNETK_A_FLAGS, 1u << 31);
	ni_nid(r, "10.9.0.9@tcp");
	raw_end(r);
}

static void b_select_flag_bit3(struct raw *r)
{
	raw_u32(r, LNETK_A_FLAGS, LNETK_F_EXPLAIN | (1u << 3));
	sel_dst(r);
	raw_end(r);
}

static void b_unknown_top(struct raw *r)
{
	ni_nid(r, "10.9.0.9@tcp");
	raw_end(r);
	raw_u32(r, LNETK_A_MAX + 1, 1);
}

static void b_unknown_nested(struct raw *r)
{
	ni_nid(r, "10.9.0.9@tcp");
	raw_u32(r, LNETK_NI_A_MAX + 1, 1);
	raw_end(r);
}

static void b_unknown_in_pni(struct raw *r)
{
	peer_primary(r, "10.9.0.120@tcp");
	raw_nest(r, LNETK_PEER_A_PEER_NI);
	raw_str(r, LNETK_PNI_A_NID, "10.9.0.121@tcp");
	raw_u32(r, LNETK_PNI_A_MAX + 1, 1);
	raw_end(r);
	raw_end(r);
}

static void b_ni_add_with_route(struct raw *r)
{
	ni_nid(r, "10.9.0.9@tcp");
	raw_end(r);
	route_both(r);
	raw_end(r);
}

static void b_ni_add_with_prio(struct raw *r)
{
	ni_nid(r, "10.9.0.9@tcp");
	raw_u32(r, LNETK_NI_A_PRIO, 1);
	raw_end(r);
}

static void b_rule_add_with_kind(struct raw *r)
{
	raw_nest(r, LNETK_A_RULE);
	raw_str(r, LNETK_RULE_A_SRC, "tcp7");
	raw_u32(r, LNETK_RULE_A_PRIORITY, 1);
	raw_u8(r, LNETK_RULE_A_KIND, LNETK_RULE_SRC_NET);
	raw_end(r);
}

static void b_peer_add_with_implicit(struct raw *r)
{
	peer_primary(r, "10.9.0.120@tcp");
	raw_u8(r, LNETK_PEER_A_IMPLICIT, 1);
	raw_end(r);
}

/* --- the object model's refusals --------------------------------------------------------- */

static void b_ni_dup(struct raw *r)
{
	ni_nid(r, "10.9.0.1@tcp");
	raw_end(r);
}

static void b_ni_missing(struct raw *r)
{
	ni_nid(r, "10.9.0.99@tcp");
	raw_end(r);
}

static void b_nid_owned(struct raw *r)
{
	peer_primary(r, "10.9.0.140@tcp");
	raw_nest(r, LNETK_PEER_A_PEER_NI);
	raw_str(r, LNETK_PNI_A_NID, "10.9.0.141@tcp");
	raw_end(r);
	raw_nest(r, LNETK_PEER_A_PEER_NI);
	raw_str(r, LNETK_PNI_A_NID, "10.9.0.101@tcp");
	raw_end(r);
	raw_end(r);
}

static void b_gateway_busy(struct raw *r)
{
	peer_primary(r, "10.9.0.50@tcp");
	raw_end(r);
}

static void b_route_missing(struct raw *r)
{
	route_both(r);
	raw_end(r);
}

static void b_rule_idx_99(struct raw *r)
{
	raw_nest(r, LNETK_A_RULE);
	raw_u32(r, LNETK_RULE_A_IDX, 99);
	raw_end(r);
}

static void b_select_unknown(struct raw *r)
{
	raw_nest(r, LNETK_A_SELECT);
	raw_str(r, LNETK_SEL_A_DST, "10.9.0.199@tcp");
	raw_end(r);
}

static void b_select_unreachable(struct raw *r)
{
	raw_nest(r, LNETK_A_SELECT);
	raw_str(r, LNETK_SEL_A_DST, "172.16.8.1@o2ib8");
	raw_end(r);
}

static void b_peer_del_one_missing(struct raw *r)
{
	peer_primary(r, "10.9.0.100@tcp");
	raw_nest(r, LNETK_PEER_A_PEER_NI);
	raw_str(r, LNETK_PNI_A_NID, "10.9.0.101@tcp");
	raw_end(r);
	raw_nest(r, LNETK_PEER_A_PEER_NI);
	raw_str(r, LNETK_PNI_A_NID, "10.9.0.199@tcp");
	raw_end(r);
	raw_end(r);
}

static void b_ni_add_with_health(struct raw *r)
{
	ni_nid(r, "10.9.0.9@tcp");
	raw_u32(r, LNETK_NI_A_HEALTH, 5);
	raw_end(r);
}

static void b_ni_set_with_ifname(struct raw *r)
{
	ni_nid(r, "10.9.0.1@tcp");
	raw_u32(r, LNETK_NI_A_HEALTH, 5);
	raw_str(r, LNETK_NI_A_IFNAME, "eth9");
	raw_end(r);
}

static void b_global_unknown(struct raw *r)
{
	raw_nest(r, LNETK_A_GLOBAL);
	raw_str(r, LNETK_GLOBAL_A_NAME, "no_such_setting");
	raw_u32(r, LNETK_GLOBAL_A_VALUE, 1);
	raw_end(r);
}

static const struct refusal refusals[] = {
	{"NI_ADD without LNETK_A_NI", LNETK_CMD_NI_ADD, -EINVAL, b_ni_add_nothing},
	{"NI_ADD without LNETK_NI_A_NID", LNETK_CMD_NI_ADD, -EINVAL, b_ni_add_no_nid},
	{"NI_DEL with an empty NI", LNETK_CMD_NI_DEL, -EINVAL, b_ni_del_empty},
	{"PEER_ADD without a primary NID", LNETK_CMD_PEER_ADD, -EINVAL, b_peer_add_no_primary},
	{"PEER_NI_SET without a NID", LNETK_CMD_PEER_NI_SET, -EINVAL, b_pni_set_no_nid},
	{"ROUTE_ADD without a gateway", LNETK_CMD_ROUTE_ADD, -EINVAL, b_route_no_gw},
	{"ROUTE_ADD without a net", LNETK_CMD_ROUTE_ADD, -EINVAL, b_route_no_net},
	{"RULE_DEL with neither an idx nor LNETK_F_ALL", LNETK_CMD_RULE_DEL, -EINVAL,
	 b_rule_del_nothing},
	{"GLOBAL_SET without a value", LNETK_CMD_GLOBAL_SET, -EINVAL, b_global_no_value},
	{"NUMA_SET without NCPT", LNETK_CMD_NUMA_SET, -EINVAL, b_numa_no_ncpt},
	{"SELECT without a destination", LNETK_CMD_SELECT, -EINVAL, b_select_no_dst},

	{"NI_SET with a 1-byte health", LNETK_CMD_NI_SET, -EINVAL, b_health_u8},
	{"NI_ADD with a 4-byte CPT mask", LNETK_CMD_NI_ADD, -EINVAL, b_cpts_u32},
	{"NI_ADD with LNETK_A_NI a u32, not a nest", LNETK_CMD_NI_ADD, -EINVAL, b_ni_not_nest},
	{"PEER_ADD with a 4-byte MR", LNETK_CMD_PEER_ADD, -EINVAL, b_mr_u32},
	{"NUMA_SET with 3 distances for 2 CPTs", LNETK_CMD_NUMA_SET, -EINVAL, b_numa_short},
	{"SELECT with a 4-byte kind", LNETK_CMD_SELECT, -EINVAL, b_kind_u32},
	{"BUMP with an 8-byte count", LNETK_CMD_BUMP, -EINVAL, b_count_u64},

	{"NI_SET health 1001", LNETK_CMD_NI_SET, -ERANGE, b_health_1001},
	{"NI_SET up 2", LNETK_CMD_NI_SET, -ERANGE, b_up_2},
	{"NI_ADD dev_cpt 64", LNETK_CMD_NI_ADD, -ERANGE, b_dev_cpt_64},
	{"NI_ADD peer_credits 0", LNETK_CMD_NI_ADD, -ERANGE, b_peer_credits_0},
	{"NI_ADD conns_per_peer 128", LNETK_CMD_NI_ADD, -ERANGE, b_conns_per_peer_128},
	{"PEER_NI_SET health 1001", LNETK_CMD_PEER_NI_SET, -ERANGE, b_pni_health_1001},
	{"PEER_ADD mr 2", LNETK_CMD_PEER_ADD, -ERANGE, b_mr_2},
	{"ROUTE_ADD hops 0", LNETK_CMD_ROUTE_ADD, -ERANGE, b_hops_0},
	{"ROUTE_ADD hops 256", LNETK_CMD_ROUTE_ADD, -ERANGE, b_hops_256},
	{"RULE_ADD priority 4294967295", LNETK_CMD_RULE_ADD, -ERANGE, b_rule_prio_max},
	{"NUMA_SET NCPT 65", LNETK_CMD_NUMA_SET, -ERANGE, b_ncpt_65},
	{"SELECT kind 4", LNETK_CMD_SELECT, -ERANGE, b_kind_4},
	{"SELECT md_cpt 64", LNETK_CMD_SELECT, -ERANGE, b_md_cpt_64},
	{"SELECT md_cpt -2", LNETK_CMD_SELECT, -ERANGE, b_md_cpt_minus2},
	{"GLOBAL_SET discovery 3", LNETK_CMD_GLOBAL_SET, -ERANGE, b_global_discovery_3},

	{"NI_ADD with a 64-character NID", LNETK_CMD_NI_ADD, -EINVAL, b_nid_64},
	{"NI_ADD with a 16-character interface name", LNETK_CMD_NI_ADD, -EINVAL, b_ifname_16},
	{"RULE_ADD with a 4097-character expression", LNETK_CMD_RULE_ADD, -EINVAL, b_expr_4097},
	{"GLOBAL_SET with a 64-character name", LNETK_CMD_GLOBAL_SET, -EINVAL, b_global_name_64},
	{"ROUTE_ADD with a 16-character net", LNETK_CMD_ROUTE_ADD, -EINVAL, b_net_16},

	{"NI_ADD 10.9.0.256@tcp", LNETK_CMD_NI_ADD, -EINVAL, b_nid_256, "10.9.0.256@tcp"},
	{"NI_ADD with an empty NID", LNETK_CMD_NI_ADD, -EINVAL, b_empty_nid},
	{"PEER_ADD primary \"not a nid\"", LNETK_CMD_PEER_ADD, -EINVAL, b_primary_garbage,
	 "not a nid"},
	{"PEER_ADD whose second NID does not parse (the first is not added either)",
	 LNETK_CMD_PEER_ADD, -EINVAL, b_second_nid_bad, "10.9.0.132@"},
	{"SELECT to \"@tcp\"", LNETK_CMD_SELECT, -EINVAL, b_select_bad_dst},
	{"RULE_ADD with the range [5-2]", LNETK_CMD_RULE_ADD, -EINVAL, b_rule_bad_range},
	{"ROUTE_ADD to net \"notanet\"", LNETK_CMD_ROUTE_ADD, -EINVAL, b_route_bad_net},

	{"RULE_DEL with unknown flag bit 5", LNETK_CMD_RULE_DEL, EINVAL_OR_EOPNOTSUPP,
	 b_rule_del_flag_bit5},
	{"BATCH with unknown flag bit 31", LNETK_CMD_BATCH, EINVAL_OR_EOPNOTSUPP,
	 b_batch_flag_bit31},
	{"SELECT with unknown flag bit 3", LNETK_CMD_SELECT, EINVAL_OR_EOPNOTSUPP,
	 b_select_flag_bit3},
	{"NI_ADD with an unknown top-level attribute", LNETK_CMD_NI_ADD, -EINVAL, b_unknown_top},
	{"NI_ADD with an unknown NI attribute", LNETK_CMD_NI_ADD, -EINVAL, b_unknown_nested},
	{"PEER_ADD with an unknown peer NI attribute", LNETK_CMD_PEER_ADD, -EINVAL,
	 b_unknown_in_pni},
	{"NI_ADD with an LNETK_A_ROUTE it does not take", LNETK_CMD_NI_ADD, -EINVAL,
	 b_ni_add_with_route},
	{"NI_ADD with the reply-only LNETK_NI_A_PRIO", LNETK_CMD_NI_ADD, -EINVAL,
	 b_ni_add_with_prio},
	{"NI_ADD with LNETK_NI_A_HEALTH, which only NI_SET takes", LNETK_CMD_NI_ADD, -EINVAL,
	 b_ni_add_with_health},
	{"NI_SET with LNETK_NI_A_IFNAME, which only NI_ADD takes", LNETK_CMD_NI_SET, -EINVAL,
	 b_ni_set_with_ifname},
	{"RULE_ADD with the reply-only LNETK_RULE_A_KIND", LNETK_CMD_RULE_ADD, -EINVAL,
	 b_rule_add_with_kind},
	{"PEER_ADD with the reply-only LNETK_PEER_A_IMPLICIT", LNETK_CMD_PEER_ADD, -EINVAL,
	 b_peer_add_with_implicit},

	{"NI_ADD of an NI that exists", LNETK_CMD_NI_ADD, -EEXIST, b_ni_dup},
	{"NI_DEL of an NI that does not exist", LNETK_CMD_NI_DEL, -ENOENT, b_ni_missing},
	{"PEER_ADD of a NID another peer owns (the message names the owner; the other NID "
	 "is not added)",
	 LNETK_CMD_PEER_ADD, -EEXIST, b_nid_owned, "10.9.0.100@tcp"},
	{"PEER_DEL of a gateway that routes use", LNETK_CMD_PEER_DEL, -EBUSY, b_gateway_busy},
	{"PEER_DEL of two NIDs, one not the peer's (the other stays)", LNETK_CMD_PEER_DEL, -ENOENT,
	 b_peer_del_one_missing},
	{"ROUTE_DEL of a route that does not exist", LNETK_CMD_ROUTE_DEL, -ENOENT, b_route_missing},
	{"RULE_DEL of idx 99", LNETK_CMD_RULE_DEL, -ENOENT, b_rule_idx_99},
	{"SELECT to a peer that does not exist", LNETK_CMD_SELECT, -ENOENT, b_select_unknown},
	{"SELECT to a net nothing reaches", LNETK_CMD_SELECT, -EHOSTUNREACH, b_select_unreachable},
	{"GLOBAL_SET of a setting that does not exist", LNETK_CMD_GLOBAL_SET, -ENOENT,
	 b_global_unknown},
};

static bool errno_ok(int want, int got)
{
	if (want == EINVAL_OR_EOPNOTSUPP)
		return got == -EINVAL || got == -EOPNOTSUPP;
	return got == want;
}

static void refuse_one(struct lnetk *lk, const struct refusal *f, struct snapshot *before)
{
	struct snapshot after;
	char ext[256];
	struct raw *r = raw_new(f->cmd);
	bool same, text_ok;
	int rc;

	f->build(r);
	rc = raw_send(r, ext, sizeof(ext));
	snapshot_take(lk, &after);
	same = snapshot_same(before, &after);
	text_ok = ext[0] && (!f->ext_has || strstr(ext, f->ext_has));
	if (!errno_ok(f->want, rc) || !text_ok || !same)
		diag("%s: want %s, got %s; extack \"%s\"%s%s%s", f->what,
		     f->want == EINVAL_OR_EOPNOTSUPP ? "EINVAL or EOPNOTSUPP" : errname(f->want),
		     errname(rc), ext,
		     f->ext_has && !strstr(ext, f->ext_has) ? " (should name \"" : "",
		     f->ext_has && !strstr(ext, f->ext_has) ? f->ext_has : "",
		     same ? "" : "; the state changed");
	tap(errno_ok(f->want, rc) && text_ok && same,
	    "%s: refused with %s and a reason, nothing changed", f->what, errname(rc));
	snapshot_free(&after);
}

/* E2BIG needs max_interfaces lowered first: that change is outside the comparison. */
static void refuse_max_interfaces(struct lnetk *lk)
{
	const char *nids[17];
	char buf[17][LNETK_NID_MAX];
	struct snapshot before, after;
	struct lnetk_err err;
	int i, rc, set;

	for (i = 0; i < 17; i++) {
		snprintf(buf[i], sizeof(buf[i]), "10.9.1.%d@tcp", i + 1);
		nids[i] = buf[i];
	}
	set = lnetk_global_set(lk, "max_interfaces", 16, &err);
	snapshot_take(lk, &before);
	rc = lnetk_peer_add(lk, "10.9.1.100@tcp", true, nids, 17, &err);
	snapshot_take(lk, &after);
	tap(!set && rc == -E2BIG && err.msg[0] && snapshot_same(&before, &after),
	    "PEER_ADD of 18 NIDs with max_interfaces 16: refused with %s and a reason (\"%s\"), "
	    "nothing changed",
	    errname(rc), err.msg);
	lnetk_global_set(lk, "max_interfaces", 200, NULL);
	snapshot_free(&before);
	snapshot_free(&after);
}

static void count_event(uint8_t cmd, uint64_t gen, void *arg)
{
	++*(int *)arg;
}

void cases_refuse(void)
{
	struct lnetk_events *ev = NULL;
	struct snapshot before;
	int events = 0;
	struct lnetk *lk;
	size_t i;
	int rc;

	if (new_netns()) {
		tap(false, "refuse: a network namespace of its own");
		return;
	}
	lk = open_or_fail("refuse");
	if (!lk)
		return;
	rc = populate(lk);
	if (rc) {
		tap(false, "refuse: populate the instance (%s)", errname(rc));
		lnetk_close(lk);
		return;
	}
	rc = lnetk_events_open(count_event, &events, &ev);
	snapshot_take(lk, &before);
	if (before.rc)
		tap(false, "refuse: read the whole state (%s)", errname(before.rc));
	for (i = 0; i < sizeof(refusals) / sizeof(refusals[0]); i++)
		refuse_one(lk, &refusals[i], &before);
	rc = rc ?: lnetk_events_dispatch(ev);
	tap(rc >= 0 && events == 0, "no refusal was announced on the events group (%d events)",
	    events);
	lnetk_events_close(ev);
	refuse_max_interfaces(lk);
	snapshot_free(&before);
	lnetk_close(lk);
}
