// SPDX-License-Identifier: GPL-2.0
/*
 * Prometheus' text format, shared by the --prometheus outputs (kptrace
 * hist's and kptrace syscalls -s's): one escaping of label values, one
 * form of seconds, one way to write the file.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <uapi/kptrace_record.h>

#include "prom.h"

void prom__value(FILE *f, const char *s, size_t max)
{
	size_t i;

	for (i = 0; i < max && s[i]; i++) {
		unsigned char ch = s[i];

		if (ch == '"')
			fputs("\\\"", f);
		else if (kpt_byte_escaped(ch))
			fprintf(f, "\\\\x%02x", ch);
		else
			putc(ch, f);
	}
}

void prom__head(FILE *f, const char *metric, const char *type,
		const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", metric, help, metric,
		type);
}

/*
 * The digits of @ns, the point 9 digits from the right: dp digits before
 * it (0 or less: zeros after it first), trailing zeros dropped; then as
 * Go's 'g' with the shortest precision places them (strconv/ftoa.go:
 * %e when the exponent dp - 1 is below -4 or at least 6).
 */
void prom__seconds(FILE *f, unsigned long long ns)
{
	char d[24];
	int nd, dp, exp, i;

	if (!ns) {
		putc('0', f);
		return;
	}
	nd = snprintf(d, sizeof(d), "%llu", ns);
	dp = nd - 9;
	while (nd > 1 && d[nd - 1] == '0')
		nd--;
	exp = dp - 1;
	if (exp < -4 || exp >= 6) {
		putc(d[0], f);
		if (nd > 1)
			fprintf(f, ".%.*s", nd - 1, d + 1);
		fprintf(f, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
	} else if (dp <= 0) {
		fputs("0.", f);
		for (i = dp; i < 0; i++)
			putc('0', f);
		fprintf(f, "%.*s", nd, d);
	} else if (dp >= nd) {
		fprintf(f, "%.*s", nd, d);
		for (i = nd; i < dp; i++)
			putc('0', f);
	} else {
		fprintf(f, "%.*s.%.*s", dp, d, nd - dp, d + dp);
	}
}

int prom__write(const char *dir, const char *file, const char *text,
		size_t len)
{
	char tmp[PATH_MAX], path[PATH_MAX];
	size_t done = 0;
	ssize_t w;
	int fd, err;

	snprintf(tmp, sizeof(tmp), "%s/.%s.tmp", dir, file);
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		goto fail;
	while (done < len) {
		w = write(fd, text + done, len - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w == 0)
			errno = EIO;
		if (w <= 0)
			goto fail_close;
		done += (size_t)w;
	}
	if (fsync(fd))
		goto fail_close;
	if (close(fd)) {
		fd = -1;
		goto fail_close;
	}
	if (rename(tmp, path))
		goto fail;
	return 0;
fail_close:
	err = errno;
	if (fd >= 0)
		close(fd);
	errno = err;
fail:
	fprintf(stderr, "kptrace: cannot write %s: %s\n", path,
		strerror(errno));
	unlink(tmp);
	return -1;
}
