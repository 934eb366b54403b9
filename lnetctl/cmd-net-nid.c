// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-net-nid.c - lnetctl net add|del --nid: an NI named by its NID.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "engine/nid.h"
#include "lnetctl.h"

/*
 * An NI named by its NID (Lustre's net add|del --nid): "ADDR@NET" into the
 * net and the address, which lnetd matches as an address pattern, so the NI
 * is on whichever interface holds that address, and pending while none does.
 */
int ctl_nid_split(const char *nid, char *net, size_t netlen, char *addr, size_t addrlen)
{
	const char *at = strrchr(nid, '@');
	struct lne_nid parsed;
	struct lne_err err;

	if (lne_nid_parse(nid, &parsed, &err))
		return ctl_usage("--nid: %s", err.msg);
	if (!at || at == nid || (size_t)(at - nid) >= addrlen || strlen(at + 1) >= netlen ||
	    !strchr(nid, '.'))
		return ctl_usage("--nid: '%s' is not an IPv4 NID, ADDRESS@NET", nid);
	snprintf(addr, addrlen, "%.*s", (int)(at - nid), nid);
	snprintf(net, netlen, "%s", at + 1);
	return 0;
}

static int holds_nid(const struct ctl_ni_nid *n, void *arg)
{
	struct ctl_ni_holds *h = arg;

	h->holds = h->holds || !strcmp(n->nid, h->nid);
	return 0;
}

static int read_holds(sd_bus_message *r, void *rec)
{
	return ctl_read_ni_nids(r, holds_nid, rec);
}

const struct ctl_key ctl_ni_holds_keys[] = {
	CTL_KEY("pattern", 's', struct ctl_ni_holds, pattern),
	CTL_KEY_FN("nis", read_holds),
	{NULL},
};

/*
 * net del --nid: the NI holding that NID, however it was added, or the one
 * net add --nid made for it while it is pending.  An ip2nets rule's NI is
 * the rule's: it is not removed by one of its NIDs.
 */
int ctl_net_del_nid(sd_bus *bus, const char *nid)
{
	char nnet[LNE_NET_STR_MAX], addr[64], **changes = NULL;
	const char *net, *ifname, *state, *pattern;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *r = NULL;
	struct cf_doc doc = {0};
	struct cf_op *op = NULL;
	struct ctl_ni_holds h;
	bool holds;
	uint64_t gen;
	int rc;

	rc = ctl_nid_split(nid, nnet, sizeof(nnet), addr, sizeof(addr));
	if (!rc)
		rc = ctl_call(bus, "ListNIs", &r, NULL);
	if (rc)
		return rc;
	rc = sd_bus_message_enter_container(r, 'a', "(sssa{sv})");
	while (rc >= 0 && !op && (rc = sd_bus_message_enter_container(r, 'r', "sssa{sv}")) > 0) {
		rc = sd_bus_message_read(r, "sss", &net, &ifname, &state);
		h = (struct ctl_ni_holds){.nid = nid, .pattern = ""};
		if (rc >= 0)
			rc = ctl_read_record(r, ctl_ni_holds_keys, &h);
		pattern = h.pattern;
		holds = h.holds;
		if (rc >= 0)
			rc = sd_bus_message_exit_container(r);
		if (rc < 0 || strcmp(net, nnet))
			continue;
		if (!holds && (*ifname || strcmp(pattern, addr)))
			continue;
		if (!*ifname && strcmp(pattern, addr)) {
			rc = ctl_fail(EXIT_REFUSED,
				      "%s is an NI of the ip2nets rule '%s' on %s: remove the rule",
				      nid, pattern, net);
			break;
		}
		op = cf_op_new("del", "net");
		if (!op || cf_op_set_str(op, "net", net) ||
		    cf_op_set_str(op, *ifname ? "interface" : "pattern", *ifname ? ifname : addr) ||
		    cf_doc_push(&doc, op)) {
			cf_op_free(op);
			rc = ctl_fail(EXIT_REFUSED, "out of memory");
		}
	}
	if (rc > 0)
		rc = 0;
	if (rc < 0)
		rc = ctl_fail(EXIT_REFUSED, "cannot read the NIs: %s", strerror(-rc));
	if (!rc && !op)
		rc = ctl_fail_errno(EXIT_REFUSED, -ENOENT, "%s: no such local NI", nid);
	if (!rc)
		rc = ctl_apply(bus, &doc, false, true, &gen, &changes, NULL);
	ctl_strv_free(changes);
	cf_doc_free(&doc);
	return rc;
}
