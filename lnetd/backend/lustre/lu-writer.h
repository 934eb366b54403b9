/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lu-writer.h - lnet.ko's implementation (lu-write.c) of the writer the
 * generic sync drives (lnetd/backend/sync.h's struct bk_writer).
 *
 * Each call returns 0 when lnet.ko took the change; a negative errno with
 * @err's sentence when lnet.ko (or the library, judging a limit of the
 * version) refused it; a negative errno with an empty sentence when
 * lnet.ko could not be reached.  ctx is the struct lu.
 */
#ifndef LU_WRITER_H
#define LU_WRITER_H

#include "lnetd/backend/sync.h"

/* lnet.ko's writer: ctx is a struct lu from lu_open(). */
extern const struct bk_writer lu_writer;

#endif /* LU_WRITER_H */
