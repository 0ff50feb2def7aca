// SPDX-License-Identifier: GPL-2.0
/*
 * kptrace: the records' clock. The fast path and how it keeps time are in
 * clock.h; here are the anchor moves, which also measure the TSC's rate
 * against CLOCK_MONOTONIC and check it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/preempt.h>
#include <linux/fs.h>
#include <linux/sched/clock.h>
#include <linux/string.h>
#include "clock.h"
#include "compat.h"
#include "arch.h"
#include <uapi/kptrace.h>

DEFINE_PER_CPU(struct kpt_clock, kpt_anchor_mono);
DEFINE_PER_CPU(struct kpt_clock, kpt_anchor_local);
bool kpt_clock_tsc __read_mostly;
/* the local clock's anchors: a TSC and its rate (sched_clock()'s own) */
static bool kpt_clock_local_tsc __read_mostly;
DEFINE_STATIC_KEY_FALSE(kpt_clock_mono_key);
static u64 kpt_clock_mult0;	/* the rate measured at load */
static atomic_t kpt_clock_bad = ATOMIC_INIT(0);

/* The clock itself: CLOCK_MONOTONIC, or sched_clock() for @local */
static u64 kpt_clock_read(bool local)
{
	return local ? sched_clock() : ktime_get_mono_fast_ns();
}
NOKPROBE_SYMBOL(kpt_clock_read);

/*
 * A (TSC, clock) pair read together: false if something (an interrupt)
 * came between the reads, for then the pair is not one moment. The TSC
 * is taken half-way between two reads around the clock's.
 */
static bool kpt_clock_pair(u64 *tsc, u64 *ns, unsigned int khz, bool local)
{
	u64 t0, t1;

	t0 = kpt_arch_cycles_ordered();
	*ns = kpt_clock_read(local);
	t1 = kpt_arch_cycles_ordered();
	*tsc = t0 + (t1 - t0) / 2;
	return t1 - t0 <= khz / 1000;	/* 1 us */
}
NOKPROBE_SYMBOL(kpt_clock_pair);

/* ns = cycles * mult >> 32, from @dns ns in @dtsc cycles */
static u64 kpt_clock_rate(u64 dns, u64 dtsc)
{
	return div64_u64(dns << 32, dtsc);
}
NOKPROBE_SYMBOL(kpt_clock_rate);

/* At load: a pair, tried a few times until it is tight. */
static bool kpt_clock_init_pair(u64 *tsc, u64 *ns, unsigned int khz)
{
	unsigned int tries;
	bool ok = false;

	for (tries = 0; tries < 10 && !ok; tries++) {
		preempt_disable();
		ok = kpt_clock_pair(tsc, ns, khz, false);
		preempt_enable();
	}
	return ok;
}

/*
 * At load, before any probe: the mono clock uses the TSC if the kernel
 * trusts it (then the CPUs' TSCs are in sync, so the two pairs may come
 * from two CPUs) and its rate against CLOCK_MONOTONIC, measured over 20
 * ms, is within 5% of tsc_khz; the local clock, if there is a TSC of a
 * known rate, as sched_clock() does.
 */
void kpt_clock_init(void)
{
	unsigned int cpu, khz = kpt_arch_cycles_khz();
	u64 t0, n0, t1, n1, nominal;

	for_each_possible_cpu(cpu) {
		memset(per_cpu_ptr(&kpt_anchor_mono, cpu), 0,
		       sizeof(struct kpt_clock));
		memset(per_cpu_ptr(&kpt_anchor_local, cpu), 0,
		       sizeof(struct kpt_clock));
	}
	atomic_set(&kpt_clock_bad, 0);
	kpt_clock_tsc = false;
	kpt_clock_local_tsc = kpt_arch_cycles_present() && khz;
	if (kpt_clock_local_tsc && kpt_arch_cycles_trusted() &&
	    kpt_clock_init_pair(&t0, &n0, khz)) {
		msleep(20);
		if (kpt_clock_init_pair(&t1, &n1, khz) && t1 > t0 && n1 > n0) {
			kpt_clock_mult0 = kpt_clock_rate(n1 - n0, t1 - t0);
			nominal = div_u64((u64)NSEC_PER_MSEC << 32, khz);
			/* a window is then about one ms */
			kpt_clock_tsc =
				kpt_clock_mult0 > nominal - nominal / 20 &&
				kpt_clock_mult0 < nominal + nominal / 20;
		}
	}
	/* before any probe: no hit sees the key change */
	if (!kpt_clock_tsc)
		static_branch_enable(&kpt_clock_mono_key);
}

