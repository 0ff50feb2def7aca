// SPDX-License-Identifier: GPL-2.0
/*
 * kptrace: what the probes files show. The probes listing (probes), their
 * counts (probe_stats) and the last refused spec lines (error_log), which
 * are kept here. Each takes kpt_probes_mutex, as every change to a listed
 * probe does (probe.c), and walks kpt_probe_list under it; none of this
 * runs in a handler.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/ratelimit.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include "probe.h"
#include "ring.h"
#include "hist.h"
#include "format.h"
#include "session.h"

/* The last errors of written specs, like ftrace's error_log. */
#define KPT_ERRLOG_LEN	8
struct kpt_error {
	u64	ts;
	int	pos;		/* column, or -1 */
	int	err;
	char	msg[224];
	char	line[KPT_SPEC_LINE_MAX];
};
static struct kpt_error kpt_errlog[KPT_ERRLOG_LEN];
static unsigned int kpt_errlog_next;
/* a line of kpt_errlog as it is shown; kpt_probes_mutex */
static char kpt_errline[4 * KPT_SPEC_LINE_MAX];
/*
 * The most of it the kernel log gets: a printk record holds about 1 KiB
 * (992 bytes on 5.10), and the reason and column come after the line.
 */
#define KPT_ERRLOG_PRINTK	768
/*
 * One log line per refusal, but not a flood of them from a loop of bad
 * writes: 100 in 5 s (a test's table of bad specs is about 60), then
 * "kpt_error: N callbacks suppressed". error_log keeps every one.
 */
static DEFINE_RATELIMIT_STATE(kpt_error_rs, 5 * HZ, 100);
/* The answer of the line being served by KPT_IOC_ADD; kpt_probes_mutex */
static struct kpt_answer *kpt_answer_cur;

/*
 * @e's line into kpt_errline, escaped as untrusted text is everywhere
 * (kpt_format_untrusted(), and @quote), and the column its caret is at
 * there, or -1: the writer chooses the bytes of a line, and a line with
 * an escape sequence or a comm glob copied from a process's name must not
 * reach a terminal or the kernel log as it is.
 */
static int kpt_error_escape(const struct kpt_error *e, char quote)
{
	int col = -1;

	lockdep_assert_held(&kpt_probes_mutex);
	/* a caret may stand past the line's end: "p:bad" wants a symbol */
	if (e->pos >= 0)
		col = kpt_format_untrusted(kpt_errline, sizeof(kpt_errline),
					   e->line, e->pos, quote) +
		      e->pos - (int)strnlen(e->line, e->pos);
	kpt_format_untrusted(kpt_errline, sizeof(kpt_errline), e->line,
			     sizeof(e->line), quote);
	return col;
}

/*
 * @s, escaped, cut to at most @max bytes (4 or more) ending "..." when
 * longer, the cut between two escapes: never in the middle of a "\xNN",
 * "\\" or "\"". In kpt_error_escape()'s output a backslash always starts
 * an escape, and "\x" is always "\xNN": its quote is '"', never 'x'.
 */
static void kpt_error_cut(char *s, size_t max)
{
	size_t i = 0, n;

	if (strlen(s) <= max)
		return;
	for (;;) {
		n = s[i] != '\\' ? 1 : s[i + 1] == 'x' ? 4 : 2;
		if (i + n > max - 3)
			break;
		i += n;
	}
	strscpy(s + i, "...", 4);
}

/*
 * A refused spec line: log it, and keep it for error_log. @pos is the
 * column the parser stopped at, or -1. Caller holds kpt_probes_mutex.
 */
