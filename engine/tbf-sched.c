// SPDX-License-Identifier: GPL-2.0
/*
 * tbf-sched.c - the NRS TBF's scheduler: token buckets, the deadline and
 * fair-share heaps, classes, and the request path (enqueue, dequeue,
 * cancel, reclaim).
 *
 *  - A bucket is kept as its deadline d (when the next token is available),
 *    in ns plus a remainder in units of 1/rate ns, not as a token count.
 *    Serving advances d by exactly 1e9/rate ns; a full bucket is d raised to
 *    now - (depth - 1) tokens' time.  Dequeue then needs no multiplication or
 *    division, and no fraction of a token is ever rounded away.  Only a rate
 *    change converts between units, through the credit in nanotokens
 *    (tokens * 1e9), which the depth bounds below 2^50.
 *  - Whether a class may send (its deadline has passed) and which ready
 *    class goes first are separate questions with separate heaps: a waiting
 *    heap keyed by deadline, and ready heaps (realtime, normal) keyed by a
 *    start-time fair queueing tag.  One heap keyed by deadline cannot do
 *    both: once every class is late, each deadline sits (depth - 2) periods
 *    before now, so the longest periods always come first and a high-rate
 *    class starves.  With the tags, an overloaded service is shared in
 *    proportion to the rates.
 *  - The heaps hold (key, class) pairs, so sifting reads contiguous memory;
 *    a waiting key is d rounded up to a whole ns.  Each heap has room for
 *    every class of its queue, reserved when a class is created, so
 *    activating, re-matching and dequeuing never allocate.
 *  - Classes remember their rate and depth themselves, so an idle class can
 *    re-match lazily (generation counter) and still convert its credit.
 *    Stopping a rule detaches its idle classes (rule = NULL) rather than
 *    keeping the rule alive by reference: the walk is over pointers only.
 */
#include "tbf-int.h"

#define NSEC		 1000000000ull
#define HASH_MAX_BUCKETS (1u << 20)
#define RECLAIM_PER_CALL 2

/* Length of a string of at most @max bytes that need not be NUL-ended. */
static size_t bounded_len(const char *s, size_t max)
{
	size_t n = 0;

	while (n < max && s[n])
		n++;
	return n;
}

/* --- buckets ------------------------------------------------------------------------ */

static void bucket_params(struct lne_tbf_class *c, u32 rate, u32 depth)
{
	u64 lag = (u64)(depth - 1) * NSEC;

	c->rate = rate;
	c->t_ns = (u32)(NSEC / rate);
	c->t_rem = (u32)(NSEC % rate);
	c->lag_ns = lag / rate;
	c->lag_rem = (u32)(lag % rate);
}

/* now - (depth - 1) tokens' time: the deadline of a full bucket. */
static void bucket_floor(const struct lne_tbf_class *c, s64 now, s64 *ns, u32 *frac)
{
	*ns = now - (s64)c->lag_ns - (c->lag_rem ? 1 : 0);
	*frac = c->lag_rem ? c->rate - c->lag_rem : 0;
}

static bool bucket_full(const struct lne_tbf_class *c, s64 now)
{
	u32 frac;
	s64 ns;

	bucket_floor(c, now, &ns, &frac);
	return c->dl < ns || (c->dl == ns && c->dl_frac <= frac);
}

/* Tokens beyond the depth are gone: raise the deadline to the floor. */
static void bucket_fill(struct lne_tbf_class *c, s64 now)
{
	u32 frac;
	s64 ns;

	bucket_floor(c, now, &ns, &frac);
	if (c->dl < ns || (c->dl == ns && c->dl_frac < frac)) {
		c->dl = ns;
		c->dl_frac = frac;
	}
}

static void bucket_take(struct lne_tbf_class *c, s64 now)
{
	bucket_fill(c, now);
	c->dl += c->t_ns;
	c->dl_frac += c->t_rem; /* < 2 * rate <= 2e9: no overflow */
	if (c->dl_frac >= c->rate) {
		c->dl_frac -= c->rate;
		c->dl++;
	}
}

