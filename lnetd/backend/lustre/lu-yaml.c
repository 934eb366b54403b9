// SPDX-License-Identifier: GPL-2.0
/*
 * lu-yaml.c - reading lnet.ko's netlink dumps: key tables and the value
 * messages they name (lu-yaml.h has the format).  Nothing in a message is
 * trusted: lengths are checked at each attribute, tables and values nest
 * at most LU_Y_DEPTH deep, a table has at most LU_Y_KEYS keys, a value
 * before any table is an error, a key the table lacks is skipped.
 */
#include "lu-yaml.h"

/* What one message's mapping was built from: freed when @fn returns. */
struct arena {
	void **p;
	size_t n, cap;
	bool failed;
};

static void *aalloc(struct arena *a, size_t size)
{
	void *m;

	if (a->failed)
		return NULL;
	if (a->n == a->cap) {
		void **np = lne_realloc_array(a->p, a->cap ? a->cap * 2 : 16, sizeof(*np));

		if (!np) {
			a->failed = true;
			return NULL;
		}
		a->p = np;
		a->cap = a->cap ? a->cap * 2 : 16;
	}
	m = calloc(1, size ? size : 1);
	if (!m) {
		a->failed = true;
		return NULL;
	}
	a->p[a->n++] = m;
	return m;
}

static void afree(struct arena *a)
{
	size_t i;

	for (i = 0; i < a->n; i++)
		free(a->p[i]);
	free(a->p);
}

/* --- key tables ------------------------------------------------------------- */

static void tab_free(struct lu_ytab *t)
{
	u16 i;

	if (!t)
		return;
	for (i = 1; i <= t->n; i++)
		tab_free(t->keys[i].child);
	free(t->keys);
	free(t);
}

/* A LIST attribute's body: the keys, each a nest numbered by its index. */
static int tab_parse(const u8 *data, size_t len, int depth, struct lu_ytab **out)
{
	struct lu_ytab *t;
	struct lu_attrs it, kit;
	struct lu_attr a, k;
	int rc = 0;

	*out = NULL;
	if (depth > LU_Y_DEPTH)
		return -EPROTO;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->keys = calloc(LU_Y_KEYS + 1, sizeof(*t->keys));
	if (!t->keys) {
		free(t);
		return -ENOMEM;
	}
	lu_attrs_init(&it, data, len);
	while (!rc && lu_attr_next(&it, &a)) {
		struct lu_ykey *key;

		if (!a.type || a.type > LU_Y_KEYS) {
			rc = -EPROTO;
			break;
		}
		key = &t->keys[a.type];
		if (key->name[0] || key->child) {
			rc = -EPROTO; /* a key twice */
			break;
		}
		if (a.type > t->n)
			t->n = a.type;
		lu_attrs_init(&kit, a.data, a.len);
		while (!rc && lu_attr_next(&kit, &k)) {
			const char *s;

			switch (k.type) {
			case LU_YA_VALUE:
				s = lu_attr_str(&k);
				if (!s || strlen(s) >= sizeof(key->name))
					rc = -EPROTO;
				else
					snprintf(key->name, sizeof(key->name), "%s", s);
				break;
			case LU_YA_NLA_TYPE:
				if (!lu_attr_u16(&k, &key->type))
					rc = -EPROTO;
				break;
			case LU_YA_KEY_FORMAT:
				if (!lu_attr_u16(&k, &key->format))
					rc = -EPROTO;
				break;
			case LU_YA_LIST:
				if (key->child)
					rc = -EPROTO;
				else
					rc = tab_parse(k.data, k.len, depth + 1, &key->child);
				break;
			default: /* INDEX, LIST_SIZE: the nest's number says it */
				break;
			}
		}
		if (kit.bad)
			rc = -EPROTO;
	}
	if (it.bad)
		rc = -EPROTO;
	if (rc) {
		tab_free(t);
		return rc;
	}
	*out = t;
	return 0;
}

/* --- values ---------------------------------------------------------------- */

static int scalar(struct arena *ar, const struct lu_attr *a, struct lu_yfield *f)
{
	u8 v8;
	u16 v16;
	u32 v32;
	s64 v64;

	switch (f->type) {
	case LU_NLA_STRING:
	case LU_NLA_NUL_STRING: {
		char *s = aalloc(ar, (size_t)a->len + 1);

		if (!s)
			return -ENOMEM;
		memcpy(s, a->data, a->len);
		f->str = s; /* a NUL inside ends it early: harmless */
		return 0;
	}
	case LU_NLA_FLAG:
		f->num = 1;
		f->num_ok = true;
		return 0;
	case LU_NLA_U8:
	case LU_NLA_S8:
		if (a->len < 1)
			return -EPROTO;
		v8 = a->data[0];
		f->num = f->type == LU_NLA_S8 ? (s64)(s8)v8 : v8;
		break;
	case LU_NLA_U16:
	case LU_NLA_S16:
		if (!lu_attr_u16(a, &v16))
			return -EPROTO;
		f->num = f->type == LU_NLA_S16 ? (s64)(s16)v16 : v16;
		break;
	case LU_NLA_U32:
	case LU_NLA_S32:
		if (!lu_attr_u32(a, &v32))
			return -EPROTO;
		f->num = f->type == LU_NLA_S32 ? (s64)(s32)v32 : v32;
		break;
	case LU_NLA_U64:
	case LU_NLA_S64:
		if (!lu_attr_s64(a, &v64))
			return -EPROTO;
		f->num = v64;
		break;
	default:
		return 0; /* a type this reader has no use for: the field stays bare */
	}
	f->num_ok = true;
	return 0;
}

