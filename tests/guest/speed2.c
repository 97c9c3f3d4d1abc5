// SPDX-License-Identifier: GPL-2.0
/*
 * Speeds of any value for the tests built on glibc's termios: termios2
 * with BOTHER, in a file of its own since <asm/termbits.h> and
 * <termios.h> cannot be included together.
 */
#include <asm/termbits.h>
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>

#include "tlib.h"

int set_speed_any(int fd, unsigned int ospeed, unsigned int ispeed)
{
	struct termios2 t;

	if (ioctl(fd, TCGETS2, &t))
		return fail("TCGETS2: %s", strerror(errno));
	t.c_cflag &= ~(CBAUD | (CBAUD << IBSHIFT));
	t.c_cflag |= BOTHER | (BOTHER << IBSHIFT);
	t.c_ospeed = ospeed;
	t.c_ispeed = ispeed ? ispeed : ospeed;
	if (ioctl(fd, TCSETS2, &t))
		return fail("TCSETS2 (output %u, input %u): %s", ospeed,
			    t.c_ispeed, strerror(errno));
	return 0;
}
