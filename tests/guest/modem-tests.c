// SPDX-License-Identifier: GPL-2.0
/*
 * Functional tests of ttypair's modem lines, carrier, hangup and break,
 * checked against what a hardware serial port on a null-modem cable does.
 *
 * Each test uses a pair of its own (10 to 29): termios and sysfs settings
 * persist for as long as the module is loaded. Changes of the modem lines
 * are synchronous in the driver; hangups are not, so they are waited for.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>
#include <linux/serial.h>

#include "tlib.h"
#include "../../include/uapi/ttypair.h"

extern char fail_msg[512];

/* <asm/termios.h> has them but conflicts with <termios.h> */
#ifndef TIOCM_OUT1
#define TIOCM_OUT1	0x2000
#endif
#ifndef TIOCM_OUT2
#define TIOCM_OUT2	0x4000
#endif

#define WAIT_MS		3000	/* for something that must happen */
#define QUIET_MS	300	/* for something that must not happen */
#define HANGUP_MS	5000	/* for an asynchronous hangup */

#define INPUTS		(TIOCM_CTS | TIOCM_DSR | TIOCM_CD | TIOCM_RI)
#define OUTPUTS		(TIOCM_DTR | TIOCM_RTS | TIOCM_OUT1 | TIOCM_OUT2)
#define NULL_MODEM_ON	(TIOCM_CTS | TIOCM_DSR | TIOCM_CD)

#define DEFAULT_WIRING	"cts=rts dsr=dtr dcd=dtr ri=off"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define BIT(n)		(1u << (n))
#define __printf(a, b)	__attribute__((format(printf, a, b)))

/* ------------------------------------------------------------------------ */
/* Modem lines */

static const struct {
	int bit;
	const char *name;
} line_names[] = {
	{ TIOCM_DTR, "DTR" }, { TIOCM_RTS, "RTS" }, { TIOCM_OUT1, "OUT1" },
	{ TIOCM_OUT2, "OUT2" }, { TIOCM_CTS, "CTS" }, { TIOCM_DSR, "DSR" },
	{ TIOCM_CD, "CD" }, { TIOCM_RI, "RI" },
};

static const char *line_str(char *buf, size_t len, int m)
{
	size_t i, off = 0;

	buf[0] = 0;
	for (i = 0; i < ARRAY_SIZE(line_names) && off < len; i++)
		if (m & line_names[i].bit)
			off += snprintf(buf + off, len - off, "%s%s",
					off ? " " : "", line_names[i].name);
	if (!off)
		snprintf(buf, len, "none");
	return buf;
}

static const char *mcmd_str(unsigned long cmd)
{
	return cmd == TIOCMBIS ? "TIOCMBIS" :
	       cmd == TIOCMBIC ? "TIOCMBIC" : "TIOCMSET";
}

/* TIOCMBIS, TIOCMBIC or TIOCMSET of bits; 0 or -1 after fail(). */
static int mctl(int fd, unsigned long cmd, int bits)
{
	char b[64];

	if (ioctl(fd, cmd, &bits))
		return fail("%s [%s]: %s", mcmd_str(cmd),
			    line_str(b, sizeof(b), bits), strerror(errno));
	return 0;
}

/* The lines of fd in mask must be exactly want. */
static int expect_lines(int fd, int mask, int want, const char *fmt, ...)
	__printf(4, 5);
static int expect_lines(int fd, int mask, int want, const char *fmt, ...)
{
	char what[200], got[64], exp[64], of[64];
	va_list ap;
	int m = modem_get(fd);

	if (m < 0)
		return -1;
	if ((m & mask) == want)
		return 0;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return fail("%s: [%s] on, expected [%s] (of [%s])", what,
		    line_str(got, sizeof(got), m & mask),
		    line_str(exp, sizeof(exp), want),
		    line_str(of, sizeof(of), mask));
}

/* ------------------------------------------------------------------------ */
/* Wiring (sysfs) */

/* A value as it can be shown in a message: escaped, cut to 48 characters. */
static const char *shown(char *buf, size_t len, const char *s)
{
	size_t o = 0;

	for (; *s && o + 5 < len && o < 48; s++) {
		if (*s == '\n') {
			buf[o++] = '\\';
			buf[o++] = 'n';
		} else {
			buf[o++] = *s;
		}
	}
	if (*s && o + 4 < len) {
		memcpy(buf + o, "...", 3);
		o += 3;
	}
	buf[o] = 0;
	return buf;
}

static int set_wiring(char end, int idx, const char *val)
{
	char v[64];
	int r = attr_write(end, idx, "wiring", val);

	if (r)
		return fail("writing '%s' to ttyVP%c%d/wiring: %s",
			    shown(v, sizeof(v), val), end, idx, strerror(-r));
	return 0;
}

