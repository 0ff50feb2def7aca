// SPDX-License-Identifier: GPL-2.0
/*
 * hist: `kptrace hist [NAME]`, the reader of the module's aggregations.
 *
 * A probe whose spec ends with hist:keys=... aggregates in the kernel; its
 * table is the text file HIST_DIR/NAME, in the format of ftrace's hist
 * triggers: "#" header lines (the "# probe:" one is the canonical spec,
 * parsed here with kpt_spec_parse() to learn the keys and values), then
 * one entry per key combination,
 *
 *   { KEY: VALUE, KEY: VALUE } hitcount: N  VAL: SUM  VAL.min: M  VAL.max: M
 *
 * (a stacktrace key spans lines, one per frame), then "Totals:" and its
 * eight counters. This file parses that text into a struct hist and prints
 * it as histograms or a table, JSON, folded stacks, a flame graph SVG or
 * (hist_prom.c) a Prometheus textfile; -i clears the table every interval
 * and prints the interval that ended.
 *
 * Comm, strings and every other text of the file are untrusted: each form
 * writes them by the one rule of kpt_byte_escaped() (uapi/kptrace_record.h),
 * never a byte it names as itself: \xHH in text, \u00HH in JSON, \xHH
 * and entities in the SVG, \\xHH in a Prometheus label value.
 */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include <uapi/kptrace_record.h>

#include "hist.h"
#include "hist_bin.h"
#include "json.h"
#include "paths.h"

#define EXIT_USAGE	2
#define BAR_WIDTH	52	/* as bpftrace's hist() */
#define GAP_ROWS	4	/* empty rows shown between two buckets */
#define GAP_MARK	(~0ULL)	/* the count of the "..." row of more */
#define SVG_WIDTH	1200
#define SVG_PAD		10
#define SVG_ROW		16
#define DEBUGFS_MAGIC_	0x64626720
#define TRACEFS_MAGIC_	0x74726163

const char * const hist__drop_names[KPT_HD_NR] = KPT_HIST_DROP_NAMES;
static_assert(HT_NR - HT_TABLE_FULL == KPT_HD_NR,
	      "a total per cause of enum kpt_hist_drop");

/* The Totals block's names: "Dropped CAUSE" from the causes' names */
static const char *total_name(unsigned int i)
{
	static const char * const names[HT_TABLE_FULL] = {
		"Hits", "Entries", "Aggregated", "Filtered", "Dropped",
	};
	static char dropped[KPT_HD_NR][40];

	if (i < HT_TABLE_FULL)
		return names[i];
	if (!dropped[i - HT_TABLE_FULL][0])
		snprintf(dropped[i - HT_TABLE_FULL],
			 sizeof(dropped[0]), "Dropped %s",
			 hist__drop_names[i - HT_TABLE_FULL]);
	return dropped[i - HT_TABLE_FULL];
}

static const char * const mod_names[] = {
	"", "hex", "log2", "loglin", "buckets",
};

static struct hist_env {
	bool json, folded, offsets;
	const char *svg;
	const char *prom_dir;
	unsigned int interval;		/* -i SECS, 0: once */
	unsigned long long count;	/* -c: intervals, 0: until stopped */
	unsigned int duration;		/* -d SECS, 0: until stopped */
	bool dev;			/* read through /dev/kptrace */
	bool clear;			/* ... clearing (-i) */
} henv;

static volatile sig_atomic_t hist_exiting;

/* --prometheus: the running totals of the reads (hist_prom.c) */
static struct hist_prom prom;

/* --- parsing ------------------------------------------------------------ */

struct cursor {
	const char *text, *p;
	char *err;
	size_t errlen;
};

static int perr(struct cursor *c, const char *fmt, ...)
{
	const char *s;
	unsigned int line = 1;
	va_list ap;
	int n;

	for (s = c->text; s < c->p && *s; s++)
		line += *s == '\n';
	n = snprintf(c->err, c->errlen, "line %u: ", line);
	if (n < 0 || (size_t)n >= c->errlen)
		return -1;
	va_start(ap, fmt);
	vsnprintf(c->err + n, c->errlen - n, fmt, ap);
	va_end(ap);
	return -1;
}

static void skip_blanks(struct cursor *c)
{
	while (*c->p == ' ' || *c->p == '\t')
		c->p++;
}

static bool word(struct cursor *c, const char *w)
{
	size_t len = strlen(w);

	if (strncmp(c->p, w, len))
		return false;
	c->p += len;
	return true;
}

static void next_line(struct cursor *c)
{
	c->p += strcspn(c->p, "\n");
	if (*c->p)
		c->p++;
}

/* A number of a value or a counter: [-]digits, or 0xhex. */
static int parse_num(struct cursor *c, unsigned long long *v)
{
	char *end;

	skip_blanks(c);
	errno = 0;
	if (c->p[0] == '0' && c->p[1] == 'x') {
		*v = strtoull(c->p + 2, &end, 16);
		if (end == c->p + 2)
			return perr(c, "bad number");
	} else if (*c->p == '-') {
		*v = (unsigned long long)strtoll(c->p, &end, 10);
	} else if (*c->p >= '0' && *c->p <= '9') {
		*v = strtoull(c->p, &end, 10);
	} else {
		return perr(c, "expected a number");
	}
	if (errno || end == c->p)
		return perr(c, "bad number");
	c->p = end;
	return 0;
}

static char *xstrndup(const char *s, size_t n)
{
	char *d = strndup(s, n);

	if (!d) {
		fputs("kptrace: out of memory\n", stderr);
		exit(1);
	}
	return d;
}

void *hist__xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		fputs("kptrace: out of memory\n", stderr);
		exit(1);
	}
	return p;
}

/* \xHH back to the byte (a \x00 ends the string, as the kernel's did) */
static char *unescape(const char *s, size_t len)
{
	char *d = hist__xrealloc(NULL, len + 1);
	size_t i, n = 0;

	for (i = 0; i < len; i++) {
		if (s[i] == '\\' && i + 3 < len && s[i + 1] == 'x' &&
		    kpt_hexval(s[i + 2]) >= 0 && kpt_hexval(s[i + 3]) >= 0) {
			d[n++] = (char)(kpt_hexval(s[i + 2]) << 4 | kpt_hexval(s[i + 3]));
			i += 3;
		} else {
			d[n++] = s[i];
		}
	}
	d[n] = 0;
	return d;
}

void hist__loglin_bucket(unsigned long long v, unsigned long long *lo,
			 unsigned long long *hi)
{
	unsigned long long w;
	int e;

	if (v < (1ULL << KPT_HIST_SUB_BITS)) {
		*lo = v;
		*hi = v;
		return;
	}
	e = 63 - __builtin_clzll(v);
	w = 1ULL << (e - KPT_HIST_SUB_BITS);
	*lo = v & ~(w - 1);
	*hi = *lo + (w - 1);
}

void hist__log2_range(unsigned int k, unsigned long long *lo,
		      unsigned long long *hi)
{
	*lo = k ? (k > 64 ? ~0ULL : (1ULL << (k - 1)) + 1) : 0;
	*hi = k >= 64 ? ~0ULL : 1ULL << k;
}

