#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: kptrace loaded and unloaded many times while its probe is hit
#   on every CPU, no reader
# requires: root, debugfs, kptrace.ko, kpt_test.ko
# timeout: 400
#
# See hazard_modules/cycles.sh: KPT_HAZ_CYCLES cycles (default 100, 25 on
# a debug kernel), every one within KPT_HAZ_CYCLES_BUDGET seconds (300).

. "$(dirname "$0")/lib.sh"
. "$KPT_SELFTESTS/hazard_modules/lib_hazard.sh"
READER=0
. "$KPT_SELFTESTS/hazard_modules/cycles.sh"
