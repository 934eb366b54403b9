// SPDX-License-Identifier: GPL-2.0
/*
 * cases-explain.c - explain through netlink against the engine in-process.
 *
 * The conformance file says which path each selection must take; this
 * replays it once more with the engine linked into this program beside
 * the module, applies every command to both, and asks both for the reasons
 * of every selection (LNETK_F_EXPLAIN): each candidate, the step it was
 * in, the criterion it lost on and its value on every criterion must be
 * the same.  The module answers the scenario's checks, so a wrong
 * selection fails here too.
 *
 * A new instance in the module starts with node_distance() as its NUMA
 * table, a new engine instance with none: the engine here is given the
 * same table from sysfs (as lnetd does), so NUMA values compare too.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/model.h"
#include "engine/select.h"
#include "scn-kernel.h"
#include "tests/unit/scn-engine.h"
#include "vm.h"

#define ENTRIES 256

struct dual {
	struct scn_engine se;
	struct scn_kernel sk;
	struct scn_backend eng, ker;
	struct lne_exp_entry ent[ENTRIES];
	struct lnetk_entry kent[ENTRIES];
	int selects, entries, mismatches, verdicts;
	u32 dist[LNE_MAX_CPTS * LNE_MAX_CPTS];
	u16 ncpt;
};

/* node_distance() between the nodes, as sysfs shows it; one node at 10 without NUMA. */
static int host_numa(u32 *dist, u16 *ncpt)
{
	char path[64];
	u16 n, i;

	for (n = 0; n < LNE_MAX_CPTS; n++) {
		FILE *f;

		snprintf(path, sizeof(path), "/sys/devices/system/node/node%u/distance", n);
		f = fopen(path, "r");
		if (!f)
			break;
		fclose(f);
	}
	if (!n) {
		dist[0] = 10;
		*ncpt = 1;
		return 0;
	}
	for (i = 0; i < n; i++) {
		FILE *f;
		u16 j;

		snprintf(path, sizeof(path), "/sys/devices/system/node/node%u/distance", i);
		f = fopen(path, "r");
		if (!f)
			return -ENOENT;
		for (j = 0; j < n; j++)
			if (fscanf(f, "%u", &dist[i * n + j]) != 1) {
				fclose(f);
				return -EINVAL;
			}
		fclose(f);
	}
	*ncpt = n;
	return 0;
}

static int num_arg(const char *s, long *v)
{
	char *end;

	if (!s || !*s)
		return -EINVAL;
	*v = strtol(s, &end, 0);
	return *end ? -EINVAL : 0;
}

/* The engine's select, as tests/unit/scn-engine.c makes it, with explain. */
static int engine_select(struct dual *d, const struct scn_cmd *c, struct lne_explain *ex)
{
	const char *kind = scn_opt(c, "kind", "put"), *src = scn_opt(c, "src", NULL);
	struct lne_sel_req req = {.md_cpt = LNE_CPT_ANY};
	struct lne_nid srcnid;
	struct lne_sel sel;
	long cpt;
	int rc;

	rc = lne_nid_parse(scn_opt(c, "dst", ""), &req.dst, NULL);
	if (!rc && src) {
		rc = lne_nid_parse(src, &srcnid, NULL);
		req.src = &srcnid;
	}
	if (rc)
		return rc;
	if (!num_arg(scn_opt(c, "cpt", NULL), &cpt))
		req.md_cpt = (s32)cpt;
	req.kind = !strcmp(kind, "get")	    ? LNE_MSG_GET
		   : !strcmp(kind, "ack")   ? LNE_MSG_ACK
		   : !strcmp(kind, "reply") ? LNE_MSG_REPLY
					    : LNE_MSG_PUT;
	return lne_select(d->se.ln, &req, &sel, ex, NULL);
}

static int kernel_select(struct dual *d, const struct scn_cmd *c, struct lnetk_explain *ex,
			 char *out, size_t len)
{
	const char *kind = scn_opt(c, "kind", "put");
	struct lnetk_select_req req = {.dst = scn_opt(c, "dst", ""), .md_cpt = -1};
	struct lnetk_selection sel;
	struct lnetk_err err;
	long cpt;
	int rc;

	req.src = scn_opt(c, "src", NULL);
	if (!num_arg(scn_opt(c, "cpt", NULL), &cpt))
		req.md_cpt = (int32_t)cpt;
	req.kind = !strcmp(kind, "get")	    ? LNETK_MSG_GET
		   : !strcmp(kind, "ack")   ? LNETK_MSG_ACK
		   : !strcmp(kind, "reply") ? LNETK_MSG_REPLY
					    : LNETK_MSG_PUT;
	rc = lnetk_select(d->sk.lk, &req, &sel, ex, &err);
	if (rc)
		snprintf(out, len, "%s", err.msg);
	else if (sel.gateway[0])
		snprintf(out, len, "ni=%s pni=%s gw=%s", sel.ni, sel.peer_ni, sel.gateway);
	else
		snprintf(out, len, "ni=%s pni=%s", sel.ni, sel.peer_ni);
	return rc;
}

