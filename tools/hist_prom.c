// SPDX-License-Identifier: GPL-2.0
/*
 * hist_prom: `kptrace hist NAME --prometheus DIR`, an aggregation as a
 * Prometheus textfile, DIR/kptrace_NAME.prom, for node_exporter's textfile
 * collector.
 *
 * The metric names are fixed. Every name the user chose (the hist's, its
 * keys' and its values') is a label, never part of a metric name, so that
 * no hist, key or value makes a family twice, in one file or across the
 * files of many hists:
 *
 *   kptrace_hist_hits_total{hist}                     counter
 *   kptrace_hist_aggregated_total{hist}               counter
 *   kptrace_hist_filtered_total{hist}                 counter
 *   kptrace_hist_dropped_total{hist,cause}            counter
 *   kptrace_hist_entries{hist}                        gauge
 *   kptrace_hist_hitcount_total{hist,KEY...}          counter, no bucketed key
 *   kptrace_hist_distribution{hist,field,KEY...}      histogram of the
 *	bucketed key (.log2, .loglin, .buckets=N) named by field: _bucket{le}
 *	(le: the bucket's inclusive upper bound, negative for a signed
 *	.buckets=N), _count, and _sum when the field is also a value
 *   kptrace_hist_value_sum_total{hist,val,KEY...}     counter: the sum of an
 *	unsigned value (the bucketed key's own field is the histogram's _sum)
 *   kptrace_hist_value_signed_sum{hist,val,KEY...}    gauge: of a signed one
 *
 * KEY... are the keys but the bucketed one and stacks (the entries that
 * differ only by those are summed), each a label of its own name; a key
 * named as a fixed label (hist, field, val, cause, le, quantile) or whose
 * name starts with key_ or __ is labelled key_NAME. A label value is
 * untrusted text: '"' as \", and what kpt_byte_escaped() names (the one
 * rule, uapi/kptrace_record.h: a backslash too) as \\xHH, so that the
 * value reads \xHH: comm "a\nb" is comm="a\\x0ab" (prom__value(), prom.c,
 * shared with kptrace syscalls -s --prometheus).
 *
 * Counters never go back. They are not the table's counts but the tool's
 * running totals of them, kept in struct hist_prom from read to read: each
 * read adds how much each count grew since the read before. Another reader
 * may clear the table (kptrace hist -i, or "clear" written to its file);
 * a count lower than at the last read says so: then that count is all new.
 * A count of the books lower than before means the whole table was
 * cleared, and every entry's count is new too, even one that grew; an
 * entry's own count (or unsigned sum) lower than before, that entry was.
 * A clear followed by more hits than the table had, all between two reads,
 * is not seen (as a counter reset is not by Prometheus). The totals start
 * at the counts of the first read; an entry a live read leaves out keeps
 * its total, and after a clear counts from 0. A probe of another spec
 * under the same name starts them again. Gauges are as read.
 */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "prom.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* An entry of the file: the entries of the table with its labels, summed. */
struct hist_prom_row {
	char *keys;		/* ,KEY="value"... ("" for none) */
	unsigned long long ord;	/* the bucket's hi, in the key's order */
	unsigned long long hi;	/* the bucket's hi, le */
	/* running totals; sums are bits of signed values for those */
	unsigned long long count, sum[KPT_HIST_MAX_VALS];
	/* as the last read had them */
	unsigned long long raw_count, raw_sum[KPT_HIST_MAX_VALS];
};

static FILE *memstream(char **buf, size_t *len)
{
	FILE *m = open_memstream(buf, len);

	if (!m) {
		fputs("kptrace: out of memory\n", stderr);
		exit(1);
	}
	return m;
}

/* A key's label name: its own (an identifier), key_NAME if taken. */
static void prom_label(FILE *f, const char *name)
{
	static const char * const fixed[] = {
		"hist", "field", "val", "cause", "le", "quantile",
	};
	unsigned int i;
	bool taken = !strncmp(name, "__", 2) || !strncmp(name, "key_", 4);

	for (i = 0; i < ARRAY_SIZE(fixed); i++)
		taken |= !strcmp(name, fixed[i]);
	fprintf(f, "%s%s", taken ? "key_" : "", name);
}

