// SPDX-License-Identifier: GPL-2.0
/*
 * ttypair - the transmit side of an end: from .write to the peer's receive
 * queue.
 *
 * Without baud-rate emulation a write goes straight into the peer's flip
 * buffer, as the kernel's pty does, and write_room() is the space left
 * there, so a writer facing a slow reader waits in its line discipline
 * instead of losing bytes. With baud-rate emulation a write goes into the
 * end's transmit FIFO and an hrtimer moves the bytes on at the line's rate;
 * write_room() and chars_in_buffer() are then the FIFO's. In RS-485 mode
 * writes take the FIFO too, paced or not, so that the timer can drive RTS
 * around each transmission as serial_core's drivers do: to its level for
 * sending, the delay before, the characters, the delay after, back.
 * Nothing here sleeps: .write may be called in atomic context (PPP calls
 * it from a softirq).
 *
 * A port of a bus sends the same way; where a pair's end hands bytes to
 * its peer, a bus port hands them to busline.c, which delivers them to
 * every port that hears them.
 */
#include <linux/hrtimer.h>
#include <linux/math64.h>
#include <linux/slab.h>

#include "ttypair.h"
#include "ttypair_compat.h"

/* Timer period when the line is faster than this: bytes leave in batches */
#define TTYPAIR_TICK_NS		(1 * NSEC_PER_MSEC)

static unsigned int ttypair_txq_len(const struct ttypair_txq *q)
{
	return q->head - q->tail;
}

/* Whether an end is in RS-485 mode; lock held */
static bool ttypair_rs485_on(const struct ttypair_port *src)
{
	return src->rs485.flags & SER_RS485_ENABLED;
}

/* Whether writes on an end go through its FIFO; lock held */
static bool ttypair_txq_used(struct ttypair_port *src)
{
	return src->pair->baud_emulation || ttypair_rs485_on(src) ||
	       ttypair_txq_len(&src->txq);
}

/* Whether an end may send now: not stopped by XOFF, nor by CTS; lock held */
static bool ttypair_tx_allowed(struct ttypair_port *src)
{
	return !src->tx_stopped &&
	       (!src->line.crtscts || (src->msr & TIOCM_CTS));
}

/* Bytes left an end; lock held */
static void ttypair_tx_sent(struct ttypair_port *src, size_t count)
{
	src->stats.tx += count;
	src->icount.tx += count;
}

/*
 * Hand bytes to the peer's receiver, or drop them if it is closed; on a
 * bus, to every port that hears them
 */
static size_t ttypair_tx_deliver(struct ttypair_port *src, const u8 *buf,
				 size_t count)
{
	struct ttypair_port *dst = ttypair_peer(src);
	size_t done;

	if (!dst) {
		done = ttypair_bus_deliver(src, buf, count);
		ttypair_mon_emit(src, TTYPAIR_REC_DATA, 0, 0, buf, done);
		return done;
	}
	if (!dst->active) {
		src->stats.discarded += count;
		src->icount.tx += count;
		ttypair_mon_emit(src, TTYPAIR_REC_DATA, TTYPAIR_REC_F_DISCARDED,
				 0, buf, count);
		return count;
	}
	done = ttypair_rx_deliver(src, dst, buf, count);
	ttypair_tx_sent(src, done);
	ttypair_mon_emit(src, TTYPAIR_REC_DATA, 0, 0, buf, done);
	return done;
}

/*
 * The peer's receive queue had no room for @src: note that @src waits, so
 * that the peer's receiver tells it of room (ttypair_tx_peer_took()), then
 * look again, for room freed before the note could be seen. The full
 * barrier pairs with the one of the flip buffer's freeing, which comes
 * before the receiver reads the note: one of the two sees the other. On a
 * bus the same holds for each receiver. Lock held. Returns whether there
 * is room now.
 */
static bool ttypair_tx_wait_room(struct ttypair_port *src)
{
	struct ttypair_port *dst = ttypair_peer(src);

	WRITE_ONCE(src->txq.wait_room, true);
	smp_mb();	/* the note before the look; pairs with the freeing's */
	if (!dst)
		return ttypair_bus_room(src) > 0;
	return tty_buffer_space_avail(&dst->port) > 0;
}

