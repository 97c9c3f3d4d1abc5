// SPDX-License-Identifier: GPL-2.0
/*
 * Functional tests of buses: N ports on one RS-485 line (configfs
 * buses/<name>, /dev/ttyVPS<n>). Their configfs directory and its values at
 * the limits; delivery of every port's bytes to every other port, in
 * order, with 2, 3, 8 and 32 ports; whole frames from concurrent writers,
 * in one order for all receivers; the echo of RS-485's RX_DURING_TX; when
 * a port drives the line; no loss by default (a slow listener holds the
 * senders back) and the overrun setting; baud-rate emulation; removal while
 * ports are open and blocked. Each test makes buses of its own and removes
 * them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/serial.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include "tlib.h"
#include "../../include/uapi/ttypair.h"

#define CFG		"/sys/kernel/config/ttypair"
#define BUSES		CFG "/buses"
#define MAX_PORTS	32

/* include/uapi/linux/serial.h, as every suite's headers have it */
#define RS485_ENABLED		(1U << 0)
#define RS485_RTS_ON_SEND	(1U << 1)
#define RS485_RTS_AFTER_SEND	(1U << 2)
#define RS485_RX_DURING_TX	(1U << 4)

struct rs485 {
	uint32_t flags;
	uint32_t before;
	uint32_t after;
	uint32_t padding[5];
};

struct bus {
	char name[40];
	int n;
	int line[MAX_PORTS];
	int fd[MAX_PORTS];
};

static int bus_cfg_put(const struct bus *b, const char *attr, const char *val)
{
	char path[160];

	snprintf(path, sizeof(path), BUSES "/%s/%s", b->name, attr);
	return file_write(path, val);
}

static int bus_cfg_get(const struct bus *b, const char *attr, char *buf,
		       size_t len)
{
	char path[160];

	snprintf(path, sizeof(path), BUSES "/%s/%s", b->name, attr);
	return file_read(path, buf, len);
}

/* sysfs attribute of port @k */
static int port_put(const struct bus *b, int k, const char *attr,
		    const char *val)
{
	char path[160];

	snprintf(path, sizeof(path), "/sys/class/tty/%s%d/%s",
		 TTYPAIR_NAME_BUS, b->line[k], attr);
	return file_write(path, val);
}

static int port_get(const struct bus *b, int k, const char *attr, char *buf,
		    size_t len)
{
	char path[160];

	snprintf(path, sizeof(path), "/sys/class/tty/%s%d/%s",
		 TTYPAIR_NAME_BUS, b->line[k], attr);
	return file_read(path, buf, len);
}

static unsigned long long port_counter(const struct bus *b, int k,
				       const char *attr)
{
	char buf[32];

	if (port_get(b, k, attr, buf, sizeof(buf)))
		return ~0ULL;
	return strtoull(buf, NULL, 10);
}

/* The bus's directory with @n ports (0: none made), their lines read */
static int bus_make(struct bus *b, const char *name, int n)
{
	char path[160], val[16], list[MAX_PORTS * 16], *p;
	int k, err;

	memset(b, 0, sizeof(*b));
	for (k = 0; k < MAX_PORTS; k++)
		b->fd[k] = -1;
	snprintf(b->name, sizeof(b->name), "%s", name);
	if (configfs_mounted())
		return -1;
	snprintf(path, sizeof(path), BUSES "/%s", name);
	if (mkdir(path, 0755))
		return fail("mkdir %s: %s", path, strerror(errno));
	if (!n)
		return 0;
	snprintf(val, sizeof(val), "%d", n);
	err = bus_cfg_put(b, "ports", val);
	if (err)
		return fail("bus %s: ports=%d: %s", name, n, strerror(-err));
	err = bus_cfg_get(b, "devices", list, sizeof(list));
	if (err)
		return fail("bus %s: devices: %s", name, strerror(-err));
	for (p = list, k = 0; k < n; k++) {
		size_t pre = strlen(TTYPAIR_NAME_BUS);

		if (strncmp(p, TTYPAIR_NAME_BUS, pre))
			return fail("bus %s: devices reads '%s'", name, list);
		b->line[k] = (int)strtol(p + pre, &p, 10);
		if (k && b->line[k] != b->line[k - 1] + 1)
			return fail("bus %s: port %d is line %d after %d: not consecutive",
				    name, k, b->line[k], b->line[k - 1]);
		while (*p == '\n')
			p++;
	}
	if (*p)
		return fail("bus %s: devices lists more than %d ports: '%s'", name, n, list);
	b->n = n;
	return 0;
}

/* Open port @k raw, 8 bits, receiver on, no modem control */
static int bus_open(struct bus *b, int k, int flags)
{
	char path[64];
	struct termios t;
	int fd;

	snprintf(path, sizeof(path), "/dev/%s%d", TTYPAIR_NAME_BUS, b->line[k]);
	fd = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC | flags);
	if (fd < 0)
		return fail("open %s: %s", path, strerror(errno));
	if (tcgetattr(fd, &t)) {
		close(fd);
		return fail("tcgetattr %s: %s", path, strerror(errno));
	}
	cfmakeraw(&t);
	t.c_cflag |= CLOCAL | CREAD;
	t.c_cc[VMIN] = 1;
	t.c_cc[VTIME] = 0;
	if (tcsetattr(fd, TCSANOW, &t)) {
		close(fd);
		return fail("tcsetattr %s: %s", path, strerror(errno));
	}
	b->fd[k] = fd;
	return fd;
}

static int bus_open_all(struct bus *b)
{
	int k;

	for (k = 0; k < b->n; k++)
		if (bus_open(b, k, 0) < 0)
			return -1;
	return 0;
}

