// SPDX-License-Identifier: GPL-2.0
/*
 * nid.c - parsing and printing NIDs and nets.
 *
 * Parsing is strict where Lustre is strict and lenient where Lustre is
 * lenient, because admins' files come from Lustre: leading zeros in numbers
 * are decimal (Lustre never reads a NID in octal; expressions refuse them,
 * see expr.h), numeric addresses may be written in hex, net names are
 * lowercase, and an IP address without '@' is on tcp.  Nothing is resolved
 * (no host names): the kernel runs this code too.
 */
#include "nid.h"
#include "text.h"

struct lnd_info {
	const char *name;
	u8 len; /* strlen(name): every NID parsed looks its LND up */
	u8 type;
	u8 addr_class;
};

static const struct lnd_info lnds[] = {
	{"tcp", 3, LNE_LND_TCP, LNE_AC_IP},
	{"o2ib", 4, LNE_LND_O2IB, LNE_AC_IP},
	{"lo", 2, LNE_LND_LO, LNE_AC_LO},
	{"gni", 3, LNE_LND_GNI, LNE_AC_NUM},
	{"gip", 3, LNE_LND_GIP, LNE_AC_IP4},
	{"ptlf", 4, LNE_LND_PTLF, LNE_AC_NUM},
	{"kfi", 3, LNE_LND_KFI, LNE_AC_NUM},
	{"efa", 3, LNE_LND_EFA, LNE_AC_IP},
	{"bxi3f", 5, LNE_LND_BXI3, LNE_AC_NUM}, /* a digit in the name: see parse_net_span() */
	/*
	 * "ib": the Multi-Rail design writes its examples with ib0, ib1...
	 * (10.2.2.3@ib0).  Lustre has no such LND; InfiniBand's is o2ib, so
	 * that is how they are read, and printed: 10.2.2.3@o2ib (the number
	 * stays).  Only a lookup alias: o2ib comes first for printing.
	 */
	{"ib", 2, LNE_LND_O2IB, LNE_AC_IP},
};

static const struct lnd_info *lnd_find(unsigned int type)
{
	size_t i;

	for (i = 0; i < LNE_ARRAY_SIZE(lnds); i++)
		if (lnds[i].type == type)
			return &lnds[i];
	return NULL;
}

const char *lne_lnd_name(unsigned int lnd)
{
	const struct lnd_info *li = lnd_find(lnd);

	return li ? li->name : NULL;
}

enum lne_addr_class lne_lnd_addr_class(unsigned int lnd)
{
	const struct lnd_info *li = lnd_find(lnd);

	return li ? (enum lne_addr_class)li->addr_class : LNE_AC_NUM;
}

/* Does @s start with @li's name?  Inline: names are 2 to 5 characters. */
static bool lnd_prefix(const char *s, size_t n, const struct lnd_info *li)
{
	size_t i;

	if (li->len > n)
		return false;
	for (i = 0; i < li->len; i++)
		if (s[i] != li->name[i])
			return false;
	return true;
}

int lne_lnd_lookup(const char *s, size_t n, size_t *name_len)
{
	const struct lnd_info *best = NULL;
	size_t i, len;

	for (i = 0; i < LNE_ARRAY_SIZE(lnds); i++) {
		len = lnds[i].len;
		if (lnd_prefix(s, n, &lnds[i]) && (!best || len > best->len))
			best = &lnds[i];
	}
	if (!best)
		return -ENOENT;
	*name_len = best->len;
	return best->type;
}

int lne_err_unknown_lnd(struct lne_err *err, const char *input, int pos, const char *name, size_t n)
{
	char known[64];
	struct lne_sb sb;
	size_t i;

	/* "foo1" names the type "foo": leave the number out. */
	while (n > 0 && lne_isdigit(name[n - 1]))
		n--;
	lne_sb_init(&sb, known, sizeof(known));
	for (i = 0; i < LNE_ARRAY_SIZE(lnds); i++)
		if (lnd_find(lnds[i].type) == &lnds[i]) /* not the "ib" alias */
			lne_sb_printf(&sb, "%s%s", i ? ", " : "", lnds[i].name);
	return lne_err_set(err, -EINVAL, input, pos, "unknown network type '%.*s' (known: %s)",
			   (int)n, name, known);
}

/*
 * The net part of a NID, "<name>[<number>]".  @off is the span's offset in
 * @input, for error positions.
 */
static int parse_net_span(struct lne_span s, const char *input, int off, u8 *lnd, u16 *num,
			  struct lne_err *err)
{
	size_t name_len = 0;
	struct lne_span rest;
	int type, rc;
	u32 v = 0;

