// SPDX-License-Identifier: GPL-2.0
/*
 * global.c - globals (GLOBAL_SET, GLOBAL_GET) and the NUMA distances
 * (NUMA_SET).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "client-int.h"

int lk_put_global(struct nl_msg *msg, const void *in)
{
	const struct lnetk_global *g = in;
	struct nlattr *nest = nla_nest_start(msg, LNETK_A_GLOBAL);

	if (!nest || nla_put_string(msg, LNETK_GLOBAL_A_NAME, g->name) < 0 ||
	    nla_put_u32(msg, LNETK_GLOBAL_A_VALUE, g->value) < 0)
		return -NLE_NOMEM;
	return nla_nest_end(msg, nest);
}

/* A name too long for the struct is too long for the kernel: send it as is and let it say so. */
int lk_global_fill(struct lnetk_global *g, const char *name, uint32_t value)
{
	if (strlen(name) >= sizeof(g->name))
		return -EINVAL;
	strcpy(g->name, name);
	g->value = value;
	return 0;
}

int lnetk_global_set(struct lnetk *lk, const char *name, uint32_t value, struct lnetk_err *err)
{
	struct lnetk_global g;
	struct req rq = {.err = err};

	if (lk_global_fill(&g, name, value)) {
		lk_err_reset(err);
		if (err)
			snprintf(err->msg, sizeof(err->msg), "global name too long");
		return -EINVAL;
	}
	return lk_run(lk, LNETK_CMD_GLOBAL_SET, 0, 128, lk_put_global, &g, &rq);
}

static const struct nla_policy global_policy[LNETK_GLOBAL_A_MAX + 1] = {
	[LNETK_GLOBAL_A_NAME] = {.type = NLA_STRING},
	[LNETK_GLOBAL_A_VALUE] = {.type = NLA_U32},
};

/* One message, one LNETK_A_GLOBAL per setting: walk them all, not just the last. */
static int parse_globals(struct req *rq, struct nlattr **tb __maybe_unused, struct nlmsghdr *nlh)
{
	struct genlmsghdr *gh = nlmsg_data(nlh);
	struct dump *d = rq->arg;
	struct nlattr *a;
	int rem, rc;

	nla_for_each_attr(a, genlmsg_attrdata(gh, 0), genlmsg_attrlen(gh, 0), rem) {
		struct nlattr *gtb[LNETK_GLOBAL_A_MAX + 1];
		struct lnetk_global g;

		if (nla_type(a) != LNETK_A_GLOBAL)
			continue;
		if (nla_parse_nested(gtb, LNETK_GLOBAL_A_MAX, a, global_policy) < 0 ||
		    !gtb[LNETK_GLOBAL_A_NAME] || !gtb[LNETK_GLOBAL_A_VALUE])
			return -EPROTO;
		rc = lk_get_str(g.name, sizeof(g.name), gtb[LNETK_GLOBAL_A_NAME]);
		if (rc)
			return rc;
		g.value = nla_get_u32(gtb[LNETK_GLOBAL_A_VALUE]);
		rc = cb_rc(d->cb.global(&g, d->arg));
		if (rc)
			return rc;
	}
	return 0;
}

int lnetk_global_get(struct lnetk *lk, lnetk_global_cb cb, void *arg, struct lnetk_err *err)
{
	struct dump d = {.cb.global = cb, .arg = arg};
	struct req rq = {.err = err, .parse = parse_globals, .arg = &d};

	return lk_run(lk, LNETK_CMD_GLOBAL_GET, 0, 0, NULL, NULL, &rq);
}

struct numa_in {
	uint32_t ncpt;
	const uint32_t *dist;
};

static int put_numa(struct nl_msg *msg, const void *in)
{
	const struct numa_in *n = in;
	struct nlattr *nest = nla_nest_start(msg, LNETK_A_NUMA);

	if (!nest || nla_put_u32(msg, LNETK_NUMA_A_NCPT, n->ncpt) < 0 ||
	    (n->ncpt && nla_put(msg, LNETK_NUMA_A_DIST, (int)(n->ncpt * n->ncpt * sizeof(uint32_t)),
				n->dist) < 0))
		return -NLE_NOMEM;
	return nla_nest_end(msg, nest);
}

int lnetk_numa_set(struct lnetk *lk, uint32_t ncpt, const uint32_t *dist, struct lnetk_err *err)
{
	struct numa_in in = {ncpt, dist};
	struct req rq = {.err = err};

	/* The kernel refuses more than LNETK_MAX_CPTS; do not build a giant message first. */
	if (ncpt > 4 * LNETK_MAX_CPTS) {
		lk_err_reset(err);
		return -ERANGE;
	}
	return lk_run(lk, LNETK_CMD_NUMA_SET, 0, 64 + ncpt * ncpt * sizeof(uint32_t), put_numa, &in,
		      &rq);
}
