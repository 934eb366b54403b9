// SPDX-License-Identifier: GPL-2.0
/*
 * lustre-state.c - lnet.ko's own running state for `net show -v` and
 * `peer show -v` (backend.h's health, health_stats, rtr_credits and the
 * per-NID half of counters): each NI's status, health value and health
 * counters, each peer NI's aliveness, health and router credits, and the
 * messages lnet.ko counted on each, as lnet.ko holds them now (lu.h,
 * struct lu_nid_state), never the store's view.
 *
 * Peer NIs are those of the peers lnetd owns (the mirror's), read one peer
 * per request as lu_peer_get_many() does; a peer whose primary NID is IPv6
 * comes over netlink without running state and keeps the mirror's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lustre-int.h"

/* 0 with @lu open; -ENODEV (with @err's sentence, when given) while lnet.ko is away. */
static int open_lu(struct backend *b, struct lu **lu, struct lne_err *err)
{
	struct lne_err e = {.pos = -1, .msg = ""};
	int rc = lb_open((struct lbackend *)b, lu, &e);

	if (rc && err)
		return lne_err_set(err, rc, NULL, -1, "%s", e.msg[0] ? e.msg : strerror(-rc));
	return rc;
}

/* The mirror's peers' primary NIDs, malloc()ed. */
static int owned_peers(struct backend *b, struct lne_nid **prims, size_t *n)
{
	const struct lne_inst *ln = b->d->mirror;
	const struct lne_peer *peer;
	size_t k = 0;

	lne_list_for_each_entry(peer, &ln->peers, link)
		k++;
	*n = 0;
	*prims = malloc((k ? k : 1) * sizeof(**prims));
	if (!*prims)
		return -ENOMEM;
	lne_list_for_each_entry(peer, &ln->peers, link)
		(*prims)[(*n)++] = peer->primary;
	return 0;
}

/* Each peer NI of the peers lnetd owns, with its running state, to @fn. */
struct pni_walk {
	int (*fn)(void *arg, const struct lne_nid *peer, const struct lu_nid_state *st);
	void *arg;
};

static int pni_walk_one(const struct lu_peer *p, void *arg)
{
	const struct pni_walk *w = arg;
	size_t i;
	int rc = 0;

	for (i = 0; !rc && p->st && i < p->n; i++)
		rc = w->fn(w->arg, &p->primary, &p->st[i]);
	return rc;
}

static int each_pni(struct backend *b, struct lu *lu, struct pni_walk *w, struct lne_err *err)
{
	struct lne_nid *prims;
	size_t n;
	int rc = owned_peers(b, &prims, &n);

	if (rc)
		return err ? lne_err_set(err, rc, NULL, -1, "out of memory") : rc;
	rc = lu_peer_get_many(lu, prims, n, pni_walk_one, w, err);
	free(prims);
	return rc;
}

/* --- health: local NIs (and peer NIs) as lnet.ko has them -------------------------------- */

static int health_pni(void *arg, const struct lne_nid *peer, const struct lu_nid_state *st)
{
	struct bk_health_one one = {.nid = st->nid, .peer = *peer, .state = st->state};

	one.health = st->health < 0 ? 0 : (uint32_t)st->health;
	return bk_health_add(arg, &one);
}

int lb_health(struct backend *b, bool peers, struct bk_health **out)
{
	struct bk_health *h = bk_health_new();
	struct lu_nid_state *nis = NULL;
	struct pni_walk w = {health_pni, h};
	struct lu *lu = NULL;
	size_t n = 0, i;
	int rc = h ? open_lu(b, &lu, NULL) : -ENOMEM;

	if (!rc)
		rc = lu_ni_states(lu, &nis, &n, NULL);
	for (i = 0; !rc && i < n; i++) {
		struct bk_health_one one = {.nid = nis[i].nid, .local = true, .up = nis[i].up};

		/* its status as lnet.ko has it (ListNIs' "up" takes it from the state) */
		one.state = nis[i].up ? LNE_PNI_UP : LNE_PNI_DOWN;

		one.health = nis[i].health < 0 ? 0 : (uint32_t)nis[i].health;
		snprintf(one.ifname, sizeof(one.ifname), "%s", nis[i].ifname);
		rc = bk_health_add(h, &one);
	}
	free(nis);
	if (!rc && peers)
		rc = each_pni(b, lu, &w, NULL);
	lu_close(lu);
	rc = rc ?: bk_health_sort(h);
	if (rc) {
		bk_health_free(h);
		return rc;
	}
	*out = h;
	return 0;
}

/* --- one NID: health counters, router credits -------------------------------------------- */

/* @nid's running state: a local NI (*local) or a peer NI; -ENOENT when lnet.ko has neither. */
static int nid_state(struct lu *lu, const struct lne_nid *nid, bool *local, struct lu_nid_state *st,
		     struct lne_err *err)
{
	struct lu_nid_state *nis = NULL;
	struct lu_peer p;
	char s[LNE_NID_STR_MAX];
	size_t n = 0, i;
	int rc = lu_ni_states(lu, &nis, &n, err);

