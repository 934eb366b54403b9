/* SPDX-License-Identifier: GPL-2.0 */
/*
 * netif.h - the host's network interfaces, as NIs need them: does an
 * interface exist, is its link up, which address gives the NI its NID;
 * and a watch on rtnetlink that says when any of that may have changed.
 */
#ifndef LNETD_NETIF_H
#define LNETD_NETIF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-event.h>

struct netif;

struct netif_state {
	bool exists;
	bool up;      /* IFF_UP and IFF_RUNNING: carrier */
	bool has_ip4; /* an IPv4 address, in @ip4 */
	uint8_t ip4[4];
};

/* Open rtnetlink; @changed runs (from the event loop) after links or addresses change. */
int netif_open(sd_event *event, void (*changed)(void *data), void *data, struct netif **out);
void netif_close(struct netif *nf);
/* Every IPv4 and IPv6 address of every interface, fresh from the kernel: @cb
 * gets the interface's name, the address (@alen 4 or 16 bytes) and whether the
 * link is up; a negative return from @cb stops the walk and is returned. */
typedef int (*netif_addr_cb)(const char *ifname, const uint8_t *addr, size_t alen, bool up,
			     void *data);
int netif_addrs(struct netif *nf, netif_addr_cb cb, void *data);
/* The current state of interface @name (fresh from the kernel). */
int netif_lookup(struct netif *nf, const char *name, struct netif_state *st);

#endif /* LNETD_NETIF_H */
