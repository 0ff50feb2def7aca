// SPDX-License-Identifier: GPL-2.0
/*
 * kptrace: a probe spec's hist: clause, its aggregation, parsed and
 * printed (the fields it names are spec_cond.c's).
 *
 *   HIST     := hist:keys=KEY[,KEY]...[:vals=VAL[,VAL]...][:sort=S[.descending]]
 *               [:size=N][:events]        (ftrace's hist trigger words)
 *   KEY      := FIELD[.hex|.log2|.loglin|.buckets=N] | a string fetcharg
 *             | comm | stacktrace                     (at most 3)
 *   VAL      := hitcount | a numeric FIELD: its sum, min and max (4)
 */
#include "spec_impl.h"

static const char * const kpt_hist_mod_names[] = {
	[KPT_HM_NONE] = "", [KPT_HM_HEX] = ".hex", [KPT_HM_LOG2] = ".log2",
	[KPT_HM_LOGLIN] = ".loglin", [KPT_HM_BUCKETS] = ".buckets=",
};

/* Does the hist: clause start at the cursor? */
int kpt_at_hist(const struct kpt_cursor *c)
{
	return !strncmp(c->p, "hist:", 5);
}

static int kpt_hist_field_end(char ch)
{
	return !ch || ch == ',' || ch == ':' || kpt_is_space(ch) || ch == '#';
}

/* KEY := FIELD[.hex|.log2|.loglin|.buckets=N], VAL := FIELD (a number) */
static int kpt_parse_hist_field(struct kpt_cursor *c,
				struct kpt_hist_field *hf, int key)
{
	const char *start = c->p, *mod;
	unsigned int i;
	__u64 n;
	int ret;

	memset(hf, 0, sizeof(*hf));
	ret = kpt_parse_field(c, &hf->field);
	if (ret)
		return ret;
	hf->is_signed = kpt_field_signed(c->spec, hf->field);
	if (!key && !kpt_field_numeric(c->spec, hf->field))
		return kpt_fail(c, start, "a value must be a number");
	if (*c->p == '.') {
		mod = c->p;
		for (i = KPT_HM_HEX; i <= KPT_HM_BUCKETS; i++)
			if (!strncmp(c->p, kpt_hist_mod_names[i],
				     strlen(kpt_hist_mod_names[i])))
				break;
		if (!key)
			return kpt_fail(c, mod, "a value takes no modifier");
		if (i > KPT_HM_BUCKETS)
			return kpt_fail(c, mod,
					"expected .hex, .log2, .loglin or .buckets=N");
		if (!kpt_field_numeric(c->spec, hf->field))
			return kpt_fail(c, mod, "only a number takes a modifier");
		c->p += strlen(kpt_hist_mod_names[i]);
		hf->mod = (__u8)i;
		if (i == KPT_HM_BUCKETS) {
			ret = kpt_parse_u64(c, &n);
			if (ret)
				return ret;
			if (!n || n > 0xffffffffULL)
				return kpt_fail(c, mod,
						"the bucket size must be 1 to 4294967295");
			hf->buckets = (__u32)n;
		}
	}
	if (!kpt_hist_field_end(*c->p))
		return kpt_fail(c, c->p, "unexpected character in a hist field");
	return 0;
}

static int kpt_hist_word(struct kpt_cursor *c, const char *word)
{
	size_t len = strlen(word);

	if (strncmp(c->p, word, len))
		return 0;
	c->p += len;
	return 1;
}

/* @word as a whole field name: not "hitcount" of "hitcounts" */
static int kpt_hist_name(struct kpt_cursor *c, const char *word)
{
	size_t len = strlen(word);

	if (strncmp(c->p, word, len) || kpt_is_ident(c->p[len], 0))
		return 0;
	c->p += len;
	return 1;
}

/* sort=hitcount|KEY|VAL[.descending|.ascending], of those given before */
static int kpt_parse_hist_sort(struct kpt_cursor *c)
{
	struct kpt_hist_spec *h = &c->spec->hist;
	const char *start = c->p;
	unsigned int i;
	__u16 field;
	int ret;

	if (!h->nkeys)
		return kpt_fail(c, start, "sort= comes after keys=");
	if (kpt_hist_name(c, "hitcount")) {
		h->sort = KPT_HIST_SORT_HITCOUNT;
	} else {
		ret = kpt_parse_field(c, &field);
		if (ret)
			return ret;
		for (i = 0; i < h->nkeys; i++)
			if (h->keys[i].field == field)
				break;
		if (i < h->nkeys) {
			h->sort = (__u8)(KPT_HIST_SORT_KEY + i);
		} else {
			for (i = 0; i < h->nvals; i++)
				if (h->vals[i].field == field)
					break;
			if (i == h->nvals)
				return kpt_fail(c, start,
						"sort= takes hitcount or a key or value given before it");
			h->sort = (__u8)(KPT_HIST_SORT_VAL + i);
		}
	}
	if (kpt_hist_word(c, ".descending"))
		h->descending = 1;
	else
		kpt_hist_word(c, ".ascending");
	if (!kpt_hist_field_end(*c->p) || *c->p == ',')
		return kpt_fail(c, c->p, "sort= takes one field");
	return 0;
}

