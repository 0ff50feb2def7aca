// SPDX-License-Identifier: GPL-2.0
/*
 * hist_json: `kptrace hist NAME -j`, a hist as one JSON object: its name
 * and probe, its keys with their modifiers, the entries sorted by the
 * spec's sort= (a key as a number, a bucket as lo and hi, text as a JSON
 * string, a stack as an array of frames) and the totals.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "hist.h"
#include "json.h"

static const char * const mod_names[] = {
	"", "hex", "log2", "loglin", "buckets",
};

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

void print_json(FILE *f, const struct hist *h)
{
	struct hist_entry **v = hist__sorted(h, hist__cmp_spec, -1);
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
