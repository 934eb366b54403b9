// SPDX-License-Identifier: GPL-2.0
/*
 * yout.c - YAML output, written directly: the layout of libyaml's emitter
 * (block style, infinite width, unicode on), byte for byte, without its
 * cost.
 *
 * libyaml's emitter copied every scalar into an event, queued the events
 * to look ahead, analyzed each scalar and wrote it through its own buffer:
 * most of the time of printing 50,000 peers.  The block style lnetctl
 * prints needs little of that: one event of look-ahead (an empty list or
 * mapping is written "[]" or "{}" in flow style), and the few rules below,
 * which are libyaml's (0.2.5), so that the output stays what it was:
 *  - a mapping or a list nested in a list starts on the item's line,
 *    "-   key: value" at the next indent; a list that is a mapping's value
 *    is not indented further ("key:" then "- item" at the key's indent);
 *  - a key is written "key: value" when it is a scalar of at most 128
 *    bytes on one line, else as "? key" and ": value" on their own lines;
 *  - a plain scalar libyaml would not write plain (it starts with "---"
 *    or "...", has an indicator or a character YAML cannot print, or a
 *    line break) is single-quoted if it can be, else double-quoted, as
 *    an empty plain key is;
 *  - double quotes escape what is not printable (libyaml's definition,
 *    which leaves out every character beyond U+FFFF), line breaks, '"'
 *    and '\\', with libyaml's short escapes, else \xXX, \uXXXX or
 *    \UXXXXXXXX.
 * tests/unit/test-yout.c writes random documents through both this and
 * libyaml's emitter and compares the bytes.
 *
 * A plain scalar that YAML would resolve to something else ("yes", "123",
 * "~") is double-quoted by yout_str() itself (YAML 1.1 rules, which
 * libyaml-based readers such as Lustre's lnetctl follow).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "engine/tunables.h"

#include "yout.h"

/* Nesting deeper than this is refused (-EINVAL): no show prints more than 8. */
#define YOUT_MAX_DEPTH 64
#define YOUT_BUF       65536

/* An open block list or mapping. */
struct level {
	bool map;
	bool simple; /* a mapping: its pending key was written "key:" (not "? key") */
	int indent;  /* the indent to go back to when it ends */
	size_t n;    /* nodes in it so far: a mapping's even ones are keys */
};

struct yout {
	FILE *out;
	int err;	 /* the first error; sticky */
	int best;	 /* the indent step */
	int indent;	 /* libyaml's current indent; -1 before the root */
	int column;	 /* where the next byte goes */
	bool whitespace; /* the last thing written was a space or an indent */
	bool indention;	 /* only indentation on this line so far */
	bool in_map;	 /* the node being written is a mapping's key or value */
	bool key;	 /* ... and it is a simple key */
	bool root_done;
	int pending; /* a list ('s') or mapping ('m') begun, not yet known empty */
	struct level lv[YOUT_MAX_DEPTH];
	size_t depth;
	size_t len;
	char buf[YOUT_BUF];
};

static void flush_buf(struct yout *y)
{
	if (y->len && fwrite(y->buf, 1, y->len, y->out) != y->len && !y->err)
		y->err = -EIO;
	y->len = 0;
}

static void put(struct yout *y, const char *s, size_t n)
{
	if (y->len + n > sizeof(y->buf))
		flush_buf(y);
	if (n > sizeof(y->buf)) {
		if (fwrite(s, 1, n, y->out) != n && !y->err)
			y->err = -EIO;
	} else {
		memcpy(y->buf + y->len, s, n);
		y->len += n;
	}
	y->column += (int)n;
}

static void putc_(struct yout *y, char c)
{
	put(y, &c, 1);
}

static void put_break(struct yout *y)
{
	putc_(y, '\n');
	y->column = 0;
}

/* libyaml's write_indent: a new line unless only indentation is on this one, then pad. */
static void write_indent(struct yout *y, int indent)
{
	if (indent < 0)
		indent = 0;
	static const char spaces[] = "                                ";

	if (!y->indention || y->column > indent || (y->column == indent && !y->whitespace))
		put_break(y);
	while (y->column < indent)
		put(y, spaces,
		    (size_t)(indent - y->column) < sizeof(spaces) - 1 ? (size_t)(indent - y->column)
								      : sizeof(spaces) - 1);
	y->whitespace = true;
	y->indention = true;
}

