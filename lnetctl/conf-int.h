/* SPDX-License-Identifier: GPL-2.0 */
/*
 * conf-int.h - what conf.c, conf-parse.c and conf-emit.c share: the tables
 * of the vocabulary and the canonical order of ops.  Private to libconf.
 */
#ifndef LNETCTL_CONF_INT_H
#define LNETCTL_CONF_INT_H

#include "conf.h"

/* The engine's globals (engine/globals.c), with Lustre's YAML key. */
struct cf_global {
	const char *yaml, *name;
};
#define CF_NGLOBALS 12
extern const struct cf_global cf_globals[];
/* By Lustre's key or the engine's name (newer Lustre reads max_interfaces too); -1 if neither. */
int cf_global_lookup(const char *s);
/* By the engine's name only, what a "set global" op carries; -1 if none. */
int cf_global_by_name(const char *name);

/* An NI's tunables in the vocabulary's order; Lustre's keys are the same. */
#define CF_NTUN 4
extern const char *const cf_tun_keys[];

/* A route's optional numbers: Lustre's key, the op's field; -1 is "default" in all three. */
struct cf_route_num {
	const char *key, *field;
};
#define CF_NROUTE_NUMS 3
extern const struct cf_route_num cf_route_nums[];

/* The canonical order of ops (conf.h): cf_parse() sorts into it, cf_emit() writes it. */
enum cf_rank {
	CF_R_NET,     /* net ops without a pattern: the net: section */
	CF_R_IP2NETS, /* net ops with a pattern: the ip2nets: section */
	CF_R_PEER,
	CF_R_PEERS, /* set peer: the Multi-Rail design's peers: section */
	CF_R_ROUTE,
	CF_R_UDSP,
	CF_R_GLOBAL,
	CF_R_TBF,
	CF_R_OTHER,
	CF_R__COUNT,
};

enum cf_rank cf_op_rank(const struct cf_op *op);

/* lo, whose one NI 0@lo always exists: lnet.conf entries for it are skipped. */
bool cf_net_is_lo(const char *net);

#endif
