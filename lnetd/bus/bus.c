// SPDX-License-Identifier: GPL-2.0
/*
 * bus.c - lnetd's typed D-Bus API (schema/org.lnetd1.Manager.xml): the
 * object's vtable, its properties, the globals, the error names, and
 * lnetd_bus_add()/lnetd_bus_start().
 *
 * A method that changes the configuration parses its arguments into
 * operations (change.h) and runs them as one change: the engine mirror
 * judges each, the store commits them as one generation, or nothing is
 * kept.  Single-object methods are lists of one; Apply is a list of many.
 * Reads are open to anyone; changes need root (polkit's org.lnetd1.manage
 * comes with the systemd wiring).
 *
 * The methods live by object: bus-ni.c, bus-peer.c, bus-route.c,
 * bus-rule.c (UDSP, UdspInfo, Explain), bus-health.c, bus-tbf.c and
 * bus-apply.c (Apply, Export, Status, Rollback, History); what they share
 * is in bus-util.c, who may call and how much in bus-auth.c.
 */
#include <errno.h>
#include <systemd/sd-bus.h>

#include "bus-errors.h"
#include "bus-int.h"
#include "lnetd/backend/backend.h"
#include "lnetd/change.h"
#include "lnetd/lnetd.h"

static const sd_bus_error_map lnetd_errors[] = {
	SD_BUS_ERROR_MAP(LNETD_ERR_INVALID, EINVAL), SD_BUS_ERROR_MAP(LNETD_ERR_NOT_FOUND, ENOENT),
	SD_BUS_ERROR_MAP(LNETD_ERR_EXISTS, EEXIST),  SD_BUS_ERROR_MAP(LNETD_ERR_RANGE, ERANGE),
	SD_BUS_ERROR_MAP(LNETD_ERR_BUSY, EBUSY),     SD_BUS_ERROR_MAP(LNETD_ERR_LIMIT, E2BIG),
	SD_BUS_ERROR_MAP(LNETD_ERR_STORE, EIO),	     SD_BUS_ERROR_MAP_END,
};

/*
 * The one place an errno and a sentence become a D-Bus error: the same
 * table clients read back (sd_bus_error_get_errno()).  EPERM and ENOMEM
 * take sd-bus's own names (AccessDenied, NoMemory); anything else not in
 * the table is an invalid argument.
 */
int bus_fail(sd_bus_error *e, int rc, const char *msg)
{
	const sd_bus_error_map *m;

	for (m = lnetd_errors; m->name; m++)
		if (m->code == -rc)
			return sd_bus_error_set(e, m->name, msg);
	if (rc == -EPERM || rc == -ENOMEM)
		return sd_bus_error_set_errnof(e, -rc, "%s", msg);
	return sd_bus_error_set(e, LNETD_ERR_INVALID, msg);
}

int bus_engine_fail(sd_bus_error *e, int rc, const char *msg)
{
	if (rc == -ENODEV || rc == -EOPNOTSUPP)
		return sd_bus_error_set(e, LNETD_ERR_UNSUPPORTED, msg);
	return bus_fail(e, rc, msg);
}

/* The data path's names, for what waits for the network. */
static const char *call_error(int rc)
{
	switch (rc) {
	case -EHOSTUNREACH:
	case -ETIMEDOUT:
	case -ENOTCONN:
		return LNETD_ERR_UNREACHABLE;
	case -EPROTO:
		return LNETD_ERR_PROTOCOL;
	case -EOPNOTSUPP:
	case -ENODEV:
		return LNETD_ERR_UNSUPPORTED;
	case -E2BIG:
		return LNETD_ERR_LIMIT;
	case -ENOENT:
		return LNETD_ERR_NOT_FOUND;
	default:
		return NULL;
	}
}

int bus_call_fail(sd_bus_error *e, int rc, const char *msg)
{
	const char *name = call_error(rc);

	if (name)
		return sd_bus_error_set(e, name, msg);
	if (rc == -ENOMEM)
		return sd_bus_error_set_errnof(e, ENOMEM, "%s", msg);
	return sd_bus_error_set(e, LNETD_ERR_INVALID, msg);
}

