// SPDX-License-Identifier: GPL-2.0
/*
 * bus.c - lnetctl's side of org.lnetd1: the connection, calls, errors as
 * one plain line with an exit code, and the typed batch (Apply/Export)
 * to and from conf.h's operations.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "direct.h"
#include "engine/nid.h"
#include "lnetctl.h"
#include "progress.h"

#define CALL_TIMEOUT_US (600ull * 1000 * 1000) /* a 100k-object import takes seconds */

bool ctl_ask_password = true;

/*
 * How long a call that may change something waits: with interactive
 * authorization, without a limit (sd-bus's UINT64_MAX), as systemctl does,
 * since polkit's agent may be waiting for someone to type a password (and
 * that someone can press Ctrl-C); else CALL_TIMEOUT_US.
 */
static uint64_t change_timeout(sd_bus *bus)
{
	return sd_bus_get_allow_interactive_authorization(bus) > 0 ? UINT64_MAX : CALL_TIMEOUT_US;
}

/* The methods that only read: no authorization, so never a password. */
static bool reads(const char *method)
{
	static const char *const names[] = {"Counters", "Explain", "Export",  "History",
					    "Ping",	"Status",  "UdspInfo"};
	size_t i;

	if (!strncmp(method, "List", 4))
		return true;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(method, names[i]))
			return true;
	return false;
}

static int no_daemon(int rc)
{
	return ctl_fail_errno(EXIT_NODAEMON, rc ? rc : -ENOTCONN,
			      "lnetd is not running (%s); start it with 'systemctl start lnetd'",
			      rc ? strerror(-rc) : "nothing owns org.lnetd1 on the system bus");
}

/*
 * lnetd's own socket (lnetd --private-socket), where root's calls go peer to
 * peer, as systemctl's go to /run/systemd/private: $LNETD_PRIVATE_SOCKET
 * (empty: none), else LNETD_PRIVATE_SOCKET_DEFAULT unless
 * $DBUS_SYSTEM_BUS_ADDRESS names a bus of its own (whose lnetd that socket
 * may not be).
 */
static const char *direct_path(void)
{
	const char *p = getenv("LNETD_PRIVATE_SOCKET");

	if (p)
		return *p ? p : NULL;
	return getenv("DBUS_SYSTEM_BUS_ADDRESS") ? NULL : LNETD_PRIVATE_SOCKET_DEFAULT;
}

int ctl_bus(sd_bus **bus)
{
	int rc = ctl_direct_open(direct_path(), bus);

	if (rc < 0)
		rc = sd_bus_open_system(bus);
	if (rc < 0)
		return no_daemon(rc);
	rc = sd_bus_set_allow_interactive_authorization(*bus,
							ctl_ask_password && isatty(STDIN_FILENO));
	if (rc < 0) {
		*bus = sd_bus_flush_close_unref(*bus);
		return no_daemon(rc);
	}
	return 0;
}

/* lnetd's errors (lnetd(8), ERRORS) by their errno, for the YAML block's errno. */
static int bus_errno(const sd_bus_error *e, int rc)
{
	static const struct {
		const char *name;
		int err;
	} lnetd[] = {
		{"org.lnetd1.Error.InvalidArgument", EINVAL},
		{"org.lnetd1.Error.NotFound", ENOENT},
		{"org.lnetd1.Error.Exists", EEXIST},
		{"org.lnetd1.Error.OutOfRange", ERANGE},
		{"org.lnetd1.Error.Busy", EBUSY},
		{"org.lnetd1.Error.LimitReached", E2BIG},
		{"org.lnetd1.Error.Store", EIO},
		{"org.lnetd1.Error.Unreachable", EHOSTUNREACH},
		{"org.lnetd1.Error.Protocol", EPROTO},
		{"org.lnetd1.Error.NotSupported", EOPNOTSUPP},
	};
	size_t i;

	for (i = 0; sd_bus_error_is_set(e) && i < sizeof(lnetd) / sizeof(lnetd[0]); i++)
		if (sd_bus_error_has_name(e, lnetd[i].name))
			return -lnetd[i].err;
	if (sd_bus_error_is_set(e))
		return -sd_bus_error_get_errno(e) ?: -EIO;
	return rc < 0 ? rc : -EIO;
}