/* Deliver a pending XON/XOFF of @src to its peer, ahead of data; lock held */
static void ttypair_tx_xchar(struct ttypair_port *src)
{
	struct ttypair_port *dst = ttypair_peer(src);
	u8 ch = src->x_char;

	if (!ch)
		return;
	if (!dst) {
		if (!ttypair_bus_xchar(src, ch) &&
		    !(ttypair_tx_wait_room(src) && ttypair_bus_xchar(src, ch)))
			return;	/* the receivers send it when they have room */
	} else if (dst->active) {
		if (!ttypair_rx_xchar_locked(dst, ch) &&
		    !(ttypair_tx_wait_room(src) &&
		      ttypair_rx_xchar_locked(dst, ch)))
			return;	/* the peer's receiver sends it when it has room */
		ttypair_tx_sent(src, 1);
	}
	ttypair_mon_emit(src, TTYPAIR_REC_DATA, TTYPAIR_REC_F_XCHAR, 0, &ch, 1);
	src->x_char = 0;
}

/*
 * Bytes entered an empty FIFO, or output resumes: the first of them leaves
 * one character time after the line became free (or now). In RS-485 mode
 * a transmission that was not on yet first drives RTS and waits its delay
 * before sending; one whose RTS has not returned yet goes on at once, and
 * the timer, which was waiting to return RTS, is moved to the first
 * character. Lock held. Returns the peer's inputs that changed (RTS), for
 * ttypair_inputs_notify().
 */
static unsigned int ttypair_txq_begin(struct ttypair_port *src, ktime_t now)
{
	struct ttypair_txq *q = &src->txq;
	unsigned int changed = 0;
	bool tail = false;
	u64 delay = 0;

	if (ktime_before(q->next, now))
		q->next = now;
	if (ttypair_rs485_on(src)) {
		tail = q->rts_tail;
		q->rts_tail = false;
		if (!q->rts_active) {
			q->rts_active = true;
			changed = ttypair_rs485_set_rts(src, true);
			delay = (u64)src->rs485.delay_rts_before_send *
				NSEC_PER_MSEC;
		}
	}
	q->next = ktime_add_ns(q->next, delay + (src->pair->baud_emulation ?
						 src->line.char_ns : 0));
	/*
	 * The tail is only ever waited for by a started timer. Unless its
	 * callback runs now (it then finds the bytes and sets itself for
	 * them), nothing touches it: it may be started again.
	 */
	if (tail && hrtimer_try_to_cancel(&q->timer) >= 0)
		hrtimer_start(&q->timer, q->next, HRTIMER_MODE_ABS_SOFT);
	return changed;
}

/*
 * The FIFO is empty. In RS-485 mode RTS returns the delay after the end of
 * the last character (after a flush: from now), and the timer waits for
 * that. Lock held.
 */
static enum hrtimer_restart ttypair_txq_idle(struct ttypair_port *src,
					     ktime_t now,
					     unsigned int *changed)
{
	struct ttypair_txq *q = &src->txq;

	if (q->rts_active && !q->rts_tail) {
		q->rts_off = ktime_add_ns(ktime_before(q->next, now) ? q->next :
					  now,
					  (u64)src->rs485.delay_rts_after_send *
					  NSEC_PER_MSEC);
		q->rts_tail = true;
	}
	if (q->rts_tail) {
		if (ktime_before(now, q->rts_off)) {
			hrtimer_set_expires(&q->timer, q->rts_off);
			return HRTIMER_RESTART;
		}
		q->rts_tail = false;
		q->rts_active = false;
		if (ttypair_rs485_on(src))
			*changed |= ttypair_rs485_set_rts(src, false);
	}
	q->armed = false;	/* ttypair_tx_kick() or a write restarts */
	return HRTIMER_NORESTART;
}

/*
 * Start the FIFO's timer unless it runs already (then it finds the bytes
 * itself): the timer is only ever started with armed clear, so that
 * nothing starts it while its callback may still touch it. Lock held.
 */
