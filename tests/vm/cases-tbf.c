// SPDX-License-Identifier: GPL-2.0
/*
 * cases-tbf.c - NRS TBF policies in the module (LNETK_CMD_TBF_*), through
 * lnetk-client and raw requests.
 *
 * tbf: the happy paths (a policy made, typed, given rules, changed, dumped
 * in service order and deleted; each change bumps the generation by one and
 * is announced), malformed and impossible requests (refused with the
 * promised errno and an extack sentence, the policies and the generation
 * unchanged: a type refused on the second queue leaves the first as it
 * was), and an unprivileged caller (reads allowed, changes EPERM without
 * extack, nothing changed), and a load in the kernel (TBF_LOAD: three
 * classes at 500, 1000 and 2000 requests/s for 2 s of guest time, each
 * within 3% of its rate).
 *
 * Runs in a network namespace of its own.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "engine/tbf.h"
#include "vm.h"

/* --- the policies as text, and the generation ----------------------------------- */

static int tbf_text_cb(const struct lnetk_tbf *t, void *arg)
{
	struct strbuf *sb = arg;
	size_t q, i;

	sb_printf(sb, "%s\n", t->service);
	for (q = 0; q < t->nqueues; q++) {
		const struct lnetk_tbf_qinfo *qi = &t->queues[q];

		sb_printf(sb, " q%u type=%s depth=%u\n", qi->queue, qi->type, qi->depth);
		for (i = 0; i < qi->nrules; i++)
			sb_printf(sb, "  %s rate=%u: %s\n", qi->rules[i].name, qi->rules[i].rate,
				  qi->rules[i].text);
	}
	return 0;
}

struct tbf_snap {
	struct strbuf text;
	uint64_t generation;
	int rc;
};

static void tbf_snap(struct lnetk *lk, struct tbf_snap *s)
{
	struct lnetk_info info = {0};

	memset(s, 0, sizeof(*s));
	s->rc = lnetk_tbf_dump(lk, tbf_text_cb, &s->text, NULL);
	if (!s->rc)
		s->rc = lnetk_get_info(lk, &info, NULL);
	s->generation = info.generation;
	if (!s->text.s)
		sb_printf(&s->text, "%s", "");
}

static bool tbf_same(const struct tbf_snap *a, const struct tbf_snap *b)
{
	return !a->rc && !b->rc && a->generation == b->generation && !strcmp(a->text.s, b->text.s);
}

/* One policy, copied out of the callback. */
struct got {
	int n;
	char service[LNETK_TBF_SERVICE_MAX];
	struct strbuf text;
	struct lnetk_tbf_qinfo q[2];
	struct lnetk_tbf_rule first[2]; /* each queue's first rule */
	char first_text[2][256];
};

static int got_cb(const struct lnetk_tbf *t, void *arg)
{
	struct got *g = arg;
	size_t q;

	g->n++;
	strcpy(g->service, t->service);
	tbf_text_cb(t, &g->text);
	for (q = 0; q < t->nqueues && q < 2; q++) {
		g->q[q] = t->queues[q];
		g->q[q].rules = NULL;
		if (t->queues[q].nrules) {
			g->first[q] = t->queues[q].rules[0];
			snprintf(g->first_text[q], sizeof(g->first_text[q]), "%s",
				 t->queues[q].rules[0].text);
			g->first[q].text = g->first_text[q];
		}
	}
	return 0;
}

static int get_one(struct lnetk *lk, const char *service, struct got *g)
{
	sb_free(&g->text);
	memset(g, 0, sizeof(*g));
	return lnetk_tbf_get(lk, service, got_cb, g, NULL);
}

/* --- happy paths ------------------------------------------------------------------ */

static int events;
static uint8_t last_event_cmd;
static uint64_t last_event_gen;

static void on_event(uint8_t cmd, uint64_t gen, void *arg)
{
	events++;
	last_event_cmd = cmd;
	last_event_gen = gen;
}

