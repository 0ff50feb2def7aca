// SPDX-License-Identifier: GPL-2.0
/*
 * test_syscalls_cmd: unit tests of `kptrace syscalls` without a kernel,
 * under AddressSanitizer and UBSan: records of a syscalls probe, made as
 * the module's contract says (a return: kpt_ret, args[0] the number,
 * args[1..6] the registers, args[7..8] string slots naming their argument
 * with KPT_STR_SYSARG(); exit and exit_group: an entry), turned into calls
 * (sys_call__from_record()) and printed by the printer of the command
 * (sys_printer__record()) as lines and JSON; the spec lines of selections;
 * the probe's listing line from the session's answer (as FILE.probes
 * has it) and the records it names; the probe's counters (pstats) and
 * the summary line; the tables of -s and -S (struct sys_sum) from
 * KPT_IOC_SYSSUM's entries and from records, their JSON rows, and the
 * summary line of -s; --prometheus: the text of a table by comm (its
 * buckets worked by hand from the entries' calls), seconds as Prometheus
 * writes floats, label values escaped. Exact expected strings only.
 *
 *	test_syscalls_cmd DATA_DIR WORK_DIR
 *
 * Prints "ok N" / "not ok N" lines, then "N passed, N failed"; exit status
 * 1 if any failed.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uapi/kptrace_record.h>

#include "../ksyms.h"	/* not module/ksyms.h */
#include "probes.h"
#include "prom.h"
#include "pstats.h"
#include "session.h"
#include "spec.h"
#include "syscall_fmt.h"
#include "syscalls.h"
#include "syscalls_cmd.h"
#include "syscalls_comm.h"
#include "syscalls_fd.h"
#include "syscalls_pending.h"
#include "trace.h"
#include "ktap.h"

#define ARRAY_LEN(a)	(sizeof(a) / sizeof((a)[0]))

/* the reader's options: kptrace.c defines them, which is not linked */
struct trace_env trace_env = {
	.pid = -1,
};

static const char *data_dir, *work_dir;

static void same(const char *name, const char *got, const char *want)
{
	int ok = got && want ? !strcmp(got, want) : got == want;

	result(ok, name, "got '%s', expected '%s'", got ? got : "(null)",
	       want ? want : "(null)");
}

/* --- records, as the module writes them --------------------------------- */

/* A string of a record: which argument (from 1), its bytes, its flags. */
struct rstr {
	unsigned int sysarg;		/* 0: the slot is unused */
	const char *s;
	unsigned int len;
	__u16 flags;			/* KPT_STR_FAULT, _TRUNC, _USER */
	__u32 bad_off;			/* if not 0: the slot points there */
};

struct rec {
	bool entry;			/* exit, exit_group: no return */
	__u64 ts, entry_ts, lat;
	__s64 ret;
	const char *comm;
	__u32 pid, tid, cpu;
	__u16 nr_args;			/* 0: 9 */
	__u64 nr;
	__u64 regs[6];
	struct rstr str[2];
	unsigned int nr_stack;		/* frames after the args (--stack) */
	__u64 stack[4];
	bool stack_trunc;
};

static __u64 rec_buf[1024];

/* The record @r in rec_buf, as a checked record of the module. */
static const struct kpt_event *make(const struct rec *r)
{
	struct kpt_event *e = (struct kpt_event *)rec_buf;
	struct kpt_ret *kr = (struct kpt_ret *)e->data;
	unsigned int i, off;
	__u64 *a;

	memset(rec_buf, 0, sizeof(rec_buf));
	e->magic = KPT_MAGIC;
	e->type = r->entry ? KPT_EV_ENTRY : KPT_EV_RETURN;
	e->seq = 1;
	e->ts_ns = r->ts;
	e->cpu = r->cpu;
	e->probe_id = 42;
	e->pid = r->pid;
	e->tid = r->tid;
	memcpy(e->comm, r->comm, strnlen(r->comm, KPT_COMM_LEN));
	e->nr_args = r->nr_args ? r->nr_args : SYS_NARGS;
	if (r->entry) {
		a = e->data;
	} else {
		kr->ret = r->ret;
		kr->lat_ns = r->lat;
		kr->entry_ts_ns = r->entry_ts;
		a = e->data + KPT_RET_SLOTS;
	}
	a[0] = r->nr;
	memcpy(a + 1, r->regs, sizeof(r->regs));
	/* the strings after the stack, as the module has them */
	e->nr_stack = r->nr_stack;
	memcpy(a + e->nr_args, r->stack, r->nr_stack * sizeof(__u64));
	if (r->stack_trunc)
		e->flags |= KPT_F_STACK_TRUNC;
	off = (char *)(a + e->nr_args + r->nr_stack) - (char *)e;
	for (i = 0; i < 2 && e->nr_args == SYS_NARGS; i++) {
		const struct rstr *s = &r->str[i];

		if (!s->sysarg && !s->s) {
			a[SYS_STR_SLOT + i] = KPT_STR_SLOT(0, 0, 0);
			continue;
		}
		memcpy((char *)e + off, s->s, s->len);
		a[SYS_STR_SLOT + i] =
			KPT_STR_SLOT(s->bad_off ? s->bad_off : off, s->len,
				     s->flags | (s->sysarg << 8));
		off += s->len;
	}
	e->size = (off + 7) & ~7U;
	return e;
}

/* --- the printer ------------------------------------------------------------ */

static struct sys_formats *formats;	/* from test/data's format files */
static struct sys_formats *no_formats;	/* no tracefs at all */
static char *mem;
static size_t mem_len;
static struct sys_printer printer;

static void printer_start(bool json, struct sys_formats *f)
{
	memset(&printer, 0, sizeof(printer));
	free(mem);
	mem = NULL;
	printer.out = open_memstream(&mem, &mem_len);
	printer.json = json;
	printer.formats = f;
	printer.lost_fmt.out = printer.out;
	printer.lost_fmt.json = json;
}

/* What the printer wrote since printer_start(). */
static const char *printer_text(void)
{
	fflush(printer.out);
	return mem ? mem : "";
}

static void printer_end(void)
{
	sys_printer__fini(&printer);
	fclose(printer.out);
	free(mem);
	mem = NULL;
}

/* The one line a record prints (without its newline), or JSON object. */
static const char *print_one(const struct rec *r, bool json,
			     struct sys_formats *f, __u64 base)
{
	static char out[4096];

	printer_start(json, f);
	printer.have_base = true;
	printer.base_ns = base;
	sys_printer__record(make(r), &printer);
	snprintf(out, sizeof(out), "%s", printer_text());
	if (!json && out[0])
		out[strlen(out) - 1] = '\0';	/* the newline */
	printer_end();
	return out;
}

static void load_format(const char *file, unsigned int nr)
{
	struct syscall_format fmt;
	char path[512], err[256];

	snprintf(path, sizeof(path), "%s/%s", data_dir, file);
	if (syscalls__read_format(path, &fmt, err, sizeof(err)) ||
	    sys_formats__set(formats, nr, &fmt))
		result(0, file, "%s", err);
}

static const char exit_group_format[] =
	"name: sys_enter_exit_group\n"
	"ID: 1\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\n"
	"\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:int error_code;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\n"
	"print fmt: \"error_code: 0x%08lx\", ((unsigned long)(REC->error_code))\n";

static void setup_formats(void)
{
	struct syscall_format fmt;
	char err[256], root[512];

	formats = sys_formats__new("/nonexistent-tracefs", true);
	snprintf(root, sizeof(root), "%s/no-tracefs", work_dir);
	no_formats = sys_formats__new(root, true);
	if (!formats || !no_formats) {
		result(0, "sys_formats__new", "out of memory");
		exit(1);
	}
	load_format("format-openat", 257);
	load_format("format-execve", 59);
	load_format("format-renameat2", 316);
	load_format("format-write", 1);
	load_format("format-mmap", 9);
	if (syscalls__parse_format(exit_group_format, &fmt, err, sizeof(err)) ||
	    sys_formats__set(formats, 231, &fmt))
		result(0, "exit_group's format", "%s", err);
}

#define OPENAT_REGS	{ 0xffffff9c, 0x7ffc12345678, 0x80000, 0, 0x1111, \
			  0x2222 }

