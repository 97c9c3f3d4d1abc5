#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest tests of ttypairctl (utils/ttypairctl.c) against the real module
# (the manual pages are checked on the host). Sourced by the guest test driver after tap.sh
# and manage-tests.sh (mgmt_load, mgmt_reset), with the module NOT loaded;
# leaves it unloaded. Expects $T/ttypairctl. POSIX sh; every test runs in the subshell of `step`.

T=${T:-/opt/ttypair-tests}
CTL=$T/ttypairctl
CFG=/sys/kernel/config/ttypair

# shellcheck source=/dev/null # tap.sh: tests/lib/tap.sh, installed beside this file
command -v step >/dev/null 2>&1 || . "$T/tap.sh"

# mgmt_load and mgmt_reset: from manage-tests.sh, which guest-tests.sh
# sources first (one copy of them)
# ctl_expect STATUS TEXT COMMAND...: COMMAND exits with STATUS, and what it
# prints (standard output and error together) contains TEXT
ctl_expect() {
	_ce_want=$1
	_ce_text=$2
	shift 2
	_ce_out=$("$@" 2>&1)
	_ce_rc=$?
	if [ "$_ce_rc" != "$_ce_want" ]; then
		echo "$_ce_out"
		echo "'$*' exited with $_ce_rc, expected $_ce_want"
		return 1
	fi
	case $_ce_out in
	*"$_ce_text"*) ;;
	*) echo "'$*' said '$_ce_out', expected '$_ce_text'"; return 1 ;;
	esac
}

# ctl_as_nobody COMMAND...: COMMAND as user and group 65534, no other groups
ctl_as_nobody() {
	if command -v setpriv >/dev/null 2>&1; then
		setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
	else
		# su needs one command line: the arguments here have no spaces
		su nobody -s /bin/sh -c "$*"
	fi
}

# ctl_counter PAIR END COLUMN: one counter of `ttypairctl stats` (columns
# END DEVICE OPEN RX TX DISCARDED INJECTED: 3 open, 4 rx, 5 tx, ...)
ctl_counter() {
	"$CTL" stats "$1" | awk -v e="$2" -v c="$3" '$1 == e { print $c }'
}