static int expect_wiring(char end, int idx, const char *want)
{
	char buf[256];
	int r = attr_read(end, idx, "wiring", buf, sizeof(buf));

	if (r)
		return fail("reading ttyVP%c%d/wiring: %s", end, idx,
			    strerror(-r));
	if (strcmp(buf, want))
		return fail("ttyVP%c%d/wiring reads '%s', expected '%s'",
			    end, idx, buf, want);
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Interrupt counters */

static const struct {
	const char *name;
	size_t off;
} icount_fields[] = {
#define ICOUNT_FIELD(f) { #f, offsetof(struct serial_icounter_struct, f) }
	ICOUNT_FIELD(cts), ICOUNT_FIELD(dsr), ICOUNT_FIELD(rng),
	ICOUNT_FIELD(dcd), ICOUNT_FIELD(rx), ICOUNT_FIELD(tx),
	ICOUNT_FIELD(frame), ICOUNT_FIELD(overrun), ICOUNT_FIELD(parity),
	ICOUNT_FIELD(brk), ICOUNT_FIELD(buf_overrun),
#undef ICOUNT_FIELD
};

static int icount_get_field(const struct serial_icounter_struct *ic,
			    size_t i)
{
	int v;

	memcpy(&v, (const char *)ic + icount_fields[i].off, sizeof(v));
	return v;
}

static int get_icount(int fd, struct serial_icounter_struct *ic)
{
	memset(ic, 0, sizeof(*ic));
	if (ioctl(fd, TIOCGICOUNT, ic))
		return fail("TIOCGICOUNT: %s", strerror(errno));
	return 0;
}

/* Bits of icount_fields[] for expect_icount()'s ignore */
#define IC_RX		BIT(4)
#define IC_TX		BIT(5)
/*
 * Whether a break also counts as a byte in rx (the 8250 counts it) is left
 * open, so break tests ignore rx and tx.
 */
#define BRK_IGNORE	(IC_RX | IC_TX)

/*
 * Every counter of fd must have grown from before by exactly delta (zero
 * for the counters delta leaves out), except those in ignore. Retries for
 * up to ms milliseconds.
 */
static int expect_icount(int fd, const struct serial_icounter_struct *before,
			 const struct serial_icounter_struct *delta,
			 unsigned int ignore, int ms, const char *what)
{
	double end = now() + ms / 1000.0;
	struct serial_icounter_struct ic;
	size_t i;

	for (;;) {
		if (get_icount(fd, &ic))
			return -1;
		for (i = 0; i < ARRAY_SIZE(icount_fields); i++)
			if (!(ignore & BIT(i)) &&
			    icount_get_field(&ic, i) -
			    icount_get_field(before, i) !=
			    icount_get_field(delta, i))
				break;
		if (i == ARRAY_SIZE(icount_fields))
			return 0;
		if (now() >= end)
			break;
		msleep(20);
	}
	return fail("%s: icount.%s went from %d to %d, expected +%d", what,
		    icount_fields[i].name, icount_get_field(before, i),
		    icount_get_field(&ic, i), icount_get_field(delta, i));
}

/* ------------------------------------------------------------------------ */
/* System calls that block, run in a thread */

struct waiter {
	pthread_t thread;
	int fd;			/* TIOCMIWAIT: the end */
	unsigned long mask;	/* TIOCMIWAIT: the mask */
	char path[64];		/* open: the device */
	int flags;		/* open: the flags */
	int started, done, joined;	/* accessed with __atomic */
	pid_t tid;		/* the thread's id, for thread_blocked() */
	int ret, err;		/* the result and errno */
};

static void *miwait_thread(void *arg)
{
	struct waiter *w = arg;
	int r, e;

	__atomic_store_n(&w->tid, thread_id(), __ATOMIC_SEQ_CST);
	__atomic_store_n(&w->started, 1, __ATOMIC_SEQ_CST);
	r = ioctl(w->fd, TIOCMIWAIT, w->mask);
	e = errno;
	w->ret = r;
	w->err = e;
	__atomic_store_n(&w->done, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

static void *open_thread(void *arg)
{
	struct waiter *w = arg;
	int r, e;

	__atomic_store_n(&w->tid, thread_id(), __ATOMIC_SEQ_CST);
	__atomic_store_n(&w->started, 1, __ATOMIC_SEQ_CST);
	r = open(w->path, w->flags);
	e = errno;
	w->ret = r;
	w->err = e;
	__atomic_store_n(&w->done, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

static int waiter_start(struct waiter *w, void *(*fn)(void *))
{
	double end = now() + WAIT_MS / 1000.0;
	int r;

	w->started = 0;
	w->tid = 0;
	w->done = 0;
	w->joined = 0;
	w->ret = 0;
	w->err = 0;
	r = pthread_create(&w->thread, NULL, fn, w);
	if (r)
		return fail("pthread_create: %s", strerror(r));
	while (!__atomic_load_n(&w->started, __ATOMIC_SEQ_CST)) {
		if (now() >= end)
			return fail("the waiting thread did not start");
		msleep(20);
	}
	return 0;
}

/*
 * A thread calling TIOCMIWAIT for mask on fd; it may not have reached the
 * kernel yet (miwait_blocked() waits for that).
 */
static int miwait_start(struct waiter *w, int fd, unsigned long mask)
{
	w->fd = fd;
	w->mask = mask;
	return waiter_start(w, miwait_thread);
}

/*
 * A thread opening end/idx with flags (O_RDWR | O_NOCTTY | ... ); it may
 * not have reached the kernel yet (open_blocked() waits for that).
 */
static int open_start(struct waiter *w, char end, int idx, int flags)
{
	snprintf(w->path, sizeof(w->path), "/dev/%s%d",
		 end == 'A' ? TTYPAIR_NAME_A : TTYPAIR_NAME_B, idx);
	w->flags = flags;
	return waiter_start(w, open_thread);
}

/* 1 if the thread's system call returned within ms milliseconds, else 0. */
static int waiter_done(struct waiter *w, int ms)
{
	double end = now() + ms / 1000.0;

	while (!__atomic_load_n(&w->done, __ATOMIC_SEQ_CST)) {
		if (now() >= end)
			return 0;
		msleep(20);
	}
	if (!w->joined) {
		pthread_join(w->thread, NULL);
		w->joined = 1;
	}
	return 1;
}

/* The thread of miwait_start() sleeps in TIOCMIWAIT (in ioctl()). */
static int miwait_blocked(struct waiter *w)
{
	if (waiter_done(w, 0))
		return fail("TIOCMIWAIT returned %d (%s) at once, expected it to wait",
			    w->ret, w->ret ? strerror(w->err) : "a change");
	return thread_blocked(&w->tid, SYS_ioctl, WAIT_MS, "TIOCMIWAIT");
}

/* The thread of open_start() sleeps in its open() (openat()). */
static int open_blocked(struct waiter *w)
{
	if (waiter_done(w, 0))
		return fail("the open of %s returned %d (%s) at once, expected it to wait",
			    w->path, w->ret, w->ret < 0 ? strerror(w->err) : "an fd");
	return thread_blocked(&w->tid, SYS_openat, WAIT_MS, w->path);
}

/* A TIOCMIWAIT that must still be waiting. */
static int still_waiting(struct waiter *w, const char *why)
{
	if (waiter_done(w, 0))
		return fail("TIOCMIWAIT returned %d (%s) %s", w->ret,
			    w->ret ? strerror(w->err) : "a change", why);
	return 0;
}

/* A TIOCMIWAIT that must return 0 within WAIT_MS. */
static int woken(struct waiter *w, const char *why)
{
	if (!waiter_done(w, WAIT_MS))
		return fail("TIOCMIWAIT still waiting %d ms after %s",
			    WAIT_MS, why);
	if (w->ret)
		return fail("TIOCMIWAIT returned %d (%s) after %s, expected 0",
			    w->ret, strerror(w->err), why);
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Signals and child processes */

static int sig_count;		/* accessed with __atomic */

static void count_signal(int sig)
{
	(void)sig;
	__atomic_add_fetch(&sig_count, 1, __ATOMIC_SEQ_CST);
}

/* Count sig in sig_count; without SA_RESTART unless restart. */
static int catch_signal(int sig, int restart)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = count_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = restart ? SA_RESTART : 0;
	if (sigaction(sig, &sa, NULL))
		return fail("sigaction: %s", strerror(errno));
	return 0;
}

/* The number of signals caught, waiting up to ms for the first one. */
static int wait_signal(int ms)
{
	double end = now() + ms / 1000.0;

	while (!__atomic_load_n(&sig_count, __ATOMIC_SEQ_CST) && now() < end)
		msleep(20);
	return __atomic_load_n(&sig_count, __ATOMIC_SEQ_CST);
}

/*
 * A child process running fn(wfd, arg). fn writes "R" to wfd (child_ready)
 * once it is set up and returns 0 or fail(); a failure reaches the parent
 * as "E<reason>" on the same pipe.
 */
struct child {
	pid_t pid;
	int rfd;
	char msg[600];
	size_t len;
};

static int child_start(struct child *c, int (*fn)(int wfd, void *arg),
		       void *arg)
{
	int p[2];

	c->len = 0;
	c->msg[0] = 0;
	if (pipe(p))
		return fail("pipe: %s", strerror(errno));
	fflush(stdout);
	c->pid = fork();
	if (c->pid < 0)
		return fail("fork: %s", strerror(errno));
	if (c->pid == 0) {
		int r;

		close(p[0]);
		fail_msg[0] = 0;
		alarm(60);
		r = fn(p[1], arg);
		if (r) {
			char m[sizeof(fail_msg) + 1];
			int n;

			if (!fail_msg[0])
				fail("failed without a reason");
			n = snprintf(m, sizeof(m), "E%s", fail_msg);
			if (write(p[1], m, n) < 0)
				_exit(2);
		}
		_exit(r ? 1 : 0);
	}
	close(p[1]);
	c->rfd = p[0];
	return 0;
}

static void child_ready(int wfd)
{
	if (write(wfd, "R", 1) != 1)
		_exit(3);
}

/* Wait up to ms for the child to exit; 0 if it passed, else fail(). */
static int child_finish(struct child *c, int ms)
{
	double end = now() + ms / 1000.0;
	int status = 0;
	ssize_t n;
	pid_t r;

	while ((r = waitpid(c->pid, &status, WNOHANG)) == 0 && now() < end)
		msleep(20);
	if (r == 0) {
		kill(c->pid, SIGKILL);
		waitpid(c->pid, &status, 0);
		close(c->rfd);
		return fail("the child did not finish within %d ms", ms);
	}
	if (r < 0)
		return fail("waitpid: %s", strerror(errno));
	while (c->len < sizeof(c->msg) - 1 &&
	       (n = read(c->rfd, c->msg + c->len,
			 sizeof(c->msg) - 1 - c->len)) > 0)
		c->len += n;
	c->msg[c->len] = 0;
	close(c->rfd);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	if (c->msg[0] == 'E')
		return fail("child: %s", c->msg + 1);
	if (WIFSIGNALED(status))
		return fail("the child was killed by signal %d",
			    WTERMSIG(status));
	return fail("the child exited with status %d", WEXITSTATUS(status));
}

/* Wait for the child's "R"; on failure collect its reason. */
static int child_wait_ready(struct child *c)
{
	struct pollfd p = { .fd = c->rfd, .events = POLLIN };
	char ch;
	int r;

	do {
		r = poll(&p, 1, 10000);
	} while (r < 0 && errno == EINTR);
	if (r <= 0) {
		kill(c->pid, SIGKILL);
		waitpid(c->pid, NULL, 0);
		close(c->rfd);
		return fail("the child was not ready within 10 s");
	}
	if (read(c->rfd, &ch, 1) == 1) {
		if (ch == 'R')
			return 0;
		c->msg[0] = ch;
		c->len = 1;
	}
	/* it failed, or ended without a word */
	if (!child_finish(c, 5000))
		return fail("the child finished without getting ready");
	return -1;
}

/* ------------------------------------------------------------------------ */
/* Ports */

/* Raw 8-bit settings, CLOCAL on or off, the other control flags kept. */
static int make_raw(int fd, int clocal)
{
	struct termios t;

	if (tcgetattr(fd, &t))
		return fail("tcgetattr: %s", strerror(errno));
	cfmakeraw(&t);
	t.c_cflag |= CREAD;
	if (clocal)
		t.c_cflag |= CLOCAL;
	else
		t.c_cflag &= ~CLOCAL;
	t.c_cc[VMIN] = 1;
	t.c_cc[VTIME] = 0;
	if (tcsetattr(fd, TCSANOW, &t))
		return fail("tcsetattr: %s", strerror(errno));
	return 0;
}

/* Leave end/idx without CLOCAL for its next open (termios persists). */
static int clear_clocal(char end, int idx)
{
	int fd = port_open(end, idx, O_NONBLOCK);

	if (fd < 0)
		return -1;
	if (set_cflag(fd, CLOCAL, 0))
		return -1;
	close(fd);
	return 0;
}

/* Exactly the len bytes of want must arrive on fd, then nothing more. */
static int expect_bytes(int fd, const char *want, size_t len,
			const char *what)
{
	unsigned char got[16];
	size_t n, i;

	n = read_upto(fd, got, len, WAIT_MS);
	for (i = 0; i < n; i++)
		if (got[i] != (unsigned char)want[i])
			return fail("%s: byte %zu is 0x%02x, expected 0x%02x",
				    what, i, got[i], (unsigned char)want[i]);
	if (n < len)
		return fail("%s: %zu of %zu bytes arrived within %d ms",
			    what, n, len, WAIT_MS);
	n = read_upto(fd, got, sizeof(got), QUIET_MS);
	if (n)
		return fail("%s: %zu more byte(s) arrived, the first 0x%02x",
			    what, n, got[0]);
	return 0;
}

/* One byte from wfd must arrive on rfd, and nothing else. */
static int byte_passes(int wfd, int rfd, char c, const char *what)
{
	if (write_full(wfd, &c, 1) != 1)
		return -1;
	return expect_bytes(rfd, &c, 1, what);
}

/* ------------------------------------------------------------------------ */

struct mstep {
	unsigned long cmd;
	int bits;
	int own;	/* the end's outputs afterwards */
	int peer;	/* the peer's inputs afterwards (null-modem wiring) */
};

static const struct mstep null_modem_steps[] = {
	{ TIOCMSET, TIOCM_DTR | TIOCM_RTS, TIOCM_DTR | TIOCM_RTS,
	  NULL_MODEM_ON },
	{ TIOCMBIC, TIOCM_RTS, TIOCM_DTR, TIOCM_DSR | TIOCM_CD },
	{ TIOCMBIC, TIOCM_DTR, 0, 0 },
	{ TIOCMBIS, TIOCM_DTR, TIOCM_DTR, TIOCM_DSR | TIOCM_CD },
	{ TIOCMBIS, TIOCM_RTS, TIOCM_DTR | TIOCM_RTS, NULL_MODEM_ON },
	{ TIOCMSET, TIOCM_RTS, TIOCM_RTS, TIOCM_CTS },
	{ TIOCMSET, 0, 0, 0 },
	{ TIOCMSET, TIOCM_OUT1 | TIOCM_OUT2, TIOCM_OUT1 | TIOCM_OUT2, 0 },
	{ TIOCMBIC, TIOCM_OUT1, TIOCM_OUT2, 0 },
	{ TIOCMBIS, TIOCM_DTR | TIOCM_RTS,
	  TIOCM_DTR | TIOCM_RTS | TIOCM_OUT2, NULL_MODEM_ON },
	{ TIOCMSET, TIOCM_DTR | TIOCM_RTS, TIOCM_DTR | TIOCM_RTS,
	  NULL_MODEM_ON },
};

/* Drive x's outputs through the steps; y's inputs follow, x's do not. */
static int null_modem_direction(int x, char xn, int y, char yn)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(null_modem_steps); i++) {
		const struct mstep *s = &null_modem_steps[i];
		char b[64];

		line_str(b, sizeof(b), s->bits);
		if (mctl(x, s->cmd, s->bits) ||
		    expect_lines(x, OUTPUTS, s->own,
				 "%c's own outputs after %s [%s] on %c",
				 xn, mcmd_str(s->cmd), b, xn) ||
		    expect_lines(y, INPUTS, s->peer,
				 "%c's inputs after %s [%s] on %c",
				 yn, mcmd_str(s->cmd), b, xn) ||
		    expect_lines(x, INPUTS, NULL_MODEM_ON,
				 "%c's own inputs after %s [%s] on %c",
				 xn, mcmd_str(s->cmd), b, xn))
			return -1;
	}
	return 0;
}

/*
 * Null-modem cable: RTS -> peer's CTS, DTR -> peer's DSR and DCD, RI not
 * connected, in both directions; TIOCMGET shows an end's own outputs as set.
 */
static int t_modem_default_wiring(void)
{
	const int idx = 10;
	int a, b;

	if (expect_wiring('A', idx, DEFAULT_WIRING) ||
	    expect_wiring('B', idx, DEFAULT_WIRING))
		return -1;
	a = port_open('A', idx, 0);
	b = port_open('B', idx, 0);
	if (a < 0 || b < 0)
		return -1;
	/* opening raised DTR and RTS on both ends */
	if (expect_lines(a, TIOCM_DTR | TIOCM_RTS, TIOCM_DTR | TIOCM_RTS,
			 "A's outputs after open") ||
	    expect_lines(b, TIOCM_DTR | TIOCM_RTS, TIOCM_DTR | TIOCM_RTS,
			 "B's outputs after open") ||
	    expect_lines(a, INPUTS, NULL_MODEM_ON, "A's inputs, both open") ||
	    expect_lines(b, INPUTS, NULL_MODEM_ON, "B's inputs, both open"))
		return -1;
	if (null_modem_direction(a, 'A', b, 'B') ||
	    null_modem_direction(b, 'B', a, 'A'))
		return -1;
	close(a);
	close(b);
	return 0;
}

/*
 * A custom cable (sysfs wiring of one end): each input follows the source
 * it is wired to, "!" inverts, "open" is the peer being open, on/off are
 * fixed levels; the other end keeps its wiring.
 */
static int t_modem_wiring_custom(void)
{
	const int idx = 11;
	const char *custom = "cts=dtr dsr=open dcd=!rts ri=out1";
	int a, b;

	if (set_wiring('B', idx, DEFAULT_WIRING))
		return -1;
	a = port_open('A', idx, 0);
	b = port_open('B', idx, 0);
	if (a < 0 || b < 0)
		return -1;
	if (set_cflag(a, 0, HUPCL) || mctl(a, TIOCMSET, TIOCM_DTR | TIOCM_RTS))
		return -1;
	if (set_wiring('B', idx, custom) ||
	    expect_wiring('B', idx, custom) ||
	    expect_wiring('A', idx, DEFAULT_WIRING))
		return -1;
	if (expect_lines(b, INPUTS, TIOCM_CTS | TIOCM_DSR,
			 "B (%s), A open with DTR RTS", custom))
		return -1;
	if (mctl(a, TIOCMBIC, TIOCM_RTS) ||
	    expect_lines(b, INPUTS, TIOCM_CTS | TIOCM_DSR | TIOCM_CD,
			 "B (%s) after A's RTS off", custom))
		return -1;
	if (mctl(a, TIOCMBIC, TIOCM_DTR) ||
	    expect_lines(b, INPUTS, TIOCM_DSR | TIOCM_CD,
			 "B (%s) after A's DTR off", custom))
		return -1;
	if (mctl(a, TIOCMBIS, TIOCM_OUT1) ||
	    expect_lines(b, INPUTS, TIOCM_DSR | TIOCM_CD | TIOCM_RI,
			 "B (%s) after A's OUT1 on", custom))
		return -1;
	if (mctl(a, TIOCMBIC, TIOCM_OUT1) ||
	    expect_lines(b, INPUTS, TIOCM_DSR | TIOCM_CD,
			 "B (%s) after A's OUT1 off", custom))
		return -1;
	if (mctl(a, TIOCMSET, TIOCM_DTR | TIOCM_RTS) ||
	    expect_lines(b, INPUTS, TIOCM_CTS | TIOCM_DSR,
			 "B (%s) after A's DTR RTS on", custom))
		return -1;
	/* A's close drops DTR and RTS (HUPCL) and "open" */
	close(a);
	if (expect_lines(b, TIOCM_CTS | TIOCM_DSR | TIOCM_CD, TIOCM_CD,
			 "B (%s) after A's close", custom))
		return -1;
	a = port_open('A', idx, 0);
	if (a < 0)
		return -1;
	if (expect_lines(b, TIOCM_CTS | TIOCM_DSR | TIOCM_CD,
			 TIOCM_CTS | TIOCM_DSR,
			 "B (%s) after A's reopen", custom))
		return -1;

	/* A's inputs still follow the default wiring */
	if (expect_lines(a, INPUTS, NULL_MODEM_ON, "A's inputs") ||
	    mctl(b, TIOCMBIC, TIOCM_RTS) ||
	    expect_lines(a, INPUTS, TIOCM_DSR | TIOCM_CD,
			 "A's inputs after B's RTS off") ||
	    mctl(b, TIOCMBIS, TIOCM_RTS))
		return -1;

	/* fixed levels, a partial write, commas as separators */
	if (set_wiring('B', idx, "cts=on,dsr=off") ||
	    expect_wiring('B', idx, "cts=on dsr=off dcd=!rts ri=out1"))
		return -1;
	if (expect_lines(b, INPUTS, TIOCM_CTS, "B (cts=on dsr=off dcd=!rts)"))
		return -1;
	if (mctl(a, TIOCMSET, 0) ||
	    expect_lines(b, INPUTS, TIOCM_CTS | TIOCM_CD,
			 "B (cts=on dsr=off dcd=!rts) after A's TIOCMSET 0"))
		return -1;
	if (mctl(a, TIOCMSET, TIOCM_DTR | TIOCM_RTS | TIOCM_OUT1) ||
	    expect_lines(b, INPUTS, TIOCM_CTS | TIOCM_RI,
			 "B (cts=on dsr=off dcd=!rts ri=out1) after A's DTR RTS OUT1 on"))
		return -1;

	/* the peer being open, inverted */
	if (set_wiring('B', idx, "dcd=!open,ri=off") ||
	    expect_wiring('B', idx, "cts=on dsr=off dcd=!open ri=off") ||
	    expect_lines(b, INPUTS, TIOCM_CTS, "B (dcd=!open ri=off), A open"))
		return -1;
	close(a);
	if (expect_lines(b, INPUTS, TIOCM_CTS | TIOCM_CD,
			 "B (dcd=!open ri=off) after A's close"))
		return -1;
	a = port_open('A', idx, 0);
	if (a < 0)
		return -1;

	/* back to the default, written as echo writes it */
	if (set_wiring('B', idx, DEFAULT_WIRING "\n") ||
	    expect_wiring('B', idx, DEFAULT_WIRING) ||
	    expect_lines(b, INPUTS, NULL_MODEM_ON, "B (default wiring again)"))
		return -1;
	if (mctl(a, TIOCMBIC, TIOCM_RTS) ||
	    expect_lines(b, INPUTS, TIOCM_DSR | TIOCM_CD,
			 "B (default wiring again) after A's RTS off"))
		return -1;
	close(a);
	close(b);
	return 0;
}

/*
 * Malformed wiring is refused with EINVAL as a whole (nothing changes);
 * a valid partial write changes only the inputs it names.
 */
static int t_modem_wiring_invalid(void)
{
	static const char *const bad[] = {
		"foo=rts", "rts=cts", "cts=foo", "cts=cts", "cts=ri",
		"cts=rts cts=dtr", "ri=open,ri=open", "\n", " ", ",",
		"cts", "cts=", "=rts", "cts=rts=dtr", "cts = rts", "dcd=!",
		"cts=!!rts", "cts=rts dsr=bogus", "dsr=dtr,ri",
	};
	const char *base = "cts=dtr dsr=rts dcd=!dtr ri=out2";
	const int idx = 12;
	char v[64], now_a[256], now_b[256], *garbage;
	size_t i;
	int a, b, r;

	if (set_wiring('B', idx, base) || expect_wiring('B', idx, base) ||
	    set_wiring('A', idx, DEFAULT_WIRING))
		return -1;
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		r = attr_write('B', idx, "wiring", bad[i]);
		if (r != -EINVAL)
			return fail("writing '%s' to the wiring: %s, expected EINVAL",
				    shown(v, sizeof(v), bad[i]),
				    r ? strerror(-r) : "success");
		if (attr_read('B', idx, "wiring", now_b, sizeof(now_b)) ||
		    attr_read('A', idx, "wiring", now_a, sizeof(now_a)))
			return fail("reading the wiring: %s", strerror(errno));
		if (strcmp(now_b, base) || strcmp(now_a, DEFAULT_WIRING))
			return fail("after the refused '%s': B's wiring '%s', A's '%s'",
				    shown(v, sizeof(v), bad[i]), now_b, now_a);
	}
	garbage = malloc(5001);
	if (!garbage)
		return fail("out of memory");
	memset(garbage, 'x', 5000);
	garbage[5000] = 0;
	r = attr_write('B', idx, "wiring", garbage);
	if (r != -EINVAL)
		return fail("writing 5000 x to the wiring: %s, expected EINVAL",
			    r ? strerror(-r) : "success");
	for (i = 0; i + 8 <= 5000; i += 8)
		memcpy(garbage + i, "cts=rts ", 8);
	garbage[i] = 0;
	r = attr_write('B', idx, "wiring", garbage);
	if (r != -EINVAL)
		return fail("writing 'cts=rts ' 625 times: %s, expected EINVAL",
			    r ? strerror(-r) : "success");
	free(garbage);
	if (expect_wiring('B', idx, base))
		return -1;
	r = attr_write('A', idx, "wiring", "cts=");
	if (r != -EINVAL)
		return fail("writing 'cts=' to A's wiring: %s, expected EINVAL",
			    r ? strerror(-r) : "success");
	if (expect_wiring('A', idx, DEFAULT_WIRING))
		return -1;

	/* the lines still follow the unchanged wiring */
	a = port_open('A', idx, 0);
	b = port_open('B', idx, 0);
	if (a < 0 || b < 0)
		return -1;
	if (mctl(a, TIOCMSET, TIOCM_DTR | TIOCM_RTS) ||
	    expect_lines(b, INPUTS, TIOCM_CTS | TIOCM_DSR,
			 "B (%s), A's DTR RTS on", base))
		return -1;

	/* a valid partial write */
	if (set_wiring('B', idx, "dsr=on") ||
	    expect_wiring('B', idx, "cts=dtr dsr=on dcd=!dtr ri=out2"))
		return -1;
	if (mctl(a, TIOCMSET, TIOCM_DTR) ||
	    expect_lines(b, INPUTS, TIOCM_CTS | TIOCM_DSR,
			 "B (cts=dtr dsr=on dcd=!dtr ri=out2), A's DTR on"))
		return -1;
	if (mctl(a, TIOCMSET, TIOCM_OUT2) ||
	    expect_lines(b, INPUTS, TIOCM_DSR | TIOCM_CD | TIOCM_RI,
			 "B (cts=dtr dsr=on dcd=!dtr ri=out2), A's OUT2 on"))
		return -1;
	if (set_wiring('B', idx, DEFAULT_WIRING) ||
	    expect_wiring('B', idx, DEFAULT_WIRING))
		return -1;
	close(a);
	close(b);
	return 0;
}

/*
 * TIOCMIWAIT sleeps until one of the masked inputs changes (a 16550's
 * modem status interrupt), other inputs do not wake it; RI counts on its
 * trailing edge only (TERI).
 */
static int t_tiocmiwait_wakes(void)
{
	static struct waiter w;
	struct serial_icounter_struct before, delta = { 0 };
	const int idx = 13;
	int a, b;

	if (set_wiring('B', idx, DEFAULT_WIRING))
		return -1;
	a = port_open('A', idx, 0);
	b = port_open('B', idx, 0);
	if (a < 0 || b < 0)
		return -1;
	if (mctl(a, TIOCMSET, TIOCM_DTR | TIOCM_RTS))
		return -1;

	/* CTS only */
	if (miwait_start(&w, b, TIOCM_CTS) || miwait_blocked(&w))
		return -1;
	msleep(QUIET_MS);
	if (still_waiting(&w, "with no change"))
		return -1;
	if (mctl(a, TIOCMBIC, TIOCM_DTR))
		return -1;
	msleep(QUIET_MS);
	if (still_waiting(&w, "for CTS when only DSR and CD changed"))
		return -1;
	if (mctl(a, TIOCMBIC, TIOCM_RTS) || woken(&w, "A's RTS went off"))
		return -1;

	/* DSR or CD */
	if (miwait_start(&w, b, TIOCM_DSR | TIOCM_CD) || miwait_blocked(&w))
		return -1;
	if (mctl(a, TIOCMBIS, TIOCM_RTS))
		return -1;
	msleep(QUIET_MS);
	if (still_waiting(&w, "for DSR|CD when only CTS changed"))
		return -1;
	if (mctl(a, TIOCMBIS, TIOCM_DTR) || woken(&w, "A's DTR went on"))
		return -1;

	/* RI, wired to A's OUT1: the trailing edge */
	if (set_wiring('B', idx, "ri=out1") ||
	    expect_lines(b, TIOCM_RI, 0, "B's RI with A's OUT1 off") ||
	    get_icount(b, &before))
		return -1;
	if (miwait_start(&w, b, TIOCM_RI) || miwait_blocked(&w))
		return -1;
	msleep(QUIET_MS);
	if (still_waiting(&w, "for RI with no change"))
		return -1;
	if (mctl(a, TIOCMBIS, TIOCM_OUT1) ||
	    expect_lines(b, TIOCM_RI, TIOCM_RI, "B's RI after A's OUT1 on"))
		return -1;
	msleep(QUIET_MS);
	if (still_waiting(&w, "for RI on its leading edge (off->on)") ||
	    expect_icount(b, &before, &delta, 0, 0,
			  "RI's leading edge (off->on)"))
		return -1;
	if (mctl(a, TIOCMBIC, TIOCM_OUT1) ||
	    woken(&w, "RI's trailing edge (A's OUT1 on->off)"))
		return -1;
	delta.rng = 1;
	if (expect_icount(b, &before, &delta, 0, 0, "RI on, then off"))
		return -1;
	if (set_wiring('B', idx, DEFAULT_WIRING))
		return -1;
	close(a);
	close(b);
	return 0;
}

/*
 * A hangup (carrier loss without CLOCAL) ends a TIOCMIWAIT with EIO, as
 * serial_core does; the hung-up end reads EOF and fails writes with EIO.
 */
static int t_tiocmiwait_hangup_eio(void)
{
	static struct waiter w;
	const int idx = 14;
	ssize_t r;
	char c;
	int a, b;

	a = port_open('A', idx, 0);
	if (a < 0 || set_cflag(a, 0, HUPCL))
		return -1;
	b = port_open_plain('B', idx, O_NONBLOCK);
	if (b < 0 || make_raw(b, 0))
		return -1;
	if (set_nonblock(b, 0))
		return fail("fcntl: %s", strerror(errno));
	if (expect_lines(b, TIOCM_CD, TIOCM_CD, "B's carrier with A open"))
		return -1;
	/* RI: not connected by default, so only the hangup can end it */
	if (miwait_start(&w, b, TIOCM_RI) || miwait_blocked(&w))
		return -1;
	msleep(QUIET_MS);
	if (still_waiting(&w, "before the hangup"))
		return -1;
	close(a);	/* HUPCL: DTR drops, B loses its carrier */
	if (!waiter_done(&w, HANGUP_MS))
		return fail("TIOCMIWAIT still waits %d ms after B lost DCD without CLOCAL",
			    HANGUP_MS);
	if (w.ret != -1 || w.err != EIO)
		return fail("TIOCMIWAIT returned %d (%s) at the hangup, expected EIO",
			    w.ret, w.ret ? strerror(w.err) : "success");
	if (readable(b, HANGUP_MS) <= 0)
		return fail("B not readable (EOF) after the hangup");
	r = read(b, &c, 1);
	if (r != 0)
		return fail("read on hung-up B returned %zd (%s), expected 0",
			    r, r < 0 ? strerror(errno) : "a byte");
	r = write(b, "x", 1);
	if (r != -1 || errno != EIO)
		return fail("write on hung-up B returned %zd (%s), expected EIO",
			    r, r < 0 ? strerror(errno) : "success");
	if (ioctl(b, TIOCMIWAIT, (unsigned long)TIOCM_CTS) != -1 ||
	    errno != EIO)
		return fail("a new TIOCMIWAIT on hung-up B did not fail with EIO");
	close(b);
	return 0;
}

/* A signal interrupts TIOCMIWAIT (EINTR without SA_RESTART). */
static int t_tiocmiwait_signal(void)
{
	static struct waiter w;
	const int idx = 15;
	int a, b;

	a = port_open('A', idx, 0);
	b = port_open('B', idx, 0);
	if (a < 0 || b < 0)
		return -1;
	if (catch_signal(SIGUSR1, 0))
		return -1;
	if (miwait_start(&w, b, INPUTS) || miwait_blocked(&w))
		return -1;
	msleep(QUIET_MS);
	if (still_waiting(&w, "before the signal"))
		return -1;
	pthread_kill(w.thread, SIGUSR1);
	if (!waiter_done(&w, WAIT_MS))
		return fail("TIOCMIWAIT still waiting %d ms after a signal",
			    WAIT_MS);
	if (w.ret != -1 || w.err != EINTR)
		return fail("TIOCMIWAIT returned %d (%s) after a signal, expected EINTR",
			    w.ret, w.ret ? strerror(w.err) : "success");
	if (!wait_signal(0))
		return fail("the signal handler did not run");
	/* the next wait works */
	if (miwait_start(&w, b, TIOCM_CTS) || miwait_blocked(&w))
		return -1;
	if (mctl(a, TIOCMBIC, TIOCM_RTS) ||
	    woken(&w, "A's RTS went off (after an interrupted wait)"))
		return -1;
	close(a);
	close(b);
	return 0;
}

/* TIOCMIWAIT with no input in its mask is refused at once (EINVAL). */
static int t_tiocmiwait_bad_mask(void)
{
	static const unsigned long masks[] = {
		0, TIOCM_RTS, TIOCM_DTR, OUTPUTS, TIOCM_LE,
	};
	static struct waiter w;
	const int idx = 16;
	size_t i;
	int b = port_open('B', idx, 0);

	if (b < 0)
		return -1;
	for (i = 0; i < ARRAY_SIZE(masks); i++) {
		if (miwait_start(&w, b, masks[i]))
			return -1;
		if (!waiter_done(&w, WAIT_MS))
			return fail("TIOCMIWAIT with mask 0x%lx waits, expected EINVAL",
				    masks[i]);
		if (w.ret != -1 || w.err != EINVAL)
			return fail("TIOCMIWAIT with mask 0x%lx returned %d (%s), expected EINVAL",
				    masks[i], w.ret,
				    w.ret ? strerror(w.err) : "success");
	}
	close(b);
	return 0;
}

/*
 * TIOCGICOUNT counts every change of CTS, DSR and DCD (16550 MSR deltas)
 * on the end that sees it, and the bytes sent and received.
 */
static int t_icount_modem_counts(void)
{
	struct serial_icounter_struct a0, b0, da = { 0 }, db = { 0 };
	unsigned char buf[100];
	const int idx = 17;
	int a, b, i;

	a = port_open('A', idx, 0);
	b = port_open('B', idx, 0);
	if (a < 0 || b < 0)
		return -1;
	if (set_wiring('B', idx, DEFAULT_WIRING) ||
	    mctl(a, TIOCMSET, TIOCM_DTR | TIOCM_RTS) ||
	    mctl(b, TIOCMSET, TIOCM_DTR | TIOCM_RTS))
		return -1;
	if (get_icount(a, &a0) || get_icount(b, &b0))
		return -1;
	for (i = 0; i < 3; i++)
		if (mctl(a, TIOCMBIC, TIOCM_RTS) || mctl(a, TIOCMBIS, TIOCM_RTS))
			return -1;
	/* already on: no change */
	if (mctl(a, TIOCMBIS, TIOCM_RTS))
		return -1;
	db.cts = 6;
	if (expect_icount(b, &b0, &db, 0, 0, "B after A's RTS toggled 3 times"))
		return -1;
	for (i = 0; i < 2; i++)
		if (mctl(a, TIOCMBIC, TIOCM_DTR) ||
		    mctl(a, TIOCMBIC, TIOCM_DTR) ||
		    mctl(a, TIOCMBIS, TIOCM_DTR))
			return -1;
	db.dsr = 4;
	db.dcd = 4;
	if (expect_icount(b, &b0, &db, 0, 0, "B after A's DTR toggled 2 times"))
		return -1;
	if (expect_icount(a, &a0, &da, 0, 0, "A after changing its own outputs"))
		return -1;
	if (mctl(b, TIOCMBIC, TIOCM_RTS) || mctl(b, TIOCMBIS, TIOCM_RTS))
		return -1;
	da.cts = 2;
	if (expect_icount(a, &a0, &da, 0, 0, "A after B's RTS toggled once"))
		return -1;

	/* bytes: A.tx and B.rx */
	for (i = 0; i < (int)sizeof(buf); i++)
		buf[i] = (unsigned char)(i * 7 + 1);
	if (write_full(a, buf, sizeof(buf)) != sizeof(buf))
		return -1;
	if (read_full(b, buf, sizeof(buf), WAIT_MS) != sizeof(buf))
		return -1;
	da.tx = 100;
	db.rx = 100;
	if (expect_icount(a, &a0, &da, 0, WAIT_MS, "A after sending 100 bytes") ||
	    expect_icount(b, &b0, &db, 0, WAIT_MS, "B after receiving 100 bytes"))
		return -1;
	if (byte_passes(b, a, 'r', "B to A"))
		return -1;
	db.tx = 1;
	da.rx = 1;
	if (expect_icount(a, &a0, &da, 0, WAIT_MS, "A after receiving 1 byte") ||
	    expect_icount(b, &b0, &db, 0, WAIT_MS, "B after sending 1 byte"))
		return -1;

	/* tx counts bytes that left, also with nobody on the other end */
	if (set_cflag(b, HUPCL, 0))	/* B's close leaves A's inputs alone */
		return -1;
	close(b);
	if (write_full(a, buf, 50) != 50)
		return -1;
	da.tx += 50;
	if (expect_icount(a, &a0, &da, 0, WAIT_MS,
			  "A after sending 50 bytes to a closed B"))
		return -1;
	close(a);
	return 0;
}

/*
 * A blocking open without CLOCAL waits for carrier (DCD), like a dial-in
 * port waiting for the modem: here until the peer opens and raises DTR.
 */
static int t_carrier_blocking_open_waits(void)
{
	static struct waiter w;
	const int idx = 18;
	int a, b;

	b = port_open('B', idx, O_NONBLOCK);
	if (b < 0 || set_cflag(b, CLOCAL, 0) ||
	    expect_lines(b, TIOCM_CD, 0, "B's carrier with A closed"))
		return -1;
	close(b);
	if (open_start(&w, 'B', idx, O_RDWR | O_NOCTTY | O_CLOEXEC) ||
	    open_blocked(&w))
		return -1;
	msleep(500);
	if (waiter_done(&w, 0))
		return fail("a blocking open of B without CLOCAL or carrier returned %d (%s)",
			    w.ret, w.ret < 0 ? strerror(w.err) : "an fd");
	a = port_open('A', idx, 0);
	if (a < 0)
		return -1;
	if (!waiter_done(&w, WAIT_MS))
		return fail("the blocking open of B still waits %d ms after A opened",
			    WAIT_MS);
	if (w.ret < 0)
		return fail("the blocking open of B failed: %s",
			    strerror(w.err));
	b = w.ret;
	if (expect_lines(b, TIOCM_CD, TIOCM_CD, "B's carrier with A open") ||
	    set_cflag(b, 0, CLOCAL))
		return -1;
	if (byte_passes(a, b, 'c', "A to B after the open"))
		return -1;
	close(b);
	close(a);
	return 0;
}

/* O_NONBLOCK opens at once without CLOCAL and without carrier. */
static int t_carrier_nonblock_open(void)
{
	static struct waiter w;
	const int idx = 19;
	int a, b;

	if (clear_clocal('B', idx))
		return -1;
	if (open_start(&w, 'B', idx,
		       O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC))
		return -1;
	if (!waiter_done(&w, WAIT_MS))
		return fail("an O_NONBLOCK open of B without CLOCAL waits for the carrier");
	if (w.ret < 0)
		return fail("the O_NONBLOCK open of B failed: %s",
			    strerror(w.err));
	b = w.ret;
	if (expect_lines(b, TIOCM_CD, 0, "B's carrier with A closed"))
		return -1;
	a = port_open('A', idx, 0);
	if (a < 0)
		return -1;
	if (expect_lines(b, TIOCM_CD, TIOCM_CD, "B's carrier after A opened"))
		return -1;
	if (byte_passes(a, b, 'n', "A to B once the carrier came"))
		return -1;
	if (set_cflag(b, 0, CLOCAL))
		return -1;
	close(b);
	close(a);
	return 0;
}

struct child_arg {
	int idx;
	int close_fd;
};

static int carrier_loss_child(int wfd, void *arg)
{
	const struct child_arg *ca = arg;
	char path[64], c;
	pid_t sid;
	ssize_t r;
	int fd;

	close(ca->close_fd);	/* A must close in the parent alone */
	if (setsid() < 0)
		return fail("setsid: %s", strerror(errno));
	snprintf(path, sizeof(path), "/dev/%s%d", TTYPAIR_NAME_B, ca->idx);
	fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);	/* ctty */
	if (fd < 0)
		return fail("open %s: %s", path, strerror(errno));
	if (ioctl(fd, TIOCGSID, &sid) || sid != getpid())
		return fail("%s did not become the controlling tty", path);
	if (make_raw(fd, 0) || catch_signal(SIGHUP, 0))
		return -1;
	if (set_nonblock(fd, 0))
		return fail("fcntl: %s", strerror(errno));
	if (expect_lines(fd, TIOCM_CD, TIOCM_CD, "B's carrier with A open"))
		return -1;
	child_ready(wfd);
	if (!wait_signal(HANGUP_MS))
		return fail("no SIGHUP within %d ms of the carrier loss",
			    HANGUP_MS);
	if (readable(fd, WAIT_MS) <= 0)
		return fail("B not readable (EOF) after the hangup");
	r = read(fd, &c, 1);
	if (r != 0)
		return fail("read after the hangup returned %zd (%s), expected 0",
			    r, r < 0 ? strerror(errno) : "a byte");
	r = write(fd, "x", 1);
	if (r != -1 || errno != EIO)
		return fail("write after the hangup returned %zd (%s), expected EIO",
			    r, r < 0 ? strerror(errno) : "success");
	return 0;
}

/*
 * Losing DCD without CLOCAL hangs the port up: SIGHUP to the session that
 * has it as controlling tty, read() returns EOF, write() fails with EIO.
 * The port can then be opened again.
 */
static int t_carrier_loss_hangup(void)
{
	struct child_arg ca = { .idx = 20 };
	struct child c;
	int a, b;

	a = port_open('A', ca.idx, 0);
	if (a < 0 || set_cflag(a, 0, HUPCL))
		return -1;
	ca.close_fd = a;
	if (child_start(&c, carrier_loss_child, &ca) || child_wait_ready(&c))
		return -1;
	msleep(100);
	close(a);	/* HUPCL: A's DTR drops, B's DCD drops */
	if (child_finish(&c, HANGUP_MS + WAIT_MS + 5000))
		return -1;

	/* a fresh open works */
	b = port_open('B', ca.idx, O_NONBLOCK);	/* CLOCAL again */
	if (b < 0)
		return -1;
	if (set_nonblock(b, 0))
		return fail("fcntl: %s", strerror(errno));
	a = port_open('A', ca.idx, 0);
	if (a < 0)
		return -1;
	if (byte_passes(a, b, 'k', "A to B after the hangup") ||
	    byte_passes(b, a, 'K', "B to A after the hangup"))
		return -1;
	close(a);
	close(b);
	return 0;
}

/*
 * HUPCL: the last close drops DTR and RTS (the peer loses DSR, DCD and
 * CTS); without HUPCL they stay up after the close.
 */
static int t_hupcl_drops_dtr(void)
{
	const int idx = 21;
	int a, b;

	b = port_open('B', idx, 0);
	a = port_open('A', idx, 0);
	if (a < 0 || b < 0)
		return -1;
	if (set_cflag(a, 0, HUPCL) ||
	    expect_lines(b, NULL_MODEM_ON, NULL_MODEM_ON, "B with A open"))
		return -1;
	close(a);
	if (expect_lines(b, NULL_MODEM_ON, 0, "B after A closed with HUPCL"))
		return -1;
	a = port_open('A', idx, 0);
	if (a < 0)
		return -1;
	if (expect_lines(b, NULL_MODEM_ON, NULL_MODEM_ON, "B with A reopened") ||
	    set_cflag(a, HUPCL, 0))
		return -1;
	close(a);
	if (expect_lines(b, NULL_MODEM_ON, NULL_MODEM_ON,
			 "B after A closed without HUPCL"))
		return -1;
	msleep(QUIET_MS);
	if (expect_lines(b, NULL_MODEM_ON, NULL_MODEM_ON,
			 "B %d ms after A closed without HUPCL", QUIET_MS))
		return -1;
	/* restore HUPCL */
	a = port_open('A', idx, 0);
	if (a < 0 || set_cflag(a, 0, HUPCL))
		return -1;
	close(a);
	if (expect_lines(b, NULL_MODEM_ON, 0,
			 "B after A closed with HUPCL again"))
		return -1;
	close(b);
	return 0;
}

/*
 * Speed B0 means "hang up": DTR and RTS drop; a real speed raises them
 * again. An open at B0 does not raise them.
 */
static int t_b0_drops_dtr(void)
{
	const int idx = 22;
	int a, b;

	a = port_open('A', idx, 0);
	b = port_open('B', idx, 0);
	if (a < 0 || b < 0)
		return -1;
	if (set_speed(a, B9600) || mctl(a, TIOCMSET, TIOCM_DTR | TIOCM_RTS) ||
	    expect_lines(b, NULL_MODEM_ON, NULL_MODEM_ON, "B, A at 9600"))
		return -1;
	if (set_speed(a, B0) ||
	    expect_lines(a, TIOCM_DTR | TIOCM_RTS, 0, "A's outputs at B0") ||
	    expect_lines(b, NULL_MODEM_ON, 0, "B after A set B0") ||
	    expect_lines(a, NULL_MODEM_ON, NULL_MODEM_ON, "A's own inputs at B0"))
		return -1;
	if (set_speed(a, B9600) ||
	    expect_lines(a, TIOCM_DTR | TIOCM_RTS, TIOCM_DTR | TIOCM_RTS,
			 "A's outputs after B0 -> 9600") ||
	    expect_lines(b, NULL_MODEM_ON, NULL_MODEM_ON,
			 "B after A went from B0 to 9600"))
		return -1;

	/* an open at B0 leaves DTR and RTS down */
	if (set_speed(a, B0))
		return -1;
	close(a);
	a = port_open_plain('A', idx, 0);
	if (a < 0)
		return -1;
	if (expect_lines(b, NULL_MODEM_ON, 0, "B after A was opened at B0"))
		return -1;
	if (set_speed(a, B9600) ||
	    expect_lines(b, NULL_MODEM_ON, NULL_MODEM_ON,
			 "B after A, opened at B0, set 9600"))
		return -1;
	close(a);
	close(b);
	return 0;
}

/*
 * A break on the line reads as one NUL byte when neither IGNBRK, BRKINT
 * nor PARMRK is set, in order with the data around it, once per break
 * (tcsendbreak, TCSBRKP, TIOCSBRK..TIOCCBRK); icount.brk counts it.
 */
static int t_break_tcsendbreak_nul(void)
{
	struct serial_icounter_struct a0, b0, da = { 0 }, db = { 0 };
	const int idx = 23;
	int a, b;

	a = port_open('A', idx, 0);
	b = port_open('B', idx, 0);
	if (a < 0 || b < 0)
		return -1;
	if (set_iflag(b, IGNBRK | BRKINT | PARMRK | INPCK | ISTRIP, 0))
		return -1;
	drain(b);
	if (get_icount(a, &a0) || get_icount(b, &b0))
		return -1;
	if (write_full(a, "x", 1) != 1)
		return -1;
	if (tcsendbreak(a, 0))
		return fail("tcsendbreak: %s", strerror(errno));
	if (write_full(a, "y", 1) != 1)
		return -1;
	if (expect_bytes(b, "x\0y", 3, "x, tcsendbreak, y"))
		return -1;
	db.brk = 1;
	if (expect_icount(b, &b0, &db, BRK_IGNORE, WAIT_MS,
			  "B after one break") ||
	    expect_icount(a, &a0, &da, BRK_IGNORE, WAIT_MS,
			  "A after sending one break"))
		return -1;

	if (ioctl(a, TCSBRKP, 0))
		return fail("TCSBRKP: %s", strerror(errno));
	if (expect_bytes(b, "\0", 1, "TCSBRKP"))
		return -1;
	db.brk = 2;
	if (expect_icount(b, &b0, &db, BRK_IGNORE, WAIT_MS, "B after TCSBRKP"))
		return -1;

	if (ioctl(a, TIOCSBRK, 0))
		return fail("TIOCSBRK: %s", strerror(errno));
	/* the break arrives when the break condition starts */
	if (expect_bytes(b, "\0", 1, "TIOCSBRK"))
		return -1;
	if (ioctl(a, TIOCCBRK, 0))
		return fail("TIOCCBRK: %s", strerror(errno));
	if (readable(b, QUIET_MS) > 0)
		return fail("TIOCCBRK delivered something more");
	db.brk = 3;
	if (expect_icount(b, &b0, &db, BRK_IGNORE, WAIT_MS,
			  "B after TIOCSBRK, TIOCCBRK"))
		return -1;
	if (byte_passes(a, b, 'z', "A to B after the breaks"))
		return -1;
	close(a);
	close(b);
	return 0;
}

/* PARMRK (without IGNBRK or BRKINT): a break reads as \377 \0 \0. */
static int t_break_parmrk(void)
{
	struct serial_icounter_struct b0, db = { 0 };
	const int idx = 24;
	int a, b;

	a = port_open('A', idx, 0);
	b = port_open('B', idx, 0);
	if (a < 0 || b < 0)
		return -1;
	if (set_iflag(b, IGNBRK | BRKINT | ISTRIP, PARMRK) || get_icount(b, &b0))
		return -1;
	drain(b);
	if (tcsendbreak(a, 0))
		return fail("tcsendbreak: %s", strerror(errno));
	if (expect_bytes(b, "\377\0\0", 3, "a break with PARMRK"))
		return -1;
	db.brk = 1;
	if (expect_icount(b, &b0, &db, BRK_IGNORE, WAIT_MS,
			  "B after a break with PARMRK"))
		return -1;
	close(a);
	close(b);
	return 0;
}

/* IGNBRK: a break is not read at all, but icount.brk still counts it. */
static int t_break_ignbrk(void)
{
	struct serial_icounter_struct b0, db = { 0 };
	const int idx = 25;
	int a, b;

	a = port_open('A', idx, 0);
	b = port_open('B', idx, 0);
	if (a < 0 || b < 0)
		return -1;
	if (set_iflag(b, BRKINT | PARMRK, IGNBRK) || get_icount(b, &b0))
		return -1;
	drain(b);
	if (tcsendbreak(a, 0))
		return fail("tcsendbreak: %s", strerror(errno));
	if (readable(b, QUIET_MS + 200) > 0)
		return fail("a break with IGNBRK made B readable");
	db.brk = 1;
	if (expect_icount(b, &b0, &db, BRK_IGNORE, WAIT_MS,
			  "B after a break with IGNBRK"))
		return -1;
	/* IGNBRK wins over PARMRK */
	if (set_iflag(b, 0, IGNBRK | PARMRK))
		return -1;
	if (tcsendbreak(a, 0))
		return fail("tcsendbreak: %s", strerror(errno));
	if (readable(b, QUIET_MS + 200) > 0)
		return fail("a break with IGNBRK and PARMRK made B readable");
	db.brk = 2;
	if (expect_icount(b, &b0, &db, BRK_IGNORE, WAIT_MS,
			  "B after a break with IGNBRK and PARMRK"))
		return -1;
	if (byte_passes(a, b, 'z', "A to B after the ignored breaks") ||
	    expect_icount(b, &b0, &db, BRK_IGNORE, WAIT_MS,
			  "B after one more byte"))
		return -1;
	close(a);
	close(b);
	return 0;
}

/* TIOCINQ of fd: unread input bytes, or -1 after fail() */
static int tty_inq(int fd)
{
	int n;

	if (ioctl(fd, TIOCINQ, &n))
		return fail("TIOCINQ: %s", strerror(errno));
	return n;
}

static int brkint_child(int wfd, void *arg)
{
	struct serial_icounter_struct b0, db = { 0 };
	const struct child_arg *ca = arg;
	unsigned char got[16];
	char path[64];
	pid_t sid;
	int fd;

	if (setsid() < 0)
		return fail("setsid: %s", strerror(errno));
	snprintf(path, sizeof(path), "/dev/%s%d", TTYPAIR_NAME_B, ca->idx);
	fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);	/* ctty */
	if (fd < 0)
		return fail("open %s: %s", path, strerror(errno));
	if (ioctl(fd, TIOCGSID, &sid) || sid != getpid())
		return fail("%s did not become the controlling tty", path);
	/* raw: ISIG off; BRKINT alone sends SIGINT */
	if (make_raw(fd, 1) || set_iflag(fd, IGNBRK | PARMRK, BRKINT))
		return -1;
	if (set_nonblock(fd, 0))
		return fail("fcntl: %s", strerror(errno));
	if (catch_signal(SIGINT, 1) || get_icount(fd, &b0))
		return -1;
	child_ready(wfd);
	if (!wait_signal(WAIT_MS + 2000))
		return fail("no SIGINT after a break with BRKINT");
	if (readable(fd, QUIET_MS) > 0) {
		ssize_t n = read(fd, got, sizeof(got));

		return fail("%zd byte(s) to read after a BRKINT break (first 0x%02x)",
			    n, n > 0 ? got[0] : 0);
	}
	db.brk = 1;
	return expect_icount(fd, &b0, &db, BRK_IGNORE, WAIT_MS,
			     "B after \"abc\" and a break");
}

