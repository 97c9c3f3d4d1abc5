/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * ttypair user-space interface: names of the devices of pairs and buses.
 *
 * Pair <n> consists of /dev/ttyVPA<n> (the A end) and /dev/ttyVPB<n> (the
 * B end). Bytes written to one end are read from the other.
 *
 * The ports of buses are /dev/ttyVPS<line>; a bus's ports have consecutive
 * lines (its configfs directory lists them). What one port of a bus sends,
 * every other port receives.
 */
#ifndef _UAPI_TTYPAIR_H
#define _UAPI_TTYPAIR_H

#define TTYPAIR_NAME_A		"ttyVPA"
#define TTYPAIR_NAME_B		"ttyVPB"
#define TTYPAIR_NAME_BUS	"ttyVPS"

#endif /* _UAPI_TTYPAIR_H */
