// SPDX-License-Identifier: GPL-2.0
/*
 * kptrace: registering kprobes and kretprobes, and the probe handlers.
 *
 * The handlers run in whatever context the probed function runs in, NMI
 * included, with preemption disabled. They never sleep, allocate, take a
 * lock or wake anybody: they reserve room in this CPU's ring, fill the
 * record in place and commit it (see ring.c). Everything they call is
 * nokprobe_inline or NOKPROBE_SYMBOL, so kptrace cannot probe itself.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/timekeeping.h>
#include <asm/unwind.h>
#include "kptrace.h"
#include "compat.h"

#define KPT_NAME_LEN	(KSYM_NAME_LEN + 24)

struct kpt_probe {
	struct kprobe		kp;	/* entry only (retprobe=0) */
	struct kretprobe	rp;	/* entry and return (retprobe=1) */
	bool			is_ret;
	bool			registered;
	unsigned int		id;
	u64 __percpu		*hits;
	char			sym[KSYM_NAME_LEN];	/* symbol_name */
	char			spec[KPT_NAME_LEN];	/* as the user gave it */
	char			name[KPT_NAME_LEN];	/* in every output */
};

/* What the kretprobe keeps between entry and return. */
struct kpt_ri_data {
	u64 entry_ts;
};

static struct kpt_probe *kpt_probes;
static unsigned int kpt_nr_probes;

static nokprobe_inline struct kprobe *kpt_kprobe(struct kpt_probe *p)
{
	return p->is_ret ? &p->rp.kp : &p->kp;
}

static nokprobe_inline void kpt_fill_header(struct kpt_event *ev, u8 type,
					    struct kpt_probe *p, u64 ts)
{
	struct task_struct *tsk = current;
	u8 flags = 0;

	if (in_nmi())
		flags |= KPT_F_NMI;
	else if (hardirq_count())
		flags |= KPT_F_HARDIRQ;
	else if (in_serving_softirq())
		flags |= KPT_F_SOFTIRQ;

	ev->type = type;
	ev->flags = flags;
	ev->ts_ns = ts;
	ev->cpu = smp_processor_id();
	ev->probe_id = p->id;
	ev->pid = tsk->tgid;
	ev->tid = tsk->pid;
	memcpy(ev->comm, tsk->comm, KPT_COMM_LEN - 1);
	ev->comm[KPT_COMM_LEN - 1] = '\0';
	ev->__pad = 0;
}

/*
 * The callers of the probed function, from the probe's registers outwards.
 * This is arch_stack_walk() with regs, which stack_trace_save_regs() wraps
 * but does not export; the x86 unwinder it uses is exported.
 */
static nokprobe_inline unsigned int kpt_save_stack(struct pt_regs *regs,
						   u64 *out, unsigned int max)
{
	struct unwind_state state;
	unsigned long addr;
	unsigned int n = 0;

	for (unwind_start(&state, current, regs, NULL);
	     n < max && !unwind_done(&state); unwind_next_frame(&state)) {
		addr = unwind_get_return_address(&state);
		if (!addr)
			break;
		out[n++] = addr;
	}
	return n;
}

static nokprobe_inline void kpt_record_entry(struct kpt_probe *p,
					     struct pt_regs *regs, u64 ts)
{
	unsigned int nargs = kpt_cfg.args, nstack = kpt_cfg.stack;
	struct kpt_event *ev;
	struct kpt_ring *r;
	unsigned int i;

	this_cpu_inc(*p->hits);
	/* One spare stack slot tells whether the stack was truncated. */
	ev = kpt_ring_reserve(&r, KPT_ENTRY_SIZE(nargs, nstack + !!nstack));
	if (!ev)
		return;
	kpt_fill_header(ev, KPT_EV_ENTRY, p, ts);
	for (i = 0; i < nargs; i++)
		ev->data[i] = regs_get_kernel_argument(regs, i);
	if (nstack) {
		/* regs->ip is the probe address + 1 here, as after an int3 */
		ev->data[nargs] = (unsigned long)kpt_kprobe(p)->addr;
		i = 1 + kpt_save_stack(regs, &ev->data[nargs + 1], nstack);
		if (i > nstack) {
			ev->flags |= KPT_F_STACK_TRUNC;
			i = nstack;
		}
		nstack = i;
	}
	ev->nr_args = nargs;
	ev->nr_stack = nstack;
	kpt_ring_commit(r, ev, KPT_ENTRY_SIZE(nargs, nstack));
}

