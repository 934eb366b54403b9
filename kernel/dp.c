// SPDX-License-Identifier: GPL-2.0
/*
 * dp.c - the module's data path (dp.h): kernel TCP sockets around the
 * engine's LNet node.
 *
 * Socket callbacks (softirq) only mark their socket and queue the
 * instance's one work item; the work, on an ordered workqueue, takes @lock
 * and ln->sel (read) and serves every marked socket: accepts, reads into
 * the node, writes what the node queued.  Nothing here decides anything
 * about LNet: that is the node's (engine/node.c).
 */
#include <linux/in.h>
#include <linux/inet.h>
#include <linux/module.h>
#include <linux/net.h>
#include <linux/slab.h>
#include <linux/tcp.h>
#include <linux/workqueue.h>
#include <net/ipv6.h>
#include <net/netlink.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "dp.h"
#include "engine/nid-sockaddr.h"
#include "instance.h"
#include "lnetk_nrs.h"
#include "netlink.h"
#include "nl-int.h"
#include "uapi/lnetk.h"

static ushort lnet_port = LNW_PORT_DEFAULT;
module_param(lnet_port, ushort, 0444);
MODULE_PARM_DESC(lnet_port, "the TCP port LNet listens on and connects to (988)");

/* Upstream's names and defaults; read at every tick, so a change takes at the next one. */
static uint alive_router_check_interval = LNE_RTR_CHECK_S;
module_param(alive_router_check_interval, uint, 0644);
MODULE_PARM_DESC(alive_router_check_interval,
		 "seconds between the router checker's pings of each gateway (0: no checks)");
static uint router_ping_timeout = LNE_RTR_TIMEOUT_S;
module_param(router_ping_timeout, uint, 0644);
MODULE_PARM_DESC(router_ping_timeout, "seconds a gateway has to answer a check (at least 1)");

#define RX_BUF	      (64 * 1024)
#define READS_PER_RUN 16
#define LISTEN_MAX    64

struct ksock {
	struct socket *sock;
	void (*saved_data_ready)(struct sock *sk);
	void (*saved_write_space)(struct sock *sk);
	void (*saved_state_change)(struct sock *sk);
	int kick; /* an event came: serve it on the next run */
};

struct klink {
	struct lne_link l; /* first: the node's part */
	struct lnetk_dp *dp;
	struct list_head item; /* in dp->links */
	struct ksock ks;
	bool connecting;
};

struct klisten {
	struct lnetk_dp *dp;
	struct list_head item;
	struct ksock ks;
	struct lne_nid addr; /* the NI's NID: its address, 4 or 16 bytes */
	bool seen;
};

struct lnetk_dp {
	struct net *net;
	struct lnetk_net *ln;
	struct mutex lock; /* every call into the node; the lists */
	struct lne_node node;
	struct workqueue_struct *wq;
	struct work_struct run;
	struct delayed_work tick;
	struct list_head links, listeners;
	spinlock_t ev_lock;	 /* @events: the netdev notifier adds under RTNL */
	struct list_head events; /* struct link_ev, oldest first */
	bool need_sync, stopping;
	u8 *rx;
};

/* The instance's data path: main.c keeps it beside the instance. */
static struct lnetk_dp *dp_of(struct lnetk_net *ln)
{
	return ln->dp;
}

static u64 now_ms(void)
{
	return ktime_to_ms(ktime_get());
}

/* --- socket callbacks: mark and queue ------------------------------------------------ */

static struct lnetk_dp *ks_dp(struct ksock *ks, bool listener)
{
	return listener ? container_of(ks, struct klisten, ks)->dp
			: container_of(ks, struct klink, ks)->dp;
}

static void ks_event(struct sock *sk)
{
	struct ksock *ks;

	read_lock_bh(&sk->sk_callback_lock);
	ks = sk->sk_user_data;
	if (ks) {
		/* bit 1: a listener (set when installed) */
		struct lnetk_dp *dp = ks_dp(ks, READ_ONCE(ks->kick) & 2);

		WRITE_ONCE(ks->kick, READ_ONCE(ks->kick) | 1);
		if (!dp->stopping)
			queue_work(dp->wq, &dp->run);
	}
	read_unlock_bh(&sk->sk_callback_lock);
}

static void on_data_ready(struct sock *sk)
{
	ks_event(sk);
}

static void on_write_space(struct sock *sk)
{
	ks_event(sk);
}

static void on_state_change(struct sock *sk)
{
	ks_event(sk);
}

