/* SPDX-License-Identifier: GPL-2.0 */
/*
 * json: JSON strings of raw bytes, for every JSON output of the tool.
 */
#ifndef __KPTRACE_JSON_H
#define __KPTRACE_JSON_H

#include <stddef.h>
#include <stdio.h>

/*
 * The inside of a JSON string: the bytes of @s up to its NUL or @max,
 * whichever comes first. '"' and '\' are escaped as \" and \\; every
 * other byte that kpt_byte_escaped() names (control characters, DEL and
 * bytes >= 0x80: uapi/kptrace_record.h) as \u00XX, so the output is plain
 * ASCII and valid UTF-8 whatever the bytes were, and \u00XX decodes to
 * the code point of the byte (U+0000..U+00FF).
 */
void json__chars(FILE *f, const char *s, size_t max);

/* The same, quoted. */
void json__str(FILE *f, const char *s, size_t max);

/* @len bytes, which may hold NULs, quoted. */
void json__bytes(FILE *f, const void *s, size_t len);

#endif /* __KPTRACE_JSON_H */
