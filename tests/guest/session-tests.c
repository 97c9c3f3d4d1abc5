// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of the session device, /dev/ttypair-session: a pair for each open
 * file, gone with its last close; its ioctls, each number at its limits.
 * Run as root by ttypair-test with the module loaded (its default
 * max_sessions_per_user, 32); the tests as an ordinary user, with udev's
 * group and mode, are the shell steps of session-tests.sh.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "tlib.h"
#include "../../include/uapi/ttypair.h"

#define SESSION_DEV	"/dev/" TTYPAIR_SESSION_DEVICE
#define CFG_DIR		"/sys/kernel/config/ttypair"

static int session_open(int flags)
{
	int fd = open(SESSION_DEV, flags | O_CLOEXEC);

	if (fd < 0)
		fail("open %s: %s", SESSION_DEV, strerror(errno));
	return fd;
}

static int session_info(int fd, struct ttypair_session_info *info)
{
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	if (ioctl(fd, TTYPAIR_IOC_INFO, info))
		return fail("TTYPAIR_IOC_INFO: %s", strerror(errno));
	return 0;
}

/* Whether pair idx's A end is registered (its sysfs directory) */
static int pair_exists(unsigned int idx)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/sys/class/tty/%s%u", TTYPAIR_NAME_A, idx);
	return !stat(path, &st);
}

/* Wait up to ms for pair idx to be gone; 0, or -1 after fail() */
static int pair_gone(unsigned int idx, int ms, const char *after)
{
	double t0 = now();

	while (pair_exists(idx)) {
		if ((now() - t0) * 1000 > ms)
			return fail("pair %u still there %d ms after %s", idx, ms,
				    after);
		msleep(10);
	}
	return 0;
}

static int set_attr(int fd, __u32 attr, __u32 end, const char *val)
{
	struct ttypair_attr_value v = { .attr = attr, .end = end };

	snprintf(v.value, sizeof(v.value), "%s", val);
	return ioctl(fd, TTYPAIR_IOC_SET_ATTR, &v) ? -errno : 0;
}

static int get_attr(int fd, __u32 attr, __u32 end, char *buf, size_t len)
{
	struct ttypair_attr_value v = { .attr = attr, .end = end };

	if (ioctl(fd, TTYPAIR_IOC_GET_ATTR, &v))
		return -errno;
	snprintf(buf, len, "%s", v.value);
	return 0;
}

/*
 * A session's pair: its index and devices, data both ways through its
 * ends, and on close both ends hung up and the pair removed.
 */
static int t_session_pair(void)
{
	struct ttypair_session_info info;
	char want[32], buf[8];
	int s, a, b;

	s = session_open(O_RDWR);
	if (s < 0 || session_info(s, &info))
		return -1;
	if (info.size != sizeof(info) || info.version != TTYPAIR_SESSION_VERSION ||
	    info.flags)
		return fail("info: size %u version %u flags %u", info.size,
			    info.version, info.flags);
	snprintf(want, sizeof(want), "%s%u", TTYPAIR_NAME_A, info.index);
	if (strcmp(info.device_a, want))
		return fail("device_a '%s', expected '%s'", info.device_a, want);
	snprintf(want, sizeof(want), "%s%u", TTYPAIR_NAME_B, info.index);
	if (strcmp(info.device_b, want))
		return fail("device_b '%s', expected '%s'", info.device_b, want);
	if (info.index < (unsigned int)npairs)
		return fail("a session got index %u, a pair of pairs=", info.index);
	a = port_open('A', info.index, 0);
	b = port_open('B', info.index, 0);
	if (a < 0 || b < 0)
		return -1;
	if (write_full(a, "ping", 4) != 4 || read_full(b, buf, 4, 2000) != 4 ||
	    memcmp(buf, "ping", 4))
		return fail("A to B: no ping");
	if (write_full(b, "pong", 4) != 4 || read_full(a, buf, 4, 2000) != 4 ||
	    memcmp(buf, "pong", 4))
		return fail("B to A: no pong");
	close(s);
	if (pair_gone(info.index, 5000, "the session's close"))
		return -1;
	/* both ends hung up: end of file, and writes fail */
	if (read(b, buf, 1) != 0)
		return fail("B after the close: read gave no end of file (%s)",
			    strerror(errno));
	if (write(a, "x", 1) >= 0 || errno != EIO)
		return fail("A after the close: write did not fail with EIO");
	close(a);
	close(b);
	note("session pair %u: data both ways, removed and hung up on close",
	     info.index);
	return 0;
}

