#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: the module holding a probed function can be unloaded while
#   kptrace probes it; kptrace keeps working and unloads cleanly
# requires: root, debugfs, kptrace.ko, kpt_test.ko
#
# kptrace on kpt_test_func (kprobe) and kpt_test_sleep (kretprobe run), 3
# calls recorded; rmmod kpt_test works (the kprobe core retires the
# probes); the 3 recorded events can still be read as text; stats and probes
# still read; no further hits; rmmod kptrace works; no Oops or WARNING.

. "$(dirname "$0")/lib.sh"
kpt_setup
kpt_test_load

for rp in 0 1; do
	kpt_test_load
	kpt_load name=kpt_test_func retprobe=$rp stack=8 args=1
	kpt_call 3
	hits=$(kpt_stat hits)
	assert_eq "hits before (retprobe=$rp)" "$hits" $((3 * (1 + rp)))
	kpt_test_unload
	kpt_loaded kpt_test && fail "kpt_test still loaded"
	cat "$KPT_DIR/probes" | sed 's/^/#   /'
	kpt_trace_read "$KPT_TMP/trace"
	assert_eq "entries read after the target left (retprobe=$rp)" \
		"$(grep -c 'kpt_test_func: arg0=' "$KPT_TMP/trace")" 3
	assert_eq "hits after (retprobe=$rp)" "$(kpt_stat hits)" "$hits"
	kpt_stats_check
	kpt_unload
	info "retprobe=$rp: target module unloaded under the probe"
done
