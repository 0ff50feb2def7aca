// SPDX-License-Identifier: GPL-2.0
/*
 * hist: `kptrace hist [NAME]`, the reader of the module's aggregations.
 *
 * A probe whose spec ends with hist:keys=... aggregates in the kernel; its
 * table is the text file HIST_DIR/NAME, in the format of ftrace's hist
 * triggers: "#" header lines (the "# probe:" one is the canonical spec,
 * parsed here with kpt_spec_parse() to learn the keys and values), then
 * one entry per key combination,
 *
 *   { KEY: VALUE, KEY: VALUE } hitcount: N  VAL: SUM  VAL.min: M  VAL.max: M
 *
 * (a stacktrace key spans lines, one per frame), then "Totals:" and its
 * eight counters. This file holds the command: its options, the list of
 * the aggregations, the read of a table and -i, which clears the table
 * every interval and prints the interval that ended. hist_parse.c parses
 * the text into a struct hist; it is printed as histograms, a table and
 * the Totals (hist_print.c), JSON (hist_json.c), folded stacks or a flame
 * graph SVG (hist_flame.c), or a Prometheus textfile (hist_prom.c).
 *
 * Comm, strings and every other text of the file are untrusted: each form
 * writes them by the one rule of kpt_byte_escaped() (uapi/kptrace_record.h),
 * never a byte it names as itself: \xHH in text, \u00HH in JSON, \xHH
 * and entities in the SVG, \\xHH in a Prometheus label value.
 */
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "hist.h"
#include "hist_bin.h"
#include "paths.h"

#define EXIT_USAGE	2
#define DEBUGFS_MAGIC_	0x64626720
#define TRACEFS_MAGIC_	0x74726163

static struct hist_env {
	bool json, folded;
	const char *svg;
	const char *prom_dir;
	unsigned int interval;		/* -i SECS, 0: once */
	unsigned long long count;	/* -c: intervals, 0: until stopped */
	unsigned int duration;		/* -d SECS, 0: until stopped */
	bool dev;			/* read through /dev/kptrace */
	bool clear;			/* ... clearing (-i) */
} henv;

static volatile sig_atomic_t hist_exiting;

/* --prometheus: the running totals of the reads (hist_prom.c) */
static struct hist_prom prom;

static int stack_key(const struct hist *h)
{
	unsigned int i;

	for (i = 0; i < h->nkeys; i++)
		if (h->keys[i].kind == HK_STACK)
			return (int)i;
	return -1;
}

/* --- the command ------------------------------------------------------------ */

static const char hist_usage[] =
"Usage: kptrace hist [OPTION]... [NAME]\n"
"Print the in-kernel aggregation NAME of a probe whose spec ends with\n"
"hist:keys=...: the table of " HIST_DIR "NAME, read in binary\n"
"through " DEVICE_PATH " (ioctl KPT_IOC_HIST).\n"
"Without NAME, list the aggregations.\n"
"\n"
"  (default)              histograms with bars when a key is .log2, .loglin\n"
"                         or .buckets=N, one per value of the other keys,\n"
"                         with count, min..max and percentiles for .loglin\n"
"                         (the midpoint of the bucket holding the rank:\n"
"                         within 3.2%); else a table sorted by sort=;\n"
"                         then the Totals (exit 1 if they do not add up)\n"
"  -j, --json             one JSON object\n"
"      --folded           folded stacks (flamegraph.pl, speedscope): a\n"
"                         line per stack, outermost frame first, comm and\n"
"                         the other keys as root frames; needs a\n"
"                         stacktrace key\n"
"      --offsets          keep the +0xOFF/0xSIZE of the frames (--folded,\n"
"                         --svg); by default the same functions merge\n"
"      --svg=FILE         write an interactive flame graph SVG to FILE\n"
"                         (hover: frame, samples and share; click: zoom)\n"
"  -i, --interval=SECS    every SECS seconds clear the table and print the\n"
"                         interval that ended, after a time header line\n"
"                         (with -j: one object per interval, no header)\n"
"  -c, --count=N          with -i: stop after N intervals\n"
"  -d, --duration=SECS    with -i: stop after SECS seconds\n"
"      --prometheus=DIR   write DIR/kptrace_NAME.prom (atomically) for\n"
"                         node_exporter's textfile collector; with -i,\n"
"                         rewrite it every interval without clearing.\n"
"                         Fixed metric names kptrace_hist_*: the hist's,\n"
"                         keys' and values' names are labels (hist=,\n"
"                         KEY=, val=, field=). Counters are kptrace's\n"
"                         running totals: each interval adds what the\n"
"                         table's counts grew, and a count lower than\n"
"                         before (another reader cleared the table) is\n"
"                         added whole, so they never go back\n"
"  -h, --help             print this help and exit\n"
"\n"
"Ctrl-C (SIGINT) or SIGTERM ends -i after printing the interval so far.\n"
"\n"
"EXAMPLES:\n"
"    kptrace probe add 'r:lat do_sys_openat2 hist:keys=comm,lat_ns.loglin'\n"
"    kptrace hist                       # the aggregations\n"
"    kptrace hist lat                   # latency histograms per comm\n"
"    kptrace hist lat -j                # as JSON\n"
"    kptrace probe add 'p:rd vfs_read hist:keys=comm,stacktrace'\n"
"    kptrace hist rd --folded > out.folded   # for flamegraph.pl\n"
"    kptrace hist rd --svg rd.svg       # a flame graph, no script needed\n"
"    kptrace hist lat -i 5              # every 5 s, the last 5 s\n"
"    kptrace hist lat -i 15 --prometheus /var/lib/prometheus/node-exporter\n"
"\n"
"ENVIRONMENT (for tests):\n"
"    KPTRACE_HIST_DIR replaces " HIST_DIR "; set, NAME is read as text\n"
"    from that directory, not through the device.\n"
"    KPTRACE_DEVICE replaces " DEVICE_PATH ".\n"
"    KPTRACE_HIST_BUF: the first buffer of a read, bytes (65536).\n";

