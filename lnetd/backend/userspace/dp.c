// SPDX-License-Identifier: GPL-2.0
/*
 * dp.c - the userspace engine's data path (dp.h): listeners, connections
 * and the node's clock on sd-event.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "dp.h"
#include "engine/nid-sockaddr.h"
#include "lnetd/events.h"
#include "lnetd/lnetd.h"
#include "lnetd/log.h"

#define RX_BUF	     (64 * 1024)
#define LISTEN_MAX   64 /* IPv4 addresses with a TCP NI */
#define LOG_FAULTS_S 10 /* one line per peer fault kind per this many seconds */

struct dplink {
	struct lne_link l; /* first: the node's part */
	struct lnetd_dp *dp;
	struct dplink *prev, *next;
	int fd;
	sd_event_source *io;
	uint32_t events; /* what io waits for now: epoll_ctl only when it changes */
	bool connecting;
	int ifindex;	      /* the interface it leaves by, as routed (dp-route.c; 0: unknown) */
	bool woken;	      /* on dp->woken: it has something to write */
	struct dplink *wnext; /* in dp->woken */
};

struct listener {
	struct lne_nid addr; /* the NI's NID: its address, 4 or 16 bytes */
	int fd;
	sd_event_source *io;
	bool seen;
};

struct lnetd_dp {
	struct lnetd *d;
	struct lne_node node;
	uint16_t port;
	struct listener ls[LISTEN_MAX];
	size_t nls;
	struct dplink *links;
	sd_event_source *timer;
	uint64_t armed; /* the deadline the timer is set for (~0: off) */
	/*
	 * Links the node queued something on: written at the end of the
	 * handler that woke them (flush()), not on the next EPOLLOUT, which
	 * would cost two epoll_ctl calls and a loop turn per message.
	 */
	struct dplink *woken;
	int depth; /* handlers under way: only the outermost flushes */
	uint32_t pings;
	uint64_t fault_logged[LNW_F__COUNT];
	uint8_t *rx;
};

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void arm(struct lnetd_dp *dp);

static void link_free(struct dplink *k)
{
	struct lnetd_dp *dp = k->dp;

	if (k->prev)
		k->prev->next = k->next;
	else if (dp->links == k)
		dp->links = k->next;
	if (k->next)
		k->next->prev = k->prev;
	if (k->woken) {
		struct dplink **pp;

		for (pp = &dp->woken; *pp; pp = &(*pp)->wnext)
			if (*pp == k) {
				*pp = k->wnext;
				break;
			}
	}
	sd_event_source_disable_unref(k->io);
	if (k->fd >= 0)
		close(k->fd);
	free(k);
}

/* The socket is over: the node forgets the link, then it goes. */
static void link_drop(struct dplink *k, int err)
{
	lne_node_closed(&k->dp->node, &k->l, err);
	link_free(k);
}

static void want_write(struct dplink *k)
{
	uint32_t ev = EPOLLIN;

	if (k->connecting || k->l.conn.txq)
		ev |= EPOLLOUT;
	if (ev != k->events && sd_event_source_set_io_events(k->io, ev) >= 0)
		k->events = ev;
}

static int do_write(struct dplink *k)
{
	struct lne_iov iov[16];
	struct iovec v[16];
	ssize_t n;
	int i, cnt;

	while ((cnt = lne_conn_tx_iov(&k->l.conn, iov, 16)) > 0) {
		for (i = 0; i < cnt; i++) {
			v[i].iov_base = (void *)iov[i].base;
			v[i].iov_len = iov[i].len;
		}
		n = writev(k->fd, v, cnt);
		if (n < 0)
			return errno == EAGAIN || errno == EINTR ? 0 : -errno;
		lne_node_sent(&k->dp->node, &k->l, (size_t)n);
	}
	return 0;
}

