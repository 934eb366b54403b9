// SPDX-License-Identifier: GPL-2.0
/*
 * bus.c - lnetd's typed D-Bus API (schema/org.lnetd1.Manager.xml).
 *
 * A method that changes the configuration parses its arguments into
 * operations (change.h) and runs them as one change: the engine mirror
 * judges each, the store commits them as one generation, or nothing is
 * kept.  Single-object methods are lists of one; Apply is a list of many.
 * Reads are open to anyone; changes need root (polkit's org.lnetd1.manage
 * comes with the systemd wiring).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

#include "bus-errors.h"
#include "bus-int.h"
#include "lnetd/change.h"
#include "lnetd/backend/kernel.h"
#include "lnetd/backend/ktbf.h"
#include "lnetd/lnetd.h"
#include "liblnetk/lnetk-client.h"
#include "lnetd/nrs.h"
#include "engine/select.h"
#include "engine/udsp.h"

static const sd_bus_error_map lnetd_errors[] = {
	SD_BUS_ERROR_MAP(LNETD_ERR_INVALID, EINVAL), SD_BUS_ERROR_MAP(LNETD_ERR_NOT_FOUND, ENOENT),
	SD_BUS_ERROR_MAP(LNETD_ERR_EXISTS, EEXIST),  SD_BUS_ERROR_MAP(LNETD_ERR_RANGE, ERANGE),
	SD_BUS_ERROR_MAP(LNETD_ERR_BUSY, EBUSY),     SD_BUS_ERROR_MAP(LNETD_ERR_LIMIT, E2BIG),
	SD_BUS_ERROR_MAP(LNETD_ERR_STORE, EIO),	     SD_BUS_ERROR_MAP_END,
};

/* The one place an errno and a sentence become a D-Bus error. */
int bus_fail(sd_bus_error *e, int rc, const char *msg)
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

/* Run a list of operations as one change; on refusal, @e says why. */
static int run(struct lnetd *d, const struct caller *c, struct lnetd_op *ops, size_t n, bool dry,
	       char **summary, sd_bus_error *e)
{
	struct lnetd_change_err err;
	int rc = lnetd_change(d, &c->who, ops, n, dry, 0, summary, &err);

	return rc ? bus_fail(e, rc, err.msg) : 0;
}

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

static int reply_generation(sd_bus_message *m, const struct lnetd *d)
{
	return sd_bus_reply_method_return(m, "t", d->generation);
}

/* The end of a single-object change: authorise, run it, reply with the generation. */
static int change_one(sd_bus_message *m, struct lnetd *d, struct lnetd_op *op, sd_bus_error *e)
{
	struct caller c;
	int rc = bus_authorise(m, &c, e);

	if (rc > 0) /* polkit is asked: the call comes back with the answer */
		return 1;
	if (rc >= 0)
		rc = run(d, &c, op, 1, false, NULL, e);
	return rc < 0 ? rc : reply_generation(m, d);
}

/* Parse a NID, or fail naming it and why. */
static int nid_arg(const char *s, struct lne_nid *nid, char *canon, sd_bus_error *e)
{
	struct lne_err err;

	if (lne_nid_parse(s, nid, &err))
		return bus_fail(e, -EINVAL, err.msg);
	lne_nid_format(nid, canon, LNE_NID_STR_MAX);
	return 0;
}

/*
 * Named, typed fields (a{sv}): each known name once, with its type; any
 * other name or type is refused, naming it.  Strings point into @m; an
 * "as" is malloc'd (free with strv_free).
 */
struct field {
	const char *name;
	char type; /* 's', 'u', 'b', 'a' (as) */
	void *out; /* const char **, uint32_t *, int *, char *** */
	bool given;
	uint32_t max; /* 'a': the most strings it may hold */
};

static void strv_free(char **v)
{
	char **p;

	for (p = v; p && *p; p++)
		free(*p);
	free(v);
}

/*
 * An "as" of at most @max strings into *@out (malloc'd, NULL-terminated;
 * NULL when empty).  Reading stops at the first string too many: the cost
 * of a refusal is bounded by the limit, not by what the caller sent.
 */
static int read_strv_max(sd_bus_message *m, uint32_t max, char ***out, const char *what,
			 const char *name, sd_bus_error *e)
{
	char **v = NULL, **nv;
	size_t n = 0, cap = 0;
	const char *s;
	int rc;

	*out = NULL;
	rc = sd_bus_message_enter_container(m, 'a', "s");
	while (rc >= 0 && (rc = sd_bus_message_read_basic(m, 's', &s)) > 0) {
		if (n >= max) {
			strv_free(v);
			return sd_bus_error_setf(e, LNETD_ERR_LIMIT,
						 "%s: '%s' lists more than %u entries", what, name,
						 max);
		}
		if (n + 1 >= cap) {
			cap = cap ? 2 * cap : 8;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				strv_free(v);
				return -ENOMEM;
			}
			v = nv;
		}
		v[n] = strdup(s);
		if (!v[n]) {
			strv_free(v);
			return -ENOMEM;
		}
		v[++n] = NULL;
	}
	if (rc >= 0)
		rc = sd_bus_message_exit_container(m);
	if (rc < 0) {
		strv_free(v);
		return rc;
	}
	*out = v;
	return 0;
}

static int read_fields(sd_bus_message *m, struct field *f, const char *what, sd_bus_error *e)
{
	static const char *const tname[] = {['s'] = "a string",
					    ['u'] = "an unsigned 32-bit integer",
					    ['b'] = "a boolean",
					    ['a'] = "an array of strings"};
	const char *key, *contents;
	char type;
	int rc, k;

	rc = sd_bus_message_enter_container(m, 'a', "{sv}");
	while (rc >= 0 && (rc = sd_bus_message_enter_container(m, 'e', "sv")) > 0) {
		rc = sd_bus_message_read(m, "s", &key);
		if (rc < 0)
			return rc;
		for (k = 0; f[k].name && strcmp(f[k].name, key); k++)
			;
		if (!f[k].name)
			return sd_bus_error_setf(e, LNETD_ERR_INVALID, "%s: unknown field '%s'",
						 what, key);
		if (f[k].given)
			return sd_bus_error_setf(e, LNETD_ERR_INVALID, "%s: field '%s' given twice",
						 what, key);
		rc = sd_bus_message_peek_type(m, &type, &contents);
		if (rc < 0)
			return rc;
		if (strcmp(contents, f[k].type == 'a' ? "as" : (char[]){f[k].type, '\0'}))
			return sd_bus_error_setf(e, LNETD_ERR_INVALID, "%s: field '%s' must be %s",
						 what, key, tname[(int)f[k].type]);
		rc = sd_bus_message_enter_container(m, 'v', contents);
		if (rc >= 0)
			rc = f[k].type == 'a' ? read_strv_max(m, f[k].max, f[k].out, what, key, e)
					      : sd_bus_message_read_basic(m, f[k].type, f[k].out);
		if (rc >= 0)
			rc = sd_bus_message_exit_container(m);
		if (rc >= 0)
			rc = sd_bus_message_exit_container(m);
		f[k].given = true;
	}
	if (rc >= 0)
		rc = sd_bus_message_exit_container(m);
	return rc;
}

static int64_t given_or_unset(const struct field *f, uint32_t v)
{
	return f->given ? (int64_t)v : ST_UNSET;
}

/* --- globals --------------------------------------------------------------- */

