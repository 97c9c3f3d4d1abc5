// SPDX-License-Identifier: GPL-2.0
/*
 * Functional tests of the limits: every number the module reads from user
 * space (speeds of termios2, the fields of serial_struct, the numeric
 * attributes) at its boundaries, deterministically; and of what the
 * hardening fixed: a receiver without CREAD, the index of a removed pair
 * that is still open, carrier loss racing with the last close.
 *
 * Pairs 64 to 79 of the run's pairs=80; pairs made in configfs take the
 * indexes after them.
 */
#define _GNU_SOURCE
#include <asm/termbits.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/serial.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tlib.h"

#define BAUD_MIN	50U		/* TTYPAIR_BAUD_MIN */
#define BAUD_MAX	12000000U	/* TTYPAIR_BAUD_MAX */
#define FIFO_SIZE	4096		/* TTYPAIR_FIFO_SIZE */
#define CFG		"/sys/kernel/config/ttypair"
#define ARRAY_SIZE(x)	(sizeof(x) / sizeof((x)[0]))

/*
 * The 32-bit boundaries and the module's own, with their neighbours; 2^31
 * first, the speed that once divided by zero in the kernel.
 */
static const uint32_t u32_limits[] = {
	0x80000000, 0, 1, 2, BAUD_MIN - 1, BAUD_MIN, BAUD_MIN + 1, 9600,
	BAUD_MAX - 1, BAUD_MAX, BAUD_MAX + 1, 0x7ffffffe, 0x7fffffff,
	0x80000001, 0xfffffffe, 0xffffffff,
};

static int tcgets2(int fd, struct termios2 *t)
{
	if (ioctl(fd, TCGETS2, t))
		return fail("TCGETS2: %s", strerror(errno));
	return 0;
}

static int tcsets2(int fd, const struct termios2 *t)
{
	if (ioctl(fd, TCSETS2, t))
		return fail("TCSETS2: %s", strerror(errno));
	return 0;
}

static uint32_t clamp_speed(uint32_t v)
{
	return v < BAUD_MIN ? BAUD_MIN : v > BAUD_MAX ? BAUD_MAX : v;
}

/* One byte each way: the pair still moves data */
static int pair_works(int a, int b, const char *after)
{
	unsigned char c;

	if (write(a, "a", 1) != 1 || read_full(b, &c, 1, 3000) != 1 || c != 'a')
		return fail("A to B failed after %s", after);
	if (write(b, "b", 1) != 1 || read_full(a, &c, 1, 3000) != 1 || c != 'b')
		return fail("B to A failed after %s", after);
	return 0;
}

/*
 * Open both ends, B first (an A without CLOCAL then has its carrier), A
 * with O_NONBLOCK so that it never waits for carrier; @flags apply to both
 * ends once open.
 */
static int open_pair(int idx, int *a, int *b, int flags)
{
	*b = port_open('B', idx, flags);
	if (*b < 0)
		return -1;
	*a = port_open('A', idx, O_NONBLOCK);
	if (*a < 0 || (!(flags & O_NONBLOCK) && set_nonblock(*a, 0))) {
		if (*a >= 0)
			close(*a);
		close(*b);
		return -1;
	}
	return 0;
}

static void close_pair(int a, int b)
{
	ioctl(a, TCFLSH, TCIOFLUSH);
	ioctl(b, TCFLSH, TCIOFLUSH);
	close(a);
	close(b);
}

/*
 * termios2 with BOTHER: every output speed and every input speed from the
 * boundaries of 32 bits is taken, clamped to 50..12000000 and reported
 * back as the speed in effect (BOTHER 0 is not B0: it becomes 50), and the
 * pair goes on working.
 */