/* Close the ports and remove the bus; 0, or -1 after fail() */
static int bus_remove(struct bus *b)
{
	char path[160];
	int k;

	for (k = 0; k < b->n; k++) {
		if (b->fd[k] >= 0) {
			tcflush(b->fd[k], TCIOFLUSH);
			close(b->fd[k]);
			b->fd[k] = -1;
		}
	}
	snprintf(path, sizeof(path), BUSES "/%s", b->name);
	if (rmdir(path))
		return fail("rmdir %s: %s", path, strerror(errno));
	return 0;
}

static int rs485_set(int fd, uint32_t flags, const char *what)
{
	struct rs485 r = { .flags = flags };

	if (ioctl(fd, TIOCSRS485, &r))
		return fail("%s: TIOCSRS485 %#x: %s", what, flags, strerror(errno));
	if (r.flags != flags)
		return fail("%s: TIOCSRS485 %#x took effect as %#x", what, flags, r.flags);
	return 0;
}

/* Nothing arrives at @fd within @ms; else fail() naming @what */
static int quiet(int fd, int ms, const char *what)
{
	char c;

	if (readable(fd, ms) > 0) {
		if (read(fd, &c, 1) == 1)
			return fail("%s: received %#x", what, (unsigned char)c);
		return fail("%s: readable", what);
	}
	return 0;
}

/* Read @len bytes at @fd and compare them with @want */
static int expect(int fd, const void *want, size_t len, const char *what)
{
	char buf[256];

	if (len > sizeof(buf))
		return fail("expect: %zu bytes", len);
	if (read_full(fd, buf, len, 2000) != (ssize_t)len)
		return fail("%s: not all of %zu bytes arrived", what, len);
	if (memcmp(buf, want, len))
		return fail("%s: the bytes differ", what);
	return 0;
}

/* ------------------------------------------------------------------------ */
/*
 * The directory of a bus: no ports until "ports" is written, once, with a
 * number from 2 to 32; every value around the limits; the devices; the
 * port attributes; the names shared with pairs.
 */
static int bus_configfs_checks(void);

static int t_bus_configfs(void)
{
	int ret = bus_configfs_checks();

	/* whatever failed, nothing is left to pin the module */
	rmdir(CFG "/samename");
	rmdir(BUSES "/samename");
	rmdir(BUSES "/cfg");
	return ret;
}

static int bus_configfs_checks(void)
{
	static const char *const bad[] = {
		"0", "1", "33", "-1", "", "x", "2x", "4294967298",
		"18446744073709551618", "2147483648", "4294967295", " ", "3 4",
	};
	char buf[256], path[160];
	struct bus b;
	size_t i;
	int err, k;
	struct stat st;

	if (bus_make(&b, "cfg", 0))
		return -1;
	if (bus_cfg_get(&b, "ports", buf, sizeof(buf)) || strcmp(buf, "0"))
		return fail("a new bus's ports reads '%s', not 0", buf);
	if (bus_cfg_get(&b, "devices", buf, sizeof(buf)) || buf[0])
		return fail("a new bus's devices reads '%s'", buf);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err = bus_cfg_put(&b, "ports", bad[i]);
		/*
		 * A write of nothing never reaches the module: configfs
		 * answers it with EFAULT (6.x) or takes it as written (5.10);
		 * either way nothing changes, as "ports" reads below
		 */
		if (!bad[i][0] && (!err || err == -EFAULT))
			continue;
		if (err != -EINVAL)
			return fail("ports='%s': %s, not EINVAL", bad[i],
				    err ? strerror(-err) : "accepted");
	}
	if (bus_cfg_get(&b, "ports", buf, sizeof(buf)) || strcmp(buf, "0"))
		return fail("ports reads '%s' after refused values", buf);
	if (bus_cfg_put(&b, "ports", "3\n"))
		return fail("ports=3 refused");
	b.n = 3;
	if (bus_cfg_get(&b, "ports", buf, sizeof(buf)) || strcmp(buf, "3"))
		return fail("ports reads '%s', not 3", buf);
	err = bus_cfg_put(&b, "ports", "4");
	if (err != -EBUSY)
		return fail("a second ports=4: %s, not EBUSY", err ? strerror(-err) : "accepted");
	err = bus_cfg_put(&b, "ports", "3");
	if (err != -EBUSY)
		return fail("a second ports=3: %s, not EBUSY", err ? strerror(-err) : "accepted");
	b.n = 0;
	if (bus_remove(&b) || bus_make(&b, "cfg", 3))
		return -1;
	for (k = 0; k < 3; k++) {
		char want[8];

		snprintf(path, sizeof(path), "/dev/%s%d", TTYPAIR_NAME_BUS, b.line[k]);
		if (stat(path, &st) || !S_ISCHR(st.st_mode))
			return fail("no device node %s", path);
		if (port_get(&b, k, "bus", buf, sizeof(buf)) || strcmp(buf, "cfg"))
			return fail("%s: bus reads '%s'", path, buf);
		snprintf(want, sizeof(want), "%d", k);
		if (port_get(&b, k, "port", buf, sizeof(buf)) || strcmp(buf, want))
			return fail("%s: port reads '%s', not %s", path, buf, want);
		if (port_get(&b, k, "drive", buf, sizeof(buf)) || strcmp(buf, "auto"))
			return fail("%s: drive reads '%s', not auto", path, buf);
		if (port_get(&b, k, "wiring", buf, sizeof(buf)) != -ENOENT)
			return fail("%s has a wiring attribute", path);
		if (port_get(&b, k, "peer", buf, sizeof(buf)) != -ENOENT)
			return fail("%s has a peer attribute", path);
	}
	for (i = 0; i < 3; i++) {
		static const char *const drives[] = { "rts", "always", "auto" };

		if (port_put(&b, 1, "drive", drives[i]) ||
		    port_get(&b, 1, "drive", buf, sizeof(buf)) || strcmp(buf, drives[i]))
			return fail("drive=%s reads back as '%s'", drives[i], buf);
	}
	/* (an empty write to sysfs is no write: it never reaches the driver) */
	for (i = 0; i < 3; i++) {
		static const char *const baddrive[] = { "RTS", "on", "rts always" };

		err = port_put(&b, 1, "drive", baddrive[i]);
		if (err != -EINVAL)
			return fail("drive='%s': %s, not EINVAL", baddrive[i],
				    err ? strerror(-err) : "accepted");
	}
	if (bus_cfg_put(&b, "overrun", "1") || port_get(&b, 2, "overrun", buf, sizeof(buf)) ||
	    strcmp(buf, "1"))
		return fail("overrun=1 in configfs reads '%s' on port 2", buf);
	if (port_put(&b, 0, "overrun", "0") || bus_cfg_get(&b, "overrun", buf, sizeof(buf)) ||
	    strcmp(buf, "0"))
		return fail("overrun=0 on port 0 reads '%s' in configfs", buf);
	if (bus_cfg_put(&b, "overrun", "maybe") != -EINVAL ||
	    bus_cfg_put(&b, "noise_ppm", "1000001") != -EINVAL ||
	    bus_cfg_put(&b, "baud_emulation", "2") != -EINVAL)
		return fail("a bad setting was not refused with EINVAL");
	/* names are shared with pairs: they name the directories of /dev/ttypair */
	snprintf(path, sizeof(path), CFG "/cfg");
	if (!mkdir(path, 0755)) {
		rmdir(path);
		return fail("a pair took the name of the bus 'cfg'");
	}
	if (errno != EEXIST)
		return fail("a pair named as the bus: %s, not EEXIST", strerror(errno));
	if (mkdir(CFG "/samename", 0755))
		return fail("mkdir pair samename: %s", strerror(errno));
	err = mkdir(BUSES "/samename", 0755) ? errno : 0;
	rmdir(CFG "/samename");
	if (err != EEXIST) {
		if (!err)
			rmdir(BUSES "/samename");
		return fail("a bus named as the pair: %s, not EEXIST",
			    err ? strerror(err) : "made");
	}
	if (!mkdir(BUSES "/.hidden", 0755) || errno != EINVAL)
		return fail("bus name .hidden: not refused with EINVAL");
	if (!mkdir(CFG "/buses", 0755) || errno != EEXIST)
		return fail("a pair named buses: not refused with EEXIST");
	if (bus_remove(&b))
		return -1;
	snprintf(path, sizeof(path), "/dev/%s%d", TTYPAIR_NAME_BUS, b.line[0]);
	if (!stat(path, &st))
		return fail("%s is still there after rmdir", path);
	return 0;
}

