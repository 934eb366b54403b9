// SPDX-License-Identifier: GPL-2.0
/* UDSP rules: kinds, the ordered list, flattening, and its equivalence with recomputing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/udsp.h"
#include "state.h"
#include "unit.h"

static const struct lne_nid *NP(const char *s)
{
	static struct lne_nid ring[8];
	static unsigned int next;
	struct lne_nid *nid = &ring[next++ % 8];

	ck_assert_msg(!lne_nid_parse(s, nid, NULL), "bad NID %s", s);
	return nid;
}

static void ni(struct lne_inst *ln, const char *s)
{
	struct lne_ni_conf c = {.nid = *NP(s), .dev_cpt = LNE_CPT_ANY};
	struct lne_err err;

	ck_assert_msg(!lne_ni_add(ln, &c, &err), "%s", err.msg);
}

static void peer(struct lne_inst *ln, const char *prim, const char *more)
{
	struct lne_nid p = *NP(prim);

	ck_assert_int_eq(lne_peer_add(ln, &(struct lne_peer_conf){.primary = p, .multi_rail = true},
				      NULL),
			 0);
	if (more)
		ck_assert_int_eq(lne_peer_add_nid(ln, &p, NP(more), NULL), 0);
}

static int rule(struct lne_inst *ln, const char *src, const char *dst, const char *rte, u32 prio,
		s64 idx, struct lne_err *err)
{
	return lne_rule_add(
		ln, &(struct lne_rule_conf){.src = src, .dst = dst, .rte = rte, .priority = prio},
		idx, NULL, NULL, err);
}

static u32 ni_prio(struct lne_inst *ln, const char *s, s32 *rule_idx)
{
	struct lne_ni *n = lne_ni_find(ln, NP(s));

	ck_assert_ptr_nonnull(n);
	*rule_idx = lne_rule_idx(n->prio.rule);
	return n->prio.value;
}

START_TEST(rule_kinds)
{
	struct lne_inst *ln = lne_inst_new();
	static const struct {
		const char *src, *dst, *rte;
		u32 prio;
		int kind;
	} ok[] = {
		{"tcp1", NULL, NULL, 0, LNE_RULE_SRC_NET},
		{"*@o2ib1", NULL, NULL, 0, LNE_RULE_SRC_NET},
		{"o2ib[1-3] tcp*", NULL, NULL, 0, LNE_RULE_SRC_NET},
		{"*.*.*.*@o2ib1", NULL, NULL, 0, LNE_RULE_SRC_NID},
		{"10.0.0.[1-4]@tcp", NULL, NULL, 0, LNE_RULE_SRC_NID},
		{NULL, "o2ib", NULL, 0, LNE_RULE_DST_NET},
		{NULL, "2001:db8::/64@tcp", NULL, 0, LNE_RULE_DST_NID},
		{"10.0.0.1@tcp", "10.0.0.[2-9]@tcp", NULL, LNE_PRIO_NONE, LNE_RULE_PAIR},
		{NULL, "10.1.0.*@o2ib2", "10.0.0.[5-8]@o2ib", 0, LNE_RULE_ROUTER},
	};
	struct lne_err err;
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		ck_assert_msg(!rule(ln, ok[i].src, ok[i].dst, ok[i].rte, ok[i].prio, -1, &err),
			      "%s", err.msg);
		ck_assert_int_eq(lne_rule_at(ln, (u32)i)->kind, ok[i].kind);
	}
	ck_assert_int_eq(rule(ln, NULL, NULL, "10.0.0.1@tcp", 0, -1, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "--dst with --rte"));
	ck_assert_int_eq(rule(ln, "tcp", NULL, "10.0.0.1@tcp", 0, -1, &err), -EINVAL);
	ck_assert_int_eq(rule(ln, "tcp", "o2ib", "10.0.0.1@tcp", 0, -1, &err), -EINVAL);
	ck_assert_int_eq(rule(ln, NULL, NULL, NULL, 0, -1, &err), -EINVAL);
	ck_assert_int_eq(rule(ln, "tcp9", NULL, NULL, LNE_PRIO_NONE, -1, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "needs a priority"));
	ck_assert_int_eq(rule(ln, "10.0.0.[5-2]@tcp", NULL, NULL, 0, -1, &err), -EINVAL);
	ck_assert_str_eq(err.msg, "src 10.0.0.[5-2]@tcp: range start 5 is above its end 2");
	ck_assert_int_eq(rule(ln, NULL, "foo", NULL, 0, -1, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "dst foo: unknown network type"));
	ck_assert_uint_eq(ln->udsp.nrules, sizeof(ok) / sizeof(ok[0]));
	lne_inst_free(ln);
}
END_TEST

/* Rules are found by what their expressions mean, whatever the spelling. */
START_TEST(rule_find_by_meaning)
{
	struct lne_inst *ln = lne_inst_new();
	struct lne_err err;
	u32 idx = 99;

	ck_assert_int_eq(rule(ln, "tcp", NULL, NULL, 1, -1, &err), 0);
	ck_assert_int_eq(rule(ln, "10.0.0.[1-4]@o2ib", "10.0.1.1@o2ib", NULL, 0, -1, &err), 0);
	ck_assert_int_eq(rule(ln, NULL, "10.1.0.*@o2ib2", "10.0.0.[5-8]@o2ib", 0, -1, &err), 0);
	ck_assert_int_eq(lne_rule_find(ln, &(struct lne_rule_conf){.src = "tcp0", .rte = ""}, &idx,
				       &err),
			 0);
	ck_assert_uint_eq(idx, 0);
	ck_assert_int_eq(lne_rule_find(ln,
				       &(struct lne_rule_conf){.src = "10.0.0.[1,2,3,4]@o2ib0",
							       .dst = "10.0.1.1@o2ib"},
				       &idx, &err),
			 0);
	ck_assert_uint_eq(idx, 1);
	ck_assert_int_eq(lne_rule_find(ln,
				       &(struct lne_rule_conf){.dst = "10.1.0.*@o2ib2",
							       .rte = "10.0.0.[5-8]@o2ib"},
				       &idx, &err),
			 0);
	ck_assert_uint_eq(idx, 2);
	/* A part more or less is another rule. */
	ck_assert_int_eq(lne_rule_find(ln, &(struct lne_rule_conf){.src = "10.0.0.[1-4]@o2ib"},
				       &idx, &err),
			 -ENOENT);
	ck_assert_int_eq(lne_rule_find(ln, &(struct lne_rule_conf){.src = "tcp1"}, &idx, &err),
			 -ENOENT);
	ck_assert_int_eq(lne_rule_find(ln, &(struct lne_rule_conf){.src = "10.0.0.[4-1]@tcp"}, &idx,
				       &err),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "src"));
	lne_inst_free(ln);
}
END_TEST

