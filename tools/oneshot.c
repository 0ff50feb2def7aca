// SPDX-License-Identifier: GPL-2.0
/*
 * oneshot: `kptrace -e SPEC... [-- COMMAND]` (oneshot.h).
 *
 * Every SPEC is resolved and checked first (speclist.c: BTF names, @SYM,
 * a glob target as one line per function, --max), so that a SPEC the
 * tool refuses arms nothing and runs nothing. Then COMMAND is forked,
 * waiting (child.c: it never holds the session's file); /dev/kptrace is
 * made a session (session.c: -b's rings, --clock, --overwrite), and each
 * line is added to it with KPT_IOC_ADD, whose answer is the probe's id
 * and canonical spec: those name the records (struct probes, as the
 * probes listing would, and FILE.probes for -w), no listing is read. A
 * refusal shows the module's reason under the user's text, and the run
 * ends with exit status 1: closing the session removes what it added.
 * Then the plain reader's phases (reader.c): the output, the banner,
 * COMMAND let go, the pump (COMMAND's exit stops it as Ctrl-C does, and
 * what was recorded until then is drained), the summary with the
 * session's books (KPT_IOC_STATS) and each probe's (KPT_IOC_PROBE_STATS).
 * The probes go with the session's file: at the end, or when the tool
 * dies, kill -9 included.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "child.h"
#include "kbtf.h"
#include "oneshot.h"
#include "paths.h"
#include "probes.h"
#include "reader.h"

/* The SPECs as the module's lines: 0, or -1 after saying why. */
static int oneshot__resolve(const struct oneshot_opts *o, struct resolver *res,
			    struct speclist *l)
{
	size_t i;
	int ret;

	for (i = 0; i < o->nr_specs; i++) {
		ret = speclist__resolve(l, res, o->specs[i], &o->spec);
		if (ret == -ENOMEM)
			fputs("kptrace: out of memory\n", stderr);
		if (ret)
			return -1;
	}
	/* a new session has nothing to delete */
	for (i = 0; i < l->nr; i++) {
		if (l->v[i].line[0] == '-') {
			spec__show_error("-e adds probes: a new session has none to delete",
					 l->v[i].user, 0);
			return -1;
		}
	}
	if (!l->nr) {
		fputs("kptrace: -e: no probe to add (blank SPECs)\n", stderr);
		return -1;
	}
	return 0;
}

/*
 * Adds every line to @s, and names its records in r->probes as the
 * listing would. 0, or -1 after saying why (the lines added so far go
 * with the session).
 */
static int oneshot__add(struct reader *r, const struct session *s,
			const struct speclist *l, __u32 *ids)
{
	char *spec, *line;
	size_t i;
	int ret;

	for (i = 0; i < l->nr; i++) {
		if (session__add(s, &l->v[i], &ids[i], &spec))
			return -1;
		line = session__listing_line(s, spec, ids[i]);
		free(spec);
		ret = line ? probes__add(r->probes, line) : -ENOMEM;
		free(line);
		if (ret) {
			fputs("kptrace: out of memory\n", stderr);
			return -1;
		}
	}
	r->ids = ids;
	r->nr_ids = l->nr;
	return 0;
}

int oneshot__main(const struct oneshot_opts *o)
{
	struct reader r = READER_INIT;
	struct child child = CHILD_INIT;
	struct resolver res = { 0 };
	struct speclist lines = { 0 };
	struct session session;
	int err = 1, status = -1;
	__u32 *ids = NULL;

	reader__stdout();
	/* a signal during the setup ends the run, as the plain reader's */
	if (signals__setup())
		return 1;
	res.kallsyms = path_from_env("KPTRACE_KALLSYMS", KALLSYMS_PATH);
	res.btf = kbtf__new(path_from_env("KPTRACE_BTF_DIR", BTF_DIR));
	if (oneshot__resolve(o, &res, &lines))
		goto end;
	ids = calloc(lines.nr, sizeof(*ids));
	r.probes = probes__load(NULL, res.btf, trace_env.quiet, false);
	if (!ids || !r.probes) {
		fputs("kptrace: out of memory\n", stderr);
		goto end;
	}
	if (o->command && child__start(&child, o->command))
		goto end;
	r.src.path = path_from_env("KPTRACE_DEVICE", DEVICE_PATH);
	if (session__new(&session, &r.src, &o->session, &r.info) ||
	    oneshot__add(&r, &session, &lines, ids))
		goto end;
	reader__books_start(&r);
	if (reader__output(&r))
		goto end;
	reader__banner(&r);
	child__go(&child);
	err = reader__pump(&r);
	if (o->command)
		status = child__end(&child, o->command);
	err = reader__end(&r, err);
end:
	/* the session's probes go with its file, before COMMAND is waited for */
	err = reader__free(&r, err);
	if (o->command && status < 0 && child.pid > 0)
		child__end(&child, o->command);
	if (!err && status >= 0)
		err = status;
	speclist__free(&lines);
	free(ids);
	kbtf__free(res.btf);
	return err;
}
