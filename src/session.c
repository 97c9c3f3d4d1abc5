// SPDX-License-Identifier: GPL-2.0
/*
 * ttypair - the session device, /dev/ttypair-session: a pair for each open
 * file, as /dev/ptmx gives a pseudo-terminal for each.
 *
 * Opened for reading and writing, it makes a pair owned by that open file
 * (the user who opened it counts it against max_sessions_per_user, and
 * everyone's against max_pairs). The file's ioctls (include/uapi/ttypair.h)
 * tell the pair's index and devices and read and change its settings with
 * the functions that serve sysfs, so the values and their checks are the
 * same. The last close of the file, wherever the descriptor went (passed
 * over a socket, inherited across exec) and however its holder ended,
 * removes the pair: both ends are hung up. Who may open the device is up to
 * its mode and group (the packages' udev rules: the serial group, 0660).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "ttypair.h"

/**
 * struct ttypair_session - an open file of the session device
 * @pair: the session's pair, holding the registry's reference; NULL for a
 *	file opened read-only, which has none
 * @mon: the file's monitor, once started; set once, under @lock, and
 *	read without it afterwards (acquire)
 * @lock: serialises the file's ioctls and the start of its monitor
 */
struct ttypair_session {
	struct ttypair_pair *pair;
	struct ttypair_monitor *mon;
	struct mutex lock;	/* the file's ioctls */
};

static int ttypair_session_open(struct inode *inode, struct file *file)
{
	struct ttypair_session *s;
	struct ttypair_pair *pair;
	int ret;

	ret = stream_open(inode, file);
	if (ret)
		return ret;
	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	mutex_init(&s->lock);
	if (file->f_mode & FMODE_WRITE) {
		pair = ttypair_session_pair_create(current_fsuid());
		if (IS_ERR(pair)) {
			ret = PTR_ERR(pair);
			if (ret == -EDQUOT)
				pr_info_ratelimited("user %u has max_sessions_per_user=%u sessions: no more\n",
						    from_kuid(&init_user_ns,
							      current_fsuid()),
						    ttypair_max_sessions_per_user);
			kfree(s);
			return ret;
		}
		s->pair = pair;
	}
	file->private_data = s;
	return 0;
}

static int ttypair_session_release(struct inode *inode, struct file *file)
{
	struct ttypair_session *s = file->private_data;

	if (s->mon)
		ttypair_mon_detach(s->mon);
	if (s->pair)
		ttypair_pair_destroy(s->pair);
	mutex_destroy(&s->lock);
	kfree(s);
	return 0;
}

static long ttypair_session_info(struct ttypair_pair *pair,
				 struct ttypair_session_info __user *uinfo)
{
	struct ttypair_session_info info = {};
	u32 size;

	if (get_user(size, &uinfo->size))
		return -EFAULT;
	if (size < TTYPAIR_SESSION_INFO_SIZE_V1)
		return -EINVAL;
	size = min_t(u32, size, sizeof(info));
	info.size = size;
	info.version = TTYPAIR_SESSION_VERSION;
	info.index = pair->index;
	snprintf(info.device_a, sizeof(info.device_a), "%s%u", TTYPAIR_NAME_A,
		 pair->index);
	snprintf(info.device_b, sizeof(info.device_b), "%s%u", TTYPAIR_NAME_B,
		 pair->index);
	return copy_to_user(uinfo, &info, size) ? -EFAULT : 0;
}

/* The pair's setting for a session attribute; -1 for an end's */
static int ttypair_attr_setting(u32 attr)
{
	switch (attr) {
	case TTYPAIR_ATTR_BAUD_EMULATION:
		return TTYPAIR_SET_BAUD_EMULATION;
	case TTYPAIR_ATTR_STRICT:
		return TTYPAIR_SET_STRICT;
	case TTYPAIR_ATTR_NOISE_PPM:
		return TTYPAIR_SET_NOISE_PPM;
	case TTYPAIR_ATTR_NOISE_SEED:
		return TTYPAIR_SET_NOISE_SEED;
	}
	return -1;
}