unsigned long long hist__key_ord(const struct hist_keydef *kd,
				 unsigned long long v)
{
	return kd->kind == HK_RANGE && kd->is_signed ? v ^ (1ULL << 63) : v;
}

/*
 * A bound of a "~ LO-HI" range at @s: digits, or for a signed key -digits
 * too. The end in *@end; false if there is no number there.
 */
static bool parse_bound(const char *s, bool is_signed, unsigned long long *v,
			char **end)
{
	const char *d = is_signed && *s == '-' ? s + 1 : s;

	if (!(*d >= '0' && *d <= '9'))
		return false;
	errno = 0;
	if (is_signed)
		*v = (unsigned long long)strtoll(s, end, 10);
	else
		*v = strtoull(s, end, 10);
	return !errno;
}

static int parse_key_value(struct cursor *c, const struct hist_keydef *kd,
			   struct hist_key *k, const char *v, size_t len)
{
	struct cursor vc = *c;
	char *buf = xstrndup(v, len);
	char *end;
	int ret = 0;

	errno = 0;
	/* the module hides a number that may be a kernel address */
	if (!strcmp(buf, "(hidden)") && kd->kind != HK_STR &&
	    kd->kind != HK_SYM) {
		ret = perr(&vc, "key %s is hidden (an address?): read as root, kptr_restrict < 2",
			   kd->name);
		free(buf);
		return ret;
	}
	switch (kd->kind) {
	case HK_NUM:
		if (!strncmp(buf, "0x", 2))
			k->num = strtoull(buf + 2, &end, 16);
		else if (kd->is_signed)
			k->num = (unsigned long long)strtoll(buf, &end, 10);
		else
			k->num = strtoull(buf, &end, 10);
		if (errno || *end || end == buf || !strcmp(buf, "0x") ||
		    (!kd->is_signed && *buf == '-'))
			ret = perr(&vc, "bad number '%s' of key %s", buf,
				   kd->name);
		break;
	case HK_LOG2:
		if (strncmp(buf, "~ 2^", 4) || !(buf[4] >= '0' && buf[4] <= '9'))
			goto bad;
		k->num = strtoull(buf + 4, &end, 10);
		if (errno || *end || k->num > 64)
			goto bad;
		hist__log2_range((unsigned int)k->num, &k->lo, &k->hi);
		break;
	case HK_RANGE:
		/* "~ 10-19"; of a signed key also "~ -10--1" */
		if (strncmp(buf, "~ ", 2) ||
		    !parse_bound(buf + 2, kd->is_signed, &k->lo, &end) ||
		    *end != '-' ||
		    !parse_bound(end + 1, kd->is_signed, &k->hi, &end) ||
		    *end || hist__key_ord(kd, k->hi) < hist__key_ord(kd, k->lo))
			goto bad;
		break;
	case HK_STR:
		k->str = unescape(buf, len);
		break;
	default:
		k->str = xstrndup(buf, len);
		break;
	}
	free(buf);
	return ret;
bad:
	ret = perr(&vc, "bad value '%s' of key %s", buf, kd->name);
	free(buf);
	return ret;
}

/* NAME: (NAME may be followed by its .modifier, as ftrace prints some) */
static int parse_key_name(struct cursor *c, const char *name)
{
	size_t len = strlen(name);

	if (strncmp(c->p, name, len) ||
	    (c->p[len] != ':' && c->p[len] != '.'))
		return perr(c, "expected key %s", name);
	c->p += len + strcspn(c->p + len, ":\n");
	if (*c->p != ':')
		return perr(c, "expected ':' after key %s", name);
	c->p++;
	return 0;
}

static int parse_stack(struct cursor *c, struct hist_key *k)
{
	const char *s;
	size_t len;

	skip_blanks(c);
	if (*c->p != '\n')
		return perr(c, "expected the frames of stacktrace on the next lines");
	c->p++;
	for (;;) {
		skip_blanks(c);
		if (*c->p == ',' || *c->p == '}')
			return 0;
		if (!*c->p || *c->p == '\n')
			return perr(c, "unterminated stacktrace");
		s = c->p;
		len = strcspn(s, "\n");
		while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
			len--;
		k->frames = hist__xrealloc(k->frames, (k->nframes + 1) *
					   sizeof(*k->frames));
		k->frames[k->nframes++] = xstrndup(s, len);
		next_line(c);
	}
}

static int parse_val(struct cursor *c, const char *name, const char *suffix,
		     unsigned long long *v)
{
	size_t len = strlen(name);

	skip_blanks(c);
	if (strncmp(c->p, name, len) || strncmp(c->p + len, suffix,
						strlen(suffix)))
		return perr(c, "expected %s%s", name, suffix);
	c->p += len + strlen(suffix);
	return parse_num(c, v);
}

static int parse_entry(struct cursor *c, struct hist *h)
{
	struct hist_entry *e;
	const char *v;
	unsigned int i;
	size_t len;

	if (h->nr == h->cap) {
		h->cap = h->cap ? h->cap * 2 : 64;
		h->e = hist__xrealloc(h->e, h->cap * sizeof(*h->e));
	}
	e = &h->e[h->nr++];
	memset(e, 0, sizeof(*e));
	e->order = h->nr;
	c->p++;		/* { */
	for (i = 0; i < h->nkeys; i++) {
		skip_blanks(c);
		if (i && !word(c, ","))
			return perr(c, "expected ', %s'", h->keys[i].name);
		skip_blanks(c);
		if (parse_key_name(c, h->keys[i].name))
			return -1;
		if (h->keys[i].kind == HK_STACK) {
			if (parse_stack(c, &e->keys[i]))
				return -1;
			continue;
		}
		skip_blanks(c);
		v = c->p;
		len = strcspn(v, ",}\n");
		if (v[len] != ',' && v[len] != '}')
			return perr(c, "unterminated key %s", h->keys[i].name);
		c->p += len;
		while (len && v[len - 1] == ' ')
			len--;
		if (parse_key_value(c, &h->keys[i], &e->keys[i], v, len))
			return -1;
	}
	skip_blanks(c);
	if (!word(c, "}"))
		return perr(c, "expected '}'");
	if (parse_val(c, "hitcount", ":", &e->hitcount))
		return -1;
	for (i = 0; i < h->nvals; i++) {
		if (parse_val(c, h->val_names[i], ":", &e->vals[i].sum) ||
		    parse_val(c, h->val_names[i], ".min:", &e->vals[i].min) ||
		    parse_val(c, h->val_names[i], ".max:", &e->vals[i].max))
			return -1;
	}
	skip_blanks(c);
	if (*c->p && *c->p != '\n')
		return perr(c, "unexpected text after the values");
	next_line(c);
	return 0;
}

