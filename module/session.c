// SPDX-License-Identifier: GPL-2.0
/*
 * kptrace: sessions (session.h says what one owns). Here: the default
 * session, made at load from the module parameters; a session of an
 * open /dev/kptrace (KPT_IOC_SESSION), checked, counted against
 * mem_max_mb and KPT_MAX_SESSIONS, and its teardown; the sessions file.
 *
 * Lifetime. A session other than the default one is made by its file's
 * ioctl and closed by that file's release, which runs once, when the
 * last descriptor of the file goes (a close, an exit, a kill -9, an OOM
 * kill: the kernel closes a dying task's files), in process context.
 * Nothing else frees it, so while the file is open every operation of
 * the file may use the session without a reference of its own. The close
 * first takes the session's probes off every list a lookup could find
 * them by, under kpt_probes_mutex, and disarms them off it: once
 * unregister_k*probe() returns (or the tracepoints' synchronisation, for
 * an s probe on them), no handler of theirs runs, on any CPU, so nothing
 * writes to the session's rings any more; a kretprobe instance still in
 * flight no longer leads to its probe (as for any deleted probe, see
 * probe.c). Then the rings, with their irq_work and timer, and the
 * session itself are freed. A module with an open session cannot be
 * unloaded: its file holds a reference on the module.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/mutex.h>
#include <linux/ratelimit.h>
#include <linux/security.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/stringify.h>
#include "config.h"
#include "probe.h"
#include "ring.h"
#include "clock.h"
#include "session.h"
#include "format.h"

LIST_HEAD(kpt_sessions);
struct kpt_session *kpt_default_session;
static unsigned int kpt_nr_sessions;	/* but the default one */
static u32 kpt_next_session_id = 1;

/* Largest per-CPU ring a session may ask for: bufsize_kb's */
#define KPT_SESSION_RING_MAX	SZ_1G

static const char * const kpt_clock_names[] = KPT_CLOCK_NAMES;

const char *kpt_clock_name(unsigned int clock)
{
	return clock < ARRAY_SIZE(kpt_clock_names) ? kpt_clock_names[clock] :
						      "?";
}

#define KPT_SESSIONS_TOO_MANY \
	"too many sessions (" __stringify(KPT_MAX_SESSIONS) ")"

/*
 * What a session of @bytes per CPU counts against mem_max_mb: its buffer
 * (rings and their reader's cursors, as ring.c allocates them), its
 * tombstones' heads, and its file's buffer (chardev.c)
 */
static u64 kpt_session_mem(unsigned long bytes)
{
	return kpt_buffer_bytes(bytes) +
	       nr_cpu_ids * sizeof(unsigned long) +
	       KPT_SESSION_FILE_BYTES + sizeof(struct kpt_session);
}

/* A session, its buffer allocated; not on kpt_sessions yet. */
static struct kpt_session *kpt_session_alloc(unsigned long bytes, u32 flags,
					     unsigned int clock)
{
	struct kpt_ring_opts opts = {
		.bytes		= bytes,
		.overwrite	= flags & KPT_SESSION_OVERWRITE,
		.wake_net_only	= kpt_cfg.wake_net_only,
	};
	struct kpt_session *s;

	clock = kpt_clock_choose(clock);
	opts.local_clock = clock == KPT_CLOCK_LOCAL;
	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return ERR_PTR(-ENOMEM);
	s->dead_heads = kcalloc(nr_cpu_ids, sizeof(*s->dead_heads),
				GFP_KERNEL);
	if (!s->dead_heads) {
		kfree(s);
		return ERR_PTR(-ENOMEM);
	}
	s->buf = kpt_buffer_alloc(&opts);
	if (IS_ERR(s->buf)) {
		kfree(s->dead_heads);
		kfree(s);
		return ERR_PTR(-ENOMEM);
	}
	s->flags = flags;
	s->ring_bytes = bytes;
	s->clock = clock;
	s->owner = task_tgid_nr(current);
	get_task_comm(s->comm, current);
	INIT_LIST_HEAD(&s->dead_new);
	INIT_LIST_HEAD(&s->dead_wait);
	return s;
}

