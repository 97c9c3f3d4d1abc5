// SPDX-License-Identifier: GPL-2.0
/*
 * A test module that takes the configfs subsystem name "ttypair", so that
 * loading ttypair fails at its configfs registration: the test that a
 * failing load never made a device visible (tests/guest/guest-tests.sh).
 */
#include <linux/configfs.h>
#include <linux/module.h>

static const struct config_item_type squatter_type = {
	.ct_owner	= THIS_MODULE,
};

static struct configfs_subsystem squatter_subsys = {
	.su_group = {
		.cg_item = {
			.ci_namebuf	= "ttypair",
			.ci_type	= &squatter_type,
		},
	},
};

static int __init squatter_init(void)
{
	config_group_init(&squatter_subsys.su_group);
	mutex_init(&squatter_subsys.su_mutex);
	return configfs_register_subsystem(&squatter_subsys);
}

static void __exit squatter_exit(void)
{
	configfs_unregister_subsystem(&squatter_subsys);
}

module_init(squatter_init);
module_exit(squatter_exit);

MODULE_DESCRIPTION("ttypair test: holds the configfs name ttypair");
MODULE_LICENSE("GPL");
