/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tbf.h - the NRS Token Bucket Filter: per-class rate limits on the requests
 * a service (a named request queue such as "ost_io") receives.
 *
 * Objects.  A policy (struct lne_tbf) belongs to one service and holds two
 * queues, reg (regular requests) and hp (high-priority requests).  Each
 * queue has its own type, bucket depth, rule list and classes:
 *
 *  - the type names the request fields that form a class key: "nid",
 *    "jobid", "opcode", "uid", "gid", or a combination joined by '+'
 *    ("nid+opcode", "jobid+uid").  New queues classify by nid.
 *  - a class is the set of requests that share a key.  It is created when
 *    the first such request is enqueued, holds its requests in FIFO order,
 *    and owns one token bucket: `rate` tokens per second, at most `depth`
 *    tokens (the burst; 3 by default, as in Lustre).  One request takes one
 *    token.
 *  - a rule names a set of classes by conditions on their key fields and
 *    gives them a rate.  A class follows the first rule in the list that
 *    matches it.  The rule named "default" matches every class, is always
 *    last, can have its rate changed and cannot be stopped.
 *
 * Rules (lne_tbf_command).  A command optionally starts with "reg" or "hp";
 * without it, it applies to both queues, all or nothing.
 *
 *   start <name> <conditions> [rate=<n>] [rank=<rule>] [realtime=0|1]
 *   change <name> [rate=<n>] [rank=<rule>]      (at least one of them)
 *   stop <name>
 *
 *   conditions := term { "&" term | "," term }   '&' binds tighter than ','
 *   term       := field "=" "{" values "}"       values separated by spaces
 *     nid={<nid expression>}        the grammar of expr.h, IPv6 included
 *     jobid={dd.* compile.1000}     globs: '*' matches any run of characters
 *     opcode={ost_read ost_write}   names from the table below
 *     uid={500 501}   gid={100}     decimal numbers, 0..4294967295
 *
 * e.g. "start io nid={192.168.1.[1-128]@tcp}&opcode={ost_write} rate=500".
 * A new rule goes first unless rank=<rule> places it just before that rule
 * (rank=default: just before the default rule, i.e. last); change ... rank=
 * moves a rule the same way.  rate defaults to 10000 (Lustre's default) and
 * runs from 1 to LNE_TBF_RATE_MAX (10^9) requests per second.  realtime=1
 * puts the rule's classes in a heap served before all others, so that they
 * keep their rate when the service cannot keep up with every rule.  The
 * older Lustre form is accepted too:
 *
 *   start <name> {<nid expression>} <rate>     change <name> <rate>
 *
 * Rule names are 1..15 characters of [A-Za-z0-9_].  A rule may test only
 * fields of its queue's type (a class keyed by nid holds requests of every
 * opcode, so "opcode=" could not decide which rule it follows).  Every
 * malformed or impossible command is refused, nothing is changed, and
 * struct lne_err holds a sentence naming the bad part, e.g.
 *   "start a nid={10.0.0.[5-2]@tcp}: 10.0.0.[5-2]@tcp: range start 5 is above its end 2".
 * Limits: LNE_TBF_RULES_MAX rules per queue, LNE_TBF_TERMS_MAX terms per
 * rule, LNE_TBF_VALUES_MAX values per jobid/opcode/uid/gid list,
 * LNE_TBF_CMD_MAX bytes per command.
 *
 * Re-matching.  Each change of a queue's rules, type or depth bumps its
 * generation.  Classes with queued requests are re-matched at once (their
 * deadlines are recomputed, so a new rate applies to queued traffic now);
 * idle classes re-match when their next request arrives.  A class that
 * moves to another rule keeps its accumulated credit, converted exactly to
 * the new rate (surplus capped by the depth).
 *
 * Scheduling.  Requests leave a class in FIFO order.  A class's deadline
 * is the time at which its next token is available.  Tokens are not
 * counted but derived from time: the deadline d advances by exactly
 * 1e9/rate ns per request, kept as nanoseconds plus a remainder in units of
 * 1/rate ns, so no fraction of a token is ever lost (upstream rounds and
 * loses it unless realtime=1; here accounting is always exact).  A deadline
 * more than (depth - 1) tokens in the past is raised to that point: the
 * bucket is full.  A new class starts with a full bucket.
 *
 * A class with queued requests but no token waits in a heap keyed by its
 * deadline.  Once the deadline passes it is ready, and ready classes are
 * served in start-time fair queueing order: each dispatch advances the
 * class's tag by 1/rate (in virtual time), and a class that becomes ready
 * starts at the current virtual time, so it brings no credit from its
 * absence.  While the service keeps up this changes nothing (every ready
 * class is served at once); when it cannot, the service is shared in
 * proportion to the rates: higher rates get more, none starves, as the
 * design asks.  (Ordering ready classes by deadline instead would let the
 * classes with the longest periods take everything once all are late.)
 *
 * lne_tbf_dequeue() returns the first request of the next ready class: hp
 * before reg, realtime classes before the others of their queue.  When no
 * class is ready it returns NULL and the earliest deadline (LNE_TBF_NEVER if
 * nothing is queued), so a caller can arm a timer.  Dequeue never allocates.
 *
 * Requests are the caller's.  Embed a struct lne_tbf_req in the request,
 * zero it once (cls must be NULL while it is not queued), fill nid (as
 * lne_nid_parse makes it), jobid (up to 32 bytes, NUL-terminated if
 * shorter), opcode, uid and gid, and enqueue it.  The engine links it through `link` and records
 * `enqueued` and `cls`; it never copies or frees a request.  Between
 * enqueue and dequeue (or lne_tbf_cancel) the caller must neither free the
 * request nor change it.
 *
 * Time.  Every call takes `now`, in ns, from the caller's monotonic clock
 * (tests use a virtual one).  It must not go backwards and must stay below
 * LNE_TBF_TIME_MAX (2^62 ns, 146 years).  All arithmetic is 64-bit integer;
 * the largest intermediate value is (depth - 1) * 10^9 + rate < 2^51, so
 * nothing overflows at any accepted rate and depth.
 *
 * Memory.  A class takes 240 bytes (sizeof(struct lne_tbf_class) on 64-bit)
 * plus 16 in each of its queue's three heaps and 8 or less in the hash:
 * about 300 bytes, so the default limit bounds a queue near 20 MiB.  Each
 * queue holds at most max_classes classes (LNE_TBF_CLASSES_DEFAULT,
 * settable up to LNE_TBF_CLASSES_MAX; lowering it frees nothing at once,
 * but the count does not grow while the queue is above it).  Classes
 * without queued requests are reclaimed once idle for idle_ns (default
 * 60 s) and their bucket is full, so nothing is lost but their statistics:
 * at most two per enqueue, or all of them by lne_tbf_reclaim().  When a queue is at its limit, an
 * enqueue that needs a new class takes the longest-idle class instead,
 * full bucket or not; if every class has queued requests it fails with
 * -ENOSPC.  Enqueue allocates (classes, heap and hash growth) and may fail
 * with -ENOMEM; a failed enqueue leaves the request unlinked and every
 * queued request and rule as it was.
 *
 * Statistics (struct lne_tbf_stats), per class and per rule: requests
 * queued now, enqueued and dispatched in total, the total time dispatched
 * requests waited (ns), and how many requests reached the head of their
 * class when it had no token (throttled).  A rule counts the events of
 * the classes that follow it when they happen; a reclaimed class takes its
 * own statistics with it, a stopped rule its own.
 *
 * Reporting.  lne_tbf_rule_next() walks a queue's rules in match order,
 * default last; lne_tbf_class_next() walks its classes in no particular
 * order.  The pointers are valid until the next command, enqueue,
 * reclaim or lne_tbf_free(); their structs are read-only to callers.
 *
 * The engine does no locking: the caller serialises every call on one
 * policy, dequeue included (it updates buckets and statistics).
 *
 * Opcodes (Lustre's numbers, lustre_idl.h; rules name them, requests carry
 * the numbers): ost_reply 0, ost_getattr 1, ost_setattr 2, ost_read 3,
 * ost_write 4, ost_create 5, ost_destroy 6, ost_get_info 7, ost_connect 8,
 * ost_disconnect 9, ost_punch 10, ost_open 11, ost_close 12, ost_statfs 13,
 * ost_sync 16, ost_set_info 17, ost_quotacheck 18, ost_quotactl 19,
 * ost_quota_adjust_qunit 20, ost_ladvise 21, ost_fallocate 22, ost_seek 23,
 * mds_getattr 33, mds_getattr_name 34, mds_close 35, mds_reint 36,
 * mds_readpage 37, mds_connect 38, mds_disconnect 39, mds_get_root 40,
 * mds_statfs 41, mds_pin 42, mds_unpin 43, mds_sync 44, mds_done_writing 45,
 * mds_set_info 46, mds_quotacheck 47, mds_quotactl 48, mds_getxattr 49,
 * mds_setxattr 50, mds_writepage 51, mds_is_subdir 52, mds_get_info 53,
 * mds_hsm_state_get 54, mds_hsm_state_set 55, mds_hsm_action 56,
 * mds_hsm_progress 57, mds_hsm_request 58, mds_hsm_ct_register 59,
 * mds_hsm_ct_unregister 60, mds_swap_layouts 61, mds_rmfid 62, mds_batch 63,
 * ldlm_enqueue 101, ldlm_convert 102, ldlm_cancel 103, ldlm_bl_callback 104,
 * ldlm_cp_callback 105, ldlm_gl_callback 106, ldlm_set_info 107,
 * mgs_connect 250, mgs_disconnect 251, mgs_exception 252, mgs_target_reg 253,
 * mgs_target_del 254, mgs_set_info 255, mgs_config_read 256, obd_ping 400,
 * obd_log_cancel 401, obd_qc_callback 402, obd_idx_read 403,
 * llog_origin_handle_create 501, llog_origin_handle_next_block 502,
 * llog_origin_handle_read_header 503, llog_origin_handle_close 505,
 * llog_origin_handle_prev_block 508, llog_origin_handle_destroy 509,
 * seq_query 700, sec_ctx_init 801, sec_ctx_init_cont 802, sec_ctx_fini 803,
 * fld_query 900, fld_read 901, out_update 1000, lfsck_notify 1101,
 * lfsck_query 1102.
 */
