// SPDX-License-Identifier: GPL-2.0
/*
 * reply.c - reading lnetd's replies: an a{sv} entry by entry, or by a
 * table of the record's keys (struct ctl_key), each key read once; and
 * the show of a list (struct ctl_list): call, read each record by its
 * tables, filter, print.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lnetctl.h"
#include "yout.h"

int ctl_read_dict(sd_bus_message *r, int (*entry)(sd_bus_message *r, const char *key, void *arg),
		  void *arg)
{
	const char *key;
	int rc = sd_bus_message_enter_container(r, 'a', "{sv}");

	while (rc >= 0 && (rc = sd_bus_message_enter_container(r, 'e', "sv")) > 0) {
		rc = sd_bus_message_read_basic(r, 's', &key);
		if (rc >= 0)
			rc = entry(r, key, arg);
		if (rc == 0)
			rc = sd_bus_message_skip(r, "v");
		if (rc >= 0)
			rc = sd_bus_message_exit_container(r);
	}
	return rc < 0 ? rc : sd_bus_message_exit_container(r);
}

int ctl_key_entry(sd_bus_message *r, const char *key, const struct ctl_key *keys, void *rec)
{
	const struct ctl_key *k;
	int rc;

	for (k = keys; k->key && strcmp(k->key, key); k++)
		;
	if (!k->key)
		return 0;
	if (k->read)
		return k->read(r, rec);
	/* entered and read without a format string to parse (50,000 peers' worth) */
	rc = sd_bus_message_enter_container(r, 'v', (char[]){k->type, '\0'});
	if (rc > 0)
		rc = sd_bus_message_read_basic(r, k->type, (char *)rec + k->off);
	if (rc > 0)
		rc = sd_bus_message_exit_container(r) < 0 ? -EBADMSG : 1;
	return rc <= 0 ? -EBADMSG : 1;
}

struct ctl_record {
	const struct ctl_key *keys;
	void *rec;
};

static int key_entry(sd_bus_message *r, const char *key, void *arg)
{
	const struct ctl_record *rec = arg;

	return ctl_key_entry(r, key, rec->keys, rec->rec);
}

int ctl_read_record(sd_bus_message *r, const struct ctl_key *keys, void *rec)
{
	return ctl_read_dict(r, key_entry, &(struct ctl_record){keys, rec});
}

int ctl_read_ni_nids(sd_bus_message *r, int (*each)(const struct ctl_ni_nid *n, void *arg),
		     void *arg)
{
	struct ctl_ni_nid n;
	int rc = sd_bus_message_enter_container(r, 'v', "a(ssbu)");

	if (rc >= 0)
		rc = sd_bus_message_enter_container(r, 'a', "(ssbu)");
	while (rc >= 0 &&
	       (rc = sd_bus_message_read(r, "(ssbu)", &n.nid, &n.ifname, &n.up, &n.health)) > 0)
		rc = each(&n, arg);
	if (rc >= 0)
		rc = sd_bus_message_exit_container(r);
	if (rc >= 0)
		rc = sd_bus_message_exit_container(r);
	return rc < 0 ? rc : 1;
}

/* "(sa{sv})" for a list of @l's records: the head's types, then the a{sv} if any. */
static int list_sig(const struct ctl_list *l, char *sig, size_t len)
{
	const struct ctl_key *h;
	size_t n = 0;

	sig[n++] = '(';
	for (h = l->head; h && h->type && n < len - 8; h++)
		sig[n++] = h->type;
	if (h && h->type)
		return -E2BIG;
	if (l->keys || l->entry) {
		memcpy(sig + n, "a{sv}", 5);
		n += 5;
	}
	sig[n++] = ')';
	sig[n] = '\0';
	return 0;
}

int ctl_show_list(const struct ctl_list *l, void *rec, void *arg)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *r = NULL;
	const struct ctl_key *h;
	sd_bus *bus = NULL;
	struct yout *y;
	char sig[64], inner[64];
	int rc, yrc;

	rc = list_sig(l, sig, sizeof(sig));
	if (rc < 0)
		return ctl_fail(EXIT_REFUSED, "%s: %s", l->bad_reply, strerror(-rc));
	snprintf(inner, sizeof(inner), "%.*s", (int)strlen(sig) - 2, sig + 1);
	rc = ctl_bus(&bus);
	if (!rc)
		rc = l->call ? l->call(bus, &r, arg) : ctl_call(bus, l->method, &r, NULL);
	if (rc)
		return ctl_finish(rc, bus, NULL);
	y = yout_begin(stdout);
	yout_map_begin(y);
	yout_key(y, l->top);
	yout_seq_begin(y);
	rc = sd_bus_message_enter_container(r, 'a', sig);
	while (rc >= 0 && (rc = sd_bus_message_enter_container(r, 'r', inner)) > 0) {
		memset(rec, 0, l->size);
		for (h = l->head; rc >= 0 && h && h->type; h++)
			rc = sd_bus_message_read_basic(r, h->type, (char *)rec + h->off);
		if (rc >= 0 && l->entry)
			rc = ctl_read_dict(r, l->entry, rec);
		else if (rc >= 0 && l->keys)
			rc = ctl_read_record(r, l->keys, rec);
		if (rc >= 0)
			rc = sd_bus_message_exit_container(r);
		if (rc >= 0 && (!l->keep || l->keep(rec, arg)))
			l->emit(y, rec, arg);
	}
	yout_seq_end(y);
	yout_map_end(y);
	yrc = yout_end(y);
	if (rc < 0)
		rc = ctl_fail(EXIT_REFUSED, "%s: %s", l->bad_reply, strerror(-rc));
	else if (yrc < 0)
		rc = ctl_fail(EXIT_REFUSED, "%s: %s", l->bad_write, strerror(-yrc));
	else
		rc = 0;
	return ctl_finish(rc, bus, NULL);
}
