// SPDX-License-Identifier: GPL-2.0
/*
 * hist_parse: the text of a hist file (hist.c describes its format) into
 * a struct hist: the keys and values from the "# probe:" spec, the
 * entries, the Totals; the check that the totals add up; what a key's
 * value is (a number, a 2^K or LO-HI bucket, unescaped text, frames); and
 * which key is bucketed and which value goes with it.
 */
#include <assert.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uapi/kptrace_record.h>

#include "hist.h"

const char * const hist__drop_names[KPT_HD_NR] = KPT_HIST_DROP_NAMES;
static_assert(HT_NR - HT_TABLE_FULL == KPT_HD_NR,
	      "a total per cause of enum kpt_hist_drop");

/* The Totals block's names: "Dropped CAUSE" from the causes' names */
const char *hist__total_name(unsigned int i)
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

char *hist__xstrndup(const char *s, size_t n)
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
	char *buf = hist__xstrndup(v, len);
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
		k->str = hist__xstrndup(buf, len);
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
		k->frames[k->nframes++] = hist__xstrndup(s, len);
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
		if (!word(c, hist__total_name(i)) || !word(c, ":"))
			return perr(c, "expected '%s:' in the totals",
				    hist__total_name(i));
		if (parse_num(c, &h->totals[i]))
			return -1;
		skip_blanks(c);
		if (*c->p && *c->p != '\n')
			return perr(c, "unexpected text after %s",
				    hist__total_name(i));
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
			h->name = hist__xstrndup(c.p + 16, len - 16);
		else if (!strncmp(c.p, "# probe: ", 9))
			h->probe = hist__xstrndup(c.p + 9, len - 9);
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

int hist__bucket_key(const struct hist *h)
{
	unsigned int i;

	for (i = 0; i < h->nkeys; i++)
		if (h->keys[i].kind == HK_LOG2 || h->keys[i].kind == HK_RANGE)
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
