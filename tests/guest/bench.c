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
 * scale (ttypair only: time and memory to create pairs, memory per idle and
 * per open pair).
 *
 *   ttypair-bench [--smoke] [--max-pairs N]
 *
 * Expects the module loaded with at least 16 static pairs (pairs 0-15),
 * configfs mounted, and socat installed. --smoke runs every measurement
 * once with small sizes (for make check); --max-pairs is the most pairs the
 * scale section may create.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* Bytes to move per run for a write size: a few tenths of a second each */
static size_t volume(size_t size)
{
	size_t v = size == 1 ? 256 << 10 : size == 64 ? 8 << 20 : 64 << 20;

	return smoke ? v / 64 : v;
}

static void bench_stream(void)
{
	static const size_t sizes[] = { 1, 64, 4096, 65536 };
	int runs = smoke ? 1 : 5;
	double v[5];
	struct chan c;
	struct flow f[2];
	unsigned int s;
	int t, bidir, r;

	for (bidir = 0; bidir < 2; bidir++)
		for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
			for (t = 0; t < T_COUNT; t++) {
				chan_open(&c, t, 0);
				for (r = 0; r < runs; r++) {
					f[0] = (struct flow){ .wfd = c.a, .rfd = c.b,
							      .size = sizes[s],
							      .total = volume(sizes[s]) };
					f[1] = (struct flow){ .wfd = c.b, .rfd = c.a,
							      .size = sizes[s],
							      .total = volume(sizes[s]) };
					v[r] = run_flows(f, bidir + 1);
					if (v[r] < 0)
						die("stream");
				}
				chan_close(&c);
				report(bidir ? "bidir" : "oneway", t, sizes[s], "mib_s",
				       median(v, runs));
			}
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

static void bench_latency(void)
{
	int n = smoke ? 200 : 5000, warm = smoke ? 20 : 200;
	double *v = calloc(n, sizeof(*v)), t0;
	struct chan c;
	pthread_t th;
	char ch = 'p';
	int t, i;

	if (!v)
		die("calloc");
	for (t = 0; t < T_COUNT; t++) {
		chan_open(&c, t, 1);
		pthread_create(&th, NULL, echo_back, &c);
		for (i = -warm; i < n; i++) {
			t0 = now_s();
			if (write(c.a, &ch, 1) != 1 || read(c.a, &ch, 1) != 1)
				die("ping-pong");
			if (i >= 0)
				v[i] = (now_s() - t0) * 1e6;
		}
		/* the echo thread ends when its fd is closed under it */
		pthread_cancel(th);
		pthread_join(th, NULL);
		chan_close(&c);
		qsort(v, n, sizeof(*v), cmp_double);
		report("latency", t, 1, "median_us", v[n / 2]);
		report("latency", t, 1, "p99_us", v[(n * 99) / 100]);
	}
	free(v);
}

/* ------------------------------------------------------------------------ */
static void bench_pairs(void)
{
	static const int counts[] = { 1, 4, 16 };
	struct chan c[16];
	struct flow f[16];
	unsigned int k;
	int t, i, runs = smoke ? 1 : 3, r;
	double v[3];

	for (k = 0; k < sizeof(counts) / sizeof(counts[0]); k++)
		for (t = 0; t < T_COUNT; t++) {
			for (i = 0; i < counts[k]; i++)
				chan_open(&c[i], t, i);
			for (r = 0; r < runs; r++) {
				for (i = 0; i < counts[k]; i++)
					f[i] = (struct flow){ .wfd = c[i].a, .rfd = c[i].b,
							      .size = 4096,
							      .total = (smoke ? 1 : 16) << 20 };
				v[r] = run_flows(f, counts[k]);
				if (v[r] < 0)
					die("pairs");
			}
			for (i = 0; i < counts[k]; i++)
				chan_close(&c[i]);
			report("pairs", t, counts[k], "mib_s", median(v, runs));
		}
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
/* Slab memory in bytes (unreclaimable: what the module's objects use) */
static long slab_bytes(void)
{
	FILE *f;
	char line[256];
	long kb = -1;

	sync();
	f = fopen("/proc/sys/vm/drop_caches", "w");
	if (f) {
		fputs("3\n", f);
		fclose(f);
	}
	f = fopen("/proc/meminfo", "r");
	if (!f)
		die("/proc/meminfo");
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "SUnreclaim: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb * 1024;
}

static void bench_scale(void)
{
	static const int counts[] = { 1, 16, 256, 1024 };
	char dir[96], dev[64];
	long base, made, opened;
	double t0, t1;
	unsigned int k;
	int i, n, *fds;

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
		base = slab_bytes();
		t0 = now_s();
		for (i = 0; i < n; i++) {
			snprintf(dir, sizeof(dir), "/sys/kernel/config/ttypair/bench%d", i);
			if (mkdir(dir, 0755))
				die(dir);
		}
		t1 = now_s();
		made = slab_bytes();
		report("scale", T_TTYPAIR, counts[k], "create_ms", (t1 - t0) * 1e3);
		report("scale", T_TTYPAIR, counts[k], "idle_pair_bytes",
		       (double)(made - base) / n);
		for (i = 0; i < n; i++) {
			snprintf(dev, sizeof(dev), "/dev/ttyVPA%d", static_pairs + i);
			fds[2 * i] = open(dev, O_RDWR | O_NOCTTY | O_NONBLOCK);
			snprintf(dev, sizeof(dev), "/dev/ttyVPB%d", static_pairs + i);
			fds[2 * i + 1] = open(dev, O_RDWR | O_NOCTTY | O_NONBLOCK);
			if (fds[2 * i] < 0 || fds[2 * i + 1] < 0)
				die(dev);
		}
		opened = slab_bytes();
		report("scale", T_TTYPAIR, counts[k], "open_pair_bytes",
		       (double)(opened - made) / n);
		for (i = 0; i < 2 * n; i++)
			close(fds[i]);
		t0 = now_s();
		for (i = 0; i < n; i++) {
			snprintf(dir, sizeof(dir), "/sys/kernel/config/ttypair/bench%d", i);
			if (rmdir(dir))
				die(dir);
		}
		t1 = now_s();
		report("scale", T_TTYPAIR, counts[k], "remove_ms", (t1 - t0) * 1e3);
	}
	free(fds);
}

int main(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--smoke"))
			smoke = 1;
		else if (!strcmp(argv[i], "--max-pairs") && i + 1 < argc)
			max_pairs = atoi(argv[++i]);
		else {
			fprintf(stderr, "usage: ttypair-bench [--smoke] [--max-pairs N]\n");
			return 2;
		}
	}
	signal(SIGPIPE, SIG_IGN);
	bench_stream();
	bench_latency();
	bench_pairs();
	bench_baud();
	bench_scale();
	printf("BENCH done\n");
	return 0;
}