void bus_reply_call_error(sd_bus_message *m, int rc, const char *msg)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;

	bus_call_fail(&e, rc, msg);
	sd_bus_reply_method_error(m, &e);
	sd_bus_error_free(&e);
}

struct bk_health *bus_engine_health(struct lnetd *d, bool peers)
{
	const struct backend_ops *ops = backend_ops_of(d);
	struct bk_health *h = NULL;

	if (ops->health && ops->health(d->backend, peers, &h) < 0)
		h = NULL;
	return h;
}

struct lne_inst *bus_engine_discovered(struct lnetd *d)
{
	const struct backend_ops *ops = backend_ops_of(d);
	struct lne_inst *ln = NULL;

	if (ops->discovered && ops->discovered(d->backend, &ln) < 0)
		ln = NULL;
	return ln;
}

int bus_engine_cannot(const struct lnetd *d, const char *what, sd_bus_error *e)
{
	return sd_bus_error_setf(e, LNETD_ERR_UNSUPPORTED, "the %s engine cannot %s", d->engine,
				 what);
}

/* --- globals --------------------------------------------------------------- */

static int set_global(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	struct lnetd_op op = {.verb = VERB_SET, .obj = OBJ_GLOBAL};
	int rc;

	rc = sd_bus_message_read(m, "su", &op.u.global.name, &op.u.global.value);
	return rc < 0 ? rc : bus_change_one(m, d, &op, e);
}

static int list_globals(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	int rc, g;

	rc = sd_bus_message_new_method_return(m, &reply);
	if (rc >= 0)
		rc = sd_bus_message_open_container(reply, 'a', "(su)");
	for (g = 0; rc >= 0 && g < LNE_G__COUNT; g++)
		rc = sd_bus_message_append(reply, "(su)", lne_global_info(g)->name,
					   lne_global_get(d->mirror, g));
	if (rc >= 0)
		rc = sd_bus_message_close_container(reply);
	if (rc >= 0)
		rc = sd_bus_send(NULL, reply, NULL);
	return rc;
}

static int get_version(sd_bus *bus, const char *path, const char *iface, const char *prop,
		       sd_bus_message *reply, void *userdata, sd_bus_error *e)
{
	return sd_bus_message_append(reply, "s", PACKAGE_VERSION);
}

static int get_generation(sd_bus *bus, const char *path, const char *iface, const char *prop,
			  sd_bus_message *reply, void *userdata, sd_bus_error *e)
{
	return sd_bus_message_append(reply, "t", ((struct lnetd *)userdata)->generation);
}

static int get_engine(sd_bus *bus, const char *path, const char *iface, const char *prop,
		      sd_bus_message *reply, void *userdata, sd_bus_error *e)
{
	return sd_bus_message_append(reply, "s", ((struct lnetd *)userdata)->engine);
}

