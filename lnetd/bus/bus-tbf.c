// SPDX-License-Identifier: GPL-2.0
/*
 * bus-tbf.c - the NRS TBF methods (TbfSetPolicy, TbfCommand, TbfDelete,
 * ListTbf): policies through the change path, statistics from the engine
 * or the mirror.
 */
#include <errno.h>
#include <stdbool.h>
#include <systemd/sd-bus.h>

#include "bus-int.h"
#include "lnetd/backend/backend.h"
#include "lnetd/change.h"
#include "lnetd/lnetd.h"
#include "lnetd/nrs.h"

/* --- TBF --------------------------------------------------------------------------- */

int bus_method_tbf_set_policy(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	struct lnetd_op op = {.verb = VERB_SET, .obj = OBJ_TBF};
	const char *type = NULL;
	uint32_t depth = 0;
	enum {
		F_TYPE,
		F_DEPTH
	};
	struct field f[] = {
		[F_TYPE] = {"type", 's', &type}, [F_DEPTH] = {"depth", 'u', &depth}, {NULL}};
	int rc;

	rc = sd_bus_message_read(m, "ss", &op.u.tbf.service, &op.u.tbf.queue);
	if (rc >= 0)
		rc = bus_read_fields(m, f, "TbfSetPolicy", e);
	op.u.tbf.type = type;
	op.u.tbf.depth = given_or_unset(&f[F_DEPTH], depth);
	return rc < 0 ? rc : bus_change_one(m, d, &op, e);
}

int bus_method_tbf_command(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	struct lnetd_op op = {.verb = VERB_ADD, .obj = OBJ_TBF};
	int rc;

	rc = sd_bus_message_read(m, "ss", &op.u.tbf.service, &op.u.tbf.command);
	return rc < 0 ? rc : bus_change_one(m, d, &op, e);
}

int bus_method_tbf_delete(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	struct lnetd_op op = {.verb = VERB_DEL, .obj = OBJ_TBF};
	int rc;

	rc = sd_bus_message_read(m, "s", &op.u.tbf.service);
	return rc < 0 ? rc : bus_change_one(m, d, &op, e);
}

static int append_stats(sd_bus_message *r, const struct lne_tbf_stats *s)
{
	return sd_bus_message_append(r, "ttttt", s->queued, s->enqueued, s->dispatched, s->wait_ns,
				     s->throttled);
}

/* A rule row of ListTbf: (name, command, rate, realtime, classes, statistics). */
static int append_rule_row(sd_bus_message *r, const char *name, const char *text, uint32_t rate,
			   bool realtime, uint32_t nclasses, const struct lne_tbf_stats *st)
{
	int rc = sd_bus_message_open_container(r, 'r', "ssubuttttt");

	if (rc >= 0)
		rc = sd_bus_message_append(r, "ssubu", name, text, rate, (int)realtime, nclasses);
	if (rc >= 0)
		rc = append_stats(r, st);
	return rc >= 0 ? sd_bus_message_close_container(r) : rc;
}

/* A class row of ListTbf: (key, the rule it follows, statistics). */
static int append_class_row(sd_bus_message *r, const char *key, const char *rule,
			    const struct lne_tbf_stats *st)
{
	int rc = sd_bus_message_open_container(r, 'r', "ssttttt");

	if (rc >= 0)
		rc = sd_bus_message_append(r, "ss", key, rule);
	if (rc >= 0)
		rc = append_stats(r, st);
	return rc >= 0 ? sd_bus_message_close_container(r) : rc;
}