/* TTYPAIR_IOC_INFO's size at its limits: the caller's size is respected */
static int t_session_info_size(void)
{
	static const __u32 sizes[] = {
		0, 1, TTYPAIR_SESSION_INFO_SIZE_V1 - 1, TTYPAIR_SESSION_INFO_SIZE_V1,
		TTYPAIR_SESSION_INFO_SIZE_V1 + 1, 4096, 0x7fffffffU, 0x80000000U,
		0xffffffffU,
	};
	struct {
		struct ttypair_session_info info;
		unsigned char after[64];
	} big;
	size_t i, k;
	int s, ret;

	s = session_open(O_RDWR);
	if (s < 0)
		return -1;
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		memset(&big, 0xa5, sizeof(big));
		big.info.size = sizes[i];
		ret = ioctl(s, TTYPAIR_IOC_INFO, &big.info);
		if (sizes[i] < TTYPAIR_SESSION_INFO_SIZE_V1) {
			if (ret != -1 || errno != EINVAL)
				return fail("size %u: %d (%s), expected EINVAL",
					    sizes[i], ret, strerror(errno));
			continue;
		}
		if (ret)
			return fail("size %u: %s", sizes[i], strerror(errno));
		if (big.info.size != sizeof(big.info))
			return fail("size %u: filled %u", sizes[i], big.info.size);
		for (k = 0; k < sizeof(big.after); k++)
			if (big.after[k] != 0xa5)
				return fail("size %u: wrote past the structure", sizes[i]);
	}
	if (ioctl(s, TTYPAIR_IOC_INFO, NULL) != -1 || errno != EFAULT)
		return fail("INFO with a NULL pointer: not EFAULT");
	if (ioctl(s, _IO(TTYPAIR_IOC_MAGIC, 0x7f), 0) != -1 || errno != ENOTTY)
		return fail("an unknown ioctl: not ENOTTY");
	if (ioctl(s, TCGETS, &big) != -1 || errno != ENOTTY)
		return fail("TCGETS: not ENOTTY");
	close(s);
	return 0;
}

/*
 * Settings through the session: each attribute, the values sysfs refuses
 * refused the same (EINVAL, nothing changed), the identifiers at their
 * limits.
 */
static int t_session_attrs(void)
{
	static const struct {
		__u32 attr;
		const char *val;	/* taken */
		const char *shown;	/* what GET_ATTR gives then */
		const char *bad;	/* refused */
		const char *sysfs;	/* the sysfs file that shows it */
	} cases[] = {
		{ TTYPAIR_ATTR_BAUD_EMULATION, "1", "1", "2", "baud_emulation" },
		{ TTYPAIR_ATTR_STRICT, "on", "1", "maybe", "strict" },
		{ TTYPAIR_ATTR_NOISE_PPM, "1000000", "1000000", "1000001", "noise_ppm" },
		{ TTYPAIR_ATTR_NOISE_SEED, "18446744073709551615",
		  "18446744073709551615", "18446744073709551616", "noise_seed" },
		{ TTYPAIR_ATTR_WIRING, "ri=on", "cts=rts dsr=dtr dcd=dtr ri=on",
		  "ri=sometimes", "wiring" },
		{ TTYPAIR_ATTR_INJECT, "parity", "parity", "smoke", "inject" },
		{ TTYPAIR_ATTR_RS485, "enabled rts_after_send delay_rts_before_send=4294967295",
		  "enabled rts_after_send delay_rts_before_send=100 delay_rts_after_send=0",
		  "enabled delay_rts_after_send=4294967296", "rs485" },
	};
	static const __u32 bad_ids[] = { 0, 8, 0x7fffffffU, 0x80000000U, 0xffffffffU };
	static const __u32 bad_ends[] = { 2, 0x7fffffffU, 0x80000000U, 0xffffffffU };
	struct ttypair_session_info info;
	struct ttypair_attr_value v;
	char got[TTYPAIR_ATTR_VALUE_MAX], sys[TTYPAIR_ATTR_VALUE_MAX];
	size_t i;
	int s, ret;

	s = session_open(O_RDWR);
	if (s < 0 || session_info(s, &info))
		return -1;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ret = set_attr(s, cases[i].attr, TTYPAIR_END_B_ID, cases[i].val);
		if (ret)
			return fail("%s=%s: %s", cases[i].sysfs, cases[i].val,
				    strerror(-ret));
		ret = get_attr(s, cases[i].attr, TTYPAIR_END_B_ID, got, sizeof(got));
		if (ret || strcmp(got, cases[i].shown))
			return fail("%s reads '%s' (%s), expected '%s'", cases[i].sysfs,
				    got, strerror(-ret), cases[i].shown);
		if (attr_read('B', info.index, cases[i].sysfs, sys, sizeof(sys)) ||
		    strcmp(sys, got))
			return fail("sysfs %s reads '%s', the ioctl '%s'",
				    cases[i].sysfs, sys, got);
		ret = set_attr(s, cases[i].attr, TTYPAIR_END_B_ID, cases[i].bad);
		if (ret != -EINVAL)
			return fail("%s=%s: %s, expected EINVAL", cases[i].sysfs,
				    cases[i].bad, strerror(-ret));
		get_attr(s, cases[i].attr, TTYPAIR_END_B_ID, got, sizeof(got));
		if (strcmp(got, cases[i].shown))
			return fail("%s changed to '%s' by a refused value",
				    cases[i].sysfs, got);
	}
	/* a setting of the pair reads the same on the other end */
	if (get_attr(s, TTYPAIR_ATTR_NOISE_PPM, TTYPAIR_END_A_ID, got, sizeof(got)) ||
	    strcmp(got, "1000000"))
		return fail("noise_ppm on A reads '%s'", got);
	/* one error per character: another kind while one waits */
	if (set_attr(s, TTYPAIR_ATTR_INJECT, TTYPAIR_END_B_ID, "frame") != -EBUSY)
		return fail("inject=frame over a pending parity: not EBUSY");
	for (i = 0; i < sizeof(bad_ids) / sizeof(bad_ids[0]); i++)
		if (set_attr(s, bad_ids[i], 0, "1") != -EINVAL ||
		    get_attr(s, bad_ids[i], 0, got, sizeof(got)) != -EINVAL)
			return fail("attribute %u: not EINVAL", bad_ids[i]);
	for (i = 0; i < sizeof(bad_ends) / sizeof(bad_ends[0]); i++)
		if (set_attr(s, TTYPAIR_ATTR_STRICT, bad_ends[i], "0") != -EINVAL ||
		    get_attr(s, TTYPAIR_ATTR_STRICT, bad_ends[i], got, sizeof(got)) != -EINVAL)
			return fail("end %u: not EINVAL", bad_ends[i]);
	/* a value that fills the field without its NUL */
	memset(&v, 0, sizeof(v));
	v.attr = TTYPAIR_ATTR_STRICT;
	memset(v.value, '1', sizeof(v.value));
	if (ioctl(s, TTYPAIR_IOC_SET_ATTR, &v) != -1 || errno != EINVAL)
		return fail("a value without its NUL: not EINVAL");
	if (ioctl(s, TTYPAIR_IOC_SET_ATTR, NULL) != -1 || errno != EFAULT ||
	    ioctl(s, TTYPAIR_IOC_GET_ATTR, NULL) != -1 || errno != EFAULT)
		return fail("SET_ATTR or GET_ATTR with a NULL pointer: not EFAULT");
	close(s);
	return 0;
}

