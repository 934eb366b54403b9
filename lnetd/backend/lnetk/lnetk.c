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
	.health = kb_health,
	.discovered = kb_discovered,
	.route_states = kb_route_states,
	.tbf_read = kb_tbf_read,
	.ping = kb_ping,
	.discover = kb_discover,
	.selftest = kb_selftest,
	.counters = kb_counters,
	.counters_reset = kb_counters_reset,
	.test_service = kb_test_service,
	.set_health = kb_set_health,
	.health_stats = kb_health_stats,
	.rtr_credits = kb_rtr_credits,
	.recovery = kb_recovery,
	.fault_add = kb_fault_add,
	.fault_del = kb_fault_del,
	.fault_reset = kb_fault_reset,
	.fault_list = kb_fault_list,
	.explain = kb_explain,
};
