/* SPDX-License-Identifier: GPL-2.0 */
/*
 * event: checking, decoding and printing kptrace records.
 */
#ifndef __KPTRACE_EVENT_H
#define __KPTRACE_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <uapi/kptrace.h>

struct ksyms;
struct probes;

struct event_fmt {
	FILE *out;
	bool json;		/* one JSON object per line, else text */
	bool stack;		/* print the call traces records have */
	const struct ksyms *ksyms;	/* NULL: frames as bare addresses */
	struct probes *probes;
};

enum event_check {
	EVENT_OK,		/* decode it, or skip it by size if unknown */
	EVENT_PARTIAL,		/* sound so far, but cut by the buffer's end */
	EVENT_BAD,		/* garbage: nothing after it can be trusted */
};

/*
 * Checks the record at @rec, @avail bytes before the end of the buffer,
 * which must be 8-byte aligned, with kpt_record_check() (the checks the
 * module and the selftests' helpers make too, uapi/kptrace_record.h). On
 * EVENT_BAD and EVENT_PARTIAL, *@why says what is wrong. Only on EVENT_OK
 * is ((struct kpt_event *)rec)->size safe to advance by.
 */
enum event_check event__check(const void *rec, size_t avail,
			      const char **why);

/* Prints a checked entry, return or lost record; ignores other types. */
void event__print(const struct event_fmt *fmt, const struct kpt_event *e);

/*
 * The call trace of checked record @e (an entry, or a return of a
 * syscalls probe) as event__print() shows it: " Call Trace:" and a line
 * per frame (none without frames); as JSON, the members
 * ,"stack":[{"addr":..,"sym":..},..] and ,"stack_truncated":true.
 */
void event__print_stack(const struct event_fmt *fmt,
			const struct kpt_event *e);
void event__json_stack(const struct event_fmt *fmt, const struct kpt_event *e);

/*
 * Untrusted text in text output, by the one rule of kpt_byte_escaped()
 * (uapi/kptrace_record.h; see the top of event.c): a backslash and @quote
 * (if not 0) as \\ and \", other bytes that are not printable ASCII as
 * \xNN, the rest as they are. @len bytes of @s, which may hold NULs.
 */
void event__text_bytes(FILE *f, const void *s, size_t len, char quote);

/* A comm the same way: KPT_COMM_LEN bytes at most, to a NUL if any. */
void event__text_comm(FILE *f, const char *comm);

/*
 * Up to @len bytes of @s (to a NUL if any) the same way, as a malloc'ed
 * string (a spec line, as the module's error_log shows it); NULL: out of
 * memory.
 */
char *event__text_str(const char *s, size_t len);

/* The cause's name from KPT_LOST_NAMES, or "unknown" */
const char *event__lost_cause(__u32 cause);

static inline const __u64 *event__args(const struct kpt_event *e)
{
	return e->data;
}

/* The frames of a checked entry, or of a return (a syscalls probe's) */
static inline const __u64 *event__stack(const struct kpt_event *e)
{
	if (e->type == KPT_EV_RETURN)
		return e->data + KPT_RET_SLOTS + e->nr_args;
	return e->data + e->nr_args;
}

#endif /* __KPTRACE_EVENT_H */
