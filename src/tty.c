// SPDX-License-Identifier: GPL-2.0
/*
 * ttypair - the three tty drivers (A ends, B ends, ports of buses) and the
 * tty and tty_port operations of an end or port.
 *
 * Lifetime follows the tty_port model: install references the pair, cleanup
 * drops the reference; open, close and hangup go through the tty_port
 * helpers, which call activate and shutdown on first open and last close.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/tty.h>
#include <linux/tty_driver.h>
#include <linux/uaccess.h>

#include "ttypair.h"
#include "ttypair_compat.h"

/* The drivers: an end of a pair by its end's id, or the ports of buses */
#define TTYPAIR_DRIVER_BUS	TTYPAIR_NR_ENDS
#define TTYPAIR_NR_DRIVERS	(TTYPAIR_NR_ENDS + 1)

static struct tty_driver *ttypair_drivers[TTYPAIR_NR_DRIVERS];

static unsigned int ttypair_port_driver_id(const struct ttypair_port *tp)
{
	return tp->pair->bus ? TTYPAIR_DRIVER_BUS : tp->id;
}

/**
 * ttypair_port_prefix() - the device name of an end or port, but its number
 * @tp: the end or port
 *
 * Return: "ttyVPA", "ttyVPB" or "ttyVPS"; the number is @tp->tty_index.
 */
const char *ttypair_port_prefix(const struct ttypair_port *tp)
{
	static const char *const names[TTYPAIR_NR_DRIVERS] = {
		[TTYPAIR_END_A]		= TTYPAIR_NAME_A,
		[TTYPAIR_END_B]		= TTYPAIR_NAME_B,
		[TTYPAIR_DRIVER_BUS]	= TTYPAIR_NAME_BUS,
	};

	return names[ttypair_port_driver_id(tp)];
}

static int ttypair_install(struct tty_driver *driver, struct tty_struct *tty)
{
	struct ttypair_port *tp;
	int ret;

	if (driver == ttypair_drivers[TTYPAIR_DRIVER_BUS])
		tp = ttypair_bus_port_lookup(tty->index);
	else
		tp = ttypair_port_lookup(driver == ttypair_drivers[TTYPAIR_END_A] ?
					 TTYPAIR_END_A : TTYPAIR_END_B,
					 tty->index);
	if (!tp)
		return -ENODEV;

	ret = tty_port_install(&tp->port, driver, tty);
	if (ret) {
		ttypair_pair_put(tp->pair);
		return ret;
	}
	tty->driver_data = tp;
	/*
	 * The tty core gave the tty the termios the last tty at this index
	 * had: this end's, or a removed pair's. A new pair starts from the
	 * driver's defaults, as a port that was just plugged in.
	 */
	if (!tp->installed) {
		tty->termios = driver->init_termios;
		tp->installed = true;
	}
	ttypair_tx_reset(tp);
	return 0;
}

static void ttypair_cleanup(struct tty_struct *tty)
{
	struct ttypair_port *tp = tty->driver_data;

	tty->driver_data = NULL;
	ttypair_pair_put(tp->pair);
}

static int ttypair_open(struct tty_struct *tty, struct file *filp)
{
	struct ttypair_port *tp = tty->driver_data;

	/*
	 * First open, or the first after a hangup: drop what the receive
	 * queue kept from before (a hangup does not flush it). Done here,
	 * under the tty lock as tty_port_close() does it, and not in
	 * activate(): that runs under port->mutex, and flushing takes the
	 * line discipline's termios_rwsem, which serial_core takes
	 * port->mutex under (lockdep found the cycle). The port cannot
	 * become initialised meanwhile, that needs this tty's lock too; and
	 * the peer inserts nothing until activate() makes the end active.
	 */
	if (!tty_port_initialized(&tp->port))
		tty_ldisc_flush(tty);
	return tty_port_open(&tp->port, tty, filp);
}

static void ttypair_close(struct tty_struct *tty, struct file *filp)
{
	struct ttypair_port *tp = tty->driver_data;

	tty_port_close(&tp->port, tty, filp);
}

