/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lu-yaml.h - lnet.ko's "YAML over netlink" (INTERFACES.md §1.1), both
 * ways, without its userspace library.
 *
 * Requests are nested lists of scalars: a mapping "key: value" is a VALUE
 * attribute holding the key, then a VALUE (string), an INT_VALUE (s64) or
 * a nested LIST; a sequence is a LIST of LIST items.  The kernel matches
 * keys by their text.
 *
 * A dump answers with a key table first (a message flagged NLM_F_CREATE):
 * per key its index, name, format and netlink type, and for a nested key
 * the table of its children.  The messages after it number their
 * attributes by that table; a nested attribute holds items (one nested
 * attribute each, whatever its number), each a mapping by the child
 * table.  lu_ydump turns each message into such a mapping (struct
 * lu_ymap), names from the table, values from the message, every length
 * and the depth checked: the key table and the values are hostile input.
 */
#ifndef LU_YAML_H
#define LU_YAML_H

#include "lu-nl.h"

/* The scalar attributes (lnet.ko's uapi lnet-nl.h). */
enum {
	LU_YA_LIST = 1,
	LU_YA_LIST_SIZE = 2,
	LU_YA_INDEX = 3,
	LU_YA_NLA_TYPE = 4,
	LU_YA_VALUE = 5,
	LU_YA_INT_VALUE = 6,
	LU_YA_KEY_FORMAT = 7,
};

/* The netlink types a key table names (the kernel's enum of policy types). */
enum {
	LU_NLA_U8 = 1,
	LU_NLA_U16 = 2,
	LU_NLA_U32 = 3,
	LU_NLA_U64 = 4,
	LU_NLA_STRING = 5,
	LU_NLA_FLAG = 6,
	LU_NLA_NESTED = 8,
	LU_NLA_NUL_STRING = 10,
	LU_NLA_S8 = 12,
	LU_NLA_S16 = 13,
	LU_NLA_S32 = 14,
	LU_NLA_S64 = 15,
};

#define LU_Y_DEPTH 8   /* nesting a table or a value may have */
#define LU_Y_KEYS  256 /* keys a table may have */

struct lu_ymap;

/* One field of a mapping: a scalar, or items (each a mapping). */
struct lu_yfield {
	const char *name;
	u16 type;    /* LU_NLA_* the table gave */
	bool num_ok; /* .num holds a number */
	s64 num;
	const char *str; /* strings (NUL-terminated), else NULL */
	u32 nitems;
	struct lu_ymap *items;
};

struct lu_ymap {
	u32 n;
	struct lu_yfield *f;
};

struct lu_ykey;
struct lu_ytab {
	u16 n;
	struct lu_ykey *keys; /* [1..n]; [0] unused */
};
struct lu_ykey {
	char name[64];
	u16 type, format;
	struct lu_ytab *child;
};

/*
 * A dump being read: its current key table, and each value message to @fn
 * as a mapping, valid during the call only.  @fn's nonzero return stops the
 * dump's reading and is returned.  .err keeps the first decoding error
 * (-EPROTO: a value before any table, a table or value that does not
 * hold together; -ENOMEM).
 */
struct lu_ydump {
	struct lu_ytab *tab;
	int (*fn)(const struct lu_ymap *m, void *arg);
	void *arg;
	int err;
	u32 messages; /* value messages read */
};

void lu_ydump_init(struct lu_ydump *d, int (*fn)(const struct lu_ymap *m, void *arg), void *arg);
/* One message's genl payload and its netlink flags (NLM_F_CREATE: a key table). */
int lu_ydump_feed(struct lu_ydump *d, const u8 *payload, size_t len, u16 flags);
void lu_ydump_free(struct lu_ydump *d);
/* lu_nl_request()'s callback for a dump read with @d. */
int lu_ydump_cb(const u8 *payload, size_t len, u16 flags, void *arg);

/* The field called @name, or NULL. */
const struct lu_yfield *lu_yget(const struct lu_ymap *m, const char *name);
/* Its first item's field @name (a "tunables: {...}" block), or NULL. */
const struct lu_yfield *lu_yget_in(const struct lu_ymap *m, const char *block, const char *name);

/* --- requests ---------------------------------------------------------------- */
/* Open a list (a sequence item or a mapping's block); close it with lu_msg_nest_end(). */
static inline size_t lu_y_list(struct lu_msg *m)
{
	return lu_msg_nest(m, LU_YA_LIST);
}
static inline void lu_y_key(struct lu_msg *m, const char *key)
{
	lu_msg_put_str(m, LU_YA_VALUE, key);
}
static inline void lu_y_str(struct lu_msg *m, const char *key, const char *v)
{
	lu_y_key(m, key);
	lu_msg_put_str(m, LU_YA_VALUE, v);
}
static inline void lu_y_int(struct lu_msg *m, const char *key, s64 v)
{
	lu_y_key(m, key);
	lu_msg_put_s64(m, LU_YA_INT_VALUE, v);
}

#endif /* LU_YAML_H */
