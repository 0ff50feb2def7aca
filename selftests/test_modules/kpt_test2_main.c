// SPDX-License-Identifier: GPL-2.0
/*
 * kpt_test2: a second, tiny target for the kptrace selftests, loaded and
 * unloaded while kptrace runs (MOD:SYM probes that wait for their module)
 * without disturbing kpt_test.
 *
 * Its init function calls kpt_test2_func(i, 0x2222) for i = 1..init_calls
 * (module parameter, default 3), so a probe armed before init sees them.
 *
 *   /sys/kernel/debug/kpt_test2/call  write N: kpt_test2_func(i, 0x2222),
 *                                     i = 1..N
 *   /sys/kernel/debug/kpt_test2/dup   write N: N calls of kpt_dup(i), a
 *                                     static function kpt_test.ko has too
 *   /sys/kernel/debug/kpt_test2/dup2  write N: N calls of the other
 *                                     kpt_dup(i), of kpt_test2_dup.c, which
 *                                     returns i + 1000
 *
 * kpt_test2_func(a, b) returns a + b.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/uaccess.h>
#include "kpt_test2.h"

#define KPT_TEST2_MAX_CALLS	1000000UL

static unsigned int init_calls = 3;
module_param(init_calls, uint, 0444);
MODULE_PARM_DESC(init_calls, "calls of kpt_test2_func() made by the init function (default 3)");

static struct dentry *kpt_test2_dir;

static noinline __noclone long kpt_test2_func(unsigned long a,
					      unsigned long b)
{
	barrier();
	return a + b;
}

/*
 * The same name as kpt_test's kpt_dup() and kpt_test2_dup.c's: three
 * "kpt_dup" in kallsyms, two of them kpt_test2's.
 */
static noinline __noclone long kpt_dup(unsigned long a)
{
	barrier();
	return a;
}

static noinline __noclone void kpt_test2_calls(unsigned long n)
{
	unsigned long i;

	for (i = 1; i <= n; i++) {
		kpt_test2_func(i, 0x2222);
		barrier();
	}
}

static int kpt_test2_parse(const char __user *ubuf, size_t count,
			   unsigned long *n)
{
	int ret = kstrtoul_from_user(ubuf, count, 0, n);

	if (ret)
		return ret;
	return *n > KPT_TEST2_MAX_CALLS ? -EINVAL : 0;
}

static void kpt_test2_dup_calls(unsigned long n)
{
	unsigned long i;

	for (i = 1; i <= n; i++)
		kpt_dup(i);
}

/* The files: each write of a number N makes N calls of its function. */
static const struct kpt_test2_file {
	const char *name;
	void (*calls)(unsigned long n);
} kpt_test2_files[] = {
	{ "call", kpt_test2_calls },		/* kpt_test2_func */
	{ "dup", kpt_test2_dup_calls },		/* this file's kpt_dup */
	{ "dup2", kpt_test2_dup2_calls },	/* kpt_test2_dup.c's */
};

static ssize_t kpt_test2_write(struct file *file, const char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	const struct kpt_test2_file *f = file->private_data;
	unsigned long n;
	int ret;

	ret = kpt_test2_parse(ubuf, count, &n);
	if (ret)
		return ret;
	f->calls(n);
	return count;
}

static const struct file_operations kpt_test2_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.write	= kpt_test2_write,
	.llseek	= noop_llseek,
};

static int __init kpt_test2_init(void)
{
	unsigned int i;

	kpt_test2_calls(init_calls);
	kpt_test2_dir = debugfs_create_dir("kpt_test2", NULL);
	if (IS_ERR(kpt_test2_dir)) {
		pr_err("cannot create debugfs directory kpt_test2: %ld\n",
		       PTR_ERR(kpt_test2_dir));
		return PTR_ERR(kpt_test2_dir);
	}
	for (i = 0; i < ARRAY_SIZE(kpt_test2_files); i++)
		debugfs_create_file(kpt_test2_files[i].name, 0200,
				    kpt_test2_dir,
				    (void *)&kpt_test2_files[i],
				    &kpt_test2_fops);
	return 0;
}

static void __exit kpt_test2_exit(void)
{
	debugfs_remove_recursive(kpt_test2_dir);
}

module_init(kpt_test2_init);
module_exit(kpt_test2_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kptrace selftest target: a module to load and unload under MOD:SYM probes");
