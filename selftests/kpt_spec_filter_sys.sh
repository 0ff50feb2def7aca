#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: an s probe's comm= glob is read and listed by the one rule
#   of untrusted text, as a p probe's "if comm ==" glob is
#   (kpt_spec_filter), and the listing replays
# requires: root, debugfs, kptrace.ko, kpt_test.ko, helpers/kpt_spec, the
#   syscalls probe (x86-64 only for now: run_tests.sh's arch_skip)
#
# s:sesc pid=<the test shell> comm=w\x20b*: listed as
#   "s:kptrace/sesc pid=<pid> comm=w\x20b*"; deleted and the listing
#   written back, the same line. (Until 29 Nov 2026 a part of
#   kpt_spec_filter, split out so that arm64, which has no s probe yet,
#   runs the rest.)

. "$(dirname "$0")/lib.sh"
. "$KPT_SELFTESTS/helpers/kpt_spec_lib.sh"
kpt_setup
require_kpt_spec

kpt_load stack=0
spec_add "$(printf 's:sesc pid=%s comm=w\\x20b*' $$)"
listed='s:kptrace/sesc pid='$$' comm=w\x20b*'
check_eq "an s probe's escaped glob, listed by the one rule" \
	"$(sed 's/ # .*//' "$KPT_DIR/probes")" "$listed"
sed 's/ # .*//' "$KPT_DIR/probes" > "$KPT_TMP/globs"
spec_add "-:sesc"
check_eq "deleted" "$(grep -c '' "$KPT_DIR/probes")" 0
while read -r line; do
	spec_add "$line"
done < "$KPT_TMP/globs"
check_eq "the listing of an s probe's escaped glob replays" \
	"$(sed 's/ # .*//' "$KPT_DIR/probes")" "$listed"
kpt_stats_check
spec_finish "an s probe's comm glob is listed escaped and replays"
