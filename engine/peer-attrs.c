// SPDX-License-Identifier: GPL-2.0
/*
 * peer-attrs.c - the table LNE_PEER_ATTRS() describes.
 */
#include "peer-attrs.h"
#include "error.h"

const struct lne_peer_desc lne_peer_desc[LNE_PEER_A__COUNT] = {
#define LNE_PEER_ROW(id, nm, ym, opt, ng, df, eng, cl, hst, hlp) \
	[LNE_PEER_A_##id] = {.name = #nm,                        \
			     .yaml = ym,                         \
			     .option = opt,                      \
			     .neg = ng,                          \
			     .def = df,                          \
			     .engine = eng,                      \
			     .col = #cl,                         \
			     .hist = hst,                        \
			     .help = hlp},
	LNE_PEER_ATTRS(LNE_PEER_ROW)
#undef LNE_PEER_ROW
};

int lne_peer_attr_by_name(const char *s)
{
	int i;

	for (i = 0; i < LNE_PEER_A__COUNT; i++)
		if (!strcmp(lne_peer_desc[i].name, s))
			return i;
	return -ENOENT;
}

void lne_peer_defaults(u32 *v)
{
	int i;

	for (i = 0; i < LNE_PEER_A__COUNT; i++)
		v[i] = lne_peer_desc[i].def;
}
