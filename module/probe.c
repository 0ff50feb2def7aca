// SPDX-License-Identifier: GPL-2.0
/*
 * kptrace: probes. Creating them (from module parameters, or lines written
 * to /dev/kptrace at run time), arming them with the kprobe core, deleting
 * them, and re-arming MOD:SYM probes whenever their module loads. What
 * the probes files show (the listing, probe_stats, error_log) is
 * probe_show.c's.
 *
 * Every probe gets an id (ids.c: handed out in turn, not reused before
 * they wrap; a probe never armed gives its id back). All changes happen
 * under kpt_probes_mutex, in process context, or on a private list once
 * off kpt_probe_list (a session's close); the handlers only read a probe.
 *
 * Every probe belongs to a session (session.c), whose rings its records
 * go to; its name is unique in its session. A kind of probe (kprobe,
 * kretprobe, syscalls) is an ops table (kprobe.c, syscall.c), its
 * program is compiled by prog.c, and what a record's probe id names,
 * live or deleted, is ids.c's.
 *
 * A probe's lifetime. Deleting a probe disarms it at once: once
 * unregister_k*probe() returns, none of its handlers runs or will run
 * (the kprobe core waits for an RCU grace period, and on every kernel it
 * frees a kretprobe's instances itself: those still in flight at
 * unregister no longer lead to the kretprobe, v5.10's ri->rp = NULL,
 * v5.11+ get_kretprobe() or rethook's NULL data, so struct kretprobe may
 * go). Its handlers' counts are then final: those that a session totals
 * over its probes (missed, filtered) are added to its deleted probes'
 * (kpt_session::gone_*), and the probe leaves kpt_probe_list (what the
 * listings, the stats and the module notifier walk). Its own
 * lost.overwritten may still move, from a ring that found it before its
 * tombstone took its place (kpt_probe_overwritten(), ids.c), and is not
 * folded into any total: a session's lost counts come from its rings,
 * which count every record. Its aggregation tables are freed at once: no
 * record refers to them. What its records still need is kept in a
 * tombstone (ids.c), and the probe itself (struct kprobe or kretprobe,
 * per-CPU counts, spec, label, symname) is freed after an RCU grace
 * period: a lookup by id from a handler or a text reader may have found
 * it before the tombstone took its place. A session's close disarms all
 * its probes at once (kpt_probes_disarm_all()), frees them after one
 * grace period and makes no tombstones: its rings go with it, and its
 * totals with them.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/build_bug.h>
#include <linux/module.h>
#include <linux/kprobes.h>
#include <linux/kallsyms.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/percpu.h>
#include <linux/xarray.h>
#include <linux/mutex.h>
#include <linux/namei.h>
#include <linux/path.h>
#include <linux/ratelimit.h>
#include <linux/rcupdate.h>
#include <linux/security.h>
#include <linux/tracepoint.h>
#include "config.h"
#include "probe.h"
#include "ring.h"
#include "ksyms.h"
#include "compat.h"
#include "hist.h"
#include "session.h"

LIST_HEAD(kpt_probe_list);		/* armed or pending, every session's */
/* the lists, ids, every change; the sessions' lists and books too */
DEFINE_MUTEX(kpt_probes_mutex);
static unsigned int kpt_nr_live;	/* armed or pending */
/* kpt_probe.mem of the live probes, and the sessions' rings */
static u64 kpt_mem_used;

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
	case -EPERM:
		return "kernel lockdown forbids kprobes";
	default:
		return "refused by the kprobe core";
	}
}

/* kallsyms knows @addr (sprint_symbol() prints bare hex when it does not). */
static bool kpt_addr_has_symbol(unsigned long addr)
{
	char sym[KSYM_SYMBOL_LEN];

	sprint_symbol(sym, addr);
	return strncmp(sym, "0x", 2) != 0;
}

/*
 * Register @p with the kprobe core (its kind's arm()): every path that
 * arms a probe comes here (a write, the ioctl, the module parameters, a
 * MOD:SYM probe whose module loads), and the kernel lockdown is checked
 * at each, as ftrace does, since it can be raised after kptrace was
 * loaded.
 */
static int kpt_probe_arm(struct kpt_probe *p)
{
	int ret;

	ret = security_locked_down(LOCKDOWN_KPROBES);
	if (ret) {
		p->err = ret;
		return ret;
	}
	/* arm() zeroes the kprobe core's counts: keep them */
	p->missed_before += kpt_probe_kprobe(p)->nmissed;
	if (p->prog.is_ret)
		p->maxactive_missed_before += p->rp.nmissed;
	ret = p->ops->arm(p);
	/*
	 * An address with no symbol: the kprobe core says -ENOENT (v5.11+) or
	 * -EINVAL (v5.10); both mean "not kernel text" here.
	 */
	if ((ret == -ENOENT || ret == -EINVAL) && !p->symname &&
	    !kpt_addr_has_symbol(p->spec->addr))
		ret = -EFAULT;
	p->err = ret;
	if (!ret)
		p->state = KPT_PROBE_ARMED;
	return ret;
}

