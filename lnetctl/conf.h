/* SPDX-License-Identifier: GPL-2.0 */
/*
 * conf.h - Lustre's lnet.conf YAML <-> lnetd's batch operations.
 *
 * lnetd's Apply and Export speak in operations (verb, object, fields); this
 * library turns Lustre's lnet.conf into such a list and back, in memory.
 * It knows nothing of D-Bus: the CLI marshals the ops.  The vocabulary
 * (every field optional unless marked):
 *
 *   add|del net    net s (required), interface s, pattern s, cpts s, and
 *                  one u per NI tunable, by its name (engine/tunables.h:
 *                  peer_timeout, peer_credits, ...)
 *   add|del peer   primary s (required), nids as, multi_rail b
 *   set peer       the same: the peer that has any of the NIDs gets exactly
 *                  these (the Multi-Rail design's peers: refresh)
 *   add|del route  net s, gateway s (both required), hops u, priority u,
 *                  sensitivity u
 *   set global     name s, value u (the names of engine/globals.c)
 *   add udsp       src s, dst s, rte s, priority u, idx u, kind s (the kind
 *                  the rule must be: selection:'s; never written by emit)
 *   del udsp       idx u, or src s / dst s / rte s (and idx), or all b
 *   set tbf        service s (required), queue s ("reg", "hp"), type s,
 *                  depth u, rules as (the queue's whole rule list)
 *   del tbf        service s
 *   add tbf        service s, command s (one rule command: not in files)
 *
 * cf_parse() reads the sections Lustre's lnetctl import reads:
 *
 *   net        "net type" + "local NI(s)": interfaces ({0: eth0} or a
 *              list; one op per interface; "eth0[0,1]" is eth0 on CPTs
 *              [0,1], as in Lustre), tunables, CPT ("[0,1]" or a list,
 *              also inside tunables)
 *   ip2nets    net-spec, interfaces, ip-range (+ tunables, CPT): net ops
 *              with a pattern.  Several ip-range entries make one pattern,
 *              their address patterns separated by single spaces: an
 *              interface qualifies when its address matches any of them.
 *   peer       "primary nid", Multi-Rail, "peer ni" (- nid: ...); the
 *              primary, which Lustre lists among the peer NIs, is not
 *              repeated in nids, which an add always has (maybe empty),
 *              as lnetd's Export gives it
 *   route      net, gateway, hop, priority, health_sensitivity (-1, which
 *              Lustre prints for "default", leaves the field out)
 *   udsp       idx, src, dst, rte ("NA", Lustre's "none", leaves it out),
 *              action: {priority: N} (or a list of such)
 *   global     Lustre's keys (max_intf, or max_interfaces, is the engine's
 *              max_interfaces); numa: range is numa_range
 *   the Multi-Rail design's forms, beside Lustre's:
 *   net        "- net: N" with "interfaces: [- intf: ib0, CPT: 1,3]" and
 *              tunables, or with "intf:" and "pattern:" (an ip2nets NI);
 *              "- net: N" alone under --del deletes the net
 *   peers      "- nids: {0: a, 1: b}" (or a list, or the design's flat
 *              form, the numbered NIDs beside an empty nids:): set peer;
 *              --del: the listed NIDs go (del peer naming them all)
 *   selection  "- type: net|nid|peer" with net:, nid:, or local: and
 *              remote:, and priority: add udsp with its kind; --del finds
 *              the rule by its patterns
 *   tbf        lnetd's own: service, queue, type, depth, rules (commands,
 *              or tbf show's {name, rule, ...} entries: rule is read)
 *   routing, buffers, "lnd tunables": lnetd does not act on them; each
 *              gives a warning "FILE:LINE:COLUMN: ...: not acted on by
 *              lnetd", never a silent drop
 *
 * Keys that Lustre's show and export print about the running state (nid,
 * status, statistics, health stats, state, dev cpt, lnd_timeout, the
 * statistics section, ...) are ignored; any other key is an error, as are
 * wrong types, quoted or negative numbers, numbers above 2^32-1, anchors
 * and aliases, and a second document.  A net type of lo (0@lo, which
 * always exists) is skipped.
 *
 * CF_DEL (lnetctl import --del) keeps only what names each object: net +
 * interface (net + pattern for an ip2nets rule without interfaces; a net
 * entry naming no interface deletes the whole net: net alone); peer
 * primary, with nids when the peer NIs listed leave out the primary (with
 * the primary listed, or no NIs, the whole peer goes); route net +
 * gateway; udsp idx (required).  Globals cannot be deleted: an error.
 *
 * The ops come out in a canonical order, whatever order the file's
 * sections are in: nets with an interface only, nets with a pattern,
 * peers, routes, UDSP rules, globals (file order within each); in CF_DEL
 * the reverse, so rules and routes go before the nets they use.
 * cf_emit() writes that same order, so parse(emit(ops)) == ops for a list
 * in canonical order, and == cf_doc_sort(ops) for any list (whose add peer
 * ops have nids, as Export's do: without, they read back with an empty
 * list).
 */
#ifndef LNETCTL_CONF_H
#define LNETCTL_CONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum cf_type {
	CF_STR,
	CF_U32,
	CF_BOOL,
	CF_STRV,
};

struct cf_val {
	enum cf_type type;
	union {
		char *s;
		uint32_t u;
		bool b;
		struct {
			char **v;
			size_t n;
		} sv;
	};
};

struct cf_field {
	char *key;
	struct cf_val val;
};

struct cf_op {
	char *verb, *obj;
	struct cf_field *f;
	size_t nf;
	int line, col; /* where it came from in the YAML, 1-based; 0 if built */
};

