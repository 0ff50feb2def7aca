// SPDX-License-Identifier: GPL-2.0
/*
 * kptrace: /sys/kernel/debug/kptrace/
 *
 *   trace       consuming text read of the default session's pending
 *               events; EOF when none
 *   trace_pipe  the same, blocking until events arrive; poll() says
 *               EPOLLIN when one is pending
 *   probes      one line per probe of every session, in the spec
 *               language (replayable); a write adds and deletes probes
 *               of the default session as /dev/kptrace's does (">" as
 *               ">>": it never clears the others)
 *   probe_stats per probe of the default session and per CPU: hits and
 *               every kind of miss
 *   stats       "name value" counters of the default session, totals
 *               then per CPU
 *   sessions    one line per session, the default one (0) first
 *   error_log   the last refused probe specs, with the column at fault
 *
 * Every file is 0400: debugfs under kernel lockdown refuses writable files,
 * and the trace holds other users' data. Root still writes probes (and
 * hist's "clear"): DAC override, and lockdown refuses the open for writing
 * (/dev/kptrace then takes the specs, and arming checks lockdown itself).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/capability.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include "config.h"
#include "ring.h"
#include "probe.h"
#include "format.h"
#include "hide.h"
#include "files.h"
#include "clock.h"
#include "session.h"

static struct dentry *kpt_dir;

/*
 * The text files take one record at a time from the rings, when the text
 * of the one before has all been returned: at most the record whose text
 * is being returned has left the rings (and counts as read), so a reader
 * that stops early (head -n 1 trace_pipe) loses nothing it did not see.
 * A reader that may not see kernel addresses (decided at open, as for
 * /dev/kptrace: kpt_addrs_visible()) gets the record edited by
 * kpt_hide_addrs() before it is formatted.
 */
struct kpt_text_reader {
	struct mutex lock;	/* readers sharing this open file */
	void	*rec;		/* the record being returned */
	char	*text;		/* its rendering */
	size_t	len;		/* characters in text */
	size_t	off;		/* already returned */
	bool	block;
	bool	hide_addrs;
};

static int kpt_text_open(struct inode *inode, struct file *file)
{
	struct kpt_text_reader *rd;
	int ret;

	ret = kpt_records_open_check();
	if (ret)
		return ret;

	rd = kzalloc(sizeof(*rd), GFP_KERNEL);
	if (!rd)
		return -ENOMEM;
	rd->rec = kvmalloc(KPT_RECORD_MAX, GFP_KERNEL);
	rd->text = kvmalloc(KPT_TEXT_MAX, GFP_KERNEL);
	if (!rd->rec || !rd->text) {
		kvfree(rd->rec);
		kvfree(rd->text);
		kfree(rd);
		return -ENOMEM;
	}
	mutex_init(&rd->lock);
	rd->block = (uintptr_t)inode->i_private;
	rd->hide_addrs = !kpt_addrs_visible();
	file->private_data = rd;
	return nonseekable_open(inode, file);
}

static int kpt_text_release(struct inode *inode, struct file *file)
{
	struct kpt_text_reader *rd = file->private_data;

	kvfree(rd->rec);
	kvfree(rd->text);
	kfree(rd);
	return 0;
}

static ssize_t kpt_text_copy(struct file *file, struct kpt_text_reader *rd,
			     char __user *ubuf, size_t count)
{
	size_t done = 0, n;
	ssize_t ret = 0;

	while (done < count) {
		if (rd->off == rd->len) {
			struct kpt_read rq = {
				.kbuf		= rd->rec,
				.len		= KPT_RECORD_MAX,
				.kbuf_len	= KPT_RECORD_MAX,
				.max_nr		= 1,
				.max_record	= READ_ONCE(kpt_default_session->max_record),
				.block		= rd->block && !done &&
						  !(file->f_flags & O_NONBLOCK),
				.may_read	= kpt_records_read_check,
			};

			ret = kpt_buffer_read(kpt_default_session->buf, &rq);
			if (ret <= 0)
				break;
			/* one record, whole: the rest would go unseen */
			WARN_ON_ONCE(ret != ((struct kpt_event *)rd->rec)->size);
			if (rd->hide_addrs)
				kpt_hide_addrs(rd->rec, ret);
			/* poll() reads off and len without rd->lock */
			WRITE_ONCE(rd->off, 0);
			WRITE_ONCE(rd->len, kpt_format_event(rd->rec, rd->text,
							     KPT_TEXT_MAX));
		}
		n = min(count - done, rd->len - rd->off);
		if (copy_to_user(ubuf + done, rd->text + rd->off, n))
			return done ? done : -EFAULT;
		WRITE_ONCE(rd->off, rd->off + n);
		done += n;
	}
	if (done)
		return done;
	if (!ret && rd->block)
		return -EAGAIN;		/* O_NONBLOCK on trace_pipe */
	return ret;
}

