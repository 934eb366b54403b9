// SPDX-License-Identifier: GPL-2.0
/*
 * nl-dp.c - the data path's commands: PING and COUNTERS (uapi/lnetk.h says
 * what each takes and answers).
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <net/genetlink.h>

#include "dp.h"
#include "instance.h"
#include "nl-int.h"
#include "uapi/lnetk.h"

static u32 status_of(u32 wire)
{
	switch (wire) {
	case LNW_NI_STATUS_UP:
		return LNETK_NI_STATUS_UP;
	case LNW_NI_STATUS_DOWN:
		return LNETK_NI_STATUS_DOWN;
	default:
		return LNETK_NI_STATUS_UNKNOWN;
	}
}

static int put_result(struct sk_buff *reply, const struct lnetk_ping_result *r)
{
	struct nlattr *out = nla_nest_start(reply, LNETK_A_PING), *ent;
	u32 i;

	if (!out || nla_put_u32(reply, LNETK_PING_A_FEATURES, r->p.features) ||
	    nla_put_u32(reply, LNETK_PING_A_PID, r->p.pid))
		return -EMSGSIZE;
	for (i = 0; i < r->n && i < LNW_PING_NIS_MAX; i++) {
		if (r->e[i].nid.lnd == LNE_LND_LO)
			continue;
		ent = nla_nest_start(reply, LNETK_PING_A_ENTRY);
		if (!ent || lnk_nl_put_nid(reply, LNETK_PING_A_NID, &r->e[i].nid) ||
		    nla_put_u32(reply, LNETK_PING_A_STATUS, status_of(r->e[i].status)))
			return -EMSGSIZE;
		nla_nest_end(reply, ent);
	}
	nla_nest_end(reply, out);
	return 0;
}

/* What put_result() needs for @r: every NID of a peer that has many. */
static size_t result_size(const struct lnetk_ping_result *r)
{
	u32 n = r->n < LNW_PING_NIS_MAX ? r->n : LNW_PING_NIS_MAX;

	return nla_total_size(0) + 2 * nla_total_size(sizeof(u32)) +
	       n * (nla_total_size(0) + nla_total_size(LNE_NID_STR_MAX) +
		    nla_total_size(sizeof(u32)));
}

int lnk_nl_ping(struct sk_buff *skb, struct genl_info *info)
{
	struct lnetk_net *ln = lnetk_net(genl_info_net(info));
	struct nlattr *nest = OBJECT(info, LNETK_A_PING);
	struct nlattr *tb[LNETK_PING_A_MAX + 1];
	struct lnetk_ping_result *r;
	struct lne_nid dst, src;
	struct lne_err err = {.msg = ""};
	struct sk_buff *reply;
	u32 timeout = 1000;
	void *hdr;
	int rc;

	if (!nest)
		return -EINVAL;
	rc = lnk_nl_parse_nest(tb, LNETK_PING_A_MAX, nest, lnk_nl_ping_policy, info->extack);
	if (rc)
		return rc;
	for (rc = LNETK_PING_A_FEATURES; rc <= LNETK_PING_A_STATUS; rc++)
		if (tb[rc])
			return lnk_nl_refuse(info->extack, tb[rc], -EINVAL,
					     "reply attributes are not input");
	if (!lnk_nl_need(tb, LNETK_PING_A_NID, "LNETK_PING_A_NID", nest, info->extack))
		return -EINVAL;
	rc = lnk_nl_get_nid(tb[LNETK_PING_A_NID], &dst, info->extack);
	if (!rc && tb[LNETK_PING_A_SRC])
		rc = lnk_nl_get_nid(tb[LNETK_PING_A_SRC], &src, info->extack);
	if (rc)
		return rc;
	if (tb[LNETK_PING_A_TIMEOUT_MS])
		timeout = nla_get_u32(tb[LNETK_PING_A_TIMEOUT_MS]);
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return lnk_nl_refuse(info->extack, NULL, -ENOMEM, "out of memory");
	rc = lnetk_dp_ping(ln, &dst, tb[LNETK_PING_A_SRC] ? &src : NULL, timeout,
			   tb[LNETK_PING_A_DISCOVER] ? nla_get_u8(tb[LNETK_PING_A_DISCOVER]) : 0, r,
			   &err);
	if (!rc)
		rc = r->status;
	if (rc) {
		kfree(r);
		if (err.msg[0])
			return lnk_nl_engine_refusal(info->extack, tb[LNETK_PING_A_NID], rc, &err);
		return lnk_nl_refuse(info->extack, tb[LNETK_PING_A_NID], rc,
				     rc == -ETIMEDOUT ? "no answer in time" : "the ping failed");
	}
	reply = lnk_nl_msg_new(info->snd_portid, info->snd_seq, info->genlhdr->cmd,
			       max_t(size_t, result_size(r), NLMSG_GOODSIZE), &hdr);
	if (!reply) {
		kfree(r);
		return lnk_nl_refuse(info->extack, NULL, -ENOMEM, "out of memory");
	}
	rc = put_result(reply, r);
	kfree(r);
	if (rc) {
		nlmsg_free(reply);
		return lnk_nl_refuse(info->extack, NULL, -EMSGSIZE, "the answer did not fit");
	}
	genlmsg_end(reply, hdr);
	return genlmsg_reply(reply, info);
}

