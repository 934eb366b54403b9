// SPDX-License-Identifier: GPL-2.0
/*
 * tbf-rule.c - the NRS TBF's rules: the request fields and opcodes they
 * name, queue types, condition terms and their matching, rule lists and the
 * commands that change them, and the text that recreates a rule.
 *
 *  - Commands are parsed, then checked against every queue they touch, and
 *    only then applied; applying cannot fail, so a command is all or nothing.
 */
#include "expr.h"
#include "tbf-int.h"

const char *const tbfi_queue_names[] = {"reg", "hp"};

#define FIELD_NUM_NID(id)	       -1
#define FIELD_NUM_GLOB(id)	       -1
#define FIELD_NUM_OPCODE(id)	       LNE_TBF_N_##id
#define FIELD_NUM_NUM(id)	       LNE_TBF_N_##id
#define FIELD_ROW(id, name, kind, ...) {name, LNE_TBF_##id, LNE_TBF_K_##kind, FIELD_NUM_##kind(id)},
const struct tbfi_field tbfi_fields[LNE_TBF_NFIELDS] = {LNE_TBF_FIELD_LIST(FIELD_ROW, )};
#undef FIELD_ROW

static const struct {
	u16 num;
	const char *name;
} opcodes[] = {
	{0, "ost_reply"},
	{1, "ost_getattr"},
	{2, "ost_setattr"},
	{3, "ost_read"},
	{4, "ost_write"},
	{5, "ost_create"},
	{6, "ost_destroy"},
	{7, "ost_get_info"},
	{8, "ost_connect"},
	{9, "ost_disconnect"},
	{10, "ost_punch"},
	{11, "ost_open"},
	{12, "ost_close"},
	{13, "ost_statfs"},
	{16, "ost_sync"},
	{17, "ost_set_info"},
	{18, "ost_quotacheck"},
	{19, "ost_quotactl"},
	{20, "ost_quota_adjust_qunit"},
	{21, "ost_ladvise"},
	{22, "ost_fallocate"},
	{23, "ost_seek"},
	{33, "mds_getattr"},
	{34, "mds_getattr_name"},
	{35, "mds_close"},
	{36, "mds_reint"},
	{37, "mds_readpage"},
	{38, "mds_connect"},
	{39, "mds_disconnect"},
	{40, "mds_get_root"},
	{41, "mds_statfs"},
	{42, "mds_pin"},
	{43, "mds_unpin"},
	{44, "mds_sync"},
	{45, "mds_done_writing"},
	{46, "mds_set_info"},
	{47, "mds_quotacheck"},
	{48, "mds_quotactl"},
	{49, "mds_getxattr"},
	{50, "mds_setxattr"},
	{51, "mds_writepage"},
	{52, "mds_is_subdir"},
	{53, "mds_get_info"},
	{54, "mds_hsm_state_get"},
	{55, "mds_hsm_state_set"},
	{56, "mds_hsm_action"},
	{57, "mds_hsm_progress"},
	{58, "mds_hsm_request"},
	{59, "mds_hsm_ct_register"},
	{60, "mds_hsm_ct_unregister"},
	{61, "mds_swap_layouts"},
	{62, "mds_rmfid"},
	{63, "mds_batch"},
	{101, "ldlm_enqueue"},
	{102, "ldlm_convert"},
	{103, "ldlm_cancel"},
	{104, "ldlm_bl_callback"},
	{105, "ldlm_cp_callback"},
	{106, "ldlm_gl_callback"},
	{107, "ldlm_set_info"},
	{250, "mgs_connect"},
	{251, "mgs_disconnect"},
	{252, "mgs_exception"},
	{253, "mgs_target_reg"},
	{254, "mgs_target_del"},
	{255, "mgs_set_info"},
	{256, "mgs_config_read"},
	{400, "obd_ping"},
	{401, "obd_log_cancel"},
	{402, "obd_qc_callback"},
	{403, "obd_idx_read"},
	{501, "llog_origin_handle_create"},
	{502, "llog_origin_handle_next_block"},
	{503, "llog_origin_handle_read_header"},
	{505, "llog_origin_handle_close"},
	{508, "llog_origin_handle_prev_block"},
	{509, "llog_origin_handle_destroy"},
	{700, "seq_query"},
	{801, "sec_ctx_init"},
	{802, "sec_ctx_init_cont"},
	{803, "sec_ctx_fini"},
	{900, "fld_query"},
	{901, "fld_read"},
	{1000, "out_update"},
	{1101, "lfsck_notify"},
	{1102, "lfsck_query"},
};

