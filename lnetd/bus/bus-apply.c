// SPDX-License-Identifier: GPL-2.0
/*
 * bus-apply.c - the configuration as a whole: Apply and ApplyWith (a list
 * of operations, all or nothing, or a dry run), Export (the desired state as
 * Apply's operations), Status, Rollback and History.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

#include "bus-errors.h"
#include "bus-int.h"
#include "lnetd/change.h"
#include "lnetd/lnetd.h"
#include "lnetd/metrics.h"

/* Apply's: a refusal always names the operation, even in a list of one. */
static int run_numbered(struct lnetd *d, const struct caller *c, struct lnetd_op *ops, size_t n,
			bool dry, uint64_t budget_us, char **summary, sd_bus_error *e)
{
	struct lnetd_change_err err;
	char msg[sizeof(err.msg) + 64];
	int rc = lnetd_change(d, &c->who, ops, n, dry, budget_us, summary, &err);

	if (!rc)
		return 0;
	if (rc == -ETIME) /* the caller decides: ask for the right to take longer */
		return rc;
	if (n == 1 && strncmp(err.msg, "operation ", 10)) {
		snprintf(msg, sizeof(msg), "operation 1 (%s %s): %s", lnetd_verb_name(ops[0].verb),
			 lnetd_obj_name(ops[0].obj), err.msg);
		return bus_fail(e, rc, msg);
	}
	return bus_fail(e, rc, err.msg);
}
/* --- Apply: a list of operations, all or nothing ------------------------------ */

/*
 * An operation's fields as they are read (strings point into the message),
 * one slot for them all: what an operation keeps is copied into its
 * struct lnetd_op, and the string list it may own (a peer's NIDs, a TBF
 * queue's rules, said by @owns) is taken by slot_take().  A slot per
 * operation was 456 bytes each, 23 MB copied by realloc for a site import.
 */
/* Apply's global and tbf fields, by the index each is read into. */
enum {
	GLOBAL_F_NAME,
	GLOBAL_F_VALUE,
	GLOBAL_F__COUNT
};
enum {
	TBF_F_SERVICE,
	TBF_F_QUEUE,
	TBF_F_TYPE,
	TBF_F_DEPTH,
	TBF_F_RULES,
	TBF_F_COMMAND,
	TBF_F__COUNT
};

struct apply_slot {
	enum {
		OWNS_NOTHING,
		OWNS_NIDS,
		OWNS_RULES
	} owns;
	union {
		struct ni_fields ni;
		struct route_fields route;
		struct rule_fields rule;
		struct peer_fields peer;
		struct {
			const char *name;
			uint32_t value;
			struct field f[GLOBAL_F__COUNT + 1];
		} global;
		struct {
			const char *service, *queue, *type, *command;
			uint32_t depth;
			char **rules;
			struct field f[TBF_F__COUNT + 1];
		} tbf;
	} u;
};

static bool need(const struct field *f, const char *what, sd_bus_error *e)
{
	if (f->given)
		return true;
	sd_bus_error_setf(e, LNETD_ERR_INVALID, "%s: field '%s' is required", what, f->name);
	return false;
}

static const char *const no_rules[] = {NULL};

/*
 * "operation N (VERB OBJ)", the name refusals give an operation, as
 * snprintf()'s "operation %zu (%.32s %.32s)" would print it, but written
 * by hand: a site import names 50,000 operations that are never refused.
 */
static void op_what(char *what, size_t i, const char *verb, const char *obj)
{
	char num[24], *d = num + sizeof(num);
	size_t nv = strnlen(verb, 32), no = strnlen(obj, 32);

	do
		*--d = (char)('0' + i % 10);
	while (i /= 10);
	what = stpcpy(what, "operation ");
	what = mempcpy(what, d, (size_t)(num + sizeof(num) - d));
	what = mempcpy(what, " (", 2);
	what = mempcpy(what, verb, nv);
	*what++ = ' ';
	what = mempcpy(what, obj, no);
	strcpy(what, ")");
}

