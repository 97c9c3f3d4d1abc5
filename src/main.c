// SPDX-License-Identifier: GPL-2.0
/*
 * ttypair - pairs of connected virtual serial ports: a null-modem cable
 * inside the kernel, for testing serial software without hardware.
 *
 * This file owns module load and unload and the module parameters. Pairs are
 * created at load time (pairs=) with the default settings the other
 * parameters give.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include "ttypair.h"

static int pairs = TTYPAIR_DEFAULT_PAIRS;
module_param(pairs, int, 0444);
MODULE_PARM_DESC(pairs, "Number of port pairs created at load time (default "
		 __stringify(TTYPAIR_DEFAULT_PAIRS) ", 0 to "
		 __stringify(TTYPAIR_MAX_PAIRS) ")");

unsigned int ttypair_max_pairs = TTYPAIR_MAX_PAIRS;
module_param_named(max_pairs, ttypair_max_pairs, uint, 0444);
MODULE_PARM_DESC(max_pairs, "Most pairs that may exist at once, pairs= and configfs together (default and at most "
		 __stringify(TTYPAIR_MAX_PAIRS) ")");

unsigned int ttypair_max_bus_ports = TTYPAIR_MAX_BUS_PORTS;
module_param_named(max_bus_ports, ttypair_max_bus_ports, uint, 0444);
MODULE_PARM_DESC(max_bus_ports, "Most ports that the buses may have together (default and at most "
		 __stringify(TTYPAIR_MAX_BUS_PORTS) ")");

unsigned int ttypair_max_sessions_per_user = TTYPAIR_DEFAULT_SESSIONS_PER_USER;
module_param_named(max_sessions_per_user, ttypair_max_sessions_per_user, uint,
		   0444);
MODULE_PARM_DESC(max_sessions_per_user, "Most session pairs (/dev/" TTYPAIR_SESSION_DEVICE
		 ") one user may have at once (default "
		 __stringify(TTYPAIR_DEFAULT_SESSIONS_PER_USER) ", 0 to "
		 __stringify(TTYPAIR_MAX_PAIRS) ", 0: none)");

/* The settings new pairs start with */
struct ttypair_settings ttypair_defaults = {
	.wiring = TTYPAIR_NULL_MODEM_WIRING,
};

static int ttypair_param_wiring_set(const char *val,
				    const struct kernel_param *kp)
{
	struct ttypair_wiring wiring = ttypair_defaults.wiring;

	if (ttypair_wiring_parse(val, &wiring)) {
		pr_err("wiring=%.64s is invalid: expected input=[!]source items, inputs cts dsr dcd ri, sources rts dtr out1 out2 open on off\n",
		       val);
		return -EINVAL;
	}
	ttypair_defaults.wiring = wiring;
	return 0;
}

static int ttypair_param_wiring_get(char *buffer,
				    const struct kernel_param *kp)
{
	int len = ttypair_wiring_format(&ttypair_defaults.wiring, buffer,
					PAGE_SIZE - 1);

	return len + sysfs_emit_at(buffer, len, "\n");
}

static const struct kernel_param_ops ttypair_param_wiring_ops = {
	.set = ttypair_param_wiring_set,
	.get = ttypair_param_wiring_get,
};

module_param_cb(wiring, &ttypair_param_wiring_ops, NULL, 0444);
MODULE_PARM_DESC(wiring, "Default wiring of the modem-status inputs of both ends (default \"cts=rts dsr=dtr dcd=dtr ri=off\": a null-modem cable)");

module_param_named(baud_emulation, ttypair_defaults.baud_emulation, bool,
		   0444);
MODULE_PARM_DESC(baud_emulation, "Bytes leave at the sender's line rate by default (default N)");

module_param_named(strict, ttypair_defaults.strict, bool, 0444);
MODULE_PARM_DESC(strict, "Mismatched line settings cause framing and parity errors by default (default N)");

