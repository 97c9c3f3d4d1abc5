#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The benchmarks in the guest (ttypair-bench, tests/guest/bench.c, and
# ttypair-idle, tests/guest/idle-wakeups.c): the data sections and the
# cost of idle full pairs with 16 static pairs, baud-rate emulation at
# scale with 256, then the scale section with none, so that it can make
# max_pairs pairs in configfs. Prints the BENCH lines; the caller adds
# "BENCH done" when it succeeded. TTYPAIR_BENCH_SECTIONS (from the host)
# limits it to some of: stream latency pairs baud idle baudscale scale bus.
#   bench_run [--smoke]
# Sourced after tap.sh; leaves the module unloaded.
T=${T:-/opt/ttypair-tests}

bench_part() {	# bench_part COMMAND...: run it, print its BENCH lines
	"$@" > /run/bench.part 2>&1 || { cat /run/bench.part; return 1; }
	grep '^BENCH ' /run/bench.part | grep -v '^BENCH done$'
}

bench_section() {	# bench_section NAME: whether this run measures it
	case " ${TTYPAIR_BENCH_SECTIONS:-stream latency pairs baud idle baudscale scale bus} " in
	*" $1 "*) return 0 ;;
	esac
	return 1
}

bench_run() {
	idle="--pairs 16 --seconds 10"
	[ "${1:-}" != --smoke ] || idle="--pairs 4 --seconds 1"
	[ ! -d /sys/module/ttypair ] || rmmod ttypair || return 1
	modprobe ttypair pairs=16 || return 1
	mountpoint -q /sys/kernel/config ||
		mount -t configfs configfs /sys/kernel/config || return 1
	for s in stream latency pairs baud; do
		bench_section $s || continue
		bench_part "$T/ttypair-bench" "$@" --only $s --static 16 || return 1
	done
	if bench_section idle; then
		# shellcheck disable=SC2086
		bench_part "$T/ttypair-idle" $idle || return 1
		# shellcheck disable=SC2086
		bench_part "$T/ttypair-idle" --pty $idle || return 1
	fi
	rmmod ttypair || return 1
	if bench_section baudscale; then
		modprobe ttypair pairs=256 || return 1
		bench_part "$T/ttypair-bench" "$@" --only baudscale --static 256 || return 1
		rmmod ttypair || return 1
	fi
	if bench_section scale; then
		modprobe ttypair pairs=0 || return 1
		bench_part "$T/ttypair-bench" "$@" --only scale --static 0 || return 1
		rmmod ttypair || return 1
	fi
	if bench_section bus; then
		modprobe ttypair pairs=0 || return 1
		bench_part "$T/ttypair-bench" "$@" --only bus --static 0 || return 1
		rmmod ttypair || return 1
	fi
}

# The rows a smoke run must have: section, transports, parameters, metrics
bench_expected() {
	for sec in oneway bidir; do
		for p in 1 64 4096 65536; do
			for t in ttypair pty socat; do echo "$sec $t $p mib_s"; done
		done
	done
	for t in ttypair pty socat; do
		echo "latency $t 1 median_us"
		echo "latency $t 1 p99_us"
		for p in 1 4 16; do echo "pairs $t $p mib_s"; done
	done
	for p in 1200 9600 115200 921600; do
		echo "baud ttypair $p rate_error_pct"
		echo "baud ttypair $p tcdrain_error_pct"
	done
	echo "idle ttypair 4 wakeups_per_s"
	echo "idle pty 4 wakeups_per_s"
	for p in 115200 921600; do
		for m in cpu_pct softirq_cpu_pct rate_error_pct; do
			echo "baudscale ttypair $p $m"
		done
	done
	for p in 1 16; do
		for m in create_ms remove_ms; do echo "scale ttypair $p $m"; done
	done
	echo "scale ttypair 16 idle_pair_bytes"
	echo "scale ttypair 16 open_pair_bytes"
	for p in 2 8 32; do
		echo "bus ttypair $p sent_mib_s"
		echo "bus ttypair $p received_mib_s"
	done
	for p in 8 32; do echo "bus ttypair $p listener_cost_pct"; done
}

# A short run of every measurement: all rows there, the rates and times
# positive, baud emulation within 5 % even in this short run. The rows stay
# in /run/bench.out (guest-tests.sh prints them for the host's report).
t_bench_smoke() {
	bench_run --smoke > /run/bench.out 2>&1 || { cat /run/bench.out; return 1; }
	echo "BENCH done" >> /run/bench.out
	bench_expected | while read -r sec t p m; do
		v=$(awk -v k="BENCH $sec $t $p $m" 'index($0, k " ") == 1 { print $NF }' /run/bench.out)
		[ -n "$v" ] || { echo "no row: $sec $t $p $m"; return 1; }
		case $sec/$m in
		baud/*_pct) awk -v v="$v" 'BEGIN { exit !(v > -5 && v < 5) }' ||
			{ echo "$sec $p $m: $v %"; return 1; } ;;
		*/mib_s|*/*_us|*/*_ms) awk -v v="$v" 'BEGIN { exit !(v > 0) }' ||
			{ echo "$sec $t $p $m: $v"; return 1; } ;;
		esac	# the others: measured (a short run says little of them)
	done || return 1
	echo "ttypair-bench --smoke: $(grep -c '^BENCH ' /run/bench.out) rows"
}
