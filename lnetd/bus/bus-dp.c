// SPDX-License-Identifier: GPL-2.0
/*
 * bus-dp.c - the data path on the bus: Ping, Counters, ResetCounters.
 *
 * Anyone may ping and read counters (a ping costs the node one GET and is
 * bounded: LNETD_PINGS_MAX waiting at once, a timeout of at most
 * LNETD_PING_TIMEOUT_MAX); resetting counters needs the right to change.
 * With the kernel engine the module's data path answers (not built yet:
 * the calls say so).
 */
#include <errno.h>
#include <string.h>
#include <systemd/sd-bus.h>

#include "bus-errors.h"
#include "bus-int.h"
#include "lnetd/dp.h"
#include "lnetd/lnetd.h"

static int no_data_path(sd_bus_error *e)
{
	return sd_bus_error_setf(e, LNETD_ERR_UNSUPPORTED,
				 "this lnetd runs the kernel engine, whose data path is not built "
				 "yet: run lnetd --engine=userspace to send and receive");
}

/* Ping(s nid, s source, u timeout_ms) -> a{sv}: primary, multi_rail, features, pid, nids a(ss). */
int bus_method_ping(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	const char *dst, *src;
	struct lne_nid nd, ns;
	char canon[LNE_NID_STR_MAX];
	uint32_t timeout;
	int rc;

	rc = sd_bus_message_read(m, "ssu", &dst, &src, &timeout);
	if (rc < 0)
		return rc;
	rc = bus_nid_arg(dst, &nd, canon, e);
	if (rc < 0)
		return rc;
	if (*src) {
		rc = bus_nid_arg(src, &ns, canon, e);
		if (rc < 0)
			return rc;
		if (!lne_ni_find(d->mirror, &ns))
			return sd_bus_error_setf(e, LNETD_ERR_NOT_FOUND,
						 "source %s is not a NI of this node", canon);
	}
	if (!timeout || timeout > LNETD_PING_TIMEOUT_MAX)
		return sd_bus_error_setf(e, LNETD_ERR_RANGE, "timeout %u ms is outside 1..%u ms",
					 timeout, LNETD_PING_TIMEOUT_MAX);
	if (!d->dp)
		return no_data_path(e);
	return lnetd_dp_ping(d->dp, m, &nd, *src ? &ns : NULL, timeout, e);
}

static int append_counts(sd_bus_message *r, const struct lne_counts *c)
{
	static const char *const types[4] = {"ack", "put", "get", "reply"};
	int rc, t;

	rc = sd_bus_message_open_container(r, 'a', "{st}");
	if (rc >= 0)
		rc = sd_bus_message_append(r, "{st}{st}{st}{st}{st}{st}", "send_count",
					   c->send_count, "recv_count", c->recv_count, "drop_count",
					   c->drop_count, "send_length", c->send_length,
					   "recv_length", c->recv_length, "drop_length",
					   c->drop_length);
	for (t = 0; rc >= 0 && t < 4; t++) {
		char k[32];

		snprintf(k, sizeof(k), "sent_%s", types[t]);
		rc = sd_bus_message_append(r, "{st}", k, c->sent[t]);
		snprintf(k, sizeof(k), "received_%s", types[t]);
		if (rc >= 0)
			rc = sd_bus_message_append(r, "{st}", k, c->recvd[t]);
		snprintf(k, sizeof(k), "dropped_%s", types[t]);
		if (rc >= 0)
			rc = sd_bus_message_append(r, "{st}", k, c->dropped[t]);
	}
	if (rc >= 0)
		rc = sd_bus_message_close_container(r);
	return rc;
}

/*
 * Counters() -> (a{st} node, a(sba{st}) per_nid): the node's totals and
 * faults, then each local NI (true) and peer NI (false) it has counted.
 */
int bus_method_counters(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *r = NULL;
	struct lne_node *n;
	int rc, f;
	uint32_t b;

	if (!d->dp)
		return no_data_path(e);
	n = lnetd_dp_node(d->dp);
	rc = sd_bus_message_new_method_return(m, &r);
	if (rc >= 0)
		rc = append_counts(r, &n->st.c);
	if (rc >= 0)
		rc = sd_bus_message_open_container(r, 'a', "{st}");
	if (rc >= 0)
		rc = sd_bus_message_append(r, "{st}{st}{st}{st}{st}{st}{st}{st}", "msgs_alloc",
					   n->st.msgs_alloc, "msgs_max", n->st.msgs_max, "errors",
					   n->st.errors, "route_count", n->st.route_count,
					   "route_length", n->st.route_length, "connections_made",
					   n->st.links_made, "connections_accepted",
					   n->st.links_accepted, "connections_closed",
					   n->st.links_closed);
	for (f = 1; rc >= 0 && f < LNW_F__COUNT; f++) {
		char k[64];
		size_t i;

		snprintf(k, sizeof(k), "fault %s", lnw_fault_name(f));
		for (i = 0; k[i]; i++)
			if (k[i] == ' ' || k[i] == '-')
				k[i] = '_';
		rc = sd_bus_message_append(r, "{st}", k, n->st.faults[f]);
	}
	if (rc >= 0)
		rc = sd_bus_message_close_container(r);
	if (rc >= 0)
		rc = sd_bus_message_open_container(r, 'a', "(sba{st})");
	for (b = 0; rc >= 0 && b < LNE_STAT_HASH; b++) {
		const struct lne_stat *s;

		for (s = n->stats[b]; rc >= 0 && s; s = s->hnext) {
			char nid[LNE_NID_STR_MAX];
			struct lne_nid x;

			lnw_nid_from4(s->nid, &x);
			lne_nid_format(&x, nid, sizeof(nid));
			rc = sd_bus_message_open_container(r, 'r', "sba{st}");
			if (rc >= 0)
				rc = sd_bus_message_append(r, "sb", nid, (int)s->local);
			if (rc >= 0)
				rc = append_counts(r, &s->c);
			if (rc >= 0)
				rc = sd_bus_message_close_container(r);
		}
	}
	if (rc >= 0)
		rc = sd_bus_message_close_container(r);
	if (rc < 0)
		return rc;
	return sd_bus_send(NULL, r, NULL);
}

int bus_method_reset_counters(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	struct caller c;
	int rc;

	rc = sd_bus_message_read(m, "");
	if (rc < 0)
		return rc;
	rc = bus_authorise(m, &c, e);
	if (rc != 0)
		return rc;
	if (!d->dp)
		return no_data_path(e);
	lne_node_stats_reset(lnetd_dp_node(d->dp));
	return sd_bus_reply_method_return(m, "");
}
