// SPDX-License-Identifier: GPL-2.0
/*
 * kptrace: /dev/kptrace, the binary interface the kptrace tool reads.
 *
 * read() returns whole records (include/uapi/kptrace.h), oldest first
 * across CPUs; it blocks until one is pending unless O_NONBLOCK, and fails
 * with -EINVAL when the buffer cannot hold the next record; a read of 0
 * bytes returns 0 at once. A read whose buffer faults returns the whole
 * records copied before the fault, or -EFAULT if there are none, and
 * consumes nothing else: the next read returns the rest, whichever path
 * (below) it took. poll() reports EPOLLIN when a record is pending.
 * Opening needs CAP_PERFMON or CAP_SYS_ADMIN: records hold kernel
 * addresses and other users' data.
 * write() (or ioctl(KPT_IOC_PROBE)) takes probe specs, one per line, and
 * adds or removes probes while kptrace runs; both need the file open for
 * writing (the ioctl fails with -EBADF otherwise, as write(2) does).
 * ioctl(KPT_IOC_HIST) returns an aggregation in binary (uapi/kptrace.h);
 * clearing one needs the file open for writing too.
 *
 * Sessions. An open file reads and adds to the default session until
 * ioctl(KPT_IOC_SESSION) makes it a session of its own (session.c): then
 * its reads take that session's records only, its probes are that
 * session's, and its release closes the session, whoever held the file
 * last. The switch happens once, under the file's switch_lock, before the
 * file was used (kpt_dev_reader::used: a read, a poll, a write, an add),
 * whose first use takes that lock too: so an operation either comes after
 * the switch and finds the new session, or before it and makes the switch
 * fail with -EBUSY. switch_lock is never held across a wait for records
 * (a blocking read holds only lock), so a first use waits at most for one
 * session's allocation. Every operation loads the session once, with acquire,
 * and a session is freed only by the file's release, after all of them.
 *
 * Hidden addresses. A reader that may not see kernel addresses (the rule
 * of /proc/kallsyms, decided at open: kpt_addrs_visible()) gets none, in
 * any field: its records are edited on their way out (kpt_hide_addrs(),
 * hide.c says how). Such a reader always takes the kernel-buffer path of
 * the rings.
 *
 * Paths. The rings' reader (kpt_buffer_read(), ring_read.c) decides: a
 * reader that sees addresses, with overwrite=0, gets records copied
 * straight from the rings into its memory, and the rings free only what
 * was copied. The others (hidden addresses, overwrite=1) take up to what
 * the read can return into the open file's buffer, where what a fault
 * left unreturned waits for the next read (struct kpt_dev_reader).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/fs.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/err.h>
#include <linux/mutex.h>
#include "clock.h"
#include "config.h"
#include "ring.h"
#include "probe.h"
#include "hide.h"
#include "files.h"
#include "session.h"

/*
 * Records are copied out in batches of up to this many bytes (a session
 * counts them in its memory).
 */
#define KPT_DEV_BATCH	KPT_SESSION_FILE_BYTES

/*
 * The kernel-buffer path takes at most what fits in the reader's buffer
 * from the rings, and those records count as read at once. If copying
 * them out faults, the rest stays here (buf from off to len, under lock)
 * and the next read() returns it first: nothing taken from the rings is
 * dropped, but what is here when the file is closed.
 */
struct kpt_dev_reader {
	struct mutex	lock;	/* readers sharing this open file */
	struct mutex	switch_lock;	/* KPT_IOC_SESSION against a first use */
	void		*buf;
	size_t		len;	/* bytes of records in buf */
	size_t		off;	/* already returned */
	bool		hide_addrs;
	bool		used;	/* read, or probes added: no new session */
	/* the default one, or its own (KPT_IOC_SESSION), set once */
	struct kpt_session *sess;
};

/*
 * The session of @rd: set once, before the file is used
 * (kpt_dev_session_new()); pairs with its store-release.
 */
