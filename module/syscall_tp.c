// SPDX-License-Identifier: GPL-2.0
/*
 * kptrace: a syscalls probe on the raw_syscalls tracepoints, where the
 * kernel has no x64_sys_call to put a kretprobe on (syscall.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/compat.h>
#include <linux/hash.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/tracepoint.h>
#include <linux/unistd.h>
#include "clock.h"
#include "syscall.h"

/*
 * The tracepoints' way: the raw_syscalls pair, matched by task in
 * buckets of KPT_SYS_WAYS slots (16: at twice the slots of the calls in
 * flight, a bucket of 8 overflowed for 10 of 5000 parked threads; 16 ways
 * hold them all). A slot is a task's from the cmpxchg() of
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
 * The tracepoints fire for 32-bit calls too, with their own numbers and
 * registers: an ia32 one (int $0x80, a 32-bit program) is traced as
 * such, its slot saying so (KPT_F_SYS_COMPAT); x32 calls are left out.
 * A slot ends at the task's next sys_exit whatever its mode: a 64-bit
 * execve of a 32-bit program comes back compat. From 6.13 the syscall
 * tracepoints may fault, and their probes run preemptible: the handlers
 * disable preemption themselves, as ftrace
 * and perf do, for the ring, the per-CPU counts and the RCU walks.
 */
#define KPT_SYS_WAYS		16

struct kpt_sys_slot {
	unsigned long		task;	/* 0: free */
	u64			start;	/* the task's start_time */
	u64			exec_id; /* its self_exec_id */
	u8			flags;	/* the record's: KPT_F_SYS_COMPAT */
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
u64 kpt_sys_tp_bytes(const struct kpt_spec *spec, unsigned int maxactive)
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

/* i386 execve, execveat */
#define KPT_NR32_EXECVE		11
#define KPT_NR32_EXECVEAT	358

/* Whether @s holds an execve or execveat */
static nokprobe_inline bool kpt_sys_slot_is_exec(const struct kpt_sys_slot *s)
{
	u64 nr = kpt_sys_slot_data((struct kpt_sys_slot *)s)->vals[0];

	if (s->flags & KPT_F_SYS_COMPAT)
		return nr == KPT_NR32_EXECVE || nr == KPT_NR32_EXECVEAT;
	return nr == __NR_execve || nr == __NR_execveat;
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
	bool compat = in_ia32_syscall();
	struct kpt_sys_slot *s;

	if (unlikely(in_compat_syscall() && !compat))
		return;		/* x32 */
	if (!kpt_sys_select(p, nr, compat))
		return;
	if (unlikely(kpt_sys_is_exit(nr, compat))) {
		kpt_sys_exit_call(p, regs, nr, NULL,
				  compat ? KPT_F_SYS_COMPAT : 0);
		return;
	}
	s = kpt_sys_slot_take(tp);
	if (unlikely(!s)) {
		/* as a kretprobe out of instances: the handler never runs */
		atomic_long_inc(&tp->missed);
		return;
	}
	s->flags = compat ? KPT_F_SYS_COMPAT : 0;
	kpt_sys_begin(p, regs, nr, kpt_sys_slot_data(s),
		      kpt_probe_now(p), !p->sys_sum, compat);
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

	s = kpt_sys_slot_find(tp);
	if (!s)
		return;		/* entered before the probe, or unselected */
	d = kpt_sys_slot_data(s);
	ts = kpt_probe_now(p);
	this_cpu_inc(p->stats->hits);
	kpt_sys_exit_slow(p, d, ret, ts, kpt_clock_since(d->entry_ts, ts),
			  NULL, s->flags);
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

struct kpt_tp_lookup {
	const char		*name;
	struct tracepoint	*tp;
};

static void kpt_tracepoint_match(struct tracepoint *tp, void *priv)
{
	struct kpt_tp_lookup *l = priv;

	if (!strcmp(tp->name, l->name))
		l->tp = tp;
}

/*
 * The kernel's tracepoint @name (its modules' are not looked at), or
 * NULL: as the falco module finds them, for_each_kernel_tracepoint()
 */
struct tracepoint *kpt_tracepoint_find(const char *name)
{
	struct kpt_tp_lookup l = { .name = name };

	for_each_kernel_tracepoint(kpt_tracepoint_match, &l);
	return l.tp;
}

/*
 * Arm @p on the raw_syscalls tracepoints, with @maxactive calls in
 * flight at most. Returns 0 or an error; -ENOENT when the kernel has
 * neither attach point.
 */
int kpt_sys_tp_arm(struct kpt_probe *p, unsigned int maxactive)
{
	struct kpt_sys_tp *tp = p->sys_tp;
	unsigned long nslots;
	int ret;

	if (!tp) {
		tp = kzalloc(sizeof(*tp), GFP_KERNEL);
		if (!tp)
			return -ENOMEM;
		tp->enter = kpt_tracepoint_find("sys_enter");
		tp->exit = kpt_tracepoint_find("sys_exit");
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
void kpt_sys_tp_disarm(struct kpt_probe *p, struct kpt_disarm_batch *batch)
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

void kpt_sys_tp_free(struct kpt_probe *p)
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