static void kpt_session_free(struct kpt_session *s)
{
	kpt_buffer_free(s->buf);
	kfree(s->dead_heads);
	kfree(s);
}

/* At load, before any probe: the default session, from the parameters. */
int __init kpt_sessions_init(void)
{
	struct kpt_session *s;

	kpt_rings_init(kpt_probe_overwritten);
	s = kpt_session_alloc(kpt_cfg.ring_bytes,
			      kpt_cfg.overwrite ? KPT_SESSION_OVERWRITE : 0,
			      kpt_cfg.clock);
	if (IS_ERR(s)) {
		pr_err("bufsize_kb=%u: cannot allocate %u rings of %lu KiB (%ld)\n",
		       kpt_cfg.bufsize_kb, num_possible_cpus(),
		       kpt_cfg.ring_bytes >> 10, PTR_ERR(s));
		return PTR_ERR(s);
	}
	s->id = 0;
	list_add(&s->list, &kpt_sessions);
	kpt_default_session = s;
	return 0;
}

/* At unload, after every probe is gone: no other session is left. */
void kpt_sessions_exit(void)
{
	struct kpt_session *s = kpt_default_session;

	if (!s)
		return;
	WARN_ON_ONCE(!list_is_singular(&kpt_sessions));
	list_del(&s->list);
	kpt_default_session = NULL;
	kpt_session_free(s);
}

/* A refused KPT_IOC_SESSION: one log line, naming the asker and why. */
static void kpt_session_refused(const struct kpt_session_req *req,
				const char *why, int err)
{
	char comm[TASK_COMM_LEN];
	char text[4 * TASK_COMM_LEN];

	get_task_comm(comm, current);
	/* a comm is the process's own choice: escaped, as everywhere */
	kpt_format_untrusted(text, sizeof(text), comm, sizeof(comm), 0);
	pr_err_ratelimited("session of pid %d (%s): ring_bytes=%llu flags=%#x clock=%u: %s (%d)\n",
			   task_tgid_nr(current), text, req->ring_bytes,
			   req->flags, req->clock, why, err);
}

/**
 * kpt_session_new() - a session of its own, for an open /dev/kptrace
 * @req: what was asked (struct kpt_session_req); ring_bytes, clock and
 *	 id are set on success
 *
 * Returns the session, or an ERR_PTR: -EINVAL (a field out of range),
 * -EPERM (lockdown), -EMFILE (KPT_MAX_SESSIONS), -E2BIG (mem_max_mb),
 * -ENOMEM, -ERESTARTSYS. A refusal leaves nothing allocated.
 */
struct kpt_session *kpt_session_new(struct kpt_session_req *req)
{
	unsigned long bytes = req->ring_bytes;
	struct kpt_session *s;
	u64 mem;
	int ret;

	if (req->flags & ~KPT_SESSION_OVERWRITE ||
	    req->clock > KPT_CLOCK_LOCAL || req->__pad || req->__rsvd[0] ||
	    req->__rsvd[1]) {
		kpt_session_refused(req, "unknown flags, clock or reserved field",
				    -EINVAL);
		return ERR_PTR(-EINVAL);
	}
	if (req->ring_bytes && (req->ring_bytes < KPT_RING_MIN ||
				req->ring_bytes > KPT_SESSION_RING_MAX)) {
		kpt_session_refused(req, "ring_bytes is not 0, nor 1 KiB to 1 GiB",
				    -EINVAL);
		return ERR_PTR(-EINVAL);
	}
	bytes = roundup_pow_of_two(bytes ?: kpt_cfg.ring_bytes);
	ret = security_locked_down(LOCKDOWN_KPROBES);
	if (ret) {
		kpt_session_refused(req, "kernel lockdown forbids kprobes", ret);
		return ERR_PTR(ret);
	}
	mem = kpt_session_mem(bytes);
	if (mutex_lock_interruptible(&kpt_probes_mutex))
		return ERR_PTR(-ERESTARTSYS);
	if (kpt_nr_sessions >= KPT_MAX_SESSIONS) {
		ret = -EMFILE;
		kpt_session_refused(req, KPT_SESSIONS_TOO_MANY, ret);
		goto err_unlock;
	}
	/* taken before the allocation, so that two at once cannot pass it */
	ret = kpt_mem_charge(mem);
	if (ret) {
		kpt_session_refused(req, "its rings would pass mem_max_mb", ret);
		goto err_unlock;
	}
	kpt_nr_sessions++;
	mutex_unlock(&kpt_probes_mutex);

