/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hist: `kptrace hist`, the reader of the module's in-kernel aggregations
 * (DEBUGFS_KPT "hist/NAME", ftrace's hist trigger text format).
 */
#ifndef __KPTRACE_HIST_H
#define __KPTRACE_HIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <uapi/kptrace.h>

#include "spec.h"

/* How a key's values are printed and kept. */
enum hist_kind {
	HK_NUM,		/* a number: decimal, signed or hex */
	HK_LOG2,	/* ~ 2^K: (2^(K-1), 2^K], K=0: 0 and 1 */
	HK_RANGE,	/* ~ LO-HI: .buckets=N (signed: ~ -10--1), .loglin */
	HK_STR,		/* comm and strings, unescaped */
	HK_SYM,		/* a symbol fetcharg: sym+0xOFF/0xSIZE [mod] */
	HK_STACK,	/* stacktrace: frames, innermost first */
};

struct hist_keydef {
	const char *name;
	unsigned int kind;	/* enum hist_kind */
	unsigned int mod;	/* enum kpt_hist_mod */
	bool is_signed;		/* HK_NUM, and HK_RANGE of .buckets=N */
	bool hex;
};

struct hist_key {
	unsigned long long num;	/* HK_NUM (bits of a signed one), HK_LOG2: K */
	unsigned long long lo, hi;	/* HK_LOG2, HK_RANGE (bits if signed) */
	char *str;		/* HK_STR, HK_SYM */
	char **frames;		/* HK_STACK */
	unsigned int nframes;
};

struct hist_val {
	unsigned long long sum, min, max;	/* bits of signed ones */
};

struct hist_entry {
	struct hist_key keys[KPT_HIST_MAX_KEYS];
	unsigned long long hitcount;
	struct hist_val vals[KPT_HIST_MAX_VALS];
	size_t order;		/* in the file */
};

enum hist_total {
	HT_HITS, HT_ENTRIES, HT_AGGREGATED, HT_FILTERED, HT_DROPPED,
	/* then one per enum kpt_hist_drop, in its order (uapi/kptrace.h) */
	HT_TABLE_FULL, HT_NESTED, HT_KEY_TOO_LARGE, HT_NR
};

struct hist {
	char *name;
	char *probe;		/* the canonical spec of the "# probe:" line */
	struct kpt_spec spec;
	unsigned int nkeys, nvals;
	struct hist_keydef keys[KPT_HIST_MAX_KEYS];
	const char *val_names[KPT_HIST_MAX_VALS];
	bool val_signed[KPT_HIST_MAX_VALS];
	struct hist_entry *e;
	size_t nr, cap;
	unsigned long long totals[HT_NR];
	bool live;		/* "# table: live": read while hits come in */
};

/* hist.c: `kptrace hist`; argv[0] is "hist". Returns the exit status. */
int hist__main(int argc, char **argv);

/* hist_parse.c: the text of a hist file, and what its keys are. */

/*
 * Parses the text of a hist file (NUL-terminated @text). On error returns
 * -1 with a message in @err (with the line number); @h is then freed.
 */
int hist__parse(const char *text, struct hist *h, char *err, size_t errlen);
void hist__free(struct hist *h);
/*
 * The invariants of the totals; 0 if they hold, else a message in @err.
 * A cleared interval adds up exactly; a live table may have its totals
 * ahead of its entries (read after them), never behind.
 */
int hist__check(const struct hist *h, char *err, size_t errlen);

/* The keys' and values' kinds and names, from h->spec (hist_bin.c too) */
void hist__setup_fields(struct hist *h);

/* [lo, hi] of the .loglin bucket of @v (as the module buckets). */
void hist__loglin_bucket(unsigned long long v, unsigned long long *lo,
			 unsigned long long *hi);
/* [lo, hi] of the .log2 bucket 2^@k: (2^(k-1), 2^k], k=0: [0, 1] */
void hist__log2_range(unsigned int k, unsigned long long *lo,
		      unsigned long long *hi);
/* @v (lo or hi of a key of @kd) as an unsigned number in the key's order */
unsigned long long hist__key_ord(const struct hist_keydef *kd,
				 unsigned long long v);
/* The first .log2, .loglin or .buckets key, else -1. */
int hist__bucket_key(const struct hist *h);
/* The value whose field is key @k's, for its sum, min and max; or -1. */
int hist__key_val(const struct hist *h, int k);

/* The name of total @i (enum hist_total) in the Totals block */
const char *hist__total_name(unsigned int i);
/* the causes of a dropped hit, as the module names them (uapi) */
extern const char * const hist__drop_names[KPT_HD_NR];

/* realloc() and strndup(), or a message and exit(1) */
void *hist__xrealloc(void *p, size_t n);
char *hist__xstrndup(const char *s, size_t n);

/* hist_print.c: text, for the terminal. */

/*
 * Up to @n bytes of untrusted text @s: what kpt_byte_escaped() names and
 * the bytes of @more as \xHH, the rest as it is.
 */
void hist__put_esc_n(FILE *f, const char *s, size_t n, const char *more);
void hist__put_esc(FILE *f, const char *s, const char *more);
void hist__put_num(FILE *f, unsigned long long v, bool is_signed, bool hex);
/* A key's value as text: a number, 2^K, LO-HI, or untrusted text escaped */
void hist__put_key(FILE *f, const struct hist_keydef *kd,
		   const struct hist_key *k);
/*
 * The entries of @h in the order of @cmp (hist__cmp_spec: the spec's
 * sort=, ties in file order), an array to free().
 */
struct hist_entry **hist__sorted(const struct hist *h,
				 int (*cmp)(const void *, const void *),
				 int skip);
int hist__cmp_spec(const void *pa, const void *pb);

/*
 * The forms of a hist that show_fd() (hist.c) prints, under the names it
 * calls them by; @bk: the bucketed key (hist__bucket_key()), @sk: the
 * stacktrace key.
 */
/* histograms with bars, one per value of the other keys */
void print_hists(FILE *f, const struct hist *h, int bk);
/* a table sorted by sort= (no bucketed key) */
void print_table(FILE *f, const struct hist *h);
/* the Totals block */
void print_totals(FILE *f, const struct hist *h);
/* hist_json.c: -j, one JSON object */
void print_json(FILE *f, const struct hist *h);
/* hist_flame.c: --folded, and --svg FILE (0, or -1 with a message) */
void print_folded(FILE *f, const struct hist *h, int sk);
int write_svg(const char *path, const struct hist *h, int sk);
/* --offsets: keep the +0xOFF/0xSIZE of the frames */
extern bool hist_flame__offsets;

/*
 * hist_prom.c: --prometheus. The file's counters are the tool's running
 * totals of what it read (see hist_prom.c), kept here between reads.
 */
struct hist_prom_row;

struct hist_prom {
	char *probe;		/* the spec they are of */
	struct hist_prom_row *rows;
	size_t nr;
	unsigned long long books[HT_NR];	/* running totals */
	unsigned long long raw[HT_NR];		/* as last read */
};

/* Adds the read @h to @p's totals, then writes DIR/kptrace_NAME.prom. */
int hist_prom__write(struct hist_prom *p, const char *dir, const char *name,
		     const struct hist *h);
void hist_prom__free(struct hist_prom *p);

#endif /* __KPTRACE_HIST_H */
