// SPDX-License-Identifier: GPL-2.0
/*
 * ttypair - pair and bus objects and their registries.
 *
 * A pair (or bus) is reference counted: the registry holds one reference
 * from creation until removal, and every installed tty holds one (taken in
 * the tty's install, dropped in its cleanup). Removal hangs up every port,
 * unregisters their devices and drops the registry's reference; the memory
 * goes when the last tty using it is released. The pair's index (a bus's
 * port lines) stays taken until then: the tty core keeps a hung-up tty at
 * that index until its last file is closed, and a new port there could not
 * be opened.
 *
 * Pairs and buses are numbered apart (ttyVPA<n>/ttyVPB<n> and bus<n>); the
 * ports of all buses share the lines of one tty driver (ttyVPS<line>), a
 * bus's ports on consecutive lines. Names are unique over both kinds: they
 * name the directories of /dev/ttypair.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/idr.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/slab.h>

#include "ttypair.h"

/*
 * The registry lock protects everything below: the IDRs, the counts, and
 * the bus lines.
 */
static DEFINE_MUTEX(ttypair_registry_lock);
static DEFINE_IDR(ttypair_pairs);		/* index -> registered pair, or
						 * NULL while a removed one
						 * still holds the index
						 */
static unsigned int ttypair_nr_pairs;		/* in ttypair_pairs */
static DEFINE_IDR(ttypair_buses);		/* index -> bus, the same way */
static unsigned int ttypair_nr_bus_ports;	/* ports of buses in the IDR */
static DECLARE_BITMAP(ttypair_bus_lines_used, TTYPAIR_MAX_BUS_PORTS);
static struct ttypair_port *ttypair_bus_lines[TTYPAIR_MAX_BUS_PORTS];
						/* line -> port of a bus that
						 * is not removed, or NULL
						 */

