// SPDX-License-Identifier: GPL-2.0
/*
 * kptrace: module parameters, init and exit.
 *
 *   insmod kptrace.ko name=do_sys_openat2 retprobe=1 stack=16
 *   insmod kptrace.ko probe='r do_sys_openat2 path=+0($arg2):ustring if retval < 0'
 *
 * Every refused parameter fails the load with an errno and exactly one log
 * line naming the value and the reason, and leaves nothing behind.
 *
 * The module's files, each with what it owns; a header is named after the
 * .c file it declares, or after its role:
 *
 *   main.c       module parameters, init and exit
 *   config.h     the settings fixed at load time (kpt_cfg), record sizes
 *   spec.c/h     the probe spec language (also built into the tools)
 *   probe.c/h    probes: creating, arming, deleting, module reloads
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
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/security.h>
#include "config.h"
#include "probe.h"
#include "ksyms.h"
#include "files.h"
#include "ring.h"
#include "clock.h"

#define KPT_RING_MAX_KB		(1024 * 1024)	/* 1 GiB per CPU */

static char *name;
module_param(name, charp, 0444);
MODULE_PARM_DESC(name, "probe points: comma-separated SYMBOL or SYMBOL+OFFSET");

static char *address;
module_param(address, charp, 0444);
MODULE_PARM_DESC(address, "probe points: comma-separated hex kernel text addresses");

static char *probe;
module_param(probe, charp, 0444);
MODULE_PARM_DESC(probe, "probe specs in the kprobe_events language, ';'-separated");

static unsigned int args = KPT_MAX_ARGS;
module_param(args, uint, 0444);
MODULE_PARM_DESC(args, "register arguments recorded per entry, 0-6 (default 6)");

static bool retprobe;
module_param(retprobe, bool, 0444);
MODULE_PARM_DESC(retprobe, "also record every return: value and latency (default 0)");

static unsigned int stack = 16;
module_param(stack, uint, 0444);
MODULE_PARM_DESC(stack, "kernel stack frames per entry, 0-64 (default 16)");

/* Unset: KPT_RING_AUTO_KB, or less on a small machine (kpt_ring_auto_kb()) */
#define KPT_RING_UNSET		UINT_MAX
#define KPT_RING_AUTO_KB	8192
static unsigned int bufsize_kb = KPT_RING_UNSET;
module_param(bufsize_kb, uint, 0444);
MODULE_PARM_DESC(bufsize_kb, "ring size per possible CPU in KiB, rounded up to a power of two (default 8192, less when all CPUs' rings would take more than 1/32 of RAM; at least 1024)");

static bool overwrite;
module_param(overwrite, bool, 0444);
MODULE_PARM_DESC(overwrite, "when a ring is full: 0 drop new events, 1 overwrite the oldest (default 0)");

static bool wake_net_only;
module_param(wake_net_only, bool, 0444);
MODULE_PARM_DESC(wake_net_only, "for the selftests: writers never wake a sleeping reader, only the timer net does (default 0)");

static unsigned int maxactive;
module_param(maxactive, uint, 0444);
MODULE_PARM_DESC(maxactive, "kretprobe instances in flight, up to 4096 (default max(20, 2 x CPUs))");

static unsigned int strsize = 256;
module_param(strsize, uint, 0444);
MODULE_PARM_DESC(strsize, "bytes kept of each string argument, 1-4096 (default 256)");

struct kpt_config kpt_cfg __read_mostly;

static int kpt_count_items(const char *list)
{
	int n;

	if (!list || !*list)
		return 0;
	for (n = 1; *list; list++)
		n += *list == ',';
	return n;
}

/*
 * The default ring: 8 MiB per CPU holds a burst of ~87000 four-argument
 * entries while the reader catches up; halved until the rings of all
 * possible CPUs together take at most 1/32 of RAM, down to 1 MiB.
 */
static unsigned int __init kpt_ring_auto_kb(void)
{
	unsigned long budget = (totalram_pages() << PAGE_SHIFT) / 32;
	unsigned int kb = KPT_RING_AUTO_KB;

	while (kb > 1024 && (unsigned long)kb * 1024 * num_possible_cpus() >
			    budget)
		kb /= 2;
	return kb;
}

