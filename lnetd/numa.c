// SPDX-License-Identifier: GPL-2.0
/*
 * numa.c - NUMA distances from sysfs.  Each /sys/devices/system/node/nodeN/
 * distance holds node N's row of the kernel's node_distance() table, so
 * the userspace engine sees the distances the module would.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numa.h"

int numa_from_sysfs(struct lne_inst *ln, const char *root)
{
	u32 *dist = calloc(LNE_MAX_CPTS * LNE_MAX_CPTS, sizeof(*dist));
	unsigned int n = 0, i, row;
	char path[256];
	int rc = 0;

	if (!dist)
		return -ENOMEM;
	for (row = 0; row < LNE_MAX_CPTS && !rc; row++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/node%u/distance", root, row);
		f = fopen(path, "r");
		if (!f)
			break; /* nodes are numbered from 0 without gaps here */
		for (i = 0; i < LNE_MAX_CPTS && fscanf(f, "%u", &dist[row * LNE_MAX_CPTS + i]) == 1;
		     i++)
			;
		fclose(f);
		if (!row)
			n = i;
		else if (i != n)
			rc = -EINVAL; /* a ragged table: trust none of it */
	}
	if (!rc && row != n)
		rc = row ? -EINVAL : 0;
	if (!rc && n) {
		/* Packed n x n for the engine. */
		for (row = 0; row < n; row++)
			for (i = 0; i < n; i++)
				dist[row * n + i] = dist[row * LNE_MAX_CPTS + i];
		rc = lne_numa_set(ln, (u16)n, dist, NULL);
	}
	free(dist);
	return rc;
}

s16 numa_dev_cpt(const struct lne_inst *ln, const char *root, const char *ifname)
{
	char path[256];
	int node = -1;
	FILE *f;

	if (!ifname || !*ifname || strchr(ifname, '/') || !strcmp(ifname, ".") ||
	    !strcmp(ifname, ".."))
		return LNE_CPT_ANY;
	/* an alias (eth0:1) is its device's interface */
	snprintf(path, sizeof(path), "%s/%.*s/device/numa_node", root, (int)strcspn(ifname, ":"),
		 ifname);
	f = fopen(path, "r");
	if (!f)
		return LNE_CPT_ANY;
	if (fscanf(f, "%d", &node) != 1)
		node = -1;
	fclose(f);
	return node >= 0 && node < ln->ncpt ? (s16)node : LNE_CPT_ANY;
}
