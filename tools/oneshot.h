/* SPDX-License-Identifier: GPL-2.0 */
/*
 * oneshot: `kptrace -e SPEC [-e SPEC]... [OPTION]... [-- COMMAND [ARG]...]`,
 * one run with probes of its own, as perf trace -e and bpftrace's
 * one-liners: a session (session.c) gets the SPECs, resolved as `kptrace
 * probe add` resolves them (speclist.c), and its records are read and
 * printed as the plain reader prints the default session's (reader.c);
 * with COMMAND (child.c), until COMMAND ends. The session's probes go
 * with the run, however it ends.
 */
#ifndef __KPTRACE_ONESHOT_H
#define __KPTRACE_ONESHOT_H

#include <stddef.h>

#include "session.h"
#include "speclist.h"

struct oneshot_opts {
	char **specs;			/* -e, in their order */
	size_t nr_specs;
	struct session_opts session;	/* -b, --clock, --overwrite */
	struct spec_opts spec;		/* --max, -q */
	char **command;			/* after --, or NULL */
};

/*
 * The run, with trace_env's options (-n, -d, -p, -c, -j, --no-stack, -w,
 * -s, -q). Returns the exit status: COMMAND's when there is one and all
 * went well, else 0 ok, 1 error.
 */
int oneshot__main(const struct oneshot_opts *o);

#endif /* __KPTRACE_ONESHOT_H */
