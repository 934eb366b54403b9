// SPDX-License-Identifier: GPL-2.0
/*
 * bus-ni.c - the NI methods (AddNI, DeleteNI, ListNIs), and the fields
 * of an NI that AddNI and Apply's "net" operations read.
 */
#include <errno.h>
#include <string.h>
#include <systemd/sd-bus.h>

#include "bus-int.h"
#include "lnetd/backend/backend.h"
#include "lnetd/change.h"
#include "lnetd/lnetd.h"

void bus_ni_fields_init(struct ni_fields *nf)
{
	int k;

	memset(nf, 0, sizeof(*nf));
	nf->f[NI_F_NET] = (struct field){"net", 's', &nf->net};
	nf->f[NI_F_INTERFACE] = (struct field){"interface", 's', &nf->ifname};
	nf->f[NI_F_PATTERN] = (struct field){"pattern", 's', &nf->pattern};
	nf->f[NI_F_CPTS] = (struct field){"cpts", 's', &nf->cpts};
	for (k = 0; k < LNE_TUN__COUNT; k++)
		nf->f[NI_F_TUN + k] = (struct field){lne_tun_desc[k].name, 'u', &nf->tun[k]};
}

void bus_ni_fields_op(const struct ni_fields *nf, struct lnetd_op *op)
{
	int k;

	op->u.ni = (struct st_ni){.net = nf->net,
				  .ifname = nf->ifname && *nf->ifname ? nf->ifname : NULL,
				  .pattern = nf->pattern && *nf->pattern ? nf->pattern : NULL,
				  .cpts = nf->cpts && *nf->cpts ? nf->cpts : NULL};
	for (k = 0; k < LNE_TUN__COUNT; k++)
		op->u.ni.tun[k] = given_or_unset(&nf->f[NI_F_TUN + k], nf->tun[k]);
}

int bus_method_add_ni(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	struct lnetd_op op = {.verb = VERB_ADD, .obj = OBJ_NET};
	const char *net, *ifname;
	struct ni_fields nf;
	int rc;

	bus_ni_fields_init(&nf);
	rc = sd_bus_message_read(m, "ss", &net, &ifname);
	if (rc >= 0)
		rc = bus_read_fields(m, nf.f + NI_F_PATTERN, "AddNI",
				     e); /* net and interface are arguments */
	if (rc < 0)
		return rc;
	nf.net = net;
	nf.ifname = ifname;
	if (!*ifname)
		return bus_fail(e, -EINVAL,
				"an NI needs an interface: '' is not an interface name");
	bus_ni_fields_op(&nf, &op);
	return bus_change_one(m, d, &op, e);
}

int bus_method_delete_ni(sd_bus_message *m, void *userdata, sd_bus_error *e)
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
	return bus_change_one(m, d, &op, e);
}

static int append_tun(sd_bus_message *reply, const struct lnetd_ni *n)
{
	int k, rc = 0;

	for (k = 0; rc >= 0 && k < LNE_TUN__COUNT; k++)
		rc = sd_bus_message_append(reply, "{sv}", lne_tun_desc[k].name, "u", n->tun.v[k]);
	return rc;
}

/*
 * "dev_cpts": the CPT of each NI's device (its NUMA node, numa_dev_cpt()),
 * in the order of "nis"; -1 for one with no NUMA node, as Lustre's dev cpt.
 */
static int append_dev_cpts(sd_bus_message *reply, const struct lnetd *d, const struct lnetd_ni *n)
{
	size_t k;
	int rc;

	if (!n->nreal)
		return 0;
	rc = sd_bus_message_open_container(reply, 'e', "sv");
	if (rc >= 0)
		rc = sd_bus_message_append(reply, "s", "dev_cpts");
	if (rc >= 0)
		rc = sd_bus_message_open_container(reply, 'v', "ai");
	if (rc >= 0)
		rc = sd_bus_message_open_container(reply, 'a', "i");
	for (k = 0; rc >= 0 && k < n->nreal; k++) {
		const struct lne_ni *ni = lne_ni_find(d->mirror, &n->real[k].nid);

		rc = sd_bus_message_append(reply, "i", (int32_t)(ni ? ni->dev_cpt : LNE_CPT_ANY));
	}
	for (k = 0; rc >= 0 && k < 3; k++)
		rc = sd_bus_message_close_container(reply);
	return rc;
}

