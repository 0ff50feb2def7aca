// SPDX-License-Identifier: GPL-2.0
/*
 * kptrace: the syscalls probe (s), every system call of the machine or of
 * a selection, with its arguments, path strings, return value and
 * duration, in one record per call.
 *
 * Attach point, chosen when the probe is armed:
 *  - a kretprobe on x64_sys_call(regs, nr), the x86-64 dispatcher (v6.9,
 *    and 6.1.85+ / 6.6.26+ where the BHI fix brought it): one probe sees
 *    every 64-bit call, its number in the second argument and the user's
 *    registers behind the first;
 *  - else (Debian 11's 5.10) the raw_syscalls tracepoints sys_enter and
 *    sys_exit, found with for_each_kernel_tracepoint(), as the falco
 *    module does. Registering them sends every task's calls through the
 *    slow entry path (TIF_SYSCALL_TRACEPOINT), as ftrace's syscall events
 *    do; the pair is matched by thread id in a table of its own
 *    (struct kpt_sys_tp) in place of kretprobe instances, and a call
 *    that finds its bucket full is a missed return.
 * The probes file says which (at=x64_sys_call+0x0/0x... kretprobe MODE,
 * or at=raw_syscalls:sys_enter/sys_exit tracepoint enabled). Calls of
 * 32-bit tasks (ia32, x32) are not traced.
 *
 * The selection runs first, in the kretprobe's kprobe, ahead of the
 * pre-handler that takes an instance (kpt_sys_kretprobe_wrap()): an
 * unselected call, or exit and exit_group (recorded there), takes none, so
 * a task outside the selection that blocks for hours in futex or epoll
 * holds none, and its cost is the kprobe's, the test of the number's bit
 * and of what the spec selects on. (The kprobes list in debugfs so shows
 * the kretprobe as "k".) A selected call keeps its entry time, number, six
 * arguments and path strings (read from user memory without faulting,
 * "(fault)" when not resident) in the instance; the return handler applies
 * failure and duration= and writes one KPT_EV_RETURN record (args: nr,
 * arg0..arg5, str0, str1, probe.h KPT_SYS_NARGS). exit and exit_group,
 * which never return, are recorded at entry, as a KPT_EV_ENTRY record of
 * the same args.
 *
 * The books of a syscalls probe: calls, the calls its handler saw; hits,
 * those decided (at entry when unselected or exit*, else at return);
 * hits = recorded + filtered + lost[] (a summary's: summed + filtered +
 * sum_full), calls - hits are in flight. An unselected call is one
 * count, unselected, that the stats show as a call, a hit and a filtered
 * one (kpt_probe_stats_fold()). A call that found no free instance is
 * the kretprobe's nmissed (missed returns) and was never seen by the
 * handler.
 *
 * Handlers: one pair for records, one for a summary (picked when armed,
 * kpt_sys_set_handlers()). Their common path reads the time first and
 * keeps nothing across a call, so that it saves few registers: every
 * rare case (failure, duration=, stack=, path strings, a ring with no
 * room where its head is) leaves by one out-of-line kpt_sys_exit_slow().
 *
 * Context: the handlers run in the calling task, at syscall entry and
 * exit, with preemption disabled: the task's parents and cgroup are read
 * under that RCU read side, nothing sleeps, nothing is allocated.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/sched.h>
#include <linux/cgroup.h>
#include <linux/compat.h>
#include <linux/err.h>
#include <linux/hash.h>
#include <linux/pid_namespace.h>
#include <linux/slab.h>
#include <linux/seq_file.h>
#include <linux/tracepoint.h>
#include <linux/unistd.h>
#include "config.h"
#include "probe.h"
#include "ring.h"
#include "clock.h"
#include "record.h"

/* x86-64 numbers, which are ABI */
#define KPT_NR_EXIT		60
#define KPT_NR_EXIT_GROUP	231

/* How far up the parents children= looks */
#define KPT_SYS_MAX_DEPTH	64

/*
 * The path strings of each call: the argument numbers (from 1) of its
 * first string in the low nibble, of its second in the high one. As perf
 * trace and strace show them: names of files, of mounts, of xattrs, of
 * keys. Numbers are ABI; an unknown call has none.
 */
#define S1(a)		(a)
#define S2(a, b)	((a) | (b) << 4)
static const u8 kpt_sys_strs[KPT_SYS_NR_BITS] = {
	[2] = S1(1),		/* open */
	[4] = S1(1),		/* stat */
	[6] = S1(1),		/* lstat */
	[21] = S1(1),		/* access */
	[59] = S1(1),		/* execve */
	[76] = S1(1),		/* truncate */
	[80] = S1(1),		/* chdir */
	[82] = S2(1, 2),	/* rename */
	[83] = S1(1),		/* mkdir */
	[84] = S1(1),		/* rmdir */
	[85] = S1(1),		/* creat */
	[86] = S2(1, 2),	/* link */
	[87] = S1(1),		/* unlink */
	[88] = S2(1, 2),	/* symlink */
	[89] = S1(1),		/* readlink */
	[90] = S1(1),		/* chmod */
	[92] = S1(1),		/* chown */
	[94] = S1(1),		/* lchown */
	[132] = S1(1),		/* utime */
	[133] = S1(1),		/* mknod */
	[134] = S1(1),		/* uselib */
	[137] = S1(1),		/* statfs */
	[155] = S2(1, 2),	/* pivot_root */
	[161] = S1(1),		/* chroot */
	[163] = S1(1),		/* acct */
	[165] = S2(1, 2),	/* mount */
	[166] = S1(1),		/* umount2 */
	[167] = S1(1),		/* swapon */
	[168] = S1(1),		/* swapoff */
	[176] = S1(1),		/* delete_module */
	[179] = S1(2),		/* quotactl */
	[188] = S2(1, 2),	/* setxattr */
	[189] = S2(1, 2),	/* lsetxattr */
	[190] = S1(2),		/* fsetxattr */
	[191] = S2(1, 2),	/* getxattr */
	[192] = S2(1, 2),	/* lgetxattr */
	[193] = S1(2),		/* fgetxattr */
	[194] = S1(1),		/* listxattr */
	[195] = S1(1),		/* llistxattr */
	[197] = S2(1, 2),	/* removexattr */
	[198] = S2(1, 2),	/* lremovexattr */
	[199] = S1(2),		/* fremovexattr */
	[235] = S1(1),		/* utimes */
	[240] = S1(1),		/* mq_open */
	[241] = S1(1),		/* mq_unlink */
	[248] = S2(1, 2),	/* add_key */
	[249] = S2(1, 2),	/* request_key */
	[254] = S1(2),		/* inotify_add_watch */
	[257] = S1(2),		/* openat */
	[258] = S1(2),		/* mkdirat */
	[259] = S1(2),		/* mknodat */
	[260] = S1(2),		/* fchownat */
	[261] = S1(2),		/* futimesat */
	[262] = S1(2),		/* newfstatat */
	[263] = S1(2),		/* unlinkat */
	[264] = S2(2, 4),	/* renameat */
	[265] = S2(2, 4),	/* linkat */
	[266] = S2(1, 3),	/* symlinkat */
	[267] = S1(2),		/* readlinkat */
	[268] = S1(2),		/* fchmodat */
	[269] = S1(2),		/* faccessat */
	[280] = S1(2),		/* utimensat */
	[301] = S1(5),		/* fanotify_mark */
	[303] = S1(2),		/* name_to_handle_at */
	[316] = S2(2, 4),	/* renameat2 */
	[319] = S1(1),		/* memfd_create */
	[322] = S1(2),		/* execveat */
	[332] = S1(2),		/* statx */
	[428] = S1(2),		/* open_tree */
	[429] = S2(2, 4),	/* move_mount */
	[430] = S1(1),		/* fsopen */
	[431] = S1(3),		/* fsconfig */
	[433] = S1(2),		/* fspick */
	[437] = S1(2),		/* openat2 */
	[439] = S1(2),		/* faccessat2 */
	[442] = S1(2),		/* mount_setattr */
	[452] = S1(2),		/* fchmodat2 */
	[463] = S2(2, 4),	/* setxattrat */
	[464] = S2(2, 4),	/* getxattrat */
	[465] = S1(2),		/* listxattrat */
	[466] = S2(2, 4),	/* removexattrat */
	[468] = S1(2),		/* file_getattr */
	[469] = S1(2),		/* file_setattr */
};

