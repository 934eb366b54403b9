// SPDX-License-Identifier: GPL-2.0
/*
 * bus-auth.c - who may call lnetd, and how much one call may carry.
 *
 * Authorisation: root, or polkit's org.lnetd1.manage, asked asynchronously
 * (bus-int.h, bus_authorise).  Bounds: every method call measured before
 * it is dispatched (bus_bounds_filter).  The methods are in bus-*.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

#include "bus-errors.h"
#include "bus-int.h"
#include "lnetd/lnetd.h"
#include "lnetd/log.h"

#define POLKIT_ACTION LNETD_BUS_NAME ".manage"

/*
 * Asking polkit.  The question goes out asynchronously, so one caller
 * waiting for an answer (an admin typing a password, a slow rule) holds up
 * nobody else: the method handler returns at once, keeping the request, and
 * when polkit answers the request is put back in the bus's queue and
 * dispatched again from the start, finding the answer waiting for it.  A
 * caller that set ALLOW_INTERACTIVE_AUTHORIZATION on its call (lnetctl does
 * on a terminal) lets polkit ask for a password through the caller's agent.
 */
enum pk_verdict {
	PK_WAITING,
	PK_YES,
	PK_NO,
	PK_CHALLENGE,
	PK_ABSENT,
	PK_ERROR
};

struct pk_query {
	struct pk_query *next;
	sd_bus_message *request; /* the method call, dispatched again on the answer */
	sd_bus_slot *slot;	 /* the CheckAuthorization call in flight */
	enum pk_verdict verdict;
};

static struct pk_query *pk_queries;

static void pk_free(struct pk_query *q)
{
	struct pk_query **p;

	for (p = &pk_queries; *p; p = &(*p)->next)
		if (*p == q) {
			*p = q->next;
			break;
		}
	sd_bus_slot_unref(q->slot);
	sd_bus_message_unref(q->request);
	free(q);
}

/* The slot goes with the bus (at exit) or after the answer: the query goes with it. */
static void pk_slot_gone(void *userdata)
{
	struct pk_query *q = userdata;

	q->slot = NULL;
	if (q->verdict == PK_WAITING)
		pk_free(q);
}

static int pk_answer(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error)
{
	struct pk_query *q = userdata;
	const sd_bus_error *e = sd_bus_message_get_error(reply);
	int yes = 0, challenge = 0, rc;

	if (e) {
		q->verdict = sd_bus_error_has_names(e, SD_BUS_ERROR_SERVICE_UNKNOWN,
						    SD_BUS_ERROR_NAME_HAS_NO_OWNER)
				     ? PK_ABSENT
				     : PK_ERROR;
	} else {
		rc = sd_bus_message_enter_container(reply, 'r', "bba{ss}");
		if (rc >= 0)
			rc = sd_bus_message_read(reply, "bb", &yes, &challenge);
		q->verdict = rc < 0 ? PK_ERROR : yes ? PK_YES : challenge ? PK_CHALLENGE : PK_NO;
	}
	/* The slot is done; q lives until the request comes back for its verdict. */
	sd_bus_slot_set_destroy_callback(q->slot, NULL);
	q->slot = sd_bus_slot_unref(q->slot);
	rc = sd_bus_message_rewind(q->request, true);
	if (rc >= 0)
		rc = sd_bus_enqueue_for_read(sd_bus_message_get_bus(q->request), q->request);
	if (rc < 0) {
		log_error("cannot dispatch a call again after polkit answered: %s, dropping it",
			  strerror(-rc));
		pk_free(q);
	}
	return 1;
}

static struct pk_query *pk_find(sd_bus_message *m)
{
	struct pk_query *q;

	for (q = pk_queries; q; q = q->next)
		if (q->request == m)
			return q;
	return NULL;
}

