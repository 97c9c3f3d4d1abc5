// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmarks of ttypair against the kernel's own pty and two ptys linked by
 * socat, in one guest run (so that the numbers compare). Prints one line
 * per measurement:
 *
 *   BENCH <section> <transport> <parameter> <metric> <value>
 *
 * sections: oneway and bidir (MiB/s by write size), latency (1-byte
 * ping-pong, microseconds), pairs (MiB/s of 1, 4, 16 pairs at once), baud
 * (ttypair only: error of the rate and of tcdrain against ideal, percent),
 * baudscale (ttypair only: 256 pairs streaming with baud-rate emulation:
 * CPU time and the error of their rates), scale (ttypair only: time to
 * create and remove pairs, kernel memory per idle and per open pair).
 * Measurements repeated in several runs print their median, and the
 * smallest and largest run as <metric>_min and <metric>_max. For those the
 * pseudo-transport "paired" gives ttypair/pty measured run by run: the
 * median of the ratios of the ttypair and pty runs made one right after
 * the other (and its smallest and largest), which a slow phase of the
 * emulator hits alike.
 *
 *   ttypair-bench [--smoke] [--only SECTION] [--static N] [--max-pairs N]
 *   ttypair-bench --one TRANSPORT SIZE   one way, SIZE-byte writes, 5 runs
 *                                        of one transport (for a profiler)
 *
 * Expects the module loaded with N static pairs (--static, default 16; the
 * data sections use pairs 0-15, baudscale all N), configfs mounted, and
 * socat installed. --smoke runs every measurement once with small sizes
 * (for make check); --only runs one section (stream, latency, pairs, baud,
 * baudscale, scale); the scale section creates up to max_pairs - N pairs in
 * configfs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

static int smoke;
static int max_pairs = 1024;
static int static_pairs = 16;

static const char *const transports[] = { "ttypair", "pty", "socat" };
enum { T_TTYPAIR, T_PTY, T_SOCAT, T_COUNT };

