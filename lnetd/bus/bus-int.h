/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bus-int.h - what the files of lnetd's D-Bus API share: the method handlers
 * the vtable (bus.c) names, who may call and how much a call may carry
 * (bus-auth.c), running a change and reading a{sv} fields (bus-util.c), and
 * the fields of the objects both their own methods and Apply read.
 */
#ifndef LNETD_BUS_INT_H
#define LNETD_BUS_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

#include "common/cleanup.h"
#include "lnetd/change.h"
#include "lnetd/lnetd.h"
#include "lnetd/store/store.h"

/* Who asks, for authorisation and for history. */
struct caller {
	struct st_who who;
	char cmd[512];
};

/* The one place an errno and a sentence become a D-Bus error. */
int bus_fail(sd_bus_error *e, int rc, const char *msg);
/*
 * The engine's errors (backend.h): -ENODEV (the engine is not there now)
 * is NotSupported, with its sentence; the rest as bus_fail().
 */
int bus_engine_fail(sd_bus_error *e, int rc, const char *msg);
/* A call that waits for the network, refused or failed: a peer that did not answer is
 * Unreachable, a malformed answer Protocol, too many calls LimitReached. */
int bus_call_fail(sd_bus_error *e, int rc, const char *msg);
/* The same, as the reply to @m, answered later. */
void bus_reply_call_error(sd_bus_message *m, int rc, const char *msg);
/* NotSupported: "the lustre engine cannot list fault rules" (@what: "list fault rules"). */
int bus_engine_cannot(const struct lnetd *d, const char *what, sd_bus_error *e);
/* The views (backend.h): the engine's health table (NULL: show the mirror's), and the
 * peers its discovery made (NULL: none beyond the mirror's). */
struct bk_health *bus_engine_health(struct lnetd *d, bool peers);
struct lne_inst *bus_engine_discovered(struct lnetd *d);

/*
 * Changes need root or polkit's org.lnetd1.manage; reads do not.
 * 0: go on; 1: polkit was asked, return 1 now (the call comes back with the
 * answer); negative: refused, @e says why.
 */
int bus_authorise(sd_bus_message *m, struct caller *c, sd_bus_error *e);

/* Whether polkit was asked about @m and its answer waits for it. */
bool bus_polkit_asked(sd_bus_message *m);

/* The sd-bus filter that refuses a method call over lnetd's bounds. */
int bus_bounds_filter(sd_bus_message *m, void *userdata, sd_bus_error *ret_error);

/* --- bus-util.c: running a change ----------------------------------------------- */

/* Run a list of operations as one change; on refusal, @e says why. */
int bus_run(struct lnetd *d, const struct caller *c, struct lnetd_op *ops, size_t n, bool dry,
	    char **summary, sd_bus_error *e);

/* Reply with the generation the configuration is at. */
int bus_reply_generation(sd_bus_message *m, const struct lnetd *d);

/* The end of a single-object change: authorise, run it, reply with the generation. */
int bus_change_one(sd_bus_message *m, struct lnetd *d, struct lnetd_op *op, sd_bus_error *e);

/* Parse a NID, or fail naming it and why; @canon gets its text (LNE_NID_STR_MAX). */
int bus_nid_arg(const char *s, struct lne_nid *nid, char *canon, sd_bus_error *e);

/* --- bus-util.c: named, typed fields ---------------------------------------------- */

/*
 * Named, typed fields (a{sv}): each known name once, with its type; any
 * other name or type is refused, naming it.  Strings point into @m, those
 * of an "as" too: its array is malloc'd (free with bus_strv_free), and
 * valid as long as @m is (a site import's 100,000 NIDs are not copied).
 */
struct field {
	const char *name;
	char type; /* 's', 'u', 'b', 't', 'a' (as) */
	void *out; /* const char **, uint32_t *, int *, uint64_t *, char *** */
	bool given;
	uint32_t max; /* 'a': the most strings it may hold */
};

/* Fields @f (ended by a NULL name) from an a{sv}; @what names the call in refusals. */
int bus_read_fields(sd_bus_message *m, struct field *f, const char *what, sd_bus_error *e);

/*
 * An "as" of at most @max strings into *@out (a malloc'd array, NULL-terminated,
 * of strings in @m; NULL when empty).
 */
