#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest tests of run-time pair management: configfs (mkdir/rmdir of named
# pairs, their attributes, bad names and values, max_pairs, removal while
# the ends are open), the information attributes of the tty devices, and
# a churn of 1000 pairs that must leave no memory behind; for buses,
# max_bus_ports, their udev links and a churn of 1000 buses. Sourced by
# guest-tests.sh after tap.sh, with the module NOT loaded; leaves it
# unloaded.
T=${T:-/opt/ttypair-tests}
CFG=/sys/kernel/config/ttypair

# Start from nothing: no pair or bus directory, module unloaded (a failed
# test must not fail the next ones).
mgmt_reset() {
	if [ -d "$CFG" ]; then
		for _d in "$CFG"/buses/* "$CFG"/*; do
			[ -d "$_d" ] && [ "$_d" != "$CFG/buses" ] && rmdir "$_d"
		done
	fi
	[ ! -d /sys/module/ttypair ] || rmmod ttypair
}

# mgmt_made: the pairs and buses in configfs (the group "buses" itself is
# always there)
mgmt_made() {
	ls "$CFG" "$CFG/buses" 2>/dev/null | grep -v -e '^buses$' -e ':$' -e '^$'
}

mgmt_load() {
	mgmt_reset
	modprobe ttypair "$@" || return 1
	mountpoint -q /sys/kernel/config ||
		mount -t configfs configfs /sys/kernel/config || return 1
	[ -d "$CFG" ] || { echo "no $CFG after modprobe"; return 1; }
}

# mgmt_bounded SECONDS COMMAND...: COMMAND, stopped (TERM, then KILL 5 s
# later) if it has not finished after SECONDS; then it fails with a line
# saying so, never waits for ever
mgmt_bounded() {
	_mb_s=$1
	shift
	timeout -k 5 "$_mb_s" "$@"
	_mb_rc=$?
	case $_mb_rc in
	124 | 137) echo "'$*' did not finish within $_mb_s s (stopped)" ;;
	esac
	return $_mb_rc
}

# mgmt_expect_fail ERRNO-TEXT COMMAND...: COMMAND fails, saying ERRNO-TEXT
mgmt_expect_fail() {
	_want=$1
	shift
	if _out=$("$@" 2>&1); then
		echo "'$*' succeeded"
		return 1
	fi
	case $_out in
	*"$_want"*) ;;
	*) echo "'$*' failed with '$_out', expected '$_want'"; return 1 ;;
	esac
}

# mgmt_write FILE VALUE: one write(2) of VALUE, failing with its error
# (coreutils' printf: dash's builtin reports every error as an I/O error)
mgmt_write() {
	/usr/bin/printf '%s' "$2" > "$1"
}

t_configfs_depends() {
	deps=$(modinfo -F depends ttypair)
	case ",$deps," in
	*,configfs,*) ;;
	*) grep -q '^CONFIG_CONFIGFS_FS=y' "/boot/config-$(uname -r)" ||
		{ echo "ttypair does not depend on configfs (depends: '$deps')"; return 1; } ;;
	esac
	mgmt_load pairs=1 || return 1
	[ -d /sys/module/configfs ] || grep -q '^CONFIG_CONFIGFS_FS=y' "/boot/config-$(uname -r)" ||
		{ echo "configfs was not loaded with ttypair"; return 1; }
	[ -z "$(mgmt_made)" ] || { echo "$CFG is not empty: $(mgmt_made)"; return 1; }
	rmmod ttypair
}
step configfs_modprobe_pulls_configfs t_configfs_depends

t_configfs_create_remove() {
	mgmt_load pairs=2 || return 1
	mkdir "$CFG/modbus" || return 1
	udevadm settle 2>/dev/null
	a=$(cat "$CFG/modbus/device_a") b=$(cat "$CFG/modbus/device_b")
	[ "$a $b" = "ttyVPA2 ttyVPB2" ] || { echo "devices '$a' '$b', expected ttyVPA2 ttyVPB2"; return 1; }
	[ -c "/dev/$a" ] && [ -c "/dev/$b" ] || { echo "no /dev/$a or /dev/$b"; return 1; }
	for e in a b; do
		d=$(cat "$CFG/modbus/device_$e")
		p=$(cat "/sys/class/tty/$d/pair") n=$(cat "/sys/class/tty/$d/end")
		[ "$p $n" = "modbus $e" ] || { echo "$d: pair '$p' end '$n'"; return 1; }
	done
	[ "$(cat /sys/class/tty/ttyVPA2/peer)" = ttyVPB2 ] && [ "$(cat /sys/class/tty/ttyVPB2/peer)" = ttyVPA2 ] ||
		{ echo "peer attributes wrong"; return 1; }
	[ -z "$(cat /sys/class/tty/ttyVPA0/pair)" ] || { echo "a static pair has a name"; return 1; }
	mgmt_bounded 120 "$T/ttypair-test" --pairs 3 pairing > /run/mgmt.out 2>&1 ||
		{ cat /run/mgmt.out; return 1; }
	[ "$(cat /sys/class/tty/ttyVPA2/tx_bytes)" -gt 0 ] && [ "$(cat /sys/class/tty/ttyVPB2/rx_bytes)" -gt 0 ] ||
		{ echo "counters did not move: tx $(cat /sys/class/tty/ttyVPA2/tx_bytes) rx $(cat /sys/class/tty/ttyVPB2/rx_bytes)"; return 1; }
	mkdir "$CFG/gps" || return 1
	[ "$(cat "$CFG/gps/device_a")" = ttyVPA3 ] || { echo "second pair not at index 3"; return 1; }
	rmdir "$CFG/modbus" "$CFG/gps" || return 1
	udevadm settle 2>/dev/null
	[ ! -e /dev/ttyVPA2 ] && [ ! -e /dev/ttyVPB3 ] || { echo "device nodes left after rmdir"; return 1; }
	[ -c /dev/ttyVPA1 ] || { echo "a static pair went away"; return 1; }
	rmmod ttypair
}
step configfs_create_remove t_configfs_create_remove

t_configfs_settings() {
	mgmt_load pairs=0 || return 1
	mkdir "$CFG/p" || return 1
	d=$CFG/p
	mgmt_write "$d/wiring_b" "dcd=on" || return 1
	[ "$(cat "$d/wiring_b")" = "cts=rts dsr=dtr dcd=on ri=off" ] || { echo "wiring_b: $(cat "$d/wiring_b")"; return 1; }
	[ "$(cat /sys/class/tty/ttyVPB0/wiring)" = "cts=rts dsr=dtr dcd=on ri=off" ] ||
		{ echo "the device does not show configfs's wiring"; return 1; }
	[ "$(cat "$d/wiring_a")" = "cts=rts dsr=dtr dcd=dtr ri=off" ] || { echo "wiring_a changed"; return 1; }
	for kv in baud_emulation=1 strict=1 noise_ppm=250 noise_seed=42; do
		k=${kv%%=*} v=${kv#*=}
		mgmt_write "$d/$k" "$v" || return 1
		[ "$(cat "$d/$k")" = "$v" ] && [ "$(cat "/sys/class/tty/ttyVPA0/$k")" = "$v" ] ||
			{ echo "$k: configfs $(cat "$d/$k"), sysfs $(cat "/sys/class/tty/ttyVPA0/$k")"; return 1; }
	done
	for kv in wiring_a=cts=nothing wiring_b=xyz baud_emulation=2 strict=maybe \
		noise_ppm=1000001 noise_ppm=-1 noise_seed=abc; do
		k=${kv%%=*} v=${kv#*=}
		before=$(cat "$d/$k")
		mgmt_expect_fail "Invalid argument" mgmt_write "$d/$k" "$v" || return 1
		[ "$(cat "$d/$k")" = "$before" ] || { echo "$k changed after '$v'"; return 1; }
	done
	mgmt_expect_fail "" mgmt_write "$d/device_a" "x" || return 1
	rmdir "$d" && rmmod ttypair
}
step configfs_settings_and_bad_values t_configfs_settings

t_configfs_bad_names() {
	mgmt_load pairs=0 || return 1
	long=abcdefghijklmnopqrstuvwxyz0123456	# 33 characters
	ctrl=$(printf 'a\001b')
	for n in "$long" "a b" "a:b" ".hidden" "-x" "a@b" "é" "$ctrl"; do
		mgmt_expect_fail "Invalid argument" mkdir "$CFG/$n" || return 1
	done
	# the log line escapes control characters (%pE: octal)
	dmesg | grep -qF "pair name 'a\\001b' refused" ||
		{ echo "no escaped log line for the name 'a<SOH>b'"; dmesg | tail -n 3; return 1; }
	mkdir "$CFG/ok.name_1-2" || return 1
	mgmt_expect_fail "File exists" mkdir "$CFG/ok.name_1-2" || return 1
	rmdir "$CFG/ok.name_1-2" || return 1
	mgmt_expect_fail "No such file" rmdir "$CFG/ok.name_1-2" || return 1
	[ -z "$(mgmt_made)" ] || { echo "left: $(mgmt_made)"; return 1; }
	rmmod ttypair
}
step configfs_bad_names t_configfs_bad_names

t_configfs_max_pairs() {
	mgmt_reset
	mgmt_expect_fail "Invalid argument" modprobe ttypair pairs=3 max_pairs=2 || return 1
	mgmt_load pairs=1 max_pairs=3 || return 1
	mkdir "$CFG/x1" "$CFG/x2" || return 1
	dmesg -C
	mgmt_expect_fail "No space left" mkdir "$CFG/x3" || return 1
	dmesg | grep -q "max_pairs (3) pairs exist" || { echo "no log line for max_pairs"; return 1; }
	rmdir "$CFG/x2" && mkdir "$CFG/x3" || return 1
	rmdir "$CFG/x1" "$CFG/x3" && rmmod ttypair
}
step configfs_max_pairs t_configfs_max_pairs

t_configfs_rmdir_open() {
	mgmt_load pairs=0 || return 1
	mkdir "$CFG/busy" || return 1
	udevadm settle 2>/dev/null
	[ "$(cat /sys/class/tty/ttyVPA0/open)" = 0 ] || { echo "ttyVPA0 open before anyone opened it"; return 1; }
	exec 5<>/dev/ttyVPA0 6<>/dev/ttyVPB0
	stty -F /dev/ttyVPA0 raw -echo
	[ "$(cat /sys/class/tty/ttyVPA0/open) $(cat /sys/class/tty/ttyVPB0/open)" = "1 1" ] ||
		{ echo "the open attributes do not show the ends open"; return 1; }
	# the module cannot go while a directory exists
	mgmt_expect_fail "in use" rmmod ttypair || return 1
	rmdir "$CFG/busy" || return 1
	# hung up: end of file on read, EIO on write; a read that still
	# waits after 5 s is no end of file
	timeout -k 2 5 head -c 1 <&5 > /run/mgmt.read
	rc=$?
	case $rc in
	0) ;;
	124 | 137) echo "a read on the removed pair still waits after 5 s: not hung up"; return 1 ;;
	*) echo "a read on the removed pair failed: head exited with $rc"; return 1 ;;
	esac
	r=$(wc -c < /run/mgmt.read)
	[ "$r" = 0 ] || { echo "read $r bytes from a removed pair"; return 1; }
	mgmt_expect_fail "Input/output error" sh -c '/usr/bin/printf x >&6' || return 1
	exec 5>&- 6>&-
	udevadm settle 2>/dev/null
	[ ! -e /dev/ttyVPA0 ] || { echo "/dev/ttyVPA0 left"; return 1; }
	rmmod ttypair || return 1
}
step configfs_rmdir_while_open t_configfs_rmdir_open

# Removal racing with removal and with opens of the pair's ends: every call
# succeeds or fails with ENOENT/ENODEV/ENXIO/EIO/EAGAIN (ttypair-test
# --race), the kernel log stays clean (the host checks it), and the module
# unloads afterwards.
t_configfs_remove_races() {
	mgmt_load pairs=0 || return 1
	# 5 s, up to 50 s if the ends never opened: bounded well above that
	mgmt_bounded 180 "$T/ttypair-test" --race 5 || return 1
	udevadm settle 2>/dev/null
	[ -z "$(mgmt_made)" ] || { echo "left in $CFG: $(mgmt_made)"; return 1; }
	rmmod ttypair || return 1
}
step configfs_remove_races t_configfs_remove_races

# The distribution's own systemd-udevd, running with our rules (as the
# packages install them), and stopped again.
mgmt_udevd_start() {
	_udevd=
	for _f in /usr/lib/systemd/systemd-udevd /lib/systemd/systemd-udevd; do
		[ -x "$_f" ] && { _udevd=$_f; break; }
	done
	[ -n "$_udevd" ] || { echo "no systemd-udevd in the guest"; return 1; }
	mkdir -p /etc/udev/rules.d
	cp "$T/60-ttypair.rules" /etc/udev/rules.d/ || return 1
	"$_udevd" --daemon || { echo "systemd-udevd did not start"; return 1; }
	# --daemon may return before the daemon answers on its control
	# socket (systemd 262's varlink one refused the first connection in
	# a sid guest): wait until it answers, at most 10 s
	_i=0
	until udevadm control --ping 2>/dev/null; do
		_i=$((_i + 1))
		[ "$_i" -lt 50 ] || { echo "systemd-udevd does not answer udevadm control --ping"; return 1; }
		sleep 0.2
	done
	udevadm control --reload
}

mgmt_udevd_stop() {
	udevadm control --exit
	rm -f /etc/udev/rules.d/60-ttypair.rules
}

# The udev rules with the distribution's own systemd-udevd: group dialout,
# mode 0660, and /dev/ttypair/<name>/{a,b} for named pairs, gone with them.
t_udev_rules() {
	mgmt_udevd_start || return 1
	mgmt_load pairs=1 || return 1
	mkdir "$CFG/nmea.gps-1" || return 1
	udevadm settle -t 30
	for e in a b; do
		d=$(cat "$CFG/nmea.gps-1/device_$e")
		l=$(readlink -f "/dev/ttypair/nmea.gps-1/$e")
		[ "$l" = "/dev/$d" ] || { echo "/dev/ttypair/nmea.gps-1/$e -> '$l', expected /dev/$d"; return 1; }
		p=$(stat -c '%G %a' "/dev/$d")
		[ "$p" = "dialout 660" ] || { echo "/dev/$d is '$p', expected 'dialout 660'"; return 1; }
	done
	p=$(stat -c '%G %a' /dev/ttyVPA0)
	[ "$p" = "dialout 660" ] || { echo "/dev/ttyVPA0 (static pair) is '$p'"; return 1; }
	[ ! -e /dev/ttypair/0 ] || { echo "a static pair got a symlink"; return 1; }
	rmdir "$CFG/nmea.gps-1" || return 1
	udevadm settle -t 30
	[ ! -e /dev/ttypair/nmea.gps-1/a ] && [ ! -e /dev/ttypair/nmea.gps-1/b ] ||
		{ echo "symlinks left after rmdir"; return 1; }
	rmmod ttypair
	mgmt_udevd_stop
}
step udev_rules_group_mode_symlinks t_udev_rules

# Objects in use in the kmalloc caches of 1 to 8 KiB, where a pair (about
# 2 KiB) and a transmit FIFO (4 KiB) come from.
mgmt_slab() {
	# KASAN (the debug kernel) keeps freed objects in a quarantine that
	# counts as in use; shrinking a cache releases its share of it
	for _c in kmalloc-1k kmalloc-2k kmalloc-4k kmalloc-8k; do
		[ ! -w "/sys/kernel/slab/$_c/shrink" ] || echo 1 > "/sys/kernel/slab/$_c/shrink"
	done
	awk '$1 ~ /^kmalloc-(1k|2k|4k|8k)$/ { n += $2 } END { print n }' /proc/slabinfo
}

# mgmt_churn WHAT WARMUP...: ttypair-test --churn or --bus-churn (WHAT)
# 1000 times, every tenth with a device held open across its removal; the
# kmalloc objects in use before (after WARMUP, the first of its kind made
# and removed) and after, with udev settled and the caches dropped. 100 of
# them were removed while open: leaking those alone is 200 objects.
mgmt_churn() {
	_what=$1
	shift
	mgmt_load pairs=0 || return 1
	sh -c "$*"
	sync
	echo 3 > /proc/sys/vm/drop_caches
	base=$(mgmt_slab)
	mgmt_bounded 600 "$T/ttypair-test" "--$_what" 1000 || return 1
	udevadm settle 2>/dev/null
	sync
	echo 3 > /proc/sys/vm/drop_caches
	sleep 1
	now=$(mgmt_slab)
	echo "kmalloc objects in use: $base before, $now after 1000 ($_what)"
	[ "$now" -le $((base + 50)) ] || { echo "memory grew by $((now - base)) objects"; return 1; }
	rmmod ttypair || return 1
}

t_configfs_churn() {
	mgmt_churn churn "mkdir $CFG/warm && rmdir $CFG/warm"
}
step configfs_churn_1000_pairs t_configfs_churn

# The same for buses: 2 to 5 ports each and one of 32 every 50th
t_bus_churn() {
	mgmt_churn bus-churn "mkdir $CFG/buses/warm && echo 2 > $CFG/buses/warm/ports && rmdir $CFG/buses/warm"
}
step configfs_churn_1000_buses t_bus_churn

# max_bus_ports bounds the ports of all buses together (ENOSPC and a log
# line), counting a bus's ports from the write of its "ports" until its
# rmdir; a value above 1024 (1025, 2^31, 2^32-1) fails the load with a log
# line.
t_max_bus_ports() {
	mgmt_reset
	for v in 1025 2147483648 4294967295; do
		out=$(modprobe ttypair max_bus_ports=$v 2>&1) && { rmmod ttypair; echo "max_bus_ports=$v loaded"; return 1; }
		dmesg | tail -n 5 | grep -q "ttypair: max_bus_ports=$v is invalid: expected a number from 0 to 1024" ||
			{ echo "no log line for max_bus_ports=$v ($out)"; return 1; }
	done
	mgmt_load pairs=0 max_bus_ports=5 || return 1
	mkdir "$CFG/buses/one" "$CFG/buses/two" "$CFG/buses/three" || return 1
	mgmt_write "$CFG/buses/one/ports" 3 || return 1
	mgmt_expect_fail "No space left on device" mgmt_write "$CFG/buses/two/ports" 3 || return 1
	dmesg | tail -n 3 | grep -q "ttypair: bus two: 3 ports refused: max_bus_ports (5) would be exceeded" ||
		{ echo "no log line for the refused ports"; return 1; }
	[ "$(cat "$CFG/buses/two/ports")" = 0 ] || { echo "a refused bus has ports"; return 1; }
	mgmt_write "$CFG/buses/two/ports" 2 || return 1
	mgmt_expect_fail "No space left on device" mgmt_write "$CFG/buses/three/ports" 2 || return 1
	rmdir "$CFG/buses/one" || return 1
	mgmt_write "$CFG/buses/three/ports" 3 || return 1
	rmdir "$CFG/buses/two" "$CFG/buses/three" || return 1
	rmmod ttypair || return 1
	mgmt_load pairs=0 max_bus_ports=0 || return 1
	mkdir "$CFG/buses/none" || return 1
	mgmt_expect_fail "No space left on device" mgmt_write "$CFG/buses/none/ports" 2 || return 1
	rmdir "$CFG/buses/none" || return 1
	rmmod ttypair
}
step configfs_max_bus_ports t_max_bus_ports

# The udev rules give the ports of a bus /dev/ttypair/<bus>/<port>,
# /dev/serial/by-id/ttypair-bus-<bus>-<port> and the group and mode of
# every serial port (from systemd's rules); the links go with the bus.
t_udev_bus() {
	mgmt_udevd_start || return 1
	mgmt_load pairs=0 || return 1
	mkdir "$CFG/buses/rs485.line" || return 1
	mgmt_write "$CFG/buses/rs485.line/ports" 4 || return 1
	udevadm settle -t 30
	k=0
	for d in $(cat "$CFG/buses/rs485.line/devices"); do
		for l in "/dev/ttypair/rs485.line/$k" "/dev/serial/by-id/ttypair-bus-rs485.line-$k" \
			"/dev/serial/by-path/ttypair-bus-rs485.line-$k"; do
			r=$(readlink -f "$l")
			[ "$r" = "/dev/$d" ] || { echo "$l -> '$r', expected /dev/$d"; return 1; }
		done
		p=$(stat -c '%G %a' "/dev/$d")
		[ "$p" = "dialout 660" ] || { echo "/dev/$d is '$p', expected 'dialout 660'"; return 1; }
		v=$(udevadm info -q property -n "/dev/$d" | grep -E '^(ID_BUS|ID_SERIAL|ID_MM_DEVICE_IGNORE)=' | sort | tr '\n' ' ')
		[ "$v" = "ID_BUS=ttypair ID_MM_DEVICE_IGNORE=1 ID_SERIAL=ttypair-bus-rs485.line-$k " ] ||
			{ echo "/dev/$d: udev properties '$v'"; return 1; }
		k=$((k + 1))
	done
	[ "$k" = 4 ] || { echo "$k devices listed"; return 1; }
	rmdir "$CFG/buses/rs485.line" || return 1
	udevadm settle -t 30
	[ ! -e /dev/ttypair/rs485.line/0 ] && [ ! -e /dev/serial/by-id/ttypair-bus-rs485.line-0 ] ||
		{ echo "links left after rmdir"; return 1; }
	rmmod ttypair
	mgmt_udevd_stop
}
step udev_bus_symlinks t_udev_bus
