// SPDX-License-Identifier: GPL-2.0
/*
 * lu-udsp.c - UDSP rules over /dev/lnet, on every version (lnet.ko's genl
 * family has no op for them): ADD_UDSP, DEL_UDSP, GET_UDSP_SIZE then
 * GET_UDSP per index, and GET_CONST_UDSP_INFO.
 *
 *  - ADD carries the rule inline (header then descriptors, its length the
 *    request's); @idx inserts before the rule at that index, -1 appends; a
 *    rule equal to one there updates its priority, else -EALREADY.  Either
 *    way lnet.ko keeps the rule it was sent allocated for good (2.15 to
 *    2.17), which shows as "Objects remaining in lnet_udsp" and a kernel
 *    WARNING when LNet goes down: so a rule equal to one lnet.ko holds is
 *    never sent, it is refused here;
 *  - DEL of an index that is not there succeeds doing nothing; -1 deletes
 *    every rule;
 *  - GET writes the descriptors through the request's bulk pointer and
 *    wants the request's length plus the bulk's to be exactly the rule's
 *    size (-ENOSPC otherwise: a rule changed in between, ask again).
 */
#include "lu-int.h"

#define RULE_MAX 8192 /* one rule's request: three sides of at most 64 ranges each */

/* The rule lnet.ko holds with the same sides as @bulk: 0 and its index and priority, or -ENOENT. */
static int equal_held(struct lu *lu, const u8 *bulk, size_t len, u32 *idx, u32 *prio,
		      struct lne_err *err)
{
	struct lu_rule *mine = calloc(1, sizeof(*mine)), *rs = NULL;
	size_t n = 0, i;
	int rc;

	if (!mine)
		return lne_err_set(err, -ENOMEM, NULL, -1, "out of memory");
	rc = lu_udsp_decode(bulk, len, mine);
	if (!rc)
		rc = lu_rule_list(lu, &rs, &n, err);
	else
		rc = lne_err_set(err, rc, NULL, -1,
				 "the rule does not read back as it was written");
	for (i = 0; !rc && i < n; i++)
		if (!strcmp(rs[i].src, mine->src) && !strcmp(rs[i].dst, mine->dst) &&
		    !strcmp(rs[i].rte, mine->rte)) {
			*idx = rs[i].idx;
			*prio = rs[i].prio;
			break;
		}
	if (!rc && i == n)
		rc = -ENOENT;
	free(rs);
	free(mine);
	return rc;
}

int lu_rule_add(struct lu *lu, const struct lne_rule *r, s64 idx, struct lne_err *err)
{
	u8 buf[sizeof(struct lu_ioc_udsp) + RULE_MAX];
	struct lu_ioc_udsp *u = (struct lu_ioc_udsp *)buf;
	u32 at = 0, prio = 0;
	int len, rc;

	memset(buf, 0, sizeof(buf));
	len = lu_udsp_encode(lu, r, buf + sizeof(*u), RULE_MAX, err);
	if (len < 0)
		return len;
	rc = equal_held(lu, buf + sizeof(*u), len, &at, &prio, err);
	if (!rc)
		return lne_err_set(
			err, -EALREADY, NULL, -1,
			"lnet.ko %s holds an equal rule at idx %u (priority %d): delete it "
			"first (lnet.ko would keep the copy it is sent for good)",
			lu->vname, at, (int)prio);
	if (rc != -ENOENT)
		return rc;
	u->idx = idx < 0 || idx > INT32_MAX ? -1 : (s32)idx;
	u->action = r->prio != LNE_PRIO_NONE ? LU_UDSP_ACT_PRIORITY : LU_UDSP_ACT_PREF;
	/* a net or NID rule is a priority; lnetd always gives one, lnet.ko's default is 0 */
	if (r->kind != LNE_RULE_PAIR && r->kind != LNE_RULE_ROUTER) {
		u->action = LU_UDSP_ACT_PRIORITY;
		u->priority = r->prio == LNE_PRIO_NONE ? 0 : r->prio;
	}
	u->bulk_size = len;
	u->bulk = (u64)(uintptr_t)(buf + sizeof(*u));
	rc = lu_ioc(lu, LU_IOC_ADD_UDSP, buf, sizeof(*u) + len);
	return rc ? lu_refused(lu, err, rc, NULL, "add the rule") : 0;
}

int lu_rule_del(struct lu *lu, s32 idx, struct lne_err *err)
{
	struct lu_ioc_udsp u;
	int rc;

	memset(&u, 0, sizeof(u));
	u.idx = idx < 0 ? -1 : idx;
	rc = lu_ioc(lu, LU_IOC_DEL_UDSP, &u, sizeof(u));
	return rc ? lu_refused(lu, err, rc, NULL, idx < 0 ? "delete its rules" : "delete the rule")
		  : 0;
}

