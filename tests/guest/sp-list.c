// SPDX-License-Identifier: GPL-2.0
/*
 * sp-list: the serial ports sigrok's libserialport finds (sp_list_ports()),
 * as the programs built on it (PulseView, sigrok-cli) list them: one line
 * per port, "name|transport|description".
 */
#include <libserialport.h>
#include <stdio.h>

static const char *transport_name(enum sp_transport t)
{
	switch (t) {
	case SP_TRANSPORT_NATIVE:
		return "native";
	case SP_TRANSPORT_USB:
		return "usb";
	case SP_TRANSPORT_BLUETOOTH:
		return "bluetooth";
	}
	return "?";
}

int main(void)
{
	struct sp_port **ports;
	int i;

	if (sp_list_ports(&ports) != SP_OK) {
		fprintf(stderr, "sp_list_ports() failed: %s\n", sp_last_error_message());
		return 1;
	}
	for (i = 0; ports[i]; i++)
		printf("%s|%s|%s\n", sp_get_port_name(ports[i]),
		       transport_name(sp_get_port_transport(ports[i])),
		       sp_get_port_description(ports[i]));
	sp_free_port_list(ports);
	return 0;
}
