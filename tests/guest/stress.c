// SPDX-License-Identifier: GPL-2.0
/*
 * ttypair-stress: the reliability tests of the guest (issue 9).
 *
 *   ttypair-stress stress SECONDS SEED PAIRS
 *	Threads doing random operations on random ports for SECONDS: open,
 *	close, read, write, poll, TIOCM*, TIOCMIWAIT, TCSBRK, tcsetattr with
 *	random settings, tcflush, tcflow, TIOCVHANGUP, device attributes,
 *	configfs create/remove and delete_module attempts (the module
 *	reloaded with pairs=PAIRS when one succeeds). Passes when every thread
 *	ends when told to; the kernel's log is checked by the host.
 *
 *   ttypair-stress fuzz SECONDS SEED
 *	Random ioctl numbers and arguments (bad pointers, short buffers,
 *	random values) on the ends of pairs 0 and 1, random and malformed
 *	values written to every writable device and configfs attribute of
 *	pair 0, random configfs directory names. Every call must succeed or
 *	fail with an error number user space knows (none of the kernel's
 *	internal ones), a failed attribute write must leave every attribute
 *	as it was, and pair 0 must still carry data afterwards.
 *
 *   ttypair-stress soak MIB SEED
 *	MIB mebibytes each way through pair 0 at once, random write and read
 *	sizes, while another thread changes speed, parity and stop bits and
 *	toggles DTR and RTS on both ends: every byte is checked against its
 *	position in the stream (nothing lost, duplicated or reordered).
 *
 *   ttypair-stress values SEED N
 *	N random or malformed module parameter values, one per line.
 *
 * Every mode prints its seed first: the same seed replays the same choices
 * (the interleaving of threads differs from run to run).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <linux/serial.h>

#include "../../include/uapi/ttypair.h"

#define CFG	"/sys/kernel/config/ttypair"

/* from <asm/termbits.h>, which does not mix with glibc's <termios.h> */
#ifndef TIOCM_OUT1
#define TIOCM_OUT1	0x2000
#define TIOCM_OUT2	0x4000
#define TIOCM_LOOP	0x8000
#endif
/* TCGETS2 and friends on x86: struct termios2 is 44 bytes */
#define FZ_TCGETS2	0x802c542aUL
#define FZ_TCSETS2	0x402c542bUL
#define FZ_TCSETSW2	0x402c542cUL
#define FZ_TCSETSF2	0x402c542dUL

static volatile sig_atomic_t stop;
/* the stress's quiet moments: every port closed, so that unloading can win */
static volatile int quiet;

static void kick(int sig)
{
	(void)sig;	/* only interrupts a blocking system call */
}

static uint64_t rnd64(uint64_t *s)
{
	/* splitmix64: any seed, including 0, gives a good sequence */
	uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

static unsigned int rn(uint64_t *s, unsigned int n)
{
	return n ? (unsigned int)(rnd64(s) % n) : 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = kick;		/* no SA_RESTART: calls return EINTR */
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGALRM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGIO, SIG_IGN);
	signal(SIGURG, SIG_IGN);
	signal(SIGTTOU, SIG_IGN);
	signal(SIGTTIN, SIG_IGN);
	signal(SIGXFSZ, SIG_IGN);
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	signal(SIGTSTP, SIG_IGN);
	signal(SIGWINCH, SIG_IGN);
}

static void port_path(char *buf, size_t len, unsigned int idx, int end_b)
{
	snprintf(buf, len, "/dev/ttyVP%c%u", end_b ? 'B' : 'A', idx);
}

static int write_str(const char *path, const char *val, size_t len)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t r;

	if (fd < 0)
		return -errno;
	r = write(fd, val, len);
	r = r < 0 ? -errno : 0;
	close(fd);
	return (int)r;
}

static int read_str(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t r;

	if (fd < 0)
		return -errno;
	r = read(fd, buf, len - 1);
	close(fd);
	if (r < 0)
		return -errno;
	buf[r] = 0;
	return 0;
}

static const speed_t speeds[] = {
	B9600, B19200, B38400, B57600, B115200, B230400, B460800, B921600,
	B1000000, B2000000, B4000000,
};

#define NSPEEDS (sizeof(speeds) / sizeof(speeds[0]))

/* random line settings; raw = keep the data path byte-transparent */
static void random_termios(uint64_t *s, struct termios *t, int raw)
{
	static const tcflag_t csize[] = { CS5, CS6, CS7, CS8 };
	static const tcflag_t iflags[] = {
		IGNBRK, BRKINT, IGNPAR, PARMRK, INPCK, ISTRIP, IXON, IXOFF, IXANY,
	};
	static const tcflag_t lflags[] = { ICANON, ECHO, ISIG, IEXTEN, ECHONL };
	size_t i;

	t->c_cflag &= ~(PARENB | PARODD | CMSPAR | CSTOPB);
	t->c_cflag |= (rn(s, 2) ? PARENB : 0) | (rn(s, 2) ? PARODD : 0) |
		      (rn(s, 4) ? 0 : CMSPAR) | (rn(s, 2) ? CSTOPB : 0);
	cfsetispeed(t, speeds[rn(s, NSPEEDS)]);
	cfsetospeed(t, cfgetispeed(t));
	if (raw)
		return;
	t->c_cflag &= ~(CSIZE | CRTSCTS | CLOCAL | HUPCL);
	t->c_cflag |= csize[rn(s, 4)] | (rn(s, 4) ? 0 : CRTSCTS) |
		      (rn(s, 4) ? CLOCAL : 0) | (rn(s, 4) ? 0 : HUPCL);
	t->c_iflag = 0;
	for (i = 0; i < sizeof(iflags) / sizeof(iflags[0]); i++)
		if (!rn(s, 3))
			t->c_iflag |= iflags[i];
	t->c_lflag = 0;
	for (i = 0; i < sizeof(lflags) / sizeof(lflags[0]); i++)
		if (!rn(s, 3))
			t->c_lflag |= lflags[i];
	t->c_oflag = rn(s, 2) ? OPOST | ONLCR : 0;
	t->c_cc[VMIN] = rn(s, 3);
	t->c_cc[VTIME] = rn(s, 3);
}

/* ------------------------------------------------------------------------
 * stress
 */
enum op {
	OP_OPEN, OP_CLOSE, OP_READ, OP_WRITE, OP_POLL, OP_TIOCM, OP_TIOCMIWAIT,
	OP_BREAK, OP_TCSETATTR, OP_TCFLUSH, OP_TCFLOW, OP_VHANGUP, OP_QUERY,
	OP_ATTR, OP_CONFIGFS, OP_RMMOD, OP_RELOAD, OP_SESSION, NOPS
};

static const char *const op_name[NOPS] = {
	"open", "close", "read", "write", "poll", "tiocm", "tiocmiwait",
	"break", "tcsetattr", "tcflush", "tcflow", "vhangup", "query",
	"attr", "configfs", "rmmod", "reload", "session",
};

static unsigned long op_count[NOPS], op_ok[NOPS];
static unsigned int s_pairs, s_ports;	/* module pairs, and with configfs */
#define CFG_PAIRS 4
#define CFG_BUSES 4
#define CFG_BUS_PORTS 5	/* the most a bus of the stress has */
#define WORKERS 6
#define SLOTS 4

static void counted(enum op op, int ok)
{
	__atomic_fetch_add(&op_count[op], 1, __ATOMIC_RELAXED);
	if (ok)
		__atomic_fetch_add(&op_ok[op], 1, __ATOMIC_RELAXED);
}

