#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Checks of the test harness itself, run on the build machine.
#
# copy_tree (tests/lib/common.sh) gives the chroots the sources to build in.
# A user who ran `make`, `make utils` or `sudo make install` in the tree has
# build products there; the copy must not carry them, with git and without
# (a release tarball), or the hand builds in the chroots (make clean, the
# tree comparison of make_clean_restores_tree) fail on a tree someone built in.
set -u
TTYPAIR_SRC=$(cd "$(dirname "$0")/../.." && pwd)
. "$TTYPAIR_SRC/tests/lib/common.sh"
TTYPAIR_STAGE=harness
REAL_SRC=$TTYPAIR_SRC
S=$TTYPAIR_OUT/harness

# The files of a tree, relative, sorted
files_of() { (cd "$1" && find . -path ./.git -prune -o -type f -print | LC_ALL=C sort); }

# A copy of this tree's sources, built in as a user would, with one new
# source file that git does not know yet (it must be copied)
built_tree() {
	rm -rf "$S" && mkdir -p "$S/tree" || return 1
	(cd "$REAL_SRC" && git ls-files -z -c | tar --null -T - -cf -) | tar -C "$S/tree" -xf - ||
		return 1
	echo "/* new */" > "$S/tree/src/not-yet-added.c"
	files_of "$S/tree" > "$S/sources"
	if command -v cc > /dev/null; then
		make -s -C "$S/tree" utils > "$S/make.log" 2>&1 || { cat "$S/make.log"; return 1; }
	else
		touch "$S/tree/utils/ttypairctl"
	fi
	# what a module build leaves (kbuild's products and the probe results)
	mkdir -p "$S/tree/.generated/6.1.0-99-amd64/probes" "$S/tree/.tmp_versions" "$S/tree/tests/out"
	for f in ttypair.ko ttypair.mod ttypair.mod.c ttypair.o .ttypair.ko.cmd src/main.o \
		src/.main.o.cmd modules.order Module.symvers .generated/6.1.0-99-amd64/ttypair_probes.h \
		.generated/6.1.0-99-amd64/probes/x.res tests/out/results; do
		echo x > "$S/tree/$f"
	done
	[ -x "$S/tree/utils/ttypairctl" ] || [ -f "$S/tree/utils/ttypairctl" ] || return 1
}

# copy_tree of the built tree: the sources, nothing else
copied_sources_only() {
	rm -rf "$S/copy"
	TTYPAIR_SRC=$S/tree copy_tree "$S/copy" || return 1
	files_of "$S/copy" > "$S/copied"
	diff -u "$S/sources" "$S/copied" || { echo "copy_tree $1 copied other files than the sources"; return 1; }
	echo "copy_tree $1: $(wc -l < "$S/copied") files, no build products"
}

t_with_git() {
	built_tree || return 1
	git -C "$S/tree" init -q && git -C "$S/tree" add -A . > /dev/null || return 1
	# git itself must ignore them (.gitignore), not only copy_tree
	added=$(git -C "$S/tree" ls-files -c | grep -e 'ttypairctl$' -e '\.ko$' -e '^\.generated/')
	[ -z "$added" ] || { echo "$added"; echo "git add took build products: .gitignore misses them"; return 1; }
	copied_sources_only "with git"
}
t_check harness_copy_tree_skips_build_products t_with_git

t_without_git() {
	built_tree || return 1
	copied_sources_only "without git"
}
t_check harness_copy_tree_skips_build_products_no_git t_without_git

rm -rf "$S"
