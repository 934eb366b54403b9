// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz-gen.c - genl-test fuzz's messages: a command's valid attribute tree
 * built from the tables of fuzz-spec.c, mutated, with a note of the poison
 * and the attributes not taken that it carries.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "fuzz.h"

/* --- building a message ----------------------------------------------------------- */

/* Note poison, and the first one's description. */
void mark(struct gen *g, const char *fmt, ...)
{
	va_list ap;

	if (!g->poison) {
		va_start(ap, fmt);
		vsnprintf(g->why, sizeof(g->why), fmt, ap);
		va_end(ap);
	}
	g->poison = true;
}

static void mark_nottaken(struct gen *g, const char *what, int type)
{
	if (!g->nottaken)
		snprintf(g->whynot, sizeof(g->whynot), "%s attribute %d", what, type);
	g->nottaken = true;
}

static bool room(struct gen *g, size_t n)
{
	return g->len + NLA_ALIGN(n) + NLA_HDRLEN <= MSG_MAX;
}

/* Start an attribute of @type (flags included); returns its offset. */
size_t put_hdr(struct gen *g, uint16_t type)
{
	struct nlattr *a = (struct nlattr *)(g->buf + g->len);
	size_t off = g->len;

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN;
	g->len += NLA_HDRLEN;
	return off;
}

void put_end(struct gen *g, size_t off)
{
	struct nlattr *a = (struct nlattr *)(g->buf + off);
	size_t n = g->len - off;

	a->nla_len = (uint16_t)(n > 0xffff ? 0xffff : n);
	while (g->len & 3)
		g->buf[g->len++] = 0;
}

void put_data(struct gen *g, uint16_t type, const void *data, size_t n)
{
	size_t off;

	if (!room(g, n))
		return;
	off = put_hdr(g, type);
	memcpy(g->buf + g->len, data, n);
	g->len += n;
	put_end(g, off);
}

void put_int(struct gen *g, uint16_t type, int len, uint64_t v)
{
	uint8_t b[16] = {0};

	/* little endian, as the kernel reads it on x86 */
	memcpy(b, &v, len < 8 ? (size_t)len : 8);
	put_data(g, type, b, (size_t)len);
}

/* A value within @a's valid generation range, or at an edge of its type. */
static uint64_t valid_value(const struct aspec *a)
{
	int64_t v = a->vlo + (int64_t)below((uint32_t)(a->vhi - a->vlo + 1));

	return (uint64_t)v;
}

static uint64_t edge_value(const struct aspec *a)
{
	static const uint64_t edges[] = {0,	     1,		 2,	     0x7f,
					 0x80,	     0xff,	 0x7fffffff, 0x80000000,
					 0xffffffff, 0xfffffffe, ~0ull,	     0x100000000ull};

	return chance(50) ? edges[below(N(edges))] : rnd();
}

/* Does value @v fit @a's policy (its type's width and range)? */
static bool in_range(const struct aspec *a, uint64_t v)
{
	int64_t s;

	switch (a->kind) {
	case K_U8:
		v &= 0xff;
		break;
	case K_U16:
		v &= 0xffff;
		break;
	case K_U32:
		v &= 0xffffffffull;
		break;
	case K_S32:
		s = (int32_t)(uint32_t)v;
		return !a->ranged || (s >= a->lo && s <= a->hi);
	}
	return !a->ranged || ((int64_t)v >= a->lo && (int64_t)v <= a->hi);
}

static void gen_nest(struct gen *g, const struct nspec *n, const struct take *t, int depth,
		     size_t start);

/* An unknown attribute id for @n: 0, past its maxtype, or one its policy does not take. */
int unknown_type(const struct nspec *n)
{
	int t;

	switch (below(3)) {
	case 0:
		return 0;
	case 1:
		return n->maxtype + 1 + (int)below(chance(50) ? 4 : 0x3f00);
	default:
		for (t = 1; t <= n->maxtype; t++)
			if (!pol_find(n, t) && chance(50))
				return t;
		return n->maxtype + 1;
	}
}

