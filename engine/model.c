// SPDX-License-Identifier: GPL-2.0
/*
 * model.c - nets, NIs, peers, peer NIs, routes and the NID hash.
 *
 * Every mutation validates first and changes nothing on refusal.  Memory is
 * taken before anything is linked, so -ENOMEM also leaves the instance as
 * it was.  The UDSP hooks (udsp.c) are called as constructs come and go,
 * so rules reach constructs created after them.
 */
#include "model.h"
#include "expr.h"
#include "text.h"
#include "udsp.h"

#define HASH_MIN 256u

/*
 * The NID tables' hash.  lne_nid_hash() (FNV-1a, a byte at a time) stays
 * as it is for its other users; these tables take a word at a time, since
 * a restore of 100,000 NIDs hashes each of them several times.  Only what
 * lne_nid_equal() compares goes in, so equal NIDs hash equal; the last
 * steps fold the high bits into the low ones the tables index with.
 */
static u32 nid_hash(const struct lne_nid *nid)
{
	u32 h = ((u32)nid->lnd << 24 | (u32)nid->alen << 16 | nid->num) * 0x9e3779b1u, w;
	unsigned int i;

	for (i = 0; i + 4 <= nid->alen; i += 4) {
		memcpy(&w, nid->addr + i, 4);
		h = (h ^ w) * 0x85ebca6bu;
		h ^= h >> 15;
	}
	for (; i < nid->alen; i++)
		h = (h ^ nid->addr[i]) * 0x85ebca6bu;
	h ^= h >> 16;
	h *= 0xc2b2ae35u;
	return h ^ (h >> 13);
}

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
static void *pool_get(struct lne_pool *p, size_t size)
{
	(void)p;
	return lne_zalloc(size);
}

static void pool_put(struct lne_pool *p, void *obj)
{
	(void)p;
	lne_free(obj);
}
#else
static void *pool_get(struct lne_pool *p, size_t size)
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

static void pool_put(struct lne_pool *p, void *obj)
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

static const char *nid_str(const struct lne_nid *nid, char *buf)
{
	lne_nid_format(nid, buf, LNE_NID_STR_MAX);
	return buf;
}

static const char *net_str(lne_net_t net, char *buf)
{
	lne_net_format(net, buf, LNE_NET_STR_MAX);
	return buf;
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

static char *expr_text(const struct lne_expr *e)
{
	char *text;
	int n;

	if (!e)
		return NULL;
	n = lne_expr_format(e, NULL, 0);
	text = lne_zalloc((size_t)n + 1);
	if (text)
		lne_expr_format(e, text, (size_t)n + 1);
	return text;
}

static int copy_rules(const struct lne_inst *src, struct lne_inst *dst)
{
	const struct lne_rule *r;
	int rc = 0;

	lne_list_for_each_entry(r, &src->udsp.rules, link) {
		char *s = expr_text(r->src), *d = expr_text(r->dst), *t = expr_text(r->rte);

		if ((r->src && !s) || (r->dst && !d) || (r->rte && !t))
			rc = -ENOMEM;
		else
			rc = lne_rule_add(dst, s, d, t, r->prio, -1, NULL, NULL, NULL);
		lne_free(s);
		lne_free(d);
		lne_free(t);
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
				}
			}
}

static int route_add(struct lne_inst *ln, lne_net_t net, const struct lne_nid *gw, u32 hops,
		     u32 priority, u32 sensitivity, bool copy, struct lne_err *err);

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
					.tun = &ni->tun};
		struct lne_ni *to;

		if (rc)
			break;
		rc = lne_ni_add(dst, &c, NULL);
		to = rc ? NULL : lne_ni_find(dst, &ni->nid);
		if (to) {
			to->up = ni->up;
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
		lne_list_for_each_entry(pnet, &peer->pnets, link)
			lne_list_for_each_entry(pni, &pnet->pnis, pnet_link)
				if (!rc && !lne_nid_equal(&pni->nid, &peer->primary))
					rc = lne_peer_add_nid_to(dst, to, &pni->nid, NULL);
	}
	lne_list_for_each_entry(rt, &src->routes, link)
		if (!rc)
			rc = route_add(dst, rt->rnet->id, &rt->gw->nid, rt->hops, rt->priority,
				       rt->sensitivity, true, NULL);
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

/* --- remote-net records ---------------------------------------------------- */

