// SPDX-License-Identifier: GPL-2.0
/* dp.c - the data path's commands: PING. */
#include <errno.h>
#include <string.h>

#include "client-int.h"

struct ping_in {
	const char *dst, *src;
	uint32_t timeout_ms;
	uint8_t discover; /* LNETK_PING_A_DISCOVER, 0: a ping */
};

static int put_ping(struct nl_msg *msg, const void *arg)
{
	const struct ping_in *in = arg;
	struct nlattr *nest = nla_nest_start(msg, LNETK_A_PING);

	if (!nest || nla_put_string(msg, LNETK_PING_A_NID, in->dst) < 0 ||
	    (in->src && nla_put_string(msg, LNETK_PING_A_SRC, in->src) < 0) ||
	    nla_put_u32(msg, LNETK_PING_A_TIMEOUT_MS, in->timeout_ms) < 0 ||
	    (in->discover && nla_put_u8(msg, LNETK_PING_A_DISCOVER, in->discover) < 0))
		return -NLE_NOMEM;
	return nla_nest_end(msg, nest);
}

static const struct nla_policy ping_policy[LNETK_PING_A_MAX + 1] = {
	[LNETK_PING_A_NID] = {.type = NLA_STRING}, [LNETK_PING_A_FEATURES] = {.type = NLA_U32},
	[LNETK_PING_A_PID] = {.type = NLA_U32},	   [LNETK_PING_A_ENTRY] = {.type = NLA_NESTED},
	[LNETK_PING_A_STATUS] = {.type = NLA_U32},
};

static int parse_ping(struct req *rq, struct nlattr **tb, struct nlmsghdr *nlh __maybe_unused)
{
	struct nlattr *ptb[LNETK_PING_A_MAX + 1], *a;
	struct lnetk_ping *out = rq->arg;
	int rem, rc;

	if (!tb[LNETK_A_PING] ||
	    nla_parse_nested(ptb, LNETK_PING_A_MAX, tb[LNETK_A_PING], ping_policy) < 0)
		return -EPROTO;
	out->features = get_u32_or(ptb[LNETK_PING_A_FEATURES], 0);
	out->pid = get_u32_or(ptb[LNETK_PING_A_PID], 0);
	nla_for_each_nested(a, tb[LNETK_A_PING], rem) {
		struct nlattr *etb[LNETK_PING_A_MAX + 1];
		struct lnetk_ping_nid *e;

		if (nla_type(a) != LNETK_PING_A_ENTRY)
			continue;
		if (out->n == LNETK_PING_NIDS_MAX)
			return -EPROTO;
		if (nla_parse_nested(etb, LNETK_PING_A_MAX, a, ping_policy) < 0)
			return -EPROTO;
		e = &out->nid[out->n++];
		rc = lk_get_str(e->nid, sizeof(e->nid), etb[LNETK_PING_A_NID]);
		if (rc)
			return rc;
		e->status = get_u32_or(etb[LNETK_PING_A_STATUS], LNETK_NI_STATUS_UNKNOWN);
	}
	return 0;
}

static int ping_run(struct lnetk *lk, const struct ping_in *in, struct lnetk_ping *out,
		    struct lnetk_err *err)
{
	struct req rq = {.err = err, .parse = parse_ping, .arg = out};

	memset(out, 0, sizeof(*out));
	return lk_run(lk, LNETK_CMD_PING, 0, 256, put_ping, in, &rq);
}

int lnetk_ping(struct lnetk *lk, const char *dst, const char *src, uint32_t timeout_ms,
	       struct lnetk_ping *out, struct lnetk_err *err)
{
	struct ping_in in = {dst, src, timeout_ms, 0};

	return ping_run(lk, &in, out, err);
}

int lnetk_discover(struct lnetk *lk, const char *dst, bool force, uint32_t timeout_ms,
		   struct lnetk_ping *out, struct lnetk_err *err)
{
	struct ping_in in = {dst, NULL, timeout_ms, force ? 2 : 1};

	return ping_run(lk, &in, out, err);
}

static const struct nla_policy cnt_policy[LNETK_CNT_A_MAX + 1] = {
	[LNETK_CNT_A_ENTRY] = {.type = NLA_NESTED},   [LNETK_CNT_A_NID] = {.type = NLA_STRING},
	[LNETK_CNT_A_LOCAL] = {.type = NLA_U8},	      [LNETK_CNT_A_ITEM] = {.type = NLA_NESTED},
	[LNETK_CNT_A_NAME] = {.type = NLA_STRING},    [LNETK_CNT_A_VALUE] = {.type = NLA_U64},
	[LNETK_CNT_A_TRUNCATED] = {.type = NLA_FLAG},
};

