// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-conf.c - lnetctl import and export: lnet.conf YAML in and out, as one
 * atomic change through lnetd's Apply and one consistent Export.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "conf-int.h"
#include "engine/nid.h"
#include "engine/tunables.h"
#include "lnetctl.h"
#include "progress.h"
#include "yout.h"

/*
 * The whole of @path ("-" or NULL: stdin), or EXIT_FILE after saying why.
 * No more than CF_MAX_BYTES + 1 bytes are read: a longer file (or an
 * endless stdin) is refused as soon as it is known to be longer.
 */
static int slurp(const char *path, char **text, size_t *len)
{
	FILE *f = path && strcmp(path, "-") ? fopen(path, "r") : stdin;
	size_t cap = 65536, n;
	char *buf, *grown;
	bool big = false;
	struct stat st;

	*text = NULL;
	/* upstream's own words and layout for a file it cannot read */
	ctl_err_as(true, "yaml", "builder");
	if (!f)
		return ctl_fail_errno(EXIT_FILE, -errno, "cannot open '%s': %s", path,
				      strerror(errno));
	/* A file's size, when it has one, is the first guess: no growing, no copies. */
	if (!fstat(fileno(f), &st) && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (uint64_t)st.st_size < CF_MAX_BYTES)
		cap = (size_t)st.st_size + 1;
	buf = malloc(cap);
	*len = 0;
	errno = 0;
	while (buf && (n = fread(buf + *len, 1, cap - *len, f)) > 0) {
		*len += n;
		if (*len > CF_MAX_BYTES) {
			big = true;
			break;
		}
		if (*len == cap) {
			cap = cap * 2 > CF_MAX_BYTES + 1 ? CF_MAX_BYTES + 1 : cap * 2;
			grown = realloc(buf, cap);
			if (!grown) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = grown;
		}
	}
	if (buf && (big || ferror(f))) {
		int e = errno ? errno : EIO; /* EISDIR for a directory, say */

		free(buf);
		buf = NULL;
		errno = e;
	} else if (!buf && !errno) {
		errno = ENOMEM;
	}
	if (f != stdin)
		fclose(f);
	if (big)
		return ctl_fail_errno(EXIT_FILE, -EFBIG,
				      "%s: larger than %u bytes (%u MiB), the limit for lnet.conf",
				      path ?: "stdin", CF_MAX_BYTES, CF_MAX_BYTES >> 20);
	if (!buf)
		return ctl_fail_errno(EXIT_FILE, -errno, "cannot read '%s': %s", path ?: "stdin",
				      strerror(errno));
	ctl_err_as(false, NULL, NULL);
	*text = buf;
	return 0;
}

/* A "del udsp" op by idx, and where it was: the sort's key and tie-break. */
struct udsp_del {
	uint32_t idx;
	size_t pos;
	struct cf_op op;
};

