/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kptrace: the writer half of the aggregation tables (hist:), inlined into
 * the probe handlers. The concurrency contract is written at the top of
 * hist.c, with the reader half.
 */
#ifndef _KPT_HIST_H
#define _KPT_HIST_H

#include <linux/compiler.h>
#include <linux/smp.h>
#include <linux/seqlock.h>
#include <linux/kprobes.h>
#include <linux/mutex.h>
#include <linux/string.h>
#include <asm/local64.h>
#include "spec.h"

struct dentry;
struct seq_file;

/* enum kpt_hist_drop, why a hit was dropped: uapi/kptrace.h */

/* Slots a lookup tries: a longer run of taken ones (a crafted key set) */
/* costs no handler more than this; the hit counts as table_full. */
#define KPT_HIST_PROBES		64

/* Key words: the most three keys can take (a stack and two strings). */
#define KPT_HIST_STR_WORDS	(KPT_HIST_STR_LEN / 8)
#define KPT_HIST_KEY_MAX	(KPT_HIST_STACK_DEPTH + 2 * KPT_HIST_STR_WORDS)

/*
 * One CPU's table of one set: these books, then 'slots' entries of
 * kpt_hist::stride bytes: hash (0: free), hitcount, sum/min/max per
 * value, the key words.
 */
struct kpt_hist_table {
	local64_t	hits;		/* = aggregated + filtered + dropped */
	local64_t	aggregated;	/* = the entries' hitcounts */
	local64_t	filtered;
	local64_t	dropped[KPT_HD_NR];
	unsigned int	used;		/* entries taken, at most capacity */
	unsigned int	busy;		/* a handler is in it: the scratch */
					/* below and the entries are its */
	/* A hit's scratch: no stack array (INIT_STACK_ALL_ZERO zeroes those) */
	u64		vals[KPT_SPEC_MAX_ARGS];	/* its fetchargs */
	u64		key[KPT_HIST_KEY_MAX];
	u64		v[KPT_HIST_MAX_VALS];
	u64		entries[];
};

#define KPT_HIST_E_HASH		0
#define KPT_HIST_E_COUNT	1
#define KPT_HIST_E_VALS		2	/* then sum, min, max per value */

struct kpt_hist {
	const struct kpt_spec	*spec;
	unsigned int		key_words;
	unsigned int		key_off[KPT_HIST_MAX_KEYS];	/* in words */
	unsigned int		val_words;	/* 3 per value */
	unsigned int		nvals;
	bool			one_number;	/* one key, a number */
	unsigned int		stride;		/* words per entry */
	unsigned int		mask;		/* slots - 1 */
	unsigned int		capacity;	/* entries per table */
	unsigned int		val_signed;	/* bit i: value i is signed */
	unsigned int		live;		/* the set handlers add to */
	unsigned int		gen;		/* clears so far */
	u64			seed;		/* of the hash, random */
	size_t			table_bytes;
	struct kpt_hist_table	**tables;	/* [cpu * 2 + set] */
	struct mutex		lock;		/* readers and clears */
	/* books of the sets zeroed since, for probe_stats */
	u64			gone[4 + KPT_HD_NR];
	seqcount_t		gone_seq;	/* gone vs. the zeroing */
	struct dentry		*file;
};

/* hist.c: made and freed with their probe (probe.c) */
struct kpt_hist *kpt_hist_new(const struct kpt_spec *spec, const char **why);
/* The most one aggregation's tables may take: 2 sets x CPUs x size= */
#define KPT_HIST_MEM_MAX	(256UL << 20)
u64 kpt_hist_bytes(const struct kpt_spec *spec);
int kpt_hist_check(const struct kpt_spec *spec, const char **why);
unsigned int kpt_hist_fit_size(const struct kpt_spec *spec, u64 budget);
void kpt_hist_free(struct kpt_hist *h);
void kpt_hist_stats(struct kpt_hist *h, struct seq_file *m);
int kpt_hist_blob(struct kpt_hist *h, u32 flags, u32 *gen, bool hide,
		  void **out, size_t *len);
int kpt_hist_file_add(struct kpt_hist *h, const char *name);
void kpt_hist_file_remove(struct kpt_hist *h);
void kpt_hist_dir_set(struct dentry *dir);

static inline bool kpt_hist_one_number(const struct kpt_hist *h)
{
	return h->one_number;
}

/* The table a handler on this CPU adds to. */
static nokprobe_inline struct kpt_hist_table *kpt_hist_here(struct kpt_hist *h)
{
	return h->tables[smp_processor_id() * 2 + READ_ONCE(h->live)];
}

