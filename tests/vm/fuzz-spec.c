// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz-spec.c - genl-test fuzz's picture of the contract (uapi/lnetk.h):
 * the seeded generator, each nest's attribute policy, what each command
 * takes, and the strings valid-looking values are drawn from.
 */
#include <stdio.h>
#include <string.h>

#include "engine/tunables.h"
#include "fuzz.h"

/* --- the generator ------------------------------------------------------------ */

uint64_t rng;

uint64_t rnd(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

uint32_t below(uint32_t n)
{
	return n ? (uint32_t)(rnd() % n) : 0;
}

bool chance(unsigned int pct)
{
	return below(100) < pct;
}

const int kind_len[] = {1, 2, 4, 8, 4, 0, 0, 0};

#define U32_MAX_ 4294967295ll
#define A_INT(t, k, vl, vh)                                        \
	{                                                          \
		.type = (t), .kind = (k), .vlo = (vl), .vhi = (vh) \
	}
#define A_RANGE(t, k, l, h, vl, vh)                                                          \
	{                                                                                    \
		.type = (t), .kind = (k), .ranged = true, .lo = (l), .hi = (h), .vlo = (vl), \
		.vhi = (vh)                                                                  \
	}
#define A_STR(t, p, m)                                              \
	{                                                           \
		.type = (t), .kind = K_STR, .pool = (p), .max = (m) \
	}
#define A_NEST(t, n)                                     \
	{                                                \
		.type = (t), .kind = K_NEST, .nest = (n) \
	}

static const struct aspec pni_pol[] = {
	A_STR(LNETK_PNI_A_NID, P_NID, LNETK_NID_MAX),
	A_RANGE(LNETK_PNI_A_HEALTH, K_U32, 0, 1000, 0, 1000),
	A_INT(LNETK_PNI_A_CREDITS, K_S32, -8, 64),
};
static const struct nspec pni_nest = {"PEER_NI", LNETK_PNI_A_MAX, pni_pol, 3};

/* The NI tunables (engine/tunables.h), each with the range the table gives it. */
#define TUN_ASPEC(id, name, opt, sec, genl, l, h, ds, d2, fl, ...)       \
	A_RANGE(genl, K_U32, l, ((fl)&LNE_TUN_F_OFF) ? U32_MAX : (h), l, \
		(h) - (l) > 256 ? (l) + 256 : (h)),
#define TUN_BIT(id, name, opt, sec, genl, ...) B(genl) |

static const struct aspec ni_pol[] = {
	A_STR(LNETK_NI_A_NID, P_NID, LNETK_NID_MAX),
	A_STR(LNETK_NI_A_IFNAME, P_IFNAME, LNETK_IFNAME_MAX),
	A_INT(LNETK_NI_A_CPTS, K_U64, 0, 15),
	A_RANGE(LNETK_NI_A_DEV_CPT, K_S32, -1, LNETK_MAX_CPTS - 1, -1, 3),
	A_RANGE(LNETK_NI_A_PLACE, K_U64, 1, INT64_MAX, 1, 64),
	LNE_TUNABLES(TUN_ASPEC) A_RANGE(LNETK_NI_A_UP, K_U8, 0, 1, 0, 1),
	A_RANGE(LNETK_NI_A_HEALTH, K_U32, 0, 1000, 0, 1000),
	A_INT(LNETK_NI_A_TX_CREDITS, K_S32, -8, 64),
};
static const struct nspec ni_nest = {"NI", LNETK_NI_A_MAX, ni_pol,
				     sizeof(ni_pol) / sizeof(ni_pol[0])};

static const struct aspec peer_pol[] = {
	A_STR(LNETK_PEER_A_PRIMARY, P_NID, LNETK_NID_MAX),
	A_RANGE(LNETK_PEER_A_MR, K_U8, 0, 1, 0, 1),
	A_NEST(LNETK_PEER_A_PEER_NI, &pni_nest),
};
static const struct nspec peer_nest = {"PEER", LNETK_PEER_A_MAX, peer_pol, 3};

static const struct aspec route_pol[] = {
	A_STR(LNETK_ROUTE_A_NET, P_NET, LNETK_NET_MAX),
	A_STR(LNETK_ROUTE_A_GATEWAY, P_NID, LNETK_NID_MAX),
	A_RANGE(LNETK_ROUTE_A_HOPS, K_U32, 1, 255, 1, 4),
	A_RANGE(LNETK_ROUTE_A_PRIORITY, K_U32, 0, 0xfffffffell, 0, 4),
	A_INT(LNETK_ROUTE_A_SENSITIVITY, K_U32, 0, 2),
};
static const struct nspec route_nest = {"ROUTE", LNETK_ROUTE_A_MAX, route_pol, 5};

static const struct aspec rule_pol[] = {
	A_STR(LNETK_RULE_A_SRC, P_EXPR, LNETK_EXPR_MAX),
	A_STR(LNETK_RULE_A_DST, P_EXPR, LNETK_EXPR_MAX),
	A_STR(LNETK_RULE_A_RTE, P_EXPR, LNETK_EXPR_MAX),
	A_RANGE(LNETK_RULE_A_PRIORITY, K_U32, 0, 0xfffffffell, 0, 5),
	A_INT(LNETK_RULE_A_IDX, K_U32, 0, 6),
};
static const struct nspec rule_nest = {"RULE", LNETK_RULE_A_MAX, rule_pol, 5};

static const struct aspec global_pol[] = {
	A_STR(LNETK_GLOBAL_A_NAME, P_GNAME, LNETK_NAME_MAX),
	A_INT(LNETK_GLOBAL_A_VALUE, K_U32, 0, 3),
};
static const struct nspec global_nest = {"GLOBAL", LNETK_GLOBAL_A_MAX, global_pol, 2};

static const struct aspec numa_pol[] = {
	A_RANGE(LNETK_NUMA_A_NCPT, K_U32, 0, LNETK_MAX_CPTS, 0, 4),
	{.type = LNETK_NUMA_A_DIST, .kind = K_BIN, .max = LNETK_MAX_CPTS * LNETK_MAX_CPTS * 4},
};
static const struct nspec numa_nest = {"NUMA", LNETK_NUMA_A_MAX, numa_pol, 2};

static const struct aspec sel_pol[] = {
	A_STR(LNETK_SEL_A_DST, P_NID, LNETK_NID_MAX),
	A_STR(LNETK_SEL_A_SRC, P_NID, LNETK_NID_MAX),
	A_RANGE(LNETK_SEL_A_KIND, K_U8, 0, LNETK_MSG_REPLY, 0, 3),
	A_RANGE(LNETK_SEL_A_MD_CPT, K_S32, -1, LNETK_MAX_CPTS - 1, -1, 3),
};
static const struct nspec sel_nest = {"SELECT", LNETK_SEL_A_MAX, sel_pol, 4};

static const struct aspec tbfl_pol[] = {
	A_STR(LNETK_TBFL_A_NID, P_NID, LNETK_NID_MAX),
	A_RANGE(LNETK_TBFL_A_QUEUE, K_U8, 0, LNETK_TBF_HP, 0, 1),
};
static const struct nspec tbfl_nest = {"LOAD_CLASS", LNETK_TBFL_A_MAX, tbfl_pol, 2};

static const struct aspec tbf_pol[] = {
	A_STR(LNETK_TBF_A_SERVICE, P_SERVICE, LNETK_TBF_SERVICE_MAX),
	A_RANGE(LNETK_TBF_A_QUEUE, K_U8, 0, LNETK_TBF_HP, 0, 1),
	A_STR(LNETK_TBF_A_TYPE, P_TBFTYPE, LNETK_TBF_TYPE_MAX),
	A_RANGE(LNETK_TBF_A_DEPTH, K_U32, 1, LNETK_TBF_DEPTH_MAX, 1, 20),
	A_STR(LNETK_TBF_A_CMD, P_TBFCMD, LNETK_TBF_CMD_MAX),
	/* Valid loads are short: a load blocks the caller that long. */
	A_RANGE(LNETK_TBF_A_LOAD_MS, K_U32, LNETK_TBF_LOAD_MS_MIN, LNETK_TBF_LOAD_MS_MAX,
		LNETK_TBF_LOAD_MS_MIN, LNETK_TBF_LOAD_MS_MIN + 5),
	A_NEST(LNETK_TBF_A_LOAD_CLASS, &tbfl_nest),
};
const struct nspec tbf_nest = {"TBF", LNETK_TBF_A_MAX, tbf_pol, 7};

static const struct aspec fault_pol[] = {
	A_RANGE(LNETK_FAULT_A_DELAY, K_U8, 0, 1, 0, 1),
};
static const struct nspec fault_nest = {"FAULT", LNETK_FAULT_A_MAX, fault_pol, 1};

static const struct aspec health_pol[] = {
	A_STR(LNETK_HEALTH_A_NID, P_NID, LNETK_NID_MAX),
	A_RANGE(LNETK_HEALTH_A_PEER, K_U8, 0, 1, 0, 1),
};
static const struct nspec health_nest = {"HEALTH", LNETK_HEALTH_A_MAX, health_pol, 2};

static const struct aspec top_pol[] = {
	A_RANGE(LNETK_A_COUNT, K_U32, 1, LNETK_BUMP_MAX, 1, 3),
	A_INT(LNETK_A_FLAGS, K_U32, 0, 0),
	A_NEST(LNETK_A_NI, &ni_nest),
	A_NEST(LNETK_A_PEER, &peer_nest),
	A_NEST(LNETK_A_PEER_NI, &pni_nest),
	A_NEST(LNETK_A_ROUTE, &route_nest),
	A_NEST(LNETK_A_RULE, &rule_nest),
	A_NEST(LNETK_A_GLOBAL, &global_nest),
	A_NEST(LNETK_A_NUMA, &numa_nest),
	A_NEST(LNETK_A_SELECT, &sel_nest),
	A_NEST(LNETK_A_TBF, &tbf_nest),
	A_NEST(LNETK_A_FAULT, &fault_nest),
	A_NEST(LNETK_A_HEALTH, &health_nest),
};
const struct nspec top_nest = {"top", LNETK_A_MAX, top_pol, 13};

const struct aspec *pol_find(const struct nspec *n, int type)
{
	int i;

	for (i = 0; i < n->npol; i++)
		if (n->pol[i].type == type)
			return &n->pol[i];
	return NULL;
}

static const struct take t_pni_nid = {B(LNETK_PNI_A_NID), B(LNETK_PNI_A_NID), NULL};
static const struct take t_ni_add = {B(LNETK_NI_A_NID) | B(LNETK_NI_A_IFNAME) | B(LNETK_NI_A_CPTS) |
					     B(LNETK_NI_A_DEV_CPT) | B(LNETK_NI_A_PLACE) |
					     LNE_TUNABLES(TUN_BIT) 0,
				     B(LNETK_NI_A_NID), NULL};
static const struct take t_ni_nid = {B(LNETK_NI_A_NID), B(LNETK_NI_A_NID), NULL};
static const struct take t_ni_set = {B(LNETK_NI_A_NID) | B(LNETK_NI_A_HEALTH) | B(LNETK_NI_A_UP) |
					     B(LNETK_NI_A_TX_CREDITS),
				     B(LNETK_NI_A_NID), NULL};
static const struct take t_peer_add = {B(LNETK_PEER_A_PRIMARY) | B(LNETK_PEER_A_MR) |
					       B(LNETK_PEER_A_PEER_NI),
				       B(LNETK_PEER_A_PRIMARY), &t_pni_nid};
static const struct take t_peer_del = {B(LNETK_PEER_A_PRIMARY) | B(LNETK_PEER_A_PEER_NI),
				       B(LNETK_PEER_A_PRIMARY), &t_pni_nid};
static const struct take t_peer_get = {B(LNETK_PEER_A_PRIMARY), B(LNETK_PEER_A_PRIMARY), NULL};
static const struct take t_pni_set = {B(LNETK_PNI_A_NID) | B(LNETK_PNI_A_HEALTH) |
					      B(LNETK_PNI_A_CREDITS),
				      B(LNETK_PNI_A_NID), NULL};
static const struct take t_route_add = {B(LNETK_ROUTE_A_NET) | B(LNETK_ROUTE_A_GATEWAY) |
						B(LNETK_ROUTE_A_HOPS) | B(LNETK_ROUTE_A_PRIORITY) |
						B(LNETK_ROUTE_A_SENSITIVITY),
					B(LNETK_ROUTE_A_NET) | B(LNETK_ROUTE_A_GATEWAY), NULL};
static const struct take t_route_del = {B(LNETK_ROUTE_A_NET) | B(LNETK_ROUTE_A_GATEWAY),
					B(LNETK_ROUTE_A_NET) | B(LNETK_ROUTE_A_GATEWAY), NULL};
static const struct take t_rule_add = {B(LNETK_RULE_A_SRC) | B(LNETK_RULE_A_DST) |
					       B(LNETK_RULE_A_RTE) | B(LNETK_RULE_A_PRIORITY) |
					       B(LNETK_RULE_A_IDX),
				       0, NULL};
static const struct take t_rule_del = {B(LNETK_RULE_A_IDX), B(LNETK_RULE_A_IDX), NULL};
static const struct take t_global = {B(LNETK_GLOBAL_A_NAME) | B(LNETK_GLOBAL_A_VALUE),
				     B(LNETK_GLOBAL_A_NAME) | B(LNETK_GLOBAL_A_VALUE), NULL};
static const struct take t_numa = {B(LNETK_NUMA_A_NCPT) | B(LNETK_NUMA_A_DIST),
				   B(LNETK_NUMA_A_NCPT), NULL};
static const struct take t_sel = {B(LNETK_SEL_A_DST) | B(LNETK_SEL_A_SRC) | B(LNETK_SEL_A_KIND) |
					  B(LNETK_SEL_A_MD_CPT),
				  B(LNETK_SEL_A_DST), NULL};
static const struct take t_tbf_set = {B(LNETK_TBF_A_SERVICE) | B(LNETK_TBF_A_QUEUE) |
					      B(LNETK_TBF_A_TYPE) | B(LNETK_TBF_A_DEPTH),
				      B(LNETK_TBF_A_SERVICE), NULL};
static const struct take t_tbf_cmd = {B(LNETK_TBF_A_SERVICE) | B(LNETK_TBF_A_CMD),
				      B(LNETK_TBF_A_SERVICE) | B(LNETK_TBF_A_CMD), NULL};
static const struct take t_tbf_svc = {B(LNETK_TBF_A_SERVICE), B(LNETK_TBF_A_SERVICE), NULL};
static const struct take t_tbfl = {B(LNETK_TBFL_A_NID) | B(LNETK_TBFL_A_QUEUE), B(LNETK_TBFL_A_NID),
				   NULL};
static const struct take t_tbf_load = {
	B(LNETK_TBF_A_SERVICE) | B(LNETK_TBF_A_LOAD_MS) | B(LNETK_TBF_A_LOAD_CLASS),
	B(LNETK_TBF_A_SERVICE) | B(LNETK_TBF_A_LOAD_MS) | B(LNETK_TBF_A_LOAD_CLASS), &t_tbfl};
static const struct take t_flags = {0, 0, NULL};
static const struct take t_fault_get = {B(LNETK_FAULT_A_DELAY), 0, NULL};
static const struct take t_health_nid = {B(LNETK_HEALTH_A_NID), B(LNETK_HEALTH_A_NID), NULL};
static const struct take t_recovery = {B(LNETK_HEALTH_A_PEER), 0, NULL};

#define ONE(t, k)                                            \
	{                                                    \
		.type = (t), .min = 1, .max = 1, .take = (k) \
	}
#define OPT(t, k)                                            \
	{                                                    \
		.type = (t), .min = 0, .max = 1, .take = (k) \
	}
#define MANY(t, k, n)                                          \
	{                                                      \
		.type = (t), .min = 0, .max = (n), .take = (k) \
	}

static const struct take t_count = {0, 0, NULL};

const struct cspec cmds[] = {
	{LNETK_CMD_GET_INFO, "GET_INFO", OP_DO, 0, {{0}}},
	{LNETK_CMD_BUMP, "BUMP", OP_DO | OP_ADMIN, 0, {ONE(LNETK_A_COUNT, &t_count)}},
	{LNETK_CMD_NI_ADD, "NI_ADD", OP_DO | OP_ADMIN, 0, {ONE(LNETK_A_NI, &t_ni_add)}},
	{LNETK_CMD_NI_DEL, "NI_DEL", OP_DO | OP_ADMIN, 0, {ONE(LNETK_A_NI, &t_ni_nid)}},
	{LNETK_CMD_NI_SET, "NI_SET", OP_DO | OP_ADMIN, 0, {ONE(LNETK_A_NI, &t_ni_set)}},
	{LNETK_CMD_NI_GET, "NI_GET", OP_DO | OP_DUMP, 0, {ONE(LNETK_A_NI, &t_ni_nid)}},
	{LNETK_CMD_PEER_ADD, "PEER_ADD", OP_DO | OP_ADMIN, 0, {ONE(LNETK_A_PEER, &t_peer_add)}},
	{LNETK_CMD_PEER_DEL, "PEER_DEL", OP_DO | OP_ADMIN, 0, {ONE(LNETK_A_PEER, &t_peer_del)}},
	{LNETK_CMD_PEER_NI_SET,
	 "PEER_NI_SET",
	 OP_DO | OP_ADMIN,
	 0,
	 {ONE(LNETK_A_PEER_NI, &t_pni_set)}},
	{LNETK_CMD_PEER_GET, "PEER_GET", OP_DO | OP_DUMP, 0, {ONE(LNETK_A_PEER, &t_peer_get)}},
	{LNETK_CMD_ROUTE_ADD, "ROUTE_ADD", OP_DO | OP_ADMIN, 0, {ONE(LNETK_A_ROUTE, &t_route_add)}},
	{LNETK_CMD_ROUTE_DEL, "ROUTE_DEL", OP_DO | OP_ADMIN, 0, {ONE(LNETK_A_ROUTE, &t_route_del)}},
	{LNETK_CMD_ROUTE_GET, "ROUTE_GET", OP_DUMP, 0, {{0}}},
	{LNETK_CMD_RULE_ADD, "RULE_ADD", OP_DO | OP_ADMIN, 0, {ONE(LNETK_A_RULE, &t_rule_add)}},
	{LNETK_CMD_RULE_DEL,
	 "RULE_DEL",
	 OP_DO | OP_ADMIN,
	 LNETK_F_ALL,
	 {OPT(LNETK_A_RULE, &t_rule_del), OPT(LNETK_A_FLAGS, &t_flags)}},
	{LNETK_CMD_RULE_GET, "RULE_GET", OP_DUMP, 0, {{0}}},
	{LNETK_CMD_GLOBAL_SET, "GLOBAL_SET", OP_DO | OP_ADMIN, 0, {ONE(LNETK_A_GLOBAL, &t_global)}},
	{LNETK_CMD_GLOBAL_GET, "GLOBAL_GET", OP_DO, 0, {{0}}},
	{LNETK_CMD_NUMA_SET, "NUMA_SET", OP_DO | OP_ADMIN, 0, {ONE(LNETK_A_NUMA, &t_numa)}},
	{LNETK_CMD_SELECT,
	 "SELECT",
	 OP_DO | OP_ADMIN,
	 LNETK_F_EXPLAIN,
	 {ONE(LNETK_A_SELECT, &t_sel), OPT(LNETK_A_FLAGS, &t_flags)}},
	{LNETK_CMD_BATCH,
	 "BATCH",
	 OP_DO | OP_ADMIN,
	 LNETK_F_REPLACE,
	 {MANY(LNETK_A_NI, &t_ni_add, 3), MANY(LNETK_A_PEER, &t_peer_add, 3),
	  MANY(LNETK_A_ROUTE, &t_route_add, 2), MANY(LNETK_A_RULE, &t_rule_add, 2),
	  MANY(LNETK_A_GLOBAL, &t_global, 2), OPT(LNETK_A_FLAGS, &t_flags)}},
	{LNETK_CMD_TBF_SET, "TBF_SET", OP_DO | OP_ADMIN, 0, {ONE(LNETK_A_TBF, &t_tbf_set)}},
	{LNETK_CMD_TBF_CMD, "TBF_CMD", OP_DO | OP_ADMIN, 0, {ONE(LNETK_A_TBF, &t_tbf_cmd)}},
	{LNETK_CMD_TBF_DEL, "TBF_DEL", OP_DO | OP_ADMIN, 0, {ONE(LNETK_A_TBF, &t_tbf_svc)}},
	{LNETK_CMD_TBF_GET, "TBF_GET", OP_DO | OP_DUMP, 0, {ONE(LNETK_A_TBF, &t_tbf_svc)}},
	{LNETK_CMD_TBF_LOAD, "TBF_LOAD", OP_DO | OP_ADMIN, 0, {ONE(LNETK_A_TBF, &t_tbf_load)}},
	{LNETK_CMD_TBF_CLASS_GET, "TBF_CLASS_GET", OP_DUMP, 0, {OPT(LNETK_A_TBF, &t_tbf_svc)}},
	{LNETK_CMD_EXPLAIN, "EXPLAIN", OP_DO, 0, {ONE(LNETK_A_SELECT, &t_sel)}},
	{LNETK_CMD_FAULT_GET, "FAULT_GET", OP_DO, 0, {ONE(LNETK_A_FAULT, &t_fault_get)}},
	{LNETK_CMD_HEALTH_GET, "HEALTH_GET", OP_DO, 0, {ONE(LNETK_A_HEALTH, &t_health_nid)}},
	{LNETK_CMD_RECOVERY_GET, "RECOVERY_GET", OP_DO, 0, {ONE(LNETK_A_HEALTH, &t_recovery)}},
};

/* --- values ------------------------------------------------------------------ */

static const char *const nids[] = {
	"10.7.0.1@tcp",
	"10.7.0.2@tcp",
	"10.7.0.3@tcp",
	"192.168.7.1@o2ib",
	"192.168.7.2@o2ib",
	"10.7.0.100@tcp",
	"10.7.0.101@tcp",
	"10.7.0.102@tcp",
	"172.16.7.1@o2ib7",
	"172.16.7.2@o2ib7",
	"10.7.0.50@tcp",
	"192.168.7.50@o2ib",
	"0@lo",
	"10.7.0.1@tcp1",
	"5@gni",
	"0x10@kfi",
	"10.7.0.256@tcp",
	"@tcp",
	"10.7.0.1@",
	"10.7.0.1@tcp4294967296",
	"10.7.0.[1-3]@tcp",
	"*@tcp",
	"10.7.0.1@@tcp",
	"10.7.0.1",
	"10.7.0.1@bogus",
	"1.2.3.4.5@tcp",
	"10.7.0.1@tcp 1",
	"10.7.0.1@TCP",
};
static const char *const nets[] = {"tcp", "tcp1",  "o2ib",	    "o2ib7",  "o2ib9", "lo",
				   "gni", "bogus", "tcp4294967295", "o2ib-1", "@tcp",  "tcp "};
static const char *const ifnames[] = {"eth0", "lo", "ib0", "dummy0", "a b", "eth0eth0eth0ab"};
static const char *const exprs[] = {"10.7.0.[1-4]@tcp",
				    "*@tcp",
				    "o2ib[1-3]",
				    "tcp",
				    "o2ib",
				    "10.7.0.*@tcp",
				    "*@*",
				    "*",
				    "10.7.0.100@tcp",
				    "172.16.7.[1-2]@o2ib7",
				    "[",
				    "10.7.0.[4-1]@tcp",
				    "10.7.0.[1-2/0]@tcp",
				    "10.7.0.[1-3,5]@tcp",
				    "tcp[1-1000000]",
				    "10.[0-255].[0-255].[0-255]@tcp",
				    "@",
				    "tcp,o2ib"};
static const char *const gnames[] = {"numa_range",
				     "discovery",
				     "max_interfaces",
				     "retry_count",
				     "transaction_timeout",
				     "health_sensitivity",
				     "recovery_interval",
				     "router_sensitivity",
				     "drop_asym_route",
				     "response_tracking",
				     "recovery_limit",
				     "max_recovery_ping_interval",
				     "bogus",
				     "NUMA_RANGE"};
const char *const services[] = {"fz",  "fz2",	   "ost_io", "a",
				"mdt", "bad-name", "x y",    "0123456789012345678901234567890"};
static const char *const tbftypes[] = {
	"nid",	 "jobid",      "opcode",    "uid",
	"gid",	 "nid+opcode", "jobid+uid", "nid+jobid+opcode+uid+gid",
	"bogus", "nid+nid",    "+",	    "nid+"};
static const char *const tbfcmds[] = {
	"start r1 nid={10.7.0.[1-4]@tcp} rate=500",
	"hp start r2 opcode={ost_read} rate=10",
	"change default rate=20",
	"reg change r1 rate=700",
	"stop r1",
	"hp stop r2",
	"start r3 jobid={dd.0} rate=5",
	"start r4 nid={10.7.0.100@tcp} rate=1 realtime=1",
	"change r1 rank=default",
	"change r4 rank=r1",
	"start r5 uid={0 1 2} gid={3} rate=100",
	"start",
	"stop default",
	"start r1 nid={10.7.0.[1-4]@tcp rate=500",
	"start r6 nid={*} rate=0",
	"start r7 opcode={bogus} rate=10",
	"reg",
	"hp change default rate=4294967296",
};

static const char *pick(const char *const *v, size_t n)
{
	return v[below((uint32_t)n)];
}

/* A NID built from parts, for variety beyond the table; @clean: one that parses. */
static void some_nid(char *buf, size_t size, bool clean)
{
	static const char *const lnds[] = {"tcp", "o2ib", "o2ib7", "tcp1", "lo", "gni", "kfi"};

	if (clean)
		snprintf(buf, size, "10.7.%u.%u@%s", below(3), 1 + below(250), pick(lnds, 3));
	else
		snprintf(buf, size, "10.7.%u.%u@%s", below(3), below(260), pick(lnds, N(lnds)));
}

/* How many entries at the head of each table are well-formed. */
#define CLEAN_NIDS     12
#define CLEAN_NETS     5
#define CLEAN_IFNAMES  4
#define CLEAN_EXPRS    10
#define CLEAN_GNAMES   12
#define CLEAN_TBFTYPES 8
#define CLEAN_TBFCMDS  11

/* Random bytes of length @n (no NUL inside unless @nul_ok), mostly printable. */
void garbage(char *buf, size_t n, bool nul_ok)
{
	static const char set[] = "0123456789abcxyz.@[]-*,{}= +/\\%\t\n\x7f\xff";
	size_t i;

	for (i = 0; i < n; i++) {
		if (chance(80))
			buf[i] = set[below(sizeof(set) - 1)];
		else
			buf[i] = (char)(below(255) + (nul_ok ? 0 : 1));
	}
}

/*
 * A valid-looking string from @pool into @buf (NUL-terminated, shorter
 * than @max); @clean: from the well-formed entries only, so that valid
 * messages (BATCH above all, all or nothing) get past the grammar.
 */
size_t pool_string(int pool, char *buf, size_t max, bool clean)
{
	const char *s = "";

	switch (pool) {
	case P_NID:
		if (chance(25)) {
			some_nid(buf, max, clean);
			return strlen(buf);
		}
		s = pick(nids, clean ? CLEAN_NIDS : N(nids));
		break;
	case P_NET:
		s = pick(nets, clean ? CLEAN_NETS : N(nets));
		break;
	case P_IFNAME:
		s = pick(ifnames, clean ? CLEAN_IFNAMES : N(ifnames));
		break;
	case P_EXPR:
		s = pick(exprs, clean ? CLEAN_EXPRS : N(exprs));
		break;
	case P_GNAME:
		s = pick(gnames, clean ? CLEAN_GNAMES : N(gnames));
		break;
	case P_SERVICE:
		s = chance(70) || clean ? (chance(70) ? "fz" : "fz2") : pick(services, N(services));
		break;
	case P_TBFTYPE:
		s = pick(tbftypes, clean ? CLEAN_TBFTYPES : N(tbftypes));
		break;
	case P_TBFCMD:
		s = pick(tbfcmds, clean ? CLEAN_TBFCMDS : N(tbfcmds));
		break;
	}
	snprintf(buf, max, "%s", s);
	return strlen(buf);
}