static int udsp_del_cmp(const void *a, const void *b)
{
	const struct udsp_del *x = a, *y = b;

	if (x->idx != y->idx)
		return x->idx < y->idx ? 1 : -1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/*
 * Put @doc's "del udsp" ops that name an idx in the places they hold, highest
 * idx first (equal ones in file order); every other op stays where it is.
 * One sort: n log n, not a pass over every pair of ops.
 */
static int sort_udsp_dels(struct cf_doc *doc)
{
	struct udsp_del *v;
	size_t i, n = 0;
	uint32_t idx;

	v = malloc((doc->nop ?: 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < doc->nop; i++) {
		const struct cf_op *op = &doc->op[i];

		if (!strcmp(op->verb, "del") && !strcmp(op->obj, "udsp") &&
		    cf_op_get_u32(op, "idx", &idx))
			v[n++] = (struct udsp_del){.idx = idx, .pos = i, .op = *op};
	}
	if (n > 1) {
		size_t *pos = malloc(n * sizeof(*pos));

		if (!pos) {
			free(v);
			return -ENOMEM;
		}
		for (i = 0; i < n; i++)
			pos[i] = v[i].pos;
		qsort(v, n, sizeof(*v), udsp_del_cmp);
		for (i = 0; i < n; i++)
			doc->op[pos[i]] = v[i].op;
		free(pos);
	}
	free(v);
	return 0;
}

/*
 * What lnetd takes literally, from what lnet.conf may say in ranges: a
 * peer's NIDs and a route's gateway may be NID ranges (10.0.0.[2-4]@tcp),
 * expanded here as lnetctl's peer add does; a route through a range is a
 * route through each gateway.  Deleting rules by idx goes from the highest
 * down, so that each delete leaves the others' indexes alone.
 */
static bool names_range(const char *s)
{
	return strpbrk(s, "[],") || strlen(s) >= 256;
}

/* Whether ctl_nids_expand() would make anything but the op's own NIDs of it. */
static bool op_has_range(const struct cf_op *op)
{
	const char *gw = cf_op_get_str(op, "gateway");
	char *const *nids;
	size_t n, k;

	if (!strcmp(op->obj, "route"))
		return gw && strchr(gw, '[');
	if (strcmp(op->obj, "peer") || !(nids = cf_op_get_strv(op, "nids", &n)))
		return false;
	for (k = 0; k < n; k++)
		if (names_range(nids[k]))
			return true;
	return false;
}

static int import_prepare(struct cf_doc *doc, const char *fname)
{
	struct cf_doc out = {0};
	size_t i, k, n;
	int rc = 0;

	/* A file without ranges (an export, say) keeps its ops as they are. */
	for (i = 0; i < doc->nop && !op_has_range(&doc->op[i]); i++)
		;
	if (i == doc->nop)
		return sort_udsp_dels(doc) ? ctl_fail(EXIT_REFUSED, "out of memory") : 0;
	for (i = 0; !rc && i < doc->nop; i++) {
		struct cf_op *op = &doc->op[i];
		const char *gw = cf_op_get_str(op, "gateway");
		char *const *nids = cf_op_get_strv(op, "nids", &n);
		char **all = NULL, what[300];
		size_t nall = 0;

		snprintf(what, sizeof(what), "%s:%d:%d: %s", fname, op->line, op->col,
			 nids ? "nids" : "gateway");
		if (!strcmp(op->obj, "peer") && nids) {
			char **grown;

			all = calloc(1, sizeof(*all));
			for (k = 0; all && !rc && k < n; k++) {
				char **one = NULL;
				size_t none = 0, j;

				rc = ctl_nids_expand(nids[k], what, &one, &none);
				grown = rc ? NULL : realloc(all, (nall + none + 1) * sizeof(*all));
				if (grown) {
					all = grown;
					for (j = 0; j < none; j++)
						all[nall++] = one[j];
					all[nall] = NULL;
					free(one);
				} else {
					ctl_strv_free(one);
					rc = rc ?: ctl_fail(EXIT_REFUSED, "out of memory");
				}
			}
			if (!rc &&
			    (!all || cf_op_set_strv(op, "nids", (const char *const *)all, nall)))
				rc = ctl_fail(EXIT_REFUSED, "out of memory");
			ctl_strv_free(all);
		} else if (!strcmp(op->obj, "route") && gw && strchr(gw, '[')) {
			rc = ctl_nids_expand(gw, what, &all, &nall);
			for (k = 0; !rc && k < nall; k++) {
				struct cf_op *copy = cf_op_new(op->verb, op->obj);
				size_t f;

				for (f = 0; copy && f < op->nf; f++) {
					const struct cf_field *fl = &op->f[f];
					int e = !strcmp(fl->key, "gateway")
							? cf_op_set_str(copy, "gateway", all[k])
						: fl->val.type == CF_U32
							? cf_op_set_u32(copy, fl->key, fl->val.u)
							: cf_op_set_str(copy, fl->key, fl->val.s);

					if (e) {
						cf_op_free(copy);
						copy = NULL;
					}
				}
				if (copy) {
					copy->line = op->line;
					copy->col = op->col;
				}
				if (!copy || cf_doc_push(&out, copy))
					rc = ctl_fail(EXIT_REFUSED, "out of memory");
			}
			ctl_strv_free(all);
			continue; /* replaced by its copies */
		}
		if (!rc) {
			/* Move the op as is: @doc gives it up (a zeroed op frees nothing). */
			struct cf_op *moved = malloc(sizeof(*moved));

			if (moved) {
				*moved = *op;
				memset(op, 0, sizeof(*op));
			}
			if (!moved || cf_doc_push(&out, moved))
				rc = ctl_fail(EXIT_REFUSED, "out of memory");
		}
	}
	if (rc) {
		cf_doc_free(&out);
		return rc;
	}
	/* Rules by idx, highest first (they are the only ops that renumber others). */
	rc = sort_udsp_dels(&out);
	if (rc) {
		cf_doc_free(&out);
		return ctl_fail(EXIT_REFUSED, "out of memory");
	}
	out.warning = doc->warning;
	out.nwarning = doc->nwarning;
	doc->warning = NULL;
	doc->nwarning = 0;
	cf_doc_free(doc);
	*doc = out;
	return 0;
}

/* Both NULL, or the same text. */
static bool same_str(const char *a, const char *b)
{
	return a && b ? !strcmp(a, b) : a == b;
}

/* Push "FILE:LINE:COL: ..." onto @doc's warnings; 0 or -ENOMEM. */
static int doc_warn(struct cf_doc *doc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int doc_warn(struct cf_doc *doc, const char *fmt, ...)
{
	char **grown = realloc(doc->warning, (doc->nwarning + 1) * sizeof(*grown));
	va_list ap;
	int rc;

	if (!grown)
		return -ENOMEM;
	doc->warning = grown;
	va_start(ap, fmt);
	rc = vasprintf(&doc->warning[doc->nwarning], fmt, ap);
	va_end(ap);
	if (rc < 0)
		return -ENOMEM;
	doc->nwarning++;
	return 0;
}

/*
 * A net's tunables ("tunables:": peer_timeout, peer_credits,
 * peer_buffer_credits, credits) are the net's in Lustre, set by its first
 * NI: a later NI of the net takes the first one's, and one that gives
 * others gets a warning ("All tunables of NIs of a net should be the same",
 * sanity-lnet 170, as Lustre's import --old-api does), while its "lnd
 * tunables" stay its own.  Done on the file, before anything is compared or sent, so that an
 * import --replace of the same file changes nothing the second time.
 */
static int align_net_tunables(struct cf_doc *doc, const char *fname)
{
	size_t i, j;
	int k;

	for (i = 0; i < doc->nop; i++) {
		struct cf_op *op = &doc->op[i], *first = NULL;
		char net[LNE_NET_STR_MAX], net0[LNE_NET_STR_MAX];
		bool differ = false;
		lne_net_t id;

		if (strcmp(op->obj, "net") || strcmp(op->verb, "add") ||
		    lne_net_parse(cf_op_get_str(op, "net") ?: "", &id, NULL))
			continue;
		lne_net_format(id, net, sizeof(net));
		for (j = 0; j < i; j++) {
			const struct cf_op *o = &doc->op[j];

			if (strcmp(o->obj, "net") || strcmp(o->verb, "add") ||
			    lne_net_parse(cf_op_get_str(o, "net") ?: "", &id, NULL))
				continue;
			lne_net_format(id, net0, sizeof(net0));
			if (strcmp(net0, net))
				continue;
			if (!first)
				first = &doc->op[j];
			/* the same NI again is lnetd's to judge (refused if it differs) */
			if (same_str(cf_op_get_str(o, "interface"),
				     cf_op_get_str(op, "interface")) &&
			    same_str(cf_op_get_str(o, "pattern"), cf_op_get_str(op, "pattern"))) {
				first = NULL;
				break;
			}
		}
		for (k = 0; first && k < LNE_TUN__COUNT; k++) {
			const struct cf_val *want = cf_op_get(first, lne_tun_desc[k].name),
					    *have = cf_op_get(op, lne_tun_desc[k].name);

			if (lne_tun_desc[k].section != LNE_TUN_NET || (!want && !have) ||
			    (want && have && cf_val_equal(want, have)))
				continue;
			differ |= have != NULL; /* its own values go: say so */
			if (!want)
				cf_op_unset(op, lne_tun_desc[k].name);
			else if (cf_op_set_u32(op, lne_tun_desc[k].name, want->u))
				return -ENOMEM;
		}
		if (differ &&
		    doc_warn(doc,
			     "%s:%d:%d: the NI of %s on %s has tunables of its own: all NIs of a net "
			     "have the net's, its first NI's (%s:%d:%d), as in Lustre; its lnd "
			     "tunables are its own",
			     fname, op->line, op->col, net,
			     cf_op_get_str(op, "interface") ?: cf_op_get_str(op, "pattern") ?: "?",
			     fname, first->line, first->col))
			return -ENOMEM;
	}
	return 0;
}

/*
 * --replace: what lnetd has now (Export, at a generation), the ops that make
 * it the file's, applied only at that generation: one change, or none.
 */
static int import_replace(sd_bus *bus, const struct cf_doc *doc, bool dry, char ***changes,
			  const char *fname)
{
	struct cf_doc have = {0}, diff = {0};
	uint64_t at = 0, gen;
	int rc;

	ctl_progress("reading lnetd's configuration");
	rc = ctl_export(bus, &have, &at);
	if (rc)
		return rc;
	ctl_progress("working out the change from %zu objects to %zu", have.nop, doc->nop);
	rc = cf_replace(doc, &have, &diff);
	cf_doc_free(&have);
	if (rc)
		return ctl_fail(EXIT_REFUSED, "out of memory");
	rc = ctl_apply_at(bus, &diff, dry, at, &gen, changes, fname);
	cf_doc_free(&diff);
	return rc;
}

static int import(struct ctl_opt *opt, int argc, char **argv)
{
	bool del = ctl_opt(opt, "del")->given, show = ctl_opt(opt, "show")->given,
	     dry = ctl_opt(opt, "dry-run")->given, replace = ctl_opt(opt, "replace")->given,
	     if_empty = ctl_opt(opt, "if-empty")->given;
	const char *path = argc ? argv[0] : NULL, *fname = path && strcmp(path, "-") ? path : "-";
	struct cf_doc doc = {0};
	char err[512], *text = NULL, **changes = NULL, **c;
	sd_bus *bus = NULL;
	size_t len = 0, i;
	uint64_t gen = 0;
	int rc;

	if (del + show + replace + ctl_opt(opt, "add")->given > 1)
		return ctl_usage("--add, --del, --replace and --show go alone");
	if (if_empty && (del || show || replace))
		return ctl_usage("--if-empty adds: not with --del, --replace or --show");
	if (ctl_opt(opt, "progress")->given && ctl_opt(opt, "no-progress")->given)
		return ctl_usage("--progress and --no-progress go alone");
	ctl_progress_start(show					? CTL_PROGRESS_OFF
			   : ctl_opt(opt, "progress")->given	? CTL_PROGRESS_ON
			   : ctl_opt(opt, "no-progress")->given ? CTL_PROGRESS_OFF
								: CTL_PROGRESS_AUTO);
	ctl_progress("reading %s", path && strcmp(path, "-") ? path : "standard input");
	rc = slurp(path, &text, &len);
	if (!rc && del)
		ctl_err_as(false, "del", "import");
	if (!rc)
		ctl_progress("parsing %zu bytes", len);
	if (!rc)
		rc = cf_parse(text, len, fname, del ? CF_DEL : CF_ADD, &doc, err, sizeof(err));
	free(text);
	if (rc)
		return rc > 0 ? rc
			      : ctl_fail(EXIT_FILE, "%s", rc == -ENOMEM ? "out of memory" : err);
	ctl_progress("expanding %zu objects", doc.nop);
	rc = import_prepare(&doc, fname);
	if (!rc && !del && align_net_tunables(&doc, fname))
		rc = ctl_fail(EXIT_REFUSED, "out of memory");
	if (rc) {
		cf_doc_free(&doc);
		return rc;
	}
	ctl_progress_clear();
	for (i = 0; i < doc.nwarning; i++)
		fprintf(stderr, "lnetctl import: warning: %s\n", doc.warning[i]);
	if (show) {
		/* What the file says, as lnetctl reads it (the form export writes). */
		rc = cf_emit(stdout, &doc, 0);
		cf_doc_free(&doc);
		return rc ? ctl_fail(EXIT_FILE, "cannot print the file: %s", strerror(-rc)) : 0;
	}
	ctl_if_empty = if_empty;
	rc = ctl_bus(&bus);
	if (!rc && replace)
		rc = import_replace(bus, &doc, dry, &changes, fname);
	else if (!rc)
		rc = ctl_apply(bus, &doc, dry, false, &gen, &changes, fname);
	if (!rc && if_empty && changes && !strncmp(*changes, "!not empty", 10)) {
		/* said on stdout, as lnetd-lustre.service's first start logs it */
		ctl_progress_clear();
		printf("not imported: %s: lnetd's configuration is not empty (generation %" PRIu64
		       "); nothing was changed\n",
		       fname, gen);
		goto out;
	}
	if (!rc)
		ctl_progress_end("%s %zu objects", dry ? "judged" : "applied", doc.nop);
	if (!rc && if_empty && !dry)
		printf("imported: %s: %zu objects, generation %" PRIu64 "\n", fname, doc.nop, gen);
	if (!rc && dry) {
		struct yout *y = yout_begin(stdout);

		yout_map_begin(y);
		yout_key(y, "dry run");
		yout_map_begin(y);
		yout_key(y, "objects");
		yout_u64(y, doc.nop);
		/* what would change, counted: a site's --replace lists 50,000 lines */
		{
			static const char *const kind[] = {"added", "deleted", "changed"};
			uint64_t count[3] = {0};

			for (c = changes; c && *c; c++)
				if (strchr("+-~", **c))
					count[strchr("+-~", **c) - "+-~"]++;
			yout_key(y, "summary");
			yout_map_begin(y);
			for (i = 0; i < 3; i++) {
				yout_key(y, kind[i]);
				yout_u64(y, count[i]);
			}
			yout_map_end(y);
		}
		yout_key(y, "changes");
		yout_seq_begin(y);
		for (c = changes; c && *c; c++)
			if (**c != '!')
				yout_str(y, *c);
		yout_seq_end(y);
		/* lnetd's notes: the ip2nets NIs that would match no interface now. */
		for (c = changes; c && *c && **c != '!'; c++)
			;
		if (c && *c) {
			yout_key(y, "pending");
			yout_seq_begin(y);
			for (; *c; c++)
				if (**c == '!')
					yout_str(y, *c + 1);
			yout_seq_end(y);
		}
		yout_map_end(y);
		yout_map_end(y);
		if (yout_end(y))
			rc = ctl_fail(EXIT_REFUSED, "cannot print the changes");
	}
out:
	ctl_strv_free(changes);
	cf_doc_free(&doc);
	sd_bus_flush_close_unref(bus);
	return rc;
}

/*
 * Every global lnetd has that @doc does not set, at its current value:
 * Lustre's export --backup always carries the globals, so that importing
 * it restores them (an empty configuration's backup is the defaults).
 */
static int add_all_globals(sd_bus *bus, struct cf_doc *doc)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *r = NULL;
	const char *name;
	uint32_t v;
	size_t i;
	int rc;

	rc = ctl_call(bus, "ListGlobals", &r, NULL);
	if (rc)
		return rc;
	rc = sd_bus_message_enter_container(r, 'a', "(su)");
	while (rc >= 0 && (rc = sd_bus_message_read(r, "(su)", &name, &v)) > 0) {
		struct cf_op *op;
		bool have = false;

		for (i = 0; i < doc->nop && !have; i++)
			have = !strcmp(doc->op[i].obj, "global") &&
			       !strcmp(cf_op_get_str(&doc->op[i], "name"), name);
		if (have || cf_global_by_name(name) < 0)
			continue;
		op = cf_op_new("set", "global");
		if (!op || cf_op_set_str(op, "name", name) || cf_op_set_u32(op, "value", v) ||
		    cf_doc_push(doc, op)) {
			cf_op_free(op);
			rc = -ENOMEM;
		}
	}
	return rc < 0 ? ctl_fail(EXIT_REFUSED, "cannot read the globals: %s", strerror(-rc)) : 0;
}

/*
 * Every NI's tunables, those left to the LND's default written out at that
 * value: Lustre's export --backup carries them all.  Importing the backup
 * changes nothing (equal values are equal settings).
 */
static int add_all_tunables(struct cf_doc *doc)
{
	struct lne_tunables tun;
	struct lne_err err;
	lne_net_t net;
	uint32_t u;
	size_t i;
	int k;

	for (i = 0; i < doc->nop; i++) {
		struct cf_op *op = &doc->op[i];

		if (strcmp(op->verb, "add") || strcmp(op->obj, "net") ||
		    lne_net_parse(cf_op_get_str(op, "net") ?: "", &net, &err))
			continue;
		lne_tunables_default(LNE_NET_LND(net), &tun);
		for (k = 0; k < LNE_TUN__COUNT; k++)
			if (!(lne_tun_desc[k].flags & LNE_TUN_F_SHOWN) &&
			    !cf_op_get_u32(op, lne_tun_desc[k].name, &u) &&
			    cf_op_set_u32(op, lne_tun_desc[k].name, tun.v[k]))
				return ctl_fail(EXIT_REFUSED, "out of memory");
	}
	return 0;
}

/* The net add op of @doc for this ListNIs row, if it has no CPTs of its own. */
static struct cf_op *ni_op_of(struct cf_doc *doc, const char *net, const char *ifname,
			      const char *pattern)
{
	size_t i;

	for (i = 0; i < doc->nop; i++) {
		struct cf_op *op = &doc->op[i];
		const char *oif = cf_op_get_str(op, "interface") ?: "";
		const char *opat = cf_op_get_str(op, "pattern") ?: "";

		if (!strcmp(op->verb, "add") && !strcmp(op->obj, "net") &&
		    !strcmp(cf_op_get_str(op, "net") ?: "", net) && !strcmp(oif, ifname) &&
		    !strcmp(opat, pattern ?: "") && !cf_op_get_str(op, "cpts"))
			return op;
	}
	return NULL;
}

/*
 * Every NI's CPTs, those of an NI without its own written out as the CPTs
 * it runs on (ListNIs' cpts_in_effect): Lustre's export --backup carries
 * them all, and lnetd takes a list of every CPT as no restriction.
 */
struct ni_cpts {
	const char *pattern, *eff;
};

static const struct ctl_key ni_cpts_keys[] = {
	CTL_KEY("pattern", 's', struct ni_cpts, pattern),
	CTL_KEY("cpts_in_effect", 's', struct ni_cpts, eff),
	{NULL},
};

static int add_all_cpts(sd_bus *bus, struct cf_doc *doc)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *r = NULL;
	const char *net, *ifname, *state;
	int rc = ctl_call(bus, "ListNIs", &r, NULL);

	if (rc)
		return rc;
	rc = sd_bus_message_enter_container(r, 'a', "(sssa{sv})");
	while (rc >= 0 && (rc = sd_bus_message_enter_container(r, 'r', "sssa{sv}")) > 0) {
		struct ni_cpts c = {NULL, NULL};
		struct cf_op *op;

		rc = sd_bus_message_read(r, "sss", &net, &ifname, &state);
		if (rc >= 0)
			rc = ctl_read_record(r, ni_cpts_keys, &c);
		if (rc >= 0)
			rc = sd_bus_message_exit_container(r);
		op = rc >= 0 && c.eff ? ni_op_of(doc, net, ifname, c.pattern) : NULL;
		if (op && cf_op_set_str(op, "cpts", c.eff))
			rc = -ENOMEM;
	}
	if (rc >= 0)
		rc = sd_bus_message_exit_container(r);
	return rc < 0 ? ctl_fail(EXIT_REFUSED, "cannot read the NIs: %s", strerror(-rc)) : 0;
}

/*
 * Whether @doc routes through a gateway: lnetd makes a peer for a gateway
 * no configured peer has, and deletes it with the gateway's last route, so
 * without a route there is none, and no call to list every peer for them.
 */
static bool has_routes(const struct cf_doc *doc)
{
	size_t i;

	for (i = 0; i < doc->nop; i++)
		if (!strcmp(doc->op[i].obj, "route"))
			return true;
	return false;
}

/* A NID's net: its text after the last '@' (lnetd's NIDs are canonical). */
static const char *nid_net(const char *nid)
{
	const char *at = strrchr(nid, '@');

	return at ? at + 1 : "";
}

/*
 * Each peer's NIDs as lnetd's model (and Lustre) lists them, whatever the
 * order a store written by an older lnetd kept: by net, the primary's
 * first, then the nets in the order they come, each net's in its order.
 */
static int peer_nids_by_net(struct cf_doc *doc)
{
	size_t i, n, k, j, out;

	for (i = 0; i < doc->nop; i++) {
		struct cf_op *op = &doc->op[i];
		const char *prim = cf_op_get_str(op, "primary");
		char **v = (char **)cf_op_get_strv(op, "nids", &n), **sorted;

		if (strcmp(op->obj, "peer") || !prim || !v || n < 2)
			continue;
		sorted = malloc(n * sizeof(*sorted));
		if (!sorted)
			return -ENOMEM;
		out = 0;
		/* the primary's net, then each net at its first NID not placed yet */
		for (k = 0; k <= n; k++) {
			const char *net = k == 0 ? nid_net(prim) : nid_net(v[k - 1]);
			bool placed = false;

			for (j = 0; k > 0 && j < out && !placed; j++)
				placed = !strcmp(nid_net(sorted[j]), net);
			for (j = 0; !placed && j < n; j++)
				if (!strcmp(nid_net(v[j]), net))
					sorted[out++] = v[j];
		}
		memcpy(v, sorted, n * sizeof(*v));
		free(sorted);
	}
	return 0;
}

static int export(struct ctl_opt *opt, int argc, char **argv)
{
	const char *path = argc ? argv[0] : NULL;
	struct cf_doc doc = {0};
	sd_bus *bus = NULL;
	uint64_t gen;
	FILE *out = stdout;
	int rc;

	rc = ctl_bus(&bus);
	if (!rc)
		rc = ctl_export(bus, &doc, &gen);
	if (!rc && has_routes(&doc))
		rc = ctl_gateway_peers(bus, &doc);
	if (!rc && ctl_opt(opt, "backup")->given)
		rc = add_all_globals(bus, &doc) ?: add_all_tunables(&doc) ?: add_all_cpts(bus, &doc);
	if (!rc && peer_nids_by_net(&doc))
		rc = ctl_fail(EXIT_REFUSED, "out of memory");
	sd_bus_flush_close_unref(bus);
	if (rc)
		return rc;
	if (path && strcmp(path, "-")) {
		out = fopen(path, "w");
		if (!out) {
			cf_doc_free(&doc);
			return ctl_fail(EXIT_FILE, "%s: %s", path, strerror(errno));
		}
	}
	rc = cf_emit(out, &doc, 0);
	if (out != stdout && fclose(out) && !rc)
		rc = -errno;
	cf_doc_free(&doc);
	return rc ? ctl_fail(EXIT_FILE, "%s: %s", path ?: "stdout", strerror(-rc)) : 0;
}

const struct ctl_cmd ctl_conf_cmds[] = {
	{"import",
	 "[--add | --del | --replace | --show] [--if-empty] [--dry-run] [--[no-]progress] [FILE]",
	 "Apply an lnet.conf YAML file (stdin without FILE) as one change.",
	 import,
	 {{"add", 0, NULL, "add what the file describes (the default)"},
	  {"del", 0, NULL, "delete what the file describes"},
	  {"replace", 0, NULL, "make the configuration exactly the file, as one change"},
	  {"if-empty", 0, NULL, "only if lnetd's configuration was never changed; say which"},
	  {"show", 0, NULL, "print the file as lnetctl reads it; change nothing"},
	  {"dry-run", 'n', NULL, "print what would change; change nothing"},
	  {"old-api", 0, NULL, "Lustre's ioctl path; lnetd has one path, so the same"},
	  {"progress", 0, NULL, "show what it is doing on stderr (the default on a terminal)"},
	  {"no-progress", 0, NULL, "do not, even on a terminal"}},
	 0,
	 1},
	{"export",
	 "[--backup] [FILE]",
	 "Write the configuration as lnet.conf YAML (stdout without FILE).",
	 export,
	 {{"backup", 'b', NULL, "what was configured, every NI tunable and every global"}},
	 0,
	 1},
	{0},
};
