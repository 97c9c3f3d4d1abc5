#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The benchmark's charts, drawn with gnuplot from the BENCH lines of a
# guest's results (as bench-report.sh reads them: BENCH section transport
# parameter metric value), as SVG files in OUTDIR:
#   throughput.svg  one-way throughput against write size, ttypair, pty, socat
#   latency.svg     1-byte round trip, median and 99th percentile
#   baud-error.svg  baud-rate emulation's error against the line speed
#   scripts/bench-charts.sh RESULTS KERNEL OUTDIR
set -eu
RESULTS=$1 KERNEL=$2 OUT=$3
command -v gnuplot > /dev/null || { echo "no gnuplot: apt install gnuplot-nox" >&2; exit 1; }
mkdir -p "$OUT"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
get() { awk -v k="BENCH $1 $2 $3 $4" 'index($0, k " ") == 1 { print $NF }' "$RESULTS" | tr -d '\r' | tail -n 1; }

# write size, then ttypair, pty and socat in MiB/s
for size in $(grep '^BENCH oneway ttypair ' "$RESULTS" | awk '{ print $4 }' | sort -n -u); do
	echo "$size $(get oneway ttypair "$size" mib_s) $(get oneway pty "$size" mib_s) $(get oneway socat "$size" mib_s)"
done > "$tmp/throughput.dat"
# transport, median, 99th percentile in microseconds
for t in ttypair pty socat; do
	echo "$t $(get latency "$t" 1 median_us) $(get latency "$t" 1 p99_us)"
done > "$tmp/latency.dat"
# speed, error of the received rate, error of the tcdrain time (percent)
grep '^BENCH baud ttypair ' "$RESULTS" | tr -d '\r' | awk '
	{ if ($5 == "rate_error_pct") r[$4] = $6; else d[$4] = $6; s[$4] = 1 }
	END { for (k in s) print k, r[k], d[k] }' | sort -n > "$tmp/baud.dat"
# a run of some sections only (make bench BENCH_CLOCK=icount) has no baud rows
charts="throughput latency"
! grep -q '^BENCH baud ttypair ' "$RESULTS" || charts="$charts baud"
for f in $charts; do
	[ -s "$tmp/$f.dat" ] && ! awk 'NF < 3' "$tmp/$f.dat" | grep -q . ||
		{ echo "bench-charts: incomplete $f data in $RESULTS" >&2; exit 1; }
done

# the look of every chart
style='set terminal svg size 720,420 dynamic font "Helvetica,12" background "white"
set key top left
set grid
set style line 1 lc rgb "#1f77b4" lw 2 pt 7
set style line 2 lc rgb "#ff7f0e" lw 2 pt 5
set style line 3 lc rgb "#2ca02c" lw 2 pt 9'

gnuplot <<EOG
$style

set output "$OUT/throughput.svg"
set title "One-way throughput by write size (kernel $KERNEL, QEMU TCG)"
set logscale xy
set xlabel "bytes per write()"
set ylabel "MiB/s"
set xtics ("1" 1, "64" 64, "4 KiB" 4096, "64 KiB" 65536)
plot "$tmp/throughput.dat" using 1:2 with linespoints ls 1 title "ttypair", \
     "" using 1:3 with linespoints ls 2 title "pty", \
     "" using 1:4 with linespoints ls 3 title "socat (2 ptys)"

set output "$OUT/latency.svg"
set title "1-byte round trip (kernel $KERNEL, QEMU TCG)"
unset logscale
set xtics auto
set xlabel ""
set ylabel "microseconds"
set yrange [0:*]
set style data histograms
set xrange [-0.6:2.6]
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
plot "$tmp/latency.dat" using 2:xtic(1) lc rgb "#1f77b4" title "median", \
     "" using 3 lc rgb "#9ecae1" title "99th percentile"

EOG
case $charts in *baud) ;; *) echo "bench-charts: throughput.svg, latency.svg in $OUT"; exit 0 ;; esac

gnuplot <<EOG
$style
set output "$OUT/baud-error.svg"
set autoscale x
set title "Baud-rate emulation: error against the ideal rate (kernel $KERNEL)"
set style data linespoints
set logscale x
set xlabel "line speed (baud)"
set ylabel "error (%)"
set yrange [-1:1]
set xtics ("1200" 1200, "9600" 9600, "115200" 115200, "921600" 921600)
plot "$tmp/baud.dat" using 1:2 with linespoints ls 1 title "rate seen by the receiver", \
     "" using 1:3 with linespoints ls 2 title "time of write + tcdrain()"
EOG
echo "bench-charts: throughput.svg, latency.svg, baud-error.svg in $OUT"