/*
 * Is CLOCK_MONOTONIC read without a device? The clocksources that are
 * read from the CPU (the TSC, kvm-clock's and Xen's pvclock, Hyper-V's
 * TSC page, arm64's counter) are; the others (hpet, acpi_pm, jiffies)
 * cost a bus read or a VM exit. No exported function says which is in
 * use: the sysfs file that does is read, in process context, from init's
 * root; if it cannot be read, the answer is yes (mono, as before the
 * choice existed).
 */
static const char kpt_clocksource_file[] =
	"sys/devices/system/clocksource/clocksource0/current_clocksource";

static bool kpt_clocksource_cpu(void)
{
	static const char * const cpu_read[] = {
		"tsc", "tsc-early", "kvm-clock", "hyperv_clocksource_tsc_page",
		"xen", "arch_sys_counter",
	};
	char name[48] = "";
	struct file *f;
	loff_t pos = 0;
	unsigned int i;
	ssize_t n;

	if (READ_ONCE(kpt_clock_tsc))
		return true;
	/* init's view, not the caller's (a chroot, a container) */
	f = kpt_open_from_init_root(kpt_clocksource_file);
	if (IS_ERR(f))
		return true;	/* cannot tell: mono, as ever */
	n = kernel_read(f, name, sizeof(name) - 1, &pos);
	filp_close(f, NULL);
	if (n <= 0)
		return true;
	name[n] = '\0';
	strim(name);
	for (i = 0; i < ARRAY_SIZE(cpu_read); i++)
		if (!strcmp(name, cpu_read[i]))
			return true;
	return false;
}

/*
 * The clock a session that asked for @asked (enum kpt_clock_id) gets:
 * auto is mono where CLOCK_MONOTONIC is read without a device, else
 * local (clock.h). Process context.
 */
unsigned int kpt_clock_choose(unsigned int asked)
{
	if (asked != KPT_CLOCK_AUTO)
		return asked;
	return kpt_clocksource_cpu() ? KPT_CLOCK_MONO : KPT_CLOCK_LOCAL;
}

/*
 * The time now by the clock @local says, for a reader's records (a loss
 * report): process context, any CPU.
 */
u64 kpt_clock_now(bool local)
{
	u64 ns;

	/* sched_clock(), as on the CPU it runs on */
	preempt_disable();
	ns = kpt_clock_read(local);
	preempt_enable();
	return ns;
}

/* How many times the TSC was found off (then no longer used). */
u64 kpt_clock_fallbacks(void)
{
	return atomic_read(&kpt_clock_bad);
}

/*
 * A time handed out by a slow path: @ns, or later than every time handed
 * out here before (c->last, which each move raises to what its window's
 * fast path could have given). The kprobe core never nests our handlers
 * on a CPU today, but an irq or NMI hit between a load and a store here
 * would lower c->last: raise it with cmpxchg_local(), which nothing on
 * this CPU can split, so it only ever grows.
 */
static u64 kpt_clock_after(struct kpt_clock *c, u64 ns)
{
	u64 last = READ_ONCE(c->last), old;

	while (ns > last) {
		old = cmpxchg_local(&c->last, last, ns);
		if (old == last)
			return ns;
		last = old;
	}
	return last;
}
NOKPROBE_SYMBOL(kpt_clock_after);

/*
 * The time of a hit without the TSC (kpt_clock_mono_key): one read of
 * CLOCK_MONOTONIC, never below one given before on this CPU (the
 * NMI-safe read may step back a little across a timekeeping update).
 */
u64 kpt_clock_mono(void)
{
	return kpt_clock_after(this_cpu_ptr(&kpt_anchor_mono),
			       ktime_get_mono_fast_ns());
}
NOKPROBE_SYMBOL(kpt_clock_mono);

/*
 * The latest time the fast path can have given from this CPU's anchor:
 * from a TSC below its window's end and below now (0 without a window).
 */
static u64 kpt_clock_reach(struct kpt_clock *c)
{
	u64 d;

	if (!READ_ONCE(c->window))
		return 0;
	d = min(kpt_arch_cycles_ordered() - c->tsc, c->window);
	return max(c->ns + ((d * c->mult) >> 32), c->floor);
}
NOKPROBE_SYMBOL(kpt_clock_reach);

/*
 * Move this CPU's anchor @c of the mono clock or the @local one (@seq:
 * its seq when the hit began) and return the time now. A window is
 * tsc_khz cycles, about one ms, and mult is within 5% of 10^6 * 2^32 /
 * tsc_khz: the fast path's d * mult stays below 2^63. The local clock's
 * mult is that nominal rate, sched_clock()'s own: nothing to measure or
 * check, only tsc_khz to follow when the kernel refines or changes it.
 */
