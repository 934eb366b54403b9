// SPDX-License-Identifier: GPL-2.0
/*
 * tbf.c - the NRS Token Bucket Filter: rule commands, classes, buckets and
 * deadline heaps.  The contract is in tbf.h; the reasons are here.
 *
 *  - A bucket is kept as its deadline d (when the next token is available),
 *    in ns plus a remainder in units of 1/rate ns, not as a token count.
 *    Serving advances d by exactly 1e9/rate ns; a full bucket is d raised to
 *    now - (depth - 1) tokens' time.  Dequeue then needs no multiplication or
 *    division, and no fraction of a token is ever rounded away.  Only a rate
 *    change converts between units, through the credit in nanotokens
 *    (tokens * 1e9), which the depth bounds below 2^50.
 *  - Whether a class may send (its deadline has passed) and which ready
 *    class goes first are separate questions with separate heaps: a waiting
 *    heap keyed by deadline, and ready heaps (realtime, normal) keyed by a
 *    start-time fair queueing tag.  One heap keyed by deadline cannot do
 *    both: once every class is late, each deadline sits (depth - 2) periods
 *    before now, so the longest periods always come first and a high-rate
 *    class starves.  With the tags, an overloaded service is shared in
 *    proportion to the rates.
 *  - The heaps hold (key, class) pairs, so sifting reads contiguous memory;
 *    a waiting key is d rounded up to a whole ns.  Each heap has room for
 *    every class of its queue, reserved when a class is created, so
 *    activating, re-matching and dequeuing never allocate.
 *  - Classes remember their rate and depth themselves, so an idle class can
 *    re-match lazily (generation counter) and still convert its credit.
 *    Stopping a rule detaches its idle classes (rule = NULL) rather than
 *    keeping the rule alive by reference: the walk is over pointers only.
 *  - Commands are parsed, then checked against every queue they touch, and
 *    only then applied; applying cannot fail, so a command is all or nothing.
 */
#include "tbf.h"
#include "expr.h"
#include "text.h"

#define NSEC		 1000000000ull
#define HASH_MIN_BUCKETS 64u
#define HASH_MAX_BUCKETS (1u << 20)
#define RECLAIM_PER_CALL 2

