#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# One test target: a Debian suite and its kernel.
#   tests/target.sh NAME SUITE "PACKAGES" "EXTRA_SUITES" [ARCH]
# ARCH (default amd64) is the Debian architecture of the chroot and of the
# guest: arm64 runs the chroot's programs with qemu-user-static and boots
# its kernel with qemu-system-aarch64 -M virt.
#
# 1. a chroot of SUITE with its own gcc, dkms, kernel image and headers;
# 2. the DKMS lifecycle and the hand builds inside it;
# 3. that kernel booted in QEMU with the chroot as its root disk, the module
#    loaded by modprobe and the functional tests run;
# 4. dkms uninstall/remove, and make install/uninstall, inside it again.
set -u
NAME=$1 SUITE=$2 PKGS=$3 EXTRA=$4 ARCH=${5:-amd64}
TTYPAIR_SRC=$(cd "$(dirname "$0")/.." && pwd)
. "$TTYPAIR_SRC/tests/lib/common.sh"
. "$TTYPAIR_SRC/tests/lib/chroot.sh"
. "$TTYPAIR_SRC/tests/lib/qemu.sh"
TTYPAIR_STAGE=$NAME
VER=$(ttypair_version)
W=$TTYPAIR_OUT/$NAME
ROOT=$W/root

# chroot_step LOG SCRIPT ARGS...: run tests/chroot/SCRIPT in the chroot, its
# output in W/LOG.log, and record its results; every step the script has
# (for its first argument, where that picks steps) must have one.
chroot_step() {
	_log=$W/$1.log _script=$2
	shift 2
	in_chroot "$ROOT" sh "/root/ttypair-src/tests/chroot/$_script" "$@" > "$_log" 2>&1
	cat "$_log"
	collect_tap "$NAME" "$_log"
	case $_script in
	dkms-lifecycle.sh) _arm=$1 ;;
	*) _arm= ;;
	esac
	expect_results "$NAME" "$(step_names "$TTYPAIR_SRC/tests/chroot/$_script" "$_arm")"
}

