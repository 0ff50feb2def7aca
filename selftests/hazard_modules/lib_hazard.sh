# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# lib_hazard.sh: what the hazard tests (selftests/kpt_hazard_*.sh) share,
# sourced after lib.sh:
#
#	. "$(dirname "$0")/lib.sh"
#	. "$KPT_SELFTESTS/hazard_modules/lib_hazard.sh"
#
#	KPT_HAZ_KO	kpt_hazard.ko   (default hazard_modules/kpt_hazard.ko)
#	KPT_HAZ_CAPS	kpt_hazard_caps (default hazard_modules/kpt_hazard_caps)
#	KPT_HAZ_SLOW	1 on a debug kernel (KASAN, lockdep: several times
#			slower), where loops are sized down; auto-detected
#			from /proc/config.gz or kmemleak, 0 otherwise
#	KPT_HAZ_BUDGET	seconds a loop may take before it stops early and
#			says so (default 45: run_tests.sh's KPT_TIMEOUT is
#			120 s per test by default)

KPT_HAZ_DIR=$KPT_DEBUGFS/kpt_hazard
KPT_HAZ_KO=${KPT_HAZ_KO:-$(kpt_first "$KPT_SELFTESTS/hazard_modules/kpt_hazard.ko" \
	/kpt_hazard.ko)}
KPT_HAZ_CAPS=${KPT_HAZ_CAPS:-$(kpt_first \
	"$KPT_SELFTESTS/hazard_modules/kpt_hazard_caps" /bin/kpt_hazard_caps)}
KPT_HAZ_BUDGET=${KPT_HAZ_BUDGET:-45}

if [ -z "$KPT_HAZ_SLOW" ]; then
	KPT_HAZ_SLOW=0
	if [ -r /proc/config.gz ] &&
	   zcat /proc/config.gz 2>/dev/null | grep -q '^CONFIG_KASAN=y'; then
		KPT_HAZ_SLOW=1
	elif [ -e "$KPT_DEBUGFS/kmemleak" ]; then
		KPT_HAZ_SLOW=1
	fi
fi

# kpt_haz_n FAST SLOW: the loop size for this kernel.
kpt_haz_n()
{
	if [ "$KPT_HAZ_SLOW" = 1 ]; then
		echo "$2"
	else
		echo "$1"
	fi
}

require_haz_ko()
{
	[ -n "$KPT_HAZ_KO" ] && [ -f "$KPT_HAZ_KO" ] ||
		skip "kpt_hazard.ko not built (make hazard-module, or set KPT_HAZ_KO)"
}

require_haz_caps()
{
	[ -n "$KPT_HAZ_CAPS" ] && [ -x "$KPT_HAZ_CAPS" ] ||
		skip "kpt_hazard_caps not built (make hazard-module)"
}

kpt_haz_load()
{
	kpt_loaded kpt_hazard && return 0
	_out=$(insmod "$KPT_HAZ_KO" "$@" 2>&1) ||
		fail "insmod $KPT_HAZ_KO: $_out"
	[ -e "$KPT_HAZ_DIR/run" ] || fail "kpt_hazard loaded without $KPT_HAZ_DIR/run"
}

kpt_haz_unload()
{
	kpt_rmmod_quiet kpt_hazard
	kpt_loaded kpt_hazard && fail "cannot unload kpt_hazard"
	return 0
}

# kpt_haz_count NAME: a line of kpt_hazard's counts file.
kpt_haz_count()
{
	awk -v n="$1" '$1 == n { print $2; f = 1 } END { exit !f }' \
		"$KPT_HAZ_DIR/counts" || fail "kpt_hazard counts has no '$1'"
}

# kpt_haz_probe_field ID FIELD: hits or missed of the probe whose line in
# the probes file carries "id=ID" (or, in the older format, starts with ID).
kpt_haz_probe_field()
{
	awk -v id="$1" -v f="$2" '{
		mine = ($1 == id)
		for (i = 1; i <= NF; i++)
			if ($i == "id=" id) mine = 1
		if (!mine) next
		for (i = 1; i <= NF; i++)
			if (index($i, f "=") == 1) { print substr($i, length(f) + 2); ok = 1; exit }
	} END { exit !ok }' "$KPT_DIR/probes" || fail "no $2 for probe $1"
}

# kpt_haz_elapsed START: seconds since START (date +%s).
kpt_haz_elapsed()
{
	echo $(($(date +%s) - $1))
}

# kpt_haz_summary_field NAME LINE: NAME=value from a kpt_read summary line.
kpt_haz_field()
{
	echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"
}

# kpt_haz_kmemleak WHAT: on a kernel with kmemleak, scan now and fail on a
# suspected leak whose allocation trace names a kptrace module (or an
# address inside an unloaded module). Without kmemleak: nothing.
kpt_haz_kmemleak()
{
	_kml=$KPT_DEBUGFS/kmemleak
	[ -w "$_kml" ] || return 0
	# kmemleak reports objects older than 5 s only.
	sleep 6
	echo scan > "$_kml" 2>/dev/null || return 0
	echo scan > "$_kml" 2>/dev/null
	cat "$_kml" > "$KPT_TMP/kmemleak" 2>/dev/null
	_ours=$(awk '
		/^unreferenced object/ { if (blk != "" && bad) print blk; blk = $0; bad = 0; next }
		{ blk = blk "\n" $0 }
		/\[(kptrace|kpt_test|kpt_hazard)\]/ { bad = 1 }
		/\] 0xffffffff[a-f][0-9a-f]+$/ { bad = 1 }
		/load_module|do_init_module|param_set|param_attr/ { bad = 1 }
		END { if (blk != "" && bad) print blk }' "$KPT_TMP/kmemleak")
	_all=$(grep -c '^unreferenced object' "$KPT_TMP/kmemleak")
	if [ -n "$_ours" ]; then
		printf '%s\n' "$_ours" | head -n 60 | sed 's/^/#   /'
		fail "$1: kmemleak reports leaks from kptrace or the test modules"
	fi
	info "$1: kmemleak: no leak from kptrace or the test modules ($_all other suspects)"
}
