// SPDX-License-Identifier: GPL-2.0
/*
 * kptrace: the probe handlers' work: fetch the arguments a spec asks for,
 * test its condition, and write the record in place in this CPU's ring.
 *
 * This runs in whatever context the probed function runs in, NMI
 * included, with preemption disabled: no sleeping, no allocation, no lock,
 * and memory is read only through copy_from_{kernel,user}_nofault(), so a
 * bad pointer gives "(fault)", never an oops. Everything here is
 * nokprobe_inline or NOKPROBE_SYMBOL.
 *
 * A spec was parsed once, at registration, and compiled into a program
 * (struct kpt_prog, probe.h): per phase (entry, return) its fetch steps
 * (a base, then up to four dereferences, then a type), the condition's
 * terms, the aggregation's keys; the handlers read that and nothing of
 * the spec.
 */
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/sched.h>
#include <linux/cred.h>
#include <linux/uaccess.h>
#include <linux/stddef.h>
#include <linux/module.h>
#include <kpt_slot.h>
#include "config.h"
#include "probe.h"
#include "ring.h"
#include "hist.h"
#include "clock.h"
#include "compat.h"
#include "arch.h"
#include "record.h"

static const unsigned short kpt_reg_offset[KPT_REG_NR] =
	KPT_ARCH_REG_OFFSETS;

/*
 * The value of one fetcharg: for a number the number, for a string its
 * address. @retval is the return value (return probes, at return).
 * As in ftrace, the last +OFFS(...) of a string is where the string is,
 * not a pointer to read: +0(%si):string is the string at %si. Returns
 * false on a fault.
 */
static nokprobe_inline bool kpt_fetch_one(const struct kpt_step *f,
					  struct pt_regs *regs, u64 retval,
					  u64 *out)
{
	unsigned int i, rsize, size = f->size;
	unsigned long addr;
	u64 v = 0;

	switch (f->base) {
	case KPT_FB_REG:
		v = *(unsigned long *)((char *)regs + kpt_reg_offset[f->reg]);
		break;
	case KPT_FB_ARG:
		v = regs_get_kernel_argument(regs, f->index - 1);
		break;
	case KPT_FB_STACK:
		v = kpt_arch_stack_nth(regs, f->index);
		break;
	case KPT_FB_STACKP:
		v = kernel_stack_pointer(regs);
		break;
	case KPT_FB_RETVAL:
		v = retval;
		break;
	case KPT_FB_ADDR:
		/* @ADDR is the memory at ADDR, as in ftrace */
		if (!f->nderef && !size) {
			*out = f->imm;		/* a string at ADDR */
			return true;
		}
		rsize = f->nderef ? sizeof(v) : size;
		if (kpt_read_mem(&v, f->imm, rsize, false))
			return false;
		break;
	}
	for (i = 0; i < f->nderef; i++) {
		addr = (unsigned long)v + f->deref[i].off;
		if (!size && i + 1 == f->nderef) {
			*out = addr;
			return true;
		}
		rsize = i + 1 == f->nderef ? size : sizeof(v);
		v = 0;
		if (kpt_read_mem(&v, addr, rsize, f->deref[i].user))
			return false;
	}
	*out = kpt_slot_extend(v, f->type);
	return true;
}

/* The value of a numeric field of a condition or an aggregation. */
static nokprobe_inline u64 kpt_field_value(unsigned int field, const u64 *vals,
					   s64 retval, u64 lat)
{
	if (field < KPT_CF_RETVAL)
		return vals[field];
	switch (field) {
	case KPT_CF_RETVAL:
		return retval;
	case KPT_CF_LAT_NS:
		return lat;
	case KPT_CF_PID:
		return current->tgid;
	case KPT_CF_TID:
		return current->pid;
	case KPT_CF_CPU:
		return smp_processor_id();
	case KPT_CF_UID:
		return from_kuid(&init_user_ns, current_uid());
	default:
		return vals[field];
	}
}

static nokprobe_inline bool kpt_term(const struct kpt_term *term,
				     const u64 *vals, s64 retval, u64 lat)
{
	const struct kpt_cond *t = &term->c;
	bool is_signed = term->is_signed;
	s64 sv;
	u64 v;

	if (t->field == KPT_CF_COMM) {
		char comm[TASK_COMM_LEN];

		/* a rename may be under way: a comm that ends */
		memcpy(comm, current->comm, sizeof(comm));
		comm[sizeof(comm) - 1] = '\0';
		return kpt_glob_match(t->glob, comm) == (t->op == KPT_OP_EQ);
	}
	v = kpt_field_value(t->field, vals, retval, lat);
	sv = (s64)v;
	switch (t->op) {
	case KPT_OP_EQ:
		return v == (u64)t->value;
	case KPT_OP_NE:
		return v != (u64)t->value;
	case KPT_OP_AND:
		return v & (u64)t->value;
	case KPT_OP_LT:
		return is_signed ? sv < t->value : v < (u64)t->value;
	case KPT_OP_LE:
		return is_signed ? sv <= t->value : v <= (u64)t->value;
	case KPT_OP_GT:
		return is_signed ? sv > t->value : v > (u64)t->value;
	default:
		return is_signed ? sv >= t->value : v >= (u64)t->value;
	}
}

/* The condition: terms joined by && (binding tighter) and ||. */
static nokprobe_inline bool kpt_cond_pass(const struct kpt_probe *p,
					  const u64 *vals, s64 retval, u64 lat)
{
	const struct kpt_prog *g = &p->prog;
	bool group = true;
	unsigned int i;

	for (i = 0; i < g->ncond; i++) {
		if (i && g->cond[i].c.or) {
			if (group)
				return true;
			group = true;
		}
		if (group)
			group = kpt_term(&g->cond[i], vals, retval, lat);
	}
	return group;
}

