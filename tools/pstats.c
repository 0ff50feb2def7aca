// SPDX-License-Identifier: GPL-2.0
/*
 * pstats: the per-probe counters of /sys/kernel/debug/kptrace/probe_stats.
 * Per probe, a total line
 *
 *	"NAME calls=N events=N filtered=N recorded=N full=N overwritten=N
 *	 nested=N too_big=N num_fault=N str_fault=N str_trunc=N
 *	 stack_trunc=N [summary_full=N] missed=N maxactive_missed=N"
 *
 * (summary_full: an s probe with summary, the calls its tables had no
 * room for)
 * then "NAME cpuK calls=..." lines, which the summary leaves out. Fields
 * this reader does not know are ignored, and missing ones count 0.
 */
#include <assert.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <uapi/kptrace_record.h>

#include "event.h"
#include "pstats.h"

enum {
	PS_CALLS, PS_EVENTS, PS_FILTERED, PS_RECORDED,
	/* then one per enum kpt_lost_cause, in its order (uapi/kptrace.h) */
	PS_FULL, PS_OVERWRITTEN, PS_NESTED, PS_TOO_BIG,
	PS_NUM_FAULT, PS_STR_FAULT, PS_STR_TRUNC, PS_STACK_TRUNC, PS_MISSED,
	PS_MAXACTIVE, PS_SUM_FULL, PS_NR
};

static_assert(PS_NUM_FAULT - PS_FULL == KPT_LOST_NR,
	      "a field per cause of enum kpt_lost_cause");

/* The field names: the lost causes' as the module names them */
static const char *ps_name(unsigned int i)
{
	static const char * const names[PS_NR] = {
		"calls", "events", "filtered", "recorded",
		[PS_NUM_FAULT] = "num_fault", "str_fault", "str_trunc",
		"stack_trunc", "missed", "maxactive_missed", "summary_full",
	};

	if (i >= PS_FULL && i < PS_NUM_FAULT)
		return event__lost_cause(i - PS_FULL);
	return names[i];
}

/* Fills @v from the "key=value" fields of @p. */
static void pstats__fields(char *p, unsigned long long *v)
{
	char *tok, *eq, *save = NULL;
	unsigned int i;

	for (tok = strtok_r(p, " \t\n", &save); tok;
	     tok = strtok_r(NULL, " \t\n", &save)) {
		eq = strchr(tok, '=');
		if (!eq)
			continue;
		*eq = '\0';
		for (i = 0; i < PS_NR; i++)
			if (!strcmp(tok, ps_name(i)))
				v[i] = strtoull(eq + 1, NULL, 10);
	}
}

/*
 * @name in @buf, escaped by the rule of kpt_byte_escaped() (a name is the
 * module's, but text from a file is printed by the one rule): \\ and \xNN.
 */
static void pstats__name(char *buf, size_t len, const char *name)
{
	size_t n = 0;

	for (; *name && n + 5 < len; name++) {
		unsigned char c = *name;

		if (c == '\\')
			n += snprintf(buf + n, len - n, "\\\\");
		else if (kpt_byte_escaped(c))
			n += snprintf(buf + n, len - n, "\\x%02x", c);
		else
			buf[n++] = c;
	}
	buf[n] = '\0';
}

static void pstats__line(FILE *f, const char *name, const unsigned long long *v)
{
	unsigned long long lost = v[PS_FULL] + v[PS_OVERWRITTEN] +
				  v[PS_NESTED] + v[PS_TOO_BIG];
	const char *sep = " (";
	unsigned int i;
	char esc[256];

	pstats__name(esc, sizeof(esc), name);
	fprintf(f, "%-24s %10llu %10llu %10llu %9llu %9llu %9llu %9llu",
		esc, v[PS_CALLS], v[PS_EVENTS], v[PS_RECORDED],
		v[PS_FILTERED], lost, v[PS_MISSED], v[PS_MAXACTIVE]);
	for (i = PS_FULL; i <= PS_TOO_BIG; i++) {
		if (!v[i])
			continue;
		fprintf(f, "%s%s %llu", sep, ps_name(i), v[i]);
		sep = ", ";
	}
	if (lost)
		fputc(')', f);
	for (i = PS_NUM_FAULT; i <= PS_STACK_TRUNC; i++)
		if (v[i])
			fprintf(f, " %s=%llu", ps_name(i), v[i]);
	if (v[PS_SUM_FULL])
		fprintf(f, " %s=%llu", ps_name(PS_SUM_FULL), v[PS_SUM_FULL]);
	fputc('\n', f);
}

