// SPDX-License-Identifier: GPL-2.0
/* tty_operations.send_xchar takes a u8 rather than a char (6.8) */
#include <linux/tty.h>
#include <linux/tty_driver.h>

static void probe_send_xchar(struct tty_struct *tty, u8 ch)
{
}

const struct tty_operations ttypair_probe_ops = {
	.send_xchar = probe_send_xchar,
};
