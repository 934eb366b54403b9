/* SPDX-License-Identifier: GPL-2.0 */
/*
 * engines.h - the engines lnetd knows, in --help's order: one line each,
 * naming the struct backend_ops its folder defines (backend.c walks this).
 * A new engine is its folder under lnetd/backend/ (with its .am, included
 * from backend.am) and its line here.
 */
BACKEND_ENGINE(bk_lnetk_ops)	 /* kernel: the lnetk module (lnetk/) */
BACKEND_ENGINE(bk_userspace_ops) /* userspace: the engine inside lnetd (userspace/) */
BACKEND_ENGINE(bk_lustre_ops)	 /* lustre: Lustre's own lnet.ko (lustre/) */
