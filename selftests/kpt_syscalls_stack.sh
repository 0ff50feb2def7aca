#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: the syscalls probe's stack= and `kptrace syscalls --stack`:
#   each record's kernel call trace from the attach point outward, cut
#   and counted at N frames, hidden where addresses are
# requires: root, debugfs, kptrace.ko, tools/kptrace, helpers/kpt_spec,
#   helpers/kpt_sysgen
# timeout: 240
#
# - "s:sk pid=P nr=110,231 stack=8", kpt_sysgen getppid:3 exit:4: the
#   trace file has exactly 4 records of sk (3 returns, the exit_group
#   entry), each with a " Call Trace:" of 2 to 8 frames and no "...",
#   the last entry_SYSCALL_64_after_hwframe; on x64_sys_call the first
#   frame is x64_sys_call+0x0/ (+0x4 past an endbr64), the second
#   do_syscall_64+; on the raw_syscalls tracepoints (5.10) none is
#   kptrace's own; stack_trunc 0; the probes line shows stack=8.
# - stack=1, the same calls: every record exactly 1 frame and "  ...",
#   stack_trunc exactly 4, recorded 4.
# - stack=64, kpt_sysgen fail:2: 2 openat records whose path string
#   (after the frames) reads "/nonexistent/kpt", whole traces.
# - bad specs: stack=0, stack=65, stack=4 with summary: EINVAL, the
#   error_log names the problem, no probe added.
# - kptrace syscalls --stack -e getppid -- kpt_sysgen getppid:2: exactly
#   2 getppid lines, each followed by its call trace, every frame
#   "[<ADDR>] SYM+0xOFF/0xSIZE" (decode_stacktrace.sh's form); a failing
#   openat's line has its path, then the call trace; -j: 2
#   objects with "stack" arrays of the same frame counts; -w FILE then
#   -r FILE: the same lines and frames as live (times and pids aside).
# - kptr_restrict=2: the frames read "[<0000000000000000>] ?", the lines
#   are the same.

# (-e signal=none: the calls' lines and frames alone, no exit line)
. "$(dirname "$0")/lib.sh"
. "$KPT_SELFTESTS/helpers/kpt_spec_lib.sh"
kpt_setup
require_kpt_spec
require_kptrace
require_kpt_sysgen
kpt_kallsyms_visible
kpt_load

# traces NAME FILE: per record of probe NAME in the trace text FILE, a
# line "KIND FRAMES TRUNC FIRST SECOND LAST" (KIND ret or entry, TRUNC 1
# if the trace ended in "...", FIRST, SECOND and LAST frames' symbols),
# and a line "own N" of the frames in kptrace's own code.
traces()
{
	awk -v n="$1" '
	function flush() {
		if (cur) print kind, frames, trunc, f[1], f[2], f[frames]; cur = 0 }
	/^ Call Trace:$/ { next }
	/^  \.\.\.$/ { trunc = 1; next }
	/^  / { if (cur) { f[++frames] = $1; if ($0 ~ /\[kptrace\]/) own++ }; next }
	{ flush() }
	$0 ~ (": " n ": ") { cur = 1; frames = 0; trunc = 0; f[1] = f[2] = "-"
		kind = $0 ~ / ret=/ ? "ret" : "entry" }
	END { flush(); print "own", own + 0 }' "$2"
}

# x64_sys_call (+0x4 past an endbr64), then its caller; on the
# tracepoints (5.10) the exit path's frames, which need not name
# do_syscall_64 (it ends in a tail call); the last frame the entry code's
last='entry_SYSCALL_64_after_hwframe\+0x[0-9a-f]+/0x[0-9a-f]+'
if grep -qw x64_sys_call /proc/kallsyms; then
	first='x64_sys_call\+0x[04]/0x[0-9a-f]+'
	second='do_syscall_64\+0x[0-9a-f]+/0x[0-9a-f]+'
else
	first='[A-Za-z0-9_.]+\+0x[0-9a-f]+/0x[0-9a-f]+'
	second='[A-Za-z0-9_.]+\+0x[0-9a-f]+/0x[0-9a-f]+'
fi

