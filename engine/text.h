/* SPDX-License-Identifier: GPL-2.0 */
/*
 * text.h - scanning and printing primitives shared by the engine's grammars
 * (NIDs, expressions, later TBF rules).  Internal to the engine.
 *
 * Scanners work on spans (pointer + length) cut out of a larger input, so a
 * failure can name its offset in the whole input.  Printers append to a
 * struct lne_sb, which never overflows its buffer and keeps counting, so
 * every format function can report the length it needed, as snprintf does.
 */
#ifndef LNE_TEXT_H
#define LNE_TEXT_H

#include "port.h"

/*
 * A refusal's path: out of line, so that the buffers it formats into are
 * not on the stack of the path that succeeds (the module's kernel zeroes
 * every stack variable on entry, CONFIG_INIT_STACK_ALL_ZERO).  Spelt with
 * underscores: the kernel defines noinline and __cold as macros.
 */
#define LNE_COLD __attribute__((__noinline__, __cold__))

struct lne_span {
	const char *p;
	size_t n;
};

struct lne_sb {
	char *buf;
	size_t size; /* bytes available in buf, including the NUL */
	size_t len;  /* bytes the text needs, excluding the NUL */
};

void lne_sb_init(struct lne_sb *sb, char *buf, size_t size);
void lne_sb_putc(struct lne_sb *sb, char c);
void lne_sb_puts(struct lne_sb *sb, const char *s);
void lne_sb_putu(struct lne_sb *sb, u32 v);
void lne_sb_printf(struct lne_sb *sb, const char *fmt, ...) lne_printf(2, 3);
/* The length needed, as an int (texts here are far below INT_MAX). */
int lne_sb_result(const struct lne_sb *sb);

static inline bool lne_isdigit(char c)
{
	return c >= '0' && c <= '9';
}

static inline bool lne_isspace(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* @s without the white space at either end. */
static inline struct lne_span lne_span_trim(struct lne_span s)
{
	while (s.n && lne_isspace(s.p[0])) {
		s.p++;
		s.n--;
	}
	while (s.n && lne_isspace(s.p[s.n - 1]))
		s.n--;
	return s;
}

/*
 * Parse a whole span as an unsigned decimal number (leading zeros allowed;
 * "0x"/"0X" hexadecimal too when @hex).  Returns 0, -EINVAL when the span is
 * not a number, -ERANGE when it is above @max.
 */
int lne_parse_u32(struct lne_span s, bool hex, u32 max, u32 *out);

/* A whole span as a dotted quad; -EINVAL if it is not one. */
int lne_parse_ip4(struct lne_span s, u8 addr[4]);
/* A whole span as an RFC 4291 IPv6 address; -EINVAL if it is not one. */
int lne_parse_ip6(struct lne_span s, u8 addr[16]);

void lne_print_ip4(struct lne_sb *sb, const u8 addr[4]);
/* RFC 5952 canonical text; IPv4-mapped addresses keep a dotted tail. */
void lne_print_ip6(struct lne_sb *sb, const u8 addr[16]);

#endif /* LNE_TEXT_H */
