/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * ttypair user-space interface: names of the devices of pairs and buses,
 * and the session device.
 *
 * Pair <n> consists of /dev/ttyVPA<n> (the A end) and /dev/ttyVPB<n> (the
 * B end). Bytes written to one end are read from the other.
 *
 * The ports of buses are /dev/ttyVPS<line>; a bus's ports have consecutive
 * lines (its configfs directory lists them). What one port of a bus sends,
 * every other port receives.
 *
 * The session device, /dev/ttypair-session: opened for reading and
 * writing, it makes a new pair that belongs to the open file. The pair
 * goes when the last reference to that file is closed (process exit and
 * kill included): both ends are hung up and removed. The ioctls below,
 * on that file, tell its index and device names and read and change its
 * settings, as configfs and sysfs do, with the same values and the same
 * checks (see docs/ABI/).
 */
#ifndef _UAPI_TTYPAIR_H
#define _UAPI_TTYPAIR_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define TTYPAIR_NAME_A		"ttyVPA"
#define TTYPAIR_NAME_B		"ttyVPB"
#define TTYPAIR_NAME_BUS	"ttyVPS"

/* The session device: /dev/ttypair-session */
#define TTYPAIR_SESSION_DEVICE	"ttypair-session"

/*
 * The version of the session interface. A new version only adds: ioctls,
 * attributes, fields at the end of a structure whose size says how much
 * the caller knows (struct ttypair_session_info).
 */
#define TTYPAIR_SESSION_VERSION	1

/* Longest name of a device, with its NUL */
#define TTYPAIR_DEVICE_NAME_MAX	32

/**
 * struct ttypair_session_info - what TTYPAIR_IOC_INFO reports
 * @size: in: sizeof(struct ttypair_session_info) as the caller knows it
 *	(at least TTYPAIR_SESSION_INFO_SIZE_V1); out: how many bytes the
 *	kernel filled, never more than the caller's @size
 * @version: TTYPAIR_SESSION_VERSION of the module
 * @index: the pair's index: the n of ttyVPA<n> and ttyVPB<n>
 * @flags: none yet (0)
 * @device_a: "ttyVPA<n>", the A end (under /dev)
 * @device_b: "ttyVPB<n>", the B end
 */
struct ttypair_session_info {
	__u32 size;
	__u32 version;
	__u32 index;
	__u32 flags;
	char device_a[TTYPAIR_DEVICE_NAME_MAX];
	char device_b[TTYPAIR_DEVICE_NAME_MAX];
};

#define TTYPAIR_SESSION_INFO_SIZE_V1	80

/* The settings of a session pair (struct ttypair_attr_value's @attr) */
enum ttypair_attr {
	TTYPAIR_ATTR_WIRING = 1,	/* an end's: "cts=rts dsr=dtr ..." */
	TTYPAIR_ATTR_RS485 = 2,		/* an end's: "enabled rts_on_send ..." */
	TTYPAIR_ATTR_INJECT = 3,	/* an end's: frame, parity, overrun, break */
	TTYPAIR_ATTR_BAUD_EMULATION = 4,	/* the pair's: 0 or 1 */
	TTYPAIR_ATTR_STRICT = 5,	/* the pair's: 0 or 1 */
	TTYPAIR_ATTR_NOISE_PPM = 6,	/* the pair's: 0 to 1000000 */
	TTYPAIR_ATTR_NOISE_SEED = 7,	/* the pair's: an unsigned 64-bit number */
};

/* struct ttypair_attr_value's @end */
#define TTYPAIR_END_A_ID	0
#define TTYPAIR_END_B_ID	1

/* Room for a value's text, with its NUL */
#define TTYPAIR_ATTR_VALUE_MAX	256

/**
 * struct ttypair_attr_value - a setting as text, as in sysfs
 * @attr: enum ttypair_attr
 * @end: TTYPAIR_END_A_ID or TTYPAIR_END_B_ID: the end whose setting it is
 *	(a setting of the pair is the same on both)
 * @value: the text, ending in a NUL; TTYPAIR_IOC_GET_ATTR gives it without
 *	a newline
 */
struct ttypair_attr_value {
	__u32 attr;
	__u32 end;
	char value[TTYPAIR_ATTR_VALUE_MAX];
};

/*
 * The monitor: read(2) on a session's file gives records of what happens
 * on its pair, from the first read(2), poll(2) or TTYPAIR_IOC_MONITOR on;
 * root (CAP_SYS_ADMIN) may monitor any pair or bus port with
 * TTYPAIR_IOC_MONITOR on a file opened read-only, and anyone a session
 * pair of its own. A read returns whole records, as many as fit (EINVAL if
 * not even the first does; 4096 bytes always hold one); it waits for one
 * unless the file is O_NONBLOCK (EAGAIN); it returns 0 once the pair was
 * removed and every record was read. poll(2) says POLLIN while records
 * wait, POLLHUP once the pair was removed. The data path never waits for a
 * monitor: when its buffer is full, records are dropped, and the next
 * record that fits is a TTYPAIR_REC_DROPPED that counts them.
 */

