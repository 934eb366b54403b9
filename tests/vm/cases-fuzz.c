// SPDX-License-Identifier: GPL-2.0
/*
 * cases-fuzz.c - hostile generic netlink messages for every command of the
 * "lnetk" family (genl-test fuzz).
 *
 * A seeded generator builds each command's valid attribute tree from a
 * table of the contract (uapi/lnetk.h) and mutates it: attributes missing,
 * repeated, of the wrong size or type, out of their range, strings empty,
 * without NUL or too long, nests flat and flat attributes nested, nests
 * cut short, unknown attribute ids, attributes the command does not take,
 * huge repeat counts, random header flags and versions, NLM_F_DUMP where
 * there is no dump, unknown commands.  It knows which of its mutations the
 * contract promises to refuse ("poison": the policies, the genl core) and
 * which the command does not take, so it can judge each answer:
 *
 *   phase A  every message carries poison: each must be refused, and the
 *            instance must be byte-for-byte (and generation) as before;
 *   phase U  an unprivileged socket (uid 65534): every admin command is
 *            refused with EPERM, and nothing changes;
 *   phase B  poison, mutations and valid messages mixed (a quarter valid),
 *            so the handlers are reached deep: accepted changes may change
 *            the state, but nothing poisoned or not taken may be accepted,
 *            and afterwards the module must answer, take a change and its
 *            revert, and the kernel log must stay clean.
 *
 * Every refusal the module makes (not the genl core, not EPERM) must
 * carry an extack message and an errno the contract names; both are
 * counted per command.  Before the rounds, two deterministic cases: every
 * command (do and dump) with each attribute it does not take added to a
 * message it accepts, and BATCH on an instance its copy once could not
 * re-create (the regression cases of what this fuzzing found).
 *
 * The guest runs Debian's stock kernel: no KASAN, no kmemleak.  The
 * kernel log (/dev/kmsg) is read after each round for WARNING, BUG, Oops,
 * refcount and list corruption, lockdep and stall lines; the long mode
 * prints SUnreclaim and Slab every minute, after a reset to the base
 * state, to show a leak as growth.
 *
 * The environment (which the kernel fills from its command line: run.sh
 * passes LNETK_FUZZ_* through) sets the run:
 *   LNETK_FUZZ_SEED     the seed (default: from the clock; always printed)
 *   LNETK_FUZZ_ITERS    messages per round (default FUZZ_ITERS)
 *   LNETK_FUZZ_SECONDS  rounds until this many seconds have passed
 *   LNETK_FUZZ_ROUNDS   this many rounds (to replay a long run)
 * A round is phase A, U, B and U again, in shares 3:1:5:1.  Same seed,
 * same rounds: the same messages.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "engine/tunables.h"
#include "kernel/uapi/lnetk.h"
#include "vm.h"

#define FUZZ_ITERS 20000
#define MSG_MAX	   (128 * 1024)
#define NEST_MAX   40000 /* a nest's children stop here: its length is 16 bits */

/* --- the generator ------------------------------------------------------------ */

static uint64_t rng;