void kpt_error(const char *line, int pos, const char *msg, int err)
{
	struct kpt_error *e = &kpt_errlog[kpt_errlog_next++ % KPT_ERRLOG_LEN];
	int col;

	lockdep_assert_held(&kpt_probes_mutex);
	if (kpt_answer_cur) {
		kpt_answer_cur->err = err;
		kpt_answer_cur->pos = pos;
		strscpy(kpt_answer_cur->msg, msg, sizeof(kpt_answer_cur->msg));
	}
	e->ts = ktime_get_ns();
	e->pos = pos;
	e->err = err;
	strscpy(e->msg, msg, sizeof(e->msg));
	strscpy(e->line, line, sizeof(e->line));
	if (!__ratelimit(&kpt_error_rs))
		return;
	col = kpt_error_escape(e, '"');
	BUILD_BUG_ON(KPT_ERRLOG_PRINTK < 4);
	BUILD_BUG_ON(sizeof(kpt_errline) <= KPT_ERRLOG_PRINTK);
	kpt_error_cut(kpt_errline, KPT_ERRLOG_PRINTK);
	if (col >= 0)
		pr_err("\"%s\": %s, at column %d (%d)\n", kpt_errline, msg,
		       col, err);
	else
		pr_err("\"%s\": %s (%d)\n", kpt_errline, msg, err);
}

/*
 * KPT_IOC_ADD: @ans gets what kpt_error() says of the line served until
 * the next call (NULL: none), and the probe it made. Caller holds
 * kpt_probes_mutex across both.
 */
void kpt_error_answer(struct kpt_answer *ans)
{
	lockdep_assert_held(&kpt_probes_mutex);
	kpt_answer_cur = ans;
}

void kpt_error_answer_probe(struct kpt_probe *p)
{
	lockdep_assert_held(&kpt_probes_mutex);
	if (kpt_answer_cur) {
		kpt_answer_cur->id = p->id;
		kpt_answer_cur->probe = p;
	}
}

/* Hits of the probe point: a plain kprobe counts them once, as hits. */
static u64 kpt_probe_calls(const struct kpt_probe *p,
			   const struct kpt_probe_stats *st)
{
	/* an aggregating kprobe counts its hits as calls: not events */
	return p->prog.is_ret || p->hist ? st->calls : st->hits;
}

/*
 * The events its hits meant: a b probe has an entry record per call
 * (counted once, as a call) and a return record per return (hits).
 */
static u64 kpt_probe_events(const struct kpt_probe *p,
			    const struct kpt_probe_stats *st)
{
	return p->prog.both ? st->calls + st->hits : st->hits;
}

/*
 * "sym+0xoff/0xsize", or "mod:sym+0xoff/0xsize" for a module symbol: one
 * field, no raw address. @buf holds 2 * KSYM_SYMBOL_LEN bytes.
 */
static const char *kpt_probe_where(struct kprobe *kp, char *buf)
{
	char *out = buf + KSYM_SYMBOL_LEN;
	char *mod, *end;
	size_t n;

	sprint_symbol(buf, (unsigned long)kp->addr);
	mod = strstr(buf, " [");
	if (!mod)
		return buf;
	*mod = '\0';
	mod += 2;
	end = strchr(mod, ']');
	if (end)
		*end = '\0';
	n = strlen(mod);
	memcpy(out, mod, n);
	out[n] = ':';
	strscpy(out + n + 1, buf, KSYM_SYMBOL_LEN - n - 1);
	return out;
}

static const char *kpt_probe_mode(struct kpt_probe *p)
{
	struct kprobe *kp = kpt_probe_kprobe(p);

	if (p->state == KPT_PROBE_PENDING)
		return "pending";
	if (kprobe_disabled(kp))
		return "disabled";
	if (kprobe_ftrace(kp))
		return "ftrace";
	if (kp->flags & KPROBE_FLAG_OPTIMIZED)
		return "optimized";
	return "int3";
}

/*
 * The listing's " at=WHERE KIND MODE" of a probe on the kprobe core (the
 * kinds' show()): @kind "kprobe" or "kretprobe"; @buf as the listing's
 */