static void test_lines(void)
{
	struct rec r = {
		.ts = 1000012345, .entry_ts = 1000000000, .lat = 12345,
		.ret = 3, .comm = "cat", .pid = 215, .tid = 215, .nr = 257,
		.regs = OPENAT_REGS,
		.str = { { 2, "/etc/passwd", 11, KPT_STR_USER } },
	};
	struct sys_call sc;

	same("line: openat, the first call",
	     print_one(&r, false, formats, 1000000000),
	     "0.000 ( 0.012 ms): cat/215 openat(dfd: CWD, filename: \"/etc/passwd\", flags: RDONLY|CLOEXEC) = 3");
	same("json: openat, the first call",
	     print_one(&r, true, formats, 1000000000),
	     "{\"ts\":0,\"dur_ns\":12345,\"comm\":\"cat\",\"pid\":215,\"tid\":215,\"syscall\":\"openat\",\"args\":{\"dfd\":-100,\"filename\":\"/etc/passwd\",\"flags\":524288,\"mode\":0},\"ret\":3}\n");

	/* 1.5 ms later, failing; the header's tid differs from the pid */
	r.entry_ts += 1500000;
	r.lat = 4000;
	r.ret = -2;
	r.tid = 216;
	r.str[0] = (struct rstr){ 2, "/nonexistent", 12, KPT_STR_USER, 0 };
	same("line: openat that failed, 1.5 ms on",
	     print_one(&r, false, formats, 1000000000),
	     "1.500 ( 0.004 ms): cat/216 openat(dfd: CWD, filename: \"/nonexistent\", flags: RDONLY|CLOEXEC) = -1 ENOENT (No such file or directory)");
	same("json: openat that failed, 1.5 ms on",
	     print_one(&r, true, formats, 1000000000),
	     "{\"ts\":1500000,\"dur_ns\":4000,\"comm\":\"cat\",\"pid\":215,\"tid\":216,\"syscall\":\"openat\",\"args\":{\"dfd\":-100,\"filename\":\"/nonexistent\",\"flags\":524288,\"mode\":0},\"ret\":-2,\"errno\":\"ENOENT\"}\n");

	/* no tracefs: arg0..arg5 in hex, the string still quoted */
	r.ret = 3;
	r.tid = 215;
	r.str[0] = (struct rstr){ 2, "/etc/passwd", 11, KPT_STR_USER, 0 };
	same("line: no format: arg0..arg5, the string from its slot",
	     print_one(&r, false, no_formats, 1000000000),
	     "1.500 ( 0.004 ms): cat/215 openat(arg0: 0xffffff9c, arg1: \"/etc/passwd\", arg2: 0x80000, arg3: 0x0, arg4: 0x1111, arg5: 0x2222) = 3");
	same("json: no format: arg0..arg5, the string from its slot",
	     print_one(&r, true, no_formats, 1000000000),
	     "{\"ts\":1500000,\"dur_ns\":4000,\"comm\":\"cat\",\"pid\":215,\"tid\":215,\"syscall\":\"openat\",\"args\":{\"arg0\":4294967196,\"arg1\":\"/etc/passwd\",\"arg2\":524288,\"arg3\":0,\"arg4\":4369,\"arg5\":8738},\"ret\":3}\n");

	/* the string faulted, was cut, or its slot is not in the record */
	r.str[0] = (struct rstr){ 2, "", 0, KPT_STR_USER | KPT_STR_FAULT, 0 };
	same("line: a string that faulted",
	     print_one(&r, false, formats, 1000000000),
	     "1.500 ( 0.004 ms): cat/215 openat(dfd: CWD, filename: (fault), flags: RDONLY|CLOEXEC) = 3");
	same("json: a string that faulted",
	     print_one(&r, true, formats, 1000000000),
	     "{\"ts\":1500000,\"dur_ns\":4000,\"comm\":\"cat\",\"pid\":215,\"tid\":215,\"syscall\":\"openat\",\"args\":{\"dfd\":-100,\"filename\":null,\"flags\":524288,\"mode\":0},\"ret\":3}\n");
	r.str[0] = (struct rstr){ 2, "/very/long/pa", 13,
				  KPT_STR_USER | KPT_STR_TRUNC, 0 };
	same("line: a string cut short",
	     print_one(&r, false, formats, 1000000000),
	     "1.500 ( 0.004 ms): cat/215 openat(dfd: CWD, filename: \"/very/long/pa\"..., flags: RDONLY|CLOEXEC) = 3");
	same("json: a string cut short",
	     print_one(&r, true, formats, 1000000000),
	     "{\"ts\":1500000,\"dur_ns\":4000,\"comm\":\"cat\",\"pid\":215,\"tid\":215,\"syscall\":\"openat\",\"args\":{\"dfd\":-100,\"filename\":\"/very/long/pa\",\"filename_truncated\":true,\"flags\":524288,\"mode\":0},\"ret\":3}\n");
	r.str[0] = (struct rstr){ 2, "x", 1, KPT_STR_USER, 4000 };
	same("line: a slot out of the record",
	     print_one(&r, false, formats, 1000000000),
	     "1.500 ( 0.004 ms): cat/215 openat(dfd: CWD, filename: (bad), flags: RDONLY|CLOEXEC) = 3");

	/* the module gave no string: a pointer, whatever the format says */
	r.str[0] = (struct rstr){ 0 };
	same("line: no string slot: the pointer",
	     print_one(&r, false, formats, 1000000000),
	     "1.500 ( 0.004 ms): cat/215 openat(dfd: CWD, filename: 0x7ffc12345678, flags: RDONLY|CLOEXEC) = 3");
	/* a slot naming an argument past the format's: not shown */
	r.str[0] = (struct rstr){ 6, "zz", 2, KPT_STR_USER, 0 };
	same("line: a slot past the format's arguments is left out",
	     print_one(&r, false, formats, 1000000000),
	     "1.500 ( 0.004 ms): cat/215 openat(dfd: CWD, filename: 0x7ffc12345678, flags: RDONLY|CLOEXEC) = 3");

	/* a call that began before the first one printed: at 0 */
	r.str[0] = (struct rstr){ 2, "/etc/passwd", 11, KPT_STR_USER, 0 };
	same("line: an entry before the first call's is at 0",
	     print_one(&r, false, formats, 1000000000 + 1500001),
	     "0.000 ( 0.004 ms): cat/215 openat(dfd: CWD, filename: \"/etc/passwd\", flags: RDONLY|CLOEXEC) = 3");

	/* execve: the new comm, one string, argv a pointer */
	r = (struct rec){
		.ts = 1100000000, .entry_ts = 1099000000, .lat = 1000000,
		.ret = 0, .comm = "ls", .pid = 300, .tid = 300, .nr = 59,
		.regs = { 0x55d0c0de0010, 0x7ffd00000100, 0x7ffd00000200 },
		.str = { { 1, "/usr/bin/ls", 11, KPT_STR_USER }, { 0 } },
	};
	same("line: execve",
	     print_one(&r, false, formats, 1000000000),
	     "99.000 ( 1.000 ms): ls/300 execve(filename: \"/usr/bin/ls\", argv: 0x7ffd00000100, envp: 0x7ffd00000200) = 0");

	/* two strings, in the second and fourth arguments, slots reversed */
	r = (struct rec){
		.ts = 1000200000, .entry_ts = 1000100000, .lat = 100000,
		.ret = -18, .comm = "mv", .pid = 7, .tid = 8, .nr = 316,
		.regs = { 3, 0x1000, (__u64)-100, 0x2000, 1 },
		.str = { { 4, "b\"new", 5, KPT_STR_USER },
			 { 2, "a\\old\n", 6, KPT_STR_USER } },
	};
	same("line: renameat2, two strings",
	     print_one(&r, false, formats, 1000000000),
	     "0.100 ( 0.100 ms): mv/8 renameat2(olddfd: 3, oldname: \"a\\\\old\\x0a\", newdfd: CWD, newname: \"b\\\"new\", flags: 1) = -1 EXDEV (Invalid cross-device link)");
	same("json: renameat2, two strings",
	     print_one(&r, true, formats, 1000000000),
	     "{\"ts\":100000,\"dur_ns\":100000,\"comm\":\"mv\",\"pid\":7,\"tid\":8,\"syscall\":\"renameat2\",\"args\":{\"olddfd\":3,\"oldname\":\"a\\\\old\\u000a\",\"newdfd\":-100,\"newname\":\"b\\\"new\",\"flags\":1},\"ret\":-18,\"errno\":\"EXDEV\"}\n");

	/* exit_group: an entry record, no return */
	r = (struct rec){
		.entry = true, .ts = 1002000000, .comm = "cat", .pid = 215,
		.tid = 215, .nr = 231, .regs = { 0, 0x1111, 0x2222 },
	};
	same("line: exit_group, which does not return",
	     print_one(&r, false, formats, 1000000000),
	     "2.000 ( 0.000 ms): cat/215 exit_group(error_code: 0) = ?");
	same("json: exit_group, which does not return",
	     print_one(&r, true, formats, 1000000000),
	     "{\"ts\":2000000,\"dur_ns\":0,\"comm\":\"cat\",\"pid\":215,\"tid\":215,\"syscall\":\"exit_group\",\"args\":{\"error_code\":0}}\n");
	r.regs[0] = 0xffffffff;		/* exit_group(-1) */
	same("line: exit_group(-1)",
	     print_one(&r, false, formats, 1000000000),
	     "2.000 ( 0.000 ms): cat/215 exit_group(error_code: -1) = ?");

	/* numbers no table names, a 16-byte comm */
	r = (struct rec){
		.ts = 1000000100, .entry_ts = 1000000000, .lat = 100,
		.ret = -38, .comm = "0123456789abcdefXY", .pid = 1, .tid = 1,
		.nr = 999, .regs = { 1, 2, 3, 4, 5, 6 },
	};
	same("line: an unknown number, ENOSYS, a 16-byte comm",
	     print_one(&r, false, formats, 1000000000),
	     "0.000 ( 0.000 ms): 0123456789abcdef/1 syscall_999(arg0: 0x1, arg1: 0x2, arg2: 0x3, arg3: 0x4, arg4: 0x5, arg5: 0x6) = -1 ENOSYS (Function not implemented)");
	r.nr = 0x100000000ULL;
	same("line: a number over 32 bits",
	     print_one(&r, false, formats, 1000000000),
	     "0.000 ( 0.000 ms): 0123456789abcdef/1 syscall_4294967296(arg0: 0x1, arg1: 0x2, arg2: 0x3, arg3: 0x4, arg4: 0x5, arg5: 0x6) = -1 ENOSYS (Function not implemented)");

	/* mmap: its address back, in hex */
	r = (struct rec){
		.ts = 1000000100, .entry_ts = 1000000000, .lat = 100,
		.ret = 0x7f0123456000LL, .comm = "cat", .pid = 5, .tid = 5,
		.nr = 9, .regs = { 0, 8192, 3, 0x22, (__u64)-1, 0 },
	};
	same("line: mmap",
	     print_one(&r, false, formats, 1000000000),
	     "0.000 ( 0.000 ms): cat/5 mmap(addr: 0, len: 8192, prot: READ|WRITE, flags: PRIVATE|ANONYMOUS, fd: -1, off: 0) = 0x7f0123456000");

	/* not a syscalls probe's record: -1, counted, nothing printed */
	r.nr_args = 6;
	result(sys_call__from_record(&sc, make(&r), formats, 0) == -1,
	       "a record of 6 args is not a call", "");
	same("printer: nothing for a record of another probe",
	     print_one(&r, false, formats, 0), "");
	r.nr_args = 0;
	result(sys_call__from_record(&sc, make(&r), formats, 0) == 0 &&
	       sc.nr == 9 && sc.entry_ns == 1000000000 && sc.call.dur_ns == 100,
	       "sys_call__from_record: nr, entry, duration", "nr %llu",
	       (unsigned long long)sc.nr);
}

/* Several records through one printer: the base, lost reports, counts. */
static void test_printer(void)
{
	struct rec r1 = {
		.ts = 5000002000, .entry_ts = 5000001000, .lat = 1000,
		.ret = 6, .comm = "echo", .pid = 9, .tid = 9, .nr = 1,
		.regs = { 1, 0x55d0c0de0000, 6 },
	};
	struct rec r2 = {
		.entry = true, .ts = 5000500000, .comm = "echo", .pid = 9,
		.tid = 9, .nr = 231,
	};
	__u64 lost[(sizeof(struct kpt_event) + sizeof(struct kpt_lost)) / 8];
	struct kpt_event *e = (struct kpt_event *)lost;
	struct kpt_lost *l = (struct kpt_lost *)e->data;

	memset(lost, 0, sizeof(lost));
	e->magic = KPT_MAGIC;
	e->type = KPT_EV_LOST;
	e->size = sizeof(lost);
	e->cpu = 1;
	l->cause = KPT_LOST_FULL;
	l->count = 17;

	printer_start(false, formats);
	sys_printer__record(make(&r1), &printer);
	sys_printer__record(e, &printer);
	sys_printer__record(make(&r2), &printer);
	r1.nr_args = 6;
	sys_printer__record(make(&r1), &printer);
	same("printer: the first call at 0, a loss report, exit_group",
	     printer_text(),
	     "0.000 ( 0.001 ms): echo/9 write(fd: 1, buf: 0x55d0c0de0000, count: 6) = 6\n"
	     "CPU:1 [LOST 17 EVENTS: full]\n"
	     "0.499 ( 0.000 ms): echo/9 exit_group(error_code: 0) = ?\n");
	result(printer.shown == 2 && printer.other == 1 &&
	       printer.base_ns == 5000001000ULL, "printer: counts and base",
	       "shown %llu other %llu", printer.shown, printer.other);
	printer_end();

	printer_start(true, formats);
	sys_printer__record(e, &printer);
	same("printer json: a loss report as the reader's",
	     printer_text(),
	     "{\"type\":\"lost\",\"cpu\":1,\"cause\":\"full\",\"count\":17}\n");
	printer_end();
}

/* --- spec lines ------------------------------------------------------------- */

static const char *spec_of(const struct sys_sel *sel, pid_t pid)
{
	static char buf[4096];

	if (syscalls_cmd__spec(sel, pid, buf, sizeof(buf)) != (int)strlen(buf))
		return "(syscalls_cmd__spec failed)";
	return buf;
}

/*
 * The module's own parser (include/spec/, built in) takes @line, and
 * prints it back the same: the tool speaks the kernel side's language.
 */
static void spec_round_trip_to(const char *what, const char *line,
			       const char *want)
{
	struct kpt_spec *spec = calloc(1, sizeof(*spec));
	char back[4096];
	int ret;

	if (!spec)
		return;
	ret = kpt_spec_parse(line, spec);
	if (!ret)
		kpt_spec_print(spec, 0, back, sizeof(back));
	result(!ret && spec->kind == 's' && !strcmp(back, want), what,
	       "'%s': %s", line, ret ? spec->err_msg : back);
	free(spec);
}

static void spec_round_trip(const char *what, const char *line)
{
	spec_round_trip_to(what, line, line);
}

