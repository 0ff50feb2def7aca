// SPDX-License-Identifier: GPL-2.0
/*
 * kptrace: the calls seccomp denied (an s probe's denied option), on a
 * kretprobe on __secure_computing(), which every call of a task under a
 * filter runs before the call is dispatched, on either attach point's
 * path (so neither sees the call). It returns -1 when the call will not
 * run:
 *  - its filter said ERRNO: ax holds -errno, as strace shows it;
 *  - TRAP: the call was rolled back (ax holds its number again) and
 *    SIGSYS is on its way (the signals option shows it);
 *  - TRACE with no tracer to take it: -ENOSYS;
 *  - USER_NOTIF: ax is what the supervisor answered;
 *  - a tracer (TRACE) skipped it.
 * KILL_THREAD and KILL_PROCESS never return: the signals option shows the
 * task killed by SIGSYS. A call a filter allowed is its attach point's to
 * count.
 *
 * The entry handler selects, by the task and the call's number
 * (orig_ax; i386 numbers for a 32-bit call, x32 calls left out), and
 * gives an unselected call's instance back, counting nothing. A return
 * of -1 is a call: one return record, ax its value, lat 0, flagged
 * KPT_F_SYS_DENIED, through kpt_sys_exit_slow() (failure keeps it,
 * duration= filters it), its arguments and path strings read then: the
 * filter has run, they are the call's.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/compat.h>
#include <linux/sched/task_stack.h>
#include "clock.h"
#include "syscall.h"

/* Whether the calling task's call is a 32-bit (i386) one; false for x32 */
static nokprobe_inline bool kpt_sys_denied_mode(bool *compat)
{
	*compat = in_ia32_syscall();
	return !in_compat_syscall() || *compat;
}

static int kpt_sys_denied_entry(struct kretprobe_instance *ri,
				struct pt_regs *regs)
{
	const struct pt_regs *u = task_pt_regs(current);
	struct kpt_probe *p;
	bool compat;

	if (!kpt_sys_aux_ri(ri, offsetof(struct kpt_sys_aux, seccomp), &p))
		return 1;
	if (!kpt_sys_denied_mode(&compat))
		return 1;
	return !kpt_sys_selected(&p->prog.sys, (unsigned int)u->orig_ax,
				 compat);
}
NOKPROBE_SYMBOL(kpt_sys_denied_entry);

static int kpt_sys_denied_return(struct kretprobe_instance *ri,
				 struct pt_regs *regs)
{
	struct kpt_sys_data *d = (struct kpt_sys_data *)ri->data;
	const struct pt_regs *u = task_pt_regs(current);
	struct kpt_probe *p;
	bool compat;
	u64 ts;

	if ((int)regs_return_value(regs) != -1)
		return 0;	/* allowed */
	if (!kpt_sys_aux_ri(ri, offsetof(struct kpt_sys_aux, seccomp), &p))
		return 0;
	kpt_sys_denied_mode(&compat);
	ts = kpt_probe_now(p);
	kpt_sys_begin(p, u, (unsigned int)u->orig_ax, d, ts, !p->sys_sum,
		      compat);
	this_cpu_inc(p->stats->hits);
	kpt_sys_exit_slow(p, d, (long)u->ax, ts, 0, regs,
			  KPT_F_SYS_DENIED | (compat ? KPT_F_SYS_COMPAT : 0));
	return 0;
}
NOKPROBE_SYMBOL(kpt_sys_denied_return);

/* 0, or the kprobe core's error: -ENOENT without CONFIG_SECCOMP */
int kpt_sys_denied_arm(struct kpt_sys_aux *a, unsigned int maxactive)
{
	int ret;

	ret = kpt_sys_aux_register(a, &a->seccomp, "__secure_computing",
				   maxactive, kpt_sys_denied_entry,
				   kpt_sys_denied_return);
	a->seccomp_on = !ret;
	return ret;
}
