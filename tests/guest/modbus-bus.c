// SPDX-License-Identifier: GPL-2.0
/*
 * A Modbus RTU bus on the ports of a ttypair bus, with libmodbus:
 *
 *   modbus-bus slaves BAUD DEV1 [DEV2 [DEV3 [DEV4]]]
 *	libmodbus slaves with unit ids 1, 2, 3 (and 2 again on DEV4, the
 *	duplicate), 8E1, holding registers 0..9 = 100 * id + 0..9, until
 *	SIGTERM. Each answers a request to its id after the 3.5-character
 *	silence that Modbus RTU puts between frames. A slave hears every
 *	frame on the bus: after a request to another unit libmodbus reads
 *	(and ignores) that unit's answer. After a frame it cannot make sense
 *	of (a collision, or a pause in the middle of a frame longer than its
 *	byte timeout of 100 ms, where the guest's vCPU stalled), a slave skips
 *	what the line still carries until it has been silent for 20 ms, as a
 *	slave that frames by silence would; the master leaves the bus quiet
 *	for 150 ms between transactions, longer than all that.
 *   modbus-bus master DEV BAUD COUNT
 *	a libmodbus master: COUNT transactions spread over the slaves (reads
 *	of registers 0..9, and every tenth a write of register 5 read back),
 *	all answered correctly; each takes at least the time of its request,
 *	the 3.5-character gap and the answer on the line.
 *   modbus-bus collide DEV BAUD
 *	with the duplicate running: requests to unit 2, answered by two
 *	slaves at once, fail (their answers collide: a CRC error, a bad
 *	answer or a timeout), at least 3 of 5 (two threads answer at the
 *	same moment only as far as the guest's scheduler lets them); a
 *	request to unit 1 or 3 right after each succeeds.
 *
 * Prints what it did; exits 1 with the reason on the first thing that goes
 * wrong.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <modbus.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BYTE_TIMEOUT_US	100000
#define SILENCE_MS	20
#define QUIET_US	150000

static int baud;
static volatile sig_atomic_t stop;

/* Time of @chars characters of 11 bits (8E1) on the line, in seconds */
static double chars_s(double chars)
{
	return chars * 11.0 / baud;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Skip what the line carries until it has been silent for SILENCE_MS */
static void skip_to_silence(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char buf[256];

	while (poll(&p, 1, SILENCE_MS) > 0)
		if (read(fd, buf, sizeof(buf)) <= 0)
			break;
}

struct slave {
	const char *dev;
	int id;
	unsigned long answered;
};

static void *slave(void *arg)
{
	struct slave *s = arg;
	uint8_t query[MODBUS_RTU_MAX_ADU_LENGTH];
	modbus_mapping_t *map;
	modbus_t *ctx;
	int i, rc;

	ctx = modbus_new_rtu(s->dev, baud, 'E', 8, 1);
	map = modbus_mapping_new(0, 0, 10, 0);
	if (!ctx || !map || modbus_set_slave(ctx, s->id) || modbus_connect(ctx)) {
		fprintf(stderr, "slave %d on %s: %s\n", s->id, s->dev, modbus_strerror(errno));
		exit(1);
	}
	for (i = 0; i < 10; i++)
		map->tab_registers[i] = 100 * s->id + i;
	/* idle, modbus_receive() returns after this: the slave may stop */
	modbus_set_indication_timeout(ctx, 1, 0);
	modbus_set_byte_timeout(ctx, 0, BYTE_TIMEOUT_US);
	while (!stop) {
		rc = modbus_receive(ctx, query);
		if (rc < 0 && errno != ETIMEDOUT)
			/* out of step: resynchronise on the line's silence */
			skip_to_silence(modbus_get_socket(ctx));
		if (rc <= 0)
			continue;	/* not ours, an answer ignored, or idle */
		usleep((useconds_t)(chars_s(3.5) * 1e6));
		if (modbus_reply(ctx, query, rc, map) > 0)
			s->answered++;
	}
	printf("slave %d on %s: answered %lu requests\n", s->id, s->dev, s->answered);
	modbus_close(ctx);
	modbus_free(ctx);
	modbus_mapping_free(map);
	return NULL;
}

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static int run_slaves(int argc, char **argv)
{
	static struct slave s[4];
	pthread_t th[4];
	int n = argc - 3, i;

	signal(SIGTERM, on_term);
	for (i = 0; i < n; i++) {
		s[i].dev = argv[3 + i];
		s[i].id = i < 3 ? i + 1 : 2;
		pthread_create(&th[i], NULL, slave, &s[i]);
	}
	printf("%d slaves running\n", n);
	fflush(stdout);
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	return 0;
}

static modbus_t *master_open(const char *dev)
{
	modbus_t *ctx = modbus_new_rtu(dev, baud, 'E', 8, 1);

	if (!ctx || modbus_connect(ctx)) {
		fprintf(stderr, "master on %s: %s\n", dev, modbus_strerror(errno));
		exit(1);
	}
	modbus_set_response_timeout(ctx, 1, 0);
	modbus_set_byte_timeout(ctx, 0, BYTE_TIMEOUT_US);
	return ctx;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Read registers 0..9 of @id; 0 if they are right, else -1 (printed) */
static int read_ten(modbus_t *ctx, int id, int n, double *took)
{
	uint16_t regs[10];
	double t;
	int i;

	modbus_set_slave(ctx, id);
	t = now();
	if (modbus_read_registers(ctx, 0, 10, regs) != 10) {
		fprintf(stderr, "request %d to slave %d: %s\n", n, id, modbus_strerror(errno));
		return -1;
	}
	*took = now() - t;
	for (i = 0; i < 10; i++) {
		if (i == 5)
			continue;	/* written to */
		if (regs[i] != 100 * id + i) {
			fprintf(stderr, "request %d: slave %d's register %d is %u, expected %d\n",
				n, id, i, regs[i], 100 * id + i);
			return -1;
		}
	}
	return 0;
}

static int run_master(const char *dev, int count)
{
	/* a read: a request of 8 characters, an answer of 25 */
	double least = chars_s(8 + 3.5 + 25), *took = calloc(count, sizeof(double));
	modbus_t *ctx = master_open(dev);
	uint16_t reg;
	int n, id, early = 0;

	if (!took)
		return 1;
	usleep(QUIET_US);
	for (n = 0; n < count; n++) {
		id = 1 + n % 3;
		if (read_ten(ctx, id, n, &took[n]))
			return 1;
		early += took[n] < least * 0.99;
		if (n % 10 == 9) {
			usleep(QUIET_US);
			modbus_set_slave(ctx, id);
			if (modbus_write_register(ctx, 5, (uint16_t)(1000 + n)) != 1) {
				fprintf(stderr, "writing register 5 of slave %d: %s\n", id,
					modbus_strerror(errno));
				return 1;
			}
			usleep(QUIET_US);
			if (modbus_read_registers(ctx, 5, 1, &reg) != 1 || reg != 1000 + n) {
				fprintf(stderr, "register 5 of slave %d reads %u, written %d (%s)\n",
					id, reg, 1000 + n, modbus_strerror(errno));
				return 1;
			}
		}
		usleep(QUIET_US);
	}
	qsort(took, count, sizeof(double), cmp_double);
	printf("%d requests to slaves 1-3 at %d 8E1: all answered correctly\n", count, baud);
	printf("transaction time min %.2f ms, median %.2f ms; on the line at least %.2f ms (8 characters, the 3.5-character gap, 25 characters)\n",
	       took[0] * 1e3, took[count / 2] * 1e3, least * 1e3);
	if (early) {
		fprintf(stderr, "%d transactions took less than the line needs\n", early);
		return 1;
	}
	modbus_close(ctx);
	modbus_free(ctx);
	free(took);
	return 0;
}

static int run_collide(const char *dev)
{
	modbus_t *ctx = master_open(dev);
	uint16_t regs[10];
	double took;
	int n, failed = 0;

	usleep(QUIET_US);
	for (n = 0; n < 5; n++) {
		modbus_set_slave(ctx, 2);
		if (modbus_read_registers(ctx, 0, 10, regs) == 10)
			printf("request %d to unit 2: answered (%u) despite two slaves\n", n, regs[0]);
		else {
			printf("request %d to unit 2: %s\n", n, modbus_strerror(errno));
			failed++;
		}
		/* the slaves and the master resynchronise */
		usleep(QUIET_US * 3);
		modbus_flush(ctx);
		if (read_ten(ctx, 1 + 2 * (n % 2), n, &took))
			return 1;
		printf("request %d to unit %d after it: answered\n", n, 1 + 2 * (n % 2));
		usleep(QUIET_US);
	}
	if (failed < 3) {
		fprintf(stderr, "only %d of 5 requests answered by two slaves at once failed\n", failed);
		return 1;
	}
	printf("%d of 5 requests to the duplicated unit 2 failed; every request after one was answered\n",
	       failed);
	modbus_close(ctx);
	modbus_free(ctx);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 4 && argc <= 7 && !strcmp(argv[1], "slaves")) {
		baud = atoi(argv[2]);
		return run_slaves(argc, argv);
	}
	if (argc == 5 && !strcmp(argv[1], "master")) {
		baud = atoi(argv[3]);
		return run_master(argv[2], atoi(argv[4]));
	}
	if (argc == 4 && !strcmp(argv[1], "collide")) {
		baud = atoi(argv[3]);
		return run_collide(argv[2]);
	}
	fprintf(stderr, "usage: %s slaves BAUD DEV1 [DEV2 [DEV3 [DEV4]]] | master DEV BAUD COUNT | collide DEV BAUD\n",
		argv[0]);
	return 2;
}