struct lne_rnet *lne_rnet_find(const struct lne_inst *ln, lne_net_t id)
{
	struct lne_rnet *rnet;

	lne_list_for_each_entry(rnet, &ln->rnets, link)
		if (rnet->id == id)
			return rnet;
	return NULL;
}

static struct lne_rnet *rnet_get(struct lne_inst *ln, lne_net_t id)
{
	struct lne_rnet *rnet = lne_rnet_find(ln, id);

	if (rnet) {
		rnet->refs++;
		return rnet;
	}
	rnet = lne_zalloc(sizeof(*rnet));
	if (!rnet)
		return NULL;
	rnet->id = id;
	rnet->refs = 1;
	rnet->prio.value = LNE_PRIO_NONE;
	lne_list_init(&rnet->pnis);
	lne_list_init(&rnet->routes);
	lne_list_add_tail(&rnet->link, &ln->rnets);
	lne_udsp_rnet_added(ln, rnet);
	return rnet;
}

static void rnet_put(struct lne_rnet *rnet)
{
	if (--rnet->refs)
		return;
	lne_list_del(&rnet->link);
	lne_free(rnet);
}

/* --- local nets and NIs ---------------------------------------------------- */

struct lne_net *lne_net_find(const struct lne_inst *ln, lne_net_t id)
{
	struct lne_net *net;

	lne_list_for_each_entry(net, &ln->nets, link)
		if (net->id == id)
			return net;
	return NULL;
}

static struct lne_ni **ni_slot(struct lne_inst *ln, const struct lne_nid *nid)
{
	return &ln->ni_htab[nid_hash(nid) % LNE_NI_HASH];
}

/* The local NI with @nid, whose nid_hash() is @h: a peer NID's check reuses its hash. */
static struct lne_ni *ni_find(const struct lne_inst *ln, const struct lne_nid *nid, u32 h)
{
	struct lne_ni *ni;

	/* Every peer NID added is checked against the local NIs: a hash. */
	for (ni = ln->ni_htab[h % LNE_NI_HASH]; ni; ni = ni->hnext)
		if (lne_nid_equal(&ni->nid, nid))
			return ni;
	return NULL;
}

struct lne_ni *lne_ni_find(const struct lne_inst *ln, const struct lne_nid *nid)
{
	return ni_find(ln, nid, nid_hash(nid));
}

static int check_tunables(const struct lne_tunables *t, const char *nid, struct lne_err *err)
{
	const struct lne_tun_desc *d;
	enum lne_tun bad;

	if (!lne_tunables_check(t, &bad))
		return 0;
	d = &lne_tun_desc[bad];
	if (d->max == U32_MAX)
		return lne_err_set(err, -EINVAL, nid, -1, "%s must be at least %u", d->name,
				   d->min);
	return lne_err_set(err, -EINVAL, nid, -1, "%s must be %u to %u", d->name, d->min, d->max);
}

