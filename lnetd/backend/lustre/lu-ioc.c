// SPDX-License-Identifier: GPL-2.0
/*
 * lu-ioc.c - /dev/lnet: one request, the sentences of lnet.ko's refusals,
 * and LNet's lifecycle over ioctl.
 *
 * The kernel checks each request's header (its length and version) and
 * copies the whole request back, so replies land in the caller's buffer.
 * Every request but configure needs LNet up (the kernel takes a reference
 * for the call and refuses with -ENETDOWN when there is none to take).
 */
#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "lu-int.h"

int lu_ioc_fd(int fd, unsigned int nr, void *buf, u32 len)
{
	struct lu_ioc_hdr *h = buf;

	if (fd < 0)
		return -ENODEV;
	if (len < sizeof(*h) || len > LU_IOC_MAX_LEN)
		return -EINVAL;
	h->len = len;
	h->version = nr == LU_IOC_CONFIGURE || nr == LU_IOC_GET_NI ? LU_IOC_VERSION
								   : LU_IOC_VERSION2;
	if (ioctl(fd, LU_IOC_CMD(nr), buf) < 0)
		return -errno;
	return 0;
}

int lu_ioc(struct lu *lu, unsigned int nr, void *buf, u32 len)
{
	return lu_ioc_fd(lu->fd, nr, buf, len);
}

/* What says the device is gone, not that lnet.ko refused (rmmod under us). */
bool lu_ioc_gone(int rc)
{
	return rc == -ENODEV || rc == -ENXIO || rc == -EBADF || rc == -ENOTTY || rc == -EIO;
}

int lu_gone(struct lne_err *err, int rc)
{
	if (err) {
		err->pos = -1;
		err->msg[0] = '\0';
	}
	return rc;
}

/* What an errno means from lnet.ko, for the requests that give it one. */
static const char *meaning(int rc, const char *what)
{
	switch (-rc) {
	case ENETDOWN:
	case ESHUTDOWN:
		return "LNet is not up in it (configure it first)";
	case EEXIST:
		return "it has that already";
	case ENOENT:
		return "it has no such object";
	case EHOSTUNREACH:
		return "no local NI is on the gateway's net";
	case ENODEV:
		return "the NID is not that peer's primary NID";
	case EPERM:
		return strstr(what, "peer") ? "the peer's Multi-Rail setting differs" : NULL;
	case ENOTUNIQ:
		return "a non-Multi-Rail peer takes one NID per net";
	case EBUSY:
		return strstr(what, "peer") ? "it is a gateway of a route" : "it is in use";
	case EALREADY:
		return "an equal rule is there already";
	case EUSERS:
		return "a route leads to that net";
	case EACCES:
		return "it answers only to CAP_SYS_ADMIN";
	default:
		return NULL;
	}
}

int lu_refused(const struct lu *lu, struct lne_err *err, int rc, const char *input,
	       const char *what)
{
	const char *why = meaning(rc, what);

	if (lu_ioc_gone(rc))
		return lu_gone(err, rc);
	if (why)
		return lne_err_set(err, rc, input, -1, "lnet.ko %s refused to %s: %s (%s)",
				   lu->vname, what, strerror(-rc), why);
	return lne_err_set(err, rc, input, -1, "lnet.ko %s refused to %s: %s", lu->vname, what,
			   strerror(-rc));
}

int lu_ioc_configure(struct lu *lu, struct lne_err *err)
{
	struct lu_ioc_data d;
	int rc;

	memset(&d, 0, sizeof(d));
	d.flags = 1; /* the module parameters' nets stay down: lnetd adds its own */
	rc = lu_ioc(lu, LU_IOC_CONFIGURE, &d, sizeof(d));
	if (rc)
		return lu_refused(lu, err, rc, NULL, "bring LNet up");
	return 0;
}

int lu_ioc_unconfigure(struct lu *lu, struct lne_err *err)
{
	struct lu_ioc_data d;
	int rc;

	memset(&d, 0, sizeof(d));
	rc = lu_ioc(lu, LU_IOC_UNCONFIGURE, &d, sizeof(d));
	if (rc == -EBUSY)
		return lne_err_set(err, rc, NULL, -1,
				   "lnet.ko %s keeps LNet up: Lustre holds it (a mount or a "
				   "service), and it stays so until that ends",
				   lu->vname);
	if (rc)
		return lu_refused(lu, err, rc, NULL, "take LNet down");
	return 0;
}

/* Up when it answers a request that needs it up: GET_NI of index 0 (0@lo). */
int lu_running(struct lu *lu)
{
	struct lu_ioc_data d;
	int rc;

	memset(&d, 0, sizeof(d));
	rc = lu_ioc(lu, LU_IOC_GET_NI, &d, sizeof(d));
	if (!rc || rc == -ENOENT)
		return 1;
	if (rc == -ENETDOWN || rc == -ESHUTDOWN)
		return 0;
	return rc;
}