/* ------------------------------------------------------------------------ */
struct reader {
	struct bus *b;
	int k;			/* this port */
	size_t bytes;		/* each sender sends this many */
	int err;
	char why[200];
};

/* Port r->k reads every other port's stream in turn, checked */
static void *delivery_reader(void *arg)
{
	struct reader *r = arg;
	unsigned char *buf = malloc(r->bytes);
	struct stream s;
	int k;

	for (k = 0; buf && k < r->b->n; k++) {
		if (k == r->k)
			continue;
		if (read_full(r->b->fd[r->k], buf, r->bytes, 10000) != (ssize_t)r->bytes) {
			snprintf(r->why, sizeof(r->why), "port %d: the bytes of port %d stopped coming",
				 r->k, k);
			r->err = 1;
			break;
		}
		stream_init(&s, 1000 + k);
		if (stream_check(&s, buf, r->bytes)) {
			snprintf(r->why, sizeof(r->why), "port %d: the bytes of port %d differ",
				 r->k, k);
			r->err = 1;
			break;
		}
	}
	free(buf);
	return NULL;
}

/*
 * Each port in turn sends @bytes (more than a receive queue holds); every
 * other port receives them all, in order, and the sender nothing of its
 * own. The counters agree.
 */
static int delivery(int n, size_t bytes)
{
	struct reader rd[MAX_PORTS];
	pthread_t th[MAX_PORTS];
	unsigned char *buf;
	struct stream s;
	char name[16];
	struct bus b;
	double t;
	int k, ret = 0;

	snprintf(name, sizeof(name), "deliver%d", n);
	if (bus_make(&b, name, n) || bus_open_all(&b))
		return -1;
	buf = malloc(bytes);
	if (!buf)
		return fail("out of memory");
	for (k = 0; k < n; k++) {
		rd[k] = (struct reader){ .b = &b, .k = k, .bytes = bytes };
		pthread_create(&th[k], NULL, delivery_reader, &rd[k]);
	}
	t = now();
	for (k = 0; k < n && !ret; k++) {
		stream_init(&s, 1000 + k);
		stream_fill(&s, buf, bytes);
		if (write_full(b.fd[k], buf, bytes) != (ssize_t)bytes)
			ret = fail("port %d: write: %s", k, strerror(errno));
	}
	for (k = 0; k < n; k++) {
		pthread_join(th[k], NULL);
		if (rd[k].err && !ret)
			ret = fail("%s", rd[k].why);
	}
	t = now() - t;
	free(buf);
	for (k = 0; k < n && !ret; k++) {
		unsigned long long rx = port_counter(&b, k, "rx_bytes");
		unsigned long long tx = port_counter(&b, k, "tx_bytes");

		if (quiet(b.fd[k], 0, "a sender after all the traffic"))
			ret = -1;
		else if (rx != (unsigned long long)(n - 1) * bytes || tx != bytes)
			ret = fail("port %d: rx_bytes %llu tx_bytes %llu, expected %llu and %zu",
				   k, rx, tx, (unsigned long long)(n - 1) * bytes, bytes);
	}
	if (!ret)
		note("%d ports: %d x %zu bytes, each received by %d ports, in %.2f s",
		     n, n, bytes, n - 1, t);
	return bus_remove(&b) || ret ? -1 : 0;
}

static int t_bus_delivery_2(void)
{
	return delivery(2, 65536);
}

