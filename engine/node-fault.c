// SPDX-License-Identifier: GPL-2.0
/*
 * node-fault.c - fault injection in the node (fault.h): rules, their
 * options as text, and the three places they act (a send that fails with a
 * health error, a silent drop on arrival, a send held back).
 */
#include "fault.h"
#include "node-int.h"
#include "text.h"

static const char *const msg_names[4] = {"ACK", "PUT", "GET", "REPLY"};

/* xorshift64*: the node's own, so that a test's run repeats exactly. */
static u64 rnd(struct lne_node *n, u64 below)
{
	u64 x = n->rng ? n->rng : n->incarnation | 1;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	n->rng = x;
	return below ? (x * 0x2545f4914f6cdd1dull >> 11) % below : 0;
}

/* A NID, or "*" for any; an 8-byte NID's key now, a large one's when the rule is added. */
static int opt_nid(struct lne_nid *nid, u64 *key, const char *v, struct lne_err *err)
{
	memset(nid, 0, sizeof(*nid));
	*key = 0;
	if (!strcmp(v, "*"))
		return 0;
	if (lne_nid_parse(v, nid, err))
		return -EINVAL;
	if (lnw_nid_is4(nid))
		lnw_nid4(nid, key);
	return 0;
}

/* A comma list of names (or, for portals, numbers) into a bit mask. */
static int opt_mask(const char *key, const char *v, const char *const *names, u32 nnames, u32 nmax,
		    u64 *mask, struct lne_err *err)
{
	const char *p = v;

	*mask = 0;
	for (;;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		struct lne_span s = {p, len};
		u32 i, k = nnames;

		if (names) {
			for (i = 0; i < nnames; i++)
				if (names[i] && strlen(names[i]) == len &&
				    !strncmp(names[i], p, len))
					k = i;
		} else if (lne_parse_u32(s, false, nmax - 1, &k)) {
			k = nnames;
		}
		if (k >= nnames || (!names && k >= nmax))
			return lne_err_set(err, -EINVAL, key, (int)(p - v), "'%.*s' is not a %s",
					   (int)len, p, key);
		*mask |= 1ull << k;
		if (!end)
			return 0;
		p = end + 1;
	}
}

int lne_fault_opt(struct lne_fault_attr *a, const char *key, const char *value, struct lne_err *err)
{
	const char *hs_names[LNE_HS__COUNT];
	struct lne_span s = {value, strlen(value)};
	u64 mask;
	u32 *num = NULL, max = LNE_FAULT_PERIOD_MAX;
	int i, rc;

	if (!strcmp(key, "source"))
		return opt_nid(&a->src_nid, &a->src, value, err);
	if (!strcmp(key, "dest"))
		return opt_nid(&a->dst_nid, &a->dst, value, err);
	if (!strcmp(key, "portal"))
		return opt_mask(key, value, NULL, LNW_PORTALS, LNW_PORTALS, &a->portal_mask, err);
	if (!strcmp(key, "message")) {
		rc = opt_mask(key, value, msg_names, 4, 4, &mask, err);
		a->msg_mask = (u32)mask;
		return rc;
	}
	if (!strcmp(key, "health_error")) {
		for (i = 0; i < LNE_HS__COUNT; i++)
			hs_names[i] = i ? lne_hstatus_name(i) : NULL;
		rc = opt_mask(key, value, hs_names, LNE_HS__COUNT, LNE_HS__COUNT, &mask, err);
		a->health_mask = (u32)mask;
		return rc;
	}
	if (!strcmp(key, "rate")) {
		num = &a->rate;
		max = LNE_FAULT_RATE_MAX;
	} else if (!strcmp(key, "interval")) {
		num = &a->interval;
	} else if (!strcmp(key, "latency")) {
		num = &a->latency;
	} else {
		return lne_err_set(err, -EINVAL, key, -1,
				   "no such fault option: say source, dest, rate, interval, "
				   "latency, portal, message or health_error");
	}
	rc = lne_parse_u32(s, false, max, num);
	if (rc || !*num)
		return lne_err_set(err, rc == -ERANGE ? -ERANGE : -EINVAL, key, -1,
				   "'%s' is not a number from 1 to %u", value, max);
	return 0;
}

static int fault_check(const struct lne_fault_attr *a, struct lne_err *err)
{
	if (!a->rate == !a->interval)
		return lne_err_set(err, -EINVAL, "rate", -1,
				   "give a rate or an interval, not both and not neither");
	if (a->delay && !a->latency)
		return lne_err_set(err, -EINVAL, "latency", -1, "a delay rule needs a latency");
	if (!a->delay && a->latency)
		return lne_err_set(err, -EINVAL, "latency", -1, "only a delay rule has a latency");
	if (a->delay && a->health_mask)
		return lne_err_set(err, -EINVAL, "health_error", -1,
				   "only a drop rule simulates a health error");
	return 0;
}