static void test_spec(void)
{
	static const unsigned int picked[] = { 0, 1, 2, 5, 7, 8 };
	unsigned int i, count = syscalls__count(SYSCALLS_64);
	bool *nr = calloc(count, sizeof(*nr));
	struct sys_sel sel = { 0 };
	char err[128], small[24];

	if (!nr)
		return;
	same("spec: nothing selected: all but the tool", spec_of(&sel, 4242),
	     "s:kptrace/sys_4242 exclude=4242");
	sel.children = 4242;
	same("spec: COMMAND", spec_of(&sel, 4242),
	     "s:kptrace/sys_4242 children=4242");
	sel = (struct sys_sel){
		.pid = { 1, 22 }, .npid = 2, .tid = { 333 }, .ntid = 1,
		.children = 7, .comm = "ng*x?", .cgroup = 123456789012ULL,
		.nr = nr, .failure = true, .duration_ns = 500000,
	};
	for (i = 0; i < ARRAY_LEN(picked); i++)
		nr[picked[i]] = true;
	nr[count - 1] = true;
	sel.stack = 8;
	same("spec: every option, in the module's order", spec_of(&sel, 9),
	     "s:kptrace/sys_9 pid=1,22 tid=333 children=7 comm=ng*x? cgroup=123456789012 nr=0-2,5,7-8,471 failure duration=500000 stack=8");
	spec_round_trip("spec: every option, as include/spec/ parses and prints it",
			spec_of(&sel, 9));
	{
		struct sys_sel any = { .comm = "Web Content" };
		struct kpt_spec *spec = calloc(1, sizeof(*spec));

		same("spec: -c with a space, escaped", spec_of(&any, 9),
		     "s:kptrace/sys_9 exclude=9 comm=Web\\x20Content");
		memcpy(any.comm, "a\\b\"\xc3\xa9\x1b*", 9);
		same("spec: -c with a backslash, a quote, UTF-8 and ESC, escaped",
		     spec_of(&any, 9),
		     "s:kptrace/sys_9 exclude=9 comm=a\\\\b\\x22\\xc3\\xa9\\x1b*");
		result(spec && !kpt_spec_parse(spec_of(&any, 9), spec) &&
		       !strcmp(spec->sys.comm, any.comm),
		       "spec: -c's bytes are what the module matches", "%s",
		       spec ? spec->sys.comm : "no memory");
		free(spec);
	}
	for (i = 2; i < SYS_MAX_IDS; i++)
		sel.pid[i] = 100 + i;
	sel.pid[SYS_MAX_IDS - 1] = SYS_MAX_PID;
	sel.npid = SYS_MAX_IDS;
	spec_round_trip("spec: 8 pids, the largest, include/spec/",
			spec_of(&sel, SYS_MAX_PID));
	sel = (struct sys_sel){ 0 };
	spec_round_trip("spec: nothing selected, include/spec/",
			spec_of(&sel, 4242));

	sel = (struct sys_sel){ .nr = nr };
	syscalls__select(SYSCALLS_64, "open*,!openat2", nr, &sel.nr_rest, err,
			 sizeof(err));
	same("spec: -e 'open*,!openat2'", spec_of(&sel, 9),
	     "s:kptrace/sys_9 exclude=9 nr=2,257,304,428,467");
	syscalls__select(SYSCALLS_64, "!read,!write", nr, &sel.nr_rest, err,
			 sizeof(err));
	same("spec: -e '!read,!write': every other number, unnamed ones too",
	     spec_of(&sel, 9), "s:kptrace/sys_9 exclude=9 nr=2-511");
	spec_round_trip("spec: -e '!read,!write', include/spec/",
			spec_of(&sel, 9));
	syscalls__select(SYSCALLS_64, "exit*", nr, &sel.nr_rest, err,
			 sizeof(err));
	sel.pid[0] = 100;
	sel.npid = 1;
	sel.failure = true;
	same("spec: -p 100 -e 'exit*' --failure", spec_of(&sel, 9),
	     "s:kptrace/sys_9 pid=100 nr=60,231 failure");
	/* -s: summary last; the module prints the size it took */
	sel.summary = true;
	sel.duration_ns = 2000000;
	same("spec: -s: summary after every option", spec_of(&sel, 9),
	     "s:kptrace/sys_9 pid=100 nr=60,231 failure duration=2000000 summary");
	spec_round_trip_to("spec: -s, as include/spec/ parses and prints it",
			   spec_of(&sel, 9),
			   "s:kptrace/sys_9 pid=100 nr=60,231 failure duration=2000000 summary=1024");
	sel = (struct sys_sel){ .children = 9, .summary = true };
	same("spec: -s -- COMMAND", spec_of(&sel, 9),
	     "s:kptrace/sys_9 children=9 summary");
	spec_round_trip("spec: 32-bit numbers, signals and denied calls, include/spec/",
			"s:kptrace/sys_9 pid=7 nr=2,257 nr32=5,20,295 signals denied");
	spec_round_trip("spec: nr32= alone, include/spec/",
			"s:kptrace/sys_9 nr32=0-3");
	result(syscalls_cmd__spec(&sel, 9, small, sizeof(small)) == -1,
	       "spec: a buffer too small is -1", "");
	free(nr);
}

/* --- --stack: a record's call trace -------------------------------------- */

static void test_stack(void)
{
	struct rec r = {
		.ts = 1000012345, .entry_ts = 1000000000, .lat = 12345,
		.ret = 3, .comm = "cat", .pid = 215, .tid = 215, .nr = 257,
		.regs = OPENAT_REGS,
		.str = { { 2, "/etc/passwd", 11, KPT_STR_USER } },
		.nr_stack = 3,
		.stack = { 0xffffffff81234500ULL, 0xffffffff812346a5ULL,
			   0xffffffffc0400088ULL },
	};
	const struct kpt_event *e;
	struct ksyms *ks;
	char path[512];
	const char *why;

	snprintf(path, sizeof(path), "%s/kallsyms", data_dir);
	ks = ksyms__load(path);
	e = make(&r);
	result(event__check(e, e->size, &why) == EVENT_OK &&
	       kpt_record_fixed(e) == sizeof(*e) + 8 * (KPT_RET_SLOTS + 9 + 3),
	       "stack: a return with frames passes the check, its fixed part has them",
	       "");

	printer_start(false, formats);
	printer.lost_fmt.ksyms = ks;
	printer.have_base = true;
	printer.base_ns = 1000000000;
	sys_printer__record(e, &printer);
	same("stack: the line, then the call trace, the string after the frames",
	     printer_text(),
	     "0.000 ( 0.012 ms): cat/215 openat(dfd: CWD, filename: \"/etc/passwd\", flags: RDONLY|CLOEXEC) = 3\n"
	     " Call Trace:\n"
	     "  [<ffffffff81234500>] do_sys_openat2+0x0/0x1a0\n"
	     "  [<ffffffff812346a5>] do_sys_open+0x5/0x50\n"
	     "  [<ffffffffc0400088>] kpt_test_func+0x8/0x40 [kpt_test]\n");
	printer_end();

	r.stack_trunc = true;
	printer_start(true, formats);
	printer.lost_fmt.ksyms = ks;
	printer.have_base = true;
	printer.base_ns = 1000000000;
	sys_printer__record(make(&r), &printer);
	same("stack: -j, the frames as \"stack\", truncated",
	     printer_text(),
	     "{\"ts\":0,\"dur_ns\":12345,\"comm\":\"cat\",\"pid\":215,\"tid\":215,\"syscall\":\"openat\",\"args\":{\"dfd\":-100,\"filename\":\"/etc/passwd\",\"flags\":524288,\"mode\":0},\"ret\":3"
	     ",\"stack\":[{\"addr\":\"0xffffffff81234500\",\"sym\":\"do_sys_openat2+0x0/0x1a0\"},{\"addr\":\"0xffffffff812346a5\",\"sym\":\"do_sys_open+0x5/0x50\"},{\"addr\":\"0xffffffffc0400088\",\"sym\":\"kpt_test_func+0x8/0x40 [kpt_test]\",\"module\":\"kpt_test\"}],\"stack_truncated\":true}\n");
	printer_end();

	/* an exit_group entry with frames; no symbols: bare addresses */
	r = (struct rec){
		.entry = true, .ts = 1000000000, .comm = "cat", .pid = 215,
		.tid = 215, .nr = 231, .regs = { 7 }, .nr_stack = 1,
		.stack = { 0xffffffff81234500ULL },
	};
	printer_start(false, formats);
	printer.have_base = true;
	printer.base_ns = 1000000000;
	sys_printer__record(make(&r), &printer);
	same("stack: exit_group, no kallsyms: the bare address",
	     printer_text(),
	     "0.000 ( 0.000 ms): cat/215 exit_group(error_code: 7) = ?\n"
	     " Call Trace:\n"
	     "  [<ffffffff81234500>] 0xffffffff81234500\n");
	printer_end();
	ksyms__free(ks);
}

/* --- the probe's listing line -------------------------------------------- */

static void test_listing(void)
{
	static const char spec[] = "s:kptrace/sys_100 children=100 nr=0-2";
	struct session s = { .fd = -1, .id = 7 };
	struct session def = { .fd = -1 };
	struct probes *probes = probes__load(NULL, NULL, true, false);
	char *line = session__listing_line(&s, spec, 42);
	char *line0 = session__listing_line(&def, spec, 3);
	size_t spec_len = 0, label_len;
	const struct probe *p = NULL;
	const char *label;
	long id = -1;

	result(line && line0 &&
	       !strcmp(line, "s:kptrace/sys_100 children=100 nr=0-2 # id=42 session=7") &&
	       !strcmp(line0, "s:kptrace/sys_100 children=100 nr=0-2 # id=3"),
	       "listing line: the canonical spec, id=, session= (none: the default)",
	       "got '%s', '%s'", line, line0);
	if (line)
		id = probes__split_line(line, &spec_len, &label, &label_len);
	result(id == 42 && spec_len == strlen(spec) && !label,
	       "listing line: split as the module's", "id %ld, spec %zu bytes",
	       id, spec_len);
	if (probes && line && !probes__add(probes, line))
		p = probes__find(probes, 42);
	result(p && p->spec && p->spec->kind == 's' &&
	       !strcmp(probe__name(p, 42), "sys_100") &&
	       !probes__find(probes, 43),
	       "listing line: names the session's records (no listing read)",
	       "probe %p", (const void *)p);
	probes__free(probes);
	free(line);
	free(line0);
}

/* --- counters and the summary -------------------------------------------- */

static const char *summary_of(const struct pstats_probe *ps,
			      unsigned long long shown,
			      unsigned long long own, bool saved)
{
	static char out[1024];
	char *m = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&m, &n);

	if (!f)
		return "(open_memstream failed)";
	syscalls_cmd__summary(f, ps, shown, own, saved);
	fclose(f);
	snprintf(out, sizeof(out), "%s", m);
	free(m);
	return out;
}

static void test_summary(void)
{
	struct pstats_probe ps = { 0 };
	char path[512];
	FILE *f;
	int ret;

	same("summary: nothing at all", summary_of(&ps, 0, 0, false),
	     "kptrace: 0 calls seen, 0 shown, 0 filtered, 0 lost, 0 missed returns\n");
	/* 97 seen by the handler, 3 without an instance */
	ps = (struct pstats_probe){
		.calls = 97, .recorded = 10, .filtered = 80,
		.lost = { [KPT_LOST_FULL] = 2, [KPT_LOST_OVERWRITTEN] = 1 },
		.maxactive_missed = 3,
	};
	same("summary: lost by cause, in flight, recorded but not shown",
	     summary_of(&ps, 8, 1, false),
	     "kptrace: 100 calls seen, 8 shown, 80 filtered, 3 lost (full 2, overwritten 1), 3 missed returns, 4 in flight at detach; 2 recorded but not shown (1 of kptrace itself, 1 left unread)\n");
	ps.calls = 93;
	ps.missed = 2;
	same("summary: -w, all accounted, kprobe misses",
	     summary_of(&ps, 10, 0, true),
	     "kptrace: 98 calls seen, 10 saved, 80 filtered, 3 lost (full 2, overwritten 1), 3 missed returns, 2 missed by the kprobe\n");
	ps.calls = 92;
	ps.missed = 0;
	same("summary: counters past the calls",
	     summary_of(&ps, 9, 0, false),
	     "kptrace: 95 calls seen, 9 shown, 80 filtered, 3 lost (full 2, overwritten 1), 3 missed returns (the counters add up to 1 more than seen); 1 recorded but not shown (1 left unread)\n");

	snprintf(path, sizeof(path), "%s/probe_stats", data_dir);
	f = fopen(path, "re");
	if (!f) {
		result(0, "pstats: test/data/probe_stats", "cannot open");
		return;
	}
	ret = pstats__read_probe(f, "open", &ps);
	result(!ret && ps.calls == 10 && ps.events == 10 && ps.filtered == 2 &&
	       ps.recorded == 7 && ps.lost[KPT_LOST_FULL] == 1 &&
	       ps.missed == 3 && !ps.maxactive_missed,
	       "pstats: the total line of open, not its cpu lines",
	       "ret %d calls %llu recorded %llu", ret, ps.calls, ps.recorded);
	ret = pstats__read_probe(f, "ropen", &ps);
	result(!ret && ps.calls == 4 && ps.recorded == 4 &&
	       ps.maxactive_missed == 1, "pstats: ropen, read again",
	       "ret %d", ret);
	ret = pstats__read_probe(f, "ope", &ps);
	result(ret == -ENOENT && !ps.calls, "pstats: no such probe",
	       "ret %d", ret);
	fclose(f);
}

/* --- the tables of -s and -S ---------------------------------------------- */

