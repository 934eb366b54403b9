// SPDX-License-Identifier: GPL-2.0
/*
 * node-svc.c - services on a node (node-svc.h): requests on a bound portal
 * go through the service's TBF policy, then its handler, then their answer.
 */
#include "node-svc.h"
#include "node-int.h"

/* --- the engine's own policy ops: an lne_tbf at the caller's clock -------------------- */

static int tbf_enqueue(void *p, struct lne_tbf_req *r, bool hp, u64 now)
{
	return lne_tbf_enqueue(p, r, hp ? LNE_TBF_HP : LNE_TBF_REG, now);
}

static struct lne_tbf_req *tbf_dequeue(void *p, u64 now, u64 *next)
{
	return lne_tbf_dequeue(p, now, next);
}

static void tbf_cancel(void *p, struct lne_tbf_req *r, u64 now)
{
	lne_tbf_cancel(p, r, now);
}

const struct lne_svc_policy_ops lne_svc_tbf_ops = {
	.enqueue = tbf_enqueue,
	.dequeue = tbf_dequeue,
	.cancel = tbf_cancel,
};

/* --- the test-request body ------------------------------------------------------------- */

void lne_svc_body_pack(const struct lne_svc_body *b, u8 *out)
{
	size_t n = strnlen(b->jobid, LNE_TBF_JOBID_MAX);

	memset(out, 0, LNE_SVC_BODY);
	lnw_put32(out, LNE_SVC_MAGIC);
	out[4] = LNE_SVC_VERSION & 0xff;
	out[5] = LNE_SVC_VERSION >> 8;
	out[6] = b->hp ? LNE_SVC_F_HP : 0;
	lnw_put32(out + 8, b->opcode);
	lnw_put32(out + 12, b->uid);
	lnw_put32(out + 16, b->gid);
	memcpy(out + 24, b->jobid, n);
}

int lne_svc_body_unpack(const u8 *in, u32 len, struct lne_svc_body *b, struct lne_err *err)
{
	u16 version, flags;
	u32 i;

	memset(b, 0, sizeof(*b));
	if (len < LNE_SVC_BODY)
		return lne_err_set(err, -EINVAL, NULL, -1,
				   "a test request of %u bytes is shorter than its body (%u)", len,
				   LNE_SVC_BODY);
	if (lnw_get32(in, false) != LNE_SVC_MAGIC)
		return lne_err_set(err, -EINVAL, NULL, -1, "a test request without its magic");
	version = (u16)(in[4] | in[5] << 8);
	flags = (u16)(in[6] | in[7] << 8);
	if (version != LNE_SVC_VERSION)
		return lne_err_set(err, -EINVAL, NULL, -1, "a test request of version %u (not %u)",
				   version, LNE_SVC_VERSION);
	if (flags & ~LNE_SVC_F_HP)
		return lne_err_set(err, -EINVAL, NULL, -1, "a test request with unknown flags 0x%x",
				   flags);
	if (lnw_get32(in + 20, false))
		return lne_err_set(err, -EINVAL, NULL, -1,
				   "a test request whose reserved word is not 0");
	for (i = 0; i < LNE_TBF_JOBID_MAX && in[24 + i]; i++)
		if (in[24 + i] < 0x21 || in[24 + i] > 0x7e)
			return lne_err_set(err, -EINVAL, NULL, -1,
					   "a test request's jobid has byte 0x%02x at %u",
					   in[24 + i], i);
	b->hp = flags & LNE_SVC_F_HP;
	b->opcode = lnw_get32(in + 8, false);
	b->uid = lnw_get32(in + 12, false);
	b->gid = lnw_get32(in + 16, false);
	memcpy(b->jobid, in + 24, i);
	return 0;
}

/* --- the registry ---------------------------------------------------------------------- */

