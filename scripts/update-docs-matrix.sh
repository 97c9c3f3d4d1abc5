#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `make docs-matrix`: put what the last `make check-all` measured into the
# documentation: the supported-kernels table (tests/out/kernel-matrix.md)
# into docs/kernels.md, the reliability table (tests/out/reliability.md)
# into docs/reliability.md, and the transcript of the README's workflow
# in a guest (its "RECIPE readme_workflow| " lines; the first target that
# has them, in the order of tests/targets) into README.md, if that run ran
# the README's commands.
# Only from a run that passed and covered every target (tests/out/summary,
# written by tests/run.sh): the documents must not show a failed run's
# tables, nor the two rows of a `make check` in place of all kernels.
#   scripts/update-docs-matrix.sh [RESULTS]   RESULTS: a guest's results.txt
set -eu
cd "$(dirname "$0")/.."
summary=tests/out/summary
[ -f "$summary" ] || { echo "no $summary: run 'sudo make check-all' first" >&2; exit 1; }
sget() { sed -n "s/^$1=//p" "$summary"; }
failed=$(sget failed)
[ "$failed" = 0 ] ||
	{ echo "the last run failed (${failed:-?} failed, $(sget passed) passed): its tables do not go into the documents" >&2; exit 1; }
[ "$(sget suite)" = all ] && [ -z "$(sget targets)" ] ||
	{ echo "the last run was not a whole 'make check-all' (suite=$(sget suite) targets='$(sget targets)')" >&2; exit 1; }
table=tests/out/kernel-matrix.md
[ -f "$table" ] || { echo "no $table: run 'sudo make check-all' first" >&2; exit 1; }
rel=tests/out/reliability.md
[ -f "$rel" ] || { echo "no $rel: run 'sudo make check-all' first" >&2; exit 1; }
markers() {	# FILE NAME: FILE has NAME's begin and end markers
	grep -q "^<!-- $2:begin -->\$" "$1" && grep -q "^<!-- $2:end -->\$" "$1" ||
		{ echo "$1 has no $2 markers" >&2; exit 1; }
}
markers docs/kernels.md kernel-matrix
markers docs/reliability.md reliability
markers README.md "recipe readme_workflow"
results=${1:-}
if [ -z "$results" ]; then
	for t in $(sed -n 's/^\([a-z][^ ]*\) .*/\1/p' tests/targets); do
		if grep -q '^RECIPE readme_workflow| ' "tests/out/$t/results.txt" 2>/dev/null; then
			results=tests/out/$t/results.txt
			break
		fi
	done
fi
[ -n "$results" ] || { echo "no guest printed the workflow: run 'sudo make check-all' first" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# replace FILE NAME PART: the lines between NAME's markers in FILE become PART
replace() {
	awk -v part="$3" -v m="$2" '
		$0 == "<!-- " m ":begin -->" { print; while ((getline l < part) > 0) print l; skip = 1; next }
		$0 == "<!-- " m ":end -->" { skip = 0 }
		!skip { print }
	' "$1" > "$1.new"
	mv "$1.new" "$1"
}
replace docs/kernels.md kernel-matrix "$table"
replace docs/reliability.md reliability "$rel"
echo "docs/kernels.md: kernel matrix from $table; docs/reliability.md: reliability from $rel"
{ echo '```console'; sed -n 's/^RECIPE readme_workflow| //p' "$results"; echo '```'; } > "$tmp/wf"
sed -n '/^<!-- recipe readme_workflow:begin -->$/,/^<!-- recipe readme_workflow:end -->$/p' README.md | grep '^\$ ' > "$tmp/readme.cmds" || true
grep '^\$ ' "$tmp/wf" > "$tmp/run.cmds" || true
if cmp -s "$tmp/readme.cmds" "$tmp/run.cmds"; then
	replace README.md "recipe readme_workflow" "$tmp/wf"
	echo "README.md: workflow from $results"
else
	echo "README.md: workflow kept: that run ran other commands than the README's block has now" >&2
fi
