// SPDX-License-Identifier: GPL-2.0
/*
 * json: JSON strings of raw bytes. See json.h.
 */
#include <uapi/kptrace_record.h>

#include "json.h"

static void json__byte(FILE *f, unsigned char c)
{
	static const char hex[] = "0123456789abcdef";

	/* the one rule for untrusted text, but \\ for a backslash as JSON's */
	if (c == '"' || c == '\\') {
		putc_unlocked('\\', f);
		putc_unlocked(c, f);
	} else if (kpt_byte_escaped(c)) {
		fputs("\\u00", f);
		putc_unlocked(hex[c >> 4], f);
		putc_unlocked(hex[c & 0xf], f);
	} else {
		putc_unlocked(c, f);
	}
}

void json__chars(FILE *f, const char *s, size_t max)
{
	size_t i;

	for (i = 0; i < max && s[i]; i++)
		json__byte(f, s[i]);
}

void json__str(FILE *f, const char *s, size_t max)
{
	putc_unlocked('"', f);
	json__chars(f, s, max);
	putc_unlocked('"', f);
}

void json__bytes(FILE *f, const void *s, size_t len)
{
	const unsigned char *p = s;
	size_t i;

	putc_unlocked('"', f);
	for (i = 0; i < len; i++)
		json__byte(f, p[i]);
	putc_unlocked('"', f);
}