/* The string list @slot's operation owns, for the caller to free. */
static char **slot_take(struct apply_slot *slot)
{
	char **v = slot->owns == OWNS_NIDS    ? slot->u.peer.nids
		   : slot->owns == OWNS_RULES ? slot->u.tbf.rules
					      : NULL;

	slot->owns = OWNS_NOTHING;
	return v;
}

/*
 * One (verb, object, fields) into @op; a list that needs freeing stays in
 * @slot.  Both are set before anything can fail, so the caller takes the
 * list of every operation it read, refused or not.
 */
static int apply_read_op(sd_bus_message *m, size_t i, struct lnetd_op *op, struct apply_slot *slot,
			 sd_bus_error *e)
{
	const char *verb, *obj;
	char what[112]; /* op_what() */
	int rc, v, o;

	memset(slot, 0, sizeof(*slot));
	*op = (struct lnetd_op){.ensure = true};
	rc = sd_bus_message_read_basic(m, 's', &verb);
	if (rc >= 0)
		rc = sd_bus_message_read_basic(m, 's', &obj);
	if (rc < 0)
		return rc;
	v = lnetd_verb_lookup(verb);
	o = lnetd_obj_lookup(obj);
	op_what(what, i + 1, verb, obj);
	if (v < 0 || o < 0 || (o == OBJ_GLOBAL && v != VERB_SET) ||
	    (o != OBJ_GLOBAL && o != OBJ_TBF && o != OBJ_PEER && v == VERB_SET))
		return sd_bus_error_setf(e, LNETD_ERR_INVALID,
					 "%s: not an operation (add or del of net, peer, route "
					 "or udsp; set of global or peer; set, add or del of tbf)",
					 what);
	op->verb = v;
	op->obj = o;
	switch (o) {
	case OBJ_NET:
		bus_ni_fields_init(&slot->u.ni);
		rc = bus_read_fields(m, slot->u.ni.f, what, e);
		if (rc >= 0 && !need(&slot->u.ni.f[NI_F_NET], what, e))
			rc = -EINVAL;
		if (rc >= 0 && v == VERB_ADD && !slot->u.ni.f[NI_F_INTERFACE].given &&
		    !slot->u.ni.f[NI_F_PATTERN].given)
			rc = sd_bus_error_setf(e, LNETD_ERR_INVALID,
					       "%s: an NI needs 'interface' or 'pattern'", what);
		bus_ni_fields_op(&slot->u.ni, op);
		break;
	case OBJ_PEER:
		bus_peer_fields_init(&slot->u.peer);
		slot->owns = OWNS_NIDS;
		rc = bus_read_fields(m, slot->u.peer.f, what, e);
		if (rc >= 0 && !need(&slot->u.peer.f[PEER_F_PRIMARY], what, e))
			rc = -EINVAL;
		bus_peer_fields_op(&slot->u.peer, op);
		break;
	case OBJ_ROUTE:
		bus_route_fields_init(&slot->u.route);
		rc = bus_read_fields(m, slot->u.route.f, what, e);
		if (rc >= 0 && (!need(&slot->u.route.f[ROUTE_F_NET], what, e) ||
				!need(&slot->u.route.f[ROUTE_F_GATEWAY], what, e)))
			rc = -EINVAL;
		bus_route_fields_op(&slot->u.route, op);
		break;
	case OBJ_GLOBAL:
		slot->u.global.f[GLOBAL_F_NAME] = (struct field){"name", 's', &slot->u.global.name};
		slot->u.global.f[GLOBAL_F_VALUE] =
			(struct field){"value", 'u', &slot->u.global.value};
		rc = bus_read_fields(m, slot->u.global.f, what, e);
		if (rc >= 0 && (!need(&slot->u.global.f[GLOBAL_F_NAME], what, e) ||
				!need(&slot->u.global.f[GLOBAL_F_VALUE], what, e)))
			rc = -EINVAL;
		op->u.global.name = slot->u.global.name;
		op->u.global.value = slot->u.global.value;
		break;
	case OBJ_UDSP:
		bus_rule_fields_init(&slot->u.rule);
		rc = bus_read_fields(m, slot->u.rule.f, what, e);
		if (rc >= 0 && v == VERB_DEL && !slot->u.rule.f[RULE_F_IDX].given &&
		    !slot->u.rule.all && !bus_rule_fields_exprs(&slot->u.rule))
			rc = sd_bus_error_setf(e, LNETD_ERR_INVALID,
					       "%s: say which rule ('idx', its 'src', 'dst' and "
					       "'rte') or 'all'",
					       what);
		if (rc >= 0 && v == VERB_ADD && slot->u.rule.f[RULE_F_ALL].given)
			rc = sd_bus_error_setf(e, LNETD_ERR_INVALID,
					       "%s: 'all' is for deleting rules", what);
		if (rc >= 0 && v == VERB_DEL && slot->u.rule.all &&
		    (bus_rule_fields_exprs(&slot->u.rule) || slot->u.rule.f[RULE_F_IDX].given))
			rc = sd_bus_error_setf(e, LNETD_ERR_INVALID,
					       "%s: 'all' deletes every rule: it takes no "
					       "src, dst, rte or idx",
					       what);
		if (rc >= 0 && v == VERB_DEL && slot->u.rule.f[RULE_F_KIND].given)
			rc = sd_bus_error_setf(e, LNETD_ERR_INVALID,
					       "%s: 'kind' is for adding rules", what);
		bus_rule_fields_op(&slot->u.rule, op);
		break;
	case OBJ_TBF:
		slot->u.tbf.f[TBF_F_SERVICE] = (struct field){"service", 's', &slot->u.tbf.service};
		slot->u.tbf.f[TBF_F_QUEUE] = (struct field){"queue", 's', &slot->u.tbf.queue};
		slot->u.tbf.f[TBF_F_TYPE] = (struct field){"type", 's', &slot->u.tbf.type};
		slot->u.tbf.f[TBF_F_DEPTH] = (struct field){"depth", 'u', &slot->u.tbf.depth};
		slot->u.tbf.f[TBF_F_RULES] =
			(struct field){"rules", 'a', &slot->u.tbf.rules, .max = LNETD_TBF_LIST_MAX};
		slot->owns = OWNS_RULES;
		slot->u.tbf.f[TBF_F_COMMAND] = (struct field){"command", 's', &slot->u.tbf.command};
		rc = bus_read_fields(m, slot->u.tbf.f, what, e);
		if (rc >= 0 && !need(&slot->u.tbf.f[TBF_F_SERVICE], what, e))
			rc = -EINVAL;
		if (rc >= 0 && v == VERB_ADD && !need(&slot->u.tbf.f[TBF_F_COMMAND], what, e))
			rc = -EINVAL;
		if (rc >= 0 && v != VERB_ADD && slot->u.tbf.f[TBF_F_COMMAND].given)
			rc = sd_bus_error_setf(e, LNETD_ERR_INVALID,
					       "%s: 'command' is for adding a rule command", what);
		op->u.tbf = (struct lnetd_tbf_op){
			.service = slot->u.tbf.service,
			.queue = slot->u.tbf.queue,
			.type = slot->u.tbf.type,
			.depth = given_or_unset(&slot->u.tbf.f[TBF_F_DEPTH], slot->u.tbf.depth),
			.rules = slot->u.tbf.f[TBF_F_RULES].given
					 ? (const char *const *)slot->u.tbf.rules
					 : NULL,
			.command = slot->u.tbf.command};
		for (op->u.tbf.nrules = 0; slot->u.tbf.rules && slot->u.tbf.rules[op->u.tbf.nrules];
		     op->u.tbf.nrules++)
			;
		if (slot->u.tbf.f[TBF_F_RULES].given && !slot->u.tbf.rules)
			op->u.tbf.rules = no_rules; /* an empty list: no rule but default */
		break;
	}
	return rc;
}

