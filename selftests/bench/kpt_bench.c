// SPDX-License-Identifier: GPL-2.0
/*
 * kpt_bench: the target of kptrace's micro benchmark (make bench).
 *
 * kpt_bench_func() takes four u64 arguments and is called N times from a
 * kernel loop, so a tracer's cost per call is measured without any syscall
 * noise, and timed in the kernel:
 *
 *   /sys/kernel/debug/kpt_bench/run   write N: N calls on this CPU
 *                                     (migration disabled),
 *                                     kpt_bench_func(i, i + 1, i + 2, i + 3)
 *                                     for i = 0..N-1, preemptible;
 *                                     read: "calls=N ns=T chunk_ns=M
 *                                     chunk=C run=R" of the last run
 *
 * T is ktime_get_ns() around the whole loop. M is the median time of the
 * run's whole chunks of KPT_BENCH_CHUNK calls: a per-call cost that stalls
 * of the whole virtual machine (another QEMU guest taking the host's CPU)
 * do not move as long as most chunks see none, but that also hides a
 * tracer's costs that come once every few chunks; T counts everything.
 * Under QEMU's software emulation only ratios between runs of one boot
 * mean anything.
 *
 * R numbers the runs since the module was loaded. Under QEMU with
 * insn_plugin.so, the loop's instructions are counted exactly: the loop is
 * bracketed by two markers (kpt_bench_mark_*()) whose every execution the
 * plugin logs with the executing vCPU's instruction count and R.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/mutex.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/sort.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include "kpt_bench.h"

/* Upper bound for one write, so a typo cannot wedge the guest for hours. */
#define KPT_BENCH_MAX_CALLS	100000000ULL
/* Short chunks: a host stall of a few ms must hit few of them */
#define KPT_BENCH_CHUNK		64
#define KPT_BENCH_RESCHED	1024
/* Chunks timed per run: the first 1M calls */
#define KPT_BENCH_MAX_CHUNKS	16384

/*
 * insn_plugin.c's markers: "nopl 0x4b5054NN(%rax,%rax,1)" with the run's
 * number in %rax, NN 0x01 before the loop and 0x02 after it. Nops that no
 * compiler emits, with nothing to do outside that plugin.
 */
static __always_inline void kpt_bench_mark_start(u64 run)
{
	asm volatile(".byte 0x0f, 0x1f, 0x84, 0x00, 0x01, 0x54, 0x50, 0x4b"
		     : : "a" (run) : "memory");
}

static __always_inline void kpt_bench_mark_end(u64 run)
{
	asm volatile(".byte 0x0f, 0x1f, 0x84, 0x00, 0x02, 0x54, 0x50, 0x4b"
		     : : "a" (run) : "memory");
}

static struct dentry *kpt_bench_dir;

/* The last run, under kpt_bench_lock; runs are serialised by it too. */
static DEFINE_MUTEX(kpt_bench_lock);
static u64 kpt_bench_run;
static u64 kpt_bench_calls;
static u64 kpt_bench_ns;
static u64 kpt_bench_sum;
static u64 kpt_bench_chunk_ns;
static u32 kpt_bench_chunks[KPT_BENCH_MAX_CHUNKS];

/*
 * noinline + __noclone: the loop calls this very symbol, never an inlined
 * or specialised copy (kpt_bench_func.constprop.0) that a probe would miss.
 * barrier() gives the body a side effect, so no call can be dropped.
 */
noinline __noclone u64 kpt_bench_func(u64 a, u64 b, u64 c, u64 d)
{
	barrier();
	return a + b + c + d;
}
EXPORT_SYMBOL_GPL(kpt_bench_func);

/*
 * Times each whole chunk into kpt_bench_chunks[], their number in *nchunks;
 * run is the number the markers hand insn_plugin.
 */
static noinline u64 kpt_bench_loop(u64 n, unsigned int *nchunks, u64 run)
{
	u64 i, t, t0 = 0, sum = 0;
	unsigned int c = 0;

	kpt_bench_mark_start(run);
	for (i = 0; i < n; i++) {
		if (!(i % KPT_BENCH_CHUNK)) {
			if (!(i % KPT_BENCH_RESCHED))
				cond_resched();
			t = ktime_get_ns();
			if (i && c < KPT_BENCH_MAX_CHUNKS)
				kpt_bench_chunks[c++] = min_t(u64, t - t0,
							      U32_MAX);
			t0 = t;
		}
		sum += kpt_bench_func(i, i + 1, i + 2, i + 3);
	}
	kpt_bench_mark_end(run);
	*nchunks = c;
	return sum;
}

static int kpt_bench_cmp(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

static ssize_t kpt_bench_run_write(struct file *file, const char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	unsigned int nchunks;
	u64 n, t0, t1, sum;
	int ret;

	ret = kstrtou64_from_user(ubuf, count, 0, &n);
	if (ret)
		return ret;
	if (n > KPT_BENCH_MAX_CALLS)
		return -EINVAL;
	if (mutex_lock_interruptible(&kpt_bench_lock))
		return -ERESTARTSYS;
	kpt_bench_run++;
	/* One CPU from marker to marker: insn_plugin counts only its vCPU */
	migrate_disable();
	t0 = ktime_get_ns();
	sum = kpt_bench_loop(n, &nchunks, kpt_bench_run);
	t1 = ktime_get_ns();
	migrate_enable();
	kpt_bench_calls = n;
	kpt_bench_ns = t1 - t0;
	kpt_bench_sum = sum;
	kpt_bench_chunk_ns = 0;
	if (nchunks) {
		sort(kpt_bench_chunks, nchunks, sizeof(u32), kpt_bench_cmp,
		     NULL);
		kpt_bench_chunk_ns = kpt_bench_chunks[nchunks / 2];
	}
	mutex_unlock(&kpt_bench_lock);
	return count;
}

static ssize_t kpt_bench_run_read(struct file *file, char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	char buf[128];
	int len;

	mutex_lock(&kpt_bench_lock);
	len = scnprintf(buf, sizeof(buf),
			"calls=%llu ns=%llu chunk_ns=%llu chunk=%u run=%llu\n",
			kpt_bench_calls, kpt_bench_ns, kpt_bench_chunk_ns,
			KPT_BENCH_CHUNK, kpt_bench_run);
	mutex_unlock(&kpt_bench_lock);
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static const struct file_operations kpt_bench_run_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.read	= kpt_bench_run_read,
	.write	= kpt_bench_run_write,
	.llseek	= default_llseek,
};

static int __init kpt_bench_init(void)
{
	kpt_bench_dir = debugfs_create_dir("kpt_bench", NULL);
	if (IS_ERR(kpt_bench_dir))
		return PTR_ERR(kpt_bench_dir);
	debugfs_create_file("run", 0600, kpt_bench_dir, NULL,
			    &kpt_bench_run_fops);
	return 0;
}

static void __exit kpt_bench_exit(void)
{
	debugfs_remove_recursive(kpt_bench_dir);
}

module_init(kpt_bench_init);
module_exit(kpt_bench_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kptrace benchmark target: a 4-argument function called N times from a timed kernel loop");
