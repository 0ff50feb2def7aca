#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# strace_diff.sh: `kptrace syscalls` against strace (issue #22, "How it is
# judged"), in the bench guest, which has strace (Debian trixie's 6.12
# under QEMU TCG, the chroot of bench.sh). make check-strace runs it.
#
# usage: strace_diff.sh              in the bench guest, in the built tree
#        strace_diff.sh --boot [bench.sh options]
#                                    on the host (root): boots that guest
#                                    with bench.sh --guest-cmd (--tsc
#                                    trusted --no-insn --timeout 1800;
#                                    options given here come after them and
#                                    win, e.g. --rev HEAD), runs this script
#                                    there, prints its KTAP, and exits 0 only
#                                    when the guest ran and nothing failed
#        strace_diff.sh --boot --kernels "6.1 7.2" [bench.sh options]
#                                    the same on each kernel named: 6.12
#                                    is the bench guest above (bench.sh
#                                    options apply to it only); 6.1 and
#                                    7.2 boot that guest's root with the
#                                    Debian kernel of the matrix's test box
#                                    of bookworm or sid (boot_other below).
#                                    The last line is the total "N passed,
#                                    N failed" (make check-strace KERNELS=)
#
# Each case runs the static helper selftests/helpers/kpt_sysgen (bench.sh
# builds only the modules and kpt_sysloop, so this script builds it in the
# guest, into its scratch directory under /tmp, the root being read-only,
# with selftests/Makefile's flags and the guest's gcc) twice:
#
#   strace -f -ff -qq -o DIR/st -- kpt_sysgen ACTIONS   (a file per thread)
#   kptrace syscalls -j -o DIR/kp.json -- kpt_sysgen ACTIONS
#
# (-o a file, not /dev/stdout: under vng --exec, /dev/stdout is a link to
# a virtio port of its own, not to fd 1, so "-o /dev/stdout >FILE" sends
# the records to the console; seen on 6.1, 29 Nov 2026)
#
# and compares, thread by thread, the sequence of (system call, return
# value); a test passes when every thread's sequence is equal, both exit
# statuses are the one expected, and kptrace lost nothing and missed no
# return. Then once more under `strace -c -f` and `kptrace syscalls -s -j`:
# per call, the calls and errors columns must be equal.
#
# Threads. Tids differ between the runs, and so does the order in which
# threads first appear (they race), so a thread is named by its ancestry,
# which does not: the program's first thread is "1", and the thread or
# process that the K-th successful clone, clone3, fork or vfork of thread L
# returned is "L.K" (threads:4:3 gives 1.1 .. 1.4; fork:3 after it 1.5 ..
# 1.7). A tid that no traced clone returned keeps "?TID" and cannot match.
#
# Normalised return values, the same way on both sides:
#   - an error (-4095..-1; strace's "= -1 ENOENT (...)", "= ? ERESTART..."
#     and kptrace's "ret":-2,"errno":"ENOENT"): "-1 ENOENT";
#   - addresses (mmap, mremap, brk, shmat): "ptr" (they move with ASLR);
#   - pids and tids (clone, clone3, fork, vfork, wait4, getpid, gettid,
#     getppid, set_tid_address, getpgid, getpgrp, getsid): the thread's
#     name above, or "ext" for a task outside the traced tree (getppid of
#     the program's first process: strace in one run, kptrace in the other);
#   - exit and exit_group, which do not return: "?" with their status
#     argument, "exit_group(3) ?";
#   - anything else: the decimal value.
#
# Dropped before comparing, and why:
#   - the first thread's calls before the program's execve: kptrace's
#     child runs between its fork and the execve of COMMAND (the read of
#     the pipe on which the tool says "armed", and, had the probe been armed
#     before the child blocked in it, its rt_sigaction and rt_sigprocmask
#     calls); strace shows nothing before its child's execve. The number
#     dropped is printed.
#   - every futex call: pthread_join() calls futex only when the thread has
#     not exited yet, and the wait can return EAGAIN: that depends on the
#     scheduling of each run, not on the tracer (threads cases only). The
#     numbers on both sides are printed.
#   - strace's lines that are not calls: "--- SIGCHLD ... ---" (a signal),
#     "+++ exited with N +++".
# In the -s comparison, likewise: futex rows, and the exit and exit_group
# rows (strace -c counts a call when it returns, so never these two): they
# are compared with the number of exit and exit_group calls in the case's
# strace -f run instead. kptrace -s counts by process, from the fork: the
# pre-exec calls above, if the probe caught any, would add to read (1),
# rt_sigaction (5) and rt_sigprocmask (1): such an excess, without errors,
# is allowed and printed as a note.
#
# Output: KTAP ("ok N NAME", "not ok N NAME", diagnostics after "#"), the
# last line "# N passed, N failed"; exit status 0 when none failed.
set -u

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)

