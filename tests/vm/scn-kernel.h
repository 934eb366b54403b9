/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scn-kernel.h - the scenario backend that drives the lnetk module over
 * generic netlink (lnetk-client), the VM tier's twin of
 * tests/unit/scn-engine.h.  Each scenario starts in a network namespace of
 * its own, so it gets a brand-new instance, as the engine backend gets a
 * new lne_inst.
 */
#ifndef LNETD_SCN_KERNEL_H
#define LNETD_SCN_KERNEL_H

#include "liblnetk/lnetk-client.h"
#include "tests/lib/scenario.h"

struct scn_kernel {
	struct lnetk *lk;
	int scenarios;
};

void scn_kernel_init(struct scn_kernel *sk, struct scn_backend *be);
void scn_kernel_fini(struct scn_kernel *sk);

#endif
