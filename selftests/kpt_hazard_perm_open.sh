#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: /dev/kptrace (and probes for writing) cannot be opened by an
#   unprivileged user, nor by root without CAP_PERFMON and CAP_SYS_ADMIN,
#   even when its mode would allow it
# requires: root, debugfs, kptrace.ko, hazard_modules/kpt_hazard_caps
#
# hazard_modules/kpt_hazard_caps opens the device after dropping:
# - unpriv (uid/gid 65534): EACCES with the device's 0600; with the mode
#   opened to 0666 for the test, EPERM (the module's own capability check);
# - nocap (uid 0 without CAP_PERFMON and CAP_SYS_ADMIN in any set, bounding
#   set included): EPERM;
# - root: the open works.
# The device mode is put back to what it was. debugfs' probes file, which
# takes the same spec lines, opened for writing: nocap EPERM (its 0400 is
# no obstacle to uid 0), root ok; the trace file, for reading: the same.

. "$(dirname "$0")/lib.sh"
. "$KPT_SELFTESTS/hazard_modules/lib_hazard.sh"
kpt_setup
require_haz_caps

cleanup()
{
	[ -n "$mode" ] && [ -e "$KPT_DEV" ] && chmod "$mode" "$KPT_DEV"
}

kpt_load
mode=$(stat -c %a "$KPT_DEV") || fail "no $KPT_DEV"
assert_eq "device mode" "$mode" 600
assert_eq "unprivileged, mode 0600" "$("$KPT_HAZ_CAPS" unpriv)" "unpriv errno=EACCES"
assert_eq "uid 0 without CAP_PERFMON/CAP_SYS_ADMIN" "$("$KPT_HAZ_CAPS" nocap)" "nocap errno=EPERM"
chmod 0666 "$KPT_DEV"
assert_eq "unprivileged, mode 0666" "$("$KPT_HAZ_CAPS" unpriv)" "unpriv errno=EPERM"
assert_eq "uid 0 without CAP_PERFMON/CAP_SYS_ADMIN, mode 0666" "$("$KPT_HAZ_CAPS" nocap)" "nocap errno=EPERM"
chmod "$mode" "$KPT_DEV"
assert_match "root" "$("$KPT_HAZ_CAPS" root)" '^root open=ok '
assert_eq "probes for writing, uid 0 without CAP_PERFMON/CAP_SYS_ADMIN" \
	"$("$KPT_HAZ_CAPS" -w -d "$KPT_DIR/probes" nocap)" "nocap errno=EPERM"
assert_eq "probes for writing, root" \
	"$("$KPT_HAZ_CAPS" -w -d "$KPT_DIR/probes" root)" "root open=ok write"
# the records in text: uid 0 without the capabilities may not read them
# either (debugfs' 0400 lets uid 0 in)
assert_eq "trace for reading, uid 0 without CAP_PERFMON/CAP_SYS_ADMIN" \
	"$("$KPT_HAZ_CAPS" -d "$KPT_DIR/trace" nocap)" "nocap errno=EPERM"
# (root reads it in every test of the text files)
info "unprivileged: EACCES (mode) then EPERM (capability); no CAP_PERFMON/CAP_SYS_ADMIN: EPERM, for /dev/kptrace, for writing probes and for reading trace; root: ok"
