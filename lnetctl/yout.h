/* SPDX-License-Identifier: GPL-2.0 */
/*
 * yout.h - YAML output for lnetctl: a thin, error-checked wrapper over
 * libyaml's emitter, block style, the way Lustre's lnetctl prints.
 *
 * Errors are sticky: the first failure is kept, every later call does
 * nothing and returns it, and yout_end() returns it too.  A caller may so
 * check every call, or only yout_end():
 *
 *	struct yout *y = yout_begin(stdout);
 *
 *	yout_map_begin(y);
 *	yout_key(y, "net");
 *	yout_seq_begin(y);
 *	...
 *	yout_seq_end(y);
 *	yout_map_end(y);
 *	return yout_end(y);
 *
 * Strings that YAML would read back as something else (numbers, booleans,
 * null, "[0,1]", "*@tcp", "a: b", ...) are quoted; the rest print plain.
 * Errors: -ENOMEM, -EIO (writing failed), -EINVAL (events out of order,
 * e.g. a key outside a mapping).  Nothing is written for a yout with no
 * node at all.
 */
#ifndef LNETCTL_YOUT_H
#define LNETCTL_YOUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct yout;

/* NULL only when out of memory; the other calls then return -ENOMEM. */
struct yout *yout_begin(FILE *out);
/* Another indent than 4 for what @y prints next. */
void yout_indent(struct yout *y, int indent);
/* Finish the document, flush @out and free @y; the first error, or 0. */
int yout_end(struct yout *y);

int yout_map_begin(struct yout *y);
int yout_map_end(struct yout *y);
int yout_seq_begin(struct yout *y);
int yout_seq_end(struct yout *y);

/* A mapping key; the value follows with any of the calls here. */
int yout_key(struct yout *y, const char *key);
int yout_str(struct yout *y, const char *s);
int yout_u32(struct yout *y, uint32_t v);
int yout_u64(struct yout *y, uint64_t v);
int yout_i64(struct yout *y, int64_t v);
/* Tunable @k's value (engine/tunables.h): LNE_TUN_OFF is Lustre's -1. */
int yout_tun(struct yout *y, int k, uint32_t v);
/* A number printed as @fmt says (a figure: "%.1f"), plain. */
int yout_number_fmt(struct yout *y, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Lustre's spelling: True / False. */
int yout_bool(struct yout *y, bool b);

/* Whether yout_str() quotes @s (so that YAML reads back the same string). */
bool yout_needs_quotes(const char *s);

#endif
