// SPDX-License-Identifier: GPL-2.0
/*
 * ttypair - line settings and what serial tools ask of a UART: termios
 * copied into the form the data path uses (speed, frame, flow control,
 * input error handling), B0 and CLOCAL, break, TIOCGSERIAL/TIOCSSERIAL.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/jiffies.h>
#include <linux/math64.h>
#include <linux/serial.h>
#include <linux/tty.h>

#include "ttypair.h"

/*
 * The line settings @termios describes, for an end sending at @baud bits/s
 * and receiving at @ibaud
 */
static void ttypair_line_from_termios(struct ttypair_line *line,
				      const struct ktermios *termios,
				      speed_t baud, speed_t ibaud)
{
	tcflag_t cflag = termios->c_cflag, iflag = termios->c_iflag;
	unsigned int half_bits;

	switch (cflag & CSIZE) {
	case CS5:
		line->data_bits = 5;
		break;
	case CS6:
		line->data_bits = 6;
		break;
	case CS7:
		line->data_bits = 7;
		break;
	default:
		line->data_bits = 8;
		break;
	}
	if (!(cflag & PARENB))
		line->parity = TTYPAIR_PARITY_NONE;
	else if (cflag & CMSPAR)
		line->parity = cflag & PARODD ? TTYPAIR_PARITY_MARK :
						TTYPAIR_PARITY_SPACE;
	else
		line->parity = cflag & PARODD ? TTYPAIR_PARITY_ODD :
						TTYPAIR_PARITY_EVEN;
	line->stop_bits = cflag & CSTOPB ? 2 : 1;

	/* start + data + parity + stop; 1.5 stop bits for 5-bit characters */
	half_bits = 2 * (1 + line->data_bits +
			 (line->parity != TTYPAIR_PARITY_NONE));
	if (!(cflag & CSTOPB))
		half_bits += 2;
	else
		half_bits += line->data_bits == 5 ? 3 : 4;
	line->baud = baud;
	line->ibaud = ibaud;
	line->char_ns = div_u64((u64)half_bits * NSEC_PER_SEC,
				2 * (baud ?: TTYPAIR_B0_BAUD));

	line->cread = cflag & CREAD;
	line->crtscts = cflag & CRTSCTS;
	line->ixoff = iflag & IXOFF;
	line->ignbrk = iflag & IGNBRK;
	line->mark_brk = iflag & (BRKINT | PARMRK);
	line->ignpar = iflag & IGNPAR;
	line->inpck = iflag & INPCK;
	line->stop_char = termios->c_cc[VSTOP];
	line->start_char = termios->c_cc[VSTART];
}

/* The input speed of @termios; 0 when it is "the output speed" (B0) */
static speed_t ttypair_input_speed(const struct ktermios *termios)
{
	struct ktermios in = *termios;
	tcflag_t ibaud = (termios->c_cflag >> IBSHIFT) & CBAUD;

	if (ibaud == B0)
		return 0;
	in.c_cflag = (in.c_cflag & ~CBAUD) | ibaud;
	in.c_ospeed = in.c_ispeed;
	return tty_termios_baud_rate(&in);
}

/*
 * The output speed an end works at: B0, or what user space asked for
 * within TTYPAIR_BAUD_MIN..TTYPAIR_BAUD_MAX (any speed, BOTHER included,
 * is taken: a UART driver rounds to what its clock can do, and so does
 * this one to what it can time). When a speed was out of range, the
 * termios say what is in effect, as serial_core's uart_get_baud_rate()
 * makes them say. *@rx_baud is the input speed, the output speed when the
 * termios give none.
 */
static speed_t ttypair_line_speed(struct tty_struct *tty, bool encode,
				  speed_t *rx_baud)
{
	speed_t obaud = tty_get_baud_rate(tty);
	speed_t ibaud = ttypair_input_speed(&tty->termios);
	speed_t out = obaud, in = ibaud;

	if (C_BAUD(tty) != B0)
		out = clamp_t(speed_t, obaud, TTYPAIR_BAUD_MIN,
			      TTYPAIR_BAUD_MAX);
	if (ibaud)
		in = clamp_t(speed_t, ibaud, TTYPAIR_BAUD_MIN,
			     TTYPAIR_BAUD_MAX);
	if (encode && (out != obaud || in != ibaud))
		tty_encode_baud_rate(tty, in ?: out, out);
	*rx_baud = in ?: out;
	return out;
}

