/* SPDX-License-Identifier: GPL-2.0 */
#ifndef LNETD_SCN_ENGINE_H
#define LNETD_SCN_ENGINE_H

#include "engine/model.h"
#include "tests/lib/scenario.h"

struct scn_engine {
	struct lne_inst *ln;
};

void scn_engine_init(struct scn_engine *se, struct scn_backend *be);
void scn_engine_fini(struct scn_engine *se);

#endif
