// SPDX-License-Identifier: GPL-2.0
/*
 * ttypair - the settings of an end and of its pair as text, and the sysfs
 * attributes of the tty devices (docs/ABI/): what the end is (pair name,
 * end, peer, open), its counters, its wiring, RS-485 mode and one-shot error
 * injection, and the settings of its pair (baud-rate emulation, strict line
 * settings, noise), which read and write the same on both ends' devices and
 * in the pair's configfs directory. A port of a bus has the same but the
 * wiring and the peer; it has its bus's name and its number instead, when
 * it drives the line, and its bus's overrun setting.
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

/**
 * ttypair_wiring_show() - the wiring of an end, as text with a newline
 * @tp: the end
 * @buf: a page
 *
 * Return: the length of the text.
 */
ssize_t ttypair_wiring_show(struct ttypair_port *tp, char *buf)
{
	struct ttypair_wiring wiring;
	unsigned long flags;
	int len;

	spin_lock_irqsave(&tp->pair->lock, flags);
	wiring = tp->wiring;
	spin_unlock_irqrestore(&tp->pair->lock, flags);
	len = ttypair_wiring_format(&wiring, buf, PAGE_SIZE - 1);
	return len + sysfs_emit_at(buf, len, "\n");
}

/**
 * ttypair_wiring_store() - rewire some inputs of an end, as a text says
 * @tp: the end
 * @buf: see ttypair_wiring_parse()
 * @count: length of @buf
 *
 * Return: @count, or -EINVAL (nothing changed).
 */
ssize_t ttypair_wiring_store(struct ttypair_port *tp, const char *buf,
			     size_t count)
{
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

/**
 * ttypair_setting_show() - a setting of a pair, as text with a newline
 * @pair: the pair
 * @which: the setting
 * @buf: a page
 *
 * Return: the length of the text.
 */
ssize_t ttypair_setting_show(struct ttypair_pair *pair,
			     enum ttypair_setting which, char *buf)
{
	unsigned long flags;
	u64 val = 0;

	spin_lock_irqsave(&pair->lock, flags);
	switch (which) {
	case TTYPAIR_SET_BAUD_EMULATION:
		val = pair->baud_emulation;
		break;
	case TTYPAIR_SET_STRICT:
		val = pair->strict;
		break;
	case TTYPAIR_SET_NOISE_PPM:
		val = pair->noise_ppm;
		break;
	case TTYPAIR_SET_NOISE_SEED:
		val = pair->noise_seed;
		break;
	case TTYPAIR_SET_OVERRUN:
		val = pair->overrun;
		break;
	}
	spin_unlock_irqrestore(&pair->lock, flags);
	return sysfs_emit(buf, "%llu\n", val);
}

/**
 * ttypair_setting_store() - change a setting of a pair
 * @pair: the pair
 * @which: the setting
 * @buf: for the switches (baud_emulation, strict, overrun) a boolean as
 *	kstrtobool() reads it (1/0, y/n, on/off, ...); a decimal number from
 *	0 to 1000000 for the noise rate, any unsigned 64-bit number for the
 *	seed
 * @count: length of @buf
 *
 * Return: @count, or -EINVAL (nothing changed).
 */
ssize_t ttypair_setting_store(struct ttypair_pair *pair,
			      enum ttypair_setting which, const char *buf,
			      size_t count)
{
	unsigned long flags;
	unsigned int i;
	bool on = false;
	u64 val = 0;

	switch (which) {
	case TTYPAIR_SET_BAUD_EMULATION:
	case TTYPAIR_SET_STRICT:
	case TTYPAIR_SET_OVERRUN:
		if (kstrtobool(buf, &on))
			return -EINVAL;
		break;
	case TTYPAIR_SET_NOISE_PPM:
		if (kstrtou64(buf, 10, &val) || val > TTYPAIR_NOISE_MAX)
			return -EINVAL;
		break;
	case TTYPAIR_SET_NOISE_SEED:
		if (kstrtou64(buf, 10, &val))
			return -EINVAL;
		break;
	}
	spin_lock_irqsave(&pair->lock, flags);
	switch (which) {
	case TTYPAIR_SET_BAUD_EMULATION:
		pair->baud_emulation = on;
		break;
	case TTYPAIR_SET_STRICT:
		pair->strict = on;
		break;
	case TTYPAIR_SET_NOISE_PPM:
		pair->noise_ppm = val;
		break;
	case TTYPAIR_SET_NOISE_SEED:
		ttypair_noise_seed(pair, val);
		break;
	case TTYPAIR_SET_OVERRUN:
		pair->overrun = on;
		break;
	}
	ttypair_tx_route(pair);
	spin_unlock_irqrestore(&pair->lock, flags);
	/* Queued bytes move on at the new pace (or at once). */
	for (i = 0; i < ttypair_nr_ports(pair); i++)
		ttypair_tx_kick(pair->ports[i]);
	/* In overrun mode nobody waits for room any more. */
	if (which == TTYPAIR_SET_OVERRUN && on)
		for (i = 0; i < ttypair_nr_ports(pair); i++)
			ttypair_tx_room_made(pair->ports[i]);
	return count;
}

static struct ttypair_port *ttypair_dev_port(struct device *dev)
{
	return dev_get_drvdata(dev);
}

static ssize_t wiring_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	return ttypair_wiring_show(ttypair_dev_port(dev), buf);
}

