/* SPDX-License-Identifier: GPL-2.0 */
/*
 * syscalls_flight: `kptrace syscalls --flight SIZE`, traceloop's flight
 * recorder. The module's rings, loaded with overwrite=1, keep the newest
 * records of every CPU; the tool reads nothing until SIGUSR1, a stop
 * (SIGINT, SIGTERM) or COMMAND's exit, then takes all the rings hold and
 * prints the newest SIZE bytes of its probe's calls, oldest first, with
 * a line that counts the older ones overwritten.
 */
#ifndef __KPTRACE_SYSCALLS_FLIGHT_H
#define __KPTRACE_SYSCALLS_FLIGHT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "pstats.h"
#include "syscalls_cmd.h"
#include "trace.h"

/*
 * --flight SIZE: bytes, or KiB and MiB with a K or M suffix (either
 * case), 1 to 1 GiB. 0, or 2 (a usage error) with one line.
 */
int flight__parse_size(const char *arg, size_t *size);

/*
 * Before anything is armed: the module was loaded with overwrite=1
 * (PARAMS/overwrite is Y, PARAMS KPTRACE_PARAMS or
 * /sys/module/kptrace/parameters) and one CPU's ring holds @size bytes
 * (KPT_IOC_INFO's ring_bytes: a task's calls may all be on one CPU).
 * Returns 0; 2, a usage error, with one line saying how to load the
 * module or what SIZE may be; 1 when the module cannot be asked.
 */
int flight__check(size_t size);

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
 * the probe's lost.overwritten in @pstats (probe_stats, for probe @name)
 * since the last dump and the calls taken past SIZE. Returns 0, or -1
 * on an error of the reads.
 */
int flight__run(struct flight *fl, struct source *src, char *buf,
		size_t buf_size, FILE *pstats, const char *name);

/*
 * The books of the end: the calls taken past SIZE, never shown, are
 * moved in @ps from recorded to lost.overwritten, as the kernel counts
 * those its rings overwrote.
 */
void flight__books(const struct flight *fl, struct pstats_probe *ps);

void flight__free(struct flight *fl);

#endif /* __KPTRACE_SYSCALLS_FLIGHT_H */