/*
 * A hangup of a tty that no longer owns the port (it was closed before a
 * carrier-loss hangup reached it, and the port may be another tty's now)
 * must leave the port alone: tty_port_hangup() would zero the new tty's
 * open count and shut its port down under it. While this tty owns the
 * port, no other tty can take it: the core serialises this hangup with the
 * tty's close by the tty lock.
 */
static void ttypair_hangup(struct tty_struct *tty)
{
	struct ttypair_port *tp = tty->driver_data;
	unsigned long flags;
	bool owner;

	spin_lock_irqsave(&tp->port.lock, flags);
	owner = tp->port.tty == tty;
	spin_unlock_irqrestore(&tp->port.lock, flags);
	if (owner) {
		ttypair_mon_event(tp, TTYPAIR_REC_HANGUP, 0);
		tty_port_hangup(&tp->port);
	}
}

static ssize_t ttypair_write(struct tty_struct *tty, const u8 *buf,
			     size_t count)
{
	return ttypair_xmit(tty->driver_data, buf, count);
}

TTYPAIR_DEFINE_WRITE_OP(ttypair_write)

static unsigned int ttypair_write_room(struct tty_struct *tty)
{
	return ttypair_tx_room(tty->driver_data);
}

TTYPAIR_DEFINE_ROOM_OP(ttypair_write_room)

/* Bytes in the transmit FIFO: TIOCOUTQ, and what tcdrain() waits for */
static unsigned int ttypair_chars_in_buffer(struct tty_struct *tty)
{
	return ttypair_tx_queued(tty->driver_data);
}

TTYPAIR_DEFINE_ROOM_OP(ttypair_chars_in_buffer)

static void ttypair_flush_buffer(struct tty_struct *tty)
{
	ttypair_tx_flush(tty->driver_data);
}

/*
 * The reader's line discipline is nearly full: as a UART driver, drop RTS
 * under hardware flow control and send XOFF under IXOFF.
 */
static void ttypair_throttle(struct tty_struct *tty)
{
	struct ttypair_port *tp = tty->driver_data;

	if (I_IXOFF(tty))
		ttypair_send_xchar(tp, STOP_CHAR(tty));
	if (C_CRTSCTS(tty))
		ttypair_modem_set(tp, TIOCM_RTS, 0);
}

/*
 * The reader's line discipline made room again: undo the throttle. The
 * other end's writers and FIFO are woken only if they wait for room and
 * there is some; the flip buffer's work, which n_tty kicks now, wakes them
 * once it has handed bytes over (ttypair_tx_peer_took()).
 */
static void ttypair_unthrottle(struct tty_struct *tty)
{
	struct ttypair_port *tp = tty->driver_data;

	if (I_IXOFF(tty))
		ttypair_send_xchar(tp, START_CHAR(tty));
	if (C_CRTSCTS(tty))
		ttypair_modem_set(tp, 0, TIOCM_RTS);
	ttypair_tx_peer_took(tp);
}

/* tcflow(TCIOFF/TCION): XOFF/XON go out ahead of queued data */
static void ttypair_send_xchar_op(struct tty_struct *tty, u8 ch)
{
	ttypair_send_xchar(tty->driver_data, ch);
}

TTYPAIR_DEFINE_SEND_XCHAR_OP(ttypair_send_xchar_op)

static void ttypair_stop(struct tty_struct *tty)
{
	ttypair_set_tx_stopped(tty->driver_data, true);
}

static void ttypair_start(struct tty_struct *tty)
{
	ttypair_set_tx_stopped(tty->driver_data, false);
}

/*
 * Defining this operation is also what lets the core keep the hardware bits
 * (speed, character size, parity) that user space sets, as on a real UART.
 */
static void ttypair_set_termios(struct tty_struct *tty,
				const struct ktermios *old)
{
	ttypair_line_update(tty->driver_data, tty, old);
}

TTYPAIR_DEFINE_SET_TERMIOS_OP(ttypair_set_termios)