/* Opened read-only, the device makes no pair: its ioctls say ENXIO */
static int t_session_readonly(void)
{
	struct ttypair_session_info info = { .size = sizeof(info) };
	int s, first, probe;

	probe = session_open(O_RDWR);
	if (probe < 0 || session_info(probe, &info))
		return -1;
	first = info.index;
	close(probe);
	if (pair_gone(first, 5000, "close"))
		return -1;
	s = session_open(O_RDONLY);
	if (s < 0)
		return -1;
	if (pair_exists(first))
		return fail("a read-only open made pair %d", first);
	info.size = sizeof(info);
	if (ioctl(s, TTYPAIR_IOC_INFO, &info) != -1 || errno != ENXIO)
		return fail("INFO on a read-only open: not ENXIO (%s)",
			    strerror(errno));
	close(s);
	return 0;
}

/* A session's file survives its opener: SCM_RIGHTS, and exec */
static int t_session_fd_passing(void)
{
	struct ttypair_session_info info;
	char cbuf[CMSG_SPACE(sizeof(int))], c = 0;
	struct iovec iov = { .iov_base = &c, .iov_len = 1 };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm;
	int sv[2], s, got, status;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return fail("socketpair: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		return fail("fork: %s", strerror(errno));
	if (!pid) {
		/* the opener: hand the descriptor over, and go */
		s = open(SESSION_DEV, O_RDWR | O_CLOEXEC);
		if (s < 0)
			_exit(1);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &s, sizeof(int));
		_exit(sendmsg(sv[0], &mh, 0) == 1 ? 0 : 2);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return fail("the opener failed (status %d)", status);
	if (recvmsg(sv[1], &mh, 0) != 1 || !(cm = CMSG_FIRSTHDR(&mh)) ||
	    cm->cmsg_type != SCM_RIGHTS)
		return fail("no descriptor came");
	memcpy(&got, CMSG_DATA(cm), sizeof(int));
	close(sv[0]);
	close(sv[1]);
	if (session_info(got, &info))
		return -1;
	if (!pair_exists(info.index))
		return fail("pair %u went with its opener", info.index);

	/* inherited across exec: the pair lives while the new program runs */
	pid = fork();
	if (pid < 0)
		return fail("fork: %s", strerror(errno));
	if (!pid) {
		fcntl(got, F_SETFD, 0);
		execlp("sleep", "sleep", "1", (char *)NULL);
		_exit(127);
	}
	close(got);
	msleep(300);
	if (!pair_exists(info.index))
		return fail("pair %u went while sleep(1) still had it", info.index);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return fail("sleep failed (status %d)", status);
	if (pair_gone(info.index, 5000, "the last holder's exit"))
		return -1;
	note("pair %u: passed over a socket, then inherited across exec", info.index);
	return 0;
}

/*
 * kill -9 of the owner removes the pair and hangs up the end another
 * process reads from
 */
static int t_session_kill_owner(void)
{
	struct ttypair_session_info info;
	struct pollfd pfd;
	int p[2], b, status;
	char buf[4];
	pid_t pid;

	if (pipe(p))
		return fail("pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		return fail("fork: %s", strerror(errno));
	if (!pid) {
		int s = open(SESSION_DEV, O_RDWR | O_CLOEXEC);

		if (s < 0 || session_info(s, &info))
			_exit(1);
		if (write(p[1], &info, sizeof(info)) != sizeof(info))
			_exit(2);
		for (;;)
			pause();
	}
	close(p[1]);
	if (read(p[0], &info, sizeof(info)) != sizeof(info)) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return fail("the owner did not make its session");
	}
	close(p[0]);
	b = port_open('B', info.index, 0);
	if (b < 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return -1;
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	pfd.fd = b;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, 5000) != 1 || !(pfd.revents & (POLLHUP | POLLIN)))
		return fail("B not hung up after kill -9 of the owner (revents %#x)",
			    pfd.revents);
	if (read(b, buf, sizeof(buf)) != 0)
		return fail("B after kill -9 of the owner: no end of file");
	close(b);
	return pair_gone(info.index, 5000, "kill -9 of the owner");
}