	for (i = 0; !rc && i < n; i++)
		if (lne_nid_equal(&nis[i].nid, nid)) {
			*st = nis[i];
			*local = true;
			free(nis);
			return 0;
		}
	free(nis);
	if (rc)
		return rc;
	*local = false;
	memset(&p, 0, sizeof(p));
	rc = lu_peer_get(lu, nid, &p, err);
	for (i = 0; !rc && p.st && i < p.n; i++)
		if (lne_nid_equal(&p.st[i].nid, nid)) {
			*st = p.st[i];
			lu_peer_free(&p);
			return 0;
		}
	lu_peer_free(&p);
	if (rc && rc != -ENOENT)
		return rc;
	lne_nid_format(nid, s, sizeof(s));
	if (nid->alen != 4) /* /dev/lnet's GET_NI_HSTATS and GET_PEER_NI carry nid4 only */
		return lne_err_set(err, -EOPNOTSUPP, NULL, -1,
				   "%s: lnet.ko %s tells the health of IPv4 NIDs only", s,
				   lu_vname(lu));
	return lne_err_set(err, -ENOENT, NULL, -1, "lnet.ko %s has no NI or peer NI %s",
			   lu_vname(lu), s);
}

int lb_health_stats(struct backend *b, const struct lne_nid *nid, bool *local, uint32_t *health,
		    bk_kv_fn fn, void *arg, struct lne_err *err)
{
	/* lnet.ko's names, as its lnetctl prints them */
	static const char *const ni_keys[] = {"interrupts", "dropped",	"aborted",
					      "no route",   "timeouts", "error"};
	static const char *const pni_keys[] = {"dropped", "timeout", "error", "network timeout"};
	struct lu_nid_state st;
	struct lu *lu;
	size_t i, nk;
	int rc = open_lu(b, &lu, err);

	if (rc)
		return rc;
	rc = nid_state(lu, nid, local, &st, err);
	lu_close(lu);
	if (rc)
		return rc;
	*health = st.health < 0 ? 0 : (uint32_t)st.health;
	nk = *local ? LNE_ARRAY_SIZE(ni_keys) : LNE_ARRAY_SIZE(pni_keys);
	if (*local)
		rc = fn(arg, "fatal_error", (uint32_t)st.fatal);
	for (i = 0; !rc && i < nk; i++)
		rc = fn(arg, *local ? ni_keys[i] : pni_keys[i], st.hs[i]);
	if (!rc)
		rc = fn(arg, "ping_count", st.ping_count);
	if (!rc)
		rc = fn(arg, "next_ping", st.next_ping);
	return rc;
}

int lb_rtr_credits(struct backend *b, const struct lne_nid *nid, int32_t *avail, int32_t *min,
		   struct lne_err *err)
{
	struct lu_nid_state st;
	struct lu *lu;
	bool local;
	int rc = open_lu(b, &lu, err);

	if (rc)
		return rc;
	rc = nid_state(lu, nid, &local, &st, err);
	lu_close(lu);
	if (!rc && local)
		rc = -ENOENT; /* a local NI has no router credits of a peer */
	if (rc)
		return rc;
	*avail = st.rtr_credits;
	*min = st.min_rtr_credits;
	return 0;
}

/* --- counters by NID ------------------------------------------------------------------------ */

struct count_walk {
	bk_count_fn fn;
	void *arg;
};

static int count_one(const struct count_walk *c, const struct lu_nid_state *st, bool local)
{
	static const char *const dir[3] = {"sent_", "received_", "dropped_"};
	char nid[LNE_NID_STR_MAX], name[32];
	const char *type[4] = {"get", "put", "reply", "ack"};
	int rc, k, t;

	lne_nid_format(&st->nid, nid, sizeof(nid));
	rc = c->fn(c->arg, nid, local, "send_count", st->send);
	if (!rc)
		rc = c->fn(c->arg, nid, local, "recv_count", st->recv);
	if (!rc)
		rc = c->fn(c->arg, nid, local, "drop_count", st->drop);
	for (k = 0; !rc && k < 3; k++) {
		const u32 v[4] = {st->msgs[k].get, st->msgs[k].put, st->msgs[k].reply,
				  st->msgs[k].ack};

		for (t = 0; !rc && t < 4; t++) {
			snprintf(name, sizeof(name), "%s%s", dir[k], type[t]);
			rc = c->fn(c->arg, nid, local, name, v[t]);
		}
	}
	return rc;
}

static int count_pni(void *arg, const struct lne_nid *peer, const struct lu_nid_state *st)
{
	(void)peer;
	return count_one(arg, st, false);
}

int lb_counters_by_nid(struct backend *b, struct lu *lu, bk_count_fn fn, void *arg,
		       struct lne_err *err)
{
	struct count_walk c = {fn, arg};
	struct pni_walk w = {count_pni, &c};
	struct lu_nid_state *nis = NULL;
	size_t n = 0, i;
	int rc = lu_ni_states(lu, &nis, &n, err);

	for (i = 0; !rc && i < n; i++)
		if (nis[i].nid.lnd != LNE_LND_LO)
			rc = count_one(&c, &nis[i], true);
	free(nis);
	return rc ?: each_pni(b, lu, &w, err);
}
