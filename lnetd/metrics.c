// SPDX-License-Identifier: GPL-2.0
/*
 * metrics.c - see metrics.h.
 *
 * Rendering reads each source once into rows (a group of rows shares its
 * labels' names and its columns), then writes the families from one
 * table: a family is a group's column.  The sources are the engine that
 * runs LNet (backend.h): its counters, and its health and TBF policies
 * where it tells them (the mirror's where the mirror is the engine);
 * nothing of an engine that is not there now.
 *
 * Its cost is bounded whatever the number of peers (issue 31): the peer
 * NIs' series are left out unless asked for (--metrics-peers); the counts
 * of configured objects follow the history's summaries of the changes
 * since the last count (O(what changed)), not a reading of the whole
 * store; and the file is written at most once per gap (at least 1 s, and
 * 20 times what the last write cost), however many changes come.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <systemd/sd-event.h>
#include <time.h>
#include <unistd.h>

#include "events.h"
#include "lnetd.h"
#include "lnetd/backend/backend.h"
#include "lnetd/log.h"
#include "metrics-text.h"
#include "metrics.h"

/* --- rows -------------------------------------------------------------------------- */

enum group {
	G_NI,	 /* nid, net: the data path's counters of a local NI */
	G_PNI,	 /* nid, net: ... of a peer NI */
	G_NODE,	 /* the node's */
	G_FAULT, /* kind */
	G_NIH,	 /* nid, net, interface: health, up */
	G_PNIH,	 /* nid, net, peer: health */
	G_RULE,	 /* service, queue, rule */
	G_CLASS, /* service, queue, class, rule */
	G_QUEUE, /* service, queue: classes */
	G_CONF,	 /* engine: generation */
	G_OBJ,	 /* kind: configured, applied */
	G_PEND,	 /* kind, object, reason */
	G__COUNT
};

#define LABELS_MAX 4
#define COLS	   25

struct row {
	char *lab[2 * LABELS_MAX + 1]; /* name, value, ..., NULL */
	uint64_t v[COLS];
};

struct rows {
	struct row *r;
	size_t n, cap;
};

struct collect {
	struct lnetd *d;
	bool peers; /* the peer NIs' series too (--metrics-peers) */
	struct rows g[G__COUNT];
	int err;
};

/* A new row in group @g with labels (name, value pairs ending with NULL), or NULL. */
static struct row *row_add(struct collect *c, enum group g, ...)
{
	struct rows *rs = &c->g[g];
	struct row *r;
	const char *s;
	va_list ap;
	int i = 0;

	if (c->err)
		return NULL;
	if (rs->n == rs->cap) {
		size_t cap = rs->cap ? 2 * rs->cap : 16;
		struct row *v = realloc(rs->r, cap * sizeof(*v));

		if (!v) {
			c->err = -ENOMEM;
			return NULL;
		}
		rs->r = v;
		rs->cap = cap;
	}
	r = &rs->r[rs->n++];
	memset(r, 0, sizeof(*r));
	va_start(ap, g);
	while (i < 2 * LABELS_MAX && (s = va_arg(ap, const char *)))
		if (!(r->lab[i++] = strdup(s)))
			c->err = -ENOMEM;
	va_end(ap);
	return c->err ? NULL : r;
}

static void collect_free(struct collect *c)
{
	size_t g, i, k;

	for (g = 0; g < G__COUNT; g++) {
		for (i = 0; i < c->g[g].n; i++)
			for (k = 0; c->g[g].r[i].lab[k]; k++)
				free(c->g[g].r[i].lab[k]);
		free(c->g[g].r);
	}
}

/* The net of a NID as text: what follows its '@'. */
static const char *nid_net(const char *nid)
{
	const char *at = strrchr(nid, '@');

	return at ? at + 1 : "";
}

/* --- the data path's counters (lne_counts_each's and lne_node_stats_each's names) ----- */

