#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The tests that run inside the guest: module loading and unloading, module
# parameters, and the functional tests of ttypair-test. Each test prints
# "ok - NAME" or "not ok - NAME: reason"; the host counts them.
T=/opt/ttypair-tests
VERSION=$(cat "$T/expected-version")
. "$T/env"
KVER=$(uname -r)
PAIRS=113	# pairs= for the functional tests: one pair per test

. "$T/tap.sh"

loaded() { [ -d /sys/module/ttypair ]; }
nodes() { ls /dev | grep -c "^ttyVP[AB][0-9]" ; }

echo "# kernel $KVER, module $(modinfo -F filename ttypair 2>&1)"

# Smoke mode (the package tests): load the module dkms built for this
# kernel, move data through a pair, unload.
if [ "${TTYPAIR_GUEST_MODE:-}" = smoke ]; then
	t_smoke() {
		modprobe ttypair || return 1
		v=$(cat /sys/module/ttypair/version)
		[ "$v" = "$VERSION" ] || { echo "module version $v, expected $VERSION"; return 1; }
		"$T/ttypair-test" --pairs 4 pairing integrity_bidirectional || return 1
		rmmod ttypair
	}
	step smoke_modprobe_transfer_rmmod t_smoke
	exit 0
fi

# Benchmark mode (make bench): the measurements, nothing else.
if [ "${TTYPAIR_GUEST_MODE:-}" = bench ]; then
	. "$T/bench-run.sh"
	echo "# kernel $KVER, $(nproc) CPUs"
	bench_run && echo "BENCH done"
	exit 0
fi

# --- loading with the defaults ------------------------------------------
t_load_default() {
	modprobe ttypair || return 1
	p=$(cat /sys/module/ttypair/parameters/pairs)
	[ "$p" = 4 ] || { echo "pairs parameter reads $p, expected 4"; return 1; }
	udevadm settle 2>/dev/null
	n=$(nodes)
	[ "$n" = 8 ] || { echo "$n device nodes, expected 8"; return 1; }
	for i in 0 1 2 3; do
		[ -c /dev/ttyVPA$i ] && [ -c /dev/ttyVPB$i ] ||
			{ echo "/dev/ttyVPA$i or /dev/ttyVPB$i missing"; return 1; }
	done
	[ ! -e /dev/ttyVPA4 ] || { echo "/dev/ttyVPA4 exists"; return 1; }
	v=$(cat /sys/module/ttypair/version)
	[ "$v" = "$VERSION" ] || { echo "module version $v, expected $VERSION"; return 1; }
	dmesg | grep -q "ttypair: version $VERSION loaded, 4 pairs" ||
		{ echo "no load message in the kernel log"; return 1; }
}
step module_load_default t_load_default

t_unload() {
	rmmod ttypair || return 1
	! loaded || { echo "still loaded after rmmod"; return 1; }
	[ "$(nodes)" = 0 ] || { echo "device nodes left after unload"; return 1; }
	dmesg | grep -q "ttypair: unloaded" || { echo "no unload message"; return 1; }
}
step module_unload t_unload

