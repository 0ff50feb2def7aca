// SPDX-License-Identifier: GPL-2.0
/*
 * kpt_test: a deterministic target for the kptrace selftests.
 *
 * kpt_test_func() is called with known arguments from a known caller, so a
 * test can assert exact argument values, return values, counts and the
 * second frame of the stack:
 *
 *   /sys/kernel/debug/kpt_test/call      write N: N calls on this CPU
 *   /sys/kernel/debug/kpt_test/call_all  write N: N calls on every online
 *                                        CPU at once, one bound kthread per
 *                                        CPU; returns when all are done
 *   /sys/kernel/debug/kpt_test/sleep     write MS: kpt_test_sleep(MS)
 *
 * Call i (1..N) is kpt_test_func(i, 0x1111, 0x2222, 0x3333, 0x4444, 0x5555)
 * and returns -(long)i.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kthread.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/slab.h>
#include <linux/sched.h>
#include <linux/uaccess.h>

#include "kpt_test.h"

/* Upper bound for one write, so a typo cannot wedge the guest for hours. */
#define KPT_TEST_MAX_CALLS	10000000UL
#define KPT_TEST_MAX_SLEEP_MS	60000UL

static struct dentry *kpt_test_dir;

/*
 * noinline + __noclone: the compiler may neither inline the calls nor make a
 * specialised copy (kpt_test_func.constprop.0) that the loop would call
 * instead of the probed symbol. barrier() gives the body a side effect, so
 * no call can be dropped either.
 */
noinline __noclone long kpt_test_func(unsigned long a, unsigned long b,
				      unsigned long c, unsigned long d,
				      unsigned long e, unsigned long f)
{
	barrier();
	return -(long)a;
}
EXPORT_SYMBOL_GPL(kpt_test_func);

noinline __noclone long kpt_test_call_loop(unsigned long n)
{
	unsigned long i;
	long sum = 0;

	for (i = 1; i <= n; i++) {
		sum += kpt_test_func(i, 0x1111, 0x2222, 0x3333, 0x4444,
				     0x5555);
		barrier();
		if (!(i & 1023))
			cond_resched();
	}
	return sum;
}
EXPORT_SYMBOL_GPL(kpt_test_call_loop);

noinline __noclone long kpt_test_sleep(unsigned long ms)
{
	barrier();
	msleep(ms);
	return ms;
}
EXPORT_SYMBOL_GPL(kpt_test_sleep);

static int kpt_test_parse(const char __user *ubuf, size_t count,
			  unsigned long max, unsigned long *val)
{
	int ret;

	ret = kstrtoul_from_user(ubuf, count, 0, val);
	if (ret)
		return ret;
	if (*val > max)
		return -EINVAL;
	return 0;
}

static ssize_t kpt_test_call_write(struct file *file, const char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	unsigned long n;
	int ret;

	ret = kpt_test_parse(ubuf, count, KPT_TEST_MAX_CALLS, &n);
	if (ret)
		return ret;
	kpt_test_call_loop(n);
	return count;
}

struct kpt_test_worker {
	unsigned long n;
	struct completion done;
};

