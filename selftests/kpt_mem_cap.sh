#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: mem_max_mb caps what all probes allocate (hist tables and
#   return instances): a probe that would pass it is refused with E2BIG and
#   one error_log line, and nothing is allocated or counted; stats'
#   mem_used_bytes adds up per probe and returns to 0 when they are deleted;
#   a hist-only probe leaves no tombstone (deleted_pending stays 0)
#   (issue 21, items 8 and 9)
# requires: root, debugfs, kptrace.ko, kpt_test.ko, helpers/kpt_spec
#
# insmod mem_max_mb=16: stats says mem_max_bytes 16777216. keys=comm at
# size=131072 needs 2 sets x CPUs x 262144 slots x 32 bytes (32 MiB on
# 2 CPUs): refused. size=1024 fits: mem_used_bytes = A; a second one, B,
# a key word wider: exactly 2 x CPUs x 2048 slots x 8 bytes more than A;
# an r: probe adds its instances, C; used = A + B + C exactly; each
# delete takes its own share back, down to 0. Default mem_max_mb: 1/8 of
# RAM, shown in /sys/module/kptrace/parameters/mem_max_mb. With
# mem_max_mb=1, a stacktrace hist without size= is made smaller to fit (a
# power of two below the default 2048), not refused, and counts its hits.

. "$(dirname "$0")/lib.sh"
. "$KPT_SELFTESTS/helpers/kpt_spec_lib.sh"
kpt_setup
require_kpt_spec
kpt_test_load

kpt_load
ram_mb=$(awk '$1 == "MemTotal:" { print int($2 * 1024 / 8 / 1048576) }' /proc/meminfo)
check_eq "default mem_max_mb (1/8 of RAM)" \
	"$(cat /sys/module/kptrace/parameters/mem_max_mb)" "$ram_mb"
check_eq "default mem_max_bytes" "$(kpt_stat mem_max_bytes)" $((ram_mb << 20))
kpt_unload

kpt_load mem_max_mb=16
check_eq "mem_max_bytes" "$(kpt_stat mem_max_bytes)" $((16 << 20))
check_eq "mem_used_bytes, no probe" "$(kpt_stat mem_used_bytes)" 0

spec_expect E2BIG 'p:big kpt_test_func hist:keys=comm:size=131072'
check_match "error_log names the cap" "$(spec_err_last | head -n 1)" 'mem_max_mb'
check_eq "mem_used_bytes after the refusal" "$(kpt_stat mem_used_bytes)" 0
check_eq "no probe after the refusal" "$(grep -c . "$KPT_DIR/probes")" 0

spec_add 'p:h1 kpt_test_func hist:keys=comm:size=1024'
a=$(kpt_stat mem_used_bytes)
[ "$a" -gt 0 ] || fail "mem_used_bytes is $a with a hist"
spec_add 'p:h2 kpt_test_func a=$arg1 hist:keys=a,comm:size=1024'
ab=$(kpt_stat mem_used_bytes)
spec_add 'r:r1 kpt_test_func hist:keys=retval'
abc=$(kpt_stat mem_used_bytes)
spec_write '-:h2' > /dev/null
ac=$(kpt_stat mem_used_bytes)
b=$((ab - a)); c=$((abc - ab))
# h2's entries are one word wider (the key a): 2 sets x possible CPUs x
# 2048 slots (size=1024, doubled) x 8 bytes more than h1's, exactly
check_eq "h2 - h1" $((b - a)) $((2 * $(kpt_nr_possible_cpus) * 2048 * 8))
check_eq "mem_used_bytes after deleting h2" "$ac" $((a + c))
kpt_call 3
spec_write '-:h1' > /dev/null
spec_write '-:r1' > /dev/null
check_eq "mem_used_bytes after deleting all" "$(kpt_stat mem_used_bytes)" 0
# hist-only probes wrote no record: no tombstone is kept for them
check_eq "deleted_pending after hist-only deletes" \
	"$(kpt_stat deleted_pending)" 0
kpt_unload

# A hist without size= is fitted to what is left: a stacktrace key at the
# default 2048 entries needs more than 1 MiB on 2 CPUs; with mem_max_mb=1
# it is made smaller, not refused, and the listing says its size.
kpt_load mem_max_mb=1
spec_add 'p:fit kpt_test_func hist:keys=stacktrace'
fit=$(spec_line fit | sed -n 's/.*:size=\([0-9]*\).*/\1/p')
[ -n "$fit" ] && [ "$fit" -lt 2048 ] && [ $((fit & (fit - 1))) = 0 ] ||
	fail "hist without size= under mem_max_mb=1: size '$fit' (want a power of two below 2048)"
[ "$(kpt_stat mem_used_bytes)" -le $((1 << 20)) ] ||
	fail "mem_used_bytes $(kpt_stat mem_used_bytes) over mem_max_mb=1"
kpt_call 4
check_match "hist/fit counts the 4 calls" "$(cat "$KPT_DIR/hist/fit")" 'Hits: 4$'
spec_finish "h1 $a, h2 $b, r1 $c bytes of mem_max_mb=16; a default hist fitted to size=$fit under mem_max_mb=1"
