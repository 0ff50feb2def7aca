// SPDX-License-Identifier: GPL-2.0
/*
 * kpt_hazard_shared: several processes reading ONE open file of
 * /dev/kptrace at once (a reader that forked, or threads sharing an fd),
 * for selftests/kpt_hazard_shared_fd.sh.
 *
 *   kpt_hazard_shared [-d DEV] [-n READERS] SECONDS
 *
 * Opens DEV once, forks READERS children (default 2) that read() the same
 * file description in 64 KiB reads for SECONDS, then the parent drains what
 * is left with O_NONBLOCK. Every read() result must be whole records
 * (magic, sizes); every ENTRY/RETURN record is identified by (cpu, seq),
 * which must be unique over all readers: a record returned twice, or a
 * record whose bytes were overwritten by another reader's batch, breaks
 * that. Prints
 *   "shared readers=K records=R torn=T dups=D lost_events=L"
 * and one "cpu C records=N min_seq=A max_seq=B" line per CPU seen.
 * Exit 0 when it could check (the result is in the output), 1 on error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <uapi/kptrace.h>

#define BUF_SIZE	(64 * 1024)
#define MAX_CPUS	64

struct id {
	uint32_t cpu;
	uint32_t torn;	/* 1: a torn read() result was seen */
	uint64_t seq;
};

static volatile sig_atomic_t stop;

static void on_alarm(int sig)
{
	(void)sig;
	stop = 1;
}

/* Validates one read() result and writes the ids of its records to @out. */
static int account(const unsigned char *buf, ssize_t len, FILE *out,
		   uint64_t *lost)
{
	ssize_t off = 0;

	while (off < len) {
		const struct kpt_event *e = (const void *)(buf + off);
		struct id id = { 0 };

		if (len - off < (ssize_t)sizeof(*e) || e->magic != KPT_MAGIC ||
		    e->size < sizeof(*e) || e->size % 8 ||
		    e->size > len - off || e->cpu >= MAX_CPUS) {
			id.torn = 1;
			fwrite(&id, sizeof(id), 1, out);
			return -1;
		}
		off += e->size;
		if (e->type == KPT_EV_LOST) {
			*lost += ((const struct kpt_lost *)e->data)->count;
			continue;
		}
		if (e->type != KPT_EV_ENTRY && e->type != KPT_EV_RETURN) {
			id.torn = 1;
			fwrite(&id, sizeof(id), 1, out);
			return -1;
		}
		id.cpu = e->cpu;
		id.seq = e->seq;
		fwrite(&id, sizeof(id), 1, out);
	}
	return 0;
}

static int cmp_id(const void *a, const void *b)
{
	const struct id *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return 0;
}

static void reader(int fd, FILE *out, unsigned int secs)
{
	unsigned char *buf = malloc(BUF_SIZE);
	struct sigaction sa;
	uint64_t lost = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	alarm(secs);
	while (buf && !stop) {
		ssize_t n = read(fd, buf, BUF_SIZE);

		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			break;
		account(buf, n, out, &lost);
	}
	/* The lost count travels as an id with cpu = MAX_CPUS. */
	{
		struct id id = { .cpu = MAX_CPUS, .seq = lost };

		fwrite(&id, sizeof(id), 1, out);
	}
	fflush(out);
}

int main(int argc, char **argv)
{
	const char *dev = "/dev/kptrace";
	unsigned int nreaders = 2, secs, i;
	struct id *ids = NULL;
	size_t nids = 0, cap = 0;
	uint64_t torn = 0, dups = 0, lost = 0, records = 0;
	uint64_t per[MAX_CPUS] = { 0 }, lo[MAX_CPUS], hi[MAX_CPUS] = { 0 };
	unsigned char *buf;
	FILE *tmp[16];
	int opt, fd;

	while ((opt = getopt(argc, argv, "d:n:")) != -1) {
		if (opt == 'd')
			dev = optarg;
		else if (opt == 'n')
			nreaders = strtoul(optarg, NULL, 0);
		else
			return 2;
	}
	if (optind >= argc || !nreaders || nreaders > 16) {
		fprintf(stderr, "usage: kpt_hazard_shared [-d DEV] [-n READERS] SECONDS\n");
		return 2;
	}
	secs = strtoul(argv[optind], NULL, 0);
	fd = open(dev, O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "kpt_hazard_shared: open %s: %s\n", dev,
			strerror(errno));
		return 1;
	}
	buf = malloc(BUF_SIZE);
	if (!buf)
		return 1;
	for (i = 0; i < nreaders; i++) {
		tmp[i] = tmpfile();
		if (!tmp[i])
			return 1;
	}
	for (i = 0; i < nreaders; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("kpt_hazard_shared: fork");
			return 1;
		}
		if (!pid) {
			reader(fd, tmp[i], secs);
			_exit(0);
		}
	}
	while (wait(NULL) > 0)
		;
	/* What is left, by the parent alone. */
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	for (;;) {
		ssize_t n = read(fd, buf, BUF_SIZE);

		if (n <= 0)
			break;
		fseek(tmp[0], 0, SEEK_END);
		account(buf, n, tmp[0], &lost);
	}
	for (i = 0; i < nreaders; i++) {
		fflush(tmp[i]);
		rewind(tmp[i]);
	}
	for (i = 0; i < nreaders;) {
		if (nids == cap) {
			cap = cap ? 2 * cap : 65536;
			ids = realloc(ids, cap * sizeof(*ids));
			if (!ids)
				return 1;
		}
		if (fread(&ids[nids], sizeof(*ids), 1, tmp[i]) != 1) {
			i++;
			continue;
		}
		if (ids[nids].torn) {
			torn++;
			continue;
		}
		if (ids[nids].cpu == MAX_CPUS) {
			lost += ids[nids].seq;
			continue;
		}
		nids++;
	}
	qsort(ids, nids, sizeof(*ids), cmp_id);
	for (i = 0; i < MAX_CPUS; i++)
		lo[i] = UINT64_MAX;
	for (size_t k = 0; k < nids; k++) {
		struct id *d = &ids[k];

		if (k && !cmp_id(d, &ids[k - 1])) {
			dups++;
			continue;
		}
		records++;
		per[d->cpu]++;
		if (d->seq < lo[d->cpu])
			lo[d->cpu] = d->seq;
		if (d->seq > hi[d->cpu])
			hi[d->cpu] = d->seq;
	}
	printf("shared readers=%u records=%llu torn=%llu dups=%llu lost_events=%llu\n",
	       nreaders, (unsigned long long)records,
	       (unsigned long long)torn, (unsigned long long)dups,
	       (unsigned long long)lost);
	for (i = 0; i < MAX_CPUS; i++)
		if (per[i])
			printf("cpu %u records=%llu min_seq=%llu max_seq=%llu\n",
			       i, (unsigned long long)per[i],
			       (unsigned long long)lo[i],
			       (unsigned long long)hi[i]);
	return 0;
}
