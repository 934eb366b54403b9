// SPDX-License-Identifier: GPL-2.0
/*
 * model.c - the instance: its life, its copy, the object pools its peers
 * and peer NIs come from, the NUMA distance table and the dump cursors.
 * The objects themselves are in model-ni.c (local nets and NIs),
 * model-peer.c (the NID hash, peers and peer NIs) and model-route.c
 * (remote-net records and routes); model-int.h is what they share.
 *
 * Every mutation validates first and changes nothing on refusal.  Memory is
 * taken before anything is linked, so -ENOMEM also leaves the instance as
 * it was.  The UDSP hooks (udsp-flat.c) are called as constructs come and
 * go, so rules reach constructs created after them.
 */
#include "expr.h"
#include "model-int.h"
#include "udsp.h"

/* The NID hash's buckets in a new instance (model-peer.c grows it). */
#define HASH_MIN 256u

/* --- pools --------------------------------------------------------------------
 * A pool's first chunk is 8 KiB, the largest size the kernel's kmalloc
 * serves from its slabs, so a small instance stays small; each next one is
 * twice the last, up to 32 KiB.  Above 8 KiB the kernel gives whole pages,
 * zeroed once, where a slab object is zeroed twice (its slab's new pages,
 * then itself: Debian's kernels initialise on allocation) and a new slab
 * shuffles its free list; 32 KiB (order 3) is the largest the page
 * allocator still counts as cheap to find.  A restore's 50,000 peers then
 * take some 550 allocations.  Under ASan every object is allocated on its
 * own, so that the sanitizer still sees each object's lifetime.
 */
#define POOL_CHUNK     8192u
#define POOL_CHUNK_MAX 32768u

#if defined(__SANITIZE_ADDRESS__)
#define POOL_BYPASS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define POOL_BYPASS 1
#endif
#endif

#ifdef POOL_BYPASS
void *modeli_pool_get(struct lne_pool *p, size_t size)
{
	(void)p;
	return lne_zalloc(size);
}

void modeli_pool_put(struct lne_pool *p, void *obj)
{
	(void)p;
	lne_free(obj);
}
#else
void *modeli_pool_get(struct lne_pool *p, size_t size)
{
	void *obj;

	size = (size + 7) & ~(size_t)7;
	obj = p->free;
	if (obj) {
		memcpy(&p->free, obj, sizeof(p->free));
		memset(obj, 0, size);
		return obj;
	}
	if (!p->next || (size_t)(p->end - p->next) < size) {
		u32 csize = p->chunk ? p->chunk : POOL_CHUNK;
		char *chunk = lne_zalloc(csize);

		if (!chunk && csize > POOL_CHUNK) {
			csize = POOL_CHUNK;
			chunk = lne_zalloc(csize);
		}
		if (!chunk)
			return NULL;
		p->chunk = csize < POOL_CHUNK_MAX ? csize * 2 : csize;
		memcpy(chunk, &p->chunks, sizeof(p->chunks));
		p->chunks = chunk;
		p->next = chunk + 8;
		p->end = chunk + csize;
	}
	obj = p->next; /* zeroed with its chunk */
	p->next += size;
	return obj;
}

void modeli_pool_put(struct lne_pool *p, void *obj)
{
	memcpy(obj, &p->free, sizeof(p->free));
	p->free = obj;
}
#endif

static void pool_release(struct lne_pool *p)
{
	void *chunk, *next;

	for (chunk = p->chunks; chunk; chunk = next) {
		memcpy(&next, chunk, sizeof(next));
		lne_free(chunk);
	}
	memset(p, 0, sizeof(*p));
}

struct lne_inst *lne_inst_new(void)
{
	struct lne_inst *ln = lne_zalloc(sizeof(*ln));
	int g;

	if (!ln)
		return NULL;
	ln->htab = lne_zalloc(HASH_MIN * sizeof(*ln->htab));
	if (!ln->htab) {
		lne_free(ln);
		return NULL;
	}
	ln->hmask = HASH_MIN - 1;
	lne_list_init(&ln->nets);
	lne_list_init(&ln->nis);
	lne_list_init(&ln->rnets);
	lne_list_init(&ln->peers);
	lne_list_init(&ln->routes);
	lne_list_init(&ln->udsp.rules);
	for (g = 0; g < LNE_G__COUNT; g++)
		ln->globals[g] = lne_global_info(g)->def;
	ln->gen = 1;
	ln->next_id = 1;
	return ln;
}