static int kpt_test_thread(void *data)
{
	struct kpt_test_worker *w = data;

	kpt_test_call_loop(w->n);
	complete(&w->done);
	/* Stay alive until kthread_stop() so the task can be reaped safely. */
	while (!kthread_should_stop()) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (kthread_should_stop())
			break;
		schedule();
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

static ssize_t kpt_test_call_all_write(struct file *file,
				       const char __user *ubuf,
				       size_t count, loff_t *ppos)
{
	struct task_struct **tasks;
	struct kpt_test_worker *workers;
	unsigned long n;
	unsigned int cpu;
	int ret;

	ret = kpt_test_parse(ubuf, count, KPT_TEST_MAX_CALLS, &n);
	if (ret)
		return ret;

	tasks = kcalloc(nr_cpu_ids, sizeof(*tasks), GFP_KERNEL);
	workers = kcalloc(nr_cpu_ids, sizeof(*workers), GFP_KERNEL);
	if (!tasks || !workers) {
		ret = -ENOMEM;
		goto out_free;
	}

	cpus_read_lock();
	for_each_online_cpu(cpu) {
		workers[cpu].n = n;
		init_completion(&workers[cpu].done);
		/*
		 * kthread_create() + kthread_bind(), not
		 * kthread_create_on_cpu(): 5.10 does not export that one.
		 */
		tasks[cpu] = kthread_create(kpt_test_thread, &workers[cpu],
					    "kpt_test/%u", cpu);
		if (IS_ERR(tasks[cpu])) {
			ret = PTR_ERR(tasks[cpu]);
			tasks[cpu] = NULL;
			goto out_stop;
		}
		kthread_bind(tasks[cpu], cpu);
	}
	/* Start them together, so the CPUs really run concurrently. */
	for_each_online_cpu(cpu)
		wake_up_process(tasks[cpu]);
	for_each_online_cpu(cpu)
		wait_for_completion(&workers[cpu].done);
	ret = count;

out_stop:
	for_each_online_cpu(cpu) {
		if (tasks[cpu])
			kthread_stop(tasks[cpu]);
	}
	cpus_read_unlock();
out_free:
	kfree(workers);
	kfree(tasks);
	return ret;
}

static ssize_t kpt_test_sleep_write(struct file *file, const char __user *ubuf,
				    size_t count, loff_t *ppos)
{
	unsigned long ms;
	int ret;

	ret = kpt_test_parse(ubuf, count, KPT_TEST_MAX_SLEEP_MS, &ms);
	if (ret)
		return ret;
	kpt_test_sleep(ms);
	return count;
}

/* A debugfs file whose write runs kpt_test_NAME_write(). */
#define KPT_TEST_WRITE_FOPS(name)					\
static const struct file_operations kpt_test_##name##_fops = {		\
	.owner	= THIS_MODULE,						\
	.open	= simple_open,						\
	.write	= kpt_test_##name##_write,				\
	.llseek	= noop_llseek,						\
}

KPT_TEST_WRITE_FOPS(call);

KPT_TEST_WRITE_FOPS(call_all);

KPT_TEST_WRITE_FOPS(sleep);

/*
 * Targets of the kpt_spec_* selftests (the probe spec language): known
 * values in registers, in memory behind pointers, and in kernel and user
 * strings.
 *
 *   /sys/kernel/debug/kpt_test/vals   write N: N calls of
 *       kpt_test_vals(KPT_TEST_VAL, -i, kpt_test_head), i = 1..N
 *   /sys/kernel/debug/kpt_test/strs   write BYTES: one call of
 *       kpt_test_strs(kpt_test_kstr, <the user's buffer>, <its length>)
 *   /sys/kernel/debug/kpt_test/dup    write N: N calls of kpt_dup(i), a
 *       static function that kpt_test2.ko has too (a duplicate name)
 *
 * kpt_test_u64 holds KPT_TEST_VAL; kpt_test_head points to a list of three
 * struct kpt_test_node (val at +0, next at +8): 0x11, -0x22, 0x33, NULL.
 */
#define KPT_TEST_VAL	0x8899aabbccddeeffULL

struct kpt_test_node {
	long			val;
	struct kpt_test_node	*next;
};

static u64 kpt_test_u64 __used = KPT_TEST_VAL;
static struct kpt_test_node kpt_test_nodes[3] = {
	{ 0x11, &kpt_test_nodes[1] },
	{ -0x22, &kpt_test_nodes[2] },
	{ 0x33, NULL },
};

static struct kpt_test_node *kpt_test_head __used = &kpt_test_nodes[0];
static const char kpt_test_kstr[] = "kpt_test \"kernel\" string \\ end";

/* static, like kpt_dup(): W=1 wants no prototype-less global function */
static noinline __noclone long kpt_test_vals(unsigned long v, long neg,
					     const struct kpt_test_node *node)
{
	barrier();
	return neg;
}

