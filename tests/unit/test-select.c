// SPDX-License-Identifier: GPL-2.0
/* Selection: the conformance scenarios, and explain. */
#include <stdio.h>
#include <string.h>

#include "engine/select.h"
#include "engine/udsp.h"
#include "scn-engine.h"
#include "unit.h"

START_TEST(select_conformance)
{
	struct scn_engine se;
	struct scn_backend be;
	int checks, failed;

	scn_engine_init(&se, &be);
	failed = scn_run_file(TEST_DATA_DIR "/select-conformance.scn", &be, &checks);
	scn_engine_fini(&se);
	ck_assert_msg(failed == 0, "%d of %d conformance checks failed (see stderr)", failed,
		      checks);
	ck_assert_int_gt(checks, 20);
}
END_TEST

static struct lne_nid nid_of(const char *s)
{
	struct lne_nid nid;

	ck_assert_msg(!lne_nid_parse(s, &nid, NULL), "bad NID %s", s);
	return nid;
}

static void add_ni(struct lne_inst *ln, const char *s, s16 cpt)
{
	struct lne_ni_conf c = {.nid = nid_of(s), .dev_cpt = cpt};
	struct lne_err err;

	ck_assert_msg(!lne_ni_add(ln, &c, &err), "%s", err.msg);
}

static void add_peer(struct lne_inst *ln, const char *prim, const char *other)
{
	struct lne_nid p = nid_of(prim), o;

	ck_assert_int_eq(lne_peer_add(ln, &(struct lne_peer_conf){.primary = p, .multi_rail = true},
				      NULL),
			 0);
	if (other) {
		o = nid_of(other);
		ck_assert_int_eq(lne_peer_add_nid(ln, &p, &o, NULL), 0);
	}
}

static const struct lne_exp_entry *find_entry(const struct lne_explain *ex, u8 step,
					      const char *nid)
{
	struct lne_nid n = nid_of(nid);
	u32 i;

	for (i = 0; i < ex->n; i++)
		if (ex->ent[i].step == step && lne_nid_equal(&ex->ent[i].nid, &n))
			return &ex->ent[i];
	return NULL;
}

/* Explain names, for each candidate, the criterion it lost on and the rule behind it. */
START_TEST(explain_names_criteria_and_rules)
{
	struct lne_inst *ln = lne_inst_new();
	struct lne_exp_entry ent[32];
	struct lne_explain ex = {.ent = ent, .cap = 32};
	struct lne_sel_req req = {.md_cpt = LNE_CPT_ANY};
	const struct lne_exp_entry *e;
	struct lne_sel sel;
	struct lne_err err;

	add_ni(ln, "10.0.0.1@tcp", LNE_CPT_ANY);
	add_ni(ln, "10.0.0.2@tcp", LNE_CPT_ANY);
	add_ni(ln, "10.0.1.1@tcp1", LNE_CPT_ANY);
	add_peer(ln, "10.0.0.100@tcp", "10.0.1.100@tcp1");
	ck_assert_int_eq(lne_rule_add(ln, &(struct lne_rule_conf){.src = "tcp1", .priority = 0}, -1,
				      NULL, NULL, &err),
			 0);
	ck_assert_int_eq(lne_rule_add(ln,
				      &(struct lne_rule_conf){.src = "10.0.0.2@tcp", .priority = 5},
				      0, NULL, NULL, &err),
			 0);
	req.dst = nid_of("10.0.0.100@tcp");
	ck_assert_int_eq(lne_select(ln, &req, &sel, &ex, &err), 0);
	ck_assert(lne_nid_equal(&sel.ni->nid, &(struct lne_nid){0}) == false);

	/* tcp1 wins on local net priority (rule 1 after the insert at 0). */
	e = find_entry(&ex, LNE_STEP_LOCAL_NI, "10.0.1.1@tcp1");
	ck_assert_ptr_nonnull(e);
	ck_assert_int_eq(e->crit, LNE_CRIT_CHOSEN);
	e = find_entry(&ex, LNE_STEP_LOCAL_NI, "10.0.0.1@tcp");
	ck_assert_ptr_nonnull(e);
	ck_assert_int_eq(e->crit, LNE_CRIT_SRC_NET_PRIO);
	e = find_entry(&ex, LNE_STEP_LOCAL_NI, "10.0.1.1@tcp1");
	ck_assert_int_eq(e->key.rule[3], 1); /* the net priority came from rule 1 */
	e = find_entry(&ex, LNE_STEP_LOCAL_NI, "10.0.0.2@tcp");
	ck_assert_int_eq(e->key.rule[4], 0); /* its NI priority from rule 0 */
	e = find_entry(&ex, LNE_STEP_PEER_NI, "10.0.1.100@tcp1");
	ck_assert_ptr_nonnull(e);
	ck_assert_int_eq(e->crit, LNE_CRIT_CHOSEN);
	ck_assert_uint_eq(ex.dropped, 0);

	/* A full buffer counts what it could not hold. */
	ex.cap = 1;
	ex.n = 0;
	ck_assert_int_eq(lne_select(ln, &req, &sel, &ex, &err), 0);
	ck_assert_uint_eq(ex.n, 1);
	ck_assert_uint_gt(ex.dropped, 0);
	lne_inst_free(ln);
}
END_TEST