static void ttypair_txq_arm(struct ttypair_port *src)
{
	struct ttypair_txq *q = &src->txq;

	if (q->armed || !src->active || !ttypair_tx_allowed(src))
		return;
	q->armed = true;
	hrtimer_start(&q->timer, q->next, HRTIMER_MODE_ABS_SOFT);
}

/*
 * Move the bytes whose time has come from the FIFO to the peer; lock held.
 * *@changed collects the peer's inputs that changed (RS-485's RTS).
 */
static enum hrtimer_restart ttypair_txq_run(struct ttypair_port *src,
					    ktime_t now, bool *woken,
					    unsigned int *changed)
{
	struct ttypair_txq *q = &src->txq;
	bool paced = src->pair->baud_emulation;
	unsigned int due, len = ttypair_txq_len(q);
	u64 char_ns = src->line.char_ns;

	if (!len)
		return ttypair_txq_idle(src, now, changed);
	if (!ttypair_tx_allowed(src)) {
		q->armed = false;	/* ttypair_tx_kick() or a write restarts */
		return HRTIMER_NORESTART;
	}

	if (ktime_before(now, q->next))
		due = 0;	/* not yet, or RS-485's delay before sending */
	else if (paced)
		due = min_t(u64, len, 1 + div64_u64(ktime_to_ns(now) -
						    ktime_to_ns(q->next),
						    char_ns));
	else
		due = len;
	while (due) {
		unsigned int off = q->tail & (TTYPAIR_FIFO_SIZE - 1);
		unsigned int n = min(due, TTYPAIR_FIFO_SIZE - off);
		size_t done;

		/* on a bus, characters with their time on the line collide */
		if (paced && !ttypair_peer(src)) {
			done = ttypair_bus_deliver_paced(src, q->buf + off, n,
							 q->next, char_ns);
			ttypair_mon_emit(src, TTYPAIR_REC_DATA, 0, 0,
					 q->buf + off, done);
		} else {
			done = ttypair_tx_deliver(src, q->buf + off, n);
		}

		q->tail += done;
		due -= done;
		if (paced)
			q->next = ktime_add_ns(q->next, done * char_ns);
		if (done)
			*woken = true;
		if (done < n) {
			/* The peer's receive queue is full. */
			if (ttypair_tx_wait_room(src)) {
				hrtimer_set_expires(&q->timer, now);
				return HRTIMER_RESTART;
			}
			q->armed = false;	/* ttypair_tx_room_made() restarts */
			return HRTIMER_NORESTART;
		}
	}
	if (!ttypair_txq_len(q)) {
		/* The line is free from the end of the last character on. */
		if (paced)
			q->next = ktime_sub_ns(q->next, char_ns);
		return ttypair_txq_idle(src, now, changed);
	}
	if (!paced)
		hrtimer_set_expires(&q->timer, due ? now : q->next);
	else if (ktime_before(q->next, ktime_add_ns(now, TTYPAIR_TICK_NS)))
		hrtimer_set_expires(&q->timer, ktime_add_ns(now,
							    TTYPAIR_TICK_NS));
	else
		hrtimer_set_expires(&q->timer, q->next);
	return HRTIMER_RESTART;
}

static enum hrtimer_restart ttypair_txq_timer(struct hrtimer *timer)
{
	struct ttypair_port *src = container_of(timer, struct ttypair_port,
						txq.timer);
	struct ttypair_pair *pair = src->pair;
	unsigned int changed = 0;
	enum hrtimer_restart ret;
	bool woken = false;
	unsigned long flags;

	spin_lock_irqsave(&pair->lock, flags);
	src->stats.timer_runs++;
	ttypair_tx_xchar(src);
	ret = ttypair_txq_run(src, hrtimer_cb_get_time(timer), &woken,
			      &changed);
	spin_unlock_irqrestore(&pair->lock, flags);

	/* Room in the FIFO for writers; tcdrain() when it became empty */
	if (woken)
		tty_port_tty_wakeup(&src->port);
	ttypair_inputs_notify(ttypair_peer(src), changed);
	return ret;
}