int ctl_bus_error(const sd_bus_error *e, int rc)
{
	if (sd_bus_error_has_names(e, SD_BUS_ERROR_SERVICE_UNKNOWN, SD_BUS_ERROR_NAME_HAS_NO_OWNER,
				   SD_BUS_ERROR_NO_REPLY, SD_BUS_ERROR_DISCONNECTED) ||
	    (!sd_bus_error_is_set(e) && (rc == -ECONNREFUSED || rc == -ENOENT || rc == -ENOTCONN)))
		return no_daemon(sd_bus_error_is_set(e) ? 0 : rc);
	if (sd_bus_error_has_name(e, SD_BUS_ERROR_ACCESS_DENIED))
		return ctl_fail_errno(EXIT_DENIED, -EPERM, "permission denied: %s",
				      e->message && strcmp(e->message, "Access denied")
					      ? e->message
					      : "changing LNet's configuration needs root");
	if (sd_bus_error_is_set(e))
		return ctl_fail_errno(EXIT_REFUSED, bus_errno(e, rc), "%s", e->message ?: e->name);
	return ctl_fail_errno(EXIT_REFUSED, rc < 0 ? rc : -EIO, "the call to lnetd failed: %s",
			      strerror(-rc));
}

static int vcall(sd_bus *bus, const char *method, sd_bus_message **reply, sd_bus_error *e,
		 const char *types, va_list ap)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
	int rc;

	rc = sd_bus_message_new_method_call(bus, &m, LNETD_BUS_NAME, LNETD_BUS_PATH,
					    LNETD_BUS_MANAGER, method);
	if (rc >= 0 && types)
		rc = sd_bus_message_appendv(m, types, ap);
	if (rc >= 0)
		rc = sd_bus_call(bus, m, reads(method) ? CALL_TIMEOUT_US : change_timeout(bus), e,
				 reply);
	return rc;
}

int ctl_call_e(sd_bus *bus, const char *method, sd_bus_message **reply, sd_bus_error *e,
	       const char *types, ...)
{
	va_list ap;
	int rc;

	va_start(ap, types);
	rc = vcall(bus, method, reply, e, types, ap);
	va_end(ap);
	return rc;
}

int ctl_call(sd_bus *bus, const char *method, sd_bus_message **reply, const char *types, ...)
{
	_cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
	va_list ap;
	int rc;

	va_start(ap, types);
	rc = vcall(bus, method, reply, &e, types, ap);
	va_end(ap);
	return rc < 0 ? ctl_bus_error(&e, rc) : 0;
}

int ctl_finish(int rc, sd_bus *bus, sd_bus_message *reply)
{
	sd_bus_message_unref(reply);
	sd_bus_flush_close_unref(bus);
	return rc;
}

int ctl_send(sd_bus *bus, sd_bus_message *m, int rc)
{
	_cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;

	if (rc >= 0)
		rc = sd_bus_call(bus, m, change_timeout(bus), &e, &reply);
	sd_bus_message_unref(m);
	return rc < 0 ? ctl_bus_error(&e, rc) : 0;
}

/* --- operations on the bus ----------------------------------------------------- */

/* A variant of one basic value: appended directly, no format string to parse per value. */
static int append_variant(sd_bus_message *m, char type, const void *v)
{
	int rc = sd_bus_message_open_container(m, 'v', (char[]){type, '\0'});

	if (rc >= 0)
		rc = sd_bus_message_append_basic(m, type, v);
	return rc >= 0 ? sd_bus_message_close_container(m) : rc;
}

static int append_val(sd_bus_message *m, const struct cf_field *f)
{
	int rc = sd_bus_message_open_container(m, 'e', "sv"), b;
	size_t i;

	if (rc >= 0)
		rc = sd_bus_message_append_basic(m, 's', f->key);
	if (rc < 0)
		return rc;
	switch (f->val.type) {
	case CF_STR:
		rc = append_variant(m, 's', f->val.s);
		break;
	case CF_U32:
		rc = append_variant(m, 'u', &f->val.u);
		break;
	case CF_BOOL:
		b = f->val.b;
		rc = append_variant(m, 'b', &b);
		break;
	case CF_STRV:
		rc = sd_bus_message_open_container(m, 'v', "as");
		if (rc >= 0)
			rc = sd_bus_message_open_container(m, 'a', "s");
		for (i = 0; rc >= 0 && i < f->val.sv.n; i++)
			rc = sd_bus_message_append_basic(m, 's', f->val.sv.v[i]);
		if (rc >= 0)
			rc = sd_bus_message_close_container(m);
		if (rc >= 0)
			rc = sd_bus_message_close_container(m);
		break;
	}
	return rc >= 0 ? sd_bus_message_close_container(m) : rc;
}