mkdir -p "$W"
if [ "$EXTRA" = - ]; then EXTRA=; fi
# The kernel "debug-kernel" is ours (tests/debug-kernel): built or taken
# from the cache, and installed from its .debs like any other kernel; the
# packages after it are what its headers need (libelf for objtool).
DEBS=
if [ "${PKGS%% *}" = debug-kernel ]; then
	DEBS=$(sh "$TTYPAIR_SRC/tests/debug-kernel/build.sh") || {
		t_fail "$NAME/debug_kernel_build" "the debug kernel did not build"
		exit 0
	}
	t_pass "$NAME/debug_kernel_build"
	PKGS=${PKGS#debug-kernel}
fi
# (the chroots of this machine's architecture keep the keys they had
# before architectures were named; a foreign one's maintainer scripts run
# emulated, three times slower)
foreign=
if [ "$ARCH" != amd64 ]; then
	foreign=$ARCH
	TTYPAIR_CHROOT_TIMEOUT=$((TTYPAIR_CHROOT_TIMEOUT * 3))
	foreign_arch "$ARCH" || {
		t_fail "$NAME/chroot" "this machine cannot run $ARCH programs (qemu-user-static, binfmt_misc)"
		exit 0
	}
fi
TTYPAIR_GUEST_ARCH=$ARCH
tar=$(chroot_tarball "$SUITE" "$PKGS" "$EXTRA" $foreign) || {
	t_fail "$NAME/chroot" "mmdebstrap of $SUITE failed"
	exit 0
}
log "extracting $tar"
chroot_extract "$tar" "$ROOT"
if [ -n "$DEBS" ]; then
	mkdir -p "$ROOT/root/debug-kernel"
	cp "$DEBS"/*.deb "$ROOT/root/debug-kernel/"
	in_chroot "$ROOT" sh -c 'dpkg -i /root/debug-kernel/*.deb' > "$W/debug-kernel-install.log" 2>&1 || {
		cat "$W/debug-kernel-install.log"
		t_fail "$NAME/chroot" "dpkg -i of the debug kernel failed"
		exit 0
	}
	rm -rf "$ROOT/root/debug-kernel"
	# The kernel trusts the key it was built with and nothing else: dkms
	# signs ttypair with it, as it signs with an enrolled MOK key on a
	# Secure Boot machine, and the guest refuses unsigned modules
	if [ -f "$DEBS/signing_key.pem" ]; then
		mkdir -p "$ROOT/root/module-signing" "$ROOT/etc/dkms/framework.conf.d"
		cp "$DEBS/signing_key.pem" "$DEBS/signing_key.x509" "$ROOT/root/module-signing/"
		chmod 600 "$ROOT/root/module-signing/signing_key.pem"
		{
			echo "# the debug kernel's own key (tests/target.sh)"
			echo "mok_signing_key=/root/module-signing/signing_key.pem"
			echo "mok_certificate=/root/module-signing/signing_key.x509"
		} > "$ROOT/etc/dkms/framework.conf.d/ttypair-tests.conf"
		TTYPAIR_KERNEL_ARGS="${TTYPAIR_KERNEL_ARGS:+$TTYPAIR_KERNEL_ARGS }module.sig_enforce=1"
	fi
fi
KVER=$(chroot_kernels "$ROOT" | tail -n 1)
[ -n "$KVER" ] || { t_fail "$NAME/chroot" "no kernel in the chroot"; exit 0; }
DKMSVER=$(in_chroot "$ROOT" dpkg-query -W -f '${Version}' dkms)
KCC=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\(.*\)"$/\1/p' "$ROOT/boot/config-$KVER")
log "target $NAME: Debian $SUITE, kernel $KVER (built with $KCC), dkms $DKMSVER"
t_pass "$NAME/chroot"

# The sources, as dkms wants them, and a copy to build by hand
copy_tree "$ROOT/usr/src/ttypair-$VER"
copy_tree "$ROOT/root/ttypair-src"

# 2. DKMS lifecycle (first half) and hand builds
chroot_step dkms-up dkms-lifecycle.sh up "$KVER"
cp "$ROOT/root/dkms-make.log" "$W/dkms-make.log" 2>/dev/null
chroot_step dkms-exclusive dkms-exclusive.sh "$KVER"

# Which probes chose what, against what tests/probe-expectations says
found=$(sed -n 's/^ttypair: *#define TTYPAIR_HAVE_\([A-Z0-9_]*\) 1$/\1/p' "$W/dkms-make.log" 2>/dev/null |
	tr 'A-Z' 'a-z' | sort | xargs)
want=$(awk -v t="$NAME" '$1 == t { $1 = ""; print }' "$TTYPAIR_SRC/tests/probe-expectations" |
	tr ' ' '\n' | sed '/^$/d' | sort | xargs)
log "feature probes found for $KVER: ${found:-none}"
grep '^ttypair: ' "$W/dkms-make.log" 2>/dev/null
if [ "$found" = "$want" ]; then
	t_pass "$NAME/probes_as_expected"
else
	t_fail "$NAME/probes_as_expected" "found '${found}', tests/probe-expectations says '${want}'"
fi

chroot_step build-checks build-checks.sh "$KVER" /root/ttypair-src

# 3. The guest, with the sizes of its reliability tests: on the debug
# kernel the stress and the fuzzing run longer: it is there that they
# can find the most (tests/guest/reliability-tests.sh)
if [ -n "$DEBS" ]; then
	stress=${TTYPAIR_STRESS_SECONDS:-${TTYPAIR_DEBUG_STRESS_SECONDS:-180}}
	fuzz=${TTYPAIR_FUZZ_SECONDS:-60} params=${TTYPAIR_FUZZ_PARAMS:-6}
	soak=${TTYPAIR_SOAK_MIB:-${TTYPAIR_DEBUG_SOAK_MIB:-256}}
else
	stress=${TTYPAIR_STRESS_SECONDS:-20} fuzz=${TTYPAIR_FUZZ_SECONDS:-15}
	params=${TTYPAIR_FUZZ_PARAMS:-8} soak=${TTYPAIR_SOAK_MIB:-128}
fi
# the guest's time limit grows with what was asked of it (a hang must not
# outlast CI's 90 minutes, a requested hour of stress must fit)
TTYPAIR_QEMU_TIMEOUT=$((TTYPAIR_QEMU_TIMEOUT + stress + fuzz + 2 * soak))
# an arm64 guest under TCG runs about three times slower than an amd64 one
if [ -n "$foreign" ]; then
	TTYPAIR_QEMU_TIMEOUT=$((TTYPAIR_QEMU_TIMEOUT * 3))
	TTYPAIR_BOOT_TIMEOUT=$((TTYPAIR_BOOT_TIMEOUT * 2))
fi
env="export TTYPAIR_STRESS_SECONDS=$stress TTYPAIR_FUZZ_SECONDS=$fuzz"
env="$env TTYPAIR_FUZZ_PARAMS=$params TTYPAIR_SOAK_MIB=$soak"
env="$env${TTYPAIR_SEED:+ TTYPAIR_SEED=$TTYPAIR_SEED}"
env="$env${TTYPAIR_TEST_BYTES:+ TTYPAIR_TEST_BYTES=$TTYPAIR_TEST_BYTES}"
if guest_prepare "$ROOT" "$VER" "$env" "$W/gcc.log"; then
	t_pass "$NAME/guest_tests_build"
else
	cat "$W/gcc.log"
	t_fail "$NAME/guest_tests_build" "$(tail -n 1 "$W/gcc.log")"
fi
expected=$( (sed -n 's/^step \([a-z0-9_]*\) .*/\1/p' "$TTYPAIR_SRC/tests/guest/guest-tests.sh" \
		"$TTYPAIR_SRC/tests/guest/serial-tools.sh" \
		"$TTYPAIR_SRC/tests/guest/manage-tests.sh" \
		"$TTYPAIR_SRC/tests/guest/enum-tests.sh" \
		"$TTYPAIR_SRC/tests/guest/ttypairctl-test.sh" \
		"$TTYPAIR_SRC/tests/guest/session-tests.sh" \
		"$TTYPAIR_SRC/tests/guest/recipes-test.sh" \
		"$TTYPAIR_SRC/tests/guest/bench-run.sh" \
		"$TTYPAIR_SRC/tests/guest/reliability-tests.sh"
	in_chroot "$ROOT" /opt/ttypair-tests/ttypair-test --list) | tr '\n' ' ')