/* Selection with and without explain must decide the same. */
START_TEST(explain_does_not_change_the_decision)
{
	struct lne_inst *a = lne_inst_new(), *b = lne_inst_new();
	struct lne_exp_entry ent[64];
	struct lne_sel_req req = {.md_cpt = 0};
	struct lne_inst *both[2] = {a, b};
	int i, k;

	for (k = 0; k < 2; k++) {
		add_ni(both[k], "10.0.0.1@tcp", 0);
		add_ni(both[k], "10.0.0.2@tcp", 1);
		add_ni(both[k], "10.0.0.3@tcp", LNE_CPT_ANY);
		add_peer(both[k], "10.0.0.100@tcp", "10.0.0.101@tcp");
	}
	req.dst = nid_of("10.0.0.100@tcp");
	for (i = 0; i < 100; i++) {
		struct lne_explain ex = {.ent = ent, .cap = 64};
		struct lne_sel s1, s2;

		ck_assert_int_eq(lne_select(a, &req, &s1, NULL, NULL), 0);
		ck_assert_int_eq(lne_select(b, &req, &s2, &ex, NULL), 0);
		ck_assert(lne_nid_equal(&s1.ni->nid, &s2.ni->nid));
		ck_assert(lne_nid_equal(&s1.pni->nid, &s2.pni->nid));
	}
	lne_inst_free(a);
	lne_inst_free(b);
}
END_TEST

/* A non-MR peer whose kept NI no longer reaches it is given another (this failed once). */
START_TEST(non_mr_peer_moves_when_kept_ni_cannot_reach)
{
	struct lne_inst *ln = lne_inst_new();
	struct lne_sel_req req = {.md_cpt = LNE_CPT_ANY};
	struct lne_nid prim = nid_of("10.1.0.9@o2ib"), second = nid_of("10.0.0.9@tcp");
	struct lne_nid tcp_ni = nid_of("10.0.0.1@tcp"), o2ib_ni = nid_of("10.1.0.1@o2ib");
	struct lne_sel sel;
	struct lne_err err;

	add_ni(ln, "10.0.0.1@tcp", LNE_CPT_ANY);
	add_ni(ln, "10.1.0.1@o2ib", LNE_CPT_ANY);
	ck_assert_int_eq(lne_peer_add(ln,
				      &(struct lne_peer_conf){.primary = prim, .multi_rail = false},
				      NULL),
			 0);
	ck_assert_int_eq(lne_peer_add_nid(ln, &prim, &second, NULL), 0);
	ck_assert_int_eq(lne_rule_add(ln, &(struct lne_rule_conf){.src = "tcp", .priority = 0}, -1,
				      NULL, NULL, &err),
			 0);
	req.dst = prim;
	ck_assert_int_eq(lne_select(ln, &req, &sel, NULL, &err), 0);
	ck_assert(lne_nid_equal(&sel.ni->nid, &tcp_ni));
	ck_assert_int_eq(lne_peer_del_nid(ln, &prim, &second, NULL), 0);
	ck_assert_msg(!lne_select(ln, &req, &sel, NULL, &err), "%s", err.msg);
	ck_assert(lne_nid_equal(&sel.ni->nid, &o2ib_ni));
	lne_inst_free(ln);
}
END_TEST

/* A peek decides like the next selection but leaves the round robin where it was. */
START_TEST(peek_moves_no_round_robin)
{
	struct lne_inst *ln = lne_inst_new();
	struct lne_sel_req req = {.md_cpt = LNE_CPT_ANY};
	struct lne_sel a, b;
	int i;

	add_ni(ln, "10.0.0.1@tcp", LNE_CPT_ANY);
	add_ni(ln, "10.0.0.2@tcp", LNE_CPT_ANY);
	add_peer(ln, "10.0.0.100@tcp", NULL);
	req.dst = nid_of("10.0.0.100@tcp");
	for (i = 0; i < 5; i++) {
		req.peek = true;
		ck_assert_int_eq(lne_select(ln, &req, &a, NULL, NULL), 0);
		req.peek = false;
		ck_assert_int_eq(lne_select(ln, &req, &b, NULL, NULL), 0);
		ck_assert_ptr_eq(a.ni, b.ni); /* the peek foretold it */
	}
	lne_inst_free(ln);
}
END_TEST

Suite *make_select_suite(void)
{
	Suite *s = suite_create("select");
	TCase *tc = tcase_create("select");

	tcase_add_test(tc, select_conformance);
	tcase_add_test(tc, explain_names_criteria_and_rules);
	tcase_add_test(tc, explain_does_not_change_the_decision);
	tcase_add_test(tc, non_mr_peer_moves_when_kept_ni_cannot_reach);
	tcase_add_test(tc, peek_moves_no_round_robin);
	suite_add_tcase(s, tc);
	return s;
}
