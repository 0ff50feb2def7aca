// SPDX-License-Identifier: GPL-2.0
/*
 * kptrace: aggregations (a spec's hist: part), summed in the kernel and
 * read as text from /sys/kernel/debug/kptrace/hist/NAME, in the format of
 * ftrace's hist files.
 *
 * Concurrency contract
 * --------------------
 * An aggregation has two sets of per-CPU tables; handlers add to the live
 * set, the other one holds the interval a clear ended. Memory is fixed
 * when the probe is made: nothing is allocated in a handler.
 *
 * Writers: the probe handlers, in any context (NMI included), with
 * preemption disabled, each on its own CPU's table of the live set
 * (kpt_hist_here()); nobody else writes a table in use. A table's books
 * (hits, filtered, dropped) are local64_t, counted with one instruction
 * each. Its entries change only inside kpt_hist_add(), which marks the
 * table busy first: a handler that interrupts another (an NMI) on the
 * same CPU finds it busy and counts the hit as dropped.nested instead of
 * touching a half-written entry. An entry is published by a release store
 * of its hash, after its key and first values; its key never changes
 * after, its counts only grow (WRITE_ONCE, whole words).
 *
 * Readers (process context, under kpt_hist::lock): kpt_hist_collect()
 * takes entries whose hash it loads with acquire, so their keys are
 * whole. Counts of the live set may be a hit behind, as any live counter.
 *
 * Clear (kpt_hist_clear(), under kpt_hist::lock): zero the other set (no
 * handler has written it since the previous clear's grace period), make
 * it live, then synchronize_rcu(): every handler that still saw the old
 * set live has finished, so the old set is final, and every hit is in
 * exactly one interval. Its books are added to kpt_hist::gone, so that
 * probe_stats counts from the probe's creation.
 *
 * Lifetime: a hist belongs to its probe. Its file goes when the probe is
 * deleted (debugfs_remove() waits for the file's readers, and later calls
 * fail with -EIO), and its tables with it, once unregistering the probe
 * has seen every handler finish.
 */
#include <linux/kernel.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kallsyms.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <uapi/kptrace.h>
#include <uapi/kptrace_record.h>
#include "hide.h"
#include "hist.h"

static struct dentry *kpt_hist_dir;

const char * const kpt_hist_drop_names[KPT_HD_NR] = KPT_HIST_DROP_NAMES;
static_assert(sizeof((const char * const[])KPT_HIST_DROP_NAMES) ==
	      sizeof(kpt_hist_drop_names));

/* Key words of a key field. */
static unsigned int kpt_hist_key_width(const struct kpt_spec *spec,
				       unsigned int field)
{
	if (field == KPT_CF_STACKTRACE)
		return KPT_HIST_STACK_DEPTH;
	if (field == KPT_CF_COMM)
		return KPT_COMM_LEN / 8;
	if (field < KPT_CF_RETVAL && kpt_type_is_string(spec->args[field].type))
		return KPT_HIST_STR_WORDS;
	return 1;
}

static struct kpt_hist_table **kpt_hist_slot(struct kpt_hist *h,
					     unsigned int set,
					     unsigned int cpu)
{
	return &h->tables[cpu * 2 + set];
}

/* One CPU's table of @size entries of @stride words (as kpt_hist_new()). */
static size_t kpt_hist_table_bytes(unsigned int stride, unsigned int size)
{
	return sizeof(struct kpt_hist_table) +
	       (size_t)roundup_pow_of_two(size) * 2 * stride * sizeof(u64);
}

/* The words of an entry of @spec's aggregation. */
static unsigned int kpt_hist_stride(const struct kpt_spec *spec)
{
	const struct kpt_hist_spec *hs = &spec->hist;
	unsigned int i, words = KPT_HIST_E_VALS + 3 * hs->nvals;

	for (i = 0; i < hs->nkeys; i++)
		words += kpt_hist_key_width(spec, hs->keys[i].field);
	return words;
}

/**
 * kpt_hist_bytes() - what @spec's aggregation allocates: two sets of a
 * table per possible CPU
 * @spec: with spec->hist.nkeys != 0
 */
u64 kpt_hist_bytes(const struct kpt_spec *spec)
{
	return (u64)kpt_hist_table_bytes(kpt_hist_stride(spec),
					 spec->hist.size) *
	       2 * num_possible_cpus();
}

/**
 * kpt_hist_check() - can @spec's aggregation be made? 0, or -E2BIG with
 * the reason in *@why: one hist's tables stay under KPT_HIST_MEM_MAX
 * @spec: with spec->hist.nkeys != 0
 * @why: set to the reason on an error
 */
int kpt_hist_check(const struct kpt_spec *spec, const char **why)
{
	if (kpt_hist_bytes(spec) <= KPT_HIST_MEM_MAX)
		return 0;
	*why = "hist: 2 sets x CPUs x size= entries over 256 MiB; give a smaller size=";
	return -E2BIG;
}

/**
 * kpt_hist_fit_size() - the default size= for @spec on this machine
 * @spec: with spec->hist.nkeys != 0
 * @budget: bytes left under mem_max_mb
 *
 * KPT_HIST_SIZE_DEF entries per CPU, halved (down to 16) while the tables
 * of every possible CPU would take more than KPT_HIST_MEM_MAX or @budget:
 * so that a hist without size= works on a machine of 512 CPUs too.
 */