static s64 bucket_key(const struct lne_tbf_class *c)
{
	return c->dl + (c->dl_frac != 0);
}

/*
 * Move the bucket to @rate and @depth at @now, keeping its credit: the
 * distance of the deadline from now, in nanotokens (1e9 per token), is the
 * same before and after.  After bucket_fill() the deadline is at most
 * (depth - 1) tokens behind now and at most one token ahead, so the credit
 * stays below (depth - 1) * 1e9 + rate < 2^51.
 */
static void bucket_convert(struct lne_tbf_class *c, u32 rate, u32 depth, s64 now)
{
	u64 w, q;
	u32 rem;

	bucket_fill(c, now);
	if (c->dl >= now) {
		u64 ahead = (u64)(c->dl - now);

		if (ahead > (u64)c->t_ns + 1) /* only a clock that went back */
			ahead = (u64)c->t_ns + 1;
		w = ahead * c->rate + c->dl_frac;
		bucket_params(c, rate, depth);
		c->dl = now + (s64)(w / rate);
		c->dl_frac = (u32)(w % rate);
		return;
	}
	w = (u64)(now - c->dl) * c->rate - c->dl_frac;
	bucket_params(c, rate, depth);
	q = w / rate;
	rem = (u32)(w % rate);
	c->dl = now - (s64)q - (rem ? 1 : 0);
	c->dl_frac = rem ? rate - rem : 0;
	bucket_fill(c, now);
}

/* --- heaps -------------------------------------------------------------------------- */

static void heap_set(struct heap *h, u32 i, struct heap_slot s)
{
	h->slot[i] = s;
	s.cls->heap_idx = i;
}

/*
 * 4-ary heaps: half the depth of a binary heap, and a node's four children
 * (16 bytes each) share a cache line.  Each level moved writes heap_idx into
 * a class, a likely cache miss, so depth is what costs.
 */
#define HEAP_ARITY 4

static void heap_up(struct heap *h, u32 i)
{
	struct heap_slot s = h->slot[i];

	while (i) {
		u32 parent = (i - 1) / HEAP_ARITY;

		if (h->slot[parent].key <= s.key)
			break;
		heap_set(h, i, h->slot[parent]);
		i = parent;
	}
	heap_set(h, i, s);
}

static void heap_down(struct heap *h, u32 i)
{
	struct heap_slot s = h->slot[i];

	for (;;) {
		u32 first = HEAP_ARITY * i + 1, last = first + HEAP_ARITY, child, k;

		if (first >= h->n)
			break;
		if (last > h->n)
			last = h->n;
		for (child = first, k = first + 1; k < last; k++)
			if (h->slot[k].key < h->slot[child].key)
				child = k;
		if (s.key <= h->slot[child].key)
			break;
		heap_set(h, i, h->slot[child]);
		i = child;
	}
	heap_set(h, i, s);
}

static void heap_push(struct heap *h, struct lne_tbf_class *c, s64 key)
{
	h->slot[h->n] = (struct heap_slot){key, c};
	h->n++;
	heap_up(h, h->n - 1);
}

static void heap_remove(struct heap *h, u32 i)
{
	h->n--;
	if (i == h->n)
		return;
	heap_set(h, i, h->slot[h->n]);
	if (i && h->slot[(i - 1) / HEAP_ARITY].key > h->slot[i].key)
		heap_up(h, i);
	else
		heap_down(h, i);
}

/* Room for @n classes in both heaps, so nothing later needs to allocate. */
static int heap_reserve(struct head *h, u32 n)
{
	struct heap_slot *s;
	u32 cap, i;

	if (n <= h->cap)
		return 0;
	cap = h->cap ? h->cap * 2 : 16;
	while (cap < n)
		cap *= 2;
	for (i = 0; i < NHEAPS; i++) {
		s = lne_realloc_array(h->heap[i].slot, cap, sizeof(*s));
		if (!s)
			return -ENOMEM; /* the others may have grown: harmless */
		h->heap[i].slot = s;
	}
	h->cap = cap;
	return 0;
}