/*
 * BRKINT: a break sends SIGINT to the foreground process group of the
 * terminal and flushes its queues (the serial console's "interrupt").
 */
static int t_break_brkint_sigint(void)
{
	struct child_arg ca = { .idx = 26, .close_fd = -1 };
	struct child c;
	double end;
	int a, b, n = -1;

	/* A opens first: its DTR and RTS rising are not what B counts here */
	a = port_open('A', ca.idx, 0);
	if (a < 0)
		return -1;
	if (child_start(&c, brkint_child, &ca) || child_wait_ready(&c))
		return -1;
	/* a second look at B's queues, changing nothing (no ctty) */
	b = port_open_plain('B', ca.idx, O_NONBLOCK);
	if (b < 0)
		return -1;
	if (write_full(a, "abc", 3) != 3)
		return -1;
	/* "abc" waits in B's input queue before the break comes */
	end = now() + WAIT_MS / 1000.0;
	while ((n = tty_inq(b)) >= 0 && n != 3 && now() < end)
		msleep(20);
	if (n != 3)
		return n < 0 ? -1 : fail("B's TIOCINQ is %d after \"abc\" was sent, expected 3",
					 n);
	if (tcsendbreak(a, 0))
		return fail("tcsendbreak: %s", strerror(errno));
	/* the child checks that the flush left nothing to read */
	if (child_finish(&c, 2 * WAIT_MS + 5000))
		return -1;
	close(b);
	close(a);
	return 0;
}

