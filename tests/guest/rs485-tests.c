// SPDX-License-Identifier: GPL-2.0
/*
 * Functional tests of RS-485 mode and the line status: TIOCGRS485 and
 * TIOCSRS485 with every field at its limits and serial_core's sanitising,
 * the same settings as sysfs text, RTS driven around a transmission (seen
 * by the peer as CTS) with its delays, and TIOCSERGETLSR.
 *
 * Every test uses a pair of its own, 80 to 95 (the run loads pairs=112).
 * The struct is declared here as the kernel's ABI has it (32 bytes), so
 * that the tests build with the user-space headers of every suite.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "tlib.h"

#define ARRAY_SIZE(x)	(sizeof(x) / sizeof((x)[0]))

/* include/uapi/linux/serial.h */
struct rs485 {
	uint32_t flags;
	uint32_t before;	/* delay_rts_before_send, ms */
	uint32_t after;		/* delay_rts_after_send, ms */
	uint32_t padding[5];	/* addr_recv, addr_dest, padding in newer kernels */
};

#define RS485_ENABLED		(1U << 0)
#define RS485_RTS_ON_SEND	(1U << 1)
#define RS485_RTS_AFTER_SEND	(1U << 2)
#define RS485_RX_DURING_TX	(1U << 4)
#define RS485_TERMINATE_BUS	(1U << 5)
#define RS485_ADDRB		(1U << 6)
#define RS485_ADDR_RECV		(1U << 7)
#define RS485_ADDR_DEST		(1U << 8)
#define RS485_MODE_RS422	(1U << 9)

#define R(f, b, a)	{ .flags = (f), .before = (b), .after = (a) }

static int open_pair(int idx, int *a, int *b)
{
	*a = port_open('A', idx, 0);
	if (*a < 0)
		return -1;
	*b = port_open('B', idx, 0);
	if (*b < 0) {
		close(*a);
		return -1;
	}
	return 0;
}

static void close_pair(int a, int b)
{
	tcflush(a, TCIOFLUSH);
	tcflush(b, TCIOFLUSH);
	close(a);
	close(b);
}

static const char *rs485_str(char *buf, size_t len, const struct rs485 *r)
{
	snprintf(buf, len, "flags %#x before %u after %u padding %x %x %x %x %x",
		 r->flags, r->before, r->after, r->padding[0], r->padding[1],
		 r->padding[2], r->padding[3], r->padding[4]);
	return buf;
}

static int rs485_get(int fd, struct rs485 *r, const char *what)
{
	memset(r, 0xa5, sizeof(*r));
	if (ioctl(fd, TIOCGRS485, r))
		return fail("%s: TIOCGRS485: %s", what, strerror(errno));
	return 0;
}

static int rs485_equal(const struct rs485 *got, const struct rs485 *want,
		       const char *what)
{
	char g[160], w[160];

	if (!memcmp(got, want, sizeof(*got)))
		return 0;
	return fail("%s: got %s, expected %s", what,
		    rs485_str(g, sizeof(g), got), rs485_str(w, sizeof(w), want));
}

struct rs485_case {
	const char *what;
	struct rs485 in;
	int err;		/* 0, or the errno TIOCSRS485 fails with */
	struct rs485 out;	/* what it returns and TIOCGRS485 reads back */
};

/*
 * TIOCSRS485 as serial_core answers it for a port that supports ENABLED,
 * RTS_ON_SEND, RTS_AFTER_SEND and both delays: each field at its limits,
 * returned sanitised and read back so; refused values change nothing.
 */
