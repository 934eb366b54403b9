// SPDX-License-Identifier: GPL-2.0
/*
 * lustre-tbf.c - the mirror's TBF policies held by the node's Lustre
 * services: sync, the periodic check (appearance and drift), the judge
 * and the view (lustre-tbf.h).  No lnetd here: lustre-tbf-bk.c puts it on
 * the engine.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>

#include "engine/tbf.h"
#include "lustre-tbf.h"

struct svc {
	const char *name;	/* lu-tbf's table */
	bool held;		/* lnetd held a policy for it at the last sync */
	bool present;		/* its directory was there at the last look */
	bool ok;		/* present and running lnetd's policy */
	char why[LTBF_WHY_MAX]; /* why not, when present */
};

struct ltbf {
	struct lutbf_env env;
	char *debugfs, *sys;
	ltbf_log_fn log;
	void *arg;
	size_t n;
	struct svc *s;
	char unknown[LTBF_WHY_MAX]; /* a policy of a service Lustre has not */
};

static void tell(struct ltbf *t, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void tell(struct ltbf *t, int level, const char *fmt, ...)
{
	char text[LTBF_WHY_MAX + 256];
	va_list ap;

	if (!t->log)
		return;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	t->log(t->arg, level, text);
}

struct ltbf *ltbf_new(const struct lutbf_env *env, ltbf_log_fn log, void *arg)
{
	struct ltbf *t = calloc(1, sizeof(*t));
	size_t i;

	if (!t)
		return NULL;
	t->log = log;
	t->arg = arg;
	if (env && env->debugfs && !(t->debugfs = strdup(env->debugfs)))
		goto fail;
	if (env && env->sys && !(t->sys = strdup(env->sys)))
		goto fail;
	t->env.debugfs = t->debugfs;
	t->env.sys = t->sys;
	if (env) {
		t->env.write = env->write;
		t->env.write_arg = env->write_arg;
	}
	while (lutbf_service_name(t->n))
		t->n++;
	t->s = calloc(t->n, sizeof(*t->s));
	if (!t->s)
		goto fail;
	for (i = 0; i < t->n; i++)
		t->s[i].name = lutbf_service_name(i);
	return t;
fail:
	ltbf_free(t);
	return NULL;
}

void ltbf_free(struct ltbf *t)
{
	if (!t)
		return;
	free(t->s);
	free(t->debugfs);
	free(t->sys);
	free(t);
}

const struct lutbf_env *ltbf_env(const struct ltbf *t)
{
	return &t->env;
}

static bool dir_present(const struct lutbf_env *env, const char *service)
{
	char dir[PATH_MAX];
	struct stat st;

	if (lutbf_service_dir(env ? env->debugfs : NULL, service, dir, sizeof(dir), NULL, 0))
		return false;
	return !stat(dir, &st) && S_ISDIR(st.st_mode);
}

bool ltbf_present(const struct ltbf *t, const char *service)
{
	return dir_present(&t->env, service);
}

static const struct lne_tbf *find(struct lne_tbf *const *want, size_t n, const char *service)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(lne_tbf_service(want[i]), service))
			return want[i];
	return NULL;
}

/* Note @s's reason (logged when it is new). */
static void failed(struct ltbf *t, struct svc *s, const char *why, struct ltbf_result *r)
{
	s->ok = false;
	if (r)
		r->failed++;
	if (strcmp(s->why, why))
		tell(t, LOG_WARNING, "TBF policy of service %s not held: %s", s->name, why);
	snprintf(s->why, sizeof(s->why), "%s", why);
}

static void apply_one(struct ltbf *t, struct svc *s, const struct lne_tbf *tbf,
		      struct ltbf_result *r)
{
	char msg[LTBF_WHY_MAX];
	size_t writes = 0;
	int rc;

	msg[0] = '\0';
	rc = lutbf_apply(&t->env, tbf, &writes, msg, sizeof(msg));
	if (rc == -ENOENT && !dir_present(&t->env, s->name)) {
		/* gone between the look and the write: the next appearance applies it */
		s->present = s->ok = false;
		s->why[0] = '\0';
		return;
	}
	if (rc) {
		failed(t, s, msg[0] ? msg : strerror(-rc), r);
		return;
	}
	if (writes && r)
		r->applied++;
	if (writes)
		tell(t, LOG_INFO, "TBF policy of service %s applied (%zu writes)", s->name, writes);
	s->ok = true;
	s->why[0] = '\0';
}

static void release_one(struct ltbf *t, struct svc *s, struct ltbf_result *r)
{
	char msg[LTBF_WHY_MAX] = "";
	int rc;

	s->held = s->ok = false;
	s->why[0] = '\0';
	if (!dir_present(&t->env, s->name))
		return;
	rc = lutbf_release(&t->env, s->name, msg, sizeof(msg));
	if (rc)
		tell(t, LOG_WARNING, "service %s: cannot set its NRS back to fifo: %s", s->name,
		     msg[0] ? msg : strerror(-rc));
	else if (r)
		r->released++;
}

