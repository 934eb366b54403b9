/* SPDX-License-Identifier: GPL-2.0 */
/*
 * version.h - the module's version, reported by LNETK_CMD_GET_INFO and
 * modinfo.  Keep it equal to PACKAGE_VERSION in dkms.conf.
 */
#ifndef LNETK_VERSION_H
#define LNETK_VERSION_H

#define LNETK_VERSION "0.1.0"

#endif /* LNETK_VERSION_H */
