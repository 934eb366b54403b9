// SPDX-License-Identifier: GPL-2.0
/*
 * lu-tbf.c - lnetd's TBF policies applied to, and checked against, the
 * ptlrpc services of the node's Lustre servers (lu-tbf.h), through their
 * debugfs files.
 *
 * Each write is one write(2) of one command without a newline: Lustre
 * parses the buffer it is given, and a trailing newline would end up in
 * the last word ("nid\n" is no type).  A service's files are read whole;
 * nrs_tbf_rule fails with ENODEV while a queue runs no TBF, which reads as
 * "no CPT listed".
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/tbf.h"
#include "lu-tbf.h"

static const char *const qnames[LUTBF_NQUEUES] = {"reg", "hp"};

int lutbf_say(char *msg, size_t len, int rc, const char *fmt, ...)
{
	va_list ap;

	if (msg && len) {
		va_start(ap, fmt);
		vsnprintf(msg, len, fmt, ap);
		va_end(ap);
	}
	return rc;
}

/* The whole of @path, NUL-terminated (free()); -errno. */
static int read_all(const char *path, char **out)
{
	size_t n = 0, cap = 4096;
	char *buf = malloc(cap), *grown;
	ssize_t got;
	int fd, rc = 0;

	if (!buf)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		free(buf);
		return -errno;
	}
	for (;;) {
		if (n + 1 == cap) {
			if (cap >= LUTBF_READ_MAX) {
				rc = -EFBIG;
				break;
			}
			grown = realloc(buf, cap * 2);
			if (!grown) {
				rc = -ENOMEM;
				break;
			}
			buf = grown;
			cap *= 2;
		}
		got = read(fd, buf + n, cap - 1 - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			rc = -errno;
			break;
		}
		if (!got)
			break;
		n += (size_t)got;
	}
	close(fd);
	if (rc) {
		free(buf);
		return rc;
	}
	buf[n] = '\0';
	*out = buf;
	return 0;
}

static int write_one(const struct lutbf_env *env, const char *path, const char *text)
{
	size_t n = strlen(text);
	ssize_t put;
	int fd, rc = 0;

	if (env && env->write)
		return env->write(env->write_arg, path, text);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	do
		put = write(fd, text, n);
	while (put < 0 && errno == EINTR);
	if (put < 0)
		rc = -errno;
	else if ((size_t)put != n)
		rc = -EIO;
	if (close(fd) && !rc)
		rc = -errno;
	return rc;
}

static int file_path(const struct lutbf_env *env, const char *service, const char *file, char *path,
		     size_t size, char *msg, size_t len)
{
	char dir[PATH_MAX];
	int rc, n;

	rc = lutbf_service_dir(env ? env->debugfs : NULL, service, dir, sizeof(dir), msg, len);
	if (rc)
		return rc;
	n = snprintf(path, size, "%s/%s", dir, file);
	if (n < 0 || (size_t)n >= size)
		return lutbf_say(msg, len, -ENAMETOOLONG, "the path of %s is too long", dir);
	if (access(dir, F_OK))
		return lutbf_say(
			msg, len, -ENOENT,
			"service %s is not on this node (no %s: its target is not mounted, or "
			"debugfs is not mounted)",
			service, dir);
	return 0;
}

int lutbf_read(const struct lutbf_env *env, const char *service, struct lutbf_shown *s, char *msg,
	       size_t len)
{
	char path[PATH_MAX], *text = NULL;
	struct lutbf_shown t = {0};
	int rc;

	rc = file_path(env, service, "nrs_policies", path, sizeof(path), msg, len);
	if (rc)
		return rc;
	rc = read_all(path, &text);
	if (rc)
		return lutbf_say(msg, len, rc, "reading %s: %s", path, strerror(-rc));
	rc = lutbf_parse_policies(text, &t, msg, len);
	free(text);
	if (rc)
		return rc;
	rc = file_path(env, service, "nrs_tbf_rule", path, sizeof(path), msg, len);
	if (rc)
		return rc;
	text = NULL;
	rc = read_all(path, &text);
	if (rc == -ENODEV) /* a queue runs no TBF */
		rc = 0;
	else if (rc)
		return lutbf_say(msg, len, rc, "reading %s: %s", path, strerror(-rc));
	else
		rc = lutbf_parse_rules(text, &t, msg, len);
	free(text);
	if (rc) {
		lutbf_shown_free(&t);
		return rc;
	}
	lutbf_shown_free(s);
	*s = t;
	return 0;
}

