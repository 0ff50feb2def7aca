/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kptrace: what the syscalls probe's files share (syscall.c says what the
 * probe is): the data a selected call keeps until it returns, the
 * selection and a call's entry, inline, as every handler runs them; the
 * out-of-line ends of a call (syscall_record.c), the summary's tables
 * (syscall_sum.h, syscall_sum.c) and the tracepoints' way
 * (syscall_tp.c).
 */
#ifndef _KPT_SYSCALL_H
#define _KPT_SYSCALL_H

#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/sched.h>
#include <linux/cgroup.h>
#include <linux/percpu.h>
#include "config.h"
#include "probe.h"
#include "record.h"
#include "compat.h"

/* x86-64 numbers, which are ABI; and the i386 ones */
#define KPT_NR_EXIT		60
#define KPT_NR_EXIT_GROUP	231
#define KPT_NR32_EXIT		1
#define KPT_NR32_EXIT_GROUP	252

/* How far up the parents children= looks */
#define KPT_SYS_MAX_DEPTH	64

/*
 * The path strings of each x86-64 call (syscall_record.c) and i386 call
 * (syscall_ia32.c): the argument numbers (from 1) of its first string in
 * the low nibble, of its second in the high one.
 */
#define KPT_SYS_STR1(a)		(a)
#define KPT_SYS_STR2(a, b)	((a) | (b) << 4)
extern const u8 kpt_sys_strs[KPT_SYS_NR_BITS];
extern const u8 kpt_sys_strs32[KPT_SYS_NR_BITS];

/* The fixed part of a call's return record: its strings follow */
#define KPT_SYS_RET_HDR	(KPT_RET_SIZE + KPT_SYS_NARGS * sizeof(u64))
/* A string slot of no bytes, as a return record holds it */
#define KPT_SYS_NO_STR	KPT_STR_SLOT(KPT_SYS_RET_HDR, 0, 0)

/* What a selected call keeps in its instance until it returns */
struct kpt_sys_data {
	u64	entry_ts;
	u64	vals[KPT_SYS_NARGS];	/* str slots: offsets in strs[] */
	char	strs[];			/* KPT_SYS_NSTR x strsize */
};

static nokprobe_inline bool kpt_sys_nr_in(const u64 *bits, unsigned int nr)
{
	return bits[nr / 64] & (1ULL << (nr % 64));
}

/* Does process @tgid have the calling task among its descendants? */
static nokprobe_inline bool kpt_sys_child_of(u32 tgid)
{
	struct task_struct *t = current;
	unsigned int depth;

	for (depth = 0; depth < KPT_SYS_MAX_DEPTH; depth++) {
		t = rcu_dereference_raw(t->real_parent);
		if (!t)
			return false;
		if (t->tgid == tgid)
			return true;
		if (t->pid <= 1)
			return false;	/* init, or the idle task above it */
	}
	return false;
}

/* Is the calling task in cgroup v2 @id or below it? */
static nokprobe_inline bool kpt_sys_in_cgroup(u64 id)
{
	struct css_set *cset = rcu_dereference_raw(current->cgroups);
	struct cgroup *cg = cset ? cset->dfl_cgrp : NULL;

	for (; cg; cg = cgroup_parent(cg))
		if (cgroup_id(cg) == id)
			return true;
	return false;
}

static nokprobe_inline bool kpt_sys_id_in(const u32 *ids, unsigned int n,
					  u32 id)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (ids[i] == id)
			return true;
	return false;
}