static int t_speed_limits(void)
{
	struct termios2 orig, t, got;
	char what[96];
	size_t i;
	int a, b;

	if (open_pair(64, &a, &b, 0))
		return -1;
	if (tcgets2(a, &orig))
		goto out;
	for (i = 0; i < ARRAY_SIZE(u32_limits); i++) {
		uint32_t v = u32_limits[i];

		/* output speed; the input speed follows it (CIBAUD B0) */
		t = orig;
		t.c_cflag &= ~(CBAUD | (CBAUD << IBSHIFT));
		t.c_cflag |= BOTHER;
		t.c_ospeed = v;
		t.c_ispeed = 0;
		if (tcsets2(a, &t) || tcgets2(a, &got))
			goto out;
		if (got.c_ospeed != clamp_speed(v)) {
			fail("output speed %u reads back as %u, expected %u",
			     v, got.c_ospeed, clamp_speed(v));
			goto out;
		}
		if ((got.c_cflag & CBAUD) == B0) {
			fail("output speed %u became B0", v);
			goto out;
		}
		snprintf(what, sizeof(what), "output speed %u", v);
		if (pair_works(a, b, what))
			goto out;

		/* input speed apart from an output speed of 9600 */
		t = orig;
		t.c_cflag &= ~(CBAUD | (CBAUD << IBSHIFT));
		t.c_cflag |= B9600 | (BOTHER << IBSHIFT);
		t.c_ospeed = 9600;
		t.c_ispeed = v;
		if (tcsets2(a, &t) || tcgets2(a, &got))
			goto out;
		if (got.c_ospeed != 9600 ||
		    got.c_ispeed != (v ? clamp_speed(v) : 0)) {
			fail("input speed %u reads back as %u (output %u), expected %u (9600)",
			     v, got.c_ispeed, got.c_ospeed,
			     v ? clamp_speed(v) : 0);
			goto out;
		}
		snprintf(what, sizeof(what), "input speed %u", v);
		if (pair_works(a, b, what))
			goto out;
	}
	/* and with baud-rate emulation at both ends of the range */
	if (attr_write('A', 64, "baud_emulation", "1")) {
		fail("baud_emulation=1 refused");
		goto out;
	}
	for (i = 0; i < 2; i++) {
		t = orig;
		t.c_cflag &= ~(CBAUD | (CBAUD << IBSHIFT));
		t.c_cflag |= BOTHER;
		t.c_ospeed = i ? 0xffffffff : 1;
		t.c_ispeed = 0;
		if (tcsets2(a, &t) || tcsets2(b, &t))
			goto out;
		snprintf(what, sizeof(what), "speed %u with baud emulation",
			 t.c_ospeed);
		if (pair_works(a, b, what))
			goto out;
	}
	if (attr_write('A', 64, "baud_emulation", "0") || tcsets2(a, &orig) ||
	    tcsets2(b, &orig)) {
		fail("restoring pair 64");
		goto out;
	}
	close_pair(a, b);
	return 0;
out:
	close_pair(a, b);
	return -1;
}

/* ------------------------------------------------------------------------ */

static int get_serial(int fd, struct serial_struct *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (ioctl(fd, TIOCGSERIAL, ss))
		return fail("TIOCGSERIAL: %s", strerror(errno));
	return 0;
}

/* One field of serial_struct at one value: accepted or EINVAL, no more */
struct serial_case {
	const char *field;
	long long value;
	int accepted;
};

static void serial_apply(struct serial_struct *ss, const char *field,
			 long long v)
{
	if (!strcmp(field, "close_delay"))
		ss->close_delay = v;
	else if (!strcmp(field, "closing_wait"))
		ss->closing_wait = v;
	else if (!strcmp(field, "baud_base"))
		ss->baud_base = v;
	else if (!strcmp(field, "custom_divisor"))
		ss->custom_divisor = v;
	else if (!strcmp(field, "xmit_fifo_size"))
		ss->xmit_fifo_size = v;
	else if (!strcmp(field, "line"))
		ss->line = v;
	else if (!strcmp(field, "type"))
		ss->type = v;
	else if (!strcmp(field, "irq"))
		ss->irq = v;
	else if (!strcmp(field, "port"))
		ss->port = v;
	else if (!strcmp(field, "flags"))
		ss->flags = v;
	else if (!strcmp(field, "hub6"))
		ss->hub6 = v;
	else if (!strcmp(field, "iomem_reg_shift"))
		ss->iomem_reg_shift = v;
	else if (!strcmp(field, "io_type"))
		ss->io_type = v;
	else if (!strcmp(field, "port_high"))
		ss->port_high = v;
}

static int serial_same(const struct serial_struct *x,
		       const struct serial_struct *y)
{
	return x->type == y->type && x->line == y->line &&
	       x->port == y->port && x->irq == y->irq &&
	       x->flags == y->flags &&
	       x->xmit_fifo_size == y->xmit_fifo_size &&
	       x->custom_divisor == y->custom_divisor &&
	       x->baud_base == y->baud_base &&
	       x->close_delay == y->close_delay &&
	       x->closing_wait == y->closing_wait &&
	       x->io_type == y->io_type && x->hub6 == y->hub6 &&
	       x->iomem_reg_shift == y->iomem_reg_shift &&
	       x->port_high == y->port_high;
}