static int append_ops(sd_bus_message *m, const struct cf_doc *doc)
{
	size_t i, k;
	int rc = sd_bus_message_open_container(m, 'a', "(ssa{sv})");

	for (i = 0; rc >= 0 && i < doc->nop; i++) {
		const struct cf_op *op = &doc->op[i];

		rc = sd_bus_message_open_container(m, 'r', "ssa{sv}");
		if (rc >= 0)
			rc = sd_bus_message_append_basic(m, 's', op->verb);
		if (rc >= 0)
			rc = sd_bus_message_append_basic(m, 's', op->obj);
		if (rc >= 0)
			rc = sd_bus_message_open_container(m, 'a', "{sv}");
		for (k = 0; rc >= 0 && k < op->nf; k++)
			rc = append_val(m, &op->f[k]);
		if (rc >= 0)
			rc = sd_bus_message_close_container(m);
		if (rc >= 0)
			rc = sd_bus_message_close_container(m);
	}
	return rc >= 0 ? sd_bus_message_close_container(m) : rc;
}

/* What names @op's object for same_object(): a peer's primary NID, a TBF policy's service. */
static const char *object_key(const struct cf_op *op)
{
	return cf_op_get_str(op, !strcmp(op->obj, "tbf") ? "service" : "primary");
}

/* Whether every operation of @doc is on the same object (one peer's NIDs in parts). */
static bool same_object(const struct cf_doc *doc)
{
	const char *p0 = object_key(&doc->op[0]), *p;
	size_t i;

	for (i = 1; i < doc->nop; i++) {
		p = object_key(&doc->op[i]);
		if (!p0 || !p || strcmp(p0, p) || strcmp(doc->op[i].obj, doc->op[0].obj))
			return false;
	}
	return true;
}

/* An operation in the user's words: "route to tcp5 via 10.0.0.1@tcp", "peer 10.0.0.2@tcp". */
static void op_words(const struct cf_op *op, char *buf, size_t len)
{
	const char *net = cf_op_get_str(op, "net"), *gw = cf_op_get_str(op, "gateway");
	const char *prim = cf_op_get_str(op, "primary"), *ifname = cf_op_get_str(op, "interface");
	const char *pattern = cf_op_get_str(op, "pattern"), *name = cf_op_get_str(op, "name");

	if (!strcmp(op->obj, "route") && net && gw)
		snprintf(buf, len, "%s route to %s via %s", op->verb, net, gw);
	else if (!strcmp(op->obj, "peer") && prim)
		snprintf(buf, len, "%s peer %s", op->verb, prim);
	else if (!strcmp(op->obj, "net") && net)
		snprintf(buf, len, "%s NI %s%s%s", op->verb, net, ifname || pattern ? " on " : "",
			 ifname	   ? ifname
			 : pattern ? pattern
				   : "");
	else if (!strcmp(op->obj, "global") && name)
		snprintf(buf, len, "set %s", name);
	else
		snprintf(buf, len, "%s %s", op->verb, op->obj);
}

/*
 * lnetd names a refused operation "operation N (VERB OBJ): why", by its
 * place in the call: never shown as such.  A file's operations say where
 * in the file ("FILE:LINE:COLUMN: add route: why"); a command's own, when
 * it made several (a range of gateways, a peer's NIDs in parts), say which
 * in the command's words; one alone says only why.
 */
static int apply_error(const sd_bus_error *e, int rc, const struct cf_doc *doc, const char *fname)
{
	const char *msg = e->message ?: "", *why = NULL;
	int code = sd_bus_error_has_name(e, SD_BUS_ERROR_ACCESS_DENIED) ? EXIT_DENIED
									: EXIT_REFUSED;
	unsigned long n = 0;
	char *end, what[256];

	if (!strncmp(msg, "operation ", 10)) {
		n = strtoul(msg + 10, &end, 10);
		why = strstr(end, "): ");
	}
	if (!why || n < 1 || n > doc->nop)
		return ctl_bus_error(e, rc);
	why += 3;
	if (fname && doc->op[n - 1].line)
		return ctl_fail_errno(code, bus_errno(e, rc), "%s:%d:%d: %s %s: %s", fname,
				      doc->op[n - 1].line, doc->op[n - 1].col, doc->op[n - 1].verb,
				      doc->op[n - 1].obj, why);
	if (doc->nop == 1 || (doc->op[0].line == 0 && same_object(doc)))
		return ctl_fail_errno(code, bus_errno(e, rc), "%s", why);
	op_words(&doc->op[n - 1], what, sizeof(what));
	return ctl_fail_errno(code, bus_errno(e, rc), "%s: %s", what, why);
}

