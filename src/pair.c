// SPDX-License-Identifier: GPL-2.0
/*
 * ttypair - pair objects and the registry of pairs.
 *
 * A pair is reference counted: the registry holds one reference from
 * creation until removal, and every installed tty holds one (taken in the
 * tty's install, dropped in its cleanup). Removal hangs up both ends,
 * unregisters their devices and drops the registry's reference; the memory
 * goes when the last tty using it is released. The pair's index stays
 * taken until then: the tty core keeps a hung-up tty at that index until
 * its last file is closed, and a new pair there could not be opened.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/idr.h>
#include <linux/mutex.h>
#include <linux/slab.h>

#include "ttypair.h"

static DEFINE_MUTEX(ttypair_registry_lock);	/* protects ttypair_pairs */
static DEFINE_IDR(ttypair_pairs);		/* index -> registered pair, or
						 * NULL while a removed one
						 * still holds the index
						 */
static unsigned int ttypair_nr_pairs;		/* in ttypair_pairs; registry lock */

static void ttypair_pair_release(struct kref *kref)
{
	struct ttypair_pair *pair = container_of(kref, struct ttypair_pair,
						 kref);
	int i;

	if (pair->has_index) {
		mutex_lock(&ttypair_registry_lock);
		idr_remove(&ttypair_pairs, pair->index);
		mutex_unlock(&ttypair_registry_lock);
	}
	/* Each end's timer delivers into the other end's port. */
	for (i = 0; i < TTYPAIR_NR_ENDS; i++)
		ttypair_tx_release(ttypair_end(pair, i));
	for (i = 0; i < TTYPAIR_NR_ENDS; i++)
		tty_port_destroy(&ttypair_end(pair, i)->port);
	kfree(pair);
}

/**
 * ttypair_pair_put() - drop a reference to a pair
 * @pair: the pair
 *
 * Frees the pair, and the tty_port buffers of both ends, and gives its
 * index back with the last reference.
 *
 * Context: process context; might sleep. The registry lock not held.
 */
void ttypair_pair_put(struct ttypair_pair *pair)
{
	kref_put(&pair->kref, ttypair_pair_release);
}

/**
 * ttypair_port_lookup() - find an end of a registered pair and reference it
 * @id: which end
 * @index: line number of the pair
 *
 * Return: the end, with a reference on its pair that the caller drops with
 * ttypair_pair_put(); NULL when no pair has that index.
 */
struct ttypair_port *ttypair_port_lookup(enum ttypair_end_id id,
					 unsigned int index)
{
	struct ttypair_pair *pair;

	mutex_lock(&ttypair_registry_lock);
	pair = idr_find(&ttypair_pairs, index);
	if (pair)
		kref_get(&pair->kref);
	mutex_unlock(&ttypair_registry_lock);

	return pair ? ttypair_end(pair, id) : NULL;
}

static struct ttypair_pair *ttypair_pair_alloc(int index)
{
	struct ttypair_pair *pair;
	int i;

	pair = kzalloc(sizeof(*pair), GFP_KERNEL);
	if (!pair)
		return ERR_PTR(-ENOMEM);

	kref_init(&pair->kref);
	spin_lock_init(&pair->lock);
	pair->baud_emulation = ttypair_defaults.baud_emulation;
	pair->strict = ttypair_defaults.strict;
	ttypair_noise_seed(pair, 0);
	for (i = 0; i < TTYPAIR_NR_ENDS; i++) {
		struct ttypair_port *tp = ttypair_end(pair, i);

		tp->pair = pair;
		tp->id = i;
		tp->peer = ttypair_end(pair, i == TTYPAIR_END_A ? TTYPAIR_END_B :
							   TTYPAIR_END_A);
		tp->wiring = ttypair_defaults.wiring;
		ttypair_tty_port_init(tp);
		ttypair_modem_init(tp);
	}
	/* The inputs a closed, idle peer gives (the wiring may say "on") */
	spin_lock_irq(&pair->lock);
	for (i = 0; i < TTYPAIR_NR_ENDS; i++) {
		struct ttypair_port *tp = ttypair_end(pair, i);

		ttypair_inputs_refresh(tp);
		memset(&tp->icount, 0, sizeof(tp->icount));
	}
	spin_unlock_irq(&pair->lock);
	return pair;
}

/*
 * Out of the registry: lookups (new opens) no longer find it, and it no
 * longer counts against max_pairs; its index stays taken until it is freed.
 */
static void ttypair_pair_unlink(struct ttypair_pair *pair)
{
	unsigned long flags;

	mutex_lock(&ttypair_registry_lock);
	if (idr_find(&ttypair_pairs, pair->index) == pair) {
		idr_replace(&ttypair_pairs, NULL, pair->index);
		ttypair_nr_pairs--;
	}
	mutex_unlock(&ttypair_registry_lock);
	/* an open between its lookup and its activate fails (tty.c) */
	spin_lock_irqsave(&pair->lock, flags);
	pair->dead = true;
	spin_unlock_irqrestore(&pair->lock, flags);
}