/* The most runs (or latency batches) of one measurement */
#define RUNS_MAX 20

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *what)
{
	fprintf(stderr, "ttypair-bench: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void report(const char *section, int t, long param, const char *metric, double v)
{
	printf("BENCH %s %s %ld %s %.6g\n", section, transports[t], param, metric, v);
	fflush(stdout);
}

static int raw_fd(int fd)
{
	struct termios tio;

	if (tcgetattr(fd, &tio))
		return -1;
	cfmakeraw(&tio);
	tio.c_cflag |= CLOCAL | CREAD;
	tio.c_cc[VMIN] = 1;
	tio.c_cc[VTIME] = 0;
	return tcsetattr(fd, TCSANOW, &tio);
}

/* ------------------------------------------------------------------------ */
/* A channel: two file descriptors joined by one of the transports. */
struct chan {
	int a, b;
	pid_t relay;	/* socat */
};

static int open_raw(const char *path)
{
	int fd = open(path, O_RDWR | O_NOCTTY);

	if (fd >= 0 && raw_fd(fd)) {
		close(fd);
		return -1;
	}
	return fd;
}

static void chan_open(struct chan *c, int t, int idx)
{
	char pa[64], pb[64];
	double t0;

	c->relay = 0;
	switch (t) {
	case T_TTYPAIR:
		snprintf(pa, sizeof(pa), "/dev/ttyVPA%d", idx);
		snprintf(pb, sizeof(pb), "/dev/ttyVPB%d", idx);
		c->a = open_raw(pa);
		c->b = open_raw(pb);
		break;
	case T_PTY:
		c->a = posix_openpt(O_RDWR | O_NOCTTY);
		if (c->a < 0 || grantpt(c->a) || unlockpt(c->a))
			die("posix_openpt");
		c->b = open_raw(ptsname(c->a));
		if (raw_fd(c->a))
			die("raw master");
		break;
	default:
		snprintf(pa, sizeof(pa), "/run/bench-sa%d", idx);
		snprintf(pb, sizeof(pb), "/run/bench-sb%d", idx);
		unlink(pa);
		unlink(pb);
		c->relay = fork();
		if (c->relay < 0)
			die("fork");
		if (!c->relay) {
			char x[96], y[96];

			snprintf(x, sizeof(x), "PTY,link=%s,cfmakeraw", pa);
			snprintf(y, sizeof(y), "PTY,link=%s,cfmakeraw", pb);
			execlp("socat", "socat", x, y, (char *)NULL);
			_exit(127);
		}
		for (t0 = now_s(); access(pa, F_OK) || access(pb, F_OK); usleep(10000))
			if (now_s() - t0 > 10) {
				errno = ETIMEDOUT;
				die("socat did not make its ptys");
			}
		c->a = open_raw(pa);
		c->b = open_raw(pb);
		break;
	}
	if (c->a < 0 || c->b < 0)
		die(transports[t]);
}

static void chan_close(struct chan *c)
{
	close(c->a);
	close(c->b);
	if (c->relay > 0) {
		kill(c->relay, SIGTERM);
		waitpid(c->relay, NULL, 0);
	}
}

/* ------------------------------------------------------------------------ */
/* Streams: a writer and a reader thread per direction. */
struct flow {
	int wfd, rfd;
	size_t size, total;
	pthread_t wt, rt;
	int err;
};

static void *writer(void *arg)
{
	struct flow *f = arg;
	static const char zero[65536];
	size_t done = 0, n;
	ssize_t r;

	while (done < f->total) {
		n = f->total - done < f->size ? f->total - done : f->size;
		r = write(f->wfd, zero, n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			f->err = errno;
			return NULL;
		}
		done += r;
	}
	return NULL;
}

static void *reader(void *arg)
{
	struct flow *f = arg;
	static __thread char buf[65536];
	size_t done = 0;
	ssize_t r;

	while (done < f->total) {
		r = read(f->rfd, buf, sizeof(buf));
		if (r <= 0) {
			if (r < 0 && errno == EINTR)
				continue;
			f->err = r ? errno : EPIPE;
			return NULL;
		}
		done += r;
	}
	return NULL;
}

/* Run the flows at once; MiB/s of all of them together, -1 on an error. */
static double run_flows(struct flow *f, int n)
{
	double t0, t1;
	size_t bytes = 0;
	int i;

	t0 = now_s();
	for (i = 0; i < n; i++) {
		f[i].err = 0;
		pthread_create(&f[i].rt, NULL, reader, &f[i]);
		pthread_create(&f[i].wt, NULL, writer, &f[i]);
	}
	for (i = 0; i < n; i++) {
		pthread_join(f[i].wt, NULL);
		pthread_join(f[i].rt, NULL);
		bytes += f[i].total;
		if (f[i].err) {
			errno = f[i].err;
			return -1;
		}
	}
	t1 = now_s();
	return bytes / (t1 - t0) / (1024.0 * 1024.0);
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The median of n runs, and the smallest and largest as _min and _max */
static void report_runs(const char *section, int t, long param,
			const char *metric, double *v, int n)
{
	char m[64];

	report(section, t, param, metric, median(v, n));
	snprintf(m, sizeof(m), "%s_min", metric);
	report(section, t, param, m, v[0]);
	snprintf(m, sizeof(m), "%s_max", metric);
	report(section, t, param, m, v[n - 1]);
}

/*
 * ttypair/pty run by run, for runs v[T_TTYPAIR][r] and v[T_PTY][r] made
 * back to back: their median, smallest and largest as the "paired" rows.
 */
static void report_paired(const char *section, long param, const char *metric,
			  double (*v)[RUNS_MAX], int n)
{
	double q[RUNS_MAX];
	char m[64];
	int r;

	for (r = 0; r < n; r++)
		q[r] = v[T_PTY][r] > 0 ? v[T_TTYPAIR][r] / v[T_PTY][r] : 0;
	printf("BENCH %s paired %ld %s %.6g\n", section, param, metric, median(q, n));
	snprintf(m, sizeof(m), "%s_min", metric);
	printf("BENCH %s paired %ld %s %.6g\n", section, param, m, q[0]);
	snprintf(m, sizeof(m), "%s_max", metric);
	printf("BENCH %s paired %ld %s %.6g\n", section, param, m, q[n - 1]);
	fflush(stdout);
}

/*
 * The transport of turn i of run r: ttypair and pty take turns at going
 * first, so that neither always follows socat or starts a round; socat
 * goes last.
 */
static int turn(int r, int i)
{
	if (i == T_SOCAT)
		return T_SOCAT;
	return r % 2 ? T_PTY - i : i;
}

/* Bytes to move per run for a write size: one to two seconds each under TCG */
static size_t volume(size_t size)
{
	size_t v = size == 1 ? 256 << 10 : size == 64 ? 8 << 20 : 32 << 20;

	return smoke ? v / 64 : v;
}

/*
 * The runs of the three transports take turns (run 1 of each, then run 2 of
 * each, ...), so that a slow phase of the emulator hits them alike.
 */
#define RUNS 9

static void bench_stream(void)
{
	static const size_t sizes[] = { 1, 64, 4096, 65536 };
	int runs = smoke ? 1 : RUNS;
	double v[T_COUNT][RUNS_MAX];
	struct chan c[T_COUNT];
	struct flow f[2];
	unsigned int s;
	int t, bidir, r, i;

	for (t = 0; t < T_COUNT; t++)
		chan_open(&c[t], t, 0);
	for (bidir = 0; bidir < 2; bidir++)
		for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
			for (r = 0; r < runs; r++)
				for (i = 0; i < T_COUNT; i++) {
					t = turn(r, i);
					f[0] = (struct flow){ .wfd = c[t].a, .rfd = c[t].b,
							      .size = sizes[s],
							      .total = volume(sizes[s]) };
					f[1] = (struct flow){ .wfd = c[t].b, .rfd = c[t].a,
							      .size = sizes[s],
							      .total = volume(sizes[s]) };
					v[t][r] = run_flows(f, bidir + 1);
					if (v[t][r] < 0)
						die("stream");
				}
			report_paired(bidir ? "bidir" : "oneway", sizes[s], "mib_s",
				      v, runs);
			for (t = 0; t < T_COUNT; t++)
				report_runs(bidir ? "bidir" : "oneway", t, sizes[s],
					    "mib_s", v[t], runs);
		}
	for (t = 0; t < T_COUNT; t++)
		chan_close(&c[t]);
}

/* ------------------------------------------------------------------------ */
static void *echo_back(void *arg)
{
	struct chan *c = arg;
	char ch;

	while (read(c->b, &ch, 1) == 1)
		if (write(c->b, &ch, 1) != 1)
			break;
	return NULL;
}

/*
 * Round trips in batches of 250, the transports taking turns; the median
 * of each batch shows the spread from batch to batch.
 */
static void bench_latency(void)
{
	int n = smoke ? 250 : 5000, batch = 250, warm = 50, b;
	double *v[T_COUNT], t0, bmed[T_COUNT][RUNS_MAX], tmp[250];
	struct chan c[T_COUNT];
	pthread_t th[T_COUNT];
	char ch = 'p';
	int t, i, k, done;

	for (t = 0; t < T_COUNT; t++) {
		v[t] = calloc(n, sizeof(double));
		if (!v[t])
			die("calloc");
		chan_open(&c[t], t, 1);
		pthread_create(&th[t], NULL, echo_back, &c[t]);
		for (i = 0; i < warm; i++)
			if (write(c[t].a, &ch, 1) != 1 || read(c[t].a, &ch, 1) != 1)
				die("ping-pong");
	}
	for (done = 0; done < n; done += batch)
		for (k = 0; k < T_COUNT; k++)
			for (t = turn(done / batch, k), i = done;
			     i < done + batch && i < n; i++) {
				t0 = now_s();
				if (write(c[t].a, &ch, 1) != 1 || read(c[t].a, &ch, 1) != 1)
					die("ping-pong");
				v[t][i] = (now_s() - t0) * 1e6;
			}
	for (t = 0; t < T_COUNT; t++)
		for (b = 0; b < n / batch; b++) {
			memcpy(tmp, &v[t][b * batch], sizeof(tmp));
			bmed[t][b] = median(tmp, batch);
		}
	report_paired("latency", 1, "median_us", bmed, n / batch);
	for (t = 0; t < T_COUNT; t++) {
		pthread_cancel(th[t]);
		pthread_join(th[t], NULL);
		chan_close(&c[t]);
		qsort(v[t], n, sizeof(double), cmp_double);
		report("latency", t, 1, "median_us", v[t][n / 2]);
		qsort(bmed[t], n / batch, sizeof(double), cmp_double);
		report("latency", t, 1, "median_us_min", bmed[t][0]);
		report("latency", t, 1, "median_us_max", bmed[t][n / batch - 1]);
		report("latency", t, 1, "p99_us", v[t][(n * 99) / 100]);
		free(v[t]);
	}
}

/* ------------------------------------------------------------------------ */
static void bench_pairs(void)
{
	static const int counts[] = { 1, 4, 16 };
	static struct chan c[T_COUNT][16];
	struct flow f[16];
	unsigned int k;
	int t, i, runs = smoke ? 1 : 5, r, j;
	double v[T_COUNT][RUNS_MAX];

	for (t = 0; t < T_COUNT; t++)
		for (i = 0; i < 16; i++)
			chan_open(&c[t][i], t, i);
	for (k = 0; k < sizeof(counts) / sizeof(counts[0]); k++) {
		for (r = 0; r < runs; r++)
			for (j = 0; j < T_COUNT; j++) {
				t = turn(r, j);
				for (i = 0; i < counts[k]; i++)
					f[i] = (struct flow){ .wfd = c[t][i].a, .rfd = c[t][i].b,
							      .size = 4096,
							      .total = (smoke ? 1 : 8) << 20 };
				v[t][r] = run_flows(f, counts[k]);
				if (v[t][r] < 0)
					die("pairs");
			}
		report_paired("pairs", counts[k], "mib_s", v, runs);
		for (t = 0; t < T_COUNT; t++)
			report_runs("pairs", t, counts[k], "mib_s", v[t], runs);
	}
	for (t = 0; t < T_COUNT; t++)
		for (i = 0; i < 16; i++)
			chan_close(&c[t][i]);
}

/* ------------------------------------------------------------------------ */
static int sysfs_write(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, val, strlen(val)) == (ssize_t)strlen(val);
	close(fd);
	return ok ? 0 : -1;
}

static speed_t speed_of(int baud)
{
	switch (baud) {
	case 1200: return B1200;
	case 9600: return B9600;
	case 115200: return B115200;
	default: return B921600;
	}
}

struct baud_reader {
	int fd;
	size_t total;
	double first, last;
	size_t first_n;
};

static void *baud_read(void *arg)
{
	struct baud_reader *br = arg;
	char buf[4096];
	size_t done = 0;
	ssize_t r;

	while (done < br->total) {
		r = read(br->fd, buf, sizeof(buf));
		if (r <= 0)
			break;
		if (!done) {
			br->first = now_s();
			br->first_n = r;
		}
		done += r;
		br->last = now_s();
	}
	return NULL;
}

static void bench_baud(void)
{
	static const int rates[] = { 1200, 9600, 115200, 921600 };
	double secs = smoke ? 0.5 : 2.0, t0, t1, ideal_rate, rate;
	struct baud_reader br;
	struct termios tio;
	struct chan c;
	pthread_t th;
	char *buf;
	size_t n;
	unsigned int i;

	if (sysfs_write("/sys/class/tty/ttyVPA2/baud_emulation", "1"))
		die("baud_emulation");
	for (i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		chan_open(&c, T_TTYPAIR, 2);
		tcgetattr(c.a, &tio);
		cfsetspeed(&tio, speed_of(rates[i]));
		tcsetattr(c.a, TCSANOW, &tio);
		tcsetattr(c.b, TCSANOW, &tio);
		n = rates[i] / 10 * secs;	/* 8N1: 10 bits a character */
		buf = calloc(1, n);
		if (!buf)
			die("calloc");
		br = (struct baud_reader){ .fd = c.b, .total = n };
		pthread_create(&th, NULL, baud_read, &br);
		t0 = now_s();
		if (write(c.a, buf, n) != (ssize_t)n || tcdrain(c.a))
			die("baud write");
		t1 = now_s();
		pthread_join(th, NULL);
		ideal_rate = rates[i] / 10.0;
		/* the reader: characters after the first read over their span */
		rate = (n - br.first_n) / (br.last - br.first);
		report("baud", T_TTYPAIR, rates[i], "rate_error_pct",
		       (rate / ideal_rate - 1) * 100);
		report("baud", T_TTYPAIR, rates[i], "tcdrain_error_pct",
		       ((t1 - t0) / (n / ideal_rate) - 1) * 100);
		free(buf);
		chan_close(&c);
	}
	sysfs_write("/sys/class/tty/ttyVPA2/baud_emulation", "0");
}

/* ------------------------------------------------------------------------ */
/* Baud-rate emulation at scale: many pairs streaming at once, paced */
struct bs_pair {
	int a, b;
	size_t sent, got, first_n;
	double first, last;
};

struct bs_run {
	struct bs_pair *p;
	int n;
	size_t total;
};

/* CPU time of the guest so far in clock ticks: all busy time; softirq apart */
static long busy_ticks(long *softirq)
{
	long v[8] = { 0 };
	FILE *f = fopen("/proc/stat", "r");

	if (!f || fscanf(f, "cpu %ld %ld %ld %ld %ld %ld %ld %ld", &v[0], &v[1],
			 &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) != 8)
		die("/proc/stat");
	fclose(f);
	*softirq = v[6];
	return v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
}

/* One thread writes to every A end as its FIFO takes more */
static void *bs_writer(void *arg)
{
	static const char zero[4096];
	struct bs_run *run = arg;
	struct pollfd *pfd = calloc(run->n, sizeof(*pfd));
	int i, k, left;
	ssize_t r;

	if (!pfd)
		die("calloc");
	do {
		for (i = 0, k = 0; i < run->n; i++)
			if (run->p[i].sent < run->total)
				pfd[k++] = (struct pollfd){ .fd = run->p[i].a,
							    .events = POLLOUT };
		if (poll(pfd, k, 1000) < 0)
			die("poll");
		left = 0;
		for (i = 0; i < run->n; i++) {
			struct bs_pair *p = &run->p[i];
			size_t want = run->total - p->sent;

			if (!want)
				continue;
			r = write(p->a, zero, want < sizeof(zero) ? want : sizeof(zero));
			if (r > 0)
				p->sent += r;
			else if (r < 0 && errno != EAGAIN)
				die("write");
			left += p->sent < run->total;
		}
	} while (left);
	free(pfd);
	return NULL;
}

/*
 * 256 pairs (the static ones) at 115200 and at 921600 baud with emulation
 * on, for a few seconds: the guest's CPU time (all of it, and softirq time,
 * where ttypair's timers run) per second of streaming above an idle second,
 * in percent of one CPU, and the error of each pair's received rate.
 */
static void bench_baud_scale(void)
{
	static const int rates[] = { 115200, 921600 };
	int n = smoke ? 16 : static_pairs, secs = smoke ? 1 : 3, i, k, left;
	long hz = sysconf(_SC_CLK_TCK), b0, b1, s0, s1, idle_busy, idle_soft;
	struct bs_pair *p = calloc(n, sizeof(*p));
	struct pollfd *pfd = calloc(n, sizeof(*pfd));
	double t0, t1, ideal, *err = calloc(n, sizeof(double));
	char path[96], buf[4096];
	struct termios tio;
	struct bs_run run;
	unsigned int r;
	pthread_t th;
	ssize_t got;

	if (!p || !pfd || !err)
		die("calloc");
	for (r = 0; r < sizeof(rates) / sizeof(rates[0]); r++) {
		for (i = 0; i < n; i++) {
			snprintf(path, sizeof(path),
				 "/sys/class/tty/ttyVPA%d/baud_emulation", i);
			if (sysfs_write(path, "1"))
				die(path);
			snprintf(path, sizeof(path), "/dev/ttyVPA%d", i);
			p[i] = (struct bs_pair){ .a = open_raw(path) };
			snprintf(path, sizeof(path), "/dev/ttyVPB%d", i);
			p[i].b = open_raw(path);
			if (p[i].a < 0 || p[i].b < 0)
				die(path);
			tcgetattr(p[i].a, &tio);
			cfsetspeed(&tio, rates[r] == 115200 ? B115200 : B921600);
			tcsetattr(p[i].a, TCSANOW, &tio);
			tcsetattr(p[i].b, TCSANOW, &tio);
			fcntl(p[i].a, F_SETFL, O_NONBLOCK);
			fcntl(p[i].b, F_SETFL, O_NONBLOCK);
		}
		/* An idle second: what the guest costs with nothing moving */
		b0 = busy_ticks(&s0);
		sleep(1);
		b1 = busy_ticks(&s1);
		idle_busy = b1 - b0;
		idle_soft = s1 - s0;

		run = (struct bs_run){ .p = p, .n = n,
				       .total = rates[r] / 10 * secs };
		b0 = busy_ticks(&s0);
		t0 = now_s();
		pthread_create(&th, NULL, bs_writer, &run);
		do {
			for (i = 0, k = 0; i < n; i++)
				if (p[i].got < run.total)
					pfd[k++] = (struct pollfd){ .fd = p[i].b,
								    .events = POLLIN };
			if (poll(pfd, k, 1000) < 0)
				die("poll");
			left = 0;
			for (i = 0; i < n; i++) {
				got = read(p[i].b, buf, sizeof(buf));
				if (got > 0) {
					if (!p[i].got) {
						p[i].first = now_s();
						p[i].first_n = got;
					}
					p[i].got += got;
					p[i].last = now_s();
				}
				left += p[i].got < run.total;
			}
		} while (left && now_s() - t0 < 10 * secs + 30);
		t1 = now_s();
		b1 = busy_ticks(&s1);
		pthread_join(th, NULL);
		if (left)
			die("baudscale: the pairs did not deliver in time");

		report("baudscale", T_TTYPAIR, rates[r], "cpu_pct",
		       ((b1 - b0) / (t1 - t0) - idle_busy) * 100.0 / hz);
		report("baudscale", T_TTYPAIR, rates[r], "softirq_cpu_pct",
		       ((s1 - s0) / (t1 - t0) - idle_soft) * 100.0 / hz);
		ideal = rates[r] / 10.0;
		for (i = 0; i < n; i++)
			err[i] = ((p[i].got - p[i].first_n) /
				  (p[i].last - p[i].first) / ideal - 1) * 100;
		qsort(err, n, sizeof(double), cmp_double);
		report_runs("baudscale", T_TTYPAIR, rates[r], "rate_error_pct",
			    err, n);
		for (i = 0; i < n; i++) {
			close(p[i].a);
			close(p[i].b);
			snprintf(path, sizeof(path),
				 "/sys/class/tty/ttyVPA%d/baud_emulation", i);
			sysfs_write(path, "0");
		}
	}
	free(p);
	free(pfd);
	free(err);
}

/* ------------------------------------------------------------------------ */
/*
 * Kernel memory in bytes: slab (pairs, tty structures, devices, sysfs and
 * configfs nodes, buffers), vmalloc (n_tty's per-tty data) and per-CPU
 * memory, read once the counters settled: objects of pairs just removed
 * are freed after an RCU grace period, so the caches are dropped and the
 * counters read until two readings half a second apart agree within
 * 16 KiB.
 */
static long kernel_bytes(void)
{
	long prev = -1, cur = 0, v;
	char line[256];
	FILE *f;
	int i;

	for (i = 0; i < 20; i++) {
		sync();
		f = fopen("/proc/sys/vm/drop_caches", "w");
		if (f) {
			fputs("3\n", f);
			fclose(f);
		}
		f = fopen("/proc/meminfo", "r");
		if (!f)
			die("/proc/meminfo");
		cur = 0;
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "Slab: %ld kB", &v) == 1 ||
			    sscanf(line, "VmallocUsed: %ld kB", &v) == 1 ||
			    sscanf(line, "Percpu: %ld kB", &v) == 1)
				cur += v * 1024;
		fclose(f);
		if (prev >= 0 && labs(cur - prev) < 16384)
			break;
		prev = cur;
		usleep(500000);
	}
	return cur;
}

