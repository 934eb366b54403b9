// SPDX-License-Identifier: GPL-2.0
/*
 * tbf.c - the NRS Token Bucket Filter: a policy's life, its settings and
 * the reporting.  The contract is in tbf.h; the engine's pieces are in
 * tbf-rule.c (request fields, rule terms, rule lists), tbf-parse.c (rule
 * commands) and tbf-sched.c (buckets, heaps, classes, the request path),
 * each with its reasons.
 */
#include "nid.h"
#include "tbf-int.h"

#define HASH_MIN_BUCKETS 64u

/* --- the policy ------------------------------------------------------------------------ */

static int head_init(struct head *h)
{
	h->fields = LNE_TBF_NID;
	h->depth = LNE_TBF_DEPTH_DEFAULT;
	h->gen = 1;
	lne_list_init(&h->rules);
	lne_list_init(&h->active);
	lne_list_init(&h->idle);
	h->bucket = lne_zalloc(HASH_MIN_BUCKETS * sizeof(*h->bucket));
	h->deflt = lne_zalloc(sizeof(*h->deflt));
	if (!h->bucket || !h->deflt)
		return -ENOMEM;
	h->nbuckets = HASH_MIN_BUCKETS;
	memcpy(h->deflt->name, "default", sizeof("default"));
	h->deflt->rate = LNE_TBF_RATE_DEFAULT;
	lne_list_add_tail(&h->deflt->link, &h->rules);
	h->nrules = 1;
	return 0;
}

static void head_free(struct head *h)
{
	struct lne_tbf_rule *r, *n;
	int i;

	if (!h->bucket) {
		lne_free(h->deflt);
		return;
	}
	tbfi_head_drop_classes(h);
	lne_list_for_each_entry_safe(r, n, &h->rules, link)
		tbfi_rule_free(r);
	lne_free(h->bucket);
	for (i = 0; i < NHEAPS; i++)
		lne_free(h->heap[i].slot);
}

int lne_tbf_new(const char *service, struct lne_tbf **out, struct lne_err *err)
{
	size_t i, n = strlen(service);
	struct lne_tbf *tbf;

	if (!n)
		return lne_err_set(err, -EINVAL, service, 0, "empty service name");
	if (n > LNE_TBF_SERVICE_MAX)
		return lne_err_set(err, -EINVAL, service, LNE_TBF_SERVICE_MAX,
				   "service name is longer than %d characters",
				   LNE_TBF_SERVICE_MAX);
	for (i = 0; i < n; i++)
		if (!tbfi_is_name_char(service[i]))
			return lne_err_set(err, -EINVAL, service, (int)i,
					   "service name may hold only letters, digits and '_'");
	tbf = lne_zalloc(sizeof(*tbf));
	if (!tbf)
		return -ENOMEM;
	memcpy(tbf->service, service, n);
	tbf->max_classes = LNE_TBF_CLASSES_DEFAULT;
	tbf->idle_ns = LNE_TBF_IDLE_DEFAULT;
	for (i = 0; i < LNE_TBF_NQUEUES; i++) {
		if (head_init(&tbf->q[i])) {
			lne_tbf_free(tbf);
			return -ENOMEM;
		}
	}
	*out = tbf;
	return 0;
}

void lne_tbf_free(struct lne_tbf *tbf)
{
	int i;

	if (!tbf)
		return;
	for (i = 0; i < LNE_TBF_NQUEUES; i++)
		head_free(&tbf->q[i]);
	lne_free(tbf);
}

const char *lne_tbf_service(const struct lne_tbf *tbf)
{
	return tbf->service;
}

int lne_tbf_set_type(struct lne_tbf *tbf, enum lne_tbf_queue qi, const char *type,
		     struct lne_err *err)
{
	struct head *h = &tbf->q[qi];
	struct lne_tbf_rule *r;
	u8 mask;
	int rc;

	rc = lne_tbf_type_parse(type, &mask, err);
	if (rc)
		return rc;
	if (h->queued)
		return lne_err_set(
			err, -EBUSY, type, -1,
			"the %s queue holds %llu requests; change its type when it is empty",
			tbfi_queue_names[qi], (unsigned long long)h->queued);
	lne_list_for_each_entry(r, &h->rules, link) {
		u8 missing = tbfi_terms_fields(r->term, r->nterm) & ~mask;

		if (missing)
			return lne_err_set(
				err, -EINVAL, type, -1,
				"rule '%s' of the %s queue tests %s, which this type lacks; stop it first",
				r->name, tbfi_queue_names[qi],
				tbfi_field_name(missing & (u8)-missing));
	}
	tbfi_head_drop_classes(h);
	h->fields = mask;
	h->gen++;
	return 0;
}