/* Lines of @text as "as"; @text is cut at each newline on the way. */
static int append_lines(sd_bus_message *reply, char *text)
{
	char *p = text, *nl;
	int rc = sd_bus_message_open_container(reply, 'a', "s");

	while (rc >= 0 && p && *p) {
		nl = strchrnul(p, '\n');
		if (*nl)
			*nl++ = '\0';
		rc = sd_bus_message_append_basic(reply, 's', p);
		p = nl;
	}
	if (rc >= 0)
		rc = sd_bus_message_close_container(reply);
	return rc;
}

/* Operations and the strings they list: what a dry run's bound counts. */
static size_t op_items(const struct lnetd_op *op)
{
	return 1 + (op->obj == OBJ_PEER ? op->u.peer.n : op->obj == OBJ_TBF ? op->u.tbf.nrules : 0);
}

/*
 * ApplyWith's if_empty: nothing is applied unless the configuration was never
 * changed (generation 0; one emptied by changes is not, so what an admin
 * deleted is not brought back), said by the reply's one note.  Checked in the
 * same dispatch as the change, so no other change comes between.
 */
static bool if_empty_skip(const struct lnetd *d, bool if_empty, char **summary)
{
	if (!if_empty || d->generation == 0)
		return false;
	if (asprintf(summary,
		     "!not empty: the configuration is at generation %llu; nothing was applied",
		     (unsigned long long)d->generation) < 0)
		*summary = NULL;
	return true;
}