static struct kpt_session *kpt_dev_sess(struct kpt_dev_reader *rd)
{
	/* pairs with kpt_dev_session_new()'s store: the session whole */
	return smp_load_acquire(&rd->sess);
}

/*
 * The file is used: KPT_IOC_SESSION may no longer change its session.
 * The first use takes the switch_lock KPT_IOC_SESSION holds, so that it
 * comes wholly before or after a switch; later ones see used set
 * (acquire, pairing with the release below) and the session it was set
 * after. Returns the session the operation works on, or -EINTR when a
 * fatal signal came while it waited for a switch.
 */
static struct kpt_session *kpt_dev_use(struct kpt_dev_reader *rd)
{
	/* pairs with the store below, made under the lock */
	if (!smp_load_acquire(&rd->used)) {
		if (mutex_lock_killable(&rd->switch_lock))
			return ERR_PTR(-EINTR);
		/* before the unlock: a switch after it sees it */
		smp_store_release(&rd->used, true);
		mutex_unlock(&rd->switch_lock);
	}
	return kpt_dev_sess(rd);
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
	mutex_init(&rd->switch_lock);
	rd->hide_addrs = !kpt_addrs_visible();
	rd->sess = kpt_default_session;
	file->private_data = rd;
	return nonseekable_open(inode, file);
}

/* The last descriptor went: the file's session goes with it. */
static int kpt_dev_release(struct inode *inode, struct file *file)
{
	struct kpt_dev_reader *rd = file->private_data;

	if (rd->sess != kpt_default_session)
		kpt_session_close(rd->sess);
	kvfree(rd->buf);
	kfree(rd);
	return 0;
}

/*
 * The whole records of rd->buf from rd->off that fit in @room, to @ubuf.
 * Returns their bytes, -EINVAL if the first does not fit, or, when the
 * copy faults, the bytes of the whole records copied before the fault,
 * -EFAULT if none. What was not returned stays for the next read.
 */
static ssize_t kpt_dev_copy_kept(struct kpt_dev_reader *rd,
				 char __user *ubuf, size_t room)
{
	const struct kpt_event *ev;
	size_t n = 0, copied;

	while (rd->off + n < rd->len) {
		ev = rd->buf + rd->off + n;
		if (ev->size > room - n)
			break;
		n += ev->size;
	}
	if (!n)
		return -EINVAL;
	copied = n - copy_to_user(ubuf, rd->buf + rd->off, n);
	if (copied < n) {
		/* the records that reached the reader whole */
		for (n = 0; ; n += ev->size) {
			ev = rd->buf + rd->off + n;
			if (ev->size > copied - n)
				break;
		}
		if (!n)
			return -EFAULT;
	}
	/* poll() reads off and len without rd->lock */
	WRITE_ONCE(rd->off, rd->off + n);
	return n;
}

static ssize_t kpt_dev_read(struct file *file, char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	bool block = !(file->f_flags & O_NONBLOCK);
	struct kpt_dev_reader *rd = file->private_data;
	struct kpt_session *sess;
	struct kpt_read rq = {
		.kbuf		= rd->buf,
		.kbuf_len	= KPT_DEV_BATCH,
		.max_nr		= ULONG_MAX,
		.hide_addrs	= rd->hide_addrs,
		.may_read	= kpt_records_read_check,
	};
	size_t done = 0;
	ssize_t ret;

	if (!count)
		return kpt_records_read_check();
	sess = kpt_dev_use(rd);
	if (IS_ERR(sess))
		return PTR_ERR(sess);
	/* Processes sharing the file (after fork) share its buffer. */
	if (mutex_lock_interruptible(&rd->lock))
		return -ERESTARTSYS;
	/* under the lock: a read may sleep on it across a lockdown's raise */
	ret = kpt_records_read_check();
	if (ret) {
		mutex_unlock(&rd->lock);
		return ret;
	}
	while (done < count) {
		/* What a faulting read took from the rings comes first. */
		if (rd->off < rd->len) {
			ret = kpt_dev_copy_kept(rd, ubuf + done, count - done);
			if (ret <= 0)
				break;
			done += ret;
			if (rd->off < rd->len)
				break;		/* a fault, or no more room */
			continue;
		}
		rq.ubuf = ubuf + done;
		rq.len = count - done;
		rq.max_record = READ_ONCE(sess->max_record);
		rq.block = block && !done;
		ret = kpt_buffer_read(sess->buf, &rq);
		if (ret <= 0)
			break;
		if (!rq.in_kbuf) {
			done += ret;
			continue;
		}
		/*
		 * In rd->buf, no more than the room left: only a fault keeps
		 * records there.
		 */
		if (rd->hide_addrs)
			ret = kpt_hide_addrs(rd->buf, ret);
		WRITE_ONCE(rd->off, 0);
		WRITE_ONCE(rd->len, ret);
	}
	mutex_unlock(&rd->lock);
	if (done)
		return done;
	return ret ? ret : -EAGAIN;
}