static int t_bus_delivery_3(void)
{
	return delivery(3, 65536);
}

static int t_bus_delivery_8(void)
{
	return delivery(8, 32768);
}

static int t_bus_delivery_32(void)
{
	return delivery(32, 8192);
}

/* ------------------------------------------------------------------------ */
/*
 * Concurrent writers: each of 8 ports writes frames of 8 to 1024 bytes
 * (port, sequence number, length, payload, a checksum) while all read.
 * Every port receives every frame of the others whole, each sender's in
 * order, and all ports see the frames in one order.
 */
#define CW_PORTS	8
#define CW_FRAMES	150
#define CW_MAX		1024

struct cw {
	struct bus *b;
	int k;
	int err;
	char why[200];
	int order[CW_PORTS * CW_FRAMES];	/* sender * CW_FRAMES + seq */
	int got;
};

static uint16_t cw_sum(const unsigned char *p, size_t n)
{
	uint16_t s = 0;

	while (n--)
		s = (uint16_t)(s * 31 + *p++);
	return s;
}

static void *cw_writer(void *arg)
{
	struct cw *c = arg;
	unsigned char f[CW_MAX];
	uint64_t seed = 77 + c->k;
	int seq;

	for (seq = 0; seq < CW_FRAMES; seq++) {
		size_t len = 8 + rnd(&seed) % (CW_MAX - 7), i;
		uint16_t sum;

		f[0] = (unsigned char)c->k;
		f[1] = (unsigned char)seq;
		f[2] = (unsigned char)(len >> 8);
		f[3] = (unsigned char)len;
		for (i = 4; i < len - 2; i++)
			f[i] = (unsigned char)rnd(&seed);
		sum = cw_sum(f, len - 2);
		f[len - 2] = (unsigned char)(sum >> 8);
		f[len - 1] = (unsigned char)sum;
		/* one write(2) per frame: a bus takes it whole */
		if (write(c->b->fd[c->k], f, len) != (ssize_t)len) {
			snprintf(c->why, sizeof(c->why), "port %d: frame %d: short write", c->k, seq);
			c->err = 1;
			return NULL;
		}
	}
	return NULL;
}

static void *cw_reader(void *arg)
{
	struct cw *c = arg;
	unsigned char f[CW_MAX];
	int next[CW_PORTS] = { 0 };
	int want = (CW_PORTS - 1) * CW_FRAMES;

	while (c->got < want) {
		size_t len;

		if (read_full(c->b->fd[c->k], f, 4, 10000) != 4)
			goto stopped;
		len = (size_t)f[2] << 8 | f[3];
		if (f[0] >= CW_PORTS || f[0] == c->k || len < 8 || len > CW_MAX ||
		    f[1] != (unsigned char)next[f[0]]) {
			snprintf(c->why, sizeof(c->why),
				 "port %d: frame %d: a header port %u seq %u len %zu, expected a frame from another port",
				 c->k, c->got, f[0], f[1], len);
			c->err = 1;
			return NULL;
		}
		if (read_full(c->b->fd[c->k], f + 4, len - 4, 10000) != (ssize_t)(len - 4))
			goto stopped;
		if (cw_sum(f, len - 2) != ((uint16_t)f[len - 2] << 8 | f[len - 1])) {
			snprintf(c->why, sizeof(c->why),
				 "port %d: frame %d of port %u is not whole (checksum)",
				 c->k, f[1], f[0]);
			c->err = 1;
			return NULL;
		}
		c->order[c->got++] = f[0] * CW_FRAMES + next[f[0]]++;
	}
	return NULL;
stopped:
	snprintf(c->why, sizeof(c->why), "port %d: frames stopped coming after %d", c->k, c->got);
	c->err = 1;
	return NULL;
}

static int t_bus_concurrent_writers(void)
{
	static struct cw c[CW_PORTS];
	pthread_t w[CW_PORTS], r[CW_PORTS];
	struct bus b;
	int k, j, ret = 0;

	if (bus_make(&b, "writers", CW_PORTS) || bus_open_all(&b))
		return -1;
	for (k = 0; k < CW_PORTS; k++) {
		memset(&c[k], 0, sizeof(c[k]));
		c[k].b = &b;
		c[k].k = k;
		pthread_create(&r[k], NULL, cw_reader, &c[k]);
	}
	for (k = 0; k < CW_PORTS; k++)
		pthread_create(&w[k], NULL, cw_writer, &c[k]);
	for (k = 0; k < CW_PORTS; k++)
		pthread_join(w[k], NULL);
	for (k = 0; k < CW_PORTS; k++) {
		pthread_join(r[k], NULL);
		if (c[k].err && !ret)
			ret = fail("%s", c[k].why);
	}
	/*
	 * One order: for any two receivers, the frames of the senders other
	 * than both of them come in the same order.
	 */
	for (k = 0; k < CW_PORTS && !ret; k++) {
		for (j = k + 1; j < CW_PORTS && !ret; j++) {
			int x = 0, y = 0, n = 0;

			for (;;) {
				while (x < c[k].got && c[k].order[x] / CW_FRAMES == j)
					x++;
				while (y < c[j].got && c[j].order[y] / CW_FRAMES == k)
					y++;
				if (x == c[k].got || y == c[j].got)
					break;
				if (c[k].order[x] != c[j].order[y]) {
					ret = fail("ports %d and %d saw frame %d of port %d and frame %d of port %d in different orders",
						   k, j, c[k].order[x] % CW_FRAMES,
						   c[k].order[x] / CW_FRAMES,
						   c[j].order[y] % CW_FRAMES,
						   c[j].order[y] / CW_FRAMES);
					break;
				}
				x++;
				y++;
				n++;
			}
			if (!ret && n != (CW_PORTS - 2) * CW_FRAMES)
				ret = fail("ports %d and %d share %d frames, expected %d",
					   k, j, n, (CW_PORTS - 2) * CW_FRAMES);
		}
	}
	if (!ret)
		note("%d ports wrote %d frames each at once; all frames whole, in one order",
		     CW_PORTS, CW_FRAMES);
	return bus_remove(&b) || ret ? -1 : 0;
}