/* max_sessions_per_user (32 by default) holds, per user: root's here */
static int t_session_user_limit(void)
{
	int fds[64], n, i, ret = 0, extra;

	for (n = 0; n < 64; n++) {
		fds[n] = open(SESSION_DEV, O_RDWR | O_CLOEXEC);
		if (fds[n] < 0)
			break;
	}
	if (n != 32 || errno != EDQUOT)
		ret = fail("%d sessions, then %s; expected 32, then EDQUOT", n,
			   strerror(errno));
	/* a read-only open makes no pair, and is not counted */
	extra = open(SESSION_DEV, O_RDONLY | O_CLOEXEC);
	if (!ret && extra < 0)
		ret = fail("a read-only open at the limit: %s", strerror(errno));
	if (extra >= 0)
		close(extra);
	for (i = 0; i < n; i++)
		close(fds[i]);
	/* and the count goes down with each close */
	extra = open(SESSION_DEV, O_RDWR | O_CLOEXEC);
	if (!ret && extra < 0)
		ret = fail("after closing them all: %s", strerror(errno));
	if (extra >= 0)
		close(extra);
	return ret;
}


/* --- the monitor ------------------------------------------------------- */

struct recs {
	unsigned char buf[1 << 20];
	size_t len;
	int n;
};

/* Read every record there is now (O_NONBLOCK until EAGAIN) */
static int mon_drain(int fd, struct recs *r)
{
	ssize_t got;

	set_nonblock(fd, 1);
	for (;;) {
		if (r->len + 8192 > sizeof(r->buf))
			return fail("more than %zu bytes of records", sizeof(r->buf));
		got = read(fd, r->buf + r->len, 8192);
		if (got < 0 && errno == EAGAIN)
			break;
		if (got <= 0)
			return fail("reading the monitor: %zd (%s)", got,
				    strerror(errno));
		r->len += got;
	}
	set_nonblock(fd, 0);
	return 0;
}

/* The record at offset *off, moving *off past it; NULL at the end */
static const struct ttypair_record *rec_next(const struct recs *r,
					     size_t *off)
{
	const struct ttypair_record *rec;

	if (*off + sizeof(*rec) > r->len)
		return NULL;
	rec = (const void *)(r->buf + *off);
	*off += (sizeof(*rec) + rec->len + 7) & ~(size_t)7;
	return rec;
}

/* Records well formed: seq from 0 up, time never back, sizes in bounds */
static int recs_check(const struct recs *r, int *count)
{
	const struct ttypair_record *rec;
	unsigned long long last = 0;
	unsigned int seq = 0;
	size_t off = 0;
	int n = 0;

	while ((rec = rec_next(r, &off))) {
		const unsigned char *p = (const unsigned char *)(rec + 1) + rec->len;

		if (off > r->len)
			return fail("record %d runs past the read", n);
		for (; p < r->buf + off; p++)
			if (*p)
				return fail("record %d: its padding is not zero", n);
		if (rec->seq != seq)
			return fail("record %d has seq %u, expected %u", n, rec->seq, seq);
		if (rec->time_ns < last)
			return fail("record %d goes back in time", n);
		last = rec->time_ns;
		seq++;
		n++;
	}
	if (off != r->len)
		return fail("%zu bytes after the last whole record", r->len - off);
	*count = n;
	return 0;
}

static int monitor_start(int fd, __u32 kind, __u32 index, __u32 buffer)
{
	struct ttypair_monitor_target t = {
		.kind = kind, .index = index, .buffer = buffer,
	};

	return ioctl(fd, TTYPAIR_IOC_MONITOR, &t) ? -errno : 0;
}

/*
 * A session with baud-rate emulation on or off, its monitor started with a
 * ring of @buffer bytes, and both ends of its pair open raw: 0, or -1
 * after fail()
 */
static int monitored_session(__u32 buffer, int baud_emulation,
			     struct ttypair_session_info *info, int *s, int *a,
			     int *b)
{
	*s = session_open(O_RDWR);
	if (*s < 0 || session_info(*s, info))
		return -1;
	if (baud_emulation && set_attr(*s, TTYPAIR_ATTR_BAUD_EMULATION, 0, "1"))
		return fail("baud_emulation=1: %s", strerror(errno));
	if (monitor_start(*s, TTYPAIR_MONITOR_SELF, 0, buffer))
		return fail("TTYPAIR_IOC_MONITOR: %s", strerror(errno));
	*a = port_open('A', info->index, 0);
	*b = port_open('B', info->index, 0);
	return *a < 0 || *b < 0 ? -1 : 0;
}

