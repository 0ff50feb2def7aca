// SPDX-License-Identifier: GPL-2.0
/*
 * probes: probe id -> name, from /sys/kernel/debug/kptrace/probes, whose
 * lines are
 *
 *	"<id> <spec> <sym>+0x<off>/0x<size> <kprobe|kretprobe> <mode> hits=<n> missed=<n>"
 *
 * Only the first two fields are used.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uapi/kptrace.h>

#include "probes.h"

#define PROBE_NAME_LEN	128
#define KPT_MAX_IDS	KPT_MAX_LIVE_PROBES	/* ids below this are named */

struct probes {
	char *path;
	bool reread[KPT_MAX_IDS];		/* re-read once per id */
	char names[KPT_MAX_IDS][PROBE_NAME_LEN];	/* "" = unknown */
};

static void probes__read(struct probes *probes)
{
	char line[512];
	FILE *f;

	if (!probes->path)
		return;
	f = fopen(probes->path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *end, *name, *comment, *label;
		unsigned long id;
		size_t len;

		/*
		 * "p:GROUP/NAME TARGET ARGS... # id=N [label=LABEL] ...":
		 * events carry LABEL when given, else NAME.
		 */
		comment = strstr(line, " # id=");
		if (!comment)
			continue;
		id = strtoul(comment + 6, &end, 10);
		if (end == comment + 6 || id >= KPT_MAX_IDS)
			continue;
		label = strstr(comment, " label=");
		if (label) {
			name = label + 7;
		} else {
			name = strchr(line, '/');
			if (!name || name > comment)
				continue;
			name++;
		}
		len = strcspn(name, " \t\n");
		if (!len || len >= PROBE_NAME_LEN)
			continue;
		memcpy(probes->names[id], name, len);
		probes->names[id][len] = '\0';
	}
	fclose(f);
}

struct probes *probes__load(const char *path)
{
	struct probes *probes;

	probes = calloc(1, sizeof(*probes));
	if (!probes)
		return NULL;
	if (path) {
		probes->path = strdup(path);
		if (!probes->path) {
			free(probes);
			return NULL;
		}
	}
	probes__read(probes);
	return probes;
}

void probes__free(struct probes *probes)
{
	if (!probes)
		return;
	free(probes->path);
	free(probes);
}

const char *probes__name(struct probes *probes, __u32 id)
{
	static char fallback[32];

	if (probes && id < KPT_MAX_IDS) {
		if (!probes->names[id][0] && !probes->reread[id]) {
			probes->reread[id] = true;
			probes__read(probes);
		}
		if (probes->names[id][0])
			return probes->names[id];
	}
	snprintf(fallback, sizeof(fallback), "probe%u", id);
	return fallback;
}
