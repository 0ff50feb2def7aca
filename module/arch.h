/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kptrace: every difference between the architectures kptrace supports
 * (x86-64, arm64) lives here, as kernel-version differences live in
 * compat.h, so that no .c file tests CONFIG_X86_64 or CONFIG_ARM64:
 *
 * - the registers: where each register the spec language names (spec.h's
 *   enum kpt_reg) and each argument register is in struct pt_regs, and
 *   the register a fast record fills its unused slots from;
 * - the cycle counter the clock interpolates (clock.h): the TSC, or
 *   arm64's architected timer, read from the CPU (cntvct_el0) without a
 *   device access;
 * - the stack walk from a probe's registers, or from here (fetch.c): the
 *   kernel's own unwinder on x86-64 (ORC, exported), arm64's frame
 *   records (the kernel's walker is not exported there).
 *
 * The system call probe (s) is x86-64's only for now: Kbuild builds
 * syscall_none.c in its place elsewhere.
 */
#ifndef _KPT_ARCH_H
#define _KPT_ARCH_H

#include <linux/kprobes.h>
#include <linux/ptrace.h>
#include <linux/stddef.h>
#include <spec.h>

#if defined(CONFIG_X86_64)

#include <asm/unwind.h>
#include <asm/msr.h>
#include <asm/tsc.h>
#include <asm/cpufeature.h>

/* pt_regs offsets of the spec's registers, in enum kpt_reg's order */
#define KPT_ARCH_REG_OFFSETS {						\
	[KPT_REG_AX] = offsetof(struct pt_regs, ax),			\
	[KPT_REG_BX] = offsetof(struct pt_regs, bx),			\
	[KPT_REG_CX] = offsetof(struct pt_regs, cx),			\
	[KPT_REG_DX] = offsetof(struct pt_regs, dx),			\
	[KPT_REG_SI] = offsetof(struct pt_regs, si),			\
	[KPT_REG_DI] = offsetof(struct pt_regs, di),			\
	[KPT_REG_BP] = offsetof(struct pt_regs, bp),			\
	[KPT_REG_SP] = offsetof(struct pt_regs, sp),			\
	[KPT_REG_R8] = offsetof(struct pt_regs, r8),			\
	[KPT_REG_R9] = offsetof(struct pt_regs, r9),			\
	[KPT_REG_R10] = offsetof(struct pt_regs, r10),			\
	[KPT_REG_R11] = offsetof(struct pt_regs, r11),			\
	[KPT_REG_R12] = offsetof(struct pt_regs, r12),			\
	[KPT_REG_R13] = offsetof(struct pt_regs, r13),			\
	[KPT_REG_R14] = offsetof(struct pt_regs, r14),			\
	[KPT_REG_R15] = offsetof(struct pt_regs, r15),			\
	[KPT_REG_IP] = offsetof(struct pt_regs, ip),			\
	[KPT_REG_FLAGS] = offsetof(struct pt_regs, flags),		\
}

/* The ABI's argument registers, $arg1 to $arg6 (the fast paths' copy) */
#define KPT_ARCH_ARG_OFFSETS {						\
	offsetof(struct pt_regs, di), offsetof(struct pt_regs, si),	\
	offsetof(struct pt_regs, dx), offsetof(struct pt_regs, cx),	\
	offsetof(struct pt_regs, r8), offsetof(struct pt_regs, r9),	\
}

/* the return value's register: a fast record's unused slots read it */
#define KPT_ARCH_RET_OFFSET	offsetof(struct pt_regs, ax)

/* $stackN: the kernel's own, exported on x86 */
static nokprobe_inline unsigned long kpt_arch_stack_nth(struct pt_regs *regs,
							unsigned int n)
{
	return regs_get_kernel_stack_nth(regs, n);
}

/*
 * The cycle counter: the TSC, read plainly in the fast path (as
 * sched_clock() reads it) and ordered where a pair is taken.
 */
static nokprobe_inline u64 kpt_arch_cycles(void)
{
	return rdtsc();
}

static nokprobe_inline u64 kpt_arch_cycles_ordered(void)
{
	return rdtsc_ordered();
}

/* Its rate, which the kernel may refine a few seconds after boot */
static nokprobe_inline unsigned int kpt_arch_cycles_khz(void)
{
	return READ_ONCE(tsc_khz);
}

/* Is there a counter at all (the local clock's anchors need one)? */
static inline bool kpt_arch_cycles_present(void)
{
	return boot_cpu_has(X86_FEATURE_TSC);
}

/* Does the kernel trust it to keep CLOCK_MONOTONIC (the mono anchors)? */
static inline bool kpt_arch_cycles_trusted(void)
{
	return !check_tsc_unstable();
}

