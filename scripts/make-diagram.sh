#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `make docs-diagram`: draw docs/images/dataflow.svg from docs/dataflow.dot
# with Graphviz, recording the source's checksum in the SVG so that the
# static checks can tell a drawing that is older than its source.
set -eu
cd "$(dirname "$0")/.."
command -v dot > /dev/null || { echo "no Graphviz: apt install graphviz" >&2; exit 1; }
src=docs/dataflow.dot
out=docs/images/dataflow.svg
mkdir -p docs/images
sum=$(sha256sum "$src" | cut -d' ' -f1)
dot -Tsvg "$src" | sed "1a<!-- drawn from $src, sha256 $sum -->" > "$out.new"
mv "$out.new" "$out"
echo "$out: drawn from $src"