static void ks_install(struct ksock *ks, bool listener)
{
	struct sock *sk = ks->sock->sk;

	write_lock_bh(&sk->sk_callback_lock);
	ks->kick = listener ? 2 : 0;
	ks->saved_data_ready = sk->sk_data_ready;
	ks->saved_write_space = sk->sk_write_space;
	ks->saved_state_change = sk->sk_state_change;
	sk->sk_user_data = ks;
	sk->sk_data_ready = on_data_ready;
	sk->sk_write_space = on_write_space;
	sk->sk_state_change = on_state_change;
	write_unlock_bh(&sk->sk_callback_lock);
}

/* After this no callback touches @ks; then the socket goes. */
static void ks_release(struct ksock *ks)
{
	struct sock *sk;

	if (!ks->sock)
		return;
	sk = ks->sock->sk;
	write_lock_bh(&sk->sk_callback_lock);
	if (sk->sk_user_data == ks) {
		sk->sk_user_data = NULL;
		sk->sk_data_ready = ks->saved_data_ready;
		sk->sk_write_space = ks->saved_write_space;
		sk->sk_state_change = ks->saved_state_change;
	}
	write_unlock_bh(&sk->sk_callback_lock);
	kernel_sock_shutdown(ks->sock, SHUT_RDWR);
	sock_release(ks->sock);
	ks->sock = NULL;
}

static bool ks_take_kick(struct ksock *ks)
{
	int k = READ_ONCE(ks->kick);

	if (!(k & 1))
		return false;
	WRITE_ONCE(ks->kick, k & ~1);
	return true;
}

/* --- links ------------------------------------------------------------------------- */

static void link_free(struct klink *k)
{
	ks_release(&k->ks);
	list_del(&k->item);
	kfree(k);
}

static void link_drop(struct lnetk_dp *dp, struct klink *k, int err)
{
	lne_node_closed(&dp->node, &k->l, err);
	link_free(k);
}

static struct lne_link *ops_link_new(void *ctx)
{
	struct lnetk_dp *dp = ctx;
	struct klink *k = kzalloc(sizeof(*k), GFP_KERNEL);

	if (!k)
		return NULL;
	k->dp = dp;
	list_add(&k->item, &dp->links);
	return &k->l;
}

/* The socket address of the NI or peer NI whose node key is @key. */
static int key_sockaddr(const struct lnetk_dp *dp, u64 key, struct sockaddr_storage *ss, u16 port)
{
	struct lne_nid nid;

	lne_node_nid(&dp->node, key, &nid);
	return lne_nid_sockaddr(&nid, ss, port);
}

static bool ops_connect(void *ctx, struct lne_link *l)
{
	struct lnetk_dp *dp = ctx;
	struct klink *k = (struct klink *)l;
	struct sockaddr_storage ss;
	int port, rc, len;

	len = key_sockaddr(dp, l->peer, &ss, lnet_port);
	rc = sock_create_kern(dp->net, ss.ss_family, SOCK_STREAM, IPPROTO_TCP, &k->ks.sock);
	if (rc)
		return false;
	tcp_sock_set_nodelay(k->ks.sock->sk);
	sock_set_reuseaddr(k->ks.sock->sk);
	/* from the NI's address and a reserved port, as upstream's acceptor wants */
	rc = -EADDRINUSE;
	for (port = LNW_RESERVED_PORT_MAX; rc == -EADDRINUSE && port >= LNW_RESERVED_PORT_MIN;
	     port--) {
		struct sockaddr_storage from;
		int flen = key_sockaddr(dp, l->local, &from, (u16)port);

		rc = kernel_bind(k->ks.sock, (struct sockaddr *)&from, flen);
	}
	if (rc)
		return false;
	ks_install(&k->ks, false);
	k->connecting = true;
	rc = kernel_connect(k->ks.sock, (struct sockaddr *)&ss, len, O_NONBLOCK);
	return !rc || rc == -EINPROGRESS;
}

static void ops_wake(void *ctx, struct lne_link *l)
{
	struct lnetk_dp *dp = ctx;
	struct klink *k = (struct klink *)l;

	WRITE_ONCE(k->ks.kick, READ_ONCE(k->ks.kick) | 1);
	if (!dp->stopping)
		queue_work(dp->wq, &dp->run);
}

static void ops_close(void *ctx, struct lne_link *l)
{
	(void)ctx;
	link_free((struct klink *)l);
}

static void ops_fault(void *ctx, const struct lne_link *l, enum lnw_fault f)
{
	struct lne_nid nid;
	char peer[LNE_NID_STR_MAX];

	lne_node_nid(&((struct lnetk_dp *)ctx)->node, l->conn.peer_nid, &nid);
	lne_nid_format(&nid, peer, sizeof(peer));
	pr_warn_ratelimited("lnetk: closed a connection from %s: %s\n",
			    l->conn.peer_nid ? peer : "a peer before its hello", lnw_fault_name(f));
}