static int parse_totals(struct cursor *c, struct hist *h)
{
	unsigned int i;

	for (i = 0; i < HT_NR; i++) {
		skip_blanks(c);
		if (!word(c, total_name(i)) || !word(c, ":"))
			return perr(c, "expected '%s:' in the totals",
				    total_name(i));
		if (parse_num(c, &h->totals[i]))
			return -1;
		skip_blanks(c);
		if (*c->p && *c->p != '\n')
			return perr(c, "unexpected text after %s",
				    total_name(i));
		next_line(c);
	}
	while (*c->p == ' ' || *c->p == '\n' || *c->p == '\t')
		c->p++;
	if (*c->p)
		return perr(c, "unexpected text after the totals");
	return 0;
}

/* What the spec says of each key and value. */
void hist__setup_fields(struct hist *h)
{
	const struct kpt_hist_spec *hs = &h->spec.hist;
	unsigned int i, f, t;

	h->nkeys = hs->nkeys;
	h->nvals = hs->nvals;
	for (i = 0; i < h->nkeys; i++) {
		struct hist_keydef *kd = &h->keys[i];

		f = hs->keys[i].field;
		kd->name = kpt_spec_field_name(&h->spec, f);
		kd->mod = hs->keys[i].mod;
		kd->kind = HK_NUM;
		if (f == KPT_CF_STACKTRACE) {
			kd->kind = HK_STACK;
		} else if (f == KPT_CF_COMM) {
			kd->kind = HK_STR;
		} else if (f == KPT_CF_RETVAL) {
			kd->is_signed = true;
		} else if (f < KPT_CF_RETVAL) {
			t = h->spec.args[f].type;
			if (kpt_type_is_string(t))
				kd->kind = HK_STR;
			else if (t == KPT_T_SYMBOL)
				kd->kind = HK_SYM;
			kd->is_signed = t >= KPT_T_S8 && t <= KPT_T_S64;
			kd->hex = t >= KPT_T_X8 && t <= KPT_T_X64;
		}
		if (kd->mod == KPT_HM_HEX)
			kd->hex = true;
		else if (kd->mod == KPT_HM_LOG2)
			kd->kind = HK_LOG2;
		else if (kd->mod == KPT_HM_LOGLIN ||
			 kd->mod == KPT_HM_BUCKETS)
			kd->kind = HK_RANGE;
		/*
		 * the module buckets a signed field's .buckets=N as signed
		 * ranges; .log2 and .loglin take the bits as unsigned
		 */
		if (kd->hex || kd->mod == KPT_HM_LOG2 ||
		    kd->mod == KPT_HM_LOGLIN)
			kd->is_signed = false;
	}
	for (i = 0; i < h->nvals; i++) {
		f = hs->vals[i].field;
		h->val_names[i] = kpt_spec_field_name(&h->spec, f);
		t = f < KPT_CF_RETVAL ? h->spec.args[f].type : 0;
		h->val_signed[i] = f == KPT_CF_RETVAL ||
				   (f < KPT_CF_RETVAL && t >= KPT_T_S8 &&
				    t <= KPT_T_S64);
	}
}

int hist__parse(const char *text, struct hist *h, char *err, size_t errlen)
{
	struct cursor c = { text, text, err, errlen };
	bool totals = false;
	size_t len;

	memset(h, 0, sizeof(*h));
	while (*c.p == '#') {
		len = strcspn(c.p, "\n");
		if (!strncmp(c.p, "# kptrace hist: ", 16))
			h->name = xstrndup(c.p + 16, len - 16);
		else if (!strncmp(c.p, "# probe: ", 9))
			h->probe = xstrndup(c.p + 9, len - 9);
		else if (!strncmp(c.p, "# table: ", 9))
			h->live = len == 13 && !strncmp(c.p + 9, "live", 4);
		next_line(&c);
	}
	if (!h->name || !h->probe) {
		perr(&c, "no '# kptrace hist:' or '# probe:' header line");
		goto fail;
	}
	if (kpt_spec_parse(h->probe, &h->spec)) {
		perr(&c, "cannot parse the probe spec: %s (column %d)",
		     h->spec.err_msg, h->spec.err_pos);
		goto fail;
	}
	if (!h->spec.hist.nkeys) {
		perr(&c, "the probe spec has no hist:");
		goto fail;
	}
	hist__setup_fields(h);
	while (*c.p) {
		skip_blanks(&c);
		if (*c.p == '\n') {
			c.p++;
		} else if (*c.p == '{') {
			if (parse_entry(&c, h))
				goto fail;
		} else if (word(&c, "Totals:")) {
			next_line(&c);
			if (parse_totals(&c, h))
				goto fail;
			totals = true;
		} else {
			perr(&c, "unexpected line");
			goto fail;
		}
	}
	if (!totals) {
		perr(&c, "no Totals: (a cut file?)");
		goto fail;
	}
	return 0;
fail:
	hist__free(h);
	return -1;
}

void hist__free(struct hist *h)
{
	unsigned int i, j;
	size_t n;

	for (n = 0; n < h->nr; n++) {
		for (i = 0; i < h->nkeys; i++) {
			struct hist_key *k = &h->e[n].keys[i];

			free(k->str);
			for (j = 0; j < k->nframes; j++)
				free(k->frames[j]);
			free(k->frames);
		}
	}
	free(h->e);
	free(h->name);
	free(h->probe);
	memset(h, 0, sizeof(*h));
}

int hist__check(const struct hist *h, char *err, size_t errlen)
{
	const unsigned long long *t = h->totals;
	unsigned long long sum = 0, outcome, causes;
	unsigned int i;
	size_t n;

	for (n = 0; n < h->nr; n++)
		sum += h->e[n].hitcount;
	outcome = t[HT_AGGREGATED] + t[HT_FILTERED] + t[HT_DROPPED];
	/*
	 * A live table: the module reads the entries, then the books, and
	 * counts a hit before its outcome (kpt_hist_get()). So the hits in
	 * flight, and the keys a live read may leave out, can only put the
	 * books ahead: Hits >= Aggregated + Filtered + Dropped and
	 * Aggregated >= the sum of the hitcounts. Behind is an error, as is
	 * any difference in a cleared interval (no handler writes it).
	 */
	if (h->live ? t[HT_HITS] < outcome : t[HT_HITS] != outcome) {
		snprintf(err, errlen,
			 "Hits %llu %s Aggregated %llu + Filtered %llu + Dropped %llu%s",
			 t[HT_HITS], h->live ? "<" : "!=", t[HT_AGGREGATED],
			 t[HT_FILTERED], t[HT_DROPPED],
			 h->live ? " (live table)" : "");
		return -1;
	}
	/* the module prints Dropped as the sum of its causes: always exact */
	for (i = HT_TABLE_FULL, causes = 0; i < HT_NR; i++)
		causes += t[i];
	if (t[HT_DROPPED] != causes) {
		snprintf(err, errlen,
			 "Dropped %llu != the sum of its causes, %llu",
			 t[HT_DROPPED], causes);
		return -1;
	}
	if (h->live && t[HT_AGGREGATED] < sum) {
		snprintf(err, errlen,
			 "Aggregated %llu < %llu, the sum of the hitcounts read before it (live table)",
			 t[HT_AGGREGATED], sum);
		return -1;
	}
	if (!h->live && t[HT_AGGREGATED] != sum) {
		snprintf(err, errlen,
			 "Aggregated %llu != %llu, the sum of the hitcounts",
			 t[HT_AGGREGATED], sum);
		return -1;
	}
	return 0;
}

