/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ttypair - the one place where differences between kernel releases live.
 *
 * The driver's logic is written against the newest kernel API. For every API
 * that moved, a probe in compat/probes/ is compiled against the target
 * kernel's headers during the build, and the generated ttypair_probes.h
 * defines TTYPAIR_HAVE_<PROBE> for each probe that compiled. This header turns
 * those answers into adaptors so that no other file needs an #if.
 *
 * Probes are used rather than LINUX_VERSION_CODE because distribution
 * kernels back-port API changes without changing their version.
 */
#ifndef TTYPAIR_COMPAT_H
#define TTYPAIR_COMPAT_H

#include <linux/hrtimer.h>
#include <linux/kernel.h>
#include <linux/tty.h>
#include <linux/tty_driver.h>

#include "ttypair_probes.h"

/*
 * tty_operations.write: ssize_t (*)(tty, const u8 *, size_t) since 6.6,
 * int (*)(tty, const unsigned char *, int) before.
 */
#ifdef TTYPAIR_HAVE_TTY_WRITE_SSIZE
#define TTYPAIR_DEFINE_WRITE_OP(fn)
#define TTYPAIR_WRITE_OP(fn)		fn
#else
#define TTYPAIR_DEFINE_WRITE_OP(fn)					\
static int fn##_compat(struct tty_struct *tty, const unsigned char *buf, \
		       int count)					\
{									\
	return count > 0 ? (int)fn(tty, buf, count) : 0;		\
}

#define TTYPAIR_WRITE_OP(fn)		fn##_compat
#endif

/*
 * tty_operations.write_room and .chars_in_buffer return unsigned int since
 * 5.14, int before.
 */
#ifdef TTYPAIR_HAVE_TTY_WRITE_ROOM_UINT
#define TTYPAIR_DEFINE_ROOM_OP(fn)
#define TTYPAIR_ROOM_OP(fn)		fn
#else
#define TTYPAIR_DEFINE_ROOM_OP(fn)					\
static int fn##_compat(struct tty_struct *tty)				\
{									\
	return min_t(unsigned int, fn(tty), INT_MAX);			\
}

#define TTYPAIR_ROOM_OP(fn)		fn##_compat
#endif

/*
 * tty_operations.set_termios takes a const old termios since 6.1.
 */
#ifdef TTYPAIR_HAVE_TTY_SET_TERMIOS_CONST
#define TTYPAIR_DEFINE_SET_TERMIOS_OP(fn)
#define TTYPAIR_SET_TERMIOS_OP(fn)	fn
#else
#define TTYPAIR_DEFINE_SET_TERMIOS_OP(fn)				\
static void fn##_compat(struct tty_struct *tty, struct ktermios *old)	\
{									\
	fn(tty, old);							\
}

#define TTYPAIR_SET_TERMIOS_OP(fn)	fn##_compat
#endif

/*
 * tty_operations.send_xchar takes a u8 since 6.8, a char before.
 */
#ifdef TTYPAIR_HAVE_TTY_SEND_XCHAR_U8
#define TTYPAIR_DEFINE_SEND_XCHAR_OP(fn)
#define TTYPAIR_SEND_XCHAR_OP(fn)	fn
#else
#define TTYPAIR_DEFINE_SEND_XCHAR_OP(fn)				\
static void fn##_compat(struct tty_struct *tty, char ch)		\
{									\
	fn(tty, (u8)ch);						\
}

#define TTYPAIR_SEND_XCHAR_OP(fn)	fn##_compat
#endif

/*
 * tty_port_operations.carrier_raised returns bool since about 6.2 (int
 * before).
 */
#ifdef TTYPAIR_HAVE_TTY_PORT_CARRIER_RAISED_BOOL
#define TTYPAIR_DEFINE_CARRIER_RAISED_OP(fn)
#define TTYPAIR_CARRIER_RAISED_OP(fn)	fn
#else
#define TTYPAIR_DEFINE_CARRIER_RAISED_OP(fn)				\
static int fn##_compat(struct tty_port *port)				\
{									\
	return fn(port);						\
}

#define TTYPAIR_CARRIER_RAISED_OP(fn)	fn##_compat
#endif

/*
 * tty_port_operations.dtr_rts takes a bool since about 6.2 (int before);
 * a separate change from carrier_raised's, which a distribution may
 * back-port alone.
 */
#ifdef TTYPAIR_HAVE_TTY_PORT_DTR_RTS_BOOL
#define TTYPAIR_DEFINE_DTR_RTS_OP(fn)
#define TTYPAIR_DTR_RTS_OP(fn)		fn
#else
#define TTYPAIR_DEFINE_DTR_RTS_OP(fn)					\
static void fn##_compat(struct tty_port *port, int raise)		\
{									\
	fn(port, raise);						\
}

#define TTYPAIR_DTR_RTS_OP(fn)		fn##_compat
#endif

/*
 * tty_port_client_operations.receive_buf returns size_t since 6.6, int
 * before.
 */
#ifdef TTYPAIR_HAVE_TTY_PORT_RECEIVE_BUF_SIZE_T
#define TTYPAIR_DEFINE_RECEIVE_BUF_OP(fn)
#define TTYPAIR_RECEIVE_BUF_OP(fn)	fn
#else
#define TTYPAIR_DEFINE_RECEIVE_BUF_OP(fn)				\
static int fn##_compat(struct tty_port *port, const unsigned char *cp,	\
		       const unsigned char *fp, size_t count)		\
{									\
	return fn(port, cp, fp, count);					\
}

#define TTYPAIR_RECEIVE_BUF_OP(fn)	fn##_compat
#endif

/* hrtimer_setup() (6.13) replaces hrtimer_init() plus setting .function */
#ifndef TTYPAIR_HAVE_HRTIMER_SETUP
static inline void hrtimer_setup(struct hrtimer *timer,
				 enum hrtimer_restart (*function)(struct hrtimer *),
				 clockid_t clock_id, enum hrtimer_mode mode)
{
	hrtimer_init(timer, clock_id, mode);
	timer->function = function;
}
#endif

#endif /* TTYPAIR_COMPAT_H */