/* Room for the node's counters and a few hundred NIDs' (the rest: TRUNCATED). */
#define COUNTERS_REPLY (256 * 1024)

int lnk_nl_counters(struct sk_buff *skb, struct genl_info *info)
{
	struct lnetk_net *ln = lnetk_net(genl_info_net(info));
	struct sk_buff *reply;
	void *hdr;
	int rc;

	rc = lnk_nl_info_only(info, 0);
	if (rc)
		return rc;
	reply = lnk_nl_msg_new(info->snd_portid, info->snd_seq, info->genlhdr->cmd, COUNTERS_REPLY,
			       &hdr);
	if (!reply)
		return lnk_nl_refuse(info->extack, NULL, -ENOMEM, "out of memory");
	rc = lnetk_dp_counters(ln, reply);
	if (rc) {
		nlmsg_free(reply);
		return lnk_nl_refuse(info->extack, NULL, rc, "the counters did not fit the reply");
	}
	genlmsg_end(reply, hdr);
	return genlmsg_reply(reply, info);
}

int lnk_nl_counters_reset(struct sk_buff *skb, struct genl_info *info)
{
	int rc = lnk_nl_info_only(info, 0);

	if (rc)
		return rc;
	lnetk_dp_counters_reset(lnetk_net(genl_info_net(info)));
	return 0;
}

int lnk_nl_test_service(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *on = info->attrs[LNETK_A_ON];

	if (!on)
		return lnk_nl_refuse(info->extack, NULL, -EINVAL, "LNETK_A_ON is missing");
	return lnetk_api_test_service(genl_info_net(info), nla_get_u8(on));
}

/*
 * The reply's room.  Everything goes in LNETK_A_TEST, a nest whose length
 * is 16 bits, so a trace of many rails is sent in as many rows as fit
 * beside the rest: spread over the run, the first and the last kept.
 */
static size_t test_room(u32 nrails)
{
	return nla_total_size(0) + 3 * nla_total_size(sizeof(u32)) +
	       2 * nla_total_size_64bit(sizeof(u64)) +
	       nrails * (nla_total_size(0) + nla_total_size(LNETK_NID_MAX) +
			 2 * nla_total_size_64bit(sizeof(u64)));
}

static size_t row_room(u32 nrails)
{
	return nla_total_size(0) + (nrails + 1) * nla_total_size_64bit(sizeof(u64));
}

/* How many trace rows the reply carries (at least 2 fit even with LNE_TEST_RAILS_MAX). */
static u32 test_rows(const struct lne_test *t)
{
	u32 fit = (U16_MAX - test_room(t->nrails)) / row_room(t->nrails);

	return min(t->nsamples, fit);
}

static int put_test(struct sk_buff *reply, const struct lne_test *t, u64 elapsed_ns)
{
	struct nlattr *out = nla_nest_start(reply, LNETK_A_TEST), *rail;
	u32 i, rows = test_rows(t);

	if (!out || nla_put_u32(reply, LNETK_TEST_A_MESSAGES, t->finished) ||
	    nla_put_u32(reply, LNETK_TEST_A_FAILED, t->failed) ||
	    nla_put_u64_64bit(reply, LNETK_TEST_A_BYTES, lne_test_bytes(t), LNETK_TEST_A_PAD) ||
	    nla_put_u64_64bit(reply, LNETK_TEST_A_ELAPSED_NS, elapsed_ns, LNETK_TEST_A_PAD) ||
	    nla_put_s32(reply, LNETK_TEST_A_ERROR, t->first_err))
		return -EMSGSIZE;
	for (i = 0; i < rows; i++) {
		u32 pick = rows < 2 ? i : i * (t->nsamples - 1) / (rows - 1);
		const u64 *row = t->trace + (size_t)pick * (t->nrails + 1);
		struct nlattr *smp = nla_nest_start(reply, LNETK_TEST_A_SAMPLE);
		u32 k;

		if (!smp || nla_put_u64_64bit(reply, LNETK_TEST_A_T_NS, row[0], LNETK_TEST_A_PAD))
			return -EMSGSIZE;
		for (k = 0; k < t->nrails; k++)
			if (nla_put_u64_64bit(reply, LNETK_TEST_A_RAIL_BYTES, row[k + 1],
					      LNETK_TEST_A_PAD))
				return -EMSGSIZE;
		nla_nest_end(reply, smp);
	}
	for (i = 0; i < t->nrails; i++) {
		rail = nla_nest_start(reply, LNETK_TEST_A_RAIL);
		if (!rail || lnk_nl_put_nid(reply, LNETK_TEST_A_NID, &t->rails[i].nid) ||
		    nla_put_u64_64bit(reply, LNETK_TEST_A_SENT, t->rails[i].sent,
				      LNETK_TEST_A_PAD) ||
		    nla_put_u64_64bit(reply, LNETK_TEST_A_RECEIVED, t->rails[i].received,
				      LNETK_TEST_A_PAD))
			return -EMSGSIZE;
		nla_nest_end(reply, rail);
	}
	nla_nest_end(reply, out);
	return 0;
}

