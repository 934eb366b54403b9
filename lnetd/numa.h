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

/*
 * The CPT of interface @ifname's device for @ln: the NUMA node in
 * @root/IFNAME/device/numa_node (root: /sys/class/net) when @ln has a CPT
 * of that number (an alias, eth0:1, is eth0's), else LNE_CPT_ANY (a virtual interface, a host without
 * NUMA, a name that could leave @root).
 */
s16 numa_dev_cpt(const struct lne_inst *ln, const char *root, const char *ifname);

#endif /* LNETD_NUMA_H */