/* One queue: (service, queue, type, depth, rules, classes). */
static int append_tbf_queue(sd_bus_message *r, const struct lne_tbf *tbf, enum lne_tbf_queue q)
{
	char type[64], text[LNE_TBF_CMD_MAX + 16];
	const struct lne_tbf_rule *rule;
	const struct lne_tbf_class *cls;
	struct lne_tbf_queue_info info;
	int rc;

	lne_tbf_queue_info(tbf, q, &info);
	lne_tbf_type_format(info.fields, type, sizeof(type));
	rc = sd_bus_message_open_container(r, 'r', "sssua(ssubuttttt)a(ssttttt)");
	if (rc >= 0)
		rc = sd_bus_message_append(r, "sssu", lne_tbf_service(tbf),
					   q == LNE_TBF_REG ? "reg" : "hp", type, info.depth);
	if (rc >= 0)
		rc = sd_bus_message_open_container(r, 'a', "(ssubuttttt)");
	for (rule = lne_tbf_rule_next(tbf, q, NULL); rc >= 0 && rule;
	     rule = lne_tbf_rule_next(tbf, q, rule)) {
		lne_tbf_rule_format(rule, text, sizeof(text));
		rc = append_rule_row(r, rule->name, text, rule->rate, rule->realtime,
				     rule->nclasses, &rule->stats);
	}
	if (rc >= 0)
		rc = sd_bus_message_close_container(r);
	if (rc >= 0)
		rc = sd_bus_message_open_container(r, 'a', "(ssttttt)");
	for (cls = lne_tbf_class_next(tbf, q, NULL); rc >= 0 && cls;
	     cls = lne_tbf_class_next(tbf, q, cls)) {
		const struct lne_tbf_rule *follows = lne_tbf_class_rule(tbf, cls);

		lne_tbf_class_format(cls, text, sizeof(text));
		rc = append_class_row(r, text, follows ? follows->name : "", &cls->stats);
	}
	if (rc >= 0)
		rc = sd_bus_message_close_container(r);
	return rc >= 0 ? sd_bus_message_close_container(r) : rc;
}

/* One queue of a policy the engine runs, in append_tbf_queue's form. */
static int append_engine_queue(sd_bus_message *r, const struct bk_tbf_policy *p,
			       const struct bk_tbf_queue *qi)
{
	int rc = sd_bus_message_open_container(r, 'r', "sssua(ssubuttttt)a(ssttttt)");
	size_t i;

	if (rc >= 0)
		rc = sd_bus_message_append(r, "sssu", p->service,
					   qi->queue == LNE_TBF_HP ? "hp" : "reg", qi->type,
					   qi->depth);
	if (rc >= 0)
		rc = sd_bus_message_open_container(r, 'a', "(ssubuttttt)");
	for (i = 0; rc >= 0 && i < qi->nrules; i++) {
		const struct bk_tbf_rule *k = &qi->rules[i];

		rc = append_rule_row(r, k->name, k->text, k->rate, k->realtime, k->nclasses,
				     &k->st);
	}
	if (rc >= 0)
		rc = sd_bus_message_close_container(r);
	if (rc >= 0)
		rc = sd_bus_message_open_container(r, 'a', "(ssttttt)");
	for (i = 0; rc >= 0 && i < p->ncls; i++)
		if (p->cls[i].queue == qi->queue)
			rc = append_class_row(r, p->cls[i].key, p->cls[i].rule, &p->cls[i].st);
	if (rc >= 0)
		rc = sd_bus_message_close_container(r);
	return rc >= 0 ? sd_bus_message_close_container(r) : rc;
}

static int append_engine_policy(void *arg, const struct bk_tbf_policy *p)
{
	size_t q;
	int rc = 0;

	for (q = 0; rc >= 0 && q < p->nqueues; q++)
		rc = append_engine_queue(arg, p, &p->queues[q]);
	return rc < 0 ? rc : 0;
}

/*
 * The policies and their statistics.  Where the engine runs the policies
 * itself (backend.h: tbf_read) the traffic is its: so are the rules' counts
 * and the classes, read from it (while it is there; the mirror's
 * otherwise, which carry no traffic).
 */
int bus_method_list_tbf(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	const struct backend_ops *ops = backend_ops_of(d);
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	struct lne_err err = {.msg = ""};
	bool engine = ops->tbf_read;
	size_t i;
	int rc, q;

	rc = sd_bus_message_new_method_return(m, &reply);
	if (rc >= 0)
		rc = sd_bus_message_open_container(reply, 'a', "(sssua(ssubuttttt)a(ssttttt))");
	if (rc >= 0 && engine) {
		rc = ops->tbf_read(d->backend, append_engine_policy, reply, &err);
		/* away: the mirror's, which carry no traffic */
		engine = rc != -ENODEV;
		if (rc == -ENODEV)
			rc = 0;
		if (rc < 0 && err.msg[0])
			return sd_bus_error_setf(e, SD_BUS_ERROR_FAILED, "%s", err.msg);
	}
	for (i = 0; rc >= 0 && !engine && i < d->ntbf; i++)
		for (q = 0; rc >= 0 && q < LNE_TBF_NQUEUES; q++)
			rc = append_tbf_queue(reply, d->tbf[i], q);
	if (rc >= 0)
		rc = sd_bus_message_close_container(reply);
	if (rc >= 0)
		rc = sd_bus_send(NULL, reply, NULL);
	return rc;
}
