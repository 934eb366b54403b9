// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz-lustre.c - what lnet.ko answers, as hostile input: the lnet.ko
 * library's readers of its replies (lnetd/backend/lustre/).
 *
 * Byte 0 picks the reader, the rest is the reply:
 *   0  a UDSP rule's descriptors (GET_UDSP's bulk): lu_udsp_decode(); what
 *      it accepts must be text the engine's grammar reads
 *   1  a peer's NIDs (GET_PEER_NI's bulk), byte 1 its count: lu_peer_parse_bulk()
 *   2  a generic netlink dump (key table, then values): lu_yaml_feed()
 * Any crash, sanitizer report or abort() is a finding.
 */
#include "lnetd/backend/lustre/lu-int.h"
#include "lnetd/backend/lustre/lu-yaml.h"

static void must_parse(const char *s)
{
	struct lne_expr *e;
	struct lne_err err;

	if (!*s)
		return;
	if (lne_expr_parse(s, &e, &err))
		abort(); /* the decoder wrote what the engine cannot read */
	lne_expr_free(e);
}

static int count_cb(const struct lu_ymap *m, void *arg)
{
	size_t *n = arg;

	*n += m->n;
	return 0;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);
int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct lu_rule r;
	struct lu_peer p;

	if (size < 1)
		return 0;
	switch (data[0] % 3) {
	case 0:
		if (!lu_udsp_decode(data + 1, size - 1, &r)) {
			must_parse(r.src);
			must_parse(r.dst);
			must_parse(r.rte);
		}
		break;
	case 1:
		if (size < 2)
			break;
		if (!lu_peer_parse_bulk(data + 2, size - 2, data[1], &p)) {
			if (p.n > (size - 2) / LU_PNI_ENTRY)
				abort();
			lu_peer_free(&p);
		}
		break;
	case 2: {
		struct lu_ydump d;
		size_t n = 0, off = 1;

		lu_ydump_init(&d, count_cb, &n);
		/* messages: a length byte pair, a flags byte, then the payload */
		while (off + 3 <= size) {
			size_t len = data[off] | (size_t)data[off + 1] << 8;
			u16 flags = data[off + 2] & 1 ? NLM_F_CREATE : 0;

			off += 3;
			if (len > size - off)
				len = size - off;
			lu_ydump_feed(&d, data + off, len, flags);
			off += len;
		}
		lu_ydump_free(&d);
		break;
	}
	}
	return 0;
}
