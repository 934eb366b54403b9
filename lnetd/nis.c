// SPDX-License-Identifier: GPL-2.0
/*
 * nis.c - configured NIs against the interfaces that exist.
 *
 * The store keeps what the admin configured (a net on an interface, on the
 * interfaces whose address matches an ip2nets pattern, or both); the engine
 * gets an NI only for an interface that exists and has an IPv4 address,
 * which gives the NID (or, on a named interface without one, a global
 * IPv6 address: a large NID).  Reconciling runs at start and after every rtnetlink
 * or udev event: an NI whose interface or address appears is applied, one
 * whose address changes is replaced, one whose interface or address goes
 * back to pending.  Nothing configured is dropped because hardware is late.
 *
 * ip2nets, as the Multi-Rail design has it: a pattern is an IPv4 or IPv6
 * address pattern in the engine's NID grammar ("192.168.0.[2-10]",
 * "10.*.*.*", "2001:db8::/64"); every interface with a matching address
 * gets an NI of the net, whose NID is the interface's IPv4 address.  When an
 * interface is named as well, the pattern must agree with that interface's
 * address: if it does not, the NI is pending and says so (upstream
 * configures the interface anyway and ignores the pattern).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "change.h"
#include "lnetd.h"
#include "lnetd/backend/backend.h"
#include "lnetd/events.h"
#include "lnetd/log.h"
#include "numa.h"

static void set_reason(struct lnetd_ni *n, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void set_reason(struct lnetd_ni *n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(n->reason, sizeof(n->reason), fmt, ap);
	va_end(ap);
}

/* "[0,2-3]" or "0,2,3" into a mask and its canonical text "[0,2,3]". */
static int cpts_parse(const char *s, u64 *mask, char *canon, size_t len, char *why, size_t wlen)
{
	const char *p = s;
	unsigned long a, b;
	size_t used = 0;
	char *end;
	int i;

	*mask = 0;
	if (*p == '[')
		p++;
	while (*p && *p != ']') {
		a = strtoul(p, &end, 10);
		if (end == p || a >= LNE_MAX_CPTS)
			goto bad;
		b = a;
		if (*end == '-') {
			p = end + 1;
			b = strtoul(p, &end, 10);
			if (end == p || b >= LNE_MAX_CPTS || b < a)
				goto bad;
		}
		for (; a <= b; a++)
			*mask |= 1ull << a;
		p = end;
		if (*p == ',')
			p++;
		else if (*p && *p != ']')
			goto bad;
	}
	if ((*s == '[') != (*p == ']') || (*p == ']' && p[1]) || !*mask)
		goto bad;
	used = (size_t)snprintf(canon, len, "[");
	for (i = 0; i < LNE_MAX_CPTS; i++)
		if (*mask & (1ull << i))
			used += (size_t)snprintf(canon + used, len - used, "%s%d",
						 used > 1 ? "," : "", i);
	snprintf(canon + used, len - used, "]");
	return 0;
bad:
	snprintf(why, wlen, "'%s' is not a CPT list like [0,1] or [0-3] (CPTs 0 to %d)", s,
		 LNE_MAX_CPTS - 1);
	return -EINVAL;
}

