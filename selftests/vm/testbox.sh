# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2004,SC2034,SC2154
# (out, say, note_fail and the r_* arrays are the caller's: see below)
# A test box of a Debian suite, sourced (bash) by kernels.sh, the kernel
# matrix: its chroot, kptrace built in it as README.md's "Using it on a
# test box" does, and installed in it.
#
# A test box is a chroot made by chroot.sh in $KPT_CACHE/chroot-SUITE of
# the packages that README section has one install of (TESTBOX_DEBS
# below), plus the kernels to boot; the host's apt sources are never
# touched.
#
#   testbox_ensure SUITE            make the suite's chroot, or complete it
#   testbox_build K SUITE FLAVOUR   `make` (kptrace.ko and the static reader
#       tools/kptrace), kpt_test.ko and the selftests' static helpers, with
#       W=1 and the suite's own compiler, for the suite's linux-image-FLAVOUR;
#       any compiler, objtool or modpost warning from kptrace's own files
#       fails K (warnings inside kernel headers are shown, not counted), and
#       so does a reader that is not static.  The guest's tree lands in
#       $out/K/tree, the kernel in $out/K/vmlinuz.
#   testbox_install K SUITE FLAVOUR   what a test box does to install it,
#       in the chroot seen through an overlay that is thrown away after:
#       dkms-check.sh --testbox (`dkms add .`, `dkms install`, `make
#       install`).
#   testbox_cleanup                 this run's build directories and
#       overlays, gone
#
# Everything is built from $out/src, the caller's snapshot of the sources
# (copy_sources DIR).  The caller provides $out, say MSG, note_fail K WHAT
# [WHY] and the associative arrays r_ver, r_pkg and r_tbuild, where the
# results go.

# shellcheck source=chroot.sh
. "$(dirname "${BASH_SOURCE[0]}")/chroot.sh"
testbox_top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

# A test box: the one apt-get line of README.md's "Using it on a test box"
# (on an RT kernel, linux-headers-rt-amd64 instead of linux-headers-amd64).
TESTBOX_DEBS="gcc make libc6-dev dkms linux-headers-amd64"

# What a chroot of SUITE holds: a test box's packages, the kernel images
# to boot and the RT flavour's headers, and perl (W=1's kernel-doc; dkms
# brings it anyway).
suite_pkgs()
{
	local p="$TESTBOX_DEBS perl linux-image-amd64"
	case $1 in
	bookworm|trixie) p+=" linux-image-rt-amd64 linux-headers-rt-amd64" ;;
	esac
	echo "$p"
}

# testbox_root SUITE: the chroot a suite builds in.
testbox_root() { echo "$KPT_CACHE/chroot-$1"; }

# testbox_ensure SUITE: the suite's chroot, made or completed.
testbox_ensure()
{
	# shellcheck disable=SC2046
	chroot_ensure "$(testbox_root "$1")" "$1" $(suite_pkgs "$1")
}

# meta_kver ROOT FLAVOUR: the kernel version linux-image-FLAVOUR depends on
# (e.g. 6.12.107+deb13-rt-amd64), as installed in ROOT.
meta_kver()
{
	dpkg-query --admindir="$1/var/lib/dpkg" -W -f='${Depends}' \
		"linux-image-$2" 2>/dev/null | tr ',' '\n' |
		sed -n 's/^ *linux-image-\([^ ]*\).*/\1/p' | head -n 1
}

# pkg_version ROOT PACKAGE
pkg_version()
{
	dpkg-query --admindir="$1/var/lib/dpkg" -W -f='${Version}' "$2" \
		2>/dev/null || true
}

# The sources, as in the working tree: the files git knows (tracked, or
# new and not ignored) but executables built here, else everything but
# build products.
copy_sources()
{
	local dst=$1
	mkdir -p "$dst"
	if git -C "$testbox_top" rev-parse --git-dir >/dev/null 2>&1; then
		(cd "$testbox_top" && git ls-files -z -c -o --exclude-standard |
			xargs -0 sh -c 'elf=$(printf "\177ELF")
				for f; do [ -f "$f" ] &&
				[ "$(head -c 4 "$f")" != "$elf" ] &&
				printf "%s\0" "$f"; done' sh |
			xargs -0 cp --parents -t "$dst")
	else
		(cd "$testbox_top" && tar --exclude=.git --exclude='*.o' --exclude='*.ko' \
			--exclude='*.cmd' --exclude='*.mod' --exclude='*.mod.c' \
			--exclude=Module.symvers --exclude=modules.order \
			-cf - .) | tar -C "$dst" -xf -
	fi
}