/* CLOCAL: the port ignores carrier loss and keeps working. */
static int t_carrier_clocal_ignores_loss(void)
{
	const int idx = 27;
	int a, b;

	a = port_open('A', idx, 0);
	b = port_open('B', idx, 0);
	if (a < 0 || b < 0)
		return -1;
	if (set_cflag(a, 0, HUPCL) ||
	    expect_lines(b, TIOCM_CD, TIOCM_CD, "B's carrier with A open"))
		return -1;
	close(a);
	if (expect_lines(b, TIOCM_CD | TIOCM_DSR, 0, "B after A's close"))
		return -1;
	msleep(500);
	if (readable(b, 0) > 0)
		return fail("B with CLOCAL polls readable (hung up?) after losing the carrier");
	if (write(b, "w", 1) != 1)
		return fail("write on B with CLOCAL after losing the carrier: %s",
			    strerror(errno));
	a = port_open('A', idx, 0);
	if (a < 0)
		return -1;
	if (byte_passes(a, b, 'q', "A to B after the carrier came back") ||
	    byte_passes(b, a, 'r', "B to A after the carrier came back"))
		return -1;
	close(a);
	close(b);
	return 0;
}

/*
 * The carrier an open waits for is the end's DCD input as wired: dcd=on
 * (a cable with DCD tied high) lets a blocking open through at once,
 * dcd=off keeps it waiting although the peer is open.
 */