/*
 * Every step that can fail comes before the first device is registered:
 * udev, ModemManager or anyone may open a device as soon as it appears,
 * and a failed load frees the module's code whoever still uses it. The
 * pairs of pairs= get their devices last; configfs may make pairs of its
 * own from its registration on, which take other indexes.
 */
static int __init ttypair_init(void)
{
	struct ttypair_pair **new;
	int ret, i, published = 0;

	/* A value that is not a number was already refused by the kernel. */
	if (pairs < 0 || pairs > TTYPAIR_MAX_PAIRS) {
		pr_err("pairs=%d is invalid: expected a number from 0 to %d\n",
		       pairs, TTYPAIR_MAX_PAIRS);
		return -EINVAL;
	}

	if (ttypair_max_pairs > TTYPAIR_MAX_PAIRS ||
	    ttypair_max_pairs < (unsigned int)pairs) {
		pr_err("max_pairs=%u is invalid: expected a number from pairs (%d) to %d\n",
		       ttypair_max_pairs, pairs, TTYPAIR_MAX_PAIRS);
		return -EINVAL;
	}

	if (ttypair_max_bus_ports > TTYPAIR_MAX_BUS_PORTS) {
		pr_err("max_bus_ports=%u is invalid: expected a number from 0 to %d\n",
		       ttypair_max_bus_ports, TTYPAIR_MAX_BUS_PORTS);
		return -EINVAL;
	}

	if (ttypair_max_sessions_per_user > TTYPAIR_MAX_PAIRS) {
		pr_err("max_sessions_per_user=%u is invalid: expected a number from 0 to %d\n",
		       ttypair_max_sessions_per_user, TTYPAIR_MAX_PAIRS);
		return -EINVAL;
	}

	ttypair_rx_ops_init();
	ret = ttypair_dev_register();
	if (ret)
		return ret;
	ret = ttypair_tty_register();
	if (ret)
		goto error_unregister_bus;

	/* The pairs of pairs=, without their devices yet */
	new = kcalloc(max(pairs, 1), sizeof(*new), GFP_KERNEL);
	if (!new) {
		ret = -ENOMEM;
		goto error_unregister_tty;
	}
	for (i = 0; i < pairs; i++) {
		new[i] = ttypair_pair_new(i, NULL);
		if (IS_ERR(new[i])) {
			ret = PTR_ERR(new[i]);
			pr_err("creating pair %d failed: %d\n", i, ret);
			goto error_destroy_pairs;
		}
	}

	ret = ttypair_configfs_register();
	if (ret)
		goto error_destroy_pairs;

	/* From here on nothing fails the load. */
	ret = ttypair_session_register();
	if (ret)
		pr_err("registering /dev/%s failed (%d): sessions are not available\n",
		       TTYPAIR_SESSION_DEVICE, ret);
	for (i = 0; i < pairs; i++) {
		ret = ttypair_pair_publish(new[i]);
		if (ret)
			pr_err("pair %d: registering its devices failed (%d); it is not available\n",
			       i, ret);
		else
			published++;
	}
	kfree(new);

	pr_info("version %s loaded, %d pairs (/dev/%s<n> <-> /dev/%s<n>)\n",
		TTYPAIR_VERSION, published, TTYPAIR_NAME_A, TTYPAIR_NAME_B);
	return 0;

error_destroy_pairs:
	while (i--)
		ttypair_pair_destroy(new[i]);
	kfree(new);
error_unregister_tty:
	ttypair_tty_unregister();
error_unregister_bus:
	ttypair_dev_unregister();
	return ret;
}

static void __exit ttypair_exit(void)
{
	ttypair_session_unregister();
	ttypair_configfs_unregister();
	ttypair_pair_destroy_all();
	ttypair_tty_unregister();
	ttypair_dev_unregister();
	pr_info("unloaded\n");
}

module_init(ttypair_init);
module_exit(ttypair_exit);

MODULE_DESCRIPTION("Pairs of connected virtual serial ports (null-modem emulator)");
MODULE_AUTHOR("The ttypair developers");
MODULE_LICENSE("GPL");
MODULE_VERSION(TTYPAIR_VERSION);