static void indicator(struct yout *y, const char *s, bool need_ws, bool is_ws, bool is_indention)
{
	if (need_ws && !y->whitespace)
		putc_(y, ' ');
	put(y, s, strlen(s));
	y->whitespace = is_ws;
	y->indention = y->indention && is_indention;
}

struct yout *yout_begin(FILE *out)
{
	struct yout *y = malloc(sizeof(*y));

	if (!y)
		return NULL;
	memset(y, 0, offsetof(struct yout, buf));
	y->out = out;
	y->best = 4;
	y->indent = -1;
	y->whitespace = true;
	y->indention = true;
	return y;
}

/* libyaml's rule: an indent outside 2..9 is 2. */
void yout_indent(struct yout *y, int indent)
{
	if (y)
		y->best = indent > 1 && indent < 10 ? indent : 2;
}

/* The list or mapping begun last gets a node: it is written in block style. */
static void open_block(struct yout *y)
{
	struct level *l = &y->lv[y->depth++];
	bool indentless = y->pending == 's' && y->in_map && !y->indention;

	*l = (struct level){.map = y->pending == 'm', .indent = y->indent};
	if (y->indent < 0)
		y->indent = 0;
	else if (!indentless)
		y->indent += y->best;
	y->pending = 0;
}

/*
 * What comes before any node: the open collection's block start, the "- "
 * of a list item, the ":" after a key, the place of a key.  @scalar says
 * whether the node is a scalar, @simple whether it could be a simple key.
 */
static int node_start(struct yout *y, bool scalar, bool simple)
{
	struct level *l;

	if (!y)
		return -ENOMEM;
	if (y->err)
		return y->err;
	if (y->pending)
		open_block(y);
	y->in_map = y->key = false;
	if (!y->depth)
		return y->root_done ? (y->err = -EINVAL) : 0;
	l = &y->lv[y->depth - 1];
	if (!l->map) {
		write_indent(y, y->indent);
		indicator(y, "-", true, false, true);
	} else if (l->n % 2 == 0) {
		/* A key: lnetctl's are scalars. */
		if (!scalar)
			return y->err = -EINVAL;
		write_indent(y, y->indent);
		l->simple = simple;
		if (simple)
			y->key = true;
		else
			indicator(y, "?", true, false, true);
		y->in_map = true;
	} else {
		if (l->simple) {
			indicator(y, ":", false, false, false);
		} else {
			write_indent(y, y->indent);
			indicator(y, ":", true, false, true);
		}
		y->in_map = true;
	}
	l->n++;
	return 0;
}

/* A node is complete: the root ends the document's content. */
static void node_done(struct yout *y)
{
	if (!y->depth)
		y->root_done = true;
}

static int collection_begin(struct yout *y, int kind)
{
	if (node_start(y, false, false))
		return y ? y->err : -ENOMEM;
	y->pending = kind;
	return 0;
}

static int collection_end(struct yout *y, int kind)
{
	struct level *l;

	if (!y)
		return -ENOMEM;
	if (y->err)
		return y->err;
	if (y->pending) {
		/* Nothing in it: libyaml writes it in flow style. */
		if (y->pending != kind)
			return y->err = -EINVAL;
		indicator(y, kind == 'm' ? "{" : "[", true, true, false);
		indicator(y, kind == 'm' ? "}" : "]", false, false, false);
		y->pending = 0;
		node_done(y);
		return 0;
	}
	if (!y->depth)
		return y->err = -EINVAL;
	l = &y->lv[y->depth - 1];
	if (l->map != (kind == 'm') || (l->map && l->n % 2))
		return y->err = -EINVAL;
	y->indent = l->indent;
	y->depth--;
	node_done(y);
	return 0;
}

int yout_map_begin(struct yout *y)
{
	if (y && !y->err && y->depth + 1 >= YOUT_MAX_DEPTH)
		return y->err = -EINVAL;
	return collection_begin(y, 'm');
}

int yout_map_end(struct yout *y)
{
	return collection_end(y, 'm');
}

int yout_seq_begin(struct yout *y)
{
	if (y && !y->err && y->depth + 1 >= YOUT_MAX_DEPTH)
		return y->err = -EINVAL;
	return collection_begin(y, 's');
}

