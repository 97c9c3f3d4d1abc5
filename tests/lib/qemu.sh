# SPDX-License-Identifier: GPL-2.0
# Booting a chroot's kernel in QEMU with the chroot as the guest's root disk
# (sourced after common.sh).
#
# The guest runs tests/guest/init.sh as PID 1. It writes its results to a
# port of their own (the PC's second serial port, or arm64's virtio console)
# and the kernel writes its log to the first serial port; both end up in
# files on the host.

: "${TTYPAIR_QEMU_MEM:=2048}"
: "${TTYPAIR_QEMU_TIMEOUT:=1500}"
: "${TTYPAIR_BOOT_TIMEOUT:=300}"
# TTYPAIR_QEMU_ARGS: more QEMU options (make bench BENCH_CLOCK=icount)
: "${TTYPAIR_QEMU_ARGS:=}"
# TTYPAIR_KERNEL_ARGS: more kernel parameters for the guests (for example
# slub_debug=U,kmalloc-4k to see who holds memory)

# Kernel log lines that fail a run whatever the tests said.
TTYPAIR_KERNEL_PROBLEMS='WARNING:|BUG:|Oops|Kernel panic|general protection fault|'\
'KASAN|UBSAN|possible recursive locking|possible circular locking|'\
'inconsistent lock state|suspicious RCU usage|blocked for more than|'\
'soft lockup|hard LOCKUP|kmemleak: [0-9]+ new suspected|list_add corruption|'\
'list_del corruption|ODEBUG:|Call Trace:'

# qemu_image DIR IMAGE: make an ext4 disk image holding DIR.
qemu_image() {
	rm -f "$2"
	_mb=$(du -sm "$1" | cut -f1)
	mke2fs -q -t ext4 -L ttypair-root -d "$1" "$2" "$((_mb + _mb / 2 + 512))M"
}

# qemu_boot KERNEL INITRD IMAGE CONSOLE_LOG RESULTS_LOG: boot and wait for the
# guest to power off. Returns non-zero if QEMU had to be killed.
# TTYPAIR_GUEST_ARCH (amd64 or arm64) picks the machine: a PC with two
# 16550 UARTs (console ttyS0, results ttyS1), or an arm64 -M virt with its
# PL011 (console ttyAMA0) and a virtio console for the results (hvc0; the
# kernel passes ttypair_results=... on to init.sh's environment).
# tsc=reliable: on a loaded host the clocksource watchdog finds TCG's TSC
# late to read and marks it unstable at run time; switching sched_clock
# then patches kernel text, which TCG once got wrong ("Oops: int3" in
# sched_clock_cpu, trixie's 6.12, during a make check-all).
qemu_boot() {
	_smp=$(nproc)
	[ "$_smp" -gt 4 ] && _smp=4
	# a kernel with its drivers built in (the debug kernel) has no initrd
	_rd=$2
	[ -f "$_rd" ] || _rd=
	_common="panic=-1 oops=panic softlockup_panic=0 loglevel=7 printk.time=1 \
net.ifnames=0 mitigations=off${TTYPAIR_KERNEL_ARGS:+ $TTYPAIR_KERNEL_ARGS}"
	case ${TTYPAIR_GUEST_ARCH:-amd64} in
	arm64)
		# pauth-impdef: TCG's pointer authentication with QEMU's
		# cheaper algorithm (the architected one is slow to emulate)
		set -- qemu-system-aarch64 -M virt -cpu max,pauth-impdef=on \
			-kernel "$1" ${_rd:+-initrd} ${_rd:+"$_rd"} \
			-drive "file=$3,format=raw,if=virtio,cache=unsafe" \
			-serial "file:$4" \
			-device virtio-serial-pci -chardev "file,id=results,path=$5" \
			-device virtconsole,chardev=results \
			-append "root=/dev/vda rw rootfstype=ext4 console=ttyAMA0,115200 \
init=/opt/ttypair-tests/init.sh ttypair_results=/dev/hvc0 $_common"
		;;
	*)
		set -- qemu-system-x86_64 -cpu max \
			-kernel "$1" ${_rd:+-initrd} ${_rd:+"$_rd"} \
			-drive "file=$3,format=raw,if=virtio,cache=unsafe" \
			-serial "file:$4" -serial "file:$5" \
			-append "root=/dev/vda rw rootfstype=ext4 console=ttyS0,115200 \
init=/opt/ttypair-tests/init.sh tsc=reliable $_common"
		;;
	esac
	# shellcheck disable=SC2086 # TTYPAIR_QEMU_ARGS: options, split
	timeout --foreground -k 10 "$TTYPAIR_QEMU_TIMEOUT" \
	"$@" -accel tcg -smp "$_smp" -m "$TTYPAIR_QEMU_MEM" \
		-no-reboot -display none -monitor none -nodefaults \
		$TTYPAIR_QEMU_ARGS </dev/null
}

