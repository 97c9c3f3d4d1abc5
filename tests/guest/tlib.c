// SPDX-License-Identifier: GPL-2.0
/* Helpers of the guest's functional tests (see tlib.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "tlib.h"
#include "../../include/uapi/ttypair.h"

int npairs = 4;
char fail_msg[512];

int fail(const char *fmt, ...)
{
	va_list ap;

	if (fail_msg[0])	/* keep the first reason */
		return -1;
	va_start(ap, fmt);
	vsnprintf(fail_msg, sizeof(fail_msg), fmt, ap);
	va_end(ap);
	return -1;
}

void note(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	fflush(stdout);
}

int port_open_plain(char end, int idx, int flags)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/dev/%s%d",
		 end == 'A' ? TTYPAIR_NAME_A : TTYPAIR_NAME_B, idx);
	fd = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC | flags);
	if (fd < 0)
		return fail("open %s: %s", path, strerror(errno));
	return fd;
}

int port_open(char end, int idx, int flags)
{
	struct termios t;
	int fd = port_open_plain(end, idx, flags);

	if (fd < 0)
		return fd;
	if (tcgetattr(fd, &t)) {
		close(fd);
		return fail("tcgetattr: %s", strerror(errno));
	}
	cfmakeraw(&t);
	t.c_cflag |= CLOCAL | CREAD;
	t.c_cc[VMIN] = 1;
	t.c_cc[VTIME] = 0;
	if (tcsetattr(fd, TCSANOW, &t)) {
		close(fd);
		return fail("tcsetattr: %s", strerror(errno));
	}
	return fd;
}

int set_nonblock(int fd, int on)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0)
		return -1;
	return fcntl(fd, F_SETFL, on ? fl | O_NONBLOCK : fl & ~O_NONBLOCK);
}

static int poll_one(int fd, short ev, int ms)
{
	struct pollfd p = { .fd = fd, .events = ev };
	int r;

	do {
		r = poll(&p, 1, ms);
	} while (r < 0 && errno == EINTR);
	if (r < 0)
		return -1;
	return r > 0 && (p.revents & ev);
}

int readable(int fd, int ms)
{
	return poll_one(fd, POLLIN, ms);
}

int writable(int fd, int ms)
{
	return poll_one(fd, POLLOUT, ms);
}

ssize_t read_full(int fd, void *buf, size_t n, int ms)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r;
		int ready = readable(fd, ms);

		if (ready < 0)
			return fail("poll: %s", strerror(errno));
		if (!ready)
			return fail("only %zu of %zu bytes arrived within %d ms",
				    got, n, ms);
		r = read(fd, (char *)buf + got, n - got);
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (r < 0)
			return fail("read: %s", strerror(errno));
		if (r == 0)
			return fail("read: end of file after %zu of %zu bytes",
				    got, n);
		got += r;
	}
	return got;
}

ssize_t write_full(int fd, const void *buf, size_t n)
{
	size_t done = 0;

	while (done < n) {
		ssize_t r = write(fd, (const char *)buf + done, n - done);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return fail("write: %s after %zu of %zu bytes",
				    strerror(errno), done, n);
		done += r;
	}
	return done;
}

size_t read_upto(int fd, void *buf, size_t n, int ms)
{
	size_t got = 0;

	while (got < n && readable(fd, ms) > 0) {
		ssize_t r = read(fd, (char *)buf + got, n - got);

		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (r <= 0)
			break;
		got += r;
	}
	return got;
}

size_t drain(int fd)
{
	char buf[4096];
	size_t total = 0;
	ssize_t r;

	while (readable(fd, 0) > 0) {
		r = read(fd, buf, sizeof(buf));
		if (r <= 0)
			break;
		total += r;
	}
	return total;
}