/*
 * Are @p's registers at a function's first instruction (SYM, SYM+0)? The
 * arm64 walk then takes the caller from the link register (arch.h).
 */
static nokprobe_inline bool kpt_probe_at_func(const struct kpt_probe *p)
{
	return p->spec->sym[0] && !p->spec->offset;
}

/*
 * The callers of the probed function, from the probe's registers outwards.
 * This is arch_stack_walk() with regs, which stack_trace_save_regs() wraps
 * but does not export: arch.h's walk, the x86 unwinder (exported) or
 * arm64's frame records.
 */
static nokprobe_inline unsigned int kpt_save_stack(struct kpt_probe *p,
						   struct pt_regs *regs,
						   u64 *out, unsigned int max)
{
	struct kpt_unwind u;
	unsigned long addr;
	unsigned int n = 0;

	for (kpt_unwind_start(&u, regs, kpt_probe_at_func(p));
	     n < max && !kpt_unwind_done(&u); kpt_unwind_next(&u)) {
		addr = kpt_unwind_ip(&u);
		if (!addr)
			break;
		out[n++] = addr;
	}
	return n;
}

/* Frames a stack from here skips, at most, before this module's */
#define KPT_STACK_SKIP		8

/**
 * kpt_stack_record() - the call trace of a record, in its stack slots
 * @p: the probe, whose stack_trunc counts a trace cut short
 * @ev: the record, whose nr_stack and KPT_F_STACK_TRUNC are set
 * @regs: the probe's registers, unwound from their ip's caller; or NULL,
 *	from here outwards, less the frames of this module (a tracepoint's
 *	probe)
 * @out: the slots
 * @n: the frames the caller has put first in @out (the probed address,
 *	where @regs' ip is not it)
 * @max: the slots there are, at least @n
 *
 * The record is reserved already: a record of another probe on this CPU
 * meanwhile (an interrupt's) is lost as nested, as while an entry record
 * reads its strings. Out of line: only the records that carry a stack
 * pay for it.
 */
noinline void kpt_stack_record(struct kpt_probe *p, struct kpt_event *ev,
			       struct pt_regs *regs, u64 *out, unsigned int n,
			       unsigned int max)
{
	bool ours = !regs, seen = false;
	unsigned int steps = 0;
	struct kpt_unwind u;
	unsigned long addr;

	for (kpt_unwind_start(&u, regs, regs && kpt_probe_at_func(p));
	     !kpt_unwind_done(&u); kpt_unwind_next(&u)) {
		addr = kpt_unwind_ip(&u);
		if (!addr)
			break;
		if (ours) {
			/* the unwinder's first frames, then this module's */
			if (within_module(addr, THIS_MODULE)) {
				seen = true;
				continue;
			}
			if (!seen && steps++ < KPT_STACK_SKIP)
				continue;
			ours = false;
		}
		if (n == max) {
			kpt_stack_cut(p, ev, n);
			return;
		}
		out[n++] = addr;
	}
	ev->nr_stack = n;
}
NOKPROBE_SYMBOL(kpt_stack_record);

/*
 * Fetch the numbers (and strings' addresses) of @p's phase @at
 * (KPT_AT_ENTRY or KPT_AT_RETURN, kpt_prog_compile()) into @vals. A
 * number that faults is 0 (the event is still recorded) and counted.
 */
static nokprobe_inline void kpt_fetch_nums(const struct kpt_probe *p,
					   struct pt_regs *regs, u64 retval,
					   unsigned int at, u64 *vals)
{
	const struct kpt_phase *ph = &p->prog.phase[at];
	const struct kpt_step *f = &p->prog.step[ph->first];
	unsigned int i;

	for (i = 0; i < ph->n; i++, f++) {
		if (f->base == KPT_FB_COMM) {
			vals[f->slot] = 0;
			continue;
		}
		if (!kpt_fetch_one(f, regs, retval, &vals[f->slot])) {
			vals[f->slot] = 0;
			this_cpu_inc(p->stats->num_fault);
		}
	}
}

/*
 * Copy the strings of @p's phase @at into @dyn, whose first byte is at
 * offset @base of the record, and encode their slots. Returns the bytes
 * used in @dyn.
 */
static nokprobe_inline unsigned int kpt_fetch_strs(const struct kpt_probe *p,
						   unsigned int at, u64 *slots,
						   char *dyn, unsigned int base)
{
	const struct kpt_phase *ph = &p->prog.phase[at];
	const struct kpt_step *f = &p->prog.step[ph->first];
	unsigned int i, len, used = 0;
	u16 flags;

	for (i = 0; i < ph->n; i++, f++) {
		if (!f->str)
			continue;
		flags = f->str_flags;
		if (f->base == KPT_FB_COMM) {
			len = strnlen(current->comm, KPT_COMM_LEN - 1);
			memcpy(dyn + used, current->comm, len);
		} else {
			len = kpt_copy_str(dyn + used, slots[f->slot],
					   kpt_cfg.strsize, f->type, &flags);
		}
		if (flags & KPT_STR_FAULT)
			this_cpu_inc(p->stats->str_fault);
		if (flags & KPT_STR_TRUNC)
			this_cpu_inc(p->stats->str_trunc);
		slots[f->slot] = KPT_STR_SLOT(base + used, len, flags);
		used += len;
	}
	return used;
}

/*
 * One counter per entry record: a return probe's entries (@ret) are its
 * calls (a b probe's each is also an event, see kpt_probe_events()), a
 * plain kprobe's are its hits. @ret is a constant in the handlers.
 */
static nokprobe_inline void kpt_count_entry(struct kpt_probe *p, bool ret)
{
	if (ret)
		this_cpu_inc(p->stats->calls);
	else
		this_cpu_inc(p->stats->hits);
}

