#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make check`: the whole test suite. Installs the tools it needs on this
# machine, runs the static checks, then every target of tests/targets (or
# those named in TTYPAIR_TARGETS), and ends with "N passed, N failed".
#
# Environment (or make variables: make check TARGETS="sid-7.2"):
#   TTYPAIR_TARGETS="name ..."  run only these targets (kernel targets of
#                               tests/targets, deb-<suite> package tests)
#   TTYPAIR_JOBS=N              targets run at once (default 2: two guests
#                               on two cores)
#   TTYPAIR_CACHE               cached chroots (default /var/cache/ttypair-tests)
#   TTYPAIR_KEEP=1              keep the extracted chroots in tests/out
#   TTYPAIR_TEST_BYTES          size of the guests' integrity transfer
set -u
TTYPAIR_SRC=$(cd "$(dirname "$0")/.." && pwd)
export TTYPAIR_SRC
. "$TTYPAIR_SRC/tests/lib/common.sh"
export TTYPAIR_OUT TTYPAIR_CACHE TTYPAIR_RESULTS

[ "$(id -u)" = 0 ] || die "the tests build chroots and boot kernels: run 'sudo make check'"

rm -rf "$TTYPAIR_OUT"
mkdir -p "$TTYPAIR_OUT" "$TTYPAIR_CACHE"
: > "$TTYPAIR_RESULTS"
started=$(date +%s)

# Tools of the build machine
need="mmdebstrap qemu-system-x86 e2fsprogs linux-source-6.1 perl git tar xz-utils zstd util-linux kmod binutils rpm rpmlint cpio dpkg-dev man-db groff-base procps"
missing=
for p in $need; do
	dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	log "installing:$missing"
	# shellcheck disable=SC2086
	if ! { apt-get update -q && DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -q --no-install-recommends $missing; } > "$TTYPAIR_OUT/apt.log" 2>&1; then
		tail -n 20 "$TTYPAIR_OUT/apt.log"
		t_fail host_tools "apt-get install$missing failed"
	fi
fi
log "qemu: $(qemu-system-x86_64 --version | head -n 1); mmdebstrap $(mmdebstrap --version 2>/dev/null | head -n 1)"

sh "$TTYPAIR_SRC/tests/host/static-checks.sh"

# The Debian packages of this version (N) and of the next one (N+1, for the
# upgrade test), lintian and autopkgtest
bash "$TTYPAIR_SRC/tests/deb-build.sh"
# The RPM: make dist, make rpm (N and N+1), rpmlint, scriptlets with rpm --root
bash "$TTYPAIR_SRC/tests/rpm-build.sh"

: "${TTYPAIR_JOBS:=2}"
running=0
names=
jobs_started=

# launch NAME COMMAND...: run a job of the queue, at most TTYPAIR_JOBS at
# once, its output in tests/out/NAME/job.log, shown when it ends.
launch() {
	_name=$1
	shift
	if [ "$running" -ge "$TTYPAIR_JOBS" ]; then
		wait -n
		running=$((running - 1))
	fi
	log "=== $_name started"
	mkdir -p "$TTYPAIR_OUT/$_name"
	(
		"$@" > "$TTYPAIR_OUT/$_name/job.log" 2>&1
		log "=== $_name finished"
		sed "s/^/[$_name] /" "$TTYPAIR_OUT/$_name/job.log"
	) &
	running=$((running + 1))
	jobs_started=1
}

selected() {
	[ -z "${TTYPAIR_TARGETS:-}" ] && return 0
	case " $TTYPAIR_TARGETS " in *" $1 "*) return 0 ;; esac
	return 1
}

# The kernel targets. The debug kernel's goes first: building that kernel
# takes longest, and the other targets take turns in the second slot.
for pass in debug others; do
	while read -r name suite rest; do
		case $name in ''|'#'*) continue ;; esac
		selected "$name" || continue
		# shellcheck disable=SC2086
		set -- $rest
		extra=${!#}
		pkgs=$(echo "$rest" | awk '{ $NF = ""; print }' | xargs)
		want=others
		[ "${pkgs%% *}" != debug-kernel ] || want=debug
		[ "$want" = "$pass" ] || continue
		launch "$name" bash "$TTYPAIR_SRC/tests/target.sh" "$name" "$suite" "$pkgs" "$extra"
	done < "$TTYPAIR_SRC/tests/targets"
done
# the report's rows in the order of tests/targets
names=$(awk '$1 !~ /^#/ && NF { print $1 }' "$TTYPAIR_SRC/tests/targets" |
	while read -r name; do selected "$name" && echo "$name"; done | xargs)

# The package's lifecycle in four suites, in the same queue
for suite in ${TTYPAIR_DEB_SUITES-bullseye bookworm trixie sid}; do
	name=deb-$suite
	selected "$name" || continue
	n=$(ls "$TTYPAIR_OUT"/deb/n/ttypair-dkms_*_all.deb 2>/dev/null | head -n 1)
	n1=$(ls "$TTYPAIR_OUT"/deb/n1/ttypair-dkms_*_all.deb 2>/dev/null | head -n 1)
	if [ -z "$n" ] || [ -z "$n1" ]; then
		t_fail "$name/packages" "make deb failed: no packages to test"
		continue
	fi
	launch "$name" sh "$TTYPAIR_SRC/tests/deb-lifecycle.sh" "$name" "$suite" "$n" "$n1"
done
wait
[ -n "$names" ] || [ -n "${jobs_started:-}" ] ||
	t_fail targets "nothing matches TTYPAIR_TARGETS='${TTYPAIR_TARGETS:-}'"

[ -z "$names" ] || bash "$TTYPAIR_SRC/tests/matrix-report.sh" $names

passed=$(grep -c '^PASS ' "$TTYPAIR_RESULTS")
failed=$(grep -c '^FAIL ' "$TTYPAIR_RESULTS")
echo
echo "=== summary ($(( $(date +%s) - started )) s)"
grep '^FAIL ' "$TTYPAIR_RESULTS"
[ "$passed" -gt 0 ] || { echo "no test ran"; failed=$((failed + 1)); }
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
