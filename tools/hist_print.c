// SPDX-License-Identifier: GPL-2.0
/*
 * hist_print: a hist for the terminal. A key's value as text (untrusted
 * text escaped as \xHH), the entries sorted, the histograms with bars of
 * a bucketed key (.log2, .loglin, .buckets=N) and the percentiles of
 * .loglin, the table of the other hists, and the Totals.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uapi/kptrace_record.h>

#include "hist.h"

#define BAR_WIDTH	52	/* as bpftrace's hist() */
#define GAP_ROWS	4	/* empty rows shown between two buckets */
#define GAP_MARK	(~0ULL)	/* the count of the "..." row of more */

/* --- common printing ------------------------------------------------------ */

/*
 * Up to @n bytes of @s, untrusted text, in text: what kpt_byte_escaped()
 * names (the one rule, uapi/kptrace_record.h: a backslash, C0 and C1
 * controls, DEL, every byte of UTF-8) and the bytes of @more as \xHH,
 * the rest as it is. Comm and strings escape " " too (the kernel's hist
 * file does), the folded stacks also ";".
 */
void hist__put_esc_n(FILE *f, const char *s, size_t n, const char *more)
{
	size_t i;

	for (i = 0; i < n && s[i]; i++) {
		unsigned char ch = s[i];

		if (kpt_byte_escaped(ch) || (more && strchr(more, ch)))
			fprintf(f, "\\x%02x", ch);
		else
			putc(ch, f);
	}
}

void hist__put_esc(FILE *f, const char *s, const char *more)
{
	hist__put_esc_n(f, s, (size_t)-1, more);
}

void hist__put_num(FILE *f, unsigned long long v, bool is_signed, bool hex)
{
	if (hex)
		fprintf(f, "0x%llx", v);
	else if (is_signed)
		fprintf(f, "%lld", (long long)v);
	else
		fprintf(f, "%llu", v);
}

/* A key's value as text (one line; a stack as frame<-frame...). */
void hist__put_key(FILE *f, const struct hist_keydef *kd,
		   const struct hist_key *k)
{
	unsigned int i;

	switch (kd->kind) {
	case HK_NUM:
		hist__put_num(f, k->num, kd->is_signed, kd->hex);
		break;
	case HK_LOG2:
		fprintf(f, "2^%llu", k->num);
		break;
	case HK_RANGE:
		/* as the module: "-10--1" */
		hist__put_num(f, k->lo, kd->is_signed, false);
		putc('-', f);
		hist__put_num(f, k->hi, kd->is_signed, false);
		break;
	case HK_STR:
		hist__put_esc(f, k->str, " ");
		break;
	case HK_SYM:
		hist__put_esc(f, k->str, NULL);
		break;
	default:
		for (i = 0; i < k->nframes; i++) {
			fputs(i ? " <- " : "", f);
			hist__put_esc(f, k->frames[i], NULL);
		}
	}
}

static int cmp_u(unsigned long long a, unsigned long long b)
{
	return a < b ? -1 : a > b;
}

static int cmp_key(const struct hist_keydef *kd, const struct hist_key *a,
		   const struct hist_key *b)
{
	unsigned int i;
	int r;

	switch (kd->kind) {
	case HK_NUM:
		if (kd->is_signed)
			return (long long)a->num < (long long)b->num ? -1 :
			       (long long)a->num > (long long)b->num;
		return cmp_u(a->num, b->num);
	case HK_LOG2:
	case HK_RANGE:
		return cmp_u(hist__key_ord(kd, a->lo),
			     hist__key_ord(kd, b->lo));
	case HK_STR:
	case HK_SYM:
		return strcmp(a->str, b->str);
	default:
		for (i = 0; i < a->nframes && i < b->nframes; i++) {
			r = strcmp(a->frames[i], b->frames[i]);
			if (r)
				return r;
		}
		return cmp_u(a->nframes, b->nframes);
	}
}

/* qsort has no context argument: the hist being sorted and how */
static const struct hist *sort_h;
static int sort_skip = -1;	/* a key left out of the comparison */

/* by the spec's sort=, ties in file order */
int hist__cmp_spec(const void *pa, const void *pb)
{
	const struct hist_entry *a = *(struct hist_entry * const *)pa;
	const struct hist_entry *b = *(struct hist_entry * const *)pb;
	const struct kpt_hist_spec *hs = &sort_h->spec.hist;
	unsigned int s = hs->sort, i;
	int r;

	if (s == KPT_HIST_SORT_HITCOUNT) {
		r = cmp_u(a->hitcount, b->hitcount);
	} else if (s < KPT_HIST_SORT_VAL) {
		i = s - KPT_HIST_SORT_KEY;
		r = cmp_key(&sort_h->keys[i], &a->keys[i], &b->keys[i]);
	} else {
		i = s - KPT_HIST_SORT_VAL;
		if (sort_h->val_signed[i])
			r = (long long)a->vals[i].sum < (long long)b->vals[i].sum ?
			    -1 : (long long)a->vals[i].sum >
				 (long long)b->vals[i].sum;
		else
			r = cmp_u(a->vals[i].sum, b->vals[i].sum);
	}
	if (hs->descending)
		r = -r;
	return r ? r : cmp_u(a->order, b->order);
}

