/* SPDX-License-Identifier: GPL-2.0 */
/*
 * change.h - every change to the desired configuration goes through here,
 * whichever D-Bus method asked for it: one AddPeer is a list of one
 * operation, an Apply (lnetctl import) a list of thousands.
 *
 * A list runs in one store transaction.  Each operation is judged by the
 * engine mirror (the module's own code) and written to the store; if any is
 * refused, or the list is a dry run, the transaction is rolled back and the
 * mirror rebuilt from the store, so nothing of the list remains.  A dry
 * run's peers are not written at all, only listed (store_begin_dry()).  Otherwise
 * the list is committed as one history entry (one generation).  An
 * operation flagged @ensure finds its object already there exactly as given
 * and does nothing (re-importing a file changes nothing); a list that
 * changes nothing leaves the generation alone.
 *
 * Strings in an operation are the caller's and are parsed here (NIDs, nets,
 * expressions); the store gets canonical text.
 */
#ifndef LNETD_CHANGE_H
#define LNETD_CHANGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/peer-attrs.h"
#include "lnetd.h"
#include "nrs.h"

enum lnetd_obj {
	OBJ_NET,
	OBJ_PEER,
	OBJ_ROUTE,
	OBJ_GLOBAL,
	OBJ_UDSP,
	OBJ_TBF,
	OBJ__COUNT
};
enum lnetd_verb {
	VERB_ADD,
	VERB_DEL,
	VERB_SET,
	VERB__COUNT
};

struct lnetd_op {
	enum lnetd_verb verb;
	enum lnetd_obj obj;
	bool ensure;
	union {
		/* add: net + ifname and/or pattern; del: net, and ifname or pattern or neither
		 * (every NI of the net) */
		struct st_ni ni;
		struct {
			const char *primary;
			const char *const *nids; /* add: NIDs to add; del: to delete (none: all) */
			size_t n;
			/*
			 * add: each setting of engine/peer-attrs.h 0, 1, or -1: not
			 * said, a new peer gets the table's default and an existing
			 * one keeps its own (lock_prim: 1 locks the primary NID; 0
			 * and -1 leave it as it is)
			 */
			LNE_PEER_FIELDS(int);
			bool force; /* del: a locked peer goes too (else it keeps its primary) */
		} peer;
		struct st_route route; /* hops, priority, sensitivity: ST_UNSET for defaults */
		struct {
			const char *name;
			uint32_t value;
		} global;
		struct {
			/* add: the fields of engine/rule-attrs.h's rows (an expression NULL
			 * or "" when absent, the priority ST_UNSET for none); del: the
			 * expressions name the rule */
			LNE_RULE_ATTRS(ST_RULE_FIELD)
			int64_t idx;	  /* add: where (ST_UNSET: last); del: which (or with the
				      * expressions, which they must name) */
			bool all;	  /* del: every rule */
			const char *kind; /* add: the kind the rule must be ("local net
					   * priority"...), or NULL */
		} rule;
		/* set: a queue's type, depth, perhaps its whole rule list; add: one rule
		 * command; del: the service's policy */
		struct lnetd_tbf_op tbf;
	} u;
	/* Out, for rule adds: where the rule is, and whether it was there already. */
	uint32_t idx;
	bool updated;
};

struct lnetd_change_err {
	int rc;	      /* negative errno: -EINVAL, -ENOENT, -EEXIST, -ERANGE, -EBUSY, -EIO... */
	size_t index; /* the operation refused */
	char msg[640];
};

const char *lnetd_obj_name(enum lnetd_obj obj);

/*
 * The peer an add @op makes: @primary, and each setting as the op gives it,
 * else the table's default (engine/peer-attrs.h).
 */
static inline void lnetd_peer_conf(const struct lnetd_op *op, const struct lne_nid *primary,
				   struct lne_peer_conf *pc)
{
	int k;

	pc->primary = *primary;
	for (k = 0; k < LNE_PEER_A__COUNT; k++)
		pc->v[k] = op->u.peer.v[k] < 0 ? lne_peer_desc[k].def : (u32) !!op->u.peer.v[k];
} /* "net", "peer", ... */
const char *lnetd_verb_name(enum lnetd_verb verb); /* "add", "del", "set" */
int lnetd_obj_lookup(const char *name);		   /* or -1 */
int lnetd_verb_lookup(const char *name);	   /* or -1 */

/*
 * Run @ops (n of them) as one change.  Returns 0 (d->generation is the new
 * generation, unchanged if nothing changed; with @dry nothing is kept) or a
 * negative errno with @err filled.  *@summary, if @summary is not NULL, gets
 * what changed (or, with @dry, would have), one line per change ("+peer
 * 10.0.0.1@tcp"), malloc'd; NULL on failure.  A non-zero @budget_us
 * bounds the judging (microseconds from the call): an operation that would
 * start after it is spent is not run, and the change ends in -ETIME,
 * nothing kept.
 */
int lnetd_change(struct lnetd *d, const struct st_who *who, struct lnetd_op *ops, size_t n,
		 bool dry, uint64_t budget_us, char **summary, struct lnetd_change_err *err);

/* Undo every change after generation @gen, as one new change. */
int lnetd_rollback(struct lnetd *d, const struct st_who *who, uint64_t gen,
		   struct lnetd_change_err *err);

/*
 * One operation of a change (change-ops.c), in the store transaction
 * lnetd_change() holds open: judged by the mirror, then written to the
 * store.  0, or a negative errno with the sentence in @msg (@len bytes).
 */
int lnetd_op_run(struct lnetd *d, struct lnetd_op *op, char *msg, size_t len);

/*
 * Where NIs go (nis-order.c): d->nis is in the order they were first added.
 * An NI that the change in progress deleted and adds again (net set, an
 * import --replace that changes it) goes back to its place and its store
 * row; another after every NI.  lnetd_ni_place() gives @n its id and
 * returns its index in d->nis; lnetd_nis_gone() notes @n before its delete
 * (0 or -ENOMEM); lnetd_nis_gone_clear() forgets the notes.
 */
size_t lnetd_ni_place(struct lnetd *d, struct lnetd_ni *n);
int lnetd_nis_gone(struct lnetd *d, const struct lnetd_ni *n);
void lnetd_nis_gone_clear(struct lnetd *d);

/* A refused operation's sentence, written into @s (the caller's, @len bytes), for
 * change-ops.c and change-rule.c: lnetd_say() returns @rc. */
struct lnetd_msg {
	char *s;
	size_t len;
};
int lnetd_say(struct lnetd_msg *m, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int lnetd_say_store(struct lnetd_msg *m, int rc, const struct store_err *serr);
/* @s, or NULL when it is NULL or empty (an op's absent text) */
const char *lnetd_opt(const char *s);

/* An expression's canonical text ("" for NULL), malloc'd. */
char *lnetd_expr_text(const struct lne_expr *e);

/* A stored rule as the engine takes it, row by row (strings stay @r's). */
void lnetd_rule_conf_of(const struct st_rule *r, struct lne_rule_conf *c);

/* A UDSP rule's add or delete (change-rule.c); a refusal's sentence into @msg. */
int lnetd_rule_op(struct lnetd *d, struct lnetd_op *op, char *msg, size_t len);

#endif /* LNETD_CHANGE_H */
