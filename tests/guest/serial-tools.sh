#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest tests of ttypair with the ordinary serial tools: stty, setserial,
# socat and pyserial (pyserial-test.py beside this file). Sourced by the
# guest test driver after tap.sh (or run on its own with sh), with the
# module loaded with pairs=112. Each test has a pair of its own and touches
# no other: stty a pair it makes in configfs, setserial pair 5, socat pair
# 6, pyserial pair 7, pyserial's RS-485 mode pair 84, libmodbus's pair 85.
# POSIX sh. Every test runs in the subshell of `step`: its variables and
# its open file descriptors go away with it.

T=${T:-/opt/ttypair-tests}
# shellcheck source=/dev/null # tap.sh: tests/lib/tap.sh, installed beside this file
command -v step >/dev/null 2>&1 || . "$T/tap.sh"

# --- stty: line settings read back, kept across opens --------------------

# tools_stty_expect DEV SPEED WORD...: `stty -F DEV -a` shows "speed SPEED
# baud;" and every WORD (a setting as stty prints it: cs7, -parenb, ...).
tools_stty_expect() {
	_se_dev=$1
	_se_speed=$2
	shift 2
	_se_all=$(stty -F "$_se_dev" -a 2>&1) ||
		{ echo "$_se_all"; echo "stty -F $_se_dev -a failed"; return 1; }
	if ! echo "$_se_all" | head -n 1 | grep -q "^speed $_se_speed baud;"; then
		echo "$_se_all"
		echo "$_se_dev: expected speed $_se_speed, stty -a says: $(echo "$_se_all" | head -n 1)"
		return 1
	fi
	_se_words=$(echo "$_se_all" | tr -s ' ;\t' '[\n*]')
	for _se_w; do
		if ! echo "$_se_words" | grep -qxF -- "$_se_w"; then
			echo "$_se_all"
			echo "$_se_dev: expected $_se_w, stty -a says: $(echo "$_se_all" | grep cstopb)"
			return 1
		fi
	done
}

# tools_stty_set DEV SETTING...: stty -F DEV SETTING... (stty reads the
# settings back and fails when the driver did not keep all of them).
tools_stty_set() {
	_ss_dev=$1
	shift
	_ss_out=$(stty -F "$_ss_dev" "$@" 2>&1) ||
		{ echo "$_ss_out"; echo "stty -F $_ss_dev $* failed"; return 1; }
}

# tools_stty_peer_same WHAT: the other end ($b) still has its settings
# ($peer, from stty -g).
tools_stty_peer_same() {
	_sp_now=$(stty -F "$b" -g) || { echo "stty -F $b -g failed"; return 1; }
	[ "$_sp_now" = "$peer" ] ||
		{ echo "$b changed with $a ($1): was $peer, now $_sp_now"; return 1; }
}

# tools_stty_roundtrip A B: settings made on A with stty, read back with
# stty; B keeps its own.
tools_stty_roundtrip() {
	a=$1
	b=$2
	# a fresh end: 9600 8N1, CREAD HUPCL CLOCAL
	tools_stty_expect "$a" 9600 cs8 -parenb -cstopb cread hupcl clocal || return 1
	tools_stty_expect "$b" 9600 cs8 -parenb -cstopb cread hupcl clocal || return 1
	peer=$(stty -F "$b" -g) || { echo "stty -F $b -g failed"; return 1; }
	# Every stty below opens and closes the port: what it reads back is
	# what the one before left (the settings persist across opens).
	tools_stty_set "$a" 115200 cs7 parenb -parodd -cstopb || return 1
	tools_stty_expect "$a" 115200 cs7 parenb -parodd -cmspar -cstopb || return 1
	tools_stty_peer_same 7E1 || return 1
	tools_stty_set "$a" cs5 || return 1
	tools_stty_expect "$a" 115200 cs5 parenb -parodd -cmspar -cstopb || return 1
	tools_stty_peer_same cs5 || return 1
	tools_stty_set "$a" 1200 cs8 -parenb cstopb || return 1
	tools_stty_expect "$a" 1200 cs8 -parenb cstopb || return 1
	tools_stty_peer_same 8N2 || return 1
	# mark parity
	tools_stty_set "$a" parenb parodd cmspar || return 1
	tools_stty_expect "$a" 1200 cs8 parenb parodd cmspar cstopb || return 1
	tools_stty_peer_same 8M2 || return 1
	tools_stty_set "$a" 9600 cs8 -parenb -cstopb -parodd -cmspar || return 1
	tools_stty_expect "$a" 9600 cs8 -parenb -parodd -cmspar -cstopb cread hupcl clocal ||
		return 1
	tools_stty_peer_same "back to 9600 8N1" || return 1
	echo "115200 7E1, cs5, 1200 8N2, mark parity, 9600 8N1 read back; $b unchanged"
}

