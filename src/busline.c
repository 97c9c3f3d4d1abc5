// SPDX-License-Identifier: GPL-2.0
/*
 * ttypair - the line of a bus: an RS-485 multi-drop line of N ports. What
 * a port sends while it drives the line, every other open port receives,
 * each through its own receiver (rx.c: its character size, its strict-mode
 * check against the sender's line settings, its injected errors, the bus's
 * noise). The sender hears itself too when its RS-485 settings say
 * SER_RS485_RX_DURING_TX, as a transceiver whose receiver stays enabled.
 *
 * When a port drives the line (its drive setting):
 *   auto    in RS-485 mode, while a transmission is on: from RTS taking
 *           its level for sending, through the characters and the delays,
 *           to its return (xfer.c times it); otherwise always
 *   rts     while the port's RTS output is asserted (TIOCMSET, the open
 *           and close, or in RS-485 mode the transmitter): stacks that
 *           toggle RTS from user space, a transceiver's DE pin on RTS
 *   always  always
 * What a port sends while it does not drive the line goes nowhere; it is
 * counted (undriven_bytes).
 *
 * Flow. By default no character is lost: a sender hands over a run of
 * characters only as far as every port that hears it has room, and makes
 * sure of that room in each receive queue first, so that all receivers
 * get the same characters. Otherwise it waits as a pair's end does
 * (xfer.c): any receiver that hands bytes to its line discipline wakes the
 * ports that wait (ttypair_bus_took()), and they look again: a slow
 * listener slows the whole bus. With the bus's overrun setting a receiver without room loses the
 * characters instead, as a UART's FIFO overruns: they count in its
 * icount.buf_overrun, and (with INPCK) the next character it receives is
 * preceded by a TTY_OVERRUN mark; senders never wait.
 *
 * Without baud-rate emulation there is no time on the line: each write
 * reaches every receiver in the order the writes happened (the bus's lock
 * orders them), and a write of up to TTYPAIR_BUS_ATOMIC bytes (a frame of
 * Modbus RTU, BACnet MS/TP or DMX) whole, never split by another port's:
 * it is taken all at once or not at all, and write_room() says 0 until
 * every receiver has room for that much, so that poll() does not report
 * room that such a write could not have. Longer writes may be split where
 * a receiver is full.
 *
 * With baud-rate emulation each port's characters leave its FIFO at its
 * line rate (xfer.c), each on the line for its character time, and reach
 * the receivers as they leave. Two ports that drive the line at once
 * collide: a character whose time on the line overlaps a character of
 * another port arrives at every receiver (the senders' echoes included)
 * with a framing error, its value the wired-AND of the overlapping
 * characters (an RS-485 receiver sees the dominant level where two drivers
 * disagree; idle and stop bits are the recessive one), and counts in
 * icount.frame. Another port's characters are those it has put on the line
 * (the last one, remembered) and those its running FIFO will put there
 * (their times are known: back to back from the first), so that both sides
 * of a collision see it, whichever timer runs first. A FIFO that waits (for
 * room, XON or CTS) has no time on the line.
 *
 * Everything here but the wake-ups runs under the bus's lock (the struct
 * ttypair_pair's), which serialises every producer of every port's receive
 * queue.
 */
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/serial.h>
#include <linux/sysfs.h>
#include <linux/tty.h>
#include <linux/tty_flip.h>

#include "ttypair.h"

/* Writes up to this size are taken whole or not at all */
#define TTYPAIR_BUS_ATOMIC	1024U

static const char *const ttypair_drive_names[TTYPAIR_NR_DRIVE] = {
	[TTYPAIR_DRIVE_AUTO]	= "auto",
	[TTYPAIR_DRIVE_RTS]	= "rts",
	[TTYPAIR_DRIVE_ALWAYS]	= "always",
};

/**
 * ttypair_drive_parse() - the drive setting a text names
 * @buf: "auto", "rts" or "always", a newline allowed
 * @drive: the setting
 *
 * Return: 0 or -EINVAL.
 */
int ttypair_drive_parse(const char *buf, enum ttypair_drive *drive)
{
	int i;

	for (i = 0; i < TTYPAIR_NR_DRIVE; i++) {
		if (sysfs_streq(buf, ttypair_drive_names[i])) {
			*drive = i;
			return 0;
		}
	}
	return -EINVAL;
}

/**
 * ttypair_drive_name() - the name of a drive setting
 * @drive: the setting
 *
 * Return: its name, as ttypair_drive_parse() reads it.
 */
const char *ttypair_drive_name(enum ttypair_drive drive)
{
	return ttypair_drive_names[drive];
}