int lutbf_caps_read(const struct lutbf_env *env, const struct lutbf_shown *s,
		    struct lutbf_caps *caps, char *msg, size_t len)
{
	const char *sys = env && env->sys ? env->sys : "/sys";
	char path[PATH_MAX], *text = NULL, *end;
	unsigned long depth;
	int rc;

	memset(caps, 0, sizeof(*caps));
	snprintf(path, sizeof(path), "%s/fs/lustre/version", sys);
	rc = read_all(path, &text);
	if (rc)
		return lutbf_say(msg, len, rc, "reading %s: %s (is Lustre loaded?)", path,
				 strerror(-rc));
	rc = lutbf_version_parse(text, &caps->ver, msg, len);
	free(text);
	if (rc)
		return rc;
	snprintf(path, sizeof(path), "%s/module/ptlrpc/parameters/tbf_depth", sys);
	text = NULL;
	if (!read_all(path, &text)) {
		errno = 0;
		depth = strtoul(text, &end, 10);
		if (!errno && end != text && depth <= UINT32_MAX)
			caps->depth = (uint32_t)depth;
		free(text);
	}
	caps->ncpt = (unsigned)s->q[LUTBF_REG].ncpt;
	caps->has_hp = s->has_hp;
	return 0;
}

/* "<policy> <queue> [<argument>]" for nrs_policies, from a listed "tbf nid" or "fifo". */
static int policy_write(const struct lutbf_env *env, const char *service, int q, const char *policy,
			char *msg, size_t len)
{
	char path[PATH_MAX], text[LUTBF_POLICY_MAX + 8];
	const char *sp = strchr(policy, ' ');
	int rc;

	rc = file_path(env, service, "nrs_policies", path, sizeof(path), msg, len);
	if (rc)
		return rc;
	if (sp)
		snprintf(text, sizeof(text), "%.*s %s %s", (int)(sp - policy), policy, qnames[q],
			 sp + 1);
	else
		snprintf(text, sizeof(text), "%s %s", policy, qnames[q]);
	rc = write_one(env, path, text);
	if (rc)
		return lutbf_say(msg, len, rc, "writing '%s' to %s: %s", text, path, strerror(-rc));
	return 0;
}

static int plan_write(const struct lutbf_env *env, const char *service, const struct lutbf_write *w,
		      char *msg, size_t len)
{
	char path[PATH_MAX];
	int rc;

	rc = file_path(env, service, w->file == LUTBF_POLICIES ? "nrs_policies" : "nrs_tbf_rule",
		       path, sizeof(path), msg, len);
	if (rc)
		return rc;
	rc = write_one(env, path, w->text);
	if (rc)
		return lutbf_say(msg, len, rc, "writing '%.300s' to %s: %s", w->text, path,
				 strerror(-rc));
	return 0;
}

/* The first difference, for a refusal's sentence. */
static void first_say(void *arg, const char *sentence)
{
	char *buf = arg;

	if (!buf[0])
		snprintf(buf, 512, "%s", sentence);
}

/*
 * The policies first, where they differ: Lustre then frees the queue's
 * rules and lists its CPTs (nrs_tbf_rule reads fail while a queue runs
 * another policy, so the rules cannot be planned before).  Everything but
 * the rates is checked before anything is written (with the CPT count
 * known, or 1); if the rates cannot be held over the CPTs learnt, the old
 * policies are put back.  Fills @w.
 */
static int policies_then_convert(const struct lutbf_env *env, const struct lne_tbf *tbf,
				 struct lutbf_shown *s, struct lutbf_caps *caps,
				 struct lutbf_want *w, size_t *writes, char *msg, size_t len)
{
	const char *service = lne_tbf_service(tbf);
	char old[LUTBF_NQUEUES][LUTBF_POLICY_MAX];
	bool changed[LUTBF_NQUEUES] = {false, false};
	struct lutbf_want pre;
	int q, rc;