/* A change: its generation one above the last, announced with its command. */
static void changed(struct lnetk *lk, struct lnetk_events *ev, uint64_t *gen, uint8_t cmd, int rc,
		    const struct lnetk_err *err, const char *what)
{
	uint64_t g = lnetk_last_generation(lk);

	events = 0;
	lnetk_events_dispatch(ev);
	if (rc)
		diag("%s: %s (%s)", what, errname(rc), err->msg);
	tap(!rc && g == *gen + 1 && events == 1 && last_event_cmd == cmd && last_event_gen == g,
	    "%s: generation %llu -> %llu, announced (%d events)", what, (unsigned long long)*gen,
	    (unsigned long long)g, events);
	*gen = g;
}

static int names_cb(const struct lnetk_tbf *t, void *arg)
{
	sb_printf(arg, "%s,", t->service);
	return 0;
}

static void happy(struct lnetk *lk)
{
	struct lnetk_events *ev = NULL;
	struct strbuf names = {0};
	struct lnetk_info info;
	struct lnetk_err err;
	struct got g = {0};
	uint64_t gen;
	int rc;

	if (lnetk_events_open(on_event, NULL, &ev) || lnetk_get_info(lk, &info, &err)) {
		tap(false, "tbf: join the events group and read the generation");
		return;
	}
	gen = info.generation;

	rc = lnetk_tbf_set(lk, "ost_io", -1, NULL, 0, &err);
	changed(lk, ev, &gen, LNETK_CMD_TBF_SET, rc, &err, "TBF_SET makes the ost_io policy");
	rc = get_one(lk, "ost_io", &g);
	tap(!rc && g.n == 1 && !strcmp(g.service, "ost_io") && !strcmp(g.q[0].type, "nid") &&
		    !strcmp(g.q[1].type, "nid") && g.q[0].depth == 3 && g.q[1].depth == 3 &&
		    g.q[0].nrules == 1 && !strcmp(g.first[0].name, "default") &&
		    g.first[0].rate == 10000 && g.q[1].queue == LNETK_TBF_HP &&
		    lnetk_last_generation(lk) == gen,
	    "TBF_GET: a new policy has two nid queues, depth 3, a default rule at 10000/s (%s)",
	    errname(rc));

	rc = lnetk_tbf_set(lk, "ost_io", LNETK_TBF_HP, "nid+opcode", 5, &err);
	changed(lk, ev, &gen, LNETK_CMD_TBF_SET, rc, &err, "TBF_SET types the hp queue");
	rc = get_one(lk, "ost_io", &g);
	tap(!rc && !strcmp(g.q[0].type, "nid") && g.q[0].depth == 3 &&
		    !strcmp(g.q[1].type, "nid+opcode") && g.q[1].depth == 5,
	    "TBF_GET: hp is nid+opcode with depth 5, reg is as it was (reg %s/%u, hp %s/%u)",
	    g.q[0].type, g.q[0].depth, g.q[1].type, g.q[1].depth);

	rc = lnetk_tbf_cmd(lk, "ost_io", "start io nid={10.0.0.[1-4]@tcp} rate=500", &err);
	changed(lk, ev, &gen, LNETK_CMD_TBF_CMD, rc, &err, "TBF_CMD starts a rule on both queues");
	rc = get_one(lk, "ost_io", &g);
	tap(!rc && g.q[0].nrules == 2 && g.q[1].nrules == 2 && !strcmp(g.first[0].name, "io") &&
		    g.first[0].rate == 500 && g.first[1].rate == 500 &&
		    strstr(g.first[0].text, "10.0.0.[1-4]@tcp"),
	    "TBF_GET: rule io comes first in both queues at 500/s (\"%s\")", g.first[0].text);

	rc = lnetk_tbf_cmd(lk, "ost_io", "reg change io rate=700", &err);
	changed(lk, ev, &gen, LNETK_CMD_TBF_CMD, rc, &err, "TBF_CMD changes a rule of reg");
	rc = get_one(lk, "ost_io", &g);
	tap(!rc && g.first[0].rate == 700 && g.first[1].rate == 500 && g.first[0].enqueued == 0 &&
		    g.first[0].dispatched == 0,
	    "TBF_GET: reg's io is at 700/s, hp's at 500/s, no traffic counted");

	rc = lnetk_tbf_set(lk, "mdt", -1, "jobid", 0, &err);
	changed(lk, ev, &gen, LNETK_CMD_TBF_SET, rc, &err, "TBF_SET makes a jobid policy for mdt");
	rc = lnetk_tbf_dump(lk, names_cb, &names, &err);
	tap(!rc && names.s && !strcmp(names.s, "mdt,ost_io,") && lnetk_last_generation(lk) == gen,
	    "TBF_GET dump: every policy, in service order (%s)", names.s ? names.s : "");

	rc = lnetk_tbf_cmd(lk, "ost_io", "stop io", &err);
	changed(lk, ev, &gen, LNETK_CMD_TBF_CMD, rc, &err, "TBF_CMD stops the rule");
	rc = get_one(lk, "ost_io", &g);
	tap(!rc && g.q[0].nrules == 1 && g.q[1].nrules == 1,
	    "TBF_GET: only the default rules left");

	rc = lnetk_tbf_del(lk, "mdt", &err);
	changed(lk, ev, &gen, LNETK_CMD_TBF_DEL, rc, &err, "TBF_DEL deletes the mdt policy");
	sb_free(&names);
	rc = lnetk_tbf_dump(lk, names_cb, &names, &err);
	tap(!rc && names.s && !strcmp(names.s, "ost_io,"), "TBF_GET dump: ost_io alone left (%s)",
	    names.s ? names.s : "");
	sb_free(&names);
	sb_free(&g.text);
	lnetk_events_close(ev);
}