/* KPT_IOC_SYSSUM's entries of one read: two CPUs, two processes */
static const struct kpt_syssum_entry sum_set[] = {
	/* 500, 1000, 1500 ns; lat_log2[b]: from 2^(9+b) to under 2^(10+b) */
	{ .pid = 1234, .nr = 0, .comm = "dd", .calls = 3, .total_ns = 3000,
	  .min_ns = 500, .max_ns = 1500, .sumsq_ns = { 3500000 },
	  .lat_log2 = { 2, 1 } },
	/* 1000, 4000, 5000, 10000 ns */
	{ .pid = 1234, .nr = 1, .comm = "dd", .calls = 4, .errors = 1,
	  .total_ns = 20000, .min_ns = 1000, .max_ns = 10000,
	  .sumsq_ns = { 142000000 }, .lat_log2 = { 1, 0, 1, 1, 1 } },
	{ .pid = 1234, .nr = 231, .comm = "dd", .calls = 1,
	  .lat_log2 = { 1 } },
	{ .pid = 99, .nr = 257, .comm = "c\\at\x1b[2J", .calls = 1,
	  .errors = 1, .total_ns = 5000, .min_ns = 5000, .max_ns = 5000,
	  .sumsq_ns = { 25000000 }, .lat_log2 = { [3] = 1 } },
	/* CPU 1: read again, merged with CPU 0's; 2000, 3000 ns */
	{ .pid = 1234, .nr = 0, .comm = "dd", .calls = 2, .total_ns = 5000,
	  .min_ns = 2000, .max_ns = 3000, .sumsq_ns = { 13000000 },
	  .lat_log2 = { 0, 1, 1 } },
	/* 4 s and 6 s: 52e18 = 2 * 2^64 + 15106511852580896768 */
	{ .pid = 1234, .nr = 35, .comm = "dd", .calls = 2,
	  .total_ns = 10000000000ULL, .min_ns = 4000000000ULL,
	  .max_ns = 6000000000ULL,
	  .sumsq_ns = { 15106511852580896768ULL, 2 },
	  .lat_log2 = { [22] = 1, [23] = 1 } },
	{ .pid = 99, .nr = 59, .comm = "sh", .calls = 1, .total_ns = 200000,
	  .min_ns = 200000, .max_ns = 200000,
	  .sumsq_ns = { 40000000000ULL }, .lat_log2 = { [8] = 1 } },
	/* 1000, 1000, 2000, 2000, 3000, 3000 ns */
	{ .pid = 99, .nr = 257, .comm = "c\\at\x1b[2J", .calls = 6,
	  .errors = 2, .total_ns = 12000, .min_ns = 1000, .max_ns = 3000,
	  .sumsq_ns = { 28000000 }, .lat_log2 = { 2, 2, 2 } },
	/* no calls: a slot the module would not give; ignored */
	{ .pid = 5, .nr = 0, .comm = "zero" },
};

#define SUM_HEAD \
	"   syscall            calls  errors  total       min       avg       max       stddev\n" \
	"                                     (msec)    (msec)    (msec)    (msec)        (%)\n" \
	"   --------------- --------  ------ -------- --------- --------- ---------     ------\n"

/*
 * The table of sum_set, checked against an independent computation
 * (Python's decimal, 60 digits) of the sample standard deviations: read
 * 5 calls, 8000 ns, 16.5e6 ns^2: s = sqrt(925000) = 961.77, 60.11% of
 * 1600; nanosleep s = sqrt(2e18), 28.28% of 5e9 (its sum of squares
 * needs the high word); openat 7 calls of 17000 ns, 53e6 ns^2: 57.53%.
 */
static const char sum_table[] =
	"\n"
	" Summary of events:\n"
	"\n"
	" dd (1234), 12 events, 60.0%\n"
	"\n"
	SUM_HEAD
	"   nanosleep              2      0 10000.000  4000.000  5000.000  6000.000     28.28%\n"
	"   write                  4      1     0.020     0.001     0.005     0.010     74.83%\n"
	"   read                   5      0     0.008     0.001     0.002     0.003     60.11%\n"
	"   exit_group             1      0     0.000     0.000     0.000     0.000      0.00%\n"
	"\n"
	"\n"
	" c\\\\at\\x1b[2J (99), 8 events, 40.0%\n"
	"\n"
	SUM_HEAD
	"   execve                 1      0     0.200     0.200     0.200     0.200      0.00%\n"
	"   openat                 7      3     0.017     0.001     0.002     0.005     57.53%\n"
	"\n"
	"\n";

static const char sum_rows[] =
	"{\"pid\":1234,\"comm\":\"dd\",\"syscall\":\"nanosleep\",\"calls\":2,\"errors\":0,\"total_ns\":10000000000,\"min_ns\":4000000000,\"max_ns\":6000000000,\"stddev_pct\":28.28}\n"
	"{\"pid\":1234,\"comm\":\"dd\",\"syscall\":\"write\",\"calls\":4,\"errors\":1,\"total_ns\":20000,\"min_ns\":1000,\"max_ns\":10000,\"stddev_pct\":74.83}\n"
	"{\"pid\":1234,\"comm\":\"dd\",\"syscall\":\"read\",\"calls\":5,\"errors\":0,\"total_ns\":8000,\"min_ns\":500,\"max_ns\":3000,\"stddev_pct\":60.11}\n"
	"{\"pid\":1234,\"comm\":\"dd\",\"syscall\":\"exit_group\",\"calls\":1,\"errors\":0,\"total_ns\":0,\"min_ns\":0,\"max_ns\":0,\"stddev_pct\":0.00}\n"
	"{\"pid\":99,\"comm\":\"c\\\\at\\u001b[2J\",\"syscall\":\"execve\",\"calls\":1,\"errors\":0,\"total_ns\":200000,\"min_ns\":200000,\"max_ns\":200000,\"stddev_pct\":0.00}\n"
	"{\"pid\":99,\"comm\":\"c\\\\at\\u001b[2J\","
	"\"syscall\":\"openat\",\"calls\":7,\"errors\":3,\"total_ns\":17000,\"min_ns\":1000,\"max_ns\":5000,"
	"\"stddev_pct\":57.53}\n";

static const char *sum_text(const struct sys_sum *s, bool json,
			    const char *title, long interval)
{
	static char out[8192];
	char *m = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&m, &n);
	int ret;

	if (!f)
		return "(open_memstream failed)";
	ret = sys_sum__print(f, s, json, title, interval);
	fclose(f);
	snprintf(out, sizeof(out), "%s", ret ? "(sys_sum__print failed)" : m);
	free(m);
	return out;
}

static void sum_add_set(struct sys_sum *s)
{
	size_t i;

	sys_sum__next(s);
	for (i = 0; i < ARRAY_LEN(sum_set); i++)
		if (sys_sum__add(s, &sum_set[i]))
			result(0, "sum: add", "out of memory");
}

static void test_sum(void)
{
	struct kpt_syssum_entry later = {
		.pid = 99, .nr = 3, .comm = "cat", .calls = 1, .total_ns = 100,
		.min_ns = 100, .max_ns = 100, .sumsq_ns = { 10000 },
	};
	static const char want_iv[] =
		"{\"interval\":3,\"pid\":1234,\"comm\":\"dd\",\"syscall\":\"nanosleep\",";
	static const char want_title[] =
		"\n Summary of events, interval 2 (1.000 to 2.000 s):\n\n"
		" dd (1234), 12 events, 57.1%\n";
	static const char want_close[] =
		"   close                  1      0     0.000     0.000     0.000     0.000"
		"      0.00%\n";
	static const char want_read[] =
		"   read                  10      0     0.016     0.001     0.002     0.003"
		"     56.67%\n";
	struct sys_sum *s = sys_sum__new();
	const char *t;
	int i;

	if (!s)
		return;
	same("sum: the table, two CPUs merged, stddev from 128 bits",
	     sum_text(s, false, "Summary of events", -1),
	     "\n Summary of events:\n\n no system calls\n\n");
	sum_add_set(s);
	result(sys_sum__calls(s) == 20, "sum: the calls of the entries",
	       "%llu", sys_sum__calls(s));
	same("sum: the table of two processes, two CPUs merged, 128-bit squares",
	     sum_text(s, false, "Summary of events", -1), sum_table);
	same("sum: -j, one row each, in the table's order",
	     sum_text(s, true, "Summary of events", -1), sum_rows);
	t = sum_text(s, true, "x", 3);
	result(!strncmp(t, want_iv, strlen(want_iv)),
	       "sum: -j -i: \"interval\" first", "%s", t);

	/* a later read: its comm wins for pid 99 though it has fewer calls */
	sys_sum__next(s);
	sys_sum__add(s, &later);
	t = sum_text(s, false, "Summary of events, interval 2 (1.000 to 2.000 s)",
		     -1);
	result(strstr(t, want_title) && strstr(t, "\n cat (99), 9 events, 42.9%\n") &&
	       strstr(t, want_close),
	       "sum: the comm of the latest read; the title", "%s", t);
	/* the same read twice: 10 reads of read, s^2 = 7.4e6 / 9: 56.67% */
	sys_sum__clear(s);
	sum_add_set(s);
	sum_add_set(s);
	t = sum_text(s, false, "Summary of events", -1);
	result(strstr(t, " dd (1234), 24 events, 60.0%\n") && strstr(t, want_read),
	       "sum: two reads added up", "%s", t);

	/* records (-S): errors -4095..-1, exit's 0 ns, the latest comm */
	sys_sum__clear(s);
	{
		struct syscall_call c = {
			.comm = "cat", .pid = 501, .dur_ns = 4000, .ret = -2,
		};

		sys_sum__add_call(s, &c, 257);
		c.ret = -4096;
		c.dur_ns = 2000;
		sys_sum__add_call(s, &c, 257);
		c.comm = "0123456789abcdef";	/* no NUL in 16 bytes */
		c.no_return = true;
		c.ret = -1;
		sys_sum__add_call(s, &c, 231);
		for (i = 0; i < 3; i++)
			sys_sum__add_call(s, &c, 1ULL << 33);
	}
	same("sum: records: errors, exit_group's 0 ns, a number past 32 bits",
	     sum_text(s, false, "Summary of events", -1),
	     "\n Summary of events:\n\n"
	     " 0123456789abcdef (501), 6 events, 100.0%\n\n"
	     SUM_HEAD
	     "   openat                 2      1     0.006     0.002     0.003     0.004     47.14%\n"
	     "   syscall_8589934592        3      0     0.000     0.000     0.000     0.000      0.00%\n"
	     "   exit_group             1      0     0.000     0.000     0.000     0.000      0.00%\n"
	     "\n\n");
	sys_sum__free(s);
}

/* Records through the printer with -s (no lines) and -S (lines): counted. */
static void test_printer_sum(void)
{
	struct rec r = {
		.ts = 5000002000, .entry_ts = 5000001000, .lat = 1000,
		.ret = 6, .comm = "echo", .pid = 9, .tid = 10, .nr = 1,
		.regs = { 1, 0x55d0c0de0000, 6 },
	};
	struct sys_sum *s = sys_sum__new();

	if (!s)
		return;
	printer_start(false, formats);
	printer.sum = s;
	printer.no_lines = true;
	sys_printer__record(make(&r), &printer);
	r.lat = 3000;
	sys_printer__record(make(&r), &printer);
	result(!*printer_text() && printer.shown == 2 &&
	       sys_sum__calls(s) == 2, "printer -s: no line, two calls counted",
	       "'%s' %llu", printer_text(), printer.shown);
	printer_end();
	printer_start(false, formats);
	printer.sum = s;
	sys_printer__record(make(&r), &printer);
	result(!strncmp(printer_text(), "0.000 ( 0.003 ms): echo/10 write(", 33) &&
	       sys_sum__calls(s) == 3, "printer -S: the line, and counted",
	       "'%s'", printer_text());
	printer_end();
	same("printer -S: the table of the records (pid, not tid)",
	     sum_text(s, false, "Summary of events", -1),
	     "\n Summary of events:\n\n"
	     " echo (9), 3 events, 100.0%\n\n"
	     SUM_HEAD
	     "   write                  3      0     0.007     0.001     0.002     0.003     49.49%\n"
	     "\n\n");
	sys_sum__free(s);
}

/* A row's total held at 2^64 - 1, not wrapped below its max */
static void test_sum_saturate(void)
{
	struct kpt_syssum_entry a = {
		.pid = 500, .nr = 0, .comm = "big", .calls = 1,
		.total_ns = ~0ULL - 1000, .min_ns = ~0ULL - 1000,
		.max_ns = ~0ULL - 1000,
	}, b = {
		.pid = 500, .nr = 0, .comm = "big", .calls = 1,
		.total_ns = 2000, .min_ns = 2000, .max_ns = 2000,
	};
	struct sys_sum *s = sys_sum__new();
	const char *t;

	if (!s)
		return;
	sys_sum__add(s, &a);
	sys_sum__add(s, &b);
	t = sum_text(s, true, "Summary of events", -1);
	result(!!strstr(t, "\"calls\":2,\"errors\":0,"
			 "\"total_ns\":18446744073709551615,"
			 "\"min_ns\":2000,\"max_ns\":18446744073709550615"),
	       "summary: a total past 2^64 ns is held at 2^64 - 1", "'%s'", t);
	sys_sum__free(s);
}

