// SPDX-License-Identifier: GPL-2.0
/*
 * kptrace: the kprobe (p) and kretprobe (r, b) kinds of probe, each an
 * ops table (struct kpt_probe_ops, probe.h): their records' sizes, their
 * return instances, how they are armed and disarmed with the kprobe core
 * and how the probes listing shows them. Their handlers are fetch.c's;
 * the syscalls kind (s) is syscall.c's.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include "compat.h"
#include "config.h"
#include "probe.h"

/* The sizes of an entry record: every kind with entries shares them */
static void kpt_kprobe_compile(const struct kpt_spec *spec,
			       struct kpt_prog *g)
{
	unsigned int nstack = kpt_cfg.stack;

	g->entry_fast = g->regs_only && !nstack;
	g->nargs = spec->nargs;
	g->ncond = spec->ncond;
	g->hist_events = spec->hist.events;
	g->ret_nargs = g->both ? 0 : spec->nargs;
	g->entry_size = KPT_HDR_SIZE + (spec->nargs + nstack) * sizeof(u64) +
			round_up(g->str_bytes[KPT_AT_ENTRY], 8);
}

static void kpt_kretprobe_compile(const struct kpt_spec *spec,
				  struct kpt_prog *g)
{
	unsigned int strs = g->str_bytes[KPT_AT_ENTRY];

	kpt_kprobe_compile(spec, g);
	if (g->both) {
		/* the entry record has it all: the return only its value */
		g->ret_size = KPT_RET_SIZE;
		g->ri_size = sizeof(u64);
		return;
	}
	g->ret_size = KPT_RET_SIZE + spec->nargs * sizeof(u64) +
		      round_up(strs + g->str_bytes[KPT_AT_RETURN], 8);
	/* the fast entry copies all KPT_FAST_ARGS slots */
	g->ri_size = sizeof(u64) + strs +
		     max_t(unsigned int, spec->nargs,
			   g->regs_only ? KPT_FAST_ARGS : 0) * sizeof(u64);
}

/* Return instances of @p: its MAXACTIVE, else maxactive= */
static unsigned int kpt_kretprobe_maxactive(const struct kpt_probe *p)
{
	return p->spec->maxactive ?: kpt_cfg.maxactive;
}

/*
 * What a return probe's instances take (the kprobe core's, with the data
 * kept per call, compat.h), for mem_max_mb
 */
u64 kpt_kretprobe_mem(const struct kpt_probe *p)
{
	return kpt_kretprobe_pool_bytes(p->ops->maxactive(p),
					p->prog.ri_size);
}

/* The data a return probe keeps per call, over all its instances */
int kpt_kretprobe_check(const struct kpt_probe *p, const char **why)
{
	if ((u64)p->prog.ri_size * p->ops->maxactive(p) > 16UL << 20) {
		*why = "MAXACTIVE x the data kept per call is over 16 MiB";
		return -EINVAL;
	}
	return 0;
}

/* Where @kp goes: the spec's symbol (and offset), or its address */
static void kpt_kprobe_target(struct kpt_probe *p, struct kprobe *kp)
{
	if (p->symname) {
		kp->symbol_name = p->symname;
		kp->offset = p->spec->offset;
	} else {
		kp->addr = (kprobe_opcode_t *)(unsigned long)p->spec->addr;
	}
}

static int kpt_kprobe_arm(struct kpt_probe *p)
{
	memset(&p->kp, 0, sizeof(p->kp));
	kpt_kprobe_set_handlers(p);
	kpt_kprobe_target(p, &p->kp);
	return register_kprobe(&p->kp);
}

static void kpt_kprobe_disarm(struct kpt_probe *p,
			      struct kpt_disarm_batch *batch)
{
	if (batch)
		batch->kps[batch->nkps++] = &p->kp;
	else
		unregister_kprobe(&p->kp);
}

/*
 * A kretprobe ready to register but for its handlers: its instances'
 * data and number, its target (the syscalls kind arms one too).
 */
void kpt_kretprobe_prepare(struct kpt_probe *p)
{
	memset(&p->rp, 0, sizeof(p->rp));
	p->rp.data_size = p->prog.ri_size;
	p->rp.maxactive = p->ops->maxactive(p);
	kpt_kprobe_target(p, &p->rp.kp);
}

static int kpt_kretprobe_arm(struct kpt_probe *p)
{
	kpt_kretprobe_prepare(p);
	kpt_kretprobe_set_handlers(p);
	return register_kretprobe(&p->rp);
}

/* Unregister @rp now, or with @batch (kpt_probes_disarm_all()) */
void kpt_rp_disarm(struct kretprobe *rp, struct kpt_disarm_batch *batch)
{
	if (batch)
		batch->rps[batch->nrps++] = rp;
	else
		unregister_kretprobe(rp);
}

/* (the syscalls kind's too, when it is on a kretprobe) */
void kpt_kretprobe_disarm(struct kpt_probe *p, struct kpt_disarm_batch *batch)
{
	kpt_rp_disarm(&p->rp, batch);
}

static const char *kpt_kretprobe_arm_error(const struct kpt_probe *p,
					   int err)
{
	if (err == -EINVAL && p->spec->offset)
		return "a return probe needs a function entry, not an offset";
	return NULL;
}

static void kpt_kprobe_show(struct seq_file *m, struct kpt_probe *p,
			    char *buf)
{
	kpt_probe_show_kprobe(m, p, "kprobe", buf);
}

static void kpt_kretprobe_show(struct seq_file *m, struct kpt_probe *p,
			       char *buf)
{
	kpt_probe_show_kprobe(m, p, "kretprobe", buf);
}

const struct kpt_probe_ops kpt_kprobe_ops = {
	.compile	= kpt_kprobe_compile,
	.arm		= kpt_kprobe_arm,
	.disarm		= kpt_kprobe_disarm,
	.show		= kpt_kprobe_show,
};

const struct kpt_probe_ops kpt_kretprobe_ops = {
	.compile	= kpt_kretprobe_compile,
	.maxactive	= kpt_kretprobe_maxactive,
	.mem		= kpt_kretprobe_mem,
	.check		= kpt_kretprobe_check,
	.arm		= kpt_kretprobe_arm,
	.disarm		= kpt_kretprobe_disarm,
	.arm_error	= kpt_kretprobe_arm_error,
	.show		= kpt_kretprobe_show,
};