static const char *const count_names[COLS] = {
	"send_count",
	"recv_count",
	"drop_count",
	"send_length",
	"recv_length",
	"drop_length",
	"errors",
	"route_count",
	"route_length",
	"connections_made",
	"connections_accepted",
	"connections_closed",
	"msgs_alloc",
	"msgs_max",
	"test_puts",
	"test_gets",
	"disc_started",
	"disc_done",
	"disc_failed",
	"disc_msgs_waited",
	"resend_count",
	"failed_resends",
	"successful_resends",
	"response_timeout_count",
	"recovery_pings",
};

/* One counter of @nid (NULL: the node's own), as the engine gives them (backend.h). */
static int add_count(void *arg, const char *nid, bool local, const char *name, uint64_t value)
{
	struct collect *c = arg;
	enum group g = !nid ? G_NODE : local ? G_NI : G_PNI;
	struct rows *rs = &c->g[g];
	struct row *r;
	int k;

	if (!nid && !strncmp(name, "fault_", 6)) {
		r = row_add(c, G_FAULT, "kind", name + 6, NULL);
		if (r)
			r->v[0] = value;
		return c->err;
	}
	for (k = 0; k < COLS && strcmp(count_names[k], name); k++)
		;
	if (k == COLS || (nid && k > 5))
		return 0; /* by message type: not exported */
	if (g == G_PNI && !c->peers)
		return 0;
	/* A NID's counters come together: a new row when the NID changes. */
	r = rs->n ? &rs->r[rs->n - 1] : NULL;
	if (!r || (nid && strcmp(r->lab[1], nid)))
		r = nid ? row_add(c, g, "nid", nid, "net", nid_net(nid), NULL)
			: row_add(c, g, NULL);
	if (r)
		r->v[k] = value;
	return c->err;
}

/* The engine's counters: none while it is not there (or cannot count). */
static int collect_counters(struct collect *c)
{
	const struct backend_ops *ops = backend_ops_of(c->d);
	struct lne_err err = {.msg = ""};
	int rc;

	if (!ops->counters)
		return 0;
	rc = ops->counters(c->d->backend, add_count, c, &err);
	return rc == -ENODEV ? 0 : rc;
}

/* --- health ----------------------------------------------------------------------- */

static void add_ni(struct collect *c, const char *nid, const char *ifname, uint32_t health, bool up)
{
	struct row *r =
		row_add(c, G_NIH, "nid", nid, "net", nid_net(nid), "interface", ifname, NULL);

	if (r) {
		r->v[0] = health;
		r->v[1] = up;
	}
}

static void add_pni(struct collect *c, const char *nid, const char *peer, uint32_t health)
{
	struct row *r = row_add(c, G_PNIH, "nid", nid, "net", nid_net(nid), "peer", peer, NULL);

	if (r)
		r->v[0] = health;
}

/* Health from the engine where it tells it, else from the mirror (which is the engine). */
static int collect_health(struct collect *c)
{
	const struct backend_ops *ops = backend_ops_of(c->d);
	char nid[LNE_NID_STR_MAX], prim[LNE_NID_STR_MAX];
	struct lne_cursor cur = {0};
	const struct lne_peer_net *pnet;
	const struct lne_peer_ni *pni;
	struct bk_health *h = NULL;
	struct lne_peer *p;
	struct lne_ni *ni;
	size_t i;
	int rc;

	if (ops->health) {
		rc = ops->health(c->d->backend, c->peers, &h);
		if (rc)
			return rc == -ENODEV ? 0 : rc;
		for (i = 0; !c->err && i < h->n; i++) {
			const struct bk_health_one *o = &h->v[i];

			lne_nid_format(&o->nid, nid, sizeof(nid));
			if (o->local) {
				add_ni(c, nid, o->ifname, o->health, o->up);
				continue;
			}
			if (!c->peers)
				continue;
			lne_nid_format(&o->peer, prim, sizeof(prim));
			add_pni(c, nid, prim, o->health);
		}
		bk_health_free(h);
		return c->err;
	}
	while (!c->err && (ni = lne_ni_next(c->d->mirror, &cur))) {
		lne_nid_format(&ni->nid, nid, sizeof(nid));
		add_ni(c, nid, ni->ifname, (uint32_t)ni->health, ni->up);
	}
	cur = (struct lne_cursor){0};
	while (c->peers && !c->err && (p = lne_peer_next(c->d->mirror, &cur))) {
		lne_nid_format(&p->primary, prim, sizeof(prim));
		lne_list_for_each_entry(pnet, &p->pnets, link)
			lne_list_for_each_entry(pni, &pnet->pnis, pnet_link) {
				lne_nid_format(&pni->nid, nid, sizeof(nid));
				add_pni(c, nid, prim, (uint32_t)pni->health);
			}
	}
	return c->err;
}

