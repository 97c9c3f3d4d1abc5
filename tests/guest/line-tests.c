// SPDX-License-Identifier: GPL-2.0
/*
 * Functional tests of ttypair's line settings: character size, strict mode
 * (framing and parity errors), baud-rate emulation, error injection, noise,
 * hardware and software flow control, and the serial ioctls.
 *
 * Termios and sysfs settings persist while the module is loaded, so every
 * test uses a pair of its own, 30 to 63 (the run loads pairs=64). Data waits
 * are 3 s; "nothing arrives" checks wait 300 ms.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/serial.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "tlib.h"
#include "../../include/uapi/ttypair.h"

#define DATA_MS		3000	/* wait for data that must arrive */
#define QUIET_MS	300	/* wait for data that must not arrive */
#define FMT_MASK	(CSIZE | PARENB | PARODD | CMSPAR | CSTOPB)
#define NOBODY		65534
#define ARRAY_SIZE(x)	(sizeof(x) / sizeof((x)[0]))

/* ------------------------------------------------------------------------ */
/* helpers */

/* Open both ends of pair idx (raw, CLOCAL), run fn, flush and close. */
static int with_pair(int idx, int aflags, int bflags,
		     int (*fn)(int idx, int a, int b))
{
	int a, b, r;

	a = port_open('A', idx, aflags);
	if (a < 0)
		return -1;
	b = port_open('B', idx, bflags);
	if (b < 0) {
		close(a);
		return -1;
	}
	r = fn(idx, a, b);
	/* bytes left in a FIFO would make close() wait for them */
	tcflush(a, TCIOFLUSH);
	tcflush(b, TCIOFLUSH);
	close(a);
	close(b);
	return r;
}

static const char *hex(char *out, size_t len, const unsigned char *p,
		       size_t n)
{
	size_t i, o = 0;

	out[0] = 0;
	for (i = 0; i < n && i < 24 && o + 4 < len; i++)
		o += snprintf(out + o, len - o, "%s%02x", i ? " " : "", p[i]);
	if (i < n && o + 4 < len)
		snprintf(out + o, len - o, " ...");
	if (!n)
		snprintf(out, len, "nothing");
	return out;
}

/* Exactly these n bytes arrive on fd, and nothing after them. */
static int expect(int fd, const void *want, size_t n, const char *what)
{
	const unsigned char *w = want;
	unsigned char got[1024];
	char h1[128], h2[128];
	size_t k, i;

	if (n > sizeof(got))
		return fail("%s: %zu bytes are too many to compare", what, n);
	k = read_upto(fd, got, n, DATA_MS);
	if (k != n)
		return fail("%s: %zu of %zu bytes arrived: %s, expected %s", what,
			    k, n, hex(h1, sizeof(h1), got, k),
			    hex(h2, sizeof(h2), want, n));
	for (i = 0; i < n && got[i] == w[i]; i++)
		;
	if (i < n)
		return fail("%s: byte %zu is 0x%02x, expected 0x%02x; read %s",
			    what, i, got[i], w[i],
			    hex(h1, sizeof(h1), got + (i & ~7UL), n - (i & ~7UL)));
	k = read_upto(fd, got, sizeof(got), QUIET_MS);
	if (k)
		return fail("%s: %zu unexpected bytes followed: %s", what, k,
			    hex(h1, sizeof(h1), got, k));
	return 0;
}

/* Nothing arrives on fd within QUIET_MS. */
static int quiet(int fd, const char *what)
{
	unsigned char got[256];
	char h[128];
	size_t k = read_upto(fd, got, sizeof(got), QUIET_MS);

	if (k)
		return fail("%s: %zu bytes arrived: %s", what, k,
			    hex(h, sizeof(h), got, k));
	return 0;
}

/* \377 \0 c for each byte: what INPCK|PARMRK reads for flagged bytes. */
static size_t marked(unsigned char *out, const char *in)
{
	size_t i, n = strlen(in);

	for (i = 0; i < n; i++) {
		out[3 * i] = 0xff;
		out[3 * i + 1] = 0;
		out[3 * i + 2] = (unsigned char)in[i];
	}
	return 3 * n;
}

static int send_all(int fd, const void *buf, size_t n)
{
	return write_full(fd, buf, n) == (ssize_t)n ? 0 : -1;
}

/* Speed (a Bxxx constant) and data format (FMT_MASK bits); verified. */
static int set_line(int fd, speed_t speed, tcflag_t fmt)
{
	struct termios t;

	if (tcgetattr(fd, &t))
		return fail("tcgetattr: %s", strerror(errno));
	cfsetispeed(&t, speed);
	cfsetospeed(&t, speed);
	t.c_cflag = (t.c_cflag & ~FMT_MASK) | fmt;
	if (tcsetattr(fd, TCSANOW, &t))
		return fail("tcsetattr: %s", strerror(errno));
	memset(&t, 0, sizeof(t));
	if (tcgetattr(fd, &t))
		return fail("tcgetattr: %s", strerror(errno));
	if ((t.c_cflag & FMT_MASK) != fmt || cfgetospeed(&t) != speed)
		return fail("line settings did not stick: c_cflag 0%o, wanted 0%o",
			    t.c_cflag & FMT_MASK, fmt);
	return 0;
}

/* The receive modes of the strict-mode rules. */
static int set_rx_mode(int fd, tcflag_t iflags)
{
	return set_iflag(fd, INPCK | IGNPAR | PARMRK | IGNBRK | BRKINT,
			 iflags);
}

/* An attribute value for a message: a newline shown as \n. */
static const char *vis(char *buf, size_t len, const char *s)
{
	size_t o = 0;

	for (; *s && o + 3 < len; s++) {
		if (*s == '\n') {
			buf[o++] = '\\';
			buf[o++] = 'n';
		} else {
			buf[o++] = *s;
		}
	}
	buf[o] = 0;
	return buf;
}

static int attr_set(char end, int idx, const char *attr, const char *val)
{
	int r = attr_write(end, idx, attr, val);
	char v[64];

	if (r)
		return fail("writing '%s' to %s of ttyVP%c%d: %s",
			    vis(v, sizeof(v), val), attr, end, idx,
			    strerror(-r));
	return 0;
}

static int attr_is(char end, int idx, const char *attr, const char *want)
{
	char buf[128];
	int r = attr_read(end, idx, attr, buf, sizeof(buf));

	if (r)
		return fail("reading %s of ttyVP%c%d: %s", attr, end, idx,
			    strerror(-r));
	if (strcmp(buf, want))
		return fail("%s of ttyVP%c%d reads '%s', expected '%s'", attr,
			    end, idx, buf, want);
	return 0;
}

/* A pair-wide attribute: the same value on both ends' devices. */
static int pair_attr_is(int idx, const char *attr, const char *want)
{
	if (attr_is('A', idx, attr, want) || attr_is('B', idx, attr, want))
		return -1;
	return 0;
}

/* Each of bad[] is refused with EINVAL and the value stays 'keep'. */
static int attr_rejects(char end, int idx, const char *attr,
			const char *const *bad, const char *keep)
{
	char v[64];

	for (; *bad; bad++) {
		int r = attr_write(end, idx, attr, *bad);

		if (r != -EINVAL)
			return fail("writing '%s' to %s: %s, expected EINVAL",
				    vis(v, sizeof(v), *bad), attr,
				    r ? strerror(-r) : "accepted");
		if (attr_is(end, idx, attr, keep))
			return -1;
	}
	return 0;
}

static int get_icount(int fd, struct serial_icounter_struct *ic)
{
	memset(ic, 0, sizeof(*ic));
	if (ioctl(fd, TIOCGICOUNT, ic))
		return fail("TIOCGICOUNT: %s", strerror(errno));
	return 0;
}

/*
 * The error counters of fd moved by exactly these amounts since 'before'
 * (waiting up to DATA_MS for them to get there); buf_overrun did not move.
 */
static int check_errors(int fd, const struct serial_icounter_struct *before,
			int frame, int parity, int overrun, int brk,
			const char *what)
{
	struct serial_icounter_struct ic;
	double end = now() + DATA_MS / 1000.0;
	char got[64], want[64];

	for (;;) {
		int f, p, o, k, bo;

		if (get_icount(fd, &ic))
			return -1;
		f = ic.frame - before->frame;
		p = ic.parity - before->parity;
		o = ic.overrun - before->overrun;
		k = ic.brk - before->brk;
		bo = ic.buf_overrun - before->buf_overrun;
		if (f == frame && p == parity && o == overrun && k == brk &&
		    !bo)
			return 0;
		if (now() > end) {
			snprintf(got, sizeof(got), "%+d %+d %+d %+d %+d", f, p,
				 o, k, bo);
			snprintf(want, sizeof(want), "%+d %+d %+d %+d +0",
				 frame, parity, overrun, brk);
			return fail("%s: icount frame parity overrun brk buf_ovr %s, expected %s",
				    what, got, want);
		}
		msleep(20);
	}
}

static int queued(int fd, unsigned long req, const char *name)
{
	int n;

	if (ioctl(fd, req, &n))
		return fail("%s: %s", name, strerror(errno));
	return n;
}

static int outq(int fd)
{
	return queued(fd, TIOCOUTQ, "TIOCOUTQ");
}

static int inq(int fd)
{
	return queued(fd, TIOCINQ, "TIOCINQ");
}

/* Wait until TIOCINQ of fd is want; returns the last value seen. */
static int inq_reaches(int fd, int want)
{
	double end = now() + DATA_MS / 1000.0;
	int n;

	readable(fd, DATA_MS);
	msleep(100);
	for (;;) {
		n = inq(fd);
		if (n < 0 || n == want || now() > end)
			return n;
		msleep(20);
	}
}

/* Wait up to ms for the modem bit of fd to be on or off: 1, 0, or -1. */
static int modem_wait(int fd, int bit, int on, int ms)
{
	double end = now() + ms / 1000.0;

	for (;;) {
		int m = modem_get(fd);

		if (m < 0)
			return -1;
		if (!!(m & bit) == !!on)
			return 1;
		if (now() > end)
			return 0;
		msleep(20);
	}
}

static int modem_bits(int fd, unsigned long req, int bits)
{
	if (ioctl(fd, req, &bits))
		return fail("TIOCMBIS/TIOCMBIC: %s", strerror(errno));
	return 0;
}

struct bulk {
	int fd;
	const unsigned char *buf;
	size_t n;
	int err;		/* errno of a failed write */
	int done;
};

/* A thread writing a buffer in 4 KiB pieces. */
static void *bulk_writer(void *arg)
{
	struct bulk *w = arg;
	size_t done = 0;

	while (done < w->n) {
		size_t n = w->n - done < 4096 ? w->n - done : 4096;
		ssize_t r = write(w->fd, w->buf + done, n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			w->err = errno;
			break;
		}
		done += r;
	}
	__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * Wait for a bulk_writer, reading and discarding what reaches rx so that
 * it cannot stay blocked; give up (detach) after 10 s. w must be static.
 */
static void stop_writer(pthread_t t, struct bulk *w, int rx)
{
	unsigned char buf[4096];
	double end = now() + 10;

	while (!__atomic_load_n(&w->done, __ATOMIC_ACQUIRE) && now() < end)
		read_upto(rx, buf, sizeof(buf), 100);
	if (__atomic_load_n(&w->done, __ATOMIC_ACQUIRE))
		pthread_join(t, NULL);
	else
		pthread_detach(t);
}

/*
 * Write the stream st to the nonblocking fd in pieces of 'chunk' bytes
 * until done(fd) is true or a write fails with EAGAIN (*eagain = 1), at
 * most max bytes. Returns the bytes written: the stream's first ones.
 */
static ssize_t feed(int fd, struct stream *st, size_t chunk, size_t max,
		    int (*done)(int fd), int *eagain)
{
	unsigned char buf[1024];
	size_t total = 0, off = 0, len = 0;

	*eagain = 0;
	if (chunk > sizeof(buf))
		chunk = sizeof(buf);
	while (total < max) {
		ssize_t r;
		int d = done(fd);

		if (d < 0)
			return -1;
		if (d)
			break;
		if (off == len) {
			stream_fill(st, buf, chunk);
			off = 0;
			len = chunk;
		}
		r = write(fd, buf + off, len - off);
		if (r < 0 && errno == EAGAIN) {
			*eagain = 1;
			break;
		}
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return fail("write: %s", r ? strerror(errno) : "returned 0");
		off += r;
		total += r;
	}
	return total;
}

static int cts_off(int fd)
{
	int m = modem_get(fd);

	return m < 0 ? -1 : !(m & TIOCM_CTS);
}

static int has_input(int fd)
{
	return readable(fd, 0);
}

struct sender {
	int fd;
	const unsigned char *buf;
	size_t n;
	double secs;		/* write() + tcdrain() */
	int err;		/* errno of a failed write or tcdrain */
};

/* Write everything and drain; time it. */
static void *sender_thread(void *arg)
{
	struct sender *s = arg;
	double t0 = now();
	size_t done = 0;

	while (done < s->n) {
		ssize_t r = write(s->fd, s->buf + done, s->n - done);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			s->err = errno;
			return NULL;
		}
		done += r;
	}
	if (tcdrain(s->fd))
		s->err = errno;
	s->secs = now() - t0;
	return NULL;
}