static uint64_t rnd(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint32_t below(uint32_t n)
{
	return n ? (uint32_t)(rnd() % n) : 0;
}

static bool chance(unsigned int pct)
{
	return below(100) < pct;
}

enum kind {
	K_U8,
	K_U16,
	K_U32,
	K_U64,
	K_S32,
	K_STR,
	K_BIN,
	K_NEST
};

static const int kind_len[] = {1, 2, 4, 8, 4, 0, 0, 0};

enum pool {
	P_NONE,
	P_NID,
	P_NET,
	P_IFNAME,
	P_EXPR,
	P_GNAME,
	P_SERVICE,
	P_TBFTYPE,
	P_TBFCMD
};

struct nspec;

/* One attribute the policy takes. */
struct aspec {
	uint16_t type;
	uint8_t kind;
	uint8_t pool;
	uint32_t max;	  /* strings: the longest, NUL included; binary: the most bytes */
	bool ranged;	  /* the policy refuses values outside lo..hi */
	int64_t lo, hi;	  /* the policy's range */
	int64_t vlo, vhi; /* what valid messages use */
	const struct nspec *nest;
};

/* A nest: the attributes its policy takes, up to maxtype. */
struct nspec {
	const char *name;
	int maxtype;
	const struct aspec *pol;
	int npol;
};

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
#define TUN_ASPEC(id, name, opt, sec, genl, l, h, ...) \
	A_RANGE(genl, K_U32, l, h, l, (h) - (l) > 256 ? (l) + 256 : (h)),
#define TUN_BIT(id, name, opt, sec, genl, ...) B(genl) |
#define B(x)				       (1u << (x))

static const struct aspec ni_pol[] = {
	A_STR(LNETK_NI_A_NID, P_NID, LNETK_NID_MAX),
	A_STR(LNETK_NI_A_IFNAME, P_IFNAME, LNETK_IFNAME_MAX),
	A_INT(LNETK_NI_A_CPTS, K_U64, 0, 15),
	A_RANGE(LNETK_NI_A_DEV_CPT, K_S32, -1, LNETK_MAX_CPTS - 1, -1, 3),
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
static const struct nspec tbf_nest = {"TBF", LNETK_TBF_A_MAX, tbf_pol, 7};

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
};
static const struct nspec top_nest = {"top", LNETK_A_MAX, top_pol, 11};

static const struct aspec *pol_find(const struct nspec *n, int type)
{
	int i;

	for (i = 0; i < n->npol; i++)
		if (n->pol[i].type == type)
			return &n->pol[i];
	return NULL;
}

/* What a command takes in one nest: attribute bits, the required ones, and its sub-nest's. */
struct take {
	uint32_t mask, need;
	const struct take *sub;
};

static const struct take t_pni_nid = {B(LNETK_PNI_A_NID), B(LNETK_PNI_A_NID), NULL};
static const struct take t_ni_add = {B(LNETK_NI_A_NID) | B(LNETK_NI_A_IFNAME) | B(LNETK_NI_A_CPTS) |
					     B(LNETK_NI_A_DEV_CPT) | LNE_TUNABLES(TUN_BIT) 0,
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

/* A top-level attribute a command takes, how many times, and what inside. */
struct use {
	uint16_t type;
	uint8_t min, max;
	const struct take *take;
};

enum {
	OP_DO = 1,
	OP_DUMP = 2,
	OP_ADMIN = 4
};

struct cspec {
	uint8_t cmd;
	const char *name;
	uint8_t ops;
	uint32_t flags_ok; /* LNETK_A_FLAGS bits it supports */
	struct use use[6];
};

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

static const struct cspec cmds[] = {
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
};
#define NCMDS ((int)(sizeof(cmds) / sizeof(cmds[0])))

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
static const char *const services[] = {
	"fz", "fz2", "ost_io", "a", "mdt", "bad-name", "x y", "0123456789012345678901234567890"};
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

#define N(a) (sizeof(a) / sizeof((a)[0]))

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
static void garbage(char *buf, size_t n, bool nul_ok)
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
static size_t pool_string(int pool, char *buf, size_t max, bool clean)
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

/* --- building a message ----------------------------------------------------------- */

enum poison {
	PZ_NONE,
	PZ_POLICY, /* an attribute policy refuses */
	PZ_CORE,   /* the genl core refuses before the module runs: no extack */
};

struct gen {
	uint8_t buf[MSG_MAX];
	size_t len;
	int mut;		  /* % chance of a mutation at each step */
	bool poison;		  /* something the contract refuses */
	bool core;		  /* refused by the genl core (no extack) */
	bool nottaken;		  /* an attribute the command does not take */
	bool flags_bad;		  /* LNETK_A_FLAGS bits the command does not support */
	bool nt[LNETK_A_MAX + 1]; /* the last of each top-level type holds something not taken */
	char ntwhy[LNETK_A_MAX + 1][96];
	char why[96];	 /* the first poison */
	char whynot[96]; /* the first attribute not taken */
	size_t last_top; /* offset of the last top-level attribute */
	const struct cspec *c;
	uint8_t cmd;
	bool dump;
};

static void mark(struct gen *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Note poison, and the first one's description. */
static void mark(struct gen *g, const char *fmt, ...)
{
	va_list ap;

	if (!g->poison) {
		va_start(ap, fmt);
		vsnprintf(g->why, sizeof(g->why), fmt, ap);
		va_end(ap);
	}
	g->poison = true;
}

static void mark_nottaken(struct gen *g, const char *what, int type)
{
	if (!g->nottaken)
		snprintf(g->whynot, sizeof(g->whynot), "%s attribute %d", what, type);
	g->nottaken = true;
}

static bool room(struct gen *g, size_t n)
{
	return g->len + NLA_ALIGN(n) + NLA_HDRLEN <= MSG_MAX;
}

/* Start an attribute of @type (flags included); returns its offset. */
static size_t put_hdr(struct gen *g, uint16_t type)
{
	struct nlattr *a = (struct nlattr *)(g->buf + g->len);
	size_t off = g->len;

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN;
	g->len += NLA_HDRLEN;
	return off;
}

static void put_end(struct gen *g, size_t off)
{
	struct nlattr *a = (struct nlattr *)(g->buf + off);
	size_t n = g->len - off;

	a->nla_len = (uint16_t)(n > 0xffff ? 0xffff : n);
	while (g->len & 3)
		g->buf[g->len++] = 0;
}

static void put_data(struct gen *g, uint16_t type, const void *data, size_t n)
{
	size_t off;

	if (!room(g, n))
		return;
	off = put_hdr(g, type);
	memcpy(g->buf + g->len, data, n);
	g->len += n;
	put_end(g, off);
}

static void put_int(struct gen *g, uint16_t type, int len, uint64_t v)
{
	uint8_t b[16] = {0};

	/* little endian, as the kernel reads it on x86 */
	memcpy(b, &v, len < 8 ? (size_t)len : 8);
	put_data(g, type, b, (size_t)len);
}

/* A value within @a's valid generation range, or at an edge of its type. */
static uint64_t valid_value(const struct aspec *a)
{
	int64_t v = a->vlo + (int64_t)below((uint32_t)(a->vhi - a->vlo + 1));

	return (uint64_t)v;
}

static uint64_t edge_value(const struct aspec *a)
{
	static const uint64_t edges[] = {0,	     1,		 2,	     0x7f,
					 0x80,	     0xff,	 0x7fffffff, 0x80000000,
					 0xffffffff, 0xfffffffe, ~0ull,	     0x100000000ull};

	return chance(50) ? edges[below(N(edges))] : rnd();
}

/* Does value @v fit @a's policy (its type's width and range)? */
static bool in_range(const struct aspec *a, uint64_t v)
{
	int64_t s;

	switch (a->kind) {
	case K_U8:
		v &= 0xff;
		break;
	case K_U16:
		v &= 0xffff;
		break;
	case K_U32:
		v &= 0xffffffffull;
		break;
	case K_S32:
		s = (int32_t)(uint32_t)v;
		return !a->ranged || (s >= a->lo && s <= a->hi);
	}
	return !a->ranged || ((int64_t)v >= a->lo && (int64_t)v <= a->hi);
}

static void gen_nest(struct gen *g, const struct nspec *n, const struct take *t, int depth,
		     size_t start);

/* An unknown attribute id for @n: 0, past its maxtype, or one its policy does not take. */
static int unknown_type(const struct nspec *n)
{
	int t;

	switch (below(3)) {
	case 0:
		return 0;
	case 1:
		return n->maxtype + 1 + (int)below(chance(50) ? 4 : 0x3f00);
	default:
		for (t = 1; t <= n->maxtype; t++)
			if (!pol_find(n, t) && chance(50))
				return t;
		return n->maxtype + 1;
	}
}

/* Emit attribute @a (taken as @t for a nest), valid or mutated. */
static void gen_attr(struct gen *g, const struct nspec *in, const struct aspec *a,
		     const struct take *t, int depth)
{
	char s[2 * LNETK_EXPR_MAX];
	uint16_t type = a->type;
	size_t off, n;
	uint64_t v;
	int m = chance((unsigned int)g->mut) ? (int)below(8) : -1;

	/* Flags that change nothing: the byte-order bit is not checked, only masked. */
	if (m == 7 && a->kind != K_NEST) {
		type |= NLA_F_NET_BYTEORDER;
		m = -1;
	}
	switch (a->kind) {
	case K_U8:
	case K_U16:
	case K_U32:
	case K_U64:
	case K_S32:
		v = valid_value(a);
		if (in == &top_nest && a->type == LNETK_A_FLAGS && g->c)
			v = g->c->flags_ok ? (rnd() & g->c->flags_ok) : 0;
		if (m == 0 || m == 1) {
			/* a value at an edge, in range or not */
			v = edge_value(a);
			if (a->type == LNETK_TBF_A_LOAD_MS && in == &tbf_nest && in_range(a, v))
				v = chance(50) ? LNETK_TBF_LOAD_MS_MIN - 1
					       : LNETK_TBF_LOAD_MS_MAX + 1;
			if (!in_range(a, v))
				mark(g, "%s attribute %d out of range", in->name, a->type);
		}
		if (m == 2) {
			/* the wrong size */
			static const int lens[] = {0, 1, 2, 3, 4, 5, 8, 12, 16};
			int len;

			do
				len = lens[below(N(lens))];
			while (len == kind_len[a->kind]);
			mark(g, "%s attribute %d of the wrong size", in->name, a->type);
			put_int(g, type, len, v);
			return;
		}
		if (m == 3) {
			/* nested where flat is expected */
			mark(g, "%s attribute %d flagged nested", in->name, a->type);
			type |= NLA_F_NESTED;
		}
		if (!in_range(a, v) && !(m == 0 || m == 1))
			v = (uint64_t)a->vlo;
		/* the last LNETK_A_FLAGS is the one that counts */
		if (in == &top_nest && a->type == LNETK_A_FLAGS && g->c)
			g->flags_bad = (v & 0xffffffffull & ~(uint64_t)g->c->flags_ok) != 0;
		put_int(g, type, kind_len[a->kind], v);
		return;
	case K_STR:
		n = pool_string(a->pool, s, a->max, g->mut == 0);
		switch (m) {
		case 0: /* empty */
			n = 0;
			s[0] = '\0';
			break;
		case 1: /* random bytes, NUL-terminated, within the limit */
			n = below(chance(80) ? 40 : a->max);
			garbage(s, n, false);
			s[n] = '\0';
			break;
		case 2: /* no NUL */
			if (!n) {
				n = 1 + below(8);
				garbage(s, n, false);
			}
			mark(g, "%s attribute %d: a string without NUL", in->name, a->type);
			put_data(g, type, s, n);
			return;
		case 3: /* too long */
			n = a->max + below(chance(50) ? 3 : 200);
			memset(s, 'a', n);
			s[n] = '\0';
			mark(g, "%s attribute %d: a string too long", in->name, a->type);
			break;
		case 4: /* as long as allowed */
			n = a->max - 1;
			memset(s, chance(50) ? '1' : '[', n);
			s[n] = '\0';
			break;
		case 5: /* nested where flat is expected */
			type |= NLA_F_NESTED;
			mark(g, "%s attribute %d flagged nested", in->name, a->type);
			break;
		case 6: /* trailing bytes after the NUL */
			memset(s + n + 1, 'x', 4);
			put_data(g, type, s, n + 1 + below(4));
			return;
		}
		put_data(g, type, s, n + 1);
		return;
	case K_BIN:
		/* NUMA_A_DIST: NCPT * NCPT u32, or not */
		n = (size_t)below(5) * below(5) * 4;
		if (m == 0)
			n = below(64);
		if (m == 1 || m == 2) {
			n = a->max + 1 + below(64);
			mark(g, "%s attribute %d: too long", in->name, a->type);
		}
		if (m == 3) {
			n = a->max;
		}
		memset(s, 0, sizeof(s));
		if (n > sizeof(s)) {
			uint8_t *big = calloc(1, n);

			for (size_t i = 0; i < n; i += 4)
				big[i] = (uint8_t)below(30);
			put_data(g, type, big, n);
			free(big);
			return;
		}
		for (size_t i = 0; i < n; i += 4)
			s[i] = (char)below(30);
		put_data(g, type, s, n);
		return;
	case K_NEST:
		if (!room(g, 64))
			return;
		if (m == 0) {
			/* flat where nested is expected */
			mark(g, "%s attribute %d not flagged nested", in->name, a->type);
			off = put_hdr(g, type);
		} else {
			off = put_hdr(g, type | NLA_F_NESTED);
		}
		if (m == 1) {
			/* empty */
		} else if (m == 2 || depth > 3) {
			/*
			 * Random bytes: fewer than an attribute header are always
			 * refused (bytes left over); more may parse, or not, and
			 * are not judged.
			 */
			n = chance(50) ? 1 + below(3) : 4 + below(28);
			garbage(s, n, true);
			memcpy(g->buf + g->len, s, n);
			g->len += n;
			if (n < NLA_HDRLEN)
				mark(g, "%s attribute %d holds a few random bytes", in->name,
				     a->type);
		} else {
			gen_nest(g, a->nest, t, depth + 1, off);
		}
		if (m == 3) {
			/* cut short: a last attribute that claims more than the nest holds */
			struct nlattr *x = (struct nlattr *)(g->buf + g->len);

			x->nla_type = 1;
			x->nla_len = (uint16_t)(NLA_HDRLEN + 4 + below(200));
			g->len += NLA_HDRLEN;
			mark(g, "%s attribute %d cut short", in->name, a->type);
		}
		put_end(g, off);
		return;
	}
}

/* The attributes of nest @n that @t takes, valid or mutated, and extra ones. */
static void gen_nest(struct gen *g, const struct nspec *n, const struct take *t, int depth,
		     size_t start)
{
	int order[16], i, k;

	for (i = 0; i < n->npol; i++)
		order[i] = i;
	if (chance(20))
		for (i = n->npol - 1; i > 0; i--) {
			int j = (int)below((uint32_t)i + 1), x = order[i];

			order[i] = order[j];
			order[j] = x;
		}
	for (i = 0; i < n->npol; i++) {
		const struct aspec *a = &n->pol[order[i]];
		bool taken = t && (t->mask & B(a->type)), need = t && (t->need & B(a->type));
		int reps = 1;

		if (!taken)
			continue;
		if (chance((unsigned int)g->mut / 2))
			need = !need; /* a required one missing, an optional one there */
		if (!need && chance(40))
			continue;
		if (a->kind == K_NEST) {
			reps = 1 + (int)below(3);
			if (chance((unsigned int)g->mut / 4))
				reps = 50 + (int)below(800); /* a huge count */
		} else if (chance((unsigned int)g->mut / 3)) {
			reps = 2; /* a duplicate */
		}
		/* a nest's length is 16 bits: stop well before a child could overflow it */
		for (k = 0; k < reps && room(g, 256) && g->len - start < NEST_MAX; k++)
			gen_attr(g, n, a, t->sub, depth);
	}
	/* extras: unknown ids, attributes the command does not take, random ones */
	if (chance((unsigned int)g->mut / 3)) {
		int type = unknown_type(n);

		mark(g, "%s: unknown attribute id %d", n->name, type);
		put_int(g, (uint16_t)type, 4, rnd());
	}
	if (chance((unsigned int)g->mut / 3)) {
		const struct aspec *a = &n->pol[below((uint32_t)n->npol)];
		static const struct take all = {~0u, 0, &all};

		if (!t || !(t->mask & B(a->type)))
			mark_nottaken(g, n->name, a->type);
		gen_attr(g, n, a, &all, depth);
	}
}

/*
 * A top-level attribute.  Of repeated ones the command reads the last (as
 * nla_parse() keeps it), except in a BATCH (@every), which reads each: what
 * is not taken counts only where it is read.
 */
static void top_attr(struct gen *g, const struct aspec *a, const struct take *t, bool every)
{
	g->nottaken = false;
	g->last_top = g->len;
	gen_attr(g, &top_nest, a, t, 0);
	if (g->nottaken) {
		g->nt[a->type] = true;
		snprintf(g->ntwhy[a->type], sizeof(g->ntwhy[0]), "%s", g->whynot);
	} else if (!every) {
		g->nt[a->type] = false;
	}
	g->nottaken = false;
	g->whynot[0] = '\0';
}

/*
 * A message for command @c (NULL: an unknown command) with mutations at
 * @mut percent, into @g.
 */
static void gen_message(struct gen *g, const struct cspec *c, int mut, uint32_t seq, int family)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)g->buf;
	struct genlmsghdr *gh;
	int i, k;

	g->len = NLMSG_HDRLEN + GENL_HDRLEN;
	memset(g->buf, 0, g->len);
	g->mut = mut;
	g->poison = g->core = g->nottaken = g->flags_bad = false;
	g->why[0] = g->whynot[0] = '\0';
	g->last_top = 0;
	g->c = c;
	g->cmd = c ? c->cmd
		   : (uint8_t)(chance(30) ? 0 : LNETK_CMD_MAX + 1 + below(255 - LNETK_CMD_MAX));
	nlh->nlmsg_type = (uint16_t)family;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = seq;
	gh = (struct genlmsghdr *)(g->buf + NLMSG_HDRLEN);
	gh->cmd = g->cmd;
	gh->version = LNETK_GENL_VERSION;
	if (!c) {
		g->core = g->poison = true;
		snprintf(g->why, sizeof(g->why), "unknown command %u", g->cmd);
	}
	/* do or dump, and the wrong one now and then */
	if (c) {
		g->dump = (c->ops & OP_DUMP) && (!(c->ops & OP_DO) || chance(50));
		if (chance((unsigned int)mut / 4)) {
			g->dump = !g->dump;
			if ((g->dump && !(c->ops & OP_DUMP)) || (!g->dump && !(c->ops & OP_DO))) {
				g->core = g->poison = true;
				snprintf(g->why, sizeof(g->why), "%s as a %s", c->name,
					 g->dump ? "dump" : "do");
			}
		}
		if (g->dump)
			nlh->nlmsg_flags |= NLM_F_DUMP;
	}
	if (chance((unsigned int)mut / 3)) {
		/*
		 * One of them (ROOT and MATCH together would be DUMP).  The genl
		 * core takes only REQUEST, ACK, ECHO and DUMP, and refuses the
		 * rest before the command is looked up.
		 */
		static const uint16_t extra[] = {NLM_F_ECHO,	NLM_F_MULTI, NLM_F_DUMP_INTR,
						 NLM_F_REPLACE, NLM_F_EXCL,  NLM_F_CREATE,
						 NLM_F_APPEND};
		uint16_t f = extra[below(N(extra))];

		if (g->dump && (f & NLM_F_DUMP))
			f = 0; /* a dump has both already */
		nlh->nlmsg_flags |= f;
		if (f && f != NLM_F_ECHO) {
			g->core = g->poison = true;
			snprintf(g->why, sizeof(g->why), "nlmsg_flags %#x", nlh->nlmsg_flags);
		}
	}
	if (chance((unsigned int)mut / 3))
		gh->version = (uint8_t)rnd();
	if (chance((unsigned int)mut / 10)) {
		gh->reserved = (uint16_t)(1 + below(0xfffe));
		g->core = g->poison = true;
		snprintf(g->why, sizeof(g->why), "reserved header bytes set");
	}
	/* the attributes the command takes */
	memset(g->nt, 0, sizeof(g->nt));
	for (i = 0; c && i < 6 && c->use[i].type; i++) {
		const struct use *u = &c->use[i];
		const struct aspec *a = pol_find(&top_nest, u->type);
		int reps = u->min + (int)below((uint32_t)(u->max - u->min + 1));

		if (chance((unsigned int)mut / 3))
			reps = reps ? 0 : 1; /* missing, or there after all */
		if (u->type == LNETK_A_FLAGS && chance(80))
			reps = 0;
		if (chance((unsigned int)mut / 5))
			reps = reps + 1 + (int)below(u->max > 1 ? 40 : 2); /* many, duplicates */
		for (k = 0; k < reps && room(g, 512); k++)
			top_attr(g, a, u->take, c->cmd == LNETK_CMD_BATCH);
	}
	/* attributes it does not take, and unknown ones */
	if (chance((unsigned int)mut / 3)) {
		const struct aspec *a = &top_pol[below(N(top_pol))];
		static const struct take all = {~0u, 0, &all};
		bool taken = false;

		for (i = 0; c && i < 6 && c->use[i].type; i++)
			taken |= c->use[i].type == a->type;
		top_attr(g, a, &all, c && c->cmd == LNETK_CMD_BATCH);
		if (!taken) {
			g->nt[a->type] = true;
			snprintf(g->ntwhy[a->type], sizeof(g->ntwhy[0]), "top-level attribute %d",
				 a->type);
		}
	}
	/* what the command does not take, in the top-level attributes it will read */
	for (i = 1; i <= LNETK_A_MAX; i++)
		if (g->nt[i] && !g->nottaken) {
			g->nottaken = true;
			snprintf(g->whynot, sizeof(g->whynot), "%s", g->ntwhy[i]);
		}
	if (chance((unsigned int)mut / 4)) {
		int type = unknown_type(&top_nest);

		g->last_top = g->len;
		mark(g, "%s: unknown attribute id %d", "top-level", type);
		put_int(g, (uint16_t)type, 4, rnd());
	}
	if (g->flags_bad)
		mark_nottaken(g, "LNETK_A_FLAGS bits it does not support in", LNETK_A_FLAGS);
	nlh->nlmsg_len = (uint32_t)g->len;
	/* a message cut inside its last attribute (not in its padding) */
	if (g->last_top && chance((unsigned int)mut / 8)) {
		size_t alen = ((struct nlattr *)(g->buf + g->last_top))->nla_len;
		size_t cut = g->last_top + 1 + below((uint32_t)(alen > 1 ? alen - 1 : 1));

		if (cut > g->last_top && cut < g->last_top + alen && cut < g->len) {
			g->len = cut;
			nlh->nlmsg_len = (uint32_t)cut;
			mark(g, "%s %d", "the message cut inside its last attribute, at byte",
			     (int)cut);
		}
	}
	/* a genl header cut short */
	if (chance((unsigned int)mut / 15)) {
		g->len = NLMSG_HDRLEN + below(GENL_HDRLEN);
		nlh->nlmsg_len = (uint32_t)g->len;
		g->core = g->poison = true;
		snprintf(g->why, sizeof(g->why), "a genl header of %zu bytes",
			 g->len - NLMSG_HDRLEN);
	}
}

/* --- state and the kernel log --------------------------------------------------------- */

static int text_tbf(const struct lnetk_tbf *t, void *arg)
{
	struct strbuf *sb = arg;
	size_t q, r;

	sb_printf(sb, "tbf %s\n", t->service);
	for (q = 0; q < t->nqueues; q++) {
		const struct lnetk_tbf_qinfo *qi = &t->queues[q];

		sb_printf(sb, "  queue %u type=%s depth=%u\n", qi->queue, qi->type, qi->depth);
		for (r = 0; r < qi->nrules; r++)
			sb_printf(sb, "    rule %s rate=%u rt=%d: %s\n", qi->rules[r].name,
				  qi->rules[r].rate, qi->rules[r].realtime, qi->rules[r].text);
	}
	return 0;
}

/* Everything readable: the objects, the generation and the TBF configuration. */
struct state {
	struct snapshot snap;
	struct strbuf tbf;
	int rc;
};

static void state_take(struct lnetk *lk, struct state *st)
{
	memset(st, 0, sizeof(*st));
	snapshot_take(lk, &st->snap);
	sb_printf(&st->tbf, "%s", "");
	st->rc = st->snap.rc ?: lnetk_tbf_dump(lk, text_tbf, &st->tbf, NULL);
}

static bool state_same(const struct state *a, const struct state *b)
{
	return !a->rc && !b->rc && snapshot_same(&a->snap, &b->snap) && a->tbf.len == b->tbf.len &&
	       !memcmp(a->tbf.s, b->tbf.s, a->tbf.len);
}

static void state_free(struct state *st)
{
	snapshot_free(&st->snap);
	sb_free(&st->tbf);
}

static void state_diff(const struct state *a, const struct state *b)
{
	diag("before: rc %d, generation %" PRIu64 ", %zu + %zu bytes", a->rc, a->snap.generation,
	     a->snap.text.len, a->tbf.len);
	diag("after:  rc %d, generation %" PRIu64 ", %zu + %zu bytes", b->rc, b->snap.generation,
	     b->snap.text.len, b->tbf.len);
}

/* The kernel log from where we started: /dev/kmsg, record by record. */
static int kmsg_fd = -1;
static int kmsg_bad;

static const char *const kmsg_patterns[] = {
	"WARNING:",	   "BUG:",	  "Oops",	"general protection", "UBSAN",
	"KASAN",	   "refcount_t",  "corruption", "lock held",	      "circular locking",
	"stack-protector", "double free", "kernel BUG", "Call Trace",	      "list_add",
	"list_del",	   "slab",	  "RCU stall",	"soft lockup",	      "hung task"};

static void kmsg_open(void)
{
	kmsg_fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (kmsg_fd >= 0)
		lseek(kmsg_fd, 0, SEEK_END);
}

/* Read what is new; count and show the lines that say the kernel is unwell. */
static void kmsg_scan(void)
{
	char rec[8192];
	size_t i;

	if (kmsg_fd < 0)
		return;
	for (;;) {
		ssize_t n = read(kmsg_fd, rec, sizeof(rec) - 1);

		if (n < 0 && errno == EPIPE)
			continue; /* overrun: records were lost, read on */
		if (n <= 0)
			return;
		rec[n] = '\0';
		for (i = 0; i < N(kmsg_patterns); i++)
			if (strstr(rec, kmsg_patterns[i])) {
				char *msg = strchr(rec, ';');

				if (kmsg_bad++ < 40)
					diag("kernel: %s", msg ? msg + 1 : rec);
				break;
			}
	}
}

static long meminfo(const char *key)
{
	char line[128];
	long v = -1;
	FILE *f = fopen("/proc/meminfo", "r");
	size_t n = strlen(key);

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n) && line[n] == ':')
			v = strtol(line + n + 1, NULL, 10);
	fclose(f);
	return v;
}

