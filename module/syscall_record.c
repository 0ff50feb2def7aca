// SPDX-License-Identifier: GPL-2.0
/*
 * kptrace: a syscalls probe's records (uapi/kptrace.h says what they
 * hold): the path strings a call keeps, its return record, or an entry
 * record for exit and exit_group, which never return; out of line, for
 * every attach point, but the return's common path (syscall.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/kprobes.h>
#include "ring.h"
#include "clock.h"
#include "syscall_sum.h"

/*
 * The path strings of each x86-64 call (syscall.h says how they are
 * written down), as perf trace and strace show them: names of files, of
 * mounts, of xattrs, of keys. Numbers are ABI; an unknown call has none.
 */
#define S1		KPT_SYS_STR1
#define S2		KPT_SYS_STR2
const u8 kpt_sys_strs[KPT_SYS_NR_BITS] = {
	[2] = S1(1),		/* open */
	[4] = S1(1),		/* stat */
	[6] = S1(1),		/* lstat */
	[21] = S1(1),		/* access */
	[59] = S1(1),		/* execve */
	[76] = S1(1),		/* truncate */
	[80] = S1(1),		/* chdir */
	[82] = S2(1, 2),	/* rename */
	[83] = S1(1),		/* mkdir */
	[84] = S1(1),		/* rmdir */
	[85] = S1(1),		/* creat */
	[86] = S2(1, 2),	/* link */
	[87] = S1(1),		/* unlink */
	[88] = S2(1, 2),	/* symlink */
	[89] = S1(1),		/* readlink */
	[90] = S1(1),		/* chmod */
	[92] = S1(1),		/* chown */
	[94] = S1(1),		/* lchown */
	[132] = S1(1),		/* utime */
	[133] = S1(1),		/* mknod */
	[134] = S1(1),		/* uselib */
	[137] = S1(1),		/* statfs */
	[155] = S2(1, 2),	/* pivot_root */
	[161] = S1(1),		/* chroot */
	[163] = S1(1),		/* acct */
	[165] = S2(1, 2),	/* mount */
	[166] = S1(1),		/* umount2 */
	[167] = S1(1),		/* swapon */
	[168] = S1(1),		/* swapoff */
	[176] = S1(1),		/* delete_module */
	[179] = S1(2),		/* quotactl */
	[188] = S2(1, 2),	/* setxattr */
	[189] = S2(1, 2),	/* lsetxattr */
	[190] = S1(2),		/* fsetxattr */
	[191] = S2(1, 2),	/* getxattr */
	[192] = S2(1, 2),	/* lgetxattr */
	[193] = S1(2),		/* fgetxattr */
	[194] = S1(1),		/* listxattr */
	[195] = S1(1),		/* llistxattr */
	[197] = S2(1, 2),	/* removexattr */
	[198] = S2(1, 2),	/* lremovexattr */
	[199] = S1(2),		/* fremovexattr */
	[235] = S1(1),		/* utimes */
	[240] = S1(1),		/* mq_open */
	[241] = S1(1),		/* mq_unlink */
	[248] = S2(1, 2),	/* add_key */
	[249] = S2(1, 2),	/* request_key */
	[254] = S1(2),		/* inotify_add_watch */
	[257] = S1(2),		/* openat */
	[258] = S1(2),		/* mkdirat */
	[259] = S1(2),		/* mknodat */
	[260] = S1(2),		/* fchownat */
	[261] = S1(2),		/* futimesat */
	[262] = S1(2),		/* newfstatat */
	[263] = S1(2),		/* unlinkat */
	[264] = S2(2, 4),	/* renameat */
	[265] = S2(2, 4),	/* linkat */
	[266] = S2(1, 3),	/* symlinkat */
	[267] = S1(2),		/* readlinkat */
	[268] = S1(2),		/* fchmodat */
	[269] = S1(2),		/* faccessat */
	[280] = S1(2),		/* utimensat */
	[301] = S1(5),		/* fanotify_mark */
	[303] = S1(2),		/* name_to_handle_at */
	[316] = S2(2, 4),	/* renameat2 */
	[319] = S1(1),		/* memfd_create */
	[322] = S1(2),		/* execveat */
	[332] = S1(2),		/* statx */
	[428] = S1(2),		/* open_tree */
	[429] = S2(2, 4),	/* move_mount */
	[430] = S1(1),		/* fsopen */
	[431] = S1(3),		/* fsconfig */
	[433] = S1(2),		/* fspick */
	[437] = S1(2),		/* openat2 */
	[439] = S1(2),		/* faccessat2 */
	[442] = S1(2),		/* mount_setattr */
	[452] = S1(2),		/* fchmodat2 */
	[463] = S2(2, 4),	/* setxattrat */
	[464] = S2(2, 4),	/* getxattrat */
	[465] = S1(2),		/* listxattrat */
	[466] = S2(2, 4),	/* removexattrat */
	[467] = S1(2),		/* open_tree_attr */
	[468] = S1(2),		/* file_getattr */
	[469] = S1(2),		/* file_setattr */
};

