// SPDX-License-Identifier: GPL-2.0
/*
 * route-attrs.c - the table LNE_ROUTE_ATTRS() describes.
 */
#include "route-attrs.h"
#include "error.h"
#include "model.h"

const struct lne_route_desc lne_route_desc[LNE_ROUTE_A__COUNT] = {
#define LNE_ROUTE_ROW(id, nm, ym, opt, genl, lo, hi, df, sh, ud, hlp) \
	[LNE_ROUTE_A_##id] = {.name = #nm,                            \
			      .yaml = ym,                             \
			      .option = opt,                          \
			      .min = lo,                              \
			      .max = hi,                              \
			      .def = df,                              \
			      .shown = sh,                            \
			      .undef = ud,                            \
			      .help = hlp},
	LNE_ROUTE_ATTRS(LNE_ROUTE_ROW)
#undef LNE_ROUTE_ROW
};

/* The table's ranges are the engine's. */
#define LNE_ROUTE_CHECK(id, nm, ym, opt, genl, lo, hi, ...)                                   \
	_Static_assert(LNE_ROUTE_A_##id != LNE_ROUTE_A_HOPS || (hi) == LNE_HOPS_MAX, "hops"); \
	_Static_assert(LNE_ROUTE_A_##id != LNE_ROUTE_A_PRIORITY || (hi) == LNE_PRIO_MAX, "prio");
LNE_ROUTE_ATTRS(LNE_ROUTE_CHECK)
#undef LNE_ROUTE_CHECK

int lne_route_attr_by_name(const char *s)
{
	int i;

	for (i = 0; i < LNE_ROUTE_A__COUNT; i++)
		if (!strcmp(lne_route_desc[i].name, s))
			return i;
	return -ENOENT;
}

int lne_route_attr_by_yaml(const char *s)
{
	int i;

	for (i = 0; i < LNE_ROUTE_A__COUNT; i++)
		if (!strcmp(lne_route_desc[i].yaml, s))
			return i;
	return -ENOENT;
}