static int do_read(struct dplink *k)
{
	struct lnetd_dp *dp = k->dp;
	ssize_t n;
	int rounds;

	/* a bounded number of reads per wakeup: one busy peer does not starve the loop */
	for (rounds = 0; rounds < 16; rounds++) {
		/* a payload's bytes straight into its buffer: the node takes them there */
		uint8_t *at = dp->rx;
		size_t room = lne_conn_rx_room(&k->l.conn, &at);

		n = read(k->fd, at, room ? room : RX_BUF);
		if (n < 0)
			return errno == EAGAIN || errno == EINTR ? 0 : -errno;
		if (n == 0)
			return -ECONNRESET;
		n = lne_node_input(&dp->node, &k->l, at, (size_t)n);
		if (n < 0)
			return (int)n;
	}
	return 0;
}

/* Write what the node queued on the links it woke; then the clock. */
static void flush(struct lnetd_dp *dp)
{
	struct dplink *k;

	if (dp->depth)
		return;
	dp->depth++;
	while ((k = dp->woken)) {
		int rc = 0;

		dp->woken = k->wnext;
		k->woken = false;
		if (!k->connecting && k->l.conn.txq)
			rc = do_write(k);
		if (rc)
			link_drop(k, rc);
		else
			want_write(k);
	}
	dp->depth--;
	arm(dp);
}

static int on_link_io(sd_event_source *s, int fd, uint32_t events, void *userdata)
{
	struct dplink *k = userdata;
	struct lnetd_dp *dp = k->dp;
	int rc = 0, err = 0;
	socklen_t len = sizeof(err);

	(void)s;
	/* what the input starts (a reply held, a request's deadline) counts from now */
	dp->node.now_ms = now_ms();
	dp->depth++;
	if (k->connecting) {
		if (!(events & (EPOLLOUT | EPOLLERR | EPOLLHUP)))
			goto out;
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
			err = errno;
		if (err) {
			log_debug("data path: connecting to %08llx: %s",
				  (unsigned long long)k->l.peer, strerror(err));
			link_drop(k, -err);
			goto out;
		}
		k->connecting = false;
	}
	if (events & EPOLLIN)
		rc = do_read(k);
	if (!rc && (events & EPOLLOUT || k->l.conn.txq))
		rc = do_write(k);
	if (!rc && events & (EPOLLERR | EPOLLHUP) && !(events & EPOLLIN))
		rc = -ECONNRESET;
	if (rc)
		link_drop(k, rc);
	else
		want_write(k);
out:
	dp->depth--;
	flush(dp);
	return 0;
}

static struct lne_link *ops_link_new(void *ctx)
{
	struct lnetd_dp *dp = ctx;
	struct dplink *k = calloc(1, sizeof(*k));

	if (!k)
		return NULL;
	k->dp = dp;
	k->fd = -1;
	k->next = dp->links;
	if (dp->links)
		dp->links->prev = k;
	dp->links = k;
	return &k->l;
}

/* The socket address of the NI or peer NI whose key is @key (nidkey.h): IPv4 or IPv6. */
static socklen_t nid_addr(const struct lnetd_dp *dp, u64 key, struct sockaddr_storage *ss,
			  uint16_t port)
{
	struct lne_nid nid;

	lne_node_nid(&dp->node, key, &nid);
	return lne_nid_sockaddr(&nid, ss, port);
}

