// SPDX-License-Identifier: GPL-2.0
/*
 * The cost of an idle, full pair: on each of N pairs a writer thread sleeps
 * in write() and a poller thread in poll(POLLOUT) on an end whose peer's
 * receive queue is full, and the peer's reader does nothing. Counts, over
 * SECONDS, how often those threads were woken (their context switches from
 * /proc: a thread asleep in a call is switched in only when woken) and how
 * often a timer of ttypair ran (the ends' timer_runs in sysfs). Then the
 * reader drains every pair: each writer must finish and each poller see
 * POLLOUT.
 *
 *   ttypair-idle [--pty] [--first IDX] [--pairs N] [--seconds S]
 *
 * Prints "BENCH idle <transport> <pairs> <metric> <value>" lines
 * (wakeups_per_s, and timer_expiries_per_s for ttypair) and a summary. Exits 1 when a writer or a poller
 * was not released by the reader, 2 on a setup error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#define MAX_PAIRS	64

struct idle_pair {
	int wfd, rfd;			/* the full end, and its peer's reader */
	pthread_t writer, poller;
	volatile pid_t wtid, ptid;
	volatile int written, polled;	/* done: bytes written, POLLOUT seen */
};

static struct idle_pair pairs[MAX_PAIRS];

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *what)
{
	fprintf(stderr, "ttypair-idle: %s: %s\n", what, strerror(errno));
	exit(2);
}

static int raw(int fd, const char *what)
{
	struct termios tio;

	if (fd < 0 || tcgetattr(fd, &tio))
		die(what);
	cfmakeraw(&tio);
	tio.c_cflag |= CLOCAL | CREAD;
	if (tcsetattr(fd, TCSANOW, &tio))
		die(what);
	return fd;
}

static void *writer(void *arg)
{
	static const char buf[65536];
	struct idle_pair *p = arg;
	size_t done = 0;
	ssize_t r;

	pthread_setname_np(pthread_self(), "idle-writer");
	p->wtid = syscall(SYS_gettid);
	while (done < sizeof(buf)) {
		r = write(p->wfd, buf + done, sizeof(buf) - done);
		if (r < 0 && errno != EINTR)
			return NULL;
		if (r > 0)
			done += r;
	}
	p->written = 1;
	return NULL;
}

static void *poller(void *arg)
{
	struct idle_pair *p = arg;
	struct pollfd pfd = { .fd = p->wfd, .events = POLLOUT };

	pthread_setname_np(pthread_self(), "idle-poller");
	p->ptid = syscall(SYS_gettid);
	while (poll(&pfd, 1, -1) < 0 && errno == EINTR)
		;
	p->polled = !!(pfd.revents & POLLOUT);
	return NULL;
}

/* State and system call of a thread of this process: 1 if asleep in one */
static int asleep(pid_t tid)
{
	char path[64], buf[512], *s;
	int fd, n;

	if (!tid)
		return 0;
	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	s = strrchr(buf, ')');
	return s && s[1] == ' ' && s[2] == 'S';
}

/* Times a thread was switched out, voluntarily or not */
static long switches(pid_t tid)
{
	char path[64], line[128];
	long v, sum = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/status", tid);
	f = fopen(path, "r");
	if (!f)
		die(path);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "voluntary_ctxt_switches: %ld", &v) == 1 ||
		    sscanf(line, "nonvoluntary_ctxt_switches: %ld", &v) == 1)
			sum += v;
	fclose(f);
	return sum;
}

/*
 * Runs of the transmit timers of both ends of ttypair's pair IDX
 * (their timer_runs files): a count the module keeps itself, so that
 * nothing has to switch a tracepoint on while the test runs (under TCG a
 * tracepoint enabled at run time patches kernel text across CPUs).
 */
static long long timer_runs(int idx)
{
	static const char *const name[] = { "ttyVPA", "ttyVPB" };
	long long v, sum = 0;
	char path[96];
	FILE *f;
	int e;

	for (e = 0; e < 2; e++) {
		snprintf(path, sizeof(path), "/sys/class/tty/%s%d/timer_runs",
			 name[e], idx);
		f = fopen(path, "r");
		if (!f)
			die(path);
		if (fscanf(f, "%lld", &v) != 1) {
			errno = EINVAL;
			die(path);
		}
		fclose(f);
		sum += v;
	}
	return sum;
}