static void hist_usage_err(const char *fmt, const char *arg)
{
	fputs("kptrace: ", stderr);
	fprintf(stderr, fmt, arg);
	fputs("\nTry 'kptrace hist --help' for more information.\n", stderr);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char * const *)a, *(char * const *)b);
}

static const char no_hist_hint[] = "is the kptrace module loaded? add one with:";
static const char no_hist_ex[] =
	"kptrace probe add 'r:lat do_sys_openat2 hist:keys=comm,lat_ns.log2'";

static int list_hists(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **names = NULL;
	size_t nr = 0, n;

	if (!d) {
		fprintf(stderr, "kptrace: cannot read %s (%s): %s %s\n", dir,
			strerror(errno), no_hist_hint, no_hist_ex);
		return 1;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		names = hist__xrealloc(names, (nr + 1) * sizeof(*names));
		names[nr++] = hist__xstrndup(de->d_name, strlen(de->d_name));
	}
	closedir(d);
	if (!nr) {
		fprintf(stderr, "kptrace: no aggregation in %s: %s %s\n", dir,
			no_hist_hint, no_hist_ex);
		free(names);
		return 1;
	}
	qsort(names, nr, sizeof(*names), cmp_str);
	for (n = 0; n < nr; n++) {
		hist__put_esc(stdout, names[n], " ");
		putchar('\n');
		free(names[n]);
	}
	free(names);
	return 0;
}

/* The whole file from offset 0 (debugfs files have no size). */
static char *read_all(int fd, const char *path)
{
	size_t cap = 65536, len = 0;
	char *buf = hist__xrealloc(NULL, cap);
	ssize_t n;

	for (;;) {
		if (len + 1 >= cap) {
			cap *= 2;
			buf = hist__xrealloc(buf, cap);
		}
		n = pread(fd, buf + len, cap - len - 1, (off_t)len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fprintf(stderr, "kptrace: cannot read %s: %s\n", path,
				strerror(errno));
			free(buf);
			return NULL;
		}
		if (!n)
			break;
		len += (size_t)n;
	}
	buf[len] = 0;
	return buf;
}

static int open_hist(const char *path, const char *name, int flags)
{
	int fd = henv.dev ? hist_bin__open(path, false) :
		 open(path, flags | O_CLOEXEC);

	if (henv.dev)
		return fd < 0 ? -1 : fd;	/* said why; an older module */
	if (fd < 0 && errno == ENOENT)
		fprintf(stderr, "kptrace: no aggregation %s (see: kptrace hist)\n",
			name);
	else if (fd < 0)
		fprintf(stderr, "kptrace: cannot open %s: %s\n", path,
			strerror(errno));
	return fd;
}

/*
 * Parses and prints what @fd holds (the device: @name's table, through
 * KPT_IOC_HIST, hist_bin.c). 0 ok, 1 error, 2 usage error.
 */
