// SPDX-License-Identifier: GPL-2.0
/*
 * direct.c - a connection to lnetd's own socket (direct.h).
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "direct.h"

int ctl_direct_open(const char *path, sd_bus **bus)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	sd_id128_t id;
	int fd, rc;

	*bus = NULL;
	if (!path || strlen(path) >= sizeof(sa.sun_path))
		return -ENOENT;
	memcpy(sa.sun_path, path, strlen(path));
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		rc = -errno;
		close(fd);
		return rc;
	}
	rc = sd_bus_new(bus);
	if (rc < 0) {
		close(fd);
		return rc;
	}
	rc = sd_bus_set_fd(*bus, fd, fd);
	if (rc < 0)
		close(fd); /* not the bus's yet */
	if (rc >= 0)
		rc = sd_bus_start(*bus);
	/* Through the authentication now: a connection lnetd closes (too many at once) is
	 * left for the bus, not met as a failed call. */
	if (rc >= 0)
		rc = sd_bus_get_bus_id(*bus, &id);
	if (rc < 0)
		*bus = sd_bus_flush_close_unref(*bus);
	return rc;
}