/*
 * comm='s verdict on this CPU's last comm, per probe (a probe's memo,
 * allocated per CPU with the probe, freed with it: kpt_sys_new()).
 * The verdict is a function of the comm's 16 bytes alone, so nothing
 * invalidates it: a rename changes the bytes.
 *
 * Why a memo, in hardware terms: a miss calls kpt_sys_comm_learn() (a
 * call and return, a stack canary's load and compare, the comm's 16-byte
 * copy to the stack) and kpt_glob_match(), a loop of a load and a
 * data-dependent branch per byte of glob and comm: 92 instructions for
 * an outsider whose comm differs at the 5th byte, 197 for a match of
 * "kpt_sys*" (session 23's profile), the branches mispredicted whenever
 * the CPU switches between tasks of different comms. A hit is two loads
 * of current->comm (one line of the running task's task_struct), three
 * of one line only this CPU writes (per CPU, 32-byte aligned: no sharing
 * with another CPU, no split across lines) and three compares: about ten
 * instructions and no call, a tenth or more of what a call of a -c probe
 * costs.
 *
 * Why it is safe in every context that reaches it: only the handlers of
 * one s probe read and write its memo, each with preemption disabled,
 * on the CPU whose memo it is: the kprobes on x64_sys_call and
 * ia32_sys_call and the kretprobe on __secure_computing (kprobe handlers
 * do not nest on a CPU: a hit inside one is a miss), the raw_syscalls
 * tracepoints (where x64_sys_call cannot be probed, as on 5.10:
 * syscall_tp.c, the same kpt_sys_select()) and
 * signal_deliver and sched_process_exit (syscall_signal.c). Each is
 * reached from a task's own system call, signal delivery or exit, never
 * from an interrupt or NMI, so no two run interleaved on a CPU and
 * neither sees the other's memo half-written. (Were one ever reached
 * from an interrupt, a learn nested in another could leave one comm's
 * bytes with the other's verdict, wrong on that CPU until its next
 * miss: never a fault, it is plain memory.) A rename under way in
 * another task gives bytes of either name, or of both, as a copy would:
 * the verdict kept is that of the very bytes judged.
 */
struct kpt_sys_comm_memo {
	u64	comm[2];	/* the comm's bytes, as loaded */
	u64	verdict;	/* KPT_SYS_COMM_NO or _YES; 0: none yet */
};

#define KPT_SYS_COMM_NO		1
#define KPT_SYS_COMM_YES	2

bool kpt_sys_comm_learn(const struct kpt_prog *g,
			struct kpt_sys_comm_memo *m, u64 c0, u64 c1);

/* Does the calling task's comm match comm=? */
static nokprobe_inline bool kpt_sys_comm_selected(const struct kpt_prog *g)
{
	struct kpt_sys_comm_memo *m = this_cpu_ptr(g->sys_comm_memo);
	/* two 8-byte loads, whatever comm's alignment: no copy on the stack */
	u64 c0 = get_unaligned((const u64 *)current->comm);
	u64 c1 = get_unaligned((const u64 *)current->comm + 1);

	BUILD_BUG_ON(sizeof(current->comm) != 2 * sizeof(u64));
	if (likely(m->comm[0] == c0 && m->comm[1] == c1 && m->verdict))
		return m->verdict == KPT_SYS_COMM_YES;
	return kpt_sys_comm_learn(g, m, c0, c1);
}

/*
 * Is the calling task left out by exclude=, pid= or tid=? Loads of
 * current and compares, no call: kpt_sys_kprobe_pre() decides them inline.
 */
static nokprobe_inline bool kpt_sys_left_out(const struct kpt_sys_spec *sys)
{
	return (sys->exclude && current->tgid == sys->exclude) ||
	       (sys->npid && !kpt_sys_id_in(sys->pid, sys->npid, current->tgid)) ||
	       (sys->ntid && !kpt_sys_id_in(sys->tid, sys->ntid, current->pid));
}

/*
 * Is the calling task, not left out, selected by comm=, cgroup= and
 * children=? (kpt_sys_kprobe_rest(), out of line)
 */
static nokprobe_inline bool kpt_sys_task_rest(const struct kpt_prog *g)
{
	const struct kpt_sys_spec *sys = &g->sys;

	if (sys->comm[0] && !kpt_sys_comm_selected(g))
		return false;
	if (sys->cgroup && !kpt_sys_in_cgroup(sys->cgroup))
		return false;
	if (sys->children && !kpt_sys_child_of(sys->children))
		return false;
	return true;
}

/* Is the calling task selected, whatever its call? */
static nokprobe_inline bool kpt_sys_task_selected(const struct kpt_prog *g)
{
	return !kpt_sys_left_out(&g->sys) && kpt_sys_task_rest(g);
}

/*
 * The selection, cheapest test first: call @nr, an i386 number if
 * @compat (a 32-bit call), by the calling task
 */
static nokprobe_inline bool kpt_sys_selected(const struct kpt_prog *g,
					     unsigned int nr, bool compat)
{
	const struct kpt_sys_spec *sys = &g->sys;

	if (nr >= KPT_SYS_NR_BITS) {
		if (sys->nr_given)
			return false;
	} else if (!kpt_sys_nr_in(compat ? sys->nr32 : sys->nr, nr)) {
		return false;
	}
	return kpt_sys_task_selected(g);
}

