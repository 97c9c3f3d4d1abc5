#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Checks of the tree itself, run on the build machine: kernel coding style
# (checkpatch.pl --strict from Debian's linux-source package), the version
# number, and the rules for Kbuild, Makefile and dkms.conf.
set -u
TTYPAIR_SRC=$(cd "$(dirname "$0")/../.." && pwd)
. "$TTYPAIR_SRC/tests/lib/common.sh"
TTYPAIR_STAGE=static
cd "$TTYPAIR_SRC" || exit 1
VER=$(ttypair_version)

# checkpatch.pl (and the files it reads) from the newest linux-source-*
checkpatch() {
	tarball=$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V | tail -n 1)
	[ -n "$tarball" ] || return 1
	base=$(basename "$tarball" .tar.xz)
	dir=$TTYPAIR_CACHE/$base-$(stat -c %s "$tarball")
	if [ ! -f "$dir/scripts/checkpatch.pl" ]; then
		log "extracting checkpatch.pl from $tarball" >&2
		mkdir -p "$dir"
		tar -C "$dir" --strip-components=1 -xf "$tarball" \
			"$base/scripts/checkpatch.pl" "$base/scripts/spelling.txt" \
			"$base/scripts/const_structs.checkpatch" "$base/scripts/kernel-doc" || return 1
	fi
	echo "$dir/scripts/checkpatch.pl"
}

t_checkpatch() {
	cp=$(checkpatch) || { echo "no linux-source package with checkpatch.pl"; return 1; }
	echo "using $cp"
	# shellcheck disable=SC2046
	out=$(perl "$cp" --strict --no-tree --terse --show-types -f \
		$(find src include compat -name '*.[ch]' | sort) 2>&1)
	echo "$out"
	bad=$(echo "$out" | grep -E ": (ERROR|WARNING|CHECK):")
	[ -z "$bad" ] || { echo "checkpatch: $(echo "$bad" | wc -l) problems"; return 1; }
	# and it does find problems: a file in the wrong style must be flagged
	printf '// SPDX-License-Identifier: GPL-2.0\nint f(int x){ return x ;}\n' \
		> "$TTYPAIR_OUT/bad-style.c"
	perl "$cp" --strict --no-tree --terse -f "$TTYPAIR_OUT/bad-style.c" | grep -q ERROR ||
		{ echo "checkpatch did not flag a badly styled file"; return 1; }
	echo "checkpatch --strict: $(find src include compat -name '*.[ch]' | wc -l) files clean"
}
t_check checkpatch_strict t_checkpatch

