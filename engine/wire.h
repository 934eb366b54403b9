/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wire.h - LNet's bytes on a TCP rail, as upstream Lustre's socket LND
 * (socklnd) puts them, so that an lnetd or lnetk node joins a Lustre fabric.
 *
 * A connection opens with the acceptor's request (magic, version, the NID
 * the caller wants), sent by the side that connects, and a socklnd hello
 * each way (magic, protocol version, both NIDs, pids, incarnations and the
 * connection type).  Then each message is a socklnd header (type, checksum,
 * two zero-copy cookies), for LNet messages followed by the 72-byte LNet
 * header and the payload it announces.  A ping is a GET on the reserved
 * portal with the ping match bits; its REPLY carries the ping info: magic,
 * feature bits, pid, and one (NID, status) pair per NI, 0@lo first with
 * the sequence number in its status.
 *
 * This is protocol version 3 (8-byte NIDs: IPv4 and numeric addresses),
 * what upstream speaks over IPv4.  Numbers are little-endian, as x86 hosts
 * send them; a peer whose magic arrives byte-swapped is read swapped.
 *
 * Large NIDs (IPv6) take the newer forms, each carrying a NID as upstream's
 * struct lnet_nid: 20 bytes of size, LND type, net number and address,
 * which never need swapping.  They are the acceptor's request version 2,
 * the socklnd hello version 4 and, on a version 4 connection, the "nid16"
 * LNet header (the same fields as version 3's, with 20-byte NIDs); ping
 * info lists large NIDs after the 8-byte ones (LNW_PING_FEAT_LARGE_ADDR).
 *
 * Decoders check every length and field against the bounds below before
 * anything else reads them, and say what was wrong with one of enum
 * lnw_fault, so that bytes from a hostile peer are counted and refused.
 */
#ifndef LNE_WIRE_H
#define LNE_WIRE_H

#include "nid.h"
#include "port.h"

#define LNW_PORT_DEFAULT      988
#define LNW_RESERVED_PORT_MIN 512 /* a connection from above 1023 is a user process */
#define LNW_RESERVED_PORT_MAX 1023
#define LNW_PID_LUSTRE	      12345u
#define LNW_PID_USERFLAG      0x80000000u

#define LNW_MAGIC_ACCEPTOR	0xacce7100u
#define LNW_ACCEPTOR_VERSION	1u
#define LNW_MAGIC_PROTO		0x45726963u /* the hello */
#define LNW_MAGIC_TCP_OLD	0xeebc0dedu /* socklnd before the acceptor */
#define LNW_MAGIC_PING		0x70696e67u
#define LNW_SOCK_V3		3u
#define LNW_SOCK_V4		4u /* large NIDs */
#define LNW_ACCEPTOR_VERSION_16 2u /* the acceptor's request with a large NID */

enum lnw_ctype {
	LNW_CONN_ANY = 0,
	LNW_CONN_CONTROL = 1,
	LNW_CONN_BULK_IN = 2,
	LNW_CONN_BULK_OUT = 3,
};

#define LNW_KSM_NOOP	     0xc0u
#define LNW_KSM_LNET	     0xc1u
#define LNW_KEEPALIVE_COOKIE 1u /* a NOOP's second cookie when it is a keepalive */

enum lnw_type {
	LNW_ACK = 0,
	LNW_PUT = 1,
	LNW_GET = 2,
	LNW_REPLY = 3,
	LNW_HELLO = 4, /* socklnd v1 only: never valid in a v3 message */
};

#define LNW_MTU			   (1u << 20) /* the largest payload */
#define LNW_PORTAL_RESERVED	   0u
#define LNW_PORTALS		   64u
#define LNW_PING_MATCHBITS	   0x8000000000000000ull
#define LNW_WH_NONE		   (~0ull) /* a PUT that wants no ACK */
#define LNW_NI_STATUS_UP	   0x15aac0deu
#define LNW_NI_STATUS_DOWN	   0xdeadfaceu
#define LNW_PING_FEAT_BASE	   (1u << 0)
#define LNW_PING_FEAT_NI_STATUS	   (1u << 1)
#define LNW_PING_FEAT_RTE_DISABLED (1u << 2)
#define LNW_PING_FEAT_MULTI_RAIL   (1u << 3)
#define LNW_PING_FEAT_DISCOVERY	   (1u << 4)
#define LNW_PING_FEAT_LARGE_ADDR   (1u << 5)
#define LNW_PING_NIS_MAX	   256u /* entries we read from one ping info */

#define LNW_CONNREQ_SIZE  16u
#define LNW_HELLO_SIZE	  56u /* without the deprecated address list */
#define LNW_HELLO_IPS_MAX 16u
#define LNW_KSM_SIZE	  24u
#define LNW_HDR_SIZE	  72u
#define LNW_FRAME_HDR	  (LNW_KSM_SIZE + LNW_HDR_SIZE)
#define LNW_PING_HDR_SIZE 16u
#define LNW_PING_ENT_SIZE 16u
#define LNW_PING_SIZE(n)  (LNW_PING_HDR_SIZE + (n)*LNW_PING_ENT_SIZE)

/* The forms with large NIDs. */
#define LNW_NID_SIZE	    20u /* struct lnet_nid: size 0, type 1, number 2, address 4 */
#define LNW_CONNREQ16_SIZE  (8u + LNW_NID_SIZE)
#define LNW_HELLO16_SIZE    80u
#define LNW_HDR16_SIZE	    96u
#define LNW_FRAME16_HDR	    (LNW_KSM_SIZE + LNW_HDR16_SIZE)
#define LNW_PING_LARGE_SIZE 24u /* status, then an IPv6 NID */

/* What was wrong with bytes from a peer: each is counted on its own. */
enum lnw_fault {
	LNW_OK = 0,
	LNW_F_MAGIC,	 /* not a magic we speak */
	LNW_F_VERSION,	 /* a protocol version we do not speak */
	LNW_F_NID,	 /* a NID that is not ours, or not the peer's */
	LNW_F_CTYPE,	 /* a connection type socklnd does not have */
	LNW_F_MSGTYPE,	 /* a socklnd or LNet message type that does not exist */
	LNW_F_LENGTH,	 /* a payload beyond the MTU, or where none may be */
	LNW_F_FIELD,	 /* a field out of its range (portal, address count, ...) */
	LNW_F_COOKIE,	 /* a zero-copy acknowledgement for nothing we sent */
	LNW_F_UNMATCHED, /* a reply or ACK for no message we are waiting on */
	LNW_F__COUNT
};

const char *lnw_fault_name(enum lnw_fault f);

/* 8-byte NIDs: net (LND << 16 | number) above a 32-bit address. */
int lnw_nid4(const struct lne_nid *nid, u64 *out);
void lnw_nid_from4(u64 nid4, struct lne_nid *out);

/*
 * A NID as upstream's struct lnet_nid.  Unpacking refuses (LNW_F_FIELD) an
 * address length other than 4 or 16, and 16 bytes on an LND whose
 * addresses are not IP; address bytes beyond the length are ignored.
 */
void lnw_nid_pack(const struct lne_nid *nid, u8 out[LNW_NID_SIZE]);
enum lnw_fault lnw_nid_unpack(const u8 in[LNW_NID_SIZE], struct lne_nid *nid);
/* Whether a NID fits the 8-byte forms (protocol version 3). */
static inline bool lnw_nid_is4(const struct lne_nid *nid)
{
	return nid->alen == 4;
}

struct lnw_connreq {
	u32 magic, version;
	u64 nid; /* the NID the caller wants to reach */
};

struct lnw_hello {
	u32 version;
	u64 src_nid, dst_nid;
	u32 src_pid, dst_pid;
	u64 src_inc, dst_inc;
	u32 ctype, nips;
};

/* Every variant's fields; the type says which mean something. */
struct lnw_hdr {
	u64 dst_nid, src_nid;
	u32 dst_pid, src_pid, type, payload;
	u64 wh_iface,
		wh_object; /* PUT: where to ACK; GET: where to REPLY; ACK, REPLY: the target */
	u64 match;	   /* PUT, GET, ACK */
	u64 hdr_data;	   /* PUT */
	u32 portal;	   /* PUT, GET */
	u32 offset;	   /* PUT: offset; GET: source offset */
	u32 length;	   /* ACK: matched length; GET: the sink's length */
};

struct lnw_ksm {
	u32 type, csum;
	u64 zc[2];
};

struct lnw_ping_ent {
	u64 nid;
	u32 status;
};

struct lnw_ping {
	u32 features, pid, n; /* n: entries, 0@lo included */
};

/* Little-endian words; @flip reads a byte-swapped peer. */
static inline u32 lnw_get32(const u8 *p, bool flip)
{
	u32 v = (u32)p[0] | (u32)p[1] << 8 | (u32)p[2] << 16 | (u32)p[3] << 24;

	return flip ? __builtin_bswap32(v) : v;
}

static inline u64 lnw_get64(const u8 *p, bool flip)
{
	u64 lo = (u32)p[0] | (u32)p[1] << 8 | (u32)p[2] << 16 | (u32)p[3] << 24;
	u64 hi = (u32)p[4] | (u32)p[5] << 8 | (u32)p[6] << 16 | (u32)p[7] << 24;
	u64 v = hi << 32 | lo;

	return flip ? __builtin_bswap64(v) : v;
}

static inline void lnw_put32(u8 *p, u32 v)
{
	p[0] = (u8)v;
	p[1] = (u8)(v >> 8);
	p[2] = (u8)(v >> 16);
	p[3] = (u8)(v >> 24);
}

static inline void lnw_put64(u8 *p, u64 v)
{
	lnw_put32(p, (u32)v);
	lnw_put32(p + 4, (u32)(v >> 32));
}

void lnw_connreq_pack(u64 nid, u8 out[LNW_CONNREQ_SIZE]);
/* The first four bytes decide the byte order; *@flip says which it was. */
enum lnw_fault lnw_connreq_unpack(const u8 in[LNW_CONNREQ_SIZE], struct lnw_connreq *cr,
				  bool *flip);

/*
 * Version 2 (large NID): *@flip says the magic's byte order, though the
 * NID itself never swaps.  A version 1 request is refused here
 * (LNW_F_VERSION): lnw_connreq_unpack() reads it.
 */
void lnw_connreq16_pack(const struct lne_nid *nid, u8 out[LNW_CONNREQ16_SIZE]);
enum lnw_fault lnw_connreq16_unpack(const u8 in[LNW_CONNREQ16_SIZE], struct lne_nid *nid,
				    bool *flip);
/*
 * The size of the request or hello whose first 8 bytes (magic, version) are
 * @in: LNW_CONNREQ_SIZE or LNW_CONNREQ16_SIZE, LNW_HELLO_SIZE or
 * LNW_HELLO16_SIZE; 0 for a magic (the fault in *@f) or version not known.
 */
u32 lnw_connreq_size(const u8 in[8], enum lnw_fault *f);
u32 lnw_hello_size(const u8 in[8], enum lnw_fault *f);

void lnw_hello_pack(const struct lnw_hello *h, u8 out[LNW_HELLO_SIZE]);
enum lnw_fault lnw_hello_unpack(const u8 in[LNW_HELLO_SIZE], struct lnw_hello *h, bool *flip);
/*
 * Version 4: the NIDs are @src and @dst, h->src_nid and h->dst_nid are
 * not used (0 when unpacked); h->version is written as 4 whatever it says.
 * Upstream always sends no addresses: h->nips other than 0 is refused.
 */
void lnw_hello16_pack(const struct lnw_hello *h, const struct lne_nid *src,
		      const struct lne_nid *dst, u8 out[LNW_HELLO16_SIZE]);
enum lnw_fault lnw_hello16_unpack(const u8 in[LNW_HELLO16_SIZE], struct lnw_hello *h,
				  struct lne_nid *src, struct lne_nid *dst, bool *flip);

void lnw_ksm_pack(const struct lnw_ksm *k, u8 out[LNW_KSM_SIZE]);
enum lnw_fault lnw_ksm_unpack(const u8 in[LNW_KSM_SIZE], bool flip, struct lnw_ksm *k);

void lnw_hdr_pack(const struct lnw_hdr *h, u8 out[LNW_HDR_SIZE]);
enum lnw_fault lnw_hdr_unpack(const u8 in[LNW_HDR_SIZE], bool flip, struct lnw_hdr *h);
/* The nid16 header of a version 4 connection: h->dst_nid and src_nid are not used (0). */
void lnw_hdr16_pack(const struct lnw_hdr *h, const struct lne_nid *dst, const struct lne_nid *src,
		    u8 out[LNW_HDR16_SIZE]);
enum lnw_fault lnw_hdr16_unpack(const u8 in[LNW_HDR16_SIZE], bool flip, struct lnw_hdr *h,
				struct lne_nid *dst, struct lne_nid *src);

/* The bytes written (LNW_PING_SIZE(n)), or -ENOSPC when @cap is short. */
int lnw_ping_pack(const struct lnw_ping *p, const struct lnw_ping_ent *e, u8 *out, u32 cap);
/* Entry @i of a ping info being built. */
void lnw_ping_put_ent(u8 *info, u32 i, const struct lnw_ping_ent *e);
/* Up to @cap entries into @e; p->n says how many the info holds. */
enum lnw_fault lnw_ping_unpack(const u8 *in, u32 len, struct lnw_ping *p, struct lnw_ping_ent *e,
			       u32 cap);

/*
 * Large NIDs in ping info (LNW_PING_FEAT_LARGE_ADDR): after the p->n
 * 8-byte entries, one (status, struct lnet_nid) entry per large NID,
 * LNW_PING_LARGE_SIZE bytes for IPv6 (an 8-byte NID there takes 16), and
 * the first entry's size field holds the whole info's size.
 */
struct lnw_ping_large {
	struct lne_nid nid;
	u32 status;
};

/*
 * Ping info with @nl large entries @l after the 8-byte ones (none: the same
 * bytes as lnw_ping_pack()); the bytes written, or -ENOSPC.  p->n must be
 * at least 1 (0@lo).
 */
int lnw_ping16_pack(const struct lnw_ping *p, const struct lnw_ping_ent *e,
		    const struct lnw_ping_large *l, u32 nl, u8 *out, u32 cap);
/*
 * Both parts of ping info @in, 0@lo first, as NIDs: up to @cap into @out,
 * *@count how many.
 */
enum lnw_fault lnw_ping_unpack_all(const u8 *in, u32 len, struct lnw_ping *p,
				   struct lnw_ping_large *out, u32 cap, u32 *count);
/*
 * Ping info being built (our byte order), its 8-byte entries written:
 * large entry @l at @off (LNW_PING_SIZE(n) for the first), the feature bit
 * and the size field set; the size now, or -ENOSPC beyond @cap.
 */
int lnw_ping_add_large(u8 *info, u32 off, const struct lnw_ping_large *l, u32 cap);
/*
 * Up to @cap large entries of ping info @in (read with lnw_ping_unpack()
 * first) into @l; *@nl says how many the info holds, 0 without the
 * feature.  An entry whose NID is not one we can hold is refused
 * (LNW_F_FIELD), as is a size field beyond @len or short of the 8-byte
 * entries; a reply cut short holds the whole entries it has.
 */
enum lnw_fault lnw_ping16_unpack(const u8 *in, u32 len, struct lnw_ping_large *l, u32 cap, u32 *nl);

#endif /* LNE_WIRE_H */
