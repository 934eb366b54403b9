// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz-taken.c - genl-test fuzz's deterministic case: every command (do
 * and dump) with each attribute it does not take added to a message the
 * base state accepts, each of which must be refused with extack.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "fuzz.h"

/* --- what a command does not take, one attribute at a time ------------------------------ */

/* An attribute of a base message: a string, or a number of the attribute's kind. */
struct kv {
	uint16_t type;
	const char *s;
	uint32_t v;
};

/* A message that the base state accepts, to add one attribute to. */
struct base {
	uint8_t cmd;
	bool dump;
	uint16_t top;	 /* LNETK_A_COUNT, a nest, or 0 */
	struct kv kv[3]; /* in the nest */
	uint16_t sub;	 /* a sub-nest in it, or 0 */
	struct kv subkv;
};

static const struct base bases[] = {
	{LNETK_CMD_GET_INFO, false, 0, {{0}}, 0, {0}},
	{LNETK_CMD_BUMP, false, LNETK_A_COUNT, {{0}}, 0, {0}},
	{LNETK_CMD_NI_ADD, false, LNETK_A_NI, {{LNETK_NI_A_NID, "10.7.3.1@tcp"}}, 0, {0}},
	{LNETK_CMD_NI_DEL, false, LNETK_A_NI, {{LNETK_NI_A_NID, "10.7.0.1@tcp"}}, 0, {0}},
	{LNETK_CMD_NI_SET,
	 false,
	 LNETK_A_NI,
	 {{LNETK_NI_A_NID, "10.7.0.1@tcp"}, {LNETK_NI_A_HEALTH, NULL, 500}},
	 0,
	 {0}},
	{LNETK_CMD_NI_GET, false, LNETK_A_NI, {{LNETK_NI_A_NID, "10.7.0.1@tcp"}}, 0, {0}},
	{LNETK_CMD_NI_GET, true, 0, {{0}}, 0, {0}},
	{LNETK_CMD_PEER_ADD,
	 false,
	 LNETK_A_PEER,
	 {{LNETK_PEER_A_PRIMARY, "10.7.3.100@tcp"}},
	 LNETK_PEER_A_PEER_NI,
	 {LNETK_PNI_A_NID, "10.7.3.101@tcp"}},
	{LNETK_CMD_PEER_DEL,
	 false,
	 LNETK_A_PEER,
	 {{LNETK_PEER_A_PRIMARY, "10.7.0.100@tcp"}},
	 LNETK_PEER_A_PEER_NI,
	 {LNETK_PNI_A_NID, "10.7.0.101@tcp"}},
	{LNETK_CMD_PEER_NI_SET,
	 false,
	 LNETK_A_PEER_NI,
	 {{LNETK_PNI_A_NID, "10.7.0.101@tcp"}, {LNETK_PNI_A_HEALTH, NULL, 10}},
	 0,
	 {0}},
	{LNETK_CMD_PEER_GET, false, LNETK_A_PEER, {{LNETK_PEER_A_PRIMARY, "10.7.0.100@tcp"}}, 0, {0}},
	{LNETK_CMD_PEER_GET, true, 0, {{0}}, 0, {0}},
	{LNETK_CMD_ROUTE_ADD,
	 false,
	 LNETK_A_ROUTE,
	 {{LNETK_ROUTE_A_NET, "o2ib8"}, {LNETK_ROUTE_A_GATEWAY, "10.7.0.50@tcp"}},
	 0,
	 {0}},
	{LNETK_CMD_ROUTE_DEL,
	 false,
	 LNETK_A_ROUTE,
	 {{LNETK_ROUTE_A_NET, "o2ib7"}, {LNETK_ROUTE_A_GATEWAY, "10.7.0.50@tcp"}},
	 0,
	 {0}},
	{LNETK_CMD_ROUTE_GET, true, 0, {{0}}, 0, {0}},
	{LNETK_CMD_RULE_ADD,
	 false,
	 LNETK_A_RULE,
	 {{LNETK_RULE_A_SRC, "tcp"}, {LNETK_RULE_A_PRIORITY, NULL, 3}},
	 0,
	 {0}},
	{LNETK_CMD_RULE_DEL, false, LNETK_A_RULE, {{LNETK_RULE_A_IDX, NULL, 0}}, 0, {0}},
	{LNETK_CMD_RULE_GET, true, 0, {{0}}, 0, {0}},
	{LNETK_CMD_GLOBAL_SET,
	 false,
	 LNETK_A_GLOBAL,
	 {{LNETK_GLOBAL_A_NAME, "numa_range"}, {LNETK_GLOBAL_A_VALUE, NULL, 7}},
	 0,
	 {0}},
	{LNETK_CMD_GLOBAL_GET, false, 0, {{0}}, 0, {0}},
	{LNETK_CMD_NUMA_SET, false, LNETK_A_NUMA, {{LNETK_NUMA_A_NCPT, NULL, 0}}, 0, {0}},
	{LNETK_CMD_SELECT, false, LNETK_A_SELECT, {{LNETK_SEL_A_DST, "10.7.0.100@tcp"}}, 0, {0}},
	{LNETK_CMD_EXPLAIN, false, LNETK_A_SELECT, {{LNETK_SEL_A_DST, "10.7.0.100@tcp"}}, 0, {0}},
	{LNETK_CMD_BATCH, false, LNETK_A_NI, {{LNETK_NI_A_NID, "10.7.3.2@tcp"}}, 0, {0}},
	{LNETK_CMD_BATCH,
	 false,
	 LNETK_A_PEER,
	 {{LNETK_PEER_A_PRIMARY, "10.7.3.110@tcp"}},
	 LNETK_PEER_A_PEER_NI,
	 {LNETK_PNI_A_NID, "10.7.3.111@tcp"}},
	{LNETK_CMD_TBF_SET,
	 false,
	 LNETK_A_TBF,
	 {{LNETK_TBF_A_SERVICE, "fz"}, {LNETK_TBF_A_DEPTH, NULL, 5}},
	 0,
	 {0}},
	{LNETK_CMD_TBF_CMD,
	 false,
	 LNETK_A_TBF,
	 {{LNETK_TBF_A_SERVICE, "fz"}, {LNETK_TBF_A_CMD, "change default rate=30"}},
	 0,
	 {0}},
	{LNETK_CMD_TBF_DEL, false, LNETK_A_TBF, {{LNETK_TBF_A_SERVICE, "fz2"}}, 0, {0}},
	{LNETK_CMD_TBF_GET, false, LNETK_A_TBF, {{LNETK_TBF_A_SERVICE, "fz"}}, 0, {0}},
	{LNETK_CMD_TBF_GET, true, LNETK_A_TBF, {{LNETK_TBF_A_SERVICE, "fz"}}, 0, {0}},
	{LNETK_CMD_TBF_LOAD,
	 false,
	 LNETK_A_TBF,
	 {{LNETK_TBF_A_SERVICE, "fz"}, {LNETK_TBF_A_LOAD_MS, NULL, LNETK_TBF_LOAD_MS_MIN}},
	 LNETK_TBF_A_LOAD_CLASS,
	 {LNETK_TBFL_A_NID, "10.7.0.1@tcp"}},
	{LNETK_CMD_TBF_CLASS_GET, true, LNETK_A_TBF, {{LNETK_TBF_A_SERVICE, "fz"}}, 0, {0}},
};