static int t_carrier_follows_wiring(void)
{
	static struct waiter w;
	const int idx = 28;
	int a, b;

	if (set_wiring('B', idx, DEFAULT_WIRING) ||
	    set_wiring('B', idx, "dcd=on") ||
	    expect_wiring('B', idx, "cts=rts dsr=dtr dcd=on ri=off"))
		return -1;
	b = port_open('B', idx, O_NONBLOCK);
	if (b < 0 || set_cflag(b, CLOCAL, 0) ||
	    expect_lines(b, TIOCM_CD, TIOCM_CD, "B (dcd=on), A closed"))
		return -1;
	close(b);
	if (open_start(&w, 'B', idx, O_RDWR | O_NOCTTY | O_CLOEXEC))
		return -1;
	if (!waiter_done(&w, WAIT_MS))
		return fail("a blocking open of B with dcd=on waits");
	if (w.ret < 0)
		return fail("blocking open of B with dcd=on: %s",
			    strerror(w.err));
	close(w.ret);

	if (set_wiring('B', idx, "dcd=off"))
		return -1;
	a = port_open('A', idx, 0);
	if (a < 0)
		return -1;
	if (open_start(&w, 'B', idx, O_RDWR | O_NOCTTY | O_CLOEXEC) ||
	    open_blocked(&w))
		return -1;
	msleep(500);
	if (waiter_done(&w, 0))
		return fail("a blocking open of B with dcd=off returned %d (%s) with A open",
			    w.ret, w.ret < 0 ? strerror(w.err) : "an fd");
	if (set_wiring('B', idx, "dcd=dtr"))
		return -1;
	if (!waiter_done(&w, WAIT_MS))
		return fail("the blocking open of B waits %d ms after dcd=dtr with A open",
			    WAIT_MS);
	if (w.ret < 0)
		return fail("the blocking open of B failed: %s",
			    strerror(w.err));
	b = w.ret;
	if (set_cflag(b, 0, CLOCAL) ||
	    expect_wiring('B', idx, DEFAULT_WIRING))
		return -1;
	close(b);
	close(a);
	return 0;
}

