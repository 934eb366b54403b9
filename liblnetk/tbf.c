// SPDX-License-Identifier: GPL-2.0
/*
 * tbf.c - NRS TBF policies: TBF_SET, TBF_CMD, TBF_DEL, the TBF_GET
 * dump (a policy put together from its messages), classes and load.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "client-int.h"

struct tbf_in {
	const char *service, *type, *cmd;
	int queue;
	uint32_t depth;
};

static int put_tbf(struct nl_msg *msg, const void *in)
{
	const struct tbf_in *t = in;
	struct nlattr *nest = nla_nest_start(msg, LNETK_A_TBF);

	if (!nest || nla_put_string(msg, LNETK_TBF_A_SERVICE, t->service) < 0 ||
	    (t->queue >= 0 && nla_put_u8(msg, LNETK_TBF_A_QUEUE, (uint8_t)t->queue) < 0) ||
	    (t->type && nla_put_string(msg, LNETK_TBF_A_TYPE, t->type) < 0) ||
	    (t->depth && nla_put_u32(msg, LNETK_TBF_A_DEPTH, t->depth) < 0) ||
	    (t->cmd && nla_put_string(msg, LNETK_TBF_A_CMD, t->cmd) < 0))
		return -NLE_NOMEM;
	return nla_nest_end(msg, nest);
}

static size_t tbf_size(const struct tbf_in *t)
{
	return 128 + strlen(t->service) + (t->type ? strlen(t->type) : 0) +
	       (t->cmd ? strlen(t->cmd) : 0);
}

int lnetk_tbf_set(struct lnetk *lk, const char *service, int queue, const char *type,
		  uint32_t depth, struct lnetk_err *err)
{
	struct tbf_in in = {.service = service, .type = type, .queue = queue, .depth = depth};
	struct req rq = {.err = err};

	return lk_run(lk, LNETK_CMD_TBF_SET, 0, tbf_size(&in), put_tbf, &in, &rq);
}

int lnetk_tbf_cmd(struct lnetk *lk, const char *service, const char *cmd, struct lnetk_err *err)
{
	struct tbf_in in = {.service = service, .cmd = cmd, .queue = -1};
	struct req rq = {.err = err};

	return lk_run(lk, LNETK_CMD_TBF_CMD, 0, tbf_size(&in), put_tbf, &in, &rq);
}

int lnetk_tbf_del(struct lnetk *lk, const char *service, struct lnetk_err *err)
{
	struct tbf_in in = {.service = service, .queue = -1};
	struct req rq = {.err = err};

	return lk_run(lk, LNETK_CMD_TBF_DEL, 0, tbf_size(&in), put_tbf, &in, &rq);
}

static const struct nla_policy tbf_policy[LNETK_TBF_A_MAX + 1] = {
	[LNETK_TBF_A_SERVICE] = {.type = NLA_STRING},
	[LNETK_TBF_A_QUEUE_INFO] = {.type = NLA_NESTED},
	[LNETK_TBF_A_LOAD_CLASS] = {.type = NLA_NESTED},
	[LNETK_TBF_A_ELAPSED_NS] = {.type = NLA_U64},
	[LNETK_TBF_A_CLASS] = {.type = NLA_NESTED},
};

static const struct nla_policy tbfq_policy[LNETK_TBFQ_A_MAX + 1] = {
	[LNETK_TBFQ_A_QUEUE] = {.type = NLA_U8},    [LNETK_TBFQ_A_TYPE] = {.type = NLA_STRING},
	[LNETK_TBFQ_A_DEPTH] = {.type = NLA_U32},   [LNETK_TBFQ_A_NCLASSES] = {.type = NLA_U32},
	[LNETK_TBFQ_A_NACTIVE] = {.type = NLA_U32}, [LNETK_TBFQ_A_QUEUED] = {.type = NLA_U64},
	[LNETK_TBFQ_A_RULE] = {.type = NLA_NESTED}, [LNETK_TBFQ_A_FIRST] = {.type = NLA_U32},
};

static const struct nla_policy tbfr_policy[LNETK_TBFR_A_MAX + 1] = {
	[LNETK_TBFR_A_NAME] = {.type = NLA_STRING},  [LNETK_TBFR_A_TEXT] = {.type = NLA_STRING},
	[LNETK_TBFR_A_RATE] = {.type = NLA_U32},     [LNETK_TBFR_A_REALTIME] = {.type = NLA_U8},
	[LNETK_TBFR_A_NCLASSES] = {.type = NLA_U32}, [LNETK_TBFR_A_QUEUED] = {.type = NLA_U64},
	[LNETK_TBFR_A_ENQUEUED] = {.type = NLA_U64}, [LNETK_TBFR_A_DISPATCHED] = {.type = NLA_U64},
	[LNETK_TBFR_A_WAIT_NS] = {.type = NLA_U64},  [LNETK_TBFR_A_THROTTLED] = {.type = NLA_U64},
};

static uint64_t get_u64_or(const struct nlattr *a, uint64_t def)
{
	return a ? nla_get_u64(a) : def;
}

static int parse_tbf_rule(struct nlattr *nest, struct lnetk_tbf_rule *r)
{
	struct nlattr *tb[LNETK_TBFR_A_MAX + 1];

	if (nla_parse_nested(tb, LNETK_TBFR_A_MAX, nest, tbfr_policy) < 0 ||
	    !tb[LNETK_TBFR_A_NAME] || !tb[LNETK_TBFR_A_TEXT])
		return -EPROTO;
	memset(r, 0, sizeof(*r));
	r->text = nla_data(tb[LNETK_TBFR_A_TEXT]);
	r->rate = get_u32_or(tb[LNETK_TBFR_A_RATE], 0);
	r->realtime = tb[LNETK_TBFR_A_REALTIME] && nla_get_u8(tb[LNETK_TBFR_A_REALTIME]);
	r->nclasses = get_u32_or(tb[LNETK_TBFR_A_NCLASSES], 0);
	r->queued = get_u64_or(tb[LNETK_TBFR_A_QUEUED], 0);
	r->enqueued = get_u64_or(tb[LNETK_TBFR_A_ENQUEUED], 0);
	r->dispatched = get_u64_or(tb[LNETK_TBFR_A_DISPATCHED], 0);
	r->wait_ns = get_u64_or(tb[LNETK_TBFR_A_WAIT_NS], 0);
	r->throttled = get_u64_or(tb[LNETK_TBFR_A_THROTTLED], 0);
	return lk_get_str(r->name, sizeof(r->name), tb[LNETK_TBFR_A_NAME]);
}

/*
 * A dump's policies are put together from its messages: a queue whose
 * rules do not fit one message goes on in the next with
 * LNETK_TBFQ_A_FIRST > 0, so a policy is handed to the callback once the
 * next policy (or the end of the dump) comes.  Its rule texts are copies.
 */