#ifndef LNE_TBF_H
#define LNE_TBF_H

#include "error.h"
#include "list.h"
#include "nid.h"
#include "port.h"

#define LNE_TBF_NAME_MAX	15	    /* rule names */
#define LNE_TBF_SERVICE_MAX	31	    /* service names */
#define LNE_TBF_JOBID_MAX	32	    /* request jobids and jobid globs */
#define LNE_TBF_RATE_DEFAULT	10000u	    /* requests per second */
#define LNE_TBF_RATE_MAX	1000000000u /* one request per ns */
#define LNE_TBF_DEPTH_DEFAULT	3u	    /* tokens */
#define LNE_TBF_DEPTH_MAX	1000000u
#define LNE_TBF_RULES_MAX	256  /* per queue, default rule excluded */
#define LNE_TBF_TERMS_MAX	16   /* field={...} terms per rule */
#define LNE_TBF_VALUES_MAX	64   /* values in one jobid/opcode/uid/gid list */
#define LNE_TBF_CMD_MAX		4096 /* bytes of command text */
#define LNE_TBF_CLASSES_DEFAULT 65536u
#define LNE_TBF_CLASSES_MAX	(1u << 22)
#define LNE_TBF_IDLE_DEFAULT	(60ull * 1000000000ull) /* ns */
#define LNE_TBF_TIME_MAX	(1ull << 62)		/* ns */
#define LNE_TBF_NEVER		(~0ull)