/* A socket for @k's connection, as ops_connect wants it; -errno on failure. */
static int link_socket(struct dplink *k, int family)
{
	int one = 1;

	k->fd = socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (k->fd < 0)
		return -errno;
	setsockopt(k->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(k->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	return 0;
}

/*
 * From the NI's address, on a reserved port when we may (upstream's
 * acceptor wants one), then connect.  With SO_REUSEADDR every socket binds
 * the first port: it is connect that finds the address pair taken, by
 * another connection of the same two NIs (a set has control and bulk
 * ones) or by one this node closed whose last packets are still due (a
 * link that went down and came back), and says EADDRNOTAVAIL: then the
 * next port, on a socket of its own.  Without the right to a reserved
 * port, any port the kernel gives.  0 or -errno.
 */
static int bind_connect(const struct lnetd_dp *dp, struct dplink *k,
			const struct sockaddr_storage *to, socklen_t tolen)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int port, rc;

	for (port = LNW_RESERVED_PORT_MAX; port >= (int)LNW_RESERVED_PORT_MIN; port--) {
		if (k->fd < 0 && (rc = link_socket(k, to->ss_family)) < 0)
			return rc;
		len = nid_addr(dp, k->l.local, &ss, (uint16_t)port);
		if (bind(k->fd, (struct sockaddr *)&ss, len)) {
			if (errno == EADDRINUSE)
				continue;
			break; /* no right to a reserved port: any port then */
		}
		if (!connect(k->fd, (const struct sockaddr *)to, tolen) || errno == EINPROGRESS)
			return 0;
		if (errno != EADDRNOTAVAIL && errno != EADDRINUSE)
			return -errno;
		close(k->fd);
		k->fd = -1;
	}
	if (k->fd >= 0)
		close(k->fd);
	k->fd = -1;
	if ((rc = link_socket(k, to->ss_family)) < 0)
		return rc;
	len = nid_addr(dp, k->l.local, &ss, 0);
	if (bind(k->fd, (struct sockaddr *)&ss, len))
		return -errno;
	if (connect(k->fd, (const struct sockaddr *)to, tolen) && errno != EINPROGRESS)
		return -errno;
	return 0;
}

static bool ops_connect(void *ctx, struct lne_link *l)
{
	struct lnetd_dp *dp = ctx;
	struct dplink *k = (struct dplink *)l;
	struct sockaddr_storage ss;
	socklen_t len = nid_addr(dp, l->peer, &ss, dp->port);
	int rc = bind_connect(dp, k, &ss, len);

	if (rc < 0) {
		log_debug("data path: cannot connect to %08llx: %s", (unsigned long long)l->peer,
			  strerror(-rc));
		return false;
	}
	{
		struct sockaddr_storage from;

		nid_addr(dp, l->local, &from, 0);
		k->ifindex = lnetd_dp_route_oif(&ss, &from);
	}
	k->connecting = true;
	k->events = EPOLLIN | EPOLLOUT;
	if (sd_event_add_io(dp->d->event, &k->io, k->fd, k->events, on_link_io, k) < 0)
		return false;
	return true;
}

static void ops_wake(void *ctx, struct lne_link *l)
{
	struct lnetd_dp *dp = ctx;
	struct dplink *k = (struct dplink *)l;

	if (!k->io || k->woken)
		return;
	k->woken = true;
	k->wnext = dp->woken;
	dp->woken = k;
}

static void ops_close(void *ctx, struct lne_link *l)
{
	(void)ctx;
	link_free((struct dplink *)l);
}

/* Whether @l leaves by @ni's interface (node.h): its route said so when it was made. */
static bool ops_through(void *ctx, const struct lne_link *l, const struct lne_ni *ni)
{
	const struct dplink *k = (const struct dplink *)l;

	(void)ctx;
	return k->ifindex && ni->ifname[0] && (int)if_nametoindex(ni->ifname) == k->ifindex;
}

static void ops_fault(void *ctx, const struct lne_link *l, enum lnw_fault f)
{
	struct lnetd_dp *dp = ctx;
	uint64_t now = now_ms();
	char peer[LNE_NID_STR_MAX];
	struct lne_nid nid;

	if (dp->fault_logged[f] && now - dp->fault_logged[f] < LOG_FAULTS_S * 1000)
		return;
	dp->fault_logged[f] = now;
	lne_node_nid(&dp->node, l->conn.peer_nid, &nid);
	lne_nid_format(&nid, peer, sizeof(peer));
	log_warning("data path: closed a connection from %s: %s (%llu so far; this line at most "
		    "every %d s)",
		    l->conn.peer_nid ? peer : "a peer before its hello", lnw_fault_name(f),
		    (unsigned long long)dp->node.st.faults[f], LOG_FAULTS_S);
}

/* An NI or peer NI changed state: the log and HealthChanged (events.h). */
static void ops_state(void *ctx, const struct lne_nid *nid, bool local, const char *state,
		      s32 health)
{
	struct lnetd_dp *dp = ctx;
	char s[LNE_NID_STR_MAX];

	lne_nid_format(nid, s, sizeof(s));
	lnetd_event(dp->d, &(struct lnetd_event){.kind = LNETD_EV_HEALTH,
						 .nid = s,
						 .peer = !local,
						 .health = health < 0 ? 0 : (uint32_t)health,
						 .state = state});
}

/* A route went down or came up: the log and RouteStateChanged (events.h). */
static void ops_route(void *ctx, lne_net_t net, const struct lne_nid *gw, bool up)
{
	struct lnetd_dp *dp = ctx;
	char ns[LNE_NET_STR_MAX], gs[LNE_NID_STR_MAX];

	lne_net_format(net, ns, sizeof(ns));
	lne_nid_format(gw, gs, sizeof(gs));
	lnetd_event(dp->d, &(struct lnetd_event){.kind = LNETD_EV_ROUTE,
						 .ni = ns,
						 .nid = gs,
						 .state = up ? "up" : "down"});
}

/* The NUMA node lnetd runs on now (a CPT is a NUMA node: numa.c). */
static s32 ops_cpt(void *ctx)
{
	unsigned int cpu, node;

	(void)ctx;
	return getcpu(&cpu, &node) ? LNE_CPT_ANY : (s32)node;
}

static const struct lne_node_ops ops = {
	.cpt = ops_cpt,
	.state = ops_state,
	.route = ops_route,
	.link_new = ops_link_new,
	.connect = ops_connect,
	.wake = ops_wake,
	.close = ops_close,
	.fault = ops_fault,
	.through = ops_through,
	.log = lnetd_dp_log,
	.discovered = lnetd_dp_discovered,
};

static int on_accept(sd_event_source *s, int fd, uint32_t events, void *userdata)
{
	struct lnetd_dp *dp = userdata;
	struct dplink *k;
	int c, one = 1;

	(void)s;
	(void)events;
	c = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (c < 0)
		return 0;
	k = (struct dplink *)ops_link_new(dp);
	if (!k) {
		close(c);
		return 0;
	}
	k->fd = c;
	{
		struct sockaddr_storage here, there;
		socklen_t hl = sizeof(here), tl = sizeof(there);

		if (!getsockname(c, (struct sockaddr *)&here, &hl) &&
		    !getpeername(c, (struct sockaddr *)&there, &tl))
			k->ifindex = lnetd_dp_route_oif(&there, &here);
	}
	setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	dp->node.now_ms = now_ms();
	lne_node_accepted(&dp->node, &k->l);
	k->events = EPOLLIN;
	if (sd_event_add_io(dp->d->event, &k->io, c, k->events, on_link_io, k) < 0)
		link_drop(k, -ENOMEM);
	return 0;
}

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct lnetd_dp *dp = userdata;

	(void)s;
	(void)usec;
	dp->armed = ~0ull; /* a oneshot: it is off now */
	lne_node_tick(&dp->node, now_ms());
	flush(dp);
	return 0;
}

