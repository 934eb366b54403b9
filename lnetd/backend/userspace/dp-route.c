// SPDX-License-Identifier: GPL-2.0
/*
 * dp-route.c - the interface a connection's packets leave by, as the
 * kernel's routing table says (the question `ip route get DST from SRC`
 * asks): two NIs on one net may reach a peer NI through each other's
 * interfaces, and such a connection dies with that interface's link, not
 * with its NI's (engine/node.h, ops->through).
 */
#include <errno.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "dp.h"

/* Append attribute @type with @len bytes of @data to @nh (room checked by the caller). */
static void put_attr(struct nlmsghdr *nh, unsigned short type, const void *data, size_t len)
{
	struct rtattr *rta = (struct rtattr *)((char *)nh + NLMSG_ALIGN(nh->nlmsg_len));

	rta->rta_type = type;
	rta->rta_len = (unsigned short)RTA_LENGTH(len);
	memcpy(RTA_DATA(rta), data, len);
	nh->nlmsg_len = NLMSG_ALIGN(nh->nlmsg_len) + RTA_ALIGN(rta->rta_len);
}

/* The address bytes of @ss (IPv4 or IPv6), their length in *@len; NULL for another family. */
static const void *addr_of(const struct sockaddr_storage *ss, size_t *len)
{
	if (ss->ss_family == AF_INET) {
		*len = 4;
		return &((const struct sockaddr_in *)ss)->sin_addr;
	}
	if (ss->ss_family == AF_INET6) {
		*len = 16;
		return &((const struct sockaddr_in6 *)ss)->sin6_addr;
	}
	return NULL;
}

int lnetd_dp_route_oif(const struct sockaddr_storage *dst, const struct sockaddr_storage *src)
{
	struct {
		struct nlmsghdr nh;
		struct rtmsg rt;
		char attrs[2 * RTA_SPACE(16)];
	} req;
	union {
		struct nlmsghdr nh;
		char buf[4096];
	} ans;
	struct timeval tv = {.tv_sec = 1};
	const void *d, *s;
	size_t dlen = 0, slen = 0;
	struct rtattr *rta;
	int fd, attrlen;
	ssize_t n;
	int oif = 0;

	d = addr_of(dst, &dlen);
	s = addr_of(src, &slen);
	if (!d || !s || dlen != slen)
		return 0;
	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_len = NLMSG_LENGTH(sizeof(req.rt));
	req.nh.nlmsg_type = RTM_GETROUTE;
	req.nh.nlmsg_flags = NLM_F_REQUEST;
	req.nh.nlmsg_seq = 1;
	req.rt.rtm_family = dst->ss_family;
	req.rt.rtm_dst_len = (unsigned char)(dlen * 8);
	req.rt.rtm_src_len = (unsigned char)(slen * 8);
	put_attr(&req.nh, RTA_DST, d, dlen);
	put_attr(&req.nh, RTA_SRC, s, slen);
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return 0;
	/* the kernel answers at once; the bound only keeps a lost answer from hanging the loop */
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (send(fd, &req, req.nh.nlmsg_len, 0) < 0)
		goto out;
	n = recv(fd, &ans, sizeof(ans), 0);
	if (n < (ssize_t)NLMSG_LENGTH(sizeof(struct rtmsg)) || !NLMSG_OK(&ans.nh, (size_t)n) ||
	    ans.nh.nlmsg_type != RTM_NEWROUTE)
		goto out; /* NLMSG_ERROR: no route */
	attrlen = (int)RTM_PAYLOAD(&ans.nh);
	for (rta = RTM_RTA(NLMSG_DATA(&ans.nh)); RTA_OK(rta, attrlen); rta = RTA_NEXT(rta, attrlen))
		if (rta->rta_type == RTA_OIF && RTA_PAYLOAD(rta) >= sizeof(int))
			memcpy(&oif, RTA_DATA(rta), sizeof(int));
out:
	close(fd);
	return oif;
}