#undef S1
#undef S2

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

/* The instance data a syscalls probe needs (kpt_sys_compile()) */
static unsigned int kpt_sys_ri_size(const struct kpt_spec *spec)
{
	return sizeof(struct kpt_sys_data) +
	       (spec->sys.summary ? 0 : KPT_SYS_NSTR * kpt_cfg.strsize);
}

static nokprobe_inline bool kpt_sys_nr_in(const u64 *bits, unsigned int nr)
{
	return bits[nr / 64] & (1ULL << (nr % 64));
}

/*
 * @id, a number of @ns (0: none), as the initial namespace numbers it:
 * of a process (@type PIDTYPE_TGID) or a thread (PIDTYPE_PID), not a
 * number left alive only as a process group's or a session's. RCU held.
 */
static int kpt_sys_id_global(struct pid_namespace *ns, u32 *id,
			     enum pid_type type)
{
	struct pid *pid;

	if (!*id)
		return 0;
	pid = find_pid_ns(*id, ns);
	if (!pid || !pid_task(pid, type))
		return -ESRCH;
	*id = pid_nr(pid);
	return 0;
}

/**
 * kpt_sys_ids_global() - an s spec's ids as its handlers compare them
 * @spec: the spec, as parsed
 *
 * pid=, tid=, children= and exclude= are numbers of the writer's pid
 * namespace (a tool in a container writes its own pid, and the pids it
 * sees); a handler compares them with current->tgid and current->pid, the
 * initial namespace's. A writer there changes nothing (a process not yet
 * made included); in another, an id that names no process there is
 * refused: it could only have been another process's global number.
 * The probes listing shows them global. Caller holds kpt_probes_mutex.
 *
 * Return: 0, or -ESRCH.
 */
int kpt_sys_ids_global(struct kpt_spec *spec)
{
	struct pid_namespace *ns = task_active_pid_ns(current);
	struct kpt_sys_spec *sys = &spec->sys;
	int ret = 0;
	u8 i;

	if (spec->kind != KPT_SPEC_SYSCALLS || ns == &init_pid_ns)
		return 0;
	rcu_read_lock();
	for (i = 0; !ret && i < sys->npid; i++)
		ret = kpt_sys_id_global(ns, &sys->pid[i], PIDTYPE_TGID);
	for (i = 0; !ret && i < sys->ntid; i++)
		ret = kpt_sys_id_global(ns, &sys->tid[i], PIDTYPE_PID);
	if (!ret)
		ret = kpt_sys_id_global(ns, &sys->children, PIDTYPE_TGID);
	if (!ret)
		ret = kpt_sys_id_global(ns, &sys->exclude, PIDTYPE_TGID);
	rcu_read_unlock();
	return ret;
}

/*
 * An s probe's part of its program (after kpt_prog_compile()'s): its
 * selection, what the kprobe decides without a call
 * (kpt_sys_kprobe_pre()), and its records' sizes: exit and exit_group's
 * entry records, the others' returns.
 */