/*
 * A write the FIFO takes: with baud-rate emulation, in RS-485 mode, or
 * behind bytes it still holds, keeping the order. Lock held. Returns how
 * many bytes fit.
 */
static noinline size_t ttypair_txq_write(struct ttypair_port *src,
					 const u8 *buf, size_t count)
{
	struct ttypair_txq *q = &src->txq;
	size_t done = 0;

	while (done < count && ttypair_txq_len(q) < TTYPAIR_FIFO_SIZE) {
		unsigned int off = q->head & (TTYPAIR_FIFO_SIZE - 1);
		size_t n = min_t(size_t, count - done,
				 min(TTYPAIR_FIFO_SIZE - off,
				     TTYPAIR_FIFO_SIZE - ttypair_txq_len(q)));

		memcpy(q->buf + off, buf + done, n);
		q->head += n;
		done += n;
	}
	ttypair_txq_arm(src);
	return done;
}

/*
 * The peer's receive queue took only @done of @count bytes: note that @src
 * waits for room, and go on as long as room appeared meanwhile. Lock held.
 * Returns how many bytes were taken in all.
 */
static noinline size_t ttypair_tx_rest(struct ttypair_port *src,
				       const u8 *buf, size_t done,
				       size_t count)
{
	while (done < count && ttypair_tx_wait_room(src)) {
		size_t more = ttypair_tx_deliver(src, buf + done, count - done);

		if (!more)
			break;
		done += more;
	}
	return done;
}

/**
 * ttypair_xmit() - send bytes written on one end to its peer
 * @src: the end written to
 * @buf: the bytes
 * @count: how many
 *
 * Context: any; does not sleep.
 * Return: the number of bytes accepted. Without baud-rate emulation: all of
 * @count when the peer is closed (they are discarded and counted), possibly
 * fewer or none when the peer's receive queue is full or output is stopped
 * by XOFF or CTS. With it: as many as fit in the FIFO.
 */
size_t ttypair_xmit(struct ttypair_port *src, const u8 *buf, size_t count)
{
	struct ttypair_pair *pair = src->pair;
	unsigned int changed = 0;
	unsigned long flags;
	size_t done = 0;

	spin_lock_irqsave(&pair->lock, flags);
	if (src->direct && !ttypair_txq_len(&src->txq) && !src->tx_stopped) {
		/* The path of most writes: see ttypair_tx_route(). */
		done = ttypair_rx_copy(ttypair_peer(src), buf, count);
		ttypair_tx_sent(src, done);
		ttypair_mon_emit(src, TTYPAIR_REC_DATA, 0, 0, buf, done);
		if (done < count)
			done = ttypair_tx_rest(src, buf, done, count);
	} else if (!src->active) {
		/* Hung up or closing: nothing leaves an end that is not open. */
		done = count;
		src->stats.discarded += count;
	} else if (ttypair_txq_used(src)) {
		/* An end is active only with its FIFO (ttypair_tx_alloc()). */
		if (count) {
			if (!ttypair_txq_len(&src->txq))
				changed = ttypair_txq_begin(src, ktime_get());
			done = ttypair_txq_write(src, buf, count);
		}
	} else if (ttypair_tx_allowed(src)) {
		done = ttypair_tx_deliver(src, buf, count);
		if (done < count)
			done = ttypair_tx_rest(src, buf, done, count);
	}
	spin_unlock_irqrestore(&pair->lock, flags);
	ttypair_inputs_notify(ttypair_peer(src), changed);

	return done;
}

/**
 * ttypair_tx_room() - how many bytes a write on an end would accept now
 * @src: the end
 *
 * Return: the free space in the FIFO with baud-rate emulation or while the
 * FIFO holds bytes; otherwise the free space in the peer's receive queue, 0
 * while output is stopped, TTYPAIR_DISCARD_ROOM while the peer is closed;
 * on a bus, what ttypair_bus_room() says.
 */