# --- module signatures, as under Secure Boot -----------------------------
# The certificate that `make install` tells the user to enrol (the one
# dkms signs with: scripts/install-lib.sh) must be the one that signed the
# module dkms built. A kernel that enforces signatures (the debug kernel's
# guest boots with module.sig_enforce=1 and trusts only its own key, which
# tests/target.sh gave dkms) loads that module, and refuses a copy without
# its signature and one signed with a key it does not trust.
t_signatures() {
	ko=$(modinfo -k "$KVER" -F filename ttypair) || return 1
	case $ko in
	*.xz) xz -dc "$ko" > /tmp/ttypair.ko ;;
	*.zst) zstd -qdc "$ko" > /tmp/ttypair.ko ;;
	*.gz) gzip -dc "$ko" > /tmp/ttypair.ko ;;
	*) cp "$ko" /tmp/ttypair.ko ;;
	esac
	signer=$(modinfo -F signer /tmp/ttypair.ko)
	echo "$ko: signer '$signer', $(modinfo -F sig_hashalgo /tmp/ttypair.ko)"
	enforced=$(cat /sys/module/module/parameters/sig_enforce 2>/dev/null)
	if ! grep -q '~Module signature appended~' /tmp/ttypair.ko; then
		[ "$enforced" != Y ] || { echo "dkms did not sign ttypair"; return 1; }
		echo "dkms $(dpkg-query -W -f '${Version}' dkms) did not sign ttypair: nothing to compare"
		return "$TAP_SKIP"
	fi
	cert=$(. /root/ttypair-src/scripts/install-lib.sh && mok_certificate "$KVER") || return 1
	cn=$(openssl x509 -inform DER -in "$cert" -noout -subject -nameopt multiline 2>/dev/null |
		sed -n 's/^ *commonName *= *//p')
	[ -n "$cn" ] || cn=$(openssl x509 -in "$cert" -noout -subject -nameopt multiline |
		sed -n 's/^ *commonName *= *//p')
	echo "make install names $cert, whose subject is '$cn'"
	[ -n "$signer" ] && [ "$signer" = "$cn" ] ||
		{ echo "ttypair is signed by '$signer', not by the key of $cert"; return 1; }
	[ "$enforced" = Y ] || return 0

	# the kernel enforces: the signed module loads, untainted
	modprobe ttypair || { echo "the signed module was refused"; return 1; }
	taint=$(cat /sys/module/ttypair/taint)
	rmmod ttypair || return 1
	case $taint in *E*) echo "ttypair loaded as unsigned (taint $taint)"; return 1 ;; esac
	refused() {	# refused FILE WHAT
		if out=$(insmod "$1" 2>&1); then
			rmmod ttypair
			echo "the kernel loaded $2"
			return 1
		fi
		echo "insmod of $2: $out; $(dmesg | grep 'Loading of .* is rejected' | tail -n 1)"
		case $out in
		*"Key was rejected"*) ;;
		*) echo "$2 was refused, but not for its signature"; return 1 ;;
		esac
	}
	# strip drops the appended signature
	cp /tmp/ttypair.ko /tmp/unsigned.ko && strip -g /tmp/unsigned.ko || return 1
	! grep -q '~Module signature appended~' /tmp/unsigned.ko || { echo "strip kept the signature"; return 1; }
	refused /tmp/unsigned.ko "an unsigned ttypair" || return 1
	# signed, by a key that no one enrolled
	openssl req -new -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=ttypair untrusted" \
		-keyout /tmp/untrusted.key -outform DER -out /tmp/untrusted.der 2>/dev/null || return 1
	cp /tmp/unsigned.ko /tmp/untrusted.ko &&
		"/lib/modules/$KVER/build/scripts/sign-file" sha256 /tmp/untrusted.key \
		/tmp/untrusted.der /tmp/untrusted.ko || return 1
	refused /tmp/untrusted.ko "a ttypair signed with an unknown key" || return 1
	rm -f /tmp/ttypair.ko /tmp/unsigned.ko /tmp/untrusted.*
}
step module_signature_enforced t_signatures

# --- bad and boundary values of pairs= -----------------------------------
t_bad_param() {
	for v in 1025 100000 -1 abc 4x ""; do
		case $v in
		"" | *[!0-9-]*)	# not a number: the kernel's parser refuses it
			want="ttypair: \`$v' invalid for parameter \`pairs'" ;;
		*)	want="ttypair: pairs=$v is invalid: expected a number from 0 to 1024" ;;
		esac
		dmesg -C
		if out=$(modprobe ttypair pairs="$v" 2>&1); then
			echo "pairs=$v was accepted"
			rmmod ttypair
			return 1
		fi
		echo "$out" | grep -q "Invalid argument" ||
			{ echo "pairs=$v: modprobe said: $out"; return 1; }
		! loaded || { echo "loaded after pairs=$v"; return 1; }
		lines=$(dmesg | grep 'ttypair')
		[ "$lines" != "${lines#*"$want"}" ] && [ "$(echo "$lines" | wc -l)" = 1 ] ||
			{ echo "pairs=$v: expected the one log line '$want', got:"; echo "$lines"; return 1; }
	done
}
step module_param_pairs_invalid t_bad_param

t_param_bounds() {
	modprobe ttypair pairs=0 || { echo "pairs=0 refused"; return 1; }
	[ "$(nodes)" = 0 ] || { echo "pairs=0 made devices"; return 1; }
	rmmod ttypair || return 1
	modprobe ttypair pairs=1024 || { echo "pairs=1024 refused"; return 1; }
	udevadm settle 2>/dev/null
	[ "$(nodes)" = 2048 ] || { echo "pairs=1024 made $(nodes) nodes, expected 2048"; return 1; }
	[ -c /dev/ttyVPA1023 ] && [ -c /dev/ttyVPB1023 ] || { echo "no ttyVPA1023/ttyVPB1023"; return 1; }
	rmmod ttypair
}
step module_param_pairs_bounds t_param_bounds