static int kpt_kprobe_handler(struct kprobe *kp, struct pt_regs *regs)
{
	struct kpt_probe *p = container_of(kp, struct kpt_probe, kp);

	kpt_record_entry(p, regs, ktime_get_mono_fast_ns());
	return 0;
}
NOKPROBE_SYMBOL(kpt_kprobe_handler);

static int kpt_kretprobe_entry(struct kretprobe_instance *ri,
			       struct pt_regs *regs)
{
	struct kretprobe *rp = kpt_get_kretprobe(ri);
	struct kpt_ri_data *d = (struct kpt_ri_data *)ri->data;
	u64 ts = ktime_get_mono_fast_ns();

	d->entry_ts = ts;
	if (rp)
		kpt_record_entry(container_of(rp, struct kpt_probe, rp),
				 regs, ts);
	return 0;
}
NOKPROBE_SYMBOL(kpt_kretprobe_entry);

static int kpt_kretprobe_return(struct kretprobe_instance *ri,
				struct pt_regs *regs)
{
	struct kretprobe *rp = kpt_get_kretprobe(ri);
	struct kpt_ri_data *d = (struct kpt_ri_data *)ri->data;
	u64 ts = ktime_get_mono_fast_ns();
	struct kpt_event *ev;
	struct kpt_ring *r;
	struct kpt_ret *ret;
	struct kpt_probe *p;

	if (unlikely(!rp))
		return 0;
	p = container_of(rp, struct kpt_probe, rp);
	ev = kpt_ring_reserve(&r, KPT_RET_SIZE);
	if (!ev)
		return 0;
	kpt_fill_header(ev, KPT_EV_RETURN, p, ts);
	ev->nr_args = 0;
	ev->nr_stack = 0;
	ret = (struct kpt_ret *)ev->data;
	ret->ret = (long)regs_return_value(regs);
	ret->lat_ns = ts - d->entry_ts;
	ret->entry_ts_ns = d->entry_ts;
	kpt_ring_commit(r, ev, KPT_RET_SIZE);
	return 0;
}
NOKPROBE_SYMBOL(kpt_kretprobe_return);

static const char *kpt_reason(int err)
{
	switch (err) {
	case -ENOENT:
		return "no such symbol";
	case -EILSEQ:
		return "offset is not on an instruction boundary";
	case -EINVAL:
		return "cannot be probed (blacklisted, notrace, or not kernel text)";
	case -EBUSY:
		return "already probed by another tool in a way kprobes cannot share";
	case -ENOMEM:
		return "out of memory";
	default:
		return "refused by the kprobe core";
	}
}

/* "sym" or "sym+off", off in hex (0x...) or decimal. */
static int kpt_parse_sym(struct kpt_probe *p, const char *item)
{
	char *plus;
	unsigned int off = 0;
	int ret;

	if (strscpy(p->sym, item, sizeof(p->sym)) < 0) {
		pr_err("name=%.32s...: symbol name too long (-EINVAL)\n", item);
		return -EINVAL;
	}
	plus = strchr(p->sym, '+');
	if (plus) {
		ret = kstrtouint(plus + 1, 0, &off);
		if (ret || plus == p->sym) {
			pr_err("name=%s: expected SYMBOL or SYMBOL+OFFSET (-EINVAL)\n",
			       item);
			return -EINVAL;
		}
		*plus = '\0';
	}
	kpt_kprobe(p)->symbol_name = p->sym;
	kpt_kprobe(p)->offset = off;
	return 0;
}