static ssize_t wiring_store(struct device *dev, struct device_attribute *attr,
			    const char *buf, size_t count)
{
	return ttypair_wiring_store(ttypair_dev_port(dev), buf, count);
}
static DEVICE_ATTR_RW(wiring);

static ssize_t rs485_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	return ttypair_rs485_show(ttypair_dev_port(dev), buf);
}

static ssize_t rs485_store(struct device *dev, struct device_attribute *attr,
			   const char *buf, size_t count)
{
	return ttypair_rs485_store(ttypair_dev_port(dev), buf, count);
}
static DEVICE_ATTR_RW(rs485);

/**
 * ttypair_inject_show() - an end's pending one-shot error, as text
 * @tp: the end
 * @buf: a page
 *
 * Return: the length of the text ("none" when nothing is pending).
 */
ssize_t ttypair_inject_show(struct ttypair_port *tp, char *buf)
{
	unsigned long flags;
	u8 kind;

	spin_lock_irqsave(&tp->pair->lock, flags);
	kind = tp->inject;
	spin_unlock_irqrestore(&tp->pair->lock, flags);
	return sysfs_emit(buf, "%s\n", ttypair_inject_name(kind));
}

/**
 * ttypair_inject_store() - set or cancel an end's one-shot error
 * @tp: the end
 * @buf: "frame", "parity", "overrun", "break" or "none"
 * @count: length of @buf
 *
 * Return: @count, -EINVAL for another word, -EBUSY when another kind is
 * pending (nothing changed).
 */
ssize_t ttypair_inject_store(struct ttypair_port *tp, const char *buf,
			     size_t count)
{
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
	ttypair_tx_route(tp->pair);
	spin_unlock_irqrestore(&tp->pair->lock, flags);
	return ret ?: count;
}

static ssize_t inject_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	return ttypair_inject_show(ttypair_dev_port(dev), buf);
}

static ssize_t inject_store(struct device *dev, struct device_attribute *attr,
			    const char *buf, size_t count)
{
	return ttypair_inject_store(ttypair_dev_port(dev), buf, count);
}
static DEVICE_ATTR_RW(inject);

#define TTYPAIR_DEVICE_SETTING(_name, _which)				\
static const enum ttypair_setting _name##_setting = _which;		\
									\
