// SPDX-License-Identifier: GPL-2.0
/*
 * ttypair - pair objects and the registry of pairs.
 *
 * A pair is reference counted: the registry holds one reference from
 * creation until removal, and every installed tty holds one (taken in the
 * tty's install, dropped in its cleanup). Removal hangs up both ends,
 * unregisters their devices and drops the registry's reference; the memory
 * goes when the last tty using it is released.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/idr.h>
#include <linux/mutex.h>
#include <linux/slab.h>

#include "ttypair.h"

static DEFINE_MUTEX(ttypair_registry_lock);	/* protects ttypair_pairs */
static DEFINE_IDR(ttypair_pairs);		/* index -> struct ttypair_pair */

static void ttypair_pair_release(struct kref *kref)
{
	struct ttypair_pair *pair = container_of(kref, struct ttypair_pair,
						 kref);
	int i;

	for (i = 0; i < TTYPAIR_NR_ENDS; i++) {
		ttypair_tx_release(ttypair_end(pair, i));
		tty_port_destroy(&ttypair_end(pair, i)->port);
	}
	kfree(pair);
}

/**
 * ttypair_pair_put() - drop a reference to a pair
 * @pair: the pair
 *
 * Frees the pair, and the tty_port buffers of both ends, with the last
 * reference. Might sleep.
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

static struct ttypair_pair *ttypair_pair_alloc(unsigned int index)
{
	struct ttypair_pair *pair;
	int i;

	pair = kzalloc(sizeof(*pair), GFP_KERNEL);
	if (!pair)
		return ERR_PTR(-ENOMEM);

	kref_init(&pair->kref);
	spin_lock_init(&pair->lock);
	pair->index = index;
	pair->baud_emulation = ttypair_defaults.baud_emulation;
	pair->strict = ttypair_defaults.strict;
	ttypair_noise_seed(pair, 0);
	for (i = 0; i < TTYPAIR_NR_ENDS; i++) {
		struct ttypair_port *tp = ttypair_end(pair, i);

		tp->pair = pair;
		tp->id = i;
		tp->wiring = ttypair_defaults.wiring;
		ttypair_tty_port_init(tp);
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

static void ttypair_pair_remove_devices(struct ttypair_pair *pair)
{
	int i;

	for (i = TTYPAIR_NR_ENDS - 1; i >= 0; i--)
		ttypair_tty_remove_port(ttypair_end(pair, i));
}

/**
 * ttypair_pair_create() - create a pair and register its two tty devices
 * @index: line number for both ends
 *
 * Return: 0, or a negative errno (-EBUSY if the index is taken).
 */
int ttypair_pair_create(unsigned int index)
{
	struct ttypair_pair *pair;
	int ret, i;

	if (index >= TTYPAIR_MAX_PAIRS)
		return -EINVAL;

	pair = ttypair_pair_alloc(index);
	if (IS_ERR(pair))
		return PTR_ERR(pair);

	mutex_lock(&ttypair_registry_lock);
	ret = idr_alloc(&ttypair_pairs, pair, index, index + 1, GFP_KERNEL);
	mutex_unlock(&ttypair_registry_lock);
	if (ret < 0) {
		ret = ret == -ENOSPC ? -EBUSY : ret;
		goto error_put;
	}

	for (i = 0; i < TTYPAIR_NR_ENDS; i++) {
		ret = ttypair_tty_add_port(ttypair_end(pair, i));
		if (ret)
			goto error_unregister;
	}
	return 0;

error_unregister:
	ttypair_pair_remove_devices(pair);
	mutex_lock(&ttypair_registry_lock);
	idr_remove(&ttypair_pairs, index);
	mutex_unlock(&ttypair_registry_lock);
error_put:
	ttypair_pair_put(pair);
	return ret;
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
		if (pair)
			idr_remove(&ttypair_pairs, id);
		mutex_unlock(&ttypair_registry_lock);
		if (!pair)
			break;

		ttypair_pair_remove_devices(pair);
		ttypair_pair_put(pair);
	}
	idr_destroy(&ttypair_pairs);
}
