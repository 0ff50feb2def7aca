// SPDX-License-Identifier: GPL-2.0
/*
 * kpt_hazard_caps: open /dev/kptrace with fewer privileges than root, for
 * selftests/kpt_hazard_perm_*.sh (the guest has no setpriv or capsh).
 *
 *   kpt_hazard_caps [-w] [-d DEV] [-s ID:LIST]... MODE
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
 * -w opens DEV for writing (O_WRONLY) instead, and prints "MODE
 * open=ok write" when that works, reading nothing.
 *
 * Prints one line: "MODE errno=NAME" when open() fails, or, when it works,
 * "MODE open=ok records=R entries=E stack_entries=S hidden=H
 * nonzero_frames=Z returns=X pad_bytes=P pad_nonzero=Q" after reading
 * every pending record (O_NONBLOCK until EAGAIN): S entries carry a stack,
 * H of them have KPT_F_ADDR_HIDDEN, and Z stack slots over all entries
 * are not zero; X return records; P bytes of padding after the records'
 * last string (or their fixed part), Q of them not zero.
 *
 * -s ID:LIST says which arguments of probe ID are strings (0-based
 * indexes, comma-separated), so that the padding after them can be found,
 * and prints one line per entry and return record before the summary:
 *   rec entry id=I flags=0xF a0=0xV s1=LEN ... frames=N nonzero_frames=Z
 *       pad=P pad_nonzero=Q
 *   rec return id=I flags=0xF ret=0xV a0=0xV s1=LEN ... pad=P pad_nonzero=Q
 * (aK a number in hex, sK a string's length). Exit 0 when it could do
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
#define MAX_STR_PROBES	8

/* -s ID:LIST: the string arguments of probe ID, one bit per index */
static struct {
	unsigned int	id;
	uint32_t	mask;
} str_probes[MAX_STR_PROBES];
static unsigned int nr_str_probes;

static int parse_strs(const char *arg)
{
	char *end;
	unsigned long v;

	if (nr_str_probes == MAX_STR_PROBES)
		return -1;
	v = strtoul(arg, &end, 10);
	if (end == arg || *end != ':')
		return -1;
	str_probes[nr_str_probes].id = v;
	do {
		arg = end + 1;
		v = strtoul(arg, &end, 10);
		if (end == arg || v >= 32 || (*end && *end != ','))
			return -1;
		str_probes[nr_str_probes].mask |= 1u << v;
	} while (*end);
	nr_str_probes++;
	return 0;
}

static uint32_t str_mask(unsigned int id)
{
	unsigned int i;

	for (i = 0; i < nr_str_probes; i++)
		if (str_probes[i].id == id)
			return str_probes[i].mask;
	return 0;
}

/*
 * The arguments of entry or return record @e (one "rec" line with -s),
 * and its padding: the bytes after its last string. Returns the number of
 * padding bytes that are not zero; *@pad gets how many there are.
 */
static unsigned int one_record(const struct kpt_event *e, uint64_t *pad)
{
	const struct kpt_ret *r = (const void *)e->data;
	const unsigned char *b = (const void *)e;
	uint32_t mask = str_mask(e->probe_id);
	const __u64 *args = e->data;
	unsigned int i, nz = 0;
	size_t end;

	if (e->type == KPT_EV_ENTRY) {
		end = sizeof(*e) + 8 * (e->nr_args + e->nr_stack);
		if (nr_str_probes)
			printf("rec entry id=%u flags=0x%x", e->probe_id,
			       e->flags);
	} else {
		args = e->data + KPT_RET_SLOTS;
		end = sizeof(*e) + sizeof(*r) + 8 * e->nr_args;
		if (nr_str_probes)
			printf("rec return id=%u flags=0x%x ret=0x%llx",
			       e->probe_id, e->flags,
			       (unsigned long long)r->ret);
	}
	for (i = 0; i < e->nr_args && end <= e->size; i++) {
		if (i < 32 && (mask & (1u << i))) {
			end += KPT_STR_LEN(args[i]);
			if (nr_str_probes)
				printf(" s%u=%u", i, KPT_STR_LEN(args[i]));
		} else if (nr_str_probes) {
			printf(" a%u=0x%llx", i, (unsigned long long)args[i]);
		}
	}
	if (e->type == KPT_EV_ENTRY && nr_str_probes) {
		for (i = 0; i < e->nr_stack; i++)
			nz += e->data[e->nr_args + i] != 0;
		printf(" frames=%u nonzero_frames=%u", e->nr_stack, nz);
		nz = 0;
	}
	if (end > e->size) {
		fprintf(stderr, "kpt_hazard_caps: record %u bytes, its strings end at %zu\n",
			e->size, end);
		end = e->size;
	}
	for (i = end; i < e->size; i++)
		nz += b[i] != 0;
	*pad = e->size - end;
	if (nr_str_probes)
		printf(" pad=%llu pad_nonzero=%u\n", (unsigned long long)*pad,
		       nz);
	return nz;
}

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
	uint64_t returns = 0, pad_bytes = 0, pad_nonzero = 0, pad;
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
			if (e->type != KPT_EV_ENTRY && e->type != KPT_EV_RETURN)
				continue;
			pad_nonzero += one_record(e, &pad);
			pad_bytes += pad;
			if (e->type == KPT_EV_RETURN) {
				returns++;
				continue;
			}
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
	printf("%s open=ok records=%llu entries=%llu stack_entries=%llu hidden=%llu nonzero_frames=%llu returns=%llu pad_bytes=%llu pad_nonzero=%llu\n",
	       mode, (unsigned long long)records,
	       (unsigned long long)entries, (unsigned long long)stacked,
	       (unsigned long long)hidden, (unsigned long long)nonzero,
	       (unsigned long long)returns, (unsigned long long)pad_bytes,
	       (unsigned long long)pad_nonzero);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	static const int admin[] = { CAP_SYS_ADMIN, CAP_PERFMON, -1 };
	static const int syslog[] = { CAP_SYSLOG, -1 };
	const char *dev = "/dev/kptrace", *mode;
	int fd, wr = 0;

	if (argc >= 3 && !strcmp(argv[1], "-w")) {
		wr = 1;
		argv++;
		argc--;
	}
	while (argc >= 4 && argv[1][0] == '-') {
		if (!strcmp(argv[1], "-d"))
			dev = argv[2];
		else if (strcmp(argv[1], "-s") || parse_strs(argv[2]))
			break;		/* usage */
		argv += 2;
		argc -= 2;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: kpt_hazard_caps [-w] [-d DEV] [-s ID:LIST]... unpriv|nocap|nosyslog|root\n");
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
	fd = open(dev, wr ? O_WRONLY : O_RDONLY | O_NONBLOCK);
	if (fd < 0) {
		printf("%s errno=%s\n", mode, errno_name(errno));
		return 0;
	}
	if (wr) {
		printf("%s open=ok write\n", mode);
		close(fd);
		return 0;
	}
	return read_all(fd, mode);
}