/* --- common printing ------------------------------------------------------ */

/*
 * Up to @n bytes of @s, untrusted text, in text: what kpt_byte_escaped()
 * names (the one rule, uapi/kptrace_record.h: a backslash, C0 and C1
 * controls, DEL, every byte of UTF-8) and the bytes of @more as \xHH,
 * the rest as it is. Comm and strings escape " " too (the kernel's hist
 * file does), the folded stacks also ";".
 */
static void put_esc_n(FILE *f, const char *s, size_t n, const char *more)
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

static void put_esc(FILE *f, const char *s, const char *more)
{
	put_esc_n(f, s, (size_t)-1, more);
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
		put_esc(f, k->str, " ");
		break;
	case HK_SYM:
		put_esc(f, k->str, NULL);
		break;
	default:
		for (i = 0; i < k->nframes; i++) {
			fputs(i ? " <- " : "", f);
			put_esc(f, k->frames[i], NULL);
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
static int cmp_spec(const void *pa, const void *pb)
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

static struct hist_entry **sorted(const struct hist *h,
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

int hist__bucket_key(const struct hist *h)
{
	unsigned int i;

	for (i = 0; i < h->nkeys; i++)
		if (h->keys[i].kind == HK_LOG2 || h->keys[i].kind == HK_RANGE)
			return (int)i;
	return -1;
}

static int stack_key(const struct hist *h)
{
	unsigned int i;

	for (i = 0; i < h->nkeys; i++)
		if (h->keys[i].kind == HK_STACK)
			return (int)i;
	return -1;
}

int hist__key_val(const struct hist *h, int k)
{
	unsigned int i;

	for (i = 0; i < h->nvals; i++)
		if (h->spec.hist.vals[i].field == h->spec.hist.keys[k].field)
			return (int)i;
	return -1;
}

static void print_totals(FILE *f, const struct hist *h)
{
	unsigned int i;

	fputs("\nTotals:\n", f);
	for (i = 0; i < HT_NR; i++)
		fprintf(f, "    %s: %llu\n", total_name(i), h->totals[i]);
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
				put_esc(f, e->keys[i].frames[j], NULL);
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

static void print_hists(FILE *f, const struct hist *h, int bk)
{
	struct hist_entry **v = sorted(h, cmp_group, bk);
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
			put_esc(m, e->keys[col].nframes ?
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

static void print_table(FILE *f, const struct hist *h)
{
	struct hist_entry **v = sorted(h, cmp_spec, -1);
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
					put_esc(f, v[n]->keys[c].frames[j],
						NULL);
					putc('\n', f);
				}
			}
			pos += width[c] + 2;
		}
	}
	free(v);
}

/* --- JSON ------------------------------------------------------------------ */

static void json_key(FILE *f, const struct hist_keydef *kd,
		     const struct hist_key *k)
{
	unsigned int i;

	switch (kd->kind) {
	case HK_NUM:
		if (kd->hex)
			fprintf(f, "\"0x%llx\"", k->num);
		else
			hist__put_num(f, k->num, kd->is_signed, false);
		break;
	case HK_LOG2:
		fprintf(f, "{\"log2\":%llu,\"lo\":%llu,\"hi\":%llu}", k->num,
			k->lo, k->hi);
		break;
	case HK_RANGE:
		fputs("{\"lo\":", f);
		hist__put_num(f, k->lo, kd->is_signed, false);
		fputs(",\"hi\":", f);
		hist__put_num(f, k->hi, kd->is_signed, false);
		putc('}', f);
		break;
	case HK_STR:
	case HK_SYM:
		json__str(f, k->str, (size_t)-1);
		break;
	default:
		putc('[', f);
		for (i = 0; i < k->nframes; i++) {
			if (i)
				putc(',', f);
			json__str(f, k->frames[i], (size_t)-1);
		}
		putc(']', f);
	}
}

static void print_json(FILE *f, const struct hist *h)
{
	struct hist_entry **v = sorted(h, cmp_spec, -1);
	const unsigned long long *t = h->totals;
	unsigned int i;
	size_t n;

	fputs("{\"name\":", f);
	json__str(f, h->name, (size_t)-1);
	fputs(",\"probe\":", f);
	json__str(f, h->probe, (size_t)-1);
	fputs(",\"keys\":[", f);
	for (i = 0; i < h->nkeys; i++) {
		fprintf(f, "%s{\"name\":", i ? "," : "");
		json__str(f, h->keys[i].name, (size_t)-1);
		fprintf(f, ",\"mod\":\"%s\"", mod_names[h->keys[i].mod]);
		if (h->keys[i].mod == KPT_HM_BUCKETS)
			fprintf(f, ",\"buckets\":%u",
				h->spec.hist.keys[i].buckets);
		putc('}', f);
	}
	fputs("],\"entries\":[", f);
	for (n = 0; n < h->nr; n++) {
		fprintf(f, "%s\n{\"key\":{", n ? "," : "");
		for (i = 0; i < h->nkeys; i++) {
			fprintf(f, "%s", i ? "," : "");
			json__str(f, h->keys[i].name, (size_t)-1);
			putc(':', f);
			json_key(f, &h->keys[i], &v[n]->keys[i]);
		}
		fprintf(f, "},\"hitcount\":%llu,\"vals\":{", v[n]->hitcount);
		for (i = 0; i < h->nvals; i++) {
			bool s = h->val_signed[i];

			fprintf(f, "%s", i ? "," : "");
			json__str(f, h->val_names[i], (size_t)-1);
			fputs(":{\"sum\":", f);
			hist__put_num(f, v[n]->vals[i].sum, s, false);
			fputs(",\"min\":", f);
			hist__put_num(f, v[n]->vals[i].min, s, false);
			fputs(",\"max\":", f);
			hist__put_num(f, v[n]->vals[i].max, s, false);
			putc('}', f);
		}
		fputs("}}", f);
	}
	fprintf(f, "],\n\"totals\":{\"hits\":%llu,\"entries\":%llu,",
		t[HT_HITS], t[HT_ENTRIES]);
	fprintf(f, "\"aggregated\":%llu,\"filtered\":%llu,\"dropped\":%llu,",
		t[HT_AGGREGATED], t[HT_FILTERED], t[HT_DROPPED]);
	fputs("\"dropped_by_cause\":{", f);
	for (i = 0; i < KPT_HD_NR; i++)
		fprintf(f, "%s\"%s\":%llu", i ? "," : "", hist__drop_names[i],
			t[HT_TABLE_FULL + i]);
	fputs("}}}\n", f);
	free(v);
}

/* --- folded stacks and the flame graph -------------------------------------- */

struct folded {
	char *line;		/* frame;frame;... outermost first */
	unsigned long long count;
};

/* vfs_read+0x9e/0x170 [mod] -> vfs_read [mod], escaped as a folded frame */
static void put_frame(FILE *f, const char *s)
{
	const char *plus = strstr(s, "+0x"), *end;

	if (henv.offsets || !plus || plus == s) {
		put_esc(f, s, ";");
		return;
	}
	end = plus + 3;
	end += strspn(end, "0123456789abcdef");
	if (!strncmp(end, "/0x", 3)) {
		end += 3;
		end += strspn(end, "0123456789abcdef");
	}
	put_esc_n(f, s, plus - s, ";");
	put_esc(f, end, ";");
}

static int cmp_folded(const void *a, const void *b)
{
	return strcmp(((const struct folded *)a)->line,
		      ((const struct folded *)b)->line);
}

/* The merged folded lines of the entries, sorted; their number in *nr. */
static struct folded *fold(const struct hist *h, int sk, size_t *nr)
{
	struct folded *fl = hist__xrealloc(NULL, h->nr * sizeof(*fl));
	size_t n, out = 0, len;
	unsigned int i, j;
	int c;

	for (n = 0; n < h->nr; n++) {
		const struct hist_entry *e = &h->e[n];
		FILE *m = open_memstream(&fl[n].line, &len);
		bool first = true, is_comm, second;

		if (!m) {
			fputs("kptrace: out of memory\n", stderr);
			exit(1);
		}
		/* comm first, then the other keys, as the root frames */
		for (c = 0; c < 2 * (int)h->nkeys; c++) {
			i = (unsigned int)c % h->nkeys;
			is_comm = h->spec.hist.keys[i].field == KPT_CF_COMM;
			second = c >= (int)h->nkeys;
			/* the first round takes comm, the second the others */
			if ((int)i == sk || is_comm == second)
				continue;
			if (!first)
				putc(';', m);
			first = false;
			if (h->spec.hist.keys[i].field == KPT_CF_COMM) {
				put_esc(m, e->keys[i].str, " ;");
			} else {
				fprintf(m, "%s=", h->keys[i].name);
				if (h->keys[i].kind == HK_STR ||
				    h->keys[i].kind == HK_SYM)
					put_esc(m, e->keys[i].str, " ;");
				else
					hist__put_key(m, &h->keys[i],
						      &e->keys[i]);
			}
		}
		for (j = e->keys[sk].nframes; j-- > 0; ) {
			if (!first)
				putc(';', m);
			first = false;
			put_frame(m, e->keys[sk].frames[j]);
		}
		fclose(m);
		fl[n].count = e->hitcount;
	}
	qsort(fl, h->nr, sizeof(*fl), cmp_folded);
	for (n = 0; n < h->nr; n++) {
		if (out && !strcmp(fl[out - 1].line, fl[n].line)) {
			fl[out - 1].count += fl[n].count;
			free(fl[n].line);
		} else {
			fl[out++] = fl[n];
		}
	}
	*nr = out;
	return fl;
}

static void free_folded(struct folded *fl, size_t nr)
{
	size_t n;

	for (n = 0; n < nr; n++)
		free(fl[n].line);
	free(fl);
}

static void print_folded(FILE *f, const struct hist *h, int sk)
{
	size_t nr, n;
	struct folded *fl = fold(h, sk, &nr);

	for (n = 0; n < nr; n++)
		fprintf(f, "%s %llu\n", fl[n].line, fl[n].count);
	free_folded(fl, nr);
}

struct fnode {
	char *name;
	unsigned long long count;
	size_t child, next;	/* first child, next sibling; 0: none */
};

struct ftree {
	struct fnode *n;
	size_t nr, cap;
	unsigned int depth;
};

static size_t ftree_child(struct ftree *t, size_t parent, const char *name,
			  size_t len)
{
	size_t c, *link = &t->n[parent].child;

	for (c = *link; c; c = t->n[c].next) {
		if (strlen(t->n[c].name) == len &&
		    !strncmp(t->n[c].name, name, len))
			return c;
		link = &t->n[c].next;
	}
	if (t->nr == t->cap) {
		t->cap *= 2;
		t->n = hist__xrealloc(t->n, t->cap * sizeof(*t->n));
	}
	c = t->nr++;
	memset(&t->n[c], 0, sizeof(t->n[c]));
	t->n[c].name = xstrndup(name, len);
	/* link may have moved with the realloc: find the end again */
	link = &t->n[parent].child;
	while (*link)
		link = &t->n[*link].next;
	*link = c;
	return c;
}

/*
 * @s, at most @max bytes, in XML text or an attribute value: & < > " '
 * as entities. The names come escaped (fold(), put_esc()): a byte that
 * kpt_byte_escaped() names but a backslash is written as \xHH anyway.
 */
static void xml_text(FILE *f, const char *s, size_t max)
{
	size_t i;

	for (i = 0; s[i] && i < max; i++) {
		if (s[i] != '\\' && kpt_byte_escaped(s[i])) {
			fprintf(f, "\\x%02x", (unsigned char)s[i]);
			continue;
		}
		switch (s[i]) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&#39;", f);
			break;
		default:
			putc(s[i], f);
		}
	}
}

/* Untrusted text (the hist's name) in XML: \xHH, then as xml_text(). */
static void xml_name(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (kpt_byte_escaped(*s))
			fprintf(f, "\\x%02x", (unsigned char)*s);
		else
			xml_text(f, s, 1);
	}
}