static bool ttypair_attr_known(u32 attr)
{
	return attr == TTYPAIR_ATTR_WIRING || attr == TTYPAIR_ATTR_RS485 ||
	       attr == TTYPAIR_ATTR_INJECT || ttypair_attr_setting(attr) >= 0;
}

/* Write @val (NUL-terminated) to @attr of @tp or its pair, as sysfs does */
static ssize_t ttypair_attr_store(struct ttypair_port *tp, u32 attr,
				  const char *val)
{
	size_t len = strlen(val);
	int which = ttypair_attr_setting(attr);

	switch (attr) {
	case TTYPAIR_ATTR_WIRING:
		return ttypair_wiring_store(tp, val, len);
	case TTYPAIR_ATTR_RS485:
		return ttypair_rs485_store(tp, val, len);
	case TTYPAIR_ATTR_INJECT:
		return ttypair_inject_store(tp, val, len);
	}
	return ttypair_setting_store(tp->pair, which, val, len);
}

/* Read @attr of @tp or its pair into @page, as sysfs shows it */
static ssize_t ttypair_attr_show(struct ttypair_port *tp, u32 attr,
				 char *page)
{
	switch (attr) {
	case TTYPAIR_ATTR_WIRING:
		return ttypair_wiring_show(tp, page);
	case TTYPAIR_ATTR_RS485:
		return ttypair_rs485_show(tp, page);
	case TTYPAIR_ATTR_INJECT:
		return ttypair_inject_show(tp, page);
	}
	return ttypair_setting_show(tp->pair, ttypair_attr_setting(attr), page);
}

static long ttypair_session_attr(struct ttypair_pair *pair, bool set,
				 struct ttypair_attr_value __user *uval)
{
	struct ttypair_attr_value *val;
	struct ttypair_port *tp;
	char *page = NULL;
	ssize_t ret;

	val = memdup_user(uval, sizeof(*val));
	if (IS_ERR(val))
		return PTR_ERR(val);
	ret = -EINVAL;
	if (!ttypair_attr_known(val->attr) || val->end >= TTYPAIR_NR_ENDS)
		goto out;
	tp = ttypair_end(pair, val->end);
	if (set) {
		if (!memchr(val->value, '\0', sizeof(val->value)))
			goto out;
		ret = ttypair_attr_store(tp, val->attr, val->value);
		ret = ret < 0 ? ret : 0;
		goto out;
	}
	/* show() writes with sysfs_emit(), which wants a page */
	page = (char *)get_zeroed_page(GFP_KERNEL);
	ret = -ENOMEM;
	if (!page)
		goto out;
	ret = ttypair_attr_show(tp, val->attr, page);
	if (ret < 0)
		goto out;
	while (ret && page[ret - 1] == '\n')
		ret--;
	ret = min_t(ssize_t, ret, sizeof(val->value) - 1);
	memset(val->value, 0, sizeof(val->value));
	memcpy(val->value, page, ret);
	ret = copy_to_user(uval->value, val->value, sizeof(val->value)) ?
	      -EFAULT : 0;
out:
	if (page)
		free_page((unsigned long)page);
	kfree(val);
	return ret;
}

/* Start the file's monitor on @target; @s->lock held */
static long ttypair_session_monitor(struct ttypair_session *s,
				    const struct ttypair_monitor_target *t)
{
	struct ttypair_monitor *m;
	struct ttypair_port *tp;

	if (s->mon)
		return -EBUSY;
	if (t->reserved)
		return -EINVAL;
	switch (t->kind) {
	case TTYPAIR_MONITOR_SELF:
		if (!s->pair)
			return -ENXIO;
		kref_get(&s->pair->kref);
		tp = ttypair_end(s->pair, TTYPAIR_END_A);
		break;
	case TTYPAIR_MONITOR_PAIR:
		tp = ttypair_port_lookup(TTYPAIR_END_A, t->index);
		break;
	case TTYPAIR_MONITOR_BUS_PORT:
		tp = ttypair_bus_port_lookup(t->index);
		break;
	default:
		return -EINVAL;
	}
	if (!tp)
		return -ENODEV;
	if (t->kind != TTYPAIR_MONITOR_SELF && !ttypair_mon_may_watch(tp)) {
		ttypair_pair_put(tp->pair);
		return -EPERM;
	}
	m = ttypair_mon_attach(tp, t->buffer);
	ttypair_pair_put(tp->pair);
	if (IS_ERR(m))
		return PTR_ERR(m);
	/* the monitor before its pointer: read and poll look without @lock */
	smp_store_release(&s->mon, m);
	return 0;
}

