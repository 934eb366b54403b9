// SPDX-License-Identifier: GPL-2.0
/* health.c - FAULT, FAULT_GET, HEALTH_GET and RECOVERY_GET (uapi/lnetk.h). */
#include <errno.h>
#include <string.h>

#include "client-int.h"

struct fault_in {
	uint8_t op;
	bool delay, all;
	const char *const *keys, *const *values;
	unsigned int n;
	const char *src, *dst;
};

static int put_fault(struct nl_msg *msg, const void *arg)
{
	const struct fault_in *in = arg;
	struct nlattr *nest = nla_nest_start(msg, LNETK_A_FAULT), *o;
	unsigned int i;

	if (!nest || (in->op && nla_put_u8(msg, LNETK_FAULT_A_OP, in->op) < 0) ||
	    nla_put_u8(msg, LNETK_FAULT_A_DELAY, in->delay) < 0 ||
	    (in->src && nla_put_string(msg, LNETK_FAULT_A_SRC, in->src) < 0) ||
	    (in->dst && nla_put_string(msg, LNETK_FAULT_A_DST, in->dst) < 0) ||
	    (in->all && nla_put_flag(msg, LNETK_FAULT_A_ALL) < 0))
		return -NLE_NOMEM;
	for (i = 0; i < in->n; i++) {
		o = nla_nest_start(msg, LNETK_FAULT_A_OPT);
		if (!o || nla_put_string(msg, LNETK_FAULT_A_KEY, in->keys[i]) < 0 ||
		    nla_put_string(msg, LNETK_FAULT_A_VALUE, in->values[i]) < 0)
			return -NLE_NOMEM;
		nla_nest_end(msg, o);
	}
	return nla_nest_end(msg, nest);
}

static const struct nla_policy fault_policy[LNETK_FAULT_A_MAX + 1] = {
	[LNETK_FAULT_A_OPT] = {.type = NLA_NESTED},   [LNETK_FAULT_A_KEY] = {.type = NLA_STRING},
	[LNETK_FAULT_A_VALUE] = {.type = NLA_STRING}, [LNETK_FAULT_A_ID] = {.type = NLA_U32},
	[LNETK_FAULT_A_RULE] = {.type = NLA_NESTED},  [LNETK_FAULT_A_STAT] = {.type = NLA_NESTED},
	[LNETK_FAULT_A_COUNT] = {.type = NLA_U64},
};

static int parse_id(struct req *rq, struct nlattr **tb, struct nlmsghdr *nlh __maybe_unused)
{
	if (!tb[LNETK_A_COUNT])
		return -EPROTO;
	*(uint32_t *)rq->arg = nla_get_u32(tb[LNETK_A_COUNT]);
	return 0;
}

static int fault_run(struct lnetk *lk, const struct fault_in *in, uint32_t *out,
		     struct lnetk_err *err)
{
	struct req rq = {.err = err, .parse = out ? parse_id : NULL, .arg = out};
	size_t size = 128;
	unsigned int i;

	for (i = 0; i < in->n; i++)
		size += 16 + strlen(in->keys[i]) + strlen(in->values[i]);
	return lk_run(lk, LNETK_CMD_FAULT, 0, size, put_fault, in, &rq);
}

int lnetk_fault_add(struct lnetk *lk, bool delay, const char *const *keys,
		    const char *const *values, unsigned int n, uint32_t *id, struct lnetk_err *err)
{
	struct fault_in in = {
		.op = LNETK_FAULT_ADD, .delay = delay, .keys = keys, .values = values, .n = n};

	return fault_run(lk, &in, id, err);
}

int lnetk_fault_del(struct lnetk *lk, bool delay, const char *src, const char *dst, bool all,
		    uint32_t *count, struct lnetk_err *err)
{
	struct fault_in in = {
		.op = LNETK_FAULT_DEL, .delay = delay, .all = all, .src = src, .dst = dst};

	return fault_run(lk, &in, count, err);
}

int lnetk_fault_reset(struct lnetk *lk, bool delay, struct lnetk_err *err)
{
	struct fault_in in = {.op = LNETK_FAULT_RESET, .delay = delay};

	return fault_run(lk, &in, NULL, err);
}

/* A (key, value) nest: the key, and the value's attribute in *@v. */
static int kv(struct nlattr *a, int max, const struct nla_policy *pol, int key, int val,
	      const char **k, struct nlattr **v)
{
	struct nlattr *tb[LNETK_FAULT_A_MAX > LNETK_HEALTH_A_MAX ? LNETK_FAULT_A_MAX + 1
								 : LNETK_HEALTH_A_MAX + 1];

	if (nla_parse_nested(tb, max, a, pol) < 0 || !tb[key] || !tb[val])
		return -EPROTO;
	*k = nla_get_string(tb[key]);
	*v = tb[val];
	return 0;
}

