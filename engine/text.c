// SPDX-License-Identifier: GPL-2.0
/*
 * text.c - scanning and printing primitives for the engine's grammars.
 *
 * The kernel has in4_pton()/in6_pton() and userspace has inet_pton(), but
 * they differ in what they accept; the engine must give one verdict in both
 * homes, so the few parsers it needs are written here once.
 */
#include "text.h"
#include "error.h"

void lne_sb_init(struct lne_sb *sb, char *buf, size_t size)
{
	sb->buf = buf;
	sb->size = size;
	sb->len = 0;
	if (size)
		buf[0] = '\0';
}

void lne_sb_putc(struct lne_sb *sb, char c)
{
	if (sb->len + 1 < sb->size) {
		sb->buf[sb->len] = c;
		sb->buf[sb->len + 1] = '\0';
	}
	sb->len++;
}

void lne_sb_puts(struct lne_sb *sb, const char *s)
{
	while (*s)
		lne_sb_putc(sb, *s++);
}

void lne_sb_putu(struct lne_sb *sb, u32 v)
{
	char tmp[10];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		lne_sb_putc(sb, tmp[--n]);
}

void lne_sb_printf(struct lne_sb *sb, const char *fmt, ...)
{
	size_t room = sb->len < sb->size ? sb->size - sb->len : 0;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(room ? sb->buf + sb->len : NULL, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		sb->len += (size_t)n;
}

int lne_sb_result(const struct lne_sb *sb)
{
	return (int)sb->len;
}

int lne_err_set(struct lne_err *err, int rc, const char *input, int pos, const char *fmt, ...)
{
	/* Long inputs are quoted by their head: the sentence matters more. */
	enum {
		QUOTE_MAX = 64
	};
	struct lne_sb sb;
	va_list ap;

	if (!err)
		return rc;
	err->pos = pos;
	lne_sb_init(&sb, err->msg, sizeof(err->msg));
	if (input) {
		size_t i, n = strlen(input);

		for (i = 0; i < n && i < (n > QUOTE_MAX ? QUOTE_MAX - 3 : n); i++)
			lne_sb_putc(&sb, input[i]);
		if (n > QUOTE_MAX)
			lne_sb_puts(&sb, "...");
		lne_sb_puts(&sb, ": ");
	}
	if (sb.len + 1 < sb.size) {
		va_start(ap, fmt);
		vsnprintf(sb.buf + sb.len, sb.size - sb.len, fmt, ap);
		va_end(ap);
	}
	return rc;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int lne_parse_u32(struct lne_span s, bool hex, u32 max, u32 *out)
{
	unsigned int base = 10;
	bool big = false;
	size_t i = 0;
	u64 v = 0;

	if (hex && s.n > 2 && s.p[0] == '0' && (s.p[1] == 'x' || s.p[1] == 'X')) {
		base = 16;
		i = 2;
	}
	if (i == s.n)
		return -EINVAL;
	for (; i < s.n; i++) {
		int d = hexval(s.p[i]);

		if (d < 0 || (unsigned int)d >= base)
			return -EINVAL;
		if (!big) {
			v = v * base + (unsigned int)d;
			big = v > max;
		}
	}
	if (big)
		return -ERANGE;
	*out = (u32)v;
	return 0;
}

int lne_parse_ip4(struct lne_span s, u8 addr[4])
{
	const char *p = s.p, *end = s.p + s.n;
	int part;

	/* Every NID of a restore comes through here: one pass, no helpers.
	 * Leading zeros are fine ("010" is 10); a value saturates at 256, so a
	 * long run of digits cannot wrap around to a valid octet. */
	for (part = 0; part < 4; part++) {
		const char *start = p;
		u32 v = 0;

		for (; p < end && lne_isdigit(*p); p++) {
			v = v * 10 + (u32)(*p - '0');
			if (v > 255)
				v = 256;
		}
		if (p == start || v > 255)
			return -EINVAL;
		addr[part] = (u8)v;
		if (part < 3) {
			if (p == end || *p != '.')
				return -EINVAL;
			p++; /* the dot */
		}
	}
	return p == end ? 0 : -EINVAL;
}

int lne_parse_ip6(struct lne_span s, u8 addr[16])
{
	int ngroups = 0, gap = -1, g;
	u16 groups[8];
	size_t i = 0;

	if (s.n < 2)
		return -EINVAL;
	if (s.p[0] == ':') {
		if (s.p[1] != ':')
			return -EINVAL;
		gap = 0;
		i = 2;
	}
	while (i < s.n) {
		size_t j = i;
		u32 v = 0;

		while (j < s.n && hexval(s.p[j]) >= 0)
			j++;
		if (j < s.n && s.p[j] == '.') {
			/* An embedded IPv4 address ends the text. */
			u8 v4[4];

			if (ngroups > 6 || lne_parse_ip4((struct lne_span){s.p + i, s.n - i}, v4))
				return -EINVAL;
			groups[ngroups++] = (u16)(v4[0] << 8 | v4[1]);
			groups[ngroups++] = (u16)(v4[2] << 8 | v4[3]);
			break;
		}
		if (j == i || j - i > 4 || ngroups == 8)
			return -EINVAL;
		for (; i < j; i++)
			v = v << 4 | (u32)hexval(s.p[i]);
		groups[ngroups++] = (u16)v;
		if (i == s.n)
			break;
		if (s.p[i] != ':')
			return -EINVAL;
		i++;
		if (i < s.n && s.p[i] == ':') {
			if (gap >= 0)
				return -EINVAL;
			gap = ngroups;
			i++;
		} else if (i == s.n) {
			return -EINVAL; /* a lone trailing ':' */
		}
	}
	if (gap >= 0 ? ngroups > 7 : ngroups != 8)
		return -EINVAL;

	memset(addr, 0, 16);
	for (g = 0; g < ngroups; g++) {
		/* Groups after the gap are right-aligned. */
		int at = (gap >= 0 && g >= gap) ? g + (8 - ngroups) : g;

		addr[2 * at] = (u8)(groups[g] >> 8);
		addr[2 * at + 1] = (u8)groups[g];
	}
	return 0;
}

void lne_print_ip4(struct lne_sb *sb, const u8 addr[4])
{
	int i;

	for (i = 0; i < 4; i++) {
		if (i)
			lne_sb_putc(sb, '.');
		lne_sb_putu(sb, addr[i]);
	}
}

static const u8 ip4_mapped_prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

void lne_print_ip6(struct lne_sb *sb, const u8 addr[16])
{
	int best = -1, best_len = 1, run = -1, g;

	if (!memcmp(addr, ip4_mapped_prefix, sizeof(ip4_mapped_prefix))) {
		lne_sb_puts(sb, "::ffff:");
		lne_print_ip4(sb, addr + 12);
		return;
	}
	/* The longest run of two or more zero groups, leftmost on ties. */
	for (g = 0; g <= 8; g++) {
		bool zero = g < 8 && !addr[2 * g] && !addr[2 * g + 1];

		if (zero && run < 0)
			run = g;
		if (!zero && run >= 0) {
			if (g - run > best_len) {
				best = run;
				best_len = g - run;
			}
			run = -1;
		}
	}
	for (g = 0; g < 8; g++) {
		if (g == best) {
			lne_sb_puts(sb, "::");
			g += best_len - 1;
			continue;
		}
		if (g && g != best + best_len)
			lne_sb_putc(sb, ':');
		lne_sb_printf(sb, "%x", (unsigned int)(addr[2 * g] << 8 | addr[2 * g + 1]));
	}
}