/*
 * Creating and removing 1 to 1024 pairs in configfs, 3 rounds each; the
 * kernel memory of a pair, idle and with both ends open, where enough
 * pairs are made at once for it to stand above the noise of the counters
 * (256 and 1024; 16 in a smoke run).
 */
static void bench_scale(void)
{
	static const int counts[] = { 1, 16, 256, 1024 };
	double create[3], removal[3], idle[3], opened[3], t0, t1;
	int rounds = smoke ? 1 : 3, i, n, r, *fds, memory;
	long base = 0, made = 0, open_ = 0;
	char dir[96], dev[64];
	unsigned int k;

	fds = calloc(2 * 1024, sizeof(*fds));
	if (!fds)
		die("calloc");
	for (k = 0; k < sizeof(counts) / sizeof(counts[0]); k++) {
		n = counts[k];
		if (n > max_pairs - static_pairs) {
			n = max_pairs - static_pairs;
			report("scale", T_TTYPAIR, counts[k], "capped_to", n);
		}
		if (n < 1)
			continue;
		if (smoke && n > 16)
			break;
		memory = n >= (smoke ? 16 : 256);
		for (r = 0; r < rounds; r++) {
			if (memory)
				base = kernel_bytes();
			t0 = now_s();
			for (i = 0; i < n; i++) {
				snprintf(dir, sizeof(dir), "/sys/kernel/config/ttypair/bench%d", i);
				if (mkdir(dir, 0755))
					die(dir);
			}
			t1 = now_s();
			create[r] = (t1 - t0) * 1e3;
			if (memory)
				made = kernel_bytes();
			for (i = 0; i < n; i++) {
				snprintf(dev, sizeof(dev), "/dev/ttyVPA%d", static_pairs + i);
				fds[2 * i] = open(dev, O_RDWR | O_NOCTTY | O_NONBLOCK);
				snprintf(dev, sizeof(dev), "/dev/ttyVPB%d", static_pairs + i);
				fds[2 * i + 1] = open(dev, O_RDWR | O_NOCTTY | O_NONBLOCK);
				if (fds[2 * i] < 0 || fds[2 * i + 1] < 0)
					die(dev);
			}
			if (memory) {
				open_ = kernel_bytes();
				idle[r] = (double)(made - base) / n;
				opened[r] = (double)(open_ - made) / n;
			}
			for (i = 0; i < 2 * n; i++)
				close(fds[i]);
			t0 = now_s();
			for (i = 0; i < n; i++) {
				snprintf(dir, sizeof(dir), "/sys/kernel/config/ttypair/bench%d", i);
				if (rmdir(dir))
					die(dir);
			}
			t1 = now_s();
			removal[r] = (t1 - t0) * 1e3;
		}
		report_runs("scale", T_TTYPAIR, counts[k], "create_ms", create, rounds);
		if (memory) {
			report_runs("scale", T_TTYPAIR, counts[k], "idle_pair_bytes",
				    idle, rounds);
			report_runs("scale", T_TTYPAIR, counts[k], "open_pair_bytes",
				    opened, rounds);
		}
		report_runs("scale", T_TTYPAIR, counts[k], "remove_ms", removal, rounds);
	}
	free(fds);
}

