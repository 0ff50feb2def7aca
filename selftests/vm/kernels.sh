#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The kernel matrix: build kptrace for every Debian kernel from 5.10 to 7.2
# (PREEMPT_RT included) with that kernel's own suite compiler and headers,
# check that DKMS builds it too, boot each kernel in QEMU and run the full
# selftests there.  `make check-kernels` runs this.
#
# usage: kernels.sh [options] [KERNEL...]     (default: $KERNELS, else all)
#
#   kernels   5.10 (bullseye, gcc-10)   6.1, 6.1-rt (bookworm, gcc-12)
#             6.12, 6.12-rt (trixie, gcc-14)   7.2 (sid, gcc-16)
#   --build-only     build (W=1) and the test box's install, no boot
#   --dkms-only      the test box's installs (DKMS, make install) only
#   --prepare-only   make or check the chroots, nothing else
#   --no-dkms        skip the test box's install
#   --out DIR        builds and logs (default: a new /tmp/kptrace-kernels.*)
#   --timeout SEC    hard limit of one guest boot (env VM_TIMEOUT, default
#                    run-vm.sh's)
#   --budget SEC     time budget of the whole run (env KERNELS_BUDGET): a
#                    kernel is not started with less than 5 minutes left
#                    (result "budget", a failure), and a boot never runs
#                    past the budget
#   --list           print the matrix and the kernel each name resolves to
#
# Environment: KPT_CACHE (chroots, default /var/cache/kptrace),
# KPT_MIRROR (default http://deb.debian.org/debian), VM_ARGS (more
# run-vm.sh options), V=1 (the kernel console too).
#
# Every suite, the host's own too, is a fresh test box: a chroot made by
# mmdebstrap in $KPT_CACHE/chroot-SUITE of the packages README.md's "Using
# it on a test box" has one install (TESTBOX_DEBS below), plus the kernels
# to boot; the host's apt sources are never touched.  A chroot is made
# under a temporary name and renamed only once complete and stamped
# (.kptrace-chroot), so a half-made one is never used; a later run installs
# what a grown recipe adds.  Commands inside a chroot run in a private mount
# namespace with its own /proc (objtool needs it), which disappears with
# them.
#
# Each kernel, in its suite's chroot: `make` (kptrace.ko and the static
# reader tools/kptrace, as a test box builds them), kpt_test.ko and the
# selftests' static helpers, with W=1; any compiler, objtool or modpost
# warning from kptrace's own files fails the kernel (warnings inside kernel
# headers are shown, not counted), and so does a reader that is not static.
# Then what a test box does to install it, in the chroot seen through an
# overlay that is thrown away after: `dkms add .` and `dkms install`, and
# `make install`.  Then a QEMU boot (run-vm.sh --mode check) with the module and
# the reader built in that suite.  Everything (sources, tests, harness)
# comes from one snapshot of the working tree taken at the start, so edits
# during the run change nothing.  The table at the end has one line per
# kernel; the last line is the total "N passed, N failed, N skipped".  Exit
# 0 when every kernel built and passed, 1 otherwise, 2 on a usage error.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)

ALL_KERNELS="5.10 6.1 6.1-rt 6.12 6.12-rt 7.2"
cache=${KPT_CACHE:-/var/cache/kptrace}
mirror=${KPT_MIRROR:-http://deb.debian.org/debian}
timeout=${VM_TIMEOUT:-}
budget=${KERNELS_BUDGET:-}
out=
mode=check
dkms=1
list=0

say() { echo "kernels: $*"; }
die() { echo "kernels: error: $*" >&2; exit 2; }

while [ $# -gt 0 ]; do
	case $1 in
	--build-only)	mode=build ;;
	--dkms-only)	mode=dkms ;;
	--prepare-only)	mode=prepare ;;
	--no-dkms)	dkms=0 ;;
	--out)		out=$2; shift ;;
	--timeout)	timeout=$2; shift ;;
	--budget)	budget=$2; shift ;;
	--list)		list=1 ;;
	-h|--help)	sed -n '3,/^set -e/s/^# \{0,1\}//p' "$0"; exit 0 ;;
	-*)		die "unknown option: $1 (see --help)" ;;
	*)		break ;;
	esac
	shift
