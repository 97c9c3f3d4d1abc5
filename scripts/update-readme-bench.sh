#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `make readme-bench`: put the last `make bench` report (out/bench/bench.md
# and targets.md) into README.md, between the bench markers.
set -eu
cd "$(dirname "$0")/.."
d=out/bench
[ -f "$d/bench.md" ] && [ -f "$d/targets.md" ] || { echo "no $d/bench.md: run 'sudo make bench' first" >&2; exit 1; }
grep -q '^<!-- bench:begin -->$' README.md && grep -q '^<!-- bench:end -->$' README.md ||
	{ echo "README.md has no bench markers" >&2; exit 1; }
cat "$d/bench.md" "$d/targets.md" > "$d/readme.part"
awk -v part="$d/readme.part" '
	/^<!-- bench:begin -->$/ { print; while ((getline l < part) > 0) print l; skip = 1; next }
	/^<!-- bench:end -->$/ { skip = 0 }
	!skip { print }
' README.md > README.md.new
mv README.md.new README.md
echo "README.md: benchmark table from $d"