# A pair made for this test in configfs, so that its ends are fresh: no
# test has changed their termios before (the pairs of pairs= have all been
# opened and set raw by ttypair-test's pairing test).
t_tools_stty_roundtrip() {
	_cfg=/sys/kernel/config/ttypair
	mountpoint -q /sys/kernel/config ||
		mount -t configfs configfs /sys/kernel/config ||
		{ echo "configfs is not mounted and cannot be"; return 1; }
	mkdir "$_cfg/tools-stty" || { echo "mkdir $_cfg/tools-stty failed"; return 1; }
	_a=/dev/$(cat "$_cfg/tools-stty/device_a") _b=/dev/$(cat "$_cfg/tools-stty/device_b")
	_i=0
	while [ ! -c "$_a" ] || [ ! -c "$_b" ]; do
		_i=$((_i + 1))
		if [ $_i -gt 100 ]; then
			echo "no $_a or $_b 10 s after mkdir"
			rmdir "$_cfg/tools-stty"
			return 1
		fi
		sleep 0.1
	done
	echo "a fresh pair: $_a <-> $_b"
	tools_stty_roundtrip "$_a" "$_b"
	_r=$?
	rmdir "$_cfg/tools-stty" || { echo "rmdir $_cfg/tools-stty failed"; _r=1; }
	return $_r
}

# --- setserial: TIOCGSERIAL / TIOCSSERIAL --------------------------------

