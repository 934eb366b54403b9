// SPDX-License-Identifier: GPL-2.0
/*
 * nl-tbf.c - the genl commands that configure and report NRS TBF policies
 * (LNETK_CMD_TBF_SET, TBF_CMD, TBF_DEL, TBF_GET and its dump,
 * TBF_CLASS_GET; see uapi/lnetk.h).  The policies themselves, and the API
 * through which request sources use them, are nrs.c's.
 *
 * Configuration takes both locks of a policy (instance.h): the instance
 * mutex, for the list and the `open` flag, then the policy's qlock around
 * every engine call, so that a request source, which takes only qlock,
 * never waits for an unrelated change.  The engine clock is read under
 * qlock, so the times a policy sees never go backwards.
 */
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <net/genetlink.h>
#include <net/netlink.h>
#include <net/sock.h>

#include "engine/tbf.h"
#include "instance.h"
#include "nl-int.h"
#include "uapi/lnetk.h"

/*
 * A policy holds the rule text of up to 2 * LNE_TBF_RULES_MAX rules: GET
 * replies are as big as a dump message can be, and a policy that does not
 * fit is refused rather than cut.
 */
#define TBF_MSG_SIZE (32 * 1024 - 512)
/* What a nest may hold: its length is a u16, however big the skb. */
#define NEST_MAX     U16_MAX

/* Whether nest @nest, open in @skb, may take another class or rule. */
static bool nest_room(const struct sk_buff *skb, const struct nlattr *nest)
{
	return skb_tail_pointer(skb) - (const unsigned char *)nest < NEST_MAX - 2 * LNE_TBF_CMD_MAX;
}

void lnk_nl_tbf_contract_checks(void)
{
	BUILD_BUG_ON(LNETK_TBF_SERVICE_MAX != LNE_TBF_SERVICE_MAX + 1);
	BUILD_BUG_ON(LNETK_TBF_CMD_MAX != LNE_TBF_CMD_MAX + 1);
	BUILD_BUG_ON(LNETK_TBF_DEPTH_MAX != LNE_TBF_DEPTH_MAX);
	BUILD_BUG_ON((int)LNETK_TBF_REG != (int)LNE_TBF_REG);
	BUILD_BUG_ON((int)LNETK_TBF_HP != (int)LNE_TBF_HP);
}

/* --- configuration commands ---------------------------------------------------- */

/* The LNETK_A_TBF nest of a command (nl-int.h). */
struct nlattr *lnk_nl_tbf_nest(struct genl_info *info, struct nlattr **tb, u32 allowed)
{
	struct nlattr *nest = OBJECT(info, LNETK_A_TBF);
	int t;

	if (!nest || lnk_nl_parse_nest(tb, LNETK_TBF_A_MAX, nest, lnk_nl_tbf_policy, info->extack))
		return NULL;
	for (t = 1; t <= LNETK_TBF_A_MAX; t++)
		if (tb[t] && !(allowed & BIT(t))) {
			lnk_nl_refuse(info->extack, tb[t], -EINVAL,
				      "this command does not take this LNETK_TBF_A_* attribute");
			return NULL;
		}
	if (!lnk_nl_need(tb, LNETK_TBF_A_SERVICE, "LNETK_TBF_A_SERVICE", nest, info->extack))
		return NULL;
	return nest;
}

/* The policy LNETK_TBF_A_SERVICE names, or a refusal. */
static struct lnetk_tbf *tbf_lookup(struct lnetk_net *ln, struct nlattr **tb,
				    struct netlink_ext_ack *extack)
{
	struct lnetk_tbf *t = lnetk_tbf_find(ln, nla_data(tb[LNETK_TBF_A_SERVICE]));

	if (!t)
		lnk_nl_refuse(extack, tb[LNETK_TBF_A_SERVICE], -ENOENT,
			      "this service has no TBF policy (LNETK_TBF_A_SERVICE)");
	return t;
}

/* Put the types of queues @q0..@q1 back to @old after a refusal. */
static void tbf_types_undo(struct lne_tbf *tbf, const struct lne_tbf_queue_info *old, int q0,
			   int q1)
{
	char type[LNETK_TBF_TYPE_MAX];
	int q;

	for (q = q0; q <= q1; q++) {
		lne_tbf_type_format(old[q].fields, type, sizeof(type));
		lne_tbf_set_type(tbf, q, type, NULL);
	}
}