void lne_inst_free(struct lne_inst *ln)
{
	struct lne_route *rt, *rtn;
	struct lne_peer *peer, *pn;
	struct lne_net *net, *nn;

	if (!ln)
		return;
	lne_rule_del_all(ln);
	lne_list_for_each_entry_safe(rt, rtn, &ln->routes, link)
		lne_route_del(ln, rt->rnet->id, &rt->gw->nid, NULL);
	lne_list_for_each_entry_safe(peer, pn, &ln->peers, link)
		lne_peer_del(ln, &peer->primary, NULL);
	lne_list_for_each_entry_safe(net, nn, &ln->nets, link)
		lne_net_del(ln, net->id, NULL);
	lne_free(ln->numa_dist);
	lne_free(ln->htab);
	pool_release(&ln->peer_pool);
	pool_release(&ln->pni_pool);
	lne_free(ln);
}

/* Each rule of @src into @dst, row by row of rule-attrs.h. */
static int copy_rules(const struct lne_inst *src, struct lne_inst *dst)
{
	const struct lne_rule *r;
	int rc = 0, a;

	lne_list_for_each_entry(r, &src->udsp.rules, link) {
		char *t[LNE_RULE_A__COUNT] = {NULL};
		struct lne_rule_conf c;

		lne_rule_conf_init(&c);
		for (a = 0; a < LNE_RULE_A__COUNT; a++)
			switch (lne_rule_desc[a].kind) {
			case LNE_RULE_K_EXPR:
				t[a] = lne_expr_text(lne_rule_expr(r, a));
				if (lne_rule_expr(r, a) && !t[a])
					rc = -ENOMEM;
				*lne_rule_conf_expr(&c, a) = t[a];
				break;
			case LNE_RULE_K_PRIO:
				*lne_rule_conf_prio(&c, a) = lne_rule_num(r, a);
				break;
			}
		if (!rc)
			rc = lne_rule_add(dst, &c, -1, NULL, NULL, NULL);
		for (a = 0; a < LNE_RULE_A__COUNT; a++)
			lne_free(t[a]);
		if (rc)
			return rc;
	}
	return 0;
}

static void copy_pni_state(const struct lne_inst *src, struct lne_inst *dst)
{
	const struct lne_peer_net *pnet;
	const struct lne_peer_ni *pni;
	const struct lne_peer *peer;

	lne_list_for_each_entry(peer, &src->peers, link)
		lne_list_for_each_entry(pnet, &peer->pnets, link)
			lne_list_for_each_entry(pni, &pnet->pnis, pnet_link) {
				struct lne_peer_ni *to = lne_peer_ni_find(dst, &pni->nid);

				if (to) {
					to->health = pni->health;
					to->credits = pni->credits;
					to->discovered = pni->discovered;
					to->ns_down = pni->ns_down;
				}
			}
}

/*
 * The copy re-adds every object, and must give back what the source holds
 * even where a limit set since would refuse it now: a peer with more NIDs
 * than max_interfaces has become, a route to a net that has become local.
 */
struct lne_inst *lne_inst_copy(const struct lne_inst *src)
{
	struct lne_inst *dst = lne_inst_new();
	const struct lne_peer_net *pnet;
	const struct lne_peer_ni *pni;
	const struct lne_route *rt;
	const struct lne_peer *peer;
	const struct lne_ni *ni;
	int rc;

	if (!dst)
		return NULL;
	memcpy(dst->globals, src->globals, sizeof(dst->globals));
	dst->globals[LNE_G_MAX_INTERFACES] = ~0u; /* the source's, once its peers are in */
	rc = lne_numa_set(dst, src->ncpt, src->numa_dist, NULL);
	if (!rc)
		rc = copy_rules(src, dst);
	/*
	 * The constructs come without meeting the rules, whose flattening is
	 * then copied whole: each peer NI meeting 1,000 rules made a copy of
	 * 100,000 of them take seconds.
	 */
	dst->udsp.quiet = true;
	lne_list_for_each_entry(ni, &src->nis, all_link) {
		struct lne_ni_conf c = {.nid = ni->nid,
					.ifname = ni->ifname,
					.cpts = ni->cpts,
					.dev_cpt = ni->dev_cpt,
					.tun = &ni->tun,
					.order = ni->id};
		struct lne_ni *to;

		if (rc)
			break;
		rc = lne_ni_add(dst, &c, NULL);
		to = rc ? NULL : lne_ni_find(dst, &ni->nid);
		if (to) {
			to->up = ni->up;
			to->set_down = ni->set_down;
			to->health = ni->health;
			to->credits = ni->credits;
		}
	}
	lne_inst_reserve(dst, src->npni);
	/* Explicit peers in creation order; routes bring the implicit ones. */
	lne_list_for_each_entry(peer, &src->peers, link) {
		enum lne_peer_got got;
		struct lne_peer *to;

		if (rc)
			break;
		if (peer->implicit)
			continue;
		rc = lne_peer_get(dst, &peer->primary, peer->mr, &to, &got, NULL);
		if (!rc)
			lne_peer_copy_disc(to, peer);
		lne_list_for_each_entry(pnet, &peer->pnets, link)
			lne_list_for_each_entry(pni, &pnet->pnis, pnet_link)
				if (!rc && !lne_nid_equal(&pni->nid, &peer->primary))
					rc = lne_peer_add_nid_to(dst, to, &pni->nid, NULL);
	}
	lne_list_for_each_entry(rt, &src->routes, link)
		if (!rc)
			rc = modeli_route_add(dst, rt->rnet->id, &rt->gw->nid, rt->v, true, NULL);
	dst->globals[LNE_G_MAX_INTERFACES] = src->globals[LNE_G_MAX_INTERFACES];
	dst->udsp.quiet = false;
	if (!rc)
		rc = lne_udsp_copy_flat(dst, src);
	if (rc) {
		lne_inst_free(dst);
		return NULL;
	}
	copy_pni_state(src, dst);
	return dst;
}

