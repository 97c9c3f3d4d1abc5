#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make bench`: the benchmarks in a QEMU guest of one target of tests/targets
# (default bookworm-6.1; make bench BENCH_TARGET=sid-7.2): ttypair against
# the kernel's pty and a socat-linked pty pair, all in the same guest run.
# Writes out/bench/bench.md, bench.json and targets.md; the results of the
# bench before are kept as previous-results.txt, and the report shows their
# ratios next to this run's.
#
# BENCH_CLOCK=icount (TTYPAIR_BENCH_CLOCK) measures the data sections
# (streams, round trips, many pairs) in a guest whose clock counts its
# instructions (QEMU -icount shift=0,sleep=off: 1 ns each, idle time
# skipped): the host's load does not enter, and the rows say how much work
# each transport does per byte, the same from one bench to the next. It
# runs the guest's CPUs in turn on one host thread, about 3 times slower
# than the default, on sid's 7.2 unless BENCH_TARGET says otherwise; its
# report goes to out/bench-icount/.
set -u
TTYPAIR_SRC=$(cd "$(dirname "$0")/.." && pwd)
. "$TTYPAIR_SRC/tests/lib/common.sh"
. "$TTYPAIR_SRC/tests/lib/chroot.sh"
. "$TTYPAIR_SRC/tests/lib/qemu.sh"
TTYPAIR_STAGE=bench
CLOCK=${TTYPAIR_BENCH_CLOCK:-real}
# bookworm's 6.1 does not bring up its second CPU under -icount's clock
# (it waits at "Booting SMP configuration" for good); 7.2 does
if [ "$CLOCK" = icount ]; then
	TARGET=${TTYPAIR_BENCH_TARGET:-sid-7.2}
else
	TARGET=${TTYPAIR_BENCH_TARGET:-bookworm-6.1}
fi
genv="export TTYPAIR_GUEST_MODE=bench"
case $CLOCK in
real)	ACCEL=tcg
	OUT=${TTYPAIR_BENCH_OUT:-$TTYPAIR_SRC/out/bench} ;;
icount)	ACCEL=tcg-icount
	OUT=${TTYPAIR_BENCH_OUT:-$TTYPAIR_SRC/out/bench-icount}
	export TTYPAIR_QEMU_ARGS="-icount shift=0,sleep=off" TTYPAIR_QEMU_TIMEOUT=3600
	genv="$genv TTYPAIR_BENCH_SECTIONS='stream latency pairs'" ;;
*)	die "BENCH_CLOCK is real (the default) or icount, not $CLOCK" ;;
esac
# TTYPAIR_BENCH_SECTIONS=... measures only those sections (tests/guest/bench-run.sh)
[ -z "${TTYPAIR_BENCH_SECTIONS:-}" ] ||
	genv="$genv TTYPAIR_BENCH_SECTIONS='$TTYPAIR_BENCH_SECTIONS'"
W=$TTYPAIR_OUT/bench
ROOT=$W/root
TTYPAIR_RESULTS=$W/results	# not the results of the last make check

[ "$(id -u)" = 0 ] || die "the benchmarks build a chroot and boot a kernel: run 'sudo make bench'"
for c in mmdebstrap qemu-system-x86_64 mke2fs gnuplot; do
	command -v $c > /dev/null || die "$c is missing: run 'sudo make check' once, or apt-get install mmdebstrap qemu-system-x86 e2fsprogs gnuplot-nox"
done
line=$(awk -v t="$TARGET" '$1 == t' "$TTYPAIR_SRC/tests/targets")
[ -n "$line" ] || die "no target $TARGET in tests/targets"
read -r _ _ suite arch rest <<< "$line"
[ "$arch" = amd64 ] || die "make bench runs amd64 targets only; $TARGET is $arch"
# shellcheck disable=SC2086
set -- $rest
extra=${!#}
[ "$extra" = - ] && extra=
pkgs=$(echo "$rest" | awk '{ $NF = ""; print }' | xargs)

mkdir -p "$W"
: > "$TTYPAIR_RESULTS"
tar=$(chroot_tarball "$suite" "$pkgs" "$extra") || die "no chroot of $suite"
chroot_extract "$tar" "$ROOT"
KVER=$(chroot_kernels "$ROOT" | tail -n 1)
log "benchmarks on $TARGET: kernel $KVER"
copy_tree "$ROOT/root/ttypair-src"
in_chroot "$ROOT" make -C /root/ttypair-src KVER="$KVER" > "$W/build.log" 2>&1 ||
	{ tail -n 20 "$W/build.log"; die "the module did not build for $KVER"; }
mkdir -p "$ROOT/lib/modules/$KVER/updates"
cp "$ROOT/root/ttypair-src/ttypair.ko" "$ROOT/lib/modules/$KVER/updates/"
in_chroot "$ROOT" depmod "$KVER"
guest_prepare "$ROOT" "$(ttypair_version)" "$genv" "$W/gcc.log" ||
	{ cat "$W/gcc.log"; die "the guest's programs did not build"; }
guest_run bench "$W" "$ROOT" "$KVER" > "$W/guest.log" 2>&1
grep -q '^BENCH done' "$W/results.txt" || { tail -n 30 "$W/results.txt"; die "the benchmarks did not finish; see $W/console.log"; }
# The bench before, whose ratios the report shows next to this one's
prev=
if [ -f "$OUT/results.txt" ]; then
	mkdir -p "$OUT"
	cp "$OUT/results.txt" "$OUT/previous-results.txt"
	prev=$OUT/previous-results.txt
fi
sh "$TTYPAIR_SRC/scripts/bench-report.sh" "$W/results.txt" "$KVER" "$ACCEL" "$OUT" $prev || exit 1
cp "$W/results.txt" "$OUT/results.txt"
[ -n "${TTYPAIR_KEEP:-}" ] || rm -rf "$ROOT"
echo
echo "written: $OUT/bench.md, $OUT/bench.json, $OUT/targets.md"
