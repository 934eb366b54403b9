// SPDX-License-Identifier: GPL-2.0
/*
 * bus.c - lnetd's typed D-Bus API (schema/org.lnetd1.Manager.xml).
 *
 * A method that changes the configuration runs: parse -> authorise ->
 * apply to the engine mirror (which judges it with the module's own code)
 * -> persist in one store transaction -> emit -> reply.  If the store
 * refuses, the mirror is put back, so the mirror and the store never
 * disagree.  Reads are open to anyone; changes need root (polkit's
 * org.lnetd1.manage comes with the systemd wiring).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

#include "bus-errors.h"
#include "lnetd.h"
#include "udsp.h"

static const sd_bus_error_map lnetd_errors[] = {
	SD_BUS_ERROR_MAP(LNETD_ERR_INVALID, EINVAL), SD_BUS_ERROR_MAP(LNETD_ERR_NOT_FOUND, ENOENT),
	SD_BUS_ERROR_MAP(LNETD_ERR_EXISTS, EEXIST),  SD_BUS_ERROR_MAP(LNETD_ERR_RANGE, ERANGE),
	SD_BUS_ERROR_MAP(LNETD_ERR_BUSY, EBUSY),     SD_BUS_ERROR_MAP(LNETD_ERR_LIMIT, E2BIG),
	SD_BUS_ERROR_MAP(LNETD_ERR_STORE, EIO),	     SD_BUS_ERROR_MAP_END,
};

/* The one place an errno and a sentence become a D-Bus error. */
static int fail(sd_bus_error *e, int rc, const char *msg)
{
	const char *name = rc == -ENOENT   ? LNETD_ERR_NOT_FOUND
			   : rc == -EEXIST ? LNETD_ERR_EXISTS
			   : rc == -ERANGE ? LNETD_ERR_RANGE
			   : rc == -EBUSY  ? LNETD_ERR_BUSY
			   : rc == -E2BIG  ? LNETD_ERR_LIMIT
			   : rc == -EIO	   ? LNETD_ERR_STORE
			   : rc == -EPERM  ? SD_BUS_ERROR_ACCESS_DENIED
			   : rc == -ENOMEM ? SD_BUS_ERROR_NO_MEMORY
					   : LNETD_ERR_INVALID;

	return sd_bus_error_set(e, name, msg);
}

/* Changes need root; reads do not. */
static int authorise(sd_bus_message *m, struct st_who *who, char *cmd, size_t len, sd_bus_error *e)
{
	sd_bus_creds *creds = NULL;
	char **argv = NULL;
	uid_t uid = (uid_t)-1;
	pid_t pid = 0;
	int rc;

	/* The command line comes from /proc (AUGMENT): good enough for history. */
	rc = sd_bus_query_sender_creds(m,
				       SD_BUS_CREDS_EUID | SD_BUS_CREDS_PID | SD_BUS_CREDS_CMDLINE |
					       SD_BUS_CREDS_AUGMENT,
				       &creds);
	if (rc < 0)
		return fail(e, -EPERM, "cannot tell who is asking; refusing the change");
	sd_bus_creds_get_euid(creds, &uid);
	sd_bus_creds_get_pid(creds, &pid);
	cmd[0] = '\0';
	if (sd_bus_creds_get_cmdline(creds, &argv) >= 0)
		for (size_t used = 0; argv && *argv && used + 1 < len; argv++)
			used += (size_t)snprintf(cmd + used, len - used, "%s%s", used ? " " : "",
						 *argv);
	sd_bus_creds_unref(creds);
	if (uid != 0)
		return fail(e, -EPERM, "changing LNet's configuration needs root");
	*who = (struct st_who){.uid = uid, .pid = pid, .command = cmd};
	return 0;
}

/* Commit the open store transaction and announce the new generation. */
static int commit(struct lnetd *d, const struct st_who *who, sd_bus_error *e)
{
	struct store_err serr = {""};
	int rc = store_commit(d->store, who, &d->generation, &serr);

	if (rc < 0) {
		store_rollback(d->store);
		return fail(e, -EIO, serr.msg[0] ? serr.msg : "the store refused the change");
	}
	sd_bus_emit_properties_changed(d->bus, LNETD_BUS_PATH, LNETD_BUS_MANAGER, "Generation",
				       NULL);
	return 0;
}

static int set_global(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	struct store_err serr = {""};
	struct lne_err lerr = {.msg = ""};
	struct st_who who;
	const char *name;
	char cmd[512];
	uint32_t value, old;
	int rc, g;

	rc = sd_bus_message_read(m, "su", &name, &value);
	if (rc < 0)
		return rc;
	rc = authorise(m, &who, cmd, sizeof(cmd), e);
	if (rc < 0)
		return rc;
	g = lne_global_lookup(name);
	if (g < 0)
		return sd_bus_error_setf(e, LNETD_ERR_NOT_FOUND, "no global setting is called '%s'",
					 name);
	old = lne_global_get(d->mirror, g);
	rc = lne_global_set(d->mirror, g, value, &lerr);
	if (rc)
		return fail(e, rc, lerr.msg);
	rc = store_begin(d->store);
	if (!rc)
		rc = store_global_set(d->store, name, value, &serr);
	if (!rc)
		rc = commit(d, &who, e);
	else
		store_rollback(d->store);
	if (rc) {
		d->mirror->globals[g] = old; /* it was valid: no check needed */
		return sd_bus_error_is_set(e) ? rc : fail(e, -EIO, serr.msg);
	}
	return sd_bus_reply_method_return(m, "t", d->generation);
}

