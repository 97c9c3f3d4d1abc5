# SPDX-License-Identifier: GPL-2.0
# Shared helpers of the test harness (sourced, POSIX sh).
#
# Every check records one result line in $TTYPAIR_RESULTS:
#   PASS <name>
#   FAIL <name>: <reason>
#   SKIP <name>: <reason>     (it could not be checked here; not a pass)
# tests/run.sh counts them at the end.

: "${TTYPAIR_SRC:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${TTYPAIR_OUT:=$TTYPAIR_SRC/tests/out}"
: "${TTYPAIR_CACHE:=/var/cache/ttypair-tests}"
: "${TTYPAIR_RESULTS:=$TTYPAIR_OUT/results}"

log() {
	printf '%s [%s] %s\n' "$(date +%H:%M:%S)" "${TTYPAIR_STAGE:-run}" "$*"
}

die() {
	log "ERROR: $*" >&2
	exit 1
}

t_pass() {
	printf 'PASS %s\n' "$1" >> "$TTYPAIR_RESULTS"
	log "PASS $1"
}

t_fail() {
	printf 'FAIL %s: %s\n' "$1" "$2" >> "$TTYPAIR_RESULTS"
	log "FAIL $1: $2"
}

t_skip() {
	printf 'SKIP %s: %s\n' "$1" "$2" >> "$TTYPAIR_RESULTS"
	log "SKIP $1: $2"
}

# t_check NAME COMMAND...: PASS if the command succeeds, else FAIL with the
# last line of its output as the reason. The output goes to the log.
t_check() {
	_name=$1
	shift
	_out=$TTYPAIR_OUT/.t_check.$$
	if "$@" > "$_out" 2>&1; then
		sed 's/^/    /' "$_out"
		t_pass "$_name"
	else
		sed 's/^/    /' "$_out"
		t_fail "$_name" "$(tail -n 1 "$_out")"
	fi
	rm -f "$_out"
}

ttypair_version() {
	sed -n 's/^PACKAGE_VERSION="\([^"]*\)"$/\1/p' "$TTYPAIR_SRC/dkms.conf"
}

# The Debian archive this machine's apt uses (never written into the tree).
debian_mirror() {
	_m=$(sed -n 's/^URIs:[[:space:]]*//p' /etc/apt/sources.list.d/*.sources \
		2>/dev/null | tr ' ' '\n' | grep -v security | head -n 1)
	if [ -z "$_m" ]; then
		_m=$(sed -n 's/^deb[[:space:]]\+\(\[[^]]*\][[:space:]]\+\)\?\([^[:space:]]*\).*/\2/p' \
			/etc/apt/sources.list 2>/dev/null | grep -v security | head -n 1)
	fi
	[ -n "$_m" ] || die "cannot find the Debian archive in this machine's apt sources"
	echo "$_m"
}

# collect_tap PREFIX FILE: turn the "ok - X", "not ok - X: why" and
# "skip - X: why" lines of FILE (tests/lib/tap.sh, written in a chroot or a
# guest) into results named PREFIX/X.
collect_tap() {
	while IFS= read -r _line; do
		_line=$(printf '%s' "$_line" | tr -d '\r')
		case $_line in
		"ok - "*) t_pass "$1/${_line#ok - }" ;;
		"not ok - "*)
			_rest=${_line#not ok - }
			t_fail "$1/${_rest%%: *}" "${_rest#*: }"
			;;
		"skip - "*)
			_rest=${_line#skip - }
			t_skip "$1/${_rest%%: *}" "${_rest#*: }"
			;;
		esac
	done < "$2"
}

# step_names SCRIPT [ARM]: the results SCRIPT promises, read from the script
# itself: the NAME of each line that starts (after blanks) with
# "step NAME", "t_check NAME" or "t_pass NAME". With ARM, only those in the
# case arm "ARM)" (up to its ";;"), for scripts whose argument picks steps.
step_names() {
	awk -v arm="${2:-}" '
	arm != "" && !inarm {
		if ($1 != arm ")") next
		inarm = 1
		sub(/^[ \t]*[^ \t]+\)[ \t]*/, "")
	}
	($1 == "step" || $1 == "t_check" || $1 == "t_pass") && $2 ~ /^[a-z0-9_]+$/ { print $2 }
	inarm && /;;[ \t]*$/ { inarm = 0 }
	' "$1"
}

# expect_results PREFIX "NAME...": a FAIL "did not run" for every NAME that
# has no result PREFIX/NAME (no PREFIX: NAME), so that a step that dies
# before its result line cannot pass by saying nothing.
expect_results() {
	for _e in $2; do
		_r=${1:+$1/}$_e
		grep -Eq "^(PASS|FAIL|SKIP) $_r(:|\$)" "$TTYPAIR_RESULTS" ||
			t_fail "$_r" "did not run"
	done
}

# copy_tree DEST: the project's files as they are now, without build
# products, copied to DEST. The tests build in the copy, and a user may have
# built in the tree (`make install` leaves utils/ttypairctl): the copy must
# be the sources only, or `make clean` in it removes more than it holds.
# With git: the tracked and the untracked-but-not-ignored files. Without
# (a release tarball): everything but what .gitignore names (tests/host/
# harness-checks.sh checks both).
copy_tree() {
	mkdir -p "$1"
	if [ -e "$TTYPAIR_SRC/.git" ] && git -C "$TTYPAIR_SRC" rev-parse --git-dir > /dev/null 2>&1; then
		(cd "$TTYPAIR_SRC" && git ls-files -z -co --exclude-standard |
			tar --null -T - -cf -) | tar -C "$1" -xf -
	else
		# .gitignore's patterns as tar's: "/x" is ./x at the top,
		# "x/" a directory, anything else a name anywhere
		sed -e '/^#/d' -e '/^[[:space:]]*$/d' -e 's|/$||' -e 's|^/|./|' \
			"$TTYPAIR_SRC/.gitignore" > "$1.exclude"
		(cd "$TTYPAIR_SRC" && tar --exclude-from="$1.exclude" -cf - .) |
			tar -C "$1" -xf -
		rm -f "$1.exclude"
	fi
}
