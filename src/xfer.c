// SPDX-License-Identifier: GPL-2.0
/*
 * ttypair - moving bytes from one end of a pair to the other.
 *
 * Like the kernel's pty, a write inserts the bytes into the peer's flip
 * buffer (its receive queue) and pushes them to the peer's line discipline.
 * write_room() is the space left in that queue, so a writer facing a slow
 * reader waits in its line discipline instead of losing bytes; the reader's
 * unthrottle wakes it again. Nothing here sleeps: .write may be called in
 * atomic context (PPP calls it from a softirq).
 */
#include "ttypair.h"

/**
 * ttypair_xmit() - send bytes written on one end to its peer
 * @src: the end written to
 * @buf: the bytes
 * @count: how many
 *
 * Context: any; does not sleep.
 * Return: the number of bytes accepted. All of @count when the peer is
 * closed (they are discarded and counted), possibly fewer or none when the
 * peer's receive queue is full or output is stopped by XOFF.
 */
size_t ttypair_xmit(struct ttypair_port *src, const u8 *buf, size_t count)
{
	struct ttypair_pair *pair = src->pair;
	struct ttypair_port *dst = ttypair_peer(src);
	unsigned long flags;
	size_t done = 0;

	spin_lock_irqsave(&pair->lock, flags);
	if (src->tx_stopped || !count) {
		done = 0;
	} else if (!dst->active) {
		done = count;
		src->stats.discarded += count;
	} else {
		/*
		 * Insert and push under the lock that serialises every producer
		 * of dst's flip buffer (the pty fix for CVE-2022-1462).
		 */
		done = tty_insert_flip_string(&dst->port, buf, count);
		if (done) {
			tty_flip_buffer_push(&dst->port);
			src->stats.tx += done;
			dst->stats.rx += done;
		}
	}
	spin_unlock_irqrestore(&pair->lock, flags);

	return done;
}

/**
 * ttypair_tx_room() - how many bytes a write on an end would accept now
 * @src: the end
 *
 * Return: the free space in the peer's receive queue; 0 while output is
 * stopped; TTYPAIR_DISCARD_ROOM while the peer is closed.
 */
unsigned int ttypair_tx_room(struct ttypair_port *src)
{
	struct ttypair_port *dst = ttypair_peer(src);
	unsigned long flags;
	unsigned int room;

	spin_lock_irqsave(&src->pair->lock, flags);
	if (src->tx_stopped)
		room = 0;
	else if (!dst->active)
		room = TTYPAIR_DISCARD_ROOM;
	else
		room = tty_buffer_space_avail(&dst->port);
	spin_unlock_irqrestore(&src->pair->lock, flags);

	return room;
}

/**
 * ttypair_set_active() - mark an end open or closed for its peer's writes
 * @tp: the end
 * @active: true from first open, false from last close or hangup
 */
void ttypair_set_active(struct ttypair_port *tp, bool active)
{
	unsigned long flags;

	spin_lock_irqsave(&tp->pair->lock, flags);
	tp->active = active;
	if (active)
		tp->tx_stopped = false;
	spin_unlock_irqrestore(&tp->pair->lock, flags);
}

/**
 * ttypair_set_tx_stopped() - stop or restart output of an end (XOFF/XON)
 * @tp: the end
 * @stopped: true to stop
 *
 * The tty core wakes the end's writers itself after a restart.
 */
void ttypair_set_tx_stopped(struct ttypair_port *tp, bool stopped)
{
	unsigned long flags;

	spin_lock_irqsave(&tp->pair->lock, flags);
	tp->tx_stopped = stopped;
	spin_unlock_irqrestore(&tp->pair->lock, flags);
}

/**
 * ttypair_wake_peer_writer() - wake writers and pollers of an end's peer
 * @tp: the end whose receive side changed (room freed, or closed)
 */
void ttypair_wake_peer_writer(struct ttypair_port *tp)
{
	tty_port_tty_wakeup(&ttypair_peer(tp)->port);
}