static void kpt_sys_compile(const struct kpt_spec *spec, struct kpt_prog *g)
{
	const struct kpt_sys_spec *sys = &spec->sys;

	g->syscalls = true;
	g->regs_only = false;
	g->nargs = spec->nargs;
	g->ret_nargs = spec->nargs;
	g->entry_size = KPT_ENTRY_SIZE(spec->nargs, spec->sys.stack);
	g->ret_size = KPT_RET_SIZE +
		      (spec->nargs + spec->sys.stack) * sizeof(u64) +
		      round_up(g->str_bytes[KPT_AT_ENTRY], 8);
	g->ri_size = kpt_sys_ri_size(spec);

	g->sys = *sys;
	if (!sys->nr_given)
		memset(g->sys.nr, 0xff, sizeof(g->sys.nr));
	memcpy(g->sys_fast_nr, g->sys.nr, sizeof(g->sys_fast_nr));
	BUILD_BUG_ON(KPT_NR_EXIT_GROUP >= KPT_SYS_NR_BITS);
	BUILD_BUG_ON(KPT_SYS_MAX_STACK > KPT_MAX_STACK);
	g->sys_fast_nr[KPT_NR_EXIT / 64] &= ~(1ULL << (KPT_NR_EXIT % 64));
	g->sys_fast_nr[KPT_NR_EXIT_GROUP / 64] &=
		~(1ULL << (KPT_NR_EXIT_GROUP % 64));
	g->sys_fast_task = !sys->ntid && !sys->comm[0] && !sys->cgroup &&
			   !sys->children;
	g->sys_ret_filter = sys->failure || sys->duration_ns;
	g->sys_ret_slow = g->sys_ret_filter || sys->stack;
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
 * Does the calling task's comm match @glob? Out of line: its copy would
 * cost every call of the selection a stack canary.
 */
static noinline bool kpt_sys_comm_match(const char *glob)
{
	char comm[TASK_COMM_LEN];

	/* a rename may be under way: a comm that ends */
	memcpy(comm, current->comm, sizeof(comm));
	comm[sizeof(comm) - 1] = '\0';
	return kpt_glob_match(glob, comm);
}
NOKPROBE_SYMBOL(kpt_sys_comm_match);

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

/*
 * The path strings of call @vals[0] into @dst, KPT_SYS_NSTR slots of
 * @max bytes, their slots (offsets from @dst) in vals[7] and [8]. Out of
 * line: its frame and stack canary would cost the calls without strings.
 */
static noinline void kpt_sys_strs_read(struct kpt_probe *p, u64 *vals,
				       char *dst, unsigned int max)
{
	unsigned int i, arg, len, which = kpt_sys_strs[vals[0]];
	u16 flags;

	for (i = 0; i < KPT_SYS_NSTR; i++, which >>= 4) {
		arg = which & 0xf;
		if (!arg) {
			vals[7 + i] = KPT_SYS_NO_STR;
			continue;
		}
		flags = KPT_STR_SYSARG_SET(arg);
		len = kpt_copy_str(dst + i * max, vals[arg], max,
				   KPT_T_USTRING, &flags);
		if (flags & KPT_STR_FAULT)
			this_cpu_inc(p->stats->str_fault);
		if (flags & KPT_STR_TRUNC)
			this_cpu_inc(p->stats->str_trunc);
		/* no bytes: where the return record has them, as is */
		vals[7 + i] = KPT_STR_SLOT(len ? i * max : KPT_SYS_RET_HDR,
					   len, flags);
	}
}
NOKPROBE_SYMBOL(kpt_sys_strs_read);

/*
 * The strings of @vals (offsets in @src) after the slots of the record at
 * @ev, whose fixed part is @hdr bytes; the slots rewritten to point there.
 * Returns the record's size.
 */
static nokprobe_inline unsigned int kpt_sys_strs_put(struct kpt_event *ev,
						     u64 *slots,
						     const char *src,
						     unsigned int hdr)
{
	unsigned int i, len, used = hdr;

	for (i = 7; i < KPT_SYS_NARGS; i++) {
		len = KPT_STR_LEN(slots[i]);
		/* most calls have none: no call of memcpy() for nothing */
		if (len)
			memcpy((char *)ev + used, src + KPT_STR_OFF(slots[i]),
			       len);
		slots[i] = KPT_STR_SLOT(used, len, KPT_STR_FLAGS(slots[i]));
		used += len;
	}
	kpt_zero_pad(ev, used);
	return round_up(used, 8);
}

/* The size of a record with @slots' strings and a fixed part of @hdr */
static nokprobe_inline unsigned int kpt_sys_size(const u64 *slots,
						 unsigned int hdr)
{
	return round_up(hdr + KPT_STR_LEN(slots[7]) + KPT_STR_LEN(slots[8]), 8);
}

/*
 * stack=: the call trace of the record at @ev into its @slots, from the
 * registers @regs of x64_sys_call()'s kprobe (@at_return: of its return),
 * or without them from the tracepoint's probe. As every kptrace trace,
 * it starts at the probed address: x64_sys_call, then its caller.
 */
static nokprobe_inline void kpt_sys_stack(struct kpt_probe *p,
					  struct kpt_event *ev,
					  struct pt_regs *regs, bool at_return,
					  u64 *slots)
{
	unsigned int n = 0, max = p->prog.sys.stack;
	unsigned long ip;

	if (regs) {
		slots[n++] = (unsigned long)p->rp.kp.addr;
		if (at_return) {
			/* the caller's, which the unwinder steps over */
			ip = kpt_kretprobe_ret_ip(regs);
			if (!ip || n == max) {
				kpt_stack_cut(p, ev, n);
				return;
			}
			slots[n++] = ip;
		}
	}
	kpt_stack_record(p, ev, regs, slots, n, max);
}

/*
 * exit and exit_group: an entry record now, as they never return. @regs:
 * the kprobe's, for stack=; NULL from the tracepoint.
 */
static nokprobe_inline void kpt_sys_exit_record(struct kpt_probe *p,
						const struct pt_regs *u,
						unsigned int nr,
						struct pt_regs *regs)
{
	unsigned int hdr = KPT_ENTRY_SIZE(KPT_SYS_NARGS, p->prog.sys.stack);
	struct kpt_event *ev;
	struct kpt_wr w;
	u64 ts = kpt_probe_now(p);

	if (!kpt_reserve(p, &w, hdr))
		return;
	ev = w.ev;
	/* in the task, even from an int3 kprobe (NMI count set) */
	kpt_fill_header(ev, KPT_EV_ENTRY, p, ts, KPT_SYS_NARGS, true);
	kpt_sys_args(u, nr, ev->data);
	if (p->prog.sys.stack)
		kpt_sys_stack(p, ev, regs, false, ev->data + KPT_SYS_NARGS);
	hdr = KPT_ENTRY_SIZE(KPT_SYS_NARGS, ev->nr_stack);
	ev->data[7] = KPT_STR_SLOT(hdr, 0, 0);
	ev->data[8] = KPT_STR_SLOT(hdr, 0, 0);
	kpt_ring_commit(&w, ev, hdr);
}

/*
 * summary: no record per call, but per CPU a table of KPT_IOC_SYSSUM's
 * entries by (process, call), in two halves: the handlers add to half
 * cur, a reader flips cur, waits for the handlers that may still add to
 * the other (they run with preemption disabled: an RCU read side), reads
 * it and zeroes it. Only the calls of one CPU, one at a time, touch a
 * CPU's half: no atomics. A (process, call) that finds no room within
 * KPT_SYS_SUM_PROBE slots of its hash is counted as full.
 */
#define KPT_SYS_SUM_PROBE	16

struct kpt_sys_sum {
	unsigned int		bits;	/* log2 of the entries per half */
	unsigned int		cur;	/* the half the handlers add to */
	/* per CPU, on its node: [2][1 << bits] entries, then u64 full[2] */
	struct kpt_syssum_entry	**tab;
};

static nokprobe_inline struct kpt_syssum_entry *
kpt_sys_sum_half(struct kpt_sys_sum *sm, unsigned int cpu, unsigned int half)
{
	return sm->tab[cpu] + ((size_t)half << sm->bits);
}

/* The calls of a CPU's half that found no room */
static nokprobe_inline u64 *kpt_sys_sum_full(struct kpt_sys_sum *sm,
					     unsigned int cpu,
					     unsigned int half)
{
	return (u64 *)(sm->tab[cpu] + ((size_t)2 << sm->bits)) + half;
}

/*
 * @w[1]:@w[0] += @v * @v, in 128 bits: one mulq, as an unsigned __int128
 * would have its handler realign the stack for a 16-byte spill
 */
static nokprobe_inline void kpt_sys_sq_add(u64 *w, u64 v)
{
	u64 lo, hi;

	asm("mulq %[v]" : "=a" (lo), "=d" (hi) : "a" (v), [v] "rm" (v));
	w[0] += lo;
	w[1] += hi + (w[0] < lo);
}

/* A free entry @e taken by (@tgid, @nr) */
static nokprobe_inline void kpt_sys_sum_claim(struct kpt_syssum_entry *e,
					      u32 tgid, unsigned int nr)
{
	e->pid = tgid;
	e->nr = nr;
	memcpy(e->comm, current->comm, sizeof(e->comm));
	e->comm[sizeof(e->comm) - 1] = '\0';
	e->min_ns = U64_MAX;
}

/*
 * The entry of (@tgid, @nr) in this CPU's half @t: found, or with @claim
 * a free one taken, within KPT_SYS_SUM_PROBE slots of its hash (a table
 * has 16 at least: summary= is 16 to 65536); NULL when none is left, or
 * without @claim when it is not there yet.
 */
static nokprobe_inline struct kpt_syssum_entry *
kpt_sys_sum_entry(struct kpt_syssum_entry *t, unsigned int bits, u32 tgid,
		  unsigned int nr, bool claim)
{
	unsigned int mask = (1U << bits) - 1, h, i;
	struct kpt_syssum_entry *e;

	h = hash_64((u64)tgid << 32 | nr, bits);
	for (i = 0; i < KPT_SYS_SUM_PROBE; i++) {
		e = &t[(h + i) & mask];
		if (likely(e->pid == tgid && e->nr == nr && e->calls))
			return e;
		if (!e->calls) {
			if (!claim)
				return NULL;
			kpt_sys_sum_claim(e, tgid, nr);
			return e;
		}
	}
	return NULL;
}

/* One more call in entry @e: @retval, @lat ns */
static nokprobe_inline void kpt_sys_sum_count(struct kpt_syssum_entry *e,
					      long retval, u64 lat)
{
	e->calls++;
	e->errors += IS_ERR_VALUE(retval);
	e->total_ns += lat;
	e->min_ns = min(e->min_ns, lat);
	e->max_ns = max(e->max_ns, lat);
	kpt_sys_sq_add(e->sumsq_ns, lat);
	/* upper bounds in: 1024 ns is [0], 1025 [1] (uapi/kptrace.h) */
	e->lat_log2[min_t(unsigned int,
			  fls64((lat - !!lat) >> KPT_SYS_SUM_SHIFT),
			  KPT_SYS_SUM_BUCKETS - 1)]++;
}

/*
 * Call @nr of the calling task in @p's summary: false if its entry is not
 * found (without @claim) or none is left (with @claim, counted as full).
 * A reader may flip cur meanwhile: one half for the search and the count.
 */
static nokprobe_inline bool kpt_sys_sum_try(struct kpt_probe *p,
					    unsigned int nr, long retval,
					    u64 lat, bool claim)
{
	struct kpt_sys_sum *sm = p->sys_sum;
	unsigned int cpu = smp_processor_id(), half = READ_ONCE(sm->cur);
	struct kpt_syssum_entry *e;

	e = kpt_sys_sum_entry(kpt_sys_sum_half(sm, cpu, half), sm->bits,
			      current->tgid, nr, claim);
	if (unlikely(!e)) {
		if (claim) {
			(*kpt_sys_sum_full(sm, cpu, half))++;
			this_cpu_inc(p->stats->sum_full);
		}
		return false;
	}
	kpt_sys_sum_count(e, retval, lat);
	return true;
}

/*
 * Call @nr in @p's summary, taking a free entry, or counted as full: out
 * of line, once an interval per (process, call)
 */
static noinline void kpt_sys_sum_add_slow(struct kpt_probe *p,
					  unsigned int nr, long retval,
					  u64 lat)
{
	kpt_sys_sum_try(p, nr, retval, lat, true);
}
NOKPROBE_SYMBOL(kpt_sys_sum_add_slow);

/*
 * Call @nr of the calling task in @p's summary. Its entry is found in
 * line; taking a free one is kpt_sys_sum_add_slow()'s, so that the common
 * path keeps nothing across a call.
 */
static nokprobe_inline void kpt_sys_sum_add(struct kpt_probe *p,
					    unsigned int nr, long retval,
					    u64 lat)
{
	if (unlikely(!kpt_sys_sum_try(p, nr, retval, lat, false)))
		kpt_sys_sum_add_slow(p, nr, retval, lat);
}

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
 * exit and exit_group, selected: they never return, so they are decided
 * now (neither a failure nor a duration: filtered by either) and take
 * nothing for a return. Out of line: reached from kpt_sys_kprobe_rare(),
 * the late selection and the tracepoint's sys_enter.
 */
static noinline void kpt_sys_exit_call(struct kpt_probe *p,
				       const struct pt_regs *u,
				       unsigned int nr, struct pt_regs *regs)
{
	this_cpu_inc(p->stats->calls);
	this_cpu_inc(p->stats->hits);
	if (p->prog.sys_ret_filter)
		this_cpu_inc(p->stats->filtered);
	else if (p->sys_sum)
		kpt_sys_sum_add(p, nr, 0, 0);
	else
		kpt_sys_exit_record(p, u, nr, regs);
}
NOKPROBE_SYMBOL(kpt_sys_exit_call);

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

/*
 * The return record of a selected call: @retval at @ts, @lat ns after
 * its entry; with the path strings its entry kept if @strs; with its
 * call trace if stack=, unwound from @regs (kpt_sys_stack()).
 */
static nokprobe_inline void kpt_sys_record(struct kpt_probe *p,
					   const struct kpt_sys_data *d,
					   long retval, u64 ts, u64 lat,
					   bool strs, struct pt_regs *regs)
{
	unsigned int nstack = p->prog.sys.stack;
	unsigned int hdr = KPT_SYS_RET_HDR, size = hdr + nstack * sizeof(u64);
	struct kpt_event *ev;
	struct kpt_wr w;

	if (strs)
		size = kpt_sys_size(d->vals, size);
	if (!kpt_reserve(p, &w, size))
		return;
	ev = w.ev;
	kpt_sys_fill(ev, p, d, retval, ts, lat);
	if (nstack) {
		kpt_sys_stack(p, ev, regs, true,
			      ev->data + KPT_RET_SLOTS + KPT_SYS_NARGS);
		hdr += ev->nr_stack * sizeof(u64);
	}
	/* the slots point past the stack, even those of no bytes */
	if (strs || nstack)
		size = kpt_sys_strs_put(ev, ev->data + KPT_RET_SLOTS, d->strs,
					hdr);
	kpt_ring_commit(&w, ev, size);
}

/* Did the entry of @d keep a path string? Most calls have none. */
static nokprobe_inline bool kpt_sys_has_strs(const struct kpt_sys_data *d)
{
	return KPT_STR_LEN(d->vals[7]) | KPT_STR_LEN(d->vals[8]);
}

/*
 * The return of a selected call, counted in hits: @retval at @ts, @lat
 * ns after its entry. failure and duration=, then its record (strings
 * and all) or its summary's entry. The tracepoints' way, and the
 * kretprobe's rare paths, out of line: the common one keeps nothing
 * across a call.
 */
static noinline void kpt_sys_exit_slow(struct kpt_probe *p,
				       const struct kpt_sys_data *d,
				       long retval, u64 ts, u64 lat,
				       struct pt_regs *regs)
{
	const struct kpt_sys_spec *sys = &p->prog.sys;

	if ((sys->failure && !IS_ERR_VALUE(retval)) ||
	    (sys->duration_ns && lat <= sys->duration_ns))
		this_cpu_inc(p->stats->filtered);
	else if (p->sys_sum)
		kpt_sys_sum_add(p, d->vals[0], retval, lat);
	else
		kpt_sys_record(p, d, retval, ts, lat, kpt_sys_has_strs(d),
			       regs);
}
NOKPROBE_SYMBOL(kpt_sys_exit_slow);

/*
 * Set while the kprobe (kpt_sys_pre()) runs the kretprobe's pre-handler
 * for a call it selected: the entry handler then need not select again. Kprobe
 * handlers do not nest on a CPU (a hit inside one is a miss), so the
 * flag is this call's.
 */
static DEFINE_PER_CPU(bool, kpt_sys_preselected);

/*
 * A selected call (not exit*): the kretprobe's own pre-handler
 * (p->sys_pre), which takes an instance and calls the entry handler
 */
static nokprobe_inline int kpt_sys_pre(struct kpt_probe *p,
				       struct pt_regs *regs)
{
	kprobe_pre_handler_t pre = READ_ONCE(p->sys_pre);
	int ret;

	__this_cpu_write(kpt_sys_preselected, true);
	ret = pre(&p->rp.kp, regs);
	__this_cpu_write(kpt_sys_preselected, false);
	return ret;
}

/*
 * kpt_sys_kprobe_pre()'s rare calls, out of line: exit and exit_group,
 * which never return, recorded here, taking no instance; numbers past
 * KPT_SYS_NR_BITS (which x64_sys_call never sees: past the kernel's
 * table); and every call of a probe that selects by tid=, comm=,
 * cgroup= or children=.
 */
static noinline int kpt_sys_kprobe_rare(struct kpt_probe *p,
					struct pt_regs *regs,
					unsigned int nr)
{
	if (!kpt_sys_select(p, nr))
		return 0;
	if (kpt_sys_is_exit(nr)) {
		kpt_sys_exit_call(p, (const struct pt_regs *)regs->di, nr,
				  regs);
		return 0;
	}
	return kpt_sys_pre(p, regs);
}
NOKPROBE_SYMBOL(kpt_sys_kprobe_rare);

/*
 * x64_sys_call(regs, nr)'s kprobe: the selection, and only for a selected
 * call the kretprobe's own pre-handler. An unselected call so pays the
 * kprobe and the selection, not the instance's get and put (two atomics
 * on the pool, a third of its cost before). The number's bit, exclude=
 * and pid= are decided here, the rest by a tail call to
 * kpt_sys_kprobe_rare(): nothing is kept across a call, so no register
 * is saved (but where frame pointers forbid the tail call).
 */
static int kpt_sys_kprobe_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct kpt_probe *p = container_of(kp, struct kpt_probe, rp.kp);
	const struct kpt_prog *g = &p->prog;
	unsigned int nr = (unsigned int)regs->si;

	if (unlikely(nr >= KPT_SYS_NR_BITS))
		return kpt_sys_kprobe_rare(p, regs, nr);
	if (unlikely(!kpt_sys_nr_in(g->sys_fast_nr, nr))) {
		if (kpt_sys_nr_in(g->sys.nr, nr))
			return kpt_sys_kprobe_rare(p, regs, nr); /* exit* */
		goto unselected;
	}
	if (unlikely(!g->sys_fast_task))
		return kpt_sys_kprobe_rare(p, regs, nr);
	if (kpt_sys_left_out(&g->sys))
		goto unselected;
	return kpt_sys_pre(p, regs);

unselected:
	this_cpu_inc(p->stats->unselected);
	return 0;
}
NOKPROBE_SYMBOL(kpt_sys_kprobe_pre);

