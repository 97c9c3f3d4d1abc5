#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest tests of the session device, /dev/ttypair-session, as users meet it:
# its group and mode from the packages' udev rules, an ordinary user in the
# serial group making and using a pair of its own, a user outside it
# refused, the limits (max_sessions_per_user, max_pairs) and their module
# parameters at their bounds, and 1000 sessions without a leak. The tests
# as root of the ioctls and the lifetime are ttypair-test's session_*
# (session-tests.c). Sourced by guest-tests.sh after manage-tests.sh
# (mgmt_load, mgmt_udevd_start, mgmt_churn), with the module NOT loaded;
# leaves it unloaded. POSIX sh.

T=${T:-/opt/ttypair-tests}
SU=$T/src/tests/guest/session-user.py

# se_as USER-GROUPS COMMAND...: COMMAND as user 65534 with these
# supplementary groups ("" for none)
se_as() {
	_g=$1
	shift
	if [ -n "$_g" ]; then
		setpriv --reuid=65534 --regid=65534 --groups="$_g" "$@"
	else
		setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
	fi
}

# se_udev_load PARAMETERS...: the distribution's udevd with the packages'
# rules, and the module loaded with PARAMETERS, its devices settled
se_udev_load() {
	mgmt_udevd_start || return 1
	mgmt_load "$@" || { mgmt_udevd_stop; return 1; }
	udevadm settle -t 30
}

# The device node: the serial group, 0660, with the distribution's udevd;
# a member of it makes, uses and closes a pair; someone else may not open
# the device at all.
t_session_user() {
	se_udev_load pairs=2 || return 1
	p=$(stat -c '%G %a' /dev/ttypair-session) || { mgmt_udevd_stop; return 1; }
	[ "$p" = "dialout 660" ] ||
		{ echo "/dev/ttypair-session is '$p', expected 'dialout 660'"; mgmt_udevd_stop; return 1; }
	out=$(se_as dialout python3 "$SU" use 2>&1) ||
		{ echo "$out"; echo "a member of dialout could not use a session"; mgmt_udevd_stop; return 1; }
	echo "user 65534 in dialout: $out"
	out=$(se_as "" python3 "$SU" open 2>&1)
	[ "$out" = EACCES ] ||
		{ echo "user 65534 outside dialout: '$out', expected EACCES"; mgmt_udevd_stop; return 1; }
	echo "user 65534 outside dialout: $out"
	rmmod ttypair
	mgmt_udevd_stop
}
step session_device_for_serial_group t_session_user

# max_sessions_per_user is per user, max_pairs counts sessions too; a
# close gives its pair back. The parameter at and past its bounds.
t_session_limits() {
	mgmt_load pairs=2 max_pairs=4 max_sessions_per_user=2 || return 1
	chmod 666 /dev/ttypair-session	# no udevd here: let user 65534 in
	mkfifo /run/se.in 2>/dev/null
	se_as dialout python3 "$SU" hold 5 < /run/se.in > /run/se.user 2>&1 &
	holder=$!
	exec 7> /run/se.in
	i=0
	until grep -q made /run/se.user; do
		i=$((i + 1))
		[ $i -lt 100 ] || { cat /run/se.user; exec 7>&-; return 1; }
		sleep 0.1
	done
	got=$(cat /run/se.user)
	rc=0
	[ "$got" = "made 2 EDQUOT" ] || { echo "user 65534: '$got', expected 'made 2 EDQUOT'"; rc=1; }
	dmesg | grep -q "user 65534 has max_sessions_per_user=2 sessions" ||
		{ echo "no log line for the refused session"; rc=1; }
	# 2 pairs of pairs= and the user's 2: max_pairs=4 is reached for root
	out=$(python3 "$SU" open)
	[ "$out" = ENOSPC ] || { echo "root with 4 pairs of max_pairs=4: '$out', expected ENOSPC"; rc=1; }
	exec 7>&-
	wait $holder
	out=$(python3 "$SU" open)
	[ "$out" = ok ] || { echo "root after the user's sessions closed: '$out'"; rc=1; }
	rmmod ttypair
	[ $rc = 0 ] || return 1
	mgmt_load max_sessions_per_user=0 || return 1
	out=$(python3 "$SU" open)
	[ "$out" = EDQUOT ] || { echo "max_sessions_per_user=0: '$out', expected EDQUOT"; return 1; }
	rmmod ttypair
	mgmt_load max_sessions_per_user=1 || return 1
	out=$(python3 "$SU" hold 2 < /dev/null)
	[ "$out" = "made 1 EDQUOT" ] || { echo "max_sessions_per_user=1: '$out', expected 'made 1 EDQUOT'"; return 1; }
	rmmod ttypair
	mgmt_load max_sessions_per_user=1024 || return 1
	rmmod ttypair
	for v in 1025 2147483648 4294967295; do
		dmesg -C
		! modprobe ttypair max_sessions_per_user=$v 2>/dev/null ||
			{ echo "max_sessions_per_user=$v loaded"; rmmod ttypair; return 1; }
		dmesg | grep -q "max_sessions_per_user=$v is invalid" ||
			{ echo "no log line for max_sessions_per_user=$v"; return 1; }
	done
	! modprobe ttypair max_sessions_per_user=4294967296 2>/dev/null ||
		{ echo "max_sessions_per_user=4294967296 loaded"; rmmod ttypair; return 1; }
	echo "per user 2 then EDQUOT, max_pairs then ENOSPC, 0 refuses all, 1 allows one; 1024 loads, 1025, 2^31, 2^32-1 and 2^32 do not"
}
step session_limits t_session_limits