/* Apply(ops, dry_run) and ApplyWith(ops, {dry_run, exclusive, generation, if_empty}). */
static int apply_ops(sd_bus_message *m, struct lnetd *d, bool with, sd_bus_error *e)
{
	struct apply_slot slot;
	struct lnetd_op *ops = NULL;
	char ***owned = NULL; /* each operation's string list, or NULL */
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	char *summary = NULL;
	size_t n = 0, cap = 0, i, items = 0;
	bool authorised, skip;
	struct caller c;
	int rc, dry = 0, exclusive = 0, if_empty = 0;
	uint64_t at = 0;

	rc = sd_bus_message_enter_container(m, 'a', "(ssa{sv})");
	while (rc >= 0 && (rc = sd_bus_message_enter_container(m, 'r', "ssa{sv}")) > 0) {
		if (n == LNETD_APPLY_OPS_MAX) {
			rc = sd_bus_error_setf(e, LNETD_ERR_LIMIT,
					       "more than %u operations in one call; split the "
					       "change",
					       LNETD_APPLY_OPS_MAX);
			break;
		}
		if (n == cap) {
			size_t ncap = cap ? 2 * cap : 64;
			struct lnetd_op *o = realloc(ops, ncap * sizeof(*o));
			char ***ow = o ? realloc(owned, ncap * sizeof(*ow)) : NULL;

			if (o)
				ops = o;
			if (!o || !ow) {
				rc = bus_fail(e, -ENOMEM, "out of memory");
				break;
			}
			owned = ow;
			cap = ncap;
		}
		/* Counted once read, refused or not: its list is freed below. */
		rc = apply_read_op(m, n, &ops[n], &slot, e);
		owned[n] = slot_take(&slot);
		items += op_items(&ops[n]);
		n++;
		/* bus_bounds_filter()'s bound, for the call it leaves to this reader. */
		if (rc >= 0 && items > LNETD_ITEMS_MAX)
			rc = sd_bus_error_setf(e, LNETD_ERR_LIMIT,
					       "the call holds more than %u values; split it",
					       LNETD_ITEMS_MAX);
		if (rc >= 0)
			rc = sd_bus_message_exit_container(m);
	}
	if (rc >= 0)
		rc = sd_bus_message_exit_container(m);
	if (rc >= 0 && with) {
		enum {
			W_DRY_RUN,
			W_EXCLUSIVE,
			W_GENERATION,
			W_IF_EMPTY,
			W__COUNT
		};
		struct field f[W__COUNT + 1] = {
			[W_DRY_RUN] = {"dry_run", 'b', &dry},
			[W_EXCLUSIVE] = {"exclusive", 'b', &exclusive},
			[W_GENERATION] = {"generation", 't', &at},
			[W_IF_EMPTY] = {"if_empty", 'b', &if_empty},
		};

		rc = bus_read_fields(m, f, "ApplyWith", e);
		/*
		 * Only at that generation: a list computed from an Export (import
		 * --replace) is refused once the configuration moved on since.
		 */
		if (rc >= 0 && f[W_GENERATION].given && at != d->generation)
			rc = sd_bus_error_setf(e, LNETD_ERR_BUSY,
					       "the configuration is at generation %llu, not %llu: "
					       "it changed meanwhile; nothing was done",
					       (unsigned long long)d->generation,
					       (unsigned long long)at);
	} else if (rc >= 0) {
		rc = sd_bus_message_read(m, "b", &dry);
	}
	if (rc > 0) /* the reads' "got one": from here 0 is "go on", 1 "asking polkit" */
		rc = 0;
	/* Exclusive: what exists already, or is not there to delete, is refused. */
	for (i = 0; rc >= 0 && exclusive && i < n; i++)
		ops[i].ensure = false;
	/*
	 * A dry run changes nothing: anyone may ask what a change would do, up
	 * to a size and a time; a larger or longer one needs the right to
	 * change, as a change does (and comes back here with polkit's answer).
	 */
	authorised = rc >= 0 && (!dry || items > LNETD_DRY_ITEMS_UNPRIV || bus_polkit_asked(m));
	if (authorised)
		rc = bus_authorise(m, &c, e);
	else if (rc >= 0)
		c = (struct caller){.who = {.uid = 0, .command = ""}};
	skip = rc >= 0 && if_empty_skip(d, if_empty, &summary);
	if (rc == 0 && !authorised && !skip) {
		rc = run_numbered(d, &c, ops, n, dry, LNETD_UNPRIV_BUDGET_US, &summary, e);
		if (rc == -ETIME) {
			rc = bus_authorise(m, &c, e);
			authorised = true;
		}
	}
	if (rc < 0 && dry && sd_bus_error_has_name(e, SD_BUS_ERROR_ACCESS_DENIED)) {
		char why[512];

		snprintf(why, sizeof(why),
			 "a dry run of more than %u operations and listed NIDs or rules (this "
			 "one: %zu), or one that takes lnetd more than %u ms, needs the right to "
			 "change: %s",
			 LNETD_DRY_ITEMS_UNPRIV, items, LNETD_UNPRIV_BUDGET_US / 1000, e->message);
		sd_bus_error_free(e);
		rc = sd_bus_error_set(e, SD_BUS_ERROR_ACCESS_DENIED, why);
	}
	if (rc == 0 && authorised && !skip)
		rc = run_numbered(d, &c, ops, n, dry, 0, &summary, e);
	if (rc == 0)
		rc = sd_bus_message_new_method_return(m, &reply);
	if (rc >= 0 && reply)
		rc = sd_bus_message_append(reply, "t", d->generation);
	if (rc >= 0 && reply)
		rc = append_lines(reply, summary);
	if (rc >= 0 && reply)
		rc = sd_bus_send(NULL, reply, NULL);
	for (i = 0; i < n; i++)
		bus_strv_free(owned[i]);
	free(summary);
	free(owned);
	free(ops);
	/* rc > 0: polkit is asked, and the call comes back with the answer. */
	return rc > 0 ? 1 : rc;
}