/*
 * The entry of a call that came through the kretprobe's pre-handler
 * alone (armed, not yet wrapped: kpt_sys_kretprobe_wrap()): selected
 * here. Out of line, as it is rare: nonzero gives the instance back.
 */
static noinline int kpt_sys_entry_late(struct kpt_probe *p,
				       struct kretprobe_instance *ri,
				       struct pt_regs *regs, u64 ts)
{
	unsigned int nr = (unsigned int)regs->si;
	const struct pt_regs *u = (const struct pt_regs *)regs->di;

	if (!kpt_sys_select(p, nr))
		return 1;
	if (kpt_sys_is_exit(nr)) {
		kpt_sys_exit_call(p, u, nr, regs);
		return 1;
	}
	kpt_sys_begin(p, u, nr, (struct kpt_sys_data *)ri->data, ts,
		      !p->sys_sum);
	return 0;
}
NOKPROBE_SYMBOL(kpt_sys_entry_late);

/* A call's entry at @ts: kpt_sys_entry()'s */
static nokprobe_inline int kpt_sys_entry_at(struct kpt_probe *p,
					    struct kretprobe_instance *ri,
					    struct pt_regs *regs, u64 ts,
					    bool strs)
{
	if (unlikely(!__this_cpu_read(kpt_sys_preselected)))
		return kpt_sys_entry_late(p, ri, regs, ts);
	kpt_sys_begin(p, (const struct pt_regs *)regs->di,
		      (unsigned int)regs->si, (struct kpt_sys_data *)ri->data,
		      ts, strs);
	return 0;
}

