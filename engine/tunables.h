/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tunables.h - an NI's tunables, described once.
 *
 * LNE_TUNABLES() is the one list of them.  Every layer walks it instead of
 * naming the tunables: the module's policy, parse and put; the genl client;
 * lnetd's kernel backend, store (columns, history, undo), D-Bus a{sv} codec
 * and Export; lnetctl's options, YAML reader and writer and show output; the
 * docs check.  A new tunable is a row here, its genl attribute in
 * kernel/uapi/lnetk.h and its column in a schema migration: the ABI and the
 * history stay hand-written, and tests/unit/test-attr.c ties them to this.
 *
 * A row: X(ID, name, option, section, genl, min, max, sock default, o2ib
 * default, flags, help)
 *   ID       the enum suffix (LNE_TUN_<ID>)
 *   name     the one name: Lustre's YAML key, lnetd's D-Bus key, the store
 *            column and its history key
 *   option   lnetctl's option ("--<option>"), as Lustre's lnetctl spells it
 *   section  Lustre's YAML block: LNE_TUN_NET ("tunables") or LNE_TUN_LND
 *            ("lnd tunables")
 *   genl     the LNETK_NI_A_* attribute carrying it (u32)
 *   min, max the range every layer enforces
 *   defaults the LND's module parameter default, for socklnd and o2iblnd
 *            (Lustre's ksocklnd/ko2iblnd)
 *   flags    LNE_TUN_F_OFF: Lustre's -1 ("off") is a value, kept as
 *            LNE_TUN_OFF and shown as -1; LNE_TUN_F_SHOWN: Lustre's read-only
 *            kind, shown by net show -v and set by lnetctl's option only,
 *            left out of export and import
 */
#ifndef LNE_TUNABLES_H
#define LNE_TUNABLES_H

#include "port.h"

#define LNE_TUNABLES(X)                                                                          \
	X(PEER_TIMEOUT, peer_timeout, "peer-timeout", LNE_TUN_NET, LNETK_NI_A_PEER_TIMEOUT, 0,   \
	  U32_MAX, 180, 180, 0, "seconds without a message before a peer is thought dead")       \
	X(PEER_CREDITS, peer_credits, "peer-credits", LNE_TUN_NET, LNETK_NI_A_PEER_CREDITS, 1,   \
	  U32_MAX, 8, 32, 0, "messages in flight to one peer")                                   \
	X(PEER_BUFFER_CREDITS, peer_buffer_credits, "peer-buffer-credits", LNE_TUN_NET,          \
	  LNETK_NI_A_PEER_BUFFER_CREDITS, 0, U32_MAX, 0, 0, 0,                                   \
	  "routing buffers per peer (0: the LND's choice)")                                      \
	X(CREDITS, credits, "credits", LNE_TUN_NET, LNETK_NI_A_CREDITS, 1, U32_MAX, 256, 256, 0, \
	  "messages in flight on the NI")                                                        \
	X(CONNS_PER_PEER, conns_per_peer, "conns-per-peer", LNE_TUN_LND,                         \
	  LNETK_NI_A_CONNS_PER_PEER, 0, 127, 0, 1, 0,                                            \
	  "bulk connections each way to each peer (0: one)")                                     \
	X(TOS, tos, "tos", LNE_TUN_LND, LNETK_NI_A_TOS, 0, 255, LNE_TUN_OFF, LNE_TUN_OFF,        \
	  LNE_TUN_F_OFF, "IP type of service of the NI's connections (-1: the system's)")        \
	X(LND_TIMEOUT, timeout, "lnd-timeout", LNE_TUN_LND, LNETK_NI_A_LND_TIMEOUT, 0, U32_MAX,  \
	  50, 50, LNE_TUN_F_SHOWN,                                                               \
	  "seconds before the LND gives up on a connection (0: the global lnd_timeout)")

/* Lustre's -1 for a tunable with LNE_TUN_F_OFF, in the u32 every layer carries. */
#define LNE_TUN_OFF	U32_MAX
#define LNE_TUN_F_OFF	1u
#define LNE_TUN_F_SHOWN 2u

enum lne_tun {
#define LNE_TUN_ENUM(id, ...) LNE_TUN_##id,
	LNE_TUNABLES(LNE_TUN_ENUM)
#undef LNE_TUN_ENUM
	LNE_TUN__COUNT
};

/* Lustre's YAML blocks for an NI's tunables. */
enum lne_tun_section {
	LNE_TUN_NET, /* "tunables" */
	LNE_TUN_LND, /* "lnd tunables" */
};

/* An NI's tunables: by name (tun.peer_credits) or by index (tun.v[LNE_TUN_PEER_CREDITS]). */
struct lne_tunables {
	union {
		struct {
#define LNE_TUN_FIELD(id, name, ...) u32 name;
			LNE_TUNABLES(LNE_TUN_FIELD)
#undef LNE_TUN_FIELD
		};
		u32 v[LNE_TUN__COUNT];
	};
};

struct lne_tun_desc {
	const char *name;   /* YAML key, D-Bus key, store column */
	const char *option; /* lnetctl --option */
	enum lne_tun_section section;
	u32 min, max;
	u32 def_sock, def_o2ib;
	unsigned int flags; /* LNE_TUN_F_* */
	const char *help;
};

/*
 * The genl attribute of each tunable, in enum lne_tun's order, for the
 * layers that include kernel/uapi/lnetk.h (the engine does not):
 *	static const u16 genl[LNE_TUN__COUNT] = {LNE_TUNABLES(LNE_TUN_GENL)};
 * (Positional, not "[LNE_TUN_x] = ...": clang-format takes a header of
 * such lines for Objective-C.)
 */
#define LNE_TUN_GENL(id, name, option, section, genl, ...) genl,

extern const struct lne_tun_desc lne_tun_desc[LNE_TUN__COUNT];
extern const char *const lne_tun_section_name[2];

/* The tunable called @name (its YAML key), or -ENOENT. */
int lne_tun_lookup(const char *name);
/* The LND's defaults (lnd: enum lne_lnd). */
void lne_tunables_default(unsigned int lnd, struct lne_tunables *tun);
/*
 * 0 if every value is in its range; else -EINVAL and the index of the
 * first that is not in *@bad.
 */
int lne_tunables_check(const struct lne_tunables *tun, enum lne_tun *bad);
/* Whether @v is a value of tunable @k: in its range, or LNE_TUN_OFF where it takes that. */
bool lne_tun_valid(int k, u32 v);

#endif /* LNE_TUNABLES_H */