static bool name_ok(const char *s)
{
	size_t i;

	for (i = 0; s[i]; i++)
		if (i == LNE_TBF_SERVICE_MAX ||
		    !((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return false;
	return i > 0;
}

struct lne_svc *lne_svc_find(struct lne_node *n, const char *name)
{
	u32 i;

	for (i = 0; i < LNE_SVC_MAX; i++)
		if (n->svc[i] && !strcmp(n->svc[i]->name, name))
			return n->svc[i];
	return NULL;
}

int lne_svc_register(struct lne_node *n, const char *name, u32 portal, lne_svc_fn fn, void *arg,
		     struct lne_err *err)
{
	struct lne_svc *s;
	u32 i, free_at = LNE_SVC_MAX;

	if (!name || !name_ok(name))
		return lne_err_set(err, -EINVAL, name, -1,
				   "a service name is 1 to 31 characters of A-Z, a-z, 0-9 and _");
	if (portal >= LNW_PORTALS || portal == LNW_PORTAL_RESERVED)
		return lne_err_set(err, -EINVAL, NULL, -1,
				   "portal %u is reserved or beyond the last (%u)", portal,
				   LNW_PORTALS - 1);
	for (i = 0; i < LNE_SVC_MAX; i++) {
		if (!n->svc[i]) {
			if (free_at == LNE_SVC_MAX)
				free_at = i;
			continue;
		}
		if (n->svc[i]->portal == portal || !strcmp(n->svc[i]->name, name))
			return lne_err_set(err, -EEXIST, NULL, -1,
					   "portal %u is bound to the service %s",
					   n->svc[i]->portal, n->svc[i]->name);
	}
	if (free_at == LNE_SVC_MAX)
		return lne_err_set(err, -ENOSPC, NULL, -1, "a node serves at most %u services",
				   LNE_SVC_MAX);
	s = lne_zalloc(sizeof(*s));
	if (!s)
		return lne_err_set(err, -ENOMEM, NULL, -1, "out of memory");
	strcpy(s->name, name);
	s->portal = portal;
	s->fn = fn;
	s->arg = arg;
	s->next = LNE_TBF_NEVER;
	lne_list_init(&s->reqs);
	n->svc[free_at] = s;
	return 0;
}

static void req_free(struct lne_svc_req *r)
{
	lne_list_del(&r->link);
	lne_free(r->payload);
	lne_free(r->reply);
	lne_free(r);
}

static u64 now_ns(const struct lne_node *n)
{
	return n->now_ms * 1000000ull;
}

/* Take every queued request of @s back from its policy: they wait in arrival order. */
static void detach(struct lne_node *n, struct lne_svc *s)
{
	struct lne_svc_req *r;

	lne_list_for_each_entry(r, &s->reqs, link)
		if (r->queued) {
			s->ops->cancel(s->policy, &r->tbf, now_ns(n));
			r->queued = false;
		}
	s->ops = NULL;
	s->policy = NULL;
	s->next = LNE_TBF_NEVER;
}

static void svc_free(struct lne_node *n, u32 i)
{
	struct lne_svc *s = n->svc[i];

	if (s->ops)
		detach(n, s);
	while (!lne_list_empty(&s->reqs)) {
		struct lne_svc_req *r = lne_list_entry(s->reqs.next, struct lne_svc_req, link);

		lne_nd_count_drop(n, NULL, r->hdr.type, r->hdr.payload);
		req_free(r);
	}
	lne_free(s);
	n->svc[i] = NULL;
}

void lne_svc_unregister(struct lne_node *n, const char *name)
{
	u32 i;

	for (i = 0; i < LNE_SVC_MAX; i++)
		if (n->svc[i] && !strcmp(n->svc[i]->name, name))
			svc_free(n, i);
}

void lne_nd_svc_fini(struct lne_node *n)
{
	u32 i;

	for (i = 0; i < LNE_SVC_MAX; i++)
		if (n->svc[i])
			svc_free(n, i);
}

/* The test service counts what it serves; the node answers. */
static void test_fn(void *arg, struct lne_svc_req *r)
{
	struct lne_node *n = arg;

	if (r->hdr.type == LNW_GET)
		n->st.test_gets++;
	else
		n->st.test_puts++;
}

static struct lne_svc *test_svc(struct lne_node *n)
{
	struct lne_svc *s = lne_svc_find(n, LNE_SVC_TEST_NAME);

	if (!s && !lne_svc_register(n, LNE_SVC_TEST_NAME, LNE_PORTAL_TEST, test_fn, n, NULL))
		s = lne_svc_find(n, LNE_SVC_TEST_NAME);
	return s;
}

static void run(struct lne_node *n, struct lne_svc *s);

int lne_svc_set_policy(struct lne_node *n, const char *name, const struct lne_svc_policy_ops *ops,
		       void *policy)
{
	struct lne_svc *s = strcmp(name, LNE_SVC_TEST_NAME) ? lne_svc_find(n, name) : test_svc(n);

	if (!s)
		return -ENOENT;
	if (s->ops && s->policy == policy && s->ops == ops)
		return 0;
	if (s->ops)
		detach(n, s);
	s->ops = policy ? ops : NULL;
	s->policy = policy;
	if (s->ops)
		run(n, s);
	return 0;
}

/* --- requests -------------------------------------------------------------------------- */

/* Serve @r: the handler, then the answer on the link it came by. */
static void handle(struct lne_node *n, struct lne_svc *s, struct lne_svc_req *r)
{
	const struct lnw_hdr *h = &r->hdr;
	bool sent = true;

	s->st.queued--;
	s->st.handled++;
	if (s->fn)
		s->fn(s->arg, r);
	if (h->type == LNW_GET) {
		const u8 *z = r->reply ? NULL : lne_nd_zeros(n);
		u32 len = r->reply ? r->reply_len : h->length;

		if (r->reply || z)
			sent = lne_nd_answer(n, r->local, r->peer, h, LNW_REPLY,
					     r->reply ? r->reply : (u8 *)z,
					     len < h->length ? len : h->length, !r->reply);
		r->reply = NULL; /* the answer took it */
	} else if (h->wh_object != LNW_WH_NONE) {
		sent = lne_nd_answer(n, r->local, r->peer, h, LNW_ACK, NULL, 0, false);
	}
	if (!sent)
		s->st.orphaned++;
	req_free(r);
}

/* Queue what waits for the policy, then serve everything it lets out now. */
static void run(struct lne_node *n, struct lne_svc *s)
{
	struct lne_svc_req *r, *tmp;
	struct lne_tbf_req *t;
	u64 now = now_ns(n), next = LNE_TBF_NEVER;

	for (r = lne_list_entry(s->reqs.next, struct lne_svc_req, link); &r->link != &s->reqs;
	     r = tmp) {
		tmp = lne_list_entry(r->link.next, struct lne_svc_req, link);
		if (r->queued)
			continue;
		if (!s->ops) {
			handle(n, s, r); /* no policy: served as it comes */
			continue;
		}
		if (s->ops->enqueue(s->policy, &r->tbf, r->hp, now)) {
			s->st.refused++; /* no class for it: dropped unanswered */
			s->st.queued--;
			lne_nd_count_drop(n, NULL, r->hdr.type, r->hdr.payload);
			req_free(r);
			continue;
		}
		r->queued = true;
	}
	if (!s->ops) {
		s->next = LNE_TBF_NEVER;
		return;
	}
	while ((t = s->ops->dequeue(s->policy, now, &next))) {
		r = lne_container_of(t, struct lne_svc_req, tbf);
		r->queued = false;
		handle(n, s, r);
	}
	s->next = next;
}

struct lne_svc *lne_nd_svc_bound(struct lne_node *n, u32 portal)
{
	u32 i;

	if (portal == LNE_PORTAL_TEST)
		return n->test_service ? test_svc(n) : NULL;
	for (i = 0; i < LNE_SVC_MAX; i++)
		if (n->svc[i] && n->svc[i]->portal == portal)
			return n->svc[i];
	return NULL;
}

void lne_nd_svc_recv(struct lne_node *n, struct lne_svc *s, struct lne_link *l,
		     struct lne_conn_ev *ev)
{
	const struct lnw_hdr *h = &ev->hdr;
	struct lne_svc_body b = {0};
	struct lne_svc_req *r;

	s->st.arrived++;
	if (h->type == LNW_PUT && h->payload >= 4 && ev->payload &&
	    lnw_get32(ev->payload, false) == LNE_SVC_MAGIC &&
	    lne_svc_body_unpack(ev->payload, h->payload, &b, NULL)) {
		s->st.malformed++;
		lne_nd_count_drop(n, l, h->type, h->payload);
		return;
	}
	r = lne_zalloc(sizeof(*r));
	if (!r) {
		s->st.refused++;
		lne_nd_count_drop(n, l, h->type, h->payload);
		return;
	}
	r->svc = s;
	r->local = l->local;
	r->peer = l->peer;
	r->hdr = *h;
	r->payload = ev->payload;
	ev->payload = NULL;
	r->hp = b.hp;
	lne_node_nid(n, h->src_nid, &r->tbf.nid);
	r->tbf.opcode = b.opcode;
	r->tbf.uid = b.uid;
	r->tbf.gid = b.gid;
	memcpy(r->tbf.jobid, b.jobid, sizeof(r->tbf.jobid));
	lne_list_add_tail(&r->link, &s->reqs);
	s->st.queued++;
	run(n, s);
}

void lne_nd_svc_tick(struct lne_node *n)
{
	u32 i;

	for (i = 0; i < LNE_SVC_MAX; i++)
		if (n->svc[i] && (!lne_list_empty(&n->svc[i]->reqs)))
			run(n, n->svc[i]);
}

u64 lne_nd_svc_next_ms(const struct lne_node *n)
{
	u64 best = ~0ull;
	u32 i;

	for (i = 0; i < LNE_SVC_MAX; i++) {
		const struct lne_svc *s = n->svc[i];
		u64 ms;

		if (!s || lne_list_empty(&s->reqs))
			continue;
		/* waiting for a policy: the next tick serves them */
		ms = !s->ops			? n->now_ms
		     : s->next == LNE_TBF_NEVER ? ~0ull
						: (s->next + 999999) / 1000000;
		if (ms < best)
			best = ms;
	}
	return best;
}