struct tbf_acc {
	struct lnetk_tbf t;
	bool have;
	lnetk_tbf_cb cb;
	void *arg;
};

static void tbf_acc_clear(struct tbf_acc *a)
{
	size_t q, i;

	for (q = 0; q < a->t.nqueues; q++) {
		for (i = 0; i < a->t.queues[q].nrules; i++)
			free((char *)a->t.queues[q].rules[i].text);
		free(a->t.queues[q].rules);
	}
	memset(&a->t, 0, sizeof(a->t));
	a->have = false;
}

static int tbf_acc_flush(struct tbf_acc *a)
{
	int rc = a->have ? cb_rc(a->cb(&a->t, a->arg)) : 0;

	tbf_acc_clear(a);
	return rc;
}

/* Append the LNETK_TBFQ_A_RULEs of @nest to @q. */
static int tbf_rules_add(struct lnetk_tbf_qinfo *q, struct nlattr *nest)
{
	struct lnetk_tbf_rule *grown;
	struct nlattr *a;
	size_t n = 0;
	int rem, rc;

	nla_for_each_nested(a, nest, rem) {
		if (nla_type(a) == LNETK_TBFQ_A_RULE)
			n++;
	}
	grown = realloc(q->rules, (q->nrules + n + 1) * sizeof(*q->rules));
	if (!grown)
		return -ENOMEM;
	q->rules = grown;
	nla_for_each_nested(a, nest, rem) {
		struct lnetk_tbf_rule *r = &q->rules[q->nrules];

		if (nla_type(a) != LNETK_TBFQ_A_RULE)
			continue;
		rc = parse_tbf_rule(a, r);
		if (rc)
			return rc;
		r->text = strdup(r->text);
		if (!r->text)
			return -ENOMEM;
		q->nrules++;
	}
	return 0;
}

