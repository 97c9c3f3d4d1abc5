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

#include <linux/hrtimer.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/poll.h>
#include <linux/prandom.h>
#include <linux/serial.h>
#include <linux/spinlock.h>
#include <linux/tty.h>
#include <linux/tty_driver.h>
#include <linux/tty_flip.h>
#include <linux/types.h>
#include <linux/uidgid.h>
#include <linux/workqueue.h>

#include "uapi/ttypair.h"

/* Hard limit of pairs: the number of lines each tty driver is created with. */
#define TTYPAIR_MAX_PAIRS	1024
/* Sessions (/dev/ttypair-session) one user may have: max_sessions_per_user */
#define TTYPAIR_DEFAULT_SESSIONS_PER_USER	32
/* Pairs created at load time when the pairs= parameter is not given. */
#define TTYPAIR_DEFAULT_PAIRS	4
/* write_room() of an end whose peer is closed: written bytes are dropped. */
#define TTYPAIR_DISCARD_ROOM	65536U
/* Receive queue (tty flip buffer) of an end: the size the kernel's pty uses */
#define TTYPAIR_RX_LIMIT	8192
/* Transmit FIFO of an end (baud-rate emulation); a power of two */
#define TTYPAIR_FIFO_SIZE	4096U
/* Speeds an end works at (bits/s); others are clamped to them */
#define TTYPAIR_BAUD_MIN	50U
#define TTYPAIR_BAUD_MAX	12000000U
/* Baud rate reported by TIOCGSERIAL, and used for timing while at B0 */
#define TTYPAIR_BAUD_BASE	115200U
#define TTYPAIR_B0_BAUD		9600U
/* Longest name of a pair or bus made in configfs */
#define TTYPAIR_PAIR_NAME_MAX	32
/* Hard limit of bus ports: the lines of the bus ports' tty driver */
#define TTYPAIR_MAX_BUS_PORTS	1024
/* Ports of one bus: 2 to the unit loads of one RS-485 segment */
#define TTYPAIR_BUS_PORTS_MIN	2U
#define TTYPAIR_BUS_PORTS_MAX	32U
/*
 * Strict mode: a receiver takes characters sent at a speed within this
 * many percent of its own, as a UART's receiver (16x oversampling) does
 */
#define TTYPAIR_BAUD_TOLERANCE_PCT	3U
/* Noise rates are errors per million characters */
#define TTYPAIR_NOISE_MAX	1000000U

enum ttypair_end_id {
	TTYPAIR_END_A,
	TTYPAIR_END_B,
	TTYPAIR_NR_ENDS,
};

/* The modem-status inputs of an end, in the order of the wiring table */
enum ttypair_input {
	TTYPAIR_IN_CTS,
	TTYPAIR_IN_DSR,
	TTYPAIR_IN_DCD,
	TTYPAIR_IN_RI,
	TTYPAIR_NR_INPUTS,
};

/* What drives an input: an output of the peer, its open state, or a level */
enum ttypair_source {
	TTYPAIR_SRC_OFF,
	TTYPAIR_SRC_ON,
	TTYPAIR_SRC_RTS,
	TTYPAIR_SRC_DTR,
	TTYPAIR_SRC_OUT1,
	TTYPAIR_SRC_OUT2,
	TTYPAIR_SRC_OPEN,
	TTYPAIR_NR_SOURCES,
};

/**
 * struct ttypair_wiring - how the inputs of one end are wired (com0com model)
 * @source: for each enum ttypair_input, an enum ttypair_source
 * @invert: for each input, whether the source's level is inverted
 */
struct ttypair_wiring {
	u8 source[TTYPAIR_NR_INPUTS];
	bool invert[TTYPAIR_NR_INPUTS];
};

/* A one-shot error for the next character an end receives */
enum ttypair_inject {
	TTYPAIR_INJECT_NONE,
	TTYPAIR_INJECT_FRAME,
	TTYPAIR_INJECT_PARITY,
	TTYPAIR_INJECT_OVERRUN,
	TTYPAIR_INJECT_BREAK,
	TTYPAIR_NR_INJECT,
};

