// SPDX-License-Identifier: GPL-2.0
/* tty_operations.set_termios takes a const struct ktermios *old (6.1) */
#include <linux/tty.h>
#include <linux/tty_driver.h>

static void probe_set_termios(struct tty_struct *tty,
			      const struct ktermios *old)
{
}

const struct tty_operations ttypair_probe_ops = {
	.set_termios = probe_set_termios,
};
