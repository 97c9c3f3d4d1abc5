#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make check` and `make check-all`: the test suite. Installs the tools it
# needs on this machine, runs the static checks and the package builds, then
# the queue of jobs: the kernel targets of tests/targets, the builds for
# other architectures and the package lifecycles. Ends with "N passed, N failed, N skipped" (also
# written to tests/out/summary, which `make docs-matrix` reads).
#
#   make check      the kernel targets marked "check" in tests/targets (the
#                   oldest and the newest kernel), the i386 build and the
#                   bookworm package lifecycle: what CI runs
#   make check-all  every target, the builds for arm64 and armhf of Debian
#                   12 and 13 and i386 of 12, the package lifecycle in four
#                   suites
#
# Every job has a time limit and its exit status counts: a job that hangs,
# crashes or is killed is a failure (NAME/job), as is every result that a
# job's scripts promise and did not give ("did not run").
#
# Environment (or make variables: make check TARGETS="sid-7.2"):
#   TTYPAIR_SUITE=check|all     what runs (make check / make check-all)
#   TTYPAIR_TARGETS="name ..."  run only these jobs, from either list (kernel
#                               targets of tests/targets, i386-6.1,
#                               arm64-6.12 and the other cross builds,
#                               deb-<suite> package tests)
#   TTYPAIR_JOBS=N              jobs run at once (default 2: two guests
#                               on two cores)
#   TTYPAIR_JOB_TIMEOUT=S       time limit of a kernel target's or a package
#                               lifecycle's job (default 2700 s; the debug
#                               kernel's job gets 6600 s)
#   TTYPAIR_CACHE               cached chroots (default /var/cache/ttypair-tests)
#   TTYPAIR_KEEP=1              keep the extracted chroots in tests/out
#   TTYPAIR_TEST_BYTES          size of the guests' integrity transfer
set -u
TTYPAIR_SRC=$(cd "$(dirname "$0")/.." && pwd)
export TTYPAIR_SRC
. "$TTYPAIR_SRC/tests/lib/common.sh"
export TTYPAIR_OUT TTYPAIR_CACHE TTYPAIR_RESULTS

[ "$(id -u)" = 0 ] || die "the tests build chroots and boot kernels: run 'sudo make check'"
: "${TTYPAIR_SUITE:=check}"
export TTYPAIR_SUITE	# tests/matrix-report.sh names the run
case $TTYPAIR_SUITE in
check | all) ;;
*) die "TTYPAIR_SUITE is 'check' or 'all', not '$TTYPAIR_SUITE'" ;;
esac
: "${TTYPAIR_JOB_TIMEOUT:=2700}"

rm -rf "$TTYPAIR_OUT"
mkdir -p "$TTYPAIR_OUT" "$TTYPAIR_CACHE"
: > "$TTYPAIR_RESULTS"
started=$(date +%s)

# selected NAME [SET]: whether job NAME runs: named in TTYPAIR_TARGETS, or
# (none named) in this suite: SET is "check" (make check and make check-all)
# or "all" (make check-all only)
selected() {
	if [ -n "${TTYPAIR_TARGETS:-}" ]; then
		case " $TTYPAIR_TARGETS " in *" $1 "*) return 0 ;; esac
		return 1
	fi
	[ "$TTYPAIR_SUITE" = all ] || [ "${2:-check}" = check ]
}

# Tools of the build machine
need="mmdebstrap arch-test qemu-system-x86 e2fsprogs linux-source-6.1 perl git tar xz-utils zstd util-linux kmod binutils rpm rpmlint cpio dpkg-dev man-db groff-base procps python3-minimal python3-pip python3-setuptools python3-wheel gcc libc6-dev gnuplot-nox makepkg pacman-package-manager libarchive-tools fakeroot dnf createrepo-c"
# an arm64 target: its chroot's programs run by qemu-user-static through
# binfmt_misc, its kernel by qemu-system-aarch64
if awk '$1 !~ /^#/ && NF && $4 != "amd64" { print $1, $2 }' "$TTYPAIR_SRC/tests/targets" |
	while read -r name set; do selected "$name" "$set" && echo "$name"; done | grep -q .; then
	need="$need qemu-system-arm qemu-user-static binfmt-support"
fi
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

job_pids=
# A ^C or a kill ends the jobs too: each runs under timeout(1) in a process
# group of its own (so that its time limit ends all of it, QEMU included),
# which the terminal's signals do not reach
stop_jobs() {
	trap - INT TERM
	log "stopping the jobs"
	for _p in $job_pids; do
		pkill -TERM -P "$_p" 2> /dev/null
	done
	wait
	exit 130
}
trap stop_jobs INT TERM