static void kpt_probe_disarm(struct kpt_probe *p)
{
	if (p->state != KPT_PROBE_ARMED)
		return;
	p->ops->disarm(p, NULL);
	p->state = KPT_PROBE_PENDING;
}

/*
 * Disarm the probes on @head, off every list (no one else finds them),
 * without kpt_probes_mutex: with one wait for their handlers per kind of
 * registration (struct kpt_disarm_batch), or, without memory for a
 * batch, one each.
 */
static void kpt_probes_disarm_all(struct list_head *head)
{
	struct kpt_disarm_batch batch = { };
	struct kpt_probe *p;
	unsigned int n = 0;

	list_for_each_entry(p, head, list)
		n += p->state == KPT_PROBE_ARMED;
	if (!n)
		return;
	batch.kps = kcalloc(n, sizeof(*batch.kps), GFP_KERNEL);
	batch.rps = kcalloc(n, sizeof(*batch.rps), GFP_KERNEL);
	list_for_each_entry(p, head, list) {
		if (p->state != KPT_PROBE_ARMED)
			continue;
		p->ops->disarm(p, batch.kps && batch.rps ? &batch : NULL);
		p->state = KPT_PROBE_PENDING;
	}
	if (batch.nkps)
		unregister_kprobes(batch.kps, batch.nkps);
	if (batch.nrps)
		unregister_kretprobes(batch.rps, batch.nrps);
	if (batch.tracepoints)
		tracepoint_synchronize_unregister();
	kfree(batch.kps);
	kfree(batch.rps);
}

static void kpt_probe_free(struct kpt_probe *p)
{
	if (!p)
		return;
	kpt_hist_free(p->hist);
	if (p->ops->free)
		p->ops->free(p);
	free_percpu(p->stats);
	kfree(p->spec);
	kfree(p->label);
	kfree(p->symname);
	kfree(p);
}

static void kpt_probe_free_rcu(struct rcu_head *rcu)
{
	kpt_probe_free(container_of(rcu, struct kpt_probe, rcu));
}

/* @p's counts, summed over the CPUs. */
void kpt_probe_sum(struct kpt_probe *p, struct kpt_probe_stats *sum)
{
	struct kpt_probe_stats *st;
	unsigned int cpu, i;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		st = per_cpu_ptr(p->stats, cpu);
		sum->calls += st->calls;
		sum->hits += st->hits;
		sum->filtered += st->filtered;
		for (i = 0; i < KPT_LOST_NR; i++)
			sum->lost[i] += st->lost[i];
		sum->num_fault += st->num_fault;
		sum->str_fault += st->str_fault;
		sum->str_trunc += st->str_trunc;
		sum->stack_trunc += st->stack_trunc;
		sum->unselected += st->unselected;
		sum->sum_full += st->sum_full;
	}
	kpt_probe_stats_fold(sum);
}

/*
 * What @p will allocate that grows with its spec: its aggregation's
 * tables, and what its kind says (return instances, the kprobe core's
 * with the data kept per call; an s probe's summary). Counted against
 * mem_max_mb over all live probes.
 */
static u64 kpt_probe_kind_mem(const struct kpt_probe *p)
{
	return p->ops->mem ? p->ops->mem(p) : 0;
}

static u64 kpt_probe_mem(const struct kpt_probe *p)
{
	return (p->spec->hist.nkeys ? kpt_hist_bytes(p->spec) : 0) +
	       kpt_probe_kind_mem(p);
}

static const char kpt_too_big[] =
	"its records would not fit the ring (bufsize_kb or the session's, strsize, stack)";

/* The kind of probe @spec makes */
static const struct kpt_probe_ops *kpt_probe_ops_of(const struct kpt_spec *spec)
{
	switch (spec->kind) {
	case KPT_SPEC_ENTRY:
		return &kpt_kprobe_ops;
	case KPT_SPEC_SYSCALLS:
		return &kpt_sys_ops;
	default:
		return &kpt_kretprobe_ops;
	}
}

/*
 * A probe for a parsed spec, sized and checked but not armed. @label is
 * the name its events carry. On error, returns an ERR_PTR and sets *why.
 */