# ------------------------------------------------------------ the host --

# boot_bench LOGDIR [bench.sh options]: 6.12, the bench guest itself
# (bench.sh --guest-cmd); the guest's output in LOGDIR/output.log.
boot_bench()
{
	local logdir=$1
	shift
	if pgrep -f 'selftests/bench/bench\.sh' >/dev/null; then
		echo "strace_diff: note: another bench.sh is running: two TCG guests share the CPUs and crawl"
	fi
	"$here/bench.sh" --tsc trusted --no-insn --timeout 1800 \
		--logdir "$logdir" \
		--guest-cmd 'bash selftests/bench/strace_diff.sh' "$@"
}

# boot_other K LOGDIR: the bench guest's root (its strace, python3, gcc
# and virtme-ng) booted with another Debian kernel: 6.1 (bookworm) or 7.2
# (sid), the linux-image-amd64 of the kernel matrix's test box of that
# suite (selftests/vm/testbox.sh, $KPT_CACHE/chroot-SUITE). kptrace.ko is
# built in that test box, with its suite's compiler (kernel-lab.md), in a
# build directory removed after; the reader on the host (static). The
# bench chroot is seen through an overlay (chroot.sh's chroot_run
# --overlay, thrown away after: neither chroot changes) whose upper layer
# adds the kernel's /boot/vmlinuz-KVER and /lib/modules/KVER (virtme-ng
# takes its 9p and virtio modules from there) and this tree, built, in
# /root/kptrace-strace/src. vng boots it with -accel tcg,thread=single
# (kernel-lab.md: multi-threaded TCG crashes kprobe arm/disarm cycles on
# its own), 2 CPUs, 1 GiB, the host's TSC rate (vmlib.sh); a kernel fault
# on the console fails the run.
boot_other()
{
	local k=$1 logdir=$2 suite sroot kver bdir ov rc=0 append faults
	case $k in
	6.1)	suite=bookworm ;;
	7.2)	suite=sid ;;
	*)	echo "strace_diff: unknown kernel '$k' (6.1, 6.12, 7.2)"; return 2 ;;
	esac
	# shellcheck source=selftests/vm/testbox.sh disable=SC1091
	. "$src/selftests/vm/testbox.sh"
	# shellcheck source=selftests/vm/vmlib.sh disable=SC1091
	. "$src/selftests/vm/vmlib.sh"
	local bench=$KPT_CACHE/chroot-trixie-bench
	testbox_ensure "$suite" || { echo "strace_diff: no $suite test box"; return 1; }
	if [ ! -x "$bench/usr/bin/strace" ] || [ ! -x "$bench/usr/bin/vng" ]; then
		echo "strace_diff: no bench chroot $bench with strace and vng (make bench, or make check-strace without KERNELS, makes it)"
		return 1
	fi
	sroot=$(testbox_root "$suite")
	kver=$(meta_kver "$sroot" amd64)
	if [ -z "$kver" ] || [ ! -r "$sroot/boot/vmlinuz-$kver" ]; then
		echo "strace_diff: no linux-image-amd64 in $sroot"
		return 1
	fi
	echo "strace_diff: $k: $kver from $sroot, root $bench (overlay), logs in $logdir"

	ov=$(mktemp -d /var/tmp/kptrace-strace-ov.XXXXXX)
	mkdir -p "$ov/upper/root/kptrace-strace/src" "$ov/upper/boot" \
		"$ov/upper/lib/modules" "$ov/work" "$ov/root"
	bdir=/tmp/kptrace-strace-build.$$
	gone+=("$ov" "$sroot$bdir")
	copy_sources "$ov/upper/root/kptrace-strace/src"
	cp -a "$ov/upper/root/kptrace-strace/src" "$sroot$bdir"
	if ! chroot_run "$sroot" make -C "$bdir" KDIR="/lib/modules/$kver/build" \
		module >"$logdir/build.log" 2>&1; then
		tail -n 30 "$logdir/build.log"
		echo "strace_diff: $k: kptrace.ko does not build (log $logdir/build.log)"
		return 1
	fi
	cp "$sroot$bdir/kptrace.ko" "$ov/upper/root/kptrace-strace/src/"
	if ! make -s -C "$ov/upper/root/kptrace-strace/src/tools" kptrace \
		>>"$logdir/build.log" 2>&1; then
		tail -n 30 "$logdir/build.log"
		echo "strace_diff: tools/kptrace does not build (log $logdir/build.log)"
		return 1
	fi
	cp "$sroot/boot/vmlinuz-$kver" "$ov/upper/boot/"
	cp -a "$sroot/lib/modules/$kver" "$ov/upper/lib/modules/"
	append=$(vm_tsc_append "$logdir")
	echo "strace_diff: $k: built ($(modinfo -F vermagic "$ov/upper/root/kptrace-strace/src/kptrace.ko" 2>/dev/null)); booting${append:+ with $append}"
	chroot_run --overlay "$ov" --dev "$bench" sh -c 'cd /root && exec "$@"' sh \
		timeout -k 20 "${STRACE_TIMEOUT:-1800}" vng --disable-kvm \
		-r "/boot/vmlinuz-$kver" --memory 1G --cpus 2 --verbose \
		${append:+--append "$append"} \
		--qemu-opts="-accel tcg,thread=single" \
		--exec "cd /root/kptrace-strace/src && bash selftests/bench/strace_diff.sh; echo BENCH-DONE" \
		</dev/null >"$logdir/output.log" 2>"$logdir/console.log" || rc=$?
	faults=$(vm_faults "$logdir/console.log" | head -n 20)
	if [ -n "$faults" ]; then
		echo "strace_diff: $k: FAIL: kernel fault on the console:"
		printf '%s\n' "$faults" | sed 's/^/    /'
		tr -d '\r' <"$logdir/console.log" | tail -n 40
		return 1
	fi
	grep -q '^BENCH-DONE' "$logdir/output.log" || {
		echo "strace_diff: $k: FAIL: the guest did not finish (exit $rc); console tail:"
		tr -d '\r' <"$logdir/console.log" | tail -n 40
		return 1
	}
	return 0
}

