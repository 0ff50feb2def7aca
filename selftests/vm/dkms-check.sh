#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Check that DKMS builds kptrace from this tree's dkms.conf: copy the
# tracked files to /usr/src/kptrace-VERSION, `dkms add`, `dkms build -k
# KVER`, look for the built kptrace.ko, and always `dkms remove --all` and
# delete the copy again.  Non-interactive, as root (it installs dkms and
# the headers when they are missing).
#
# usage: dkms-check.sh [KVER]   (default: default-kver.sh, the kernel of
#                               linux-image-amd64)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
[ "$(id -u)" = 0 ] || { echo "dkms-check: must run as root" >&2; exit 2; }

conf() { sed -n "s/^$1=\"\{0,1\}\([^\"]*\)\"\{0,1\}$/\1/p" "$top/dkms.conf"; }
name=$(conf PACKAGE_NAME)
version=$(conf PACKAGE_VERSION)
[ -n "$name" ] && [ -n "$version" ] || {
	echo "dkms-check: no PACKAGE_NAME/PACKAGE_VERSION in dkms.conf" >&2
	exit 2
}

kver=${1:-}
[ -n "$kver" ] || kver=$("$here/default-kver.sh" || true)
[ -n "$kver" ] || { echo "dkms-check: no kernel version (give KVER)" >&2; exit 2; }

"$here/install-deps.sh" dkms make gcc "linux-headers-$kver"

src=/usr/src/$name-$version
stamp=.kptrace-dkms-check
if [ -e "$src" ] && [ ! -e "$src/$stamp" ]; then
	echo "dkms-check: $src exists and is not ours: remove it first" >&2
	exit 2
fi

cleanup()
{
	dkms remove -m "$name" -v "$version" --all >/dev/null 2>&1 || true
	rm -rf "$src"
}
trap cleanup EXIT
cleanup		# what an interrupted earlier run may have left

mkdir -p "$src"
touch "$src/$stamp"
if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
	(cd "$top" && git ls-files -z | xargs -0 cp --parents -t "$src")
else
	(cd "$top" && tar --exclude=.git -cf - .) | tar -C "$src" -xf -
fi

log=$(mktemp "${TMPDIR:-/tmp}/kptrace-dkms.XXXXXX")
step()
{
	echo "  DKMS    $*"
	if ! dkms "$@" >"$log" 2>&1; then
		cat "$log"
		find "/var/lib/dkms/$name/$version" -name make.log \
			-exec sh -c 'echo "--- $1"; tail -n 40 "$1"' _ {} \; 2>/dev/null
		rm -f "$log"
		echo "dkms-check: FAIL: dkms $*" >&2
		exit 1
	fi
	[ "${V:-0}" != 1 ] || cat "$log"
}
step add -m "$name" -v "$version"
step build -m "$name" -v "$version" -k "$kver"
rm -f "$log"

ko=$(find "/var/lib/dkms/$name/$version/$kver" -name "$name.ko*" 2>/dev/null |
	head -n 1)
if [ -z "$ko" ]; then
	echo "dkms-check: FAIL: no $name.ko under /var/lib/dkms/$name/$version/$kver" >&2
	exit 1
fi
echo "dkms-check: OK: $ko"