static void ttypair_pair_remove_devices(struct ttypair_pair *pair)
{
	int i;

	for (i = TTYPAIR_NR_ENDS - 1; i >= 0; i--)
		ttypair_tty_remove_port(ttypair_end(pair, i));
	ttypair_bus_remove_pair(pair);
}

/**
 * ttypair_pair_new() - make a pair and give it an index, without devices
 * @index: line number for both ends, or -1 for the lowest free one
 * @name: the pair's name (configfs), or NULL for a pair of the pairs=
 *	parameter
 *
 * Nothing is visible yet: ttypair_pair_publish() registers the devices.
 *
 * Return: the pair, holding the registry's reference (dropped by
 * ttypair_pair_destroy()), or an ERR_PTR(): -EBUSY if @index is taken
 * (also by a removed pair that is still open), -ENOSPC if max_pairs pairs
 * exist or no index is free, -EINVAL for an @index out of range.
 */
struct ttypair_pair *ttypair_pair_new(int index, const char *name)
{
	struct ttypair_pair *pair;
	int ret;

	if (index >= TTYPAIR_MAX_PAIRS)
		return ERR_PTR(-EINVAL);

	pair = ttypair_pair_alloc(index);
	if (IS_ERR(pair))
		return pair;
	if (name)
		strscpy(pair->name, name, sizeof(pair->name));

	mutex_lock(&ttypair_registry_lock);
	if (ttypair_nr_pairs >= ttypair_max_pairs)
		ret = -ENOSPC;
	else if (index < 0)
		ret = idr_alloc(&ttypair_pairs, pair, 0, TTYPAIR_MAX_PAIRS,
				GFP_KERNEL);
	else
		ret = idr_alloc(&ttypair_pairs, pair, index, index + 1,
				GFP_KERNEL);
	if (index >= 0 && ret == -ENOSPC && ttypair_nr_pairs < ttypair_max_pairs)
		ret = -EBUSY;
	if (ret >= 0) {
		pair->index = ret;
		pair->has_index = true;
		ttypair_nr_pairs++;
	}
	mutex_unlock(&ttypair_registry_lock);
	if (ret < 0) {
		ttypair_pair_put(pair);
		return ERR_PTR(ret);
	}
	return pair;
}

/**
 * ttypair_pair_publish() - register the devices of a new pair
 * @pair: a pair from ttypair_pair_new()
 *
 * The pair's device on the ttypair bus first, then its two tty devices as
 * that device's children.
 *
 * Return: 0, or a negative errno; the pair is then destroyed (its registry
 * reference dropped) and must not be used.
 */
int ttypair_pair_publish(struct ttypair_pair *pair)
{
	int ret, i;

	ret = ttypair_bus_add_pair(pair);
	if (ret) {
		ttypair_pair_destroy(pair);
		return ret;
	}
	for (i = 0; i < TTYPAIR_NR_ENDS; i++) {
		ret = ttypair_tty_add_port(ttypair_end(pair, i));
		if (ret) {
			ttypair_pair_destroy(pair);
			return ret;
		}
	}
	return 0;
}

/**
 * ttypair_pair_create() - make a pair and register its two tty devices
 * @index: line number for both ends, or -1 for the lowest free one
 * @name: the pair's name (configfs), or NULL
 *
 * Return: the pair, holding the registry's reference, or an ERR_PTR() as
 * for ttypair_pair_new() and ttypair_pair_publish().
 */
struct ttypair_pair *ttypair_pair_create(int index, const char *name)
{
	struct ttypair_pair *pair = ttypair_pair_new(index, name);
	int ret;

	if (IS_ERR(pair))
		return pair;
	ret = ttypair_pair_publish(pair);
	return ret ? ERR_PTR(ret) : pair;
}

/**
 * ttypair_pair_destroy() - remove a pair
 * @pair: a pair made by ttypair_pair_create(); its registry reference goes
 *
 * New opens fail from now on; open ends are hung up (reads return end of
 * file, writes EIO), their devices unregistered, and the memory is freed
 * when the last of them is closed.
 */
void ttypair_pair_destroy(struct ttypair_pair *pair)
{
	int i;

	ttypair_pair_unlink(pair);
	ttypair_pair_remove_devices(pair);
	for (i = 0; i < TTYPAIR_NR_ENDS; i++)
		ttypair_modem_flush(ttypair_end(pair, i));
	ttypair_pair_put(pair);
}

/**
 * ttypair_pair_destroy_all() - remove every pair
 *
 * Open ends are hung up; their memory is freed when they are closed.
 */
void ttypair_pair_destroy_all(void)
{
	struct ttypair_pair *pair;
	int id;

	for (;;) {
		id = 0;
		mutex_lock(&ttypair_registry_lock);
		pair = idr_get_next(&ttypair_pairs, &id);
		mutex_unlock(&ttypair_registry_lock);
		if (!pair)
			break;
		ttypair_pair_destroy(pair);
	}
	idr_destroy(&ttypair_pairs);
}