int main(int argc, char **argv)
{
	const char *transport = "ttypair";
	int first = 0, n = 16, secs = 10, pty = 0, i, lost = 0;
	long long before = 0, after = 0, tbefore = 0, tafter = 0;
	char pa[64], pb[64], buf[65536];
	double t0;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--pty"))
			pty = 1;
		else if (!strcmp(argv[i], "--first") && i + 1 < argc)
			first = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--pairs") && i + 1 < argc)
			n = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			secs = atoi(argv[++i]);
		else
			n = -1;
	}
	if (n < 1 || n > MAX_PAIRS || secs < 1) {
		fprintf(stderr, "usage: ttypair-idle [--pty] [--first IDX] [--pairs 1..%d] [--seconds S]\n",
			MAX_PAIRS);
		return 2;
	}
	if (pty)
		transport = "pty";

	for (i = 0; i < n; i++) {
		struct idle_pair *p = &pairs[i];

		if (pty) {
			p->wfd = posix_openpt(O_RDWR | O_NOCTTY);
			if (p->wfd < 0 || grantpt(p->wfd) || unlockpt(p->wfd))
				die("posix_openpt");
			raw(p->wfd, "pty master");
			p->rfd = raw(open(ptsname(p->wfd), O_RDWR | O_NOCTTY),
				     ptsname(p->wfd));
		} else {
			snprintf(pa, sizeof(pa), "/dev/ttyVPA%d", first + i);
			snprintf(pb, sizeof(pb), "/dev/ttyVPB%d", first + i);
			p->wfd = raw(open(pa, O_RDWR | O_NOCTTY), pa);
			p->rfd = raw(open(pb, O_RDWR | O_NOCTTY), pb);
		}
		/*
		 * Fill the peer's receive queue, until it stays full once the
		 * flip buffer's work moved what it could to the line
		 * discipline; then write and poll, blocking.
		 */
		fcntl(p->wfd, F_SETFL, O_NONBLOCK);
		do {
			while (write(p->wfd, buf, 4096) > 0)
				;
			if (errno != EAGAIN)
				die("filling the receive queue");
			usleep(100000);
		} while (write(p->wfd, buf, 1) > 0);
		if (errno != EAGAIN)
			die("filling the receive queue");
		fcntl(p->wfd, F_SETFL, 0);
		if (pthread_create(&p->writer, NULL, writer, p) ||
		    pthread_create(&p->poller, NULL, poller, p))
			die("pthread_create");
	}
	/* Every thread asleep in its call, and settled */
	for (t0 = now_s(), i = 0; i < n; )
		if (asleep(pairs[i].wtid) && asleep(pairs[i].ptid)) {
			i++;
		} else if (now_s() - t0 > 10) {
			fprintf(stderr, "ttypair-idle: pair %d: the writer or the poller is not asleep\n",
				first + i);
			return 2;
		} else {
			usleep(10000);
		}
	usleep(500000);

	for (i = 0; i < n; i++) {
		before += switches(pairs[i].wtid) + switches(pairs[i].ptid);
		if (!pty)
			tbefore += timer_runs(first + i);
	}
	sleep(secs);
	for (i = 0; i < n; i++) {
		after += switches(pairs[i].wtid) + switches(pairs[i].ptid);
		if (!pty)
			tafter += timer_runs(first + i);
	}

	printf("BENCH idle %s %d wakeups_per_s %.6g\n", transport, n,
	       (double)(after - before) / secs);
	if (!pty)
		printf("BENCH idle %s %d timer_expiries_per_s %.6g\n",
		       transport, n, (double)(tafter - tbefore) / secs);

	/* The reader reads: every writer and poller goes on */
	for (i = 0; i < n; i++)
		fcntl(pairs[i].rfd, F_SETFL, O_NONBLOCK);
	for (t0 = now_s(); now_s() - t0 < 10; usleep(1000)) {
		int waiting = 0;

		for (i = 0; i < n; i++) {
			while (read(pairs[i].rfd, buf, sizeof(buf)) > 0)
				;
			waiting += !pairs[i].written || !pairs[i].polled;
		}
		if (!waiting)
			break;
	}
	for (i = 0; i < n; i++) {
		struct idle_pair *p = &pairs[i];

		if (!p->written || !p->polled) {
			printf("pair %d: the reader read, but the %s still waits\n",
			       first + i, p->written ? "poller" : "writer");
			lost++;
			continue;
		}
		pthread_join(p->writer, NULL);
		pthread_join(p->poller, NULL);
	}
	printf("%s, %d pairs, %d s idle: %lld wake-ups of the %d waiting threads",
	       transport, n, secs, after - before, 2 * n);
	if (!pty)
		printf(", %lld runs of ttypair's timers", tafter - tbefore);
	printf("; then %d of %d writers and pollers released by the reader in %.3f s\n",
	       n - lost, n, now_s() - t0);
	return lost ? 1 : 0;
}
