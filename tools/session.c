// SPDX-License-Identifier: GPL-2.0
/*
 * session: a kptrace session and the ioctls that answer in the call
 * (session.h; their contract is uapi/kptrace.h's). A module without
 * them answers ENOTTY: it is older than the tool, which says so once
 * ("too old for sessions: reload it") and gives up.
 *
 * A session's books (KPT_IOC_STATS) come as the stats file's struct
 * stats (stats.h): per CPU recorded = read + pending, and recorded +
 * lost.overwritten, the seq of the CPU's last record, bounds a stop's
 * drain (trace.c) as the stats file's counters do for the default
 * session. A probe's (KPT_IOC_PROBE_STATS) as probe_stats' total line's
 * struct pstats_probe (pstats.h).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "event.h"
#include "pstats.h"
#include "session.h"
#include "speclist.h"
#include "stats.h"
#include "trace.h"

/* room for an add's canonical spec: hidden addresses print longer */
#define SESSION_SPEC_ROOM	(2 * KPT_SPEC_LINE_MAX)
#define SESSION_TRIES		100	/* of an ioctl a signal cut short */

static const char * const clock_names[] = KPT_CLOCK_NAMES;

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

const char *session__clock_name(__u32 clock)
{
	if (clock < ARRAY_SIZE(clock_names))
		return clock_names[clock];
	return "?";
}

int session__parse_clock(const char *name, __u32 *clock)
{
	__u32 i;

	for (i = 0; i < ARRAY_SIZE(clock_names); i++) {
		if (!strcmp(name, clock_names[i])) {
			*clock = i;
			return 0;
		}
	}
	return -1;
}

int session__parse_size(const char *arg, unsigned long long *bytes)
{
	unsigned long long v, mult = 1;
	char *end;

	if (*arg < '0' || *arg > '9')
		return -1;
	errno = 0;
	v = strtoull(arg, &end, 10);
	if (*end == 'k' || *end == 'K')
		mult = 1024;
	else if (*end == 'm' || *end == 'M')
		mult = 1024 * 1024;
	if (mult > 1)
		end++;
	if (errno || *end || v > ~0ULL / mult)
		return -1;
	*bytes = v * mult;
	return 0;
}

const char *session__size_str(unsigned long long n, char *buf, size_t len)
{
	if (n && !(n % (1024 * 1024)))
		snprintf(buf, len, "%lluM", n / (1024 * 1024));
	else if (n && !(n % 1024))
		snprintf(buf, len, "%lluK", n / 1024);
	else
		snprintf(buf, len, "%llu", n);
	return buf;
}

/* ENOTTY: the module predates sessions. Always -1. */
static int session__too_old(void)
{
	fputs("kptrace: the kptrace module is too old for sessions: reload it\n",
	      stderr);
	return -1;
}

/* ioctl(@fd, @req, @arg), again while a signal cuts it short */
static int session__ioctl(int fd, unsigned long req, void *arg)
{
	unsigned int tries = 0;
	int ret;

	do
		ret = ioctl(fd, req, arg);
	while (ret && errno == EINTR && ++tries < SESSION_TRIES);
	return ret;
}

/* Why the module would not make the session: one line. */
static void session__refused(const struct session_opts *o,
			     const struct kpt_info *info, int err)
{
	char size[32] = "the module's size";
	const char *why = "";

	if (o->ring_bytes)
		session__size_str(o->ring_bytes, size, sizeof(size));
	switch (err) {
	case E2BIG:
		why = ": all its rings would pass the module's mem_max_mb";
		break;
	case EMFILE:
		why = ": as many sessions as the module allows are open";
		break;
	case EPERM:
		why = ": the kernel is locked down";
		break;
	}
	fprintf(stderr,
		"kptrace: the module refused a session of rings of %s per CPU (%u CPUs)%s: %s\n",
		size, info->nr_cpus, why, strerror(err));
}

int session__new(struct session *s, struct source *src,
		 const struct session_opts *opts, struct kpt_info *info)
{
	struct kpt_session_req req;

	memset(s, 0, sizeof(*s));
	s->fd = -1;
	src->rdwr = true;
	if (device__open(src, info))
		return -1;
	memset(&req, 0, sizeof(req));
	req.ring_bytes = opts->ring_bytes;
	req.flags = opts->overwrite ? KPT_SESSION_OVERWRITE : 0;
	req.clock = opts->clock;
	if (session__ioctl(src->fd, KPT_IOC_SESSION, &req)) {
		if (errno == ENOTTY)
			return session__too_old();
		session__refused(opts, info, errno);
		return -1;
	}
	s->fd = src->fd;
	s->path = src->path;
	s->id = req.id;
	s->ring_bytes = req.ring_bytes;
	s->clock = req.clock;
	s->flags = req.flags;
	s->nr_cpus = info->nr_cpus ? info->nr_cpus : 1;
	src->session = s;
	return 0;
}

void session__default(struct session *s, int fd, const char *path)
{
	memset(s, 0, sizeof(*s));
	s->fd = fd;
	s->path = path;
	s->nr_cpus = 1;
}

/* The module's reason for refusing @sl: under the user's text. */
static void session__add_refused(const struct spec_line *sl,
				 const struct kpt_add_req *req, int err)
{
	char *msg = event__text_str(req->msg, sizeof(req->msg));
	char text[KPT_ADD_MSG_LEN * 4 + 128];
	int pos = req->err && req->pos >= 0 ?
		  spec_line__orig(sl, req->pos) : -1;

	/* the module's words may quote the user's: escaped as text */
	if (msg && *msg)
		snprintf(text, sizeof(text), "the module refused it (%s): %s",
			 strerror(err), msg);
	else
		snprintf(text, sizeof(text), "the module refused it: %s",
			 strerror(err));
	spec__show_error(text, sl->user, pos);
	free(msg);
}