static void put_kv(struct gen *g, const struct nspec *n, const struct kv *kv)
{
	const struct aspec *a = pol_find(n, kv->type);

	if (kv->s)
		put_data(g, kv->type, kv->s, strlen(kv->s) + 1);
	else
		put_int(g, kv->type, kind_len[a->kind], kv->v);
}

/* A valid value for attribute @a (a small nest for a nest), every sub-attribute given. */
static void put_extra(struct gen *g, const struct nspec *n, const struct aspec *a)
{
	static const struct take all = {~0u, ~0u, &all};

	g->mut = 0;
	gen_attr(g, n, a, &all, 2);
}

/*
 * Base @b with @extra added to the top level (@where 0), to its nest (1)
 * or to its sub-nest (2); @extra NULL: the base alone.
 */
static void build_base(struct gen *g, const struct base *b, int where, const struct aspec *extra,
		       uint32_t seq, int family)
{
	const struct aspec *top = b->top ? pol_find(&top_nest, b->top) : NULL;
	struct nlmsghdr *nlh = (struct nlmsghdr *)g->buf;
	struct genlmsghdr *gh = (struct genlmsghdr *)(g->buf + NLMSG_HDRLEN);
	size_t off, soff;
	int i;

	g->len = NLMSG_HDRLEN + GENL_HDRLEN;
	memset(g->buf, 0, g->len);
	nlh->nlmsg_type = (uint16_t)family;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | (b->dump ? NLM_F_DUMP : 0);
	nlh->nlmsg_seq = seq;
	gh->cmd = b->cmd;
	gh->version = LNETK_GENL_VERSION;
	if (b->top == LNETK_A_COUNT) {
		put_int(g, LNETK_A_COUNT, 4, 1);
	} else if (top) {
		off = put_hdr(g, b->top | NLA_F_NESTED);
		for (i = 0; i < 3 && b->kv[i].type; i++)
			put_kv(g, top->nest, &b->kv[i]);
		if (b->sub) {
			const struct aspec *sa = pol_find(top->nest, b->sub);

			soff = put_hdr(g, b->sub | NLA_F_NESTED);
			put_kv(g, sa->nest, &b->subkv);
			if (where == 2)
				put_extra(g, sa->nest, extra);
			put_end(g, soff);
		}
		if (where == 1)
			put_extra(g, top->nest, extra);
		put_end(g, off);
	}
	if (where == 0 && extra)
		put_extra(g, &top_nest, extra);
	nlh->nlmsg_len = (uint32_t)g->len;
}

