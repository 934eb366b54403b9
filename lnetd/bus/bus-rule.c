// SPDX-License-Identifier: GPL-2.0
/*
 * bus-rule.c - the UDSP methods: the rules (AddRule, DeleteRule,
 * DeleteRuleMatching, DeleteAllRules, ListRules), what they gave one NI
 * (UdspInfo), and how a message would be sent (Explain); and the fields of a
 * rule that AddRule and Apply's "udsp" operations read.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

#include "bus-errors.h"
#include "bus-int.h"
#include "engine/select.h"
#include "engine/udsp.h"
#include "lnetd/backend/backend.h"
#include "lnetd/change.h"
#include "lnetd/lnetd.h"

void bus_rule_fields_init(struct rule_fields *rf)
{
	int a;

	memset(rf, 0, sizeof(*rf));
	for (a = 0; a < LNE_RULE_A__COUNT; a++)
		switch (lne_rule_desc[a].kind) {
		case LNE_RULE_K_EXPR:
			rf->expr[a] = "";
			rf->f[a] = (struct field){lne_rule_desc[a].name, 's', &rf->expr[a]};
			break;
		case LNE_RULE_K_PRIO:
			rf->f[a] = (struct field){lne_rule_desc[a].name, 'u', &rf->num[a]};
			break;
		}
	rf->f[RULE_F_IDX] = (struct field){"idx", 'u', &rf->idx};
	rf->f[RULE_F_ALL] = (struct field){"all", 'b', &rf->all};
	rf->f[RULE_F_KIND] = (struct field){"kind", 's', &rf->kind};
}

/* Each row's field into the op's field of that name: an expression as given, a number or ST_UNSET. */
#define RULE_OP(id, name, kind, ...) RULE_OP_##kind(name, LNE_RULE_A_##id)
#define RULE_OP_EXPR(name, a)	     op->u.rule.name = rf->expr[a];
#define RULE_OP_PRIO(name, a)	     op->u.rule.name = given_or_unset(&rf->f[a], rf->num[a]);

void bus_rule_fields_op(const struct rule_fields *rf, struct lnetd_op *op)
{
	LNE_RULE_ATTRS(RULE_OP)
	op->u.rule.idx = given_or_unset(&rf->f[RULE_F_IDX], rf->idx);
	op->u.rule.all = rf->all;
	op->u.rule.kind = rf->kind;
}

bool bus_rule_fields_exprs(const struct rule_fields *rf)
{
	int a;

	for (a = 0; a < LNE_RULE_A__COUNT; a++)
		if (lne_rule_desc[a].kind == LNE_RULE_K_EXPR && rf->f[a].given)
			return true;
	return false;
}

/*
 * AddRule's and DeleteRuleMatching's arguments: the three expressions (src,
 * dst, rte: the signature, kept as it was), then the options: with @rows,
 * every other row of rule-attrs.h; then idx, all and kind.
 */
static int read_rule_call(sd_bus_message *m, struct rule_fields *rf, bool rows, const char *what,
			  sd_bus_error *e)
{
	struct field opts[RULE_F__COUNT + 1];
	int a, k, n = 0, rc;

	rc = sd_bus_message_read(m, "sss", &rf->expr[LNE_RULE_A_SRC], &rf->expr[LNE_RULE_A_DST],
				 &rf->expr[LNE_RULE_A_RTE]);
	for (a = 0; a < RULE_F__COUNT; a++)
		if (a >= LNE_RULE_A__COUNT ||
		    (rows && a != LNE_RULE_A_SRC && a != LNE_RULE_A_DST && a != LNE_RULE_A_RTE))
			opts[n++] = rf->f[a];
	opts[n].name = NULL;
	if (rc >= 0)
		rc = bus_read_fields(m, opts, what, e);
	/* The values went through the copies' pointers; their given flags come back. */
	for (a = 0; a < n; a++)
		for (k = 0; k < RULE_F__COUNT; k++)
			if (rf->f[k].out == opts[a].out)
				rf->f[k].given = opts[a].given;
	return rc;
}

