/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ttypair - pairs of connected virtual serial ports (a null-modem cable
 * inside the kernel).
 *
 * Internal declarations shared by the module's source files. Nothing in here
 * is visible to user space; see include/uapi/ for that.
 */
#ifndef TTYPAIR_H
#define TTYPAIR_H

#include <linux/kref.h>
#include <linux/spinlock.h>
#include <linux/tty.h>
#include <linux/tty_driver.h>
#include <linux/tty_flip.h>
#include <linux/types.h>

#include "uapi/ttypair.h"

/* Hard limit of pairs: the number of lines each tty driver is created with. */
#define TTYPAIR_MAX_PAIRS	128
/* Pairs created at load time when the pairs= parameter is not given. */
#define TTYPAIR_DEFAULT_PAIRS	4
/* write_room() of an end whose peer is closed: written bytes are dropped. */
#define TTYPAIR_DISCARD_ROOM	65536U

enum ttypair_end_id {
	TTYPAIR_END_A,
	TTYPAIR_END_B,
	TTYPAIR_NR_ENDS,
};

/**
 * struct ttypair_stats - per-end byte counters
 * @tx: bytes accepted from this end's writers and delivered to the peer
 * @rx: bytes delivered to this end by the peer
 * @discarded: bytes written on this end while the peer was closed
 *
 * Protected by the owning pair's lock.
 */
struct ttypair_stats {
	u64 tx;
	u64 rx;
	u64 discarded;
};

/**
 * struct ttypair_port - one end of a pair
 * @port: the tty_port; its flip buffer is this end's receive queue
 * @pair: the pair this end belongs to
 * @id: TTYPAIR_END_A or TTYPAIR_END_B
 * @active: open (between tty_port activate and shutdown); pair->lock
 * @tx_stopped: output stopped by XOFF (the tty's .stop); pair->lock
 * @stats: byte counters; pair->lock
 * @dev: the registered tty device, NULL before registration
 */
struct ttypair_port {
	struct tty_port port;
	struct ttypair_pair *pair;
	enum ttypair_end_id id;
	bool active;
	bool tx_stopped;
	struct ttypair_stats stats;
	struct device *dev;
};

/**
 * struct ttypair_pair - two ends joined by a virtual null-modem cable
 * @kref: one reference held by the pair registry, one per installed tty
 * @lock: the data path lock: guards both ends' @active, @tx_stopped and
 *	@stats, and serialises every insertion into either end's flip buffer
 * @index: line number of both ends (ttyVPA<index> and ttyVPB<index>)
 * @a: the A end
 * @b: the B end
 *
 * The ends are two members rather than an array: a tty_port ends in a
 * flexible array (its buffer's sentinel), and arrays of such structures are
 * not portable C.
 */
struct ttypair_pair {
	struct kref kref;
	spinlock_t lock;		/* the data path lock, see above */
	unsigned int index;
	struct ttypair_port a;
	struct ttypair_port b;
};

static inline struct ttypair_port *ttypair_end(struct ttypair_pair *pair,
					       enum ttypair_end_id id)
{
	return id == TTYPAIR_END_A ? &pair->a : &pair->b;
}

static inline struct ttypair_port *ttypair_peer(struct ttypair_port *tp)
{
	return ttypair_end(tp->pair, tp->id == TTYPAIR_END_A ? TTYPAIR_END_B :
							 TTYPAIR_END_A);
}

/* tty.c: the two tty drivers and the tty/tty_port operations */
int ttypair_tty_register(void);
void ttypair_tty_unregister(void);
int ttypair_tty_add_port(struct ttypair_port *tp);
void ttypair_tty_remove_port(struct ttypair_port *tp);
void ttypair_tty_port_init(struct ttypair_port *tp);

/* pair.c: pair objects and the registry of pairs */
int ttypair_pair_create(unsigned int index);
void ttypair_pair_destroy_all(void);
struct ttypair_port *ttypair_port_lookup(enum ttypair_end_id id,
					 unsigned int index);
void ttypair_pair_put(struct ttypair_pair *pair);

/* xfer.c: moving bytes from one end to the other */
size_t ttypair_xmit(struct ttypair_port *src, const u8 *buf, size_t count);
unsigned int ttypair_tx_room(struct ttypair_port *src);
void ttypair_set_active(struct ttypair_port *tp, bool active);
void ttypair_set_tx_stopped(struct ttypair_port *tp, bool stopped);
void ttypair_wake_peer_writer(struct ttypair_port *tp);

#endif /* TTYPAIR_H */