/* --- classes -------------------------------------------------------------------------- */

static u32 mix(u32 h, u32 v)
{
	h ^= v;
	h *= 0x9e3779b1u;
	return h ^ (h >> 15);
}

/* @num: a request's or a class's u32 fields (LNE_TBF_NUMS), in their order. */
static u32 key_hash(u8 mask, const struct lne_nid *nid, const char *jobid, const u32 *num)
{
	u32 h = mask;
	size_t i;

	if (mask & LNE_TBF_NID)
		h = mix(h, lne_nid_hash(nid));
	if (mask & LNE_TBF_JOBID)
		for (i = 0; i < LNE_TBF_JOBID_MAX && jobid[i]; i++)
			h = (h ^ (u8)jobid[i]) * 16777619u;
	for (i = 0; i < LNE_TBF_NFIELDS; i++)
		if ((mask & tbfi_fields[i].bit) && tbfi_fields[i].num >= 0)
			h = mix(h, num[tbfi_fields[i].num]);
	return mix(h, 0x5bd1e995u);
}

u32 tbfi_req_hash(u8 mask, const struct lne_tbf_req *r)
{
	return key_hash(mask, &r->nid, r->jobid, r->num);
}

static bool key_equal(const struct lne_tbf_class *c, const struct lne_tbf_req *r)
{
	u8 m = c->fields;
	size_t i;

	if ((m & LNE_TBF_NID) && !lne_nid_equal(&c->nid, &r->nid))
		return false;
	for (i = 0; i < LNE_TBF_NFIELDS; i++)
		if ((m & tbfi_fields[i].bit) && tbfi_fields[i].num >= 0 &&
		    c->num[tbfi_fields[i].num] != r->num[tbfi_fields[i].num])
			return false;
	if (m & LNE_TBF_JOBID) {
		size_t n = bounded_len(r->jobid, LNE_TBF_JOBID_MAX);

		if (strlen(c->jobid) != n || memcmp(c->jobid, r->jobid, n))
			return false;
	}
	return true;
}

struct lne_tbf_class *tbfi_class_lookup(const struct head *h, u32 hash, const struct lne_tbf_req *r)
{
	struct lne_tbf_class *c = h->bucket[hash & (h->nbuckets - 1)];

	for (; c; c = c->hnext)
		if (c->hash == hash && key_equal(c, r))
			return c;
	return NULL;
}

static void hash_grow(struct head *h)
{
	struct lne_tbf_class **nb, *c, *next;
	u32 n = h->nbuckets * 2, i;

	if (h->nclasses <= h->nbuckets || h->nbuckets >= HASH_MAX_BUCKETS)
		return;
	nb = lne_zalloc(n * sizeof(*nb));
	if (!nb)
		return; /* longer chains, nothing worse */
	for (i = 0; i < h->nbuckets; i++) {
		for (c = h->bucket[i]; c; c = next) {
			next = c->hnext;
			c->hnext = nb[c->hash & (n - 1)];
			nb[c->hash & (n - 1)] = c;
		}
	}
	lne_free(h->bucket);
	h->bucket = nb;
	h->nbuckets = n;
}

struct lne_tbf_rule *tbfi_first_match(const struct head *h, const struct lne_tbf_class *c)
{
	struct lne_tbf_rule *r;

	lne_list_for_each_entry(r, &h->rules, link)
		if (tbfi_rule_match(r, c))
			return r;
	return h->deflt; /* not reached: the default rule matches all */
}

static void stats_add(struct lne_tbf_class *c, u64 queued, u64 enqueued)
{
	c->stats.queued += queued;
	c->stats.enqueued += enqueued;
	c->rule->stats.queued += queued;
	c->rule->stats.enqueued += enqueued;
}