/* A monitor's record of an end's new line settings; lock held */
static void ttypair_line_record(struct ttypair_port *tp)
{
	struct ttypair_record_line rl = {
		.baud = tp->line.baud,
		.ibaud = tp->line.ibaud,
		.data_bits = tp->line.data_bits,
		.parity = tp->line.parity,
		.stop_bits = tp->line.stop_bits,
		.flags = (tp->line.crtscts ? TTYPAIR_LINE_F_CRTSCTS : 0) |
			 (tp->line.ixoff ? TTYPAIR_LINE_F_IXOFF : 0) |
			 (tp->line.cread ? TTYPAIR_LINE_F_CREAD : 0),
	};

	ttypair_mon_emit(tp, TTYPAIR_REC_TERMIOS, 0, 0, &rl, sizeof(rl));
}

/**
 * ttypair_line_update() - take over the termios of an end
 * @tp: the end
 * @tty: its tty, with the new termios
 * @old: the previous termios, or NULL when the end is being opened
 *
 * As a UART driver does: B0 drops DTR and RTS and leaving B0 raises them,
 * CLOCAL decides whether the end watches its carrier, and a change of speed
 * applies from the next character. A speed out of range is replaced in the
 * termios by the one in effect (not when opening: the termios are then as
 * a previous call left them).
 *
 * Context: process context; the termios are written only with
 * tty->termios_rwsem held for writing, as set_termios has it.
 */
void ttypair_line_update(struct ttypair_port *tp, struct tty_struct *tty,
			 const struct ktermios *old)
{
	struct ttypair_line line;
	unsigned long flags;
	speed_t baud, ibaud;

	baud = ttypair_line_speed(tty, !!old, &ibaud);
	ttypair_line_from_termios(&line, &tty->termios, baud, ibaud);
	spin_lock_irqsave(&tp->pair->lock, flags);
	tp->line = line;
	ttypair_tx_route(tp->pair);
	ttypair_line_record(tp);
	spin_unlock_irqrestore(&tp->pair->lock, flags);

	tty_port_set_check_carrier(&tp->port, !C_CLOCAL(tty));
	if (old && (old->c_cflag & CBAUD) != B0 && C_BAUD(tty) == B0) {
		ttypair_modem_set(tp, TIOCM_DTR | TIOCM_RTS, 0);
	} else if (old && (old->c_cflag & CBAUD) == B0 && C_BAUD(tty) != B0) {
		unsigned int set = TIOCM_DTR;

		if (!C_CRTSCTS(tty) || !tty_throttled(tty))
			set |= TIOCM_RTS;
		ttypair_modem_set(tp, 0, set);
	}
	/* Flow control may have been switched off. */
	ttypair_tx_kick(tp);
	/* Without CREAD the end takes all: a writer need not wait for it. */
	ttypair_tx_wake_senders(tp);
}

/**
 * ttypair_break() - start or end a break on an end's transmit line
 * @tp: the end
 * @on: true while the line is held in the break condition
 *
 * The peer (every port of a bus that hears it) receives one break when
 * the condition starts.
 *
 * Return: 0.
 */
int ttypair_break(struct ttypair_port *tp, bool on)
{
	unsigned long flags;
	bool was;

	spin_lock_irqsave(&tp->pair->lock, flags);
	was = tp->breaking;
	tp->breaking = on;
	if (on != was)
		ttypair_mon_emit(tp, TTYPAIR_REC_BREAK, 0, on, NULL, 0);
	spin_unlock_irqrestore(&tp->pair->lock, flags);

	if (on && !was) {
		if (tp->peer)
			ttypair_rx_break(tp->peer);
		else
			ttypair_bus_break(tp);
	}
	return 0;
}

