// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "engine/expr.h"
#include "engine/udsp.h"
#include "state.h"

struct out {
	char *buf;
	size_t len, cap;
};

static void put(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(o->buf + o->len, o->cap - o->len, fmt, ap);
		va_end(ap);
		ck_assert_int_ge(n, 0);
		if ((size_t)n < o->cap - o->len)
			break;
		o->cap = o->cap * 2 + (size_t)n;
		o->buf = realloc(o->buf, o->cap);
		ck_assert(o->buf);
	}
	o->len += (size_t)n;
}

static const char *nid(const struct lne_nid *n, char *buf)
{
	lne_nid_format(n, buf, LNE_NID_STR_MAX);
	return buf;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A preference list in a stable order (the engine keeps no order). */
static void put_prefs(struct out *o, const char *what, const struct lne_pref *p, u16 n, bool gw)
{
	char **items = calloc(n ? n : 1, sizeof(*items)), b[LNE_NID_STR_MAX];
	u16 i;

	for (i = 0; i < n; i++) {
		const struct lne_nid *t = gw ? &((const struct lne_peer_ni *)p[i].target)->nid
					     : &((const struct lne_ni *)p[i].target)->nid;

		items[i] = malloc(LNE_NID_STR_MAX + 16);
		snprintf(items[i], LNE_NID_STR_MAX + 16, "%s/r%d", nid(t, b), p[i].rule->idx);
	}
	qsort(items, n, sizeof(*items), cmp_str);
	put(o, " %s[", what);
	for (i = 0; i < n; i++) {
		put(o, "%s%s", i ? "," : "", items[i]);
		free(items[i]);
	}
	put(o, "]");
	free(items);
}

char *state_text(const struct lne_inst *ln)
{
	struct out o = {.buf = malloc(4096), .cap = 4096};
	char b[LNE_NID_STR_MAX], nb[LNE_NET_STR_MAX];
	const struct lne_peer_net *pnet;
	const struct lne_peer_ni *pni;
	const struct lne_route *rt;
	const struct lne_peer *peer;
	const struct lne_rnet *rnet;
	const struct lne_rule *r;
	const struct lne_net *net;
	const struct lne_ni *ni;
	int g;

	ck_assert(o.buf);
	o.buf[0] = '\0';
	lne_list_for_each_entry(net, &ln->nets, link) {
		lne_net_format(net->id, nb, sizeof(nb));
		put(&o, "net %s prio %u/r%d\n", nb, net->prio.value, lne_rule_idx(net->prio.rule));
		lne_list_for_each_entry(ni, &net->nis, link)
			put(&o, "  ni %s if=%s up=%d health=%d prio %u/r%d\n", nid(&ni->nid, b),
			    ni->ifname, ni->up, ni->health, ni->prio.value,
			    lne_rule_idx(ni->prio.rule));
	}
	lne_list_for_each_entry(rnet, &ln->rnets, link) {
		lne_net_format(rnet->id, nb, sizeof(nb));
		put(&o, "rnet %s prio %u/r%d local=%d refs=%u\n", nb, rnet->prio.value,
		    lne_rule_idx(rnet->prio.rule), rnet->local != NULL, rnet->refs);
	}
	lne_list_for_each_entry(peer, &ln->peers, link) {
		put(&o, "peer %s mr=%d implicit=%d\n", nid(&peer->primary, b), peer->mr,
		    peer->implicit);
		lne_list_for_each_entry(pnet, &peer->pnets, link)
			lne_list_for_each_entry(pni, &pnet->pnis, pnet_link) {
				put(&o, "  pni %s health=%d gw=%u prio %u/r%d", nid(&pni->nid, b),
				    pni->health, pni->gw_refs, pni->prio,
				    lne_rule_idx(pni->prio_rule));
				put_prefs(&o, "src", pni->prefs ? pni->prefs->src : NULL,
					  pni->prefs ? pni->prefs->nsrc : 0, false);
				put_prefs(&o, "gw", pni->prefs ? pni->prefs->gw : NULL,
					  pni->prefs ? pni->prefs->ngw : 0, true);
				put(&o, "\n");
			}
	}
	lne_list_for_each_entry(rt, &ln->routes, link) {
		lne_net_format(rt->rnet->id, nb, sizeof(nb));
		put(&o, "route %s via %s hops=%u prio=%u\n", nb, nid(&rt->gw->nid, b), rt->hops,
		    rt->priority);
	}
	lne_list_for_each_entry(r, &ln->udsp.rules, link) {
		const struct lne_expr *e[3] = {r->src, r->dst, r->rte};
		int i;

		put(&o, "rule %u kind=%d prio=%u", r->idx, r->kind, r->prio);
		for (i = 0; i < 3; i++) {
			char text[512] = "-";

			if (e[i])
				lne_expr_format(e[i], text, sizeof(text));
			put(&o, " %s", text);
		}
		put(&o, "\n");
	}
	for (g = 0; g < LNE_G__COUNT; g++)
		put(&o, "global %s=%u\n", lne_global_info(g)->name, ln->globals[g]);
	return o.buf;
}
