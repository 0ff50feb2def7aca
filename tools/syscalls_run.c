// SPDX-License-Identifier: GPL-2.0
/*
 * syscalls_run: a run of `kptrace syscalls`: the tool's session and its
 * probe, COMMAND, the outputs, the records read and printed (or saved),
 * and the end: the books, the tables, the exit status.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "child.h"
#include "ksyms.h"
#include "paths.h"
#include "probes.h"
#include "session.h"
#include "speclist.h"
#include "stats.h"
#include "syscalls_cmd.h"
#include "syscalls_comm.h"
#include "syscalls_fd.h"
#include "syscalls_flight.h"
#include "syscalls_run.h"
#include "trace.h"

#define SYS_READ_BUF		(1024 * 1024)
#define SYS_OUT_BUF		(1024 * 1024)

/*
 * -o FILE, else stderr with COMMAND (its stdout is its own, as with strace
 * and perf trace), else stdout; buffered as the main reader's.
 */
static int run_output(struct sys_run *run)
{
	static char out_buf[SYS_OUT_BUF];
	int fd;

	run->out = run->env->command ? stderr : stdout;
	if (run->env->output) {
		fd = open(run->env->output,
			  O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
		run->out = fd >= 0 ? fdopen(fd, "w") : NULL;
		if (!run->out) {
			sys_error(1, "cannot create %s: %s", run->env->output,
				  strerror(errno));
			if (fd >= 0)
				close(fd);
			return -1;
		}
	}
	if (isatty(fileno(run->out)))
		setvbuf(run->out, NULL, _IOLBF, 0);
	else
		setvbuf(run->out, out_buf, _IOFBF, sizeof(out_buf));
	return 0;
}

/*
 * The kernel's symbols, for the frames of the call traces printed (live
 * --stack; -r, whose records may have them): without them, a frame is
 * its bare address, which scripts/decode_stacktrace.sh can still read.
 */
static void run_ksyms(struct sys_run *run)
{
	const char *path = path_from_env("KPTRACE_KALLSYMS", KALLSYMS_PATH);
	/* -r: the saved calls may have none */
	bool quiet = !run->env->sel.stack || run->env->quiet;

	run->ksyms = ksyms__load_frames(path, quiet);
	run->printer.lost_fmt.ksyms = run->ksyms;
}

static int run_sink(struct sys_run *run)
{
	struct sys_env *env = run->env;

	run->sink.fd = -1;
	if (env->save_path) {
		run->sink.path = env->save_path;
		return sink__open_file(&run->sink);
	}
	if (run_output(run))
		return -1;
	run->printer.out = run->out;
	run->printer.json = env->json;
	run->printer.no_lines = env->summary_only;
	if (env->summary_only || env->with_summary) {
		run->printer.sum = run->sum;
		run->printer.by_comm = run->prom;
	}
	/* -s on records: no line, no argument to name */
	run->printer.formats = env->summary_only ? NULL :
		sys_formats__new(getenv("KPTRACE_TRACEFS"), env->quiet);
	if (!run->printer.formats && !env->summary_only)
		return sys_error(-1, "out of memory");
	run->printer.lost_fmt.out = run->out;
	run->printer.lost_fmt.json = env->json;
	if ((env->sel.stack || env->replay_path) && !env->summary_only)
		run_ksyms(run);
	run->sink.fmt.out = run->out;
	run->sink.print = sys_printer__record;
	run->sink.priv = &run->printer;
	return 0;
}

/* --flight: the recorder, in front of the printer. 0, or -1. */
static int run_flight(struct sys_run *run)
{
	struct sys_env *env = run->env;

	run->flight = flight__new(env->flight, &run->sink, &run->printer,
				  !env->quiet && !env->command);
	return run->flight ? 0 : -1;
}

/* Adds probe @i of the run: its id, its listing line. 0, or -1. */
static int run_add(struct sys_run *run, unsigned int i, char *line,
		   size_t len)
{
	struct spec_line sl = { 0 };
	char *spec;

	sys_spec__name(run->names[i], sizeof(run->names[i]), getpid(), i);
	if (syscalls_cmd__spec_named(&run->sels[i], run->names[i], getpid(),
				     line, len) < 0)
		return sys_error(-1, "the spec line is over %d bytes",
				 SYS_LINE_MAX);
	sl.line = line;
	sl.user = line;
	if (session__add(&run->session, &sl, &run->ids[i], &spec))
		return -1;
	/*
	 * Its own calls, as the module numbers it (exclude=, global; in a
	 * container's pid namespace getpid() may be another process's)
	 */
	if (!run->self_pid)
		run->self_pid = sys_spec__exclude(spec);
	run->listings[i] = session__listing_line(&run->session, spec,
						 run->ids[i]);
	free(spec);
	if (!run->listings[i])
		return sys_error(-1, "out of memory");
	return 0;
}

/*
 * Makes the tool's session (--flight: its rings overwrite, SIZE per CPU
 * at least), adds the probes and learns their ids and exclude= from the
 * module's answers. 0, or -1 with a message.
 */
static int run_arm(struct sys_run *run)
{
	struct session_opts opts = { .clock = KPT_CLOCK_AUTO };
	char line[SYS_LINE_MAX];
	struct kpt_info info;
	size_t banner_len;
	FILE *banner = NULL;
	unsigned int i;

	if (run->env->flight) {
		opts.ring_bytes = flight__ring_bytes(run->env->flight);
		opts.overwrite = true;
	}
	run->src.path = path_from_env("KPTRACE_DEVICE", DEVICE_PATH);
	if (session__new(&run->session, &run->src, &opts, &info))
		return -1;
	run->nr_cpus = info.nr_cpus ? info.nr_cpus : 1;
	if (!source__stats(&run->src, &run->start)) {
		stats__free(&run->start);	/* the totals are enough */
		run->books.start = &run->start;
	}
	/* printed by run_banner(), once the calls in progress are shown */
	if (!run->env->quiet && !run->env->command) {
		banner = open_memstream(&run->banner, &banner_len);
		if (!banner)
			return sys_error(-1, "out of memory");
	}
	for (i = 0; i < run->nprobes; i++) {
		if (run_add(run, i, line, sizeof(line))) {
			if (banner)
				fclose(banner);
			return -1;
		}
		if (banner)
			fprintf(banner, "kptrace: %s system calls (%s)%s\n",
				run->env->sel.summary ? "counting" : "tracing",
				line, i + 1 == run->nprobes ?
				"... Hit Ctrl-C to end." : ",");
	}
	if (banner && fclose(banner))
		return sys_error(-1, "out of memory");
	/* the session holds the tool's probes only: one is filtered for */
	trace_env.only_probe = run->nprobes == 1;
	trace_env.probe_id = run->ids[0];
	trace_env.self_pid = run->self_pid;
	return 0;
}

int sys_run__books(const struct sys_run *run, struct pstats_probe *ps)
{
	struct pstats_probe one;
	unsigned int i;

	for (i = 0; i < run->nprobes; i++) {
		if (session__probe_books(&run->session, run->ids[i],
					 i ? &one : ps))
			return -1;
		if (i)
			sys_books__merge(ps, &one);
	}
	return 0;
}

/* -w FILE: FILE.probes gets the probe's listing line, for kptrace -r. */
static int run_save_listing(struct sys_run *run)
{
	struct probes *probes;
	unsigned int i;
	int ret = -1;

	if (run->sink.fd <= STDOUT_FILENO)
		return 0;
	probes = probes__load(NULL, NULL, true, false);
	for (i = 0; probes && i < run->nprobes; i++)
		if (probes__add(probes, run->listings[i]))
			break;
	if (probes && i == run->nprobes)
		ret = probes__save_to(probes, run->sink.path);
	else
		sys_error(0, "out of memory");
	probes__free(probes);
	return ret;
}

/* The end of the session: its probe goes. */
static void run_close_session(struct sys_run *run)
{
	if (run->src.fd >= 0)
		close(run->src.fd);
	run->src.fd = -1;
	run->src.session = NULL;
}

/* The summary of a live run: the probe's counters, else what was read. */
static void run_summary(struct sys_run *run, const struct pstats_probe *ps,
			int ps_err)
{
	bool saved = run->env->save_path;
	unsigned long long shown = saved ?
		trace_counts.entries + trace_counts.returns :
		run->printer.shown;

	if (run->env->sel.summary) {
		if (!ps_err)
			syscalls_cmd__sum_summary(stderr, ps, run->sum_read,
						  run->sum_own);
		else
			fprintf(stderr, "kptrace: %llu calls read (no books of the probe)\n",
				run->sum_read);
		return;
	}
	drain__report(&run->books);
	if (!ps_err) {
		syscalls_cmd__summary(stderr, ps, shown, trace_counts.own,
				      saved);
		return;
	}
	fprintf(stderr, "kptrace: %llu %s (no books of the probe)\n", shown,
		saved ? "saved" : "shown");
}

/* The summary of a replay. */
static void replay_summary(const struct sys_run *run)
{
	bool saved = run->env->save_path;
	unsigned long long lost = 0;
	const char *sep = " (";
	unsigned int i;

	for (i = 0; i <= KPT_LOST_NR; i++)
		lost += trace_counts.lost[i];
	fprintf(stderr, "kptrace: %llu %s, %llu lost",
		saved ? trace_counts.entries + trace_counts.returns :
		run->printer.shown, saved ? "records saved" :
		run->printer.no_lines ? "calls counted" : "calls shown",
		lost);
	for (i = 0; i <= KPT_LOST_NR; i++) {
		if (!trace_counts.lost[i])
			continue;
		fprintf(stderr, "%s%s %llu", sep, event__lost_cause(i),
			trace_counts.lost[i]);
		sep = ", ";
	}
	if (lost)
		fputc(')', stderr);
	if (run->printer.other)
		fprintf(stderr, ", %llu record%s not of a syscalls probe skipped",
			run->printer.other, run->printer.other == 1 ? "" : "s");
	if (trace_counts.bad)
		fprintf(stderr, ", %llu bad record%s (%llu bytes dropped)",
			trace_counts.bad, trace_counts.bad == 1 ? "" : "s",
			trace_counts.dropped);
	fputc('\n', stderr);
}

/*
 * Flushes and closes the output; 0, or -1 with a message (none for a
 * closed pipe: the reader of `kptrace syscalls | head` has had enough).
 */
static int run_close_output(struct sys_run *run)
{
	int err = 0, e;

	if (run->sink.fd > STDOUT_FILENO && close(run->sink.fd)) {
		sys_error(0, "cannot write %s: %s", run->sink.path,
			  strerror(errno));
		err = -1;
	}
	if (run->sink.fd > STDOUT_FILENO)
		run->sink.fd = -1;
	if (!run->out)
		return err;
	e = trace__flush(run->out);
	if (run->printer.out_error && run->printer.out_errno)
		e = run->printer.out_errno;
	else if (run->printer.out_error && !e)
		e = EIO;
	/*
	 * A reader that closed the pipe (kptrace syscalls -- CMD | head)
	 * ended the output, not the run in error: COMMAND's status stands.
	 */
	if (e && e != EPIPE) {
		sys_error(0, "cannot write %s: %s",
			  run->env->output ? run->env->output :
			  run->out == stderr ? "the standard error" :
			  "the standard output", strerror(e));
		err = -1;
	}
	if (run->out != stdout && run->out != stderr && fclose(run->out))
		err = -1;
	run->out = NULL;
	return err;
}

/* Now in the records' clock: the session's, 0 if not known */
static __u64 run_now(void *ctx)
{
	const struct sys_run *run = ctx;
	struct timespec now;
	__u64 ns = 0;

	if (run->session.clock == KPT_CLOCK_MONO) {
		if (!clock_gettime(CLOCK_MONOTONIC, &now))
			ns = (__u64)now.tv_sec * 1000000000ULL +
			     (__u64)now.tv_nsec;
	} else if (session__now(&run->session, &ns)) {
		ns = 0;
	}
	return ns;
}

/* The tasks whose calls in progress /proc may show: those of -p, -t, -c */
static void run_pending_sel(struct sys_run *run)
{
	struct sys_env *env = run->env;
	struct sys_pending_sel *ps = &run->pending;

	ps->pids = env->pids;
	ps->npids = env->npids;
	ps->tids = env->tids;
	ps->ntids = env->ntids;
	ps->follow = env->follow;
	ps->parent = env->command ? (__u32)getpid() : 0;
	ps->comm = env->sel.comm[0] ? env->sel.comm : NULL;
	ps->nr = env->sel.nr;
	ps->nr_rest = env->sel.nr_rest;
	ps->self = (__u32)getpid();
	ps->proc = path_from_env("KPTRACE_PROC", "/proc");
	ps->now = run_now;
	ps->now_ctx = run;
}

/*
 * The calls in progress of the selected tasks, as unfinished lines: at
 * attach, at the stop, after each flight dump. Not with -s (no lines),
 * -w (raw records only), --failure (a call in progress has not failed).
 */
static void run_pending(struct sys_run *run, bool attach)
{
	struct sys_env *env = run->env;

	/* COMMAND's tasks at attach: the tool's child, waiting to exec it */
	if ((attach && env->command) || env->sel.summary || env->summary_only || env->save_path ||
	    env->sel.failure || !run->printer.out ||
	    !sys_pending__listable(&run->pending))
		return;
	/* each task's snapshot timed by run_now() */
	sys_pending__show(&run->printer, &run->pending, 0);
	fflush(run->printer.out);
}

/*
 * "... Hit Ctrl-C to end.": after the calls in progress at attach, so that
 * whoever waits for it knows a call entered from now on is not one of them
 */
static void run_banner(struct sys_run *run)
{
	if (run->banner)
		fputs(run->banner, stderr);
}

/* flight's hooks: the books of the probes, the calls in progress */
static int run_flight_books(const void *priv, struct pstats_probe *ps)
{
	return sys_run__books(priv, ps);
}

static void run_flight_pending(const void *priv)
{
	run_pending((struct sys_run *)priv, false);
}

/*
 * -y, and the leaders' comms of the tables: for the records of a live run
 * /proc is read too, as long as the processes live.
 */
static int run_tables_of_names(struct sys_run *run)
{
	struct sys_env *env = run->env;
	bool live = !env->replay_path;

	if (env->fds) {
		run->fds = sys_fds__new(live ?
			path_from_env("KPTRACE_PROC", "/proc") : NULL);
		if (!run->fds)
			return -1;
		run->printer.fds = run->fds;
	}
	if (run->sum || run->prom) {
		run->comms = sys_comms__new(live ?
			path_from_env("KPTRACE_PROC", "/proc") : NULL);
		if (!run->comms)
			return -1;
	}
	if (run->sum)
		sys_sum__set_comms(run->sum, run->comms);
	if (run->interval)
		sys_sum__set_comms(run->interval, run->comms);
	if (run->prom)
		sys_sum__set_comms(run->prom, run->comms);
	return 0;
}

int sys_run(struct sys_env *env, const struct sys_sel *sels, unsigned int n)
{
	struct sys_run run = {
		.env = env,
		.src = { .fd = -1, .size = -1 },
		.child = CHILD_INIT,
		.sels = sels,
		.nprobes = n,
	};
	struct flight_hooks hooks = {
		.books = run_flight_books,
		.pending = run_flight_pending,
		.priv = &run,
	};
	struct pstats_probe ps;
	int err = 1, status = -1, ps_err = -1;
	char *buf = NULL;
	unsigned int i;

	if (signals__setup())
		return 1;
	/* a closed pipe must not kill the tool with its probe armed */
	signal(SIGPIPE, SIG_IGN);
	buf = malloc(SYS_READ_BUF);
	if (env->summary_only || env->with_summary)
		run.sum = sys_sum__new();
	if (env->interval)
		run.interval = sys_sum__new();
	if (env->prom_dir)
		run.prom = sys_sum__new_by_comm();
	if (!buf || ((env->summary_only || env->with_summary) && !run.sum) ||
	    (env->interval && !run.interval) || (env->prom_dir && !run.prom) ||
	    run_tables_of_names(&run)) {
		sys_error(0, "out of memory");
		goto out;
	}
	if (env->replay_path) {
		run.src.path = env->replay_path;
		if (replay__open(&run.src) || run_sink(&run))
			goto out;
		err = records__pump(&run.src, &run.sink, buf, SYS_READ_BUF) ?
		      1 : 0;
		if (sys_run__tables(&run))
			err = 1;
		if (run_close_output(&run))
			err = 1;
		if (!env->quiet)
			replay_summary(&run);
		goto out;
	}

	if (env->sel.summary)
		sys_count__hold_signals();
	/* forked first: COMMAND never holds the session's file */
	if (env->command && child__start(&run.child, env->command))
		goto out;
	/* -f: COMMAND's run lasts while any of its descendants lives */
	if (env->command && env->follow)
		child__wait_all(&run.child);
	/*
	 * Armed first: a refusal (no module, a spec the module rejects)
	 * leaves the -o and -w files as they were. Nothing is read before
	 * the outputs are open, and COMMAND waits for child__go().
	 */
	if (run_arm(&run) ||
	    (env->sel.summary ? run_output(&run) : run_sink(&run)) ||
	    (env->save_path && run_save_listing(&run)) ||
	    (env->flight && run_flight(&run)) ||
	    (env->sel.summary && sys_count__start(&run)))
		goto end;
	run_pending_sel(&run);
	/* strace -p's: the calls the tasks are in when it attaches */
	run_pending(&run, true);
	run_banner(&run);
	child__go(&run.child);

	if (env->sel.summary) {
		err = sys_count__loop(&run) ? 1 : 0;
		alarm(0);	/* trace__stop()'s, from COMMAND's end */
	} else if (run.flight) {
		err = flight__run(run.flight, &run.src, buf, SYS_READ_BUF,
				  &hooks) ? 1 : 0;
	} else {
		err = records__pump(&run.src, &run.sink, buf, SYS_READ_BUF) ?
		      1 : 0;
	}
	/* the calls still in progress at the stop (flight: its last dump's) */
	if (!run.flight)
		run_pending(&run, false);
	if (env->command)
		status = child__end(&run.child, env->command);
	/* -s: the last read, after COMMAND's end, before the counters */
	if (env->sel.summary && !err && sys_count__read(&run))
		err = 1;
	/* after the drain, before the probe goes: its last counters */
	ps_err = sys_run__books(&run, &ps);
	if (run.flight && !ps_err)
		flight__books(run.flight, &ps);
	if (!ps_err)
		run.ps_end = &ps;
	if (!env->sel.summary && !source__stats(&run.src, &run.end))
		run.books.end = &run.end;
	/* -s: nothing more to read: the probe goes before the tables */
	if (env->sel.summary)
		run_close_session(&run);
	if (sys_run__tables(&run) || run.prom_failed)
		err = 1;
	if (run_close_output(&run))
		err = 1;
	run_close_session(&run);
	if (!env->quiet) {
		run_summary(&run, &ps, ps_err);
		if (!env->sel.summary)
			books__check(&run.books);
	}
end:
	run_close_session(&run);
	if (env->command && status < 0 && run.child.pid > 0)
		child__end(&run.child, env->command);
	if (!err && status >= 0)
		err = status;
out:
	run_close_output(&run);
	if (run.src.fd > STDIN_FILENO)
		close(run.src.fd);
	stats__free(&run.end);
	for (i = 0; i < run.nprobes; i++)
		free(run.listings[i]);
	free(run.banner);
	free(trace_stop.bound);
	sys_formats__free(run.printer.formats);
	sys_printer__fini(&run.printer);
	ksyms__free(run.ksyms);
	flight__free(run.flight);
	sys_sum__free(run.sum);
	sys_sum__free(run.interval);
	sys_sum__free(run.prom);
	sys_fds__free(run.fds);
	sys_comms__free(run.comms);
	free(run.sum_buf);
	free(buf);
	return err;
}
