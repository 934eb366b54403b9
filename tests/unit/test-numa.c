// SPDX-License-Identifier: GPL-2.0
/* NUMA distances from a sysfs tree (lnetd/numa.c), on fake trees. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lnetd/numa.h"
#include "unit.h"

static char root[64];

/* A fake /sys/devices/system/node with one "distance" line per node. */
static void fake_nodes(const char *const *rows, int n)
{
	char path[128];
	int i;

	snprintf(root, sizeof(root), "/tmp/lnetd-numa.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
	for (i = 0; i < n; i++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/node%d", root, i);
		ck_assert_int_eq(mkdir(path, 0755), 0);
		snprintf(path, sizeof(path), "%s/node%d/distance", root, i);
		f = fopen(path, "w");
		ck_assert_ptr_nonnull(f);
		fprintf(f, "%s\n", rows[i]);
		fclose(f);
	}
}

static void remove_nodes(int n)
{
	char path[128];
	int i;

	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/node%d/distance", root, i);
		unlink(path);
		snprintf(path, sizeof(path), "%s/node%d", root, i);
		rmdir(path);
	}
	rmdir(root);
}

START_TEST(numa_two_nodes)
{
	static const char *const rows[] = {"10 21", "21 10"};
	struct lne_inst *ln = lne_inst_new();

	fake_nodes(rows, 2);
	ck_assert_int_eq(numa_from_sysfs(ln, root), 0);
	ck_assert_uint_eq(ln->ncpt, 2);
	ck_assert_uint_eq(lne_numa_distance(ln, 0, 0), 10);
	ck_assert_uint_eq(lne_numa_distance(ln, 0, 1), 21);
	ck_assert_uint_eq(lne_numa_distance(ln, 1, 0), 21);
	ck_assert_uint_eq(lne_numa_distance(ln, LNE_CPT_ANY, 1), 21);
	remove_nodes(2);
	lne_inst_free(ln);
}
END_TEST

START_TEST(numa_no_sysfs_means_no_table)
{
	struct lne_inst *ln = lne_inst_new();

	ck_assert_int_eq(numa_from_sysfs(ln, "/nonexistent/node"), 0);
	ck_assert_uint_eq(ln->ncpt, 0);
	ck_assert_uint_eq(lne_numa_distance(ln, 0, 1), 0);
	lne_inst_free(ln);
}
END_TEST

START_TEST(numa_ragged_table_is_refused)
{
	static const char *const rows[] = {"10 21 31", "21 10 21"};
	struct lne_inst *ln = lne_inst_new();

	fake_nodes(rows, 2); /* three columns, two rows */
	ck_assert_int_eq(numa_from_sysfs(ln, root), -EINVAL);
	ck_assert_uint_eq(ln->ncpt, 0);
	remove_nodes(2);
	lne_inst_free(ln);
}
END_TEST

/* @root/IF/device/numa_node holding @text. */
static void fake_dev(const char *ifname, const char *text)
{
	char path[192];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, ifname);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/%s/device", root, ifname);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/%s/device/numa_node", root, ifname);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "%s\n", text);
	fclose(f);
}

static void remove_dev(const char *ifname)
{
	char path[192];

	snprintf(path, sizeof(path), "%s/%s/device/numa_node", root, ifname);
	unlink(path);
	snprintf(path, sizeof(path), "%s/%s/device", root, ifname);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/%s", root, ifname);
	rmdir(path);
}

/* An NI's CPT is its device's NUMA node, when the engine has that CPT. */
START_TEST(numa_device_cpt)
{
	static const char *const rows[] = {"10 21", "21 10"};
	struct lne_inst *ln = lne_inst_new();

	fake_nodes(rows, 2);
	ck_assert_int_eq(numa_from_sysfs(ln, root), 0);
	fake_dev("eth1", "1");
	fake_dev("eth9", "7");	/* a node the engine has no CPT for */
	fake_dev("ethm", "-1"); /* what a device without a node says */
	fake_dev("ethx", "junk");
	ck_assert_int_eq(numa_dev_cpt(ln, root, "eth1"), 1);
	ck_assert_int_eq(numa_dev_cpt(ln, root, "eth1:3"), 1);
	ck_assert_int_eq(numa_dev_cpt(ln, root, "eth9"), LNE_CPT_ANY);
	ck_assert_int_eq(numa_dev_cpt(ln, root, "ethm"), LNE_CPT_ANY);
	ck_assert_int_eq(numa_dev_cpt(ln, root, "ethx"), LNE_CPT_ANY);
	ck_assert_int_eq(numa_dev_cpt(ln, root, "veth0"), LNE_CPT_ANY); /* virtual: no device */
	ck_assert_int_eq(numa_dev_cpt(ln, root, ".."), LNE_CPT_ANY);
	ck_assert_int_eq(numa_dev_cpt(ln, root, "a/b"), LNE_CPT_ANY);
	ck_assert_int_eq(numa_dev_cpt(ln, root, ""), LNE_CPT_ANY);
	remove_dev("eth1");
	remove_dev("eth9");
	remove_dev("ethm");
	remove_dev("ethx");
	remove_nodes(2);
	lne_inst_free(ln);
}
END_TEST

Suite *make_numa_suite(void)
{
	Suite *s = suite_create("numa");
	TCase *tc = tcase_create("numa");

	tcase_add_test(tc, numa_two_nodes);
	tcase_add_test(tc, numa_no_sysfs_means_no_table);
	tcase_add_test(tc, numa_ragged_table_is_refused);
	tcase_add_test(tc, numa_device_cpt);
	suite_add_tcase(s, tc);
	return s;
}
