#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest tests of reliability (ttypair-stress, tests/guest/stress.c): the
# bounded concurrent stress with the kmemleak scan after unloading, the
# interface fuzzing (ioctls, attributes, pair names, module parameters) and
# the integrity soak. Sourced by guest-tests.sh after tap.sh and
# manage-tests.sh, with the module NOT loaded; leaves it unloaded.
#
# Each run is bounded (timeout -s KILL): a test that hangs fails, and the
# guest goes on. Their size comes from the host (tests/target.sh, through $T/env):
#   TTYPAIR_SEED             seed of every random choice (default: a new one)
#   TTYPAIR_STRESS_SECONDS   stress duration (default 20)
#   TTYPAIR_FUZZ_SECONDS     ioctl/attribute fuzzing duration (default 15)
#   TTYPAIR_FUZZ_PARAMS      module parameter values per parameter (default 8)
#   TTYPAIR_SOAK_MIB         soak size, MiB each way (default 128)
T=${T:-/opt/ttypair-tests}
SEED=${TTYPAIR_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
echo "# reliability tests: seed $SEED (TTYPAIR_SEED=$SEED replays the choices)"
KMEMLEAK=/sys/kernel/debug/kmemleak

# kmemleak, where the kernel has it (the debug kernel; Debian's do not)
leak_prepare() {
	mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
	[ -w "$KMEMLEAK" ] || return 0
	# What is already unreferenced now (the boot's own) is not ours to
	# report: scan, then clear, with the console quiet so that the host's
	# log check does not count that scan's summary line.
	dmesg -n 1
	echo scan > "$KMEMLEAK" && echo clear > "$KMEMLEAK"
	_rc=$?
	dmesg -n 7
	return $_rc
}

leak_check() {
	if [ ! -w "$KMEMLEAK" ]; then
		echo "kmemleak: not in this kernel"
		return 0
	fi
	# two scans: an object must look unreferenced twice to be reported
	echo scan > "$KMEMLEAK" && sleep 1 && echo scan > "$KMEMLEAK" || return 1
	_leaks=$(grep -c '^unreferenced object' "$KMEMLEAK")
	if [ "$_leaks" != 0 ]; then
		head -n 60 "$KMEMLEAK"
		echo "kmemleak: $_leaks unreferenced objects after unloading"
		return 1
	fi
	echo "kmemleak: clean after unloading"
}

# bounded SECONDS OUT COMMAND...: run COMMAND under a time limit with its
# output in OUT, show that output, and fail if it did; the reason it gave
# comes last, where the host's summary line takes it from.
bounded() {
	_lim=$1 _out=$2
	shift 2
	timeout -s KILL "$_lim" "$@" > "$_out" 2>&1
	_rc=$?
	cat "$_out"
	[ "$_rc" = 0 ] && return 0
	if [ "$_rc" = 137 ]; then
		echo "killed (SIGKILL: its time limit, or the OOM killer)"
	else
		_why=$(grep -v '^[A-Z]* \|^[a-z]*: ' "$_out" | tail -n 1)
		echo "exit status $_rc${_why:+: $_why}"
	fi
	return 1
}

t_stress() {
	mgmt_reset
	leak_prepare
	mgmt_load pairs=4 || return 1
	_secs=${TTYPAIR_STRESS_SECONDS:-20}
	bounded $((_secs + 180)) /run/stress.out \
		"$T/ttypair-stress" stress "$_secs" "$SEED" 4 || return 1
	# the module comes out at the end, whatever the threads left behind
	[ -d /sys/module/ttypair ] || modprobe ttypair pairs=4 || return 1
	mgmt_reset
	[ ! -d /sys/module/ttypair ] || { echo "rmmod after the stress failed"; return 1; }
	leak_check || return 1
	grep '^STRESS ' /run/stress.out
	echo "seed $SEED"
}
step stress_concurrent t_stress

t_fuzz() {
	mgmt_load pairs=2 || return 1
	_secs=${TTYPAIR_FUZZ_SECONDS:-15}
	bounded $((_secs + 180)) /run/fuzz.out \
		"$T/ttypair-stress" fuzz "$_secs" "$SEED" || return 1
	mgmt_reset
	[ ! -d /sys/module/ttypair ] || { echo "rmmod after the fuzzing failed"; return 1; }
	grep '^FUZZ ' /run/fuzz.out
	echo "seed $SEED"
}
step fuzz_ioctls_attributes t_fuzz

# Random and malformed values offered as each module parameter: the load
# succeeds (and the module unloads) or fails with a log line and nothing
# left behind.
t_fuzz_params() {
	mgmt_reset
	_n=0 _loaded=0
	_per=${TTYPAIR_FUZZ_PARAMS:-8}
	_s=$SEED
	for _p in pairs max_pairs wiring baud_emulation strict; do
		_s=$((_s + 1))
		"$T/ttypair-stress" values "$_s" "$_per" > /run/values.txt || return 1
		while IFS= read -r _v; do
			_n=$((_n + 1))
			dmesg -C
			if modprobe ttypair "$_p=$_v" > /run/modprobe.out 2>&1; then
				_loaded=$((_loaded + 1))
				rmmod ttypair || { echo "$_p='$_v': loaded, then rmmod failed"; return 1; }
				continue
			fi
			if [ -d /sys/module/ttypair ]; then
				echo "$_p='$_v': modprobe failed but the module is loaded"
				return 1
			fi
			if ! dmesg | grep -q 'ttypair'; then
				echo "$_p='$_v': refused without a kernel log line"
				cat /run/modprobe.out
				return 1
			fi
		done < /run/values.txt
	done
	echo "FUZZPARAMS values=$_n loaded=$_loaded refused=$((_n - _loaded))"
	echo "seed $SEED"
}
step fuzz_module_parameters t_fuzz_params

mem_avail_mib() {
	echo $(($(sed -n 's/^MemAvailable: *\([0-9]*\) kB$/\1/p' /proc/meminfo) / 1024))
}

# The soak moves data and nothing more: the memory available stays flat
# (a drop of more than TTYPAIR_SOAK_MEM_DROP_MIB, default 256, at any
# sample during the soak, or after the unload, fails it; KASAN's
# quarantine alone holds up to 1/32 of the guest's memory).
t_soak() {
	mgmt_load pairs=1 || return 1
	_mib=${TTYPAIR_SOAK_MIB:-128}
	_before=$(mem_avail_mib)
	echo "$_before" > /run/soak.min
	( _i=0
	  while [ $_i -lt $((_mib * 2 + 300)) ]; do
		_m=$(mem_avail_mib)
		[ "$_m" -ge "$(cat /run/soak.min)" ] || echo "$_m" > /run/soak.min
		sleep 5
		_i=$((_i + 5))
	  done ) &
	_sampler=$!
	bounded $((_mib * 2 + 300)) /run/soak.out \
		"$T/ttypair-stress" soak "$_mib" "$SEED"
	_rc=$?
	kill $_sampler
	wait $_sampler 2>/dev/null
	[ $_rc = 0 ] || return 1
	mgmt_reset
	_after=$(mem_avail_mib)
	_min=$(cat /run/soak.min)
	grep '^SOAK ' /run/soak.out
	echo "SOAKMEM available_mib_before=$_before lowest_during=$_min after_unload=$_after"
	echo "seed $SEED"
	_limit=${TTYPAIR_SOAK_MEM_DROP_MIB:-256}
	[ $((_before - _min)) -le "$_limit" ] && [ $((_before - _after)) -le "$_limit" ] ||
		{ echo "memory is not flat: $_before MiB available before, $_min at the lowest, $_after after the unload"; return 1; }
}
step integrity_soak t_soak