static void throttled(struct lne_tbf_class *c)
{
	c->stats.throttled++;
	c->rule->stats.throttled++;
}

/* Follow the first matching rule; the bucket keeps its credit. */
static void class_rematch(struct head *h, struct lne_tbf_class *c, s64 now)
{
	struct lne_tbf_rule *r = tbfi_first_match(h, c);
	struct heap *ready = &h->heap[r->realtime ? HEAP_RT : HEAP_NORMAL];

	/* A tag earned at another rate or in another heap means nothing here. */
	if (r->rate != c->rate || r->realtime != c->rt) {
		c->vtag_frac = 0;
		if (c->vtag > ready->vtime)
			c->vtag = ready->vtime;
	}
	if (r != c->rule) {
		if (c->rule) {
			c->rule->nclasses--;
			c->rule->stats.queued -= c->stats.queued;
		}
		r->nclasses++;
		r->stats.queued += c->stats.queued;
		c->rule = r;
	}
	bucket_convert(c, r->rate, h->depth, now);
	c->rt = r->realtime;
	c->gen = h->gen;
}

static void class_unhash(struct head *h, struct lne_tbf_class *c)
{
	struct lne_tbf_class **pp = &h->bucket[c->hash & (h->nbuckets - 1)];

	while (*pp != c)
		pp = &(*pp)->hnext;
	*pp = c->hnext;
}

/* Free an idle class. */
static void class_free(struct head *h, struct lne_tbf_class *c)
{
	class_unhash(h, c);
	lne_list_del(&c->link);
	if (c->rule)
		c->rule->nclasses--;
	h->nclasses--;
	h->cgen++;
	lne_free(c);
}

static int class_new(struct lne_tbf *tbf, struct head *h, enum lne_tbf_queue qi, u32 hash,
		     const struct lne_tbf_req *req, s64 now, struct lne_tbf_class **out)
{
	bool evict = h->nclasses >= tbf->max_classes;
	struct lne_tbf_class *c;
	struct lne_tbf_rule *r;
	size_t i;
	int rc;

	if (evict && lne_list_empty(&h->idle))
		return -ENOSPC;
	rc = heap_reserve(h, h->nclasses + 1);
	if (rc)
		return rc;
	c = lne_zalloc(sizeof(*c));
	if (!c)
		return -ENOMEM;
	if (evict)
		class_free(h, lne_list_entry(h->idle.next, struct lne_tbf_class, link));
	c->fields = h->fields;
	c->queue = (u8)qi;
	c->hash = hash;
	if (h->fields & LNE_TBF_NID)
		c->nid = req->nid;
	if (h->fields & LNE_TBF_JOBID)
		memcpy(c->jobid, req->jobid, bounded_len(req->jobid, LNE_TBF_JOBID_MAX));
	for (i = 0; i < LNE_TBF_NFIELDS; i++)
		if ((h->fields & tbfi_fields[i].bit) && tbfi_fields[i].num >= 0)
			c->num[tbfi_fields[i].num] = req->num[tbfi_fields[i].num];
	lne_list_init(&c->fifo);
	r = tbfi_first_match(h, c);
	c->rule = r;
	r->nclasses++;
	c->rt = r->realtime;
	c->gen = h->gen;
	bucket_params(c, r->rate, h->depth);
	bucket_floor(c, now, &c->dl, &c->dl_frac); /* a new class has a full bucket */
	c->idle_since = (u64)now;
	lne_list_add_tail(&c->link, &h->idle);
	c->hnext = h->bucket[hash & (h->nbuckets - 1)];
	h->bucket[hash & (h->nbuckets - 1)] = c;
	h->nclasses++;
	h->cgen++;
	hash_grow(h);
	*out = c;
	return 0;
}

/*
 * Put an active class that is in no heap where it belongs at @now: waiting
 * for its deadline, or ready.  A class that becomes ready starts at the
 * ready heap's virtual time, so it brings no credit from its absence.
 * Returns whether it is ready.
 */