static struct kpt_probe *kpt_probe_new(struct kpt_session *sess,
				       struct kpt_spec *spec,
				       const char *label, const char **why)
{
	struct kpt_probe *p;
	long err = -EINVAL;
	unsigned int cpu;
	u64 taken;

	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return ERR_PTR(-ENOMEM);
	p->sess = sess;
	p->spec = spec;
	p->ops = kpt_probe_ops_of(spec);
	kpt_prog_compile(spec, p->ops, &p->prog);
	p->prog.clock_local = sess->clock == KPT_CLOCK_LOCAL;
	p->prog.clock = kpt_clock_anchors(p->prog.clock_local);
	/* a hist without size= fits what its return instances leave */
	if (spec->hist.nkeys && !spec->hist.size_given) {
		taken = min(kpt_mem_used + kpt_probe_kind_mem(p),
			    kpt_cfg.mem_max);
		spec->hist.size = kpt_hist_fit_size(spec,
						    kpt_cfg.mem_max - taken);
	}
	if (max(p->prog.entry_size, p->prog.ret_size) >
	    min_t(unsigned long, KPT_RECORD_MAX, sess->ring_bytes / 2)) {
		*why = kpt_too_big;
		goto err_free;
	}
	err = p->ops->check ? p->ops->check(p, why) : 0;
	if (!err && spec->hist.nkeys)
		err = kpt_hist_check(spec, why);
	if (err)
		goto err_free;
	/* before anything of size is allocated */
	p->mem = kpt_probe_mem(p);
	if (kpt_mem_used + p->mem > kpt_cfg.mem_max) {
		*why = "its hist tables or return instances would pass mem_max_mb";
		err = -E2BIG;
		goto err_free;
	}
	err = -ENOMEM;
	p->stats = alloc_percpu(struct kpt_probe_stats);
	p->label = kstrdup(label, GFP_KERNEL);
	if (spec->sym[0])
		p->symname = spec->mod[0] ?
			     kasprintf(GFP_KERNEL, "%s:%s", spec->mod,
				       spec->sym) :
			     kstrdup(spec->sym, GFP_KERNEL);
	if (!p->stats || !p->label || (spec->sym[0] && !p->symname))
		goto err_free;
	for_each_possible_cpu(cpu)
		per_cpu_ptr(p->stats, cpu)->ring = sess->buf->rings[cpu];
	if (p->ops->alloc && p->ops->alloc(p))
		goto err_free;
	if (spec->hist.nkeys) {
		p->hist = kpt_hist_new(spec, why);
		if (IS_ERR(p->hist)) {
			err = PTR_ERR(p->hist);
			p->hist = NULL;
			goto err_free;
		}
	}
	return p;

err_free:
	p->spec = NULL;		/* the caller's */
	kpt_probe_free(p);
	return ERR_PTR(err);
}

/*
 * Is module @name loaded? find_module() is not exported since v5.12; a
 * loaded module has /sys/module/NAME/initstate (a built-in one has not).
 */
static bool kpt_module_loaded(const char *name)
{
	struct path path;
	char *file;
	int ret;

	file = kasprintf(GFP_KERNEL, "/sys/module/%s/initstate", name);
	if (!file)
		return false;
	ret = kern_path(file, LOOKUP_FOLLOW, &path);
	kfree(file);
	if (ret)
		return false;
	path_put(&path);
	return true;
}

/*
 * The live probe GROUP/NAME of @sess (names are a session's own), or
 * NULL. Caller holds kpt_probes_mutex.
 */
struct kpt_probe *kpt_probe_find(struct kpt_session *sess, const char *group,
				 const char *name)
{
	struct kpt_probe *p;

	list_for_each_entry(p, &kpt_probe_list, list)
		if (p->sess == sess && !strcmp(p->spec->group, group) &&
		    !strcmp(p->spec->name, name))
			return p;
	return NULL;
}

/*
 * Is the SYM of @spec the name of one function, and MOD:SYM the name of
 * one function of MOD? Several static functions may share a name, in
 * vmlinux, across modules or in one module, and the kprobe core would take
 * the first it finds: refuse as ftrace does (v6.6+), and say how to
 * choose. SYM+OFF is refused too: an offset does not choose. A MOD:SYM
 * whose module is not loaded is unique for now, and asked again when the
 * module comes (kpt_module_notify()). Returns 0, or -EADDRNOTAVAIL with
 * the reason in @msg.
 *
 * The names are read from /proc/kallsyms again after each module event,
 * but the notifications come before kallsyms changes: GOING before
 * free_module() hides the module's symbols, LIVE before its __init ones
 * go. A read between the two would still count the symbols leaving, and
 * be kept until the next event: before refusing a name, read the file
 * once more. Refusals are rare, so the common case costs nothing.
 */