int lne_fault_add(struct lne_node *n, const struct lne_fault_attr *a, struct lne_err *err)
{
	struct lne_fault *f, **pp;
	int count = 0, rc = fault_check(a, err);

	if (rc)
		return rc;
	for (pp = &n->faults; *pp; pp = &(*pp)->next)
		count++;
	if (count >= LNE_FAULT_RULES_MAX)
		return lne_err_set(err, -ENOSPC, NULL, -1, "%d fault rules are the most",
				   LNE_FAULT_RULES_MAX);
	f = lne_zalloc(sizeof(*f));
	if (!f)
		return lne_err_set(err, -ENOMEM, NULL, -1, "out of memory");
	f->a = *a;
	/* a large NID is keyed in the node's table, as the messages that name it are */
	if ((a->src_nid.alen && lne_node_key(n, &a->src_nid, &f->a.src)) ||
	    (a->dst_nid.alen && lne_node_key(n, &a->dst_nid, &f->a.dst))) {
		lne_free(f);
		return lne_err_set(err, -EINVAL, NULL, -1, "a NID no message can carry");
	}
	f->id = ++n->fault_ids;
	f->fire_at = a->rate ? rnd(n, a->rate) : 0;
	f->window_ms = n->now_ms;
	f->due_ms = n->now_ms + (a->interval ? rnd(n, a->interval) * 1000 : 0);
	*pp = f;
	return (int)f->id;
}

int lne_fault_del(struct lne_node *n, bool delay, const struct lne_nid *src,
		  const struct lne_nid *dst, bool all)
{
	struct lne_fault **pp = &n->faults, *f;
	int gone = 0;

	while ((f = *pp)) {
		if (f->a.delay == delay && (all || ((!src || lne_nid_equal(&f->a.src_nid, src)) &&
						    (!dst || lne_nid_equal(&f->a.dst_nid, dst))))) {
			*pp = f->next;
			lne_free(f);
			gone++;
			continue;
		}
		pp = &f->next;
	}
	return gone;
}

void lne_fault_reset(struct lne_node *n, bool delay)
{
	struct lne_fault *f;

	for (f = n->faults; f; f = f->next)
		if (f->a.delay == delay)
			memset(&f->st, 0, sizeof(f->st));
}

int lne_fault_each(const struct lne_node *n, bool delay,
		   int (*fn)(void *arg, const struct lne_fault *f), void *arg)
{
	const struct lne_fault *f;
	int rc = 0;

	for (f = n->faults; f && rc >= 0; f = f->next)
		if (f->a.delay == delay)
			rc = fn(arg, f);
	return rc;
}

static void mask_text(struct lne_sb *sb, u64 mask, const char *const *names, u32 count)
{
	u32 i;

	for (i = 0; i < count; i++)
		if (mask & 1ull << i) {
			if (sb->len)
				lne_sb_putc(sb, ',');
			if (names)
				lne_sb_puts(sb, names[i]);
			else
				lne_sb_putu(sb, i);
		}
}

int lne_fault_attr_each(const struct lne_fault_attr *a,
			int (*fn)(void *arg, const char *key, const char *value), void *arg)
{
	const char *hs_names[LNE_HS__COUNT];
	char buf[LNW_PORTALS * 3 + 16];
	struct lne_sb sb;
	int rc = 0, i;

	for (i = 0; i < LNE_HS__COUNT; i++)
		hs_names[i] = lne_hstatus_name(i);
	for (i = 0; i < 8 && rc >= 0; i++) {
		static const char *const keys[] = {"source",  "dest",	"rate",	   "interval",
						   "latency", "portal", "message", "health_error"};
		const struct lne_nid *nid = i == 0 ? &a->src_nid : &a->dst_nid;
		u32 num = i == 2 ? a->rate : i == 3 ? a->interval : a->latency;

		lne_sb_init(&sb, buf, sizeof(buf));
		if (i < 2) {
			if (nid->alen)
				lne_nid_format(nid, buf, sizeof(buf));
			else
				lne_sb_puts(&sb, "*");
		} else if (i < 5) {
			if (!num)
				continue;
			lne_sb_putu(&sb, num);
		} else if (i == 5) {
			mask_text(&sb, a->portal_mask, NULL, LNW_PORTALS);
		} else if (i == 6) {
			mask_text(&sb, a->msg_mask, msg_names, 4);
		} else {
			mask_text(&sb, a->health_mask, hs_names, LNE_HS__COUNT);
		}
		if (i >= 5 && !sb.len)
			continue;
		rc = fn(arg, keys[i], buf);
	}
	return rc;
}

/* --- where rules act --------------------------------------------------- */

