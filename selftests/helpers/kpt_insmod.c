// SPDX-License-Identifier: GPL-2.0
/*
 * kpt_insmod: load a module and report the exact errno.
 *
 *   kpt_insmod FILE [PARAM=VALUE ...]
 *
 * prints "ok" and exits 0 when finit_module() succeeds, or prints
 * "errno=ENAME (strerror text)" and exits 1. insmod implementations print
 * different texts for the same errno (busybox says "unknown symbol in
 * module, or unknown parameter" for ENOENT, kmod "Invalid parameters" for
 * EINVAL); the tests compare errno names instead.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static const struct {
	int err;
	const char *name;
} names[] = {
	{ EPERM, "EPERM" }, { ENOENT, "ENOENT" }, { ESRCH, "ESRCH" },
	{ EIO, "EIO" }, { E2BIG, "E2BIG" }, { ENOEXEC, "ENOEXEC" },
	{ EAGAIN, "EAGAIN" }, { ENOMEM, "ENOMEM" }, { EACCES, "EACCES" },
	{ EFAULT, "EFAULT" }, { EBUSY, "EBUSY" }, { EEXIST, "EEXIST" },
	{ ENODEV, "ENODEV" }, { EINVAL, "EINVAL" }, { ENOSPC, "ENOSPC" },
	{ ERANGE, "ERANGE" }, { ENOSYS, "ENOSYS" }, { EILSEQ, "EILSEQ" },
	{ EOPNOTSUPP, "EOPNOTSUPP" }, { ENXIO, "ENXIO" },
	{ EOVERFLOW, "EOVERFLOW" }, { ETIMEDOUT, "ETIMEDOUT" },
	{ EADDRNOTAVAIL, "EADDRNOTAVAIL" },
};

int main(int argc, char **argv)
{
	size_t len = 1, i;
	char *params;
	int fd, err;

	if (argc < 2) {
		fprintf(stderr, "usage: kpt_insmod FILE [PARAM=VALUE ...]\n");
		return 2;
	}
	for (i = 2; i < (size_t)argc; i++)
		len += strlen(argv[i]) + 1;
	params = calloc(1, len);
	if (!params)
		return 2;
	for (i = 2; i < (size_t)argc; i++) {
		if (i > 2)
			strcat(params, " ");
		strcat(params, argv[i]);
	}
	fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "kpt_insmod: %s: %s\n", argv[1],
			strerror(errno));
		return 2;
	}
	if (!syscall(SYS_finit_module, fd, params, 0)) {
		printf("ok\n");
		return 0;
	}
	err = errno;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (names[i].err == err) {
			printf("errno=%s (%s)\n", names[i].name, strerror(err));
			return 1;
		}
	}
	printf("errno=%d (%s)\n", err, strerror(err));
	return 1;
}
