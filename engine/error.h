/* SPDX-License-Identifier: GPL-2.0 */
/*
 * error.h - how the engine tells a person what was wrong.
 *
 * Engine functions return 0 or a negative errno.  Functions that take input
 * from a person (NIDs, expressions, rules) also fill a struct lne_err: the
 * byte offset of the offending part and one sentence that names it, prefixed
 * by the input, e.g. "10.0.0.[5-2]@tcp: range start 5 is above its end 2".
 * The same text reaches lnetctl's stderr and the kernel's extack, so it must
 * make sense without the code at hand.
 */
#ifndef LNE_ERROR_H
#define LNE_ERROR_H

#include "port.h"

#define LNE_ERR_MSG_MAX 192

struct lne_err {
	int pos;		   /* byte offset in the input, -1 if none */
	char msg[LNE_ERR_MSG_MAX]; /* "<input>: <sentence>" */
};

/*
 * Fill @err (which may be NULL) and return @rc.  @input is quoted at the
 * start of the message, shortened when long; @pos is where the bad part
 * starts.
 */
int lne_err_set(struct lne_err *err, int rc, const char *input, int pos, const char *fmt, ...)
	lne_printf(5, 6);

#endif /* LNE_ERROR_H */