/* Emit attribute @a (taken as @t for a nest), valid or mutated. */
void gen_attr(struct gen *g, const struct nspec *in, const struct aspec *a, const struct take *t,
	      int depth)
{
	char s[2 * LNETK_EXPR_MAX];
	uint16_t type = a->type;
	size_t off, n;
	uint64_t v;
	int m = chance((unsigned int)g->mut) ? (int)below(8) : -1;

	/* Flags that change nothing: the byte-order bit is not checked, only masked. */
	if (m == 7 && a->kind != K_NEST) {
		type |= NLA_F_NET_BYTEORDER;
		m = -1;
	}
	switch (a->kind) {
	case K_U8:
	case K_U16:
	case K_U32:
	case K_U64:
	case K_S32:
		v = valid_value(a);
		if (in == &top_nest && a->type == LNETK_A_FLAGS && g->c)
			v = g->c->flags_ok ? (rnd() & g->c->flags_ok) : 0;
		if (m == 0 || m == 1) {
			/* a value at an edge, in range or not */
			v = edge_value(a);
			if (a->type == LNETK_TBF_A_LOAD_MS && in == &tbf_nest && in_range(a, v))
				v = chance(50) ? LNETK_TBF_LOAD_MS_MIN - 1
					       : LNETK_TBF_LOAD_MS_MAX + 1;
			if (!in_range(a, v))
				mark(g, "%s attribute %d out of range", in->name, a->type);
		}
		if (m == 2) {
			/* the wrong size */
			static const int lens[] = {0, 1, 2, 3, 4, 5, 8, 12, 16};
			int len;

			do
				len = lens[below(N(lens))];
			while (len == kind_len[a->kind]);
			mark(g, "%s attribute %d of the wrong size", in->name, a->type);
			put_int(g, type, len, v);
			return;
		}
		if (m == 3) {
			/* nested where flat is expected */
			mark(g, "%s attribute %d flagged nested", in->name, a->type);
			type |= NLA_F_NESTED;
		}
		if (!in_range(a, v) && !(m == 0 || m == 1))
			v = (uint64_t)a->vlo;
		/* the last LNETK_A_FLAGS is the one that counts */
		if (in == &top_nest && a->type == LNETK_A_FLAGS && g->c)
			g->flags_bad = (v & 0xffffffffull & ~(uint64_t)g->c->flags_ok) != 0;
		put_int(g, type, kind_len[a->kind], v);
		return;
	case K_STR:
		n = pool_string(a->pool, s, a->max, g->mut == 0);
		switch (m) {
		case 0: /* empty */
			n = 0;
			s[0] = '\0';
			break;
		case 1: /* random bytes, NUL-terminated, within the limit */
			n = below(chance(80) ? 40 : a->max);
			garbage(s, n, false);
			s[n] = '\0';
			break;
		case 2: /* no NUL */
			if (!n) {
				n = 1 + below(8);
				garbage(s, n, false);
			}
			mark(g, "%s attribute %d: a string without NUL", in->name, a->type);
			put_data(g, type, s, n);
			return;
		case 3: /* too long */
			n = a->max + below(chance(50) ? 3 : 200);
			memset(s, 'a', n);
			s[n] = '\0';
			mark(g, "%s attribute %d: a string too long", in->name, a->type);
			break;
		case 4: /* as long as allowed */
			n = a->max - 1;
			memset(s, chance(50) ? '1' : '[', n);
			s[n] = '\0';
			break;
		case 5: /* nested where flat is expected */
			type |= NLA_F_NESTED;
			mark(g, "%s attribute %d flagged nested", in->name, a->type);
			break;
		case 6: /* trailing bytes after the NUL */
			memset(s + n + 1, 'x', 4);
			put_data(g, type, s, n + 1 + below(4));
			return;
		}
		put_data(g, type, s, n + 1);
		return;
	case K_BIN:
		/* NUMA_A_DIST: NCPT * NCPT u32, or not */
		n = (size_t)below(5) * below(5) * 4;
		if (m == 0)
			n = below(64);
		if (m == 1 || m == 2) {
			n = a->max + 1 + below(64);
			mark(g, "%s attribute %d: too long", in->name, a->type);
		}
		if (m == 3) {
			n = a->max;
		}
		memset(s, 0, sizeof(s));
		if (n > sizeof(s)) {
			uint8_t *big = calloc(1, n);

			for (size_t i = 0; i < n; i += 4)
				big[i] = (uint8_t)below(30);
			put_data(g, type, big, n);
			free(big);
			return;
		}
		for (size_t i = 0; i < n; i += 4)
			s[i] = (char)below(30);
		put_data(g, type, s, n);
		return;
	case K_NEST:
		if (!room(g, 64))
			return;
		if (m == 0) {
			/* flat where nested is expected */
			mark(g, "%s attribute %d not flagged nested", in->name, a->type);
			off = put_hdr(g, type);
		} else {
			off = put_hdr(g, type | NLA_F_NESTED);
		}
		if (m == 1) {
			/* empty */
		} else if (m == 2 || depth > 3) {
			/*
			 * Random bytes: fewer than an attribute header are always
			 * refused (bytes left over); more may parse, or not, and
			 * are not judged.
			 */
			n = chance(50) ? 1 + below(3) : 4 + below(28);
			garbage(s, n, true);
			memcpy(g->buf + g->len, s, n);
			g->len += n;
			if (n < NLA_HDRLEN)
				mark(g, "%s attribute %d holds a few random bytes", in->name,
				     a->type);
		} else {
			gen_nest(g, a->nest, t, depth + 1, off);
		}
		if (m == 3) {
			/* cut short: a last attribute that claims more than the nest holds */
			struct nlattr *x = (struct nlattr *)(g->buf + g->len);

			x->nla_type = 1;
			x->nla_len = (uint16_t)(NLA_HDRLEN + 4 + below(200));
			g->len += NLA_HDRLEN;
			mark(g, "%s attribute %d cut short", in->name, a->type);
		}
		put_end(g, off);
		return;
	}
}

