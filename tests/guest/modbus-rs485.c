// SPDX-License-Identifier: GPL-2.0
/*
 * modbus-rs485 MASTER SLAVE BAUD: a libmodbus RTU master in RS-485 mode
 * (modbus_rtu_set_serial_mode(MODBUS_RTU_RS485), as Modbus stacks on
 * RS-485 adapters call it) on MASTER reads and writes the holding
 * registers of a libmodbus slave (unit 1, registers 0..9 = 100..109, 8E1)
 * on SLAVE; then it goes back to RS-232 mode. Prints what it did; exits 1
 * with the reason on the first thing that goes wrong.
 */
#include <errno.h>
#include <linux/serial.h>
#include <modbus.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

static const char *slave_dev;
static int baud;
static volatile int stop;

static void *slave(void *arg)
{
	uint8_t query[MODBUS_RTU_MAX_ADU_LENGTH];
	modbus_mapping_t *map;
	modbus_t *ctx;
	int i, rc;

	(void)arg;
	ctx = modbus_new_rtu(slave_dev, baud, 'E', 8, 1);
	map = modbus_mapping_new(0, 0, 10, 0);
	if (!ctx || !map || modbus_set_slave(ctx, 1) || modbus_connect(ctx)) {
		fprintf(stderr, "slave on %s: %s\n", slave_dev, modbus_strerror(errno));
		exit(1);
	}
	for (i = 0; i < 10; i++)
		map->tab_registers[i] = 100 + i;
	/* modbus_receive() returns after this without a request */
	modbus_set_indication_timeout(ctx, 0, 200000);
	while (!stop) {
		rc = modbus_receive(ctx, query);
		if (rc > 0)
			modbus_reply(ctx, query, rc, map);
	}
	modbus_close(ctx);
	modbus_free(ctx);
	modbus_mapping_free(map);
	return NULL;
}

static int rs485_flags(modbus_t *ctx, unsigned int *flags)
{
	struct serial_rs485 r;

	if (ioctl(modbus_get_socket(ctx), TIOCGRS485, &r))
		return -1;
	*flags = r.flags;
	return 0;
}

int main(int argc, char **argv)
{
	uint16_t regs[10];
	unsigned int flags;
	pthread_t th;
	modbus_t *ctx;
	int i;

	if (argc != 4) {
		fprintf(stderr, "usage: %s MASTER SLAVE BAUD\n", argv[0]);
		return 2;
	}
	slave_dev = argv[2];
	baud = atoi(argv[3]);
	pthread_create(&th, NULL, slave, NULL);

	ctx = modbus_new_rtu(argv[1], baud, 'E', 8, 1);
	if (!ctx || modbus_set_slave(ctx, 1) || modbus_connect(ctx)) {
		fprintf(stderr, "master on %s: %s\n", argv[1], modbus_strerror(errno));
		return 1;
	}
	modbus_set_response_timeout(ctx, 1, 0);
	if (modbus_rtu_set_serial_mode(ctx, MODBUS_RTU_RS485)) {
		fprintf(stderr, "modbus_rtu_set_serial_mode(RS485): %s\n",
			modbus_strerror(errno));
		return 1;
	}
	if (modbus_rtu_get_serial_mode(ctx) != MODBUS_RTU_RS485 ||
	    rs485_flags(ctx, &flags)) {
		fprintf(stderr, "the port is not in RS-485 mode after setting it\n");
		return 1;
	}
	printf("master in RS-485 mode: TIOCGRS485 flags %#x\n", flags);
	/* the slave may not have opened its end yet: the first may time out */
	for (i = 0; i < 5; i++)
		if (modbus_read_registers(ctx, 0, 10, regs) == 10)
			break;
	if (i == 5) {
		fprintf(stderr, "reading 10 registers: %s\n", modbus_strerror(errno));
		return 1;
	}
	for (i = 0; i < 10; i++)
		if (regs[i] != 100 + i) {
			fprintf(stderr, "register %d is %u, expected %d\n", i, regs[i], 100 + i);
			return 1;
		}
	printf("read registers 0..9: 100..109\n");
	if (modbus_write_register(ctx, 3, 4242) != 1 ||
	    modbus_read_registers(ctx, 3, 1, regs) != 1 || regs[0] != 4242) {
		fprintf(stderr, "write and read back register 3: %s\n",
			modbus_strerror(errno));
		return 1;
	}
	printf("wrote register 3 = 4242, read it back\n");
	if (modbus_rtu_set_serial_mode(ctx, MODBUS_RTU_RS232) ||
	    rs485_flags(ctx, &flags) || flags) {
		fprintf(stderr, "back to RS-232 mode failed\n");
		return 1;
	}
	printf("back in RS-232 mode: TIOCGRS485 flags 0\n");
	stop = 1;
	pthread_join(th, NULL);
	modbus_close(ctx);
	modbus_free(ctx);
	return 0;
}
