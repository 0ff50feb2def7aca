// SPDX-License-Identifier: GPL-2.0
/*
 * kptrace: /dev/kptrace, the binary interface the kptrace tool reads.
 *
 * read() returns whole records (include/uapi/kptrace.h), oldest first
 * across CPUs; it blocks until one is pending unless O_NONBLOCK, and fails
 * with -EINVAL when the buffer cannot hold the next record; a read of 0
 * bytes returns 0 at once. poll() reports EPOLLIN when a record is
 * pending. Opening needs CAP_PERFMON or CAP_SYS_ADMIN: records hold kernel
 * addresses and other users' data.
 * write() (or ioctl(KPT_IOC_PROBE)) takes probe specs, one per line, and
 * adds or removes probes while kptrace runs; both need the file open for
 * writing (the ioctl fails with -EBADF otherwise, as write(2) does).
 *
 * Hidden addresses. A reader that may not see kernel addresses (the rule
 * of /proc/kallsyms: without CAP_SYSLOG, or with kptr_restrict=2, decided
 * at open) gets none, in any field. Its records are edited on their way
 * out (kpt_hide_addrs()), by their layout alone, with no probe lookup:
 *  - every stack slot of an entry record is zeroed;
 *  - every 64-bit value slot of an entry or return record, its args[]
 *    and kpt_ret.ret, whose value lies in the kernel half of the address
 *    space (KPT_KERNEL_HALF and up) and is not an error code (-4095..-1,
 *    IS_ERR_VALUE()) is zeroed. That covers x64 and symbol arguments,
 *    %sp, %ip, $stack and pointers returned. A string's slot is a
 *    KPT_STR_SLOT() encoding, whose offset in the record is below 64 KiB:
 *    never in that range. A negative number below -4095 is in it, and
 *    is zeroed too;
 *  - a record where anything was zeroed (an entry with a stack, always)
 *    gets KPT_F_ADDR_HIDDEN.
 * Narrower values (u32, x32, s16, ...) were zero- or sign-extended by
 * their type and pass unchanged: a kernel address read as s32 comes out
 * sign-extended into the kernel half anyway, and a reader who asked for a
 * pointer cut to u32 gets what was asked for. lat_ns and entry_ts_ns are
 * times. Such a reader always takes the kernel-buffer path of the rings.
 * The padding after a record's last string is zeroed for every reader, by
 * the writer (fetch.c).
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
#include <linux/err.h>
#include <linux/string.h>
#include <linux/mutex.h>
#include "kptrace.h"

/* Records are copied out in batches of up to this many bytes. */
#define KPT_DEV_BATCH	(64 * 1024)

struct kpt_dev_reader {
	struct mutex	lock;	/* readers sharing this open file */
	void		*buf;
	bool		hide_addrs;
};

/*
 * May this opener see kernel addresses? The rule of /proc/kallsyms
 * (kallsyms_show_value(), which is not exported): CAP_SYSLOG, and
 * kptr_restrict below 2. %pK applies kptr_restrict: at 2 it prints zeros.
 */
static bool kpt_addrs_visible(void)
{
	char probe[24];

	if (!capable(CAP_SYSLOG))
		return false;
	snprintf(probe, sizeof(probe), "%pK", &kpt_cfg);
	return strspn(probe, "0") != strlen(probe);
}

/*
 * Where the kernel half of x86-64's address space begins with 5-level
 * paging, whose direct map and vmalloc area lie below 0xffff800000000000
 * (the start with 4-level paging: the values in between are not canonical
 * addresses then, and hiding them costs nothing real).
 */
#define KPT_KERNEL_HALF		0xff00000000000000ULL

/* Zero @v if it may be a kernel address. Returns true if it did. */
static bool kpt_hide_value(__u64 *v)
{
	if (*v < KPT_KERNEL_HALF || IS_ERR_VALUE(*v))
		return false;
	*v = 0;
	return true;
}