/* The attributes of nest @n that @t takes, valid or mutated, and extra ones. */
static void gen_nest(struct gen *g, const struct nspec *n, const struct take *t, int depth,
		     size_t start)
{
	int order[16], i, k;

	for (i = 0; i < n->npol; i++)
		order[i] = i;
	if (chance(20))
		for (i = n->npol - 1; i > 0; i--) {
			int j = (int)below((uint32_t)i + 1), x = order[i];

			order[i] = order[j];
			order[j] = x;
		}
	for (i = 0; i < n->npol; i++) {
		const struct aspec *a = &n->pol[order[i]];
		bool taken = t && (t->mask & B(a->type)), need = t && (t->need & B(a->type));
		int reps = 1;

		if (!taken)
			continue;
		if (chance((unsigned int)g->mut / 2))
			need = !need; /* a required one missing, an optional one there */
		if (!need && chance(40))
			continue;
		if (a->kind == K_NEST) {
			reps = 1 + (int)below(3);
			if (chance((unsigned int)g->mut / 4))
				reps = 50 + (int)below(800); /* a huge count */
		} else if (chance((unsigned int)g->mut / 3)) {
			reps = 2; /* a duplicate */
		}
		/* a nest's length is 16 bits: stop well before a child could overflow it */
		for (k = 0; k < reps && room(g, 256) && g->len - start < NEST_MAX; k++)
			gen_attr(g, n, a, t->sub, depth);
	}
	/* extras: unknown ids, attributes the command does not take, random ones */
	if (chance((unsigned int)g->mut / 3)) {
		int type = unknown_type(n);

		mark(g, "%s: unknown attribute id %d", n->name, type);
		put_int(g, (uint16_t)type, 4, rnd());
	}
	if (chance((unsigned int)g->mut / 3)) {
		const struct aspec *a = &n->pol[below((uint32_t)n->npol)];
		static const struct take all = {~0u, 0, &all};

		if (!t || !(t->mask & B(a->type)))
			mark_nottaken(g, n->name, a->type);
		gen_attr(g, n, a, &all, depth);
	}
}

/*
 * A top-level attribute.  Of repeated ones the command reads the last (as
 * nla_parse() keeps it), except in a BATCH (@every), which reads each: what
 * is not taken counts only where it is read.
 */
static void top_attr(struct gen *g, const struct aspec *a, const struct take *t, bool every)
{
	g->nottaken = false;
	g->last_top = g->len;
	gen_attr(g, &top_nest, a, t, 0);
	if (g->nottaken) {
		g->nt[a->type] = true;
		snprintf(g->ntwhy[a->type], sizeof(g->ntwhy[0]), "%s", g->whynot);
	} else if (!every) {
		g->nt[a->type] = false;
	}
	g->nottaken = false;
	g->whynot[0] = '\0';
}

/*
 * A message for command @c (NULL: an unknown command) with mutations at
 * @mut percent, into @g.
 */
