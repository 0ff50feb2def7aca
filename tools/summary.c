// SPDX-License-Identifier: GPL-2.0
/*
 * summary: the end of a run. The line of the summary (events, filtered,
 * lost by cause, left unread before and after the stop, bytes saved, bad
 * records, the module's counters), what a cut drain left, the check of
 * the records taken against the module's books, and -s: the module's
 * statistics.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <uapi/kptrace.h>

#include "event.h"
#include "paths.h"
#include "stats.h"
#include "summary.h"
#include "trace.h"

const char *stats__path(void)
{
	return path_from_env("KPTRACE_STATS", STATS_PATH);
}

int stats__show(FILE *f)
{
	const char *path = stats__path();
	struct stats stats;
	int err;

	err = stats__read(path, &stats);
	if (err) {
		if (err == -ENOENT)
			fprintf(stderr,
				"kptrace: %s not found: is the kptrace module loaded and debugfs mounted? (mount -t debugfs none /sys/kernel/debug)\n",
				path);
		else if (err == -EACCES || err == -EPERM)
			fprintf(stderr, "kptrace: reading %s needs root\n",
				path);
		else
			fprintf(stderr, "kptrace: cannot read %s: %s\n", path,
				strerror(-err));
		return err;
	}
	stats__print(f, &stats);
	stats__free(&stats);
	return 0;
}

/*
 * Records the module still holds, those the drain read but were recorded
 * after the stop, and those -n left in the last read.
 */
static unsigned long long books__unread(const struct books *b)
{
	return (b->end ? b->end->pending : 0) + trace_stop.after +
	       trace_counts.past_count;
}

/*
 * Of those, the records committed before the stop that a cut drain left
 * (exact with the seq bound, unless overwrite=1 destroyed some since: then
 * at most what the module still holds), or 0.
 */
static unsigned long long books__unread_before(const struct books *b)
{
	unsigned long long left;

	if ((trace_drain != DRAIN_TIMEOUT && trace_drain != DRAIN_SIGNAL) ||
	    !trace_stop.nr_cpus || !b->end)
		return 0;
	left = drain__left();
	return left < b->end->pending ? left : b->end->pending;
}

/*
 * Every record the module gave this reader was printed (or saved), filtered
 * out, or dropped past -n; the module counts them all in `read'. A
 * difference means that another reader (a cat of the trace file) took some.
 */
void books__check(const struct books *b)
{
	unsigned long long taken, read;

	if (!b->start || !b->end || trace_counts.bad)
		return;
	taken = trace_counts.entries + trace_counts.returns +
		trace_counts.filtered + trace_counts.unknown +
		trace_counts.past_count + trace_stop.after +
		trace_counts.own;
	read = b->end->read - b->start->read;
	if (taken != read)
		fprintf(stderr,
			"kptrace: the module gave %llu records to its readers while this one ran, and this one took %llu: another reader (of the trace file?) took the difference\n",
			read, taken);
}

/* What a drain cut short left behind. */
void drain__report(const struct books *b)
{
	char left[80] = "records recorded before the stop may be";
	unsigned long long n;

	if (trace_drain != DRAIN_TIMEOUT && trace_drain != DRAIN_SIGNAL)
		return;
	if (trace_stop.nr_cpus && b->end) {
		n = books__unread_before(b);
		snprintf(left, sizeof(left),
			 "%llu record%s recorded before the stop", n,
			 n == 1 ? "" : "s");
	}
	if (trace_drain == DRAIN_TIMEOUT)
		fprintf(stderr,
			"kptrace: stopped draining after %d s: %s left unread\n",
			DRAIN_SECONDS, left);
	else
		fprintf(stderr,
			"kptrace: a second signal stopped the drain: %s left unread\n",
			left);
}

/*
 * ", U left unread (B recorded before the stop, A after the stop, P past
 * -n)", the parts that are not 0: B, those a cut drain left (seq bound
 * only); P, those -n read and did not print; A, the rest after a stop:
 * those the drain read but were recorded after the stop, and those still
 * in the module (a cut drain with the time bound cannot tell them apart).
 */
static void unread__print(const struct books *b, unsigned long long unread)
{
	unsigned long long before = books__unread_before(b);
	unsigned long long after = unread - before - trace_counts.past_count;
	const char *sep = " (";

	fprintf(stderr, ", %llu left unread", unread);
	if (before) {
		fprintf(stderr, "%s%llu recorded before the stop", sep, before);
		sep = ", ";
	}
	/* a cut drain with the time bound cannot tell before from after */
	if ((trace_drain == DRAIN_EMPTY || trace_stop.nr_cpus) && after) {
		fprintf(stderr, "%s%llu %s the stop", sep, after,
			before ? "after" : "recorded after");
		sep = ", ";
	}
	if (trace_counts.past_count) {
		fprintf(stderr, "%s%llu past -n", sep, trace_counts.past_count);
		sep = ", ";
	}
	if (*sep == ',')
		fputc(')', stderr);
}

void summary__print(const struct source *src, const struct sink *sink,
		    const struct books *b)
{
	unsigned long long lost = 0, unread;
	const char *sep = " (";
	unsigned int cause;

	fprintf(stderr, "kptrace: %llu events (%llu entries, %llu returns",
		trace_counts.entries + trace_counts.returns,
		trace_counts.entries,
		trace_counts.returns);
	if (trace_counts.filtered)
		fprintf(stderr, ", %llu filtered out", trace_counts.filtered);
	for (cause = 0; cause <= KPT_LOST_NR; cause++)
		lost += trace_counts.lost[cause];
	fprintf(stderr, "), %llu lost", lost);
	for (cause = 0; cause <= KPT_LOST_NR; cause++) {
		if (!trace_counts.lost[cause])
			continue;
		fprintf(stderr, "%s%s %llu", sep, event__lost_cause(cause),
			trace_counts.lost[cause]);
		sep = ", ";
	}
	if (lost)
		fputc(')', stderr);
	unread = books__unread(b);
	if (src->device && unread)
		unread__print(b, unread);
	if (sink->fd >= 0)
		fprintf(stderr, ", %llu bytes saved to %s", trace_counts.saved,
			sink->path);
	if (trace_counts.unknown)
		fprintf(stderr, ", %llu record%s of unknown type skipped",
			trace_counts.unknown,
			trace_counts.unknown == 1 ? "" : "s");
	if (trace_counts.bad)
		fprintf(stderr, ", %llu bad record%s (%llu bytes dropped)",
			trace_counts.bad, trace_counts.bad == 1 ? "" : "s",
			trace_counts.dropped);
	if (b->end)
		fprintf(stderr, "; module: hits %llu recorded %llu lost %llu missed %llu",
			(unsigned long long)b->end->hits,
			(unsigned long long)b->end->recorded,
			(unsigned long long)b->end->lost,
			(unsigned long long)b->end->missed);
	fputc('\n', stderr);
}