/* ------------------------------------------------------------------------ */
/*
 * RS-485's RX_DURING_TX: a port hears its own transmission when it is set
 * (kept by TIOCSRS485 on a bus port), not otherwise; the others hear it
 * either way.
 */
static int t_bus_echo_rx_during_tx(void)
{
	struct bus b;
	int ret;

	if (bus_make(&b, "echo", 3) || bus_open_all(&b))
		return -1;
	ret = rs485_set(b.fd[0], RS485_ENABLED | RS485_RTS_ON_SEND | RS485_RX_DURING_TX,
			"port 0") ||
	      rs485_set(b.fd[1], RS485_ENABLED | RS485_RTS_ON_SEND, "port 1");
	if (!ret && write_full(b.fd[0], "hello", 5) != 5)
		ret = fail("port 0: write: %s", strerror(errno));
	ret = ret || expect(b.fd[0], "hello", 5, "port 0's echo") ||
	      expect(b.fd[1], "hello", 5, "port 1 from port 0") ||
	      expect(b.fd[2], "hello", 5, "port 2 from port 0");
	if (!ret && write_full(b.fd[1], "abc", 3) != 3)
		ret = fail("port 1: write: %s", strerror(errno));
	ret = ret || expect(b.fd[0], "abc", 3, "port 0 from port 1") ||
	      expect(b.fd[2], "abc", 3, "port 2 from port 1") ||
	      quiet(b.fd[1], 300, "port 1 without RX_DURING_TX, after sending");
	if (!ret && write_full(b.fd[2], "z", 1) != 1)
		ret = fail("port 2: write: %s", strerror(errno));
	ret = ret || expect(b.fd[0], "z", 1, "port 0 from port 2") ||
	      expect(b.fd[1], "z", 1, "port 1 from port 2") ||
	      quiet(b.fd[2], 300, "port 2 (RS-485 off), after sending");
	if (!ret) {
		char buf[128];

		if (port_get(&b, 0, "rs485", buf, sizeof(buf)) ||
		    !strstr(buf, " rx_during_tx "))
			ret = fail("port 0: rs485 reads '%s', without rx_during_tx", buf);
	}
	return bus_remove(&b) || ret ? -1 : 0;
}

/* ------------------------------------------------------------------------ */
/* Port 0 sends @c: ports 1 and 2 receive it if @driven, else nothing */
static int drive_check(struct bus *b, char c, int driven, const char *what)
{
	unsigned long long before = port_counter(b, 0, "undriven_bytes");
	char got;

	if (write_full(b->fd[0], &c, 1) != 1)
		return fail("%s: write: %s", what, strerror(errno));
	tcdrain(b->fd[0]);
	if (!driven) {
		if (quiet(b->fd[1], 300, what) || quiet(b->fd[2], 0, what))
			return -1;
		if (port_counter(b, 0, "undriven_bytes") != before + 1)
			return fail("%s: undriven_bytes %llu, expected %llu", what,
				    port_counter(b, 0, "undriven_bytes"), before + 1);
		return 0;
	}
	for (int k = 1; k <= 2; k++)
		if (read_full(b->fd[k], &got, 1, 2000) != 1 || got != c)
			return fail("%s: port %d did not receive it", what, k);
	return 0;
}

/*
 * When a port drives the line: auto (always; in RS-485 mode while it
 * sends), rts (while RTS is asserted, by TIOCMSET or by RS-485's send
 * level), always. Undriven bytes go nowhere and are counted, and so does a
 * break.
 */
static int t_bus_drive_modes(void)
{
	int rts = TIOCM_RTS, ret;
	struct serial_icounter_struct ic1, ic2;
	struct bus b;

	if (bus_make(&b, "drive", 3) || bus_open_all(&b))
		return -1;
	ret = drive_check(&b, 'a', 1, "auto, RS-485 off") ||
	      rs485_set(b.fd[0], RS485_ENABLED | RS485_RTS_ON_SEND, "port 0") ||
	      drive_check(&b, 'b', 1, "auto, RS-485 on") ||
	      rs485_set(b.fd[0], 0, "port 0") ||
	      port_put(&b, 0, "drive", "rts") ||
	      drive_check(&b, 'c', 1, "rts, RTS raised by the open");
	if (!ret && ioctl(b.fd[0], TIOCMBIC, &rts))
		ret = fail("TIOCMBIC: %s", strerror(errno));
	ret = ret || drive_check(&b, 'd', 0, "rts, RTS dropped");
	/* a break while not driving reaches nobody */
	if (!ret && (ioctl(b.fd[1], TIOCGICOUNT, &ic1) || tcsendbreak(b.fd[0], 0) ||
		     ioctl(b.fd[1], TIOCGICOUNT, &ic2)))
		ret = fail("break: %s", strerror(errno));
	if (!ret && ic2.brk != ic1.brk)
		ret = fail("a break sent without driving the line reached port 1");
	if (!ret && ioctl(b.fd[0], TIOCMBIS, &rts))
		ret = fail("TIOCMBIS: %s", strerror(errno));
	ret = ret || drive_check(&b, 'e', 1, "rts, RTS raised");
	if (!ret && (tcsendbreak(b.fd[0], 0) || ioctl(b.fd[1], TIOCGICOUNT, &ic2)))
		ret = fail("break: %s", strerror(errno));
	if (!ret && ic2.brk != ic1.brk + 1)
		ret = fail("a break sent while driving did not reach port 1 (brk %d -> %d)",
			   ic1.brk, ic2.brk);
	/* raw mode reads a break as a NUL */
	ret = ret || expect(b.fd[1], "", 1, "port 1, the break") ||
	      expect(b.fd[2], "", 1, "port 2, the break");
	/* the DE pin on RTS: RS-485 drives RTS to its send level, or not */
	ret = ret || rs485_set(b.fd[0], RS485_ENABLED | RS485_RTS_ON_SEND, "port 0") ||
	      drive_check(&b, 'f', 1, "rts, RS-485 rts_on_send") ||
	      rs485_set(b.fd[0], RS485_ENABLED | RS485_RTS_AFTER_SEND, "port 0") ||
	      drive_check(&b, 'g', 0, "rts, RS-485 rts_after_send (RTS low while sending)") ||
	      rs485_set(b.fd[0], 0, "port 0") ||
	      port_put(&b, 0, "drive", "always");
	if (!ret && ioctl(b.fd[0], TIOCMBIC, &rts))
		ret = fail("TIOCMBIC: %s", strerror(errno));
	ret = ret || drive_check(&b, 'h', 1, "always, RTS dropped");
	return bus_remove(&b) || ret ? -1 : 0;
}

