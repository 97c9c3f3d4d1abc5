#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `make docs-bench`: put the last `make bench` report (out/bench/bench.md
# and targets.md) into docs/performance.md, between the bench markers, and
# its charts (out/bench/*.svg) into docs/images/; and the last
# `make bench BENCH_CLOCK=icount` report (out/bench-icount/), if there is
# one, between the bench-icount markers.
set -eu
cd "$(dirname "$0")/.."
doc=docs/performance.md

place() {	# place DIR MARKER: DIR's bench.md and targets.md between MARKER's lines
	grep -q "^<!-- $2:begin -->\$" "$doc" && grep -q "^<!-- $2:end -->\$" "$doc" ||
		{ echo "$doc has no $2 markers" >&2; exit 1; }
	cat "$1/bench.md" "$1/targets.md" > "$1/docs.part"
	awk -v part="$1/docs.part" -v b="<!-- $2:begin -->" -v e="<!-- $2:end -->" '
		$0 == b { print; while ((getline l < part) > 0) print l; skip = 1; next }
		$0 == e { skip = 0 }
		!skip { print }
	' "$doc" > "$doc.new"
	mv "$doc.new" "$doc"
	echo "$doc: $2 table from $1"
}

d=out/bench
[ -f "$d/bench.md" ] && [ -f "$d/targets.md" ] || { echo "no $d/bench.md: run 'sudo make bench' first" >&2; exit 1; }
for c in throughput latency baud-error; do
	[ -f "$d/$c.svg" ] || { echo "no $d/$c.svg: run 'sudo make bench' first" >&2; exit 1; }
done
place "$d" bench
mkdir -p docs/images
cp "$d/throughput.svg" "$d/latency.svg" "$d/baud-error.svg" docs/images/
echo "docs/images/: the charts of $d"
if [ -f out/bench-icount/bench.md ] && [ -f out/bench-icount/targets.md ]; then
	place out/bench-icount bench-icount
fi
