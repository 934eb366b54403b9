// SPDX-License-Identifier: GPL-2.0
/*
 * lu-tbf-conv.c - lnetd's TBF policy in Lustre's terms: versions, where
 * each service's files are, and the conversion of types, conditions and
 * rates, with a sentence for what Lustre cannot hold (lu-tbf.h lists it).
 *
 * The conditions are taken from the text lne_tbf_rule_format() gives, the
 * canonical form every rule of the engine prints as: terms field={values}
 * joined by '&' and ',', NID lists in the expression grammar's canonical
 * form (CIDR already turned into octet ranges, numbers in decimal without
 * leading zeros, which Lustre would read as octal).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/tbf.h"
#include "lu-tbf.h"

#define NID_ITEMS_MAX 1024 /* items one nid={...} may expand into */

static const struct {
	const char *service, *dir;
} services[] = {
	{"ost", "ost/OSS"},
	{"ost_create", "ost/OSS"},
	{"ost_io", "ost/OSS"},
	{"ost_seq", "ost/OSS"},
	{"ost_out", "ost/OSS"},
	{"mdt", "mds/MDS"},
	{"mdt_readpage", "mds/MDS"},
	{"mdt_out", "mds/MDS"},
	{"mdt_seqs", "mds/MDS"},
	{"mdt_seqm", "mds/MDS"},
	{"mdt_fld", "mds/MDS"},
	{"mdt_io", "mds/MDS"},
	{"ldlm_cbd", "ldlm/services"},
	{"ldlm_canceld", "ldlm/services"},
	{"mgs", "mgs/MGS"},
};

/* --- versions and places ------------------------------------------------------------ */

static bool read_uint(const char **p, unsigned *out)
{
	unsigned long v = 0;
	const char *s = *p;

	if (*s < '0' || *s > '9')
		return false;
	while (*s >= '0' && *s <= '9') {
		v = v * 10 + (unsigned long)(*s++ - '0');
		if (v > 100000)
			return false;
	}
	*out = (unsigned)v;
	*p = s;
	return true;
}

int lutbf_version_parse(const char *text, struct lutbf_version *v, char *msg, size_t len)
{
	const char *p = text;
	struct lutbf_version r = {0, 0, 0};

	if (!strncmp(p, "lustre:", 7))
		p += 7;
	while (*p == ' ' || *p == '\t')
		p++;
	if (!read_uint(&p, &r.major) || *p++ != '.' || !read_uint(&p, &r.minor))
		return lutbf_say(msg, len, -EINVAL,
				 "'%.40s' is not a Lustre version (e.g. 2.17.57)", text);
	if (*p == '.' && !read_uint((p++, &p), &r.patch))
		return lutbf_say(msg, len, -EINVAL,
				 "'%.40s' is not a Lustre version (e.g. 2.17.57)", text);
	/* a fourth number, a -suffix or a newline may follow */
	*v = r;
	return 0;
}

int lutbf_version_cmp(const struct lutbf_version *v, unsigned major, unsigned minor, unsigned patch)
{
	if (v->major != major)
		return v->major < major ? -1 : 1;
	if (v->minor != minor)
		return v->minor < minor ? -1 : 1;
	if (v->patch != patch)
		return v->patch < patch ? -1 : 1;
	return 0;
}

const char *lutbf_service_name(size_t i)
{
	return i < sizeof(services) / sizeof(services[0]) ? services[i].service : NULL;
}

bool lutbf_service_known(const char *service)
{
	size_t i;

	for (i = 0; i < sizeof(services) / sizeof(services[0]); i++)
		if (!strcmp(services[i].service, service))
			return true;
	return false;
}