/* ------------------------------------------------------------------------ */
/*
 * Flow. By default a listener that does not read holds the senders back
 * (non-blocking writes get EAGAIN, poll() says no room) and loses nothing:
 * what was accepted reaches every port. With overrun on, the sender is not
 * held back: the fast listener gets everything, the slow one what fitted,
 * the rest counted in its buf_overrun, and an overrun mark comes before
 * what it receives next.
 */
static int t_bus_flow_and_overrun(void)
{
	struct serial_icounter_struct ic;
	unsigned char *out, *in;
	size_t total = 0, got2, lost;
	struct stream s;
	struct bus b;
	ssize_t r;
	int ret = 0;

	out = malloc(65536);
	in = malloc(65536);
	if (!out || !in)
		return fail("out of memory");
	stream_init(&s, 5);
	stream_fill(&s, out, 65536);
	if (bus_make(&b, "flow", 3) || bus_open_all(&b) || set_nonblock(b.fd[0], 1))
		return -1;
	/*
	 * Nobody reads: the sender fills the receive paths and stops. The
	 * flip buffers' work still hands bytes to the line disciplines after
	 * an EAGAIN, and POLLOUT rightly comes back for that room: write on
	 * until POLLOUT stays away.
	 */
	while (total < 65536) {
		r = write(b.fd[0], out + total, 256);
		if (r > 0) {
			total += (size_t)r;
			continue;
		}
		if (r < 0 && errno != EAGAIN) {
			ret = fail("lossless: write: %s", strerror(errno));
			break;
		}
		if (writable(b.fd[0], 500) != 1)
			break;
	}
	if (!ret && total >= 65536)
		ret = fail("lossless: %zu bytes taken without a reader", total);
	/* port 1 reads all it has: port 2 still holds the sender back */
	if (!ret && read_full(b.fd[1], in, total, 2000) != (ssize_t)total)
		ret = fail("lossless: port 1 did not get the %zu bytes taken", total);
	if (!ret && memcmp(in, out, total))
		ret = fail("lossless: port 1's bytes differ");
	if (!ret && writable(b.fd[0], 200))
		ret = fail("lossless: poll() says room while port 2 is full");
	if (!ret && read_full(b.fd[2], in, total, 2000) != (ssize_t)total)
		ret = fail("lossless: port 2 did not get the %zu bytes taken", total);
	if (!ret && memcmp(in, out, total))
		ret = fail("lossless: port 2's bytes differ");
	if (!ret && writable(b.fd[0], 2000) != 1)
		ret = fail("lossless: no room after both ports read");
	if (!ret)
		note("lossless: %zu bytes taken while nobody read, all delivered", total);

	/* overrun: the sender goes on; port 1 reads, port 2 does not */
	if (!ret && bus_cfg_put(&b, "overrun", "1"))
		ret = fail("overrun=1 refused");
	for (total = 0; !ret && total < 65536;) {
		r = write(b.fd[0], out + total, 4096);
		if (r <= 0) {
			ret = fail("overrun: write after %zu bytes: %s", total,
				   r ? strerror(errno) : "0");
			break;
		}
		total += (size_t)r;
		if (read_full(b.fd[1], in + total - (size_t)r, (size_t)r, 2000) != r)
			ret = fail("overrun: port 1 lost bytes");
	}
	if (!ret && memcmp(in, out, 65536))
		ret = fail("overrun: port 1's bytes differ");
	got2 = ret ? 0 : read_upto(b.fd[2], in, 65536, 300);
	if (!ret && ioctl(b.fd[2], TIOCGICOUNT, &ic))
		ret = fail("TIOCGICOUNT: %s", strerror(errno));
	lost = 65536 - got2;
	if (!ret && (got2 == 0 || got2 >= 65536 || (size_t)ic.buf_overrun != lost))
		ret = fail("overrun: port 2 received %zu of 65536, buf_overrun %d (expected %zu)",
			   got2, ic.buf_overrun, lost);
	if (!ret && memcmp(in, out, got2))
		ret = fail("overrun: port 2's first %zu bytes differ", got2);
	if (!ret) {
		/* what port 2 gets next comes after an overrun mark */
		struct serial_icounter_struct ic2;

		if (write_full(b.fd[0], "after", 5) != 5 || expect(b.fd[2], "after", 5, "overrun: port 2 after reading") ||
		    expect(b.fd[1], "after", 5, "overrun: port 1"))
			ret = -1;
		else if (ioctl(b.fd[2], TIOCGICOUNT, &ic2) || ic2.buf_overrun != ic.buf_overrun)
			ret = fail("overrun: buf_overrun moved without a loss");
		else
			note("overrun: port 1 got all 65536 bytes, port 2 %zu and lost %zu (buf_overrun)",
			     got2, lost);
	}
	free(out);
	free(in);
	return bus_remove(&b) || ret ? -1 : 0;
}