static void svg_node(FILE *f, const struct ftree *t, size_t i, double x,
		     unsigned int depth, unsigned long long total, int height)
{
	const struct fnode *n = &t->n[i];
	double w = (double)n->count * (SVG_WIDTH - 2 * SVG_PAD) / total;
	double y = height - 40 - (depth + 1) * SVG_ROW;
	unsigned int hash = 5381, chars;
	size_t c;
	const char *s;
	char tip[64];

	for (s = n->name; *s; s++)
		hash = hash * 33 + (unsigned char)*s;
	snprintf(tip, sizeof(tip), " (%llu samples, %.2f%%)", n->count,
		 100.0 * n->count / total);
	fprintf(f, "<g class=\"f\" data-x=\"%.2f\" data-w=\"%.2f\" data-n=\"",
		x, w);
	xml_text(f, n->name, (size_t)-1);
	fputs("\" data-t=\"", f);
	xml_text(f, n->name, (size_t)-1);
	fprintf(f, "%s\"><title>", tip);
	xml_text(f, n->name, (size_t)-1);
	fprintf(f, "%s</title><rect x=\"%.2f\" y=\"%.0f\" width=\"%.2f\" ",
		tip, x, y, w);
	fprintf(f, "height=\"%d\" fill=\"rgb(%u,%u,%u)\" rx=\"2\"/>",
		SVG_ROW - 1, 200 + hash % 55, 60 + (hash >> 8) % 150,
		30 + (hash >> 16) % 40);
	fprintf(f, "<text x=\"%.2f\" y=\"%.0f\">", x + 3, y + SVG_ROW - 4);
	chars = w > 20 ? (unsigned int)((w - 6) / 7) : 0;
	if (chars >= strlen(n->name)) {
		xml_text(f, n->name, (size_t)-1);
	} else if (chars > 2) {
		xml_text(f, n->name, chars - 2);
		fputs("..", f);
	}
	fputs("</text></g>\n", f);
	for (c = n->child; c; c = t->n[c].next) {
		svg_node(f, t, c, x, depth + 1, total, height);
		x += (double)t->n[c].count * (SVG_WIDTH - 2 * SVG_PAD) / total;
	}
}

