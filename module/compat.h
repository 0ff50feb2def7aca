/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kptrace: every difference between the kernels kptrace supports (Debian
 * 5.10 to 7.2) lives here, one small wrapper per upstream change, so that
 * no .c file tests LINUX_VERSION_CODE.
 */
#ifndef _KPT_COMPAT_H
#define _KPT_COMPAT_H

#include <linux/version.h>
#include <linux/kprobes.h>
#include <linux/timer.h>
#include <linux/uio.h>
#include <linux/atomic.h>
#include <linux/fs.h>
#include <linux/fs_struct.h>
#include <linux/sched/task.h>
#include <trace/events/sched.h>

/*
 * get_unaligned(): <asm/unaligned.h> until 6.12 moved it to
 * <linux/unaligned.h> (5f60d5f6bbc1, "move asm/unaligned.h to
 * linux/unaligned.h")
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

/*
 * v5.11, d741bf41d7c7 ("kprobes: Remove kretprobe hash"): the instance no
 * longer points at its kretprobe directly; get_kretprobe() reads it.
 */
static nokprobe_inline struct kretprobe *
kpt_get_kretprobe(struct kretprobe_instance *ri)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 11, 0)
	return get_kretprobe(ri);
#else
	return ri->rp;
#endif
}

/*
 * The address a kretprobe's return handler returns to, from its @regs,
 * for a call trace; 0 when the kernel does not give it. v5.15 ("kprobes:
 * Enable stacktrace from pt_regs in kretprobe handler", and rethook
 * after it) sets regs->ip to the real return address before the handler
 * runs, and the unwinder steps over the trampoline; before, regs->ip is
 * the trampoline's and the stack cannot be unwound from there.
 */
static nokprobe_inline unsigned long kpt_kretprobe_ret_ip(struct pt_regs *regs)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 15, 0)
	return instruction_pointer(regs);
#else
	return 0;
#endif
}

/*
 * v6.2 renamed del_timer_sync() to timer_delete_sync(); v6.15 removed
 * the old name.
 */
static inline void kpt_timer_delete_sync(struct timer_list *t)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
	timer_delete_sync(t);
#else
	del_timer_sync(t);
#endif
}

/*
 * v6.2, de4eda9de2d9 ("use less confusing names for iov_iter direction
 * initializers"): an iov_iter read into is ITER_DEST, which is READ (0);
 * older kernels have only READ, some stable ones both.
 */
#ifdef ITER_DEST
#define KPT_ITER_DEST	ITER_DEST
#else
#define KPT_ITER_DEST	READ
#endif

/*
 * try_cmpxchg_local(): x86's cmpxchg reports success in ZF, which spares
 * the compare (and a move) after it. The generic try_cmpxchg{,64}_local()
 * came upstream in 2023, after 6.1: Debian's 6.12 and 7.2 headers have it
 * (linux/atomic/atomic-instrumented.h), 5.10's and 6.1's do not, and
 * there the same result comes from cmpxchg_local() and a compare. Only
 * for an unsigned long, the one use (ring.h: a ring's head).
 */
#ifdef try_cmpxchg_local
#define kpt_try_cmpxchg_local(p, o, n)	try_cmpxchg_local(p, o, n)
#else
static __always_inline bool kpt_try_cmpxchg_local(unsigned long *ptr,
						  unsigned long *oldp,
						  unsigned long new)
{
	unsigned long prev = cmpxchg_local(ptr, *oldp, new);
	bool ok = prev == *oldp;

	*oldp = prev;
	return ok;
}
#endif

/*
 * A file opened as init sees it (@path relative to init's root), whoever
 * asks: from a chroot or a container the caller's root is another.
 * ffb37ca3bd16 ("switch file_open_root() to struct path"):
 * file_open_root() takes the root as a struct path. The cutoff below is
 * not verified between 5.11 and 5.14, none of them a Debian kernel:
 * 5.10 (old form) and 6.1 on (new) are built by make check-kernels.
 * init_task's fs is taken under task_lock(), as the kernel's own users
 * of it do (kernel_read_file_from_path_initns(), the coredump).
 */
static inline struct file *kpt_open_from_init_root(const char *path)
{
	struct path root;
	struct file *f;

	task_lock(&init_task);
	get_fs_root(init_task.fs, &root);
	task_unlock(&init_task);
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 12, 0)
	f = file_open_root(&root, path, O_RDONLY, 0);
#else
	f = file_open_root(root.dentry, root.mnt, path, O_RDONLY, 0);
#endif
	path_put(&root);
	return f;
}

/*
 * sched_process_exit's arguments: (task), or (task, group_dead) since it
 * was given whether the process ends with the task (7.x). Which the
 * kernel has is read off its declaration, not a version.
 */
#define KPT_EXIT_TP_GROUP_DEAD						\
	__builtin_types_compatible_p(typeof(trace_sched_process_exit),	\
				     void (struct task_struct *, bool))

/*
 * The bytes a kretprobe of @n instances of @data bytes takes. Before 6.7
 * one kmalloc() each, which rounds up to its cache (a power of 2, or 96
 * or 192); from 6.7 the instances sit in an objpool, one vmalloc() per
 * possible CPU (whole pages) of a ring with a slot per instance (rounded
 * up to a power of 2, 8 bytes each) and that CPU's share of the objects.
 */
static inline u64 kpt_kretprobe_pool_bytes(unsigned int n, unsigned int data)
{
	u64 obj = sizeof(struct kretprobe_instance) + data;
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 7, 0)
	u64 ncpus = num_possible_cpus();

	if (!n)
		return 0;
	return ncpus * PAGE_ALIGN(16 + roundup_pow_of_two(n) * sizeof(void *) +
				  ALIGN(obj, 8) * DIV_ROUND_UP(n, ncpus));
#else
	if (obj > 64 && obj <= 96)
		obj = 96;
	else if (obj > 128 && obj <= 192)
		obj = 192;
	else
		obj = roundup_pow_of_two(obj);
	return (u64)n * obj;
#endif
}

#endif /* _KPT_COMPAT_H */