/* ------------------------------------------------------------------------ */
/*
 * Baud-rate emulation on a bus: 96 characters at 9600 8N1 leave port 0 in
 * about 100 ms and reach both other ports, whole.
 */
static int t_bus_baud_emulation(void)
{
	unsigned char out[96], in[96];
	struct stream s;
	struct bus b;
	double t;
	int k, ret = 0;

	stream_init(&s, 9);
	stream_fill(&s, out, sizeof(out));
	if (bus_make(&b, "paced", 3) || bus_open_all(&b))
		return -1;
	if (bus_cfg_put(&b, "baud_emulation", "1"))
		ret = fail("baud_emulation=1 refused");
	for (k = 0; k < 3 && !ret; k++)
		if (set_speed(b.fd[k], B9600))
			ret = -1;
	t = now();
	if (!ret && (write_full(b.fd[0], out, sizeof(out)) != sizeof(out) || tcdrain(b.fd[0])))
		ret = fail("write and tcdrain: %s", strerror(errno));
	t = now() - t;
	if (!ret && (t < 0.095 || t > 2.0))
		ret = fail("96 characters at 9600 8N1 took %.3f s, expected 0.1 s", t);
	for (k = 1; k < 3 && !ret; k++)
		if (read_full(b.fd[k], in, sizeof(in), 2000) != sizeof(in) ||
		    memcmp(in, out, sizeof(in)))
			ret = fail("port %d did not receive the 96 characters", k);
	if (!ret)
		note("96 characters at 9600 8N1 in %.3f s, to 2 ports", t);
	return bus_remove(&b) || ret ? -1 : 0;
}

/* ------------------------------------------------------------------------ */
/*
 * Collisions. Ports 0 and 1 (RS-485 with RX_DURING_TX: they hear
 * themselves) each write 100 characters at the same moment; port 2
 * listens with PARMRK. With baud-rate emulation (9600 8N1) their
 * characters overlap on the line: port 2 and both senders' echoes get
 * characters with framing errors (marked, counted in icount.frame), all
 * 200 arrive, nothing hangs. Without it there is no time on the line: port
 * 2 gets both writes whole, one after the other, and no error.
 */
struct coll {
	int fd;
	char c;
	pthread_barrier_t *go;
	int err;
};

static void *coll_writer(void *arg)
{
	struct coll *w = arg;
	char buf[100];

	memset(buf, w->c, sizeof(buf));
	pthread_barrier_wait(w->go);
	if (write_full(w->fd, buf, sizeof(buf)) != sizeof(buf) || tcdrain(w->fd))
		w->err = errno ? errno : EIO;
	return NULL;
}

/* Both write at once; port 2's bytes (PARMRK-marked) into @in, @n of them */
static int coll_round(struct bus *b, unsigned char *in, size_t *n)
{
	pthread_barrier_t go;
	struct coll w[2] = {
		{ .fd = b->fd[0], .c = 'A', .go = &go },
		{ .fd = b->fd[1], .c = 'B', .go = &go },
	};
	pthread_t th[2];
	int k;

	pthread_barrier_init(&go, NULL, 2);
	for (k = 0; k < 2; k++)
		pthread_create(&th[k], NULL, coll_writer, &w[k]);
	for (k = 0; k < 2; k++)
		pthread_join(th[k], NULL);
	pthread_barrier_destroy(&go);
	for (k = 0; k < 2; k++)
		if (w[k].err)
			return fail("port %d: write or tcdrain: %s", k, strerror(w[k].err));
	*n = read_upto(b->fd[2], in, 600, 500);
	return 0;
}

static int t_bus_collision(void)
{
	struct serial_icounter_struct ic[3], ic0[3];
	unsigned char in[600];
	size_t n, i, marked = 0, chars = 0;
	struct bus b;
	int k, ret = 0;

	if (bus_make(&b, "collide", 3) || bus_open_all(&b))
		return -1;
	for (k = 0; k < 2 && !ret; k++)
		ret = rs485_set(b.fd[k], RS485_ENABLED | RS485_RTS_ON_SEND | RS485_RX_DURING_TX,
				"a sender");
	ret = ret || set_iflag(b.fd[2], 0, PARMRK | INPCK);
	for (k = 0; k < 3 && !ret; k++)
		ret = set_speed(b.fd[k], B9600);
	if (!ret && bus_cfg_put(&b, "baud_emulation", "1"))
		ret = fail("baud_emulation=1 refused");
	for (k = 0; k < 3 && !ret; k++)
		if (ioctl(b.fd[k], TIOCGICOUNT, &ic0[k]))
			ret = fail("TIOCGICOUNT: %s", strerror(errno));
	ret = ret || coll_round(&b, in, &n);
	for (k = 0; k < 3 && !ret; k++)
		if (ioctl(b.fd[k], TIOCGICOUNT, &ic[k]))
			ret = fail("TIOCGICOUNT: %s", strerror(errno));
	/* PARMRK: \377 \0 c for a character with an error */
	for (i = 0; !ret && i < n; i++, chars++) {
		if (in[i] == 0377 && i + 2 < n && in[i + 1] == 0) {
			marked++;
			i += 2;
		}
	}
	if (!ret && chars != 200)
		ret = fail("emulated: port 2 got %zu characters, expected 200", chars);
	if (!ret && (!marked || ic[2].frame - ic0[2].frame != (int)marked))
		ret = fail("emulated: port 2 marked %zu characters, icount.frame grew by %d",
			   marked, ic[2].frame - ic0[2].frame);
	for (k = 0; k < 2 && !ret; k++)
		if (ic[k].frame == ic0[k].frame)
			ret = fail("emulated: sender %d's echo has no framing error", k);
	if (!ret)
		note("emulated: %zu of 200 characters collided at port 2; echoes: %d and %d",
		     marked, ic[0].frame - ic0[0].frame, ic[1].frame - ic0[1].frame);
	for (k = 0; k < 2; k++)
		drain(b.fd[k]);

	/* no emulation: both writes whole */
	if (!ret && bus_cfg_put(&b, "baud_emulation", "0"))
		ret = fail("baud_emulation=0 refused");
	if (!ret && ioctl(b.fd[2], TIOCGICOUNT, &ic0[2]))
		ret = fail("TIOCGICOUNT: %s", strerror(errno));
	ret = ret || coll_round(&b, in, &n);
	if (!ret && ioctl(b.fd[2], TIOCGICOUNT, &ic[2]))
		ret = fail("TIOCGICOUNT: %s", strerror(errno));
	if (!ret && n != 200)
		ret = fail("not emulated: port 2 got %zu bytes, expected 200", n);
	for (i = 1; !ret && i < 200; i++)
		if (in[i] != in[i == 100 ? 0 : i - 1] && i != 100)
			ret = fail("not emulated: the writes are mixed at byte %zu", i);
	if (!ret && (in[0] == in[100] || ic[2].frame != ic0[2].frame))
		ret = fail("not emulated: not one write after the other, or framing errors");
	return bus_remove(&b) || ret ? -1 : 0;
}

