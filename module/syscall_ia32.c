// SPDX-License-Identifier: GPL-2.0
/*
 * kptrace: a syscalls probe's 32-bit calls, int $0x80 of any program and
 * every call of a 32-bit one, on ia32_sys_call(regs, nr), the i386
 * dispatcher (v6.9, and the kernels the BHI fix brought x64_sys_call to),
 * as syscall.c's on x64_sys_call: a kretprobe whose kprobe selects ahead
 * of its pre-handler. Its numbers are the i386 ones (nr32=), its
 * arguments ebx, ecx, edx, esi, edi, ebp, its records flagged
 * KPT_F_SYS_COMPAT, and a summary counts them as nr | KPT_SYS_NR_COMPAT.
 * Its return always takes the out-of-line kpt_sys_exit_slow(): 32-bit
 * calls are few, so no fast path is kept for them. The raw_syscalls
 * tracepoints' way sees them by itself (syscall_tp.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/kprobes.h>
#include "clock.h"
#include "syscall.h"

/* The path strings of each i386 call (syscall.h), as kpt_sys_strs[] */
#define S1		KPT_SYS_STR1
#define S2		KPT_SYS_STR2
const u8 kpt_sys_strs32[KPT_SYS_NR_BITS] = {
	[5] = S1(1),		/* open */
	[8] = S1(1),		/* creat */
	[9] = S2(1, 2),		/* link */
	[10] = S1(1),		/* unlink */
	[11] = S1(1),		/* execve */
	[12] = S1(1),		/* chdir */
	[14] = S1(1),		/* mknod */
	[15] = S1(1),		/* chmod */
	[16] = S1(1),		/* lchown */
	[18] = S1(1),		/* oldstat */
	[21] = S2(1, 2),	/* mount */
	[22] = S1(1),		/* umount */
	[30] = S1(1),		/* utime */
	[33] = S1(1),		/* access */
	[38] = S2(1, 2),	/* rename */
	[39] = S1(1),		/* mkdir */
	[40] = S1(1),		/* rmdir */
	[51] = S1(1),		/* acct */
	[52] = S1(1),		/* umount2 */
	[61] = S1(1),		/* chroot */
	[83] = S2(1, 2),	/* symlink */
	[84] = S1(1),		/* oldlstat */
	[85] = S1(1),		/* readlink */
	[86] = S1(1),		/* uselib */
	[87] = S1(1),		/* swapon */
	[92] = S1(1),		/* truncate */
	[99] = S1(1),		/* statfs */
	[106] = S1(1),		/* stat */
	[107] = S1(1),		/* lstat */
	[115] = S1(1),		/* swapoff */
	[129] = S1(1),		/* delete_module */
	[131] = S1(2),		/* quotactl */
	[182] = S1(1),		/* chown */
	[193] = S1(1),		/* truncate64 */
	[195] = S1(1),		/* stat64 */
	[196] = S1(1),		/* lstat64 */
	[198] = S1(1),		/* lchown32 */
	[212] = S1(1),		/* chown32 */
	[217] = S2(1, 2),	/* pivot_root */
	[226] = S2(1, 2),	/* setxattr */
	[227] = S2(1, 2),	/* lsetxattr */
	[228] = S1(2),		/* fsetxattr */
	[229] = S2(1, 2),	/* getxattr */
	[230] = S2(1, 2),	/* lgetxattr */
	[231] = S1(2),		/* fgetxattr */
	[232] = S1(1),		/* listxattr */
	[233] = S1(1),		/* llistxattr */
	[235] = S2(1, 2),	/* removexattr */
	[236] = S2(1, 2),	/* lremovexattr */
	[237] = S1(2),		/* fremovexattr */
	[268] = S1(1),		/* statfs64 */
	[271] = S1(1),		/* utimes */
	[277] = S1(1),		/* mq_open */
	[278] = S1(1),		/* mq_unlink */
	[286] = S2(1, 2),	/* add_key */
	[287] = S2(1, 2),	/* request_key */
	[292] = S1(2),		/* inotify_add_watch */
	[295] = S1(2),		/* openat */
	[296] = S1(2),		/* mkdirat */
	[297] = S1(2),		/* mknodat */
	[298] = S1(2),		/* fchownat */
	[299] = S1(2),		/* futimesat */
	[300] = S1(2),		/* fstatat64 */
	[301] = S1(2),		/* unlinkat */
	[302] = S2(2, 4),	/* renameat */
	[303] = S2(2, 4),	/* linkat */
	[304] = S2(1, 3),	/* symlinkat */
	[305] = S1(2),		/* readlinkat */
	[306] = S1(2),		/* fchmodat */
	[307] = S1(2),		/* faccessat */
	[320] = S1(2),		/* utimensat */
	[339] = S1(6),		/* fanotify_mark: its mask takes two */
	[341] = S1(2),		/* name_to_handle_at */
	[353] = S2(2, 4),	/* renameat2 */
	[356] = S1(1),		/* memfd_create */
	[358] = S1(2),		/* execveat */
	[383] = S1(2),		/* statx */
	[412] = S1(2),		/* utimensat_time64 */
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
 * A 32-bit call's selection, from ia32_sys_call()'s registers @regs: true
 * for a selected call that takes an instance; exit and exit_group are
 * recorded here. The kprobe's wrapper runs it, or the entry handler for a
 * call that came through the pre-handler alone (armed, not yet wrapped).
 */
static nokprobe_inline bool kpt_sys32_select(struct kpt_probe *p,
					     struct pt_regs *regs)
{
	unsigned int nr = (unsigned int)regs->si;

	if (!kpt_sys_select(p, nr, true))
		return false;
	if (unlikely(kpt_sys_is_exit(nr, true))) {
		kpt_sys_exit_call(p, (const struct pt_regs *)regs->di, nr,
				  regs, KPT_F_SYS_COMPAT);
		return false;
	}
	return true;
}

static int kpt_sys32_kprobe_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct kpt_sys_aux *a = container_of(kp, struct kpt_sys_aux, rp32.kp);

	if (!READ_ONCE(a->live) || !kpt_sys32_select(a->p, regs))
		return 0;
	return kpt_sys_call_pre(READ_ONCE(a->pre32), kp, regs);
}
NOKPROBE_SYMBOL(kpt_sys32_kprobe_pre);