/* --- refusals ------------------------------------------------------------------------ */

struct tbf_refusal {
	const char *what;
	uint8_t cmd;
	int want;
	const char *service; /* LNETK_TBF_A_SERVICE, or NULL */
	int queue;	     /* LNETK_TBF_A_QUEUE, or -1 */
	const char *type, *text;
	int64_t depth; /* LNETK_TBF_A_DEPTH, or -1 */
	int extra;     /* an attribute type to add to the nest, 0 none */
	const char *ext_has;
	uint32_t load_ms; /* LNETK_TBF_A_LOAD_MS, 0 none */
};

static const struct tbf_refusal refusals[] = {
	{"TBF_SET without a service", LNETK_CMD_TBF_SET, -EINVAL, NULL, 0, NULL, NULL, -1, 0,
	 "LNETK_TBF_A_SERVICE is required"},
	{"TBF_SET of a service name with a space", LNETK_CMD_TBF_SET, -EINVAL, "ost io", -1, NULL,
	 NULL, -1, 0, "ost io"},
	{"TBF_SET of an unknown type", LNETK_CMD_TBF_SET, -EINVAL, "ost_io", -1, "nid+colour", NULL,
	 -1, 0, "colour"},
	{"TBF_SET of an existing policy with nothing to change", LNETK_CMD_TBF_SET, -EEXIST,
	 "ost_io", -1, NULL, NULL, -1, 0, "LNETK_TBF_A_TYPE"},
	{"TBF_SET of queue 2", LNETK_CMD_TBF_SET, -ERANGE, "ost_io", 2, NULL, NULL, 4, 0, NULL},
	{"TBF_SET of depth 0", LNETK_CMD_TBF_SET, -ERANGE, "ost_io", -1, NULL, NULL, 0, 0, NULL},
	{"TBF_SET of depth 1000001", LNETK_CMD_TBF_SET, -ERANGE, "ost_io", -1, NULL, NULL, 1000001,
	 0, NULL},
	{"TBF_SET of a type a rule of hp does not fit (reg would take it)", LNETK_CMD_TBF_SET,
	 -EINVAL, "ost_io", -1, "nid", NULL, -1, 0, "opcode"},
	{"TBF_SET with LNETK_TBF_A_CMD", LNETK_CMD_TBF_SET, -EINVAL, "ost_io", -1, NULL, "stop op",
	 4, 0, "does not take"},
	{"TBF_CMD without a command", LNETK_CMD_TBF_CMD, -EINVAL, "ost_io", -1, NULL, NULL, -1, 0,
	 "LNETK_TBF_A_CMD is required"},
	{"TBF_CMD with a reversed NID range", LNETK_CMD_TBF_CMD, -EINVAL, "ost_io", -1, NULL,
	 "hp start a nid={10.0.0.[5-2]@tcp}", -1, 0, "range start 5 is above its end 2"},
	{"TBF_CMD of a rule that exists", LNETK_CMD_TBF_CMD, -EEXIST, "ost_io", -1, NULL,
	 "hp start op opcode={ost_read}", -1, 0, NULL},
	{"TBF_CMD stopping a rule that does not exist", LNETK_CMD_TBF_CMD, -ENOENT, "ost_io", -1,
	 NULL, "stop nosuch", -1, 0, NULL},
	{"TBF_CMD for a service without a policy", LNETK_CMD_TBF_CMD, -ENOENT, "mdt", -1, NULL,
	 "stop x", -1, 0, "no TBF policy"},
	{"TBF_CMD with a queue", LNETK_CMD_TBF_CMD, -EINVAL, "ost_io", 0, NULL, "stop op", -1, 0,
	 "does not take"},
	{"TBF_DEL for a service without a policy", LNETK_CMD_TBF_DEL, -ENOENT, "mdt", -1, NULL,
	 NULL, -1, 0, "no TBF policy"},
	{"TBF_DEL with an unknown nested attribute", LNETK_CMD_TBF_DEL, -EINVAL, "ost_io", -1, NULL,
	 NULL, -1, LNETK_TBF_A_MAX + 1, NULL},
	{"TBF_DEL with a reply attribute as input", LNETK_CMD_TBF_DEL, -EINVAL, "ost_io", -1, NULL,
	 NULL, -1, LNETK_TBF_A_QUEUE_INFO, NULL},
	{"TBF_GET of a service without a policy", LNETK_CMD_TBF_GET, -ENOENT, "mdt", -1, NULL, NULL,
	 -1, 0, "no TBF policy"},
	{"TBF_LOAD without a duration", LNETK_CMD_TBF_LOAD, -EINVAL, "ost_io", -1, NULL, NULL, -1,
	 0, "LNETK_TBF_A_LOAD_MS is required"},
	{"TBF_LOAD without classes", LNETK_CMD_TBF_LOAD, -EINVAL, "ost_io", -1, NULL, NULL, -1, 0,
	 "LNETK_TBF_A_LOAD_CLASS", 100},
	{"TBF_LOAD of 5 ms", LNETK_CMD_TBF_LOAD, -ERANGE, "ost_io", -1, NULL, NULL, -1, 0, NULL, 5},
	{"TBF_LOAD with a type", LNETK_CMD_TBF_LOAD, -EINVAL, "ost_io", -1, "nid", NULL, -1, 0,
	 "does not take", 100},
};

