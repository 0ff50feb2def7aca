#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: kptrace loaded, read and unloaded many times while its probe
#   is hit on every CPU
# requires: root, debugfs, kptrace.ko, kpt_test.ko,
#   helpers/kpt_read
# timeout: 400
#
# See hazard_modules/cycles.sh: each cycle reads the pending records through
# /dev/kptrace (validated) or the text trace file before the unload.

. "$(dirname "$0")/lib.sh"
. "$KPT_SELFTESTS/hazard_modules/lib_hazard.sh"
READER=1
. "$KPT_SELFTESTS/hazard_modules/cycles.sh"