# bounded NAME LIMIT COMMAND...: run COMMAND for at most LIMIT seconds (then
# it and everything it started are stopped), and record a failure NAME/job
# if it did not end, or ended with a status other than 0 (the scripts record
# their own failures and exit 0; anything else is a crash or a kill)
bounded() {
	_bn=$1 _bl=$2
	shift 2
	_bt=$(date +%s)
	timeout -k 30 "$_bl" "$@" < /dev/null &
	_bp=$!
	wait "$_bp"
	_brc=$?
	# 124: timeout's TERM ended it; 137: its KILL did, or another's
	if [ "$_brc" = 124 ] || { [ "$_brc" = 137 ] && [ $(( $(date +%s) - _bt )) -ge "$_bl" ]; }; then
		t_fail "$_bn/job" "stopped after its time limit of $_bl s"
	elif [ "$_brc" -gt 128 ]; then
		t_fail "$_bn/job" "killed by signal $((_brc - 128))"
	elif [ "$_brc" != 0 ]; then
		t_fail "$_bn/job" "exited with status $_brc"
	fi
}

# The static checks, those of the harness itself, and make install
# DESTDIR=... (a package's staging)
bounded static 900 sh "$TTYPAIR_SRC/tests/host/static-checks.sh" &
job_pids="$job_pids $!"
wait $!
expect_results "" "$(step_names "$TTYPAIR_SRC/tests/host/static-checks.sh")"
bounded harness 300 sh "$TTYPAIR_SRC/tests/host/harness-checks.sh" &
job_pids="$job_pids $!"
wait $!
expect_results "" "$(step_names "$TTYPAIR_SRC/tests/host/harness-checks.sh")"
bounded install 300 sh "$TTYPAIR_SRC/tests/host/install-checks.sh" &
job_pids="$job_pids $!"
wait $!
expect_results "" "$(step_names "$TTYPAIR_SRC/tests/host/install-checks.sh")"

# The Debian packages of this version (N) and of the next one (N+1, for the
# upgrade test), lintian and autopkgtest
bounded deb 2400 bash "$TTYPAIR_SRC/tests/deb-build.sh" &
job_pids="$job_pids $!"
wait $!
expect_results "" "$(step_names "$TTYPAIR_SRC/tests/deb-build.sh")"
# The RPM: make dist, make rpm (N and N+1), rpmlint, scriptlets with rpm --root
bounded rpm 2400 bash "$TTYPAIR_SRC/tests/rpm-build.sh" &
job_pids="$job_pids $!"
wait $!
expect_results "" "$(step_names "$TTYPAIR_SRC/tests/rpm-build.sh")
	$(step_names "$TTYPAIR_SRC/tests/rpm-scriptlets.sh")"
# The Arch Linux packages: makepkg, their files and metadata
bounded archlinux 600 bash "$TTYPAIR_SRC/tests/archlinux-build.sh" &
job_pids="$job_pids $!"
wait $!
expect_results "" "$(step_names "$TTYPAIR_SRC/tests/archlinux-build.sh")"

: "${TTYPAIR_JOBS:=2}"
running=0
names=
jobs_started=

# launch NAME LIMIT COMMAND...: run a job of the queue, at most TTYPAIR_JOBS
# at once and for at most LIMIT seconds, its output in
# tests/out/NAME/job.log, shown when it ends.
launch() {
	_name=$1 _limit=$2
	shift 2
	if [ "$running" -ge "$TTYPAIR_JOBS" ]; then
		wait -n	# bounded: every job has its time limit
		running=$((running - 1))
	fi
	log "=== $_name started (time limit $_limit s)"
	mkdir -p "$TTYPAIR_OUT/$_name"
	(
		bounded "$_name" "$_limit" "$@" > "$TTYPAIR_OUT/$_name/job.log" 2>&1
		log "=== $_name finished"
		sed "s/^/[$_name] /" "$TTYPAIR_OUT/$_name/job.log"
	) &
	job_pids="$job_pids $!"
	running=$((running + 1))
	jobs_started=1
}


