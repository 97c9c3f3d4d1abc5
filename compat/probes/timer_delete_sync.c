// SPDX-License-Identifier: GPL-2.0
/* timer_delete_sync() and timer_shutdown_sync() (6.2, back-ported to 6.1.y) */
#include <linux/timer.h>

static void __maybe_unused ttypair_probe(struct timer_list *t)
{
	timer_delete_sync(t);
	timer_shutdown_sync(t);
}