/* Send polkit the question for @m.  0: asked, negative: could not ask. */
static int pk_ask(sd_bus_message *m, sd_bus_error *e)
{
	sd_bus *bus = sd_bus_message_get_bus(m);
	const char *sender = sd_bus_message_get_sender(m);
	bool interactive = sd_bus_message_get_allow_interactive_authorization(m) > 0;
	sd_bus_message *q = NULL;
	struct pk_query *pq, *x;
	size_t all = 0, mine = 0;
	int rc;

	if (!sender) /* a direct connection: no bus name for polkit to judge */
		return bus_fail(e, -EPERM, "changing LNet's configuration needs root");
	for (x = pk_queries; x; x = x->next) {
		const char *s = sd_bus_message_get_sender(x->request);

		all++;
		mine += s && !strcmp(s, sender);
	}
	if (all >= LNETD_POLKIT_PENDING_MAX || mine >= LNETD_POLKIT_PENDING_PER_CALLER)
		return bus_fail(
			e, -EBUSY,
			mine >= LNETD_POLKIT_PENDING_PER_CALLER
				? "too many of your calls are waiting for polkit; try again when "
				  "they are answered"
				: "too many calls are waiting for polkit; try again shortly");
	pq = calloc(1, sizeof(*pq));
	if (!pq)
		return bus_fail(e, -ENOMEM, "out of memory");
	rc = sd_bus_message_new_method_call(bus, &q, "org.freedesktop.PolicyKit1",
					    "/org/freedesktop/PolicyKit1/Authority",
					    "org.freedesktop.PolicyKit1.Authority",
					    "CheckAuthorization");
	/* Flag 1: AllowUserInteraction, only when the caller said it may be asked. */
	if (rc >= 0)
		rc = sd_bus_message_append(q, "(sa{sv})sa{ss}us", "system-bus-name", 1, "name", "s",
					   sender, POLKIT_ACTION, 0, (uint32_t)interactive, "");
	/* Someone typing a password gets minutes; a rule's answer, the usual 25 s. */
	if (rc >= 0)
		rc = sd_bus_call_async(bus, &pq->slot, q, pk_answer, pq,
				       interactive ? 300 * 1000000ULL : 25 * 1000000ULL);
	sd_bus_message_unref(q);
	if (rc < 0) {
		free(pq);
		return bus_fail(
			e, -EPERM,
			"changing LNet's configuration needs root (polkit cannot be asked)");
	}
	sd_bus_slot_set_destroy_callback(pq->slot, pk_slot_gone);
	pq->request = sd_bus_message_ref(m);
	pq->next = pk_queries;
	pk_queries = pq;
	return 0;
}

/* The verdict polkit gave @m's earlier dispatch, taken (0: allowed), or 1 if none yet. */
static int pk_verdict(sd_bus_message *m, sd_bus_error *e)
{
	struct pk_query *q = pk_find(m);
	bool interactive = sd_bus_message_get_allow_interactive_authorization(m) > 0;
	enum pk_verdict v;

	if (!q)
		return 1;
	v = q->verdict;
	if (v == PK_WAITING) /* dispatched again before the answer: cannot happen */
		return bus_fail(e, -EBUSY, "this call is already waiting for polkit");
	pk_free(q);
	switch (v) {
	case PK_YES:
		return 0;
	case PK_ABSENT:
		return bus_fail(e, -EPERM,
				"changing LNet's configuration needs root (polkit, which could "
				"allow " POLKIT_ACTION ", is not running)");
	case PK_CHALLENGE:
		/* Asked to ask, polkit still wants a password: no agent of the caller's. */
		if (interactive)
			return sd_bus_error_set(
				e, SD_BUS_ERROR_INTERACTIVE_AUTHORIZATION_REQUIRED,
				"changing LNet's configuration needs authentication "
				"(polkit: " POLKIT_ACTION
				"), and no polkit authentication agent answered for "
				"you; run one (pkttyagent), or ask as root");
		return sd_bus_error_set(e, SD_BUS_ERROR_INTERACTIVE_AUTHORIZATION_REQUIRED,
					"changing LNet's configuration needs authentication "
					"(polkit: " POLKIT_ACTION
					"); ask from a terminal (lnetctl asks there unless given "
					"--no-ask-password), or as root");
	case PK_ERROR:
		return bus_fail(e, -EPERM,
				"changing LNet's configuration needs root (polkit could not answer "
				"for " POLKIT_ACTION ")");
	default:
		return bus_fail(e, -EPERM,
				"changing LNet's configuration needs root or the polkit "
				"authorisation " POLKIT_ACTION);
	}
}

/*
 * Changes need root or polkit's org.lnetd1.manage; reads do not.
 * 0: go on; 1: polkit was asked, return 1 now (the call comes back with the
 * answer); negative: refused, @e says why.
 */