/* When a port of a bus drives the line (see busline.c) */
enum ttypair_drive {
	TTYPAIR_DRIVE_AUTO,
	TTYPAIR_DRIVE_RTS,
	TTYPAIR_DRIVE_ALWAYS,
	TTYPAIR_NR_DRIVE,
};

enum ttypair_parity {
	TTYPAIR_PARITY_NONE,
	TTYPAIR_PARITY_EVEN,
	TTYPAIR_PARITY_ODD,
	TTYPAIR_PARITY_MARK,
	TTYPAIR_PARITY_SPACE,
};

/**
 * struct ttypair_line - the line settings of an end, from its termios
 * @baud: output speed in bits per second, TTYPAIR_BAUD_MIN to
 *	TTYPAIR_BAUD_MAX; 0 for B0
 * @ibaud: input speed, the same range; the output speed when the termios
 *	give none
 * @char_ns: time one character takes on the wire at @baud (at 9600 for B0)
 * @cread: the receiver is enabled (CREAD); without it input is discarded
 * @data_bits: character size, 5 to 8
 * @parity: enum ttypair_parity
 * @stop_bits: 1 or 2
 * @crtscts: output waits for CTS; RTS follows the input throttle
 * @ixoff: send XOFF/XON when the input is throttled/unthrottled
 * @ignbrk: breaks received are ignored (IGNBRK)
 * @mark_brk: breaks received are reported to the line discipline
 *	(BRKINT or PARMRK), rather than read as a NUL
 * @ignpar: characters with framing or parity errors are dropped (IGNPAR)
 * @inpck: framing and parity errors are reported (INPCK)
 * @stop_char: VSTOP, sent when @ixoff and throttled
 * @start_char: VSTART, sent when @ixoff and unthrottled
 *
 * Copied from the tty's termios on open and on every change, so that the
 * data path, which runs under the pair's lock, never looks at a termios.
 */
struct ttypair_line {
	speed_t baud;
	speed_t ibaud;
	u64 char_ns;
	u8 data_bits;
	u8 parity;
	u8 stop_bits;
	bool cread;
	bool crtscts;
	bool ixoff;
	bool ignbrk;
	bool mark_brk;
	bool ignpar;
	bool inpck;
	u8 stop_char;
	u8 start_char;
};

/**
 * struct ttypair_icount - the counters TIOCGICOUNT reports for an end
 * @cts: changes of the CTS input
 * @dsr: changes of the DSR input
 * @rng: trailing edges of the RI input
 * @dcd: changes of the DCD input
 * @rx: characters received
 * @tx: characters sent (left the wire, also towards a closed peer)
 * @frame: characters received with a framing error
 * @parity: characters received with a parity error
 * @overrun: overruns received
 * @brk: breaks received
 * @buf_overrun: error marks and breaks lost to a full receive queue
 */
struct ttypair_icount {
	u32 cts, dsr, rng, dcd;
	u32 rx, tx;
	u32 frame, parity, overrun, brk, buf_overrun;
};

/**
 * struct ttypair_stats - per-end byte counters
 * @tx: bytes accepted from this end's writers and delivered to the peer
 * @rx: bytes delivered to this end by the peer
 * @discarded: bytes written on this end while the peer was closed (on a
 *	bus: while no other port was open)
 * @undriven: bus ports: bytes sent while the port did not drive the line
 * @injected: errors injected into this end's input (one-shot and noise)
 * @timer_runs: expiries of this end's transmit timer (&struct ttypair_txq)
 *
 * Protected by the owning pair's lock.
 */
struct ttypair_stats {
	u64 tx;
	u64 rx;
	u64 discarded;
	u64 undriven;
	u64 injected;
	u64 timer_runs;
};

