/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tbf-int.h - what the NRS TBF engine's files share: the policy's, queues'
 * and heaps' structs, a parsed rule command, and the helpers each file
 * offers the others.  tbf.c holds the policy's life and the reporting,
 * tbf-rule.c the request fields, rule terms and rule lists, tbf-parse.c
 * the command parser, tbf-sched.c the buckets, heaps, classes and the
 * request path.  Private to the engine's TBF; callers use tbf.h.
 */
#ifndef LNE_TBF_INT_H
#define LNE_TBF_INT_H

#include "tbf.h"
#include "text.h"

/* The fields of enum lne_tbf_field (tbf.h's LNE_TBF_FIELD_LIST). */
#define TBFI_NFIELDS LNE_TBF_NFIELDS

struct lne_tbf_term {
	u8 field; /* one enum lne_tbf_field */
	u8 last;  /* the last term of its '&' group */
	u16 n;	  /* values in the list; the nid expression counts as one */
	u8 kind;  /* its field's enum lne_tbf_kind */
	u8 num;	  /* kinds OPCODE and NUM: its field's index in a class's .num[] */
	union {
		struct lne_expr *nid;
		u32 *num;			     /* kinds OPCODE and NUM */
		char (*glob)[LNE_TBF_JOBID_MAX + 1]; /* jobid */
	} v;
};

struct heap_slot {
	s64 key;
	struct lne_tbf_class *cls;
};

struct heap {
	u32 n;
	s64 vtime;		/* ready heaps: the tag of the class served last */
	struct heap_slot *slot; /* room for head->cap entries */
};

/* A waiting heap keyed by deadline; ready heaps keyed by fair-share tag. */
enum {
	HEAP_WAIT,
	HEAP_RT,
	HEAP_NORMAL,
	NHEAPS
};

/* A queue: its type, rules, classes and heaps. */
struct head {
	u8 fields; /* the type */
	u32 depth;
	u64 gen;
	struct lne_list rules; /* match order, default last */
	u32 nrules;	       /* default included */
	struct lne_tbf_rule *deflt;
	struct lne_tbf_class **bucket;
	u32 nbuckets; /* a power of two */
	u32 nclasses, nactive, cap;
	u64 cgen;		      /* bumped by every class made or freed */
	struct lne_list active, idle; /* idle: longest idle first */
	struct heap heap[NHEAPS];
	u64 queued;
};

/* A policy: its two queues. */
struct lne_tbf {
	char service[LNE_TBF_SERVICE_MAX + 1];
	u32 max_classes;
	u64 idle_ns;
	struct head q[LNE_TBF_NQUEUES];
};

/* A rule command, parsed (tbf-parse.c), then checked and applied (tbf-rule.c). */
enum {
	OP_START,
	OP_CHANGE,
	OP_STOP
};

struct cmd {
	const char *in; /* the whole command, quoted in errors */
	size_t len;
	struct lne_err *err;
	u8 op;
	u8 queues; /* mask of 1 << enum lne_tbf_queue */
	char name[LNE_TBF_NAME_MAX + 1];
	const char *name_at;
	bool has_rate, has_rank, has_rt, realtime;
	u32 rate;
	char rank[LNE_TBF_NAME_MAX + 1];
	const char *rank_at;
	u8 fields;			    /* fields the terms test */
	const char *field_at[TBFI_NFIELDS]; /* where each field is first tested */
	u16 nterm;
	struct lne_tbf_term *term; /* LNE_TBF_TERMS_MAX entries */
};

/* "reg", "hp" */
extern const char *const tbfi_queue_names[LNE_TBF_NQUEUES];

/* tbf-rule.c: request fields and rule terms. */
bool tbfi_span_is(struct lne_span s, const char *word);
bool tbfi_is_name_char(char ch);
/* Each field, in enum lne_tbf_field_index's order: LNE_TBF_FIELD_LIST's rows. */
struct tbfi_field {
	const char *name;
	u8 bit;
	u8 kind; /* enum lne_tbf_kind */
	s8 num;	 /* kinds OPCODE and NUM: the index in .num[] (enum lne_tbf_num); else -1 */
};
extern const struct tbfi_field tbfi_fields[LNE_TBF_NFIELDS];
/* A field's bit by its name, or -ENOENT; a bit's name, or "?"; a bit's index in tbfi_fields. */
int tbfi_field_lookup(struct lne_span s);
const char *tbfi_field_name(u8 bit);
int tbfi_field_index(u8 bit);
/* The fields @n terms test. */
u8 tbfi_terms_fields(const struct lne_tbf_term *t, u16 n);
bool tbfi_rule_match(const struct lne_tbf_rule *r, const struct lne_tbf_class *c);
struct lne_tbf_rule *tbfi_rule_find(const struct head *h, const char *name);
void tbfi_rule_free(struct lne_tbf_rule *r);

/* tbf-parse.c: parse @in into @c; errors in @err, quoting @in. */
int tbfi_cmd_parse(struct cmd *c, const char *in, struct lne_err *err);
/* Set @c's error (at @at in the command, NULL: nowhere) and return @rc. */
int tbfi_fail(struct cmd *c, int rc, const char *at, const char *fmt, ...) lne_printf(4, 5);

/* tbf-sched.c: classes and heaps. */
u32 tbfi_req_hash(u8 mask, const struct lne_tbf_req *r);
struct lne_tbf_class *tbfi_class_lookup(const struct head *h, u32 hash,
					const struct lne_tbf_req *r);
/* The rule @c follows under @h's current rules. */
struct lne_tbf_rule *tbfi_first_match(const struct head *h, const struct lne_tbf_class *c);
/*
 * Re-match every class with queued requests and rebuild the heaps: run
 * after each change of rules, type or depth.
 */
void tbfi_head_changed(struct head *h, s64 now);
/* Free every class of @h; queued requests are unlinked, not freed. */
void tbfi_head_drop_classes(struct head *h);

#endif /* LNE_TBF_INT_H */
