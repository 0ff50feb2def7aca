#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: the kptrace reader reads the running kernel's BTF: it names
#   and types a legacy probe's arguments, and translates BTF names in
#   `kptrace probe add`
# requires: root, debugfs, kptrace.ko, kpt_test.ko, tools/kptrace,
#   /sys/kernel/btf/vmlinux (CONFIG_DEBUG_INFO_BTF, every Debian kernel)
#
# - `kptrace probe add --dry-run` prints, writing nothing:
#     'p do_sys_openat2 dfd filename:ustring how' as
#     "p do_sys_openat2 dfd=$arg1:s32 filename=$arg2:ustring how=$arg3:x64",
#     'p vfs_read file buf count pos' as
#     "p vfs_read file=$arg1:x64 buf=$arg2:x64 count=$arg3:u64 pos=$arg4:x64",
#     'r vfs_read $retval' as "r vfs_read $retval:s64" (ssize_t),
#   and refuses 'p do_sys_openat2 fd' (exit 1), naming the parameters
#   "(dfd, filename, how)";
# - name=do_sys_openat2 args=3 stack=0, one open by cat: `kptrace -q -n 1
#   -c cat --no-stack` prints "do_sys_openat2: dfd=-100 filename=0x<hex>
#   how=0x<hex>": the names, and dfd as an int, from BTF (without BTF it
#   would be arg0=0xffffff9c).
# These functions have had these parameters from 5.10 to 7.2.

. "$(dirname "$0")/lib.sh"
kpt_setup
require_kptrace
require_btf

# dry_run NAME SPEC EXPECTED: probe add --dry-run prints EXPECTED, exit 0
dry_run()
{
	_out=$("$KPTRACE" probe add --dry-run "$2" 2> "$KPT_TMP/err")
	_rc=$?
	echo "#   $2 -> $_out"
	sed 's/^/#   stderr: /' "$KPT_TMP/err"
	assert_eq "$1: exit status" "$_rc" 0
	assert_eq "$1" "$_out" "$3"
}

dry_run "do_sys_openat2" 'p do_sys_openat2 dfd filename:ustring how' \
	'p do_sys_openat2 dfd=$arg1:s32 filename=$arg2:ustring how=$arg3:x64'
dry_run "vfs_read" 'p vfs_read file buf count pos' \
	'p vfs_read file=$arg1:x64 buf=$arg2:x64 count=$arg3:u64 pos=$arg4:x64'
dry_run "vfs_read's return" 'r vfs_read $retval' 'r vfs_read $retval:s64'

"$KPTRACE" probe add --dry-run 'p do_sys_openat2 fd' > "$KPT_TMP/out" \
	2> "$KPT_TMP/err"
rc=$?
sed 's/^/#   /' "$KPT_TMP/err"
assert_eq "a name that is not a parameter: exit status" "$rc" 1
assert_eq "a name that is not a parameter: stdout" "$(wc -c < "$KPT_TMP/out")" 0
grep -qF "'fd' is not a parameter of the function (dfd, filename, how)" \
	"$KPT_TMP/err" || fail "the error does not name the parameters"

# A legacy probe: the reader names its arguments from BTF.
kpt_load name=do_sys_openat2 args=3 stack=0
cat /dev/null
timeout 30 "$KPTRACE" -q -n 1 -c cat --no-stack > "$KPT_TMP/out" \
	2> "$KPT_TMP/err" ||
	fail "kptrace -q -n 1 -c cat failed or hung: $(cat "$KPT_TMP/err")"
sed 's/^/#   /' "$KPT_TMP/out"
assert_eq "stderr with -q" "$(cat "$KPT_TMP/err")" ""
assert_match "the open, named by BTF" "$(cat "$KPT_TMP/out")" \
	'^cat-[0-9]+ \[[0-9]{3}\] [0-9]+\.[0-9]{6}: do_sys_openat2: dfd=-100 filename=0x[0-9a-f]+ how=0x[0-9a-f]+$'
kpt_unload