/*
 * Readable when a record is pending in the rings, or kept from a read
 * that faulted; the latter is looked at without rd->lock (a hint, as
 * poll() is), after the file is on the rings' wait queue.
 */
static __poll_t kpt_dev_poll(struct file *file, poll_table *wait)
{
	struct kpt_dev_reader *rd = file->private_data;
	struct kpt_session *sess = kpt_dev_use(rd);
	__poll_t mask;

	if (IS_ERR(sess))
		return EPOLLERR;	/* a fatal signal: the caller dies */
	mask = kpt_buffer_poll(sess->buf, file, wait);
	if (READ_ONCE(rd->off) != READ_ONCE(rd->len))
		mask |= EPOLLIN | EPOLLRDNORM;
	return mask;
}

static ssize_t kpt_dev_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	struct kpt_dev_reader *rd = file->private_data;
	struct kpt_session *sess = kpt_dev_use(rd);
	int ret;

	if (IS_ERR(sess))
		return PTR_ERR(sess);
	ret = kpt_probes_write_user(sess, ubuf, count);
	return ret ? ret : count;
}

/*
 * KPT_IOC_HIST (uapi/kptrace.h): the table is made in a kernel buffer
 * under the probes' lock (kpt_probes_hist()), then copied out without it.
 */
static long kpt_dev_hist(struct file *file, struct kpt_hist_req __user *ureq)
{
	struct kpt_dev_reader *rd = file->private_data;
	struct kpt_hist_req req;
	void *blob = NULL;
	size_t len = 0;
	long ret;

	if (copy_from_user(&req, ureq, sizeof(req)))
		return -EFAULT;
	if (req.__pad || !memchr(req.name, 0, sizeof(req.name)) ||
	    req.flags & ~(KPT_HIST_REQ_CLEAR | KPT_HIST_REQ_ENDED) ||
	    req.flags == (KPT_HIST_REQ_CLEAR | KPT_HIST_REQ_ENDED))
		return -EINVAL;
	/* Clearing is writing: not on a read-only descriptor. */
	if ((req.flags & KPT_HIST_REQ_CLEAR) && !(file->f_mode & FMODE_WRITE))
		return -EBADF;
	ret = kpt_probes_hist(kpt_dev_sess(rd), req.name, req.flags, &req.gen,
			      &req.probe_id, rd->hide_addrs, &blob, &len);
	/*
	 * Written back on every outcome: a clear whose table could not be
	 * made (-ENOMEM) has still ended its interval, which gen and
	 * probe_id read again (KPT_HIST_REQ_ENDED).
	 */
	req.size = len;
	if (!ret && len > req.len)
		ret = -ENOSPC;	/* nothing lost: a clear's set is kept */
	else if (!ret && copy_to_user(u64_to_user_ptr(req.buf), blob, len))
		ret = -EFAULT;
	kvfree(blob);
	/* gen and probe_id for a retry, size for the room it needs */
	if (copy_to_user(ureq, &req, sizeof(req)))
		return -EFAULT;
	return ret;
}