struct cnt_out {
	lnetk_counter_cb cb;
	void *arg;
	bool truncated;
};

static int parse_counters(struct req *rq, struct nlattr **tb, struct nlmsghdr *nlh __maybe_unused)
{
	struct cnt_out *out = rq->arg;
	struct nlattr *e, *it;
	int rem, irem, rc;

	if (!tb[LNETK_A_COUNTERS])
		return -EPROTO;
	nla_for_each_nested(e, tb[LNETK_A_COUNTERS], rem) {
		struct nlattr *etb[LNETK_CNT_A_MAX + 1];
		char nid[LNETK_NID_MAX] = "";
		bool local;

		if (nla_type(e) == LNETK_CNT_A_TRUNCATED) {
			out->truncated = true;
			continue;
		}
		if (nla_type(e) != LNETK_CNT_A_ENTRY ||
		    nla_parse_nested(etb, LNETK_CNT_A_MAX, e, cnt_policy) < 0)
			return -EPROTO;
		rc = lk_get_str(nid, sizeof(nid), etb[LNETK_CNT_A_NID]);
		if (rc)
			return rc;
		local = etb[LNETK_CNT_A_LOCAL] && nla_get_u8(etb[LNETK_CNT_A_LOCAL]);
		nla_for_each_nested(it, e, irem) {
			struct nlattr *itb[LNETK_CNT_A_MAX + 1];
			char name[64];

			if (nla_type(it) != LNETK_CNT_A_ITEM)
				continue;
			if (nla_parse_nested(itb, LNETK_CNT_A_MAX, it, cnt_policy) < 0 ||
			    !itb[LNETK_CNT_A_VALUE] ||
			    lk_get_str(name, sizeof(name), itb[LNETK_CNT_A_NAME]))
				return -EPROTO;
			rc = out->cb(out->arg, nid[0] ? nid : NULL, local, name,
				     nla_get_u64(itb[LNETK_CNT_A_VALUE]));
			if (rc < 0)
				return rc;
		}
	}
	return 0;
}

int lnetk_counters(struct lnetk *lk, lnetk_counter_cb cb, void *arg, bool *truncated,
		   struct lnetk_err *err)
{
	struct cnt_out out = {cb, arg, false};
	struct req rq = {.err = err, .parse = parse_counters, .arg = &out};
	int rc = lk_run(lk, LNETK_CMD_COUNTERS, 0, 64, NULL, NULL, &rq);

	if (truncated)
		*truncated = out.truncated;
	return rc;
}

int lnetk_counters_reset(struct lnetk *lk, struct lnetk_err *err)
{
	struct req rq = {.err = err};

	return lk_run(lk, LNETK_CMD_COUNTERS_RESET, 0, 0, NULL, NULL, &rq);
}

static int put_on(struct nl_msg *msg, const void *arg)
{
	return nla_put_u8(msg, LNETK_A_ON, *(const bool *)arg) < 0 ? -NLE_NOMEM : 0;
}

int lnetk_test_service(struct lnetk *lk, bool on, struct lnetk_err *err)
{
	struct req rq = {.err = err};

	return lk_run(lk, LNETK_CMD_TEST_SERVICE, 0, 16, put_on, &on, &rq);
}

static int put_test(struct nl_msg *msg, const void *arg)
{
	const struct lnetk_test *t = arg;
	struct nlattr *nest = nla_nest_start(msg, LNETK_A_TEST);

	if (!nest || nla_put_string(msg, LNETK_TEST_A_NID, t->dst) < 0 ||
	    nla_put_u8(msg, LNETK_TEST_A_MODE, t->mode) < 0 ||
	    nla_put_u32(msg, LNETK_TEST_A_SIZE, t->size) < 0 ||
	    nla_put_u32(msg, LNETK_TEST_A_COUNT, t->count) < 0 ||
	    nla_put_u32(msg, LNETK_TEST_A_CONCURRENCY, t->concurrency) < 0 ||
	    (t->no_ack && nla_put_flag(msg, LNETK_TEST_A_NO_ACK) < 0) ||
	    (t->timeout_ms && nla_put_u32(msg, LNETK_TEST_A_TIMEOUT_MS, t->timeout_ms) < 0) ||
	    (t->interval_ms && nla_put_u32(msg, LNETK_TEST_A_INTERVAL_MS, t->interval_ms) < 0))
		return -NLE_NOMEM;
	return nla_nest_end(msg, nest);
}

