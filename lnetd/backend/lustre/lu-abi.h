/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lu-abi.h - lnet.ko's /dev/lnet interface, as this library uses it.
 *
 * Written from facts (../shared/lustre/INTERFACES.md, and the layouts of
 * lnet.ko 2.15.8, 2.16.1 and 2.17.57 measured with their own headers): every
 * size and the offsets that differ from a naive reading are asserted at the
 * end, so a change here that breaks the ABI fails the build.
 *
 * Every request starts with a header {length, version}; the kernel copies
 * `length` bytes in, and the same bytes back out, so a reply is read from
 * the request's own buffer.  Lists that do not fit (peers, a peer's NIDs,
 * a UDSP rule) travel through a second buffer whose address the request
 * carries (the *bulk fields): a u64 here, which is the pointer's layout on
 * the 64-bit kernels lnet.ko runs on.
 *
 * What differs by version (struct lu_ver in lu-int.h picks it):
 *  - the LND tunables union after the common tunables: 32 bytes in 2.15,
 *    148 in 2.16 (kfilnd's 128-byte string), 152 in 2.17.  ADD_LOCAL_NI
 *    ignores all tunables when the request is shorter than the kernel's
 *    union, and GET_LOCAL_NI refuses (-EINVAL) a request shorter than its
 *    config + stats + tunables, and copies as much of its own union as the
 *    request leaves room for (beyond its end when the request is longer);
 *  - socklnd's and o2iblnd's tunables gain lnd_timeout and lnd_tos in 2.16;
 *  - the health counters of GET_LNET_STATS gain two in 2.17 (60 bytes, was 52).
 * NIDs are nid4 (u64: net << 32 | address) everywhere here.
 */
#ifndef LU_ABI_H
#define LU_ABI_H

#include <linux/ioctl.h>

#include "engine/port.h"

#define LU_IOC_VERSION	0x0001000a /* struct lu_ioc_data, checked by the kernel */
#define LU_IOC_VERSION2 0x0001000b /* every other structure */
#define LU_IOC_MAX_LEN	(128 * 1024)

/* The request numbers ('e', NR) this library sends. */
enum lu_ioc_nr {
	LU_IOC_GET_NI = 50,
	LU_IOC_UNCONFIGURE = 56,
	LU_IOC_CONFIGURE = 59,
	LU_IOC_PING_PEER = 62,
	LU_IOC_DISCOVER = 77,
	LU_IOC_ADD_ROUTE = 81,
	LU_IOC_DEL_ROUTE = 82,
	LU_IOC_GET_ROUTE = 83,
	LU_IOC_DEL_NET = 85,
	LU_IOC_CONFIG_RTR = 87,
	LU_IOC_ADD_BUF = 88,
	LU_IOC_GET_BUF = 89,
	LU_IOC_GET_LNET_STATS = 91,
	LU_IOC_ADD_PEER_NI = 92,
	LU_IOC_DEL_PEER_NI = 93,
	LU_IOC_GET_PEER_NI = 94,
	LU_IOC_ADD_LOCAL_NI = 95,
	LU_IOC_DEL_LOCAL_NI = 96,
	LU_IOC_GET_LOCAL_NI = 97,
	LU_IOC_SET_NUMA_RANGE = 98,
	LU_IOC_GET_NUMA_RANGE = 99,
	LU_IOC_GET_PEER_LIST = 100,
	LU_IOC_GET_NI_MSG_STATS = 101,
	LU_IOC_SET_HEALTHV = 102,
	LU_IOC_GET_NI_HSTATS = 103,
	LU_IOC_ADD_UDSP = 105,
	LU_IOC_DEL_UDSP = 106,
	LU_IOC_GET_UDSP_SIZE = 107,
	LU_IOC_GET_UDSP = 108,
	LU_IOC_GET_UDSP_INFO = 109,
	LU_IOC_RESET_STATS = 110,
	LU_IOC_SET_CONNS_PER_PEER = 111,
};

/*
 * The kernel compares the whole command, size bits included: up to 80 the
 * size of a long, from 81 (the DLC set) that of struct lu_ioc_config.
 */
#define LU_IOC_CONFIG_SIZE 184
#define LU_IOC_CMD(nr)                                          \
	((unsigned long)_IOC(_IOC_READ | _IOC_WRITE, 'e', (nr), \
			     (nr) < LU_IOC_ADD_ROUTE ? sizeof(long) : LU_IOC_CONFIG_SIZE))

struct lu_ioc_hdr {
	u32 len;
	u32 version;
};

/* The generic block (LU_IOC_VERSION): configure, GET_NI. */
struct lu_ioc_data {
	struct lu_ioc_hdr hdr;
	u64 nid;
	u64 u64v[1];
	u32 flags; /* CONFIGURE: 1 = do not bring up the module parameters' nets */
	u32 count; /* GET_NI: the index */
	u32 net;
	u32 u32v[7];
	u32 inllen1;
	u64 inlbuf1;
	u32 inllen2;
	u64 inlbuf2;
	u32 plen1;
	u64 pbuf1;
	u32 plen2;
	u64 pbuf2;
};

/* Routes, routing, buffers (LU_IOC_VERSION2). */
struct lu_ioc_config {
	struct lu_ioc_hdr hdr;
	u32 net;
	u32 count; /* GET_ROUTE: the index; GET_BUF: the CPT */
	u64 nid;
	u32 ncpts;
	union {
		struct {
			u32 hop; /* LU_HOPS_UNDEF: not given */
			u32 priority;
			u32 flags; /* LU_RT_* */
			u32 sensitivity;
		} route;
		struct {
			char intf[128];
			s32 peer_timeout, peer_tx_credits, peer_rtr_credits, max_tx_credits;
			u32 cksum_algo, interface_count;
		} net;
		struct {
			u32 enable;
			s32 tiny, small, large; /* -1: unchanged */
		} buffers;
	} u;
	/* GET_BUF's struct lu_ioc_pool follows at LU_IOC_CONFIG_BULK */
};
#define LU_IOC_CONFIG_BULK 180
#define LU_HOPS_UNDEF	   0xffffffffu
#define LU_RT_ALIVE	   0x1u
#define LU_RT_MULTI_HOP	   0x2u

struct lu_ioc_pool {
	struct {
		u32 npages, nbuffers, credits, mincredits;
	} pool[3]; /* tiny, small, large */
	u32 routing;
};

/* The tunables an NI is added with and listed with. */
struct lu_ioc_tun_cmn {
	u32 version;
	s32 peer_timeout;
	s32 peer_tx_credits;
	s32 peer_rtr_credits;
	s32 max_tx_credits;
};

struct lu_ioc_tun_sock {
	u32 version;
	u16 conns_per_peer;
	u16 pad;
	u32 timeout; /* 2.16+ (read only: the LND's own) */
	s16 tos;     /* 2.16+: -1 the system's */
	u16 pad2;
};

struct lu_ioc_tun_o2ib {
	u32 version;
	u32 peercredits_hiw, map_on_demand, concurrent_sends;
	u32 fmr_pool_size, fmr_flush_trigger, fmr_cache;
	u16 conns_per_peer;
	u16 ntx;
	u32 timeout; /* 2.16+ */
	s16 tos;     /* 2.16+ */
	u16 pad;
};

#define LU_TUN_LND_2_15 32
#define LU_TUN_LND_2_16 148
#define LU_TUN_LND_2_17 152
#define LU_TUN_LND_MAX	LU_TUN_LND_2_17

struct lu_ioc_tun {
	struct lu_ioc_tun_cmn cmn;
	union {
		struct lu_ioc_tun_sock sock;
		struct lu_ioc_tun_o2ib o2ib;
		u8 raw[LU_TUN_LND_MAX];
	} lnd;
};

/* ADD/DEL/GET_LOCAL_NI; the bulk (tunables; stats then tunables for GET) at LU_IOC_NI_BULK. */
struct lu_ioc_ni {
	struct lu_ioc_hdr hdr;
	u64 nid;
	char intf[128];
	char ip2nets[128];
	u32 cpts[128];
	u32 ncpts;
	u32 status; /* LU_NI_STATUS_* */
	u32 idx;    /* GET: the index */
	s32 dev_cpt;
	char pad[4];
};
#define LU_IOC_NI_BULK	804
#define LU_NI_STATUS_UP 0x15aac0deu
#define LU_NI_MAX_CPTS	128

struct lu_ioc_elem_stats {
	u32 send, recv, drop;
};

/* ADD/DEL/GET_PEER_NI, GET_PEER_LIST. */
struct lu_ioc_peer {
	struct lu_ioc_hdr hdr;
	u64 prim_nid;
	u64 cfg_nid;
	u32 count; /* ADD: 1 = lock the primary NID; DEL: 1 = force; GET: NIDs */
	u32 mr;
	u32 state; /* GET_PEER_NI: the peer's state bits, LU_PEER_* */
	u32 size;  /* the bulk's size; the size needed after -E2BIG */
	u64 bulk;
};
#define LU_PEER_MULTI_RAIL   (1u << 0)
#define LU_PEER_CONFIGURED   (1u << 3)
#define LU_PEER_DISCOVERED   (1u << 4)
#define LU_PEER_LOCK_PRIMARY (1u << 20)

/* GET_PEER_LIST's entries. */
struct lu_ioc_id {
	u64 nid;
	u32 pid;
	u32 pad;
};

/*
 * GET_PEER_NI's bulk: per NID, back to back, the NID (8), its credits
 * (160), its stats (12), its message stats (72) and health (32).
 */
#define LU_PNI_NID	      0
#define LU_PNI_CREDITS	      8
#define LU_PNI_CR_ALIVENESS   0	  /* char[128] within the credits */
#define LU_PNI_CR_TX_CREDITS  136 /* s32 within the credits */
#define LU_PNI_CR_RTR_CREDITS 148
#define LU_PNI_STATS	      168
#define LU_PNI_HSTATS	      252
#define LU_PNI_HS_HEALTH      16 /* s32 within the health stats */
#define LU_PNI_ENTRY	      284
#define LU_PNI_CR_MIN_RTR     152 /* s32 within the credits */
#define LU_PNI_MSGS	      180 /* struct lu_ioc_msg_stats: hdr and idx blank */

/* Messages by type, as lnet.ko counts them per NI and peer NI. */
struct lu_ioc_msgs {
	u32 get, put, reply, ack, hello;
};

/* GET_NI_MSG_STATS: a local NI's messages by type, by its index (GET_LOCAL_NI's). */
struct lu_ioc_msg_stats {
	struct lu_ioc_hdr hdr;
	u32 idx;
	struct lu_ioc_msgs send, recv, drop;
};

/* GET_NI_HSTATS: a local NI's health and its health counters, by its NID. */
struct lu_ioc_ni_hstats {
	struct lu_ioc_hdr hdr;
	u64 nid;
	u32 interrupt, dropped, aborted, no_route, timeout, error;
	s32 fatal;
	s32 health;
	u32 ping_count;
	u64 next_ping;
};

/* A peer NI's health block in GET_PEER_NI's bulk (at LU_PNI_HSTATS). */
struct lu_ioc_pni_hstats {
	u32 dropped, timeout, error, network_timeout;
	s32 health;
	u32 ping_count;
	u64 next_ping;
};

struct lu_ioc_health {
	struct lu_ioc_hdr hdr;
	u32 type;  /* 0 local NI, 1 peer NI */
	u16 flags; /* bit 0: every NI */
	s16 value;
	u64 nid;
};

struct lu_ioc_cpp {
	struct lu_ioc_hdr hdr;
	u16 flags; /* bit 0: every NI */
	s16 value;
	u32 pad;
	u64 nid;
};

struct lu_ioc_value {
	struct lu_ioc_hdr hdr;
	u32 value;
};

/* GET_LNET_STATS: the counters are packed (u64s at odd offsets). */
struct lu_ioc_stats {
	struct lu_ioc_hdr hdr;
	u32 msgs_alloc, msgs_max, errors, send_count, recv_count, route_count, drop_count;
	u64 send_length, recv_length, route_length, drop_length;
	/* health: 13 counters to 2.16, 15 from 2.17 */
	u32 health[15];
} __attribute__((packed));
#define LU_STATS_LEN_2_15 120

/* UDSP: the rule's header, then its three descriptors (src, dst, rte). */
struct lu_ioc_udsp {
	struct lu_ioc_hdr hdr;
	s32 idx;
	u32 action; /* LU_UDSP_ACT_* */
	u32 bulk_size;
	u32 priority;
	u64 bulk;
};
#define LU_UDSP_ACT_NONE     0
#define LU_UDSP_ACT_PRIORITY 1
#define LU_UDSP_ACT_PREF     2

/*
 * One descriptor: its type ("SRC", "DST", "RTE" as a little-endian u32),
 * how many address expressions follow its net's, the LND (0: absent), and
 * how many ranges the net number has (0: the net number 0).  Then those
 * ranges, then per address expression its count and ranges (4 for IPv4,
 * one per octet; 1 for a numeric address).
 */
struct lu_ioc_udsp_descr {
	u32 type;
	u32 count;
	u32 net_type;
	u32 net_ranges;
};

struct lu_ioc_range {
	u32 lo, hi, stride;
};

struct lu_ioc_udsp_info {
	struct lu_ioc_hdr hdr;
	u32 peer; /* bit 0: a peer NI, else a local NI */
	u32 pad;
	u64 nid;
	u32 nid_priority;
	u32 net_priority;
	u64 pref_nid[128];
	u64 pref_rtr_nid[128];
};

struct lu_ioc_ping {
	struct lu_ioc_hdr hdr;
	u32 param; /* PING: the timeout in ms; DISCOVER: 1 = force */
	u32 count; /* in: room in buf; out: NIDs written */
	u32 flags;
	u32 mr;
	struct lu_ioc_id id;
	u64 buf; /* struct lu_ioc_id[count] */
	u64 src;
};

#define LU_ASSERT_SIZE(t, n) \
	_Static_assert(sizeof(struct t) == (n), #t " is " #n " bytes in lnet.ko")
#define LU_ASSERT_OFF(t, f, n) \
	_Static_assert(offsetof(struct t, f) == (n), #t "." #f " is at " #n " in lnet.ko")
LU_ASSERT_SIZE(lu_ioc_data, 128);
LU_ASSERT_OFF(lu_ioc_data, flags, 24);
LU_ASSERT_OFF(lu_ioc_data, inllen1, 64);
LU_ASSERT_OFF(lu_ioc_data, pbuf1, 104);
LU_ASSERT_SIZE(lu_ioc_config, LU_IOC_CONFIG_SIZE);
LU_ASSERT_OFF(lu_ioc_config, u, 28);
LU_ASSERT_SIZE(lu_ioc_pool, 52);
LU_ASSERT_SIZE(lu_ioc_tun_cmn, 20);
LU_ASSERT_SIZE(lu_ioc_tun_sock, 16);
LU_ASSERT_SIZE(lu_ioc_tun_o2ib, 40);
LU_ASSERT_OFF(lu_ioc_tun_o2ib, conns_per_peer, 28);
LU_ASSERT_OFF(lu_ioc_tun_o2ib, tos, 36);
LU_ASSERT_SIZE(lu_ioc_tun, 20 + LU_TUN_LND_2_17);
LU_ASSERT_SIZE(lu_ioc_ni, 808);
LU_ASSERT_OFF(lu_ioc_ni, ncpts, 784);
LU_ASSERT_OFF(lu_ioc_ni, dev_cpt, 796);
LU_ASSERT_OFF(lu_ioc_ni, pad, LU_IOC_NI_BULK - 4);
LU_ASSERT_SIZE(lu_ioc_elem_stats, 12);
LU_ASSERT_SIZE(lu_ioc_peer, 48);
LU_ASSERT_OFF(lu_ioc_peer, bulk, 40);
LU_ASSERT_SIZE(lu_ioc_id, 16);
LU_ASSERT_SIZE(lu_ioc_msgs, 20);
LU_ASSERT_SIZE(lu_ioc_msg_stats, 72);
LU_ASSERT_SIZE(lu_ioc_ni_hstats, 64);
LU_ASSERT_OFF(lu_ioc_ni_hstats, health, 44);
LU_ASSERT_OFF(lu_ioc_ni_hstats, next_ping, 56);
LU_ASSERT_SIZE(lu_ioc_pni_hstats, 32);
LU_ASSERT_OFF(lu_ioc_pni_hstats, health, LU_PNI_HS_HEALTH);
_Static_assert(LU_PNI_MSGS + sizeof(struct lu_ioc_msg_stats) == LU_PNI_HSTATS, "msg stats");
LU_ASSERT_SIZE(lu_ioc_health, 24);
LU_ASSERT_OFF(lu_ioc_health, value, 14);
LU_ASSERT_SIZE(lu_ioc_cpp, 24);
LU_ASSERT_OFF(lu_ioc_cpp, value, 10);
LU_ASSERT_OFF(lu_ioc_cpp, nid, 16);
LU_ASSERT_SIZE(lu_ioc_value, 12);
LU_ASSERT_SIZE(lu_ioc_stats, 128);
LU_ASSERT_OFF(lu_ioc_stats, send_length, 36);
LU_ASSERT_OFF(lu_ioc_stats, health, 68);
LU_ASSERT_SIZE(lu_ioc_udsp, 32);
LU_ASSERT_OFF(lu_ioc_udsp, bulk, 24);
LU_ASSERT_SIZE(lu_ioc_udsp_descr, 16);
LU_ASSERT_SIZE(lu_ioc_range, 12);
LU_ASSERT_SIZE(lu_ioc_udsp_info, 2080);
LU_ASSERT_OFF(lu_ioc_udsp_info, nid, 16);
LU_ASSERT_OFF(lu_ioc_udsp_info, pref_rtr_nid, 1056);
LU_ASSERT_SIZE(lu_ioc_ping, 56);
LU_ASSERT_OFF(lu_ioc_ping, id, 24);
LU_ASSERT_OFF(lu_ioc_ping, src, 48);
_Static_assert(LU_PNI_ENTRY == 8 + 160 + 12 + 72 + 32, "a peer NI in GET_PEER_NI's bulk");
_Static_assert(LU_IOC_CMD(LU_IOC_ADD_ROUTE) == 0xc0b86551ul, "ADD_ROUTE's command");
_Static_assert(LU_IOC_CMD(LU_IOC_CONFIGURE) == 0xc008653bul, "CONFIGURE's command");

#endif /* LU_ABI_H */
