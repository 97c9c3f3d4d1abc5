// SPDX-License-Identifier: GPL-2.0
/*
 * ttypair - named buses made and removed at run time through configfs:
 * mkdir /sys/kernel/config/ttypair/buses/<name> makes a bus without ports;
 * writing the number of ports (2 to 32) to its "ports" makes them, once,
 * and their devices appear. rmdir removes the bus even while its ports are
 * open (they are hung up). The directory's other attributes are the bus's
 * settings and the names of its ports' devices.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/configfs.h>
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include "ttypair.h"

/**
 * struct ttypair_cfg_bus - the configfs directory of a bus
 * @group: the directory
 * @bus: the bus, referenced until the directory is released
 */
struct ttypair_cfg_bus {
	struct config_group group;
	struct ttypair_pair *bus;
};

/* Serialises the writes of "ports": a bus gets its ports once */
static DEFINE_MUTEX(ttypair_cfg_ports_lock);

static struct ttypair_pair *ttypair_cfg_bus(struct config_item *item)
{
	return container_of(to_config_group(item), struct ttypair_cfg_bus,
			    group)->bus;
}

static ssize_t ttypair_cfg_bus_ports_show(struct config_item *item,
					  char *page)
{
	return sysfs_emit(page, "%u\n",
			  ttypair_nr_ports(ttypair_cfg_bus(item)));
}

static ssize_t ttypair_cfg_bus_ports_store(struct config_item *item,
					   const char *page, size_t count)
{
	struct ttypair_pair *bus = ttypair_cfg_bus(item);
	unsigned int nr;
	int ret;

	ret = kstrtouint(page, 10, &nr);
	if (ret || nr < TTYPAIR_BUS_PORTS_MIN || nr > TTYPAIR_BUS_PORTS_MAX) {
		pr_info_ratelimited("bus %s: ports=%.12s refused: a number from %u to %u\n",
				    bus->name, page, TTYPAIR_BUS_PORTS_MIN,
				    TTYPAIR_BUS_PORTS_MAX);
		return -EINVAL;
	}
	mutex_lock(&ttypair_cfg_ports_lock);
	ret = ttypair_bus_add_ports(bus, nr);
	mutex_unlock(&ttypair_cfg_ports_lock);
	if (ret == -EBUSY)
		pr_info_ratelimited("bus %s: it has its ports; remove it and make it again for another number\n",
				    bus->name);
	else if (ret == -ENOSPC)
		pr_info_ratelimited("bus %s: %u ports refused: max_bus_ports (%u) would be exceeded, or no %u consecutive lines are free\n",
				    bus->name, nr, ttypair_max_bus_ports, nr);
	return ret ?: count;
}

/* The ports' device names, one a line, port 0 first */
static ssize_t ttypair_cfg_bus_devices_show(struct config_item *item,
					    char *page)
{
	struct ttypair_pair *bus = ttypair_cfg_bus(item);
	unsigned int i, nr = ttypair_nr_ports(bus);
	int len = 0;

	for (i = 0; i < nr; i++)
		len += sysfs_emit_at(page, len, "%s%u\n", TTYPAIR_NAME_BUS,
				     bus->ports[i]->tty_index);
	return len;
}

/* show and store of a setting of the bus, shared with sysfs.c */
#define TTYPAIR_CFG_BUS_SETTING(_name, _which)				\
static const enum ttypair_setting ttypair_cfg_bus_##_name = _which;	\
									\
static ssize_t ttypair_cfg_bus_##_name##_show(struct config_item *item,\
					      char *page)		\
{									\
	return ttypair_setting_show(ttypair_cfg_bus(item),		\
				    ttypair_cfg_bus_##_name, page);	\
}									\
									\
static ssize_t ttypair_cfg_bus_##_name##_store(struct config_item *item,\
					       const char *page,	\
					       size_t count)		\
{									\
	return ttypair_setting_store(ttypair_cfg_bus(item),		\
				     ttypair_cfg_bus_##_name, page,	\
				     count);				\
}

