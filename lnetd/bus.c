// SPDX-License-Identifier: GPL-2.0
/*
 * bus.c - lnetd's typed D-Bus API (schema/org.lnetd1.Manager.xml).
 *
 * A method that changes the configuration runs: parse -> authorise ->
 * apply to the engine mirror (which judges it with the module's own code)
 * -> persist in one store transaction -> emit -> reply.  If the store
 * refuses, the method puts the mirror back, so the mirror and the store
 * never disagree.  Reads are open to anyone; changes need root (polkit's
 * org.lnetd1.manage comes with the systemd wiring).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

#include "bus-errors.h"
#include "lnetd.h"
#include "select.h"
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

/* Who asks, for authorisation and for history. */
struct caller {
	struct st_who who;
	char cmd[512];
};

/* Changes need root; reads do not. */
static int authorise(sd_bus_message *m, struct caller *c, sd_bus_error *e)
{
	sd_bus_creds *creds = NULL;
	uid_t uid = (uid_t)-1;
	char **argv = NULL;
	size_t used = 0;
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
	c->cmd[0] = '\0';
	if (sd_bus_creds_get_cmdline(creds, &argv) >= 0)
		for (; argv && *argv && used + 1 < sizeof(c->cmd); argv++)
			used += (size_t)snprintf(c->cmd + used, sizeof(c->cmd) - used, "%s%s",
						 used ? " " : "", *argv);
	sd_bus_creds_unref(creds);
	if (uid != 0)
		return fail(e, -EPERM, "changing LNet's configuration needs root");
	c->who = (struct st_who){.uid = uid, .pid = pid, .command = c->cmd};
	return 0;
}

/* The store's half of a change, run inside a transaction. */
typedef int (*persist_fn)(struct store *st, const void *arg, struct store_err *serr);

/*
 * Record a change the mirror has taken: one transaction, one history
 * entry, the new generation announced.  On failure nothing is recorded,
 * @e says why, and the caller puts the mirror back.
 */
static int persist(struct lnetd *d, const struct caller *c, persist_fn fn, const void *arg,
		   sd_bus_error *e)
{
	struct store_err serr = {""};
	int rc = store_begin(d->store);

	if (!rc)
		rc = fn(d->store, arg, &serr);
	if (!rc)
		rc = store_commit(d->store, &c->who, &d->generation, &serr);
	if (rc) {
		store_rollback(d->store);
		return fail(e, rc, serr.msg[0] ? serr.msg : "the store refused the change");
	}
	sd_bus_emit_properties_changed(d->bus, LNETD_BUS_PATH, LNETD_BUS_MANAGER, "Generation",
				       NULL);
	return 0;
}

static int reply_generation(sd_bus_message *m, const struct lnetd *d)
{
	return sd_bus_reply_method_return(m, "t", d->generation);
}

/* Parse a NID, or fail naming it and why. */
static int nid_arg(const char *s, struct lne_nid *nid, char *canon, sd_bus_error *e)
{
	struct lne_err err;

	if (lne_nid_parse(s, nid, &err))
		return fail(e, -EINVAL, err.msg);
	lne_nid_format(nid, canon, LNE_NID_STR_MAX);
	return 0;
}

/* --- globals --------------------------------------------------------------- */

struct global_arg {
	const char *name;
	uint32_t value;
};

static int persist_global(struct store *st, const void *arg, struct store_err *serr)
{
	const struct global_arg *g = arg;

	return store_global_set(st, g->name, g->value, serr);
}

