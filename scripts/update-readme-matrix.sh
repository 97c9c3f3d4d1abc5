#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `make readme-matrix`: replace the supported-kernels table in README.md by
# the one the last `make check` wrote to tests/out/kernel-matrix.md.
set -eu
cd "$(dirname "$0")/.."
table=tests/out/kernel-matrix.md
[ -f "$table" ] || { echo "no $table: run 'sudo make check' first" >&2; exit 1; }
grep -q '^<!-- kernel-matrix:begin -->$' README.md && grep -q '^<!-- kernel-matrix:end -->$' README.md ||
	{ echo "README.md has no kernel-matrix markers" >&2; exit 1; }
awk -v table="$table" '
	/^<!-- kernel-matrix:begin -->$/ { print; while ((getline l < table) > 0) print l; skip = 1; next }
	/^<!-- kernel-matrix:end -->$/ { skip = 0 }
	!skip { print }
' README.md > README.md.new
mv README.md.new README.md
echo "README.md: kernel matrix updated from $table"