/* --- sending and judging -------------------------------------------------------- */

struct stats {
	uint64_t sent, ok, refused, noext, core, eperm;
};

/* A kind of message accepted though it carries what the command does not take. */
struct finding {
	char what[160];
	uint64_t count;
};

#define NFINDINGS 64

struct fuzz_stats {
	struct stats cmd[NCMDS + 1]; /* the last: unknown commands */
	struct finding finding[NFINDINGS];
	int nfindings;
	uint64_t messages, dump_msgs;
	uint64_t errnos[160]; /* refusals by errno */
	uint64_t poison_accepted, nottaken_accepted, eperm_missing, lost;
	uint64_t refusals_checked, refused_changed;
	char first_bad[4][256];
	int nbad;
};

static struct fuzz_stats *fs; /* shared with the unprivileged child */

static void note_bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void note_bad(const char *fmt, ...)
{
	va_list ap;

	if (fs->nbad >= 4)
		return;
	va_start(ap, fmt);
	vsnprintf(fs->first_bad[fs->nbad++], sizeof(fs->first_bad[0]), fmt, ap);
	va_end(ap);
}

static void note_finding(const char *what)
{
	int i;

	for (i = 0; i < fs->nfindings; i++)
		if (!strcmp(fs->finding[i].what, what)) {
			fs->finding[i].count++;
			return;
		}
	if (i == NFINDINGS)
		return;
	snprintf(fs->finding[i].what, sizeof(fs->finding[i].what), "%s", what);
	fs->finding[i].count = 1;
	fs->nfindings++;
}

