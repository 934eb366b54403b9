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
#include "dp-int.h"

static ushort lnet_port = LNW_PORT_DEFAULT;

/* A ushort, but not 0: a listener there gets a port of the kernel's choosing, nobody's LNet port. */
static int lnet_port_set(const char *val, const struct kernel_param *kp)
{
	u16 port;
	int rc = kstrtou16(val, 0, &port);

	if (rc)
		return rc;
	if (!port)
		return -ERANGE;
	*(ushort *)kp->arg = port;
	return 0;
}

static const struct kernel_param_ops lnet_port_ops = {
	.set = lnet_port_set,
	.get = param_get_ushort,
};
module_param_cb(lnet_port, &lnet_port_ops, &lnet_port, 0444);
MODULE_PARM_DESC(lnet_port, "the TCP port LNet listens on and connects to (1-65535, 988)");

/* Upstream's names and defaults; read at every tick, so a change takes at the next one. */
static uint alive_router_check_interval = LNE_RTR_CHECK_S;
module_param(alive_router_check_interval, uint, 0644);
MODULE_PARM_DESC(alive_router_check_interval,
		 "seconds between the router checker's pings of each gateway (0: no checks)");
static uint router_ping_timeout = LNE_RTR_TIMEOUT_S;
module_param(router_ping_timeout, uint, 0644);
MODULE_PARM_DESC(router_ping_timeout, "seconds a gateway has to answer a check (at least 1)");
static bool avoid_asym_router_failure = true;
module_param(avoid_asym_router_failure, bool, 0644);
MODULE_PARM_DESC(avoid_asym_router_failure,
		 "a route is down while its gateway says its NIs on the route's net are down");

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
		dp_kick(dp);
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

/* The interface @sk's packets leave by, as its route says (0: none known). */
static int sk_out_ifindex(struct sock *sk)
{
	struct dst_entry *dst = sk_dst_get(sk);
	int ifindex = dst && dst->dev ? dst->dev->ifindex : 0;

	dst_release(dst);
	return ifindex;
}

static bool ops_connect(void *ctx, struct lne_link *l)
{
	struct lnetk_dp *dp = ctx;
	struct klink *k = (struct klink *)l;
	struct sockaddr_storage ss;
	const struct cred *caller;
	int port, rc = -EADDRINUSE, len;

	len = key_sockaddr(dp, l->peer, &ss, lnet_port);
	for (port = LNW_RESERVED_PORT_MAX; port >= LNW_RESERVED_PORT_MIN; port--) {
		struct sockaddr_storage from;
		int flen = key_sockaddr(dp, l->local, &from, (u16)port);

		if (!k->ks.sock) {
			rc = sock_create_kern(dp->net, ss.ss_family, SOCK_STREAM, IPPROTO_TCP,
					      &k->ks.sock);
			if (rc)
				return false;
			tcp_sock_set_nodelay(k->ks.sock->sk);
			sock_set_reuseaddr(k->ks.sock->sk);
		}
		/*
		 * From the NI's address and a reserved port, as upstream's
		 * acceptor wants.  The bind of a reserved port checks the
		 * caller's CAP_NET_BIND_SERVICE, and the node may connect from
		 * lnetd's netlink command, which need not have it
		 * (lnetd.service does not give it): the module binds as
		 * itself, with the kernel's credentials.
		 */
		caller = override_creds(dp->kcred);
		rc = kernel_bind(k->ks.sock, (struct sockaddr *)&from, flen);
		revert_creds(caller);
		if (rc == -EADDRINUSE)
			continue;
		if (rc)
			return false;
		ks_install(&k->ks, false);
		k->connecting = true;
		rc = kernel_connect(k->ks.sock, (struct sockaddr *)&ss, len, O_NONBLOCK);
		if (!rc || rc == -EINPROGRESS) {
			k->ifindex = sk_out_ifindex(k->ks.sock->sk);
			return true;
		}
		if (rc != -EADDRNOTAVAIL)
			return false;
		/*
		 * The same address pair is still held by a connection this node
		 * closed while its link was down (its last packets still due):
		 * the next port, on a socket of its own.
		 */
		ks_release(&k->ks);
		k->connecting = false;
	}
	return false;
}

static void ops_wake(void *ctx, struct lne_link *l)
{
	struct lnetk_dp *dp = ctx;
	struct klink *k = (struct klink *)l;

	WRITE_ONCE(k->ks.kick, READ_ONCE(k->ks.kick) | 1);
	dp_kick(dp);
}

static void ops_close(void *ctx, struct lne_link *l)
{
	(void)ctx;
	link_free((struct klink *)l);
}

/*
 * Whether @l leaves by @ni's interface: a connection from one NI to a peer
 * NI that only another NI's subnet reaches goes out by that NI's interface
 * (the kernel routes by destination), and dies with its link.
 */
