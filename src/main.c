// SPDX-License-Identifier: GPL-2.0
/*
 * ttypair - pairs of connected virtual serial ports: a null-modem cable
 * inside the kernel, for testing serial software without hardware.
 *
 * This file owns module load and unload and the module parameters. Pairs are
 * created at load time (pairs=); modem lines, break and baud-rate emulation
 * are not implemented yet.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>

#include "ttypair.h"

static int pairs = TTYPAIR_DEFAULT_PAIRS;
module_param(pairs, int, 0444);
MODULE_PARM_DESC(pairs, "Number of port pairs created at load time (default "
		 __stringify(TTYPAIR_DEFAULT_PAIRS) ", 0 to "
		 __stringify(TTYPAIR_MAX_PAIRS) ")");

static int __init ttypair_init(void)
{
	int ret, i;

	/* A value that is not a number was already refused by the kernel. */
	if (pairs < 0 || pairs > TTYPAIR_MAX_PAIRS) {
		pr_err("pairs=%d is invalid: expected a number from 0 to %d\n",
		       pairs, TTYPAIR_MAX_PAIRS);
		return -EINVAL;
	}

	ret = ttypair_tty_register();
	if (ret)
		return ret;

	for (i = 0; i < pairs; i++) {
		ret = ttypair_pair_create(i);
		if (ret)
			goto error_destroy_pairs;
	}

	pr_info("version %s loaded, %d pairs (/dev/%s<n> <-> /dev/%s<n>)\n",
		TTYPAIR_VERSION, pairs, TTYPAIR_NAME_A, TTYPAIR_NAME_B);
	return 0;

error_destroy_pairs:
	pr_err("creating pair %d failed: %d\n", i, ret);
	ttypair_pair_destroy_all();
	ttypair_tty_unregister();
	return ret;
}

static void __exit ttypair_exit(void)
{
	ttypair_pair_destroy_all();
	ttypair_tty_unregister();
	pr_info("unloaded\n");
}

module_init(ttypair_init);
module_exit(ttypair_exit);

MODULE_DESCRIPTION("Pairs of connected virtual serial ports (null-modem emulator)");
MODULE_AUTHOR("The ttypair developers");
MODULE_LICENSE("GPL");
MODULE_VERSION(TTYPAIR_VERSION);