/*
 * The file's monitor; a session's own starts at the first read or poll.
 * NULL for a file opened read-only that has none (ENXIO).
 */
static struct ttypair_monitor *ttypair_session_mon(struct ttypair_session *s)
{
	static const struct ttypair_monitor_target self = {
		.kind = TTYPAIR_MONITOR_SELF,
	};
	/* the monitor set up before its pointer: pairs with the release */
	struct ttypair_monitor *m = smp_load_acquire(&s->mon);

	if (m || !s->pair)
		return m;
	mutex_lock(&s->lock);
	if (!s->mon)
		ttypair_session_monitor(s, &self);
	m = s->mon;
	mutex_unlock(&s->lock);
	return m;
}

static ssize_t ttypair_session_read(struct file *file, char __user *buf,
				    size_t count, loff_t *ppos)
{
	struct ttypair_monitor *m = ttypair_session_mon(file->private_data);

	if (!m)
		return -ENXIO;
	return ttypair_mon_read(m, buf, count, file->f_flags & O_NONBLOCK);
}

static __poll_t ttypair_session_poll(struct file *file, poll_table *wait)
{
	struct ttypair_monitor *m = ttypair_session_mon(file->private_data);

	if (!m)
		return EPOLLERR;
	return ttypair_mon_poll(m, file, wait);
}

static long ttypair_session_ioctl(struct file *file, unsigned int cmd,
				  unsigned long arg)
{
	struct ttypair_session *s = file->private_data;
	void __user *uarg = (void __user *)arg;
	struct ttypair_monitor_target t;
	long ret;

	switch (cmd) {
	case TTYPAIR_IOC_MONITOR:
		if (copy_from_user(&t, uarg, sizeof(t)))
			return -EFAULT;
		mutex_lock(&s->lock);
		ret = ttypair_session_monitor(s, &t);
		mutex_unlock(&s->lock);
		return ret;
	case TTYPAIR_IOC_INFO:
	case TTYPAIR_IOC_SET_ATTR:
	case TTYPAIR_IOC_GET_ATTR:
		break;
	default:
		return -ENOTTY;
	}
	if (!s->pair)
		return -ENXIO;	/* opened read-only: no pair */
	mutex_lock(&s->lock);
	switch (cmd) {
	case TTYPAIR_IOC_INFO:
		ret = ttypair_session_info(s->pair, uarg);
		break;
	case TTYPAIR_IOC_SET_ATTR:
		ret = ttypair_session_attr(s->pair, true, uarg);
		break;
	default:
		ret = ttypair_session_attr(s->pair, false, uarg);
		break;
	}
	mutex_unlock(&s->lock);
	return ret;
}

static const struct file_operations ttypair_session_fops = {
	.owner = THIS_MODULE,
	.open = ttypair_session_open,
	.release = ttypair_session_release,
	.read = ttypair_session_read,
	.poll = ttypair_session_poll,
	.unlocked_ioctl = ttypair_session_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
};

static struct miscdevice ttypair_session_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = TTYPAIR_SESSION_DEVICE,
	.fops = &ttypair_session_fops,
};

static bool ttypair_session_registered;

/**
 * ttypair_session_register() - make /dev/ttypair-session
 *
 * Return: 0 or a negative errno.
 */
int ttypair_session_register(void)
{
	int ret = misc_register(&ttypair_session_misc);

	ttypair_session_registered = !ret;
	return ret;
}

/**
 * ttypair_session_unregister() - remove /dev/ttypair-session
 *
 * No session is open: each holds a reference on the module.
 */
void ttypair_session_unregister(void)
{
	if (ttypair_session_registered)
		misc_deregister(&ttypair_session_misc);
	ttypair_session_registered = false;
}