const char *lne_tbf_opcode_name(u32 opcode)
{
	size_t i;

	for (i = 0; i < LNE_ARRAY_SIZE(opcodes); i++)
		if (opcodes[i].num == opcode)
			return opcodes[i].name;
	return NULL;
}

bool tbfi_span_is(struct lne_span s, const char *word)
{
	return s.n == strlen(word) && !memcmp(s.p, word, s.n);
}

int lne_tbf_opcode_lookup(const char *name, size_t len)
{
	struct lne_span s = {name, len};
	size_t i;

	for (i = 0; i < LNE_ARRAY_SIZE(opcodes); i++)
		if (tbfi_span_is(s, opcodes[i].name))
			return opcodes[i].num;
	return -ENOENT;
}

int tbfi_field_lookup(struct lne_span s)
{
	size_t i;

	for (i = 0; i < LNE_ARRAY_SIZE(tbfi_fields); i++)
		if (tbfi_span_is(s, tbfi_fields[i].name))
			return tbfi_fields[i].bit;
	return -ENOENT;
}

const char *tbfi_field_name(u8 bit)
{
	size_t i;

	for (i = 0; i < LNE_ARRAY_SIZE(tbfi_fields); i++)
		if (tbfi_fields[i].bit == bit)
			return tbfi_fields[i].name;
	return "?";
}

int tbfi_field_index(u8 bit)
{
	int i = 0;

	while (bit > 1) {
		bit >>= 1;
		i++;
	}
	return i;
}

bool tbfi_is_name_char(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || lne_isdigit(ch) || ch == '_';
}

/* --- types --------------------------------------------------------------------- */

int lne_tbf_type_parse(const char *s, u8 *out, struct lne_err *err)
{
	const char *p = s, *end = s + strlen(s);
	u8 mask = 0;

	if (p == end)
		return lne_err_set(err, -EINVAL, s, 0,
				   "empty type (use " LNE_TBF_FIELD_NAMES " or a '+' of them)");
	for (;;) {
		const char *plus = memchr(p, '+', (size_t)(end - p));
		struct lne_span f = {p, (size_t)((plus ? plus : end) - p)};
		int bit = tbfi_field_lookup(f);

		if (bit < 0)
			return lne_err_set(err, -EINVAL, s, (int)(p - s),
					   "'%.*s' is not a field (" LNE_TBF_FIELD_NAMES ")",
					   (int)f.n, f.p);
		if (mask & bit)
			return lne_err_set(err, -EINVAL, s, (int)(p - s), "%s appears twice",
					   tbfi_field_name((u8)bit));
		mask |= (u8)bit;
		if (!plus)
			break;
		p = plus + 1;
	}
	*out = mask;
	return 0;
}

int lne_tbf_type_format(u8 mask, char *buf, size_t size)
{
	struct lne_sb sb;
	size_t i;

	lne_sb_init(&sb, buf, size);
	for (i = 0; i < LNE_ARRAY_SIZE(tbfi_fields); i++) {
		if (!(mask & tbfi_fields[i].bit))
			continue;
		if (sb.len)
			lne_sb_putc(&sb, '+');
		lne_sb_puts(&sb, tbfi_fields[i].name);
	}
	return lne_sb_result(&sb);
}

/* --- rule terms -------------------------------------------------------------------- */

static void terms_free(struct lne_tbf_term *t, u16 n)
{
	u16 i;

	if (!t)
		return;
	for (i = 0; i < n; i++) {
		if (t[i].kind == LNE_TBF_K_NID)
			lne_expr_free(t[i].v.nid);
		else if (t[i].kind == LNE_TBF_K_GLOB)
			lne_free(t[i].v.glob);
		else
			lne_free(t[i].v.num);
	}
	lne_free(t);
}

u8 tbfi_terms_fields(const struct lne_tbf_term *t, u16 n)
{
	u8 mask = 0;
	u16 i;

	for (i = 0; i < n; i++)
		mask |= t[i].field;
	return mask;
}

/* '*' matches any run of characters; no recursion, linear backtracking. */
static bool glob_match(const char *pat, const char *s)
{
	const char *star = NULL, *resume = NULL;

	while (*s) {
		if (*pat == '*') {
			star = pat++;
			resume = s;
		} else if (*pat == *s) {
			pat++;
			s++;
		} else if (star) {
			pat = star + 1;
			s = ++resume;
		} else {
			return false;
		}
	}
	while (*pat == '*')
		pat++;
	return !*pat;
}