done
# shellcheck disable=SC2206
kernels=(${*:-${KERNELS:-$ALL_KERNELS}})
[ ${#kernels[@]} -gt 0 ] || read -r -a kernels <<<"$ALL_KERNELS"

# The matrix: name -> Debian suite and kernel flavour.
kernel_suite()
{
	case $1 in
	5.10)		echo bullseye ;;
	6.1|6.1-rt)	echo bookworm ;;
	6.12|6.12-rt)	echo trixie ;;
	7.2)		echo sid ;;
	*)		return 1 ;;
	esac
}
kernel_flavour() { case $1 in *-rt) echo rt-amd64 ;; *) echo amd64 ;; esac; }

for k in "${kernels[@]}"; do
	kernel_suite "$k" >/dev/null ||
		die "unknown kernel '$k' (known: $ALL_KERNELS)"
done

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

# root_of SUITE: the chroot a suite builds in.
root_of() { echo "$cache/chroot-$1"; }

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

# in_root [--overlay DIR] ROOT CMD...: run CMD in the chroot ROOT with a
# clean environment, in a private mount namespace with /proc and its own
# /dev/pts (apt wants a pty for its log).  With --overlay, ROOT is seen
# through an overlay whose changes go to DIR/upper (DIR/work and DIR/root
# are the overlay's): ROOT itself stays as it was.
in_root()
{
	local ov=
	if [ "$1" = --overlay ]; then
		ov=$2
		shift 2
	fi
	local root=$1
	shift
	local env=(env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root
		   LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive)
	unshare --mount --propagation private -- /bin/sh -c \
		'root=$0 ov=$1
		 shift
		 if [ -n "$ov" ]; then
			mount -t overlay overlay -o "lowerdir=$root,upperdir=$ov/upper,workdir=$ov/work" \
				"$ov/root" || exit 1
			root=$ov/root
		 fi
		 mount -t proc proc "$root/proc" || exit 1
		 mount -t devpts -o newinstance,ptmxmode=0666 devpts \
			"$root/dev/pts" 2>/dev/null
		 exec chroot "$root" "$@"' \
		"$root" "$ov" "${env[@]}" "$@"
}

# Missing packages among the arguments, as installed in ROOT.
missing_pkgs()
{
	local root=$1 p st
	shift
	for p in "$@"; do
		st=$(dpkg-query --admindir="$root/var/lib/dpkg" -W \
			-f='${Status}' "$p" 2>/dev/null || true)
		[ "$st" = "install ok installed" ] || echo "$p"
	done
}

# Remove a directory tree of the cache: unmount what is mounted below it
# first, and never cross into another filesystem.
remove_tree()
{
	local d=$1 m
	[ -e "$d" ] || return 0
	case $d in "$cache"/chroot-*) ;; *) die "refusing to remove $d" ;; esac
	for m in $(findmnt -rn -o TARGET | grep -F "$d/" | sort -r); do
		umount -l "$m" 2>/dev/null || true
	done
	rm -rf --one-file-system "$d"
}

# chroot_install ROOT PKG...: apt-get install inside a chroot.
chroot_install()
{
	local root=$1
	shift
	local log=$root.apt.log
	say "installing in $root: $* (log $log)"
	if ! { in_root "$root" apt-get -q -o Acquire::Check-Valid-Until=false \
			update &&
	       in_root "$root" apt-get -y -q -o Acquire::Check-Valid-Until=false \
			--no-install-recommends install "$@"; } >"$log" 2>&1; then
		tail -n 20 "$log"
		return 1
	fi
}