static int on_reply(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	*(sd_bus_message **)userdata = sd_bus_message_ref(m);
	return 0;
}

static int wait_reply(sd_bus *bus, sd_bus_message *m, sd_bus_message **reply, size_t nop,
		      uint64_t timeout)
{
	sd_bus_slot *slot = NULL;
	struct timespec start, now;
	int rc;

	*reply = NULL;
	ctl_progress("lnetd is applying %zu object%s as one change", nop, nop == 1 ? "" : "s");
	rc = sd_bus_call_async(bus, &slot, m, on_reply, reply, timeout);
	clock_gettime(CLOCK_MONOTONIC, &start);
	while (rc >= 0 && !*reply) {
		rc = sd_bus_process(bus, NULL);
		if (rc > 0 || *reply)
			continue;
		if (rc >= 0)
			rc = sd_bus_wait(bus, 250 * 1000);
		clock_gettime(CLOCK_MONOTONIC, &now);
		ctl_progress_wait((long)(now.tv_sec - start.tv_sec));
	}
	sd_bus_slot_unref(slot);
	return rc < 0 ? rc : 0;
}

/*
 * sd_bus_message_read_strv(), in time linear in the strings: libsystemd's
 * measures the list again for each string it appends, which made reading
 * the 50,000 changes of an import's reply take longer than the import.
 */
int ctl_read_strv(sd_bus_message *m, char ***out)
{
	char **v = NULL, **grown;
	size_t n = 0, cap = 0;
	const char *s;
	int rc;

	*out = NULL;
	rc = sd_bus_message_enter_container(m, 'a', "s");
	while (rc >= 0 && (rc = sd_bus_message_read_basic(m, 's', &s)) > 0) {
		if (n + 1 >= cap) {
			cap = cap ? 2 * cap : 16;
			grown = realloc(v, cap * sizeof(*v));
			if (!grown) {
				rc = -ENOMEM;
				break;
			}
			v = grown;
		}
		v[n] = strdup(s);
		if (!v[n]) {
			rc = -ENOMEM;
			break;
		}
		v[++n] = NULL;
	}
	if (rc >= 0)
		rc = sd_bus_message_exit_container(m);
	if (rc < 0) {
		ctl_strv_free(v);
		return rc;
	}
	*out = v;
	return 1;
}

/* Whether @doc adds an NI on a named interface (lnetd's notes tell of pattern NIs). */
static bool adds_ifnis(const struct cf_doc *doc)
{
	size_t i;

	for (i = 0; i < doc->nop; i++)
		if (!strcmp(doc->op[i].obj, "net") && !strcmp(doc->op[i].verb, "add") &&
		    cf_op_get_str(&doc->op[i], "interface") &&
		    !cf_op_get_str(&doc->op[i], "pattern"))
			return true;
	return false;
}

/* Whether @doc adds the NI of @net (canonical) on @ifname. */
static bool doc_adds_ni(const struct cf_doc *doc, const char *net, const char *ifname)
{
	char canon[LNE_NET_STR_MAX];
	lne_net_t id;
	size_t i;

	for (i = 0; i < doc->nop; i++) {
		const struct cf_op *op = &doc->op[i];
		const char *n = cf_op_get_str(op, "net"), *f = cf_op_get_str(op, "interface");

		if (strcmp(op->obj, "net") || strcmp(op->verb, "add") || !n || !f ||
		    cf_op_get_str(op, "pattern") || strcmp(f, ifname) ||
		    lne_net_parse(n, &id, NULL))
			continue;
		lne_net_format(id, canon, sizeof(canon));
		if (!strcmp(canon, net))
			return true;
	}
	return false;
}

/* ListNIs' "reason" of a pending NI, into a const char *. */
static const struct ctl_key reason_keys[] = {
	{"reason", 's', 0, NULL},
	{NULL},
};