t_tools_setserial() {
	a=/dev/ttyVPA5
	b=/dev/ttyVPB5
	for _d in "$a" "$b"; do
		[ -c "$_d" ] || { echo "no $_d"; return 1; }
	done
	# setserial -g prints its errors and still exits 0: check the text
	g=$(setserial -g "$a" 2>&1)
	echo "setserial -g: $g"
	echo "$g" | grep -Eq "^$a, UART: 16550A, Port: 0x0+, IRQ: 0(,|\$)" ||
		{ echo "unexpected setserial -g output: $g"; return 1; }
	case $g in *low_latency*) echo "low_latency set on a fresh port"; return 1 ;; esac
	gg=$(setserial -G "$a" 2>&1)
	echo "setserial -G: $gg"
	echo "$gg" | grep -Eq "^$a uart 16550A port 0x0+ irq 0 baud_base 115200( |\$)" ||
		{ echo "unexpected setserial -G output: $gg"; return 1; }
	all=$(setserial -a "$a" 2>&1)
	if ! echo "$all" | grep -Eq "^$a, Line 5, UART: 16550A, Port: 0x0+, IRQ: 0" ||
		! echo "$all" | grep -Eq "Baud_base: 115200, close_delay: [0-9]+, divisor: 0"; then
		echo "$all"
		echo "unexpected setserial -a output"
		return 1
	fi
	gb=$(setserial -a "$b" 2>&1)
	echo "$gb" | grep -Eq "^$b, Line 5, UART: 16550A, Port: 0x0+, IRQ: 0" ||
		{ echo "$gb"; echo "unexpected setserial -a output for $b"; return 1; }

	# what -G printed, fed back: TIOCSSERIAL of what TIOCGSERIAL gave
	# shellcheck disable=SC2086 # the words of the -G output are arguments
	out=$(setserial $gg 2>&1) ||
		{ echo "$out"; echo "setserial $gg failed (the same values written back)"; return 1; }
	now=$(setserial -a "$a" 2>&1)
	[ "$now" = "$all" ] || { echo "$now"; echo "setserial $gg changed the settings"; return 1; }

	# low_latency: set, read back, clear
	out=$(setserial "$a" low_latency 2>&1) ||
		{ echo "$out"; echo "setserial $a low_latency failed"; return 1; }
	now=$(setserial -a "$a" 2>&1)
	echo "$now" | grep -Eq "Flags:.*low_latency" ||
		{ echo "$now"; echo "low_latency not in the flags after setting it"; return 1; }
	now=$(setserial -g "$a" 2>&1)
	echo "$now" | grep -Eq "Flags:.*low_latency" ||
		{ echo "$now"; echo "setserial -g does not show low_latency"; return 1; }
	out=$(setserial "$a" ^low_latency 2>&1) ||
		{ echo "$out"; echo "setserial $a ^low_latency failed"; return 1; }
	now=$(setserial -a "$a" 2>&1)
	case $now in *low_latency*)
		echo "$now"; echo "low_latency still set after ^low_latency"; return 1 ;;
	esac
	[ "$now" = "$all" ] || { echo "$now"; echo "settings differ after ^low_latency"; return 1; }
	echo "low_latency set and cleared"

	# any other change is refused (EINVAL) and changes nothing
	for change in "uart 8250" "spd_cust divisor 3" "port 0x3f8" "irq 4" "baud_base 9600"; do
		# shellcheck disable=SC2086 # the words of $change are arguments
		if out=$(setserial "$a" $change 2>&1); then
			setserial -a "$a"
			echo "setserial $a $change succeeded"
			return 1
		fi
		echo "$out" | grep -q "Invalid argument" ||
			{ echo "setserial $a $change said: $out (expected Invalid argument)"; return 1; }
		now=$(setserial -a "$a" 2>&1)
		[ "$now" = "$all" ] ||
			{ echo "$now"; echo "setserial $a $change failed but changed the settings"; return 1; }
		echo "$change: refused, nothing changed"
	done
	now=$(setserial -g "$a" 2>&1)
	[ "$now" = "$g" ] || { echo "setserial -g now says: $now, was: $g"; return 1; }
}

# --- socat: a pty bridged to one end, 1 MiB each way ---------------------

TOOLS_MIB=1048576

# tools_bridge_io A PTY: with fd 8 open on A and fd 7 on the pty that socat
# relays to A's peer, 1 MiB each way (the files in1.bin, in2.bin of $W).
tools_bridge_io() {
	# A -> ttypair -> B -> socat -> pty
	timeout 120 head -c $TOOLS_MIB <&7 > "$W/out1.bin" &
	rd=$!
	if ! timeout 120 cat "$W/in1.bin" >&8; then
		echo "writing 1 MiB to $1 failed or timed out"
		kill "$rd" 2>/dev/null
		wait "$rd"
		return 1
	fi
	wait "$rd"
	rc=$?
	[ $rc = 0 ] || { echo "reading $2: head exited with $rc (124: timed out)"; return 1; }
	cmp "$W/in1.bin" "$W/out1.bin" ||
		{ echo "$1 -> $2: the data differs ($(wc -c < "$W/out1.bin") bytes read)"; return 1; }
	echo "$1 -> $2: 1 MiB intact"
	# pty -> socat -> B -> ttypair -> A
	timeout 120 head -c $TOOLS_MIB <&8 > "$W/out2.bin" &
	rd=$!
	if ! timeout 120 cat "$W/in2.bin" >&7; then
		echo "writing 1 MiB to $2 failed or timed out"
		kill "$rd" 2>/dev/null
		wait "$rd"
		return 1
	fi
	wait "$rd"
	rc=$?
	[ $rc = 0 ] || { echo "reading $1: head exited with $rc (124: timed out)"; return 1; }
	cmp "$W/in2.bin" "$W/out2.bin" ||
		{ echo "$2 -> $1: the data differs ($(wc -c < "$W/out2.bin") bytes read)"; return 1; }
	echo "$2 -> $1: 1 MiB intact"
}