int lne_ni_add(struct lne_inst *ln, const struct lne_ni_conf *c, struct lne_err *err)
{
	char buf[LNE_NID_STR_MAX];
	struct lne_peer_ni *pni;
	struct lne_net *net;
	struct lne_ni *ni;
	bool new_net;
	int rc;

	nid_str(&c->nid, buf);
	if (c->nid.lnd == LNE_LND_LO)
		return lne_err_set(err, -EINVAL, buf, -1,
				   "the loopback NI always exists and cannot be added");
	if (lne_ni_find(ln, &c->nid))
		return lne_err_set(err, -EEXIST, buf, -1, "already a local NI");
	pni = lne_peer_ni_find(ln, &c->nid);
	if (pni) {
		char owner[LNE_NID_STR_MAX];

		return lne_err_set(err, -EEXIST, buf, -1, "already a NID of peer %s",
				   nid_str(&lne_peer_of(pni)->primary, owner));
	}
	if (c->ifname && strlen(c->ifname) >= LNE_IFNAME_MAX)
		return lne_err_set(err, -EINVAL, buf, -1,
				   "interface name '%s' is longer than %d characters", c->ifname,
				   LNE_IFNAME_MAX - 1);
	if (c->dev_cpt != LNE_CPT_ANY && (c->dev_cpt < 0 || c->dev_cpt >= LNE_MAX_CPTS))
		return lne_err_set(err, -EINVAL, buf, -1, "device CPT %d is outside 0..%d",
				   c->dev_cpt, LNE_MAX_CPTS - 1);
	if (c->tun) {
		rc = check_tunables(c->tun, buf, err);
		if (rc)
			return rc;
	}

	ni = lne_zalloc(sizeof(*ni));
	if (!ni)
		return -ENOMEM;
	net = lne_net_find(ln, lne_nid_net(&c->nid));
	new_net = !net;
	if (new_net) {
		net = lne_zalloc(sizeof(*net));
		if (!net)
			goto nomem;
		net->id = lne_nid_net(&c->nid);
		net->prio.value = LNE_PRIO_NONE;
		lne_list_init(&net->nis);
		net->rnet = rnet_get(ln, net->id);
		if (!net->rnet)
			goto nomem;
		net->rnet->local = net;
		lne_list_add_tail(&net->link, &ln->nets);
		lne_udsp_net_added(ln, net);
	}
	ni->net = net;
	ni->nid = c->nid;
	if (c->ifname)
		strcpy(ni->ifname, c->ifname);
	ni->cpts = c->cpts;
	ni->dev_cpt = c->dev_cpt;
	ni->up = true;
	ni->health = LNE_HEALTH_MAX;
	ni->prio.value = LNE_PRIO_NONE;
	if (c->tun)
		ni->tun = *c->tun;
	else
		lne_tunables_default(c->nid.lnd, &ni->tun);
	ni->credits = (s32)ni->tun.credits;
	ni->id = ln->next_id++;
	lne_list_add_tail(&ni->link, &net->nis);
	lne_list_add_tail(&ni->all_link, &ln->nis);
	ni->hnext = *ni_slot(ln, &ni->nid);
	*ni_slot(ln, &ni->nid) = ni;
	net->nni++;
	ln->nni++;
	rc = lne_udsp_ni_added(ln, ni);
	if (rc) {
		lne_ni_del(ln, &ni->nid, NULL);
		return rc;
	}
	lne_changed(ln);
	return 0;
nomem:
	if (new_net && net) {
		if (net->rnet)
			rnet_put(net->rnet);
		lne_free(net);
	}
	lne_free(ni);
	return -ENOMEM;
}

static void net_free(struct lne_net *net)
{
	lne_list_del(&net->link);
	net->rnet->local = NULL;
	rnet_put(net->rnet);
	lne_free(net);
}

int lne_ni_del(struct lne_inst *ln, const struct lne_nid *nid, struct lne_err *err)
{
	struct lne_ni *ni = lne_ni_find(ln, nid), **pp;
	char buf[LNE_NID_STR_MAX];
	struct lne_peer *peer;
	struct lne_net *net;

	if (!ni)
		return lne_err_set(err, -ENOENT, nid_str(nid, buf), -1, "no such local NI");
	net = ni->net;
	lne_udsp_ni_removing(ln, ni);
	/* Non-Multi-Rail peers that kept this NI pick another one. */
	lne_list_for_each_entry(peer, &ln->peers, link)
		if (peer->nmr_src == ni)
			peer->nmr_src = NULL;
	for (pp = ni_slot(ln, &ni->nid); *pp != ni; pp = &(*pp)->hnext)
		;
	*pp = ni->hnext;
	lne_list_del(&ni->link);
	lne_list_del(&ni->all_link);
	net->nni--;
	ln->nni--;
	lne_free(ni);
	if (!net->nni)
		net_free(net);
	lne_changed(ln);
	return 0;
}

int lne_net_del(struct lne_inst *ln, lne_net_t id, struct lne_err *err)
{
	struct lne_net *net = lne_net_find(ln, id);
	char buf[LNE_NET_STR_MAX];

	if (!net)
		return lne_err_set(err, -ENOENT, net_str(id, buf), -1, "no such local net");
	while (net->nni > 1)
		lne_ni_del(ln, &lne_list_entry(net->nis.next, struct lne_ni, link)->nid, NULL);
	return lne_ni_del(ln, &lne_list_entry(net->nis.next, struct lne_ni, link)->nid, NULL);
}

static int check_health(s32 health, const char *what, struct lne_err *err)
{
	if (health < 0 || health > LNE_HEALTH_MAX)
		return lne_err_set(err, -ERANGE, what, -1, "health %d is outside 0..%d", health,
				   LNE_HEALTH_MAX);
	return 0;
}

static struct lne_ni *ni_lookup(const struct lne_inst *ln, const struct lne_nid *nid, char *buf,
				struct lne_err *err)
{
	struct lne_ni *ni = lne_ni_find(ln, nid);