START_TEST(rule_idx_insert_append_renumber)
{
	struct lne_inst *ln = lne_inst_new();
	enum lne_rule_outcome out;
	u32 at;

	ck_assert_int_eq(lne_rule_add(ln, &(struct lne_rule_conf){.src = "tcp", .priority = 1}, -1,
				      &out, &at, NULL),
			 0);
	ck_assert_uint_eq(at, 0);
	ck_assert_int_eq(lne_rule_add(ln, &(struct lne_rule_conf){.src = "tcp1", .priority = 1}, -1,
				      &out, &at, NULL),
			 0);
	ck_assert_uint_eq(at, 1);
	ck_assert_int_eq(lne_rule_add(ln, &(struct lne_rule_conf){.src = "tcp2", .priority = 1}, 0,
				      &out, &at, NULL),
			 0);
	ck_assert_uint_eq(at, 0); /* before the old rule 0 */
	ck_assert_int_eq(lne_rule_add(ln, &(struct lne_rule_conf){.src = "tcp3", .priority = 1}, 99,
				      &out, &at, NULL),
			 0);
	ck_assert_uint_eq(at, 3); /* past the end appends */
	ck_assert_int_eq(lne_rule_add(ln, &(struct lne_rule_conf){.src = "tcp4", .priority = 1}, 3,
				      &out, &at, NULL),
			 0);
	ck_assert_uint_eq(at, 3);
	/* Order now: tcp2 tcp tcp1 tcp4 tcp3. */
	ck_assert(lne_expr_match_net(lne_rule_at(ln, 0)->src, LNE_MKNET(LNE_LND_TCP, 2)));
	ck_assert(lne_expr_match_net(lne_rule_at(ln, 1)->src, LNE_MKNET(LNE_LND_TCP, 0)));
	ck_assert(lne_expr_match_net(lne_rule_at(ln, 2)->src, LNE_MKNET(LNE_LND_TCP, 1)));
	ck_assert(lne_expr_match_net(lne_rule_at(ln, 3)->src, LNE_MKNET(LNE_LND_TCP, 4)));
	ck_assert(lne_expr_match_net(lne_rule_at(ln, 4)->src, LNE_MKNET(LNE_LND_TCP, 3)));
	/* The same expressions: an update in place, at its own idx. */
	ck_assert_int_eq(lne_rule_add(ln, &(struct lne_rule_conf){.src = "tcp0", .priority = 7}, 0,
				      &out, &at, NULL),
			 0);
	ck_assert_int_eq(out, LNE_RULE_UPDATED);
	ck_assert_uint_eq(at, 1);
	ck_assert_uint_eq(lne_rule_at(ln, 1)->prio, 7);
	ck_assert_int_eq(lne_rule_add(ln, &(struct lne_rule_conf){.src = "tcp", .priority = 7}, -1,
				      &out, &at, NULL),
			 -EEXIST);
	ck_assert_uint_eq(ln->udsp.nrules, 5);
	/* Delete renumbers. */
	ck_assert_int_eq(lne_rule_del(ln, 1, NULL), 0);
	ck_assert(lne_expr_match_net(lne_rule_at(ln, 1)->src, LNE_MKNET(LNE_LND_TCP, 1)));
	ck_assert_uint_eq(lne_rule_at(ln, 3)->idx, 3);
	ck_assert_int_eq(lne_rule_del(ln, 4, NULL), -ENOENT);
	lne_rule_del_all(ln);
	ck_assert_uint_eq(ln->udsp.nrules, 0);
	ck_assert(lne_list_empty(&ln->udsp.rules));
	lne_inst_free(ln);
}
END_TEST

