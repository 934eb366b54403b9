// SPDX-License-Identifier: GPL-2.0
/*
 * bus-fault.c - fault injection on the bus: FaultAdd, FaultDelete,
 * FaultReset, FaultList (engine/fault.h).  Rules are running state, as
 * health is: not stored, gone with a restart.  Anyone may list them;
 * adding, deleting and resetting need the right to change, and every
 * option is checked before anything changes.  The engine that runs LNet
 * keeps the rules (backend.h): lnetd checks the options first, and an
 * engine may check them again (the kernel engine's module does).
 */
#include <errno.h>
#include <string.h>
#include <systemd/sd-bus.h>

#include "bus-errors.h"
#include "bus-int.h"
#include "engine/fault.h"
#include "lnetd/backend/backend.h"
#include "lnetd/lnetd.h"

#define FAULT_OPTS_MAX 16 /* more keys than there are options: refused unread */

static int kind_arg(const char *kind, bool *delay, sd_bus_error *e)
{
	*delay = !strcmp(kind, "delay");
	if (!*delay && strcmp(kind, "drop"))
		return sd_bus_error_setf(e, LNETD_ERR_INVALID,
					 "'%s' is no kind of fault rule: say drop or delay", kind);
	return 0;
}

/*
 * What every fault call checks once its arguments are read, in this order:
 * a change needs the right to change (@change), and the engine must keep
 * rules (@can: its operation is there; else NotSupported naming @what).
 * 0: go on; else what the handler returns (1: polkit was asked).
 */
static int fault_may(sd_bus_message *m, const struct lnetd *d, bool change, bool can,
		     const char *what, sd_bus_error *e)
{
	struct caller c;
	int rc = change ? bus_authorise(m, &c, e) : 0;

	if (rc != 0)
		return rc;
	return can ? 0 : bus_engine_cannot(d, what, e);
}

/* FaultAdd(s kind, a{ss} options) -> u id */
int bus_method_fault_add(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	struct lne_fault_attr a = {0};
	struct lne_err lerr = {.msg = ""};
	const char *kind, *key, *value, *keys[FAULT_OPTS_MAX], *values[FAULT_OPTS_MAX];
	struct bk_fault f;
	uint32_t id;
	int rc, count = 0;

	rc = sd_bus_message_read(m, "s", &kind);
	if (rc < 0)
		return rc;
	rc = kind_arg(kind, &a.delay, e);
	if (rc < 0)
		return rc;
	rc = sd_bus_message_enter_container(m, 'a', "{ss}");
	while (rc >= 0 && (rc = sd_bus_message_read(m, "{ss}", &key, &value)) > 0) {
		if (++count > FAULT_OPTS_MAX)
			return sd_bus_error_setf(e, LNETD_ERR_INVALID, "more than %d options",
						 FAULT_OPTS_MAX);
		if (lne_fault_opt(&a, key, value, &lerr))
			return bus_fail(e, -EINVAL, lerr.msg);
		keys[count - 1] = key;
		values[count - 1] = value;
	}
	if (rc >= 0)
		rc = sd_bus_message_exit_container(m);
	if (rc < 0)
		return rc;
	rc = fault_may(m, d, true, backend_ops_of(d)->fault_add != NULL, "add fault rules", e);
	if (rc != 0)
		return rc;
	f = (struct bk_fault){.attr = &a, .key = keys, .value = values, .n = (unsigned int)count};
	rc = backend_ops_of(d)->fault_add(d->backend, &f, &id, &lerr);
	if (rc < 0)
		return bus_engine_fail(e, rc, lerr.msg);
	return sd_bus_reply_method_return(m, "u", id);
}

/* A rule's NID: *@set false for empty or "*" (any). */
static int nid_arg(const char *s, struct lne_nid *nid, bool *set, sd_bus_error *e)
{
	char canon[LNE_NID_STR_MAX];
	int rc;

	*set = *s && strcmp(s, "*");
	if (!*set)
		return 0;
	rc = bus_nid_arg(s, nid, canon, e);
	return rc < 0 ? rc : 0;
}

