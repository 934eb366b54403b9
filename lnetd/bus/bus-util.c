// SPDX-License-Identifier: GPL-2.0
/*
 * bus-util.c - what several of lnetd's D-Bus methods share: running a
 * change and answering with the generation, parsing a NID, and reading named,
 * typed fields (a{sv}) and string lists within lnetd's bounds.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

#include "bus-errors.h"
#include "bus-int.h"
#include "lnetd/change.h"
#include "lnetd/lnetd.h"

/* Run a list of operations as one change; on refusal, @e says why. */
int bus_run(struct lnetd *d, const struct caller *c, struct lnetd_op *ops, size_t n, bool dry,
	    char **summary, sd_bus_error *e)
{
	struct lnetd_change_err err;
	int rc = lnetd_change(d, &c->who, ops, n, dry, 0, summary, &err);

	return rc ? bus_fail(e, rc, err.msg) : 0;
}

int bus_reply_generation(sd_bus_message *m, const struct lnetd *d)
{
	return sd_bus_reply_method_return(m, "t", d->generation);
}

/* The end of a single-object change: authorise, run it, reply with the generation. */
int bus_change_one(sd_bus_message *m, struct lnetd *d, struct lnetd_op *op, sd_bus_error *e)
{
	struct caller c;
	int rc = bus_authorise(m, &c, e);

	if (rc > 0) /* polkit is asked: the call comes back with the answer */
		return 1;
	if (rc >= 0)
		rc = bus_run(d, &c, op, 1, false, NULL, e);
	return rc < 0 ? rc : bus_reply_generation(m, d);
}

/* Parse a NID, or fail naming it and why. */
int bus_nid_arg(const char *s, struct lne_nid *nid, char *canon, sd_bus_error *e)
{
	struct lne_err err;

	if (lne_nid_parse(s, nid, &err))
		return bus_fail(e, -EINVAL, err.msg);
	lne_nid_format(nid, canon, LNE_NID_STR_MAX);
	return 0;
}

/* The strings point into the message: only the array is lnetd's. */
void bus_strv_free(char **v)
{
	free(v);
}

/*
 * An "as" of at most @max strings into *@out (malloc'd, NULL-terminated;
 * NULL when empty).  Reading stops at the first string too many: the cost
 * of a refusal is bounded by the limit, not by what the caller sent.
 */
/*
 * A string over LNETD_STR_MAX in field @name: the bounds filter's refusal,
 * for the methods that measure as they read (bus_bounds_filter).
 */
static int too_long(const char *what, const char *name, size_t len, sd_bus_error *e)
{
	return sd_bus_error_setf(
		e, LNETD_ERR_LIMIT,
		"%s: field '%.64s' holds a string of %zu bytes; lnetd takes at most %u", what, name,
		len, LNETD_STR_MAX);
}

int bus_read_strv_max(sd_bus_message *m, uint32_t max, char ***out, const char *what,
		      const char *name, sd_bus_error *e)
{
	char **v = NULL, **nv;
	size_t n = 0, cap = 0;
	const char *s;
	int rc;

	*out = NULL;
	rc = sd_bus_message_enter_container(m, 'a', "s");
	while (rc >= 0 && (rc = sd_bus_message_read_basic(m, 's', &s)) > 0) {
		if (strlen(s) > LNETD_STR_MAX) {
			bus_strv_free(v);
			return too_long(what, name, strlen(s), e);
		}
		if (n >= max) {
			bus_strv_free(v);
			return sd_bus_error_setf(e, LNETD_ERR_LIMIT,
						 "%s: '%s' lists more than %u entries", what, name,
						 max);
		}
		if (n + 1 >= cap) {
			cap = cap ? 2 * cap : 8;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				bus_strv_free(v);
				return -ENOMEM;
			}
			v = nv;
		}
		v[n] = (char *)s; /* in the message, as 's' fields are */
		v[++n] = NULL;
	}
	if (rc >= 0)
		rc = sd_bus_message_exit_container(m);
	if (rc < 0) {
		bus_strv_free(v);
		return rc;
	}
	*out = v;
	return 0;
}

int bus_read_fields(sd_bus_message *m, struct field *f, const char *what, sd_bus_error *e)
{
	static const char *const tname[] = {['s'] = "a string",
					    ['u'] = "an unsigned 32-bit integer",
					    ['b'] = "a boolean",
					    ['t'] = "an unsigned 64-bit integer",
					    ['a'] = "an array of strings"};
	const char *key;
	int rc, k;

	rc = sd_bus_message_enter_container(m, 'a', "{sv}");
	while (rc >= 0 && (rc = sd_bus_message_enter_container(m, 'e', "sv")) > 0) {
		rc = sd_bus_message_read_basic(m, 's', &key);
		if (rc < 0)
			return rc;
		if (strlen(key) > LNETD_STR_MAX)
			return too_long(what, key, strlen(key), e);
		for (k = 0; f[k].name && strcmp(f[k].name, key); k++)
			;
		if (!f[k].name)
			return sd_bus_error_setf(e, LNETD_ERR_INVALID, "%s: unknown field '%s'",
						 what, key);
		if (f[k].given)
			return sd_bus_error_setf(e, LNETD_ERR_INVALID, "%s: field '%s' given twice",
						 what, key);
		/* A variant of another type is not entered (-ENXIO): no peek first. */
		rc = sd_bus_message_enter_container(
			m, 'v', f[k].type == 'a' ? "as" : (char[]){f[k].type, '\0'});
		if (rc == -ENXIO)
			return sd_bus_error_setf(e, LNETD_ERR_INVALID, "%s: field '%s' must be %s",
						 what, key, tname[(int)f[k].type]);
		if (rc >= 0)
			rc = f[k].type == 'a'
				     ? bus_read_strv_max(m, f[k].max, f[k].out, what, key, e)
				     : sd_bus_message_read_basic(m, f[k].type, f[k].out);
		if (rc >= 0 && f[k].type == 's' && strlen(*(const char **)f[k].out) > LNETD_STR_MAX)
			return too_long(what, key, strlen(*(const char **)f[k].out), e);
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

int bus_put_basic(sd_bus_message *r, const char *key, char type, const void *v)
{
	int rc = sd_bus_message_open_container(r, 'e', "sv");

	if (rc >= 0)
		rc = sd_bus_message_append_basic(r, 's', key);
	if (rc >= 0)
		rc = sd_bus_message_open_container(r, 'v', (char[]){type, '\0'});
	if (rc >= 0)
		rc = sd_bus_message_append_basic(r, type, v);
	if (rc >= 0)
		rc = sd_bus_message_close_container(r);
	return rc >= 0 ? sd_bus_message_close_container(r) : rc;
}
