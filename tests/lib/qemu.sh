# SPDX-License-Identifier: GPL-2.0
# Booting a chroot's kernel in QEMU with the chroot as the guest's root disk
# (sourced after common.sh).
#
# The guest runs tests/guest/init.sh as PID 1. It writes its results to its
# second serial port and the kernel writes its log to the first; both end up
# in files on the host.

: "${TTYPAIR_QEMU_MEM:=2048}"
: "${TTYPAIR_QEMU_TIMEOUT:=1500}"

# Kernel log lines that fail a run whatever the tests said.
TTYPAIR_KERNEL_PROBLEMS='WARNING:|BUG:|Oops|Kernel panic|general protection fault|'\
'KASAN|UBSAN|possible recursive locking|possible circular locking|'\
'inconsistent lock state|suspicious RCU usage|blocked for more than|'\
'soft lockup|hard LOCKUP|kmemleak|list_add corruption|list_del corruption|'\
'Call Trace:'

# qemu_image DIR IMAGE: make an ext4 disk image holding DIR.
qemu_image() {
	rm -f "$2"
	_mb=$(du -sm "$1" | cut -f1)
	mke2fs -q -t ext4 -L ttypair-root -d "$1" "$2" "$((_mb + _mb / 2 + 512))M"
}

# qemu_boot KERNEL INITRD IMAGE CONSOLE_LOG RESULTS_LOG: boot and wait for the
# guest to power off. Returns non-zero if QEMU had to be killed.
qemu_boot() {
	_smp=$(nproc)
	[ "$_smp" -gt 4 ] && _smp=4
	timeout --foreground -k 10 "$TTYPAIR_QEMU_TIMEOUT" \
	qemu-system-x86_64 -accel tcg -cpu max -smp "$_smp" -m "$TTYPAIR_QEMU_MEM" \
		-no-reboot -display none -monitor none -nodefaults \
		-kernel "$1" -initrd "$2" \
		-drive "file=$3,format=raw,if=virtio,cache=unsafe" \
		-serial "file:$4" -serial "file:$5" \
		-append "root=/dev/vda rw rootfstype=ext4 console=ttyS0,115200 \
init=/opt/ttypair-tests/init.sh panic=-1 oops=panic softlockup_panic=0 \
loglevel=7 printk.time=1 net.ifnames=0 mitigations=off" </dev/null
}

# qemu_kernel_problems CONSOLE_LOG: print the kernel log lines that fail a run.
qemu_kernel_problems() {
	grep -aE "$TTYPAIR_KERNEL_PROBLEMS" "$1" || true
}
