// SPDX-License-Identifier: GPL-2.0
/*
 * stats: the module's counters, from /sys/kernel/debug/kptrace/stats, made
 * of "<name> <value>" lines: hits, recorded, lost, lost.<cause>, missed,
 * read, pending, then cpuN.hits, cpuN.recorded, cpuN.lost.<cause>,
 * cpuN.read and cpuN.pending for every possible CPU. Names this reader does
 * not know are ignored, so the module may add some.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "event.h"
#include "stats.h"

#define STATS_MAX_CPUS	65536

static __u64 *stats__lost_field(__u64 *lost, const char *name)
{
	unsigned int cause;

	if (strncmp(name, "lost.", 5))
		return NULL;
	for (cause = 0; cause < KPT_LOST_NR; cause++)
		if (!strcmp(name + 5, event__lost_cause(cause)))
			return &lost[cause];
	return NULL;
}

static __u64 *stats__cpu_field(struct stats *stats, const char *name)
{
	struct stats_cpu *cpu;
	unsigned long n;
	char *end;

	n = strtoul(name + 3, &end, 10);
	if (end == name + 3 || *end != '.' || n >= STATS_MAX_CPUS)
		return NULL;
	if (n >= stats->nr_cpus) {
		cpu = realloc(stats->cpu, (n + 1) * sizeof(*cpu));
		if (!cpu)
			return NULL;
		memset(cpu + stats->nr_cpus, 0,
		       (n + 1 - stats->nr_cpus) * sizeof(*cpu));
		stats->cpu = cpu;
		stats->nr_cpus = n + 1;
	}
	cpu = &stats->cpu[n];
	name = end + 1;
	if (!strcmp(name, "hits"))
		return &cpu->hits;
	if (!strcmp(name, "recorded"))
		return &cpu->recorded;
	if (!strcmp(name, "read"))
		return &cpu->read;
	if (!strcmp(name, "pending"))
		return &cpu->pending;
	return stats__lost_field(cpu->lost, name);
}

static __u64 *stats__field(struct stats *stats, const char *name)
{
	if (!strncmp(name, "cpu", 3))
		return stats__cpu_field(stats, name);
	if (!strcmp(name, "hits"))
		return &stats->hits;
	if (!strcmp(name, "recorded"))
		return &stats->recorded;
	if (!strcmp(name, "lost"))
		return &stats->lost;
	if (!strcmp(name, "missed"))
		return &stats->missed;
	if (!strcmp(name, "read"))
		return &stats->read;
	if (!strcmp(name, "pending"))
		return &stats->pending;
	return stats__lost_field(stats->lost_cause, name);
}

int stats__read_from(FILE *f, struct stats *stats)
{
	char line[256];

	memset(stats, 0, sizeof(*stats));
	/* from the start: a seq_file makes its text anew */
	if (fseek(f, 0, SEEK_SET))
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char name[128];
		unsigned long long val;
		__u64 *field;

		if (sscanf(line, "%127s %llu", name, &val) != 2)
			continue;
		field = stats__field(stats, name);
		if (field)
			*field = val;
	}
	if (ferror(f)) {
		clearerr(f);
		stats__free(stats);
		return -EIO;
	}
	return 0;
}

int stats__read(const char *path, struct stats *stats)
{
	FILE *f;
	int ret;

	memset(stats, 0, sizeof(*stats));
	f = fopen(path, "re");
	if (!f)
		return -errno;
	ret = stats__read_from(f, stats);
	fclose(f);
	return ret;
}

void stats__free(struct stats *stats)
{
	free(stats->cpu);
	stats->cpu = NULL;
	stats->nr_cpus = 0;
}

void stats__print(FILE *f, const struct stats *stats)
{
	unsigned int cpu, cause;

	fprintf(f, "hits      %12llu  handler calls (entries and returns)\n",
		(unsigned long long)stats->hits);
	fprintf(f, "recorded  %12llu\n",
		(unsigned long long)stats->recorded);
	fprintf(f, "lost      %12llu ", (unsigned long long)stats->lost);
	for (cause = 0; cause < KPT_LOST_NR; cause++)
		fprintf(f, " %s %llu", event__lost_cause(cause),
			(unsigned long long)stats->lost_cause[cause]);
	fprintf(f, "\nmissed    %12llu  dropped by the kprobe core\n",
		(unsigned long long)stats->missed);
	fprintf(f, "read      %12llu\n", (unsigned long long)stats->read);
	fprintf(f, "pending   %12llu\n", (unsigned long long)stats->pending);
	if (!stats->nr_cpus)
		return;

	fprintf(f, "\n%-5s %12s %12s %12s %12s %12s  %s\n", "CPU", "HITS",
		"RECORDED", "LOST", "READ", "PENDING", "LOST BY CAUSE");
	for (cpu = 0; cpu < stats->nr_cpus; cpu++) {
		const struct stats_cpu *c = &stats->cpu[cpu];
		const char *sep = "  ";
		__u64 lost = 0;

		for (cause = 0; cause < KPT_LOST_NR; cause++)
			lost += c->lost[cause];
		fprintf(f, "%-5u %12llu %12llu %12llu %12llu %12llu", cpu,
			(unsigned long long)c->hits,
			(unsigned long long)c->recorded,
			(unsigned long long)lost, (unsigned long long)c->read,
			(unsigned long long)c->pending);
		for (cause = 0; cause < KPT_LOST_NR; cause++)
			if (c->lost[cause]) {
				fprintf(f, "%s%s=%llu", sep,
					event__lost_cause(cause),
					(unsigned long long)c->lost[cause]);
				sep = " ";
			}
		fputc('\n', f);
	}
}