int lutbf_service_dir(const char *debugfs, const char *service, char *dir, size_t size, char *msg,
		      size_t len)
{
	size_t i;
	int n;

	for (i = 0; i < sizeof(services) / sizeof(services[0]); i++) {
		if (strcmp(services[i].service, service))
			continue;
		n = snprintf(dir, size, "%s/lustre/%s/%s", debugfs ? debugfs : "/sys/kernel/debug",
			     services[i].dir, service);
		if (n < 0 || (size_t)n >= size)
			return lutbf_say(msg, len, -ENAMETOOLONG,
					 "the path of service %s is too long", service);
		return 0;
	}
	return lutbf_say(
		msg, len, -ENOENT,
		"'%.40s' is not a Lustre service with NRS (ost, ost_create, ost_io, ost_seq, "
		"ost_out, mdt, mdt_readpage, mdt_out, mdt_seqs, mdt_seqm, mdt_fld, mdt_io, "
		"ldlm_cbd, ldlm_canceld, mgs)",
		service);
}

/* --- growing strings ---------------------------------------------------------------- */

struct str {
	char *p;
	size_t n, cap;
	bool oom;
};

static void str_put(struct str *s, const char *p, size_t n)
{
	char *grown;
	size_t cap;

	if (s->oom)
		return;
	if (s->n + n + 1 > s->cap) {
		cap = s->cap ? s->cap : 64;
		while (cap < s->n + n + 1)
			cap *= 2;
		grown = realloc(s->p, cap);
		if (!grown) {
			s->oom = true;
			return;
		}
		s->p = grown;
		s->cap = cap;
	}
	memcpy(s->p + s->n, p, n);
	s->n += n;
	s->p[s->n] = '\0';
}

static void str_puts(struct str *s, const char *p)
{
	str_put(s, p, strlen(p));
}

/* --- conditions --------------------------------------------------------------------- */

struct conv {
	const struct lutbf_caps *caps;
	const char *service, *qname, *rule;
	char *msg;
	size_t len;
	unsigned items; /* NID items of the current term */
	unsigned div;	/* the current queue's divisor: its CPTs, or 1 when keyed by nid */
};

static int refuse(struct conv *c, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int refuse(struct conv *c, int rc, const char *fmt, ...)
{
	char why[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return lutbf_say(c->msg, c->len, rc, "%s %s rule %s: %s", c->service, c->qname, c->rule,
			 why);
}

static bool v217(const struct conv *c)
{
	return lutbf_version_cmp(&c->caps->ver, 2, 17, 0) >= 0;
}

static void vtext(const struct lutbf_version *v, char *buf, size_t size)
{
	snprintf(buf, size, "%u.%u.%u", v->major, v->minor, v->patch);
}

/*
 * One NID item, its bracket lists cut into one item per range: Lustre
 * splits the conditions at every ',' before it reads the braces.
 */
static int nid_expand(struct conv *c, struct str *out, const char *item, size_t n)
{
	const char *open = memchr(item, '[', n), *close, *p, *comma;
	struct str one = {0};
	int rc = 0;

	while (open) {
		close = memchr(open, ']', n - (size_t)(open - item));
		if (!close)
			return refuse(c, -EINVAL, "'%.*s' has an unclosed '['", (int)n, item);
		if (memchr(open, ',', (size_t)(close - open)))
			break;
		open = memchr(close, '[', n - (size_t)(close - item));
	}
	if (!open) {
		if (++c->items > NID_ITEMS_MAX)
			return refuse(c, -EINVAL,
				      "its NID lists make more than %d items once their ',' are "
				      "written out for Lustre",
				      NID_ITEMS_MAX);
		if (out->n)
			str_puts(out, " ");
		str_put(out, item, n);
		return 0;
	}
	close = memchr(open, ']', n - (size_t)(open - item));
	for (p = open + 1; !rc && p < close; p = comma + 1) {
		comma = memchr(p, ',', (size_t)(close - p));
		if (!comma)
			comma = close;
		one.n = 0;
		str_put(&one, item, (size_t)(open - item));
		str_puts(&one, "[");
		str_put(&one, p, (size_t)(comma - p));
		str_puts(&one, "]");
		str_put(&one, close + 1, n - (size_t)(close + 1 - item));
		if (one.oom) {
			rc = -ENOMEM;
			break;
		}
		rc = nid_expand(c, out, one.p, one.n);
	}
	free(one.p);
	return rc;
}

/* Whether one of @set's characters is in the @n bytes at @p. */
static bool strpbrk_n(const char *p, size_t n, const char *set)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strchr(set, p[i]))
			return true;
	return false;
}