	/* Callers quote @buf in later refusals too: always fill it. */
	nid_str(nid, buf);
	if (!ni)
		lne_err_set(err, -ENOENT, buf, -1, "no such local NI");
	return ni;
}

int lne_ni_set_health(struct lne_inst *ln, const struct lne_nid *nid, s32 health,
		      struct lne_err *err)
{
	char buf[LNE_NID_STR_MAX];
	struct lne_ni *ni = ni_lookup(ln, nid, buf, err);
	int rc;

	if (!ni)
		return -ENOENT;
	rc = check_health(health, buf, err);
	if (rc)
		return rc;
	ni->health = health;
	lne_changed(ln);
	return 0;
}

int lne_ni_set_up(struct lne_inst *ln, const struct lne_nid *nid, bool up, struct lne_err *err)
{
	char buf[LNE_NID_STR_MAX];
	struct lne_ni *ni = ni_lookup(ln, nid, buf, err);

	if (!ni)
		return -ENOENT;
	ni->up = up;
	lne_changed(ln);
	return 0;
}

int lne_ni_set_credits(struct lne_inst *ln, const struct lne_nid *nid, s32 credits,
		       struct lne_err *err)
{
	char buf[LNE_NID_STR_MAX];
	struct lne_ni *ni = ni_lookup(ln, nid, buf, err);

	if (!ni)
		return -ENOENT;
	ni->credits = credits;
	lne_changed(ln);
	return 0;
}

/* --- the NID hash ------------------------------------------------------------ */

static struct lne_peer_ni **hash_slot(const struct lne_inst *ln, const struct lne_nid *nid)
{
	return &ln->htab[nid_hash(nid) & ln->hmask];
}

/*
 * The peer NI with @nid, whose nid_hash() is @h.  Adding a NID looks it up,
 * checks it against the local NIs and links it in: one hash for the three.
 */
static struct lne_peer_ni *pni_find(const struct lne_inst *ln, const struct lne_nid *nid, u32 h)
{
	struct lne_peer_ni *pni;

	for (pni = ln->htab[h & ln->hmask]; pni; pni = pni->hnext)
		if (lne_nid_equal(&pni->nid, nid))
			return pni;
	return NULL;
}

struct lne_peer_ni *lne_peer_ni_find(const struct lne_inst *ln, const struct lne_nid *nid)
{
	return pni_find(ln, nid, nid_hash(nid));
}

/* Move the NID hash to a table of @size buckets; a failure only costs speed. */
static void hash_resize(struct lne_inst *ln, u32 size)
{
	struct lne_peer_ni **old = ln->htab, **tab, *pni, *next;
	u32 i;

	tab = lne_zalloc(size * sizeof(*tab));
	if (!tab)
		return;
	ln->htab = tab;
	for (i = 0; i <= ln->hmask; i++)
		for (pni = old[i]; pni; pni = next) {
			u32 slot = nid_hash(&pni->nid) & (size - 1);

			next = pni->hnext;
			pni->hnext = tab[slot];
			tab[slot] = pni;
		}
	ln->hmask = size - 1;
	lne_free(old);
}

/* Keep the load at most one per bucket. */
static void hash_grow(struct lne_inst *ln)
{
	hash_resize(ln, (ln->hmask + 1) * 2);
}

/*
 * 2^19 buckets, 4 MiB of pointers: the most the module's kzalloc() gives in
 * one piece (a larger request would warn).  Beyond it the table grows as it
 * always did.
 */
#define HASH_RESERVE_MAX (1u << 19)

void lne_inst_reserve(struct lne_inst *ln, u32 more)
{
	u32 want = ln->npni >= HASH_RESERVE_MAX || more > HASH_RESERVE_MAX - ln->npni
			   ? HASH_RESERVE_MAX
			   : ln->npni + more;
	u32 size = ln->hmask + 1;

	while (size < want)
		size *= 2;
	if (size > ln->hmask + 1)
		hash_resize(ln, size);
}

static void hash_del(struct lne_inst *ln, struct lne_peer_ni *pni)
{
	struct lne_peer_ni **pp = hash_slot(ln, &pni->nid);

	while (*pp != pni)
		pp = &(*pp)->hnext;
	*pp = pni->hnext;
}

/* --- peers ------------------------------------------------------------------ */

