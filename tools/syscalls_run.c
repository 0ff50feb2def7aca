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
#include "syscalls_flight.h"
#include "syscalls_run.h"
#include "trace.h"

#define SYS_READ_BUF		(1024 * 1024)
#define SYS_OUT_BUF		(1024 * 1024)

/* -o FILE, or stdout; buffered as the main reader's */
static int run_output(struct sys_run *run)
{
	static char out_buf[SYS_OUT_BUF];
	int fd;

	run->out = stdout;
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

/*
 * Makes the tool's session (--flight: its rings overwrite, SIZE per CPU
 * at least), adds the probe and learns its id and exclude= from the
 * module's answer. 0, or -1 with a message.
 */
static int run_arm(struct sys_run *run)
{
	struct session_opts opts = { .clock = KPT_CLOCK_AUTO };
	struct spec_line sl = { 0 };
	char line[SYS_LINE_MAX], *spec;
	struct kpt_info info;

	if (syscalls_cmd__spec(&run->env->sel, getpid(), line,
			       sizeof(line)) < 0)
		return sys_error(-1, "the spec line is over %d bytes",
				 SYS_LINE_MAX);
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
	sl.line = line;
	sl.user = line;
	if (session__add(&run->session, &sl, &run->probe_id, &spec))
		return -1;
	/*
	 * Its own calls, as the module numbers it (exclude=, global; in a
	 * container's pid namespace getpid() may be another process's)
	 */
	run->self_pid = sys_spec__exclude(spec);
	trace_env.only_probe = true;
	trace_env.probe_id = run->probe_id;
	trace_env.self_pid = run->self_pid;
	run->listing = session__listing_line(&run->session, spec,
					     run->probe_id);
	free(spec);
	if (!run->listing)
		return sys_error(-1, "out of memory");
	if (!run->env->quiet && !run->env->command)
		fprintf(stderr, "kptrace: %s system calls (%s)... Hit Ctrl-C to end.\n",
			run->env->sel.summary ? "counting" : "tracing", line);
	return 0;
}

/* -w FILE: FILE.probes gets the probe's listing line, for kptrace -r. */
static int run_save_listing(struct sys_run *run)
{
	struct probes *probes;
	int ret = -1;

	if (run->sink.fd <= STDOUT_FILENO)
		return 0;
	probes = probes__load(NULL, NULL, true, false);
	if (probes && !probes__add(probes, run->listing))
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
			  "the standard output", strerror(e));
		err = -1;
	}
	if (run->out != stdout && fclose(run->out))
		err = -1;
	run->out = NULL;
	return err;
}

int sys_run(struct sys_env *env)
{
	struct sys_run run = {
		.env = env,
		.src = { .fd = -1, .size = -1 },
		.child = CHILD_INIT,
	};
	struct pstats_probe ps;
	int err = 1, status = -1, ps_err = -1;
	char *buf = NULL;

	snprintf(run.name, sizeof(run.name), "sys_%d", (int)getpid());
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
	    (env->interval && !run.interval) || (env->prom_dir && !run.prom)) {
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
	child__go(&run.child);

	if (env->sel.summary) {
		err = sys_count__loop(&run) ? 1 : 0;
		alarm(0);	/* trace__stop()'s, from COMMAND's end */
	} else if (run.flight) {
		err = flight__run(run.flight, &run.src, buf, SYS_READ_BUF,
				  &run.session, run.probe_id) ? 1 : 0;
	} else {
		err = records__pump(&run.src, &run.sink, buf, SYS_READ_BUF) ?
		      1 : 0;
	}
	if (env->command)
		status = child__end(&run.child, env->command);
	/* -s: the last read, after COMMAND's end, before the counters */
	if (env->sel.summary && !err && sys_count__read(&run))
		err = 1;
	/* after the drain, before the probe goes: its last counters */
	ps_err = session__probe_books(&run.session, run.probe_id, &ps);
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
	free(run.listing);
	free(trace_stop.bound);
	sys_formats__free(run.printer.formats);
	ksyms__free(run.ksyms);
	flight__free(run.flight);
	sys_sum__free(run.sum);
	sys_sum__free(run.interval);
	sys_sum__free(run.prom);
	free(run.sum_buf);
	free(buf);
	return err;
}