/* Room the fast paths reserve: every slot they copy (KPT_FAST_ARGS). */
#define KPT_FAST_ENTRY_SIZE	KPT_ENTRY_SIZE(KPT_FAST_ARGS, 0)
#define KPT_FAST_RET_SIZE	(KPT_RET_SIZE + (KPT_FAST_ARGS + 1) * sizeof(u64))

/* The KPT_FAST_ARGS slots of @src to @dst, in straight-line code. */
static nokprobe_inline void kpt_copy_slots(u64 *dst, const u64 *src)
{
	BUILD_BUG_ON(KPT_FAST_ARGS != 6);
	dst[0] = src[0];
	dst[1] = src[1];
	dst[2] = src[2];
	dst[3] = src[3];
	dst[4] = src[4];
	dst[5] = src[5];
}

static nokprobe_inline u64 kpt_reg_at(struct pt_regs *regs, unsigned short off)
{
	return *(unsigned long *)((char *)regs + off);
}

/*
 * prog.regs_only: the argument registers straight into the record (or, at
 * a return probe's entry, into the instance): all KPT_FAST_ARGS slots,
 * those past p->prog.nargs (and $retval's, filled at return) from ax. The
 * record's size leaves out what is past its arguments. Straight-line
 * code, a load of the offset and one of the register per slot: a probe
 * whose arguments are the ABI's in order would save the six offset loads
 * (its own handler did: 10 instructions of a 271-instruction hit, under
 * a tenth, so it went).
 */
static nokprobe_inline void kpt_copy_regs(const struct kpt_probe *p,
					  struct pt_regs *regs, u64 *out)
{
	const unsigned short *off = p->prog.arg_off;

	BUILD_BUG_ON(KPT_FAST_ARGS != 6);
	out[0] = kpt_reg_at(regs, off[0]);
	out[1] = kpt_reg_at(regs, off[1]);
	out[2] = kpt_reg_at(regs, off[2]);
	out[3] = kpt_reg_at(regs, off[3]);
	out[4] = kpt_reg_at(regs, off[4]);
	out[5] = kpt_reg_at(regs, off[5]);
}

/*
 * The common case, without stack or strings: the registers and the header
 * into the room @w reserved, one commit.
 */
static nokprobe_inline void kpt_entry_fast_write(struct kpt_probe *p,
						 struct pt_regs *regs, u64 ts,
						 u64 cpu_id, struct kpt_wr *w)
{
	unsigned int nargs = p->prog.nargs;
	struct kpt_event *ev = w->ev;

	kpt_copy_regs(p, regs, ev->data);
	kpt_fill_header_id(ev, KPT_EV_ENTRY, cpu_id, ts, nargs, false);
	kpt_ring_commit(w, ev, KPT_ENTRY_SIZE(nargs, 0));
}

/* kpt_entry_fast_write() with any reserve, a loss counted: out of line */
static noinline int kpt_entry_fast_reserve(struct kpt_probe *p,
					   struct pt_regs *regs, u64 ts)
{
	struct kpt_wr w;

	if (kpt_reserve(p, &w, KPT_FAST_ENTRY_SIZE))
		kpt_entry_fast_write(p, regs, ts,
				     this_cpu_read(p->stats->cpu_id), &w);
	return 0;
}
NOKPROBE_SYMBOL(kpt_entry_fast_reserve);

/*
 * The fast entry record. Its rare cases (no room at once, a loss) leave by
 * a tail call, which a fast handler ends with, so that its only call is
 * the wake-up of a waiting reader, and it saves (almost) no registers.
 * Returns the handler's 0.
 */
static nokprobe_inline int kpt_entry_fast(struct kpt_probe *p,
					  struct pt_regs *regs, u64 ts,
					  bool ret)
{
	struct kpt_ring *r;
	struct kpt_wr w;
	u64 cpu_id;

	kpt_count_entry(p, ret);
	/* with p->stats as the count loaded it: the ring's take clobbers */
	cpu_id = this_cpu_read(p->stats->cpu_id);
	r = kpt_probe_ring(p);
	if (unlikely(!kpt_ring_try(&w, r, KPT_FAST_ENTRY_SIZE)))
		return kpt_entry_fast_reserve(p, regs, ts);
	kpt_entry_fast_write(p, regs, ts, cpu_id, &w);
	return 0;
}

/*
 * Everything else an entry record may hold: stack, strings, a condition.
 * @given: the fetchargs already fetched, their condition held (an
 * aggregation's, with :events), or NULL.
 */
static noinline void kpt_entry_slow(struct kpt_probe *p, struct pt_regs *regs,
				    u64 ts, const u64 *given)
{
	unsigned int nargs = p->prog.nargs, nstack = kpt_cfg.stack;
	struct kpt_event *ev;
	struct kpt_wr w;
	unsigned int hdr;

	kpt_count_entry(p, p->prog.is_ret);
	if (p->prog.regs_only) {
		if (!kpt_reserve(p, &w, max_t(unsigned int, p->prog.entry_size,
					      KPT_FAST_ENTRY_SIZE)))
			return;
		ev = w.ev;
		kpt_copy_regs(p, regs, ev->data);
	} else {
		/* scoped here: INIT_STACK_ALL_ZERO zeroes it where it lives */
		u64 vals[KPT_SPEC_MAX_ARGS];

		if (given) {
			memcpy(vals, given, nargs * sizeof(u64));
		} else {
			kpt_fetch_nums(p, regs, 0, KPT_AT_ENTRY, vals);
			if (p->prog.ncond && !kpt_cond_pass(p, vals, 0, 0)) {
				this_cpu_inc(p->stats->filtered);
				return;
			}
		}
		if (!kpt_reserve(p, &w, p->prog.entry_size))
			return;
		ev = w.ev;
		memcpy(ev->data, vals, nargs * sizeof(u64));
	}
	kpt_fill_header(ev, KPT_EV_ENTRY, p, ts, nargs, false);
	if (nstack) {
		/* regs->ip is the probe address + 1 here, as after an int3 */
		ev->data[nargs] = (unsigned long)kpt_probe_kprobe(p)->addr;
		kpt_stack_record(p, ev, regs, &ev->data[nargs], 1, nstack);
	}
	hdr = KPT_ENTRY_SIZE(nargs, ev->nr_stack);
	if (p->prog.nstr) {
		hdr += kpt_fetch_strs(p, KPT_AT_ENTRY, ev->data,
				      (char *)ev + hdr, hdr);
		kpt_zero_pad(ev, hdr);
	}
	kpt_ring_commit(&w, ev, round_up(hdr, 8));
}
NOKPROBE_SYMBOL(kpt_entry_slow);

