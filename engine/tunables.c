// SPDX-License-Identifier: GPL-2.0
/*
 * tunables.c - the table LNE_TUNABLES() describes, and the checks and
 * defaults every layer takes from it.
 */
#include "tunables.h"
#include "error.h"
#include "nid.h"

const struct lne_tun_desc lne_tun_desc[LNE_TUN__COUNT] = {
#define LNE_TUN_ROW(id, nm, opt, sec, genl, lo, hi, dsock, do2ib, fl, hlp) \
	[LNE_TUN_##id] = {.name = #nm,                                     \
			  .option = opt,                                   \
			  .section = sec,                                  \
			  .min = lo,                                       \
			  .max = hi,                                       \
			  .def_sock = dsock,                               \
			  .def_o2ib = do2ib,                               \
			  .flags = fl,                                     \
			  .help = hlp},
	LNE_TUNABLES(LNE_TUN_ROW)
#undef LNE_TUN_ROW
};

const char *const lne_tun_section_name[2] = {
	[LNE_TUN_NET] = "tunables",
	[LNE_TUN_LND] = "lnd tunables",
};

int lne_tun_lookup(const char *name)
{
	int i;

	for (i = 0; i < LNE_TUN__COUNT; i++)
		if (!strcmp(lne_tun_desc[i].name, name))
			return i;
	return -ENOENT;
}

void lne_tunables_default(unsigned int lnd, struct lne_tunables *tun)
{
	int i;

	for (i = 0; i < LNE_TUN__COUNT; i++)
		tun->v[i] = lnd == LNE_LND_O2IB ? lne_tun_desc[i].def_o2ib
						: lne_tun_desc[i].def_sock;
}

bool lne_tun_valid(int k, u32 v)
{
	const struct lne_tun_desc *t = &lne_tun_desc[k];

	return (v >= t->min && v <= t->max) || (v == LNE_TUN_OFF && (t->flags & LNE_TUN_F_OFF));
}

int lne_tunables_check(const struct lne_tunables *tun, enum lne_tun *bad)
{
	int i;

	for (i = 0; i < LNE_TUN__COUNT; i++)
		if (!lne_tun_valid(i, tun->v[i])) {
			*bad = i;
			return -EINVAL;
		}
	return 0;
}
