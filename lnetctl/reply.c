// SPDX-License-Identifier: GPL-2.0
/*
 * reply.c - reading lnetd's replies: an a{sv} entry by entry, or by a
 * table of the record's keys (struct ctl_key), each key read once.
 */
#include <errno.h>
#include <string.h>

#include "lnetctl.h"

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