/* kpt_sys_entry()'s when the clock's fast path cannot: out of line */
static noinline int kpt_sys_entry_clock(struct kpt_probe *p,
					struct kretprobe_instance *ri,
					struct pt_regs *regs, bool strs)
{
	return kpt_sys_entry_at(p, ri, regs, kpt_probe_now_slow(p), strs);
}
NOKPROBE_SYMBOL(kpt_sys_entry_clock);

/*
 * A call's entry, with an instance: nonzero gives it back. The time is
 * read as soon as the probe (its session's clock) is known; the clock's
 * slow path leaves by a tail call, so that nothing lives across a call;
 * @strs: records keep path strings, a summary none.
 */
static nokprobe_inline int kpt_sys_entry(struct kretprobe_instance *ri,
					 struct pt_regs *regs, bool strs)
{
	struct kpt_probe *p;
	u64 ts;

	if (unlikely(!kpt_ri_probe(ri, &p)))
		return 1;	/* being unregistered: no instance */
	if (unlikely(!kpt_probe_now_try(p, &ts)))
		return kpt_sys_entry_clock(p, ri, regs, strs);
	return kpt_sys_entry_at(p, ri, regs, ts, strs);
}

/*
 * A call's return at @ts: its record, or with @summary its summary's
 * entry. failure, duration=, stack=, path strings and a ring with no room
 * where its head is (or a write under way) take kpt_sys_exit_slow().
 */
static nokprobe_inline void kpt_sys_return_at(struct kpt_probe *p,
					      struct kretprobe_instance *ri,
					      struct pt_regs *regs, u64 ts,
					      bool summary)
{
	const struct kpt_sys_data *d = (const struct kpt_sys_data *)ri->data;
	struct kpt_wr w;
	long retval;
	u64 lat;

	this_cpu_inc(p->stats->hits);
	retval = (long)regs_return_value(regs);
	lat = kpt_clock_since(d->entry_ts, ts);
	if (unlikely(p->prog.sys_ret_slow ||
		     (!summary && kpt_sys_has_strs(d)))) {
		kpt_sys_exit_slow(p, d, retval, ts, lat, regs);
		return;
	}
	if (summary) {
		kpt_sys_sum_add(p, d->vals[0], retval, lat);
		return;
	}
	/* no room where head is, or a write under way: the slow path */
	if (unlikely(!kpt_ring_try(&w, kpt_probe_ring(p),
				   KPT_SYS_RET_HDR))) {
		kpt_sys_exit_slow(p, d, retval, ts, lat, regs);
		return;
	}
	kpt_sys_fill(w.ev, p, d, retval, ts, lat);
	kpt_ring_commit(&w, w.ev, KPT_SYS_RET_HDR);
}

/* kpt_sys_return()'s when the clock's fast path cannot: out of line */
static noinline void kpt_sys_return_clock(struct kpt_probe *p,
					  struct kretprobe_instance *ri,
					  struct pt_regs *regs, bool summary)
{
	kpt_sys_return_at(p, ri, regs, kpt_probe_now_slow(p), summary);
}
NOKPROBE_SYMBOL(kpt_sys_return_clock);

/*
 * A call's return: the time read as soon as the probe (its session's
 * clock) is known, its slow path by a tail call, as kpt_sys_entry()'s.
 */
static nokprobe_inline void kpt_sys_return(struct kretprobe_instance *ri,
					   struct pt_regs *regs, bool summary)
{
	struct kpt_probe *p;
	u64 ts;

	if (unlikely(!kpt_ri_probe(ri, &p)))
		return;
	if (unlikely(!kpt_probe_now_try(p, &ts))) {
		kpt_sys_return_clock(p, ri, regs, summary);
		return;
	}
	kpt_sys_return_at(p, ri, regs, ts, summary);
}

/*
 * The handlers, one pair for records and one for a summary
 * (kpt_sys_set_handlers()): neither carries the other's code.
 */
static int kpt_sys_kretprobe_entry(struct kretprobe_instance *ri,
				   struct pt_regs *regs)
{
	return kpt_sys_entry(ri, regs, true);
}
NOKPROBE_SYMBOL(kpt_sys_kretprobe_entry);

static int kpt_sys_kretprobe_return(struct kretprobe_instance *ri,
				    struct pt_regs *regs)
{
	kpt_sys_return(ri, regs, false);
	return 0;
}
NOKPROBE_SYMBOL(kpt_sys_kretprobe_return);

static int kpt_sys_kretprobe_entry_sum(struct kretprobe_instance *ri,
				       struct pt_regs *regs)
{
	return kpt_sys_entry(ri, regs, false);
}
NOKPROBE_SYMBOL(kpt_sys_kretprobe_entry_sum);

