// SPDX-License-Identifier: GPL-2.0
/*
 * reader: a run of the main reader (reader.h). reader__main() is `kptrace`
 * itself: the records of /dev/kptrace's default session, named by the
 * probes listing (read again for the ids it lacks), with the books of
 * the stats and probe_stats files it keeps open (reading them after the
 * last read needs no open(): with a probe on do_sys_openat2, that would
 * be an event, recorded after the drain and left unread); or a file
 * saved with -w, named by FILE.probes. `kptrace -e` (oneshot.c) makes
 * its session and its probes, then runs the same phases: the output,
 * the pump, the end, with its session's books instead of the files.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kbtf.h"
#include "ksyms.h"
#include "paths.h"
#include "probes.h"
#include "pstats.h"
#include "reader.h"
#include "session.h"

#define READ_BUF_SIZE	(1024 * 1024)	/* one read(): many records */
#define OUT_BUF_SIZE	(1024 * 1024)	/* stdio buffer of stdout */

void reader__stdout(void)
{
	static char out_buf[OUT_BUF_SIZE];

	if (isatty(STDOUT_FILENO))
		setvbuf(stdout, NULL, _IOLBF, 0);
	else
		setvbuf(stdout, out_buf, _IOFBF, sizeof(out_buf));
}

void reader__books_start(struct reader *r)
{
	if (source__stats(&r->src, &r->start))
		return;
	stats__free(&r->start);		/* the totals are enough */
	r->books.start = &r->start;
}

/*
 * The probes listing that names the records: FILE.probes next to a
 * replayed FILE when there is one (saved by -w, with the BTF names of
 * name=/address= probes in it), else the module's. *@saved says which.
 */
static const char *probes__path(const char *replay, char *buf, size_t len,
				bool *saved)
{
	*saved = false;
	if (replay && strcmp(replay, "-")) {
		snprintf(buf, len, "%s.probes", replay);
		if (!access(buf, R_OK)) {
			*saved = true;
			return buf;
		}
	}
	return path_from_env("KPTRACE_PROBES", PROBES_PATH);
}

/* -w FILE: the probes listing goes to FILE.probes, for -r elsewhere. */
static int reader__save_probes(const struct reader *r)
{
	if (r->sink.fd <= STDOUT_FILENO)
		return 0;
	return probes__save_to(r->probes, r->sink.path);
}

int reader__output(struct reader *r)
{
	const char *kallsyms;

	r->sink.fmt.probes = r->probes;
	if (trace_env.save_path) {
		r->sink.path = trace_env.save_path;
		if (sink__open_file(&r->sink) || reader__save_probes(r))
			return -1;
	} else {
		kallsyms = path_from_env("KPTRACE_KALLSYMS", KALLSYMS_PATH);
		/* for call traces and symbol arguments (0x... without) */
		r->ksyms = ksyms__load_frames(kallsyms, trace_env.no_stack);
		r->sink.fmt.out = stdout;
		r->sink.fmt.json = trace_env.json;
		r->sink.fmt.stack = !trace_env.no_stack;
		r->sink.fmt.ksyms = r->ksyms;
	}
	r->buf_size = READ_BUF_SIZE;
	if (r->src.device && r->info.max_record > r->buf_size)
		r->buf_size = r->info.max_record;
	r->buf = malloc(r->buf_size);
	if (!r->buf) {
		fputs("kptrace: out of memory\n", stderr);
		return -1;
	}
	return 0;
}

void reader__banner(const struct reader *r)
{
	const struct session *s = r->src.session;
	const char *saving = r->sink.fd >= 0 ? ", saving to " : "";
	const char *path = r->sink.fd >= 0 ? r->sink.path : "";
	char size[32];

	if (!r->src.device || trace_env.quiet)
		return;
	if (!s) {
		fprintf(stderr, "kptrace: tracing %u probes on %u CPUs%s%s... Hit Ctrl-C to end.\n",
			r->info.nr_probes, r->info.nr_cpus, saving, path);
		return;
	}
	fprintf(stderr,
		"kptrace: tracing %zu probe%s on %u CPUs in session %u (rings of %s, clock %s)%s%s... Hit Ctrl-C to end.\n",
		r->nr_ids, r->nr_ids == 1 ? "" : "s", r->info.nr_cpus, s->id,
		session__size_str(s->ring_bytes, size, sizeof(size)),
		session__clock_name(s->clock), saving, path);
}

int reader__pump(struct reader *r)
{
	int err;

	if (trace_env.duration)
		alarm(trace_env.duration);
	err = records__pump(&r->src, &r->sink, r->buf, r->buf_size) ? 1 : 0;
	alarm(0);
	if (r->src.device && !source__stats(&r->src, &r->end))
		r->books.end = &r->end;
	drain__report(&r->books);
	return err;
}