/* KPT_IOC_SYSSUM (uapi/kptrace.h): copied out after the probes' lock */
static long kpt_dev_syssum(struct file *file,
			   struct kpt_syssum_req __user *ureq)
{
	struct kpt_dev_reader *rd = file->private_data;
	struct kpt_syssum_req req;
	size_t len = 0;
	long ret;

	if (copy_from_user(&req, ureq, sizeof(req)))
		return -EFAULT;
	if (!memchr(req.name, 0, sizeof(req.name)))
		return -EINVAL;
	/* it ends an interval: writing, not on a read-only descriptor */
	if (!(file->f_mode & FMODE_WRITE))
		return -EBADF;
	req.nr_entries = 0;
	req.full = 0;
	ret = kpt_probes_syssum(kpt_dev_sess(rd), req.name,
				u64_to_user_ptr(req.buf), req.len,
				&req.probe_id, &req.nr_entries, &req.full,
				&len);
	req.size = len;
	if (copy_to_user(ureq, &req, sizeof(req)))
		return -EFAULT;
	return ret;
}

/*
 * KPT_IOC_SESSION (uapi/kptrace.h): the file gets a session of its own,
 * once, before it was used; under its switch_lock, so that two threads
 * cannot both make one.
 */
static long kpt_dev_session_new(struct file *file,
				struct kpt_session_req __user *ureq)
{
	struct kpt_dev_reader *rd = file->private_data;
	struct kpt_session_req req;
	struct kpt_session *sess;
	long ret = 0;

	if (!(file->f_mode & FMODE_WRITE))
		return -EBADF;
	if (copy_from_user(&req, ureq, sizeof(req)))
		return -EFAULT;
	if (mutex_lock_interruptible(&rd->switch_lock))
		return -ERESTARTSYS;
	if (rd->sess != kpt_default_session)
		ret = -EEXIST;
	else if (READ_ONCE(rd->used))
		ret = -EBUSY;
	if (ret)
		goto out;
	sess = kpt_session_new(&req);
	if (IS_ERR(sess)) {
		ret = PTR_ERR(sess);
		goto out;
	}
	if (copy_to_user(ureq, &req, sizeof(req))) {
		/* nothing was used yet: the session goes as it came */
		kpt_session_close(sess);
		ret = -EFAULT;
		goto out;
	}
	/* the session whole before any operation of the file finds it */
	smp_store_release(&rd->sess, sess);
out:
	mutex_unlock(&rd->switch_lock);
	return ret;
}

/* KPT_IOC_ADD: the line's answer written back whatever it is */
static long kpt_dev_add(struct file *file, struct kpt_add_req __user *ureq)
{
	struct kpt_dev_reader *rd = file->private_data;
	struct kpt_session *sess;
	struct kpt_add_req req;
	long ret;

	if (!(file->f_mode & FMODE_WRITE))
		return -EBADF;
	if (copy_from_user(&req, ureq, sizeof(req)))
		return -EFAULT;
	/* the answer is ours, whatever the caller left in it */
	req.id = 0;
	req.err = 0;
	req.pos = -1;
	req.spec_size = 0;
	memset(req.msg, 0, sizeof(req.msg));
	sess = kpt_dev_use(rd);
	if (IS_ERR(sess))
		return PTR_ERR(sess);
	ret = kpt_probes_add_user(sess, &req, rd->hide_addrs);
	if (copy_to_user(ureq, &req, sizeof(req)))
		return -EFAULT;
	return ret;
}

