/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kptrace: the records' clock, one read per hit, in ns: a session's
 * choice (uapi enum kpt_clock_id), CLOCK_MONOTONIC ("mono", below) or
 * sched_clock() ("local", at the end of this comment).
 *
 * "The TSC" below is the architecture's cycle counter (arch.h): x86's
 * TSC, or arm64's architected timer count (cntvct_el0, a register read,
 * whose rate is the firmware's cntfrq_el0: 62.5 MHz under QEMU), which
 * arm64's CLOCK_MONOTONIC and sched_clock() read themselves.
 *
 * ktime_get_mono_fast_ns() is NMI-safe but costs a call, an indirect call
 * to the clocksource (a retpoline on many machines) and a seqcount loop:
 * the largest single cost of a hit. So each CPU keeps an anchor, a pair
 * (TSC, CLOCK_MONOTONIC) read together, and a hit turns the TSC into ns
 * from it: ns = anchor.ns + (tsc - anchor.tsc) * mult >> 32. The anchor
 * is moved, with ktime_get_mono_fast_ns(), once it is a window (about a
 * ms) old. mult is the TSC's rate as CLOCK_MONOTONIC sees it: measured at
 * load over 20 ms, then again every 64 windows or more, so the time of a
 * hit is off by what that rate can drift in one window (nothing, at the
 * rates NTP may slew). Each move checks the last window's prediction: if the
 * TSC did not follow CLOCK_MONOTONIC to within KPT_CLOCK_SLACK_NS + 0.1%,
 * every CPU goes back to ktime_get_mono_fast_ns() for good, each at its
 * next move (clock_fallbacks in stats): the fast path reads no global.
 * Times handed out on a CPU never go back: within a window the time
 * grows with the TSC, and a move sets the new window's floor to the
 * latest time the old one could have given (kpt_clock_move()), which the
 * fast path loads but never stores. Each window starts from a fresh
 * CLOCK_MONOTONIC reading, so no error carries from one to the next.
 *
 * Without a TSC the kernel trusts (QEMU's default, many VMs: the kernel
 * keeps time with kvm-clock, Hyper-V's or Xen's clock, or HPET), no
 * anchor is kept: a static key, set at load, makes a hit's time one call
 * of ktime_get_mono_fast_ns(), kept from going back on its CPU, and
 * nothing else (no TSC read, no window, no move). On real hardware that
 * read is what the clocksource costs: a pvclock read (rdtsc and a scale,
 * tens of cycles) in a VM, an MMIO read of the HPET (about a microsecond)
 * on the rare bare metal whose TSC is unstable. ftrace's default clock
 * (sched_clock(), "local") and perf (local_clock()) read the TSC even
 * when it is unstable, but their times are neither CLOCK_MONOTONIC nor
 * ordered across CPUs as closely as the merge of the CPUs' rings would
 * like: the local clock below is that choice, made by a session, with
 * what it costs said. Nor is the TSC safe to interpolate when the kernel
 * distrusts it (the mono clock's anchors): a TSC
 * that stops in deep C-states or changes rate (no constant_tsc and
 * nonstop_tsc, as in QEMU's TCG guests) would give a hit after an idle
 * period the time its window began, wrong by the whole idle time, before
 * any window check could see it. Measured (make bench --profile, 6.12
 * guest, tsc=unstable): of args=4's 370 instructions over the loop, the
 * clocksource read is 91 (read_hpet 49, whose SMP path takes the HPET
 * lock word with a cmpxchg, ktime_get_mono_fast_ns 36, the retpoline
 * thunk 6) and kptrace's own way there 33: a target of 1.9x the empty
 * kprobe (316) cannot be met by any CLOCK_MONOTONIC read over the HPET,
 * which is why auto picks the local clock there.
 * A TSC found off at run time (clock_fallbacks) keeps the anchors' slow
 * path until the next load. The clocksource's code (ktime_get_mono_fast_ns,
 * read_hpet) is notrace but not NOKPROBE: a probe put there by anyone
 * misses the hits it takes inside kptrace's (the kprobe core counts them
 * in its nmissed), and kptrace's own counts stay exact.
 *
 * Any context, NMI included: an anchor is only written by its own CPU,
 * under an odd seq; a hit that nests inside a move (or sees one happen
 * under it) takes ktime_get_mono_fast_ns() (sched_clock() for the local
 * clock) instead.
 *
 * The local clock is sched_clock()'s, as ftrace's default "local" trace
 * clock: the TSC scaled to ns by tsc_khz, read whether the kernel trusts
 * the TSC for timekeeping or not (it trusts it to order its scheduler's
 * work), never a device. It keeps anchors of its own, the same way, each
 * a (TSC, sched_clock()) pair: as sched_clock() is the TSC scaled, a hit
 * turned from its TSC reads what sched_clock() would have, without its
 * call, and there is no rate to measure or check (mult is tsc_khz's,
 * followed when it changes). Where sched_clock() is a paravirt read
 * (kvm-clock, Xen, Hyper-V) rather than the TSC scaled, the local clock
 * is the TSC scaled all the same: close to it, not equal.
 * Each CPU's times never go back (its own floors, apart from the mono
 * clock's); across CPUs they are as close as the CPUs' TSCs are, which
 * the kernel does not promise when it distrusts them: two CPUs' records
 * may then be out of order by that skew, and a latency measured across
 * a migration off by it; a TSC that stops in deep C-states leaves the
 * local clock as stale as sched_clock() itself. A session asks for one
 * or the other, or for auto: mono where CLOCK_MONOTONIC is read without
 * a device (a trusted TSC, kvm-clock, Hyper-V's or Xen's clock), local
 * where it would cost every hit a device read (HPET, acpi_pm):
 * kpt_clock_choose(). A probe's program says which (kpt_prog::
 * clock_local) and, compiled in, its anchors (kpt_prog::clock: the
 * per-CPU kpt_anchor_mono or kpt_anchor_local), so that the fast path takes
 * its anchor as it took the one clock's; the static key concerns the mono
 * clock only.
 */
