/* SPDX-License-Identifier: GPL-2.0 */
/*
 * conf-int.h - what conf.c, the reader (conf-parse*.c) and conf-emit.c
 * share: the tables of the vocabulary and the canonical order of ops; and
 * what the reader's files share: its state, its helpers and the handlers
 * of the top level's sections.  Private to libconf.
 */
#ifndef LNETCTL_CONF_INT_H
#define LNETCTL_CONF_INT_H

#include <string.h>
#include <yaml.h>

#include "conf.h"
#include "engine/model.h"
#include "engine/rule-attrs.h"

#define CF_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * The engine's globals (engine/globals.c: lne_global_info() gives each one's
 * name and Lustre's YAML key), as enum lne_global.
 * By Lustre's key or the engine's name (newer Lustre reads max_interfaces too); -1 if neither.
 */
int cf_global_lookup(const char *s);
/* Which of Lustre's sections a set global op's global is printed in. */
enum {
	CF_GSEC_GLOBAL,
	CF_GSEC_ROUTING,
	CF_GSEC_BUFFERS,
	CF_GSEC__COUNT
};
int cf_global_section(const struct cf_op *op);
/* By the engine's name only, what a "set global" op carries; -1 if none. */
int cf_global_by_name(const char *name);

/* The canonical order of ops (conf.h): cf_parse() sorts into it, cf_emit() writes it. */
enum cf_rank {
	CF_R_NET,     /* net ops without a pattern: the net: section */
	CF_R_IP2NETS, /* net ops with a pattern: the ip2nets: section */
	CF_R_PEER,
	CF_R_PEERS, /* set peer: the Multi-Rail design's peers: section */
	CF_R_ROUTE,
	CF_R_UDSP,
	CF_R_GLOBAL,
	CF_R_TBF,
	CF_R_OTHER,
	CF_R__COUNT,
};

enum cf_rank cf_op_rank(const struct cf_op *op);

/* lo, whose one NI 0@lo always exists: lnet.conf entries for it are skipped. */
bool cf_net_is_lo(const char *net);

/* ---------------------------------------------------------------------- */
/* The reader: conf-parse.c and the sections' conf-parse-*.c               */
/* ---------------------------------------------------------------------- */

/* A parse in progress. */
struct cfp {
	yaml_document_t *yd;
	const char *fname;
	enum cf_mode mode;
	struct cf_doc out; /* ops in file order, warnings */
	char *err;
	size_t errlen;
	const yaml_node_t *gset[LNE_G__COUNT]; /* where each global was set */
	/*
	 * The top level's peer: list, walked item by item as it is read (its
	 * items are then dropped, so 50,000 peers are never a document tree at
	 * once), and what its walk returned, reported where the walk of the
	 * top level comes to it: an error further up the file, a bad key at
	 * the top or a YAML error anywhere still comes first.  0: none.
	 */
	int streamed;
	int streamed_rc;
	struct cf_doc early; /* its ops, until the walk comes to it */
	char kind[80];	     /* cfp_kind()'s text */
};

static inline size_t cfp_line_of(const yaml_node_t *n)
{
	return n->start_mark.line + 1;
}

static inline size_t cfp_col_of(const yaml_node_t *n)
{
	return n->start_mark.column + 1;
}

static inline yaml_node_t *cfp_node(struct cfp *p, int i)
{
	return yaml_document_get_node(p->yd, i);
}

static inline const char *cfp_sval(const yaml_node_t *n)
{
	return (const char *)n->data.scalar.value;
}

static inline bool cfp_is_null(const yaml_node_t *n)
{
	const char *s;

	if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	s = cfp_sval(n);
	return !*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") ||
	       !strcmp(s, "NULL");
}

static inline const char *cfp_verb(const struct cfp *p)
{
	return p->mode == CF_DEL ? "del" : "add";
}

/* Errors and warnings.  cfp_fail() writes "FILE:LINE:COL: key 'K': why" at @at, returns -EINVAL. */
int __attribute__((format(printf, 4, 5)))
cfp_fail(struct cfp *p, const yaml_node_t *at, const char *key, const char *fmt, ...);
int cfp_nomem(struct cfp *p);
int __attribute__((format(printf, 3, 4)))
cfp_warning_at(struct cfp *p, const yaml_node_t *at, const char *fmt, ...);
/* "a mapping", "a list" or the scalar itself, for messages. */
const char *cfp_kind(struct cfp *p, const yaml_node_t *n);