/* --- NRS TBF ---------------------------------------------------------------------- */

static void put_stats(struct row *r, int at, uint64_t queued, uint64_t enqueued,
		      uint64_t dispatched, uint64_t throttled, uint64_t wait_ns)
{
	if (!r)
		return;
	r->v[at] = queued;
	r->v[at + 1] = enqueued;
	r->v[at + 2] = dispatched;
	r->v[at + 3] = throttled;
	r->v[at + 4] = wait_ns;
}

static void add_queue(struct collect *c, const char *service, const char *queue, uint64_t nclasses)
{
	struct row *r = row_add(c, G_QUEUE, "service", service, "queue", queue, NULL);

	if (r)
		r->v[0] = nclasses;
}

static void add_rule(struct collect *c, const char *service, const char *queue, const char *name,
		     uint32_t rate, uint32_t nclasses, const struct lne_tbf_stats *s)
{
	struct row *r = row_add(c, G_RULE, "service", service, "queue", queue, "rule", name, NULL);

	put_stats(r, 2, s->queued, s->enqueued, s->dispatched, s->throttled, s->wait_ns);
	if (r) {
		r->v[0] = rate;
		r->v[1] = nclasses;
	}
}

static void add_class(struct collect *c, const char *service, const char *queue, const char *key,
		      const char *rule, const struct lne_tbf_stats *s)
{
	struct row *r = row_add(c, G_CLASS, "service", service, "queue", queue, "class", key,
				"rule", rule, NULL);

	put_stats(r, 0, s->queued, s->enqueued, s->dispatched, s->throttled, s->wait_ns);
}

static const char *queue_name(int q)
{
	return q == LNE_TBF_HP ? "hp" : "reg";
}

static int add_engine_tbf(void *arg, const struct bk_tbf_policy *p)
{
	struct collect *c = arg;
	size_t q, i, shown;

	for (q = 0; q < p->nqueues; q++) {
		const struct bk_tbf_queue *qi = &p->queues[q];
		const char *qn = queue_name(qi->queue);

		for (i = 0; i < qi->nrules; i++)
			add_rule(c, p->service, qn, qi->rules[i].name, qi->rules[i].rate,
				 qi->rules[i].nclasses, &qi->rules[i].st);
		for (i = shown = 0; i < p->ncls; i++)
			if (p->cls[i].queue == qi->queue && shown++ < LNETD_METRICS_CLASSES_MAX)
				add_class(c, p->service, qn, p->cls[i].key, p->cls[i].rule,
					  &p->cls[i].st);
		add_queue(c, p->service, qn, qi->nclasses);
	}
	return c->err;
}