struct fsock {
	int fd;
	int family;
	uint32_t seq;
	uint8_t *rbuf;
};

#define RBUF (1024 * 1024)

static int fsock_open(struct fsock *s, int family)
{
	struct sockaddr_nl sa = {.nl_family = AF_NETLINK};
	struct timeval tv = {.tv_sec = 30};
	int one = 1, big = 4 * 1024 * 1024;

	s->family = family;
	s->seq = 1;
	s->rbuf = malloc(RBUF);
	s->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (s->fd < 0 || !s->rbuf || bind(s->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return -errno;
	setsockopt(s->fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(s->fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	setsockopt(s->fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	setsockopt(s->fd, SOL_SOCKET, SO_SNDBUF, &big, sizeof(big));
	setsockopt(s->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return 0;
}

static void fsock_close(struct fsock *s)
{
	if (s->fd >= 0)
		close(s->fd);
	free(s->rbuf);
}

/* The extack message among the TLVs at @p (@n bytes), into @ext. */
static void ext_msg(const uint8_t *p, size_t n, char *ext, size_t extlen)
{
	while (n >= NLA_HDRLEN) {
		const struct nlattr *a = (const struct nlattr *)p;
		size_t l = a->nla_len;

		if (l < NLA_HDRLEN || l > n)
			return;
		if ((a->nla_type & NLA_TYPE_MASK) == NLMSGERR_ATTR_MSG)
			snprintf(ext, extlen, "%.*s", (int)(l - NLA_HDRLEN), (const char *)(a + 1));
		n -= NLA_ALIGN(l) < n ? NLA_ALIGN(l) : n;
		p += NLA_ALIGN(l);
	}
}

/*
 * Send @len bytes of @buf and read until the answer to it: 0 or the
 * kernel's negative errno, its extack message into @ext.  -ETIMEDOUT or
 * -EIO when no answer came.
 */
static int fsock_send(struct fsock *s, uint8_t *buf, size_t len, char *ext, size_t extlen,
		      uint64_t *msgs)
{
	struct sockaddr_nl k = {.nl_family = AF_NETLINK};
	uint32_t seq = ((struct nlmsghdr *)buf)->nlmsg_seq;

	ext[0] = '\0';
	if (sendto(s->fd, buf, len, 0, (struct sockaddr *)&k, sizeof(k)) < 0)
		return -errno == -EMSGSIZE ? -EMSGSIZE : -EIO;
	for (;;) {
		ssize_t n = recv(s->fd, s->rbuf, RBUF, 0);
		struct nlmsghdr *h;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ENOBUFS)
				return -ENOBUFS;
			return errno == EAGAIN ? -ETIMEDOUT : -EIO;
		}
		for (h = (struct nlmsghdr *)s->rbuf; NLMSG_OK(h, (size_t)n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_seq != seq)
				continue;
			if (h->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(h);
				size_t off = NLMSG_HDRLEN + sizeof(*e);

				if (!(h->nlmsg_flags & NLM_F_CAPPED))
					off += NLMSG_ALIGN(e->msg.nlmsg_len) - sizeof(e->msg);
				if ((h->nlmsg_flags & NLM_F_ACK_TLVS) && off < h->nlmsg_len)
					ext_msg((uint8_t *)h + off, h->nlmsg_len - off, ext,
						extlen);
				return e->error;
			}
			if (h->nlmsg_type == NLMSG_DONE) {
				int err = 0;

				if (h->nlmsg_len >= NLMSG_HDRLEN + sizeof(int))
					memcpy(&err, NLMSG_DATA(h), sizeof(int));
				if ((h->nlmsg_flags & NLM_F_ACK_TLVS) &&
				    h->nlmsg_len > NLMSG_HDRLEN + sizeof(int))
					ext_msg((uint8_t *)NLMSG_DATA(h) + sizeof(int),
						h->nlmsg_len - NLMSG_HDRLEN - sizeof(int), ext,
						extlen);
				return err;
			}
			++*msgs;
		}
	}
}

static void hexdump(const uint8_t *p, size_t n)
{
	char line[128];
	size_t i, o = 0;

	for (i = 0; i < n && i < 192; i++) {
		o += (size_t)snprintf(line + o, sizeof(line) - o, "%02x", p[i]);
		if (i % 32 == 31 || i + 1 == n || i + 1 == 192) {
			diag("  %04zx: %s", i - i % 32, line);
			o = 0;
		}
	}
}

static bool documented(int rc);

/* Phase B checks the state around some refusals with this client. */
static struct lnetk *check_lk;

enum phase {
	PH_REFUSE,
	PH_UNPRIV,
	PH_MIXED
};

/* One message of phase @ph: build, send, judge.  False on a verdict the contract forbids. */
static bool one_message(struct fsock *s, struct gen *g, enum phase ph, int mut)
{
	const struct cspec *c = chance(2) ? NULL : &cmds[below(NCMDS)];
	struct stats *st = c ? &fs->cmd[c - cmds] : &fs->cmd[NCMDS];
	struct state before, after;
	char ext[256];
	bool good = true, check;
	int rc, tries;

	for (tries = 0;; tries++) {
		gen_message(g, c, mut, s->seq++, s->family);
		if (ph != PH_REFUSE || g->poison)
			break;
		if (tries >= 6) {
			/* the poison of last resort: an unknown attribute at the top */
			int type = unknown_type(&top_nest);

			mark(g, "%s: unknown attribute id %d", "top-level", type);
			put_int(g, (uint16_t)type, 4, rnd());
			((struct nlmsghdr *)g->buf)->nlmsg_len = (uint32_t)g->len;
			break;
		}
	}
	/*
	 * A refused request changes nothing, and commands that take several
	 * objects apply all or none: checked around every fourth of those,
	 * every thirtieth of the other changes.
	 */
	/* not from the generator's stream: a seed replays the same messages either way */
	check = ph == PH_MIXED && check_lk && c && (c->ops & OP_ADMIN) &&
		(uint32_t)((fs->messages * 2654435761u) >> 8) % 100 <
			(c->cmd == LNETK_CMD_PEER_ADD || c->cmd == LNETK_CMD_PEER_DEL ||
					 c->cmd == LNETK_CMD_BATCH || c->cmd == LNETK_CMD_TBF_SET ||
					 c->cmd == LNETK_CMD_TBF_CMD
				 ? 25u
				 : 3u);
	if (check)
		state_take(check_lk, &before);
	rc = fsock_send(s, g->buf, g->len, ext, sizeof(ext), &fs->dump_msgs);
	fs->messages++;
	st->sent++;
	if (check) {
		if (rc && rc != -ETIMEDOUT && rc != -EIO) {
			state_take(check_lk, &after);
			fs->refusals_checked++;
			if (!state_same(&before, &after)) {
				fs->refused_changed++;
				note_bad("%s refused with %s, but the state changed", c->name,
					 errname(rc));
				state_diff(&before, &after);
				good = false;
			}
			state_free(&after);
		}
		state_free(&before);
	}
	if (rc == -ETIMEDOUT || rc == -EIO || rc == -ENOBUFS || rc == -EMSGSIZE) {
		fs->lost++;
		note_bad("%s: no answer (%s)", c ? c->name : "unknown", errname(rc));
		return false;
	}
	if (rc == 0) {
		st->ok++;
		if (g->poison) {
			fs->poison_accepted++;
			note_bad("%s accepted with poison: %s", c ? c->name : "?", g->why);
			good = false;
		} else if (g->nottaken) {
			char what[128];

			snprintf(what, sizeof(what), "%s (%s) accepts %s", c ? c->name : "?",
				 g->dump ? "dump" : "do", g->whynot);
			note_finding(what);
			fs->nottaken_accepted++;
		}
		if (ph == PH_UNPRIV && c && (c->ops & OP_ADMIN) && !g->core) {
			fs->eperm_missing++;
			note_bad("%s accepted from an unprivileged socket", c->name);
			good = false;
		}
		if (ph == PH_REFUSE)
			good = false;
	} else {
		st->refused++;
		if (-rc < (int)N(fs->errnos) && !fs->errnos[-rc]++ && !documented(rc)) {
			diag("first %s: %s (%s), extack \"%s\"", errname(rc),
			     c ? c->name : "unknown", g->dump ? "dump" : "do", ext);
			hexdump(g->buf, g->len);
			if (check_lk) {
				struct state now_st;

				/* the state it met, to replay */
				state_take(check_lk, &now_st);
				diag("the state, generation %" PRIu64 ":", now_st.snap.generation);
				fputs(now_st.snap.text.s ? now_st.snap.text.s : "", stdout);
				fputs(now_st.tbf.s ? now_st.tbf.s : "", stdout);
				state_free(&now_st);
			}
		}
		if (rc == -EPERM && ph == PH_UNPRIV) {
			st->eperm++;
		} else if (ph == PH_UNPRIV && c && (c->ops & OP_ADMIN) && !g->core) {
			fs->eperm_missing++;
			note_bad("%s from an unprivileged socket: %s, not EPERM (%s)", c->name,
				 errname(rc), g->why);
			good = false;
		} else if (g->core) {
			st->core++;
		} else if (!ext[0]) {
			st->noext++;
			if (st->noext <= 2)
				diag("%s refused with %s but no extack message (%s)",
				     c ? c->name : "?", errname(rc),
				     g->poison ? g->why : "no poison");
		}
	}
	if (!good) {
		diag("message %" PRIu64 " (%s, %s): %s, extack \"%s\"", fs->messages,
		     c ? c->name : "unknown", g->dump ? "dump" : "do", errname(rc), ext);
		hexdump(g->buf, g->len);
	}
	return good;
}

/* --- the state the fuzzing starts from, again and again -------------------------------------- */

/* NIs, peers, a route, rules, a global and two TBF policies: something for every handler. */
static void base_state(struct lnetk *lk)
{
	const char *p1[] = {"10.7.0.101@tcp", "192.168.7.50@o2ib"}, *none[] = {NULL};
	struct lnetk_ni n1 = {.nid = "10.7.0.1@tcp"}, n2 = {.nid = "192.168.7.1@o2ib"};
	struct lnetk_route r = {.net = "o2ib7", .gateway = "10.7.0.50@tcp"};
	struct lnetk_rule r1 = {.src = "o2ib", .prio = 1, .idx = -1},
			  r2 = {.dst = "10.7.0.[100-101]@tcp", .prio = 0, .idx = -1},
			  r3 = {.src = "10.7.0.1@tcp",
				.dst = "10.7.0.100@tcp",
				.prio = 2,
				.idx = -1};

	lnetk_ni_add(lk, &n1, NULL);
	lnetk_ni_add(lk, &n2, NULL);
	lnetk_peer_add(lk, "10.7.0.100@tcp", true, p1, 2, NULL);
	lnetk_peer_add(lk, "172.16.7.1@o2ib7", true, none, 0, NULL);
	lnetk_route_add(lk, &r, NULL);
	lnetk_rule_add(lk, &r1, NULL, NULL, NULL);
	lnetk_rule_add(lk, &r2, NULL, NULL, NULL);
	lnetk_rule_add(lk, &r3, NULL, NULL, NULL);
	lnetk_global_set(lk, "numa_range", 5, NULL);
	lnetk_tbf_set(lk, "fz", -1, NULL, 0, NULL);
	lnetk_tbf_cmd(lk, "fz", "start r1 nid={10.7.0.[1-4]@tcp} rate=500", NULL);
	lnetk_tbf_set(lk, "fz2", LNETK_TBF_HP, "jobid", 4, NULL);
}

/* Back to the base state: objects, globals and the fuzzer's TBF policies. */
static void reset_state(struct lnetk *lk)
{
	struct lnetk_batch *b;
	size_t i;

	if (!lnetk_batch_new(lk, LNETK_F_REPLACE, &b)) {
		lnetk_batch_send(b, NULL, NULL);
		lnetk_batch_free(b);
	}
	lnetk_rule_del_all(lk, NULL);
	for (i = 0; i < N(services); i++)
		lnetk_tbf_del(lk, services[i], NULL);
	base_state(lk);
}

/* --- the phases --------------------------------------------------------------------- */

struct cfg {
	uint64_t seed;
	long iters, seconds, rounds;
};

static long env_long(const char *name, long dflt)
{
	const char *v = getenv(name);

	return v && *v ? strtol(v, NULL, 0) : dflt;
}

static struct gen *gbuf;

/* Phase A: @n poisoned messages; all refused, nothing changed. */
static bool phase_refuse(struct lnetk *lk, struct fsock *s, long n)
{
	struct state before, after;
	long i, bad = 0;
	bool same;

	state_take(lk, &before);
	for (i = 0; i < n; i++)
		if (!one_message(s, gbuf, PH_REFUSE, 30 + (int)below(60)))
			if (++bad > 20)
				break;
	state_take(lk, &after);
	same = state_same(&before, &after);
	if (!same)
		state_diff(&before, &after);
	state_free(&before);
	state_free(&after);
	return !bad && same;
}

struct unpriv_arg {
	int family;
	uint64_t seed;
	long n;
};

static int unpriv_child(void *arg)
{
	struct unpriv_arg *u = arg;
	struct fsock s;
	long i, bad = 0;

	rng = u->seed;
	if (drop_to_nobody() < 0 || fsock_open(&s, u->family) < 0)
		return 2;
	for (i = 0; i < u->n; i++)
		if (!one_message(&s, gbuf, PH_UNPRIV, (int)below(90)))
			if (++bad > 20)
				break;
	fsock_close(&s);
	return bad ? 1 : 0;
}

/* Phase U: @n messages from uid 65534; admin ones EPERM, nothing changed. */
static bool phase_unpriv(struct lnetk *lk, int family, long n)
{
	struct unpriv_arg u = {.family = family, .seed = rnd(), .n = n};
	struct state before, after;
	bool same;
	int v;

	state_take(lk, &before);
	v = in_child(unpriv_child, &u);
	state_take(lk, &after);
	same = state_same(&before, &after);
	if (!same)
		state_diff(&before, &after);
	state_free(&before);
	state_free(&after);
	if (v)
		diag("unprivileged child: exit status %d", v);
	return v == 0 && same;
}

/* Phase B: @n messages, a quarter valid; the base state comes back every 200. */
static bool phase_mixed(struct lnetk *lk, struct fsock *s, long n)
{
	long i, bad = 0;

	check_lk = lk;
	for (i = 0; i < n; i++) {
		if (i % 200 == 0)
			base_state(lk);
		if (!one_message(s, gbuf, PH_MIXED, chance(25) ? 0 : 5 + (int)below(40)))
			if (++bad > 20)
				break;
	}
	return !bad;
}

/* The module answers, takes a change and its revert, and reads back the same. */
static bool alive(struct lnetk *lk)
{
	struct lnetk_ni ni = {.nid = "10.7.9.9@tcp"};
	struct lnetk_info info;
	struct state before, after;
	bool ok;
	int rc;

	rc = lnetk_get_info(lk, &info, NULL);
	state_take(lk, &before);
	if (!rc)
		rc = lnetk_ni_add(lk, &ni, NULL);
	if (!rc)
		rc = lnetk_ni_del(lk, ni.nid, NULL);
	state_take(lk, &after);
	ok = !rc && !before.rc && !after.rc &&
	     after.snap.generation == before.snap.generation + 2 &&
	     before.snap.text.len == after.snap.text.len &&
	     !memcmp(before.snap.text.s, after.snap.text.s, before.snap.text.len) &&
	     before.tbf.len == after.tbf.len && !memcmp(before.tbf.s, after.tbf.s, before.tbf.len);
	if (!ok)
		diag("alive: %s; generation %" PRIu64 " -> %" PRIu64, errname(rc),
		     before.snap.generation, after.snap.generation);
	state_free(&before);
	state_free(&after);
	return ok;
}

/* --- what a command does not take, one attribute at a time ------------------------------ */

/* An attribute of a base message: a string, or a number of the attribute's kind. */
struct kv {
	uint16_t type;
	const char *s;
	uint32_t v;
};

/* A message that the base state accepts, to add one attribute to. */
struct base {
	uint8_t cmd;
	bool dump;
	uint16_t top;	 /* LNETK_A_COUNT, a nest, or 0 */
	struct kv kv[3]; /* in the nest */
	uint16_t sub;	 /* a sub-nest in it, or 0 */
	struct kv subkv;
};

static const struct base bases[] = {
	{LNETK_CMD_GET_INFO, false, 0, {{0}}, 0, {0}},
	{LNETK_CMD_BUMP, false, LNETK_A_COUNT, {{0}}, 0, {0}},
	{LNETK_CMD_NI_ADD, false, LNETK_A_NI, {{LNETK_NI_A_NID, "10.7.3.1@tcp"}}, 0, {0}},
	{LNETK_CMD_NI_DEL, false, LNETK_A_NI, {{LNETK_NI_A_NID, "10.7.0.1@tcp"}}, 0, {0}},
	{LNETK_CMD_NI_SET,
	 false,
	 LNETK_A_NI,
	 {{LNETK_NI_A_NID, "10.7.0.1@tcp"}, {LNETK_NI_A_HEALTH, NULL, 500}},
	 0,
	 {0}},
	{LNETK_CMD_NI_GET, false, LNETK_A_NI, {{LNETK_NI_A_NID, "10.7.0.1@tcp"}}, 0, {0}},
	{LNETK_CMD_NI_GET, true, 0, {{0}}, 0, {0}},
	{LNETK_CMD_PEER_ADD,
	 false,
	 LNETK_A_PEER,
	 {{LNETK_PEER_A_PRIMARY, "10.7.3.100@tcp"}},
	 LNETK_PEER_A_PEER_NI,
	 {LNETK_PNI_A_NID, "10.7.3.101@tcp"}},
	{LNETK_CMD_PEER_DEL,
	 false,
	 LNETK_A_PEER,
	 {{LNETK_PEER_A_PRIMARY, "10.7.0.100@tcp"}},
	 LNETK_PEER_A_PEER_NI,
	 {LNETK_PNI_A_NID, "10.7.0.101@tcp"}},
	{LNETK_CMD_PEER_NI_SET,
	 false,
	 LNETK_A_PEER_NI,
	 {{LNETK_PNI_A_NID, "10.7.0.101@tcp"}, {LNETK_PNI_A_HEALTH, NULL, 10}},
	 0,
	 {0}},
	{LNETK_CMD_PEER_GET, false, LNETK_A_PEER, {{LNETK_PEER_A_PRIMARY, "10.7.0.100@tcp"}}, 0, {0}},
	{LNETK_CMD_PEER_GET, true, 0, {{0}}, 0, {0}},
	{LNETK_CMD_ROUTE_ADD,
	 false,
	 LNETK_A_ROUTE,
	 {{LNETK_ROUTE_A_NET, "o2ib8"}, {LNETK_ROUTE_A_GATEWAY, "10.7.0.50@tcp"}},
	 0,
	 {0}},
	{LNETK_CMD_ROUTE_DEL,
	 false,
	 LNETK_A_ROUTE,
	 {{LNETK_ROUTE_A_NET, "o2ib7"}, {LNETK_ROUTE_A_GATEWAY, "10.7.0.50@tcp"}},
	 0,
	 {0}},
	{LNETK_CMD_ROUTE_GET, true, 0, {{0}}, 0, {0}},
	{LNETK_CMD_RULE_ADD,
	 false,
	 LNETK_A_RULE,
	 {{LNETK_RULE_A_SRC, "tcp"}, {LNETK_RULE_A_PRIORITY, NULL, 3}},
	 0,
	 {0}},
	{LNETK_CMD_RULE_DEL, false, LNETK_A_RULE, {{LNETK_RULE_A_IDX, NULL, 0}}, 0, {0}},
	{LNETK_CMD_RULE_GET, true, 0, {{0}}, 0, {0}},
	{LNETK_CMD_GLOBAL_SET,
	 false,
	 LNETK_A_GLOBAL,
	 {{LNETK_GLOBAL_A_NAME, "numa_range"}, {LNETK_GLOBAL_A_VALUE, NULL, 7}},
	 0,
	 {0}},
	{LNETK_CMD_GLOBAL_GET, false, 0, {{0}}, 0, {0}},
	{LNETK_CMD_NUMA_SET, false, LNETK_A_NUMA, {{LNETK_NUMA_A_NCPT, NULL, 0}}, 0, {0}},
	{LNETK_CMD_SELECT, false, LNETK_A_SELECT, {{LNETK_SEL_A_DST, "10.7.0.100@tcp"}}, 0, {0}},
	{LNETK_CMD_EXPLAIN, false, LNETK_A_SELECT, {{LNETK_SEL_A_DST, "10.7.0.100@tcp"}}, 0, {0}},
	{LNETK_CMD_BATCH, false, LNETK_A_NI, {{LNETK_NI_A_NID, "10.7.3.2@tcp"}}, 0, {0}},
	{LNETK_CMD_BATCH,
	 false,
	 LNETK_A_PEER,
	 {{LNETK_PEER_A_PRIMARY, "10.7.3.110@tcp"}},
	 LNETK_PEER_A_PEER_NI,
	 {LNETK_PNI_A_NID, "10.7.3.111@tcp"}},
	{LNETK_CMD_TBF_SET,
	 false,
	 LNETK_A_TBF,
	 {{LNETK_TBF_A_SERVICE, "fz"}, {LNETK_TBF_A_DEPTH, NULL, 5}},
	 0,
	 {0}},
	{LNETK_CMD_TBF_CMD,
	 false,
	 LNETK_A_TBF,
	 {{LNETK_TBF_A_SERVICE, "fz"}, {LNETK_TBF_A_CMD, "change default rate=30"}},
	 0,
	 {0}},
	{LNETK_CMD_TBF_DEL, false, LNETK_A_TBF, {{LNETK_TBF_A_SERVICE, "fz2"}}, 0, {0}},
	{LNETK_CMD_TBF_GET, false, LNETK_A_TBF, {{LNETK_TBF_A_SERVICE, "fz"}}, 0, {0}},
	{LNETK_CMD_TBF_GET, true, LNETK_A_TBF, {{LNETK_TBF_A_SERVICE, "fz"}}, 0, {0}},
	{LNETK_CMD_TBF_LOAD,
	 false,
	 LNETK_A_TBF,
	 {{LNETK_TBF_A_SERVICE, "fz"}, {LNETK_TBF_A_LOAD_MS, NULL, LNETK_TBF_LOAD_MS_MIN}},
	 LNETK_TBF_A_LOAD_CLASS,
	 {LNETK_TBFL_A_NID, "10.7.0.1@tcp"}},
	{LNETK_CMD_TBF_CLASS_GET, true, LNETK_A_TBF, {{LNETK_TBF_A_SERVICE, "fz"}}, 0, {0}},
};

static void put_kv(struct gen *g, const struct nspec *n, const struct kv *kv)
{
	const struct aspec *a = pol_find(n, kv->type);

	if (kv->s)
		put_data(g, kv->type, kv->s, strlen(kv->s) + 1);
	else
		put_int(g, kv->type, kind_len[a->kind], kv->v);
}

/* A valid value for attribute @a (a small nest for a nest), every sub-attribute given. */
static void put_extra(struct gen *g, const struct nspec *n, const struct aspec *a)
{
	static const struct take all = {~0u, ~0u, &all};

	g->mut = 0;
	gen_attr(g, n, a, &all, 2);
}

/*
 * Base @b with @extra added to the top level (@where 0), to its nest (1)
 * or to its sub-nest (2); @extra NULL: the base alone.
 */
static void build_base(struct gen *g, const struct base *b, int where, const struct aspec *extra,
		       uint32_t seq, int family)
{
	const struct aspec *top = b->top ? pol_find(&top_nest, b->top) : NULL;
	struct nlmsghdr *nlh = (struct nlmsghdr *)g->buf;
	struct genlmsghdr *gh = (struct genlmsghdr *)(g->buf + NLMSG_HDRLEN);
	size_t off, soff;
	int i;

	g->len = NLMSG_HDRLEN + GENL_HDRLEN;
	memset(g->buf, 0, g->len);
	nlh->nlmsg_type = (uint16_t)family;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | (b->dump ? NLM_F_DUMP : 0);
	nlh->nlmsg_seq = seq;
	gh->cmd = b->cmd;
	gh->version = LNETK_GENL_VERSION;
	if (b->top == LNETK_A_COUNT) {
		put_int(g, LNETK_A_COUNT, 4, 1);
	} else if (top) {
		off = put_hdr(g, b->top | NLA_F_NESTED);
		for (i = 0; i < 3 && b->kv[i].type; i++)
			put_kv(g, top->nest, &b->kv[i]);
		if (b->sub) {
			const struct aspec *sa = pol_find(top->nest, b->sub);

			soff = put_hdr(g, b->sub | NLA_F_NESTED);
			put_kv(g, sa->nest, &b->subkv);
			if (where == 2)
				put_extra(g, sa->nest, extra);
			put_end(g, soff);
		}
		if (where == 1)
			put_extra(g, top->nest, extra);
		put_end(g, off);
	}
	if (where == 0 && extra)
		put_extra(g, &top_nest, extra);
	nlh->nlmsg_len = (uint32_t)g->len;
}

static const struct cspec *spec_of(uint8_t cmd)
{
	int i;

	for (i = 0; i < NCMDS; i++)
		if (cmds[i].cmd == cmd)
			return &cmds[i];
	return NULL;
}

/* What @c takes at the top level, and in the nest of type @top. */
static bool takes_top(const struct cspec *c, int type)
{
	int i;

	for (i = 0; i < 6 && c->use[i].type; i++)
		if (c->use[i].type == type)
			return true;
	return false;
}

static const struct take *take_of(const struct cspec *c, int type)
{
	int i;

	for (i = 0; i < 6 && c->use[i].type; i++)
		if (c->use[i].type == type)
			return c->use[i].take;
	return NULL;
}

/* One base with one attribute it does not take: refused, with extack, nothing changed. */
static bool refuse_extra(struct lnetk *lk, struct fsock *s, const struct base *b, int where,
			 const struct aspec *extra, const char *in)
{
	const struct cspec *c = spec_of(b->cmd);
	struct state before, after;
	char ext[256];
	bool ok;
	int rc;

	state_take(lk, &before);
	build_base(gbuf, b, where, extra, s->seq++, s->family);
	rc = fsock_send(s, gbuf->buf, gbuf->len, ext, sizeof(ext), &fs->dump_msgs);
	state_take(lk, &after);
	ok = rc < 0 && rc != -ETIMEDOUT && rc != -EIO && ext[0] && state_same(&before, &after);
	if (!ok)
		diag("%s (%s) with %s attribute %d, which it does not take: %s, extack \"%s\"%s",
		     c->name, b->dump ? "dump" : "do", in, extra->type, errname(rc), ext,
		     state_same(&before, &after) ? "" : ", and the state changed");
	state_free(&before);
	state_free(&after);
	return ok;
}

/*
 * Every command, as do and as dump, with each attribute it does not take
 * added to a message it accepts: at the top level, in its nest, in its
 * sub-nest.  The contract: refused (-EINVAL), with extack, nothing changed.
 */
static void case_not_taken(struct lnetk *lk, struct fsock *s)
{
	int i, k, cases = 0, bad = 0, based = 0;
	size_t j;

	for (j = 0; j < N(bases); j++) {
		const struct base *b = &bases[j];
		const struct cspec *c = spec_of(b->cmd);
		const struct aspec *top = b->top ? pol_find(&top_nest, b->top) : NULL;
		const struct take *t = take_of(c, b->top);
		char ext[256];
		int rc;

		reset_state(lk);
		for (i = 0; i < top_nest.npol; i++) {
			const struct aspec *a = &top_nest.pol[i];

			if (a->type == b->top || (!b->dump && takes_top(c, a->type)))
				continue;
			cases++;
			bad += !refuse_extra(lk, s, b, 0, a, "top-level");
		}
		for (k = 0; top && top->kind == K_NEST && t && k < top->nest->npol; k++) {
			const struct aspec *a = &top->nest->pol[k];

			if (t->mask & B(a->type))
				continue;
			cases++;
			bad += !refuse_extra(lk, s, b, 1, a, top->nest->name);
		}
		if (b->sub) {
			const struct aspec *sa = pol_find(top->nest, b->sub);
			const struct take *st = t ? t->sub : NULL;

			for (k = 0; st && k < sa->nest->npol; k++) {
				const struct aspec *a = &sa->nest->pol[k];

				if (st->mask & B(a->type))
					continue;
				cases++;
				bad += !refuse_extra(lk, s, b, 2, a, sa->nest->name);
			}
		}
		/* the base alone is accepted: the extra attribute was the reason */
		build_base(gbuf, b, -1, NULL, s->seq++, s->family);
		rc = fsock_send(s, gbuf->buf, gbuf->len, ext, sizeof(ext), &fs->dump_msgs);
		if (rc) {
			diag("%s (%s) alone: %s, extack \"%s\"", c->name, b->dump ? "dump" : "do",
			     errname(rc), ext);
			based++;
		}
	}
	reset_state(lk);
	tap(!based, "fuzz: the %zu base messages are accepted as they are", N(bases));
	tap(!bad && cases > 100,
	    "fuzz: every command refuses, with extack, each attribute it does not take (%d of %d "
	    "accepted or without extack)",
	    bad, cases);
}

/*
 * The errnos uapi/lnetk.h names (EPERM included); out of memory is not
 * among them, nor anything else a fuzzing run should ever see.
 */
static bool documented(int rc)
{
	static const int known[] = {EINVAL, ERANGE,	  ENOENT,	 EEXIST,   EBUSY,
				    E2BIG,  EHOSTUNREACH, EADDRNOTAVAIL, ENETDOWN, EOPNOTSUPP,
				    ENOSPC, EMSGSIZE,	  EPERM};
	size_t i;

	for (i = 0; i < N(known); i++)
		if (rc == -known[i])
			return true;
	return false;
}

/* One BATCH adding NI @nid, without LNETK_F_REPLACE: built on a copy of the instance. */
static int batch_one_ni(struct lnetk *lk, const char *nid, struct lnetk_err *err)
{
	struct lnetk_ni ni = {0};
	struct lnetk_batch *b;
	int rc = lnetk_batch_new(lk, 0, &b);

	snprintf(ni.nid, sizeof(ni.nid), "%s", nid);
	if (rc)
		return rc;
	rc = lnetk_batch_ni(b, &ni) ?: lnetk_batch_send(b, NULL, err);
	lnetk_batch_free(b);
	return rc;
}

/*
 * A BATCH is built on a copy of the instance, which re-adds every object:
 * the copy must not meet limits that came after the objects.  Found by
 * fuzzing as BATCH refused with "out of memory".
 */
static void case_batch_copy(struct lnetk *lk)
{
	struct lnetk_route r = {.net = "o2ib9", .gateway = "10.7.0.50@tcp"};
	struct lnetk_ni o2ib9 = {.nid = "192.168.9.1@o2ib9"};
	const char *none[] = {NULL};
	const char *pnids[20];
	char buf[20][LNETK_NID_MAX];
	struct lnetk_err err = {0};
	int i, rc, rc2;

	reset_state(lk);
	for (i = 0; i < 20; i++) {
		snprintf(buf[i], sizeof(buf[i]), "10.7.5.%d@tcp", i + 2);
		pnids[i] = buf[i];
	}
	rc = lnetk_peer_add(lk, "10.7.5.1@tcp", true, pnids, 20, NULL)
		     ?: lnetk_global_set(lk, "max_interfaces", 16, NULL);
	rc2 = rc ?: batch_one_ni(lk, "10.7.6.1@tcp", &err);
	diag("a peer of 21 NIDs, then max_interfaces 16: %s; a BATCH after: %s (%s)", errname(rc),
	     errname(rc2), err.msg);
	tap(!rc && !rc2, "fuzz: BATCH works after max_interfaces went below a peer's NIDs");

	reset_state(lk);
	memset(&err, 0, sizeof(err));
	rc = lnetk_route_add(lk, &r, NULL);
	rc2 = rc ?: lnetk_ni_add(lk, &o2ib9, NULL);
	diag("a route to o2ib9, then a local NI on o2ib9: %s, %s", errname(rc), errname(rc2));
	if (!rc && !rc2)
		rc2 = batch_one_ni(lk, "10.7.6.1@tcp", &err);
	diag("a BATCH after: %s (%s)", errname(rc2), err.msg);
	tap(!rc && !rc2, "fuzz: BATCH works after a routed net became a local one");

	/*
	 * The loopback NI is local: a route through it made an implicit peer
	 * 0@lo, which PEER_ADD then made explicit, and which no copy could
	 * make again (a peer's NID cannot be local).
	 */
	reset_state(lk);
	memset(&err, 0, sizeof(err));
	snprintf(r.gateway, sizeof(r.gateway), "0@lo");
	rc = lnetk_route_add(lk, &r, &err);
	diag("a route through 0@lo: %s (%s)", errname(rc), err.msg);
	rc2 = rc ? 0 : lnetk_peer_add(lk, "0@lo", true, none, 0, NULL);
	if (!rc2 && !rc)
		rc2 = batch_one_ni(lk, "10.7.6.1@tcp", &err);
	tap(rc == -EINVAL && err.msg[0] && !rc2,
	    "fuzz: a route through the loopback NI is refused (a gateway is a peer)");
	reset_state(lk);
}

/*
 * PEER_DEL lists NIDs to delete, the primary last of all: a NID listed
 * twice counted twice, so the primary could seem to go with every other
 * NID while one stayed; the others were deleted, then the primary was
 * refused (EBUSY), and the refusal had changed the peer.  Found by
 * fuzzing (LNETK_FUZZ_SEED=20261126, round 1614).
 */
static void case_peer_del_twice(struct lnetk *lk)
{
	static const char *const lists[][3] = {
		{"10.7.0.101@tcp", "10.7.0.100@tcp", "10.7.0.100@tcp"},
		{"10.7.0.101@tcp", "10.7.0.101@tcp", "10.7.0.100@tcp"},
	};
	struct state before, after;
	struct lnetk_err err;
	bool ok = true;
	size_t i;
	int rc;

	for (i = 0; i < N(lists); i++) {
		reset_state(lk);
		memset(&err, 0, sizeof(err));
		state_take(lk, &before);
		/* the peer has three NIDs: 192.168.7.50@o2ib is not listed */
		rc = lnetk_peer_del(lk, "10.7.0.100@tcp", lists[i], 3, &err);
		state_take(lk, &after);
		diag("PEER_DEL 10.7.0.100@tcp with %s, %s, %s: %s (%s)%s", lists[i][0], lists[i][1],
		     lists[i][2], errname(rc), err.msg,
		     state_same(&before, &after) ? "" : "; the peer changed");
		ok &= rc == -EBUSY && state_same(&before, &after);
		state_free(&before);
		state_free(&after);
	}
	reset_state(lk);
	tap(ok, "fuzz: PEER_DEL of a peer's primary and all but one NID, some listed twice, is "
		"refused and changes nothing");
}

static void report(double t0)
{
	int i;

	diag("%-14s %8s %8s %8s %8s %8s %8s", "command", "sent", "ok", "refused", "core", "eperm",
	     "no-ext");
	for (i = 0; i <= NCMDS; i++) {
		const struct stats *st = &fs->cmd[i];

		diag("%-14s %8" PRIu64 " %8" PRIu64 " %8" PRIu64 " %8" PRIu64 " %8" PRIu64
		     " %8" PRIu64,
		     i < NCMDS ? cmds[i].name : "(unknown)", st->sent, st->ok, st->refused,
		     st->core, st->eperm, st->noext);
	}
	diag("%" PRIu64 " messages (%" PRIu64 " dump replies) in %.1f s; SUnreclaim %ld kB",
	     fs->messages, fs->dump_msgs, now() - t0, meminfo("SUnreclaim"));
	for (i = 1; i < (int)N(fs->errnos); i++)
		if (fs->errnos[i])
			diag("refused with %s: %" PRIu64 "%s", errname(-i), fs->errnos[i],
			     documented(-i) ? "" : " (an errno the contract does not name)");
}

void cases_fuzz(void)
{
	struct cfg cfg;
	struct lnetk *lk;
	struct fsock s;
	bool ok_a = true, ok_u = true, ok_b = true;
	long round, na, nu, nb;
	uint64_t noext = 0, odd = 0;
	double t0 = now(), next_note = 0;
	int i, family;

	cfg.seed = (uint64_t)env_long("LNETK_FUZZ_SEED", 0);
	if (!cfg.seed) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		cfg.seed = (uint64_t)ts.tv_sec * 1000003u + (uint64_t)ts.tv_nsec % 1000003u;
		cfg.seed &= 0x7fffffffffffull;
	}
	cfg.iters = env_long("LNETK_FUZZ_ITERS", FUZZ_ITERS);
	cfg.seconds = env_long("LNETK_FUZZ_SECONDS", 0);
	cfg.rounds = env_long("LNETK_FUZZ_ROUNDS", cfg.seconds ? 0 : 1);
	rng = cfg.seed;
	diag("fuzz: seed %" PRIu64 ", %ld messages a round, %ld rounds, %ld s (replay: "
	     "LNETK_FUZZ_SEED=%" PRIu64 " LNETK_FUZZ_ITERS=%ld)",
	     cfg.seed, cfg.iters, cfg.rounds, cfg.seconds, cfg.seed, cfg.iters);

	fs = mmap(NULL, sizeof(*fs), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	gbuf = malloc(sizeof(*gbuf));
	if (fs == MAP_FAILED || !gbuf || new_netns()) {
		tap(false, "fuzz: set up (memory, a network namespace of its own)");
		return;
	}
	lk = open_or_fail("fuzz");
	if (!lk)
		return;
	family = lnetk_family(lk);
	if (fsock_open(&s, family) < 0) {
		tap(false, "fuzz: open a netlink socket");
		lnetk_close(lk);
		return;
	}
	kmsg_open();
	case_not_taken(lk, &s);
	case_batch_copy(lk);
	case_peer_del_twice(lk);
	reset_state(lk);
	na = cfg.iters * 3 / 10;
	nu = cfg.iters / 10;
	nb = cfg.iters / 2;
	for (round = 0; (cfg.rounds && round < cfg.rounds) ||
			(!cfg.rounds && now() - t0 < (double)cfg.seconds);
	     round++) {
		if (now() >= next_note) {
			/* after a reset: memory held by the kernel should not grow */
			diag("fuzz: round %ld at %.0f s: %" PRIu64 " messages, SUnreclaim %ld kB, "
			     "Slab %ld kB",
			     round, now() - t0, fs->messages, meminfo("SUnreclaim"),
			     meminfo("Slab"));
			next_note = now() + 60;
		}
		ok_a &= phase_refuse(lk, &s, na);
		ok_u &= phase_unpriv(lk, family, nu);
		ok_b &= phase_mixed(lk, &s, nb);
		ok_u &= phase_unpriv(lk, family, nu);
		reset_state(lk);
		kmsg_scan();
		if (!ok_a || !ok_u || !ok_b || kmsg_bad) {
			diag("fuzz: stopping after round %ld (replay with LNETK_FUZZ_ROUNDS=%ld)",
			     round, round + 1);
			round++;
			break;
		}
	}
	report(t0);
	for (i = 0; i < fs->nbad; i++)
		diag("first problems: %s", fs->first_bad[i]);
	for (i = 0; i < fs->nfindings; i++)
		diag("accepted, not taken: %s: %" PRIu64 " times", fs->finding[i].what,
		     fs->finding[i].count);
	for (i = 0; i < NCMDS; i++)
		noext += fs->cmd[i].noext;
	tap(ok_a,
	    "fuzz: every poisoned message is refused and the instance is as it was "
	    "(seed %" PRIu64 ")",
	    cfg.seed);
	tap(ok_u,
	    "fuzz: an unprivileged socket gets EPERM for every admin command and changes nothing");
	tap(ok_b && !fs->poison_accepted,
	    "fuzz: mixed messages: nothing poisoned is accepted, every message answered (%" PRIu64
	    " accepted poisoned, %" PRIu64 " unanswered)",
	    fs->poison_accepted, fs->lost);
	tap(!fs->refused_changed,
	    "fuzz: a refused change leaves the instance as it was (%" PRIu64 " of %" PRIu64
	    " checked did not)",
	    fs->refused_changed, fs->refusals_checked);
	tap(!fs->nottaken_accepted,
	    "fuzz: no command accepts an attribute it does not take (%" PRIu64 " did)",
	    fs->nottaken_accepted);
	tap(alive(lk), "fuzz: afterwards the module answers and takes a change and its revert");
	kmsg_scan();
	tap(kmsg_bad == 0, "fuzz: the kernel log has no warnings (%d lines)", kmsg_bad);
	for (i = 1; i < (int)N(fs->errnos); i++)
		if (!documented(-i))
			odd += fs->errnos[i];
	tap(odd == 0, "fuzz: every refusal has an errno the contract names (%" PRIu64 " not)", odd);
	tap(noext == 0,
	    "fuzz: every refusal of the module carries an extack message (%" PRIu64 " without)",
	    noext);
	fsock_close(&s);
	lnetk_close(lk);
	if (kmsg_fd >= 0)
		close(kmsg_fd);
	munmap(fs, sizeof(*fs));
	free(gbuf);
}