struct state_ev {
	const struct lne_nid *nid;
	bool local;
	const char *state;
	s32 health;
};

static int fill_state(struct sk_buff *skb, void *arg)
{
	const struct state_ev *ev = arg;
	struct nlattr *h = nla_nest_start(skb, LNETK_A_HEALTH);

	if (!h || lnk_nl_put_nid(skb, LNETK_HEALTH_A_NID, ev->nid) ||
	    nla_put_u8(skb, LNETK_HEALTH_A_LOCAL, ev->local) ||
	    nla_put_u32(skb, LNETK_HEALTH_A_VALUE, ev->health < 0 ? 0 : (u32)ev->health) ||
	    nla_put_string(skb, LNETK_HEALTH_A_STATE, ev->state))
		return -EMSGSIZE;
	nla_nest_end(skb, h);
	return 0;
}

/* A local NI or peer NI changed state: told to the "dp" group, as lnetd's engine tells D-Bus. */
static void ops_state(void *ctx, const struct lne_nid *nid, bool local, const char *state,
		      s32 health)
{
	struct lnetk_dp *dp = ctx;
	struct state_ev ev = {nid, local, state, health};

	lnk_nl_dp_announce(dp->net, LNETK_EV_DP_STATE, fill_state, &ev);
}

static int fill_peer(struct sk_buff *skb, void *arg)
{
	const struct lne_peer *peer = arg;
	const struct lne_peer_net *pnet;
	const struct lne_peer_ni *pni;
	struct nlattr *p = nla_nest_start(skb, LNETK_A_PING), *e;
	int pass;

	if (!p)
		return -EMSGSIZE;
	/* the primary first, then the others */
	for (pass = 0; pass < 2; pass++)
		lne_list_for_each_entry(pnet, &peer->pnets, link)
			lne_list_for_each_entry(pni, &pnet->pnis, pnet_link) {
				if (lne_nid_equal(&pni->nid, &peer->primary) != !pass)
					continue;
				e = nla_nest_start(skb, LNETK_PING_A_ENTRY);
				if (!e || lnk_nl_put_nid(skb, LNETK_PING_A_NID, &pni->nid))
					return -EMSGSIZE;
				nla_nest_end(skb, e);
			}
	nla_nest_end(skb, p);
	return 0;
}

static void ops_discovered(void *ctx, const struct lne_peer *peer)
{
	struct lnetk_dp *dp = ctx;

	lnk_nl_dp_announce(dp->net, LNETK_EV_DP_DISCOVERED, fill_peer, (void *)peer);
}

struct route_ev {
	lne_net_t net;
	const struct lne_nid *gw;
	bool up;
};

static int fill_route(struct sk_buff *skb, void *arg)
{
	const struct route_ev *ev = arg;
	struct nlattr *r = nla_nest_start(skb, LNETK_A_ROUTE);
	char net[LNE_NET_STR_MAX];

	lne_net_format(ev->net, net, sizeof(net));
	if (!r || nla_put_string(skb, LNETK_ROUTE_A_NET, net) ||
	    lnk_nl_put_nid(skb, LNETK_ROUTE_A_GATEWAY, ev->gw) ||
	    nla_put_u8(skb, LNETK_ROUTE_A_DOWN, !ev->up))
		return -EMSGSIZE;
	nla_nest_end(skb, r);
	return 0;
}

/* The router checker took a route down or up again. */
static void ops_route(void *ctx, lne_net_t net, const struct lne_nid *gw, bool up)
{
	struct lnetk_dp *dp = ctx;
	struct route_ev ev = {net, gw, up};

	lnk_nl_dp_announce(dp->net, LNETK_EV_DP_ROUTE, fill_route, &ev);
}

static void ops_log(void *ctx, const char *line)
{
	(void)ctx;
	pr_warn_ratelimited("lnetk: %s\n", line);
}

/*
 * Discovery changes the instance from inside the node (dp->lock and @sel
 * for reading held): that takes the instance lock as well and @sel for
 * writing.  The instance lock comes before dp->lock elsewhere, so it is
 * only tried: when a change holds it, discovery tries again later.
 */
