#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `make rpm`: the SRPM and the noarch dkms-ttypair RPM, built with rpmbuild
# from the `make dist` tarball, and rpmlint on both (rpm/rpmlintrc explains
# every warning that is left).
#   scripts/make-rpm.sh [OUTDIR [VERSION [RELEASE]]]
# VERSION and RELEASE (for tests of upgrades) build the packages as if
# dkms.conf and the spec said that version and the spec that Release.
set -eu
SRC=$(cd "$(dirname "$0")/.." && pwd)
OUT=${1:-$SRC/out/rpm}
VERSION=${2:-}
RELEASE=${3:-}
command -v rpmbuild > /dev/null || {
	echo "rpmbuild is missing: apt-get install rpm (Debian) or dnf install rpm-build" >&2
	exit 1
}
top=$(mktemp -d)
trap 'rm -rf "$top"' EXIT
mkdir -p "$top/SOURCES" "$top/SPECS" "$OUT"
tarball=$(sh "$SRC/scripts/make-dist.sh" "$top/SOURCES" ${VERSION:+"$VERSION"})
base=$(basename "$tarball" .tar.gz)
tar -C "$top" -xzf "$tarball" "$base/rpm/ttypair.spec"
cp "$top/$base/rpm/ttypair.spec" "$top/SPECS/"
[ -z "$RELEASE" ] || sed -i "s/^Release:\( *\)[0-9]*%/Release:\1$RELEASE%/" "$top/SPECS/ttypair.spec"
# Debian's rpmbuild is not a distribution's build system; three settings
# make it do what Fedora's and openSUSE's do:
# - --nodeps: it has no rpm database of the build dependencies (those are
#   checked on a distribution's build machine);
# - the packager is named at build time, as distributions' build systems do
#   (Fedora's guidelines keep the Packager tag out of specs);
# - Debian's brp-compress uses bash's `read -d` under #!/bin/sh, so it is run
#   with bash: manual pages are compressed with gzip.
rpmbuild --nodeps --define "_topdir $top" \
	--define "packager The ttypair developers <ttypair@ttypair.invalid>" \
	--define "__brp_compress bash %{_rpmconfigdir}/brp-compress %{?_prefix}" \
	-ba "$top/SPECS/ttypair.spec"
find "$top/SRPMS" "$top/RPMS" -name '*.rpm' -exec cp {} "$OUT/" \;
cp "$tarball" "$OUT/"
ls -l "$OUT"
if command -v rpmlint > /dev/null; then
	echo "--- rpmlint"
	rpmlint -r "$SRC/rpm/rpmlintrc" -c "$SRC/rpm/rpmlint.toml" "$OUT"/*.rpm 2>&1 | tee "$OUT/rpmlint.log" || true
fi
