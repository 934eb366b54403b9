// SPDX-License-Identifier: GPL-2.0
/*
 * lu-nid.c - the engine's NIDs and lnet.ko's nid4 (u64: the net in the high
 * half, LND type above net number, the 32-bit address in the low half).
 * Every /dev/lnet request takes a nid4, so a large (IPv6) NID cannot cross
 * it: it is refused here, with the limit in the sentence, before lnet.ko
 * sees anything.
 */
#include "lu-int.h"

u64 lu_net4(lne_net_t net)
{
	return (u64)net << 32;
}

int lu_nid4(const struct lu *lu, const struct lne_nid *nid, u64 *out, const char *where,
	    struct lne_err *err)
{
	char s[LNE_NID_STR_MAX];

	if (nid->alen != 4) {
		lne_nid_format(nid, s, sizeof(s));
		return lne_err_set(err, -EOPNOTSUPP, s, -1, "lnet.ko %s takes only IPv4 NIDs %s",
				   lu->vname, where ? where : "over /dev/lnet");
	}
	*out = lu_net4(lne_nid_net(nid)) | lne_nid_ip4(nid);
	return 0;
}

bool lu_nid_from4(u64 nid4, struct lne_nid *out)
{
	u32 addr = (u32)nid4, net = (u32)(nid4 >> 32);

	memset(out, 0, sizeof(*out));
	if (nid4 == LU_NID_ANY || !lne_lnd_name(LNE_NET_LND(net)))
		return false;
	out->lnd = LNE_NET_LND(net);
	out->num = LNE_NET_NUM(net);
	out->alen = 4;
	out->addr[0] = addr >> 24;
	out->addr[1] = addr >> 16;
	out->addr[2] = addr >> 8;
	out->addr[3] = addr;
	return true;
}

const char *lu_nidstr(const struct lne_nid *nid, char *buf)
{
	lne_nid_format(nid, buf, LNE_NID_STR_MAX);
	return buf;
}