static const char svg_script[] =
"<script><![CDATA[\n"
"(function () {\n"
"	var svg = document.getElementById('kptflame');\n"
"	var det = document.getElementById('kptdetails');\n"
"	var gs = svg.getElementsByTagName('g'), W = svg.width.baseVal.value - 20;\n"
"	function frame(e) {\n"
"		for (var n = e.target; n && n !== svg; n = n.parentNode)\n"
"			if (n.getAttribute && n.getAttribute('class') === 'f')\n"
"				return n;\n"
"		return null;\n"
"	}\n"
"	svg.addEventListener('mouseover', function (e) {\n"
"		var g = frame(e);\n"
"		det.textContent = g ? g.getAttribute('data-t') : ' ';\n"
"	});\n"
"	svg.addEventListener('mouseout', function () {\n"
"		det.textContent = ' ';\n"
"	});\n"
"	/* click: zoom on a frame, its callers full width; elsewhere: reset */\n"
"	svg.addEventListener('click', function (e) {\n"
"		var g = frame(e), x0 = 10, w0 = W;\n"
"		if (g) {\n"
"			x0 = +g.getAttribute('data-x');\n"
"			w0 = +g.getAttribute('data-w');\n"
"		}\n"
"		for (var i = 0; i < gs.length; i++) {\n"
"			var n = gs[i], x = +n.getAttribute('data-x');\n"
"			var w = +n.getAttribute('data-w');\n"
"			var r = n.getElementsByTagName('rect')[0];\n"
"			var t = n.getElementsByTagName('text')[0];\n"
"			var name = n.getAttribute('data-n'), c, nx, nw;\n"
"			if (x + w <= x0 + 1e-6 || x >= x0 + w0 - 1e-6) {\n"
"				n.style.display = 'none';\n"
"				continue;\n"
"			}\n"
"			n.style.display = '';\n"
"			nx = 10 + Math.max(0, x - x0) * W / w0;\n"
"			nw = Math.min(x + w, x0 + w0) - Math.max(x, x0);\n"
"			nw = nw * W / w0;\n"
"			r.setAttribute('x', nx);\n"
"			r.setAttribute('width', nw);\n"
"			t.setAttribute('x', nx + 3);\n"
"			c = nw > 20 ? Math.floor((nw - 6) / 7) : 0;\n"
"			t.textContent = c >= name.length ? name :\n"
"				c > 2 ? name.substring(0, c - 2) + '..' : '';\n"
"		}\n"
"	});\n"
"})();\n"
"]]></script>\n";

static int write_svg(const char *path, const struct hist *h, int sk)
{
	struct ftree t = { .cap = 64 };
	size_t nr, n, node;
	struct folded *fl = fold(h, sk, &nr);
	unsigned long long total = 0;
	unsigned int depth;
	const char *s;
	size_t len;
	int height, ret = 0;
	FILE *f;

	t.n = hist__xrealloc(NULL, t.cap * sizeof(*t.n));
	memset(&t.n[0], 0, sizeof(t.n[0]));
	t.n[0].name = xstrndup("all", 3);
	t.nr = 1;
	for (n = 0; n < nr; n++) {
		node = 0;
		depth = 0;
		t.n[0].count += fl[n].count;
		for (s = fl[n].line; *s; s += len + (s[len] == ';')) {
			len = strcspn(s, ";");
			node = ftree_child(&t, node, s, len);
			t.n[node].count += fl[n].count;
			depth++;
		}
		if (depth > t.depth)
			t.depth = depth;
	}
	total = t.n[0].count;
	height = (int)(t.depth + 1) * SVG_ROW + 80;
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "kptrace: cannot write %s: %s\n", path,
			strerror(errno));
		ret = -1;
		goto out;
	}
	fprintf(f, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" id=\"kptflame\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" xmlns=\"http://www.w3.org/2000/svg\">\n"
		"<style>text { font-family: monospace; font-size: 12px; } .f:hover rect { stroke: #000; stroke-width: 0.5; } .f { cursor: pointer; }</style>\n"
		"<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#f8f8f8\"/>\n"
		"<text x=\"%d\" y=\"24\" text-anchor=\"middle\" style=\"font-size: 17px\">kptrace hist ",
		SVG_WIDTH, height, SVG_WIDTH, height, SVG_WIDTH, height,
		SVG_WIDTH / 2);
	xml_name(f, h->name);
	fprintf(f, " (%llu samples)</text>\n<text id=\"kptdetails\" x=\"%d\" y=\"%d\"> </text>\n",
		total, SVG_PAD, height - 14);
	if (total)
		svg_node(f, &t, 0, SVG_PAD, 0, total, height);
	fputs(svg_script, f);
	fputs("</svg>\n", f);
	if (fclose(f)) {
		fprintf(stderr, "kptrace: cannot write %s: %s\n", path,
			strerror(errno));
		ret = -1;
	}
out:
	for (n = 0; n < t.nr; n++)
		free(t.n[n].name);
	free(t.n);
	free_folded(fl, nr);
	return ret;
}

/* --- the command ------------------------------------------------------------ */

static const char hist_usage[] =
"Usage: kptrace hist [OPTION]... [NAME]\n"
"Print the in-kernel aggregation NAME of a probe whose spec ends with\n"
"hist:keys=...: the table of " HIST_DIR "NAME, read in binary\n"
"through " DEVICE_PATH " (ioctl KPT_IOC_HIST).\n"
"Without NAME, list the aggregations.\n"
"\n"
"  (default)              histograms with bars when a key is .log2, .loglin\n"
"                         or .buckets=N, one per value of the other keys,\n"
"                         with count, min..max and percentiles for .loglin\n"
"                         (the midpoint of the bucket holding the rank:\n"
"                         within 3.2%); else a table sorted by sort=;\n"
"                         then the Totals (exit 1 if they do not add up)\n"
"  -j, --json             one JSON object\n"
"      --folded           folded stacks (flamegraph.pl, speedscope): a\n"
"                         line per stack, outermost frame first, comm and\n"
"                         the other keys as root frames; needs a\n"
"                         stacktrace key\n"
"      --offsets          keep the +0xOFF/0xSIZE of the frames (--folded,\n"
"                         --svg); by default the same functions merge\n"
"      --svg=FILE         write an interactive flame graph SVG to FILE\n"
"                         (hover: frame, samples and share; click: zoom)\n"
"  -i, --interval=SECS    every SECS seconds clear the table and print the\n"
"                         interval that ended, after a time header line\n"
"                         (with -j: one object per interval, no header)\n"
"  -c, --count=N          with -i: stop after N intervals\n"
"  -d, --duration=SECS    with -i: stop after SECS seconds\n"
"      --prometheus=DIR   write DIR/kptrace_NAME.prom (atomically) for\n"
"                         node_exporter's textfile collector; with -i,\n"
"                         rewrite it every interval without clearing.\n"
"                         Fixed metric names kptrace_hist_*: the hist's,\n"
"                         keys' and values' names are labels (hist=,\n"
"                         KEY=, val=, field=). Counters are kptrace's\n"
"                         running totals: each interval adds what the\n"
"                         table's counts grew, and a count lower than\n"
"                         before (another reader cleared the table) is\n"
"                         added whole, so they never go back\n"
"  -h, --help             print this help and exit\n"
"\n"
"Ctrl-C (SIGINT) or SIGTERM ends -i after printing the interval so far.\n"
"\n"
"EXAMPLES:\n"
"    kptrace probe add 'r:lat do_sys_openat2 hist:keys=comm,lat_ns.loglin'\n"
"    kptrace hist                       # the aggregations\n"
"    kptrace hist lat                   # latency histograms per comm\n"
"    kptrace hist lat -j                # as JSON\n"
"    kptrace probe add 'p:rd vfs_read hist:keys=comm,stacktrace'\n"
"    kptrace hist rd --folded > out.folded   # for flamegraph.pl\n"
"    kptrace hist rd --svg rd.svg       # a flame graph, no script needed\n"
"    kptrace hist lat -i 5              # every 5 s, the last 5 s\n"
"    kptrace hist lat -i 15 --prometheus /var/lib/prometheus/node-exporter\n"
"\n"
"ENVIRONMENT (for tests):\n"
"    KPTRACE_HIST_DIR replaces " HIST_DIR "; set, NAME is read as text\n"
"    from that directory, not through the device.\n"
"    KPTRACE_DEVICE replaces " DEVICE_PATH ".\n"
"    KPTRACE_HIST_BUF: the first buffer of a read, bytes (65536).\n";

