// SPDX-License-Identifier: GPL-2.0
/* timer_container_of(), the new name of from_timer() (6.16) */
#include <linux/timer.h>

struct probe_holder {
	int value;
	struct timer_list timer;
};

static int __maybe_unused ttypair_probe(struct timer_list *t)
{
	struct probe_holder *h = timer_container_of(h, t, timer);

	return h->value;
}
