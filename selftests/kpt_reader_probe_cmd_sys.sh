#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: the reader's probe commands with s lines: added as written,
#   listed so, deleted, and replayed from that listing
# requires: root, debugfs, kptrace.ko, kpt_test.ko, tools/kptrace, the
#   syscalls probe (x86-64 only for now: run_tests.sh's arch_skip)
#
# `kptrace probe add` of 's:sa pid=1 comm=ba?h failure' and 's:sb comm=a*
# nr=0-3 summary=64' (comm='s glob is no function glob, the options no
# fetchargs); `probe list` shows them as written, `probe del sa sb`
# removes them, `probe add -f` of the listing makes them again, `probe
# clear` removes every one. (Until 29 Nov 2026 a part of
# kpt_reader_probe_cmd, split out so that arm64, which has no s probe
# yet, runs the rest.)

. "$(dirname "$0")/lib.sh"
kpt_setup
require_kptrace

kpt_load stack=0
T=$KPT_TMP

# s lines go as they are (comm='s glob is no function glob, the options
# no fetchargs), and a listing of them replays through probe add -f
"$KPTRACE" probe add 's:sa pid=1 comm=ba?h failure' \
	's:sb comm=a* nr=0-3 summary=64' > "$T/out" 2> "$T/err" ||
	fail "probe add of s lines: $(cat "$T/err")"
S_LIST='s:kptrace/sa pid=1 comm=ba?h failure
s:kptrace/sb comm=a* nr=0-3 summary=64'
"$KPTRACE" probe list | sed -n 's/ # .*//; /^s:/p' > "$T/slist"
assert_eq "s probes added by probe add, listed" "$(cat "$T/slist")" "$S_LIST"
"$KPTRACE" probe del sa sb > "$T/out" 2> "$T/err" ||
	fail "probe del sa sb: $(cat "$T/err")"
"$KPTRACE" probe add -f "$T/slist" > "$T/out" 2> "$T/err" ||
	fail "probe add -f of the s listing: $(cat "$T/err")"
assert_eq "s probes replayed from their listing" \
	"$("$KPTRACE" probe list | sed -n 's/ # .*//; /^s:/p')" "$S_LIST"
"$KPTRACE" probe clear > "$T/out" 2> "$T/err" ||
	fail "probe clear: $(cat "$T/err")"
assert_eq "probe list after probe clear" "$("$KPTRACE" probe list | wc -c)" 0
info "s lines added, listed, deleted and replayed by the reader's probe commands"