/* The lowest idx decides; deleting it restores what the survivors say (upstream does not). */
START_TEST(delete_restores_survivors)
{
	struct lne_inst *ln = lne_inst_new();
	s32 r;

	ni(ln, "10.0.0.1@tcp");
	ni(ln, "10.0.0.2@tcp");
	ck_assert_int_eq(rule(ln, "10.0.0.*@tcp", NULL, NULL, 5, -1, NULL), 0);
	ck_assert_uint_eq(ni_prio(ln, "10.0.0.1@tcp", &r), 5);
	ck_assert_int_eq(rule(ln, "10.0.0.1@tcp", NULL, NULL, 1, 0, NULL), 0);
	ck_assert_uint_eq(ni_prio(ln, "10.0.0.1@tcp", &r), 1);
	ck_assert_int_eq(r, 0);
	ck_assert_uint_eq(ni_prio(ln, "10.0.0.2@tcp", &r), 5);
	ck_assert_int_eq(r, 1);
	ck_assert_int_eq(lne_rule_del(ln, 0, NULL), 0);
	ck_assert_uint_eq(ni_prio(ln, "10.0.0.1@tcp", &r), 5);
	ck_assert_int_eq(r, 0);
	ck_assert_int_eq(lne_rule_del(ln, 0, NULL), 0);
	ck_assert_uint_eq(ni_prio(ln, "10.0.0.1@tcp", &r), LNE_PRIO_NONE);
	ck_assert_int_eq(r, -1);
	lne_inst_free(ln);
}
END_TEST