static const sd_bus_vtable manager_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_PROPERTY("Version", "s", get_version, 0, SD_BUS_VTABLE_PROPERTY_CONST),
	SD_BUS_PROPERTY("Engine", "s", get_engine, 0, SD_BUS_VTABLE_PROPERTY_CONST),
	SD_BUS_PROPERTY("Generation", "t", get_generation, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
	SD_BUS_METHOD_WITH_ARGS("SetGlobal", SD_BUS_ARGS("s", name, "u", value),
				SD_BUS_RESULT("t", generation), set_global,
				SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("ListGlobals", SD_BUS_NO_ARGS, SD_BUS_RESULT("a(su)", globals),
				list_globals, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("AddNI", SD_BUS_ARGS("s", net, "s", interface, "a{sv}", options),
				SD_BUS_RESULT("t", generation), bus_method_add_ni,
				SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("DeleteNI", SD_BUS_ARGS("s", net, "s", interface),
				SD_BUS_RESULT("t", generation), bus_method_delete_ni,
				SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("ListNIs", SD_BUS_NO_ARGS, SD_BUS_RESULT("a(sssa{sv})", nis),
				bus_method_list_nis, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("AddPeer", SD_BUS_ARGS("s", primary, "as", nids, "a{sv}", options),
				SD_BUS_RESULT("t", generation), bus_method_add_peer,
				SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("DeletePeer", SD_BUS_ARGS("s", primary, "as", nids),
				SD_BUS_RESULT("t", generation), bus_method_delete_peer,
				SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("ListPeers", SD_BUS_NO_ARGS, SD_BUS_RESULT("a(sa{sv})", peers),
				bus_method_list_peers, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("AddRoute", SD_BUS_ARGS("s", net, "s", gateway, "a{sv}", options),
				SD_BUS_RESULT("t", generation), bus_method_add_route,
				SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("DeleteRoute", SD_BUS_ARGS("s", net, "s", gateway),
				SD_BUS_RESULT("t", generation), bus_method_delete_route,
				SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("ListRoutes", SD_BUS_NO_ARGS, SD_BUS_RESULT("a(ssa{sv})", routes),
				bus_method_list_routes, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("AddRule",
				SD_BUS_ARGS("s", src, "s", dst, "s", rte, "a{sv}", options),
				SD_BUS_RESULT("u", idx, "b", updated, "t", generation),
				bus_method_add_rule, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("DeleteRule", SD_BUS_ARGS("u", idx), SD_BUS_RESULT("t", generation),
				bus_method_delete_rule, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("DeleteRuleMatching",
				SD_BUS_ARGS("s", src, "s", dst, "s", rte, "a{sv}", options),
				SD_BUS_RESULT("t", generation), bus_method_delete_rule_matching,
				SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("DeleteAllRules", SD_BUS_NO_ARGS, SD_BUS_RESULT("t", generation),
				bus_method_delete_all_rules, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("ListRules", SD_BUS_NO_ARGS, SD_BUS_RESULT("a(usssa{sv})", rules),
				bus_method_list_rules, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("UdspInfo", SD_BUS_ARGS("s", nid), SD_BUS_RESULT("a{sv}", info),
				bus_method_udsp_info, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("Explain", SD_BUS_ARGS("s", dst, "s", src),
				SD_BUS_RESULT("s", ni, "s", peer_ni, "s", gateway, "a(sssa{sv})",
					      candidates),
				bus_method_explain, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("SetHealth", SD_BUS_ARGS("s", object, "s", target, "u", value),
				SD_BUS_RESULT("u", changed), bus_method_set_health,
				SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("HealthStats", SD_BUS_ARGS("s", nid),
				SD_BUS_RESULT("b", local, "u", health, "a{st}", stats),
				bus_method_health_stats, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("RouterCredits", SD_BUS_ARGS("s", nid),
				SD_BUS_RESULT("i", available, "i", min), bus_method_router_credits,
				SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("RecoveryQueue", SD_BUS_ARGS("b", peer),
				SD_BUS_RESULT("a(sut)", queued), bus_method_recovery_queue,
				SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("FaultAdd", SD_BUS_ARGS("s", kind, "a{ss}", options),
				SD_BUS_RESULT("u", id), bus_method_fault_add,
				SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS(
		"FaultDelete", SD_BUS_ARGS("s", kind, "s", source, "s", dest, "b", all),
		SD_BUS_RESULT("u", deleted), bus_method_fault_delete, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("FaultReset", SD_BUS_ARGS("s", kind), SD_BUS_NO_RESULT,
				bus_method_fault_reset, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("FaultList", SD_BUS_ARGS("s", kind),
				SD_BUS_RESULT("a(ua{ss}a{st})", rules), bus_method_fault_list,
				SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("TbfSetPolicy",
				SD_BUS_ARGS("s", service, "s", queue, "a{sv}", options),
				SD_BUS_RESULT("t", generation), bus_method_tbf_set_policy,
				SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("TbfCommand", SD_BUS_ARGS("s", service, "s", command),
				SD_BUS_RESULT("t", generation), bus_method_tbf_command,
				SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("TbfDelete", SD_BUS_ARGS("s", service),
				SD_BUS_RESULT("t", generation), bus_method_tbf_delete,
				SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("ListTbf", SD_BUS_NO_ARGS,
				SD_BUS_RESULT("a(sssua(ssubuttttt)a(ssttttt))", queues),
				bus_method_list_tbf, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("Apply", SD_BUS_ARGS("a(ssa{sv})", operations, "b", dry_run),
				SD_BUS_RESULT("t", generation, "as", changes), bus_method_apply,
				SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("ApplyWith",
				SD_BUS_ARGS("a(ssa{sv})", operations, "a{sv}", options),
				SD_BUS_RESULT("t", generation, "as", changes),
				bus_method_apply_with, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("Export", SD_BUS_NO_ARGS,
				SD_BUS_RESULT("t", generation, "a(ssa{sv})", operations),
				bus_method_export, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("Status", SD_BUS_NO_ARGS,
				SD_BUS_RESULT("t", generation, "s", engine, "a(suu)", objects,
					      "a(sss)", pending),
				bus_method_status, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("Rollback", SD_BUS_ARGS("t", generation),
				SD_BUS_RESULT("t", generation), bus_method_rollback,
				SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("History", SD_BUS_ARGS("u", limit),
				SD_BUS_RESULT("a(txuuss)", entries), bus_method_history,
				SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("Ping", SD_BUS_ARGS("s", nid, "s", source, "u", timeout_ms),
				SD_BUS_RESULT("a{sv}", reply), bus_method_ping,
				SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("Discover", SD_BUS_ARGS("s", nid, "b", force),
				SD_BUS_RESULT("a{sv}", reply), bus_method_discover,
				SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("Counters", SD_BUS_NO_ARGS,
				SD_BUS_RESULT("a{st}", totals, "a{st}", node, "a(sba{st})", nids),
				bus_method_counters, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("ResetCounters", SD_BUS_NO_ARGS, SD_BUS_NO_RESULT,
				bus_method_reset_counters, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("Selftest", SD_BUS_ARGS("s", nid, "a{sv}", options),
				SD_BUS_RESULT("a{sv}", result), bus_method_selftest,
				SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("SetTestService", SD_BUS_ARGS("b", on), SD_BUS_NO_RESULT,
				bus_method_set_test_service, SD_BUS_VTABLE_UNPRIVILEGED),
	/* events.h: the state changes people watch */
	SD_BUS_SIGNAL_WITH_ARGS("NIStateChanged",
				SD_BUS_ARGS("s", ni, "s", nid, "s", state, "s", reason), 0),
	SD_BUS_SIGNAL_WITH_ARGS("HealthChanged",
				SD_BUS_ARGS("s", object, "s", nid, "s", state, "u", health), 0),
	SD_BUS_SIGNAL_WITH_ARGS("PeerDiscovered", SD_BUS_ARGS("s", primary, "as", nids), 0),
	SD_BUS_SIGNAL_WITH_ARGS("RouteStateChanged",
				SD_BUS_ARGS("s", net, "s", gateway, "s", state), 0),
	SD_BUS_VTABLE_END,
};

int lnetd_bus_serve(struct lnetd *d, sd_bus *bus)
{
	int rc;

	rc = sd_bus_error_add_map(lnetd_errors);
	if (rc < 0)
		return rc;
	rc = sd_bus_add_filter(bus, NULL, bus_bounds_filter, d);
	if (rc < 0)
		return rc;
	return sd_bus_add_object_vtable(bus, NULL, LNETD_BUS_PATH, LNETD_BUS_MANAGER,
					manager_vtable, d);
}

int lnetd_bus_add(struct lnetd *d)
{
	return lnetd_bus_serve(d, d->bus);
}

int lnetd_bus_start(struct lnetd *d)
{
	int rc = lnetd_bus_add(d);

	return rc < 0 ? rc : sd_bus_request_name(d->bus, LNETD_BUS_NAME, 0);
}
