// SPDX-License-Identifier: GPL-2.0
/*
 * restore.c - from the store's desired state to an engine instance, at
 * start.  Everything in the store was validated by the engine when it was
 * committed, so a refusal here means the store and the code disagree (a
 * newer rule of the engine, a hand-edited database): lnetd says which
 * object and stops rather than run with part of the configuration.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lnetd.h"
#include "udsp.h"

static int refused(char **why, const char *what, const char *msg)
{
	if (asprintf(why, "stored %s refused by the engine: %s", what, msg) < 0)
		*why = NULL;
	return -EINVAL;
}

int lnetd_restore(struct lnetd *d, struct lne_inst **out, char **why)
{
	struct st_state st = {0};
	struct lne_inst *ln;
	struct lne_err err;
	size_t i;
	int rc;

	*why = NULL;
	rc = store_state_get(d->store, &st);
	if (rc)
		return rc;
	ln = lne_inst_new();
	if (!ln) {
		st_state_clear(&st);
		return -ENOMEM;
	}
	for (i = 0; !rc && i < st.n_global; i++) {
		int g = lne_global_lookup(st.global[i].name);

		rc = g < 0 ? refused(why, "global", st.global[i].name)
			   : lne_global_set(ln, g, (u32)st.global[i].value, &err);
		if (rc && !*why)
			refused(why, "global", err.msg);
	}
	for (i = 0; !rc && i < st.n_rule; i++) {
		const struct st_rule *r = &st.rule[i];

		rc = lne_rule_add(ln, r->src, r->dst, r->rte,
				  r->priority == ST_UNSET ? LNE_PRIO_NONE : (u32)r->priority, -1,
				  NULL, NULL, &err);
		if (rc)
			refused(why, "rule", err.msg);
	}
	st_state_clear(&st);
	if (rc) {
		lne_inst_free(ln);
		return rc;
	}
	*out = ln;
	return 0;
}
