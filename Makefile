# SPDX-License-Identifier: GPL-2.0
#
# The Makefile people type `make` in. The module itself is described in
# ./Kbuild and built by the kernel's build system for exactly one kernel:
#
#   make                      for the running kernel (KVER = uname -r)
#   make KVER=6.1.0-50-amd64  for another installed kernel
#   make KDIR=/path/to/build  against any kernel build directory
#
# dkms does not use this file: it runs the kernel's build on Kbuild itself.
# If something runs it with KERNELRELEASE=<kver> (as dkms's MAKE would), that
# kernel is built for, not the running one.

ifneq ($(KERNELRELEASE),)
KVER ?= $(KERNELRELEASE)
endif
KVER ?= $(shell uname -r)
KDIR ?= /lib/modules/$(KVER)/build
# The release KDIR's headers are for (KDIR may name any kernel's tree)
BUILD_KVER = $(shell sed -n 's/^\#define UTS_RELEASE "\(.*\)"$$/\1/p' \
	$(KDIR)/include/generated/utsrelease.h 2>/dev/null)

# make check TARGETS="sid-7.2 bullseye-5.10" runs a subset of tests/targets
# (or of check-all's jobs: i386-6.1, arm64-6.12, ..., deb-<suite>)
TARGETS ?= $(TTYPAIR_TARGETS)

VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\([^"]*\)"$$/\1/p' $(CURDIR)/dkms.conf)

.PHONY: all modules utils clean install uninstall install-dkms install-utils uninstall-dkms uninstall-utils \
	check check-all bench debug-kernel deb dist rpm archlinux docs-matrix docs-bench docs-diagram readme-matrix readme-bench help version

# Where `make install` puts things. Packages set DESTDIR, PREFIX (/usr) and
# the distribution's CFLAGS/LDFLAGS. The udev rules go where udev reads
# them: the administrator's /etc/udev/rules.d for an install by hand (PREFIX
# /usr/local), the distribution's /usr/lib/udev/rules.d for PREFIX /usr. The
# module's sources always go to /usr/src/ttypair-<version>, where dkms
# looks for them.
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
ifeq ($(PREFIX),/usr)
UDEVRULESDIR ?= /usr/lib/udev/rules.d
else
UDEVRULESDIR ?= /etc/udev/rules.d
endif
DKMSSRCDIR ?= /usr/src/ttypair-$(VERSION)
# what dkms builds from
DKMS_SOURCES = dkms.conf Kbuild Makefile $(sort $(wildcard src/*.c include/*.h \
	include/uapi/*.h compat/probes/*.c compat/probes/README))
UTILS_FILES = $(BINDIR)/ttypairctl $(MANDIR)/man4/ttypair.4 $(MANDIR)/man8/ttypairctl.8
CC ?= cc
CFLAGS ?= -O2 -g -Wall -Wextra

all: modules

modules:
	@test -d "$(KDIR)" || { \
		echo "ttypair: no kernel build directory at $(KDIR)"; \
		echo "ttypair: install the headers of kernel $(KVER) (Debian/Ubuntu: linux-headers-$(KVER)," \
		     "Fedora/RHEL: kernel-devel-$(KVER), openSUSE: kernel-default-devel) or pass KDIR=..."; \
		exit 1; }
	@echo "ttypair $(VERSION): building for kernel $(or $(BUILD_KVER),$(KVER)) with $(KDIR)"
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

utils: utils/ttypairctl

TTYPAIRCTL_SRC := utils/ttypairctl.c utils/ttypairctl-bus.c utils/ttypairctl-session.c

utils/ttypairctl: $(TTYPAIRCTL_SRC) utils/ttypairctl.h include/uapi/ttypair.h dkms.conf
	$(CC) $(CPPFLAGS) $(CFLAGS) -DTTYPAIR_VERSION='"$(VERSION)"' \
		-o $@ $(TTYPAIRCTL_SRC) $(LDFLAGS)

# What a package of the module has (ttypair-dkms, dkms-ttypair): the
# sources, as dkms wants them, and the udev rules, into DESTDIR
install-dkms:
	@for f in $(DKMS_SOURCES); do \
		install -D -m 644 $$f $(DESTDIR)$(DKMSSRCDIR)/$$f || exit 1; \
	done
	install -D -m 644 udev/60-ttypair.rules $(DESTDIR)$(UDEVRULESDIR)/60-ttypair.rules

uninstall-dkms:
	rm -rf $(DESTDIR)$(DKMSSRCDIR)
	rm -f $(DESTDIR)$(UDEVRULESDIR)/60-ttypair.rules

# What a package of the tools has: ttypairctl and the manual pages
install-utils: utils
	install -D -m 755 utils/ttypairctl $(DESTDIR)$(BINDIR)/ttypairctl
	install -D -m 644 docs/man/ttypair.4 $(DESTDIR)$(MANDIR)/man4/ttypair.4
	install -D -m 644 docs/man/ttypairctl.8 $(DESTDIR)$(MANDIR)/man8/ttypairctl.8

uninstall-utils:
	rm -f $(addprefix $(DESTDIR),$(UTILS_FILES))

clean:
	@if [ -d "$(KDIR)" ]; then $(MAKE) -C $(KDIR) M=$(CURDIR) clean; fi
	rm -rf .generated .tmp_versions
	rm -f *.ko *.mod *.mod.c *.mod.o *.o .*.cmd modules.order Module.symvers
	rm -f src/*.o src/.*.cmd utils/ttypairctl
	rm -rf python/build python/*.egg-info python/dist

# With DESTDIR (a package's build: PKGBUILD, ebuild, spec) only files are
# staged there, the GNU way: nothing on this system is run or changed.
# Without, the one command of the README: DKMS, the package manager where
# something is missing, modprobe and udev (scripts/dkms-install.sh).
ifneq ($(DESTDIR),)
install: install-dkms install-utils

uninstall: uninstall-dkms uninstall-utils
else
install:
	@TTYPAIR_KVER="$(KVER)" TTYPAIR_FILES="$(UTILS_FILES) $(UDEVRULESDIR)/60-ttypair.rules" \
		sh scripts/dkms-install.sh
	@$(MAKE) --no-print-directory install-utils
	@sh scripts/udev-reload.sh

uninstall:
	@TTYPAIR_FILES="$(UTILS_FILES) $(UDEVRULESDIR)/60-ttypair.rules" sh scripts/dkms-uninstall.sh
	@$(MAKE) --no-print-directory uninstall-dkms uninstall-utils
	@sh scripts/udev-reload.sh
endif

# check: what CI runs (the oldest and the newest kernel, one package
# lifecycle); check-all: every target (tests/run.sh says what each runs)
check:
	@TTYPAIR_SUITE=check TTYPAIR_TARGETS="$(TARGETS)" bash tests/run.sh

check-all:
	@TTYPAIR_SUITE=all TTYPAIR_TARGETS="$(TARGETS)" bash tests/run.sh

# make bench BENCH_TARGET=sid-7.2: another target of tests/targets;
# BENCH_CLOCK=icount: the data rows timed by the guest's instructions
bench:
	@TTYPAIR_BENCH_TARGET="$(BENCH_TARGET)" TTYPAIR_BENCH_CLOCK="$(BENCH_CLOCK)" bash scripts/bench.sh

# the debug kernel of the trixie-6.12-debug target, built or found in the cache
debug-kernel:
	@sh tests/debug-kernel/build.sh

deb:
	@sh scripts/make-deb.sh $(CURDIR)/out/deb

dist:
	@sh scripts/make-dist.sh $(CURDIR)/out

rpm:
	@sh scripts/make-rpm.sh $(CURDIR)/out/rpm

archlinux:
	@sh scripts/make-archlinux.sh $(CURDIR)/out/archlinux

docs-matrix:
	@sh scripts/update-docs-matrix.sh

readme-matrix: docs-matrix

docs-bench:
	@sh scripts/update-docs-bench.sh

readme-bench: docs-bench

docs-diagram:
	@sh scripts/make-diagram.sh

version:
	@echo $(VERSION)

help:
	@echo "ttypair $(VERSION) - pairs of connected virtual serial ports"
	@echo
	@echo "  make [KVER=<release>|KDIR=<dir>]  build ttypair.ko for one kernel (default: the running one)"
	@echo "  make clean                        remove everything the build made"
	@echo "  sudo make install [KVER=...]      register with DKMS, build and install for every"
	@echo "                                    installed kernel with headers (installing those of"
	@echo "                                    the running kernel, or KVER, and their flavour's"
	@echo "                                    metapackage), load it if possible; ttypairctl and"
	@echo "                                    man pages under PREFIX (/usr/local), udev rules in"
	@echo "                                    UDEVRULESDIR (/etc/udev/rules.d)"
	@echo "  sudo make uninstall               remove all of that again"
	@echo "  make install DESTDIR=... [PREFIX=/usr]"
	@echo "                                    stage the files only (for packages): the sources"
	@echo "                                    in /usr/src/ttypair-<version>, ttypairctl, man"
	@echo "                                    pages, udev rules; nothing on this system changes"
	@echo "  make utils                        build utils/ttypairctl only"
	@echo "  sudo make check [TARGETS=...]     the test suite CI runs: static checks, the packages"
	@echo "                                    and their lints, the oldest and the newest kernel"
	@echo "                                    in QEMU guests, the i386 build, one package lifecycle;"
	@echo "                                    or only the named targets of tests/targets"
	@echo "  sudo make check-all [TARGETS=...] all of it: every kernel of tests/targets (and the"
	@echo "                                    debug kernel), the package lifecycle in four suites"
	@echo "  sudo make bench [BENCH_TARGET=...] ttypair vs pty vs socat in a guest of one target"
	@echo "                                    (default bookworm-6.1): out/bench/bench.md, .json"
	@echo "  sudo make debug-kernel            build (or find cached) the KASAN/lockdep/kmemleak"
	@echo "                                    kernel of the trixie-6.12-debug target"
	@echo "  make docs-bench                   put the last bench's table and charts into"
	@echo "                                    docs/performance.md and docs/images/"
	@echo "  make docs-matrix                  put the last check-all's kernel and reliability"
	@echo "                                    tables into docs/, its workflow transcript into"
	@echo "                                    README.md (if it passed; readme-matrix: the same)"
	@echo "  make docs-diagram                 draw docs/images/dataflow.svg from docs/dataflow.dot"
	@echo "  sudo make deb                     the Debian packages, built in a clean Debian 12"
	@echo "                                    chroot and checked with lintian, into out/deb/"
	@echo "  make dist                         the release tarball out/ttypair-<version>.tar.gz (from git)"
	@echo "  make rpm                          the SRPM, dkms-ttypair and ttypair-utils RPMs from it,"
	@echo "                                    with rpmlint, into out/rpm/"
	@echo "  make archlinux                    the Arch Linux packages ttypair-dkms and ttypairctl,"
	@echo "                                    built with makepkg from archlinux/*/PKGBUILD, into out/archlinux/"
	@echo "  make version                      print the version"
