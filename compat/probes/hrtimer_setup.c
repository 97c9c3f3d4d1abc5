// SPDX-License-Identifier: GPL-2.0
/* hrtimer_setup() (6.13) */
#include <linux/hrtimer.h>

static enum hrtimer_restart probe_fn(struct hrtimer *t)
{
	return HRTIMER_NORESTART;
}

static void __maybe_unused ttypair_probe(struct hrtimer *t)
{
	hrtimer_setup(t, probe_fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
}
