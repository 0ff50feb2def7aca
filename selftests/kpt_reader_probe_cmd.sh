#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: the reader's probe commands (kptrace probe add, list, del,
#   clear) against the module, and what the reader says about run-time
#   probes: their typed records, the probe_stats table at exit, FILE.probes
# requires: root, debugfs, kptrace.ko, kpt_test.ko, tools/kptrace, BTF
#
# With kptrace loaded idle (stack=0):
#  - `kptrace probe add` of 4 specs at once exits 0; BTF names the
#    arguments of a vmlinux function: "r:open do_sys_openat2 dfd
#    filename:ustring $retval" is listed as "r:kptrace/open do_sys_openat2
#    dfd=$arg1:s32 filename=$arg2:ustring arg3=$retval:s64 # id=..."
#    (s32 on 7.x, where do_sys_openat2 returns int)
#  - `kptrace -c cat --no-stack -d 4` while cat opens a missing file and
#    kpt_test_func runs twice prints the return record with its arguments
#    and string ("open: ret=-2 lat_ns=N dfd=-100
#    filename="/nonexistent_kpt" arg3=-2"), a kernel read of a user
#    pointer as "(fault)", a probe without names named from BTF ("l:
#    dfd=-100 filename=0x.. how=0x.."), and at exit the probe_stats table
#    (PROBE CALLS EVENTS RECORDED ...) with str_fault counted;
#  - JSON fields of a typed probe: "a":1,"b":4369,"c":"sh";
#  - -w FILE saves FILE.probes, and -r FILE names the records with it;
#  - refusals: an unknown symbol exits 1 with the module's reason, as
#    KPT_IOC_ADD answers it, under the user's line; an existing name is
#    refused; a local parse error shows a caret under the bad column;
#  - globs: "p:vr vfs_read*" adds one probe per match (vr_*), --max 1
#    refuses "vfs_*", `probe del 'vr_*'` removes them, `probe del open` one
#    probe, `probe clear` every one;
#  (s lines: kpt_reader_probe_cmd_sys)
# timeout: 300

# shellcheck disable=SC2016  # the specs' $argN are the probe language's
. "$(dirname "$0")/lib.sh"
kpt_setup
require_kptrace
require_btf	# names and types of vmlinux functions, checked throughout
kpt_test_load
# The reader may resolve globs through tracefs: mounted when it is not,
# and unmounted again.
TRACEFS_MOUNTED=
if ! grep -q ' /sys/kernel/tracing tracefs ' /proc/mounts &&
   mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null; then
	TRACEFS_MOUNTED=1
fi
# shellcheck disable=SC2317  # run by kpt_cleanup
cleanup()
{
	[ -z "$TRACEFS_MOUNTED" ] || umount /sys/kernel/tracing 2>/dev/null
	return 0
}

kpt_load stack=0
T=$KPT_TMP

# wait_open PID: until PID has /dev/kptrace open (5 s at most)
wait_open()
{
	_i=0
	while [ $_i -lt 50 ]; do
		for _fd in "/proc/$1/fd/"*; do
			[ "$(readlink "$_fd")" != /dev/kptrace ] || return 0
		done 2>/dev/null
		sleep 0.1
		_i=$((_i + 1))
	done
	fail "the reader (pid $1) did not open /dev/kptrace within 5 s"
}

# expect WHAT FILE REGEX: FILE has a line matching REGEX (grep -E)
expect()
{
	grep -Eq -- "$3" "$2" || {
		sed 's/^/#   /' "$2"
		fail "$1: no line matches /$3/ in $2"
	}
}

"$KPTRACE" probe add 'r:open do_sys_openat2 dfd filename:ustring $retval' \
	'p:k kpt_test:kpt_test_func a=$arg1:u32 b=$arg2:s64 c=$comm' \
	'p:l do_sys_openat2 arg0=$arg1 arg1=$arg2 arg2=$arg3' \
	'p:f do_sys_openat2 s=+0($arg2):string' > "$T/out" 2> "$T/err" ||
	fail "probe add of 4 probes: $(cat "$T/err")"
"$KPTRACE" probe list > "$T/list" 2>&1
sed 's/^/#   /' "$T/list"
expect "probe add: names and types from BTF" "$T/list" \
	'^r:kptrace/open do_sys_openat2 dfd=\$arg1:s32 filename=\$arg2:ustring arg3=\$retval:s(32|64) # id='