int bus_read_strv_max(sd_bus_message *m, uint32_t max, char ***out, const char *what,
		      const char *name, sd_bus_error *e);

void bus_strv_free(char **v);

/*
 * One "{sv}" entry holding the basic value @v of @type ('s': a string, 'b':
 * an int, 'u': a uint32_t), appended piece by piece: sd_bus_message_append()
 * parses its format at every call, a site's export or peer list 50,000 times.
 */
int bus_put_basic(sd_bus_message *r, const char *key, char type, const void *v);

static inline int64_t given_or_unset(const struct field *f, uint32_t v)
{
	return f->given ? (int64_t)v : ST_UNSET;
}

/* --- the fields of an object: its Add method's options, and Apply's operations ---- */

/*
 * The fields of an object are read by name (bus_read_fields()); the code
 * that checks them afterwards names each by its index here, never by a
 * number.
 */

/* An NI (bus-ni.c): AddNI's options, and Apply's "net" objects. */
enum {
	NI_F_NET,
	NI_F_INTERFACE,
	NI_F_PATTERN,
	NI_F_CPTS,
	NI_F_TUN
};
struct ni_fields {
	const char *net, *ifname, *pattern, *cpts;
	uint32_t tun[LNE_TUN__COUNT];
	struct field f[NI_F_TUN + LNE_TUN__COUNT + 1]; /* the last one's name NULL: the end */
};
void bus_ni_fields_init(struct ni_fields *nf);
void bus_ni_fields_op(const struct ni_fields *nf, struct lnetd_op *op);

/*
 * A peer (bus-peer.c): AddPeer's options and Apply's "peer" objects, one
 * decoder for both: its key (primary, nids), Apply's force, and a field per
 * setting of engine/peer-attrs.h, each -1 when not given.
 */
enum {
	PEER_F_PRIMARY,
	PEER_F_NIDS,
	PEER_F_FORCE,
	PEER_F_ATTRS
};
struct peer_fields {
	const char *primary;
	char **nids; /* malloc'd (bus_strv_free), strings in the message */
	int force;
	int v[LNE_PEER_A__COUNT];
	struct field f[PEER_F_ATTRS + LNE_PEER_A__COUNT + 1]; /* the last one's name NULL */
};
void bus_peer_fields_init(struct peer_fields *pf);
void bus_peer_fields_op(const struct peer_fields *pf, struct lnetd_op *op);

/* A route (bus-route.c): AddRoute's options, and Apply's "route" objects. */
enum {
	ROUTE_F_NET,
	ROUTE_F_GATEWAY,
	ROUTE_F_ATTRS
};
struct route_fields {
	const char *net, *gateway;
	uint32_t v[LNE_ROUTE_A__COUNT];
	struct field f[ROUTE_F_ATTRS + LNE_ROUTE_A__COUNT + 1]; /* the last one's name NULL */
};
void bus_route_fields_init(struct route_fields *rf);
void bus_route_fields_op(const struct route_fields *rf, struct lnetd_op *op);

/*
 * A rule (bus-rule.c): AddRule's and DeleteRuleMatching's arguments and
 * options, and Apply's "udsp" objects: f[a] is row a of engine/rule-attrs.h
 * (an expression into expr[a], a number into num[a]), then idx, all, kind.
 */
enum {
	RULE_F_IDX = LNE_RULE_A__COUNT,
	RULE_F_ALL,
	RULE_F_KIND,
	RULE_F__COUNT
};
struct rule_fields {
	const char *expr[LNE_RULE_A__COUNT], *kind;
	uint32_t num[LNE_RULE_A__COUNT], idx;
	int all;
	struct field f[RULE_F__COUNT + 1]; /* the last one's name NULL: the end */
};
void bus_rule_fields_init(struct rule_fields *rf);
void bus_rule_fields_op(const struct rule_fields *rf, struct lnetd_op *op);
/* Whether any of @rf's expressions was given (it names a rule). */
bool bus_rule_fields_exprs(const struct rule_fields *rf);

/* --- the methods, by the file that holds them (the vtable is bus.c's) ----------- */

/* bus-ni.c */
int bus_method_add_ni(sd_bus_message *m, void *userdata, sd_bus_error *e);
int bus_method_delete_ni(sd_bus_message *m, void *userdata, sd_bus_error *e);
int bus_method_list_nis(sd_bus_message *m, void *userdata, sd_bus_error *e);

