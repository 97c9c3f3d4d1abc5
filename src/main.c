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

static unsigned int pairs = TTYPAIR_DEFAULT_PAIRS;

static int pairs_set(const char *val, const struct kernel_param *kp)
{
	unsigned int n;
	int ret;

	ret = kstrtouint(val, 0, &n);
	if (ret || n > TTYPAIR_MAX_PAIRS) {
		pr_err("pairs=%s is invalid: expected a number from 0 to %u\n",
		       val, TTYPAIR_MAX_PAIRS);
		return -EINVAL;
	}
	*(unsigned int *)kp->arg = n;
	return 0;
}

static const struct kernel_param_ops pairs_ops = {
	.set = pairs_set,
	.get = param_get_uint,
};

module_param_cb(pairs, &pairs_ops, &pairs, 0444);
MODULE_PARM_DESC(pairs, "Number of port pairs created at load time (default "
		 __stringify(TTYPAIR_DEFAULT_PAIRS) ", maximum "
		 __stringify(TTYPAIR_MAX_PAIRS) ")");

static int __init ttypair_init(void)
{
	unsigned int i;
	int ret;

	ret = ttypair_tty_register();
	if (ret)
		return ret;

	for (i = 0; i < pairs; i++) {
		ret = ttypair_pair_create(i);
		if (ret)
			goto error_destroy_pairs;
	}

	pr_info("version %s loaded, %u pairs (/dev/%s<n> <-> /dev/%s<n>)\n",
		TTYPAIR_VERSION, pairs, TTYPAIR_NAME_A, TTYPAIR_NAME_B);
	return 0;

error_destroy_pairs:
	pr_err("creating pair %u failed: %d\n", i, ret);
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
