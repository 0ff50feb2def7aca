// SPDX-License-Identifier: GPL-2.0
/*
 * syscalls_count: `kptrace syscalls -s`, the counts of the kernel: the
 * reads of KPT_IOC_SYSSUM every second, -i's intervals, and the tables
 * and --prometheus file at the end of a run (of -s, -S or -r).
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>

#include "child.h"
#include "prom.h"
#include "syscalls_cmd.h"
#include "syscalls_comm.h"
#include "syscalls_run.h"

#define SYS_SUM_ENTRIES		1024	/* summary's per CPU, the default */
#define SYS_SUM_BUF_MAX		(1024ULL * 1024 * 1024)	/* KPT_IOC_SYSSUM's */
#define SYS_PROM_FILE		"kptrace_syscalls.prom"	/* in --prometheus DIR */

/* The stop signals and SIGCHLD, held during a -s run: sigtimedwait() */
static sigset_t sum_signals;

static double ts_since(const struct timespec *t, const struct timespec *t0)
{
	return (double)(t->tv_sec - t0->tv_sec) +
	       (t->tv_nsec - t0->tv_nsec) / 1e9;
}

/* A write to the output failed: the run stops, as the printer's does. */
static int count_out_check(struct sys_run *run)
{
	if (!ferror(run->out))
		return 0;
	if (!run->printer.out_error) {
		run->printer.out_error = true;
		run->printer.out_errno = trace__flush(run->out);
	}
	return -1;
}

/*
 * One ioctl(KPT_IOC_SYSSUM): ends the kernel's interval and adds its
 * entries (one per CPU and (process, call)) to the run's counts and, with
 * -i, to the interval's; the tool's own calls are counted apart. The
 * buffer grows to the size an -ENOSPC asks for (nothing was ended then).
 * 0, or -1 with a message.
 */
static int count_read_one(struct sys_run *run, const char *name)
{
	const struct kpt_syssum_entry *e;
	struct kpt_syssum_req req;
	__u32 self = run->self_pid;
	unsigned int tries = 0;
	size_t i;
	void *buf;

	for (;;) {
		memset(&req, 0, sizeof(req));
		snprintf(req.name, sizeof(req.name), "%s", name);
		req.buf = (__u64)(uintptr_t)run->sum_buf;
		req.len = run->sum_len;
		if (!ioctl(run->src.fd, KPT_IOC_SYSSUM, &req))
			break;
		if (errno == EINTR && ++tries < 100)
			continue;
		if (errno == ENOTTY)
			return sys_error(-1, "%s has no KPT_IOC_SYSSUM: an older module",
					 run->src.path);
		if (errno != ENOSPC || req.size <= run->sum_len ||
		    req.size > SYS_SUM_BUF_MAX || ++tries > 3)
			return sys_error(-1, "KPT_IOC_SYSSUM of %s/%s: %s",
					 SYS_GROUP, name,
					 strerror(errno));
		buf = realloc(run->sum_buf, req.size);
		if (!buf)
			return sys_error(-1, "out of memory");
		run->sum_buf = buf;
		run->sum_len = req.size;
	}
	if (req.size > run->sum_len ||
	    req.size != (__u64)req.nr_entries * sizeof(*e))
		return sys_error(-1, "KPT_IOC_SYSSUM of %s/%s: %u entries in %llu bytes",
				 SYS_GROUP, name, req.nr_entries,
				 (unsigned long long)req.size);
	for (i = 0; i < req.nr_entries; i++) {
		e = &run->sum_buf[i];
		run->sum_read += e->calls;
		if (self && e->pid == self) {
			run->sum_own += e->calls;
			continue;
		}
		if (sys_sum__add(run->sum, e) ||
		    (run->interval && sys_sum__add(run->interval, e)) ||
		    (run->prom && sys_sum__add(run->prom, e)))
			return sys_error(-1, "out of memory");
	}
	return 0;
}

int sys_count__read(struct sys_run *run)
{
	unsigned int i;

	sys_sum__next(run->sum);
	if (run->interval)
		sys_sum__next(run->interval);
	if (run->comms)
		sys_comms__next(run->comms);
	for (i = 0; i < run->nprobes; i++)
		if (count_read_one(run, run->names[i]))
			return -1;
	clock_gettime(CLOCK_MONOTONIC, &run->t_read);
	return 0;
}

/* The tables are printed: but with --prometheus, if not as -j's rows. */
static bool run_prints_tables(const struct sys_run *run)
{
	return !run->env->prom_dir || run->env->json;
}

/*
 * --prometheus: DIR/SYS_PROM_FILE from the whole run's counts by comm, and
 * the books of @ps, or if NULL of the probe's counters read now (none if
 * they cannot be read). 0, or -1 with a message.
 */
static int run_prom(struct sys_run *run, const struct pstats_probe *ps)
{
	struct pstats_probe now;
	char *text = NULL;
	size_t len = 0;
	FILE *m;
	int ret;

	if (!ps && !sys_run__books(run, &now))
		ps = &now;
	m = open_memstream(&text, &len);
	if (!m)
		return sys_error(-1, "out of memory");
	ret = sys_sum__prom(m, run->prom, run->env->cgroup_label, ps);
	if (fclose(m) || ret) {
		free(text);
		return sys_error(-1, "out of memory");
	}
	ret = prom__write(run->env->prom_dir, SYS_PROM_FILE, text, len);
	free(text);
	return ret;
}