struct lne_peer *lne_peer_find(const struct lne_inst *ln, const struct lne_nid *primary)
{
	struct lne_peer_ni *pni = lne_peer_ni_find(ln, primary);

	if (!pni || !lne_nid_equal(&lne_peer_of(pni)->primary, primary))
		return NULL;
	return lne_peer_of(pni);
}

/* The refusal of a NID that is @pni's peer's or, without @pni, local. */
static LNE_COLD int nid_taken(const struct lne_nid *nid, const struct lne_peer_ni *pni,
			      struct lne_err *err)
{
	char buf[LNE_NID_STR_MAX], owner[LNE_NID_STR_MAX];

	if (pni)
		return lne_err_set(err, -EEXIST, nid_str(nid, buf), -1, "already a NID of peer %s",
				   nid_str(&lne_peer_of(pni)->primary, owner));
	return lne_err_set(err, -EINVAL, nid_str(nid, buf), -1, "is a local NI, not a peer NID");
}

/* Refuse a NID (hash @h) that is local or some peer's (@pni, found), naming the owner. */
static int nid_free(const struct lne_inst *ln, const struct lne_nid *nid, u32 h,
		    const struct lne_peer_ni *pni, struct lne_err *err)
{
	if (pni || nid->lnd == LNE_LND_LO || ni_find(ln, nid, h))
		return nid_taken(nid, pni, err);
	return 0;
}

static int check_nid_free(const struct lne_inst *ln, const struct lne_nid *nid, u32 h,
			  struct lne_err *err)
{
	return nid_free(ln, nid, h, pni_find(ln, nid, h), err);
}

static struct lne_peer_net *pnet_find(const struct lne_peer *peer, lne_net_t id)
{
	struct lne_peer_net *pnet;

	lne_list_for_each_entry(pnet, &peer->pnets, link)
		if (pnet->rnet->id == id)
			return pnet;
	return NULL;
}

static void pni_unlink(struct lne_inst *ln, struct lne_peer_ni *pni)
{
	struct lne_peer_net *pnet = pni->pnet;
	struct lne_peer *peer = pnet->peer;

	lne_udsp_pni_removing(ln, pni);
	hash_del(ln, pni);
	lne_list_del(&pni->pnet_link);
	lne_list_del(&pni->rnet_link);
	pnet->rnet->npni--;
	ln->npni--;
	peer->npni--;
	if (!--pnet->npni) {
		lne_list_del(&pnet->link);
		rnet_put(pnet->rnet);
		if (pnet != &peer->first_pnet)
			lne_free(pnet);
	}
	/* The peer's own go with it (peer_free). */
	if (pni != &peer->first_pni)
		pool_put(&ln->pni_pool, pni);
}

/*
 * Add @nid (hashing to @h) to @peer; its first (the primary) takes the
 * peer's own peer NI and net.
 */
static int pni_add(struct lne_inst *ln, struct lne_peer *peer, const struct lne_nid *nid, u32 h)
{
	bool first = !peer->npni;
	struct lne_peer_net *pnet = first ? NULL : pnet_find(peer, lne_nid_net(nid));
	struct lne_peer_ni *pni = first ? &peer->first_pni : pool_get(&ln->pni_pool, sizeof(*pni));
	struct lne_peer_ni **slot;
	int rc;

	if (!pni)
		return -ENOMEM;
	if (!pnet) {
		pnet = first ? &peer->first_pnet : lne_zalloc(sizeof(*pnet));
		if (pnet)
			pnet->rnet = rnet_get(ln, lne_nid_net(nid));
		if (!pnet || !pnet->rnet) {
			if (!first) {
				lne_free(pnet);
				pool_put(&ln->pni_pool, pni);
			}
			return -ENOMEM;
		}
		pnet->peer = peer;
		lne_list_init(&pnet->pnis);
		lne_list_add_tail(&pnet->link, &peer->pnets);
	}
	pni->pnet = pnet;
	pni->nid = *nid;
	pni->health = LNE_HEALTH_MAX;
	pni->prio = LNE_PRIO_NONE;
	pni->credits = 8;
	lne_list_add_tail(&pni->pnet_link, &pnet->pnis);
	lne_list_add_tail(&pni->rnet_link, &pnet->rnet->pnis);
	pnet->rnet->npni++;
	pnet->npni++;
	peer->npni++;
	ln->npni++;
	slot = &ln->htab[h & ln->hmask];
	pni->hnext = *slot;
	*slot = pni;
	if (ln->npni > ln->hmask + 1)
		hash_grow(ln);
	rc = lne_udsp_pni_added(ln, pni);
	if (rc)
		pni_unlink(ln, pni);
	return rc;
}