static int t_rs485_ioctl_limits(void)
{
	static const struct rs485_case cases[] = {
		{ .what = "enabled, RTS on send, delays 0",
		  .in = R(RS485_ENABLED | RS485_RTS_ON_SEND, 0, 0),
		  .out = R(RS485_ENABLED | RS485_RTS_ON_SEND, 0, 0) },
		{ .what = "RTS after send, delays 1 and 100",
		  .in = R(RS485_ENABLED | RS485_RTS_AFTER_SEND, 1, 100),
		  .out = R(RS485_ENABLED | RS485_RTS_AFTER_SEND, 1, 100) },
		{ .what = "delays 101 and 2^32-1 (clamped to 100)",
		  .in = R(RS485_ENABLED | RS485_RTS_ON_SEND, 101, UINT32_MAX),
		  .out = R(RS485_ENABLED | RS485_RTS_ON_SEND, 100, 100) },
		{ .what = "delay 2^31",
		  .in = R(RS485_ENABLED | RS485_RTS_ON_SEND, 1U << 31, 0),
		  .out = R(RS485_ENABLED | RS485_RTS_ON_SEND, 100, 0) },
		{ .what = "neither RTS flag (RTS on send taken)",
		  .in = R(RS485_ENABLED, 5, 5),
		  .out = R(RS485_ENABLED | RS485_RTS_ON_SEND, 5, 5) },
		{ .what = "both RTS flags (RTS on send taken)",
		  .in = R(RS485_ENABLED | RS485_RTS_ON_SEND | RS485_RTS_AFTER_SEND, 0, 0),
		  .out = R(RS485_ENABLED | RS485_RTS_ON_SEND, 0, 0) },
		{ .what = "RX during TX and bus termination (unsupported: dropped)",
		  .in = R(RS485_ENABLED | RS485_RTS_ON_SEND | RS485_RX_DURING_TX |
			  RS485_TERMINATE_BUS, 0, 0),
		  .out = R(RS485_ENABLED | RS485_RTS_ON_SEND, 0, 0) },
		{ .what = "padding after the addresses (zeroed)",
		  .in = { .flags = RS485_ENABLED | RS485_RTS_ON_SEND,
			  .padding = { 0xffff0000U, 0xffffffffU, 1, 0x80000000U, 7 } },
		  .out = R(RS485_ENABLED | RS485_RTS_ON_SEND, 0, 0) },
		{ .what = "disabled with delays and flags (all zeroed)",
		  .in = R(RS485_RTS_AFTER_SEND | RS485_RX_DURING_TX, 50, 60),
		  .out = R(0, 0, 0) },
		{ .what = "addressing mode",
		  .in = R(RS485_ENABLED | RS485_ADDRB, 0, 0), .err = EINVAL },
		{ .what = "receive address without addressing",
		  .in = R(RS485_ENABLED | RS485_ADDR_RECV, 0, 0), .err = EINVAL },
		{ .what = "destination address without addressing",
		  .in = R(RS485_ENABLED | RS485_ADDR_DEST, 0, 0), .err = EINVAL },
		{ .what = "RS-422 mode",
		  .in = R(RS485_ENABLED | RS485_MODE_RS422, 0, 0), .err = EINVAL },
		{ .what = "bit 31",
		  .in = R(RS485_ENABLED | 0x80000000U, 0, 0), .err = EINVAL },
		{ .what = "bit 3 (the old RTS_BEFORE_SEND)",
		  .in = R(RS485_ENABLED | (1U << 3), 0, 0), .err = EINVAL },
		{ .what = "all flags", .in = R(UINT32_MAX, 0, 0), .err = EINVAL },
		{ .what = "an address byte without its flag",
		  .in = { .flags = RS485_ENABLED | RS485_RTS_ON_SEND,
			  .padding = { 0x01 } }, .err = EINVAL },
	};
	const struct rs485 start = R(RS485_ENABLED | RS485_RTS_AFTER_SEND, 7, 9);
	struct rs485 r, got;
	char what[160];
	size_t i;
	int a, b, ret = -1;

	if (open_pair(80, &a, &b))
		return -1;
	if (rs485_get(a, &got, "a fresh end") ||
	    rs485_equal(&got, &(struct rs485)R(0, 0, 0), "a fresh end"))
		goto out;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct rs485_case *c = &cases[i];

		r = start;
		if (ioctl(a, TIOCSRS485, &r)) {
			fail("setting the start value: %s", strerror(errno));
			goto out;
		}
		r = c->in;
		errno = 0;
		if (!ioctl(a, TIOCSRS485, &r) != !c->err ||
		    (c->err && errno != c->err)) {
			fail("%s: TIOCSRS485 gave %s, expected %s", c->what,
			     errno ? strerror(errno) : "success",
			     c->err ? strerror(c->err) : "success");
			goto out;
		}
		snprintf(what, sizeof(what), "%s (returned)", c->what);
		if (!c->err && rs485_equal(&r, &c->out, what))
			goto out;
		snprintf(what, sizeof(what), "%s (read back)", c->what);
		if (rs485_get(a, &got, what) ||
		    rs485_equal(&got, c->err ? &start : &c->out, what))
			goto out;
	}
	/* the other end is not concerned */
	if (rs485_get(b, &got, "the peer") ||
	    rs485_equal(&got, &(struct rs485)R(0, 0, 0), "the peer"))
		goto out;
	ret = 0;
