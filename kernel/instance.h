/* SPDX-License-Identifier: GPL-2.0 */
/*
 * instance.h - one LNet instance per network namespace.
 *
 * main.c creates an instance when a network namespace appears and destroys
 * it when the namespace goes; the genl family (netlink.c, nl-*.c) finds the
 * instance of the socket it serves, and a request source (nrs.c) the
 * instance of the namespace it opens.  Every change happens under the
 * instance's mutex and bumps its generation, which readers use to tell
 * whether what they saw is still current (see uapi/lnetk.h).  The engine
 * state itself may be replaced whole (a batch is built on a copy and
 * swapped in), so it is reached only through @inst, under @lock.
 *
 * Selection takes only @sel for reading, so selections run side by side
 * and never wait for a change that is still preparing (a batch builds its
 * copy, a dump walks the instance) but only for the moment a change
 * touches @inst: every change to @inst, or swap of it, happens under
 * @lock *and* @sel held for writing.  Inside, selection neither sleeps nor
 * allocates; the round-robin state it moves is atomic or single words
 * (engine/port.h).  Order: @lock, then @sel.
 */
#ifndef LNETK_INSTANCE_H
#define LNETK_INSTANCE_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rwsem.h>
#include <linux/types.h>

struct net;
struct lne_inst;
struct lne_tbf;
struct lnetk_dp;

/*
 * One NRS TBF policy of an instance (engine/tbf.h), in its list.  The list
 * and @open change under the instance lock; the engine policy is called
 * under @qlock only, which a request source (lnetk_nrs.h) takes without
 * the instance lock.  Order: lnetk_net.lock, then qlock.
 */
struct lnetk_tbf {
	struct list_head link; /* in lnetk_net.tbf, by service name */
	struct mutex qlock;    /* every engine call on @tbf */
	struct lne_tbf *tbf;
	bool open; /* a request source or a TBF_LOAD holds it (lnetk_nrs_open) */
};

struct lnetk_net {
	struct mutex lock;	 /* serialises every change and every engine call */
	struct rw_semaphore sel; /* selection reads @inst under it; changes write */
	u64 generation;		 /* under lock */
	struct lne_inst *inst;	 /* changed under lock and sel (write); read under either */
	struct list_head tbf;	 /* under lock: struct lnetk_tbf, sorted by service */
	u32 ntbf;		 /* under lock: how many */
	struct lnetk_dp *dp;	 /* the data path (dp.h), set once at start */
};

/* main.c: the instance of @net. */
struct lnetk_net *lnetk_net(const struct net *net);
/* main.c: a fresh engine instance with the host's NUMA distances. */
struct lne_inst *lnetk_inst_new(void);
/* main.c: give @inst the host's distances: node_distance() between NUMA nodes. */
int lnetk_numa_default(struct lne_inst *inst);

/* nrs.c: the policy of @service in @ln's list, or NULL.  Under ln->lock. */
struct lnetk_tbf *lnetk_tbf_find(struct lnetk_net *ln, const char *service);
/* nrs.c: free a TBF policy of the list (unlinks it; the count is the caller's). */
void lnetk_tbf_free(struct lnetk_tbf *t);

#endif /* LNETK_INSTANCE_H */