void msleep(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

pid_t thread_id(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* The first line of /proc/self/task/<tid>/<file> into buf; 0 or -1. */
static int task_file(pid_t tid, const char *file, char *buf, size_t len)
{
	char path[64];
	ssize_t r;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/%s", (int)tid, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(buf, len, "(%s)", strerror(errno));
		return -1;
	}
	r = read(fd, buf, len - 1);
	close(fd);
	if (r < 0) {
		snprintf(buf, len, "(%s)", strerror(errno));
		return -1;
	}
	buf[r] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

/* The state letter of a task (after the ") " that ends its name), or '?'. */
static char task_state(pid_t tid)
{
	char buf[512], *p;

	if (task_file(tid, "stat", buf, sizeof(buf)))
		return '?';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] ? p[2] : '?';
}

/* "nr args... sp pc" while in a call, else "running" or "-1 ..." */
static int in_syscall(const char *sc, long nr)
{
	char *e;
	long n = strtol(sc, &e, 10);

	return e != sc && n >= 0 && (nr < 0 || n == nr);
}

int thread_sleeping(pid_t tid, long nr)
{
	char sc[256];

	return tid > 0 && task_state(tid) == 'S' &&
	       !task_file(tid, "syscall", sc, sizeof(sc)) && in_syscall(sc, nr);
}

int thread_blocked(const pid_t *tidp, long nr, int ms, const char *what)
{
	double end = now() + ms / 1000.0;
	char sc[256] = "", wchan[128] = "";
	pid_t tid;
	char st;

	for (;;) {
		tid = __atomic_load_n(tidp, __ATOMIC_SEQ_CST);
		if (thread_sleeping(tid, nr))
			return 0;
		if (now() >= end)
			break;
		msleep(10);
	}
	if (tid <= 0)
		return fail("%s: the thread did not start within %d ms", what, ms);
	st = task_state(tid);
	if (st == '?')
		return fail("%s: thread %d ended instead of waiting in system call %ld",
			    what, (int)tid, nr);
	task_file(tid, "syscall", sc, sizeof(sc));
	task_file(tid, "wchan", wchan, sizeof(wchan));
	return fail("%s: thread %d is not asleep in system call %ld after %d ms: state %c, syscall '%.40s', wchan '%s'",
		    what, (int)tid, nr, ms, st, sc, wchan);
}

uint32_t rnd(uint64_t *state)
{
	/* xorshift64*: fast, and the same sequence for the same seed */
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return (uint32_t)((x * 0x2545F4914F6CDD1DULL) >> 32);
}

void stream_init(struct stream *s, uint64_t seed)
{
	s->state = seed ? seed : 1;
	s->pos = 0;
}

void stream_fill(struct stream *s, unsigned char *buf, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		buf[i] = (unsigned char)rnd(&s->state);
	s->pos += n;
}

int stream_check(struct stream *s, const unsigned char *buf, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char want = (unsigned char)rnd(&s->state);

		if (buf[i] != want)
			return fail("byte %llu is 0x%02x, expected 0x%02x",
				    (unsigned long long)(s->pos + i), buf[i],
				    want);
	}
	s->pos += n;
	return 0;
}

static void attr_path(char *path, size_t len, char end, int idx,
		      const char *attr)
{
	snprintf(path, len, "/sys/class/tty/%s%d/%s",
		 end == 'A' ? TTYPAIR_NAME_A : TTYPAIR_NAME_B, idx, attr);
}

int attr_write(char end, int idx, const char *attr, const char *val)
{
	char path[128];

	attr_path(path, sizeof(path), end, idx, attr);
	return file_write(path, val);
}

int attr_read(char end, int idx, const char *attr, char *buf, size_t len)
{
	char path[128];

	attr_path(path, sizeof(path), end, idx, attr);
	return file_read(path, buf, len);
}

int file_write(const char *path, const char *val)
{
	ssize_t r;
	int fd, err;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = write(fd, val, strlen(val));
	err = r < 0 ? -errno : 0;
	close(fd);
	return err;
}

int file_read(const char *path, char *buf, size_t len)
{
	ssize_t r;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = read(fd, buf, len - 1);
	err = r < 0 ? -errno : 0;
	close(fd);
	if (r < 0)
		r = 0;
	buf[r] = 0;
	if (r && buf[r - 1] == '\n')
		buf[r - 1] = 0;
	return err;
}

int configfs_mounted(void)
{
	const char *cfg = "/sys/kernel/config/ttypair";
	struct stat st;

	if (!stat(cfg, &st))
		return 0;
	if (mount("configfs", "/sys/kernel/config", "configfs", 0, NULL) &&
	    errno != EBUSY)
		return fail("mounting configfs: %s", strerror(errno));
	if (stat(cfg, &st))
		return fail("no %s", cfg);
	return 0;
}

int modem_get(int fd)
{
	int m;

	if (ioctl(fd, TIOCMGET, &m))
		return fail("TIOCMGET: %s", strerror(errno));
	return m;
}

static int set_termios_flags(int fd, tcflag_t *(*field)(struct termios *),
			     unsigned int clear, unsigned int set)
{
	struct termios t;

	if (tcgetattr(fd, &t))
		return fail("tcgetattr: %s", strerror(errno));
	*field(&t) = (*field(&t) & ~clear) | set;
	if (tcsetattr(fd, TCSANOW, &t))
		return fail("tcsetattr: %s", strerror(errno));
	return 0;
}

static tcflag_t *cflag_of(struct termios *t)
{
	return &t->c_cflag;
}

static tcflag_t *iflag_of(struct termios *t)
{
	return &t->c_iflag;
}

int set_cflag(int fd, unsigned int clear, unsigned int set)
{
	return set_termios_flags(fd, cflag_of, clear, set);
}

int set_iflag(int fd, unsigned int clear, unsigned int set)
{
	return set_termios_flags(fd, iflag_of, clear, set);
}

int set_speed(int fd, unsigned int speed)
{
	struct termios t;

	if (tcgetattr(fd, &t))
		return fail("tcgetattr: %s", strerror(errno));
	cfsetspeed(&t, speed);
	if (tcsetattr(fd, TCSANOW, &t))
		return fail("tcsetattr: %s", strerror(errno));
	return 0;
}