/*
 * The peer opening and closing (raising and dropping DTR and RTS) is a
 * modem status change: it wakes TIOCMIWAIT and is counted.
 */
static int t_tiocmiwait_peer_open_close(void)
{
	static struct waiter w;
	struct serial_icounter_struct b0, db = { 0 };
	const int idx = 29;
	int a, b;

	if (set_wiring('B', idx, DEFAULT_WIRING))
		return -1;
	b = port_open('B', idx, 0);
	if (b < 0)
		return -1;
	if (expect_lines(b, NULL_MODEM_ON, 0, "B with A closed") ||
	    get_icount(b, &b0))
		return -1;
	if (miwait_start(&w, b, TIOCM_CD) || miwait_blocked(&w))
		return -1;
	msleep(QUIET_MS);
	if (still_waiting(&w, "with A closed"))
		return -1;
	a = port_open('A', idx, 0);
	if (a < 0 || woken(&w, "A opened"))
		return -1;
	db.cts = 1;
	db.dsr = 1;
	db.dcd = 1;
	if (expect_icount(b, &b0, &db, 0, 0, "B after A opened"))
		return -1;
	if (set_cflag(a, 0, HUPCL) || miwait_start(&w, b, TIOCM_DSR) ||
	    miwait_blocked(&w))
		return -1;
	msleep(QUIET_MS);
	if (still_waiting(&w, "with A open"))
		return -1;
	close(a);
	if (woken(&w, "A closed (HUPCL)"))
		return -1;
	db.cts = 2;
	db.dsr = 2;
	db.dcd = 2;
	if (expect_icount(b, &b0, &db, 0, 0, "B after A opened and closed"))
		return -1;
	close(b);
	return 0;
}