	s = kpt_session_alloc(bytes, req->flags, req->clock);

	mutex_lock(&kpt_probes_mutex);
	if (IS_ERR(s)) {
		kpt_nr_sessions--;
		kpt_mem_uncharge(mem);
		ret = PTR_ERR(s);
		kpt_session_refused(req, "out of memory", ret);
		goto err_unlock;
	}
	s->mem = mem;
	s->id = kpt_next_session_id++;
	/* 0 is the default session's: past it, after 2^32 - 1 sessions */
	if (!kpt_next_session_id)
		kpt_next_session_id = 1;
	list_add_tail(&s->list, &kpt_sessions);
	mutex_unlock(&kpt_probes_mutex);
	req->ring_bytes = bytes;
	req->clock = s->clock;
	req->id = s->id;
	return s;

err_unlock:
	mutex_unlock(&kpt_probes_mutex);
	return ERR_PTR(ret);
}

/**
 * kpt_session_close() - the end of a session: everything it owned goes
 * @s: a session kpt_session_new() made, whose file is being released
 *
 * Process context; may sleep (the probes' unregistering waits for their
 * handlers).
 */
void kpt_session_close(struct kpt_session *s)
{
	kpt_probes_session_close(s);
	mutex_lock(&kpt_probes_mutex);
	list_del(&s->list);
	kpt_nr_sessions--;
	kpt_mem_uncharge(s->mem);
	mutex_unlock(&kpt_probes_mutex);
	/* no probe of it is armed: nothing writes to its rings */
	kpt_session_free(s);
}

unsigned int kpt_sessions_count(void)
{
	return READ_ONCE(kpt_nr_sessions);
}

/*
 * The sessions file: one line per session, the default one first: its
 * id, who made it, its settings, probes and books (the sums of its
 * rings', as stats shows the default session's).
 */
void kpt_sessions_show(struct seq_file *m)
{
	char text[4 * TASK_COMM_LEN];
	struct kpt_cpu_stats st;
	struct kpt_session *s;
	u64 hits, recorded, read, lost[KPT_LOST_NR];
	unsigned int cpu, i;

	mutex_lock(&kpt_probes_mutex);
	list_for_each_entry(s, &kpt_sessions, list) {
		hits = 0;
		recorded = 0;
		read = 0;
		memset(lost, 0, sizeof(lost));
		for_each_possible_cpu(cpu) {
			kpt_ring_stats(s->buf, cpu, &st);
			hits += st.hits;
			recorded += st.recorded;
			read += st.read;
			for (i = 0; i < KPT_LOST_NR; i++)
				lost[i] += st.lost[i];
		}
		seq_printf(m, "%u pid=%d probes=%u ring_bytes=%lu mode=%s clock=%s hits=%llu recorded=%llu",
			   s->id, s->owner, s->nr_probes, s->ring_bytes,
			   s->flags & KPT_SESSION_OVERWRITE ? "overwrite" :
							      "discard",
			   kpt_clock_name(s->clock), hits, recorded);
		for (i = 0; i < KPT_LOST_NR; i++)
			seq_printf(m, " lost.%s=%llu", kpt_lost_names[i],
				   lost[i]);
		/* last: a comm may hold spaces, printed as they are */
		kpt_format_untrusted(text, sizeof(text), s->comm,
				     sizeof(s->comm), 0);
		seq_printf(m, " read=%llu pending=%llu mem_bytes=%llu comm=%s\n",
			   read, recorded - read, s->mem, text);
	}
	mutex_unlock(&kpt_probes_mutex);
}