/*
 * The serial ioctls serial_core answers for its ports: TIOCMIWAIT,
 * RS-485 mode, and the line status (TIOCSER_TEMT once nothing is left to
 * send, what Modbus stacks time their RS-485 turnaround by).
 */
static int ttypair_ioctl(struct tty_struct *tty, unsigned int cmd,
			 unsigned long arg)
{
	struct ttypair_port *tp = tty->driver_data;

	switch (cmd) {
	case TIOCMIWAIT:
		return ttypair_wait_modem(tp, tty, arg);
	case TIOCGRS485:
	case TIOCSRS485:
		if (tty_io_error(tty))
			return -EIO;
		return ttypair_rs485_ioctl(tp, cmd, (void __user *)arg);
	case TIOCSERGETLSR:
		if (tty_io_error(tty))
			return -EIO;
		return put_user(ttypair_tx_empty(tp) ? TIOCSER_TEMT : 0,
				(unsigned int __user *)arg);
	}
	return -ENOIOCTLCMD;
}

static int ttypair_op_tiocmget(struct tty_struct *tty)
{
	return ttypair_tiocmget(tty->driver_data);
}

static int ttypair_op_tiocmset(struct tty_struct *tty, unsigned int set,
			       unsigned int clear)
{
	ttypair_modem_set(tty->driver_data, clear, set);
	return 0;
}

static int ttypair_break_ctl(struct tty_struct *tty, int state)
{
	return ttypair_break(tty->driver_data, state != 0);
}

static int ttypair_op_get_icount(struct tty_struct *tty,
				 struct serial_icounter_struct *icount)
{
	struct ttypair_icount ic;

	ttypair_get_icount(tty->driver_data, &ic);
	icount->cts = ic.cts;
	icount->dsr = ic.dsr;
	icount->rng = ic.rng;
	icount->dcd = ic.dcd;
	icount->rx = ic.rx;
	icount->tx = ic.tx;
	icount->frame = ic.frame;
	icount->parity = ic.parity;
	icount->overrun = ic.overrun;
	icount->brk = ic.brk;
	icount->buf_overrun = ic.buf_overrun;
	return 0;
}

static int ttypair_op_get_serial(struct tty_struct *tty,
				 struct serial_struct *ss)
{
	ttypair_get_serial(tty->driver_data, ss);
	return 0;
}

static int ttypair_op_set_serial(struct tty_struct *tty,
				 struct serial_struct *ss)
{
	return ttypair_set_serial(tty->driver_data, ss);
}

static const struct tty_operations ttypair_tty_ops = {
	.install	 = ttypair_install,
	.open		 = ttypair_open,
	.close		 = ttypair_close,
	.cleanup	 = ttypair_cleanup,
	.hangup		 = ttypair_hangup,
	.write		 = TTYPAIR_WRITE_OP(ttypair_write),
	.write_room	 = TTYPAIR_ROOM_OP(ttypair_write_room),
	.chars_in_buffer = TTYPAIR_ROOM_OP(ttypair_chars_in_buffer),
	.flush_buffer	 = ttypair_flush_buffer,
	.ioctl		 = ttypair_ioctl,
	.throttle	 = ttypair_throttle,
	.unthrottle	 = ttypair_unthrottle,
	.send_xchar	 = TTYPAIR_SEND_XCHAR_OP(ttypair_send_xchar_op),
	.stop		 = ttypair_stop,
	.start		 = ttypair_start,
	.set_termios	 = TTYPAIR_SET_TERMIOS_OP(ttypair_set_termios),
	.break_ctl	 = ttypair_break_ctl,
	.tiocmget	 = ttypair_op_tiocmget,
	.tiocmset	 = ttypair_op_tiocmset,
	.get_icount	 = ttypair_op_get_icount,
	.get_serial	 = ttypair_op_get_serial,
	.set_serial	 = ttypair_op_set_serial,
};

/*
 * First open. Bytes that reached this end's receive queue while it was
 * being closed belong to the previous session: drop them before the end
 * starts accepting data again.
 */
