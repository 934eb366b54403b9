// SPDX-License-Identifier: GPL-2.0
/*
 * events.c - the module's change announcements (struct lnetk_events),
 * the family coming and going (struct lnetk_watch, the genl controller's
 * announcements) and whether it is there.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <netlink/genl/ctrl.h>
#include <netlink/genl/family.h>

#include "client-int.h"

/* The genl controller (the kernel's "nlctrl" family) and its announcements. */
#define CTRL_NAME	  "nlctrl"
#define CTRL_GROUP_NOTIFY "notify"

struct lnetk_events {
	struct nl_sock *sk;
	int family;
	lnetk_event_cb cb;	 /* the events group's */
	lnetk_dp_state_cb state; /* the dp group's */
	lnetk_dp_peer_cb peer;
	lnetk_dp_route_cb route;
	void *arg;
	char *buf;
	size_t bufsize;
};

/* What a read takes at first; a longer datagram (a peer of many NIDs) grows it. */
#define EVENTS_BUF 8192

static int group_open(const char *group, struct lnetk_events *ev, struct lnetk_events **evp);

int lnetk_events_open(lnetk_event_cb cb, void *arg, struct lnetk_events **evp)
{
	struct lnetk_events *ev = calloc(1, sizeof(*ev));

	*evp = NULL;
	if (!ev)
		return -ENOMEM;
	ev->cb = cb;
	ev->arg = arg;
	return group_open(LNETK_MCGRP_EVENTS, ev, evp);
}

int lnetk_dp_events_open(lnetk_dp_state_cb state, lnetk_dp_peer_cb peer, lnetk_dp_route_cb route,
			 void *arg, struct lnetk_events **evp)
{
	struct lnetk_events *ev = calloc(1, sizeof(*ev));

	*evp = NULL;
	if (!ev)
		return -ENOMEM;
	ev->state = state;
	ev->peer = peer;
	ev->route = route;
	ev->arg = arg;
	return group_open(LNETK_MCGRP_DP, ev, evp);
}

/* Join @group of the lnetk family with @ev (freed on failure). */
static int group_open(const char *group, struct lnetk_events *ev, struct lnetk_events **evp)
{
	int rc = -ENOMEM, grp;

	ev->sk = nl_socket_alloc();
	ev->buf = malloc(EVENTS_BUF);
	ev->bufsize = EVENTS_BUF;
	if (!ev->sk || !ev->buf)
		goto err;
	rc = lk_nlerr(genl_connect(ev->sk));
	if (rc)
		goto err;
	ev->family = genl_ctrl_resolve(ev->sk, LNETK_GENL_NAME);
	grp = genl_ctrl_resolve_grp(ev->sk, LNETK_GENL_NAME, group);
	if (ev->family < 0 || grp < 0) {
		rc = (ev->family < 0 ? ev->family : grp) == -NLE_OBJ_NOTFOUND
			     ? -ENOENT
			     : lk_nlerr(ev->family < 0 ? ev->family : grp);
		goto err;
	}
	rc = lk_nlerr(nl_socket_add_membership(ev->sk, grp));
	if (rc)
		goto err;
	*evp = ev;
	return 0;
err:
	lnetk_events_close(ev);
	return rc;
}

int lnetk_events_fd(const struct lnetk_events *ev)
{
	return nl_socket_get_fd(ev->sk);
}

int lnetk_events_set_buffer(struct lnetk_events *ev, size_t bytes)
{
	int fd = nl_socket_get_fd(ev->sk);

	if (bytes > INT_MAX)
		return -EINVAL;
	/* SO_RCVBUFFORCE needs CAP_NET_ADMIN; SO_RCVBUF is capped by rmem_max. */
	if (!lk_set_int_opt(fd, SOL_SOCKET, SO_RCVBUFFORCE, (int)bytes))
		return 0;
	return lk_set_int_opt(fd, SOL_SOCKET, SO_RCVBUF, (int)bytes);
}

/*
 * Every datagram waiting on @sk, read by hand rather than through
 * nl_recvmsgs(): the one error that matters here, ENOBUFS (notifications
 * were lost), must reach the caller as itself.  @each gets every message
 * and says whether it was one for the caller (1) or not (0); returns how
 * many were, or a negative errno.
 */
static int read_datagrams(struct nl_sock *sk, char **buf, size_t *size,
			  int (*each)(struct nlmsghdr *, void *), void *arg)
{
	int fd = nl_socket_get_fd(sk), n = 0;

	for (;;) {
		/* the next datagram's whole length (MSG_TRUNC), to read it whole */
		ssize_t len = recv(fd, NULL, 0, MSG_PEEK | MSG_TRUNC | MSG_DONTWAIT);
		struct nlmsghdr *nlh;
		int rem;

		if (len > (ssize_t)*size) {
			char *grown = realloc(*buf, (size_t)len);

			if (!grown)
				return -ENOMEM;
			*buf = grown;
			*size = (size_t)len;
		}
		if (len >= 0)
			len = recv(fd, *buf, *size, MSG_DONTWAIT);
		if (len < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return n;
			return -errno;
		}
		rem = (int)len;
		for (nlh = (struct nlmsghdr *)*buf; nlmsg_ok(nlh, rem); nlh = nlmsg_next(nlh, &rem))
			n += each(nlh, arg);
	}
}