static int nid_values(struct conv *c, struct str *out, const char *v, size_t n)
{
	const char *p = v, *end = v + n, *at, *net, *q;
	size_t in;
	int rc;

	c->items = 0;
	while (p < end) {
		while (p < end && *p == ' ')
			p++;
		if (p == end)
			break;
		for (q = p; q < end && *q != ' ';)
			q++;
		in = (size_t)(q - p);
		at = memchr(p, '@', in);
		if (!at)
			return refuse(c, -EINVAL,
				      "'%.*s' names a net; Lustre's nid={...} takes NIDs such as "
				      "*@%.*s",
				      (int)in, p, (int)in, p);
		net = at + 1;
		if (net == q || strpbrk_n(net, (size_t)(q - net), "*[],@"))
			return refuse(c, -EINVAL,
				      "'%.*s': Lustre's nid={...} takes one net per NID range, "
				      "not a net pattern",
				      (int)in, p);
		if (memchr(p, ':', (size_t)(at - p)) && !v217(c))
			return refuse(c, -EINVAL, "'%.*s': IPv6 NIDs in TBF rules need Lustre 2.17",
				      (int)in, p);
		rc = nid_expand(c, out, p, in);
		if (rc)
			return rc;
		p = q;
	}
	return out->oom ? -ENOMEM : 0;
}

static int opcode_values(struct conv *c, struct str *out, const char *v, size_t n)
{
	const char *p = v, *end = v + n, *q, *name;
	int num;

	while (p < end) {
		while (p < end && *p == ' ')
			p++;
		if (p == end)
			break;
		for (q = p; q < end && *q != ' ';)
			q++;
		num = lne_tbf_opcode_lookup(p, (size_t)(q - p));
		if (num < 0)
			return refuse(c, -EINVAL, "'%.*s' is not an opcode", (int)(q - p), p);
		if (num >= LUTBF_OPCODE_LIMIT)
			return refuse(c, -EINVAL,
				      "%.*s (%d): Lustre's TBF keeps a rule's opcodes in a bitmap "
				      "as long as its opcode table (92-94 bits) indexed by opcode "
				      "number, and would write past its end; only OST and MDS "
				      "opcodes (below %d) can be held",
				      (int)(q - p), p, num, LUTBF_OPCODE_LIMIT);
		if (num == 63 && lutbf_version_cmp(&c->caps->ver, 2, 16, 0) < 0)
			return refuse(c, -EINVAL, "mds_batch needs Lustre 2.16");
		/* Lustre's name for 34; the others are lnetd's */
		name = num == 34 ? "mds_getattr_lock" : lne_tbf_opcode_name((unsigned)num);
		if (out->n)
			str_puts(out, " ");
		str_puts(out, name);
		p = q;
	}
	return out->oom ? -ENOMEM : 0;
}

static int plain_values(struct conv *c, struct str *out, const char *field, const char *v, size_t n)
{
	size_t i;

	for (i = 0; !strcmp(field, "jobid") && i < n; i++)
		if (strchr(",&{}", v[i]))
			return refuse(c, -EINVAL,
				      "jobid={%.*s}: Lustre cannot hold a jobid with '%c' (it "
				      "cuts conditions at ',' and '&' before reading the braces)",
				      (int)n, v, v[i]);
	str_put(out, v, n);
	return out->oom ? -ENOMEM : 0;
}

/*
 * lnetd's conditions @in (canonical) into Lustre's @conds and what the
 * listing will show, @shown.
 */