/* The clock runs only while something waits on it. */
static void arm(struct lnetd_dp *dp)
{
	uint64_t next = lne_node_next_deadline(&dp->node);

	if (next == dp->armed)
		return; /* every message would otherwise touch the timer */
	dp->armed = next;
	if (next == ~0ull) {
		sd_event_source_set_enabled(dp->timer, SD_EVENT_OFF);
		return;
	}
	/* CLOCK_MONOTONIC in µs, a little after the deadline */
	sd_event_source_set_time(dp->timer, next * 1000 + 1000);
	sd_event_source_set_enabled(dp->timer, SD_EVENT_ONESHOT);
}

static void listener_close(struct listener *l)
{
	sd_event_source_disable_unref(l->io);
	close(l->fd);
}

static void listen_on(struct lnetd_dp *dp, const struct lne_nid *nid)
{
	struct listener *l;
	struct sockaddr_storage ss;
	socklen_t len = lne_nid_sockaddr(nid, &ss, dp->port);
	int fd, one = 1;
	size_t i;

	for (i = 0; i < dp->nls; i++)
		if (dp->ls[i].addr.alen == nid->alen &&
		    !memcmp(dp->ls[i].addr.addr, nid->addr, nid->alen)) {
			dp->ls[i].seen = true;
			return;
		}
	if (dp->nls == LISTEN_MAX)
		return;
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (ss.ss_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, len) || listen(fd, 128)) {
		char a[INET6_ADDRSTRLEN];

		log_warning("data path: cannot listen on %s port %u: %m (peers cannot connect to "
			    "this NI; it may still connect to them)",
			    inet_ntop(ss.ss_family, nid->addr, a, sizeof(a)), dp->port);
		close(fd);
		return;
	}
	l = &dp->ls[dp->nls];
	l->addr = *nid;
	l->fd = fd;
	l->seen = true;
	if (sd_event_add_io(dp->d->event, &l->io, fd, EPOLLIN, on_accept, dp) < 0) {
		close(fd);
		return;
	}
	dp->nls++;
}