int yout_seq_end(struct yout *y)
{
	return collection_end(y, 's');
}

int yout_end(struct yout *y)
{
	int err;

	if (!y)
		return -ENOMEM;
	if (!y->err && (y->depth || y->pending))
		y->err = -EINVAL; /* the document ends inside a list or mapping */
	if (!y->err && y->root_done)
		write_indent(y, -1);
	flush_buf(y);
	if (fflush(y->out) || ferror(y->out))
		y->err = y->err ? y->err : -EIO;
	err = y->err;
	free(y);
	return err;
}

/* ---------------------------------------------------------------------- */
/* Scalars                                                                 */
/* ---------------------------------------------------------------------- */

/* Text that is not UTF-8 is refused (-EINVAL), as libyaml's emitter refused it. */
static bool utf8_valid(const unsigned char *s)
{
	while (*s) {
		unsigned int c = *s++, n, v;

		if (c < 0x80)
			continue;
		if ((c & 0xe0) == 0xc0)
			n = 1, v = c & 0x1f;
		else if ((c & 0xf0) == 0xe0)
			n = 2, v = c & 0x0f;
		else if ((c & 0xf8) == 0xf0)
			n = 3, v = c & 0x07;
		else
			return false;
		while (n--) {
			if ((*s & 0xc0) != 0x80)
				return false;
			v = v << 6 | (*s++ & 0x3f);
		}
		if (v < 0x80 || (v >= 0xd800 && v <= 0xdfff) || v > 0x10ffff)
			return false;
	}
	return true;
}

/* The bytes of the UTF-8 character at @s. */
static size_t width(const unsigned char *s)
{
	return (*s & 0x80) == 0 ? 1 : (*s & 0xe0) == 0xc0 ? 2 : (*s & 0xf0) == 0xe0 ? 3 : 4;
}

/* libyaml's IS_PRINTABLE (which leaves out all of U+10000 and above). */
static bool printable(const unsigned char *s)
{
	return s[0] == 0x0a || (s[0] >= 0x20 && s[0] <= 0x7e) || (s[0] == 0xc2 && s[1] >= 0xa0) ||
	       (s[0] > 0xc2 && s[0] < 0xed) || (s[0] == 0xed && s[1] < 0xa0) || s[0] == 0xee ||
	       (s[0] == 0xef && !(s[1] == 0xbb && s[2] == 0xbf) &&
		!(s[1] == 0xbf && (s[2] == 0xbe || s[2] == 0xbf)));
}

/* A line break: \r, \n, U+0085, U+2028, U+2029. */
static bool is_break(const unsigned char *s)
{
	return s[0] == '\r' || s[0] == '\n' || (s[0] == 0xc2 && s[1] == 0x85) ||
	       (s[0] == 0xe2 && s[1] == 0x80 && (s[2] == 0xa8 || s[2] == 0xa9));
}

/* A blank, a break or the end. */
static bool blankz(const unsigned char *s)
{
	return !*s || *s == ' ' || *s == '\t' || is_break(s);
}

/* What libyaml's analysis says a scalar allows (flow style is never asked for here). */
struct scan {
	bool multiline, plain, single;
};

/*
 * Bytes that set none of the analysis' flags anywhere but first (where '-'
 * and '.' may start an indicator) or last (a space): a NID, a key, a
 * number goes plain without the walk below.
 */
static bool alnum(unsigned char c)
{
	return ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') || (c >= '0' && c <= '9');
}

static bool plain_quick(const unsigned char *s, size_t len)
{
	size_t i;

	if (!len || !alnum(s[0]) || s[len - 1] == ' ')
		return false;
	for (i = 1; i < len; i++)
		if (!alnum(s[i]) && !(s[i] && strchr(".@_/-+=()~ ", s[i])))
			return false;
	return true;
}

static struct scan analyze(const unsigned char *s, size_t len)
{
	bool indicators = false, special = false, breaks = false, lead = false, trail = false;
	bool space_break = false, break_space = false, prev_space = false, prev_break = false;
	bool preceded = true, followed;
	const unsigned char *p = s, *end = s + len;

