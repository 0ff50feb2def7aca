// SPDX-License-Identifier: GPL-2.0
/*
 * kptrace: /dev/kptrace, the binary interface the kptrace tool reads.
 *
 * read() returns whole records (include/uapi/kptrace.h), oldest first
 * across CPUs; it blocks until one is pending unless O_NONBLOCK, and fails
 * with -EINVAL when the buffer cannot hold the next record. poll() reports
 * EPOLLIN when a record is pending. Opening needs CAP_PERFMON or
 * CAP_SYS_ADMIN: records hold kernel addresses and other users' data.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/miscdevice.h>
#include <linux/fs.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/capability.h>
#include "kptrace.h"

/* Records are copied out in batches of up to this many bytes. */
#define KPT_DEV_BATCH	(64 * 1024)

static int kpt_dev_open(struct inode *inode, struct file *file)
{
	void *buf;

	if (!perfmon_capable())
		return -EPERM;
	buf = kvmalloc(KPT_DEV_BATCH, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	file->private_data = buf;
	return nonseekable_open(inode, file);
}

static int kpt_dev_release(struct inode *inode, struct file *file)
{
	kvfree(file->private_data);
	return 0;
}

static ssize_t kpt_dev_read(struct file *file, char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	bool block = !(file->f_flags & O_NONBLOCK);
	void *buf = file->private_data;
	size_t done = 0;
	ssize_t ret = 0;

	while (done < count) {
		ret = kpt_rings_read(buf, min_t(size_t, count - done,
						KPT_DEV_BATCH),
				     block && !done);
		if (ret <= 0)
			break;
		if (copy_to_user(ubuf + done, buf, ret)) {
			ret = -EFAULT;
			break;
		}
		done += ret;
	}
	if (done)
		return done;
	return ret ? ret : -EAGAIN;
}

static long kpt_dev_ioctl(struct file *file, unsigned int cmd,
			  unsigned long arg)
{
	struct kpt_info info = {
		.magic		= KPT_MAGIC,
		.version	= KPT_VERSION,
		.nr_cpus	= nr_cpu_ids,
		.nr_probes	= kpt_probes_count(),
		.ring_bytes	= kpt_cfg.ring_bytes,
		.max_record	= kpt_cfg.max_record,
	};

	if (cmd != KPT_IOC_INFO)
		return -ENOTTY;
	if (copy_to_user((void __user *)arg, &info, sizeof(info)))
		return -EFAULT;
	return 0;
}

static const struct file_operations kpt_dev_fops = {
	.owner		= THIS_MODULE,
	.open		= kpt_dev_open,
	.release	= kpt_dev_release,
	.read		= kpt_dev_read,
	.poll		= kpt_rings_poll,
	.unlocked_ioctl	= kpt_dev_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
};

static struct miscdevice kpt_miscdev = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "kptrace",
	.fops	= &kpt_dev_fops,
	.mode	= 0600,
};

int kpt_chardev_init(void)
{
	int ret = misc_register(&kpt_miscdev);

	if (ret)
		pr_err("cannot register /dev/kptrace (%d)\n", ret);
	return ret;
}

void kpt_chardev_exit(void)
{
	misc_deregister(&kpt_miscdev);
}