/* The module's 32-bit calls (nr | KPT_SYS_NR_COMPAT): i386 names */
static void test_sum_compat(void)
{
	struct kpt_syssum_entry a = {
		.pid = 501, .nr = 20 | KPT_SYS_NR_COMPAT, .comm = "c32",
		.calls = 3, .total_ns = 300, .min_ns = 100, .max_ns = 100,
	};
	struct sys_sum *s = sys_sum__new();
	const char *t;

	if (!s)
		return;
	sys_sum__add(s, &a);
	t = sum_text(s, true, "Summary of events", -1);
	result(!!strstr(t, "\"syscall\":\"i386:getpid\",\"calls\":3,"),
	       "summary: a 32-bit call's row is named i386:NAME", "'%s'", t);
	sys_sum__free(s);
}

static const char *sum_summary_of(const struct pstats_probe *ps,
				  unsigned long long read,
				  unsigned long long own)
{
	static char out[1024];
	char *m = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&m, &n);

	if (!f)
		return "(open_memstream failed)";
	syscalls_cmd__sum_summary(f, ps, read, own);
	fclose(f);
	snprintf(out, sizeof(out), "%s", m);
	free(m);
	return out;
}

static void test_sum_summary(void)
{
	struct pstats_probe ps = {
		.calls = 27, .filtered = 5, .recorded = 20, .summary_full = 2,
		.maxactive_missed = 1,
	};
	char path[512];
	FILE *f;
	int ret;

	same("-s summary: all read, every call accounted",
	     sum_summary_of(&ps, 20, 0),
	     "kptrace: 28 calls seen, 20 counted in the kernel (all read), 5 filtered, 0 lost, 2 not counted (summary table full), 1 missed returns\n");
	ps.calls = 29;
	same("-s summary: counted after the last read, in flight",
	     sum_summary_of(&ps, 17, 0),
	     "kptrace: 30 calls seen, 20 counted in the kernel (17 read: 3 counted after the last read), 5 filtered, 0 lost, 2 not counted (summary table full), 1 missed returns, 2 in flight at detach\n");
	ps.calls = 20;
	ps.missed = 4;
	ps.lost[KPT_LOST_NESTED] = 1;
	same("-s summary: more read than counted, the tool's own, past the calls",
	     sum_summary_of(&ps, 21, 4),
	     "kptrace: 25 calls seen, 20 counted in the kernel (21 read: 1 more than counted), 5 filtered, 1 lost (nested 1), 2 not counted (summary table full), 1 missed returns, 4 missed by the kprobe (the counters add up to 8 more than seen); 4 of kptrace itself, not in the tables\n");

	snprintf(path, sizeof(path), "%s/probe_stats-summary", work_dir);
	f = fopen(path, "w+e");
	if (!f) {
		result(0, "pstats: summary_full", "cannot create %s", path);
		return;
	}
	fputs("sys_1 calls=29 events=29 filtered=5 recorded=20 full=0 overwritten=0"
	      " nested=0 too_big=0 num_fault=0 str_fault=0 str_trunc=0"
	      " stack_trunc=0 summary_full=2 missed=0 maxactive_missed=1\n"
	      "sys_1 cpu0 calls=29 events=29 filtered=5 recorded=20 full=0"
	      " overwritten=0 nested=0 too_big=0 num_fault=0 str_fault=0"
	      " str_trunc=0 stack_trunc=0 summary_full=7\n", f);
	ret = pstats__read_probe(f, "sys_1", &ps);
	result(!ret && ps.summary_full == 2 && ps.recorded == 20 &&
	       ps.maxactive_missed == 1, "pstats: summary_full of the total line",
	       "ret %d summary_full %llu", ret, ps.summary_full);
	fclose(f);
}

/* --- --prometheus --------------------------------------------------------- */

static const char *prom_of(const struct sys_sum *s, const char *cgroup,
			   const struct pstats_probe *ps)
{
	static char out[16384];
	char *m = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&m, &n);
	int ret;

	if (!f)
		return "(open_memstream failed)";
	ret = sys_sum__prom(f, s, cgroup, ps);
	fclose(f);
	snprintf(out, sizeof(out), "%s", ret ? "(sys_sum__prom failed)" : m);
	free(m);
	return out;
}

static const char *seconds_of(unsigned long long ns)
{
	static char out[64];
	char *m = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&m, &n);

	if (!f)
		return "(open_memstream failed)";
	prom__seconds(f, ns);
	fclose(f);
	snprintf(out, sizeof(out), "%s", m);
	free(m);
	return out;
}

/* ns as seconds, as Go's strconv.FormatFloat(v, 'g', -1, 64) writes v */
static void test_prom_seconds(void)
{
	static const struct {
		unsigned long long ns;
		const char *want;
	} t[] = {
		{ 0, "0" },
		{ 1, "1e-09" },
		{ 999, "9.99e-07" },
		{ 1000, "1e-06" },
		{ 1024, "1.024e-06" },		/* bucket 0's le */
		{ 16384, "1.6384e-05" },	/* the last exponent below -4 */
		{ 100000, "0.0001" },
		{ 131072, "0.000131072" },
		{ 1000000000, "1" },
		{ 1073741824, "1.073741824" },
		{ 1099511627776ULL, "1099.511627776" },	/* bucket 30's */
		{ 100000000000000ULL, "100000" },
		{ 1000000000000000ULL, "1e+06" },
		{ 123456789012345ULL, "123456.789012345" },
		{ 18446744073709551615ULL, "1.8446744073709551615e+10" },
	};
	char name[64];
	size_t i;

	for (i = 0; i < ARRAY_LEN(t); i++) {
		snprintf(name, sizeof(name), "prom: %llu ns as seconds",
			 t[i].ns);
		same(name, seconds_of(t[i].ns), t[i].want);
	}
}

static void test_prom_value(void)
{
	char *m = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&m, &n);

	if (!f)
		return;
	prom__value(f, "a\"b\\c\n\x1b\x7f\xc3\xa9 z{}=,", SIZE_MAX);
	putc('|', f);
	/* a comm of 16 bytes, no NUL: no more than 16 */
	prom__value(f, "0123456789abcdefXYZ", 16);
	fclose(f);
	same("prom: a label value escaped, bounded", m,
	     "a\\\"b\\\\x5cc\\\\x0a\\\\x1b\\\\x7f\\\\xc3\\\\xa9 z{}=,|0123456789abcdef");
	free(m);
}

#define PROM_BOOKS \
	"# HELP kptrace_syscall_seen_total Calls the probe saw: " \
	"those its handler saw, and those it missed.\n" \
	"# TYPE kptrace_syscall_seen_total counter\n" \
	"kptrace_syscall_seen_total 32\n" \
	"# HELP kptrace_syscall_filtered_total " \
	"Calls its handler saw that the selection left out.\n" \
	"# TYPE kptrace_syscall_filtered_total counter\n" \
	"kptrace_syscall_filtered_total 5\n" \
	"# HELP kptrace_syscall_recorded_total Selected calls the probe kept: " \
	"counted in its tables (-s), recorded (-S).\n" \
	"# TYPE kptrace_syscall_recorded_total counter\n" \
	"kptrace_syscall_recorded_total 20\n" \
	"# HELP kptrace_syscall_lost_total Selected calls lost, by cause.\n" \
	"# TYPE kptrace_syscall_lost_total counter\n" \
	"kptrace_syscall_lost_total{cause=\"full\"} 0\n" \
	"kptrace_syscall_lost_total{cause=\"overwritten\"} 0\n" \
	"kptrace_syscall_lost_total{cause=\"nested\"} 1\n" \
	"kptrace_syscall_lost_total{cause=\"too_big\"} 0\n" \
	"# HELP kptrace_syscall_table_full_total Selected calls not counted: " \
	"their CPU's summary table had no room.\n" \
	"# TYPE kptrace_syscall_table_full_total counter\n" \
	"kptrace_syscall_table_full_total 2\n" \
	"# HELP kptrace_syscall_missed_total Calls missed: " \
	"no kretprobe instance free (return), or by the kprobe (kprobe).\n" \
	"# TYPE kptrace_syscall_missed_total counter\n" \
	"kptrace_syscall_missed_total{cause=\"return\"} 1\n" \
	"kptrace_syscall_missed_total{cause=\"kprobe\"} 4\n"

#define PROM_CALLS_HEAD \
	"# HELP kptrace_syscall_calls_total System calls (exit and exit_group at their entry).\n" \
	"# TYPE kptrace_syscall_calls_total counter\n"
#define PROM_ERRORS_HEAD \
	"# HELP kptrace_syscall_errors_total System calls that returned an error (-4095..-1).\n" \
	"# TYPE kptrace_syscall_errors_total counter\n"
#define PROM_LAT_HEAD \
	"# HELP kptrace_syscall_latency_seconds Time from a call's entry to " \
	"its return (exit and exit_group: 0), log2 buckets.\n" \
	"# TYPE kptrace_syscall_latency_seconds histogram\n"
#define PROM_L(labels, rest) \
	"kptrace_syscall_latency_seconds_" labels rest "\n"

/*
 * sum_set by comm, worked by hand from its entries' calls: read 5 calls
 * of 500, 1000, 1500, 2000, 3000 ns, cumulative 2 under 1024, 4 under
 * 2048, 5 under 4096; openat 7 (1000 x2, 2000 x2, 3000 x2, 5000);
 * execve 200000 ns, under 2^18; nanosleep 4 s and 6 s, under 2^32 and
 * 2^33 ns.
 */
static const char prom_set[] =
	PROM_CALLS_HEAD
	"kptrace_syscall_calls_total{syscall=\"openat\",pid=\"99\",comm=\"c\\\\x5cat\\\\x1b[2J\",cgroup=\"/sys/fs/cgroup/a\\\"b\"} 7\n"
	"kptrace_syscall_calls_total{syscall=\"execve\",pid=\"99\",comm=\"sh\",cgroup=\"/sys/fs/cgroup/a\\\"b\"} 1\n"
	"kptrace_syscall_calls_total{syscall=\"read\",pid=\"1234\",comm=\"dd\",cgroup=\"/sys/fs/cgroup/a\\\"b\"} 5\n"
	"kptrace_syscall_calls_total{syscall=\"write\",pid=\"1234\",comm=\"dd\",cgroup=\"/sys/fs/cgroup/a\\\"b\"} 4\n"
	"kptrace_syscall_calls_total{syscall=\"nanosleep\",pid=\"1234\",comm=\"dd\",cgroup=\"/sys/fs/cgroup/a\\\"b\"} 2\n"
	"kptrace_syscall_calls_total{syscall=\"exit_group\",pid=\"1234\",comm=\"dd\",cgroup=\"/sys/fs/cgroup/a\\\"b\"} 1\n"
	PROM_ERRORS_HEAD
	"kptrace_syscall_errors_total{syscall=\"openat\",pid=\"99\",comm=\"c\\\\x5cat\\\\x1b[2J\",cgroup=\"/sys/fs/cgroup/a\\\"b\"} 3\n"
	"kptrace_syscall_errors_total{syscall=\"execve\",pid=\"99\",comm=\"sh\",cgroup=\"/sys/fs/cgroup/a\\\"b\"} 0\n"
	"kptrace_syscall_errors_total{syscall=\"read\",pid=\"1234\",comm=\"dd\",cgroup=\"/sys/fs/cgroup/a\\\"b\"} 0\n"
	"kptrace_syscall_errors_total{syscall=\"write\",pid=\"1234\",comm=\"dd\",cgroup=\"/sys/fs/cgroup/a\\\"b\"} 1\n"
	"kptrace_syscall_errors_total{syscall=\"nanosleep\",pid=\"1234\",comm=\"dd\",cgroup=\"/sys/fs/cgroup/a\\\"b\"} 0\n"
	"kptrace_syscall_errors_total{syscall=\"exit_group\",pid=\"1234\",comm=\"dd\",cgroup=\"/sys/fs/cgroup/a\\\"b\"} 0\n"
	PROM_LAT_HEAD
#define CG ",cgroup=\"/sys/fs/cgroup/a\\\"b\""
#define OPENAT "{syscall=\"openat\",pid=\"99\",comm=\"c\\\\x5cat\\\\x1b[2J\"" CG
	PROM_L("bucket", OPENAT ",le=\"1.024e-06\"} 2")
	PROM_L("bucket", OPENAT ",le=\"2.048e-06\"} 4")
	PROM_L("bucket", OPENAT ",le=\"4.096e-06\"} 6")
	PROM_L("bucket", OPENAT ",le=\"8.192e-06\"} 7")
	PROM_L("bucket", OPENAT ",le=\"+Inf\"} 7")
	PROM_L("sum", OPENAT "} 1.7e-05")
	PROM_L("count", OPENAT "} 7")
#define EXECVE "{syscall=\"execve\",pid=\"99\",comm=\"sh\"" CG
	PROM_L("bucket", EXECVE ",le=\"0.000262144\"} 1")
	PROM_L("bucket", EXECVE ",le=\"+Inf\"} 1")
	PROM_L("sum", EXECVE "} 0.0002")
	PROM_L("count", EXECVE "} 1")