/*
 * A script on a session pair: the monitor's records say what happened, in
 * order: opens, data each way, RTS off and on, DTR off and on, a speed
 * change, a break on
 * and off, an injected parity error with the character it hit, a close.
 */
static int t_monitor_script(void)
{
	static const struct {
		__u16 type;
		__u8 port;
		__u32 value;
		const char *data;
	} want[] = {
		{ TTYPAIR_REC_OPEN, 0, 0, NULL },
		{ TTYPAIR_REC_OPEN, 1, 0, NULL },
		{ TTYPAIR_REC_DATA, 0, 0, "hello" },
		{ TTYPAIR_REC_DATA, 1, 0, "world!" },
		{ TTYPAIR_REC_MODEM, 0, TIOCM_DTR, NULL },
		{ TTYPAIR_REC_MODEM, 0, TIOCM_DTR | TIOCM_RTS, NULL },
		{ TTYPAIR_REC_MODEM, 0, TIOCM_RTS, NULL },
		{ TTYPAIR_REC_MODEM, 0, TIOCM_DTR | TIOCM_RTS, NULL },
		{ TTYPAIR_REC_TERMIOS, 1, 19200, NULL },
		{ TTYPAIR_REC_BREAK, 0, 1, NULL },
		{ TTYPAIR_REC_BREAK, 0, 0, NULL },
		{ TTYPAIR_REC_ERROR, 1, TTYPAIR_REC_ERR_PARITY, NULL },
		{ TTYPAIR_REC_DATA, 0, 0, "x" },
		{ TTYPAIR_REC_CLOSE, 0, 0, NULL },
	};
	static struct recs r;
	const struct ttypair_record *rec;
	struct ttypair_session_info info;
	int s, a, b, rts = TIOCM_RTS, dtr = TIOCM_DTR, n = 0;
	size_t off = 0, w = 0;
	char buf[16];

	if (monitored_session(65536, 0, &info, &s, &a, &b))
		return -1;
	if (write_full(a, "hello", 5) != 5 || read_full(b, buf, 5, 2000) != 5 ||
	    write_full(b, "world!", 6) != 6 || read_full(a, buf, 6, 2000) != 6)
		return fail("the data did not go through");
	if (ioctl(a, TIOCMBIC, &rts) || ioctl(a, TIOCMBIS, &rts) ||
	    ioctl(a, TIOCMBIC, &dtr) || ioctl(a, TIOCMBIS, &dtr))
		return fail("TIOCMBIC/TIOCMBIS: %s", strerror(errno));
	if (set_speed(b, B19200))
		return -1;
	if (ioctl(a, TIOCSBRK) || ioctl(a, TIOCCBRK))
		return fail("TIOCSBRK/TIOCCBRK: %s", strerror(errno));
	if (read_upto(b, buf, sizeof(buf), 300) != 1)
		return fail("B did not get the break as one NUL");
	if (set_attr(s, TTYPAIR_ATTR_INJECT, TTYPAIR_END_B_ID, "parity"))
		return fail("inject=parity: %s", strerror(errno));
	if (write_full(a, "x", 1) != 1 || read_full(b, buf, 1, 2000) != 1)
		return fail("x did not go through");
	close(a);
	if (mon_drain(s, &r) || recs_check(&r, &n))
		return -1;
	/* the script's records in order; others (the opens' settings) between */
	while (w < sizeof(want) / sizeof(want[0]) && (rec = rec_next(&r, &off))) {
		if (rec->type != want[w].type || rec->port != want[w].port)
			continue;
		if (rec->type == TTYPAIR_REC_DATA) {
			if (rec->len != strlen(want[w].data) ||
			    memcmp(rec + 1, want[w].data, rec->len))
				return fail("data record %u of port %u: %u bytes, expected '%s'",
					    rec->seq, rec->port, rec->len, want[w].data);
		} else if (rec->type == TTYPAIR_REC_TERMIOS) {
			const struct ttypair_record_line *rl = (const void *)(rec + 1);

			if (rec->len != sizeof(*rl) || rl->baud != want[w].value)
				continue;	/* an earlier change of the same end */
		} else if (rec->type == TTYPAIR_REC_MODEM) {
			if (rec->value != want[w].value)
				continue;
		} else if (rec->value != want[w].value) {
			return fail("record %u (type %u, port %u): value %u, expected %u",
				    rec->seq, rec->type, rec->port, rec->value,
				    want[w].value);
		}
		w++;
	}
	if (w < sizeof(want) / sizeof(want[0]))
		return fail("%d records; missing the script's step %zu (type %u, port %u)",
			    n, w, want[w].type, want[w].port);
	close(b);
	close(s);
	note("%d records, the script's %zu in order", n, w);
	return 0;
}

/*
 * A monitor that is not read never holds the data back: 256 KiB through a
 * pair whose monitor has 4096 bytes; the records that did not fit are
 * counted in DROPPED records whose counts are the gaps in the numbers
 */
