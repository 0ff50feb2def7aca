/* SPDX-License-Identifier: GPL-2.0 */
/*
 * session: an open /dev/kptrace made a session of its own (uapi/kptrace.h,
 * KPT_IOC_SESSION): its own per-CPU rings, clock and books; the probes
 * added through it are its own, their records reach only its read()s,
 * and they go when it is closed (exit, kill -9). And the ioctls that
 * answer in the call, on a session's file or on a plain one (the
 * default session's): KPT_IOC_ADD, KPT_IOC_STATS, KPT_IOC_PROBE_STATS.
 */
#ifndef __KPTRACE_SESSION_H
#define __KPTRACE_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include <uapi/kptrace.h>

struct source;
struct spec_line;
struct stats;
struct pstats_probe;

/* What a session is made with. */
struct session_opts {
	__u64 ring_bytes;	/* per CPU, rounded up to a power of 2; */
				/* 0: the module's bufsize_kb */
	bool overwrite;		/* KPT_SESSION_OVERWRITE */
	__u32 clock;		/* enum kpt_clock_id */
};

struct session {
	int fd;			/* the device, open for writing too */
	const char *path;
	__u32 id;		/* from 1; 0: the default session */
	__u64 ring_bytes;	/* per CPU, as the module made them */
	__u32 clock;		/* as the module chose: never AUTO */
	__u32 flags;		/* KPT_SESSION_* */
	unsigned int nr_cpus;	/* possible CPUs (KPT_IOC_INFO) */
};

/*
 * Opens @src->path (the device) for reading and writing, checks it
 * (device__open(): KPT_IOC_INFO into @info) and makes it the session @s,
 * which @src reads (src->session). 0, or -1 with a message: a module
 * without sessions is "too old for sessions: reload it".
 */
int session__new(struct session *s, struct source *src,
		 const struct session_opts *opts, struct kpt_info *info);

/* @s as the default session of the open device @fd (kptrace probe add). */
void session__default(struct session *s, int fd, const char *path);

/*
 * KPT_IOC_ADD of @sl->line: a probe of @s (or a -:NAME delete). On
 * success 0, its id in *@id and its canonical spec (the probes listing's
 * line without the comment) in *@spec, malloc'ed (either may be NULL:
 * not wanted). On a refusal -1, after the module's reason on stderr with
 * a caret under its column in the user's text (@sl->user).
 */
int session__add(const struct session *s, const struct spec_line *sl,
		 __u32 *id, char **spec);

/*
 * @s's books (KPT_IOC_STATS) as the stats file's: per CPU hits,
 * recorded, read, pending and lost by cause, and their totals, with the
 * kprobe core's misses. 0, or -1 with a message (@st empty).
 */
int session__stats(const struct session *s, struct stats *st);

/*
 * Now, by the clock of the session's records (KPT_IOC_NOW): 0, or -1
 * (errno set; a module without it: ENOTTY).
 */
int session__now(const struct session *s, __u64 *ns);

/*
 * The books of probe @id of @s (KPT_IOC_PROBE_STATS), as probe_stats'
 * total line. 0, or -1 with a message.
 */
int session__probe_books(const struct session *s, __u32 id,
			 struct pstats_probe *ps);

/*
 * The probes listing's line of probe @id of @s, whose canonical spec is
 * @spec: "SPEC # id=N session=S" (malloc'ed, NULL if out of memory), as
 * kptrace -r reads it from FILE.probes.
 */
char *session__listing_line(const struct session *s, const char *spec,
			    __u32 id);

/*
 * SIZE with an optional K or M (KiB, MiB; either case), nothing else:
 * 0 and the bytes in *@bytes, or -1.
 */
int session__parse_size(const char *arg, unsigned long long *bytes);

/* @bytes as SIZE is written: 64K, 1M, or 1000. */
const char *session__size_str(unsigned long long bytes, char *buf,
			      size_t len);

/* An enum kpt_clock_id's name (KPT_CLOCK_NAMES), or "?" */
const char *session__clock_name(__u32 clock);

/* The clock of --clock NAME: 0, or -1 if NAME is none. */
int session__parse_clock(const char *name, __u32 *clock);

#endif /* __KPTRACE_SESSION_H */