# load_refused PARAM TEXT: modprobe with PARAM fails, nothing stays loaded,
# and the kernel log has a ttypair line containing TEXT
load_refused() {
	dmesg -C
	if modprobe ttypair "$1" 2>/dev/null; then
		echo "$1 was accepted"
		rmmod ttypair
		return 1
	fi
	! loaded || { echo "loaded after $1"; return 1; }
	dmesg | grep 'ttypair: ' | grep -qF "$2" ||
		{ echo "$1: no log line '$2'"; dmesg | tail -n 3; return 1; }
}

# The numeric parameters at the limits of their types: the module's own
# check says why for numbers the kernel could parse, the kernel's parser
# for numbers the type cannot hold; nothing is loaded either way.
t_param_number_limits() {
	for pv in pairs=1025:own pairs=2147483647:own pairs=2147483648:kernel \
		pairs=4294967295:kernel pairs=-2147483648:own pairs=-2147483649:kernel \
		max_pairs=0:own max_pairs=3:own max_pairs=1025:own \
		max_pairs=2147483648:own max_pairs=4294967295:own \
		max_pairs=4294967296:kernel max_pairs=-1:kernel; do
		p=${pv%:*} who=${pv##*:} name=${p%%=*} v=${p#*=}
		case $who in
		own) want="ttypair: $name=$v is invalid" ;;
		*) want="ttypair: \`$v' invalid for parameter \`$name'" ;;
		esac
		load_refused "$p" "$want" || return 1
	done
	modprobe ttypair pairs=0 max_pairs=0 || { echo "pairs=0 max_pairs=0 refused"; return 1; }
	rmmod ttypair || return 1
	modprobe ttypair pairs=2 max_pairs=2 || { echo "pairs=2 max_pairs=2 refused"; return 1; }
	rmmod ttypair
}
step module_param_number_limits t_param_number_limits

# A load whose last step fails (here ttypair's configfs registration: a
# test module holds the name) fails before any device became visible:
# udev or ModemManager could open one, and a failed load frees the code
# an open tty would still run.
t_load_fails_early() {
	sq=$T/squatter/$KVER/ttypair_squatter.ko
	[ -f "$sq" ] || { echo "no $sq"; return 1; }
	modprobe configfs 2>/dev/null	# insmod loads no dependency
	insmod "$sq" || return 1
	dmesg -C
	timeout 60 stdbuf -oL udevadm monitor --kernel --subsystem-match=tty > /run/uevents.out 2>&1 &
	mon=$!
	i=0
	until grep -q "KERNEL - the kernel uevent" /run/uevents.out; do
		i=$((i + 1))
		[ $i -lt 100 ] || { echo "udevadm monitor did not start"; kill $mon; rmmod ttypair_squatter; return 1; }
		sleep 0.1
	done
	out=$(modprobe ttypair pairs=4 2>&1)
	rc=$?
	sleep 1		# the monitor prints what the kernel sent meanwhile
	if grep ' add .*/ttyVP' /run/uevents.out; then
		echo "devices appeared during the failed load"
		kill $mon
		rmmod ttypair 2>/dev/null
		rmmod ttypair_squatter
		return 1
	fi
	# (EEXIST from the kernel would make modprobe report success)
	if [ $rc = 0 ] || loaded; then
		echo "modprobe reported success with configfs's name taken ($out)"
		kill $mon
		rmmod ttypair 2>/dev/null
		rmmod ttypair_squatter
		return 1
	fi
	echo "modprobe: $out"
	case $out in
	*"Device or resource busy"*) ;;
	*) echo "modprobe did not say that the name is busy"; kill $mon; rmmod ttypair_squatter; return 1 ;;
	esac
	# and a load that works, which the same monitor must see
	rmmod ttypair_squatter || { kill $mon; return 1; }
	modprobe ttypair pairs=1 || { kill $mon; return 1; }
	i=0
	until grep -q "add .*/ttyVPB0 (tty)" /run/uevents.out; do
		i=$((i + 1))
		[ $i -lt 100 ] || { echo "the monitor saw no device of a good load"; break; }
		sleep 0.1
	done
	kill $mon
	wait $mon
	cat /run/uevents.out
	[ "$(grep -c ' add .*/ttyVP' /run/uevents.out)" = 2 ] ||
		{ echo "devices appeared during the failed load"; rmmod ttypair; return 1; }
	rmmod ttypair || return 1
	dmesg | grep -q "ttypair: registering with configfs failed: -17" ||
		{ echo "no log line of the failed configfs registration"; return 1; }
}
step module_load_fails_before_devices t_load_fails_early