/**
 * struct ttypair_txq - the transmit FIFO of an end (baud-rate emulation)
 * @buf: TTYPAIR_FIFO_SIZE bytes, allocated on first open; NULL before
 * @head: free-running write index
 * @tail: free-running read index; @head - @tail bytes are queued
 * @next: while bytes are queued, when the first of them has left the wire;
 *	when none are, when the line became free
 * @armed: @timer is started and will restart itself while bytes are queued
 * @wait_room: this end's writers or FIFO found the peer's receive queue
 *	full; ttypair_tx_room_made() wakes them when the peer's receiver
 *	takes bytes (written under the lock, read without it there)
 * @rts_active: RS-485: a transmission is on, from RTS taking its level for
 *	sending to its return after the last character and the delay after
 * @rts_tail: RS-485: the FIFO is empty and RTS returns at @rts_off
 * @rts_off: RS-485: when RTS returns to its level after sending
 * @timer: drains the FIFO at the line's rate, and times RS-485's RTS
 *
 * All but @timer are protected by the pair's lock.
 */
struct ttypair_txq {
	u8 *buf;
	unsigned int head;
	unsigned int tail;
	ktime_t next;
	bool armed;
	bool wait_room;
	bool rts_active;
	bool rts_tail;
	ktime_t rts_off;
	struct hrtimer timer;
};

/**
 * struct ttypair_port - one end of a pair, or one port of a bus
 * @port: the tty_port; its flip buffer is this end's receive queue
 * @pair: the pair (or bus) this end belongs to
 * @id: TTYPAIR_END_A or TTYPAIR_END_B; on a bus, the port's number
 * @tty_index: the tty's index: the pair's index, or the bus port's line
 * @peer: the other end of the pair; NULL on a bus
 * @dev: the registered tty device, NULL before registration
 * @installed: a tty was installed on this end (tty_mutex serialises it)
 * @hangup_work: hangs the end up when its carrier drops (see modem.c)
 * @hangup_tty: the tty @hangup_work hangs up, referenced; under pair->lock
 *
 * All of the following are protected by pair->lock:
 * @active: open (between tty_port activate and shutdown)
 * @tx_stopped: output stopped by XOFF (the tty's .stop)
 * @breaking: sending a break (TIOCSBRK until TIOCCBRK)
 * @mctrl: this end's outputs (TIOCM_RTS, TIOCM_DTR, TIOCM_OUT1, TIOCM_OUT2)
 *	as TIOCMSET, the line discipline and open and close set them
 * @rs485: the RS-485 configuration, as TIOCGRS485 reports it
 * @rs485_rts: in RS-485 mode, the RTS level the transmitter drives (in
 *	place of @mctrl's)
 * @msr: this end's inputs as last computed (TIOCM_CTS, TIOCM_DSR,
 *	TIOCM_CAR, TIOCM_RNG)
 * @wiring: what drives each of this end's inputs
 * @line: the line settings
 * @x_char: XON or XOFF waiting for room in the peer's receive queue, or 0
 * @inject: a pending one-shot error, enum ttypair_inject
 * @low_latency: ASYNC_LOW_LATENCY as set with TIOCSSERIAL
 * @icount: TIOCGICOUNT's counters
 * @stats: byte counters
 * @txq: the transmit FIFO
 * @direct: bytes written on this end go straight into the peer's receive
 *	queue as they are (see ttypair_tx_route()); under pair->lock
 * @drive: bus ports: when the port drives the line, enum ttypair_drive
 * @overrun_pending: bus ports in overrun mode: characters were lost, the
 *	next one received is preceded by an overrun mark
 * @line_end: bus ports with baud-rate emulation: when the last character
 *	the port put on the line ended
 * @line_ns: how long that character was on the line
 * @line_char: its value
 */
struct ttypair_port {
	struct tty_port port;
	struct ttypair_pair *pair;
	unsigned int id;
	unsigned int tty_index;
	struct ttypair_port *peer;
	struct device *dev;
	bool installed;
	struct work_struct hangup_work;
	struct tty_struct *hangup_tty;

	bool active;
	bool tx_stopped;
	bool breaking;
	unsigned int mctrl;
	struct serial_rs485 rs485;
	bool rs485_rts;
	unsigned int msr;
	struct ttypair_wiring wiring;
	struct ttypair_line line;
	u8 x_char;
	u8 inject;
	bool low_latency;
	struct ttypair_icount icount;
	struct ttypair_stats stats;
	struct ttypair_txq txq;
	bool direct;
	u8 drive;
	bool overrun_pending;
	ktime_t line_end;
	u64 line_ns;
	u8 line_char;
};