/* TBF from the engine where it runs the policies itself, else the mirror's. */
static int collect_tbf(struct collect *c)
{
	const struct backend_ops *ops = backend_ops_of(c->d);
	struct lne_err err = {.msg = ""};
	char key[LNE_TBF_CMD_MAX];
	size_t i;
	int q, rc;

	if (ops->tbf_read) {
		rc = ops->tbf_read(c->d->backend, add_engine_tbf, c, &err);
		return rc == -ENODEV ? 0 : rc;
	}
	for (i = 0; i < c->d->ntbf; i++)
		for (q = 0; q < LNE_TBF_NQUEUES; q++) {
			const struct lne_tbf *t = c->d->tbf[i];
			const char *svc = lne_tbf_service(t);
			const struct lne_tbf_rule *rule = NULL;
			const struct lne_tbf_class *cls = NULL;
			struct lne_tbf_queue_info info;
			uint32_t shown = 0;

			lne_tbf_queue_info(t, q, &info);
			add_queue(c, svc, queue_name(q), info.nclasses);
			while ((rule = lne_tbf_rule_next(t, q, rule)))
				add_rule(c, svc, queue_name(q), rule->name, rule->rate,
					 rule->nclasses, &rule->stats);
			while (shown++ < LNETD_METRICS_CLASSES_MAX &&
			       (cls = lne_tbf_class_next(t, q, cls))) {
				const struct lne_tbf_rule *f = lne_tbf_class_rule(t, cls);

				lne_tbf_class_format(cls, key, sizeof(key));
				add_class(c, svc, queue_name(q), key, f ? f->name : "",
					  &cls->stats);
			}
		}
	return c->err;
}

/* --- the configuration ------------------------------------------------------------ */

static int add_pending(void *arg, const char *kind, const char *object, const char *reason)
{
	struct collect *c = arg;

	row_add(c, G_PEND, "kind", kind, "object", object, "reason", reason, NULL);
	return c->err;
}

static int collect_config(struct collect *c)
{
	struct lnetd *d = c->d;
	struct lnetd_status s;
	struct row *r;
	int k, rc;

	rc = lnetd_status_read(d, &s);
	if (rc)
		return rc;
	r = row_add(c, G_CONF, "engine", d->engine, NULL);
	if (r)
		r->v[0] = d->generation;
	for (k = 0; k < LNETD_KINDS; k++) {
		r = row_add(c, G_OBJ, "kind", s.kind[k], NULL);
		if (r) {
			r->v[0] = s.configured[k];
			r->v[1] = s.applied[k];
		}
	}
	rc = lnetd_pending_each(d, &s, add_pending, c);
	if (rc)
		return rc;
	return c->err;
}

/* --- the families ----------------------------------------------------------------- */

enum {
	COUNTER,
	GAUGE,
	SECONDS,
	ONE,
	HOW = 0x0f,
	LUSTRE = 0x10 /* a family of Lustre's exporters: their labels */
};

/*
 * Where a family means what one of Lustre's exporters exports, it has that
 * name and those labels: the node's LNet statistics (/sys/kernel/debug/lnet/stats,
 * lnetctl stats show) are lustre_exporter's lustre_*_count_total,
 * lustre_*_bytes_total, lustre_errors_total, lustre_allocated and
 * lustre_maximum with component="lnet", target="lnet" (the names DDN's
 * lustrefs-exporter uses too).  The rest keep lnet_* names: no exporter has
 * them (lnetd(8) METRICS says why for the local NIs').
 */
static const char *const lustre_labels[] = {"component", "lnet", "target", "lnet", NULL};