/* by every key but sort_skip, then by sort_skip's bucket */
static int cmp_group(const void *pa, const void *pb)
{
	const struct hist_entry *a = *(struct hist_entry * const *)pa;
	const struct hist_entry *b = *(struct hist_entry * const *)pb;
	unsigned int i;
	int r;

	for (i = 0; i < sort_h->nkeys; i++) {
		if ((int)i == sort_skip)
			continue;
		r = cmp_key(&sort_h->keys[i], &a->keys[i], &b->keys[i]);
		if (r)
			return r;
	}
	if (sort_skip >= 0) {
		r = cmp_key(&sort_h->keys[sort_skip], &a->keys[sort_skip],
			    &b->keys[sort_skip]);
		if (r)
			return r;
	}
	return cmp_u(a->order, b->order);
}

static bool same_group(const struct hist *h, int bk,
		       const struct hist_entry *a, const struct hist_entry *b)
{
	unsigned int i;

	for (i = 0; i < h->nkeys; i++)
		if ((int)i != bk && cmp_key(&h->keys[i], &a->keys[i],
					    &b->keys[i]))
			return false;
	return true;
}

struct hist_entry **hist__sorted(const struct hist *h,
				 int (*cmp)(const void *, const void *),
				 int skip)
{
	struct hist_entry **v = hist__xrealloc(NULL, h->nr * sizeof(*v));
	size_t n;

	for (n = 0; n < h->nr; n++)
		v[n] = &h->e[n];
	sort_h = h;
	sort_skip = skip;
	qsort(v, h->nr, sizeof(*v), cmp);
	return v;
}

void print_totals(FILE *f, const struct hist *h)
{
	unsigned int i;

	fputs("\nTotals:\n", f);
	for (i = 0; i < HT_NR; i++)
		fprintf(f, "    %s: %llu\n", hist__total_name(i), h->totals[i]);
}

/* --- histograms ------------------------------------------------------------ */

/* lo and hi in the key's order (hist__key_ord()): a signed range too */
struct bucket {
	unsigned long long lo, hi, count;
};

/* 1024 as 1K, as bpftrace's labels; others as they are */
static void put_size(char *buf, size_t len, unsigned long long v)
{
	static const char sfx[] = "KMGTPE";
	int i = -1;

	while (v >= 1024 && !(v & 1023) && i < 5) {
		v >>= 10;
		i++;
	}
	if (i >= 0)
		snprintf(buf, len, "%llu%c", v, sfx[i]);
	else
		snprintf(buf, len, "%llu", v);
}

static void bucket_label(char *buf, size_t len, const struct hist_keydef *kd,
			 const struct bucket *b)
{
	char lo[32], hi[32];

	if (kd->kind == HK_RANGE && kd->is_signed) {
		snprintf(buf, len, "[%lld, %lld]",
			 (long long)hist__key_ord(kd, b->lo),
			 (long long)hist__key_ord(kd, b->hi));
	} else if (kd->kind == HK_LOG2) {
		if (!b->lo) {
			snprintf(buf, len, "[0, 1]");
			return;
		}
		put_size(lo, sizeof(lo), b->lo - 1);
		put_size(hi, sizeof(hi), b->hi);
		snprintf(buf, len, "(%s, %s]", lo, hi);
	} else {
		snprintf(buf, len, "[%llu, %llu]", b->lo, b->hi);
	}
}

/*
 * The bucket after @b of key @kd, for the rows of empty buckets: in the
 * key's order, so a signed range's too (its last ends at the type's max).
 */
static bool next_bucket(const struct hist_keydef *kd, const struct hist *h,
			int k, const struct bucket *b, struct bucket *n)
{
	unsigned long long w;

	if (b->hi == ~0ULL)
		return false;
	n->count = 0;
	if (kd->kind == HK_LOG2) {
		hist__log2_range(64 - __builtin_clzll(b->hi), &n->lo, &n->hi);
	} else if (kd->mod == KPT_HM_LOGLIN) {
		hist__loglin_bucket(b->hi + 1, &n->lo, &n->hi);
	} else {
		w = h->spec.hist.keys[k].buckets;
		n->lo = b->hi + 1;
		n->hi = n->lo + w - 1 < n->lo ? ~0ULL : n->lo + w - 1;
	}
	return true;
}