static int cmp_u(unsigned long long a, unsigned long long b)
{
	return a < b ? -1 : a > b;
}

static int cmp_row(const void *pa, const void *pb)
{
	const struct hist_prom_row *a = pa, *b = pb;
	int r = strcmp(a->keys, b->keys);

	return r ? r : cmp_u(a->ord, b->ord);
}

/* The rows of the read @h (raw_*), sorted, rows of equal labels summed. */
static struct hist_prom_row *read_rows(const struct hist *h, int bk,
				       size_t *nr)
{
	struct hist_prom_row *r = hist__xrealloc(NULL, h->nr * sizeof(*r));
	size_t n, out = 0, len;
	unsigned int i;

	for (n = 0; n < h->nr; n++) {
		const struct hist_entry *e = &h->e[n];
		const struct hist_keydef *kd;
		char *num = NULL;
		FILE *m, *nm;

		memset(&r[n], 0, sizeof(r[n]));
		m = memstream(&r[n].keys, &len);
		for (i = 0; i < h->nkeys; i++) {
			kd = &h->keys[i];
			if ((int)i == bk || kd->kind == HK_STACK)
				continue;
			putc(',', m);
			prom_label(m, kd->name);
			fputs("=\"", m);
			if (kd->kind == HK_STR || kd->kind == HK_SYM) {
				prom__value(m, e->keys[i].str, SIZE_MAX);
			} else {
				nm = memstream(&num, &len);
				hist__put_key(nm, kd, &e->keys[i]);
				fclose(nm);
				prom__value(m, num, SIZE_MAX);
				free(num);
				num = NULL;
			}
			putc('"', m);
		}
		fclose(m);
		r[n].hi = bk >= 0 ? e->keys[bk].hi : 0;
		r[n].ord = bk >= 0 ? hist__key_ord(&h->keys[bk], r[n].hi) : 0;
		r[n].raw_count = e->hitcount;
		for (i = 0; i < h->nvals; i++)
			r[n].raw_sum[i] = e->vals[i].sum;
	}
	qsort(r, h->nr, sizeof(*r), cmp_row);
	for (n = 0; n < h->nr; n++) {
		if (out && !cmp_row(&r[out - 1], &r[n])) {
			r[out - 1].raw_count += r[n].raw_count;
			for (i = 0; i < h->nvals; i++)
				r[out - 1].raw_sum[i] += r[n].raw_sum[i];
			free(r[n].keys);
		} else {
			r[out++] = r[n];
		}
	}
	*nr = out;
	return r;
}

static void free_rows(struct hist_prom *p)
{
	size_t n;

	for (n = 0; n < p->nr; n++)
		free(p->rows[n].keys);
	free(p->rows);
	p->rows = NULL;
	p->nr = 0;
}

void hist_prom__free(struct hist_prom *p)
{
	free_rows(p);
	free(p->probe);
	memset(p, 0, sizeof(*p));
}

/* Adds @nw's growth since @r's last read to @r's totals (see the top). */
static void row_add(const struct hist *h, struct hist_prom_row *r,
		    const struct hist_prom_row *nw, bool cleared)
{
	bool reset = cleared || nw->raw_count < r->raw_count;
	unsigned int i;

	for (i = 0; i < h->nvals; i++)
		reset |= !h->val_signed[i] && nw->raw_sum[i] < r->raw_sum[i];
	r->count += nw->raw_count - (reset ? 0 : r->raw_count);
	r->raw_count = nw->raw_count;
	for (i = 0; i < h->nvals; i++) {
		r->sum[i] += nw->raw_sum[i] - (reset ? 0 : r->raw_sum[i]);
		r->raw_sum[i] = nw->raw_sum[i];
	}
}