static void unknown_services(struct ltbf *t, struct lne_tbf *const *want, size_t n)
{
	char msg[LTBF_WHY_MAX];
	size_t i;

	for (i = 0; i < n; i++) {
		if (lutbf_service_known(lne_tbf_service(want[i])))
			continue;
		lutbf_service_dir(NULL, lne_tbf_service(want[i]), msg, sizeof(msg), msg,
				  sizeof(msg));
		if (strcmp(t->unknown, msg))
			tell(t, LOG_WARNING, "a TBF policy the lustre engine cannot hold: %s", msg);
		snprintf(t->unknown, sizeof(t->unknown), "%s", msg);
		return;
	}
	t->unknown[0] = '\0';
}

void ltbf_sync(struct ltbf *t, struct lne_tbf *const *want, size_t n, struct ltbf_result *r)
{
	struct ltbf_result dummy;
	size_t i;

	if (!r)
		r = &dummy;
	memset(r, 0, sizeof(*r));
	unknown_services(t, want, n);
	for (i = 0; i < t->n; i++) {
		struct svc *s = &t->s[i];
		const struct lne_tbf *tbf = find(want, n, s->name);

		if (!tbf) {
			if (s->held)
				release_one(t, s, r);
			continue;
		}
		s->held = true;
		s->present = dir_present(&t->env, s->name);
		if (s->present)
			apply_one(t, s, tbf, r);
		else
			s->ok = false, s->why[0] = '\0';
	}
}

struct drift {
	struct ltbf *t;
	const char *service;
};

static void drift_say(void *arg, const char *sentence)
{
	struct drift *d = arg;

	tell(d->t, LOG_WARNING, "TBF drift on service %s: %s", d->service, sentence);
}

void ltbf_poll(struct ltbf *t, struct lne_tbf *const *want, size_t n, struct ltbf_result *r)
{
	struct ltbf_result dummy;
	char msg[LTBF_WHY_MAX];
	size_t i;
	int rc;

	if (!r)
		r = &dummy;
	memset(r, 0, sizeof(*r));
	for (i = 0; i < t->n; i++) {
		struct svc *s = &t->s[i];
		const struct lne_tbf *tbf = find(want, n, s->name);
		struct drift d = {t, s->name};

		if (!tbf)
			continue;
		s->held = true;
		if (!dir_present(&t->env, s->name)) {
			if (s->present)
				tell(t, LOG_INFO,
				     "service %s is gone (its last target unmounted): "
				     "its TBF policy is applied again when it is back",
				     s->name);
			s->present = s->ok = false;
			s->why[0] = '\0';
			continue;
		}
		if (!s->present) {
			s->present = true;
			r->appeared++;
			tell(t, LOG_INFO, "service %s appeared: applying lnetd's TBF policy",
			     s->name);
			apply_one(t, s, tbf, r);
			continue;
		}
		msg[0] = '\0';
		rc = lutbf_check(&t->env, tbf, s->ok ? drift_say : NULL, &d, msg, sizeof(msg));
		if (rc < 0) {
			if (rc == -ENOENT && !dir_present(&t->env, s->name))
				s->present = s->ok = false;
			else
				failed(t, s, msg[0] ? msg : strerror(-rc), r);
			continue;
		}
		if (!rc) {
			s->ok = true;
			s->why[0] = '\0';
			continue;
		}
		r->drift++;
		apply_one(t, s, tbf, r);
	}
}

bool ltbf_applied(const struct ltbf *t, char *why, size_t len)
{
	size_t i;

	if (t->unknown[0]) {
		snprintf(why, len, "%s", t->unknown);
		return false;
	}
	for (i = 0; i < t->n; i++) {
		const struct svc *s = &t->s[i];

		if (s->held && s->present && !s->ok) {
			snprintf(why, len, "the TBF policy of service %s is not held: %s", s->name,
				 s->why[0] ? s->why : "not written yet");
			return false;
		}
	}
	return true;
}

/* --- the judge --------------------------------------------------------------------------- */

int ltbf_judge(const struct lutbf_env *env, const struct lne_tbf *tbf, char *msg, size_t len)
{
	struct lutbf_shown s = {0}, none = {0};
	struct lutbf_caps caps;
	struct lutbf_want w;
	char ignored[LTBF_WHY_MAX];
	int rc;

	if (!lutbf_service_known(lne_tbf_service(tbf)))
		return lutbf_service_dir(NULL, lne_tbf_service(tbf), ignored, sizeof(ignored), msg,
					 len);
	/* The service's own CPTs, queues and depth, when it is here and readable. */
	rc = lutbf_read(env, lne_tbf_service(tbf), &s, ignored, sizeof(ignored));
	if (!rc)
		rc = lutbf_caps_read(env, &s, &caps, ignored, sizeof(ignored));
	if (rc) {
		/* Else what the node tells without it: Lustre's version and tbf_depth. */
		if (lutbf_caps_read(env, &none, &caps, ignored, sizeof(ignored))) {
			/* Lustre not loaded: judged as the newest it drives; sync tells the rest */
			memset(&caps, 0, sizeof(caps));
			caps.ver = (struct lutbf_version){2, 17, 0};
		}
		caps.has_hp = true;
	}
	if (!caps.ncpt)
		caps.ncpt = 1; /* TBF not running there: the CPT count is learnt at sync */
	rc = lutbf_convert(tbf, &caps, &w, msg, len);
	if (!rc)
		lutbf_want_free(&w);
	lutbf_shown_free(&s);
	return rc;
}