unsigned int kpt_hist_fit_size(const struct kpt_spec *spec, u64 budget)
{
	unsigned int stride = kpt_hist_stride(spec), size = KPT_HIST_SIZE_DEF;

	budget = min_t(u64, budget, KPT_HIST_MEM_MAX);
	while (size > 16 && (u64)kpt_hist_table_bytes(stride, size) * 2 *
			    num_possible_cpus() > budget)
		size /= 2;
	return size;
}

/**
 * kpt_hist_new() - the aggregation of a parsed spec, its tables allocated
 * @spec: with spec->hist.nkeys != 0, kpt_hist_check()ed; kept, not copied
 * @why: set to the reason on an error
 *
 * Process context. Returns the hist or an ERR_PTR().
 */
struct kpt_hist *kpt_hist_new(const struct kpt_spec *spec, const char **why)
{
	const struct kpt_hist_spec *hs = &spec->hist;
	unsigned int i, set, cpu, slots;
	struct kpt_hist *h;

	h = kzalloc(sizeof(*h), GFP_KERNEL);
	if (!h)
		return ERR_PTR(-ENOMEM);
	h->spec = spec;
	mutex_init(&h->lock);
	seqcount_init(&h->gone_seq);
	h->seed = get_random_u64();
	for (i = 0; i < hs->nkeys; i++) {
		h->key_off[i] = h->key_words;
		h->key_words += kpt_hist_key_width(spec, hs->keys[i].field);
	}
	h->one_number = hs->nkeys == 1 && h->key_words == 1;
	/* the parser takes each key once, so this holds */
	if (WARN_ON_ONCE(h->key_words > KPT_HIST_KEY_MAX)) {
		*why = "hist: the keys are too wide";
		kfree(h);
		return ERR_PTR(-EINVAL);
	}
	for (i = 0; i < hs->nvals; i++)
		if (kpt_field_signed(spec, hs->vals[i].field))
			h->val_signed |= 1U << i;
	h->nvals = hs->nvals;
	h->val_words = 3 * hs->nvals;
	h->stride = KPT_HIST_E_VALS + h->val_words + h->key_words;
	/* half the slots free at most: short probe sequences */
	h->capacity = hs->size;
	slots = roundup_pow_of_two(hs->size) * 2;
	h->mask = slots - 1;
	h->table_bytes = kpt_hist_table_bytes(h->stride, hs->size);
	h->tables = kcalloc(2 * nr_cpu_ids, sizeof(*h->tables), GFP_KERNEL);
	if (!h->tables)
		goto nomem;
	for (set = 0; set < 2; set++) {
		for_each_possible_cpu(cpu) {
			*kpt_hist_slot(h, set, cpu) =
				vzalloc_node(h->table_bytes, cpu_to_node(cpu));
			if (!*kpt_hist_slot(h, set, cpu))
				goto nomem;
		}
	}
	return h;
nomem:
	*why = "no memory for the hist tables";
	kpt_hist_free(h);
	return ERR_PTR(-ENOMEM);
}

/* Any context but NMI (an RCU callback frees probes). */
void kpt_hist_free(struct kpt_hist *h)
{
	unsigned int i;

	if (!h)
		return;
	if (h->tables)
		for (i = 0; i < 2 * nr_cpu_ids; i++)
			vfree(h->tables[i]);
	kfree(h->tables);
	mutex_destroy(&h->lock);
	kfree(h);
}

/* The books of @set: hits, filtered, aggregated, then dropped by cause. */
enum { KPT_HB_HITS, KPT_HB_FILTERED, KPT_HB_AGG, KPT_HB_DROP };
#define KPT_HB_NR	(KPT_HB_DROP + KPT_HD_NR)

static void kpt_hist_books(struct kpt_hist *h, unsigned int set, u64 *b)
{
	struct kpt_hist_table *t;
	unsigned int cpu, d;

	memset(b, 0, sizeof(u64) * KPT_HB_NR);
	for_each_possible_cpu(cpu) {
		t = *kpt_hist_slot(h, set, cpu);
		b[KPT_HB_FILTERED] += local64_read(&t->filtered);
		b[KPT_HB_AGG] += local64_read(&t->aggregated);
		for (d = 0; d < KPT_HD_NR; d++)
			b[KPT_HB_DROP + d] += local64_read(&t->dropped[d]);
	}
	/*
	 * Hits last: a handler counts its hit before its outcome, so a live
	 * table's Hits is then never behind Aggregated + Filtered + Dropped
	 * (x86 orders the loads; pairs with the handler's program order).
	 */
	smp_rmb();
	for_each_possible_cpu(cpu)
		b[KPT_HB_HITS] += local64_read(&(*kpt_hist_slot(h, set, cpu))->hits);
}

/**
 * kpt_hist_stats() - the books since the probe was made, for probe_stats
 * @h: the aggregation
 * @m: where to print " agg_hits=... " and the rest
 *
 * Without kpt_hist::lock (a clear may hold it through a grace period):
 * gone, and both sets, under gone_seq.
 */
