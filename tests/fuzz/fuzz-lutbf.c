// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for what a Lustre service lists (lnetd/backend/lustre/
 * lu-tbf-text.c): debugfs text lnetd reads and must not trust.  The input
 * is cut at its first NUL into nrs_policies and nrs_tbf_rule.
 *
 * Whatever the text: no crash, leak or read out of bounds; a refusal says
 * why; whatever parses holds no more than the bounds, every rule it holds
 * has a valid name and conditions; and comparing it with a policy and
 * planning the writes that make it that policy never fails but for a
 * listing without its default rule, and plans writes that are each one
 * command of at most LUTBF_CMD_MAX bytes.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine/tbf.h"
#include "lnetd/backend/lustre/lu-tbf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct lutbf_want want;

static void quiet(void *arg, const char *sentence)
{
	if (!sentence[0])
		abort();
	(void)arg;
}

static void setup(void)
{
	static const char *const cmds[] = {"start a nid={0@lo} rate=20",
					   "hp start b nid={10.0.0.[1,3]@tcp} rate=40 realtime=1",
					   "reg change default rate=500"};
	struct lutbf_caps caps = {.ver = {2, 17, 57}, .ncpt = 2, .has_hp = true, .depth = 3};
	struct lne_err err;
	struct lne_tbf *tbf;
	char msg[256];
	size_t i;

	if (lne_tbf_new("ost_io", &tbf, &err))
		abort();
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (lne_tbf_command(tbf, cmds[i], 0, &err))
			abort();
	if (lutbf_convert(tbf, &caps, &want, msg, sizeof(msg)))
		abort();
	lne_tbf_free(tbf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lutbf_shown s = {0};
	struct lutbf_plan p;
	char *text, *rules, msg[256];
	size_t q, k, i;
	int rc;

	if (!want.ncpt)
		setup();
	text = malloc(size + 2);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = text[size + 1] = '\0';
	rules = text + strlen(text) + 1;
	msg[0] = '\0';
	if (lutbf_parse_policies(text, &s, msg, sizeof(msg))) {
		if (!msg[0] || s.policies)
			abort();
		free(text);
		return 0;
	}
	msg[0] = '\0';
	rc = lutbf_parse_rules(rules, &s, msg, sizeof(msg));
	if (rc && (!msg[0] || rc != -EINVAL))
		abort();
	for (q = 0; q < LUTBF_NQUEUES; q++) {
		if (s.q[q].ncpt > LUTBF_CPT_MAX)
			abort();
		for (k = 0; k < s.q[q].ncpt; k++) {
			if (s.q[q].rules[k].n > LUTBF_RULES_MAX)
				abort();
			for (i = 0; i < s.q[q].rules[k].n; i++)
				if (!s.q[q].rules[k].r[i].name[0] || !s.q[q].rules[k].r[i].conds[0])
					abort();
		}
	}
	(void)lutbf_compare(&want, &s, quiet, NULL);
	rc = lutbf_plan(&want, &s, &p);
	if (rc && rc != -EPROTO)
		abort();
	for (i = 0; !rc && i < p.n; i++)
		if (strlen(p.w[i].text) > LUTBF_CMD_MAX || strchr(p.w[i].text, '\n'))
			abort();
	if (!rc)
		lutbf_plan_free(&p);
	lutbf_shown_free(&s);
	free(text);
	return 0;
}