/* Scalars.  With @dflt, cfp_get_u32() takes "-1" (Lustre's "default") as *@dflt set. */
int cfp_get_str(struct cfp *p, const char *key, const yaml_node_t *n, const char **out);
int cfp_get_u32(struct cfp *p, const char *key, const yaml_node_t *n, uint32_t *out, bool *dflt);
int cfp_get_bool(struct cfp *p, const char *key, const yaml_node_t *n, bool *out);

/* One table per kind of mapping: {key, handler}, ended by {NULL, NULL}. */
struct cfp_keydef {
	const char *name;
	/* NULL: a key about the running state, ignored */
	int (*fn)(struct cfp *p, yaml_node_t *key, yaml_node_t *val, void *st);
};

/* @n must be a mapping whose keys are distinct strings. */
int cfp_check_map(struct cfp *p, const yaml_node_t *n, const char *key, const char *what);
/* Walk a mapping (or nothing, an empty one) against @tab. */
int cfp_walk_map(struct cfp *p, yaml_node_t *n, const char *key, const char *what,
		 const struct cfp_keydef *tab, void *st);
/* Walk a list (or nothing, an empty one), calling @fn on each item. */
int cfp_walk_seq(struct cfp *p, yaml_node_t *n, const char *key, const char *what,
		 int (*fn)(struct cfp *p, yaml_node_t *item, void *st), void *st);

/* String nodes, in file order; the array is owned, the nodes are the document's. */
struct cfp_nodes {
	yaml_node_t **v;
	size_t n;
};

int cfp_nodes_push(struct cfp *p, struct cfp_nodes *ns, yaml_node_t *n);
/* Lustre's string lists: "{0: eth0, 1: eth1}", or a plain list "[eth0, eth1]". */
int cfp_get_strs(struct cfp *p, const yaml_node_t *k, yaml_node_t *v, struct cfp_nodes *out);

/* A new op placed at @at; cfp_push() keeps it if @rc is 0, frees it otherwise. */
struct cf_op *cfp_op_at(const char *verb, const char *obj, const yaml_node_t *at);
int cfp_push(struct cfp *p, struct cf_op *op, int rc);

/* The top level's sections, each in the file named after it (net: and ip2nets: in -net). */
int cfp_sec_net(struct cfp *p, yaml_node_t *k, yaml_node_t *v, void *st);
int cfp_sec_ip2nets(struct cfp *p, yaml_node_t *k, yaml_node_t *v, void *st);
int cfp_sec_peer(struct cfp *p, yaml_node_t *k, yaml_node_t *v, void *st);
/* One item of the peer: list (the reader walks them as they come). */
int cfp_peer_item(struct cfp *p, yaml_node_t *item, void *st);
/* Where the walk comes to the peer: list read early: its ops, or its error. */
int cfp_streamed(struct cfp *p);
int cfp_sec_peers(struct cfp *p, yaml_node_t *k, yaml_node_t *v, void *st);
int cfp_sec_route(struct cfp *p, yaml_node_t *k, yaml_node_t *v, void *st);
int cfp_sec_udsp(struct cfp *p, yaml_node_t *k, yaml_node_t *v, void *st);
int cfp_sec_selection(struct cfp *p, yaml_node_t *k, yaml_node_t *v, void *st);
int cfp_sec_global(struct cfp *p, yaml_node_t *k, yaml_node_t *v, void *st);
int cfp_sec_numa(struct cfp *p, yaml_node_t *k, yaml_node_t *v, void *st);
int cfp_sec_routing(struct cfp *p, yaml_node_t *k, yaml_node_t *v, void *st);
int cfp_sec_buffers(struct cfp *p, yaml_node_t *k, yaml_node_t *v, void *st);
int cfp_sec_tbf(struct cfp *p, yaml_node_t *k, yaml_node_t *v, void *st);

#endif
