// SPDX-License-Identifier: GPL-2.0
/* tty_port_operations.dtr_rts takes a bool (about 6.2) */
#include <linux/tty.h>

static void probe_dtr_rts(struct tty_port *port, bool active)
{
}

const struct tty_port_operations ttypair_probe_port_ops = {
	.dtr_rts = probe_dtr_rts,
};
