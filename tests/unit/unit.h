/* SPDX-License-Identifier: GPL-2.0 */
/* The unit tier: one runner (runner.c), one suite per file. */
#ifndef LNETD_UNIT_H
#define LNETD_UNIT_H

#include <check.h>
#include <stdlib.h>

/*
 * How many rounds a randomized test runs: all of them, or a tenth under
 * valgrind (valgrind.sh sets LNETD_UNIT_LIGHT), where each costs some
 * fifty times more: the full counts run in the plain and ASan tiers.
 */
static inline int unit_rounds(int n)
{
	return getenv("LNETD_UNIT_LIGHT") ? n / 10 : n;
}

Suite *make_nid_suite(void);
Suite *make_expr_suite(void);
Suite *make_model_suite(void);
Suite *make_udsp_suite(void);
Suite *make_select_suite(void);
Suite *make_store_suite(void);
Suite *make_numa_suite(void);
Suite *make_metrics_suite(void);
Suite *make_log_suite(void);
Suite *make_tbf_suite(void);
Suite *make_conf_suite(void);
Suite *make_attr_suite(void);
Suite *make_wire_suite(void);
Suite *make_node_suite(void);
/* test-node6.c: large (IPv6) NIDs on the node, a tcase of the node suite */
TCase *make_node6_tcase(void);
/* test-nidkeys.c: strangers cannot use up the large NIDs' keys, a tcase of the node suite */
TCase *make_nidkeys_tcase(void);
/* test-nidstats.c: strangers cannot grow the node's counters, a tcase of the node suite */
TCase *make_nidstats_tcase(void);
/* test-gwpick.c: which gateway carries traffic (priority, hops, router rules), node suite */
TCase *make_gwpick_tcase(void);
Suite *make_svc_suite(void);
Suite *make_disc_suite(void);
Suite *make_health_suite(void);
Suite *make_gw_suite(void);
Suite *make_fault_suite(void);
/* test-lutbf.c (and test-lutbf-plan.c): lnetd's TBF layer for Lustre's services */
Suite *make_lutbf_suite(void);
/* test-sync.c: the generic sync of an engine (lnetd/backend/sync.c) */
Suite *make_sync_suite(void);

#endif