/*
 * What a return probe keeps between entry and return, in the kretprobe
 * instance's data: the entry time, the entry-side fetchargs' values, and
 * their strings.
 */
struct kpt_ri_data {
	u64	entry_ts;
	u64	vals[];
	/* then: char strs[] */
};

/* The entry side of a return probe whose fetchargs need more than registers. */
static noinline void kpt_ret_entry_slow(struct kpt_probe *p,
					struct pt_regs *regs,
					struct kpt_ri_data *d)
{
	kpt_fetch_nums(p, regs, 0, KPT_AT_ENTRY, d->vals);
	if (p->prog.phase[KPT_AT_ENTRY].nstr)
		kpt_fetch_strs(p, KPT_AT_ENTRY, d->vals,
			       (char *)&d->vals[p->prog.nargs], 0);
}
NOKPROBE_SYMBOL(kpt_ret_entry_slow);

/*
 * A return event of @p: @data is the kretprobe instance's, filled at
 * entry, @ts the time of the return. This one has arguments, strings or a
 * condition. @given: as kpt_entry_slow()'s, with the return's fetchargs.
 */
static noinline void kpt_return_slow(struct kpt_probe *p,
				     struct pt_regs *regs, void *data, u64 ts,
				     const u64 *given)
{
	struct kpt_ri_data *d = data;
	unsigned int nargs = p->prog.ret_nargs;
	s64 retval = (long)regs_return_value(regs);
	u64 lat = kpt_clock_since(d->entry_ts, ts);
	u64 vals[KPT_SPEC_MAX_ARGS];
	struct kpt_event *ev;
	struct kpt_wr w;
	const struct kpt_phase *ph = &p->prog.phase[KPT_AT_ENTRY];
	const struct kpt_step *f = &p->prog.step[ph->first];
	unsigned int i, hdr, used = 0, len;
	u64 slot;
	char *dyn;

	this_cpu_inc(p->stats->hits);
	if (given) {
		memcpy(vals, given, nargs * sizeof(u64));
	} else {
		if (nargs) {
			memcpy(vals, d->vals, nargs * sizeof(u64));
			kpt_fetch_nums(p, regs, retval, KPT_AT_RETURN, vals);
		}
		if (p->prog.ncond && !kpt_cond_pass(p, vals, retval, lat)) {
			this_cpu_inc(p->stats->filtered);
			return;
		}
	}
	if (!kpt_reserve(p, &w, p->prog.ret_size))
		return;
	ev = w.ev;
	kpt_fill_return(ev, p, ts, nargs, retval, lat, d->entry_ts, false);
	hdr = KPT_RET_SIZE + nargs * sizeof(u64);
	memcpy(ev->data + KPT_RET_SLOTS, vals, nargs * sizeof(u64));
	if (nargs && p->prog.nstr) {
		dyn = (char *)ev + hdr;
		/* Entry-side strings: move them from the instance. */
		for (i = 0; i < ph->n; i++, f++) {
			if (!f->str)
				continue;
			slot = vals[f->slot];
			len = KPT_STR_LEN(slot);
			memcpy(dyn + used, (char *)&d->vals[nargs] +
			       KPT_STR_OFF(slot), len);
			ev->data[KPT_RET_SLOTS + f->slot] =
				KPT_STR_SLOT(hdr + used, len,
					     KPT_STR_FLAGS(slot));
			used += len;
		}
		used += kpt_fetch_strs(p, KPT_AT_RETURN,
				       ev->data + KPT_RET_SLOTS, dyn + used,
				       hdr + used);
		kpt_zero_pad(ev, hdr + used);
	}
	kpt_ring_commit(&w, ev, round_up(hdr + used, 8));
}
NOKPROBE_SYMBOL(kpt_return_slow);

/*
 * A return event whose fetchargs are registers at entry and $retval (or
 * none, name=/address= probes): value, latency, entry time, arguments,
 * into the room @w reserved.
 */
static nokprobe_inline void kpt_return_fast_write(struct kpt_probe *p,
						  struct pt_regs *regs,
						  struct kpt_ri_data *d, u64 ts,
						  struct kpt_wr *w)
{
	unsigned int nargs = p->prog.ret_nargs;
	u64 retval = regs_return_value(regs), entry_ts = d->entry_ts;
	struct kpt_event *ev = w->ev;

	kpt_fill_return(ev, p, ts, nargs, retval,
			kpt_clock_since(entry_ts, ts), entry_ts, false);
	/* (a b probe keeps no values in the instance) */
	if (nargs)
		kpt_copy_slots(ev->data + KPT_RET_SLOTS, d->vals);
	/* $retval's slot, or the spare one past the arguments */
	ev->data[KPT_RET_SLOTS + p->prog.ret_slot] = retval;
	kpt_ring_commit(w, ev, KPT_RET_SIZE + nargs * sizeof(u64));
}