# stack=8
cat "$KPT_DIR/trace" > /dev/null
sysgen_start getppid:3 exit:4
spec_add "s:sk pid=$SG nr=110,231 stack=8"
check_match "sk probes line" "$(spec_line sk)" "^s:kptrace/sk pid=$SG nr=110,231 stack=8 # "
sysgen_go 4
cat "$KPT_DIR/trace" > "$KPT_TMP/sk"
sed -n '1,8s/^/#   /p' "$KPT_TMP/sk"
traces sk "$KPT_TMP/sk" > "$KPT_TMP/sk.t"
check_eq "stack=8: records" "$(grep -vc '^own ' "$KPT_TMP/sk.t")" 4
check_eq "stack=8: kinds" "$(grep -v '^own ' "$KPT_TMP/sk.t" | cut -d' ' -f1 |
	sort | uniq -c | tr -s ' ' | tr '\n' ';')" " 1 entry; 3 ret;"
check_eq "stack=8: frames 2 to 8, none cut" \
	"$(awk '$1 != "own" && ($2 < 2 || $2 > 8 || $3 != 0)' "$KPT_TMP/sk.t")" ""
check_eq "stack=8: no frame of kptrace's" \
	"$(sed -n 's/^own //p' "$KPT_TMP/sk.t")" 0
check_eq "stack=8: the attach point, its caller, ..., the entry code" \
	"$(awk '$1 != "own"' "$KPT_TMP/sk.t" |
	grep -Evc "^[a-z]+ [0-9]+ 0 $first $second $last\$")" 0
check_eq "stack=8: stack_trunc" "$(spec_stat sk stack_trunc)" 0
spec_add '-:sk'

# stack=1: each trace cut, and counted
sysgen_start getppid:3 exit:4
spec_add "s:sk1 pid=$SG nr=110,231 stack=1"
sysgen_go 4
cat "$KPT_DIR/trace" > "$KPT_TMP/sk1"
traces sk1 "$KPT_TMP/sk1" > "$KPT_TMP/sk1.t"
check_eq "stack=1: records" "$(grep -vc '^own ' "$KPT_TMP/sk1.t")" 4
check_eq "stack=1: one frame each, then ..." \
	"$(awk '$1 != "own" && ($2 != 1 || $3 != 1)' "$KPT_TMP/sk1.t")" ""
check_eq "stack=1: stack_trunc" "$(spec_stat sk1 stack_trunc)" 4
check_eq "stack=1: recorded" "$(spec_stat sk1 recorded)" 4
spec_add '-:sk1'

# stack=64 and a path string, whose bytes come after the frames
sysgen_start fail:2
spec_add "s:sk64 pid=$SG nr=257 stack=64"
sysgen_go 0
cat "$KPT_DIR/trace" > "$KPT_TMP/sk64"
traces sk64 "$KPT_TMP/sk64" > "$KPT_TMP/sk64.t"
check_eq "stack=64: records" "$(grep -vc '^own ' "$KPT_TMP/sk64.t")" 2
check_eq "stack=64: the path after the frames" \
	"$(grep -c ': sk64: ret=-2 .* nr=257 .*str0="/nonexistent/kpt" str1=""$' "$KPT_TMP/sk64")" 2
check_eq "stack=64: whole traces" \
	"$(awk '$1 != "own"' "$KPT_TMP/sk64.t" |
	grep -Evc "^ret [0-9]+ 0 $first $second $last\$")" 0
check_eq "stack=64: stack_trunc" "$(spec_stat sk64 stack_trunc)" 0
spec_add '-:sk64'

# bad specs
spec_expect EINVAL 's:sb stack=0'
check_match "stack=0 error" "$(spec_err_last | head -n 1)" 'stack= must be 1 to 64 frames'
spec_expect EINVAL 's:sb stack=65'
check_match "stack=65 error" "$(spec_err_last | head -n 1)" 'stack= must be 1 to 64 frames'
spec_expect EINVAL 's:sb stack=4 summary'
check_match "stack= with summary error" "$(spec_err_last | head -n 1)" \
	'stack= with summary: a summary keeps no calls'
check_eq "no probe left" "$(grep -c '' "$KPT_DIR/probes")" 0

# the reader: text, JSON, -w/-r
"$KPTRACE" syscalls -e signal=none -o /dev/stdout --stack -e openat -- "$SYSGEN" fail:1 \
	> "$KPT_TMP/open.txt" 2> /dev/null