static bool matches(const struct lne_fault *f, u64 src, u64 dst, u32 type, u32 portal)
{
	const struct lne_fault_attr *a = &f->a;

	if ((a->src && a->src != src) || (a->dst && a->dst != dst))
		return false;
	if (a->msg_mask && (type > LNW_REPLY || !(a->msg_mask & 1u << type)))
		return false;
	/* a portal names requests: an ACK or a REPLY has none, as upstream has it */
	if (a->portal_mask && ((type != LNW_PUT && type != LNW_GET) || portal >= LNW_PORTALS ||
			       !(a->portal_mask & 1ull << portal)))
		return false;
	return true;
}

/* Whether a matching rule fires for this message (its counters move). */
static bool fires(struct lne_node *n, struct lne_fault *f, u32 type)
{
	bool fire;

	f->st.count++;
	if (f->a.rate) {
		fire = f->st.count - 1 == f->fire_at;
		if (f->st.count % f->a.rate == 0)
			f->fire_at = f->st.count + rnd(n, f->a.rate);
	} else {
		fire = n->now_ms >= f->due_ms;
		if (fire) {
			u64 period = (u64)f->a.interval * 1000;

			if (n->now_ms >= f->window_ms + period)
				f->window_ms += (n->now_ms - f->window_ms) / period * period;
			f->window_ms += period;
			f->due_ms = f->window_ms + rnd(n, f->a.interval) * 1000;
		}
	}
	if (fire) {
		f->st.hit++;
		if (type <= LNW_REPLY)
			f->st.type[type]++;
	}
	return fire;
}

/* The status a firing rule simulates: one of its mask's, in turn. */
static u8 pick_status(struct lne_fault *f)
{
	u32 bits[LNE_HS__COUNT], nb = 0, i;

	for (i = 1; i < LNE_HS__COUNT; i++)
		if (f->a.health_mask & 1u << i)
			bits[nb++] = i;
	return (u8)bits[f->st.hit % nb];
}

bool lne_nd_fault_send(struct lne_node *n, struct lne_msg *m, u64 src)
{
	struct lne_fault *f;

	if (m->forward)
		return false;
	for (f = n->faults; f; f = f->next)
		if (!f->a.delay && f->a.health_mask &&
		    matches(f, src, m->hdr.dst_nid, m->hdr.type, m->hdr.portal) &&
		    fires(n, f, m->hdr.type)) {
			m->fault_hs = pick_status(f);
			return true;
		}
	return false;
}

bool lne_nd_fault_recv(struct lne_node *n, const struct lnw_hdr *h)
{
	struct lne_fault *f;

	for (f = n->faults; f; f = f->next)
		if (!f->a.delay && !f->a.health_mask &&
		    matches(f, h->src_nid, h->dst_nid, h->type, h->portal) && fires(n, f, h->type))
			return true;
	return false;
}

/* A delayed send is held before its path is chosen: a source rule names this node. */
static bool local_nid(struct lne_node *n, u64 nid4)
{
	struct lne_nid nid;

	lne_node_nid(n, nid4, &nid);
	return lne_ni_find(n->ln, &nid) != NULL;
}

bool lne_nd_fault_delay(struct lne_node *n, struct lne_msg *m)
{
	struct lne_fault *f;

	if (m->delayed || m->forward)
		return false;
	for (f = n->faults; f; f = f->next)
		if (f->a.delay && (!f->a.src || local_nid(n, f->a.src)) &&
		    matches(f, f->a.src, m->target, m->hdr.type, m->hdr.portal) &&
		    fires(n, f, m->hdr.type)) {
			struct lne_msg **pp = &n->delayq;

			m->delayed = true;
			m->release_ms = n->now_ms + (u64)f->a.latency * 1000;
			while (*pp)
				pp = &(*pp)->next;
			m->next = NULL;
			*pp = m;
			return true;
		}
	return false;
}

void lne_nd_fault_tick(struct lne_node *n)
{
	struct lne_msg **pp = &n->delayq, *m;

	while ((m = *pp)) {
		if (m->release_ms > n->now_ms) {
			pp = &m->next;
			continue;
		}
		*pp = m->next;
		m->next = NULL;
		lne_nd_dispatch(n, m);
		pp = &n->delayq; /* dispatch may have changed the queue */
	}
}

u64 lne_nd_fault_deadline(const struct lne_node *n)
{
	const struct lne_msg *m;
	u64 best = ~0ull;

	for (m = n->delayq; m; m = m->next)
		if (m->release_ms < best)
			best = m->release_ms;
	return best;
}

struct lne_msg *lne_nd_fault_fini(struct lne_node *n)
{
	struct lne_msg *q = n->delayq;
	struct lne_fault *f;

	while ((f = n->faults)) {
		n->faults = f->next;
		lne_free(f);
	}
	n->delayq = NULL;
	return q;
}
