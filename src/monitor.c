// SPDX-License-Identifier: GPL-2.0
/*
 * ttypair - monitors: a stream of timestamped records of what happens on a
 * pair or a bus port (data each way, modem lines, line settings, breaks,
 * injected errors, opens, closes, hangups), read from a file of the session
 * device (include/uapi/ttypair.h has the format).
 *
 * The data path writes records under the pair's lock into each attached
 * monitor's ring and never waits: a record that does not fit is dropped
 * and counted, and the next one that fits comes after a record that says
 * how many went. The ring has one producer at a time (the pair's lock) and
 * one consumer (the monitor's read lock), so they share it through the two
 * indexes alone, each written by one side with a release and read by the
 * other with an acquire.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/wait.h>

#include "ttypair.h"

#define TTYPAIR_MON_DEFAULT	65536U
#define TTYPAIR_MON_MIN		4096U
#define TTYPAIR_MON_MAX		(4U << 20)
/* Data records carry at most this much: a 4096-byte read holds any record */
#define TTYPAIR_MON_DATA_MAX	(4096U - sizeof(struct ttypair_record))

/**
 * struct ttypair_monitor - a monitor attached to a pair or bus
 * @node: in the pair's @monitors list, under its lock
 * @pair: what it watches, referenced
 * @port: the bus port it watches; -1: every port (a pair's two ends)
 * @buf: the ring, @size bytes, a power of two
 * @size: its size
 * @head: where the next record goes (free-running); written by the
 *	producer under the pair's lock, read by the reader
 * @tail: where the next record to read is (free-running); written by the
 *	reader
 * @seq: the next record's number; under the pair's lock
 * @dropped: records dropped since the last one written; under the lock
 * @removed: the pair was removed; under the lock
 * @read_lock: one reader at a time
 * @wait: readers and pollers
 */
struct ttypair_monitor {
	struct list_head node;
	struct ttypair_pair *pair;
	int port;
	u8 *buf;
	u32 size;
	u32 head;
	u32 tail;
	u32 seq;
	u32 dropped;
	bool removed;
	struct mutex read_lock;	/* one reader at a time */
	wait_queue_head_t wait;
};

/* Copy @len bytes into the ring at free-running offset @pos */
static void ttypair_mon_copy_in(struct ttypair_monitor *m, u32 pos,
				const void *src, u32 len)
{
	u32 off = pos & (m->size - 1);
	u32 first = min(len, m->size - off);

	memcpy(m->buf + off, src, first);
	memcpy(m->buf, (const u8 *)src + first, len - first);
}

static u32 ttypair_rec_size(u32 len)
{
	return ALIGN(sizeof(struct ttypair_record) + len, 8);
}

/* Write one record if it fits; the pair's lock held */
static bool ttypair_mon_write(struct ttypair_monitor *m,
			      const struct ttypair_record *rec,
			      const void *data)
{
	static const u8 zeros[8];
	u32 used = sizeof(*rec) + rec->len;
	u32 need = ttypair_rec_size(rec->len);
	u32 head = m->head;

	/* the reader's copy done before its room is reused: its release */
	if (m->size - (head - smp_load_acquire(&m->tail)) < need)
		return false;

	ttypair_mon_copy_in(m, head, rec, sizeof(*rec));
	if (rec->len)
		ttypair_mon_copy_in(m, head + sizeof(*rec), data, rec->len);
	/* the padding: never what an older record left there */
	ttypair_mon_copy_in(m, head + used, zeros, need - used);
	/* the record before its publication; pairs with the reader's acquire */
	smp_store_release(&m->head, head + need);
	return true;
}

static void ttypair_mon_put(struct ttypair_monitor *m, u64 now,
			    struct ttypair_record *rec, const void *data)
{
	if (m->dropped) {
		struct ttypair_record drop = {
			.time_ns = now,
			.seq = m->seq++,
			.type = TTYPAIR_REC_DROPPED,
			.port = rec->port,
			.value = m->dropped,
		};

		if (ttypair_mon_write(m, &drop, NULL))
			m->dropped = 0;
		else
			m->dropped++;	/* the note itself did not fit */
	}
	rec->seq = m->seq++;
	if (m->dropped || !ttypair_mon_write(m, rec, data))
		m->dropped++;
	if (wq_has_sleeper(&m->wait))
		wake_up_interruptible_poll(&m->wait, EPOLLIN | EPOLLRDNORM);
}

