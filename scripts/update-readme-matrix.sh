#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `make readme-matrix`: put what the last `make check-all` measured into
# README.md: the supported-kernels table (tests/out/kernel-matrix.md), the
# reliability table (tests/out/reliability.md) and
# the workflow transcript of a guest (its "WORKFLOW| " lines; the first
# target that has them, in the order of tests/targets).
# Only from a run that passed and covered every target (tests/out/summary,
# written by tests/run.sh): the README must not show a failed run's tables,
# nor the two rows of a `make check` in place of all kernels.
#   scripts/update-readme-matrix.sh [RESULTS]   RESULTS: a guest's results.txt
set -eu
cd "$(dirname "$0")/.."
summary=tests/out/summary
[ -f "$summary" ] || { echo "no $summary: run 'sudo make check-all' first" >&2; exit 1; }
sget() { sed -n "s/^$1=//p" "$summary"; }
failed=$(sget failed)
[ "$failed" = 0 ] ||
	{ echo "the last run failed (${failed:-?} failed, $(sget passed) passed): its tables do not go into README.md" >&2; exit 1; }
[ "$(sget suite)" = all ] && [ -z "$(sget targets)" ] ||
	{ echo "the last run was not a whole 'make check-all' (suite=$(sget suite) targets='$(sget targets)')" >&2; exit 1; }
table=tests/out/kernel-matrix.md
[ -f "$table" ] || { echo "no $table: run 'sudo make check' first" >&2; exit 1; }
rel=tests/out/reliability.md
[ -f "$rel" ] || { echo "no $rel: run 'sudo make check' first" >&2; exit 1; }
for m in kernel-matrix reliability workflow; do
	grep -q "^<!-- $m:begin -->\$" README.md && grep -q "^<!-- $m:end -->\$" README.md ||
		{ echo "README.md has no $m markers" >&2; exit 1; }
done
results=${1:-}
if [ -z "$results" ]; then
	for t in $(sed -n 's/^\([a-z][^ ]*\) .*/\1/p' tests/targets); do
		if grep -q '^WORKFLOW| ' "tests/out/$t/results.txt" 2>/dev/null; then
			results=tests/out/$t/results.txt
			break
		fi
	done
fi
[ -n "$results" ] || { echo "no guest printed the workflow: run 'sudo make check' first" >&2; exit 1; }
wf=$(mktemp)
trap 'rm -f "$wf"' EXIT
{ echo '```console'; sed -n 's/^WORKFLOW| //p' "$results"; echo '```'; } > "$wf"
awk -v table="$table" -v wf="$wf" -v rel="$rel" '
	/^<!-- kernel-matrix:begin -->$/ { print; while ((getline l < table) > 0) print l; skip = 1; next }
	/^<!-- reliability:begin -->$/ { print; while ((getline l < rel) > 0) print l; skip = 1; next }
	/^<!-- workflow:begin -->$/ { print; while ((getline l < wf) > 0) print l; skip = 1; next }
	/^<!-- (kernel-matrix|reliability|workflow):end -->$/ { skip = 0 }
	!skip { print }
' README.md > README.md.new
mv README.md.new README.md
echo "README.md: kernel matrix from $table, reliability from $rel, workflow from $results"