int lnk_nl_selftest(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *nest = OBJECT(info, LNETK_A_TEST);
	struct nlattr *tb[LNETK_TEST_A_MAX + 1];
	struct lne_err err = {.msg = ""};
	struct sk_buff *reply;
	struct lne_test *t;
	u32 interval = 0;
	u64 elapsed = 0;
	size_t size;
	void *hdr;
	int rc;

	if (!nest)
		return -EINVAL;
	rc = lnk_nl_parse_nest(tb, LNETK_TEST_A_MAX, nest, lnk_nl_test_policy, info->extack);
	if (rc)
		return rc;
	for (rc = LNETK_TEST_A_MESSAGES; rc <= LNETK_TEST_A_RAIL_BYTES; rc++)
		if (tb[rc] && rc != LNETK_TEST_A_INTERVAL_MS)
			return lnk_nl_refuse(info->extack, tb[rc], -EINVAL,
					     "reply attributes are not input");
	if (!lnk_nl_need(tb, LNETK_TEST_A_NID, "LNETK_TEST_A_NID", nest, info->extack))
		return -EINVAL;
	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return lnk_nl_refuse(info->extack, NULL, -ENOMEM, "out of memory");
	rc = lnk_nl_get_nid(tb[LNETK_TEST_A_NID], &t->dst, info->extack);
	t->mode = tb[LNETK_TEST_A_MODE] ? nla_get_u8(tb[LNETK_TEST_A_MODE]) : LNE_TEST_WRITE;
	t->size = tb[LNETK_TEST_A_SIZE] ? nla_get_u32(tb[LNETK_TEST_A_SIZE]) : LNW_MTU;
	t->count = tb[LNETK_TEST_A_COUNT] ? nla_get_u32(tb[LNETK_TEST_A_COUNT]) : 1000;
	t->conc = tb[LNETK_TEST_A_CONCURRENCY] ? nla_get_u32(tb[LNETK_TEST_A_CONCURRENCY]) : 8;
	t->ack = !tb[LNETK_TEST_A_NO_ACK];
	t->timeout_ms = tb[LNETK_TEST_A_TIMEOUT_MS] ? nla_get_u32(tb[LNETK_TEST_A_TIMEOUT_MS]) : 0;
	if (tb[LNETK_TEST_A_INTERVAL_MS]) {
		interval = nla_get_u32(tb[LNETK_TEST_A_INTERVAL_MS]);
		t->max_samples = LNETK_TEST_SAMPLES_MAX;
		t->trace = kvcalloc((size_t)LNETK_TEST_SAMPLES_MAX * (LNE_TEST_RAILS_MAX + 1),
				    sizeof(u64), GFP_KERNEL);
		if (!t->trace)
			rc = lnk_nl_refuse(info->extack, NULL, -ENOMEM, "out of memory");
	}
	if (!rc && lne_test_check(t, &err))
		rc = lnk_nl_engine_refusal(info->extack, nest, -EINVAL, &err);
	if (!rc)
		rc = lnetk_dp_selftest(lnetk_net(genl_info_net(info)), t, interval, &elapsed);
	if (!rc && t->failed == t->finished)
		rc = lnk_nl_refuse(info->extack, tb[LNETK_TEST_A_NID],
				   t->first_err ?: -EHOSTUNREACH, "every message failed");
	if (rc) {
		kvfree(t->trace);
		kfree(t);
		return rc;
	}
	size = test_room(t->nrails) + test_rows(t) * row_room(t->nrails);
	reply = lnk_nl_msg_new(info->snd_portid, info->snd_seq, info->genlhdr->cmd, size, &hdr);
	rc = reply ? put_test(reply, t, elapsed) : -ENOMEM;
	kvfree(t->trace);
	kfree(t);
	if (rc) {
		if (reply)
			nlmsg_free(reply);
		return lnk_nl_refuse(info->extack, NULL, rc, "the answer did not fit");
	}
	genlmsg_end(reply, hdr);
	return genlmsg_reply(reply, info);
}