static int run_sender(struct sender *s)
{
	sender_thread(s);
	if (s->err)
		return fail("write/tcdrain: %s", strerror(s->err));
	return 0;
}

static double pct(double got, double ideal)
{
	return (got - ideal) / ideal * 100.0;
}

/* ------------------------------------------------------------------------ */
/* character size */

struct csize_case {
	char from;		/* sending end */
	tcflag_t tx, rx;	/* CSx of the sender and of the receiver */
	unsigned char mask;
};

/*
 * A UART sends only the low CSx bits of a byte and delivers only its own
 * CSx bits: the receiver sees the byte masked to the smaller size. The
 * same with strict off and on (then a size mismatch is also a framing
 * error, but a receiver without INPCK still reads the byte).
 */
static int csize_masking(int idx, int a, int b)
{
	static const struct csize_case cases[] = {
		{ 'A', CS7, CS8, 0x7f },
		{ 'A', CS8, CS5, 0x1f },
		{ 'A', CS6, CS6, 0x3f },
		{ 'A', CS5, CS7, 0x1f },
		{ 'B', CS8, CS7, 0x7f },
		{ 'B', CS6, CS8, 0x3f },
		{ 'A', CS8, CS8, 0xff },
	};
	static const char *const strict[] = { "0", "1" };
	unsigned char out[256], want[256];
	size_t i, v, k;
	char what[80];

	for (v = 0; v < 256; v++)
		out[v] = (unsigned char)v;
	if (set_rx_mode(a, 0) || set_rx_mode(b, 0) ||
	    set_iflag(a, ISTRIP, 0) || set_iflag(b, ISTRIP, 0))
		return -1;
	for (k = 0; k < ARRAY_SIZE(strict); k++) {
		if (attr_set('A', idx, "strict", strict[k]) ||
		    pair_attr_is(idx, "strict", strict[k]))
			return -1;
		for (i = 0; i < ARRAY_SIZE(cases); i++) {
			const struct csize_case *c = &cases[i];
			int tx = c->from == 'A' ? a : b;
			int rx = c->from == 'A' ? b : a;

			if (set_line(tx, B9600, c->tx) ||
			    set_line(rx, B9600, c->rx))
				return -1;
			for (v = 0; v < 256; v++)
				want[v] = (unsigned char)v & c->mask;
			snprintf(what, sizeof(what),
				 "strict %s: %c sends CS%d, %c receives CS%d",
				 strict[k], c->from, 5 + (int)(c->tx >> 4),
				 c->from == 'A' ? 'B' : 'A',
				 5 + (int)(c->rx >> 4));
			if (send_all(tx, out, 256) || expect(rx, want, 256, what))
				return -1;
		}
	}
	return attr_set('A', idx, "strict", "0");
}

/* ------------------------------------------------------------------------ */
/* strict mode */

/*
 * Without strict mode a mismatch of speed, size and parity is not
 * modelled: bytes arrive unflagged (only masked to the receiver's size),
 * and no error is counted.
 */
static int strict_off_no_errors(int idx, int a, int b)
{
	struct serial_icounter_struct ia, ib;
	unsigned char out[256], want[256];
	int v;

	if (attr_set('A', idx, "strict", "0") || pair_attr_is(idx, "strict", "0"))
		return -1;
	if (set_line(a, B9600, CS8) ||
	    set_line(b, B19200, CS7 | PARENB | PARODD | CSTOPB) ||
	    set_rx_mode(b, INPCK | PARMRK) || set_rx_mode(a, INPCK | PARMRK) ||
	    get_icount(a, &ia) || get_icount(b, &ib))
		return -1;
	for (v = 0; v < 256; v++) {
		out[v] = (unsigned char)v;
		want[v] = (unsigned char)v & 0x7f;
	}
	if (send_all(a, out, 256) || expect(b, want, 256, "A 9600 8N1 -> B 19200 7O2"))
		return -1;
	if (send_all(b, "hello", 5) || expect(a, "hello", 5, "B -> A"))
		return -1;
	if (check_errors(b, &ib, 0, 0, 0, 0, "B") ||
	    check_errors(a, &ia, 0, 0, 0, 0, "A"))
		return -1;
	return 0;
}

struct mismatch {
	const char *what;
	speed_t sa, sb;
	tcflag_t fa, fb;
};

/* Send "abc" from tx; rx (INPCK|PARMRK) must read it marked. */
static int marked_abc(int tx, int rx, const char *what)
{
	unsigned char want[16];
	size_t n = marked(want, "abc");

	if (send_all(tx, "abc", 3))
		return -1;
	return expect(rx, want, n, what);
}

/*
 * A receiver at the wrong speed, character size or number of stop bits
 * sees framing errors (UART_LSR_FE): with INPCK|PARMRK each byte reads as
 * \377 \0 c, and icount.frame counts them.
 */
static int strict_frame_error(int idx, int a, int b)
{
	static const struct mismatch cases[] = {
		{ "speed 9600 vs 19200", B9600, B19200, CS8, CS8 },
		{ "size CS7 vs CS8", B9600, B9600, CS7, CS8 },
		{ "stop bits 2 vs 1", B9600, B9600, CS8 | CSTOPB, CS8 },
		{ "speed and parity", B9600, B19200, CS8 | PARENB, CS8 },
	};
	struct serial_icounter_struct ia, ib;
	size_t i;

	if (attr_set('A', idx, "strict", "1") || pair_attr_is(idx, "strict", "1") ||
	    set_rx_mode(a, INPCK | PARMRK) || set_rx_mode(b, INPCK | PARMRK))
		return -1;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct mismatch *c = &cases[i];

		if (set_line(a, c->sa, c->fa) || set_line(b, c->sb, c->fb) ||
		    get_icount(a, &ia) || get_icount(b, &ib))
			return -1;
		if (marked_abc(a, b, c->what) ||
		    check_errors(b, &ib, 3, 0, 0, 0, c->what))
			return -1;
		if (i == 0 && (marked_abc(b, a, "speed mismatch, B -> A") ||
			       check_errors(a, &ia, 3, 0, 0, 0, "B -> A")))
			return -1;
	}
	/* the same settings on both ends: clean again, strict still on */
	if (set_line(a, B19200, CS8) || set_line(b, B19200, CS8) ||
	    get_icount(b, &ib))
		return -1;
	if (send_all(a, "abc", 3) || expect(b, "abc", 3, "matching settings") ||
	    check_errors(b, &ib, 0, 0, 0, 0, "matching settings"))
		return -1;
	return 0;
}

/*
 * Strict mode compares speeds as a receiving UART does: characters sent
 * within 3 % of the receiver's speed (either way) arrive clean, 3.1 % off
 * they arrive with framing errors. The receiver's input speed counts, not
 * its output speed: an end sending at 9600 and receiving at 19200 takes
 * 19200 clean and 9600 with errors.
 */
static int strict_speed_tolerance(int idx, int a, int b)
{
	static const struct {
		unsigned int tx;
		int clean;
	} cases[] = {
		{ 9600 * 1029 / 1000, 1 }, { 9600 * 971 / 1000, 1 },
		{ 9600 * 1031 / 1000, 0 }, { 9600 * 969 / 1000, 0 },
		{ 9600, 1 },
	};
	struct serial_icounter_struct ib, ia;
	char what[96];
	size_t i;

	if (attr_set('A', idx, "strict", "1") || pair_attr_is(idx, "strict", "1") ||
	    set_rx_mode(a, INPCK | PARMRK) || set_rx_mode(b, INPCK | PARMRK) ||
	    set_line(a, B9600, CS8) || set_line(b, B9600, CS8))
		return -1;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		snprintf(what, sizeof(what), "sent at %u, received at 9600",
			 cases[i].tx);
		if (set_speed_any(a, cases[i].tx, 0) || get_icount(b, &ib))
			return -1;
		if (cases[i].clean) {
			if (send_all(a, "abc", 3) || expect(b, "abc", 3, what) ||
			    check_errors(b, &ib, 0, 0, 0, 0, what))
				return -1;
		} else if (marked_abc(a, b, what) ||
			   check_errors(b, &ib, 3, 0, 0, 0, what)) {
			return -1;
		}
	}
	/* a: output 9600, input 19200 */
	if (set_speed_any(a, 9600, 19200) || set_speed_any(b, 19200, 0) ||
	    get_icount(a, &ia))
		return -1;
	if (send_all(b, "abc", 3) ||
	    expect(a, "abc", 3, "sent at 19200 to an end receiving at 19200 and sending at 9600") ||
	    check_errors(a, &ia, 0, 0, 0, 0, "input speed 19200"))
		return -1;
	if (set_speed_any(b, 9600, 0) || get_icount(a, &ia))
		return -1;
	if (marked_abc(b, a, "sent at 9600 to an end receiving at 19200") ||
	    check_errors(a, &ia, 3, 0, 0, 0, "input speed 19200, sent at 9600"))
		return -1;
	/* and what it sends at 9600 arrives clean at a 9600 receiver */
	if (set_speed_any(b, 9600, 0) || get_icount(b, &ib))
		return -1;
	if (send_all(a, "abc", 3) || expect(b, "abc", 3, "sent at a's output speed 9600") ||
	    check_errors(b, &ib, 0, 0, 0, 0, "a's output speed"))
		return -1;
	return 0;
}

/*
 * A receiver that expects another parity (even/odd, none, mark/space) sees
 * parity errors (UART_LSR_PE): \377 \0 c with INPCK|PARMRK, icount.parity.
 */
static int strict_parity_error(int idx, int a, int b)
{
	static const struct mismatch cases[] = {
		{ "even vs odd", B9600, B9600, CS8 | PARENB,
		  CS8 | PARENB | PARODD },
		{ "even vs none", B9600, B9600, CS8 | PARENB, CS8 },
		{ "mark vs space", B9600, B9600, CS8 | PARENB | PARODD | CMSPAR,
		  CS8 | PARENB | CMSPAR },
	};
	struct serial_icounter_struct ib;
	size_t i;

	if (attr_set('B', idx, "strict", "1") || pair_attr_is(idx, "strict", "1") ||
	    set_rx_mode(b, INPCK | PARMRK))
		return -1;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct mismatch *c = &cases[i];

		if (set_line(a, c->sa, c->fa) || set_line(b, c->sb, c->fb) ||
		    get_icount(b, &ib))
			return -1;
		if (marked_abc(a, b, c->what) ||
		    check_errors(b, &ib, 0, 3, 0, 0, c->what))
			return -1;
	}
	return 0;
}

struct rx_mode {
	const char *what;
	tcflag_t iflags;
	const char *want;	/* what "abc" reads as */
	size_t len;
};

/*
 * What the receiver reads for bytes with errors follows its termios, as on
 * a UART: INPCK|IGNPAR drops them, INPCK alone reads \0, INPCK|PARMRK
 * reads \377 \0 c, no INPCK reads the bytes; all are counted.
 */
