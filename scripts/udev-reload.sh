#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# After `make install` or `make uninstall` changed the udev rules: make a
# running udevd read them and apply them to the ports that exist now (group,
# mode, /dev/ttypair links). Without a running udevd (a container, a chroot)
# there is nothing to do: the rules apply from the next boot.
if [ -S /run/udev/control ] && command -v udevadm > /dev/null 2>&1; then
	udevadm control --reload && udevadm trigger --subsystem-match=tty --sysname-match='ttyVP*'
	echo "ttypair: udev rules reloaded"
fi
exit 0