	if (!caps->ncpt)
		caps->ncpt = 1;
	rc = lutbf_convert(tbf, caps, &pre, msg, len);
	if (rc)
		return rc;
	for (q = 0; q < LUTBF_NQUEUES; q++)
		memcpy(old[q], s->q[q].policy, sizeof(old[q]));
	for (q = 0; !rc && q < LUTBF_NQUEUES; q++) {
		if ((q == LUTBF_HP && !pre.has_hp) || !strcmp(s->q[q].policy, pre.q[q].policy))
			continue;
		rc = policy_write(env, service, q, pre.q[q].policy, msg, len);
		changed[q] = !rc;
		if (!rc && writes)
			(*writes)++;
	}
	lutbf_want_free(&pre);
	if (!rc && (changed[LUTBF_REG] || changed[LUTBF_HP]))
		rc = lutbf_read(env, service, s, msg, len);
	if (!rc && !s->q[LUTBF_REG].ncpt)
		rc = lutbf_say(msg, len, -EPROTO, "%s lists no CPU partition while TBF runs",
			       service);
	if (!rc) {
		caps->ncpt = (unsigned)s->q[LUTBF_REG].ncpt;
		rc = lutbf_convert(tbf, caps, w, msg, len);
	}
	if (!rc)
		return 0;
	for (q = 0; q < LUTBF_NQUEUES; q++)
		if (changed[q] && old[q][0])
			policy_write(env, service, q, old[q], NULL, 0);
	return rc;
}

int lutbf_apply(const struct lutbf_env *env, const struct lne_tbf *tbf, size_t *writes, char *msg,
		size_t len)
{
	const char *service = lne_tbf_service(tbf);
	struct lutbf_shown s = {0};
	struct lutbf_want w = {0};
	struct lutbf_plan p = {0};
	struct lutbf_caps caps;
	char first[512] = "";
	size_t i;
	int rc;

	if (writes)
		*writes = 0;
	rc = lutbf_read(env, service, &s, msg, len);
	if (!rc)
		rc = lutbf_caps_read(env, &s, &caps, msg, len);
	if (!rc)
		rc = policies_then_convert(env, tbf, &s, &caps, &w, writes, msg, len);
	if (!rc)
		rc = lutbf_plan(&w, &s, &p);
	for (i = 0; !rc && i < p.n; i++) {
		rc = plan_write(env, service, &p.w[i], msg, len);
		if (!rc && writes)
			(*writes)++;
	}
	if (!rc)
		rc = lutbf_read(env, service, &s, msg, len);
	if (!rc && lutbf_compare(&w, &s, first_say, first))
		rc = lutbf_say(msg, len, -EIO, "the writes were taken, but %s", first);
	lutbf_plan_free(&p);
	lutbf_want_free(&w);
	lutbf_shown_free(&s);
	return rc;
}

int lutbf_check(const struct lutbf_env *env, const struct lne_tbf *tbf, lutbf_say_fn say_fn,
		void *arg, char *msg, size_t len)
{
	struct lutbf_shown s = {0};
	struct lutbf_want w = {0};
	struct lutbf_caps caps;
	int rc;

	rc = lutbf_read(env, lne_tbf_service(tbf), &s, msg, len);
	if (!rc)
		rc = lutbf_caps_read(env, &s, &caps, msg, len);
	if (!rc && !caps.ncpt)
		caps.ncpt = 1; /* TBF is not running: the policy differs, whatever the rates */
	if (!rc)
		rc = lutbf_convert(tbf, &caps, &w, msg, len);
	if (!rc)
		rc = lutbf_compare(&w, &s, say_fn, arg);
	lutbf_want_free(&w);
	lutbf_shown_free(&s);
	return rc;
}

int lutbf_release(const struct lutbf_env *env, const char *service, char *msg, size_t len)
{
	struct lutbf_shown s = {0};
	int q, rc;

	rc = lutbf_read(env, service, &s, msg, len);
	for (q = 0; !rc && q < LUTBF_NQUEUES; q++)
		if ((q == LUTBF_REG || s.has_hp) && !strncmp(s.q[q].policy, "tbf", 3) &&
		    (!s.q[q].policy[3] || s.q[q].policy[3] == ' '))
			rc = policy_write(env, service, q, "fifo", msg, len);
	lutbf_shown_free(&s);
	return rc;
}
