// SPDX-License-Identifier: GPL-2.0
/*
 * kpt_floor: the cost of the probe mechanism itself, for make bench.
 *
 * One probe on kpt_bench_func (or symbol=) whose handlers do nothing:
 *
 *   kretprobe=0   a kprobe with an empty pre_handler
 *   kretprobe=1   a kretprobe with an empty entry_handler and an empty
 *                 return handler, and 8 bytes of per-instance data: the
 *                 same mechanism kptrace's retprobe=1 uses
 *
 * symbol=x64_sys_call is the floor of a system-call tracer (make bench's
 * sys_floor_* arms): there every task's calls hit it, and each call
 * blocked in the kernel holds an instance, so maxactive= (the kernel's
 * default when 0) should match the tracer's. The missed parameter reads
 * the calls the probe did not handle: the kprobe's nmissed, plus the
 * kretprobe's for want of a free instance.
 *
 * A tracer cannot be cheaper than this; its overhead over the floor is what
 * its recording costs.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/sysfs.h>

static bool kretprobe;
module_param(kretprobe, bool, 0444);
MODULE_PARM_DESC(kretprobe, "0: empty kprobe pre_handler, 1: empty kretprobe handlers");

static char *symbol = "kpt_bench_func";
module_param(symbol, charp, 0444);
MODULE_PARM_DESC(symbol, "the function to probe (default kpt_bench_func)");

static int maxactive;
module_param(maxactive, int, 0444);
MODULE_PARM_DESC(maxactive, "kretprobe instances (default 0: the kernel's)");

static int kpt_floor_pre(struct kprobe *kp, struct pt_regs *regs)
{
	return 0;
}

NOKPROBE_SYMBOL(kpt_floor_pre);

static int kpt_floor_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return 0;
}

NOKPROBE_SYMBOL(kpt_floor_entry);

static int kpt_floor_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return 0;
}

NOKPROBE_SYMBOL(kpt_floor_ret);

static struct kprobe kpt_floor_kp = {
	.pre_handler	= kpt_floor_pre,
};

static struct kretprobe kpt_floor_rp = {
	.entry_handler	= kpt_floor_entry,
	.handler	= kpt_floor_ret,
	.data_size	= sizeof(u64),
};

static int kpt_floor_missed_get(char *buf, const struct kernel_param *kp)
{
	unsigned long n = kpt_floor_kp.nmissed;

	if (kretprobe)
		n = kpt_floor_rp.kp.nmissed + kpt_floor_rp.nmissed;
	return sysfs_emit(buf, "%lu\n", n);
}

static const struct kernel_param_ops kpt_floor_missed_ops = {
	.get	= kpt_floor_missed_get,
};
module_param_cb(missed, &kpt_floor_missed_ops, NULL, 0444);
MODULE_PARM_DESC(missed, "calls the probe did not handle (read only)");

static int __init kpt_floor_init(void)
{
	int ret;

	if (kretprobe) {
		kpt_floor_rp.kp.symbol_name = symbol;
		kpt_floor_rp.maxactive = maxactive;
		ret = register_kretprobe(&kpt_floor_rp);
	} else {
		kpt_floor_kp.symbol_name = symbol;
		ret = register_kprobe(&kpt_floor_kp);
	}
	if (ret)
		pr_err("symbol=%s kretprobe=%d: register failed (%d)\n",
		       symbol, kretprobe, ret);
	return ret;
}

static void __exit kpt_floor_exit(void)
{
	if (kretprobe)
		unregister_kretprobe(&kpt_floor_rp);
	else
		unregister_kprobe(&kpt_floor_kp);
}

module_init(kpt_floor_init);
module_exit(kpt_floor_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kptrace benchmark floor: an empty kprobe or kretprobe, the cost of the mechanism alone");
