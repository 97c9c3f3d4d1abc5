// SPDX-License-Identifier: GPL-2.0
/*
 * ttypair - modem-control lines: the outputs of an end (RTS, DTR, OUT1,
 * OUT2), the wiring that turns the peer's outputs into this end's inputs
 * (CTS, DSR, DCD, RI), and what follows when an input changes: counters,
 * TIOCMIWAIT wake-ups, carrier for opens, hangup on loss of carrier.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/sched/signal.h>
#include <linux/string.h>
#include <linux/tty.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "ttypair.h"

static const char *const ttypair_input_names[TTYPAIR_NR_INPUTS] = {
	[TTYPAIR_IN_CTS] = "cts",
	[TTYPAIR_IN_DSR] = "dsr",
	[TTYPAIR_IN_DCD] = "dcd",
	[TTYPAIR_IN_RI]  = "ri",
};

static const unsigned int ttypair_input_bits[TTYPAIR_NR_INPUTS] = {
	[TTYPAIR_IN_CTS] = TIOCM_CTS,
	[TTYPAIR_IN_DSR] = TIOCM_DSR,
	[TTYPAIR_IN_DCD] = TIOCM_CAR,
	[TTYPAIR_IN_RI]  = TIOCM_RNG,
};

static const char *const ttypair_source_names[TTYPAIR_NR_SOURCES] = {
	[TTYPAIR_SRC_OFF]  = "off",
	[TTYPAIR_SRC_ON]   = "on",
	[TTYPAIR_SRC_RTS]  = "rts",
	[TTYPAIR_SRC_DTR]  = "dtr",
	[TTYPAIR_SRC_OUT1] = "out1",
	[TTYPAIR_SRC_OUT2] = "out2",
	[TTYPAIR_SRC_OPEN] = "open",
};

/* The outputs of the peer that drive a source */
static const unsigned int ttypair_source_bits[TTYPAIR_NR_SOURCES] = {
	[TTYPAIR_SRC_RTS]  = TIOCM_RTS,
	[TTYPAIR_SRC_DTR]  = TIOCM_DTR,
	[TTYPAIR_SRC_OUT1] = TIOCM_OUT1,
	[TTYPAIR_SRC_OUT2] = TIOCM_OUT2,
};

static int ttypair_name_index(const char *const *names, int n,
			      const char *name, size_t len)
{
	int i;

	for (i = 0; i < n; i++)
		if (strlen(names[i]) == len && !strncmp(names[i], name, len))
			return i;
	return -1;
}

/**
 * ttypair_wiring_parse() - change a wiring as a text says
 * @buf: one or more "input=[!]source", separated by spaces or commas; inputs
 *	are cts, dsr, dcd and ri, sources rts, dtr, out1, out2, open, on and
 *	off, and "!" inverts
 * @wiring: the wiring to change; inputs the text does not name keep theirs
 *
 * Return: 0, or -EINVAL if anything in @buf is malformed, unknown or names
 * an input twice; @wiring is then left as it was.
 */
int ttypair_wiring_parse(const char *buf, struct ttypair_wiring *wiring)
{
	struct ttypair_wiring new = *wiring;
	unsigned long named = 0;
	const char *p = buf;
	int items = 0;

	for (;;) {
		const char *eq, *src;
		size_t len, slen;
		bool invert;
		int in, s;

		p += strspn(p, " ,\t\n");
		if (!*p)
			break;
		len = strcspn(p, " ,\t\n");
		eq = memchr(p, '=', len);
		if (!eq)
			return -EINVAL;
		in = ttypair_name_index(ttypair_input_names, TTYPAIR_NR_INPUTS,
					p, eq - p);
		src = eq + 1;
		slen = p + len - src;
		invert = slen && *src == '!';
		if (invert) {
			src++;
			slen--;
		}
		s = ttypair_name_index(ttypair_source_names,
				       TTYPAIR_NR_SOURCES, src, slen);
		if (in < 0 || s < 0 || __test_and_set_bit(in, &named))
			return -EINVAL;
		new.source[in] = s;
		new.invert[in] = invert;
		items++;
		p += len;
	}
	if (!items)
		return -EINVAL;
	*wiring = new;
	return 0;
}

