#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check-debug: kptrace's selftests and hazard tests on a KASAN +
# lockdep debug kernel, plus the lockdown boots.
#
#   selftests/debug/check-debug.sh [run-vm.sh options for the main boot]
#
# 1. build-kernel.sh builds (or reuses from its cache) Debian's
#    linux-source-6.1 with x86_64_defconfig + kptrace-debug.config.
# 2. A copy of the repository (its tracked files, as they are in the
#    work tree) is built against that
#    tree in a work directory: kptrace.ko, kpt_test.ko, kpt_hazard.ko, the
#    reader and the static helpers. kptrace.ko is also signed with the
#    tree's build key (scripts/sign-file, certs/signing_key.pem) as
#    selftests/debug/signed/kptrace.ko.signed, a name the harness does not
#    strip (stripping drops a module's appended signature).
# 3. Main boot, with panic_on_warn=1 oops=panic softlockup_panic=1:
#    guest-suite.sh runs every selftest and then a kmemleak scan.
# 4. Lockdown boots (guest-lockdown.sh): the debug kernel with
#    lockdown=confidentiality (the signed module reaches kptrace's own
#    refusal) and lockdown=integrity (debugfs files readable), and the
#    stock Debian kernel with lockdown=confidentiality (its unsigned module
#    is refused by the kernel first).
#
# Any fault (Oops, BUG, WARNING, KASAN, UBSAN, lockdep, sleeping in atomic
# context...: selftests/vm/vmlib.sh), failed test or kmemleak report fails
# the run. Ends with one line per boot and the build and boot times.
#
# Environment: KPT_DEBUG_CACHE (build-kernel.sh), KPT_DEBUG_TIMEOUT (one
# main boot, default 7200 s: 75 tests took 5392 s on a shared host),
# KPT_DEBUG_MEM (guest memory, default 2G), KPT_DEBUG_LOGS (where the
# logs go, default a new /tmp/kptrace-debug.*), KPT_DEBUG_STOCK=0 skips
# the stock-kernel lockdown boot, KPT_DEBUG_TESTS runs only the named
# selftests in the main boot.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
timeout=${KPT_DEBUG_TIMEOUT:-7200}
mem=${KPT_DEBUG_MEM:-2G}
logs=${KPT_DEBUG_LOGS:-$(mktemp -d "${TMPDIR:-/tmp}/kptrace-debug.XXXXXX")}
mkdir -p "$logs"
say() { echo "check-debug: $*"; }

"$repo/selftests/vm/install-deps.sh" qemu-system-x86 busybox-static cpio \
	kmod gcc make libc6-dev

t0=$(date +%s)
tree=$("$here/build-kernel.sh" | tail -n 1)
dir=$(dirname "$tree")
kernel=$tree/arch/x86/boot/bzImage
krel=$(cat "$tree/include/config/kernel.release")
if [ -f "$dir/build-seconds" ]; then
	build="built in $(cat "$dir/build-seconds") s"
	[ $(($(date +%s) - t0)) -ge "$(cat "$dir/build-seconds")" ] ||
		build="cached (first build took $(cat "$dir/build-seconds") s)"
else
	build="cached"
fi
say "debug kernel $krel ($build): $kernel"

# copy_tree DIR: a fresh copy of the repository's tracked files, as they
# are in the work tree.
copy_tree()
{
	rm -rf "$1"
	mkdir -p "$1"
	(cd "$repo" && git ls-files -c -z |
		tar --null --ignore-failed-read -T - -cf -) | tar -C "$1" -xf -
}

# A copy of the repository, built against the debug tree.
stage=$logs/root
copy_tree "$stage"
say "building kptrace, kpt_test, kpt_hazard and the helpers against $tree"
make -C "$stage" --no-print-directory KDIR="$tree" V="${V:-0}" vm-build \
	> "$logs/build-modules.log" 2>&1 ||
	{ tail -n 40 "$logs/build-modules.log"; say "module build FAILED"; exit 1; }
