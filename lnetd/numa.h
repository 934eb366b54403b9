/* SPDX-License-Identifier: GPL-2.0 */
/*
 * numa.h - the host's NUMA distances for the userspace engine, as the
 * module takes them from node_distance(): a CPT is a NUMA node.
 */
#ifndef LNETD_NUMA_H
#define LNETD_NUMA_H

#include "engine/model.h"

/*
 * Read @root/nodeN/distance (root: /sys/devices/system/node) for nodes
 * 0, 1, ... and give @ln that table.  A host without the files keeps no
 * table (every distance equal).  Returns 0 or a negative errno.
 */
int numa_from_sysfs(struct lne_inst *ln, const char *root);

#endif /* LNETD_NUMA_H */