static nokprobe_inline u64 kpt_hist_hash(u64 x, const u64 *key,
					 unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		x = (x ^ key[i]) * 0xff51afd7ed558ccdULL;
		x ^= x >> 32;
	}
	return x | 1ULL << 63;		/* never 0, the free mark */
}

static nokprobe_inline bool kpt_hist_key_eq(const u64 *a, const u64 *b,
					    unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

static nokprobe_inline void kpt_hist_fold(const struct kpt_hist *h, u64 *e,
					  const u64 *v, bool first)
{
	unsigned int i, nvals = h->nvals;
	u64 *s;

	for (i = 0; i < nvals; i++) {
		s = &e[KPT_HIST_E_VALS + 3 * i];
		if (first) {
			s[0] = v[i];
			s[1] = v[i];
			s[2] = v[i];
			continue;
		}
		WRITE_ONCE(s[0], s[0] + v[i]);
		if (h->val_signed & 1U << i) {
			if ((s64)v[i] < (s64)s[1])
				WRITE_ONCE(s[1], v[i]);
			if ((s64)v[i] > (s64)s[2])
				WRITE_ONCE(s[2], v[i]);
		} else {
			if (v[i] < s[1])
				WRITE_ONCE(s[1], v[i]);
			if (v[i] > s[2])
				WRITE_ONCE(s[2], v[i]);
		}
	}
}

/*
 * Take this CPU's live table for one hit: counts the hit, and returns the
 * table marked busy, or NULL when a handler this one interrupted (an NMI)
 * has it: that hit is dropped as nested. kpt_hist_put() gives it back.
 */
static nokprobe_inline struct kpt_hist_table *kpt_hist_get(struct kpt_hist *h)
{
	struct kpt_hist_table *t = kpt_hist_here(h);

	local64_inc(&t->hits);
	if (unlikely(READ_ONCE(t->busy))) {
		local64_inc(&t->dropped[KPT_HD_NESTED]);
		return NULL;
	}
	WRITE_ONCE(t->busy, 1);
	barrier();		/* busy before the scratch, against an NMI */
	return t;
}

static nokprobe_inline void kpt_hist_put(struct kpt_hist_table *t)
{
	barrier();
	WRITE_ONCE(t->busy, 0);
}

/*
 * Add one hit with t->key and values t->v to @t, this CPU's live table,
 * busy (kpt_hist_get()): find its entry by linear probing, or take a free
 * one and publish it with its hash last. @one (a constant): the key is one
 * number (kpt_hist_one_number()), one word: no loop over its words.
 */
static nokprobe_inline void kpt_hist_add(struct kpt_hist *h,
					 struct kpt_hist_table *t, bool one)
{
	unsigned int i, n, kw = one ? 1 : h->key_words;
	u64 hash = kpt_hist_hash(h->seed, t->key, kw), *e, eh;

	i = hash & h->mask;
	/* a key not found KPT_HIST_PROBES slots on counts as no room */
	for (n = 0; n < KPT_HIST_PROBES; n++, i = (i + 1) & h->mask) {
		e = &t->entries[(size_t)i * h->stride];
		eh = e[KPT_HIST_E_HASH];
		if (eh == hash &&
		    kpt_hist_key_eq(&e[KPT_HIST_E_VALS + h->val_words], t->key,
				    kw)) {
			/*
			 * Aggregated before the entry's count: a live read,
			 * which takes the entries first and the books after,
			 * then never finds the hitcounts ahead of Aggregated.
			 */
			local64_inc(&t->aggregated);
			barrier();
			WRITE_ONCE(e[KPT_HIST_E_COUNT],
				   e[KPT_HIST_E_COUNT] + 1);
			kpt_hist_fold(h, e, t->v, false);
			return;
		}
		if (eh)
			continue;
		if (t->used == h->capacity)
			break;
		WRITE_ONCE(t->used, t->used + 1);
		memcpy(&e[KPT_HIST_E_VALS + h->val_words], t->key, kw * 8);
		e[KPT_HIST_E_COUNT] = 1;
		kpt_hist_fold(h, e, t->v, true);
		local64_inc(&t->aggregated);	/* before the entry: above */
		/* Pairs with the acquire in kpt_hist_collect() */
		smp_store_release(&e[KPT_HIST_E_HASH], hash);
		return;
	}
	local64_inc(&t->dropped[KPT_HD_TABLE_FULL]);
}

#endif /* _KPT_HIST_H */