# --- bad values of the other parameters ---------------------------------
t_bad_settings_params() {
	for p in wiring=cts=bogus wiring=xyz=rts wiring=cts=rts,cts=dtr \
		wiring=, baud_emulation=maybe strict=2; do
		load_refused "$p" "invalid" || return 1
	done
}
step module_param_settings_invalid t_bad_settings_params

t_settings_params() {
	modprobe ttypair pairs=1 "wiring=dcd=!open,ri=on" baud_emulation=1 strict=1 ||
		return 1
	w=$(cat /sys/module/ttypair/parameters/wiring)
	[ "$w" = "cts=rts dsr=dtr dcd=!open ri=on" ] ||
		{ echo "wiring parameter reads '$w'"; rmmod ttypair; return 1; }
	udevadm settle 2>/dev/null
	for e in A B; do
		w=$(cat /sys/class/tty/ttyVP${e}0/wiring)
		b=$(cat /sys/class/tty/ttyVP${e}0/baud_emulation)
		s=$(cat /sys/class/tty/ttyVP${e}0/strict)
		[ "$w $b $s" = "cts=rts dsr=dtr dcd=!open ri=on 1 1" ] ||
			{ echo "ttyVP${e}0 starts with '$w' $b $s"; rmmod ttypair; return 1; }
	done
	rmmod ttypair
}
step module_param_settings t_settings_params