static void hist_usage_err(const char *fmt, const char *arg)
{
	fputs("kptrace: ", stderr);
	fprintf(stderr, fmt, arg);
	fputs("\nTry 'kptrace hist --help' for more information.\n", stderr);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char * const *)a, *(char * const *)b);
}

static const char no_hist_hint[] = "is the kptrace module loaded? add one with:";
static const char no_hist_ex[] =
	"kptrace probe add 'r:lat do_sys_openat2 hist:keys=comm,lat_ns.log2'";

static int list_hists(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **names = NULL;
	size_t nr = 0, n;

	if (!d) {
		fprintf(stderr, "kptrace: cannot read %s (%s): %s %s\n", dir,
			strerror(errno), no_hist_hint, no_hist_ex);
		return 1;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		names = hist__xrealloc(names, (nr + 1) * sizeof(*names));
		names[nr++] = xstrndup(de->d_name, strlen(de->d_name));
	}
	closedir(d);
	if (!nr) {
		fprintf(stderr, "kptrace: no aggregation in %s: %s %s\n", dir,
			no_hist_hint, no_hist_ex);
		free(names);
		return 1;
	}
	qsort(names, nr, sizeof(*names), cmp_str);
	for (n = 0; n < nr; n++) {
		put_esc(stdout, names[n], " ");
		putchar('\n');
		free(names[n]);
	}
	free(names);
	return 0;
}

/* The whole file from offset 0 (debugfs files have no size). */
static char *read_all(int fd, const char *path)
{
	size_t cap = 65536, len = 0;
	char *buf = hist__xrealloc(NULL, cap);
	ssize_t n;

	for (;;) {
		if (len + 1 >= cap) {
			cap *= 2;
			buf = hist__xrealloc(buf, cap);
		}
		n = pread(fd, buf + len, cap - len - 1, (off_t)len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fprintf(stderr, "kptrace: cannot read %s: %s\n", path,
				strerror(errno));
			free(buf);
			return NULL;
		}
		if (!n)
			break;
		len += (size_t)n;
	}
	buf[len] = 0;
	return buf;
}

static int open_hist(const char *path, const char *name, int flags)
{
	int fd = henv.dev ? hist_bin__open(path, false) :
		 open(path, flags | O_CLOEXEC);

	if (henv.dev)
		return fd < 0 ? -1 : fd;	/* said why; an older module */
	if (fd < 0 && errno == ENOENT)
		fprintf(stderr, "kptrace: no aggregation %s (see: kptrace hist)\n",
			name);
	else if (fd < 0)
		fprintf(stderr, "kptrace: cannot open %s: %s\n", path,
			strerror(errno));
	return fd;
}

/*
 * Parses and prints what @fd holds (the device: @name's table, through
 * KPT_IOC_HIST, hist_bin.c). 0 ok, 1 error, 2 usage error.
 */
static int show_fd(int fd, const char *path, const char *name)
{
	char *text = henv.dev ? NULL : read_all(fd, path);
	char err[512];
	struct hist h;
	int ret = 0, bk, sk;

	if (!text && !henv.dev)
		return 1;
	if (henv.dev ? hist_bin__read(fd, name, henv.clear, &h, err, sizeof(err)) :
	    hist__parse(text, &h, err, sizeof(err))) {
		fprintf(stderr, "kptrace: %s%s%s\n", henv.dev ? "" : path,
			henv.dev ? "" : ": ", err);
		free(text);
		return 1;
	}
	free(text);
	bk = hist__bucket_key(&h);
	sk = stack_key(&h);
	if ((henv.folded || henv.svg) && sk < 0) {
		fprintf(stderr, "kptrace: %s needs a stacktrace key, %s has none: %.*s\n",
			henv.folded ? "--folded" : "--svg", name,
			(int)strcspn(strstr(h.probe, "hist:") + 5, ":") + 5,
			strstr(h.probe, "hist:"));
		hist__free(&h);
		return EXIT_USAGE;
	}
	if (henv.prom_dir && hist_prom__write(&prom, henv.prom_dir, name, &h))
		ret = 1;
	if (henv.json) {
		print_json(stdout, &h);
	} else if (henv.folded) {
		print_folded(stdout, &h, sk);
	} else if (henv.svg) {
		if (write_svg(henv.svg, &h, sk))
			ret = 1;
	} else if (!henv.prom_dir) {
		if (bk >= 0)
			print_hists(stdout, &h, bk);
		else
			print_table(stdout, &h);
		print_totals(stdout, &h);
	}
	if (hist__check(&h, err, sizeof(err))) {
		fflush(stdout);
		fprintf(stderr, "kptrace: warning: %s: the totals do not add up: %s\n",
			name, err);
		ret = 1;
	}
	hist__free(&h);
	return ret;
}

static void hist_stop(int sig)
{
	(void)sig;
	hist_exiting = 1;
}

static bool on_debugfs(int fd)
{
	struct statfs st;

	return !fstatfs(fd, &st) && ((unsigned long)st.f_type == DEBUGFS_MAGIC_ ||
				     (unsigned long)st.f_type == TRACEFS_MAGIC_);
}

/*
 * -i: each interval ends with "clear" written to the open file; reading
 * that fd from 0 then gives the table that was swapped out. A regular file
 * of the host tests has no clear: nothing is written to it. --prometheus
 * never clears and opens the file afresh: its counters are the running
 * totals of the live reads (hist_prom.c), which another reader's clears
 * do not set back.
 */