/* Rule @idx into @out: 0, -ENOENT past the last, -EPROTO for an answer that does not read. */
static int rule_get(struct lu *lu, u32 idx, struct lu_rule *out)
{
	struct lu_ioc_udsp sz, *u;
	u8 *buf;
	int rc, tries;

	for (tries = 0; tries < 8; tries++) {
		memset(&sz, 0, sizeof(sz));
		sz.idx = idx;
		rc = lu_ioc(lu, LU_IOC_GET_UDSP_SIZE, &sz, sizeof(sz));
		if (rc)
			return rc;
		if (sz.idx < (s32)sizeof(*u) || sz.idx > LU_IOC_MAX_LEN)
			return -EPROTO;
		buf = calloc(1, sz.idx);
		if (!buf)
			return -ENOMEM;
		u = (struct lu_ioc_udsp *)buf;
		u->idx = idx;
		u->bulk_size = sz.idx - sizeof(*u);
		u->bulk = (u64)(uintptr_t)(buf + sizeof(*u));
		rc = lu_ioc(lu, LU_IOC_GET_UDSP, buf, sizeof(*u));
		if (rc == -ENOSPC) {
			free(buf); /* the rule changed between the two: again */
			continue;
		}
		if (!rc) {
			memset(out, 0, sizeof(*out));
			out->idx = idx;
			out->prio = u->action == LU_UDSP_ACT_PRIORITY ? u->priority : LNE_PRIO_NONE;
			rc = lu_udsp_decode(buf + sizeof(*u), sz.idx - sizeof(*u), out);
		}
		free(buf);
		return rc;
	}
	return -EAGAIN;
}

int lu_rule_list(struct lu *lu, struct lu_rule **out, size_t *nout, struct lne_err *err)
{
	struct lu_rule *rs = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;

	*out = NULL;
	*nout = 0;
	for (;;) {
		if (n == cap) {
			struct lu_rule *m = lne_realloc_array(rs, cap ? cap * 2 : 8, sizeof(*rs));

			if (!m) {
				rc = lne_err_set(err, -ENOMEM, NULL, -1, "out of memory");
				break;
			}
			rs = m;
			cap = cap ? cap * 2 : 8;
		}
		rc = rule_get(lu, n, &rs[n]);
		if (rc == -ENOENT) {
			rc = 0;
			break;
		}
		if (rc == -EPROTO) {
			rc = lne_err_set(
				err, rc, NULL, -1,
				"lnet.ko %s answered rule %zu in a form this library cannot "
				"read",
				lu->vname, n);
			break;
		}
		if (rc) {
			rc = rc == -ENOMEM ? lne_err_set(err, rc, NULL, -1, "out of memory")
					   : lu_refused(lu, err, rc, NULL, "list its rules");
			break;
		}
		n++;
	}
	if (rc) {
		free(rs);
		return rc;
	}
	*out = rs;
	*nout = n;
	return 0;
}

int lu_udsp_info(struct lu *lu, const struct lne_nid *nid, bool peer, struct lu_udsp_info *info,
		 struct lne_err *err)
{
	struct lu_ioc_udsp_info *r;
	char s[LNE_NID_STR_MAX];
	u64 nid4;
	int rc, i;

	memset(info, 0, sizeof(*info));
	rc = lu_nid4(lu, nid, &nid4, NULL, err);
	if (rc)
		return rc;
	r = calloc(1, sizeof(*r));
	if (!r)
		return lne_err_set(err, -ENOMEM, NULL, -1, "out of memory");
	r->peer = peer;
	r->nid = nid4;
	rc = lu_ioc(lu, LU_IOC_GET_UDSP_INFO, r, sizeof(*r));
	if (rc) {
		free(r);
		return lu_refused(lu, err, rc, lu_nidstr(nid, s), "show what the rules made");
	}
	info->nid_prio = r->nid_priority;
	info->net_prio = r->net_priority;
	for (i = 0; i < 128 && r->pref_nid[i] && r->pref_nid[i] != LU_NID_ANY; i++)
		if (lu_nid_from4(r->pref_nid[i], &info->pref[info->npref]))
			info->npref++;
	for (i = 0; i < 128 && r->pref_rtr_nid[i] && r->pref_rtr_nid[i] != LU_NID_ANY; i++)
		if (lu_nid_from4(r->pref_rtr_nid[i], &info->rtr[info->nrtr]))
			info->nrtr++;
	free(r);
	return 0;
}
