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
 * A tracer cannot be cheaper than this; its overhead over the floor is what
 * its recording costs.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>

static bool kretprobe;
module_param(kretprobe, bool, 0444);
MODULE_PARM_DESC(kretprobe, "0: empty kprobe pre_handler, 1: empty kretprobe handlers");

static char *symbol = "kpt_bench_func";
module_param(symbol, charp, 0444);
MODULE_PARM_DESC(symbol, "the function to probe (default kpt_bench_func)");

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

static int __init kpt_floor_init(void)
{
	int ret;

	if (kretprobe) {
		kpt_floor_rp.kp.symbol_name = symbol;
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