static ssize_t kpt_text_read(struct file *file, char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	struct kpt_text_reader *rd = file->private_data;
	ssize_t ret;

	if (!count)
		return 0;
	/* Processes sharing the file (after fork) share its buffers. */
	if (mutex_lock_interruptible(&rd->lock))
		return -ERESTARTSYS;
	/* under the lock: a read may sleep on it across a lockdown's raise */
	ret = kpt_records_read_check();
	if (!ret)
		ret = kpt_text_copy(file, rd, ubuf, count);
	mutex_unlock(&rd->lock);
	return ret;
}

/*
 * trace_pipe: readable when a record is pending, or the text of the last
 * one taken is not all returned yet. That is looked at without rd->lock,
 * which a blocked read() holds: a hint, as poll() is. The file goes on
 * the rings' wait queue first in either case: epoll registers it only
 * through this call (EPOLL_CTL_ADD), and one made while a line was half
 * returned must still be woken once the reader has drained it.
 */
static __poll_t kpt_text_poll(struct file *file, poll_table *wait)
{
	struct kpt_text_reader *rd = file->private_data;
	__poll_t mask = kpt_buffer_poll(kpt_default_session->buf, file, wait);

	if (READ_ONCE(rd->off) != READ_ONCE(rd->len))
		mask |= EPOLLIN | EPOLLRDNORM;
	return mask;
}

static const struct file_operations kpt_text_fops = {
	.owner		= THIS_MODULE,
	.open		= kpt_text_open,
	.read		= kpt_text_read,
	.release	= kpt_text_release,
};

static const struct file_operations kpt_pipe_fops = {
	.owner		= THIS_MODULE,
	.open		= kpt_text_open,
	.read		= kpt_text_read,
	.poll		= kpt_text_poll,
	.release	= kpt_text_release,
};

static int kpt_probes_seq_show(struct seq_file *m, void *v)
{
	kpt_probes_show(m, (uintptr_t)m->private);
	return 0;
}

/*
 * Writing probes asks what opening /dev/kptrace does (root's DAC override
 * of 0400 is not enough), and whether addresses show is decided here, at
 * open, as for every file of kptrace.
 */
static int kpt_probes_open(struct inode *inode, struct file *file)
{
	if ((file->f_mode & FMODE_WRITE) && !perfmon_capable())
		return -EPERM;
	/* m->private: whether to hide */
	return single_open(file, kpt_probes_seq_show,
			   (void *)(uintptr_t)!kpt_addrs_visible());
}

static ssize_t kpt_probes_file_write(struct file *file,
				     const char __user *ubuf, size_t count,
				     loff_t *ppos)
{
	int ret = kpt_probes_write_user(kpt_default_session, ubuf, count);

	return ret ? ret : count;
}