/**
 * __ttypair_mon_emit() - give a record to every monitor of a pair
 * @tp: the end or port the record is about
 * @type: enum ttypair_record_type
 * @flags: TTYPAIR_REC_F_*
 * @value: what @type says
 * @data: the payload, @len bytes (data records: split into records of at
 *	most TTYPAIR_MON_DATA_MAX bytes)
 * @len: its length
 *
 * Use ttypair_mon_emit(), which costs nothing while no monitor watches.
 *
 * Context: the pair's lock held; does not sleep.
 */
void __ttypair_mon_emit(struct ttypair_port *tp, u16 type, u8 flags,
			u32 value, const void *data, size_t len)
{
	struct ttypair_pair *pair = tp->pair;
	struct ttypair_monitor *m;
	u64 now = ktime_get_ns();
	size_t off = 0;

	lockdep_assert_held(&pair->lock);
	if (type == TTYPAIR_REC_DATA && !len)
		return;		/* nothing went: a full receiver */
	do {
		u32 n = min_t(size_t, len - off, TTYPAIR_MON_DATA_MAX);

		list_for_each_entry(m, &pair->monitors, node) {
			struct ttypair_record rec = {
				.time_ns = now,
				.type = type,
				.port = tp->id,
				.flags = flags,
				.value = value,
				.len = n,
			};

			/* a bus port's monitor: all on the line, its own events */
			if (m->port >= 0 && m->port != tp->id &&
			    type != TTYPAIR_REC_DATA)
				continue;
			ttypair_mon_put(m, now, &rec, (const u8 *)data + off);
		}
		off += n;
	} while (off < len);
}

/**
 * ttypair_mon_event() - a record without payload, taking the pair's lock
 * @tp: the end or port it is about
 * @type: enum ttypair_record_type
 * @value: what @type says
 *
 * Context: any; the pair's lock not held.
 */
void ttypair_mon_event(struct ttypair_port *tp, u16 type, u32 value)
{
	unsigned long flags;

	spin_lock_irqsave(&tp->pair->lock, flags);
	ttypair_mon_emit(tp, type, 0, value, NULL, 0);
	spin_unlock_irqrestore(&tp->pair->lock, flags);
}

/**
 * ttypair_mon_removed() - the pair is being removed: tell its monitors
 * @pair: the pair or bus
 *
 * Each gets a TTYPAIR_REC_REMOVED record (or counts it dropped), and its
 * readers end of file once they read everything.
 */
void ttypair_mon_removed(struct ttypair_pair *pair)
{
	struct ttypair_monitor *m;
	unsigned long flags;
	u64 now = ktime_get_ns();

	spin_lock_irqsave(&pair->lock, flags);
	list_for_each_entry(m, &pair->monitors, node) {
		struct ttypair_record rec = {
			.time_ns = now,
			.type = TTYPAIR_REC_REMOVED,
			.port = m->port >= 0 ? m->port : 0,
		};

		ttypair_mon_put(m, now, &rec, NULL);
		m->removed = true;
		wake_up_interruptible_poll(&m->wait, EPOLLHUP);
	}
	spin_unlock_irqrestore(&pair->lock, flags);
}

/**
 * ttypair_mon_attach() - attach a monitor to a pair, or to one bus port
 * @tp: the port; for a pair, either end (both are watched)
 * @buffer: the ring's size in bytes: 0 for the default, else 4096 to
 *	4 MiB, rounded up to a power of two
 *
 * Takes a reference on the pair, which ttypair_mon_detach() drops.
 *
 * Context: process context.
 * Return: the monitor, or an ERR_PTR(): -EINVAL for a size out of range,
 * -ENODEV if the pair was removed, -ENOMEM.
 */
struct ttypair_monitor *ttypair_mon_attach(struct ttypair_port *tp, u32 buffer)
{
	struct ttypair_pair *pair = tp->pair;
	struct ttypair_monitor *m;
	unsigned long flags;
	bool dead;

	if (!buffer)
		buffer = TTYPAIR_MON_DEFAULT;
	if (buffer < TTYPAIR_MON_MIN || buffer > TTYPAIR_MON_MAX)
		return ERR_PTR(-EINVAL);
	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return ERR_PTR(-ENOMEM);
	m->size = roundup_pow_of_two(buffer);
	m->buf = kvzalloc(m->size, GFP_KERNEL);
	if (!m->buf) {
		kfree(m);
		return ERR_PTR(-ENOMEM);
	}
	m->port = pair->bus ? tp->id : -1;
	mutex_init(&m->read_lock);
	init_waitqueue_head(&m->wait);
	kref_get(&pair->kref);
	m->pair = pair;

	spin_lock_irqsave(&pair->lock, flags);
	dead = pair->dead;
	if (!dead)
		list_add_tail(&m->node, &pair->monitors);
	spin_unlock_irqrestore(&pair->lock, flags);
	if (dead) {
		ttypair_pair_put(pair);
		kvfree(m->buf);
		kfree(m);
		return ERR_PTR(-ENODEV);
	}
	return m;
}

