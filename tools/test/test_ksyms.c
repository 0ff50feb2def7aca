// SPDX-License-Identifier: GPL-2.0
/*
 * test_ksyms: ksyms__load() and ksyms__find() against the fake kallsyms
 * in test/data/kallsyms: sizes, aliases, module symbols listed out of
 * order, non-text and zero-address lines, both ends of the table.
 *
 *	test_ksyms KALLSYMS
 *
 * Prints one line per failed check and exits 1 if any failed.
 */
#include <stdio.h>
#include <string.h>

#include "../ksyms.h"	/* not module/ksyms.h */

static int failed;

static void expect(const struct ksyms *ksyms, __u64 addr, const char *name,
		   __u64 off, __u64 size, const char *module)
{
	const struct ksym *sym;
	__u64 got_off = ~0ULL;

	sym = ksyms__find(ksyms, addr, &got_off);
	if (!name) {
		if (sym) {
			printf("0x%llx: expected no symbol, got %s\n",
			       (unsigned long long)addr, sym->name);
			failed = 1;
		}
		return;
	}
	if (!sym || strcmp(sym->name, name) || got_off != off ||
	    sym->size != size || (!module != !sym->module) ||
	    (module && strcmp(module, sym->module))) {
		printf("0x%llx: expected %s+0x%llx/0x%llx [%s], got %s+0x%llx/0x%llx [%s]\n",
		       (unsigned long long)addr, name,
		       (unsigned long long)off, (unsigned long long)size,
		       module ? module : "",
		       sym ? sym->name : "(none)", (unsigned long long)got_off,
		       sym ? (unsigned long long)sym->size : 0ULL,
		       sym && sym->module ? sym->module : "");
		failed = 1;
	}
}

int main(int argc, char **argv)
{
	struct ksyms *ksyms;

	if (argc != 2) {
		fprintf(stderr, "usage: test_ksyms KALLSYMS\n");
		return 2;
	}
	ksyms = ksyms__load(argv[1]);
	if (!ksyms) {
		perror(argv[1]);
		return 1;
	}
	/* 12 text symbols: fixed_percpu_data (0, A) and some_data (D) skipped */
	if (ksyms__count(ksyms) != 12) {
		printf("expected 12 symbols, got %zu\n", ksyms__count(ksyms));
		failed = 1;
	}

	expect(ksyms, 0, NULL, 0, 0, NULL);
	expect(ksyms, 0xffffffff80ffffff, NULL, 0, 0, NULL);
	expect(ksyms, 0xffffffff81000000, "_stext", 0, 0x234500, NULL);
	expect(ksyms, 0xffffffff81234500, "do_sys_openat2", 0, 0x1a0, NULL);
	expect(ksyms, 0xffffffff8123469f, "do_sys_openat2", 0x19f, 0x1a0, NULL);
	expect(ksyms, 0xffffffff812346a0, "do_sys_open", 0, 0x50, NULL);
	/* aliases: the first one listed, as the kernel prints */
	expect(ksyms, 0xffffffff81300000, "__x64_sys_openat", 0, 0x80, NULL);
	expect(ksyms, 0xffffffff8130007f, "__x64_sys_openat", 0x7f, 0x80, NULL);
	/* data symbols do not cut text symbols */
	expect(ksyms, 0xffffffff81400010, "ksys_write", 0xfff90, 0xd00080,
	       NULL);
	/* modules: sorted although listed out of order */
	expect(ksyms, 0xffffffffc0400000, "kpt_test_call_loop", 0, 0x80,
	       "kpt_test");
	expect(ksyms, 0xffffffffc0400084, "kpt_test_func", 4, 0x40,
	       "kpt_test");
	expect(ksyms, 0xffffffffc04000ff, "kpt_test_sleep", 0x3f, 0x40,
	       "kpt_test");
	/* the last symbol has no known size: nothing matches it */
	expect(ksyms, 0xffffffffc0400100, NULL, 0, 0, NULL);
	expect(ksyms, ~0ULL, NULL, 0, 0, NULL);
	/* _etext's size reaches the first module symbol */
	expect(ksyms, 0xffffffff82000100, "_etext", 0, 0x3e3fff00, NULL);

	ksyms__free(ksyms);
	if (ksyms__find(NULL, 0xffffffff81234500, NULL)) {
		printf("ksyms__find(NULL) found something\n");
		failed = 1;
	}
	if (ksyms__load("/nonexistent/kallsyms")) {
		printf("ksyms__load of a missing file succeeded\n");
		failed = 1;
	}
	return failed;
}