# check_warnings LOG BUILDDIR HOSTDIR: print the warnings of a build log
# that are kptrace's own (a compiler warning in one of its files, objtool,
# modpost, kbuild's compiler check) and return 1 if there is one.  BUILDDIR
# is the build directory as the build saw it, HOSTDIR the same seen from the
# host.  Warnings located in kernel headers are printed as notes only.
check_warnings()
{
	local log=$1 bdir=$2 hdir=$3 line path own=0 foreign=0
	while IFS= read -r line; do
		path=
		if [[ $line =~ ^([^\ :]+):[0-9]+(:[0-9]+)?:\ warning: ]]; then
			path=${BASH_REMATCH[1]}
		fi
		if [ -n "$path" ] && [[ $line != *objtool* ]] &&
		   ! { [ "${path#"$bdir"/}" != "$path" ] || [ -e "$hdir/$path" ] ||
		       [ -e "$hdir/tools/$path" ] ||
		       [ -e "$hdir/selftests/test_modules/$path" ]; }; then
			foreign=$((foreign + 1))
			[ $foreign -gt 5 ] || echo "  note (kernel header, not counted): $line"
		else
			own=$((own + 1))
			echo "  WARNING: $line"
		fi
	done < <(grep -aiE 'warning:' "$log" || true)
	[ "$own" = 0 ]
}