void gen_message(struct gen *g, const struct cspec *c, int mut, uint32_t seq, int family)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)g->buf;
	struct genlmsghdr *gh;
	int i, k;

	g->len = NLMSG_HDRLEN + GENL_HDRLEN;
	memset(g->buf, 0, g->len);
	g->mut = mut;
	g->poison = g->core = g->nottaken = g->flags_bad = false;
	g->why[0] = g->whynot[0] = '\0';
	g->last_top = 0;
	g->c = c;
	g->cmd = c ? c->cmd
		   : (uint8_t)(chance(30) ? 0 : LNETK_CMD_MAX + 1 + below(255 - LNETK_CMD_MAX));
	nlh->nlmsg_type = (uint16_t)family;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = seq;
	gh = (struct genlmsghdr *)(g->buf + NLMSG_HDRLEN);
	gh->cmd = g->cmd;
	gh->version = LNETK_GENL_VERSION;
	if (!c) {
		g->core = g->poison = true;
		snprintf(g->why, sizeof(g->why), "unknown command %u", g->cmd);
	}
	/* do or dump, and the wrong one now and then */
	if (c) {
		g->dump = (c->ops & OP_DUMP) && (!(c->ops & OP_DO) || chance(50));
		if (chance((unsigned int)mut / 4)) {
			g->dump = !g->dump;
			if ((g->dump && !(c->ops & OP_DUMP)) || (!g->dump && !(c->ops & OP_DO))) {
				g->core = g->poison = true;
				snprintf(g->why, sizeof(g->why), "%s as a %s", c->name,
					 g->dump ? "dump" : "do");
			}
		}
		if (g->dump)
			nlh->nlmsg_flags |= NLM_F_DUMP;
	}
	if (chance((unsigned int)mut / 3)) {
		/*
		 * One of them (ROOT and MATCH together would be DUMP).  The genl
		 * core takes only REQUEST, ACK, ECHO and DUMP, and refuses the
		 * rest before the command is looked up.
		 */
		static const uint16_t extra[] = {NLM_F_ECHO,	NLM_F_MULTI, NLM_F_DUMP_INTR,
						 NLM_F_REPLACE, NLM_F_EXCL,  NLM_F_CREATE,
						 NLM_F_APPEND};
		uint16_t f = extra[below(N(extra))];

		if (g->dump && (f & NLM_F_DUMP))
			f = 0; /* a dump has both already */
		nlh->nlmsg_flags |= f;
		if (f && f != NLM_F_ECHO) {
			g->core = g->poison = true;
			snprintf(g->why, sizeof(g->why), "nlmsg_flags %#x", nlh->nlmsg_flags);
		}
	}
	if (chance((unsigned int)mut / 3))
		gh->version = (uint8_t)rnd();
	if (chance((unsigned int)mut / 10)) {
		gh->reserved = (uint16_t)(1 + below(0xfffe));
		g->core = g->poison = true;
		snprintf(g->why, sizeof(g->why), "reserved header bytes set");
	}
	/* the attributes the command takes */
	memset(g->nt, 0, sizeof(g->nt));
	for (i = 0; c && i < 6 && c->use[i].type; i++) {
		const struct use *u = &c->use[i];
		const struct aspec *a = pol_find(&top_nest, u->type);
		int reps = u->min + (int)below((uint32_t)(u->max - u->min + 1));

		if (chance((unsigned int)mut / 3))
			reps = reps ? 0 : 1; /* missing, or there after all */
		if (u->type == LNETK_A_FLAGS && chance(80))
			reps = 0;
		if (chance((unsigned int)mut / 5))
			reps = reps + 1 + (int)below(u->max > 1 ? 40 : 2); /* many, duplicates */
		for (k = 0; k < reps && room(g, 512); k++)
			top_attr(g, a, u->take, c->cmd == LNETK_CMD_BATCH);
	}
	/* attributes it does not take, and unknown ones */
	if (chance((unsigned int)mut / 3)) {
		const struct aspec *a = &top_nest.pol[below((uint32_t)top_nest.npol)];
		static const struct take all = {~0u, 0, &all};
		bool taken = false;

		for (i = 0; c && i < 6 && c->use[i].type; i++)
			taken |= c->use[i].type == a->type;
		top_attr(g, a, &all, c && c->cmd == LNETK_CMD_BATCH);
		if (!taken) {
			g->nt[a->type] = true;
			snprintf(g->ntwhy[a->type], sizeof(g->ntwhy[0]), "top-level attribute %d",
				 a->type);
		}
	}
	/* what the command does not take, in the top-level attributes it will read */
	for (i = 1; i <= LNETK_A_MAX; i++)
		if (g->nt[i] && !g->nottaken) {
			g->nottaken = true;
			snprintf(g->whynot, sizeof(g->whynot), "%s", g->ntwhy[i]);
		}
	if (chance((unsigned int)mut / 4)) {
		int type = unknown_type(&top_nest);

		g->last_top = g->len;
		mark(g, "%s: unknown attribute id %d", "top-level", type);
		put_int(g, (uint16_t)type, 4, rnd());
	}
	if (g->flags_bad)
		mark_nottaken(g, "LNETK_A_FLAGS bits it does not support in", LNETK_A_FLAGS);
	nlh->nlmsg_len = (uint32_t)g->len;
	/* a message cut inside its last attribute (not in its padding) */
	if (g->last_top && chance((unsigned int)mut / 8)) {
		size_t alen = ((struct nlattr *)(g->buf + g->last_top))->nla_len;
		size_t cut = g->last_top + 1 + below((uint32_t)(alen > 1 ? alen - 1 : 1));

		if (cut > g->last_top && cut < g->last_top + alen && cut < g->len) {
			g->len = cut;
			nlh->nlmsg_len = (uint32_t)cut;
			mark(g, "%s %d", "the message cut inside its last attribute, at byte",
			     (int)cut);
		}
	}
	/* a genl header cut short */
	if (chance((unsigned int)mut / 15)) {
		g->len = NLMSG_HDRLEN + below(GENL_HDRLEN);
		nlh->nlmsg_len = (uint32_t)g->len;
		g->core = g->poison = true;
		snprintf(g->why, sizeof(g->why), "a genl header of %zu bytes",
			 g->len - NLMSG_HDRLEN);
	}
}
