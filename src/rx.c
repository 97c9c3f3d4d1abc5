// SPDX-License-Identifier: GPL-2.0
/*
 * ttypair - the receiving side of an end: what a UART would make of the
 * characters arriving on its RX line. Characters are masked to both ends'
 * character size; in strict mode, mismatched line settings turn them into
 * framing or parity errors; injected errors and noise flag them too. The
 * receiver's termios decide, as for a hardware port's driver, whether an
 * error is dropped (IGNPAR), reported (INPCK) or ignored, and whether a
 * break is dropped (IGNBRK), reported (BRKINT, PARMRK) or read as NUL; the
 * tty drivers promise this with TTY_DRIVER_REAL_RAW.
 *
 * Everything here runs under the pair's lock, which serialises all
 * producers of an end's flip buffer, but the flip buffer's consumer: it
 * tells the peer's writers when the line discipline took bytes.
 */
#include <linux/prandom.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/tty.h>
#include <linux/tty_flip.h>

#include "ttypair.h"
#include "ttypair_compat.h"

static const char *const ttypair_inject_names[TTYPAIR_NR_INJECT] = {
	[TTYPAIR_INJECT_NONE]    = "none",
	[TTYPAIR_INJECT_FRAME]   = "frame",
	[TTYPAIR_INJECT_PARITY]  = "parity",
	[TTYPAIR_INJECT_OVERRUN] = "overrun",
	[TTYPAIR_INJECT_BREAK]   = "break",
};

/**
 * ttypair_inject_parse() - the kind of error a text names
 * @buf: "none", "frame", "parity", "overrun" or "break", a newline allowed
 * @kind: the kind
 *
 * Return: 0 or -EINVAL.
 */
int ttypair_inject_parse(const char *buf, enum ttypair_inject *kind)
{
	int i;

	for (i = 0; i < TTYPAIR_NR_INJECT; i++) {
		if (sysfs_streq(buf, ttypair_inject_names[i])) {
			*kind = i;
			return 0;
		}
	}
	return -EINVAL;
}

/**
 * ttypair_inject_name() - the name of a kind of injected error
 * @kind: the kind
 *
 * Return: its name, as ttypair_inject_parse() reads it.
 */
const char *ttypair_inject_name(enum ttypair_inject kind)
{
	return ttypair_inject_names[kind];
}

/**
 * ttypair_noise_seed() - restart a pair's noise from a seed
 * @pair: the pair
 * @seed: any value
 *
 * The same seed and the same traffic give the same errors.
 *
 * Context: pair->lock held.
 */
void ttypair_noise_seed(struct ttypair_pair *pair, u64 seed)
{
	pair->noise_seed = seed;
	prandom_seed_state(&pair->noise_state, seed);
}

/* A number from 0 to @range - 1, without a division (32-bit kernels) */
static u32 ttypair_rand_below(struct rnd_state *state, u32 range)
{
	return ((u64)prandom_u32_state(state) * range) >> 32;
}

/*
 * Whether a receiver at @rx bits/s samples characters sent at @tx right:
 * within TTYPAIR_BAUD_TOLERANCE_PCT of its own speed. B0 (0) matches only
 * B0.
 */
static bool ttypair_speed_ok(speed_t tx, speed_t rx)
{
	u64 diff = tx > rx ? tx - rx : rx - tx;

	if (!tx || !rx)
		return tx == rx;
	return diff * 100 <= (u64)rx * TTYPAIR_BAUD_TOLERANCE_PCT;
}

/* What a receiver set up as @dst makes of characters sent as @src */
static u8 ttypair_line_mismatch(const struct ttypair_line *src,
				const struct ttypair_line *dst)
{
	if (!ttypair_speed_ok(src->baud, dst->ibaud) ||
	    src->data_bits != dst->data_bits ||
	    src->stop_bits != dst->stop_bits)
		return TTY_FRAME;
	if (src->parity != dst->parity)
		return TTY_PARITY;
	return TTY_NORMAL;
}

/*
 * Whether characters from @src arrive at @dst unchanged: no masking, error
 * or break applies, so that they can be copied into @dst's receive queue as
 * they are. Lock held.
 */
static bool ttypair_rx_plain(struct ttypair_port *src, struct ttypair_port *dst)
{
	struct ttypair_pair *pair = src->pair;

	return src->line.data_bits == 8 && dst->line.data_bits == 8 &&
	       dst->inject == TTYPAIR_INJECT_NONE && !pair->noise_ppm &&
	       (!pair->strict ||
		ttypair_line_mismatch(&src->line, &dst->line) == TTY_NORMAL);
}

/* Queue a break for @dst's line discipline as its termios say; lock held */
static void ttypair_rx_break_char(struct ttypair_port *dst)
{
	dst->icount.brk++;
	if (dst->line.ignbrk || !dst->line.cread)
		return;
	if (!tty_insert_flip_char(&dst->port, 0, dst->line.mark_brk ?
				  TTY_BREAK : TTY_NORMAL))
		dst->icount.buf_overrun++;
}

