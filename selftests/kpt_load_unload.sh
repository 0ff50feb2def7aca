#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: kptrace loads idle and with a probe, shows its parameters,
#   creates and removes its files, unloads, and loads again
# requires: root, debugfs, kptrace.ko, kpt_test.ko
#
# Checks:
# - a load without name=/address= logs exactly one kptrace line, "kptrace:
#   no probes given ...", and has an empty probes file;
# - every parameter is readable in /sys/module/kptrace/parameters/ with the
#   value given at load, and the defaults (args 6, stack 16, bufsize_kb
#   8192 or less on a small machine (lib.sh: kpt_default_bufsize_kb),
#   retprobe and overwrite N, maxactive max(20, 2 x possible CPUs));
# - /dev/kptrace is a 0600 character device, the debugfs files are 0400;
# - rmmod removes them; a second load works the same.

. "$(dirname "$0")/lib.sh"
kpt_setup
kpt_test_load

P=/sys/module/kptrace/parameters

# param NAME EXPECTED
param()
{
	[ -r "$P/$1" ] || fail "$P/$1 is missing or unreadable"
	assert_eq "parameter $1" "$(cat "$P/$1")" "$2"
}

check_files()
{
	for f in trace trace_pipe probes stats; do
		[ -e "$KPT_DIR/$f" ] || fail "$KPT_DIR/$f missing"
		mode=$(ls -l "$KPT_DIR/$f" | cut -c1-10)
		assert_eq "mode of $KPT_DIR/$f" "$mode" "-r--------"
	done
	[ -c "$KPT_DEV" ] || fail "$KPT_DEV is not a character device"
	mode=$(ls -l "$KPT_DEV" | cut -c1-10)
	assert_eq "mode of $KPT_DEV" "$mode" "crw-------"
}

check_gone()
{
	[ -e "$KPT_DIR" ] && fail "$KPT_DIR still exists after rmmod"
	[ -e "$KPT_DEV" ] && fail "$KPT_DEV still exists after rmmod"
	kpt_loaded kptrace && fail "kptrace still in /sys/module"
	return 0
}

# 1. Idle.
kpt_load
lines=$(kpt_log_kptrace)
info "idle load logged: $lines"
assert_eq "kptrace log lines of an idle load" \
	"$(printf '%s\n' "$lines" | grep -c .)" 1
assert_match "idle load log line" "$lines" '^kptrace: no probes given'
assert_eq "probes file of an idle load" "$(cat "$KPT_DIR/probes")" ""
assert_eq "hits of an idle load" "$(kpt_stat hits)" 0
check_files
kpt_unload
check_gone

# 2. Defaults, with one probe: no "no probes" line now.
kpt_load name=kpt_test_func
assert_eq "kptrace log lines of a load with a probe" \
	"$(kpt_log_kptrace | grep -c .)" 0
param name kpt_test_func
param args 6
param stack 16
param bufsize_kb "$(kpt_default_bufsize_kb)"
param retprobe N
param overwrite N
n=$(kpt_nr_possible_cpus)
ma=20
[ $((2 * n)) -gt 20 ] && ma=$((2 * n))
param maxactive $ma
[ -r "$P/address" ] || fail "$P/address is missing or unreadable"
check_files
assert_eq "probe lines" "$(grep -c . "$KPT_DIR/probes")" 1
kpt_unload
check_gone

# 3. Every parameter given.
kpt_load name=kpt_test_func,kpt_test_sleep args=3 stack=5 retprobe=1 \
	bufsize_kb=64 overwrite=1 maxactive=30
param name kpt_test_func,kpt_test_sleep
param args 3
param stack 5
param retprobe Y
param bufsize_kb 64
param overwrite Y
param maxactive 30
assert_eq "probe lines" "$(grep -c . "$KPT_DIR/probes")" 2
kpt_unload
check_gone

# 4. Again: nothing was left behind by the first loads.
kpt_load name=kpt_test_func
check_files
kpt_unload
check_gone
kpt_load
check_files
kpt_unload
check_gone
info "load, parameters, files and unload as expected"