/* The settings of a pair that sysfs and configfs read and write as text */
enum ttypair_setting {
	TTYPAIR_SET_BAUD_EMULATION,
	TTYPAIR_SET_STRICT,
	TTYPAIR_SET_NOISE_PPM,
	TTYPAIR_SET_NOISE_SEED,
	TTYPAIR_SET_OVERRUN,
};

/**
 * struct ttypair_settings - the settings of a pair that user space chooses
 * @wiring: the wiring of both ends' inputs (a symmetric cable)
 * @baud_emulation: bytes leave at the sender's line rate
 * @strict: mismatched line settings produce framing and parity errors
 */
struct ttypair_settings {
	struct ttypair_wiring wiring;
	bool baud_emulation;
	bool strict;
};

/**
 * struct ttypair_pair - two ends joined by a virtual null-modem cable, or
 *	the ports of a bus (an RS-485 line: what one port sends, all others
 *	receive)
 * @kref: one reference held by the registry, one per installed tty
 * @lock: the data path lock: guards the ports' state (see struct
 *	ttypair_port), the settings below, and serialises every insertion into
 *	any port's flip buffer
 * @index: a pair's line number (ttyVPA<index> and ttyVPB<index>); a bus's
 *	number (bus<index> in sysfs)
 * @dev: the device on the ttypair device bus, parent of the ports' tty
 *	devices; NULL before it is registered and after it is removed
 * @has_index: @index is allocated in the registry (until the pair is freed)
 * @bus: this is a bus of ports, not a pair
 * @name: the name of a pair or bus made in configfs; empty for the pairs
 *	made at load time (pairs=) and for sessions
 * @session: the pair of a session (/dev/ttypair-session), removed when
 *	its file is closed
 * @owner: the user who opened that session
 * @dead: removed: opens fail; under @lock
 * @baud_emulation: bytes leave at the sender's line rate
 * @strict: mismatched line settings produce framing and parity errors
 * @overrun: buses: a receiver without room loses characters rather than
 *	holding the sender back
 * @noise_ppm: errors per million characters received, on every port
 * @noise_seed: the seed @noise_state was last started from
 * @noise_state: the noise's pseudo-random generator
 * @first_line: buses: the line of port 0; the ports' lines follow on
 * @nr_ports: how many of @ports exist: 2 for a pair; 0 for a bus until
 *	its ports are made, then fixed (written before any port is visible)
 * @monitors: the monitors attached (monitor.c); under @lock
 * @ports: the ports: a pair's A and B end, or a bus's ports in order
 *
 * The ports are allocated one by one: a tty_port ends in a flexible array
 * (its buffer's sentinel), and arrays of such structures are not portable
 * C.
 */
struct ttypair_pair {
	struct kref kref;
	spinlock_t lock;		/* the data path lock, see above */
	unsigned int index;
	struct device *dev;
	bool has_index;
	bool bus;
	char name[TTYPAIR_PAIR_NAME_MAX + 1];
	bool session;
	kuid_t owner;
	bool dead;
	bool baud_emulation;
	bool strict;
	bool overrun;
	u32 noise_ppm;
	u64 noise_seed;
	struct rnd_state noise_state;
	unsigned int first_line;
	unsigned int nr_ports;
	struct list_head monitors;
	struct ttypair_port *ports[];
};

static inline struct ttypair_port *ttypair_end(struct ttypair_pair *pair,
					       enum ttypair_end_id id)
{
	return pair->ports[id];
}

/* The ports that exist: a bus's are published once, before any is seen */
static inline unsigned int ttypair_nr_ports(struct ttypair_pair *pair)
{
	/* pairs with the release of ttypair_bus_add_ports(): the ports first */
	return smp_load_acquire(&pair->nr_ports);
}

static inline struct ttypair_port *ttypair_peer(struct ttypair_port *tp)
{
	return tp->peer;
}

/* A null-modem cable: RTS to CTS, DTR to DSR and DCD, no ring */
#define TTYPAIR_NULL_MODEM_WIRING {					\
	.source = {							\
		[TTYPAIR_IN_CTS] = TTYPAIR_SRC_RTS,			\
		[TTYPAIR_IN_DSR] = TTYPAIR_SRC_DTR,			\
		[TTYPAIR_IN_DCD] = TTYPAIR_SRC_DTR,			\
		[TTYPAIR_IN_RI]  = TTYPAIR_SRC_OFF,			\
	},								\
}