#undef S1
#undef S2

/*
 * The path strings @which (kpt_sys_strs_of()) of call @vals into @dst,
 * KPT_SYS_NSTR slots of @max bytes, their slots (offsets from @dst) in
 * vals[7] and [8]. Out of line: its frame and stack canary would cost the
 * calls without strings.
 */
noinline void kpt_sys_strs_read(struct kpt_probe *p, u64 *vals, char *dst,
				unsigned int max, unsigned int which)
{
	unsigned int i, arg, len;
	u16 flags;

	for (i = 0; i < KPT_SYS_NSTR; i++, which >>= 4) {
		arg = which & 0xf;
		if (!arg) {
			vals[7 + i] = KPT_SYS_NO_STR;
			continue;
		}
		flags = KPT_STR_SYSARG_SET(arg);
		len = kpt_copy_str(dst + i * max, vals[arg], max,
				   KPT_T_USTRING, &flags);
		if (flags & KPT_STR_FAULT)
			this_cpu_inc(p->stats->str_fault);
		if (flags & KPT_STR_TRUNC)
			this_cpu_inc(p->stats->str_trunc);
		/* no bytes: where the return record has them, as is */
		vals[7 + i] = KPT_STR_SLOT(len ? i * max : KPT_SYS_RET_HDR,
					   len, flags);
	}
}
NOKPROBE_SYMBOL(kpt_sys_strs_read);

/*
 * The strings of @vals (offsets in @src) after the slots of the record at
 * @ev, whose fixed part is @hdr bytes; the slots rewritten to point there.
 * Returns the record's size.
 */
static nokprobe_inline unsigned int kpt_sys_strs_put(struct kpt_event *ev,
						     u64 *slots,
						     const char *src,
						     unsigned int hdr)
{
	unsigned int i, len, used = hdr;

	for (i = 7; i < KPT_SYS_NARGS; i++) {
		len = KPT_STR_LEN(slots[i]);
		/* most calls have none: no call of memcpy() for nothing */
		if (len)
			memcpy((char *)ev + used, src + KPT_STR_OFF(slots[i]),
			       len);
		slots[i] = KPT_STR_SLOT(used, len, KPT_STR_FLAGS(slots[i]));
		used += len;
	}
	kpt_zero_pad(ev, used);
	return round_up(used, 8);
}

/* The size of a record with @slots' strings and a fixed part of @hdr */
static nokprobe_inline unsigned int kpt_sys_size(const u64 *slots,
						 unsigned int hdr)
{
	return round_up(hdr + KPT_STR_LEN(slots[7]) + KPT_STR_LEN(slots[8]), 8);
}

/*
 * The function whose kprobe gave a record of @flags its registers: the
 * first frame of its call trace
 */