static int kpt_parse_addr(struct kpt_probe *p, const char *item)
{
	unsigned long addr;

	if (kstrtoul(item, 16, &addr) || !addr) {
		pr_err("address=%s: not a hexadecimal address (-EINVAL)\n",
		       item);
		return -EINVAL;
	}
	kpt_kprobe(p)->addr = (kprobe_opcode_t *)addr;
	return 0;
}

static int kpt_probe_register(struct kpt_probe *p, const char *param,
			      const char *item, int maxactive)
{
	struct kprobe *kp = kpt_kprobe(p);
	char *slash;
	int ret;

	if (p->is_ret) {
		p->rp.entry_handler = kpt_kretprobe_entry;
		p->rp.handler = kpt_kretprobe_return;
		p->rp.data_size = sizeof(struct kpt_ri_data);
		p->rp.maxactive = maxactive;
		ret = register_kretprobe(&p->rp);
		if (ret == -EINVAL && kp->offset) {
			pr_err("%s=%s: retprobe=1 needs a function entry, not an offset (-EINVAL)\n",
			       param, item);
			return ret;
		}
	} else {
		p->kp.pre_handler = kpt_kprobe_handler;
		ret = register_kprobe(&p->kp);
	}
	/* An address with no symbol: the kprobe core says -ENOENT. */
	if (ret == -ENOENT && !kp->symbol_name) {
		pr_err("%s=%s: not a kernel text address (-EINVAL)\n",
		       param, item);
		return -EINVAL;
	}
	if (ret) {
		pr_err("%s=%s: %s (%d)\n", param, item, kpt_reason(ret), ret);
		return ret;
	}
	p->registered = true;

	/* Name events by the item as given, or "sym+0xoff" for an address. */
	if (!strcmp(param, "name")) {
		strscpy(p->name, item, sizeof(p->name));
	} else {
		snprintf(p->name, sizeof(p->name), "%pS", kp->addr);
		slash = strchr(p->name, '/');
		if (slash)
			*slash = '\0';
	}
	strscpy(p->spec, item, sizeof(p->spec));
	return 0;
}

static int kpt_count_items(const char *list)
{
	int n = 0;

	if (!list || !*list)
		return 0;
	for (n = 1; *list; list++)
		n += *list == ',';
	return n;
}