int bus_authorise(sd_bus_message *m, struct caller *c, sd_bus_error *e)
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
		return bus_fail(e, -EPERM, "cannot tell who is asking; refusing the change");
	sd_bus_creds_get_euid(creds, &uid);
	sd_bus_creds_get_pid(creds, &pid);
	c->cmd[0] = '\0';
	/* A direct connection's (bus-direct.c) come from SO_PEERCRED, without the command line. */
	if (sd_bus_creds_get_cmdline(creds, &argv) < 0 && pid > 0) {
		sd_bus_creds_unref(creds);
		creds = NULL;
		if (sd_bus_creds_new_from_pid(&creds, pid, SD_BUS_CREDS_CMDLINE) < 0 ||
		    sd_bus_creds_get_cmdline(creds, &argv) < 0)
			argv = NULL;
	}
	for (; argv && *argv && used + 1 < sizeof(c->cmd); argv++)
		used += (size_t)snprintf(c->cmd + used, sizeof(c->cmd) - used, "%s%s",
					 used ? " " : "", *argv);
	sd_bus_creds_unref(creds);
	c->who = (struct st_who){.uid = uid, .pid = pid, .command = c->cmd};
	if (uid == 0)
		return 0;
	rc = pk_verdict(m, e);
	if (rc <= 0)
		return rc;
	rc = pk_ask(m, e);
	return rc < 0 ? rc : 1;
}

/* --- Bounds: every call's size, checked before any method sees it ------------------ */

struct scan {
	size_t items;	  /* values seen, at every level */
	unsigned int arg; /* the top-level argument being read, from 1 */
	bool too_long;	  /* a string was over its bound (else the count was) */
	size_t len;
};

/* Walk one container's values (or the whole body): strings' lengths and the count. */
static int scan_values(sd_bus_message *m, struct scan *s, unsigned int depth)
{
	const char *contents, *str;
	char type;
	int rc;

	for (;;) {
		rc = sd_bus_message_peek_type(m, &type, &contents);
		if (rc <= 0)
			return rc;
		if (!depth)
			s->arg++;
		if (++s->items > LNETD_ITEMS_MAX)
			return -E2BIG;
		switch (type) {
		case 'a':
		case 'v':
		case 'r':
		case 'e':
			rc = sd_bus_message_enter_container(m, type, contents);
			if (rc >= 0)
				rc = scan_values(m, s, depth + 1);
			if (rc >= 0)
				rc = sd_bus_message_exit_container(m);
			break;
		case 's':
		case 'o':
		case 'g':
			rc = sd_bus_message_read_basic(m, type, &str);
			if (rc >= 0 && (s->len = strlen(str)) > LNETD_STR_MAX) {
				s->too_long = true;
				rc = -E2BIG;
			}
			break;
		default:
			rc = sd_bus_message_skip(m, (char[]){type, '\0'});
			break;
		}
		if (rc < 0)
			return rc;
	}
}

/*
 * Every method call to lnetd is measured before it is dispatched: no
 * string longer than LNETD_STR_MAX, no more than LNETD_ITEMS_MAX values.
 * The walk costs one pass over what the caller sent, and stops at the
 * first value over a bound; what passes is rewound for its method.
 */
int bus_bounds_filter(sd_bus_message *m, void *userdata, sd_bus_error *ret_error)
{
	struct scan s = {0};
	int rc;

	if (!sd_bus_message_is_method_call(m, LNETD_BUS_MANAGER, NULL))
		return 0;
	/*
	 * Apply and ApplyWith measure as they read (bus-apply.c): each value
	 * read once, of the type its field names, strings and the count
	 * bounded as here.  A walk before them was a third of a large import.
	 */
	if (sd_bus_message_is_method_call(m, NULL, "Apply") ||
	    sd_bus_message_is_method_call(m, NULL, "ApplyWith"))
		return 0;
	rc = scan_values(m, &s, 0);
	if (rc == -E2BIG) {
		if (s.too_long)
			rc = sd_bus_reply_method_errorf(
				m, LNETD_ERR_LIMIT,
				"argument %u holds a string of %zu bytes; lnetd takes at most %u",
				s.arg, s.len, LNETD_STR_MAX);
		else
			rc = sd_bus_reply_method_errorf(
				m, LNETD_ERR_LIMIT, "the call holds more than %u values; split it",
				LNETD_ITEMS_MAX);
		return rc < 0 ? rc : 1;
	}
	/* Anything else odd about the message is the method's to refuse, as before. */
	rc = sd_bus_message_rewind(m, true);
	return rc < 0 ? rc : 0;
}

bool bus_polkit_asked(sd_bus_message *m)
{
	return pk_find(m);
}