void kpt_hist_stats(struct kpt_hist *h, struct seq_file *m)
{
	u64 b[KPT_HB_NR], l[KPT_HB_NR], o[KPT_HB_NR];
	unsigned int i, seq;

	do {
		seq = read_seqcount_begin(&h->gone_seq);
		memcpy(b, h->gone, sizeof(b));
		kpt_hist_books(h, 0, l);
		kpt_hist_books(h, 1, o);
	} while (read_seqcount_retry(&h->gone_seq, seq));
	for (i = 0; i < KPT_HB_NR; i++)
		b[i] += l[i] + o[i];
	seq_printf(m, " agg_hits=%llu agg_filtered=%llu aggregated=%llu",
		   b[KPT_HB_HITS], b[KPT_HB_FILTERED], b[KPT_HB_AGG]);
	for (i = 0; i < KPT_HD_NR; i++)
		seq_printf(m, " agg_%s=%llu", kpt_hist_drop_names[i],
			   b[KPT_HB_DROP + i]);
}

static void kpt_hist_zero_books(struct kpt_hist_table *t)
{
	unsigned int d;

	local64_set(&t->hits, 0);
	local64_set(&t->aggregated, 0);
	local64_set(&t->filtered, 0);
	for (d = 0; d < KPT_HD_NR; d++)
		local64_set(&t->dropped[d], 0);
}

/*
 * Swap the sets; the old live one is final when this returns. The set made
 * live was the last interval: its books go to gone, in the same
 * gone_seq section as its zeroing, so that probe_stats counts each once.
 */
static void kpt_hist_clear(struct kpt_hist *h)
{
	unsigned int old = h->live, cpu, i;
	u64 b[KPT_HB_NR];

	lockdep_assert_held(&h->lock);
	/* no handler writes the other set (the last clear's grace period) */
	kpt_hist_books(h, !old, b);
	preempt_disable();	/* a writer section may not be preempted */
	write_seqcount_begin(&h->gone_seq);
	for (i = 0; i < KPT_HB_NR; i++)
		h->gone[i] += b[i];
	for_each_possible_cpu(cpu)
		kpt_hist_zero_books(*kpt_hist_slot(h, !old, cpu));
	write_seqcount_end(&h->gone_seq);
	preempt_enable();
	for_each_possible_cpu(cpu)
		memset(*kpt_hist_slot(h, !old, cpu), 0, h->table_bytes);
	/* Pairs with READ_ONCE() in kpt_hist_here(): zeroes before */
	smp_store_release(&h->live, !old);
	synchronize_rcu();
	h->gen++;
}

/* The merged rows of a set, each h->stride words as in the tables. */
struct kpt_hist_rows {
	u64		*rows;
	unsigned int	nr;
	/* how the rows sort, for kpt_hist_cmp() */
	unsigned int	stride, key_at, key_words, sort_at;
	unsigned int	sort_bytes;	/* a comm or string key: its width */
	bool		sort_signed, descending;
};

/*
 * The row a key is merged into: open addressing over row indexes. A new
 * key gets a row (a copy of @e) while there is room, and NULL is returned.
 */
static u64 *kpt_hist_merge_slot(struct kpt_hist *h, struct kpt_hist_rows *r,
				unsigned int *index, unsigned int imask,
				unsigned int room, const u64 *e)
{
	const u64 *key = &e[KPT_HIST_E_VALS + h->val_words];
	unsigned int i = e[KPT_HIST_E_HASH] & imask;
	u64 *row;

	for (;; i = (i + 1) & imask) {
		if (!index[i]) {
			if (r->nr == room)
				return NULL;	/* came since the count */
			row = &r->rows[(size_t)r->nr * h->stride];
			memcpy(row, e, h->stride * sizeof(u64));
			index[i] = ++r->nr;
			return NULL;
		}
		row = &r->rows[(size_t)(index[i] - 1) * h->stride];
		if (row[KPT_HIST_E_HASH] == e[KPT_HIST_E_HASH] &&
		    !memcmp(&row[r->key_at], key, h->key_words * 8))
			return row;
	}
}

static void kpt_hist_merge(struct kpt_hist *h, u64 *row, const u64 *e)
{
	unsigned int i, nvals = h->nvals;
	const u64 *s = &e[KPT_HIST_E_VALS];
	u64 *d = &row[KPT_HIST_E_VALS];

	row[KPT_HIST_E_COUNT] += e[KPT_HIST_E_COUNT];
	for (i = 0; i < nvals; i++, s += 3, d += 3) {
		d[0] += s[0];
		if (h->val_signed & 1U << i) {
			d[1] = min_t(s64, d[1], s[1]);
			d[2] = max_t(s64, d[2], s[2]);
		} else {
			d[1] = min(d[1], s[1]);
			d[2] = max(d[2], s[2]);
		}
	}
}

/*
 * The entries of every CPU's table of @set, same keys merged. A live set
 * gets room for a quarter more keys than it had when counted: a key that
 * still comes in after that is left out of this read (its hits are in
 * Aggregated and it shows in the next read).
 */
static int kpt_hist_collect(struct kpt_hist *h, unsigned int set, bool live,
			    struct kpt_hist_rows *r)
{
	unsigned int cpu, i, w, n = 0, imask, *index;
	struct kpt_hist_table *t;
	u64 *e, *row, *src, hash;