static int conds_convert(struct conv *c, const char *in, struct str *conds, struct str *shown)
{
	const char *p = in, *eq, *close;
	struct str vals = {0};
	unsigned terms = 0;
	int rc = 0;

	while (!rc && *p) {
		eq = strchr(p, '=');
		close = eq ? strchr(eq, '}') : NULL;
		if (!eq || eq[1] != '{' || !close) {
			rc = refuse(c, -EINVAL, "cannot read its conditions '%.200s'", in);
			break;
		}
		terms++;
		vals.n = 0;
		if (vals.p)
			vals.p[0] = '\0';
		if ((size_t)(eq - p) == 3 && !strncmp(p, "nid", 3))
			rc = nid_values(c, &vals, eq + 2, (size_t)(close - eq - 2));
		else if ((size_t)(eq - p) == 6 && !strncmp(p, "opcode", 6))
			rc = opcode_values(c, &vals, eq + 2, (size_t)(close - eq - 2));
		else
			rc = plain_values(c, &vals,
					  (size_t)(eq - p) == 5 && !strncmp(p, "jobid", 5) ? "jobid"
											   : "",
					  eq + 2, (size_t)(close - eq - 2));
		if (rc)
			break;
		str_put(conds, p, (size_t)(eq - p));
		str_puts(conds, "={");
		str_puts(conds, vals.p ? vals.p : "");
		str_puts(conds, "}");
		if (!shown->n) {
			str_puts(shown, "{");
			str_puts(shown, vals.p ? vals.p : "");
			str_puts(shown, "}");
		}
		p = close + 1;
		if (*p == '&' || *p == ',')
			str_put(conds, p++, 1);
	}
	free(vals.p);
	if (!rc && terms > 1 && !v217(c)) {
		char v[32];

		vtext(&c->caps->ver, v, sizeof(v));
		rc = refuse(c, -EINVAL,
			    "Lustre %s takes one condition per rule ('&' and ',' came in 2.17.0)",
			    v);
	}
	if (!rc && v217(c)) {
		shown->n = 0;
		str_puts(shown, conds->p ? conds->p : "");
	}
	if (!rc && (conds->oom || shown->oom))
		rc = -ENOMEM;
	return rc;
}

/* --- rules, queues, policies ------------------------------------------------------------ */

static int rate_per_cpt(struct conv *c, uint32_t asked, uint32_t *out)
{
	unsigned n = c->div;
	uint64_t per = ((uint64_t)asked + n / 2) / n;

	if (asked < n)
		return refuse(c, -ERANGE,
			      "%u RPC/s cannot be spread over the %u CPU partitions of %s "
			      "(Lustre's rate is per partition, at least 1 in each)",
			      asked, n, c->service);
	if (per > LUTBF_RATE_MAX && n == 1)
		return refuse(c, -ERANGE, "%u RPC/s: Lustre holds at most %u per rule%s", asked,
			      LUTBF_RATE_MAX,
			      c->caps->ncpt > 1 ? " (a nid-keyed class lives in one CPU partition)"
						: "");
	if (per > LUTBF_RATE_MAX)
		return refuse(c, -ERANGE,
			      "%u RPC/s over %u CPU partitions is %llu in each; Lustre holds "
			      "at most %u per partition",
			      asked, n, (unsigned long long)per, LUTBF_RATE_MAX);
	*out = (uint32_t)per;
	return 0;
}