void lnetd_dp_sync(struct lnetd_dp *dp)
{
	struct lne_ni *ni;
	size_t i;

	if (!dp)
		return;
	lne_node_set_inst(&dp->node, dp->d->mirror);
	for (i = 0; i < dp->nls; i++)
		dp->ls[i].seen = false;
	lne_list_for_each_entry(ni, &dp->d->mirror->nis, all_link)
		if (ni->nid.lnd == LNE_LND_TCP)
			listen_on(dp, &ni->nid);
	for (i = 0; i < dp->nls;) {
		if (dp->ls[i].seen) {
			i++;
			continue;
		}
		listener_close(&dp->ls[i]);
		dp->ls[i] = dp->ls[--dp->nls];
	}
	lnetd_dp_nis_check(dp);
}

struct lne_node *lnetd_dp_node(struct lnetd_dp *dp)
{
	if (!dp)
		return NULL;
	dp->node.now_ms = now_ms();
	return &dp->node;
}

void lnetd_dp_kick(struct lnetd_dp *dp)
{
	flush(dp);
}

struct lnetd *lnetd_dp_daemon(struct lnetd_dp *dp)
{
	return dp->d;
}

int lnetd_dp_start(struct lnetd *d, uint16_t port, struct lnetd_dp **out)
{
	struct lnetd_dp *dp = calloc(1, sizeof(*dp));
	struct timespec ts;
	int rc;

	if (!dp)
		return -ENOMEM;
	dp->rx = malloc(RX_BUF);
	if (!dp->rx) {
		free(dp);
		return -ENOMEM;
	}
	dp->d = d;
	dp->port = port;
	/* A new incarnation each start: peers see a restart. */
	clock_gettime(CLOCK_REALTIME, &ts);
	lne_node_init(&dp->node, d->mirror, &ops, dp,
		      (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec);
	dp->node.now_ms = now_ms();
	dp->node.rtr_check_s = d->rtr_check_s;
	dp->node.rtr_timeout_s = d->rtr_timeout_s;
	dp->node.avoid_asym = d->avoid_asym;
	rc = sd_event_add_time(d->event, &dp->timer, CLOCK_MONOTONIC, UINT64_MAX, 1000, on_timer,
			       dp);
	if (rc < 0) {
		free(dp->rx);
		free(dp);
		return rc;
	}
	sd_event_source_set_enabled(dp->timer, SD_EVENT_OFF);
	dp->armed = ~0ull;
	*out = dp;
	lnetd_dp_sync(dp);
	return 0;
}

void lnetd_dp_stop(struct lnetd_dp *dp)
{
	size_t i;

	if (!dp)
		return;
	lne_node_fini(&dp->node);
	while (dp->links)
		link_free(dp->links);
	for (i = 0; i < dp->nls; i++)
		listener_close(&dp->ls[i]);
	sd_event_source_disable_unref(dp->timer);
	free(dp->rx);
	free(dp);
}

/* --- pings for D-Bus callers ---------------------------------------------------------- */

struct ping_call {
	struct lnetd_dp *dp;
	struct bk_call *c;
};

/* The node's ping info, as every engine answers a ping (backend.h). */
static int ping_info(struct bk_call *c, struct lne_msg *msg)
{
	struct lnw_ping_large *ent = calloc(LNW_PING_NIS_MAX, sizeof(*ent));
	struct bk_ping_info *out = &c->ping;
	struct lnw_ping p;
	enum lnw_fault f;
	u32 i, n;

	if (!ent)
		return -ENOMEM;
	f = lnw_ping_unpack_all(msg->reply, msg->reply_len, &p, ent, LNW_PING_NIS_MAX, &n);
	if (f) {
		free(ent);
		return lne_err_set(&c->err, -EPROTO, NULL, -1, "the ping reply is malformed: %s",
				   lnw_fault_name(f));
	}
	out->features = p.features;
	out->pid = p.pid;
	out->n = 0;
	for (i = 0; i < n && out->n < BK_PING_NIDS_MAX; i++) {
		if (ent[i].nid.lnd == LNE_LND_LO)
			continue;
		lne_nid_format(&ent[i].nid, out->nid[out->n].nid, sizeof(out->nid[out->n].nid));
		out->nid[out->n++].status = ent[i].status == LNW_NI_STATUS_UP	  ? LNE_PNI_UP
					    : ent[i].status == LNW_NI_STATUS_DOWN ? LNE_PNI_DOWN
										  : LNE_PNI_NA;
	}
	free(ent);
	return 0;
}

static void on_ping_done(struct lne_msg *msg, int status)
{
	struct ping_call *pc = msg->arg;
	struct bk_call *c = pc->c;

	pc->dp->pings--;
	if (status) {
		char dst[LNE_NID_STR_MAX];
		struct lne_nid x;

		lne_node_nid(&pc->dp->node, msg->hdr.dst_nid, &x);
		lne_nid_format(&x, dst, sizeof(dst));
		/* whatever the node's reason, the peer did not answer */
		c->rc = lne_err_set(&c->err,
				    status == -ETIMEDOUT || status == -ENOTCONN ? status
										: -EHOSTUNREACH,
				    NULL, -1, "failed to ping %s: %s", dst, strerror(-status));
	} else {
		c->rc = ping_info(c, msg);
	}
	free(pc);
	c->done(c);
}

int lnetd_dp_ping(struct lnetd_dp *dp, struct bk_call *c)
{
	struct ping_call *pc;
	int rc;

	if (dp->pings >= LNETD_PINGS_MAX)
		return lne_err_set(&c->err, -E2BIG, NULL, -1,
				   "%u pings are waiting already: try again later",
				   LNETD_PINGS_MAX);
	pc = calloc(1, sizeof(*pc));
	if (!pc)
		return -ENOMEM;
	pc->dp = dp;
	pc->c = c;
	dp->pings++;
	dp->node.now_ms = now_ms();
	rc = lne_node_ping(&dp->node, &c->dst, c->has_src ? &c->src : NULL, c->timeout_ms,
			   on_ping_done, pc, &c->err);
	if (rc) {
		dp->pings--;
		free(pc);
		if (!c->err.msg[0])
			lne_err_set(&c->err, rc, NULL, -1, "%s", strerror(-rc));
		return -EINVAL; /* the node refused the question */
	}
	flush(dp);
	return 0;
}
