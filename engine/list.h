/* SPDX-License-Identifier: GPL-2.0 */
/*
 * list.h - a circular doubly linked list, the engine's only container
 * besides arrays.  The kernel's list_head would do in the module, but the
 * engine is one source for both homes, so it carries its own, in the same
 * shape, so kernel readers feel at home.
 */
#ifndef LNE_LIST_H
#define LNE_LIST_H

#include "port.h"

struct lne_list {
	struct lne_list *next, *prev;
};

#define lne_container_of(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))
#define lne_list_entry(ptr, type, member)   lne_container_of(ptr, type, member)

static inline void lne_list_init(struct lne_list *l)
{
	l->next = l;
	l->prev = l;
}

static inline bool lne_list_empty(const struct lne_list *l)
{
	return l->next == l;
}

static inline void lne_list_insert(struct lne_list *n, struct lne_list *prev, struct lne_list *next)
{
	n->next = next;
	n->prev = prev;
	prev->next = n;
	next->prev = n;
}

static inline void lne_list_add_tail(struct lne_list *n, struct lne_list *head)
{
	lne_list_insert(n, head->prev, head);
}

/* Insert @n before @at (which may be the head: then at the tail). */
static inline void lne_list_add_before(struct lne_list *n, struct lne_list *at)
{
	lne_list_insert(n, at->prev, at);
}

static inline void lne_list_del(struct lne_list *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	lne_list_init(n);
}

#define lne_list_for_each_entry(pos, head, member)                                                 \
	for (pos = lne_list_entry((head)->next, __typeof__(*pos), member); &pos->member != (head); \
	     pos = lne_list_entry(pos->member.next, __typeof__(*pos), member))

#define lne_list_for_each_entry_safe(pos, n, head, member)                  \
	for (pos = lne_list_entry((head)->next, __typeof__(*pos), member),  \
	    n = lne_list_entry(pos->member.next, __typeof__(*pos), member); \
	     &pos->member != (head);                                        \
	     pos = n, n = lne_list_entry(n->member.next, __typeof__(*n), member))

#endif /* LNE_LIST_H */
