# SPDX-License-Identifier: GPL-2.0
# Result lines of the scripts that run inside chroots and guests (sourced,
# POSIX sh): "ok - NAME" or "not ok - NAME: reason", with the output of a
# step as "# " comment lines. The host turns them into results
# (collect_tap in common.sh).

ok() { echo "ok - $1"; }
notok() { echo "not ok - $1: $2"; }

# step NAME COMMAND...: ok if COMMAND succeeds. Its output is shown (the
# end of it) either way, and its last line is the reason of a failure.
step() {
	_n=$1
	shift
	if _o=$("$@" 2>&1); then
		[ -z "$_o" ] || echo "$_o" | tail -n 15 | sed 's/^/# /'
		ok "$_n"
	else
		[ -z "$_o" ] || echo "$_o" | tail -n 40 | sed 's/^/# /'
		notok "$_n" "$(echo "$_o" | tail -n 1)"
	fi
}
