// SPDX-License-Identifier: GPL-2.0
/*
 * nidcheck - the engine's NID grammar from the command line.
 *
 *   nidcheck nid TEXT...            print each NID in canonical form
 *   nidcheck expr TEXT...           print each expression in canonical form
 *   nidcheck match EXPR NID...      print which NIDs the expression matches
 *
 * Exit status: 0 all good, 1 some input was refused (the reason is on
 * stderr), 2 usage error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/expr.h"
#include "engine/nid.h"

static int usage(FILE *f, int rc)
{
	fprintf(f, "usage: nidcheck nid NID...\n"
		   "       nidcheck expr EXPR...\n"
		   "       nidcheck match EXPR NID...\n");
	return rc;
}

static int print_expr(const struct lne_expr *e)
{
	int n = lne_expr_format(e, NULL, 0);
	char *buf = malloc((size_t)n + 1);

	if (!buf)
		return 1;
	lne_expr_format(e, buf, (size_t)n + 1);
	puts(buf);
	free(buf);
	return 0;
}

static int parse_nid(const char *s, struct lne_nid *nid)
{
	struct lne_err err;

	if (!lne_nid_parse(s, nid, &err))
		return 0;
	fprintf(stderr, "nidcheck: %s\n", err.msg);
	return 1;
}

int main(int argc, char **argv)
{
	char buf[LNE_NID_STR_MAX];
	struct lne_expr *e = NULL;
	struct lne_err err;
	struct lne_nid nid;
	int i, rc = 0;

	if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))
		return usage(stdout, 0);
	if (argc < 3)
		return usage(stderr, 2);

	if (!strcmp(argv[1], "nid")) {
		for (i = 2; i < argc; i++) {
			if (parse_nid(argv[i], &nid)) {
				rc = 1;
				continue;
			}
			lne_nid_format(&nid, buf, sizeof(buf));
			puts(buf);
		}
	} else if (!strcmp(argv[1], "expr")) {
		for (i = 2; i < argc; i++) {
			if (lne_expr_parse(argv[i], &e, &err)) {
				fprintf(stderr, "nidcheck: %s\n", err.msg);
				rc = 1;
				continue;
			}
			rc |= print_expr(e);
			lne_expr_free(e);
		}
	} else if (!strcmp(argv[1], "match")) {
		if (lne_expr_parse(argv[2], &e, &err)) {
			fprintf(stderr, "nidcheck: %s\n", err.msg);
			return 1;
		}
		for (i = 3; i < argc; i++) {
			if (parse_nid(argv[i], &nid)) {
				rc = 1;
				continue;
			}
			lne_nid_format(&nid, buf, sizeof(buf));
			printf("%s: %s\n", buf, lne_expr_match_nid(e, &nid) ? "match" : "no match");
		}
		lne_expr_free(e);
	} else {
		return usage(stderr, 2);
	}
	return rc;
}