static int show_fd(int fd, const char *path, const char *name)
{
	char *text = henv.dev ? NULL : read_all(fd, path);
	char err[512];
	struct hist h;
	int ret = 0, bk, sk;

	if (!text && !henv.dev)
		return 1;
	if (henv.dev ? hist_bin__read(fd, name, henv.clear, &h, err, sizeof(err)) :
	    hist__parse(text, &h, err, sizeof(err))) {
		fprintf(stderr, "kptrace: %s%s%s\n", henv.dev ? "" : path,
			henv.dev ? "" : ": ", err);
		free(text);
		return 1;
	}
	free(text);
	bk = hist__bucket_key(&h);
	sk = stack_key(&h);
	if ((henv.folded || henv.svg) && sk < 0) {
		fprintf(stderr, "kptrace: %s needs a stacktrace key, %s has none: %.*s\n",
			henv.folded ? "--folded" : "--svg", name,
			(int)strcspn(strstr(h.probe, "hist:") + 5, ":") + 5,
			strstr(h.probe, "hist:"));
		hist__free(&h);
		return EXIT_USAGE;
	}
	if (henv.prom_dir && hist_prom__write(&prom, henv.prom_dir, name, &h))
		ret = 1;
	if (henv.json) {
		print_json(stdout, &h);
	} else if (henv.folded) {
		print_folded(stdout, &h, sk);
	} else if (henv.svg) {
		if (write_svg(henv.svg, &h, sk))
			ret = 1;
	} else if (!henv.prom_dir) {
		if (bk >= 0)
			print_hists(stdout, &h, bk);
		else
			print_table(stdout, &h);
		print_totals(stdout, &h);
	}
	if (hist__check(&h, err, sizeof(err))) {
		fflush(stdout);
		fprintf(stderr, "kptrace: warning: %s: the totals do not add up: %s\n",
			name, err);
		ret = 1;
	}
	hist__free(&h);
	return ret;
}

static void hist_stop(int sig)
{
	(void)sig;
	hist_exiting = 1;
}

static bool on_debugfs(int fd)
{
	struct statfs st;

	return !fstatfs(fd, &st) && ((unsigned long)st.f_type == DEBUGFS_MAGIC_ ||
				     (unsigned long)st.f_type == TRACEFS_MAGIC_);
}

/*
 * -i: each interval ends with "clear" written to the open file; reading
 * that fd from 0 then gives the table that was swapped out. A regular file
 * of the host tests has no clear: nothing is written to it. --prometheus
 * never clears and opens the file afresh: its counters are the running
 * totals of the live reads (hist_prom.c), which another reader's clears
 * do not set back.
 */
static int run_interval(const char *path, const char *name)
{
	struct sigaction sa = { .sa_handler = hist_stop };
	struct timespec start, next, end, now;
	unsigned long long n = 0;
	bool last = false, clear;
	int fd = -1, ret = 0, r;
	char stamp[64];
	time_t wall;

	fd = open(path, (henv.prom_dir ? O_RDONLY : O_RDWR) | O_CLOEXEC);
	if (fd < 0 && (errno == EACCES || errno == EPERM || errno == EROFS))
		fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fd = open_hist(path, name, O_RDONLY);	/* says why */
		if (fd < 0)
			return 1;
	}
	clear = !henv.prom_dir && (henv.dev || on_debugfs(fd));
	henv.clear = clear;	/* the device: the read clears */
	if (clear && (fcntl(fd, F_GETFL) & O_ACCMODE) == O_RDONLY) {
		fprintf(stderr, "kptrace: cannot clear %s: it needs write access (root)\n",
			path);
		close(fd);
		return 1;
	}
	if (henv.prom_dir) {
		close(fd);
		fd = -1;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	clock_gettime(CLOCK_MONOTONIC, &start);
	end = start;
	end.tv_sec += henv.duration;
	while (!last) {
		next = start;
		next.tv_sec += (time_t)((n + 1) * henv.interval);
		if (henv.duration && next.tv_sec >= end.tv_sec) {
			next = end;
			last = true;
		}
		while (!hist_exiting &&
		       clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next,
				       NULL) == EINTR)
			;
		if (hist_exiting)
			last = true;
		n++;
		if (henv.count && n >= henv.count)
			last = true;
		if (henv.prom_dir) {
			fd = open_hist(path, name, O_RDONLY);
			if (fd < 0)
				return 1;
		} else if (clear && !henv.dev &&
			   pwrite(fd, "clear\n", 6, 0) != 6) {
			fprintf(stderr, "kptrace: cannot clear %s: %s\n", path,
				strerror(errno));
			close(fd);
			return 1;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		wall = time(NULL);
		strftime(stamp, sizeof(stamp), "%Y-%m-%d %H:%M:%S",
			 localtime(&wall));
		if (!henv.json && (!henv.prom_dir || henv.folded || henv.svg))
			printf("=== %s %s interval %llu (%.1f s) ===\n", stamp,
			       name, n, (double)(now.tv_sec - start.tv_sec) -
			       (double)((n - 1) * henv.interval) +
			       (now.tv_nsec - start.tv_nsec) / 1e9);
		r = show_fd(fd, path, name);
		if (henv.prom_dir) {
			close(fd);
			fd = -1;
		}
		if (r == EXIT_USAGE) {
			ret = r;
			break;
		}
		if (r)
			ret = 1;
		if (fflush(stdout))
			break;
	}
	if (fd >= 0)
		close(fd);
	return ret;
}