unsigned int ttypair_tx_room(struct ttypair_port *src)
{
	struct ttypair_port *dst = ttypair_peer(src);
	struct ttypair_txq *q = &src->txq;
	unsigned long flags;
	unsigned int room;

	spin_lock_irqsave(&src->pair->lock, flags);
	if (!q->buf) {
		room = 0;
	} else if (ttypair_txq_used(src)) {
		room = TTYPAIR_FIFO_SIZE - ttypair_txq_len(q);
	} else if (!ttypair_tx_allowed(src)) {
		room = 0;
	} else if (!dst) {
		room = ttypair_bus_room(src);
		if (!room && ttypair_tx_wait_room(src))
			room = ttypair_bus_room(src);
	} else if (!dst->active) {
		room = TTYPAIR_DISCARD_ROOM;
	} else {
		room = tty_buffer_space_avail(&dst->port);
		/* No room: the peer's receiver tells when there is. */
		if (!room && ttypair_tx_wait_room(src))
			room = tty_buffer_space_avail(&dst->port);
	}
	spin_unlock_irqrestore(&src->pair->lock, flags);

	return room;
}

/**
 * ttypair_tx_queued() - bytes written on an end that have not left yet
 * @src: the end
 *
 * Return: the number of bytes in the FIFO (what TIOCOUTQ reports).
 */
unsigned int ttypair_tx_queued(struct ttypair_port *src)
{
	unsigned long flags;
	unsigned int len;

	spin_lock_irqsave(&src->pair->lock, flags);
	len = ttypair_txq_len(&src->txq);
	spin_unlock_irqrestore(&src->pair->lock, flags);
	return len;
}

/**
 * ttypair_tx_empty() - whether an end's transmitter is empty (TIOCSERGETLSR)
 * @src: the end
 *
 * Return: true when nothing waits to leave, in the FIFO or as XON/XOFF:
 * with baud-rate emulation, once the last character has left the wire.
 */
bool ttypair_tx_empty(struct ttypair_port *src)
{
	unsigned long flags;
	bool empty;

	spin_lock_irqsave(&src->pair->lock, flags);
	empty = !ttypair_txq_len(&src->txq) && !src->x_char;
	spin_unlock_irqrestore(&src->pair->lock, flags);
	return empty;
}

/**
 * ttypair_tx_flush() - discard the bytes in an end's FIFO (TCOFLUSH)
 * @src: the end
 *
 * Context: process context.
 */
void ttypair_tx_flush(struct ttypair_port *src)
{
	unsigned long flags;

	/* A running timer finds the FIFO empty and stops. */
	spin_lock_irqsave(&src->pair->lock, flags);
	src->txq.tail = src->txq.head;
	spin_unlock_irqrestore(&src->pair->lock, flags);
	tty_port_tty_wakeup(&src->port);
}

/**
 * ttypair_tx_kick() - resume an end's output after XON, CTS or a setting
 * @src: the end
 *
 * Restarts the FIFO's timer if bytes wait, and wakes the end's writers.
 */
void ttypair_tx_kick(struct ttypair_port *src)
{
	struct ttypair_txq *q = &src->txq;
	unsigned int changed = 0;
	unsigned long flags;

	spin_lock_irqsave(&src->pair->lock, flags);
	ttypair_tx_xchar(src);
	if (ttypair_txq_len(q) && !q->armed) {
		/* The first byte starts over: it had not left. */
		q->next = ktime_get();
		changed = ttypair_txq_begin(src, q->next);
		ttypair_txq_arm(src);
	}
	spin_unlock_irqrestore(&src->pair->lock, flags);
	ttypair_inputs_notify(ttypair_peer(src), changed);
	tty_port_tty_wakeup(&src->port);
}

/**
 * ttypair_tx_init() - initialise the transmit side of an end
 * @tp: the end
 */
void ttypair_tx_init(struct ttypair_port *tp)
{
	hrtimer_setup(&tp->txq.timer, ttypair_txq_timer, CLOCK_MONOTONIC,
		      HRTIMER_MODE_ABS_SOFT);
}