struct list_out {
	void *cb;
	void *arg;
};

static int parse_rules(struct req *rq, struct nlattr **tb, struct nlmsghdr *nlh __maybe_unused)
{
	struct list_out *out = rq->arg;
	lnetk_fault_cb cb = (lnetk_fault_cb)out->cb;
	struct nlattr *r, *a, *v;
	int rem, arem, rc;

	if (!tb[LNETK_A_FAULT])
		return -EPROTO;
	nla_for_each_nested(r, tb[LNETK_A_FAULT], rem) {
		struct nlattr *rtb[LNETK_FAULT_A_MAX + 1];
		struct lnetk_fault_rule f = {0};
		const char *k;

		if (nla_type(r) != LNETK_FAULT_A_RULE)
			continue;
		/* every attribute of the rule as long as its type says (the ID is read raw) */
		if (nla_parse_nested(rtb, LNETK_FAULT_A_MAX, r, fault_policy) < 0)
			return -EPROTO;
		nla_for_each_nested(a, r, arem) {
			switch (nla_type(a)) {
			case LNETK_FAULT_A_ID:
				f.id = nla_get_u32(a);
				break;
			case LNETK_FAULT_A_OPT:
				if (f.nopt == LNETK_FAULT_OPTS_MAX ||
				    kv(a, LNETK_FAULT_A_MAX, fault_policy, LNETK_FAULT_A_KEY,
				       LNETK_FAULT_A_VALUE, &k, &v))
					return -EPROTO;
				f.key[f.nopt] = k;
				f.value[f.nopt++] = nla_get_string(v);
				break;
			case LNETK_FAULT_A_STAT:
				if (f.nstat == LNETK_FAULT_STATS_MAX ||
				    kv(a, LNETK_FAULT_A_MAX, fault_policy, LNETK_FAULT_A_KEY,
				       LNETK_FAULT_A_COUNT, &k, &v))
					return -EPROTO;
				f.stat[f.nstat] = k;
				f.count[f.nstat++] = nla_get_u64(v);
				break;
			}
		}
		rc = cb(out->arg, &f);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int lnetk_fault_list(struct lnetk *lk, bool delay, lnetk_fault_cb cb, void *arg,
		     struct lnetk_err *err)
{
	struct fault_in in = {.delay = delay};
	struct list_out out = {(void *)cb, arg};
	struct req rq = {.err = err, .parse = parse_rules, .arg = &out};

	return lk_run(lk, LNETK_CMD_FAULT_GET, 0, 64, put_fault, &in, &rq);
}

static const struct nla_policy health_policy[LNETK_HEALTH_A_MAX + 1] = {
	[LNETK_HEALTH_A_NID] = {.type = NLA_STRING},
	[LNETK_HEALTH_A_LOCAL] = {.type = NLA_U8},
	[LNETK_HEALTH_A_VALUE] = {.type = NLA_U32},
	[LNETK_HEALTH_A_STAT] = {.type = NLA_NESTED},
	[LNETK_HEALTH_A_KEY] = {.type = NLA_STRING},
	[LNETK_HEALTH_A_COUNT] = {.type = NLA_U64},
	[LNETK_HEALTH_A_ENTRY] = {.type = NLA_NESTED},
	[LNETK_HEALTH_A_PINGS] = {.type = NLA_U32},
	[LNETK_HEALTH_A_NEXT_MS] = {.type = NLA_U64},
	[LNETK_HEALTH_A_RTR_CREDITS] = {.type = NLA_U32},
	[LNETK_HEALTH_A_RTR_MIN] = {.type = NLA_U32},
};

struct health_in {
	const char *nid;
	int peer; /* -1: not sent */
};

static int put_health(struct nl_msg *msg, const void *arg)
{
	const struct health_in *in = arg;
	struct nlattr *nest = nla_nest_start(msg, LNETK_A_HEALTH);

	if (!nest || (in->nid && nla_put_string(msg, LNETK_HEALTH_A_NID, in->nid) < 0) ||
	    (in->peer >= 0 && nla_put_u8(msg, LNETK_HEALTH_A_PEER, (uint8_t)in->peer) < 0))
		return -NLE_NOMEM;
	return nla_nest_end(msg, nest);
}

struct health_out {
	bool *local;
	uint32_t *health;
	lnetk_kv_cb cb;
	void *arg;
	int32_t *rtr, *rtr_min; /* NULL: not asked */
};

static int parse_health(struct req *rq, struct nlattr **tb, struct nlmsghdr *nlh __maybe_unused)
{
	struct nlattr *htb[LNETK_HEALTH_A_MAX + 1], *a, *v;
	struct health_out *out = rq->arg;
	const char *k;
	int rem, rc;

	if (!tb[LNETK_A_HEALTH] ||
	    nla_parse_nested(htb, LNETK_HEALTH_A_MAX, tb[LNETK_A_HEALTH], health_policy) < 0 ||
	    !htb[LNETK_HEALTH_A_LOCAL] || !htb[LNETK_HEALTH_A_VALUE])
		return -EPROTO;
	*out->local = nla_get_u8(htb[LNETK_HEALTH_A_LOCAL]);
	*out->health = nla_get_u32(htb[LNETK_HEALTH_A_VALUE]);
	if (out->rtr) {
		if (!htb[LNETK_HEALTH_A_RTR_CREDITS] || !htb[LNETK_HEALTH_A_RTR_MIN])
			return -ENOENT; /* a local NI's: it has none */
		*out->rtr = (int32_t)nla_get_u32(htb[LNETK_HEALTH_A_RTR_CREDITS]);
		*out->rtr_min = (int32_t)nla_get_u32(htb[LNETK_HEALTH_A_RTR_MIN]);
	}
	nla_for_each_nested(a, tb[LNETK_A_HEALTH], rem) {
		if (nla_type(a) != LNETK_HEALTH_A_STAT)
			continue;
		if (kv(a, LNETK_HEALTH_A_MAX, health_policy, LNETK_HEALTH_A_KEY,
		       LNETK_HEALTH_A_COUNT, &k, &v))
			return -EPROTO;
		rc = out->cb ? out->cb(out->arg, k, nla_get_u64(v)) : 0;
		if (rc < 0)
			return rc;
	}
	return 0;
}

int lnetk_health_get(struct lnetk *lk, const char *nid, bool *local, uint32_t *health,
		     lnetk_kv_cb cb, void *arg, struct lnetk_err *err)
{
	struct health_in in = {nid, -1};
	struct health_out out = {local, health, cb, arg, NULL, NULL};
	struct req rq = {.err = err, .parse = parse_health, .arg = &out};

	return lk_run(lk, LNETK_CMD_HEALTH_GET, 0, 128, put_health, &in, &rq);
}

int lnetk_rtr_credits(struct lnetk *lk, const char *nid, int32_t *avail, int32_t *min,
		      struct lnetk_err *err)
{
	struct health_in in = {nid, -1};
	uint32_t health;
	bool local;
	struct health_out out = {&local, &health, NULL, NULL, avail, min};
	struct req rq = {.err = err, .parse = parse_health, .arg = &out};

	return lk_run(lk, LNETK_CMD_HEALTH_GET, 0, 128, put_health, &in, &rq);
}

static int parse_queue(struct req *rq, struct nlattr **tb, struct nlmsghdr *nlh __maybe_unused)
{
	struct list_out *out = rq->arg;
	lnetk_recovery_cb cb = (lnetk_recovery_cb)out->cb;
	struct nlattr *a;
	int rem, rc;

	if (!tb[LNETK_A_HEALTH])
		return -EPROTO;
	nla_for_each_nested(a, tb[LNETK_A_HEALTH], rem) {
		struct nlattr *etb[LNETK_HEALTH_A_MAX + 1];
		char nid[LNETK_NID_MAX];

		if (nla_type(a) != LNETK_HEALTH_A_ENTRY)
			continue;
		if (nla_parse_nested(etb, LNETK_HEALTH_A_MAX, a, health_policy) < 0 ||
		    !etb[LNETK_HEALTH_A_PINGS] || !etb[LNETK_HEALTH_A_NEXT_MS] ||
		    !etb[LNETK_HEALTH_A_NID] ||
		    lk_get_str(nid, sizeof(nid), etb[LNETK_HEALTH_A_NID]))
			return -EPROTO;
		rc = cb(out->arg, nid, nla_get_u32(etb[LNETK_HEALTH_A_PINGS]),
			nla_get_u64(etb[LNETK_HEALTH_A_NEXT_MS]));
		if (rc < 0)
			return rc;
	}
	return 0;
}

int lnetk_recovery_get(struct lnetk *lk, bool peer, lnetk_recovery_cb cb, void *arg,
		       struct lnetk_err *err)
{
	struct health_in in = {NULL, peer};
	struct list_out out = {(void *)cb, arg};
	struct req rq = {.err = err, .parse = parse_queue, .arg = &out};

	return lk_run(lk, LNETK_CMD_RECOVERY_GET, 0, 64, put_health, &in, &rq);
}