/**
 * struct ttypair_record - a record's header; @len bytes of payload follow,
 *	then padding up to a multiple of 8 bytes
 * @time_ns: CLOCK_MONOTONIC, in nanoseconds
 * @seq: the record's number, from 0, one more for each record, dropped ones
 *	included
 * @type: enum ttypair_record_type
 * @port: the end (0: A, 1: B) or the bus port it is about; for data, the
 *	one that sent it
 * @flags: TTYPAIR_REC_F_*
 * @value: what @type says
 * @len: payload bytes
 */
struct ttypair_record {
	__u64 time_ns;
	__u32 seq;
	__u16 type;
	__u8 port;
	__u8 flags;
	__u32 value;
	__u32 len;
};

enum ttypair_record_type {
	TTYPAIR_REC_DATA = 1,		/* payload: the bytes @port sent */
	TTYPAIR_REC_MODEM = 2,		/* @value: @port's outputs, TIOCM_RTS,
					 * TIOCM_DTR, TIOCM_OUT1, TIOCM_OUT2
					 */
	TTYPAIR_REC_TERMIOS = 3,	/* payload: struct ttypair_record_line */
	TTYPAIR_REC_BREAK = 4,		/* @value: 1 on, 0 off, sent by @port */
	TTYPAIR_REC_ERROR = 5,		/* @value: enum ttypair_record_error,
					 * given to a character @port receives
					 */
	TTYPAIR_REC_OPEN = 6,		/* @port was opened (first open) */
	TTYPAIR_REC_CLOSE = 7,		/* @port was closed (last close) */
	TTYPAIR_REC_HANGUP = 8,		/* @port was hung up */
	TTYPAIR_REC_DROPPED = 9,	/* @value records were dropped */
	TTYPAIR_REC_REMOVED = 10,	/* the pair (or bus) was removed */
};

/* TTYPAIR_REC_DATA's flags */
#define TTYPAIR_REC_F_DISCARDED	0x01	/* nobody received it (peer closed) */
#define TTYPAIR_REC_F_XCHAR	0x02	/* XON or XOFF of the flow control */
#define TTYPAIR_REC_F_COLLIDED	0x04	/* garbled by another port's on a bus */

enum ttypair_record_error {
	TTYPAIR_REC_ERR_FRAME = 1,	/* injected (inject=frame) */
	TTYPAIR_REC_ERR_PARITY = 2,
	TTYPAIR_REC_ERR_OVERRUN = 3,
	TTYPAIR_REC_ERR_BREAK = 4,
	TTYPAIR_REC_ERR_NOISE = 5,	/* a bit flipped by noise_ppm */
};

/**
 * struct ttypair_record_line - TTYPAIR_REC_TERMIOS's payload: @port's line
 *	settings after a change
 * @baud: output speed, bits/s (0: B0)
 * @ibaud: input speed
 * @data_bits: 5 to 8
 * @parity: 0 none, 1 even, 2 odd, 3 mark, 4 space
 * @stop_bits: 1 or 2
 * @flags: TTYPAIR_LINE_F_*
 */
struct ttypair_record_line {
	__u32 baud;
	__u32 ibaud;
	__u8 data_bits;
	__u8 parity;
	__u8 stop_bits;
	__u8 flags;
};

#define TTYPAIR_LINE_F_CRTSCTS	0x01
#define TTYPAIR_LINE_F_IXOFF	0x02
#define TTYPAIR_LINE_F_CREAD	0x04

/* What TTYPAIR_IOC_MONITOR attaches to */
#define TTYPAIR_MONITOR_PAIR	0	/* pair @index, both ends */
#define TTYPAIR_MONITOR_BUS_PORT 1	/* the bus port on line @index
					 * (ttyVPS<index>)
					 */
#define TTYPAIR_MONITOR_SELF	2	/* the session's own pair */

/**
 * struct ttypair_monitor_target - TTYPAIR_IOC_MONITOR's argument
 * @kind: TTYPAIR_MONITOR_*
 * @index: the pair's index or the bus port's line
 * @buffer: the monitor's buffer in bytes, 4096 to 4194304 (0: 65536),
 *	rounded up to a power of two
 */
struct ttypair_monitor_target {
	__u32 kind;
	__u32 index;
	__u32 buffer;
	__u32 reserved;		/* 0 */
};

#define TTYPAIR_IOC_MAGIC	0xBB

/* The pair of this session: its index and devices */
#define TTYPAIR_IOC_INFO	_IOWR(TTYPAIR_IOC_MAGIC, 0x00, struct ttypair_session_info)
/* Change a setting: EINVAL and nothing changed for a value sysfs refuses */
#define TTYPAIR_IOC_SET_ATTR	_IOW(TTYPAIR_IOC_MAGIC, 0x01, struct ttypair_attr_value)
/* Read a setting */
#define TTYPAIR_IOC_GET_ATTR	_IOWR(TTYPAIR_IOC_MAGIC, 0x02, struct ttypair_attr_value)
/* Start the monitor, once per file: EBUSY after a read or poll began it */
#define TTYPAIR_IOC_MONITOR	_IOW(TTYPAIR_IOC_MAGIC, 0x03, struct ttypair_monitor_target)

#endif /* _UAPI_TTYPAIR_H */