static int run_interval(const char *path, const char *name)
{
	struct sigaction sa = { .sa_handler = hist_stop };
	struct timespec start, next, end, now;
	unsigned long long n = 0;
	bool last = false, clear;
	int fd = -1, ret = 0, r;
	char stamp[64];
	time_t wall;

	fd = open(path, (henv.prom_dir ? O_RDONLY : O_RDWR) | O_CLOEXEC);
	if (fd < 0 && (errno == EACCES || errno == EPERM || errno == EROFS))
		fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fd = open_hist(path, name, O_RDONLY);	/* says why */
		if (fd < 0)
			return 1;
	}
	clear = !henv.prom_dir && (henv.dev || on_debugfs(fd));
	henv.clear = clear;	/* the device: the read clears */
	if (clear && (fcntl(fd, F_GETFL) & O_ACCMODE) == O_RDONLY) {
		fprintf(stderr, "kptrace: cannot clear %s: it needs write access (root)\n",
			path);
		close(fd);
		return 1;
	}
	if (henv.prom_dir) {
		close(fd);
		fd = -1;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	clock_gettime(CLOCK_MONOTONIC, &start);
	end = start;
	end.tv_sec += henv.duration;
	while (!last) {
		next = start;
		next.tv_sec += (time_t)((n + 1) * henv.interval);
		if (henv.duration && next.tv_sec >= end.tv_sec) {
			next = end;
			last = true;
		}
		while (!hist_exiting &&
		       clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next,
				       NULL) == EINTR)
			;
		if (hist_exiting)
			last = true;
		n++;
		if (henv.count && n >= henv.count)
			last = true;
		if (henv.prom_dir) {
			fd = open_hist(path, name, O_RDONLY);
			if (fd < 0)
				return 1;
		} else if (clear && !henv.dev &&
			   pwrite(fd, "clear\n", 6, 0) != 6) {
			fprintf(stderr, "kptrace: cannot clear %s: %s\n", path,
				strerror(errno));
			close(fd);
			return 1;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		wall = time(NULL);
		strftime(stamp, sizeof(stamp), "%Y-%m-%d %H:%M:%S",
			 localtime(&wall));
		if (!henv.json && (!henv.prom_dir || henv.folded || henv.svg))
			printf("=== %s %s interval %llu (%.1f s) ===\n", stamp,
			       name, n, (double)(now.tv_sec - start.tv_sec) -
			       (double)((n - 1) * henv.interval) +
			       (now.tv_nsec - start.tv_nsec) / 1e9);
		r = show_fd(fd, path, name);
		if (henv.prom_dir) {
			close(fd);
			fd = -1;
		}
		if (r == EXIT_USAGE) {
			ret = r;
			break;
		}
		if (r)
			ret = 1;
		if (fflush(stdout))
			break;
	}
	if (fd >= 0)
		close(fd);
	return ret;
}

static int parse_uint(const char *s, const char *opt, unsigned long long *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 10);
	if (errno || end == s || *end || !*v || *s == '-' || *v > UINT_MAX) {
		fprintf(stderr, "kptrace: invalid %s '%s': a number > 0\n", opt,
			s);
		return -1;
	}
	return 0;
}

int hist__main(int argc, char **argv)
{
	enum { OPT_FOLDED = 256, OPT_OFFSETS, OPT_SVG, OPT_PROM };
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "folded", no_argument, NULL, OPT_FOLDED },
		{ "offsets", no_argument, NULL, OPT_OFFSETS },
		{ "svg", required_argument, NULL, OPT_SVG },
		{ "interval", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'c' },
		{ "duration", required_argument, NULL, 'd' },
		{ "prometheus", required_argument, NULL, OPT_PROM },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dir = path_from_env("KPTRACE_HIST_DIR", HIST_DIR);
	unsigned long long v;
	const char *name;
	char path[PATH_MAX];
	int opt, fd, ret, forms;

	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":ji:c:d:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			henv.json = true;
			break;
		case OPT_FOLDED:
			henv.folded = true;
			break;
		case OPT_OFFSETS:
			henv.offsets = true;
			break;
		case OPT_SVG:
			henv.svg = optarg;
			break;
		case OPT_PROM:
			henv.prom_dir = optarg;
			break;
		case 'i':
			if (parse_uint(optarg, "--interval", &v))
				return EXIT_USAGE;
			henv.interval = (unsigned int)v;
			break;
		case 'c':
			if (parse_uint(optarg, "--count", &v))
				return EXIT_USAGE;
			henv.count = v;
			break;
		case 'd':
			if (parse_uint(optarg, "--duration", &v))
				return EXIT_USAGE;
			henv.duration = (unsigned int)v;
			break;
		case 'h':
			fputs(hist_usage, stdout);
			return 0;
		case ':':
			hist_usage_err("option '%s' needs an argument",
				       argv[optind - 1]);
			return EXIT_USAGE;
		default:
			hist_usage_err("invalid option '%s' for hist",
				       argv[optind - 1]);
			return EXIT_USAGE;
		}
	}
	forms = henv.json + henv.folded + !!henv.svg;
	if (forms > 1) {
		hist_usage_err("%s", "-j, --folded and --svg exclude each other");
		return EXIT_USAGE;
	}
	if ((henv.count || henv.duration) && !henv.interval) {
		hist_usage_err("%s", "-c and -d need -i");
		return EXIT_USAGE;
	}
	if (optind == argc) {
		if (forms || henv.interval || henv.prom_dir) {
			hist_usage_err("%s", "these options need a NAME");
			return EXIT_USAGE;
		}
		return list_hists(dir);
	}
	if (optind + 1 < argc) {
		hist_usage_err("unexpected argument '%s'", argv[optind + 1]);
		return EXIT_USAGE;
	}
	name = argv[optind];
	if (!*name || strchr(name, '/') || *name == '.') {
		fprintf(stderr, "kptrace: no aggregation %s (see: kptrace hist)\n",
			name);
		return 1;
	}
	snprintf(path, sizeof(path), "%s%s%s", dir,
		 dir[strlen(dir) - 1] == '/' ? "" : "/", name);
	/*
	 * The binary form through the device (hist_bin.c), but for the text
	 * files KPTRACE_HIST_DIR names, and with a module that has no
	 * KPT_IOC_HIST (then the text file).
	 */
	if (!getenv("KPTRACE_HIST_DIR") || !*getenv("KPTRACE_HIST_DIR")) {
		fd = hist_bin__open(path_from_env("KPTRACE_DEVICE", DEVICE_PATH),
				    false);
		if (fd == -1)
			return 1;
		if (fd >= 0) {
			close(fd);
			henv.dev = true;
			snprintf(path, sizeof(path), "%s",
				 path_from_env("KPTRACE_DEVICE", DEVICE_PATH));
		}
	}
	if (henv.interval) {
		ret = run_interval(path, name);
		hist_prom__free(&prom);
		return ret;
	}
	fd = open_hist(path, name, O_RDONLY);
	if (fd < 0)
		return 1;
	ret = show_fd(fd, path, name);
	close(fd);
	hist_prom__free(&prom);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "kptrace: cannot write the output: %s\n",
			strerror(errno));
		return 1;
	}
	return ret;
}
