/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A whole engine instance as text: every object with its flattened UDSP
 * values and the rules that decided them.  Tests compare two of these to
 * show that a refused change changed nothing, or that the incremental
 * flattening equals the from-scratch one.  The caller frees the result.
 */
#ifndef LNETD_STATE_H
#define LNETD_STATE_H

#include "engine/model.h"

char *state_text(const struct lne_inst *ln);

#endif