/*
 * TIOCSSERIAL with each field at its limits (as root): what the module
 * may change (close_delay, closing_wait) reads back as written, what it
 * cannot (the UART's hardware description) is refused with EINVAL, and
 * a refusal changes nothing.
 */
static int t_serial_limits(void)
{
	static const struct serial_case cases[] = {
		{ "close_delay", 0, 1 }, { "close_delay", 1, 1 },
		{ "close_delay", 65534, 1 }, { "close_delay", 65535, 1 },
		{ "closing_wait", 0, 1 }, { "closing_wait", 1, 1 },
		{ "closing_wait", 65534, 1 }, { "closing_wait", 65535, 1 },
		{ "baud_base", 0, 0 }, { "baud_base", 1, 0 },
		{ "baud_base", 115199, 0 }, { "baud_base", 115201, 0 },
		{ "baud_base", INT_MAX, 0 }, { "baud_base", INT_MIN, 0 },
		{ "baud_base", -1, 0 },
		{ "custom_divisor", 1, 0 }, { "custom_divisor", INT_MAX, 0 },
		{ "custom_divisor", INT_MIN, 0 }, { "custom_divisor", -1, 0 },
		{ "xmit_fifo_size", 0, 1 }, { "xmit_fifo_size", FIFO_SIZE, 1 },
		{ "xmit_fifo_size", 1, 0 }, { "xmit_fifo_size", FIFO_SIZE - 1, 0 },
		{ "xmit_fifo_size", FIFO_SIZE + 1, 0 },
		{ "xmit_fifo_size", INT_MAX, 0 }, { "xmit_fifo_size", -1, 0 },
		{ "line", -1, 0 }, { "line", 63, 0 }, { "line", 66, 0 },
		{ "line", INT_MAX, 0 }, { "line", INT_MIN, 0 },
		{ "type", 0, 0 }, { "type", -1, 0 }, { "type", INT_MAX, 0 },
		{ "irq", 1, 0 }, { "irq", -1, 0 }, { "irq", INT_MAX, 0 },
		{ "port", 1, 0 }, { "port", UINT_MAX, 0 },
		{ "flags", ASYNC_LOW_LATENCY, 1 }, { "flags", 0, 1 },
		{ "flags", ASYNC_SPD_HI, 0 }, { "flags", ASYNC_SPD_CUST, 0 },
		{ "flags", 0x7fffffff, 0 }, { "flags", -1, 0 },
		{ "hub6", 1, 0 }, { "hub6", -1, 0 },
		{ "iomem_reg_shift", 255, 0 }, { "io_type", 255, 0 },
		{ "port_high", UINT_MAX, 0 },
	};
	struct serial_struct orig, ss, want, got;
	size_t i;
	int a, b, r = -1;

	if (open_pair(65, &a, &b, 0))
		return -1;
	if (get_serial(a, &orig))
		goto out;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct serial_case *c = &cases[i];

		ss = orig;
		serial_apply(&ss, c->field, c->value);
		want = c->accepted ? ss : orig;
		if (ioctl(a, TIOCSSERIAL, &ss) ? c->accepted || errno != EINVAL :
						 !c->accepted) {
			fail("TIOCSSERIAL %s=%lld: %s, expected %s", c->field,
			     c->value, c->accepted ? strerror(errno) : "accepted",
			     c->accepted ? "success" : "EINVAL");
			goto out;
		}
		if (get_serial(a, &got))
			goto out;
		/* xmit_fifo_size 0 means "as it is" */
		if (!strcmp(c->field, "xmit_fifo_size") && !c->value)
			want.xmit_fifo_size = FIFO_SIZE;
		if (!serial_same(&got, &want)) {
			fail("after TIOCSSERIAL %s=%lld: close_delay %u closing_wait %u flags %#x fifo %d line %d, not what was %s",
			     c->field, c->value, got.close_delay,
			     got.closing_wait, got.flags, got.xmit_fifo_size,
			     got.line, c->accepted ? "set" : "there before");
			goto out;
		}
		if (ioctl(a, TIOCSSERIAL, &orig)) {
			fail("restoring serial settings: %s", strerror(errno));
			goto out;
		}
	}
	r = pair_works(a, b, "the serial_struct limits");
