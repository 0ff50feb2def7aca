// SPDX-License-Identifier: GPL-2.0
/*
 * kpt_hazard: probe hits from every context at once, for kptrace's hazard
 * selftests (selftests/kpt_hazard_*.sh).
 *
 * Every hit is a call of the noinline kpt_hazard_target(ctx, i), with ctx
 * naming the context it was made from (1 task, 2 softirq, 3 hardirq,
 * 4 NMI), counted just before the call, so a test knows exactly how many
 * hits kptrace had to account for. With int3=1 the calls go to
 * kpt_hazard_target_int3() instead, which is notrace: kprobes put an int3
 * there, where they use ftrace on kpt_hazard_target().
 *
 * debugfs /sys/kernel/debug/kpt_hazard/:
 *   run      write N: on every online CPU at once, a bound kthread calls the
 *            target N times (task), queueing a hard irq_work every 64 calls
 *            (hardirq). Meanwhile each CPU's hrtimer, in HARD mode, fires
 *            every period_us: it calls the target (hardirq), schedules a
 *            tasklet that calls it (softirq), and raises an NMI whose
 *            handler calls it (NMI). Returns when every source is quiet.
 *   counts   read: "task N", "softirq N", "hardirq N", "nmi N", "total N"
 *            (calls of the last run) and "nmi_source perf|ipi|none".
 *
 * NMI sources, module parameter nmi=: "perf" a hardware cycle counter
 * whose overflow handler runs in NMI (needs a PMU, which QEMU's TCG does
 * not offer), "ipi" an NMI sent to the CPU itself through the local APIC
 * with an NMI_LOCAL handler that claims only the NMIs it asked for,
 * "none", or "auto" (default): perf, else ipi.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/debugfs.h>
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/irq_work.h>
#include <linux/kthread.h>
#include <linux/completion.h>
#include <linux/perf_event.h>
#include <linux/percpu.h>
#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/version.h>
#include <asm/apic.h>
#include <asm/nmi.h>

enum kpt_haz_ctx {
	KPT_HAZ_TASK = 1,
	KPT_HAZ_SOFTIRQ,
	KPT_HAZ_HARDIRQ,
	KPT_HAZ_NMI,
	KPT_HAZ_NR
};

static const char * const kpt_haz_ctx_names[KPT_HAZ_NR] = {
	[KPT_HAZ_TASK]		= "task",
	[KPT_HAZ_SOFTIRQ]	= "softirq",
	[KPT_HAZ_HARDIRQ]	= "hardirq",
	[KPT_HAZ_NMI]		= "nmi",
};

static char *nmi = "auto";
module_param(nmi, charp, 0444);
MODULE_PARM_DESC(nmi, "NMI source: auto (default), perf, ipi or none");

static bool int3;
module_param(int3, bool, 0444);
MODULE_PARM_DESC(int3, "call the notrace kpt_hazard_target_int3 instead, which kprobes patch with int3, not ftrace (default 0)");

static unsigned int period_us = 200;
module_param(period_us, uint, 0644);
MODULE_PARM_DESC(period_us, "hrtimer period in microseconds (default 200)");

enum kpt_haz_nmi_src { KPT_NMI_NONE, KPT_NMI_PERF, KPT_NMI_IPI };
static const char * const kpt_haz_nmi_names[] = { "none", "perf", "ipi" };
static enum kpt_haz_nmi_src kpt_haz_nmi_src;

struct kpt_haz_cpu {
	struct hrtimer		timer;
	struct tasklet_struct	tasklet;
	struct irq_work		work;
	struct perf_event	*pev;
	struct completion	done;
	unsigned long		n;
	unsigned int		cpu;
	atomic_t		nmi_pending;
};

static DEFINE_PER_CPU(struct kpt_haz_cpu, kpt_haz_pcpu);
static atomic64_t kpt_haz_count[KPT_HAZ_NR];
static bool kpt_haz_running;
static bool kpt_haz_nmi_registered;
static DEFINE_MUTEX(kpt_haz_mutex);
static struct dentry *kpt_haz_dir;

long kpt_hazard_target(unsigned long ctx, unsigned long i);
long kpt_hazard_target_int3(unsigned long ctx, unsigned long i);

noinline long kpt_hazard_target(unsigned long ctx, unsigned long i)
{
	/* Keep the call: no clone, no constant propagation, no inlining. */
	asm volatile("" : : "r" (ctx), "r" (i) : "memory");
	return ctx + i;
}
EXPORT_SYMBOL_GPL(kpt_hazard_target);