/* -i: prints the interval that the last read ended, and starts the next. */
static int sum_interval(struct sys_run *run)
{
	char title[128];

	run->intervals++;
	snprintf(title, sizeof(title),
		 "Summary of events, interval %lu (%.3f to %.3f s)",
		 run->intervals, ts_since(&run->t_interval, &run->t0),
		 ts_since(&run->t_read, &run->t0));
	if (run_prints_tables(run) &&
	    sys_sum__print(run->out, run->interval, run->env->json, title,
			   run->env->json ? (long)run->intervals : -1))
		return sys_error(-1, "out of memory");
	sys_sum__clear(run->interval);
	run->t_interval = run->t_read;
	fflush(run->out);
	return count_out_check(run);
}

/*
 * -s: waits for the stop (SIGINT, SIGTERM, COMMAND's exit), the signals
 * held and taken by sigtimedwait(); reads the counts every second, so that
 * each CPU's table needs room for a second's (process, call)s only, and
 * with -i prints an interval every SECS seconds. 0, or -1 on an error.
 */
int sys_count__loop(struct sys_run *run)
{
	unsigned int secs = run->env->interval;
	struct timespec next = run->t0, now, left;
	unsigned long long tick;
	siginfo_t si;
	int sig;

	run->next_interval = secs;
	next.tv_sec++;
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec > next.tv_sec ||
		    (now.tv_sec == next.tv_sec && now.tv_nsec >= next.tv_nsec)) {
			/* whole seconds since t0: a late tick skips the missed */
			tick = (unsigned long long)ts_since(&now, &run->t0);
			if (sys_count__read(run))
				return -1;
			if (secs && tick >= run->next_interval) {
				run->next_interval = (tick / secs + 1) * secs;
				if (sum_interval(run))
					return -1;
				/* a failed write is said; the next may work */
				if (run->prom && run_prom(run, NULL))
					run->prom_failed = true;
			}
			next = run->t0;
			next.tv_sec += (time_t)tick + 1;
			continue;
		}
		left.tv_sec = next.tv_sec - now.tv_sec;
		left.tv_nsec = next.tv_nsec - now.tv_nsec;
		if (left.tv_nsec < 0) {
			left.tv_sec--;
			left.tv_nsec += 1000000000L;
		}
		sig = sigtimedwait(&sum_signals, &si, &left);
		if (sig < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (sig < 0)
			return sys_error(-1, "sigtimedwait: %s", strerror(errno));
		if (sig != SIGCHLD)
			return 0;	/* SIGINT, SIGTERM; SIGALRM: a stop */
		if (child__sigchld())
			return 0;
	}
}

/* -s: the tables at the end: the last interval's (-i), the whole run's. */
static int sum_tables(struct sys_run *run)
{
	char title[128];

	if (run->env->interval && sum_interval(run))
		return -1;
	if (run->env->interval)
		snprintf(title, sizeof(title),
			 "Summary of events, the whole run (0.000 to %.3f s, %lu interval%s)",
			 ts_since(&run->t_read, &run->t0), run->intervals,
			 run->intervals == 1 ? "" : "s");
	else
		snprintf(title, sizeof(title), "Summary of events");
	if (run_prints_tables(run) &&
	    sys_sum__print(run->out, run->sum, run->env->json, title,
			   run->env->interval ? 0 : -1))
		return sys_error(-1, "out of memory");
	return count_out_check(run);
}

/* -s: holds the signals sum_loop() takes, from the start of the run. */
void sys_count__hold_signals(void)
{
	sigemptyset(&sum_signals);
	signals__add_stops(&sum_signals);
	sigaddset(&sum_signals, SIGCHLD);
	sigprocmask(SIG_BLOCK, &sum_signals, NULL);
}

/* -s: the buffer of a read, for the module's default table size. */
int sys_count__start(struct sys_run *run)
{
	run->sum_len = (size_t)run->nr_cpus * SYS_SUM_ENTRIES *
		       sizeof(*run->sum_buf);
	run->sum_buf = malloc(run->sum_len);
	if (!run->sum_buf)
		return sys_error(-1, "out of memory");
	clock_gettime(CLOCK_MONOTONIC, &run->t0);
	run->t_interval = run->t0;
	run->t_read = run->t0;
	return 0;
}

/*
 * The table(s) at the end, unless the output already failed: -s live,
 * the kernel's counts (sum_tables()); -S, or -s on records (-r), the
 * calls of the records. --prometheus: the file, whatever became of the
 * output, with the books of run->ps_end. 0, or -1 with a message.
 */
int sys_run__tables(struct sys_run *run)
{
	int err = 0;

	if (run->prom && !run->printer.no_memory &&
	    run_prom(run, run->ps_end))
		err = -1;
	if (!run->sum || !run->out || run->printer.out_error)
		return err;
	if (run->env->sel.summary)
		return sum_tables(run) ? -1 : err;
	if (run->printer.no_memory)
		return sys_error(-1, "out of memory: the table is not printed");
	if (run_prints_tables(run) &&
	    sys_sum__print(run->out, run->sum, run->env->json,
			   "Summary of events", -1))
		return sys_error(-1, "out of memory");
	return count_out_check(run) ? -1 : err;
}
