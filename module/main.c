// SPDX-License-Identifier: GPL-2.0
/*
 * kptrace: init and exit.
 *
 * The module's files, each with what it owns; a header is named after the
 * .c file it declares, or after its role:
 *
 *   main.c       init and exit
 *   params.c     the module parameters: their checks, the probes they name
 *   config.h     the settings fixed at load time (kpt_cfg), record sizes
 *   session.c/h  sessions: the unit of ownership (a buffer, probes, a
 *                clock, books), the default one and those of open files
 *   probe.c/h    probes: creating, arming, deleting, module reloads;
 *                struct kpt_probe_ops, what a kind of probe is
 *   kprobe.c     the kprobe (p) and kretprobe (r, b) kinds
 *   prog.c       a probe's program, compiled once from its spec
 *   ids.c        what a record's probe id names: live probes, tombstones
 *   probe_show.c the probes listing, probe_stats, error_log
 *   ksyms.c/h    function names that are not unique (from /proc/kallsyms)
 *   fetch.c      the probe handlers' work: fetchargs, conditions, records
 *   ring.c/h     the per-CPU lock-free ring buffers (writer, stats,
 *                wake-ups); ring.h also holds the writer's inlined half
 *   ring_read.c  their reader
 *   clock.c/h    the records' clock
 *   hist.c/h     aggregations (hist:): their tables and hist/NAME files
 *   format.c/h   text rendering of a record (trace, trace_pipe)
 *   files.h      the files users open:
 *   debugfs.c      /sys/kernel/debug/kptrace/
 *   chardev.c      /dev/kptrace
 *   hide.c/h     kernel addresses hidden from some readers
 *   compat.h     every kernel-version difference, one wrapper each
 *
 * The parser and printer of the probe spec language, which the tools
 * build too, are in ../include/spec/: spec.h, their interface; spec.c,
 * the line as a whole; spec_fetch.c, spec_cond.c, spec_hist.c, spec_sys.c
 * and spec_glob.c, its clauses.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/security.h>
#include "config.h"
#include "probe.h"
#include "ksyms.h"
#include "files.h"
#include "ring.h"
#include "clock.h"
#include "session.h"

/*
 * Everything a user can open comes last: the default session (its rings),
 * then the probes, then /dev/kptrace, then debugfs, and nothing can fail
 * after misc_register().
 * The loader frees a module whose init fails whatever its refcount, so a
 * file opened before a later step failed would run freed code (and a
 * blocked trace_pipe reader would hang insmod in debugfs_remove()).
 */
static int __init kpt_init(void)
{
	int ret;

	ret = kpt_params_check();
	if (ret)
		return ret;
	ret = security_locked_down(LOCKDOWN_KPROBES);
	if (ret) {
		pr_err("kernel lockdown forbids kprobes (%d)\n", ret);
		return ret;
	}

	kpt_clock_init();
	/* the default session: its rings, from the parameters */
	ret = kpt_sessions_init();
	if (ret)
		return ret;
	ret = kpt_probes_init();
	if (ret)
		goto err_sessions;
	/* closed by kpt_probes_exit() */
	kpt_ksyms_init();
	ret = kpt_params_add_probes();
	if (ret)
		goto err_probes;
	ret = kpt_chardev_init();
	if (ret)
		goto err_probes;
	/* Cannot fail: without debugfs, /dev/kptrace alone works. */
	kpt_debugfs_init();

	if (!kpt_default_session->nr_probes)
		pr_info("no probes given (name=, address= or probe=): loaded idle\n");
	return 0;

err_probes:
	kpt_probes_exit();
err_sessions:
	kpt_sessions_exit();
	return ret;
}

static void __exit kpt_exit(void)
{
	kpt_debugfs_exit();
	kpt_chardev_exit();
	kpt_probes_exit();
	kpt_sessions_exit();
}

module_init(kpt_init);
module_exit(kpt_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("kptrace developers");
MODULE_DESCRIPTION("kptrace: kprobe tracer with per-CPU lock-free rings");
MODULE_VERSION("0.1.0");
