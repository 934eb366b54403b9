// SPDX-License-Identifier: GPL-2.0
/*
 * netif.c - interfaces and addresses through rtnetlink (libnl-route).
 *
 * Lookups ask the kernel afresh each time: NIs are few and change rarely,
 * and a cache kept in step with events would be one more thing to get
 * wrong.  The watch is a second socket in the link and address multicast
 * groups; any message there means "look again", coalesced into one
 * deferred callback so a burst of events reconciles once.
 */
#include <errno.h>
#include <net/if.h>
#include <netlink/netlink.h>
#include <netlink/route/addr.h>
#include <netlink/route/link.h>
#include <netlink/route/rtnl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <systemd/sd-device.h>

#include "lnetd/log.h"
#include "netif.h"

struct netif {
	struct nl_sock *query, *watch;
	sd_event_source *io, *defer;
	sd_device_monitor *udev;
	void (*changed)(void *data);
	void *data;
};

static int on_defer(sd_event_source *s, void *userdata)
{
	struct netif *nf = userdata;

	sd_event_source_set_enabled(nf->defer, SD_EVENT_OFF);
	nf->changed(nf->data);
	return 0;
}

static int on_message(struct nl_msg *msg, void *arg)
{
	struct netif *nf = arg;

	/* Whatever it says, look again: once, after this burst. */
	sd_event_source_set_enabled(nf->defer, SD_EVENT_ONESHOT);
	return NL_OK;
}

/* udev has finished with a net device (renamed it, run its rules): look again. */
static int on_udev(sd_device_monitor *m, sd_device *dev, void *userdata)
{
	struct netif *nf = userdata;

	sd_event_source_set_enabled(nf->defer, SD_EVENT_ONESHOT);
	return 0;
}

/*
 * udev's view comes after the kernel's: an interface is announced by
 * rtnetlink under its first name, and by udev once its rules have renamed
 * and configured it.  Both only mean "look again".  Without udev (a
 * container, a test's namespace) rtnetlink alone still covers everything.
 */
static void udev_watch(struct netif *nf, sd_event *event)
{
	int rc = sd_device_monitor_new(&nf->udev);

	if (rc >= 0)
		rc = sd_device_monitor_filter_add_match_subsystem_devtype(nf->udev, "net", NULL);
	if (rc >= 0)
		rc = sd_device_monitor_attach_event(nf->udev, event);
	if (rc >= 0)
		rc = sd_device_monitor_start(nf->udev, on_udev, nf);
	if (rc < 0) {
		log_warning("no udev monitor (%s); rtnetlink alone watches interfaces",
			    strerror(-rc));
		nf->udev = sd_device_monitor_unref(nf->udev);
	}
}

static int on_io(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct netif *nf = userdata;
	int rc = nl_recvmsgs_default(nf->watch);

	/* ENOBUFS: events were lost; looking again covers them too. */
	if (rc < 0)
		sd_event_source_set_enabled(nf->defer, SD_EVENT_ONESHOT);
	return 0;
}

int netif_open(sd_event *event, void (*changed)(void *data), void *data, struct netif **out)
{
	struct netif *nf = calloc(1, sizeof(*nf));
	int rc = -ENOMEM;

	if (!nf)
		return -ENOMEM;
	nf->changed = changed;
	nf->data = data;
	nf->query = nl_socket_alloc();
	nf->watch = nl_socket_alloc();
	if (!nf->query || !nf->watch)
		goto fail;
	rc = -ECONNREFUSED;
	if (nl_connect(nf->query, NETLINK_ROUTE) || nl_connect(nf->watch, NETLINK_ROUTE))
		goto fail;
	nl_socket_disable_seq_check(nf->watch);
	nl_socket_modify_cb(nf->watch, NL_CB_VALID, NL_CB_CUSTOM, on_message, nf);
	nl_socket_set_nonblocking(nf->watch);
	if (nl_socket_add_memberships(nf->watch, RTNLGRP_LINK, RTNLGRP_IPV4_IFADDR,
				      RTNLGRP_IPV6_IFADDR, 0))
		goto fail;
	rc = sd_event_add_defer(event, &nf->defer, on_defer, nf);
	if (rc >= 0)
		rc = sd_event_source_set_enabled(nf->defer, SD_EVENT_OFF);
	if (rc >= 0)
		rc = sd_event_add_io(event, &nf->io, nl_socket_get_fd(nf->watch), EPOLLIN, on_io,
				     nf);
	if (rc < 0)
		goto fail;
	udev_watch(nf, event);
	*out = nf;
	return 0;
fail:
	netif_close(nf);
	return rc;
}