path='filename: "/nonexistent/kpt"'
kpt_sys_named || path='arg1: "/nonexistent/kpt"'
check_eq "--stack: a path string beside the frames" \
	"$(grep -A1 "openat(.*$path.*) = -1 ENOENT" "$KPT_TMP/open.txt")" \
	"$(grep -A1 ' openat(' "$KPT_TMP/open.txt" | head -n 1)
 Call Trace:"
frame='^  \[<[0-9a-f]{16}>\] [A-Za-z_][A-Za-z0-9_.]*\+0x[0-9a-f]+/0x[0-9a-f]+( \[[a-z0-9_]+\])?$'
"$KPTRACE" syscalls -e signal=none -o /dev/stdout --stack -e getppid -- "$SYSGEN" getppid:2 \
	> "$KPT_TMP/live.txt" 2> "$KPT_TMP/live.err"
check_eq "--stack: exit status" "$?" 0
sed 's/^/#   /' "$KPT_TMP/live.txt"
check_eq "--stack: getppid lines" \
	"$(grep -Ec " kpt_sysgen/[0-9]*$GETPPID_RE" "$KPT_TMP/live.txt")" 2
check_eq "--stack: a call trace after each" \
	"$(grep -EA1 "$GETPPID_RE" "$KPT_TMP/live.txt" | grep -c '^ Call Trace:$')" 2
check_eq "--stack: frames not in decode_stacktrace's form" \
	"$(grep '^  ' "$KPT_TMP/live.txt" | grep -Evc "$frame")" 0
nframes=$(grep -c '^  \[<' "$KPT_TMP/live.txt")
[ "$nframes" -ge 4 ] || check_fail "--stack: $nframes frames for 2 calls"
check_eq "--stack: first frame the attach point's" \
	"$(grep -A1 '^ Call Trace:$' "$KPT_TMP/live.txt" | grep -Ec "\] $first\$")" 2

"$KPTRACE" syscalls -e signal=none -o /dev/stdout -j --stack -e getppid -- "$SYSGEN" getppid:2 \
	> "$KPT_TMP/live.json" 2> /dev/null
kpt_json_check "$KPT_TMP/live.json"
check_eq "-j --stack: objects with a stack" \
	"$(grep -c '"syscall":"getppid",.*"stack":\[{"addr":"0x[0-9a-f]*","sym":"' "$KPT_TMP/live.json")" 2
check_eq "-j --stack: frames" "$(grep -o '{"addr":' "$KPT_TMP/live.json" | grep -c '')" \
	"$nframes"

"$KPTRACE" syscalls -e signal=none --stack -w "$KPT_TMP/saved" -e getppid -- \
	"$SYSGEN" getppid:2 > /dev/null 2>&1
check_eq "-w --stack: exit status" "$?" 0
"$KPTRACE" syscalls -r "$KPT_TMP/saved" > "$KPT_TMP/replay.txt" 2> /dev/null
# times, pids and getppid's value (the tool's pid) aside
norm() { sed -E 's/^[0-9]+\.[0-9]+ \( *[0-9]+\.[0-9]+ ms\)//; s#/[0-9]+ # #; s/= [0-9]+$//'; }
check_eq "-r: the lines and frames of a live run" \
	"$(norm < "$KPT_TMP/replay.txt")" "$(norm < "$KPT_TMP/live.txt")"

# hidden addresses (kpt_cleanup puts kptr_restrict back if this fails)
kr=$(cat /proc/sys/kernel/kptr_restrict)
[ -n "$KPT_KR_SAVED" ] || KPT_KR_SAVED=$kr
echo 2 > /proc/sys/kernel/kptr_restrict || fail "cannot set kptr_restrict=2"
"$KPTRACE" syscalls -e signal=none -o /dev/stdout --stack -e getppid -- "$SYSGEN" getppid:2 \
	> "$KPT_TMP/hidden.txt" 2> "$KPT_TMP/hidden.err"
echo "$kr" > /proc/sys/kernel/kptr_restrict
sed 's/^/#   /' "$KPT_TMP/hidden.txt"
check_eq "kptr_restrict=2: every frame hidden" \
	"$(grep '^  ' "$KPT_TMP/hidden.txt" | sort -u)" '  [<0000000000000000>] ?'
check_eq "kptr_restrict=2: the lines" \
	"$(grep -Ec "$GETPPID_RE" "$KPT_TMP/hidden.txt")" 2

kpt_unload
spec_finish "syscalls stack=: call traces from x64_sys_call, cut at N and counted, hidden under kptr_restrict=2"