/*
 * An NI's "up": the engine's own status of it where its health view gives
 * one (a local NI's state not NA: the lustre engine, lnet.ko's status),
 * else as its ping info tells the peers (lne_ni_reported_up()).
 */
static bool ni_up(const struct bk_health *kh, const struct lne_ni *ni, const struct lne_nid *nid)
{
	const struct bk_health_one *one = bk_health_find(kh, nid);

	if (one && one->local && one->state != LNE_PNI_NA)
		return one->state == LNE_PNI_UP;
	return ni && lne_ni_reported_up(ni);
}

/*
 * One row per configured NI: (net, interface or "", "applied" or "pending",
 * details).  Applied rows start with the first NI's nid, up and health, and
 * list every NI of the entry (an ip2nets pattern may give several) in
 * "nis" as (nid, interface, up, health), and their devices' CPTs in
 * "dev_cpts".
 */
int bus_method_list_nis(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	struct bk_health *kh = bus_engine_health(d, false);
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	char nid[LNE_NID_STR_MAX], why[sizeof(d->nis->reason)], cpts[LNETD_CPTS_MAX * 2];
	uint32_t health;
	size_t i, k;
	bool applied;
	int up;
	int rc;

	rc = sd_bus_message_new_method_return(m, &reply);
	if (rc >= 0)
		rc = sd_bus_message_open_container(reply, 'a', "(sssa{sv})");
	for (i = 0; rc >= 0 && i < d->nnis; i++) {
		const struct lnetd_ni *n = &d->nis[i];

		applied = lnetd_ni_applied(d, n, why, sizeof(why));
		rc = sd_bus_message_open_container(reply, 'r', "sssa{sv}");
		if (rc >= 0)
			rc = sd_bus_message_append(reply, "sss", n->net, n->ifname,
						   applied ? "applied" : "pending");
		if (rc >= 0)
			rc = sd_bus_message_open_container(reply, 'a', "{sv}");
		for (k = 0; rc >= 0 && k < n->nreal; k++) {
			const struct lne_ni *ni = lne_ni_find(d->mirror, &n->real[k].nid);

			/* Health is running state: the engine's, where it tells it. */
			health = bk_health_get(kh, &n->real[k].nid, ni ? (uint32_t)ni->health : 0);
			lne_nid_format(&n->real[k].nid, nid, sizeof(nid));
			up = ni_up(kh, ni, &n->real[k].nid);
			if (!k)
				rc = sd_bus_message_append(reply, "{sv}{sv}{sv}", "nid", "s", nid,
							   "up", "b", up, "health", "u", health);
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
							   up, health);
			if (rc >= 0 && k + 1 == n->nreal) {
				rc = sd_bus_message_close_container(reply);
				if (rc >= 0)
					rc = sd_bus_message_close_container(reply);
				if (rc >= 0)
					rc = sd_bus_message_close_container(reply);
			}
		}
		if (rc >= 0)
			rc = append_dev_cpts(reply, d, n);
		if (rc >= 0 && !applied)
			rc = sd_bus_message_append(reply, "{sv}", "reason", "s", why);
		if (rc >= 0 && *n->pattern)
			rc = sd_bus_message_append(reply, "{sv}", "pattern", "s", n->pattern);
		if (rc >= 0 && *n->cpts)
			rc = sd_bus_message_append(reply, "{sv}", "cpts", "s", n->cpts);
		lnetd_ni_cpts_in_effect(d, n, cpts, sizeof(cpts));
		if (rc >= 0)
			rc = sd_bus_message_append(reply, "{sv}", "cpts_in_effect", "s", cpts);
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
	bk_health_free(kh);
	return rc;
}