static ssize_t _name##_show(struct device *dev,			\
			    struct device_attribute *attr, char *buf)	\
{									\
	return ttypair_setting_show(ttypair_dev_port(dev)->pair,	\
				    _name##_setting, buf);		\
}									\
									\
static ssize_t _name##_store(struct device *dev,			\
			     struct device_attribute *attr,		\
			     const char *buf, size_t count)		\
{									\
	return ttypair_setting_store(ttypair_dev_port(dev)->pair,	\
				     _name##_setting, buf, count);	\
}									\
static DEVICE_ATTR_RW(_name)

TTYPAIR_DEVICE_SETTING(baud_emulation, TTYPAIR_SET_BAUD_EMULATION);
TTYPAIR_DEVICE_SETTING(strict, TTYPAIR_SET_STRICT);
TTYPAIR_DEVICE_SETTING(noise_ppm, TTYPAIR_SET_NOISE_PPM);
TTYPAIR_DEVICE_SETTING(noise_seed, TTYPAIR_SET_NOISE_SEED);
TTYPAIR_DEVICE_SETTING(overrun, TTYPAIR_SET_OVERRUN);

/* The pair's configfs name; empty for a pair of the pairs= parameter */
static ssize_t pair_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	return sysfs_emit(buf, "%s\n", ttypair_dev_port(dev)->pair->name);
}
static DEVICE_ATTR_RO(pair);

/* How the pair was made: "static" (pairs=), "configfs", "session" */
static ssize_t kind_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	struct ttypair_pair *pair = ttypair_dev_port(dev)->pair;

	return sysfs_emit(buf, "%s\n", pair->session ? "session" :
			  pair->name[0] ? "configfs" : "static");
}
static DEVICE_ATTR_RO(kind);

static ssize_t end_show(struct device *dev, struct device_attribute *attr,
			char *buf)
{
	return sysfs_emit(buf, "%c\n",
			  ttypair_dev_port(dev)->id == TTYPAIR_END_A ? 'a' : 'b');
}
static DEVICE_ATTR_RO(end);

static ssize_t peer_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	struct ttypair_port *tp = ttypair_dev_port(dev);

	return sysfs_emit(buf, "%s%u\n", tp->id == TTYPAIR_END_A ?
			  TTYPAIR_NAME_B : TTYPAIR_NAME_A, tp->pair->index);
}
static DEVICE_ATTR_RO(peer);

/* 1 while the end is open (between its first open and last close) */
static ssize_t open_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	struct ttypair_port *tp = ttypair_dev_port(dev);
	unsigned long flags;
	bool active;

	spin_lock_irqsave(&tp->pair->lock, flags);
	active = tp->active;
	spin_unlock_irqrestore(&tp->pair->lock, flags);
	return sysfs_emit(buf, "%d\n", active);
}
static DEVICE_ATTR_RO(open);

/* The byte counters of struct ttypair_stats, one file each */
#define TTYPAIR_DEVICE_COUNTER(_name, _field)				\
static ssize_t _name##_show(struct device *dev,			\
			    struct device_attribute *attr, char *buf)	\
{									\
	struct ttypair_port *tp = ttypair_dev_port(dev);		\
	unsigned long flags;						\
	u64 val;							\
									\
	spin_lock_irqsave(&tp->pair->lock, flags);			\
	val = tp->stats._field;						\
	spin_unlock_irqrestore(&tp->pair->lock, flags);			\
	return sysfs_emit(buf, "%llu\n", val);				\
}									\
static DEVICE_ATTR_RO(_name)

TTYPAIR_DEVICE_COUNTER(rx_bytes, rx);
TTYPAIR_DEVICE_COUNTER(tx_bytes, tx);
TTYPAIR_DEVICE_COUNTER(discarded_bytes, discarded);
TTYPAIR_DEVICE_COUNTER(undriven_bytes, undriven);
TTYPAIR_DEVICE_COUNTER(injected_errors, injected);
TTYPAIR_DEVICE_COUNTER(timer_runs, timer_runs);

