/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kptrace: a syscalls probe's summary (summary=), its handlers' side,
 * inline; its tables' allocation and KPT_IOC_SYSSUM are syscall_sum.c's.
 */
#ifndef _KPT_SYSCALL_SUM_H
#define _KPT_SYSCALL_SUM_H

#include <linux/hash.h>
#include "syscall.h"

/*
 * summary: no record per call, but per CPU a table of KPT_IOC_SYSSUM's
 * entries by (process, call), in two halves: the handlers add to half
 * cur, a reader flips cur, waits for the handlers that may still add to
 * the other (they run with preemption disabled: an RCU read side), reads
 * it and zeroes it. Only the calls of one CPU, one at a time, touch a
 * CPU's half: no atomics. A (process, call) that finds no room within
 * KPT_SYS_SUM_PROBE slots of its hash is counted as full.
 */
#define KPT_SYS_SUM_PROBE	16

struct kpt_sys_sum {
	unsigned int		bits;	/* log2 of the entries per half */
	unsigned int		cur;	/* the half the handlers add to */
	/* per CPU, on its node: [2][1 << bits] entries, then u64 full[2] */
	struct kpt_syssum_entry	**tab;
};

static nokprobe_inline struct kpt_syssum_entry *
kpt_sys_sum_half(struct kpt_sys_sum *sm, unsigned int cpu, unsigned int half)
{
	return sm->tab[cpu] + ((size_t)half << sm->bits);
}

/* The calls of a CPU's half that found no room */
static nokprobe_inline u64 *kpt_sys_sum_full(struct kpt_sys_sum *sm,
					     unsigned int cpu,
					     unsigned int half)
{
	return (u64 *)(sm->tab[cpu] + ((size_t)2 << sm->bits)) + half;
}

/*
 * @w[1]:@w[0] += @v * @v, in 128 bits: one mulq, as an unsigned __int128
 * would have its handler realign the stack for a 16-byte spill
 */
static nokprobe_inline void kpt_sys_sq_add(u64 *w, u64 v)
{
	u64 lo, hi;

	asm("mulq %[v]" : "=a" (lo), "=d" (hi) : "a" (v), [v] "rm" (v));
	w[0] += lo;
	w[1] += hi + (w[0] < lo);
}

/* A free entry @e taken by (@tgid, @nr) */
static nokprobe_inline void kpt_sys_sum_claim(struct kpt_syssum_entry *e,
					      u32 tgid, unsigned int nr)
{
	e->pid = tgid;
	e->nr = nr;
	memcpy(e->comm, current->comm, sizeof(e->comm));
	e->comm[sizeof(e->comm) - 1] = '\0';
	e->min_ns = U64_MAX;
}

/*
 * The entry of (@tgid, @nr) in this CPU's half @t: found, or with @claim
 * a free one taken, within KPT_SYS_SUM_PROBE slots of its hash (a table
 * has 16 at least: summary= is 16 to 65536); NULL when none is left, or
 * without @claim when it is not there yet.
 */
static nokprobe_inline struct kpt_syssum_entry *
kpt_sys_sum_entry(struct kpt_syssum_entry *t, unsigned int bits, u32 tgid,
		  unsigned int nr, bool claim)
{
	unsigned int mask = (1U << bits) - 1, h, i;
	struct kpt_syssum_entry *e;

	h = hash_64((u64)tgid << 32 | nr, bits);
	for (i = 0; i < KPT_SYS_SUM_PROBE; i++) {
		e = &t[(h + i) & mask];
		if (likely(e->pid == tgid && e->nr == nr && e->calls))
			return e;
		if (!e->calls) {
			if (!claim)
				return NULL;
			kpt_sys_sum_claim(e, tgid, nr);
			return e;
		}
	}
	return NULL;
}

/* One more call in entry @e: @retval, @lat ns */
static nokprobe_inline void kpt_sys_sum_count(struct kpt_syssum_entry *e,
					      long retval, u64 lat)
{
	e->calls++;
	e->errors += IS_ERR_VALUE(retval);
	e->total_ns += lat;
	e->min_ns = min(e->min_ns, lat);
	e->max_ns = max(e->max_ns, lat);
	kpt_sys_sq_add(e->sumsq_ns, lat);
	/* upper bounds in: 1024 ns is [0], 1025 [1] (uapi/kptrace.h) */
	e->lat_log2[min_t(unsigned int,
			  fls64((lat - !!lat) >> KPT_SYS_SUM_SHIFT),
			  KPT_SYS_SUM_BUCKETS - 1)]++;
}

/*
 * Call @nr of the calling task in @p's summary: false if its entry is not
 * found (without @claim) or none is left (with @claim, counted as full).
 * A reader may flip cur meanwhile: one half for the search and the count.
 */
static nokprobe_inline bool kpt_sys_sum_try(struct kpt_probe *p,
					    unsigned int nr, long retval,
					    u64 lat, bool claim)
{
	struct kpt_sys_sum *sm = p->sys_sum;
	unsigned int cpu = smp_processor_id(), half = READ_ONCE(sm->cur);
	struct kpt_syssum_entry *e;

	e = kpt_sys_sum_entry(kpt_sys_sum_half(sm, cpu, half), sm->bits,
			      current->tgid, nr, claim);
	if (unlikely(!e)) {
		if (claim) {
			(*kpt_sys_sum_full(sm, cpu, half))++;
			this_cpu_inc(p->stats->sum_full);
		}
		return false;
	}
	kpt_sys_sum_count(e, retval, lat);
	return true;
}

void kpt_sys_sum_add_slow(struct kpt_probe *p, unsigned int nr,
			  long retval, u64 lat);

/*
 * Call @nr of the calling task in @p's summary. Its entry is found in
 * line; taking a free one is kpt_sys_sum_add_slow()'s, so that the common
 * path keeps nothing across a call.
 */
static nokprobe_inline void kpt_sys_sum_add(struct kpt_probe *p,
					    unsigned int nr, long retval,
					    u64 lat)
{
	if (unlikely(!kpt_sys_sum_try(p, nr, retval, lat, false)))
		kpt_sys_sum_add_slow(p, nr, retval, lat);
}

u64 kpt_sys_sum_bytes(const struct kpt_spec *spec);
int kpt_sys_sum_new(struct kpt_probe *p);
void kpt_sys_sum_free(struct kpt_probe *p);

#endif /* _KPT_SYSCALL_SUM_H */