static int set_global(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	struct lne_err lerr = {.msg = ""};
	struct global_arg ga;
	struct caller c;
	uint32_t old;
	int rc, g;

	rc = sd_bus_message_read(m, "su", &ga.name, &ga.value);
	if (rc < 0)
		return rc;
	rc = authorise(m, &c, e);
	if (rc < 0)
		return rc;
	g = lne_global_lookup(ga.name);
	if (g < 0)
		return sd_bus_error_setf(e, LNETD_ERR_NOT_FOUND, "no global setting is called '%s'",
					 ga.name);
	old = lne_global_get(d->mirror, g);
	rc = lne_global_set(d->mirror, g, ga.value, &lerr);
	if (rc)
		return fail(e, rc, lerr.msg);
	rc = persist(d, &c, persist_global, &ga, e);
	if (rc) {
		d->mirror->globals[g] = old; /* it was valid: no check needed */
		return rc;
	}
	return reply_generation(m, d);
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

/* Options that are all u32: those in @names; anything else is refused by name. */
static int read_uint_options(sd_bus_message *m, const char *const *names, uint32_t *vals,
			     bool *given, const char *method, sd_bus_error *e)
{
	const char *key;
	int rc, k;

	rc = sd_bus_message_enter_container(m, 'a', "{sv}");
	while (rc >= 0 && (rc = sd_bus_message_enter_container(m, 'e', "sv")) > 0) {
		rc = sd_bus_message_read(m, "s", &key);
		if (rc < 0)
			return rc;
		for (k = 0; names[k] && strcmp(names[k], key); k++)
			;
		if (!names[k])
			return sd_bus_error_setf(e, LNETD_ERR_INVALID, "unknown option '%s' for %s",
						 key, method);
		rc = sd_bus_message_read(m, "v", "u", &vals[k]);
		if (rc < 0)
			return sd_bus_error_setf(e, LNETD_ERR_INVALID,
						 "option '%s' must be an unsigned 32-bit integer",
						 key);
		given[k] = true;
		rc = sd_bus_message_exit_container(m);
	}
	if (rc >= 0)
		rc = sd_bus_message_exit_container(m);
	return rc;
}

/* --- NIs --------------------------------------------------------------------- */

static struct lnetd_ni *ni_entry(struct lnetd *d, const char *net, const char *ifname)
{
	size_t i;

	for (i = 0; i < d->nnis; i++)
		if (!strcmp(d->nis[i].net, net) && !strcmp(d->nis[i].ifname, ifname))
			return &d->nis[i];
	return NULL;
}

static void ni_forget(struct lnetd *d, struct lnetd_ni *n)
{
	if (n->applied)
		lne_ni_del(d->mirror, &n->nid, NULL);
	memmove(n, n + 1, (size_t)(d->nis + d->nnis - (n + 1)) * sizeof(*n));
	d->nnis--;
}

/* (net, interface) from a call, checked: canonical net in @net. */
static int ni_args(sd_bus_message *m, char *net, const char **ifname, sd_bus_error *e)
{
	const char *ntext;
	struct lne_err err;
	lne_net_t id;
	int rc = sd_bus_message_read(m, "ss", &ntext, ifname);

	if (rc < 0)
		return rc;
	if (lne_net_parse(ntext, &id, &err))
		return fail(e, -EINVAL, err.msg);
	if (LNE_NET_LND(id) == LNE_LND_LO)
		return fail(e, -EINVAL, "the loopback NI always exists; it is not configured");
	lne_net_format(id, net, LNE_NET_STR_MAX);
	if (!**ifname || strlen(*ifname) >= LNE_IFNAME_MAX || strpbrk(*ifname, "/ \t\n:"))
		return sd_bus_error_setf(
			e, LNETD_ERR_INVALID,
			"'%s' is not an interface name (1 to %d characters, no '/', ':' or spaces)",
			*ifname, LNE_IFNAME_MAX - 1);
	return 0;
}

static int persist_ni_add(struct store *st, const void *arg, struct store_err *serr)
{
	return store_ni_add(st, arg, serr);
}

static int persist_ni_del(struct store *st, const void *arg, struct store_err *serr)
{
	return store_ni_del(st, arg, serr);
}

static int add_ni(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	static const char *const names[] = {"peer_timeout", "peer_credits", "peer_buffer_credits",
					    "credits", NULL};
	struct lnetd *d = userdata;
	uint32_t v[4] = {0, 0, 0, 0};
	bool given[4] = {false, false, false, false}, changed;
	char net[LNE_NET_STR_MAX];
	struct lnetd_ni *n, *grown;
	const char *ifname;
	struct st_ni sn;
	struct caller c;
	lne_net_t id;
	int rc;

	rc = ni_args(m, net, &ifname, e);
	if (rc >= 0)
		rc = read_uint_options(m, names, v, given, "AddNI", e);
	if (rc < 0)
		return rc;
	if ((given[1] && !v[1]) || (given[3] && !v[3]))
		return fail(e, -ERANGE, "peer_credits and credits must be at least 1");
	rc = authorise(m, &c, e);
	if (rc < 0)
		return rc;
	if (ni_entry(d, net, ifname))
		return sd_bus_error_setf(e, LNETD_ERR_EXISTS, "%s on %s is configured already", net,
					 ifname);
	grown = realloc(d->nis, (d->nnis + 1) * sizeof(*d->nis));
	if (!grown)
		return fail(e, -ENOMEM, "out of memory");
	d->nis = grown;
	n = &d->nis[d->nnis++];
	memset(n, 0, sizeof(*n));
	snprintf(n->net, sizeof(n->net), "%s", net);
	snprintf(n->ifname, sizeof(n->ifname), "%s", ifname);
	lne_net_parse(net, &id, NULL);
	lne_tunables_default(LNE_NET_LND(id), &n->tun);
	if (given[0])
		n->tun.peer_timeout = v[0];
	if (given[1])
		n->tun.peer_credits = v[1];
	if (given[2])
		n->tun.peer_buffer_credits = v[2];
	if (given[3])
		n->tun.credits = v[3];
	/* Judged now if the interface is there; else accepted as pending. */
	rc = lnetd_ni_reconcile(d, n, &changed);
	if (rc) {
		rc = fail(e, rc, n->reason);
		ni_forget(d, n);
		return rc;
	}
	sn = (struct st_ni){.net = net,
			    .ifname = ifname,
			    .peer_timeout = given[0] ? (int64_t)v[0] : ST_UNSET,
			    .peer_credits = given[1] ? (int64_t)v[1] : ST_UNSET,
			    .peer_buffer_credits = given[2] ? (int64_t)v[2] : ST_UNSET,
			    .credits = given[3] ? (int64_t)v[3] : ST_UNSET};
	rc = persist(d, &c, persist_ni_add, &sn, e);
	if (rc) {
		ni_forget(d, ni_entry(d, net, ifname));
		return rc;
	}
	return reply_generation(m, d);
}

static int delete_ni(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	char net[LNE_NET_STR_MAX];
	struct lnetd_ni *n;
	const char *ifname;
	struct st_ni key;
	struct caller c;
	int rc;

	rc = ni_args(m, net, &ifname, e);
	if (rc >= 0)
		rc = authorise(m, &c, e);
	if (rc < 0)
		return rc;
	n = ni_entry(d, net, ifname);
	if (!n)
		return sd_bus_error_setf(e, LNETD_ERR_NOT_FOUND, "no NI of %s is configured on %s",
					 net, ifname);
	key = (struct st_ni){.net = net, .ifname = ifname};
	rc = persist(d, &c, persist_ni_del, &key, e);
	if (rc)
		return rc;
	ni_forget(d, n);
	return reply_generation(m, d);
}

static int list_nis(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	sd_bus_message *reply = NULL;
	char nid[LNE_NID_STR_MAX];
	size_t i;
	int rc;

	rc = sd_bus_message_new_method_return(m, &reply);
	if (rc >= 0)
		rc = sd_bus_message_open_container(reply, 'a', "(sssa{sv})");
	for (i = 0; rc >= 0 && i < d->nnis; i++) {
		const struct lnetd_ni *n = &d->nis[i];
		const struct lne_ni *ni = n->applied ? lne_ni_find(d->mirror, &n->nid) : NULL;

		rc = sd_bus_message_open_container(reply, 'r', "sssa{sv}");
		if (rc >= 0)
			rc = sd_bus_message_append(reply, "sss", n->net, n->ifname,
						   ni ? "applied" : "pending");
		if (rc >= 0)
			rc = sd_bus_message_open_container(reply, 'a', "{sv}");
		if (rc >= 0 && ni) {
			lne_nid_format(&ni->nid, nid, sizeof(nid));
			rc = sd_bus_message_append(reply, "{sv}{sv}{sv}", "nid", "s", nid, "up",
						   "b", ni->up, "health", "u",
						   (uint32_t)ni->health);
		} else if (rc >= 0) {
			rc = sd_bus_message_append(reply, "{sv}", "reason", "s", n->reason);
		}
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
	return rc;
}

/* --- peers ------------------------------------------------------------------ */

struct peer_arg {
	struct st_peer peer; /* .nids: the NIDs this change adds or deletes */
	bool created;	     /* add: the peer is new; del: the whole peer goes */
};

static int persist_peer_add(struct store *st, const void *arg, struct store_err *serr)
{
	const struct peer_arg *p = arg;
	size_t i;
	int rc = 0;

	if (p->created)
		return store_peer_add(st, &p->peer, serr);
	for (i = 0; !rc && i < p->peer.nnids; i++)
		rc = store_peer_nid_add(st, p->peer.nid, p->peer.nids[i], serr);
	return rc;
}

static int persist_peer_del(struct store *st, const void *arg, struct store_err *serr)
{
	const struct peer_arg *p = arg;
	size_t i;
	int rc = 0;

	if (p->created)
		return store_peer_del(st, p->peer.nid, serr);
	for (i = 0; !rc && i < p->peer.nnids; i++)
		rc = store_peer_nid_del(st, p->peer.nid, p->peer.nids[i], serr);
	return rc;
}

/* Read "as" into canonical NID texts (@canon, @n of them) and parsed NIDs. */
static int read_nids(sd_bus_message *m, char (**canon)[LNE_NID_STR_MAX], struct lne_nid **nids,
		     size_t *n, sd_bus_error *e)
{
	char **strv = NULL;
	size_t i, k;
	int rc;

	rc = sd_bus_message_read_strv(m, &strv);
	if (rc < 0)
		return rc;
	for (k = 0; strv && strv[k]; k++)
		;
	*n = k;
	*canon = calloc(k ? k : 1, sizeof(**canon));
	*nids = calloc(k ? k : 1, sizeof(**nids));
	rc = *canon && *nids ? 0 : -ENOMEM;
	for (i = 0; !rc && i < k; i++)
		rc = nid_arg(strv[i], &(*nids)[i], (*canon)[i], e);
	for (i = 0; strv && strv[i]; i++)
		free(strv[i]);
	free(strv);
	return rc;
}

static int add_peer(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	char pbuf[LNE_NID_STR_MAX], (*canon)[LNE_NID_STR_MAX] = NULL;
	struct lne_nid prim, *nids = NULL;
	struct lne_err lerr = {.msg = ""};
	struct peer_arg pa = {0};
	const char **added = NULL;
	struct lne_peer *peer;
	const char *ptext;
	size_t n = 0, i, nadded = 0;
	bool was_implicit = false;
	struct caller c;
	int rc, mr;

	rc = sd_bus_message_read(m, "s", &ptext);
	if (rc >= 0)
		rc = read_nids(m, &canon, &nids, &n, e);
	if (rc >= 0)
		rc = sd_bus_message_read(m, "b", &mr);
	if (rc >= 0)
		rc = nid_arg(ptext, &prim, pbuf, e);
	if (rc >= 0)
		rc = authorise(m, &c, e);
	if (rc < 0)
		goto out;
	peer = lne_peer_find(d->mirror, &prim);
	if (peer && !peer->implicit && peer->mr != !!mr) {
		rc = sd_bus_error_setf(e, LNETD_ERR_EXISTS,
				       "peer %s exists as %s; delete it to change that", pbuf,
				       peer->mr ? "Multi-Rail" : "non-Multi-Rail");
		goto out;
	}
	was_implicit = peer && peer->implicit;
	pa.created = !peer || was_implicit;
	if (pa.created) {
		rc = lne_peer_add(d->mirror, &prim, mr, &lerr);
		if (rc) {
			rc = fail(e, rc, lerr.msg);
			goto out;
		}
	}
	added = calloc(n ? n : 1, sizeof(*added));
	if (!added)
		rc = -ENOMEM;
	for (i = 0; !rc && i < n; i++) {
		if (lne_nid_equal(&nids[i], &prim))
			continue; /* the primary is the peer's already */
		rc = lne_peer_add_nid(d->mirror, &prim, &nids[i], &lerr);
		if (rc)
			rc = fail(e, rc, lerr.msg);
		else
			added[nadded++] = canon[i];
	}
	if (!rc && !pa.created && !nadded)
		rc = sd_bus_error_setf(e, LNETD_ERR_EXISTS, "peer %s exists already", pbuf);
	pa.peer = (struct st_peer){.nid = pbuf, .mr = !!mr, .nnids = nadded, .nids = added};
	if (!rc)
		rc = persist(d, &c, persist_peer_add, &pa, e);
	if (rc) {
		/* Put the mirror back: the new peer goes, or the NIDs added go and
		 * a route's gateway becomes implicit again. */
		if (pa.created && !was_implicit)
			lne_peer_del(d->mirror, &prim, NULL);
		for (i = nadded; (!pa.created || was_implicit) && i > 0; i--) {
			struct lne_nid back;

			lne_nid_parse(added[i - 1], &back, NULL);
			lne_peer_del_nid(d->mirror, &prim, &back, NULL);
		}
		peer = was_implicit ? lne_peer_find(d->mirror, &prim) : NULL;
		if (peer) {
			peer->implicit = true;
			peer->mr = false;
		}
		goto out;
	}
	rc = reply_generation(m, d);
out:
	free(added);
	free(canon);
	free(nids);
	return rc;
}

/* What a peer deletion takes away, to give it back if the store refuses. */
struct peer_undo {
	struct lne_nid primary;
	bool mr;
	size_t n;
	struct lne_nid *nid;
	s32 *health;
};

static int peer_undo_save(const struct lne_peer *peer, struct peer_undo *u)
{
	const struct lne_peer_net *pnet;
	const struct lne_peer_ni *pni;
	size_t i = 0;

	u->primary = peer->primary;
	u->mr = peer->mr;
	u->n = peer->npni;
	u->nid = calloc(u->n, sizeof(*u->nid));
	u->health = calloc(u->n, sizeof(*u->health));
	if (!u->nid || !u->health)
		return -ENOMEM;
	lne_list_for_each_entry(pnet, &peer->pnets, link)
		lne_list_for_each_entry(pni, &pnet->pnis, pnet_link) {
			u->nid[i] = pni->nid;
			u->health[i++] = pni->health;
		}
	return 0;
}

/* Give back the NIDs (or the whole peer) the deletion took. */
static void peer_undo_apply(struct lne_inst *ln, const struct peer_undo *u)
{
	size_t i;

	if (!lne_peer_find(ln, &u->primary))
		lne_peer_add(ln, &u->primary, u->mr, NULL);
	for (i = 0; i < u->n; i++) {
		if (!lne_peer_ni_find(ln, &u->nid[i]))
			lne_peer_add_nid(ln, &u->primary, &u->nid[i], NULL);
		lne_peer_ni_set_health(ln, &u->nid[i], u->health[i], NULL);
	}
}

static int delete_peer(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	char pbuf[LNE_NID_STR_MAX], (*canon)[LNE_NID_STR_MAX] = NULL;
	struct lne_nid prim, *nids = NULL;
	struct lne_err lerr = {.msg = ""};
	struct peer_undo undo = {0};
	struct peer_arg pa = {0};
	const char **names = NULL;
	struct lne_peer *peer;
	const char *ptext;
	size_t n = 0, i;
	struct caller c;
	int rc;

	rc = sd_bus_message_read(m, "s", &ptext);
	if (rc >= 0)
		rc = read_nids(m, &canon, &nids, &n, e);
	if (rc >= 0)
		rc = nid_arg(ptext, &prim, pbuf, e);
	if (rc >= 0)
		rc = authorise(m, &c, e);
	if (rc < 0)
		goto out;
	peer = lne_peer_find(d->mirror, &prim);
	if (!peer || peer->implicit) {
		rc = sd_bus_error_setf(e, LNETD_ERR_NOT_FOUND, "no peer has the primary NID %s",
				       pbuf);
		goto out;
	}
	/* Check every NID before touching anything: all or nothing. */
	for (i = 0; i < n; i++) {
		struct lne_peer_ni *pni = lne_peer_ni_find(d->mirror, &nids[i]);

		if (!pni || lne_peer_of(pni) != peer) {
			rc = sd_bus_error_setf(e, LNETD_ERR_NOT_FOUND, "%s is not a NID of peer %s",
					       canon[i], pbuf);
			goto out;
		}
		if (lne_nid_equal(&nids[i], &prim) && n < peer->npni) {
			rc = sd_bus_error_setf(
				e, LNETD_ERR_BUSY,
				"%s is peer %s's primary NID; delete the peer instead", canon[i],
				pbuf);
			goto out;
		}
	}
	pa.created = !n || n >= peer->npni;
	names = calloc(n ? n : 1, sizeof(*names));
	if (!names || peer_undo_save(peer, &undo)) {
		rc = fail(e, -ENOMEM, "out of memory");
		goto out;
	}
	if (pa.created) {
		rc = lne_peer_del(d->mirror, &prim, &lerr);
	} else {
		for (i = 0; !rc && i < n; i++) {
			names[i] = canon[i];
			rc = lne_peer_del_nid(d->mirror, &prim, &nids[i], &lerr);
		}
	}
	if (rc) {
		rc = fail(e, rc, lerr.msg);
	} else {
		pa.peer = (struct st_peer){.nid = pbuf, .nnids = n, .nids = names};
		rc = persist(d, &c, persist_peer_del, &pa, e);
	}
	if (rc) {
		peer_undo_apply(d->mirror, &undo);
		goto out;
	}
	rc = reply_generation(m, d);
out:
	free(undo.nid);
	free(undo.health);
	free(names);
	free(canon);
	free(nids);
	return rc;
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
		return fail(e, -ENOMEM, "out of memory");
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
					rc = sd_bus_message_append(reply, "(su)", buf,
								   (uint32_t)pni->health);
			}
		if (rc >= 0)
			rc = sd_bus_message_close_container(reply);
		if (rc >= 0)
			rc = sd_bus_message_close_container(reply);
	}
	free(all);
	if (rc >= 0)
		rc = sd_bus_message_close_container(reply);
	if (rc >= 0)
		rc = sd_bus_send(NULL, reply, NULL);
	sd_bus_message_unref(reply);
	return rc;
}