out:
	r = (struct rs485)R(0, 0, 0);
	ioctl(a, TIOCSRS485, &r);
	close_pair(a, b);
	return ret;
}

/*
 * The rs485 attribute: the configuration as text, written with the same
 * words and sanitised as TIOCSRS485; what does not parse changes nothing.
 */
static int t_rs485_sysfs_text(void)
{
	static const struct {
		const char *in, *out;
	} good[] = {
		{ "enabled rts_on_send", "enabled rts_on_send delay_rts_before_send=0 delay_rts_after_send=0" },
		{ "enabled rts_after_send delay_rts_before_send=3 delay_rts_after_send=100\n",
		  "enabled rts_after_send delay_rts_before_send=3 delay_rts_after_send=100" },
		{ "enabled delay_rts_after_send=4294967295",
		  "enabled rts_on_send delay_rts_before_send=0 delay_rts_after_send=100" },
		{ "enabled rts_on_send rx_during_tx terminate_bus",
		  "enabled rts_on_send delay_rts_before_send=0 delay_rts_after_send=0" },
		{ "disabled", "disabled" },
		{ "enabled rts_after_send", "enabled rts_after_send delay_rts_before_send=0 delay_rts_after_send=0" },
		{ "0", "disabled" },
	};
	static const char *const bad[] = {
		"\n", "on", "enabled bogus", "rts_on_send",
		"enabled delay_rts_before_send=", "enabled delay_rts_before_send=x",
		"enabled delay_rts_before_send=-1",
		"enabled delay_rts_after_send=4294967296",
		"enabled delay_rts_after_send=99999999999999999999",
		"enabled delay_rts_before_send", "disabled enabled",
	};
	struct rs485 got, want = R(RS485_ENABLED | RS485_RTS_AFTER_SEND, 0, 0);
	char buf[256];
	size_t i;
	int a, b, ret = -1, err;

	if (open_pair(81, &a, &b))
		return -1;
	for (i = 0; i < ARRAY_SIZE(good); i++) {
		err = attr_write('A', 81, "rs485", good[i].in);
		if (err) {
			fail("writing '%s': %s", good[i].in, strerror(-err));
			goto out;
		}
		if (attr_read('A', 81, "rs485", buf, sizeof(buf)))
			goto out;
		if (strcmp(buf, good[i].out)) {
			fail("after '%s' rs485 reads '%s', expected '%s'",
			     good[i].in, buf, good[i].out);
			goto out;
		}
	}
	/* the last one left RTS_AFTER_SEND... and "0" disabled: set again */
	if (attr_write('A', 81, "rs485", "enabled rts_after_send"))
		goto out;
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		err = attr_write('A', 81, "rs485", bad[i]);
		if (err != -EINVAL) {
			fail("writing '%s' gave %s, expected EINVAL", bad[i],
			     err ? strerror(-err) : "success");
			goto out;
		}
	}
	if (rs485_get(a, &got, "after the refused writes") ||
	    rs485_equal(&got, &want, "after the refused writes (via the ioctl)"))
		goto out;
	/* the ioctl's setting shows in the attribute */
	got = (struct rs485)R(RS485_ENABLED | RS485_RTS_ON_SEND, 12, 34);
	if (ioctl(a, TIOCSRS485, &got)) {
		fail("TIOCSRS485: %s", strerror(errno));
		goto out;
	}
	if (attr_read('A', 81, "rs485", buf, sizeof(buf)))
		goto out;
	if (strcmp(buf, "enabled rts_on_send delay_rts_before_send=12 delay_rts_after_send=34")) {
		fail("after TIOCSRS485 rs485 reads '%s'", buf);
		goto out;
	}
	ret = 0;
out:
	attr_write('A', 81, "rs485", "disabled");
	close_pair(a, b);
	return ret;
}

static void on_sigusr1(int sig)
{
	(void)sig;
}