enum lne_tbf_queue {
	LNE_TBF_REG,
	LNE_TBF_HP,
	LNE_TBF_NQUEUES,
};

/*
 * The request fields, described once: X(ID, name, kind, member), SEP
 * between rows.  A rule's conditions and a queue's type name them; the
 * order is their bit order.  kind says what the field holds and how a
 * condition's values read: NID (a nid expression, the request's nid), GLOB
 * (jobid globs, the request's jobid), OPCODE (a u32 named by the opcode
 * table) or NUM (a u32 in decimal).  The enum, the parser's table
 * (tbf-rule.c), the u32 fields of a request and a class (member, for
 * OPCODE and NUM: by name or in .num[], LNE_TBF_N_<ID>), the class keys
 * (tbf-sched.c), the classes' text (tbf.c) and every error and help string
 * that lists them (LNE_TBF_FIELD_NAMES) come from here.  A new u32 field
 * is a row; the match (tbf-rule.c) switches over the kinds without a
 * default, so a new kind missing there is a -Wswitch error.
 */
#define LNE_TBF_FIELD_LIST(X, SEP)              \
	X(NID, "nid", NID, nid)                 \
	SEP X(JOBID, "jobid", GLOB, jobid)      \
	SEP X(OPCODE, "opcode", OPCODE, opcode) \
	SEP X(UID, "uid", NUM, uid)             \
	SEP X(GID, "gid", NUM, gid)             \
	SEP X(PROJID, "projid", NUM, projid)