/* A bus port: its bus's name and its number on the bus */
static ssize_t bus_show(struct device *dev, struct device_attribute *attr,
			char *buf)
{
	return sysfs_emit(buf, "%s\n", ttypair_dev_port(dev)->pair->name);
}
static DEVICE_ATTR_RO(bus);

static ssize_t port_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	return sysfs_emit(buf, "%u\n", ttypair_dev_port(dev)->id);
}
static DEVICE_ATTR_RO(port);

/*
 * What holds a bus back: the room in a port's receive queue as its
 * senders see it (buffers its line discipline has not emptied count as
 * full), and whether its writer waits for room in the others' queues
 */
static ssize_t rx_room_show(struct device *dev,
			    struct device_attribute *attr, char *buf)
{
	struct ttypair_port *tp = ttypair_dev_port(dev);

	return sysfs_emit(buf, "%u\n",
			  (unsigned int)tty_buffer_space_avail(&tp->port));
}
static DEVICE_ATTR_RO(rx_room);

static ssize_t tx_waiting_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n",
			  READ_ONCE(ttypair_dev_port(dev)->txq.wait_room));
}
static DEVICE_ATTR_RO(tx_waiting);

/* When a bus port drives the line: "auto", "rts" or "always" */
static ssize_t drive_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	struct ttypair_port *tp = ttypair_dev_port(dev);
	unsigned long flags;
	u8 drive;

	spin_lock_irqsave(&tp->pair->lock, flags);
	drive = tp->drive;
	spin_unlock_irqrestore(&tp->pair->lock, flags);
	return sysfs_emit(buf, "%s\n", ttypair_drive_name(drive));
}

static ssize_t drive_store(struct device *dev, struct device_attribute *attr,
			   const char *buf, size_t count)
{
	struct ttypair_port *tp = ttypair_dev_port(dev);
	enum ttypair_drive drive;
	unsigned long flags;

	if (ttypair_drive_parse(buf, &drive))
		return -EINVAL;
	spin_lock_irqsave(&tp->pair->lock, flags);
	tp->drive = drive;
	spin_unlock_irqrestore(&tp->pair->lock, flags);
	/* A writer that waited for room may now send into nothing. */
	ttypair_tx_room_made(tp);
	return count;
}
static DEVICE_ATTR_RW(drive);

static struct attribute *ttypair_attrs[] = {
	&dev_attr_pair.attr,
	&dev_attr_kind.attr,
	&dev_attr_end.attr,
	&dev_attr_peer.attr,
	&dev_attr_open.attr,
	&dev_attr_rx_bytes.attr,
	&dev_attr_tx_bytes.attr,
	&dev_attr_discarded_bytes.attr,
	&dev_attr_injected_errors.attr,
	&dev_attr_timer_runs.attr,
	&dev_attr_wiring.attr,
	&dev_attr_rs485.attr,
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

static struct attribute *ttypair_bus_attrs[] = {
	&dev_attr_bus.attr,
	&dev_attr_port.attr,
	&dev_attr_open.attr,
	&dev_attr_rx_bytes.attr,
	&dev_attr_tx_bytes.attr,
	&dev_attr_discarded_bytes.attr,
	&dev_attr_undriven_bytes.attr,
	&dev_attr_injected_errors.attr,
	&dev_attr_timer_runs.attr,
	&dev_attr_rx_room.attr,
	&dev_attr_tx_waiting.attr,
	&dev_attr_drive.attr,
	&dev_attr_rs485.attr,
	&dev_attr_inject.attr,
	&dev_attr_baud_emulation.attr,
	&dev_attr_strict.attr,
	&dev_attr_overrun.attr,
	&dev_attr_noise_ppm.attr,
	&dev_attr_noise_seed.attr,
	NULL
};

static const struct attribute_group ttypair_bus_attr_group = {
	.attrs = ttypair_bus_attrs,
};

const struct attribute_group *ttypair_bus_attr_groups[] = {
	&ttypair_bus_attr_group,
	NULL
};