static noinline __noclone long kpt_test_strs(const char *kstr,
					     const char __user *ustr, long n)
{
	barrier();
	return n;
}

static noinline __noclone long kpt_dup(unsigned long a)
{
	barrier();
	return a;
}

static ssize_t kpt_test_vals_write(struct file *file, const char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	unsigned long n, i;
	int ret;

	ret = kpt_test_parse(ubuf, count, KPT_TEST_MAX_CALLS, &n);
	if (ret)
		return ret;
	for (i = 1; i <= n; i++)
		kpt_test_vals(READ_ONCE(kpt_test_u64), -(long)i,
			      READ_ONCE(kpt_test_head));
	return count;
}

static ssize_t kpt_test_strs_write(struct file *file, const char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	kpt_test_strs(kpt_test_kstr, ubuf, count);
	return count;
}

static ssize_t kpt_test_dup_write(struct file *file, const char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	unsigned long n, i;
	int ret;

	ret = kpt_test_parse(ubuf, count, KPT_TEST_MAX_CALLS, &n);
	if (ret)
		return ret;
	for (i = 1; i <= n; i++)
		kpt_dup(i);
	return count;
}

KPT_TEST_WRITE_FOPS(vals);

KPT_TEST_WRITE_FOPS(strs);

KPT_TEST_WRITE_FOPS(dup);

static void kpt_test_spec_files(struct dentry *dir)
{
	debugfs_create_file("vals", 0200, dir, NULL, &kpt_test_vals_fops);
	debugfs_create_file("strs", 0200, dir, NULL, &kpt_test_strs_fops);
	debugfs_create_file("dup", 0200, dir, NULL, &kpt_test_dup_fops);
}

static void kpt_test_kptr_files(struct dentry *dir);

static int __init kpt_test_init(void)
{
	kpt_test_dir = debugfs_create_dir("kpt_test", NULL);
	if (IS_ERR(kpt_test_dir)) {
		pr_err("cannot create debugfs directory kpt_test: %ld\n",
		       PTR_ERR(kpt_test_dir));
		return PTR_ERR(kpt_test_dir);
	}
	debugfs_create_file("call", 0200, kpt_test_dir, NULL,
			    &kpt_test_call_fops);
	debugfs_create_file("call_all", 0200, kpt_test_dir, NULL,
			    &kpt_test_call_all_fops);
	debugfs_create_file("sleep", 0200, kpt_test_dir, NULL,
			    &kpt_test_sleep_fops);
	kpt_test_spec_files(kpt_test_dir);
	kpt_test_kptr_files(kpt_test_dir);
	return 0;
}

static void __exit kpt_test_exit(void)
{
	debugfs_remove_recursive(kpt_test_dir);
}

module_init(kpt_test_init);
module_exit(kpt_test_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kptrace selftest target: known calls of kpt_test_func()");

/*
 * A function that returns a kernel pointer, for kpt_hazard_perm_addrs
 * (what a reader who may not see kernel addresses gets of a return value):
 *
 *   /sys/kernel/debug/kpt_test/kptr   write N: N calls of kpt_test_kptr(i),
 *       i = 1..N, which returns current (a pointer into the kernel's
 *       direct map) for an odd i and ERR_PTR(-ENOENT) for an even one
 */
static noinline __noclone void *kpt_test_kptr(unsigned long i)
{
	barrier();
	return i & 1 ? (void *)current : ERR_PTR(-ENOENT);
}

static ssize_t kpt_test_kptr_write(struct file *file, const char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	unsigned long n, i;
	int ret;

	ret = kpt_test_parse(ubuf, count, KPT_TEST_MAX_CALLS, &n);
	if (ret)
		return ret;
	for (i = 1; i <= n; i++)
		kpt_test_kptr(i);
	return count;
}

KPT_TEST_WRITE_FOPS(kptr);

static void kpt_test_kptr_files(struct dentry *dir)
{
	debugfs_create_file("kptr", 0200, dir, NULL, &kpt_test_kptr_fops);
}