static int kpt_sys_kretprobe_return_sum(struct kretprobe_instance *ri,
					struct pt_regs *regs)
{
	kpt_sys_return(ri, regs, true);
	return 0;
}
NOKPROBE_SYMBOL(kpt_sys_kretprobe_return_sum);

/*
 * The tracepoints' way: the raw_syscalls pair, matched by task in
 * buckets of KPT_SYS_WAYS slots. A slot is a task's from the cmpxchg() of
 * its task_struct pointer into it at sys_enter to the release store of 0
 * at its sys_exit; only that task touches its data in between (a task
 * makes one call at a time). The task pointer, not the tid, is the key:
 * a thread that execs from a non-leader thread takes the leader's tid
 * but stays the same task. The task's start time is kept beside it, so
 * that a slot left by a call whose sys_exit never came (the probe armed
 * between the two) is not taken for a later task at the same address:
 * that task takes it over at its next call. Such an exec also gives the
 * thread the leader's start time: its slot is then known by the execve
 * in it and the leader's start being earlier than the slot's. live
 * counts the slots taken, so that the sys_exit of an unselected task
 * looks at nothing while no call is in flight.
 *
 * The tracepoints fire for 32-bit (ia32, x32) calls too, with their own
 * numbers and registers: those are left out, as x64_sys_call never sees
 * them. From 6.13 the syscall tracepoints may fault, and their probes
 * run preemptible: the handlers disable preemption themselves, as ftrace
 * and perf do, for the ring, the per-CPU counts and the RCU walks.
 */
#define KPT_SYS_WAYS		8

struct kpt_sys_slot {
	unsigned long		task;	/* 0: free */
	u64			start;	/* the task's start_time */
	u64			exec_id; /* its self_exec_id */
	/* then struct kpt_sys_data and its strings */
};

struct kpt_sys_tp {
	struct tracepoint	*enter;
	struct tracepoint	*exit;
	unsigned int		bits;	/* log2 of the buckets */
	unsigned int		slot_size;
	char			*slots;
	atomic_long_t		missed;	/* a bucket was full */
	/* written by every traced call: a line of its own */
	atomic_t		live ____cacheline_aligned;
};

/* The slots a tracepoints' probe of @maxactive calls in flight has */
static unsigned long kpt_sys_tp_slots(unsigned int maxactive,
				      unsigned int *bits)
{
	/* twice the calls in flight, in buckets of KPT_SYS_WAYS */
	*bits = ilog2(roundup_pow_of_two(max_t(unsigned int, 2,
					       2 * maxactive / KPT_SYS_WAYS)));
	return (unsigned long)KPT_SYS_WAYS << *bits;
}

static unsigned int kpt_sys_slot_size(bool strs)
{
	return round_up(sizeof(struct kpt_sys_slot) +
			sizeof(struct kpt_sys_data) +
			(strs ? KPT_SYS_NSTR * kpt_cfg.strsize : 0), 8);
}

/* What the tracepoints' way of @maxactive takes, for the accounting */
static u64 kpt_sys_tp_bytes(const struct kpt_spec *spec,
			    unsigned int maxactive)
{
	unsigned int bits;

	return (u64)kpt_sys_tp_slots(maxactive, &bits) *
	       kpt_sys_slot_size(!spec->sys.summary);
}

static nokprobe_inline struct kpt_sys_slot *
kpt_sys_slot_at(struct kpt_sys_tp *tp, unsigned long task, unsigned int way)
{
	unsigned long i = hash_long(task, tp->bits) * KPT_SYS_WAYS + way;

	return (struct kpt_sys_slot *)(tp->slots + i * tp->slot_size);
}

static nokprobe_inline struct kpt_sys_data *
kpt_sys_slot_data(struct kpt_sys_slot *s)
{
	return (struct kpt_sys_data *)(s + 1);
}

/* The calling task's slot, taken for a new call (a stale one reused) */
static nokprobe_inline struct kpt_sys_slot *
kpt_sys_slot_take(struct kpt_sys_tp *tp)
{
	unsigned long task = (unsigned long)current;
	struct kpt_sys_slot *s;
	unsigned int way;

	for (way = 0; way < KPT_SYS_WAYS; way++) {
		s = kpt_sys_slot_at(tp, task, way);
		if (READ_ONCE(s->task) == task)
			goto mine;	/* left by a call without a sys_exit */
	}
	for (way = 0; way < KPT_SYS_WAYS; way++) {
		s = kpt_sys_slot_at(tp, task, way);
		if (!READ_ONCE(s->task) && !cmpxchg(&s->task, 0, task)) {
			atomic_inc(&tp->live);
			goto mine;
		}
	}
	return NULL;
mine:
	s->start = current->start_time;
	s->exec_id = current->self_exec_id;
	return s;
}

/* Whether @s holds an execve or execveat */
static nokprobe_inline bool kpt_sys_slot_is_exec(const struct kpt_sys_slot *s)
{
	u64 nr = kpt_sys_slot_data((struct kpt_sys_slot *)s)->vals[0];

	return nr == __NR_execve || nr == __NR_execveat;
}

/* Whether the execve or execveat in @s exec'ed: the exec count one up */
static nokprobe_inline bool kpt_sys_slot_execed(const struct kpt_sys_slot *s)
{
	return kpt_sys_slot_is_exec(s) &&
	       current->self_exec_id == s->exec_id + 1;
}

static nokprobe_inline struct kpt_sys_slot *
kpt_sys_slot_find(struct kpt_sys_tp *tp)
{
	unsigned long task = (unsigned long)current;
	struct kpt_sys_slot *s;
	unsigned int way;

	if (!atomic_read(&tp->live))
		return NULL;
	for (way = 0; way < KPT_SYS_WAYS; way++) {
		s = kpt_sys_slot_at(tp, task, way);
		/*
		 * An exec from a thread other than the leader gave it the
		 * leader's start, earlier than its own (de_thread()), even
		 * when the exec fails after that; a stale slot of a task
		 * whose address was reused is older
		 */
		if (READ_ONCE(s->task) == task &&
		    (s->start == current->start_time ||
		     (s->start > current->start_time &&
		      kpt_sys_slot_is_exec(s))))
			return s;
	}
	return NULL;
}

static nokprobe_inline void kpt_sys_tp_enter_at(struct kpt_probe *p,
						struct pt_regs *regs,
						unsigned int nr)
{
	struct kpt_sys_tp *tp = p->sys_tp;
	struct kpt_sys_slot *s;

	if (in_compat_syscall() || !kpt_sys_select(p, nr))
		return;
	if (unlikely(kpt_sys_is_exit(nr))) {
		kpt_sys_exit_call(p, regs, nr, NULL);
		return;
	}
	s = kpt_sys_slot_take(tp);
	if (unlikely(!s)) {
		/* as a kretprobe out of instances: the handler never runs */
		atomic_long_inc(&tp->missed);
		return;
	}
	kpt_sys_begin(p, regs, nr, kpt_sys_slot_data(s),
		      kpt_probe_now(p), !p->sys_sum);
}

static void kpt_sys_tp_enter(void *data, struct pt_regs *regs, long id)
{
	preempt_disable_notrace();
	kpt_sys_tp_enter_at(data, regs, (unsigned int)id);
	preempt_enable_notrace();
}
NOKPROBE_SYMBOL(kpt_sys_tp_enter);