t_ctl_create_list_delete() {
	[ -x "$CTL" ] || { echo "no $CTL"; return 1; }
	mgmt_load pairs=2 || return 1
	out=$("$CTL" create ctltest wiring_b=dcd=on baud_emulation=1 strict=1 \
		noise_ppm=0 noise_seed=42 2>&1) || { echo "$out"; echo "create failed"; return 1; }
	[ "$out" = "ctltest: /dev/ttyVPA2 <-> /dev/ttyVPB2" ] ||
		{ echo "create printed '$out', expected 'ctltest: /dev/ttyVPA2 <-> /dev/ttyVPB2'"; return 1; }
	udevadm settle 2>/dev/null
	[ -c /dev/ttyVPA2 ] && [ -c /dev/ttyVPB2 ] || { echo "no /dev/ttyVPA2 or /dev/ttyVPB2"; return 1; }
	# the settings reached the module
	w=$(cat "$CFG/ctltest/wiring_b")
	[ "$w" = "cts=rts dsr=dtr dcd=on ri=off" ] || { echo "wiring_b is '$w'"; return 1; }
	s="$(cat /sys/class/tty/ttyVPA2/baud_emulation) $(cat /sys/class/tty/ttyVPA2/strict)"
	s="$s $(cat /sys/class/tty/ttyVPA2/noise_seed)"
	[ "$s" = "1 1 42" ] || { echo "baud_emulation strict noise_seed: $s, expected 1 1 42"; return 1; }

	# set: a named pair (configfs) and a static one (sysfs), several at once
	"$CTL" set ctltest noise_ppm=250 'wiring_a=ri=!open' || { echo "set ctltest failed"; return 1; }
	[ "$(cat /sys/class/tty/ttyVPB2/noise_ppm)" = 250 ] || { echo "noise_ppm not set"; return 1; }
	w=$(cat /sys/class/tty/ttyVPA2/wiring)
	[ "$w" = "cts=rts dsr=dtr dcd=dtr ri=!open" ] || { echo "wiring of A is '$w'"; return 1; }
	"$CTL" set ttyVPB0 strict=1 || { echo "set ttyVPB0 failed"; return 1; }
	[ "$(cat /sys/class/tty/ttyVPA0/strict)" = 1 ] || { echo "strict of static pair 0 not set"; return 1; }
	"$CTL" set /dev/ttyVPA0 strict=0 wiring=dcd=on || { echo "set /dev/ttyVPA0 failed"; return 1; }
	[ "$(cat /sys/class/tty/ttyVPB0/strict)" = 0 ] &&
		[ "$(cat /sys/class/tty/ttyVPB0/wiring)" = "cts=rts dsr=dtr dcd=on ri=off" ] &&
		[ "$(cat /sys/class/tty/ttyVPA0/wiring)" = "cts=rts dsr=dtr dcd=on ri=off" ] ||
		{ echo "set /dev/ttyVPA0 strict=0 wiring=dcd=on did not apply"; return 1; }
	# rs485: one end of a named pair, both ends of a static one
	"$CTL" set ctltest 'rs485_b=enabled rts_after_send delay_rts_after_send=7' ||
		{ echo "set ctltest rs485_b failed"; return 1; }
	r=$(cat /sys/class/tty/ttyVPB2/rs485)
	[ "$r" = "enabled rts_after_send delay_rts_before_send=0 delay_rts_after_send=7" ] &&
		[ "$(cat /sys/class/tty/ttyVPA2/rs485)" = disabled ] ||
		{ echo "rs485_b gave B '$r', A '$(cat /sys/class/tty/ttyVPA2/rs485)'"; return 1; }
	"$CTL" set ttyVPA0 'rs485=enabled rts_on_send' && "$CTL" set ttyVPA0 rs485=disabled ||
		{ echo "set ttyVPA0 rs485 failed"; return 1; }
	[ "$(cat /sys/class/tty/ttyVPB0/rs485)" = disabled ] || { echo "rs485=disabled did not apply"; return 1; }
	ctl_expect 1 "refused" "$CTL" set ctltest rs485_a=rts_on_send || return 1
	ctl_expect 1 "refused" "$CTL" set ctltest 'rs485_a=enabled delay_rts_before_send=4294967296' || return 1
	[ "$(cat /sys/class/tty/ttyVPA2/rs485)" = disabled ] || { echo "a refused rs485 changed A"; return 1; }
	"$CTL" set ctltest rs485_b=disabled || return 1

	# list: the static pairs and this one, its devices and settings
	list=$("$CTL" list) || { echo "$list"; echo "list failed"; return 1; }
	echo "$list"
	# PAIR NAME BAUD STRICT NOISE_PPM END DEVICE OPEN RX TX DISCARDED INJECTED WIRING
	la=$(echo "$list" | awk '$2 == "ctltest" { print $1, $2, $3, $4, $5, $6, $7 }')
	[ "$la" = "2 ctltest on on 250 a ttyVPA2" ] || { echo "list line of ctltest: '$la'"; return 1; }
	lb=$(echo "$list" | grep -A 1 ' ctltest ' | tail -n 1)
	case $lb in
	*" b "*"ttyVPB2 "*"dcd=on"*) ;;
	*) echo "second line of ctltest: '$lb'"; return 1 ;;
	esac
	echo "$list" | grep -Eq '^ *0 +- +off +off +0 +a +ttyVPA0 ' ||
		{ echo "static pair 0 not listed as such"; return 1; }
	echo "$list" | grep -Eq '^ *1 +- ' || { echo "static pair 1 not listed"; return 1; }

	# list --json: valid JSON with the same facts
	"$CTL" list --json > /run/ctl.json || { echo "list --json failed"; return 1; }
	command -v python3 >/dev/null 2>&1 || { echo "no python3 to check the JSON"; return 1; }
	python3 -m json.tool /run/ctl.json > /dev/null ||
		{ cat /run/ctl.json; echo "list --json is not valid JSON"; return 1; }
	python3 - /run/ctl.json <<-'EOF' || { cat /run/ctl.json; return 1; }
		import json, sys
		pairs = json.load(open(sys.argv[1]))["pairs"]
		assert [p["index"] for p in pairs] == [0, 1, 2], [p["index"] for p in pairs]
		p0, p = pairs[0], pairs[2]
		assert p0["name"] is None and p0["static"] is True and p0["session"] is False, p0
		assert p0["a"]["device"] == "ttyVPA0" and p0["b"]["device"] == "ttyVPB0", p0
		assert p["name"] == "ctltest" and p["static"] is False and p["session"] is False, p
		assert p["a"]["device"] == "ttyVPA2" and p["b"]["device"] == "ttyVPB2", p
		assert p["baud_emulation"] is True and p["strict"] is True, p
		assert p["noise_ppm"] == 250 and p["noise_seed"] == 42, p
		assert p["b"]["wiring"] == "cts=rts dsr=dtr dcd=on ri=off", p
		assert p0["a"]["rs485"] == "disabled", p0
		assert p["a"]["open"] is False and p["b"]["open"] is False, p
		for e in "ab":
		    for k in ("rx_bytes", "tx_bytes", "discarded_bytes", "injected_errors"):
		        assert isinstance(p[e][k], int), (e, k, p)
	EOF

	# stats: bytes A -> B while B is held open (raw, no echo)
	"$CTL" set ctltest noise_ppm=0 || return 1
	exec 6<>/dev/ttyVPB2
	stty -F /dev/ttyVPB2 raw -echo || return 1
	[ "$(ctl_counter ctltest b 3)" = yes ] || { "$CTL" stats ctltest; echo "B not shown open"; return 1; }
	printf abc > /dev/ttyVPA2 || { echo "write to /dev/ttyVPA2 failed"; return 1; }
	i=0
	while [ "$(ctl_counter ctltest a 5) $(ctl_counter ctltest b 4)" != "3 3" ]; do
		i=$((i + 1))
		[ $i -lt 50 ] || { "$CTL" stats ctltest; echo "counters did not reach A tx 3, B rx 3"; return 1; }
		sleep 0.1
	done
	got=$(timeout -k 2 5 dd bs=3 count=1 <&6 2>/dev/null)
	rc=$?
	case $rc in
	124 | 137) echo "reading 3 bytes from /dev/ttyVPB2 still waits after 5 s"; return 1 ;;
	esac
	[ "$got" = abc ] || { echo "B read '$got' (dd exited with $rc)"; return 1; }
	"$CTL" stats ctltest
	"$CTL" stats ctltest --json | python3 -m json.tool > /dev/null ||
		{ echo "stats --json is not valid JSON"; return 1; }
	exec 6>&-
	[ "$(ctl_counter ttyVPA2 b 3)" = no ] || { echo "B still shown open after close"; return 1; }

	# delete, by name; by a device of a named pair
	"$CTL" delete ctltest || { echo "delete failed"; return 1; }
	[ ! -d "$CFG/ctltest" ] || { echo "$CFG/ctltest left"; return 1; }
	udevadm settle 2>/dev/null
	[ ! -e /dev/ttyVPA2 ] || { echo "/dev/ttyVPA2 left after delete"; return 1; }
	! "$CTL" list | grep -q ctltest || { echo "list still shows ctltest"; return 1; }
	"$CTL" create other > /dev/null && "$CTL" delete /dev/ttyVPB2 ||
		{ echo "delete by device failed"; return 1; }
	[ ! -d "$CFG/other" ] || { echo "delete /dev/ttyVPB2 left $CFG/other"; return 1; }
	rmmod ttypair
}
step ttypairctl_create_list_delete t_ctl_create_list_delete