/* One LNETK_TBF_A_QUEUE_INFO: a queue, or the rest of the last one. */
static int parse_tbf_queue(struct nlattr *nest, struct lnetk_tbf *t)
{
	struct nlattr *tb[LNETK_TBFQ_A_MAX + 1];
	struct lnetk_tbf_qinfo *q;
	uint32_t first;
	uint8_t queue;
	int rc;

	if (nla_parse_nested(tb, LNETK_TBFQ_A_MAX, nest, tbfq_policy) < 0 ||
	    !tb[LNETK_TBFQ_A_QUEUE])
		return -EPROTO;
	queue = nla_get_u8(tb[LNETK_TBFQ_A_QUEUE]);
	first = get_u32_or(tb[LNETK_TBFQ_A_FIRST], 0);
	q = t->nqueues ? &t->queues[t->nqueues - 1] : NULL;
	/*
	 * The last queue again: its rules go on.  An older module could end a
	 * message with a queue's header alone and send it again with
	 * LNETK_TBFQ_A_FIRST 0 in the next; a queue never repeats otherwise.
	 */
	if (first || (q && q->queue == queue)) {
		if (!q || q->queue != queue || q->nrules != first)
			return -EPROTO;
		return tbf_rules_add(q, nest);
	}
	if (t->nqueues >= sizeof(t->queues) / sizeof(t->queues[0]))
		return -EPROTO;
	q = &t->queues[t->nqueues++];
	q->queue = queue;
	q->depth = get_u32_or(tb[LNETK_TBFQ_A_DEPTH], 0);
	q->nclasses = get_u32_or(tb[LNETK_TBFQ_A_NCLASSES], 0);
	q->nactive = get_u32_or(tb[LNETK_TBFQ_A_NACTIVE], 0);
	q->queued = get_u64_or(tb[LNETK_TBFQ_A_QUEUED], 0);
	rc = lk_get_str(q->type, sizeof(q->type), tb[LNETK_TBFQ_A_TYPE]);
	return rc ? rc : tbf_rules_add(q, nest);
}

static int parse_tbf(struct req *rq, struct nlattr **top, struct nlmsghdr *nlh __maybe_unused)
{
	struct nlattr *tb[LNETK_TBF_A_MAX + 1], *a;
	char service[LNETK_TBF_SERVICE_MAX];
	struct tbf_acc *acc = rq->arg;
	int rem, rc;

	if (!top[LNETK_A_TBF] ||
	    nla_parse_nested(tb, LNETK_TBF_A_MAX, top[LNETK_A_TBF], tbf_policy) < 0 ||
	    !tb[LNETK_TBF_A_SERVICE])
		return -EPROTO;
	rc = lk_get_str(service, sizeof(service), tb[LNETK_TBF_A_SERVICE]);
	if (rc)
		return rc;
	if (acc->have && strcmp(acc->t.service, service)) {
		rc = tbf_acc_flush(acc);
		if (rc)
			return rc;
	}
	if (!acc->have) {
		memcpy(acc->t.service, service, sizeof(service));
		acc->have = true;
	}
	nla_for_each_nested(a, top[LNETK_A_TBF], rem) {
		if (nla_type(a) != LNETK_TBF_A_QUEUE_INFO)
			continue;
		rc = parse_tbf_queue(a, &acc->t);
		if (rc)
			return rc;
	}
	return 0;
}

/* Both read by dump, so that a policy of any size comes whole. */
static int tbf_read(struct lnetk *lk, const char *service, lnetk_tbf_cb cb, void *arg,
		    struct lnetk_err *err)
{
	struct tbf_in in = {.service = service, .queue = -1};
	struct tbf_acc acc = {.cb = cb, .arg = arg};
	struct req rq = {.err = err, .parse = parse_tbf, .arg = &acc};
	int rc;