static int kpt_probe_unique(const struct kpt_spec *spec, char *msg,
			    size_t len)
{
	const char *mod = spec->mod[0] ? spec->mod : NULL;
	bool in_module = false;
	char where[96];
	int n;

	if (!spec->sym[0])
		return 0;
	n = kpt_ksyms_defined(mod, spec->sym, where, sizeof(where),
			      &in_module);
	if (n > 1) {
		kpt_ksyms_invalidate();
		n = kpt_ksyms_defined(mod, spec->sym, where, sizeof(where),
				      &in_module);
	}
	if (n < 0) {
		pr_warn_once("cannot read /proc/kallsyms (%d): names defined more than once are not refused\n",
			     n);
		return 0;
	}
	if (n <= 1)
		return 0;
	snprintf(msg, len,
		 "symbol is not unique: %d definitions (%s); choose one with %s0xADDR from /proc/kallsyms",
		 n, where, in_module && !mod ? "MOD:SYM or " : "");
	return -EADDRNOTAVAIL;
}

/*
 * Make, arm and list a probe; takes ownership of @spec. @line is what the
 * user wrote, for the error message. Caller holds kpt_probes_mutex.
 */
int kpt_probe_create(struct kpt_session *sess, struct kpt_spec *spec,
		     const char *label, const char *line)
{
	const char *why = "out of memory";
	struct kpt_probe *p;
	unsigned int cpu;
	char msg[224];
	int ret;

	/* first: a locked-down kernel answers EPERM, whatever the spec */
	ret = security_locked_down(LOCKDOWN_KPROBES);
	if (ret) {
		kpt_error(line, -1, kpt_reason(ret), ret);
		kfree(spec);
		return ret;
	}
	kpt_probes_reclaim();
	if (kpt_probe_find(sess, spec->group, spec->name)) {
		kpt_error(line, -1, "a probe of that name exists", -EEXIST);
		kfree(spec);
		return -EEXIST;
	}
	if (kpt_nr_live >= KPT_MAX_LIVE_PROBES) {
		kpt_error(line, -1, "too many probes (1024)", -E2BIG);
		kfree(spec);
		return -E2BIG;
	}
	ret = kpt_sys_ids_global(spec);
	if (ret) {
		kpt_error(line, -1,
			  "pid=, tid=, children= or exclude= names no process of the writer's pid namespace",
			  ret);
		kfree(spec);
		return ret;
	}
	ret = kpt_probe_unique(spec, msg, sizeof(msg));
	if (ret) {
		kpt_error(line, -1, msg, ret);
		kfree(spec);
		return ret;
	}
	p = kpt_probe_new(sess, spec, label, &why);
	if (IS_ERR(p)) {
		kfree(spec);
		kpt_error(line, -1, why, PTR_ERR(p));
		return PTR_ERR(p);
	}
	/*
	 * before p is seen (by id): freed at once if this fails. Only the
	 * default session's aggregations have a hist file: another
	 * session's is read through its file (KPT_IOC_HIST).
	 */
	ret = p->hist && sess == kpt_default_session ?
	      kpt_hist_file_add(p->hist, spec->name) : 0;
	if (ret) {
		kpt_error(line, -1, "a hist of that name exists (another group)",
			  ret);
		kpt_probe_free(p);
		return ret;
	}
	ret = kpt_id_alloc(p);
	if (ret < 0) {
		if (p->hist)
			kpt_hist_file_remove(p->hist);
		kpt_probe_free(p);
		kpt_error(line, -1, "out of probe ids", ret);
		return ret;
	}
	for_each_possible_cpu(cpu)
		per_cpu_ptr(p->stats, cpu)->cpu_id = cpu | (u64)p->id << 32;
	/*
	 * Before arming: an overwrite reader sizes its batches from its
	 * session's max_record, and this probe's records may come at once.
	 */
	WRITE_ONCE(sess->max_record, max3(sess->max_record,
					  p->prog.entry_size,
					  p->prog.ret_size));
	ret = kpt_probe_arm(p);
	if (ret == -ENOENT && spec->mod[0] && !kpt_module_loaded(spec->mod)) {
		/* Armed by kpt_module_notify() when the module loads. */
		p->state = KPT_PROBE_PENDING;
		ret = 0;
	}
	if (ret) {
		why = p->ops->arm_error ? p->ops->arm_error(p, ret) : NULL;
		if (ret == -EFAULT)
			kpt_error(line, -1, "not a kernel text address",
				  -EINVAL);
		else
			kpt_error(line, -1, why ?: kpt_reason(ret), ret);
		/* only lookups by id may still see it */
		kpt_id_unused(p);
		if (p->hist)
			kpt_hist_file_remove(p->hist);
		call_rcu(&p->rcu, kpt_probe_free_rcu);
		return ret == -EFAULT ? -EINVAL : ret;
	}
	list_add_tail(&p->list, &kpt_probe_list);
	kpt_nr_live++;
	sess->nr_probes++;
	kpt_mem_used += p->mem;
	kpt_error_answer_probe(p);
	return 0;
}