static void refuse_one(struct lnetk *lk, const struct tbf_refusal *f)
{
	struct tbf_snap before, after;
	struct raw *r;
	char ext[256];
	bool same, text_ok;
	int rc;

	tbf_snap(lk, &before);
	r = raw_new(f->cmd);
	raw_nest(r, LNETK_A_TBF);
	if (f->service)
		raw_str(r, LNETK_TBF_A_SERVICE, f->service);
	if (f->queue >= 0)
		raw_u8(r, LNETK_TBF_A_QUEUE, (uint8_t)f->queue);
	if (f->type)
		raw_str(r, LNETK_TBF_A_TYPE, f->type);
	if (f->depth >= 0)
		raw_u32(r, LNETK_TBF_A_DEPTH, (uint32_t)f->depth);
	if (f->text)
		raw_str(r, LNETK_TBF_A_CMD, f->text);
	if (f->extra)
		raw_u32(r, f->extra, 1);
	if (f->load_ms)
		raw_u32(r, LNETK_TBF_A_LOAD_MS, f->load_ms);
	raw_end(r);
	rc = raw_send(r, ext, sizeof(ext));
	tbf_snap(lk, &after);
	same = tbf_same(&before, &after);
	text_ok = ext[0] && (!f->ext_has || strstr(ext, f->ext_has));
	if (rc != f->want || !text_ok || !same)
		diag("%s: want %s, got %s; extack \"%s\"%s", f->what, errname(f->want), errname(rc),
		     ext, same ? "" : "; the policies changed");
	tap(rc == f->want && text_ok && same, "%s: refused with %s and a reason, nothing changed",
	    f->what, errname(rc));
	sb_free(&before.text);
	sb_free(&after.text);
}