static int parse_uint(const char *s, const char *opt, unsigned long long *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 10);
	if (errno || end == s || *end || !*v || *s == '-' || *v > UINT_MAX) {
		fprintf(stderr, "kptrace: invalid %s '%s': a number > 0\n", opt,
			s);
		return -1;
	}
	return 0;
}

int hist__main(int argc, char **argv)
{
	enum { OPT_FOLDED = 256, OPT_OFFSETS, OPT_SVG, OPT_PROM };
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "folded", no_argument, NULL, OPT_FOLDED },
		{ "offsets", no_argument, NULL, OPT_OFFSETS },
		{ "svg", required_argument, NULL, OPT_SVG },
		{ "interval", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'c' },
		{ "duration", required_argument, NULL, 'd' },
		{ "prometheus", required_argument, NULL, OPT_PROM },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dir = path_from_env("KPTRACE_HIST_DIR", HIST_DIR);
	unsigned long long v;
	const char *name;
	char path[PATH_MAX];
	int opt, fd, ret, forms;

	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":ji:c:d:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			henv.json = true;
			break;
		case OPT_FOLDED:
			henv.folded = true;
			break;
		case OPT_OFFSETS:
			hist_flame__offsets = true;
			break;
		case OPT_SVG:
			henv.svg = optarg;
			break;
		case OPT_PROM:
			henv.prom_dir = optarg;
			break;
		case 'i':
			if (parse_uint(optarg, "--interval", &v))
				return EXIT_USAGE;
			henv.interval = (unsigned int)v;
			break;
		case 'c':
			if (parse_uint(optarg, "--count", &v))
				return EXIT_USAGE;
			henv.count = v;
			break;
		case 'd':
			if (parse_uint(optarg, "--duration", &v))
				return EXIT_USAGE;
			henv.duration = (unsigned int)v;
			break;
		case 'h':
			fputs(hist_usage, stdout);
			return 0;
		case ':':
			hist_usage_err("option '%s' needs an argument",
				       argv[optind - 1]);
			return EXIT_USAGE;
		default:
			hist_usage_err("invalid option '%s' for hist",
				       argv[optind - 1]);
			return EXIT_USAGE;
		}
	}
	forms = henv.json + henv.folded + !!henv.svg;
	if (forms > 1) {
		hist_usage_err("%s", "-j, --folded and --svg exclude each other");
		return EXIT_USAGE;
	}
	if ((henv.count || henv.duration) && !henv.interval) {
		hist_usage_err("%s", "-c and -d need -i");
		return EXIT_USAGE;
	}
	if (optind == argc) {
		if (forms || henv.interval || henv.prom_dir) {
			hist_usage_err("%s", "these options need a NAME");
			return EXIT_USAGE;
		}
		return list_hists(dir);
	}
	if (optind + 1 < argc) {
		hist_usage_err("unexpected argument '%s'", argv[optind + 1]);
		return EXIT_USAGE;
	}
	name = argv[optind];
	if (!*name || strchr(name, '/') || *name == '.') {
		fprintf(stderr, "kptrace: no aggregation %s (see: kptrace hist)\n",
			name);
		return 1;
	}
	snprintf(path, sizeof(path), "%s%s%s", dir,
		 dir[strlen(dir) - 1] == '/' ? "" : "/", name);
	/*
	 * The binary form through the device (hist_bin.c), but for the text
	 * files KPTRACE_HIST_DIR names, and with a module that has no
	 * KPT_IOC_HIST (then the text file).
	 */
	if (!getenv("KPTRACE_HIST_DIR") || !*getenv("KPTRACE_HIST_DIR")) {
		fd = hist_bin__open(path_from_env("KPTRACE_DEVICE", DEVICE_PATH),
				    false);
		if (fd == -1)
			return 1;
		if (fd >= 0) {
			close(fd);
			henv.dev = true;
			snprintf(path, sizeof(path), "%s",
				 path_from_env("KPTRACE_DEVICE", DEVICE_PATH));
		}
	}
	if (henv.interval) {
		ret = run_interval(path, name);
		hist_prom__free(&prom);
		return ret;
	}
	fd = open_hist(path, name, O_RDONLY);
	if (fd < 0)
		return 1;
	ret = show_fd(fd, path, name);
	close(fd);
	hist_prom__free(&prom);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "kptrace: cannot write the output: %s\n",
			strerror(errno));
		return 1;
	}
	return ret;
}
