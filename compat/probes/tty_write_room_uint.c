// SPDX-License-Identifier: GPL-2.0
/* tty_operations.write_room and .chars_in_buffer return unsigned int (5.14) */
#include <linux/tty.h>
#include <linux/tty_driver.h>

static unsigned int probe_room(struct tty_struct *tty)
{
	return 0;
}

const struct tty_operations ttypair_probe_ops = {
	.write_room = probe_room,
	.chars_in_buffer = probe_room,
};
