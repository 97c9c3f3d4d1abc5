#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `make docs-bench`: put the last `make bench` report (out/bench/bench.md
# and targets.md) into docs/performance.md, between the bench markers, and
# its charts (out/bench/*.svg) into docs/images/.
set -eu
cd "$(dirname "$0")/.."
d=out/bench
doc=docs/performance.md
[ -f "$d/bench.md" ] && [ -f "$d/targets.md" ] || { echo "no $d/bench.md: run 'sudo make bench' first" >&2; exit 1; }
grep -q '^<!-- bench:begin -->$' "$doc" && grep -q '^<!-- bench:end -->$' "$doc" ||
	{ echo "$doc has no bench markers" >&2; exit 1; }
for c in throughput latency baud-error; do
	[ -f "$d/$c.svg" ] || { echo "no $d/$c.svg: run 'sudo make bench' first" >&2; exit 1; }
done
cat "$d/bench.md" "$d/targets.md" > "$d/docs.part"
awk -v part="$d/docs.part" '
	/^<!-- bench:begin -->$/ { print; while ((getline l < part) > 0) print l; skip = 1; next }
	/^<!-- bench:end -->$/ { skip = 0 }
	!skip { print }
' "$doc" > "$doc.new"
mv "$doc.new" "$doc"
mkdir -p docs/images
cp "$d/throughput.svg" "$d/latency.svg" "$d/baud-error.svg" docs/images/
echo "$doc: benchmark table from $d; docs/images/: its charts"