	if (!len || plain_quick(s, len))
		return (struct scan){.plain = true, .single = true};
	if (len >= 3 && ((s[0] == '-' && s[1] == '-' && s[2] == '-') ||
			 (s[0] == '.' && s[1] == '.' && s[2] == '.')))
		indicators = true;
	followed = blankz(s + width(s));
	for (; p < end; p += width(p)) {
		if (p == s) {
			if (strchr("#,[]{}&*!|>'\"%@`", *p) && *p)
				indicators = true;
			if ((*p == '?' || *p == ':' || *p == '-') && followed)
				indicators = true;
		} else if ((*p == ':' && followed) || (*p == '#' && preceded)) {
			indicators = true;
		}
		if (!printable(p))
			special = true;
		if (*p == ' ') {
			lead |= p == s;
			trail |= p + 1 == end;
			break_space |= prev_break;
			prev_space = true, prev_break = false;
		} else if (is_break(p)) {
			breaks = true;
			lead |= p == s;
			trail |= p + width(p) == end;
			space_break |= prev_space;
			prev_space = false, prev_break = true;
		} else {
			prev_space = prev_break = false;
		}
		preceded = blankz(p);
		if (p + width(p) < end)
			followed = blankz(p + width(p) + width(p + width(p)));
	}
	return (struct scan){
		.multiline = breaks,
		.plain = !(lead || trail || break_space || space_break || special || breaks ||
			   indicators),
		.single = !(break_space || space_break || special),
	};
}

/* libyaml's write_break for @p (a break): \n as one, the others as themselves. */
static void write_break(struct yout *y, const unsigned char *p)
{
	if (*p == '\n')
		put_break(y);
	else
		put(y, (const char *)p, width(p));
	y->column = 0;
}

static void write_plain(struct yout *y, const char *s, size_t len)
{
	if (!y->whitespace && len)
		putc_(y, ' ');
	put(y, s, len);
	y->whitespace = y->indention = false;
}

/* Single quotes; breaks (only U+2028 and U+2029 get here) as libyaml writes them. */
static void write_single(struct yout *y, const unsigned char *s, size_t len, int indent)
{
	const unsigned char *p, *end = s + len;
	bool breaks = false;

	indicator(y, "'", true, false, false);
	for (p = s; p < end; p += width(p)) {
		if (is_break(p)) {
			if (!breaks && *p == '\n')
				put_break(y);
			write_break(y, p);
			y->indention = breaks = true;
			continue;
		}
		if (breaks && *p != ' ')
			write_indent(y, indent);
		if (*p == '\'')
			putc_(y, '\'');
		put(y, (const char *)p, width(p));
		if (*p != ' ')
			y->indention = breaks = false;
	}
	if (breaks)
		write_indent(y, indent);
	indicator(y, "'", false, false, false);
	y->whitespace = y->indention = false;
}

static void write_double(struct yout *y, const unsigned char *s, size_t len)
{
	static const char hex[] = "0123456789ABCDEF";
	const unsigned char *p, *end = s + len;
	char esc[12];

	indicator(y, "\"", true, false, false);
	for (p = s; p < end;) {
		size_t w = width(p), k, n;
		uint32_t v;

		if (printable(p) && !is_break(p) && *p != '"' && *p != '\\') {
			put(y, (const char *)p, w);
			p += w;
			continue;
		}
		v = w == 1 ? *p : *p & (0x7f >> w);
		for (k = 1; k < w; k++)
			v = v << 6 | (p[k] & 0x3f);
		p += w;
		esc[0] = '\\';
		n = 2;
		switch (v) {
		case 0x00:
			esc[1] = '0';
			break;
		case 0x07:
			esc[1] = 'a';
			break;
		case 0x08:
			esc[1] = 'b';
			break;
		case 0x09:
			esc[1] = 't';
			break;
		case 0x0a:
			esc[1] = 'n';
			break;
		case 0x0b:
			esc[1] = 'v';
			break;
		case 0x0c:
			esc[1] = 'f';
			break;
		case 0x0d:
			esc[1] = 'r';
			break;
		case 0x1b:
			esc[1] = 'e';
			break;
		case 0x22:
			esc[1] = '"';
			break;
		case 0x5c:
			esc[1] = '\\';
			break;
		case 0x85:
			esc[1] = 'N';
			break;
		case 0xa0:
			esc[1] = '_';
			break;
		case 0x2028:
			esc[1] = 'L';
			break;
		case 0x2029:
			esc[1] = 'P';
			break;
		default:
			k = v <= 0xff ? 2 : v <= 0xffff ? 4 : 8;
			esc[1] = k == 2 ? 'x' : k == 4 ? 'u' : 'U';
			for (n = 2; k--; n++)
				esc[n] = hex[(v >> (4 * k)) & 0xf];
		}
		put(y, esc, n);
	}
	indicator(y, "\"", false, false, false);
}