int bus_method_apply(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	return apply_ops(m, userdata, false, e);
}

int bus_method_apply_with(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	return apply_ops(m, userdata, true, e);
}

/* --- Export: the desired state as Apply's operations ----------------------------- */

static int op_open(sd_bus_message *r, const char *verb, const char *obj)
{
	int rc = sd_bus_message_open_container(r, 'r', "ssa{sv}");

	if (rc >= 0)
		rc = sd_bus_message_append_basic(r, 's', verb);
	if (rc >= 0)
		rc = sd_bus_message_append_basic(r, 's', obj);
	if (rc >= 0)
		rc = sd_bus_message_open_container(r, 'a', "{sv}");
	return rc;
}

static int op_close(sd_bus_message *r)
{
	int rc = sd_bus_message_close_container(r);

	return rc >= 0 ? sd_bus_message_close_container(r) : rc;
}

static int put_s(sd_bus_message *r, const char *k, const char *v)
{
	return v ? bus_put_basic(r, k, 's', v) : 0;
}

static int put_u(sd_bus_message *r, const char *k, int64_t v)
{
	uint32_t u = (uint32_t)v;

	return v != ST_UNSET ? bus_put_basic(r, k, 'u', &u) : 0;
}

/* A stored TBF policy's queue as "set tbf": its rules without their queue prefix. */
static int export_tbf(sd_bus_message *r, const struct st_tbf *t, bool reg)
{
	const char *prefix = reg ? "reg " : "hp ", *p = t->rules ?: "", *nl;
	size_t plen = strlen(prefix);
	int rc = op_open(r, "set", "tbf");

	if (rc >= 0)
		rc = sd_bus_message_append(r, "{sv}{sv}{sv}{sv}", "service", "s", t->service,
					   "queue", "s", reg ? "reg" : "hp", "type", "s",
					   reg ? t->reg_type : t->hp_type, "depth", "u",
					   (uint32_t)(reg ? t->reg_depth : t->hp_depth));
	if (rc >= 0)
		rc = sd_bus_message_open_container(r, 'e', "sv");
	if (rc >= 0)
		rc = sd_bus_message_append(r, "s", "rules");
	if (rc >= 0)
		rc = sd_bus_message_open_container(r, 'v', "as");
	if (rc >= 0)
		rc = sd_bus_message_open_container(r, 'a', "s");
	for (; rc >= 0 && *p; p = *nl ? nl + 1 : nl) {
		nl = strchrnul(p, '\n');
		if ((size_t)(nl - p) > plen && !strncmp(p, prefix, plen)) {
			char *line = strndup(p + plen, (size_t)(nl - p) - plen);

			rc = line ? sd_bus_message_append(r, "s", line) : -ENOMEM;
			free(line);
		}
	}
	if (rc >= 0)
		rc = sd_bus_message_close_container(r);
	if (rc >= 0)
		rc = sd_bus_message_close_container(r);
	if (rc >= 0)
		rc = sd_bus_message_close_container(r);
	return rc >= 0 ? op_close(r) : rc;
}