/* Does @p write records to the rings, or only aggregate? */
static bool kpt_probe_records(const struct kpt_probe *p)
{
	return !p->spec->hist.nkeys || p->prog.hist_events;
}

/*
 * Take a disarmed @p off the lists and its books into its session's:
 * none of its handlers runs after the disarming, so their counts are
 * final (lost.overwritten, counted by the rings, may still move).
 */
static void kpt_probe_unlist(struct kpt_probe *p)
{
	struct kpt_session *sess = p->sess;
	struct kpt_probe_stats sum;

	if (p->hist) {
		/* no record refers to the tables: they go now, not with p */
		if (sess == kpt_default_session)
			kpt_hist_file_remove(p->hist);
		kpt_hist_free(p->hist);
		p->hist = NULL;
	}
	kpt_probe_sum(p, &sum);
	sess->gone_filtered += sum.filtered;
	sess->gone_missed += kpt_probe_missed(p);
	list_del(&p->list);
	kpt_nr_live--;
	sess->nr_probes--;
	kpt_mem_used -= p->mem;
}

static int kpt_probe_delete(struct kpt_session *sess, struct kpt_spec *spec,
			    const char *line)
{
	struct kpt_probe *p = kpt_probe_find(sess, spec->group, spec->name);

	kfree(spec);
	if (!p) {
		kpt_error(line, -1, "no probe of that name", -ENOENT);
		return -ENOENT;
	}
	kpt_probe_disarm(p);
	kpt_probe_unlist(p);
	/* its records now decode with its tombstone */
	kpt_id_bury(p, kpt_probe_records(p));
	/* a handler or a text reader may have found p before the store */
	call_rcu(&p->rcu, kpt_probe_free_rcu);
	kpt_probes_reclaim();
	return 0;
}

/*
 * One spec line: add or delete a probe of @sess. Caller holds
 * kpt_probes_mutex.
 */
static int kpt_probe_line(struct kpt_session *sess, const char *line)
{
	struct kpt_spec *spec;
	int ret;

	spec = kmalloc(sizeof(*spec), GFP_KERNEL);
	if (!spec)
		return -ENOMEM;
	ret = kpt_spec_parse(line, spec);
	if (ret) {
		kpt_error(line, spec->err_pos, spec->err_msg, ret);
		kfree(spec);
		return ret;
	}
	if (spec->kind == KPT_SPEC_DELETE)
		return kpt_probe_delete(sess, spec, line);
	return kpt_probe_create(sess, spec, spec->name, line);
}

/**
 * kpt_probes_write() - apply spec lines, as written to /dev/kptrace
 * @sess: the session of the writer's file, or the default one
 * @text: the lines, not necessarily NUL-terminated
 * @len: bytes in @text
 * @sep: the line separator ('\n', or ';' for the probe= parameter)
 *
 * Lines are applied in order; blank lines and "#" comments are skipped.
 * Returns 0, or the error of the first line that failed (the lines before
 * it stay applied, as with ftrace's kprobe_events).
 */