static int ttypair_port_activate(struct tty_port *port, struct tty_struct *tty)
{
	struct ttypair_port *tp = container_of(port, struct ttypair_port, port);
	unsigned long flags;
	bool dead;
	int ret;

	/* The pair was removed after this open found it. */
	spin_lock_irqsave(&tp->pair->lock, flags);
	dead = tp->pair->dead;
	spin_unlock_irqrestore(&tp->pair->lock, flags);
	if (dead)
		return -ENODEV;
	ret = ttypair_tx_alloc(tp);
	if (ret)
		return ret;
	ttypair_line_update(tp, tty, NULL);
	ttypair_set_active(tp, true);
	return 0;
}

/* Last close or hangup: from now on the peer's writes are discarded. */
static void ttypair_port_shutdown(struct tty_port *port)
{
	struct ttypair_port *tp = container_of(port, struct ttypair_port, port);

	ttypair_set_active(tp, false);
	ttypair_break(tp, false);
	/* A writer waiting for room goes on: its bytes are dropped. */
	ttypair_tx_wake_senders(tp);
}

/* Carrier is the DCD input, as the wiring drives it. */
static bool ttypair_port_carrier_raised(struct tty_port *port)
{
	return ttypair_carrier(container_of(port, struct ttypair_port, port));
}

TTYPAIR_DEFINE_CARRIER_RAISED_OP(ttypair_port_carrier_raised)

/* Raise DTR and RTS on open, drop them on close with HUPCL. */
static void ttypair_port_dtr_rts(struct tty_port *port, bool active)
{
	struct ttypair_port *tp = container_of(port, struct ttypair_port, port);
	const unsigned int lines = TIOCM_DTR | TIOCM_RTS;

	ttypair_modem_set(tp, active ? 0 : lines, active ? lines : 0);
}

TTYPAIR_DEFINE_DTR_RTS_OP(ttypair_port_dtr_rts)

static const struct tty_port_operations ttypair_port_ops = {
	.carrier_raised	= TTYPAIR_CARRIER_RAISED_OP(ttypair_port_carrier_raised),
	.dtr_rts	= TTYPAIR_DTR_RTS_OP(ttypair_port_dtr_rts),
	.activate	= ttypair_port_activate,
	.shutdown	= ttypair_port_shutdown,
};

/**
 * ttypair_tty_port_init() - initialise the tty_port of an end
 * @tp: the end
 */
void ttypair_tty_port_init(struct ttypair_port *tp)
{
	tty_port_init(&tp->port);
	/*
	 * The receive queue holds what the line discipline has not taken yet:
	 * as much as a pty's (the default, 640 KiB, costs a kmalloc per 2 KiB
	 * of backlog and halves the throughput of a fast writer).
	 */
	tty_buffer_set_limit(&tp->port, TTYPAIR_RX_LIMIT);
	tp->port.ops = &ttypair_port_ops;
	ttypair_rx_port_init(tp);
	ttypair_tx_init(tp);
}

/**
 * ttypair_tty_add_port() - register the tty device of an end or bus port
 * @tp: the end, initialised with ttypair_tty_port_init(), of a pair or bus
 *	whose device is registered (the tty device's parent), its tty_index
 *	set
 *
 * Return: 0 or a negative errno.
 */
int ttypair_tty_add_port(struct ttypair_port *tp)
{
	struct device *dev;

	dev = tty_port_register_device_attr(&tp->port,
					    ttypair_drivers[ttypair_port_driver_id(tp)],
					    tp->tty_index, tp->pair->dev, tp,
					    tp->pair->bus ?
					    ttypair_bus_attr_groups :
					    ttypair_attr_groups);
	if (IS_ERR(dev))
		return PTR_ERR(dev);
	tp->dev = dev;
	return 0;
}

