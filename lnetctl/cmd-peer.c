// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-peer.c - lnetctl peer add|del|show|set, and the NID lists they take.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/peer-attrs.h"
#include "lnetctl.h"
#include "yout.h"

#define EXPAND_MAX 65536 /* NIDs one list may expand to */

/*
 * "[1-4,7,10-20/2]" or "12" into its numbers (in the order written), each
 * at most @max, at most @cap of them.
 */
static int range_values(const char *s, size_t len, unsigned long max, size_t cap, unsigned int *v,
			size_t *n, const char *whole, const char *what)
{
	char buf[128], *tok, *save = NULL;

	*n = 0;
	if (len >= sizeof(buf))
		return ctl_usage("%s: '%s' is too long", what, whole);
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (buf[0] != '[') {
		char *end;
		unsigned long x = strtoul(buf, &end, 10);

		if (!*buf || *end || x > max || *buf == '-')
			return ctl_usage("%s: '%s' in '%s' is not %s", what, buf, whole,
					 max == 255 ? "an address octet" : "a number");
		v[(*n)++] = (unsigned int)x;
		return 0;
	}
	if (buf[len - 1] != ']')
		return ctl_usage("%s: '%s' in '%s' lacks its ']'", what, buf, whole);
	buf[len - 1] = '\0';
	for (tok = strtok_r(buf + 1, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		unsigned long a, b, step = 1;
		char *end;

		a = strtoul(tok, &end, 10);
		b = a;
		if (end == tok)
			goto bad;
		if (*end == '-') {
			char *p = end + 1;

			b = strtoul(p, &end, 10);
			if (end == p)
				goto bad;
		}
		if (*end == '/') {
			char *p = end + 1;

			step = strtoul(p, &end, 10);
			if (end == p || !step)
				goto bad;
		}
		if (*end || a > b || b > max || *tok == '-')
			goto bad;
		for (; a <= b; a += step) {
			if (*n >= cap)
				return ctl_usage("%s: '%s' names more than %zu NIDs", what, whole,
						 cap);
			v[(*n)++] = (unsigned int)a;
		}
		continue;
bad:
		return ctl_usage("%s: '%s' in '%s' is not a range like [1-4], [1,3] or [0-254/2]",
				 what, tok, whole);
	}
	return 0;
}

/* A numeric address with a range, "[6-12/4]@gni", appended to @out. */
static int expand_number(const char *nid, const char *at, const char *what, char ***out, size_t *n)
{
	unsigned int *v = malloc(EXPAND_MAX * sizeof(*v));
	size_t nv = 0, k;
	char buf[128];
	int rc;

	if (!v)
		return ctl_fail(EXIT_REFUSED, "out of memory");
	rc = range_values(nid, (size_t)(at - nid), 0xffffffffUL, EXPAND_MAX - *n, v, &nv, nid,
			  what);
	for (k = 0; !rc && k < nv; k++) {
		char **grown = realloc(*out, (*n + 2) * sizeof(**out));

		snprintf(buf, sizeof(buf), "%u%s", v[k], at);
		if (grown)
			*out = grown;
		if (!grown || !((*out)[*n] = strdup(buf)))
			rc = ctl_fail(EXIT_REFUSED, "out of memory");
		else
			(*out)[++(*n)] = NULL;
	}
	free(v);
	return rc;
}

/* One NID, perhaps with ranges in its IPv4 octets or number, appended to @out. */
static int expand_one(const char *nid, const char *what, char ***out, size_t *n)
{
	const char *at = strrchr(nid, '@'), *p, *dot;
	unsigned int v[4][256];
	size_t nv[4], i[4], k = 0, total;
	char buf[128];
	int rc;

	if (!at || !strchr(nid, '[') || strchr(nid, ':')) {
		/* No range: lnetd checks the NID itself. */
		char **grown = realloc(*out, (*n + 2) * sizeof(**out));

		if (!grown)
			return ctl_fail(EXIT_REFUSED, "out of memory");
		*out = grown;
		/* Counted only once there: a hole would end the list early. */
		(*out)[*n] = strdup(nid);
		if (!(*out)[*n])
			return ctl_fail(EXIT_REFUSED, "out of memory");
		(*out)[++(*n)] = NULL;
		return 0;
	}
	if (at && nid[0] == '[' && !memchr(nid, '.', (size_t)(at - nid)))
		return expand_number(nid, at, what, out, n);
	for (p = nid; k < 4; k++) {
		dot = k < 3 ? p : at;
		if (k < 3) {
			/* The octet ends at the first '.' outside brackets. */
			int depth = 0;

			for (dot = p; dot < at && (depth || *dot != '.'); dot++)
				depth += *dot == '[' ? 1 : *dot == ']' ? -1 : 0;
			if (dot >= at)
				return ctl_usage("%s: '%s' is not an IPv4 NID range", what, nid);
		}
		rc = range_values(p, (size_t)(dot - p), 255, 256, v[k], &nv[k], nid, what);
		if (rc)
			return rc;
		p = dot + 1;
	}
	total = nv[0] * nv[1] * nv[2] * nv[3];
	if (*n + total > EXPAND_MAX)
		return ctl_usage("%s: '%s' names %zu NIDs; at most %d may be given at once", what,
				 nid, total, EXPAND_MAX);
	for (i[0] = 0; i[0] < nv[0]; i[0]++)
		for (i[1] = 0; i[1] < nv[1]; i[1]++)
			for (i[2] = 0; i[2] < nv[2]; i[2]++)
				for (i[3] = 0; i[3] < nv[3]; i[3]++) {
					snprintf(buf, sizeof(buf), "%u.%u.%u.%u%s", v[0][i[0]],
						 v[1][i[1]], v[2][i[2]], v[3][i[3]], at);
					rc = expand_one(buf, what, out, n);
					if (rc)
						return rc;
				}
	return 0;
}

int ctl_nids_expand(const char *list, const char *what, char ***out, size_t *n)
{
	const char *p = list, *start = list;
	int depth = 0, rc = 0;

	*out = calloc(1, sizeof(**out));
	*n = 0;
	if (!*out)
		return ctl_fail(EXIT_REFUSED, "out of memory");
	for (;; p++) {
		if (*p == '[')
			depth++;
		else if (*p == ']')
			depth--;
		if ((*p == ',' && !depth) || !*p) {
			char one[256];

			if (p > start) {
				if ((size_t)(p - start) >= sizeof(one))
					rc = ctl_usage("%s: a NID in '%s' is too long", what, list);
				if (!rc) {
					memcpy(one, start, (size_t)(p - start));
					one[p - start] = '\0';
					rc = expand_one(one, what, out, n);
				}
			}
			start = p + 1;
			if (!*p || rc)
				break;
		}
	}
	if (!rc && depth)
		rc = ctl_usage("%s: unbalanced brackets in '%s'", what, list);
	if (rc) {
		ctl_strv_free(*out);
		*out = NULL;
	}
	return rc;
}

/*
 * peer add|del as one operation of an ApplyWith: one change, the NIDs of a
 * range lnetd takes at most PEER_NIDS_MAX at a time (ctl_apply splits
 * them), and the flags AddPeer and DeletePeer have no room for
 * (lock_prim, force).
 */
static int peer_apply(const char *verb, const char *primary, char **nids, size_t n,
		      struct ctl_opt *opt)
{
	struct cf_doc doc = {0};
	struct cf_op *op = cf_op_new(verb, "peer");
	char **changes = NULL;
	sd_bus *bus = NULL;
	uint64_t gen;
	bool add = !strcmp(verb, "add");
	int k, rc = !op || cf_op_set_str(op, "primary", primary) ||
		    (n && cf_op_set_strv(op, "nids", (const char *const *)nids, n));

	/* each setting: a negative option (--non_mr) always says it, others when given */
	for (k = 0; !rc && add && k < LNE_PEER_A__COUNT; k++) {
		const struct lne_peer_desc *a = &lne_peer_desc[k];
		bool given = ctl_opt(opt, a->option)->given;

		if (a->neg || given)
			rc = cf_op_set_bool(op, a->name, a->neg ? !given : true);
	}
	if (!rc && !add && ctl_opt(opt, "force")->given)
		rc = cf_op_set_bool(op, "force", true);
	if (rc || cf_doc_push(&doc, op)) {
		if (rc)
			cf_op_free(op);
		cf_doc_free(&doc);
		return ctl_fail(EXIT_REFUSED, "out of memory");
	}
	rc = ctl_bus(&bus);
	if (!rc)
		rc = ctl_apply(bus, &doc, false, true, &gen, &changes, NULL);
	ctl_strv_free(changes);
	cf_doc_free(&doc);
	sd_bus_flush_close_unref(bus);
	return rc;
}

static int peer_add(struct ctl_opt *opt, int argc, char **argv)
{
	struct ctl_opt *prim = ctl_opt(opt, "prim-nid"), *nid = ctl_opt(opt, "nid");
	char **nids = NULL;
	size_t n = 0;
	int rc = 0;

	if (!prim->given && !nid->given)
		return ctl_usage("--prim_nid is required (or --nid, whose first NID is primary)");
	if (nid->given)
		rc = ctl_nids_expand(nid->val, "--nid", &nids, &n);
	if (rc)
		return rc;
	if (nid->given && !n) {
		ctl_strv_free(nids);
		return ctl_usage("--nid: no NID in '%s'", nid->val);
	}
	rc = peer_apply("add", prim->given ? prim->val : nids[0], nids, n, opt);
	ctl_strv_free(nids);
	return rc;
}

static int peer_del(struct ctl_opt *opt, int argc, char **argv)
{
	struct ctl_opt *prim = ctl_opt(opt, "prim-nid"), *nid = ctl_opt(opt, "nid");
	char **nids = NULL;
	size_t n = 0;
	int rc = 0;

	/* Without --prim_nid the NIDs name their peer themselves (the design's peer del). */
	if (!prim->given && !nid->given)
		return ctl_usage("--prim_nid or --nid is required");
	if (nid->given)
		rc = ctl_nids_expand(nid->val, "--nid", &nids, &n);
	if (!rc && nid->given && !n)
		rc = ctl_usage("--nid: no NID in '%s'", nid->val);
	if (!rc)
		rc = peer_apply("del", prim->given ? prim->val : nids[0], nids, n, opt);
	ctl_strv_free(nids);
	return rc;
}

/* One peer of ListPeers (a(sa{sv})): strings point into the reply. */
struct peer_row {
	const char *prim;
	int mr, implicit, discovered, locked;
	size_t n, cap;
	struct peer_nid {
		const char *nid;
		uint32_t health;
		const char *state; /* in states: "up", "down" or "NA" */
	} * nids;		   /* grown as needed; kept from row to row */
	struct peer_nid *states;   /* the same, with each NID's state */
	size_t nst, stcap;
	char **found_nids; /* the NIDs discovery found (a copy) */
};

/* Room for one more in @v (@n of @cap); 0 or -ENOMEM. */
static int nid_room(struct peer_nid **v, size_t n, size_t *cap)
{
	struct peer_nid *grown;
	size_t c;

	if (n < *cap)
		return 0;
	c = *cap ? 2 * *cap : 16;
	grown = realloc(*v, c * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	*v = grown;
	*cap = c;
	return 0;
}

/* The state lnetd gave @nid ("NA" if none: an older lnetd). */
static const char *nid_state(const struct peer_row *row, const char *nid)
{
	size_t i;

	for (i = 0; i < row->nst; i++)
		if (!strcmp(row->states[i].nid, nid))
			return row->states[i].state;
	return "NA";
}

/* One (s@t) of an array: the string, then one basic value of type @t. */
static int read_pair(sd_bus_message *r, const char *sig, const char **s, void *v)
{
	int rc = sd_bus_message_enter_container(r, 'r', sig);

	if (rc <= 0)
		return rc;
	rc = sd_bus_message_read_basic(r, 's', s);
	if (rc >= 0)
		rc = sd_bus_message_read_basic(r, sig[1], v);
	if (rc >= 0)
		rc = sd_bus_message_exit_container(r);
	return rc < 0 ? rc : 1;
}

static int read_found_nids(sd_bus_message *r, void *rec)
{
	struct peer_row *row = rec;
	int rc = sd_bus_message_enter_container(r, 'v', "as");

	if (rc >= 0)
		rc = sd_bus_message_read_strv(r, &row->found_nids);
	if (rc >= 0)
		rc = sd_bus_message_exit_container(r);
	return rc < 0 ? rc : 1;
}

/* "nids" a(su) (@states false) or "nid_states" a(ss) into the row's lists. */
static int read_nid_list(sd_bus_message *r, struct peer_row *row, bool states)
{
	const char *nid, *state;
	uint32_t health;
	int rc = sd_bus_message_enter_container(r, 'v', states ? "a(ss)" : "a(su)");

	if (rc >= 0)
		rc = sd_bus_message_enter_container(r, 'a', states ? "(ss)" : "(su)");
	while (rc >= 0 && states && (rc = read_pair(r, "ss", &nid, &state)) > 0) {
		if (nid_room(&row->states, row->nst, &row->stcap))
			return -ENOMEM;
		row->states[row->nst++] = (struct peer_nid){nid, 0, state};
	}
	while (rc >= 0 && !states && (rc = read_pair(r, "su", &nid, &health)) > 0) {
		if (nid_room(&row->nids, row->n, &row->cap))
			return -ENOMEM;
		row->nids[row->n++] = (struct peer_nid){nid, health, NULL};
	}
	if (rc >= 0)
		rc = sd_bus_message_exit_container(r);
	if (rc >= 0)
		rc = sd_bus_message_exit_container(r);
	return rc < 0 ? rc : 1;
}

static int read_nids(sd_bus_message *r, void *rec)
{
	return read_nid_list(r, rec, false);
}

static int read_nid_states(sd_bus_message *r, void *rec)
{
	return read_nid_list(r, rec, true);
}

/* ListPeers' keys (lnetd(8)), each once. */
static const struct ctl_key peer_keys[] = {
	CTL_KEY("multi_rail", 'b', struct peer_row, mr),
	CTL_KEY("implicit", 'b', struct peer_row, implicit),
	CTL_KEY("discovered", 'b', struct peer_row, discovered),
	CTL_KEY("locked", 'b', struct peer_row, locked),
	CTL_KEY_FN("discovered_nids", read_found_nids),
	CTL_KEY_FN("nid_states", read_nid_states),
	CTL_KEY_FN("nids", read_nids),
	{NULL},
};

static int peer_entry(sd_bus_message *r, const char *key, void *arg)
{
	return ctl_key_entry(r, key, peer_keys, arg);
}

/* The next ListPeers record into @row, what the last one left cleared first. */
static int peer_row_read(sd_bus_message *r, struct peer_row *row)
{
	int rc;

	row->prim = NULL;
	row->mr = 1;
	row->implicit = 0;
	row->discovered = 0;
	row->locked = 0;
	ctl_strv_free(row->found_nids);
	row->found_nids = NULL;
	row->n = 0;
	row->nst = 0;
	rc = sd_bus_message_read_basic(r, 's', &row->prim);
	if (rc >= 0)
		rc = ctl_read_dict(r, peer_entry, row);
	if (rc >= 0)
		rc = sd_bus_message_exit_container(r);
	return rc;
}

static void peer_row_free(struct peer_row *row)
{
	free(row->nids);
	free(row->states);
	ctl_strv_free(row->found_nids);
}

/*
 * Lustre's peer state bits: Multi-Rail (0), configured (3), discovered (4),
 * and the primary NID locked (20: peer add --lock_prim).
 */
static uint32_t peer_state(const struct peer_row *row)
{
	bool configured = !row->implicit && !row->discovered;
	bool found = row->discovered || (row->found_nids && *row->found_nids);

	return (row->mr ? 1u : 0) | (configured ? 1u << 3 : 0) | (found ? 1u << 4 : 0) |
	       (configured && row->locked ? 1u << 20 : 0);
}

static void peer_yaml(struct yout *y, sd_bus *bus, struct ctl_ahead *ahead,
		      const struct peer_row *row, bool verbose, const struct ctl_counters *counters)
{
	size_t i;

	yout_map_begin(y);
	yout_key(y, "primary nid");
	yout_str(y, row->prim);
	yout_key(y, "Multi-Rail");
	yout_bool(y, row->mr);
	if (verbose) {
		yout_key(y, "peer state");
		yout_u32(y, peer_state(row));
	}
	/* lnetd's mark: made or found by discovery (runtime); configured ones have none */
	if (row->discovered) {
		yout_key(y, "discovered");
		yout_bool(y, true);
	}
	yout_key(y, "peer ni");
	yout_seq_begin(y);
	for (i = 0; i < row->n; i++) {
		char **f;

		yout_map_begin(y);
		yout_key(y, "nid");
		yout_str(y, row->nids[i].nid);
		yout_key(y, "state");
		yout_str(y, nid_state(row, row->nids[i].nid));
		for (f = row->found_nids; f && *f; f++)
			if (!strcmp(*f, row->nids[i].nid)) {
				yout_key(y, "discovered");
				yout_bool(y, true);
			}
		if (verbose) {
			ctl_rtr_credits(ahead, bus, y, row->nids[i].nid);
			ctl_counters_totals(y, counters, row->nids[i].nid, false);
			ctl_counters_by_type(y, counters, row->nids[i].nid, false);
			yout_key(y, "health stats");
			yout_map_begin(y);
			yout_key(y, "health value");
			yout_u32(y, row->nids[i].health);
			ctl_health_stats(ahead, bus, y, row->nids[i].nid);
			yout_map_end(y);
			ctl_udsp_info(ahead, bus, y, row->nids[i].nid);
		}
		yout_map_end(y);
	}
	yout_seq_end(y);
	yout_map_end(y);
}

/* Whether --nid @want picks @row: the peer that has this NID, primary or not (all without it). */
static bool peer_picked(const struct peer_row *row, const struct ctl_opt *want)
{
	size_t i;

	for (i = 0; want->given && i < row->n; i++)
		if (!strcmp(row->nids[i].nid, want->val))
			return true;
	return !want->given;
}

/*
 * For `peer show -v`: every call peer_yaml makes per peer NI of ListPeers'
 * reply @r (the peers --nid @want picks), queued in the order it makes
 * them, and @r rewound.  NULL (each call then made as it comes) if
 * anything fails.
 */
static struct ctl_ahead *queue_ahead(sd_bus *bus, sd_bus_message *r, struct ctl_opt *want)
{
	static const char *const per_nid[] = {"RouterCredits", "HealthStats", "UdspInfo"};
	struct ctl_ahead *a = ctl_ahead_new(bus);
	struct peer_row row = {.nids = NULL};
	size_t i, k;
	int rc = a ? sd_bus_message_enter_container(r, 'a', "(sa{sv})") : -ENOMEM;

	while (rc >= 0 && (rc = sd_bus_message_enter_container(r, 'r', "sa{sv}")) > 0) {
		rc = peer_row_read(r, &row);
		for (i = 0; rc >= 0 && peer_picked(&row, want) && i < row.n; i++)
			for (k = 0; rc >= 0 && k < sizeof(per_nid) / sizeof(per_nid[0]); k++)
				rc = ctl_ahead_push(a, per_nid[k], row.nids[i].nid);
	}
	peer_row_free(&row);
	if (sd_bus_message_rewind(r, true) < 0 || rc < 0) {
		ctl_ahead_free(a);
		return NULL;
	}
	return a;
}

/* peer list: only each peer's primary NID, as Lustre's "peer list:". */
static bool list_only;

static int peer_show(struct ctl_opt *opt, int argc, char **argv)
{
	struct ctl_opt *want = ctl_opt(opt, "nid");
	bool verbose = ctl_opt(opt, "verbose")->given;
	struct peer_row row = {.nids = NULL};
	struct ctl_counters *counters = NULL;
	struct ctl_ahead *ahead = NULL;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *r = NULL;
	struct yout *y = NULL;
	sd_bus *bus = NULL;
	int rc, yrc, shown = 0;
	char *text = NULL;
	size_t len = 0;
	FILE *out;

	rc = ctl_canon(want, true);
	if (rc)
		return rc;
	rc = ctl_bus(&bus);
	if (!rc)
		rc = ctl_call(bus, "ListPeers", &r, NULL);
	if (rc) {
		sd_bus_flush_close_unref(bus);
		return rc;
	}
	if (verbose && !list_only) {
		counters = ctl_counters_read(bus);
		ahead = queue_ahead(bus, r, want);
	}
	/* Printed only when complete: a missing peer is an error, not an empty list. */
	out = open_memstream(&text, &len);
	y = yout_begin(out);
	yout_map_begin(y);
	yout_key(y, list_only ? "peer list" : "peer");
	yout_seq_begin(y);
	rc = sd_bus_message_enter_container(r, 'a', "(sa{sv})");
	while (rc >= 0 && (rc = sd_bus_message_enter_container(r, 'r', "sa{sv}")) > 0) {
		bool match;

		rc = peer_row_read(r, &row);
		match = peer_picked(&row, want);
		/* Implicit peers (gateways no one configured) too, as Lustre's. */
		if (rc >= 0 && match && list_only) {
			shown++;
			yout_map_begin(y);
			yout_key(y, "nid");
			yout_str(y, row.prim);
			yout_map_end(y);
		} else if (rc >= 0 && match) {
			shown++;
			peer_yaml(y, bus, ahead, &row, verbose, counters);
		}
	}
	yout_seq_end(y);
	yout_map_end(y);
	yrc = yout_end(y);
	if (out)
		fclose(out);
	if (!shown && want->given && rc >= 0) {
		rc = ctl_fail_errno(EXIT_REFUSED, -ENOENT, "no peer has the NID %s", want->val);
	} else if (rc < 0 || yrc < 0) {
		rc = ctl_fail(EXIT_REFUSED, "cannot show the peers: %s",
			      strerror(-(rc < 0 ? rc : yrc)));
	} else {
		fwrite(text, 1, len, stdout);
		rc = 0;
	}
	peer_row_free(&row);
	free(text);
	ctl_counters_free(counters);
	ctl_ahead_free(ahead);
	sd_bus_flush_close_unref(bus);
	return rc;
}

static int cmp_primary(const void *a, const void *b)
{
	return strcmp(cf_op_get_str(a, "primary"), cf_op_get_str(b, "primary"));
}

static bool peer_op(const struct cf_op *op)
{
	return !strcmp(op->obj, "peer") && !strcmp(op->verb, "add") && cf_op_get_str(op, "primary");
}

/* @doc's peers by primary NID text, as lnetd lists its stored ones. */
static int sort_peers(struct cf_doc *doc)
{
	struct cf_op *v = malloc((doc->nop ? doc->nop : 1) * sizeof(*v));
	size_t i, n = 0;

	if (!v)
		return -ENOMEM;
	for (i = 0; i < doc->nop; i++)
		if (peer_op(&doc->op[i]))
			v[n++] = doc->op[i];
	qsort(v, n, sizeof(*v), cmp_primary);
	for (i = 0, n = 0; i < doc->nop; i++)
		if (peer_op(&doc->op[i]))
			doc->op[i] = v[n++];
	free(v);
	return 0;
}

/*
 * The peers lnetd made for route gateways, into @doc as export writes them
 * (Lustre's export lists every peer): non-Multi-Rail, the one NID.
 */
int ctl_gateway_peers(sd_bus *bus, struct cf_doc *doc)
{
	struct peer_row row = {.nids = NULL};
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *r = NULL;
	int rc = ctl_call(bus, "ListPeers", &r, NULL);

	if (rc)
		return rc;
	rc = sd_bus_message_enter_container(r, 'a', "(sa{sv})");
	while (rc >= 0 && (rc = sd_bus_message_enter_container(r, 'r', "sa{sv}")) > 0) {
		struct cf_op *op = NULL;

		rc = peer_row_read(r, &row);
		if (rc < 0 || !row.implicit)
			continue;
		op = cf_op_new("add", "peer");
		if (!op || cf_op_set_str(op, "primary", row.prim) ||
		    cf_op_set_bool(op, "multi_rail", false)) {
			cf_op_free(op);
			rc = -ENOMEM;
		} else if (cf_doc_push(doc, op)) { /* it frees @op either way */
			rc = -ENOMEM;
		}
	}
	peer_row_free(&row);
	if (rc >= 0)
		rc = sort_peers(doc);
	return rc < 0 ? ctl_fail(EXIT_REFUSED, "cannot read the peers: %s", strerror(-rc)) : 0;
}

static int peer_list(struct ctl_opt *opt, int argc, char **argv)
{
	int rc;

	list_only = true;
	rc = peer_show(opt, argc, argv);
	list_only = false; /* a peer show may follow, read from the input */
	return rc;
}

static int peer_set(struct ctl_opt *opt, int argc, char **argv)
{
	struct ctl_opt *nid = ctl_opt(opt, "nid"), *all = ctl_opt(opt, "all"),
		       *health = ctl_opt(opt, "health");
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	sd_bus *bus = NULL;
	uint32_t v;
	int rc;

	if (!health->given)
		return ctl_usage("--health is required (the only value peer set changes)");
	if (nid->given == all->given)
		return ctl_usage("say which peer NIs: --nid NID or --all");
	rc = ctl_u32(health, 1000, &v);
	if (!rc)
		rc = ctl_bus(&bus);
	if (!rc)
		rc = ctl_call(bus, "SetHealth", &reply, "ssu", "peer_ni",
			      nid->given ? nid->val : "", v);
	return ctl_finish(rc, bus, NULL);
}

/* peer add's options for the settings of engine/peer-attrs.h: flags, each */
#define PEER_OPT(id, name, yaml, option, neg, def, engine, col, hist, help) {option, 0, NULL, help},

const struct ctl_cmd ctl_peer_cmds[] = {
	{"peer add",
	 "--prim_nid NID [--nid NID[,NID...]] [--non_mr] [--lock_prim]",
	 "Configure a peer: its primary NID and its other NIDs (ranges expand).",
	 peer_add,
	 {{"prim-nid", 0, "NID", "the peer's primary NID"},
	  {"nid", 0, "NIDS", "its other NIDs, e.g. 10.0.0.[2-4]@tcp,10.1.0.2@o2ib"},
	  LNE_PEER_ATTRS(PEER_OPT)},
	 0,
	 0},
	{"peer del",
	 "--prim_nid NID [--nid NID[,NID...]] [--force] | --nid NID[,NID...]",
	 "Remove a peer, or only the NIDs given (which name their peer).",
	 peer_del,
	 {{"prim-nid", 0, "NID", "the peer's primary NID"},
	  {"nid", 0, "NIDS", "only these NIDs"},
	  {"force", 0, NULL, "a peer added with --lock_prim too (else only its other NIDs go)"}},
	 0,
	 0},
	{"peer show",
	 "[--nid NID] [-v]",
	 "Show the peers (configured, discovered, route gateways) as YAML.",
	 peer_show,
	 {{"nid", 0, "NID", "only the peer that has this NID"},
	  {"verbose", 'v', NULL,
	   "also each NID's statistics and health (-v LEVEL: all levels alike)"}},
	 0,
	 0},
	{"peer list",
	 "",
	 "List the peers by primary NID.",
	 peer_list,
	 {{"nid", 0, "NID", "only the peer that has this NID"}, {"verbose", 'v', NULL, "ignored"}},
	 0,
	 0},
	{"peer set",
	 "--health VALUE --nid NID | --all",
	 "Set the health value (0 to 1000) of peer NIs.",
	 peer_set,
	 {{"health", 0, "VALUE", "the health value, 0 to 1000"},
	  {"nid", 0, "NID", "the peer NI with this NID"},
	  {"all", 0, NULL, "every peer NI"}},
	 0,
	 0},
	{0},
};