	for_each_possible_cpu(cpu)
		n += READ_ONCE((*kpt_hist_slot(h, set, cpu))->used);
	if (live)
		n += n / 4 + 16;
	r->nr = 0;
	r->stride = h->stride;
	r->key_at = KPT_HIST_E_VALS + h->val_words;
	r->key_words = h->key_words;
	r->rows = kvmalloc_array(max(n, 1U), h->stride * sizeof(u64),
				 GFP_KERNEL);
	imask = roundup_pow_of_two(max(2 * n, 2U)) - 1;
	index = kvcalloc(imask + 1, sizeof(*index), GFP_KERNEL);
	if (!r->rows || !index) {
		kvfree(r->rows);
		kvfree(index);
		return -ENOMEM;
	}
	e = kmalloc_array(h->stride, sizeof(u64), GFP_KERNEL);
	if (!e) {
		kvfree(r->rows);
		kvfree(index);
		return -ENOMEM;
	}
	for_each_possible_cpu(cpu) {
		t = *kpt_hist_slot(h, set, cpu);
		for (i = 0; i <= h->mask; i++) {
			src = &t->entries[(size_t)i * h->stride];
			/* Pairs with the release in kpt_hist_add() */
			hash = smp_load_acquire(&src[KPT_HIST_E_HASH]);
			if (!hash)
				continue;
			/* whole words: a handler may be adding to them */
			for (w = 0; w < h->stride; w++)
				e[w] = READ_ONCE(src[w]);
			e[KPT_HIST_E_HASH] = hash;
			row = kpt_hist_merge_slot(h, r, index, imask, n, e);
			if (row)
				kpt_hist_merge(h, row, e);
			if (!(i & 1023))
				cond_resched();
		}
	}
	kfree(e);
	kvfree(index);
	return 0;
}

static int kpt_hist_cmp(const void *a, const void *b, const void *priv)
{
	const struct kpt_hist_rows *r = priv;
	const u64 *x = a, *y = b;
	u64 vx = x[r->sort_at], vy = y[r->sort_at];
	int c = 0;

	if (r->sort_bytes)	/* a string as a string: bytes, NUL-padded */
		c = memcmp(&x[r->sort_at], &y[r->sort_at], r->sort_bytes);
	else if (vx != vy && r->sort_signed)
		c = (s64)vx < (s64)vy ? -1 : 1;
	else if (vx != vy)
		c = vx < vy ? -1 : 1;
	/* equal: by key, so that the order is always the same */
	if (!c)
		c = memcmp(&x[r->key_at], &y[r->key_at], r->key_words * 8);
	return r->descending ? -c : c;
}

static void kpt_hist_sort(struct kpt_hist *h, struct kpt_hist_rows *r)
{
	const struct kpt_hist_spec *hs = &h->spec->hist;
	unsigned int field;

	if (hs->sort == KPT_HIST_SORT_HITCOUNT) {
		r->sort_at = KPT_HIST_E_COUNT;
	} else if (hs->sort < KPT_HIST_SORT_VAL) {
		field = hs->keys[hs->sort - KPT_HIST_SORT_KEY].field;
		r->sort_at = r->key_at + h->key_off[hs->sort - KPT_HIST_SORT_KEY];
		r->sort_signed = kpt_field_signed(h->spec, field);
		if (field == KPT_CF_COMM ||
		    (field < KPT_CF_RETVAL &&
		     kpt_type_is_string(h->spec->args[field].type)))
			r->sort_bytes = 8 * kpt_hist_key_width(h->spec, field);
	} else {
		field = hs->vals[hs->sort - KPT_HIST_SORT_VAL].field;
		r->sort_at = KPT_HIST_E_VALS + 3 * (hs->sort - KPT_HIST_SORT_VAL);
		r->sort_signed = kpt_field_signed(h->spec, field);
	}
	r->descending = hs->descending;
	/* NULL: the library's swap (its type changed in v6.2) */
	sort_r(r->rows, r->nr, r->stride * sizeof(u64), kpt_hist_cmp, NULL, r);
}

/* The text of a hist file, grown as it is written. */
struct kpt_hist_text {
	char	*buf;
	size_t	len, size;
	int	err;
};

static __printf(2, 3) void kpt_hist_printf(struct kpt_hist_text *t,
					   const char *fmt, ...)
{
	va_list ap;
	size_t need;
	char *nbuf;
	int n;

	if (t->err)
		return;
	va_start(ap, fmt);
	n = vsnprintf(t->buf + t->len, t->size - t->len, fmt, ap);
	va_end(ap);
	if (t->len + n < t->size) {
		t->len += n;
		return;
	}
	need = max(2 * t->size, t->len + n + 1);
	nbuf = kvmalloc(need, GFP_KERNEL);
	if (!nbuf) {
		t->err = -ENOMEM;
		return;
	}
	memcpy(nbuf, t->buf, t->len);
	kvfree(t->buf);
	t->buf = nbuf;
	t->size = need;
	va_start(ap, fmt);
	t->len += vsnprintf(t->buf + t->len, t->size - t->len, fmt, ap);
	va_end(ap);
}

/*
 * A comm or string key: what kpt_byte_escaped() says (the one rule for
 * untrusted text, uapi/kptrace_record.h), and space , { }, as \xHH, so
 * that the tool can split the line at ", " and " }".
 */
static void kpt_hist_put_str(struct kpt_hist_text *t, const u64 *words,
			     unsigned int len, int width)
{
	const unsigned char *s = (const unsigned char *)words;
	unsigned int i;
	int n = 0;

	for (i = 0; i < len && s[i]; i++) {
		if (kpt_byte_escaped(s[i]) || strchr(" ,{}", s[i])) {
			kpt_hist_printf(t, "\\x%02x", s[i]);
			n += 4;
		} else {
			kpt_hist_printf(t, "%c", s[i]);
			n++;
		}
	}
	if (n < width)
		kpt_hist_printf(t, "%*s", width - n, "");
}