/*
 * One character, with its errors (@line_flag: what the line did to it, a
 * bus's collision); false if the receive queue is full
 */
static bool ttypair_rx_char(struct ttypair_port *src, struct ttypair_port *dst,
			    u8 ch, u8 line_flag)
{
	struct ttypair_pair *pair = src->pair;
	u8 bits = min(src->line.data_bits, dst->line.data_bits);
	u8 flag = TTY_NORMAL, mark;
	struct rnd_state state = pair->noise_state;
	bool noisy = false;

	ch &= (1U << bits) - 1;
	if (pair->strict)
		flag = ttypair_line_mismatch(&src->line, &dst->line);
	if (line_flag != TTY_NORMAL)
		flag = line_flag;

	if (dst->inject == TTYPAIR_INJECT_BREAK) {
		ttypair_rx_break_char(dst);
		ttypair_mon_emit(dst, TTYPAIR_REC_ERROR, 0, TTYPAIR_REC_ERR_BREAK,
				 NULL, 0);
		dst->inject = TTYPAIR_INJECT_NONE;
		dst->stats.injected++;
	}
	if (dst->inject == TTYPAIR_INJECT_FRAME) {
		flag = TTY_FRAME;
	} else if (dst->inject == TTYPAIR_INJECT_PARITY) {
		flag = TTY_PARITY;
	} else if (dst->inject == TTYPAIR_INJECT_NONE && pair->noise_ppm &&
		   ttypair_rand_below(&state, TTYPAIR_NOISE_MAX) <
		   pair->noise_ppm) {
		/* One bit of the character flipped, as a parity checker sees */
		ch ^= 1U << ttypair_rand_below(&state, bits);
		flag = dst->line.parity != TTYPAIR_PARITY_NONE ? TTY_PARITY :
								 TTY_FRAME;
		noisy = true;
	}

	/* As a 16550 driver: errors are seen (and ignored) only with INPCK */
	if (flag == TTY_NORMAL || !dst->line.inpck || !dst->line.ignpar) {
		mark = dst->line.inpck ? flag : TTY_NORMAL;
		if (!tty_insert_flip_char(&dst->port, ch, mark))
			return false;
		if (dst->inject == TTYPAIR_INJECT_OVERRUN && dst->line.inpck &&
		    !dst->line.ignpar &&
		    !tty_insert_flip_char(&dst->port, 0, TTY_OVERRUN))
			dst->icount.buf_overrun++;
	}

	/* Received: now the character's errors count. */
	pair->noise_state = state;
	if (dst->inject == TTYPAIR_INJECT_OVERRUN)
		dst->icount.overrun++;
	if (dst->inject != TTYPAIR_INJECT_NONE || noisy) {
		dst->stats.injected++;
		/* enum ttypair_inject's kinds are the records' numbers */
		ttypair_mon_emit(dst, TTYPAIR_REC_ERROR, 0, noisy ?
				 TTYPAIR_REC_ERR_NOISE : dst->inject, NULL, 0);
	}
	dst->inject = TTYPAIR_INJECT_NONE;
	if (flag == TTY_FRAME)
		dst->icount.frame++;
	else if (flag == TTY_PARITY)
		dst->icount.parity++;
	return true;
}

/**
 * ttypair_rx_unchanged() - whether characters arrive as they were sent
 * @src: the sending end
 * @dst: the receiving end
 *
 * True when nothing a UART's receiver does applies to any character from
 * @src, whatever its value and whatever the line settings are: 8 bits at
 * both ends, CREAD on at @dst, nothing injected at @dst, no noise, not
 * strict. ttypair_tx_route() uses it.
 *
 * Context: pair->lock held.
 */
bool ttypair_rx_unchanged(struct ttypair_port *src, struct ttypair_port *dst)
{
	return dst->line.cread && !src->pair->strict &&
	       ttypair_rx_plain(src, dst);
}

/**
 * ttypair_rx_deliver() - receive characters sent by the peer
 * @src: the sending end
 * @dst: the receiving end, open
 * @buf: the characters as written
 * @count: how many
 *
 * A receiver without CREAD discards what arrives, as a UART's driver does
 * (the characters still count as received in TIOCGICOUNT, not in the
 * pair's byte counters). Characters are masked and flagged one by one, or
 * copied when nothing applies to them.
 *
 * Context: pair->lock held; does not sleep.
 * Return: how many were taken; fewer than @count when @dst's receive queue
 * is full. Characters dropped because of IGNPAR or CREAD count as taken.
 */