static void refusals_all(struct lnetk *lk)
{
	struct lnetk_err err;
	struct raw *r;
	char ext[256];
	size_t i;
	int rc;

	/* hp holds a rule on opcode: a type without opcode fits reg but not hp. */
	rc = lnetk_tbf_set(lk, "ost_io", LNETK_TBF_HP, "nid+opcode", 0, &err) ?:
		     lnetk_tbf_cmd(lk, "ost_io", "hp start op opcode={ost_read} rate=10", &err) ?:
		     lnetk_tbf_set(lk, "ost_io", LNETK_TBF_REG, "jobid", 0, &err);
	tap(!rc, "tbf refusals: a policy with a typed hp queue and a rule on opcode (%s %s)",
	    errname(rc), err.msg);
	for (i = 0; i < sizeof(refusals) / sizeof(refusals[0]); i++)
		refuse_one(lk, &refusals[i]);

	/* No nest at all. */
	r = raw_new(LNETK_CMD_TBF_SET);
	rc = raw_send(r, ext, sizeof(ext));
	tap(rc == -EINVAL && strstr(ext, "LNETK_A_TBF"),
	    "TBF_SET without LNETK_A_TBF: refused with %s, \"%s\"", errname(rc), ext);
}

/* --- a policy bigger than a message -------------------------------------------------------- */

#define BIG_RULES 256 /* LNE_TBF_RULES_MAX: a full reg queue */

/* Rule @i: 25 NIDs on 25 networks, which no canonical form can merge: ~450 bytes. */
static void big_rule(int i, char *buf, size_t len)
{
	size_t n = (size_t)snprintf(buf, len, "reg start r%d nid={", i);
	int j;

	for (j = 0; j < 25; j++)
		n += (size_t)snprintf(buf + n, len - n, "%s10.%d.%d.%d@tcp%d", j ? " " : "",
				      i % 200, j, (j * 7) % 250 + 1, j + 1);
	snprintf(buf + n, len - n, "} rate=%d", 100 + i);
}

struct big_seen {
	int calls, reg, hp, order_ok, texts_ok;
	struct lne_tbf *engine; /* the same rules in userspace: the texts to expect */
};

static int big_cb(const struct lnetk_tbf *t, void *arg)
{
	struct big_seen *b = arg;
	const struct lne_tbf_rule *er = NULL;
	char want[1024], name[16];
	size_t q, i;

	if (strcmp(t->service, "big"))
		return 0;
	b->calls++;
	for (q = 0; q < t->nqueues; q++) {
		const struct lnetk_tbf_qinfo *qi = &t->queues[q];

		if (qi->queue == LNETK_TBF_HP) {
			b->hp = (int)qi->nrules;
			continue;
		}
		b->reg = (int)qi->nrules;
		/* Newest first: r255 ... r0, then the default. */
		for (i = 0; i + 1 < qi->nrules; i++) {
			snprintf(name, sizeof(name), "r%d", BIG_RULES - 1 - (int)i);
			b->order_ok += !strcmp(qi->rules[i].name, name);
			er = lne_tbf_rule_next(b->engine, LNE_TBF_REG, er);
			if (er)
				lne_tbf_rule_format(er, want, sizeof(want));
			b->texts_ok += er && !strcmp(qi->rules[i].text, want);
		}
	}
	return 0;
}

/*
 * A full reg queue of long rules (about 115 KiB of rule text, more than a
 * dump message and more than a nest's 64 KiB): GET of it alone is refused
 * with EMSGSIZE and a sentence, a dump of it (or of every policy) comes
 * whole over several messages, every rule in order with its text.
 */