/* ------------------------------------------------------------------------ */
/*
 * Removal of a bus whose ports are open and blocked: a reader, a writer
 * held back by a full listener, a TIOCMIWAIT. Each returns within 10 s,
 * the reader with end of file or an error and nothing more (a removed bus
 * carries nothing, also while its ports are hung up one by one).
 */
struct blocked {
	int fd;
	pid_t tid;
	long rc;
	int err;
	int kind;	/* 0 read, 1 write, 2 TIOCMIWAIT */
};

static void *blocked_call(void *arg)
{
	struct blocked *c = arg;
	char buf[4096] = { 0 };

	c->tid = thread_id();
	if (c->kind == 0)
		c->rc = read(c->fd, buf, sizeof(buf));
	else if (c->kind == 1)
		c->rc = write(c->fd, buf, sizeof(buf));
	else
		c->rc = ioctl(c->fd, TIOCMIWAIT, TIOCM_CTS | TIOCM_DSR | TIOCM_CD);
	c->err = c->rc < 0 ? errno : 0;
	return NULL;
}

static int t_bus_remove_while_blocked(void)
{
	static const char *const what[] = { "read", "write", "TIOCMIWAIT" };
	struct blocked c[3] = { { .kind = 0 }, { .kind = 1 }, { .kind = 2 } };
	char buf[256];
	pthread_t th[3];
	struct bus b;
	double t;
	int k, ret = 0;

	if (bus_make(&b, "removal", 3) || bus_open_all(&b))
		return -1;
	/* port 2 stops reading: fill it, so that port 1's writer waits */
	if (set_nonblock(b.fd[1], 1))
		return fail("O_NONBLOCK: %s", strerror(errno));
	while (write(b.fd[1], buf, sizeof(buf)) > 0)
		drain(b.fd[0]);
	if (errno != EAGAIN || set_nonblock(b.fd[1], 0))
		return fail("filling port 2: %s", strerror(errno));
	while (read_upto(b.fd[0], buf, sizeof(buf), 200) > 0)
		;	/* port 0 has read everything: its reader will wait */
	c[0].fd = b.fd[0];
	c[1].fd = b.fd[1];
	c[2].fd = b.fd[2];
	for (k = 0; k < 3; k++)
		pthread_create(&th[k], NULL, blocked_call, &c[k]);
	for (k = 0; k < 3 && !ret; k++)
		if (thread_blocked(&c[k].tid, -1, 5000, what[k]))
			ret = -1;
	t = now();
	snprintf(buf, sizeof(buf), BUSES "/%s", b.name);
	if (rmdir(buf))
		ret = fail("rmdir %s while ports are open: %s", buf, strerror(errno));
	for (k = 0; k < 3; k++)
		pthread_join(th[k], NULL);	/* alarm() bounds it */
	t = now() - t;
	/*
	 * The reader gets end of file or EIO, TIOCMIWAIT EIO; the writer may
	 * have been let go as the full port went, its bytes going nowhere
	 */
	for (k = 0; k < 3 && !ret; k++)
		if (c[k].rc > 0 && k != 1)
			ret = fail("%s returned %ld after the removal", what[k], c[k].rc);
	if (!ret && t > 10)
		ret = fail("the blocked calls took %.1f s to return", t);
	if (!ret && write(b.fd[0], "x", 1) != -1)
		ret = fail("a write to a removed bus's port did not fail");
	if (!ret)
		note("read %ld (%s), write %ld (%s), TIOCMIWAIT %ld (%s) within %.2f s",
		     c[0].rc, strerror(c[0].err), c[1].rc, strerror(c[1].err),
		     c[2].rc, strerror(c[2].err), t);
	for (k = 0; k < 3; k++)
		close(b.fd[k]);
	return ret;
}

const struct test bus_tests[] = {
	{ "bus_configfs", t_bus_configfs, 60 },
	{ "bus_delivery_2", t_bus_delivery_2, 120 },
	{ "bus_delivery_3", t_bus_delivery_3, 120 },
	{ "bus_delivery_8", t_bus_delivery_8, 180 },
	{ "bus_delivery_32", t_bus_delivery_32, 300 },
	{ "bus_concurrent_writers", t_bus_concurrent_writers, 180 },
	{ "bus_echo_rx_during_tx", t_bus_echo_rx_during_tx, 60 },
	{ "bus_drive_modes", t_bus_drive_modes, 60 },
	{ "bus_flow_and_overrun", t_bus_flow_and_overrun, 120 },
	{ "bus_baud_emulation", t_bus_baud_emulation, 60 },
	{ "bus_collision", t_bus_collision, 60 },
	{ "bus_remove_while_blocked", t_bus_remove_while_blocked, 60 },
	{ NULL, NULL, 0 }
};
