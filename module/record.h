/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kptrace: writing a record in place in this CPU's ring, for the probe
 * handlers (fetch.c) and the syscalls probe's (syscall.c): the header,
 * room, strings read without faulting, and the probe of a kretprobe
 * instance. Everything here runs in the probed context, NMI included: no
 * sleeping, no allocation, no lock; memory only through the _nofault
 * copies.
 */
#ifndef _KPT_RECORD_H
#define _KPT_RECORD_H

#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/sched.h>
#include <linux/uaccess.h>
#include <linux/stddef.h>
#include "config.h"
#include "probe.h"
#include "ring.h"
#include "compat.h"
#include "clock.h"

static nokprobe_inline int kpt_read_mem(void *dst, unsigned long addr,
					unsigned int size, bool user)
{
	if (user)
		return copy_from_user_nofault(dst, (const void __user *)addr,
					      size);
	return copy_from_kernel_nofault(dst, (const void *)addr, size);
}

/*
 * Copy the NUL-terminated string at @addr (at most @max bytes, without the
 * NUL) to @dst, one page at a time so that only pages the string is on are
 * touched. Returns its length; sets KPT_STR_FAULT or KPT_STR_TRUNC.
 */
static nokprobe_inline unsigned int kpt_copy_str(char *dst, unsigned long addr,
						 unsigned int max,
						 unsigned int type, u16 *flags)
{
	bool user = type == KPT_T_USTRING ||
		    (type == KPT_T_STR && addr < TASK_SIZE_MAX) || *flags;
	unsigned int n = 0, chunk, i;
	char nul;

	if (user)
		*flags |= KPT_STR_USER;
	while (n < max) {
		chunk = min_t(unsigned int, max - n, 64);
		chunk = min_t(unsigned int, chunk,
			      PAGE_SIZE - ((addr + n) & ~PAGE_MASK));
		if (kpt_read_mem(dst + n, addr + n, chunk, user)) {
			*flags |= KPT_STR_FAULT;
			return 0;
		}
		for (i = 0; i < chunk; i++)
			if (!dst[n + i])
				return n + i;
		n += chunk;
	}
	/* Exactly @max bytes is whole if a NUL follows. */
	if (kpt_read_mem(&nul, addr + n, 1, user) || nul)
		*flags |= KPT_STR_TRUNC;
	return n;
}

/*
 * The header but its size and seq (kpt_ring_commit()), in six stores: the
 * fields two by two as struct kpt_event lays them out (x86-64, little
 * endian). The reader sees none of it before the commit.
 */
static nokprobe_inline void kpt_fill_header_id(struct kpt_event *ev, u8 type,
					       u64 cpu_id, u64 ts,
					       unsigned int nargs, bool task)
{
	struct task_struct *tsk = current;
	unsigned long pc = preempt_count();
	u64 *word = (u64 *)ev, comm0, comm1, tids;
	u32 flags;

	BUILD_BUG_ON(offsetof(struct kpt_event, type) != 2 ||
		     offsetof(struct kpt_event, flags) != 3 ||
		     offsetof(struct kpt_event, ts_ns) != 2 * 8 ||
		     offsetof(struct kpt_event, cpu) != 3 * 8 ||
		     offsetof(struct kpt_event, probe_id) != 3 * 8 + 4 ||
		     offsetof(struct kpt_event, pid) != 4 * 8 ||
		     offsetof(struct kpt_event, tid) != 4 * 8 + 4 ||
		     offsetof(struct kpt_event, comm) != 5 * 8 ||
		     offsetof(struct kpt_event, nr_args) != 7 * 8 ||
		     offsetof(struct kpt_event, nr_stack) != 7 * 8 + 2 ||
		     sizeof(tsk->comm) < 2 * 8 || KPT_COMM_LEN != 2 * 8);

	/*
	 * The innermost context only (an NMI's hardirq count is set too).
	 * Most hits are in a task: one test of the count finds that (but on
	 * PREEMPT_RT, where a softirq is served in a task, as the task says).
	 * A caller that knows it runs in a task (@task: a system call's
	 * entry or return) needs none: an int3 kprobe's handler runs with
	 * the NMI count set, in the task all the same.
	 */
	flags = 0;
	if (!task &&
	    unlikely(IS_ENABLED(CONFIG_PREEMPT_RT) ?
		     (pc & (NMI_MASK | HARDIRQ_MASK)) || in_serving_softirq() :
		     pc & (NMI_MASK | HARDIRQ_MASK | SOFTIRQ_OFFSET))) {
		flags = in_serving_softirq() ? KPT_F_SOFTIRQ : 0;
		flags = pc & HARDIRQ_MASK ? KPT_F_HARDIRQ : flags;
		flags = pc & NMI_MASK ? KPT_F_NMI : flags;
	}

	/* magic, type, flags */
	*(u32 *)ev = KPT_MAGIC | (u32)type << 16 | flags << 24;
	ev->ts_ns = ts;
	word[3] = cpu_id;	/* cpu, probe_id */
	/* pid (the tgid), tid: task_struct has them the other way round */
	if (offsetof(struct task_struct, tgid) ==
	    offsetof(struct task_struct, pid) + sizeof(u32) &&
	    IS_ALIGNED(offsetof(struct task_struct, pid), sizeof(u64))) {
		/* both in one load (memcpy() would trip FORTIFY_SOURCE) */
		tids = *(const u64 *)&tsk->pid;
		word[4] = ror64(tids, 32);
	} else {
		word[4] = (u32)tsk->tgid | (u64)(u32)tsk->pid << 32;
	}
	/*
	 * Two scalars, not an array: an array costs a stack canary. comm[15]
	 * is NUL but for a moment of a rename on 6.1 to 6.12 (strscpy_pad()
	 * stores bytes 8..15 as a word, then the NUL): an irq or NMI hit then
	 * would record 16 bytes without one. The record's comm always ends.
	 */
	memcpy(&comm0, tsk->comm, 8);
	memcpy(&comm1, tsk->comm + 8, 8);
	word[5] = comm0;
	word[6] = comm1 & ~(0xffULL << 56);	/* a NUL at comm[15] */
	word[7] = nargs;	/* nr_stack 0, __pad 0 */
}