out:
	close_pair(a, b);
	return r;
}

/* ------------------------------------------------------------------------ */

/* The numeric attributes of sysfs and configfs at their limits */
struct attr_case {
	const char *attr;
	const char *value;
	const char *reads;	/* what it reads back; NULL: refused */
};

static const struct attr_case attr_cases[] = {
	{ "noise_ppm", "0", "0" }, { "noise_ppm", "1", "1" },
	{ "noise_ppm", "999999", "999999" },
	{ "noise_ppm", "1000000", "1000000" },
	{ "noise_ppm", "1000001", NULL }, { "noise_ppm", "2147483647", NULL },
	{ "noise_ppm", "2147483648", NULL }, { "noise_ppm", "4294967295", NULL },
	{ "noise_ppm", "4294967296", NULL },
	{ "noise_ppm", "18446744073709551615", NULL },
	{ "noise_ppm", "18446744073709551616", NULL },
	{ "noise_ppm", "-1", NULL }, { "noise_ppm", "-0", NULL },
	{ "noise_ppm", "0x10", NULL }, { "noise_ppm", "\n", NULL },
	{ "noise_ppm", "0", "0" },
	{ "noise_seed", "0", "0" }, { "noise_seed", "1", "1" },
	{ "noise_seed", "2147483647", "2147483647" },
	{ "noise_seed", "2147483648", "2147483648" },
	{ "noise_seed", "4294967295", "4294967295" },
	{ "noise_seed", "4294967296", "4294967296" },
	{ "noise_seed", "9223372036854775808", "9223372036854775808" },
	{ "noise_seed", "18446744073709551615", "18446744073709551615" },
	{ "noise_seed", "18446744073709551616", NULL },
	{ "noise_seed", "-1", NULL }, { "noise_seed", "\n", NULL },
	{ "baud_emulation", "1", "1" }, { "baud_emulation", "0", "0" },
	{ "baud_emulation", "on", "1" }, { "baud_emulation", "off", "0" },
	{ "baud_emulation", "y", "1" }, { "baud_emulation", "n", "0" },
	{ "baud_emulation", "2", NULL }, { "baud_emulation", "-1", NULL },
	{ "baud_emulation", "4294967297", NULL },
	{ "baud_emulation", "\n", NULL },
	{ "strict", "on", "1" }, { "strict", "2147483648", NULL },
	{ "strict", "-0", NULL }, { "strict", "off", "0" },
};

/* Write @val with one write(2) to @path: 0 or -errno */
static int write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY), r = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) < 0)
		r = -errno;
	close(fd);
	return r;
}

static int read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

/* Every case written into the directory @dir (sysfs or configfs) */
static int attr_limits_in(const char *dir)
{
	char path[256], prev[64], got[64];
	size_t i;
	int r;

	for (i = 0; i < ARRAY_SIZE(attr_cases); i++) {
		const struct attr_case *c = &attr_cases[i];

		snprintf(path, sizeof(path), "%s/%s", dir, c->attr);
		if (read_file(path, prev, sizeof(prev)))
			return fail("reading %s: %s", path, strerror(errno));
		r = write_file(path, c->value);
		if (c->reads ? r != 0 : r != -EINVAL)
			return fail("writing '%s' to %s: %s, expected %s",
				    c->value, path,
				    r ? strerror(-r) : "accepted",
				    c->reads ? "success" : "EINVAL");
		if (read_file(path, got, sizeof(got)))
			return fail("reading %s: %s", path, strerror(errno));
		if (strcmp(got, c->reads ? c->reads : prev))
			return fail("%s reads '%s' after writing '%s', expected '%s'",
				    path, got, c->value, c->reads ? c->reads : prev);
	}
	return 0;
}

static int t_attr_limits(void)
{
	const char *dir = CFG "/limits";
	int r;

	if (attr_limits_in("/sys/class/tty/ttyVPA66") ||
	    attr_limits_in("/sys/class/tty/ttyVPB66") || configfs_mounted())
		return -1;
	if (mkdir(dir, 0755))
		return fail("mkdir %s: %s", dir, strerror(errno));
	r = attr_limits_in(dir);
	if (rmdir(dir) && !r)
		return fail("rmdir %s: %s", dir, strerror(errno));
	return r;
}

/* ------------------------------------------------------------------------ */