/* kpt_return_fast_write() with any reserve, a loss counted: out of line */
static noinline int kpt_return_fast_reserve(struct kpt_probe *p,
					    struct pt_regs *regs,
					    struct kpt_ri_data *d, u64 ts)
{
	struct kpt_wr w;

	if (kpt_reserve(p, &w, KPT_FAST_RET_SIZE))
		kpt_return_fast_write(p, regs, d, ts, &w);
	return 0;
}
NOKPROBE_SYMBOL(kpt_return_fast_reserve);

/* The fast return record, as kpt_entry_fast(). Returns the handler's 0. */
static nokprobe_inline int kpt_return_fast(struct kpt_probe *p,
					   struct pt_regs *regs,
					   struct kpt_ri_data *d, u64 ts)
{
	struct kpt_ring *r;
	struct kpt_wr w;

	this_cpu_inc(p->stats->hits);
	r = kpt_probe_ring(p);
	if (unlikely(!kpt_ring_try(&w, r, KPT_FAST_RET_SIZE)))
		return kpt_return_fast_reserve(p, regs, d, ts);
	kpt_return_fast_write(p, regs, d, ts, &w);
	return 0;
}

/* Keep the bytes of @w before its first NUL (little endian), zero the rest. */
static nokprobe_inline u64 kpt_upto_nul(u64 w, bool *nul)
{
	u64 z = (w - 0x0101010101010101ULL) & ~w & 0x8080808080808080ULL;

	if (!z)
		return w;
	*nul = true;
	/* the first zero byte's 0x80 is the lowest bit of z */
	return w & ((z & -z) / 0x80 - 1);
}

/* current->comm as two key words, zeroed from its NUL on. */
static nokprobe_inline void kpt_comm_words(u64 *w)
{
	bool nul = false;
	u64 c0, c1;

	/* two scalars, as kpt_fill_header() (FORTIFY_SOURCE) */
	memcpy(&c0, current->comm, 8);
	memcpy(&c1, current->comm + 8, 8);
	w[0] = kpt_upto_nul(c0, &nul);
	/* comm[15] may be non-NUL for a moment of a rename (kpt_fill_header) */
	w[1] = nul ? 0 : kpt_upto_nul(c1 & ~(0xffULL << 56), &nul);
}

/*
 * String fetcharg @i as a key in @w: from memory (its address is in @vals),
 * or, for a return probe's entry-side one, from the copy in the kretprobe
 * instance at @istr. False if it is longer than a key holds.
 */
static noinline bool kpt_hist_str(struct kpt_probe *p,
				  const struct kpt_hkey *k, const u64 *vals,
				  const char *istr, u64 *w)
{
	unsigned int len, max = KPT_HIST_STR_LEN - 1, i = k->hf.field;
	u16 flags;

	if (k->str_base == KPT_FB_COMM) {
		memset(w, 0, KPT_HIST_STR_LEN);
		kpt_comm_words(w);
		return true;
	}
	if (istr && k->str_base != KPT_FB_RETVAL) {
		len = KPT_STR_LEN(vals[i]);
		if (len > max || (KPT_STR_FLAGS(vals[i]) & KPT_STR_TRUNC))
			return false;
		memcpy(w, istr + KPT_STR_OFF(vals[i]), len);
	} else {
		flags = k->str_flags;
		len = kpt_copy_str((char *)w, vals[i], max, k->str_type,
				   &flags);
		if (flags & KPT_STR_FAULT)
			this_cpu_inc(p->stats->str_fault);
		if (flags & KPT_STR_TRUNC)
			return false;
	}
	/* the chunked copy may have taken bytes past the NUL */
	memset((char *)w + len, 0, KPT_HIST_STR_LEN - len);
	return true;
}
NOKPROBE_SYMBOL(kpt_hist_str);

/* A stacktrace key: as a record's stack, the probed address first. */
static noinline void kpt_hist_stack(struct kpt_probe *p, struct pt_regs *regs,
				    u64 *w)
{
	unsigned int n;

	w[0] = (unsigned long)kpt_probe_kprobe(p)->addr;
	n = 1 + kpt_save_stack(p, regs, w + 1, KPT_HIST_STACK_DEPTH - 1);
	memset(w + n, 0, (KPT_HIST_STACK_DEPTH - n) * 8);
}
NOKPROBE_SYMBOL(kpt_hist_stack);

/*
 * The bucket of a negative signed @v, .buckets=@n: the multiple of @n at
 * or below it (-6 in buckets of 10 is in -10..-1), S64_MIN where that is
 * below S64_MIN. -(v + 1) cannot overflow.
 */
static nokprobe_inline u64 kpt_hist_bucket_neg(u64 v, u32 n)
{
	u64 m = -((s64)v + 1), b;

	b = v - (n - 1 - do_div(m, n));
	return (s64)b > (s64)v ? (u64)S64_MIN : b;
}

/* A number as its key says: bucketed by .log2, .loglin or .buckets=N. */
static nokprobe_inline u64 kpt_hist_bucket(const struct kpt_hist_field *hf,
					   u64 v)
{
	unsigned int sh;
	u64 q;

	if (hf->mod == KPT_HM_LOG2)	/* as ftrace: ilog2(roundup_pow_of_two(v)) */
		return v <= 1 ? 0 : fls64(v - 1);
	switch (hf->mod) {
	case KPT_HM_LOGLIN:
		if (v < 1U << KPT_HIST_SUB_BITS)
			return v;
		sh = fls64(v) - 1 - KPT_HIST_SUB_BITS;
		return v >> sh << sh;
	case KPT_HM_BUCKETS:
		if (hf->is_signed && (s64)v < 0)
			return kpt_hist_bucket_neg(v, hf->buckets);
		q = v;
		return v - do_div(q, hf->buckets);
	default:
		return v;
	}
}

