// SPDX-License-Identifier: GPL-2.0
/*
 * kptrace: comm globs, parsed, printed and matched: a condition's
 * comm == GLOB (spec_cond.c) and an s probe's comm=GLOB (spec_sys.c).
 */
#include "spec_impl.h"

/*
 * A comm glob is read and printed by the one rule of untrusted text
 * (kpt_byte_escaped(), uapi/kptrace_record.h), so that the probes listing
 * prints no byte raw that a terminal obeys and still parses back: \xNN is
 * any byte but NUL, \\ a backslash. Written raw, a control byte (the
 * error line must stay printable) is refused, and so is a quote where the
 * glob may be quoted (a filter's); bytes from 0x80 on (UTF-8) are taken.
 */
#define KPT_GLOB_CONTROL \
	"a comm glob cannot hold control characters (write them \\xNN)"

static int kpt_is_control(char ch)
{
	return (unsigned char)ch < 0x20 || ch == 0x7f;
}

/* Shell-style glob with '*' and '?', as for a comm filter. */
int kpt_glob_match(const char *glob, const char *str)
{
	const char *star = NULL, *back = NULL;

	while (*str) {
		if (*glob == '*') {
			star = ++glob;
			back = str;
		} else if (*glob == '?' || *glob == *str) {
			glob++;
			str++;
		} else if (star) {
			glob = star;
			str = ++back;
		} else {
			return 0;
		}
	}
	while (*glob == '*')
		glob++;
	return !*glob;
}
NOKPROBE_SYMBOL(kpt_glob_match);

/*
 * kpt_parse_glob() - a comm glob at the cursor, decoded into @glob
 * @start: where an error of the whole glob (too long) points
 * @quote: the quote that ends it, or 0: a space (or the end) ends it
 * @quotes_ok: whether it may hold a raw quote (not where it may be quoted)
 *
 * An empty glob is the caller's to refuse, after its closing quote.
 */
int kpt_parse_glob(struct kpt_cursor *c, const char *start,
		   char *glob, char quote, int quotes_ok)
{
	int n = 0, hi, lo;

	while (*c->p && (quote ? *c->p != quote : !kpt_is_space(*c->p))) {
		const char *at = c->p;
		char ch = *c->p++;

		if (n == KPT_SPEC_GLOB_LEN - 1)
			return kpt_fail(c, start, "comm glob too long");
		if (ch == '\\' && *c->p == '\\') {
			c->p++;
		} else if (ch == '\\') {
			hi = *c->p == 'x' ? kpt_hexval(c->p[1]) : -1;
			lo = hi < 0 ? -1 : kpt_hexval(c->p[2]);
			if (lo < 0)
				return kpt_fail(c, at,
						"a comm glob escapes a byte as \\xNN, a backslash as \\\\");
			ch = (char)(hi << 4 | lo);
			if (!ch)
				return kpt_fail(c, at,
						"a comm glob cannot hold \\x00");
			c->p += 3;
		} else if (kpt_is_quote(ch) && !quotes_ok) {
			return kpt_fail(c, at,
					"a comm glob cannot hold quotes (write them \\xNN)");
		} else if (kpt_is_control(ch)) {
			return kpt_fail(c, at, KPT_GLOB_CONTROL);
		}
		glob[n++] = ch;
	}
	glob[n] = '\0';
	return 0;
}

/*
 * kpt_print_glob() - @glob as kpt_parse_glob() reads it back, and by the
 * one rule of untrusted text: \\ and \xNN, a quote as \xNN too, '#' (so
 * that no " #" in a glob reads as the listing's comment), and a space
 * unless @quoted (a filter's glob is printed between quotes). The tool
 * writes its -c GLOB into a spec line with it.
 */
int kpt_print_glob(const char *glob, int quoted, char *buf, int len)
{
	int n = 0;

	for (; *glob; glob++) {
		unsigned char ch = *glob;

		if (ch == '\\')
			n += scnprintf(buf + n, len - n, "\\\\");
		else if (kpt_byte_escaped(ch) || kpt_is_quote(ch) || ch == '#' ||
			 (ch == ' ' && !quoted))
			n += scnprintf(buf + n, len - n, "\\x%02x", ch);
		else
			n += scnprintf(buf + n, len - n, "%c", ch);
	}
	return n;
}