/* CTS edges of an end, timed by a thread waiting in TIOCMIWAIT */
struct edges {
	int fd;
	pid_t tid;
	int n;
	double t[8];
	int level[8];
};

/* until SIGUSR1 interrupts its TIOCMIWAIT (no SA_RESTART) */
static void *edge_thread(void *arg)
{
	struct edges *e = arg;
	int m, last = -1;

	e->tid = thread_id();
	while (e->n < (int)ARRAY_SIZE(e->t)) {
		if (ioctl(e->fd, TIOCMIWAIT, TIOCM_CTS))
			break;
		if (ioctl(e->fd, TIOCMGET, &m))
			break;
		if (!!(m & TIOCM_CTS) == last)
			continue;
		last = !!(m & TIOCM_CTS);
		e->t[e->n] = now();
		e->level[e->n++] = last;
	}
	return NULL;
}

static int cts_of(int fd)
{
	int m = modem_get(fd);

	return m < 0 ? -1 : !!(m & TIOCM_CTS);
}

/*
 * One transmission of 10 characters at 1200 baud 8N1 (8.33 ms each) with
 * delays of 20 ms before and 30 ms after: the peer's CTS (RTS through the
 * null-modem cable) takes the level for sending when the write is made,
 * the first character arrives 20 ms plus one character time later, and
 * CTS returns 30 ms after the last one has arrived. Each time within one
 * character time; as the baud-rate tests, up to 5 attempts.
 */
static int rts_attempt(int a, int b, int on_send, char *txt, size_t len,
		       int *ok)
{
	const double ch = 10.0 / 1200;
	static const unsigned char out[10] = { '0', '1', '2', '3', '4', '5', '6', '7', '8', '9' };
	unsigned char got[sizeof(out)];
	struct edges e = { .fd = b };
	double t0, t_first, t_last, rise, fall;
	pthread_t th;
	size_t k;

	*ok = 0;
	if (cts_of(b) != !on_send)
		return fail("the peer's CTS is %d before sending, expected %d",
			    cts_of(b), !on_send);
	sigaction(SIGUSR1, &(struct sigaction){ .sa_handler = on_sigusr1 },
		  NULL);
	pthread_create(&th, NULL, edge_thread, &e);
	if (thread_blocked(&e.tid, SYS_ioctl, 3000, "the CTS watcher")) {
		pthread_kill(th, SIGUSR1);
		pthread_join(th, NULL);
		return -1;
	}
	t0 = now();
	if (write_full(a, out, sizeof(out)) != sizeof(out)) {
		pthread_kill(th, SIGUSR1);
		pthread_join(th, NULL);
		return fail("write: %s", strerror(errno));
	}
	k = read_upto(b, got, 1, 3000);
	t_first = now();
	k += read_upto(b, got + 1, sizeof(got) - 1, 3000);
	t_last = now();
	/* the watcher sees CTS return, at most 30 ms + slack later */
	msleep(300);
	pthread_kill(th, SIGUSR1);
	pthread_join(th, NULL);
	if (k != sizeof(out) || memcmp(got, out, sizeof(out)))
		return fail("%zu of 10 characters arrived", k);
	if (e.n != 2 || e.level[0] != on_send || e.level[1] != !on_send)
		return fail("the peer saw %d CTS changes (first to %d), expected 2: to %d and back",
			    e.n, e.n ? e.level[0] : -1, on_send);
	/* all from the write: a reader or watcher woken late only adds */
	rise = e.t[0] - t0;
	fall = e.t[1] - t0;
	snprintf(txt, len,
		 "CTS %s %.1f ms after the write, first character %.1f ms after it (ideal %.1f), last %.1f ms (ideal %.1f), CTS back %.1f ms after the write (ideal %.1f)",
		 on_send ? "rose" : "fell", rise * 1e3, (t_first - t0) * 1e3,
		 (0.020 + ch) * 1e3, (t_last - t0) * 1e3, (0.020 + 10 * ch) * 1e3,
		 fall * 1e3, (0.050 + 10 * ch) * 1e3);
	/* never early by a character; late by up to two (a loaded guest) */
	*ok = rise >= 0 && rise < 2 * ch &&
	      t_first - t0 > 0.020 && t_first - t0 < 0.020 + 3 * ch &&
	      t_last - t0 > 0.020 + 9 * ch && t_last - t0 < 0.020 + 12 * ch &&
	      fall > 0.050 + 9 * ch && fall < 0.050 + 12 * ch;
	return 0;
}

