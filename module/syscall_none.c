// SPDX-License-Identifier: GPL-2.0
/*
 * kptrace: the syscalls probe (s) where it is not built (Kbuild): its
 * tables, entry points and summary are x86-64's (syscall*.c). An s spec
 * is refused with -EOPNOTSUPP, its reason in the answer and the log
 * line; what the shared code asks of s probes has the answer "none".
 */
#include <linux/kernel.h>
#include <linux/errno.h>
#include "probe.h"

static void kpt_sys_none_compile(const struct kpt_spec *spec,
				 struct kpt_prog *g)
{
}

static int kpt_sys_none_check(const struct kpt_probe *p, const char **why)
{
	*why = "s probes are x86-64 only";
	return -EOPNOTSUPP;
}

/* never called: the check refuses every s probe before it is armed */
static int kpt_sys_none_arm(struct kpt_probe *p)
{
	return -EOPNOTSUPP;
}

static void kpt_sys_none_disarm(struct kpt_probe *p,
				struct kpt_disarm_batch *batch)
{
}

static void kpt_sys_none_show(struct seq_file *m, struct kpt_probe *p,
			      char *buf)
{
}

const struct kpt_probe_ops kpt_sys_ops = {
	.compile	= kpt_sys_none_compile,
	.check		= kpt_sys_none_check,
	.arm		= kpt_sys_none_arm,
	.disarm		= kpt_sys_none_disarm,
	.show		= kpt_sys_none_show,
};

/* No s probe exists: nothing to translate */
int kpt_sys_ids_global(struct kpt_spec *spec)
{
	return 0;
}

/* A return probe's misses beside its kretprobe's: an s probe's only */
unsigned long kpt_sys_missed(const struct kpt_probe *p)
{
	return 0;
}

/* KPT_IOC_SYSSUM: no s probe, no summary */
int kpt_probes_syssum(struct kpt_session *sess, const char *name,
		      void __user *ubuf, u64 room, u32 *id, u32 *n, u64 *full,
		      size_t *len)
{
	return -EOPNOTSUPP;
}