/**
 * ttypair_bus_driving() - whether a port of a bus drives the line now
 * @src: the port
 *
 * Context: the bus's lock held.
 * Return: true if what @src sends reaches the line.
 */
bool ttypair_bus_driving(const struct ttypair_port *src)
{
	switch (src->drive) {
	case TTYPAIR_DRIVE_RTS:
		return ttypair_rs485_outputs(src) & TIOCM_RTS;
	case TTYPAIR_DRIVE_ALWAYS:
		return true;
	default:
		return !(src->rs485.flags & SER_RS485_ENABLED) ||
		       src->txq.rts_active;
	}
}

/*
 * Whether @dst hears what @src sends: it is open, and it is another port,
 * or @src itself with its receiver left on while it sends (RS-485's
 * RX_DURING_TX, which is only ever set in RS-485 mode). Lock held.
 */
static bool ttypair_bus_hears(const struct ttypair_port *src,
			      const struct ttypair_port *dst)
{
	if (!dst->active)
		return false;
	return dst != src || (src->rs485.flags & SER_RS485_RX_DURING_TX);
}

/* Whether @dst holds a sender back: it hears it and keeps what it hears */
static bool ttypair_bus_holds(const struct ttypair_port *src,
			      const struct ttypair_port *dst)
{
	return !src->pair->overrun && ttypair_bus_hears(src, dst) &&
	       dst->line.cread;
}

/**
 * ttypair_bus_room() - how many characters a port of a bus may send now
 * @src: the port
 *
 * Context: the bus's lock held.
 * Return: the least free space in the receive queues of the ports that
 * hear @src and keep what they receive, 0 while that is less than
 * TTYPAIR_BUS_ATOMIC; TTYPAIR_DISCARD_ROOM when there are none, when @src
 * does not drive the line, in overrun mode, or when the bus was removed.
 */
unsigned int ttypair_bus_room(struct ttypair_port *src)
{
	struct ttypair_pair *bus = src->pair;
	unsigned int i, nr = ttypair_nr_ports(bus);
	unsigned int room = TTYPAIR_DISCARD_ROOM;

	lockdep_assert_held(&bus->lock);
	if (!ttypair_bus_driving(src) || bus->dead)
		return room;
	for (i = 0; i < nr; i++)
		if (ttypair_bus_holds(src, bus->ports[i]))
			room = min_t(unsigned int, room,
				     tty_buffer_space_avail(&bus->ports[i]->port));
	return room < TTYPAIR_BUS_ATOMIC ? 0 : room;
}

/*
 * Make sure @dst's receive queue takes @count characters without failing:
 * the room is allocated now, in the flagged form that every kind of
 * character fits, with room for the marks @dst may add (an injected break
 * before a character, an injected overrun after it, a pending overrun mark
 * before them). Returns how many of @count fit.
 */
static size_t ttypair_bus_reserve(struct ttypair_port *dst, size_t count)
{
	size_t extra = (dst->inject != TTYPAIR_INJECT_NONE ? 1 : 0) +
		       (dst->overrun_pending ? 1 : 0);
	size_t room = tty_buffer_request_room(&dst->port, count + extra);

	return room > extra ? room - extra : 0;
}

/*
 * How many of @count characters every port that holds @src back can take
 * now, that room made sure of: all or none of up to TTYPAIR_BUS_ATOMIC.
 * Lock held.
 */
static size_t ttypair_bus_fit(struct ttypair_port *src, size_t count)
{
	struct ttypair_pair *bus = src->pair;
	unsigned int i, nr = ttypair_nr_ports(bus);
	size_t want = count;

	count = min_t(size_t, count, ttypair_bus_room(src));
	for (i = 0; i < nr && count; i++) {
		struct ttypair_port *dst = bus->ports[i];

		if (ttypair_bus_holds(src, dst))
			count = min(count, ttypair_bus_reserve(dst, count));
	}
	return count < min_t(size_t, want, TTYPAIR_BUS_ATOMIC) ? 0 : count;
}

/*
 * Whether any port hears @src; lock held. On a removed bus nobody does:
 * its ports are being hung up one by one, and what a writer that waited
 * sends while the others go must reach none of them.
 */
static bool ttypair_bus_heard(struct ttypair_port *src)
{
	struct ttypair_pair *bus = src->pair;
	unsigned int i, nr = ttypair_nr_ports(bus);

	if (bus->dead)
		return false;
	for (i = 0; i < nr; i++)
		if (ttypair_bus_hears(src, bus->ports[i]))
			return true;
	return false;
}

/*
 * @dst receives characters of @src (@collided: one character garbled by a
 * collision). In overrun mode what does not fit is lost and marked;
 * otherwise the room was made sure of. Lock held.
 */