/* Type and depth of queues @q0..@q1, all or nothing.  Under qlock (or unpublished). */
static int tbf_settings(struct lne_tbf *tbf, struct nlattr **tb, int q0, int q1,
			struct lne_err *err)
{
	struct lne_tbf_queue_info old[LNE_TBF_NQUEUES];
	u64 now = ktime_get_ns();
	int q, rc;

	for (q = q0; q <= q1; q++)
		lne_tbf_queue_info(tbf, q, &old[q]);
	/* The type may be refused on a queue: put back those already changed. */
	for (q = q0; tb[LNETK_TBF_A_TYPE] && q <= q1; q++) {
		rc = lne_tbf_set_type(tbf, q, nla_data(tb[LNETK_TBF_A_TYPE]), err);
		if (rc) {
			tbf_types_undo(tbf, old, q0, q - 1);
			return rc;
		}
	}
	/* The policy checked the depth: the engine cannot refuse it. */
	for (q = q0; tb[LNETK_TBF_A_DEPTH] && q <= q1; q++)
		lne_tbf_set_depth(tbf, q, nla_get_u32(tb[LNETK_TBF_A_DEPTH]), now, NULL);
	return 0;
}

static int do_tbf_set(struct lnetk_net *ln, struct genl_info *info, struct sk_buff *reply)
{
	struct nlattr *tb[LNETK_TBF_A_MAX + 1], *nest;
	int q0 = LNE_TBF_REG, q1 = LNE_TBF_HP, rc = 0;
	struct lnetk_tbf *t, *pos;
	const char *service;
	struct lne_err err;
	u8 fields;

	nest = lnk_nl_tbf_nest(info, tb,
			       BIT(LNETK_TBF_A_SERVICE) | BIT(LNETK_TBF_A_QUEUE) |
				       BIT(LNETK_TBF_A_TYPE) | BIT(LNETK_TBF_A_DEPTH));
	if (!nest)
		return -EINVAL;
	service = nla_data(tb[LNETK_TBF_A_SERVICE]);
	if (tb[LNETK_TBF_A_QUEUE])
		q0 = q1 = nla_get_u8(tb[LNETK_TBF_A_QUEUE]);
	if (tb[LNETK_TBF_A_TYPE]) {
		rc = lne_tbf_type_parse(nla_data(tb[LNETK_TBF_A_TYPE]), &fields, &err);
		if (rc)
			return lnk_nl_engine_refusal(info->extack, tb[LNETK_TBF_A_TYPE], rc, &err);
	}
	t = lnetk_tbf_find(ln, service);
	if (t) {
		if (!tb[LNETK_TBF_A_TYPE] && !tb[LNETK_TBF_A_DEPTH])
			return lnk_nl_refuse(
				info->extack, tb[LNETK_TBF_A_SERVICE], -EEXIST,
				"this service has a TBF policy already; give LNETK_TBF_A_TYPE or LNETK_TBF_A_DEPTH to change it");
		mutex_lock(&t->qlock);
		rc = tbf_settings(t->tbf, tb, q0, q1, &err);
		mutex_unlock(&t->qlock);
		goto out;
	}

	if (ln->ntbf >= LNETK_TBF_POLICIES_MAX)
		return lnk_nl_refuse(
			info->extack, tb[LNETK_TBF_A_SERVICE], -E2BIG,
			"the instance has LNETK_TBF_POLICIES_MAX TBF policies already");
	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return lnk_nl_refuse(info->extack, NULL, -ENOMEM, "out of memory");
	rc = lne_tbf_new(service, &t->tbf, &err);
	if (rc) {
		kfree(t);
		return lnk_nl_engine_refusal(info->extack, tb[LNETK_TBF_A_SERVICE], rc, &err);
	}
	rc = tbf_settings(t->tbf, tb, q0, q1, &err);
	if (rc) {
		lne_tbf_free(t->tbf);
		kfree(t);
		goto out;
	}
	mutex_init(&t->qlock);
	list_for_each_entry(pos, &ln->tbf, link)
		if (strcmp(lne_tbf_service(pos->tbf), service) > 0)
			break;
	list_add_tail(&t->link, &pos->link);
	ln->ntbf++;
out:
	return rc ? lnk_nl_engine_refusal(info->extack, tb[LNETK_TBF_A_TYPE], rc, &err) : 0;
}