/* The read @h into the running totals of @p. */
static void prom_update(struct hist_prom *p, const struct hist *h)
{
	struct hist_prom_row *nw, *out, *r;
	bool cleared = false;
	size_t nnew, i = 0, j = 0, n = 0;
	unsigned int t;
	int c;

	if (p->probe && strcmp(p->probe, h->probe))
		hist_prom__free(p);
	if (!p->probe) {
		p->probe = strdup(h->probe);
		if (!p->probe) {
			fputs("kptrace: out of memory\n", stderr);
			exit(1);
		}
	}
	/* Entries is a gauge, the other books are counters */
	for (t = 0; t < HT_NR; t++)
		cleared |= t != HT_ENTRIES && h->totals[t] < p->raw[t];
	for (t = 0; t < HT_NR; t++) {
		if (t != HT_ENTRIES)
			p->books[t] += h->totals[t] -
				       (cleared ? 0 : p->raw[t]);
		p->raw[t] = h->totals[t];
	}

	nw = read_rows(h, hist__bucket_key(h), &nnew);
	out = hist__xrealloc(NULL, (p->nr + nnew) * sizeof(*out));
	while (i < p->nr || j < nnew) {
		c = i == p->nr ? 1 : j == nnew ? -1 :
		    cmp_row(&p->rows[i], &nw[j]);
		if (c > 0) {
			/* first seen: its count so far */
			r = &out[n++];
			*r = nw[j++];
			r->count = r->raw_count;
			memcpy(r->sum, r->raw_sum, sizeof(r->sum));
			continue;
		}
		r = &out[n++];
		*r = p->rows[i++];
		if (c == 0) {
			row_add(h, r, &nw[j], cleared);
			free(nw[j++].keys);
		} else if (cleared) {
			/* not in this read, and cleared: from 0 again */
			r->raw_count = 0;
			memset(r->raw_sum, 0, sizeof(r->raw_sum));
		}
	}
	free(nw);
	free(p->rows);
	p->rows = out;
	p->nr = n;
}

static void prom_hist(FILE *f, const struct hist *h)
{
	fputs("hist=\"", f);
	prom__value(f, h->name, SIZE_MAX);
	putc('"', f);
}

static void prom_book(FILE *f, const struct hist_prom *p, const struct hist *h,
		      const char *metric, const char *help, unsigned int t)
{
	prom__head(f, metric, "counter", help);
	fprintf(f, "%s{", metric);
	prom_hist(f, h);
	fprintf(f, "} %llu\n", p->books[t]);
}

/* The end of the rows of the same labels as row @start. */
static size_t group_end(const struct hist_prom *p, size_t start)
{
	size_t n = start + 1;

	while (n < p->nr && !strcmp(p->rows[n].keys, p->rows[start].keys))
		n++;
	return n;
}

/* Each value's sum per labels, in the family of signed (@s) or not. */
static void prom_sums(FILE *f, const struct hist_prom *p,
		      const struct hist *h, int kv, bool s)
{
	const char *metric = s ? "kptrace_hist_value_signed_sum" :
				 "kptrace_hist_value_sum_total";
	unsigned long long sum;
	bool head = false;
	size_t start, end, n;
	unsigned int i;

	for (i = 0; i < h->nvals && p->nr; i++) {
		if ((int)i == kv || h->val_signed[i] != s)
			continue;
		if (!head)
			prom__head(f, metric, s ? "gauge" : "counter", s ?
				  "The sum of a signed value (val) per key." :
				  "The sum of a value (val) per key.");
		head = true;
		for (start = 0; start < p->nr; start = end) {
			end = group_end(p, start);
			for (sum = 0, n = start; n < end; n++)
				sum += p->rows[n].sum[i];
			fprintf(f, "%s{", metric);
			prom_hist(f, h);
			fprintf(f, ",val=\"%s\"%s} ", h->val_names[i],
				p->rows[start].keys);
			hist__put_num(f, sum, s, false);
			putc('\n', f);
		}
	}
}