static int rule_convert(struct conv *c, const struct lne_tbf_rule *r, struct lutbf_rule *out)
{
	char text[LNE_TBF_CMD_MAX + 1], *cut, *rate;
	struct str conds = {0}, shown = {0};
	size_t nlen = strlen(r->name), i;
	int rc;

	c->rule = r->name;
	if (!nlen || nlen > LUTBF_NAME_MAX)
		return refuse(c, -EINVAL, "Lustre's rule names are 1 to %d characters",
			      LUTBF_NAME_MAX);
	for (i = 0; i < nlen; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_",
			    r->name[i]))
			return refuse(c, -EINVAL, "Lustre's rule names are [A-Za-z0-9_]");
	rc = rate_per_cpt(c, r->rate, &out->rate);
	if (rc)
		return rc;
	snprintf(out->name, sizeof(out->name), "%s", r->name);
	out->asked = r->rate;
	out->realtime = r->realtime;
	if (!r->nterm) {
		out->conds = strdup("*");
		out->shown = strdup(v217(c) ? "*" : "{*}");
		return out->conds && out->shown ? 0 : -ENOMEM;
	}
	/* "start <name> <conditions> rate=<n>[ realtime=1]" */
	if (lne_tbf_rule_format(r, text, sizeof(text)) >= (int)sizeof(text))
		return refuse(c, -EINVAL, "its conditions are longer than %d bytes",
			      LNE_TBF_CMD_MAX);
	if (strncmp(text, "start ", 6) || strncmp(text + 6, r->name, nlen) || text[6 + nlen] != ' ')
		return refuse(c, -EINVAL, "cannot read '%.200s'", text);
	cut = text + 6 + nlen + 1;
	rate = strstr(cut, " rate=");
	while (rate && strstr(rate + 1, " rate="))
		rate = strstr(rate + 1, " rate=");
	if (!rate)
		return refuse(c, -EINVAL, "cannot read '%.200s'", text);
	*rate = '\0';
	rc = conds_convert(c, cut, &conds, &shown);
	if (!rc &&
	    strlen("reg start  rate=999999 rank= realtime=1") + 2 * LUTBF_NAME_MAX + conds.n >
		    LUTBF_CMD_MAX)
		rc = refuse(c, -EINVAL,
			    "its conditions take %zu bytes in Lustre's form, and one "
			    "nrs_tbf_rule command is at most %d",
			    conds.n, LUTBF_CMD_MAX);
	if (rc) {
		free(conds.p);
		free(shown.p);
		return rc;
	}
	out->conds = conds.p;
	out->shown = shown.p;
	return 0;
}

/*
 * Whether lnetd's hp queue asks anything of a service that has none: not
 * when it holds the reg queue's rules (commands without "reg" or "hp" give
 * both queues the rule, as Lustre gives its only queue), nor when it holds
 * the default rule alone at its default rate.
 */
static bool hp_asks(const struct lne_tbf *tbf)
{
	const struct lne_tbf_rule *r = NULL, *h = NULL;
	char a[LNE_TBF_CMD_MAX + 1], b[LNE_TBF_CMD_MAX + 1];

	h = lne_tbf_rule_next(tbf, LNE_TBF_HP, NULL);
	if (h && !h->nterm && h->rate == LNE_TBF_RATE_DEFAULT)
		return false;
	for (r = lne_tbf_rule_next(tbf, LNE_TBF_REG, NULL); r || h;
	     r = lne_tbf_rule_next(tbf, LNE_TBF_REG, r),
	    h = lne_tbf_rule_next(tbf, LNE_TBF_HP, h)) {
		if (!r || !h)
			return true;
		lne_tbf_rule_format(r, a, sizeof(a));
		lne_tbf_rule_format(h, b, sizeof(b));
		if (strcmp(a, b))
			return true;
	}
	return false;
}