static nokprobe_inline unsigned long kpt_sys_probed(const struct kpt_probe *p,
						    u8 flags)
{
	if (flags & KPT_F_SYS_DENIED)
		return (unsigned long)p->sys_aux->seccomp.kp.addr;
	if (flags & KPT_F_SYS_COMPAT)
		return (unsigned long)p->sys_aux->rp32.kp.addr;
	return (unsigned long)p->rp.kp.addr;
}

/*
 * stack=: the call trace of the record at @ev (of @flags) into its
 * @slots, from the registers @regs of x64_sys_call()'s kprobe (or
 * ia32_sys_call()'s, __secure_computing()'s; @at_return: of its return),
 * or without them from a tracepoint's probe. As every kptrace trace, it
 * starts at the probed address: x64_sys_call, then its caller.
 */
static nokprobe_inline void kpt_sys_stack(struct kpt_probe *p,
					  struct kpt_event *ev,
					  struct pt_regs *regs, bool at_return,
					  u64 *slots)
{
	unsigned int n = 0, max = p->prog.sys.stack;
	unsigned long ip;

	if (regs) {
		slots[n++] = kpt_sys_probed(p, ev->flags);
		if (at_return) {
			/* the caller's, which the unwinder steps over */
			ip = kpt_kretprobe_ret_ip(regs);
			if (!ip || n == max) {
				kpt_stack_cut(p, ev, n);
				return;
			}
			slots[n++] = ip;
		}
	}
	kpt_stack_record(p, ev, regs, slots, n, max);
}

/*
 * An entry record of @vals (KPT_SYS_NARGS - KPT_SYS_NSTR of them: no
 * strings), of @flags: exit and exit_group, which never return, a signal,
 * a task's exit. @regs: the kprobe's, for stack=; NULL from a tracepoint.
 */
static nokprobe_inline void kpt_sys_entry_record(struct kpt_probe *p,
						 const u64 *vals, u8 flags,
						 struct pt_regs *regs)
{
	unsigned int hdr = KPT_ENTRY_SIZE(KPT_SYS_NARGS, p->prog.sys.stack);
	struct kpt_event *ev;
	struct kpt_wr w;
	u64 ts = kpt_probe_now(p);

	if (!kpt_reserve(p, &w, hdr))
		return;
	ev = w.ev;
	/* in the task, even from an int3 kprobe (NMI count set) */
	kpt_fill_header(ev, KPT_EV_ENTRY, p, ts, KPT_SYS_NARGS, true);
	ev->flags |= flags;
	memcpy(ev->data, vals, (KPT_SYS_NARGS - KPT_SYS_NSTR) * sizeof(u64));
	if (p->prog.sys.stack)
		kpt_sys_stack(p, ev, regs, false, ev->data + KPT_SYS_NARGS);
	hdr = KPT_ENTRY_SIZE(KPT_SYS_NARGS, ev->nr_stack);
	ev->data[7] = KPT_STR_SLOT(hdr, 0, 0);
	ev->data[8] = KPT_STR_SLOT(hdr, 0, 0);
	kpt_ring_commit(&w, ev, hdr);
}

/*
 * exit and exit_group, selected: they never return, so they are decided
 * now (neither a failure nor a duration: filtered by either) and take
 * nothing for a return. Out of line: reached from kpt_sys_kprobe_rare(),
 * the late selection, ia32_sys_call()'s kprobe and the tracepoint's
 * sys_enter. And (@flags KPT_F_SYS_DENIED) a call seccomp denied and
 * rolled back, which has no return value either (syscall_denied.c): a
 * failure, of no duration.
 */