/* The midpoint of the bucket holding the rank ceil(q * total). */
static unsigned long long percentile(const struct bucket *b, size_t nb,
				     unsigned long long total, double q)
{
	unsigned long long rank = (unsigned long long)(q * total);
	unsigned long long cum = 0;
	size_t i;

	if ((double)rank < q * total)
		rank++;
	if (!rank)
		rank = 1;
	for (i = 0; i < nb; i++) {
		if (b[i].count == GAP_MARK)
			continue;
		cum += b[i].count;
		if (cum >= rank)
			break;
	}
	if (i == nb)
		i = nb - 1;
	return b[i].lo + (b[i].hi - b[i].lo) / 2;
}

static void print_group_header(FILE *f, const struct hist *h, int bk,
			       const struct hist_entry *e)
{
	unsigned int i, j;
	bool first = true;

	fprintf(f, "@%s", h->keys[bk].name);
	for (i = 0; i < h->nkeys; i++) {
		if ((int)i == bk)
			continue;
		fprintf(f, "%s%s=", first ? "[" : ", ", h->keys[i].name);
		first = false;
		if (h->keys[i].kind == HK_STACK) {
			fputc('\n', f);
			for (j = 0; j < e->keys[i].nframes; j++) {
				fputs("        ", f);
				hist__put_esc(f, e->keys[i].frames[j], NULL);
				putc('\n', f);
			}
		} else {
			hist__put_key(f, &h->keys[i], &e->keys[i]);
		}
	}
	fputs(first ? ":\n" : "]:\n", f);
}

static void print_group(FILE *f, const struct hist *h, int bk,
			struct hist_entry **v, size_t nr, int width)
{
	const struct hist_keydef *kd = &h->keys[bk];
	/* a row per entry, GAP_ROWS or a "..." before each, 65 of .log2 */
	struct bucket *b = hist__xrealloc(NULL, ((GAP_ROWS + 2) * nr + 66) *
				    sizeof(*b));
	size_t nb = 0, i;
	unsigned long long max = 0, total = 0, vmin = ~0ULL, vmax = 0;
	int kv = hist__key_val(h, bk);
	char label[80], bar[BAR_WIDTH + 1];

	for (i = 0; i < nr; i++) {
		const struct hist_key *k = &v[i]->keys[bk];
		unsigned long long lo = hist__key_ord(kd, k->lo);
		unsigned long long hi = hist__key_ord(kd, k->hi);

		if (kv >= 0) {
			if (v[i]->vals[kv].min < vmin)
				vmin = v[i]->vals[kv].min;
			if (v[i]->vals[kv].max > vmax)
				vmax = v[i]->vals[kv].max;
		}
		total += v[i]->hitcount;
		if (nb && b[nb - 1].lo == lo) {
			b[nb - 1].count += v[i]->hitcount;
			continue;
		}
		/*
		 * the empty buckets between, as bpftrace shows them; but
		 * more than GAP_ROWS of .loglin or .buckets as one "..."
		 */
		if (nb && b[nb - 1].hi < lo) {
			size_t gap = nb;
			struct bucket last = b[nb - 1];

			while ((kd->kind == HK_LOG2 || nb - gap <= GAP_ROWS) &&
			       next_bucket(kd, h, bk, &b[nb - 1], &b[nb]) &&
			       b[nb].lo < lo)
				nb++;
			if (kd->kind != HK_LOG2 && nb - gap > GAP_ROWS) {
				nb = gap;
				b[nb].lo = last.hi + 1;
				b[nb].hi = lo - 1;
				b[nb++].count = GAP_MARK;
			}
		}
		b[nb].lo = lo;
		b[nb].hi = hi;
		b[nb++].count = v[i]->hitcount;
	}
	for (i = 0; i < nb; i++)
		if (b[i].count > max && b[i].count != GAP_MARK)
			max = b[i].count;
	print_group_header(f, h, bk, v[0]);
	for (i = 0; i < nb; i++) {
		size_t n = max ? (size_t)(b[i].count * BAR_WIDTH / max) : 0;

		if (b[i].count == GAP_MARK) {
			fputs("...\n", f);
			continue;
		}

		bucket_label(label, sizeof(label), kd, &b[i]);
		memset(bar, '@', n);
		memset(bar + n, ' ', BAR_WIDTH - n);
		bar[BAR_WIDTH] = 0;
		fprintf(f, "%-*s %8llu |%s|\n", width, label, b[i].count, bar);
	}
	if (kd->mod == KPT_HM_LOGLIN && nb) {
		static const double qs[] = { 0.5, 0.9, 0.99, 0.999 };
		static const char * const qn[] = { "p50", "p90", "p99",
						   "p99.9" };
		unsigned long long p;

		if (kv < 0) {
			vmin = b[0].lo;
			vmax = b[nb - 1].hi;
		}
		fprintf(f, "count %llu  %llu..%llu", total, vmin, vmax);
		for (i = 0; i < 4; i++) {
			p = percentile(b, nb, total, qs[i]);
			if (p < vmin)
				p = vmin;
			if (p > vmax)
				p = vmax;
			fprintf(f, "  %s %llu", qn[i], p);
		}
		fputc('\n', f);
	}
	free(b);
}