	type = lne_lnd_lookup(s.p, s.n, &name_len);
	if (type < 0)
		return lne_err_unknown_lnd(err, input, off, s.p, s.n);
	rest = (struct lne_span){s.p + name_len, s.n - name_len};
	if (rest.n) {
		rc = lne_parse_u32(rest, false, LNE_NETNUM_MAX, &v);
		if (rc == -ERANGE)
			return lne_err_set(err, -EINVAL, input, off + (int)name_len,
					   "network number %.*s is above %u", (int)rest.n, rest.p,
					   LNE_NETNUM_MAX);
		if (rc)
			return lne_err_set(err, -EINVAL, input, off + (int)name_len,
					   "network number '%.*s' is not a number", (int)rest.n,
					   rest.p);
	}
	if (type == LNE_LND_LO && v)
		return lne_err_set(err, -EINVAL, input, off + (int)name_len,
				   "network number of lo must be 0, not %u", v);
	*lnd = (u8)type;
	*num = (u16)v;
	return 0;
}

int lne_net_parse(const char *s, lne_net_t *net, struct lne_err *err)
{
	u16 num;
	u8 lnd;
	int rc;

	if (!*s)
		return lne_err_set(err, -EINVAL, s, 0, "empty network name");
	rc = parse_net_span((struct lne_span){s, strlen(s)}, s, 0, &lnd, &num, err);
	if (rc)
		return rc;
	*net = LNE_MKNET(lnd, num);
	return 0;
}

/*
 * The spelling nearly every NID has, "a.b.c.d@tcpN" or "a.b.c.d@o2ibN"
 * (octets of one to three digits, a net number of up to five), in one pass
 * over the text: a restore parses 100,000 of them, and the general parser
 * takes several passes and calls per NID.  Returns false, leaving *@nid
 * alone, for anything else, which lne_nid_parse_slow() then takes; on what
 * it does take, the two agree (the unit tier holds it to that).
 */
static bool nid_parse_fast(const char *s, struct lne_nid *nid)
{
	const char *p = s;
	struct lne_nid out;
	unsigned int part, i;
	u32 num = 0;

	memset(&out, 0, sizeof(out));
	for (part = 0; part < 4; part++) {
		u32 v;

		if (!lne_isdigit(*p))
			return false;
		v = (u32)(*p++ - '0');
		for (i = 1; i < 3 && lne_isdigit(*p); i++)
			v = v * 10 + (u32)(*p++ - '0');
		if (v > 255 || *p != (part < 3 ? '.' : '@'))
			return false;
		out.addr[part] = (u8)v;
		p++;
	}
	if (p[0] == 't' && p[1] == 'c' && p[2] == 'p') {
		out.lnd = LNE_LND_TCP;
		p += 3;
	} else if (p[0] == 'o' && p[1] == '2' && p[2] == 'i' && p[3] == 'b') {
		out.lnd = LNE_LND_O2IB;
		p += 4;
	} else {
		return false;
	}
	for (i = 0; i < 5 && lne_isdigit(*p); i++)
		num = num * 10 + (u32)(*p++ - '0');
	if (*p || num > LNE_NETNUM_MAX)
		return false;
	out.num = (u16)num;
	out.alen = 4;
	*nid = out;
	return true;
}

int lne_nid_parse(const char *s, struct lne_nid *nid, struct lne_err *err)
{
	return nid_parse_fast(s, nid) ? 0 : lne_nid_parse_slow(s, nid, err);
}

/* An IPv4 or IPv6 address into @nid's address. */
static int parse_ip(struct lne_span addr, struct lne_nid *nid)
{
	/* IPv4 first, without looking for a ':' (a dotted quad has none). */
	nid->alen = 4;
	if (!lne_parse_ip4(addr, nid->addr))
		return 0;
	nid->alen = 16;
	if (addr.n && memchr(addr.p, ':', addr.n) && !lne_parse_ip6(addr, nid->addr))
		return 0;
	return -EINVAL;
}

