/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kernel.h - the kernel backend: the lnetk module holds what the mirror
 * holds (lnetd --engine=kernel).
 *
 * lnetd's mirror (an engine instance in lnetd, the same code as the module)
 * is the desired state as realised here: NIs whose interfaces exist, every
 * peer, route, rule and global.  The backend keeps a copy of what it last
 * pushed to the module and, whenever asked to sync, sends the module the
 * differences between the mirror and that copy, so a change to one peer
 * sends one peer and the module's running state (health, credits, round
 * robin) survives every change that does not remove its object.
 *
 * It also makes the module equal to the mirror whenever the two may have
 * parted: at start (what the module already holds is dumped first; an
 * empty module is filled with one BATCH), when the genl family appears
 * (the module was loaded or reloaded), and when the module announces a
 * generation lnetd did not cause (someone changed it behind lnetd's back:
 * the module is dumped and repaired).  Without the module nothing is lost:
 * every object is pending "the lnetk module is not loaded" until it comes.
 *
 * Errors are the backend's state, shown by Status, not returned: a change
 * lnetd committed stays committed even if the module refuses it (the
 * module runs the same code, so that means a bug or a module of another
 * version; the refusal's sentence is kept as the reason).
 */
#ifndef LNETD_KERNEL_H
#define LNETD_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct lnetd;
struct kbackend;
struct lne_nid;

/* Start (engine "kernel"): hooks into d->event, syncs if the module is there.
 * Fails only for lnetd's own troubles (no memory, no netlink socket). */
int kbackend_start(struct lnetd *d, struct kbackend **kb);
void kbackend_stop(struct kbackend *kb);
/* The mirror changed (a committed change, a rebuild, NIs that came or went): push the
 * differences.  Runs to completion before returning. */
void kbackend_sync(struct kbackend *kb);
/* Whether the module holds the mirror's state; if not, @why (len bytes) says why. */
bool kbackend_applied(const struct kbackend *kb, char *why, size_t len);
/*
 * Health is the module's running state (the mirror's copy is what lnetd
 * last set): set a local NI's (@peer false) or a peer NI's health in the
 * module.  -ENODEV while the module is not loaded; the module's refusal
 * (its errno, its sentence in @why) otherwise.
 */
int kbackend_set_health(struct kbackend *kb, bool peer, const struct lne_nid *nid, uint32_t value,
			char *why, size_t len);

#endif /* LNETD_KERNEL_H */