void print_hists(FILE *f, const struct hist *h, int bk)
{
	struct hist_entry **v = hist__sorted(h, cmp_group, bk);
	size_t i, start;
	int width = 12, w;
	char label[80];
	struct bucket b;

	for (i = 0; i < h->nr; i++) {
		b.lo = hist__key_ord(&h->keys[bk], v[i]->keys[bk].lo);
		b.hi = hist__key_ord(&h->keys[bk], v[i]->keys[bk].hi);
		bucket_label(label, sizeof(label), &h->keys[bk], &b);
		w = (int)strlen(label);
		if (w > width)
			width = w;
	}
	for (start = 0; start < h->nr; start = i) {
		for (i = start + 1; i < h->nr; i++)
			if (!same_group(h, bk, v[start], v[i]))
				break;
		if (start)
			fputc('\n', f);
		print_group(f, h, bk, v + start, i - start, width);
	}
	free(v);
}

/* --- table ------------------------------------------------------------------ */

static char *cell_text(const struct hist *h, const struct hist_entry *e,
		       unsigned int col)
{
	char *s = NULL;
	size_t len;
	FILE *m = open_memstream(&s, &len);
	unsigned int i;

	if (!m) {
		fputs("kptrace: out of memory\n", stderr);
		exit(1);
	}
	if (col < h->nkeys) {
		if (h->keys[col].kind == HK_STACK)
			hist__put_esc(m, e->keys[col].nframes ?
				e->keys[col].frames[0] : "", NULL);
		else
			hist__put_key(m, &h->keys[col], &e->keys[col]);
	} else if (col == h->nkeys) {
		fprintf(m, "%llu", e->hitcount);
	} else {
		col -= h->nkeys + 1;
		i = col / 3;
		hist__put_num(m, col % 3 == 0 ? e->vals[i].sum :
			   col % 3 == 1 ? e->vals[i].min : e->vals[i].max,
			h->val_signed[i], false);
	}
	fclose(m);
	return s;
}

static char *col_name(const struct hist *h, unsigned int col)
{
	static char buf[KPT_SPEC_NAME_LEN + 8];
	static const char * const sfx[] = { "", ".min", ".max" };

	if (col < h->nkeys)
		return (char *)h->keys[col].name;
	if (col == h->nkeys)
		return "hitcount";
	col -= h->nkeys + 1;
	snprintf(buf, sizeof(buf), "%s%s", h->val_names[col / 3],
		 sfx[col % 3]);
	return buf;
}

void print_table(FILE *f, const struct hist *h)
{
	struct hist_entry **v = hist__sorted(h, hist__cmp_spec, -1);
	unsigned int ncol = h->nkeys + 1 + 3 * h->nvals, c, j;
	int width[1 + KPT_HIST_MAX_KEYS + 3 * KPT_HIST_MAX_VALS];
	int pos, w;
	size_t n;
	char *s;

	for (c = 0; c < ncol; c++) {
		width[c] = (int)strlen(col_name(h, c));
		for (n = 0; n < h->nr; n++) {
			s = cell_text(h, v[n], c);
			w = (int)strlen(s);
			if (w > width[c])
				width[c] = w;
			free(s);
		}
	}
	/* numbers right-aligned, the rest left-aligned */
	for (c = 0; c < ncol; c++) {
		bool left = c < h->nkeys && h->keys[c].kind >= HK_STR;

		fprintf(f, "%s%*s", c ? "  " : "", left ? -width[c] : width[c],
			col_name(h, c));
	}
	fputc('\n', f);
	for (n = 0; n < h->nr; n++) {
		for (c = 0; c < ncol; c++) {
			bool left = c < h->nkeys && h->keys[c].kind >= HK_STR;

			s = cell_text(h, v[n], c);
			fprintf(f, "%s%*s", c ? "  " : "",
				left ? -width[c] : width[c], s);
			free(s);
		}
		fputc('\n', f);
		/* the callers of a stack key, under its innermost frame */
		for (c = 0, pos = 0; c < h->nkeys; c++) {
			if (h->keys[c].kind == HK_STACK) {
				for (j = 1; j < v[n]->keys[c].nframes; j++) {
					fprintf(f, "%*s", pos + 2, "");
					hist__put_esc(f,
						      v[n]->keys[c].frames[j],
						      NULL);
					putc('\n', f);
				}
			}
			pos += width[c] + 2;
		}
	}
	free(v);
}