/*
 * A stack walk: the kernel's unwinder, exported on x86. Started from a
 * probe's @regs it skips their frame (ORC's __unwind_start()) and gives
 * the probed function's caller first; from NULL, it starts here.
 * @entry (the registers are at a function's first instruction) matters
 * only on arm64.
 */
struct kpt_unwind {
	struct unwind_state	state;
};

static nokprobe_inline void kpt_unwind_start(struct kpt_unwind *u,
					     struct pt_regs *regs, bool entry)
{
	unwind_start(&u->state, current, regs, NULL);
}

static nokprobe_inline bool kpt_unwind_done(struct kpt_unwind *u)
{
	return unwind_done(&u->state);
}

static nokprobe_inline void kpt_unwind_next(struct kpt_unwind *u)
{
	unwind_next_frame(&u->state);
}

/*
 * The return address of the unwinder's frame, as
 * unwind_get_return_address() gives it, without its check where the
 * unwinder vouches for it. That check, __kernel_text_address(), walks the
 * module tree for a module's frame (mod_find(), an RCU tree walk: cache
 * misses on hardware), and the ORC unwinder (every Debian kernel's) walks
 * it again for the same address when it looks up the frame's ORC entry
 * one step on. While no step had to guess (unwind_error(): an address
 * without ORC data, unwound as if it kept a frame pointer), each return
 * address was read from the slot an ORC entry named, and state->ip is it.
 * The check is kept after a guess, so the walk stops at the first value
 * that is not kernel text, as the kernel's own stack traces do, and for
 * a frame of saved registers (state->signal: an interrupt, an exception,
 * the user registers that end a task's stack), whose ip is whatever the
 * interrupted code ran, user or firmware code included. Other
 * unwinders (frame pointer, guess) always keep it. 0 ends the walk.
 */
static nokprobe_inline unsigned long kpt_unwind_ip(struct kpt_unwind *u)
{
	struct unwind_state *state = &u->state;

#ifdef CONFIG_UNWINDER_ORC
	/* a call frame's: a regs frame's ip is the interrupted code's */
	if (!unwind_error(state) && !unwind_done(state) && !state->signal)
		return state->ip;
#endif
	return unwind_get_return_address(state);
}

#elif defined(CONFIG_ARM64)

#include <linux/uaccess.h>
#include <asm/arch_timer.h>
#include <asm/pointer_auth.h>

#define KPT_ARCH_X(n)	offsetof(struct pt_regs, regs[n])

/*
 * pt_regs offsets of the spec's registers, in enum kpt_reg's order: x0 to
 * x30, sp, pc, pstate
 */
#define KPT_ARCH_REG_OFFSETS {						\
	KPT_ARCH_X(0), KPT_ARCH_X(1), KPT_ARCH_X(2), KPT_ARCH_X(3),	\
	KPT_ARCH_X(4), KPT_ARCH_X(5), KPT_ARCH_X(6), KPT_ARCH_X(7),	\
	KPT_ARCH_X(8), KPT_ARCH_X(9), KPT_ARCH_X(10), KPT_ARCH_X(11),	\
	KPT_ARCH_X(12), KPT_ARCH_X(13), KPT_ARCH_X(14), KPT_ARCH_X(15),	\
	KPT_ARCH_X(16), KPT_ARCH_X(17), KPT_ARCH_X(18), KPT_ARCH_X(19),	\
	KPT_ARCH_X(20), KPT_ARCH_X(21), KPT_ARCH_X(22), KPT_ARCH_X(23),	\
	KPT_ARCH_X(24), KPT_ARCH_X(25), KPT_ARCH_X(26), KPT_ARCH_X(27),	\
	KPT_ARCH_X(28), KPT_ARCH_X(29), KPT_ARCH_X(30),			\
	offsetof(struct pt_regs, sp),					\
	offsetof(struct pt_regs, pc),					\
	offsetof(struct pt_regs, pstate),				\
}

/*
 * $arg1 to $arg6: x0 to x5 (AAPCS64 has eight, x0 to x7; the spec
 * language's $argN stops at 6 on both architectures for now, %x6 and
 * %x7 read the others)
 */
#define KPT_ARCH_ARG_OFFSETS {						\
	KPT_ARCH_X(0), KPT_ARCH_X(1), KPT_ARCH_X(2),			\
	KPT_ARCH_X(3), KPT_ARCH_X(4), KPT_ARCH_X(5),			\
}

/* the return value's register: a fast record's unused slots read it */
#define KPT_ARCH_RET_OFFSET	KPT_ARCH_X(0)