static int export_state(sd_bus_message *r, const struct st_state *st)
{
	size_t i, k;
	int rc = sd_bus_message_open_container(r, 'a', "(ssa{sv})");

	for (i = 0; rc >= 0 && i < st->n_ni; i++) {
		const struct st_ni *n = &st->ni[i];

		rc = op_open(r, "add", "net");
		if (rc >= 0)
			rc = put_s(r, "net", n->net);
		if (rc >= 0)
			rc = put_s(r, "interface", n->ifname);
		if (rc >= 0)
			rc = put_s(r, "pattern", n->pattern);
		if (rc >= 0)
			rc = put_s(r, "cpts", n->cpts);
		for (k = 0; rc >= 0 && k < LNE_TUN__COUNT; k++)
			rc = put_u(r, lne_tun_desc[k].name, n->tun[k]);
		if (rc >= 0)
			rc = op_close(r);
	}
	for (i = 0; rc >= 0 && i < st->n_peer; i++) {
		const struct st_peer *p = &st->peer[i];
		const int set[LNE_PEER_A__COUNT] = {
			[LNE_PEER_A_MULTI_RAIL] = p->mr, [LNE_PEER_A_LOCK_PRIM] = p->locked};

		rc = op_open(r, "add", "peer");
		if (rc >= 0)
			rc = put_s(r, "primary", p->nid);
		/* Lustre's YAML keys always; lnetd's own when they are not the default */
		for (k = 0; rc >= 0 && k < LNE_PEER_A__COUNT; k++)
			if (lne_peer_desc[k].yaml[0] || (u32)set[k] != lne_peer_desc[k].def)
				rc = bus_put_basic(r, lne_peer_desc[k].name, 'b', &set[k]);
		if (rc >= 0)
			rc = sd_bus_message_open_container(r, 'e', "sv");
		if (rc >= 0)
			rc = sd_bus_message_append_basic(r, 's', "nids");
		if (rc >= 0)
			rc = sd_bus_message_open_container(r, 'v', "as");
		if (rc >= 0)
			rc = sd_bus_message_open_container(r, 'a', "s");
		for (k = 0; rc >= 0 && k < p->nnids; k++)
			rc = sd_bus_message_append_basic(r, 's', p->nids[k]);
		for (k = 0; rc >= 0 && k < 3; k++)
			rc = sd_bus_message_close_container(r);
		if (rc >= 0)
			rc = op_close(r);
	}
	for (i = 0; rc >= 0 && i < st->n_route; i++) {
		const struct st_route *rt = &st->route[i];

		rc = op_open(r, "add", "route");
		if (rc >= 0)
			rc = sd_bus_message_append(r, "{sv}{sv}", "net", "s", rt->net, "gateway",
						   "s", rt->gateway);
		for (k = 0; rc >= 0 && k < LNE_ROUTE_A__COUNT; k++)
			rc = put_u(r, lne_route_desc[k].name, rt->v[k]);
		if (rc >= 0)
			rc = op_close(r);
	}
	for (i = 0; rc >= 0 && i < st->n_rule; i++) {
		const struct st_rule *u = &st->rule[i];

		rc = op_open(r, "add", "udsp");
		if (rc >= 0)
			rc = put_s(r, "src", u->src);
		if (rc >= 0)
			rc = put_s(r, "dst", u->dst);
		if (rc >= 0)
			rc = put_s(r, "rte", u->rte);
		if (rc >= 0)
			rc = put_u(r, "priority", u->priority);
		if (rc >= 0)
			rc = put_u(r, "idx", u->pos);
		if (rc >= 0)
			rc = op_close(r);
	}
	for (i = 0; rc >= 0 && i < st->n_tbf; i++)
		for (k = 0; rc >= 0 && k < 2; k++)
			rc = export_tbf(r, &st->tbf[i], k == 0);
	for (i = 0; rc >= 0 && i < st->n_global; i++) {
		rc = op_open(r, "set", "global");
		if (rc >= 0)
			rc = sd_bus_message_append(r, "{sv}{sv}", "name", "s", st->global[i].name,
						   "value", "u", (uint32_t)st->global[i].value);
		if (rc >= 0)
			rc = op_close(r);
	}
	if (rc >= 0)
		rc = sd_bus_message_close_container(r);
	return rc;
}

