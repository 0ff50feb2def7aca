// SPDX-License-Identifier: GPL-2.0
/*
 * kpt_hazard_ctl: the smallest kprobe module, a control for the hazard
 * tests: when a hazard crashes the kernel with kptrace, the same hazard
 * with this module in kptrace's place tells whether kptrace is to blame.
 *
 *   insmod kpt_hazard_ctl.ko sym=kpt_hazard_target slow=1
 *
 * One kprobe on @sym, registered at load and unregistered at unload. Its
 * pre_handler does nothing (slow=0), saves 16 frames of stack with
 * stack_trace_save() as a tracer does (slow=1), or spins 5 us (slow=2).
 * See selftests/debug/README.md for the crash it reproduces.
 */
#include <linux/module.h>
#include <linux/kprobes.h>
#include <linux/stacktrace.h>
#include <linux/delay.h>
#include <linux/percpu.h>

static char *sym = "kpt_hazard_target";
module_param(sym, charp, 0444);
MODULE_PARM_DESC(sym, "the probed symbol (default kpt_hazard_target)");

static int slow;
module_param(slow, int, 0444);
MODULE_PARM_DESC(slow, "pre_handler: 0 empty, 1 stack_trace_save(), 2 udelay(5)");

static DEFINE_PER_CPU(unsigned long [16], kpt_ctl_stack);

static int kpt_ctl_pre(struct kprobe *p, struct pt_regs *regs)
{
	if (slow == 1)
		stack_trace_save(this_cpu_ptr(kpt_ctl_stack), 16, 0);
	else if (slow == 2)
		udelay(5);
	return 0;
}
NOKPROBE_SYMBOL(kpt_ctl_pre);

static struct kprobe kpt_ctl_kp = {
	.pre_handler = kpt_ctl_pre,
};

static int __init kpt_ctl_init(void)
{
	kpt_ctl_kp.symbol_name = sym;
	return register_kprobe(&kpt_ctl_kp);
}

static void __exit kpt_ctl_exit(void)
{
	unregister_kprobe(&kpt_ctl_kp);
}

module_init(kpt_ctl_init);
module_exit(kpt_ctl_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kptrace hazard tests: the smallest kprobe module, a control");