const struct test modem_tests[] = {
	{ "modem_default_wiring", t_modem_default_wiring, 30 },
	{ "modem_wiring_custom", t_modem_wiring_custom, 30 },
	{ "modem_wiring_invalid", t_modem_wiring_invalid, 30 },
	{ "tiocmiwait_wakes", t_tiocmiwait_wakes, 60 },
	{ "tiocmiwait_hangup_eio", t_tiocmiwait_hangup_eio, 60 },
	{ "tiocmiwait_signal", t_tiocmiwait_signal, 60 },
	{ "tiocmiwait_bad_mask", t_tiocmiwait_bad_mask, 60 },
	{ "tiocmiwait_peer_open_close", t_tiocmiwait_peer_open_close, 60 },
	{ "icount_modem_counts", t_icount_modem_counts, 60 },
	{ "carrier_blocking_open_waits", t_carrier_blocking_open_waits, 60 },
	{ "carrier_nonblock_open", t_carrier_nonblock_open, 60 },
	{ "carrier_loss_hangup", t_carrier_loss_hangup, 90 },
	{ "carrier_clocal_ignores_loss", t_carrier_clocal_ignores_loss, 60 },
	{ "carrier_follows_wiring", t_carrier_follows_wiring, 60 },
	{ "hupcl_drops_dtr", t_hupcl_drops_dtr, 30 },
	{ "b0_drops_dtr", t_b0_drops_dtr, 30 },
	{ "break_tcsendbreak_nul", t_break_tcsendbreak_nul, 60 },
	{ "break_parmrk", t_break_parmrk, 60 },
	{ "break_ignbrk", t_break_ignbrk, 60 },
	{ "break_brkint_sigint", t_break_brkint_sigint, 60 },
	{ NULL }
};