/* --- the view ------------------------------------------------------------------------------ */

/* The strings of one policy's view, freed together. */
struct view {
	struct bk_tbf_rule *rules[LUTBF_NQUEUES];
	char **texts;
	size_t ntexts;
};

static void view_free(struct view *v)
{
	size_t i;

	for (i = 0; i < LUTBF_NQUEUES; i++)
		free(v->rules[i]);
	for (i = 0; i < v->ntexts; i++)
		free(v->texts[i]);
	free(v->texts);
	memset(v, 0, sizeof(*v));
}

static int view_queue(struct view *v, const struct lutbf_shown *s, int q, uint32_t depth,
		      struct bk_tbf_queue *out)
{
	const char *type = s->q[q].policy + 3;
	const struct lutbf_rules *rs;
	unsigned div;
	size_t i;
	char **grown;

	type += *type == ' ';
	div = strstr(type, "nid") ? 1 : (unsigned)s->q[q].ncpt;
	rs = s->q[q].ncpt ? &s->q[q].rules[0] : NULL;
	memset(out, 0, sizeof(*out));
	out->queue = q == LUTBF_HP ? LNE_TBF_HP : LNE_TBF_REG;
	out->type = *type ? type : "generic";
	out->depth = depth;
	if (!rs || !rs->n)
		return 0;
	v->rules[q] = calloc(rs->n, sizeof(*v->rules[q]));
	grown = realloc(v->texts, (v->ntexts + rs->n) * sizeof(*v->texts));
	if (grown)
		v->texts = grown;
	if (!v->rules[q] || !grown)
		return -ENOMEM;
	for (i = 0; i < rs->n; i++) {
		const struct lutbf_rule *r = &rs->r[i];
		uint64_t total = (uint64_t)r->rate * (div ? div : 1);
		uint32_t rate = total > UINT32_MAX ? UINT32_MAX : (uint32_t)total;
		char *text = NULL;

		if (!strcmp(r->name, "default")) {
			if (asprintf(&text, "change default rate=%u", rate) < 0)
				return -ENOMEM;
		} else if (asprintf(&text, "start %s %s rate=%u", r->name, r->conds ?: "", rate) <
			   0) {
			return -ENOMEM;
		}
		v->texts[v->ntexts++] = text;
		v->rules[q][i] = (struct bk_tbf_rule){.name = r->name, .text = text, .rate = rate};
	}
	out->nrules = rs->n;
	out->rules = v->rules[q];
	return 0;
}

int ltbf_read(const struct lutbf_env *env, bk_tbf_fn fn, void *arg, struct lne_err *err)
{
	const char *name;
	size_t i;
	int rc = 0;

	for (i = 0; !rc && (name = lutbf_service_name(i)); i++) {
		struct bk_tbf_policy p = {.service = name};
		struct lutbf_shown s = {0};
		struct lutbf_caps caps;
		struct view v = {0};
		char msg[LTBF_WHY_MAX] = "";
		int q;

		if (!dir_present(env, name))
			continue;
		rc = lutbf_read(env, name, &s, msg, sizeof(msg));
		if (rc == -ENOENT) { /* went while we looked */
			rc = 0;
			continue;
		}
		if (rc) {
			lne_err_set(err, rc, NULL, -1,
				    "cannot read the TBF policy of service %s: %s", name,
				    msg[0] ? msg : strerror(-rc));
			break;
		}
		if (lutbf_caps_read(env, &s, &caps, msg, sizeof(msg)))
			caps.depth = 0;
		for (q = 0; !rc && q < LUTBF_NQUEUES; q++) {
			if ((q == LUTBF_HP && !s.has_hp) || strncmp(s.q[q].policy, "tbf", 3) ||
			    (s.q[q].policy[3] && s.q[q].policy[3] != ' '))
				continue;
			rc = view_queue(&v, &s, q, caps.depth, &p.queues[p.nqueues]);
			p.nqueues++;
		}
		if (!rc && p.nqueues)
			rc = fn(arg, &p);
		else if (rc)
			lne_err_set(err, rc, NULL, -1, "out of memory");
		view_free(&v);
		lutbf_shown_free(&s);
	}
	return rc;
}
