// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the NID and expression grammars.
 *
 * Whatever the input, parsing must not crash, leak or read out of bounds;
 * every refusal must say why and where; and whatever parses must print to
 * text that parses back to the same thing and prints identically (the
 * canonical form is a fixed point).  The first input byte picks the
 * grammar, so one corpus serves both.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine/expr.h"
#include "engine/nid.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_nid(const char *s)
{
	char buf[LNE_NID_STR_MAX], again[LNE_NID_STR_MAX];
	struct lne_nid nid, back;
	struct lne_err err;

	if (lne_nid_parse(s, &nid, &err)) {
		if (!err.msg[0] || err.pos < 0 || err.pos > (int)strlen(s))
			abort();
		return;
	}
	/* Without '@', only an IP address on tcp (as Lustre's libcfs_strnid). */
	if (!strchr(s, '@') && (lne_nid_net(&nid) != LNE_MKNET(LNE_LND_TCP, 0)))
		abort();
	if (lne_nid_format(&nid, buf, sizeof(buf)) >= (int)sizeof(buf))
		abort();
	if (lne_nid_parse(buf, &back, NULL) || !lne_nid_equal(&nid, &back))
		abort();
	lne_nid_format(&back, again, sizeof(again));
	if (strcmp(buf, again))
		abort();
}

static void check_expr(const char *s)
{
	struct lne_expr *e, *back;
	struct lne_err err;
	char *buf, *again;
	int n;

	if (lne_expr_parse(s, &e, &err)) {
		if (!err.msg[0] || err.pos < 0 || err.pos > (int)strlen(s))
			abort();
		return;
	}
	n = lne_expr_format(e, NULL, 0);
	buf = malloc((size_t)n + 1);
	again = malloc((size_t)n + 1);
	if (!buf || !again)
		abort();
	lne_expr_format(e, buf, (size_t)n + 1);
	/* The canonical text may be longer than the input (CIDR becomes
	 * octet ranges), so past the length limit it cannot be re-parsed. */
	if (n <= LNE_EXPR_MAX_LEN) {
		if (lne_expr_parse(buf, &back, &err))
			abort();
		if (!lne_expr_equal(e, back) || lne_expr_format(back, again, (size_t)n + 1) != n ||
		    strcmp(buf, again))
			abort();
		lne_expr_free(back);
	}
	free(buf);
	free(again);
	lne_expr_free(e);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s;

	if (!size || size > LNE_EXPR_MAX_LEN + 16)
		return 0;
	s = malloc(size);
	if (!s)
		return 0;
	memcpy(s, data + 1, size - 1);
	s[size - 1] = '\0';
	if (data[0] & 1)
		check_expr(s);
	else
		check_nid(s);
	free(s);
	return 0;
}