/*
 * Call @nr's number and six argument registers, of user registers @u:
 * a 32-bit call's (@compat) are ebx, ecx, edx, esi, edi, ebp
 */
static nokprobe_inline void kpt_sys_args(const struct pt_regs *u,
					 unsigned int nr, u64 *vals,
					 bool compat)
{
	vals[0] = nr;
	if (compat) {
		vals[1] = (u32)u->bx;
		vals[2] = (u32)u->cx;
		vals[3] = (u32)u->dx;
		vals[4] = (u32)u->si;
		vals[5] = (u32)u->di;
		vals[6] = (u32)u->bp;
		return;
	}
	vals[1] = u->di;
	vals[2] = u->si;
	vals[3] = u->dx;
	vals[4] = u->r10;
	vals[5] = u->r8;
	vals[6] = u->r9;
}

void kpt_sys_strs_read(struct kpt_probe *p, u64 *vals, char *dst,
		       unsigned int max, unsigned int which);

/* Is call @nr selected? An unselected one is counted, in one count. */
static nokprobe_inline bool kpt_sys_select(struct kpt_probe *p,
					   unsigned int nr, bool compat)
{
	if (likely(!kpt_sys_selected(&p->prog, nr, compat))) {
		this_cpu_inc(p->stats->unselected);
		return false;
	}
	return true;
}

static nokprobe_inline bool kpt_sys_is_exit(unsigned int nr, bool compat)
{
	if (compat)
		return nr == KPT_NR32_EXIT || nr == KPT_NR32_EXIT_GROUP;
	return nr == KPT_NR_EXIT || nr == KPT_NR_EXIT_GROUP;
}

/* The path strings call @nr has (kpt_sys_strs_read()'s @which) */
static nokprobe_inline unsigned int kpt_sys_strs_of(unsigned int nr,
						    bool compat)
{
	if (nr >= KPT_SYS_NR_BITS)
		return 0;
	return compat ? kpt_sys_strs32[nr] : kpt_sys_strs[nr];
}

/*
 * The entry of selected call @nr (not exit*; @compat: a 32-bit call) of a
 * task whose registers are at @u, at @ts: @d is filled for the return,
 * with the call's path strings if @strs (a summary keeps none). The
 * strings are read last, out of line: nothing is kept across that call.
 */
static nokprobe_inline void kpt_sys_begin(struct kpt_probe *p,
					  const struct pt_regs *u,
					  unsigned int nr,
					  struct kpt_sys_data *d, u64 ts,
					  bool strs, bool compat)
{
	unsigned int which = kpt_sys_strs_of(nr, compat);

	this_cpu_inc(p->stats->calls);
	d->entry_ts = ts;
	kpt_sys_args(u, nr, d->vals, compat);
	d->vals[7] = KPT_SYS_NO_STR;
	d->vals[8] = KPT_SYS_NO_STR;
	if (strs && which)
		kpt_sys_strs_read(p, d->vals, d->strs, kpt_cfg.strsize,
				  which);
}

/* A return record's header and slots, @d's */
static nokprobe_inline void kpt_sys_fill(struct kpt_event *ev,
					 const struct kpt_probe *p,
					 const struct kpt_sys_data *d,
					 long retval, u64 ts, u64 lat)
{
	/* a system call returns in its task: no context flags to find */
	kpt_fill_return(ev, p, ts, KPT_SYS_NARGS, retval, lat, d->entry_ts,
			true);
	memcpy(ev->data + KPT_RET_SLOTS, d->vals, sizeof(d->vals));
}

/* Did the entry of @d keep a path string? Most calls have none. */
static nokprobe_inline bool kpt_sys_has_strs(const struct kpt_sys_data *d)
{
	return KPT_STR_LEN(d->vals[7]) | KPT_STR_LEN(d->vals[8]);
}

/*
 * syscall_record.c: the ends of a call, out of line. @flags: the
 * record's KPT_F_SYS_COMPAT, KPT_F_SYS_DENIED; @regs: the probe's
 * registers, for stack= (NULL from a tracepoint).
 */
void kpt_sys_exit_call(struct kpt_probe *p, const struct pt_regs *u,
		       unsigned int nr, struct pt_regs *regs, u8 flags);
void kpt_sys_exit_slow(struct kpt_probe *p, const struct kpt_sys_data *d,
		       long retval, u64 ts, u64 lat, struct pt_regs *regs,
		       u8 flags);