static void peer_free(struct lne_inst *ln, struct lne_peer *peer)
{
	lne_list_del(&peer->link);
	pool_put(&ln->peer_pool, peer);
}

static struct lne_peer *peer_new(struct lne_inst *ln, const struct lne_nid *primary, u32 h, bool mr,
				 bool implicit)
{
	struct lne_peer *peer = pool_get(&ln->peer_pool, sizeof(*peer));

	if (!peer)
		return NULL;
	peer->primary = *primary;
	peer->mr = mr;
	peer->implicit = implicit;
	peer->id = ln->next_id++;
	lne_list_init(&peer->pnets);
	lne_list_add_tail(&peer->link, &ln->peers);
	if (pni_add(ln, peer, primary, h)) {
		peer_free(ln, peer);
		return NULL;
	}
	return peer;
}

int lne_peer_get(struct lne_inst *ln, const struct lne_nid *primary, bool mr, struct lne_peer **out,
		 enum lne_peer_got *got, struct lne_err *err)
{
	/* One lookup tells both whether it is a peer's primary and whether it is taken. */
	u32 h = nid_hash(primary);
	struct lne_peer_ni *pni = pni_find(ln, primary, h);
	struct lne_peer *peer = pni ? lne_peer_of(pni) : NULL;
	int rc;

	if (peer && lne_nid_equal(&peer->primary, primary)) {
		*out = peer;
		*got = LNE_PEER_FOUND;
		if (!peer->implicit)
			return 0;
		/* A route's gateway becomes an explicit peer: no longer implicit. */
		peer->implicit = false;
		peer->mr = mr;
		lne_changed(ln);
		*got = LNE_PEER_ADOPTED;
		return 0;
	}
	rc = nid_free(ln, primary, h, pni, err);
	if (rc)
		return rc;
	peer = peer_new(ln, primary, h, mr, false);
	if (!peer)
		return -ENOMEM;
	lne_changed(ln);
	*out = peer;
	*got = LNE_PEER_MADE;
	return 0;
}

int lne_peer_add(struct lne_inst *ln, const struct lne_nid *primary, bool mr, struct lne_err *err)
{
	enum lne_peer_got got;
	struct lne_peer *peer;
	int rc = lne_peer_get(ln, primary, mr, &peer, &got, err);

	/* An explicit peer with this primary NID: the NID is taken. */
	if (!rc && got == LNE_PEER_FOUND)
		return nid_taken(primary, &peer->first_pni, err);
	return rc;
}

static struct lne_peer *peer_lookup(const struct lne_inst *ln, const struct lne_nid *primary,
				    struct lne_err *err)
{
	struct lne_peer *peer = lne_peer_find(ln, primary);
	char buf[LNE_NID_STR_MAX];

	if (!peer)
		lne_err_set(err, -ENOENT, nid_str(primary, buf), -1,
			    "no peer has this primary NID");
	return peer;
}

static LNE_COLD int too_many_nids(const struct lne_inst *ln, const struct lne_peer *peer,
				  struct lne_err *err)
{
	char buf[LNE_NID_STR_MAX];

	return lne_err_set(err, -E2BIG, nid_str(&peer->primary, buf), -1,
			   "the peer already has max_interfaces (%u) NIDs",
			   ln->globals[LNE_G_MAX_INTERFACES]);
}

int lne_peer_add_nid_to(struct lne_inst *ln, struct lne_peer *peer, const struct lne_nid *nid,
			struct lne_err *err)
{
	u32 h = nid_hash(nid);
	int rc = check_nid_free(ln, nid, h, err);

	if (rc)
		return rc;
	if (peer->npni >= ln->globals[LNE_G_MAX_INTERFACES])
		return too_many_nids(ln, peer, err);
	rc = pni_add(ln, peer, nid, h);
	if (rc)
		return rc;
	lne_changed(ln);
	return 0;
}

int lne_peer_add_nid(struct lne_inst *ln, const struct lne_nid *primary, const struct lne_nid *nid,
		     struct lne_err *err)
{
	struct lne_peer *peer = peer_lookup(ln, primary, err);

	if (!peer)
		return -ENOENT;
	return lne_peer_add_nid_to(ln, peer, nid, err);
}