int session__add(const struct session *s, const struct spec_line *sl,
		 __u32 *id, char **spec)
{
	struct kpt_add_req req;
	char *buf = NULL;

	memset(&req, 0, sizeof(req));
	if (spec) {
		buf = malloc(SESSION_SPEC_ROOM);
		if (!buf) {
			fputs("kptrace: out of memory\n", stderr);
			return -1;
		}
		req.spec = (__u64)(uintptr_t)buf;
		req.spec_len = SESSION_SPEC_ROOM;
	}
	req.line = (__u64)(uintptr_t)sl->line;
	req.len = strlen(sl->line);
	req.pos = -1;
	if (session__ioctl(s->fd, KPT_IOC_ADD, &req)) {
		int err = errno;

		free(buf);
		if (err == ENOTTY)
			return session__too_old();
		req.msg[sizeof(req.msg) - 1] = '\0';
		session__add_refused(sl, &req, req.err < 0 ? -req.err : err);
		return -1;
	}
	if (id)
		*id = req.id;
	if (!spec)
		return 0;
	/* not copied (too long for the room): the line written names it */
	if (!req.spec_size || req.spec_size > SESSION_SPEC_ROOM) {
		free(buf);
		buf = strdup(sl->line);
	} else {
		buf[req.spec_size - 1] = '\0';
	}
	*spec = buf;
	if (!buf)
		fputs("kptrace: out of memory\n", stderr);
	return buf ? 0 : -1;
}

int session__stats(const struct session *s, struct stats *st)
{
	struct kpt_ring_books *b;
	struct kpt_stats_req req;
	unsigned int n = s->nr_cpus, tries = 0, cpu, i;

	memset(st, 0, sizeof(*st));
	for (;;) {
		b = calloc(n, sizeof(*b));
		if (!b) {
			fputs("kptrace: out of memory\n", stderr);
			return -1;
		}
		memset(&req, 0, sizeof(req));
		req.buf = (__u64)(uintptr_t)b;
		req.nr_cpus = n;
		if (!session__ioctl(s->fd, KPT_IOC_STATS, &req))
			break;
		free(b);
		if (errno == ENOTTY)
			return session__too_old();
		/* more possible CPUs than KPT_IOC_INFO said: the room asked */
		if (errno == ENOSPC && req.nr_cpus > n && ++tries < 3) {
			n = req.nr_cpus;
			continue;
		}
		fprintf(stderr, "kptrace: KPT_IOC_STATS of %s failed: %s\n",
			s->path, strerror(errno));
		return -1;
	}
	if (req.nr_cpus > n)
		req.nr_cpus = n;
	st->cpu = calloc(req.nr_cpus ? req.nr_cpus : 1, sizeof(*st->cpu));
	if (!st->cpu) {
		free(b);
		fputs("kptrace: out of memory\n", stderr);
		return -1;
	}
	st->nr_cpus = req.nr_cpus;
	for (cpu = 0; cpu < req.nr_cpus; cpu++) {
		struct stats_cpu *c = &st->cpu[cpu];

		c->hits = b[cpu].hits;
		c->recorded = b[cpu].recorded;
		c->read = b[cpu].read;
		c->pending = c->recorded > c->read ? c->recorded - c->read : 0;
		for (i = 0; i < KPT_LOST_NR; i++) {
			c->lost[i] = b[cpu].lost[i];
			st->lost_cause[i] += c->lost[i];
			st->lost += c->lost[i];
		}
		st->hits += c->hits;
		st->recorded += c->recorded;
		st->read += c->read;
		st->pending += c->pending;
	}
	st->missed = req.missed;
	free(b);
	return 0;
}

int session__now(const struct session *s, __u64 *ns)
{
	return session__ioctl(s->fd, KPT_IOC_NOW, ns) ? -1 : 0;
}

int session__probe_books(const struct session *s, __u32 id,
			 struct pstats_probe *ps)
{
	struct kpt_probe_books pb;
	unsigned int i;

	memset(ps, 0, sizeof(*ps));
	memset(&pb, 0, sizeof(pb));
	pb.id = id;
	if (session__ioctl(s->fd, KPT_IOC_PROBE_STATS, &pb)) {
		if (errno == ENOTTY)
			return session__too_old();
		fprintf(stderr, "kptrace: KPT_IOC_PROBE_STATS of probe %u failed: %s\n",
			id, strerror(errno));
		return -1;
	}
	ps->calls = pb.calls;
	ps->events = pb.events;
	ps->filtered = pb.filtered;
	ps->recorded = pb.recorded;
	for (i = 0; i < KPT_LOST_NR; i++)
		ps->lost[i] = pb.lost[i];
	ps->missed = pb.missed;
	ps->maxactive_missed = pb.maxactive_missed;
	ps->num_fault = pb.num_fault;
	ps->str_fault = pb.str_fault;
	ps->str_trunc = pb.str_trunc;
	ps->stack_trunc = pb.stack_trunc;
	ps->summary_full = pb.summary_full;
	return 0;
}

char *session__listing_line(const struct session *s, const char *spec,
			    __u32 id)
{
	size_t len = strlen(spec) + 64;
	char *line = malloc(len);

	if (!line)
		return NULL;
	if (s->id)
		snprintf(line, len, "%s # id=%u session=%u", spec, id, s->id);
	else
		snprintf(line, len, "%s # id=%u", spec, id);
	return line;
}
