// SPDX-License-Identifier: GPL-2.0
/*
 * gen_hist: a .loglin hist file made from known values, for the test of
 * the percentiles of `kptrace hist`. The values (a skewed distribution of
 * latencies, a few of them under 16) are bucketed by the module's rule:
 * under 16 exact, else 16 buckets per power of 2. The true quantiles
 * (nearest rank) go to a second file, "p50 V" ... "p99.9 V".
 *
 *   gen_hist HIST_FILE QUANTILES_FILE
 */
#include <stdio.h>
#include <stdlib.h>

#define NR_VALUES	100000
#define NR_BUCKETS	2048

struct bucket {
	unsigned long long lo, hi, count, sum, min, max;
};

static unsigned long long seed = 42;

/* a 53-bit uniform in [0, 1), from a 64-bit LCG */
static double uniform(void)
{
	seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
	return (double)(seed >> 11) / 9007199254740992.0;
}

static void loglin(unsigned long long v, unsigned long long *lo,
		   unsigned long long *hi)
{
	unsigned long long w;
	int e;

	if (v < 16) {
		*lo = v;
		*hi = v;
		return;
	}
	e = 63 - __builtin_clzll(v);
	w = 1ULL << (e - 4);
	*lo = v & ~(w - 1);
	*hi = *lo + w - 1;
}

static int cmp(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a;
	unsigned long long y = *(const unsigned long long *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	static const double qs[] = { 0.5, 0.9, 0.99, 0.999 };
	static const char * const qn[] = { "p50", "p90", "p99", "p99.9" };
	static unsigned long long v[NR_VALUES];
	static struct bucket b[NR_BUCKETS];
	unsigned long long lo, hi, rank;
	size_t nb = 0, i, j;
	FILE *f, *q;

	if (argc != 3) {
		fputs("usage: gen_hist HIST_FILE QUANTILES_FILE\n", stderr);
		return 2;
	}
	for (i = 0; i < NR_VALUES; i++) {
		double u = uniform();

		if (u < 0.01)
			v[i] = (unsigned long long)(uniform() * 16);
		else
			v[i] = 500 + (unsigned long long)(2e6 * uniform() *
							  uniform() * uniform() *
							  uniform());
		loglin(v[i], &lo, &hi);
		for (j = 0; j < nb && b[j].lo != lo; j++)
			;
		if (j == nb) {
			if (nb == NR_BUCKETS)
				return 1;
			b[nb].lo = lo;
			b[nb].hi = hi;
			b[nb].min = ~0ULL;
			nb++;
		}
		b[j].count++;
		b[j].sum += v[i];
		if (v[i] < b[j].min)
			b[j].min = v[i];
		if (v[i] > b[j].max)
			b[j].max = v[i];
	}
	f = fopen(argv[1], "w");
	q = fopen(argv[2], "w");
	if (!f || !q)
		return 1;
	fputs("# kptrace hist: gen\n"
	      "# probe: r:kptrace/gen do_sys_openat2 hist:keys=lat_ns.loglin:vals=hitcount,lat_ns:sort=hitcount:size=2048\n"
	      "# trigger info: hist:keys=lat_ns.loglin:vals=hitcount,lat_ns:sort=hitcount:size=2048 [active]\n"
	      "#\n\n", f);
	for (j = 0; j < nb; j++) {
		fprintf(f, "{ lat_ns: ~ %llu-%llu } hitcount: %10llu",
			b[j].lo, b[j].hi, b[j].count);
		fprintf(f, "  lat_ns: %10llu  lat_ns.min: %10llu  lat_ns.max: %10llu\n",
			b[j].sum, b[j].min, b[j].max);
	}
	fprintf(f, "\nTotals:\n    Hits: %d\n    Entries: %zu\n    Aggregated: %d\n"
		"    Filtered: 0\n    Dropped: 0\n    Dropped table_full: 0\n"
		"    Dropped nested: 0\n    Dropped key_too_large: 0\n",
		NR_VALUES, nb, NR_VALUES);
	qsort(v, NR_VALUES, sizeof(v[0]), cmp);
	for (i = 0; i < 4; i++) {
		rank = (unsigned long long)(qs[i] * NR_VALUES + 0.999999);
		fprintf(q, "%s %llu\n", qn[i], v[rank - 1]);
	}
	fprintf(q, "min %llu\nmax %llu\n", v[0], v[NR_VALUES - 1]);
	return fclose(f) || fclose(q);
}
