/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kptrace: what the files of the spec parser share, and nothing outside
 * them includes: the kernel's or libc's headers, the parser's cursor, the
 * lexing helpers every clause uses, and each clause's parser and printer,
 * which kpt_spec_parse() and kpt_spec_print() call in the line's order.
 *
 *   spec.c        the line: the cursor's helpers, the head, the target,
 *                 kpt_spec_parse(), kpt_spec_print()
 *   spec_fetch.c  fetchargs and their types
 *   spec_cond.c   fields, and the "if" condition
 *   spec_hist.c   the hist: clause
 *   spec_sys.c    the options of an s probe
 *   spec_glob.c   comm globs
 */
#ifndef _KPT_SPEC_IMPL_H
#define _KPT_SPEC_IMPL_H

#ifdef __KERNEL__
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/errno.h>
#include <linux/kprobes.h>
#else
#define NOKPROBE_SYMBOL(fn)
#include <string.h>
#include <errno.h>
#include <stdio.h>
#define scnprintf kpt_scnprintf
int kpt_scnprintf(char *buf, int len, const char *fmt, ...);
#endif
#include <uapi/kptrace_record.h>
#include "spec.h"

#define KPT_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* The parser's cursor: the whole line, for error positions. */
struct kpt_cursor {
	const char	*line;
	const char	*p;
	struct kpt_spec	*spec;
};

static inline int kpt_fail(struct kpt_cursor *c, const char *at,
			   const char *msg)
{
	c->spec->err_pos = (int)(at - c->line);
	c->spec->err_msg = msg;
	return -EINVAL;
}

static inline int kpt_is_space(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r';
}

static inline int kpt_is_digit(char ch)
{
	return ch >= '0' && ch <= '9';
}

static inline int kpt_is_ident(char ch, int first)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	       ch == '_' || (!first && kpt_is_digit(ch));
}

static inline int kpt_is_quote(char ch)
{
	return ch == '"' || ch == '\'';
}

static inline void kpt_skip_space(struct kpt_cursor *c)
{
	while (kpt_is_space(*c->p))
		c->p++;
}

/* spec.c: numbers and names */
int kpt_word_has(const char *p, char ch);
int kpt_scan_u64(struct kpt_cursor *c, __u64 *val);
int kpt_parse_u64(struct kpt_cursor *c, __u64 *val);
int kpt_parse_s64(struct kpt_cursor *c, __s64 *val);
int kpt_parse_ident(struct kpt_cursor *c, char *out, int len,
		    const char *what);

/* spec_fetch.c */
int kpt_arg_lookup(const struct kpt_spec *spec, const char *name,
		   size_t len);
int kpt_parse_arg(struct kpt_cursor *c);
int kpt_args_print(const struct kpt_spec *spec, int hide, char *buf, int len);

/* spec_cond.c: the names of enum kpt_cond_field, from KPT_CF_RETVAL */
#define KPT_CF_NR	(KPT_CF_STACKTRACE - KPT_CF_RETVAL + 1)
extern const char * const kpt_field_names[KPT_CF_NR];
int kpt_parse_field(struct kpt_cursor *c, __u16 *field);
int kpt_parse_cond(struct kpt_cursor *c);
int kpt_cond_print(const struct kpt_spec *spec, char *buf, int len);

/* spec_hist.c (kpt_hist_print() is in spec.h) */
int kpt_at_hist(const struct kpt_cursor *c);
int kpt_parse_hist(struct kpt_cursor *c);

/* spec_sys.c */
void kpt_sys_fetchargs(struct kpt_spec *spec);
int kpt_parse_sys(struct kpt_cursor *c);
int kpt_sys_print(const struct kpt_sys_spec *sys, char *buf, int len);

/* spec_glob.c (kpt_print_glob() and kpt_glob_match() are in spec.h) */
int kpt_parse_glob(struct kpt_cursor *c, const char *start,
		   char *glob, char quote, int quotes_ok);

#endif /* _KPT_SPEC_IMPL_H */