# The kernel targets. The longest go first, one to a slot: the debug
# kernel's (building that kernel takes 20 minutes and more) and the
# foreign-architecture ones (arm64: its chroot runs under qemu-user, its
# guest under TCG, an hour and more); the others take turns after them, so
# that no long job is left alone at the end.
for pass in debug others; do
	while read -r name set suite arch rest; do
		case $name in ''|'#'*) continue ;; esac
		selected "$name" "$set" || continue
		# shellcheck disable=SC2086
		set -- $rest
		extra=${!#}
		pkgs=$(echo "$rest" | awk '{ $NF = ""; print }' | xargs)
		want=others limit=$TTYPAIR_JOB_TIMEOUT
		# building the debug kernel takes 20 minutes and more, its
		# guest up to 40; an arm64 chroot and guest run emulated
		# twice over (qemu-user, then TCG), 40 to 60 minutes
		[ "${pkgs%% *}" != debug-kernel ] || want=debug limit=$((TTYPAIR_JOB_TIMEOUT + 3900))
		[ "$arch" = amd64 ] || want=debug limit=$((TTYPAIR_JOB_TIMEOUT + 3900))
		[ "$want" = "$pass" ] || continue
		launch "$name" "$limit" bash "$TTYPAIR_SRC/tests/target.sh" "$name" "$suite" "$pkgs" "$extra" "$arch"
	done < "$TTYPAIR_SRC/tests/targets"
done
# the report's rows in the order of tests/targets
names=$(awk '$1 !~ /^#/ && NF { print $1, $2 }' "$TTYPAIR_SRC/tests/targets" |
	while read -r name set; do selected "$name" "$set" && echo "$name"; done | xargs)

# The module built for other architectures' kernels (tests/cross-build.sh):
# no guest, short jobs. make check: Debian 12's 32-bit i386; make check-all:
# arm64 and armhf of Debian 12 and 13 too (Debian 13 has no i386 kernel)
for cross in "i386-6.1 bookworm i386 check" \
	"arm64-6.1 bookworm arm64 all" "arm64-6.12 trixie arm64 all" \
	"armhf-6.1 bookworm armhf all" "armhf-6.12 trixie armhf all"; do
	# shellcheck disable=SC2086
	set -- $cross
	selected "$1" "$4" || continue
	launch "$1" "$TTYPAIR_JOB_TIMEOUT" sh "$TTYPAIR_SRC/tests/cross-build.sh" "$1" "$2" "$3"
	cross_names="${cross_names:-} $1"
done

# The package's lifecycle: in Debian 12 for make check, in four suites for
# make check-all, in the same queue
if [ "$TTYPAIR_SUITE" = all ] || [ -n "${TTYPAIR_TARGETS:-}" ]; then
	deb_suites=${TTYPAIR_DEB_SUITES-bullseye bookworm trixie sid}
else
	deb_suites=${TTYPAIR_DEB_SUITES-bookworm}
fi
for suite in $deb_suites; do
	name=deb-$suite
	selected "$name" || continue
	n=$(ls "$TTYPAIR_OUT"/deb/n/ttypair-dkms_*_all.deb 2>/dev/null | head -n 1)
	n1=$(ls "$TTYPAIR_OUT"/deb/n1/ttypair-dkms_*_all.deb 2>/dev/null | head -n 1)
	if [ -z "$n" ] || [ -z "$n1" ]; then
		t_fail "$name/packages" "make deb failed: no packages to test"
		continue
	fi
	launch "$name" "$TTYPAIR_JOB_TIMEOUT" sh "$TTYPAIR_SRC/tests/deb-lifecycle.sh" "$name" "$suite" "$n" "$n1"
done
wait	# bounded: every job has its time limit
[ -n "$names" ] || [ -n "${jobs_started:-}" ] ||
	t_fail targets "nothing matches TTYPAIR_TARGETS='${TTYPAIR_TARGETS:-}'"

[ -z "$names" ] || bash "$TTYPAIR_SRC/tests/matrix-report.sh" $names ${cross_names:-}

passed=$(grep -c '^PASS ' "$TTYPAIR_RESULTS")
failed=$(grep -c '^FAIL ' "$TTYPAIR_RESULTS")
skipped=$(grep -c '^SKIP ' "$TTYPAIR_RESULTS")
seconds=$(( $(date +%s) - started ))
echo
echo "=== summary ($seconds s)"
grep '^SKIP ' "$TTYPAIR_RESULTS"
grep '^FAIL ' "$TTYPAIR_RESULTS"
[ "$passed" -gt 0 ] || { echo "no test ran"; failed=$((failed + 1)); }
# what make docs-matrix needs to know of this run
{
	echo "suite=$TTYPAIR_SUITE"
	echo "targets=${TTYPAIR_TARGETS:-}"
	echo "passed=$passed"
	echo "failed=$failed"
	echo "skipped=$skipped"
	echo "seconds=$seconds"
} > "$TTYPAIR_OUT/summary"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