/*
 * An NI just added on an interface that is not there (or has no address)
 * is kept, pending, and comes up when it is: the change succeeded, so say
 * so on stderr, with lnetd's reason, rather than nothing (upstream's net
 * add fails then).  A pattern NI is told of by lnetd's notes.
 */
static void warn_pending(sd_bus *bus, const struct cf_doc *doc)
{
	const char *net, *ifname, *state;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *r = NULL;
	_cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
	int rc;

	if (!adds_ifnis(doc))
		return;
	rc = ctl_call_e(bus, "ListNIs", &r, &e, NULL);
	if (rc >= 0)
		rc = sd_bus_message_enter_container(r, 'a', "(sssa{sv})");
	while (rc >= 0 && (rc = sd_bus_message_enter_container(r, 'r', "sssa{sv}")) > 0) {
		const char *why = NULL;

		rc = sd_bus_message_read(r, "sss", &net, &ifname, &state);
		if (rc >= 0)
			rc = ctl_read_record(r, reason_keys, &why);
		if (rc >= 0)
			rc = sd_bus_message_exit_container(r);
		if (rc >= 0 && !strcmp(state, "pending") && doc_adds_ni(doc, net, ifname))
			fprintf(stderr,
				"lnetctl %s: warning: %s on %s is pending (%s); it is kept, and comes "
				"up when the interface does\n",
				ctl_cmd_name, net, ifname, why ? why : "no reason given");
	}
}

/* lnetd's bound on the NIDs of one peer operation (lnetd(8), BOUNDS). */
#define PEER_NIDS_MAX 1024

/* A copy of @op, its "nids" only @n from @from; NULL when out of memory. */
static struct cf_op *op_part(const struct cf_op *op, size_t from, size_t n)
{
	struct cf_op *c = cf_op_new(op->verb, op->obj);
	size_t i;
	int rc = c ? 0 : -ENOMEM;

	for (i = 0; !rc && i < op->nf; i++) {
		const struct cf_field *f = &op->f[i];

		switch (f->val.type) {
		case CF_STR:
			rc = cf_op_set_str(c, f->key, f->val.s);
			break;
		case CF_U32:
			rc = cf_op_set_u32(c, f->key, f->val.u);
			break;
		case CF_BOOL:
			rc = cf_op_set_bool(c, f->key, f->val.b);
			break;
		case CF_STRV:
			rc = !strcmp(f->key, "nids")
				     ? cf_op_set_strv(c, f->key,
						      (const char *const *)f->val.sv.v + from, n)
				     : cf_op_set_strv(c, f->key, (const char *const *)f->val.sv.v,
						      f->val.sv.n);
			break;
		}
	}
	if (rc) {
		cf_op_free(c);
		return NULL;
	}
	c->line = op->line;
	c->col = op->col;
	return c;
}

/*
 * @doc with each peer operation of more NIDs than lnetd takes in one split
 * into several on the same peer (a Lustre range of 2,000 NIDs is one peer):
 * 1 with the copy in @out, 0 when none needs it, or -ENOMEM.  The parts
 * keep the operation's place in the file, so an error still says where.
 */
static int split_peers(const struct cf_doc *doc, struct cf_doc *out)
{
	size_t i, n, k;
	bool any = false;

	for (i = 0; i < doc->nop && !any; i++)
		any = !strcmp(doc->op[i].obj, "peer") && cf_op_get_strv(&doc->op[i], "nids", &n) &&
		      n > PEER_NIDS_MAX;
	if (!any)
		return 0;
	memset(out, 0, sizeof(*out));
	for (i = 0; i < doc->nop; i++) {
		const struct cf_op *op = &doc->op[i];

		if (strcmp(op->obj, "peer") || !cf_op_get_strv(op, "nids", &n))
			n = 0;
		for (k = 0; k < n || (k == 0 && n == 0); k += PEER_NIDS_MAX) {
			struct cf_op *part =
				n > PEER_NIDS_MAX
					? op_part(op, k,
						  n - k < PEER_NIDS_MAX ? n - k : PEER_NIDS_MAX)
					: op_part(op, 0, n);

			if (!part || cf_doc_push(out, part)) {
				cf_doc_free(out);
				return -ENOMEM;
			}
			if (n <= PEER_NIDS_MAX)
				break;
		}
	}
	return 1;
}

bool ctl_if_empty;