struct worker {
	pthread_t th;
	uint64_t seed;
	int fd[SLOTS];
	volatile int done;
	volatile enum op last;
};

static int open_random(uint64_t *s)
{
	char path[40];
	int fd;

	if (!rn(s, 4))	/* a port of a bus that configfs_thread makes */
		snprintf(path, sizeof(path), "/dev/ttyVPS%u", rn(s, 4 * CFG_BUS_PORTS));
	else
		port_path(path, sizeof(path), rn(s, s_ports), rn(s, 2));
	fd = open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	counted(OP_OPEN, fd >= 0);
	return fd;
}

static void attr_random(uint64_t *s)
{
	static const char *const attrs[] = {
		"baud_emulation", "strict", "noise_ppm", "noise_seed", "wiring",
		"inject",
	};
	static const char *const wirings[] = {
		"cts=rts dsr=dtr dcd=dtr ri=off", "cts=on dsr=dtr dcd=!dtr",
		"dcd=rts ri=dtr", "cts=off dsr=off dcd=off ri=on", "cts=!open",
	};
	static const char *const injects[] = { "break", "frame", "parity", "overrun", "none" };
	unsigned int a = rn(s, sizeof(attrs) / sizeof(attrs[0]));
	char path[96], val[64];

	snprintf(path, sizeof(path), "/sys/class/tty/ttyVP%c%u/%s",
		 rn(s, 2) ? 'B' : 'A', rn(s, s_ports), attrs[a]);
	switch (a) {
	case 0:
		/* mostly off: with emulation a drain takes its time */
		snprintf(val, sizeof(val), "%d", !rn(s, 4));
		break;
	case 1:
		snprintf(val, sizeof(val), "%d", rn(s, 2));
		break;
	case 2:
		snprintf(val, sizeof(val), "%u", rn(s, 3) ? 0 : rn(s, 100000));
		break;
	case 3:
		snprintf(val, sizeof(val), "%u", rn(s, 1000));
		break;
	case 4:
		snprintf(val, sizeof(val), "%s", wirings[rn(s, 5)]);
		break;
	default:
		snprintf(val, sizeof(val), "%s", injects[rn(s, 5)]);
		break;
	}
	counted(OP_ATTR, write_str(path, val, strlen(val)) == 0);
}

static void worker_op(struct worker *w)
{
	uint64_t *s = &w->seed;
	unsigned int k = rn(s, SLOTS), bits;
	int fd = w->fd[k], r, arg;
	enum op op = (enum op)rn(s, OP_ATTR + 1);
	char buf[4096];
	struct termios t;
	struct serial_icounter_struct ic;
	struct serial_struct ss;
	struct pollfd pfd[SLOTS];
	size_t n;

	if (op == OP_TIOCMIWAIT)	/* the waiter's; here a plain TIOCMGET */
		op = OP_TIOCM;
	for (n = 0; fd < 0 && n < SLOTS; n++) {	/* rather one that is open */
		k = (k + 1) % SLOTS;
		fd = w->fd[k];
	}
	if (op != OP_OPEN && op != OP_ATTR && fd < 0)
		op = OP_OPEN;
	w->last = op;
	switch (op) {
	case OP_OPEN:
		if (fd >= 0) {
			close(fd);
			counted(OP_CLOSE, 1);
		}
		w->fd[k] = open_random(s);
		break;
	case OP_CLOSE:
		counted(OP_CLOSE, close(fd) == 0);
		w->fd[k] = -1;
		break;
	case OP_READ:
		counted(op, read(fd, buf, 1 + rn(s, sizeof(buf))) >= 0);
		break;
	case OP_WRITE:
		n = 1 + rn(s, sizeof(buf));
		memset(buf, 'a' + (int)rn(s, 26), n);
		counted(op, write(fd, buf, n) >= 0);
		break;
	case OP_POLL:
		for (n = 0; n < SLOTS; n++) {
			pfd[n].fd = w->fd[n];
			pfd[n].events = POLLIN | POLLOUT | POLLPRI;
		}
		counted(op, poll(pfd, SLOTS, (int)rn(s, 5)) >= 0);
		break;
	case OP_TIOCM:
		bits = rn(s, 2) ? TIOCM_DTR : 0;
		bits |= rn(s, 2) ? TIOCM_RTS : 0;
		bits |= rn(s, 4) ? 0 : TIOCM_LOOP | TIOCM_OUT1 | TIOCM_OUT2;
		arg = (int)bits;
		switch (rn(s, 4)) {
		case 0:
			r = ioctl(fd, TIOCMGET, &arg);
			break;
		case 1:
			r = ioctl(fd, TIOCMBIS, &arg);
			break;
		case 2:
			r = ioctl(fd, TIOCMBIC, &arg);
			break;
		default:
			r = ioctl(fd, TIOCMSET, &arg);
			break;
		}
		counted(op, r == 0);
		break;
	case OP_BREAK:
		switch (rn(s, 4)) {
		case 0:
			r = ioctl(fd, TCSBRK, 0);	/* a 250 ms break */
			break;
		case 1:
			r = ioctl(fd, TCSBRK, 1);	/* tcdrain() */
			break;
		case 2:
			r = ioctl(fd, TIOCSBRK);
			break;
		default:
			r = ioctl(fd, TIOCCBRK);
			break;
		}
		counted(op, r == 0);
		break;
	case OP_TCSETATTR:
		r = tcgetattr(fd, &t);
		if (!r) {
			random_termios(s, &t, 0);
			r = tcsetattr(fd, rn(s, 3) == 0 ? TCSANOW :
				      rn(s, 2) ? TCSADRAIN : TCSAFLUSH, &t);
		}
		counted(op, r == 0);
		break;
	case OP_TCFLUSH:
		counted(op, tcflush(fd, rn(s, 3) == 0 ? TCIFLUSH :
				    rn(s, 2) ? TCOFLUSH : TCIOFLUSH) == 0);
		break;
	case OP_TCFLOW:
		counted(op, tcflow(fd, (int)rn(s, 4)) == 0);	/* TCOOFF..TCION */
		break;
	case OP_VHANGUP:
		if (rn(s, 8))		/* rarer than the others */
			op = OP_QUERY;
		else {
			counted(op, ioctl(fd, TIOCVHANGUP) == 0);
			break;
		}
		/* fall through */
	case OP_QUERY:
		switch (rn(s, 4)) {
		case 0:
			r = ioctl(fd, TIOCGICOUNT, &ic);
			break;
		case 1:
			r = ioctl(fd, TIOCGSERIAL, &ss);
			if (!r && rn(s, 2))
				r = ioctl(fd, TIOCSSERIAL, &ss);
			break;
		case 2:
			r = ioctl(fd, FIONREAD, &arg);
			break;
		default:
			r = ioctl(fd, TIOCOUTQ, &arg);
			break;
		}
		counted(OP_QUERY, r == 0);
		break;
	default:
		attr_random(s);
		break;
	}
}

static void *worker(void *arg)
{
	struct worker *w = arg;
	int k, fd;

	while (!stop) {
		if (!quiet) {
			worker_op(w);
			continue;
		}
		for (k = 0; k < SLOTS; k++)
			if (w->fd[k] >= 0) {
				close(w->fd[k]);
				w->fd[k] = -1;
				counted(OP_CLOSE, 1);
			}
		/* only short opens while the rmmod thread tries its luck */
		if (!rn(&w->seed, 4)) {
			fd = open_random(&w->seed);
			if (fd >= 0) {
				close(fd);
				counted(OP_CLOSE, 1);
			}
		}
		usleep(1000);
	}
	for (k = 0; k < SLOTS; k++)
		if (w->fd[k] >= 0)
			close(w->fd[k]);
	w->done = 1;
	return NULL;
}