/*
 * A second frame written while RTS waits its delay after the first (a
 * master polling again at once) goes out at once: RTS stays on between the
 * two (the peer sees one rise and one fall), and the second frame's first
 * character arrives one character time after its write, not after the
 * delay. RTS_ON_SEND, delays 20 and 30 ms, 1200 baud.
 */
static int rts_back_to_back(int a, int b, char *txt, size_t len, int *ok)
{
	const double ch = 10.0 / 1200;
	static const unsigned char out[10] = { 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j' };
	unsigned char got[sizeof(out)];
	struct edges e = { .fd = b };
	double t_w2, t2_first;
	pthread_t th;
	size_t k;

	*ok = 0;
	sigaction(SIGUSR1, &(struct sigaction){ .sa_handler = on_sigusr1 },
		  NULL);
	pthread_create(&th, NULL, edge_thread, &e);
	if (thread_blocked(&e.tid, SYS_ioctl, 3000, "the CTS watcher")) {
		pthread_kill(th, SIGUSR1);
		pthread_join(th, NULL);
		return -1;
	}
	k = write_full(a, out, sizeof(out)) == sizeof(out) ?
	    read_upto(b, got, sizeof(got), 3000) : 0;
	t_w2 = now();
	if (k == sizeof(out) && write_full(a, out, sizeof(out)) == sizeof(out))
		k += read_upto(b, got, 1, 3000);
	t2_first = now();
	k += read_upto(b, got + 1, sizeof(got) - 1, 3000);
	msleep(300);
	pthread_kill(th, SIGUSR1);
	pthread_join(th, NULL);
	if (k != 2 * sizeof(out))
		return fail("%zu of 20 characters arrived", k);
	if (e.n != 2 || e.level[0] != 1 || e.level[1] != 0)
		return fail("the peer saw %d CTS changes around two frames written back to back, expected one rise and one fall",
			    e.n);
	snprintf(txt, len, "second frame's first character %.1f ms after its write (ideal %.1f)",
		 (t2_first - t_w2) * 1e3, ch * 1e3);
	*ok = t2_first - t_w2 < 3 * ch;	/* the defect: the whole 30 ms */
	return 0;
}

static int t_rs485_rts_timing(void)
{
	static const struct {
		uint32_t flags;
		int on_send;
	} modes[] = {
		{ RS485_ENABLED | RS485_RTS_ON_SEND, 1 },
		{ RS485_ENABLED | RS485_RTS_AFTER_SEND, 0 },
	};
	struct rs485 r;
	char txt[300];
	size_t i;
	int a, b, k, ok, ret = -1;

	if (attr_write('A', 82, "baud_emulation", "1"))
		return fail("baud_emulation: %s", strerror(errno));
	if (open_pair(82, &a, &b))
		return -1;
	if (set_speed(a, B1200) || set_speed(b, B1200))
		goto out;
	/* the open raised RTS: RS-485 mode takes it over */
	if (cts_of(b) != 1) {
		fail("the peer's CTS is not on after the open");
		goto out;
	}
	for (i = 0; i < ARRAY_SIZE(modes); i++) {
		r = (struct rs485)R(modes[i].flags, 20, 30);
		if (ioctl(a, TIOCSRS485, &r)) {
			fail("TIOCSRS485: %s", strerror(errno));
			goto out;
		}
		/* TIOCMSET cannot move RTS while the transmitter drives it */
		if (ioctl(a, modes[i].on_send ? TIOCMBIS : TIOCMBIC,
			  &(int){ TIOCM_RTS }) || cts_of(b) != !modes[i].on_send) {
			fail("RTS moved by TIOCMSET in RS-485 mode (flags %#x)",
			     modes[i].flags);
			goto out;
		}
		for (k = 1; k <= 5; k++) {
			if (rts_attempt(a, b, modes[i].on_send, txt,
					sizeof(txt), &ok))
				goto out;
			note("flags %#x, attempt %d: %s", modes[i].flags, k, txt);
			if (ok)
				break;
		}
		if (!ok) {
			fail("flags %#x: off by more than a character time in 5 attempts, the last: %s",
			     modes[i].flags, txt);
			goto out;
		}
	}
	r = (struct rs485)R(RS485_ENABLED | RS485_RTS_ON_SEND, 20, 30);
	if (ioctl(a, TIOCSRS485, &r)) {
		fail("TIOCSRS485: %s", strerror(errno));
		goto out;
	}
	for (k = 1; k <= 5; k++) {
		if (rts_back_to_back(a, b, txt, sizeof(txt), &ok))
			goto out;
		note("back to back, attempt %d: %s", k, txt);
		if (ok)
			break;
	}
	if (!ok) {
		fail("back to back: more than a character time in 5 attempts, the last: %s",
		     txt);
		goto out;
	}
	/* leaving the mode gives RTS back to what TIOCMSET set (on) */
	if (ioctl(a, TIOCMBIS, &(int){ TIOCM_RTS }))
		goto out;
	r = (struct rs485)R(0, 0, 0);
	if (ioctl(a, TIOCSRS485, &r) || cts_of(b) != 1) {
		fail("RTS is not back on after leaving RS-485 mode");
		goto out;
	}
	ret = 0;
out:
	r = (struct rs485)R(0, 0, 0);
	ioctl(a, TIOCSRS485, &r);
	close_pair(a, b);
	attr_write('A', 82, "baud_emulation", "0");
	return ret;
}

static int lsr(int fd)
{
	unsigned int v = 0xdead;

	if (ioctl(fd, TIOCSERGETLSR, &v))
		return fail("TIOCSERGETLSR: %s", strerror(errno));
	if (v & ~TIOCSER_TEMT)
		return fail("TIOCSERGETLSR gave %#x: bits besides TEMT", v);
	return v;
}

/*
 * TIOCSERGETLSR: TIOCSER_TEMT while nothing is left to send; with
 * baud-rate emulation clear from the write until the last character has
 * left (tcdrain returns then), set again after it; without emulation set
 * right after a write.
 */
static int t_lsr_temt(void)
{
	unsigned char out[20], got[sizeof(out)];
	int a, b, ret = -1;

	memset(out, 'x', sizeof(out));
	if (attr_write('A', 83, "baud_emulation", "1"))
		return fail("baud_emulation: %s", strerror(errno));
	if (open_pair(83, &a, &b))
		return -1;
	if (set_speed(a, B1200) || set_speed(b, B1200))
		goto out;
	if (lsr(a) != TIOCSER_TEMT) {
		fail("before sending: TEMT not set");
		goto out;
	}
	if (write_full(a, out, sizeof(out)) != sizeof(out))
		goto out;
	if (lsr(a) != 0) {
		fail("right after writing 20 characters at 1200 baud: TEMT set");
		goto out;
	}
	msleep(100);	/* 12 of 20 have left */
	if (lsr(a) != 0) {
		fail("100 ms into a 167 ms transmission: TEMT set");
		goto out;
	}
	if (tcdrain(a)) {
		fail("tcdrain: %s", strerror(errno));
		goto out;
	}
	if (lsr(a) != TIOCSER_TEMT) {
		fail("after tcdrain: TEMT not set");
		goto out;
	}
	if (read_full(b, got, sizeof(got), 3000) != sizeof(got))
		goto out;
	if (attr_write('A', 83, "baud_emulation", "0"))
		goto out;
	if (write_full(a, out, sizeof(out)) != sizeof(out))
		goto out;
	if (lsr(a) != TIOCSER_TEMT) {
		fail("without baud-rate emulation, right after a write: TEMT not set");
		goto out;
	}
	if (read_full(b, got, sizeof(got), 3000) != sizeof(got))
		goto out;
	ret = 0;
out:
	close_pair(a, b);
	attr_write('A', 83, "baud_emulation", "0");
	return ret;
}

const struct test rs485_tests[] = {
	{ "rs485_ioctl_limits", t_rs485_ioctl_limits, 30 },
	{ "rs485_sysfs_text", t_rs485_sysfs_text, 30 },
	{ "rs485_rts_timing", t_rs485_rts_timing, 60 },
	{ "lsr_temt", t_lsr_temt, 30 },
	{ NULL }
};
