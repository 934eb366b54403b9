// SPDX-License-Identifier: GPL-2.0
/*
 * The unit tier's one runner.  Results go out as TAP on stdout, one line
 * per test case, which automake's tap-driver turns into per-case counts.
 * `unit SUITE...` runs only the named suites.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"

static const struct {
	const char *name;
	Suite *(*make)(void);
} suites[] = {
	{"nid", make_nid_suite},   {"expr", make_expr_suite},	  {"model", make_model_suite},
	{"udsp", make_udsp_suite}, {"select", make_select_suite}, {"store", make_store_suite},
	{"numa", make_numa_suite}, {"tbf", make_tbf_suite},	  {"conf", make_conf_suite},
	{"attr", make_attr_suite}, {"wire", make_wire_suite},	  {"node", make_node_suite},
	{"svc", make_svc_suite},   {"disc", make_disc_suite},	  {"metrics", make_metrics_suite},
	{"log", make_log_suite},   {"health", make_health_suite}, {"fault", make_fault_suite},
	{"gw", make_gw_suite},	   {"lutbf", make_lutbf_suite},	  {"sync", make_sync_suite},
};

int main(int argc, char **argv)
{
	SRunner *sr = NULL;
	int failed, a;
	size_t i;

	/*
	 * check's default is 4 s a test, which the randomized tests overran under
	 * ASan on a loaded machine: a unit test checks results, not speed (that
	 * is bench/'s), so the limit only catches a hang.  Read when each tcase
	 * is made; CK_DEFAULT_TIMEOUT in the environment still wins.
	 */
	setenv("CK_DEFAULT_TIMEOUT", "300", 0);
	for (i = 0; i < sizeof(suites) / sizeof(suites[0]); i++) {
		bool wanted = argc < 2;

		for (a = 1; a < argc; a++)
			wanted |= !strcmp(argv[a], suites[i].name);
		if (!wanted)
			continue;
		if (!sr)
			sr = srunner_create(suites[i].make());
		else
			srunner_add_suite(sr, suites[i].make());
	}
	if (!sr) {
		fprintf(stderr, "unit: no such suite\n");
		return 2;
	}
	srunner_set_tap(sr, "-");
	srunner_run_all(sr, CK_SILENT);
	failed = srunner_ntests_failed(sr);
	printf("# %d checks, %d failed\n", srunner_ntests_run(sr), failed);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
