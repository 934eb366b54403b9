/* SPDX-License-Identifier: GPL-2.0 */
/*
 * peer-attrs.h - a configured peer's settings, described once (as
 * tunables.h does an NI's and route-attrs.h a route's): Multi-Rail and
 * the primary NID's lock.
 *
 * LNE_PEER_ATTRS() is the one list.  The engine's struct lne_peer_conf,
 * lnetd's D-Bus decoder (AddPeer and Apply's peer operations alike) and
 * Export, its change path, and lnetctl's peer add options and its Apply
 * fields walk it; an engine that runs Lustre's LNet walks it to say them
 * (lnetd/backend/lustre/); lnetd's store takes its columns, its history
 * keys and its struct st_peer's fields from it.  A peer's primary NID and
 * its NIDs are its key and stay by name.  A new setting is a row here and
 * its column in a schema migration (schema/, lnetd/store/store.am).
 *
 * A row: X(ID, name, yaml, option, neg, def, engine, col, hist, help)
 *   name     lnetd's D-Bus key (a b), Apply's field, lnetctl's op field
 *   yaml     Lustre's YAML key in a peer block, or "": not in Lustre's
 *            YAML (lnetd keeps it; Export carries it, lnet.conf does not)
 *   option   lnetctl peer add's option ("--<option>", '-' for Lustre's '_')
 *   neg      the option says false (Lustre's --non_mr), so lnetctl always
 *            sends the setting; else the option says true and is sent only
 *            when given
 *   def      what a new peer gets when the setting is not given
 *   engine   the engine's model keeps it (struct lne_peer); else lnetd's
 *            store keeps it and the engine that runs LNet is told
 *   col      the store's column, history key and struct st_peer field (a
 *            written format, as the genl ABI is: "mr", "locked")
 *   hist     where the history's record of a peer has it:
 *            LNE_PEER_HIST_ALWAYS before "nids", always (schema 1's "mr");
 *            LNE_PEER_HIST_SET after "nids", only when not @def (a later
 *            column: a record written before it reads as @def)
 *   help     the option's help
 *
 * Every setting is a boolean (0 or 1) so far; "not given" is a state of its
 * own on the way in (-1): a new peer gets @def, an existing one keeps its
 * own.  That is the one meaning of a missing setting, AddPeer's and
 * Apply's alike.
 */
#ifndef LNE_PEER_ATTRS_H
#define LNE_PEER_ATTRS_H

#include "port.h"

#define LNE_PEER_ATTRS(X)                                                                          \
	X(MULTI_RAIL, multi_rail, "Multi-Rail", "non-mr", true, 1, true, mr, LNE_PEER_HIST_ALWAYS, \
	  "the peer is not Multi-Rail")                                                            \
	X(LOCK_PRIM, lock_prim, "", "lock-prim", false, 0, false, locked, LNE_PEER_HIST_SET,       \
	  "lock the primary NID: a peer del without --force keeps the peer and its primary")

enum lne_peer_hist {
	LNE_PEER_HIST_ALWAYS,
	LNE_PEER_HIST_SET,
};

enum lne_peer_attr {
#define LNE_PEER_ENUM(id, ...) LNE_PEER_A_##id,
	LNE_PEER_ATTRS(LNE_PEER_ENUM)
#undef LNE_PEER_ENUM
	LNE_PEER_A__COUNT
};

/* A peer's settings: by name (.multi_rail) or by index (.v[LNE_PEER_A_MULTI_RAIL]). */
#define LNE_PEER_FIELDS(type)                                 \
	union {                                               \
		struct {                                      \
			LNE_PEER_ATTRS(LNE_PEER_FIELD_##type) \
		};                                            \
		type v[LNE_PEER_A__COUNT];                    \
	}
#define LNE_PEER_FIELD_u32(id, name, ...) u32 name;
#define LNE_PEER_FIELD_int(id, name, ...) int name;

/* The store's fields: by column (.mr) or by index (.v[LNE_PEER_A_MULTI_RAIL]). */
#define LNE_PEER_COLS(type)                                 \
	union {                                             \
		struct {                                    \
			LNE_PEER_ATTRS(LNE_PEER_COL_##type) \
		};                                          \
		type v[LNE_PEER_A__COUNT];                  \
	}
#define LNE_PEER_COL_int(id, name, yaml, option, neg, def, engine, col, ...) int col;

struct lne_peer_desc {
	const char *name, *yaml, *option;
	bool neg;    /* the option says false */
	u32 def;     /* a new peer's value */
	bool engine; /* the model keeps it */
	const char *col;
	enum lne_peer_hist hist;
	const char *help;
};

extern const struct lne_peer_desc lne_peer_desc[LNE_PEER_A__COUNT];

/* The setting whose D-Bus name is @s, or -ENOENT. */
int lne_peer_attr_by_name(const char *s);
/* A new peer's settings: each row's default. */
void lne_peer_defaults(u32 *v);

#endif /* LNE_PEER_ATTRS_H */