void kpt_sys_event(struct kpt_probe *p, const u64 *vals);

/*
 * What an s probe arms beside x64_sys_call or the raw_syscalls
 * tracepoints (syscall.c), made at its first arm and kept until it is
 * freed, so that the counts of past arms stay:
 *  - a kretprobe on ia32_sys_call(regs, nr), the i386 dispatcher
 *    (syscall_ia32.c), where the kernel has it (as x64_sys_call);
 *  - with denied, a kretprobe on __secure_computing() (syscall_denied.c);
 *  - with signals, the signal_deliver and sched_process_exit tracepoints
 *    (syscall_signal.c).
 * A kernel without ia32_sys_call traces the rest; one that cannot give
 * denied or signals refuses the probe (kpt_sys_aux_arm()).
 */
struct kpt_sys_aux {
	struct kpt_probe	*p;
	struct kretprobe	rp32;
	struct kretprobe	seccomp;
	kprobe_pre_handler_t	pre32;	/* rp32's own pre-handler */
	kprobe_pre_handler_t	pre_seccomp;	/* seccomp's */
	struct tracepoint	*signal;
	struct tracepoint	*exit;
	bool			rp32_on;
	bool			seccomp_on;
	bool			signals_on;
	/* set once the whole probe is armed: before, the handlers return */
	bool			live;
	const char		*why;	/* what a failed arm refused */
	/* the kprobe core's misses of its kretprobes before a re-arm */
	unsigned long		missed32_before;
	unsigned long		denied_before;
};

/*
 * An aux kretprobe's instance's probe: false while unregistered, or not
 * yet live (its probe's arm not done)
 */
static nokprobe_inline bool kpt_sys_aux_ri(struct kretprobe_instance *ri,
					   size_t off, struct kpt_probe **p)
{
	struct kretprobe *rp = kpt_get_kretprobe(ri);
	struct kpt_sys_aux *a;

	if (!rp)
		return false;
	a = (struct kpt_sys_aux *)((char *)rp - off);
	*p = a->p;
	return READ_ONCE(a->live);
}

int kpt_sys_aux_register(struct kpt_sys_aux *a, struct kretprobe *rp,
			 const char *sym, unsigned int maxactive,
			 kretprobe_handler_t entry, kretprobe_handler_t ret);
void kpt_sys_kretprobe_wrap(struct kretprobe *rp, kprobe_pre_handler_t *own,
			    kprobe_pre_handler_t wrapper);

/*
 * Set while a kprobe's selection (kpt_sys_kprobe_pre(), its ia32 twin)
 * runs the kretprobe's pre-handler for a call it selected: the entry
 * handler then need not select again. Kprobe handlers do not nest on a
 * CPU (a hit inside one is a miss), so the flag is this call's.
 */
DECLARE_PER_CPU(bool, kpt_sys_preselected);

/*
 * A selected call (not exit*): the kretprobe's own pre-handler @pre of
 * @kp, which takes an instance and calls the entry handler
 */
static nokprobe_inline int kpt_sys_call_pre(kprobe_pre_handler_t pre,
					    struct kprobe *kp,
					    struct pt_regs *regs)
{
	int ret;

	__this_cpu_write(kpt_sys_preselected, true);
	ret = pre(kp, regs);
	__this_cpu_write(kpt_sys_preselected, false);
	return ret;
}

/* syscall_ia32.c, syscall_denied.c, syscall_signal.c */
int kpt_sys32_arm(struct kpt_sys_aux *a, unsigned int maxactive);
int kpt_sys_denied_arm(struct kpt_sys_aux *a, unsigned int maxactive);
int kpt_sys_signal_arm(struct kpt_sys_aux *a);
void kpt_sys_signal_disarm(struct kpt_sys_aux *a,
			   struct kpt_disarm_batch *batch);

/* syscall_tp.c: the raw_syscalls tracepoints' way */
u64 kpt_sys_tp_bytes(const struct kpt_spec *spec, unsigned int maxactive);
int kpt_sys_tp_arm(struct kpt_probe *p, unsigned int maxactive);
void kpt_sys_tp_disarm(struct kpt_probe *p, struct kpt_disarm_batch *batch);
void kpt_sys_tp_free(struct kpt_probe *p);
struct tracepoint *kpt_tracepoint_find(const char *name);
unsigned long kpt_sys_tp_missed(const struct kpt_probe *p);

#endif /* _KPT_SYSCALL_H */
