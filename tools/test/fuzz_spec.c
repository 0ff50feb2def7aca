// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_spec: libFuzzer target of kpt_spec_parse() (include/spec/), built
 * with AddressSanitizer and UBSan by `make fuzz` (clang). Beyond "no
 * crash, no undefined behaviour", it checks what the parser promises:
 * an error has a column inside the line and a message, and a spec it
 * accepts prints (kpt_spec_print()) to a line that parses back to the
 * same text.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/types.h>

#include "spec.h"

static struct kpt_spec spec, spec2;

static char line[KPT_SPEC_LINE_MAX + 64];
static char out[KPT_SPEC_LINE_MAX], again[KPT_SPEC_LINE_MAX];

/* libFuzzer's entry point: its name is libFuzzer's */
int LLVMFuzzerTestOneInput(const __u8 *data, size_t size)
{
	size_t len = size < sizeof(line) - 1 ? size : sizeof(line) - 1;

	memcpy(line, data, len);
	line[len] = '\0';
	if (kpt_spec_parse(line, &spec)) {
		if (!spec.err_msg || spec.err_pos < 0 ||
		    (size_t)spec.err_pos > strlen(line)) {
			fprintf(stderr, "bad error: pos %d msg %s\n",
				spec.err_pos, spec.err_msg);
			abort();
		}
		return 0;
	}
	kpt_spec_print(&spec, 0, out, sizeof(out));
	if (kpt_spec_parse(out, &spec2)) {
		fprintf(stderr, "round trip: '%s' printed as '%s', refused at %d: %s\n",
			line, out, spec2.err_pos, spec2.err_msg);
		abort();
	}
	kpt_spec_print(&spec2, 0, again, sizeof(again));
	if (strcmp(out, again)) {
		fprintf(stderr, "round trip: '%s' -> '%s' -> '%s'\n", line,
			out, again);
		abort();
	}
	return 0;
}