static int check_not_gateway(const struct lne_peer_ni *pni, struct lne_err *err)
{
	char buf[LNE_NID_STR_MAX];

	if (pni->gw_refs)
		return lne_err_set(err, -EBUSY, nid_str(&pni->nid, buf), -1,
				   "is the gateway of %u route(s); delete them first",
				   pni->gw_refs);
	return 0;
}

int lne_peer_del(struct lne_inst *ln, const struct lne_nid *primary, struct lne_err *err)
{
	struct lne_peer *peer = peer_lookup(ln, primary, err);
	struct lne_peer_net *pnet;
	struct lne_peer_ni *pni;
	int rc;

	if (!peer)
		return -ENOENT;
	lne_list_for_each_entry(pnet, &peer->pnets, link)
		lne_list_for_each_entry(pni, &pnet->pnis, pnet_link) {
			rc = check_not_gateway(pni, err);
			if (rc)
				return rc;
		}
	while (peer->npni) {
		pnet = lne_list_entry(peer->pnets.next, struct lne_peer_net, link);
		pni_unlink(ln, lne_list_entry(pnet->pnis.next, struct lne_peer_ni, pnet_link));
	}
	peer_free(ln, peer);
	lne_changed(ln);
	return 0;
}

int lne_peer_del_nid(struct lne_inst *ln, const struct lne_nid *primary, const struct lne_nid *nid,
		     struct lne_err *err)
{
	struct lne_peer *peer = peer_lookup(ln, primary, err);
	char buf[LNE_NID_STR_MAX], pbuf[LNE_NID_STR_MAX];
	struct lne_peer_ni *pni;
	int rc;

	if (!peer)
		return -ENOENT;
	pni = lne_peer_ni_find(ln, nid);
	if (!pni || lne_peer_of(pni) != peer)
		return lne_err_set(err, -ENOENT, nid_str(nid, buf), -1, "not a NID of peer %s",
				   nid_str(primary, pbuf));
	if (peer->npni == 1)
		return lne_peer_del(ln, primary, err);
	if (lne_nid_equal(nid, primary))
		return lne_err_set(
			err, -EBUSY, nid_str(nid, buf), -1,
			"is the peer's primary NID; delete its other NIDs or the whole peer");
	rc = check_not_gateway(pni, err);
	if (rc)
		return rc;
	pni_unlink(ln, pni);
	lne_changed(ln);
	return 0;
}

static struct lne_peer_ni *pni_lookup(const struct lne_inst *ln, const struct lne_nid *nid,
				      char *buf, struct lne_err *err)
{
	struct lne_peer_ni *pni = lne_peer_ni_find(ln, nid);

	nid_str(nid, buf);
	if (!pni)
		lne_err_set(err, -ENOENT, buf, -1, "no peer has this NID");
	return pni;
}

int lne_peer_ni_set_health(struct lne_inst *ln, const struct lne_nid *nid, s32 health,
			   struct lne_err *err)
{
	char buf[LNE_NID_STR_MAX];
	struct lne_peer_ni *pni = pni_lookup(ln, nid, buf, err);
	int rc;

	if (!pni)
		return -ENOENT;
	rc = check_health(health, buf, err);
	if (rc)
		return rc;
	pni->health = health;
	lne_changed(ln);
	return 0;
}

int lne_peer_ni_set_credits(struct lne_inst *ln, const struct lne_nid *nid, s32 credits,
			    struct lne_err *err)
{
	char buf[LNE_NID_STR_MAX];
	struct lne_peer_ni *pni = pni_lookup(ln, nid, buf, err);

	if (!pni)
		return -ENOENT;
	pni->credits = credits;
	lne_changed(ln);
	return 0;
}

/* --- routes ------------------------------------------------------------------ */

struct lne_route *lne_route_find(const struct lne_inst *ln, lne_net_t net, const struct lne_nid *gw)
{
	struct lne_rnet *rnet = lne_rnet_find(ln, net);
	struct lne_route *rt;

	if (!rnet)
		return NULL;
	lne_list_for_each_entry(rt, &rnet->routes, rnet_link)
		if (lne_nid_equal(&rt->gw->nid, gw))
			return rt;
	return NULL;
}