/* The key of a hit into @key. False if a string is too long for it. */
static nokprobe_inline bool kpt_hist_key(struct kpt_probe *p,
					 struct pt_regs *regs, const u64 *vals,
					 s64 retval, u64 lat, const char *istr,
					 u64 *key, bool one)
{
	const struct kpt_hkey *k = p->prog.key;
	const struct kpt_hist_field *hf;
	unsigned int i;
	u64 *w;

	/* the common case, one numeric key (lat_ns.log2): no loop */
	if (one) {
		hf = &k->hf;
		key[0] = kpt_hist_bucket(hf, kpt_field_value(hf->field, vals,
							     retval, lat));
		return true;
	}
	for (i = 0; i < p->prog.nkeys; i++, k++) {
		hf = &k->hf;
		w = &key[p->hist->key_off[i]];
		switch (k->kind) {
		case KPT_HK_STACK:
			kpt_hist_stack(p, regs, w);
			break;
		case KPT_HK_COMM:
			kpt_comm_words(w);
			break;
		case KPT_HK_STR:
			if (!kpt_hist_str(p, k, vals, istr, w))
				return false;
			break;
		default:
			*w = kpt_hist_bucket(hf, kpt_field_value(hf->field,
								 vals, retval,
								 lat));
		}
	}
	return true;
}

/*
 * One hit of a probe with an aggregation, on @t (kpt_hist_get()), its
 * fetchargs in t->vals, @pass: its condition held. The key, the values,
 * the entry.
 */
static nokprobe_inline void kpt_aggregate(struct kpt_probe *p,
					  struct kpt_hist_table *t, bool pass,
					  struct pt_regs *regs, s64 retval,
					  u64 lat, const char *istr, bool one)
{
	const struct kpt_prog *g = &p->prog;
	unsigned int i;

	if (!pass) {
		local64_inc(&t->filtered);
		return;
	}
	if (!kpt_hist_key(p, regs, t->vals, retval, lat, istr, t->key, one)) {
		local64_inc(&t->dropped[KPT_HD_KEY_TOO_LARGE]);
		return;
	}
	for (i = 0; i < g->nvals; i++)
		t->v[i] = kpt_field_value(g->val_field[i], t->vals, retval,
					  lat);
	kpt_hist_add(p->hist, t, one);
}

/*
 * With :events, a hit also means an event: recorded from the values the
 * aggregation used, or filtered as it was. A nested hit (no table) takes
 * the record's own path.
 */
static nokprobe_inline void kpt_hist_event_filtered(struct kpt_probe *p)
{
	this_cpu_inc(p->stats->hits);
	this_cpu_inc(p->stats->filtered);
}

/* kpt_fetch_nums() out of line: its locals cost the handlers a canary. */
static noinline void kpt_hist_fetch(const struct kpt_probe *p,
				    struct pt_regs *regs, u64 retval,
				    unsigned int at, u64 *vals)
{
	kpt_fetch_nums(p, regs, retval, at, vals);
}
NOKPROBE_SYMBOL(kpt_hist_fetch);

/*
 * An entry probe with an aggregation, and events if it asks for them.
 * @one: its key is one number (kpt_hist::one_number), a constant in the
 * handlers.
 */
static nokprobe_inline int kpt_kprobe_agg(struct kprobe *kp,
					  struct pt_regs *regs, bool one)
{
	struct kpt_probe *p = container_of(kp, struct kpt_probe, kp);
	bool events = p->prog.hist_events, pass;
	struct kpt_hist_table *t;

	this_cpu_inc(p->stats->calls);
	t = kpt_hist_get(p->hist);
	if (unlikely(!t)) {
		if (events)
			kpt_entry_slow(p, regs, kpt_probe_now(p), NULL);
		return 0;
	}
	if (p->prog.nargs)
		kpt_hist_fetch(p, regs, 0, KPT_AT_ENTRY, t->vals);
	pass = !p->prog.ncond || kpt_cond_pass(p, t->vals, 0, 0);
	kpt_aggregate(p, t, pass, regs, 0, 0, NULL, one);
	if (events && pass)
		kpt_entry_slow(p, regs, kpt_probe_now(p), t->vals);
	else if (events)
		kpt_hist_event_filtered(p);
	kpt_hist_put(t);
	return 0;
}

/* A return probe's return with an aggregation (its entry: keep_*). */
static nokprobe_inline int kpt_kretprobe_agg(struct kretprobe_instance *ri,
					     struct pt_regs *regs, bool one)
{
	struct kpt_ri_data *d = (struct kpt_ri_data *)ri->data;
	struct kpt_probe *p;
	s64 retval = (long)regs_return_value(regs);
	struct kpt_hist_table *t;
	unsigned int nargs;
	bool events, pass;
	u64 ts, lat;

	if (unlikely(!kpt_ri_probe(ri, &p)))
		return 0;
	ts = kpt_probe_now(p);
	lat = kpt_clock_since(d->entry_ts, ts);
	events = p->prog.hist_events;
	nargs = p->prog.nargs;
	t = kpt_hist_get(p->hist);
	if (unlikely(!t)) {
		if (events)
			kpt_return_slow(p, regs, ri->data, ts, NULL);
		return 0;
	}
	if (nargs) {
		memcpy(t->vals, d->vals, nargs * sizeof(u64));
		kpt_hist_fetch(p, regs, retval, KPT_AT_RETURN, t->vals);
	}
	pass = !p->prog.ncond || kpt_cond_pass(p, t->vals, retval, lat);
	kpt_aggregate(p, t, pass, regs, retval, lat,
		      (const char *)&d->vals[nargs], one);
	if (events && pass)
		kpt_return_slow(p, regs, ri->data, ts, t->vals);
	else if (events)
		kpt_hist_event_filtered(p);
	kpt_hist_put(t);
	return 0;
}