static const struct family {
	enum group g;
	uint8_t col, how;
	const char *name, *help;
} families[] = {
	{G_CONF, 0, GAUGE, "lnet_config_generation",
	 "The configuration's generation: one more for every committed change."},
	{G_OBJ, 0, GAUGE, "lnet_config_objects", "Objects configured, by kind."},
	{G_OBJ, 1, GAUGE, "lnet_config_applied_objects",
	 "Objects the engine that runs LNet holds, by kind."},
	{G_PEND, 0, ONE, "lnet_config_pending",
	 "1 for each configured object that is pending, with the reason."},
#define COUNTS(g, p, what)                                                                     \
	{g, 0, COUNTER, p "_sent_messages_total", "Messages sent" what "."},                   \
		{g, 1, COUNTER, p "_received_messages_total", "Messages received" what "."},   \
		{g, 2, COUNTER, p "_dropped_messages_total", "Messages dropped" what "."},     \
		{g, 3, COUNTER, p "_sent_bytes_total", "Payload bytes sent" what "."},         \
		{g, 4, COUNTER, p "_received_bytes_total", "Payload bytes received" what "."}, \
	{                                                                                      \
		g, 5, COUNTER, p "_dropped_bytes_total", "Payload bytes dropped" what "."      \
	}
	{G_NODE, 0, COUNTER | LUSTRE, "lustre_send_count_total", "Messages this node sent."},
	{G_NODE, 1, COUNTER | LUSTRE, "lustre_receive_count_total", "Messages this node received."},
	{G_NODE, 2, COUNTER | LUSTRE, "lustre_drop_count_total", "Messages this node dropped."},
	{G_NODE, 3, COUNTER | LUSTRE, "lustre_send_bytes_total", "Payload bytes this node sent."},
	{G_NODE, 4, COUNTER | LUSTRE, "lustre_receive_bytes_total",
	 "Payload bytes this node received."},
	{G_NODE, 5, COUNTER | LUSTRE, "lustre_drop_bytes_total",
	 "Payload bytes this node dropped."},
	COUNTS(G_NI, "lnet_ni", " through a local NI"),
	COUNTS(G_PNI, "lnet_peer_ni", " to or from a peer NI"),
	{G_NODE, 6, COUNTER | LUSTRE, "lustre_errors_total", "Messages that failed."},
	{G_NODE, 7, COUNTER | LUSTRE, "lustre_route_count_total",
	 "Messages this router passed on."},
	{G_NODE, 8, COUNTER | LUSTRE, "lustre_route_bytes_total",
	 "Payload bytes this router passed on."},
	{G_NODE, 9, COUNTER, "lnet_connections_made_total", "Connections made to peers."},
	{G_NODE, 10, COUNTER, "lnet_connections_accepted_total", "Connections peers made."},
	{G_NODE, 11, COUNTER, "lnet_connections_closed_total", "Connections closed."},
	{G_NODE, 12, GAUGE | LUSTRE, "lustre_allocated", "Messages allocated now."},
	{G_NODE, 13, GAUGE | LUSTRE, "lustre_maximum", "The most messages allocated at once."},
	{G_NODE, 14, COUNTER, "lnet_test_puts_served_total",
	 "PUTs the traffic generator's test service took."},
	{G_NODE, 15, COUNTER, "lnet_test_gets_served_total",
	 "GETs the traffic generator's test service answered."},
	{G_NODE, 16, COUNTER, "lnet_discovery_rounds_started_total",
	 "Discovery rounds started (a ping, and a push to a Multi-Rail peer)."},
	{G_NODE, 17, COUNTER, "lnet_discovery_rounds_done_total",
	 "Discovery rounds that learnt their peer's NIDs."},
	{G_NODE, 18, COUNTER, "lnet_discovery_rounds_failed_total",
	 "Discovery rounds that failed."},
	{G_NODE, 19, COUNTER, "lnet_discovery_waited_messages_total",
	 "Messages that waited for their peer's discovery."},
	{G_NODE, 20, COUNTER, "lnet_resends_total", "Messages sent again after a failure."},
	{G_NODE, 21, COUNTER, "lnet_resends_failed_total",
	 "Messages that failed after their last resend (retry_count)."},
	{G_NODE, 22, COUNTER, "lnet_resends_succeeded_total", "Messages a resend delivered."},
	{G_NODE, 23, COUNTER, "lnet_response_timeouts_total",
	 "ACKs and REPLYs that did not come in time (response_tracking)."},
	{G_NODE, 24, COUNTER, "lnet_recovery_pings_total",
	 "Recovery pings sent to unhealthy NIs and peer NIs."},
	{G_FAULT, 0, COUNTER, "lnet_peer_faults_total",
	 "Connections closed for what a peer sent, by kind of fault."},
	{G_NIH, 0, GAUGE, "lnet_ni_health", "A local NI's health, 0 to 1000 (healthiest)."},
	{G_NIH, 1, GAUGE, "lnet_ni_up", "Whether a local NI's link is up."},
	{G_PNIH, 0, GAUGE, "lnet_peer_ni_health", "A peer NI's health, 0 to 1000 (healthiest)."},
	{G_QUEUE, 0, GAUGE, "lnet_tbf_classes", "Classes an NRS TBF queue holds."},
	{G_RULE, 0, GAUGE, "lnet_tbf_rule_rate", "An NRS TBF rule's rate, requests per second."},
	{G_RULE, 1, GAUGE, "lnet_tbf_rule_classes", "Classes following an NRS TBF rule."},
	{G_RULE, 2, GAUGE, "lnet_tbf_rule_queued", "Requests queued now in a rule's classes."},
	{G_RULE, 3, COUNTER, "lnet_tbf_rule_enqueued_total", "Requests a rule's classes took."},
	{G_RULE, 4, COUNTER, "lnet_tbf_rule_dispatched_total",
	 "Requests dispatched from a rule's classes."},
	{G_RULE, 5, COUNTER, "lnet_tbf_rule_throttled_total",
	 "Requests that reached their class's head with no token, under a rule."},
	{G_RULE, 6, SECONDS, "lnet_tbf_rule_wait_seconds_total",
	 "Time dispatched requests of a rule's classes waited."},
	{G_CLASS, 0, GAUGE, "lnet_tbf_class_queued", "Requests queued now in an NRS TBF class."},
	{G_CLASS, 1, COUNTER, "lnet_tbf_class_enqueued_total", "Requests a class took."},
	{G_CLASS, 2, COUNTER, "lnet_tbf_class_dispatched_total",
	 "Requests dispatched from a class."},
	{G_CLASS, 3, COUNTER, "lnet_tbf_class_throttled_total",
	 "Requests that reached a class's head with no token."},
	{G_CLASS, 4, SECONDS, "lnet_tbf_class_wait_seconds_total",
	 "Time dispatched requests of a class waited."},
};