/* main.c: the module parameters */
extern struct ttypair_settings ttypair_defaults;
extern unsigned int ttypair_max_pairs;
extern unsigned int ttypair_max_bus_ports;
extern unsigned int ttypair_max_sessions_per_user;

/* device.c: the ttypair device bus, a device per pair or bus as parent */
int ttypair_dev_register(void);
void ttypair_dev_unregister(void);
int ttypair_dev_add(struct ttypair_pair *pair);
void ttypair_dev_remove(struct ttypair_pair *pair);

/* tty.c: the two tty drivers and the tty/tty_port operations */
int ttypair_tty_register(void);
void ttypair_tty_unregister(void);
int ttypair_tty_add_port(struct ttypair_port *tp);
void ttypair_tty_remove_port(struct ttypair_port *tp);
void ttypair_tty_port_init(struct ttypair_port *tp);
const char *ttypair_port_prefix(const struct ttypair_port *tp);

/* pair.c: pair objects and the registry of pairs */
struct ttypair_pair *ttypair_pair_new(int index, const char *name);
int ttypair_pair_publish(struct ttypair_pair *pair);
struct ttypair_pair *ttypair_pair_create(int index, const char *name);
struct ttypair_pair *ttypair_session_pair_create(kuid_t owner);
void ttypair_pair_destroy(struct ttypair_pair *pair);
void ttypair_pair_destroy_all(void);
struct ttypair_port *ttypair_port_lookup(enum ttypair_end_id id,
					 unsigned int index);
void ttypair_pair_put(struct ttypair_pair *pair);
struct ttypair_pair *ttypair_bus_new(const char *name);
int ttypair_bus_add_ports(struct ttypair_pair *bus, unsigned int nr);
struct ttypair_port *ttypair_bus_port_lookup(unsigned int line);

/* xfer.c: the transmit side: FIFO, pacing, flow control */
size_t ttypair_xmit(struct ttypair_port *src, const u8 *buf, size_t count);
unsigned int ttypair_tx_room(struct ttypair_port *src);
unsigned int ttypair_tx_queued(struct ttypair_port *src);
bool ttypair_tx_empty(struct ttypair_port *src);
void ttypair_tx_flush(struct ttypair_port *src);
void ttypair_tx_kick(struct ttypair_port *src);
int ttypair_tx_alloc(struct ttypair_port *tp);
void ttypair_tx_release(struct ttypair_port *tp);
void ttypair_tx_init(struct ttypair_port *tp);
void ttypair_set_active(struct ttypair_port *tp, bool active);
void ttypair_set_tx_stopped(struct ttypair_port *tp, bool stopped);
void ttypair_tx_room_made(struct ttypair_port *src);
void ttypair_tx_wake_senders(struct ttypair_port *dst);
void ttypair_tx_route(struct ttypair_pair *pair);
void ttypair_send_xchar(struct ttypair_port *src, u8 ch);
void ttypair_tx_reset(struct ttypair_port *tp);

/* rx.c: what the receiving end sees: masking, errors, breaks */
size_t ttypair_rx_deliver(struct ttypair_port *src, struct ttypair_port *dst,
			  const u8 *buf, size_t count);
bool ttypair_rx_unchanged(struct ttypair_port *src, struct ttypair_port *dst);
void ttypair_rx_break(struct ttypair_port *dst);
void ttypair_rx_break_locked(struct ttypair_port *dst);
bool ttypair_rx_collided(struct ttypair_port *src, struct ttypair_port *dst,
			 u8 ch);
void ttypair_rx_ops_init(void);
void ttypair_rx_port_init(struct ttypair_port *tp);
bool ttypair_rx_xchar_locked(struct ttypair_port *dst, u8 ch);
int ttypair_inject_parse(const char *buf, enum ttypair_inject *kind);
const char *ttypair_inject_name(enum ttypair_inject kind);
void ttypair_noise_seed(struct ttypair_pair *pair, u64 seed);