static void ttypair_bus_receive(struct ttypair_port *src,
				struct ttypair_port *dst, const u8 *buf,
				size_t count, bool collided)
{
	size_t done;

	/*
	 * As for an injected overrun (rx.c), a 16550's driver reports the
	 * overrun only with INPCK and without IGNPAR: in raw mode n_tty
	 * would read the mark as a NUL.
	 */
	if (dst->overrun_pending && dst->line.cread &&
	    (!dst->line.inpck || dst->line.ignpar ||
	     tty_insert_flip_char(&dst->port, 0, TTY_OVERRUN)))
		dst->overrun_pending = false;
	if (collided)
		done = ttypair_rx_collided(src, dst, *buf);
	else
		done = ttypair_rx_deliver(src, dst, buf, count);
	if (done < count) {
		dst->icount.buf_overrun += count - done;
		dst->overrun_pending = true;
	}
}

/*
 * Send characters from @src, driving: as many as all hearers take; with
 * @collided, one character garbled by a collision. Lock held.
 */
static size_t ttypair_bus_send(struct ttypair_port *src, const u8 *buf,
			       size_t count, bool collided)
{
	struct ttypair_pair *bus = src->pair;
	unsigned int i, nr = ttypair_nr_ports(bus);

	if (!ttypair_bus_heard(src)) {
		src->stats.discarded += count;
		src->icount.tx += count;
		return count;
	}
	count = ttypair_bus_fit(src, count);
	if (!count)
		return 0;
	for (i = 0; i < nr; i++)
		if (ttypair_bus_hears(src, bus->ports[i]))
			ttypair_bus_receive(src, bus->ports[i], buf, count,
					    collided);
	src->stats.tx += count;
	src->icount.tx += count;
	return count;
}

/**
 * ttypair_bus_deliver() - send characters from a port of a bus
 * @src: the sending port
 * @buf: the characters
 * @count: how many
 *
 * Without time on the line: no collisions.
 *
 * Context: the bus's lock held; does not sleep.
 * Return: how many were sent: all of @count when @src does not drive the
 * line (they are counted as undriven), when no port hears it (discarded)
 * or in overrun mode; otherwise as many as every port that hears @src can
 * take, possibly none.
 */
size_t ttypair_bus_deliver(struct ttypair_port *src, const u8 *buf,
			   size_t count)
{
	lockdep_assert_held(&src->pair->lock);
	if (!ttypair_bus_driving(src)) {
		src->stats.undriven += count;
		src->icount.tx += count;
		return count;
	}
	return ttypair_bus_send(src, buf, count, false);
}

/* Whether [@s1, @e1) and [@s2, @e2) overlap */
static bool ttypair_overlap(ktime_t s1, ktime_t e1, ktime_t s2, ktime_t e2)
{
	return ktime_before(s1, e2) && ktime_before(s2, e1);
}

/*
 * Whether a character of @src on the line from @s to @e collides with a
 * character of another port that drives the line; *@and collects their
 * wired-AND. Lock held.
 */
static bool ttypair_bus_collides(struct ttypair_port *src, ktime_t s,
				 ktime_t e, u8 *and)
{
	struct ttypair_pair *bus = src->pair;
	unsigned int i, nr = ttypair_nr_ports(bus);
	bool hit = false;

	for (i = 0; i < nr; i++) {
		struct ttypair_port *p = bus->ports[i];
		struct ttypair_txq *q = &p->txq;
		unsigned int len = q->head - q->tail, k, last;
		u64 c = p->line.char_ns;
		ktime_t first;

		if (p == src || !p->active || !ttypair_bus_driving(p))
			continue;
		/* the last character it put on the line */
		if (p->line_ns &&
		    ttypair_overlap(s, e, ktime_sub_ns(p->line_end, p->line_ns),
				    p->line_end)) {
			*and &= p->line_char;
			hit = true;
		}
		/* those its running FIFO puts there, back to back */
		if (!len || !q->armed || !c)
			continue;
		first = ktime_sub_ns(q->next, c);
		if (!ttypair_overlap(s, e, first, ktime_add_ns(first, len * c)))
			continue;
		k = ktime_before(s, first) ? 0 :
		    div64_u64(ktime_to_ns(ktime_sub(s, first)), c);
		last = min_t(u64, len - 1,
			     div64_u64(ktime_to_ns(ktime_sub(e, first)) - 1, c));
		for (; k <= last && k < len; k++)
			*and &= q->buf[(q->tail + k) & (TTYPAIR_FIFO_SIZE - 1)];
		hit = true;
	}
	return hit;
}

