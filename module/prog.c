// SPDX-License-Identifier: GPL-2.0
/*
 * kptrace: a probe's program, compiled once from its spec when the probe
 * is made (probe.c): per phase (entry, return) the fetch steps, the
 * condition's terms, the aggregation's keys, and whether the fast paths
 * can take it (registers only). Its kind adds the rest (the records'
 * sizes: struct kpt_probe_ops::compile). The handlers (fetch.c,
 * syscall.c) read the program and nothing of the spec.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include "config.h"
#include "probe.h"
#include "arch.h"

/* Where $arg1..$arg6 are: regs_get_kernel_argument()'s registers. */
static const unsigned short kpt_arg_regs[] = KPT_ARCH_ARG_OFFSETS;

/*
 * Can the fast paths copy fetcharg @i, @f, straight from pt_regs (or take
 * it as $retval at return)? If so, note in @g where from.
 */
static bool kpt_prog_fast_arg(struct kpt_prog *g, const struct kpt_fetch *f,
			      unsigned int i)
{
	if (f->nderef || kpt_type_size(f->type) != 8 ||
	    kpt_type_is_string(f->type))
		return false;
	if (f->base == KPT_FB_RETVAL && g->is_ret &&
	    g->ret_slot == KPT_FAST_ARGS) {
		/* one $retval: the fast return path writes it there */
		g->ret_slot = i;
		return true;
	}
	if (f->base != KPT_FB_ARG || !f->index ||
	    f->index > ARRAY_SIZE(kpt_arg_regs))
		return false;
	g->arg_off[i] = kpt_arg_regs[f->index - 1];
	return true;
}

/* KPT_STR_USER if @f's last +uOFFS(...) reads user memory */
static u8 kpt_prog_str_flags(const struct kpt_fetch *f)
{
	return f->nderef && f->deref[f->nderef - 1].user ? KPT_STR_USER : 0;
}

/* When @f is fetched: a return probe's $retval at return, all else at entry */
static unsigned int kpt_prog_phase_of(const struct kpt_prog *g,
				      const struct kpt_fetch *f)
{
	return g->is_ret && f->base == KPT_FB_RETVAL ? KPT_AT_RETURN :
						       KPT_AT_ENTRY;
}

/* Fetcharg @i of @spec as the next step of @g, in its phase @ph. */
static void kpt_prog_step(const struct kpt_spec *spec, unsigned int i,
			  struct kpt_prog *g, struct kpt_phase *ph)
{
	const struct kpt_fetch *f = &spec->args[i];
	struct kpt_step *s = &g->step[ph->first + ph->n++];

	s->slot = i;
	s->base = f->base;
	s->type = f->type;
	s->reg = f->reg;
	s->nderef = f->nderef;
	s->size = kpt_type_size(f->type);
	s->str = kpt_type_is_string(f->type);
	s->str_flags = kpt_prog_str_flags(f);
	s->index = f->index;
	s->imm = f->imm;
	memcpy(s->deref, f->deref, sizeof(s->deref));
	ph->nstr += s->str;
}

/* The condition's terms and the aggregation's keys and values of @spec. */
static void kpt_prog_compile_hist(const struct kpt_spec *spec,
				  struct kpt_prog *g)
{
	const struct kpt_hist_spec *hs = &spec->hist;
	const struct kpt_fetch *f;
	struct kpt_hkey *k;
	unsigned int i;

	for (i = 0; i < spec->ncond; i++) {
		g->cond[i].c = spec->cond[i];
		g->cond[i].is_signed =
			spec->cond[i].field == KPT_CF_RETVAL ||
			(spec->cond[i].field < KPT_CF_RETVAL &&
			 spec->args[spec->cond[i].field].type >= KPT_T_S8 &&
			 spec->args[spec->cond[i].field].type <= KPT_T_S64);
	}
	g->nkeys = hs->nkeys;
	g->nvals = hs->nvals;
	for (i = 0; i < hs->nvals; i++)
		g->val_field[i] = hs->vals[i].field;
	for (i = 0; i < hs->nkeys; i++) {
		k = &g->key[i];
		k->hf = hs->keys[i];
		if (k->hf.field == KPT_CF_STACKTRACE) {
			k->kind = KPT_HK_STACK;
		} else if (k->hf.field == KPT_CF_COMM) {
			k->kind = KPT_HK_COMM;
		} else if (k->hf.field < KPT_CF_RETVAL &&
			   kpt_type_is_string(spec->args[k->hf.field].type)) {
			f = &spec->args[k->hf.field];
			k->kind = KPT_HK_STR;
			k->str_base = f->base;
			k->str_type = f->type;
			k->str_flags = kpt_prog_str_flags(f);
		} else {
			k->kind = KPT_HK_NUM;
		}
	}
}

/**
 * kpt_prog_compile() - compile @spec into the program its handlers run
 * @spec: the parsed spec
 * @ops: its kind, which adds its part (struct kpt_probe_ops::compile)
 * @g: the program (probe.h), zeroed
 */
void kpt_prog_compile(const struct kpt_spec *spec,
		      const struct kpt_probe_ops *ops, struct kpt_prog *g)
{
	unsigned int i, at, steps = 0, strs = 0, retstrs = 0;
	const struct kpt_fetch *f;

	g->is_ret = spec->kind != KPT_SPEC_ENTRY;
	g->both = spec->kind == KPT_SPEC_BOTH;
	g->regs_only = !spec->ncond && spec->nargs <= KPT_FAST_ARGS;
	g->ret_slot = KPT_FAST_ARGS;
	for (i = 0; i < KPT_FAST_ARGS; i++)
		g->arg_off[i] = KPT_ARCH_RET_OFFSET;
	/* the entry's steps first */
	for (at = KPT_AT_ENTRY; at <= KPT_AT_RETURN; at++) {
		g->phase[at].first = steps;
		for (i = 0; i < spec->nargs; i++) {
			f = &spec->args[i];
			if (kpt_prog_phase_of(g, f) == at)
				kpt_prog_step(spec, i, g, &g->phase[at]);
		}
		steps += g->phase[at].n;
	}
	for (i = 0; i < spec->nargs; i++) {
		f = &spec->args[i];
		if (g->regs_only && !kpt_prog_fast_arg(g, f, i))
			g->regs_only = false;
		if (!kpt_type_is_string(f->type))
			continue;
		g->nstr++;
		if (f->base == KPT_FB_RETVAL)
			retstrs += kpt_cfg.strsize;
		else
			strs += f->base == KPT_FB_COMM ? KPT_COMM_LEN :
							 kpt_cfg.strsize;
	}
	g->str_bytes[KPT_AT_ENTRY] = strs;
	g->str_bytes[KPT_AT_RETURN] = retstrs;
	kpt_prog_compile_hist(spec, g);
	/* its kind's part: the record sizes, the fast paths */
	ops->compile(spec, g);
}