static int list_globals(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	sd_bus_message *reply = NULL;
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
	sd_bus_message_unref(reply);
	return rc;
}

static char *expr_text(const struct lne_expr *e)
{
	char *s;
	int n;

	if (!e)
		return strdup("");
	n = lne_expr_format(e, NULL, 0);
	s = malloc((size_t)n + 1);
	if (s)
		lne_expr_format(e, s, (size_t)n + 1);
	return s;
}

static const char *opt(const char *s)
{
	return s && *s ? s : NULL;
}

/* AddRule's options: "priority" (u) and "idx" (u); anything else is refused by name. */
static int read_rule_options(sd_bus_message *m, uint32_t *prio, int64_t *idx, sd_bus_error *e)
{
	const char *key;
	int rc;

	rc = sd_bus_message_enter_container(m, 'a', "{sv}");
	while (rc >= 0 && (rc = sd_bus_message_enter_container(m, 'e', "sv")) > 0) {
		uint32_t v;

		rc = sd_bus_message_read(m, "s", &key);
		if (rc < 0)
			return rc;
		if (strcmp(key, "priority") && strcmp(key, "idx"))
			return sd_bus_error_setf(
				e, LNETD_ERR_INVALID,
				"unknown option '%s' (AddRule takes priority and idx)", key);
		rc = sd_bus_message_read(m, "v", "u", &v);
		if (rc < 0)
			return sd_bus_error_setf(e, LNETD_ERR_INVALID,
						 "option '%s' must be an unsigned 32-bit integer",
						 key);
		if (!strcmp(key, "priority"))
			*prio = v;
		else
			*idx = v;
		rc = sd_bus_message_exit_container(m);
	}
	if (rc >= 0)
		rc = sd_bus_message_exit_container(m);
	return rc;
}

static int add_rule(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	const char *src, *dst, *rte;
	enum lne_rule_outcome outcome;
	struct store_err serr = {""};
	struct lne_err lerr = {.msg = ""};
	struct lne_rule *r;
	uint32_t prio = LNE_PRIO_NONE, old_prio = LNE_PRIO_NONE, at;
	int64_t idx = -1, pos;
	struct st_who who;
	char cmd[512];
	int rc;

	rc = sd_bus_message_read(m, "sss", &src, &dst, &rte);
	if (rc >= 0)
		rc = read_rule_options(m, &prio, &idx, e);
	if (rc < 0)
		return rc;
	rc = authorise(m, &who, cmd, sizeof(cmd), e);
	if (rc < 0)
		return rc;
	/* An update changes a priority in place: remember it to put it back. */
	rc = lne_rule_add(d->mirror, opt(src), opt(dst), opt(rte), prio, idx, &outcome, &at, &lerr);
	if (rc)
		return fail(e, rc, lerr.msg);
	r = lne_rule_at(d->mirror, at);

	rc = store_begin(d->store);
	if (!rc && outcome == LNE_RULE_ADDED) {
		char *s = expr_text(r->src), *t = expr_text(r->dst), *u = expr_text(r->rte);
		struct st_rule sr = {.pos = at,
				     .src = opt(s),
				     .dst = opt(t),
				     .rte = opt(u),
				     .priority = prio == LNE_PRIO_NONE ? ST_UNSET : (int64_t)prio};

		rc = s && t && u ? store_rule_add(d->store, &sr, &pos, &serr) : -ENOMEM;
		free(s);
		free(t);
		free(u);
	} else if (!rc) {
		struct st_rule cur = {0};

		rc = store_rule_get(d->store, at, &cur, &serr);
		if (!rc) {
			old_prio = cur.priority == ST_UNSET ? LNE_PRIO_NONE
							    : (uint32_t)cur.priority;
			cur.priority = prio == LNE_PRIO_NONE ? ST_UNSET : (int64_t)prio;
			rc = store_rule_update(d->store, &cur, &serr);
			st_rule_clear(&cur);
		}
	}
	if (!rc)
		rc = commit(d, &who, e);
	else
		store_rollback(d->store);
	if (rc) {
		/* Put the mirror back as it was. */
		if (outcome == LNE_RULE_ADDED) {
			lne_rule_del(d->mirror, at, NULL);
		} else {
			char *s = expr_text(r->src), *t = expr_text(r->dst), *u = expr_text(r->rte);

			lne_rule_add(d->mirror, opt(s), opt(t), opt(u), old_prio, -1, NULL, NULL,
				     NULL);
			free(s);
			free(t);
			free(u);
		}
		return sd_bus_error_is_set(e) ? rc : fail(e, rc == -ENOMEM ? rc : -EIO, serr.msg);
	}
	return sd_bus_reply_method_return(m, "ubt", at, outcome == LNE_RULE_UPDATED, d->generation);
}