static const struct nla_policy dp_state_policy[LNETK_HEALTH_A_MAX + 1] = {
	[LNETK_HEALTH_A_NID] = {.type = NLA_STRING},
	[LNETK_HEALTH_A_LOCAL] = {.type = NLA_U8},
	[LNETK_HEALTH_A_VALUE] = {.type = NLA_U32},
	[LNETK_HEALTH_A_STATE] = {.type = NLA_STRING},
};

static int dp_state(struct lnetk_events *ev, struct nlattr **tb)
{
	struct nlattr *h[LNETK_HEALTH_A_MAX + 1];
	char nid[LNETK_NID_MAX], state[32];

	if (!tb[LNETK_A_HEALTH] ||
	    nla_parse_nested(h, LNETK_HEALTH_A_MAX, tb[LNETK_A_HEALTH], dp_state_policy) < 0 ||
	    !h[LNETK_HEALTH_A_NID] || !h[LNETK_HEALTH_A_STATE] ||
	    lk_get_str(nid, sizeof(nid), h[LNETK_HEALTH_A_NID]) ||
	    lk_get_str(state, sizeof(state), h[LNETK_HEALTH_A_STATE]))
		return 0;
	ev->state(ev->arg, nid, h[LNETK_HEALTH_A_LOCAL] && nla_get_u8(h[LNETK_HEALTH_A_LOCAL]),
		  state, get_u32_or(h[LNETK_HEALTH_A_VALUE], 0));
	return 1;
}

/* A peer discovered, with every NID it has (as many as the module sent). */
static int dp_peer(struct lnetk_events *ev, struct nlattr **tb)
{
	static const struct nla_policy pol[LNETK_PING_A_MAX + 1] = {
		[LNETK_PING_A_NID] = {.type = NLA_STRING},
	};
	char(*nids)[LNETK_NID_MAX] = NULL;
	const char **v = NULL;
	struct nlattr *a;
	size_t n = 0, max = 0;
	int rem, rc = 0;

	if (!tb[LNETK_A_PING])
		return 0;
	nla_for_each_nested(a, tb[LNETK_A_PING], rem)
		max += nla_type(a) == LNETK_PING_A_ENTRY;
	nids = max ? calloc(max, sizeof(*nids)) : NULL;
	v = max ? calloc(max, sizeof(*v)) : NULL;
	if (!nids || !v)
		goto out;
	nla_for_each_nested(a, tb[LNETK_A_PING], rem) {
		struct nlattr *e[LNETK_PING_A_MAX + 1];

		if (nla_type(a) != LNETK_PING_A_ENTRY)
			continue;
		if (nla_parse_nested(e, LNETK_PING_A_MAX, a, pol) < 0 ||
		    lk_get_str(nids[n], sizeof(nids[n]), e[LNETK_PING_A_NID]) || !nids[n][0])
			goto out;
		v[n] = nids[n];
		n++;
	}
	ev->peer(ev->arg, v, n);
	rc = 1;
out:
	free(nids);
	free(v);
	return rc;
}

static int dp_route(struct lnetk_events *ev, struct nlattr **tb)
{
	static const struct nla_policy pol[LNETK_ROUTE_A_MAX + 1] = {
		[LNETK_ROUTE_A_NET] = {.type = NLA_STRING},
		[LNETK_ROUTE_A_GATEWAY] = {.type = NLA_STRING},
		[LNETK_ROUTE_A_DOWN] = {.type = NLA_U8},
	};
	struct nlattr *r[LNETK_ROUTE_A_MAX + 1];
	char net[LNETK_NET_MAX], gw[LNETK_NID_MAX];

	if (!tb[LNETK_A_ROUTE] ||
	    nla_parse_nested(r, LNETK_ROUTE_A_MAX, tb[LNETK_A_ROUTE], pol) < 0 ||
	    !r[LNETK_ROUTE_A_NET] || !r[LNETK_ROUTE_A_GATEWAY] || !r[LNETK_ROUTE_A_DOWN] ||
	    lk_get_str(net, sizeof(net), r[LNETK_ROUTE_A_NET]) ||
	    lk_get_str(gw, sizeof(gw), r[LNETK_ROUTE_A_GATEWAY]))
		return 0;
	ev->route(ev->arg, net, gw, !nla_get_u8(r[LNETK_ROUTE_A_DOWN]));
	return 1;
}

