/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bus-errors.h - lnetd's D-Bus error names, each the face of one errno.
 * Registered once (bus.c) with sd_bus_error_add_map(), so a handler can
 * return a negative errno and clients see a name and a sentence.
 */
#ifndef LNETD_BUS_ERRORS_H
#define LNETD_BUS_ERRORS_H

#define LNETD_ERR_INVALID     "org.lnetd1.Error.InvalidArgument" /* EINVAL */
#define LNETD_ERR_NOT_FOUND   "org.lnetd1.Error.NotFound"	 /* ENOENT */
#define LNETD_ERR_EXISTS      "org.lnetd1.Error.Exists"		 /* EEXIST */
#define LNETD_ERR_RANGE	      "org.lnetd1.Error.OutOfRange"	 /* ERANGE */
#define LNETD_ERR_BUSY	      "org.lnetd1.Error.Busy"		 /* EBUSY */
#define LNETD_ERR_LIMIT	      "org.lnetd1.Error.LimitReached"	 /* E2BIG */
#define LNETD_ERR_STORE	      "org.lnetd1.Error.Store"		 /* EIO */
/* The data path's: a peer that did not answer, or answered nonsense. */
#define LNETD_ERR_UNREACHABLE "org.lnetd1.Error.Unreachable"  /* EHOSTUNREACH, ETIMEDOUT */
#define LNETD_ERR_PROTOCOL    "org.lnetd1.Error.Protocol"     /* EPROTO */
#define LNETD_ERR_UNSUPPORTED "org.lnetd1.Error.NotSupported" /* EOPNOTSUPP */

#endif /* LNETD_BUS_ERRORS_H */