/**
 * ttypair_tty_remove_port() - hang up an end and unregister its device
 * @tp: the end; nothing happens if its device was never registered
 *
 * Open file descriptors of the end stay valid but hung up. The hangup is
 * synchronous (tty_vhangup(), as usb-serial does on disconnect): the
 * asynchronous tty_hangup() would queue tty->hangup_work, which the final
 * close of that tty may be reusing for its release at the same moment
 * (list corruption, seen with opens racing with removal).
 *
 * Context: process context; sleeps.
 */
void ttypair_tty_remove_port(struct ttypair_port *tp)
{
	struct tty_struct *tty;

	if (!tp->dev)
		return;
	tty = tty_port_tty_get(&tp->port);
	if (tty) {
		tty_vhangup(tty);
		tty_kref_put(tty);
	}
	tty_port_unregister_device(&tp->port,
				   ttypair_drivers[ttypair_port_driver_id(tp)],
				   tp->tty_index);
	tp->dev = NULL;
}

static struct tty_driver *ttypair_driver_create(unsigned int id)
{
	static const char *const driver_names[TTYPAIR_NR_DRIVERS] = {
		[TTYPAIR_END_A]		= "ttypair_a",
		[TTYPAIR_END_B]		= "ttypair_b",
		[TTYPAIR_DRIVER_BUS]	= "ttypair_bus",
	};
	static const char *const names[TTYPAIR_NR_DRIVERS] = {
		[TTYPAIR_END_A]		= TTYPAIR_NAME_A,
		[TTYPAIR_END_B]		= TTYPAIR_NAME_B,
		[TTYPAIR_DRIVER_BUS]	= TTYPAIR_NAME_BUS,
	};
	struct tty_driver *driver;
	int ret;

	driver = tty_alloc_driver(id == TTYPAIR_DRIVER_BUS ?
				  TTYPAIR_MAX_BUS_PORTS : TTYPAIR_MAX_PAIRS,
				  TTY_DRIVER_REAL_RAW | TTY_DRIVER_DYNAMIC_DEV);
	if (IS_ERR(driver))
		return driver;

	driver->driver_name = driver_names[id];
	driver->name = names[id];
	driver->type = TTY_DRIVER_TYPE_SERIAL;
	driver->subtype = SERIAL_TYPE_NORMAL;
	/* A hardware port's defaults: 9600 8N1, receiver on, no modem control */
	driver->init_termios = tty_std_termios;
	driver->init_termios.c_cflag = B9600 | CS8 | CREAD | HUPCL | CLOCAL;
	driver->init_termios.c_ispeed = 9600;
	driver->init_termios.c_ospeed = 9600;
	tty_set_operations(driver, &ttypair_tty_ops);

	ret = tty_register_driver(driver);
	if (ret) {
		tty_driver_kref_put(driver);
		return ERR_PTR(ret);
	}
	return driver;
}

static void ttypair_driver_destroy(struct tty_driver *driver)
{
	tty_unregister_driver(driver);
	tty_driver_kref_put(driver);
}

/**
 * ttypair_tty_register() - create and register the A, B and bus tty drivers
 *
 * Return: 0 or a negative errno.
 */
int ttypair_tty_register(void)
{
	struct tty_driver *driver;
	unsigned int i;

	for (i = 0; i < TTYPAIR_NR_DRIVERS; i++) {
		driver = ttypair_driver_create(i);
		if (IS_ERR(driver))
			goto error;
		ttypair_drivers[i] = driver;
	}
	return 0;

error:
	while (i--) {
		ttypair_driver_destroy(ttypair_drivers[i]);
		ttypair_drivers[i] = NULL;
	}
	pr_err("registering the tty drivers failed: %ld\n", PTR_ERR(driver));
	return PTR_ERR(driver);
}

/**
 * ttypair_tty_unregister() - unregister and release the tty drivers
 *
 * All pairs and buses must have been removed.
 */
void ttypair_tty_unregister(void)
{
	unsigned int i = TTYPAIR_NR_DRIVERS;

	while (i--) {
		ttypair_driver_destroy(ttypair_drivers[i]);
		ttypair_drivers[i] = NULL;
	}
}