void kpt_probe_show_kprobe(struct seq_file *m, struct kpt_probe *p,
			   const char *kind, char *buf)
{
	struct kprobe *kp = kpt_probe_kprobe(p);

	if (p->state != KPT_PROBE_ARMED)
		seq_printf(m, " at=%s:%s", p->spec->mod, p->spec->sym);
	else if (kprobe_gone(kp))
		/* its module went away: no symbol is left there */
		seq_printf(m, " at=%s", p->symname ?: "?");
	else
		seq_printf(m, " at=%s", kpt_probe_where(kp, buf));
	seq_printf(m, " %s %s", kind, kpt_probe_mode(p));
}

/*
 * The probes file: one line per live probe, its spec in the language a
 * write takes, then a "#" comment with what kptrace made of it, so that
 * the file can be written back as it is (by a reader who may see kernel
 * addresses: to others, @hide, the spec's addresses print as 0, see
 * hide.c).
 */
void kpt_probes_show(struct seq_file *m, bool hide)
{
	struct kpt_probe_stats sum;
	struct kpt_probe *p;
	char *buf;

	buf = kmalloc(max_t(size_t, 2 * KSYM_SYMBOL_LEN, KPT_SPEC_LINE_MAX),
		      GFP_KERNEL);
	if (!buf)
		return;
	mutex_lock(&kpt_probes_mutex);
	kpt_probes_reclaim();
	list_for_each_entry(p, &kpt_probe_list, list) {
		kpt_spec_print(p->spec, hide, buf, KPT_SPEC_LINE_MAX);
		seq_printf(m, "%s # id=%u", buf, p->id);
		if (p->sess != kpt_default_session)
			seq_printf(m, " session=%u", p->sess->id);
		if (strcmp(p->label, p->spec->name))
			seq_printf(m, " label=%s", p->label);
		p->ops->show(m, p, buf);
		kpt_probe_sum(p, &sum);
		seq_printf(m, " hits=%llu missed=%llu\n",
			   kpt_probe_calls(p, &sum), kpt_probe_missed(p));
	}
	mutex_unlock(&kpt_probes_mutex);
	kfree(buf);
}

/*
 * Every event was filtered, lost or recorded (or had no room in an s
 * probe's summary): the recorded ones.
 */
static u64 kpt_probe_recorded(const struct kpt_probe *p,
			      const struct kpt_probe_stats *st)
{
	u64 recorded = kpt_probe_events(p, st) - st->filtered;
	unsigned int i;

	for (i = 0; i < KPT_LOST_NR; i++)
		recorded -= st->lost[i];
	return recorded - st->sum_full;
}

static void kpt_stats_line(struct seq_file *m, const char *who,
			   const struct kpt_probe *p,
			   const struct kpt_probe_stats *st)
{
	u64 events = kpt_probe_events(p, st);
	u64 recorded = kpt_probe_recorded(p, st);
	unsigned int i;

	seq_printf(m, "%s calls=%llu events=%llu filtered=%llu recorded=%llu",
		   who, kpt_probe_calls(p, st), events, st->filtered,
		   recorded);
	for (i = 0; i < KPT_LOST_NR; i++)
		seq_printf(m, " %s=%llu", kpt_lost_names[i], st->lost[i]);
	seq_printf(m, " num_fault=%llu str_fault=%llu str_trunc=%llu stack_trunc=%llu",
		   st->num_fault, st->str_fault, st->str_trunc,
		   st->stack_trunc);
	if (p->sys_sum)
		seq_printf(m, " summary_full=%llu", st->sum_full);
}

/**
 * kpt_probes_books() - one probe's books, as probe_stats' total line has
 * them (KPT_IOC_PROBE_STATS, uapi/kptrace.h)
 * @sess: the session of the asking file: its probes only
 * @pb: in: the probe's id; out: the books
 *
 * Returns 0, -ENOENT (no probe of @sess has that id), -ERESTARTSYS.
 */