/* busline.c: the line of a bus: who drives it, delivery to every port */
bool ttypair_bus_driving(const struct ttypair_port *src);
unsigned int ttypair_bus_room(struct ttypair_port *src);
size_t ttypair_bus_deliver(struct ttypair_port *src, const u8 *buf,
			   size_t count);
size_t ttypair_bus_deliver_paced(struct ttypair_port *src, const u8 *buf,
				 size_t count, ktime_t end, u64 char_ns);
bool ttypair_bus_xchar(struct ttypair_port *src, u8 ch);
void ttypair_bus_break(struct ttypair_port *src);
void ttypair_bus_took(struct ttypair_port *dst);
void ttypair_bus_wake_senders(struct ttypair_port *dst);
int ttypair_drive_parse(const char *buf, enum ttypair_drive *drive);
const char *ttypair_drive_name(enum ttypair_drive drive);

/* modem.c: modem lines, their wiring, carrier, TIOCMIWAIT, icount */
void ttypair_modem_init(struct ttypair_port *tp);
void ttypair_modem_flush(struct ttypair_port *tp);
int ttypair_wiring_parse(const char *buf, struct ttypair_wiring *wiring);
int ttypair_wiring_format(const struct ttypair_wiring *wiring, char *buf,
			  size_t size);
unsigned int ttypair_inputs_refresh(struct ttypair_port *tp);
void __ttypair_inputs_notify(struct ttypair_port *tp, unsigned int changed);
void ttypair_modem_set(struct ttypair_port *tp, unsigned int clear,
		       unsigned int set);
void ttypair_set_wiring(struct ttypair_port *tp,
			const struct ttypair_wiring *wiring);
int ttypair_tiocmget(struct ttypair_port *tp);
int ttypair_wait_modem(struct ttypair_port *tp, struct tty_struct *tty,
		       unsigned long mask);
bool ttypair_carrier(struct ttypair_port *tp);
void ttypair_get_icount(struct ttypair_port *tp, struct ttypair_icount *ic);

/* rs485.c: RS-485 mode: TIOCGRS485/TIOCSRS485, its text, RTS driving */
unsigned int ttypair_rs485_outputs(const struct ttypair_port *tp);
unsigned int ttypair_rs485_set_rts(struct ttypair_port *tp, bool sending);
void ttypair_rs485_get(struct ttypair_port *tp, struct serial_rs485 *rs485);
int ttypair_rs485_set(struct ttypair_port *tp, struct serial_rs485 *rs485);
int ttypair_rs485_ioctl(struct ttypair_port *tp, unsigned int cmd,
			void __user *arg);
ssize_t ttypair_rs485_show(struct ttypair_port *tp, char *buf);
ssize_t ttypair_rs485_store(struct ttypair_port *tp, const char *buf,
			    size_t count);

/* line.c: line settings, break, the serial ioctls */
void ttypair_line_update(struct ttypair_port *tp, struct tty_struct *tty,
			 const struct ktermios *old);
int ttypair_break(struct ttypair_port *tp, bool on);
void ttypair_get_serial(struct ttypair_port *tp, struct serial_struct *ss);
int ttypair_set_serial(struct ttypair_port *tp, struct serial_struct *ss);

/* sysfs.c: settings as text, and the attributes of the tty devices */
extern const struct attribute_group *ttypair_attr_groups[];
extern const struct attribute_group *ttypair_bus_attr_groups[];
ssize_t ttypair_wiring_show(struct ttypair_port *tp, char *buf);
ssize_t ttypair_wiring_store(struct ttypair_port *tp, const char *buf,
			     size_t count);
ssize_t ttypair_setting_show(struct ttypair_pair *pair,
			     enum ttypair_setting which, char *buf);
ssize_t ttypair_setting_store(struct ttypair_pair *pair,
			      enum ttypair_setting which, const char *buf,
			      size_t count);
ssize_t ttypair_inject_show(struct ttypair_port *tp, char *buf);
ssize_t ttypair_inject_store(struct ttypair_port *tp, const char *buf,
			     size_t count);

/* session.c: /dev/ttypair-session, a pair for each open file */
int ttypair_session_register(void);
void ttypair_session_unregister(void);