START_TEST(rules_reach_later_constructs)
{
	struct lne_inst *ln = lne_inst_new();
	struct lne_peer_ni *pni;
	u32 prio;
	const struct lne_rule *why;
	s32 r;

	ck_assert_int_eq(rule(ln, "o2ib", NULL, NULL, 0, -1, NULL), 0);
	ck_assert_int_eq(rule(ln, NULL, "o2ib", NULL, 3, -1, NULL), 0);
	ck_assert_int_eq(rule(ln, NULL, "10.1.0.[1-9]@o2ib", NULL, 2, -1, NULL), 0);
	ck_assert_int_eq(
		rule(ln, "10.1.0.200@o2ib", "10.1.0.*@o2ib", NULL, LNE_PRIO_NONE, -1, NULL), 0);
	ck_assert_int_eq(
		rule(ln, NULL, "10.2.0.*@o2ib2", "10.1.0.250@o2ib", LNE_PRIO_NONE, -1, NULL), 0);
	ni(ln, "10.1.0.200@o2ib");
	ck_assert_uint_eq(lne_net_find(ln, LNE_MKNET(LNE_LND_O2IB, 0))->prio.value, 0);
	ck_assert_uint_eq(ni_prio(ln, "10.1.0.200@o2ib", &r), LNE_PRIO_NONE);
	peer(ln, "10.1.0.5@o2ib", NULL);
	pni = lne_peer_ni_find(ln, NP("10.1.0.5@o2ib"));
	ck_assert_uint_eq(pni->prio, 2);
	ck_assert_uint_eq(pni->pnet->rnet->prio.value, 3);
	ck_assert(lne_pref_src(pni, lne_ni_find(ln, NP("10.1.0.200@o2ib")), &prio, &why));
	ck_assert_int_eq(why->idx, 3);
	/* A gateway that comes later joins the preferred routers. */
	peer(ln, "10.2.0.7@o2ib2", NULL);
	pni = lne_peer_ni_find(ln, NP("10.2.0.7@o2ib2"));
	ck_assert(!pni->prefs || !pni->prefs->ngw);
	ck_assert_int_eq(lne_route_add(ln, LNE_MKNET(LNE_LND_O2IB, 2), NP("10.1.0.250@o2ib"), 1, 0,
				       1, NULL),
			 0);
	ck_assert(lne_pref_gw(pni, lne_peer_ni_find(ln, NP("10.1.0.250@o2ib")), &prio, &why));
	ck_assert_int_eq(lne_route_del(ln, LNE_MKNET(LNE_LND_O2IB, 2), NP("10.1.0.250@o2ib"), NULL),
			 0);
	ck_assert(!pni->prefs->ngw);
	/* And a local NI that goes leaves no dangling preference. */
	ck_assert_int_eq(lne_ni_del(ln, NP("10.1.0.200@o2ib"), NULL), 0);
	pni = lne_peer_ni_find(ln, NP("10.1.0.5@o2ib"));
	ck_assert_uint_eq(pni->prefs->nsrc, 0);
	lne_inst_free(ln);
}
END_TEST

/* A rule on o2ib never visits tcp constructs. */
START_TEST(rules_visit_only_their_nets)
{
	struct lne_inst *ln = lne_inst_new();
	char buf[32];
	int i;

	for (i = 0; i < 2000; i++) {
		snprintf(buf, sizeof(buf), "10.0.%d.%d@tcp", i / 250, i % 250);
		peer(ln, buf, NULL);
	}
	peer(ln, "10.1.0.1@o2ib", "10.1.0.2@o2ib");
	ln->udsp.visits = 0;
	ck_assert_int_eq(rule(ln, NULL, "10.1.0.*@o2ib", NULL, 1, -1, NULL), 0);
	ck_assert_uint_eq(ln->udsp.visits, 2);
	ln->udsp.visits = 0;
	ck_assert_int_eq(lne_rule_del(ln, 0, NULL), 0);
	ck_assert_uint_eq(ln->udsp.visits, 2);
	lne_inst_free(ln);
}
END_TEST