static int __init kpt_check_params(void)
{
	unsigned int reserve = KPT_ENTRY_SIZE(args, stack + !!stack);
	unsigned long bytes;

	if (args > KPT_MAX_ARGS) {
		pr_err("args=%u: at most %d register arguments (-EINVAL)\n",
		       args, KPT_MAX_ARGS);
		return -EINVAL;
	}
	if (stack > KPT_MAX_STACK) {
		pr_err("stack=%u: at most %d frames (-EINVAL)\n",
		       stack, KPT_MAX_STACK);
		return -EINVAL;
	}
	if (!strsize || strsize > KPT_STRSIZE_MAX) {
		pr_err("strsize=%u: must be 1 to %d bytes (-EINVAL)\n",
		       strsize, KPT_STRSIZE_MAX);
		return -EINVAL;
	}
	if (kpt_count_items(name) + kpt_count_items(address) > KPT_MAX_PROBES) {
		pr_err("name=/address=: %d probe points, at most %d (-E2BIG)\n",
		       kpt_count_items(name) + kpt_count_items(address),
		       KPT_MAX_PROBES);
		return -E2BIG;
	}
	if (maxactive > KPT_MAXACTIVE_MAX) {
		pr_err("maxactive=%u: at most %d instances (-EINVAL)\n",
		       maxactive, KPT_MAXACTIVE_MAX);
		return -EINVAL;
	}
	if (!maxactive)
		maxactive = max(20U, 2 * num_possible_cpus());

	if (bufsize_kb == KPT_RING_UNSET)
		bufsize_kb = kpt_ring_auto_kb();	/* shown in sysfs */
	if (bufsize_kb > KPT_RING_MAX_KB) {
		pr_err("bufsize_kb=%u: larger than the %u KiB per CPU limit (-EINVAL)\n",
		       bufsize_kb, KPT_RING_MAX_KB);
		return -EINVAL;
	}
	bytes = roundup_pow_of_two(max_t(unsigned long, bufsize_kb * 1024UL,
					 KPT_RING_MIN));
	if (!bufsize_kb || bytes < 2UL * reserve) {
		pr_err("bufsize_kb=%u: too small, a ring must hold two records of %u bytes (-EINVAL)\n",
		       bufsize_kb, reserve);
		return -EINVAL;
	}
	if ((bytes >> PAGE_SHIFT) * num_possible_cpus() > totalram_pages() / 2) {
		pr_err("bufsize_kb=%u: %u rings of %lu KiB need more than half of RAM (-ENOMEM)\n",
		       bufsize_kb, num_possible_cpus(), bytes >> 10);
		return -ENOMEM;
	}

	kpt_cfg.args = args;
	kpt_cfg.stack = stack;
	kpt_cfg.overwrite = overwrite;
	kpt_cfg.ring_bytes = bytes;
	kpt_cfg.strsize = strsize;
	kpt_cfg.maxactive = maxactive;
	kpt_cfg.wake_net_only = wake_net_only;
	return 0;
}

/*
 * Everything a user can open comes last: the rings, then the probes, then
 * /dev/kptrace, then debugfs, and nothing can fail after misc_register().
 * The loader frees a module whose init fails whatever its refcount, so a
 * file opened before a later step failed would run freed code (and a
 * blocked trace_pipe reader would hang insmod in debugfs_remove()).
 */
static int __init kpt_init(void)
{
	struct kpt_ring_opts opts;
	int ret;

	ret = kpt_check_params();
	if (ret)
		return ret;
	ret = security_locked_down(LOCKDOWN_KPROBES);
	if (ret) {
		pr_err("kernel lockdown forbids kprobes (%d)\n", ret);
		return ret;
	}

	kpt_clock_init();
	/* The rings count their losses; the probes count theirs too. */
	opts = (struct kpt_ring_opts) {
		.bytes		= kpt_cfg.ring_bytes,
		.overwrite	= kpt_cfg.overwrite,
		.wake_net_only	= kpt_cfg.wake_net_only,
		.dropped	= kpt_probe_overwritten,
	};
	ret = kpt_rings_alloc(&opts);
	if (ret) {
		pr_err("bufsize_kb=%u: cannot allocate %u rings of %lu KiB (%d)\n",
		       bufsize_kb, num_possible_cpus(),
		       kpt_cfg.ring_bytes >> 10, ret);
		return ret;
	}
	ret = kpt_probes_init();
	if (ret)
		goto err_rings;
	/* closed by kpt_probes_exit() */
	kpt_ksyms_init();
	ret = kpt_probes_add_legacy("name", name, retprobe);
	if (!ret)
		ret = kpt_probes_add_legacy("address", address, retprobe);
	if (!ret && probe)
		ret = kpt_probes_write(probe, strlen(probe), ';');
	if (ret)
		goto err_probes;
	ret = kpt_chardev_init();
	if (ret)
		goto err_probes;
	/* Cannot fail: without debugfs, /dev/kptrace alone works. */
	kpt_debugfs_init();

	if (!kpt_probes_count())
		pr_info("no probes given (name=, address= or probe=): loaded idle\n");
	return 0;

err_probes:
	kpt_probes_exit();
err_rings:
	kpt_rings_free();
	return ret;
}

static void __exit kpt_exit(void)
{
	kpt_debugfs_exit();
	kpt_chardev_exit();
	kpt_probes_exit();
	kpt_rings_free();
}

module_init(kpt_init);
module_exit(kpt_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("kptrace developers");
MODULE_DESCRIPTION("kptrace: kprobe tracer with per-CPU lock-free rings");
MODULE_VERSION("0.1.0");