int kpt_probes_write(struct kpt_session *sess, const char *text, size_t len,
		     char sep)
{
	char *copy, *cur, *line;
	int ret = 0;

	copy = kmemdup_nul(text, len, GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	mutex_lock(&kpt_probes_mutex);
	cur = copy;
	while (!ret && (line = strsep(&cur, sep == ';' ? ";\n" : "\n"))) {
		line = strim(line);
		if (!*line || *line == '#')
			continue;
		ret = kpt_probe_line(sess, line);
	}
	mutex_unlock(&kpt_probes_mutex);
	kfree(copy);
	return ret;
}

/**
 * kpt_probes_write_user() - spec lines from userspace
 * @sess: as kpt_probes_write()'s
 * @ubuf: the lines (/dev/kptrace's write and ioctl, debugfs' probes file)
 * @len: at most one page
 *
 * Returns as kpt_probes_write(), or -E2BIG, -EFAULT, -ENOMEM.
 */
int kpt_probes_write_user(struct kpt_session *sess, const char __user *ubuf,
			  size_t len)
{
	char *text;
	int ret;

	if (len > PAGE_SIZE)
		return -E2BIG;
	text = memdup_user(ubuf, len);
	if (IS_ERR(text))
		return PTR_ERR(text);
	ret = kpt_probes_write(sess, text, len, '\n');
	kfree(text);
	return ret;
}

/**
 * kpt_probes_add_user() - one spec line, answered in the call
 * (KPT_IOC_ADD, uapi/kptrace.h)
 * @sess: the session of the asking file
 * @req: the request, as copied in; its answer is filled here (the
 *	 caller copies it back), the canonical spec copied to req->spec
 * @hide: the asker may not see kernel addresses
 *
 * The line is applied as a write's line is (kpt_probe_line()), and its
 * refusal logged and kept in error_log alike; a newline may end it, none
 * may be in it, nor a NUL. Returns 0 or the error, as req->err; an add
 * whose canonical spec could not be copied (a fault) is done all the
 * same: 0, with spec_size 0.
 */
int kpt_probes_add_user(struct kpt_session *sess, struct kpt_add_req *req,
			bool hide)
{
	struct kpt_answer ans = { .pos = -1 };
	char *line, *spec, *text;
	size_t len, size = 0;
	bool nul;
	int ret;

	if (req->len >= KPT_SPEC_LINE_MAX) {
		strscpy(req->msg, "the line is 4096 bytes or more",
			sizeof(req->msg));
		req->err = -E2BIG;
		return -E2BIG;
	}
	line = memdup_user_nul(u64_to_user_ptr(req->line), req->len);
	if (IS_ERR(line)) {
		req->err = PTR_ERR(line);
		return req->err;
	}
	text = kmalloc(KPT_SPEC_LINE_MAX, GFP_KERNEL);
	if (!text) {
		kfree(line);
		req->err = -ENOMEM;
		return -ENOMEM;
	}
	/* a NUL before its end would cut it short: refused below */
	len = strlen(line);
	nul = len < req->len;
	if (!nul && len && line[len - 1] == '\n')
		line[--len] = '\0';
	spec = strim(line);
	mutex_lock(&kpt_probes_mutex);
	kpt_error_answer(&ans);
	if (nul) {
		kpt_error(spec, -1, "a NUL in the line", -EINVAL);
		ret = -EINVAL;
	} else if (strchr(spec, '\n')) {
		kpt_error(spec, -1, "one spec line: a newline inside it",
			  -EINVAL);
		ret = -EINVAL;
	} else if (!*spec || *spec == '#') {
		kpt_error(spec, -1, "no spec on the line", -EINVAL);
		ret = -EINVAL;
	} else {
		ret = kpt_probe_line(sess, spec);
	}
	if (!ret && ans.probe) {
		kpt_spec_print(ans.probe->spec, hide, text, KPT_SPEC_LINE_MAX);
		size = strlen(text) + 1;
	}
	kpt_error_answer(NULL);
	mutex_unlock(&kpt_probes_mutex);
	req->err = ret;
	req->pos = ret ? ans.pos : -1;
	req->id = ret ? 0 : ans.id;
	strscpy(req->msg, ret ? ans.msg : "", sizeof(req->msg));
	req->spec_size = size;
	if (size && req->spec && size <= req->spec_len &&
	    copy_to_user(u64_to_user_ptr(req->spec), text, size))
		req->spec_size = 0;	/* the add is done all the same */
	kfree(text);
	kfree(line);
	return ret;
}

/*
 * MOD:SYM probes follow their module: armed on load, before its init,
 * unless the module has several functions of that name (then the probe
 * stays pending, and is asked again at the next load). Any module coming
 * or going also changes which names are unique.
 *
 * A write can arm a MOD:SYM probe on a module between the module's
 * symbols entering kallsyms (its state is COMING then) and this notice,
 * which waits for kpt_probes_mutex: the names kpt_probe_unique() read
 * then may predate the module, and found SYM unique in it when it is not.
 * At COMING, such a probe is asked again, and disarmed (pending) if the
 * answer changed.
 */
static int kpt_module_notify(struct notifier_block *nb, unsigned long action,
			     void *data)
{
	struct module *mod = data;
	struct kpt_probe *p;
	char msg[224];

	if (action != MODULE_STATE_COMING && action != MODULE_STATE_LIVE &&
	    action != MODULE_STATE_GOING)
		return NOTIFY_DONE;
	mutex_lock(&kpt_probes_mutex);
	/*
	 * Sent before kallsyms changes (GOING before the module's symbols
	 * are hidden, LIVE before its __init ones go): what is read now may
	 * be stale, and kpt_probe_unique() reads again before refusing.
	 */
	kpt_ksyms_invalidate();
	list_for_each_entry(p, &kpt_probe_list, list) {
		if (strcmp(p->spec->mod, mod->name))
			continue;
		if (action == MODULE_STATE_COMING &&
		    p->state == KPT_PROBE_PENDING) {
			/* its symbols are in kallsyms from COMING on */
			p->err = kpt_probe_unique(p->spec, msg, sizeof(msg));
			if (!p->err && kpt_probe_arm(p))
				strscpy(msg, kpt_reason(p->err), sizeof(msg));
			/* a module loaded in a loop refuses in a loop */
			if (p->err)
				pr_warn_ratelimited("%s: cannot arm on %s:%s: %s (%d)\n",
						    p->label, mod->name,
						    p->spec->sym, msg, p->err);
		} else if (action == MODULE_STATE_COMING) {
			/* armed by a write since the module came: see above */
			p->err = kpt_probe_unique(p->spec, msg, sizeof(msg));
			if (p->err) {
				kpt_probe_disarm(p);
				pr_warn_ratelimited("%s: disarmed on %s:%s: %s (%d)\n",
						    p->label, mod->name,
						    p->spec->sym, msg, p->err);
			}
		} else if (action == MODULE_STATE_GOING) {
			kpt_probe_disarm(p);
		}
	}
	mutex_unlock(&kpt_probes_mutex);
	return NOTIFY_DONE;
}

/*
 * Higher priorities run first. The kprobe core's callback (priority 0)
 * adds the module's NOKPROBE_SYMBOL() blacklist at MODULE_STATE_COMING,
 * and jump labels (priority 1) patch its text then: arm after both, or a
 * probe could sit on a blacklisted function. At MODULE_STATE_GOING the
 * core has then marked our probes there gone, which unregistering expects.
 */
static struct notifier_block kpt_module_nb = {
	.notifier_call = kpt_module_notify,
	.priority = -1,
};

int kpt_probes_init(void)
{
	return register_module_notifier(&kpt_module_nb);
}

/*
 * Every probe of @sess and its tombstones, for the session's close
 * (session.c): taken off kpt_probe_list under kpt_probes_mutex (no
 * write, listing or module notifier finds them after), disarmed without
 * it, all at once (a session's close holds up no one else, and its
 * probes cost one wait for their handlers, not one each), so that none of
 * their handlers runs once this returns (nor writes to the session's
 * rings); then freed after an RCU grace period, as a deleted probe is.
 */
void kpt_probes_session_close(struct kpt_session *sess)
{
	struct kpt_probe *p, *tmp;
	LIST_HEAD(closing);

	mutex_lock(&kpt_probes_mutex);
	list_for_each_entry_safe(p, tmp, &kpt_probe_list, list)
		if (p->sess == sess)
			list_move_tail(&p->list, &closing);
	mutex_unlock(&kpt_probes_mutex);
	kpt_probes_disarm_all(&closing);
	mutex_lock(&kpt_probes_mutex);
	list_for_each_entry_safe(p, tmp, &closing, list) {
		kpt_probe_unlist(p);
		kpt_id_release(p);
		call_rcu(&p->rcu, kpt_probe_free_rcu);
	}
	kpt_tombs_free(sess);
	mutex_unlock(&kpt_probes_mutex);
}

/*
 * Disarm everything, then free: no handler runs once the disarming is
 * done, and no reader is left (kptrace's files are gone or were never
 * there, so no session but the default one is left), so nothing can look
 * a probe up any more.
 */
void kpt_probes_exit(void)
{
	unregister_module_notifier(&kpt_module_nb);
	if (kpt_default_session)
		kpt_probes_session_close(kpt_default_session);
	mutex_lock(&kpt_probes_mutex);
	WARN_ON_ONCE(!list_empty(&kpt_probe_list));
	kpt_ksyms_exit();
	mutex_unlock(&kpt_probes_mutex);
	/* the probes and tombstones freed by call_rcu() and kfree_rcu() */
	rcu_barrier();
	kpt_ids_exit();
}

/* Take @bytes of mem_max_mb, or -E2BIG. Caller holds kpt_probes_mutex. */
int kpt_mem_charge(u64 bytes)
{
	lockdep_assert_held(&kpt_probes_mutex);
	if (kpt_mem_used + bytes > kpt_cfg.mem_max)
		return -E2BIG;
	kpt_mem_used += bytes;
	return 0;
}

void kpt_mem_uncharge(u64 bytes)
{
	lockdep_assert_held(&kpt_probes_mutex);
	kpt_mem_used -= bytes;
}

/*
 * stats' deleted_pending: the default session's deleted probes whose
 * tombstones are kept, for records that may still be in a ring (see the
 * top of this file).
 */
unsigned int kpt_probes_deleted_pending(void)
{
	unsigned int n;

	mutex_lock(&kpt_probes_mutex);
	n = kpt_default_session->nr_dead;
	mutex_unlock(&kpt_probes_mutex);
	return n;
}

/*
 * stats' mem_used_bytes: what the live probes and the sessions' rings
 * count against mem_max_mb
 */
u64 kpt_probes_mem_used(void)
{
	u64 mem;

	mutex_lock(&kpt_probes_mutex);
	mem = kpt_mem_used;
	mutex_unlock(&kpt_probes_mutex);
	return mem;
}

/**
 * kpt_probes_hist() - the aggregation of the probe @name, in binary
 * (KPT_IOC_HIST, uapi/kptrace.h)
 * @sess: the session of the asking file: its probes only
 * @name: the probe's name, of any group: the name of its hist file
 * @flags: KPT_HIST_REQ_*, as kpt_hist_blob()
 * @gen: as kpt_hist_blob()
 * @id: in for KPT_HIST_REQ_ENDED (the probe the clear was of), out
 * @hide: the reader may not see kernel addresses
 * @out: the table in a kernel buffer, kvfree() it
 * @len: its bytes
 *
 * Under kpt_probes_mutex, which -:NAME holds to free the tables: the
 * table is made in a kernel buffer here, and the caller copies it out
 * after, so a slow user buffer never holds up a deletion. (The tables are
 * not pinned with their hist file's active reference, as the file's own
 * readers pin them: from 6.13 debugfs_file_get() warns on a file that was
 * never opened.) Returns 0, -ENOENT (no such probe with a hist:),
 * -ESTALE, or kpt_hist_blob()'s.
 */
int kpt_probes_hist(struct kpt_session *sess, const char *name, u32 flags,
		    u32 *gen, u32 *id, bool hide, void **out, size_t *len)
{
	struct kpt_probe *p, *found = NULL;
	int ret;

	if (mutex_lock_interruptible(&kpt_probes_mutex))
		return -ERESTARTSYS;
	list_for_each_entry(p, &kpt_probe_list, list) {
		if (p->sess == sess && p->hist &&
		    !strcmp(p->spec->name, name)) {
			found = p;
			break;
		}
	}
	if (!found)
		ret = -ENOENT;
	else if ((flags & KPT_HIST_REQ_ENDED) && *id != found->id)
		ret = -ESTALE;	/* another probe of the name since */
	else
		ret = kpt_hist_blob(found->hist, flags, gen, hide, out, len);
	if (found) {
		*id = found->id;
		if (!ret)
			((struct kpt_hist_hdr *)*out)->probe_id = found->id;
	}
	mutex_unlock(&kpt_probes_mutex);
	return ret;
}

/* The totals of a session: its live probes' and its deleted ones'. */
u64 kpt_probes_missed(struct kpt_session *sess)
{
	struct kpt_probe *p;
	u64 missed;

	mutex_lock(&kpt_probes_mutex);
	missed = sess->gone_missed;
	list_for_each_entry(p, &kpt_probe_list, list)
		if (p->sess == sess)
			missed += kpt_probe_missed(p);
	mutex_unlock(&kpt_probes_mutex);
	return missed;
}

u64 kpt_probes_filtered(struct kpt_session *sess)
{
	struct kpt_probe_stats sum;
	struct kpt_probe *p;
	u64 filtered;

	mutex_lock(&kpt_probes_mutex);
	filtered = sess->gone_filtered;
	list_for_each_entry(p, &kpt_probe_list, list) {
		if (p->sess != sess)
			continue;
		kpt_probe_sum(p, &sum);
		filtered += sum.filtered;
	}
	mutex_unlock(&kpt_probes_mutex);
	return filtered;
}

/*
 * The hist/ directory of debugfs, or NULL: each aggregation of the
 * default session gets its file there, those made before it (module
 * parameters) when it comes.
 */
void kpt_probes_hist_dir(struct dentry *dir)
{
	struct kpt_session *sess = kpt_default_session;
	struct kpt_probe *p;

	mutex_lock(&kpt_probes_mutex);
	if (!dir)
		list_for_each_entry(p, &kpt_probe_list, list)
			if (p->hist && p->sess == sess)
				kpt_hist_file_remove(p->hist);
	kpt_hist_dir_set(dir);
	if (dir)
		list_for_each_entry(p, &kpt_probe_list, list)
			if (p->hist && p->sess == sess &&
			    kpt_hist_file_add(p->hist, p->spec->name))
				pr_warn("%s/%s: no hist file: another group's probe has its name\n",
					p->spec->group, p->spec->name);
	mutex_unlock(&kpt_probes_mutex);
}