/* Delete one rule (@all false) or every rule, in the mirror and the store. */
static int del_rules(sd_bus_message *m, struct lnetd *d, bool all, sd_bus_error *e)
{
	struct store_err serr = {""};
	struct lne_err lerr = {.msg = ""};
	struct lne_inst *before = NULL;
	struct st_who who;
	uint32_t idx = 0;
	char cmd[512];
	int rc;

	if (!all) {
		rc = sd_bus_message_read(m, "u", &idx);
		if (rc < 0)
			return rc;
	}
	rc = authorise(m, &who, cmd, sizeof(cmd), e);
	if (rc < 0)
		return rc;
	if (!all && !lne_rule_at(d->mirror, idx))
		return sd_bus_error_setf(e, LNETD_ERR_NOT_FOUND, "there is no rule %u (%u rules)",
					 idx, d->mirror->udsp.nrules);
	/* Deletion cannot be refused by the engine; keep a copy to undo it. */
	before = lne_inst_copy(d->mirror);
	if (!before)
		return fail(e, -ENOMEM, "out of memory");
	if (all)
		lne_rule_del_all(d->mirror);
	else
		lne_rule_del(d->mirror, idx, &lerr);
	rc = store_begin(d->store);
	if (!rc)
		rc = all ? store_rule_del_all(d->store, &serr)
			 : store_rule_del(d->store, idx, &serr);
	if (!rc)
		rc = commit(d, &who, e);
	else
		store_rollback(d->store);
	if (rc) {
		lne_inst_free(d->mirror);
		d->mirror = before;
		return sd_bus_error_is_set(e) ? rc : fail(e, -EIO, serr.msg);
	}
	lne_inst_free(before);
	return sd_bus_reply_method_return(m, "t", d->generation);
}

static int delete_rule(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	return del_rules(m, userdata, false, e);
}

static int delete_all_rules(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	return del_rules(m, userdata, true, e);
}

static int list_rules(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	sd_bus_message *reply = NULL;
	struct lne_rule *r;
	int rc;

	rc = sd_bus_message_new_method_return(m, &reply);
	if (rc >= 0)
		rc = sd_bus_message_open_container(reply, 'a', "(usssa{sv})");
	lne_list_for_each_entry(r, &d->mirror->udsp.rules, link) {
		char *s = expr_text(r->src), *t = expr_text(r->dst), *u = expr_text(r->rte);

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
		if (rc >= 0 && r->prio != LNE_PRIO_NONE)
			rc = sd_bus_message_append(reply, "{sv}", "priority", "u", r->prio);
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
	sd_bus_message_unref(reply);
	return rc;
}

struct hist_out {
	sd_bus_message *reply;
	int rc;
};

static int add_hist(const struct st_hist *h, void *data)
{
	struct hist_out *o = data;

	o->rc = sd_bus_message_append(o->reply, "(txuuss)", (uint64_t)h->gen, (int64_t)h->time,
				      (uint32_t)h->uid, (uint32_t)h->pid, h->command ?: "",
				      h->summary ?: "");
	return o->rc < 0 ? o->rc : 0;
}

static int history(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	struct hist_out o = {0};
	uint32_t limit;
	int rc;

	rc = sd_bus_message_read(m, "u", &limit);
	if (rc < 0)
		return rc;
	rc = sd_bus_message_new_method_return(m, &o.reply);
	if (rc >= 0)
		rc = sd_bus_message_open_container(o.reply, 'a', "(txuuss)");
	if (rc >= 0)
		rc = store_history_list(d->store, limit, add_hist, &o);
	if (rc >= 0)
		rc = sd_bus_message_close_container(o.reply);
	if (rc >= 0)
		rc = sd_bus_send(NULL, o.reply, NULL);
	sd_bus_message_unref(o.reply);
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
	SD_BUS_METHOD_WITH_ARGS("AddRule",
				SD_BUS_ARGS("s", src, "s", dst, "s", rte, "a{sv}", options),
				SD_BUS_RESULT("u", idx, "b", updated, "t", generation), add_rule,
				SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("DeleteRule", SD_BUS_ARGS("u", idx), SD_BUS_RESULT("t", generation),
				delete_rule, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("DeleteAllRules", SD_BUS_NO_ARGS, SD_BUS_RESULT("t", generation),
				delete_all_rules, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("ListRules", SD_BUS_NO_ARGS, SD_BUS_RESULT("a(usssa{sv})", rules),
				list_rules, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("History", SD_BUS_ARGS("u", limit),
				SD_BUS_RESULT("a(txuuss)", entries), history,
				SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_VTABLE_END,
};

int lnetd_bus_start(struct lnetd *d)
{
	int rc;

	rc = sd_bus_error_add_map(lnetd_errors);
	if (rc < 0)
		return rc;
	rc = sd_bus_add_object_vtable(d->bus, NULL, LNETD_BUS_PATH, LNETD_BUS_MANAGER,
				      manager_vtable, d);
	if (rc < 0)
		return rc;
	return sd_bus_request_name(d->bus, LNETD_BUS_NAME, 0);
}