static const struct nla_policy test_policy[LNETK_TEST_A_MAX + 1] = {
	[LNETK_TEST_A_NID] = {.type = NLA_STRING},     [LNETK_TEST_A_MESSAGES] = {.type = NLA_U32},
	[LNETK_TEST_A_FAILED] = {.type = NLA_U32},     [LNETK_TEST_A_BYTES] = {.type = NLA_U64},
	[LNETK_TEST_A_ELAPSED_NS] = {.type = NLA_U64}, [LNETK_TEST_A_ERROR] = {.type = NLA_U32},
	[LNETK_TEST_A_RAIL] = {.type = NLA_NESTED},    [LNETK_TEST_A_SENT] = {.type = NLA_U64},
	[LNETK_TEST_A_RECEIVED] = {.type = NLA_U64},   [LNETK_TEST_A_SAMPLE] = {.type = NLA_NESTED},
	[LNETK_TEST_A_T_NS] = {.type = NLA_U64},
};

/* A trace row: the time, then each rail's bytes; -EPROTO if it is not one. */
static int parse_sample(struct lnetk_test *out, struct nlattr *smp)
{
	uint64_t *row = out->trace + (size_t)out->nsamples * (LNETK_TEST_RAILS_MAX + 1);
	unsigned int k = 0;
	struct nlattr *a;
	int rem;

	if (out->nsamples == out->max_samples)
		return 0; /* more than room for: the first ones are kept */
	nla_for_each_nested(a, smp, rem) {
		if (nla_len(a) != sizeof(uint64_t))
			return -EPROTO;
		if (nla_type(a) == LNETK_TEST_A_T_NS)
			row[0] = nla_get_u64(a);
		else if (nla_type(a) == LNETK_TEST_A_RAIL_BYTES && k < LNETK_TEST_RAILS_MAX)
			row[1 + k++] = nla_get_u64(a);
	}
	out->nsamples++;
	return 0;
}

static uint64_t get_u64_or(const struct nlattr *a, uint64_t dflt)
{
	return a ? nla_get_u64((struct nlattr *)a) : dflt;
}

static int parse_test(struct req *rq, struct nlattr **tb, struct nlmsghdr *nlh __maybe_unused)
{
	struct nlattr *ttb[LNETK_TEST_A_MAX + 1], *a;
	struct lnetk_test *out = rq->arg;
	int rem, rc;

	if (!tb[LNETK_A_TEST] ||
	    nla_parse_nested(ttb, LNETK_TEST_A_MAX, tb[LNETK_A_TEST], test_policy) < 0)
		return -EPROTO;
	out->messages = get_u32_or(ttb[LNETK_TEST_A_MESSAGES], 0);
	out->failed = get_u32_or(ttb[LNETK_TEST_A_FAILED], 0);
	out->bytes = get_u64_or(ttb[LNETK_TEST_A_BYTES], 0);
	out->elapsed_ns = get_u64_or(ttb[LNETK_TEST_A_ELAPSED_NS], 0);
	out->error = (int32_t)get_u32_or(ttb[LNETK_TEST_A_ERROR], 0);
	out->nrails = 0;
	out->nsamples = 0;
	nla_for_each_nested(a, tb[LNETK_A_TEST], rem) {
		struct nlattr *rtb[LNETK_TEST_A_MAX + 1];
		struct lnetk_test_rail *r;

		if (nla_type(a) == LNETK_TEST_A_SAMPLE && out->trace) {
			rc = parse_sample(out, a);
			if (rc)
				return rc;
			continue;
		}
		if (nla_type(a) != LNETK_TEST_A_RAIL)
			continue;
		if (out->nrails == LNETK_TEST_RAILS_MAX ||
		    nla_parse_nested(rtb, LNETK_TEST_A_MAX, a, test_policy) < 0)
			return -EPROTO;
		r = &out->rail[out->nrails++];
		rc = lk_get_str(r->nid, sizeof(r->nid), rtb[LNETK_TEST_A_NID]);
		if (rc)
			return rc;
		r->sent = get_u64_or(rtb[LNETK_TEST_A_SENT], 0);
		r->received = get_u64_or(rtb[LNETK_TEST_A_RECEIVED], 0);
	}
	return 0;
}

int lnetk_selftest(struct lnetk *lk, struct lnetk_test *t, struct lnetk_err *err)
{
	struct req rq = {.err = err, .parse = parse_test, .arg = t};

	return lk_run(lk, LNETK_CMD_SELFTEST, 0, 256, put_test, t, &rq);
}