static void prom_text(FILE *f, const struct hist_prom *p,
		      const struct hist *h)
{
	static const char dist[] = "kptrace_hist_distribution";
	int bk = hist__bucket_key(h), kv = bk >= 0 ? hist__key_val(h, bk) : -1;
	const struct hist_keydef *kd = bk >= 0 ? &h->keys[bk] : NULL;
	unsigned long long cum, sum;
	size_t n, start, end;
	unsigned int i;

	prom_book(f, p, h, "kptrace_hist_hits_total",
		  "Events that reached the aggregation.", HT_HITS);
	prom_book(f, p, h, "kptrace_hist_aggregated_total",
		  "Events counted in an entry.", HT_AGGREGATED);
	prom_book(f, p, h, "kptrace_hist_filtered_total",
		  "Events filtered out before the aggregation.", HT_FILTERED);
	prom__head(f, "kptrace_hist_dropped_total", "counter",
		   "Events dropped, by cause.");
	for (i = 0; i < KPT_HD_NR; i++) {
		fputs("kptrace_hist_dropped_total{", f);
		prom_hist(f, h);
		fprintf(f, ",cause=\"%s\"} %llu\n", hist__drop_names[i],
			p->books[HT_TABLE_FULL + i]);
	}
	prom__head(f, "kptrace_hist_entries", "gauge", "Entries in the table.");
	fputs("kptrace_hist_entries{", f);
	prom_hist(f, h);
	fprintf(f, "} %llu\n", h->totals[HT_ENTRIES]);

	if (bk < 0 && p->nr) {
		prom__head(f, "kptrace_hist_hitcount_total", "counter",
			   "Events per key.");
		for (n = 0; n < p->nr; n++) {
			fputs("kptrace_hist_hitcount_total{", f);
			prom_hist(f, h);
			fprintf(f, "%s} %llu\n", p->rows[n].keys,
				p->rows[n].count);
		}
	} else if (p->nr) {
		prom__head(f, dist, "histogram",
			   "Events per bucket of the bucketed key (field).");
	}
	for (start = 0; bk >= 0 && start < p->nr; start = end) {
		end = group_end(p, start);
		cum = 0;
		sum = 0;
		for (n = start; n < end; n++) {
			cum += p->rows[n].count;
			if (kv >= 0)
				sum += p->rows[n].sum[kv];
			fprintf(f, "%s_bucket{", dist);
			prom_hist(f, h);
			fprintf(f, ",field=\"%s\"%s,le=\"", kd->name,
				p->rows[n].keys);
			hist__put_num(f, p->rows[n].hi,
				      kd->kind == HK_RANGE && kd->is_signed,
				      false);
			fprintf(f, "\"} %llu\n", cum);
		}
		fprintf(f, "%s_bucket{", dist);
		prom_hist(f, h);
		fprintf(f, ",field=\"%s\"%s,le=\"+Inf\"} %llu\n", kd->name,
			p->rows[start].keys, cum);
		if (kv >= 0) {
			fprintf(f, "%s_sum{", dist);
			prom_hist(f, h);
			fprintf(f, ",field=\"%s\"%s} ", kd->name,
				p->rows[start].keys);
			hist__put_num(f, sum, h->val_signed[kv], false);
			putc('\n', f);
		}
		fprintf(f, "%s_count{", dist);
		prom_hist(f, h);
		fprintf(f, ",field=\"%s\"%s} %llu\n", kd->name,
			p->rows[start].keys, cum);
	}
	prom_sums(f, p, h, kv, false);
	prom_sums(f, p, h, kv, true);
}

/* DIR/kptrace_NAME.prom, by a rename of DIR/.kptrace_NAME.prom.tmp */
int hist_prom__write(struct hist_prom *p, const char *dir, const char *name,
		     const struct hist *h)
{
	char file[NAME_MAX + 1];
	char *text = NULL;
	size_t len = 0;
	FILE *m;
	int ret;

	prom_update(p, h);
	snprintf(file, sizeof(file), "kptrace_%s.prom", name);
	m = memstream(&text, &len);
	prom_text(m, p, h);
	fclose(m);
	ret = prom__write(dir, file, text, len);
	free(text);
	return ret;
}