/**
 * ttypair_wiring_format() - a wiring as the text ttypair_wiring_parse() reads
 * @wiring: the wiring
 * @buf: where to write, NUL-terminated, without a newline
 * @size: size of @buf
 *
 * Return: the length of the text, as snprintf().
 */
int ttypair_wiring_format(const struct ttypair_wiring *wiring, char *buf,
			  size_t size)
{
	int i, len = 0;

	buf[0] = '\0';
	for (i = 0; i < TTYPAIR_NR_INPUTS; i++)
		len += snprintf(buf + len, len < size ? size - len : 0,
				"%s%s=%s%s", i ? " " : "",
				ttypair_input_names[i],
				wiring->invert[i] ? "!" : "",
				ttypair_source_names[wiring->source[i]]);
	return len;
}

/* The level of one input of @tp; pair->lock held */
static bool ttypair_input_level(struct ttypair_port *tp, int in)
{
	struct ttypair_port *peer = ttypair_peer(tp);
	u8 source = tp->wiring.source[in];
	bool level;

	switch (source) {
	case TTYPAIR_SRC_OFF:
		level = false;
		break;
	case TTYPAIR_SRC_ON:
		level = true;
		break;
	case TTYPAIR_SRC_OPEN:
		level = peer && peer->active;
		break;
	default:
		/* a bus port's inputs are wired to levels only */
		level = peer && (ttypair_rs485_outputs(peer) &
				 ttypair_source_bits[source]);
		break;
	}
	return level != tp->wiring.invert[in];
}

/**
 * ttypair_inputs_refresh() - recompute the inputs of an end and count changes
 * @tp: the end whose inputs may have changed
 *
 * Context: pair->lock held.
 * Return: the TIOCM_* bits of the inputs that changed, for
 * ttypair_inputs_notify() once the lock is dropped.
 */
unsigned int ttypair_inputs_refresh(struct ttypair_port *tp)
{
	unsigned int msr = 0, changed;
	int i;

	lockdep_assert_held(&tp->pair->lock);
	for (i = 0; i < TTYPAIR_NR_INPUTS; i++)
		if (ttypair_input_level(tp, i))
			msr |= ttypair_input_bits[i];
	changed = msr ^ tp->msr;
	if (changed & TIOCM_CTS)
		tp->icount.cts++;
	if (changed & TIOCM_DSR)
		tp->icount.dsr++;
	if (changed & TIOCM_CAR)
		tp->icount.dcd++;
	/* A 16550 reports the trailing edge of ring indicator only. */
	if ((changed & TIOCM_RNG) && !(msr & TIOCM_RNG))
		tp->icount.rng++;
	tp->msr = msr;
	return changed;
}

/*
 * The carrier of an end dropped while it watches carrier: hang up the tty
 * that lost it, as serial_core does, but synchronously (tty_vhangup()) and
 * from a work item of our own. The asynchronous tty_hangup() queues the
 * tty's hangup_work under a reference that may turn out to be the last
 * one if the tty's final close runs meanwhile; its release then reuses
 * that queued work. The work holds a reference on that tty, and one on
 * the pair, while it is queued; a tty closed by then is left alone by
 * ttypair_hangup(), so a later session of the end is not hung up for the
 * earlier one's carrier.
 */
static void ttypair_hangup_work(struct work_struct *work)
{
	struct ttypair_port *tp = container_of(work, struct ttypair_port,
					       hangup_work);
	struct tty_struct *tty;
	unsigned long flags;

	spin_lock_irqsave(&tp->pair->lock, flags);
	tty = tp->hangup_tty;
	tp->hangup_tty = NULL;
	spin_unlock_irqrestore(&tp->pair->lock, flags);
	if (tty) {
		tty_vhangup(tty);
		tty_kref_put(tty);
	}
	ttypair_pair_put(tp->pair);
}