/* A session's probes' books, as probe_stats' table: 0, or -1. */
static int reader__probe_books(const struct reader *r)
{
	struct pstats_probe ps;
	bool head = false;
	int ret = 0;
	size_t i;

	for (i = 0; i < r->nr_ids; i++) {
		if (session__probe_books(r->src.session, r->ids[i], &ps)) {
			ret = -1;
			continue;
		}
		if (!head)
			pstats__print_head(stderr, "");
		head = true;
		pstats__print_probe(stderr, probes__name(r->probes, r->ids[i]),
				    &ps);
	}
	return ret;
}

int reader__end(struct reader *r, int err)
{
	int e = trace__flush(stdout);

	if (e) {
		fprintf(stderr, "kptrace: cannot write the standard output: %s\n",
			strerror(e));
		err = 1;
	}
	/* again: probes added while tracing, and deleted ones kept */
	if (reader__save_probes(r))
		err = 1;
	if (!trace_env.quiet) {
		summary__print(&r->src, &r->sink, &r->books);
		books__check(&r->books);
	}
	if (r->pstats_file)
		pstats__print_from(r->pstats_file, stderr, "");
	if (r->src.session && !trace_env.quiet && reader__probe_books(r))
		err = 1;
	if (trace_env.stats && r->books.end)
		stats__print(stderr, &r->end);
	else if (trace_env.stats && r->src.device && !r->src.session)
		stats__show(stderr);
	return err;
}

int reader__free(struct reader *r, int err)
{
	if (r->sink.fd > STDOUT_FILENO && close(r->sink.fd)) {
		fprintf(stderr, "kptrace: cannot write %s: %s\n", r->sink.path,
			strerror(errno));
		err = 1;
	}
	r->sink.fd = -1;
	if (r->src.fd > STDIN_FILENO)
		close(r->src.fd);
	r->src.fd = -1;
	r->src.session = NULL;
	if (r->src.stats)
		fclose(r->src.stats);
	r->src.stats = NULL;
	if (r->pstats_file)
		fclose(r->pstats_file);
	r->pstats_file = NULL;
	stats__free(&r->end);
	free(trace_stop.bound);
	trace_stop.bound = NULL;
	free(r->buf);
	r->buf = NULL;
	ksyms__free(r->ksyms);
	r->ksyms = NULL;
	probes__free(r->probes);
	r->probes = NULL;
	return err;
}

/*
 * The plain reader's source: a replayed file, or the device with the
 * stats file (the books, and the stop's bound) and probe_stats kept
 * open. 0, or -1 with a message.
 */
static int reader__open(struct reader *r)
{
	if (trace_env.replay_path) {
		r->src.path = trace_env.replay_path;
		return replay__open(&r->src);
	}
	r->src.path = path_from_env("KPTRACE_DEVICE", DEVICE_PATH);
	if (device__open(&r->src, &r->info))
		return -1;
	r->src.stats = fopen(stats__path(), "re");
	reader__books_start(r);
	if (!trace_env.quiet)
		r->pstats_file = fopen(path_from_env("KPTRACE_PROBE_STATS",
						     PROBE_STATS_PATH), "re");
	return 0;
}

int reader__main(void)
{
	struct reader r = READER_INIT;
	struct kbtf *btf = NULL;
	const char *probes_path;
	char path_buf[4096];
	bool saved_probes;
	int err;

	if (trace_env.stats && !trace_env.trace_opts) {
		if (stats__show(stdout))
			return 1;
		pstats__print(path_from_env("KPTRACE_PROBE_STATS",
					    PROBE_STATS_PATH), stdout, "\n");
		return 0;
	}

	reader__stdout();
	/*
	 * First: a signal during the setup (reading BTF and kallsyms takes
	 * a while) must end the run, not kill it or be lost.
	 */
	err = 1;
	if (signals__setup() || reader__open(&r))
		goto out;

	/* BTF names name=/address= probes, unless a saved listing already does */
	probes_path = probes__path(trace_env.replay_path, path_buf,
				   sizeof(path_buf), &saved_probes);
	if (!saved_probes)
		btf = kbtf__new(path_from_env("KPTRACE_BTF_DIR", BTF_DIR));
	/* a live module's listing grows: read again for ids it lacks */
	r.probes = probes__load(probes_path, btf, trace_env.quiet,
				r.src.device);
	if (!r.probes) {
		fputs("kptrace: out of memory\n", stderr);
		goto out;
	}
	if (reader__output(&r))
		goto out;
	reader__banner(&r);
	err = reader__pump(&r);
	err = reader__end(&r, err);
out:
	err = reader__free(&r, err);
	kbtf__free(btf);
	return err;
}