/* --- NUMA ---------------------------------------------------------------------- */

int lne_numa_set(struct lne_inst *ln, u16 ncpt, const u32 *dist, struct lne_err *err)
{
	u32 *tab = NULL, max = 0, i;

	if (ncpt > LNE_MAX_CPTS)
		return lne_err_set(err, -EINVAL, "numa", -1, "%u CPTs is above the limit of %u",
				   ncpt, LNE_MAX_CPTS);
	if (ncpt) {
		tab = lne_zalloc((size_t)ncpt * ncpt * sizeof(*tab));
		if (!tab)
			return -ENOMEM;
		for (i = 0; i < (u32)ncpt * ncpt; i++) {
			tab[i] = dist[i];
			if (dist[i] > max)
				max = dist[i];
		}
	}
	lne_free(ln->numa_dist);
	ln->numa_dist = tab;
	ln->ncpt = ncpt;
	ln->numa_max = max;
	lne_changed(ln);
	return 0;
}

u32 lne_numa_distance(const struct lne_inst *ln, s32 a, s32 b)
{
	if (!ln->numa_dist)
		return 0;
	/* A CPT spanning or unknown: the largest distance, as the design says. */
	if (a < 0 || b < 0 || a >= ln->ncpt || b >= ln->ncpt)
		return ln->numa_max;
	return ln->numa_dist[a * ln->ncpt + b];
}

/* --- dump cursors ---------------------------------------------------------------- */

/*
 * Shared by the three creation-ordered lists: resume at c->next while the
 * generation holds, else after the last id returned.
 */
static struct lne_list *cursor_next(const struct lne_inst *ln, struct lne_cursor *c,
				    const struct lne_list *head, size_t link_off, size_t id_off)
{
	struct lne_list *pos;

	if (!c->started)
		pos = head->next;
	else if (c->gen == ln->gen)
		pos = c->next;
	else
		for (pos = head->next; pos != head; pos = pos->next)
			if (*(const u64 *)((const char *)pos - link_off + id_off) > c->key)
				break;
	c->started = true;
	c->gen = ln->gen;
	if (pos == head) {
		c->next = pos;
		return NULL;
	}
	c->key = *(const u64 *)((const char *)pos - link_off + id_off);
	c->next = pos->next;
	return pos;
}

#define CURSOR_NEXT(ln, c, head, type, member) \
	cursor_next(ln, c, head, offsetof(type, member), offsetof(type, id))

struct lne_peer *lne_peer_next(const struct lne_inst *ln, struct lne_cursor *c)
{
	struct lne_list *l = CURSOR_NEXT(ln, c, &ln->peers, struct lne_peer, link);

	return l ? lne_list_entry(l, struct lne_peer, link) : NULL;
}

struct lne_ni *lne_ni_next(const struct lne_inst *ln, struct lne_cursor *c)
{
	struct lne_list *l = CURSOR_NEXT(ln, c, &ln->nis, struct lne_ni, all_link);

	return l ? lne_list_entry(l, struct lne_ni, all_link) : NULL;
}

struct lne_route *lne_route_next(const struct lne_inst *ln, struct lne_cursor *c)
{
	struct lne_list *l = CURSOR_NEXT(ln, c, &ln->routes, struct lne_route, link);

	return l ? lne_list_entry(l, struct lne_route, link) : NULL;
}

struct lne_rule *lne_rule_next(const struct lne_inst *ln, struct lne_cursor *c)
{
	/* Rules are dumped by position; after a change, from the next idx. */
	struct lne_rule *r;
	u32 want = c->started ? (u32)c->key : 0;

	if (c->started && c->gen == ln->gen) {
		struct lne_list *pos = c->next;

		r = pos == &ln->udsp.rules ? NULL : lne_list_entry(pos, struct lne_rule, link);
	} else {
		r = lne_rule_at(ln, want);
	}
	c->started = true;
	c->gen = ln->gen;
	if (!r) {
		c->next = (void *)&ln->udsp.rules;
		return NULL;
	}
	c->key = r->idx + 1;
	c->next = r->link.next;
	return r;
}