static bool ops_model_write(void *ctx, bool begin)
{
	struct lnetk_dp *dp = ctx;

	if (!begin) {
		downgrade_write(&dp->ln->sel);
		mutex_unlock(&dp->ln->lock);
		return true;
	}
	if (!mutex_trylock(&dp->ln->lock))
		return false;
	up_read(&dp->ln->sel);
	down_write(&dp->ln->sel);
	lne_node_set_inst(&dp->node, dp->ln->inst);
	return true;
}

static const struct lne_node_ops kops = {
	.link_new = ops_link_new,
	.connect = ops_connect,
	.wake = ops_wake,
	.close = ops_close,
	.fault = ops_fault,
	.log = ops_log,
	.model_write = ops_model_write,
	.state = ops_state,
	.discovered = ops_discovered,
	.route = ops_route,
};

/* Read, feed the node, write: one link's turn.  Returns false when it went. */
static bool link_serve(struct lnetk_dp *dp, struct klink *k)
{
	struct sock *sk = k->ks.sock->sk;
	int rounds, rc = 0;

	if (k->connecting) {
		if (sk->sk_err || sk->sk_state == TCP_CLOSE) {
			link_drop(dp, k, sk->sk_err ? -sk->sk_err : -ECONNREFUSED);
			return false;
		}
		if (sk->sk_state != TCP_ESTABLISHED)
			return true;
		k->connecting = false;
	}
	for (rounds = 0; rounds < READS_PER_RUN; rounds++) {
		struct kvec kv = {.iov_base = dp->rx, .iov_len = RX_BUF};
		struct msghdr msg = {.msg_flags = MSG_DONTWAIT};

		rc = kernel_recvmsg(k->ks.sock, &msg, &kv, 1, RX_BUF, MSG_DONTWAIT);
		if (rc == -EAGAIN) {
			rc = 0;
			break;
		}
		if (rc <= 0) {
			rc = rc ?: -ECONNRESET;
			break;
		}
		rc = lne_node_input(&dp->node, &k->l, dp->rx, rc);
		if (rc < 0)
			break;
	}
	if (rounds == READS_PER_RUN)
		WRITE_ONCE(k->ks.kick, READ_ONCE(k->ks.kick) | 1); /* more later: others first */
	while (!rc && k->l.conn.txq) {
		struct lne_iov iov[16];
		struct kvec kv[16];
		struct msghdr msg = {.msg_flags = MSG_DONTWAIT | MSG_NOSIGNAL};
		size_t total = 0;
		int i, n = lne_conn_tx_iov(&k->l.conn, iov, 16);

		for (i = 0; i < n; i++) {
			kv[i].iov_base = (void *)iov[i].base;
			kv[i].iov_len = iov[i].len;
			total += iov[i].len;
		}
		rc = kernel_sendmsg(k->ks.sock, &msg, kv, n, total);
		if (rc == -EAGAIN) {
			rc = 0;
			break; /* write_space kicks us again */
		}
		if (rc <= 0) {
			rc = rc ?: -EPIPE;
			break;
		}
		lne_node_sent(&dp->node, &k->l, rc);
		rc = 0;
	}
	if (rc) {
		link_drop(dp, k, rc);
		return false;
	}
	return true;
}

/* --- listeners ----------------------------------------------------------------------- */

static void accept_all(struct lnetk_dp *dp, struct klisten *ls)
{
	for (;;) {
		struct socket *ns;
		struct klink *k;

		if (kernel_accept(ls->ks.sock, &ns, O_NONBLOCK))
			return;
		k = (struct klink *)ops_link_new(dp);
		if (!k) {
			sock_release(ns);
			return;
		}
		k->ks.sock = ns;
		tcp_sock_set_nodelay(ns->sk);
		lne_node_accepted(&dp->node, &k->l);
		ks_install(&k->ks, false);
		WRITE_ONCE(k->ks.kick, 1);
	}
}

static void listen_on(struct lnetk_dp *dp, const struct lne_nid *nid)
{
	struct sockaddr_storage ss;
	int len = lne_nid_sockaddr(nid, &ss, lnet_port);
	struct klisten *ls;
	int rc;

	list_for_each_entry(ls, &dp->listeners, item)
		if (ls->addr.alen == nid->alen && !memcmp(ls->addr.addr, nid->addr, nid->alen)) {
			ls->seen = true;
			return;
		}
	ls = kzalloc(sizeof(*ls), GFP_KERNEL);
	if (!ls)
		return;
	ls->dp = dp;
	ls->addr = *nid;
	ls->seen = true;
	rc = sock_create_kern(dp->net, ss.ss_family, SOCK_STREAM, IPPROTO_TCP, &ls->ks.sock);
	if (!rc) {
		sock_set_reuseaddr(ls->ks.sock->sk);
		if (ss.ss_family == AF_INET6)
			ip6_sock_set_v6only(ls->ks.sock->sk); /* the IPv4 NIs listen on their own */
		rc = kernel_bind(ls->ks.sock, (struct sockaddr *)&ss, len);
	}
	if (!rc)
		rc = kernel_listen(ls->ks.sock, 128);
	if (rc) {
		char a[LNE_NID_STR_MAX];

		lne_nid_format(nid, a, sizeof(a));
		pr_warn("lnetk: cannot listen on %s's address, port %u: %d\n", a, lnet_port, rc);
		if (ls->ks.sock)
			sock_release(ls->ks.sock);
		kfree(ls);
		return;
	}
	ks_install(&ls->ks, true);
	list_add(&ls->item, &dp->listeners);
}

