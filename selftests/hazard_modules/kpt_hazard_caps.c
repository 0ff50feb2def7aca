// SPDX-License-Identifier: GPL-2.0
/*
 * kpt_hazard_caps: open /dev/kptrace with fewer privileges than root, for
 * selftests/kpt_hazard_perm_*.sh (the guest has no setpriv or capsh).
 *
 *   kpt_hazard_caps [-d DEV] MODE
 *
 * MODE says what is dropped before open(DEV, O_RDONLY | O_NONBLOCK):
 *   unpriv    uid/gid 65534, no supplementary groups (every capability
 *             goes with uid 0)
 *   nocap     stays uid 0, drops CAP_SYS_ADMIN and CAP_PERFMON from every
 *             set (effective, permitted, inheritable, ambient, bounding),
 *             with no_new_privs
 *   nosyslog  stays uid 0, drops CAP_SYSLOG the same way, keeps the others
 *   root      drops nothing
 *
 * Prints one line: "MODE errno=NAME" when open() fails, or, when it works,
 * "MODE open=ok records=R entries=E stack_entries=S hidden=H
 * nonzero_frames=Z" after reading every pending record (O_NONBLOCK until
 * EAGAIN): S entries carry a stack, H of them have KPT_F_ADDR_HIDDEN, and
 * Z stack slots over all entries are not zero. Exit 0 when it could do
 * that, 1 on an unexpected error (message on stderr), 2 on usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>

#include <uapi/kptrace.h>

#ifndef CAP_PERFMON
#define CAP_PERFMON	38
#endif
#ifndef PR_CAP_AMBIENT
#define PR_CAP_AMBIENT			47
#define PR_CAP_AMBIENT_CLEAR_ALL	4
#endif

#define BUF_SIZE	(1 << 20)

static const char *errno_name(int err)
{
	switch (err) {
	case EPERM: return "EPERM";
	case EACCES: return "EACCES";
	case ENOENT: return "ENOENT";
	case ENODEV: return "ENODEV";
	case ENXIO: return "ENXIO";
	case EBUSY: return "EBUSY";
	default: return "E?";
	}
}

/* Drops the capabilities in @caps (-1 terminated) from every set. */
static int drop_caps(const int *caps)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];
	const int *c;

	for (c = caps; *c >= 0; c++) {
		if (prctl(PR_CAPBSET_DROP, *c, 0, 0, 0) && errno != EINVAL) {
			perror("kpt_hazard_caps: PR_CAPBSET_DROP");
			return -1;
		}
	}
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	if (syscall(SYS_capget, &hdr, data)) {
		perror("kpt_hazard_caps: capget");
		return -1;
	}
	for (c = caps; *c >= 0; c++) {
		uint32_t bit = 1u << (*c % 32);

		data[*c / 32].effective &= ~bit;
		data[*c / 32].permitted &= ~bit;
		data[*c / 32].inheritable &= ~bit;
	}
	if (syscall(SYS_capset, &hdr, data)) {
		perror("kpt_hazard_caps: capset");
		return -1;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
		perror("kpt_hazard_caps: PR_SET_NO_NEW_PRIVS");
		return -1;
	}
	return 0;
}

static int read_all(int fd, const char *mode)
{
	uint64_t records = 0, entries = 0, stacked = 0, hidden = 0, nonzero = 0;
	unsigned char *buf = malloc(BUF_SIZE);

	if (!buf)
		return 1;
	for (;;) {
		ssize_t n = read(fd, buf, BUF_SIZE), off = 0;

		if (n < 0 && errno == EAGAIN)
			break;
		if (n <= 0) {
			fprintf(stderr, "kpt_hazard_caps: read: %s\n",
				n ? strerror(errno) : "returned 0");
			return 1;
		}
		while (off < n) {
			const struct kpt_event *e = (const void *)(buf + off);
			unsigned int i;

			if (n - off < (ssize_t)sizeof(*e) ||
			    e->magic != KPT_MAGIC || e->size < sizeof(*e) ||
			    e->size > n - off) {
				fprintf(stderr, "kpt_hazard_caps: torn record\n");
				return 1;
			}
			off += e->size;
			records++;
			if (e->type != KPT_EV_ENTRY)
				continue;
			entries++;
			if (!e->nr_stack)
				continue;
			stacked++;
			if (e->flags & KPT_F_ADDR_HIDDEN)
				hidden++;
			for (i = 0; i < e->nr_stack; i++)
				nonzero += e->data[e->nr_args + i] != 0;
		}
	}
	printf("%s open=ok records=%llu entries=%llu stack_entries=%llu hidden=%llu nonzero_frames=%llu\n",
	       mode, (unsigned long long)records,
	       (unsigned long long)entries, (unsigned long long)stacked,
	       (unsigned long long)hidden, (unsigned long long)nonzero);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	static const int admin[] = { CAP_SYS_ADMIN, CAP_PERFMON, -1 };
	static const int syslog[] = { CAP_SYSLOG, -1 };
	const char *dev = "/dev/kptrace", *mode;
	int fd;

	if (argc == 4 && !strcmp(argv[1], "-d")) {
		dev = argv[2];
		argv += 2;
		argc -= 2;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: kpt_hazard_caps [-d DEV] unpriv|nocap|nosyslog|root\n");
		return 2;
	}
	mode = argv[1];
	if (getuid() != 0) {
		fprintf(stderr, "kpt_hazard_caps: must start as root\n");
		return 1;
	}
	if (!strcmp(mode, "unpriv")) {
		if (setgroups(0, NULL) || setgid(65534) || setuid(65534)) {
			perror("kpt_hazard_caps: dropping to 65534");
			return 1;
		}
	} else if (!strcmp(mode, "nocap")) {
		if (drop_caps(admin))
			return 1;
	} else if (!strcmp(mode, "nosyslog")) {
		if (drop_caps(syslog))
			return 1;
	} else if (strcmp(mode, "root")) {
		fprintf(stderr, "kpt_hazard_caps: unknown mode %s\n", mode);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	fd = open(dev, O_RDONLY | O_NONBLOCK);
	if (fd < 0) {
		printf("%s errno=%s\n", mode, errno_name(errno));
		return 0;
	}
	return read_all(fd, mode);
}