static int one_event(struct nlmsghdr *nlh, void *arg)
{
	struct lnetk_events *ev = arg;
	struct nlattr *tb[LNETK_A_MAX + 1];
	struct genlmsghdr *gh = nlmsg_data(nlh);

	if (nlh->nlmsg_type != ev->family ||
	    genlmsg_parse(nlh, 0, tb, LNETK_A_MAX, lk_top_policy) < 0)
		return 0;
	if (ev->state && gh->cmd == LNETK_EV_DP_STATE)
		return dp_state(ev, tb);
	if (ev->peer && gh->cmd == LNETK_EV_DP_DISCOVERED)
		return dp_peer(ev, tb);
	if (ev->route && gh->cmd == LNETK_EV_DP_ROUTE)
		return dp_route(ev, tb);
	if (!ev->cb || !tb[LNETK_A_GENERATION])
		return 0;
	ev->cb(gh->cmd, nla_get_u64(tb[LNETK_A_GENERATION]), ev->arg);
	return 1;
}

int lnetk_events_dispatch(struct lnetk_events *ev)
{
	return read_datagrams(ev->sk, &ev->buf, &ev->bufsize, one_event, ev);
}

void lnetk_events_close(struct lnetk_events *ev)
{
	if (!ev)
		return;
	nl_socket_free(ev->sk);
	free(ev->buf);
	free(ev);
}

/* --- the family coming and going ---------------------------------------------------------- */

struct lnetk_watch {
	struct nl_sock *sk;
	lnetk_family_cb cb;
	void *arg;
	char *buf;
	size_t bufsize;
};

int lnetk_watch_open(lnetk_family_cb cb, void *arg, struct lnetk_watch **wp)
{
	struct lnetk_watch *w = calloc(1, sizeof(*w));
	int rc = -ENOMEM, grp;

	*wp = NULL;
	if (!w)
		return -ENOMEM;
	w->cb = cb;
	w->arg = arg;
	w->sk = nl_socket_alloc();
	w->buf = malloc(EVENTS_BUF);
	w->bufsize = EVENTS_BUF;
	if (!w->sk || !w->buf)
		goto err;
	rc = lk_nlerr(genl_connect(w->sk));
	if (rc)
		goto err;
	/* The controller is always there: resolving its group loads nothing. */
	grp = genl_ctrl_resolve_grp(w->sk, CTRL_NAME, CTRL_GROUP_NOTIFY);
	if (grp < 0) {
		rc = lk_nlerr(grp);
		goto err;
	}
	rc = lk_nlerr(nl_socket_add_membership(w->sk, grp));
	if (rc)
		goto err;
	*wp = w;
	return 0;
err:
	lnetk_watch_close(w);
	return rc;
}

int lnetk_watch_fd(const struct lnetk_watch *w)
{
	return nl_socket_get_fd(w->sk);
}

static const struct nla_policy ctrl_policy[CTRL_ATTR_MAX + 1] = {
	[CTRL_ATTR_FAMILY_ID] = {.type = NLA_U16},
	[CTRL_ATTR_FAMILY_NAME] = {.type = NLA_STRING},
};

static int one_family_change(struct nlmsghdr *nlh, void *arg)
{
	struct lnetk_watch *w = arg;
	struct nlattr *tb[CTRL_ATTR_MAX + 1];
	struct genlmsghdr *gh = nlmsg_data(nlh);

	if (nlh->nlmsg_type != GENL_ID_CTRL ||
	    (gh->cmd != CTRL_CMD_NEWFAMILY && gh->cmd != CTRL_CMD_DELFAMILY) ||
	    genlmsg_parse(nlh, 0, tb, CTRL_ATTR_MAX, ctrl_policy) < 0 ||
	    !tb[CTRL_ATTR_FAMILY_NAME] ||
	    strcmp(nla_get_string(tb[CTRL_ATTR_FAMILY_NAME]), LNETK_GENL_NAME))
		return 0;
	w->cb(gh->cmd == CTRL_CMD_NEWFAMILY,
	      tb[CTRL_ATTR_FAMILY_ID] ? nla_get_u16(tb[CTRL_ATTR_FAMILY_ID]) : -1, w->arg);
	return 1;
}

/* Read by hand, as events are: ENOBUFS must reach the caller as itself. */
int lnetk_watch_dispatch(struct lnetk_watch *w)
{
	return read_datagrams(w->sk, &w->buf, &w->bufsize, one_family_change, w);
}

void lnetk_watch_close(struct lnetk_watch *w)
{
	if (!w)
		return;
	nl_socket_free(w->sk);
	free(w->buf);
	free(w);
}

int lnetk_family_present(void)
{
	struct nl_sock *sk = nl_socket_alloc();
	struct nl_cache *cache = NULL;
	struct genl_family *f;
	int rc;

	if (!sk)
		return -ENOMEM;
	/* A dump of every family: unlike a lookup by name, it loads no module. */
	rc = lk_nlerr(genl_connect(sk));
	if (!rc)
		rc = lk_nlerr(genl_ctrl_alloc_cache(sk, &cache));
	if (!rc) {
		f = genl_ctrl_search_by_name(cache, LNETK_GENL_NAME);
		rc = f != NULL;
		if (f)
			genl_family_put(f);
	}
	nl_cache_free(cache);
	nl_socket_free(sk);
	return rc;
}