/* --- routes ------------------------------------------------------------------- */

static int persist_route_add(struct store *st, const void *arg, struct store_err *serr)
{
	return store_route_add(st, arg, serr);
}

static int persist_route_del(struct store *st, const void *arg, struct store_err *serr)
{
	const struct st_route *r = arg;

	return store_route_del(st, r->net, r->gateway, serr);
}

static int route_args(sd_bus_message *m, lne_net_t *net, char *nbuf, struct lne_nid *gw, char *gbuf,
		      sd_bus_error *e)
{
	const char *ntext, *gtext;
	struct lne_err err;
	int rc = sd_bus_message_read(m, "ss", &ntext, &gtext);

	if (rc < 0)
		return rc;
	if (lne_net_parse(ntext, net, &err))
		return fail(e, -EINVAL, err.msg);
	lne_net_format(*net, nbuf, LNE_NET_STR_MAX);
	return nid_arg(gtext, gw, gbuf, e);
}

static int add_route(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	static const char *const names[] = {"hops", "priority", "sensitivity", NULL};
	struct lnetd *d = userdata;
	uint32_t v[3] = {LNE_HOPS_DEFAULT, 0, 1};
	char nbuf[LNE_NET_STR_MAX], gbuf[LNE_NID_STR_MAX];
	struct lne_err lerr = {.msg = ""};
	bool given[3] = {false, false, false};
	struct st_route r;
	struct lne_nid gw;
	struct caller c;
	lne_net_t net;
	int rc;

	rc = route_args(m, &net, nbuf, &gw, gbuf, e);
	if (rc >= 0)
		rc = read_uint_options(m, names, v, given, "AddRoute", e);
	if (rc >= 0)
		rc = authorise(m, &c, e);
	if (rc < 0)
		return rc;
	rc = lne_route_add(d->mirror, net, &gw, v[0], v[1], v[2], &lerr);
	if (rc)
		return fail(e, rc, lerr.msg);
	r = (struct st_route){
		.net = nbuf, .gateway = gbuf, .hops = v[0], .priority = v[1], .sensitivity = v[2]};
	rc = persist(d, &c, persist_route_add, &r, e);
	if (rc) {
		lne_route_del(d->mirror, net, &gw, NULL);
		return rc;
	}
	return reply_generation(m, d);
}