int kpt_probes_books(struct kpt_session *sess, struct kpt_probe_books *pb)
{
	struct kpt_probe_stats st;
	struct kpt_probe *p;
	unsigned int i;
	int ret = -ENOENT;

	if (mutex_lock_interruptible(&kpt_probes_mutex))
		return -ERESTARTSYS;
	list_for_each_entry(p, &kpt_probe_list, list) {
		if (p->sess != sess || p->id != pb->id)
			continue;
		kpt_probe_sum(p, &st);
		pb->flags = (p->prog.is_ret ? KPT_PB_RETURN : 0) |
			    (p->sys_sum ? KPT_PB_SUMMARY : 0);
		pb->calls = kpt_probe_calls(p, &st);
		pb->events = kpt_probe_events(p, &st);
		pb->filtered = st.filtered;
		pb->recorded = kpt_probe_recorded(p, &st);
		for (i = 0; i < KPT_LOST_NR; i++)
			pb->lost[i] = st.lost[i];
		pb->missed = kpt_probe_kp_missed(p);
		pb->maxactive_missed = kpt_probe_rp_missed(p);
		pb->num_fault = st.num_fault;
		pb->str_fault = st.str_fault;
		pb->str_trunc = st.str_trunc;
		pb->stack_trunc = st.stack_trunc;
		pb->summary_full = st.sum_full;
		ret = 0;
		break;
	}
	mutex_unlock(&kpt_probes_mutex);
	return ret;
}

/*
 * probe_stats: per probe of the default session, a total line with the
 * kprobe core's misses, then one line per CPU (another session's probes
 * are its file's: KPT_IOC_PROBE_STATS). calls counts hits of the probe
 * point; events counts the records they meant (an entry and a return for
 * a b probe, a return only for an r probe), and events = filtered +
 * recorded + full + nested + too_big + overwritten.
 */
void kpt_probes_show_stats(struct seq_file *m)
{
	struct kpt_probe_stats sum;
	struct kpt_probe *p;
	unsigned int cpu;
	char who[KPT_SPEC_NAME_LEN + 16];

	mutex_lock(&kpt_probes_mutex);
	kpt_probes_reclaim();
	list_for_each_entry(p, &kpt_probe_list, list) {
		if (p->sess != kpt_default_session)
			continue;
		kpt_probe_sum(p, &sum);
		kpt_stats_line(m, p->spec->name, p, &sum);
		seq_printf(m, " missed=%lu maxactive_missed=%lu",
			   kpt_probe_kp_missed(p), kpt_probe_rp_missed(p));
		if (p->hist)
			kpt_hist_stats(p->hist, m);
		seq_puts(m, "\n");
		for_each_possible_cpu(cpu) {
			snprintf(who, sizeof(who), "%s cpu%u", p->spec->name,
				 cpu);
			sum = *per_cpu_ptr(p->stats, cpu);
			kpt_probe_stats_fold(&sum);
			kpt_stats_line(m, who, p, &sum);
			seq_puts(m, "\n");
		}
	}
	mutex_unlock(&kpt_probes_mutex);
}

/* error_log: the last refused specs, as ftrace prints its own. */
void kpt_errors_show(struct seq_file *m)
{
	struct kpt_error *e;
	unsigned int i, n;
	int col;

	mutex_lock(&kpt_probes_mutex);
	n = min_t(unsigned int, kpt_errlog_next, KPT_ERRLOG_LEN);
	for (i = kpt_errlog_next - n; i != kpt_errlog_next; i++) {
		e = &kpt_errlog[i % KPT_ERRLOG_LEN];
		seq_printf(m, "[%5llu.%06llu] kptrace: error: %s (%d)\n",
			   e->ts / NSEC_PER_SEC,
			   (e->ts % NSEC_PER_SEC) / NSEC_PER_USEC, e->msg,
			   e->err);
		col = kpt_error_escape(e, 0);
		seq_printf(m, "  Command: %s\n", kpt_errline);
		if (col >= 0)
			seq_printf(m, "           %*s^\n", col, "");
	}
	mutex_unlock(&kpt_probes_mutex);
}
