// SPDX-License-Identifier: GPL-2.0
/*
 * counters.c - the data path's counters by NID, for `net show -v` and
 * `peer show -v`: read with one Counters call per show, printed as Lustre
 * prints an NI's or a peer NI's "statistics" and its sent, received and
 * dropped messages by type.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

#include "lnetctl.h"
#include "yout.h"

/* The names lne_counts_each gives, the ones a show prints. */
enum {
	C_SEND,
	C_RECV,
	C_DROP,
	C_BYTYPE,
	C__COUNT = C_BYTYPE + 12
};

struct ctl_nid_counts {
	char *nid;
	bool local;
	uint64_t v[C__COUNT];
};

struct ctl_counters {
	struct ctl_nid_counts *e;
	size_t n;
};

/* Lustre's message types in the order its blocks list them, and our names' stems. */
static const char *const type_key[] = {"put", "get", "reply", "ack"};
static const char *const dir_stem[] = {"sent_", "received_", "dropped_"};
static const char *const dir_block[] = {"sent_stats", "received_stats", "dropped_stats"};

static int slot(const char *name)
{
	static const char *const first[] = {"send_count", "recv_count", "drop_count"};
	size_t d, t, len;

	for (d = 0; d < 3; d++)
		if (!strcmp(name, first[d]))
			return (int)d;
	for (d = 0; d < 3; d++) {
		len = strlen(dir_stem[d]);
		if (strncmp(name, dir_stem[d], len))
			continue;
		for (t = 0; t < 4; t++)
			if (!strcmp(name + len, type_key[t]))
				return C_BYTYPE + (int)(d * 4 + t);
	}
	return -1;
}

static int read_nid(sd_bus_message *r, struct ctl_nid_counts *c)
{
	const char *nid, *name;
	int local, rc, k;
	uint64_t v;

	rc = sd_bus_message_enter_container(r, 'r', "sba{st}");
	if (rc <= 0)
		return rc;
	rc = sd_bus_message_read(r, "sb", &nid, &local);
	if (rc >= 0)
		rc = sd_bus_message_enter_container(r, 'a', "{st}");
	while (rc >= 0 && (rc = sd_bus_message_read(r, "{st}", &name, &v)) > 0)
		if ((k = slot(name)) >= 0)
			c->v[k] = v;
	if (rc >= 0)
		rc = sd_bus_message_exit_container(r);
	if (rc >= 0)
		rc = sd_bus_message_exit_container(r);
	if (rc < 0)
		return rc;
	c->nid = strdup(nid);
	c->local = local;
	return c->nid ? 1 : -ENOMEM;
}

struct ctl_counters *ctl_counters_read(sd_bus *bus)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	struct ctl_counters *c = calloc(1, sizeof(*c));
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *r = NULL;
	size_t cap = 0;
	int rc;

	if (!c)
		return NULL;
	/* No data path (a kernel engine without its module): every count is 0. */
	rc = sd_bus_call_method(bus, LNETD_BUS_NAME, LNETD_BUS_PATH, LNETD_BUS_MANAGER, "Counters",
				&e, &r, NULL);
	sd_bus_error_free(&e);
	if (rc >= 0)
		rc = sd_bus_message_skip(r, "a{st}a{st}");
	if (rc >= 0)
		rc = sd_bus_message_enter_container(r, 'a', "(sba{st})");
	while (rc >= 0) {
		if (c->n == cap) {
			struct ctl_nid_counts *grown;

			cap = cap ? 2 * cap : 16;
			grown = realloc(c->e, cap * sizeof(*grown));
			if (!grown)
				break;
			c->e = grown;
		}
		memset(&c->e[c->n], 0, sizeof(c->e[c->n]));
		rc = read_nid(r, &c->e[c->n]);
		if (rc > 0)
			c->n++;
		else
			break;
	}
	return c;
}

void ctl_counters_free(struct ctl_counters *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->n; i++)
		free(c->e[i].nid);
	free(c->e);
	free(c);
}

static const uint64_t *find(const struct ctl_counters *c, const char *nid, bool local)
{
	static const uint64_t none[C__COUNT];
	size_t i;

	for (i = 0; c && i < c->n; i++)
		if (c->e[i].local == local && !strcmp(c->e[i].nid, nid))
			return c->e[i].v;
	return none;
}

void ctl_counters_totals(struct yout *y, const struct ctl_counters *c, const char *nid, bool local)
{
	const uint64_t *v = find(c, nid, local);

	yout_key(y, "statistics");
	yout_map_begin(y);
	yout_key(y, "send_count");
	yout_u64(y, v[C_SEND]);
	yout_key(y, "recv_count");
	yout_u64(y, v[C_RECV]);
	yout_key(y, "drop_count");
	yout_u64(y, v[C_DROP]);
	yout_map_end(y);
}

void ctl_counters_by_type(struct yout *y, const struct ctl_counters *c, const char *nid, bool local)
{
	const uint64_t *v = find(c, nid, local);
	size_t d, t;

	for (d = 0; d < 3; d++) {
		yout_key(y, dir_block[d]);
		yout_map_begin(y);
		for (t = 0; t < 4; t++) {
			yout_key(y, type_key[t]);
			yout_u64(y, v[C_BYTYPE + d * 4 + t]);
		}
		/* socklnd's hello is no LNet message: Lustre counts none over TCP either */
		yout_key(y, "hello");
		yout_u64(y, 0);
		yout_map_end(y);
	}
}
