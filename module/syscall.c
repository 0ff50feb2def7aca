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
 * or at=raw_syscalls:sys_enter/sys_exit tracepoint enabled). Beside it
 * (syscall.h, struct kpt_sys_aux): 32-bit calls on ia32_sys_call
 * (syscall_ia32.c; the tracepoints see them by themselves), denied calls
 * on __secure_computing (syscall_denied.c), signals and exits on their
 * tracepoints (syscall_signal.c). x32 calls are not traced.
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
 *
 * Files: this one is the kind (its ops, its program, its attach points'
 * arming) and the kretprobe's handlers; syscall.h the selection and a
 * call's entry, which every attach point runs inline; syscall_record.c
 * the records; syscall_sum.h and syscall_sum.c the summary; syscall_tp.c
 * the tracepoints' way; syscall_ia32.c, syscall_denied.c and
 * syscall_signal.c the other attach points.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/sched.h>
#include <linux/err.h>
#include <linux/pid_namespace.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include "ring.h"
#include "clock.h"
#include "syscall_sum.h"

/* The instance data a syscalls probe needs (kpt_sys_compile()) */
static unsigned int kpt_sys_ri_size(const struct kpt_spec *spec)
{
	return sizeof(struct kpt_sys_data) +
	       (spec->sys.summary ? 0 : KPT_SYS_NSTR * kpt_cfg.strsize);
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
	if (!sys->nr_given) {
		memset(g->sys.nr, 0xff, sizeof(g->sys.nr));
		memset(g->sys.nr32, 0xff, sizeof(g->sys.nr32));
	}
	memcpy(g->sys_fast_nr, g->sys.nr, sizeof(g->sys_fast_nr));
	BUILD_BUG_ON(KPT_NR_EXIT_GROUP >= KPT_SYS_NR_BITS);
	BUILD_BUG_ON(KPT_SYS_MAX_STACK > KPT_MAX_STACK);
	g->sys_fast_nr[KPT_NR_EXIT / 64] &= ~(1ULL << (KPT_NR_EXIT % 64));
	g->sys_fast_nr[KPT_NR_EXIT_GROUP / 64] &=
		~(1ULL << (KPT_NR_EXIT_GROUP % 64));
	g->sys_fast_task = !sys->comm[0] && !sys->cgroup && !sys->children;
	g->sys_ret_filter = sys->failure || sys->duration_ns;
	g->sys_ret_slow = g->sys_ret_filter || sys->stack;
}

/*
 * A miss of @g's comm= memo @m (syscall.h): the verdict on the comm whose
 * bytes are @c0 and @c1, kept in @m. Out of line: its copy would cost
 * every call of the selection a stack canary.
 */
noinline bool kpt_sys_comm_learn(const struct kpt_prog *g,
				 struct kpt_sys_comm_memo *m, u64 c0, u64 c1)
{
	char comm[TASK_COMM_LEN];
	bool yes;

	/* the bytes the memo keeps, not a second read: a rename may be on */
	memcpy(comm, &c0, sizeof(c0));
	memcpy(comm + sizeof(c0), &c1, sizeof(c1));
	comm[sizeof(comm) - 1] = '\0';
	yes = kpt_glob_match(g->sys.comm, comm);
	m->comm[0] = c0;
	m->comm[1] = c1;
	m->verdict = yes ? KPT_SYS_COMM_YES : KPT_SYS_COMM_NO;
	return yes;
}
NOKPROBE_SYMBOL(kpt_sys_comm_learn);

/* syscall.h */
DEFINE_PER_CPU(bool, kpt_sys_preselected);

static nokprobe_inline int kpt_sys_pre(struct kpt_probe *p,
				       struct pt_regs *regs)
{
	return kpt_sys_call_pre(READ_ONCE(p->sys_pre), &p->rp.kp, regs);
}

/*
 * kpt_sys_kprobe_pre()'s rare calls, out of line: exit and exit_group,
 * which never return, recorded here, taking no instance; and numbers past
 * KPT_SYS_NR_BITS (which x64_sys_call never sees: past the kernel's
 * table).
 */
static noinline int kpt_sys_kprobe_rare(struct kpt_probe *p,
					struct pt_regs *regs,
					unsigned int nr)
{
	if (!kpt_sys_select(p, nr, false))
		return 0;
	if (kpt_sys_is_exit(nr, false)) {
		kpt_sys_exit_call(p, (const struct pt_regs *)regs->di, nr,
				  regs, 0);
		return 0;
	}
	return kpt_sys_pre(p, regs);
}
NOKPROBE_SYMBOL(kpt_sys_kprobe_rare);

