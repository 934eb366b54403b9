/* SPDX-License-Identifier: GPL-2.0 */
/*
 * version.h - the module's version, reported by LNETK_CMD_GET_INFO and
 * modinfo.  It is configure.ac's (AC_INIT), given to Kbuild as
 * LNETK_VERSION=... by `make kmod` and by the DKMS tree's dkms.conf; a
 * build that does not give it says "unknown".
 */
#ifndef LNETK_VERSION_H
#define LNETK_VERSION_H

#ifndef LNETK_VERSION
#define LNETK_VERSION "unknown"
#endif

#endif /* LNETK_VERSION_H */
