/* SPDX-License-Identifier: GPL-2.0 */
/*
 * prom: Prometheus' text format, for every --prometheus output of the tool
 * (hist_prom.c, syscalls_cmd.c): label values, the HELP and TYPE lines,
 * nanoseconds as seconds, and the file, written as node_exporter's
 * textfile collector wants it.
 */
#ifndef __KPTRACE_PROM_H
#define __KPTRACE_PROM_H

#include <stddef.h>
#include <stdio.h>

/*
 * A label value, untrusted text: the bytes of @s up to its NUL or @max,
 * '"' as \", and what kpt_byte_escaped() names (the one rule,
 * uapi/kptrace_record.h: a backslash too) as \\xHH, so that the value
 * reads \xHH: comm "a\nb" is comm="a\\x0ab".
 */
void prom__value(FILE *f, const char *s, size_t max);

/* "# HELP @metric @help" and "# TYPE @metric @type", once per family. */
void prom__head(FILE *f, const char *metric, const char *type,
		const char *help);

/*
 * @ns nanoseconds as seconds, exact (a u64 of ns has 20 digits at most),
 * in the form of Go's strconv.FormatFloat(v, 'g', -1, 64), which
 * Prometheus and its client libraries write: the significant digits,
 * e-notation when the exponent is below -4 or from 6 up (1.024e-06,
 * 1.6384e-05, 0.000131072, 1.073741824, 1099.511627776, 1e+06), 0 for 0.
 */
void prom__seconds(FILE *f, unsigned long long ns);

/*
 * @len bytes of @text as DIR/@file: written to DIR/.@file.tmp, fsync'ed
 * and renamed over DIR/@file, so that a scrape sees the old file or the
 * new one, never a part. 0, or -1 with a message (the temporary file
 * removed).
 */
int prom__write(const char *dir, const char *file, const char *text,
		size_t len);

#endif /* __KPTRACE_PROM_H */
