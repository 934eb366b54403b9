/* SPDX-License-Identifier: GPL-2.0 */
/*
 * expr.h - NID expressions: the nidlist / ip2nets grammar that UDSP rules,
 * ip2nets patterns and TBF rules use to name sets of NIDs or nets.
 *
 *   expr     := item { whitespace item }         all NID ranges, or all nets
 *   item     := addrpat "@" netpat  |  netpat
 *   netpat   := lnd [ number | "*" | list ]      "tcp", "tcp1", "o2ib*", "tcp[1-3]"
 *   list     := "[" range { "," range } "]"      spaces allowed inside
 *   range    := n [ "-" m [ "/" stride ] ]  |  "*"   ("*": 0 to the maximum)
 *   addrpat  := "*"                              any address on the net
 *             | oct "." oct "." oct "." oct      IPv4 LNDs; oct := "*" | range | list
 *             | a.b.c.d "/" len                  IPv4 CIDR, stored as octets
 *             | ipv6 [ "/" len ]                 tcp, o2ib and efa
 *             | range | list                     numeric LNDs (gni, ptlf, kfi, bxi3f)
 *   n, m, len := decimal, without leading zeros   ("0x" hex too for numeric addresses)
 *
 * Lustre reads "010" in an expression as octal 8, so a leading zero is
 * refused rather than read either way.  An item without '@' is a net
 * pattern, never an address (Lustre's nidlist refuses it, its UDSP reads a
 * net).  CIDR with host bits set is masked ("10.0.0.1/24" is 10.0.0.0/24),
 * as Lustre does.
 *
 * An expression is parsed into a canonical form, so two expressions that
 * print the same are the same, and lne_expr_equal() is exact on that form:
 *  - each range's end is clamped to the last element it reaches, a range of
 *    one element becomes a number, ranges are sorted, duplicates removed,
 *    overlapping or adjacent stride-1 ranges merged, and strided ranges
 *    inside a stride-1 range dropped; strided ranges are otherwise kept as
 *    written (so "[0-254/2,1-255/2]" is not recognised as "*");
 *  - a list covering its whole domain becomes "*";
 *  - IPv4 CIDR becomes octet ranges (10.0.16.0/20 -> 10.0.[16-31].*), which
 *    is Lustre's native form; IPv6 prints in RFC 5952 form, "/128" omitted;
 *  - items are sorted by their printed text and duplicates dropped.
 * "*@tcp" (every address on tcp, IPv6 included) and "*.*.*.*@tcp" (every
 * IPv4 address on tcp) stay distinct: the UDSP seed gives them different
 * meanings (a net rule against a NID rule).  An IPv4-mapped IPv6 NID
 * (::ffff:a.b.c.d) is an IPv6 NID: IPv4 patterns do not match it.
 */
#ifndef LNE_EXPR_H
#define LNE_EXPR_H

#include "error.h"
#include "nid.h"
#include "port.h"

#define LNE_EXPR_MAX_LEN    4096 /* bytes of input text */
#define LNE_EXPR_MAX_ITEMS  256
#define LNE_EXPR_MAX_RANGES 4096

struct lne_range {
	u32 lo, hi, step; /* lo, lo+step, ... <= hi; hi is reached exactly */
};

/* A slice of the expression's range array; count 0 means "any" ('*'). */
struct lne_rlist {
	u16 first, count;
};

enum lne_pat_kind {
	LNE_PAT_NET, /* a net only: "tcp1" */
	LNE_PAT_ANY, /* "*@net" */
	LNE_PAT_IP4, /* octets */
	LNE_PAT_IP6, /* prefix */
	LNE_PAT_NUM, /* numeric address list (also 0@lo) */
};

struct lne_pat {
	u8 lnd;
	u8 kind;   /* enum lne_pat_kind */
	u8 prefix; /* LNE_PAT_IP6: prefix length, 0..128 */
	struct lne_rlist net;
	union {
		struct lne_rlist oct[4]; /* LNE_PAT_IP4 */
		struct lne_rlist num;	 /* LNE_PAT_NUM */
		u8 ip6[16];		 /* LNE_PAT_IP6 */
	} a;
};

struct lne_expr {
	u16 npat, nrange;
	struct lne_pat *pat;
	struct lne_range *range;
};

int lne_expr_parse(const char *s, struct lne_expr **out, struct lne_err *err);
void lne_expr_free(struct lne_expr *e);

/* Canonical text; like snprintf, returns the length it needs. */
int lne_expr_format(const struct lne_expr *e, char *buf, size_t size);
/*
 * The canonical text in a buffer of its own (lne_zalloc(): free() in
 * userspace); NULL for no expression or when memory runs out.
 */
char *lne_expr_text(const struct lne_expr *e);

/* True for an expression of nets ("tcp1 o2ib*"), false for NID ranges. */
bool lne_expr_is_net(const struct lne_expr *e);

bool lne_expr_match_nid(const struct lne_expr *e, const struct lne_nid *nid);
/* Could the expression match anything on @net?  (Used to index rules.) */
bool lne_expr_match_net(const struct lne_expr *e, lne_net_t net);

/*
 * Listing what an expression names, for rules that touch few NIDs among
 * many (udsp-flat.c looks them up instead of testing every peer NI of a net).
 * lne_expr_nids_on(): at most how many NIDs on @net @e matches, if that is
 * at most @max and they can be listed (IPv4 octet ranges, numbers, IPv6
 * prefixes longer than /96); else U32_MAX.  lne_expr_each_nid(): each NID
 * on @net that @e matches, exactly once, to @fn, whose nonzero return stops
 * the walk and is returned; only for what lne_expr_nids_on() could list.
 */
u32 lne_expr_nids_on(const struct lne_expr *e, lne_net_t net, u32 max);
int lne_expr_each_nid(const struct lne_expr *e, lne_net_t net,
		      int (*fn)(const struct lne_nid *nid, void *arg), void *arg);

bool lne_expr_equal(const struct lne_expr *a, const struct lne_expr *b);
/* Equal expressions hash equal: a quick "certainly different" before the above. */
u32 lne_expr_hash(const struct lne_expr *e);

#endif /* LNE_EXPR_H */
