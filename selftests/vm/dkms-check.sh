#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The DKMS check, in one place: dkms.conf's BUILD_EXCLUSIVE_KERNEL covers
# 5.10 to 7.x, and DKMS builds kptrace from this tree.  Two callers:
#
# usage: dkms-check.sh [KVER]
#   `make dkms-check`, on the host: copy the tracked files to
#   /usr/src/NAME-VERSION, `dkms add`, `dkms build -k KVER`, look for the
#   built NAME.ko, and always `dkms remove --all` and delete the copy
#   again.  Installs dkms and the headers when missing.  KVER defaults to
#   default-kver.sh's, the kernel of linux-image-amd64.
#
# usage: dkms-check.sh --testbox KVER
#   the kernel matrix's test box (testbox.sh runs it from the copy of the
#   tree in /root/kptrace of a suite's chroot, seen through an overlay that
#   is thrown away after): what README.md's "Using it on a test box" does,
#   `dkms add .` and `dkms install NAME/VERSION -k KVER`, which must leave
#   NAME.ko in KVER's updates/dkms, then `make install` (the module for
#   KVER, the reader in /usr/local/sbin, which must be static and run).  In
#   that order, as dkms install refuses a module of its version that make
#   install put there.  Nothing is removed: the overlay goes.
#
# Non-interactive, as root.  The last line is "dkms-check: OK: PATH of the
# module" or "dkms-check: FAIL: ...".  Exit 0 OK, 1 a failed step, 2 a
# setup error.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
testbox=0
if [ "${1:-}" = --testbox ]; then
	testbox=1
	shift
fi
say() { echo "dkms-check: $*"; }
die() { echo "dkms-check: $*" >&2; exit 2; }
[ "$(id -u)" = 0 ] || die "must run as root"

conf() { sed -n "s/^$1=\"\{0,1\}\([^\"]*\)\"\{0,1\}$/\1/p" "$top/dkms.conf"; }
name=$(conf PACKAGE_NAME)
version=$(conf PACKAGE_VERSION)
[ -n "$name" ] && [ -n "$version" ] ||
	die "no PACKAGE_NAME/PACKAGE_VERSION in dkms.conf"

kver=${1:-}
[ -n "$kver" ] || [ "$testbox" = 1 ] || kver=$("$here/default-kver.sh" || true)
[ -n "$kver" ] || die "no kernel version (give KVER)"

# dkms.conf's kernel range: the versions of the matrix and around it.
range_check()
{
	local re v bad=0
	re=$(conf BUILD_EXCLUSIVE_KERNEL)
	for v in 5.10.0-32-amd64 5.15.0 5.19.17 6.0.1 6.1.0-56-rt-amd64 \
		 6.12.107+deb13-amd64 7.0.0 7.2.13+deb14-amd64 7.19.1; do
		[[ $v =~ $re ]] || { say "$v should build, '$re' refuses it"; bad=1; }
	done
	for v in 4.19.0-27-amd64 5.4.0 5.9.16 5.1.0 8.0.0 10.1.0 16.1.0; do
		[[ ! $v =~ $re ]] || { say "$v is out of range, '$re' accepts it"; bad=1; }
	done
	[ $bad = 0 ] || return 1
	say "BUILD_EXCLUSIVE_KERNEL '$re' covers 5.10 to 7.x"
}

# step ARGS...: dkms ARGS; on failure its output and DKMS's make.log.
log=$(mktemp "${TMPDIR:-/tmp}/kptrace-dkms.XXXXXX")
step()
{
	echo "  DKMS    $*"
	if ! dkms "$@" >"$log" 2>&1; then
		cat "$log"
		find "/var/lib/dkms/$name/$version" -name make.log \
			-exec sh -c 'echo "--- $1"; tail -n 40 "$1"' _ {} \; 2>/dev/null
		say "FAIL: dkms $*" >&2
		exit 1
	fi
	if [ "${V:-0}" = 1 ] || [ "$testbox" = 1 ]; then
		cat "$log"
	fi
}

# The reader is static: the test box's guest (and any box) has only libc.
static_or_fail()
{
	if LC_ALL=C readelf -l "$1" 2>/dev/null |
	   grep -q 'Requesting program interpreter'; then
		say "FAIL: $1 is not static" >&2
		exit 1
	fi
}

if [ "$testbox" = 1 ]; then
	trap 'rm -f "$log"' EXIT
	range_check || { say "FAIL: dkms.conf's kernel range" >&2; exit 1; }
	cd "$top"
	step add .
	step install "$name/$version" -k "$kver"
	dkms status
	ko=$(find "/lib/modules/$kver" -path '*/dkms/*' -name "$name.ko*" \
		2>/dev/null | head -n 1)
	[ -n "$ko" ] || { say "FAIL: no $name.ko in /lib/modules/$kver/*/dkms" >&2; exit 1; }
	echo "  MAKE    install KDIR=/lib/modules/$kver/build"
	make KDIR="/lib/modules/$kver/build" install
	/usr/local/sbin/kptrace --version
	static_or_fail /usr/local/sbin/kptrace
	say "OK: $ko"
	exit 0
fi

"$here/install-deps.sh" dkms make gcc "linux-headers-$kver"

src=/usr/src/$name-$version
stamp=.kptrace-dkms-check
if [ -e "$src" ] && [ ! -e "$src/$stamp" ]; then
	die "$src exists and is not ours: remove it first"
fi

cleanup()
{
	dkms remove -m "$name" -v "$version" --all >/dev/null 2>&1 || true
	rm -rf "$src"
}
trap 'cleanup; rm -f "$log"' EXIT
cleanup		# what an interrupted earlier run may have left

range_check || { say "FAIL: dkms.conf's kernel range" >&2; exit 1; }
mkdir -p "$src"
touch "$src/$stamp"
if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
	(cd "$top" && git ls-files -z | xargs -0 cp --parents -t "$src")
else
	(cd "$top" && tar --exclude=.git -cf - .) | tar -C "$src" -xf -
fi

step add -m "$name" -v "$version"
step build -m "$name" -v "$version" -k "$kver"

ko=$(find "/var/lib/dkms/$name/$version/$kver" -name "$name.ko*" 2>/dev/null |
	head -n 1)
[ -n "$ko" ] || { say "FAIL: no $name.ko under /var/lib/dkms/$name/$version/$kver" >&2; exit 1; }
say "OK: $ko"