int lnk_nl_tbf_set(struct sk_buff *skb, struct genl_info *info)
{
	return lnk_nl_change(info, do_tbf_set, 0);
}

static int do_tbf_cmd(struct lnetk_net *ln, struct genl_info *info, struct sk_buff *reply)
{
	struct nlattr *tb[LNETK_TBF_A_MAX + 1], *nest;
	struct lnetk_tbf *t;
	struct lne_err err;
	int rc;

	nest = lnk_nl_tbf_nest(info, tb, BIT(LNETK_TBF_A_SERVICE) | BIT(LNETK_TBF_A_CMD));
	if (!nest || !lnk_nl_need(tb, LNETK_TBF_A_CMD, "LNETK_TBF_A_CMD", nest, info->extack))
		return -EINVAL;
	t = tbf_lookup(ln, tb, info->extack);
	if (!t)
		return -ENOENT;
	err.msg[0] = '\0';
	mutex_lock(&t->qlock);
	rc = lne_tbf_command(t->tbf, nla_data(tb[LNETK_TBF_A_CMD]), ktime_get_ns(), &err);
	mutex_unlock(&t->qlock);
	return rc ? lnk_nl_engine_refusal(info->extack, tb[LNETK_TBF_A_CMD], rc, &err) : 0;
}

int lnk_nl_tbf_cmd(struct sk_buff *skb, struct genl_info *info)
{
	return lnk_nl_change(info, do_tbf_cmd, 0);
}

static int do_tbf_del(struct lnetk_net *ln, struct genl_info *info, struct sk_buff *reply)
{
	struct nlattr *tb[LNETK_TBF_A_MAX + 1];
	struct lnetk_tbf *t;

	if (!lnk_nl_tbf_nest(info, tb, BIT(LNETK_TBF_A_SERVICE)))
		return -EINVAL;
	t = tbf_lookup(ln, tb, info->extack);
	if (!t)
		return -ENOENT;
	if (t->open)
		return lnk_nl_refuse(
			info->extack, tb[LNETK_TBF_A_SERVICE], -EBUSY,
			"a request source or a TBF_LOAD holds this policy; delete it when it lets go");
	lnetk_tbf_free(t);
	ln->ntbf--;
	return 0;
}

int lnk_nl_tbf_del(struct sk_buff *skb, struct genl_info *info)
{
	return lnk_nl_change(info, do_tbf_del, 0);
}

/* --- reports ------------------------------------------------------------------- */

/*
 * The five statistics of a rule or a class: attributes @queued, then
 * ENQUEUED, DISPATCHED, WAIT_NS and THROTTLED, which follow it in both
 * LNETK_TBFR_A_* and LNETK_TBFC_A_*.
 */
static int nl_put_stats(struct sk_buff *skb, const struct lne_tbf_stats *st, int queued, int pad)
{
	BUILD_BUG_ON(LNETK_TBFR_A_THROTTLED - LNETK_TBFR_A_QUEUED != 4 ||
		     LNETK_TBFR_A_ENQUEUED != LNETK_TBFR_A_QUEUED + 1 ||
		     LNETK_TBFR_A_DISPATCHED != LNETK_TBFR_A_QUEUED + 2 ||
		     LNETK_TBFR_A_WAIT_NS != LNETK_TBFR_A_QUEUED + 3);
	BUILD_BUG_ON(LNETK_TBFC_A_THROTTLED - LNETK_TBFC_A_QUEUED != 4 ||
		     LNETK_TBFC_A_ENQUEUED != LNETK_TBFC_A_QUEUED + 1 ||
		     LNETK_TBFC_A_DISPATCHED != LNETK_TBFC_A_QUEUED + 2 ||
		     LNETK_TBFC_A_WAIT_NS != LNETK_TBFC_A_QUEUED + 3);
	return nla_put_u64_64bit(skb, queued, st->queued, pad) ||
	       nla_put_u64_64bit(skb, queued + 1, st->enqueued, pad) ||
	       nla_put_u64_64bit(skb, queued + 2, st->dispatched, pad) ||
	       nla_put_u64_64bit(skb, queued + 3, st->wait_ns, pad) ||
	       nla_put_u64_64bit(skb, queued + 4, st->throttled, pad);
}