static int map_parse(struct arena *ar, const u8 *data, size_t len, const struct lu_ytab *t,
		     int depth, struct lu_ymap *m)
{
	struct lu_attrs it;
	struct lu_attr a;
	u32 n = 0;
	int rc = 0;

	m->n = 0;
	m->f = NULL;
	if (depth > LU_Y_DEPTH)
		return -EPROTO;
	lu_attrs_init(&it, data, len);
	while (lu_attr_next(&it, &a))
		n++;
	if (it.bad)
		return -EPROTO;
	if (!n || !t)
		return 0;
	m->f = aalloc(ar, n * sizeof(*m->f));
	if (!m->f)
		return -ENOMEM;
	lu_attrs_init(&it, data, len);
	while (!rc && lu_attr_next(&it, &a)) {
		const struct lu_ykey *key = a.type && a.type <= t->n ? &t->keys[a.type] : NULL;
		struct lu_yfield *f;

		if (!key || !key->name[0])
			continue; /* newer than this table says: skipped, as lnet.ko does */
		f = &m->f[m->n++];
		f->name = key->name;
		f->type = key->type;
		if (key->type == LU_NLA_NESTED) {
			struct lu_attrs items;
			struct lu_attr item;
			u32 k = 0;

			lu_attrs_init(&items, a.data, a.len);
			while (lu_attr_next(&items, &item))
				k++;
			if (items.bad)
				return -EPROTO;
			if (!k)
				continue;
			f->items = aalloc(ar, k * sizeof(*f->items));
			if (!f->items)
				return -ENOMEM;
			lu_attrs_init(&items, a.data, a.len);
			while (!rc && lu_attr_next(&items, &item))
				rc = map_parse(ar, item.data, item.len, key->child, depth + 1,
					       &f->items[f->nitems++]);
		} else {
			rc = scalar(ar, &a, f);
		}
	}
	return rc;
}

void lu_ydump_init(struct lu_ydump *d, int (*fn)(const struct lu_ymap *m, void *arg), void *arg)
{
	memset(d, 0, sizeof(*d));
	d->fn = fn;
	d->arg = arg;
}

void lu_ydump_free(struct lu_ydump *d)
{
	tab_free(d->tab);
	d->tab = NULL;
}

int lu_ydump_feed(struct lu_ydump *d, const u8 *payload, size_t len, u16 flags)
{
	struct arena ar = {0};
	struct lu_ymap m;
	int rc;

	if (d->err)
		return d->err;
	if (flags & NLM_F_CREATE) {
		struct lu_attrs it;
		struct lu_attr a;
		struct lu_ytab *t = NULL;

		lu_attrs_init(&it, payload, len);
		if (!lu_attr_next(&it, &a) || a.type != LU_YA_LIST)
			return d->err = -EPROTO;
		rc = tab_parse(a.data, a.len, 0, &t);
		if (rc)
			return d->err = rc;
		tab_free(d->tab);
		d->tab = t;
		return 0;
	}
	if (!d->tab)
		return d->err = -EPROTO;
	rc = map_parse(&ar, payload, len, d->tab, 0, &m);
	if (ar.failed)
		rc = -ENOMEM;
	if (!rc) {
		d->messages++;
		rc = d->fn ? d->fn(&m, d->arg) : 0;
		if (rc)
			d->err = rc;
	} else {
		d->err = rc;
	}
	afree(&ar);
	return rc;
}

int lu_ydump_cb(const u8 *payload, size_t len, u16 flags, void *arg)
{
	return lu_ydump_feed(arg, payload, len, flags);
}

const struct lu_yfield *lu_yget(const struct lu_ymap *m, const char *name)
{
	u32 i;

	for (i = 0; m && i < m->n; i++)
		if (!strcmp(m->f[i].name, name))
			return &m->f[i];
	return NULL;
}

const struct lu_yfield *lu_yget_in(const struct lu_ymap *m, const char *block, const char *name)
{
	const struct lu_yfield *b = lu_yget(m, block);

	return b && b->nitems ? lu_yget(&b->items[0], name) : NULL;
}