static int set_global(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	struct lnetd_op op = {.verb = VERB_SET, .obj = OBJ_GLOBAL};
	int rc;

	rc = sd_bus_message_read(m, "su", &op.u.global.name, &op.u.global.value);
	return rc < 0 ? rc : change_one(m, d, &op, e);
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

/* --- NIs --------------------------------------------------------------------- */

/* The fields of an NI: AddNI's options, and Apply's "net" objects. */
struct ni_fields {
	const char *net, *ifname, *pattern, *cpts;
	uint32_t tun[4];
	struct field f[9];
};

static void ni_fields_init(struct ni_fields *nf)
{
	memset(nf, 0, sizeof(*nf));
	nf->f[0] = (struct field){"net", 's', &nf->net};
	nf->f[1] = (struct field){"interface", 's', &nf->ifname};
	nf->f[2] = (struct field){"pattern", 's', &nf->pattern};
	nf->f[3] = (struct field){"cpts", 's', &nf->cpts};
	nf->f[4] = (struct field){"peer_timeout", 'u', &nf->tun[0]};
	nf->f[5] = (struct field){"peer_credits", 'u', &nf->tun[1]};
	nf->f[6] = (struct field){"peer_buffer_credits", 'u', &nf->tun[2]};
	nf->f[7] = (struct field){"credits", 'u', &nf->tun[3]};
}

static void ni_fields_op(const struct ni_fields *nf, struct lnetd_op *op)
{
	op->u.ni = (struct st_ni){.net = nf->net,
				  .ifname = nf->ifname && *nf->ifname ? nf->ifname : NULL,
				  .pattern = nf->pattern && *nf->pattern ? nf->pattern : NULL,
				  .cpts = nf->cpts && *nf->cpts ? nf->cpts : NULL,
				  .peer_timeout = given_or_unset(&nf->f[4], nf->tun[0]),
				  .peer_credits = given_or_unset(&nf->f[5], nf->tun[1]),
				  .peer_buffer_credits = given_or_unset(&nf->f[6], nf->tun[2]),
				  .credits = given_or_unset(&nf->f[7], nf->tun[3])};
}

static int add_ni(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	struct lnetd_op op = {.verb = VERB_ADD, .obj = OBJ_NET};
	const char *net, *ifname;
	struct ni_fields nf;
	int rc;

	ni_fields_init(&nf);
	rc = sd_bus_message_read(m, "ss", &net, &ifname);
	if (rc >= 0)
		rc = read_fields(m, nf.f + 2, "AddNI", e); /* net and interface are arguments */
	if (rc < 0)
		return rc;
	nf.net = net;
	nf.ifname = ifname;
	if (!*ifname)
		return bus_fail(e, -EINVAL,
				"an NI needs an interface: '' is not an interface name");
	ni_fields_op(&nf, &op);
	return change_one(m, d, &op, e);
}

static int delete_ni(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	struct lnetd_op op = {.verb = VERB_DEL, .obj = OBJ_NET};
	const char *net, *ifname;
	int rc;

	rc = sd_bus_message_read(m, "ss", &net, &ifname);
	if (rc < 0)
		return rc;
	/* An interface, or an ip2nets pattern (it has a digit or '*' and a '.'). */
	op.u.ni = (struct st_ni){.net = net};
	if (strchr(ifname, '.') && strpbrk(ifname, "*[0123456789") == ifname)
		op.u.ni.pattern = ifname;
	else
		op.u.ni.ifname = *ifname ? ifname : NULL;
	return change_one(m, d, &op, e);
}

static int append_tun(sd_bus_message *reply, const struct lnetd_ni *n)
{
	return sd_bus_message_append(reply, "{sv}{sv}{sv}{sv}", "peer_timeout", "u",
				     n->tun.peer_timeout, "peer_credits", "u", n->tun.peer_credits,
				     "peer_buffer_credits", "u", n->tun.peer_buffer_credits,
				     "credits", "u", n->tun.credits);
}

/*
 * One row per configured NI: (net, interface or "", "applied" or "pending",
 * details).  Applied rows start with the first NI's nid, up and health, and
 * list every NI of the entry (an ip2nets pattern may give several) in
 * "nis" as (nid, interface, up, health).
 */
static int list_nis(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	struct khealth *kh = d->kb ? kbackend_health(d->kb, false) : NULL;
	sd_bus_message *reply = NULL;
	char nid[LNE_NID_STR_MAX];
	uint32_t health;
	size_t i, k;
	int rc;

	rc = sd_bus_message_new_method_return(m, &reply);
	if (rc >= 0)
		rc = sd_bus_message_open_container(reply, 'a', "(sssa{sv})");
	for (i = 0; rc >= 0 && i < d->nnis; i++) {
		const struct lnetd_ni *n = &d->nis[i];

		rc = sd_bus_message_open_container(reply, 'r', "sssa{sv}");
		if (rc >= 0)
			rc = sd_bus_message_append(reply, "sss", n->net, n->ifname,
						   n->nreal ? "applied" : "pending");
		if (rc >= 0)
			rc = sd_bus_message_open_container(reply, 'a', "{sv}");
		for (k = 0; rc >= 0 && k < n->nreal; k++) {
			const struct lne_ni *ni = lne_ni_find(d->mirror, &n->real[k].nid);

			/* Health is running state: the module's, with the kernel engine. */
			health = khealth_get(kh, &n->real[k].nid, ni ? (uint32_t)ni->health : 0);
			lne_nid_format(&n->real[k].nid, nid, sizeof(nid));
			if (!k)
				rc = sd_bus_message_append(reply, "{sv}{sv}{sv}", "nid", "s", nid,
							   "up", "b", ni && ni->up, "health", "u",
							   health);
			if (rc >= 0 && !k)
				rc = sd_bus_message_open_container(reply, 'e', "sv");
			if (rc >= 0 && !k)
				rc = sd_bus_message_append(reply, "s", "nis");
			if (rc >= 0 && !k)
				rc = sd_bus_message_open_container(reply, 'v', "a(ssbu)");
			if (rc >= 0 && !k)
				rc = sd_bus_message_open_container(reply, 'a', "(ssbu)");
			if (rc >= 0)
				rc = sd_bus_message_append(reply, "(ssbu)", nid, n->real[k].ifname,
							   ni && ni->up, health);
			if (rc >= 0 && k + 1 == n->nreal) {
				rc = sd_bus_message_close_container(reply);
				if (rc >= 0)
					rc = sd_bus_message_close_container(reply);
				if (rc >= 0)
					rc = sd_bus_message_close_container(reply);
			}
		}
		if (rc >= 0 && !n->nreal)
			rc = sd_bus_message_append(reply, "{sv}", "reason", "s", n->reason);
		if (rc >= 0 && *n->pattern)
			rc = sd_bus_message_append(reply, "{sv}", "pattern", "s", n->pattern);
		if (rc >= 0 && *n->cpts)
			rc = sd_bus_message_append(reply, "{sv}", "cpts", "s", n->cpts);
		if (rc >= 0)
			rc = append_tun(reply, n);
		if (rc >= 0)
			rc = sd_bus_message_close_container(reply);
		if (rc >= 0)
			rc = sd_bus_message_close_container(reply);
	}
	if (rc >= 0)
		rc = sd_bus_message_close_container(reply);
	if (rc >= 0)
		rc = sd_bus_send(NULL, reply, NULL);
	sd_bus_message_unref(reply);
	khealth_free(kh);
	return rc;
}

/* --- peers ------------------------------------------------------------------ */

static int peer_method(sd_bus_message *m, struct lnetd *d, enum lnetd_verb verb, sd_bus_error *e)
{
	struct lnetd_op op = {.verb = verb, .obj = OBJ_PEER};
	const char *what = verb == VERB_ADD ? "AddPeer" : "DeletePeer";
	char **nids = NULL;
	struct caller c;
	size_t n = 0;
	int rc, mr = 1;

	rc = sd_bus_message_read(m, "s", &op.u.peer.primary);
	if (rc >= 0)
		rc = read_strv_max(m, LNETD_PEER_NIDS_MAX, &nids, what, "nids", e);
	if (rc >= 0 && verb == VERB_ADD)
		rc = sd_bus_message_read(m, "b", &mr);
	for (; nids && nids[n]; n++)
		;
	op.u.peer.nids = (const char *const *)nids;
	op.u.peer.n = n;
	op.u.peer.mr = mr;
	if (rc >= 0)
		rc = bus_authorise(m, &c, e);
	if (rc == 0)
		rc = run(d, &c, &op, 1, false, NULL, e);
	strv_free(nids);
	if (rc > 0) /* polkit is asked: the call comes back with the answer */
		return 1;
	return rc < 0 ? rc : reply_generation(m, d);
}

static int add_peer(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	return peer_method(m, userdata, VERB_ADD, e);
}

static int delete_peer(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	return peer_method(m, userdata, VERB_DEL, e);
}

static int cmp_peer(const void *a, const void *b)
{
	char x[LNE_NID_STR_MAX], y[LNE_NID_STR_MAX];

	lne_nid_format(&(*(struct lne_peer *const *)a)->primary, x, sizeof(x));
	lne_nid_format(&(*(struct lne_peer *const *)b)->primary, y, sizeof(y));
	return strcmp(x, y);
}

/* Explicit and implicit peers, by primary NID text: the same order whatever their history. */
static int list_peers(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	struct khealth *kh = NULL;
	const struct lne_peer_net *pnet;
	const struct lne_peer_ni *pni;
	struct lne_peer *peer, **all;
	sd_bus_message *reply = NULL;
	char buf[LNE_NID_STR_MAX];
	size_t n = 0, i;
	int rc;

	lne_list_for_each_entry(peer, &d->mirror->peers, link)
		n++;
	all = calloc(n ? n : 1, sizeof(*all));
	if (!all)
		return bus_fail(e, -ENOMEM, "out of memory");
	/* Health is running state: the module's, with the kernel engine. */
	if (d->kb && n)
		kh = kbackend_health(d->kb, true);
	n = 0;
	lne_list_for_each_entry(peer, &d->mirror->peers, link)
		all[n++] = peer;
	qsort(all, n, sizeof(*all), cmp_peer);
	rc = sd_bus_message_new_method_return(m, &reply);
	if (rc >= 0)
		rc = sd_bus_message_open_container(reply, 'a', "(sbba(su))");
	for (i = 0; rc >= 0 && i < n; i++) {
		peer = all[i];
		lne_nid_format(&peer->primary, buf, sizeof(buf));
		rc = sd_bus_message_open_container(reply, 'r', "sbba(su)");
		if (rc >= 0)
			rc = sd_bus_message_append(reply, "sbb", buf, peer->mr, peer->implicit);
		if (rc >= 0)
			rc = sd_bus_message_open_container(reply, 'a', "(su)");
		lne_list_for_each_entry(pnet, &peer->pnets, link)
			lne_list_for_each_entry(pni, &pnet->pnis, pnet_link) {
				lne_nid_format(&pni->nid, buf, sizeof(buf));
				if (rc >= 0)
					rc = sd_bus_message_append(
						reply, "(su)", buf,
						khealth_get(kh, &pni->nid, (uint32_t)pni->health));
			}
		if (rc >= 0)
			rc = sd_bus_message_close_container(reply);
		if (rc >= 0)
			rc = sd_bus_message_close_container(reply);
	}
	free(all);
	khealth_free(kh);
	if (rc >= 0)
		rc = sd_bus_message_close_container(reply);
	if (rc >= 0)
		rc = sd_bus_send(NULL, reply, NULL);
	sd_bus_message_unref(reply);
	return rc;
}

/* --- routes ------------------------------------------------------------------- */

/* The fields of a route: AddRoute's options, and Apply's "route" objects. */
struct route_fields {
	const char *net, *gateway;
	uint32_t v[3];
	struct field f[6];
};

static void route_fields_init(struct route_fields *rf)
{
	memset(rf, 0, sizeof(*rf));
	rf->f[0] = (struct field){"net", 's', &rf->net};
	rf->f[1] = (struct field){"gateway", 's', &rf->gateway};
	rf->f[2] = (struct field){"hops", 'u', &rf->v[0]};
	rf->f[3] = (struct field){"priority", 'u', &rf->v[1]};
	rf->f[4] = (struct field){"sensitivity", 'u', &rf->v[2]};
}

static void route_fields_op(const struct route_fields *rf, struct lnetd_op *op)
{
	op->u.route = (struct st_route){.net = rf->net,
					.gateway = rf->gateway,
					.hops = given_or_unset(&rf->f[2], rf->v[0]),
					.priority = given_or_unset(&rf->f[3], rf->v[1]),
					.sensitivity = given_or_unset(&rf->f[4], rf->v[2])};
}

static int route_method(sd_bus_message *m, struct lnetd *d, enum lnetd_verb verb, sd_bus_error *e)
{
	struct lnetd_op op = {.verb = verb, .obj = OBJ_ROUTE};
	struct route_fields rf;
	int rc;

	route_fields_init(&rf);
	rc = sd_bus_message_read(m, "ss", &rf.net, &rf.gateway);
	if (rc >= 0 && verb == VERB_ADD)
		rc = read_fields(m, rf.f + 2, "AddRoute", e);
	if (rc < 0)
		return rc;
	route_fields_op(&rf, &op);
	return change_one(m, d, &op, e);
}

static int add_route(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	return route_method(m, userdata, VERB_ADD, e);
}

static int delete_route(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	return route_method(m, userdata, VERB_DEL, e);
}

static int list_routes(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	char nbuf[LNE_NET_STR_MAX], gbuf[LNE_NID_STR_MAX];
	const struct lne_route *rt;
	sd_bus_message *reply = NULL;
	int rc;

	rc = sd_bus_message_new_method_return(m, &reply);
	if (rc >= 0)
		rc = sd_bus_message_open_container(reply, 'a', "(ssuuu)");
	lne_list_for_each_entry(rt, &d->mirror->routes, link) {
		lne_net_format(rt->rnet->id, nbuf, sizeof(nbuf));
		lne_nid_format(&rt->gw->nid, gbuf, sizeof(gbuf));
		if (rc >= 0)
			rc = sd_bus_message_append(reply, "(ssuuu)", nbuf, gbuf, rt->hops,
						   rt->priority, rt->sensitivity);
	}
	if (rc >= 0)
		rc = sd_bus_message_close_container(reply);
	if (rc >= 0)
		rc = sd_bus_send(NULL, reply, NULL);
	sd_bus_message_unref(reply);
	return rc;
}

/* --- UDSP rules ------------------------------------------------------------------ */

/* The fields of a rule: AddRule's options, and Apply's "udsp" objects. */
struct rule_fields {
	const char *src, *dst, *rte, *kind;
	uint32_t prio, idx;
	int all;
	struct field f[8];
};

static void rule_fields_init(struct rule_fields *rf)
{
	memset(rf, 0, sizeof(*rf));
	rf->f[0] = (struct field){"src", 's', &rf->src};
	rf->f[1] = (struct field){"dst", 's', &rf->dst};
	rf->f[2] = (struct field){"rte", 's', &rf->rte};
	rf->f[3] = (struct field){"priority", 'u', &rf->prio};
	rf->f[4] = (struct field){"idx", 'u', &rf->idx};
	rf->f[5] = (struct field){"all", 'b', &rf->all};
	rf->f[6] = (struct field){"kind", 's', &rf->kind};
}

static void rule_fields_op(const struct rule_fields *rf, struct lnetd_op *op)
{
	op->u.rule.src = rf->src;
	op->u.rule.dst = rf->dst;
	op->u.rule.rte = rf->rte;
	op->u.rule.priority = given_or_unset(&rf->f[3], rf->prio);
	op->u.rule.idx = given_or_unset(&rf->f[4], rf->idx);
	op->u.rule.all = rf->all;
	op->u.rule.kind = rf->kind;
}

static int add_rule(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	struct lnetd_op op = {.verb = VERB_ADD, .obj = OBJ_UDSP};
	struct rule_fields rf;
	struct caller c;
	int rc;

	rule_fields_init(&rf);
	rc = sd_bus_message_read(m, "sss", &rf.src, &rf.dst, &rf.rte);
	if (rc >= 0)
		rc = read_fields(m, rf.f + 3, "AddRule", e);
	if (rc < 0)
		return rc;
	if (rf.f[5].given)
		return bus_fail(e, -EINVAL, "AddRule: unknown field 'all'");
	rule_fields_op(&rf, &op);
	rc = bus_authorise(m, &c, e);
	if (rc > 0) /* polkit is asked: the call comes back with the answer */
		return 1;
	if (rc >= 0)
		rc = run(d, &c, &op, 1, false, NULL, e);
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
	return rc < 0 ? rc : change_one(m, d, &op, e);
}

/* DeleteRuleMatching(src, dst, rte, {idx}): the rule these expressions name. */
static int delete_rule_matching(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	struct lnetd_op op = {.verb = VERB_DEL, .obj = OBJ_UDSP};
	struct rule_fields rf;
	int rc;

	rule_fields_init(&rf);
	rc = sd_bus_message_read(m, "sss", &rf.src, &rf.dst, &rf.rte);
	if (rc >= 0)
		rc = read_fields(m, rf.f + 4, "DeleteRuleMatching", e);
	if (rc < 0)
		return rc;
	if (rf.f[5].given || rf.f[6].given)
		return bus_fail(e, -EINVAL,
				rf.f[5].given ? "DeleteRuleMatching: unknown field 'all'"
					      : "DeleteRuleMatching: unknown field 'kind'");
	if (!*rf.src && !*rf.dst && !*rf.rte)
		return bus_fail(e, -EINVAL, "DeleteRuleMatching: a rule has a src, dst or rte");
	rule_fields_op(&rf, &op);
	return change_one(m, d, &op, e);
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

/* With the kernel backend, health is the module's: set it there too. */
static int module_health(struct lnetd *d, bool peer, const struct lne_nid *nid, uint32_t value,
			 sd_bus_error *e)
{
	char why[LNE_ERR_MSG_MAX + 128];
	int rc;

	if (!d->kb)
		return 0;
	rc = kbackend_set_health(d->kb, peer, nid, value, why, sizeof(why));
	return rc ? bus_fail(e, rc, why) : 0;
}

/* --- health: running state, not configuration ---------------------------------- */

/*
 * SetHealth("ni", NID | net | "", value) or ("peer_ni", NID | "", value):
 * what an admin does to steer traffic away from (or back to) a path for a
 * while.  It is not configuration: it is not stored, and a restart or a
 * rebuild of the engine starts every NI healthy again.
 */
static int set_health(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	struct lne_err lerr = {.msg = ""};
	const char *what, *target;
	struct lne_nid nid;
	char canon[LNE_NID_STR_MAX];
	struct caller c;
	lne_net_t net = 0;
	bool by_net = false, peer;
	uint32_t value, hit = 0;
	int rc;

	rc = sd_bus_message_read(m, "ssu", &what, &target, &value);
	if (rc < 0)
		return rc;
	peer = !strcmp(what, "peer_ni");
	if (!peer && strcmp(what, "ni"))
		return sd_bus_error_setf(e, LNETD_ERR_INVALID,
					 "'%s' has no health here: say ni or peer_ni", what);
	if (value > LNE_HEALTH_MAX)
		return sd_bus_error_setf(e, LNETD_ERR_RANGE, "health %u is above %d", value,
					 LNE_HEALTH_MAX);
	if (*target && !strchr(target, '@') && !peer) {
		if (lne_net_parse(target, &net, &lerr))
			return bus_fail(e, -EINVAL, lerr.msg);
		by_net = true;
	} else if (*target) {
		rc = nid_arg(target, &nid, canon, e);
		if (rc < 0)
			return rc;
	}
	rc = bus_authorise(m, &c, e);
	if (rc != 0) /* refused, or polkit is asked and the call comes back */
		return rc;
	if (*target && !by_net) {
		rc = peer ? lne_peer_ni_set_health(d->mirror, &nid, (s32)value, &lerr)
			  : lne_ni_set_health(d->mirror, &nid, (s32)value, &lerr);
		if (rc)
			return bus_fail(e, rc, lerr.msg);
		rc = module_health(d, peer, &nid, value, e);
		if (rc < 0)
			return rc;
		hit = 1;
	} else if (peer) {
		struct lne_peer *p;
		struct lne_peer_net *pnet;
		struct lne_peer_ni *pni;

		lne_list_for_each_entry(p, &d->mirror->peers, link)
			lne_list_for_each_entry(pnet, &p->pnets, link)
				lne_list_for_each_entry(pni, &pnet->pnis, pnet_link) {
					lne_peer_ni_set_health(d->mirror, &pni->nid, (s32)value,
							       NULL);
					if (rc >= 0)
						rc = module_health(d, true, &pni->nid, value, e);
					hit++;
				}
	} else {
		size_t i, k;

		for (i = 0; i < d->nnis; i++)
			for (k = 0; k < d->nis[i].nreal; k++) {
				if (by_net && lne_nid_net(&d->nis[i].real[k].nid) != net)
					continue;
				lne_ni_set_health(d->mirror, &d->nis[i].real[k].nid, (s32)value,
						  NULL);
				if (rc >= 0)
					rc = module_health(d, false, &d->nis[i].real[k].nid, value,
							   e);
				hit++;
			}
		if (by_net && !hit)
			return sd_bus_error_setf(e, LNETD_ERR_NOT_FOUND, "no NI of %s is applied",
						 target);
	}
	if (rc < 0)
		return rc;
	return sd_bus_reply_method_return(m, "u", hit);
}

/* --- Apply: a list of operations, all or nothing ------------------------------ */

/*
 * Each operation's fields, parsed in place (strings point into the message).
 * @owns says which string list the slot holds (a peer's NIDs, a TBF queue's
 * rules): it is freed whatever became of the rest.
 */
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
		struct {
			const char *primary;
			char **nids;
			int mr;
			struct field f[4];
		} peer;
		struct {
			const char *name;
			uint32_t value;
			struct field f[3];
		} global;
		struct {
			const char *service, *queue, *type, *command;
			uint32_t depth;
			char **rules;
			struct field f[7];
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

static void slot_clear(struct apply_slot *slot)
{
	if (slot->owns == OWNS_NIDS)
		strv_free(slot->u.peer.nids);
	else if (slot->owns == OWNS_RULES)
		strv_free(slot->u.tbf.rules);
	slot->owns = OWNS_NOTHING;
}

/*
 * One (verb, object, fields) into @op; fields that need freeing stay in
 * @slot.  Both are set before anything can fail, so the caller frees the
 * slot of every operation it read, refused or not.
 */
static int apply_read_op(sd_bus_message *m, size_t i, struct lnetd_op *op, struct apply_slot *slot,
			 sd_bus_error *e)
{
	const char *verb, *obj;
	char what[96];
	int rc, v, o;

	memset(slot, 0, sizeof(*slot));
	*op = (struct lnetd_op){.ensure = true};
	rc = sd_bus_message_read(m, "ss", &verb, &obj);
	if (rc < 0)
		return rc;
	v = lnetd_verb_lookup(verb);
	o = lnetd_obj_lookup(obj);
	snprintf(what, sizeof(what), "operation %zu (%.32s %.32s)", i + 1, verb, obj);
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
		ni_fields_init(&slot->u.ni);
		rc = read_fields(m, slot->u.ni.f, what, e);
		if (rc >= 0 && !need(&slot->u.ni.f[0], what, e))
			rc = -EINVAL;
		if (rc >= 0 && v == VERB_ADD && !slot->u.ni.f[1].given && !slot->u.ni.f[2].given)
			rc = sd_bus_error_setf(e, LNETD_ERR_INVALID,
					       "%s: an NI needs 'interface' or 'pattern'", what);
		ni_fields_op(&slot->u.ni, op);
		break;
	case OBJ_PEER:
		slot->u.peer.mr = 1;
		slot->u.peer.f[0] = (struct field){"primary", 's', &slot->u.peer.primary};
		slot->u.peer.f[1] =
			(struct field){"nids", 'a', &slot->u.peer.nids, .max = LNETD_PEER_NIDS_MAX};
		slot->owns = OWNS_NIDS;
		slot->u.peer.f[2] = (struct field){"multi_rail", 'b', &slot->u.peer.mr};
		rc = read_fields(m, slot->u.peer.f, what, e);
		if (rc >= 0 && !need(&slot->u.peer.f[0], what, e))
			rc = -EINVAL;
		op->u.peer.primary = slot->u.peer.primary;
		op->u.peer.nids = (const char *const *)slot->u.peer.nids;
		for (op->u.peer.n = 0; slot->u.peer.nids && slot->u.peer.nids[op->u.peer.n];
		     op->u.peer.n++)
			;
		op->u.peer.mr = slot->u.peer.f[2].given ? slot->u.peer.mr : -1;
		break;
	case OBJ_ROUTE:
		route_fields_init(&slot->u.route);
		rc = read_fields(m, slot->u.route.f, what, e);
		if (rc >= 0 &&
		    (!need(&slot->u.route.f[0], what, e) || !need(&slot->u.route.f[1], what, e)))
			rc = -EINVAL;
		route_fields_op(&slot->u.route, op);
		break;
	case OBJ_GLOBAL:
		slot->u.global.f[0] = (struct field){"name", 's', &slot->u.global.name};
		slot->u.global.f[1] = (struct field){"value", 'u', &slot->u.global.value};
		rc = read_fields(m, slot->u.global.f, what, e);
		if (rc >= 0 &&
		    (!need(&slot->u.global.f[0], what, e) || !need(&slot->u.global.f[1], what, e)))
			rc = -EINVAL;
		op->u.global.name = slot->u.global.name;
		op->u.global.value = slot->u.global.value;
		break;
	case OBJ_UDSP:
		rule_fields_init(&slot->u.rule);
		rc = read_fields(m, slot->u.rule.f, what, e);
		if (rc >= 0 && v == VERB_DEL && !slot->u.rule.f[4].given && !slot->u.rule.all &&
		    !slot->u.rule.f[0].given && !slot->u.rule.f[1].given &&
		    !slot->u.rule.f[2].given)
			rc = sd_bus_error_setf(e, LNETD_ERR_INVALID,
					       "%s: say which rule ('idx', its 'src', 'dst' and "
					       "'rte') or 'all'",
					       what);
		if (rc >= 0 && v == VERB_ADD && slot->u.rule.f[5].given)
			rc = sd_bus_error_setf(e, LNETD_ERR_INVALID,
					       "%s: 'all' is for deleting rules", what);
		if (rc >= 0 && v == VERB_DEL && slot->u.rule.all &&
		    (slot->u.rule.f[0].given || slot->u.rule.f[1].given ||
		     slot->u.rule.f[2].given || slot->u.rule.f[4].given))
			rc = sd_bus_error_setf(e, LNETD_ERR_INVALID,
					       "%s: 'all' deletes every rule: it takes no "
					       "src, dst, rte or idx",
					       what);
		if (rc >= 0 && v == VERB_DEL && slot->u.rule.f[6].given)
			rc = sd_bus_error_setf(e, LNETD_ERR_INVALID,
					       "%s: 'kind' is for adding rules", what);
		rule_fields_op(&slot->u.rule, op);
		break;
	case OBJ_TBF:
		slot->u.tbf.f[0] = (struct field){"service", 's', &slot->u.tbf.service};
		slot->u.tbf.f[1] = (struct field){"queue", 's', &slot->u.tbf.queue};
		slot->u.tbf.f[2] = (struct field){"type", 's', &slot->u.tbf.type};
		slot->u.tbf.f[3] = (struct field){"depth", 'u', &slot->u.tbf.depth};
		slot->u.tbf.f[4] =
			(struct field){"rules", 'a', &slot->u.tbf.rules, .max = LNETD_TBF_LIST_MAX};
		slot->owns = OWNS_RULES;
		slot->u.tbf.f[5] = (struct field){"command", 's', &slot->u.tbf.command};
		rc = read_fields(m, slot->u.tbf.f, what, e);
		if (rc >= 0 && !need(&slot->u.tbf.f[0], what, e))
			rc = -EINVAL;
		if (rc >= 0 && v == VERB_ADD && !need(&slot->u.tbf.f[5], what, e))
			rc = -EINVAL;
		if (rc >= 0 && v != VERB_ADD && slot->u.tbf.f[5].given)
			rc = sd_bus_error_setf(e, LNETD_ERR_INVALID,
					       "%s: 'command' is for adding a rule command", what);
		op->u.tbf = (struct lnetd_tbf_op){
			.service = slot->u.tbf.service,
			.queue = slot->u.tbf.queue,
			.type = slot->u.tbf.type,
			.depth = given_or_unset(&slot->u.tbf.f[3], slot->u.tbf.depth),
			.rules = slot->u.tbf.f[4].given ? (const char *const *)slot->u.tbf.rules
							: NULL,
			.command = slot->u.tbf.command};
		for (op->u.tbf.nrules = 0; slot->u.tbf.rules && slot->u.tbf.rules[op->u.tbf.nrules];
		     op->u.tbf.nrules++)
			;
		if (slot->u.tbf.f[4].given && !slot->u.tbf.rules)
			op->u.tbf.rules = no_rules; /* an empty list: no rule but default */
		break;
	}
	return rc;
}

/* Lines of @text as "as". */
static int append_lines(sd_bus_message *reply, const char *text)
{
	const char *p = text ?: "", *nl;
	int rc = sd_bus_message_open_container(reply, 'a', "s");

	while (rc >= 0 && *p) {
		char *line;

		nl = strchrnul(p, '\n');
		line = strndup(p, (size_t)(nl - p));
		rc = line ? sd_bus_message_append(reply, "s", line) : -ENOMEM;
		free(line);
		p = *nl ? nl + 1 : nl;
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

/* Apply(ops, dry_run) and ApplyWith(ops, {dry_run, exclusive}). */
static int apply_ops(sd_bus_message *m, struct lnetd *d, bool with, sd_bus_error *e)
{
	struct apply_slot *slot = NULL;
	struct lnetd_op *ops = NULL;
	sd_bus_message *reply = NULL;
	char *summary = NULL;
	size_t n = 0, cap = 0, i, items = 0;
	bool authorised;
	struct caller c;
	int rc, dry = 0, exclusive = 0;

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
			struct apply_slot *sl = o ? realloc(slot, ncap * sizeof(*sl)) : NULL;

			if (o)
				ops = o;
			if (!o || !sl) {
				rc = bus_fail(e, -ENOMEM, "out of memory");
				break;
			}
			slot = sl;
			cap = ncap;
		}
		/* Counted once read, refused or not: its slot is cleared below. */
		rc = apply_read_op(m, n, &ops[n], &slot[n], e);
		items += op_items(&ops[n]);
		n++;
		if (rc >= 0)
			rc = sd_bus_message_exit_container(m);
	}
	if (rc >= 0)
		rc = sd_bus_message_exit_container(m);
	if (rc >= 0 && with) {
		struct field f[] = {{"dry_run", 'b', &dry}, {"exclusive", 'b', &exclusive}, {NULL}};

		rc = read_fields(m, f, "ApplyWith", e);
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
	if (rc == 0 && !authorised) {
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
	if (rc == 0 && authorised)
		rc = run_numbered(d, &c, ops, n, dry, 0, &summary, e);
	if (rc == 0)
		rc = sd_bus_message_new_method_return(m, &reply);
	if (rc >= 0 && reply)
		rc = sd_bus_message_append(reply, "t", d->generation);
	if (rc >= 0 && reply)
		rc = append_lines(reply, summary);
	if (rc >= 0 && reply)
		rc = sd_bus_send(NULL, reply, NULL);
	sd_bus_message_unref(reply);
	for (i = 0; i < n; i++)
		slot_clear(&slot[i]);
	free(summary);
	free(slot);
	free(ops);
	/* rc > 0: polkit is asked, and the call comes back with the answer. */
	return rc > 0 ? 1 : rc;
}

static int apply(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	return apply_ops(m, userdata, false, e);
}

static int apply_with(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	return apply_ops(m, userdata, true, e);
}

/* --- Export: the desired state as Apply's operations ----------------------------- */

static int op_open(sd_bus_message *r, const char *verb, const char *obj)
{
	int rc = sd_bus_message_open_container(r, 'r', "ssa{sv}");

	if (rc >= 0)
		rc = sd_bus_message_append(r, "ss", verb, obj);
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
	return v ? sd_bus_message_append(r, "{sv}", k, "s", v) : 0;
}

static int put_u(sd_bus_message *r, const char *k, int64_t v)
{
	return v != ST_UNSET ? sd_bus_message_append(r, "{sv}", k, "u", (uint32_t)v) : 0;
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
		if (rc >= 0)
			rc = put_u(r, "peer_timeout", n->peer_timeout);
		if (rc >= 0)
			rc = put_u(r, "peer_credits", n->peer_credits);
		if (rc >= 0)
			rc = put_u(r, "peer_buffer_credits", n->peer_buffer_credits);
		if (rc >= 0)
			rc = put_u(r, "credits", n->credits);
		if (rc >= 0)
			rc = op_close(r);
	}
	for (i = 0; rc >= 0 && i < st->n_peer; i++) {
		const struct st_peer *p = &st->peer[i];

		rc = op_open(r, "add", "peer");
		if (rc >= 0)
			rc = sd_bus_message_append(r, "{sv}{sv}", "primary", "s", p->nid,
						   "multi_rail", "b", p->mr);
		if (rc >= 0)
			rc = sd_bus_message_open_container(r, 'e', "sv");
		if (rc >= 0)
			rc = sd_bus_message_append(r, "s", "nids");
		if (rc >= 0)
			rc = sd_bus_message_open_container(r, 'v', "as");
		if (rc >= 0)
			rc = sd_bus_message_open_container(r, 'a', "s");
		for (k = 0; rc >= 0 && k < p->nnids; k++)
			rc = sd_bus_message_append(r, "s", p->nids[k]);
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
		if (rc >= 0)
			rc = put_u(r, "hops", rt->hops);
		if (rc >= 0)
			rc = put_u(r, "priority", rt->priority);
		if (rc >= 0)
			rc = put_u(r, "sensitivity", rt->sensitivity);
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

static int export(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	sd_bus_message *reply = NULL;
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
	sd_bus_message_unref(reply);
	st_state_clear(&st);
	return rc;
}

/* --- Status: what is configured, what is realised, and why not ----------------- */

static int status(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	sd_bus_message *reply = NULL;
	struct st_state st = {0};
	char why[LNE_ERR_MSG_MAX + 128] = "";
	size_t i, nis = 0;
	bool in_module;
	uint32_t k;
	int rc;

	rc = store_state_get(d->store, &st);
	if (rc)
		return bus_fail(e, -EIO, "the store cannot be read");
	for (i = 0; i < d->nnis; i++)
		nis += d->nis[i].nreal > 0;
	/* Applied: in the engine that runs LNet.  The userspace engine is the mirror; the
	 * kernel backend says whether the module holds what the mirror does. */
	in_module = !d->kb || kbackend_applied(d->kb, why, sizeof(why));
	k = in_module ? 1 : 0;
	rc = sd_bus_message_new_method_return(m, &reply);
	if (rc >= 0)
		rc = sd_bus_message_append(reply, "ts", d->generation, d->engine);
	if (rc >= 0)
		rc = sd_bus_message_append(reply, "a(suu)", 6, "net", (uint32_t)st.n_ni,
					   (uint32_t)nis * k, "peer", (uint32_t)st.n_peer,
					   (uint32_t)st.n_peer * k, "route", (uint32_t)st.n_route,
					   (uint32_t)st.n_route * k, "udsp", (uint32_t)st.n_rule,
					   (uint32_t)st.n_rule * k, "global", (uint32_t)st.n_global,
					   (uint32_t)st.n_global * k, "tbf", (uint32_t)st.n_tbf,
					   (uint32_t)st.n_tbf * k);
	if (rc >= 0)
		rc = sd_bus_message_open_container(reply, 'a', "(sss)");
	if (rc >= 0 && !in_module)
		rc = sd_bus_message_append(reply, "(sss)", "module", "lnetk", why);
	for (i = 0; rc >= 0 && i < d->nnis; i++) {
		const struct lnetd_ni *n = &d->nis[i];
		char key[LNE_NET_STR_MAX + LNETD_PATTERN_MAX + 8];

		if (n->nreal)
			continue;
		snprintf(key, sizeof(key), "%s on %s", n->net, *n->ifname ? n->ifname : n->pattern);
		rc = sd_bus_message_append(reply, "(sss)", "net", key, n->reason);
	}
	if (rc >= 0)
		rc = sd_bus_message_close_container(reply);
	if (rc >= 0)
		rc = sd_bus_send(NULL, reply, NULL);
	sd_bus_message_unref(reply);
	st_state_clear(&st);
	return rc;
}

/* --- TBF --------------------------------------------------------------------------- */

static int tbf_set_policy(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	struct lnetd_op op = {.verb = VERB_SET, .obj = OBJ_TBF};
	const char *type = NULL;
	uint32_t depth = 0;
	struct field f[] = {{"type", 's', &type}, {"depth", 'u', &depth}, {NULL}};
	int rc;

	rc = sd_bus_message_read(m, "ss", &op.u.tbf.service, &op.u.tbf.queue);
	if (rc >= 0)
		rc = read_fields(m, f, "TbfSetPolicy", e);
	op.u.tbf.type = type;
	op.u.tbf.depth = given_or_unset(&f[1], depth);
	return rc < 0 ? rc : change_one(m, d, &op, e);
}

static int tbf_command(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	struct lnetd_op op = {.verb = VERB_ADD, .obj = OBJ_TBF};
	int rc;

	rc = sd_bus_message_read(m, "ss", &op.u.tbf.service, &op.u.tbf.command);
	return rc < 0 ? rc : change_one(m, d, &op, e);
}

static int tbf_delete(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	struct lnetd_op op = {.verb = VERB_DEL, .obj = OBJ_TBF};
	int rc;

	rc = sd_bus_message_read(m, "s", &op.u.tbf.service);
	return rc < 0 ? rc : change_one(m, d, &op, e);
}

static int append_stats(sd_bus_message *r, const struct lne_tbf_stats *s)
{
	return sd_bus_message_append(r, "ttttt", s->queued, s->enqueued, s->dispatched, s->wait_ns,
				     s->throttled);
}

/* A rule row of ListTbf: (name, command, rate, realtime, classes, statistics). */
static int append_rule_row(sd_bus_message *r, const char *name, const char *text, uint32_t rate,
			   bool realtime, uint32_t nclasses, const struct lne_tbf_stats *st)
{
	int rc = sd_bus_message_open_container(r, 'r', "ssubuttttt");

	if (rc >= 0)
		rc = sd_bus_message_append(r, "ssubu", name, text, rate, (int)realtime, nclasses);
	if (rc >= 0)
		rc = append_stats(r, st);
	return rc >= 0 ? sd_bus_message_close_container(r) : rc;
}

/* A class row of ListTbf: (key, the rule it follows, statistics). */
static int append_class_row(sd_bus_message *r, const char *key, const char *rule,
			    const struct lne_tbf_stats *st)
{
	int rc = sd_bus_message_open_container(r, 'r', "ssttttt");

	if (rc >= 0)
		rc = sd_bus_message_append(r, "ss", key, rule);
	if (rc >= 0)
		rc = append_stats(r, st);
	return rc >= 0 ? sd_bus_message_close_container(r) : rc;
}

/* One queue: (service, queue, type, depth, rules, classes). */
static int append_tbf_queue(sd_bus_message *r, const struct lne_tbf *tbf, enum lne_tbf_queue q)
{
	char type[64], text[LNE_TBF_CMD_MAX + 16];
	const struct lne_tbf_rule *rule;
	const struct lne_tbf_class *cls;
	struct lne_tbf_queue_info info;
	int rc;

	lne_tbf_queue_info(tbf, q, &info);
	lne_tbf_type_format(info.fields, type, sizeof(type));
	rc = sd_bus_message_open_container(r, 'r', "sssua(ssubuttttt)a(ssttttt)");
	if (rc >= 0)
		rc = sd_bus_message_append(r, "sssu", lne_tbf_service(tbf),
					   q == LNE_TBF_REG ? "reg" : "hp", type, info.depth);
	if (rc >= 0)
		rc = sd_bus_message_open_container(r, 'a', "(ssubuttttt)");
	for (rule = lne_tbf_rule_next(tbf, q, NULL); rc >= 0 && rule;
	     rule = lne_tbf_rule_next(tbf, q, rule)) {
		lne_tbf_rule_format(rule, text, sizeof(text));
		rc = append_rule_row(r, rule->name, text, rule->rate, rule->realtime,
				     rule->nclasses, &rule->stats);
	}
	if (rc >= 0)
		rc = sd_bus_message_close_container(r);
	if (rc >= 0)
		rc = sd_bus_message_open_container(r, 'a', "(ssttttt)");
	for (cls = lne_tbf_class_next(tbf, q, NULL); rc >= 0 && cls;
	     cls = lne_tbf_class_next(tbf, q, cls)) {
		const struct lne_tbf_rule *follows = lne_tbf_class_rule(tbf, cls);

		lne_tbf_class_format(cls, text, sizeof(text));
		rc = append_class_row(r, text, follows ? follows->name : "", &cls->stats);
	}
	if (rc >= 0)
		rc = sd_bus_message_close_container(r);
	return rc >= 0 ? sd_bus_message_close_container(r) : rc;
}

/* One queue of a policy the module runs, in append_tbf_queue's form. */
static int append_module_queue(sd_bus_message *r, const char *service,
			       const struct lnetk_tbf_qinfo *qi, const struct ktbf_class *cls,
			       size_t ncls)
{
	int rc = sd_bus_message_open_container(r, 'r', "sssua(ssubuttttt)a(ssttttt)");
	size_t i;

	if (rc >= 0)
		rc = sd_bus_message_append(r, "sssu", service,
					   qi->queue == LNETK_TBF_HP ? "hp" : "reg", qi->type,
					   qi->depth);
	if (rc >= 0)
		rc = sd_bus_message_open_container(r, 'a', "(ssubuttttt)");
	for (i = 0; rc >= 0 && i < qi->nrules; i++) {
		const struct lnetk_tbf_rule *k = &qi->rules[i];
		struct lne_tbf_stats st = {k->queued, k->enqueued, k->dispatched, k->wait_ns,
					   k->throttled};

		rc = append_rule_row(r, k->name, k->text, k->rate, k->realtime, k->nclasses, &st);
	}
	if (rc >= 0)
		rc = sd_bus_message_close_container(r);
	if (rc >= 0)
		rc = sd_bus_message_open_container(r, 'a', "(ssttttt)");
	for (i = 0; rc >= 0 && i < ncls; i++) {
		const struct ktbf_class *c = &cls[i];
		struct lne_tbf_stats st = {c->queued, c->enqueued, c->dispatched, c->wait_ns,
					   c->throttled};

		if (c->queue == qi->queue)
			rc = append_class_row(r, c->key, c->rule, &st);
	}
	if (rc >= 0)
		rc = sd_bus_message_close_container(r);
	return rc >= 0 ? sd_bus_message_close_container(r) : rc;
}

static int append_module_policy(const struct lnetk_tbf *t, const struct ktbf_class *cls,
				size_t ncls, void *arg)
{
	size_t q;
	int rc = 0;

	for (q = 0; rc >= 0 && q < t->nqueues; q++)
		rc = append_module_queue(arg, t->service, &t->queues[q], cls, ncls);
	return rc < 0 ? rc : 0;
}

/*
 * The policies and their statistics.  With the kernel engine the traffic
 * is the module's: so are the rules' counts and the classes, read from it
 * (while it is loaded; the mirror's otherwise, which carry no traffic).
 */
static int list_tbf(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	struct lnetk *lk = d->kb ? kbackend_lnetk(d->kb) : NULL;
	sd_bus_message *reply = NULL;
	struct lnetk_err err = {.msg = ""};
	size_t i;
	int rc, q;

	rc = sd_bus_message_new_method_return(m, &reply);
	if (rc >= 0)
		rc = sd_bus_message_open_container(reply, 'a', "(sssua(ssubuttttt)a(ssttttt))");
	if (rc >= 0 && lk) {
		rc = ktbf_read(lk, append_module_policy, reply, &err);
		if (rc < 0 && err.msg[0]) {
			sd_bus_message_unref(reply);
			return sd_bus_error_setf(e, SD_BUS_ERROR_FAILED,
						 "cannot read the lnetk module's TBF policies: %s",
						 err.msg);
		}
	}
	for (i = 0; rc >= 0 && !lk && i < d->ntbf; i++)
		for (q = 0; rc >= 0 && q < LNE_TBF_NQUEUES; q++)
			rc = append_tbf_queue(reply, d->tbf[i], q);
	if (rc >= 0)
		rc = sd_bus_message_close_container(reply);
	if (rc >= 0)
		rc = sd_bus_send(NULL, reply, NULL);
	sd_bus_message_unref(reply);
	return rc;
}

/* --- Rollback ------------------------------------------------------------------- */

static int rollback(sd_bus_message *m, void *userdata, sd_bus_error *e)
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
	return reply_generation(m, d);
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
static int udsp_info(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	char canon[LNE_NID_STR_MAX];
	const struct lne_peer_ni *pni;
	sd_bus_message *reply = NULL;
	const struct lne_ni *ni;
	const char *text;
	struct lne_nid nid;
	int rc;

	rc = sd_bus_message_read(m, "s", &text);
	if (rc >= 0)
		rc = nid_arg(text, &nid, canon, e);
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
	sd_bus_message_unref(reply);
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

_Static_assert((int)LNETK_CRIT_ROUND_ROBIN == (int)LNE_CRIT_ROUND_ROBIN &&
		       (int)LNETK_CRIT_CHOSEN == (int)LNE_CRIT_CHOSEN &&
		       (int)LNETK_STEP_GATEWAY == (int)LNE_STEP_GATEWAY,
	       "the module's criteria and steps are the engine's");

/*
 * Ask the module (the kernel engine, loaded): it decides on its running
 * state, which lnetd's mirror does not see (health and round robin as
 * traffic left them).  Fills what the engine's lne_select() would.
 */
static int explain_module(struct lnetk *lk, const char *dst, const char *src, char *ni, char *pni,
			  char *gw, struct lne_explain *ex, char *why, size_t len)
{
	struct lnetk_select_req req = {.dst = dst, .src = *src ? src : NULL, .md_cpt = -1};
	struct lnetk_entry *ent = calloc(EXPLAIN_MAX, sizeof(*ent));
	struct lnetk_explain kex = {.ent = ent, .cap = EXPLAIN_MAX};
	struct lnetk_err err = {.msg = ""};
	struct lnetk_selection sel;
	size_t i;
	unsigned int k;
	int rc;

	if (!ent)
		return -ENOMEM;
	rc = lnetk_explain(lk, &req, &sel, &kex, &err);
	if (rc) {
		snprintf(why, len, "%.*s", (int)len - 1, err.msg[0] ? err.msg : strerror(-rc));
		free(ent);
		return rc;
	}
	snprintf(ni, LNE_NID_STR_MAX, "%s", sel.ni);
	snprintf(pni, LNE_NID_STR_MAX, "%s", sel.peer_ni);
	snprintf(gw, LNE_NID_STR_MAX, "%s", sel.gateway);
	for (i = 0; i < kex.n && ex->n < ex->cap; i++) {
		struct lne_exp_entry *x = &ex->ent[ex->n];

		memset(x, 0, sizeof(*x));
		if (lne_nid_parse(ent[i].nid, &x->nid, NULL))
			continue;
		x->step = ent[i].step;
		x->crit = ent[i].crit;
		x->lost_at = ent[i].lost_at;
		for (k = 0; k < ent[i].nkeys && k < LNE_KEY_MAX; k++) {
			x->key.crit[k] = ent[i].key[k].crit;
			x->key.v[k] = ent[i].key[k].value;
			x->key.rule[k] = ent[i].key[k].rule;
		}
		x->key.n = (u8)k;
		ex->n++;
	}
	free(ent);
	return 0;
}

static int explain(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	struct lnetk *lk = d->kb ? kbackend_lnetk(d->kb) : NULL;
	/* A read: decide as the next message would, moving no round robin. */
	struct lne_sel_req req = {.md_cpt = LNE_CPT_ANY, .kind = LNE_MSG_PUT, .peek = true};
	char ni[LNE_NID_STR_MAX], pni[LNE_NID_STR_MAX], gw[LNE_NID_STR_MAX] = "";
	struct lne_exp_entry ent[EXPLAIN_MAX];
	struct lne_explain ex = {.ent = ent, .cap = EXPLAIN_MAX};
	struct lne_err lerr = {.msg = ""};
	const char *dst, *src;
	sd_bus_message *reply = NULL;
	struct lne_nid srcnid;
	struct lne_sel sel;
	u32 i;
	int rc;

	rc = sd_bus_message_read(m, "ss", &dst, &src);
	if (rc < 0)
		return rc;
	rc = nid_arg(dst, &req.dst, ni, e);
	if (rc >= 0 && *src) {
		rc = nid_arg(src, &srcnid, ni, e);
		req.src = &srcnid;
	}
	if (rc < 0)
		return rc;
	if (lk) {
		rc = explain_module(lk, dst, src, ni, pni, gw, &ex, lerr.msg, sizeof(lerr.msg));
	} else {
		rc = lne_select(d->mirror, &req, &sel, &ex, &lerr);
		if (!rc) {
			lne_nid_format(&sel.ni->nid, ni, sizeof(ni));
			lne_nid_format(&sel.pni->nid, pni, sizeof(pni));
			if (sel.route)
				lne_nid_format(&sel.route->gw->nid, gw, sizeof(gw));
		}
	}
	if (rc)
		return bus_fail(e,
				rc == -EHOSTUNREACH || rc == -EADDRNOTAVAIL || rc == -ENETDOWN
					? -ENOENT
					: rc,
				lerr.msg);
	rc = sd_bus_message_new_method_return(m, &reply);
	if (rc >= 0)
		rc = sd_bus_message_append(reply, "sss", ni, pni, gw);
	if (rc >= 0)
		rc = sd_bus_message_open_container(reply, 'a', "(sssa{sv})");
	for (i = 0; rc >= 0 && i < ex.n; i++)
		rc = append_entry(reply, &ent[i]);
	if (rc >= 0)
		rc = sd_bus_message_close_container(reply);
	if (rc >= 0)
		rc = sd_bus_send(NULL, reply, NULL);
	sd_bus_message_unref(reply);
	return rc;
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

static int history(sd_bus_message *m, void *userdata, sd_bus_error *e)
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
				SD_BUS_RESULT("t", generation), add_ni, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("DeleteNI", SD_BUS_ARGS("s", net, "s", interface),
				SD_BUS_RESULT("t", generation), delete_ni,
				SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("ListNIs", SD_BUS_NO_ARGS, SD_BUS_RESULT("a(sssa{sv})", nis),
				list_nis, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("AddPeer", SD_BUS_ARGS("s", primary, "as", nids, "b", multi_rail),
				SD_BUS_RESULT("t", generation), add_peer,
				SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("DeletePeer", SD_BUS_ARGS("s", primary, "as", nids),
				SD_BUS_RESULT("t", generation), delete_peer,
				SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("ListPeers", SD_BUS_NO_ARGS, SD_BUS_RESULT("a(sbba(su))", peers),
				list_peers, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("AddRoute", SD_BUS_ARGS("s", net, "s", gateway, "a{sv}", options),
				SD_BUS_RESULT("t", generation), add_route,
				SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("DeleteRoute", SD_BUS_ARGS("s", net, "s", gateway),
				SD_BUS_RESULT("t", generation), delete_route,
				SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("ListRoutes", SD_BUS_NO_ARGS, SD_BUS_RESULT("a(ssuuu)", routes),
				list_routes, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("AddRule",
				SD_BUS_ARGS("s", src, "s", dst, "s", rte, "a{sv}", options),
				SD_BUS_RESULT("u", idx, "b", updated, "t", generation), add_rule,
				SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("DeleteRule", SD_BUS_ARGS("u", idx), SD_BUS_RESULT("t", generation),
				delete_rule, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS(
		"DeleteRuleMatching", SD_BUS_ARGS("s", src, "s", dst, "s", rte, "a{sv}", options),
		SD_BUS_RESULT("t", generation), delete_rule_matching, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("DeleteAllRules", SD_BUS_NO_ARGS, SD_BUS_RESULT("t", generation),
				delete_all_rules, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("ListRules", SD_BUS_NO_ARGS, SD_BUS_RESULT("a(usssa{sv})", rules),
				list_rules, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("UdspInfo", SD_BUS_ARGS("s", nid), SD_BUS_RESULT("a{sv}", info),
				udsp_info, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("Explain", SD_BUS_ARGS("s", dst, "s", src),
				SD_BUS_RESULT("s", ni, "s", peer_ni, "s", gateway, "a(sssa{sv})",
					      candidates),
				explain, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("SetHealth", SD_BUS_ARGS("s", object, "s", target, "u", value),
				SD_BUS_RESULT("u", changed), set_health,
				SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS(
		"TbfSetPolicy", SD_BUS_ARGS("s", service, "s", queue, "a{sv}", options),
		SD_BUS_RESULT("t", generation), tbf_set_policy, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("TbfCommand", SD_BUS_ARGS("s", service, "s", command),
				SD_BUS_RESULT("t", generation), tbf_command,
				SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("TbfDelete", SD_BUS_ARGS("s", service),
				SD_BUS_RESULT("t", generation), tbf_delete,
				SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("ListTbf", SD_BUS_NO_ARGS,
				SD_BUS_RESULT("a(sssua(ssubuttttt)a(ssttttt))", queues), list_tbf,
				SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("Apply", SD_BUS_ARGS("a(ssa{sv})", operations, "b", dry_run),
				SD_BUS_RESULT("t", generation, "as", changes), apply,
				SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("ApplyWith",
				SD_BUS_ARGS("a(ssa{sv})", operations, "a{sv}", options),
				SD_BUS_RESULT("t", generation, "as", changes), apply_with,
				SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("Export", SD_BUS_NO_ARGS,
				SD_BUS_RESULT("t", generation, "a(ssa{sv})", operations), export,
				SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("Status", SD_BUS_NO_ARGS,
				SD_BUS_RESULT("t", generation, "s", engine, "a(suu)", objects,
					      "a(sss)", pending),
				status, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("Rollback", SD_BUS_ARGS("t", generation),
				SD_BUS_RESULT("t", generation), rollback,
				SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("History", SD_BUS_ARGS("u", limit),
				SD_BUS_RESULT("a(txuuss)", entries), history,
				SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_VTABLE_END,
};

int lnetd_bus_add(struct lnetd *d)
{
	int rc;

	rc = sd_bus_error_add_map(lnetd_errors);
	if (rc < 0)
		return rc;
	rc = sd_bus_add_filter(d->bus, NULL, bus_bounds_filter, d);
	if (rc < 0)
		return rc;
	return sd_bus_add_object_vtable(d->bus, NULL, LNETD_BUS_PATH, LNETD_BUS_MANAGER,
					manager_vtable, d);
}

int lnetd_bus_start(struct lnetd *d)
{
	int rc = lnetd_bus_add(d);

	return rc < 0 ? rc : sd_bus_request_name(d->bus, LNETD_BUS_NAME, 0);
}
