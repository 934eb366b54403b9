/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lu-tbf.h - lnetd's NRS TBF policies on the ptlrpc services of Lustre's
 * own servers (ost_io and the rest), through the two debugfs files each
 * service has: nrs_policies (which policy runs, and for TBF its type) and
 * nrs_tbf_rule (the rules).  The lustre engine calls it; it has no state.
 *
 * Where.  A service's files are in one directory under debugfs:
 *
 *   OSS   ost ost_create ost_io ost_seq ost_out     lustre/ost/OSS/<service>
 *   MDS   mdt mdt_readpage mdt_out mdt_seqs mdt_seqm mdt_fld mdt_io
 *                                                    lustre/mds/MDS/<service>
 *   LDLM  ldlm_cbd ldlm_canceld                      lustre/ldlm/services/<service>
 *   MGS   mgs                                        lustre/mgs/MGS/mgs
 *
 * The OSS and MDS services exist while a target of that kind is mounted
 * on the node; their rules die with them (the last OST unmounted frees
 * ost_io and everything in it), so lutbf_apply() is called again when the
 * service comes back.
 *
 * Rates.  lnetd's rate is what the admin asked for the node: a class
 * (a client, a job, ...) gets that many RPCs per second.  Lustre writes
 * every rule into each CPU partition (CPT) of the service, and each CPT
 * keeps its own classes and buckets: a request is queued in the CPT whose
 * LNet match table took it, for a request not routed the CPT of the thread
 * that received it (lib-ptl.c, portal_rotor's default).  So a Lustre rule
 * of rate r lets a class that spreads over n CPTs through at n x r.  A
 * class keyed by nid does not spread: a remote peer's connections are
 * served by the LND's schedulers of the one CPT its NID hashes to (a routed
 * request is hashed by its source NID too), so it gets r.  Only a client on
 * the server's own node, over 0@lo, is received in its sending thread's
 * CPT, any of them, and can get up to n x r (lnetctl(8) says so).  Every
 * CPT therefore lists a nid rule; the "ref N" after it counts the classes
 * on it in that CPT, which shows the CPT a client's requests reached.
 * lutbf_convert() therefore writes, per queue, rate / n (rounded to the
 * nearest; a rate below n cannot be held and is refused) when the queue's
 * type has no nid (jobid, opcode, uid, gid and their '+' combinations), and
 * the rate as asked when it has one (nid, nid+opcode, ...): the lead's
 * decision, which lnetctl(8) states.  n is the number of "CPT k:" sections
 * the service's nrs_tbf_rule lists (its CPT pattern, e.g. ptlrpc's
 * oss_io_cpts, may leave some CPTs out); lutbf_want's q[].div says which
 * divisor was used.
 *
 * What Lustre's TBF can hold (checked against the version from
 * /sys/fs/lustre/version; 2.15 and later are driven):
 *  - names [A-Za-z0-9_], 1..15 characters (as lnetd's);
 *  - per CPT, 1 <= rate <= 999,999;
 *  - a type of one field, or (2.17.0 and later) fields joined by '+'
 *    in fewer than 20 characters: "nid+jobid+opcode+uid+gid" cannot be had;
 *  - conditions: before 2.17.0 one term, field={...}, of the type's field;
 *    from 2.17.0 terms joined by '&' and ',' as lnetd writes them.
 *    Lustre cuts the conditions at every ',' before it looks inside the
 *    braces, so a NID list "10.0.0.[1,3]@tcp" is written as its ranges,
 *    "10.0.0.1@tcp 10.0.0.3@tcp"; jobids with ',', '&', '{' or '}' are
 *    refused; NIDs name addresses on one net (no "tcp1" net items, no net
 *    patterns such as "*@tcp[1-3]"); IPv6 NIDs need 2.17;
 *  - opcodes below 64 (the OST and MDS ones): Lustre keeps a rule's opcodes
 *    in a bitmap of its opcode table's length (92 to 94 bits) indexed by
 *    opcode number, so ldlm_enqueue (101), obd_ping (400) and the others
 *    would be written past its end; mds_batch needs 2.16;
 *  - the bucket depth is ptlrpc's tbf_depth module parameter, one for every
 *    service: a queue whose depth differs is refused;
 *  - one command is at most 4,095 bytes;
 *  - realtime=1 is taken but never shown, so drift in it cannot be seen;
 *  - services without a high-priority queue (mdt_fld, ldlm_cbd, mgs, ...)
 *    take lnetd's hp queue only when it asks nothing of its own: the reg
 *    queue's rules (commands without "reg" or "hp" give both queues the
 *    rule, as Lustre gives its only queue), or the default rule alone.
 * A refusal is one sentence that names the rule and the reason.
 *
 * Reading back.  nrs_tbf_rule lists, per queue and per CPT, the rules in
 * match order, "<name> <conditions> <rate>, ref <n>" (before 2.17 the
 * conditions show as "{values}" without "field="); nrs_policies lists each
 * queue's policies and their states.  lutbf_parse_*() read both (hostile
 * text is refused with the line it stopped at), lutbf_compare() says in a
 * sentence each what differs from what lnetd wants (drift), lutbf_plan()
 * gives the writes that make it so: the same steps as ktbf.c takes with
 * lnetk (stop what goes, each rule just before its successor, the default
 * rule's rate), so a rule that stays keeps its buckets.
 */
#ifndef LNETD_LU_TBF_H
#define LNETD_LU_TBF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct lne_tbf;

#define LUTBF_NAME_MAX	   15	  /* rule names, as lnetd's */
#define LUTBF_SERVICE_MAX  31	  /* service names */
#define LUTBF_TYPE_MAX	   19	  /* Lustre's NRS_TBF_TYPE_MAX_LEN is 20, NUL included */
#define LUTBF_CMD_MAX	   4095	  /* bytes of one nrs_tbf_rule write */
#define LUTBF_RATE_MAX	   999999 /* per CPT */
#define LUTBF_POLICY_MAX   64	  /* "tbf nid+jobid" and the like */
#define LUTBF_CPT_MAX	   1024	  /* CPT sections taken from a listing */
#define LUTBF_RULES_MAX	   4096	  /* rules per CPT taken from a listing */
#define LUTBF_READ_MAX	   (4u << 20)
#define LUTBF_OPCODE_LIMIT 64 /* opcodes at or above it are refused */

enum lutbf_queue {
	LUTBF_REG,
	LUTBF_HP,
	LUTBF_NQUEUES,
};

/* The Lustre at hand: "2.17.57" is {2, 17, 57}. */
struct lutbf_version {
	unsigned major, minor, patch;
};

struct lutbf_caps {
	struct lutbf_version ver;
	unsigned ncpt;	/* the service's CPTs, >= 1 */
	bool has_hp;	/* it has a high-priority queue */
	uint32_t depth; /* ptlrpc's tbf_depth; 0: not known, not checked */
};

struct lutbf_rule {
	char name[LUTBF_NAME_MAX + 1];
	char *conds;   /* as written: "nid={0@lo}"; "*" for the default rule */
	char *shown;   /* wanted rules: as the listing shows them (conds, or "{...}" before 2.17) */
	uint32_t rate; /* per CPT */
	uint32_t asked; /* wanted rules: lnetd's rate, the total */
	bool realtime;	/* wanted rules only: Lustre does not list it */
};

struct lutbf_rules {
	size_t n;
	struct lutbf_rule *r; /* match order, default last */
};

/* What lnetd wants of a service, in Lustre's terms. */
struct lutbf_want {
	char service[LUTBF_SERVICE_MAX + 1];
	struct lutbf_version ver;
	unsigned ncpt;
	bool has_hp;
	struct {
		char policy[LUTBF_POLICY_MAX]; /* "tbf nid" */
		unsigned div; /* lnetd's rates were divided by it: ncpt, or 1 (nid types) */
		bool by_nid;  /* the type has nid: rates not divided, whatever the CPTs */
		struct lutbf_rules rules;
	} q[LUTBF_NQUEUES];
};

/* What a service shows. */
struct lutbf_shown {
	bool has_hp;   /* nrs_policies lists high_priority_requests */
	bool policies; /* lutbf_parse_policies() filled policy[] */
	struct {
		char policy[LUTBF_POLICY_MAX]; /* the running primary: "tbf nid", "fifo" */
		size_t ncpt;
		int *cpt;		   /* the CPT numbers, in listing order */
		struct lutbf_rules *rules; /* per CPT */
	} q[LUTBF_NQUEUES];
};

/* "2.17.57", "2.15.8", "lustre: 2.12.9" (older files). */
int lutbf_version_parse(const char *text, struct lutbf_version *v, char *msg, size_t len);
/* <0, 0, >0 as @v is before, at, after major.minor.patch. */
int lutbf_version_cmp(const struct lutbf_version *v, unsigned major, unsigned minor,
		      unsigned patch);

/* The directory of @service under @debugfs ("/sys/kernel/debug"). */
int lutbf_service_dir(const char *debugfs, const char *service, char *dir, size_t size, char *msg,
		      size_t len);
/* Whether lnetd knows @service as a Lustre service with NRS. */
bool lutbf_service_known(const char *service);
/* The services lnetd knows, in the table's order: @i from 0 until NULL. */
const char *lutbf_service_name(size_t i);

/*
 * Parse nrs_policies' text into @s->policy and @s->has_hp, and
 * nrs_tbf_rule's into @s's CPTs and rules (it needs the policies first to
 * know whether hp is listed).  Return 0 or -EINVAL with a sentence naming
 * the line; @s is left as it was on error.
 */
int lutbf_parse_policies(const char *text, struct lutbf_shown *s, char *msg, size_t len);
int lutbf_parse_rules(const char *text, struct lutbf_shown *s, char *msg, size_t len);
void lutbf_shown_free(struct lutbf_shown *s);

/*
 * lnetd's policy @tbf in Lustre's terms for @caps.  Returns 0, -ENOMEM, or
 * -EINVAL (-ERANGE for a rate) with a sentence in @msg when Lustre cannot
 * hold it; @out is left empty then.
 */
int lutbf_convert(const struct lne_tbf *tbf, const struct lutbf_caps *caps, struct lutbf_want *out,
		  char *msg, size_t len);
void lutbf_want_free(struct lutbf_want *w);

/*
 * Each difference between @w and @s as one sentence to @say (NULL: count
 * only).  Returns how many: 0 means Lustre runs what lnetd wants.  Blind
 * to realtime=, which Lustre does not list.
 */
typedef void (*lutbf_say_fn)(void *arg, const char *sentence);
int lutbf_compare(const struct lutbf_want *w, const struct lutbf_shown *s, lutbf_say_fn say,
		  void *arg);

/* One write to one of the service's files. */
enum lutbf_file {
	LUTBF_POLICIES,
	LUTBF_RULE,
};

struct lutbf_write {
	enum lutbf_file file;
	char *text;
};

struct lutbf_plan {
	size_t n;
	struct lutbf_write *w;
};

/* The writes, in order, that make @s into @w (none when they agree). */
int lutbf_plan(const struct lutbf_want *w, const struct lutbf_shown *s, struct lutbf_plan *out);
void lutbf_plan_free(struct lutbf_plan *p);

/* --- on a node (lu-tbf.c) ---------------------------------------------------------- */

struct lutbf_env {
	const char *debugfs; /* NULL: /sys/kernel/debug */
	const char *sys;     /* NULL: /sys (fs/lustre/version, module/ptlrpc/parameters) */
	/* The unit suite's Lustre: each write to a service's file goes to it
	 * (0 or -errno) instead of write(2).  NULL on a node. */
	int (*write)(void *arg, const char *path, const char *text);
	void *write_arg;
};

/* The service's two files read and parsed. */
int lutbf_read(const struct lutbf_env *env, const char *service, struct lutbf_shown *s, char *msg,
	       size_t len);
/* Version and tbf_depth of the node; ncpt and has_hp of @s. */
int lutbf_caps_read(const struct lutbf_env *env, const struct lutbf_shown *s,
		    struct lutbf_caps *caps, char *msg, size_t len);

/*
 * Make @tbf's service run @tbf: convert (refusals change nothing), start
 * TBF with the types if it does not run them (to learn the CPT count; put
 * back as it was if the rates then cannot be held), write the plan, read
 * back and compare.  Returns 0, or a negative errno with a sentence.
 * @writes, if not NULL, counts the writes made.
 */
int lutbf_apply(const struct lutbf_env *env, const struct lne_tbf *tbf, size_t *writes, char *msg,
		size_t len);
/*
 * Drift: compare what the service runs with @tbf.  Returns the number of
 * differences (each to @say), or a negative errno with a sentence.
 */
int lutbf_check(const struct lutbf_env *env, const struct lne_tbf *tbf, lutbf_say_fn say, void *arg,
		char *msg, size_t len);
/* lnetd no longer has a policy for @service: back to fifo if TBF runs. */
int lutbf_release(const struct lutbf_env *env, const char *service, char *msg, size_t len);

/* The library's refusals: @fmt into @msg (@len bytes, if any), then @rc. */
int lutbf_say(char *msg, size_t len, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif /* LNETD_LU_TBF_H */
