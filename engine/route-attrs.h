/* SPDX-License-Identifier: GPL-2.0 */
/*
 * route-attrs.h - a route's settings, described once (as tunables.h does an
 * NI's): hops, priority and health sensitivity.
 *
 * LNE_ROUTE_ATTRS() is the one list.  The module's policy, parse and put,
 * liblnetk, lnetd's kernel backend, store, D-Bus codec, change path and
 * restore, and lnetctl's options, YAML reader and writer and show output
 * walk it; a route's net and gateway are its key and stay by name.
 *
 * A row: X(ID, name, yaml, option, genl, min, max, default, shown, undef, help)
 *   name     lnetd's D-Bus key and the store's column and history key
 *   yaml     Lustre's YAML key (lnetctl route show, lnet.conf)
 *   option   lnetctl's option ("--<option>", Lustre's spelling)
 *   genl     the LNETK_ROUTE_A_* attribute carrying it (u32)
 *   min, max the range every layer enforces (priority: LNE_PRIO_MAX; hops:
 *            LNE_HOPS_MAX; route-attrs.c checks both against model.h)
 *   default  what a route gets when it is not given
 *   shown    whether `lnetctl route show` prints it without -v (as Lustre's)
 *   undef    whether "not given" is a state of its own, as Lustre's undefined
 *            hops are: lnetd stores it as not given (in effect: the default)
 *            and lnetctl's export writes it -1, as Lustre's does, which reads
 *            back as not given
 */
#ifndef LNE_ROUTE_ATTRS_H
#define LNE_ROUTE_ATTRS_H

#include "port.h"

#define LNE_ROUTE_ATTRS(X)                                                                       \
	X(HOPS, hops, "hop", "hop", LNETK_ROUTE_A_HOPS, 1, 255, 1, true, true,                   \
	  "hops to the remote net, 1 to 255")                                                    \
	X(PRIORITY, priority, "priority", "priority", LNETK_ROUTE_A_PRIORITY, 0, 0xfffffffeu, 0, \
	  true, false, "lower is preferred")                                                     \
	X(SENSITIVITY, sensitivity, "health_sensitivity", "health-sensitivity",                  \
	  LNETK_ROUTE_A_SENSITIVITY, 0, U32_MAX, 1, false, false,                                \
	  "how much a failure lowers the route's health")

enum lne_route_attr {
#define LNE_ROUTE_ENUM(id, ...) LNE_ROUTE_A_##id,
	LNE_ROUTE_ATTRS(LNE_ROUTE_ENUM)
#undef LNE_ROUTE_ENUM
	LNE_ROUTE_A__COUNT
};

/* A route's settings: by name (.hops) or by index (.v[LNE_ROUTE_A_HOPS]). */
#define LNE_ROUTE_FIELDS(type)                                  \
	union {                                                 \
		struct {                                        \
			LNE_ROUTE_ATTRS(LNE_ROUTE_FIELD_##type) \
		};                                              \
		type v[LNE_ROUTE_A__COUNT];                     \
	}
#define LNE_ROUTE_FIELD_u32(id, name, ...)	u32 name;
#define LNE_ROUTE_FIELD_uint32_t(id, name, ...) uint32_t name;
#define LNE_ROUTE_FIELD_int64_t(id, name, ...)	int64_t name;

struct lne_route_desc {
	const char *name, *yaml, *option;
	u32 min, max, def;
	bool shown; /* by route show without -v */
	bool undef; /* not given is kept as such, exported as -1 */
	const char *help;
};

extern const struct lne_route_desc lne_route_desc[LNE_ROUTE_A__COUNT];

/*
 * For the layers that include kernel/uapi/lnetk.h, each setting's genl
 * attribute in enum order: {LNE_ROUTE_ATTRS(LNE_ROUTE_GENL)}.
 */
#define LNE_ROUTE_GENL(id, name, yaml, option, genl, ...) genl,

/* The setting whose D-Bus/store name, YAML key or lnetctl option is @s, or -ENOENT. */
int lne_route_attr_by_name(const char *s);
int lne_route_attr_by_yaml(const char *s);

#endif /* LNE_ROUTE_ATTRS_H */