static const struct cspec *spec_of(uint8_t cmd)
{
	int i;

	for (i = 0; i < NCMDS; i++)
		if (cmds[i].cmd == cmd)
			return &cmds[i];
	return NULL;
}

/* What @c takes at the top level, and in the nest of type @top. */
static bool takes_top(const struct cspec *c, int type)
{
	int i;

	for (i = 0; i < 6 && c->use[i].type; i++)
		if (c->use[i].type == type)
			return true;
	return false;
}

static const struct take *take_of(const struct cspec *c, int type)
{
	int i;

	for (i = 0; i < 6 && c->use[i].type; i++)
		if (c->use[i].type == type)
			return c->use[i].take;
	return NULL;
}

/* One base with one attribute it does not take: refused, with extack, nothing changed. */
static bool refuse_extra(struct lnetk *lk, struct fsock *s, const struct base *b, int where,
			 const struct aspec *extra, const char *in)
{
	const struct cspec *c = spec_of(b->cmd);
	struct state before, after;
	char ext[256];
	bool ok;
	int rc;

	state_take(lk, &before);
	build_base(gbuf, b, where, extra, s->seq++, s->family);
	rc = fsock_send(s, gbuf->buf, gbuf->len, ext, sizeof(ext), &fs->dump_msgs);
	state_take(lk, &after);
	ok = rc < 0 && rc != -ETIMEDOUT && rc != -EIO && ext[0] && state_same(&before, &after);
	if (!ok)
		diag("%s (%s) with %s attribute %d, which it does not take: %s, extack \"%s\"%s",
		     c->name, b->dump ? "dump" : "do", in, extra->type, errname(rc), ext,
		     state_same(&before, &after) ? "" : ", and the state changed");
	state_free(&before);
	state_free(&after);
	return ok;
}

/*
 * Every command, as do and as dump, with each attribute it does not take
 * added to a message it accepts: at the top level, in its nest, in its
 * sub-nest.  The contract: refused (-EINVAL), with extack, nothing changed.
 */
void case_not_taken(struct lnetk *lk, struct fsock *s)
{
	int i, k, cases = 0, bad = 0, based = 0;
	size_t j;

	for (j = 0; j < N(bases); j++) {
		const struct base *b = &bases[j];
		const struct cspec *c = spec_of(b->cmd);
		const struct aspec *top = b->top ? pol_find(&top_nest, b->top) : NULL;
		const struct take *t = take_of(c, b->top);
		char ext[256];
		int rc;

		reset_state(lk);
		for (i = 0; i < top_nest.npol; i++) {
			const struct aspec *a = &top_nest.pol[i];

			if (a->type == b->top || (!b->dump && takes_top(c, a->type)))
				continue;
			cases++;
			bad += !refuse_extra(lk, s, b, 0, a, "top-level");
		}
		for (k = 0; top && top->kind == K_NEST && t && k < top->nest->npol; k++) {
			const struct aspec *a = &top->nest->pol[k];

			if (t->mask & B(a->type))
				continue;
			cases++;
			bad += !refuse_extra(lk, s, b, 1, a, top->nest->name);
		}
		if (b->sub) {
			const struct aspec *sa = pol_find(top->nest, b->sub);
			const struct take *st = t ? t->sub : NULL;

			for (k = 0; st && k < sa->nest->npol; k++) {
				const struct aspec *a = &sa->nest->pol[k];

				if (st->mask & B(a->type))
					continue;
				cases++;
				bad += !refuse_extra(lk, s, b, 2, a, sa->nest->name);
			}
		}
		/* the base alone is accepted: the extra attribute was the reason */
		build_base(gbuf, b, -1, NULL, s->seq++, s->family);
		rc = fsock_send(s, gbuf->buf, gbuf->len, ext, sizeof(ext), &fs->dump_msgs);
		if (rc) {
			diag("%s (%s) alone: %s, extack \"%s\"", c->name, b->dump ? "dump" : "do",
			     errname(rc), ext);
			based++;
		}
	}
	reset_state(lk);
	tap(!based, "fuzz: the %zu base messages are accepted as they are", N(bases));
	tap(!bad && cases > 100,
	    "fuzz: every command refuses, with extack, each attribute it does not take (%d of %d "
	    "accepted or without extack)",
	    bad, cases);
}