static int t_monitor_overflow(void)
{
	static unsigned char data[65536], got[65536];
	static struct recs r;
	const struct ttypair_record *rec;
	struct ttypair_session_info info;
	unsigned long long dropped = 0, gaps = 0;
	/* 64 writes of 4 KiB: 256 KiB through a 4096-byte monitor */
	unsigned int next = 0;
	int s, a, b, i, drops = 0;
	size_t off = 0;

	if (monitored_session(4096, 0, &info, &s, &a, &b))
		return -1;
	memset(data, 0x5a, sizeof(data));
	for (i = 0; i < 64; i++)
		if (write_full(a, data, 4096) != 4096 ||
		    read_full(b, got, 4096, 5000) != 4096)
			return fail("4 KiB #%d did not go through", i);
	if (mon_drain(s, &r))
		return -1;
	/* every gap in the numbers comes just before a note that counts it */
	while ((rec = rec_next(&r, &off))) {
		if (rec->seq < next)
			return fail("seq %u after %u", rec->seq, next);
		if (rec->type == TTYPAIR_REC_DROPPED) {
			if (rec->value != rec->seq - next)
				return fail("DROPPED (seq %u) counts %u, %u numbers are missing",
					    rec->seq, rec->value, rec->seq - next);
			dropped += rec->value;
			drops++;
		} else if (rec->seq != next) {
			return fail("seq %u after %u, without a DROPPED record", rec->seq,
				    next - 1);
		}
		gaps += rec->seq - next;
		next = rec->seq + 1;
	}
	if (!drops || dropped != gaps)
		return fail("%d DROPPED records counting %llu, %llu numbers missing",
			    drops, dropped, gaps);
	close(a);
	close(b);
	close(s);
	note("4096-byte monitor: %d DROPPED records, %llu dropped, %llu numbers missing",
	     drops, dropped, gaps);
	return 0;
}


/* The first record of a type about a port in what was read; NULL if none */
static const struct ttypair_record *rec_find(const struct recs *r, __u16 type,
					     int port)
{
	const struct ttypair_record *rec;
	size_t off = 0;

	while ((rec = rec_next(r, &off)))
		if (rec->type == type && (port < 0 || rec->port == port))
			return rec;
	return NULL;
}

/* Open a device raw, 8 bits, no echo; -1 on failure */
static int raw_open(const char *path)
{
	struct termios t;
	int fd = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (tcgetattr(fd, &t) == 0) {
		cfmakeraw(&t);
		t.c_cflag |= CLOCAL | CREAD;
		if (tcsetattr(fd, TCSANOW, &t) == 0)
			return fd;
	}
	close(fd);
	return -1;
}

/*
 * Root attaches a monitor to a configfs pair and to one port of a bus, on
 * files opened read-only; the bus port's monitor sees the line's data and
 * its own port's events. Someone else may not; the pair's removal ends the
 * monitor: a REMOVED record, POLLHUP, then end of file.
 */
