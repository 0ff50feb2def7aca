#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench: kptrace against an empty probe, ftrace, bpftrace, perf trace
# and strace, in ONE guest boot of Debian trixie's 6.12 kernel under QEMU
# (TCG), then a table on stdout and a JSON file.
#
# usage: bench.sh [options]
#   --chroot DIR     the guest's root and build chroot, named chroot-*
#                    (default /var/cache/kptrace/chroot-trixie-bench; made
#                    by selftests/vm/chroot.sh when missing, see below)
#   --reps N         measured repetitions per arm (default 7), plus one
#                    warm-up round that is discarded
#   --calls N        kernel-loop calls per micro repetition (default 100000)
#   --dd-count N     bytes dd copies with bs=1 (default 20000)
#   --arms REGEXP    only the arms matching (default: all)
#   --seed N         the random order's seed (default: random, printed)
#   --timeout SEC    hard limit of the guest (default 7200, env BENCH_TIMEOUT)
#   --logdir DIR     where logs and results go (default /tmp/kptrace-bench.*)
#   --report FILE    only print the tables of an earlier results.txt (and
#                    of the insn.log beside it, when FILE lacks its lines)
#   --rev REV        benchmark git revision REV (git archive) instead of
#                    the working tree
#   --guest-cmd CMD  boot the same guest but run CMD (bash) instead of the
#                    benchmark, e.g. to look at it with perf; it starts
#                    in the built tree (kptrace.ko, selftests/bench/*.ko)
#   --tsc MODE       the guest's clock: trusted (the host's TSC rate and
#                    tsc=reliable, as bare metal), unstable (tsc=unstable:
#                    the kernel keeps time with the HPET, as many VMs do
#                    with theirs), or both (default): one boot each, each
#                    with its table, in DIR/tsc-trusted and
#                    DIR/tsc-unstable
#   --no-insn        boot without the instruction-counting QEMU plugin
#   --profile        also say where each arm's instructions go: the
#                    plugin counts them by guest block (profile=on), and
#                    profile.py names the blocks' functions from the
#                    guest's kallsyms (profile.txt); the arms' times then
#                    mean nothing, their instruction counts stay exact.
#                    e.g. --profile --reps 1 --calls 2000 --arms agg_kpt_stack
#
# The chroot is both the build environment (gcc-14, the 6.12 headers) and,
# through virtme-ng (vng, 9p root), the guest's root file system, so
# whatever is installed there runs in the guest: bpftrace, perf, strace,
# trace-cmd. It is made once with mmdebstrap by the harness's chroot maker
# (selftests/vm/chroot.sh: stamped, completed when BENCH_DEBS grows;
# KPT_MIRROR, or BENCH_MIRROR, picks the mirror, else the one the host's
# apt sources name, else mmdebstrap's default); nothing is installed on
# the host but mmdebstrap.
#
# Steps: copy this tree's sources into the chroot, build kptrace.ko,
# kpt_bench.ko and kpt_floor.ko there with the kernel's own compiler
# (gcc-14), and the static kpt_sysloop (the system-call arms' user-space
# loop of getppid() between the same markers), the static tools/kptrace
# on the host, build insn_plugin.so
# (below) in the chroot, boot the chroot's kernel with virtme-ng
# (vng --disable-kvm, 2 CPUs, 1 GiB, 9p root) and run guest.sh in it.
# Logs: console.log (the kernel console), output.log (the guest's output),
# insn.log (the plugin's), results.txt (raw measurements), bench.json,
# table.txt. A kernel fault on the console (selftests/vm/vmlib.sh's
# patterns) fails the run.
#
# Under QEMU's software emulation time is not modelled: absolute
# nanoseconds mean nothing, only ratios between arms of one boot do. What
# is exact is the number of guest instructions: the chroot's QEMU loads
# insn_plugin.so (-plugin, -d plugin -D insn.log), which logs the count of
# the loop's vCPU at the markers kpt_bench.c puts around its loop (and
# kpt_sysloop.c around its system calls: the plugin counts user-mode
# instructions too), and report.py gives every micro arm its instructions
# per call. The plugin's
# header, include/qemu/qemu-plugin.h, is not in any binary package: it is
# taken from the source package of the chroot's qemu-system-x86 (exactly
# its version, fetched with a private apt state, the host's sources
# untouched) into /var/cache/kptrace/qemu-plugin-h/VERSION/.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=../vm/vmlib.sh
. "$repo/selftests/vm/vmlib.sh"
# The mirror: KPT_MIRROR, or BENCH_MIRROR, else chroot.sh's (the host's).
KPT_MIRROR=${KPT_MIRROR:-${BENCH_MIRROR:-}}
# shellcheck source=../vm/chroot.sh
. "$repo/selftests/vm/chroot.sh"