/* ------------------------------------------------------------------------ */
/*
 * A bus: port 0 sends 4 KiB writes, every other port reads them all.
 * Measured: what the sender moves and what all listeners receive together
 * (MiB/s), for buses of 2, 8 and 32 ports (a 2-port bus against a pair's
 * one-way row: the cost of a bus's way), and what each listener beyond
 * the first costs, in % of the 2-port bus's time.
 */
struct bus_flow {
	int fd;
	size_t total;
};

static void *bus_writer(void *arg)
{
	struct bus_flow *f = arg;
	static char buf[4096];
	size_t done = 0;
	ssize_t w;

	while (done < f->total) {
		w = write(f->fd, buf, sizeof(buf));
		if (w < 0) {
			struct pollfd p = { .fd = f->fd, .events = POLLOUT };

			if (errno != EAGAIN)
				die("bus: write");
			poll(&p, 1, 1000);
			continue;
		}
		done += (size_t)w;
	}
	return NULL;
}

static double bus_run(int n, size_t total)
{
	char dir[96], path[160], list[32 * 16], *p = list;
	int fds[32], i, k, left;
	struct pollfd pfd[32];
	size_t got[32] = { 0 };
	static char buf[65536];
	struct bus_flow f;
	pthread_t th;
	double t0, t;
	FILE *fp;

	snprintf(dir, sizeof(dir), "/sys/kernel/config/ttypair/buses/bench%d", n);
	snprintf(path, sizeof(path), "%s/ports", dir);
	snprintf(list, sizeof(list), "%d", n);
	if (mkdir(dir, 0755) || sysfs_write(path, list))
		die(dir);
	snprintf(path, sizeof(path), "%s/devices", dir);
	fp = fopen(path, "r");
	if (!fp || fread(list, 1, sizeof(list) - 1, fp) == 0)
		die(path);
	fclose(fp);
	for (i = 0; i < n; i++) {
		int len = (int)strcspn(p, "\n");

		snprintf(path, sizeof(path), "/dev/%.*s", len, p);
		p += len + 1;
		fds[i] = open_raw(path);
		if (fds[i] < 0)
			die(path);
		fcntl(fds[i], F_SETFL, O_NONBLOCK);
	}
	f = (struct bus_flow){ .fd = fds[0], .total = total };
	t0 = now_s();
	pthread_create(&th, NULL, bus_writer, &f);
	do {
		for (i = 1, k = 0; i < n; i++)
			if (got[i] < total)
				pfd[k++] = (struct pollfd){ .fd = fds[i], .events = POLLIN };
		if (poll(pfd, k, 5000) <= 0)
			die("bus: the listeners stopped receiving");
		left = 0;
		for (i = 1; i < n; i++) {
			ssize_t r = read(fds[i], buf, sizeof(buf));

			if (r > 0)
				got[i] += (size_t)r;
			left += got[i] < total;
		}
	} while (left);
	t = now_s() - t0;
	pthread_join(th, NULL);
	for (i = 0; i < n; i++)
		close(fds[i]);
	if (rmdir(dir))
		die(dir);
	return t;
}