t_ctl_errors() {
	[ -x "$CTL" ] || { echo "no $CTL"; return 1; }
	# 3: not loaded
	mgmt_reset || return 1
	ctl_expect 3 "modprobe ttypair" "$CTL" list || return 1
	ctl_expect 3 "not loaded" "$CTL" create x || return 1
	mgmt_load pairs=1 || return 1

	# 5: no such pair
	ctl_expect 5 "no pair named 'nosuch'" "$CTL" stats nosuch || return 1
	ctl_expect 5 "no pair named 'nosuch'" "$CTL" delete nosuch || return 1
	ctl_expect 5 "no pair named 'nosuch'" "$CTL" set nosuch strict=1 || return 1
	ctl_expect 5 "no pair named" "$CTL" stats ttyVPA7 || return 1

	# 6: exists
	ctl_expect 0 "dup: /dev/ttyVPA1 <-> /dev/ttyVPB1" "$CTL" create dup || return 1
	ctl_expect 6 "already exists" "$CTL" create dup || return 1

	# 1: refused, and nothing made or changed
	ctl_expect 1 "'noise_ppm=2000000' refused: Invalid argument (0 to 1000000)" \
		"$CTL" create bad noise_ppm=2000000 || return 1
	[ ! -e "$CFG/bad" ] || { echo "$CFG/bad made by a refused create"; return 1; }
	ctl_expect 1 "'wiring_a=cts=bogus' refused" "$CTL" create bad strict=1 wiring_a=cts=bogus || return 1
	ctl_expect 1 "refused" "$CTL" create bad strict=2 || return 1
	ctl_expect 1 "refused" "$CTL" create 'a b' || return 1
	ctl_expect 1 "refused" "$CTL" create .hidden || return 1
	[ "$(mgmt_made)" = dup ] || { echo "pairs left after refused creates: $(mgmt_made)"; return 1; }
	[ ! -e /sys/class/tty/ttyVPA2 ] || { echo "a refused create left ttyVPA2"; return 1; }
	ctl_expect 1 "'noise_ppm=-1' refused" "$CTL" set dup baud_emulation=1 noise_ppm=-1 || return 1
	[ "$(cat "$CFG/dup/baud_emulation")" = 0 ] ||
		{ echo "a refused set changed baud_emulation"; return 1; }
	ctl_expect 1 "pairs= module parameter" "$CTL" delete ttyVPA0 || return 1
	[ -c /dev/ttyVPA0 ] || { echo "static pair 0 gone"; return 1; }

	# 2: usage
	ctl_expect 2 "no command" "$CTL" || return 1
	ctl_expect 2 "unknown command 'frobnicate'" "$CTL" frobnicate || return 1
	ctl_expect 2 "missing" "$CTL" create || return 1
	ctl_expect 2 "unknown option 'colour'" "$CTL" create x colour=blue || return 1
	[ ! -e "$CFG/x" ] || { echo "create with an unknown option made a pair"; return 1; }
	ctl_expect 2 "unknown option 'colour'" "$CTL" set dup strict=1 colour=blue || return 1
	[ "$(cat "$CFG/dup/strict")" = 0 ] || { echo "set with an unknown option wrote"; return 1; }
	ctl_expect 2 "" "$CTL" set dup || return 1
	ctl_expect 2 "unknown option '--bogus'" "$CTL" list --bogus || return 1
	ctl_expect 0 "Exit status" "$CTL" frobnicate --help || return 1
	ctl_expect 0 "ttypairctl " "$CTL" --version || return 1

	# 4: permission denied, as an unprivileged user; listing works
	ctl_expect 4 "run as root" ctl_as_nobody "$CTL" create u1 || return 1
	ctl_expect 4 "Permission denied" ctl_as_nobody "$CTL" delete dup || return 1
	ctl_expect 4 "Permission denied" ctl_as_nobody "$CTL" set dup strict=1 || return 1
	ctl_expect 4 "Permission denied" ctl_as_nobody "$CTL" set ttyVPA0 strict=1 || return 1
	ctl_expect 0 "dup" ctl_as_nobody "$CTL" list || return 1
	[ -d "$CFG/dup" ] && [ ! -e "$CFG/u1" ] || { echo "the unprivileged user changed configfs"; return 1; }

	"$CTL" delete dup || return 1
	rmmod ttypair
}
step ttypairctl_errors t_ctl_errors