# The chroot's packages: the build, the guest's tracers and virtme-ng, and
# what the instruction-counting QEMU plugin (insn_plugin.c) builds with.
BENCH_DEBS="make gcc libc6-dev linux-image-amd64 linux-headers-amd64 kmod
	busybox-static bpftrace linux-perf strace trace-cmd
	virtme-ng qemu-system-x86 procps python3 util-linux
	libglib2.0-dev pkgconf"

chroot_dir=/var/cache/kptrace/chroot-trixie-bench
reps=7
calls=100000
dd_count=20000
arms=.
seed=
timeout=${BENCH_TIMEOUT:-7200}
logdir=
report_only=
guest_cmd_opt=
src_rev=
insn=1
profile=
tsc=both

die() { echo "bench: error: $*" >&2; exit 2; }
say() { echo "bench: $*"; }

orig_args=("$@")
while [ $# -gt 0 ]; do
	case $1 in
	--chroot)	chroot_dir=$2; shift ;;
	--reps)		reps=$2; shift ;;
	--calls)	calls=$2; shift ;;
	--dd-count)	dd_count=$2; shift ;;
	--arms)		arms=$2; shift ;;
	--seed)		seed=$2; shift ;;
	--timeout)	timeout=$2; shift ;;
	--logdir)	logdir=$2; shift ;;
	--report)	report_only=$2; shift ;;
	--guest-cmd)	guest_cmd_opt=$2; shift ;;
	--rev)		src_rev=$2; shift ;;
	--tsc)		tsc=$2; shift ;;
	--no-insn)	insn= ;;
	--profile)	profile=1 ;;
	-h|--help)	sed -n '3,/^set -e/s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*)		die "unknown option: $1 (see --help)" ;;
	esac
	shift
done
[ -n "$seed" ] || seed=$((RANDOM * 32768 + RANDOM))
if [ -n "$report_only" ]; then
	d=$(cd "$(dirname "$report_only")" && pwd)
	command -v python3 >/dev/null || die "--report needs python3"
	insn_log=()
	grep -q '^R phase=mark ' "$report_only" || [ ! -s "$d/insn.log" ] ||
		insn_log=(--insn-log "$d/insn.log")
	exec python3 "$here/report.py" "$d/$(basename "$report_only")" \
		--json "$d/bench.json" "${insn_log[@]}"
fi

[ "$(id -u)" = 0 ] || die "make bench needs root (chroot, mounts, mmdebstrap)"
case $tsc in
trusted|unstable) ;;
both)
	# one boot per clock, same seed and arms; each prints its table
	logdir=$(vm_logdir "$logdir" kptrace-bench)
	rc=0
	for t in trusted unstable; do
		say "===== guest clock: TSC $t ====="
		"$0" "${orig_args[@]}" --tsc "$t" --seed "$seed" \
			--logdir "$logdir/tsc-$t" ||
			rc=1
	done
	exit "$rc" ;;
*)	die "--tsc $tsc: trusted, unstable or both" ;;
esac

# shellcheck disable=SC2086
chroot_ensure "$chroot_dir" trixie $BENCH_DEBS ||
	die "no benchmark chroot $chroot_dir"
# virtme-ng's shell init ends with "poweroff -f" and sets up lo with "ip":
# without systemd-sysv and iproute2 the guest would panic at the end.
# busybox provides both, in /usr/local/bin, which virtme-init's PATH has.
for applet in poweroff ip; do
	chroot_run "$chroot_dir" sh -c "PATH=\$PATH:/usr/local/bin
		command -v $applet" >/dev/null 2>&1 ||
		ln -sf /bin/busybox "$chroot_dir/usr/local/bin/$applet"
done
kver=$(cd "$chroot_dir/boot" && ls vmlinuz-* | sed 's/^vmlinuz-//' |
	grep -v -- '-rt-' | sort -V | tail -n 1)
[ -n "$kver" ] || die "no kernel in $chroot_dir/boot"

