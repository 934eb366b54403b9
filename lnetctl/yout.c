// SPDX-License-Identifier: GPL-2.0
/*
 * yout.c - YAML output through libyaml's emitter.
 *
 * libyaml does the escaping and picks a safe style, but it does not know
 * how a reader will resolve a plain scalar: "yes", "123" or "~" come back
 * as a boolean, a number or null.  yout_str() therefore asks for double
 * quotes whenever a plain scalar could be read as anything but the same
 * string (YAML 1.1 rules, which libyaml-based readers such as Lustre's
 * lnetctl follow), and for plain style otherwise; libyaml still falls back
 * to quotes if it finds plain unsafe.  libyaml's error kinds map to errno
 * here, in one place.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "engine/tunables.h"

#include "yout.h"

struct yout {
	yaml_emitter_t em;
	FILE *out;
	int err;	/* the first error; sticky */
	bool doc_open;	/* the document start went out */
	bool stream_on; /* the stream start went out */
};

static int emitter_errno(const yaml_emitter_t *em)
{
	switch (em->error) {
	case YAML_MEMORY_ERROR:
		return -ENOMEM;
	case YAML_WRITER_ERROR:
		return -EIO;
	default:
		return -EINVAL;
	}
}

/* Emit @ev (always consumed); keep the first error. */
static int emit(struct yout *y, yaml_event_t *ev)
{
	if (!yaml_emitter_emit(&y->em, ev))
		y->err = emitter_errno(&y->em);
	return y->err;
}

/* Every node but the first goes into the open document. */
static int node_start(struct yout *y)
{
	yaml_event_t ev;

	if (!y)
		return -ENOMEM;
	if (y->err || y->doc_open)
		return y->err;
	if (!yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1))
		return y->err = -ENOMEM;
	y->doc_open = true;
	return emit(y, &ev);
}

struct yout *yout_begin(FILE *out)
{
	struct yout *y = calloc(1, sizeof(*y));
	yaml_event_t ev;

	if (!y)
		return NULL;
	if (!yaml_emitter_initialize(&y->em)) {
		free(y);
		return NULL;
	}
	y->out = out;
	yaml_emitter_set_output_file(&y->em, out);
	yaml_emitter_set_encoding(&y->em, YAML_UTF8_ENCODING);
	yaml_emitter_set_indent(&y->em, 4);
	yaml_emitter_set_width(&y->em, -1); /* never fold long scalars */
	yaml_emitter_set_unicode(&y->em, 1);
	if (!yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING))
		y->err = -ENOMEM;
	else if (!emit(y, &ev))
		y->stream_on = true;
	return y;
}

void yout_indent(struct yout *y, int indent)
{
	if (y)
		yaml_emitter_set_indent(&y->em, indent);
}

int yout_end(struct yout *y)
{
	yaml_event_t ev;
	int err;

	if (!y)
		return -ENOMEM;
	if (!y->err && y->doc_open) {
		if (!yaml_document_end_event_initialize(&ev, 1))
			y->err = -ENOMEM;
		else
			emit(y, &ev);
	}
	if (!y->err && y->stream_on) {
		if (!yaml_stream_end_event_initialize(&ev))
			y->err = -ENOMEM;
		else
			emit(y, &ev);
	}
	if (!y->err && !yaml_emitter_flush(&y->em))
		y->err = emitter_errno(&y->em);
	if (fflush(y->out) || ferror(y->out))
		y->err = y->err ? y->err : -EIO;
	err = y->err;
	yaml_emitter_delete(&y->em);
	free(y);
	return err;
}

int yout_map_begin(struct yout *y)
{
	yaml_event_t ev;

	if (node_start(y))
		return y ? y->err : -ENOMEM;
	if (!yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_MAPPING_STYLE))
		return y->err = -ENOMEM;
	return emit(y, &ev);
}

int yout_map_end(struct yout *y)
{
	yaml_event_t ev;

	if (!y)
		return -ENOMEM;
	if (y->err)
		return y->err;
	if (!yaml_mapping_end_event_initialize(&ev))
		return y->err = -ENOMEM;
	return emit(y, &ev);
}

int yout_seq_begin(struct yout *y)
{
	yaml_event_t ev;

	if (node_start(y))
		return y ? y->err : -ENOMEM;
	if (!yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_SEQUENCE_STYLE))
		return y->err = -ENOMEM;
	return emit(y, &ev);
}

int yout_seq_end(struct yout *y)
{
	yaml_event_t ev;

	if (!y)
		return -ENOMEM;
	if (y->err)
		return y->err;
	if (!yaml_sequence_end_event_initialize(&ev))
		return y->err = -ENOMEM;
	return emit(y, &ev);
}

/* libyaml refuses text that is not UTF-8; say so rather than "no memory". */
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

static int scalar(struct yout *y, const char *s, bool quoted)
{
	yaml_event_t ev;

	if (node_start(y))
		return y ? y->err : -ENOMEM;
	if (!s || !utf8_valid((const unsigned char *)s))
		return y->err = -EINVAL;
	if (!yaml_scalar_event_initialize(
		    &ev, NULL, NULL, (yaml_char_t *)s, (int)strlen(s), !quoted, 1,
		    quoted ? YAML_DOUBLE_QUOTED_SCALAR_STYLE : YAML_PLAIN_SCALAR_STYLE))
		return y->err = -ENOMEM;
	return emit(y, &ev);
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

	if (!len || s[0] == ' ' || s[len - 1] == ' ' || s[len - 1] == ':')
		return true;
	if (strchr("-?:,[]{}#&*!|>'\"%@`", s[0]))
		return true;
	if (strstr(s, ": ") || strstr(s, " #"))
		return true;
	for (i = 0; i < len; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return true;
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