if [ "${1:-}" = --boot ]; then
	shift
	[ "$(id -u)" = 0 ] || { echo "strace_diff: needs root (bench.sh)" >&2; exit 2; }
	kernels=6.12
	if [ "${1:-}" = --kernels ]; then
		kernels=${2:-}
		shift 2
	fi
	[ -n "$kernels" ] || kernels=6.12
	top=$(mktemp -d "${TMPDIR:-/tmp}/kptrace-strace-diff.XXXXXX")
	# boot_other's overlays and build directories, gone at the end
	gone=()
	trap 'rm -rf "${gone[@]}"' EXIT
	trap 'exit 130' INT TERM
	tp=0 tf=0 summary=()
	for k in $kernels; do
		logdir=$top/$k
		mkdir -p "$logdir"
		echo "strace_diff: ===== $k ====="
		t0=$(date +%s)
		if [ "$k" = 6.12 ]; then
			boot_bench "$logdir" "$@"
		else
			boot_other "$k" "$logdir"
		fi
		rc=$?
		rm -rf "${gone[@]}"
		gone=()
		secs=$(($(date +%s) - t0))
		out=$logdir/output.log
		tr -d '\r' <"$out" 2>/dev/null |
			sed -n '/^TAP version/,/^# [0-9]* passed, [0-9]* failed$/p'
		verdict=$(tr -d '\r' <"$out" 2>/dev/null |
			grep -E '^# [0-9]+ passed, [0-9]+ failed$' | tail -n 1)
		verdict=${verdict#\# }
		echo "strace_diff: $k: ${verdict}${verdict:+, }boot exit $rc, ${secs} s in all; logs in $logdir"
		if [ -z "$verdict" ]; then
			echo "strace_diff: $k: FAIL: no verdict from the guest"
			tf=$((tf + 1)); verdict="no verdict"
		else
			read -r p _ f _ <<<"$verdict"
			tp=$((tp + p)); tf=$((tf + f))
			if [ "$rc" != 0 ] || [ "$p" = 0 ]; then
				echo "strace_diff: $k: FAIL: the boot failed (exit $rc) or nothing passed"
				tf=$((tf + 1))
			fi
		fi
		summary+=("$k: $verdict")
	done
	[ ${#summary[@]} -lt 2 ] || printf 'strace_diff: %s\n' "${summary[@]}"
	echo "$tp passed, $tf failed"
	[ "$tf" = 0 ]
	exit
fi

# ----------------------------------------------------------- the guest --

KO=${KPT_KO:-$src/kptrace.ko}
KPTRACE=${KPTRACE:-$src/tools/kptrace}
SYSGEN=${KPT_SYSGEN:-$src/selftests/helpers/kpt_sysgen}
tmp=$(mktemp -d /tmp/strace_diff.XXXXXX)
loaded_here=
cleanup()
{
	[ -z "$loaded_here" ] || rmmod kptrace 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
exec 2>&1

echo "TAP version 13"
bail() { echo "Bail out! $*"; echo "# 0 passed, 1 failed"; exit 1; }

[ "$(id -u)" = 0 ] || bail "needs root"
command -v strace >/dev/null || bail "no strace here (the bench guest has it)"
command -v python3 >/dev/null || bail "no python3 here (the bench guest has it)"
[ -x "$KPTRACE" ] || bail "no $KPTRACE (make tools)"
if [ ! -x "$SYSGEN" ]; then
	# the guest's root is read-only: built in $tmp, with the flags of
	# selftests/Makefile
	SYSGEN=$tmp/kpt_sysgen
	t0=$(date +%s)
	gcc -O2 -g -Wall -Wextra -Wno-unused-parameter -I"$src/include" \
		-static -pthread -o "$SYSGEN" "$src/selftests/helpers/kpt_sysgen.c" \
		>"$tmp/build.log" 2>&1 ||
		{ sed 's/^/#   /' "$tmp/build.log"; bail "cannot build kpt_sysgen"; }
	echo "# built kpt_sysgen in $tmp with selftests/Makefile's flags and the guest's gcc: $(($(date +%s) - t0)) s"
fi
grep -q ' /sys/kernel/debug ' /proc/mounts ||
	mount -t debugfs none /sys/kernel/debug || bail "no debugfs"
grep -q ' /sys/kernel/tracing ' /proc/mounts ||
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
if [ ! -e /sys/module/kptrace ]; then
	insmod "$KO" || bail "insmod $KO failed"
	loaded_here=1
fi

echo "# $(uname -r), $(strace -V | head -n 1), kptrace.ko $(cat /sys/module/kptrace/srcversion 2>/dev/null)"

# The comparison: python3 - MODE ARGS (see the header for the rules).
compare()
{
	python3 - "$@" <<'EOF'
import glob, json, os, re, sys

PTR = {"mmap", "mremap", "brk", "shmat"}
PIDRET = {"clone", "clone3", "fork", "vfork", "wait4", "getpid", "gettid",
          "getppid", "set_tid_address", "getpgid", "getpgrp", "getsid"}
CLONES = {"clone", "clone3", "fork", "vfork"}
NORET = {"exit", "exit_group"}
SKIP = {"futex"}
PREEXEC = {"read": 1, "rt_sigaction": 5, "rt_sigprocmask": 1}

def strace_calls(path):
    """[(name, ret, err, arg0)] of one strace -ff file."""
    out = []
    for line in open(path, errors="replace"):
        line = line.rstrip("\n")
        if line.startswith(("---", "+++", "strace:")) or not line:
            continue
        m = re.match(r"([a-z_0-9]+)\((.*)", line)
        if not m:
            raise SystemExit("unparsed strace line: " + line)
        name, rest = m.group(1), m.group(2)
        a0 = re.match(r"(-?\d+)", rest)
        r = re.search(r"\s=\s(\S+)(?:\s(E[A-Z0-9_]+)\s\(.*\))?(?:\s\(.*\))?$", line)
        if not r:
            out.append((name, "?", None, a0 and int(a0.group(1))))
            continue
        val, err = r.group(1), r.group(2)
        if val == "?":
            out.append((name, "?", err, a0 and int(a0.group(1))))
        else:
            out.append((name, int(val, 0), err, a0 and int(a0.group(1))))
    return out

def kptrace_calls(path):
    """{tid: [(name, ret, err, arg0)]} in the order printed, and the
    first tid seen."""
    per, first = {}, None
    for line in open(path, errors="replace"):
        o = json.loads(line)
        if o.get("type") == "lost":
            raise SystemExit("kptrace lost events: " + line.strip())
        if "syscall" not in o:      # "type":"signal" or "exit": not calls
            continue
        tid = o["tid"]
        if first is None:
            first = tid
        args = list(o.get("args", {}).values())
        a0 = args[0] if args and isinstance(args[0], int) else None
        if "ret" not in o:
            rec = (o["syscall"], "?", None, a0)
        else:
            rec = (o["syscall"], o["ret"], o.get("errno"), a0)
        per.setdefault(tid, []).append(rec)
    return per, first

def labels(per, root):
    """tid -> its name by ancestry (see the header)."""
    lab = {root: "1"}
    todo = [root]
    while todo:
        t = todo.pop()
        k = 0
        for name, ret, err, _ in per.get(t, []):
            if name in CLONES and isinstance(ret, int) and ret > 0:
                k += 1
                lab[ret] = "%s.%d" % (lab[t], k)
                todo.append(ret)
    for t in per:
        lab.setdefault(t, "?%d" % t)
    return lab

def norm(rec, lab):
    name, ret, err, a0 = rec
    if name in NORET:
        return "%s(%s) ?" % (name, a0)
    if ret == "?" and err:                  # strace: "= ? ERESTARTSYS (...)"
        return "%s -1 %s" % (name, err)
    if isinstance(ret, int) and -4095 <= ret <= -1:
        return "%s -1 %s" % (name, err or "E%d" % -ret)
    if name in PTR:
        return name + " ptr"
    if name in PIDRET and isinstance(ret, int) and ret > 0:
        return "%s %s" % (name, lab.get(ret, "ext"))
    return "%s %s" % (name, ret)

def prepare(per, root, side):
    """Drops what the header says; returns {label: [normalised]}."""
    seq = per.get(root, [])
    i = next((j for j, r in enumerate(seq)
              if r[0] == "execve" and r[1] == 0), None)
    if i is None:
        raise SystemExit("%s: no successful execve in the first thread" % side)
    if i:
        print("# %s: dropped the first thread's %d call(s) before execve: %s"
              % (side, i, " ".join(r[0] for r in seq[:i])))
    per = dict(per)
    per[root] = seq[i:]
    lab = labels(per, root)
    out, skipped = {}, 0
    for t, s in per.items():
        keep = [r for r in s if r[0] not in SKIP]
        skipped += len(s) - len(keep)
        out[lab[t]] = [norm(r, lab) for r in keep]
    return out, skipped

def seq_mode(stdir, kpjson):
    per = {}
    for f in glob.glob(os.path.join(stdir, "st.*")):
        per[int(f.rsplit(".", 1)[1])] = strace_calls(f)
    # the program's first thread: the one no traced clone returned
    born = {r[1] for s in per.values() for r in s
            if r[0] in CLONES and isinstance(r[1], int) and r[1] > 0}
    sroot = [t for t, s in per.items() if s and t not in born]
    if len(sroot) != 1:
        raise SystemExit("strace: %d files of threads no clone made" % len(sroot))
    s, sskip = prepare(per, sroot[0], "strace")
    kper, kroot = kptrace_calls(kpjson)
    if kroot is None:
        raise SystemExit("kptrace: no call recorded")
    k, kskip = prepare(kper, kroot, "kptrace")
    if sskip or kskip:
        print("# futex calls left out: strace %d, kptrace %d" % (sskip, kskip))
    bad = 0
    for l in sorted(set(s) | set(k), key=lambda x: [int(p) if p.isdigit() else -1 for p in x.lstrip("?").split(".")]):
        a, b = s.get(l, []), k.get(l, [])
        if a == b:
            print("# thread %s: %d calls equal" % (l, len(a)))
            continue
        bad += 1
        n = next((i for i in range(min(len(a), len(b))) if a[i] != b[i]),
                 min(len(a), len(b)))
        print("# thread %s differs at call %d (strace %d calls, kptrace %d):"
              % (l, n, len(a), len(b)))
        print("#   %3s %s %-32s %s" % ("", "  ", "strace -f", "kptrace -j"))
        for i in range(max(0, n - 3), min(max(len(a), len(b)), n + 6)):
            x = a[i] if i < len(a) else "-"
            y = b[i] if i < len(b) else "-"
            print("#   %3d %s %-32s %s" % (i, "  " if x == y else "!=", x, y))
    # exit and exit_group calls of the run, for the -s comparison
    ex = {}
    for calls in s.values():
        for c in calls:
            nm = c.split("(")[0]
            if nm in NORET:
                ex[nm] = ex.get(nm, 0) + 1
    with open(os.path.join(stdir, "noret"), "w") as f:
        json.dump(ex, f)
    sys.exit(1 if bad else 0)

def sum_mode(scfile, kpjson, noretfile):
    st = {}
    rows = False
    for line in open(scfile):
        f = line.split()
        if not f:
            continue
        if f[0].startswith("---"):
            rows = not rows
            continue
        if rows and f[0] != "total":
            st[f[0]] = (int(f[1]), int(f[2]) if len(f) > 2 else 0)
    kp = {}
    for line in open(kpjson):
        o = json.loads(line)
        if "syscall" not in o:
            continue
        c, e = kp.get(o["syscall"], (0, 0))
        kp[o["syscall"]] = (c + o["calls"], e + o["errors"])
    noret = json.load(open(noretfile))
    bad = 0
    for name in sorted(set(st) | set(kp)):
        a, b = st.get(name, (0, 0)), kp.get(name, (0, 0))
        if name in SKIP:
            print("# %-16s left out: strace %d/%d, kptrace %d/%d (calls/errors)"
                  % (name, a[0], a[1], b[0], b[1]))
            continue
        if name in NORET:
            a = (noret.get(name, 0), 0)
            what = "strace -f's count"
        else:
            what = "strace -c"
        if a == b:
            print("# %-16s %5d calls %3d errors, equal" % (name, b[0], b[1]))
        elif (name in PREEXEC and b[1] == a[1]
              and 0 < b[0] - a[0] <= PREEXEC[name]):
            print("# %-16s kptrace %d calls, %s %d: note: %d more, as many as the pre-exec window allows"
                  % (name, b[0], what, a[0], b[0] - a[0]))
        else:
            bad += 1
            print("# %-16s DIFFERS: %s %d calls %d errors, kptrace -s %d calls %d errors"
                  % (name, what, a[0], a[1], b[0], b[1]))
    sys.exit(1 if bad else 0)

if sys.argv[1] == "seq":
    seq_mode(sys.argv[2], sys.argv[3])
else:
    sum_mode(sys.argv[2], sys.argv[3], sys.argv[4])
EOF
}

# books FILE: kptrace's line on stderr says nothing lost, no missed return
books_ok()
{
	grep -Eq '^kptrace: [0-9]+ calls seen, .* 0 lost.*, 0 missed returns' "$1"
}

pass=0
nfail=0
n=0
report() # OK NAME
{
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		pass=$((pass + 1))
		echo "ok $n $2"
	else
		nfail=$((nfail + 1))
		echo "not ok $n $2"
	fi
}

# case NAME EXPECTED_STATUS ACTIONS...
run_case()
{
	local name=$1 want=$2 d=$tmp/$1 rs rk bad=0
	shift 2
	mkdir -p "$d"
	echo "# ---- $name: kpt_sysgen $*"
	timeout 300 strace -f -ff -qq -o "$d/st" -- "$SYSGEN" "$@"
	rs=$?
	timeout 300 "$KPTRACE" syscalls -o "$d/kp.json" -j -- "$SYSGEN" "$@" \
		>"$d/kp.out" 2>"$d/kp.err"
	rk=$?
	sed 's/^/# /' "$d/kp.err"
	[ "$rs" = "$want" ] || { echo "# strace run exited $rs, not $want"; bad=1; }
	[ "$rk" = "$want" ] || { echo "# kptrace run exited $rk, not $want"; bad=1; }
	books_ok "$d/kp.err" || { echo "# kptrace lost calls or missed returns"; bad=1; }
	compare seq "$d" "$d/kp.json" || bad=1
	report "$bad" "$name: per-thread (call, return) equal to strace -f's, exit $want"

	# -s against strace -c -f
	bad=0
	timeout 300 strace -c -f -qq -U name,calls,errors -o "$d/sc" -- \
		"$SYSGEN" "$@"
	rs=$?
	timeout 300 "$KPTRACE" syscalls -o "$d/ks.json" -s -j -- "$SYSGEN" "$@" \
		>"$d/ks.out" 2>"$d/ks.err"
	rk=$?
	sed 's/^/# /' "$d/ks.err"
	[ "$rs" = "$want" ] || { echo "# strace -c run exited $rs, not $want"; bad=1; }
	[ "$rk" = "$want" ] || { echo "# kptrace -s run exited $rk, not $want"; bad=1; }
	grep -q ', 0 lost, 0 not counted .*, 0 missed returns' "$d/ks.err" ||
		{ echo "# kptrace -s lost or did not count calls"; bad=1; }
	if [ -s "$d/noret" ]; then
		compare sum "$d/sc" "$d/ks.json" "$d/noret" || bad=1
	else
		echo "# no strace -f run to take exit counts from"
		bad=1
	fi
	report "$bad" "$name: -s calls and errors equal to strace -c -f's"
}

cases=(
	"getppid_fail 0 getppid:5 fail:3"
	"threads 0 threads:4:3"
	"fork 0 fork:3"
	"sleep 0 sleep:10"
	"exit 3 exit:3"
	"all 3 getppid:5 fail:3 threads:4:3 fork:3 sleep:10 exit:3"
)

# ------------------------------------------------ the workloads of #35 --
#
# Real programs, each run twice in a fresh copy of the same work directory
# ($tmp/NAME/work, made by wl_prepare):
#
#   strace -f -ff -qq -e trace=SET -o DIR/st -- COMMAND >DIR/out.strace
#   kptrace syscalls -f -e trace=SET -j -o DIR/kp.json -- COMMAND >DIR/out.kptrace
#
# and compared as the cases above (the same compare seq: per thread, named
# by ancestry, the sequence of (call, normalised return); calls of the
# first thread before its first successful execve dropped, as they are the
# tracer's own child, which strace does not show), plus: both exit statuses
# the one expected, COMMAND's standard output the same in both runs, and
# kptrace lost nothing and missed no return.
#
# The traced set: calls whose return value depends only on the program
# and its files, not on timing or on the tracer:
#   FILE_SET: execve, the opens, access, the stats, readlink, getcwd,
#     chdir, mkdir, unlink, rename, chmod, getdents64, xattr lookups, the
#     fd calls close, dup*, pipe*, fcntl, and process creation and end:
#     clone, clone3, fork, vfork (needed to name threads by ancestry),
#     exit, exit_group.
#   Left out: read and write of pipes (a pipe read returns what the
#     writer has written so far: scheduling), wait4 (a shell waiting for a
#     pipeline reaps its children in the order they end), futex, poll,
#     nanosleep, the signal calls (strace's own SIGSTOP/SIGCHLD handling
#     differs from an untraced run), mmap/brk (ASLR; normalised anyway),
#     getrandom.
#   COREUTILS_SET: FILE_SET with read, write, lseek, pread64 and
#     copy_file_range: the coreutils cases read and write regular files
#     only, whose sizes are fixed.
#   THREADS_SET: FILE_SET with getppid: kpt_sysgen's threads make those.
FILE_SET=execve,open,openat,openat2,creat,access,faccessat,faccessat2
FILE_SET+=,stat,lstat,fstat,newfstatat,statx,readlink,readlinkat,getcwd
FILE_SET+=,chdir,fchdir,mkdir,mkdirat,unlink,unlinkat,rename,renameat
FILE_SET+=,renameat2,chmod,fchmodat,getdents64,getxattr,lgetxattr
FILE_SET+=,listxattr,llistxattr,close,dup,dup2,dup3,pipe,pipe2,fcntl
FILE_SET+=,clone,clone3,fork,vfork,exit,exit_group
# shellcheck disable=SC2034  # (both used as ${!wset})
COREUTILS_SET=$FILE_SET,read,write,lseek,pread64,copy_file_range
# shellcheck disable=SC2034
THREADS_SET=$FILE_SET,getppid

# wl_prepare DIR: the work directory, the same for both runs: a file to
# copy, and a build whose second step fails (build.mk).
wl_prepare()
{
	rm -rf "$1"
	mkdir -p "$1"
	printf 'line %s\n' 1 2 3 4 5 >"$1/input.txt"
	printf '#include <stdio.h>\nint main(void) { puts("hi"); return 0; }\n' \
		>"$1/main.c"
	# main.o builds; missing.o runs the compiler on a file that is not
	# there: cc1's open fails with ENOENT, gcc exits 1, make 2.
	printf 'prog: main.o missing.o\n\tgcc -o prog main.o missing.o\n' >"$1/build.mk"
	printf 'main.o: main.c\n\tgcc -c main.c -o main.o\n' >>"$1/build.mk"
	printf 'missing.o:\n\tgcc -c missing.c -o missing.o\n' >>"$1/build.mk"
}

# wl_case NAME EXPECTED_STATUS SET COMMAND...
wl_case()
{
	local name=$1 want=$2 set=$3 d=$tmp/$1 rs rk bad=0
	shift 3
	mkdir -p "$d"
	echo "# ---- $name: $*"
	wl_prepare "$d/work"
	(cd "$d/work" && exec timeout 300 strace -f -ff -qq -e trace="$set" \
		-o "$d/st" -- "$@" >"$d/out.strace" 2>"$d/err.strace")
	rs=$?
	wl_prepare "$d/work"
	(cd "$d/work" && exec timeout 300 "$KPTRACE" syscalls -f \
		-e trace="$set" -j -o "$d/kp.json" -- "$@" \
		>"$d/out.kptrace" 2>"$d/kp.err")
	rk=$?
	grep '^kptrace:' "$d/kp.err" | sed 's/^/# /'
	[ "$rs" = "$want" ] || { echo "# strace run exited $rs, not $want"; bad=1; }
	[ "$rk" = "$want" ] || { echo "# kptrace run exited $rk, not $want"; bad=1; }
	books_ok "$d/kp.err" || { echo "# kptrace lost calls or missed returns"; bad=1; }
	if ! cmp -s "$d/out.strace" "$d/out.kptrace"; then
		echo "# COMMAND's stdout differs between the runs:"
		diff "$d/out.strace" "$d/out.kptrace" | head -n 20 | sed 's/^/#   /'
		bad=1
	fi
	compare seq "$d" "$d/kp.json" || bad=1
	report "$bad" "$name: per-process (call, return) equal to strace -f's, exit $want"
}

workloads=(
	"ls 0 COREUTILS_SET ls -l /etc"
	"cat 0 COREUTILS_SET cat input.txt /etc/passwd"
	"head 0 COREUTILS_SET head -n 3 /etc/passwd"
	"wc 0 COREUTILS_SET wc /etc/passwd input.txt"
	"cp 0 COREUTILS_SET cp input.txt copy.txt"
	"stat 0 COREUTILS_SET stat -c '%n %s %h %F %a' input.txt /etc/passwd"
	"cat_missing 1 COREUTILS_SET cat input.txt /nonexistent/kpt"
	"pipeline 0 FILE_SET sh -c 'cat /etc/passwd | sort | uniq -c | wc -l'"
	"build_fails 2 FILE_SET make -f build.mk"
	"threads_files 0 THREADS_SET \$SYSGEN threads:4:3 fail:2 fork:2"
)

echo "1..$((${#cases[@]} * 2 + ${#workloads[@]}))"
t0=$(date +%s)
for c in "${cases[@]}"; do
	# shellcheck disable=SC2086
	run_case $c
done
for w in "${workloads[@]}"; do
	read -r wname wwant wset wcmd <<<"$w"
	# the command's words, as the shell splits them (quotes kept)
	wargs=()
	eval "wargs=($wcmd)"
	wl_case "$wname" "$wwant" "${!wset}" "${wargs[@]}"
done
echo "# $(($(date +%s) - t0)) s in the guest"
echo "# $pass passed, $nfail failed"
[ "$nfail" = 0 ]
