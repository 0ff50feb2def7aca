// SPDX-License-Identifier: GPL-2.0
/*
 * kptrace: a syscalls probe's summary: its per-CPU tables (how they are
 * used is syscall_sum.h's) and their reader, KPT_IOC_SYSSUM.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include "syscall_sum.h"

/*
 * Call @nr in @p's summary, taking a free entry, or counted as full: out
 * of line, once an interval per (process, call)
 */
noinline void kpt_sys_sum_add_slow(struct kpt_probe *p, unsigned int nr,
				   long retval, u64 lat)
{
	kpt_sys_sum_try(p, nr, retval, lat, true);
}
NOKPROBE_SYMBOL(kpt_sys_sum_add_slow);

/* The bytes of one CPU's summary tables */
static size_t kpt_sys_sum_cpu_bytes(unsigned int bits)
{
	return ((size_t)2 << bits) * sizeof(struct kpt_syssum_entry) +
	       2 * sizeof(u64);
}

/* The bytes a summary of @spec takes */
u64 kpt_sys_sum_bytes(const struct kpt_spec *spec)
{
	if (!spec->sys.summary)
		return 0;
	return (u64)nr_cpu_ids *
	       kpt_sys_sum_cpu_bytes(ilog2(roundup_pow_of_two(spec->sys.summary)));
}

void kpt_sys_sum_free(struct kpt_probe *p)
{
	unsigned int cpu;

	if (!p->sys_sum)
		return;
	for_each_possible_cpu(cpu)
		kvfree(p->sys_sum->tab[cpu]);
	kfree(p->sys_sum->tab);
	kfree(p->sys_sum);
	p->sys_sum = NULL;
}

/* @p's summary, if its spec asks for one */
int kpt_sys_sum_new(struct kpt_probe *p)
{
	unsigned int n = p->spec->sys.summary, cpu;
	struct kpt_sys_sum *sm;

	if (!n)
		return 0;
	sm = kzalloc(sizeof(*sm), GFP_KERNEL);
	if (!sm)
		return -ENOMEM;
	p->sys_sum = sm;
	sm->bits = ilog2(roundup_pow_of_two(n));
	sm->tab = kcalloc(nr_cpu_ids, sizeof(*sm->tab), GFP_KERNEL);
	if (!sm->tab)
		goto nomem;
	for_each_possible_cpu(cpu) {
		sm->tab[cpu] = kvmalloc_node(kpt_sys_sum_cpu_bytes(sm->bits),
					     GFP_KERNEL | __GFP_ZERO,
					     cpu_to_node(cpu));
		if (!sm->tab[cpu])
			goto nomem;
	}
	return 0;
nomem:
	kpt_sys_sum_free(p);
	return -ENOMEM;
}


/*
 * KPT_IOC_SYSSUM: end the interval of @sess's s probe @name's summary and
 * copy its entries to @ubuf, if @room holds every entry that can be (else
 * -ENOSPC, and *@len the room needed). Under the probes' lock, which
 * -:NAME holds to free the tables, the entries with calls are moved to a
 * kernel buffer; it is copied out after, so that a caller whose buffer
 * faults slowly (userfaultfd, FUSE) never holds up probe changes or
 * module loads. Without memory for that buffer (-ENOMEM) the entries stay in
 * their half, read again at the flip after next: counted late (an
 * interval later), not lost.
 * A copy that faults loses the interval (-EFAULT).
 */
int kpt_probes_syssum(struct kpt_session *sess, const char *name,
		      void __user *ubuf, u64 room, u32 *id, u32 *n, u64 *full,
		      size_t *len)
{
	struct kpt_syssum_entry *t, *buf = NULL;
	struct kpt_probe *p, *found = NULL;
	struct kpt_sys_sum *sm;
	unsigned int cpu, half, i;
	size_t used = 0, k = 0;
	int ret = 0;

	if (mutex_lock_interruptible(&kpt_probes_mutex))
		return -ERESTARTSYS;
	list_for_each_entry(p, &kpt_probe_list, list) {
		if (p->sess == sess && p->sys_sum &&
		    !strcmp(p->spec->name, name)) {
			found = p;
			break;
		}
	}
	if (!found) {
		ret = -ENOENT;
		goto out;
	}
	sm = found->sys_sum;
	*id = found->id;
	*len = ((size_t)nr_cpu_ids << sm->bits) * sizeof(*t);
	if (room < *len) {
		ret = -ENOSPC;
		goto out;
	}
	half = sm->cur;
	WRITE_ONCE(sm->cur, !half);
	/*
	 * The handlers that may still add to @half run with preemption
	 * disabled (a kprobe's; the tracepoints' disable it themselves)
	 */
	synchronize_rcu();
	for_each_possible_cpu(cpu) {
		t = kpt_sys_sum_half(sm, cpu, half);
		for (i = 0; i < 1U << sm->bits; i++)
			used += !!t[i].calls;
	}
	if (used) {
		buf = kvmalloc_array(used, sizeof(*buf),
				     GFP_KERNEL | __GFP_NOWARN);
		if (!buf) {
			ret = -ENOMEM;
			goto out;
		}
	}
	*full = 0;
	for_each_possible_cpu(cpu) {
		t = kpt_sys_sum_half(sm, cpu, half);
		for (i = 0; i < 1U << sm->bits; i++) {
			/* (no handler adds to @half: k stays below used) */
			if (!t[i].calls || WARN_ON_ONCE(k == used))
				continue;
			buf[k++] = t[i];
			/* an entry without calls is all zero: only these */
			memset(&t[i], 0, sizeof(*t));
		}
		*full += *kpt_sys_sum_full(sm, cpu, half);
		*kpt_sys_sum_full(sm, cpu, half) = 0;
	}
out:
	mutex_unlock(&kpt_probes_mutex);
	if (!ret && k && copy_to_user(ubuf, buf, k * sizeof(*buf)))
		ret = -EFAULT;
	kvfree(buf);
	if (!ret) {
		*n = k;
		*len = k * sizeof(*buf);
	} else if (ret != -ENOSPC) {
		*len = 0;	/* nothing given */
	}
	return ret;
}
