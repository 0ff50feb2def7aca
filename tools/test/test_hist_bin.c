// SPDX-License-Identifier: GPL-2.0
/*
 * hist_bin.c on hand-made tables: each one holds, as KPT_IOC_HIST would
 * return it, what a text file of test/data shows (the keys' words as the
 * module keeps them: a bucket's low end, a .log2's K, comm's bytes, stack
 * addresses), and the struct hist made of it must be exactly the one
 * hist__parse() makes of the text: every key's num, lo, hi, string and
 * frames, every value, the order and the totals. Then hidden keys, and
 * cut or garbled tables refused with a message, never a crash (ASan,
 * UBSan). Output: "ok N name" lines, then "N passed, N failed".
 *
 * Usage: test/test_hist_bin DATA_DIR TMP_DIR
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uapi/kptrace.h>

#include "../hist.h"
#include "../hist_bin.h"
#include "../ksyms.h"

static unsigned int nr, failed;
static const char *data_dir, *tmp_dir;

static void result(bool ok, const char *name, const char *why)
{
	nr++;
	if (!ok)
		failed++;
	printf("%sok %u %s\n", ok ? "" : "not ", nr, name);
	if (!ok && why && *why)
		printf("# %s\n", why);
}

/* A table under construction: 64-bit words */
struct blob {
	__u64 *w;
	size_t nw;
};

static void put(struct blob *b, __u64 v)
{
	b->w = hist__xrealloc(b->w, (b->nw + 1) * sizeof(*b->w));
	b->w[b->nw++] = v;
}

static void put_str(struct blob *b, const char *s, unsigned int words)
{
	unsigned int i;
	__u64 v;

	for (i = 0; i < words; i++) {
		char c[8] = {};

		if (strlen(s) > i * 8)
			strncpy(c, s + i * 8, 8);
		memcpy(&v, c, 8);
		put(b, v);
	}
}

/*
 * Header and spec: @kw the key words of each key (0-terminated), @books
 * hits, aggregated, filtered, then dropped by cause.
 */
static void begin(struct blob *b, const char *spec, __u32 flags,
		  unsigned int nvals, const unsigned int *kw,
		  const __u64 *books)
{
	struct kpt_hist_hdr hd = {
		.magic = KPT_HIST_MAGIC, .version = KPT_HIST_VERSION,
		.hdr_size = sizeof(hd), .flags = flags, .gen = 3,
		.probe_id = 7, .nvals = nvals,
	};
	unsigned int i, words = 2 + 3 * nvals;
	size_t len = strlen(spec) + 1, sw = (len + 7) / 8;
	__u64 *s;

	for (i = 0; kw[i]; i++) {
		hd.key_words[i] = kw[i];
		words += kw[i];
	}
	hd.nkeys = i;
	hd.entry_words = words;
	hd.spec_size = sw * 8;
	hd.hits = books[0];
	hd.aggregated = books[1];
	hd.filtered = books[2];
	for (i = 0; i < KPT_HD_NR; i++)
		hd.dropped[i] = books[3 + i];
	b->nw = 0;
	for (i = 0; i < sizeof(hd) / 8; i++)
		put(b, 0);
	memcpy(b->w, &hd, sizeof(hd));
	s = calloc(sw, 8);
	memcpy(s, spec, len);
	for (i = 0; i < sw; i++)
		put(b, s[i]);
	free(s);
}

/* Sets size and nr_entries from what was put. */
static void end(struct blob *b)
{
	struct kpt_hist_hdr *hd = (void *)b->w;

	hd->size = b->nw * 8;
	hd->nr_entries = (hd->size - hd->hdr_size - hd->spec_size) / 8 /
			 hd->entry_words;
}

static char *read_file(const char *dir, const char *name)
{
	char path[4096], *buf;
	size_t len;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "test_hist_bin: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	buf = calloc(1, 1 << 20);
	len = fread(buf, 1, (1 << 20) - 1, f);
	buf[len] = 0;
	fclose(f);
	return buf;
}