void netif_close(struct netif *nf)
{
	if (!nf)
		return;
	sd_device_monitor_unref(nf->udev);
	sd_event_source_unref(nf->io);
	sd_event_source_unref(nf->defer);
	nl_socket_free(nf->query);
	nl_socket_free(nf->watch);
	free(nf);
}

int netif_lookup(struct netif *nf, const char *name, struct netif_state *st)
{
	struct nl_cache *addrs = NULL;
	struct rtnl_link *link = NULL;
	struct nl_object *o;
	unsigned int flags;
	int ifindex;

	memset(st, 0, sizeof(*st));
	if (rtnl_link_get_kernel(nf->query, 0, name, &link) < 0)
		return 0; /* no such interface (yet) */
	st->exists = true;
	flags = rtnl_link_get_flags(link);
	st->up = (flags & IFF_UP) && (flags & IFF_RUNNING);
	ifindex = rtnl_link_get_ifindex(link);
	rtnl_link_put(link);
	if (rtnl_addr_alloc_cache(nf->query, &addrs) < 0)
		return -ENOMEM;
	for (o = nl_cache_get_first(addrs); o; o = nl_cache_get_next(o)) {
		struct rtnl_addr *a = (struct rtnl_addr *)o;
		struct nl_addr *local = rtnl_addr_get_local(a);

		if (rtnl_addr_get_ifindex(a) != ifindex || rtnl_addr_get_family(a) != AF_INET ||
		    !local || nl_addr_get_len(local) != 4)
			continue;
		memcpy(st->ip4, nl_addr_get_binary_addr(local), 4);
		st->has_ip4 = true;
		break;
	}
	nl_cache_free(addrs);
	return 0;
}

int netif_addrs(struct netif *nf, netif_addr_cb cb, void *data)
{
	struct nl_cache *links = NULL, *addrs = NULL;
	struct nl_object *o;
	int rc = 0;

	if (rtnl_link_alloc_cache(nf->query, AF_UNSPEC, &links) < 0 ||
	    rtnl_addr_alloc_cache(nf->query, &addrs) < 0) {
		nl_cache_free(links);
		return -ENOMEM;
	}
	for (o = nl_cache_get_first(addrs); !rc && o; o = nl_cache_get_next(o)) {
		struct rtnl_addr *a = (struct rtnl_addr *)o;
		struct nl_addr *local = rtnl_addr_get_local(a);
		struct rtnl_link *link;
		const char *label;
		unsigned int flags;

		if (!local || nl_addr_get_len(local) != (rtnl_addr_get_family(a) == AF_INET    ? 4
							 : rtnl_addr_get_family(a) == AF_INET6 ? 16
											       : 0))
			continue;
		link = rtnl_link_get(links, rtnl_addr_get_ifindex(a));
		if (!link)
			continue; /* went between the two dumps: the next event looks again */
		flags = rtnl_link_get_flags(link);
		/* An IPv4 alias is the interface its label names, as getifaddrs() has it. */
		label = rtnl_addr_get_family(a) == AF_INET ? rtnl_addr_get_label(a) : NULL;
		rc = cb(label && *label ? label : rtnl_link_get_name(link),
			nl_addr_get_binary_addr(local), nl_addr_get_len(local),
			(flags & IFF_UP) && (flags & IFF_RUNNING), data);
		rtnl_link_put(link);
	}
	nl_cache_free(addrs);
	nl_cache_free(links);
	return rc;
}