#define READ "{syscall=\"read\",pid=\"1234\",comm=\"dd\"" CG
	PROM_L("bucket", READ ",le=\"1.024e-06\"} 2")
	PROM_L("bucket", READ ",le=\"2.048e-06\"} 4")
	PROM_L("bucket", READ ",le=\"4.096e-06\"} 5")
	PROM_L("bucket", READ ",le=\"+Inf\"} 5")
	PROM_L("sum", READ "} 8e-06")
	PROM_L("count", READ "} 5")
#define WRITE "{syscall=\"write\",pid=\"1234\",comm=\"dd\"" CG
	PROM_L("bucket", WRITE ",le=\"1.024e-06\"} 1")
	PROM_L("bucket", WRITE ",le=\"4.096e-06\"} 2")
	PROM_L("bucket", WRITE ",le=\"8.192e-06\"} 3")
	PROM_L("bucket", WRITE ",le=\"1.6384e-05\"} 4")
	PROM_L("bucket", WRITE ",le=\"+Inf\"} 4")
	PROM_L("sum", WRITE "} 2e-05")
	PROM_L("count", WRITE "} 4")
#define NANOSLEEP "{syscall=\"nanosleep\",pid=\"1234\",comm=\"dd\"" CG
	PROM_L("bucket", NANOSLEEP ",le=\"4.294967296\"} 1")
	PROM_L("bucket", NANOSLEEP ",le=\"8.589934592\"} 2")
	PROM_L("bucket", NANOSLEEP ",le=\"+Inf\"} 2")
	PROM_L("sum", NANOSLEEP "} 10")
	PROM_L("count", NANOSLEEP "} 2")
#define EXIT_GROUP "{syscall=\"exit_group\",pid=\"1234\",comm=\"dd\"" CG
	PROM_L("bucket", EXIT_GROUP ",le=\"1.024e-06\"} 1")
	PROM_L("bucket", EXIT_GROUP ",le=\"+Inf\"} 1")
	PROM_L("sum", EXIT_GROUP "} 0")
	PROM_L("count", EXIT_GROUP "} 1");

static void test_prom(void)
{
	struct pstats_probe ps = {
		.calls = 27, .filtered = 5, .recorded = 20, .summary_full = 2,
		.maxactive_missed = 1, .missed = 4,
	};
	/* pid 99 after an exec: its openat under its new comm */
	struct kpt_syssum_entry later = {
		.pid = 99, .nr = 257, .comm = "cat", .calls = 2, .errors = 2,
		.total_ns = 3000, .min_ns = 1000, .max_ns = 2000,
		.sumsq_ns = { 5000000 }, .lat_log2 = { 1, 1 },
	};
	struct sys_sum *s = sys_sum__new_by_comm();
	struct syscall_call c = { .comm = "echo", .pid = 9 };
	/* a bucket's upper bound is in it, as le says */
	static const __u64 durs[] = {
		0, 1023, 1024, 1025, 2048, 2049, 1ULL << 40, (1ULL << 40) + 1,
		1ULL << 50,
	};
	const char *t;
	size_t i;

	if (!s)
		return;
	same("prom: no rows, no books: nothing", prom_of(s, NULL, NULL), "");
	ps.lost[KPT_LOST_NESTED] = 1;
	same("prom: the books alone", prom_of(s, NULL, &ps), PROM_BOOKS);
	sum_add_set(s);
	same("prom: the rows of sum_set by comm, buckets cumulative, the cgroup label",
	     prom_of(s, "/sys/fs/cgroup/a\"b", NULL), prom_set);

	/* a second read adds up: counters of the whole run */
	sum_add_set(s);
	t = prom_of(s, NULL, NULL);
	result(strstr(t, "\nkptrace_syscall_calls_total"
		      "{syscall=\"read\",pid=\"1234\",comm=\"dd\"} 10\n") &&
	       strstr(t, "\nkptrace_syscall_latency_seconds_bucket"
		      "{syscall=\"write\",pid=\"1234\",comm=\"dd\",le=\"1.6384e-05\"} 8\n") &&
	       strstr(t, "\nkptrace_syscall_latency_seconds_sum"
		      "{syscall=\"nanosleep\",pid=\"1234\",comm=\"dd\"} 20\n"),
	       "prom: two reads added up", "%s", t);

	/* another comm of the same (pid, call): a row of its own */
	sys_sum__next(s);
	sys_sum__add(s, &later);
	t = prom_of(s, NULL, NULL);
	result(strstr(t, "\nkptrace_syscall_calls_total"
		      "{syscall=\"openat\",pid=\"99\",comm=\"c\\\\x5cat\\\\x1b[2J\"} 14\n"
		      "kptrace_syscall_calls_total"
		      "{syscall=\"openat\",pid=\"99\",comm=\"cat\"} 2\n") &&
	       strstr(t, "\nkptrace_syscall_latency_seconds_bucket"
		      "{syscall=\"openat\",pid=\"99\",comm=\"cat\",le=\"2.048e-06\"} 2\n"),
	       "prom: a new comm, a new row; the old one kept", "%s", t);

	/* records (-S): the module's buckets, the last open-ended */
	sys_sum__clear(s);
	for (i = 0; i < ARRAY_LEN(durs); i++) {
		c.dur_ns = durs[i];
		sys_sum__add_call(s, &c, 0);
	}
	same("prom: records: 0 and each le in its bucket, over 2^40 ns in +Inf only",
	     prom_of(s, NULL, NULL),
	     PROM_CALLS_HEAD
	     "kptrace_syscall_calls_total{syscall=\"read\",pid=\"9\",comm=\"echo\"} 9\n"
	     PROM_ERRORS_HEAD
	     "kptrace_syscall_errors_total{syscall=\"read\",pid=\"9\",comm=\"echo\"} 0\n"
	     PROM_LAT_HEAD
	     PROM_L("bucket", "{syscall=\"read\",pid=\"9\",comm=\"echo\",le=\"1.024e-06\"} 3")
	     PROM_L("bucket", "{syscall=\"read\",pid=\"9\",comm=\"echo\",le=\"2.048e-06\"} 5")
	     PROM_L("bucket", "{syscall=\"read\",pid=\"9\",comm=\"echo\",le=\"4.096e-06\"} 6")
	     PROM_L("bucket", "{syscall=\"read\",pid=\"9\",comm=\"echo\",le=\"1099.511627776\"} 7")
	     PROM_L("bucket", "{syscall=\"read\",pid=\"9\",comm=\"echo\",le=\"+Inf\"} 9")
	     PROM_L("sum", "{syscall=\"read\",pid=\"9\",comm=\"echo\"} 1.128098930105346e+06")
	     PROM_L("count", "{syscall=\"read\",pid=\"9\",comm=\"echo\"} 9"));
	sys_sum__free(s);
}

static void test_event_names(void)
{
	same("event name of 4 (sys_newstat)", syscalls__event_name(4),
	     "newstat");
	same("event name of 166 (sys_umount)", syscalls__event_name(166),
	     "umount");
	same("event name of 257", syscalls__event_name(257), "openat");
	same("event name of 400: none", syscalls__event_name(400), NULL);
}

/* --- strace's spellings: classes, signals, exits, 32-bit, seccomp, -y --- */

/* A format of @fields ("unsigned int fd;size_t count") as call @nr's */
static void set_format(unsigned int nr, const char *name, const char *fields)
{
	char text[2048], err[256];
	struct syscall_format fmt;
	const char *p = fields;
	int n, off = 16;
	size_t len;

	n = snprintf(text, sizeof(text),
		     "name: sys_enter_%s\nID: 1\nformat:\n"
		     "\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n",
		     name);
	while (*p) {
		len = strcspn(p, ";");
		n += snprintf(text + n, sizeof(text) - n,
			      "\tfield:%.*s;\toffset:%d;\tsize:8;\tsigned:0;\n",
			      (int)len, p, off);
		off += 8;
		p += len + (p[len] == ';');
	}
	if (syscalls__parse_format(text, &fmt, err, sizeof(err)) ||
	    sys_formats__set(formats, nr, &fmt))
		result(0, name, "%s", err);
}

/* strace's classes (src/linux/x86_64/syscallent.h, i386/syscallent.h) */
static void test_classes(void)
{
	static const struct {
		enum syscalls_abi abi;
		const char *call, *cls;
		bool in;
	} cases[] = {
		{ SYSCALLS_64, "open", "file", true },
		{ SYSCALLS_64, "open", "desc", true },
		{ SYSCALLS_64, "read", "file", false },
		{ SYSCALLS_64, "read", "desc", true },
		{ SYSCALLS_64, "stat", "file", true },
		{ SYSCALLS_64, "execve", "file", true },
		{ SYSCALLS_64, "execve", "process", true },
		{ SYSCALLS_64, "socket", "network", true },
		{ SYSCALLS_64, "socket", "net", true },
		{ SYSCALLS_64, "socket", "desc", false },
		{ SYSCALLS_64, "sendmsg", "network", true },
		{ SYSCALLS_64, "kill", "signal", true },
		{ SYSCALLS_64, "kill", "process", true },
		{ SYSCALLS_64, "rt_sigaction", "signal", true },
		{ SYSCALLS_64, "clone", "process", true },
		{ SYSCALLS_64, "exit_group", "process", true },
		{ SYSCALLS_64, "mmap", "memory", true },
		{ SYSCALLS_64, "mmap", "desc", true },
		{ SYSCALLS_64, "brk", "memory", true },
		{ SYSCALLS_64, "shmget", "ipc", true },
		{ SYSCALLS_64, "semop", "ipc", true },
		{ SYSCALLS_64, "getpid", "process", false },
		{ SYSCALLS_64, "openat2", "file", true },
		{ SYSCALLS_64, "pidfd_send_signal", "signal", true },
		{ SYSCALLS_32, "open", "file", true },
		/* strace's own choice: %desc, not %network */
		{ SYSCALLS_32, "socketcall", "network", false },
		{ SYSCALLS_32, "socketcall", "desc", true },
		{ SYSCALLS_32, "ipc", "ipc", true },
		{ SYSCALLS_32, "mmap2", "memory", true },
		{ SYSCALLS_32, "sigreturn", "signal", true },
	};
	static const char * const abi_names[] = { "", "i386 " };
	static const char * const is_names[] = { "is not", "is" };
	char name[128];
	size_t i;
	int nr;

	for (i = 0; i < ARRAY_LEN(cases); i++) {
		nr = syscalls__nr(cases[i].abi, cases[i].call);
		snprintf(name, sizeof(name), "class: %s%s %s in %%%s",
			 abi_names[cases[i].abi == SYSCALLS_32],
			 cases[i].call, is_names[cases[i].in], cases[i].cls);
		result(nr >= 0 && syscalls__in_class(cases[i].abi,
						     (unsigned int)nr,
						     cases[i].cls) == cases[i].in,
		       name, "nr %d", nr);
	}
}

/* -e with classes, trace=, both ABIs: the spec line */
static void test_spec_strace(void)
{
	bool *nr = calloc(syscalls__count(SYSCALLS_64), sizeof(bool));
	bool *nr32 = calloc(syscalls__count(SYSCALLS_32), sizeof(bool));
	struct sys_sel sel = { .pid = { 7 }, .npid = 1 };
	char err[256];
	int n;

	if (!nr || !nr32)
		return;
	n = syscalls__select_both("open", nr, &sel.nr_rest, nr32,
				  &sel.nr32_rest, err, sizeof(err));
	sel.nr = nr;
	sel.nr32 = nr32;
	sel.signals = true;
	sel.denied = true;
	result(n == 2, "-e open: open of both ABIs", "%d", n);
	same("spec: -e open: nr=2 nr32=5, signals, denied", spec_of(&sel, 9),
	     "s:kptrace/sys_9 pid=7 nr=2 nr32=5 signals denied");
	n = syscalls__select_both("newfstatat,socketcall", nr, &sel.nr_rest,
				  nr32, &sel.nr32_rest, err, sizeof(err));
	same("spec: a name of one ABI only", spec_of(&sel, 9),
	     "s:kptrace/sys_9 pid=7 nr=262 nr32=102 signals denied");
	n = syscalls__select_both("%ipc,!shm*", nr, &sel.nr_rest, nr32,
				  &sel.nr32_rest, err, sizeof(err));
	/* strace puts mq_* in %desc, not %ipc */
	same("spec: %ipc less shm*", spec_of(&sel, 9),
	     "s:kptrace/sys_9 pid=7 nr=64-66,68-71,220 nr32=117,393-394,399-402,420 signals denied");
	n = syscalls__select_both("nosuch", nr, &sel.nr_rest, nr32,
				  &sel.nr32_rest, err, sizeof(err));
	same("-e nosuch: an error", n < 0 ? err : "no error",
	     "no system call matches 'nosuch'");
	n = syscalls__select_both("%bogus", nr, &sel.nr_rest, nr32,
				  &sel.nr32_rest, err, sizeof(err));
	same("-e %bogus: an error", n < 0 ? err : "no error",
	     "no class '%bogus' (%desc %file %ipc %net %network %process %signal %memory)");
	free(nr);
	free(nr32);
}