/* bus-peer.c */
int bus_method_add_peer(sd_bus_message *m, void *userdata, sd_bus_error *e);
int bus_method_delete_peer(sd_bus_message *m, void *userdata, sd_bus_error *e);
int bus_method_list_peers(sd_bus_message *m, void *userdata, sd_bus_error *e);

/* bus-route.c */
int bus_method_add_route(sd_bus_message *m, void *userdata, sd_bus_error *e);
int bus_method_delete_route(sd_bus_message *m, void *userdata, sd_bus_error *e);
int bus_method_list_routes(sd_bus_message *m, void *userdata, sd_bus_error *e);

/* bus-rule.c */
int bus_method_add_rule(sd_bus_message *m, void *userdata, sd_bus_error *e);
int bus_method_delete_rule(sd_bus_message *m, void *userdata, sd_bus_error *e);
int bus_method_delete_rule_matching(sd_bus_message *m, void *userdata, sd_bus_error *e);
int bus_method_delete_all_rules(sd_bus_message *m, void *userdata, sd_bus_error *e);
int bus_method_list_rules(sd_bus_message *m, void *userdata, sd_bus_error *e);
int bus_method_udsp_info(sd_bus_message *m, void *userdata, sd_bus_error *e);
int bus_method_explain(sd_bus_message *m, void *userdata, sd_bus_error *e);

/* bus-health.c */
int bus_method_set_health(sd_bus_message *m, void *userdata, sd_bus_error *e);
/* bus-recovery.c */
int bus_method_health_stats(sd_bus_message *m, void *userdata, sd_bus_error *e);
int bus_method_router_credits(sd_bus_message *m, void *userdata, sd_bus_error *e);
int bus_method_recovery_queue(sd_bus_message *m, void *userdata, sd_bus_error *e);
/* bus-fault.c */
int bus_method_fault_add(sd_bus_message *m, void *userdata, sd_bus_error *e);
int bus_method_fault_delete(sd_bus_message *m, void *userdata, sd_bus_error *e);
int bus_method_fault_reset(sd_bus_message *m, void *userdata, sd_bus_error *e);
int bus_method_fault_list(sd_bus_message *m, void *userdata, sd_bus_error *e);
/* bus-dp.c: the data path */
int bus_method_ping(sd_bus_message *m, void *userdata, sd_bus_error *e);
int bus_method_discover(sd_bus_message *m, void *userdata, sd_bus_error *e);
struct backend;
struct bk_call;
/*
 * Hand @c (its question filled) to the engine's @op for the call @m, which
 * is answered when the engine is done: as Ping answers (the node's ping
 * info), or with @selftest as Selftest does.  1, or the refusal in @e.
 */
int bus_call_start(struct lnetd *d, sd_bus_message *m,
		   int (*op)(struct backend *b, struct bk_call *c), struct bk_call *c,
		   bool selftest, sd_bus_error *e);
int bus_method_counters(sd_bus_message *m, void *userdata, sd_bus_error *e);
int bus_method_reset_counters(sd_bus_message *m, void *userdata, sd_bus_error *e);
int bus_method_selftest(sd_bus_message *m, void *userdata, sd_bus_error *e);
int bus_method_set_test_service(sd_bus_message *m, void *userdata, sd_bus_error *e);

/* bus-tbf.c */
int bus_method_tbf_set_policy(sd_bus_message *m, void *userdata, sd_bus_error *e);
int bus_method_tbf_command(sd_bus_message *m, void *userdata, sd_bus_error *e);
int bus_method_tbf_delete(sd_bus_message *m, void *userdata, sd_bus_error *e);
int bus_method_list_tbf(sd_bus_message *m, void *userdata, sd_bus_error *e);

/* bus-apply.c */
int bus_method_apply(sd_bus_message *m, void *userdata, sd_bus_error *e);
int bus_method_apply_with(sd_bus_message *m, void *userdata, sd_bus_error *e);
int bus_method_export(sd_bus_message *m, void *userdata, sd_bus_error *e);
int bus_method_status(sd_bus_message *m, void *userdata, sd_bus_error *e);
int bus_method_rollback(sd_bus_message *m, void *userdata, sd_bus_error *e);
int bus_method_history(sd_bus_message *m, void *userdata, sd_bus_error *e);

#endif /* LNETD_BUS_INT_H */
