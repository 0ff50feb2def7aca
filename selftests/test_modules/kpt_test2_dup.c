// SPDX-License-Identifier: GPL-2.0
/*
 * kpt_test2: a second static kpt_dup() in the same module, as two files of
 * one module can have: "kpt_test2:kpt_dup" names two functions, which
 * kptrace refuses (only an address chooses). It returns a + 1000, so that
 * its return value tells it from the other.
 */
#include <linux/compiler.h>
#include "kpt_test2.h"

static noinline __noclone long kpt_dup(unsigned long a)
{
	barrier();
	return a + 1000;
}

/* n calls of this file's kpt_dup(i), i = 1..n */
void kpt_test2_dup2_calls(unsigned long n)
{
	unsigned long i;

	for (i = 1; i <= n; i++)
		kpt_dup(i);
}