logdir=$(vm_logdir "$logdir" kptrace-bench)

# The tree goes into the chroot as sources only (tracked and untracked,
# not ignored): the working tree is what is measured, the build products
# of the host's 6.1 builds stay out.
# One work directory per run, so that runs can share the chroot.
mkdir -p "$chroot_dir/root"
work=$(mktemp -d "$chroot_dir/root/kptrace-bench.XXXXXX")
work=${work#"$chroot_dir"}
# Whatever ends the run, the plugin's log and the guest's results so far
# are kept in the log directory.
# (|| true: under set -e a failing cp, no insn.log after a failed build,
# would end the trap before the rm)
trap 'cp -a "$chroot_dir$work/insn.log" "$chroot_dir$work/out/." "$logdir/" \
	2>/dev/null || true; rm -rf "${chroot_dir:?}$work"' EXIT
mkdir -p "$chroot_dir$work/src" "$chroot_dir$work/out"
if [ -n "$src_rev" ]; then
	git -C "$repo" archive --format=tar "$src_rev" |
		tar -x -C "$chroot_dir$work/src"
	rev=$(git -C "$repo" rev-parse --short "$src_rev")
elif git -C "$repo" rev-parse --git-dir >/dev/null 2>&1; then
	(cd "$repo" && git ls-files -z -c -o --exclude-standard |
		xargs -0 -I{} sh -c '[ ! -f "$1" ] || printf "%s\0" "$1"' _ {} |
		cpio --null -pdm --quiet "$chroot_dir$work/src")
	rev=$(git -C "$repo" describe --always --dirty 2>/dev/null || echo unknown)
else
	cp -a "$repo/." "$chroot_dir$work/src/"
	rev=unknown
fi
# The bench's own files always come from here, so that an old revision
# is measured the same way.
cp -a "$here/." "$chroot_dir$work/src/selftests/bench/"
find "$chroot_dir$work/src/selftests/bench" \( -name '*.o' -o -name '*.ko' \
	-o -name '*.mod*' -o -name '.*.cmd' -o -name Module.symvers \
	-o -name modules.order \) -delete

# Everything that mounts runs in a private mount namespace: no mount is
# left behind on the host, whatever happens.
in_chroot() { chroot_run --dev "$chroot_dir" "$@"; }

say "building for $kver in $chroot_dir (gcc-14)"
kdir=/lib/modules/$kver/build
if ! in_chroot sh -c "cd $work/src &&
	make -s -C $kdir M=\$PWD modules &&
	make -s -C $kdir M=\$PWD/selftests/bench modules &&
	gcc -O2 -static -Wall -o selftests/bench/kpt_sysloop \
		selftests/bench/kpt_sysloop.c" \
	>"$logdir/build.log" 2>&1; then
	tail -n 30 "$logdir/build.log"
	die "build failed (log: $logdir/build.log)"
fi
# The reader is a static binary that runs on any kernel: it is built on
# the host. It needs only libc, but a --rev from before 0100210 needs
# libbpf (and trixie's libelf.a cannot be linked statically).
deps=(gcc make libc6-dev)
if grep -q -- '-lbpf' "$chroot_dir$work/src/tools/Makefile"; then
	deps+=(libbpf-dev libelf-dev zlib1g-dev)
fi
"$repo/selftests/vm/install-deps.sh" "${deps[@]}"
if ! make -s -C "$chroot_dir$work/src/tools" kptrace >>"$logdir/build.log" 2>&1; then
	tail -n 30 "$logdir/build.log"
	die "tools build failed (log: $logdir/build.log)"
fi
# The session arms' reader, the selftests' own (static, as the reader);
# a --rev from before sessions has one without -S: those arms skip.
if [ -f "$chroot_dir$work/src/selftests/helpers/kpt_read.c" ] &&
   ! gcc -O2 -static -pthread -Wall -I "$chroot_dir$work/src/include" \
	-o "$chroot_dir$work/src/selftests/helpers/kpt_read" \
	"$chroot_dir$work/src/selftests/helpers/kpt_read.c" \
	>>"$logdir/build.log" 2>&1; then
	tail -n 30 "$logdir/build.log"
	die "kpt_read build failed (log: $logdir/build.log)"
fi

# The QEMU plugin API header of the chroot's qemu-system-x86, exactly its
# version (the API changes between releases), from its source package:
# prints the directory that holds it, fetching it once.
qemu_plugin_header()
{
	local ver suite dir apt o mirror

	ver=$(chroot "$chroot_dir" dpkg-query -W -f='${source:Version}' \
		qemu-system-x86) || return 1
	dir=/var/cache/kptrace/qemu-plugin-h/${ver#*:}
	if [ ! -s "$dir/qemu-plugin.h" ]; then
		suite=$(. "$chroot_dir/etc/os-release" && echo "$VERSION_CODENAME")
		mkdir -p "$dir"
		apt=$(mktemp -d "$dir/apt.XXXXXX")
		mkdir -p "$apt/lists/partial" "$apt/archives/partial"
		# the mirror the chroot was made from, as its sources say
		mirror=${KPT_MIRROR:-$(kpt_apt_mirror "$chroot_dir" || true)}
		[ -n "$mirror" ] || {
			say "no Debian mirror in $chroot_dir's apt sources: set KPT_MIRROR" >&2
			rm -rf "$apt"
			return 1
		}
		echo "deb-src $mirror $suite main" \
			>"$apt/sources.list"
		o=(-o "Dir::Etc::SourceList=$apt/sources.list"
		   -o Dir::Etc::SourceParts=/dev/null
		   -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt"
		   -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache=
		   -o Acquire::Check-Valid-Until=false -o APT::Sandbox::User=root)
		say "fetching qemu-plugin.h of qemu $ver ($suite source package)" >&2
		if ! { apt-get "${o[@]}" update -qq &&
		       (cd "$apt" && apt-get "${o[@]}" source --download-only \
				-qq "qemu=$ver") &&
		       tar -xf "$apt"/qemu_*.orig.tar.* -C "$apt" \
				--wildcards '*/include/qemu/qemu-plugin.h' &&
		       cp "$apt"/qemu-*/include/qemu/qemu-plugin.h \
				"$dir/qemu-plugin.h.tmp"; } >&2; then
			rm -rf "$apt"
			return 1
		fi
		mv "$dir/qemu-plugin.h.tmp" "$dir/qemu-plugin.h"
		rm -rf "$apt"
	fi
	echo "$dir"
}

qemu_opts=
if [ -n "$insn" ]; then
	hdr=$(qemu_plugin_header) ||
		die "cannot fetch QEMU's plugin header (--no-insn runs without it)"
	mkdir -p "$chroot_dir$work/insn"
	cp "$hdr/qemu-plugin.h" "$chroot_dir$work/insn/"
	if ! chroot "$chroot_dir" sh -c "cd $work/insn &&
		gcc -shared -fPIC -O2 -Wall -I. \$(pkg-config --cflags glib-2.0) \
			-o insn_plugin.so $work/src/selftests/bench/insn_plugin.c" \
		>>"$logdir/build.log" 2>&1; then
		tail -n 30 "$logdir/build.log"
		die "insn_plugin.so build failed (log: $logdir/build.log)"
	fi
	qemu_opts="-plugin $work/insn/insn_plugin.so${profile:+,profile=on} -d plugin -D $work/insn.log"
fi

say "source $repo ($rev), kernel $kver, seed $seed, $reps reps + 1 warm-up"
say "instructions counted by $([ -n "$insn" ] &&
	echo "insn_plugin.so (qemu-plugin.h of qemu ${hdr##*/})" ||
	echo "nothing (--no-insn)")"
say "logs in $logdir; guest timeout ${timeout}s"
guest_cmd="BENCH_REPS=$reps BENCH_CALLS=$calls BENCH_DD_COUNT=$dd_count"
guest_cmd+=" BENCH_SEED=$seed BENCH_ARMS='$arms' BENCH_PROFILE=${profile:-0}"
guest_cmd+=" bash $work/src/selftests/bench/guest.sh /tmp/kptrace-bench-out"
if [ -n "$guest_cmd_opt" ]; then
	printf '%s\n' "$guest_cmd_opt" >"$chroot_dir$work/guest-cmd.sh"
	guest_cmd="cd $work/src && bash $work/guest-cmd.sh; echo BENCH-DONE"
fi
# The guest's TSC counts at the host's rate, but on a loaded host its
# calibration goes wrong (a clock 10x too fast), or the clocksource watchdog
# declares the TSC unstable and moves the guest to the HPET, whose every
# read is an emulated MMIO: every ktime_get_*() (kptrace timestamps its
# records with one) then costs far more than on any real machine, and
# differently in each boot. So: the host's TSC rate, and no watchdog.
# --tsc unstable: the other kind of machine, whose kernel does not trust
# its TSC; instruction counts stay exact, times mean even less.
if [ "$tsc" = unstable ]; then
	append="tsc=unstable"
else
	append=$(vm_tsc_append "$logdir")
	[ -n "$append" ] ||
		say "warning: cannot build tsc_khz.c: the guest calibrates its TSC itself"
fi
say "guest clock: TSC $tsc${append:+ ($append)}"
t0=$(date +%s)
load0=$(cut -d' ' -f1-3 /proc/loadavg | tr ' ' '/')
rc=0
in_chroot sh -c 'cd /root && exec "$@"' sh \
	timeout -k 20 "$timeout" vng --disable-kvm -r "/boot/vmlinuz-$kver" \
	--memory 1G --cpus 2 --verbose ${append:+--append "$append"} --rwdir "/tmp/kptrace-bench-out=$work/out" \
	${qemu_opts:+"--qemu-opts=$qemu_opts"} \
	--exec "$guest_cmd" \
	</dev/null >"$logdir/output.log" 2>"$logdir/console.log" || rc=$?
say "guest ran $(($(date +%s) - t0)) s, exit code $rc"

# The host's load: other QEMU guests share its CPUs and skew everything.
[ ! -f "$chroot_dir$work/out/results.txt" ] ||
	echo "M host_loadavg_before=$load0 host_loadavg_after=$(cut -d' ' -f1-3 /proc/loadavg | tr ' ' '/') host_cpus=$(nproc)" \
		>>"$chroot_dir$work/out/results.txt"
# The plugin's marker lines become results: "R phase=mark vcpu= mark= run=
# insns=", which report.py matches to the micro arms' runs.
if [ -n "$insn" ]; then
	cp "$chroot_dir$work/insn.log" "$logdir/" 2>/dev/null || true
	[ ! -f "$chroot_dir$work/out/results.txt" ] || {
		echo "M insn_qemu_plugin_h=${hdr##*/}"
		sed -n 's/^kpt_insn: /R phase=mark /p' "$logdir/insn.log" 2>/dev/null
	} >>"$chroot_dir$work/out/results.txt"
fi
cp -a "$chroot_dir$work/out/." "$logdir/" 2>/dev/null || true
fail=()
[ "$rc" != 124 ] && [ "$rc" != 137 ] || fail+=("timeout after ${timeout}s")
grep -q '^BENCH-DONE' "$logdir/output.log" ||
	fail+=("the guest did not finish (no BENCH-DONE)")
faults=$(vm_faults "$logdir/console.log" | head -n 20)
[ -z "$faults" ] || fail+=("kernel fault on the console")

if [ -s "$logdir/results.txt" ]; then
	arms_arg=
	[ "$arms" = . ] || arms_arg=" --arms \"$arms\""
	noinsn_arg=
	[ -n "$insn" ] || noinsn_arg=" --no-insn"
	# The chroot's python3: the host may have none.
	chroot "$chroot_dir" python3 "$work/src/selftests/bench/report.py" \
		"$work/out/results.txt" --json "$work/out/bench.json" \
		--json-shown "$logdir/bench.json" \
		--source "$rev" \
		--command "make bench BENCH_ARGS='--reps $reps --calls $calls --dd-count $dd_count --seed $seed$arms_arg$noinsn_arg'" |
		tee "$logdir/table.txt"
	cp "$chroot_dir$work/out/bench.json" "$logdir/" 2>/dev/null || true
fi
if [ ${#fail[@]} -gt 0 ]; then
	for f in "${fail[@]}"; do say "FAIL: $f"; done
	[ -z "$faults" ] || printf '%s\n' "$faults" | sed 's/^/    /'
	echo "bench: ----- last 40 lines of $logdir/console.log -----"
	tr -d '\r' <"$logdir/console.log" | tail -n 40
	exit 1
fi
if [ -n "$profile" ] && [ -s "$logdir/results.txt" ]; then
	chroot "$chroot_dir" python3 "$work/src/selftests/bench/profile.py" \
		"$work/out" --insn-log "$work/insn.log" |
		tee "$logdir/profile.txt"
fi
say "results: $logdir/results.txt, $logdir/bench.json, $logdir/table.txt${profile:+, $logdir/profile.txt}"
