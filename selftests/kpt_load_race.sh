#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: a load that fails on a later probe never shows its files:
#   readers trying to open /dev/kptrace and trace_pipe during 50 failing
#   loads never get in, nothing oopses or hangs, and the module loads
#   cleanly afterwards
# requires: root, debugfs, kptrace.ko, helpers/kpt_insmod
# timeout: 400
#
# insmod kptrace.ko 'probe="p:a do_sys_openat2;p:b nosuch"' arms a (on the
# open path, which the readers themselves take) and then fails on b with
# ENOENT. The module loader frees a module whose init failed whatever its
# refcount: a kptrace file opened in that window would run freed code, and
# a trace_pipe reader blocked in read() would hang insmod in
# debugfs_remove(). kptrace makes its files last, once every probe is
# armed. Two background loops, one per file, try to open it as fast as the
# shell can and, when an open works, read from it for up to 1 s; during
# the 50 loads (KPT_RACE_LOADS; about 2 s each under TCG) neither file is
# ever seen or opened. Each load fails with ENOENT and logs exactly one
# kptrace line, naming b. Then the same load without b works, a traces
# opens, and rmmod works.

. "$(dirname "$0")/lib.sh"
require_root
require_debugfs
require_ko
[ -n "$KPT_INSMOD" ] && [ -x "$KPT_INSMOD" ] ||
	fail "helpers/kpt_insmod not built (make -C selftests helpers)"
mkdir -p "$KPT_TMP" || fail "cannot create $KPT_TMP"
trap kpt_cleanup EXIT
trap 'exit 1' INT TERM HUP
kpt_unload

LOADS=${KPT_RACE_LOADS:-50}
STOP=$KPT_TMP/stop

cleanup()
{
	: > "$STOP"
}

# reader FILE TAG: opens FILE in a loop; notes TAG in "seen" whenever FILE
# exists and in "opened" whenever an open worked (then reads up to 1 s).
reader()
{
	while [ ! -e "$STOP" ]; do
		[ -e "$1" ] && echo "$2" >> "$KPT_TMP/seen"
		# a failed redirection of a compound command only fails it
		{ echo "$2" >> "$KPT_TMP/opened"
		  timeout 1 cat <&3 > /dev/null; } 2>/dev/null 3< "$1"
	done
}

: > "$KPT_TMP/seen"
: > "$KPT_TMP/opened"
kpt_bg reader "$KPT_DEV" dev
kpt_bg reader "$KPT_DIR/trace_pipe" trace_pipe
sleep 0.5

kpt_mark
i=0
start=$(date +%s)
while [ $i -lt "$LOADS" ]; do
	out=$("$KPT_INSMOD" "$KPT_KO" 'probe="p:a do_sys_openat2;p:b nosuch"' 2>&1)
	case $out in
	errno=ENOENT*) ;;
	*) fail "load $i: expected ENOENT, got: $out" ;;
	esac
	kpt_loaded kptrace && fail "load $i: refused but kptrace is loaded"
	i=$((i + 1))
done
secs=$(($(date +%s) - start))
: > "$STOP"
for _p in $KPT_BG_PIDS; do
	wait "$_p" 2>/dev/null
done
KPT_BG_PIDS=

lines=$(kpt_log_kptrace)
n=$(printf '%s\n' "$lines" | grep -c '"p:b nosuch": no such symbol (-2)$')
other=$(printf '%s\n' "$lines" | grep -vc '"p:b nosuch": no such symbol (-2)$')
assert_eq "log lines naming p:b, one per load" "$n" "$LOADS"
assert_eq "other kptrace log lines" "$other" 0
assert_eq "kptrace files seen during failing loads" \
	"$(sort "$KPT_TMP/seen" | uniq -c | tr -s ' \n' ' ')" ""
assert_eq "kptrace files opened during failing loads" \
	"$(sort "$KPT_TMP/opened" | uniq -c | tr -s ' \n' ' ')" ""

# The module is intact: the same load without b works.
kpt_load 'probe="p:a do_sys_openat2"'
cat /proc/version > /dev/null
hits=$(sed -n 's/^p:kptrace\/a .* hits=\([0-9]*\) .*/\1/p' "$KPT_DIR/probes")
assert_ge "hits of a after a load" "${hits:-0}" 1
kpt_unload
info "$LOADS failing loads in ${secs}s with two readers: no file seen or opened, one log line each"