static bool class_place(struct head *h, struct lne_tbf_class *c, s64 now)
{
	u8 which = c->rt ? HEAP_RT : HEAP_NORMAL;
	struct heap *ready = &h->heap[which];
	s64 key = bucket_key(c);

	if (key > now) {
		c->heap = HEAP_WAIT;
		heap_push(&h->heap[HEAP_WAIT], c, key);
		return false;
	}
	if (c->vtag < ready->vtime) {
		c->vtag = ready->vtime;
		c->vtag_frac = 0;
	}
	c->heap = which;
	heap_push(ready, c, c->vtag);
	return true;
}

static void class_activate(struct head *h, struct lne_tbf_class *c, s64 now)
{
	lne_list_del(&c->link);
	lne_list_add_tail(&c->link, &h->active);
	c->active = 1;
	h->nactive++;
	bucket_fill(c, now);
	if (!class_place(h, c, now))
		throttled(c);
}

static void class_deactivate(struct head *h, struct lne_tbf_class *c, u64 now)
{
	heap_remove(&h->heap[c->heap], c->heap_idx);
	lne_list_del(&c->link);
	lne_list_add_tail(&c->link, &h->idle);
	c->active = 0;
	c->idle_since = now;
	h->nactive--;
}

static bool reclaimable(const struct lne_tbf *tbf, const struct lne_tbf_class *c, u64 now)
{
	return now >= c->idle_since && now - c->idle_since >= tbf->idle_ns &&
	       bucket_full(c, (s64)now);
}

/*
 * Re-match every class with queued requests and rebuild the heaps: run
 * after each change of rules, type or depth.  O(active classes x rules).
 */
void tbfi_head_changed(struct head *h, s64 now)
{
	struct lne_tbf_class *c;
	int i;

	h->gen++;
	for (i = 0; i < NHEAPS; i++)
		h->heap[i].n = 0;
	lne_list_for_each_entry(c, &h->active, link) {
		class_rematch(h, c, now);
		class_place(h, c, now);
	}
}

/* Free every class (none may be active) of @h. */
void tbfi_head_drop_classes(struct head *h)
{
	struct lne_tbf_class *c, *n;
	struct lne_tbf_req *req, *rn;

	lne_list_for_each_entry_safe(c, n, &h->active, link) {
		lne_list_for_each_entry_safe(req, rn, &c->fifo, link) {
			lne_list_init(&req->link);
			req->cls = NULL;
		}
		lne_list_init(&c->fifo);
		class_deactivate(h, c, 0);
	}
	h->queued = 0;
	lne_list_for_each_entry_safe(c, n, &h->idle, link)
		class_free(h, c);
}

/* --- the request path ----------------------------------------------------------------- */

int lne_tbf_enqueue(struct lne_tbf *tbf, struct lne_tbf_req *req, enum lne_tbf_queue qi, u64 now)
{
	struct head *h = &tbf->q[qi];
	struct lne_tbf_class *c;
	int i, rc;
	u32 hash;

	/* Opportunistic reclaim keeps memory near the working set. */
	for (i = 0; i < RECLAIM_PER_CALL && !lne_list_empty(&h->idle); i++) {
		c = lne_list_entry(h->idle.next, struct lne_tbf_class, link);
		if (!reclaimable(tbf, c, now))
			break;
		class_free(h, c);
	}
	hash = tbfi_req_hash(h->fields, req);
	c = tbfi_class_lookup(h, hash, req);
	if (!c) {
		rc = class_new(tbf, h, qi, hash, req, (s64)now, &c);
		if (rc)
			return rc;
	} else if (!c->rule || c->gen != h->gen) {
		class_rematch(h, c, (s64)now);
	}
	if (!c->active)
		class_activate(h, c, (s64)now);
	lne_list_add_tail(&req->link, &c->fifo);
	req->cls = c;
	req->enqueued = now;
	stats_add(c, 1, 1);
	h->queued++;
	return 0;
}