/* The first difference between two explanations, in words; "" if none. */
static void compare(const struct lne_explain *e, const struct lnetk_explain *k, char *why,
		    size_t len)
{
	char nid[LNE_NID_STR_MAX];
	size_t i;
	unsigned int j;

	why[0] = '\0';
	if (e->n != k->n || e->dropped || k->dropped) {
		snprintf(why, len, "%u entries from the engine, %zu through netlink", e->n, k->n);
		return;
	}
	for (i = 0; i < k->n; i++) {
		const struct lne_exp_entry *a = &e->ent[i];
		const struct lnetk_entry *b = &k->ent[i];

		lne_nid_format(&a->nid, nid, sizeof(nid));
		if (a->step != b->step || a->crit != b->crit || a->lost_at != b->lost_at ||
		    strcmp(nid, b->nid) || a->key.n != b->nkeys) {
			snprintf(
				why, len,
				"entry %zu: engine %s step %u crit %u lost_at %u keys %u; netlink %s "
				"step %u crit %u lost_at %u keys %u",
				i, nid, a->step, a->crit, a->lost_at, a->key.n, b->nid, b->step,
				b->crit, b->lost_at, b->nkeys);
			return;
		}
		for (j = 0; j < b->nkeys; j++)
			if (a->key.crit[j] != b->key[j].crit || a->key.v[j] != b->key[j].value ||
			    a->key.rule[j] != b->key[j].rule) {
				snprintf(
					why, len,
					"entry %zu (%s) key %u: engine crit %u value %lld rule %d; "
					"netlink crit %u value %lld rule %d",
					i, nid, j, a->key.crit[j], (long long)a->key.v[j],
					a->key.rule[j], b->key[j].crit, (long long)b->key[j].value,
					b->key[j].rule);
				return;
			}
	}
}

static int exec_dual(void *ctx, const struct scn_cmd *c, char *out, size_t len)
{
	struct dual *d = ctx;
	struct lne_explain e = {.ent = d->ent, .cap = ENTRIES};
	struct lnetk_explain k = {.ent = d->kent, .cap = ENTRIES};
	char eout[1024] = "", why[512];
	int erc, krc;

	if (c->op != SCN_SELECT) {
		erc = d->eng.exec(d->eng.ctx, c, eout, sizeof(eout));
		krc = d->ker.exec(d->ker.ctx, c, out, len);
		if (c->op == SCN_SCENARIO && !erc && lne_numa_set(d->se.ln, d->ncpt, d->dist, NULL))
			erc = -EINVAL;
		if (erc != krc || (!krc && strcmp(eout, out))) {
			if (d->verdicts++ < 10)
				fprintf(stderr,
					"line %d: the engine says %s \"%s\", the module %s \"%s\"\n",
					c->line, errname(erc), eout, errname(krc), out);
		}
		return krc;
	}
	d->selects++;
	erc = d->se.ln ? engine_select(d, c, &e) : -EINVAL;
	krc = d->sk.lk ? kernel_select(d, c, &k, out, len) : -EINVAL;
	if (erc != krc) {
		if (d->verdicts++ < 10)
			fprintf(stderr, "line %d: select: the engine says %s, the module %s\n",
				c->line, errname(erc), errname(krc));
		return krc;
	}
	if (krc)
		return krc;
	d->entries += (int)k.n;
	compare(&e, &k, why, sizeof(why));
	if (why[0] && d->mismatches++ < 10)
		fprintf(stderr, "line %d: explain differs: %s\n", c->line, why);
	return krc;
}

void cases_explain(const char *path)
{
	struct dual *d = calloc(1, sizeof(*d));
	struct scn_backend be = {.ctx = d, .exec = exec_dual};
	int checks = 0, failed;

	if (host_numa(d->dist, &d->ncpt)) {
		tap(false, "explain: read the NUMA distances from sysfs");
		free(d);
		return;
	}
	diag("explain: %u NUMA node(s), distance[0][0] %u", d->ncpt, d->dist[0]);
	scn_engine_init(&d->se, &d->eng);
	scn_kernel_init(&d->sk, &d->ker);
	failed = scn_run_file(path, &be, &checks);
	scn_engine_fini(&d->se);
	scn_kernel_fini(&d->sk);
	diag("explain: %d selections, %d entries compared; %d differ, %d verdicts differ, %d checks "
	     "failed",
	     d->selects, d->entries, d->mismatches, d->verdicts, failed);
	/* Verdicts and checks are the conformance case's business: one failure per fault. */
	tap(d->selects > 100 && d->entries > d->selects && !d->mismatches,
	    "every selection of the conformance scenarios explains itself through netlink exactly "
	    "as the engine does");
	free(d);
}