# ensure_chroot SUITE: a complete chroot of SUITE in $cache/chroot-SUITE.
# Returns non-zero (with a message) when it cannot be had.
ensure_chroot()
{
	local suite=$1 root=$cache/chroot-$1 new=$cache/chroot-$1.new
	local stamp=.kptrace-chroot pkgs t0 miss lockfd

	read -r -a pkgs <<<"$(suite_pkgs "$suite")"
	mkdir -p "$cache"
	exec {lockfd}>"$cache/chroot-$suite.lock"
	flock "$lockfd"

	if [ -d "$root" ] && [ ! -f "$root/$stamp" ]; then
		# Not made by this script: adopt it only when dpkg says it is
		# whole (no half-installed package, apt present).
		if [ -x "$root/usr/bin/apt-get" ] && [ -f "$root/var/lib/dpkg/status" ] &&
		   [ -z "$(in_root "$root" dpkg --audit 2>&1)" ]; then
			say "adopting $root (no stamp, dpkg consistent)"
			printf 'suite=%s\nadopted=%s\n' "$suite" "$(date -u +%F)" \
				>"$root/$stamp"
		else
			say "$root is incomplete (no stamp, dpkg not consistent): making it again"
			remove_tree "$root"
		fi
	fi

	if [ ! -d "$root" ]; then
		command -v mmdebstrap >/dev/null ||
			"$here/install-deps.sh" mmdebstrap || return 1
		remove_tree "$new"
		say "making the $suite chroot (mmdebstrap, log $cache/chroot-$suite.log)"
		t0=$(date +%s)
		# No documentation, and no /etc/kernel/postinst.d hooks: an
		# initramfs per kernel nobody boots (the guest has its own)
		# is a third of the time here.
		if ! mmdebstrap --variant=apt \
			--aptopt='Acquire::Check-Valid-Until "false"' \
			--dpkgopt='path-exclude=/usr/share/doc/*' \
			--dpkgopt='path-exclude=/usr/share/man/*' \
			--dpkgopt='path-exclude=/usr/share/locale/*' \
			--dpkgopt='path-exclude=/etc/kernel/postinst.d/*' \
			--include="$(echo "${pkgs[*]}" | tr ' ' ',')" \
			"$suite" "$new" "$mirror" >"$cache/chroot-$suite.log" 2>&1; then
			tail -n 20 "$cache/chroot-$suite.log"
			remove_tree "$new"
			say "FAIL: mmdebstrap $suite"
			exec {lockfd}>&-
			return 1
		fi
		printf 'suite=%s\nmade=%s\nmirror=%s\n' "$suite" \
			"$(date -u +%FT%TZ)" "$mirror" >"$new/$stamp"
		mv "$new" "$root"
		say "$suite chroot made in $(($(date +%s) - t0))s"
	fi

	# The recipe may have grown since the chroot was made.
	read -r -a miss <<<"$(missing_pkgs "$root" "${pkgs[@]}" | tr '\n' ' ')"
	if [ ${#miss[@]} -gt 0 ] && ! chroot_install "$root" "${miss[@]}"; then
		say "FAIL: cannot install ${miss[*]} in $root"
		exec {lockfd}>&-
		return 1
	fi
	exec {lockfd}>&-
}

# The sources, as in the working tree: the files git knows (tracked, or
# new and not ignored) but executables built here, else everything but
# build products.
copy_sources()
{
	local dst=$1
	mkdir -p "$dst"
	if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
		(cd "$top" && git ls-files -z -c -o --exclude-standard |
			xargs -0 sh -c 'elf=$(printf "\177ELF")
				for f; do [ -f "$f" ] &&
				[ "$(head -c 4 "$f")" != "$elf" ] &&
				printf "%s\0" "$f"; done' sh |
			xargs -0 cp --parents -t "$dst")
	else
		(cd "$top" && tar --exclude=.git --exclude='*.o' --exclude='*.ko' \
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

# Per-kernel results: r_res is "ok" or the failures, r_why the details.
declare -A r_ver r_pkg r_res r_pass r_fail r_skip r_tbuild r_tvm r_why
overall=0
note_fail()
{
	case ,${r_res[$1]:-}, in
	*,"$2",*) ;;
	*) r_res[$1]=${r_res[$1]:+${r_res[$1]},}$2 ;;
	esac
	[ -z "${3:-}" ] || r_why[$1]=${r_why[$1]:+${r_why[$1]}; }$3
	overall=1
}

# build KERNEL: `make` (kptrace.ko and the reader), kpt_test.ko and the
# helpers, W=1, in its suite's chroot; the results land in $out/KERNEL/.
# Fails when nothing bootable was built (W=1 warnings are recorded, but the
# modules are still tested).
build_kernel()
{
	local k=$1 suite root flavour kver bdir hbdir log t0 cc_k cc_u vm t
	local targets failed_t
	suite=$(kernel_suite "$k")
	root=$(root_of "$suite")
	flavour=$(kernel_flavour "$k")
	kver=$(meta_kver "$root" "$flavour")
	if [ -z "$kver" ]; then
		note_fail "$k" no-kernel "linux-image-$flavour not installed in $root"
		return 1
	fi
	r_ver[$k]=$kver
	r_pkg[$k]=$(pkg_version "$root" "linux-image-$kver")
	# build is an absolute symbolic link: test it from inside the root.
	if [ ! -r "$root/boot/vmlinuz-$kver" ] ||
	   ! in_root "$root" test -f "/lib/modules/$kver/build/Makefile"; then
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
	cc_u=$(in_root "$root" gcc --version 2>/dev/null | head -n 1)
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
		in_root "$root" make -C "$bdir" KDIR="/lib/modules/$kver/build" \
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

# install_kernel KERNEL: the two ways a test box installs kptrace (README.md,
# "Using it on a test box"), in its suite's chroot seen through an overlay
# (thrown away after: the chroot stays clean for the next run), this run's
# sources in /root/kptrace: `dkms add .` and `dkms install NAME/VERSION -k
# KVER` from the fresh tree, which must leave NAME.ko in KVER's
# updates/dkms, then `make install` (the module for KVER, the reader in
# /usr/local/sbin, which must be static and run). In that order, as dkms
# install refuses a module of its version that make install put there.
install_kernel()
{
	local k=$1 suite root kver ov name ver ko t0 t rc=0 log
	suite=$(kernel_suite "$k")
	root=$(root_of "$suite")
	kver=$(meta_kver "$root" "$(kernel_flavour "$k")")
	[ -n "$kver" ] || { note_fail "$k" no-kernel; return 1; }
	r_ver[$k]=$kver
	r_pkg[$k]=$(pkg_version "$root" "linux-image-$kver")
	mkdir -p "$out/$k"
	name=$(sed -n 's/^PACKAGE_NAME="\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' "$out/src/dkms.conf")
	ver=$(sed -n 's/^PACKAGE_VERSION="\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' "$out/src/dkms.conf")
	log=$out/$k/testbox.log
	ov=$cache/overlay.$$.$k
	rm -rf "$ov"
	mkdir -p "$ov/upper/root" "$ov/work" "$ov/root"
	cp -a "$out/src" "$ov/upper/root/kptrace"
	t0=$(date +%s)
	in_root --overlay "$ov" "$root" /bin/sh -c '
		set -ex
		cd /root/kptrace
		dkms add .
		dkms install "$1/$2" -k "$3"
		dkms status
		make KDIR=/lib/modules/$3/build install
		/usr/local/sbin/kptrace --version' sh "$name" "$ver" "$kver" \
		>"$log" 2>&1 || rc=$?
	# /lib is /usr/lib in a merged-/usr root (trixie, sid)
	ko=$(for d in "$ov/upper/lib/modules/$kver" \
		      "$ov/upper/usr/lib/modules/$kver"; do
		(cd "$d" 2>/dev/null &&
		 find . -path "*/dkms/*" -name "$name.ko*")
	     done | head -n 1)
	find "$ov/upper/var/lib/dkms" -name make.log -exec sh -c \
		'echo "--- $1"; cat "$1"' _ {} \; >>"$log" 2>/dev/null
	if [ "$rc" = 0 ] && LC_ALL=C readelf -l "$ov/upper/usr/local/sbin/kptrace" \
		2>/dev/null | grep -q 'Requesting program interpreter'; then
		echo "installed /usr/local/sbin/kptrace is not static" >>"$log"
		rc=1
	fi
	rm -rf --one-file-system "$ov"
	t=$(($(date +%s) - t0))
	r_tbuild[$k]=$((${r_tbuild[$k]:-0} + t))
	if [ "$rc" != 0 ] || [ -z "$ko" ]; then
		tail -n 40 "$log"
		note_fail "$k" install-fail "make install or dkms install failed (rc $rc), log $log"
		return 1
	fi
	say "$k: dkms add ., dkms install and make install OK: ${ko#./} (${t}s)"
}

# vm KERNEL: boot it with the selftests of its own build tree.
vm_kernel()
{
	local k=$1 t0 rc=0 line plan p n left tmo=$timeout args=() res=vm-fail short=0
	if [ -n "$budget" ]; then
		left=$((t_all + budget - $(date +%s) - 15))
		[ "${tmo:-2400}" -le "$left" ] || { tmo=$left; short=1; }
	fi
	[ -z "$tmo" ] || args+=(--timeout "$tmo")
	# shellcheck disable=SC2206
	args+=(${VM_ARGS:-})
	t0=$(date +%s)
	# The harness of this run's snapshot, like everything else: an edit
	# of the working tree during the run cannot change it under our feet.
	V=${V:-0} "$out/src/selftests/vm/run-vm.sh" --kernel "$out/$k/vmlinuz" \
		--root "$out/$k/tree" --tools "$out/$k/tree/tools/kptrace" \
		--mode check --logdir "$out/$k/vm" \
		"${args[@]}" 2>&1 | tee "$out/$k/vm.log" || rc=${PIPESTATUS[0]}
	r_tvm[$k]=$(($(date +%s) - t0))
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' \
		"$out/$k/vm.log" | tail -n 1 || true)
	if [ -n "$line" ]; then
		read -r "r_pass[$k]" _ "r_fail[$k]" _ "r_skip[$k]" _ <<<"$line"
	fi
	if [ "$rc" != 0 ]; then
		# A run that died counts what it did not run as failed (or
		# one failure when there was no KTAP plan at all); a boot the
		# budget cut short says so.
		[ "$short" = 0 ] || ! grep -q '^vm: FAIL: timeout' "$out/$k/vm.log" ||
			res=budget
		plan=$(sed -n 's/^vm: FAIL: KTAP plan 1\.\.\([0-9]*\) but \([0-9]*\) results$/\1 \2/p' \
			"$out/$k/vm.log" | tail -n 1)
		if [ -n "$plan" ]; then
			read -r p n <<<"$plan"
			r_fail[$k]=$((${r_fail[$k]:-0} + p - n))
			note_fail "$k" "$res" "$((p - n)) of $p tests not run (counted as failed)"
		elif [ "${r_fail[$k]:-0}" = 0 ]; then
			r_fail[$k]=1
		fi
		note_fail "$k" "$res" "$(grep '^vm: FAIL' "$out/$k/vm.log" |
			grep -v 'KTAP plan' | sed 's/^vm: FAIL: //' |
			tr '\n' ' ' | sed 's/ $//'), logs $out/$k/vm"
		return 1
	fi
	! grep -q '^vm: RETRY' "$out/$k/vm.log" ||
		r_why[$k]=${r_why[$k]:+${r_why[$k]}; }"booted twice (RETRY)"
}

dkms_conf_check()
{
	local re v bad=0
	re=$(sed -n 's/^BUILD_EXCLUSIVE_KERNEL="\(.*\)"$/\1/p' "$top/dkms.conf")
	for v in 5.10.0-32-amd64 5.15.0 5.19.17 6.0.1 6.1.0-56-rt-amd64 \
		 6.12.107+deb13-amd64 7.0.0 7.2.13+deb14-amd64 7.19.1; do
		[[ $v =~ $re ]] || { say "dkms.conf: $v should build, '$re' refuses it"; bad=1; }
	done
	for v in 4.19.0-27-amd64 5.4.0 5.9.16 5.1.0 8.0.0 10.1.0 16.1.0; do
		[[ ! $v =~ $re ]] || { say "dkms.conf: $v is out of range, '$re' accepts it"; bad=1; }
	done
	[ $bad = 0 ] && say "dkms.conf: BUILD_EXCLUSIVE_KERNEL '$re' covers 5.10 to 7.x"
	return $bad
}

if [ "$list" = 1 ]; then
	printf '%-8s %-9s %-28s %s\n' name suite kernel image
	for k in $ALL_KERNELS; do
		s=$(kernel_suite "$k")
		r=$(root_of "$s")
		v=$(meta_kver "$r" "$(kernel_flavour "$k")" 2>/dev/null || true)
		printf '%-8s %-9s %-28s %s\n' "$k" "$s" \
			"${v:-(not installed)}" "${v:+$r/boot/vmlinuz-$v}"
	done
	exit 0
fi

[ "$(id -u)" = 0 ] || die "must run as root (chroots, dkms, apt-get)"
if [ -z "$out" ]; then
	out=$(mktemp -d "${TMPDIR:-/tmp}/kptrace-kernels.XXXXXX")
else
	mkdir -p "$out"
	out=$(cd "$out" && pwd)
fi
# Build directories inside the roots and overlays are this run's ($$):
# gone at the end.
# shellcheck disable=SC2317
cleanup()
{
	local s r
	for s in bullseye bookworm trixie sid; do
		r=$cache/chroot-$s
		[ -d "$r/tmp" ] || continue
		rm -rf "$r/tmp/kptrace-build.$$"
	done
	rm -rf --one-file-system "$cache"/overlay.$$.*
}
trap cleanup EXIT
trap 'exit 130' INT TERM

t_all=$(date +%s)
say "kernels: ${kernels[*]}; chroots in $cache; logs in $out"

# The sources of this run, taken once: every kernel builds the same.
rm -rf "$out/src"
copy_sources "$out/src"

# Host side: readelf and modinfo to check the builds, and what a guest run
# needs (QEMU, busybox, cpio); every build is in the chroots.
"$here/install-deps.sh" binutils kmod
if [ "$mode" = check ]; then
	"$here/install-deps.sh" qemu-system-x86 busybox-static cpio kmod
fi
[ "$mode" = prepare ] || dkms_conf_check || overall=1

# The chroots, each once.
declare -A suite_ok
t_prep=$(date +%s)
for k in "${kernels[@]}"; do
	s=$(kernel_suite "$k")
	[ -z "${suite_ok[$s]:-}" ] || continue
	if ensure_chroot "$s"; then
		suite_ok[$s]=1
	else
		suite_ok[$s]=0
	fi
done
t_prep=$(($(date +%s) - t_prep))
say "roots ready in ${t_prep}s"

for k in "${kernels[@]}"; do
	s=$(kernel_suite "$k")
	if [ "${suite_ok[$s]}" != 1 ]; then
		note_fail "$k" no-chroot "the $s chroot could not be made"
		continue
	fi
	if [ "$mode" = prepare ]; then
		r_ver[$k]=$(meta_kver "$(root_of "$s")" "$(kernel_flavour "$k")")
		continue
	fi
	if [ -n "$budget" ] &&
	   [ $((t_all + budget - $(date +%s))) -lt 300 ]; then
		note_fail "$k" budget "not run: less than 300s left of the ${budget}s budget"
		continue
	fi
	printf '\n===== %s =====\n' "$k"
	built=1
	if [ "$mode" != dkms ]; then
		build_kernel "$k" || built=0
	fi
	if [ "$dkms" = 1 ] || [ "$mode" = dkms ]; then
		install_kernel "$k" || true
	fi
	if [ "$mode" = check ] && [ "$built" = 1 ]; then
		vm_kernel "$k" || true
	fi
done

# The table, then what went wrong where.
printf '\n%-8s %-26s %6s %6s %7s %6s %5s  %s\n' kernel version passed \
	failed skipped build vm result
tp=0 tf=0 ts=0
for k in "${kernels[@]}"; do
	printf '%-8s %-26s %6s %6s %7s %6s %5s  %s\n' "$k" \
		"${r_ver[$k]:-?}" "${r_pass[$k]:--}" "${r_fail[$k]:--}" \
		"${r_skip[$k]:--}" "${r_tbuild[$k]:--}" "${r_tvm[$k]:--}" \
		"${r_res[$k]:-ok}"
	tp=$((tp + ${r_pass[$k]:-0}))
	tf=$((tf + ${r_fail[$k]:-0}))
	ts=$((ts + ${r_skip[$k]:-0}))
done
for k in "${kernels[@]}"; do
	[ -z "${r_why[$k]:-}" ] || say "$k: ${r_why[$k]}"
done
say "seconds: build = W=1 build + dkms install and make install, vm = boot + selftests; roots ${t_prep}s, all $(($(date +%s) - t_all))s"
say "logs in $out"
if [ "$mode" = check ]; then
	echo "$tp passed, $tf failed, $ts skipped"
fi
exit "$overall"