static int strict_receiver_modes(int idx, int a, int b)
{
	static const struct mismatch kinds[] = {
		{ "framing error", B9600, B19200, CS8, CS8 },
		{ "parity error", B9600, B9600, CS8 | PARENB,
		  CS8 | PARENB | PARODD },
	};
	static const struct rx_mode modes[] = {
		{ "INPCK|IGNPAR", INPCK | IGNPAR, "", 0 },
		{ "INPCK|IGNPAR|PARMRK", INPCK | IGNPAR | PARMRK, "", 0 },
		{ "INPCK", INPCK, "\0\0\0", 3 },
		{ "INPCK|PARMRK", INPCK | PARMRK,
		  "\377\000a\377\000b\377\000c", 9 },
		{ "no INPCK", 0, "abc", 3 },
	};
	struct serial_icounter_struct ib;
	char what[96];
	size_t k, m;

	if (attr_set('A', idx, "strict", "1"))
		return -1;
	for (k = 0; k < ARRAY_SIZE(kinds); k++) {
		const struct mismatch *c = &kinds[k];

		if (set_line(a, c->sa, c->fa) || set_line(b, c->sb, c->fb))
			return -1;
		for (m = 0; m < ARRAY_SIZE(modes); m++) {
			snprintf(what, sizeof(what), "%s, receiver %s",
				 c->what, modes[m].what);
			if (set_rx_mode(b, modes[m].iflags) || get_icount(b, &ib))
				return -1;
			if (send_all(a, "abc", 3))
				return -1;
			if (modes[m].len) {
				if (expect(b, modes[m].want, modes[m].len, what))
					return -1;
			} else {
				/* wait for the counts: then nothing may be readable */
				if (check_errors(b, &ib, k ? 0 : 3, k ? 3 : 0,
						 0, 0, what) || quiet(b, what))
					return -1;
			}
			if (check_errors(b, &ib, k ? 0 : 3, k ? 3 : 0, 0, 0, what))
				return -1;
		}
	}
	return 0;
}

struct line_fmt {
	const char *name;
	speed_t speed;
	tcflag_t cflag;
	unsigned char mask;
};

/*
 * Two ports set up alike (7E1 at 1200 and others) exchange data without
 * errors even in strict mode; bytes are masked to the character size.
 */
static int strict_matching_7e1(int idx, int a, int b)
{
	static const struct line_fmt fmts[] = {
		{ "7E1 1200", B1200, CS7 | PARENB, 0x7f },
		{ "8N2 115200", B115200, CS8 | CSTOPB, 0xff },
		{ "5O1 300", B300, CS5 | PARENB | PARODD, 0x1f },
		{ "8 mark 1 38400", B38400, CS8 | PARENB | PARODD | CMSPAR, 0xff },
	};
	struct serial_icounter_struct ia, ib;
	unsigned char out[256], want[512];
	size_t i, n, v;

	if (attr_set('A', idx, "strict", "1") ||
	    set_rx_mode(a, INPCK | PARMRK) || set_rx_mode(b, INPCK | PARMRK))
		return -1;
	for (v = 0; v < 256; v++)
		out[v] = (unsigned char)v;
	for (i = 0; i < ARRAY_SIZE(fmts); i++) {
		const struct line_fmt *f = &fmts[i];

		if (set_line(a, f->speed, f->cflag) ||
		    set_line(b, f->speed, f->cflag) ||
		    get_icount(a, &ia) || get_icount(b, &ib))
			return -1;
		/* PARMRK doubles a genuine \377 */
		for (v = 0, n = 0; v < 256; v++) {
			want[n++] = (unsigned char)v & f->mask;
			if (want[n - 1] == 0xff)
				want[n++] = 0xff;
		}
		if (send_all(a, out, 256) || expect(b, want, n, f->name) ||
		    send_all(b, out, 256) || expect(a, want, n, f->name))
			return -1;
		if (check_errors(a, &ia, 0, 0, 0, 0, f->name) ||
		    check_errors(b, &ib, 0, 0, 0, 0, f->name))
			return -1;
	}
	return 0;
}