START_TEST(pair_priority_orders_preferred)
{
	struct lne_inst *ln = lne_inst_new();
	struct lne_peer_ni *pni;
	const struct lne_rule *why;
	u32 prio;

	ni(ln, "10.0.0.1@tcp");
	ni(ln, "10.0.0.2@tcp");
	peer(ln, "10.0.0.100@tcp", NULL);
	ck_assert_int_eq(rule(ln, "10.0.0.1@tcp", "10.0.0.100@tcp", NULL, 4, -1, NULL), 0);
	ck_assert_int_eq(rule(ln, "10.0.0.*@tcp", "10.0.0.100@tcp", NULL, 9, -1, NULL), 0);
	pni = lne_peer_ni_find(ln, NP("10.0.0.100@tcp"));
	ck_assert(lne_pref_src(pni, lne_ni_find(ln, NP("10.0.0.1@tcp")), &prio, &why));
	ck_assert_uint_eq(prio, 4); /* rule 0 decides this couple */
	ck_assert(lne_pref_src(pni, lne_ni_find(ln, NP("10.0.0.2@tcp")), &prio, &why));
	ck_assert_uint_eq(prio, 9);
	ck_assert_int_eq(lne_rule_del(ln, 0, NULL), 0);
	ck_assert(lne_pref_src(pni, lne_ni_find(ln, NP("10.0.0.1@tcp")), &prio, &why));
	ck_assert_uint_eq(prio, 9); /* now the survivor's */
	lne_inst_free(ln);
}
END_TEST

/*
 * The property behind it all: after any sequence of changes, the
 * incrementally flattened state equals recomputing everything from scratch.
 */
static unsigned long long rng = 88172645463325252ull;
static unsigned int rnd(unsigned int n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned int)((rng >> 11) % n);
}

static int cmp_line(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The state's lines in sorted order: a copy may list objects in another order. */
static char *sorted_state(const struct lne_inst *ln)
{
	char *text = state_text(ln), *line, *save = NULL, **lines = NULL, *out;
	size_t n = 0, i, len = strlen(text);

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		lines = realloc(lines, (n + 1) * sizeof(*lines));
		ck_assert(lines);
		lines[n++] = line;
	}
	qsort(lines, n, sizeof(*lines), cmp_line);
	out = malloc(len + 2);
	ck_assert(out);
	out[0] = '\0';
	for (i = 0; i < n; i++) {
		strcat(out, lines[i]);
		strcat(out, "\n");
	}
	free(lines);
	free(text);
	return out;
}

/* A preference list's entries, in order, by target NID and rule idx. */
static bool same_list(const struct lne_pref *a, u16 na, const struct lne_pref *b, u16 nb, bool gw)
{
	u16 i;

	if (na != nb)
		return false;
	for (i = 0; i < na; i++) {
		const struct lne_nid *ta = gw ? &((const struct lne_peer_ni *)a[i].target)->nid
					      : &((const struct lne_ni *)a[i].target)->nid;
		const struct lne_nid *tb = gw ? &((const struct lne_peer_ni *)b[i].target)->nid
					      : &((const struct lne_ni *)b[i].target)->nid;

		if (!lne_nid_equal(ta, tb) || a[i].rule->idx != b[i].rule->idx)
			return false;
	}
	return true;
}

