#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The kernel matrix of the last `make check`: one row per target from
# tests/out/<target>/matrix.txt, written to tests/out/kernel-matrix.md and
# printed. `make readme-matrix` copies it into README.md.
#   tests/matrix-report.sh TARGET...
set -u
TTYPAIR_SRC=$(cd "$(dirname "$0")/.." && pwd)
. "$TTYPAIR_SRC/tests/lib/common.sh"
out=$TTYPAIR_OUT/kernel-matrix.md
{
	echo "| target | Debian suite | kernel release | module compiler | dkms | vermagic | modversions | dkms build | guest tests |"
	echo "|---|---|---|---|---|---|---|---|---|"
	for t in "$@"; do
		f=$TTYPAIR_OUT/$t/matrix.txt
		if [ ! -f "$f" ]; then
			echo "| $t | - | - | - | - | - | - | not run | - |"
			continue
		fi
		get() { sed -n "s/^$1=//p" "$f" | sed 's/[[:space:]]*$//'; }
		echo "| $t | $(get suite) | $(get kernel) | $(get compiler) | $(get dkms) |" \
			"\`$(get vermagic)\` | $(get modversions) | $(get build) |" \
			"$(get guest_passed) passed, $(get guest_failed) failed |"
	done
	echo
	echo "Measured by \`sudo make check\` on $(date -u +%Y-%m-%d); regenerate this table with \`sudo make check && make readme-matrix\`."
} > "$out"
echo "=== kernel matrix"
cat "$out"