static void listeners_sync(struct lnetk_dp *dp)
{
	struct klisten *ls, *tmp;
	struct lne_ni *ni;

	list_for_each_entry(ls, &dp->listeners, item)
		ls->seen = false;
	lne_list_for_each_entry(ni, &dp->ln->inst->nis, all_link)
		if (ni->nid.lnd == LNE_LND_TCP)
			listen_on(dp, &ni->nid);
	list_for_each_entry_safe(ls, tmp, &dp->listeners, item) {
		if (ls->seen)
			continue;
		ks_release(&ls->ks);
		list_del(&ls->item);
		kfree(ls);
	}
}

/* --- link events (netdev.c) ---------------------------------------------------------- */

struct link_ev {
	struct list_head item;
	char ifname[IFNAMSIZ];
	bool up;
};

void lnetk_dp_link_event(struct lnetk_net *ln, const char *ifname, bool up)
{
	struct lnetk_dp *dp = dp_of(ln);
	struct link_ev *ev;

	if (!dp || READ_ONCE(dp->stopping))
		return;
	ev = kzalloc(sizeof(*ev), GFP_KERNEL);
	if (!ev)
		return; /* the NI's health falls on its own, from failed sends */
	strscpy(ev->ifname, ifname, sizeof(ev->ifname));
	ev->up = up;
	spin_lock_bh(&dp->ev_lock);
	list_add_tail(&ev->item, &dp->events);
	spin_unlock_bh(&dp->ev_lock);
	queue_work(dp->wq, &dp->run);
}

static void link_events_free(struct lnetk_dp *dp)
{
	struct link_ev *ev, *tmp;

	list_for_each_entry_safe(ev, tmp, &dp->events, item)
		kfree(ev);
	INIT_LIST_HEAD(&dp->events);
}

/* Every link event queued, in order, to the NIs on that interface (node entered). */
static void link_events(struct lnetk_dp *dp)
{
	struct link_ev *ev, *tmp;
	struct lne_ni *ni;
	LIST_HEAD(todo);

	spin_lock_bh(&dp->ev_lock);
	list_splice_init(&dp->events, &todo);
	spin_unlock_bh(&dp->ev_lock);
	list_for_each_entry_safe(ev, tmp, &todo, item) {
		lne_list_for_each_entry(ni, &dp->ln->inst->nis, all_link)
			if (!strcmp(ni->ifname, ev->ifname))
				lne_node_ni_link(&dp->node, &ni->nid, ev->up, NULL);
		list_del(&ev->item);
		kfree(ev);
	}
}

/* --- the work ------------------------------------------------------------------------ */

static void arm_tick(struct lnetk_dp *dp)
{
	u64 next = lne_node_next_deadline(&dp->node), now = now_ms();

	if (next == ~0ull || dp->stopping)
		return;
	mod_delayed_work(dp->wq, &dp->tick, next > now ? msecs_to_jiffies(next - now) + 1 : 0);
}

/* Enter the node: @lock, then the instance for reading (instance.h's order). */
static void node_enter(struct lnetk_dp *dp)
{
	mutex_lock(&dp->lock);
	down_read(&dp->ln->sel);
	lne_node_set_inst(&dp->node, dp->ln->inst);
	dp->node.now_ms = now_ms();
	dp->node.rtr_check_s = READ_ONCE(alive_router_check_interval);
	dp->node.rtr_timeout_s = READ_ONCE(router_ping_timeout) ?: 1;
}

static void node_leave(struct lnetk_dp *dp)
{
	arm_tick(dp);
	up_read(&dp->ln->sel);
	mutex_unlock(&dp->lock);
}

struct lne_node *lnetk_dp_enter(struct lnetk_net *ln)
{
	node_enter(ln->dp);
	if (!ln->dp->stopping)
		return &ln->dp->node;
	node_leave(ln->dp);
	return NULL;
}