noinline void kpt_sys_exit_call(struct kpt_probe *p, const struct pt_regs *u,
				unsigned int nr, struct pt_regs *regs, u8 flags)
{
	bool denied = flags & KPT_F_SYS_DENIED;
	u64 vals[KPT_SYS_NARGS - KPT_SYS_NSTR];

	this_cpu_inc(p->stats->calls);
	this_cpu_inc(p->stats->hits);
	/* a denied call failed, in no time */
	if (denied ? p->prog.sys.duration_ns : p->prog.sys_ret_filter) {
		this_cpu_inc(p->stats->filtered);
	} else if (p->sys_sum) {
		/* a denied one: an error, of no value */
		kpt_sys_sum_add(p, kpt_sys_sum_nr(nr, flags), -(long)denied, 0);
	} else {
		kpt_sys_args(u, nr, vals, flags & KPT_F_SYS_COMPAT);
		kpt_sys_entry_record(p, vals, flags, regs);
	}
}
NOKPROBE_SYMBOL(kpt_sys_exit_call);

/*
 * A signal delivered to or the exit of a selected task (signals), @vals
 * as uapi/kptrace.h says: a call and a hit, recorded whatever failure or
 * duration= select (strace shows them whatever -e trace= says).
 */
noinline void kpt_sys_event(struct kpt_probe *p, const u64 *vals)
{
	this_cpu_inc(p->stats->calls);
	this_cpu_inc(p->stats->hits);
	kpt_sys_entry_record(p, vals, 0, NULL);
}
NOKPROBE_SYMBOL(kpt_sys_event);

/*
 * The return record of a selected call: @retval at @ts, @lat ns after
 * its entry; with the path strings its entry kept if @strs; with its
 * call trace if stack=, unwound from @regs (kpt_sys_stack()).
 */
static nokprobe_inline void kpt_sys_record(struct kpt_probe *p,
					   const struct kpt_sys_data *d,
					   long retval, u64 ts, u64 lat,
					   bool strs, struct pt_regs *regs,
					   u8 flags)
{
	unsigned int nstack = p->prog.sys.stack;
	unsigned int hdr = KPT_SYS_RET_HDR, size = hdr + nstack * sizeof(u64);
	struct kpt_event *ev;
	struct kpt_wr w;

	if (strs)
		size = kpt_sys_size(d->vals, size);
	if (!kpt_reserve(p, &w, size))
		return;
	ev = w.ev;
	kpt_sys_fill(ev, p, d, retval, ts, lat);
	ev->flags |= flags;
	if (nstack) {
		kpt_sys_stack(p, ev, regs, true,
			      ev->data + KPT_RET_SLOTS + KPT_SYS_NARGS);
		hdr += ev->nr_stack * sizeof(u64);
	}
	/* the slots point past the stack, even those of no bytes */
	if (strs || nstack)
		size = kpt_sys_strs_put(ev, ev->data + KPT_RET_SLOTS, d->strs,
					hdr);
	kpt_ring_commit(&w, ev, size);
}

/*
 * The return of a selected call, counted in hits: @retval at @ts, @lat
 * ns after its entry. failure and duration=, then its record (strings
 * and all) or its summary's entry. The tracepoints' way, and the
 * kretprobe's rare paths, out of line: the common one keeps nothing
 * across a call. @flags: the record's (syscall.h).
 */
noinline void kpt_sys_exit_slow(struct kpt_probe *p,
				const struct kpt_sys_data *d, long retval,
				u64 ts, u64 lat, struct pt_regs *regs, u8 flags)
{
	const struct kpt_sys_spec *sys = &p->prog.sys;

	if ((sys->failure && !IS_ERR_VALUE(retval)) ||
	    (sys->duration_ns && lat <= sys->duration_ns))
		this_cpu_inc(p->stats->filtered);
	else if (p->sys_sum)
		kpt_sys_sum_add(p, kpt_sys_sum_nr(d->vals[0], flags), retval,
				lat);
	else
		kpt_sys_record(p, d, retval, ts, lat, kpt_sys_has_strs(d),
			       regs, flags);
}
NOKPROBE_SYMBOL(kpt_sys_exit_slow);