enum lne_tbf_kind {
	LNE_TBF_K_NID,
	LNE_TBF_K_GLOB,
	LNE_TBF_K_OPCODE,
	LNE_TBF_K_NUM,
};

#define LNE_TBF_FIELD_INDEX(id, ...) LNE_TBF_I_##id,
enum lne_tbf_field_index {
	LNE_TBF_FIELD_LIST(LNE_TBF_FIELD_INDEX, ) LNE_TBF_NFIELDS
};
#undef LNE_TBF_FIELD_INDEX

/* Request fields; a queue's type is a mask of them. */
#define LNE_TBF_FIELD_BIT(id, ...) LNE_TBF_##id = 1 << LNE_TBF_I_##id,
enum lne_tbf_field {
	LNE_TBF_FIELD_LIST(LNE_TBF_FIELD_BIT, )
};
#undef LNE_TBF_FIELD_BIT
/* Every field: the mask of a type naming them all. */
#define LNE_TBF_FIELDS ((1 << LNE_TBF_NFIELDS) - 1)

/* "nid, jobid, opcode, uid, gid, projid": a string literal, for errors and help. */
#define LNE_TBF_FIELD_NAME(id, name, ...) name
#define LNE_TBF_FIELD_NAMES		  LNE_TBF_FIELD_LIST(LNE_TBF_FIELD_NAME, ", ")

/* The u32 fields (kinds OPCODE and NUM): their index in .num[], LNE_TBF_N_<ID>. */
#define LNE_TBF_U32_NID(...)
#define LNE_TBF_U32_GLOB(...)
#define LNE_TBF_U32_OPCODE(...)		      __VA_ARGS__
#define LNE_TBF_U32_NUM(...)		      __VA_ARGS__
#define LNE_TBF_NUM_ENUM(id, name, kind, ...) LNE_TBF_U32_##kind(LNE_TBF_N_##id, )
enum lne_tbf_num {
	LNE_TBF_FIELD_LIST(LNE_TBF_NUM_ENUM, ) LNE_TBF_NNUMS
};
#define LNE_TBF_NUM_MEMBER(id, name, kind, member) LNE_TBF_U32_##kind(u32 member;)
/* A request's or a class's u32 fields: by name (.uid) or by index (.num[LNE_TBF_N_UID]). */
#define LNE_TBF_NUMS                                             \
	union {                                                  \
		struct {                                         \
			LNE_TBF_FIELD_LIST(LNE_TBF_NUM_MEMBER, ) \
		};                                               \
		u32 num[LNE_TBF_NNUMS];                          \
	}

struct lne_tbf_class;

/* Embedded in the caller's request; see "Requests are the caller's". */
struct lne_tbf_req {
	struct lne_list link;	   /* engine: in its class's FIFO while queued */
	struct lne_tbf_class *cls; /* engine: the class while queued, else NULL */
	u64 enqueued;		   /* engine: `now` at enqueue, ns */
	struct lne_nid nid;	   /* the client */
	LNE_TBF_NUMS;		   /* opcode, uid, gid, ... (LNE_TBF_FIELD_LIST) */
	char jobid[LNE_TBF_JOBID_MAX + 1];
};