/* ... with @p's header word of this CPU (struct kpt_probe_stats) */
static nokprobe_inline void kpt_fill_header(struct kpt_event *ev, u8 type,
					    const struct kpt_probe *p, u64 ts,
					    unsigned int nargs, bool task)
{
	/* (loaded before the stores below, which might alias p->stats) */
	kpt_fill_header_id(ev, type, this_cpu_read(p->stats->cpu_id), ts,
			   nargs, task);
}

/*
 * A return record's header and struct kpt_ret: @retval, the call's
 * latency @lat and its entry time; its args follow at KPT_RET_SLOTS.
 */
static nokprobe_inline void kpt_fill_return(struct kpt_event *ev,
					    const struct kpt_probe *p, u64 ts,
					    unsigned int nargs, s64 retval,
					    u64 lat, u64 entry_ts, bool task)
{
	struct kpt_ret *ret = (struct kpt_ret *)ev->data;

	kpt_fill_header(ev, KPT_EV_RETURN, p, ts, nargs, task);
	ret->ret = retval;
	ret->lat_ns = lat;
	ret->entry_ts_ns = entry_ts;
}

/*
 * Zero the record's padding: the bytes from @end, where its last string
 * ends, to the next multiple of 8. They would hold what the chunked read
 * of a string took in past its NUL (kpt_copy_str()), or an older record's
 * bytes. One store to the last word, whose low (little-endian: first)
 * @end % 8 bytes are the string's. Only records with strings need it.
 */
static nokprobe_inline void kpt_zero_pad(struct kpt_event *ev,
					 unsigned int end)
{
	unsigned int keep = end % 8;

	if (keep)
		*(u64 *)((char *)ev + end - keep) &= ~0ULL >> (64 - 8 * keep);
}

/* @ev's call trace ends after its first @n frames: it had more */
static nokprobe_inline void kpt_stack_cut(const struct kpt_probe *p,
					  struct kpt_event *ev, unsigned int n)
{
	ev->nr_stack = n;
	ev->flags |= KPT_F_STACK_TRUNC;
	this_cpu_inc(p->stats->stack_trunc);
}

/*
 * The time of a hit of @p, by its session's clock (clock.h): now, the
 * fast path's try, and the slow path a failed try leaves for
 */
static nokprobe_inline u64 kpt_probe_now(const struct kpt_probe *p)
{
	return kpt_clock_ns(p->prog.clock, p->prog.clock_local);
}

static nokprobe_inline bool kpt_probe_now_try(const struct kpt_probe *p,
					      u64 *ns)
{
	return kpt_clock_try(p->prog.clock, p->prog.clock_local, ns);
}

static nokprobe_inline u64 kpt_probe_now_slow(const struct kpt_probe *p)
{
	return kpt_clock_ns_slow(p->prog.clock_local);
}

/* This CPU's ring of @p's session */
static nokprobe_inline struct kpt_ring *
kpt_probe_ring(const struct kpt_probe *p)
{
	return this_cpu_read(p->stats->ring);
}

static nokprobe_inline bool kpt_reserve(const struct kpt_probe *p,
					struct kpt_wr *w, unsigned int size)
{
	enum kpt_lost_cause cause;

	if (likely(kpt_ring_reserve(w, kpt_probe_ring(p), size, &cause)))
		return true;
	this_cpu_inc(p->stats->lost[cause]);
	return false;
}

/*
 * The probe of a kretprobe instance in *@p; false while it is
 * unregistered (kpt_get_kretprobe(), compat.h).
 */
static nokprobe_inline bool kpt_ri_probe(struct kretprobe_instance *ri,
					 struct kpt_probe **p)
{
	struct kretprobe *rp = kpt_get_kretprobe(ri);

	*p = container_of(rp, struct kpt_probe, rp);
	return rp;
}

#endif /* _KPT_RECORD_H */