/* The strict attribute takes 0 or 1 only, pair-wide, from either end. */
static int t_strict_attr_invalid(void)
{
	static const char *const bad[] = {
		"2", "-1", "maybe", "\n", "-0", NULL
	};
	const int idx = 36;

	if (pair_attr_is(idx, "strict", "0") ||
	    attr_rejects('A', idx, "strict", bad, "0") ||
	    pair_attr_is(idx, "strict", "0"))
		return -1;
	if (attr_set('A', idx, "strict", "1") || pair_attr_is(idx, "strict", "1") ||
	    attr_rejects('A', idx, "strict", bad, "1") ||
	    attr_rejects('B', idx, "strict", bad, "1") ||
	    pair_attr_is(idx, "strict", "1"))
		return -1;
	if (attr_set('B', idx, "strict", "0\n") || pair_attr_is(idx, "strict", "0"))
		return -1;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* baud-rate emulation */

static int emulation(int idx, const char *on)
{
	if (attr_set('A', idx, "baud_emulation", on) ||
	    pair_attr_is(idx, "baud_emulation", on))
		return -1;
	return 0;
}

struct rx_clock {
	pid_t tid;		/* the reader thread (thread_blocked()) */
	int fd;
	unsigned char *buf;
	size_t n, got;
	double first, last;	/* when the first and the last byte were read */
	/* least-squares fit of bytes received against time, over every read */
	double sx, sy, sxx, sxy;
	unsigned long reads;
	char why[160];
};

/*
 * The receive rate in bytes per second, fitted over all reads: one late
 * wake-up of the reader (a loaded or real-time host) moves it far less than
 * it moves the time between the first and the last byte.
 */
static double rx_clock_rate(const struct rx_clock *r)
{
	double n = r->reads, d = n * r->sxx - r->sx * r->sx;

	return d > 0 ? (n * r->sxy - r->sx * r->sy) / d : 0;
}

static void *rx_clock_thread(void *arg)
{
	struct rx_clock *r = arg;

	__atomic_store_n(&r->tid, thread_id(), __ATOMIC_SEQ_CST);
	while (r->got < r->n) {
		ssize_t k;
		double t;

		if (readable(r->fd, DATA_MS) <= 0) {
			snprintf(r->why, sizeof(r->why),
				 "only %zu of %zu bytes arrived", r->got, r->n);
			return NULL;
		}
		k = read(r->fd, r->buf + r->got, r->n - r->got);
		t = now();
		if (k < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (k <= 0) {
			snprintf(r->why, sizeof(r->why), "read: %s",
				 k ? strerror(errno) : "end of file");
			return NULL;
		}
		if (!r->got)
			r->first = t;
		r->got += k;
		r->last = t;
		r->sx += t - r->first;
		r->sy += r->got;
		r->sxx += (t - r->first) * (t - r->first);
		r->sxy += (t - r->first) * r->got;
		r->reads++;
	}
	return NULL;
}

struct rate {
	speed_t code;		/* Bxxx; B0: any speed, set with BOTHER */
	unsigned int baud;
};

/*
 * A timing measurement off by more than its tolerance is taken again, up to
 * TIMING_ATTEMPTS times in all, and passes if one attempt is within it: a
 * guest whose virtual CPUs the host does not run for a while (two TCG
 * guests on two cores, or a loaded host) only ever makes the line look
 * slower, never faster, and the module's pacing is computed from absolute
 * times, so a wrong pace fails every attempt. Lost, reordered or corrupted
 * data fails at once. Every attempt is noted.
 */
#define TIMING_ATTEMPTS	5

/* One 2.5 s transfer at @r: 0 with the errors in percent, or -1 */
static int rate_attempt(int a, int b, const struct rate *r, double *rx_err,
			double *tx_err, char *txt, size_t len)
{
	unsigned int baud = r->baud;
	size_t n = baud / 10 * 25 / 10;	/* 2.5 s of wire time */
	struct rx_clock rc = { .fd = b, .n = n };
	struct sender s = { .fd = a, .n = n };
	double rx_ideal = (n - 1) * 10.0 / baud, tx_ideal = n * 10.0 / baud;
	unsigned char *buf = malloc(n), *got = malloc(n);
	double rx_secs;
	struct stream st;
	pthread_t t;
	int ret = -1;

	if (!buf || !got) {
		fail("out of memory");
		goto out;
	}
	stream_init(&st, baud);
	stream_fill(&st, buf, n);
	rc.buf = got;
	s.buf = buf;
	pthread_create(&t, NULL, rx_clock_thread, &rc);
	/* the reader waits in poll() before the first byte leaves */
	if (thread_blocked(&rc.tid, SYS_POLL_CALL, DATA_MS, "the reader") ||
	    run_sender(&s)) {
		pthread_join(t, NULL);
		goto out;
	}
	pthread_join(t, NULL);
	if (rc.why[0]) {
		fail("baud %u: %s", baud, rc.why);
		goto out;
	}
	stream_init(&st, baud);
	if (stream_check(&st, got, n) || quiet(b, "after the transfer"))
		goto out;
	/* the time n - 1 characters take at the fitted rate */
	rx_secs = rx_clock_rate(&rc);
	rx_secs = rx_secs > 0 ? (n - 1) / rx_secs : 0;
	*rx_err = pct(rx_secs, rx_ideal);
	*tx_err = pct(s.secs, tx_ideal);
	snprintf(txt, len,
		 "%zu bytes, reader %.4f s fitted (ideal %.4f s, error %+.2f%%), tcdrain %.4f s (ideal %.4f s, error %+.2f%%)",
		 n, rx_secs, rx_ideal, *rx_err, s.secs, tx_ideal, *tx_err);
	ret = 0;
out:
	free(buf);
	free(got);
	return ret;
}

/*
 * A UART at B baud moves B/10 bytes per second in 8N1: the receiver sees
 * the bytes spaced one character time apart and tcdrain() returns when the
 * last one has left. Both within 1 % of ideal, for standard speeds and for
 * speeds set with BOTHER (DMX's 250000, MIDI's 31250).
 */
static int baud_rate_accuracy(int idx, int a, int b)
{
	static const struct rate rates[] = {
		{ B1200, 1200 }, { B9600, 9600 },
		{ B115200, 115200 }, { B921600, 921600 },
		{ B0, 250000 }, { B0, 31250 },
	};
	double rx_err, tx_err;
	char txt[200];
	size_t i;
	int k;

	if (emulation(idx, "1"))
		return -1;
	for (i = 0; i < ARRAY_SIZE(rates); i++) {
		if (set_line(a, rates[i].code ?: B9600, CS8) ||
		    set_line(b, rates[i].code ?: B9600, CS8))
			return -1;
		if (!rates[i].code &&
		    (set_speed_any(a, rates[i].baud, 0) ||
		     set_speed_any(b, rates[i].baud, 0)))
			return -1;
		for (k = 1; k <= TIMING_ATTEMPTS; k++) {
			if (rate_attempt(a, b, &rates[i], &rx_err, &tx_err,
					 txt, sizeof(txt)))
				return -1;
			note("baud %u, attempt %d: %s", rates[i].baud, k, txt);
			if (rx_err <= 1 && rx_err >= -1 && tx_err <= 1 &&
			    tx_err >= -1)
				break;
		}
		if (k > TIMING_ATTEMPTS)
			return fail("baud %u: more than 1%% off in %d attempts, the last: %s",
				    rates[i].baud, TIMING_ATTEMPTS, txt);
	}
	return 0;
}

struct frame_fmt {
	const char *name;
	tcflag_t cflag;
	double bits;		/* start + data + parity + stop */
	unsigned char mask;
};

/*
 * A character takes 1 start bit, 5 to 8 data bits, a parity bit with
 * PARENB and 1 stop bit (2 with CSTOPB, 1.5 for CS5): the time to send
 * 120 characters at 1200 baud follows the frame format within 3 %.
 */
static int baud_frame_bits(int idx, int a, int b)
{
	static const struct frame_fmt fmts[] = {
		{ "5N1", CS5, 7, 0x1f },
		{ "5N2", CS5 | CSTOPB, 7.5, 0x1f },
		{ "6O1", CS6 | PARENB | PARODD, 9, 0x3f },
		{ "7E1", CS7 | PARENB, 10, 0x7f },
		{ "8N1", CS8, 10, 0xff },
		{ "8N2", CS8 | CSTOPB, 11, 0xff },
		{ "8E2", CS8 | PARENB | CSTOPB, 12, 0xff },
	};
	unsigned char out[120], want[120];
	size_t i, v;

	if (emulation(idx, "1"))
		return -1;
	for (v = 0; v < sizeof(out); v++)
		out[v] = (unsigned char)(v * 37 + 1);
	for (i = 0; i < ARRAY_SIZE(fmts); i++) {
		const struct frame_fmt *f = &fmts[i];
		double ideal = sizeof(out) * f->bits / 1200, err = 0;
		int k;

		if (set_line(a, B1200, f->cflag) || set_line(b, B1200, f->cflag))
			return -1;
		for (v = 0; v < sizeof(out); v++)
			want[v] = out[v] & f->mask;
		for (k = 1; k <= TIMING_ATTEMPTS; k++) {
			struct sender s = { .fd = a, .buf = out,
					    .n = sizeof(out) };

			if (run_sender(&s) ||
			    expect(b, want, sizeof(want), f->name))
				return -1;
			err = pct(s.secs, ideal);
			note("frame %s (%.1f bits), attempt %d: %zu bytes in %.4f s (ideal %.4f s, error %+.2f%%)",
			     f->name, f->bits, k, sizeof(out), s.secs, ideal,
			     err);
			if (err <= 3 && err >= -3)
				break;
		}
		if (k > TIMING_ATTEMPTS)
			return fail("%s: more than 3%% off the time of %.1f bits a character in %d attempts, the last %+.2f%%",
				    f->name, f->bits, TIMING_ATTEMPTS, err);
	}
	return 0;
}

/*
 * Each UART transmits at its own output speed: A at 1200 and B at 9600
 * at the same time, each direction at its own rate.
 */
static int baud_per_end_speed(int idx, int a, int b)
{
	static unsigned char ab[120], ba[960], got[960];
	struct stream st;
	double ea = 0, eb = 0;
	pthread_t t;
	int k;

	if (emulation(idx, "1") || set_line(a, B1200, CS8) ||
	    set_line(b, B9600, CS8))
		return -1;
	stream_init(&st, 1);
	stream_fill(&st, ab, sizeof(ab));
	stream_init(&st, 2);
	stream_fill(&st, ba, sizeof(ba));
	for (k = 1; k <= TIMING_ATTEMPTS; k++) {
		struct sender sa = { .fd = a, .buf = ab, .n = sizeof(ab) };
		struct sender sb = { .fd = b, .buf = ba, .n = sizeof(ba) };

		pthread_create(&t, NULL, sender_thread, &sb);
		if (run_sender(&sa)) {
			pthread_join(t, NULL);
			return -1;
		}
		pthread_join(t, NULL);
		if (sb.err)
			return fail("B: write/tcdrain: %s", strerror(sb.err));
		if (read_upto(b, got, sizeof(ab), DATA_MS) != sizeof(ab) ||
		    memcmp(got, ab, sizeof(ab)))
			return fail("A -> B: data not intact");
		if (read_upto(a, got, sizeof(ba), DATA_MS) != sizeof(ba) ||
		    memcmp(got, ba, sizeof(ba)))
			return fail("B -> A: data not intact");
		ea = pct(sa.secs, 1.0);
		eb = pct(sb.secs, 1.0);
		note("attempt %d: A at 1200: 120 bytes in %.4f s (%+.2f%%); B at 9600: 960 in %.4f s (%+.2f%%)",
		     k, sa.secs, ea, sb.secs, eb);
		if (ea <= 3 && ea >= -3 && eb <= 3 && eb >= -3)
			return 0;
	}
	return fail("A (1200) %+.2f%%, B (9600) %+.2f%% off 1 s each, in the last of %d attempts",
		    ea, eb, TIMING_ATTEMPTS);
}

/*
 * TIOCOUTQ is what still waits in the transmitter and falls as bytes
 * leave; tcdrain() waits until all have left; then the peer holds them.
 */
static int baud_tiocoutq_tcdrain(int idx, int a, int b)
{
	unsigned char out[120], got[120];
	double t0, t, expect_q;
	int q1, q2, q3, n;
	struct stream st;

	if (emulation(idx, "1") || set_line(a, B1200, CS8) ||
	    set_line(b, B1200, CS8))
		return -1;
	stream_init(&st, 39);
	stream_fill(&st, out, sizeof(out));
	t0 = now();
	if (write(a, out, sizeof(out)) != (ssize_t)sizeof(out))
		return fail("a nonblocking write of 120 bytes at 1200 baud: %s",
			    strerror(errno));
	q1 = outq(a);
	if (q1 < 0)
		return -1;
	if (q1 < 100 || q1 > 120)
		return fail("TIOCOUTQ %d right after writing 120 bytes at 1200 baud",
			    q1);
	msleep(500);
	q2 = outq(a);
	t = now() - t0;
	if (q2 < 0)
		return -1;
	expect_q = 120 - t * 120;
	note("TIOCOUTQ %d at once, %d after %.3f s (about %.0f expected)",
	     q1, q2, t, expect_q);
	if (q2 >= q1 || q2 < expect_q - 15 || q2 > expect_q + 15)
		return fail("TIOCOUTQ %d after %.3f s (%d at first), expected about %.0f",
			    q2, t, q1, expect_q);
	if (tcdrain(a))
		return fail("tcdrain: %s", strerror(errno));
	t = now() - t0;
	note("tcdrain returned %.3f s after the write (1.000 s ideal)", t);
	if (t < 0.9 || t > 1.2)
		return fail("tcdrain returned %.3f s after writing 120 bytes at 1200 baud",
			    t);
	q3 = outq(a);
	if (q3)
		return q3 < 0 ? -1 : fail("TIOCOUTQ %d after tcdrain", q3);
	n = inq_reaches(b, 120);
	if (n != 120)
		return n < 0 ? -1 : fail("B's TIOCINQ is %d after tcdrain, expected 120", n);
	if (read_upto(b, got, sizeof(got), DATA_MS) != sizeof(got) ||
	    memcmp(got, out, sizeof(got)))
		return fail("B did not read the 120 bytes intact");
	return 0;
}

/*
 * tcflush(TCOFLUSH) discards what waits in the transmitter: TIOCOUTQ
 * drops to 0 and those bytes never arrive; the port keeps working.
 */
static int baud_tcflush(int idx, int a, int b)
{
	static unsigned char out[1000], got[1000];
	struct stream st;
	size_t k;
	int q;

	if (emulation(idx, "1") || set_line(a, B1200, CS8) ||
	    set_line(b, B1200, CS8))
		return -1;
	stream_init(&st, 40);
	stream_fill(&st, out, sizeof(out));
	if (write(a, out, sizeof(out)) != (ssize_t)sizeof(out))
		return fail("a nonblocking write of 1000 bytes at 1200 baud: %s",
			    strerror(errno));
	q = outq(a);
	if (q < 980)
		return q < 0 ? -1 : fail("TIOCOUTQ %d right after writing 1000 bytes", q);
	if (tcflush(a, TCOFLUSH))
		return fail("tcflush: %s", strerror(errno));
	q = outq(a);
	if (q)
		return q < 0 ? -1 : fail("TIOCOUTQ %d right after tcflush", q);
	msleep(1000);
	k = read_upto(b, got, sizeof(got), QUIET_MS);
	note("%zu of 1000 bytes arrived before and after the flush", k);
	if (k > 20)
		return fail("%zu of 1000 bytes arrived although flushed at once", k);
	if (memcmp(got, out, k))
		return fail("the bytes that arrived are not the first ones written");
	if (send_all(a, "after", 5))
		return -1;
	if (tcdrain(a))
		return fail("tcdrain: %s", strerror(errno));
	return expect(b, "after", 5, "after the flush");
}

/*
 * A transmitter has a 4096-byte FIFO: O_NONBLOCK writes fill it and then
 * fail with EAGAIN, poll() stops reporting POLLOUT; a flush frees it.
 */
static int baud_nonblock_fifo(int idx, int a, int b)
{
	unsigned char chunk[512];
	size_t total = 0, extra;
	double t0, t;
	int q;

	if (emulation(idx, "1") || set_line(a, B1200, CS8) ||
	    set_line(b, B1200, CS8))
		return -1;
	memset(chunk, 'f', sizeof(chunk));
	t0 = now();
	for (;;) {
		ssize_t r = write(a, chunk, sizeof(chunk));

		if (r < 0 && errno == EAGAIN)
			break;
		if (r < 0)
			return fail("write: %s", strerror(errno));
		total += r;
		if (total > 65536)
			return fail("64 KiB accepted at 1200 baud without EAGAIN");
	}
	t = now() - t0;
	q = outq(a);
	/* what may have left the wire meanwhile */
	extra = (size_t)(t * 120) + 3;
	note("%zu bytes accepted before EAGAIN in %.3f s, TIOCOUTQ %d", total,
	     t, q);
	if (total < 4096 || total > 4096 + extra)
		return fail("%zu bytes accepted before EAGAIN, expected 4096 (+%zu)",
			    total, extra);
	if (q < 4096 - (int)extra || q > 4096)
		return q < 0 ? -1 : fail("TIOCOUTQ %d with a full FIFO", q);
	if (writable(a, QUIET_MS))
		return fail("A polls writable with a full FIFO");
	if (tcflush(a, TCOFLUSH))
		return fail("tcflush: %s", strerror(errno));
	if (writable(a, 1000) != 1)
		return fail("A not writable after tcflush");
	q = outq(a);
	if (q)
		return q < 0 ? -1 : fail("TIOCOUTQ %d after tcflush", q);
	drain(b);
	return 0;
}

/*
 * A new speed applies from the next character: bytes queued at 1200 baud
 * leave at 9600 once the port is switched, so they finish much sooner.
 */
static int baud_speed_change(int idx, int a, int b)
{
	unsigned char out[240], got[240];
	double t0, tc, total, ideal;
	struct stream st;

	if (emulation(idx, "1") || set_line(a, B1200, CS8) ||
	    set_line(b, B1200, CS8))
		return -1;
	stream_init(&st, 42);
	stream_fill(&st, out, sizeof(out));
	t0 = now();
	if (send_all(a, out, sizeof(out)))
		return -1;
	msleep(500);
	if (set_line(a, B9600, CS8))
		return -1;
	tc = now() - t0;
	if (tcdrain(a))
		return fail("tcdrain: %s", strerror(errno));
	total = now() - t0;
	/* what left at 1200 until the switch, the rest at 9600 */
	ideal = tc + (sizeof(out) - tc * 120) / 960;
	note("240 bytes: 9600 from %.3f s on, done after %.3f s (%.3f s expected)",
	     tc, total, ideal);
	if (total > 1.2 || total < ideal - 0.15 || total > ideal + 0.15)
		return fail("240 bytes, 1200 then 9600 from %.3f s on: %.3f s, expected %.3f s",
			    tc, total, ideal);
	if (read_upto(b, got, sizeof(got), DATA_MS) != sizeof(got) ||
	    memcmp(got, out, sizeof(got)))
		return fail("the 240 bytes did not arrive intact");
	return 0;
}

/*
 * B0 hangs up the modem lines (DTR and RTS off, seen by the peer) but the
 * driver still transmits (at 9600); leaving B0 raises DTR again.
 */
static int baud_b0(int idx, int a, int b)
{
	unsigned char out[96];
	struct sender s = { .fd = a, .buf = out, .n = sizeof(out) };
	int m;

	if (emulation(idx, "1") || set_line(b, B9600, CS8) ||
	    set_line(a, B9600, CS8))
		return -1;
	if (modem_wait(b, TIOCM_DSR, 1, 1000) != 1)
		return fail("B does not see A's DTR before B0");
	if (set_speed(a, B0))
		return -1;
	if (modem_wait(b, TIOCM_DSR, 0, 1000) != 1)
		return fail("B still sees A's DTR (DSR) after A set B0");
	m = modem_get(b);
	if (m < 0)
		return -1;
	if (m & (TIOCM_CTS | TIOCM_CD))
		return fail("B sees CTS or DCD (TIOCMGET 0x%x) with A at B0", m);
	memset(out, 'z', sizeof(out));
	if (run_sender(&s))
		return -1;
	note("96 bytes at B0 took %.3f s (0.100 s at 9600)", s.secs);
	if (s.secs < 0.08 || s.secs > 0.3)
		return fail("96 bytes at B0 took %.3f s; B0 transmits at 9600 (0.1 s)",
			    s.secs);
	if (expect(b, out, sizeof(out), "bytes sent at B0"))
		return -1;
	if (set_speed(a, B9600))
		return -1;
	if (modem_wait(b, TIOCM_DSR, 1, 1000) != 1)
		return fail("B does not see A's DTR after A left B0");
	return 0;
}

/*
 * Without emulation the speed setting does not slow anything (like a
 * pty): 100 KiB "at 1200 baud" arrive at once and TIOCOUTQ stays 0.
 */
static int baud_off_immediate(int idx, int a, int b)
{
	static unsigned char out[100 << 10], got[100 << 10];
	static struct bulk w;
	struct stream st;
	double t0, t;
	pthread_t th;
	int q;

	if (emulation(idx, "0") || set_line(a, B1200, CS8) ||
	    set_line(b, B1200, CS8))
		return -1;
	if (send_all(a, out, 100))
		return -1;
	q = outq(a);
	if (q)
		return q < 0 ? -1 : fail("TIOCOUTQ %d right after a write without emulation", q);
	if (read_upto(b, got, 100, DATA_MS) != 100)
		return fail("100 bytes did not arrive");
	stream_init(&st, 44);
	stream_fill(&st, out, sizeof(out));
	w.fd = a;
	w.buf = out;
	w.n = sizeof(out);
	t0 = now();
	pthread_create(&th, NULL, bulk_writer, &w);
	if (read_upto(b, got, sizeof(got), DATA_MS) != sizeof(got)) {
		stop_writer(th, &w, b);
		return fail("100 KiB did not arrive");
	}
	t = now() - t0;
	pthread_join(th, NULL);
	if (w.err)
		return fail("write: %s", strerror(w.err));
	note("100 KiB at 1200 baud without emulation: %.3f s", t);
	if (t >= 1.0)
		return fail("100 KiB took %.3f s without emulation", t);
	q = outq(a);
	if (q)
		return q < 0 ? -1 : fail("TIOCOUTQ %d after the transfer", q);
	stream_init(&st, 44);
	return stream_check(&st, got, sizeof(got));
}

/* The baud_emulation attribute takes 0 or 1 only, pair-wide. */
static int t_baud_attr_invalid(void)
{
	static const char *const bad[] = { "2", "x", "\n", "-1", NULL };
	const int idx = 45;

	if (pair_attr_is(idx, "baud_emulation", "0") ||
	    attr_rejects('A', idx, "baud_emulation", bad, "0"))
		return -1;
	if (attr_set('B', idx, "baud_emulation", "1\n") ||
	    pair_attr_is(idx, "baud_emulation", "1") ||
	    attr_rejects('A', idx, "baud_emulation", bad, "1") ||
	    attr_rejects('B', idx, "baud_emulation", bad, "1") ||
	    pair_attr_is(idx, "baud_emulation", "1"))
		return -1;
	if (attr_set('A', idx, "baud_emulation", "0") ||
	    pair_attr_is(idx, "baud_emulation", "0"))
		return -1;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* error injection */

/* Inject 'kind' at B, send "xyz" from A, expect 'want' at B. */
static int inject_one(int idx, int a, int b, const char *kind,
		      const void *want, size_t len, int frame, int parity,
		      int overrun, int brk)
{
	struct serial_icounter_struct ib;
	char what[64];

	snprintf(what, sizeof(what), "inject %s", kind);
	if (get_icount(b, &ib) || attr_set('B', idx, "inject", kind) ||
	    attr_is('B', idx, "inject", kind) || attr_is('A', idx, "inject", "none"))
		return -1;
	if (send_all(a, "xyz", 3) || expect(b, want, len, what))
		return -1;
	if (attr_is('B', idx, "inject", "none") ||
	    check_errors(b, &ib, frame, parity, overrun, brk, what))
		return -1;
	/* only one byte was concerned */
	if (send_all(a, "q", 1) || expect(b, "q", 1, "the byte after"))
		return -1;
	return check_errors(b, &ib, frame, parity, overrun, brk, what);
}

/* A framing error on one received byte: \377 \0 x with INPCK|PARMRK. */
static int inject_frame(int idx, int a, int b)
{
	if (set_rx_mode(b, INPCK | PARMRK))
		return -1;
	return inject_one(idx, a, b, "frame", "\377\000xyz", 5, 1, 0, 0, 0);
}

/* A parity error on one received byte: \377 \0 x with INPCK|PARMRK. */
static int inject_parity(int idx, int a, int b)
{
	if (set_rx_mode(b, INPCK | PARMRK))
		return -1;
	return inject_one(idx, a, b, "parity", "\377\000xyz", 5, 0, 1, 0, 0);
}

/*
 * An overrun (a character lost before this one) is counted; the byte
 * itself arrives unchanged, in raw mode and with INPCK|PARMRK.
 */
static int inject_overrun(int idx, int a, int b)
{
	if (inject_one(idx, a, b, "overrun", "xyz", 3, 0, 0, 1, 0))
		return -1;
	if (set_rx_mode(b, INPCK | PARMRK))
		return -1;
	return inject_one(idx, a, b, "overrun", "xyz", 3, 0, 0, 1, 0);
}

/*
 * A break before a byte: \0 in raw mode, \377 \0 \0 with PARMRK;
 * icount.brk counts it.
 */
static int inject_break(int idx, int a, int b)
{
	if (inject_one(idx, a, b, "break", "\0xyz", 4, 0, 0, 0, 1))
		return -1;
	if (set_rx_mode(b, INPCK | PARMRK))
		return -1;
	return inject_one(idx, a, b, "break", "\377\000\000xyz", 6, 0, 0, 0, 1);
}

/*
 * The inject attribute refuses unknown words (EINVAL) and a second
 * injection while one is pending (EBUSY); "none" cancels.
 */
static int inject_invalid(int idx, int a, int b)
{
	static const char *const bad[] = {
		"bogus", "\n", "frame parity", "Frame", "frames", NULL
	};
	struct serial_icounter_struct ib;
	int r;

	if (set_rx_mode(b, INPCK | PARMRK) || get_icount(b, &ib) ||
	    attr_is('B', idx, "inject", "none") ||
	    attr_rejects('B', idx, "inject", bad, "none"))
		return -1;
	if (attr_set('B', idx, "inject", "frame\n") ||
	    attr_is('B', idx, "inject", "frame"))
		return -1;
	r = attr_write('B', idx, "inject", "parity");
	if (r != -EBUSY)
		return fail("'parity' while 'frame' is pending: %s, expected EBUSY",
			    r ? strerror(-r) : "accepted");
	if (attr_is('B', idx, "inject", "frame"))
		return -1;
	r = attr_write('B', idx, "inject", "break");
	if (r != -EBUSY)
		return fail("'break' while 'frame' is pending: %s, expected EBUSY",
			    r ? strerror(-r) : "accepted");
	if (attr_is('B', idx, "inject", "frame") ||
	    attr_set('B', idx, "inject", "none") ||
	    attr_is('B', idx, "inject", "none"))
		return -1;
	if (send_all(a, "k", 1) || expect(b, "k", 1, "after 'none'") ||
	    check_errors(b, &ib, 0, 0, 0, 0, "after 'none'"))
		return -1;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* noise */

#define NOISE_N		20000
#define NOISE_MAX	4000

struct noise_result {
	int count;
	int pos[NOISE_MAX];
	unsigned char val[NOISE_MAX];
};

/* Record flagged byte i (read as c); one bit of it must have flipped. */
static int noise_flagged(struct noise_result *res, const unsigned char *pat,
			 size_t i, unsigned char c, const char *what)
{
	if (i >= NOISE_N)
		return fail("%s: more bytes than sent", what);
	if (__builtin_popcount(c ^ pat[i]) != 1)
		return fail("%s: flagged byte %zu is 0x%02x, sent 0x%02x",
			    what, i, c, pat[i]);
	if (res->count >= NOISE_MAX)
		return fail("%s: more than %d flagged bytes", what, NOISE_MAX);
	res->pos[res->count] = (int)i;
	res->val[res->count] = c;
	res->count++;
	return 0;
}

/*
 * Send pat (no \0, no \377) from a; parse what b (INPCK|PARMRK, CS8)
 * reads: plain bytes must be unchanged, \377 \0 c marks a flagged byte,
 * which must differ from the one sent in exactly one bit.
 */
static int noise_run(int a, int b, const unsigned char *pat,
		     struct noise_result *res, const char *what)
{
	static struct bulk w;
	unsigned char buf[4096];
	int state = 0, r = 0;
	size_t i = 0;
	pthread_t t;

	memset(&w, 0, sizeof(w));
	w.fd = a;
	w.buf = pat;
	w.n = NOISE_N;
	res->count = 0;
	pthread_create(&t, NULL, bulk_writer, &w);
	while (i < NOISE_N && !r) {
		size_t k = read_upto(b, buf, 1, DATA_MS), j;

		if (!k) {
			r = fail("%s: nothing for 3 s after %zu of %d bytes",
				 what, i, NOISE_N);
			break;
		}
		k += read_upto(b, buf + 1, sizeof(buf) - 1, 0);
		for (j = 0; j < k && !r; j++) {
			unsigned char c = buf[j];

			if (state == 0 && c == 0xff) {
				state = 1;
			} else if (state == 0) {
				if (i >= NOISE_N || c != pat[i])
					r = fail("%s: unflagged byte %zu is 0x%02x, sent 0x%02x",
						 what, i, c, i < NOISE_N ? pat[i] : 0);
				i++;
			} else if (state == 1) {
				if (c)
					r = fail("%s: \\377 0x%02x at byte %zu (not an error mark)",
						 what, c, i);
				state = 2;
			} else {
				r = noise_flagged(res, pat, i++, c, what);
				state = 0;
			}
		}
	}
	stop_writer(t, &w, b);
	if (r)
		return r;
	if (w.err)
		return fail("%s: write: %s", what, strerror(w.err));
	return quiet(b, what);
}

/*
 * A noisy line corrupts bytes at a given rate; the receiver flags each
 * (framing error without PARENB). The same seed gives the same errors.
 */
static int noise_rate_and_replay(int idx, int a, int b)
{
	static struct noise_result r1, r2, r3;
	static unsigned char pat[NOISE_N];
	struct serial_icounter_struct ib;
	uint64_t s = 51;
	int i;

	for (i = 0; i < NOISE_N; i++)
		pat[i] = (unsigned char)(1 + rnd(&s) % 254);
	if (set_rx_mode(b, INPCK | PARMRK) || get_icount(b, &ib))
		return -1;
	if (attr_set('A', idx, "noise_ppm", "100000") ||
	    pair_attr_is(idx, "noise_ppm", "100000") ||
	    attr_set('A', idx, "noise_seed", "12345"))
		return -1;
	if (noise_run(a, b, pat, &r1, "first run"))
		return -1;
	note("noise 100000 ppm: %d of %d bytes flagged", r1.count, NOISE_N);
	if (r1.count < 1500 || r1.count > 2500)
		return fail("%d of %d bytes flagged at 100000 ppm, expected about 2000",
			    r1.count, NOISE_N);
	if (check_errors(b, &ib, r1.count, 0, 0, 0, "first run"))
		return -1;

	if (get_icount(b, &ib) || attr_set('B', idx, "noise_seed", "12345"))
		return -1;
	if (noise_run(a, b, pat, &r2, "replay"))
		return -1;
	if (r2.count != r1.count)
		return fail("replay with the same seed: %d flagged bytes, first run %d",
			    r2.count, r1.count);
	for (i = 0; i < r1.count; i++)
		if (r1.pos[i] != r2.pos[i] || r1.val[i] != r2.val[i])
			return fail("replay: error %d at byte %d (0x%02x), first at %d (0x%02x)",
				    i, r2.pos[i], r2.val[i], r1.pos[i], r1.val[i]);
	if (check_errors(b, &ib, r2.count, 0, 0, 0, "replay"))
		return -1;

	if (get_icount(b, &ib) || attr_set('A', idx, "noise_ppm", "0") ||
	    pair_attr_is(idx, "noise_ppm", "0"))
		return -1;
	if (noise_run(a, b, pat, &r3, "noise_ppm 0"))
		return -1;
	if (r3.count)
		return fail("%d bytes flagged with noise_ppm 0", r3.count);
	return check_errors(b, &ib, 0, 0, 0, 0, "noise_ppm 0");
}

/*
 * Noise on a line with parity: a receiver with PARENB sees parity errors,
 * and only data bits (7 with CS7) are ever flipped.
 */
static int noise_parity_receiver(int idx, int a, int b)
{
	unsigned char out[200], buf[600];
	struct serial_icounter_struct ib;
	size_t i, k;

	if (set_line(a, B9600, CS7 | PARENB) || set_line(b, B9600, CS7 | PARENB) ||
	    set_rx_mode(b, INPCK | PARMRK) || get_icount(b, &ib))
		return -1;
	for (i = 0; i < sizeof(out); i++)
		out[i] = (unsigned char)(1 + i % 126);
	if (attr_set('A', idx, "noise_ppm", "1000000") ||
	    attr_set('A', idx, "noise_seed", "7"))
		return -1;
	if (send_all(a, out, sizeof(out)))
		return -1;
	k = read_upto(b, buf, sizeof(buf), DATA_MS);
	if (k != sizeof(buf))
		return fail("%zu bytes read, expected 600 (\\377 \\0 c for each of 200)",
			    k);
	for (i = 0; i < sizeof(out); i++) {
		unsigned char c = buf[3 * i + 2];

		if (buf[3 * i] != 0xff || buf[3 * i + 1] != 0)
			return fail("byte %zu not flagged: %02x %02x %02x", i,
				    buf[3 * i], buf[3 * i + 1], c);
		if (c & 0x80 || __builtin_popcount(c ^ out[i]) != 1)
			return fail("flagged byte %zu is 0x%02x, sent 0x%02x (CS7)",
				    i, c, out[i]);
	}
	if (quiet(b, "after 200 noisy bytes") ||
	    check_errors(b, &ib, 0, 200, 0, 0, "noise_ppm 1000000, PARENB"))
		return -1;
	return attr_set('A', idx, "noise_ppm", "0");
}

/* noise_ppm is 0..1000000, noise_seed an unsigned 64-bit decimal. */
static int t_noise_attr_invalid(void)
{
	static const char *const bad_ppm[] = {
		"1000001", "-1", "abc", "\n", "5x", "4294967296", NULL
	};
	static const char *const bad_seed[] = {
		"abc", "-1", "\n", "18446744073709551616", "12abc", NULL
	};
	const int idx = 52;

	if (pair_attr_is(idx, "noise_ppm", "0") ||
	    attr_rejects('A', idx, "noise_ppm", bad_ppm, "0"))
		return -1;
	if (attr_set('A', idx, "noise_ppm", "1000000") ||
	    pair_attr_is(idx, "noise_ppm", "1000000") ||
	    attr_rejects('B', idx, "noise_ppm", bad_ppm, "1000000") ||
	    attr_set('B', idx, "noise_ppm", "250000\n") ||
	    pair_attr_is(idx, "noise_ppm", "250000") ||
	    attr_set('A', idx, "noise_ppm", "0") ||
	    pair_attr_is(idx, "noise_ppm", "0"))
		return -1;
	if (attr_set('A', idx, "noise_seed", "18446744073709551615") ||
	    pair_attr_is(idx, "noise_seed", "18446744073709551615") ||
	    attr_rejects('A', idx, "noise_seed", bad_seed,
			 "18446744073709551615") ||
	    attr_rejects('B', idx, "noise_seed", bad_seed,
			 "18446744073709551615"))
		return -1;
	if (attr_set('B', idx, "noise_seed", "0\n") ||
	    pair_attr_is(idx, "noise_seed", "0") ||
	    attr_set('A', idx, "noise_seed", "12345") ||
	    pair_attr_is(idx, "noise_seed", "12345"))
		return -1;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* flow control */

/*
 * With CRTSCTS a UART sends nothing while its CTS input (the peer's RTS)
 * is off: without emulation write() gets EAGAIN; with emulation the bytes
 * wait in the FIFO. Output resumes when CTS comes back.
 */
static int crtscts_blocks_output(int idx, int a, int b)
{
	int q;

	if (set_cflag(a, 0, CRTSCTS))
		return -1;
	if (modem_wait(a, TIOCM_CTS, 1, 1000) != 1)
		return fail("A's CTS is off with B open");
	if (send_all(a, "1", 1) || expect(b, "1", 1, "CTS on"))
		return -1;

	if (modem_bits(b, TIOCMBIC, TIOCM_RTS))
		return -1;
	if (modem_wait(a, TIOCM_CTS, 0, 1000) != 1)
		return fail("A's CTS still on after B cleared RTS");
	if (write(a, "hold", 4) != -1 || errno != EAGAIN)
		return fail("A's nonblocking write with CTS off did not fail with EAGAIN");
	if (writable(a, QUIET_MS))
		return fail("A polls writable with CTS off");
	if (quiet(b, "A with CTS off"))
		return -1;
	if (modem_bits(b, TIOCMBIS, TIOCM_RTS))
		return -1;
	if (modem_wait(a, TIOCM_CTS, 1, 1000) != 1)
		return fail("A's CTS still off after B set RTS");
	if (writable(a, DATA_MS) != 1)
		return fail("A not writable after CTS came back");
	if (send_all(a, "go", 2) || expect(b, "go", 2, "CTS back on"))
		return -1;

	/* with baud emulation: the bytes wait in A's FIFO */
	if (emulation(idx, "1") || modem_bits(b, TIOCMBIC, TIOCM_RTS))
		return -1;
	if (modem_wait(a, TIOCM_CTS, 0, 1000) != 1)
		return fail("A's CTS still on after B cleared RTS");
	if (write(a, "fifo!", 5) != 5)
		return fail("emulation: a 5-byte write with CTS off: %s",
			    strerror(errno));
	if (quiet(b, "emulation, A with CTS off"))
		return -1;
	q = outq(a);
	if (q != 5)
		return q < 0 ? -1 : fail("emulation: TIOCOUTQ %d with 5 bytes held by CTS", q);
	if (modem_bits(b, TIOCMBIS, TIOCM_RTS))
		return -1;
	if (expect(b, "fifo!", 5, "emulation, CTS back on"))
		return -1;
	if (tcdrain(a))
		return fail("tcdrain: %s", strerror(errno));
	q = outq(a);
	if (q)
		return q < 0 ? -1 : fail("TIOCOUTQ %d after the held bytes left", q);
	return 0;
}

/*
 * A receiver with CRTSCTS drops RTS when its input buffer fills (the
 * sender sees CTS off) and raises it again when the reader catches up.
 * n_tty's buffer holds 4 KiB and throttles with less than 128 bytes of
 * room: A sends 256 bytes at a time and waits until B's line discipline
 * holds them all (or CTS goes off), so CTS must still be on with 3840
 * bytes unread and off by 4352.
 */
#define THROTTLE_STEP	256
#define THROTTLE_ON	3840	/* CTS still on with this many unread */
#define THROTTLE_OFF	4352	/* CTS off by this many */

static int crtscts_throttle_drops_rts(int idx, int a, int b)
{
	static unsigned char got[256 << 10];
	unsigned char buf[THROTTLE_STEP];
	struct stream st, chk;
	ssize_t total = 0;
	int m, q = 0, off = 0;

	(void)idx;
	if (set_cflag(b, 0, CRTSCTS))
		return -1;
	if (modem_wait(a, TIOCM_CTS, 1, 1000) != 1)
		return fail("A's CTS is off before anything was sent");
	stream_init(&st, 54);
	while (!off && total < (ssize_t)sizeof(got) - THROTTLE_STEP) {
		double end = now() + DATA_MS / 1000.0;

		stream_fill(&st, buf, sizeof(buf));
		if (write(a, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			return fail("A's write of %d bytes after %zd: %s",
				    THROTTLE_STEP, total, strerror(errno));
		total += sizeof(buf);
		/* until B's line discipline holds them all, or CTS goes off */
		for (;;) {
			off = cts_off(a);
			if (off < 0 || (q = inq(b)) < 0)
				return -1;
			if (off || q == total)
				break;
			if (now() > end)
				return fail("B's TIOCINQ %d of %zd bytes sent, CTS still on",
					    q, total);
			msleep(5);
		}
		if (!off && total > THROTTLE_OFF)
			return fail("A's CTS still on with %zd bytes unread by B (TIOCINQ %d)",
				    total, q);
	}
	note("A's CTS went off with %zd bytes sent, TIOCINQ %d", total, q);
	if (!off)
		return fail("A's CTS never went off");
	if (total - THROTTLE_STEP < THROTTLE_ON)
		return fail("A's CTS went off with only %zd bytes unread by B (TIOCINQ %d); expected about 4 KiB",
			    total, q);
	m = modem_get(b);
	if (m < 0)
		return -1;
	if (m & TIOCM_RTS)
		return fail("B throttled but its TIOCMGET still shows RTS");
	if (read_upto(b, got, total, DATA_MS) != (size_t)total)
		return fail("B could not read the %zd bytes", total);
	stream_init(&chk, 54);
	if (stream_check(&chk, got, total))
		return -1;
	if (modem_wait(a, TIOCM_CTS, 1, DATA_MS) != 1)
		return fail("A's CTS still off after B read everything");
	m = modem_get(b);
	if (m < 0)
		return -1;
	if (!(m & TIOCM_RTS))
		return fail("B's RTS still off after it read everything");
	return quiet(b, "after everything was read");
}

/*
 * A receiver with IXOFF sends its VSTOP character when its input buffer
 * fills and VSTART when the reader catches up (default \x13 and \x11).
 */
static int ixoff_round(int a, int b, unsigned char stop, unsigned char start,
		       uint64_t seed)
{
	static unsigned char got[256 << 10], ctl[4096];
	struct termios t;
	struct stream st, chk;
	ssize_t total;
	size_t k, i;
	int eagain;
	char h[128];

	if (tcgetattr(b, &t))
		return fail("tcgetattr: %s", strerror(errno));
	t.c_iflag |= IXOFF;
	t.c_cc[VSTOP] = stop;
	t.c_cc[VSTART] = start;
	if (tcsetattr(b, TCSANOW, &t))
		return fail("tcsetattr: %s", strerror(errno));
	stream_init(&st, seed);
	total = feed(a, &st, 256, sizeof(got), has_input, &eagain);
	if (total < 0)
		return -1;
	k = read_upto(a, ctl, 1, DATA_MS);
	if (k != 1 || ctl[0] != stop)
		return fail("A read %s after %zd bytes unread by B%s, expected VSTOP 0x%02x",
			    hex(h, sizeof(h), ctl, k), total,
			    eagain ? " (B's queue full: EAGAIN)" : "", stop);
	note("VSTOP 0x%02x after %zd unread bytes", stop, total);
	if (quiet(a, "after VSTOP"))
		return -1;
	if (read_upto(b, got, total, DATA_MS) != (size_t)total)
		return fail("B could not read the %zd bytes", total);
	stream_init(&chk, seed);
	if (stream_check(&chk, got, total) || quiet(b, "after the stream"))
		return -1;
	/* a reader catching up can throttle and unthrottle more than once */
	k = read_upto(a, ctl, sizeof(ctl), DATA_MS);
	for (i = 0; i < k; i++)
		if (ctl[i] != stop && ctl[i] != start)
			break;
	if (!k || i < k || ctl[k - 1] != start)
		return fail("A read %s after B caught up, expected VSTART 0x%02x last",
			    hex(h, sizeof(h), ctl, k), start);
	return 0;
}

static int ixoff_sends_xoff(int idx, int a, int b)
{
	(void)idx;
	if (ixoff_round(a, b, 0x13, 0x11, 550))
		return -1;
	return ixoff_round(a, b, 0x05, 0x06, 551);
}

/* ------------------------------------------------------------------------ */
/* serial ioctls */

static int get_serial(int fd, struct serial_struct *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (ioctl(fd, TIOCGSERIAL, ss))
		return fail("TIOCGSERIAL: %s", strerror(errno));
	return 0;
}

/* The differences that matter between two serial_structs, or NULL. */
static const char *serial_diff(const struct serial_struct *x,
			       const struct serial_struct *y)
{
	if (x->type != y->type)
		return "type";
	if (x->line != y->line)
		return "line";
	if (x->port != y->port)
		return "port";
	if (x->irq != y->irq)
		return "irq";
	if (x->flags != y->flags)
		return "flags";
	if (x->xmit_fifo_size != y->xmit_fifo_size)
		return "xmit_fifo_size";
	if (x->custom_divisor != y->custom_divisor)
		return "custom_divisor";
	if (x->baud_base != y->baud_base)
		return "baud_base";
	if (x->close_delay != y->close_delay)
		return "close_delay";
	if (x->closing_wait != y->closing_wait)
		return "closing_wait";
	return NULL;
}

/*
 * TIOCGSERIAL describes a 16550A-like port: type PORT_16550A, line =
 * pair index, no I/O port or IRQ, baud_base 115200, a 4096-byte FIFO,
 * custom_divisor 0 and no flags (not even ASYNC_LOW_LATENCY: nothing set
 * it on this pair).
 */
static const char *serial_rest(char *buf, size_t len,
			       const struct serial_struct *ss)
{
	snprintf(buf, len, "xmit_fifo_size %d custom_divisor %d flags 0x%x",
		 ss->xmit_fifo_size, ss->custom_divisor, ss->flags);
	return buf;
}

static int tiocgserial(int idx, int a, int b)
{
	char buf[96];
	int e;

	for (e = 0; e < 2; e++) {
		struct serial_struct ss;

		if (get_serial(e ? b : a, &ss))
			return -1;
		if (ss.type != PORT_16550A || ss.line != idx || ss.port ||
		    ss.irq || ss.baud_base != 115200 ||
		    ss.xmit_fifo_size != 4096 || ss.custom_divisor ||
		    ss.flags)
			return fail("%c: TIOCGSERIAL type %d line %d port %u irq %d baud %d %s",
				    e ? 'B' : 'A', ss.type, ss.line, ss.port,
				    ss.irq, ss.baud_base,
				    serial_rest(buf, sizeof(buf), &ss));
	}
	return 0;
}

static int set_serial(int fd, const struct serial_struct *ss)
{
	return ioctl(fd, TIOCSSERIAL, ss) ? -errno : 0;
}

/*
 * TIOCSSERIAL: writing back the settings works, low_latency can be
 * toggled; anything a virtual port cannot change is refused with EINVAL
 * and changes nothing.
 */
static int tiocsserial_changes(int idx, int a, int b)
{
	struct serial_struct orig, ss, now_ss;
	const char *d;
	int i, r;

	(void)idx;
	(void)b;
	if (get_serial(a, &orig))
		return -1;
	r = set_serial(a, &orig);
	if (r)
		return fail("writing back TIOCGSERIAL's values: %s", strerror(-r));
	if (get_serial(a, &ss))
		return -1;
	d = serial_diff(&ss, &orig);
	if (d)
		return fail("writing back changed %s", d);

	ss = orig;
	ss.flags |= ASYNC_LOW_LATENCY;
	r = set_serial(a, &ss);
	if (r)
		return fail("setting ASYNC_LOW_LATENCY: %s", strerror(-r));
	if (get_serial(a, &now_ss))
		return -1;
	if (!(now_ss.flags & ASYNC_LOW_LATENCY))
		return fail("ASYNC_LOW_LATENCY does not read back");
	ss.flags &= ~ASYNC_LOW_LATENCY;
	r = set_serial(a, &ss);
	if (r)
		return fail("clearing ASYNC_LOW_LATENCY: %s", strerror(-r));
	if (get_serial(a, &now_ss))
		return -1;
	if (now_ss.flags & ASYNC_LOW_LATENCY)
		return fail("ASYNC_LOW_LATENCY still set after clearing it");
	orig = now_ss;

	for (i = 0; i < 17; i++) {
		const char *what;

		ss = orig;
		switch (i) {
		case 0:
			ss.type = PORT_16450;
			what = "type PORT_16450";
			break;
		case 1:
			ss.type = PORT_UNKNOWN;
			what = "type PORT_UNKNOWN";
			break;
		case 2:
			ss.line++;
			what = "line";
			break;
		case 3:
			ss.port = 0x3f8;
			what = "port 0x3f8";
			break;
		case 4:
			ss.irq = 4;
			what = "irq 4";
			break;
		case 5:
			ss.baud_base = 9600;
			what = "baud_base 9600";
			break;
		case 6:
			ss.baud_base = 1500000;
			what = "baud_base 1500000";
			break;
		case 7:
			ss.xmit_fifo_size = 16;
			what = "xmit_fifo_size 16";
			break;
		case 8:
			ss.custom_divisor = 3;
			what = "custom_divisor 3";
			break;
		case 9:
			ss.custom_divisor = 3;
			ss.flags |= ASYNC_SPD_CUST;
			what = "custom_divisor 3 with ASYNC_SPD_CUST";
			break;
		case 10:
			ss.flags |= ASYNC_SPD_HI;
			what = "ASYNC_SPD_HI";
			break;
		case 11:
			ss.flags |= ASYNC_SPD_VHI;
			what = "ASYNC_SPD_VHI";
			break;
		case 12:
			ss.flags |= ASYNC_SPD_WARP;
			what = "ASYNC_SPD_WARP";
			break;
		case 13:
			ss.flags |= ASYNC_HUP_NOTIFY;
			what = "ASYNC_HUP_NOTIFY";
			break;
		case 14:
			ss.flags |= ASYNC_SKIP_TEST;
			what = "ASYNC_SKIP_TEST";
			break;
		case 15:
			ss.flags |= ASYNC_LOW_LATENCY | ASYNC_HUP_NOTIFY;
			what = "ASYNC_LOW_LATENCY with ASYNC_HUP_NOTIFY";
			break;
		default:
			ss.flags |= ASYNC_LOW_LATENCY;
			ss.irq = 3;
			what = "ASYNC_LOW_LATENCY with irq 3";
			break;
		}
		r = set_serial(a, &ss);
		if (r != -EINVAL)
			return fail("TIOCSSERIAL %s: %s, expected EINVAL", what,
				    r ? strerror(-r) : "accepted");
		if (get_serial(a, &now_ss))
			return -1;
		d = serial_diff(&now_ss, &orig);
		if (d)
			return fail("the refused TIOCSSERIAL %s changed %s", what, d);
	}
	return 0;
}

/* Run fn on fd in a child that has given up root; its exit status. */
static int as_nobody(int (*fn)(int fd, const void *arg), int fd,
		     const void *arg)
{
	pid_t pid;
	int st;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return fail("fork: %s", strerror(errno));
	if (!pid) {
		alarm(10);
		if (setgid(NOBODY) || setuid(NOBODY))
			_exit(255);
		_exit(fn(fd, arg));
	}
	if (waitpid(pid, &st, 0) != pid)
		return fail("waitpid: %s", strerror(errno));
	if (!WIFEXITED(st))
		return fail("the unprivileged child died (status 0x%x)", st);
	if (WEXITSTATUS(st) == 255)
		return fail("the child could not drop root");
	return WEXITSTATUS(st);
}

/* 0 if unchanged settings go through and close_delay, closing_wait do not */
static int nobody_serial(int fd, const void *arg)
{
	const struct serial_struct *orig = arg;
	struct serial_struct ss = *orig;

	if (ioctl(fd, TIOCSSERIAL, &ss))
		return 1;
	ss.close_delay = orig->close_delay + 10;
	if (!ioctl(fd, TIOCSSERIAL, &ss) || errno != EPERM)
		return 2;
	ss = *orig;
	ss.closing_wait = orig->closing_wait == 1000 ? 2000 : 1000;
	if (!ioctl(fd, TIOCSSERIAL, &ss) || errno != EPERM)
		return 3;
	return 0;
}

/*
 * close_delay and closing_wait are the administrator's: root may change
 * them, an unprivileged user gets EPERM (as on any serial port).
 */
static int tiocsserial_close_delay(int idx, int a, int b)
{
	struct serial_struct orig, ss, got;
	const char *d;
	int r;

	(void)idx;
	(void)b;
	if (get_serial(a, &orig))
		return -1;
	ss = orig;
	ss.close_delay = 100;		/* 1 s (0.5 s is the default) */
	ss.closing_wait = 1000;		/* 10 s */
	r = set_serial(a, &ss);
	if (r)
		return fail("root changing close_delay and closing_wait: %s",
			    strerror(-r));
	if (get_serial(a, &got))
		return -1;
	if (got.close_delay != 100 || got.closing_wait != 1000)
		return fail("close_delay %u closing_wait %u after setting 100 and 1000",
			    got.close_delay, got.closing_wait);
	r = as_nobody(nobody_serial, a, &got);
	if (r < 0)
		return -1;
	if (r == 1)
		return fail("unprivileged: writing back unchanged settings failed");
	if (r)
		return fail("unprivileged: changing %s was not refused with EPERM",
			    r == 2 ? "close_delay" : "closing_wait");
	if (get_serial(a, &ss))
		return -1;
	d = serial_diff(&ss, &got);
	if (d)
		return fail("the unprivileged attempts changed %s", d);
	r = set_serial(a, &orig);
	if (r)
		return fail("restoring close_delay and closing_wait: %s",
			    strerror(-r));
	return 0;
}

static int nobody_open(int fd, const void *arg)
{
	const char *path = arg;

	(void)fd;
	fd = open(path, O_RDWR | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return errno & 0xff ? errno & 0xff : 254;
	close(fd);
	return 0;
}

static int tiocexcl_checks(int idx, int b, const char *path)
{
	int r, fd;

	r = as_nobody(nobody_open, -1, path);
	if (r)
		return r < 0 ? -1 : fail("an unprivileged open of %s without TIOCEXCL: %s",
					 path, strerror(r));
	if (ioctl(b, TIOCEXCL))
		return fail("TIOCEXCL: %s", strerror(errno));
	r = as_nobody(nobody_open, -1, path);
	if (r != EBUSY)
		return r < 0 ? -1 : fail("exclusive mode, an unprivileged open: %s",
					 r ? strerror(r) : "opened");
	fd = port_open_plain('B', idx, O_NONBLOCK);
	if (fd < 0)
		return -1;
	close(fd);
	if (ioctl(b, TIOCNXCL))
		return fail("TIOCNXCL: %s", strerror(errno));
	r = as_nobody(nobody_open, -1, path);
	if (r)
		return r < 0 ? -1 : fail("an unprivileged open after TIOCNXCL: %s",
					 strerror(r));
	return 0;
}

/*
 * TIOCEXCL: further opens by unprivileged users fail with EBUSY (root
 * still may); TIOCNXCL lifts it.
 */
static int tiocexcl(int idx, int a, int b)
{
	char path[64];
	struct stat st;
	int r;

	(void)a;
	snprintf(path, sizeof(path), "/dev/%s%d", TTYPAIR_NAME_B, idx);
	if (stat(path, &st))
		return fail("stat %s: %s", path, strerror(errno));
	if (chmod(path, 0666))
		return fail("chmod %s: %s", path, strerror(errno));
	r = tiocexcl_checks(idx, b, path);
	if (chmod(path, st.st_mode & 07777) && !r)
		return fail("restoring the mode of %s: %s", path, strerror(errno));
	return r;
}

/* TIOCINQ counts unread received bytes; TIOCOUTQ 0 without emulation. */
static int tiocinq_tiocoutq(int idx, int a, int b)
{
	static unsigned char out[1000], got[1000];
	int n;

	(void)idx;
	memset(out, 'i', sizeof(out));
	n = inq(b);
	if (n)
		return n < 0 ? -1 : fail("B's TIOCINQ %d before anything was sent", n);
	if (send_all(a, out, sizeof(out)))
		return -1;
	n = outq(a);
	if (n)
		return n < 0 ? -1 : fail("A's TIOCOUTQ %d after a write", n);
	n = inq_reaches(b, 1000);
	if (n != 1000)
		return n < 0 ? -1 : fail("B's TIOCINQ %d after 1000 bytes were sent", n);
	if (read_upto(b, got, 400, DATA_MS) != 400)
		return fail("B could not read 400 bytes");
	n = inq(b);
	if (n != 600)
		return n < 0 ? -1 : fail("B's TIOCINQ %d after reading 400 of 1000", n);
	n = inq(a);
	if (n)
		return n < 0 ? -1 : fail("A's TIOCINQ %d with nothing sent to A", n);
	if (read_upto(b, got, 600, DATA_MS) != 600)
		return fail("B could not read the other 600 bytes");
	n = inq(b);
	if (n)
		return n < 0 ? -1 : fail("B's TIOCINQ %d after reading everything", n);
	return 0;
}

/*
 * icount.rx and icount.tx count the bytes received and sent; bytes sent
 * to a closed peer count as sent (they left the wire).
 */
static int t_icount_rx_tx(void)
{
	struct serial_icounter_struct a0, b0, a1, b1;
	static unsigned char out[1000];
	const int idx = 63;
	int a, b, r = -1;
	double end;

	a = port_open('A', idx, 0);
	if (a < 0)
		return -1;
	b = port_open('B', idx, 0);
	if (b < 0)
		goto out_a;
	memset(out, 'c', sizeof(out));
	if (get_icount(a, &a0) || get_icount(b, &b0) || send_all(a, out, 1000) ||
	    read_upto(b, out, 1000, DATA_MS) != 1000 || send_all(b, out, 10) ||
	    read_upto(a, out, 10, DATA_MS) != 10 ||
	    get_icount(a, &a1) || get_icount(b, &b1)) {
		fail("sending 1000 bytes A -> B and 10 back failed");
		goto out_b;
	}
	if (a1.tx - a0.tx != 1000 || b1.rx - b0.rx != 1000 ||
	    b1.tx - b0.tx != 10 || a1.rx - a0.rx != 10) {
		fail("icount A tx %+d rx %+d, B tx %+d rx %+d; expected +1000 +10, +10 +1000",
		     a1.tx - a0.tx, a1.rx - a0.rx, b1.tx - b0.tx,
		     b1.rx - b0.rx);
		goto out_b;
	}
	close(b);
	b = -1;
	if (send_all(a, out, 500))
		goto out_a;
	end = now() + DATA_MS / 1000.0;
	do {
		if (get_icount(a, &a0))
			goto out_a;
		if (a0.tx - a1.tx == 500)
			break;
		msleep(20);
	} while (now() < end);
	if (a0.tx - a1.tx != 500) {
		fail("icount.tx %+d after 500 bytes sent to a closed peer",
		     a0.tx - a1.tx);
		goto out_a;
	}
	r = 0;
out_b:
	if (b >= 0)
		close(b);
out_a:
	close(a);
	return r;
}

/* ------------------------------------------------------------------------ */
/* one pair each, 30 to 63 */

static int t_csize_masking(void)
{
	return with_pair(30, 0, 0, csize_masking);
}

static int t_strict_off_no_errors(void)
{
	return with_pair(31, 0, 0, strict_off_no_errors);
}

static int t_strict_frame_error(void)
{
	return with_pair(32, 0, 0, strict_frame_error);
}

static int t_strict_parity_error(void)
{
	return with_pair(33, 0, 0, strict_parity_error);
}

static int t_strict_receiver_modes(void)
{
	return with_pair(34, 0, 0, strict_receiver_modes);
}

static int t_strict_speed_tolerance(void)
{
	return with_pair(86, 0, 0, strict_speed_tolerance);
}

static int t_strict_matching_7e1(void)
{
	return with_pair(35, 0, 0, strict_matching_7e1);
}

static int t_baud_rate_accuracy(void)
{
	return with_pair(37, 0, 0, baud_rate_accuracy);
}

static int t_baud_frame_bits(void)
{
	return with_pair(38, 0, 0, baud_frame_bits);
}

static int t_baud_tiocoutq_tcdrain(void)
{
	return with_pair(39, O_NONBLOCK, 0, baud_tiocoutq_tcdrain);
}

static int t_baud_tcflush(void)
{
	return with_pair(40, O_NONBLOCK, 0, baud_tcflush);
}

static int t_baud_nonblock_fifo(void)
{
	return with_pair(41, O_NONBLOCK, 0, baud_nonblock_fifo);
}

static int t_baud_speed_change(void)
{
	return with_pair(42, 0, 0, baud_speed_change);
}

static int t_baud_b0(void)
{
	return with_pair(43, 0, 0, baud_b0);
}

static int t_baud_off_immediate(void)
{
	return with_pair(44, 0, 0, baud_off_immediate);
}

static int t_inject_frame(void)
{
	return with_pair(46, 0, 0, inject_frame);
}

static int t_inject_parity(void)
{
	return with_pair(47, 0, 0, inject_parity);
}

static int t_inject_overrun(void)
{
	return with_pair(48, 0, 0, inject_overrun);
}

static int t_inject_break(void)
{
	return with_pair(49, 0, 0, inject_break);
}

static int t_inject_invalid(void)
{
	return with_pair(50, 0, 0, inject_invalid);
}

static int t_noise_rate_and_replay(void)
{
	return with_pair(51, 0, 0, noise_rate_and_replay);
}

static int t_crtscts_blocks_output(void)
{
	return with_pair(53, O_NONBLOCK, O_NONBLOCK, crtscts_blocks_output);
}

static int t_crtscts_throttle_drops_rts(void)
{
	return with_pair(54, O_NONBLOCK, 0, crtscts_throttle_drops_rts);
}

static int t_ixoff_sends_xoff(void)
{
	return with_pair(55, O_NONBLOCK, 0, ixoff_sends_xoff);
}

static int t_tiocgserial(void)
{
	return with_pair(56, 0, 0, tiocgserial);
}

static int t_tiocsserial_changes(void)
{
	return with_pair(57, 0, 0, tiocsserial_changes);
}

static int t_tiocexcl(void)
{
	return with_pair(58, O_NONBLOCK, O_NONBLOCK, tiocexcl);
}

static int t_tiocinq_tiocoutq(void)
{
	return with_pair(59, 0, 0, tiocinq_tiocoutq);
}

static int t_tiocsserial_close_delay(void)
{
	return with_pair(60, 0, 0, tiocsserial_close_delay);
}

static int t_noise_parity_receiver(void)
{
	return with_pair(61, 0, 0, noise_parity_receiver);
}

static int t_baud_per_end_speed(void)
{
	return with_pair(62, 0, 0, baud_per_end_speed);
}

/*
 * tcflow(TCIOFF/TCION) sends XOFF/XON ahead of queued data, even while the
 * end's own output is stopped (a UART's send_xchar): otherwise two ends
 * that stopped each other could never restart.
 */
static int tcflow_xchar(int idx, int a, int b)
{
	unsigned char c;
	int q;

	if (emulation(idx, "1") || set_speed(a, B1200) ||
	    set_iflag(a, 0, IXON))
		return -1;
	if (tcflow(a, TCIOFF))
		return fail("tcflow(TCIOFF): %s", strerror(errno));
	if (read_full(b, &c, 1, 3000) != 1 || c != 0x13)
		return fail("B did not read XOFF after tcflow(TCIOFF)");
	/* B stops A; A queues bytes it cannot send */
	if (write(b, "\x13", 1) != 1)
		return fail("write XOFF: %s", strerror(errno));
	msleep(300);
	if (write(a, "0123456789", 10) != 10)
		return fail("write on A: %s", strerror(errno));
	msleep(300);
	if (ioctl(a, TIOCOUTQ, &q) || q != 10)
		return fail("A's TIOCOUTQ is %d while stopped, expected 10", q);
	if (tcflow(a, TCION))
		return fail("tcflow(TCION): %s", strerror(errno));
	if (read_full(b, &c, 1, 3000) != 1 || c != 0x11)
		return fail("B did not read XON from a stopped A (got 0x%02x)", c);
	if (readable(b, 300))
		return fail("data left A while it was stopped");
	if (write(b, "\x11", 1) != 1)
		return fail("write XON: %s", strerror(errno));
	{
		char buf[10];

		if (read_full(b, buf, 10, 3000) != 10 ||
		    memcmp(buf, "0123456789", 10))
			return fail("A's queued bytes did not follow XON");
	}
	return emulation(idx, "0");
}

static int t_tcflow_xchar(void)
{
	return with_pair(8, 0, 0, tcflow_xchar);
}

const struct test line_tests[] = {
	{ "csize_masking", t_csize_masking, 20 },
	{ "strict_off_no_errors", t_strict_off_no_errors, 20 },
	{ "strict_frame_error", t_strict_frame_error, 30 },
	{ "strict_parity_error", t_strict_parity_error, 20 },
	{ "strict_receiver_modes", t_strict_receiver_modes, 30 },
	{ "strict_matching_7e1", t_strict_matching_7e1, 30 },
	{ "strict_attr_invalid", t_strict_attr_invalid, 15 },
	{ "strict_speed_tolerance", t_strict_speed_tolerance, 30 },
	{ "baud_rate_accuracy", t_baud_rate_accuracy, 90 },
	{ "tcflow_xchar", t_tcflow_xchar, 30 },
	{ "baud_frame_bits", t_baud_frame_bits, 45 },
	{ "baud_tiocoutq_tcdrain", t_baud_tiocoutq_tcdrain, 20 },
	{ "baud_tcflush", t_baud_tcflush, 20 },
	{ "baud_nonblock_fifo", t_baud_nonblock_fifo, 20 },
	{ "baud_speed_change", t_baud_speed_change, 20 },
	{ "baud_b0", t_baud_b0, 20 },
	{ "baud_off_immediate", t_baud_off_immediate, 30 },
	{ "baud_attr_invalid", t_baud_attr_invalid, 15 },
	{ "inject_frame", t_inject_frame, 20 },
	{ "inject_parity", t_inject_parity, 20 },
	{ "inject_overrun", t_inject_overrun, 20 },
	{ "inject_break", t_inject_break, 20 },
	{ "inject_invalid", t_inject_invalid, 20 },
	{ "noise_rate_and_replay", t_noise_rate_and_replay, 60 },
	{ "noise_attr_invalid", t_noise_attr_invalid, 15 },
	{ "crtscts_blocks_output", t_crtscts_blocks_output, 30 },
	{ "crtscts_throttle_drops_rts", t_crtscts_throttle_drops_rts, 30 },
	{ "ixoff_sends_xoff", t_ixoff_sends_xoff, 30 },
	{ "tiocgserial", t_tiocgserial, 15 },
	{ "tiocsserial_changes", t_tiocsserial_changes, 15 },
	{ "tiocexcl", t_tiocexcl, 15 },
	{ "tiocinq_tiocoutq", t_tiocinq_tiocoutq, 20 },
	{ "tiocsserial_close_delay", t_tiocsserial_close_delay, 15 },
	{ "noise_parity_receiver", t_noise_parity_receiver, 20 },
	{ "baud_per_end_speed", t_baud_per_end_speed, 20 },
	{ "icount_rx_tx", t_icount_rx_tx, 20 },
	{ NULL }
};