int bus_method_export(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	struct st_state st = {0};
	int rc;

	rc = store_state_get(d->store, &st);
	if (rc)
		return bus_fail(e, -EIO, "the store cannot be read");
	rc = sd_bus_message_new_method_return(m, &reply);
	if (rc >= 0)
		rc = sd_bus_message_append(reply, "t", d->generation);
	if (rc >= 0)
		rc = export_state(reply, &st);
	if (rc >= 0)
		rc = sd_bus_send(NULL, reply, NULL);
	st_state_clear(&st);
	return rc;
}

/* --- Status: what is configured, what is realised, and why not ----------------- */

static int append_pending(void *arg, const char *kind, const char *object, const char *reason)
{
	return sd_bus_message_append(arg, "(sss)", kind, object, reason);
}

int bus_method_status(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	struct lnetd_status st;
	int rc, k;

	if (lnetd_status_read(d, &st))
		return bus_fail(e, -EIO, "the store cannot be read");
	rc = sd_bus_message_new_method_return(m, &reply);
	if (rc >= 0)
		rc = sd_bus_message_append(reply, "ts", d->generation, d->engine);
	if (rc >= 0)
		rc = sd_bus_message_open_container(reply, 'a', "(suu)");
	for (k = 0; rc >= 0 && k < LNETD_KINDS; k++)
		rc = sd_bus_message_append(reply, "(suu)", st.kind[k], st.configured[k],
					   st.applied[k]);
	if (rc >= 0)
		rc = sd_bus_message_close_container(reply);
	if (rc >= 0)
		rc = sd_bus_message_open_container(reply, 'a', "(sss)");
	if (rc >= 0)
		rc = lnetd_pending_each(d, &st, append_pending, reply);
	if (rc >= 0)
		rc = sd_bus_message_close_container(reply);
	if (rc >= 0)
		rc = sd_bus_send(NULL, reply, NULL);
	return rc;
}