static int set_cread(int fd, int on)
{
	struct termios2 t;

	if (tcgets2(fd, &t))
		return -1;
	if (on)
		t.c_cflag |= CREAD;
	else
		t.c_cflag &= ~CREAD;
	return tcsets2(fd, &t);
}

static int rx_count(int fd)
{
	struct serial_icounter_struct ic;

	memset(&ic, 0, sizeof(ic));
	if (ioctl(fd, TIOCGICOUNT, &ic))
		return fail("TIOCGICOUNT: %s", strerror(errno));
	return ic.rx;
}

/*
 * A receiver with CREAD cleared discards what arrives, data and breaks
 * alike, as a UART does (TIOCGICOUNT still counts the characters); set
 * again, it receives what comes next and nothing of before.
 */
static int t_cread_discards(void)
{
	char buf[8];
	int a, b, rx0, rx1, r = -1;

	if (open_pair(67, &a, &b, 0))
		return -1;
	rx0 = rx_count(b);
	if (rx0 < 0 || set_cread(b, 0))
		goto out;
	if (write(a, "abc", 3) != 3 || ioctl(a, TCSBRK, 0)) {
		fail("write or break on A: %s", strerror(errno));
		goto out;
	}
	if (readable(b, 300)) {
		fail("B without CREAD received something");
		goto out;
	}
	rx1 = rx_count(b);
	if (rx1 < 0)
		goto out;
	if (rx1 - rx0 != 3) {
		fail("TIOCGICOUNT rx went from %d to %d, expected +3", rx0, rx1);
		goto out;
	}
	if (set_cread(b, 1))
		goto out;
	if (write(a, "xyz", 3) != 3) {
		fail("write on A: %s", strerror(errno));
		goto out;
	}
	if (read_full(b, buf, 3, 3000) != 3 || memcmp(buf, "xyz", 3)) {
		fail("B with CREAD again did not read exactly xyz");
		goto out;
	}
	if (readable(b, 300)) {
		fail("B read more than xyz");
		goto out;
	}
	r = 0;
out:
	close_pair(a, b);
	return r;
}

/* ------------------------------------------------------------------------ */

/* The index of a configfs pair (from its device_a attribute), or -1 */
static int cfg_index(const char *name)
{
	char path[128], buf[64];
	int idx;

	snprintf(path, sizeof(path), CFG "/%s/device_a", name);
	if (read_file(path, buf, sizeof(buf)) ||
	    sscanf(buf, "ttyVPA%d", &idx) != 1) {
		fail("no index in %s", path);
		return -1;
	}
	return idx;
}

static int cfg_mkdir(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), CFG "/%s", name);
	if (mkdir(path, 0755))
		return fail("mkdir %s: %s", path, strerror(errno));
	return cfg_index(name);
}

static int cfg_rmdir(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), CFG "/%s", name);
	if (rmdir(path))
		return fail("rmdir %s: %s", path, strerror(errno));
	return 0;
}

/*
 * A removed pair whose end is still open keeps its index: a pair made
 * meanwhile gets another one and can be opened at once; once the old end
 * is closed, its index is free again, and the pair made there starts with
 * the driver's termios, not with those the old pair had.
 */
static int t_removed_index_reserved(void)
{
	struct termios2 t;
	int old, idx, a, b, n1, n2, i, r = -1;

	if (configfs_mounted())
		return -1;
	idx = cfg_mkdir("reuse-old");
	if (idx < 0)
		return -1;
	old = port_open('A', idx, 0);
	if (old < 0)
		return -1;
	if (tcgets2(old, &t))
		goto out_old;
	t.c_cflag &= ~(CBAUD | CSIZE);
	t.c_cflag |= B115200 | CS7;
	t.c_ospeed = 115200;
	t.c_ispeed = 115200;
	if (tcsets2(old, &t) || cfg_rmdir("reuse-old"))
		goto out_old;
	n1 = cfg_mkdir("reuse-new");
	if (n1 < 0)
		goto out_old;
	if (n1 == idx) {
		fail("the new pair took index %d of the removed pair, still open", idx);
		goto out_new;
	}
	if (open_pair(n1, &a, &b, 0))
		goto out_new;
	if (pair_works(a, b, "making a pair while a removed one is open")) {
		close_pair(a, b);
		goto out_new;
	}
	close_pair(a, b);
	close(old);
	old = -1;
	/*
	 * The old tty goes, and gives the index back, when the tty core
	 * has released it (a work item after the last close): look until it
	 * is the lowest free index again.
	 */
	if (cfg_rmdir("reuse-new"))
		return -1;
	for (i = 0; ; i++) {
		n2 = cfg_mkdir("reuse-again");
		if (n2 < 0)
			return -1;
		if (n2 == idx)
			break;
		if (cfg_rmdir("reuse-again"))
			return -1;
		if (i == 50)
			return fail("index %d was not free again 5 s after the close (got %d)",
				    idx, n2);
		msleep(100);
	}
	a = port_open_plain('A', n2, O_NONBLOCK);
	if (a < 0)
		goto out_again;
	if (tcgets2(a, &t)) {
		close(a);
		goto out_again;
	}
	close(a);
	if ((t.c_cflag & CBAUD) != B9600 || (t.c_cflag & CSIZE) != CS8 ||
	    t.c_ospeed != 9600) {
		fail("the new pair at index %d starts with speed %u and CSIZE %#o, not 9600 CS8",
		     n2, t.c_ospeed, t.c_cflag & CSIZE);
		goto out_again;
	}
	r = 0;
out_again:
	cfg_rmdir("reuse-again");
	return r;
out_new:
	cfg_rmdir("reuse-new");
out_old:
	if (old >= 0)
		close(old);
	return r;
}