/* Hide the kernel addresses of every record in @buf: see the top. */
static void kpt_hide_addrs(void *buf, size_t len)
{
	struct kpt_event *ev;
	struct kpt_ret *ret;
	unsigned int i, fixed;
	__u64 *args;
	size_t off;
	bool hid;

	for (off = 0; off < len; off += ev->size) {
		ev = buf + off;
		if (ev->type == KPT_EV_ENTRY) {
			args = ev->data;
			fixed = KPT_ENTRY_SIZE(ev->nr_args, ev->nr_stack);
		} else if (ev->type == KPT_EV_RETURN) {
			args = ev->data + KPT_RET_SLOTS;
			fixed = KPT_RET_SIZE + ev->nr_args * sizeof(__u64);
		} else {
			continue;
		}
		if (WARN_ON_ONCE(fixed > ev->size)) {
			/* cannot happen; if it does, hide it all */
			memset(ev->data, 0, ev->size -
			       min_t(u32, ev->size, KPT_HDR_SIZE));
			ev->flags |= KPT_F_ADDR_HIDDEN;
			continue;
		}
		if (ev->type == KPT_EV_ENTRY) {
			memset(args + ev->nr_args, 0,
			       ev->nr_stack * sizeof(__u64));
			hid = ev->nr_stack;
		} else {
			ret = (struct kpt_ret *)ev->data;
			hid = kpt_hide_value((__u64 *)&ret->ret);
		}
		for (i = 0; i < ev->nr_args; i++)
			hid |= kpt_hide_value(&args[i]);
		if (hid)
			ev->flags |= KPT_F_ADDR_HIDDEN;
	}
}

static int kpt_dev_open(struct inode *inode, struct file *file)
{
	struct kpt_dev_reader *rd;

	if (!perfmon_capable())
		return -EPERM;
	rd = kzalloc(sizeof(*rd), GFP_KERNEL);
	if (!rd)
		return -ENOMEM;
	rd->buf = kvmalloc(KPT_DEV_BATCH, GFP_KERNEL);
	if (!rd->buf) {
		kfree(rd);
		return -ENOMEM;
	}
	mutex_init(&rd->lock);
	rd->hide_addrs = !kpt_addrs_visible();
	file->private_data = rd;
	return nonseekable_open(inode, file);
}

static int kpt_dev_release(struct inode *inode, struct file *file)
{
	struct kpt_dev_reader *rd = file->private_data;

	kvfree(rd->buf);
	kfree(rd);
	return 0;
}

static ssize_t kpt_dev_read(struct file *file, char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	bool block = !(file->f_flags & O_NONBLOCK);
	struct kpt_dev_reader *rd = file->private_data;
	void *buf = rd->buf;
	size_t done = 0;
	ssize_t ret = 0;

	if (!count)
		return 0;
	/* Processes sharing the file (after fork) share its buffer. */
	if (mutex_lock_interruptible(&rd->lock))
		return -ERESTARTSYS;
	while (done < count) {
		/*
		 * Straight from the rings into the reader's memory, unless
		 * the records need editing or may be torn (overwrite=1).
		 */
		if (!rd->hide_addrs && !kpt_cfg.overwrite) {
			ret = kpt_rings_read_user(ubuf + done, count - done,
						  block && !done);
			if (ret <= 0)
				break;
			done += ret;
			continue;
		}
		ret = kpt_rings_read(buf, min_t(size_t, count - done,
						KPT_DEV_BATCH), ULONG_MAX,
				     block && !done);
		if (ret <= 0)
			break;
		if (rd->hide_addrs)
			kpt_hide_addrs(buf, ret);
		if (copy_to_user(ubuf + done, buf, ret)) {
			ret = -EFAULT;
			break;
		}
		done += ret;
	}
	mutex_unlock(&rd->lock);
	if (done)
		return done;
	return ret ? ret : -EAGAIN;
}

/* Probe specs from userspace: at most one page of lines at a time. */
static int kpt_dev_specs(const char __user *ubuf, size_t len)
{
	char *text;
	int ret;

	if (len > PAGE_SIZE)
		return -E2BIG;
	text = memdup_user(ubuf, len);
	if (IS_ERR(text))
		return PTR_ERR(text);
	ret = kpt_probes_write(text, len, '\n');
	kfree(text);
	return ret;
}

static ssize_t kpt_dev_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	int ret = kpt_dev_specs(ubuf, count);

	return ret ? ret : count;
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
		.max_record	= KPT_RECORD_MAX,
	};
	struct kpt_probe_cmd pc;

	switch (cmd) {
	case KPT_IOC_INFO:
		if (copy_to_user((void __user *)arg, &info, sizeof(info)))
			return -EFAULT;
		return 0;
	case KPT_IOC_PROBE:
		/* Adding probes is writing: not on a read-only descriptor. */
		if (!(file->f_mode & FMODE_WRITE))
			return -EBADF;
		if (copy_from_user(&pc, (void __user *)arg, sizeof(pc)))
			return -EFAULT;
		return kpt_dev_specs(u64_to_user_ptr(pc.text), pc.len);
	default:
		return -ENOTTY;
	}
}

static const struct file_operations kpt_dev_fops = {
	.owner		= THIS_MODULE,
	.open		= kpt_dev_open,
	.release	= kpt_dev_release,
	.read		= kpt_dev_read,
	.write		= kpt_dev_write,
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