static void big(struct lnetk *lk)
{
	struct lne_tbf *engine = NULL;
	struct big_seen one = {0}, all = {0};
	struct lnetk_err err;
	char cmd[1024], ext[256];
	struct lne_err le;
	struct raw *r;
	int rc, i;

	rc = lnetk_tbf_set(lk, "big", -1, NULL, 0, &err) ?: lne_tbf_new("big", &engine, &le);
	for (i = 0; !rc && i < BIG_RULES; i++) {
		big_rule(i, cmd, sizeof(cmd));
		rc = lnetk_tbf_cmd(lk, "big", cmd, &err) ?: lne_tbf_command(engine, cmd, 0, &le);
	}
	one.engine = all.engine = engine;
	tap(!rc, "tbf big: %d rules of about %zu bytes each on reg (%s %s)", BIG_RULES, strlen(cmd),
	    errname(rc), err.msg);
	r = raw_new(LNETK_CMD_TBF_GET);
	raw_nest(r, LNETK_A_TBF);
	raw_str(r, LNETK_TBF_A_SERVICE, "big");
	raw_end(r);
	rc = raw_send(r, ext, sizeof(ext));
	tap(rc == -EMSGSIZE && strstr(ext, "dump it"),
	    "tbf big: GET of it alone does not fit one reply: %s, \"%s\"", errname(rc), ext);
	rc = lnetk_tbf_get(lk, "big", big_cb, &one, &err);
	tap(!rc && one.calls == 1 && one.reg == BIG_RULES + 1 && one.hp == 1 &&
		    one.order_ok == BIG_RULES && one.texts_ok == BIG_RULES,
	    "tbf big: its dump comes whole over several messages: %d policy, %d reg rules (%d in "
	    "order, %d texts right), %d hp (%s)",
	    one.calls, one.reg, one.order_ok, one.texts_ok, one.hp, errname(rc));
	rc = lnetk_tbf_dump(lk, big_cb, &all, &err);
	tap(!rc && all.calls == 1 && all.reg == BIG_RULES + 1 && all.order_ok == BIG_RULES &&
		    all.texts_ok == BIG_RULES,
	    "tbf big: so does the dump of every policy (%d calls, %d rules, %s)", all.calls,
	    all.reg, errname(rc));
	rc = lnetk_tbf_del(lk, "big", &err);
	tap(!rc, "tbf big: deleted (%s)", errname(rc));
	lne_tbf_free(engine);
}

/*
 * A dump split where the reg queue ends in one message and the hp queue's
 * header would fit there but its first rule would not (issue 35: read back
 * as -EPROTO).  Read with 8 KiB buffers, so that dump messages are about
 * that big, a policy of three reg rules of about 1.5 KiB, a reg rule f with
 * k NIDs (k = 1 .. 256, about 14 bytes more each time), the reg default
 * and the hp default crosses the end of the first message in steps smaller
 * than an hp rule: some k makes exactly that split.  Every k must read back whole, and
 * the module (LNETK_DEBUG) counts the queue headers it held back for the
 * next message, which says the split was built.
 */
#define HELD_BACK "/sys/module/lnetk/parameters/test_tbf_held_back"

static long held_back(void)
{
	FILE *f = fopen(HELD_BACK, "r");
	long n = -1;

	if (f && fscanf(f, "%ld", &n) != 1)
		n = -1;
	if (f)
		fclose(f);
	return n;
}

struct split_seen {
	int calls, reg, hp;
	char first[16];
};

static int split_cb(const struct lnetk_tbf *t, void *arg)
{
	struct split_seen *s = arg;
	size_t q;

	s->calls++;
	for (q = 0; q < t->nqueues; q++) {
		if (t->queues[q].queue == LNETK_TBF_HP) {
			s->hp += (int)t->queues[q].nrules;
			continue;
		}
		s->reg += (int)t->queues[q].nrules;
		if (t->queues[q].nrules)
			snprintf(s->first, sizeof(s->first), "%s", t->queues[q].rules[0].name);
	}
	return 0;
}

