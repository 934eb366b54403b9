/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nid.h - LNet network identifiers.
 *
 * A NID is "<address>@<net>", a net is "<lnd name><number>".  The LND types
 * and names are Lustre's (the LND numbers of nidstr.h in Lustre's uapi, the
 * names of libcfs's nidstrings.c; the unit tier checks this list against a
 * copy of Lustre's) so that NIDs mean the same here as on the wire:
 *
 *   lo   (9)   0@lo only
 *   tcp  (2)   IPv4 or IPv6          o2ib (5)  IPv4 or IPv6
 *   efa  (18)  IPv4 or IPv6          gip  (14) IPv4
 *   gni  (13)  32-bit number         ptlf (15) 32-bit number
 *   kfi  (16)  32-bit number         bxi3f (19) 32-bit number
 *
 * Lustre's userspace library reads o2ib addresses as IPv4 only (its kernel
 * takes IPv6 there too); here every IP LND but gip takes IPv6.
 * Net number 0 prints without its number ("tcp", not "tcp0").  Unlike the
 * 64-bit lnet_nid_t of older Lustre, the address field holds 16 bytes from
 * the start, so IPv6 NIDs are first-class everywhere (UDSP included).
 * Every NID the formatter prints parses back to the same NID.
 */
#ifndef LNE_NID_H
#define LNE_NID_H

#include "error.h"
#include "port.h"

enum lne_lnd {
	LNE_LND_TCP = 2,
	LNE_LND_O2IB = 5,
	LNE_LND_LO = 9,
	LNE_LND_GNI = 13,
	LNE_LND_GIP = 14,
	LNE_LND_PTLF = 15,
	LNE_LND_KFI = 16,
	LNE_LND_EFA = 18,
	LNE_LND_BXI3 = 19,
};

/* What kind of address an LND's NIDs carry. */
enum lne_addr_class {
	LNE_AC_LO,  /* only 0 */
	LNE_AC_IP,  /* IPv4 or IPv6 */
	LNE_AC_IP4, /* IPv4 only */
	LNE_AC_NUM, /* an unsigned 32-bit number */
};

#define LNE_NETNUM_MAX	0xffffu
/* Longest printed NID: a full IPv6 address, '@', "o2ib65535", NUL. */
#define LNE_NID_STR_MAX 64
#define LNE_NET_STR_MAX 16

struct lne_nid {
	u8 lnd;	     /* enum lne_lnd */
	u8 alen;     /* address bytes in use: 4 or 16 */
	u16 num;     /* net number */
	u8 addr[16]; /* network byte order; numbers are big-endian */
};

/* A net packed as Lustre packs it: LND type in the high half. */
typedef u32 lne_net_t;
#define LNE_MKNET(lnd, num) (((u32)(lnd) << 16) | (u32)(num))
#define LNE_NET_LND(net)    ((u8)((net) >> 16))
#define LNE_NET_NUM(net)    ((u16)((net)&0xffff))

static inline lne_net_t lne_nid_net(const struct lne_nid *nid)
{
	return LNE_MKNET(nid->lnd, nid->num);
}

/* The LND's name, or NULL if the type is not one we know. */
const char *lne_lnd_name(unsigned int lnd);
/* The LND's address class; only meaningful for a known LND. */
enum lne_addr_class lne_lnd_addr_class(unsigned int lnd);

/*
 * The LND whose name starts @s (@n bytes), longest name first: returns its
 * type and sets *@name_len, or returns -ENOENT.  Shared with expressions.
 */
int lne_lnd_lookup(const char *s, size_t n, size_t *name_len);
/* The error for a net name that names no LND; the known names included. */
int lne_err_unknown_lnd(struct lne_err *err, const char *input, int pos, const char *name,
			size_t n);

int lne_nid_parse(const char *s, struct lne_nid *nid, struct lne_err *err);
/* lne_nid_parse() without its fast path for the usual spelling: the reference tests hold it to. */
int lne_nid_parse_slow(const char *s, struct lne_nid *nid, struct lne_err *err);
int lne_net_parse(const char *s, lne_net_t *net, struct lne_err *err);

/* Like snprintf: the length the text needs; the buffer is always ended. */
int lne_nid_format(const struct lne_nid *nid, char *buf, size_t size);
int lne_net_format(lne_net_t net, char *buf, size_t size);

/* The first four address bytes as a host-order number (IPv4, numeric). */
static inline u32 lne_nid_ip4(const struct lne_nid *nid)
{
	return (u32)nid->addr[0] << 24 | (u32)nid->addr[1] << 16 | (u32)nid->addr[2] << 8 |
	       nid->addr[3];
}

/* Inline: adding a peer NID compares NIDs several times (hash chains). */
static inline bool lne_nid_equal(const struct lne_nid *a, const struct lne_nid *b)
{
	if (a->lnd != b->lnd || a->num != b->num || a->alen != b->alen)
		return false;
	/* A constant size lets the compiler compare IPv4 as one word. */
	return a->alen == 4 ? !memcmp(a->addr, b->addr, 4) : !memcmp(a->addr, b->addr, a->alen);
}

int lne_nid_cmp(const struct lne_nid *a, const struct lne_nid *b);
u32 lne_nid_hash(const struct lne_nid *nid);

#endif /* LNE_NID_H */
