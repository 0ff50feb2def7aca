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
#include "config.h"
#include "probe.h"
#include "record.h"

/* x86-64 numbers, which are ABI */
#define KPT_NR_EXIT		60
#define KPT_NR_EXIT_GROUP	231

/* How far up the parents children= looks */
#define KPT_SYS_MAX_DEPTH	64

/* The path strings of each x86-64 call (syscall_record.c) */
extern const u8 kpt_sys_strs[KPT_SYS_NR_BITS];

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

bool kpt_sys_comm_match(const char *glob);

/* Is the calling task left out by exclude= or pid=? */
static nokprobe_inline bool kpt_sys_left_out(const struct kpt_sys_spec *sys)
{
	return (sys->exclude && current->tgid == sys->exclude) ||
	       (sys->npid && !kpt_sys_id_in(sys->pid, sys->npid, current->tgid));
}

/* The selection, cheapest test first */
static nokprobe_inline bool kpt_sys_selected(const struct kpt_sys_spec *sys,
					     unsigned int nr)
{
	if (nr >= KPT_SYS_NR_BITS) {
		if (sys->nr_given)
			return false;
	} else if (!kpt_sys_nr_in(sys->nr, nr)) {
		return false;
	}
	if (kpt_sys_left_out(sys))
		return false;
	if (sys->ntid && !kpt_sys_id_in(sys->tid, sys->ntid, current->pid))
		return false;
	if (sys->comm[0] && !kpt_sys_comm_match(sys->comm))
		return false;
	if (sys->cgroup && !kpt_sys_in_cgroup(sys->cgroup))
		return false;
	if (sys->children && !kpt_sys_child_of(sys->children))
		return false;
	return true;
}

/* Call @nr's number and six argument registers, of user registers @u */
static nokprobe_inline void kpt_sys_args(const struct pt_regs *u,
					 unsigned int nr, u64 *vals)
{
	vals[0] = nr;
	vals[1] = u->di;
	vals[2] = u->si;
	vals[3] = u->dx;
	vals[4] = u->r10;
	vals[5] = u->r8;
	vals[6] = u->r9;
}

void kpt_sys_strs_read(struct kpt_probe *p, u64 *vals, char *dst,
		       unsigned int max);

/* Is call @nr selected? An unselected one is counted, in one count. */
static nokprobe_inline bool kpt_sys_select(struct kpt_probe *p,
					   unsigned int nr)
{
	if (likely(!kpt_sys_selected(&p->prog.sys, nr))) {
		this_cpu_inc(p->stats->unselected);
		return false;
	}
	return true;
}

static nokprobe_inline bool kpt_sys_is_exit(unsigned int nr)
{
	return nr == KPT_NR_EXIT || nr == KPT_NR_EXIT_GROUP;
}

/*
 * The entry of selected call @nr (not exit*) of a task whose registers
 * are at @u, at @ts: @d is filled for the return, with the call's path
 * strings if @strs (a summary keeps none). The strings are read last,
 * out of line: nothing is kept across that call.
 */
static nokprobe_inline void kpt_sys_begin(struct kpt_probe *p,
					  const struct pt_regs *u,
					  unsigned int nr,
					  struct kpt_sys_data *d, u64 ts,
					  bool strs)
{
	this_cpu_inc(p->stats->calls);
	d->entry_ts = ts;
	kpt_sys_args(u, nr, d->vals);
	d->vals[7] = KPT_SYS_NO_STR;
	d->vals[8] = KPT_SYS_NO_STR;
	if (strs && nr < KPT_SYS_NR_BITS && kpt_sys_strs[nr])
		kpt_sys_strs_read(p, d->vals, d->strs, kpt_cfg.strsize);
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

/* syscall_record.c: the ends of a call, out of line */
void kpt_sys_exit_call(struct kpt_probe *p, const struct pt_regs *u,
		       unsigned int nr, struct pt_regs *regs);
void kpt_sys_exit_slow(struct kpt_probe *p, const struct kpt_sys_data *d,
		       long retval, u64 ts, u64 lat, struct pt_regs *regs);

/* syscall_tp.c: the raw_syscalls tracepoints' way */
u64 kpt_sys_tp_bytes(const struct kpt_spec *spec, unsigned int maxactive);
int kpt_sys_tp_arm(struct kpt_probe *p, unsigned int maxactive);
void kpt_sys_tp_disarm(struct kpt_probe *p, struct kpt_disarm_batch *batch);
void kpt_sys_tp_free(struct kpt_probe *p);

#endif /* _KPT_SYSCALL_H */