static void split(struct lnetk *lk)
{
	struct lnetk_err err;
	struct lnetk *small = NULL;
	char cmd[LNE_TBF_CMD_MAX];
	long before = held_back();
	int rc, k, bad = 0, tried = 0, first_bad = 0, first_rc = 0;
	size_t n;

	rc = lnetk_open_buffer(&small, 8192) ?: lnetk_tbf_set(lk, "split", -1, NULL, 0, &err);
	for (k = 1; !rc && k <= 3; k++) {
		n = (size_t)snprintf(cmd, sizeof(cmd), "reg start g%d nid={", k);
		for (int j = 0; j < 100; j++)
			n += (size_t)snprintf(cmd + n, sizeof(cmd) - n, "%s10.8.%d.%d@tcp",
					      j ? " " : "", k, j + 1);
		snprintf(cmd + n, sizeof(cmd) - n, "} rate=100");
		rc = lnetk_tbf_cmd(lk, "split", cmd, &err);
	}
	for (k = 1; !rc && k <= 256; k++) { /* a rule names at most 256 NIDs */
		struct split_seen seen = {0};

		n = (size_t)snprintf(cmd, sizeof(cmd), "reg start f nid={");
		for (int j = 0; j < k && n < sizeof(cmd); j++)
			n += (size_t)snprintf(cmd + n, sizeof(cmd) - n, "%s10.9.%d.%d@tcp",
					      j ? " " : "", j / 250, j % 250 + 1);
		if (n + 16 >= sizeof(cmd))
			break;
		snprintf(cmd + n, sizeof(cmd) - n, "} rate=100");
		rc = (k > 1 ? lnetk_tbf_cmd(lk, "split", "reg stop f", &err) : 0)
			     ?: lnetk_tbf_cmd(lk, "split", cmd, &err);
		if (rc)
			break;
		tried++;
		rc = lnetk_tbf_get(small, "split", split_cb, &seen, &err);
		if (rc || seen.calls != 1 || seen.reg != 5 || seen.hp != 1 ||
		    strcmp(seen.first, "f")) {
			if (!bad++) {
				first_bad = k;
				first_rc = rc;
			}
			rc = 0;
		}
	}
	diag("tbf split: %d policies read with 8 KiB buffers, %d wrong (the first at k %d: %s); "
	     "hp headers held back %ld times",
	     tried, bad, first_bad, errname(first_rc), held_back() - before);
	tap(!rc && tried >= 200 && !bad,
	    "tbf split: a policy whose dump splits anywhere, the reg queue ending in one message, "
	    "reads back whole (%d of %d; %s %s)",
	    tried - bad, tried, errname(rc), err.msg);
	tap(before >= 0 && held_back() > before,
	    "tbf split: among them the split where the hp queue's header fits the first message "
	    "but its first rule does not (the module held that header back %ld times)",
	    held_back() - before);
	lnetk_tbf_del(lk, "split", &err);
	lnetk_close(small);
}

/* --- a load in the kernel --------------------------------------------------------------- */

static int sum_cb(const struct lnetk_tbf *t, void *arg)
{
	uint64_t *sum = arg;
	size_t i;

	for (i = 0; i < t->queues[0].nrules; i++) {
		sum[0] += t->queues[0].rules[i].dispatched;
		sum[1] += t->queues[0].rules[i].queued;
	}
	return 0;
}