static bool ops_through(void *ctx, const struct lne_link *l, const struct lne_ni *ni)
{
	struct lnetk_dp *dp = ctx;
	const struct klink *k = (const struct klink *)l;
	struct net_device *dev;
	bool on;

	if (!k->ifindex || !ni->ifname[0])
		return false;
	rcu_read_lock();
	dev = dev_get_by_name_rcu(dp->net, ni->ifname);
	on = dev && dev->ifindex == k->ifindex;
	rcu_read_unlock();
	return on;
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

/* A CPT is a NUMA node (main.c): the one the data path's work runs on. */
static s32 ops_cpt(void *ctx)
{
	(void)ctx;
	return numa_node_id();
}

static const struct lne_node_ops kops = {
	.cpt = ops_cpt,
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
	.through = ops_through,
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
		/* a payload's bytes straight into its buffer: the node takes them there */
		u8 *at = dp->rx;
		size_t room = lne_conn_rx_room(&k->l.conn, &at);
		struct kvec kv = {.iov_base = at, .iov_len = room ? room : RX_BUF};
		struct msghdr msg = {.msg_flags = MSG_DONTWAIT};

		rc = kernel_recvmsg(k->ks.sock, &msg, &kv, 1, kv.iov_len, MSG_DONTWAIT);
		if (rc == -EAGAIN) {
			rc = 0;
			break;
		}
		if (rc <= 0) {
			rc = rc ?: -ECONNRESET;
			break;
		}
		rc = lne_node_input(&dp->node, &k->l, at, rc);
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
		k->ifindex = sk_out_ifindex(ns->sk);
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

/* --- the work ------------------------------------------------------------------------ */

static void arm_tick(struct lnetk_dp *dp)
{
	u64 next = lne_node_next_deadline(&dp->node), now = now_ms();

	if (next == ~0ull || dp->stopping || !dp->wq)
		return; /* the first NI's start arms it */
	mod_delayed_work(dp->wq, &dp->tick, next > now ? msecs_to_jiffies(next - now) + 1 : 0);
}

/* Enter the node: @lock, then the instance for reading (instance.h's order). */
void node_enter(struct lnetk_dp *dp)
{
	mutex_lock(&dp->lock);
	down_read(&dp->ln->sel);
	lne_node_set_inst(&dp->node, dp->ln->inst);
	dp->node.now_ms = now_ms();
	dp->node.rtr_check_s = READ_ONCE(alive_router_check_interval);
	dp->node.rtr_timeout_s = READ_ONCE(router_ping_timeout) ?: 1;
	dp->node.avoid_asym = READ_ONCE(avoid_asym_router_failure);
}

void node_leave(struct lnetk_dp *dp)
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
		/* a health set below 1000 (NI_SET, PNI_SET) waits in recovery, which takes it back */
		lne_node_health_rescan(&dp->node);
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

void dp_kick(struct lnetk_dp *dp)
{
	struct workqueue_struct *wq = smp_load_acquire(&dp->wq);

	if (wq && !READ_ONCE(dp->stopping))
		queue_work(wq, &dp->run);
}

/*
 * The receive buffer and the workqueue (with its rescuer thread) are made
 * when the instance has its first NI, so that a namespace that never has
 * one costs neither; they stay until the namespace goes.  Before, nothing
 * can be sent: the socket callbacks and ops_wake() only mark their socket,
 * served by the first run.
 */
static int dp_start_io(struct lnetk_dp *dp)
{
	struct workqueue_struct *wq;
	bool want;
	int rc = 0;

	if (smp_load_acquire(&dp->wq))
		return 0;
	mutex_lock(&dp->lock);
	down_read(&dp->ln->sel);
	want = !dp->stopping && !dp->wq && !lne_list_empty(&dp->ln->inst->nis);
	up_read(&dp->ln->sel);
	if (want) {
		dp->rx = kmalloc(RX_BUF, GFP_KERNEL);
		wq = alloc_ordered_workqueue("lnetk-dp", WQ_MEM_RECLAIM);
		if (dp->rx && wq) {
			smp_store_release(&dp->wq, wq);
		} else {
			kfree(dp->rx);
			dp->rx = NULL;
			if (wq)
				destroy_workqueue(wq);
			rc = -ENOMEM;
		}
	}
	mutex_unlock(&dp->lock);
	return rc;
}

void lnetk_dp_changed(struct lnetk_net *ln)
{
	struct lnetk_dp *dp = dp_of(ln);

	if (!dp)
		return;
	if (dp_start_io(dp))
		pr_warn_ratelimited(
			"lnetk: no memory to start the data path; the next change tries again\n");
	WRITE_ONCE(dp->need_sync, true);
	dp_kick(dp);
}

int lnetk_dp_start(struct net *net, struct lnetk_net *ln)
{
	struct lnetk_dp *dp = kzalloc(sizeof(*dp), GFP_KERNEL);

	if (!dp)
		return -ENOMEM;
	dp->net = net;
	dp->ln = ln;
	mutex_init(&dp->lock);
	INIT_LIST_HEAD(&dp->links);
	INIT_LIST_HEAD(&dp->listeners);
	spin_lock_init(&dp->ev_lock);
	INIT_LIST_HEAD(&dp->events);
	INIT_WORK(&dp->run, dp_run);
	INIT_DELAYED_WORK(&dp->tick, dp_tick);
	dp->kcred = prepare_kernel_cred(&init_task);
	if (!dp->kcred) {
		kfree(dp);
		return -ENOMEM;
	}
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
	if (dp->wq) /* none if the instance never had an NI */
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
	if (dp->wq)
		destroy_workqueue(dp->wq);
	kfree(dp->rx);
	put_cred(dp->kcred);
	ln->dp = NULL;
	kfree(dp);
}