# tools_socat_bridge A B: socat relays B to a new pty; 1 MiB through A,
# the pair, socat and the pty, each way.
tools_socat_bridge() {
	a=$1
	b=$2
	W=/run/ttypair-tools-socat
	lnk=$W/vpty
	rm -rf "$W" && mkdir -p "$W" || return 1
	head -c $TOOLS_MIB /dev/urandom > "$W/in1.bin" || return 1
	head -c $TOOLS_MIB /dev/urandom > "$W/in2.bin" || return 1
	stty -F "$a" raw -echo cs8 -parenb -istrip -ixon -ixoff -crtscts ||
		{ echo "stty -F $a raw -echo failed"; return 1; }
	# socat holds B and the pty open for the whole test; its output goes
	# to a file, never to the output pipe of `step`, which would wait for
	# it
	timeout 600 socat -d "$b,cfmakeraw,echo=0" "PTY,link=$lnk,cfmakeraw,echo=0" \
		> "$W/socat.log" 2>&1 &
	sp=$!
	i=0
	while [ ! -e "$lnk" ]; do
		i=$((i + 1))
		if [ $i -gt 300 ] || ! kill -0 "$sp" 2>/dev/null; then
			cat "$W/socat.log"
			echo "socat made no pty at $lnk"
			kill "$sp" 2>/dev/null
			wait "$sp"
			return 1
		fi
		sleep 0.1
	done
	r=0
	stty -F "$lnk" raw -echo cs8 -parenb -istrip -ixon -ixoff ||
		{ echo "stty -F $lnk raw -echo failed"; r=1; }
	# a failed redirection of a function call fails the call only
	if [ $r = 0 ]; then
		tools_bridge_io "$a" "$lnk ($(readlink "$lnk"))" 7<>"$lnk" 8<>"$a" || r=1
	fi
	if [ $r = 0 ] && ! kill -0 "$sp" 2>/dev/null; then
		echo "socat ended during the transfers"
		r=1
	fi
	kill "$sp" 2>/dev/null
	wait "$sp"
	if [ $r != 0 ]; then
		sed 's/^/socat: /' "$W/socat.log" | tail -n 5
		echo "failed (see above)"
	fi
	rm -rf "$W"
	return $r
}

t_tools_socat_pty_bridge() {
	for _d in /dev/ttyVPA6 /dev/ttyVPB6; do
		[ -c "$_d" ] || { echo "no $_d"; return 1; }
	done
	tools_socat_bridge /dev/ttyVPA6 /dev/ttyVPB6
}

# --- pyserial ------------------------------------------------------------

t_tools_pyserial() {
	timeout 180 python3 "$T/pyserial-test.py" 7
	rc=$?
	[ $rc != 124 ] || echo "pyserial-test.py timed out after 180 s"
	return $rc
}

# pyserial's rs485_mode (its RS485Settings, applied with TIOCSRS485) is
# accepted and reads back as set, data flows in it, and the peer sees RTS
# (as CTS) drop once the transmission is over (rts_level_for_rx False)
t_tools_pyserial_rs485() {
	timeout 60 python3 - <<'EOF'
import fcntl, struct, sys, time
import serial, serial.rs485
a = serial.Serial('/dev/ttyVPA84', 9600, timeout=2)
b = serial.Serial('/dev/ttyVPB84', 9600, timeout=2)
a.rs485_mode = serial.rs485.RS485Settings(rts_level_for_tx=True, rts_level_for_rx=False,
                                          delay_before_tx=0.005, delay_before_rx=0.010)
flags, before, after = struct.unpack('III', fcntl.ioctl(a.fileno(), 0x542E, bytes(32))[:12])
if (flags, before, after) != (0x3, 5, 10):
    sys.exit('TIOCGRS485 after rs485_mode: flags %#x, delays %d %d; expected 0x3, 5 10' % (flags, before, after))
a.write(b'over rs-485\n')
a.flush()
line = b.readline()
if line != b'over rs-485\n':
    sys.exit('the peer read %r' % line)
time.sleep(0.1)
if b.cts:
    sys.exit('the peer still sees CTS after the transmission (RTS for receiving is off)')
print('pyserial rs485_mode: flags 0x3, delays 5 and 10 ms; a line crossed; RTS off after it')
EOF
}