/* Advance @c's fair-share tag by one period, exactly. */
static void vtag_advance(struct lne_tbf_class *c)
{
	c->vtag += c->t_ns;
	c->vtag_frac += c->t_rem;
	if (c->vtag_frac >= c->rate) {
		c->vtag_frac -= c->rate;
		c->vtag++;
	}
}

struct lne_tbf_req *lne_tbf_dequeue_queue(struct lne_tbf *tbf, enum lne_tbf_queue qi, u64 now,
					  u64 *next)
{
	struct head *h = &tbf->q[qi];
	struct heap *wait = &h->heap[HEAP_WAIT], *ready;
	struct lne_tbf_class *c;
	struct lne_tbf_req *req;
	u64 wait_ns;
	s64 key;

	/* Classes whose token has come are ready. */
	while (wait->n && wait->slot[0].key <= (s64)now) {
		c = wait->slot[0].cls;
		heap_remove(wait, 0);
		class_place(h, c, (s64)now);
	}
	ready = h->heap[HEAP_RT].n ? &h->heap[HEAP_RT] : &h->heap[HEAP_NORMAL];
	if (!ready->n) {
		*next = wait->n ? (u64)wait->slot[0].key : LNE_TBF_NEVER;
		return NULL;
	}
	c = ready->slot[0].cls;
	req = lne_list_entry(c->fifo.next, struct lne_tbf_req, link);
	lne_list_del(&req->link);
	req->cls = NULL;
	bucket_take(c, (s64)now);
	ready->vtime = c->vtag;
	vtag_advance(c);
	wait_ns = now > req->enqueued ? now - req->enqueued : 0;
	c->stats.dispatched++;
	c->stats.wait_ns += wait_ns;
	c->rule->stats.dispatched++;
	c->rule->stats.wait_ns += wait_ns;
	stats_add(c, (u64)-1, 0);
	h->queued--;
	if (lne_list_empty(&c->fifo)) {
		class_deactivate(h, c, now);
		return req;
	}
	key = bucket_key(c);
	if (key > (s64)now) {
		/* The next request is at the head with no token. */
		heap_remove(ready, 0);
		c->heap = HEAP_WAIT;
		heap_push(wait, c, key);
		throttled(c);
	} else {
		ready->slot[0].key = c->vtag;
		heap_down(ready, 0);
	}
	return req;
}

struct lne_tbf_req *lne_tbf_dequeue(struct lne_tbf *tbf, u64 now, u64 *next)
{
	struct lne_tbf_req *req;
	u64 next_hp, next_reg;

	req = lne_tbf_dequeue_queue(tbf, LNE_TBF_HP, now, &next_hp);
	if (req)
		return req;
	req = lne_tbf_dequeue_queue(tbf, LNE_TBF_REG, now, &next_reg);
	if (req)
		return req;
	*next = next_hp < next_reg ? next_hp : next_reg;
	return NULL;
}

void lne_tbf_cancel(struct lne_tbf *tbf, struct lne_tbf_req *req, u64 now)
{
	struct lne_tbf_class *c = req->cls;
	struct head *h;

	if (!c)
		return;
	h = &tbf->q[c->queue];
	lne_list_del(&req->link);
	req->cls = NULL;
	stats_add(c, (u64)-1, 0);
	h->queued--;
	if (lne_list_empty(&c->fifo))
		class_deactivate(h, c, now);
}

u32 lne_tbf_reclaim(struct lne_tbf *tbf, u64 now)
{
	struct lne_tbf_class *c, *n;
	u32 freed = 0;
	int i;

	for (i = 0; i < LNE_TBF_NQUEUES; i++) {
		lne_list_for_each_entry_safe(c, n, &tbf->q[i].idle, link) {
			if (!reclaimable(tbf, c, now))
				continue;
			class_free(&tbf->q[i], c);
			freed++;
		}
	}
	return freed;
}