/* An entry record of the probe's signals: KPT_SYS_EV_SIGNAL, _EXIT */
static const struct kpt_event *make_event(__u64 kind, const __u64 *a,
					  const char *comm, __u32 pid,
					  __u32 tid, __u64 ts)
{
	struct rec r = {
		.entry = true, .ts = ts, .comm = comm, .pid = pid, .tid = tid,
		.nr = kind,
	};

	memcpy(r.regs, a, sizeof(r.regs));
	return make(&r);
}

static const char *print_event(__u64 kind, const __u64 *a, bool json)
{
	static char out[1024];

	printer_start(json, formats);
	printer.have_base = true;
	printer.base_ns = 1000000000;
	sys_printer__record(make_event(kind, a, "sh", 300, 301, 1002500000),
			    &printer);
	snprintf(out, sizeof(out), "%s", printer_text());
	if (!json && out[0])
		out[strlen(out) - 1] = '\0';
	printer_end();
	return out;
}

static void test_signals(void)
{
	const __u64 segv[6] = { 11, 1, 0, 0x10, 0, KPT_SYS_SIG_DEFAULT };
	const __u64 term[6] = { 15, 0, 0, 42 | (1000ULL << 32), 0,
				KPT_SYS_SIG_HANDLER };
	const __u64 chld[6] = { 17, 1, 0, 302, 3, KPT_SYS_SIG_IGNORED };
	const __u64 intr[6] = { 2, 0x80, 0, 0, 0, KPT_SYS_SIG_DEFAULT };
	const __u64 killed[6] = { 11 | 0x80, 1, 1 };
	const __u64 exited[6] = { 3 << 8, 1, 1 };
	const __u64 thread[6] = { 0, 0, 1 };

	same("signal: SIGSEGV, a fault's address",
	     print_event(KPT_SYS_EV_SIGNAL, segv, false),
	     "2.500 (          ): sh/301 --- SIGSEGV {si_signo=SIGSEGV, si_code=SEGV_MAPERR, si_addr=0x10} ---");
	same("signal json: SIGSEGV",
	     print_event(KPT_SYS_EV_SIGNAL, segv, true),
	     "{\"type\":\"signal\",\"ts\":2500000,\"comm\":\"sh\",\"pid\":300,\"tid\":301,\"signal\":\"SIGSEGV\",\"signo\":11,\"code\":\"SEGV_MAPERR\",\"si_code\":1,\"errno\":0,\"addr\":16,\"action\":\"default\"}\n");
	same("signal: SIGTERM sent by a process",
	     print_event(KPT_SYS_EV_SIGNAL, term, false),
	     "2.500 (          ): sh/301 --- SIGTERM {si_signo=SIGTERM, si_code=SI_USER, si_pid=42, si_uid=1000} ---");
	same("signal json: SIGTERM sent by a process",
	     print_event(KPT_SYS_EV_SIGNAL, term, true),
	     "{\"type\":\"signal\",\"ts\":2500000,\"comm\":\"sh\",\"pid\":300,\"tid\":301,\"signal\":\"SIGTERM\",\"signo\":15,\"code\":\"SI_USER\",\"si_code\":0,\"errno\":0,\"sender_pid\":42,\"sender_uid\":1000,\"action\":\"handler\"}\n");
	same("signal: SIGCHLD, a child exited",
	     print_event(KPT_SYS_EV_SIGNAL, chld, false),
	     "2.500 (          ): sh/301 --- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=302, si_uid=0, si_status=3} ---");
	same("signal: SIGINT from the kernel",
	     print_event(KPT_SYS_EV_SIGNAL, intr, false),
	     "2.500 (          ): sh/301 --- SIGINT {si_signo=SIGINT, si_code=SI_KERNEL} ---");
	same("exit: killed by SIGSEGV, core dumped",
	     print_event(KPT_SYS_EV_EXIT, killed, false),
	     "2.500 (          ): sh/301 +++ killed by SIGSEGV (core dumped) +++");
	same("exit json: killed by SIGSEGV",
	     print_event(KPT_SYS_EV_EXIT, killed, true),
	     "{\"type\":\"exit\",\"ts\":2500000,\"comm\":\"sh\",\"pid\":300,\"tid\":301,\"status\":139,\"exited\":null,\"signal\":\"SIGSEGV\",\"core_dumped\":true,\"last\":true,\"group\":true}\n");
	same("exit: exited with 3",
	     print_event(KPT_SYS_EV_EXIT, exited, false),
	     "2.500 (          ): sh/301 +++ exited with 3 +++");
	same("exit: a thread that is not the last: no line",
	     print_event(KPT_SYS_EV_EXIT, thread, false), "");
	same("exit json: a thread that is not the last",
	     print_event(KPT_SYS_EV_EXIT, thread, true),
	     "{\"type\":\"exit\",\"ts\":2500000,\"comm\":\"sh\",\"pid\":300,\"tid\":301,\"status\":0,\"exited\":0,\"signal\":null,\"core_dumped\":false,\"last\":false,\"group\":true}\n");
}

/* 32-bit calls (i386 numbers and names) and calls seccomp denied */
static void test_compat_denied(void)
{
	struct rec r = {
		.ts = 1000012345, .entry_ts = 1000000000, .lat = 12345,
		.ret = 3, .comm = "a32", .pid = 400, .tid = 400, .nr = 5,
		.regs = { 0x8049000, 0, 0 },
		.str = { { 1, "/etc/hostname", 13, KPT_STR_USER } },
	};
	const struct kpt_event *e;
	char *out;

	printer_start(false, no_formats);
	printer.have_base = true;
	printer.base_ns = 1000000000;
	e = make(&r);
	((struct kpt_event *)e)->flags |= KPT_F_SYS_COMPAT;
	sys_printer__record(e, &printer);
	same("line: a 32-bit open: i386's name, (32-bit)", printer_text(),
	     "0.000 ( 0.012 ms): a32/400 open(arg0: \"/etc/hostname\", arg1: 0x0, arg2: 0x0, arg3: 0x0, arg4: 0x0, arg5: 0x0) = 3 (32-bit)\n");
	printer_end();
	printer_start(true, no_formats);
	printer.have_base = true;
	printer.base_ns = 1000000000;
	r.nr = 20;	/* i386 getpid */
	r.str[0] = (struct rstr){ 0 };
	r.ret = -1;
	r.lat = 0;
	e = make(&r);
	((struct kpt_event *)e)->flags |= KPT_F_SYS_COMPAT | KPT_F_SYS_DENIED;
	sys_printer__record(e, &printer);
	out = strstr(printer_text(), "\"syscall\":\"getpid\"");
	result(out &&
	       strstr(out,
		      ",\"compat\":true,\"denied\":true,\"ret\":-1,\"errno\":\"EPERM\"}"),
	       "json: a denied 32-bit getpid: compat, denied", "%s",
	       printer_text());
	printer_end();
	r.nr = 110;	/* x86-64 getppid */
	r.ret = -1;
	printer_start(false, no_formats);
	printer.have_base = true;
	printer.base_ns = 1000000000;
	e = make(&r);
	((struct kpt_event *)e)->flags |= KPT_F_SYS_DENIED;
	sys_printer__record(e, &printer);
	same("line: a denied getppid: EPERM, (seccomp)", printer_text(),
	     "0.000 ( 0.000 ms): a32/400 getppid(arg0: 0x8049000, arg1: 0x0, arg2: 0x0, arg3: 0x0, arg4: 0x0, arg5: 0x0) = -1 EPERM (Operation not permitted) (seccomp)\n");
	printer_end();
}

/* -y: a crafted trace of one process, its fd table kept from it */
static void test_fds(void)
{
	struct rec r = {
		.entry_ts = 1000000000, .lat = 1000, .comm = "cat",
		.pid = 500, .tid = 500,
	};
	struct sys_fds *fds = sys_fds__new(NULL);
	static const char want[] =
		"0.000 ( 0.001 ms): cat/500 openat(dfd: CWD, filename: \"/etc/hostname\", flags: RDONLY|CLOEXEC) = 3</etc/hostname>\n"
		"0.000 ( 0.001 ms): cat/500 read(fd: 3</etc/hostname>, buf: 0x1000, count: 4096) = 5\n"
		"0.000 ( 0.001 ms): cat/500 dup2(oldfd: 3</etc/hostname>, newfd: 7) = 7</etc/hostname>\n"
		"0.000 ( 0.001 ms): cat/500 close(fd: 3</etc/hostname>) = 0\n"
		"0.000 ( 0.001 ms): cat/500 read(fd: 3, buf: 0x1000, count: 4096) = -1 EBADF (Bad file descriptor)\n"
		"0.000 ( 0.001 ms): cat/500 write(fd: 7</etc/hostname>, buf: 0x1000, count: 5) = 5\n"
		"0.000 ( 0.001 ms): cat/500 socket(family: 2, type: 526337, protocol: 0) = 4<socket:>\n"
		"0.000 ( 0.001 ms): cat/500 read(fd: 4<socket:>, buf: 0x1000, count: 4096) = 0\n"
		"0.000 ( 0.001 ms): cat/500 execve(filename: \"/bin/true\", argv: NULL, envp: NULL) = 0\n"
		"0.000 ( 0.001 ms): cat/500 read(fd: 4, buf: 0x1000, count: 4096) = -1 EBADF (Bad file descriptor)\n"
		"0.000 ( 0.001 ms): cat/500 read(fd: 7</etc/hostname>, buf: 0x1000, count: 4096) = 0\n"
		;

	if (!fds)
		return;
	set_format(0, "read", "unsigned int fd;char * buf;size_t count");
	set_format(3, "close", "unsigned int fd");
	set_format(33, "dup2", "unsigned int oldfd;unsigned int newfd");
	set_format(41, "socket", "int family;int type;int protocol");
	printer_start(false, formats);
	printer.have_base = true;
	printer.base_ns = 1000000000;
	printer.fds = fds;
#define CALL(n, a, b, c, rv) do { \
		r.nr = (n); r.regs[0] = (a); r.regs[1] = (b); \
		r.regs[2] = (c); r.ret = (rv); \
		sys_printer__record(make(&r), &printer); \
	} while (0)
	r.str[0] = (struct rstr){ 2, "/etc/hostname", 13, KPT_STR_USER, 0 };
	CALL(257, 0xffffff9c, 0x7ffc0000, 0x80000, 3);
	r.str[0] = (struct rstr){ 0 };
	CALL(0, 3, 0x1000, 4096, 5);
	CALL(33, 3, 7, 0, 7);
	CALL(3, 3, 0, 0, 0);
	CALL(0, 3, 0x1000, 4096, -9);
	CALL(1, 7, 0x1000, 5, 5);
	/* SOCK_STREAM | SOCK_CLOEXEC: gone at the execve */
	CALL(41, 2, 0x80801, 0, 4);
	CALL(0, 4, 0x1000, 4096, 0);
	r.str[0] = (struct rstr){ 1, "/bin/true", 9, KPT_STR_USER, 0 };
	CALL(59, 0x2000, 0, 0, 0);
	r.str[0] = (struct rstr){ 0 };
	CALL(0, 4, 0x1000, 4096, -9);
	CALL(0, 7, 0x1000, 4096, 0);
	same("-y: a trace's fds with their paths, dup2, close, exec's CLOEXEC",
	     printer_text(), want);
	printer_end();
	printer_start(true, formats);
	printer.fds = fds;
	CALL(0, 7, 0x1000, 4096, 0);
	result(!!strstr(printer_text(),
			",\"fds\":{\"fd\":\"/etc/hostname\"},\"ret\":0}"),
	       "-y json: \"fds\":{\"fd\":PATH}", "%s", printer_text());
	printer_end();
	/* the process ended: its table goes */
	sys_fds__forget(fds, 500);
	printer_start(false, formats);
	printer.fds = fds;
	CALL(0, 7, 0x1000, 4096, 0);
	result(!!strstr(printer_text(), "read(fd: 7, "),
	       "-y: a process's table goes at its end", "%s",
	       printer_text());
	printer_end();
#undef CALL
	sys_fds__free(fds);
}