/*
 * The rest of a call's selection, out of line, for a probe that selects
 * by comm=, cgroup= or children=: kpt_sys_kprobe_pre() has decided the
 * number (not exit*), exclude=, pid= and tid= already, and is not asked
 * again.
 */
static noinline int kpt_sys_kprobe_rest(struct kpt_probe *p,
					struct pt_regs *regs)
{
	if (!kpt_sys_task_rest(&p->prog)) {
		this_cpu_inc(p->stats->unselected);
		return 0;
	}
	return kpt_sys_pre(p, regs);
}
NOKPROBE_SYMBOL(kpt_sys_kprobe_rest);

/*
 * x64_sys_call(regs, nr)'s kprobe: the selection, and only for a selected
 * call the kretprobe's own pre-handler. An unselected call so pays the
 * kprobe and the selection, not the instance's get and put (two atomics
 * on the pool, a third of its cost before). The number's bit, exclude=,
 * pid= and tid= are decided here, comm=, cgroup= and children= by a tail
 * call to kpt_sys_kprobe_rest(), exit* and numbers past the table by one
 * to kpt_sys_kprobe_rare(): nothing is kept across a call, so no register
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
	if (kpt_sys_left_out(&g->sys))
		goto unselected;
	if (unlikely(!g->sys_fast_task))
		return kpt_sys_kprobe_rest(p, regs);
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

	if (!kpt_sys_select(p, nr, false))
		return 1;
	if (kpt_sys_is_exit(nr, false)) {
		kpt_sys_exit_call(p, u, nr, regs, 0);
		return 1;
	}
	kpt_sys_begin(p, u, nr, (struct kpt_sys_data *)ri->data, ts,
		      !p->sys_sum, false);
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
		      ts, strs, false);
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
		kpt_sys_exit_slow(p, d, retval, ts, lat, regs, 0);
		return;
	}
	if (summary) {
		kpt_sys_sum_add(p, d->vals[0], retval, lat);
		return;
	}
	/* no room where head is, or a write under way: the slow path */
	if (unlikely(!kpt_ring_try(&w, kpt_probe_ring(p),
				   KPT_SYS_RET_HDR))) {
		kpt_sys_exit_slow(p, d, retval, ts, lat, regs, 0);
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

static void kpt_sys_set_handlers(struct kpt_probe *p)
{
	bool sum = p->sys_sum;	/* made with the probe, before any arm */

	p->rp.entry_handler = sum ? kpt_sys_kretprobe_entry_sum :
				    kpt_sys_kretprobe_entry;
	p->rp.handler = sum ? kpt_sys_kretprobe_return_sum :
			      kpt_sys_kretprobe_return;
}

/*
 * Put the selection, @wrapper, ahead of the pre-handler
 * register_kretprobe() gave @rp's kprobe (every kernel gives a
 * kretprobe's kprobe one, which takes the instance and calls the entry
 * handler), kept in *@own for @wrapper to call. The kprobe is armed already
 * (registering it disabled would leave it so while kprobes are disarmed
 * globally, debugfs kprobes/enabled): a hit that still finds the old
 * pre-handler, here or on another CPU, is selected by the entry handler.
 * *@own is stored before the wrapper that reads it. Unregistering is the
 * kretprobe's as ever.
 */
void kpt_sys_kretprobe_wrap(struct kretprobe *rp, kprobe_pre_handler_t *own,
			    kprobe_pre_handler_t wrapper)
{
	WRITE_ONCE(*own, rp->kp.pre_handler);
	/* *own before the wrapper: pairs with the hit's call of it */
	smp_wmb();
	WRITE_ONCE(rp->kp.pre_handler, wrapper);
}

/*
 * Return instances of @p: its MAXACTIVE, else, as each traced task
 * blocked in a call holds one, as many as KPT_SYS_DATA_BUDGET of its call
 * data hold, maxactive= to KPT_SYS_MAXACTIVE (a record's call data is 592
 * bytes with the default strsize: 28339 on a box of 16 GiB, whose
 * mem_max_mb is 2 GiB; 6600 on one of 1 GiB), fewer where the kprobe
 * core's pool of them would take more than twice that budget (from 6.7,
 * a ring per possible CPU).
 */
#define KPT_SYS_DATA_BUDGET	clamp_t(u64, kpt_cfg.mem_max / 32, 1 << 20, 16 << 20)

static unsigned int kpt_sys_maxactive(const struct kpt_probe *p)
{
	u64 budget = KPT_SYS_DATA_BUDGET;
	unsigned int n;

	if (p->spec->maxactive)
		return p->spec->maxactive;
	n = clamp_t(u64, budget / p->prog.ri_size, kpt_cfg.maxactive,
		    KPT_SYS_MAXACTIVE);
	while (n > kpt_cfg.maxactive &&
	       kpt_kretprobe_pool_bytes(n, p->prog.ri_size) > 2 * budget)
		n = max(n / 4 * 3, kpt_cfg.maxactive);
	return n;
}

/*
 * The instances of ia32_sys_call's kretprobe: as each 32-bit task blocked
 * in a call holds one, an eighth of the 64-bit calls' (32-bit programs
 * are few), and at least maxactive=
 */
static unsigned int kpt_sys32_maxactive(const struct kpt_probe *p)
{
	return max(kpt_sys_maxactive(p) / 8, kpt_cfg.maxactive);
}

/*
 * __secure_computing()'s: held while a filter runs, or while a user
 * notification waits for its supervisor
 */
static unsigned int kpt_sys_denied_maxactive(const struct kpt_probe *p)
{
	return p->spec->sys.denied ? kpt_cfg.maxactive : 0;
}

/* Whether @p arms ia32_sys_call's kretprobe: nr32= selects a call */
static bool kpt_sys32_wanted(const struct kpt_probe *p)
{
	return memchr_inv(p->prog.sys.nr32, 0, sizeof(p->prog.sys.nr32));
}

/* The bytes of a comm= memo, with @spec's: kpt_sys_mem() counts them */
static u64 kpt_sys_comm_bytes(const struct kpt_spec *spec)
{
	return spec->sys.comm[0] ?
	       (u64)ALIGN(sizeof(struct kpt_sys_comm_memo), 32) *
	       num_possible_cpus() :
	       0;
}

/*
 * Its instances and ia32_sys_call's, or the tracepoints' slots in their
 * place (which see 32-bit calls too); __secure_computing()'s instances;
 * its summary; its comm= memo
 */
static u64 kpt_sys_mem(const struct kpt_probe *p)
{
	u64 rp = kpt_kretprobe_mem(p), den = 0;

	if (kpt_sys32_wanted(p))
		rp += kpt_kretprobe_pool_bytes(kpt_sys32_maxactive(p),
					       p->prog.ri_size);
	if (p->spec->sys.denied)
		den = kpt_kretprobe_pool_bytes(kpt_sys_denied_maxactive(p),
					       p->prog.ri_size);
	return max(rp, kpt_sys_tp_bytes(p->spec, kpt_sys_maxactive(p))) +
	       den + kpt_sys_sum_bytes(p->spec) +
	       kpt_sys_comm_bytes(p->spec);
}

/* The kprobe core's misses of ia32_sys_call's kretprobe since armed */
static unsigned long kpt_sys32_missed_now(const struct kpt_sys_aux *a)
{
	return a->rp32.nmissed + a->rp32.kp.nmissed;
}

/* __secure_computing()'s (syscall_denied.c) */
static unsigned long kpt_sys_denied_missed_now(const struct kpt_sys_aux *a)
{
	return a->seccomp.nmissed + a->seccomp.kp.nmissed;
}

/*
 * What @p missed beside its kretprobe on x64_sys_call: the tracepoints'
 * full buckets, the 32-bit calls with no free instance (and its kprobe's
 * recursion misses). Any kind of return probe asks. Not
 * __secure_computing()'s: a call it missed may have been allowed, and
 * recorded (kpt_sys_denied_unseen()).
 */
unsigned long kpt_sys_missed(const struct kpt_probe *p)
{
	const struct kpt_sys_aux *a = READ_ONCE(p->sys_aux);

	return kpt_sys_tp_missed(p) +
	       (a ? a->missed32_before + kpt_sys32_missed_now(a) : 0);
}

/*
 * Calls of @p's selection whose seccomp verdict it did not see (no free
 * instance on __secure_computing(), or a kprobe's recursion): allowed,
 * they were counted as any call; denied, they were not. The probes
 * listing shows them (denied_unseen=).
 */
static unsigned long kpt_sys_denied_unseen(const struct kpt_probe *p)
{
	const struct kpt_sys_aux *a = READ_ONCE(p->sys_aux);

	return a ? a->denied_before + kpt_sys_denied_missed_now(a) : 0;
}

/*
 * Register @rp of @a on @sym with @maxactive instances of the probe's
 * data and handlers @entry and @ret: 0 or an error
 */
int kpt_sys_aux_register(struct kpt_sys_aux *a, struct kretprobe *rp,
			 const char *sym, unsigned int maxactive,
			 kretprobe_handler_t entry, kretprobe_handler_t ret)
{
	memset(rp, 0, sizeof(*rp));
	rp->kp.symbol_name = sym;
	rp->data_size = a->p->prog.ri_size;
	rp->maxactive = maxactive;
	rp->entry_handler = entry;
	rp->handler = ret;
	return register_kretprobe(rp);
}

static void kpt_sys_aux_disarm(struct kpt_probe *p,
			       struct kpt_disarm_batch *batch)
{
	struct kpt_sys_aux *a = p->sys_aux;

	if (!a)
		return;
	WRITE_ONCE(a->live, false);
	if (a->rp32_on)
		kpt_rp_disarm(&a->rp32, batch);
	if (a->seccomp_on)
		kpt_rp_disarm(&a->seccomp, batch);
	if (a->signals_on)
		kpt_sys_signal_disarm(a, batch);
	a->rp32_on = false;
	a->seccomp_on = false;
	a->signals_on = false;
}

/*
 * Register @p's aux (struct kpt_sys_aux), made at its first arm, its
 * handlers recording nothing until kpt_sys_arm() sets live: 32-bit calls
 * unless nr32= selects none (a kernel without ia32_sys_call goes on: the
 * tracepoints' way sees them, and before the BHI fix there is no other),
 * denied calls, signals and exits; the last two asked for, a kernel that
 * cannot refuses the probe, saying why (a->why). 0, or an error with
 * none of them registered.
 */
static int kpt_sys_aux_arm(struct kpt_probe *p)
{
	const struct kpt_sys_spec *sys = &p->prog.sys;
	struct kpt_sys_aux *a = p->sys_aux;
	int ret = 0;

	if (!a) {
		a = kzalloc(sizeof(*a), GFP_KERNEL);
		if (!a)
			return -ENOMEM;
		a->p = p;
		WRITE_ONCE(p->sys_aux, a);
	}
	a->why = NULL;
	/* registering zeroes the kprobe core's counts: keep them */
	a->missed32_before += kpt_sys32_missed_now(a);
	a->denied_before += kpt_sys_denied_missed_now(a);
	if (kpt_sys32_wanted(p)) {
		ret = kpt_sys32_arm(a, kpt_sys32_maxactive(p));
		if (ret == -ENOENT || ret == -EINVAL)
			ret = 0;
	}
	if (!ret && sys->denied) {
		ret = kpt_sys_denied_arm(a, kpt_sys_denied_maxactive(p));
		if (ret && ret != -ENOMEM)
			a->why = "denied: no __secure_computing() to probe (no CONFIG_SECCOMP?)";
	}
	if (!ret && sys->signals) {
		ret = kpt_sys_signal_arm(a);
		if (ret && ret != -ENOMEM)
			a->why = "signals: no signal_deliver or sched_process_exit tracepoint";
	}
	if (ret)
		kpt_sys_aux_disarm(p, NULL);
	return ret;
}

/* The kretprobe on x64_sys_call, or the tracepoints */
static void kpt_sys_main_disarm(struct kpt_probe *p,
				struct kpt_disarm_batch *batch)
{
	if (p->sys_tp)
		kpt_sys_tp_disarm(p, batch);
	else
		kpt_kretprobe_disarm(p, batch);
}

static int kpt_sys_check(const struct kpt_probe *p, const char **why)
{
	int ret = 0;

	if (p->prog.ri_size > KRETPROBE_MAX_DATA_SIZE) {
		*why = "strsize= over 2008: a call's data would pass the kprobe core's 4096 bytes";
		return -E2BIG;
	}
	/* mem_max_mb bounds it; this, an absurd MAXACTIVE x strsize */
	if ((u64)p->prog.ri_size * kpt_sys_maxactive(p) > 64ULL << 20) {
		*why = "MAXACTIVE x the data kept per call is over 64 MiB";
		ret = -EINVAL;
	}

	/* a summary's read takes one half of its tables in one kvmalloc() */
	if (!ret && kpt_sys_sum_bytes(p->spec) / 2 > INT_MAX) {
		*why = "summary= on this many CPUs: a read would pass 2 GiB";
		ret = -E2BIG;
	}
	return ret;
}

/*
 * A probe's memory but its return instances, made with it
 * (kpt_probe_new(): its charge taken already, kpt_sys_free() on a
 * failure): its comm= memo (syscall.h), every verdict zero, none yet; its
 * summary
 */
static int kpt_sys_new(struct kpt_probe *p)
{
	if (p->prog.sys.comm[0]) {
		/* 32-byte aligned: within one cache line (syscall.h) */
		p->prog.sys_comm_memo =
			__alloc_percpu(sizeof(struct kpt_sys_comm_memo), 32);
		if (!p->prog.sys_comm_memo)
			return -ENOMEM;
	}
	return kpt_sys_sum_new(p);
}

/*
 * The other attach points first, recording nothing yet (an arm that fails
 * must leave no record under the probe's id, which the next probe may
 * take: kpt_id_unused()); then a kretprobe on x64_sys_call, its selection
 * ahead of its pre-handler, or without x64_sys_call the raw_syscalls
 * tracepoints (kernels before v5.11 say -EINVAL for a symbol that is not
 * there), the last step, which either fails with nothing registered or
 * succeeds; then the others record.
 */
static int kpt_sys_arm(struct kpt_probe *p)
{
	int ret;

	ret = kpt_sys_aux_arm(p);
	if (ret)
		return ret;
	kpt_kretprobe_prepare(p);
	kpt_sys_set_handlers(p);
	ret = register_kretprobe(&p->rp);
	if (!ret) {
		kpt_sys_kretprobe_wrap(&p->rp, &p->sys_pre,
				       kpt_sys_kprobe_pre);
	} else if (ret == -ENOENT || ret == -EINVAL) {
		pr_info("%s: no kretprobe on x64_sys_call (%d): on the raw_syscalls tracepoints\n",
			p->spec->name, ret);
		ret = kpt_sys_tp_arm(p, p->rp.maxactive);
	}
	if (ret) {
		kpt_sys_aux_disarm(p, NULL);
		return ret;
	}
	WRITE_ONCE(p->sys_aux->live, true);
	return 0;
}

static void kpt_sys_disarm(struct kpt_probe *p,
			   struct kpt_disarm_batch *batch)
{
	kpt_sys_aux_disarm(p, batch);
	kpt_sys_main_disarm(p, batch);
}

static void kpt_sys_free(struct kpt_probe *p)
{
	kpt_sys_tp_free(p);
	kpt_sys_sum_free(p);
	kfree(p->sys_aux);
	p->sys_aux = NULL;
	free_percpu(p->prog.sys_comm_memo);
	p->prog.sys_comm_memo = NULL;
}

static const char kpt_sys_no_attach[] =
	"neither x64_sys_call nor the raw_syscalls tracepoints: s probes cannot attach";

static const char *kpt_sys_arm_error(const struct kpt_probe *p, int err)
{
	if (p->sys_aux && p->sys_aux->why)
		return p->sys_aux->why;
	return err == -ENOENT ? kpt_sys_no_attach : NULL;
}

static void kpt_sys_show(struct seq_file *m, struct kpt_probe *p, char *buf)
{
	unsigned long unseen = kpt_sys_denied_unseen(p);

	if (p->state == KPT_PROBE_ARMED && p->sys_tp)
		seq_puts(m, " at=raw_syscalls:sys_enter/sys_exit tracepoint enabled");
	else
		kpt_probe_show_kprobe(m, p, "kretprobe", buf);
	if (unseen)
		seq_printf(m, " denied_unseen=%lu", unseen);
}

/* The syscalls kind of probe (s), struct kpt_probe_ops in probe.h */
const struct kpt_probe_ops kpt_sys_ops = {
	.compile	= kpt_sys_compile,
	.maxactive	= kpt_sys_maxactive,
	.mem		= kpt_sys_mem,
	.check		= kpt_sys_check,
	.alloc		= kpt_sys_new,
	.arm		= kpt_sys_arm,
	.disarm		= kpt_sys_disarm,
	.free		= kpt_sys_free,
	.arm_error	= kpt_sys_arm_error,
	.show		= kpt_sys_show,
};