/**
 * ttypair_bus_deliver_paced() - send characters that took their time
 * @src: the sending port, with baud-rate emulation
 * @buf: the characters
 * @count: how many
 * @end: when the first of them has left the line
 * @char_ns: the time each one takes
 *
 * As ttypair_bus_deliver(), and each character that overlapped one of
 * another port on the line arrives garbled (see the top of this file).
 *
 * Context: the bus's lock held; does not sleep.
 * Return: how many were sent.
 */
size_t ttypair_bus_deliver_paced(struct ttypair_port *src, const u8 *buf,
				 size_t count, ktime_t end, u64 char_ns)
{
	size_t i = 0, run, done;
	u8 and, ch;

	lockdep_assert_held(&src->pair->lock);
	if (!ttypair_bus_driving(src))
		return ttypair_bus_deliver(src, buf, count);
	while (i < count) {
		/* the characters that collide with nothing go as a run */
		for (run = 0; i + run < count; run++) {
			ktime_t e = ktime_add_ns(end, (i + run) * char_ns);

			and = 0xff;
			if (ttypair_bus_collides(src, ktime_sub_ns(e, char_ns), e,
						 &and))
				break;
		}
		if (run) {
			done = ttypair_bus_send(src, buf + i, run, false);
		} else {
			ch = buf[i] & and;
			done = ttypair_bus_send(src, &ch, 1, true);
		}
		if (done) {
			src->line_end = ktime_add_ns(end, (i + done - 1) * char_ns);
			src->line_ns = char_ns;
			src->line_char = buf[i + done - 1];
		}
		i += done;
		if (done < (run ? run : 1))
			break;
	}
	return i;
}

/**
 * ttypair_bus_xchar() - send XON or XOFF from a port of a bus
 * @src: the sending port
 * @ch: the character
 *
 * Context: the bus's lock held.
 * Return: false if a port that hears @src has no room for it (then
 * nothing was sent); true if it was sent, or went nowhere.
 */
bool ttypair_bus_xchar(struct ttypair_port *src, u8 ch)
{
	struct ttypair_pair *bus = src->pair;
	unsigned int i, nr = ttypair_nr_ports(bus);

	lockdep_assert_held(&bus->lock);
	if (!ttypair_bus_driving(src)) {
		src->stats.undriven++;
		src->icount.tx++;
		return true;
	}
	if (!ttypair_bus_heard(src))
		return true;
	if (!ttypair_bus_fit(src, 1))
		return false;
	for (i = 0; i < nr; i++) {
		struct ttypair_port *dst = bus->ports[i];

		if (ttypair_bus_hears(src, dst) &&
		    !ttypair_rx_xchar_locked(dst, ch)) {
			dst->icount.buf_overrun++;
			dst->overrun_pending = true;
		}
	}
	src->stats.tx++;
	src->icount.tx++;
	return true;
}

/**
 * ttypair_bus_break() - a port of a bus starts a break
 * @src: the port
 *
 * Every port that hears it receives the break, if @src drives the line.
 */
void ttypair_bus_break(struct ttypair_port *src)
{
	struct ttypair_pair *bus = src->pair;
	unsigned int i, nr = ttypair_nr_ports(bus);
	unsigned long flags;

	spin_lock_irqsave(&bus->lock, flags);
	if (ttypair_bus_driving(src))
		for (i = 0; i < nr; i++)
			if (ttypair_bus_hears(src, bus->ports[i]))
				ttypair_rx_break_locked(bus->ports[i]);
	spin_unlock_irqrestore(&bus->lock, flags);
}

/**
 * ttypair_bus_wake_senders() - the ports of a bus that wait for room go on
 * @dst: a port that made room, closed or stopped keeping what it receives
 *
 * Each port that waits looks at the room of all its receivers again
 * (ttypair_tx_room_made()); one that still finds no room waits again.
 *
 * Context: process context or the flip buffer's worker; the bus's lock not
 * held.
 */
void ttypair_bus_wake_senders(struct ttypair_port *dst)
{
	struct ttypair_pair *bus = dst->pair;
	unsigned int i, nr = ttypair_nr_ports(bus);

	for (i = 0; i < nr; i++)
		if (READ_ONCE(bus->ports[i]->txq.wait_room))
			ttypair_tx_room_made(bus->ports[i]);
}

/**
 * ttypair_bus_took() - a port of a bus handed bytes to its line discipline
 * @dst: the port
 *
 * If its receive queue has room, the ports that wait for room look again.
 * Without the lock: see ttypair_tx_peer_took().
 */
void ttypair_bus_took(struct ttypair_port *dst)
{
	if (tty_buffer_space_avail(&dst->port))
		ttypair_bus_wake_senders(dst);
}
