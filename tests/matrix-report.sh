#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The kernel matrix of the last `make check-all` (or `make check`): one row
# per target (a kernel booted in QEMU, or a build for another architecture)
# from tests/out/<target>/matrix.txt and the target's verdict:
# all its results (TARGET/... in tests/out/results: the guest's tests, the
# chroot steps, a guest that did not finish, its kernel log, tests that did
# not run, the job's exit status), written to tests/out/kernel-matrix.md and
# printed; and what the reliability tests of each guest did (their STRESS,
# FUZZ, FUZZPARAMS and SOAK lines), in tests/out/reliability.md.
# `make docs-matrix` copies them into docs/kernels.md and docs/reliability.md.
#   tests/matrix-report.sh TARGET...
set -u
TTYPAIR_SRC=$(cd "$(dirname "$0")/.." && pwd)
. "$TTYPAIR_SRC/tests/lib/common.sh"
out=$TTYPAIR_OUT/kernel-matrix.md
run="make check"
[ "${TTYPAIR_SUITE:-}" != all ] || run="make check-all"
# verdict TARGET: "N passed, N failed[, N skipped]" over all its results
verdict() {
	_p=$(grep -c "^PASS $1/" "$TTYPAIR_RESULTS")
	_f=$(grep -c "^FAIL $1/" "$TTYPAIR_RESULTS")
	_s=$(grep -c "^SKIP $1/" "$TTYPAIR_RESULTS")
	printf '%s passed, %s failed' "$_p" "$_f"
	[ "$_s" = 0 ] || printf ', %s skipped' "$_s"
}
{
	echo "| target | architecture | Debian suite | kernel release | module compiler | dkms | vermagic | modversions | build | tests (all of the target's) |"
	echo "|---|---|---|---|---|---|---|---|---|---|"
	for t in "$@"; do
		f=$TTYPAIR_OUT/$t/matrix.txt
		if [ ! -f "$f" ]; then
			echo "| $t | - | - | - | - | - | - | - | not run | $(verdict "$t") |"
			continue
		fi
		get() { sed -n "s/^$1=//p" "$f" | sed 's/[[:space:]]*$//'; }
		echo "| $t | $(get arch) | $(get suite) | $(get kernel) | $(get compiler) | $(get dkms) |" \
			"\`$(get vermagic)\` | $(get modversions) | $(get build) |" \
			"$(verdict "$t") |"
	done
	echo
	echo "Measured by \`sudo $run\` on $(date -u +%Y-%m-%d); regenerate this table with \`sudo make check-all && make docs-matrix\`."
} > "$out"
echo "=== kernel matrix"
cat "$out"

# field LINE KEY: the value of KEY=... in a "# STRESS ..." style line
field() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
rel=$TTYPAIR_OUT/reliability.md
{
	echo "| target | stress: operations (unloads won) | kmemleak after unload | fuzz: ioctl and data calls, attribute writes, pair names | module parameter values | soak: MiB each way (writes, setting changes, modem changes) | kernel log |"
	echo "|---|---|---|---|---|---|---|"
	for t in "$@"; do
		r=$TTYPAIR_OUT/$t/results.txt
		# (a build for another architecture boots nothing)
		[ -f "$r" ] || ! grep -q "^arch=.*built only" "$TTYPAIR_OUT/$t/matrix.txt" 2>/dev/null || continue
		[ -f "$r" ] || { echo "| $t | not run | - | - | - | - | - |"; continue; }
		st=$(sed -n 's/^# STRESS //p' "$r" | tail -n 1)
		fz=$(sed -n 's/^# FUZZ //p' "$r" | tail -n 1)
		fp=$(sed -n 's/^# FUZZPARAMS //p' "$r" | tail -n 1)
		sk=$(sed -n 's/^# SOAK //p' "$r" | tail -n 1)
		leak=$(sed -n 's/^# kmemleak: //p' "$r" | tail -n 1)
		clean=problems
		grep -q "^PASS $t/guest_kernel_log_clean\$" "$TTYPAIR_RESULTS" 2>/dev/null && clean=clean
		b=$(field "$sk" bytes_each_way)
		echo "| $t | $(field "$st" ops) ($(field "$st" unloads)) | ${leak:--} |" \
			"$(field "$fz" calls), $(field "$fz" attr_writes), $(field "$fz" names) |" \
			"$(field "$fp" values) |" \
			"$(( ${b:-0} >> 20 )) ($(field "$sk" writes), $(field "$sk" settings), $(field "$sk" modem)) |" \
			"$clean |"
	done
	echo
	echo "Measured by \`sudo $run\` on $(date -u +%Y-%m-%d) (seed and per-operation counts in each target's log)."
} > "$rel"
echo "=== reliability"
cat "$rel"