static int kpt_add_list(const char *param, const char *list, bool retprobe,
			int maxactive)
{
	char *copy, *cur, *item;
	struct kpt_probe *p;
	int ret = 0;

	if (!list || !*list)
		return 0;
	copy = kstrdup(list, GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	cur = copy;
	while ((item = strsep(&cur, ",")) != NULL) {
		item = strim(item);
		if (!*item) {
			pr_err("%s=%s: empty item in the list (-EINVAL)\n",
			       param, list);
			ret = -EINVAL;
			break;
		}
		p = &kpt_probes[kpt_nr_probes];
		p->id = kpt_nr_probes;
		p->is_ret = retprobe;
		p->hits = alloc_percpu(u64);
		if (!p->hits) {
			ret = -ENOMEM;
			break;
		}
		kpt_nr_probes++;
		ret = !strcmp(param, "name") ? kpt_parse_sym(p, item) :
					       kpt_parse_addr(p, item);
		if (!ret)
			ret = kpt_probe_register(p, param, item, maxactive);
		if (ret)
			break;
	}
	kfree(copy);
	return ret;
}

/**
 * kpt_probes_register() - register the probes given as module parameters
 * @names: comma-separated "sym" or "sym+off" items, or NULL
 * @addrs: comma-separated hexadecimal addresses, or NULL
 * @retprobe: use a kretprobe at every point
 * @maxactive: kretprobe instances in flight
 *
 * On failure, logs one line naming the refused item and unregisters what
 * was registered.
 */
int kpt_probes_register(const char *names, const char *addrs, bool retprobe,
			int maxactive)
{
	int n = kpt_count_items(names) + kpt_count_items(addrs);
	int ret;

	if (n > KPT_MAX_PROBES) {
		pr_err("name=/address=: %d probe points, at most %d (-E2BIG)\n",
		       n, KPT_MAX_PROBES);
		return -E2BIG;
	}
	if (!n)
		return 0;
	kpt_probes = kcalloc(n, sizeof(*kpt_probes), GFP_KERNEL);
	if (!kpt_probes)
		return -ENOMEM;
	ret = kpt_add_list("name", names, retprobe, maxactive);
	if (!ret)
		ret = kpt_add_list("address", addrs, retprobe, maxactive);
	if (ret)
		kpt_probes_unregister();
	return ret;
}

void kpt_probes_unregister(void)
{
	struct kpt_probe *p;
	unsigned int i;

	for (i = 0; i < kpt_nr_probes; i++) {
		p = &kpt_probes[i];
		if (!p->registered)
			continue;
		if (p->is_ret)
			unregister_kretprobe(&p->rp);
		else
			unregister_kprobe(&p->kp);
		p->registered = false;
	}
	for (i = 0; i < kpt_nr_probes; i++)
		free_percpu(kpt_probes[i].hits);
	kfree(kpt_probes);
	kpt_probes = NULL;
	kpt_nr_probes = 0;
}

unsigned int kpt_probes_count(void)
{
	return kpt_nr_probes;
}

const char *kpt_probe_name(unsigned int id)
{
	return id < kpt_nr_probes ? kpt_probes[id].name : "?";
}

static u64 kpt_probe_missed(struct kpt_probe *p)
{
	u64 missed = kpt_kprobe(p)->nmissed;

	if (p->is_ret)
		missed += p->rp.nmissed;
	return missed;
}

u64 kpt_probes_missed(void)
{
	u64 missed = 0;
	unsigned int i;

	for (i = 0; i < kpt_nr_probes; i++)
		missed += kpt_probe_missed(&kpt_probes[i]);
	return missed;
}

/*
 * "sym+0xoff/0xsize", or "mod:sym+0xoff/0xsize" for a module symbol (the
 * MOD:SYM form of ftrace's kprobe_events): one field, no raw address.
 * @buf holds 2 * KSYM_SYMBOL_LEN bytes.
 */
static const char *kpt_probe_where(struct kprobe *kp, char *buf)
{
	char *out = buf + KSYM_SYMBOL_LEN;
	char *mod, *end;

	sprint_symbol(buf, (unsigned long)kp->addr);
	mod = strstr(buf, " [");
	if (!mod)
		return buf;
	*mod = '\0';
	mod += 2;
	end = strchr(mod, ']');
	if (end)
		*end = '\0';
	snprintf(out, KSYM_SYMBOL_LEN, "%s:%s", mod, buf);
	return out;
}

/* One line per probe, see the README ("probes"). */
void kpt_probes_show(struct seq_file *m)
{
	struct kpt_probe *p;
	struct kprobe *kp;
	unsigned int i, cpu;
	const char *mode;
	char *buf;
	u64 hits;

	buf = kmalloc(2 * KSYM_SYMBOL_LEN, GFP_KERNEL);
	if (!buf)
		return;
	for (i = 0; i < kpt_nr_probes; i++) {
		p = &kpt_probes[i];
		kp = kpt_kprobe(p);
		hits = 0;
		for_each_possible_cpu(cpu)
			hits += *per_cpu_ptr(p->hits, cpu);
		if (kprobe_disabled(kp))
			mode = "disabled";
		else if (kprobe_ftrace(kp))
			mode = "ftrace";
		else if (kp->flags & KPROBE_FLAG_OPTIMIZED)
			mode = "optimized";
		else
			mode = "int3";
		seq_printf(m, "%u %s %s %s %s hits=%llu missed=%llu\n",
			   p->id, p->spec, kpt_probe_where(kp, buf),
			   p->is_ret ? "kretprobe" : "kprobe", mode, hits,
			   kpt_probe_missed(p));
	}
	kfree(buf);
}
