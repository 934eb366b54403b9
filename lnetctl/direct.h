/* SPDX-License-Identifier: GPL-2.0 */
/*
 * direct.h - a connection to lnetd's own socket (lnetd --private-socket),
 * org.lnetd1 peer to peer without dbus-daemon.  lnetctl's and the tests'.
 */
#ifndef LNETCTL_DIRECT_H
#define LNETCTL_DIRECT_H

#include <systemd/sd-bus.h>

/*
 * 0 and *bus, authenticated, on the socket at @path; negative, with nothing
 * open, when nobody listens there, the caller may not connect, or lnetd
 * closed it (too many at once), so the caller can go through the bus.
 */
int ctl_direct_open(const char *path, sd_bus **bus);

#endif /* LNETCTL_DIRECT_H */
