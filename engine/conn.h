/* SPDX-License-Identifier: GPL-2.0 */
/*
 * conn.h - one socklnd connection as a state machine without I/O.
 *
 * The shell (the module's kernel sockets, lnetd's non-blocking sockets)
 * owns the socket; it hands every byte it reads to lne_conn_input(), which
 * consumes up to one event's worth and says what happened, and it writes
 * what lne_conn_tx_iov() points at, telling lne_conn_tx_sent() how much
 * went.  Nothing here blocks, reads a clock or allocates more than one
 * message's payload, so the same code runs in both homes and in tests that
 * join two connections back to back.
 *
 *   passive:  CONNREQ ──▶ HELLO ──▶ KSM ⇄ LNET ⇄ PAYLOAD
 *   active:              HELLO ──▶ (the same)
 *
 * Any fault ends in DEAD with the reason kept: the shell closes the socket
 * and the node counts the fault.  A connection is never reused.
 */
#ifndef LNE_CONN_H
#define LNE_CONN_H

#include "nidkey.h"
#include "port.h"
#include "wire.h"

enum lne_conn_state {
	LNC_CONNREQ,   /* passive: the acceptor's request */
	LNC_HELLO,     /* the peer's hello */
	LNC_HELLO_IPS, /* its deprecated address list, skipped */
	LNC_KSM,       /* a socklnd header */
	LNC_LNET,      /* an LNet header */
	LNC_PAYLOAD,   /* the payload it announced */
	LNC_DEAD,
};

enum lne_conn_evt {
	LNC_EV_NONE,	/* all input consumed, no event */
	LNC_EV_CONNREQ, /* passive: ev->nid is the NID asked for (0: large, in ev->nid16) */
	LNC_EV_HELLO,	/* the peer's hello is in conn->peer_* */
	LNC_EV_MSG,	/* an LNet message: ev->hdr and ev->payload */
	LNC_EV_FAULT,	/* the bytes were wrong: conn->fault; the connection is dead */
};

struct lne_conn_ev {
	u8 type;
	u64 nid;
	struct lne_nid nid16; /* a version 2 request's NID, not interned yet */
	struct lnw_hdr hdr;
	u8 *payload; /* the caller's, to lne_free(); NULL when empty */
	u64 zc_req;  /* non-zero: the sender wants this cookie acknowledged */
};

struct lne_iov {
	const void *base;
	size_t len;
};

/* One message (or handshake) queued for the wire. */
struct lne_frame {
	struct lne_frame *next;
	u8 hdr[LNW_FRAME16_HDR];
	u32 hlen;
	const u8 *payload;
	u32 plen;
	u32 sent;  /* bytes of hdr + payload written */
	void *msg; /* the node's, handed back when the last byte went */
};

struct lne_conn {
	u8 state;
	bool active, flip;
	bool v4;		/* socklnd version 4: large NIDs, the nid16 header */
	struct lne_nidtab *tab; /* the node's NID keys (NULL: version 3 only) */
	enum lnw_fault fault;
	u32 ctype;
	u64 local_nid; /* our NI's key (nidkey.h) */
	u64 peer_nid;  /* what the peer's hello said (active: what we expect) */
	u32 peer_pid;
	u64 peer_inc;
	u8 rx[LNW_FRAME_HDR];
	u32 rx_have, rx_need;
	struct lnw_ksm ksm;
	struct lnw_hdr hdr;
	u8 *payload;
	u32 payload_have;
	u32 skip; /* deprecated hello addresses still to skip */
	struct lne_frame *txq, **txtail;
	u64 txq_bytes;
	u64 rx_msgs, tx_msgs;
};

/*
 * A connection we accepted: it starts with the acceptor's request, of
 * either version; the peer's hello's version (3 or 4) is the connection's.
 * @tab resolves large NIDs (NULL: the peer may speak version 3 only).
 */
void lne_conn_init_passive(struct lne_conn *c, struct lne_nidtab *tab);
/*
 * One we made: the acceptor's request and our hello are queued (@hs is the
 * caller's frame for them, sent first).  *@hello has our side's fields;
 * if either NID is large (a key of @tab), the request is version 2 and
 * the hello version 4, as upstream chooses them by the NIDs' size.
 */
void lne_conn_init_active(struct lne_conn *c, const struct lnw_hello *hello, struct lne_frame *hs,
			  struct lne_nidtab *tab);
/* Passive: answer the peer's hello with ours (in @hs); ctype is the peer's, inverted here. */
void lne_conn_reply_hello(struct lne_conn *c, const struct lnw_hello *hello, struct lne_frame *hs);
/* Mark it dead with @f (the node decided the bytes were wrong). */
void lne_conn_fail(struct lne_conn *c, enum lnw_fault f);

/* Consume input up to one event; returns the bytes consumed. */
size_t lne_conn_input(struct lne_conn *c, const u8 *buf, size_t len, struct lne_conn_ev *ev);
/*
 * While a payload comes in: where its next bytes go (*@at) and how many are
 * still to come, else 0.  The shell may read up to that many straight there
 * and hand them to lne_conn_input() at @at: they are not copied again.
 */
size_t lne_conn_rx_room(const struct lne_conn *c, u8 **at);

/* Frames: an LNet message (its payload stays the caller's until sent), or a NOOP. */
void lne_frame_lnet(struct lne_frame *f, const struct lnw_hdr *h, const u8 *payload, u64 zc_req);
/* The same on @c: the nid16 header on a version 4 connection. */
void lne_conn_frame_lnet(const struct lne_conn *c, struct lne_frame *f, const struct lnw_hdr *h,
			 const u8 *payload, u64 zc_req);
void lne_frame_noop(struct lne_frame *f, u64 zc_ack);
void lne_conn_queue(struct lne_conn *c, struct lne_frame *f);

/* What to write next: up to @max pieces; returns how many. */
int lne_conn_tx_iov(const struct lne_conn *c, struct lne_iov *iov, int max);
/*
 * @n bytes went; every frame finished is handed to @done (in order), which
 * then owns it.
 */
void lne_conn_tx_sent(struct lne_conn *c, size_t n, void (*done)(void *ctx, struct lne_frame *f),
		      void *ctx);
/* Hand every queued frame to @done (the connection closes). */
void lne_conn_tx_flush(struct lne_conn *c, void (*done)(void *ctx, struct lne_frame *f), void *ctx);

u32 lne_ctype_invert(u32 ctype);

#endif /* LNE_CONN_H */