/* close_delay and closing_wait in TIOCGSERIAL's hundredths of a second */
static unsigned short ttypair_to_centisecs(unsigned int jiffies)
{
	return jiffies_to_msecs(jiffies) / 10;
}

static unsigned int ttypair_closing_wait(unsigned short centisecs)
{
	return centisecs == ASYNC_CLOSING_WAIT_NONE ? ASYNC_CLOSING_WAIT_NONE :
		msecs_to_jiffies(centisecs * 10);
}

/**
 * ttypair_get_serial() - TIOCGSERIAL: describe an end as a 16550A UART
 * @tp: the end
 * @ss: filled in (the tty core zeroed it)
 */
void ttypair_get_serial(struct ttypair_port *tp, struct serial_struct *ss)
{
	unsigned long flags;

	ss->type = PORT_16550A;
	ss->line = tp->tty_index;
	ss->xmit_fifo_size = TTYPAIR_FIFO_SIZE;
	ss->baud_base = TTYPAIR_BAUD_BASE;
	spin_lock_irqsave(&tp->pair->lock, flags);
	ss->flags = tp->low_latency ? ASYNC_LOW_LATENCY : 0;
	spin_unlock_irqrestore(&tp->pair->lock, flags);
	mutex_lock(&tp->port.mutex);
	ss->close_delay = ttypair_to_centisecs(tp->port.close_delay);
	ss->closing_wait = tp->port.closing_wait == ASYNC_CLOSING_WAIT_NONE ?
			   ASYNC_CLOSING_WAIT_NONE :
			   ttypair_to_centisecs(tp->port.closing_wait);
	mutex_unlock(&tp->port.mutex);
}

/**
 * ttypair_set_serial() - TIOCSSERIAL
 * @tp: the end
 * @ss: the settings user space asks for
 *
 * What TIOCGSERIAL reported is accepted back. Of the rest, only
 * ASYNC_LOW_LATENCY, and with CAP_SYS_ADMIN close_delay and closing_wait,
 * may change: there is no hardware to reconfigure, and speeds are set with
 * termios (BOTHER), not with custom divisors.
 *
 * Return: 0; -EINVAL for anything else, -EPERM for a timing change without
 * CAP_SYS_ADMIN. Nothing changes on an error.
 */
int ttypair_set_serial(struct ttypair_port *tp, struct serial_struct *ss)
{
	unsigned int close_delay = msecs_to_jiffies(ss->close_delay * 10);
	unsigned int closing_wait = ttypair_closing_wait(ss->closing_wait);
	unsigned long flags;
	int ret = 0;

	if (ss->custom_divisor || (ss->flags & ASYNC_SPD_MASK)) {
		pr_info_ratelimited("%s%u: custom divisors are not supported; set the speed with termios\n",
				    ttypair_port_prefix(tp), tp->tty_index);
		return -EINVAL;
	}
	if (ss->type != PORT_16550A || ss->line != tp->tty_index ||
	    ss->port || ss->port_high || ss->irq || ss->hub6 || ss->io_type ||
	    ss->iomem_base || ss->iomem_reg_shift ||
	    ss->baud_base != TTYPAIR_BAUD_BASE ||
	    (ss->xmit_fifo_size && ss->xmit_fifo_size != TTYPAIR_FIFO_SIZE) ||
	    (ss->flags & ~ASYNC_LOW_LATENCY))
		return -EINVAL;

	mutex_lock(&tp->port.mutex);
	if ((close_delay != tp->port.close_delay ||
	     closing_wait != tp->port.closing_wait) &&
	    !capable(CAP_SYS_ADMIN)) {
		ret = -EPERM;
	} else {
		tp->port.close_delay = close_delay;
		tp->port.closing_wait = closing_wait;
		spin_lock_irqsave(&tp->pair->lock, flags);
		tp->low_latency = ss->flags & ASYNC_LOW_LATENCY;
		spin_unlock_irqrestore(&tp->pair->lock, flags);
	}
	mutex_unlock(&tp->port.mutex);
	return ret;
}