void lnetk_dp_leave(struct lnetk_net *ln)
{
	node_leave(ln->dp);
}

static void dp_run(struct work_struct *w)
{
	struct lnetk_dp *dp = container_of(w, struct lnetk_dp, run);
	struct klisten *ls;
	struct klink *k, *tmp;

	node_enter(dp);
	if (dp->stopping)
		goto out;
	if (dp->need_sync) {
		dp->need_sync = false;
		listeners_sync(dp);
		lne_node_nis_check(&dp->node); /* an NI came or went: push to the peers */
	}
	link_events(dp);
	list_for_each_entry(ls, &dp->listeners, item)
		if (ks_take_kick(&ls->ks))
			accept_all(dp, ls);
	list_for_each_entry_safe(k, tmp, &dp->links, item)
		if (k->ks.sock && ks_take_kick(&k->ks))
			link_serve(dp, k);
	/* anyone still marked goes round again */
	list_for_each_entry(k, &dp->links, item)
		if (READ_ONCE(k->ks.kick) & 1) {
			queue_work(dp->wq, &dp->run);
			break;
		}
out:
	node_leave(dp);
}

static void dp_tick(struct work_struct *w)
{
	struct lnetk_dp *dp = container_of(to_delayed_work(w), struct lnetk_dp, tick);

	node_enter(dp);
	if (!dp->stopping)
		lne_node_tick(&dp->node, dp->node.now_ms);
	node_leave(dp);
}

void lnetk_dp_changed(struct lnetk_net *ln)
{
	struct lnetk_dp *dp = dp_of(ln);

	if (!dp)
		return;
	WRITE_ONCE(dp->need_sync, true);
	queue_work(dp->wq, &dp->run);
}

int lnetk_dp_start(struct net *net, struct lnetk_net *ln)
{
	struct lnetk_dp *dp = kzalloc(sizeof(*dp), GFP_KERNEL);

	if (!dp)
		return -ENOMEM;
	dp->rx = kmalloc(RX_BUF, GFP_KERNEL);
	dp->wq = alloc_ordered_workqueue("lnetk-dp", WQ_MEM_RECLAIM);
	if (!dp->rx || !dp->wq) {
		kfree(dp->rx);
		if (dp->wq)
			destroy_workqueue(dp->wq);
		kfree(dp);
		return -ENOMEM;
	}
	dp->net = net;
	dp->ln = ln;
	mutex_init(&dp->lock);
	INIT_LIST_HEAD(&dp->links);
	INIT_LIST_HEAD(&dp->listeners);
	spin_lock_init(&dp->ev_lock);
	INIT_LIST_HEAD(&dp->events);
	INIT_WORK(&dp->run, dp_run);
	INIT_DELAYED_WORK(&dp->tick, dp_tick);
	lne_node_init(&dp->node, ln->inst, &kops, dp, ktime_get_real_ns());
	ln->dp = dp;
	return 0;
}

void lnetk_dp_stop(struct lnetk_net *ln)
{
	struct lnetk_dp *dp = dp_of(ln);
	struct klisten *ls, *ltmp;
	struct klink *k, *tmp;
	struct lnetk_nrs *own;

	if (!dp)
		return;
	mutex_lock(&dp->lock);
	dp->stopping = true;
	mutex_unlock(&dp->lock);
	/* no callback queues anything once the sockets are released below */
	cancel_delayed_work_sync(&dp->tick);
	flush_workqueue(dp->wq);
	mutex_lock(&dp->lock);
	down_read(&ln->sel);
	lne_node_set_inst(&dp->node, ln->inst);
	own = lnetk_api_test_detach(&dp->node);
	lne_node_fini(&dp->node); /* closes the links it knows */
	list_for_each_entry_safe(k, tmp, &dp->links, item)
		link_free(k);
	list_for_each_entry_safe(ls, ltmp, &dp->listeners, item) {
		ks_release(&ls->ks);
		list_del(&ls->item);
		kfree(ls);
	}
	up_read(&ln->sel);
	mutex_unlock(&dp->lock);
	link_events_free(dp);
	lnetk_nrs_close(own); /* before the namespace's policies are freed */
	destroy_workqueue(dp->wq);
	kfree(dp->rx);
	ln->dp = NULL;
	kfree(dp);
}

/* --- counters, for the genl command -------------------------------------------------- */

static int put_item(void *arg, const char *name, u64 v)
{
	struct sk_buff *skb = arg;
	struct nlattr *it = nla_nest_start(skb, LNETK_CNT_A_ITEM);

	if (!it || nla_put_string(skb, LNETK_CNT_A_NAME, name) ||
	    nla_put_u64_64bit(skb, LNETK_CNT_A_VALUE, v, LNETK_CNT_A_PAD))
		return -EMSGSIZE;
	nla_nest_end(skb, it);
	return 0;
}