/* The same, out of ftrace's reach: a kprobe on it is an int3. */
noinline notrace long kpt_hazard_target_int3(unsigned long ctx,
					     unsigned long i)
{
	asm volatile("" : : "r" (ctx), "r" (i) : "memory");
	return ctx + i;
}
EXPORT_SYMBOL_GPL(kpt_hazard_target_int3);

static __always_inline void kpt_haz_hit(enum kpt_haz_ctx ctx, unsigned long i)
{
	atomic64_inc(&kpt_haz_count[ctx]);
	if (int3)
		kpt_hazard_target_int3(ctx, i);
	else
		kpt_hazard_target(ctx, i);
}

static void kpt_haz_tasklet(struct tasklet_struct *t)
{
	kpt_haz_hit(KPT_HAZ_SOFTIRQ, 0);
}

static void kpt_haz_irq_work(struct irq_work *work)
{
	kpt_haz_hit(KPT_HAZ_HARDIRQ, 1);
}

static void kpt_haz_perf_overflow(struct perf_event *event,
				  struct perf_sample_data *data,
				  struct pt_regs *regs)
{
	if (READ_ONCE(kpt_haz_running))
		kpt_haz_hit(KPT_HAZ_NMI, 0);
}

static int kpt_haz_nmi_handler(unsigned int type, struct pt_regs *regs)
{
	struct kpt_haz_cpu *c = this_cpu_ptr(&kpt_haz_pcpu);

	/* Only the NMIs this module sent; NMIs of one CPU never overlap. */
	if (atomic_dec_if_positive(&c->nmi_pending) < 0)
		return NMI_DONE;
	kpt_haz_hit(KPT_HAZ_NMI, 1);
	return NMI_HANDLED;
}

static enum hrtimer_restart kpt_haz_timer(struct hrtimer *t)
{
	struct kpt_haz_cpu *c = container_of(t, struct kpt_haz_cpu, timer);

	kpt_haz_hit(KPT_HAZ_HARDIRQ, 0);
	tasklet_schedule(&c->tasklet);
	if (kpt_haz_nmi_src == KPT_NMI_IPI && atomic_read(&c->nmi_pending) < 4) {
		atomic_inc(&c->nmi_pending);
		apic->send_IPI_mask(cpumask_of(c->cpu), NMI_VECTOR);
	}
	if (!READ_ONCE(kpt_haz_running))
		return HRTIMER_NORESTART;
	hrtimer_forward_now(t, ns_to_ktime(max(period_us, 20U) * 1000ULL));
	return HRTIMER_RESTART;
}