int lnetd_ni_init(struct lnetd_ni *n, const struct st_ni *sn, char *why, size_t len)
{
	char text[LNETD_PATTERN_MAX * (LNE_NET_STR_MAX + 2)];
	struct lne_err err = {.msg = ""};
	lne_net_t net;
	int k;

	memset(n, 0, sizeof(*n));
	if (lne_net_parse(sn->net, &net, &err)) {
		snprintf(why, len, "%s", err.msg);
		return -EINVAL;
	}
	if (LNE_NET_LND(net) == LNE_LND_LO) {
		snprintf(why, len, "the loopback NI always exists; it is not configured");
		return -EINVAL;
	}
	lne_net_format(net, n->net, sizeof(n->net));
	n->id = sn->id;
	if (!sn->ifname && !sn->pattern) {
		snprintf(why, len, "an NI of %s needs an interface or an address pattern", n->net);
		return -EINVAL;
	}
	/* An alias, "eth0:1", is the IPv4 address of that label (LU-16859). */
	if (sn->ifname &&
	    (!*sn->ifname || strlen(sn->ifname) >= LNE_IFNAME_MAX ||
	     strpbrk(sn->ifname, "/ \t\n") || *sn->ifname == ':' ||
	     (strchr(sn->ifname, ':') && (strchr(sn->ifname, ':') != strrchr(sn->ifname, ':') ||
					  !strchr(sn->ifname, ':')[1])))) {
		snprintf(why, len,
			 "'%s' is not an interface name (1 to %d characters, no '/' or spaces) "
			 "nor an alias like eth0:1",
			 sn->ifname, LNE_IFNAME_MAX - 1);
		return -EINVAL;
	}
	snprintf(n->ifname, sizeof(n->ifname), "%s", sn->ifname ?: "");
	if (sn->pattern) {
		/* The pattern is an address; with the net it is a NID expression. */
		if (strlen(sn->pattern) >= LNETD_PATTERN_MAX || strchr(sn->pattern, '@') ||
		    !*sn->pattern) {
			snprintf(why, len,
				 "'%s' is not an address pattern (an IPv4 address with ranges or "
				 "'*', no '@net', at most %d characters)",
				 sn->pattern, LNETD_PATTERN_MAX - 1);
			return -EINVAL;
		}
		/* Several address patterns, space separated, each gets the net. */
		{
			const char *p = sn->pattern;
			size_t used = 0, plen;

			text[0] = '\0';
			while (*p) {
				plen = strcspn(p, " ");
				if (plen)
					used += (size_t)snprintf(text + used, sizeof(text) - used,
								 "%s%.*s@%s", used ? " " : "",
								 (int)plen, p, n->net);
				p += plen;
				p += strspn(p, " ");
				if (used >= sizeof(text))
					break;
			}
		}
		if (lne_expr_parse(text, &n->match, &err) || lne_expr_is_net(n->match)) {
			snprintf(why, len, "address pattern '%s': %s", sn->pattern,
				 n->match ? "it names the whole net, not addresses" : err.msg);
			lnetd_ni_clear(n);
			return -EINVAL;
		}
		snprintf(n->pattern, sizeof(n->pattern), "%s", sn->pattern);
	}
	if (sn->cpts && cpts_parse(sn->cpts, &n->cptmask, n->cpts, sizeof(n->cpts), why, len)) {
		lnetd_ni_clear(n);
		return -EINVAL;
	}
	memcpy(n->tunv, sn->tun, sizeof(n->tunv));
	lne_tunables_default(LNE_NET_LND(net), &n->tun);
	for (k = 0; k < LNE_TUN__COUNT; k++) {
		const struct lne_tun_desc *t = &lne_tun_desc[k];

		if (n->tunv[k] == ST_UNSET)
			continue;
		if (n->tunv[k] < t->min || n->tunv[k] > t->max) {
			snprintf(why, len, "%s must be %u to %u", t->name, t->min, t->max);
			lnetd_ni_clear(n);
			return -ERANGE;
		}
		n->tun.v[k] = (u32)n->tunv[k];
	}
	set_reason(n, "not looked at yet");
	return 0;
}

/* The engine's CPTs: its NUMA table's, or the one CPT 0 without a table. */
static u64 all_cpts(const struct lnetd *d)
{
	unsigned int n = d->mirror && d->mirror->ncpt ? d->mirror->ncpt : 1;

	return n >= 64 ? ~0ull : (1ull << n) - 1;
}

bool lnetd_ni_cpts_same(const struct lnetd *d, const struct lnetd_ni *a, const struct lnetd_ni *b)
{
	return (a->cptmask ?: all_cpts(d)) == (b->cptmask ?: all_cpts(d));
}

void lnetd_ni_cpts_in_effect(const struct lnetd *d, const struct lnetd_ni *n, char *buf, size_t len)
{
	u64 mask = n->cptmask ? n->cptmask : all_cpts(d);
	size_t used = (size_t)snprintf(buf, len, "[");
	int i;

	for (i = 0; i < 64 && used < len; i++)
		if (mask & (1ull << i))
			used += (size_t)snprintf(buf + used, len - used, "%s%d",
						 used > 1 ? "," : "", i);
	if (used < len)
		snprintf(buf + used, len - used, "]");
}

void lnetd_ni_clear(struct lnetd_ni *n)
{
	lne_expr_free(n->match);
	free(n->real);
	n->match = NULL;
	n->real = NULL;
	n->nreal = 0;
}

/* What the interfaces say an entry should be realised as. */
struct want {
	const struct lnetd_ni *n;
	lne_net_t net;
	struct lnetd_ni_real *w;
	bool *up;
	size_t nw, cap;
	bool named_seen; /* the named interface has an IPv4 address */
	u8 named_ip4[4];
	char (*v6)[LNE_IFNAME_MAX]; /* interfaces with an IPv6 address the pattern matches */
	size_t nv6;
};

static bool v6_matched(const struct want *wt, const char *ifname)
{
	size_t i;

	for (i = 0; i < wt->nv6; i++)
		if (!strcmp(wt->v6[i], ifname))
			return true;
	return false;
}