static void *waiter(void *arg)
{
	struct worker *w = arg;
	int fd;

	while (!stop) {
		w->last = OP_TIOCMIWAIT;
		if (quiet) {
			usleep(1000);
			continue;
		}
		fd = open_random(&w->seed);
		if (fd < 0) {
			usleep(1000);
			continue;
		}
		/* returns on a change of the lines, a hangup or the main thread's kick */
		counted(OP_TIOCMIWAIT, ioctl(fd, TIOCMIWAIT, TIOCM_CTS | TIOCM_DSR |
				       TIOCM_CD | TIOCM_RI) == 0);
		close(fd);
		counted(OP_CLOSE, 1);
	}
	w->done = 1;
	return NULL;
}

static void *configfs_thread(void *arg)
{
	struct worker *w = arg;
	char dir[64], path[96], val[8];
	int r;

	while (!stop) {
		int bus = !rn(&w->seed, 3);

		w->last = OP_CONFIGFS;
		if (bus)
			snprintf(dir, sizeof(dir), CFG "/buses/stressbus%u",
				 rn(&w->seed, CFG_BUSES));
		else
			snprintf(dir, sizeof(dir), CFG "/stress%u", rn(&w->seed, CFG_PAIRS));
		if (quiet) {
			r = rmdir(dir);
		} else if (bus && rn(&w->seed, 2)) {
			/* a bus of 2 to 5 ports, made at once or already there */
			r = mkdir(dir, 0755);
			snprintf(path, sizeof(path), "%s/ports", dir);
			snprintf(val, sizeof(val), "%u", 2 + rn(&w->seed, CFG_BUS_PORTS - 1));
			if (!r)
				r = write_str(path, val, strlen(val));
		} else if (bus && rn(&w->seed, 2)) {
			snprintf(path, sizeof(path), "%s/%s", dir,
				 rn(&w->seed, 2) ? "overrun" : "baud_emulation");
			r = write_str(path, rn(&w->seed, 2) ? "1" : "0", 1);
		} else if (rn(&w->seed, 2)) {
			r = mkdir(dir, 0755);
		} else if (rn(&w->seed, 2)) {
			snprintf(path, sizeof(path), "%s/%s", dir,
				 rn(&w->seed, 2) ? "strict" : "baud_emulation");
			r = write_str(path, rn(&w->seed, 2) ? "1" : "0", 1);
		} else {
			r = rmdir(dir);
		}
		counted(OP_CONFIGFS, r == 0);
		usleep(rn(&w->seed, 5000));
	}
	w->done = 1;
	return NULL;
}

/*
 * Sessions of /dev/ttypair-session: made, monitored, their ends written
 * and read, set, and closed in any order (the session first: its ends are
 * hung up under the other threads' feet) while everything else runs
 */
static void *session_thread(void *arg)
{
	struct worker *w = arg;
	struct ttypair_session_info info;
	struct ttypair_attr_value v;
	char path[64], buf[4096];
	int sfd, a, b, k, ok, first;

	while (!stop) {
		w->last = OP_SESSION;
		sfd = open("/dev/" TTYPAIR_SESSION_DEVICE, O_RDWR | O_NONBLOCK | O_CLOEXEC);
		if (sfd < 0) {
			counted(OP_SESSION, 0);
			usleep(rn(&w->seed, 20000));
			continue;
		}
		memset(&info, 0, sizeof(info));
		info.size = sizeof(info);
		ok = !ioctl(sfd, TTYPAIR_IOC_INFO, &info);
		counted(OP_SESSION, ok);
		a = b = -1;
		if (ok) {
			snprintf(path, sizeof(path), "/dev/%s", info.device_a);
			a = open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
			snprintf(path, sizeof(path), "/dev/%s", info.device_b);
			b = open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
		}
		for (k = rn(&w->seed, 20); k > 0 && !stop; k--) {
			switch (rn(&w->seed, 4)) {
			case 0:
				memset(&v, 0, sizeof(v));
				v.attr = 1 + rn(&w->seed, 7);
				v.end = rn(&w->seed, 2);
				snprintf(v.value, sizeof(v.value), "%s",
					 rn(&w->seed, 2) ? "1" : "0");
				counted(OP_SESSION, !ioctl(sfd, TTYPAIR_IOC_SET_ATTR, &v));
				break;
			case 1:
				counted(OP_SESSION, read(sfd, buf, sizeof(buf)) >= 0);
				break;
			default:
				if (a >= 0)
					counted(OP_WRITE, write(a, buf, 1 + rn(&w->seed, 512)) >= 0);
				if (b >= 0)
					counted(OP_READ, read(b, buf, sizeof(buf)) >= 0);
				break;
			}
		}
		first = rn(&w->seed, 2);
		if (first)
			close(sfd);
		if (a >= 0)
			close(a);
		if (b >= 0)
			close(b);
		if (!first)
			close(sfd);
		usleep(rn(&w->seed, 5000));
	}
	w->done = 1;
	return NULL;
}

