#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: a real system call traced with a kretprobe: comm, arguments,
#   return value and stack of do_sys_openat2
# requires: root, debugfs, kptrace.ko, a do_sys_openat2 symbol (5.6+)
#
# name=do_sys_openat2 retprobe=1 args=2 stack=16. `cat <file>` on a file
# this test creates: an entry of comm "cat" whose return (same tid, next
# event of that tid) has ret >= 0 (an fd); `cat <missing file>`: a return
# with ret=-2 (ENOENT; 4294967294 where the function returns int). The
# call trace starts with do_sys_openat2+0x0 (or +0x4 with IBT) and its
# next frame is __x64_sys_openat, do_sys_open or __x64_sys_openat2
# (__arm64_sys_openat or __arm64_sys_openat2 on arm64).

. "$(dirname "$0")/lib.sh"
kpt_setup
grep -q ' do_sys_openat2$' /proc/kallsyms || skip "no do_sys_openat2 in this kernel"

CAT=$(command -v cat)
case $CAT in
/*) ;;
*) for c in /bin/cat /usr/bin/cat; do [ -x "$c" ] && CAT=$c && break; done ;;
esac
[ -x "$CAT" ] || skip "no cat executable"

f=$KPT_TMP/kpt_known_file
echo "kptrace was here" > "$f"
missing=$KPT_TMP/kpt_missing_file

kpt_load name=do_sys_openat2 retprobe=1 args=2 stack=16
"$CAT" "$f" > /dev/null || fail "cat $f"
"$CAT" "$missing" 2>/dev/null && fail "cat of a missing file worked"
kpt_trace_read "$KPT_TMP/trace"
kpt_unload

# events of comm "cat", as "tid kind rest", and the frames after them
awk '
	/^cat-[0-9]+ / {
		tid = $1; sub(/^cat-/, "", tid)
		if ($0 ~ / ret=/) { kind = "ret" } else { kind = "entry" }
		print tid, kind, $0
		frames = (kind == "entry")
		next
	}
	/^[^ ]/ { frames = 0; next }
	frames && /^  / { print "frame", $1 }
' "$KPT_TMP/trace" > "$KPT_TMP/cat"
sed 's/^/#   /' "$KPT_TMP/cat" | head -n 40
grep -q ' entry ' "$KPT_TMP/cat" || fail "no do_sys_openat2 entry of comm cat"

# For each entry of cat, its return is the next "ret" line of the same tid.
awk '
	$1 == "frame" { next }
	$2 == "entry" { open[$1] = 1; next }
	$2 == "ret" && open[$1] {
		open[$1] = 0
		r = $0; sub(/.* ret=/, "", r); sub(/ .*/, "", r)
		print r
	}
' "$KPT_TMP/cat" > "$KPT_TMP/rets"
info "return values of cat's opens: $(tr '\n' ' ' < "$KPT_TMP/rets")"
awk '$1 >= 0 && $1 < 65536 { ok = 1 } END { exit !ok }' "$KPT_TMP/rets" ||
	fail "no open of cat returned an fd (>= 0)"
# ret= is the raw return register: where do_sys_openat2 returns int (7.x),
# -2 leaves the upper half of rax zero and reads 4294967294.
grep -Eqx -- '-2|4294967294' "$KPT_TMP/rets" ||
	fail "no open of cat returned -2 (ENOENT)"
grep ' ret=' "$KPT_TMP/cat" | grep -Evq ' lat_ns=[0-9]+$' &&
	fail "a return line without lat_ns"

# The stack of the first entry of cat.
f1=$(awk '$1 == "frame" { print $2; n++ } n == 2 { exit }' "$KPT_TMP/cat")
first=$(echo "$f1" | sed -n 1p)
second=$(echo "$f1" | sed -n 2p)
assert_match "first frame" "$first" '^do_sys_openat2\+0x(0|4)/0x[0-9a-f]+$'
assert_match "second frame" "$second" \
	'^(__x64_sys_openat|__x64_sys_openat2|__arm64_sys_openat|__arm64_sys_openat2|do_sys_open|__do_sys_openat|__se_sys_openat)\+0x[0-9a-f]+/0x[0-9a-f]+$'
info "cat's opens traced with fds, -2 and the syscall stack"