static int kpt_sys32_entry(struct kretprobe_instance *ri,
			   struct pt_regs *regs)
{
	struct kpt_probe *p;

	if (!kpt_sys_aux_ri(ri, offsetof(struct kpt_sys_aux, rp32), &p))
		return 1;
	if (unlikely(!__this_cpu_read(kpt_sys_preselected)) &&
	    !kpt_sys32_select(p, regs))
		return 1;
	kpt_sys_begin(p, (const struct pt_regs *)regs->di,
		      (unsigned int)regs->si, (struct kpt_sys_data *)ri->data,
		      kpt_probe_now(p), !p->sys_sum, true);
	return 0;
}
NOKPROBE_SYMBOL(kpt_sys32_entry);

static int kpt_sys32_return(struct kretprobe_instance *ri,
			    struct pt_regs *regs)
{
	const struct kpt_sys_data *d = (const struct kpt_sys_data *)ri->data;
	struct kpt_probe *p;
	u64 ts;

	if (!kpt_sys_aux_ri(ri, offsetof(struct kpt_sys_aux, rp32), &p))
		return 0;
	ts = kpt_probe_now(p);
	this_cpu_inc(p->stats->hits);
	kpt_sys_exit_slow(p, d, (long)regs_return_value(regs), ts,
			  kpt_clock_since(d->entry_ts, ts), regs,
			  KPT_F_SYS_COMPAT);
	return 0;
}
NOKPROBE_SYMBOL(kpt_sys32_return);

/* 0, or the kprobe core's error: -ENOENT where the kernel has none */
int kpt_sys32_arm(struct kpt_sys_aux *a, unsigned int maxactive)
{
	int ret;

	ret = kpt_sys_aux_register(a, &a->rp32, "ia32_sys_call", maxactive,
				   kpt_sys32_entry, kpt_sys32_return);
	if (ret)
		return ret;
	kpt_sys_kretprobe_wrap(&a->rp32, &a->pre32, kpt_sys32_kprobe_pre);
	a->rp32_on = true;
	return 0;
}