static int delete_route(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	char nbuf[LNE_NET_STR_MAX], gbuf[LNE_NID_STR_MAX];
	struct lne_err lerr = {.msg = ""};
	struct lne_route *rt;
	struct st_route r;
	struct lne_nid gw;
	struct caller c;
	lne_net_t net;
	uint32_t keep[3];
	int rc;

	rc = route_args(m, &net, nbuf, &gw, gbuf, e);
	if (rc >= 0)
		rc = authorise(m, &c, e);
	if (rc < 0)
		return rc;
	rt = lne_route_find(d->mirror, net, &gw);
	if (!rt)
		return sd_bus_error_setf(e, LNETD_ERR_NOT_FOUND, "no route to %s through %s", nbuf,
					 gbuf);
	keep[0] = rt->hops;
	keep[1] = rt->priority;
	keep[2] = rt->sensitivity;
	rc = lne_route_del(d->mirror, net, &gw, &lerr);
	if (rc)
		return fail(e, rc, lerr.msg);
	r = (struct st_route){.net = nbuf, .gateway = gbuf};
	rc = persist(d, &c, persist_route_del, &r, e);
	if (rc) {
		lne_route_add(d->mirror, net, &gw, keep[0], keep[1], keep[2], NULL);
		return rc;
	}
	return reply_generation(m, d);
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

/* A rule as the store keeps it: canonical texts (the caller frees them). */
static int rule_texts(const struct lne_rule *r, struct st_rule *sr)
{
	char *s = expr_text(r->src), *t = expr_text(r->dst), *u = expr_text(r->rte);

	if (!s || !t || !u) {
		free(s);
		free(t);
		free(u);
		*sr = (struct st_rule){0};
		return -ENOMEM;
	}
	/* Empty texts (absent parts) are kept, to be freed, but stored as NULL. */
	*sr = (struct st_rule){.pos = r->idx,
			       .src = s,
			       .dst = t,
			       .rte = u,
			       .priority = r->prio == LNE_PRIO_NONE ? ST_UNSET : (int64_t)r->prio};
	return 0;
}

static void rule_texts_free(struct st_rule *sr)
{
	free((char *)sr->src);
	free((char *)sr->dst);
	free((char *)sr->rte);
}

struct rule_arg {
	struct st_rule rule;
	bool updated;
};

static int persist_rule_add(struct store *st, const void *arg, struct store_err *serr)
{
	const struct rule_arg *ra = arg;
	struct st_rule r = ra->rule;
	int64_t pos;

	r.src = opt(r.src);
	r.dst = opt(r.dst);
	r.rte = opt(r.rte);
	return ra->updated ? store_rule_update(st, &r, serr) : store_rule_add(st, &r, &pos, serr);
}

static int add_rule(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	static const char *const names[] = {"priority", "idx", NULL};
	struct lnetd *d = userdata;
	uint32_t v[2] = {LNE_PRIO_NONE, 0}, old_prio = LNE_PRIO_NONE, at;
	struct lne_err lerr = {.msg = ""};
	bool given[2] = {false, false};
	enum lne_rule_outcome outcome;
	const char *src, *dst, *rte;
	struct rule_arg ra;
	struct lne_rule *r;
	struct caller c;
	int rc;

	rc = sd_bus_message_read(m, "sss", &src, &dst, &rte);
	if (rc >= 0)
		rc = read_uint_options(m, names, v, given, "AddRule", e);
	if (rc >= 0)
		rc = authorise(m, &c, e);
	if (rc < 0)
		return rc;
	rc = lne_rule_add(d->mirror, opt(src), opt(dst), opt(rte), v[0], given[1] ? (s64)v[1] : -1,
			  &outcome, &at, &lerr);
	if (rc)
		return fail(e, rc, lerr.msg);
	r = lne_rule_at(d->mirror, at);
	ra.updated = outcome == LNE_RULE_UPDATED;
	rc = rule_texts(r, &ra.rule);
	if (rc)
		rc = fail(e, rc, "out of memory");
	else
		rc = persist(d, &c, persist_rule_add, &ra, e);
	if (rc && !ra.updated) {
		lne_rule_del(d->mirror, at, NULL);
	} else if (rc) {
		/* The store keeps the old priority: ask the engine to say it again. */
		struct st_rule old = {0};

		if (!store_rule_get(d->store, at, &old, NULL))
			old_prio = old.priority == ST_UNSET ? LNE_PRIO_NONE
							    : (uint32_t)old.priority;
		st_rule_clear(&old);
		lne_rule_add(d->mirror, opt(ra.rule.src), opt(ra.rule.dst), opt(ra.rule.rte),
			     old_prio, -1, NULL, NULL, NULL);
	}
	rule_texts_free(&ra.rule);
	if (rc)
		return rc;
	return sd_bus_reply_method_return(m, "ubt", at, ra.updated, d->generation);
}

static int persist_rule_del(struct store *st, const void *arg, struct store_err *serr)
{
	const int64_t *idx = arg;

	return *idx < 0 ? store_rule_del_all(st, serr) : store_rule_del(st, *idx, serr);
}

/* Delete one rule (@all false) or every rule, in the mirror and the store. */
static int del_rules(sd_bus_message *m, struct lnetd *d, bool all, sd_bus_error *e)
{
	struct st_rule *saved = NULL;
	struct lne_rule *r;
	uint32_t idx = 0, first, n, i;
	struct caller c;
	int64_t which;
	int rc;

	if (!all) {
		rc = sd_bus_message_read(m, "u", &idx);
		if (rc < 0)
			return rc;
	}
	rc = authorise(m, &c, e);
	if (rc < 0)
		return rc;
	if (!all && !lne_rule_at(d->mirror, idx))
		return sd_bus_error_setf(e, LNETD_ERR_NOT_FOUND, "there is no rule %u (%u rules)",
					 idx, d->mirror->udsp.nrules);
	/* The rules that go, as text: adding them back at their places undoes
	 * the deletion exactly (flattening does not depend on history). */
	first = all ? 0 : idx;
	n = all ? d->mirror->udsp.nrules : 1;
	saved = calloc(n ? n : 1, sizeof(*saved));
	if (!saved)
		return fail(e, -ENOMEM, "out of memory");
	for (i = 0; i < n; i++) {
		r = lne_rule_at(d->mirror, first + i);
		if (rule_texts(r, &saved[i])) {
			n = i;
			rc = fail(e, -ENOMEM, "out of memory");
			goto out;
		}
	}
	if (all)
		lne_rule_del_all(d->mirror);
	else
		lne_rule_del(d->mirror, idx, NULL);
	which = all ? -1 : (int64_t)idx;
	rc = persist(d, &c, persist_rule_del, &which, e);
	if (rc) {
		for (i = 0; i < n; i++)
			lne_rule_add(d->mirror, opt(saved[i].src), opt(saved[i].dst),
				     opt(saved[i].rte),
				     saved[i].priority == ST_UNSET ? LNE_PRIO_NONE
								   : (uint32_t)saved[i].priority,
				     first + i, NULL, NULL, NULL);
		goto out;
	}
	rc = reply_generation(m, d);
out:
	for (i = 0; i < n; i++)
		rule_texts_free(&saved[i]);
	free(saved);
	return rc;
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

static int explain(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
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
	rc = lne_select(d->mirror, &req, &sel, &ex, &lerr);
	if (rc)
		return fail(e,
			    rc == -EHOSTUNREACH || rc == -EADDRNOTAVAIL || rc == -ENETDOWN ? -ENOENT
											   : rc,
			    lerr.msg);
	lne_nid_format(&sel.ni->nid, ni, sizeof(ni));
	lne_nid_format(&sel.pni->nid, pni, sizeof(pni));
	if (sel.route)
		lne_nid_format(&sel.route->gw->nid, gw, sizeof(gw));
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
	SD_BUS_METHOD_WITH_ARGS("DeleteAllRules", SD_BUS_NO_ARGS, SD_BUS_RESULT("t", generation),
				delete_all_rules, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("ListRules", SD_BUS_NO_ARGS, SD_BUS_RESULT("a(usssa{sv})", rules),
				list_rules, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("Explain", SD_BUS_ARGS("s", dst, "s", src),
				SD_BUS_RESULT("s", ni, "s", peer_ni, "s", gateway, "a(sssa{sv})",
					      candidates),
				explain, SD_BUS_VTABLE_UNPRIVILEGED),
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
