#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest tests of how programs find ttypair's ports: the device on the
# ttypair bus each pair's ends hang off, the port lists of libserialport
# (sp-list.c) and Qt (qt-list.py), and the identity udev gives the ends
# with the packages' rules (by-id and by-path links, the properties Qt
# reads, ModemManager's ignore flag). Sourced by guest-tests.sh after
# manage-tests.sh (its mgmt_* helpers), with the module NOT loaded; leaves
# it unloaded.
T=${T:-/opt/ttypair-tests}

# en_ends: the tty names of every end of every pair, one per line
en_ends() {
	for _e in /sys/class/tty/ttyVP[AB]*; do
		[ -e "$_e" ] && basename "$_e"
	done
}

# Every end of the pairs= pairs and of a configfs pair has a parent device
# on the ttypair bus, bound to the ttypair driver, outside
# /sys/devices/virtual; the pair's device goes with the pair.
t_enum_parent() {
	mgmt_load pairs=2 || return 1
	mkdir "$CFG/modbus" || return 1
	n=0
	for e in $(en_ends); do
		i=${e#ttyVP?}
		l=$(readlink "/sys/class/tty/$e")
		case $l in
		*virtual*) echo "$e: /sys/class/tty/$e -> $l is a virtual device"; return 1 ;;
		esac
		d=$(readlink -f "/sys/class/tty/$e/device")
		[ "$d" = "/sys/devices/ttypair/pair$i" ] ||
			{ echo "$e: device -> '$d', expected /sys/devices/ttypair/pair$i"; return 1; }
		s=$(basename "$(readlink -f "$d/subsystem")")
		r=$(basename "$(readlink -f "$d/driver")")
		[ "$s $r" = "ttypair ttypair" ] ||
			{ echo "$e: parent on bus '$s' with driver '$r', expected ttypair ttypair"; return 1; }
		n=$((n + 1))
	done
	[ "$n" = 6 ] || { echo "$n ends, expected 6"; return 1; }
	# the binding is the module's own business, not user space's
	[ ! -e /sys/bus/ttypair/drivers/ttypair/unbind ] ||
		{ echo "the ttypair driver can be unbound from user space"; return 1; }
	i=$(cat "$CFG/modbus/device_a")
	i=${i#ttyVPA}
	rmdir "$CFG/modbus" || return 1
	[ ! -e "/sys/bus/ttypair/devices/pair$i" ] ||
		{ echo "pair$i is still on the bus after rmdir"; return 1; }
	rmmod ttypair || return 1
	[ ! -e /sys/bus/ttypair ] && [ ! -e /sys/devices/ttypair ] ||
		{ echo "the ttypair bus or its root device outlived the module"; return 1; }
	echo "6 ends, each under /sys/devices/ttypair/pair<n> with driver ttypair"
}
step enum_parent_device t_enum_parent

# en_expect LIST NAMES...: each /dev/NAME is in LIST (lines "/dev/NAME|...")
en_expect() {
	_list=$1
	shift
	for _n in "$@"; do
		grep -q "^/dev/$_n|" "$_list" ||
			{ cat "$_list"; echo "/dev/$_n is not in the list"; return 1; }
	done
}

# en_absent LIST NAMES...: no /dev/NAME in LIST
en_absent() {
	_list=$1
	shift
	for _n in "$@"; do
		! grep -q "^/dev/$_n|" "$_list" ||
			{ cat "$_list"; echo "/dev/$_n is still in the list"; return 1; }
	done
}

# libserialport's sp_list_ports() lists every end, and every port of a
# bus, as native ports; the list follows configfs pairs and buses being
# made and removed.
t_enum_libserialport() {
	mgmt_load pairs=2 || return 1
	"$T/sp-list" > /run/sp.0 || return 1
	en_expect /run/sp.0 ttyVPA0 ttyVPB0 ttyVPA1 ttyVPB1 || return 1
	mkdir "$CFG/modbus" "$CFG/buses/line" && echo 3 > "$CFG/buses/line/ports" || return 1
	a=$(cat "$CFG/modbus/device_a") b=$(cat "$CFG/modbus/device_b")
	# shellcheck disable=SC2046 # one device a word
	set -- $(cat "$CFG/buses/line/devices")
	"$T/sp-list" > /run/sp.1 || return 1
	en_expect /run/sp.1 ttyVPA0 ttyVPB0 ttyVPA1 ttyVPB1 "$a" "$b" "$@" || return 1
	rmdir "$CFG/buses/line" || return 1
	"$T/sp-list" > /run/sp.3 || return 1
	en_absent /run/sp.3 "$@" || return 1
	l=$(grep "^/dev/$a|" /run/sp.1)
	[ "$l" = "/dev/$a|native|$a" ] ||
		{ echo "'$l': expected '/dev/$a|native|$a' (libserialport describes a native port by its name)"; return 1; }
	rmdir "$CFG/modbus" || return 1
	"$T/sp-list" > /run/sp.2 || return 1
	en_absent /run/sp.2 "$a" "$b" || return 1
	en_expect /run/sp.2 ttyVPA0 ttyVPB1 || return 1
	rmmod ttypair
	echo "libserialport: $(grep -c '^/dev/ttyVP' /run/sp.1) ttypair ports of $(wc -l < /run/sp.1), then $(grep -c '^/dev/ttyVP' /run/sp.2) after rmdir"
}
step enum_libserialport t_enum_libserialport

# Qt's QSerialPortInfo::availablePorts() lists every end and every port of
# a bus, and with the packages' udev rules describes it: pair, end, peer;
# bus and port.
t_enum_qt() {
	mgmt_udevd_start || return 1
	mgmt_load pairs=2 || return 1
	mkdir "$CFG/modbus" "$CFG/buses/line" && echo 3 > "$CFG/buses/line/ports" || return 1
	a=$(cat "$CFG/modbus/device_a") b=$(cat "$CFG/modbus/device_b")
	# shellcheck disable=SC2046 # one device a word
	set -- $(cat "$CFG/buses/line/devices")
	udevadm settle -t 30
	QT_QPA_PLATFORM=offscreen python3 "$T/qt-list.py" > /run/qt.1 2> /run/qt.err ||
		{ cat /run/qt.err; return 1; }
	en_expect /run/qt.1 ttyVPA0 ttyVPB0 ttyVPA1 ttyVPB1 "$a" "$b" "$@" || return 1
	for want in "/dev/$a|ttypair modbus end a (peer $b)|ttypair|modbus-a" \
		"/dev/$b|ttypair modbus end b (peer $a)|ttypair|modbus-b" \
		"/dev/ttyVPB1|ttypair 1 end b (peer ttyVPA1)|ttypair|1-b" \
		"/dev/$1|ttypair bus line port 0|ttypair|bus-line-0" \
		"/dev/$3|ttypair bus line port 2|ttypair|bus-line-2"; do
		grep -qxF "$want" /run/qt.1 ||
			{ cat /run/qt.1; echo "no line '$want'"; return 1; }
	done
	rmdir "$CFG/modbus" "$CFG/buses/line" || return 1
	udevadm settle -t 30
	QT_QPA_PLATFORM=offscreen python3 "$T/qt-list.py" > /run/qt.2 2> /run/qt.err ||
		{ cat /run/qt.err; return 1; }
	en_absent /run/qt.2 "$a" "$b" "$@" || return 1
	en_expect /run/qt.2 ttyVPA0 ttyVPB1 || return 1
	rmmod ttypair
	mgmt_udevd_stop
	echo "Qt: $(grep -c '^/dev/ttyVP' /run/qt.1) ttypair ports with their descriptions, $(grep -c '^/dev/ttyVP' /run/qt.2) after rmdir"
}
step enum_qt t_enum_qt

# The packages' udev rules: /dev/serial/by-id/ttypair-<name or index>-<end>
# and /dev/serial/by-path/ttypair-pair<index>-<end> for every end, gone
# with the pair, and ModemManager's ignore flag on every end.
t_udev_identity() {
	mgmt_udevd_start || return 1
	mgmt_load pairs=1 || return 1
	mkdir "$CFG/modbus" || return 1
	udevadm settle -t 30
	i=$(cat "$CFG/modbus/device_a")
	i=${i#ttyVPA}
	for x in "0 0" "modbus $i"; do
		set -- $x
		for e in a b; do
			E=$(echo "$e" | tr ab AB)
			dev=/dev/ttyVP$E$2
			for l in "/dev/serial/by-id/ttypair-$1-$e" "/dev/serial/by-path/ttypair-pair$2-$e"; do
				t=$(readlink -f "$l")
				[ "$t" = "$dev" ] || { echo "$l -> '$t', expected $dev"; return 1; }
			done
			udevadm info -q property "$dev" > /run/udev.prop
			for p in ID_MM_DEVICE_IGNORE=1 ID_BUS=ttypair "ID_SERIAL=ttypair-$1-$e"; do
				grep -qx "$p" /run/udev.prop ||
					{ cat /run/udev.prop; echo "$dev: no $p"; return 1; }
			done
		done
	done
	rmdir "$CFG/modbus" || return 1
	udevadm settle -t 30
	for l in /dev/serial/by-id/ttypair-modbus-a "/dev/serial/by-path/ttypair-pair$i-b"; do
		[ ! -e "$l" ] && [ ! -L "$l" ] || { echo "$l is left after rmdir"; return 1; }
	done
	rmmod ttypair
	mgmt_udevd_stop
	echo "by-id and by-path links of 4 ends, ID_MM_DEVICE_IGNORE=1 on each; gone with the pair"
}
step udev_serial_identity t_udev_identity

# ModemManager (with its D-Bus), running as a distribution runs it, while
# pairs appear: with the packages' rules it takes no ttypair port in, so
# it sends nothing to any (its debug log says why for each end; programs
# reading every end receive nothing). As a control, a rule of the test's
# own asks it to process one end (ID_MM_DEVICE_PROCESS), and its log
# shows that end allowed and a probe started (ModemManager 1.14 sends it
# AT commands, which the peer receives; newer ones give up on a port with
# no vendor ID): it sees the ports, and the rules keep it away.
t_modemmanager() {
	mm=
	for f in /usr/sbin/ModemManager /usr/bin/ModemManager; do
		[ -x "$f" ] && { mm=$f; break; }
	done
	[ -n "$mm" ] || { echo "no ModemManager in the guest"; return 1; }
	mgmt_udevd_start || return 1
	echo 'KERNEL=="ttyVPA1", ENV{ID_MM_DEVICE_PROCESS}="1"' > /etc/udev/rules.d/61-ttypair-mm-control.rules
	udevadm control --reload
	mkdir -p /run/dbus
	dbus-daemon --system --fork --print-pid > /run/dbus.pid || return 1
	: > /run/mm.log
	"$mm" --debug --log-file=/run/mm.log > /run/mm.out 2>&1 &
	pids=$!
	mgmt_load pairs=2 && mkdir "$CFG/modbus" && udevadm settle -t 30
	ends=$(en_ends)
	for e in $ends; do
		stty -F "/dev/$e" raw -echo clocal
		cat "/dev/$e" > "/run/mm-$e.in" &
		pids="$pids $!"
	done
	# until ModemManager has judged every end (it waits 2 s after a
	# port appears before probing it) and finished with the control
	# end, at most 60 s
	t0=$(date +%s) ok=
	while [ $(($(date +%s) - t0)) -lt 60 ]; do
		if [ "$(grep -o '(\(tty/\)\?ttyVP[AB][0-9]*)' /run/mm.log | sort -u | wc -l)" -ge 6 ] &&
			grep -q 'ttyVPA1.*support' /run/mm.log; then
			ok=1
			break
		fi
		sleep 0.5
	done
	sleep 3		# time for a probe to send its first command
	kill -KILL $pids 2>/dev/null
	wait $pids 2>/dev/null
	kill "$(cat /run/dbus.pid)" 2>/dev/null
	rm -f /etc/udev/rules.d/61-ttypair-mm-control.rules
	mgmt_reset
	mgmt_udevd_stop
	grep 'ttyVP' /run/mm.log | grep -v '\[plugin/' | sed 's/^/  mm: /' | head -n 30
	[ "$(echo $ends | wc -w)" = 6 ] || { echo "ends: '$ends', expected 6"; return 1; }
	[ -n "$ok" ] || { echo "ModemManager did not judge every end within 60 s"; return 1; }
	for e in $ends; do
		# what ModemManager sends to an end arrives at its peer: the
		# control end's probe (AT commands) at ttyVPB1
		if [ "$e" != ttyVPB1 ] && [ -s "/run/mm-$e.in" ]; then
			echo "$e received $(wc -c < "/run/mm-$e.in") bytes: $(head -c 40 "/run/mm-$e.in" | od -An -c)"
			return 1
		fi
		[ "$e" = ttyVPA1 ] && continue
		grep -Eq "\((tty/)?$e\).*port filtered: device is (blocklisted|blacklisted)" /run/mm.log ||
			{ echo "ModemManager did not filter $e as a device to ignore"; return 1; }
	done
	grep -Eq "\((tty/)?ttyVPA1\).*port allowed" /run/mm.log ||
		{ echo "control: ModemManager did not take ttyVPA1 in, which the test's rule asked"; return 1; }
	probe=
	[ ! -s /run/mm-ttyVPB1.in ] || probe=" and probed ($(head -c 20 /run/mm-ttyVPB1.in | od -An -c | tr -d ' \n') reached its peer)"
	echo "ModemManager $("$mm" --version | sed -n '1s/.* //p'): $(($(echo "$ends" | wc -w) - 1)) ends ignored by the rules, none sent a byte; the control end was taken in$probe"
}
step modemmanager_ignores_ports t_modemmanager