/**
 * ttypair_tx_alloc() - give an end its FIFO, on its first open
 * @tp: the end
 *
 * Ends that were never opened cost no buffer.
 *
 * Context: process context; may sleep.
 * Return: 0 or -ENOMEM.
 */
int ttypair_tx_alloc(struct ttypair_port *tp)
{
	unsigned long flags;
	u8 *buf;

	if (READ_ONCE(tp->txq.buf))
		return 0;
	buf = kmalloc(TTYPAIR_FIFO_SIZE, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	spin_lock_irqsave(&tp->pair->lock, flags);
	if (!tp->txq.buf) {
		tp->txq.buf = buf;
		buf = NULL;
	}
	spin_unlock_irqrestore(&tp->pair->lock, flags);
	kfree(buf);
	return 0;
}

/**
 * ttypair_tx_release() - stop an end's timer and free its FIFO
 * @tp: the end; no tty uses it any more
 */
void ttypair_tx_release(struct ttypair_port *tp)
{
	hrtimer_cancel(&tp->txq.timer);
	kfree(tp->txq.buf);
	tp->txq.buf = NULL;
}

/**
 * ttypair_set_active() - mark an end open or closed
 * @tp: the end
 * @active: true from first open, false from last close or hangup
 *
 * A closed end's peer discards what it sends; bytes still in the closed
 * end's own FIFO are dropped. The peer's inputs wired to "open" follow.
 */
void ttypair_set_active(struct ttypair_port *tp, bool active)
{
	struct ttypair_port *peer = ttypair_peer(tp);
	unsigned long flags;
	unsigned int changed;

	spin_lock_irqsave(&tp->pair->lock, flags);
	tp->active = active;
	ttypair_mon_emit(tp, active ? TTYPAIR_REC_OPEN : TTYPAIR_REC_CLOSE, 0,
			 0, NULL, 0);
	ttypair_tx_route(tp->pair);
	if (active) {
		tp->breaking = false;
		tp->overrun_pending = false;
	} else {
		tp->stats.discarded += ttypair_txq_len(&tp->txq);
		tp->txq.tail = tp->txq.head;
		tp->x_char = 0;
	}
	changed = peer ? ttypair_inputs_refresh(peer) : 0;
	spin_unlock_irqrestore(&tp->pair->lock, flags);

	if (!active) {
		/* Nothing arms the timer of an end that is not active. */
		hrtimer_cancel(&tp->txq.timer);
		spin_lock_irqsave(&tp->pair->lock, flags);
		tp->txq.armed = false;
		WRITE_ONCE(tp->txq.wait_room, false);
		/* RS-485: the transmission ends with the session */
		if (tp->txq.rts_active) {
			tp->txq.rts_active = false;
			tp->txq.rts_tail = false;
			if (ttypair_rs485_on(tp))
				changed |= ttypair_rs485_set_rts(tp, false);
		}
		spin_unlock_irqrestore(&tp->pair->lock, flags);
	}
	ttypair_inputs_notify(peer, changed);
}

/**
 * ttypair_set_tx_stopped() - stop or restart output of an end (XOFF/XON)
 * @tp: the end
 * @stopped: true to stop
 */
void ttypair_set_tx_stopped(struct ttypair_port *tp, bool stopped)
{
	unsigned long flags;

	spin_lock_irqsave(&tp->pair->lock, flags);
	tp->tx_stopped = stopped;
	spin_unlock_irqrestore(&tp->pair->lock, flags);
	if (!stopped)
		ttypair_tx_kick(tp);
}

/**
 * ttypair_send_xchar() - send XON or XOFF ahead of any queued data
 * @src: the sending end
 * @ch: the character
 *
 * As a UART's send_xchar: the character goes out even while the end's
 * output is stopped. If the peer's receive queue is full it waits, and a
 * later XON/XOFF replaces it; the peer's unthrottle sends it.
 */
void ttypair_send_xchar(struct ttypair_port *src, u8 ch)
{
	unsigned long flags;

	spin_lock_irqsave(&src->pair->lock, flags);
	src->x_char = ch;
	ttypair_tx_xchar(src);
	spin_unlock_irqrestore(&src->pair->lock, flags);
}

/**
 * ttypair_tx_reset() - output state of an end for a new tty
 * @tp: the end
 *
 * A new tty is not stopped by XOFF (an old one keeps its state across a
 * hangup, and so does the end).
 */
void ttypair_tx_reset(struct ttypair_port *tp)
{
	unsigned long flags;

	spin_lock_irqsave(&tp->pair->lock, flags);
	tp->tx_stopped = false;
	spin_unlock_irqrestore(&tp->pair->lock, flags);
}

/**
 * ttypair_tx_room_made() - the peer's receive queue may have room again
 * @src: the end whose output may have waited for that room
 *
 * Called whenever the peer's line discipline took bytes from its receive
 * queue, and when the peer stops receiving (CREAD off, closed). If @src's
 * writers or FIFO found the queue full since the last call, they go on: the
 * FIFO's timer restarts and the writers and pollers are woken. Nothing
 * happens otherwise, so that an idle pair costs no wake-up at all.
 *
 * Room in a flip buffer appears when its consumer frees a buffer it has
 * emptied, just before it hands the next one to the line discipline (then
 * ttypair_tx_peer_took() calls this), or stays within the last buffer,
 * which is smaller than the queue's limit: a writer that found the queue
 * full is always called again after room appeared.
 *
 * Context: process context or the flip buffer's worker; does not sleep.
 */
void ttypair_tx_room_made(struct ttypair_port *src)
{
	struct ttypair_txq *q = &src->txq;
	unsigned long flags;
	bool waited;

	spin_lock_irqsave(&src->pair->lock, flags);
	waited = q->wait_room;
	if (waited) {
		WRITE_ONCE(q->wait_room, false);
		ttypair_tx_xchar(src);
		if (ttypair_txq_len(q) && !q->armed) {
			/* The character that waited leaves now. */
			q->next = ktime_get();
			ttypair_txq_arm(src);
		}
	}
	spin_unlock_irqrestore(&src->pair->lock, flags);
	if (waited)
		tty_port_tty_wakeup(&src->port);
}

/**
 * ttypair_tx_wake_senders() - an end no longer holds its senders back
 * @dst: the end, which closed or stopped receiving (CREAD off)
 *
 * Its peer, or every port of its bus, goes on if it waited for room: what
 * it sends is dropped, or taken by the receiver without keeping it.
 */
void ttypair_tx_wake_senders(struct ttypair_port *dst)
{
	if (dst->peer)
		ttypair_tx_room_made(dst->peer);
	else
		ttypair_bus_wake_senders(dst);
}

/* Whether writes on @src may skip the FIFO and the receiver's checks */
static bool ttypair_tx_direct(struct ttypair_port *src)
{
	struct ttypair_port *dst = ttypair_peer(src);

	return src->active && dst->active && !src->pair->baud_emulation &&
	       !ttypair_rs485_on(src) && !src->line.crtscts &&
	       ttypair_rx_unchanged(src, dst);
}

/**
 * ttypair_tx_route() - choose the path of writes on both ends of a pair
 * @pair: the pair (on a bus, no write takes the direct path)
 *
 * A write on an end whose @direct is set, with its FIFO empty and its
 * output not stopped by XOFF, goes straight into the peer's receive queue
 * as it is, with no check of the settings on the way: both ends are open,
 * the end has no baud-rate emulation, RS-485 mode or CRTSCTS, and the
 * peer's receiver changes nothing (ttypair_rx_unchanged()). Whatever
 * changes one of these calls this, under the lock that guards them all.
 *
 * Context: pair->lock held.
 */
void ttypair_tx_route(struct ttypair_pair *pair)
{
	lockdep_assert_held(&pair->lock);
	if (pair->bus)
		return;
	pair->ports[TTYPAIR_END_A]->direct =
		ttypair_tx_direct(pair->ports[TTYPAIR_END_A]);
	pair->ports[TTYPAIR_END_B]->direct =
		ttypair_tx_direct(pair->ports[TTYPAIR_END_B]);
}
