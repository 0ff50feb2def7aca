// SPDX-License-Identifier: GPL-2.0
/*
 * syscalls_flight: `kptrace syscalls --flight SIZE`.
 *
 * The flight recorder is the rings of the tool's own session
 * (session.c), made with KPT_SESSION_OVERWRITE: a full ring frees its
 * oldest records for the new ones, and the probe counts each as
 * lost.overwritten (KPT_IOC_PROBE_STATS). Every other session, the
 * default one's included, keeps its rings as they are. Each ring is SIZE
 * rounded up to a power of two, and at least two of the largest records
 * (KPT_MAX_RECORD): a task's calls may all be on one CPU, whose ring then
 * holds the newest SIZE bytes of them. So the tool arms its probe as
 * without --flight, but reads nothing while the run goes on: it waits in
 * sigsuspend() for SIGUSR1, a stop signal or SIGCHLD (COMMAND's exit
 * stops the run, child.c). A dump takes all the rings hold with
 * records__take(), the main reader's loop (checks, the probe's records
 * only, the tool's own dropped, the counts of the books), into a window
 * of the newest SIZE bytes of records: a record that makes it pass SIZE
 * pushes the oldest out, counted. The calls left in the window are
 * printed oldest first by sys_printer__record(), as without --flight,
 * then one line:
 *
 *	kptrace: N older calls overwritten
 *
 * N, those the window pushed out and those the kernel overwrote (the
 * probe's lost.overwritten since the last dump, read after the take).
 * Every dump empties the rings: the next shows the calls since. Loss
 * reports are not printed: the probe's losses are in N and in the books
 * at the end.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "session.h"
#include "syscalls_flight.h"

#define EXIT_USAGE		2
#define FLIGHT_MAX		(1024ULL * 1024 * 1024)	/* bufsize_kb's */
#define FLIGHT_MIN_CAP		(64 * 1024)
#define FLIGHT_MIN		160	/* one call's record, no string */

/*
 * The newest records taken, in the order the device gave them (time):
 * buf[head..tail), at most SIZE bytes after each push.
 */
struct flight {
	size_t size;			/* --flight SIZE */
	char *buf;
	size_t cap, head, tail;
	unsigned long long pushed_out;	/* calls past SIZE, this dump */
	unsigned long long pushed_all;	/* ... the whole run */
	unsigned long long overwritten;	/* the probe's, at the last dump */
	struct sink *sink;
	struct sys_printer *printer;
	bool banner;
	bool no_memory;			/* said once */
};

static volatile sig_atomic_t dump_asked;

static void on_usr1(int sig)
{
	(void)sig;
	dump_asked = 1;
}

int flight__parse_size(const char *arg, size_t *size)
{
	unsigned long long v;

	if (session__parse_size(arg, &v) || v < FLIGHT_MIN || v > FLIGHT_MAX)
		return sys_error(EXIT_USAGE,
				    "invalid --flight '%s': bytes, 160 (one call) to 1G, with K or M for KiB or MiB (64K)",
				    arg);
	*size = (size_t)v;
	return 0;
}

__u64 flight__ring_bytes(size_t size)
{
	__u64 ring = 2 * KPT_MAX_RECORD;

	while (ring < size)
		ring *= 2;
	return ring;
}

/* Room for @need more bytes after tail: 0, or -1 when out of memory. */
static int flight_room(struct flight *fl, size_t need)
{
	size_t live = fl->tail - fl->head, cap;
	char *buf;

	if (fl->tail + need <= fl->cap)
		return 0;
	/* half of it or more is pushed out: move the rest to the front */
	if (live + need <= fl->cap / 2) {
		memmove(fl->buf, fl->buf + fl->head, live);
		fl->head = 0;
		fl->tail = live;
		return 0;
	}
	cap = fl->cap ? fl->cap : FLIGHT_MIN_CAP;
	while (cap / 2 < live + need)
		cap *= 2;
	buf = realloc(fl->buf, cap);
	if (!buf)
		return -1;
	fl->buf = buf;
	fl->cap = cap;
	return 0;
}

/* The sink's print: a call of the probe into the window */
static void flight_collect(const struct kpt_event *e, void *priv)
{
	struct flight *fl = priv;
	const struct kpt_event *old;

	if (e->type == KPT_EV_LOST)
		return;		/* every probe's: the books count ours */
	if (flight_room(fl, e->size)) {
		/* no room for it: as if SIZE had pushed it out */
		if (!fl->no_memory)
			fprintf(stderr,
				"kptrace: out of memory: calls the dumps cannot hold are counted as overwritten\n");
		fl->no_memory = true;
		fl->pushed_out++;
		fl->pushed_all++;
		return;
	}
	memcpy(fl->buf + fl->tail, e, e->size);
	fl->tail += e->size;
	while (fl->tail - fl->head > fl->size) {
		old = (const struct kpt_event *)(fl->buf + fl->head);
		fl->head += old->size;
		fl->pushed_out++;
		fl->pushed_all++;
	}
}