/* Apply, or ApplyWith for @exclusive, a generation @at (not NULL) or ctl_if_empty. */
static int apply_doc(sd_bus *bus, const struct cf_doc *doc, bool dry, bool exclusive,
		     const uint64_t *at, uint64_t *gen, char ***changes, const char *fname);

static int apply(sd_bus *bus, const struct cf_doc *doc, bool dry, bool exclusive,
		 const uint64_t *at, uint64_t *gen, char ***changes, const char *fname)
{
	struct cf_doc split;
	int rc = split_peers(doc, &split);

	if (rc < 0)
		return ctl_fail(EXIT_REFUSED, "out of memory");
	if (!rc)
		return apply_doc(bus, doc, dry, exclusive, at, gen, changes, fname);
	rc = apply_doc(bus, &split, dry, exclusive, at, gen, changes, fname);
	cf_doc_free(&split);
	return rc;
}

static int apply_doc(sd_bus *bus, const struct cf_doc *doc, bool dry, bool exclusive,
		     const uint64_t *at, uint64_t *gen, char ***changes, const char *fname)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL, *reply = NULL;
	sd_bus_error e = SD_BUS_ERROR_NULL;
	char **c;
	int rc;

	rc = sd_bus_message_new_method_call(
		bus, &m, LNETD_BUS_NAME, LNETD_BUS_PATH, LNETD_BUS_MANAGER,
		exclusive || at || ctl_if_empty ? "ApplyWith" : "Apply");
	if (rc >= 0)
		rc = append_ops(m, doc);
	if (rc >= 0 && ctl_if_empty)
		rc = sd_bus_message_append(m, "a{sv}", 2, "dry_run", "b", (int)dry, "if_empty", "b",
					   1);
	else if (rc >= 0 && at)
		rc = sd_bus_message_append(m, "a{sv}", 2, "dry_run", "b", (int)dry, "generation",
					   "t", *at);
	else if (rc >= 0)
		rc = exclusive ? sd_bus_message_append(m, "a{sv}", 2, "dry_run", "b", (int)dry,
						       "exclusive", "b", 1)
			       : sd_bus_message_append(m, "b", (int)dry);
	if (rc >= 0)
		rc = wait_reply(bus, m, &reply, doc->nop,
				dry ? CALL_TIMEOUT_US : change_timeout(bus));
	if (rc < 0)
		return ctl_bus_error(&e, rc);
	if (sd_bus_message_is_method_error(reply, NULL))
		return apply_error(sd_bus_message_get_error(reply), -EIO, doc, fname);
	rc = sd_bus_message_read(reply, "t", gen);
	if (rc >= 0)
		rc = ctl_read_strv(reply, changes);
	if (rc >= 0 && !dry && !(*changes && !strncmp(**changes, "!not empty", 10)))
		warn_pending(bus, doc);
	/* lnetd's notes ("!ni NET IF PATTERN: why", "!route NET GW: why"): a dry run lists them. */
	for (c = rc >= 0 && !dry ? *changes : NULL; c && *c; c++) {
		const char *why = strstr(*c, ": ");

		if (!strncmp(*c, "!ni ", 4) && why)
			fprintf(stderr,
				"lnetctl %s: warning: the ip2nets rule %.*s matches no interface "
				"now (%s); it is kept, pending, and applies when one does\n",
				ctl_cmd_name, (int)(why - *c - 4), *c + 4, why + 2);
		else if (!strncmp(*c, "!route ", 7) && why)
			fprintf(stderr,
				"lnetctl %s: warning: the route %.*s is kept, but unused while %s\n",
				ctl_cmd_name, (int)(why - *c - 7), *c + 7, why + 2);
	}
	return rc < 0 ? ctl_fail(EXIT_REFUSED, "lnetd's reply makes no sense: %s", strerror(-rc))
		      : 0;
}

int ctl_apply_op(struct cf_op *op)
{
	struct cf_doc doc = {0};
	char **changes = NULL;
	sd_bus *bus = NULL;
	uint64_t gen;
	int rc;

	if (!op || cf_doc_push(&doc, op)) /* a push that fails frees @op */
		return ctl_fail(EXIT_REFUSED, "out of memory");
	rc = ctl_bus(&bus);
	if (!rc)
		rc = ctl_apply(bus, &doc, false, true, &gen, &changes, NULL);
	ctl_strv_free(changes);
	cf_doc_free(&doc);
	sd_bus_flush_close_unref(bus);
	return rc;
}