static int want_add(struct want *wt, const char *ifname, const u8 *ip, u8 alen, bool up)
{
	struct lne_nid nid = {
		.lnd = LNE_NET_LND(wt->net), .num = LNE_NET_NUM(wt->net), .alen = alen};
	size_t i;

	memcpy(nid.addr, ip, alen);
	if (*wt->n->ifname) {
		if (strcmp(ifname, wt->n->ifname))
			return 0;
		if (!wt->named_seen && alen == 4)
			memcpy(wt->named_ip4, ip, 4);
		wt->named_seen = alen == 4;
	}
	if (wt->n->match && !lne_expr_match_nid(wt->n->match, &nid) && !v6_matched(wt, ifname))
		return 0;
	for (i = 0; i < wt->nw; i++)
		if (!strcmp(wt->w[i].ifname, ifname))
			return 0; /* one NI per interface: its first matching address */
	if (wt->nw == wt->cap) {
		size_t cap = wt->cap ? 2 * wt->cap : 4;
		struct lnetd_ni_real *w = realloc(wt->w, cap * sizeof(*w));
		bool *u = w ? realloc(wt->up, cap * sizeof(*u)) : NULL;

		if (w)
			wt->w = w;
		if (!w || !u)
			return -ENOMEM;
		wt->up = u;
		wt->cap = cap;
	}
	snprintf(wt->w[wt->nw].ifname, sizeof(wt->w[wt->nw].ifname), "%s", ifname);
	wt->w[wt->nw].nid = nid;
	wt->up[wt->nw++] = up;
	return 0;
}

static int want_cb(const char *ifname, const uint8_t *addr, size_t alen, bool up, void *data)
{
	return alen == 4 ? want_add(data, ifname, addr, 4, up) : 0;
}

/*
 * After the IPv4 walk: a named interface without an IPv4 address takes its
 * first global IPv6 address, a large NID, as upstream's socklnd takes an
 * interface's first address (IPv4 ones listed first).  Link-local
 * addresses (fe80::/10) are not NIDs: they need a scope to reach.
 */
static int want16_cb(const char *ifname, const uint8_t *addr, size_t alen, bool up, void *data)
{
	if (alen != 16 || (addr[0] == 0xfe && (addr[1] & 0xc0) == 0x80))
		return 0;
	return want_add(data, ifname, addr, 16, up);
}

/*
 * Before the IPv4 walk: the interfaces an IPv6 address of which the pattern
 * matches.  Such an interface matches the rule, as in Lustre, and its NI's
 * NID is its IPv4 address, the one `net add --if` gives it.
 */