/* Every peer NI of @a has the preference lists of its equal in @b, in the same order. */
static bool same_prefs(const struct lne_inst *a, const struct lne_inst *b)
{
	const struct lne_peer_net *pnet;
	const struct lne_peer_ni *pni;
	const struct lne_peer *p;

	lne_list_for_each_entry(p, &a->peers, link)
		lne_list_for_each_entry(pnet, &p->pnets, link)
			lne_list_for_each_entry(pni, &pnet->pnis, pnet_link) {
				const struct lne_peer_ni *q = lne_peer_ni_find(b, &pni->nid);
				const struct lne_prefs none = {0}, *pa, *pb;

				if (!q)
					return false;
				pa = pni->prefs ? pni->prefs : &none;
				pb = q->prefs ? q->prefs : &none;
				if (!same_list(pa->src, pa->nsrc, pb->src, pb->nsrc, false) ||
				    !same_list(pa->gw, pa->ngw, pb->gw, pb->ngw, true))
					return false;
			}
	return true;
}

START_TEST(incremental_equals_recompute)
{
	static const char *const exprs[] = {
		"tcp",
		"tcp1",
		"o2ib*",
		"*@o2ib",
		"10.0.0.[1-3]@tcp",
		"10.0.0.*@tcp",
		"10.1.0.[2-8/2]@o2ib",
		"10.1.0.1@o2ib",
		"10.2.0.*@o2ib2",
		"*.*.*.*@tcp1",
		"10.1.1.[1-4]@tcp1",
		"10.1.0.[1-250]@o2ib",
		"2001:db8::/64@tcp",
		"10.0.0.254@tcp",
		"10.1.0.254@o2ib",
		"o2ib[1-2]",
	};
	static const char *const local[] = {"10.0.0.1@tcp",  "10.0.0.2@tcp",  "10.1.1.1@tcp1",
					    "10.1.0.1@o2ib", "10.1.0.2@o2ib", "2001:db8::1@tcp"};
	static const char *const remote[] = {"10.0.0.10@tcp",  "10.0.0.11@tcp",	  "10.1.0.10@o2ib",
					     "10.1.0.12@o2ib", "10.2.0.5@o2ib2",  "10.2.0.6@o2ib2",
					     "10.1.1.3@tcp1",  "2001:db8::9@tcp", "10.3.0.1@o2ib1"};
	static const char *const gws[] = {"10.0.0.254@tcp", "10.1.0.254@o2ib", "10.1.0.253@o2ib"};
	struct lne_inst *ln = lne_inst_new();
	int step, checked = 0;

	for (step = 0; step < unit_rounds(3000); step++) {
		const char *a = exprs[rnd(16)], *b = exprs[rnd(16)];
		char *inc, *full;

		switch (rnd(9)) {
		case 0:
		case 1: {
			int kind = (int)rnd(4);

			rule(ln,
			     kind == 0	 ? a
			     : kind == 2 ? a
					 : NULL,
			     kind == 1		      ? a
			     : kind == 2 || kind == 3 ? b
						      : NULL,
			     kind == 3 ? exprs[rnd(16)] : NULL, rnd(3) ? rnd(10) : LNE_PRIO_NONE,
			     rnd(3) ? (s64)rnd(ln->udsp.nrules + 2) : -1, NULL);
			break;
		}
		case 2:
			if (ln->udsp.nrules)
				lne_rule_del(ln, rnd(ln->udsp.nrules), NULL);
			break;
		case 3: {
			struct lne_ni_conf c = {.nid = *NP(local[rnd(6)]), .dev_cpt = LNE_CPT_ANY};

			if (lne_ni_find(ln, &c.nid))
				lne_ni_del(ln, &c.nid, NULL);
			else
				lne_ni_add(ln, &c, NULL);
			break;
		}
		case 4:
		case 5: {
			const struct lne_nid *p = NP(remote[rnd(9)]);

			if (lne_peer_find(ln, p))
				lne_peer_del(ln, p, NULL);
			else if (!lne_peer_add(ln,
					       &(struct lne_peer_conf){.primary = *p,
								       .multi_rail = true},
					       NULL) &&
				 rnd(2))
				lne_peer_add_nid(ln, p, NP(remote[rnd(9)]), NULL);
			break;
		}
		case 6: {
			lne_net_t net = LNE_MKNET(LNE_LND_O2IB, 1 + rnd(2));
			const struct lne_nid *g = NP(gws[rnd(3)]);

			if (lne_route_find(ln, net, g))
				lne_route_del(ln, net, g, NULL);
			else
				lne_route_add(ln, net, g, 1, 0, 1, NULL);
			break;
		}
		case 7:
			if (!rnd(20))
				lne_rule_del_all(ln);
			break;
		default:
			break;
		}
		if (step % 50 == 0) {
			/*
			 * A copy holds the same configuration and flattening, its
			 * preference lists in the same order; it then goes on in
			 * the original's place (the module swaps a batch's copy
			 * in), so that anything of the original it still pointed
			 * to would be used after it was freed.
			 */
			struct lne_inst *copy = lne_inst_copy(ln);
			char *orig = sorted_state(ln), *dup;

			ck_assert_ptr_nonnull(copy);
			dup = sorted_state(copy);
			if (strcmp(orig, dup))
				ck_abort_msg("step %d: copy\n%s\ndiffers from\n%s", step, dup,
					     orig);
			ck_assert_msg(same_prefs(ln, copy) && same_prefs(copy, ln),
				      "step %d: the copy's preference lists are in another order",
				      step);
			free(orig);
			free(dup);
			lne_inst_free(ln);
			ln = copy;
		}
		inc = state_text(ln);
		ck_assert_int_eq(lne_udsp_recompute_all(ln), 0);
		full = state_text(ln);
		if (strcmp(inc, full))
			ck_abort_msg("step %d: incremental\n%s\ndiffers from recomputed\n%s", step,
				     inc, full);
		checked++;
		free(inc);
		free(full);
	}
	ck_assert_int_eq(checked, unit_rounds(3000));
	lne_inst_free(ln);
}
END_TEST