# 3: configfs not mounted. Where configfs cannot be unmounted (something
# else holds it) this cannot be checked: reported as skipped.
t_ctl_unmounted() {
	[ -d /sys/module/ttypair ] || modprobe ttypair pairs=1 || return 1
	if ! umount /sys/kernel/config 2>/dev/null; then
		echo "configfs could not be unmounted"
		rmmod ttypair
		return "$TAP_SKIP"
	fi
	ctl_expect 3 "mount -t configfs" "$CTL" create x
	r=$?
	[ $r != 0 ] || ctl_expect 0 "ttyVPA0" "$CTL" list
	r=$((r + $?))
	mount -t configfs configfs /sys/kernel/config || return 1
	rmmod ttypair
	[ $r = 0 ]
}
step ttypairctl_configfs_unmounted t_ctl_unmounted


# ttypairctl bus: create with settings (bus-wide and per port), list and
# stats (text and JSON), set, delete; what it refuses, and that a refused
# create leaves nothing; the exit statuses of pairs (5: no such bus, 6: the
# name exists, 2: usage, 1: refused)
t_ctl_bus() {
	mgmt_load pairs=0 || return 1
	out=$("$CTL" bus create field --ports 4 baud_emulation=1 overrun=1 drive=rts \
		drive.3=always rs485.2='enabled rts_on_send rx_during_tx' 2>&1) ||
		{ echo "$out"; echo "bus create failed"; return 1; }
	[ "$out" = "field: /dev/ttyVPS0 /dev/ttyVPS1 /dev/ttyVPS2 /dev/ttyVPS3" ] ||
		{ echo "bus create printed '$out'"; return 1; }
	for k in 0 1 2; do
		[ "$(cat /sys/class/tty/ttyVPS$k/drive)" = rts ] || { echo "port $k: drive not rts"; return 1; }
	done
	[ "$(cat /sys/class/tty/ttyVPS3/drive)" = always ] || { echo "port 3: drive not always"; return 1; }
	grep -q "enabled rts_on_send rx_during_tx" /sys/class/tty/ttyVPS2/rs485 ||
		{ echo "port 2: rs485 reads '$(cat /sys/class/tty/ttyVPS2/rs485)'"; return 1; }
	[ "$(cat "$CFG/buses/field/overrun")" = 1 ] && [ "$(cat "$CFG/buses/field/baud_emulation")" = 1 ] ||
		{ echo "bus settings not applied"; return 1; }
	list=$("$CTL" bus list) || { echo "bus list failed"; return 1; }
	echo "$list"
	echo "$list" | grep -q '^field *4 on *off *on *0 ttyVPS0 no *rts ' ||
		{ echo "bus list: no row for port 0 of field"; return 1; }
	[ "$(echo "$list" | grep -c ' ttyVPS[0-3] ')" = 4 ] || { echo "bus list: not 4 port rows"; return 1; }
	"$CTL" bus list --json | python3 -m json.tool > /dev/null || { echo "bus list --json is not JSON"; return 1; }
	"$CTL" bus stats field --json | python3 -c 'import json, sys
b = json.load(sys.stdin)
assert b["name"] == "field" and b["ports"] == 4 and b["overrun"] is True, b
assert [d["device"] for d in b["devices"]] == ["ttyVPS%d" % k for k in range(4)], b
assert b["devices"][3]["drive"] == "always" and b["devices"][0]["tx_waiting"] is False, b' ||
		{ echo "bus stats --json"; return 1; }
	"$CTL" bus set field overrun=0 drive.0=auto || { echo "bus set failed"; return 1; }
	[ "$(cat /sys/class/tty/ttyVPS0/drive)" = auto ] && [ "$(cat /sys/class/tty/ttyVPS1/drive)" = rts ] ||
		{ echo "bus set drive.0 changed the wrong ports"; return 1; }
	ctl_expect 1 "'drive.1=sometimes' refused" "$CTL" bus set field drive.1=sometimes || return 1
	ctl_expect 1 "has ports 0 to 3" "$CTL" bus set field drive.4=rts || return 1
	ctl_expect 5 "no bus named 'nosuch'" "$CTL" bus stats nosuch || return 1
	ctl_expect 5 "no bus named 'nosuch'" "$CTL" bus delete nosuch || return 1
	ctl_expect 6 "already exists" "$CTL" bus create field --ports 2 || return 1
	ctl_expect 2 "--ports N is missing" "$CTL" bus create other || return 1
	ctl_expect 2 "unknown option 'wiring'" "$CTL" bus create other --ports 2 wiring=dcd=on || return 1
	ctl_expect 1 "a bus has 2 to 32 ports" "$CTL" bus create other --ports 33 || return 1
	ctl_expect 1 "'noise_ppm=1000001' refused" "$CTL" bus create other --ports 2 noise_ppm=1000001 || return 1
	[ ! -d "$CFG/buses/other" ] || { echo "a refused bus create left its directory"; return 1; }
	"$CTL" create field > /dev/null 2>&1 && { echo "a pair took the bus's name"; return 1; }
	"$CTL" bus delete field || { echo "bus delete failed"; return 1; }
	[ ! -d "$CFG/buses/field" ] && [ ! -e /dev/ttyVPS0 ] || { echo "the bus is still there"; return 1; }
	out=$("$CTL" bus list) && [ "$out" = "no buses (make one with: ttypairctl bus create NAME --ports N)" ] ||
		{ echo "bus list of no buses: '$out'"; return 1; }
	rmmod ttypair
}
step ttypairctl_bus t_ctl_bus
