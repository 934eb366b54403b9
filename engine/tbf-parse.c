// SPDX-License-Identifier: GPL-2.0
/*
 * tbf-parse.c - the NRS TBF's rule commands parsed: start, change and stop,
 * their conditions (field={values} terms joined by '&' and ','), options,
 * and Lustre's older forms, into a struct cmd; each error a sentence that
 * names the bad part (tbf.h).
 */
#include "expr.h"
#include "tbf-int.h"

int tbfi_fail(struct cmd *c, int rc, const char *at, const char *fmt, ...)
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
				return tbfi_fail(c, -EINVAL, c->in + i, "'{' inside a {list}");
			inside = true;
		} else if (c->in[i] == '}') {
			if (!inside)
				return tbfi_fail(c, -EINVAL, c->in + i, "'}' without '{'");
			inside = false;
		}
	}
	if (inside)
		return tbfi_fail(c, -EINVAL, c->in + start, "missing '}' in '%.*s'",
				 (int)(i - start), c->in + start);
	*w = (struct lne_span){c->in + start, i - start};
	*pos = i;
	return 0;
}

static int parse_name(struct cmd *c, struct lne_span w, char *out, const char *what)
{
	size_t i;

	if (w.n > LNE_TBF_NAME_MAX)
		return tbfi_fail(c, -EINVAL, w.p, "%s '%.*s' is longer than %d characters", what,
				 (int)w.n, w.p, LNE_TBF_NAME_MAX);
	for (i = 0; i < w.n; i++)
		if (!tbfi_is_name_char(w.p[i]))
			return tbfi_fail(c, -EINVAL, w.p,
					 "%s '%.*s' may hold only letters, digits and '_'", what,
					 (int)w.n, w.p);
	if (!w.n)
		return tbfi_fail(c, -EINVAL, w.p, "%s is empty", what);
	memcpy(out, w.p, w.n);
	out[w.n] = '\0';
	return 0;
}

static int parse_rate(struct cmd *c, struct lne_span v)
{
	int rc;

	if (c->has_rate)
		return tbfi_fail(c, -EINVAL, v.p, "the rate is given twice");
	rc = lne_parse_u32(v, false, LNE_TBF_RATE_MAX, &c->rate);
	if (rc == -ERANGE)
		return tbfi_fail(c, -EINVAL, v.p, "rate %.*s is above the maximum %u", (int)v.n,
				 v.p, LNE_TBF_RATE_MAX);
	if (rc)
		return tbfi_fail(c, -EINVAL, v.p, "rate '%.*s' is not a number", (int)v.n, v.p);
	if (!c->rate)
		return tbfi_fail(c, -EINVAL, v.p, "rate must be at least 1 request per second");
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
	return tbfi_span_is(key, "rate") || tbfi_span_is(key, "rank") ||
	       tbfi_span_is(key, "realtime");
}

static int parse_option(struct cmd *c, struct lne_span w)
{
	const char *eq = w.n ? memchr(w.p, '=', w.n) : NULL;
	struct lne_span key, val;

	if (!eq || !is_option(w))
		return tbfi_fail(c, -EINVAL, w.p, "'%.*s' is not an option (%s)", (int)w.n, w.p,
				 c->op == OP_START ? "rate=, rank=, realtime=" : "rate=, rank=");
	key = (struct lne_span){w.p, (size_t)(eq - w.p)};
	val = (struct lne_span){eq + 1, (size_t)(w.p + w.n - eq - 1)};
	if (tbfi_span_is(key, "rate"))
		return parse_rate(c, val);
	if (tbfi_span_is(key, "rank")) {
		if (c->has_rank)
			return tbfi_fail(c, -EINVAL, w.p, "rank= is given twice");
		c->has_rank = true;
		c->rank_at = val.p;
		return parse_name(c, val, c->rank, "rank= rule name");
	}
	if (c->op != OP_START)
		return tbfi_fail(c, -EINVAL, w.p,
				 "change cannot set realtime=; stop the rule and start it again");
	if (c->has_rt)
		return tbfi_fail(c, -EINVAL, w.p, "realtime= is given twice");
	if (!tbfi_span_is(val, "0") && !tbfi_span_is(val, "1"))
		return tbfi_fail(c, -EINVAL, val.p, "realtime= takes 0 or 1, not '%.*s'",
				 (int)val.n, val.p);
	c->has_rt = true;
	c->realtime = val.p[0] == '1';
	return 0;
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
		return tbfi_fail(c, -EINVAL, s.p, "the nid list is longer than %u characters",
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
		return tbfi_fail(c, rc, s.p + at, "%s", inner.msg);
	}
	t->n = 1;
	return 0;
}

