/* SPDX-License-Identifier: GPL-2.0 */
/* The unit tier: one runner (runner.c), one suite per file. */
#ifndef LNETD_UNIT_H
#define LNETD_UNIT_H

#include <check.h>

Suite *make_nid_suite(void);
Suite *make_expr_suite(void);
Suite *make_model_suite(void);
Suite *make_udsp_suite(void);
Suite *make_select_suite(void);
Suite *make_store_suite(void);
Suite *make_numa_suite(void);
Suite *make_tbf_suite(void);
Suite *make_conf_suite(void);

#endif
