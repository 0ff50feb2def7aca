// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_btf: libFuzzer target of the BTF reader (kbtf.c), built with
 * AddressSanitizer and UBSan by `make fuzz` (clang). An input is two
 * files: the size of the first (4 bytes, little-endian), the first, which
 * becomes vmlinux, then the rest, which becomes the module kpt_test's
 * split BTF (test/gen_btf DIR seed writes one). Both are written to a
 * directory of their own and read through kbtf__func(), as the reader
 * reads /sys/kernel/btf. Beyond "no crash, no undefined behaviour": every
 * answer is 0, -ENOENT or -ENODATA, the last with a reason.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/types.h>

#include "kbtf.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static char dir[64];
static char path[2][128];

static void cleanup(void)
{
	unlink(path[0]);
	unlink(path[1]);
	rmdir(dir);
}

static void put(const char *p, const __u8 *data, size_t size)
{
	FILE *f;

	/* a new file, not one cut to 0: ext4 would flush it at close */
	unlink(p);
	f = fopen(p, "w");
	if (!f || fwrite(data, 1, size, f) != size || fclose(f)) {
		perror(p);
		abort();
	}
}

static const char * const funcs[] = {
	"do_sys_openat2", "many_args", "big_struct", "with_float", "cpu_fn",
	"printk_like", "tagged", "fn_ptr", "kpt_test_func", "kpt_test_own",
};

/* libFuzzer's entry point: its name is libFuzzer's */
int LLVMFuzzerTestOneInput(const __u8 *data, size_t size)
{
	size_t base = size;
	struct kbtf_func fn;
	struct kbtf *kbtf;
	const char *why;
	unsigned int i, m;
	int ret;

	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "%s/kbtf-fuzz.XXXXXX",
			 access("/dev/shm", W_OK) ? "/tmp" : "/dev/shm");
		if (!mkdtemp(dir))
			abort();
		snprintf(path[0], sizeof(path[0]), "%s/vmlinux", dir);
		snprintf(path[1], sizeof(path[1]), "%s/kpt_test", dir);
		atexit(cleanup);
	}
	if (size >= 4) {
		base = data[0] | data[1] << 8 | data[2] << 16 |
		       (size_t)data[3] << 24;
		data += 4;
		size -= 4;
		if (base > size)
			base = size;
	}
	put(path[0], data, base);
	put(path[1], data + base, size - base);

	kbtf = kbtf__new(dir);
	if (!kbtf)
		abort();
	for (m = 0; m < 2; m++) {
		for (i = 0; i < ARRAY_SIZE(funcs); i++) {
			why = NULL;
			ret = kbtf__func(kbtf, m ? "kpt_test" : NULL, funcs[i],
					 &fn, &why);
			if (ret == -ENOENT || (ret == -ENODATA && why && *why))
				continue;
			if (ret || fn.nparams > KBTF_MAX_PARAMS) {
				fprintf(stderr, "bad answer: %d, %u params\n",
					ret, fn.nparams);
				abort();
			}
		}
	}
	kbtf__free(kbtf);
	return 0;
}