/* Owns everything it points to; a zeroed struct is an empty document. */
struct cf_doc {
	struct cf_op *op;
	size_t nop;
	char **warning; /* "FILE:LINE:COLUMN: what was not acted on" */
	size_t nwarning;
};

enum cf_mode {
	CF_ADD, /* lnetctl import: add (set for globals) */
	CF_DEL, /* lnetctl import --del: del, with only the fields naming each object */
};

/* A new op with no fields; NULL when out of memory. */
struct cf_op *cf_op_new(const char *verb, const char *obj);
void cf_op_free(struct cf_op *op);

/* Set a field, replacing one of the same key in place; 0 or -ENOMEM. */
int cf_op_set_str(struct cf_op *op, const char *key, const char *s);
int cf_op_set_u32(struct cf_op *op, const char *key, uint32_t u);
int cf_op_set_bool(struct cf_op *op, const char *key, bool b);
int cf_op_set_strv(struct cf_op *op, const char *key, const char *const *v, size_t n);

/* Remove the field @key, if @op has it. */
void cf_op_unset(struct cf_op *op, const char *key);

/* A field's value, or NULL (false) when absent or of another type. */
const struct cf_val *cf_op_get(const struct cf_op *op, const char *key);
const char *cf_op_get_str(const struct cf_op *op, const char *key);
bool cf_op_get_u32(const struct cf_op *op, const char *key, uint32_t *u);
bool cf_op_get_bool(const struct cf_op *op, const char *key, bool *b);
char *const *cf_op_get_strv(const struct cf_op *op, const char *key, size_t *n);

/* Two values of the same type and the same content. */
bool cf_val_equal(const struct cf_val *a, const struct cf_val *b);
/* Same verb, object and fields (in any order); positions are not compared. */
bool cf_op_equal(const struct cf_op *a, const struct cf_op *b);
/*
 * One line of text, fields in the op's order, strings in double quotes:
 *   add peer primary="10.0.0.1@tcp" nids=["10.0.1.1@tcp"] multi_rail=true
 * Malloc'd; NULL when out of memory.
 */
char *cf_op_text(const struct cf_op *op);

/* Move @op into @doc (it is freed either way); 0 or -ENOMEM. */
int cf_doc_push(struct cf_doc *doc, struct cf_op *op);
/*
 * Put @doc's ops in the canonical order cf_parse() gives for @mode (a
 * stable sort by kind; see above); 0 or -ENOMEM, with @doc unchanged.
 * parse(emit(ops)) == cf_doc_sort(ops) for a list of add/set ops.
 */
int cf_doc_sort(struct cf_doc *doc, enum cf_mode mode);
/* Free what @doc holds and leave it empty. */
void cf_doc_free(struct cf_doc *doc);

/*
 * lnetctl import --replace: into @out (empty), the ops that turn @have
 * (lnetd's Export) into exactly @want (a file as cf_parse() reads it for
 * CF_ADD): dels first (what @have has and @want lacks, and the old form of
 * what differs: an NI, route or peer goes and comes back as the file says;
 * a global or TBF queue is set), then @want's ops for what is new or
 * differs.  What is the same in both makes no op, so the same file twice
 * gives an empty list.  Objects are matched by their keys with NIDs and
 * nets canonical, a peer's NIDs as a set, a Multi-Rail the file leaves out
 * as whatever lnetd has; UDSP rules as one ordered list (any difference:
 * del udsp all, then the file's).  Globals the file does not set keep
 * their values (lnetd cannot delete one).  0 or -ENOMEM (@out empty).
 */
int cf_replace(const struct cf_doc *want, const struct cf_doc *have, struct cf_doc *out);

/*
 * The reader's bounds (lnet.conf(5), Limits), checked in one pass before
 * anything is built, each refused where it is broken:
 *  - the file: CF_MAX_BYTES (64 MiB; an export of 50,000 peers with two
 *    NIDs each is under 7 MiB);
 *  - nesting of lists and mappings: CF_MAX_DEPTH, the top-level mapping
 *    counting as one (lnet.conf's deepest entries are 7 deep: the NID
 *    lists in the "udsp info" of a peer NI in peer show -v output);
 *  - one scalar (key or value): CF_MAX_SCALAR bytes, far above any NID,
 *    expression, interface name or TBF rule command;
 *  - YAML directives (%YAML, %TAG): CF_MAX_DIRECTIVES (lnet.conf needs
 *    none; libyaml's parser compares each %TAG with every one before it);
 *  - one YAML document; no anchors or aliases.
 */
#define CF_MAX_BYTES	  (64u << 20)
#define CF_MAX_DEPTH	  16
#define CF_MAX_SCALAR	  4096
#define CF_MAX_DIRECTIVES 8

/*
 * Parse @len bytes of lnet.conf YAML into @doc, which must be empty.  Errors
 * and warnings name @fname (NULL: "-") with 1-based line and column.
 * Returns 0, -EINVAL (bad YAML or content: @err says
 * "FILE:LINE:COLUMN: key 'X': why") or -ENOMEM; on error @doc stays empty.
 */
int cf_parse(const char *text, size_t len, const char *fname, enum cf_mode mode, struct cf_doc *doc,
	     char *err, size_t errlen);

/*
 * Write @doc's add and set ops as lnet.conf YAML, sections in Lustre's
 * order (net, ip2nets, peer, route, udsp, global, then lnetd's tbf); a
 * "set tbf" op is one queue of a service's TBF policy (add tbf, one rule
 * command, is not something a file says: -EINVAL).
 * @flags must be 0.  Returns 0, -EINVAL (an op outside the vocabulary,
 * nothing written) or yout's errors.  An empty document writes nothing.
 */
int cf_emit(FILE *out, const struct cf_doc *doc, unsigned int flags);

#endif