static int put_entry(struct sk_buff *skb, const struct lne_stat *st, const struct lne_node *n)
{
	struct nlattr *e = nla_nest_start(skb, LNETK_CNT_A_ENTRY);
	int rc = e ? 0 : -EMSGSIZE;

	if (!rc && st) {
		struct lne_nid nid;
		char text[LNE_NID_STR_MAX];

		lne_node_nid(n, st->nid, &nid);
		lne_nid_format(&nid, text, sizeof(text));
		rc = nla_put_string(skb, LNETK_CNT_A_NID, text)
			     ?: nla_put_u8(skb, LNETK_CNT_A_LOCAL, st->local);
	}
	if (!rc)
		rc = lne_counts_each(st ? &st->c : &n->st.c, put_item, skb);
	if (!rc && !st)
		rc = lne_node_stats_each(n, put_item, skb);
	if (rc) {
		if (e)
			nla_nest_cancel(skb, e);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, e);
	return 0;
}

int lnetk_dp_counters(struct lnetk_net *ln, struct sk_buff *skb)
{
	struct lnetk_dp *dp = dp_of(ln);
	struct nlattr *all;
	bool truncated = false;
	u32 b;

	if (!dp)
		return -ENODEV;
	all = nla_nest_start(skb, LNETK_A_COUNTERS);
	if (!all)
		return -EMSGSIZE;
	mutex_lock(&dp->lock);
	if (put_entry(skb, NULL, &dp->node)) {
		mutex_unlock(&dp->lock);
		nla_nest_cancel(skb, all);
		return -EMSGSIZE;
	}
	for (b = 0; !truncated && b < LNE_STAT_HASH; b++) {
		const struct lne_stat *st;

		/* room kept for the flag that says some were left out */
		for (st = dp->node.stats[b]; !truncated && st; st = st->hnext)
			truncated = skb_tailroom(skb) < 64 || put_entry(skb, st, &dp->node);
	}
	mutex_unlock(&dp->lock);
	if (truncated && nla_put_flag(skb, LNETK_CNT_A_TRUNCATED)) {
		nla_nest_cancel(skb, all);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, all);
	return 0;
}

/* --- ping, for the genl command ------------------------------------------------------ */

struct ping_wait {
	struct completion done;
	struct lnetk_ping_result *out;
	bool abandoned, finished; /* under dp->lock */
	struct lne_node *node;	  /* discovery: whose peer */
	struct lne_nid nid;
};

static void on_ping(struct lne_msg *m, int status)
{
	struct ping_wait *w = m->arg;

	if (w->abandoned) {
		kfree(w->out);
		kfree(w);
		return;
	}
	w->out->status = status;
	if (!status && lnw_ping_unpack_all(m->reply, m->reply_len, &w->out->p, w->out->e,
					   LNW_PING_NIS_MAX, &w->out->n))
		w->out->status = -EPROTO;
	w->finished = true;
	complete(&w->done);
}

/* The peer that has w->nid, as a ping info: Multi-Rail or not, its NIDs, the primary first. */
static void peer_result(struct ping_wait *w)
{
	const struct lne_peer_ni *pni = lne_peer_ni_find(w->node->ln, &w->nid);
	const struct lne_peer_net *pnet;
	const struct lne_peer *peer;
	struct lnetk_ping_result *r = w->out;

	if (!pni) {
		r->status = -ENOENT;
		return;
	}
	peer = lne_peer_of(pni);
	r->p.features = peer->mr ? LNW_PING_FEAT_MULTI_RAIL : 0;
	r->p.pid = LNW_PID_LUSTRE;
	r->e[0].nid = peer->primary;
	r->e[0].status = LNW_NI_STATUS_UP;
	r->n = 1;
	lne_list_for_each_entry(pnet, &peer->pnets, link)
		lne_list_for_each_entry(pni, &pnet->pnis, pnet_link)
			if (r->n < LNW_PING_NIS_MAX && !lne_nid_equal(&pni->nid, &peer->primary)) {
				r->e[r->n].nid = pni->nid;
				r->e[r->n++].status = LNW_NI_STATUS_UP;
			}
}

static void on_discovered(void *arg, int status)
{
	struct ping_wait *w = arg;

	if (w->abandoned) {
		kfree(w->out);
		kfree(w);
		return;
	}
	w->out->status = status;
	if (!status)
		peer_result(w);
	w->finished = true;
	complete(&w->done);
}