static bool num_in(const struct lne_tbf_term *t, u32 v)
{
	u16 i;

	for (i = 0; i < t->n; i++)
		if (t->v.num[i] == v)
			return true;
	return false;
}

/* Every kind has its case and none a default: -Wswitch names a missing one. */
static bool term_match(const struct lne_tbf_term *t, const struct lne_tbf_class *c)
{
	u16 i;

	switch ((enum lne_tbf_kind)t->kind) {
	case LNE_TBF_K_NID:
		return lne_expr_match_nid(t->v.nid, &c->nid);
	case LNE_TBF_K_GLOB:
		for (i = 0; i < t->n; i++)
			if (glob_match(t->v.glob[i], c->jobid))
				return true;
		return false;
	case LNE_TBF_K_OPCODE:
	case LNE_TBF_K_NUM:
		return num_in(t, c->num[t->num]);
	}
	return false; /* not a kind: the parser makes no such term */
}

bool tbfi_rule_match(const struct lne_tbf_rule *r, const struct lne_tbf_class *c)
{
	bool ok = true;
	u16 i;

	if (!r->nterm)
		return true;
	for (i = 0; i < r->nterm; i++) {
		ok = ok && term_match(&r->term[i], c);
		if (r->term[i].last) {
			if (ok)
				return true;
			ok = true;
		}
	}
	return false;
}

/* --- rules ------------------------------------------------------------------------------- */

struct lne_tbf_rule *tbfi_rule_find(const struct head *h, const char *name)
{
	struct lne_tbf_rule *r;

	lne_list_for_each_entry(r, &h->rules, link)
		if (!strcmp(r->name, name))
			return r;
	return NULL;
}

void tbfi_rule_free(struct lne_tbf_rule *r)
{
	if (!r)
		return;
	terms_free(r->term, r->nterm);
	lne_free(r);
}

/* Can @c be applied to queue @qi?  Errors name the queue. */
static int cmd_check(struct cmd *c, const struct head *h, enum lne_tbf_queue qi)
{
	const char *q = tbfi_queue_names[qi];
	u8 missing = c->fields & ~h->fields;
	char type[48];

	if (c->op == OP_START) {
		if (tbfi_rule_find(h, c->name))
			return tbfi_fail(c, -EEXIST, c->name_at,
					 "a rule named '%s' already exists in the %s queue",
					 c->name, q);
		if (h->nrules - 1 >= LNE_TBF_RULES_MAX)
			return tbfi_fail(c, -ENOSPC, c->name_at,
					 "the %s queue already has %d rules", q, LNE_TBF_RULES_MAX);
		if (missing) {
			u8 bit = missing & (u8)-missing;

			lne_tbf_type_format(h->fields, type, sizeof(type));
			return tbfi_fail(
				c, -EINVAL, c->field_at[tbfi_field_index(bit)],
				"the %s queue's classes are keyed by %s, so a rule cannot test %s (use a type that includes it)",
				q, type, tbfi_field_name(bit));
		}
	} else if (!tbfi_rule_find(h, c->name)) {
		return tbfi_fail(c, -ENOENT, c->name_at, "no rule named '%s' in the %s queue",
				 c->name, q);
	}
	if (c->has_rank && !tbfi_rule_find(h, c->rank))
		return tbfi_fail(c, -ENOENT, c->rank_at,
				 "rank=%s: no rule named '%s' in the %s queue", c->rank, c->rank,
				 q);
	return 0;
}

/* The rule a start command creates; takes the command's terms. */
static struct lne_tbf_rule *cmd_rule(struct cmd *c)
{
	struct lne_tbf_rule *r = lne_zalloc(sizeof(*r));

	if (!r)
		return NULL;
	memcpy(r->name, c->name, sizeof(r->name));
	r->rate = c->has_rate ? c->rate : LNE_TBF_RATE_DEFAULT;
	r->realtime = c->has_rt && c->realtime;
	r->nterm = c->nterm;
	r->term = c->term;
	c->term = NULL;
	c->nterm = 0;
	return r;
}