struct lne_tbf_term {
	u8 field; /* one enum lne_tbf_field */
	u8 last;  /* the last term of its '&' group */
	u16 n;	  /* values in the list; the nid expression counts as one */
	union {
		struct lne_expr *nid;
		u32 *num;			     /* opcode, uid, gid */
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

struct lne_tbf {
	char service[LNE_TBF_SERVICE_MAX + 1];
	u32 max_classes;
	u64 idle_ns;
	struct head q[LNE_TBF_NQUEUES];
};

static const char *const queue_names[LNE_TBF_NQUEUES] = {"reg", "hp"};

static const struct {
	const char *name;
	u8 bit;
} field_table[] = {
	{"nid", LNE_TBF_NID}, {"jobid", LNE_TBF_JOBID}, {"opcode", LNE_TBF_OPCODE},
	{"uid", LNE_TBF_UID}, {"gid", LNE_TBF_GID},
};

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

static bool span_is(struct lne_span s, const char *word)
{
	return s.n == strlen(word) && !memcmp(s.p, word, s.n);
}

int lne_tbf_opcode_lookup(const char *name, size_t len)
{
	struct lne_span s = {name, len};
	size_t i;

	for (i = 0; i < LNE_ARRAY_SIZE(opcodes); i++)
		if (span_is(s, opcodes[i].name))
			return opcodes[i].num;
	return -ENOENT;
}

static int field_lookup(struct lne_span s)
{
	size_t i;

	for (i = 0; i < LNE_ARRAY_SIZE(field_table); i++)
		if (span_is(s, field_table[i].name))
			return field_table[i].bit;
	return -ENOENT;
}

static const char *field_name(u8 bit)
{
	size_t i;

	for (i = 0; i < LNE_ARRAY_SIZE(field_table); i++)
		if (field_table[i].bit == bit)
			return field_table[i].name;
	return "?";
}

static int field_index(u8 bit)
{
	int i = 0;

	while (bit > 1) {
		bit >>= 1;
		i++;
	}
	return i;
}

static bool is_name_char(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || lne_isdigit(ch) || ch == '_';
}

/* Length of a string of at most @max bytes that need not be NUL-ended. */
static size_t bounded_len(const char *s, size_t max)
{
	size_t n = 0;

	while (n < max && s[n])
		n++;
	return n;
}

/* --- types --------------------------------------------------------------------- */

int lne_tbf_type_parse(const char *s, u8 *out, struct lne_err *err)
{
	const char *p = s, *end = s + strlen(s);
	u8 mask = 0;

	if (p == end)
		return lne_err_set(
			err, -EINVAL, s, 0,
			"empty type (use nid, jobid, opcode, uid, gid or a '+' of them)");
	for (;;) {
		const char *plus = memchr(p, '+', (size_t)(end - p));
		struct lne_span f = {p, (size_t)((plus ? plus : end) - p)};
		int bit = field_lookup(f);

		if (bit < 0)
			return lne_err_set(err, -EINVAL, s, (int)(p - s),
					   "'%.*s' is not a field (nid, jobid, opcode, uid, gid)",
					   (int)f.n, f.p);
		if (mask & bit)
			return lne_err_set(err, -EINVAL, s, (int)(p - s), "%s appears twice",
					   field_name((u8)bit));
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
	for (i = 0; i < LNE_ARRAY_SIZE(field_table); i++) {
		if (!(mask & field_table[i].bit))
			continue;
		if (sb.len)
			lne_sb_putc(&sb, '+');
		lne_sb_puts(&sb, field_table[i].name);
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
		if (t[i].field == LNE_TBF_NID)
			lne_expr_free(t[i].v.nid);
		else if (t[i].field == LNE_TBF_JOBID)
			lne_free(t[i].v.glob);
		else
			lne_free(t[i].v.num);
	}
	lne_free(t);
}

static u8 terms_fields(const struct lne_tbf_term *t, u16 n)
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

static bool term_match(const struct lne_tbf_term *t, const struct lne_tbf_class *c)
{
	u32 v;
	u16 i;

	switch (t->field) {
	case LNE_TBF_NID:
		return lne_expr_match_nid(t->v.nid, &c->nid);
	case LNE_TBF_JOBID:
		for (i = 0; i < t->n; i++)
			if (glob_match(t->v.glob[i], c->jobid))
				return true;
		return false;
	case LNE_TBF_OPCODE:
		v = c->opcode;
		break;
	case LNE_TBF_UID:
		v = c->uid;
		break;
	default:
		v = c->gid;
		break;
	}
	for (i = 0; i < t->n; i++)
		if (t->v.num[i] == v)
			return true;
	return false;
}

static bool rule_match(const struct lne_tbf_rule *r, const struct lne_tbf_class *c)
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

/* --- command parsing ----------------------------------------------------------------- */

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
	u8 fields; /* fields the terms test */
	const char *field_at[LNE_ARRAY_SIZE(field_table)];
	u16 nterm;
	struct lne_tbf_term *term; /* LNE_TBF_TERMS_MAX entries */
};

static int fail(struct cmd *c, int rc, const char *at, const char *fmt, ...) lne_printf(4, 5);

static int fail(struct cmd *c, int rc, const char *at, const char *fmt, ...)
{
	char sentence[LNE_ERR_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(sentence, sizeof(sentence), fmt, ap);
	va_end(ap);
	return lne_err_set(c->err, rc, c->in, at ? (int)(at - c->in) : -1, "%s", sentence);
}

/* The next word from *@pos: a run of non-space in which braces group spaces. */
static int next_word(struct cmd *c, size_t *pos, struct lne_span *w)
{
	size_t i = *pos, start;
	bool inside = false;

	while (i < c->len && lne_isspace(c->in[i]))
		i++;
	start = i;
	for (; i < c->len && (inside || !lne_isspace(c->in[i])); i++) {
		if (c->in[i] == '{') {
			if (inside)
				return fail(c, -EINVAL, c->in + i, "'{' inside a {list}");
			inside = true;
		} else if (c->in[i] == '}') {
			if (!inside)
				return fail(c, -EINVAL, c->in + i, "'}' without '{'");
			inside = false;
		}
	}
	if (inside)
		return fail(c, -EINVAL, c->in + start, "missing '}' in '%.*s'", (int)(i - start),
			    c->in + start);
	*w = (struct lne_span){c->in + start, i - start};
	*pos = i;
	return 0;
}

static int parse_name(struct cmd *c, struct lne_span w, char *out, const char *what)
{
	size_t i;

	if (w.n > LNE_TBF_NAME_MAX)
		return fail(c, -EINVAL, w.p, "%s '%.*s' is longer than %d characters", what,
			    (int)w.n, w.p, LNE_TBF_NAME_MAX);
	for (i = 0; i < w.n; i++)
		if (!is_name_char(w.p[i]))
			return fail(c, -EINVAL, w.p,
				    "%s '%.*s' may hold only letters, digits and '_'", what,
				    (int)w.n, w.p);
	if (!w.n)
		return fail(c, -EINVAL, w.p, "%s is empty", what);
	memcpy(out, w.p, w.n);
	out[w.n] = '\0';
	return 0;
}

static int parse_rate(struct cmd *c, struct lne_span v)
{
	int rc;

	if (c->has_rate)
		return fail(c, -EINVAL, v.p, "the rate is given twice");
	rc = lne_parse_u32(v, false, LNE_TBF_RATE_MAX, &c->rate);
	if (rc == -ERANGE)
		return fail(c, -EINVAL, v.p, "rate %.*s is above the maximum %u", (int)v.n, v.p,
			    LNE_TBF_RATE_MAX);
	if (rc)
		return fail(c, -EINVAL, v.p, "rate '%.*s' is not a number", (int)v.n, v.p);
	if (!c->rate)
		return fail(c, -EINVAL, v.p, "rate must be at least 1 request per second");
	c->has_rate = true;
	return 0;
}

static bool all_digits(struct lne_span w)
{
	size_t i;

	for (i = 0; i < w.n; i++)
		if (!lne_isdigit(w.p[i]))
			return false;
	return w.n > 0;
}

static bool is_option(struct lne_span w)
{
	const char *eq = w.n ? memchr(w.p, '=', w.n) : NULL;
	struct lne_span key;

	if (!eq)
		return false;
	key = (struct lne_span){w.p, (size_t)(eq - w.p)};
	return span_is(key, "rate") || span_is(key, "rank") || span_is(key, "realtime");
}

static int parse_option(struct cmd *c, struct lne_span w)
{
	const char *eq = w.n ? memchr(w.p, '=', w.n) : NULL;
	struct lne_span key, val;

	if (!eq || !is_option(w))
		return fail(c, -EINVAL, w.p, "'%.*s' is not an option (%s)", (int)w.n, w.p,
			    c->op == OP_START ? "rate=, rank=, realtime=" : "rate=, rank=");
	key = (struct lne_span){w.p, (size_t)(eq - w.p)};
	val = (struct lne_span){eq + 1, (size_t)(w.p + w.n - eq - 1)};
	if (span_is(key, "rate"))
		return parse_rate(c, val);
	if (span_is(key, "rank")) {
		if (c->has_rank)
			return fail(c, -EINVAL, w.p, "rank= is given twice");
		c->has_rank = true;
		c->rank_at = val.p;
		return parse_name(c, val, c->rank, "rank= rule name");
	}
	if (c->op != OP_START)
		return fail(c, -EINVAL, w.p,
			    "change cannot set realtime=; stop the rule and start it again");
	if (c->has_rt)
		return fail(c, -EINVAL, w.p, "realtime= is given twice");
	if (!span_is(val, "0") && !span_is(val, "1"))
		return fail(c, -EINVAL, val.p, "realtime= takes 0 or 1, not '%.*s'", (int)val.n,
			    val.p);
	c->has_rt = true;
	c->realtime = val.p[0] == '1';
	return 0;
}

static struct lne_span trim(struct lne_span s)
{
	while (s.n && lne_isspace(s.p[0])) {
		s.p++;
		s.n--;
	}
	while (s.n && lne_isspace(s.p[s.n - 1]))
		s.n--;
	return s;
}

/* The next space-separated value of a list span, advancing *@p. */
static bool next_value(const char **p, const char *end, struct lne_span *v)
{
	const char *q = *p;

	while (q < end && lne_isspace(*q))
		q++;
	if (q == end)
		return false;
	v->p = q;
	while (q < end && !lne_isspace(*q))
		q++;
	v->n = (size_t)(q - v->p);
	*p = q;
	return true;
}

static int parse_nid_list(struct cmd *c, struct lne_tbf_term *t, struct lne_span s)
{
	struct lne_err inner = {.pos = -1};
	char *text;
	int rc, at;

	if (s.n > LNE_EXPR_MAX_LEN)
		return fail(c, -EINVAL, s.p, "the nid list is longer than %u characters",
			    LNE_EXPR_MAX_LEN);
	text = lne_zalloc(s.n + 1);
	if (!text)
		return -ENOMEM;
	memcpy(text, s.p, s.n);
	rc = lne_expr_parse(text, &t->v.nid, &inner);
	lne_free(text);
	if (rc == -ENOMEM)
		return rc;
	if (rc) {
		at = inner.pos >= 0 && (size_t)inner.pos <= s.n ? inner.pos : 0;
		return fail(c, rc, s.p + at, "%s", inner.msg);
	}
	t->n = 1;
	return 0;
}

static int parse_values(struct cmd *c, struct lne_tbf_term *t, struct lne_span s)
{
	const char *name = field_name(t->field), *p = s.p, *end = s.p + s.n;
	struct lne_span v;
	u16 n = 0, i = 0;
	u32 num;
	int rc;

	while (next_value(&p, end, &v))
		n++;
	if (n > LNE_TBF_VALUES_MAX)
		return fail(c, -EINVAL, s.p, "more than %d values in %s={...}", LNE_TBF_VALUES_MAX,
			    name);
	if (t->field == LNE_TBF_JOBID) {
		t->v.glob = lne_zalloc(n * sizeof(*t->v.glob));
		if (!t->v.glob)
			return -ENOMEM;
	} else {
		t->v.num = lne_zalloc(n * sizeof(*t->v.num));
		if (!t->v.num)
			return -ENOMEM;
	}
	t->n = n;
	for (p = s.p; next_value(&p, end, &v); i++) {
		switch (t->field) {
		case LNE_TBF_JOBID:
			if (v.n > LNE_TBF_JOBID_MAX)
				return fail(c, -EINVAL, v.p,
					    "jobid '%.*s' is longer than %d characters", (int)v.n,
					    v.p, LNE_TBF_JOBID_MAX);
			memcpy(t->v.glob[i], v.p, v.n);
			break;
		case LNE_TBF_OPCODE:
			rc = lne_tbf_opcode_lookup(v.p, v.n);
			if (rc < 0)
				return fail(
					c, -EINVAL, v.p,
					"'%.*s' is not an opcode (e.g. ost_read, ost_write, mds_reint, ldlm_enqueue)",
					(int)v.n, v.p);
			t->v.num[i] = (u32)rc;
			break;
		default:
			rc = lne_parse_u32(v, false, U32_MAX, &num);
			if (rc == -ERANGE)
				return fail(c, -EINVAL, v.p, "%s %.*s is above %u", name, (int)v.n,
					    v.p, U32_MAX);
			if (rc)
				return fail(c, -EINVAL, v.p, "%s '%.*s' is not a number", name,
					    (int)v.n, v.p);
			t->v.num[i] = num;
			break;
		}
	}
	return 0;
}

static int add_term(struct cmd *c, u8 field, const char *at, struct lne_span list,
		    struct lne_tbf_term **out)
{
	struct lne_tbf_term *t;
	int rc;

	if (c->nterm == LNE_TBF_TERMS_MAX)
		return fail(c, -EINVAL, at, "more than %d conditions", LNE_TBF_TERMS_MAX);
	if (!c->term) {
		c->term = lne_zalloc(LNE_TBF_TERMS_MAX * sizeof(*c->term));
		if (!c->term)
			return -ENOMEM;
	}
	t = &c->term[c->nterm++];
	t->field = field;
	list = trim(list);
	if (!list.n)
		return fail(c, -EINVAL, at, "%s={} is empty", field_name(field));
	if (!(c->fields & field))
		c->field_at[field_index(field)] = at;
	c->fields |= field;
	rc = field == LNE_TBF_NID ? parse_nid_list(c, t, list) : parse_values(c, t, list);
	*out = t;
	return rc;
}

/*
 * Conditions: term { ('&' | ',') term }, term := field={list}.  Spaces are
 * allowed around the operators.  The words were cut by next_word(), so the
 * braces in @s are balanced and not nested.
 */
static int parse_terms(struct cmd *c, struct lne_span s)
{
	const char *p = s.p, *end = s.p + s.n;
	struct lne_tbf_term *t = NULL;
	u8 group = 0; /* fields of the current '&' group */
	char sep = 0;
	int rc;

	for (;;) {
		const char *name, *close;
		struct lne_span f;
		int bit;

		while (p < end && lne_isspace(*p))
			p++;
		if (p == end)
			return fail(c, -EINVAL, end, "missing a condition after '%c'", sep);
		name = p;
		while (p < end && is_name_char(*p))
			p++;
		f = (struct lne_span){name, (size_t)(p - name)};
		if (!f.n)
			return fail(c, -EINVAL, name,
				    "expected a condition such as nid={...} at '%c'", *name);
		bit = field_lookup(f);
		if (bit < 0)
			return fail(c, -EINVAL, name,
				    "'%.*s' is not a field (nid, jobid, opcode, uid, gid)",
				    (int)f.n, f.p);
		if (p == end || *p != '=' || p + 1 == end || p[1] != '{')
			return fail(c, -EINVAL, name, "%.*s must be followed by ={list}", (int)f.n,
				    f.p);
		if (group & bit)
			return fail(c, -EINVAL, name, "%.*s appears twice in one '&' group",
				    (int)f.n, f.p);
		group |= (u8)bit;
		close = memchr(p + 2, '}', (size_t)(end - p - 2));
		if (!close)
			return fail(c, -EINVAL, name, "missing '}' after %.*s={", (int)f.n, f.p);
		rc = add_term(c, (u8)bit, name, (struct lne_span){p + 2, (size_t)(close - p - 2)},
			      &t);
		if (rc)
			return rc;
		p = close + 1;
		while (p < end && lne_isspace(*p))
			p++;
		if (p == end)
			break;
		if (*p == ',') {
			t->last = 1;
			group = 0;
		} else if (*p != '&') {
			const char *q = p;

			while (q < end && !lne_isspace(*q))
				q++;
			if (memchr(p, '=', (size_t)(q - p))) {
				const char *eq = memchr(p, '=', (size_t)(q - p));

				if (field_lookup((struct lne_span){p, (size_t)(eq - p)}) >= 0)
					return fail(c, -EINVAL, p,
						    "missing '&' or ',' before '%.*s'",
						    (int)(q - p), p);
				return fail(
					c, -EINVAL, p,
					"'%.*s' is neither a condition nor an option (rate=, rank=, realtime=)",
					(int)(q - p), p);
			}
			return fail(c, -EINVAL, p, "expected '&' or ',' before '%.*s'",
				    (int)(q - p), p);
		}
		sep = *p++;
	}
	t->last = 1;
	return 0;
}

/* The older form's "{<nid expression>}" word. */
static int parse_old_nids(struct cmd *c, struct lne_span w)
{
	struct lne_tbf_term *t;
	int rc;

	if (w.p[w.n - 1] != '}')
		return fail(c, -EINVAL, w.p, "'%.*s' has text after its '}'", (int)w.n, w.p);
	rc = add_term(c, LNE_TBF_NID, w.p, (struct lne_span){w.p + 1, w.n - 2}, &t);
	if (rc)
		return rc;
	t->last = 1;
	return 0;
}

static int parse_start(struct cmd *c, size_t *pos)
{
	struct lne_span w, conds;
	int rc;

	rc = next_word(c, pos, &w);
	if (rc)
		return rc;
	if (!w.n || is_option(w))
		return fail(c, -EINVAL, w.n ? w.p : c->in + c->len,
			    "start needs conditions such as nid={...} after the rule name");
	if (w.p[0] == '{') {
		/* start <name> {<nids>} <rate>: Lustre's first syntax. */
		rc = parse_old_nids(c, w);
		if (rc)
			return rc;
		rc = next_word(c, pos, &w);
		if (rc)
			return rc;
		if (!w.n)
			return fail(c, -EINVAL, c->in + c->len,
				    "the form 'start <name> {<nids>} <rate>' needs a rate");
		if (!all_digits(w) && !is_option(w))
			return fail(c, -EINVAL, w.p, "rate '%.*s' is not a number", (int)w.n, w.p);
		if (all_digits(w)) {
			rc = parse_rate(c, w);
			if (rc)
				return rc;
			rc = next_word(c, pos, &w);
			if (rc)
				return rc;
		}
	} else {
		conds = w;
		for (;;) {
			rc = next_word(c, pos, &w);
			if (rc)
				return rc;
			if (!w.n || is_option(w))
				break;
			conds.n = (size_t)(w.p + w.n - conds.p);
		}
		rc = parse_terms(c, conds);
		if (rc)
			return rc;
	}
	while (w.n) {
		if (!is_option(w))
			return fail(
				c, -EINVAL, w.p,
				"'%.*s' is not an option (rate=, rank=, realtime=); conditions come before the options",
				(int)w.n, w.p);
		rc = parse_option(c, w);
		if (rc)
			return rc;
		rc = next_word(c, pos, &w);
		if (rc)
			return rc;
	}
	return 0;
}

static int parse_change(struct cmd *c, size_t *pos)
{
	struct lne_span w;
	int rc;

	rc = next_word(c, pos, &w);
	if (rc)
		return rc;
	if (!w.n)
		return fail(c, -EINVAL, c->in + c->len, "change needs rate=<n> or rank=<rule>");
	if (all_digits(w)) {
		/* change <name> <rate>: Lustre's first syntax. */
		rc = parse_rate(c, w);
		if (rc)
			return rc;
		rc = next_word(c, pos, &w);
		if (rc)
			return rc;
	}
	while (w.n) {
		rc = parse_option(c, w);
		if (rc)
			return rc;
		rc = next_word(c, pos, &w);
		if (rc)
			return rc;
	}
	if (c->has_rank && !strcmp(c->name, "default"))
		return fail(c, -EINVAL, c->rank_at, "the default rule is always last: no rank=");
	return 0;
}

static int parse_cmd(struct cmd *c, const char *in, struct lne_err *err)
{
	struct lne_span w;
	size_t pos = 0;
	int rc;

	memset(c, 0, sizeof(*c));
	c->in = in;
	c->len = strlen(in);
	c->err = err;
	c->queues = 1 << LNE_TBF_REG | 1 << LNE_TBF_HP;
	if (c->len > LNE_TBF_CMD_MAX)
		return fail(c, -EINVAL, in + LNE_TBF_CMD_MAX, "command is longer than %d bytes",
			    LNE_TBF_CMD_MAX);
	rc = next_word(c, &pos, &w);
	if (rc)
		return rc;
	if (!w.n)
		return fail(c, -EINVAL, in, "empty command (start, change or stop)");
	if (span_is(w, "reg") || span_is(w, "hp")) {
		c->queues = span_is(w, "reg") ? 1 << LNE_TBF_REG : 1 << LNE_TBF_HP;
		rc = next_word(c, &pos, &w);
		if (rc)
			return rc;
		if (!w.n)
			return fail(c, -EINVAL, in + c->len,
				    "missing start, change or stop after the queue");
	}
	if (span_is(w, "start"))
		c->op = OP_START;
	else if (span_is(w, "change"))
		c->op = OP_CHANGE;
	else if (span_is(w, "stop"))
		c->op = OP_STOP;
	else
		return fail(c, -EINVAL, w.p, "'%.*s' is not a command (start, change or stop)",
			    (int)w.n, w.p);
	rc = next_word(c, &pos, &w);
	if (rc)
		return rc;
	if (!w.n)
		return fail(c, -EINVAL, in + c->len, "missing the rule name");
	c->name_at = w.p;
	rc = parse_name(c, w, c->name, "rule name");
	if (rc)
		return rc;
	if (!strcmp(c->name, "default") && c->op != OP_CHANGE)
		return fail(
			c, -EINVAL, w.p,
			c->op == OP_START
				? "the default rule always exists; use 'change default rate=<n>'"
				: "the default rule cannot be stopped");
	switch (c->op) {
	case OP_START:
		rc = parse_start(c, &pos);
		break;
	case OP_CHANGE:
		rc = parse_change(c, &pos);
		break;
	default:
		rc = next_word(c, &pos, &w);
		if (!rc && w.n)
			rc = fail(c, -EINVAL, w.p, "stop takes only a rule name, not '%.*s'",
				  (int)w.n, w.p);
		break;
	}
	if (rc)
		return rc;
	if (c->has_rank && !strcmp(c->rank, c->name))
		return fail(c, -EINVAL, c->rank_at, "a rule cannot be ranked before itself");
	if (c->op == OP_CHANGE && !c->has_rate && !c->has_rank)
		return fail(c, -EINVAL, in + c->len, "change needs rate=<n> or rank=<rule>");
	return 0;
}

/* --- buckets ------------------------------------------------------------------------ */

static void bucket_params(struct lne_tbf_class *c, u32 rate, u32 depth)
{
	u64 lag = (u64)(depth - 1) * NSEC;

	c->rate = rate;
	c->t_ns = (u32)(NSEC / rate);
	c->t_rem = (u32)(NSEC % rate);
	c->lag_ns = lag / rate;
	c->lag_rem = (u32)(lag % rate);
}

/* now - (depth - 1) tokens' time: the deadline of a full bucket. */
static void bucket_floor(const struct lne_tbf_class *c, s64 now, s64 *ns, u32 *frac)
{
	*ns = now - (s64)c->lag_ns - (c->lag_rem ? 1 : 0);
	*frac = c->lag_rem ? c->rate - c->lag_rem : 0;
}

static bool bucket_full(const struct lne_tbf_class *c, s64 now)
{
	u32 frac;
	s64 ns;

	bucket_floor(c, now, &ns, &frac);
	return c->dl < ns || (c->dl == ns && c->dl_frac <= frac);
}

/* Tokens beyond the depth are gone: raise the deadline to the floor. */
static void bucket_fill(struct lne_tbf_class *c, s64 now)
{
	u32 frac;
	s64 ns;

	bucket_floor(c, now, &ns, &frac);
	if (c->dl < ns || (c->dl == ns && c->dl_frac < frac)) {
		c->dl = ns;
		c->dl_frac = frac;
	}
}

static void bucket_take(struct lne_tbf_class *c, s64 now)
{
	bucket_fill(c, now);
	c->dl += c->t_ns;
	c->dl_frac += c->t_rem; /* < 2 * rate <= 2e9: no overflow */
	if (c->dl_frac >= c->rate) {
		c->dl_frac -= c->rate;
		c->dl++;
	}
}

static s64 bucket_key(const struct lne_tbf_class *c)
{
	return c->dl + (c->dl_frac != 0);
}

/*
 * Move the bucket to @rate and @depth at @now, keeping its credit: the
 * distance of the deadline from now, in nanotokens (1e9 per token), is the
 * same before and after.  After bucket_fill() the deadline is at most
 * (depth - 1) tokens behind now and at most one token ahead, so the credit
 * stays below (depth - 1) * 1e9 + rate < 2^51.
 */
static void bucket_convert(struct lne_tbf_class *c, u32 rate, u32 depth, s64 now)
{
	u64 w, q;
	u32 rem;

	bucket_fill(c, now);
	if (c->dl >= now) {
		u64 ahead = (u64)(c->dl - now);

		if (ahead > (u64)c->t_ns + 1) /* only a clock that went back */
			ahead = (u64)c->t_ns + 1;
		w = ahead * c->rate + c->dl_frac;
		bucket_params(c, rate, depth);
		c->dl = now + (s64)(w / rate);
		c->dl_frac = (u32)(w % rate);
		return;
	}
	w = (u64)(now - c->dl) * c->rate - c->dl_frac;
	bucket_params(c, rate, depth);
	q = w / rate;
	rem = (u32)(w % rate);
	c->dl = now - (s64)q - (rem ? 1 : 0);
	c->dl_frac = rem ? rate - rem : 0;
	bucket_fill(c, now);
}

/* --- heaps -------------------------------------------------------------------------- */

static void heap_set(struct heap *h, u32 i, struct heap_slot s)
{
	h->slot[i] = s;
	s.cls->heap_idx = i;
}

/*
 * 4-ary heaps: half the depth of a binary heap, and a node's four children
 * (16 bytes each) share a cache line.  Each level moved writes heap_idx into
 * a class, a likely cache miss, so depth is what costs.
 */
#define HEAP_ARITY 4

static void heap_up(struct heap *h, u32 i)
{
	struct heap_slot s = h->slot[i];

	while (i) {
		u32 parent = (i - 1) / HEAP_ARITY;

		if (h->slot[parent].key <= s.key)
			break;
		heap_set(h, i, h->slot[parent]);
		i = parent;
	}
	heap_set(h, i, s);
}

static void heap_down(struct heap *h, u32 i)
{
	struct heap_slot s = h->slot[i];

	for (;;) {
		u32 first = HEAP_ARITY * i + 1, last = first + HEAP_ARITY, child, k;

		if (first >= h->n)
			break;
		if (last > h->n)
			last = h->n;
		for (child = first, k = first + 1; k < last; k++)
			if (h->slot[k].key < h->slot[child].key)
				child = k;
		if (s.key <= h->slot[child].key)
			break;
		heap_set(h, i, h->slot[child]);
		i = child;
	}
	heap_set(h, i, s);
}

static void heap_push(struct heap *h, struct lne_tbf_class *c, s64 key)
{
	h->slot[h->n] = (struct heap_slot){key, c};
	h->n++;
	heap_up(h, h->n - 1);
}

static void heap_remove(struct heap *h, u32 i)
{
	h->n--;
	if (i == h->n)
		return;
	heap_set(h, i, h->slot[h->n]);
	if (i && h->slot[(i - 1) / HEAP_ARITY].key > h->slot[i].key)
		heap_up(h, i);
	else
		heap_down(h, i);
}

/* Room for @n classes in both heaps, so nothing later needs to allocate. */
static int heap_reserve(struct head *h, u32 n)
{
	struct heap_slot *s;
	u32 cap, i;

	if (n <= h->cap)
		return 0;
	cap = h->cap ? h->cap * 2 : 16;
	while (cap < n)
		cap *= 2;
	for (i = 0; i < NHEAPS; i++) {
		s = lne_realloc_array(h->heap[i].slot, cap, sizeof(*s));
		if (!s)
			return -ENOMEM; /* the others may have grown: harmless */
		h->heap[i].slot = s;
	}
	h->cap = cap;
	return 0;
}

/* --- classes -------------------------------------------------------------------------- */

static u32 mix(u32 h, u32 v)
{
	h ^= v;
	h *= 0x9e3779b1u;
	return h ^ (h >> 15);
}

static u32 key_hash(u8 mask, const struct lne_nid *nid, const char *jobid, u32 opcode, u32 uid,
		    u32 gid)
{
	u32 h = mask;
	size_t i;

	if (mask & LNE_TBF_NID)
		h = mix(h, lne_nid_hash(nid));
	if (mask & LNE_TBF_JOBID)
		for (i = 0; i < LNE_TBF_JOBID_MAX && jobid[i]; i++)
			h = (h ^ (u8)jobid[i]) * 16777619u;
	if (mask & LNE_TBF_OPCODE)
		h = mix(h, opcode);
	if (mask & LNE_TBF_UID)
		h = mix(h, uid);
	if (mask & LNE_TBF_GID)
		h = mix(h, gid);
	return mix(h, 0x5bd1e995u);
}

static u32 req_hash(u8 mask, const struct lne_tbf_req *r)
{
	return key_hash(mask, &r->nid, r->jobid, r->opcode, r->uid, r->gid);
}

static bool key_equal(const struct lne_tbf_class *c, const struct lne_tbf_req *r)
{
	u8 m = c->fields;

	if ((m & LNE_TBF_NID) && !lne_nid_equal(&c->nid, &r->nid))
		return false;
	if ((m & LNE_TBF_OPCODE) && c->opcode != r->opcode)
		return false;
	if ((m & LNE_TBF_UID) && c->uid != r->uid)
		return false;
	if ((m & LNE_TBF_GID) && c->gid != r->gid)
		return false;
	if (m & LNE_TBF_JOBID) {
		size_t n = bounded_len(r->jobid, LNE_TBF_JOBID_MAX);

		if (strlen(c->jobid) != n || memcmp(c->jobid, r->jobid, n))
			return false;
	}
	return true;
}

static struct lne_tbf_class *class_lookup(const struct head *h, u32 hash,
					  const struct lne_tbf_req *r)
{
	struct lne_tbf_class *c = h->bucket[hash & (h->nbuckets - 1)];

	for (; c; c = c->hnext)
		if (c->hash == hash && key_equal(c, r))
			return c;
	return NULL;
}

static void hash_grow(struct head *h)
{
	struct lne_tbf_class **nb, *c, *next;
	u32 n = h->nbuckets * 2, i;

	if (h->nclasses <= h->nbuckets || h->nbuckets >= HASH_MAX_BUCKETS)
		return;
	nb = lne_zalloc(n * sizeof(*nb));
	if (!nb)
		return; /* longer chains, nothing worse */
	for (i = 0; i < h->nbuckets; i++) {
		for (c = h->bucket[i]; c; c = next) {
			next = c->hnext;
			c->hnext = nb[c->hash & (n - 1)];
			nb[c->hash & (n - 1)] = c;
		}
	}
	lne_free(h->bucket);
	h->bucket = nb;
	h->nbuckets = n;
}

static struct lne_tbf_rule *first_match(const struct head *h, const struct lne_tbf_class *c)
{
	struct lne_tbf_rule *r;

	lne_list_for_each_entry(r, &h->rules, link)
		if (rule_match(r, c))
			return r;
	return h->deflt; /* not reached: the default rule matches all */
}

static void stats_add(struct lne_tbf_class *c, u64 queued, u64 enqueued)
{
	c->stats.queued += queued;
	c->stats.enqueued += enqueued;
	c->rule->stats.queued += queued;
	c->rule->stats.enqueued += enqueued;
}

static void throttled(struct lne_tbf_class *c)
{
	c->stats.throttled++;
	c->rule->stats.throttled++;
}

/* Follow the first matching rule; the bucket keeps its credit. */
static void class_rematch(struct head *h, struct lne_tbf_class *c, s64 now)
{
	struct lne_tbf_rule *r = first_match(h, c);
	struct heap *ready = &h->heap[r->realtime ? HEAP_RT : HEAP_NORMAL];

	/* A tag earned at another rate or in another heap means nothing here. */
	if (r->rate != c->rate || r->realtime != c->rt) {
		c->vtag_frac = 0;
		if (c->vtag > ready->vtime)
			c->vtag = ready->vtime;
	}
	if (r != c->rule) {
		if (c->rule) {
			c->rule->nclasses--;
			c->rule->stats.queued -= c->stats.queued;
		}
		r->nclasses++;
		r->stats.queued += c->stats.queued;
		c->rule = r;
	}
	bucket_convert(c, r->rate, h->depth, now);
	c->rt = r->realtime;
	c->gen = h->gen;
}

static void class_unhash(struct head *h, struct lne_tbf_class *c)
{
	struct lne_tbf_class **pp = &h->bucket[c->hash & (h->nbuckets - 1)];

	while (*pp != c)
		pp = &(*pp)->hnext;
	*pp = c->hnext;
}

/* Free an idle class. */
static void class_free(struct head *h, struct lne_tbf_class *c)
{
	class_unhash(h, c);
	lne_list_del(&c->link);
	if (c->rule)
		c->rule->nclasses--;
	h->nclasses--;
	h->cgen++;
	lne_free(c);
}

static int class_new(struct lne_tbf *tbf, struct head *h, enum lne_tbf_queue qi, u32 hash,
		     const struct lne_tbf_req *req, s64 now, struct lne_tbf_class **out)
{
	bool evict = h->nclasses >= tbf->max_classes;
	struct lne_tbf_class *c;
	struct lne_tbf_rule *r;
	int rc;

	if (evict && lne_list_empty(&h->idle))
		return -ENOSPC;
	rc = heap_reserve(h, h->nclasses + 1);
	if (rc)
		return rc;
	c = lne_zalloc(sizeof(*c));
	if (!c)
		return -ENOMEM;
	if (evict)
		class_free(h, lne_list_entry(h->idle.next, struct lne_tbf_class, link));
	c->fields = h->fields;
	c->queue = (u8)qi;
	c->hash = hash;
	if (h->fields & LNE_TBF_NID)
		c->nid = req->nid;
	if (h->fields & LNE_TBF_JOBID)
		memcpy(c->jobid, req->jobid, bounded_len(req->jobid, LNE_TBF_JOBID_MAX));
	if (h->fields & LNE_TBF_OPCODE)
		c->opcode = req->opcode;
	if (h->fields & LNE_TBF_UID)
		c->uid = req->uid;
	if (h->fields & LNE_TBF_GID)
		c->gid = req->gid;
	lne_list_init(&c->fifo);
	r = first_match(h, c);
	c->rule = r;
	r->nclasses++;
	c->rt = r->realtime;
	c->gen = h->gen;
	bucket_params(c, r->rate, h->depth);
	bucket_floor(c, now, &c->dl, &c->dl_frac); /* a new class has a full bucket */
	c->idle_since = (u64)now;
	lne_list_add_tail(&c->link, &h->idle);
	c->hnext = h->bucket[hash & (h->nbuckets - 1)];
	h->bucket[hash & (h->nbuckets - 1)] = c;
	h->nclasses++;
	h->cgen++;
	hash_grow(h);
	*out = c;
	return 0;
}

/*
 * Put an active class that is in no heap where it belongs at @now: waiting
 * for its deadline, or ready.  A class that becomes ready starts at the
 * ready heap's virtual time, so it brings no credit from its absence.
 * Returns whether it is ready.
 */
static bool class_place(struct head *h, struct lne_tbf_class *c, s64 now)
{
	u8 which = c->rt ? HEAP_RT : HEAP_NORMAL;
	struct heap *ready = &h->heap[which];
	s64 key = bucket_key(c);

	if (key > now) {
		c->heap = HEAP_WAIT;
		heap_push(&h->heap[HEAP_WAIT], c, key);
		return false;
	}
	if (c->vtag < ready->vtime) {
		c->vtag = ready->vtime;
		c->vtag_frac = 0;
	}
	c->heap = which;
	heap_push(ready, c, c->vtag);
	return true;
}

static void class_activate(struct head *h, struct lne_tbf_class *c, s64 now)
{
	lne_list_del(&c->link);
	lne_list_add_tail(&c->link, &h->active);
	c->active = 1;
	h->nactive++;
	bucket_fill(c, now);
	if (!class_place(h, c, now))
		throttled(c);
}

static void class_deactivate(struct head *h, struct lne_tbf_class *c, u64 now)
{
	heap_remove(&h->heap[c->heap], c->heap_idx);
	lne_list_del(&c->link);
	lne_list_add_tail(&c->link, &h->idle);
	c->active = 0;
	c->idle_since = now;
	h->nactive--;
}

static bool reclaimable(const struct lne_tbf *tbf, const struct lne_tbf_class *c, u64 now)
{
	return now >= c->idle_since && now - c->idle_since >= tbf->idle_ns &&
	       bucket_full(c, (s64)now);
}

/*
 * Re-match every class with queued requests and rebuild the heaps: run
 * after each change of rules, type or depth.  O(active classes x rules).
 */
static void head_changed(struct head *h, s64 now)
{
	struct lne_tbf_class *c;
	int i;

	h->gen++;
	for (i = 0; i < NHEAPS; i++)
		h->heap[i].n = 0;
	lne_list_for_each_entry(c, &h->active, link) {
		class_rematch(h, c, now);
		class_place(h, c, now);
	}
}

/* --- rules ------------------------------------------------------------------------------- */

static struct lne_tbf_rule *rule_find(const struct head *h, const char *name)
{
	struct lne_tbf_rule *r;

	lne_list_for_each_entry(r, &h->rules, link)
		if (!strcmp(r->name, name))
			return r;
	return NULL;
}

static void rule_free(struct lne_tbf_rule *r)
{
	if (!r)
		return;
	terms_free(r->term, r->nterm);
	lne_free(r);
}

/* Can @c be applied to queue @qi?  Errors name the queue. */
static int cmd_check(struct cmd *c, const struct head *h, enum lne_tbf_queue qi)
{
	const char *q = queue_names[qi];
	u8 missing = c->fields & ~h->fields;
	char type[48];

	if (c->op == OP_START) {
		if (rule_find(h, c->name))
			return fail(c, -EEXIST, c->name_at,
				    "a rule named '%s' already exists in the %s queue", c->name, q);
		if (h->nrules - 1 >= LNE_TBF_RULES_MAX)
			return fail(c, -ENOSPC, c->name_at, "the %s queue already has %d rules", q,
				    LNE_TBF_RULES_MAX);
		if (missing) {
			u8 bit = missing & (u8)-missing;

			lne_tbf_type_format(h->fields, type, sizeof(type));
			return fail(
				c, -EINVAL, c->field_at[field_index(bit)],
				"the %s queue's classes are keyed by %s, so a rule cannot test %s (use a type that includes it)",
				q, type, field_name(bit));
		}
	} else if (!rule_find(h, c->name)) {
		return fail(c, -ENOENT, c->name_at, "no rule named '%s' in the %s queue", c->name,
			    q);
	}
	if (c->has_rank && !rule_find(h, c->rank))
		return fail(c, -ENOENT, c->rank_at, "rank=%s: no rule named '%s' in the %s queue",
			    c->rank, c->rank, q);
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
	struct lne_tbf_rule *r = rule_find(h, c->name), *rank;
	struct lne_tbf_class *cls;

	rank = c->has_rank ? rule_find(h, c->rank) : NULL;
	switch (c->op) {
	case OP_START:
		if (rank)
			lne_list_add_before(&nr->link, &rank->link);
		else
			lne_list_insert(&nr->link, &h->rules, h->rules.next);
		h->nrules++;
		head_changed(h, now);
		break;
	case OP_CHANGE:
		if (c->has_rate)
			r->rate = c->rate;
		if (rank) {
			lne_list_del(&r->link);
			lne_list_add_before(&r->link, &rank->link);
		}
		head_changed(h, now);
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
		head_changed(h, now); /* active classes leave r */
		rule_free(r);
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
	rc = parse_cmd(&c[0], text, err);
	if (rc)
		goto out;
	for (i = 0; i < LNE_TBF_NQUEUES; i++)
		if (c[0].queues & (1 << i))
			qi[n++] = (enum lne_tbf_queue)i;
	/* Each queue owns its rule: a second parse gives the second its terms. */
	if (n > 1) {
		rc = parse_cmd(&c[1], text, err);
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
		rule_free(nr[i]);
	}
	return rc;
}

static void sb_term(struct lne_sb *sb, const struct lne_tbf_term *t)
{
	size_t room;
	const char *name;
	u16 i;

	lne_sb_puts(sb, field_name(t->field));
	lne_sb_puts(sb, "={");
	if (t->field == LNE_TBF_NID) {
		room = sb->len < sb->size ? sb->size - sb->len : 0;
		sb->len += (size_t)lne_expr_format(t->v.nid, room ? sb->buf + sb->len : NULL, room);
	}
	for (i = 0; i < t->n && t->field != LNE_TBF_NID; i++) {
		if (i)
			lne_sb_putc(sb, ' ');
		if (t->field == LNE_TBF_JOBID) {
			lne_sb_puts(sb, t->v.glob[i]);
		} else if (t->field == LNE_TBF_OPCODE &&
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

/* Free every class (none may be active) of @h. */
static void head_drop_classes(struct head *h)
{
	struct lne_tbf_class *c, *n;
	struct lne_tbf_req *req, *rn;

	lne_list_for_each_entry_safe(c, n, &h->active, link) {
		lne_list_for_each_entry_safe(req, rn, &c->fifo, link) {
			lne_list_init(&req->link);
			req->cls = NULL;
		}
		lne_list_init(&c->fifo);
		class_deactivate(h, c, 0);
	}
	h->queued = 0;
	lne_list_for_each_entry_safe(c, n, &h->idle, link)
		class_free(h, c);
}

static void head_free(struct head *h)
{
	struct lne_tbf_rule *r, *n;
	int i;

	if (!h->bucket) {
		lne_free(h->deflt);
		return;
	}
	head_drop_classes(h);
	lne_list_for_each_entry_safe(r, n, &h->rules, link)
		rule_free(r);
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
		if (!is_name_char(service[i]))
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
			queue_names[qi], (unsigned long long)h->queued);
	lne_list_for_each_entry(r, &h->rules, link) {
		u8 missing = terms_fields(r->term, r->nterm) & ~mask;

		if (missing)
			return lne_err_set(
				err, -EINVAL, type, -1,
				"rule '%s' of the %s queue tests %s, which this type lacks; stop it first",
				r->name, queue_names[qi], field_name(missing & (u8)-missing));
	}
	head_drop_classes(h);
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
	head_changed(h, (s64)now);
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

/* --- the request path ----------------------------------------------------------------- */

int lne_tbf_enqueue(struct lne_tbf *tbf, struct lne_tbf_req *req, enum lne_tbf_queue qi, u64 now)
{
	struct head *h = &tbf->q[qi];
	struct lne_tbf_class *c;
	int i, rc;
	u32 hash;

	/* Opportunistic reclaim keeps memory near the working set. */
	for (i = 0; i < RECLAIM_PER_CALL && !lne_list_empty(&h->idle); i++) {
		c = lne_list_entry(h->idle.next, struct lne_tbf_class, link);
		if (!reclaimable(tbf, c, now))
			break;
		class_free(h, c);
	}
	hash = req_hash(h->fields, req);
	c = class_lookup(h, hash, req);
	if (!c) {
		rc = class_new(tbf, h, qi, hash, req, (s64)now, &c);
		if (rc)
			return rc;
	} else if (!c->rule || c->gen != h->gen) {
		class_rematch(h, c, (s64)now);
	}
	if (!c->active)
		class_activate(h, c, (s64)now);
	lne_list_add_tail(&req->link, &c->fifo);
	req->cls = c;
	req->enqueued = now;
	stats_add(c, 1, 1);
	h->queued++;
	return 0;
}

/* Advance @c's fair-share tag by one period, exactly. */
static void vtag_advance(struct lne_tbf_class *c)
{
	c->vtag += c->t_ns;
	c->vtag_frac += c->t_rem;
	if (c->vtag_frac >= c->rate) {
		c->vtag_frac -= c->rate;
		c->vtag++;
	}
}

struct lne_tbf_req *lne_tbf_dequeue_queue(struct lne_tbf *tbf, enum lne_tbf_queue qi, u64 now,
					  u64 *next)
{
	struct head *h = &tbf->q[qi];
	struct heap *wait = &h->heap[HEAP_WAIT], *ready;
	struct lne_tbf_class *c;
	struct lne_tbf_req *req;
	u64 wait_ns;
	s64 key;

	/* Classes whose token has come are ready. */
	while (wait->n && wait->slot[0].key <= (s64)now) {
		c = wait->slot[0].cls;
		heap_remove(wait, 0);
		class_place(h, c, (s64)now);
	}
	ready = h->heap[HEAP_RT].n ? &h->heap[HEAP_RT] : &h->heap[HEAP_NORMAL];
	if (!ready->n) {
		*next = wait->n ? (u64)wait->slot[0].key : LNE_TBF_NEVER;
		return NULL;
	}
	c = ready->slot[0].cls;
	req = lne_list_entry(c->fifo.next, struct lne_tbf_req, link);
	lne_list_del(&req->link);
	req->cls = NULL;
	bucket_take(c, (s64)now);
	ready->vtime = c->vtag;
	vtag_advance(c);
	wait_ns = now > req->enqueued ? now - req->enqueued : 0;
	c->stats.dispatched++;
	c->stats.wait_ns += wait_ns;
	c->rule->stats.dispatched++;
	c->rule->stats.wait_ns += wait_ns;
	stats_add(c, (u64)-1, 0);
	h->queued--;
	if (lne_list_empty(&c->fifo)) {
		class_deactivate(h, c, now);
		return req;
	}
	key = bucket_key(c);
	if (key > (s64)now) {
		/* The next request is at the head with no token. */
		heap_remove(ready, 0);
		c->heap = HEAP_WAIT;
		heap_push(wait, c, key);
		throttled(c);
	} else {
		ready->slot[0].key = c->vtag;
		heap_down(ready, 0);
	}
	return req;
}

struct lne_tbf_req *lne_tbf_dequeue(struct lne_tbf *tbf, u64 now, u64 *next)
{
	struct lne_tbf_req *req;
	u64 next_hp, next_reg;

	req = lne_tbf_dequeue_queue(tbf, LNE_TBF_HP, now, &next_hp);
	if (req)
		return req;
	req = lne_tbf_dequeue_queue(tbf, LNE_TBF_REG, now, &next_reg);
	if (req)
		return req;
	*next = next_hp < next_reg ? next_hp : next_reg;
	return NULL;
}

void lne_tbf_cancel(struct lne_tbf *tbf, struct lne_tbf_req *req, u64 now)
{
	struct lne_tbf_class *c = req->cls;
	struct head *h;

	if (!c)
		return;
	h = &tbf->q[c->queue];
	lne_list_del(&req->link);
	req->cls = NULL;
	stats_add(c, (u64)-1, 0);
	h->queued--;
	if (lne_list_empty(&c->fifo))
		class_deactivate(h, c, now);
}

u32 lne_tbf_reclaim(struct lne_tbf *tbf, u64 now)
{
	struct lne_tbf_class *c, *n;
	u32 freed = 0;
	int i;

	for (i = 0; i < LNE_TBF_NQUEUES; i++) {
		lne_list_for_each_entry_safe(c, n, &tbf->q[i].idle, link) {
			if (!reclaimable(tbf, c, now))
				continue;
			class_free(&tbf->q[i], c);
			freed++;
		}
	}
	return freed;
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
	return rule_find(&tbf->q[qi], name);
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

	return class_lookup(h, req_hash(h->fields, req), req);
}

const struct lne_tbf_rule *lne_tbf_class_rule(const struct lne_tbf *tbf,
					      const struct lne_tbf_class *c)
{
	const struct head *h = &tbf->q[c->queue];

	if (c->rule && c->gen == h->gen)
		return c->rule;
	return first_match(h, c);
}

int lne_tbf_class_format(const struct lne_tbf_class *c, char *buf, size_t size)
{
	char nid[LNE_NID_STR_MAX];
	const char *name;
	struct lne_sb sb;

	lne_sb_init(&sb, buf, size);
	if (c->fields & LNE_TBF_NID) {
		lne_nid_format(&c->nid, nid, sizeof(nid));
		lne_sb_printf(&sb, "nid=%s", nid);
	}
	if (c->fields & LNE_TBF_JOBID)
		lne_sb_printf(&sb, "%sjobid=%s", sb.len ? " " : "", c->jobid);
	if (c->fields & LNE_TBF_OPCODE) {
		name = lne_tbf_opcode_name(c->opcode);
		if (name)
			lne_sb_printf(&sb, "%sopcode=%s", sb.len ? " " : "", name);
		else
			lne_sb_printf(&sb, "%sopcode=%u", sb.len ? " " : "", c->opcode);
	}
	if (c->fields & LNE_TBF_UID)
		lne_sb_printf(&sb, "%suid=%u", sb.len ? " " : "", c->uid);
	if (c->fields & LNE_TBF_GID)
		lne_sb_printf(&sb, "%sgid=%u", sb.len ? " " : "", c->gid);
	return lne_sb_result(&sb);
}