void pstats__print_head(FILE *f, const char *before)
{
	fputs(before, f);
	fprintf(f, "%-24s %10s %10s %10s %9s %9s %9s %9s\n", "PROBE", "CALLS",
		"EVENTS", "RECORDED", "FILTERED", "LOST", "MISSED",
		"MAXACTIVE");
}

/* The fields of a total line, @v, as a struct pstats_probe, and back. */
static void pstats__from_fields(struct pstats_probe *ps,
				const unsigned long long *v)
{
	unsigned int i;

	ps->calls = v[PS_CALLS];
	ps->events = v[PS_EVENTS];
	ps->filtered = v[PS_FILTERED];
	ps->recorded = v[PS_RECORDED];
	for (i = 0; i < KPT_LOST_NR; i++)
		ps->lost[i] = v[PS_FULL + i];
	ps->missed = v[PS_MISSED];
	ps->maxactive_missed = v[PS_MAXACTIVE];
	ps->num_fault = v[PS_NUM_FAULT];
	ps->str_fault = v[PS_STR_FAULT];
	ps->str_trunc = v[PS_STR_TRUNC];
	ps->stack_trunc = v[PS_STACK_TRUNC];
	ps->summary_full = v[PS_SUM_FULL];
}

void pstats__print_probe(FILE *f, const char *name,
			 const struct pstats_probe *ps)
{
	unsigned long long v[PS_NR] = {
		[PS_CALLS] = ps->calls, [PS_EVENTS] = ps->events,
		[PS_FILTERED] = ps->filtered, [PS_RECORDED] = ps->recorded,
		[PS_NUM_FAULT] = ps->num_fault, [PS_STR_FAULT] = ps->str_fault,
		[PS_STR_TRUNC] = ps->str_trunc,
		[PS_STACK_TRUNC] = ps->stack_trunc, [PS_MISSED] = ps->missed,
		[PS_MAXACTIVE] = ps->maxactive_missed,
		[PS_SUM_FULL] = ps->summary_full,
	};
	unsigned int i;

	for (i = 0; i < KPT_LOST_NR; i++)
		v[PS_FULL + i] = ps->lost[i];
	pstats__line(f, name, v);
}

/*
 * Back to the start of @in: a seq_file makes its text anew. glibc's
 * fseek() to 0 would serve again what its buffer holds of an earlier read
 * that stopped before the end (pstats__read_probe()'s does): dropped first.
 */
static int pstats__rewind(FILE *in)
{
	fflush(in);
	return fseek(in, 0, SEEK_SET) ? -errno : 0;
}

int pstats__print_from(FILE *in, FILE *f, const char *before)
{
	unsigned long long v[PS_NR];
	char *line = NULL, *rest;
	size_t cap = 0, len;
	bool header = false;
	int ret = pstats__rewind(in);

	if (ret)
		return ret;
	while (getline(&line, &cap, in) > 0) {
		len = strcspn(line, " \t\n");
		if (!len)
			continue;
		rest = line + len;
		rest += strspn(rest, " \t");
		/* "NAME cpuK ...": per CPU, not in the summary */
		if (!strncmp(rest, "cpu", 3) && rest[3] >= '0' && rest[3] <= '9')
			continue;
		line[len] = '\0';
		memset(v, 0, sizeof(v));
		pstats__fields(rest, v);
		if (!header) {
			pstats__print_head(f, before);
			header = true;
		}
		pstats__line(f, line, v);
	}
	free(line);
	return 0;
}

int pstats__read_probe(FILE *in, const char *name, struct pstats_probe *ps)
{
	unsigned long long v[PS_NR];
	char *line = NULL, *rest;
	size_t cap = 0, len;
	int ret = -ENOENT;

	memset(ps, 0, sizeof(*ps));
	if (pstats__rewind(in))
		return -errno;
	while (ret && getline(&line, &cap, in) > 0) {
		len = strcspn(line, " \t\n");
		rest = line + len;
		rest += strspn(rest, " \t");
		if (len != strlen(name) || strncmp(line, name, len) ||
		    (!strncmp(rest, "cpu", 3) && rest[3] >= '0' &&
		     rest[3] <= '9'))
			continue;
		memset(v, 0, sizeof(v));
		pstats__fields(rest, v);
		pstats__from_fields(ps, v);
		ret = 0;
	}
	if (ret && ferror(in))
		ret = -EIO;
	free(line);
	return ret;
}

int pstats__print(const char *path, FILE *f, const char *before)
{
	FILE *in = fopen(path, "re");
	int ret;

	if (!in)
		return -errno;
	ret = pstats__print_from(in, f, before);
	fclose(in);
	return ret;
}