/**
 * ttypair_mon_detach() - detach and free a monitor
 * @m: from ttypair_mon_attach()
 *
 * Context: process context; the monitor's file is being released.
 */
void ttypair_mon_detach(struct ttypair_monitor *m)
{
	struct ttypair_pair *pair = m->pair;
	unsigned long flags;

	spin_lock_irqsave(&pair->lock, flags);
	list_del(&m->node);
	spin_unlock_irqrestore(&pair->lock, flags);
	ttypair_pair_put(pair);
	mutex_destroy(&m->read_lock);
	kvfree(m->buf);
	kfree(m);
}

/**
 * ttypair_mon_may_watch() - whether the caller may monitor a port
 * @tp: the port
 *
 * Root (CAP_SYS_ADMIN) may watch anything; anyone else only a session pair
 * of their own.
 *
 * Return: true if allowed.
 */
bool ttypair_mon_may_watch(struct ttypair_port *tp)
{
	struct ttypair_pair *pair = tp->pair;

	if (capable(CAP_SYS_ADMIN))
		return true;
	return pair->session && uid_eq(pair->owner, current_fsuid());
}

/* Copy @len bytes out of the ring at @pos to user space */
static int ttypair_mon_copy_out(struct ttypair_monitor *m, char __user *to,
				u32 pos, u32 len)
{
	u32 off = pos & (m->size - 1);
	u32 first = min(len, m->size - off);

	if (copy_to_user(to, m->buf + off, first) ||
	    copy_to_user(to + first, m->buf, len - first))
		return -EFAULT;
	return 0;
}

static bool ttypair_mon_ready(struct ttypair_monitor *m)
{
	/* the records before their index: the producer's release */
	return smp_load_acquire(&m->head) != m->tail || READ_ONCE(m->removed);
}

/**
 * ttypair_mon_read() - read whole records
 * @m: the monitor
 * @buf: user space buffer
 * @count: its size
 * @nonblock: return -EAGAIN rather than wait
 *
 * Return: the bytes read; 0 once the pair was removed and all was read;
 * -EINVAL if @count cannot hold the next record; -EAGAIN, -ERESTARTSYS,
 * -EFAULT.
 */
ssize_t ttypair_mon_read(struct ttypair_monitor *m, char __user *buf,
			 size_t count, bool nonblock)
{
	struct ttypair_record rec;
	ssize_t done = 0;
	u32 head, tail, size;
	int ret;

	if (mutex_lock_interruptible(&m->read_lock))
		return -ERESTARTSYS;
	for (;;) {
		/* the records before their index: the producer's release */
		head = smp_load_acquire(&m->head);
		tail = m->tail;
		if (head != tail)
			break;
		ret = 0;
		if (READ_ONCE(m->removed))
			goto out;
		ret = -EAGAIN;
		if (nonblock)
			goto out;
		mutex_unlock(&m->read_lock);
		ret = wait_event_interruptible(m->wait, ttypair_mon_ready(m));
		if (ret)
			return ret;
		if (mutex_lock_interruptible(&m->read_lock))
			return -ERESTARTSYS;
	}
	while (tail != head) {
		u32 off = tail & (m->size - 1);
		u32 first = min_t(u32, sizeof(rec), m->size - off);

		memcpy(&rec, m->buf + off, first);
		memcpy((u8 *)&rec + first, m->buf, sizeof(rec) - first);
		size = ttypair_rec_size(rec.len);
		if (size > count - done)
			break;
		ret = ttypair_mon_copy_out(m, buf + done, tail, size);
		if (ret)
			goto out;
		done += size;
		tail += size;
	}
	ret = done ? 0 : -EINVAL;
out:
	/* the room after the copy; pairs with the producer's acquire */
	smp_store_release(&m->tail, tail);
	mutex_unlock(&m->read_lock);
	return done ?: ret;
}

/**
 * ttypair_mon_poll() - poll a monitor
 * @m: the monitor
 * @file: its file
 * @wait: the poll table
 *
 * Return: EPOLLIN while records wait, EPOLLHUP once the pair was removed.
 */
__poll_t ttypair_mon_poll(struct ttypair_monitor *m, struct file *file,
			  poll_table *wait)
{
	__poll_t mask = 0;

	poll_wait(file, &m->wait, wait);
	/* pairs with the producer's release of head */
	if (smp_load_acquire(&m->head) != READ_ONCE(m->tail))
		mask |= EPOLLIN | EPOLLRDNORM;
	if (READ_ONCE(m->removed))
		mask |= EPOLLHUP;
	return mask;
}