static int nl_put_tbf_rule(struct sk_buff *skb, const struct lne_tbf_rule *r)
{
	struct nlattr *nest = nla_nest_start(skb, LNETK_TBFQ_A_RULE), *a;
	int n = lne_tbf_rule_format(r, NULL, 0);

	if (!nest)
		return -EMSGSIZE;
	a = nla_reserve(skb, LNETK_TBFR_A_TEXT, n + 1);
	if (!a)
		goto full;
	lne_tbf_rule_format(r, nla_data(a), n + 1);
	if (nla_put_string(skb, LNETK_TBFR_A_NAME, r->name) ||
	    nla_put_u32(skb, LNETK_TBFR_A_RATE, r->rate) ||
	    nla_put_u8(skb, LNETK_TBFR_A_REALTIME, r->realtime) ||
	    nla_put_u32(skb, LNETK_TBFR_A_NCLASSES, r->nclasses) ||
	    nl_put_stats(skb, &r->stats, LNETK_TBFR_A_QUEUED, LNETK_TBFR_A_PAD))
		goto full;
	nla_nest_end(skb, nest);
	return 0;

full:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

/*
 * Where a report of a policy stands (a dump keeps it in cb->ctx): the
 * policy, its queue, and how far into that queue (the next rule in match
 * order, or the classes already sent).
 */
struct tbf_cursor {
	char service[LNETK_TBF_SERVICE_MAX]; /* dumps: the policy; "" before the first */
	u8 queue;			     /* LNE_TBF_NQUEUES: the policy is done */
	u32 at;
};

/*
 * A dump step's start: the service LNETK_A_TBF/LNETK_TBF_A_SERVICE asks
 * for (*@only, NULL for all), refused with -ENOENT if it has no policy.
 * Returns 0 with ln->lock held.
 */
static int tbf_dump_begin(struct netlink_callback *cb, struct lnetk_net *ln, const char **only)
{
	struct nlattr **attrs = genl_dumpit_info(cb)->attrs;
	struct nlattr *tb[LNETK_TBF_A_MAX + 1];
	int rc;

	BUILD_BUG_ON(sizeof(struct tbf_cursor) > sizeof(cb->ctx));
	*only = NULL;
	rc = lnk_nl_dump_only(cb, BIT(LNETK_A_TBF));
	if (rc)
		return rc;
	if (attrs[LNETK_A_TBF]) {
		rc = lnk_nl_parse_nest(tb, LNETK_TBF_A_MAX, attrs[LNETK_A_TBF], lnk_nl_tbf_policy,
				       cb->extack)
			     ?: lnk_nl_only(tb, LNETK_TBF_A_MAX, BIT(LNETK_TBF_A_SERVICE),
					    cb->extack);
		if (rc)
			return rc;
		*only = tb[LNETK_TBF_A_SERVICE] ? nla_data(tb[LNETK_TBF_A_SERVICE]) : NULL;
	}
	mutex_lock(&ln->lock);
	if (*only && !lnetk_tbf_find(ln, *only)) {
		mutex_unlock(&ln->lock);
		return lnk_nl_refuse(cb->extack, tb[LNETK_TBF_A_SERVICE], -ENOENT,
				     "this service has no TBF policy (LNETK_TBF_A_SERVICE)");
	}
	return 0;
}

/*
 * The policy a dump goes on with after @t (NULL: from the first), in
 * service order, or NULL when it is done.  A policy not started yet resets
 * the cursor (the one in it may have gone since the last step).
 */
static struct lnetk_tbf *tbf_dump_next(struct lnetk_net *ln, struct lnetk_tbf *t,
				       struct tbf_cursor *cur, const char *only)
{
	const char *service;
	int cmp;

	t = list_prepare_entry(t, &ln->tbf, link);
	list_for_each_entry_continue(t, &ln->tbf, link)
	{
		service = lne_tbf_service(t->tbf);
		cmp = cur->service[0] ? strcmp(service, cur->service) : 1;
		if (cmp < 0 || (only && strcmp(service, only)))
			continue;
		if (cmp > 0) {
			strscpy(cur->service, service, sizeof(cur->service));
			cur->queue = LNE_TBF_REG;
			cur->at = 0;
		}
		if (cur->queue < LNE_TBF_NQUEUES)
			return t;
	}
	return NULL;
}

#ifdef LNETK_DEBUG
/* Tests only: how many queue headers were held back for the next message. */
static unsigned int test_tbf_held_back;
module_param(test_tbf_held_back, uint, 0444);
MODULE_PARM_DESC(
	test_tbf_held_back,
	"tests only: TBF queue headers that fitted a dump message but their first rule did not");
#endif

/*
 * One LNETK_A_TBF: the policy's queues and rules from @cur on, as many as
 * fit; advances @cur.  0 when the rest of the policy went in; -EMSGSIZE
 * when the skb (or a nest's 16-bit length) is full: what went in stays,
 * and @cur says where the next message goes on.  A queue that goes on in
 * the next message is sent again there with LNETK_TBFQ_A_FIRST, the index
 * of its first rule in that message.  A queue's header never ends a
 * message without one of the rules it has left: if its first does not fit,
 * the header goes too, and the queue starts in the next message (an empty
 * queue with LNETK_TBFQ_A_FIRST 0 there would read as a second queue).
 * Under the policy's qlock.
 */
static int nl_put_tbf_from(struct sk_buff *skb, const struct lne_tbf *tbf, struct tbf_cursor *cur)
{
	struct nlattr *nest = nla_nest_start(skb, LNETK_A_TBF), *qn;
	struct lne_tbf_queue_info qi;
	const struct lne_tbf_rule *r;
	char type[LNETK_TBF_TYPE_MAX];
	u32 i;

	if (!nest || nla_put_string(skb, LNETK_TBF_A_SERVICE, lne_tbf_service(tbf)))
		goto cancel;
	for (; cur->queue < LNE_TBF_NQUEUES; cur->queue++, cur->at = 0) {
		lne_tbf_queue_info(tbf, cur->queue, &qi);
		lne_tbf_type_format(qi.fields, type, sizeof(type));
		qn = nest_room(skb, nest) ? nla_nest_start(skb, LNETK_TBF_A_QUEUE_INFO) : NULL;
		if (!qn)
			goto end;
		if (nla_put_u8(skb, LNETK_TBFQ_A_QUEUE, cur->queue) ||
		    nla_put_string(skb, LNETK_TBFQ_A_TYPE, type) ||
		    nla_put_u32(skb, LNETK_TBFQ_A_DEPTH, qi.depth) ||
		    nla_put_u32(skb, LNETK_TBFQ_A_NCLASSES, qi.nclasses) ||
		    nla_put_u32(skb, LNETK_TBFQ_A_NACTIVE, qi.nactive) ||
		    nla_put_u64_64bit(skb, LNETK_TBFQ_A_QUEUED, qi.queued, LNETK_TBFQ_A_PAD) ||
		    nla_put_u32(skb, LNETK_TBFQ_A_FIRST, cur->at)) {
			nla_nest_cancel(skb, qn);
			goto end;
		}
		r = lne_tbf_rule_next(tbf, cur->queue, NULL);
		for (i = 0; r && i < cur->at; i++)
			r = lne_tbf_rule_next(tbf, cur->queue, r);
		for (i = 0; r; r = lne_tbf_rule_next(tbf, cur->queue, r), i++) {
			if (!nest_room(skb, nest) || nl_put_tbf_rule(skb, r)) {
				if (i) {
					nla_nest_end(skb, qn);
				} else {
					nla_nest_cancel(skb, qn);
#ifdef LNETK_DEBUG
					test_tbf_held_back++;
#endif
				}
				goto end;
			}
			cur->at++;
		}
		nla_nest_end(skb, qn);
	}
	nla_nest_end(skb, nest);
	return 0;

end:
	nla_nest_end(skb, nest);
	return -EMSGSIZE;
cancel:
	if (nest)
		nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

int lnk_nl_tbf_get(struct sk_buff *skb, struct genl_info *info)
{
	struct lnetk_net *ln = lnetk_net(genl_info_net(info));
	struct nlattr *tb[LNETK_TBF_A_MAX + 1];
	struct tbf_cursor cur = {.queue = LNE_TBF_REG};
	struct sk_buff *reply;
	struct lnetk_tbf *t;
	void *hdr;
	int rc;

	if (!lnk_nl_tbf_nest(info, tb, BIT(LNETK_TBF_A_SERVICE)))
		return -EINVAL;
	reply = lnk_nl_msg_new(info->snd_portid, info->snd_seq, LNETK_CMD_TBF_GET, TBF_MSG_SIZE,
			       &hdr);
	if (!reply)
		return lnk_nl_refuse(info->extack, NULL, -ENOMEM, "out of memory");
	mutex_lock(&ln->lock);
	t = tbf_lookup(ln, tb, info->extack);
	rc = !t ? -ENOENT
		: nla_put_u64_64bit(reply, LNETK_A_GENERATION, ln->generation, LNETK_A_PAD);
	if (!rc) {
		mutex_lock(&t->qlock);
		rc = nl_put_tbf_from(reply, t->tbf, &cur);
		mutex_unlock(&t->qlock);
	}
	mutex_unlock(&ln->lock);
	if (rc) {
		nlmsg_free(reply);
		return rc == -ENOENT
			       ? rc
			       : lnk_nl_refuse(info->extack, tb[LNETK_TBF_A_SERVICE], -EMSGSIZE,
					       "the policy does not fit one message: dump it "
					       "(NLM_F_DUMP with LNETK_TBF_A_SERVICE)");
	}
	genlmsg_end(reply, hdr);
	return genlmsg_reply(reply, info);
}

/*
 * Dump: every policy, or the one LNETK_TBF_A_SERVICE names, in service
 * order; a policy too big for one message goes on in the next (cb->ctx:
 * struct tbf_cursor).
 */
int lnk_nl_tbf_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct lnetk_net *ln = lnetk_net(sock_net(skb->sk));
	struct tbf_cursor *cur = (struct tbf_cursor *)cb->ctx, was;
	struct lnetk_tbf *t = NULL;
	const char *only;
	void *hdr;
	int rc;

	rc = tbf_dump_begin(cb, ln, &only);
	if (rc)
		return rc;
	cb->seq = (unsigned int)(ln->generation % 0xffffffffULL) + 1;
	while ((t = tbf_dump_next(ln, t, cur, only))) {
		hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
				  &lnk_nl_family, NLM_F_MULTI, LNETK_CMD_TBF_GET);
		if (!hdr) {
			rc = -EMSGSIZE;
			break;
		}
		genl_dump_check_consistent(cb, hdr);
		was = *cur;
		rc = nla_put_u64_64bit(skb, LNETK_A_GENERATION, ln->generation, LNETK_A_PAD);
		if (!rc) {
			mutex_lock(&t->qlock);
			rc = nl_put_tbf_from(skb, t->tbf, cur);
			mutex_unlock(&t->qlock);
		}
		if (rc && was.queue == cur->queue && was.at == cur->at) {
			/* Not one rule or queue went in: this message waits for the next skb. */
			*cur = was;
			genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
		if (rc)
			break;
	}
	mutex_unlock(&ln->lock);
	/* A full skb ends this step; one too small for a single rule is an error. */
	return rc == -EMSGSIZE && skb->len ? (int)skb->len : rc;
}

/* --- TBF_CLASS_GET: classes, as many to a message as fit ---------------------------- */

/* The instance generation and every class made or freed, folded: a dump's sequence. */
static unsigned int class_seq(struct lnetk_net *ln)
{
	struct lne_tbf_queue_info qi;
	struct lnetk_tbf *t;
	u64 seq = ln->generation;
	int q;

	list_for_each_entry(t, &ln->tbf, link) {
		mutex_lock(&t->qlock);
		for (q = LNE_TBF_REG; q < LNE_TBF_NQUEUES; q++) {
			lne_tbf_queue_info(t->tbf, q, &qi);
			seq = seq * 1000003 + qi.cgen;
		}
		mutex_unlock(&t->qlock);
	}
	return (unsigned int)(seq % 0xffffffffULL) + 1;
}

static int nl_put_class(struct sk_buff *skb, const struct lne_tbf *tbf,
			const struct lne_tbf_class *c)
{
	struct nlattr *nest = nla_nest_start(skb, LNETK_TBF_A_CLASS), *a;
	const struct lne_tbf_rule *r = lne_tbf_class_rule(tbf, c);
	int n = lne_tbf_class_format(c, NULL, 0);

	if (!nest)
		return -EMSGSIZE;
	a = nla_put_u8(skb, LNETK_TBFC_A_QUEUE, c->queue)
		    ? NULL
		    : nla_reserve(skb, LNETK_TBFC_A_KEY, n + 1);
	if (!a)
		goto full;
	lne_tbf_class_format(c, nla_data(a), n + 1);
	if (nla_put_string(skb, LNETK_TBFC_A_RULE, r ? r->name : "") ||
	    nl_put_stats(skb, &c->stats, LNETK_TBFC_A_QUEUED, LNETK_TBFC_A_PAD))
		goto full;
	nla_nest_end(skb, nest);
	return 0;

full:
	/* The classes before it stay in the message: this one must not, even in part. */
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

/*
 * The classes of @t from the cursor on, in one message; advances the
 * cursor.  Returns 0 when the policy is done, -EMSGSIZE when the skb is full
 * (the classes that fit stay in it).  Under ln->lock.
 */
static int nl_put_classes(struct sk_buff *skb, struct netlink_callback *cb, struct lnetk_net *ln,
			  struct lnetk_tbf *t, struct tbf_cursor *cur)
{
	const struct lne_tbf_class *c;
	struct nlattr *nest;
	u32 i, put = 0;
	void *hdr;
	int rc = 0;

	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq, &lnk_nl_family,
			  NLM_F_MULTI, LNETK_CMD_TBF_CLASS_GET);
	if (!hdr)
		return -EMSGSIZE;
	genl_dump_check_consistent(cb, hdr);
	nest = nla_put_u64_64bit(skb, LNETK_A_GENERATION, ln->generation, LNETK_A_PAD)
		       ? NULL
		       : nla_nest_start(skb, LNETK_A_TBF);
	if (!nest || nla_put_string(skb, LNETK_TBF_A_SERVICE, lne_tbf_service(t->tbf))) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	mutex_lock(&t->qlock);
	for (; cur->queue < LNE_TBF_NQUEUES; cur->queue++, cur->at = 0) {
		/* The walk's order holds while no class comes or goes (class_seq). */
		c = lne_tbf_class_next(t->tbf, cur->queue, NULL);
		for (i = 0; c && i < cur->at; i++)
			c = lne_tbf_class_next(t->tbf, cur->queue, c);
		for (; c; c = lne_tbf_class_next(t->tbf, cur->queue, c)) {
			/* A nest's length is 16 bits: a reader's big buffer must not overflow it. */
			rc = nest_room(skb, nest) ? nl_put_class(skb, t->tbf, c) : -EMSGSIZE;
			if (rc)
				break;
			cur->at++;
			put++;
		}
		if (rc)
			break;
	}
	mutex_unlock(&t->qlock);
	if (rc && !put) {
		/* Not one class fit: end this step; an empty skb means one never will. */
		genlmsg_cancel(skb, hdr);
		return rc;
	}
	nla_nest_end(skb, nest);
	genlmsg_end(skb, hdr);
	return rc;
}

int lnk_nl_tbf_class_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct lnetk_net *ln = lnetk_net(sock_net(skb->sk));
	struct tbf_cursor *cur = (struct tbf_cursor *)cb->ctx;
	struct lnetk_tbf *t = NULL;
	const char *only;
	int rc;

	rc = tbf_dump_begin(cb, ln, &only);
	if (rc)
		return rc;
	cb->seq = class_seq(ln);
	while ((t = tbf_dump_next(ln, t, cur, only))) {
		rc = nl_put_classes(skb, cb, ln, t, cur);
		if (rc)
			break;
	}
	mutex_unlock(&ln->lock);
	return rc == -EMSGSIZE && skb->len ? (int)skb->len : rc;
}