static void bench_bus(void)
{
	static const int ports[] = { 2, 8, 32 };
	size_t total = smoke ? 256 * 1024 : 8 << 20;
	int rounds = smoke ? 1 : 3, k, r;
	double sent[3], recv[3], took[3], base = 0;

	for (k = 0; k < 3; k++) {
		for (r = 0; r < rounds; r++) {
			took[r] = bus_run(ports[k], total);
			sent[r] = total / took[r] / (1 << 20);
			recv[r] = sent[r] * (ports[k] - 1);
		}
		report_runs("bus", T_TTYPAIR, ports[k], "sent_mib_s", sent, rounds);
		report_runs("bus", T_TTYPAIR, ports[k], "received_mib_s", recv, rounds);
		qsort(took, rounds, sizeof(double), cmp_double);
		if (k == 0)
			base = took[rounds / 2];
		else
			report("bus", T_TTYPAIR, ports[k], "listener_cost_pct",
			       (took[rounds / 2] / base - 1) / (ports[k] - 2) * 100);
	}
}

/* One transport, one way, one write size: to profile, not to compare */
static void bench_one(const char *transport, size_t size)
{
	struct chan c;
	struct flow f;
	int t, r;

	for (t = 0; t < T_COUNT && strcmp(transports[t], transport); t++)
		;
	if (t == T_COUNT || !size || size > 65536) {
		fprintf(stderr, "ttypair-bench: --one ttypair|pty|socat 1..65536\n");
		exit(2);
	}
	chan_open(&c, t, 0);
	for (r = 0; r < 5; r++) {
		f = (struct flow){ .wfd = c.a, .rfd = c.b, .size = size,
				   .total = volume(size) };
		report("oneway", t, size, "mib_s", run_flows(&f, 1));
	}
	chan_close(&c);
}