static int parse_values(struct cmd *c, struct lne_tbf_term *t, struct lne_span s)
{
	const char *name = tbfi_field_name(t->field), *p = s.p, *end = s.p + s.n;
	struct lne_span v;
	u16 n = 0, i = 0;
	u32 num;
	int rc;

	while (next_value(&p, end, &v))
		n++;
	if (n > LNE_TBF_VALUES_MAX)
		return tbfi_fail(c, -EINVAL, s.p, "more than %d values in %s={...}",
				 LNE_TBF_VALUES_MAX, name);
	if (t->kind == LNE_TBF_K_GLOB) {
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
		switch ((enum lne_tbf_kind)t->kind) {
		case LNE_TBF_K_GLOB:
			if (v.n > LNE_TBF_JOBID_MAX)
				return tbfi_fail(c, -EINVAL, v.p,
						 "jobid '%.*s' is longer than %d characters",
						 (int)v.n, v.p, LNE_TBF_JOBID_MAX);
			memcpy(t->v.glob[i], v.p, v.n);
			break;
		case LNE_TBF_K_OPCODE:
			rc = lne_tbf_opcode_lookup(v.p, v.n);
			if (rc < 0)
				return tbfi_fail(
					c, -EINVAL, v.p,
					"'%.*s' is not an opcode (e.g. ost_read, ost_write, mds_reint, ldlm_enqueue)",
					(int)v.n, v.p);
			t->v.num[i] = (u32)rc;
			break;
		case LNE_TBF_K_NID: /* parse_nid_list()'s */
		case LNE_TBF_K_NUM:
			rc = lne_parse_u32(v, false, U32_MAX, &num);
			if (rc == -ERANGE)
				return tbfi_fail(c, -EINVAL, v.p, "%s %.*s is above %u", name,
						 (int)v.n, v.p, U32_MAX);
			if (rc)
				return tbfi_fail(c, -EINVAL, v.p, "%s '%.*s' is not a number", name,
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
		return tbfi_fail(c, -EINVAL, at, "more than %d conditions", LNE_TBF_TERMS_MAX);
	if (!c->term) {
		c->term = lne_zalloc(LNE_TBF_TERMS_MAX * sizeof(*c->term));
		if (!c->term)
			return -ENOMEM;
	}
	t = &c->term[c->nterm++];
	t->field = field;
	t->kind = tbfi_fields[tbfi_field_index(field)].kind;
	t->num = (u8)tbfi_fields[tbfi_field_index(field)].num;
	list = lne_span_trim(list);
	if (!list.n)
		return tbfi_fail(c, -EINVAL, at, "%s={} is empty", tbfi_field_name(field));
	if (!(c->fields & field))
		c->field_at[tbfi_field_index(field)] = at;
	c->fields |= field;
	rc = t->kind == LNE_TBF_K_NID ? parse_nid_list(c, t, list) : parse_values(c, t, list);
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
			return tbfi_fail(c, -EINVAL, end, "missing a condition after '%c'", sep);
		name = p;
		while (p < end && tbfi_is_name_char(*p))
			p++;
		f = (struct lne_span){name, (size_t)(p - name)};
		if (!f.n)
			return tbfi_fail(c, -EINVAL, name,
					 "expected a condition such as nid={...} at '%c'", *name);
		bit = tbfi_field_lookup(f);
		if (bit < 0)
			return tbfi_fail(c, -EINVAL, name,
					 "'%.*s' is not a field (" LNE_TBF_FIELD_NAMES ")",
					 (int)f.n, f.p);
		if (p == end || *p != '=' || p + 1 == end || p[1] != '{')
			return tbfi_fail(c, -EINVAL, name, "%.*s must be followed by ={list}",
					 (int)f.n, f.p);
		if (group & bit)
			return tbfi_fail(c, -EINVAL, name, "%.*s appears twice in one '&' group",
					 (int)f.n, f.p);
		group |= (u8)bit;
		close = memchr(p + 2, '}', (size_t)(end - p - 2));
		if (!close)
			return tbfi_fail(c, -EINVAL, name, "missing '}' after %.*s={", (int)f.n,
					 f.p);
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

				if (tbfi_field_lookup((struct lne_span){p, (size_t)(eq - p)}) >= 0)
					return tbfi_fail(c, -EINVAL, p,
							 "missing '&' or ',' before '%.*s'",
							 (int)(q - p), p);
				return tbfi_fail(
					c, -EINVAL, p,
					"'%.*s' is neither a condition nor an option (rate=, rank=, realtime=)",
					(int)(q - p), p);
			}
			return tbfi_fail(c, -EINVAL, p, "expected '&' or ',' before '%.*s'",
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
		return tbfi_fail(c, -EINVAL, w.p, "'%.*s' has text after its '}'", (int)w.n, w.p);
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
		return tbfi_fail(c, -EINVAL, w.n ? w.p : c->in + c->len,
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
			return tbfi_fail(c, -EINVAL, c->in + c->len,
					 "the form 'start <name> {<nids>} <rate>' needs a rate");
		if (!all_digits(w) && !is_option(w))
			return tbfi_fail(c, -EINVAL, w.p, "rate '%.*s' is not a number", (int)w.n,
					 w.p);
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
			return tbfi_fail(
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
		return tbfi_fail(c, -EINVAL, c->in + c->len,
				 "change needs rate=<n> or rank=<rule>");
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
		return tbfi_fail(c, -EINVAL, c->rank_at,
				 "the default rule is always last: no rank=");
	return 0;
}

int tbfi_cmd_parse(struct cmd *c, const char *in, struct lne_err *err)
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
		return tbfi_fail(c, -EINVAL, in + LNE_TBF_CMD_MAX,
				 "command is longer than %d bytes", LNE_TBF_CMD_MAX);
	rc = next_word(c, &pos, &w);
	if (rc)
		return rc;
	if (!w.n)
		return tbfi_fail(c, -EINVAL, in, "empty command (start, change or stop)");
	if (tbfi_span_is(w, "reg") || tbfi_span_is(w, "hp")) {
		c->queues = tbfi_span_is(w, "reg") ? 1 << LNE_TBF_REG : 1 << LNE_TBF_HP;
		rc = next_word(c, &pos, &w);
		if (rc)
			return rc;
		if (!w.n)
			return tbfi_fail(c, -EINVAL, in + c->len,
					 "missing start, change or stop after the queue");
	}
	if (tbfi_span_is(w, "start"))
		c->op = OP_START;
	else if (tbfi_span_is(w, "change"))
		c->op = OP_CHANGE;
	else if (tbfi_span_is(w, "stop"))
		c->op = OP_STOP;
	else
		return tbfi_fail(c, -EINVAL, w.p, "'%.*s' is not a command (start, change or stop)",
				 (int)w.n, w.p);
	rc = next_word(c, &pos, &w);
	if (rc)
		return rc;
	if (!w.n)
		return tbfi_fail(c, -EINVAL, in + c->len, "missing the rule name");
	c->name_at = w.p;
	rc = parse_name(c, w, c->name, "rule name");
	if (rc)
		return rc;
	if (!strcmp(c->name, "default") && c->op != OP_CHANGE)
		return tbfi_fail(
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
			rc = tbfi_fail(c, -EINVAL, w.p, "stop takes only a rule name, not '%.*s'",
				       (int)w.n, w.p);
		break;
	}
	if (rc)
		return rc;
	if (c->has_rank && !strcmp(c->rank, c->name))
		return tbfi_fail(c, -EINVAL, c->rank_at, "a rule cannot be ranked before itself");
	if (c->op == OP_CHANGE && !c->has_rate && !c->has_rank)
		return tbfi_fail(c, -EINVAL, in + c->len, "change needs rate=<n> or rank=<rule>");
	return 0;
}
