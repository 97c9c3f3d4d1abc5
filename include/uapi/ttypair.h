/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * ttypair user-space interface: names of the devices a pair is made of.
 *
 * Pair <n> consists of /dev/ttyVPA<n> (the A end) and /dev/ttyVPB<n> (the
 * B end). Bytes written to one end are read from the other.
 */
#ifndef _UAPI_TTYPAIR_H
#define _UAPI_TTYPAIR_H

#define TTYPAIR_NAME_A		"ttyVPA"
#define TTYPAIR_NAME_B		"ttyVPB"

#endif /* _UAPI_TTYPAIR_H */