TTYPAIR_CFG_BUS_SETTING(baud_emulation, TTYPAIR_SET_BAUD_EMULATION)
TTYPAIR_CFG_BUS_SETTING(strict, TTYPAIR_SET_STRICT)
TTYPAIR_CFG_BUS_SETTING(overrun, TTYPAIR_SET_OVERRUN)
TTYPAIR_CFG_BUS_SETTING(noise_ppm, TTYPAIR_SET_NOISE_PPM)
TTYPAIR_CFG_BUS_SETTING(noise_seed, TTYPAIR_SET_NOISE_SEED)

CONFIGFS_ATTR(ttypair_cfg_bus_, ports);
CONFIGFS_ATTR_RO(ttypair_cfg_bus_, devices);
CONFIGFS_ATTR(ttypair_cfg_bus_, baud_emulation);
CONFIGFS_ATTR(ttypair_cfg_bus_, strict);
CONFIGFS_ATTR(ttypair_cfg_bus_, overrun);
CONFIGFS_ATTR(ttypair_cfg_bus_, noise_ppm);
CONFIGFS_ATTR(ttypair_cfg_bus_, noise_seed);

static struct configfs_attribute *ttypair_cfg_bus_attrs[] = {
	&ttypair_cfg_bus_attr_ports,
	&ttypair_cfg_bus_attr_devices,
	&ttypair_cfg_bus_attr_baud_emulation,
	&ttypair_cfg_bus_attr_strict,
	&ttypair_cfg_bus_attr_overrun,
	&ttypair_cfg_bus_attr_noise_ppm,
	&ttypair_cfg_bus_attr_noise_seed,
	NULL
};

/* The directory is gone and nobody holds it: drop its bus reference. */
static void ttypair_cfg_bus_release(struct config_item *item)
{
	struct ttypair_cfg_bus *cb = container_of(to_config_group(item),
						  struct ttypair_cfg_bus,
						  group);

	ttypair_pair_put(cb->bus);
	kfree(cb);
}

static struct configfs_item_operations ttypair_cfg_bus_item_ops = {
	.release	= ttypair_cfg_bus_release,
};

static const struct config_item_type ttypair_cfg_bus_type = {
	.ct_item_ops	= &ttypair_cfg_bus_item_ops,
	.ct_attrs	= ttypair_cfg_bus_attrs,
	.ct_owner	= THIS_MODULE,
};

static struct config_group *ttypair_cfg_make_bus(struct config_group *group,
						 const char *name)
{
	struct ttypair_cfg_bus *cb;
	struct ttypair_pair *bus;

	if (!ttypair_cfg_name_ok(name, "bus"))
		return ERR_PTR(-EINVAL);
	cb = kzalloc(sizeof(*cb), GFP_KERNEL);
	if (!cb)
		return ERR_PTR(-ENOMEM);
	bus = ttypair_bus_new(name);
	if (IS_ERR(bus)) {
		if (PTR_ERR(bus) == -EEXIST)
			pr_info_ratelimited("bus '%s' refused: a pair has that name\n",
					    name);
		kfree(cb);
		return ERR_CAST(bus);
	}
	/* The directory's own reference, dropped when it is released */
	kref_get(&bus->kref);
	cb->bus = bus;
	config_group_init_type_name(&cb->group, name, &ttypair_cfg_bus_type);
	return &cb->group;
}

static void ttypair_cfg_drop_bus(struct config_group *group,
				 struct config_item *item)
{
	ttypair_pair_destroy(ttypair_cfg_bus(item));
	config_item_put(item);
}

static struct configfs_group_operations ttypair_cfg_buses_ops = {
	.make_group	= ttypair_cfg_make_bus,
	.drop_item	= ttypair_cfg_drop_bus,
};

static const struct config_item_type ttypair_cfg_buses_type = {
	.ct_group_ops	= &ttypair_cfg_buses_ops,
	.ct_owner	= THIS_MODULE,
};

static struct config_group ttypair_cfg_buses;

/**
 * ttypair_cfg_buses_init() - add the group "buses" to the subsystem
 * @parent: the subsystem's group, before it is registered
 */
void ttypair_cfg_buses_init(struct config_group *parent)
{
	config_group_init_type_name(&ttypair_cfg_buses, "buses",
				    &ttypair_cfg_buses_type);
	configfs_add_default_group(&ttypair_cfg_buses, parent);
}
