// SPDX-License-Identifier: GPL-2.0
/*
 * ttypair - the device model: a device for every pair and every bus of
 * ports, on a bus_type of the module's own (the "ttypair" device bus, not
 * to be confused with a bus of ports), bound to the ttypair driver, as the
 * parent of their tty devices.
 *
 * Programs that look for serial ports (libserialport, Qt, jSerialComm)
 * skip a tty without a parent device, or one under /sys/devices/virtual,
 * as a console or a pty rather than a port. A pair is not a platform
 * device (there is no platform hardware, and ModemManager, pyserial and
 * others treat platform ttys as built-in UARTs); it is a device on a bus
 * of its own, as the kernel's faux bus (6.14 and newer) gives virtual
 * devices, under /sys/devices/ttypair:
 *
 *   /sys/devices/ttypair/pair<n>              bus ttypair, driver ttypair
 *   /sys/devices/ttypair/pair<n>/tty/ttyVPA<n>
 *   /sys/devices/ttypair/pair<n>/tty/ttyVPB<n>
 *   /sys/devices/ttypair/bus<m>               a bus of ports (configfs)
 *   /sys/devices/ttypair/bus<m>/tty/ttyVPS<line>, one per port
 *
 * The driver binds every device and cannot be unbound from user space: the
 * tty devices are registered and removed with their pair or bus.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/device.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "ttypair.h"

static struct bus_type ttypair_dev_bus = {
	.name = "ttypair",
};

static struct device_driver ttypair_driver = {
	.name = "ttypair",
	.bus = &ttypair_dev_bus,
	.owner = THIS_MODULE,
	.suppress_bind_attrs = true,
};

/* /sys/devices/ttypair, the parent of every pair and bus device */
static struct device *ttypair_root;

static void ttypair_dev_release(struct device *dev)
{
	kfree(dev);
}

/**
 * ttypair_dev_add() - register the device of a pair or of a bus of ports
 * @pair: a pair or bus with its index, whose tty devices are not
 *	registered yet
 *
 * The device, pair<index> or bus<index>, is bound to the ttypair driver
 * when this returns; it becomes the parent of the tty devices.
 *
 * Context: process context; sleeps.
 * Return: 0 or a negative errno.
 */
int ttypair_dev_add(struct ttypair_pair *pair)
{
	struct device *dev;
	int ret;

	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return -ENOMEM;
	device_initialize(dev);
	dev->parent = ttypair_root;
	dev->bus = &ttypair_dev_bus;
	dev->release = ttypair_dev_release;
	ret = dev_set_name(dev, "%s%u", pair->bus ? "bus" : "pair",
			   pair->index);
	if (!ret)
		ret = device_add(dev);
	if (!ret && !dev->driver) {
		/* nothing can refuse the binding; if it did, do not go on */
		device_del(dev);
		ret = -ENXIO;
	}
	if (ret) {
		pr_err("%s %u: registering its device failed: %d\n",
		       pair->bus ? "bus" : "pair", pair->index, ret);
		put_device(dev);
		return ret;
	}
	pair->dev = dev;
	return 0;
}

/**
 * ttypair_dev_remove() - unregister the device of a pair or bus
 * @pair: the pair or bus, whose tty devices are unregistered; nothing
 *	happens if its device was never registered
 *
 * Context: process context; sleeps.
 */
void ttypair_dev_remove(struct ttypair_pair *pair)
{
	if (!pair->dev)
		return;
	device_unregister(pair->dev);
	pair->dev = NULL;
}

/**
 * ttypair_dev_register() - register the ttypair device bus, driver and root
 *
 * Return: 0 or a negative errno.
 */
int ttypair_dev_register(void)
{
	int ret;

	ret = bus_register(&ttypair_dev_bus);
	if (ret)
		goto error;
	ret = driver_register(&ttypair_driver);
	if (ret)
		goto error_bus;
	ttypair_root = root_device_register("ttypair");
	if (IS_ERR(ttypair_root)) {
		ret = PTR_ERR(ttypair_root);
		ttypair_root = NULL;
		goto error_driver;
	}
	return 0;

error_driver:
	driver_unregister(&ttypair_driver);
error_bus:
	bus_unregister(&ttypair_dev_bus);
error:
	pr_err("registering the ttypair device bus failed: %d\n", ret);
	return ret;
}

/**
 * ttypair_dev_unregister() - unregister the ttypair device bus
 *
 * Every pair's and bus's device must have been removed.
 */
void ttypair_dev_unregister(void)
{
	root_device_unregister(ttypair_root);
	ttypair_root = NULL;
	driver_unregister(&ttypair_driver);
	bus_unregister(&ttypair_dev_bus);
}