static int t_monitor_attach(void)
{
	static struct recs r;
	const struct ttypair_record *rec;
	char dev[64], path[96], list[256];
	struct pollfd pfd;
	int m, mb, a, b, p0, p1, status, idx, line0;
	pid_t pid;

	if (configfs_mounted())
		return -1;
	rmdir(CFG_DIR "/buses/monbus");
	rmdir(CFG_DIR "/monpair");
	if (mkdir(CFG_DIR "/monpair", 0755) ||
	    file_read(CFG_DIR "/monpair/device_a", dev, sizeof(dev)))
		return fail("making the pair monpair: %s", strerror(errno));
	idx = atoi(dev + strlen(TTYPAIR_NAME_A));
	if (mkdir(CFG_DIR "/buses/monbus", 0755) ||
	    file_write(CFG_DIR "/buses/monbus/ports", "3") ||
	    file_read(CFG_DIR "/buses/monbus/devices", list, sizeof(list)))
		return fail("making the bus monbus: %s", strerror(errno));
	line0 = atoi(list + strlen(TTYPAIR_NAME_BUS));

	m = session_open(O_RDONLY);
	mb = session_open(O_RDONLY);
	if (m < 0 || mb < 0)
		return -1;
	if (read(m, list, sizeof(list)) != -1 || errno != ENXIO)
		return fail("read before TTYPAIR_IOC_MONITOR on a read-only file: not ENXIO");
	if (monitor_start(m, TTYPAIR_MONITOR_PAIR, idx, 0) ||
	    monitor_start(mb, TTYPAIR_MONITOR_BUS_PORT, line0 + 1, 0))
		return fail("TTYPAIR_IOC_MONITOR by root: %s", strerror(errno));

	/* someone else: no capability, not the owner */
	pid = fork();
	if (pid < 0)
		return fail("fork: %s", strerror(errno));
	if (!pid) {
		int f = open(SESSION_DEV, O_RDONLY | O_CLOEXEC);

		if (f < 0 || setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534))
			_exit(2);
		_exit(monitor_start(f, TTYPAIR_MONITOR_PAIR, idx, 0) == -EPERM &&
		      monitor_start(f, TTYPAIR_MONITOR_BUS_PORT, line0, 0) == -EPERM ?
		      0 : 1);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return fail("user 65534 was not refused with EPERM (status %d)", status);

	a = port_open('A', idx, 0);
	b = port_open('B', idx, 0);
	snprintf(path, sizeof(path), "/dev/%s%d", TTYPAIR_NAME_BUS, line0);
	p0 = raw_open(path);
	snprintf(path, sizeof(path), "/dev/%s%d", TTYPAIR_NAME_BUS, line0 + 1);
	p1 = raw_open(path);
	if (a < 0 || b < 0 || p0 < 0 || p1 < 0)
		return fail("opening the ports: %s", strerror(errno));
	if (write_full(a, "pair", 4) != 4 || read_full(b, list, 4, 2000) != 4)
		return fail("the pair carried nothing");
	if (write_full(p0, "bus", 3) != 3 || read_full(p1, list, 3, 2000) != 3)
		return fail("the bus carried nothing");
	if (mon_drain(m, &r))
		return -1;
	rec = rec_find(&r, TTYPAIR_REC_DATA, 0);
	if (!rec || rec->len != 4 || memcmp(rec + 1, "pair", 4))
		return fail("the pair's monitor has no record of 'pair'");
	r.len = 0;
	if (mon_drain(mb, &r))
		return -1;
	rec = rec_find(&r, TTYPAIR_REC_DATA, 0);
	if (!rec || rec->len != 3 || memcmp(rec + 1, "bus", 3))
		return fail("port 1's monitor has no record of port 0's 'bus'");
	if (!rec_find(&r, TTYPAIR_REC_OPEN, 1) || rec_find(&r, TTYPAIR_REC_OPEN, 0))
		return fail("port 1's monitor: not its own open alone");

	/* removal */
	close(a);
	close(b);
	if (rmdir(CFG_DIR "/monpair"))
		return fail("rmdir monpair: %s", strerror(errno));
	pfd.fd = m;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, 5000) != 1 || !(pfd.revents & POLLHUP))
		return fail("no POLLHUP after the pair's removal (revents %#x)",
			    pfd.revents);
	r.len = 0;
	set_nonblock(m, 1);
	for (;;) {
		ssize_t got = read(m, r.buf + r.len, 8192);

		if (got == 0)
			break;
		if (got < 0)
			return fail("reading after the removal: %s", strerror(errno));
		r.len += got;
	}
	if (!rec_find(&r, TTYPAIR_REC_REMOVED, -1))
		return fail("no REMOVED record");
	close(m);
	close(p0);
	close(p1);
	close(mb);
	if (rmdir(CFG_DIR "/buses/monbus"))
		return fail("rmdir monbus: %s", strerror(errno));
	return 0;
}

/* TTYPAIR_IOC_MONITOR and read(2) with every number at its limits */
static int t_monitor_limits(void)
{
	static const __u32 bad_buf[] = {
		1, 4095, 4194305, 0x7fffffffU, 0x80000000U, 0xffffffffU,
	};
	static const __u32 good_buf[] = { 0, 4096, 4097, 4194304 };
	static const __u32 bad_kind[] = { 3, 0x7fffffffU, 0x80000000U, 0xffffffffU };
	static const __u32 no_index[] = { 1024, 0x7fffffffU, 0x80000000U, 0xffffffffU };
	struct ttypair_monitor_target t = { .kind = TTYPAIR_MONITOR_SELF };
	char small[sizeof(struct ttypair_record) + 7];
	size_t i;
	int s, ro, a;

	for (i = 0; i < sizeof(bad_buf) / sizeof(bad_buf[0]); i++) {
		s = session_open(O_RDWR);
		if (s < 0)
			return -1;
		if (monitor_start(s, TTYPAIR_MONITOR_SELF, 0, bad_buf[i]) != -EINVAL)
			return fail("buffer %u: not EINVAL", bad_buf[i]);
		close(s);
	}
	for (i = 0; i < sizeof(good_buf) / sizeof(good_buf[0]); i++) {
		s = session_open(O_RDWR);
		if (s < 0)
			return -1;
		if (monitor_start(s, TTYPAIR_MONITOR_SELF, 0, good_buf[i]))
			return fail("buffer %u: %s", good_buf[i], strerror(errno));
		if (monitor_start(s, TTYPAIR_MONITOR_SELF, 0, 0) != -EBUSY)
			return fail("a second TTYPAIR_IOC_MONITOR: not EBUSY");
		close(s);
	}
	s = session_open(O_RDWR);
	ro = session_open(O_RDONLY);
	if (s < 0 || ro < 0)
		return -1;
	for (i = 0; i < sizeof(bad_kind) / sizeof(bad_kind[0]); i++)
		if (monitor_start(s, bad_kind[i], 0, 0) != -EINVAL)
			return fail("kind %u: not EINVAL", bad_kind[i]);
	for (i = 0; i < sizeof(bad_kind) / sizeof(bad_kind[0]); i++) {
		t.reserved = i ? bad_kind[i] : 1;	/* 1, 2^31-1, 2^31, 2^32-1 */
		if (ioctl(s, TTYPAIR_IOC_MONITOR, &t) != -1 || errno != EINVAL)
			return fail("reserved %u: not EINVAL", t.reserved);
	}
	if (ioctl(s, TTYPAIR_IOC_MONITOR, NULL) != -1 || errno != EFAULT)
		return fail("a NULL pointer: not EFAULT");
	for (i = 0; i < sizeof(no_index) / sizeof(no_index[0]); i++)
		if (monitor_start(ro, TTYPAIR_MONITOR_PAIR, no_index[i], 0) != -ENODEV ||
		    monitor_start(ro, TTYPAIR_MONITOR_BUS_PORT, no_index[i], 0) != -ENODEV)
			return fail("index %u: not ENODEV", no_index[i]);
	if (monitor_start(ro, TTYPAIR_MONITOR_SELF, 0, 0) != -ENXIO)
		return fail("SELF on a read-only file: not ENXIO");
	/* the first read starts a session's monitor */
	set_nonblock(s, 1);
	if (read(s, small, sizeof(small)) != -1 || errno != EAGAIN)
		return fail("an empty monitor: not EAGAIN");
	close(s);
	s = session_open(O_RDWR);
	if (s < 0 || monitor_start(s, TTYPAIR_MONITOR_SELF, 0, 0))
		return fail("TTYPAIR_IOC_MONITOR: %s", strerror(errno));
	{
		struct ttypair_session_info info;

		if (session_info(s, &info))
			return -1;
		a = port_open('A', info.index, 0);
		if (a < 0)
			return -1;
		if (write_full(a, "0123456789", 10) != 10)
			return fail("write");
	}
	set_nonblock(s, 1);
	if (read(s, small, sizeof(struct ttypair_record) - 1) != -1 || errno != EINVAL)
		return fail("a read of 23 bytes: not EINVAL");
	if (read(s, small, 0) != -1 || errno != EINVAL)
		return fail("a read of 0 bytes: not EINVAL");
	if (syscall(SYS_read, s, NULL, 4096) != -1 || errno != EFAULT)
		return fail("a read into NULL: not EFAULT");
	close(a);
	close(s);
	close(ro);
	return 0;
}