timeout 60 "$KPTRACE" -c cat --no-stack -d 4 > "$T/text" 2> "$T/err" &
pid=$!
wait_open $pid
cat /nonexistent_kpt 2>/dev/null
kpt_call 2
wait $pid || fail "kptrace -c cat -d 4 failed: $(cat "$T/err")"
sed 's/^/#   /' "$T/text" "$T/err"
expect "typed: a return record with arguments and a string" "$T/text" \
	'^cat-[0-9]+ \[[0-9]+\] [0-9.]+: open: ret=-2 lat_ns=[0-9]+ dfd=-100 filename="/nonexistent_kpt" arg3=-2$'
expect "typed: a kernel read of a user pointer is (fault)" "$T/text" \
	': f: s=\(fault\)$'
expect "typed: probe arguments named from BTF" "$T/text" \
	': l: dfd=-100 filename=0x[0-9a-f]+ how=0x[0-9a-f]+$'
expect "summary: the probe_stats table at exit" "$T/err" \
	'^PROBE +CALLS +EVENTS +RECORDED'
expect "summary: str_fault counted" "$T/err" '^f .* str_fault=[1-9]'

timeout 60 "$KPTRACE" -d 3 -j --no-stack > "$T/json" 2> "$T/err" &
pid=$!
wait_open $pid
kpt_call 1
wait $pid || fail "kptrace -j -d 3 failed: $(cat "$T/err")"
expect "typed json: u32 and s64 fields, the comm string" "$T/json" \
	'"fields":\{"a":1,"b":4369,"c":"sh"\}'

timeout 60 "$KPTRACE" -w "$T/p.bin" -d 3 > "$T/out" 2> "$T/err" &
pid=$!
wait_open $pid
kpt_call 1
wait $pid || fail "kptrace -w -d 3 failed: $(cat "$T/err")"
[ -s "$T/p.bin.probes" ] || fail "-w FILE did not save FILE.probes"
KPTRACE_PROBES=/nonexistent "$KPTRACE" -r "$T/p.bin" --no-stack \
	> "$T/out" 2> "$T/err"
expect "-r FILE names the records with FILE.probes" "$T/out" \
	': k: a=1 b=4369 c="sh"$'

rc=0
"$KPTRACE" probe add 'p:bad no_such_function_kpt' > "$T/out" 2> "$T/err" ||
	rc=$?
sed 's/^/#   /' "$T/err"
assert_eq "probe add of an unknown symbol: exit status" "$rc" 1
expect "refusal: the module's reason" "$T/err" \
	'^kptrace: error: the module refused it \((No such file or directory|Invalid argument)\): .*no such symbol'
expect "refusal: the user's line under it" "$T/err" \
	'^  Command: p:bad no_such_function_kpt$'
"$KPTRACE" probe add 'p:open do_sys_openat2' > "$T/out" 2> "$T/err" &&
	fail "probe add of an existing name succeeded"
expect "refusal: an existing name" "$T/err" 'a probe of that name exists'
"$KPTRACE" probe add 'p bad %zz' > "$T/out" 2> "$T/err" &&
	fail "probe add of a bad spec succeeded"
sed 's/^/#   /' "$T/err"
assert_eq "a local parse error: the caret's line" "$(sed -n 3p "$T/err")" \
	"                 ^"

"$KPTRACE" probe add --max 1000 'p:vr vfs_read*' > "$T/out" 2> "$T/err" ||
	fail "probe add of a glob: $(cat "$T/err")"
n=$("$KPTRACE" probe list | grep -c '^p:kptrace/vr_')
assert_ge "probes added by the glob vfs_read*" "$n" 1
"$KPTRACE" probe add --max 1 'p:v2 vfs_*' > "$T/out" 2> "$T/err" &&
	fail "probe add --max 1 of vfs_* succeeded"
expect "glob: --max refuses" "$T/err" 'more than --max 1'
"$KPTRACE" probe del 'vr_*' > "$T/out" 2> "$T/err" ||
	fail "probe del 'vr_*': $(cat "$T/err")"
assert_eq "probes left after probe del 'vr_*'" \
	"$("$KPTRACE" probe list | grep -c '^p:kptrace/vr_')" 0
"$KPTRACE" probe del open > "$T/out" 2> "$T/err" ||
	fail "probe del open: $(cat "$T/err")"
assert_eq "probe open after probe del open" \
	"$("$KPTRACE" probe list | grep -c '^r:kptrace/open ')" 0

"$KPTRACE" probe clear > "$T/out" 2> "$T/err" ||
	fail "probe clear: $(cat "$T/err")"
assert_eq "probe list after probe clear" "$("$KPTRACE" probe list | wc -c)" 0
exit 0