static const struct file_operations kpt_probes_fops = {
	.owner		= THIS_MODULE,
	.open		= kpt_probes_open,
	.read		= seq_read,
	.write		= kpt_probes_file_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

static int kpt_probe_stats_seq_show(struct seq_file *m, void *v)
{
	kpt_probes_show_stats(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(kpt_probe_stats_seq);

static int kpt_error_log_seq_show(struct seq_file *m, void *v)
{
	kpt_errors_show(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(kpt_error_log_seq);

static int kpt_sessions_seq_show(struct seq_file *m, void *v)
{
	kpt_sessions_show(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(kpt_sessions_seq);

static void kpt_stats_line(struct seq_file *m, const char *pfx,
			   const struct kpt_cpu_stats *st, bool totals)
{
	u64 lost = 0;
	int i;

	for (i = 0; i < KPT_LOST_NR; i++)
		lost += st->lost[i];
	seq_printf(m, "%shits %llu\n", pfx, st->hits);
	seq_printf(m, "%srecorded %llu\n", pfx, st->recorded);
	if (totals)
		seq_printf(m, "lost %llu\n", lost);
	for (i = 0; i < KPT_LOST_NR; i++)
		seq_printf(m, "%slost.%s %llu\n", pfx, kpt_lost_names[i],
			   st->lost[i]);
	if (totals) {
		seq_printf(m, "missed %llu\n",
			   kpt_probes_missed(kpt_default_session));
		seq_printf(m, "filtered %llu\n",
			   kpt_probes_filtered(kpt_default_session));
	}
	seq_printf(m, "%sread %llu\n", pfx, st->read);
	seq_printf(m, "%spending %llu\n", pfx, st->recorded - st->read);
}

static int kpt_stats_seq_show(struct seq_file *m, void *v)
{
	struct kpt_session *sess = kpt_default_session;
	struct kpt_cpu_stats sum = {}, st;
	unsigned int cpu;
	char pfx[16];
	int i;

	for_each_possible_cpu(cpu) {
		kpt_ring_stats(sess->buf, cpu, &st);
		sum.hits += st.hits;
		sum.recorded += st.recorded;
		sum.read += st.read;
		for (i = 0; i < KPT_LOST_NR; i++)
			sum.lost[i] += st.lost[i];
	}
	kpt_stats_line(m, "", &sum, true);
	/* 1: timestamps from the TSC (clock.h), 0: ktime_get_mono_fast_ns() */
	seq_printf(m, "clock_tsc %d\n", READ_ONCE(kpt_clock_tsc));
	seq_printf(m, "clock_fallbacks %llu\n", kpt_clock_fallbacks());
	/* deleted probes whose records may still be in a ring */
	seq_printf(m, "deleted_pending %u\n", kpt_probes_deleted_pending());
	seq_printf(m, "mem_used_bytes %llu\nmem_max_bytes %llu\n",
		   kpt_probes_mem_used(), kpt_cfg.mem_max);
	/* 1: the default session's records have the local clock (clock.h) */
	seq_printf(m, "clock_local %d\n", sess->clock == KPT_CLOCK_LOCAL);
	/* the sessions of open files (the sessions file lists them) */
	seq_printf(m, "sessions %u\n", kpt_sessions_count());
	for_each_possible_cpu(cpu) {
		kpt_ring_stats(sess->buf, cpu, &st);
		snprintf(pfx, sizeof(pfx), "cpu%u.", cpu);
		kpt_stats_line(m, pfx, &st, false);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(kpt_stats_seq);

int kpt_debugfs_init(void)
{
	struct dentry *hist;

	kpt_dir = debugfs_create_dir("kptrace", NULL);
	if (IS_ERR(kpt_dir)) {
		pr_warn("debugfs unavailable (%ld): only /dev/kptrace works\n",
			PTR_ERR(kpt_dir));
		kpt_dir = NULL;
		return 0;
	}
	debugfs_create_file("trace", 0400, kpt_dir, (void *)0, &kpt_text_fops);
	debugfs_create_file("trace_pipe", 0400, kpt_dir, (void *)1,
			    &kpt_pipe_fops);
	debugfs_create_file("probes", 0400, kpt_dir, NULL, &kpt_probes_fops);
	debugfs_create_file("probe_stats", 0400, kpt_dir, NULL,
			    &kpt_probe_stats_seq_fops);
	debugfs_create_file("stats", 0400, kpt_dir, NULL, &kpt_stats_seq_fops);
	debugfs_create_file("sessions", 0400, kpt_dir, NULL,
			    &kpt_sessions_seq_fops);
	debugfs_create_file("error_log", 0400, kpt_dir, NULL,
			    &kpt_error_log_seq_fops);
	hist = debugfs_create_dir("hist", kpt_dir);
	kpt_probes_hist_dir(IS_ERR(hist) ? NULL : hist);
	return 0;
}

void kpt_debugfs_exit(void)
{
	/* each hist file first: a probe's own removal must not meet it */
	kpt_probes_hist_dir(NULL);
	debugfs_remove_recursive(kpt_dir);
	kpt_dir = NULL;
}