struct flight *flight__new(size_t size, struct sink *sink,
			   struct sys_printer *printer, bool banner)
{
	struct flight *fl = calloc(1, sizeof(*fl));
	struct sigaction sa;

	if (!fl) {
		fputs("kptrace: error: out of memory\n", stderr);
		return NULL;
	}
	fl->size = size;
	fl->sink = sink;
	fl->printer = printer;
	fl->banner = banner;
	sink->print = flight_collect;
	sink->priv = fl;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0;	/* no SA_RESTART, as the stop signals */
	if (sigaction(SIGUSR1, &sa, NULL)) {
		fprintf(stderr, "kptrace: cannot set a SIGUSR1 handler: %s\n",
			strerror(errno));
		free(fl);
		return NULL;
	}
	return fl;
}

/*
 * One dump: what the rings hold, the newest SIZE bytes printed, the line
 * of the overwritten. 0, or -1 if the take failed (what it took is
 * printed all the same).
 */
static int flight_dump(struct flight *fl, struct source *src, char *buf,
		       size_t buf_size, const struct flight_hooks *h)
{
	struct sys_printer *p = fl->printer;
	unsigned long long shown = p->shown, n, kernel = 0;
	struct pstats_probe ps;
	int ret, e;

	ret = records__take(src, fl->sink, buf, buf_size);
	if (trace_drain == DRAIN_TIMEOUT && !trace__stopped())
		fprintf(stderr,
			"kptrace: the dump stopped taking records after %d s: calls come faster than it reads\n",
			DRAIN_SECONDS);
	/* after the take: what was overwritten before it */
	if (!h->books(h->priv, &ps)) {
		kernel = ps.lost[KPT_LOST_OVERWRITTEN];
		n = kernel >= fl->overwritten ? kernel - fl->overwritten : 0;
		fl->overwritten = kernel;
		kernel = n;
	} else {
		fprintf(stderr, "kptrace: no books of the probe: %s\n",
			"the count below leaves out the calls the kernel overwrote");
	}
	while (fl->head < fl->tail) {
		const struct kpt_event *e = (const void *)(fl->buf + fl->head);

		fl->head += e->size;
		sys_printer__record(e, p);
	}
	fl->head = 0;
	fl->tail = 0;
	n = kernel + fl->pushed_out;
	fl->pushed_out = 0;
	if (p->json)
		fprintf(p->out,
			"{\"type\":\"flight\",\"shown\":%llu,\"overwritten\":%llu}\n",
			p->shown - shown, n);
	else
		fprintf(p->out, "kptrace: %llu older call%s overwritten\n", n,
			n == 1 ? "" : "s");
	if (h->pending)
		h->pending(h->priv);
	e = trace__flush(p->out);
	if (e && !p->out_error) {
		p->out_error = true;
		p->out_errno = e;
		trace__stop();
	}
	return ret;
}

int flight__run(struct flight *fl, struct source *src, char *buf,
		size_t buf_size, const struct flight_hooks *hooks)
{
	sigset_t hold, wait;
	char size[32];
	int err = 0, sig;

	/* let in only while it waits: a dump is never cut by one */
	sigemptyset(&hold);
	signals__add_stops(&hold);	/* SIGUSR1 among them */
	sigaddset(&hold, SIGCHLD);
	sigprocmask(SIG_BLOCK, &hold, &wait);
	for (sig = 1; sig < NSIG; sig++)
		if (sigismember(&hold, sig) == 1)
			sigdelset(&wait, sig);
	if (fl->banner)
		fprintf(stderr,
			"kptrace: a flight recorder of %s: kill -USR1 %d prints the newest calls\n",
			session__size_str(fl->size, size, sizeof(size)),
			(int)getpid());
	while (!trace__stopped()) {
		if (dump_asked) {
			dump_asked = 0;
			if (flight_dump(fl, src, buf, buf_size, hooks)) {
				err = -1;
				break;
			}
			continue;
		}
		sigsuspend(&wait);
	}
	if (!err && flight_dump(fl, src, buf, buf_size, hooks))
		err = -1;
	return err;
}

void flight__books(const struct flight *fl, struct pstats_probe *ps)
{
	unsigned long long n = fl->pushed_all;

	if (n > ps->recorded)
		n = ps->recorded;
	ps->recorded -= n;
	ps->lost[KPT_LOST_OVERWRITTEN] += n;
}

void flight__free(struct flight *fl)
{
	if (!fl)
		return;
	free(fl->buf);
	free(fl);
}
