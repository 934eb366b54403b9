/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nid-sockaddr.h - a TCP NID's address as a socket address, IPv4 or IPv6:
 * what both data path shells (kernel/dp.c, lnetd/dp.c) bind, listen on
 * and connect to.  Only the shells include it (the engine has no sockets).
 */
#ifndef LNE_NID_SOCKADDR_H
#define LNE_NID_SOCKADDR_H

#ifdef __KERNEL__
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/socket.h>
#else
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#endif

#include "nid.h"

/* @nid's address and @port as a socket address; returns its length. */
static inline int lne_nid_sockaddr(const struct lne_nid *nid, struct sockaddr_storage *ss, u16 port)
{
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	if (nid->alen == 16) {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(port);
		memcpy(&s6->sin6_addr, nid->addr, 16);
		return sizeof(*s6);
	}
	s4->sin_family = AF_INET;
	s4->sin_port = htons(port);
	memcpy(&s4->sin_addr, nid->addr, 4);
	return sizeof(*s4);
}

#endif /* LNE_NID_SOCKADDR_H */