/* -s, -S, --prometheus: a process's comm is its leader's */
static void test_leader_comm(void)
{
	struct rec r = {
		.entry_ts = 1000000000, .lat = 1000, .comm = "worker-1",
		.pid = 600, .tid = 601, .nr = 1, .ret = 1,
	};
	struct sys_comms *comms = sys_comms__new(NULL);
	struct sys_sum *s = sys_sum__new();
	struct sys_sum *by = sys_sum__new_by_comm();
	struct kpt_syssum_entry e = { .pid = 700, .nr = 0, .calls = 2 };
	const char *text;

	if (!comms || !s || !by)
		return;
	sys_sum__set_comms(s, comms);
	sys_sum__set_comms(by, comms);
	printer_start(false, formats);
	printer.sum = s;
	printer.by_comm = by;
	printer.no_lines = true;
	sys_printer__record(make(&r), &printer);	/* a thread's first */
	r.tid = 600;
	r.comm = "server";
	sys_printer__record(make(&r), &printer);	/* the leader's */
	r.tid = 602;
	r.comm = "worker-2";
	sys_printer__record(make(&r), &printer);
	printer_end();
	text = sum_text(s, false, "Summary of events", -1);
	result(strstr(text, " server (600), 3 events") && !strstr(text, "worker"),
	       "-S: one process, its leader's comm", "%s", text);
	text = prom_of(by, NULL, NULL);
	result(strstr(text, "kptrace_syscall_calls_total{syscall=\"write\",") &&
	       strstr(text, ",pid=\"600\",comm=\"server\"} 2") &&
	       strstr(text, "comm=\"worker-1\"} 1"),
	       "--prometheus: the leader's comm once it is known", "%s", text);
	/* -s: an entry of a thread, the leader known from no record */
	memcpy(e.comm, "pool-3", 7);
	sys_sum__add(s, &e);
	text = sum_text(s, false, "Summary of events", -1);
	result(!!strstr(text, " pool-3 (700)"),
	       "-s: a process whose leader is not known: the thread's comm",
	       "%s", text);
	sys_sum__free(s);
	sys_sum__free(by);
	sys_comms__free(comms);
}

/* Calls in progress: /proc's syscall file, and a fake /proc */
static void write_file(const char *dir, const char *name, const char *text)
{
	char path[1024];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/*
 * The return of a call shown in progress at 5 s: "<... read resumed>";
 * an earlier call of the task leaves it waiting, a later one is itself
 */
static void test_resumed(const char *root, const struct sys_pending_sel *sel)
{
	struct rec r = {
		.ts = 4900000000ULL, .entry_ts = 4800000000ULL, .lat = 1000,
		.ret = 2, .comm = "sleep", .pid = 800, .tid = 800, .nr = 1,
		.regs = { 1, 0x2000, 2 },
	};
	const __u64 term[6] = { 15, 0, 0, 42 | (1000ULL << 32), 0,
				KPT_SYS_SIG_HANDLER };
	const char *text, *ended;

	write_file(root, "800/task/800/syscall",
		   "0 0x3 0x1000 0x1 0x0 0x0 0x0 0x7ffd0ff8 0x7f00dead\n");
	printer_start(false, formats);
	printer.have_base = true;
	sys_pending__show(&printer, sel, 5000000000ULL);
	sys_printer__record(make(&r), &printer);	/* write, earlier */
	r.nr = 0;
	r.ts = 6000000000ULL;
	r.entry_ts = 2000000000ULL;
	r.lat = 4000000000ULL;
	r.regs[0] = 3;
	r.regs[1] = 0x1000;
	r.regs[2] = 1;
	r.ret = 1;
	sys_printer__record(make(&r), &printer);	/* the read, resumed */
	r.entry_ts = 6500000000ULL;
	r.ts = 6500001000ULL;
	r.lat = 1000;
	sys_printer__record(make(&r), &printer);	/* the next read */
	same("pending: its return resumed, an earlier call and a later one as they are",
	     printer_text(),
	     "5000.000 (     ? ms): sleep/800 read(fd: 3, buf: 0x1000, count: 1) <unfinished ...>\n"
	     "4800.000 ( 0.001 ms): sleep/800 write(fd: 1, buf: 0x2000, count: 2) = 2\n"
	     "2000.000 (4000.000 ms): sleep/800 <... read resumed>(fd: 3, buf: 0x1000, count: 1) = 1\n"
	     "6500.000 ( 0.001 ms): sleep/800 read(fd: 3, buf: 0x1000, count: 1) = 1\n");
	result(printer.npending == 0, "pending: none kept after the return",
	       "%zu", printer.npending);
	printer_end();
	printer_start(true, formats);
	printer.have_base = true;
	sys_pending__show(&printer, sel, 5000000000ULL);
	r.entry_ts = 2000000000ULL;
	sys_printer__record(make(&r), &printer);
	result(!!strstr(printer_text(),
			"\"args\":{\"fd\":3,\"buf\":4096,\"count\":1},\"resumed\":true,\"ret\":1}"),
	       "pending json: \"resumed\":true", "%s", printer_text());
	printer_end();
	/* a call of the task entered after the snapshot: the shown one ended unseen */
	printer_start(false, formats);
	printer.have_base = true;
	sys_pending__show(&printer, sel, 5000000000ULL);
	r.nr = 1;
	r.entry_ts = 5500000000ULL;
	sys_printer__record(make(&r), &printer);
	r.nr = 0;
	r.entry_ts = 4000000000ULL;
	sys_printer__record(make(&r), &printer);
	same("pending: a later call of the task: the shown one ended unseen, then nothing resumed",
	     printer_text(),
	     "5000.000 (     ? ms): sleep/800 read(fd: 3, buf: 0x1000, count: 1) <unfinished ...>\n"
	     "5500.000 (     ? ms): sleep/800 <... read resumed>() = ?\n"
	     "5500.000 ( 0.001 ms): sleep/800 write(fd: 3, buf: 0x1000, count: 1) = 1\n"
	     "4000.000 ( 0.001 ms): sleep/800 read(fd: 3, buf: 0x1000, count: 1) = 1\n");
	result(printer.npending == 0, "pending: none kept after it ended",
	       "%zu", printer.npending);
	printer_end();
	printer_start(true, formats);
	printer.have_base = true;
	sys_pending__show(&printer, sel, 5000000000ULL);
	r.nr = 1;
	r.entry_ts = 5500000000ULL;
	sys_printer__record(make(&r), &printer);
	r.nr = 0;
	result(!!strstr(printer_text(),
			"{\"ts\":5500000000,\"dur_ns\":null,\"comm\":\"sleep\","
			"\"pid\":800,\"tid\":800,\"syscall\":\"read\","
			"\"args\":{},\"resumed\":true}\n"),
	       "pending json: ended unseen, \"dur_ns\":null and no \"ret\"", "%s",
	       printer_text());
	printer_end();
	/* a signal before the snapshot leaves it; one after it ends it first */
	printer_start(false, formats);
	printer.have_base = true;
	sys_pending__show(&printer, sel, 5000000000ULL);
	sys_printer__record(make_event(KPT_SYS_EV_SIGNAL, term, "sleep", 800,
				       800, 4000000000ULL), &printer);
	result(printer.npending == 1,
	       "pending: a signal before the snapshot: still in progress",
	       "%zu", printer.npending);
	sys_printer__record(make_event(KPT_SYS_EV_SIGNAL, term, "sleep", 800,
				       800, 6000000000ULL), &printer);
	text = printer_text();
	ended = strstr(text, "6000.000 (     ? ms): sleep/800 <... read resumed>() = ?\n");
	result(ended && strstr(ended, "--- SIGTERM ") && printer.npending == 0,
	       "pending: a signal after the snapshot: the call ended, then the signal",
	       "%s", text);
	printer_end();
}

static unsigned int fake_now_calls;

static __u64 fake_now(void *ctx)
{
	fake_now_calls++;
	return 5000000000ULL;
}

static void test_pending(void)
{
	__u64 a[7] = { 0 };
	const __u32 pid = 800;
	struct sys_pending_sel sel = { .pids = &pid, .npids = 1 };
	char root[512], cmd[3000];
	unsigned int n;

	result(sys_pending__parse("230 0x0 0x0 0x7ffd1000 0x7ffd1010 0x0 0x0 "
				  "0x7ffd0ff8 0x7f00dead\n", a) &&
	       a[0] == 230 && a[3] == 0x7ffd1000 && a[4] == 0x7ffd1010,
	       "pending: /proc's syscall: number and arguments", "%llu",
	       (unsigned long long)a[0]);
	result(!sys_pending__parse("running\n", a) &&
	       !sys_pending__parse("-1 0x7ffd0ff8 0x7f00dead\n", a),
	       "pending: running, or in no call: nothing", "");
	snprintf(root, sizeof(root), "%s/proc", work_dir);
	snprintf(cmd, sizeof(cmd),
		 "rm -rf %s && mkdir -p %s/self %s/800/task/800 %s/800/task/801 %s/801",
		 root, root, root, root, root);
	if (system(cmd)) {
		result(0, "pending: a fake /proc", "%s", cmd);
		return;
	}
	write_file(root, "self/sched",
		   "sleep (1)\n---\nse.exec_start                                :        100500.250000\n");
	write_file(root, "800/stat", "800 (sleep) S 1 800 800 0 -1\n");
	write_file(root, "800/task/800/syscall",
		   "0 0x0 0x1000 0x20000 0x0 0x0 0x0 0x7ffd0ff8 0x7f00dead\n");
	write_file(root, "800/task/800/comm", "sleep\n");
	write_file(root, "800/task/800/sched",
		   "se.exec_start                                :        97500.000000\n");
	write_file(root, "800/task/801/syscall", "running\n");
	write_file(root, "800/task/801/comm", "sleep\n");
	sel.proc = root;
	set_format(0, "read", "unsigned int fd;char * buf;size_t count");
	printer_start(false, formats);
	n = sys_pending__show(&printer, &sel, 0);
	same("pending: a read blocked for 3 s: <unfinished ...>",
	     printer_text(),
	     "0.000 (3000.250 ms): sleep/800 read(fd: 0, buf: 0x1000, count: 131072) <unfinished ...>\n");
	result(n == 1 && printer.unfinished == 1, "pending: one call", "%u",
	       n);
	printer_end();
	write_file(root, "800/task/800/syscall",
		   "219 0x0 0x0 0x0 0x0 0x0 0x0 0x7ffd0ff8 0x7f00dead\n");
	write_file(root, "800/task/800/sched", "no such line\n");
	printer_start(true, formats);
	sys_pending__show(&printer, &sel, 0);
	result(!!strstr(printer_text(),
			"\"restart_syscall\",\"args\":{},\"unfinished\":true,\"blocked_ns\":null}"),
	       "pending json: restart_syscall, its time unknown", "%s",
	       printer_text());
	printer_end();
	printer_start(false, formats);
	sys_pending__show(&printer, &sel, 0);
	same("pending: restart_syscall as strace shows it", printer_text(),
	     "0.000 (     ? ms): sleep/800 restart_syscall(<... resuming interrupted call ...>) <unfinished ...>\n");
	printer_end();
	/* each task's snapshot timed by sel.now(), not by now_ns */
	sel.now = fake_now;
	fake_now_calls = 0;
	printer_start(false, formats);
	printer.have_base = true;
	sys_pending__show(&printer, &sel, 1);
	sys_printer__record(make(&(struct rec){
		.ts = 5200000000ULL, .entry_ts = 4800000000ULL, .lat = 400000000,
		.ret = 0, .comm = "sleep", .pid = 800, .tid = 800, .nr = 219,
	}), &printer);
	result(fake_now_calls == 1 && strstr(printer_text(), "<... restart_syscall resumed>"),
	       "pending: the snapshot's time asked per task, after its call is read",
	       "%u calls: %s", fake_now_calls, printer_text());
	printer_end();
	sel.now = NULL;
	test_resumed(root, &sel);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: test_syscalls_cmd DATA_DIR WORK_DIR\n");
		return 2;
	}
	data_dir = argv[1];
	work_dir = argv[2];
	setup_formats();
	test_lines();
	test_printer();
	test_spec();
	test_stack();
	test_listing();
	test_summary();
	test_sum();
	test_printer_sum();
	test_sum_saturate();
	test_sum_compat();
	test_sum_summary();
	test_prom_seconds();
	test_prom_value();
	test_prom();
	test_event_names();
	test_classes();
	test_spec_strace();
	test_signals();
	test_compat_denied();
	test_fds();
	test_leader_comm();
	test_pending();
	sys_formats__free(formats);
	sys_formats__free(no_formats);
	printf("%d passed, %d failed\n", nr - failed, failed);
	return failed ? 1 : 0;
}