static nokprobe_inline void kpt_sys_tp_exit_at(struct kpt_probe *p, long ret)
{
	struct kpt_sys_tp *tp = p->sys_tp;
	const struct kpt_sys_data *d;
	struct kpt_sys_slot *s;
	u64 ts;

	/*
	 * The compat test comes after the slot: a 64-bit execve of a 32-bit
	 * program comes back compat (TS_COMPAT, or x32's bit in orig_ax),
	 * and its slot must end. Any other compat call took no slot.
	 */
	s = kpt_sys_slot_find(tp);
	if (!s)
		return;		/* entered before the probe, or unselected */
	/* a compat exit ends an exec into a 32-bit program only */
	if (in_compat_syscall() && !kpt_sys_slot_execed(s))
		return;
	d = kpt_sys_slot_data(s);
	ts = kpt_probe_now(p);
	this_cpu_inc(p->stats->hits);
	kpt_sys_exit_slow(p, d, ret, ts, kpt_clock_since(d->entry_ts, ts),
			  NULL);
	/* the data is read before the slot is free for another task */
	smp_store_release(&s->task, 0);
	atomic_dec(&tp->live);
}

static void kpt_sys_tp_exit(void *data, struct pt_regs *regs, long ret)
{
	preempt_disable_notrace();
	kpt_sys_tp_exit_at(data, ret);
	preempt_enable_notrace();
}
NOKPROBE_SYMBOL(kpt_sys_tp_exit);

static void kpt_sys_tp_find(struct tracepoint *tp, void *priv)
{
	struct kpt_sys_tp *t = priv;

	if (!strcmp(tp->name, "sys_enter"))
		t->enter = tp;
	else if (!strcmp(tp->name, "sys_exit"))
		t->exit = tp;
}

/*
 * Arm @p on the raw_syscalls tracepoints, with @maxactive calls in
 * flight at most. Returns 0 or an error; -ENOENT when the kernel has
 * neither attach point.
 */
static int kpt_sys_tp_arm(struct kpt_probe *p, unsigned int maxactive)
{
	struct kpt_sys_tp *tp = p->sys_tp;
	unsigned long nslots;
	int ret;

	if (!tp) {
		tp = kzalloc(sizeof(*tp), GFP_KERNEL);
		if (!tp)
			return -ENOMEM;
		for_each_kernel_tracepoint(kpt_sys_tp_find, tp);
		if (!tp->enter || !tp->exit) {
			kfree(tp);
			return -ENOENT;
		}
		nslots = kpt_sys_tp_slots(maxactive, &tp->bits);
		tp->slot_size = kpt_sys_slot_size(!p->prog.sys.summary);
		tp->slots = kvcalloc(nslots, tp->slot_size, GFP_KERNEL);
		if (!tp->slots) {
			kfree(tp);
			return -ENOMEM;
		}
		p->sys_tp = tp;
	}
	/* the exit first: no call is entered that no exit would end */
	ret = tracepoint_probe_register(tp->exit, kpt_sys_tp_exit, p);
	if (ret)
		return ret;
	ret = tracepoint_probe_register(tp->enter, kpt_sys_tp_enter, p);
	if (ret) {
		tracepoint_probe_unregister(tp->exit, kpt_sys_tp_exit, p);
		tracepoint_synchronize_unregister();
	}
	return ret;
}

/*
 * After this, no handler of @p runs or will run; with @batch, after
 * kpt_probes_disarm_all(), which waits once for every probe of the batch
 */
static void kpt_sys_tp_disarm(struct kpt_probe *p,
			      struct kpt_disarm_batch *batch)
{
	int e1, e2;

	/* both, whatever the first says */
	e1 = tracepoint_probe_unregister(p->sys_tp->enter, kpt_sys_tp_enter, p);
	e2 = tracepoint_probe_unregister(p->sys_tp->exit, kpt_sys_tp_exit, p);
	if (e1 || e2)
		pr_warn("%s: the raw_syscalls tracepoints refused an unregister\n",
			p->spec->name);
	if (batch)
		batch->tracepoints = true;
	else
		tracepoint_synchronize_unregister();
}

static void kpt_sys_tp_free(struct kpt_probe *p)
{
	if (!p->sys_tp)
		return;
	kvfree(p->sys_tp->slots);
	kfree(p->sys_tp);
	p->sys_tp = NULL;
}

/* Calls the tracepoints' way missed: their bucket was full */
unsigned long kpt_sys_tp_missed(const struct kpt_probe *p)
{
	return p->sys_tp ? atomic_long_read(&p->sys_tp->missed) : 0;
}

static void kpt_sys_set_handlers(struct kpt_probe *p)
{
	bool sum = p->sys_sum;	/* made with the probe, before any arm */

	p->rp.entry_handler = sum ? kpt_sys_kretprobe_entry_sum :
				    kpt_sys_kretprobe_entry;
	p->rp.handler = sum ? kpt_sys_kretprobe_return_sum :
			      kpt_sys_kretprobe_return;
}

/*
 * Put the selection ahead of the pre-handler register_kretprobe() gave
 * @p's kprobe (every kernel gives a kretprobe's kprobe one, which takes
 * the instance and calls the entry handler). The kprobe is armed already
 * (registering it disabled would leave it so while kprobes are disarmed
 * globally, debugfs kprobes/enabled): a hit that still finds the old
 * pre-handler, here or on another CPU, is selected by the entry handler.
 * sys_pre is stored before the wrapper that reads it. Unregistering is
 * the kretprobe's as ever.
 */
static void kpt_sys_kretprobe_wrap(struct kpt_probe *p)
{
	WRITE_ONCE(p->sys_pre, p->rp.kp.pre_handler);
	/* sys_pre before the wrapper: pairs with the hit's call of it */
	smp_wmb();
	WRITE_ONCE(p->rp.kp.pre_handler, kpt_sys_kprobe_pre);
}

/* The bytes of one CPU's summary tables */
static size_t kpt_sys_sum_cpu_bytes(unsigned int bits)
{
	return ((size_t)2 << bits) * sizeof(struct kpt_syssum_entry) +
	       2 * sizeof(u64);
}

/* The bytes a summary of @spec takes */
static u64 kpt_sys_sum_bytes(const struct kpt_spec *spec)
{
	if (!spec->sys.summary)
		return 0;
	return (u64)nr_cpu_ids *
	       kpt_sys_sum_cpu_bytes(ilog2(roundup_pow_of_two(spec->sys.summary)));
}

static void kpt_sys_sum_free(struct kpt_probe *p)
{
	unsigned int cpu;

	if (!p->sys_sum)
		return;
	for_each_possible_cpu(cpu)
		kvfree(p->sys_sum->tab[cpu]);
	kfree(p->sys_sum->tab);
	kfree(p->sys_sum);
	p->sys_sum = NULL;
}

/* @p's summary, if its spec asks for one */
static int kpt_sys_sum_new(struct kpt_probe *p)
{
	unsigned int n = p->spec->sys.summary, cpu;
	struct kpt_sys_sum *sm;

	if (!n)
		return 0;
	sm = kzalloc(sizeof(*sm), GFP_KERNEL);
	if (!sm)
		return -ENOMEM;
	p->sys_sum = sm;
	sm->bits = ilog2(roundup_pow_of_two(n));
	sm->tab = kcalloc(nr_cpu_ids, sizeof(*sm->tab), GFP_KERNEL);
	if (!sm->tab)
		goto nomem;
	for_each_possible_cpu(cpu) {
		sm->tab[cpu] = kvmalloc_node(kpt_sys_sum_cpu_bytes(sm->bits),
					     GFP_KERNEL | __GFP_ZERO,
					     cpu_to_node(cpu));
		if (!sm->tab[cpu])
			goto nomem;
	}
	return 0;
nomem:
	kpt_sys_sum_free(p);
	return -ENOMEM;
}