int lnetd_metrics_render(struct lnetd *d, struct mx *m, bool peers)
{
	struct collect c = {.d = d, .peers = peers};
	size_t f, i;
	int rc;

	/* An engine that is not there now leaves its parts out. */
	rc = collect_config(&c);
	if (!rc)
		rc = collect_counters(&c);
	if (!rc)
		rc = collect_health(&c);
	if (!rc)
		rc = collect_tbf(&c);
	for (f = 0; !rc && f < sizeof(families) / sizeof(families[0]); f++) {
		const struct family *fa = &families[f];
		const struct rows *rs = &c.g[fa->g];
		int how = fa->how & HOW;

		if (!rs->n)
			continue;
		mx_family(m, fa->name, how == COUNTER || how == SECONDS ? "counter" : "gauge",
			  fa->help);
		for (i = 0; i < rs->n; i++) {
			const char *const *lab = fa->how & LUSTRE
							 ? lustre_labels
							 : (const char *const *)rs->r[i].lab;

			if (how == SECONDS)
				mx_seconds(m, lab, rs->r[i].v[fa->col]);
			else
				mx_u64(m, lab, how == ONE ? 1 : rs->r[i].v[fa->col]);
		}
	}
	collect_free(&c);
	return rc < 0 ? rc : rc ? -EIO : m->err;
}

/* --- the file --------------------------------------------------------------------- */

struct lnetd_metrics {
	char *path, *tmp;
	uint64_t interval_us;
	bool peers;	  /* --metrics-peers */
	uint64_t writes;  /* files written (the one being written counts) */
	uint64_t last_us; /* when the last write ended (CLOCK_MONOTONIC) */
	uint64_t gap_us;  /* the least time from one write to the next */
	sd_event_source *timer;
	bool failing; /* the last write failed (said once) */
};

static struct lnetd_metrics *metrics; /* one lnetd, one file */