static void load(struct lnetk *lk)
{
	static const unsigned int rate[] = {500, 1000, 2000};
	static const char *const name[] = {"10.1.0.1@tcp", "10.1.0.2@tcp", "10.1.0.3@tcp"};
	unsigned long long disp[3];
	struct lnetk_tbf_load_class c[3] = {
		{.nid = "10.1.0.1@tcp", .queue = -1},
		{.nid = "10.1.0.2@tcp", .queue = LNETK_TBF_REG},
		{.nid = "10.1.0.3@tcp", .queue = -1},
	};
	uint64_t elapsed = 0, sum[2] = {0, 0}, total = 0, gen;
	struct lnetk_err err;
	char cmd[128];
	int rc, i;

	/* Depth 16: a wake-up late by up to 15 tokens' time loses nothing. */
	rc = lnetk_tbf_set(lk, "load", -1, NULL, 16, &err);
	for (i = 2; !rc && i >= 0; i--) {
		snprintf(cmd, sizeof(cmd), "reg start c%d nid={%s} rate=%u", i, c[i].nid, rate[i]);
		rc = lnetk_tbf_cmd(lk, "load", cmd, &err);
	}
	tap(!rc, "TBF_LOAD: a policy with a rule per class (%s %s)", errname(rc), err.msg);
	gen = lnetk_last_generation(lk);
	rc = lnetk_tbf_load(lk, "load", 2000, c, 3, &elapsed, &err);
	tap(!rc && elapsed >= 2000000000ull && lnetk_last_generation(lk) == gen,
	    "TBF_LOAD ran for at least 2 s of guest time (%s, %.3f s, generation unchanged)",
	    errname(rc), elapsed / 1e9);
	for (i = 0; i < 3; i++) {
		disp[i] = c[i].dispatched;
		total += c[i].dispatched;
	}
	/* guaranteed whatever the load; the accuracy is printed as a figure */
	tbf_guarantees("TBF_LOAD", name, rate, 3, elapsed, 16, disp, NULL, !rc);
	rc = lnetk_tbf_get(lk, "load", sum_cb, sum, &err);
	tap(!rc && sum[0] == total && sum[1] == 0,
	    "TBF_GET after the load: the rules counted every dispatch (%llu of %llu), none queued",
	    (unsigned long long)sum[0], (unsigned long long)total);
	rc = lnetk_tbf_del(lk, "load", &err);
	tap(!rc, "TBF_DEL of the loaded policy (%s)", errname(rc));
}

/* --- an unprivileged caller -------------------------------------------------------------- */

static int count_cb(const struct lnetk_tbf *t, void *arg)
{
	++*(int *)arg;
	return 0;
}

static void admin_refused(const char *what, int rc, const struct lnetk_err *err)
{
	tap(rc == -EPERM && !err->msg[0],
	    "unprivileged %s is refused with EPERM, before parsing (%s%s%s)", what, errname(rc),
	    err->msg[0] ? ", extack: " : "", err->msg);
}

static int unprivileged(void *arg)
{
	struct lnetk_err err;
	struct lnetk *lk;
	int rc, n = 0;

	if (drop_to_nobody() || lnetk_open(&lk)) {
		tap(false, "tbf unprivileged: become uid %d and open a client", NOBODY);
		return 1;
	}
	rc = lnetk_tbf_dump(lk, count_cb, &n, &err);
	tap(!rc && n == 1, "unprivileged TBF_GET dump is allowed (%s, %d policies)", errname(rc),
	    n);
	n = 0;
	rc = lnetk_tbf_get(lk, "ost_io", count_cb, &n, &err);
	tap(!rc && n == 1, "unprivileged TBF_GET of one policy is allowed (%s)", errname(rc));
	admin_refused("TBF_SET", lnetk_tbf_set(lk, "mdt", -1, NULL, 0, &err), &err);
	admin_refused("TBF_SET of an existing policy",
		      lnetk_tbf_set(lk, "ost_io", -1, NULL, 7, &err), &err);
	admin_refused("TBF_CMD", lnetk_tbf_cmd(lk, "ost_io", "change default rate=5", &err), &err);
	admin_refused("TBF_DEL", lnetk_tbf_del(lk, "ost_io", &err), &err);
	{
		struct lnetk_tbf_load_class c = {.nid = "10.1.0.1@tcp", .queue = -1};

		admin_refused("TBF_LOAD", lnetk_tbf_load(lk, "ost_io", 100, &c, 1, NULL, &err),
			      &err);
	}
	lnetk_close(lk);
	return vm_failures;
}

void cases_tbf(void)
{
	struct tbf_snap before, after;
	struct lnetk *lk;
	int v;

	if (new_netns()) {
		tap(false, "tbf: a network namespace of its own");
		return;
	}
	lk = open_or_fail("tbf");
	if (!lk)
		return;
	happy(lk);
	refusals_all(lk);
	big(lk);
	split(lk);
	load(lk);

	tbf_snap(lk, &before);
	v = in_child(unprivileged, NULL);
	tbf_snap(lk, &after);
	if (v)
		vm_failures++;
	tap(tbf_same(&before, &after), "nothing an unprivileged caller sent changed the policies");
	sb_free(&before.text);
	sb_free(&after.text);
	lnetk_close(lk);
}