int bus_method_add_rule(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	struct lnetd_op op = {.verb = VERB_ADD, .obj = OBJ_UDSP};
	struct rule_fields rf;
	struct caller c;
	int rc;

	bus_rule_fields_init(&rf);
	rc = read_rule_call(m, &rf, true, "AddRule", e);
	if (rc < 0)
		return rc;
	if (rf.f[RULE_F_ALL].given)
		return bus_fail(e, -EINVAL, "AddRule: unknown field 'all'");
	bus_rule_fields_op(&rf, &op);
	rc = bus_authorise(m, &c, e);
	if (rc > 0) /* polkit is asked: the call comes back with the answer */
		return 1;
	if (rc >= 0)
		rc = bus_run(d, &c, &op, 1, false, NULL, e);
	if (rc < 0)
		return rc;
	return sd_bus_reply_method_return(m, "ubt", op.idx, op.updated, d->generation);
}

static int del_rules(sd_bus_message *m, struct lnetd *d, bool all, sd_bus_error *e)
{
	struct lnetd_op op = {.verb = VERB_DEL, .obj = OBJ_UDSP};
	uint32_t idx = 0;
	int rc = 0;

	if (!all)
		rc = sd_bus_message_read(m, "u", &idx);
	op.u.rule.idx = idx;
	op.u.rule.all = all;
	return rc < 0 ? rc : bus_change_one(m, d, &op, e);
}

/* DeleteRuleMatching(src, dst, rte, {idx}): the rule these expressions name. */
int bus_method_delete_rule_matching(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	struct lnetd_op op = {.verb = VERB_DEL, .obj = OBJ_UDSP};
	struct rule_fields rf;
	int rc;

	bus_rule_fields_init(&rf);
	rc = read_rule_call(m, &rf, false, "DeleteRuleMatching", e);
	if (rc < 0)
		return rc;
	if (rf.f[RULE_F_ALL].given || rf.f[RULE_F_KIND].given)
		return bus_fail(e, -EINVAL,
				rf.f[RULE_F_ALL].given
					? "DeleteRuleMatching: unknown field 'all'"
					: "DeleteRuleMatching: unknown field 'kind'");
	if (!*rf.expr[LNE_RULE_A_SRC] && !*rf.expr[LNE_RULE_A_DST] && !*rf.expr[LNE_RULE_A_RTE])
		return bus_fail(e, -EINVAL, "DeleteRuleMatching: a rule has a src, dst or rte");
	bus_rule_fields_op(&rf, &op);
	return bus_change_one(m, d, &op, e);
}

int bus_method_delete_rule(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	return del_rules(m, userdata, false, e);
}

int bus_method_delete_all_rules(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	return del_rules(m, userdata, true, e);
}

int bus_method_list_rules(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	struct lne_rule *r;
	int rc, a;

	rc = sd_bus_message_new_method_return(m, &reply);
	if (rc >= 0)
		rc = sd_bus_message_open_container(reply, 'a', "(usssa{sv})");
	lne_list_for_each_entry(r, &d->mirror->udsp.rules, link) {
		char *s = lnetd_expr_text(r->src), *t = lnetd_expr_text(r->dst),
		     *u = lnetd_expr_text(r->rte);

		if (rc >= 0 && (!s || !t || !u))
			rc = -ENOMEM;
		if (rc >= 0)
			rc = sd_bus_message_open_container(reply, 'r', "usssa{sv}");
		if (rc >= 0)
			rc = sd_bus_message_append(reply, "usss", r->idx, s, t, u);
		if (rc >= 0)
			rc = sd_bus_message_open_container(reply, 'a', "{sv}");
		if (rc >= 0)
			rc = sd_bus_message_append(reply, "{sv}", "kind", "s",
						   lne_rule_kind_name(r->kind));
		/* every row but the three expressions (the signature's): when it has one */
		for (a = 0; rc >= 0 && a < LNE_RULE_A__COUNT; a++)
			if (lne_rule_desc[a].kind == LNE_RULE_K_PRIO &&
			    lne_rule_num(r, a) != LNE_PRIO_NONE)
				rc = sd_bus_message_append(reply, "{sv}", lne_rule_desc[a].name,
							   "u", lne_rule_num(r, a));
		if (rc >= 0)
			rc = sd_bus_message_close_container(reply);
		if (rc >= 0)
			rc = sd_bus_message_close_container(reply);
		free(s);
		free(t);
		free(u);
	}
	if (rc >= 0)
		rc = sd_bus_message_close_container(reply);
	if (rc >= 0)
		rc = sd_bus_send(NULL, reply, NULL);
	return rc;
}