int lne_tbf_set_depth(struct lne_tbf *tbf, enum lne_tbf_queue qi, u32 depth, u64 now,
		      struct lne_err *err)
{
	struct head *h = &tbf->q[qi];

	if (depth < 1 || depth > LNE_TBF_DEPTH_MAX)
		return lne_err_set(err, -EINVAL, NULL, -1,
				   "bucket depth %u is outside 1..%u tokens", depth,
				   LNE_TBF_DEPTH_MAX);
	h->depth = depth;
	tbfi_head_changed(h, (s64)now);
	return 0;
}

int lne_tbf_set_limits(struct lne_tbf *tbf, u32 max_classes, u64 idle_ns, struct lne_err *err)
{
	if (max_classes < 1 || max_classes > LNE_TBF_CLASSES_MAX)
		return lne_err_set(err, -EINVAL, NULL, -1, "class limit %u is outside 1..%u",
				   max_classes, LNE_TBF_CLASSES_MAX);
	tbf->max_classes = max_classes;
	tbf->idle_ns = idle_ns;
	return 0;
}

/* --- reporting ------------------------------------------------------------------------- */

void lne_tbf_queue_info(const struct lne_tbf *tbf, enum lne_tbf_queue qi,
			struct lne_tbf_queue_info *info)
{
	const struct head *h = &tbf->q[qi];

	info->fields = h->fields;
	info->depth = h->depth;
	info->nrules = h->nrules;
	info->nclasses = h->nclasses;
	info->nactive = h->nactive;
	info->queued = h->queued;
	info->gen = h->gen;
	info->cgen = h->cgen;
}

const struct lne_tbf_rule *lne_tbf_rule_next(const struct lne_tbf *tbf, enum lne_tbf_queue qi,
					     const struct lne_tbf_rule *prev)
{
	const struct lne_list *head = &tbf->q[qi].rules;
	const struct lne_list *at = prev ? prev->link.next : head->next;

	return at == head ? NULL : lne_list_entry(at, struct lne_tbf_rule, link);
}

const struct lne_tbf_rule *lne_tbf_rule_find(const struct lne_tbf *tbf, enum lne_tbf_queue qi,
					     const char *name)
{
	return tbfi_rule_find(&tbf->q[qi], name);
}

const struct lne_tbf_class *lne_tbf_class_next(const struct lne_tbf *tbf, enum lne_tbf_queue qi,
					       const struct lne_tbf_class *prev)
{
	const struct head *h = &tbf->q[qi];
	u32 b = 0;

	if (prev) {
		if (prev->hnext)
			return prev->hnext;
		b = (prev->hash & (h->nbuckets - 1)) + 1;
	}
	for (; b < h->nbuckets; b++)
		if (h->bucket[b])
			return h->bucket[b];
	return NULL;
}

const struct lne_tbf_class *lne_tbf_class_find(const struct lne_tbf *tbf, enum lne_tbf_queue qi,
					       const struct lne_tbf_req *req)
{
	const struct head *h = &tbf->q[qi];

	return tbfi_class_lookup(h, tbfi_req_hash(h->fields, req), req);
}

const struct lne_tbf_rule *lne_tbf_class_rule(const struct lne_tbf *tbf,
					      const struct lne_tbf_class *c)
{
	const struct head *h = &tbf->q[c->queue];

	if (c->rule && c->gen == h->gen)
		return c->rule;
	return tbfi_first_match(h, c);
}

int lne_tbf_class_format(const struct lne_tbf_class *c, char *buf, size_t size)
{
	char nid[LNE_NID_STR_MAX];
	const struct tbfi_field *f;
	const char *name;
	struct lne_sb sb;
	int i;

	lne_sb_init(&sb, buf, size);
	if (c->fields & LNE_TBF_NID) {
		lne_nid_format(&c->nid, nid, sizeof(nid));
		lne_sb_printf(&sb, "nid=%s", nid);
	}
	if (c->fields & LNE_TBF_JOBID)
		lne_sb_printf(&sb, "%sjobid=%s", sb.len ? " " : "", c->jobid);
	for (i = 0; i < LNE_TBF_NFIELDS; i++) {
		f = &tbfi_fields[i];
		if (!(c->fields & f->bit) || f->num < 0)
			continue;
		name = f->kind == LNE_TBF_K_OPCODE ? lne_tbf_opcode_name(c->num[f->num]) : NULL;
		if (name)
			lne_sb_printf(&sb, "%s%s=%s", sb.len ? " " : "", f->name, name);
		else
			lne_sb_printf(&sb, "%s%s=%u", sb.len ? " " : "", f->name, c->num[f->num]);
	}
	return lne_sb_result(&sb);
}