/*
 * Rules naming few NIDs on a net with many peer NIs look those NIDs up
 * (each_pni in udsp-flat.c) instead of walking the net: the same property,
 * incremental equals recomputed (which walks every peer NI), with rules
 * made to take that path, and the peer NIs, local NIs and gateways they
 * meet coming and going under them.
 */
START_TEST(listed_nids_equal_brute_force)
{
	static const char *const dst[] = {
		"10.0.0.[1-3]@o2ib",
		"10.0.[0-1].[5-40/5]@o2ib",
		"10.1.1.[0-99/7]@o2ib1",
		"10.1.[0-2].9@o2ib[0-1]",
		"10.0.2.7@o2ib 10.0.2.[6-8]@o2ib",
		"10.0.*.*@o2ib",
		"10.1.0.[2-60]@o2ib",
		"*@o2ib1",
	};
	static const char *const src[] = {"10.9.0.[1-2]@o2ib", "10.9.0.*@o2ib", "10.9.1.1@o2ib1"};
	static const char *const rte[] = {"10.0.0.[1-2]@o2ib", "10.0.0.3@o2ib", "10.0.0.*@o2ib"};
	static const char *const local[] = {"10.9.0.1@o2ib", "10.9.0.2@o2ib", "10.9.1.1@o2ib1"};
	struct lne_inst *ln = lne_inst_new();
	char a[32], b[32];
	int step, i;

	for (i = 0; i < 120; i++) {
		snprintf(a, sizeof(a), "10.0.%d.%d@o2ib", i / 100, i % 100);
		snprintf(b, sizeof(b), "10.1.%d.%d@o2ib%s", i / 100, i % 100, i % 2 ? "" : "1");
		peer(ln, a, b);
	}
	ni(ln, local[0]);
	/* A NID rule on 3 of 180 peer NIs visits those 3. */
	ln->udsp.visits = 0;
	ck_assert_int_eq(rule(ln, NULL, dst[0], NULL, 1, -1, NULL), 0);
	ck_assert_uint_eq(ln->udsp.visits, 3);
	for (step = 0; step < 250; step++) {
		char *inc, *full;

		switch (rnd(8)) {
		case 0:
		case 1:
		case 2:
			switch (rnd(4)) {
			case 0:
				rule(ln, NULL, dst[rnd(8)], NULL, rnd(5), -1, NULL);
				break;
			case 1:
				rule(ln, src[rnd(3)], dst[rnd(8)], NULL,
				     rnd(2) ? rnd(5) : LNE_PRIO_NONE,
				     rnd(3) ? (s64)rnd(ln->udsp.nrules + 1) : -1, NULL);
				break;
			default:
				rule(ln, NULL, dst[rnd(8)], rte[rnd(3)],
				     rnd(2) ? rnd(5) : LNE_PRIO_NONE,
				     rnd(3) ? (s64)rnd(ln->udsp.nrules + 1) : -1, NULL);
				break;
			}
			break;
		case 3:
			if (ln->udsp.nrules)
				lne_rule_del(ln, rnd(ln->udsp.nrules), NULL);
			break;
		case 4: {
			/* A peer goes, or comes back with its second NID. */
			const struct lne_nid *p;

			i = (int)rnd(120);
			snprintf(a, sizeof(a), "10.0.%d.%d@o2ib", i / 100, i % 100);
			snprintf(b, sizeof(b), "10.1.%d.%d@o2ib%s", i / 100, i % 100,
				 i % 2 ? "" : "1");
			p = NP(a);
			if (lne_peer_find(ln, p))
				lne_peer_del(ln, p, NULL);
			else
				peer(ln, a, b);
			break;
		}
		case 5: {
			struct lne_ni_conf c = {.nid = *NP(local[rnd(3)]), .dev_cpt = LNE_CPT_ANY};

			if (lne_ni_find(ln, &c.nid))
				lne_ni_del(ln, &c.nid, NULL);
			else
				lne_ni_add(ln, &c, NULL);
			break;
		}
		case 6: {
			/* Gateways among the peer NIs come and go with their routes. */
			lne_net_t net = LNE_MKNET(LNE_LND_O2IB, 2 + rnd(2));
			const struct lne_nid *g;

			snprintf(a, sizeof(a), "10.0.0.%u@o2ib", 1 + rnd(3));
			g = NP(a);
			if (lne_route_find(ln, net, g))
				lne_route_del(ln, net, g, NULL);
			else
				lne_route_add(ln, net, g, 1, 0, 1, NULL);
			break;
		}
		default:
			break;
		}
		inc = state_text(ln);
		ck_assert_int_eq(lne_udsp_recompute_all(ln), 0);
		full = state_text(ln);
		if (strcmp(inc, full))
			ck_abort_msg("step %d: incremental\n%s\ndiffers from recomputed\n%s", step,
				     inc, full);
		free(inc);
		free(full);
	}
	lne_inst_free(ln);
}
END_TEST

Suite *make_udsp_suite(void)
{
	Suite *s = suite_create("udsp");
	TCase *tc = tcase_create("udsp");

	tcase_add_test(tc, rule_kinds);
	tcase_add_test(tc, rule_idx_insert_append_renumber);
	tcase_add_test(tc, delete_restores_survivors);
	tcase_add_test(tc, rules_reach_later_constructs);
	tcase_add_test(tc, rules_visit_only_their_nets);
	tcase_add_test(tc, pair_priority_orders_preferred);
	tcase_add_test(tc, rule_find_by_meaning);
	tcase_add_test(tc, incremental_equals_recompute);
	tcase_add_test(tc, listed_nids_equal_brute_force);
	suite_add_tcase(s, tc);
	return s;
}