	rc = lk_run(lk, LNETK_CMD_TBF_GET, NLM_F_DUMP, service ? tbf_size(&in) : 0,
		    service ? put_tbf : NULL, &in, &rq);
	if (!rc)
		return tbf_acc_flush(&acc);
	tbf_acc_clear(&acc);
	return rc;
}

int lnetk_tbf_get(struct lnetk *lk, const char *service, lnetk_tbf_cb cb, void *arg,
		  struct lnetk_err *err)
{
	return tbf_read(lk, service, cb, arg, err);
}

int lnetk_tbf_dump(struct lnetk *lk, lnetk_tbf_cb cb, void *arg, struct lnetk_err *err)
{
	return tbf_read(lk, NULL, cb, arg, err);
}

static const struct nla_policy tbfc_policy[LNETK_TBFC_A_MAX + 1] = {
	[LNETK_TBFC_A_QUEUE] = {.type = NLA_U8},     [LNETK_TBFC_A_KEY] = {.type = NLA_STRING},
	[LNETK_TBFC_A_RULE] = {.type = NLA_STRING},  [LNETK_TBFC_A_QUEUED] = {.type = NLA_U64},
	[LNETK_TBFC_A_ENQUEUED] = {.type = NLA_U64}, [LNETK_TBFC_A_DISPATCHED] = {.type = NLA_U64},
	[LNETK_TBFC_A_WAIT_NS] = {.type = NLA_U64},  [LNETK_TBFC_A_THROTTLED] = {.type = NLA_U64},
};

/* One message of a class dump: a policy's service and some of its classes. */
static int parse_tbf_classes(struct req *rq, struct nlattr **top,
			     struct nlmsghdr *nlh __maybe_unused)
{
	struct nlattr *tb[LNETK_TBF_A_MAX + 1], *ctb[LNETK_TBFC_A_MAX + 1], *a;
	struct dump *d = rq->arg;
	struct lnetk_tbf_class c;
	char service[LNETK_TBF_SERVICE_MAX];
	int rem, rc;

	if (!top[LNETK_A_TBF] ||
	    nla_parse_nested(tb, LNETK_TBF_A_MAX, top[LNETK_A_TBF], tbf_policy) < 0 ||
	    !tb[LNETK_TBF_A_SERVICE])
		return -EPROTO;
	rc = lk_get_str(service, sizeof(service), tb[LNETK_TBF_A_SERVICE]);
	nla_for_each_nested(a, top[LNETK_A_TBF], rem) {
		if (rc || nla_type(a) != LNETK_TBF_A_CLASS)
			continue;
		if (nla_parse_nested(ctb, LNETK_TBFC_A_MAX, a, tbfc_policy) < 0 ||
		    !ctb[LNETK_TBFC_A_QUEUE] || !ctb[LNETK_TBFC_A_KEY] || !ctb[LNETK_TBFC_A_RULE]) {
			rc = -EPROTO;
			break;
		}
		memset(&c, 0, sizeof(c));
		c.service = service;
		c.queue = nla_get_u8(ctb[LNETK_TBFC_A_QUEUE]);
		c.key = nla_data(ctb[LNETK_TBFC_A_KEY]);
		c.rule = nla_data(ctb[LNETK_TBFC_A_RULE]);
		c.queued = get_u64_or(ctb[LNETK_TBFC_A_QUEUED], 0);
		c.enqueued = get_u64_or(ctb[LNETK_TBFC_A_ENQUEUED], 0);
		c.dispatched = get_u64_or(ctb[LNETK_TBFC_A_DISPATCHED], 0);
		c.wait_ns = get_u64_or(ctb[LNETK_TBFC_A_WAIT_NS], 0);
		c.throttled = get_u64_or(ctb[LNETK_TBFC_A_THROTTLED], 0);
		rc = cb_rc(d->cb.tbf_class(&c, d->arg));
	}
	return rc;
}

