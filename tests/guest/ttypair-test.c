// SPDX-License-Identifier: GPL-2.0
/*
 * Functional tests of ttypair's data path, run in a guest with the module
 * loaded. Each test runs in its own process with a timeout and prints
 * "ok - NAME" or "not ok - NAME: reason".
 *
 *   ttypair-test --pairs N [TEST...]   run all (or the named) tests
 *   ttypair-test --list                list the tests
 *   ttypair-test --hold PATH           open PATH, print "held", wait for a signal
 *   ttypair-test --delete-module       try delete_module("ttypair"); exit 0 if unloaded
 *   ttypair-test --churn N             create and remove N pairs in configfs,
 *                                      every tenth with its A end held open
 *                                      across the removal
 *   ttypair-test --bus-churn N         the same with N buses of 2 to 32 ports
 *   ttypair-test --session-churn N     open and close N sessions of
 *                                      /dev/ttypair-session, every tenth
 *                                      with its A end held open
 *   ttypair-test --race SECONDS        remove a pair from two threads while two
 *                                      others open, use and close its ends
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "tlib.h"
#include "../../include/uapi/ttypair.h"

extern char fail_msg[512];

/* ------------------------------------------------------------------------ */
/* Every end reaches its own peer and nothing else. */
static int t_pairing(void)
{
	int fds[2][128], i, j, e;
	char msg[64], buf[64];

	for (i = 0; i < npairs; i++)
		for (e = 0; e < 2; e++) {
			fds[e][i] = port_open(e ? 'B' : 'A', i, O_NONBLOCK);
			if (fds[e][i] < 0)
				return -1;
		}
	for (i = 0; i < npairs; i++) {
		for (e = 0; e < 2; e++) {
			int len = snprintf(msg, sizeof(msg), "from %c%d to %c%d",
					   e ? 'B' : 'A', i, e ? 'A' : 'B', i);

			if (write_full(fds[e][i], msg, len) != len)
				return -1;
			if (read_full(fds[!e][i], buf, len, 3000) != len)
				return fail("pair %d: %s did not arrive", i, msg);
			if (memcmp(buf, msg, len))
				return fail("pair %d: got '%.*s', expected '%s'",
					    i, len, buf, msg);
			for (j = 0; j < npairs; j++) {
				if (readable(fds[0][j], 0) || readable(fds[1][j], 0))
					return fail("%s also reached pair %d", msg, j);
			}
		}
	}
	for (i = 0; i < npairs; i++)
		for (e = 0; e < 2; e++)
			close(fds[e][i]);
	return 0;
}

/* ------------------------------------------------------------------------ */
struct xfer {
	int wfd, rfd;
	uint64_t seed;
	size_t total;
	size_t max_chunk;
	unsigned int reader_delay_us;	/* sleep between reads */
	volatile size_t written;
	pid_t tid;		/* the writer's thread id (thread_blocked()) */
	int result;
	char why[256];
};

static void *writer(void *arg)
{
	struct xfer *x = arg;
	unsigned char *buf = malloc(x->max_chunk);
	struct stream s;
	uint64_t r = x->seed ^ 0x9e3779b97f4a7c15ULL;

	__atomic_store_n(&x->tid, thread_id(), __ATOMIC_SEQ_CST);
	stream_init(&s, x->seed);
	while (x->written < x->total) {
		size_t n = 1 + rnd(&r) % x->max_chunk;

		if (n > x->total - x->written)
			n = x->total - x->written;
		stream_fill(&s, buf, n);
		if (write_full(x->wfd, buf, n) != (ssize_t)n) {
			x->result = -1;
			break;
		}
		x->written += n;
	}
	free(buf);
	return NULL;
}

