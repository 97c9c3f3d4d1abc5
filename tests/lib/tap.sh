# SPDX-License-Identifier: GPL-2.0
# Result lines of the scripts that run inside chroots and guests (sourced,
# POSIX sh): "ok - NAME", "not ok - NAME: reason" or "skip - NAME: reason"
# (what could not be checked here: counted apart, never as a pass), with the
# output of a step as "# " comment lines. The host turns them into results
# (collect_tap in common.sh).

ok() { echo "ok - $1"; }
notok() { echo "not ok - $1: $2"; }
skip() { echo "skip - $1: $2"; }

# Exit status of a step's COMMAND that means "skipped" (as in automake)
TAP_SKIP=77

# step NAME COMMAND...: ok if COMMAND succeeds, skip if it returns
# $TAP_SKIP, else not ok. Its output is shown (the end of it) either way,
# and its last line is the reason of a failure or a skip.
# guest_only NAME: whether a developer's run of some of the guest's tests
# (tests/dev-guest.sh: TTYPAIR_GUEST_ONLY, shell patterns separated by |)
# includes NAME; every run without it includes everything
guest_only() {
	[ -n "${TTYPAIR_GUEST_ONLY:-}" ] || return 0
	_go_ifs=$IFS
	IFS='|'
	set -f
	# shellcheck disable=SC2086 # split at |, not expanded
	set -- "$1" $TTYPAIR_GUEST_ONLY
	set +f
	IFS=$_go_ifs
	_go_n=$1
	shift
	for _go_p in "$@"; do
		# shellcheck disable=SC2254 # a pattern
		case $_go_n in $_go_p) return 0 ;; esac
	done
	return 1
}

step() {
	_n=$1
	shift
	guest_only "$_n" || return 0
	_o=$("$@" 2>&1)
	_rc=$?
	if [ "$_rc" = 0 ]; then
		[ -z "$_o" ] || echo "$_o" | tail -n 15 | sed 's/^/# /'
		ok "$_n"
	elif [ "$_rc" = "$TAP_SKIP" ]; then
		[ -z "$_o" ] || echo "$_o" | tail -n 15 | sed 's/^/# /'
		skip "$_n" "$(echo "$_o" | tail -n 1)"
	else
		[ -z "$_o" ] || echo "$_o" | tail -n 40 | sed 's/^/# /'
		notok "$_n" "$(echo "$_o" | tail -n 1)"
	fi
}