int lnetk_tbf_classes(struct lnetk *lk, const char *service, lnetk_tbf_class_cb cb, void *arg,
		      struct lnetk_err *err)
{
	struct tbf_in in = {.service = service, .queue = -1};
	struct dump d = {.cb.tbf_class = cb, .arg = arg};
	struct req rq = {.err = err, .parse = parse_tbf_classes, .arg = &d};

	return lk_run(lk, LNETK_CMD_TBF_CLASS_GET, NLM_F_DUMP, service ? tbf_size(&in) : 0,
		      service ? put_tbf : NULL, &in, &rq);
}

struct load_in {
	const char *service;
	uint32_t ms;
	struct lnetk_tbf_load_class *cls;
	size_t n;
	uint64_t elapsed;
};

static int put_load(struct nl_msg *msg, const void *in)
{
	const struct load_in *l = in;
	struct nlattr *nest = nla_nest_start(msg, LNETK_A_TBF), *cn;
	size_t i;

	if (!nest || nla_put_string(msg, LNETK_TBF_A_SERVICE, l->service) < 0 ||
	    nla_put_u32(msg, LNETK_TBF_A_LOAD_MS, l->ms) < 0)
		return -NLE_NOMEM;
	for (i = 0; i < l->n; i++) {
		cn = nla_nest_start(msg, LNETK_TBF_A_LOAD_CLASS);
		if (!cn || nla_put_string(msg, LNETK_TBFL_A_NID, l->cls[i].nid) < 0 ||
		    (l->cls[i].queue >= 0 &&
		     nla_put_u8(msg, LNETK_TBFL_A_QUEUE, (uint8_t)l->cls[i].queue) < 0) ||
		    nla_nest_end(msg, cn) < 0)
			return -NLE_NOMEM;
	}
	return nla_nest_end(msg, nest);
}

static const struct nla_policy tbfl_policy[LNETK_TBFL_A_MAX + 1] = {
	[LNETK_TBFL_A_NID] = {.type = NLA_STRING},
	[LNETK_TBFL_A_QUEUE] = {.type = NLA_U8},
	[LNETK_TBFL_A_ENQUEUED] = {.type = NLA_U64},
	[LNETK_TBFL_A_DISPATCHED] = {.type = NLA_U64},
};

static int parse_load(struct req *rq, struct nlattr **top, struct nlmsghdr *nlh __maybe_unused)
{
	struct nlattr *tb[LNETK_TBF_A_MAX + 1], *ctb[LNETK_TBFL_A_MAX + 1], *a;
	struct load_in *l = rq->arg;
	size_t i = 0;
	int rem;

	if (!top[LNETK_A_TBF] ||
	    nla_parse_nested(tb, LNETK_TBF_A_MAX, top[LNETK_A_TBF], tbf_policy) < 0 ||
	    !tb[LNETK_TBF_A_ELAPSED_NS])
		return -EPROTO;
	l->elapsed = nla_get_u64(tb[LNETK_TBF_A_ELAPSED_NS]);
	nla_for_each_nested(a, top[LNETK_A_TBF], rem) {
		if (nla_type(a) != LNETK_TBF_A_LOAD_CLASS)
			continue;
		if (i >= l->n || nla_parse_nested(ctb, LNETK_TBFL_A_MAX, a, tbfl_policy) < 0)
			return -EPROTO;
		l->cls[i].enqueued = get_u64_or(ctb[LNETK_TBFL_A_ENQUEUED], 0);
		l->cls[i].dispatched = get_u64_or(ctb[LNETK_TBFL_A_DISPATCHED], 0);
		i++;
	}
	return i == l->n ? 0 : -EPROTO;
}

int lnetk_tbf_load(struct lnetk *lk, const char *service, uint32_t ms,
		   struct lnetk_tbf_load_class *classes, size_t nclasses, uint64_t *elapsed_ns,
		   struct lnetk_err *err)
{
	struct load_in in = {service, ms, classes, nclasses, 0};
	struct req rq = {.err = err, .parse = parse_load, .arg = &in};
	int rc = lk_run(lk, LNETK_CMD_TBF_LOAD, 0, 128 + strlen(service) + nclasses * 96, put_load,
			&in, &rq);

	if (!rc && elapsed_ns)
		*elapsed_ns = in.elapsed;
	return rc;
}
