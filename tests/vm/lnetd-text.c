// SPDX-License-Identifier: GPL-2.0
/*
 * lnetd-text.c - the module and lnetd as the same sorted text: the
 * module's dumps through lnetk-client, lnetd's List* calls over D-Bus,
 * and whether (or when) they agree.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <systemd/sd-bus.h>

#include "lnetd-test.h"

/* --- the same state as text, from both sides ------------------------------------------ */

/* Lines, sorted before they are joined: both sides list objects in their own order. */
struct lines {
	char **v;
	size_t n, cap;
};

static void line_add(struct lines *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void line_add(struct lines *l, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		abort();
	va_end(ap);
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 1024;
		l->v = realloc(l->v, l->cap * sizeof(*l->v));
		if (!l->v)
			abort();
	}
	l->v[l->n++] = s;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void lines_join(struct lines *l, struct strbuf *sb)
{
	size_t i;

	qsort(l->v, l->n, sizeof(*l->v), cmp_str);
	sb->len = 0;
	sb_printf(sb, "%s", "");
	for (i = 0; i < l->n; i++) {
		sb_printf(sb, "%s\n", l->v[i]);
		free(l->v[i]);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static char *nids_sorted(char **nids, size_t n)
{
	struct strbuf sb = {0};
	size_t i;

	qsort(nids, n, sizeof(*nids), cmp_str);
	sb_printf(&sb, "%s", "");
	for (i = 0; i < n; i++)
		sb_printf(&sb, "%s%s", i ? "," : "", nids[i]);
	return sb.s;
}

/* An NI's tunables as "a/b/c/...", in the table's order (engine/tunables.h). */
static void tun_text(char *buf, size_t len, const uint32_t v[LNE_TUN__COUNT])
{
	size_t at = 0;
	int k;

	buf[0] = '\0';
	for (k = 0; k < LNE_TUN__COUNT && at < len; k++)
		at += (size_t)snprintf(buf + at, len - at, "%s%u", k ? "/" : "", v[k]);
}

/*
 * The a{sv} at @m's position: @entry gets each key with @m at its variant,
 * and reads it (> 0), leaves it to be skipped (0) or fails (< 0).
 */
static int read_dict(sd_bus_message *m, int (*entry)(sd_bus_message *m, const char *key, void *arg),
		     void *arg)
{
	const char *key;
	int rc = sd_bus_message_enter_container(m, 'a', "{sv}");

	while (rc >= 0 && (rc = sd_bus_message_enter_container(m, 'e', "sv")) > 0) {
		rc = sd_bus_message_read(m, "s", &key);
		if (rc >= 0)
			rc = entry(m, key, arg);
		if (rc == 0)
			rc = sd_bus_message_skip(m, "v");
		if (rc >= 0)
			rc = sd_bus_message_exit_container(m);
	}
	return rc < 0 ? rc : sd_bus_message_exit_container(m);
}

static int m_ni(const struct lnetk_ni *ni, void *arg)
{
	char tun[LNE_TUN__COUNT * 11];

	tun_text(tun, sizeof(tun), ni->tun.v);
	line_add(arg, "ni %s if=%s up=%d tun=%s", ni->nid, ni->ifname, ni->up && !ni->set_down,
		 tun);
	return 0;
}

static int m_peer(const struct lnetk_peer *p, void *arg)
{
	char **nids = calloc(p->nnis + 1, sizeof(*nids)), *all;
	size_t i;

	for (i = 0; i < p->nnis; i++)
		nids[i] = (char *)p->nis[i].nid;
	all = nids_sorted(nids, p->nnis);
	line_add(arg, "peer %s mr=%d implicit=%d nids=%s", p->primary, p->mr, p->implicit, all);
	free(all);
	free(nids);
	return 0;
}

static int m_route(const struct lnetk_route *r, void *arg)
{
	line_add(arg, "route %s %s hops=%u prio=%u sens=%u", r->net, r->gateway, r->hops,
		 r->priority, r->sensitivity);
	return 0;
}

static int m_rule(const struct lnetk_rule *r, void *arg)
{
	line_add(arg, "rule %05" PRId64 " src=%s dst=%s rte=%s prio=%u", r->idx, r->src ?: "",
		 r->dst ?: "", r->rte ?: "", r->prio);
	return 0;
}

static int m_global(const struct lnetk_global *g, void *arg)
{
	line_add(arg, "global %s %u", g->name, g->value);
	return 0;
}

static int m_tbf(const struct lnetk_tbf *t, void *arg)
{
	size_t q, i;

	for (q = 0; q < t->nqueues; q++) {
		const struct lnetk_tbf_qinfo *qi = &t->queues[q];
		const char *name = qi->queue == LNETK_TBF_HP ? "hp" : "reg";

		line_add(arg, "tbf %s %s type=%s depth=%u", t->service, name, qi->type, qi->depth);
		/* lnetd stores no command for a default rule at the default rate. */
		for (i = 0; i < qi->nrules; i++)
			if (strcmp(qi->rules[i].text, "change default rate=10000"))
				line_add(arg, "tbf %s %s rule %03zu %s", t->service, name, i,
					 qi->rules[i].text);
	}
	return 0;
}

/* What the module holds, configuration only. */
static int module_text(struct strbuf *sb)
{
	struct lines l = {0};
	struct lnetk *lk;
	int rc, tries;

	rc = lnetk_open(&lk);
	for (tries = 0; !rc && tries < 5; tries++) {
		rc = lnetk_ni_dump(lk, m_ni, &l, NULL) ?: lnetk_peer_dump(lk, m_peer, &l, NULL)
							   ?: lnetk_route_dump(lk, m_route, &l, NULL)
							   ?: lnetk_rule_dump(lk, m_rule, &l, NULL)
							   ?: lnetk_global_get(lk, m_global, &l, NULL)
							   ?: lnetk_tbf_dump(lk, m_tbf, &l, NULL);
		if (rc != -EAGAIN)
			break;
		lines_join(&l, sb);
		rc = 0;
	}
	if (!rc || lk)
		lnetk_close(rc == -ENOENT ? NULL : lk);
	lines_join(&l, sb);
	return rc;
}

/*
 * A method without arguments.  The wait is lnetctl's, not sd-bus's 25 s:
 * listing 100,000 objects under TCG on a loaded host can take longer.
 */
int call(const char *method, sd_bus_message **reply)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *m = NULL;
	int rc = sd_bus_message_new_method_call(bus, &m, MANAGER, method);

	if (rc >= 0)
		rc = sd_bus_call(bus, m, 600 * 1000000ULL, &e, reply);
	if (rc < 0)
		diag("%s: %s", method, e.message ?: strerror(-rc));
	sd_bus_message_unref(m);
	sd_bus_error_free(&e);
	return rc;
}

/* One ListNIs row's fields: its NIs and its tunables. */
struct ni_dict {
	char nid[8][LNETK_NID_MAX], nif[8][LNETK_IFNAME_MAX];
	int up[8], n;
	uint32_t tun[LNE_TUN__COUNT];
};

static int ni_entry(sd_bus_message *m, const char *key, void *arg)
{
#define TUN_NAME(id, name, ...) #name,
	static const char *const tname[LNE_TUN__COUNT] = {LNE_TUNABLES(TUN_NAME)};
#undef TUN_NAME
	struct ni_dict *d = arg;
	const char *a, *b;
	uint32_t health;
	int k, rc;

	for (k = 0; k < LNE_TUN__COUNT; k++)
		if (!strcmp(key, tname[k]))
			return sd_bus_message_read(m, "v", "u", &d->tun[k]);
	if (strcmp(key, "nis"))
		return 0;
	rc = sd_bus_message_enter_container(m, 'v', "a(ssbu)");
	if (rc >= 0)
		rc = sd_bus_message_enter_container(m, 'a', "(ssbu)");
	while (rc >= 0 && d->n < 8 &&
	       (rc = sd_bus_message_read(m, "(ssbu)", &a, &b, &d->up[d->n], &health)) > 0) {
		snprintf(d->nid[d->n], sizeof(d->nid[d->n]), "%s", a);
		snprintf(d->nif[d->n], sizeof(d->nif[d->n]), "%s", b);
		d->n++;
	}
	if (rc >= 0)
		rc = sd_bus_message_exit_container(m);
	if (rc >= 0)
		rc = sd_bus_message_exit_container(m);
	return rc < 0 ? rc : 1;
}

/* ListNIs rows: (net, interface, state, {nis: a(ssbu), peer_timeout: u, ...}). */
static int l_nis(struct lines *l)
{
	sd_bus_message *m = NULL;
	const char *net, *ifname, *state;
	int rc = call("ListNIs", &m);

	rc = rc < 0 ? rc : sd_bus_message_enter_container(m, 'a', "(sssa{sv})");
	while (rc >= 0 && (rc = sd_bus_message_enter_container(m, 'r', "sssa{sv}")) > 0) {
		struct ni_dict d = {.n = 0};
		char tun[LNE_TUN__COUNT * 11];
		int k;

		rc = sd_bus_message_read(m, "sss", &net, &ifname, &state);
		if (rc >= 0)
			rc = read_dict(m, ni_entry, &d);
		if (rc >= 0)
			rc = sd_bus_message_exit_container(m);
		tun_text(tun, sizeof(tun), d.tun);
		for (k = 0; rc >= 0 && k < d.n; k++)
			line_add(l, "ni %s if=%s up=%d tun=%s", d.nid[k], d.nif[k], d.up[k], tun);
	}
	sd_bus_message_unref(m);
	return rc < 0 ? rc : 0;
}

/* One ListPeers row's fields. */
struct peer_dict {
	int mr, implicit;
	char *nids[256];
	size_t n;
};

static int peer_entry(sd_bus_message *m, const char *key, void *arg)
{
	struct peer_dict *d = arg;
	const char *nid;
	uint32_t health;
	int rc;

	if (!strcmp(key, "multi_rail"))
		return sd_bus_message_read(m, "v", "b", &d->mr);
	if (!strcmp(key, "implicit"))
		return sd_bus_message_read(m, "v", "b", &d->implicit);
	if (strcmp(key, "nids"))
		return 0;
	rc = sd_bus_message_enter_container(m, 'v', "a(su)");
	if (rc >= 0)
		rc = sd_bus_message_enter_container(m, 'a', "(su)");
	while (rc >= 0 && d->n < 256 && (rc = sd_bus_message_read(m, "(su)", &nid, &health)) > 0)
		d->nids[d->n++] = strdup(nid);
	if (rc >= 0)
		rc = sd_bus_message_exit_container(m);
	if (rc >= 0)
		rc = sd_bus_message_exit_container(m);
	return rc < 0 ? rc : 1;
}

static int l_peers(struct lines *l)
{
	sd_bus_message *m = NULL;
	const char *primary;
	int rc = call("ListPeers", &m);

	rc = rc < 0 ? rc : sd_bus_message_enter_container(m, 'a', "(sa{sv})");
	while (rc >= 0 && (rc = sd_bus_message_enter_container(m, 'r', "sa{sv}")) > 0) {
		struct peer_dict d = {.mr = -1, .implicit = -1};
		char *all;
		size_t i;

		rc = sd_bus_message_read(m, "s", &primary);
		if (rc >= 0)
			rc = read_dict(m, peer_entry, &d);
		if (rc >= 0)
			rc = sd_bus_message_exit_container(m);
		all = nids_sorted(d.nids, d.n);
		line_add(l, "peer %s mr=%d implicit=%d nids=%s", primary, d.mr, d.implicit, all);
		free(all);
		for (i = 0; i < d.n; i++)
			free(d.nids[i]);
	}
	sd_bus_message_unref(m);
	return rc < 0 ? rc : 0;
}

/* A route's settings by name, in the table's order (engine/route-attrs.h). */
static int route_entry(sd_bus_message *m, const char *key, void *arg)
{
#define ROUTE_NAME(id, name, ...) #name,
	static const char *const rname[LNE_ROUTE_A__COUNT] = {LNE_ROUTE_ATTRS(ROUTE_NAME)};
#undef ROUTE_NAME
	uint32_t *v = arg;
	int k;

	for (k = 0; k < LNE_ROUTE_A__COUNT; k++)
		if (!strcmp(key, rname[k]))
			return sd_bus_message_read(m, "v", "u", &v[k]);
	return 0;
}

static int l_routes(struct lines *l)
{
	sd_bus_message *m = NULL;
	const char *net, *gw;
	int rc = call("ListRoutes", &m);

	rc = rc < 0 ? rc : sd_bus_message_enter_container(m, 'a', "(ssa{sv})");
	while (rc >= 0 && (rc = sd_bus_message_enter_container(m, 'r', "ssa{sv}")) > 0) {
		uint32_t v[LNE_ROUTE_A__COUNT] = {0};

		rc = sd_bus_message_read(m, "ss", &net, &gw);
		if (rc >= 0)
			rc = read_dict(m, route_entry, v);
		if (rc >= 0)
			rc = sd_bus_message_exit_container(m);
		if (rc >= 0)
			line_add(l, "route %s %s hops=%u prio=%u sens=%u", net, gw,
				 v[LNE_ROUTE_A_HOPS], v[LNE_ROUTE_A_PRIORITY],
				 v[LNE_ROUTE_A_SENSITIVITY]);
	}
	sd_bus_message_unref(m);
	return rc < 0 ? rc : 0;
}

static int rule_entry(sd_bus_message *m, const char *key, void *arg)
{
	return strcmp(key, "priority") ? 0 : sd_bus_message_read(m, "v", "u", arg);
}

static int l_rules(struct lines *l)
{
	sd_bus_message *m = NULL;
	const char *src, *dst, *rte;
	uint32_t idx, prio;
	int rc = call("ListRules", &m);

	rc = rc < 0 ? rc : sd_bus_message_enter_container(m, 'a', "(usssa{sv})");
	while (rc >= 0 && (rc = sd_bus_message_enter_container(m, 'r', "usssa{sv}")) > 0) {
		prio = LNETK_PRIO_NONE;
		rc = sd_bus_message_read(m, "usss", &idx, &src, &dst, &rte);
		if (rc >= 0)
			rc = read_dict(m, rule_entry, &prio);
		if (rc >= 0)
			rc = sd_bus_message_exit_container(m);
		line_add(l, "rule %05u src=%s dst=%s rte=%s prio=%u", idx, src, dst, rte, prio);
	}
	sd_bus_message_unref(m);
	return rc < 0 ? rc : 0;
}

static int l_globals(struct lines *l)
{
	sd_bus_message *m = NULL;
	const char *name;
	uint32_t value;
	int rc = call("ListGlobals", &m);

	rc = rc < 0 ? rc : sd_bus_message_enter_container(m, 'a', "(su)");
	while (rc >= 0 && (rc = sd_bus_message_read(m, "(su)", &name, &value)) > 0)
		line_add(l, "global %s %u", name, value);
	sd_bus_message_unref(m);
	return rc < 0 ? rc : 0;
}

/*
 * TBF policies as lnetd has them configured: Export's "set tbf" operations,
 * one per queue, with the rules as the commands that rebuild them (last
 * rule first).  Lines in the form m_tbf makes of the module's.
 */
static int l_tbf(struct lines *l)
{
	sd_bus_message *m = NULL;
	const char *verb, *obj, *key, *service = "", *queue = "", *type = "", *rule;
	char *rules[512]; /* a queue holds 256 rules and its default */
	size_t n = 0, i;
	uint64_t gen;
	uint32_t depth = 0;
	int rc = call("Export", &m);

	rc = rc < 0 ? rc : sd_bus_message_read(m, "t", &gen);
	rc = rc < 0 ? rc : sd_bus_message_enter_container(m, 'a', "(ssa{sv})");
	while (rc >= 0 && (rc = sd_bus_message_enter_container(m, 'r', "ssa{sv}")) > 0) {
		rc = sd_bus_message_read(m, "ss", &verb, &obj);
		if (rc >= 0 && strcmp(obj, "tbf")) {
			rc = sd_bus_message_skip(m, "a{sv}");
			if (rc >= 0)
				rc = sd_bus_message_exit_container(m);
			continue;
		}
		n = 0;
		if (rc >= 0)
			rc = sd_bus_message_enter_container(m, 'a', "{sv}");
		while (rc >= 0 && (rc = sd_bus_message_enter_container(m, 'e', "sv")) > 0) {
			rc = sd_bus_message_read(m, "s", &key);
			if (rc >= 0 && !strcmp(key, "service"))
				rc = sd_bus_message_read(m, "v", "s", &service);
			else if (rc >= 0 && !strcmp(key, "queue"))
				rc = sd_bus_message_read(m, "v", "s", &queue);
			else if (rc >= 0 && !strcmp(key, "type"))
				rc = sd_bus_message_read(m, "v", "s", &type);
			else if (rc >= 0 && !strcmp(key, "depth"))
				rc = sd_bus_message_read(m, "v", "u", &depth);
			else if (rc >= 0 && !strcmp(key, "rules")) {
				rc = sd_bus_message_enter_container(m, 'v', "as");
				rc = rc < 0 ? rc : sd_bus_message_enter_container(m, 'a', "s");
				while (rc >= 0 && (rc = sd_bus_message_read(m, "s", &rule)) > 0)
					if (n < N_OF(rules))
						rules[n++] = (char *)rule;
				rc = rc < 0 ? rc : sd_bus_message_exit_container(m);
				rc = rc < 0 ? rc : sd_bus_message_exit_container(m);
			} else if (rc >= 0)
				rc = sd_bus_message_skip(m, "v");
			if (rc >= 0)
				rc = sd_bus_message_exit_container(m);
		}
		if (rc >= 0)
			rc = sd_bus_message_exit_container(m);
		if (rc >= 0)
			rc = sd_bus_message_exit_container(m);
		line_add(l, "tbf %s %s type=%s depth=%u", service, queue, type, depth);
		for (i = 0; i < n; i++)
			line_add(l, "tbf %s %s rule %03zu %s", service, queue, i, rules[n - 1 - i]);
	}
	sd_bus_message_unref(m);
	return rc < 0 ? rc : 0;
}

/* What lnetd says LNet is (NIs: those applied). */
int lnetd_text(struct strbuf *sb)
{
	struct lines l = {0};
	int rc = l_nis(&l) ?: l_peers(&l) ?: l_routes(&l) ?: l_rules(&l) ?: l_globals(&l)
								      ?: l_tbf(&l);

	lines_join(&l, sb);
	return rc;
}

bool text_same(const struct strbuf *a, const struct strbuf *b)
{
	return a->len == b->len && (!a->len || !memcmp(a->s, b->s, a->len));
}

/* The first lines where they part. */
static void text_diff(const char *an, const struct strbuf *a, const char *bn,
		      const struct strbuf *b)
{
	const char *p = a->s ?: "", *q = b->s ?: "";
	int shown = 0;

	while (*p || *q) {
		size_t lp = strcspn(p, "\n"), lq = strcspn(q, "\n");

		if (lp != lq || memcmp(p, q, lp)) {
			diag("%s: %.*s", an, (int)lp, p);
			diag("%s: %.*s", bn, (int)lq, q);
			if (++shown == 5)
				return;
		}
		p += lp + !!p[lp];
		q += lq + !!q[lq];
	}
}

/* Module and lnetd agree; @what names the moment.  Diagnostics when not. */
bool agree(const char *what, bool quiet)
{
	struct strbuf a = {0}, b = {0};
	int ra = module_text(&a), rb = lnetd_text(&b);
	bool ok = !ra && !rb && text_same(&a, &b);

	if (!ok && !quiet) {
		diag("%s: module %s (%zu bytes), lnetd %s (%zu bytes)", what, errname(ra), a.len,
		     errname(rb), b.len);
		text_diff("module", &a, "lnetd ", &b);
	}
	sb_free(&a);
	sb_free(&b);
	return ok;
}

/* Poll until they agree, up to @limit seconds; the time it took, or < 0. */
double converge(double limit)
{
	double t0 = now();

	do {
		if (agree("", true))
			return now() - t0;
		usleep(10000);
	} while (now() - t0 < limit);
	return -1;
}

/* Status: whether lnetd says the module is missing (@why its sentence). */
int module_pending(char *why, size_t len)
{
	sd_bus_message *m = NULL;
	const char *kind, *key, *reason;
	uint64_t gen;
	const char *engine;
	int rc = call("Status", &m), found = 0;

	why[0] = '\0';
	if (rc >= 0)
		rc = sd_bus_message_read(m, "ts", &gen, &engine);
	if (rc >= 0)
		rc = sd_bus_message_skip(m, "a(suu)");
	if (rc >= 0)
		rc = sd_bus_message_enter_container(m, 'a', "(sss)");
	while (rc >= 0 && (rc = sd_bus_message_read(m, "(sss)", &kind, &key, &reason)) > 0)
		if (!strcmp(kind, "module")) {
			found = 1;
			snprintf(why, len, "%s", reason);
		}
	sd_bus_message_unref(m);
	return rc < 0 ? rc : found;
}

uint64_t module_generation(void)
{
	struct lnetk_info info = {0};
	struct lnetk *lk;

	if (lnetk_open(&lk))
		return 0;
	lnetk_get_info(lk, &info, NULL);
	lnetk_close(lk);
	return info.generation;
}
