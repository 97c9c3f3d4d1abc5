// SPDX-License-Identifier: GPL-2.0
/* tty_port_operations: bool carrier_raised(), dtr_rts(port, bool) (6.2..6.5) */
#include <linux/tty.h>

static bool probe_carrier_raised(struct tty_port *port)
{
	return true;
}

static void probe_dtr_rts(struct tty_port *port, bool active)
{
}

const struct tty_port_operations ttypair_probe_port_ops = {
	.carrier_raised = probe_carrier_raised,
	.dtr_rts = probe_dtr_rts,
};