# A libmodbus master in RS-485 mode (modbus_rtu_set_serial_mode) and a
# libmodbus slave on the other end, at 19200 with baud-rate emulation
t_tools_modbus_rs485() {
	echo 1 > /sys/class/tty/ttyVPA85/baud_emulation || return 1
	timeout 60 "$T/modbus-rs485" /dev/ttyVPA85 /dev/ttyVPB85 19200
	rc=$?
	echo 0 > /sys/class/tty/ttyVPA85/baud_emulation
	[ $rc != 124 ] || echo "modbus-rs485 timed out after 60 s"
	return $rc
}

# A Modbus RTU bus: one libmodbus master and three libmodbus slaves (units
# 1 to 3), each on its own port of one bus, 19200 8E1 with baud-rate
# emulation: 300 transactions; mbpoll, then pymodbus, as the master
# against the same slaves; then a fourth slave with the duplicate unit id
# 2: the two answers collide, and the master recovers on its next request
# (tests/guest/modbus-bus.c, pymodbus-master.py)
tools_bus_open() {
	_i=0
	for _d in "$@"; do
		until [ "$(cat "/sys/class/tty/${_d#/dev/}/open")" = 1 ]; do
			_i=$((_i + 1))
			[ "$_i" -lt 100 ] || { echo "$_d was not opened"; return 1; }
			sleep 0.1
		done
	done
}

t_tools_modbus_bus() {
	_bus=/sys/kernel/config/ttypair/buses/modbus
	mountpoint -q /sys/kernel/config || mount -t configfs configfs /sys/kernel/config || return 1
	mkdir "$_bus" && echo 5 > "$_bus/ports" && echo 1 > "$_bus/baud_emulation" || return 1
	# shellcheck disable=SC2046 # one device a word
	set -- $(sed 's|^|/dev/|' "$_bus/devices")
	m=$1 s1=$2 s2=$3 s3=$4 dup=$5
	"$T/modbus-bus" slaves 19200 "$s1" "$s2" "$s3" > /run/modbus-slaves.out 2>&1 &
	sp=$!
	rc=0
	tools_bus_open "$s1" "$s2" "$s3" || rc=1
	[ $rc != 0 ] || timeout 300 "$T/modbus-bus" master "$m" 19200 300 || rc=1
	if [ $rc = 0 ]; then
		sleep 0.1
		out=$(timeout 30 mbpoll -q -m rtu -b 19200 -P even -a 2 -t 4 -r 1 -c 5 -1 "$m" 2>&1)
		echo "$out"
		[ "$(echo "$out" | grep -c '^\[[1-5]\]: 	20[0-4]$')" = 5 ] ||
			{ echo "mbpoll did not read registers 200-204 of unit 2"; rc=1; }
	fi
	if [ $rc = 0 ]; then
		sleep 0.1
		timeout 120 python3 "$T/src/tests/guest/pymodbus-master.py" "$m" 19200 30 || rc=1
	fi
	kill "$sp"
	wait "$sp"
	cat /run/modbus-slaves.out
	if [ $rc = 0 ]; then
		"$T/modbus-bus" slaves 19200 "$s1" "$s2" "$s3" "$dup" > /run/modbus-slaves.out 2>&1 &
		sp=$!
		tools_bus_open "$s1" "$s2" "$s3" "$dup" || rc=1
		[ $rc != 0 ] || timeout 120 "$T/modbus-bus" collide "$m" 19200 || rc=1
		kill "$sp"
		wait "$sp"
		cat /run/modbus-slaves.out
	fi
	rmdir "$_bus" || rc=1
	return $rc
}

step tools_stty_roundtrip t_tools_stty_roundtrip
step tools_setserial t_tools_setserial
step tools_socat_pty_bridge t_tools_socat_pty_bridge
step tools_pyserial t_tools_pyserial
step tools_pyserial_rs485 t_tools_pyserial_rs485
step tools_modbus_rs485 t_tools_modbus_rs485
step tools_modbus_bus t_tools_modbus_bus