/*
 * Return instances of @p: its MAXACTIVE, else, as each traced task
 * blocked in a call holds one, as many as 16 MiB of its data hold,
 * maxactive= to KPT_SYS_MAXACTIVE.
 */
static unsigned int kpt_sys_maxactive(const struct kpt_probe *p)
{
	if (p->spec->maxactive)
		return p->spec->maxactive;
	return clamp_t(unsigned long, (16UL << 20) / p->prog.ri_size,
		       kpt_cfg.maxactive, KPT_SYS_MAXACTIVE);
}

/* Its instances, or the tracepoints' slots in their place; its summary */
static u64 kpt_sys_mem(const struct kpt_probe *p)
{
	return max(kpt_kretprobe_mem(p),
		   kpt_sys_tp_bytes(p->spec, kpt_sys_maxactive(p))) +
	       kpt_sys_sum_bytes(p->spec);
}

static int kpt_sys_check(const struct kpt_probe *p, const char **why)
{
	int ret = kpt_kretprobe_check(p, why);

	/* a summary's read takes one half of its tables in one kvmalloc() */
	if (!ret && kpt_sys_sum_bytes(p->spec) / 2 > INT_MAX) {
		*why = "summary= on this many CPUs: a read would pass 2 GiB";
		ret = -E2BIG;
	}
	return ret;
}

/*
 * A kretprobe on x64_sys_call, its selection ahead of its pre-handler;
 * without x64_sys_call, the raw_syscalls tracepoints (kernels before
 * v5.11 say -EINVAL for a symbol that is not there)
 */
static int kpt_sys_arm(struct kpt_probe *p)
{
	int ret;

	kpt_kretprobe_prepare(p);
	kpt_sys_set_handlers(p);
	ret = register_kretprobe(&p->rp);
	if (!ret) {
		kpt_sys_kretprobe_wrap(p);
		return 0;
	}
	if (ret != -ENOENT && ret != -EINVAL)
		return ret;
	pr_info("%s: no kretprobe on x64_sys_call (%d): on the raw_syscalls tracepoints\n",
		p->spec->name, ret);
	return kpt_sys_tp_arm(p, p->rp.maxactive);
}

static void kpt_sys_disarm(struct kpt_probe *p,
			   struct kpt_disarm_batch *batch)
{
	if (p->sys_tp)
		kpt_sys_tp_disarm(p, batch);
	else
		kpt_kretprobe_disarm(p, batch);
}

static void kpt_sys_free(struct kpt_probe *p)
{
	kpt_sys_tp_free(p);
	kpt_sys_sum_free(p);
}

static const char kpt_sys_no_attach[] =
	"neither x64_sys_call nor the raw_syscalls tracepoints: s probes cannot attach";

static const char *kpt_sys_arm_error(const struct kpt_probe *p, int err)
{
	return err == -ENOENT ? kpt_sys_no_attach : NULL;
}

static void kpt_sys_show(struct seq_file *m, struct kpt_probe *p, char *buf)
{
	if (p->state == KPT_PROBE_ARMED && p->sys_tp)
		seq_puts(m, " at=raw_syscalls:sys_enter/sys_exit tracepoint enabled");
	else
		kpt_probe_show_kprobe(m, p, "kretprobe", buf);
}

/* The syscalls kind of probe (s), struct kpt_probe_ops in probe.h */
const struct kpt_probe_ops kpt_sys_ops = {
	.compile	= kpt_sys_compile,
	.maxactive	= kpt_sys_maxactive,
	.mem		= kpt_sys_mem,
	.check		= kpt_sys_check,
	.alloc		= kpt_sys_sum_new,
	.arm		= kpt_sys_arm,
	.disarm		= kpt_sys_disarm,
	.free		= kpt_sys_free,
	.arm_error	= kpt_sys_arm_error,
	.show		= kpt_sys_show,
};

/*
 * KPT_IOC_SYSSUM: end the interval of @sess's s probe @name's summary and
 * copy its entries to @ubuf, if @room holds every entry that can be (else
 * -ENOSPC, and *@len the room needed). Under the probes' lock, which
 * -:NAME holds to free the tables, the entries with calls are moved to a
 * kernel buffer; it is copied out after, so that a caller whose buffer
 * faults slowly (userfaultfd, FUSE) never holds up probe changes or
 * module loads. Without memory for that buffer (-ENOMEM) the entries stay in
 * their half, read again at the flip after next: counted late (an
 * interval later), not lost.
 * A copy that faults loses the interval (-EFAULT).
 */
int kpt_probes_syssum(struct kpt_session *sess, const char *name,
		      void __user *ubuf, u64 room, u32 *id, u32 *n, u64 *full,
		      size_t *len)
{
	struct kpt_syssum_entry *t, *buf = NULL;
	struct kpt_probe *p, *found = NULL;
	struct kpt_sys_sum *sm;
	unsigned int cpu, half, i;
	size_t used = 0, k = 0;
	int ret = 0;

	if (mutex_lock_interruptible(&kpt_probes_mutex))
		return -ERESTARTSYS;
	list_for_each_entry(p, &kpt_probe_list, list) {
		if (p->sess == sess && p->sys_sum &&
		    !strcmp(p->spec->name, name)) {
			found = p;
			break;
		}
	}
	if (!found) {
		ret = -ENOENT;
		goto out;
	}
	sm = found->sys_sum;
	*id = found->id;
	*len = ((size_t)nr_cpu_ids << sm->bits) * sizeof(*t);
	if (room < *len) {
		ret = -ENOSPC;
		goto out;
	}
	half = sm->cur;
	WRITE_ONCE(sm->cur, !half);
	/*
	 * The handlers that may still add to @half run with preemption
	 * disabled (a kprobe's; the tracepoints' disable it themselves)
	 */
	synchronize_rcu();
	for_each_possible_cpu(cpu) {
		t = kpt_sys_sum_half(sm, cpu, half);
		for (i = 0; i < 1U << sm->bits; i++)
			used += !!t[i].calls;
	}
	if (used) {
		buf = kvmalloc_array(used, sizeof(*buf),
				     GFP_KERNEL | __GFP_NOWARN);
		if (!buf) {
			ret = -ENOMEM;
			goto out;
		}
	}
	*full = 0;
	for_each_possible_cpu(cpu) {
		t = kpt_sys_sum_half(sm, cpu, half);
		for (i = 0; i < 1U << sm->bits; i++) {
			/* (no handler adds to @half: k stays below used) */
			if (!t[i].calls || WARN_ON_ONCE(k == used))
				continue;
			buf[k++] = t[i];
			/* an entry without calls is all zero: only these */
			memset(&t[i], 0, sizeof(*t));
		}
		*full += *kpt_sys_sum_full(sm, cpu, half);
		*kpt_sys_sum_full(sm, cpu, half) = 0;
	}
out:
	mutex_unlock(&kpt_probes_mutex);
	if (!ret && k && copy_to_user(ubuf, buf, k * sizeof(*buf)))
		ret = -EFAULT;
	kvfree(buf);
	if (!ret) {
		*n = k;
		*len = k * sizeof(*buf);
	} else if (ret != -ENOSPC) {
		*len = 0;	/* nothing given */
	}
	return ret;
}