static int kpt_kprobe_hist(struct kprobe *kp, struct pt_regs *regs)
{
	return kpt_kprobe_agg(kp, regs, false);
}
NOKPROBE_SYMBOL(kpt_kprobe_hist);

static int kpt_kprobe_hist1(struct kprobe *kp, struct pt_regs *regs)
{
	return kpt_kprobe_agg(kp, regs, true);
}
NOKPROBE_SYMBOL(kpt_kprobe_hist1);

static int kpt_kretprobe_ret_hist(struct kretprobe_instance *ri,
				  struct pt_regs *regs)
{
	return kpt_kretprobe_agg(ri, regs, false);
}
NOKPROBE_SYMBOL(kpt_kretprobe_ret_hist);

static int kpt_kretprobe_ret_hist1(struct kretprobe_instance *ri,
				   struct pt_regs *regs)
{
	return kpt_kretprobe_agg(ri, regs, true);
}
NOKPROBE_SYMBOL(kpt_kretprobe_ret_hist1);

/*
 * A latency histogram alone (`r: ... hist:keys=lat_ns.log2`: no
 * fetcharg, condition, value or :events): the bucket of the latency into
 * the table. Everything kpt_kretprobe_agg() would do, without its tests;
 * the clock's rare case leaves by a tail call, so nothing is saved.
 */
static nokprobe_inline int kpt_ret_lat_add(struct kpt_probe *p,
					   struct kpt_ri_data *d, u64 ts)
{
	const struct kpt_hist_field *hf = &p->prog.key[0].hf;
	struct kpt_hist_table *t = kpt_hist_get(p->hist);

	if (unlikely(!t))
		return 0;
	t->key[0] = kpt_hist_bucket(hf, kpt_clock_since(d->entry_ts, ts));
	kpt_hist_add(p->hist, t, true);
	kpt_hist_put(t);
	return 0;
}

static noinline int kpt_ret_lat_clock(struct kpt_probe *p,
				      struct kpt_ri_data *d)
{
	return kpt_ret_lat_add(p, d, kpt_probe_now_slow(p));
}
NOKPROBE_SYMBOL(kpt_ret_lat_clock);

static int kpt_kretprobe_ret_lat(struct kretprobe_instance *ri,
				 struct pt_regs *regs)
{
	struct kpt_ri_data *d = (struct kpt_ri_data *)ri->data;
	struct kpt_probe *p;
	u64 ts;

	if (unlikely(!kpt_ri_probe(ri, &p)))
		return 0;
	if (unlikely(!kpt_probe_now_try(p, &ts)))
		return kpt_ret_lat_clock(p, d);
	return kpt_ret_lat_add(p, d, ts);
}
NOKPROBE_SYMBOL(kpt_kretprobe_ret_lat);

/* Is @p's aggregation a latency histogram alone (kpt_kretprobe_ret_lat)? */
static bool kpt_probe_lat_only(const struct kpt_probe *p)
{
	const struct kpt_prog *g = &p->prog;

	return g->is_ret && !g->nargs && !g->ncond && !g->hist_events &&
	       g->nkeys == 1 && !g->nvals &&
	       g->key[0].hf.field == KPT_CF_LAT_NS &&
	       kpt_hist_one_number(p->hist);
}

/*
 * The handlers: a fast and a general one per slot, each with its path
 * compiled in; kpt_kprobe_set_handlers() and kpt_kretprobe_set_handlers()
 * pick them. What else differs
 * between programs is a test of struct kpt_prog (a b probe's entry
 * record, a return record's arguments), not a handler of its own: each
 * such handler saved less than a tenth of a hit. One timestamp per hit.
 * The fast ones (registers only) call
 * nothing: their rare cases, a clock anchor to move (kpt_clock_try()) and
 * no room at once in the ring (kpt_ring_try()), leave by a tail call to
 * an out-of-line path, so that they save (almost) no registers: their
 * only call left is the wake-up of a reader that waits (kpt_ring_kick()).
 */
static noinline int kpt_entry_fast_clock(struct kpt_probe *p,
					 struct pt_regs *regs, bool ret)
{
	return kpt_entry_fast(p, regs, kpt_probe_now_slow(p), ret);
}
NOKPROBE_SYMBOL(kpt_entry_fast_clock);

/* A kprobe's hit: @fast, prog.entry_fast (a constant in the handlers) */
static nokprobe_inline int kpt_kprobe_hit(struct kprobe *kp,
					  struct pt_regs *regs, bool fast)
{
	struct kpt_probe *p = container_of(kp, struct kpt_probe, kp);
	u64 ts;

	if (!fast) {
		kpt_entry_slow(p, regs, kpt_probe_now(p), NULL);
		return 0;
	}
	if (unlikely(!kpt_probe_now_try(p, &ts)))
		return kpt_entry_fast_clock(p, regs, false);
	return kpt_entry_fast(p, regs, ts, false);
}

/*
 * A return probe's entry at @ts: a b probe records an entry event
 * (prog.both), the others keep the entry's values in the instance for
 * the return's. @fast: the fast path (a b probe's prog.entry_fast, the
 * others' prog.regs_only), a constant in the handlers.
 */
static nokprobe_inline int kpt_kretprobe_entry_at(struct kpt_probe *p,
						  struct pt_regs *regs,
						  struct kpt_ri_data *d, u64 ts,
						  bool fast)
{
	d->entry_ts = ts;
	if (p->prog.both && fast)
		return kpt_entry_fast(p, regs, ts, true);
	if (p->prog.both) {
		kpt_entry_slow(p, regs, ts, NULL);
		return 0;
	}
	this_cpu_inc(p->stats->calls);
	if (fast)
		kpt_copy_regs(p, regs, d->vals);
	else
		kpt_ret_entry_slow(p, regs, d);
	return 0;
}