static int scalar(struct yout *y, const char *s, bool quoted)
{
	size_t len = s ? strlen(s) : 0;
	struct scan sc;
	int indent;

	if (!s || !utf8_valid((const unsigned char *)s)) {
		if (y && !y->err)
			y->err = -EINVAL;
		return y ? y->err : -ENOMEM;
	}
	sc = analyze((const unsigned char *)s, len);
	if (node_start(y, true, !sc.multiline && len <= 128))
		return y ? y->err : -ENOMEM;
	indent = y->indent < 0 ? y->best : y->indent + y->best;
	/* libyaml's choice: plain if it can be (an empty key cannot), else single, else double. */
	if (quoted)
		write_double(y, (const unsigned char *)s, len);
	else if (sc.plain && (len || !y->key))
		write_plain(y, s, len);
	else if (sc.single)
		write_single(y, (const unsigned char *)s, len, indent);
	else
		write_double(y, (const unsigned char *)s, len);
	node_done(y);
	return y->err;
}

/* Plain scalars YAML 1.1 resolves to null, booleans, infinities or merge keys. */
static const char *const special_words[] = {
	"~",	 "null",  "Null",  "NULL",  "true",  "True", "TRUE", "false", "False", "FALSE",
	"yes",	 "Yes",	  "YES",   "no",    "No",    "NO",   "on",   "On",    "ON",    "off",
	"Off",	 "OFF",	  "y",	   "Y",	    "n",     "N",    ".inf", ".Inf",  ".INF",  "+.inf",
	"+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF", ".nan", ".NaN", ".NAN",  "<<",    "=",
};

/* Could it be read as an int or a float (decimal, hex, octal, binary, base 60)? */
static bool number_like(const char *s)
{
	const char *p = s;

	if (*p == '+' || *p == '-')
		p++;
	if (*p == '.')
		p++;
	if (*p < '0' || *p > '9')
		return false;
	return strspn(s, "0123456789abcdefABCDEFxXoO_+-.:") == strlen(s);
}

bool yout_needs_quotes(const char *s)
{
	size_t i, len = strlen(s);

	/* Letters, digits and a few others (a NID, a key) need none of these checks. */
	if (!plain_quick((const unsigned char *)s, len)) {
		if (!len || s[0] == ' ' || s[len - 1] == ' ' || s[len - 1] == ':')
			return true;
		if (strchr("-?:,[]{}#&*!|>'\"%@`", s[0]))
			return true;
		if (strstr(s, ": ") || strstr(s, " #"))
			return true;
		for (i = 0; i < len; i++)
			if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
				return true;
	}
	/* None of them is longer than 5: a NID or a key needs no 40 compares; a
	 * short key ("nid") is told from most by its first byte, without a call. */
	for (i = 0; len <= 5 && i < sizeof(special_words) / sizeof(special_words[0]); i++)
		if (special_words[i][0] == s[0] && !strcmp(s, special_words[i]))
			return true;
	return number_like(s);
}

int yout_key(struct yout *y, const char *key)
{
	return scalar(y, key, key && yout_needs_quotes(key));
}

int yout_str(struct yout *y, const char *s)
{
	return scalar(y, s, s && yout_needs_quotes(s));
}

int yout_u64(struct yout *y, uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	return scalar(y, buf, false);
}

int yout_u32(struct yout *y, uint32_t v)
{
	return yout_u64(y, v);
}

int yout_i64(struct yout *y, int64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRId64, v);
	return scalar(y, buf, false);
}

int yout_tun(struct yout *y, int k, uint32_t v)
{
	if (v == LNE_TUN_OFF && (lne_tun_desc[k].flags & LNE_TUN_F_OFF))
		return yout_i64(y, -1);
	return yout_u32(y, v);
}

int yout_bool(struct yout *y, bool b)
{
	return scalar(y, b ? "True" : "False", false);
}

int yout_number_fmt(struct yout *y, const char *fmt, ...)
{
	char buf[64];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return scalar(y, buf, false);
}