static void ttypair_pair_release(struct kref *kref)
{
	struct ttypair_pair *pair = container_of(kref, struct ttypair_pair,
						 kref);
	unsigned int i;

	mutex_lock(&ttypair_registry_lock);
	if (pair->has_index)
		idr_remove(pair->bus ? &ttypair_buses : &ttypair_pairs,
			   pair->index);
	if (pair->bus && pair->nr_ports)
		bitmap_clear(ttypair_bus_lines_used, pair->first_line,
			     pair->nr_ports);
	mutex_unlock(&ttypair_registry_lock);
	/* Each port's timer delivers into the other ports. */
	for (i = 0; i < pair->nr_ports; i++)
		ttypair_tx_release(pair->ports[i]);
	for (i = 0; i < pair->nr_ports; i++) {
		tty_port_destroy(&pair->ports[i]->port);
		kfree(pair->ports[i]);
	}
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

/**
 * ttypair_bus_port_lookup() - find a port of a registered bus, referenced
 * @line: the port's line (ttyVPS<line>)
 *
 * Return: the port, with a reference on its bus that the caller drops with
 * ttypair_pair_put(); NULL when no port of a bus has that line.
 */
struct ttypair_port *ttypair_bus_port_lookup(unsigned int line)
{
	struct ttypair_port *tp = NULL;

	if (line >= TTYPAIR_MAX_BUS_PORTS)
		return NULL;
	mutex_lock(&ttypair_registry_lock);
	tp = ttypair_bus_lines[line];
	if (tp)
		kref_get(&tp->pair->kref);
	mutex_unlock(&ttypair_registry_lock);
	return tp;
}

/*
 * The wiring of a bus port's inputs: an RS-485 transceiver has no modem
 * lines, so the port sees CTS, DSR and carrier on (an open without CLOCAL
 * does not wait), and no ring.
 */
static const struct ttypair_wiring ttypair_bus_wiring = {
	.source = {
		[TTYPAIR_IN_CTS] = TTYPAIR_SRC_ON,
		[TTYPAIR_IN_DSR] = TTYPAIR_SRC_ON,
		[TTYPAIR_IN_DCD] = TTYPAIR_SRC_ON,
		[TTYPAIR_IN_RI]  = TTYPAIR_SRC_OFF,
	},
};

/* A port of @pair, number @id, with its tty_port, not yet in @pair */
static struct ttypair_port *ttypair_port_alloc(struct ttypair_pair *pair,
					       unsigned int id)
{
	struct ttypair_port *tp = kzalloc(sizeof(*tp), GFP_KERNEL);

	if (!tp)
		return NULL;
	tp->pair = pair;
	tp->id = id;
	tp->wiring = pair->bus ? ttypair_bus_wiring : ttypair_defaults.wiring;
	ttypair_tty_port_init(tp);
	ttypair_modem_init(tp);
	return tp;
}

static void ttypair_port_free(struct ttypair_port *tp)
{
	tty_port_destroy(&tp->port);
	kfree(tp);
}

/* The inputs a closed, idle port has (the wiring may say "on"); new ports */
static void ttypair_ports_settle(struct ttypair_pair *pair,
				 struct ttypair_port **ports, unsigned int nr)
{
	unsigned int i;

	spin_lock_irq(&pair->lock);
	for (i = 0; i < nr; i++) {
		ttypair_inputs_refresh(ports[i]);
		memset(&ports[i]->icount, 0, sizeof(ports[i]->icount));
	}
	spin_unlock_irq(&pair->lock);
}

static struct ttypair_pair *ttypair_pair_alloc(bool bus)
{
	struct ttypair_pair *pair;
	unsigned int i;

	pair = kzalloc(struct_size(pair, ports, bus ? TTYPAIR_BUS_PORTS_MAX :
				   TTYPAIR_NR_ENDS), GFP_KERNEL);
	if (!pair)
		return ERR_PTR(-ENOMEM);

	kref_init(&pair->kref);
	spin_lock_init(&pair->lock);
	INIT_LIST_HEAD(&pair->monitors);
	pair->bus = bus;
	pair->baud_emulation = ttypair_defaults.baud_emulation;
	pair->strict = ttypair_defaults.strict;
	ttypair_noise_seed(pair, 0);
	if (bus)
		return pair;	/* ports come with ttypair_bus_add_ports() */

	for (i = 0; i < TTYPAIR_NR_ENDS; i++) {
		pair->ports[i] = ttypair_port_alloc(pair, i);
		if (!pair->ports[i]) {
			while (i--)
				ttypair_port_free(pair->ports[i]);
			kfree(pair);
			return ERR_PTR(-ENOMEM);
		}
	}
	pair->nr_ports = TTYPAIR_NR_ENDS;
	pair->ports[TTYPAIR_END_A]->peer = pair->ports[TTYPAIR_END_B];
	pair->ports[TTYPAIR_END_B]->peer = pair->ports[TTYPAIR_END_A];
	ttypair_ports_settle(pair, pair->ports, TTYPAIR_NR_ENDS);
	return pair;
}

/* Whether a registered pair or bus has this name; registry lock held */
static bool ttypair_name_taken(const char *name)
{
	struct idr *idrs[] = { &ttypair_pairs, &ttypair_buses };
	struct ttypair_pair *pair;
	unsigned int i;
	int id;

	lockdep_assert_held(&ttypair_registry_lock);
	for (i = 0; i < ARRAY_SIZE(idrs); i++)
		idr_for_each_entry(idrs[i], pair, id)
			if (!strcmp(pair->name, name))
				return true;
	return false;
}

/*
 * Out of the registry: lookups (new opens) no longer find it, and it no
 * longer counts against max_pairs; its index stays taken until it is freed.
 */
static void ttypair_pair_unlink(struct ttypair_pair *pair)
{
	struct idr *idr = pair->bus ? &ttypair_buses : &ttypair_pairs;
	unsigned long flags;
	unsigned int i;

	mutex_lock(&ttypair_registry_lock);
	if (pair->has_index && idr_find(idr, pair->index) == pair) {
		idr_replace(idr, NULL, pair->index);
		if (!pair->bus) {
			ttypair_nr_pairs--;
		} else {
			for (i = 0; i < pair->nr_ports; i++)
				ttypair_bus_lines[pair->first_line + i] = NULL;
			ttypair_nr_bus_ports -= pair->nr_ports;
		}
	}
	mutex_unlock(&ttypair_registry_lock);
	/* an open between its lookup and its activate fails (tty.c) */
	spin_lock_irqsave(&pair->lock, flags);
	pair->dead = true;
	spin_unlock_irqrestore(&pair->lock, flags);
}

static void ttypair_pair_remove_devices(struct ttypair_pair *pair)
{
	unsigned int i = ttypair_nr_ports(pair);

	while (i--)
		ttypair_tty_remove_port(pair->ports[i]);
	ttypair_dev_remove(pair);
}

/* How many registered pairs are sessions of @owner; registry lock held */
static unsigned int ttypair_sessions_of(kuid_t owner)
{
	struct ttypair_pair *pair;
	unsigned int n = 0;
	int id;

	lockdep_assert_held(&ttypair_registry_lock);
	idr_for_each_entry(&ttypair_pairs, pair, id)
		n += pair->session && uid_eq(pair->owner, owner);
	return n;
}

/*
 * A new pair with an index: see ttypair_pair_new(); for a session of
 * @owner when @owner is not NULL, counted against max_sessions_per_user.
 */
static struct ttypair_pair *__ttypair_pair_new(int index, const char *name,
					       const kuid_t *owner)
{
	struct ttypair_pair *pair;
	int ret;

	if (index >= TTYPAIR_MAX_PAIRS)
		return ERR_PTR(-EINVAL);

	pair = ttypair_pair_alloc(false);
	if (IS_ERR(pair))
		return pair;
	if (name)
		strscpy(pair->name, name, sizeof(pair->name));
	if (owner) {
		pair->session = true;
		pair->owner = *owner;
	}

	mutex_lock(&ttypair_registry_lock);
	if (name && ttypair_name_taken(name))
		ret = -EEXIST;
	else if (owner && ttypair_sessions_of(*owner) >=
		 ttypair_max_sessions_per_user)
		ret = -EDQUOT;
	else if (ttypair_nr_pairs >= ttypair_max_pairs)
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
		pair->ports[TTYPAIR_END_A]->tty_index = ret;
		pair->ports[TTYPAIR_END_B]->tty_index = ret;
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
 * exist or no index is free, -EINVAL for an @index out of range, -EEXIST
 * if a bus has @name.
 */
struct ttypair_pair *ttypair_pair_new(int index, const char *name)
{
	return __ttypair_pair_new(index, name, NULL);
}

/**
 * ttypair_session_pair_create() - make a session's pair and its devices
 * @owner: the user whose session it is
 *
 * The lowest free index, no name; counted against max_pairs, and against
 * max_sessions_per_user among @owner's sessions.
 *
 * Return: the pair, holding the registry's reference (the session drops
 * it with ttypair_pair_destroy()), or an ERR_PTR(): -EDQUOT if @owner has
 * max_sessions_per_user sessions, -ENOSPC, -ENOMEM, or an error of the
 * devices' registration.
 */
struct ttypair_pair *ttypair_session_pair_create(kuid_t owner)
{
	struct ttypair_pair *pair = __ttypair_pair_new(-1, NULL, &owner);
	int ret;

	if (IS_ERR(pair))
		return pair;
	ret = ttypair_pair_publish(pair);
	return ret ? ERR_PTR(ret) : pair;
}

/**
 * ttypair_bus_new() - make a bus without ports, and its device
 * @name: the bus's name (configfs)
 *
 * The bus's device, bus<index>, is registered; the ports come with
 * ttypair_bus_add_ports().
 *
 * Return: the bus, holding the registry's reference (dropped by
 * ttypair_pair_destroy()), or an ERR_PTR(): -EEXIST if a pair or bus has
 * @name, -ENOSPC if no index is free, -ENOMEM.
 */
struct ttypair_pair *ttypair_bus_new(const char *name)
{
	struct ttypair_pair *bus;
	int ret;

	bus = ttypair_pair_alloc(true);
	if (IS_ERR(bus))
		return bus;
	strscpy(bus->name, name, sizeof(bus->name));

	mutex_lock(&ttypair_registry_lock);
	if (ttypair_name_taken(name))
		ret = -EEXIST;
	else
		ret = idr_alloc(&ttypair_buses, bus, 0, TTYPAIR_MAX_BUS_PORTS,
				GFP_KERNEL);
	if (ret >= 0) {
		bus->index = ret;
		bus->has_index = true;
	}
	mutex_unlock(&ttypair_registry_lock);
	if (ret < 0) {
		ttypair_pair_put(bus);
		return ERR_PTR(ret);
	}
	ret = ttypair_dev_add(bus);
	if (ret) {
		ttypair_pair_destroy(bus);
		return ERR_PTR(ret);
	}
	return bus;
}

/*
 * Give @nr new ports of @bus consecutive lines and publish them: lookups
 * find them from now on. Return: 0, -ENOSPC (max_bus_ports ports exist, or
 * no @nr consecutive lines are free) or -ENODEV (the bus was removed).
 */
static int ttypair_bus_link_ports(struct ttypair_pair *bus,
				  struct ttypair_port **ports, unsigned int nr)
{
	unsigned long first;
	unsigned int i;
	int ret = 0;

	mutex_lock(&ttypair_registry_lock);
	first = bitmap_find_next_zero_area(ttypair_bus_lines_used,
					   TTYPAIR_MAX_BUS_PORTS, 0, nr, 0);
	if (idr_find(&ttypair_buses, bus->index) != bus)
		ret = -ENODEV;
	else if (ttypair_nr_bus_ports + nr > ttypair_max_bus_ports ||
		 first >= TTYPAIR_MAX_BUS_PORTS)
		ret = -ENOSPC;
	if (!ret) {
		bitmap_set(ttypair_bus_lines_used, first, nr);
		bus->first_line = first;
		for (i = 0; i < nr; i++) {
			ports[i]->tty_index = first + i;
			bus->ports[i] = ports[i];
			ttypair_bus_lines[first + i] = ports[i];
		}
		ttypair_nr_bus_ports += nr;
		/* the ports before their number: ttypair_nr_ports() */
		smp_store_release(&bus->nr_ports, nr);
	}
	mutex_unlock(&ttypair_registry_lock);
	return ret;
}

/**
 * ttypair_bus_add_ports() - make the ports of a bus and their tty devices
 * @bus: a bus from ttypair_bus_new() without ports
 * @nr: how many, TTYPAIR_BUS_PORTS_MIN to TTYPAIR_BUS_PORTS_MAX
 *
 * The caller serialises calls for one bus; a bus gets its ports once.
 *
 * Context: process context; sleeps.
 * Return: 0, -EINVAL for a number out of range, -EBUSY if the bus has its
 * ports, -ENOSPC if max_bus_ports would be exceeded or the lines are
 * taken, -ENODEV if the bus was removed, -ENOMEM, or an error of the tty
 * devices' registration: then the ports are not available and the bus
 * can only be removed.
 */
int ttypair_bus_add_ports(struct ttypair_pair *bus, unsigned int nr)
{
	struct ttypair_port *ports[TTYPAIR_BUS_PORTS_MAX];
	unsigned int i;
	int ret;

	if (nr < TTYPAIR_BUS_PORTS_MIN || nr > TTYPAIR_BUS_PORTS_MAX)
		return -EINVAL;
	if (ttypair_nr_ports(bus))
		return -EBUSY;
	for (i = 0; i < nr; i++) {
		ports[i] = ttypair_port_alloc(bus, i);
		if (!ports[i]) {
			ret = -ENOMEM;
			goto error_free;
		}
	}
	ttypair_ports_settle(bus, ports, nr);
	ret = ttypair_bus_link_ports(bus, ports, nr);
	if (ret)
		goto error_free;

	/* From here on the ports belong to the bus, and go with it. */
	for (i = 0; i < nr; i++) {
		ret = ttypair_tty_add_port(ports[i]);
		if (ret) {
			pr_err("bus %s: registering the device of port %u failed (%d); remove the bus\n",
			       bus->name, i, ret);
			while (i--)
				ttypair_tty_remove_port(ports[i]);
			return ret;
		}
	}
	return 0;

error_free:
	while (i--)
		ttypair_port_free(ports[i]);
	return ret;
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

	ret = ttypair_dev_add(pair);
	if (ret) {
		ttypair_pair_destroy(pair);
		return ret;
	}
	for (i = 0; i < TTYPAIR_NR_ENDS; i++) {
		ret = ttypair_tty_add_port(pair->ports[i]);
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
 * ttypair_pair_destroy() - remove a pair or a bus
 * @pair: a pair made by ttypair_pair_create(), or a bus made by
 *	ttypair_bus_new(); its registry reference goes
 *
 * New opens fail from now on; open ports are hung up (reads return end of
 * file, writes EIO), their devices unregistered, and the memory is freed
 * when the last of them is closed.
 */
void ttypair_pair_destroy(struct ttypair_pair *pair)
{
	unsigned int i;

	ttypair_pair_unlink(pair);
	ttypair_pair_remove_devices(pair);
	ttypair_mon_removed(pair);
	for (i = 0; i < ttypair_nr_ports(pair); i++)
		ttypair_modem_flush(pair->ports[i]);
	ttypair_pair_put(pair);
}

/**
 * ttypair_pair_destroy_all() - remove every pair
 *
 * Open ends are hung up; their memory is freed when they are closed. The
 * buses are configfs's, and gone before this runs (each pins the module).
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
	idr_destroy(&ttypair_buses);
}
