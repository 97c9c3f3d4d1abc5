// SPDX-License-Identifier: GPL-2.0
/*
 * ttypair - named pairs made and removed at run time through configfs:
 * mkdir /sys/kernel/config/ttypair/<name> makes a pair whose two devices
 * appear at once, rmdir removes it even while its ends are open (they are
 * hung up). The directory's attributes are the pair's settings and the
 * names of its devices. Pairs made by the pairs= parameter are static and
 * do not appear here. The group "buses" holds the buses (configfs_bus.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/configfs.h>
#include <linux/ctype.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "ttypair.h"

/**
 * struct ttypair_cfg_pair - the configfs directory of a pair
 * @group: the directory
 * @pair: the pair, referenced until the directory is released
 */
struct ttypair_cfg_pair {
	struct config_group group;
	struct ttypair_pair *pair;
};

static struct ttypair_pair *ttypair_cfg_pair(struct config_item *item)
{
	return container_of(to_config_group(item), struct ttypair_cfg_pair,
			    group)->pair;
}

static ssize_t ttypair_cfg_wiring_a_show(struct config_item *item, char *page)
{
	return ttypair_wiring_show(ttypair_end(ttypair_cfg_pair(item),
					       TTYPAIR_END_A), page);
}

static ssize_t ttypair_cfg_wiring_a_store(struct config_item *item,
					  const char *page, size_t count)
{
	return ttypair_wiring_store(ttypair_end(ttypair_cfg_pair(item),
						TTYPAIR_END_A), page, count);
}

static ssize_t ttypair_cfg_wiring_b_show(struct config_item *item, char *page)
{
	return ttypair_wiring_show(ttypair_end(ttypair_cfg_pair(item),
					       TTYPAIR_END_B), page);
}

static ssize_t ttypair_cfg_wiring_b_store(struct config_item *item,
					  const char *page, size_t count)
{
	return ttypair_wiring_store(ttypair_end(ttypair_cfg_pair(item),
						TTYPAIR_END_B), page, count);
}

static ssize_t ttypair_cfg_rs485_a_show(struct config_item *item, char *page)
{
	return ttypair_rs485_show(ttypair_end(ttypair_cfg_pair(item),
					      TTYPAIR_END_A), page);
}

static ssize_t ttypair_cfg_rs485_a_store(struct config_item *item,
					 const char *page, size_t count)
{
	return ttypair_rs485_store(ttypair_end(ttypair_cfg_pair(item),
					       TTYPAIR_END_A), page, count);
}

static ssize_t ttypair_cfg_rs485_b_show(struct config_item *item, char *page)
{
	return ttypair_rs485_show(ttypair_end(ttypair_cfg_pair(item),
					      TTYPAIR_END_B), page);
}

static ssize_t ttypair_cfg_rs485_b_store(struct config_item *item,
					 const char *page, size_t count)
{
	return ttypair_rs485_store(ttypair_end(ttypair_cfg_pair(item),
					       TTYPAIR_END_B), page, count);
}

/* show and store of a setting of the pair, shared with sysfs.c */
#define TTYPAIR_CFG_SETTING(_name, _which)				\
static const enum ttypair_setting ttypair_cfg_##_name = _which;	\
									\
static ssize_t ttypair_cfg_##_name##_show(struct config_item *item,	\
					  char *page)			\
{									\
	return ttypair_setting_show(ttypair_cfg_pair(item),		\
				    ttypair_cfg_##_name, page);		\
}									\
									\
static ssize_t ttypair_cfg_##_name##_store(struct config_item *item,	\
					   const char *page,		\
					   size_t count)		\
{									\
	return ttypair_setting_store(ttypair_cfg_pair(item),		\
				     ttypair_cfg_##_name, page, count);	\
}

TTYPAIR_CFG_SETTING(baud_emulation, TTYPAIR_SET_BAUD_EMULATION)
TTYPAIR_CFG_SETTING(strict, TTYPAIR_SET_STRICT)
TTYPAIR_CFG_SETTING(noise_ppm, TTYPAIR_SET_NOISE_PPM)
TTYPAIR_CFG_SETTING(noise_seed, TTYPAIR_SET_NOISE_SEED)

static ssize_t ttypair_cfg_device_a_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%s%u\n", TTYPAIR_NAME_A,
			  ttypair_cfg_pair(item)->index);
}

static ssize_t ttypair_cfg_device_b_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%s%u\n", TTYPAIR_NAME_B,
			  ttypair_cfg_pair(item)->index);
}

CONFIGFS_ATTR(ttypair_cfg_, wiring_a);
CONFIGFS_ATTR(ttypair_cfg_, wiring_b);
CONFIGFS_ATTR(ttypair_cfg_, rs485_a);
CONFIGFS_ATTR(ttypair_cfg_, rs485_b);
CONFIGFS_ATTR(ttypair_cfg_, baud_emulation);
CONFIGFS_ATTR(ttypair_cfg_, strict);
CONFIGFS_ATTR(ttypair_cfg_, noise_ppm);
CONFIGFS_ATTR(ttypair_cfg_, noise_seed);
CONFIGFS_ATTR_RO(ttypair_cfg_, device_a);
CONFIGFS_ATTR_RO(ttypair_cfg_, device_b);