# --- the functional tests ------------------------------------------------
t_load_pairs() {
	modprobe ttypair pairs=$PAIRS || return 1
	udevadm settle 2>/dev/null
	[ "$(nodes)" = $((PAIRS * 2)) ] || { echo "$(nodes) device nodes"; return 1; }
}
step module_load_pairs t_load_pairs
if loaded; then
	if [ -n "${TTYPAIR_GUEST_ONLY:-}" ]; then
		# shellcheck disable=SC2046 # one name a word
		set -- $("$T/ttypair-test" --list | while read -r t; do
			! guest_only "$t" || echo "$t"
		done)
		[ $# = 0 ] || "$T/ttypair-test" --pairs $PAIRS "$@"
	else
		"$T/ttypair-test" --pairs $PAIRS
	fi
	echo "# ttypair-test exited with $?"
	# Real programs against the ports: stty, setserial, socat, pyserial
	. "$T/serial-tools.sh"
fi

# Runs of the transmit timers of both ends of pair $1, from the module's
# own counters: enabling a tracepoint while guests run patches kernel text
# across CPUs, which once left a TCG guest's other CPU never answering.
timer_runs() {
	echo $(($(cat /sys/class/tty/ttyVPA$1/timer_runs) + \
		$(cat /sys/class/tty/ttyVPB$1/timer_runs)))
}

# --- a full pair whose reader is idle costs nothing (pairs 96 to 111) -----
t_idle_wakeups() {
	loaded || { echo "the module did not load"; return 1; }
	"$T/ttypair-idle" --first 96 --pairs 16 --seconds 10 > /run/idle.out 2>&1 ||
		{ cat /run/idle.out; return 1; }
	awk '$1 == "BENCH" && $NF != 0 { print "not idle: " $0; bad = 1 }
	     END { exit bad }' /run/idle.out || { tail -n 1 /run/idle.out; return 1; }
	cat /run/idle.out
	# The counter counts: 10 characters at 9600 baud run the timer.
	n0=$(timer_runs 96)
	echo 1 > /sys/class/tty/ttyVPA96/baud_emulation || return 1
	stty -F /dev/ttyVPB96 raw -echo 9600 &&
		stty -F /dev/ttyVPA96 raw -echo 9600 &&
		timeout 10 sh -c 'exec 3< /dev/ttyVPB96; printf 0123456789 > /dev/ttyVPA96' &&
		n=$(($(timer_runs 96) - n0))
	rc=$?
	echo 0 > /sys/class/tty/ttyVPA96/baud_emulation
	[ $rc = 0 ] && [ "$n" -gt 0 ] ||
		{ echo "10 characters at 9600 baud: timer_runs went up by ${n:-?}"; return 1; }
	echo "10 characters at 9600 baud: $n runs of the timer"
}
step idle_writers_no_wakeups t_idle_wakeups

# --- a reader whose line discipline never throttles: SLIP (pair 112) -----
# Its writer is woken each time the reader's line discipline takes bytes
# (n_tty's unthrottle never comes): 8 MiB go through without a timer.
t_nothrottle_reader() {
	loaded || { echo "the module did not load"; return 1; }
	modprobe -q slip 2>/dev/null ||
		{ echo "this kernel has no SLIP line discipline"; return $TAP_SKIP; }
	python3 -c '
import fcntl, os, struct, sys, termios, time
fd = os.open("/dev/ttyVPB112", os.O_RDWR | os.O_NOCTTY)
fcntl.ioctl(fd, termios.TIOCSETD, struct.pack("i", 1))	# N_SLIP
print("attached", flush=True)
time.sleep(600)' > /run/slip.out 2>&1 &
	slip=$!
	i=0
	until grep -q attached /run/slip.out; do
		i=$((i + 1))
		[ $i -lt 100 ] || { cat /run/slip.out; kill $slip; return 1; }
		sleep 0.1
	done
	stty -F /dev/ttyVPA112 raw -echo || { kill $slip; return 1; }
	rx0=$(cat /sys/class/tty/ttyVPB112/rx_bytes)	# pairing wrote to every pair
	n0=$(timer_runs 112)
	t0=$(date +%s%N)
	timeout 120 dd if=/dev/zero of=/dev/ttyVPA112 bs=4096 count=2048 2> /run/dd.err
	rc=$?
	t1=$(date +%s%N)
	n=$(($(timer_runs 112) - n0))
	kill $slip
	wait $slip 2> /dev/null
	[ $rc = 0 ] || { cat /run/dd.err; echo "8 MiB to a SLIP reader: dd stopped ($rc)"; return 1; }
	rx=$(($(cat /sys/class/tty/ttyVPB112/rx_bytes) - rx0))
	[ "$rx" = 8388608 ] || { echo "the SLIP end received $rx bytes of 8388608"; return 1; }
	[ "$n" = 0 ] || { echo "$n runs of ttypair's timers during the transfer"; return 1; }
	echo "8 MiB to a SLIP reader in $(( (t1 - t0) / 1000000 )) ms, runs of ttypair's timers: $n"
}
step nothrottle_reader_wakes_writer t_nothrottle_reader

# --- unloading while a port is open --------------------------------------
t_rmmod_busy() {
	"$T/ttypair-test" --hold /dev/ttyVPB2 > /run/hold.out &
	hold=$!
	i=0
	while ! grep -q held /run/hold.out 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 100 ] || { echo "holder did not open the port"; kill $hold; return 1; }
		sleep 0.1
	done
	ref=$(cat /sys/module/ttypair/refcnt)
	[ "$ref" -ge 1 ] || { echo "refcnt $ref with a port open"; kill $hold; return 1; }
	if out=$(rmmod ttypair 2>&1); then
		echo "rmmod succeeded with /dev/ttyVPB2 open"
		kill $hold
		return 1
	fi
	echo "$out" | grep -q "in use" || { echo "rmmod said: $out"; kill $hold; return 1; }
	loaded || { echo "module gone"; kill $hold; return 1; }
	# the raw system call: refused while in use
	if "$T/ttypair-test" --delete-module; then
		echo "delete_module succeeded with /dev/ttyVPB2 open"
		kill $hold
		return 1
	fi
	[ -c /dev/ttyVPA2 ] || { echo "devices gone after the refused unload"; kill $hold; return 1; }
	kill $hold
	wait $hold
	rmmod ttypair || { echo "rmmod failed after the port was closed"; return 1; }
	! loaded || { echo "still loaded"; return 1; }
	[ "$(nodes)" = 0 ] || { echo "device nodes left"; return 1; }
}
step module_rmmod_busy_then_free t_rmmod_busy

t_reload() {
	for i in 1 2 3; do
		modprobe ttypair pairs=2 || return 1
		"$T/ttypair-test" --pairs 2 pairing > /run/reload.out 2>&1 ||
			{ cat /run/reload.out; return 1; }
		grep -q "^ok - pairing" /run/reload.out || { cat /run/reload.out; return 1; }
		rmmod ttypair || return 1
	done
}
step module_reload_cycles t_reload

# --- run-time pair management: configfs, device attributes, churn ---------
. "$T/manage-tests.sh"
# --- how programs find the ports: bus device, enumerators, udev identity --
. "$T/enum-tests.sh"
# --- ttypairctl against the real module ----------------------------------
. "$T/ttypairctl-test.sh"
# --- the session device, as an ordinary user -----------------------------
. "$T/session-tests.sh"
# --- the README's blocks and the recipes of docs/recipes.md, run as written
. "$T/recipes-test.sh"
# --- stress, fuzzing and the integrity soak -------------------------------
. "$T/reliability-tests.sh"
# --- a short run of the benchmarks (make bench runs the long one) --------
. "$T/bench-run.sh"
step bench_smoke t_bench_smoke
[ ! -f /run/bench.out ] || sed 's/^/# /' /run/bench.out
