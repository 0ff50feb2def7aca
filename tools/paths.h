/* SPDX-License-Identifier: GPL-2.0 */
/*
 * paths: the kernel files kptrace reads and writes. Each one can be
 * replaced by an environment variable, so that the host tests run on fake
 * files.
 */
#ifndef __KPTRACE_PATHS_H
#define __KPTRACE_PATHS_H

#include <stdlib.h>

#define DEBUGFS_KPT		"/sys/kernel/debug/kptrace/"
#define DEVICE_PATH		"/dev/kptrace"
#define KALLSYMS_PATH		"/proc/kallsyms"
#define PROBES_PATH		DEBUGFS_KPT "probes"
#define STATS_PATH		DEBUGFS_KPT "stats"
#define PROBE_STATS_PATH	DEBUGFS_KPT "probe_stats"
#define HIST_DIR		DEBUGFS_KPT "hist/"
#define BLACKLIST_PATH		"/sys/kernel/debug/kprobes/blacklist"
#define FILTER_FUNCS_PATH	"/sys/kernel/tracing/available_filter_functions"
#define FILTER_FUNCS_PATH2	"/sys/kernel/debug/tracing/available_filter_functions"
#define BTF_DIR			"/sys/kernel/btf"

/* The value of the environment variable @var if set and not empty, else @def. */
static inline const char *path_from_env(const char *var, const char *def)
{
	const char *path = getenv(var);

	return path && *path ? path : def;
}

#endif /* __KPTRACE_PATHS_H */