if ls "$ROOT/lib/modules/$KVER/updates/dkms/ttypair.ko"* > /dev/null 2>&1; then
	guest_run "$NAME" "$W" "$ROOT" "$KVER"
	for e in $expected; do
		grep -Eq "^(ok|not ok|skip) - $e(:|\$)" "$W/results.txt" ||
			t_fail "$NAME/$e" "did not run in the guest"
	done
	# make bench's report, made from the guest's short benchmark run
	t_bench_report() {
		sed -n 's/^# \(BENCH .*\)/\1/p' "$W/results.txt" > "$W/bench-smoke.txt"
		sh "$TTYPAIR_SRC/scripts/bench-report.sh" "$W/bench-smoke.txt" "$KVER" tcg "$W/bench" || return 1
		rows=$(grep -c '^| ' "$W/bench/bench.md")
		# a row per measurement; its runs' _min and _max are in that row
		keys=$(awk '$1 == "BENCH" && NF == 6 && $5 !~ /_(min|max)$/ { print $2, $4, $5 }' \
			"$W/bench-smoke.txt" | sort -u | wc -l)
		[ "$rows" = $((keys + 1)) ] && [ "$keys" -ge 29 ] ||
			{ echo "bench.md has $rows lines for $keys measurements"; return 1; }
		for c in throughput latency baud-error; do
			grep -q '<svg' "$W/bench/$c.svg" 2>/dev/null || { echo "no chart $c.svg"; return 1; }
		done
		grep -q '^- every throughput row >= 0.95x pty (median of the run-by-run ratios): \(met\|missed\) (worst [0-9.]*x: [a-z]* [0-9]*)$' \
			"$W/bench/targets.md" || { echo "no throughput target line"; return 1; }
		# ttypair/pty measured run by run, its spread in brackets
		grep -q '^| one way, 1-byte writes (MiB/s) |.*| [0-9.]* ([0-9.]*-[0-9.]*) | [0-9.]* |$' \
			"$W/bench/bench.md" || { echo "no run-by-run ttypair/pty in bench.md"; return 1; }
		grep -q '^- no wake-ups and no timers while full pairs sit idle: \(met\|missed\) ([0-9.]* per s)$' \
			"$W/bench/targets.md" || { echo "no idle target line"; return 1; }
		if command -v python3 > /dev/null; then
			python3 -m json.tool "$W/bench/bench.json" > /dev/null || { echo "bench.json is not JSON"; return 1; }
		fi
	}
	t_check "$NAME/bench_report" t_bench_report
else
	t_fail "$NAME/guest" "the module was not installed, the guest was not booted"
fi

# The line of the kernel matrix (tests/matrix-report.sh; its results column
# is counted there, from all of this target's results, once the job ended)
f=$(ls "$ROOT/lib/modules/$KVER/updates/dkms/ttypair.ko"* 2>/dev/null | head -n 1)
if [ -n "$f" ]; then
	case $f in	# dkms 3 compresses like the kernel's own modules
	*.xz) xz -dc "$f" > "$W/ttypair.ko"; f=$W/ttypair.ko ;;
	*.zst) zstd -qdc "$f" > "$W/ttypair.ko"; f=$W/ttypair.ko ;;
	*.gz) gzip -dc "$f" > "$W/ttypair.ko"; f=$W/ttypair.ko ;;
	esac
	vm=$(modinfo -F vermagic "$f")
	mcc=$(readelf -p .comment "$f" | grep -o 'GCC: .*' | sort -u | head -n 1)
	if grep -q "^CONFIG_MODVERSIONS=y" "$ROOT/boot/config-$KVER"; then
		mv="$(modprobe --dump-modversions "$f" | wc -l) CRCs"
	else
		mv="none (CONFIG_MODVERSIONS off)"
	fi
	log "module: vermagic '$vm', compiler '$mcc', modversions: $mv"
else
	vm=- mcc=- mv=-
fi
build=failed
grep -q "^PASS $NAME/dkms_build\$" "$TTYPAIR_RESULTS" && build=ok
{
	echo "suite=$SUITE"
	echo "arch=$ARCH, booted"
	echo "kernel=$KVER"
	echo "compiler=$mcc"
	echo "dkms=$DKMSVER"
	echo "vermagic=$vm"
	echo "modversions=$mv"
	echo "build=$build"
	echo "date=$(date -u +%Y-%m-%d)"
} > "$W/matrix.txt"

# 4. DKMS lifecycle (second half), then make install/uninstall
chroot_step dkms-down dkms-lifecycle.sh down "$KVER"
chroot_step make-install make-install.sh "$KVER" /root/ttypair-src

[ -n "${TTYPAIR_KEEP:-}" ] || rm -rf "$ROOT"
exit 0