/* A route; @copy: one the source of a copy holds, to a net that may be local since. */
static int route_add(struct lne_inst *ln, lne_net_t net, const struct lne_nid *gw, u32 hops,
		     u32 priority, u32 sensitivity, bool copy, struct lne_err *err)
{
	char nbuf[LNE_NET_STR_MAX], gbuf[LNE_NID_STR_MAX];
	struct lne_peer_ni *gpni;
	struct lne_peer *implicit = NULL;
	struct lne_route *rt;
	int rc;

	net_str(net, nbuf);
	nid_str(gw, gbuf);
	if (!lne_lnd_name(LNE_NET_LND(net)) || LNE_NET_LND(net) == LNE_LND_LO)
		return lne_err_set(err, -EINVAL, nbuf, -1, "not a net a route can lead to");
	if (!copy && lne_net_find(ln, net))
		return lne_err_set(err, -EEXIST, nbuf, -1,
				   "is a local net; routes lead to remote nets");
	if (lne_nid_net(gw) == net)
		return lne_err_set(err, -EINVAL, gbuf, -1, "a gateway to %s cannot be on %s itself",
				   nbuf, nbuf);
	if (hops < 1 || hops > LNE_HOPS_MAX)
		return lne_err_set(err, -ERANGE, nbuf, -1, "hops %u is outside 1..%u", hops,
				   LNE_HOPS_MAX);
	if (priority > LNE_PRIO_MAX)
		return lne_err_set(err, -ERANGE, nbuf, -1, "route priority %u is above %u",
				   priority, LNE_PRIO_MAX);
	if (lne_route_find(ln, net, gw))
		return lne_err_set(err, -EEXIST, nbuf, -1, "a route through %s exists already",
				   gbuf);
	/* the loopback NI is local too, though it is on no list */
	if (gw->lnd == LNE_LND_LO || lne_ni_find(ln, gw))
		return lne_err_set(err, -EINVAL, gbuf, -1, "is a local NI; a gateway is a peer");

	rt = lne_zalloc(sizeof(*rt));
	if (!rt)
		return -ENOMEM;
	rt->rnet = rnet_get(ln, net);
	if (!rt->rnet) {
		lne_free(rt);
		return -ENOMEM;
	}
	gpni = lne_peer_ni_find(ln, gw);
	if (!gpni) {
		implicit = peer_new(ln, gw, nid_hash(gw), false, true);
		gpni = implicit ? lne_peer_ni_find(ln, gw) : NULL;
		if (!gpni) {
			rnet_put(rt->rnet);
			lne_free(rt);
			return -ENOMEM;
		}
	}
	if (!gpni->gw_refs) {
		rc = lne_udsp_gw_added(ln, gpni);
		if (rc) {
			lne_udsp_gw_removing(ln, gpni);
			if (implicit)
				lne_peer_del(ln, gw, NULL);
			rnet_put(rt->rnet);
			lne_free(rt);
			return rc;
		}
	}
	gpni->gw_refs++;
	rt->gw = gpni;
	rt->hops = hops;
	rt->priority = priority;
	rt->sensitivity = sensitivity;
	rt->id = ln->next_id++;
	lne_list_add_tail(&rt->link, &ln->routes);
	lne_list_add_tail(&rt->rnet_link, &rt->rnet->routes);
	ln->nroute++;
	lne_changed(ln);
	return 0;
}

int lne_route_add(struct lne_inst *ln, lne_net_t net, const struct lne_nid *gw, u32 hops,
		  u32 priority, u32 sensitivity, struct lne_err *err)
{
	return route_add(ln, net, gw, hops, priority, sensitivity, false, err);
}

int lne_route_del(struct lne_inst *ln, lne_net_t net, const struct lne_nid *gw, struct lne_err *err)
{
	struct lne_route *rt = lne_route_find(ln, net, gw);
	char nbuf[LNE_NET_STR_MAX], gbuf[LNE_NID_STR_MAX];
	struct lne_peer_ni *gpni;
	struct lne_peer *peer;

	if (!rt)
		return lne_err_set(err, -ENOENT, net_str(net, nbuf), -1, "no route through %s",
				   nid_str(gw, gbuf));
	gpni = rt->gw;
	ln->nroute--;
	lne_list_del(&rt->link);
	lne_list_del(&rt->rnet_link);
	rnet_put(rt->rnet);
	lne_free(rt);
	if (!--gpni->gw_refs) {
		lne_udsp_gw_removing(ln, gpni);
		peer = lne_peer_of(gpni);
		if (peer->implicit)
			lne_peer_del(ln, &peer->primary, NULL);
	}
	lne_changed(ln);
	return 0;
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