int lnetk_dp_ping(struct lnetk_net *ln, const struct lne_nid *dst, const struct lne_nid *src,
		  u32 timeout_ms, u8 discover, struct lnetk_ping_result *out, struct lne_err *err)
{
	struct lnetk_dp *dp = dp_of(ln);
	struct ping_wait *w;
	long left;
	int rc;

	if (!dp)
		return -ENODEV;
	w = kzalloc(sizeof(*w), GFP_KERNEL);
	if (!w)
		return -ENOMEM;
	w->out = kzalloc(sizeof(*w->out), GFP_KERNEL);
	if (!w->out) {
		kfree(w);
		return -ENOMEM;
	}
	init_completion(&w->done);
	w->node = &dp->node;
	w->nid = *dst;
	node_enter(dp);
	rc = dp->stopping ? -ESHUTDOWN
	     : discover	  ? lne_node_discover(&dp->node, dst, discover == 2, on_discovered, w, err)
			  : lne_node_ping(&dp->node, dst, src, timeout_ms, on_ping, w, err);
	node_leave(dp);
	if (rc) {
		kfree(w->out);
		kfree(w);
		return rc;
	}
	/* the node's own deadline ends it; a second more only guards against a lost wakeup */
	left = wait_for_completion_killable_timeout(&w->done, msecs_to_jiffies(timeout_ms + 1000));
	mutex_lock(&dp->lock);
	if (!w->finished) {
		w->abandoned = true; /* on_ping frees it */
		mutex_unlock(&dp->lock);
		return left < 0 ? -EINTR : -ETIMEDOUT;
	}
	mutex_unlock(&dp->lock);
	memcpy(out, w->out, sizeof(*out));
	kfree(w->out);
	kfree(w);
	return 0;
}

/* --- counters reset, test service, traffic generator, for the genl commands ---------- */

void lnetk_dp_counters_reset(struct lnetk_net *ln)
{
	struct lnetk_dp *dp = dp_of(ln);

	if (!dp)
		return;
	mutex_lock(&dp->lock);
	lne_node_stats_reset(&dp->node);
	mutex_unlock(&dp->lock);
}

struct test_wait {
	struct lne_test t;
	struct completion done;
	bool abandoned; /* under dp->lock: the caller left; the last message frees this */
};

static void on_test_done(struct lne_test *t)
{
	struct test_wait *w = container_of(t, struct test_wait, t);

	if (w->abandoned)
		kfree(w);
	else
		complete(&w->done);
}

int lnetk_dp_selftest(struct lnetk_net *ln, struct lne_test *t, u32 interval_ms, u64 *elapsed_ns)
{
	struct lnetk_dp *dp = dp_of(ln);
	unsigned long step = interval_ms ? msecs_to_jiffies(interval_ms) : MAX_SCHEDULE_TIMEOUT;
	struct test_wait *w;
	long left;
	ktime_t t0;

	if (!dp)
		return -ENODEV;
	w = kzalloc(sizeof(*w), GFP_KERNEL);
	if (!w)
		return -ENOMEM;
	w->t = *t;
	if (!interval_ms)
		w->t.trace = NULL;
	w->t.done = on_test_done;
	init_completion(&w->done);
	t0 = ktime_get();
	node_enter(dp);
	if (dp->stopping) {
		node_leave(dp);
		kfree(w);
		return -ESHUTDOWN;
	}
	lne_test_start(&w->t, &dp->node);
	node_leave(dp);
	/*
	 * Each message has its own deadline, so this ends; a signal ends the
	 * wait sooner.  With a trace, a row each @interval_ms on the way.
	 */
	while (!(left = wait_for_completion_killable_timeout(&w->done, step))) {
		mutex_lock(&dp->lock);
		if (!w->t.over)
			lne_test_sample(&w->t, ktime_to_ns(ktime_sub(ktime_get(), t0)));
		mutex_unlock(&dp->lock);
	}
	mutex_lock(&dp->lock);
	if (left < 0 && !w->t.over) {
		w->t.count = w->t.started; /* start no more; those in flight end on their own */
		w->t.trace = NULL;	   /* the caller's, and it goes */
		w->abandoned = true;
		mutex_unlock(&dp->lock);
		return -EINTR;
	}
	*elapsed_ns = ktime_to_ns(ktime_sub(ktime_get(), t0));
	lne_test_sample(&w->t, *elapsed_ns); /* the last row: where it ended */
	mutex_unlock(&dp->lock);
	*t = w->t;
	kfree(w);
	return 0;
}