/*
 * With baud-rate emulation at 9600 8N1 the data records of 96 characters
 * keep to the line's time: no record carries a character before it had
 * time to leave (its place in the stream times 1.0417 ms after the write)
 */
static int t_monitor_baud_timing(void)
{
	static struct recs r;
	const struct ttypair_record *rec;
	struct ttypair_session_info info;
	const double char_ns = 1e10 / 9600;
	unsigned char data[96], got[96];
	size_t off = 0, bytes = 0;
	unsigned long long t0;
	struct timespec ts;
	double late = 0, ahead;
	int s, a, b, recs = 0;

	if (monitored_session(0, 1, &info, &s, &a, &b) || set_speed(a, B9600) ||
	    set_speed(b, B9600))
		return -1;
	memset(data, 'u', sizeof(data));
	clock_gettime(CLOCK_MONOTONIC, &ts);
	t0 = ts.tv_sec * 1000000000ULL + ts.tv_nsec;
	if (write_full(a, data, sizeof(data)) != sizeof(data) ||
	    read_full(b, got, sizeof(got), 5000) != sizeof(got))
		return fail("96 characters at 9600 did not arrive");
	if (mon_drain(s, &r))
		return -1;
	while ((rec = rec_next(&r, &off))) {
		if (rec->type != TTYPAIR_REC_DATA || rec->port != 0)
			continue;
		bytes += rec->len;
		recs++;
		/* its last character left bytes character times after t0 */
		ahead = t0 + bytes * char_ns * 0.999 - (double)rec->time_ns;
		if (ahead > 0)
			return fail("a record of %u characters came %.3f ms before the %zu-th could have left",
				    rec->len, ahead / 1e6, bytes);
		late = ((double)rec->time_ns - t0 - bytes * char_ns) / 1e6;
	}
	if (bytes != sizeof(data))
		return fail("data records of %zu bytes, expected 96", bytes);
	close(a);
	close(b);
	close(s);
	note("96 characters at 9600 in %d records, none early; the last %.1f ms after its time",
	     recs, late);
	return 0;
}

const struct test session_tests[] = {
	{ "session_pair", t_session_pair, 30 },
	{ "session_info_size", t_session_info_size, 30 },
	{ "session_attrs", t_session_attrs, 30 },
	{ "session_readonly_no_pair", t_session_readonly, 30 },
	{ "session_fd_passing_and_exec", t_session_fd_passing, 30 },
	{ "session_kill_owner_hangs_up", t_session_kill_owner, 30 },
	{ "session_user_limit", t_session_user_limit, 60 },
	{ "monitor_script", t_monitor_script, 60 },
	{ "monitor_overflow_drops", t_monitor_overflow, 60 },
	{ "monitor_attach_root_pair_and_bus_port", t_monitor_attach, 60 },
	{ "monitor_limits", t_monitor_limits, 60 },
	{ "monitor_baud_timing", t_monitor_baud_timing, 60 },
	{ NULL, NULL, 0 }
};
