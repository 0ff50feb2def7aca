/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktap: the result lines of the host unit tests (test_spec, test_kbtf,
 * test_syscalls): "ok N name", or "not ok N name" and a "# why" line; the
 * counts in nr and failed for the "N passed, N failed" line at the end.
 */
#ifndef __KPTRACE_TEST_KTAP_H
#define __KPTRACE_TEST_KTAP_H

#include <stdarg.h>
#include <stdio.h>

static int nr, failed;

static void result(int ok, const char *name, const char *fmt, ...)
{
	va_list ap;

	nr++;
	if (ok) {
		printf("ok %d %s\n", nr, name);
		return;
	}
	failed++;
	printf("not ok %d %s\n# ", nr, name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

#endif /* __KPTRACE_TEST_KTAP_H */