int lne_nid_parse_slow(const char *s, struct lne_nid *nid, struct lne_err *err)
{
	const char *at, *end;
	struct lne_span addr;
	struct lne_nid out;
	size_t alen;
	u32 v;
	int rc;

	/* The first '@' and the end, in one pass. */
	for (at = s; *at && *at != '@'; at++)
		;
	for (end = at; *end; end++)
		;
	if (!*s)
		return lne_err_set(err, -EINVAL, s, 0, "empty NID");
	memset(&out, 0, sizeof(out));
	alen = (size_t)(at - s);
	addr = (struct lne_span){s, alen};
	if (!*at) {
		/* An address alone is on tcp, as Lustre's libcfs_strnid() has it. */
		out.lnd = LNE_LND_TCP;
		if (parse_ip(addr, &out))
			return lne_err_set(err, -EINVAL, s, 0,
					   "missing '@' between address and network, and '%.*s' is "
					   "not an IP address (an address alone is on tcp)",
					   (int)alen, s);
		*nid = out;
		return 0;
	}
	rc = parse_net_span((struct lne_span){at + 1, (size_t)(end - at - 1)}, s, (int)alen + 1,
			    &out.lnd, &out.num, err);
	if (rc)
		return rc;

	switch (lne_lnd_addr_class(out.lnd)) {
	case LNE_AC_LO:
		if (lne_parse_u32(addr, false, 0, &v))
			return lne_err_set(err, -EINVAL, s, 0, "lo takes only address 0");
		out.alen = 4;
		break;
	case LNE_AC_NUM:
		if (lne_parse_u32(addr, true, U32_MAX, &v))
			return lne_err_set(err, -EINVAL, s, 0,
					   "'%.*s' is not a number from 0 to 4294967295", (int)alen,
					   s);
		out.alen = 4;
		out.addr[0] = (u8)(v >> 24);
		out.addr[1] = (u8)(v >> 16);
		out.addr[2] = (u8)(v >> 8);
		out.addr[3] = (u8)v;
		break;
	case LNE_AC_IP4:
		if (memchr(s, ':', alen))
			return lne_err_set(err, -EINVAL, s, 0,
					   "IPv6 addresses are not supported on %s",
					   lne_lnd_name(out.lnd));
		if (lne_parse_ip4(addr, out.addr))
			return lne_err_set(err, -EINVAL, s, 0, "'%.*s' is not an IPv4 address",
					   (int)alen, s);
		out.alen = 4;
		break;
	case LNE_AC_IP:
		if (parse_ip(addr, &out))
			return lne_err_set(err, -EINVAL, s, 0, "'%.*s' is not an IP address",
					   (int)alen, s);
		break;
	}
	*nid = out;
	return 0;
}

static void print_net(struct lne_sb *sb, unsigned int lnd, unsigned int num)
{
	const char *name = lne_lnd_name(lnd);

	if (name)
		lne_sb_puts(sb, name);
	else
		lne_sb_printf(sb, "lnd%u-", lnd); /* never parses: no such LND */
	if (num)
		lne_sb_putu(sb, num);
}

int lne_net_format(lne_net_t net, char *buf, size_t size)
{
	struct lne_sb sb;

	lne_sb_init(&sb, buf, size);
	print_net(&sb, LNE_NET_LND(net), LNE_NET_NUM(net));
	return lne_sb_result(&sb);
}

int lne_nid_format(const struct lne_nid *nid, char *buf, size_t size)
{
	enum lne_addr_class ac = lne_lnd_addr_class(nid->lnd);
	struct lne_sb sb;

	lne_sb_init(&sb, buf, size);
	if (nid->alen == 16)
		lne_print_ip6(&sb, nid->addr);
	else if (ac == LNE_AC_IP || ac == LNE_AC_IP4)
		lne_print_ip4(&sb, nid->addr);
	else
		lne_sb_putu(&sb, lne_nid_ip4(nid));
	lne_sb_putc(&sb, '@');
	print_net(&sb, nid->lnd, nid->num);
	return lne_sb_result(&sb);
}

int lne_nid_cmp(const struct lne_nid *a, const struct lne_nid *b)
{
	if (a->lnd != b->lnd)
		return a->lnd < b->lnd ? -1 : 1;
	if (a->num != b->num)
		return a->num < b->num ? -1 : 1;
	if (a->alen != b->alen)
		return a->alen < b->alen ? -1 : 1;
	return memcmp(a->addr, b->addr, a->alen);
}

u32 lne_nid_hash(const struct lne_nid *nid)
{
	/* FNV-1a over the identifying bytes: cheap, and it spreads sequential
	 * addresses (a cluster's NIDs) over every bucket. */
	u32 h = 2166136261u;
	unsigned int i;

	h = (h ^ nid->lnd) * 16777619u;
	h = (h ^ (nid->num & 0xff)) * 16777619u;
	h = (h ^ (nid->num >> 8)) * 16777619u;
	for (i = 0; i < nid->alen; i++)
		h = (h ^ nid->addr[i]) * 16777619u;
	return h;
}