static int reload_module(void)
{
	char arg[32];
	pid_t pid;
	int st;

	snprintf(arg, sizeof(arg), "pairs=%u", s_pairs);
	pid = fork();
	if (pid == 0) {
		execlp("modprobe", "modprobe", "ttypair", arg, (char *)NULL);
		_exit(127);
	}
	if (pid < 0)
		return -1;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

static void *rmmod_thread(void *arg)
{
	struct worker *w = arg;
	int r;

	while (!stop) {
		w->last = OP_RMMOD;
		usleep(quiet ? 5000 : 20000 + rn(&w->seed, 200000));
		r = (int)syscall(SYS_delete_module, "ttypair", O_NONBLOCK);
		counted(OP_RMMOD, r == 0);
		if (r == 0) {
			w->last = OP_RELOAD;
			usleep(rn(&w->seed, 20000));
			counted(OP_RELOAD, reload_module() == 0);
		}
	}
	w->done = 1;
	return NULL;
}

static int stress(unsigned int seconds, uint64_t seed, unsigned int pairs)
{
	struct worker w[WORKERS + 4];
	void *(*fn)(void *);
	unsigned int i, k, nw = WORKERS + 4, stuck = 0;
	unsigned long total = 0;
	double end, deadline;
	char dir[64];

	s_pairs = pairs;
	s_ports = pairs + CFG_PAIRS;
	memset(w, 0, sizeof(w));
	for (i = 0; i < nw; i++) {
		w[i].seed = seed * 1000003 + i;
		for (k = 0; k < SLOTS; k++)
			w[i].fd[k] = -1;
		fn = i < WORKERS ? worker : i == WORKERS ? waiter :
		     i == WORKERS + 1 ? configfs_thread :
		     i == WORKERS + 2 ? session_thread : rmmod_thread;
		if (pthread_create(&w[i].th, NULL, fn, &w[i])) {
			printf("pthread_create failed\n");
			return 1;
		}
	}
	end = now() + seconds;
	for (k = 0; now() < end; k++) {
		usleep(50000);
		quiet = k % 80 >= 72;	/* 0.4 s of every 4 */
		pthread_kill(w[WORKERS].th, SIGUSR1);	/* the TIOCMIWAIT thread */
		for (i = 0; i < WORKERS; i++)
			if (!rn(&seed, 10))	/* now and then, any blocked call */
				pthread_kill(w[i].th, SIGUSR1);
	}
	stop = 1;
	/* every thread must come back within a minute of being told to */
	deadline = now() + 60;
	for (;;) {
		for (i = 0, k = 0; i < nw; i++)
			if (!w[i].done) {
				pthread_kill(w[i].th, SIGUSR1);
				k++;
			}
		if (!k || now() > deadline)
			break;
		usleep(20000);
	}
	for (i = 0; i < nw; i++) {
		if (!w[i].done) {
			printf("thread %u did not return, last operation %s\n", i,
			       op_name[w[i].last]);
			stuck++;
		} else {
			pthread_join(w[i].th, NULL);
		}
	}
	for (i = 0; i < CFG_PAIRS; i++) {
		snprintf(dir, sizeof(dir), CFG "/stress%u", i);
		rmdir(dir);
	}
	for (i = 0; i < CFG_BUSES; i++) {
		snprintf(dir, sizeof(dir), CFG "/buses/stressbus%u", i);
		rmdir(dir);
	}
	printf("stress: seed %llu, %u s, %u threads, ports ttyVP[AB]0..%u\n",
	       (unsigned long long)(seed), seconds, nw, s_ports - 1);
	for (i = 0; i < NOPS; i++) {
		printf("  %-11s %8lu calls, %8lu succeeded\n", op_name[i], op_count[i], op_ok[i]);
		total += op_count[i];
	}
	printf("STRESS ops=%lu open=%lu write=%lu tcsetattr=%lu configfs=%lu rmmod=%lu unloads=%lu\n",
	       total, op_count[OP_OPEN], op_count[OP_WRITE], op_count[OP_TCSETATTR],
	       op_count[OP_CONFIGFS], op_count[OP_RMMOD], op_ok[OP_RMMOD]);
	if (stuck)
		return 1;
	for (i = 0; i <= OP_ATTR; i++)
		if (i != OP_VHANGUP && !op_count[i]) {
			printf("no %s was tried\n", op_name[i]);
			return 1;
		}
	if (!op_ok[OP_OPEN] || !op_ok[OP_WRITE] || !op_ok[OP_TCSETATTR] || !op_ok[OP_CONFIGFS] ||
	    !op_ok[OP_SESSION]) {
		printf("opens, writes, tcsetattr, configfs or sessions never succeeded\n");
		return 1;
	}
	if (op_ok[OP_RELOAD] != op_ok[OP_RMMOD]) {
		printf("the module was unloaded %lu times but reloaded %lu times\n",
		       op_ok[OP_RMMOD], op_ok[OP_RELOAD]);
		return 1;
	}
	return 0;
}

/* ------------------------------------------------------------------------
 * fuzz
 */
static unsigned long fz_calls, fz_ok, fz_err[512];
static unsigned char *fz_page;	/* page 0 read-write, page 1 read-only, page 2 none */
static long fz_pagesz;

/* ioctls that would touch more than the ports: the console, the controlling tty */
static int fz_excluded(unsigned long cmd, unsigned long arg)
{
	switch (cmd) {
	case TIOCCONS: case TIOCSCTTY: case TIOCNOTTY: case TIOCLINUX:
		return 1;
	case TIOCSETD:	/* other line disciplines load other drivers */
		return 1;
	}
	(void)arg;
	return 0;
}

static unsigned long fz_arg(uint64_t *s)
{
	unsigned int k = rn(s, 10);

	switch (k) {
	case 0:
		return 0;
	case 1:
		return 1 + rn(s, 4096);				/* low addresses */
	case 2:
		return 0xffff888000000000UL + rn(s, 1 << 20);	/* kernel memory */
	case 3:
		return (unsigned long)(fz_page + 2 * fz_pagesz);	/* no access */
	case 4:		/* the last bytes before the inaccessible page */
		return (unsigned long)(fz_page + 2 * fz_pagesz - 1 - rn(s, 64));
	case 5:
		return (unsigned long)(fz_page + fz_pagesz);	/* read-only */
	case 6:
		return rnd64(s);				/* anything */
	case 7:
		return rn(s, 64);				/* small numbers */
	default: {	/* a buffer of random bytes */
		unsigned int i, off = rn(s, (unsigned int)fz_pagesz / 2);

		for (i = 0; i < (unsigned int)fz_pagesz / 2; i++)
			fz_page[off + i] = (unsigned char)rnd64(s);
		return (unsigned long)(fz_page + off);
	}
	}
}

static const unsigned long fz_cmds[] = {
	TCGETS, TCSETS, TCSETSW, TCSETSF, TCGETA, TCSETA, TCSETAW, TCSETAF,
	TCSBRK, TCXONC, TCFLSH, TIOCEXCL, TIOCNXCL, TIOCGPGRP, TIOCSPGRP,
	TIOCOUTQ, TIOCSTI, TIOCGWINSZ, TIOCSWINSZ, TIOCMGET, TIOCMBIS, TIOCMBIC,
	TIOCMSET, TIOCGSOFTCAR, TIOCSSOFTCAR, FIONREAD, TIOCPKT, FIONBIO,
	TIOCGETD, TCSBRKP, TIOCSBRK, TIOCCBRK, TIOCGSID, FZ_TCGETS2, FZ_TCSETS2,
	FZ_TCSETSW2, FZ_TCSETSF2, TIOCGRS485, TIOCSRS485, TIOCGPTN, TIOCSPTLCK,
	TIOCGDEV, TCGETX, TCSETX, TIOCSIG, TIOCVHANGUP, TIOCGPKT, TIOCGPTLCK,
	TIOCGEXCL, TIOCGPTPEER, TIOCGISO7816, TIOCSISO7816, FIONCLEX, FIOCLEX,
	FIOASYNC, TIOCSERCONFIG, TIOCSERGWILD, TIOCSERSWILD, TIOCGLCKTRMIOS,
	TIOCSLCKTRMIOS, TIOCSERGSTRUCT, TIOCSERGETLSR, TIOCSERGETMULTI,
	TIOCSERSETMULTI, TIOCMIWAIT, TIOCGICOUNT, TIOCGSERIAL, TIOCSSERIAL,
	FIOQSIZE,
};

static unsigned long fz_cmd(uint64_t *s)
{
	unsigned int k = rn(s, 10);

	if (k < 6)
		return fz_cmds[rn(s, sizeof(fz_cmds) / sizeof(fz_cmds[0]))];
	if (k < 9)	/* a 'T' ioctl with random number, direction and size */
		return (rnd64(s) & 0xffff00ffUL & ~0x0000ff00UL) | 0x5400 | rn(s, 0x70);
	return (unsigned int)rnd64(s);
}

static void fz_count(long r)
{
	fz_calls++;
	if (r >= 0)
		fz_ok++;
	else
		fz_err[errno < 512 ? errno : 511]++;
}

/* the first port of the bus the fuzzing makes (buses/fuzzbus, 3 ports) */
static int fz_bus_line = -1;

static int fz_reopen(int *fd, uint64_t *s)
{
	char path[40];

	if (*fd >= 0)
		close(*fd);
	if (fz_bus_line >= 0 && !rn(s, 3))
		snprintf(path, sizeof(path), "/dev/ttyVPS%u", fz_bus_line + rn(s, 3));
	else
		port_path(path, sizeof(path), rn(s, 2), rn(s, 2));
	*fd = open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	/*
	 * EBUSY: TIOCEXCL. EINVAL: the tty was hung up while another of our
	 * descriptors holds it, and a reopen starts the line discipline
	 * that a random TCSETS wrote into c_line (the tty core's rule).
	 * EINTR: the timer's signal came while open waited for the tty lock.
	 */
	if (*fd < 0 && errno != EBUSY && errno != EINVAL && errno != EINTR) {
		printf("open %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* every attribute file of a directory, values read into vals */
#define FZ_ATTRS 72
struct fz_attrs {
	int n;
	char path[FZ_ATTRS][384];
	int writable[FZ_ATTRS];
	char val[FZ_ATTRS][256];
};

static void fz_scan(struct fz_attrs *a, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	struct stat st;

	if (!d)
		return;
	while ((e = readdir(d)) && a->n < FZ_ATTRS) {
		snprintf(a->path[a->n], sizeof(a->path[0]), "%s/%s", dir, e->d_name);
		if (e->d_name[0] == '.' || !strcmp(e->d_name, "uevent") ||
		    lstat(a->path[a->n], &st) || !S_ISREG(st.st_mode))
			continue;
		a->writable[a->n] = !!(st.st_mode & 0200);
		a->n++;
	}
	closedir(d);
}

static int fz_read_all(struct fz_attrs *a, char (*vals)[256])
{
	int i, r;

	for (i = 0; i < a->n; i++) {
		r = read_str(a->path[i], vals[i], sizeof(vals[i]));
		if (r) {
			printf("reading %s: %s\n", a->path[i], strerror(-r));
			return -1;
		}
	}
	return 0;
}

static size_t fz_value(uint64_t *s, char *v, size_t cap)
{
	static const char *const words[] = {
		"0", "1", "2", "-1", "", "\n", "0\n", "1\n", "y", "N", "yes please",
		"4294967295", "4294967296", "18446744073709551616", "-2147483648",
		"999999999999999999999999", "0x10", "010", " 1", "1 ", "+1", "1\n\n",
		"1000000", "1000001", "cts=rts", "dcd=!dtr ri=on", "cts=rts,dsr=dtr",
		"cts=rts cts=dtr", "dcd=", "=dtr", "dcd=dtr=rts", "xyz=rts", "cts=bogus",
		"break", "frame", "parity", "overrun", "none", "break\n", "breakx",
		"%s%s%n%p", "\xff\xfe", "cts=rts\0dsr=on",
	};
	size_t n, i;

	switch (rn(s, 4)) {
	case 0:		/* a known word, sometimes with something after it */
		i = rn(s, sizeof(words) / sizeof(words[0]));
		n = strlen(words[i]);
		if (i == sizeof(words) / sizeof(words[0]) - 1)
			n = 15;		/* with its NUL inside */
		memcpy(v, words[i], n);
		if (!rn(s, 4))
			v[n++] = (char)(' ' + rn(s, 95));
		return n;
	case 1:		/* a number */
		return (size_t)snprintf(v, cap, "%lld", (long long)rnd64(s) >> rn(s, 64));
	case 2:		/* printable garbage */
		n = 1 + rn(s, 80);
		for (i = 0; i < n; i++)
			v[i] = (char)(' ' + rn(s, 95));
		return n;
	default:	/* any bytes, up to a page */
		n = 1 + rn(s, (unsigned int)cap);
		for (i = 0; i < n; i++)
			v[i] = (char)rnd64(s);
		return n;
	}
}

/*
 * The session device: files opened read-write (each a pair) or read-only,
 * its ioctls with random and boundary arguments, reads of any size, and
 * closes (a pair removed while its monitor and ends may be in use)
 */
static int fz_sess[3] = { -1, -1, -1 };
static unsigned long fz_sessions;

static __u32 fz_u32(uint64_t *s)
{
	static const __u32 edges[] = {
		0, 1, 2, 3, 7, 8, 79, 80, 81, 255, 256, 1023, 1024, 4095, 4096,
		4097, 65536, 4194304, 4194305, 0x7fffffffU, 0x80000000U, 0xffffffffU,
	};

	if (rn(s, 2))
		return edges[rn(s, sizeof(edges) / sizeof(edges[0]))];
	return (__u32)rnd64(s);
}

static int fz_session(uint64_t *s)
{
	int i = (int)rn(s, 3), fd = fz_sess[i];
	char buf[8192];
	union {
		struct ttypair_session_info info;
		struct ttypair_attr_value val;
		struct ttypair_monitor_target mon;
	} u;

	if (fd < 0 || !rn(s, 16)) {
		if (fd >= 0)
			close(fd);
		fd = open("/dev/" TTYPAIR_SESSION_DEVICE,
			  (rn(s, 3) ? O_RDWR : O_RDONLY) | O_NONBLOCK | O_CLOEXEC);
		fz_sess[i] = fd;
		fz_sessions++;
		/* EDQUOT, ENOSPC: the limits; ENOENT: a module without it */
		if (fd < 0 && errno != EDQUOT && errno != ENOSPC && errno != ENOENT) {
			printf("open /dev/" TTYPAIR_SESSION_DEVICE ": %s\n", strerror(errno));
			return -1;
		}
		return 0;
	}
	memset(&u, 0, sizeof(u));
	errno = 0;
	switch (rn(s, 7)) {
	case 0:
		u.info.size = fz_u32(s);
		fz_count(ioctl(fd, TTYPAIR_IOC_INFO, rn(s, 4) ? (unsigned long)&u : fz_arg(s)));
		break;
	case 1:
	case 2:
		u.val.attr = rn(s, 3) ? 1 + rn(s, 7) : fz_u32(s);
		u.val.end = rn(s, 3) ? rn(s, 2) : fz_u32(s);
		fz_value(s, u.val.value, rn(s, 8) ? sizeof(u.val.value) - 1 :
			 sizeof(u.val.value));
		fz_count(ioctl(fd, rn(s, 2) ? TTYPAIR_IOC_SET_ATTR : TTYPAIR_IOC_GET_ATTR,
			       rn(s, 6) ? (unsigned long)&u : fz_arg(s)));
		break;
	case 3:
		u.mon.kind = rn(s, 3) ? rn(s, 3) : fz_u32(s);
		u.mon.index = rn(s, 2) ? rn(s, 8) : fz_u32(s);
		if (u.mon.kind == TTYPAIR_MONITOR_BUS_PORT && fz_bus_line >= 0 && rn(s, 2))
			u.mon.index = fz_bus_line + rn(s, 3);
		u.mon.buffer = rn(s, 2) ? 0 : fz_u32(s);
		u.mon.reserved = rn(s, 8) ? 0 : fz_u32(s);
		fz_count(ioctl(fd, TTYPAIR_IOC_MONITOR, rn(s, 6) ? (unsigned long)&u : fz_arg(s)));
		break;
	case 4:		/* any request of the session's magic */
		fz_count(ioctl(fd, (rnd64(s) & 0xffff00ffUL) | (TTYPAIR_IOC_MAGIC << 8),
			       fz_arg(s)));
		break;
	default:	/* the monitor: reads of any size, some into bad memory */
		fz_count(rn(s, 4) ? read(fd, buf, rn(s, 2) ? fz_u32(s) % sizeof(buf) :
					 sizeof(buf)) :
			 syscall(SYS_read, fd, fz_arg(s), 1 + rn(s, 4096)));
		break;
	}
	return 0;
}

static int fz_attrs(uint64_t *s, unsigned long *writes, unsigned long *refused)
{
	static struct fz_attrs a;
	static char before[FZ_ATTRS][256], after[FZ_ATTRS][256];
	static char v[4096];
	int i, k, r;
	size_t n;

	if (!a.n) {
		char bus_port[48];

		snprintf(bus_port, sizeof(bus_port), "/sys/class/tty/ttyVPS%d", fz_bus_line + 1);
		fz_scan(&a, "/sys/class/tty/ttyVPA0");
		fz_scan(&a, CFG "/fuzz");
		fz_scan(&a, CFG "/buses/fuzzbus");
		fz_scan(&a, bus_port);
		if (a.n < 40) {
			printf("found only %d attributes\n", a.n);
			return -1;
		}
	}
	k = (int)rn(s, (unsigned int)a.n);
	if (!a.writable[k])
		return 0;
	if (fz_read_all(&a, before))
		return -1;
	n = fz_value(s, v, sizeof(v));
	r = write_str(a.path[k], v, n);
	(*writes)++;
	if (fz_read_all(&a, after))
		return -1;
	if (!r)
		return 0;
	(*refused)++;
	/* configfs answers a write of nothing with EFAULT (its own rule) */
	if (r != -EINVAL && r != -EBUSY && r != -ERANGE && r != -E2BIG && r != -EOVERFLOW &&
	    !(r == -EFAULT && !n)) {
		printf("writing %zu bytes to %s: unexpected %s\n", n, a.path[k], strerror(-r));
		return -1;
	}
	/*
	 * Counters, the open state and a pending injection (which a byte
	 * still on its way consumes) change by themselves.
	 */
	for (i = 0; i < a.n; i++)
		if (strcmp(before[i], after[i]) && !strstr(a.path[i], "/rx_") &&
		    !strstr(a.path[i], "/tx_") && !strstr(a.path[i], "/discarded") &&
		    !strstr(a.path[i], "/undriven") && !strstr(a.path[i], "/timer_runs") &&
		    !strstr(a.path[i], "/inject") && !strstr(a.path[i], "/open")) {
			printf("a refused write to %s changed %s from '%s' to '%s'\n",
			       a.path[k], a.path[i], before[i], after[i]);
			return -1;
		}
	return 0;
}

static int fz_names(uint64_t *s, unsigned long *made)
{
	char name[300], path[400];
	size_t n = 1 + rn(s, rn(s, 2) ? 40 : 280), i;
	int valid = rn(s, 2);	/* half of them from the allowed characters */

	for (i = 0; i < n; i++) {
		if (valid)
			name[i] = "abcdefghijklmnopqrstuvwxyz0123456789_-."[rn(s, 39)];
		else
			name[i] = (char)(1 + rn(s, 255));
		if (name[i] == '/')
			name[i] = '_';
	}
	name[n] = 0;
	/* a pair or a bus: they share the names */
	snprintf(path, sizeof(path), CFG "%s/%s", rn(s, 2) ? "/buses" : "", name);
	if (mkdir(path, 0755) == 0) {
		(*made)++;
		if (rmdir(path)) {
			printf("rmdir of a pair just made: %s\n", strerror(errno));
			return -1;
		}
	} else if (errno != EINVAL && errno != ENAMETOOLONG && errno != EEXIST) {
		printf("mkdir of a %zu-byte name: unexpected %s\n", n, strerror(errno));
		return -1;
	}
	return 0;
}

/* the driver's default cable (README, sysfs wiring) */
#define FZ_NULL_MODEM "cts=rts dsr=dtr dcd=dtr ri=off"

static int fz_still_works(void)
{
	struct termios t;
	char out[64], in[64];
	int a, b;
	size_t got = 0;
	ssize_t r;
	int ret = -1;

	/*
	 * The attributes outlive the opens. Back to the defaults first: a
	 * random cable such as dcd=!dtr drops A's carrier when B opens, and
	 * A, without CLOCAL until its tcsetattr, is hung up (EIO) as a real
	 * port would be.
	 */
	if (write_str("/sys/class/tty/ttyVPA0/wiring", FZ_NULL_MODEM, strlen(FZ_NULL_MODEM)) ||
	    write_str("/sys/class/tty/ttyVPB0/wiring", FZ_NULL_MODEM, strlen(FZ_NULL_MODEM))) {
		printf("pair 0 refuses the default wiring after the fuzzing\n");
		return -1;
	}
	write_str("/sys/class/tty/ttyVPA0/baud_emulation", "0", 1);
	write_str("/sys/class/tty/ttyVPA0/noise_ppm", "0", 1);
	write_str("/sys/class/tty/ttyVPA0/strict", "0", 1);
	write_str("/sys/class/tty/ttyVPA0/inject", "none", 4);
	write_str("/sys/class/tty/ttyVPB0/inject", "none", 4);
	/*
	 * O_NONBLOCK: the fuzzing may have left CLOCAL off, and a blocking
	 * open would wait for a carrier that nobody raises, as on a real port
	 */
	a = open("/dev/ttyVPA0", O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
	b = open("/dev/ttyVPB0", O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
	if (a < 0 || b < 0) {
		printf("reopening pair 0 after the fuzzing: %s\n", strerror(errno));
		goto out;
	}
	for (int *fd = &a; fd; fd = fd == &a ? &b : NULL) {
		memset(&t, 0, sizeof(t));
		cfmakeraw(&t);
		t.c_cflag |= CLOCAL | CREAD | CS8;
		cfsetspeed(&t, B115200);
		t.c_cc[VMIN] = 1;
		ioctl(*fd, TIOCNXCL);
		if (tcsetattr(*fd, TCSANOW, &t) || tcflush(*fd, TCIOFLUSH) ||
		    tcflow(*fd, TCOON) || tcflow(*fd, TCION) ||
		    fcntl(*fd, F_SETFL, O_RDWR)) {
			printf("resetting pair 0: %s\n", strerror(errno));
			goto out;
		}
	}
	for (size_t i = 0; i < sizeof(out); i++)
		out[i] = (char)i;
	alarm(10);	/* neither the write nor the reads may hang the test */
	if (write(a, out, sizeof(out)) != sizeof(out)) {
		alarm(0);
		printf("writing to ttyVPA0 after the fuzzing: %s\n", strerror(errno));
		goto out;
	}
	while (got < sizeof(in) && (r = read(b, in + got, sizeof(in) - got)) > 0)
		got += (size_t)r;
	alarm(0);
	if (got != sizeof(in) || memcmp(in, out, sizeof(in))) {
		printf("pair 0 carried %zu of %zu bytes correctly after the fuzzing\n",
		       got, sizeof(in));
		goto out;
	}
	ret = 0;
out:
	if (a >= 0)
		close(a);
	if (b >= 0)
		close(b);
	return ret;
}

/* strerrorname_np() is glibc 2.32, bullseye has 2.31 */
static const char *fz_errname(int e)
{
	static char num[16];

	switch (e) {
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case EINTR: return "EINTR";
	case EIO: return "EIO";
	case ENXIO: return "ENXIO";
	case EAGAIN: return "EAGAIN";
	case ENOMEM: return "ENOMEM";
	case EFAULT: return "EFAULT";
	case EBUSY: return "EBUSY";
	case ENODEV: return "ENODEV";
	case EINVAL: return "EINVAL";
	case ENOTTY: return "ENOTTY";
	case ENOSPC: return "ENOSPC";
	case ERANGE: return "ERANGE";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case 511: return "internal";
	}
	snprintf(num, sizeof(num), "errno%d", e);
	return num;
}

static int fuzz(unsigned int seconds, uint64_t seed)
{
	struct itimerval it = { { 0, 20000 }, { 0, 20000 } };
	unsigned long cmd, arg, writes = 0, refused = 0, made = 0, names = 0;
	int fd[4] = { -1, -1, -1, -1 }, i, bad = 0;
	uint64_t s = seed;
	double end = now() + seconds;

	printf("fuzz: seed %llu\n", (unsigned long long)seed);
	fz_pagesz = sysconf(_SC_PAGESIZE);
	fz_page = mmap(NULL, 3 * fz_pagesz, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (fz_page == MAP_FAILED || mprotect(fz_page + fz_pagesz, fz_pagesz, PROT_READ) ||
	    mprotect(fz_page + 2 * fz_pagesz, fz_pagesz, PROT_NONE))
		return 1;
	if (mkdir(CFG "/fuzz", 0755)) {
		printf("mkdir " CFG "/fuzz: %s\n", strerror(errno));
		return 1;
	}
	{
		char dev[64] = "";
		int f;

		if (mkdir(CFG "/buses/fuzzbus", 0755) ||
		    write_str(CFG "/buses/fuzzbus/ports", "3", 1)) {
			printf("making " CFG "/buses/fuzzbus with 3 ports failed\n");
			return 1;
		}
		f = open(CFG "/buses/fuzzbus/devices", O_RDONLY | O_CLOEXEC);
		if (f < 0 || read(f, dev, sizeof(dev) - 1) <= 0 ||
		    sscanf(dev, "ttyVPS%d", &fz_bus_line) != 1) {
			printf("reading the devices of " CFG "/buses/fuzzbus failed\n");
			return 1;
		}
		close(f);
	}
	for (i = 0; i < 4; i++)
		if (fz_reopen(&fd[i], &s))
			return 1;
	/* interrupt whatever blocks: breaks, drains, TIOCMIWAIT */
	setitimer(ITIMER_REAL, &it, NULL);
	while (!bad && now() < end) {
		switch (rn(&s, 20)) {
		case 0:
			bad = fz_reopen(&fd[rn(&s, 4)], &s);
			break;
		case 1:
		case 2:
			bad = fz_attrs(&s, &writes, &refused);
			break;
		case 3:
			names++;
			bad = fz_names(&s, &made);
			break;
		case 4:
		case 5:
			bad = fz_session(&s);
			break;
		default:
			i = (int)rn(&s, 4);
			if (fd[i] < 0) {
				bad = fz_reopen(&fd[i], &s);
				break;
			}
			do {
				cmd = fz_cmd(&s);
				arg = fz_arg(&s);
			} while (fz_excluded(cmd, arg));
			errno = 0;
			fz_count(ioctl(fd[i], cmd, arg));
			if (fz_calls % 7 == 0) {	/* and some data both ways */
				char buf[256];

				fz_count(write(fd[i], fz_page, 1 + rn(&s, 256)));
				fz_count(read(fd[i], buf, sizeof(buf)));
			}
			break;
		}
	}
	/*
	 * Closed with the timer still running: a random TIOCSSERIAL may have
	 * set closing_wait to minutes, and close waits that long for output
	 * that a random TCXONC stopped, as a real port would.
	 */
	for (i = 0; i < 4; i++)
		if (fd[i] >= 0)
			close(fd[i]);
	for (i = 0; i < 3; i++)
		if (fz_sess[i] >= 0)
			close(fz_sess[i]);
	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_REAL, &it, NULL);
	if (rmdir(CFG "/fuzz")) {
		printf("rmdir " CFG "/fuzz: %s\n", strerror(errno));
		bad = 1;
	}
	if (rmdir(CFG "/buses/fuzzbus")) {
		printf("rmdir " CFG "/buses/fuzzbus: %s\n", strerror(errno));
		bad = 1;
	}
	printf("fuzz: %lu calls (%lu succeeded), %lu attribute writes (%lu refused), %lu pair names (%lu made), %lu session opens\n",
	       fz_calls, fz_ok, writes, refused, names, made, fz_sessions);
	printf("fuzz: errors:");
	for (i = 1; i < 512; i++)
		if (fz_err[i])
			printf(" %s %lu", fz_errname(i), fz_err[i]);
	printf("\n");
	if (fz_err[511]) {
		printf("%lu calls returned an error number above 511 (a kernel-internal code)\n",
		       fz_err[511]);
		bad = 1;
	}
	if (!bad)
		bad = fz_still_works();
	printf("FUZZ calls=%lu attr_writes=%lu names=%lu\n", fz_calls, writes, names);
	return bad ? 1 : 0;
}

/* ------------------------------------------------------------------------
 * soak
 */
struct dir {
	int wfd, rfd;
	uint64_t seed;		/* the stream's */
	uint64_t total;
	uint64_t written, read;	/* bytes */
	unsigned long writes, reads;
	volatile int error;
	char why[160];
	double last_progress;
};

static unsigned long sk_settings, sk_modem;

/* byte i of a stream: its 8-byte word's hash, so a check knows any offset */
static unsigned char sk_byte(uint64_t seed, uint64_t pos, uint64_t *word, uint64_t *wpos)
{
	if (*wpos != (pos >> 3)) {
		uint64_t s = seed ^ ((pos >> 3) * 0xD1342543DE82EF95ULL);

		*wpos = pos >> 3;
		*word = rnd64(&s);
	}
	return (unsigned char)(*word >> ((pos & 7) * 8));
}

static unsigned int sk_size(uint64_t *s)
{
	/* sizes spread over 1 byte .. 64 KiB, small ones as likely as large */
	return 1 + rn(s, 1u << rn(s, 17));
}

static void *sk_writer(void *arg)
{
	struct dir *d = arg;
	static __thread unsigned char buf[65536];
	uint64_t s = d->seed + 1, word = 0, wpos = ~0ULL;
	size_t n, i;
	ssize_t r;

	while (d->written < d->total && !stop) {
		n = sk_size(&s);
		if (n > d->total - d->written)
			n = (size_t)(d->total - d->written);
		for (i = 0; i < n; i++)
			buf[i] = sk_byte(d->seed, d->written + i, &word, &wpos);
		for (i = 0; i < n && !stop; i += (size_t)r) {
			r = write(d->wfd, buf + i, n - i);
			if (r < 0) {
				if (errno == EINTR) {
					r = 0;
					continue;
				}
				snprintf(d->why, sizeof(d->why), "write: %s", strerror(errno));
				d->error = 1;
				return NULL;
			}
		}
		d->written += n;
		d->writes++;
	}
	return NULL;
}

static void *sk_reader(void *arg)
{
	struct dir *d = arg;
	static __thread unsigned char buf[65536];
	uint64_t s = d->seed + 2, word = 0, wpos = ~0ULL;
	struct pollfd p = { .fd = d->rfd, .events = POLLIN };
	ssize_t r;
	size_t i;

	while (d->read < d->total && !stop) {
		if (poll(&p, 1, 1000) <= 0)
			continue;	/* the main thread watches for a stall */
		r = read(d->rfd, buf, sk_size(&s));
		if (r < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			snprintf(d->why, sizeof(d->why), "read: %s", strerror(errno));
			d->error = 1;
			return NULL;
		}
		if (r == 0) {
			snprintf(d->why, sizeof(d->why), "read: end of file at byte %llu",
				 (unsigned long long)d->read);
			d->error = 1;
			return NULL;
		}
		for (i = 0; i < (size_t)r; i++)
			if (buf[i] != sk_byte(d->seed, d->read + i, &word, &wpos)) {
				snprintf(d->why, sizeof(d->why),
					 "byte %llu is 0x%02x, expected 0x%02x (lost, duplicated or reordered data)",
					 (unsigned long long)(d->read + i), buf[i],
					 sk_byte(d->seed, d->read + i, &word, &wpos));
				d->error = 1;
				return NULL;
			}
		d->read += (uint64_t)r;
		d->reads++;
		d->last_progress = now();
	}
	return NULL;
}

static int sk_open(const char *path)
{
	struct termios t;
	int fd = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC);

	if (fd < 0 || tcgetattr(fd, &t)) {
		printf("open %s: %s\n", path, strerror(errno));
		return -1;
	}
	cfmakeraw(&t);
	t.c_cflag |= CLOCAL | CREAD;
	t.c_cc[VMIN] = 1;
	t.c_cc[VTIME] = 0;
	cfsetspeed(&t, B115200);
	if (tcsetattr(fd, TCSANOW, &t)) {
		printf("tcsetattr %s: %s\n", path, strerror(errno));
		return -1;
	}
	return fd;
}

static void *sk_meddler(void *arg)
{
	int *fd = arg;
	uint64_t s = (uint64_t)fd[2];
	struct termios t;
	int bits;

	while (!stop) {
		usleep(rn(&s, 20000));
		if (rn(&s, 2)) {
			if (!tcgetattr(fd[rn(&s, 2)], &t)) {
				random_termios(&s, &t, 1);
				if (!tcsetattr(fd[rn(&s, 2)], TCSANOW, &t))
					sk_settings++;
			}
		} else {
			bits = (rn(&s, 2) ? TIOCM_DTR : 0) | (rn(&s, 2) ? TIOCM_RTS : 0);
			if (!ioctl(fd[rn(&s, 2)], rn(&s, 2) ? TIOCMBIS : TIOCMBIC, &bits))
				sk_modem++;
		}
	}
	return NULL;
}

static int soak(unsigned long mib, uint64_t seed)
{
	struct dir d[2];
	pthread_t th[5];
	int fd[3], i, bad = 0;
	double start, last = 0;
	uint64_t done;

	printf("soak: seed %llu, %lu MiB each way\n", (unsigned long long)seed, mib);
	if (write_str("/sys/class/tty/ttyVPA0/strict", "0", 1) ||
	    write_str("/sys/class/tty/ttyVPA0/baud_emulation", "0", 1)) {
		printf("cannot turn strict mode and baud emulation off\n");
		return 1;
	}
	fd[0] = sk_open("/dev/ttyVPA0");
	fd[1] = sk_open("/dev/ttyVPB0");
	fd[2] = (int)(seed & 0x7fffffff);
	if (fd[0] < 0 || fd[1] < 0)
		return 1;
	memset(d, 0, sizeof(d));
	for (i = 0; i < 2; i++) {
		d[i].wfd = fd[i];
		d[i].rfd = fd[!i];
		d[i].seed = seed * 2 + (uint64_t)i;
		d[i].total = (uint64_t)mib << 20;
		d[i].last_progress = now();
	}
	start = now();
	pthread_create(&th[0], NULL, sk_writer, &d[0]);
	pthread_create(&th[1], NULL, sk_reader, &d[0]);
	pthread_create(&th[2], NULL, sk_writer, &d[1]);
	pthread_create(&th[3], NULL, sk_reader, &d[1]);
	pthread_create(&th[4], NULL, sk_meddler, fd);
	for (;;) {
		usleep(100000);
		done = d[0].read + d[1].read;
		if (d[0].error || d[1].error) {
			bad = 1;
			break;
		}
		if (d[0].read == d[0].total && d[1].read == d[1].total)
			break;
		for (i = 0; i < 2; i++)
			if (d[i].read < d[i].total && now() - d[i].last_progress > 60) {
				snprintf(d[i].why, sizeof(d[i].why),
					 "no data for 60 s after byte %llu (%llu written)",
					 (unsigned long long)d[i].read,
					 (unsigned long long)d[i].written);
				bad = 1;
			}
		if (bad)
			break;
		if (now() - last > 30) {
			last = now();
			printf("# soak: %llu MiB of %lu so far\n",
			       (unsigned long long)(done >> 20), 2 * mib);
			fflush(stdout);
		}
	}
	stop = 1;
	for (i = 0; i < 5; i++)
		pthread_kill(th[i], SIGUSR1);
	if (!bad)
		for (i = 0; i < 5; i++)
			pthread_join(th[i], NULL);
	for (i = 0; i < 2; i++)
		if (d[i].why[0])
			printf("%s: %s\n", i ? "B to A" : "A to B", d[i].why);
	printf("soak: A to B %llu bytes in %lu writes, %lu reads; B to A %llu bytes in %lu writes, %lu reads; %lu setting changes, %lu modem-line changes; %.1f s\n",
	       (unsigned long long)d[0].read, d[0].writes, d[0].reads,
	       (unsigned long long)d[1].read, d[1].writes, d[1].reads,
	       sk_settings, sk_modem, now() - start);
	printf("SOAK bytes_each_way=%llu writes=%lu reads=%lu settings=%lu modem=%lu\n",
	       (unsigned long long)d[0].read, d[0].writes + d[1].writes,
	       d[0].reads + d[1].reads, sk_settings, sk_modem);
	if (!bad && (!sk_settings || !sk_modem)) {
		printf("the settings or the modem lines were never changed\n");
		bad = 1;
	}
	if (bad)
		_exit(1);	/* threads may still sit in the kernel */
	close(fd[0]);
	close(fd[1]);
	return 0;
}

/* ------------------------------------------------------------------------
 * module parameter values
 */
static int values(uint64_t seed, unsigned int n)
{
	static char v[4096];
	size_t len, i;

	while (n--) {
		len = fz_value(&seed, v, 200);
		for (i = 0; i < len; i++)	/* one per line, as modprobe takes them */
			if (v[i] == '\n' || v[i] == 0 || v[i] == '"' || v[i] == '\\')
				v[i] = '?';
		fwrite(v, 1, len, stdout);
		putchar('\n');
	}
	return 0;
}

static uint64_t seed_arg(const char *s)
{
	char *end;
	uint64_t v = strtoull(s, &end, 0);

	if (*end) {
		fprintf(stderr, "bad seed %s\n", s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	signals();
	setsid();
	if (argc == 5 && !strcmp(argv[1], "stress"))
		return stress((unsigned int)atoi(argv[2]), seed_arg(argv[3]),
			      (unsigned int)atoi(argv[4]));
	if (argc == 4 && !strcmp(argv[1], "fuzz"))
		return fuzz((unsigned int)atoi(argv[2]), seed_arg(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "soak"))
		return soak(strtoul(argv[2], NULL, 0), seed_arg(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "values"))
		return values(seed_arg(argv[2]), (unsigned int)atoi(argv[3]));
	fprintf(stderr, "usage: ttypair-stress stress SECONDS SEED PAIRS | fuzz SECONDS SEED |\n"
		"       soak MIB SEED | values SEED N\n");
	return 2;
}