# qemu_kernel_problems CONSOLE_LOG: print the kernel log lines that fail a run.
qemu_kernel_problems() {
	grep -aE "$TTYPAIR_KERNEL_PROBLEMS" "$1" || true
}

# guest_prepare ROOT VERSION ENV LOG: put the guest's tests into the chroot
# ROOT: PID 1 (init.sh), the tests, the expected module VERSION, the lines
# ENV for the guest's environment, and ttypair-test built with the chroot's
# compiler, and the test module of tests/guest/squatter for each kernel of
# the chroot (the output in LOG). Returns non-zero if a build failed.
guest_prepare() {
	_t=$1/opt/ttypair-tests
	mkdir -p "$_t/src/tests" "$_t/src/include"
	cp "$TTYPAIR_SRC/tests/guest/init.sh" "$TTYPAIR_SRC/tests/guest/guest-tests.sh" \
		"$TTYPAIR_SRC/tests/guest/serial-tools.sh" \
		"$TTYPAIR_SRC/tests/guest/manage-tests.sh" \
		"$TTYPAIR_SRC/tests/guest/enum-tests.sh" "$TTYPAIR_SRC/tests/guest/qt-list.py" \
		"$TTYPAIR_SRC/tests/guest/ttypairctl-test.sh" \
		"$TTYPAIR_SRC/tests/guest/session-tests.sh" \
		"$TTYPAIR_SRC/README.md" \
		"$TTYPAIR_SRC/tests/guest/recipes-test.sh" "$TTYPAIR_SRC/tests/guest/transcript.py" \
		"$TTYPAIR_SRC/tests/guest/bench-run.sh" \
		"$TTYPAIR_SRC/tests/guest/reliability-tests.sh" \
		"$TTYPAIR_SRC/udev/60-ttypair.rules" \
		"$TTYPAIR_SRC/tests/guest/pyserial-test.py" \
		"$TTYPAIR_SRC/tests/lib/tap.sh" "$_t/"
	chmod 755 "$_t/init.sh"
	cp -a "$TTYPAIR_SRC/tests/guest" "$_t/src/tests/"
	cp -a "$TTYPAIR_SRC/include/uapi" "$_t/src/include/"
	cp -a "$TTYPAIR_SRC/utils" "$TTYPAIR_SRC/python" "$_t/src/"
	mkdir -p "$_t/docs"
	cp -a "$TTYPAIR_SRC/docs/recipes.md" "$TTYPAIR_SRC/docs/recipes" "$_t/docs/"
	echo "$2" > "$_t/expected-version"
	printf '%s\n' "$3" > "$_t/env"
	in_chroot "$1" gcc -O2 -Wall -Wextra -Werror -pthread -o /opt/ttypair-tests/ttypair-test \
		/opt/ttypair-tests/src/tests/guest/ttypair-test.c \
		/opt/ttypair-tests/src/tests/guest/modem-tests.c \
		/opt/ttypair-tests/src/tests/guest/line-tests.c \
		/opt/ttypair-tests/src/tests/guest/hardening-tests.c \
		/opt/ttypair-tests/src/tests/guest/rs485-tests.c \
		/opt/ttypair-tests/src/tests/guest/bus-tests.c \
		/opt/ttypair-tests/src/tests/guest/session-tests.c \
		/opt/ttypair-tests/src/tests/guest/speed2.c \
		/opt/ttypair-tests/src/tests/guest/tlib.c > "$4" 2>&1 &&
	in_chroot "$1" gcc -O2 -Wall -Wextra -Werror -DTTYPAIR_VERSION="\"$2\"" \
		-o /opt/ttypair-tests/ttypairctl /opt/ttypair-tests/src/utils/ttypairctl.c \
		/opt/ttypair-tests/src/utils/ttypairctl-bus.c \
		/opt/ttypair-tests/src/utils/ttypairctl-session.c >> "$4" 2>&1 &&
	in_chroot "$1" gcc -O2 -Wall -Wextra -Werror -pthread -o /opt/ttypair-tests/ttypair-bench \
		/opt/ttypair-tests/src/tests/guest/bench.c >> "$4" 2>&1 &&
	in_chroot "$1" gcc -O2 -Wall -Wextra -Werror -pthread -o /opt/ttypair-tests/ttypair-idle \
		/opt/ttypair-tests/src/tests/guest/idle-wakeups.c >> "$4" 2>&1 &&
	in_chroot "$1" gcc -O2 -Wall -Wextra -Werror -pthread -o /opt/ttypair-tests/ttypair-stress \
		/opt/ttypair-tests/src/tests/guest/stress.c >> "$4" 2>&1 &&
	in_chroot "$1" gcc -O2 -Wall -Wextra -Werror -o /opt/ttypair-tests/sp-list \
		/opt/ttypair-tests/src/tests/guest/sp-list.c -lserialport >> "$4" 2>&1 &&
	in_chroot "$1" sh -c 'gcc -O2 -Wall -Wextra -Werror -pthread -o /opt/ttypair-tests/modbus-rs485 \
		/opt/ttypair-tests/src/tests/guest/modbus-rs485.c $(pkg-config --cflags --libs libmodbus)' >> "$4" 2>&1 &&
	in_chroot "$1" sh -c 'gcc -O2 -Wall -Wextra -Werror -pthread -o /opt/ttypair-tests/modbus-bus \
		/opt/ttypair-tests/src/tests/guest/modbus-bus.c $(pkg-config --cflags --libs libmodbus)' >> "$4" 2>&1 &&
	in_chroot "$1" sh -c 'for b in /lib/modules/*/build; do
		k=$(basename "$(dirname "$b")") d=/opt/ttypair-tests/squatter/$k
		mkdir -p "$d" && cp /opt/ttypair-tests/src/tests/guest/squatter/* "$d/" &&
		make -C "$b" M="$d" modules || exit 1
		# a kernel that refuses unsigned modules (the debug kernel,
		# tests/target.sh) gets it signed with its key, like ttypair
		s=/root/module-signing
		[ -f $s/signing_key.pem ] || continue
		h=$(sed -n "s/^CONFIG_MODULE_SIG_HASH=\"\(.*\)\"/\1/p" "/boot/config-$k")
		"$b/scripts/sign-file" "$h" $s/signing_key.pem $s/signing_key.x509 \
			"$d/ttypair_squatter.ko" || exit 1
	done' >> "$4" 2>&1
}

# guest_run NAME W ROOT KVER: boot KVER of the chroot ROOT in QEMU with ROOT
# as its disk (files in W), and record the guest's results as NAME/..., plus
# NAME/guest_ran_to_completion and NAME/guest_kernel_log_clean (the kernel
# logs of all its boots).
guest_run() {
	_start=$(date +%s)
	rm -f "$2"/console-hung-boot*.log
	for _try in 1 2 3; do
		log "making the guest's disk image"
		qemu_image "$3" "$2/root.img"
		log "booting $4 in QEMU (TCG)"
		: > "$2/console.log"
		: > "$2/results.log"
		_boot=$(date +%s)
		qemu_boot "$3/boot/vmlinuz-$4" "$3/boot/initrd.img-$4" \
			"$2/root.img" "$2/console.log" "$2/results.log" &
		_qpid=$!
		# A guest that has not started its tests within the boot
		# timeout is stopped, its console kept, and booted again (at
		# most three boots): the debug kernel once stalled in its early
		# boot, before the root disk answered
		_hung=
		while kill -0 "$_qpid" 2>/dev/null; do
			if ! grep -q '^GUEST-START' "$2/results.log" &&
				[ $(( $(date +%s) - _boot )) -gt "$TTYPAIR_BOOT_TIMEOUT" ]; then
				log "no GUEST-START after $TTYPAIR_BOOT_TIMEOUT s (boot $_try)"
				cp "$2/console.log" "$2/console-hung-boot$_try.log"
				# the subshell's child is timeout(1), which passes
				# the signal on to QEMU
				pkill -TERM -P "$_qpid"
				kill "$_qpid" 2>/dev/null
				_hung=1
				break
			fi
			# timeout(1) ends QEMU; should it not, this loop does
			if [ $(( $(date +%s) - _boot )) -gt $((TTYPAIR_QEMU_TIMEOUT + 60)) ]; then
				log "QEMU still running after its time limit: killed"
				pkill -KILL -P "$_qpid"
				kill "$_qpid" 2>/dev/null
				break
			fi
			sleep 5
		done
		wait "$_qpid"
		_rc=$?
		[ -n "$_hung" ] || break
	done
	log "guest finished in $(( $(date +%s) - _start )) s (qemu exit $_rc)"
	rm -f "$2/root.img"
	tr -d '\r' < "$2/results.log" > "$2/results.txt"
	cat "$2/results.txt"
	collect_tap "$1" "$2/results.txt"
	if grep -q "^GUEST-START $4\$" "$2/results.txt" && grep -q "^GUEST-DONE" "$2/results.txt"; then
		t_pass "$1/guest_ran_to_completion"
	else
		t_fail "$1/guest_ran_to_completion" "the guest with $4 did not finish (qemu exit $_rc); see $2/console.log"
	fi
	# the consoles of boots that hung count too: a splat there is a failure
	# even if a later boot went well
	_problems=$(for _c in "$2"/console-hung-boot*.log "$2/console.log"; do
		[ -f "$_c" ] || continue
		qemu_kernel_problems "$_c" | sed "s|^|${_c##*/}: |"
	done)
	if [ -z "$_problems" ]; then
		t_pass "$1/guest_kernel_log_clean"
	else
		echo "$_problems" | head -n 40
		t_fail "$1/guest_kernel_log_clean" "$(echo "$_problems" | head -n 1)"
	fi
}