static struct configfs_attribute *ttypair_cfg_pair_attrs[] = {
	&ttypair_cfg_attr_wiring_a,
	&ttypair_cfg_attr_wiring_b,
	&ttypair_cfg_attr_rs485_a,
	&ttypair_cfg_attr_rs485_b,
	&ttypair_cfg_attr_baud_emulation,
	&ttypair_cfg_attr_strict,
	&ttypair_cfg_attr_noise_ppm,
	&ttypair_cfg_attr_noise_seed,
	&ttypair_cfg_attr_device_a,
	&ttypair_cfg_attr_device_b,
	NULL
};

/* The directory is gone and nobody holds it: drop its pair reference. */
static void ttypair_cfg_pair_release(struct config_item *item)
{
	struct ttypair_cfg_pair *cp = container_of(to_config_group(item),
						   struct ttypair_cfg_pair,
						   group);

	ttypair_pair_put(cp->pair);
	kfree(cp);
}

static struct configfs_item_operations ttypair_cfg_pair_item_ops = {
	.release	= ttypair_cfg_pair_release,
};

static const struct config_item_type ttypair_cfg_pair_type = {
	.ct_item_ops	= &ttypair_cfg_pair_item_ops,
	.ct_attrs	= ttypair_cfg_pair_attrs,
	.ct_owner	= THIS_MODULE,
};

/**
 * ttypair_cfg_name_ok() - whether a name can name a pair or bus
 * @name: what mkdir(2) was given
 * @what: "pair" or "bus", for the log line
 *
 * A name that can be part of a device path: 1 to TTYPAIR_PAIR_NAME_MAX
 * letters, digits, '.', '_' or '-', not starting with '.' or '-'. A name
 * refused is logged.
 *
 * Return: true if @name is good.
 */
bool ttypair_cfg_name_ok(const char *name, const char *what)
{
	size_t len = strlen(name), i;
	bool ok = len && len <= TTYPAIR_PAIR_NAME_MAX && name[0] != '.' &&
		  name[0] != '-';

	for (i = 0; ok && i < len; i++)
		ok = isalnum(name[i]) || strchr("._-", name[i]);
	if (!ok)
		/* escaped: the name is anything mkdir(2) was given */
		pr_info_ratelimited("%s name '%*pE' refused: 1 to %d letters, digits, '.', '_' or '-', not starting with '.' or '-'\n",
				    what, (int)min_t(size_t, len, 40), name,
				    TTYPAIR_PAIR_NAME_MAX);
	return ok;
}

static struct config_group *ttypair_cfg_make_pair(struct config_group *group,
						  const char *name)
{
	struct ttypair_cfg_pair *cp;
	struct ttypair_pair *pair;

	if (!ttypair_cfg_name_ok(name, "pair"))
		return ERR_PTR(-EINVAL);
	cp = kzalloc(sizeof(*cp), GFP_KERNEL);
	if (!cp)
		return ERR_PTR(-ENOMEM);
	pair = ttypair_pair_create(-1, name);
	if (IS_ERR(pair)) {
		if (PTR_ERR(pair) == -ENOSPC)
			pr_info_ratelimited("pair '%s' refused: max_pairs (%u) pairs exist\n",
					    name, ttypair_max_pairs);
		else if (PTR_ERR(pair) == -EEXIST)
			pr_info_ratelimited("pair '%s' refused: a bus has that name\n",
					    name);
		kfree(cp);
		return ERR_CAST(pair);
	}
	/* The directory's own reference, dropped when it is released */
	kref_get(&pair->kref);
	cp->pair = pair;
	config_group_init_type_name(&cp->group, name, &ttypair_cfg_pair_type);
	return &cp->group;
}

static void ttypair_cfg_drop_pair(struct config_group *group,
				  struct config_item *item)
{
	ttypair_pair_destroy(ttypair_cfg_pair(item));
	config_item_put(item);
}

static struct configfs_group_operations ttypair_cfg_group_ops = {
	.make_group	= ttypair_cfg_make_pair,
	.drop_item	= ttypair_cfg_drop_pair,
};

static const struct config_item_type ttypair_cfg_subsys_type = {
	.ct_group_ops	= &ttypair_cfg_group_ops,
	.ct_owner	= THIS_MODULE,
};

static struct configfs_subsystem ttypair_cfg_subsys = {
	.su_group = {
		.cg_item = {
			.ci_namebuf	= KBUILD_MODNAME,
			.ci_type	= &ttypair_cfg_subsys_type,
		},
	},
};

/**
 * ttypair_configfs_register() - offer /sys/kernel/config/ttypair
 *
 * Return: 0 or a negative errno; -EBUSY if something else holds the name.
 */
int ttypair_configfs_register(void)
{
	int ret;

	config_group_init(&ttypair_cfg_subsys.su_group);
	mutex_init(&ttypair_cfg_subsys.su_mutex);
	ttypair_cfg_buses_init(&ttypair_cfg_subsys.su_group);
	ret = configfs_register_subsystem(&ttypair_cfg_subsys);
	if (ret) {
		pr_err("registering with configfs failed: %d\n", ret);
		mutex_destroy(&ttypair_cfg_subsys.su_mutex);
		/* modprobe takes EEXIST for "already loaded" and says nothing */
		if (ret == -EEXIST)
			ret = -EBUSY;
	}
	return ret;
}

/**
 * ttypair_configfs_unregister() - withdraw /sys/kernel/config/ttypair
 *
 * No pair or bus directory exists any more: each one pins the module.
 */
void ttypair_configfs_unregister(void)
{
	configfs_unregister_subsystem(&ttypair_cfg_subsys);
	mutex_destroy(&ttypair_cfg_subsys.su_mutex);
}