#ifndef _KPT_CLOCK_H
#define _KPT_CLOCK_H

#include <linux/percpu.h>
#include <linux/jump_label.h>
#include <linux/ktime.h>
#include <linux/timekeeping.h>
#include <linux/kprobes.h>
#include <linux/math64.h>
#include "arch.h"

#define KPT_CLOCK_SLACK_NS	2000	/* plus 0.1% of the window */

struct kpt_clock {
	u64		tsc;	/* the anchor; 0: none yet */
	u64		ns;	/* its CLOCK_MONOTONIC time */
	u64		floor;	/* no time of its window is below this */
	u64		last;	/* the latest time given but by the fast */
				/* path, or the fast path could have given */
	u64		mult;	/* ns = cycles * mult >> 32 */
	u64		window;	/* one ms in cycles, from tsc_khz */
	u64		cal_tsc; /* the pair mult is measured from */
	u64		cal_ns;
	unsigned int	khz;	/* the tsc_khz mult was made from */
	unsigned int	seq;	/* odd while the anchor moves */
};

/* A CPU's anchors: the mono clock's, the local clock's */
DECLARE_PER_CPU(struct kpt_clock, kpt_anchor_mono);
DECLARE_PER_CPU(struct kpt_clock, kpt_anchor_local);

/* The anchors of the clock @local says, for a program (prog.c) */
static inline struct kpt_clock __percpu *kpt_clock_anchors(bool local)
{
	return local ? &kpt_anchor_local : &kpt_anchor_mono;
}
extern bool kpt_clock_tsc;
/*
 * Set at load when the TSC is not used (the kernel does not trust it, as
 * in many VMs): then no anchor is ever kept, and a hit's time is one read
 * of CLOCK_MONOTONIC, kpt_clock_mono(), which kpt_clock_ns_slow() gives
 * first: the fast path's test is a nop, its other branch the slow path's.
 */
DECLARE_STATIC_KEY_FALSE(kpt_clock_mono_key);
u64 kpt_clock_mono(void);

void kpt_clock_init(void);
unsigned int kpt_clock_choose(unsigned int asked);
u64 kpt_clock_now(bool local);
u64 kpt_clock_move(struct kpt_clock *c, unsigned int seq, bool local);
u64 kpt_clock_fallbacks(void);

u64 kpt_clock_ns_slow(bool local);

/*
 * The time of a hit in *@ns, from this CPU's anchor of the clock @local
 * says (CLOCK_MONOTONIC, or the local clock), of @anchors
 * (kpt_clock_anchors(@local)). False when that cannot be: no anchor yet,
 * a window passed, a move under way or under us, the mono clock without
 * the TSC; then kpt_clock_ns_slow() gives the time. Preemption is
 * disabled. A fast handler that finds false leaves for its out-of-line
 * path, so that the fast one makes no call (fetch.c).
 */
static nokprobe_inline bool kpt_clock_try(struct kpt_clock __percpu *anchors,
					  bool local, u64 *ns)
{
	struct kpt_clock *c = this_cpu_ptr(anchors);
	unsigned int seq;
	u64 d, t;

	/*
	 * mono without the TSC: the slow path's first test gives it (the
	 * key first: with the TSC, a nop, and no test of @local at all)
	 */
	if (static_branch_unlikely(&kpt_clock_mono_key) && !local)
		return false;
	seq = READ_ONCE(c->seq);
	barrier();
	/*
	 * A plain rdtsc, as sched_clock() reads it: a move under this read
	 * is caught by the seq check below, and a TSC read before the
	 * anchor's (d < 0, so huge) sends the hit to the slow path.
	 */
	d = kpt_arch_cycles() - c->tsc;
	/*
	 * window 0 (no anchor yet, no TSC): the slow path decides. An odd
	 * seq sets the top bit (a window is far below it): one test.
	 */
	if (unlikely((d | (u64)(seq & 1) << 63) >= c->window))
		return false;
	/* d < window: the product fits, see kpt_clock_move() */
	t = c->ns + ((d * c->mult) >> 32);
	barrier();
	/* an irq or NMI moved the anchor under us */
	if (unlikely(READ_ONCE(c->seq) != seq))
		return false;
	*ns = max(t, c->floor);
	return true;
}

/* The time of a hit, by the clock @local says. Preemption is disabled. */
static nokprobe_inline u64
kpt_clock_ns(struct kpt_clock __percpu *anchors, bool local)
{
	u64 ns;

	if (likely(kpt_clock_try(anchors, local, &ns)))
		return ns;
	return kpt_clock_ns_slow(local);
}

/*
 * The time from @then to @now, taken on two CPUs perhaps (a call that
 * migrated between entry and return): each CPU's times only grow, but two
 * CPUs' windows may disagree by their rate error, so a very short call
 * could come out negative. That is 0, not 2^64 - a few ns.
 */
static nokprobe_inline u64 kpt_clock_since(u64 then, u64 now)
{
	return now > then ? now - then : 0;
}

#endif /* _KPT_CLOCK_H */