/* monitor.c: records of what happens on a pair, for session files */
struct ttypair_monitor;
void __ttypair_mon_emit(struct ttypair_port *tp, u16 type, u8 flags,
			u32 value, const void *data, size_t len);
void ttypair_mon_event(struct ttypair_port *tp, u16 type, u32 value);
void ttypair_mon_removed(struct ttypair_pair *pair);
struct ttypair_monitor *ttypair_mon_attach(struct ttypair_port *tp,
					   u32 buffer);
void ttypair_mon_detach(struct ttypair_monitor *m);
bool ttypair_mon_may_watch(struct ttypair_port *tp);
ssize_t ttypair_mon_read(struct ttypair_monitor *m, char __user *buf,
			 size_t count, bool nonblock);
__poll_t ttypair_mon_poll(struct ttypair_monitor *m, struct file *file,
			  poll_table *wait);

/* configfs.c: named pairs made and removed at run time */
int ttypair_configfs_register(void);
void ttypair_configfs_unregister(void);
bool ttypair_cfg_name_ok(const char *name, const char *what);

/* configfs_bus.c: named buses, in the configfs group "buses" */
struct config_group;
void ttypair_cfg_buses_init(struct config_group *parent);

/**
 * ttypair_mon_emit() - give a record to the monitors of @tp's pair, if any
 * @tp: the end or port the record is about
 * @type: enum ttypair_record_type
 * @flags: TTYPAIR_REC_F_*
 * @value: what @type says
 * @data: payload
 * @len: its length
 *
 * Context: the pair's lock held.
 */
static inline void ttypair_mon_emit(struct ttypair_port *tp, u16 type,
				    u8 flags, u32 value, const void *data,
				    size_t len)
{
	if (unlikely(!list_empty(&tp->pair->monitors)))
		__ttypair_mon_emit(tp, type, flags, value, data, len);
}

/**
 * ttypair_inputs_notify() - act on changed inputs of an end
 * @tp: the end
 * @changed: what ttypair_inputs_refresh() returned
 *
 * Nothing to do, and no call, when nothing changed: every write passes
 * here.
 *
 * Context: process or softirq context, pair->lock not held.
 */
static inline void ttypair_inputs_notify(struct ttypair_port *tp,
					 unsigned int changed)
{
	if (changed)
		__ttypair_inputs_notify(tp, changed);
}

/**
 * ttypair_tx_peer_took() - an end's line discipline took received bytes
 * @dst: the end
 *
 * Calls ttypair_tx_room_made() for the peer if it waits for room and there
 * is room. Without the pair's lock in the common case, where nothing
 * waits: the flip buffer frees an emptied buffer with a full barrier
 * before this reads the peer's note, and the peer notes before it looks at
 * the room again (see xfer.c).
 *
 * On a bus, every port that waits is looked at (ttypair_bus_took()).
 *
 * Context: the flip buffer's work, just after it handed bytes over; or
 * @dst's unthrottle.
 */
static inline void ttypair_tx_peer_took(struct ttypair_port *dst)
{
	struct ttypair_port *src = ttypair_peer(dst);

	if (unlikely(!src))
		ttypair_bus_took(dst);
	else if (READ_ONCE(src->txq.wait_room) &&
		 tty_buffer_space_avail(&dst->port))
		ttypair_tx_room_made(src);
}

/*
 * Characters went into @dst's receive queue: hand them to its line
 * discipline, under the lock that serialises every producer of that flip
 * buffer (the pty fix for CVE-2022-1462), and count them. Lock held.
 */
static inline void ttypair_rx_pushed(struct ttypair_port *dst, size_t done)
{
	if (!done)
		return;
	tty_flip_buffer_push(&dst->port);
	dst->stats.rx += done;
	dst->icount.rx += done;
}

/*
 * Copy characters into @dst's receive queue as they are; lock held.
 * Returns how many were taken.
 */
static inline size_t ttypair_rx_copy(struct ttypair_port *dst, const u8 *buf,
				     size_t count)
{
	size_t done = tty_insert_flip_string(&dst->port, buf, count);

	ttypair_rx_pushed(dst, done);
	return done;
}

#endif /* TTYPAIR_H */