/* ------------------------------------------------------------------------ */

struct closer {
	int fd;
	pthread_barrier_t *go;
};

static void *close_at_once(void *arg)
{
	struct closer *c = arg;

	pthread_barrier_wait(c->go);
	close(c->fd);
	return NULL;
}

/*
 * Carrier loss (DCD drops without CLOCAL) hangs an end up while its last
 * close runs at the same moment, many times: the hangup must never outlive
 * the tty (the kernel log check of the run catches a debug kernel's
 * complaint, a crash ends the run). First, without a race, that the
 * carrier loss does hang the end up.
 */
static int t_carrier_loss_close_race(void)
{
	const int idx = 68, rounds = 300;
	pthread_barrier_t go;
	struct termios2 t;
	int a, b, i, bits = TIOCM_DTR;
	unsigned char c;
	pthread_t th;

	for (i = 0; i <= rounds; i++) {
		struct closer cl;

		if (open_pair(idx, &a, &b, O_NONBLOCK))
			return -1;
		/* A watches its carrier (DCD is B's DTR, up since B opened) */
		if (tcgets2(a, &t))
			goto fail_both;
		t.c_cflag &= ~CLOCAL;
		if (tcsets2(a, &t))
			goto fail_both;
		if (!(modem_get(a) & TIOCM_CAR)) {
			fail("A has no carrier with B open");
			goto fail_both;
		}
		if (i == 0) {
			/* no race: the carrier loss hangs A up */
			if (ioctl(b, TIOCMBIC, &bits)) {
				fail("TIOCMBIC: %s", strerror(errno));
				goto fail_both;
			}
			msleep(200);
			if (read(a, &c, 1) != 0) {
				fail("A was not hung up by the loss of carrier (read: %s)",
				     strerror(errno));
				goto fail_both;
			}
			close(a);
			close(b);
			continue;
		}
		pthread_barrier_init(&go, NULL, 2);
		cl.fd = a;
		cl.go = &go;
		if (pthread_create(&th, NULL, close_at_once, &cl)) {
			fail("pthread_create failed");
			goto fail_both;
		}
		pthread_barrier_wait(&go);
		if (i & 1)
			usleep(i % 7 * 50);
		ioctl(b, TIOCMBIC, &bits);
		pthread_join(th, NULL);
		pthread_barrier_destroy(&go);
		close(b);
	}
	note("%d rounds of carrier loss racing with the last close", rounds);
	/* the pair still works */
	if (open_pair(idx, &a, &b, 0))
		return -1;
	i = pair_works(a, b, "the carrier-loss races");
	close_pair(a, b);
	return i;
fail_both:
	close(a);
	close(b);
	return -1;
}

const struct test hardening_tests[] = {
	{ "speed_limits", t_speed_limits, 60 },
	{ "serial_struct_limits", t_serial_limits, 30 },
	{ "attr_number_limits", t_attr_limits, 30 },
	{ "cread_discards", t_cread_discards, 20 },
	{ "removed_index_reserved", t_removed_index_reserved, 30 },
	{ "carrier_loss_close_race", t_carrier_loss_close_race, 120 },
	{ NULL }
};