u64 kpt_clock_move(struct kpt_clock *c, unsigned int seq, bool local)
{
	unsigned int khz = kpt_arch_cycles_khz();
	bool tsc_ok = local ? kpt_clock_local_tsc : READ_ONCE(kpt_clock_tsc);
	u64 tsc, ns, d, pred, err;

	/*
	 * The latest time the fast path could have given from the anchor
	 * that ends here (from a TSC below its window's end and below now)
	 * goes to c->last first: no time given after it is earlier. Its
	 * window has passed, so no fast hit here takes it any more. Nested
	 * in a move (odd seq), the move did this before it began.
	 */
	if (!(seq & 1))
		kpt_clock_after(c, kpt_clock_reach(c));
	/* nested in this CPU's own move, or no TSC */
	if ((seq & 1) || !tsc_ok) {
		/* now every hit here comes back, as d >= 0 */
		if (!(seq & 1))
			WRITE_ONCE(c->window, 0);
		return kpt_clock_after(c, kpt_clock_read(local));
	}
	WRITE_ONCE(c->seq, seq + 1);
	barrier();
	if (!kpt_clock_pair(&tsc, &ns, khz, local))
		goto out;	/* no anchor this time */
	if (!c->tsc) {
		c->mult = local ? div_u64((u64)NSEC_PER_MSEC << 32, khz) :
				  kpt_clock_mult0;
		c->window = khz;	/* cycles per ms */
		c->khz = khz;
		c->cal_tsc = tsc;
		c->cal_ns = ns;
		goto anchor;
	}
	if (local) {
		/*
		 * sched_clock() follows tsc_khz: its refinement a few
		 * seconds after boot, a cpufreq change without constant_tsc.
		 */
		if (unlikely(khz != c->khz)) {
			c->mult = div_u64((u64)NSEC_PER_MSEC << 32, khz);
			c->window = khz;
			c->khz = khz;
		}
		goto anchor;
	}
	/* Did the TSC follow CLOCK_MONOTONIC since the last move? */
	d = tsc - c->tsc;
	pred = c->ns + mul_u64_u64_shr(d, c->mult, 32);
	err = pred > ns ? pred - ns : ns - pred;
	if (err > KPT_CLOCK_SLACK_NS + (ns - c->ns) / 1000) {
		if (READ_ONCE(kpt_clock_tsc)) {
			WRITE_ONCE(kpt_clock_tsc, false);
			atomic_inc(&kpt_clock_bad);
		}
		WRITE_ONCE(c->window, 0);	/* the last TSC time here */
		goto anchor;
	}
	/*
	 * The rate, from a calibration pair 64 to 2048 windows old: the
	 * pairs' error (a us or so) is then below 0.002% of it.
	 */
	d = tsc - c->cal_tsc;
	if (d >= 64 * c->window) {
		if (d <= 2048 * c->window)	/* dns << 32 fits */
			c->mult = kpt_clock_rate(ns - c->cal_ns, d);
		c->cal_tsc = tsc;
		c->cal_ns = ns;
	}
anchor:
	c->tsc = tsc;
	c->ns = ns;
	/* no time of the new window is below one given before */
	ns = kpt_clock_after(c, ns);
	c->floor = ns;
	goto done;
out:
	ns = kpt_clock_after(c, ns);
done:
	barrier();
	WRITE_ONCE(c->seq, seq + 2);
	return ns;
}
NOKPROBE_SYMBOL(kpt_clock_move);

/*
 * The time of a hit when kpt_clock_try() could not give it. The mono
 * clock without the TSC reads CLOCK_MONOTONIC; without an anchor yet, or
 * nested in this CPU's move, kpt_clock_move() gives it at once. Else read
 * again (a move ran under the hit), else move the anchor, else, a second
 * move under the hit, from the clock itself.
 */
u64 kpt_clock_ns_slow(bool local)
{
	struct kpt_clock __percpu *anchors = kpt_clock_anchors(local);
	struct kpt_clock *c = this_cpu_ptr(anchors);
	unsigned int seq;
	u64 ns;

	if (static_branch_unlikely(&kpt_clock_mono_key) && !local)
		return kpt_clock_mono();
	seq = READ_ONCE(c->seq);
	barrier();
	if (!READ_ONCE(c->window) || (seq & 1))
		return kpt_clock_move(c, seq, local);
	if (kpt_clock_try(anchors, local, &ns))
		return ns;
	seq = READ_ONCE(c->seq);
	barrier();
	if ((seq & 1) || kpt_arch_cycles_ordered() - c->tsc >= c->window)
		return kpt_clock_move(c, seq, local);
	/* (the fast path stores no time: none of it may be above this) */
	return kpt_clock_after(c, max(kpt_clock_read(local),
				      kpt_clock_reach(c)));
}
NOKPROBE_SYMBOL(kpt_clock_ns_slow);
