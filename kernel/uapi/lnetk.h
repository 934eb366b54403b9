/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * lnetk.h - the generic netlink contract of the lnetk kernel module.
 *
 * lnetk keeps LNet's runtime state (later: nets, NIs, peers, routes, UDSP
 * and TBF rules) with one independent instance per network namespace.  It
 * is driven over the generic netlink family LNETK_GENL_NAME, version
 * LNETK_GENL_VERSION; requests act on the instance of the requesting
 * socket's network namespace.  lnetd is its only writer; anyone may read.
 *
 * Every instance carries a generation: a u64 that starts at 0 when the
 * instance is created and grows with every change to it, so that a reader
 * can tell whether what it saw is still current.
 *
 * Policies are strict and checked before a command runs: an attribute the
 * command does not take, or of the wrong size, is refused with -EINVAL, a
 * value out of range with -ERANGE, a missing required attribute with
 * -EINVAL.  Every refusal carries an extack message saying what was wrong
 * (ask for it with NETLINK_EXT_ACK).  Commands flagged "admin" need
 * CAP_NET_ADMIN in the user namespace that owns the network namespace
 * (GENL_UNS_ADMIN_PERM) and fail with -EPERM otherwise.
 *
 * Commands
 * --------
 *
 * LNETK_CMD_GET_INFO: read the instance's identity.  Takes no attribute.
 *   Replies (LNETK_CMD_GET_INFO) with:
 *
 *     LNETK_A_GENERATION: NLA_U64, the instance's current generation
 *     LNETK_A_VERSION: NLA_NUL_STRING, the module's version, e.g. "0.1.0"
 *
 * LNETK_CMD_BUMP (admin): a harmless change, for tests of the change path.
 *   Takes:
 *
 *     LNETK_A_COUNT: NLA_U32, required, 1 to LNETK_BUMP_MAX: how much
 *                    to add to the generation
 *
 *   Adds LNETK_A_COUNT to the generation and replies (LNETK_CMD_BUMP) with:
 *
 *     LNETK_A_GENERATION: NLA_U64, the new generation
 *
 *   and announces the change to the "events" group (below).
 *
 * Multicast group LNETK_MCGRP_EVENTS ("events")
 * ---------------------------------------------
 *
 * Every change to an instance is announced to the group's members in that
 * network namespace only, in generation order, with a message whose command
 * says what changed and which carries at least LNETK_A_GENERATION, the
 * generation after the change.  Today: LNETK_CMD_BUMP.  A listener that
 * sees a gap in generations (or gets ENOBUFS) has missed changes and must
 * read the state again.  Joining the group needs no privilege.
 */
#ifndef _UAPI_LNETK_H
#define _UAPI_LNETK_H

#define LNETK_GENL_NAME	   "lnetk"
#define LNETK_GENL_VERSION 1

#define LNETK_MCGRP_EVENTS "events"

/* The most LNETK_CMD_BUMP adds at once: keeps tests from wrapping. */
#define LNETK_BUMP_MAX 1000

enum lnetk_cmd {
	LNETK_CMD_UNSPEC,
	LNETK_CMD_GET_INFO,
	LNETK_CMD_BUMP,
	__LNETK_CMD_LAST
};
#define LNETK_CMD_MAX (__LNETK_CMD_LAST - 1)

enum lnetk_attr {
	LNETK_A_UNSPEC,
	LNETK_A_PAD, /* alignment padding for 64-bit attributes, never sent alone */
	LNETK_A_GENERATION,
	LNETK_A_VERSION,
	LNETK_A_COUNT,
	__LNETK_A_LAST
};
#define LNETK_A_MAX (__LNETK_A_LAST - 1)

#endif /* _UAPI_LNETK_H */