static uint64_t clock_us(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static int write_file(struct lnetd *d, struct lnetd_metrics *mt)
{
	uint64_t cpu = clock_us(CLOCK_THREAD_CPUTIME_ID);
	struct mx m = {0};
	size_t off = 0;
	ssize_t w;
	int fd, rc;

	rc = lnetd_metrics_render(d, &m, mt->peers);
	if (rc)
		goto out;
	mx_family(&m, "lnetd_metrics_writes_total", "counter",
		  "Times lnetd wrote this file, this time included.");
	mx_u64(&m, NULL, mt->writes + 1);
	rc = m.err;
	if (rc)
		goto out;
	fd = open(mt->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0) {
		rc = -errno;
		goto out;
	}
	/* node_exporter reads it as a user of its own; lnetd's umask is 0077. */
	if (fchmod(fd, 0644))
		rc = -errno;
	while (!rc && off < m.len) {
		w = write(fd, m.buf + off, m.len - off);
		if (w < 0 && errno != EINTR)
			rc = -errno;
		else if (w > 0)
			off += (size_t)w;
	}
	if (close(fd) && !rc)
		rc = -errno;
	if (!rc && rename(mt->tmp, mt->path))
		rc = -errno;
	if (rc)
		unlink(mt->tmp);
	else
		mt->writes++;
out:
	mx_free(&m);
	/* The next write waits 20 times what this one cost, 1 s at least. */
	cpu = clock_us(CLOCK_THREAD_CPUTIME_ID) - cpu;
	mt->gap_us = 20 * cpu > LNETD_METRICS_GAP_MS * 1000u ? 20 * cpu
							     : LNETD_METRICS_GAP_MS * 1000u;
	mt->last_us = clock_us(CLOCK_MONOTONIC);
	return rc;
}

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct lnetd *d = userdata;
	int rc = write_file(d, metrics);

	(void)usec;
	if (rc && !metrics->failing)
		log_warning("--metrics-file: cannot write %s: %s (trying again every %llu s)",
			    metrics->path, strerror(-rc),
			    (unsigned long long)(metrics->interval_us / 1000000u));
	else if (!rc && metrics->failing)
		log_notice("--metrics-file: %s is written again", metrics->path);
	metrics->failing = rc != 0;
	sd_event_source_set_time(s, metrics->last_us + (metrics->interval_us > metrics->gap_us
								? metrics->interval_us
								: metrics->gap_us));
	return sd_event_source_set_enabled(s, SD_EVENT_ON);
}

int lnetd_metrics_start(struct lnetd *d, const char *path, unsigned int interval_s, bool peers)
{
	struct lnetd_metrics *mt = calloc(1, sizeof(*mt));
	int rc = -ENOMEM;

	if (!mt || asprintf(&mt->tmp, "%s.tmp", path) < 0 || !(mt->path = strdup(path)))
		goto fail;
	mt->interval_us = (uint64_t)interval_s * 1000000u;
	mt->peers = peers;
	rc = write_file(d, mt);
	if (rc) {
		log_error("--metrics-file: cannot write %s: %s", path, strerror(-rc));
		goto fail;
	}
	rc = sd_event_add_time(d->event, &mt->timer, CLOCK_MONOTONIC,
			       mt->last_us + (mt->interval_us > mt->gap_us ? mt->interval_us
									   : mt->gap_us),
			       0, on_timer, d);
	if (rc < 0)
		goto fail;
	metrics = mt;
	return 0;
fail:
	if (mt) {
		free(mt->path);
		free(mt->tmp);
	}
	free(mt);
	return rc;
}

void lnetd_metrics_soon(struct lnetd *d)
{
	uint64_t when, now, due;

	(void)d;
	if (!metrics ||
	    sd_event_now(sd_event_source_get_event(metrics->timer), CLOCK_MONOTONIC, &now) < 0)
		return;
	/* Within 100 ms, so a burst of changes writes it once, and a gap after the last write. */
	due = now + 100000;
	if (due < metrics->last_us + metrics->gap_us)
		due = metrics->last_us + metrics->gap_us;
	if (sd_event_source_get_time(metrics->timer, &when) >= 0 && when > due)
		sd_event_source_set_time(metrics->timer, due);
}

void lnetd_metrics_stop(struct lnetd *d)
{
	(void)d;
	if (!metrics)
		return;
	sd_event_source_disable_unref(metrics->timer);
	unlink(metrics->path);
	free(metrics->path);
	free(metrics->tmp);
	free(metrics);
	metrics = NULL;
}