/*
 * $stackN: the Nth word above the stack pointer. The kernel's
 * regs_get_kernel_stack_nth() is not exported on arm64: read the same
 * word without a fault (0 if it cannot be read, as the kernel's gives 0
 * off the stack).
 */
static nokprobe_inline unsigned long kpt_arch_stack_nth(struct pt_regs *regs,
							unsigned int n)
{
	unsigned long *addr = (unsigned long *)kernel_stack_pointer(regs) + n;
	unsigned long v;

	if (copy_from_kernel_nofault(&v, addr, sizeof(v)))
		return 0;
	return v;
}

/*
 * The cycle counter: the architected timer's virtual count, cntvct_el0,
 * a system register read (no device, no MMIO), as the vDSO reads it. The
 * ordered read has an isb before it (and the kernel's ordering of the
 * count after), so that it is not taken before the clock read it pairs
 * with; the fast path's plain read may be, by a few cycles, as rdtsc may
 * on x86.
 */
static nokprobe_inline u64 kpt_arch_cycles(void)
{
	return read_sysreg(cntvct_el0);
}

static nokprobe_inline u64 kpt_arch_cycles_ordered(void)
{
	return __arch_counter_get_cntvct();
}

/* Its rate, set by firmware: it does not change */
static nokprobe_inline unsigned int kpt_arch_cycles_khz(void)
{
	return arch_timer_get_cntfrq() / 1000;
}

/*
 * A counter read plainly: not on a CPU whose counter needs an erratum
 * workaround (the kernel then reads it through
 * timer_unstable_counter_workaround, arch_timer.h): neither clock keeps
 * anchors there, every hit reads the clock itself, as on x86 without a
 * TSC.
 */
static inline bool kpt_arch_cycles_present(void)
{
#ifdef CONFIG_ARM_ARCH_TIMER_OOL_WORKAROUND
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		if (per_cpu(timer_unstable_counter_workaround, cpu))
			return false;
#endif
	return true;
}

/* The kernel's CLOCK_MONOTONIC is this counter (arch_sys_counter) */
static inline bool kpt_arch_cycles_trusted(void)
{
	return kpt_arch_cycles_present();
}

/*
 * A stack walk along the frame records (x29, x30 pairs) the kernel keeps
 * on arm64 (CONFIG_FRAME_POINTER is always on there): the kernel's own
 * walker, arch_stack_walk(), is not exported. Each record is read with
 * copy_from_kernel_nofault(), so a bad frame pointer ends the walk, never
 * an oops; a return address is stripped of its pointer authentication
 * code. The walk ends at the record of 0s that ends every task's stack,
 * at a misaligned or unreadable record, or after KPT_UNWIND_MAX records.
 *
 * From a probe's @regs the probed function's caller comes first, as on
 * x86: at the function's first instruction (@entry) it is in the link
 * register, x30, and x29 is still the caller's record; anywhere else the
 * function has its own record by then (its prologue), whose return
 * address is the caller. A return address that the kretprobe trampoline
 * replaced is not translated back (it shows as __kretprobe_trampoline).
 */
#define KPT_UNWIND_MAX	128

struct kpt_unwind {
	unsigned long	fp;
	unsigned long	pc;
	unsigned int	steps;
	bool		done;
};

static nokprobe_inline void kpt_unwind_next(struct kpt_unwind *u)
{
	unsigned long rec[2];

	if (!u->fp || (u->fp & 0x7) || ++u->steps > KPT_UNWIND_MAX ||
	    copy_from_kernel_nofault(rec, (void *)u->fp, sizeof(rec))) {
		u->done = true;
		return;
	}
	u->fp = rec[0];
	u->pc = ptrauth_strip_insn_pac(rec[1]);
	if (!u->pc)
		u->done = true;
}

static nokprobe_inline void kpt_unwind_start(struct kpt_unwind *u,
					     struct pt_regs *regs, bool entry)
{
	u->steps = 0;
	u->done = false;
	if (!regs) {
		u->fp = (unsigned long)__builtin_frame_address(0);
		u->pc = _THIS_IP_;
		return;
	}
	u->fp = regs->regs[29];
	if (entry) {
		u->pc = ptrauth_strip_insn_pac(regs->regs[30]);
		return;
	}
	kpt_unwind_next(u);
}

static nokprobe_inline bool kpt_unwind_done(struct kpt_unwind *u)
{
	return u->done;
}

/* The frame's return address (0 ends the walk) */
static nokprobe_inline unsigned long kpt_unwind_ip(struct kpt_unwind *u)
{
	return u->done ? 0 : u->pc;
}

#else
#error "kptrace supports x86-64 and arm64 only"
#endif

#endif /* _KPT_ARCH_H */