# kernel-doc: well-formed everywhere, and present on every function that one
# source file offers the others (the prototypes in include/ttypair.h)
t_kernel_doc() {
	cp=$(checkpatch) || return 1
	kd=$(dirname "$cp")/kernel-doc
	[ -f "$kd" ] || { rm -f "$cp"; cp=$(checkpatch) || return 1; }
	out=$(perl "$kd" -none -Werror src/*.c include/*.h 2>&1) || { echo "$out"; return 1; }
	[ -z "$out" ] || { echo "$out"; return 1; }
	missing=
	for f in $(grep -v '^static' include/ttypair.h | sed -n 's/^[a-z].*[ *]\(ttypair_[a-z_]*\)(.*/\1/p'); do
		grep -q "^ \* $f() - " src/*.c || missing="$missing $f"
	done
	[ -z "$missing" ] || { echo "no kernel-doc comment for:$missing"; return 1; }
	echo "kernel-doc: $(grep -c '^/\*\*' src/*.c include/*.h | awk -F: '{ n += $2 } END { print n }') comments, all well-formed"
}
t_check kernel_doc t_kernel_doc

t_version() {
	echo "$VER" | grep -Eq '^[0-9]+\.[0-9]+\.[0-9]+$' ||
		{ echo "dkms.conf PACKAGE_VERSION '$VER' is not N.N.N"; return 1; }
	[ "$(grep -c '^PACKAGE_VERSION=' dkms.conf)" = 1 ] || return 1
	grep -q 'MODULE_VERSION(TTYPAIR_VERSION)' src/main.c ||
		{ echo "MODULE_VERSION does not use TTYPAIR_VERSION"; return 1; }
	grep -q 'dkms.conf' Kbuild || { echo "Kbuild does not take the version from dkms.conf"; return 1; }
	[ "$(make -s --no-print-directory version)" = "$VER" ] || { echo "make version disagrees"; return 1; }
	# No other file may spell the version out.
	# (debian/changelog, the spec and the PKGBUILDs must carry it too:
	# tests/deb-build.sh, tests/rpm-build.sh and tests/archlinux-build.sh check
	# that they agree)
	hits=$(git grep -l -F "$VER" -- . ':!dkms.conf' ':!debian/changelog' ':!rpm/ttypair.spec' \
		':!archlinux/*/PKGBUILD' 2>/dev/null || true)
	[ -z "$hits" ] || { echo "the version is also written in: $hits"; return 1; }
	echo "version $VER, defined once in dkms.conf"
}
t_check version_defined_once t_version

t_kbuild() {
	grep -Eq '^obj-m[[:space:]]*:?=[[:space:]]*ttypair\.o' Kbuild || { echo "no obj-m := ttypair.o"; return 1; }
	objs=$(sed -n 's/^ttypair-y[[:space:]]*:\?=//p' Kbuild | wc -w)
	[ "$objs" -ge 3 ] || { echo "ttypair-y lists $objs objects"; return 1; }
	grep -q 'ccflags-y' Kbuild || return 1
	! grep -rn 'EXTRA_CFLAGS' Kbuild Makefile || { echo "EXTRA_CFLAGS is not honoured by new kernels"; return 1; }
	[ "$(grep -v '^#' Makefile | grep -c 'uname')" = 1 ] &&
		grep -q '^KVER ?= $(shell uname -r)$' Makefile ||
		{ echo "uname must appear once, as KVER ?= \$(shell uname -r)"; return 1; }
	! grep -rn 'uname' Kbuild dkms.conf || { echo "uname in Kbuild or dkms.conf"; return 1; }
	grep -q '^KDIR ?= /lib/modules/$(KVER)/build$' Makefile || return 1
	grep -q '$(MAKE) -C $(KDIR) M=$(CURDIR) modules' Makefile || return 1
	# no compatibility #if on versions outside include/
	! grep -rn 'LINUX_VERSION_CODE\|KERNEL_VERSION(' src || { echo "version tests in src/"; return 1; }
	! grep -rn '^#if.*TTYPAIR_HAVE_' src || { echo "probe tests in src/"; return 1; }
}
t_check kbuild_and_makefile_rules t_kbuild

t_dkms_conf() {
	for k in 'PACKAGE_NAME="ttypair"' 'BUILT_MODULE_NAME\[0\]="ttypair"' \
		'DEST_MODULE_LOCATION\[0\]="/updates/dkms"' 'AUTOINSTALL="yes"' \
		'PACKAGE_VERSION="[0-9.]*"'; do
		grep -Eq "^$k\$" dkms.conf || { echo "dkms.conf lacks $k"; return 1; }
	done
	! grep -Eq '^(CLEAN|REMAKE_INITRD|MODULES_CONF)' dkms.conf ||
		{ echo "dkms.conf uses a deprecated directive"; return 1; }
	bash -n dkms.conf || return 1
}
t_check dkms_conf_directives t_dkms_conf

t_layout() {
	for f in dkms.conf Makefile Kbuild README.md LICENSE .ci/run src include tests docs/ARCHITECTURE.md \
		docs/user-guide.md docs/behaviour.md docs/recipes.md docs/testing.md docs/packaging.md \
		docs/performance.md docs/reliability.md docs/kernels.md; do
		[ -e "$f" ] || { echo "missing $f"; return 1; }
	done
	# not tests/out: the guests' roots of a run in progress (make bench)
	for f in $(find src include compat tests scripts utils docs/recipes -path tests/out -prune -o \
			\( -name '*.[ch]' -o -name '*.sh' -o -name '*.py' \) -print); do
		head -n 3 "$f" | grep -q 'SPDX-License-Identifier: GPL-2.0' ||
			{ echo "$f has no SPDX line"; return 1; }
	done
}
t_check layout_and_spdx t_layout

# Every script parses with the interpreter it names (sh for the sourced
# libraries): a quote that ends an awk program early is a syntax error that
# only the one run of that script would otherwise find.
t_script_syntax() {
	n=0 bad=
	for f in $(git ls-files | grep -v '^tests/out/'); do
		[ -f "$f" ] || continue
		first=$(head -n 1 "$f")
		case "$first" in
		'#!/bin/sh'*) sh -n "$f" || bad="$bad $f" ;;
		'#!/bin/bash'* | '#!/usr/bin/env bash'*) bash -n "$f" || bad="$bad $f" ;;
		'#!/usr/bin/python3'*) python3 -c 'import ast, sys; ast.parse(open(sys.argv[1]).read())' "$f" ||
			bad="$bad $f" ;;
		*) case "$f" in
			*.sh) sh -n "$f" || bad="$bad $f" ;;
			*.py) python3 -c 'import ast, sys; ast.parse(open(sys.argv[1]).read())' "$f" ||
				bad="$bad $f" ;;
			*) continue ;;
			esac ;;
		esac
		n=$((n + 1))
	done
	[ -z "$bad" ] || { echo "syntax errors in:$bad"; return 1; }
	# and the check does see one
	printf '#!/bin/sh\nawk '\''{ print "it'\''s" }'\''\n' > "$TTYPAIR_OUT/bad-quote.sh"
	! sh -n "$TTYPAIR_OUT/bad-quote.sh" 2>/dev/null ||
		{ echo "sh -n passed a script with an unbalanced quote"; return 1; }
	echo "$n scripts parse"
}
t_check scripts_parse t_script_syntax