/* hist:keys=KEY[,KEY]...[:vals=VAL[,VAL]...][:sort=S][:size=N][:events] */
int kpt_parse_hist(struct kpt_cursor *c)
{
	struct kpt_hist_spec *h = &c->spec->hist;
	const char *hist = c->p, *start;
	unsigned int k;
	__u64 n;
	int ret;

	c->p += 5;	/* hist: */
	h->size = KPT_HIST_SIZE_DEF;
	for (;;) {
		start = c->p;
		if (kpt_hist_word(c, "keys=") || kpt_hist_word(c, "key=")) {
			if (h->nkeys)
				return kpt_fail(c, start, "keys= given twice");
			do {
				if (h->nkeys == KPT_HIST_MAX_KEYS)
					return kpt_fail(c, c->p,
							"too many keys (3)");
				start = c->p;
				ret = kpt_parse_hist_field(c,
							   &h->keys[h->nkeys],
							   1);
				if (ret)
					return ret;
				/* each once: the key's words are bounded */
				for (k = 0; k < h->nkeys; k++)
					if (h->keys[k].field ==
					    h->keys[h->nkeys].field)
						return kpt_fail(c, start,
								"a key given twice");
				h->nkeys++;
			} while (*c->p == ',' && c->p++);
		} else if (kpt_hist_word(c, "vals=") ||
			   kpt_hist_word(c, "values=")) {
			if (h->nvals)
				return kpt_fail(c, start, "vals= given twice");
			if (!h->nkeys)
				return kpt_fail(c, start,
						"vals= comes after keys=");
			do {
				if (kpt_hist_name(c, "hitcount"))
					continue;	/* always there */
				if (h->nvals == KPT_HIST_MAX_VALS)
					return kpt_fail(c, c->p,
							"too many values (4 and hitcount)");
				ret = kpt_parse_hist_field(c,
							   &h->vals[h->nvals],
							   0);
				if (ret)
					return ret;
				h->nvals++;
			} while (*c->p == ',' && c->p++);
		} else if (kpt_hist_word(c, "sort=")) {
			ret = kpt_parse_hist_sort(c);
			if (ret)
				return ret;
		} else if (kpt_hist_word(c, "size=")) {
			ret = kpt_parse_u64(c, &n);
			if (ret)
				return ret;
			if (!n || n > KPT_HIST_SIZE_MAX)
				return kpt_fail(c, start,
						"size= must be 1 to 131072 entries");
			h->size = (__u32)n;
			h->size_given = 1;
		} else if (kpt_hist_word(c, "events")) {
			h->events = 1;
		} else {
			return kpt_fail(c, start,
					"expected keys=, vals=, sort=, size= or events");
		}
		if (*c->p != ':')
			break;
		c->p++;
	}
	if (!h->nkeys)
		return kpt_fail(c, hist, "hist: needs keys=");
	kpt_skip_space(c);
	if (*c->p && *c->p != '#')
		return kpt_fail(c, c->p, "hist: must end the spec");
	return 0;
}

static int kpt_print_hist_field(const struct kpt_spec *spec,
				const struct kpt_hist_field *hf, char *buf,
				int len)
{
	int n = scnprintf(buf, len, "%s%s",
			  kpt_spec_field_name(spec, hf->field),
			  kpt_hist_mod_names[hf->mod]);

	if (hf->mod == KPT_HM_BUCKETS)
		n += scnprintf(buf + n, len - n, "%u", hf->buckets);
	return n;
}

/**
 * kpt_hist_print() - the canonical text of a spec's hist: part
 * @spec: parsed by kpt_spec_parse()
 * @buf: where to write
 * @len: room in @buf
 *
 * Every part spelled out, as ftrace's "trigger info" line. Nothing when
 * the spec has no hist. Returns the characters written.
 */
int kpt_hist_print(const struct kpt_spec *spec, char *buf, int len)
{
	const struct kpt_hist_spec *h = &spec->hist;
	const char *name;
	unsigned int i;
	int n;

	if (!h->nkeys)
		return 0;
	n = scnprintf(buf, len, "hist:keys=");
	for (i = 0; i < h->nkeys; i++) {
		if (i)
			n += scnprintf(buf + n, len - n, ",");
		n += kpt_print_hist_field(spec, &h->keys[i], buf + n, len - n);
	}
	n += scnprintf(buf + n, len - n, ":vals=hitcount");
	for (i = 0; i < h->nvals; i++) {
		n += scnprintf(buf + n, len - n, ",");
		n += kpt_print_hist_field(spec, &h->vals[i], buf + n, len - n);
	}
	if (h->sort == KPT_HIST_SORT_HITCOUNT)
		name = "hitcount";
	else if (h->sort < KPT_HIST_SORT_VAL)
		name = kpt_spec_field_name(spec,
					   h->keys[h->sort - KPT_HIST_SORT_KEY].field);
	else
		name = kpt_spec_field_name(spec,
					   h->vals[h->sort - KPT_HIST_SORT_VAL].field);
	n += scnprintf(buf + n, len - n, ":sort=%s", name);
	n += scnprintf(buf + n, len - n, "%s:size=%u%s",
		       h->descending ? ".descending" : "", h->size,
		       h->events ? ":events" : "");
	return n;
}
