// SPDX-License-Identifier: GPL-2.0
/*
 * kptrace: the calls seccomp denied (an s probe's denied option), on a
 * kretprobe on __secure_computing(), which every call of a task under a
 * filter runs before the call is dispatched, on either attach point's
 * path (so neither sees the call). It returns -1 when the call will not
 * run:
 *  - its filter said ERRNO: ax holds -errno, as strace shows it;
 *  - TRACE with no tracer to take it: -ENOSYS;
 *  - USER_NOTIF: ax is what the supervisor answered;
 *  - a tracer (TRACE) skipped it: what the tracer left in ax;
 *  - TRAP, and from 5.16 KILL_PROCESS (and KILL_THREAD of the last
 *    thread): the call was rolled back (ax holds its number again) and
 *    SIGSYS is on its way: the call has no return value. (On 5.10 the
 *    kills never return: no record, but the signals option's exit.)
 * A call a filter allowed is its attach point's to count.
 *
 * The kretprobe's kprobe selects ahead of its pre-handler, as syscall.c's
 * (kpt_sys_kretprobe_wrap()), by the task and the call's number
 * (orig_ax; an i386 number for a 32-bit call; x32 calls left out): only a
 * selected call takes an instance, so tasks under a filter outside the
 * selection pay the kprobe and the test. The entry handler keeps the
 * number and mode in the instance (a tracer may change orig_ax). A
 * return of -1 is a call: a return record flagged KPT_F_SYS_DENIED, ax
 * its value, lat 0, through kpt_sys_exit_slow() (failure keeps it,
 * duration= filters it), its arguments and path strings read then (the
 * filter has run: they are the call's); a rolled-back one an entry record
 * (as exit's) through kpt_sys_exit_call(). A selected call that finds no
 * free instance is counted in denied_unseen (the probes listing), not as
 * a missed return: the filter may have allowed it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/compat.h>
#include <linux/sched/task_stack.h>
#include "clock.h"
#include "syscall.h"

/*
 * The calling task's call: its number into *@nr, whether a 32-bit (i386)
 * one into *@compat; false for x32, left out
 */
static nokprobe_inline bool kpt_sys_denied_call(unsigned int *nr,
						bool *compat)
{
	*nr = (unsigned int)task_pt_regs(current)->orig_ax;
	*compat = in_ia32_syscall();
	return !in_compat_syscall() || *compat;
}

/* Is the calling task's call selected by @p? */
static nokprobe_inline bool kpt_sys_denied_select(struct kpt_probe *p)
{
	unsigned int nr;
	bool compat;

	return kpt_sys_denied_call(&nr, &compat) &&
	       kpt_sys_selected(&p->prog, nr, compat);
}

static int kpt_sys_denied_kprobe_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct kpt_sys_aux *a = container_of(kp, struct kpt_sys_aux,
					     seccomp.kp);

	if (!READ_ONCE(a->live) || !kpt_sys_denied_select(a->p))
		return 0;
	return kpt_sys_call_pre(READ_ONCE(a->pre_seccomp), kp, regs);
}
NOKPROBE_SYMBOL(kpt_sys_denied_kprobe_pre);

/*
 * Until the return, the instance keeps the call's number in vals[0] and
 * its mode in vals[1] (kpt_sys_begin() fills them then)
 */
static int kpt_sys_denied_entry(struct kretprobe_instance *ri,
				struct pt_regs *regs)
{
	struct kpt_sys_data *d = (struct kpt_sys_data *)ri->data;
	struct kpt_probe *p;
	unsigned int nr;
	bool compat;

	if (!kpt_sys_aux_ri(ri, offsetof(struct kpt_sys_aux, seccomp), &p))
		return 1;
	/* armed, not yet wrapped: the selection is the entry's */
	if (unlikely(!__this_cpu_read(kpt_sys_preselected)) &&
	    !kpt_sys_denied_select(p))
		return 1;
	kpt_sys_denied_call(&nr, &compat);
	d->vals[0] = nr;
	d->vals[1] = compat;
	return 0;
}
NOKPROBE_SYMBOL(kpt_sys_denied_entry);

static int kpt_sys_denied_return(struct kretprobe_instance *ri,
				 struct pt_regs *regs)
{
	struct kpt_sys_data *d = (struct kpt_sys_data *)ri->data;
	const struct pt_regs *u = task_pt_regs(current);
	unsigned int nr = (unsigned int)d->vals[0];
	bool compat = d->vals[1];
	u8 flags = KPT_F_SYS_DENIED | (compat ? KPT_F_SYS_COMPAT : 0);
	struct kpt_probe *p;
	u64 ts;

	if ((int)regs_return_value(regs) != -1)
		return 0;	/* allowed */
	if (!kpt_sys_aux_ri(ri, offsetof(struct kpt_sys_aux, seccomp), &p))
		return 0;
	if (u->ax == u->orig_ax) {
		/* rolled back, SIGSYS to come: no return value */
		kpt_sys_exit_call(p, u, nr, regs, flags);
		return 0;
	}
	ts = kpt_probe_now(p);
	kpt_sys_begin(p, u, nr, d, ts, !p->sys_sum, compat);
	this_cpu_inc(p->stats->hits);
	kpt_sys_exit_slow(p, d, (long)u->ax, ts, 0, regs, flags);
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
	if (ret)
		return ret;
	kpt_sys_kretprobe_wrap(&a->seccomp, &a->pre_seccomp,
			       kpt_sys_denied_kprobe_pre);
	a->seccomp_on = true;
	return 0;
}