static void *reader(void *arg)
{
	struct xfer *x = arg;
	unsigned char *buf = malloc(x->max_chunk);
	size_t got = 0;
	struct stream s;
	uint64_t r = x->seed ^ 0x7f4a7c159e3779b9ULL;

	stream_init(&s, x->seed);
	while (got < x->total) {
		size_t n = 1 + rnd(&r) % x->max_chunk;
		ssize_t k;

		if (n > x->total - got)
			n = x->total - got;
		if (x->reader_delay_us)
			usleep(x->reader_delay_us);
		if (readable(x->rfd, 10000) <= 0) {
			snprintf(x->why, sizeof(x->why),
				 "nothing to read for 10 s after %zu of %zu bytes",
				 got, x->total);
			x->result = -1;
			break;
		}
		k = read(x->rfd, buf, n);
		if (k < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (k <= 0) {
			snprintf(x->why, sizeof(x->why), "read returned %zd (%s)",
				 k, strerror(errno));
			x->result = -1;
			break;
		}
		if (stream_check(&s, buf, k)) {
			snprintf(x->why, sizeof(x->why), "%.200s", fail_msg);
			x->result = -1;
			break;
		}
		got += k;
	}
	/* nothing beyond the stream may arrive */
	if (!x->result && readable(x->rfd, 200) > 0) {
		snprintf(x->why, sizeof(x->why), "extra bytes after %zu", got);
		x->result = -1;
	}
	free(buf);
	return NULL;
}

static size_t env_size(const char *name, size_t def)
{
	const char *v = getenv(name);

	return v ? strtoull(v, NULL, 0) : def;
}

/* Large random transfers in both directions at once, every byte checked. */
static int t_integrity_bidirectional(void)
{
	size_t total = env_size("TTYPAIR_TEST_BYTES", 16 << 20);
	struct xfer ab = { .seed = 11, .total = total, .max_chunk = 65536 };
	struct xfer ba = { .seed = 23, .total = total, .max_chunk = 65536 };
	pthread_t t[4];
	double t0 = now();
	int a = port_open('A', 0, 0), b = port_open('B', 0, 0);

	if (a < 0 || b < 0)
		return -1;
	ab.wfd = a;
	ab.rfd = b;
	ba.wfd = b;
	ba.rfd = a;
	pthread_create(&t[0], NULL, reader, &ab);
	pthread_create(&t[1], NULL, reader, &ba);
	pthread_create(&t[2], NULL, writer, &ab);
	pthread_create(&t[3], NULL, writer, &ba);
	/* readers first: a failed reader leaves its writer blocked for good */
	pthread_join(t[0], NULL);
	if (ab.result)
		return fail("A->B: %s", ab.why[0] ? ab.why : fail_msg);
	pthread_join(t[1], NULL);
	if (ba.result)
		return fail("B->A: %s", ba.why[0] ? ba.why : fail_msg);
	pthread_join(t[2], NULL);
	pthread_join(t[3], NULL);
	if (ab.result || ba.result)
		return fail("writer: %s", fail_msg);
	note("integrity: %zu bytes each way in %.1f s", total, now() - t0);
	close(a);
	close(b);
	return 0;
}

/* A slow reader blocks the writer; nothing is lost. */
static int t_backpressure_slow_reader(void)
{
	struct xfer x = { .seed = 5, .total = 3 << 20, .max_chunk = 4096 };
	pthread_t w;
	size_t before;
	int a = port_open('A', 1, 0), b = port_open('B', 1, 0);

	if (a < 0 || b < 0)
		return -1;
	x.wfd = a;
	x.rfd = b;
	pthread_create(&w, NULL, writer, &x);
	msleep(1500);
	before = x.written;
	msleep(500);
	if (x.written >= x.total)
		return fail("the writer wrote all %zu bytes with nobody reading",
			    x.total);
	if (x.written != before)
		return fail("the writer kept writing (%zu -> %zu) with nobody reading",
			    before, x.written);
	note("backpressure: writer blocked after %zu bytes", before);
	x.reader_delay_us = 200;
	reader(&x);
	if (x.result)
		return fail("%s", x.why[0] ? x.why : fail_msg);
	pthread_join(w, NULL);
	if (x.result)
		return fail("writer: %s", fail_msg);
	close(a);
	close(b);
	return 0;
}

/*
 * Fill an O_NONBLOCK end with the stream until writes fail with EAGAIN:
 * 4 KiB writes, again after a pause (so the peer's line discipline has
 * taken all it will take), then single bytes, because the flip buffer can
 * still find room for a few bytes after refusing a large write.
 * Returns the number of bytes accepted; they are the stream's first bytes.
 */
static ssize_t fill(int fd, struct stream *s)
{
	unsigned char buf[4096];
	size_t total = 0, len = 0, off = 0;
	int phase;

	for (phase = 0; phase < 3; phase++) {
		for (;;) {
			size_t n;
			ssize_t r;

			if (off == len) {
				stream_fill(s, buf, sizeof(buf));
				off = 0;
				len = sizeof(buf);
			}
			n = phase == 2 ? 1 : len - off;
			r = write(fd, buf + off, n);
			if (r < 0 && errno == EAGAIN)
				break;
			if (r < 0)
				return fail("write: %s", strerror(errno));
			if (r == 0)
				return fail("write returned 0");
			off += r;
			total += r;
			if (total > (64 << 20))
				return fail("64 MiB accepted without EAGAIN");
		}
		if (phase == 0)
			msleep(300);
	}
	return total;
}

/* O_NONBLOCK writes stop with EAGAIN when the peer's queue is full. */
static int t_nonblock_eagain(void)
{
	struct stream s, c;
	unsigned char *rx;
	ssize_t total;
	int a = port_open('A', 2, O_NONBLOCK), b = port_open('B', 2, 0);

	if (a < 0 || b < 0)
		return -1;
	stream_init(&s, 77);
	total = fill(a, &s);
	if (total < 0)
		return -1;
	if (write(a, "x", 1) != -1 || errno != EAGAIN)
		return fail("a 1-byte write on a full queue did not fail with EAGAIN");
	msleep(200);
	if (write(a, "x", 1) != -1 || errno != EAGAIN)
		return fail("the queue took more bytes with nobody reading");
	if (total < 4096)
		return fail("only %zd bytes accepted before EAGAIN", total);
	note("nonblock: %zd bytes accepted before EAGAIN", total);
	rx = malloc(total);
	if (read_full(b, rx, total, 5000) != total)
		return -1;
	stream_init(&c, 77);
	if (stream_check(&c, rx, total))
		return -1;
	if (readable(b, 300))
		return fail("more than the %zd accepted bytes arrived", total);
	free(rx);
	close(a);
	close(b);
	return 0;
}

static void *drain_later(void *arg)
{
	int fd = *(int *)arg;

	msleep(300);
	while (readable(fd, 500) > 0)
		drain(fd);
	return NULL;
}

/* poll() and select() report readiness to read and to write. */
static int t_poll_select(void)
{
	int a = port_open('A', 3, O_NONBLOCK), b = port_open('B', 3, O_NONBLOCK);
	struct timeval tv = { 0, 0 };
	struct stream st;
	fd_set rs, ws;
	pthread_t t;
	char c;

	if (a < 0 || b < 0)
		return -1;
	if (readable(b, 200))
		return fail("B readable before anything was written");
	if (writable(a, 0) != 1)
		return fail("A not writable at start");
	FD_ZERO(&ws);
	FD_SET(a, &ws);
	if (select(a + 1, NULL, &ws, NULL, &tv) != 1)
		return fail("select: A not writable at start");
	if (write(a, "z", 1) != 1)
		return fail("write: %s", strerror(errno));
	if (readable(b, 3000) != 1)
		return fail("B not readable after a write to A");
	FD_ZERO(&rs);
	FD_SET(b, &rs);
	tv.tv_sec = 3;
	if (select(b + 1, &rs, NULL, NULL, &tv) != 1)
		return fail("select: B not readable after a write to A");
	if (read(b, &c, 1) != 1 || c != 'z')
		return fail("B did not read the byte");
	if (readable(b, 100))
		return fail("B still readable after reading everything");

	stream_init(&st, 3);
	if (fill(a, &st) < 0)
		return -1;
	if (writable(a, 300))
		return fail("A writable with a full queue");
	FD_ZERO(&ws);
	FD_SET(a, &ws);
	tv.tv_sec = 0;
	tv.tv_usec = 0;
	if (select(a + 1, NULL, &ws, NULL, &tv) != 0)
		return fail("select: A writable with a full queue");
	pthread_create(&t, NULL, drain_later, &b);
	if (writable(a, 10000) != 1)
		return fail("A did not become writable when B drained");
	pthread_join(t, NULL);
	close(a);
	close(b);
	return 0;
}

/* A byte counter of an end in sysfs (rx_bytes, discarded_bytes, ...). */
static int counter(char end, int idx, const char *name, unsigned long long *v)
{
	char buf[64], *e;
	int r = attr_read(end, idx, name, buf, sizeof(buf));

	if (r)
		return fail("reading ttyVP%c%d/%s: %s", end, idx, name,
			    strerror(-r));
	*v = strtoull(buf, &e, 10);
	if (e == buf || *e)
		return fail("ttyVP%c%d/%s reads '%s'", end, idx, name, buf);
	return 0;
}

/*
 * Writes to an end whose peer is closed are accepted at once and discarded;
 * discarded_bytes counts them (tx_bytes does not), and they do not reach
 * the peer when it opens later.
 */
static int t_peer_closed_discard(void)
{
	const int idx = 4;
	size_t n = 1 << 20;
	unsigned long long d0, d1, t0, t1;
	char *buf = calloc(1, n);
	char c;
	int a = port_open('A', idx, O_NONBLOCK), b;

	if (a < 0 || !buf)
		return -1;
	if (counter('A', idx, "discarded_bytes", &d0) ||
	    counter('A', idx, "tx_bytes", &t0))
		return -1;
	/* O_NONBLOCK: a write that would have to wait fails with EAGAIN */
	if (write_full(a, buf, n) != (ssize_t)n)
		return fail("writing 1 MiB with B closed: %s", fail_msg);
	if (counter('A', idx, "discarded_bytes", &d1) ||
	    counter('A', idx, "tx_bytes", &t1))
		return -1;
	if (d1 - d0 != n || t1 != t0)
		return fail("after %zu bytes written with B closed: discarded_bytes %+lld, tx_bytes %+lld; expected %+zd and +0",
			    n, (long long)(d1 - d0), (long long)(t1 - t0),
			    (ssize_t)n);
	b = port_open('B', idx, O_NONBLOCK);
	if (b < 0)
		return -1;
	if (readable(b, 500))
		return fail("bytes written while B was closed reached B");
	if (write(a, "k", 1) != 1 || read_full(b, &c, 1, 3000) != 1 || c != 'k')
		return fail("a byte written after B opened did not arrive");
	if (counter('A', idx, "discarded_bytes", &d0))
		return -1;
	if (d0 != d1)
		return fail("discarded_bytes moved by %lld with B open",
			    (long long)(d0 - d1));
	free(buf);
	close(a);
	close(b);
	return 0;
}

/*
 * A writer blocked on a full queue is released when the peer closes; the
 * rest of what it writes is discarded (counted in discarded_bytes, never
 * delivered, not even when the peer opens again).
 */
static int t_peer_close_releases_writer(void)
{
	const int idx = 5 % npairs;
	struct xfer x = { .seed = 9, .total = 4 << 20, .max_chunk = 65536 };
	unsigned long long d0, d1, t0, t1;
	size_t before;
	double end;
	pthread_t w;
	char c;
	int a = port_open('A', idx, 0), b = port_open('B', idx, 0);

	if (a < 0 || b < 0)
		return -1;
	if (counter('A', idx, "discarded_bytes", &d0) ||
	    counter('A', idx, "tx_bytes", &t0))
		return -1;
	x.wfd = a;
	pthread_create(&w, NULL, writer, &x);
	/* the writer waits in write() and makes no more progress */
	end = now() + 10;
	do {
		if (thread_blocked(&x.tid, SYS_write, 10000, "the writer"))
			return -1;
		before = x.written;
		msleep(300);
	} while ((x.written != before || !thread_sleeping(x.tid, SYS_write)) &&
		 x.written < x.total && now() < end);
	if (x.written >= x.total || x.written != before)
		return fail("the writer never stayed blocked (%zu of %zu bytes written)",
			    x.written, x.total);
	close(b);
	pthread_join(w, NULL);	/* the test's timeout catches a hang */
	if (x.result)
		return fail("%s", fail_msg);
	if (x.written != x.total)
		return fail("the writer stopped after %zu of %zu bytes", x.written,
			    x.total);
	if (counter('A', idx, "discarded_bytes", &d1) ||
	    counter('A', idx, "tx_bytes", &t1))
		return -1;
	note("writer asleep in write() after %zu bytes of whole chunks; %llu delivered before B closed, %llu discarded",
	     before, t1 - t0, d1 - d0);
	if (t1 - t0 + (d1 - d0) != x.total || d1 == d0 || t1 - t0 < before)
		return fail("%zu bytes written: tx_bytes %+lld and discarded_bytes %+lld; expected them to add up, with %zu or more delivered and some discarded",
			    x.total, (long long)(t1 - t0), (long long)(d1 - d0),
			    before);
	b = port_open('B', idx, O_NONBLOCK);
	if (b < 0)
		return -1;
	if (readable(b, 500))
		return fail("discarded bytes reached B when it opened again");
	if (write(a, "k", 1) != 1 || read_full(b, &c, 1, 3000) != 1 || c != 'k')
		return fail("a byte written after B opened again did not arrive");
	close(a);
	close(b);
	return 0;
}

/*
 * Opening and closing again and again, data flowing each time, and every
 * session closes with bytes unread in both directions (and B writes to a
 * closed A): the next session starts without any of them.
 */
static int t_reopen_cycles(void)
{
	unsigned char left[32];
	size_t j;
	int i;
	char c;

	/* unlike the bytes read each cycle (0 to 0x7f): the high bit set */
	for (j = 0; j < sizeof(left); j++)
		left[j] = 0x80 | j;

	for (i = 0; i < 200; i++) {
		int a = port_open('A', 0, 0), b = port_open('B', 0, 0);
		char out = (char)(i & 0x7f), stale[64];
		size_t k;

		if (a < 0 || b < 0)
			return -1;
		/* every 20th session: let a late byte of the last one show */
		k = read_upto(a, stale, sizeof(stale), i % 20 ? 0 : 100);
		k += read_upto(b, stale + k, sizeof(stale) - k, i % 20 ? 0 : 100);
		if (k)
			return fail("cycle %d: %zu bytes of an earlier session were waiting at open (first 0x%02x)",
				    i, k, (unsigned char)stale[0]);
		if (write(a, &out, 1) != 1 || read_full(b, &c, 1, 3000) != 1 || c != out)
			return fail("cycle %d: A->B failed (read 0x%02x, sent 0x%02x)",
				    i, (unsigned char)c, (unsigned char)out);
		if (write(b, &out, 1) != 1 || read_full(a, &c, 1, 3000) != 1 || c != out)
			return fail("cycle %d: B->A failed (read 0x%02x, sent 0x%02x)",
				    i, (unsigned char)c, (unsigned char)out);
		/* left unread in both directions */
		if (write_full(a, left, sizeof(left)) != sizeof(left) ||
		    write_full(b, left, sizeof(left)) != sizeof(left))
			return -1;
		if (i & 1) {
			close(a);
			/* to a closed A: discarded */
			if (write_full(b, left, 2) != 2)
				return -1;
			close(b);
		} else {
			close(b);
			if (write_full(a, left, 2) != 2)
				return -1;
			close(a);
		}
	}
	return 0;
}

/* A fresh port has a hardware port's settings: 9600 8N1, CREAD, HUPCL, CLOCAL. */
static int t_termios_defaults(void)
{
	struct termios t;
	int a = port_open_plain('A', 1, 0);

	if (a < 0)
		return -1;
	if (tcgetattr(a, &t))
		return fail("tcgetattr: %s", strerror(errno));
	if (cfgetospeed(&t) != B9600 || cfgetispeed(&t) != B9600)
		return fail("speed is not 9600");
	if ((t.c_cflag & CSIZE) != CS8 || (t.c_cflag & (PARENB | CSTOPB)))
		return fail("not 8N1: c_cflag 0%o", t.c_cflag);
	if ((t.c_cflag & (CREAD | HUPCL | CLOCAL)) != (CREAD | HUPCL | CLOCAL))
		return fail("CREAD, HUPCL or CLOCAL missing: c_cflag 0%o", t.c_cflag);
	close(a);
	return 0;
}

struct line_setting {
	const char *name;
	speed_t speed;
	tcflag_t cflag;		/* CSIZE, PARENB, PARODD, CMSPAR, CSTOPB */
};

#define LINE_FMT	(CSIZE | PARENB | PARODD | CMSPAR | CSTOPB)

/*
 * Line settings that user space makes stick, as on a UART: read back at
 * once and after the port was closed and opened again (termios persists).
 */
static int t_termios_set(void)
{
	static const struct line_setting sets[] = {
		{ "115200 7E2", B115200, CS7 | PARENB | CSTOPB },
		{ "1200 5O1", B1200, CS5 | PARENB | PARODD },
		{ "57600 6 mark 1", B57600, CS6 | PARENB | PARODD | CMSPAR },
		{ "9600 8N1", B9600, CS8 },
	};
	const int idx = 1;
	struct termios t;
	size_t i;
	int a, pass;

	for (i = 0; i < sizeof(sets) / sizeof(sets[0]); i++) {
		const struct line_setting *ls = &sets[i];

		a = port_open('A', idx, 0);
		if (a < 0)
			return -1;
		if (tcgetattr(a, &t))
			return fail("tcgetattr: %s", strerror(errno));
		cfsetspeed(&t, ls->speed);
		t.c_cflag = (t.c_cflag & ~LINE_FMT) | ls->cflag;
		if (tcsetattr(a, TCSANOW, &t))
			return fail("tcsetattr %s: %s", ls->name, strerror(errno));
		/* pass 0: at once; pass 1: after close and a fresh open */
		for (pass = 0; pass < 2; pass++) {
			const char *when = pass ? "after close and reopen" : "at once";

			if (pass) {
				close(a);
				a = port_open_plain('A', idx, 0);
				if (a < 0)
					return -1;
			}
			memset(&t, 0, sizeof(t));
			if (tcgetattr(a, &t))
				return fail("tcgetattr: %s", strerror(errno));
			if (cfgetospeed(&t) != ls->speed ||
			    cfgetispeed(&t) != ls->speed)
				return fail("%s, %s: speed codes 0%o/0%o (out/in), expected 0%o",
					    ls->name, when, cfgetospeed(&t),
					    cfgetispeed(&t), ls->speed);
			if ((t.c_cflag & LINE_FMT) != ls->cflag)
				return fail("%s, %s: c_cflag 0%o in CSIZE|PARENB|PARODD|CMSPAR|CSTOPB, expected 0%o",
					    ls->name, when, t.c_cflag & LINE_FMT,
					    ls->cflag);
		}
		close(a);
	}
	return 0;
}

static void *write_thread(void *arg)
{
	struct xfer *x = arg;
	ssize_t r;

	__atomic_store_n(&x->tid, thread_id(), __ATOMIC_SEQ_CST);
	r = write(x->wfd, "w", 1);
	x->result = r == 1 ? 0 : errno ? errno : -1;
	__atomic_store_n(&x->written, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

/*
 * XOFF received by an end with IXON stops its output until XON: an
 * O_NONBLOCK writer gets EAGAIN, a blocking writer waits in write().
 */
static int t_xon_xoff(void)
{
	const int idx = 2;
	struct xfer x = { .written = 0 };
	struct termios t;
	pthread_t w;
	char c;
	int a = port_open('A', idx, O_NONBLOCK), b = port_open('B', idx, O_NONBLOCK);
	int ab;		/* A again, without O_NONBLOCK */

	if (a < 0 || b < 0)
		return -1;
	ab = port_open_plain('A', idx, 0);
	if (ab < 0)
		return -1;
	tcgetattr(a, &t);
	t.c_iflag |= IXON;
	tcsetattr(a, TCSANOW, &t);
	if (write(b, "\x13", 1) != 1)	/* XOFF to A */
		return fail("write XOFF: %s", strerror(errno));
	msleep(300);
	if (write(a, "s", 1) != -1 || errno != EAGAIN)
		return fail("A still sends after XOFF");
	if (writable(a, 100))
		return fail("A polls writable after XOFF");
	/* a blocking writer waits */
	x.wfd = ab;
	pthread_create(&w, NULL, write_thread, &x);
	if (thread_blocked(&x.tid, SYS_write, 3000, "a blocking write on A after XOFF"))
		return -1;
	msleep(300);
	if (__atomic_load_n(&x.written, __ATOMIC_SEQ_CST))
		return fail("a blocking write on A returned after XOFF");
	if (readable(b, 0))
		return fail("the blocking writer's byte reached B after XOFF");
	if (write(b, "\x11", 1) != 1)	/* XON */
		return fail("write XON: %s", strerror(errno));
	if (read_full(b, &c, 1, 3000) != 1 || c != 'w')
		return fail("the blocked write's byte did not arrive after XON");
	pthread_join(w, NULL);
	if (x.result)
		return fail("the blocked write failed after XON: %s",
			    strerror(x.result));
	if (writable(a, 3000) != 1)
		return fail("A not writable after XON");
	if (write(a, "r", 1) != 1 || read_full(b, &c, 1, 3000) != 1 || c != 'r')
		return fail("A's output did not resume after XON");
	if (readable(a, 200))
		return fail("XON/XOFF reached A's reader");
	close(ab);
	close(a);
	close(b);
	return 0;
}

const struct test data_tests[] = {
	{ "termios_defaults", t_termios_defaults, 30 },
	{ "pairing", t_pairing, 60 },
	{ "integrity_bidirectional", t_integrity_bidirectional, 600 },
	{ "backpressure_slow_reader", t_backpressure_slow_reader, 300 },
	{ "nonblock_eagain", t_nonblock_eagain, 120 },
	{ "poll_select", t_poll_select, 60 },
	{ "peer_closed_discard", t_peer_closed_discard, 60 },
	{ "peer_close_releases_writer", t_peer_close_releases_writer, 60 },
	{ "reopen_cycles", t_reopen_cycles, 300 },
	{ "termios_set", t_termios_set, 30 },
	{ "xon_xoff", t_xon_xoff, 30 },
	{ NULL }
};

static const struct test *const groups[] = {
	data_tests, modem_tests, line_tests, hardening_tests, rs485_tests,
	bus_tests, session_tests,
};

/* ------------------------------------------------------------------------ */
static int run(const struct test *t)
{
	int pipefd[2], status;
	char why[512] = "";
	ssize_t n;
	pid_t pid;

	fflush(stdout);
	if (pipe(pipefd))
		return -1;
	pid = fork();
	if (pid == 0) {
		int r;

		close(pipefd[0]);
		alarm(t->timeout);
		fail_msg[0] = 0;
		r = t->fn();
		if (r && !fail_msg[0])
			fail("failed without a reason");
		if (r && write(pipefd[1], fail_msg, strlen(fail_msg)) < 0)
			_exit(2);
		_exit(r ? 1 : 0);
	}
	close(pipefd[1]);
	n = read(pipefd[0], why, sizeof(why) - 1);
	why[n > 0 ? n : 0] = 0;
	close(pipefd[0]);
	waitpid(pid, &status, 0);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		printf("ok - %s\n", t->name);
		fflush(stdout);
		return 0;
	}
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
		snprintf(why, sizeof(why), "timed out after %u s", t->timeout);
	else if (WIFSIGNALED(status))
		snprintf(why, sizeof(why), "killed by signal %d", WTERMSIG(status));
	printf("not ok - %s: %s\n", t->name, why);
	fflush(stdout);
	return 1;
}

/*
 * Open and close N sessions of /dev/ttypair-session, every tenth with its
 * A end held open across the close
 */
static int session_churn(int n)
{
	struct ttypair_session_info info;
	char path[96];
	int i, s, held;

	for (i = 0; i < n; i++) {
		s = open("/dev/" TTYPAIR_SESSION_DEVICE, O_RDWR | O_CLOEXEC);
		if (s < 0) {
			printf("session %d: %s\n", i, strerror(errno));
			return 1;
		}
		memset(&info, 0, sizeof(info));
		info.size = sizeof(info);
		if (ioctl(s, TTYPAIR_IOC_INFO, &info)) {
			printf("session %d: TTYPAIR_IOC_INFO: %s\n", i, strerror(errno));
			return 1;
		}
		held = -1;
		if (i % 10 == 0) {
			snprintf(path, sizeof(path), "/dev/%s", info.device_a);
			held = open(path, O_RDWR | O_NOCTTY | O_NONBLOCK);
			if (held < 0) {
				printf("open %s: %s\n", path, strerror(errno));
				return 1;
			}
		}
		close(s);
		if (held >= 0)
			close(held);
	}
	printf("%d sessions opened and closed, %d of them with a device open at the close\n",
	       n, (n + 9) / 10);
	return 0;
}

/*
 * Make and remove N pairs (or buses) in configfs with system calls, not a
 * shell loop: 1000 in seconds, even under TCG. Every tenth has its first
 * device held open across its removal; a bus has 2 to 5 ports, and 32
 * every 50th.
 */
static int churn(int n, int bus)
{
	const char *cfg = "/sys/kernel/config/ttypair";
	char dir[128], file[160], val[16], dev[64], path[96];
	int i, ret, held, ports;

	for (i = 0; i < n; i++) {
		snprintf(dir, sizeof(dir), "%s%s/churn%d", cfg,
			 bus ? "/buses" : "", i);
		if (mkdir(dir, 0755)) {
			printf("mkdir %s: %s\n", dir, strerror(errno));
			return 1;
		}
		if (bus) {
			ports = i % 50 ? 2 + i % 4 : 32;
			snprintf(file, sizeof(file), "%s/ports", dir);
			snprintf(val, sizeof(val), "%d", ports);
			if (file_write(file, val)) {
				printf("%s=%s refused\n", file, val);
				return 1;
			}
		}
		held = -1;
		if (i % 10 == 0) {
			snprintf(file, sizeof(file), "%s/%s", dir,
				 bus ? "devices" : "device_a");
			ret = file_read(file, dev, sizeof(dev));
			dev[strcspn(dev, "\n")] = 0;
			if (ret || !dev[0]) {
				printf("reading %s failed\n", file);
				return 1;
			}
			snprintf(path, sizeof(path), "/dev/%s", dev);
			held = open(path, O_RDWR | O_NOCTTY | O_NONBLOCK);
			if (held < 0) {
				printf("open %s: %s\n", path, strerror(errno));
				return 1;
			}
		}
		if (rmdir(dir)) {
			printf("rmdir %s: %s\n", dir, strerror(errno));
			return 1;
		}
		if (held >= 0)
			close(held);
	}
	printf("%d %s created and removed, %d of them with a device open at removal\n",
	       n, bus ? "buses" : "pairs", (n + 9) / 10);
	return 0;
}

/*
 * Removing a pair from two threads at once, while two more threads open its
 * ends, write, read and close them: every call succeeds or fails with an
 * error that says the pair or the node is gone, and the kernel stays quiet
 * (the host checks its log). Expects the module loaded with pairs=0, so the
 * pair "race" is always ttyVPA0/ttyVPB0.
 */
static const char *race_cfg = "/sys/kernel/config/ttypair/race";
static volatile int race_stop;
static volatile unsigned int race_window = 2000;	/* microseconds */
static unsigned long race_ops[4], race_bad[4], race_opened[4];
static char race_msg[4][160];

static void race_unexpected(int id, const char *what)
{
	if (!race_bad[id]++)
		snprintf(race_msg[id], sizeof(race_msg[id]), "%s: %s", what, strerror(errno));
}

static void *race_remover(void *arg)
{
	int id = (int)(long)arg;
	unsigned int seed = id;

	while (!race_stop) {
		/*
		 * Thread 0 makes the pair; both remove it after a random
		 * wait of up to the window (2 ms, or as long as the last
		 * mkdir took if longer), one time in four up to 4 windows:
		 * on a slow (debug) kernel an open takes longer than 2 ms. Thread 1 waits for the pair first: else its
		 * rmdir, queued behind a slow mkdir on the directory's lock,
		 * would remove each new pair at once, before its second end
		 * could be opened.
		 */
		if (id == 0) {
			double t = now();

			if (mkdir(race_cfg, 0755) && errno != EEXIST)
				race_unexpected(id, "mkdir");
			t = (now() - t) * 1e6;
			race_window = t > 2000 ? (unsigned int)t : 2000;
		}
		if (id == 1 && access(race_cfg, F_OK)) {
			usleep(100);
			continue;
		}
		usleep(rand_r(&seed) % (race_window * (rand_r(&seed) % 4 ? 1 : 4)));
		if (rmdir(race_cfg) && errno != ENOENT)
			race_unexpected(id, "rmdir");
		race_ops[id]++;
	}
	return NULL;
}

static void *race_opener(void *arg)
{
	int id = (int)(long)arg;
	const char *dev = id == 2 ? "/dev/ttyVPA0" : "/dev/ttyVPB0";
	char c = 'x';
	int fd;

	while (!race_stop) {
		race_ops[id]++;
		fd = open(dev, O_RDWR | O_NOCTTY | O_NONBLOCK);
		if (fd < 0) {
			/* no node, no device behind the node, or removed during open */
			if (errno != ENOENT && errno != ENODEV && errno != ENXIO && errno != EIO)
				race_unexpected(id, "open");
			continue;
		}
		race_opened[id]++;
		if (write(fd, &c, 1) < 0 && errno != EIO && errno != EAGAIN)
			race_unexpected(id, "write");
		if (read(fd, &c, 1) < 0 && errno != EIO && errno != EAGAIN)
			race_unexpected(id, "read");
		close(fd);
	}
	return NULL;
}

/*
 * Races for the given seconds, and then on (up to ten times as long) until
 * each end has been opened at least once: otherwise nothing raced.
 */
static int race(int seconds)
{
	pthread_t th[4];
	int i, bad = 0, ran;

	for (i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, i < 2 ? race_remover : race_opener, (void *)(long)i);
	sleep(seconds);
	for (ran = seconds; ran < 10 * seconds && (!race_opened[2] || !race_opened[3]); ran++)
		sleep(1);
	race_stop = 1;
	for (i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	if (rmdir(race_cfg) && errno != ENOENT) {
		printf("final rmdir: %s\n", strerror(errno));
		bad = 1;
	}
	printf("%d s: %lu create/remove loops, %lu more removals, %lu + %lu opens of the ends (%lu + %lu succeeded)\n",
	       ran, race_ops[0], race_ops[1], race_ops[2], race_ops[3], race_opened[2], race_opened[3]);
	for (i = 0; i < 4; i++)
		if (race_bad[i]) {
			printf("thread %d: %lu unexpected errors, the first %s\n",
			       i, race_bad[i], race_msg[i]);
			bad = 1;
		}
	if (!race_ops[0] || !race_opened[2] || !race_opened[3]) {
		printf("a thread did not run, or no open ever reached the pair\n");
		bad = 1;
	}
	return bad;
}

static int hold(const char *path)
{
	int fd = open(path, O_RDWR | O_NOCTTY);

	if (fd < 0) {
		perror(path);
		return 1;
	}
	printf("held\n");
	fflush(stdout);
	pause();
	return 0;
}

int main(int argc, char **argv)
{
	const struct test *t;
	int failed = 0, ran = 0, a;
	size_t g;

	signal(SIGPIPE, SIG_IGN);
	if (argc > 1 && !strcmp(argv[1], "--list")) {
		for (g = 0; g < sizeof(groups) / sizeof(groups[0]); g++)
			for (t = groups[g]; t->name; t++)
				printf("%s\n", t->name);
		return 0;
	}
	if (argc > 2 && !strcmp(argv[1], "--hold"))
		return hold(argv[2]);
	if (argc > 2 && !strcmp(argv[1], "--churn"))
		return churn(atoi(argv[2]), 0);
	if (argc > 2 && !strcmp(argv[1], "--bus-churn"))
		return churn(atoi(argv[2]), 1);
	if (argc > 2 && !strcmp(argv[1], "--session-churn"))
		return session_churn(atoi(argv[2]));
	if (argc > 2 && !strcmp(argv[1], "--race"))
		return race(atoi(argv[2]));
	if (argc > 1 && !strcmp(argv[1], "--delete-module")) {
		if (syscall(SYS_delete_module, "ttypair", O_NONBLOCK) == 0)
			return 0;
		printf("delete_module: %s\n", strerror(errno));
		return 1;
	}
	a = 1;
	if (argc > 2 && !strcmp(argv[1], "--pairs")) {
		npairs = atoi(argv[2]);
		a = 3;
	}
	if (npairs < 1 || npairs > 128) {
		fprintf(stderr, "--pairs must be 1..128\n");
		return 2;
	}
	for (g = 0; g < sizeof(groups) / sizeof(groups[0]); g++)
		for (t = groups[g]; t->name; t++) {
			int want = a >= argc;

			for (int k = a; k < argc; k++)
				want |= !strcmp(argv[k], t->name);
			if (!want)
				continue;
			failed += run(t) != 0;
			ran++;
		}
	return ran ? failed != 0 : 2;
}