static bool str_eq(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

static bool diff(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return false;
}

/* a == b, field by field; the first difference in @why */
static bool hist_eq(const struct hist *a, const struct hist *b, char *why,
		    size_t len)
{
	unsigned int i, k, f;
	size_t n;

	if (!str_eq(a->name, b->name) || !str_eq(a->probe, b->probe))
		return diff(why, len, "name or probe: %s %s / %s %s", a->name, a->probe,
		     b->name, b->probe);
	if (a->nkeys != b->nkeys || a->nvals != b->nvals || a->nr != b->nr ||
	    a->live != b->live)
		return diff(why, len, "nkeys %u/%u nvals %u/%u nr %zu/%zu live %d/%d",
		     a->nkeys, b->nkeys, a->nvals, b->nvals, a->nr, b->nr,
		     a->live, b->live);
	for (k = 0; k < a->nkeys; k++)
		if (a->keys[k].kind != b->keys[k].kind ||
		    a->keys[k].mod != b->keys[k].mod ||
		    a->keys[k].is_signed != b->keys[k].is_signed ||
		    a->keys[k].hex != b->keys[k].hex ||
		    !str_eq(a->keys[k].name, b->keys[k].name))
			return diff(why, len, "key %u's definition", k);
	for (i = 0; i < HT_NR; i++)
		if (a->totals[i] != b->totals[i])
			return diff(why, len, "total %u: %llu / %llu", i, a->totals[i],
			     b->totals[i]);
	for (n = 0; n < a->nr; n++) {
		const struct hist_entry *x = &a->e[n], *y = &b->e[n];

		if (x->hitcount != y->hitcount || x->order != y->order)
			return diff(why, len, "entry %zu: hitcount %llu / %llu", n, x->hitcount,
			     y->hitcount);
		for (i = 0; i < a->nvals; i++)
			if (x->vals[i].sum != y->vals[i].sum ||
			    x->vals[i].min != y->vals[i].min ||
			    x->vals[i].max != y->vals[i].max)
				return diff(why, len, "entry %zu value %u", n, i);
		for (k = 0; k < a->nkeys; k++) {
			const struct hist_key *p = &x->keys[k], *q = &y->keys[k];

			if (p->num != q->num || p->lo != q->lo ||
			    p->hi != q->hi || !str_eq(p->str, q->str) ||
			    p->nframes != q->nframes)
				return diff(why, len, "entry %zu key %u: num %llu/%llu lo %llu/%llu"
						" hi %llu/%llu str '%s'/'%s' frames %u/%u",
				     n, k, p->num, q->num, p->lo, q->lo, p->hi,
				     q->hi, p->str ? p->str : "", q->str ? q->str : "",
				     p->nframes, q->nframes);
			for (f = 0; f < p->nframes; f++)
				if (!str_eq(p->frames[f], q->frames[f]))
					return diff(why, len, "entry %zu frame %u: '%s' / '%s'",
					     n, f, p->frames[f], q->frames[f]);
		}
	}
	return true;
}

/* The table @b against the text @text (or the file @dir/@file). */
static void check_same(const char *name, struct blob *b, const char *hname,
		       const char *text, const struct ksyms *ks)
{
	struct hist hb, ht;
	char err[512], why[1024] = "";
	bool ok;

	if (hist__parse(text, &ht, err, sizeof(err))) {
		result(false, name, err);
		return;
	}
	if (hist_bin__parse(b->w, b->nw * 8, hname, ks, &hb, err,
			    sizeof(err))) {
		result(false, name, err);
		hist__free(&ht);
		return;
	}
	ok = hist_eq(&hb, &ht, why, sizeof(why));
	result(ok, name, why);
	hist__free(&hb);
	hist__free(&ht);
}

static void test_files(const struct ksyms *ks)
{
	static const unsigned int kw1[] = { 1, 0 }, kw_comm1[] = { 2, 1, 0 },
				  kw_st[] = { 16, 1, 0 };
	struct blob b = {};
	char *text;
	unsigned int i;
	static const __u64 neg[][5] = {
		/* hitcount, sum, min, max, the bucket's low end */
		{ 6, 18, 3, 3, 0 },
		{ 4, -14, -9, -1, -10 },
		{ 1, INT64_MIN, INT64_MIN, INT64_MIN, INT64_MIN },
		{ 2, -50, -25, -25, -30 },
		{ 1, INT64_MAX, INT64_MAX, INT64_MAX, 9223372036854775800ULL },
		{ 1, 12, 12, 12, 10 },
	};
	static const __u64 ll[][5] = {
		{ 2, 10, 5, 5, 5 },
		{ 4, 406, 100, 103, 100 },
		{ 10, 10000, 995, 1010, 992 },
		{ 3, 3300, 1090, 1150, 1088 },
	};
	static const struct { const char *comm; __u64 v[5]; } lat[] = {
		{ "cat", { 5, 4000, 600, 1000, 10 } },
		{ "bash x", { 7, 20000, 2100, 4000, 12 } },
		{ "cat", { 2, 12000, 5000, 7000, 13 } },
		{ "bash x", { 1, 300, 300, 300, 9 } },
	};
	static const struct { const char *comm; __s64 lo; __u64 n; } negtab[] = {
		{ "ls", 0, 3 }, { "ls", -100, 5 }, { "cat", -200, 1 },
	};

	/* .buckets=10 of a signed $retval, S64_MIN and S64_MAX included */
	begin(&b, "r:kptrace/neg do_sys_openat2 hist:keys=retval.buckets=10"
	      ":vals=hitcount,retval:sort=retval:size=2048",
	      KPT_HIST_F_ENDED, 1, kw1, (const __u64[]){ 15, 15, 0, 0, 0, 0 });
	for (i = 0; i < 6; i++) {
		put(&b, 0);
		put(&b, neg[i][0]);
		put(&b, neg[i][1]);
		put(&b, neg[i][2]);
		put(&b, neg[i][3]);
		put(&b, neg[i][4]);
	}
	end(&b);
	text = read_file(data_dir, "hist-signed/neg");
	/*
	 * The module ends the S64_MIN bucket before the next multiple of
	 * N (kpt_hist_put_range()): at -9223372036854775801 for N = 10; the
	 * file, written for the text parser, has N - 1 past S64_MIN.
	 */
	memcpy(strstr(text, "--9223372036854775799"),
	       "--9223372036854775801", 21);
	check_same("signed .buckets=10 ranges as the text's (hist-signed/neg)",
		   &b, "neg", text, ks);
	free(text);

	/* comm and a signed .buckets=100 */
	begin(&b, "p:kptrace/negtab do_sys_openat2 dfd=$arg1:s32"
	      " hist:keys=comm,dfd.buckets=100:vals=hitcount:sort=dfd:size=2048",
	      KPT_HIST_F_ENDED, 0, kw_comm1, (const __u64[]){ 9, 9, 0, 0, 0, 0 });
	for (i = 0; i < 3; i++) {
		put(&b, 0);
		put(&b, negtab[i].n);
		put_str(&b, negtab[i].comm, 2);
		put(&b, (__u64)negtab[i].lo);
	}
	end(&b);
	text = read_file(data_dir, "hist-signed/negtab");
	check_same("comm, .buckets=100 of an s32 (hist-signed/negtab)", &b,
		   "negtab", text, ks);
	free(text);

	/* comm with a space, .log2, Dropped table_full */
	begin(&b, "r:kptrace/lat do_sys_openat2 hist:keys=comm,lat_ns.log2"
	      ":vals=hitcount,lat_ns:sort=hitcount:size=2048",
	      KPT_HIST_F_ENDED, 1, kw_comm1,
	      (const __u64[]){ 18, 15, 0, 3, 0, 0 });
	for (i = 0; i < 4; i++) {
		put(&b, 0);
		put(&b, lat[i].v[0]);
		put(&b, lat[i].v[1]);
		put(&b, lat[i].v[2]);
		put(&b, lat[i].v[3]);
		put_str(&b, lat[i].comm, 2);
		put(&b, lat[i].v[4]);
	}
	end(&b);
	text = read_file(data_dir, "hist/lat");
	check_same("comm, .log2, dropped (hist/lat)", &b, "lat", text, ks);
	free(text);

	/* .loglin */
	begin(&b, "r:kptrace/ll do_sys_openat2 hist:keys=lat_ns.loglin"
	      ":vals=hitcount,lat_ns:sort=lat_ns:size=2048",
	      KPT_HIST_F_ENDED, 1, kw1, (const __u64[]){ 19, 19, 0, 0, 0, 0 });
	for (i = 0; i < 4; i++) {
		put(&b, 0);
		put(&b, ll[i][0]);
		put(&b, ll[i][1]);
		put(&b, ll[i][2]);
		put(&b, ll[i][3]);
		put(&b, ll[i][4]);
	}
	end(&b);
	text = read_file(data_dir, "hist/ll");
	check_same(".loglin ranges (hist/ll)", &b, "ll", text, ks);
	free(text);

	/* stacks: %pS for the probed address, %pB for return addresses */
	begin(&b, "p:kptrace/st kfree hist:keys=stacktrace,cpu"
	      ":vals=hitcount:sort=hitcount:size=2048",
	      KPT_HIST_F_ENDED, 0, kw_st, (const __u64[]){ 6, 6, 0, 0, 0, 0 });
	put(&b, 0);
	put(&b, 4);
	put(&b, 0xffffffff81300005ULL);		/* kfree+0x5 */
	put(&b, 0xffffffffc0000120ULL);		/* skb_release_data+0x120 */
	put(&b, 0xffffffff81500045ULL);		/* napi_consume_skb+0x45 */
	for (i = 3; i < 16; i++)
		put(&b, 0);
	put(&b, 1);
	put(&b, 0);
	put(&b, 2);
	put(&b, 0xffffffff81300005ULL);
	put(&b, 0xffffffff81300130ULL);		/* kvfree+0x20 */
	for (i = 2; i < 16; i++)
		put(&b, 0);
	put(&b, 0);
	end(&b);
	text = read_file(data_dir, "hist/st");
	check_same("stacktrace frames as %pS and %pB (hist/st)", &b, "st",
		   text, ks);
	free(text);

	/* hidden: a stack, a symbol, values zeroed; flags in word 0 */
	begin(&b, "p:kptrace/hs kfree p=$arg1:symbol"
	      " hist:keys=stacktrace,p:vals=hitcount:sort=hitcount:size=16",
	      KPT_HIST_F_ENDED | KPT_HIST_F_ADDR_HIDDEN, 0,
	      (const unsigned int[]){ 16, 1, 0 },
	      (const __u64[]){ 3, 3, 0, 0, 0, 0 });
	put(&b, KPT_HIST_E_KEY_HIDDEN(0) | KPT_HIST_E_KEY_HIDDEN(1));
	put(&b, 3);
	for (i = 0; i < 17; i++)
		put(&b, 0);
	end(&b);
	check_same("hidden stack and symbol: (hidden), as the text", &b, "hs",
		   "# kptrace hist: hs\n"
		   "# probe: p:kptrace/hs kfree p=$arg1:symbol"
		   " hist:keys=stacktrace,p:vals=hitcount:sort=hitcount:size=16\n"
		   "#\n\n"
		   "{ stacktrace:\n         (hidden)\n"
		   ", p: (hidden) } hitcount:          3\n"
		   "\nTotals:\n    Hits: 3\n    Entries: 1\n    Aggregated: 3\n"
		   "    Filtered: 0\n    Dropped: 0\n    Dropped table_full: 0\n"
		   "    Dropped nested: 0\n    Dropped key_too_large: 0\n", ks);
	free(b.w);
}

static void test_refused(void)
{
	static const unsigned int kw1[] = { 1, 0 };
	struct blob b = {};
	struct kpt_hist_hdr *hd;
	struct hist h;
	char err[512];
	size_t cut;
	int bad = 0;

	/* a hidden .log2 key: the text parser's message */
	begin(&b, "p:kptrace/hl kfree p=$arg1:x64 hist:keys=p.log2:size=16",
	      KPT_HIST_F_LIVE | KPT_HIST_F_ADDR_HIDDEN, 0, kw1,
	      (const __u64[]){ 1, 1, 0, 0, 0, 0 });
	put(&b, KPT_HIST_E_KEY_HIDDEN(0));
	put(&b, 1);
	put(&b, 0);
	end(&b);
	result(hist_bin__parse(b.w, b.nw * 8, "hl", NULL, &h, err,
			       sizeof(err)) == -1 &&
	       !strcmp(err, "key p is hidden (an address?):"
		       " read as root, kptr_restrict < 2"),
	       "a hidden .log2 key refused as the text's", err);

	/* every cut of a good table, and garbled headers */
	begin(&b, "r:kptrace/ll do_sys_openat2 hist:keys=lat_ns.loglin"
	      ":vals=hitcount,lat_ns:sort=lat_ns:size=2048",
	      KPT_HIST_F_LIVE, 1, kw1, (const __u64[]){ 1, 1, 0, 0, 0, 0 });
	put(&b, 0);
	put(&b, 1);
	put(&b, 5);
	put(&b, 5);
	put(&b, 5);
	put(&b, 5);
	end(&b);
	for (cut = 0; cut < b.nw * 8; cut++)
		if (!hist_bin__parse(b.w, cut, "ll", NULL, &h, err,
				     sizeof(err))) {
			hist__free(&h);
			bad++;
		}
	result(!bad, "every cut of a table refused", NULL);
	hd = (void *)b.w;
	hd->entry_words = 5;
	result(hist_bin__parse(b.w, b.nw * 8, "ll", NULL, &h, err,
			       sizeof(err)) == -1,
	       "a wrong entry_words refused", err);
	printf("# %s\n", err);
	hd->entry_words = 6;
	hd->key_words[0] = 2;
	hd->entry_words = 7;
	result(hist_bin__parse(b.w, b.nw * 8, "ll", NULL, &h, err,
			       sizeof(err)) == -1,
	       "key words that are not the spec's refused", err);
	hd->key_words[0] = 1;
	hd->entry_words = 6;
	hd->spec_size = 1 << 30;
	result(hist_bin__parse(b.w, b.nw * 8, "ll", NULL, &h, err,
			       sizeof(err)) == -1,
	       "a spec past the end refused", err);
	hd->spec_size = 8;
	result(hist_bin__parse(b.w, b.nw * 8, "ll", NULL, &h, err,
			       sizeof(err)) == -1,
	       "an unterminated spec refused", err);
	hd->magic = 0;
	result(hist_bin__parse(b.w, b.nw * 8, "ll", NULL, &h, err,
			       sizeof(err)) == -1 && strstr(err, "magic"),
	       "a bad magic refused", err);
	free(b.w);
}

int main(int argc, char **argv)
{
	char path[4096];
	struct ksyms *ks;
	FILE *f;

	if (argc != 3) {
		fputs("usage: test_hist_bin DATA_DIR TMP_DIR\n", stderr);
		return 2;
	}
	data_dir = argv[1];
	tmp_dir = argv[2];
	/* the symbols of hist/st's frames, their sizes as it prints them */
	snprintf(path, sizeof(path), "%s/hist_bin.kallsyms", tmp_dir);
	f = fopen(path, "w");
	if (!f)
		return 1;
	fputs("ffffffff81300000 T kfree\n"
	      "ffffffff81300110 T kvfree\n"
	      "ffffffff81300140 t after_kvfree\n"
	      "ffffffff81500000 T napi_consume_skb\n"
	      "ffffffff815000c0 T after_napi\n"
	      "ffffffffc0000000 t skb_release_data\t[e1000]\n"
	      "ffffffffc0000160 t after_skb\t[e1000]\n", f);
	fclose(f);
	ks = ksyms__load(path);
	if (!ks)
		return 1;
	printf("TAP version 13\n");
	test_files(ks);
	test_refused();
	ksyms__free(ks);
	printf("1..%u\n%u passed, %u failed\n", nr, nr - failed, failed);
	return failed ? 1 : 0;
}