/* hrtimer_setup() replaced hrtimer_init() in 6.13; 6.15 removed the latter. */
static void kpt_haz_timer_setup(struct hrtimer *t)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
	hrtimer_setup(t, kpt_haz_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
#else
	hrtimer_init(t, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	t->function = kpt_haz_timer;
#endif
}

/* IRQ_WORK_INIT_HARD() came in 5.11; before, hard is the default off RT. */
static void kpt_haz_irq_work_setup(struct irq_work *w)
{
#ifdef IRQ_WORK_INIT_HARD
	*w = IRQ_WORK_INIT_HARD(kpt_haz_irq_work);
#else
	init_irq_work(w, kpt_haz_irq_work);
	atomic_set(&w->flags, IRQ_WORK_HARD_IRQ);
#endif
}

static int kpt_haz_thread(void *data)
{
	struct kpt_haz_cpu *c = data;
	unsigned long i;

	hrtimer_start(&c->timer, ns_to_ktime(period_us * 1000ULL),
		      HRTIMER_MODE_REL_PINNED_HARD);
	for (i = 1; i <= c->n; i++) {
		kpt_haz_hit(KPT_HAZ_TASK, i);
		if (!(i % 64))
			irq_work_queue(&c->work);
		if (!(i % 256))
			cond_resched();
	}
	hrtimer_cancel(&c->timer);
	complete(&c->done);
	while (!kthread_should_stop()) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (kthread_should_stop())
			break;
		schedule();
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

static struct perf_event_attr kpt_haz_perf_attr = {
	.type		= PERF_TYPE_HARDWARE,
	.config		= PERF_COUNT_HW_CPU_CYCLES,
	.size		= sizeof(struct perf_event_attr),
	.pinned		= 1,
	.disabled	= 1,
	.sample_period	= 1000000,
};

static void kpt_haz_perf_release(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct kpt_haz_cpu *c = per_cpu_ptr(&kpt_haz_pcpu, cpu);

		if (c->pev) {
			perf_event_disable(c->pev);
			perf_event_release_kernel(c->pev);
			c->pev = NULL;
		}
	}
}

/* One counter per online CPU, or none at all. */
static int kpt_haz_perf_create(void)
{
	unsigned int cpu;

	for_each_online_cpu(cpu) {
		struct kpt_haz_cpu *c = per_cpu_ptr(&kpt_haz_pcpu, cpu);
		struct perf_event *ev;

		ev = perf_event_create_kernel_counter(&kpt_haz_perf_attr, cpu,
						      NULL,
						      kpt_haz_perf_overflow,
						      NULL);
		if (IS_ERR(ev)) {
			kpt_haz_perf_release();
			return PTR_ERR(ev);
		}
		c->pev = ev;
	}
	return 0;
}

static int kpt_haz_run(unsigned long n)
{
	struct task_struct **tasks;
	unsigned int cpu;
	int i, ret = 0;

	tasks = kcalloc(nr_cpu_ids, sizeof(*tasks), GFP_KERNEL);
	if (!tasks)
		return -ENOMEM;
	for (i = 0; i < KPT_HAZ_NR; i++)
		atomic64_set(&kpt_haz_count[i], 0);

	cpus_read_lock();
	if (kpt_haz_nmi_src == KPT_NMI_PERF) {
		ret = kpt_haz_perf_create();
		if (ret) {
			pr_info("perf cycle counter unavailable (%d): no NMI source\n",
				ret);
			kpt_haz_nmi_src = KPT_NMI_NONE;
			ret = 0;
		}
	}
	WRITE_ONCE(kpt_haz_running, true);
	for_each_online_cpu(cpu) {
		struct kpt_haz_cpu *c = per_cpu_ptr(&kpt_haz_pcpu, cpu);

		c->n = n;
		c->cpu = cpu;
		init_completion(&c->done);
		tasks[cpu] = kthread_create(kpt_haz_thread, c, "kpt_hazard/%u",
					    cpu);
		if (IS_ERR(tasks[cpu])) {
			ret = PTR_ERR(tasks[cpu]);
			tasks[cpu] = NULL;
			break;
		}
		kthread_bind(tasks[cpu], cpu);
	}
	if (kpt_haz_nmi_src == KPT_NMI_PERF)
		for_each_online_cpu(cpu)
			perf_event_enable(per_cpu_ptr(&kpt_haz_pcpu, cpu)->pev);
	for_each_online_cpu(cpu) {
		if (!tasks[cpu])
			continue;
		if (ret) {
			/* Never started: nothing to wait for. */
			kthread_stop(tasks[cpu]);
			tasks[cpu] = NULL;
			continue;
		}
		wake_up_process(tasks[cpu]);
	}
	for_each_online_cpu(cpu) {
		if (!tasks[cpu])
			continue;
		wait_for_completion(&per_cpu_ptr(&kpt_haz_pcpu, cpu)->done);
		kthread_stop(tasks[cpu]);
	}
	WRITE_ONCE(kpt_haz_running, false);
	if (kpt_haz_nmi_src == KPT_NMI_PERF)
		kpt_haz_perf_release();
	for_each_online_cpu(cpu) {
		struct kpt_haz_cpu *c = per_cpu_ptr(&kpt_haz_pcpu, cpu);

		tasklet_kill(&c->tasklet);
		irq_work_sync(&c->work);
	}
	cpus_read_unlock();
	/* NMIs sent are delivered within microseconds; forget coalesced ones. */
	msleep(20);
	for_each_possible_cpu(cpu)
		atomic_set(&per_cpu_ptr(&kpt_haz_pcpu, cpu)->nmi_pending, 0);
	kfree(tasks);
	return ret;
}

static ssize_t kpt_haz_run_write(struct file *file, const char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	unsigned long n;
	int ret;

	ret = kstrtoul_from_user(ubuf, count, 0, &n);
	if (ret)
		return ret;
	if (!n || n > 100000000UL)
		return -EINVAL;
	mutex_lock(&kpt_haz_mutex);
	ret = kpt_haz_run(n);
	mutex_unlock(&kpt_haz_mutex);
	return ret ? ret : count;
}

static const struct file_operations kpt_haz_run_fops = {
	.owner	= THIS_MODULE,
	.write	= kpt_haz_run_write,
	.llseek	= noop_llseek,
};

static int kpt_haz_counts_show(struct seq_file *m, void *v)
{
	u64 total = 0;
	int i;

	mutex_lock(&kpt_haz_mutex);
	for (i = KPT_HAZ_TASK; i < KPT_HAZ_NR; i++) {
		u64 n = atomic64_read(&kpt_haz_count[i]);

		seq_printf(m, "%s %llu\n", kpt_haz_ctx_names[i], n);
		total += n;
	}
	seq_printf(m, "total %llu\n", total);
	seq_printf(m, "nmi_source %s\n", kpt_haz_nmi_names[kpt_haz_nmi_src]);
	mutex_unlock(&kpt_haz_mutex);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(kpt_haz_counts);

static int __init kpt_haz_init(void)
{
	unsigned int cpu;
	int ret;

	if (!strcmp(nmi, "none")) {
		kpt_haz_nmi_src = KPT_NMI_NONE;
	} else if (!strcmp(nmi, "ipi")) {
		kpt_haz_nmi_src = KPT_NMI_IPI;
	} else if (!strcmp(nmi, "perf") || !strcmp(nmi, "auto")) {
		kpt_haz_nmi_src = KPT_NMI_PERF;
	} else {
		pr_err("nmi=%s: expected auto, perf, ipi or none (-EINVAL)\n",
		       nmi);
		return -EINVAL;
	}
	if (kpt_haz_nmi_src == KPT_NMI_PERF) {
		/* Probe once now, so that counts says what runs. */
		cpus_read_lock();
		ret = kpt_haz_perf_create();
		cpus_read_unlock();
		if (!ret) {
			kpt_haz_perf_release();
		} else if (!strcmp(nmi, "perf")) {
			pr_err("nmi=perf: no hardware cycle counter (%d)\n",
			       ret);
			return ret;
		} else {
			kpt_haz_nmi_src = KPT_NMI_IPI;
		}
	}

	for_each_possible_cpu(cpu) {
		struct kpt_haz_cpu *c = per_cpu_ptr(&kpt_haz_pcpu, cpu);

		kpt_haz_timer_setup(&c->timer);
		tasklet_setup(&c->tasklet, kpt_haz_tasklet);
		kpt_haz_irq_work_setup(&c->work);
		atomic_set(&c->nmi_pending, 0);
	}
	if (kpt_haz_nmi_src == KPT_NMI_IPI) {
		ret = register_nmi_handler(NMI_LOCAL, kpt_haz_nmi_handler, 0,
					   "kpt_hazard");
		if (ret)
			return ret;
		kpt_haz_nmi_registered = true;
	}

	kpt_haz_dir = debugfs_create_dir("kpt_hazard", NULL);
	debugfs_create_file("run", 0200, kpt_haz_dir, NULL, &kpt_haz_run_fops);
	debugfs_create_file("counts", 0400, kpt_haz_dir, NULL,
			    &kpt_haz_counts_fops);
	pr_info("loaded, NMI source %s\n", kpt_haz_nmi_names[kpt_haz_nmi_src]);
	return 0;
}

static void __exit kpt_haz_exit(void)
{
	debugfs_remove_recursive(kpt_haz_dir);
	/* kpt_haz_run() waited for its NMIs; none is pending any more. */
	if (kpt_haz_nmi_registered)
		unregister_nmi_handler(NMI_LOCAL, "kpt_hazard");
}

module_init(kpt_haz_init);
module_exit(kpt_haz_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kptrace hazard tests: probe hits from every context");