struct lne_tbf_stats {
	u64 queued;	/* requests waiting now */
	u64 enqueued;	/* requests enqueued, in total */
	u64 dispatched; /* requests dequeued */
	u64 wait_ns;	/* sum over dispatched requests of dequeue - enqueue time */
	u64 throttled;	/* requests that reached their class's head with no token */
};

struct lne_tbf_term; /* a rule's condition terms: private to tbf*.c (tbf-int.h) */

struct lne_tbf_rule {
	struct lne_list link; /* in its queue's rule list, in match order */
	char name[LNE_TBF_NAME_MAX + 1];
	u32 rate;      /* requests per second */
	bool realtime; /* its classes are served first */
	u32 nclasses;  /* classes following it now */
	u16 nterm;     /* 0: matches everything (the default rule) */
	struct lne_tbf_term *term;
	struct lne_tbf_stats stats;
};

/* A class: its key, its bucket, its FIFO.  Read-only to callers. */
struct lne_tbf_class {
	struct lne_tbf_class *hnext; /* hash chain */
	struct lne_list link;	     /* its queue's active or idle list */
	struct lne_list fifo;	     /* queued requests, oldest first */
	struct lne_tbf_rule *rule;   /* NULL until re-matched after its rule stopped */
	u64 gen;		     /* the queue's rule generation it matched at */
	u64 idle_since;		     /* ns; meaningful while idle */
	s64 dl;			     /* deadline: dl + dl_frac / rate ns */
	u32 dl_frac;
	u32 vtag_frac;
	s64 vtag;	       /* fair-share start tag: vtag + vtag_frac / rate, virtual ns */
	u32 rate, t_ns, t_rem; /* 1e9 / rate == t_ns + t_rem / rate */
	u64 lag_ns;	       /* (depth - 1) tokens' time: lag_ns + lag_rem / rate */
	u32 lag_rem;
	u32 hash, heap_idx;
	u8 queue;     /* enum lne_tbf_queue */
	u8 fields;    /* the key: enum lne_tbf_field mask */
	u8 rt;	      /* follows a realtime rule */
	u8 active;    /* has queued requests, sits in a heap */
	u8 heap;      /* which: waiting for a token, or ready */
	LNE_TBF_NUMS; /* opcode, uid, gid, ... (LNE_TBF_FIELD_LIST) */
	struct lne_nid nid;
	char jobid[LNE_TBF_JOBID_MAX + 1];
	struct lne_tbf_stats stats;
};

struct lne_tbf_queue_info {
	u8 fields;  /* the type */
	u32 depth;  /* tokens */
	u32 nrules; /* the default rule included */
	u32 nclasses;
	u32 nactive; /* classes with queued requests */
	u64 queued;  /* requests */
	u64 gen;     /* bumped by every change of rules, type or depth */
	u64 cgen; /* bumped by every class made or freed: lne_tbf_class_next's order holds while it stays */
};

struct lne_tbf;

/* A policy for @service ([A-Za-z0-9_], 1..31 characters), both queues nid. */
int lne_tbf_new(const char *service, struct lne_tbf **out, struct lne_err *err);
/* Frees the engine's objects; queued requests are unlinked, not freed. */
void lne_tbf_free(struct lne_tbf *tbf);
const char *lne_tbf_service(const struct lne_tbf *tbf);

/*
 * Apply one rule command (see above) at time @now.  Returns 0, -EINVAL
 * (malformed or impossible: @err says why), -ENOENT (no such rule), -EEXIST
 * (a rule of that name exists), -ENOSPC (too many rules) or -ENOMEM.
 */
int lne_tbf_command(struct lne_tbf *tbf, const char *cmd, u64 now, struct lne_err *err);

/*
 * Set the type of @q ("nid", "jobid+uid", ...).  Refused with -EBUSY while
 * the queue holds requests, and with -EINVAL if a rule tests a field the
 * type lacks.  Idle classes are dropped (their keys change).
 */