/* --- Rollback ------------------------------------------------------------------- */

int bus_method_rollback(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	struct lnetd_change_err err;
	struct caller c;
	uint64_t gen;
	int rc;

	rc = sd_bus_message_read(m, "t", &gen);
	if (rc >= 0)
		rc = bus_authorise(m, &c, e);
	if (rc != 0) /* refused, or polkit is asked and the call comes back */
		return rc;
	rc = lnetd_rollback(d, &c.who, gen, &err);
	if (rc)
		return bus_fail(e, rc, err.msg);
	return bus_reply_generation(m, d);
}

struct hist_out {
	sd_bus_message *reply;
	size_t bytes;
	int rc;
};

static int add_hist(const struct st_hist *h, void *data)
{
	struct hist_out *o = data;

	/* The newest entries that fit: a reply stays well inside a bus message. */
	o->bytes +=
		64 + (h->command ? strlen(h->command) : 0) + (h->summary ? strlen(h->summary) : 0);
	if (o->bytes > LNETD_HISTORY_BYTES_MAX)
		return 1;
	o->rc = sd_bus_message_append(o->reply, "(txuuss)", (uint64_t)h->gen, (int64_t)h->time,
				      (uint32_t)h->uid, (uint32_t)h->pid, h->command ?: "",
				      h->summary ?: "");
	return o->rc < 0 ? o->rc : 0;
}

int bus_method_history(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	struct hist_out o = {0};
	uint32_t limit;
	int rc;

	rc = sd_bus_message_read(m, "u", &limit);
	if (rc < 0)
		return rc;
	if (!limit || limit > LNETD_HISTORY_MAX)
		limit = LNETD_HISTORY_MAX;
	rc = sd_bus_message_new_method_return(m, &o.reply);
	if (rc >= 0)
		rc = sd_bus_message_open_container(o.reply, 'a', "(txuuss)");
	if (rc >= 0) {
		rc = store_history_list(d->store, limit, add_hist, &o);
		if (rc > 0) /* stopped at the size bound */
			rc = 0;
	}
	if (rc >= 0)
		rc = sd_bus_message_close_container(o.reply);
	if (rc >= 0)
		rc = sd_bus_send(NULL, o.reply, NULL);
	sd_bus_message_unref(o.reply);
	return rc;
}