/* --- UDSP info: what the rules gave one construct ------------------------------- */

static int append_prio(sd_bus_message *r, const char *key, u32 value, const struct lne_rule *rule)
{
	char k[64];
	int rc;

	/* Lustre prints -1 for "no priority"; so does the reply. */
	rc = sd_bus_message_append(r, "{sv}", key, "x",
				   value == LNE_PRIO_NONE ? (int64_t)-1 : (int64_t)value);
	snprintf(k, sizeof(k), "%s rule", key);
	if (rc >= 0 && rule)
		rc = sd_bus_message_append(r, "{sv}", k, "u", rule->idx);
	return rc;
}

static int append_prefs(sd_bus_message *r, const char *key, const struct lne_pref *p, u16 n,
			bool gw)
{
	char nid[LNE_NID_STR_MAX];
	u16 i;
	int rc = sd_bus_message_open_container(r, 'e', "sv");

	if (rc >= 0)
		rc = sd_bus_message_append(r, "s", key);
	if (rc >= 0)
		rc = sd_bus_message_open_container(r, 'v', "as");
	if (rc >= 0)
		rc = sd_bus_message_open_container(r, 'a', "s");
	for (i = 0; rc >= 0 && i < n; i++) {
		const struct lne_nid *t = gw ? &((const struct lne_peer_ni *)p[i].target)->nid
					     : &((const struct lne_ni *)p[i].target)->nid;

		lne_nid_format(t, nid, sizeof(nid));
		rc = sd_bus_message_append(r, "s", nid);
	}
	for (i = 0; rc >= 0 && i < 3; i++)
		rc = sd_bus_message_close_container(r);
	return rc;
}

/*
 * UdspInfo(nid): the priorities the UDSP rules gave a local NI or a peer NI
 * (and its net), with the rules that decided them, and a peer NI's
 * preferred local NIDs (NID pair rules) and gateways (router rules).
 */
int bus_method_udsp_info(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	char canon[LNE_NID_STR_MAX];
	const struct lne_peer_ni *pni;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	const struct lne_ni *ni;
	const char *text;
	struct lne_nid nid;
	int rc;

	rc = sd_bus_message_read(m, "s", &text);
	if (rc >= 0)
		rc = bus_nid_arg(text, &nid, canon, e);
	if (rc < 0)
		return rc;
	ni = lne_ni_find(d->mirror, &nid);
	pni = ni ? NULL : lne_peer_ni_find(d->mirror, &nid);
	if (!ni && !pni)
		return sd_bus_error_setf(e, LNETD_ERR_NOT_FOUND,
					 "%s is neither a local NI nor a peer NI", canon);
	rc = sd_bus_message_new_method_return(m, &reply);
	if (rc >= 0)
		rc = sd_bus_message_open_container(reply, 'a', "{sv}");
	if (rc >= 0 && ni) {
		rc = sd_bus_message_append(reply, "{sv}", "kind", "s", "local NI");
		if (rc >= 0)
			rc = append_prio(reply, "net priority", ni->net->prio.value,
					 ni->net->prio.rule);
		if (rc >= 0)
			rc = append_prio(reply, "nid priority", ni->prio.value, ni->prio.rule);
	} else if (rc >= 0) {
		const struct lne_prefs *pf = pni->prefs;

		rc = sd_bus_message_append(reply, "{sv}", "kind", "s", "peer NI");
		if (rc >= 0)
			rc = append_prio(reply, "net priority", pni->pnet->rnet->prio.value,
					 pni->pnet->rnet->prio.rule);
		if (rc >= 0)
			rc = append_prio(reply, "nid priority", pni->prio, pni->prio_rule);
		if (rc >= 0)
			rc = append_prefs(reply, "preferred local NIDs", pf ? pf->src : NULL,
					  pf ? pf->nsrc : 0, false);
		if (rc >= 0)
			rc = append_prefs(reply, "preferred gateway NIDs", pf ? pf->gw : NULL,
					  pf ? pf->ngw : 0, true);
	}
	if (rc >= 0)
		rc = sd_bus_message_close_container(reply);
	if (rc >= 0)
		rc = sd_bus_send(NULL, reply, NULL);
	return rc;
}

