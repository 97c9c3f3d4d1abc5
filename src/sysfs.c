// SPDX-License-Identifier: GPL-2.0
/*
 * ttypair - sysfs attributes of the tty devices (docs/ABI/): the wiring
 * and the one-shot error injection of an end, and the settings of its pair
 * (baud-rate emulation, strict line settings, noise), which read and write
 * the same on both ends' devices.
 *
 * A value that does not parse or is out of range is refused with -EINVAL
 * and changes nothing.
 */
#include <linux/device.h>
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/sysfs.h>

#include "ttypair.h"

static DEFINE_MUTEX(ttypair_wiring_lock);	/* serialises wiring writes */

static struct ttypair_port *ttypair_dev_port(struct device *dev)
{
	return dev_get_drvdata(dev);
}

static ssize_t wiring_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	struct ttypair_port *tp = ttypair_dev_port(dev);
	struct ttypair_wiring wiring;
	unsigned long flags;
	int len;

	spin_lock_irqsave(&tp->pair->lock, flags);
	wiring = tp->wiring;
	spin_unlock_irqrestore(&tp->pair->lock, flags);
	len = ttypair_wiring_format(&wiring, buf, PAGE_SIZE - 1);
	return len + sysfs_emit_at(buf, len, "\n");
}

static ssize_t wiring_store(struct device *dev, struct device_attribute *attr,
			    const char *buf, size_t count)
{
	struct ttypair_port *tp = ttypair_dev_port(dev);
	struct ttypair_wiring wiring;
	unsigned long flags;
	int ret;

	/* A write names some inputs: read, change and write back as one. */
	mutex_lock(&ttypair_wiring_lock);
	spin_lock_irqsave(&tp->pair->lock, flags);
	wiring = tp->wiring;
	spin_unlock_irqrestore(&tp->pair->lock, flags);
	ret = ttypair_wiring_parse(buf, &wiring);
	if (!ret)
		ttypair_set_wiring(tp, &wiring);
	mutex_unlock(&ttypair_wiring_lock);
	return ret ?: count;
}
static DEVICE_ATTR_RW(wiring);

static ssize_t inject_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	struct ttypair_port *tp = ttypair_dev_port(dev);
	unsigned long flags;
	u8 kind;

	spin_lock_irqsave(&tp->pair->lock, flags);
	kind = tp->inject;
	spin_unlock_irqrestore(&tp->pair->lock, flags);
	return sysfs_emit(buf, "%s\n", ttypair_inject_name(kind));
}

static ssize_t inject_store(struct device *dev, struct device_attribute *attr,
			    const char *buf, size_t count)
{
	struct ttypair_port *tp = ttypair_dev_port(dev);
	enum ttypair_inject kind;
	unsigned long flags;
	int ret = 0;

	if (ttypair_inject_parse(buf, &kind))
		return -EINVAL;
	spin_lock_irqsave(&tp->pair->lock, flags);
	if (kind != TTYPAIR_INJECT_NONE && tp->inject != TTYPAIR_INJECT_NONE &&
	    tp->inject != kind)
		ret = -EBUSY;	/* one error per character */
	else
		tp->inject = kind;
	spin_unlock_irqrestore(&tp->pair->lock, flags);
	return ret ?: count;
}
static DEVICE_ATTR_RW(inject);

/* A boolean setting of the pair, at @offset in struct ttypair_pair */
static ssize_t ttypair_pair_bool_show(struct device *dev, char *buf,
				      size_t offset)
{
	struct ttypair_pair *pair = ttypair_dev_port(dev)->pair;

	return sysfs_emit(buf, "%d\n", *(bool *)((char *)pair + offset));
}

static ssize_t ttypair_pair_bool_store(struct device *dev, const char *buf,
				       size_t count, size_t offset)
{
	struct ttypair_port *tp = ttypair_dev_port(dev);
	struct ttypair_pair *pair = tp->pair;
	unsigned long flags;
	unsigned int val;

	if (kstrtouint(buf, 10, &val) || val > 1)
		return -EINVAL;
	spin_lock_irqsave(&pair->lock, flags);
	*(bool *)((char *)pair + offset) = val;	/* 0 or 1 */
	spin_unlock_irqrestore(&pair->lock, flags);
	/* Queued bytes move on at the new pace (or at once). */
	ttypair_tx_kick(&pair->a);
	ttypair_tx_kick(&pair->b);
	return count;
}

static ssize_t baud_emulation_show(struct device *dev,
				   struct device_attribute *attr, char *buf)
{
	return ttypair_pair_bool_show(dev, buf,
				      offsetof(struct ttypair_pair,
					       baud_emulation));
}

static ssize_t baud_emulation_store(struct device *dev,
				    struct device_attribute *attr,
				    const char *buf, size_t count)
{
	return ttypair_pair_bool_store(dev, buf, count,
				       offsetof(struct ttypair_pair,
						baud_emulation));
}
static DEVICE_ATTR_RW(baud_emulation);

static ssize_t strict_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	return ttypair_pair_bool_show(dev, buf,
				      offsetof(struct ttypair_pair, strict));
}

static ssize_t strict_store(struct device *dev, struct device_attribute *attr,
			    const char *buf, size_t count)
{
	return ttypair_pair_bool_store(dev, buf, count,
				       offsetof(struct ttypair_pair, strict));
}
static DEVICE_ATTR_RW(strict);

static ssize_t noise_ppm_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	struct ttypair_pair *pair = ttypair_dev_port(dev)->pair;

	return sysfs_emit(buf, "%u\n", READ_ONCE(pair->noise_ppm));
}

static ssize_t noise_ppm_store(struct device *dev,
			       struct device_attribute *attr,
			       const char *buf, size_t count)
{
	struct ttypair_pair *pair = ttypair_dev_port(dev)->pair;
	unsigned long flags;
	u32 ppm;

	if (kstrtou32(buf, 10, &ppm) || ppm > TTYPAIR_NOISE_MAX)
		return -EINVAL;
	spin_lock_irqsave(&pair->lock, flags);
	pair->noise_ppm = ppm;
	spin_unlock_irqrestore(&pair->lock, flags);
	return count;
}
static DEVICE_ATTR_RW(noise_ppm);

static ssize_t noise_seed_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	struct ttypair_pair *pair = ttypair_dev_port(dev)->pair;
	unsigned long flags;
	u64 seed;

	spin_lock_irqsave(&pair->lock, flags);
	seed = pair->noise_seed;
	spin_unlock_irqrestore(&pair->lock, flags);
	return sysfs_emit(buf, "%llu\n", seed);
}

static ssize_t noise_seed_store(struct device *dev,
				struct device_attribute *attr,
				const char *buf, size_t count)
{
	struct ttypair_pair *pair = ttypair_dev_port(dev)->pair;
	unsigned long flags;
	u64 seed;

	if (kstrtou64(buf, 10, &seed))
		return -EINVAL;
	spin_lock_irqsave(&pair->lock, flags);
	ttypair_noise_seed(pair, seed);
	spin_unlock_irqrestore(&pair->lock, flags);
	return count;
}
static DEVICE_ATTR_RW(noise_seed);

static struct attribute *ttypair_attrs[] = {
	&dev_attr_wiring.attr,
	&dev_attr_inject.attr,
	&dev_attr_baud_emulation.attr,
	&dev_attr_strict.attr,
	&dev_attr_noise_ppm.attr,
	&dev_attr_noise_seed.attr,
	NULL
};

static const struct attribute_group ttypair_attr_group = {
	.attrs = ttypair_attrs,
};

const struct attribute_group *ttypair_attr_groups[] = {
	&ttypair_attr_group,
	NULL
};