int lne_tbf_set_type(struct lne_tbf *tbf, enum lne_tbf_queue q, const char *type,
		     struct lne_err *err);
/* Bucket depth of @q's classes, 1..LNE_TBF_DEPTH_MAX tokens. */
int lne_tbf_set_depth(struct lne_tbf *tbf, enum lne_tbf_queue q, u32 depth, u64 now,
		      struct lne_err *err);
/* Class limit per queue (1..LNE_TBF_CLASSES_MAX) and idle time before reclaim. */
int lne_tbf_set_limits(struct lne_tbf *tbf, u32 max_classes, u64 idle_ns, struct lne_err *err);

/* Parse a type ("nid+opcode") into a field mask; print one, like snprintf. */
int lne_tbf_type_parse(const char *s, u8 *fields, struct lne_err *err);
int lne_tbf_type_format(u8 fields, char *buf, size_t size);

/*
 * Queue @req (fields filled by the caller) on @q at @now.  Returns 0,
 * -ENOMEM, or -ENOSPC when the queue is at its class limit and no class is
 * idle; on failure the request is not queued.
 */
int lne_tbf_enqueue(struct lne_tbf *tbf, struct lne_tbf_req *req, enum lne_tbf_queue q, u64 now);

/*
 * The next request to serve at @now, hp first, or NULL with *@next set to
 * the earliest time one will be ready (LNE_TBF_NEVER: nothing queued).
 * lne_tbf_dequeue_queue() looks at one queue only.
 */
struct lne_tbf_req *lne_tbf_dequeue(struct lne_tbf *tbf, u64 now, u64 *next);
struct lne_tbf_req *lne_tbf_dequeue_queue(struct lne_tbf *tbf, enum lne_tbf_queue q, u64 now,
					  u64 *next);

/* Take a queued request out without serving it (its client went away). */
void lne_tbf_cancel(struct lne_tbf *tbf, struct lne_tbf_req *req, u64 now);

/* Free every class idle for idle_ns with a full bucket; returns how many. */
u32 lne_tbf_reclaim(struct lne_tbf *tbf, u64 now);

void lne_tbf_queue_info(const struct lne_tbf *tbf, enum lne_tbf_queue q,
			struct lne_tbf_queue_info *info);

/* Rules of @q in match order, default last: @prev NULL for the first. */
const struct lne_tbf_rule *lne_tbf_rule_next(const struct lne_tbf *tbf, enum lne_tbf_queue q,
					     const struct lne_tbf_rule *prev);
const struct lne_tbf_rule *lne_tbf_rule_find(const struct lne_tbf *tbf, enum lne_tbf_queue q,
					     const char *name);
/*
 * The command that recreates @r: "start <name> <conditions> rate=<n>
 * [realtime=1]", or "change default rate=<n>".  Replaying a queue's rules
 * last to first rebuilds the same order.  Like snprintf.
 */
int lne_tbf_rule_format(const struct lne_tbf_rule *r, char *buf, size_t size);

/* Classes of @q, in no particular order: @prev NULL for the first. */
const struct lne_tbf_class *lne_tbf_class_next(const struct lne_tbf *tbf, enum lne_tbf_queue q,
					       const struct lne_tbf_class *prev);
/* The class @req would join on @q, if it exists. */
const struct lne_tbf_class *lne_tbf_class_find(const struct lne_tbf *tbf, enum lne_tbf_queue q,
					       const struct lne_tbf_req *req);
/* The rule @c follows under the current rules (it may not have re-matched yet). */
const struct lne_tbf_rule *lne_tbf_class_rule(const struct lne_tbf *tbf,
					      const struct lne_tbf_class *c);
/* The class key as text: "nid=10.0.0.1@tcp opcode=ost_write".  Like snprintf. */
int lne_tbf_class_format(const struct lne_tbf_class *c, char *buf, size_t size);

/* An opcode's name, or NULL; an opcode name's number, or -ENOENT. */
const char *lne_tbf_opcode_name(u32 opcode);
int lne_tbf_opcode_lookup(const char *name, size_t len);

#endif /* LNE_TBF_H */
