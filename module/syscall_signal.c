// SPDX-License-Identifier: GPL-2.0
/*
 * kptrace: an s probe's signals option, a record per signal delivered to
 * a selected task (as strace's --- SIGSEGV {...} ---) and per exit of one
 * (+++ exited with N +++, +++ killed by SIGx +++), on the signal_deliver
 * and sched_process_exit tracepoints, found as syscall_tp.c finds its
 * own. Both fire in the task itself: the selection is the calls' (pid=,
 * tid=, comm=, cgroup=, children=, exclude=), whatever nr= says, as
 * strace prints signals whatever -e trace= says. uapi/kptrace.h says
 * what the records (KPT_SYS_EV_SIGNAL, KPT_SYS_EV_EXIT) hold.
 *
 * signal_deliver fires in get_signal() once the signal is dequeued and
 * its action known, ignored ones included; a task killed as its process
 * exits (another thread's exit_group or fatal signal) gets a SIGKILL with
 * no siginfo (SEND_SIG_NOINFO). sched_process_exit fires in do_exit()
 * after exit_code is set and signal->live counted down: the last task's
 * count reads 0 (two threads exiting at once may both read 0, where the
 * kernel does not say which was last, before 7.x's group_dead).
 *
 * Context: the task, preemptible or not (the handlers disable preemption,
 * for the ring and the per-CPU counts, as the raw_syscalls ones do).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/sched/signal.h>
#include <linux/signal.h>
#include <linux/tracepoint.h>
#include "compat.h"
#include "syscall.h"

/* Is @sig with si_code @code a fault's, whose siginfo has si_addr? */
static nokprobe_inline bool kpt_sys_sig_fault(int sig, int code)
{
	/* sent by the kernel for a fault, not by kill() */
	return code > 0 && (sig == SIGSEGV || sig == SIGBUS || sig == SIGILL ||
			    sig == SIGFPE || sig == SIGTRAP);
}

static nokprobe_inline void kpt_sys_sig_record(struct kpt_probe *p, int sig,
					       struct kernel_siginfo *info,
					       struct k_sigaction *ka)
{
	u64 vals[KPT_SYS_NARGS - KPT_SYS_NSTR] = { KPT_SYS_EV_SIGNAL, sig };
	void __user *handler = ka->sa.sa_handler;

	if (info == SEND_SIG_PRIV) {
		vals[2] = SI_KERNEL;
	} else if (info != SEND_SIG_NOINFO) {
		vals[2] = (u32)info->si_code;
		vals[3] = (u32)info->si_errno;
		if (kpt_sys_sig_fault(sig, info->si_code))
			vals[4] = (unsigned long)info->si_addr;
		else if (sig == SIGSYS && info->si_code == SYS_SECCOMP)
			vals[4] = (unsigned long)info->si_call_addr;
		else
			vals[4] = (u32)info->si_pid | (u64)info->si_uid << 32;
		if (sig == SIGSYS && info->si_code == SYS_SECCOMP)
			vals[5] = (u32)info->si_syscall |
				  (u64)info->si_arch << 32;
		if (sig == SIGCHLD)
			vals[5] = (u32)info->si_status;
	}
	vals[6] = handler == SIG_IGN ? KPT_SYS_SIG_IGNORED :
		  handler == SIG_DFL ? KPT_SYS_SIG_DEFAULT : KPT_SYS_SIG_HANDLER;
	kpt_sys_event(p, vals);
}

/* @data: the probe's aux; nothing until it is live (kpt_sys_arm()) */
static void kpt_sys_sig_deliver(void *data, int sig,
				struct kernel_siginfo *info,
				struct k_sigaction *ka)
{
	struct kpt_sys_aux *a = data;

	preempt_disable_notrace();
	if (READ_ONCE(a->live) && kpt_sys_task_selected(&a->p->prog))
		kpt_sys_sig_record(a->p, sig, info, ka);
	preempt_enable_notrace();
}
NOKPROBE_SYMBOL(kpt_sys_sig_deliver);

/* @tsk (current) exits; @last: the process ends with it */
static nokprobe_inline void kpt_sys_task_exit_at(struct kpt_sys_aux *a,
						 struct task_struct *tsk,
						 bool last)
{
	u64 vals[KPT_SYS_NARGS - KPT_SYS_NSTR] = { KPT_SYS_EV_EXIT };
	struct kpt_probe *p = a->p;

	preempt_disable_notrace();
	if (READ_ONCE(a->live) && kpt_sys_task_selected(&p->prog)) {
		vals[1] = (u32)tsk->exit_code;
		vals[2] = last;
		vals[3] = !!(tsk->signal->flags & SIGNAL_GROUP_EXIT);
		kpt_sys_event(p, vals);
	}
	preempt_enable_notrace();
}

static void kpt_sys_task_exit(void *data, struct task_struct *tsk)
{
	kpt_sys_task_exit_at(data, tsk, !atomic_read(&tsk->signal->live));
}
NOKPROBE_SYMBOL(kpt_sys_task_exit);

static void kpt_sys_task_exit_gd(void *data, struct task_struct *tsk,
				 bool group_dead)
{
	kpt_sys_task_exit_at(data, tsk, group_dead);
}
NOKPROBE_SYMBOL(kpt_sys_task_exit_gd);

/* sched_process_exit's probe, as the kernel declares the tracepoint */
static void *kpt_sys_task_exit_probe(void)
{
	return KPT_EXIT_TP_GROUP_DEAD ? (void *)kpt_sys_task_exit_gd :
					(void *)kpt_sys_task_exit;
}

/* 0, or -ENOENT (a tracepoint not found), or the registration's error */
int kpt_sys_signal_arm(struct kpt_sys_aux *a)
{
	int ret;

	if (!a->signal)
		a->signal = kpt_tracepoint_find("signal_deliver");
	if (!a->exit)
		a->exit = kpt_tracepoint_find("sched_process_exit");
	if (!a->signal || !a->exit)
		return -ENOENT;
	ret = tracepoint_probe_register(a->signal, kpt_sys_sig_deliver, a);
	if (ret)
		return ret;
	ret = tracepoint_probe_register(a->exit, kpt_sys_task_exit_probe(), a);
	if (ret) {
		tracepoint_probe_unregister(a->signal, kpt_sys_sig_deliver,
					    a);
		tracepoint_synchronize_unregister();
		return ret;
	}
	a->signals_on = true;
	return 0;
}

/* As kpt_sys_tp_disarm(): with @batch, waited for once by its caller */
void kpt_sys_signal_disarm(struct kpt_sys_aux *a,
			   struct kpt_disarm_batch *batch)
{
	int e1, e2;

	e1 = tracepoint_probe_unregister(a->signal, kpt_sys_sig_deliver, a);
	e2 = tracepoint_probe_unregister(a->exit, kpt_sys_task_exit_probe(), a);
	if (e1 || e2)
		pr_warn("%s: the signal and exit tracepoints refused an unregister\n",
			a->p->spec->name);
	if (batch)
		batch->tracepoints = true;
	else
		tracepoint_synchronize_unregister();
}
