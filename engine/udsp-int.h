/* SPDX-License-Identifier: GPL-2.0 */
/*
 * udsp-int.h - what the UDSP files share.  udsp.c holds the rule list
 * (adding, finding, deleting rules and their positions); udsp-flat.c the
 * flattening of rules onto the model: applying and undoing a rule, the
 * preference lists, recomputing and copying everything, and the hooks the
 * model calls.  Private to the engine's UDSP; callers use udsp.h.
 */
#ifndef LNE_UDSP_INT_H
#define LNE_UDSP_INT_H

#include "udsp.h"

/* Every rule of @ln, in idx order (the name .clang-format knows as a loop). */
#define for_each_rule(r, ln) lne_list_for_each_entry(r, &(ln)->udsp.rules, link)

/* udsp-flat.c: apply (or, with @recompute, undo) @r over everything it can match. */
int udspi_apply_rule(struct lne_inst *ln, const struct lne_rule *r, bool recompute);
/* Values copied from @r follow its new priority. */
void udspi_refresh_prio(struct lne_inst *ln, const struct lne_rule *r);

#endif /* LNE_UDSP_INT_H */