static void ttypair_hangup_queue(struct ttypair_port *tp)
{
	struct tty_struct *tty = tty_port_tty_get(&tp->port);
	struct tty_struct *old;
	unsigned long flags;

	if (!tty)
		return;
	spin_lock_irqsave(&tp->pair->lock, flags);
	old = tp->hangup_tty;
	tp->hangup_tty = tty;
	if (!old)
		kref_get(&tp->pair->kref);
	spin_unlock_irqrestore(&tp->pair->lock, flags);
	/*
	 * A hangup is queued already: it takes this tty now (one that was
	 * queued before is closed, the port has a new tty).
	 */
	if (old)
		tty_kref_put(old);
	else if (!schedule_work(&tp->hangup_work))
		ttypair_pair_put(tp->pair);	/* not the last: ours is queued */
}

/**
 * ttypair_modem_init() - initialise the modem-line state of an end
 * @tp: the end
 */
void ttypair_modem_init(struct ttypair_port *tp)
{
	INIT_WORK(&tp->hangup_work, ttypair_hangup_work);
}

/**
 * ttypair_modem_flush() - wait until no carrier-loss hangup of an end is
 * pending
 * @tp: the end; nothing may change its inputs any more (it was removed)
 *
 * Context: process context; sleeps.
 */
void ttypair_modem_flush(struct ttypair_port *tp)
{
	flush_work(&tp->hangup_work);
}

/**
 * __ttypair_inputs_notify() - act on changed inputs of an end
 * @tp: the end
 * @changed: what ttypair_inputs_refresh() returned, not 0
 *
 * Wakes TIOCMIWAIT, wakes opens waiting for carrier, hangs the end up when
 * its carrier drops while it watches carrier (CLOCAL clear), and restarts
 * its output when CTS came on.
 *
 * Context: process or softirq context, pair->lock not held.
 */
void __ttypair_inputs_notify(struct ttypair_port *tp, unsigned int changed)
{
	unsigned long flags;
	unsigned int msr;

	spin_lock_irqsave(&tp->pair->lock, flags);
	msr = tp->msr;
	spin_unlock_irqrestore(&tp->pair->lock, flags);

	wake_up_interruptible(&tp->port.delta_msr_wait);
	if (changed & TIOCM_CAR) {
		if (msr & TIOCM_CAR)
			wake_up_interruptible(&tp->port.open_wait);
		else if (tty_port_check_carrier(&tp->port))
			ttypair_hangup_queue(tp);
	}
	if ((changed & TIOCM_CTS) && (msr & TIOCM_CTS))
		ttypair_tx_kick(tp);
}

/**
 * ttypair_modem_set() - change the outputs of an end
 * @tp: the end
 * @clear: TIOCM_* output bits to clear
 * @set: TIOCM_* output bits to set
 *
 * The peer's inputs follow through its wiring.
 */
void ttypair_modem_set(struct ttypair_port *tp, unsigned int clear,
		       unsigned int set)
{
	const unsigned int outputs = TIOCM_RTS | TIOCM_DTR | TIOCM_OUT1 |
				     TIOCM_OUT2;
	struct ttypair_port *peer = ttypair_peer(tp);
	unsigned int changed, old;
	unsigned long flags;

	spin_lock_irqsave(&tp->pair->lock, flags);
	old = tp->mctrl;
	tp->mctrl = (tp->mctrl & ~clear) | (set & outputs);
	if (tp->mctrl != old)
		ttypair_mon_emit(tp, TTYPAIR_REC_MODEM, 0, tp->mctrl, NULL, 0);
	changed = peer ? ttypair_inputs_refresh(peer) : 0;
	spin_unlock_irqrestore(&tp->pair->lock, flags);

	ttypair_inputs_notify(peer, changed);
	/* A bus port's RTS may drive the line: a waiting writer looks again. */
	if (!peer)
		ttypair_tx_room_made(tp);
}

/**
 * ttypair_set_wiring() - rewire the inputs of an end
 * @tp: the end
 * @wiring: the new wiring
 */