/*
 * A .buckets=@n key: the range from its bucket @v, as "~ LO-HI", signed
 * for a signed field ("~ -10--1"); HI saturates at S64_MAX (U64_MAX): the
 * key holds the value as 64 bits, whatever the field's width.
 */
static void kpt_hist_put_range(struct kpt_hist_text *t, u64 v, u32 n,
			       bool is_signed)
{
	s64 lo = v;
	u64 r = S64_MAX;

	/*
	 * The lowest bucket is cut at S64_MIN (kpt_hist_bucket_neg()): it
	 * ends before the next multiple of @n, not n - 1 past S64_MIN.
	 */
	if (is_signed && lo == S64_MIN)
		kpt_hist_printf(t, "~ %lld-%lld", lo, lo + (s64)do_div(r, n));
	else if (is_signed)
		kpt_hist_printf(t, "~ %lld-%lld", lo,
				lo > S64_MAX - (n - 1) ? S64_MAX :
				lo + (n - 1));
	else
		kpt_hist_printf(t, "~ %llu-%llu", v,
				v > U64_MAX - (n - 1) ? U64_MAX : v + (n - 1));
}

/*
 * What a reader that may not see kernel addresses (see hide.c) gets of key
 * @k of a row: no stack, no symbol, numbers that are addresses as 0. Key
 * words @w of a number are edited in place (a stack's are not). Returns
 * true when the key shows as "(hidden)": a stack, and a symbol or a bucket
 * (its range would give the address away, or print as a bucket of 0 that
 * is not); a plain number shows as the 0 it now is. The one rule of the
 * text (kpt_hist_put_key()) and the binary form (kpt_hist_blob()).
 */
static bool kpt_hist_hide_key(struct kpt_hist *h, unsigned int k, u64 *w)
{
	const struct kpt_hist_field *hf = &h->spec->hist.keys[k];
	unsigned int type = KPT_T_U64;

	if (hf->field == KPT_CF_STACKTRACE)
		return true;
	if (hf->field == KPT_CF_COMM)
		return false;
	if (hf->field < KPT_CF_RETVAL)
		type = h->spec->args[hf->field].type;
	if (kpt_type_is_string(type))
		return false;
	return kpt_hide_value(w) &&
	       (type == KPT_T_SYMBOL || hf->mod != KPT_HM_NONE);
}

/* A key of the row. @hide: as kpt_hist_hide_key() says. */
static void kpt_hist_put_key(struct kpt_hist *h, struct kpt_hist_text *t,
			     unsigned int k, const u64 *key, bool hide)
{
	const struct kpt_hist_field *hf = &h->spec->hist.keys[k];
	const u64 *w = &key[h->key_off[k]];
	unsigned int i, type = KPT_T_U64;
	u64 v = w[0];

	kpt_hist_printf(t, "%s%s:%s", k ? ", " : "",
			kpt_spec_field_name(h->spec, hf->field),
			hf->field == KPT_CF_STACKTRACE ? "" : " ");
	if (hf->field < KPT_CF_RETVAL)
		type = h->spec->args[hf->field].type;
	if (hide && kpt_hist_hide_key(h, k, &v)) {
		if (hf->field == KPT_CF_STACKTRACE)
			kpt_hist_printf(t, "\n%*c(hidden)\n", 9, ' ');
		else
			kpt_hist_printf(t, "(hidden)");
		return;
	}
	if (hf->field == KPT_CF_STACKTRACE) {
		/* the probed address, then return addresses (as %pB) */
		kpt_hist_printf(t, "\n");
		for (i = 0; i < KPT_HIST_STACK_DEPTH && w[i]; i++)
			kpt_hist_printf(t, i ? "%*c%pB\n" : "%*c%pS\n", 9, ' ',
					(void *)(unsigned long)w[i]);
		return;
	}
	if (hf->field == KPT_CF_COMM) {
		kpt_hist_put_str(t, w, KPT_COMM_LEN, 16);
		return;
	}
	if (kpt_type_is_string(type)) {
		kpt_hist_put_str(t, w, KPT_HIST_STR_LEN, 32);
		return;
	}
	switch (hf->mod) {
	case KPT_HM_LOG2:
		kpt_hist_printf(t, "~ 2^%-2llu", v);
		return;
	case KPT_HM_BUCKETS:
		kpt_hist_put_range(t, v, hf->buckets, hf->is_signed);
		return;
	case KPT_HM_LOGLIN:
		i = v < (1U << KPT_HIST_SUB_BITS) ? 0 :
		    fls64(v) - 1 - KPT_HIST_SUB_BITS;
		kpt_hist_printf(t, "~ %llu-%llu", v,
				v + (1ULL << i) - 1);
		return;
	case KPT_HM_HEX:
		kpt_hist_printf(t, "0x%llx", v);
		return;
	}
	if (type == KPT_T_SYMBOL)
		kpt_hist_printf(t, "%pS", (void *)(unsigned long)v);
	else if (type >= KPT_T_X8 && type <= KPT_T_X64)
		kpt_hist_printf(t, "0x%llx", v);
	else if (kpt_field_signed(h->spec, hf->field))
		kpt_hist_printf(t, "%10lld", (s64)v);
	else
		kpt_hist_printf(t, "%10llu", v);
}