/* KPT_IOC_STATS: the books of the file's session */
static long kpt_dev_stats(struct file *file, struct kpt_stats_req __user *ureq)
{
	struct kpt_dev_reader *rd = file->private_data;
	struct kpt_session *sess = kpt_dev_sess(rd);
	struct kpt_ring_books __user *ubooks;
	struct kpt_ring_books books;
	struct kpt_stats_req req;
	struct kpt_cpu_stats st;
	unsigned int cpu, i;

	if (copy_from_user(&req, ureq, sizeof(req)))
		return -EFAULT;
	if (req.nr_cpus < nr_cpu_ids) {
		req.nr_cpus = nr_cpu_ids;
		return copy_to_user(ureq, &req, sizeof(req)) ? -EFAULT :
							       -ENOSPC;
	}
	ubooks = u64_to_user_ptr(req.buf);
	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		memset(&books, 0, sizeof(books));
		if (cpu_possible(cpu)) {
			kpt_ring_stats(sess->buf, cpu, &st);
			books.hits = st.hits;
			books.recorded = st.recorded;
			books.read = st.read;
			for (i = 0; i < KPT_LOST_NR; i++)
				books.lost[i] = st.lost[i];
		}
		if (copy_to_user(&ubooks[cpu], &books, sizeof(books)))
			return -EFAULT;
	}
	req.nr_cpus = nr_cpu_ids;
	req.session = sess->id;
	req.ring_bytes = sess->ring_bytes;
	req.flags = sess->flags;
	req.clock = sess->clock;
	req.nr_probes = READ_ONCE(sess->nr_probes);
	req.__pad = 0;
	req.missed = kpt_probes_missed(sess);
	req.filtered = kpt_probes_filtered(sess);
	req.mem_bytes = sess->mem;
	return copy_to_user(ureq, &req, sizeof(req)) ? -EFAULT : 0;
}

/* KPT_IOC_PROBE_STATS: a probe of the file's session, by id */
static long kpt_dev_probe_books(struct file *file,
				struct kpt_probe_books __user *ubooks)
{
	struct kpt_dev_reader *rd = file->private_data;
	struct kpt_probe_books pb;
	long ret;

	if (get_user(pb.id, &ubooks->id))
		return -EFAULT;
	ret = kpt_probes_books(kpt_dev_sess(rd), &pb);
	if (ret)
		return ret;
	return copy_to_user(ubooks, &pb, sizeof(pb)) ? -EFAULT : 0;
}

static long kpt_dev_ioctl(struct file *file, unsigned int cmd,
			  unsigned long arg)
{
	struct kpt_dev_reader *rd = file->private_data;
	struct kpt_session *sess = kpt_dev_sess(rd);
	struct kpt_info info = {
		.magic		= KPT_MAGIC,
		.version	= KPT_VERSION,
		.nr_cpus	= nr_cpu_ids,
		.nr_probes	= READ_ONCE(sess->nr_probes),
		.ring_bytes	= sess->ring_bytes,
		.max_record	= KPT_RECORD_MAX,
		.clock		= sess->clock,
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
		sess = kpt_dev_use(rd);
		if (IS_ERR(sess))
			return PTR_ERR(sess);
		return kpt_probes_write_user(sess, u64_to_user_ptr(pc.text),
					     pc.len);
	case KPT_IOC_SESSION:
		return kpt_dev_session_new(file, (void __user *)arg);
	case KPT_IOC_ADD:
		return kpt_dev_add(file, (void __user *)arg);
	case KPT_IOC_STATS:
		return kpt_records_read_check() ?:
		       kpt_dev_stats(file, (void __user *)arg);
	case KPT_IOC_PROBE_STATS:
		return kpt_records_read_check() ?:
		       kpt_dev_probe_books(file, (void __user *)arg);
	case KPT_IOC_HIST:
		return kpt_records_read_check() ?:
		       kpt_dev_hist(file, (void __user *)arg);
	case KPT_IOC_SYSSUM:
		return kpt_records_read_check() ?:
		       kpt_dev_syssum(file, (void __user *)arg);
	case KPT_IOC_NOW:
		return put_user(kpt_clock_now(sess->clock == KPT_CLOCK_LOCAL),
				(u64 __user *)arg);
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
	.poll		= kpt_dev_poll,
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
