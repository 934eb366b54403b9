// SPDX-License-Identifier: GPL-2.0
/*
 * lnetk.c - the kernel engine (--engine=kernel) behind lnetd's one door
 * (backend.h): the lnetk module holds what the mirror holds (kernel.c says
 * when, kernel-sync.c what, kernel-load.c how it is read back), and its
 * node answers the data path's calls (kernel-dp.c).
 */
#include "kernel-int.h"

const struct backend_ops bk_lnetk_ops = {
	.name = "kernel",
	.help = "the lnetk module",
	.module = "lnetk",
	.start = kb_start,
	.stop = kb_stop,
	.sync = kb_sync,
	.applied = kb_applied,
	.ping = kb_ping,
	.discover = kb_discover,
	.selftest = kb_selftest,
	.counters = kb_counters,
	.counters_reset = kb_counters_reset,
	.test_service = kb_test_service,
};