int ctl_apply(sd_bus *bus, const struct cf_doc *doc, bool dry, bool exclusive, uint64_t *gen,
	      char ***changes, const char *fname)
{
	return apply(bus, doc, dry, exclusive, NULL, gen, changes, fname);
}

int ctl_apply_at(sd_bus *bus, const struct cf_doc *doc, bool dry, uint64_t at, uint64_t *gen,
		 char ***changes, const char *fname)
{
	return apply(bus, doc, dry, false, &at, gen, changes, fname);
}

/*
 * One a{sv} entry of Export into @arg (a struct cf_op): every key is a
 * field of the operation, by the type lnetd gives it (ctl_read_dict()).
 */
static int read_field(sd_bus_message *m, const char *key, void *arg)
{
	const char *contents, *s;
	struct cf_op *op = arg;
	char type;
	uint32_t u;
	size_t n;
	int rc, b;

	rc = sd_bus_message_peek_type(m, &type, &contents);
	if (rc >= 0)
		rc = sd_bus_message_enter_container(m, 'v', contents);
	if (rc < 0)
		return rc;
	/* Basic by basic, no format string to parse: an Export may hold 50,000 peers. */
	if (!strcmp(contents, "s")) {
		rc = sd_bus_message_read_basic(m, 's', &s);
		if (rc >= 0)
			rc = cf_op_set_str(op, key, s);
	} else if (!strcmp(contents, "u")) {
		rc = sd_bus_message_read_basic(m, 'u', &u);
		if (rc >= 0)
			rc = cf_op_set_u32(op, key, u);
	} else if (!strcmp(contents, "b")) {
		rc = sd_bus_message_read_basic(m, 'b', &b);
		if (rc >= 0)
			rc = cf_op_set_bool(op, key, b);
	} else if (!strcmp(contents, "as")) {
		/* The strings stay the message's until cf_op_set_strv() copies them, once. */
		const char **v = NULL, **grown;
		size_t cap = 0;

		rc = sd_bus_message_enter_container(m, 'a', "s");
		for (n = 0; rc >= 0 && (rc = sd_bus_message_read_basic(m, 's', &s)) > 0; n++) {
			if (n == cap) {
				cap = cap ? 2 * cap : 8;
				grown = realloc(v, cap * sizeof(*v));
				if (!grown) {
					rc = -ENOMEM;
					break;
				}
				v = grown;
			}
			v[n] = s;
		}
		if (rc >= 0)
			rc = sd_bus_message_exit_container(m);
		if (rc >= 0)
			rc = cf_op_set_strv(op, key, v, n);
		free(v);
	} else {
		rc = sd_bus_message_skip(m, contents);
	}
	if (rc >= 0)
		rc = sd_bus_message_exit_container(m);
	return rc < 0 ? rc : 1;
}

int ctl_export(sd_bus *bus, struct cf_doc *doc, uint64_t *gen)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	const char *verb, *obj;
	int rc;

	rc = ctl_call(bus, "Export", &reply, NULL);
	if (rc)
		return rc;
	rc = sd_bus_message_read(reply, "t", gen);
	if (rc >= 0)
		rc = sd_bus_message_enter_container(reply, 'a', "(ssa{sv})");
	while (rc >= 0 && (rc = sd_bus_message_enter_container(reply, 'r', "ssa{sv}")) > 0) {
		struct cf_op *op;

		rc = sd_bus_message_read_basic(reply, 's', &verb);
		if (rc >= 0)
			rc = sd_bus_message_read_basic(reply, 's', &obj);
		op = rc >= 0 ? cf_op_new(verb, obj) : NULL;
		if (rc >= 0 && !op)
			rc = -ENOMEM;
		if (rc >= 0)
			rc = ctl_read_dict(reply, read_field, op);
		if (rc >= 0)
			rc = sd_bus_message_exit_container(reply);
		if (op && rc >= 0)
			rc = cf_doc_push(doc, op);
		else
			cf_op_free(op);
	}
	if (rc >= 0)
		rc = sd_bus_message_exit_container(reply);
	if (rc < 0) {
		cf_doc_free(doc);
		return ctl_fail(EXIT_REFUSED, "lnetd's export makes no sense: %s", strerror(-rc));
	}
	return 0;
}