void ttypair_set_wiring(struct ttypair_port *tp,
			const struct ttypair_wiring *wiring)
{
	unsigned long flags;
	unsigned int changed;

	spin_lock_irqsave(&tp->pair->lock, flags);
	tp->wiring = *wiring;
	changed = ttypair_inputs_refresh(tp);
	spin_unlock_irqrestore(&tp->pair->lock, flags);

	ttypair_inputs_notify(tp, changed);
}

/**
 * ttypair_tiocmget() - the outputs and inputs of an end, as TIOCMGET
 * @tp: the end
 *
 * Return: TIOCM_* bits.
 */
int ttypair_tiocmget(struct ttypair_port *tp)
{
	unsigned long flags;
	int bits;

	spin_lock_irqsave(&tp->pair->lock, flags);
	bits = ttypair_rs485_outputs(tp) | tp->msr;
	spin_unlock_irqrestore(&tp->pair->lock, flags);
	return bits;
}

/**
 * ttypair_carrier() - whether an end sees carrier (its DCD input)
 * @tp: the end
 *
 * Return: true if DCD is on.
 */
bool ttypair_carrier(struct ttypair_port *tp)
{
	unsigned long flags;
	bool dcd;

	spin_lock_irqsave(&tp->pair->lock, flags);
	dcd = tp->msr & TIOCM_CAR;
	spin_unlock_irqrestore(&tp->pair->lock, flags);
	return dcd;
}

/**
 * ttypair_get_icount() - a snapshot of an end's counters
 * @tp: the end
 * @ic: where to copy them
 */
void ttypair_get_icount(struct ttypair_port *tp, struct ttypair_icount *ic)
{
	unsigned long flags;

	spin_lock_irqsave(&tp->pair->lock, flags);
	*ic = tp->icount;
	spin_unlock_irqrestore(&tp->pair->lock, flags);
}

/* Whether TIOCMIWAIT may return: an input of @mask changed, or hung up */
static bool ttypair_modem_changed(struct ttypair_port *tp,
				  struct tty_struct *tty,
				  const struct ttypair_icount *prev,
				  unsigned long mask)
{
	struct ttypair_icount now;

	if (tty_io_error(tty) || !tty_port_initialized(&tp->port))
		return true;
	ttypair_get_icount(tp, &now);
	return ((mask & TIOCM_RNG) && now.rng != prev->rng) ||
	       ((mask & TIOCM_DSR) && now.dsr != prev->dsr) ||
	       ((mask & TIOCM_CD) && now.dcd != prev->dcd) ||
	       ((mask & TIOCM_CTS) && now.cts != prev->cts);
}

/**
 * ttypair_wait_modem() - TIOCMIWAIT: wait for an input of a mask to change
 * @tp: the end
 * @tty: its tty
 * @mask: TIOCM_RNG, TIOCM_DSR, TIOCM_CD and/or TIOCM_CTS
 *
 * The counters are read once before waiting and compared after every
 * wake-up, so a change between the call and the wait is not missed (as
 * serial_core's uart_wait_modem_status()).
 *
 * Context: process context; sleeps.
 * Return: 0 after a change, -EIO if the end was hung up, -ERESTARTSYS on a
 * signal, -EINVAL if @mask names none of the four inputs.
 */
int ttypair_wait_modem(struct ttypair_port *tp, struct tty_struct *tty,
		       unsigned long mask)
{
	struct ttypair_icount prev;
	int ret;

	if (!(mask & (TIOCM_RNG | TIOCM_DSR | TIOCM_CD | TIOCM_CTS)))
		return -EINVAL;
	ttypair_get_icount(tp, &prev);
	ret = wait_event_interruptible(tp->port.delta_msr_wait,
				       ttypair_modem_changed(tp, tty, &prev,
							     mask));
	if (ret)
		return ret;
	if (tty_io_error(tty) || !tty_port_initialized(&tp->port))
		return -EIO;
	return 0;
}
