/* SPDX-License-Identifier: GPL-2.0 */
/*
 * expr-int.h - what the NID expression files share.  expr-parse.c holds
 * the parser and the canonical form it builds; expr.c the printing,
 * matching, listing and comparing of parsed expressions.  Private to the
 * engine's expressions; callers use expr.h.
 */
#ifndef LNE_EXPR_INT_H
#define LNE_EXPR_INT_H

#include "expr.h"

#define EXPRI_OCTET_MAX 255u

/* expr.c: one item's canonical text; like snprintf, returns the length it needs. */
int expri_pat_format(const struct lne_expr *e, const struct lne_pat *pat, char *buf, size_t size);

#endif /* LNE_EXPR_INT_H */