size_t ttypair_rx_deliver(struct ttypair_port *src, struct ttypair_port *dst,
			  const u8 *buf, size_t count)
{
	size_t done;

	lockdep_assert_held(&src->pair->lock);
	if (!dst->line.cread) {
		dst->icount.rx += count;
		return count;
	}
	if (ttypair_rx_plain(src, dst))
		return ttypair_rx_copy(dst, buf, count);

	for (done = 0; done < count; done++)
		if (!ttypair_rx_char(src, dst, buf[done], TTY_NORMAL))
			break;
	ttypair_rx_pushed(dst, done);
	/* An injected error was used up. */
	ttypair_tx_route(src->pair);
	return done;
}

/**
 * ttypair_rx_collided() - a character garbled by a collision arrives
 * @src: the port that sent it
 * @dst: the receiving port, open
 * @ch: the character as the line resolved it
 *
 * It arrives with a framing error, reported, dropped or ignored as the
 * receiver's termios say for any framing error, and counted in
 * icount.frame.
 *
 * Context: pair->lock held.
 * Return: false if @dst's receive queue had no room for it.
 */
bool ttypair_rx_collided(struct ttypair_port *src, struct ttypair_port *dst,
			 u8 ch)
{
	lockdep_assert_held(&dst->pair->lock);
	if (!dst->line.cread) {
		dst->icount.rx++;
		dst->icount.frame++;
		return true;
	}
	if (!ttypair_rx_char(src, dst, ch, TTY_FRAME))
		return false;
	ttypair_rx_pushed(dst, 1);
	return true;
}

/**
 * ttypair_rx_break_locked() - a break arrives at an end
 * @dst: the receiving end
 *
 * Nothing happens if the end is closed.
 *
 * Context: pair->lock held.
 */
void ttypair_rx_break_locked(struct ttypair_port *dst)
{
	lockdep_assert_held(&dst->pair->lock);
	if (dst->active) {
		ttypair_rx_break_char(dst);
		tty_flip_buffer_push(&dst->port);
	}
}

/**
 * ttypair_rx_break() - a break arrives at an end
 * @dst: the receiving end
 *
 * Nothing happens if the end is closed.
 */
void ttypair_rx_break(struct ttypair_port *dst)
{
	unsigned long flags;

	spin_lock_irqsave(&dst->pair->lock, flags);
	ttypair_rx_break_locked(dst);
	spin_unlock_irqrestore(&dst->pair->lock, flags);
}

/**
 * ttypair_rx_xchar_locked() - a flow-control character arrives at an end
 * @dst: the receiving end, open
 * @ch: XOFF or XON of the sender
 *
 * The sender counts it as sent.
 *
 * Context: pair->lock held.
 * Return: false if @dst's receive queue had no room for it.
 */
bool ttypair_rx_xchar_locked(struct ttypair_port *dst, u8 ch)
{
	lockdep_assert_held(&dst->pair->lock);
	if (dst->line.cread) {
		if (!tty_insert_flip_char(&dst->port, ch, TTY_NORMAL))
			return false;
		tty_flip_buffer_push(&dst->port);
		dst->stats.rx++;
	}
	dst->icount.rx++;
	return true;
}

/*
 * The client operations of every end: the kernel's default ones (hand the
 * flip buffer to the line discipline, look ahead for flow-control
 * characters, wake writers), receive_buf wrapped. A copy made at load keeps
 * every operation the running kernel has (lookahead_buf came in 6.0).
 */
static struct tty_port_client_operations ttypair_client_ops __ro_after_init;

/*
 * The flip buffer's worker hands received bytes to the line discipline:
 * room may have been made for the peer's writers, as the kernel's pty
 * tells its writers from n_tty's read. For a tty that is not a pty, n_tty
 * tells the driver only by unthrottling, and other line disciplines (PPP)
 * never do.
 */
static size_t ttypair_rx_receive_buf(struct tty_port *port, const u8 *cp,
				     const u8 *fp, size_t count)
{
	struct ttypair_port *dst = container_of(port, struct ttypair_port,
						port);
	size_t taken;

	taken = tty_port_default_client_ops.receive_buf(port, cp, fp, count);
	ttypair_tx_peer_took(dst);
	return taken;
}

TTYPAIR_DEFINE_RECEIVE_BUF_OP(ttypair_rx_receive_buf)

/**
 * ttypair_rx_ops_init() - set up the client operations of the ends
 *
 * Context: module load, before any end exists.
 */
void __init ttypair_rx_ops_init(void)
{
	ttypair_client_ops = tty_port_default_client_ops;
	ttypair_client_ops.receive_buf =
		TTYPAIR_RECEIVE_BUF_OP(ttypair_rx_receive_buf);
}

/**
 * ttypair_rx_port_init() - make an end's receiver tell its peer of room
 * @tp: the end, its tty_port initialised
 */
void ttypair_rx_port_init(struct ttypair_port *tp)
{
	tp->port.client_ops = &ttypair_client_ops;
}