/* kpt_kretprobe_entry()'s when its clock's anchor is due: out of line */
static noinline int kpt_kretprobe_entry_clock(struct kpt_probe *p,
					      struct pt_regs *regs,
					      struct kpt_ri_data *d)
{
	return kpt_kretprobe_entry_at(p, regs, d, kpt_probe_now_slow(p), true);
}
NOKPROBE_SYMBOL(kpt_kretprobe_entry_clock);

static nokprobe_inline int kpt_kretprobe_entry(struct kretprobe_instance *ri,
					       struct pt_regs *regs, bool fast)
{
	struct kpt_ri_data *d = (struct kpt_ri_data *)ri->data;
	struct kpt_probe *p;
	u64 ts;

	if (unlikely(!kpt_ri_probe(ri, &p)))
		return 1;	/* being unregistered: no instance */
	if (!fast)
		ts = kpt_probe_now(p);
	else if (unlikely(!kpt_probe_now_try(p, &ts)))
		return kpt_kretprobe_entry_clock(p, regs, d);
	return kpt_kretprobe_entry_at(p, regs, d, ts, fast);
}

static noinline int kpt_return_fast_clock(struct kpt_probe *p,
					  struct pt_regs *regs,
					  struct kpt_ri_data *d)
{
	return kpt_return_fast(p, regs, d, kpt_probe_now_slow(p));
}
NOKPROBE_SYMBOL(kpt_return_fast_clock);

/* A return probe's return: @fast, prog.regs_only (a constant) */
static nokprobe_inline int kpt_kretprobe_return(struct kretprobe_instance *ri,
						struct pt_regs *regs,
						bool fast)
{
	struct kpt_ri_data *d = (struct kpt_ri_data *)ri->data;
	struct kpt_probe *p;
	u64 ts;

	if (unlikely(!kpt_ri_probe(ri, &p)))
		return 0;
	if (!fast) {
		kpt_return_slow(p, regs, d, kpt_probe_now(p), NULL);
		return 0;
	}
	if (unlikely(!kpt_probe_now_try(p, &ts)))
		return kpt_return_fast_clock(p, regs, d);
	return kpt_return_fast(p, regs, d, ts);
}

/* Entry probes */
static int kpt_kprobe_fast(struct kprobe *kp, struct pt_regs *regs)
{
	return kpt_kprobe_hit(kp, regs, true);
}
NOKPROBE_SYMBOL(kpt_kprobe_fast);

static int kpt_kprobe_slow(struct kprobe *kp, struct pt_regs *regs)
{
	return kpt_kprobe_hit(kp, regs, false);
}
NOKPROBE_SYMBOL(kpt_kprobe_slow);

/* Return probes' entries */
static int kpt_kretprobe_entry_fast(struct kretprobe_instance *ri,
				    struct pt_regs *regs)
{
	return kpt_kretprobe_entry(ri, regs, true);
}
NOKPROBE_SYMBOL(kpt_kretprobe_entry_fast);

static int kpt_kretprobe_entry_slow(struct kretprobe_instance *ri,
				    struct pt_regs *regs)
{
	return kpt_kretprobe_entry(ri, regs, false);
}
NOKPROBE_SYMBOL(kpt_kretprobe_entry_slow);

/* Return probes' returns */
static int kpt_kretprobe_ret_fast(struct kretprobe_instance *ri,
				  struct pt_regs *regs)
{
	return kpt_kretprobe_return(ri, regs, true);
}
NOKPROBE_SYMBOL(kpt_kretprobe_ret_fast);

static int kpt_kretprobe_ret_slow(struct kretprobe_instance *ri,
				  struct pt_regs *regs)
{
	return kpt_kretprobe_return(ri, regs, false);
}
NOKPROBE_SYMBOL(kpt_kretprobe_ret_slow);

/*
 * The handlers for @p, before it is registered: per slot (kprobe
 * pre-handler, kretprobe entry, kretprobe return) a fast one, for a
 * program of registers only (prog.regs_only; an entry record without a
 * stack, prog.entry_fast), and the general one; aggregations have their
 * own (kpt_kprobe_hist*, kpt_kretprobe_ret_hist*, and the latency
 * histogram alone, kpt_kretprobe_ret_lat), their entries the general
 * kretprobe ones. The kprobe kind's (p), then the kretprobe kind's (r,
 * b): kprobe.c's arm() calls them.
 */
void kpt_kprobe_set_handlers(struct kpt_probe *p)
{
	bool one = p->hist && kpt_hist_one_number(p->hist);

	if (p->hist)
		p->kp.pre_handler = one ? kpt_kprobe_hist1 : kpt_kprobe_hist;
	else
		p->kp.pre_handler = p->prog.entry_fast ? kpt_kprobe_fast :
							 kpt_kprobe_slow;
}

void kpt_kretprobe_set_handlers(struct kpt_probe *p)
{
	const struct kpt_prog *g = &p->prog;
	bool one = p->hist && kpt_hist_one_number(p->hist);
	bool entry_fast = g->both ? g->entry_fast : g->regs_only;

	p->rp.entry_handler = entry_fast ? kpt_kretprobe_entry_fast :
					   kpt_kretprobe_entry_slow;
	if (!p->hist)
		p->rp.handler = g->regs_only ? kpt_kretprobe_ret_fast :
					       kpt_kretprobe_ret_slow;
	else if (kpt_probe_lat_only(p))
		p->rp.handler = kpt_kretprobe_ret_lat;
	else
		p->rp.handler = one ? kpt_kretprobe_ret_hist1 :
				      kpt_kretprobe_ret_hist;
}