# The behaviour specification (docs/behaviour.md) and the guest's tests
# map one to one: every functional test (the tables of tests/guest/*-tests.c
# and ttypair-test.c, the steps of serial-tools.sh, enum-tests.sh,
# session-tests.sh and the recipes) has
# exactly one row, and every row names a test that exists.
t_behaviour_rows() {
	tests=$( (sed -n 's/^[[:space:]]*{ "\([a-z0-9_]*\)", t_.*/\1/p' \
		tests/guest/ttypair-test.c tests/guest/*-tests.c
		sed -n 's/^step \([a-z0-9_]*\) .*/\1/p' tests/guest/serial-tools.sh \
			tests/guest/enum-tests.sh tests/guest/session-tests.sh \
			tests/guest/recipes-test.sh) | sort)
	steps=$(sed -n 's/^step \([a-z0-9_]*\) .*/\1/p' tests/guest/guest-tests.sh \
		tests/guest/manage-tests.sh | sort)
	rows=$(sed -n 's/^|.*| `\([a-z0-9_]*\)` |$/\1/p' docs/behaviour.md | sort)
	[ -n "$tests" ] && [ -n "$rows" ] || { echo "no tests or no rows found"; return 1; }
	dup=$(echo "$rows" | uniq -d)
	[ -z "$dup" ] || { echo "rows naming the same test:" $dup; return 1; }
	missing=$(echo "$tests" | while read -r t; do
		echo "$rows" | grep -qx "$t" || echo "$t"; done)
	[ -z "$missing" ] || { echo "tests without a row in docs/behaviour.md:" $missing; return 1; }
	unknown=$(echo "$rows" | while read -r t; do
		printf '%s\n%s\n' "$tests" "$steps" | grep -qx "$t" || echo "$t"; done)
	[ -z "$unknown" ] || { echo "rows of docs/behaviour.md naming no test:" $unknown; return 1; }
	echo "docs/behaviour.md: $(echo "$rows" | wc -l) behaviour rows, one per test"
}
t_check behaviour_rows_match_tests t_behaviour_rows

# The README is a front page: at most 200 lines, the reference is in docs/
t_readme_short() {
	n=$(wc -l < README.md)
	[ "$n" -le 200 ] || { echo "README.md has $n lines, more than 200: move reference to docs/"; return 1; }
	echo "README.md: $n lines"
}
t_check readme_short t_readme_short

# Every relative link of the README and the documents resolves (file and
# heading); and the check does see a broken one
t_doc_links() {
	python3 tests/host/doc-links.py README.md SECURITY.md docs/*.md || return 1
	printf '# A\n[x](#a) [y](nowhere.md) [z](#b)\n' > "$TTYPAIR_OUT/bad-links.md"
	out=$(python3 tests/host/doc-links.py "$TTYPAIR_OUT/bad-links.md") &&
		{ echo "doc-links.py passed a file with broken links"; return 1; }
	[ "$(echo "$out" | grep -c 'bad-links.md:2:')" = 2 ] ||
		{ echo "$out"; echo "doc-links.py did not report the two broken links"; return 1; }
}
t_check doc_links_resolve t_doc_links

# Every console block marked to be run (<!-- recipe NAME:begin --> in
# README.md and docs/recipes.md) is run by a step of the guest tests, and
# every such step has its block
t_run_blocks() {
	n=0
	for doc in README.md docs/recipes.md; do
		for name in $(sed -n 's/^<!-- recipe \([a-z0-9_]*\):begin -->$/\1/p' "$doc"); do
			grep -Eq "^step [a-z0-9_]+ t_recipe $doc $name( |\$)" tests/guest/recipes-test.sh ||
				{ echo "$doc: recipe $name is run by no step of tests/guest/recipes-test.sh"; return 1; }
			grep -q "^<!-- recipe $name:end -->\$" "$doc" || { echo "$doc: recipe $name has no end marker"; return 1; }
			n=$((n + 1))
		done
	done
	sed -n 's/^step [a-z0-9_]* t_recipe \([^ ]*\) \([a-z0-9_]*\).*/\1 \2/p' tests/guest/recipes-test.sh > "$TTYPAIR_OUT/recipe-steps"
	while read -r doc name; do
		grep -q "^<!-- recipe $name:begin -->\$" "$doc" || { echo "a step runs recipe $name, which $doc does not have"; return 1; }
	done < "$TTYPAIR_OUT/recipe-steps"
	[ "$n" = "$(wc -l < "$TTYPAIR_OUT/recipe-steps")" ] || { echo "$n blocks, $(wc -l < "$TTYPAIR_OUT/recipe-steps") steps"; return 1; }
	grep -q '^<!-- recipe readme_workflow:begin -->$' README.md ||
		{ echo "README.md has no workflow block (recipe readme_workflow)"; return 1; }
	echo "$n command blocks marked to run, each run by a guest step"
}
t_check doc_blocks_run t_run_blocks

# The data-path diagram is drawn from its source as it is now
t_diagram() {
	want=$(sha256sum docs/dataflow.dot | cut -d' ' -f1)
	got=$(sed -n 's/^<!-- drawn from docs\/dataflow.dot, sha256 \([0-9a-f]*\) -->$/\1/p' docs/images/dataflow.svg)
	[ "$want" = "$got" ] || { echo "docs/images/dataflow.svg is not drawn from this docs/dataflow.dot: make docs-diagram"; return 1; }
	echo "docs/images/dataflow.svg drawn from docs/dataflow.dot as it is"
}
t_check diagram_current t_diagram

# ttypairctl --help, ttypairctl(8) and the user guide name the same
# commands, settings, options, exit statuses and environment
t_man_help() {
	cc -O2 -Wall -DTTYPAIR_VERSION="\"$VER\"" -o "$TTYPAIR_OUT/ttypairctl" utils/ttypairctl.c \
		utils/ttypairctl-bus.c utils/ttypairctl-session.c || return 1
	"$TTYPAIR_OUT/ttypairctl" --help > "$TTYPAIR_OUT/ttypairctl-help.txt" || return 1
	python3 tests/host/man-vs-help.py "$TTYPAIR_OUT/ttypairctl-help.txt" docs/man/ttypairctl.8 docs/user-guide.md
}
t_check man_page_matches_help t_man_help

# Every module parameter (src/main.c), configfs item and sysfs attribute
# (docs/ABI/) is named by ttypair(4) and by the user guide
t_interface_names() {
	params=$(sed -n 's/^module_param\(_named\|_cb\)\{0,1\}(\([a-z_]*\),.*/\2/p' src/main.c)
	attrs=$(sed -n 's|^What:.*/\([a-z0-9_]*\)$|\1|p' docs/ABI/* | sort -u)
	[ "$(echo "$params" | wc -w)" -ge 5 ] && [ "$(echo "$attrs" | wc -w)" -ge 15 ] ||
		{ echo "found only these parameters and attributes: $params / $attrs"; return 1; }
	for n in $params $attrs; do
		grep -q "$n" docs/man/ttypair.4 || { echo "ttypair(4) does not name $n"; return 1; }
		grep -q "\`$n\`\|\`$n=" docs/user-guide.md || { echo "docs/user-guide.md does not name \`$n\`"; return 1; }
	done
	echo "$(echo "$params" | wc -w) module parameters and $(echo "$attrs" | wc -w) attributes, each in ttypair(4) and the user guide"
}
t_check interface_names_documented t_interface_names

# The manual pages render without a warning (man-db and groff, as users
# read them)
t_man_pages() {
	for p in docs/man/ttypair.4 docs/man/ttypairctl.8; do
		err=$(LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=80 \
			man --warnings -E UTF-8 -l -Tutf8 -Z "$p" 2>&1 > "$TTYPAIR_OUT/man.out") ||
			{ echo "$err"; echo "man failed on $p"; return 1; }
		[ -z "$err" ] || { echo "$err"; echo "$p: warnings"; return 1; }
		[ "$(wc -l < "$TTYPAIR_OUT/man.out")" -gt 20 ] || { echo "$p rendered almost nothing"; return 1; }
	done
	# and the check does see a broken page
	printf '.TH X 1\n.SH NAME\nx \\- y\n.BOGUS\n' > "$TTYPAIR_OUT/bad.1"
	err=$(LC_ALL=C.UTF-8 man --warnings -E UTF-8 -l -Tutf8 -Z "$TTYPAIR_OUT/bad.1" 2>&1 >/dev/null)
	[ -n "$err" ] || { echo "man --warnings did not flag a broken page"; return 1; }
	echo "ttypair.4 and ttypairctl.8 render without warnings"
}
t_check man_pages_render t_man_pages
