// SPDX-License-Identifier: GPL-2.0
/*
 * syscalls_books: the line on stderr at the end of a live run of `kptrace
 * syscalls`, from the probe's counters (its books).
 */
#include <stdio.h>

#include "event.h"
#include "syscalls_cmd.h"

/* ", N lost (cause N, ...)": the probe's losses by cause; returns them */
static unsigned long long books_lost(FILE *f, const struct pstats_probe *ps)
{
	unsigned long long lost = 0;
	const char *sep = " (";
	unsigned int i;

	for (i = 0; i < KPT_LOST_NR; i++)
		lost += ps->lost[i];
	fprintf(f, ", %llu lost", lost);
	for (i = 0; i < KPT_LOST_NR; i++) {
		if (!ps->lost[i])
			continue;
		fprintf(f, "%s%s %llu", sep, event__lost_cause(i), ps->lost[i]);
		sep = ", ";
	}
	if (lost)
		fputc(')', f);
	return lost;
}

void syscalls_cmd__summary(FILE *f, const struct pstats_probe *ps,
			   unsigned long long shown, unsigned long long own,
			   bool saved)
{
	unsigned long long lost, seen, decided, unread;
	const char *sep;

	/* the calls without an instance never reached the handler */
	seen = ps->calls + ps->maxactive_missed + ps->missed;
	fprintf(f, "kptrace: %llu calls seen, %llu %s, %llu filtered", seen,
		shown, saved ? "saved" : "shown", ps->filtered);
	lost = books_lost(f, ps);
	fprintf(f, ", %llu missed returns", ps->maxactive_missed);
	if (ps->missed)
		fprintf(f, ", %llu missed by the kprobe", ps->missed);
	/* what the handler saw was recorded, filtered, lost or is running */
	decided = ps->recorded + ps->filtered + lost;
	if (ps->calls > decided)
		fprintf(f, ", %llu in flight at detach", ps->calls - decided);
	else if (ps->calls < decided)
		fprintf(f, " (the counters add up to %llu more than seen)",
			decided - ps->calls);
	if (ps->recorded > shown) {
		fprintf(f, "; %llu recorded but not %s", ps->recorded - shown,
			saved ? "saved" : "shown");
		sep = " (";
		if (own) {
			fprintf(f, "%s%llu of kptrace itself", sep, own);
			sep = ", ";
		}
		unread = ps->recorded - shown - (own < ps->recorded - shown ?
						 own : ps->recorded - shown);
		if (unread) {
			fprintf(f, "%s%llu left unread", sep, unread);
			sep = ", ";
		}
		if (*sep == ',')
			fputc(')', f);
	}
	fputc('\n', f);
}

void syscalls_cmd__sum_summary(FILE *f, const struct pstats_probe *ps,
			       unsigned long long read,
			       unsigned long long own)
{
	unsigned long long lost, seen, decided;

	seen = ps->calls + ps->maxactive_missed + ps->missed;
	fprintf(f, "kptrace: %llu calls seen, %llu counted in the kernel",
		seen, ps->recorded);
	/* what every KPT_IOC_SYSSUM gave, against the module's count */
	if (read == ps->recorded)
		fputs(" (all read)", f);
	else if (read < ps->recorded)
		fprintf(f, " (%llu read: %llu counted after the last read)",
			read, ps->recorded - read);
	else
		fprintf(f, " (%llu read: %llu more than counted)", read,
			read - ps->recorded);
	fprintf(f, ", %llu filtered", ps->filtered);
	lost = books_lost(f, ps);
	fprintf(f, ", %llu not counted (summary table full)",
		ps->summary_full);
	fprintf(f, ", %llu missed returns", ps->maxactive_missed);
	if (ps->missed)
		fprintf(f, ", %llu missed by the kprobe", ps->missed);
	decided = ps->recorded + ps->filtered + lost + ps->summary_full;
	if (ps->calls > decided)
		fprintf(f, ", %llu in flight at detach", ps->calls - decided);
	else if (ps->calls < decided)
		fprintf(f, " (the counters add up to %llu more than seen)",
			decided - ps->calls);
	if (own)
		fprintf(f, "; %llu of kptrace itself, not in the tables", own);
	fputc('\n', f);
}

void sys_books__merge(struct pstats_probe *ps, const struct pstats_probe *b)
{
	unsigned long long seen = ps->calls < b->calls ? ps->calls : b->calls;
	unsigned int i;

	/*
	 * Each probe sees every call: what one selects, the others filter.
	 * The calls of the union are one probe's; its filtered, those that
	 * none selected: each filtered the calls the others kept.
	 */
	ps->filtered = ps->filtered + b->filtered > seen ?
		       ps->filtered + b->filtered - seen : 0;
	ps->calls = ps->calls > b->calls ? ps->calls : b->calls;
	ps->events += b->events;
	ps->recorded += b->recorded;
	for (i = 0; i < KPT_LOST_NR; i++)
		ps->lost[i] += b->lost[i];
	ps->missed += b->missed;
	ps->maxactive_missed += b->maxactive_missed;
	ps->num_fault += b->num_fault;
	ps->str_fault += b->str_fault;
	ps->str_trunc += b->str_trunc;
	ps->stack_trunc += b->stack_trunc;
	ps->summary_full += b->summary_full;
}