static int queue_convert(struct conv *c, const struct lne_tbf *tbf, int q, struct lutbf_want *w)
{
	const struct lne_tbf_rule *r;
	struct lne_tbf_queue_info qi;
	struct lutbf_rules *rules = &w->q[q].rules;
	char type[32], v[32];
	int rc;

	lne_tbf_queue_info(tbf, q, &qi);
	lne_tbf_type_format(qi.fields, type, sizeof(type));
	c->qname = q == LUTBF_REG ? "reg" : "hp";
	c->rule = "-";
	if (q == LUTBF_HP && !c->caps->has_hp) {
		if (!hp_asks(tbf))
			return 0;
		return lutbf_say(
			c->msg, c->len, -EINVAL,
			"%s has no high-priority queue: hp rules other than reg's cannot be "
			"held",
			c->service);
	}
	if (strchr(type, '+') && !v217(c)) {
		vtext(&c->caps->ver, v, sizeof(v));
		return lutbf_say(
			c->msg, c->len, -EINVAL,
			"%s %s: type %s cannot be held: Lustre %s has one field per TBF type "
			"(nid+opcode and the like came in 2.17.0)",
			c->service, c->qname, type, v);
	}
	if (strlen(type) > LUTBF_TYPE_MAX)
		return lutbf_say(c->msg, c->len, -EINVAL,
				 "%s %s: type %s cannot be held: Lustre's TBF type is at most %d "
				 "characters",
				 c->service, c->qname, type, LUTBF_TYPE_MAX);
	if (c->caps->depth && qi.depth != c->caps->depth)
		return lutbf_say(
			c->msg, c->len, -EINVAL,
			"%s %s: depth %u cannot be held: Lustre's bucket depth is ptlrpc's "
			"tbf_depth (%u), one for every service",
			c->service, c->qname, qi.depth, c->caps->depth);
	snprintf(w->q[q].policy, sizeof(w->q[q].policy), "tbf %s", type);
	/* A class keyed by nid lives in the one CPT that receives a remote peer's
	 * requests (the rule is listed in every CPT, the class only there): the rate is
	 * that class's whole rate, not divided (lu-tbf.h, lnetctl(8)). */
	c->div = qi.fields & LNE_TBF_NID ? 1 : c->caps->ncpt;
	w->q[q].div = c->div;
	w->q[q].by_nid = qi.fields & LNE_TBF_NID;
	rules->r = calloc(qi.nrules ? qi.nrules : 1, sizeof(*rules->r));
	if (!rules->r)
		return -ENOMEM;
	for (r = lne_tbf_rule_next(tbf, q, NULL); r; r = lne_tbf_rule_next(tbf, q, r)) {
		if (rules->n == qi.nrules)
			return -EPROTO;
		rc = rule_convert(c, r, &rules->r[rules->n]);
		rules->n++; /* freed by lutbf_want_free() on error too */
		if (rc)
			return rc;
	}
	return 0;
}

void lutbf_want_free(struct lutbf_want *w)
{
	size_t q, i;

	for (q = 0; q < LUTBF_NQUEUES; q++) {
		for (i = 0; i < w->q[q].rules.n; i++) {
			free(w->q[q].rules.r[i].conds);
			free(w->q[q].rules.r[i].shown);
		}
		free(w->q[q].rules.r);
	}
	memset(w, 0, sizeof(*w));
}

int lutbf_convert(const struct lne_tbf *tbf, const struct lutbf_caps *caps, struct lutbf_want *out,
		  char *msg, size_t len)
{
	struct conv c = {.caps = caps, .service = lne_tbf_service(tbf), .msg = msg, .len = len};
	char v[32];
	int q, rc = 0;

	memset(out, 0, sizeof(*out));
	if (!lutbf_service_known(c.service))
		return lutbf_service_dir(NULL, c.service, v, sizeof(v), msg, len);
	if (lutbf_version_cmp(&caps->ver, 2, 15, 0) < 0) {
		vtext(&caps->ver, v, sizeof(v));
		return lutbf_say(msg, len, -EOPNOTSUPP,
				 "Lustre %s is older than 2.15, the oldest lnetd drives TBF on", v);
	}
	if (!caps->ncpt || caps->ncpt > LUTBF_CPT_MAX)
		return lutbf_say(msg, len, -EINVAL, "%s: %u CPU partitions", c.service, caps->ncpt);
	snprintf(out->service, sizeof(out->service), "%s", c.service);
	out->ver = caps->ver;
	out->ncpt = caps->ncpt;
	out->has_hp = caps->has_hp;
	for (q = 0; !rc && q < LUTBF_NQUEUES; q++)
		rc = queue_convert(&c, tbf, q, out);
	if (rc)
		lutbf_want_free(out);
	return rc;
}