static const struct section {
	const char *name;
	void (*fn)(void);
} sections[] = {
	{ "stream", bench_stream },
	{ "latency", bench_latency },
	{ "pairs", bench_pairs },
	{ "baud", bench_baud },
	{ "baudscale", bench_baud_scale },
	{ "scale", bench_scale },
	{ "bus", bench_bus },
};

int main(int argc, char **argv)
{
	const char *only = NULL;
	unsigned int k;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--smoke")) {
			smoke = 1;
		} else if (!strcmp(argv[i], "--max-pairs") && i + 1 < argc) {
			max_pairs = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--static") && i + 1 < argc) {
			static_pairs = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--one") && i + 2 < argc) {
			bench_one(argv[i + 1], atoi(argv[i + 2]));
			return 0;
		} else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
			only = argv[++i];
		} else {
			fprintf(stderr, "usage: ttypair-bench [--smoke] [--only SECTION] [--static N] [--max-pairs N]\n");
			return 2;
		}
	}
	signal(SIGPIPE, SIG_IGN);
	/* the scale section holds both ends of up to 1024 pairs open */
	if (setrlimit(RLIMIT_NOFILE, &(struct rlimit){ 8192, 8192 }))
		die("setrlimit");
	for (k = 0; k < sizeof(sections) / sizeof(sections[0]); k++)
		if (!only || !strcmp(only, sections[k].name))
			sections[k].fn();
	printf("BENCH done\n");
	return 0;
}