mkdir -p "$stage/selftests/debug/signed"
signed=$stage/selftests/debug/signed/kptrace.ko.signed
strip --strip-debug -o "$signed" "$stage/kptrace.ko"
"$tree/scripts/sign-file" sha256 "$tree/certs/signing_key.pem" \
	"$tree/certs/signing_key.x509" "$signed"
tail -c 28 "$signed" | grep -q 'Module signature appended' ||
	{ say "signing kptrace.ko FAILED"; exit 1; }

results=()
rc=0
# boot NAME KERNEL ROOT APPEND GUEST-CMD [run-vm options]
boot()
{
	local name=$1 kern=$2 root=$3 append=$4 cmd=$5 r=0
	shift 5
	say "---- boot: $name"
	"$repo/selftests/vm/run-vm.sh" --kernel "$kern" --root "$root" \
		--logdir "$logs/$name" --append "$append" --guest-cmd "$cmd" \
		"$@" 2>&1 | tee "$logs/$name.out" || r=$?
	[ "${PIPESTATUS[0]}" = 0 ] || r=1
	local started wall verdict
	started=$(sed -n 's/^vm: guest command started after \([^ ]*\)s.*/\1/p' "$logs/$name.out")
	wall=$(sed -n 's/^vm: wall time \([^ ]*\)s.*/\1/p' "$logs/$name.out")
	verdict=$(grep -E '^[0-9]+ passed, ' "$logs/$name.out" | tail -n 1 || true)
	if [ "$r" = 0 ]; then
		results+=("PASS $name: ${verdict:-ok}, boot ${started:-?}s, wall ${wall:-?}s")
	else
		results+=("FAIL $name: ${verdict:-no KTAP}, boot ${started:-?}s, wall ${wall:-?}s (logs: $logs/$name)")
		rc=1
	fi
}

# loglevel=5: fewer info lines on the console, every report still shows;
# boot-dmesg.sh checks and clears the boot's own log in the guest (the RCU
# announcement, printed before the console starts, stays in console.log,
# where faults.sh's KPT_FAULT_IGNORE_RE passes it over).
debug_append="panic_on_warn=1 oops=panic softlockup_panic=1 loglevel=5"
boot suite "$kernel" "$stage" "$debug_append" \
	"sh /selftests/debug/guest-suite.sh ${KPT_DEBUG_TESTS:-}" \
	--timeout "$timeout" --boot-timeout 600 --mem "$mem" "$@"
boot lockdown-confidentiality "$kernel" "$stage" \
	"$debug_append lockdown=confidentiality" \
	"sh /selftests/debug/guest-lockdown.sh confidentiality" \
	--timeout 900 --boot-timeout 600 --mem "$mem"
boot lockdown-integrity "$kernel" "$stage" \
	"$debug_append lockdown=integrity" \
	"sh /selftests/debug/guest-lockdown.sh integrity" \
	--timeout 900 --boot-timeout 600 --mem "$mem"

if [ "${KPT_DEBUG_STOCK:-1}" = 1 ]; then
	kver=$("$repo/selftests/vm/default-kver.sh")
	stock=$logs/root-stock
	copy_tree "$stock"
	make -C "$stock" --no-print-directory \
		KDIR="/lib/modules/$kver/build" vm-build \
		> "$logs/build-stock.log" 2>&1 ||
		{ tail -n 40 "$logs/build-stock.log"; say "stock build FAILED"; exit 1; }
	boot lockdown-confidentiality-stock "/boot/vmlinuz-$kver" "$stock" \
		"lockdown=confidentiality" \
		"sh /selftests/debug/guest-lockdown.sh confidentiality" \
		--timeout 300
fi

say "==== summary ($krel, $build; logs in $logs)"
for r in "${results[@]}"; do
	say "$r"
done
if [ "$rc" = 0 ]; then
	say "PASS"
else
	say "FAIL"
fi
exit "$rc"