/* --- explain ------------------------------------------------------------------ */

#define EXPLAIN_MAX 128

static const char *step_name(u8 step)
{
	return step == LNE_STEP_LOCAL_NI  ? "local NI"
	       : step == LNE_STEP_PEER_NI ? "peer NI"
					  : "gateway";
}

/* One candidate: its step, NID, verdict, and the values it was judged on. */
static int append_entry(sd_bus_message *reply, const struct lne_exp_entry *x)
{
	char nid[LNE_NID_STR_MAX], verdict[64];
	u8 i;
	int rc;

	lne_nid_format(&x->nid, nid, sizeof(nid));
	if (x->crit == LNE_CRIT_CHOSEN)
		snprintf(verdict, sizeof(verdict), "chosen");
	else
		snprintf(verdict, sizeof(verdict), "lost on %s", lne_crit_name(x->crit));
	rc = sd_bus_message_open_container(reply, 'r', "sssa{sv}");
	if (rc >= 0)
		rc = sd_bus_message_append(reply, "sss", step_name(x->step), nid, verdict);
	if (rc >= 0)
		rc = sd_bus_message_open_container(reply, 'a', "{sv}");
	for (i = 0; rc >= 0 && i < x->key.n; i++) {
		char rule_key[64];

		rc = sd_bus_message_append(reply, "{sv}", lne_crit_name(x->key.crit[i]), "x",
					   (int64_t)x->key.v[i]);
		if (rc >= 0 && x->key.rule[i] >= 0) {
			snprintf(rule_key, sizeof(rule_key), "%s rule",
				 lne_crit_name(x->key.crit[i]));
			rc = sd_bus_message_append(reply, "{sv}", rule_key, "u",
						   (uint32_t)x->key.rule[i]);
		}
	}
	if (rc >= 0)
		rc = sd_bus_message_close_container(reply);
	if (rc >= 0)
		rc = sd_bus_message_close_container(reply);
	return rc;
}

int bus_method_explain(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	struct lne_exp_entry ent[EXPLAIN_MAX];
	struct lne_explain ex = {.ent = ent, .cap = EXPLAIN_MAX};
	struct lne_err lerr = {.msg = ""};
	struct lne_nid dstnid, srcnid;
	struct bk_explain x = {.dst = &dstnid, .ex = &ex};
	const char *dst, *src;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	u32 i;
	int rc;

	rc = sd_bus_message_read(m, "ss", &dst, &src);
	if (rc < 0)
		return rc;
	rc = bus_nid_arg(dst, &dstnid, x.ni, e);
	if (rc >= 0 && *src) {
		rc = bus_nid_arg(src, &srcnid, x.ni, e);
		x.src = &srcnid;
	}
	if (rc < 0)
		return rc;
	if (!backend_ops_of(d)->explain)
		return bus_engine_cannot(d, "explain its choices", e);
	rc = backend_ops_of(d)->explain(d->backend, &x, &lerr);
	if (rc)
		return bus_fail(e,
				rc == -EHOSTUNREACH || rc == -EADDRNOTAVAIL || rc == -ENETDOWN
					? -ENOENT
					: rc,
				lerr.msg);
	rc = sd_bus_message_new_method_return(m, &reply);
	if (rc >= 0)
		rc = sd_bus_message_append(reply, "sss", x.ni, x.pni, x.gw);
	if (rc >= 0)
		rc = sd_bus_message_open_container(reply, 'a', "(sssa{sv})");
	for (i = 0; rc >= 0 && i < ex.n; i++)
		rc = append_entry(reply, &ent[i]);
	if (rc >= 0)
		rc = sd_bus_message_close_container(reply);
	if (rc >= 0)
		rc = sd_bus_send(NULL, reply, NULL);
	return rc;
}
