// SPDX-License-Identifier: GPL-2.0
/*
 * A Modbus RTU slave with libmodbus: unit 1, ten holding registers
 * (100..109), answering on one serial port until the port hangs up.
 *
 *   gcc -o modbus-slave modbus-slave.c $(pkg-config --cflags --libs libmodbus)
 *   ./modbus-slave /dev/ttypair/modbus/b 19200
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <modbus.h>

int main(int argc, char **argv)
{
	const char *port = argc > 1 ? argv[1] : "/dev/ttypair/modbus/b";
	int baud = argc > 2 ? atoi(argv[2]) : 19200;
	uint8_t query[MODBUS_RTU_MAX_ADU_LENGTH];
	modbus_mapping_t *map;
	modbus_t *ctx;
	int i, n;

	ctx = modbus_new_rtu(port, baud, 'E', 8, 1);
	map = modbus_mapping_new(0, 0, 10, 0);
	if (!ctx || !map) {
		fprintf(stderr, "modbus-slave: %s\n", modbus_strerror(errno));
		return 1;
	}
	for (i = 0; i < 10; i++)
		map->tab_registers[i] = 100 + i;
	modbus_set_slave(ctx, 1);
	if (modbus_connect(ctx) == -1) {
		fprintf(stderr, "modbus-slave: %s: %s\n", port, modbus_strerror(errno));
		return 1;
	}
	printf("modbus-slave: unit 1 on %s, %d 8E1\n", port, baud);
	fflush(stdout);
	for (;;) {
		n = modbus_receive(ctx, query);
		if (n > 0)
			modbus_reply(ctx, query, n, map);
		else if (n == -1 && errno != EMBBADCRC)
			break;	/* the port hung up, or was closed */
	}
	printf("modbus-slave: %s\n", modbus_strerror(errno));
	modbus_mapping_free(map);
	modbus_close(ctx);
	modbus_free(ctx);
	return 0;
}