static void cmd_apply(struct head *h, struct cmd *c, struct lne_tbf_rule *nr, s64 now)
{
	struct lne_tbf_rule *r = tbfi_rule_find(h, c->name), *rank;
	struct lne_tbf_class *cls;

	rank = c->has_rank ? tbfi_rule_find(h, c->rank) : NULL;
	switch (c->op) {
	case OP_START:
		if (rank)
			lne_list_add_before(&nr->link, &rank->link);
		else
			lne_list_insert(&nr->link, &h->rules, h->rules.next);
		h->nrules++;
		tbfi_head_changed(h, now);
		break;
	case OP_CHANGE:
		if (c->has_rate)
			r->rate = c->rate;
		if (rank) {
			lne_list_del(&r->link);
			lne_list_add_before(&r->link, &rank->link);
		}
		tbfi_head_changed(h, now);
		break;
	default:
		lne_list_del(&r->link);
		h->nrules--;
		lne_list_for_each_entry(cls, &h->idle, link) {
			if (cls->rule == r) {
				cls->rule = NULL;
				r->nclasses--;
			}
		}
		tbfi_head_changed(h, now); /* active classes leave r */
		tbfi_rule_free(r);
		break;
	}
}

int lne_tbf_command(struct lne_tbf *tbf, const char *text, u64 now, struct lne_err *err)
{
	struct lne_tbf_rule *nr[LNE_TBF_NQUEUES] = {NULL, NULL};
	struct cmd c[LNE_TBF_NQUEUES];
	enum lne_tbf_queue qi[LNE_TBF_NQUEUES];
	int rc, i, n = 0;

	memset(c, 0, sizeof(c));
	rc = tbfi_cmd_parse(&c[0], text, err);
	if (rc)
		goto out;
	for (i = 0; i < LNE_TBF_NQUEUES; i++)
		if (c[0].queues & (1 << i))
			qi[n++] = (enum lne_tbf_queue)i;
	/* Each queue owns its rule: a second parse gives the second its terms. */
	if (n > 1) {
		rc = tbfi_cmd_parse(&c[1], text, err);
		if (rc)
			goto out;
	}
	for (i = 0; i < n; i++) {
		rc = cmd_check(&c[i], &tbf->q[qi[i]], qi[i]);
		if (rc)
			goto out;
	}
	for (i = 0; i < n && c[0].op == OP_START; i++) {
		nr[i] = cmd_rule(&c[i]);
		if (!nr[i]) {
			rc = -ENOMEM;
			goto out;
		}
	}
	for (i = 0; i < n; i++) {
		cmd_apply(&tbf->q[qi[i]], &c[i], nr[i], (s64)now);
		nr[i] = NULL;
	}
out:
	for (i = 0; i < LNE_TBF_NQUEUES; i++) {
		terms_free(c[i].term, c[i].nterm);
		tbfi_rule_free(nr[i]);
	}
	return rc;
}

static void sb_term(struct lne_sb *sb, const struct lne_tbf_term *t)
{
	size_t room;
	const char *name;
	u16 i;

	lne_sb_puts(sb, tbfi_field_name(t->field));
	lne_sb_puts(sb, "={");
	if (t->kind == LNE_TBF_K_NID) {
		room = sb->len < sb->size ? sb->size - sb->len : 0;
		sb->len += (size_t)lne_expr_format(t->v.nid, room ? sb->buf + sb->len : NULL, room);
	}
	for (i = 0; i < t->n && t->kind != LNE_TBF_K_NID; i++) {
		if (i)
			lne_sb_putc(sb, ' ');
		if (t->kind == LNE_TBF_K_GLOB) {
			lne_sb_puts(sb, t->v.glob[i]);
		} else if (t->kind == LNE_TBF_K_OPCODE &&
			   (name = lne_tbf_opcode_name(t->v.num[i]))) {
			lne_sb_puts(sb, name);
		} else {
			lne_sb_putu(sb, t->v.num[i]);
		}
	}
	lne_sb_putc(sb, '}');
}

int lne_tbf_rule_format(const struct lne_tbf_rule *r, char *buf, size_t size)
{
	struct lne_sb sb;
	u16 i;

	lne_sb_init(&sb, buf, size);
	if (!r->nterm) {
		lne_sb_printf(&sb, "change %s rate=%u", r->name, r->rate);
		return lne_sb_result(&sb);
	}
	lne_sb_printf(&sb, "start %s ", r->name);
	for (i = 0; i < r->nterm; i++) {
		sb_term(&sb, &r->term[i]);
		if (i + 1 < r->nterm)
			lne_sb_putc(&sb, r->term[i].last ? ',' : '&');
	}
	lne_sb_printf(&sb, " rate=%u", r->rate);
	if (r->realtime)
		lne_sb_puts(&sb, " realtime=1");
	return lne_sb_result(&sb);
}