# 1000 sessions, every tenth with its A end open at the close: no leak
t_session_churn() {
	mgmt_churn session-churn "$T/ttypair-test --session-churn 1 > /dev/null"
}
step session_churn_1000 t_session_churn

# ttypairctl run as an ordinary user: the pair in $TTYPAIR_A/$TTYPAIR_B
# with the settings asked for, the command's status passed on, the pair
# gone when the command ends, is killed, or ttypairctl itself is killed;
# a refused setting makes no pair.
t_ctl_run() {
	CTL=$T/ttypairctl
	se_udev_load pairs=2 || return 1
	rc=0
	se_as dialout "$CTL" run baud_emulation=1 wiring_b=dcd=on -- sh -c '
		d=${TTYPAIR_A#/dev/}
		[ -r "$TTYPAIR_A" ] && [ -w "$TTYPAIR_B" ] || exit 3
		[ "$(cat /sys/class/tty/$d/baud_emulation)" = 1 ] || exit 4
		[ "$(cat /sys/class/tty/${TTYPAIR_B#/dev/}/wiring)" = "cts=rts dsr=dtr dcd=on ri=off" ] || exit 5
		[ "$d" = "ttyVPA$TTYPAIR_INDEX" ] || exit 6
		echo "$TTYPAIR_INDEX" > /tmp/run.idx
		exit 7' > /run/run.out 2>&1
	got=$?
	[ $got = 7 ] || { cat /run/run.out; echo "run as user 65534: status $got, expected 7"; rc=1; }
	idx=$(cat /tmp/run.idx 2>/dev/null)
	[ -n "$idx" ] && [ ! -e /sys/class/tty/ttyVPA$idx ] ||
		{ echo "pair '$idx' is still there after the command"; rc=1; }
	"$CTL" run -- sh -c 'echo $TTYPAIR_INDEX > /tmp/run.idx; kill -9 $$'
	got=$?
	idx=$(cat /tmp/run.idx)
	[ $got = 137 ] || { echo "a command killed by SIGKILL: status $got, expected 137"; rc=1; }
	[ ! -e /sys/class/tty/ttyVPA$idx ] || { echo "pair $idx still there after its command was killed"; rc=1; }
	rm -f /tmp/run.idx
	"$CTL" run -- sh -c 'echo $$ > /tmp/run.pid; echo $TTYPAIR_INDEX > /tmp/run.idx; exec sleep 60' &
	ctl=$!
	i=0
	until [ -s /tmp/run.idx ]; do
		i=$((i + 1)); [ $i -lt 100 ] || break; sleep 0.1
	done
	idx=$(cat /tmp/run.idx)
	# what list and delete say of a session's pair
	[ "$(cat /sys/class/tty/ttyVPA$idx/kind)" = session ] || { echo "kind of pair $idx: not session"; rc=1; }
	"$CTL" list --json | python3 -c '
import json, sys
p = [p for p in json.load(sys.stdin)["pairs"] if p["index"] == int(sys.argv[1])][0]
assert p["session"] is True and p["static"] is False and p["name"] is None, p' "$idx" ||
		{ echo "list --json: pair $idx is not a session"; rc=1; }
	out=$("$CTL" delete ttyVPA$idx 2>&1)
	[ $? = 1 ] && case $out in *"a session of /dev/ttypair-session"*) true ;; *) false ;; esac ||
		{ echo "$out"; echo "delete of a session's pair: not refused as a session's"; rc=1; }
	kill -9 $ctl
	wait $ctl 2>/dev/null
	i=0
	while [ -e /sys/class/tty/ttyVPA$idx ]; do
		i=$((i + 1)); [ $i -lt 50 ] || { echo "pair $idx outlived a killed ttypairctl"; rc=1; break; }
		sleep 0.1
	done
	kill "$(cat /tmp/run.pid)" 2>/dev/null
	out=$("$CTL" run strict=2 -- true 2>&1)
	got=$?
	[ $got = 1 ] || { echo "$out"; echo "run strict=2: status $got, expected 1"; rc=1; }
	[ ! -e /sys/class/tty/ttyVPA2 ] || { echo "a refused setting left a pair"; rc=1; }
	"$CTL" run 2>/dev/null
	[ $? = 2 ] || { echo "run without a command: not a usage error"; rc=1; }
	"$CTL" run -- /nonexistent/command 2>/dev/null
	[ $? = 127 ] || { echo "run of a command that does not exist: not 127"; rc=1; }
	rmmod ttypair
	mgmt_udevd_stop
	[ $rc = 0 ] && echo "run: status 7 passed on, the pair gone after exit, SIGKILL of the command (137) and of ttypairctl; strict=2 refused (1)"
	return $rc
}
step ttypairctl_run t_ctl_run

