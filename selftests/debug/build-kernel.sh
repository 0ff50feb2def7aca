#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build (once) the kptrace debug kernel: Debian's linux-source-6.1,
# x86_64_defconfig + selftests/debug/kptrace-debug.config (KASAN, lockdep,
# kmemleak, UBSAN, debug objects, PREEMPT, lockdown LSM, module signing).
#
# The tree is kept, built, under
#   ${KPT_DEBUG_CACHE:-/var/cache/kptrace}/debug-kernel-<hash>
# where <hash> is the first 12 hex digits of the fragment's sha256: a
# second run with the same fragment reuses it; editing the fragment builds
# a new one.  The tree is both the kernel (arch/x86/boot/bzImage) and the
# KDIR to build modules against; certs/signing_key.pem is the key the build
# generated, for scripts/sign-file.
#
# Usage: build-kernel.sh [--print-dir]
#   --print-dir  print the cache directory for this fragment and exit
# On success the last line of stdout is the tree's path.  The build runs
# under nice -n 10 with -j$(nproc); its log is <dir>/build.log and its
# wall time <dir>/build-seconds.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
frag=$here/kptrace-debug.config
cache=${KPT_DEBUG_CACHE:-/var/cache/kptrace}
hash=$(sha256sum "$frag" | cut -c1-12)
dir=$cache/debug-kernel-$hash
tree=$dir/linux

# Options of the fragment that may legitimately not stick.
OPTIONAL="CONFIG_X86_KERNEL_IBT"

if [ "${1:-}" = --print-dir ]; then
	echo "$dir"
	exit 0
fi

if [ -f "$dir/done" ] && [ -f "$tree/arch/x86/boot/bzImage" ]; then
	echo "debug-kernel: cached $(cat "$tree/include/config/kernel.release") in $dir" >&2
	echo "$tree"
	exit 0
fi

"$repo/selftests/vm/install-deps.sh" linux-source-6.1 flex bison bc \
	libelf-dev libssl-dev gcc make openssl xz-utils >&2
src=$(ls /usr/src/linux-source-6.1.tar.xz)

mkdir -p "$cache"
# One builder at a time per fragment.
exec 9>"$cache/debug-kernel-$hash.lock"
flock 9
if [ -f "$dir/done" ]; then
	echo "$tree"
	exit 0
fi

rm -rf "$dir"
mkdir -p "$dir"
echo "debug-kernel: extracting $src into $dir" >&2
tar -C "$dir" -xJf "$src"
mv "$dir/linux-source-6.1" "$tree"
cp "$frag" "$dir/kptrace-debug.config"
dpkg-query -W -f='${Version}\n' linux-source-6.1 > "$dir/source-version"

cd "$tree"
make -s x86_64_defconfig >&2
scripts/kconfig/merge_config.sh -m .config "$frag" >&2
make -s olddefconfig >&2

# Every option the fragment sets must be in the final .config.
bad=0
while IFS= read -r line; do
	case "$line" in
	CONFIG_*=*) opt=${line%%=*} ;;
	"# CONFIG_"*" is not set") opt=${line#\# }; opt=${opt%% *}
		line="# $opt is not set" ;;
	*) continue ;;
	esac
	if ! grep -qxF -- "$line" .config; then
		got=$(grep -E "^(# )?$opt[= ]" .config || echo "$opt absent")
		if [[ " $OPTIONAL " == *" $opt "* ]]; then
			echo "debug-kernel: note: wanted '$line', got '$got' (optional)" >&2
		else
			echo "debug-kernel: ERROR: wanted '$line', got '$got'" >&2
			bad=1
		fi
	fi
done < "$frag"
[ $bad = 0 ] || { echo "debug-kernel: fragment did not apply" >&2; exit 1; }

echo "debug-kernel: building $(make -s kernelrelease) with -j$(nproc), log in $dir/build.log" >&2
t0=$(date +%s)
if ! nice -n 10 make -j"$(nproc)" all > "$dir/build.log" 2>&1; then
	tail -40 "$dir/build.log" >&2
	echo "debug-kernel: build FAILED (log: $dir/build.log)" >&2
	exit 1
fi
t1=$(date +%s)
echo $((t1 - t0)) > "$dir/build-seconds"
[ -f certs/signing_key.pem ] || { echo "debug-kernel: no certs/signing_key.pem" >&2; exit 1; }
echo "debug-kernel: built $(cat include/config/kernel.release) in $((t1 - t0)) s" >&2
touch "$dir/done"
echo "$tree"