static void kpt_hist_put_row(struct kpt_hist *h, struct kpt_hist_text *t,
			     const u64 *row, bool hide)
{
	const struct kpt_hist_spec *hs = &h->spec->hist;
	const u64 *key = &row[KPT_HIST_E_VALS + h->val_words];
	const char *name;
	u64 s[3];
	unsigned int k;

	kpt_hist_printf(t, "{ ");
	for (k = 0; k < hs->nkeys; k++)
		kpt_hist_put_key(h, t, k, key, hide);
	/* after a stack's frames: "} hitcount" on a line of its own */
	kpt_hist_printf(t, "%s} hitcount: %10llu",
			hs->keys[hs->nkeys - 1].field == KPT_CF_STACKTRACE ?
			"" : " ", row[KPT_HIST_E_COUNT]);
	for (k = 0; k < hs->nvals; k++) {
		name = kpt_spec_field_name(h->spec, hs->vals[k].field);
		memcpy(s, &row[KPT_HIST_E_VALS + 3 * k], sizeof(s));
		/* a sum of addresses gives them away too */
		if (hide && kpt_hide_range(s[1], s[2], h->val_signed & 1U << k))
			memset(s, 0, sizeof(s));
		if (h->val_signed & 1U << k)
			kpt_hist_printf(t, "  %s: %10lld  %s.min: %10lld  %s.max: %10lld",
					name, (s64)s[0], name, (s64)s[1],
					name, (s64)s[2]);
		else
			kpt_hist_printf(t, "  %s: %10llu  %s.min: %10llu  %s.max: %10llu",
					name, s[0], name, s[1], name, s[2]);
	}
	kpt_hist_printf(t, "\n");
}

/* The whole file: header, entries, Totals. */
static int kpt_hist_render(struct kpt_hist *h, const char *name,
			   unsigned int set, bool live, bool hide,
			   struct kpt_hist_text *t)
{
	struct kpt_hist_rows r = {};
	u64 b[KPT_HB_NR], dropped = 0;
	char *line;
	unsigned int i;
	int ret;

	line = kmalloc(KPT_SPEC_LINE_MAX, GFP_KERNEL);
	if (!line)
		return -ENOMEM;
	ret = kpt_hist_collect(h, set, live, &r);
	if (ret) {
		kfree(line);
		return ret;
	}
	/* after the entries: a live table's Hits are never behind them */
	kpt_hist_books(h, set, b);
	kpt_hist_sort(h, &r);

	kpt_hist_printf(t, "# kptrace hist: %s\n", name);
	kpt_spec_print(h->spec, hide, line, KPT_SPEC_LINE_MAX);
	kpt_hist_printf(t, "# probe: %s\n", line);
	kpt_hist_print(h->spec, line, KPT_SPEC_LINE_MAX);
	kpt_hist_printf(t, "# trigger info: %s [active]\n", line);
	kpt_hist_printf(t, "# memory: %zu kB\n",
			h->table_bytes * 2 * num_possible_cpus() / 1024);
	kpt_hist_printf(t, "# table: %s\n", live ? "live" :
			"the interval the last clear ended");
	kpt_hist_printf(t, "#\n\n");
	for (i = 0; i < r.nr; i++) {
		kpt_hist_put_row(h, t, &r.rows[(size_t)i * h->stride], hide);
		if (!(i & 1023))
			cond_resched();
	}
	for (i = 0; i < KPT_HD_NR; i++)
		dropped += b[KPT_HB_DROP + i];
	kpt_hist_printf(t, "\nTotals:\n    Hits: %llu\n    Entries: %u\n",
			b[KPT_HB_HITS], r.nr);
	kpt_hist_printf(t, "    Aggregated: %llu\n    Filtered: %llu\n",
			b[KPT_HB_AGG], b[KPT_HB_FILTERED]);
	kpt_hist_printf(t, "    Dropped: %llu\n", dropped);
	for (i = 0; i < KPT_HD_NR; i++)
		kpt_hist_printf(t, "    Dropped %s: %llu\n",
				kpt_hist_drop_names[i], b[KPT_HB_DROP + i]);
	kvfree(r.rows);
	kfree(line);
	return t->err;
}

/*
 * The binary form of a set (uapi/kptrace.h, KPT_IOC_HIST), in a kernel
 * buffer: the same rows, order, books and hidden keys as
 * kpt_hist_render(). Under h->lock.
 */