# testbox_build K SUITE FLAVOUR: `make` (kptrace.ko and the reader),
# kpt_test.ko and the helpers, W=1, in the suite's chroot; the results land
# in $out/K/.  Fails when nothing bootable was built (W=1 warnings are
# recorded, but the modules are still tested).
testbox_build()
{
	local k=$1 suite=$2 flavour=$3 root kver bdir hbdir log t0 cc_k cc_u vm t
	local targets failed_t
	root=$(testbox_root "$suite")
	kver=$(meta_kver "$root" "$flavour")
	if [ -z "$kver" ]; then
		note_fail "$k" no-kernel "linux-image-$flavour not installed in $root"
		return 1
	fi
	r_ver[$k]=$kver
	r_pkg[$k]=$(pkg_version "$root" "linux-image-$kver")
	# build is an absolute symbolic link: test it from inside the root.
	if [ ! -r "$root/boot/vmlinuz-$kver" ] ||
	   ! chroot_run "$root" test -f "/lib/modules/$kver/build/Makefile"; then
		note_fail "$k" no-kernel "no $root/boot/vmlinuz-$kver or headers"
		return 1
	fi

	bdir=/tmp/kptrace-build.$$/$k
	hbdir=$root$bdir
	log=$out/$k/build.log
	rm -rf "$hbdir"
	mkdir -p "$out/$k" "$(dirname "$hbdir")"
	cp -a "$out/src" "$hbdir"
	cc_k=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\(.*\)"/\1/p' \
		"$root/boot/config-$kver" 2>/dev/null || true)
	cc_u=$(chroot_run "$root" gcc --version 2>/dev/null | head -n 1)
	say "$k: $kver (${r_pkg[$k]}), root $root"
	say "$k: kernel built by: $cc_k"
	say "$k: building with:   $cc_u"

	# What `make vm-build` builds for the guest: first `make` (module
	# and reader), as a test box does, then the test pieces.
	read -r -a targets <<<"all $(sed -n 's/^vm-build:\(.*\)/\1/p' \
		"$hbdir/Makefile" | tr -s ' \t' '\n' |
		grep -vx -e module -e tools -e '' | tr '\n' ' ')"
	[ ${#targets[@]} -gt 1 ] ||
		targets=(all test-module selftests-helpers)
	say "$k: make W=1 ${targets[*]}"
	# One target at a time: a test piece that does not build for this
	# kernel fails the kernel but does not keep the rest from being
	# tested; without the module itself there is nothing to boot.
	: >"$log"
	failed_t=()
	t0=$(date +%s)
	for t in "${targets[@]}"; do
		chroot_run "$root" make -C "$bdir" KDIR="/lib/modules/$kver/build" \
			W=1 "$t" >>"$log" 2>&1 || failed_t+=("$t")
	done
	if [ ${#failed_t[@]} -gt 0 ]; then
		grep -E -B2 -A3 '(error|Error [0-9]+|undefined!)' "$log" |
			tail -n 40 || true
		note_fail "$k" build-fail "make ${failed_t[*]} failed, log $log"
	fi
	if [ ! -f "$hbdir/kptrace.ko" ]; then
		rm -rf "$root/tmp/kptrace-build.$$"
		return 1
	fi
	r_tbuild[$k]=$(($(date +%s) - t0))
	if ! check_warnings "$log" "$bdir" "$hbdir"; then
		note_fail "$k" warnings "W=1 warnings in kptrace's files, log $log"
	else
		say "$k: W=1, no warning from kptrace's files"
	fi
	# The guest's tree (run-vm.sh --root): this build, without objects.
	rm -rf "$out/$k/tree"
	cp -a "$hbdir" "$out/$k/tree"
	rm -rf "$root/tmp/kptrace-build.$$"
	find "$out/$k/tree" -type f \( -name '*.o' -o -name '*.mod' \
		-o -name '*.mod.c' -o -name '.*.cmd' -o -name '*.o.d' \) -delete
	vm=$(modinfo -F vermagic "$out/$k/tree/kptrace.ko" 2>/dev/null || true)
	if [ "${vm%% *}" != "$kver" ]; then
		note_fail "$k" build-fail "kptrace.ko vermagic '$vm', not $kver"
		return 1
	fi
	# The guest has no libraries: its reader must be static.
	if [ ! -x "$out/$k/tree/tools/kptrace" ]; then
		note_fail "$k" build-fail "no tools/kptrace, log $log"
		return 1
	elif LC_ALL=C readelf -l "$out/$k/tree/tools/kptrace" 2>/dev/null |
	     grep -q 'Requesting program interpreter'; then
		note_fail "$k" build-fail "tools/kptrace is not static, log $log"
		return 1
	fi
	cp "$root/boot/vmlinuz-$kver" "$out/$k/vmlinuz"
	say "$k: built in ${r_tbuild[$k]}s, vermagic $vm, static reader"
}

# testbox_install K SUITE FLAVOUR: the two ways a test box installs kptrace
# (README.md, "Using it on a test box"), by dkms-check.sh --testbox, in the
# suite's chroot seen through an overlay (thrown away after: the chroot
# stays clean for the next run), this run's sources in /root/kptrace.
testbox_install()
{
	local k=$1 suite=$2 flavour=$3 root kver ov ko t0 t rc=0 log
	root=$(testbox_root "$suite")
	kver=$(meta_kver "$root" "$flavour")
	[ -n "$kver" ] || { note_fail "$k" no-kernel; return 1; }
	r_ver[$k]=$kver
	r_pkg[$k]=$(pkg_version "$root" "linux-image-$kver")
	mkdir -p "$out/$k"
	log=$out/$k/testbox.log
	ov=$KPT_CACHE/overlay.$$.$k
	rm -rf "$ov"
	mkdir -p "$ov/upper/root" "$ov/work" "$ov/root"
	cp -a "$out/src" "$ov/upper/root/kptrace"
	t0=$(date +%s)
	chroot_run --overlay "$ov" "$root" bash \
		/root/kptrace/selftests/vm/dkms-check.sh --testbox "$kver" \
		>"$log" 2>&1 || rc=$?
	rm -rf --one-file-system "$ov"
	t=$(($(date +%s) - t0))
	r_tbuild[$k]=$((${r_tbuild[$k]:-0} + t))
	ko=$(sed -n 's/^dkms-check: OK: //p' "$log")
	if [ "$rc" != 0 ] || [ -z "$ko" ]; then
		tail -n 40 "$log"
		note_fail "$k" install-fail "dkms install or make install failed (rc $rc), log $log"
		return 1
	fi
	say "$k: dkms add ., dkms install and make install OK: $ko (${t}s)"
}

# testbox_cleanup: the build directories inside the roots and the overlays
# of this run ($$).
testbox_cleanup()
{
	local r
	for r in "$KPT_CACHE"/chroot-*/; do
		[ -d "$r/tmp" ] || continue
		rm -rf "$r/tmp/kptrace-build.$$"
	done
	rm -rf --one-file-system "$KPT_CACHE"/overlay.$$.*
}