/* FaultDelete(s kind, s source, s dest, b all) -> u deleted */
int bus_method_fault_delete(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	const char *kind, *src, *dst;
	struct lne_err lerr = {.msg = ""};
	struct lne_nid sn, dn;
	bool has_s, has_d;
	uint32_t gone;
	bool delay;
	int all, rc;

	rc = sd_bus_message_read(m, "sssb", &kind, &src, &dst, &all);
	if (rc < 0)
		return rc;
	rc = kind_arg(kind, &delay, e);
	if (rc >= 0)
		rc = nid_arg(src, &sn, &has_s, e);
	if (rc >= 0)
		rc = nid_arg(dst, &dn, &has_d, e);
	if (rc < 0)
		return rc;
	if (!all && !has_s && !has_d)
		return sd_bus_error_setf(e, LNETD_ERR_INVALID,
					 "say which rules: a source, a destination, or all");
	rc = fault_may(m, d, true, backend_ops_of(d)->fault_del != NULL, "delete fault rules", e);
	if (rc != 0)
		return rc;
	rc = backend_ops_of(d)->fault_del(d->backend, delay, has_s ? &sn : NULL, has_d ? &dn : NULL,
					  all, &gone, &lerr);
	if (rc < 0)
		return bus_engine_fail(e, rc, lerr.msg);
	return sd_bus_reply_method_return(m, "u", gone);
}

/* FaultReset(s kind): the rules' counters to zero */
int bus_method_fault_reset(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	struct lne_err lerr = {.msg = ""};
	const char *kind;
	bool delay;
	int rc;

	rc = sd_bus_message_read(m, "s", &kind);
	if (rc < 0)
		return rc;
	rc = kind_arg(kind, &delay, e);
	if (rc < 0)
		return rc;
	rc = fault_may(m, d, true, backend_ops_of(d)->fault_reset != NULL, "reset fault rules", e);
	if (rc != 0)
		return rc;
	rc = backend_ops_of(d)->fault_reset(d->backend, delay, &lerr);
	if (rc < 0)
		return bus_engine_fail(e, rc, lerr.msg);
	return sd_bus_reply_method_return(m, "");
}

static int put_opt(void *arg, const char *key, const char *value)
{
	return sd_bus_message_append(arg, "{ss}", key, value);
}

static int put_count(sd_bus_message *r, const char *key, uint64_t v, int rc)
{
	return rc < 0 ? rc : sd_bus_message_append(r, "{st}", key, v);
}

/* A rule as the engine listed it: (id, options, counters). */
static int put_rule(void *arg, const struct bk_fault_rule *f)
{
	sd_bus_message *r = arg;
	unsigned int i;
	int rc;

	rc = sd_bus_message_open_container(r, 'r', "ua{ss}a{st}");
	if (rc >= 0)
		rc = sd_bus_message_append(r, "u", f->id);
	if (rc >= 0)
		rc = sd_bus_message_open_container(r, 'a', "{ss}");
	for (i = 0; rc >= 0 && i < f->nopt; i++)
		rc = put_opt(r, f->key[i], f->value[i]);
	if (rc >= 0)
		rc = sd_bus_message_close_container(r);
	if (rc >= 0)
		rc = sd_bus_message_open_container(r, 'a', "{st}");
	for (i = 0; i < f->nstat; i++)
		rc = put_count(r, f->stat[i], f->count[i], rc);
	if (rc >= 0)
		rc = sd_bus_message_close_container(r);
	if (rc >= 0)
		rc = sd_bus_message_close_container(r);
	return rc;
}

/* FaultList(s kind) -> a(ua{ss}a{st}) rules: id, options, counters */
int bus_method_fault_list(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	struct lne_err lerr = {.msg = ""};
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *r = NULL;
	const char *kind;
	bool delay;
	int rc;

	rc = sd_bus_message_read(m, "s", &kind);
	if (rc < 0)
		return rc;
	rc = kind_arg(kind, &delay, e);
	if (rc < 0)
		return rc;
	rc = fault_may(m, d, false, backend_ops_of(d)->fault_list != NULL, "list fault rules", e);
	if (rc != 0)
		return rc;
	rc = sd_bus_message_new_method_return(m, &r);
	if (rc >= 0)
		rc = sd_bus_message_open_container(r, 'a', "(ua{ss}a{st})");
	if (rc >= 0) {
		rc = backend_ops_of(d)->fault_list(d->backend, delay, put_rule, r, &lerr);
		if (rc < 0 && lerr.msg[0])
			return bus_engine_fail(e, rc, lerr.msg);
	}
	if (rc >= 0)
		rc = sd_bus_message_close_container(r);
	if (rc >= 0)
		rc = sd_bus_send(NULL, r, NULL);
	return rc;
}