static int kpt_hist_blob_set(struct kpt_hist *h, unsigned int set, bool live,
			     bool hide, void **out, size_t *len)
{
	const struct kpt_hist_spec *hs = &h->spec->hist;
	struct kpt_hist_rows r = {};
	struct kpt_hist_hdr *hdr;
	size_t spec_size, size;
	u64 b[KPT_HB_NR], *row, *dst;
	unsigned int i, k;
	char *line;
	void *blob;

	BUILD_BUG_ON(sizeof(struct kpt_hist_hdr) % 8);
	BUILD_BUG_ON(KPT_HIST_KEYS < KPT_HIST_MAX_KEYS);
	BUILD_BUG_ON(KPT_HIST_MAX_VALS > 16);	/* KPT_HIST_E_VAL_HIDDEN() */
	line = kmalloc(KPT_SPEC_LINE_MAX, GFP_KERNEL);
	if (!line)
		return -ENOMEM;
	kpt_spec_print(h->spec, hide, line, KPT_SPEC_LINE_MAX);
	spec_size = ALIGN(strlen(line) + 1, 8);
	if (kpt_hist_collect(h, set, live, &r)) {
		kfree(line);
		return -ENOMEM;
	}
	/* after the entries: a live table's Hits are never behind them */
	kpt_hist_books(h, set, b);
	kpt_hist_sort(h, &r);
	/* r.nr rows of the tables' stride: bounded by their memory */
	size = sizeof(*hdr) + spec_size + (size_t)r.nr * h->stride * 8;
	blob = kvzalloc(size, GFP_KERNEL);
	if (!blob) {
		kvfree(r.rows);
		kfree(line);
		return -ENOMEM;
	}
	hdr = blob;
	hdr->magic = KPT_HIST_MAGIC;
	hdr->version = KPT_HIST_VERSION;
	hdr->hdr_size = sizeof(*hdr);
	hdr->size = size;
	hdr->flags = (live ? KPT_HIST_F_LIVE : KPT_HIST_F_ENDED) |
		     (hide ? KPT_HIST_F_ADDR_HIDDEN : 0);
	hdr->gen = h->gen;
	hdr->spec_size = spec_size;
	hdr->nr_entries = r.nr;
	hdr->entry_words = h->stride;
	hdr->nvals = h->nvals;
	hdr->nkeys = hs->nkeys;
	for (k = 0; k < hs->nkeys; k++)
		hdr->key_words[k] = (k + 1 < hs->nkeys ? h->key_off[k + 1] :
				     h->key_words) - h->key_off[k];
	hdr->hits = b[KPT_HB_HITS];
	hdr->aggregated = b[KPT_HB_AGG];
	hdr->filtered = b[KPT_HB_FILTERED];
	for (i = 0; i < KPT_HD_NR; i++)
		hdr->dropped[i] = b[KPT_HB_DROP + i];
	memcpy(blob + sizeof(*hdr), line, strlen(line));
	dst = blob + sizeof(*hdr) + spec_size;
	for (i = 0; i < r.nr; i++, dst += h->stride) {
		row = &r.rows[(size_t)i * h->stride];
		memcpy(dst, row, h->stride * 8);
		/* word 0, the hash, becomes what was hidden */
		dst[0] = 0;
		for (k = 0; hide && k < hs->nkeys; k++) {
			u64 *w = &dst[r.key_at + h->key_off[k]];

			if (!kpt_hist_hide_key(h, k, w))
				continue;
			dst[0] |= KPT_HIST_E_KEY_HIDDEN(k);
			if (hs->keys[k].field == KPT_CF_STACKTRACE)
				memset(w, 0, hdr->key_words[k] * 8);
		}
		for (k = 0; hide && k < h->nvals; k++) {
			u64 *v = &dst[KPT_HIST_E_VALS + 3 * k];

			/* as kpt_hist_put_row() */
			if (kpt_hide_range(v[1], v[2], h->val_signed & 1U << k)) {
				memset(v, 0, 3 * sizeof(u64));
				dst[0] |= KPT_HIST_E_VAL_HIDDEN(k);
			}
		}
		if (!(i & 1023))
			cond_resched();
	}
	kvfree(r.rows);
	kfree(line);
	*out = blob;
	*len = size;
	return 0;
}

/**
 * kpt_hist_blob() - an aggregation in binary, for KPT_IOC_HIST
 * @h: the aggregation; its probe held (kpt_probes_mutex)
 * @flags: KPT_HIST_REQ_*: the live set, a clear and the set it ended, or
 *	the set the clear of generation *@gen ended
 * @gen: in for KPT_HIST_REQ_ENDED, out: the generation read
 * @hide: the reader may not see kernel addresses
 * @out: the table, kvfree() it
 * @len: its bytes
 *
 * Process context. Returns 0, -ESTALE when another clear reused the set
 * asked for, -EINVAL for a bad @flags, or -ENOMEM.
 */
int kpt_hist_blob(struct kpt_hist *h, u32 flags, u32 *gen, bool hide,
		  void **out, size_t *len)
{
	unsigned int set;
	int ret;

	if (flags & ~(KPT_HIST_REQ_CLEAR | KPT_HIST_REQ_ENDED) ||
	    flags == (KPT_HIST_REQ_CLEAR | KPT_HIST_REQ_ENDED))
		return -EINVAL;
	if (mutex_lock_interruptible(&h->lock))
		return -ERESTARTSYS;
	if (flags & KPT_HIST_REQ_CLEAR) {
		set = h->live;
		kpt_hist_clear(h);
	} else if (flags & KPT_HIST_REQ_ENDED) {
		/* the set a clear swapped out, until the next clear */
		ret = !*gen ? -EINVAL : *gen != h->gen ? -ESTALE : 0;
		if (ret) {
			mutex_unlock(&h->lock);
			return ret;
		}
		set = !h->live;
	} else {
		set = h->live;
	}
	ret = kpt_hist_blob_set(h, set, !flags, hide, out, len);
	*gen = h->gen;
	mutex_unlock(&h->lock);
	return ret;
}

/* One open file: its text, and which set it shows. */
struct kpt_hist_file {
	struct mutex		lock;	/* its text: pread() is not serialized */
	struct kpt_hist		*h;
	const char		*name;
	struct kpt_hist_text	text;
	bool			cleared;	/* shows the set it swapped out */
	bool			hide;		/* kernel addresses hidden */
	unsigned int		set, gen;
};

