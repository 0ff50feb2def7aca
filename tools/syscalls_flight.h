/* SPDX-License-Identifier: GPL-2.0 */
/*
 * syscalls_flight: `kptrace syscalls --flight SIZE`, traceloop's flight
 * recorder. The rings of the tool's own session, which overwrite their
 * oldest records, keep the newest records of every CPU; the tool reads
 * nothing until SIGUSR1, a stop (SIGINT, SIGTERM) or COMMAND's exit, then
 * takes all the rings hold and prints the newest SIZE bytes of its
 * probe's calls, oldest first, with a line that counts the older ones
 * overwritten.
 */
#ifndef __KPTRACE_SYSCALLS_FLIGHT_H
#define __KPTRACE_SYSCALLS_FLIGHT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "pstats.h"
#include "session.h"
#include "syscalls_cmd.h"
#include "trace.h"

/*
 * --flight SIZE: bytes, or KiB and MiB with a K or M suffix (either
 * case), 1 to 1 GiB. 0, or 2 (a usage error) with one line.
 */
int flight__parse_size(const char *arg, size_t *size);

/*
 * The session's rings for SIZE: per CPU, SIZE rounded up to a power of
 * two, at least two of the largest records (2 * KPT_MAX_RECORD).
 */
__u64 flight__ring_bytes(size_t size);

struct flight;

/*
 * The recorder of a run, in front of @printer: @sink's records come to it
 * (sink->print and sink->priv are replaced), and it hands the calls of
 * each dump to sys_printer__record(). Sets the SIGUSR1 handler, so call
 * it before the probe is armed. @banner: say how to ask for a dump.
 * NULL, with a message, when out of memory.
 */
struct flight *flight__new(size_t size, struct sink *sink,
			   struct sys_printer *printer, bool banner);

/*
 * The armed run: waits for SIGUSR1 (a dump, then on), a stop signal or
 * COMMAND's exit (trace__stopped()), then the last dump. A dump takes
 * all @src's rings hold (records__take(), @buf of @buf_size bytes for
 * the reads), prints the newest SIZE bytes of calls of the probe, then
 * "kptrace: N older calls overwritten" (-j: {"type":"flight",...}): N,
 * the lost.overwritten of the probes' books (@books(@priv, ps): 0, or -1
 * if they cannot be read) since the last dump, and the calls taken past
 * SIZE; then the calls in progress (@pending(@priv), if not NULL).
 * Returns 0, or -1 on an error of the reads.
 */
struct flight_hooks {
	int (*books)(const void *priv, struct pstats_probe *ps);
	void (*pending)(const void *priv);
	const void *priv;
};

int flight__run(struct flight *fl, struct source *src, char *buf,
		size_t buf_size, const struct flight_hooks *hooks);

/*
 * The books of the end: the calls taken past SIZE, never shown, are
 * moved in @ps from recorded to lost.overwritten, as the kernel counts
 * those its rings overwrote.
 */
void flight__books(const struct flight *fl, struct pstats_probe *ps);

void flight__free(struct flight *fl);

#endif /* __KPTRACE_SYSCALLS_FLIGHT_H */
