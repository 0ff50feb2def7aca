// SPDX-License-Identifier: GPL-2.0
/*
 * kpt_test3: a target for kpt_spec_module_blacklist. Two functions with the
 * same arguments, one of them on the kprobe blacklist:
 *
 *   kpt_test3_func(i)      an ordinary function
 *   kpt_test3_nokprobe(i)  NOKPROBE_SYMBOL(): the kprobe core adds it to
 *                          its blacklist when the module comes, and must
 *                          then refuse every probe on it
 *
 *   /sys/kernel/debug/kpt_test3/call  write N: for i = 1..N,
 *                                     kpt_test3_nokprobe(i), kpt_test3_func(i)
 *
 * kpt_test3_func() returns its argument, kpt_test3_nokprobe() its argument
 * plus 3: bodies that differ, or GCC's identical code folding would make
 * the two functions one, blacklisted as a whole.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/uaccess.h>

#define KPT_TEST3_MAX_CALLS	1000000UL

static struct dentry *kpt_test3_dir;

static noinline __noclone long kpt_test3_func(unsigned long a)
{
	barrier();
	return a;
}

static noinline __noclone long kpt_test3_nokprobe(unsigned long a)
{
	barrier();
	return a + 3;
}
NOKPROBE_SYMBOL(kpt_test3_nokprobe);

static ssize_t kpt_test3_call_write(struct file *file,
				    const char __user *ubuf, size_t count,
				    loff_t *ppos)
{
	unsigned long n, i;
	int ret;

	ret = kstrtoul_from_user(ubuf, count, 0, &n);
	if (ret)
		return ret;
	if (n > KPT_TEST3_MAX_CALLS)
		return -EINVAL;
	for (i = 1; i <= n; i++) {
		kpt_test3_nokprobe(i);
		kpt_test3_func(i);
	}
	return count;
}

static const struct file_operations kpt_test3_call_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.write	= kpt_test3_call_write,
	.llseek	= noop_llseek,
};

static int __init kpt_test3_init(void)
{
	kpt_test3_dir = debugfs_create_dir("kpt_test3", NULL);
	if (IS_ERR(kpt_test3_dir)) {
		pr_err("cannot create debugfs directory kpt_test3: %ld\n",
		       PTR_ERR(kpt_test3_dir));
		return PTR_ERR(kpt_test3_dir);
	}
	debugfs_create_file("call", 0200, kpt_test3_dir, NULL,
			    &kpt_test3_call_fops);
	return 0;
}

static void __exit kpt_test3_exit(void)
{
	debugfs_remove_recursive(kpt_test3_dir);
}

module_init(kpt_test3_init);
module_exit(kpt_test3_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kptrace selftest target: a module with a NOKPROBE_SYMBOL() function");
