# SPDX-License-Identifier: GPL-2.0
# Chroots of Debian suites, each with its own compiler, dkms, kernel image and
# headers (sourced after common.sh).
#
# A chroot is built once with mmdebstrap and cached as a tarball under
# $TTYPAIR_CACHE/chroots, keyed by everything that goes into it; a cached
# tarball older than $TTYPAIR_CHROOT_MAX_AGE days is rebuilt so that the
# newest kernel ABI of the suite gets tested.

: "${TTYPAIR_CHROOT_MAX_AGE:=7}"
# seconds that building a chroot, or waiting for another job building it,
# may take: 5 to 9 minutes on an idle 2-core machine, over 20 while the
# other slot boots a guest and the debug kernel builds
: "${TTYPAIR_CHROOT_TIMEOUT:=2400}"

# Packages every target chroot holds besides its kernel.
# The serial tools are for the guest tests: stty (coreutils), socat, setserial
# pyserial and pytest; the second line what the recipes of docs/recipes.md use;
# the third the port enumerators and ModemManager of enum-tests.sh; openssl
# for dkms to make its signing key and sign with it, as on most machines
# (ca-certificates depends on it; dkms does not).
TTYPAIR_CHROOT_BASE="dkms openssl gcc make libc6-dev kmod udev mount sparse python3-minimal procps socat setserial python3-serial python3-pytest
 mbpoll libmodbus-dev pkgconf ppp iproute2 iputils-ping login passwd picocom python3-pexpect ser2net gpsd gpsd-clients podman busybox-static
 libserialport-dev python3-pyqt5.qtserialport modemmanager dbus python3-pymodbus"
# Bump when the way chroots are made changes.
TTYPAIR_CHROOT_RECIPE=1

# chroot_tarball SUITE "PACKAGES" "EXTRA_SOURCES" [ARCH]: prints the path of
# a tarball of SUITE with the base packages (TTYPAIR_CHROOT_BASE) and
# PACKAGES, building it if it is not cached. EXTRA_SOURCES are further suites
# of the same archive, added as apt sources (for example bookworm-backports).
# ARCH is a Debian architecture other than this machine's that it can run
# natively (i386 on amd64); it is part of the key and of the file name only
# when given, so the chroots of this machine's architecture keep their keys.
chroot_tarball() {
	_suite=$1 _pkgs=$2 _extra=$3 _arch=${4:-}
	_mirror=$(debian_mirror)
	_key=$(printf '%s\n' "$TTYPAIR_CHROOT_RECIPE" "$_suite" "$_pkgs" \
		"$_extra" "$TTYPAIR_CHROOT_BASE" "$_mirror" ${_arch:+"$_arch"} |
		sha256sum | cut -c1-16)
	_tar=$TTYPAIR_CACHE/chroots/$_suite${_arch:+-$_arch}-$_key.tar
	mkdir -p "$TTYPAIR_CACHE/chroots"
	# One builder per tarball: targets running in parallel may want the
	# same chroot; the second waits for the first and then uses its tarball.
	# Both waits are bounded: a hung mirror must not hold a job forever.
	(
		flock -w "$TTYPAIR_CHROOT_TIMEOUT" 9 ||
			{ log "chroot $_suite: still locked after $TTYPAIR_CHROOT_TIMEOUT s" >&2; exit 1; }
		if [ -f "$_tar" ] && [ -z "$(find "$_tar" -mtime +"$TTYPAIR_CHROOT_MAX_AGE")" ]; then
			log "chroot $_suite: cached $_tar" >&2
			exit 0
		fi
		set --
		for _s in $_extra; do
			set -- "$@" "deb $_mirror $_s main"
		done
		log "chroot $_suite: building with mmdebstrap from $_mirror (1-3 minutes)" >&2
		# shellcheck disable=SC2086
		timeout "$TTYPAIR_CHROOT_TIMEOUT" mmdebstrap --quiet --variant=apt \
			${_arch:+--architectures="$_arch"} \
			--aptopt='Acquire::Check-Valid-Until "false"' \
			--aptopt='APT::Install-Recommends "false"' \
			--include="$(echo $TTYPAIR_CHROOT_BASE $_pkgs | tr ' ' ',')" \
			"$_suite" "$_tar.part.tar" "deb $_mirror $_suite main" "$@" >&2
		_rc=$?
		if [ "$_rc" != 0 ]; then
			# (mmdebstrap --quiet says only which apt-get failed)
			[ "$_rc" != 124 ] ||
				log "chroot $_suite: mmdebstrap stopped after its time limit of $TTYPAIR_CHROOT_TIMEOUT s (TTYPAIR_CHROOT_TIMEOUT)" >&2
			rm -f "$_tar.part.tar"
			exit 1
		fi
		mv "$_tar.part.tar" "$_tar"
	) 9> "$_tar.lock" || return 1
	echo "$_tar"
}

# chroot_extract TARBALL DIR
chroot_extract() {
	rm -rf "$2"
	mkdir -p "$2"
	tar -C "$2" -xf "$1"
}

# _mounted DIR CHROOT COMMAND...: run COMMAND with /proc, /sys, /dev and
# /run mounted in DIR, in a private mount namespace so that nothing stays
# mounted afterwards; inside DIR (chroot) if CHROOT is yes.
_mounted() {
	unshare --mount --propagation private sh -c '
		root=$1 into=$2
		shift 2
		mount -t proc proc "$root/proc" &&
		mount --rbind /sys "$root/sys" &&
		mount --rbind /dev "$root/dev" &&
		mount -t tmpfs tmpfs "$root/run" || exit 1
		[ "$into" = yes ] || exec "$@"
		exec env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C.UTF-8 \
			DEBIAN_FRONTEND=noninteractive TERM=dumb chroot "$root" "$@"
	' sh "$@"
}

# in_chroot DIR COMMAND...: run COMMAND inside DIR, with its mounts.
in_chroot() {
	_r=$1
	shift
	_mounted "$_r" yes "$@"
}

# with_mounts DIR COMMAND...: run COMMAND on this machine (not chrooted)
# while DIR has its mounts, for tools that take a --root (rpm).
with_mounts() {
	_r=$1
	shift
	_mounted "$_r" no "$@"
}

# chroot_kernels DIR: the kernel releases installed in the chroot.
chroot_kernels() {
	for _v in "$1"/boot/vmlinuz-*; do
		[ -e "$_v" ] && echo "${_v##*/vmlinuz-}"
	done
}

# foreign_arch ARCH: make this machine run ARCH's programs (Debian
# architecture, arm64) through qemu-user-static and binfmt_misc, so that
# mmdebstrap can build a chroot of ARCH and chroot can run in it. binfmt_misc
# is mounted if it is not (a machine without systemd); the interpreter is
# registered with the F flag, so a chroot needs no copy of it.
foreign_arch() {
	case $1 in
	arm64) _q=aarch64 ;;
	armhf) _q=arm ;;
	*) _q=$1 ;;
	esac
	[ -d /proc/sys/fs/binfmt_misc ] || modprobe binfmt_misc 2>/dev/null
	mountpoint -q /proc/sys/fs/binfmt_misc ||
		mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc || return 1
	[ -e "/proc/sys/fs/binfmt_misc/qemu-$_q" ] ||
		update-binfmts --enable "qemu-$_q" || return 1
	grep -qx enabled "/proc/sys/fs/binfmt_misc/qemu-$_q" || return 1
	arch-test "$1" > /dev/null
}
