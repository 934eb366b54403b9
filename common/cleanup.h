/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cleanup.h - a local released when it goes out of scope, whichever return
 * is taken; shared by lnetd and lnetctl (userspace only):
 *	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
 *	_cleanup_(sd_bus_error_free) sd_bus_error err = SD_BUS_ERROR_NULL;
 *	_cleanup_(freep) char *text = NULL;
 * sd-bus.h provides the sd_bus_*_unrefp helpers; the rest are here.
 */
#ifndef LNETD_COMMON_CLEANUP_H
#define LNETD_COMMON_CLEANUP_H

#include <stdio.h>
#include <stdlib.h>

#define _cleanup_(f) __attribute__((cleanup(f)))

static inline void freep(void *p)
{
	free(*(void **)p);
}

static inline void fclosep(FILE **f)
{
	if (*f)
		fclose(*f);
}

#endif /* LNETD_COMMON_CLEANUP_H */