# ttypairctl monitor on a named pair, as text and as JSON: the data each
# way, an open, a speed change; it ends by itself when the pair is
# removed; someone else may not watch it
t_ctl_monitor() {
	CTL=$T/ttypairctl
	mgmt_load pairs=1 || return 1
	out=$("$CTL" create mon) || { echo "$out"; return 1; }
	a=/dev/ttyVPA1 b=/dev/ttyVPB1
	"$CTL" monitor mon --output /run/mon.txt &
	m1=$!
	"$CTL" monitor 1 --json --duration 20 > /run/mon.json &
	m2=$!
	sleep 1
	exec 5<> $b
	stty -F $b raw -echo 19200 && stty -F $a raw -echo || return 1
	printf hello > $a
	dd bs=5 count=1 <&5 > /dev/null 2>&1
	printf 'world!' >&5
	sleep 1
	exec 5>&-
	"$CTL" delete mon || return 1
	i=0
	while kill -0 $m1 2>/dev/null; do
		i=$((i + 1)); [ $i -lt 50 ] || { echo "monitor did not end with the pair"; kill $m1; return 1; }
		sleep 0.1
	done
	wait $m1 || { echo "monitor exited with $?"; return 1; }
	wait $m2
	cat /run/mon.txt
	grep -q ' A 68 65 6C 6C 6F .*hello$' /run/mon.txt || { echo "no line of A's hello"; return 1; }
	grep -q ' B 77 6F 72 6C 64 21 .*world!$' /run/mon.txt || { echo "no line of B's world!"; return 1; }
	grep -q ' B -- line 19200 8N1' /run/mon.txt || { echo "no line settings of B at 19200"; return 1; }
	grep -q ' A -- open$' /run/mon.txt || { echo "no open of A"; return 1; }
	python3 -c '
import json, sys
recs = [json.loads(l) for l in open("/run/mon.json")]
data = [(r["port"], bytes.fromhex(r["data"])) for r in recs if r["type"] == "data"]
assert ("A", b"hello") in data and ("B", b"world!") in data, data
assert [r["seq"] for r in recs] == list(range(len(recs))), "seq"
assert recs[-1]["type"] == "removed", recs[-1]
print("json: %d records, data %s" % (len(recs), data))' || return 1
	out=$(ctl_as_nobody "$CTL" monitor 0 2>&1)
	[ $? = 4 ] || { echo "$out"; echo "user 65534 monitoring pair 0: not status 4"; return 1; }
	rmmod ttypair
}
step ttypairctl_monitor t_ctl_monitor

# The Python package (python/ttypair) with its own tests, by pytest and
# pyserial, as user 65534 in dialout; and a pytest suite under
# ttypairctl run: it passes, and the pair is gone afterwards, also when
# the suite is killed
t_python() {
	CTL=$T/ttypairctl
	se_udev_load pairs=0 || return 1
	rc=0
	cd /tmp || return 1
	se_as dialout env PYTHONPATH="$T/src/python" python3 -m pytest -q -p no:cacheprovider \
		"$T/src/python/tests" > /run/pytest.out 2>&1 ||
		{ cat /run/pytest.out; echo "the Python package's tests failed"; rc=1; }
	tail -n 1 /run/pytest.out
	se_as dialout "$CTL" run baud_emulation=1 -- python3 -m pytest -q -p no:cacheprovider \
		"$T/src/tests/guest/pytest-run" > /run/pytest-run.out 2>&1 ||
		{ cat /run/pytest-run.out; echo "pytest under ttypairctl run failed"; rc=1; }
	tail -n 1 /run/pytest-run.out
	rm -f /tmp/hang.idx
	se_as dialout env TTYPAIR_HANG=/tmp/hang.idx "$CTL" run -- python3 -m pytest -q \
		-p no:cacheprovider -k hangs "$T/src/tests/guest/pytest-run" > /dev/null 2>&1 &
	ctl=$!
	i=0
	until [ -s /tmp/hang.idx ]; do
		i=$((i + 1)); [ $i -lt 200 ] || { echo "the hanging suite did not start"; rc=1; break; }
		sleep 0.1
	done
	idx=$(cat /tmp/hang.idx 2>/dev/null)
	pkill -9 -f "^python3 -m pytest -q -p no:cacheprovider -k hangs"
	wait $ctl
	got=$?
	[ $got = 137 ] || { echo "the killed suite: ttypairctl run's status $got, expected 137"; rc=1; }
	[ -n "$idx" ] && [ ! -e /sys/class/tty/ttyVPA$idx ] ||
		{ echo "pair '$idx' is still there after the suite was killed"; rc=1; }
	cd / || return 1
	rmmod ttypair
	mgmt_udevd_stop
	return $rc
}
step python_package_and_pytest t_python