static int want6_cb(const char *ifname, const uint8_t *addr, size_t alen, bool up, void *data)
{
	struct want *wt = data;
	struct lne_nid nid = {.lnd = LNE_NET_LND(wt->net), .num = LNE_NET_NUM(wt->net), .alen = 16};
	char(*v)[LNE_IFNAME_MAX];

	if (alen != 16)
		return 0;
	memcpy(nid.addr, addr, 16);
	if (!lne_expr_match_nid(wt->n->match, &nid) || v6_matched(wt, ifname))
		return 0;
	v = realloc(wt->v6, (wt->nv6 + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	wt->v6 = v;
	snprintf(wt->v6[wt->nv6++], sizeof(*v), "%s", ifname);
	return 0;
}

/* Why nothing is realised. */
static void explain_none(struct lnetd *d, struct lnetd_ni *n, const struct want *wt)
{
	struct netif_state st;

	if (!*n->ifname) {
		set_reason(n, "no interface has an address matching %s", n->pattern);
		return;
	}
	if (netif_lookup(d->netif, n->ifname, &st) < 0 || !st.exists)
		set_reason(n, "interface %s does not exist", n->ifname);
	else if (!wt->named_seen)
		set_reason(n, "interface %s has no IPv4 address", n->ifname);
	else
		set_reason(n, "the address %u.%u.%u.%u of %s does not match the pattern %s",
			   wt->named_ip4[0], wt->named_ip4[1], wt->named_ip4[2], wt->named_ip4[3],
			   n->ifname, n->pattern);
}

/*
 * The engine's place for a new NI of @n: the NIs of one configured NI sit
 * together, where it was first added (its row id), each in a slot of its
 * own; 0 (after every NI) for an NI with no row.
 */
static u64 real_place(const struct lnetd_ni *n)
{
	u64 base, slot;
	size_t i;

	if (n->id <= 0 || n->id >= (int64_t)1 << 46)
		return 0;
	base = (u64)n->id << 16;
	for (slot = 0; slot < 0xffff; slot++) {
		for (i = 0; i < n->nreal && n->real[i].place != base + slot; i++)
			;
		if (i == n->nreal)
			return base + slot;
	}
	return 0;
}

static bool real_in(const struct lnetd_ni_real *r, const struct lnetd_ni_real *set, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(r->ifname, set[i].ifname) && lne_nid_equal(&r->nid, &set[i].nid))
			return true;
	return false;
}

void lnetd_ni_unrealise(struct lnetd *d, struct lnetd_ni *n)
{
	size_t i;

	for (i = 0; i < n->nreal; i++)
		lne_ni_del(d->mirror, &n->real[i].nid, NULL);
	n->nreal = 0;
}

/*
 * An interface's link state, as rtnetlink tells it: with a data path its
 * node acts at once (a link that went down fails its messages over to other
 * NIs; one that came up is pinged back to health), else the mirror notes it.
 */
static void ni_link(struct lnetd *d, const struct lne_nid *nid, bool up)
{
	if (!backend_ni_link(d, nid, up))
		lne_ni_set_up(d->mirror, nid, up, NULL);
}

int lnetd_ni_reconcile(struct lnetd *d, struct lnetd_ni *n, bool *changed)
{
	struct want wt = {.n = n};
	struct lne_err err = {.msg = ""};
	struct lnetd_ni_real *keep;
	size_t i, k = 0;
	int rc;

	*changed = false;
	if (lne_net_parse(n->net, &wt.net, NULL))
		return 0;
	rc = n->match ? netif_addrs(d->netif, want6_cb, &wt) : 0;
	if (rc >= 0)
		rc = netif_addrs(d->netif, want_cb, &wt);
	if (rc >= 0 && *n->ifname && !wt.named_seen)
		rc = netif_addrs(d->netif, want16_cb, &wt);
	if (rc < 0)
		goto out; /* keep what we have; the next event looks again */
	/* Away with what is no longer wanted, then in with what is new. */
	for (i = 0; i < n->nreal; i++) {
		if (real_in(&n->real[i], wt.w, wt.nw))
			n->real[k++] = n->real[i];
		else
			lne_ni_del(d->mirror, &n->real[i].nid, NULL);
	}
	*changed = k != n->nreal;
	n->nreal = k;
	keep = realloc(n->real, (wt.nw ? wt.nw : 1) * sizeof(*keep));
	if (!keep) {
		rc = -ENOMEM;
		goto out;
	}
	n->real = keep;
	for (i = 0; i < wt.nw; i++) {
		struct lne_ni_conf c = {.nid = wt.w[i].nid,
					.ifname = wt.w[i].ifname,
					.cpts = n->cptmask,
					.dev_cpt = numa_dev_cpt(d->mirror, "/sys/class/net",
								wt.w[i].ifname),
					.tun = &n->tun};

		if (!real_in(&wt.w[i], n->real, n->nreal)) {
			wt.w[i].place = c.order = real_place(n);
			rc = lne_ni_add(d->mirror, &c, &err);
			if (rc) {
				set_reason(n, "%s", err.msg);
				lnetd_ni_unrealise(d, n);
				*changed = true;
				goto out;
			}
			n->real[n->nreal++] = wt.w[i];
			*changed = true;
		}
		ni_link(d, &wt.w[i].nid, wt.up[i]);
	}
	if (!n->nreal)
		explain_none(d, n, &wt);
	else
		n->reason[0] = '\0';
out:
	free(wt.w);
	free(wt.up);
	free(wt.v6);
	return rc;
}

bool lnetd_ni_applied(const struct lnetd *d, const struct lnetd_ni *n, char *why, size_t len)
{
	if (!n->nreal) {
		snprintf(why, len, "%s", n->reason);
		return false;
	}
	return backend_applied(d, n, why, len);
}

void lnetd_nis_reconcile(struct lnetd *d)
{
	char why[sizeof(d->nis->reason)], key[LNETD_NI_NAME_MAX];
	char nid[LNE_NID_STR_MAX];
	struct lnetd_event ev = {.kind = LNETD_EV_NI_STATE, .ni = key, .nid = nid, .reason = why};
	bool changed;
	size_t i;

	for (i = 0; i < d->nnis; i++) {
		struct lnetd_ni *n = &d->nis[i];

		lnetd_ni_reconcile(d, n, &changed);
		if (!changed)
			continue;
		ev.applied = lnetd_ni_applied(d, n, why, sizeof(why));
		lnetd_ni_name(n, key, sizeof(key));
		nid[0] = '\0';
		if (n->nreal)
			lne_nid_format(&n->real[0].nid, nid, sizeof(nid));
		lnetd_event(d, &ev);
	}
}

static int load_one(const struct st_ni *sn, void *data)
{
	struct lnetd *d = data;
	struct lnetd_ni *grown;
	char why[LNE_ERR_MSG_MAX];
	int rc;

	grown = realloc(d->nis, (d->nnis + 1) * sizeof(*d->nis));
	if (!grown)
		return -ENOMEM;
	d->nis = grown;
	rc = lnetd_ni_init(&d->nis[d->nnis], sn, why, sizeof(why));
	if (rc) {
		log_warning("stored NI of %s refused: %s", sn->net, why);
		return rc;
	}
	d->nnis++;
	return 0;
}

void lnetd_nis_free(struct lnetd *d)
{
	size_t i;

	for (i = 0; i < d->nnis; i++)
		lnetd_ni_clear(&d->nis[i]);
	free(d->nis);
	d->nis = NULL;
	d->nnis = 0;
}

int lnetd_nis_load(struct lnetd *d)
{
	lnetd_nis_free(d);
	return store_ni_list(d->store, load_one, d);
}

/* Whether @text has the line "@mark@key". */
static bool has_line(const char *text, char mark, const char *key)
{
	size_t len = strlen(key);
	const char *p;

	for (p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (*p == mark && !strncmp(p + 1, key, len) && (!p[len + 1] || p[len + 1] == '\n'))
			return true;
	return false;
}

bool lnetd_net_configured(const struct lnetd *d, const char *net)
{
	size_t k;

	for (k = 0; k < d->nnis; k++)
		if (!strcmp(d->nis[k].net, net))
			return true;
	return false;
}

/*
 * A route a change adds through a gateway on a net no NI of the configuration
 * is on (Lustre refuses it) is kept, as desired state: the net may be added
 * later.  The caller is told: "!route NET GATEWAY: why".
 */
static int route_notes(const struct lnetd *d, const struct lnetd_op *ops, size_t n, char **summary)
{
	char net[LNE_NET_STR_MAX], *more;
	struct lne_nid gw;
	size_t i;

	for (i = 0; i < n; i++) {
		const struct st_route *r = &ops[i].u.route;

		if (ops[i].obj != OBJ_ROUTE || ops[i].verb != VERB_ADD ||
		    lne_nid_parse(r->gateway ?: "", &gw, NULL))
			continue;
		lne_net_format(lne_nid_net(&gw), net, sizeof(net));
		if (lnetd_net_configured(d, net))
			continue;
		if (asprintf(&more,
			     "%s%s!route %s %s: no NI is configured on %s, the net of the "
			     "gateway %s",
			     *summary, **summary ? "\n" : "", r->net, r->gateway, net,
			     r->gateway) < 0)
			return -ENOMEM;
		free(*summary);
		*summary = more;
	}
	return 0;
}

/*
 * An ip2nets rule a change adds that matches no interface now is kept (it is
 * desired state: a NIC may come later), but the caller is told, one line per
 * rule appended to @summary: "!ni NET IF PATTERN: why"; and so of routes.
 */
int lnetd_nis_notes(const struct lnetd *d, const struct lnetd_op *ops, size_t n, char **summary)
{
	char net[LNE_NET_STR_MAX];
	lne_net_t id;
	size_t i, k;

	if (route_notes(d, ops, n, summary))
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const struct st_ni *sn = &ops[i].u.ni;

		if (ops[i].obj != OBJ_NET || ops[i].verb != VERB_ADD || !sn->pattern ||
		    lne_net_parse(sn->net ?: "", &id, NULL))
			continue;
		lne_net_format(id, net, sizeof(net));
		for (k = 0; k < d->nnis; k++) {
			const struct lnetd_ni *ni = &d->nis[k];
			char *key, *more;
			bool added;

			if (ni->nreal || strcmp(ni->net, net) || strcmp(ni->pattern, sn->pattern) ||
			    strcmp(ni->ifname, sn->ifname ?: ""))
				continue;
			if (asprintf(&key, "ni %s%s%s %s", net, *ni->ifname ? " " : "", ni->ifname,
				     ni->pattern) < 0)
				return -ENOMEM;
			added = has_line(*summary, '+', key); /* by this change, not before */
			more = NULL;
			if (added && asprintf(&more, "%s%s!%s: %s", *summary, **summary ? "\n" : "",
					      key, ni->reason) < 0) {
				free(key);
				return -ENOMEM;
			}
			free(key);
			if (more) {
				free(*summary);
				*summary = more;
			}
		}
	}
	return 0;
}