static int kpt_hist_open(struct inode *inode, struct file *file)
{
	struct kpt_hist_file *f;
	int ret;

	ret = kpt_records_open_check();
	if (ret)
		return ret;

	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	mutex_init(&f->lock);
	f->h = inode->i_private;
	f->name = file->f_path.dentry->d_name.name;
	f->hide = !kpt_addrs_visible();
	file->private_data = f;
	return 0;
}

static int kpt_hist_release(struct inode *inode, struct file *file)
{
	struct kpt_hist_file *f = file->private_data;

	/* not f->h: its probe may be gone (debugfs still calls release) */
	kvfree(f->text.buf);
	mutex_destroy(&f->lock);
	kfree(f);
	return 0;
}

/*
 * The file is made "unsafe" (no debugfs proxy): only the sections that
 * touch the tables hold it against removal, between kpt_hist_file_get()
 * and debugfs_file_put(), never a copy to or from user memory, which may
 * take as long as the user likes (a userfaultfd buffer) and would then
 * hold up -:NAME, which removes the file under kpt_probes_mutex. A file
 * whose probe is gone reads -EIO.
 */
static int kpt_hist_file_get(struct file *file)
{
	return debugfs_file_get(file->f_path.dentry) ? -EIO : 0;
}

static ssize_t kpt_hist_read(struct file *file, char __user *ubuf,
			     size_t len, loff_t *ppos)
{
	struct kpt_hist_file *f = file->private_data;
	struct kpt_hist *h = f->h;
	ssize_t ret;

	ret = kpt_records_read_check();
	if (ret)
		return ret;
	if (mutex_lock_interruptible(&f->lock))
		return -ERESTARTSYS;
	/* Each read from the start is a new snapshot. */
	if (*ppos == 0 || !f->text.buf) {
		kvfree(f->text.buf);
		memset(&f->text, 0, sizeof(f->text));
		ret = kpt_hist_file_get(file);
		if (!ret) {
			mutex_lock(&h->lock);
			if (f->cleared && f->gen != h->gen)
				ret = -ESTALE;	/* a clear reused that set */
			else
				ret = kpt_hist_render(h, f->name,
						      f->cleared ? f->set : h->live,
						      !f->cleared, f->hide,
						      &f->text);
			mutex_unlock(&h->lock);
			debugfs_file_put(file->f_path.dentry);
		}
		if (ret) {
			kvfree(f->text.buf);
			memset(&f->text, 0, sizeof(f->text));
		}
	}
	if (!ret)
		ret = simple_read_from_buffer(ubuf, len, ppos, f->text.buf,
					      f->text.len);
	mutex_unlock(&f->lock);
	return ret;
}

/*
 * "clear": start a new interval. This file then reads the one that ended
 * (its offset is back at 0); other opens read the live one.
 */
static ssize_t kpt_hist_write(struct file *file, const char __user *ubuf,
			      size_t len, loff_t *ppos)
{
	struct kpt_hist_file *f = file->private_data;
	struct kpt_hist *h = f->h;
	char cmd[8] = {};

	if (len > sizeof(cmd) - 1 || copy_from_user(cmd, ubuf, len) ||
	    strcmp(strim(cmd), "clear")) {
		pr_warn_ratelimited("hist %s: expected \"clear\"\n", f->name);
		return -EINVAL;
	}
	if (mutex_lock_interruptible(&f->lock))
		return -ERESTARTSYS;
	if (kpt_hist_file_get(file)) {
		mutex_unlock(&f->lock);
		return -EIO;
	}
	mutex_lock(&h->lock);
	f->set = h->live;
	kpt_hist_clear(h);
	f->gen = h->gen;
	f->cleared = true;
	mutex_unlock(&h->lock);
	debugfs_file_put(file->f_path.dentry);
	/* the next read, from the start, renders the interval that ended */
	kvfree(f->text.buf);
	memset(&f->text, 0, sizeof(f->text));
	*ppos = 0;
	mutex_unlock(&f->lock);
	return len;
}

/*
 * 0400 with a write: root may clear (DAC override) but lockdown, which
 * refuses debugfs files opened for writing, still allows reading.
 */
static const struct file_operations kpt_hist_fops = {
	.owner		= THIS_MODULE,
	.open		= kpt_hist_open,
	.read		= kpt_hist_read,
	.write		= kpt_hist_write,
	.llseek		= default_llseek,
	.release	= kpt_hist_release,
};

/**
 * kpt_hist_file_add() - hist/NAME for an aggregation, if debugfs is up
 * @h: the aggregation
 * @name: its probe's name
 *
 * Under kpt_probes_mutex. Returns 0, or -EEXIST when a probe of another
 * group has the name.
 */
int kpt_hist_file_add(struct kpt_hist *h, const char *name)
{
	struct dentry *d;

	if (!kpt_hist_dir || h->file)
		return 0;
	d = debugfs_create_file_unsafe(name, 0400, kpt_hist_dir, h,
				       &kpt_hist_fops);
	if (IS_ERR(d))
		return PTR_ERR(d) == -EEXIST ? -EEXIST : 0;
	h->file = d;
	return 0;
}

void kpt_hist_file_remove(struct kpt_hist *h)
{
	debugfs_remove(h->file);
	h->file = NULL;
}

/* Under kpt_probes_mutex, from kpt_debugfs_init() and _exit(). */
void kpt_hist_dir_set(struct dentry *dir)
{
	kpt_hist_dir = dir;
}
