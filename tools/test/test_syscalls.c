// SPDX-License-Identifier: GPL-2.0
/*
 * test_syscalls: unit tests of the groundwork of `kptrace syscalls`, under
 * AddressSanitizer and UBSan: the generated names table (syscalls.c,
 * uapi/kptrace_syscalls.h), -e selections, the parser of tracefs'
 * sys_enter_NAME/format on the files of test/data/format-* (as tracefs
 * prints them, rebuilt from the SYSCALL_DEFINE signatures and
 * kernel/trace/trace_syscalls.c: the -6.19 ones with the __NAME_val fields
 * of kernels from 6.19), the decoders and whole lines and JSON objects
 * (syscall_fmt.c), with untrusted comms and strings escaped as the event
 * reader escapes them. Exact expected strings only.
 *
 *	test_syscalls DATA_DIR
 *
 * Prints "ok N" / "not ok N" lines, then "N passed, N failed"; exit status
 * 1 if any failed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event.h"
#include "syscall_fmt.h"
#include "syscalls.h"
#include "ktap.h"

#define ARRAY_LEN(a)	(sizeof(a) / sizeof((a)[0]))

static const char *data_dir;

/* @got must be @want, both strings (NULL allowed) */
static void same(const char *name, const char *got, const char *want)
{
	int ok = got && want ? !strcmp(got, want) : got == want;

	result(ok, name, "got '%s', expected '%s'", got ? got : "(null)",
	       want ? want : "(null)");
}

static void test_names(void)
{
	static const struct {
		enum syscalls_abi abi;
		unsigned int nr;
		const char *name;
	} t[] = {
		{ SYSCALLS_64, 0, "read" }, { SYSCALLS_64, 1, "write" },
		{ SYSCALLS_64, 2, "open" }, { SYSCALLS_64, 59, "execve" },
		{ SYSCALLS_64, 60, "exit" }, { SYSCALLS_64, 231, "exit_group" },
		{ SYSCALLS_64, 435, "clone3" }, { SYSCALLS_64, 257, "openat" },
		{ SYSCALLS_64, 471, "rseq_slice_yield" },
		{ SYSCALLS_64, 134, "uselib" },	/* no entry point: named */
		{ SYSCALLS_32, 11, "execve" }, { SYSCALLS_32, 1, "exit" },
		{ SYSCALLS_32, 102, "socketcall" },
		{ SYSCALLS_32, 471, "rseq_slice_yield" },
	};
	char buf[32], what[64];
	size_t i;

	for (i = 0; i < ARRAY_LEN(t); i++) {
		snprintf(what, sizeof(what), "name %s %u",
			 t[i].abi == SYSCALLS_64 ? "x86-64" : "i386", t[i].nr);
		same(what, syscalls__name(t[i].abi, t[i].nr), t[i].name);
		snprintf(what, sizeof(what), "nr of %s", t[i].name);
		result(syscalls__nr(t[i].abi, t[i].name) == (int)t[i].nr, what,
		       "got %d", syscalls__nr(t[i].abi, t[i].name));
	}
	same("name 9999: unknown", syscalls__name(SYSCALLS_64, 9999), NULL);
	same("name 9999: syscall_9999",
	     syscalls__name_fmt(SYSCALLS_64, 9999, buf, sizeof(buf)),
	     "syscall_9999");
	same("name_fmt of a known one",
	     syscalls__name_fmt(SYSCALLS_32, 11, buf, sizeof(buf)), "execve");
	/* the x32 ABI's numbers are not x86-64's */
	same("x32's 512 is left out", syscalls__name(SYSCALLS_64, 512), NULL);
	same("hole 400", syscalls__name(SYSCALLS_64, 400), NULL);
	result(syscalls__nr(SYSCALLS_64, "socketcall") == -1 &&
	       syscalls__nr(SYSCALLS_64, "nosuch") == -1 &&
	       syscalls__nr(SYSCALLS_64, "") == -1,
	       "nr of a name the ABI lacks: -1", "");
	result(syscalls__count(SYSCALLS_64) == 472 &&
	       syscalls__count(SYSCALLS_32) == 472, "counts: 472 and 472",
	       "got %u and %u", syscalls__count(SYSCALLS_64),
	       syscalls__count(SYSCALLS_32));
}

/* The names @list selects, joined by ',' in number order, or the error. */
static void select_str(enum syscalls_abi abi, const char *list, char *out,
		       size_t len)
{
	bool sel[1024];
	char err[128];
	unsigned int i;
	size_t pos = 0;
	int n;

	bool rest;

	n = syscalls__select(abi, list, sel, &rest, err, sizeof(err));
	if (n < 0) {
		snprintf(out, len, "error: %s", err);
		return;
	}
	out[0] = '\0';
	for (i = 0; i < syscalls__count(abi) && pos < len; i++)
		if (sel[i])
			pos += snprintf(out + pos, len - pos, "%s%s",
					pos ? "," : "",
					syscalls__name(abi, i));
}

static void test_select(void)
{
	static const struct {
		const char *list, *want;
	} t[] = {
		{ "open*,!openat2",
		  "open,openat,open_by_handle_at,open_tree,open_tree_attr" },
		{ "!openat2,open*",
		  "open,openat,open_by_handle_at,open_tree,open_tree_attr" },
		{ "read,write", "read,write" },
		{ "?ead", "read" },
		{ "*xattrat,!get*", "setxattrat,listxattrat,removexattrat" },
		{ "exit*", "exit,exit_group" },
		{ "read,nosuch", "error: no system call matches 'nosuch'" },
		{ "read,!nosuch*", "error: no system call matches 'nosuch*'" },
		{ "read,,write", "error: empty name in 'read,,write'" },
		{ "!", "error: empty name in '!'" },
		{ "", "error: empty name in ''" },
		{ "read,", "error: empty name in 'read,'" },
	};
	bool sel[1024];
	char got[512], err[128];
	unsigned int i, named = 0;
	bool rest;
	int n;

	for (i = 0; i < ARRAY_LEN(t); i++) {
		char what[80];

		snprintf(what, sizeof(what), "select '%s'", t[i].list);
		select_str(SYSCALLS_64, t[i].list, got, sizeof(got));
		same(what, got, t[i].want);
	}
	select_str(SYSCALLS_32, "execve,socketcall", got, sizeof(got));
	same("select i386 'execve,socketcall'", got, "execve,socketcall");
	select_str(SYSCALLS_32, "openat*", got, sizeof(got));
	same("select i386 'openat*'", got, "openat,openat2");

	/* only exclusions: every number but those, named or not */
	for (i = 0; i < syscalls__count(SYSCALLS_64); i++)
		named += !!syscalls__name(SYSCALLS_64, i);
	n = syscalls__select(SYSCALLS_64, "!read,!write", sel, &rest, err,
			     sizeof(err));
	result(n == (int)named - 2 && !sel[0] && !sel[1] && sel[2] &&
	       sel[471] && sel[400] && rest,
	       "select '!read,!write': all but two, unnamed ones too",
	       "got %d of %u named, rest %d", n, named, rest);
	n = syscalls__select(SYSCALLS_64, "!*", sel, &rest, err, sizeof(err));
	result(n == 0, "select '!*': no named call, so nothing",
	       "got %d", n);
	n = syscalls__select(SYSCALLS_64, "read,!write", sel, &rest, err,
			     sizeof(err));
	result(n == 1 && sel[0] && !sel[400] && !rest,
	       "select 'read,!write': a plain name selects no unnamed one",
	       "got %d, rest %d", n, rest);
}

/* "name:type:kind:bytes ..." of a parsed format */
static void format_str(const struct syscall_format *fmt, char *out,
		       size_t len)
{
	static const char * const kinds[] = {
		"signed", "unsigned", "hex", "ptr", "str",
	};
	unsigned int i;
	size_t pos;

	pos = snprintf(out, len, "%s:", fmt->name);
	for (i = 0; i < fmt->nr_args && pos < len; i++)
		pos += snprintf(out + pos, len - pos, " %s:%s:%s:%u",
				fmt->args[i].name, fmt->args[i].type,
				kinds[fmt->args[i].kind], fmt->args[i].bytes);
}

/* Parses the file @path, or @text: the arguments or "error: ..." */
static void check_format(const char *what, const char *path,
			 const char *text, const char *want)
{
	struct syscall_format fmt;
	char got[512], err[256], name[128];
	int ret;

	if (path)
		ret = syscalls__read_format(path, &fmt, err, sizeof(err));
	else
		ret = syscalls__parse_format(text, &fmt, err, sizeof(err));
	if (ret)
		snprintf(got, sizeof(got), "error: %s", err);
	else
		format_str(&fmt, got, sizeof(got));
	snprintf(name, sizeof(name), "format: %s", what);
	same(name, got, want);
}

static void test_format_files(void)
{
	static const struct {
		const char *file, *want;
	} t[] = {
		{ "format-openat", "openat: dfd:int:signed:4 "
		  "filename:const char *:str:8 flags:int:signed:4 "
		  "mode:umode_t:unsigned:2" },
		{ "format-openat-6.19", "openat: dfd:int:signed:4 "
		  "filename:const char *:str:8 flags:int:signed:4 "
		  "mode:umode_t:unsigned:2" },
		{ "format-execve", "execve: filename:const char *:str:8 "
		  "argv:const char *const *:ptr:8 "
		  "envp:const char *const *:ptr:8" },
		{ "format-write", "write: fd:unsigned int:unsigned:4 "
		  "buf:const char *:ptr:8 count:size_t:unsigned:8" },
		{ "format-write-6.19", "write: fd:unsigned int:unsigned:4 "
		  "buf:const char *:ptr:8 count:size_t:unsigned:8" },
		{ "format-mmap", "mmap: addr:unsigned long:unsigned:8 "
		  "len:unsigned long:unsigned:8 prot:unsigned long:unsigned:8 "
		  "flags:unsigned long:unsigned:8 fd:unsigned long:unsigned:8 "
		  "off:unsigned long:unsigned:8" },
		{ "format-renameat2", "renameat2: olddfd:int:signed:4 "
		  "oldname:const char *:str:8 newdfd:int:signed:4 "
		  "newname:const char *:str:8 flags:unsigned int:unsigned:4" },
	};
	char path[512];
	size_t i;

	for (i = 0; i < ARRAY_LEN(t); i++) {
		snprintf(path, sizeof(path), "%s/%s", data_dir, t[i].file);
		check_format(t[i].file, path, NULL, t[i].want);
	}
	check_format("a missing file", "/nonexistent", NULL,
		     "error: cannot read /nonexistent (No such file or directory)");
}

static void test_format_errors(void)
{
	static const char head[] = "name: sys_enter_x\nID: 1\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n";
	static const char arg[] =
		"\tfield:long a;\toffset:16;\tsize:8;\tsigned:0;\n";
	static const struct {
		const char *what, *tail, *want;
	} t[] = {
		{ "no arguments", "\nprint fmt: \"\"\n", "x:" },
		{ "no print fmt line", "", "x:" },
		{ "a field without offset", "\tfield:long a;\tsize:8;\n",
		  "error: line 6: expected offset:N; size:N; signed:N;" },
		{ "a field without ';'", "\tfield:long a\n",
		  "error: line 6: no ';' after the field" },
		{ "a field without a type", "\tfield:a;\toffset:16;\tsize:8;\tsigned:0;\n",
		  "error: line 6: expected a type and a name" },
		{ "not a field", "\tlong a;\n", "error: line 6: expected field:" },
	};
	char text[2048];
	size_t i;

	for (i = 0; i < ARRAY_LEN(t); i++) {
		snprintf(text, sizeof(text), "%s%s", head, t[i].tail);
		check_format(t[i].what, NULL, text, t[i].want);
	}
	snprintf(text, sizeof(text), "%s%s%s%s%s%s%s", head, arg, arg, arg,
		 arg, arg, arg);
	check_format("6 arguments", NULL, text,
		     "x: a:long:signed:8 a:long:signed:8 a:long:signed:8 "
		     "a:long:signed:8 a:long:signed:8 a:long:signed:8");
	strcat(text, arg);
	check_format("7 arguments", NULL, text,
		     "error: line 12: more than 6 arguments");
	check_format("a sys_exit_ file", NULL,
		     "name: sys_exit_openat\nID: 2\nformat:\n",
		     "error: line 1: not a sys_enter_ event");
	check_format("no format: line", NULL, "name: sys_enter_openat\nID: 2\n",
		     "error: not a sys_enter_ format: no format: line");
	check_format("no __syscall_nr", NULL, "name: sys_enter_x\nformat:\n"
		     "\tfield:long a;\toffset:16;\tsize:8;\tsigned:0;\n",
		     "error: not a sys_enter_ format: no __syscall_nr field");
	check_format("empty", NULL, "",
		     "error: not a sys_enter_ format: no name: sys_enter_ line");

	result(syscalls__arg_is_string("const char *", "filename") &&
	       syscalls__arg_is_string("char *", "pathname") &&
	       syscalls__arg_is_string("const char *", "name") &&
	       syscalls__arg_is_string("char *", "type") &&
	       syscalls__arg_is_string("const char *", "specialfile") &&
	       syscalls__arg_is_string("const char *", "_key") &&
	       !syscalls__arg_is_string("const char *", "buf") &&
	       !syscalls__arg_is_string("char *", "buf") &&
	       !syscalls__arg_is_string("const char *const *", "argv") &&
	       !syscalls__arg_is_string("const void *", "name") &&
	       !syscalls__arg_is_string("struct filename *", "name"),
	       "string rule: char pointers named as strings", "");
}

static void test_errno(void)
{
	static const struct {
		int err;
		const char *name, *msg;
	} t[] = {
		{ 1, "EPERM", "Operation not permitted" },
		{ 2, "ENOENT", "No such file or directory" },
		{ 11, "EAGAIN", "Resource temporarily unavailable" },
		{ 13, "EACCES", "Permission denied" },
		{ 35, "EDEADLK", "Resource deadlock avoided" },
		{ 133, "EHWPOISON", "Memory page has hardware error" },
		{ 512, "ERESTARTSYS", "To be restarted if SA_RESTART is set" },
		{ 513, "ERESTARTNOINTR", "To be restarted" },
		{ 514, "ERESTARTNOHAND", "To be restarted if no handler" },
		{ 515, "ENOIOCTLCMD", "No ioctl command" },
		{ 516, "ERESTART_RESTARTBLOCK", "Interrupted by signal" },
		{ 517, "EPROBE_DEFER", "Driver requests probe retry" },
		{ 524, "ENOTSUPP", "Operation is not supported" },
		{ 531, "ENOGRACE", "NFS file lock reclaim refused" },
		{ 41, NULL, "Unknown error 41" },
		{ 520, NULL, "Unknown error 520" },
		{ 600, NULL, "Unknown error 600" },
	};
	char what[64];
	size_t i;

	for (i = 0; i < ARRAY_LEN(t); i++) {
		snprintf(what, sizeof(what), "errno %d name", t[i].err);
		same(what, syscall_fmt__errno_name(t[i].err), t[i].name);
		snprintf(what, sizeof(what), "errno %d message", t[i].err);
		same(what, syscall_fmt__errno_msg(t[i].err), t[i].msg);
	}
	same("errno 0: no name", syscall_fmt__errno_name(0), NULL);
	same("errno -2: no name", syscall_fmt__errno_name(-2), NULL);
	result(syscall_fmt__is_error(-1) && syscall_fmt__is_error(-4095) &&
	       !syscall_fmt__is_error(-4096) && !syscall_fmt__is_error(0) &&
	       !syscall_fmt__is_error(3), "is_error: -4095..-1", "");
}

static void test_flags(void)
{
	static const struct {
		int which;	/* 0 open, 1 prot, 2 mmap flags */
		__u64 v;
		const char *want;
	} t[] = {
		{ 0, 0, "RDONLY" },
		{ 0, 0x80000, "RDONLY|CLOEXEC" },
		{ 0, 0x241, "WRONLY|CREAT|TRUNC" },
		{ 0, 0x80442, "RDWR|CREAT|APPEND|CLOEXEC" },
		{ 0, 0x101002, "RDWR|SYNC" },
		{ 0, 0x1001, "WRONLY|DSYNC" },
		{ 0, 0x410002, "RDWR|TMPFILE" },
		{ 0, 0xb0800, "RDONLY|NONBLOCK|DIRECTORY|NOFOLLOW|CLOEXEC" },
		{ 0, 0x46580, "RDONLY|EXCL|NOCTTY|APPEND|ASYNC|DIRECT|NOATIME" },
		{ 0, 0x280000, "RDONLY|CLOEXEC|PATH" },
		{ 0, 0x1008000, "RDONLY|LARGEFILE|0x1000000" },
		{ 0, 0x400000, "RDONLY|0x400000" },	/* __O_TMPFILE alone */
		{ 0, 3, "0x3" },
		{ 0, 0x43, "CREAT|0x3" },
		{ 1, 0, "NONE" },
		{ 1, 3, "READ|WRITE" },
		{ 1, 7, "READ|WRITE|EXEC" },
		{ 1, 5, "READ|EXEC" },
		{ 1, 0x1000001, "READ|GROWSDOWN" },
		{ 1, 0x10, "0x10" },
		{ 1, 0x11, "READ|0x10" },
		{ 2, 0x22, "PRIVATE|ANONYMOUS" },
		{ 2, 0x01, "SHARED" },
		{ 2, 0x03, "SHARED_VALIDATE" },
		{ 2, 0x12, "PRIVATE|FIXED" },
		{ 2, 0x20022, "PRIVATE|ANONYMOUS|STACK" },
		{ 2, 0x100022, "PRIVATE|ANONYMOUS|FIXED_NOREPLACE" },
		{ 2, 0x802, "PRIVATE|DENYWRITE" },
		{ 2, 0x400002, "PRIVATE|0x400000" },
		{ 2, 0x5, "0x5" },
		{ 2, 0, "0x0" },
	};
	static const char * const what[] = { "open flags", "prot", "mmap flags" };
	char buf[256], name[64];
	const char *got;
	size_t i;

	for (i = 0; i < ARRAY_LEN(t); i++) {
		if (t[i].which == 0)
			got = syscall_fmt__open_flags(buf, sizeof(buf), t[i].v);
		else if (t[i].which == 1)
			got = syscall_fmt__mmap_prot(buf, sizeof(buf), t[i].v);
		else
			got = syscall_fmt__mmap_flags(buf, sizeof(buf), t[i].v);
		snprintf(name, sizeof(name), "%s 0x%llx", what[t[i].which],
			 (unsigned long long)t[i].v);
		same(name, got, t[i].want);
	}
	same("open flags cut to a small buffer",
	     syscall_fmt__open_flags(buf, 8, 0x80000), "RDONLY|");
}

/* What @print writes of @arg, as a string (static) */
static const char *captured(void (*print)(FILE *f, const void *arg),
			    const void *arg)
{
	static char out[2048];
	char *mem = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&mem, &n);

	if (!f)
		return "(open_memstream failed)";
	print(f, arg);
	fclose(f);
	snprintf(out, sizeof(out), "%s", mem);
	free(mem);
	return out;
}

static void print_json(FILE *f, const void *c)
{
	syscall_fmt__json(f, c);
}

/* what the event reader prints for a comm */
static void print_comm(FILE *f, const void *comm)
{
	event__text_comm(f, comm);
}

static const char *json_of(const struct syscall_call *c)
{
	return captured(print_json, c);
}

static const char *line_of(const struct syscall_call *c)
{
	static char out[2048];

	if (syscall_fmt__line(out, sizeof(out), c) != (int)strlen(out))
		return "(syscall_fmt__line failed)";
	return out;
}

static void test_lines(void)
{
	struct syscall_format openat, mmap, write;
	struct syscall_str strs[6] = { { 0 } };
	__u64 vals[6] = { 0xffffff9c, 0x7ffc12345678, 0x80000, 0 };
	struct syscall_call c = {
		.ts_ns = 12345678, .dur_ns = 12345, .comm = "cat",
		.pid = 215, .tid = 215, .name = "openat",
		.nr_args = 4, .vals = vals, .strs = strs, .ret = 3,
	};
	char path[512], err[256], buf[16];
	const char *comm;

	snprintf(path, sizeof(path), "%s/format-openat", data_dir);
	if (syscalls__read_format(path, &openat, err, sizeof(err)))
		result(0, "line: format-openat", "%s", err);
	snprintf(path, sizeof(path), "%s/format-mmap", data_dir);
	if (syscalls__read_format(path, &mmap, err, sizeof(err)))
		result(0, "line: format-mmap", "%s", err);
	snprintf(path, sizeof(path), "%s/format-write", data_dir);
	if (syscalls__read_format(path, &write, err, sizeof(err)))
		result(0, "line: format-write", "%s", err);
	c.args = openat.args;
	strs[1] = (struct syscall_str){ "/etc/passwd", 11, false, false };

	same("line: openat that succeeded", line_of(&c),
	     "12.345 ( 0.012 ms): cat/215 openat(dfd: CWD, filename: \"/etc/passwd\", flags: RDONLY|CLOEXEC) = 3");
	same("json: openat that succeeded", json_of(&c),
	     "{\"ts\":12345678,\"dur_ns\":12345,\"comm\":\"cat\",\"pid\":215,\"tid\":215,\"syscall\":\"openat\",\"args\":{\"dfd\":-100,\"filename\":\"/etc/passwd\",\"flags\":524288,\"mode\":0},\"ret\":3}\n");

	strs[1] = (struct syscall_str){ "/nonexistent", 12, false, false };
	c.ret = -2;
	c.ts_ns = 1012345678901ULL;
	c.dur_ns = 3999999;
	same("line: openat that failed with ENOENT", line_of(&c),
	     "1012345.678 ( 3.999 ms): cat/215 openat(dfd: CWD, filename: \"/nonexistent\", flags: RDONLY|CLOEXEC) = -1 ENOENT (No such file or directory)");
	same("json: openat that failed with ENOENT", json_of(&c),
	     "{\"ts\":1012345678901,\"dur_ns\":3999999,\"comm\":\"cat\",\"pid\":215,\"tid\":215,\"syscall\":\"openat\",\"args\":{\"dfd\":-100,\"filename\":\"/nonexistent\",\"flags\":524288,\"mode\":0},\"ret\":-2,\"errno\":\"ENOENT\"}\n");

	/* a FIFO's open interrupted by a signal, with O_CREAT: mode shown */
	strs[1] = (struct syscall_str){ "fifo", 4, false, false };
	vals[0] = 3;
	vals[2] = 0x241;
	vals[3] = 0644;
	c.ret = -512;
	c.ts_ns = 999;
	c.dur_ns = 2500000000ULL;
	c.pid = 300;
	c.tid = 301;
	same("line: openat that returned -ERESTARTSYS", line_of(&c),
	     "0.000 (2500.000 ms): cat/301 openat(dfd: 3, filename: \"fifo\", flags: WRONLY|CREAT|TRUNC, mode: 0644) = -1 ERESTARTSYS (To be restarted if SA_RESTART is set)");
	same("json: openat that returned -ERESTARTSYS", json_of(&c),
	     "{\"ts\":999,\"dur_ns\":2500000000,\"comm\":\"cat\",\"pid\":300,\"tid\":301,\"syscall\":\"openat\",\"args\":{\"dfd\":3,\"filename\":\"fifo\",\"flags\":577,\"mode\":420},\"ret\":-512,\"errno\":\"ERESTARTSYS\"}\n");

	/* untrusted: comm and string with newline, quote, ESC, backslash */
	comm = "a\nb\"c\x1b\\d\x7f\xc2\x9b";
	c.comm = comm;
	strs[1] = (struct syscall_str){ "q\"b\\\n\x1b[2J\0z", 11, true, false };
	vals[2] = 0;
	c.ret = 0;
	c.dur_ns = 0;
	same("comm escaped as the event reader escapes it", captured(print_comm, comm),
	     "a\\x0ab\"c\\x1b\\\\d\\x7f\\xc2\\x9b");
	same("line: untrusted comm and a cut string", line_of(&c),
	     "0.000 ( 0.000 ms): a\\x0ab\"c\\x1b\\\\d\\x7f\\xc2\\x9b/301 openat(dfd: 3, filename: \"q\\\"b\\\\\\x0a\\x1b[2J\\x00z\"..., flags: RDONLY) = 0");
	same("json: untrusted comm and a cut string", json_of(&c),
	     "{\"ts\":999,\"dur_ns\":0,\"comm\":\"a\\u000ab\\\"c\\u001b\\\\d\\u007f\\u00c2\\u009b\",\"pid\":300,\"tid\":301,\"syscall\":\"openat\",\"args\":{\"dfd\":3,\"filename\":\"q\\\"b\\\\\\u000a\\u001b[2J\\u0000z\",\"filename_truncated\":true,\"flags\":0,\"mode\":420},\"ret\":0}\n");

	/* a comm of 16 bytes without a NUL stops at KPT_COMM_LEN */
	c.comm = "0123456789abcdefXYZ";
	strs[1] = (struct syscall_str){ NULL, 0, false, false };
	same("line: 16-byte comm, unreadable string", line_of(&c),
	     "0.000 ( 0.000 ms): 0123456789abcdef/301 openat(dfd: 3, filename: (fault), flags: RDONLY) = 0");
	same("json: 16-byte comm, unreadable string", json_of(&c),
	     "{\"ts\":999,\"dur_ns\":0,\"comm\":\"0123456789abcdef\",\"pid\":300,\"tid\":301,\"syscall\":\"openat\",\"args\":{\"dfd\":3,\"filename\":null,\"flags\":0,\"mode\":420},\"ret\":0}\n");

	/* mmap: prot, flags, fd -1 of an unsigned long, an address back */
	c.comm = "cat";
	c.name = "mmap";
	c.args = mmap.args;
	c.nr_args = 6;
	vals[0] = 0;
	vals[1] = 8192;
	vals[2] = 3;
	vals[3] = 0x22;
	vals[4] = 0xffffffffffffffffULL;
	vals[5] = 0;
	c.ret = 0x7f0123456000LL;
	same("line: mmap", line_of(&c),
	     "0.000 ( 0.000 ms): cat/301 mmap(addr: 0, len: 8192, prot: READ|WRITE, flags: PRIVATE|ANONYMOUS, fd: -1, off: 0) = 0x7f0123456000");
	same("json: mmap", json_of(&c),
	     "{\"ts\":999,\"dur_ns\":0,\"comm\":\"cat\",\"pid\":300,\"tid\":301,\"syscall\":\"mmap\",\"args\":{\"addr\":0,\"len\":8192,\"prot\":3,\"flags\":34,\"fd\":-1,\"off\":0},\"ret\":139642863443968}\n");

	/* write: buf is a pointer, not a string; fd unsigned int as int */
	c.name = "write";
	c.args = write.args;
	c.nr_args = 3;
	vals[0] = 0xffffffff00000001ULL;	/* garbage above an int */
	vals[1] = 0x55d0c0de0000ULL;
	vals[2] = 6;
	c.ret = -32;
	same("line: write, EPIPE", line_of(&c),
	     "0.000 ( 0.000 ms): cat/301 write(fd: 1, buf: 0x55d0c0de0000, count: 6) = -1 EPIPE (Broken pipe)");

	/* no format: arg0.. in hex; an unknown number's name */
	c.name = "syscall_9999";
	c.args = NULL;
	c.nr_args = 2;
	vals[0] = 1;
	vals[1] = 0;
	c.ret = -600;
	same("line: no format, unknown errno", line_of(&c),
	     "0.000 ( 0.000 ms): cat/301 syscall_9999(arg0: 0x1, arg1: 0x0) = -1 errno_600 (Unknown error 600)");
	same("json: no format, unknown errno", json_of(&c),
	     "{\"ts\":999,\"dur_ns\":0,\"comm\":\"cat\",\"pid\":300,\"tid\":301,\"syscall\":\"syscall_9999\",\"args\":{\"arg0\":1,\"arg1\":0},\"ret\":-600,\"errno\":\"errno_600\"}\n");

	result(syscall_fmt__line(buf, sizeof(buf), &c) == -1 &&
	       !strcmp(buf, "0.000 ( 0.000 m"), "line: cut to a small buffer",
	       "got '%s'", buf);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: test_syscalls DATA_DIR\n");
		return 2;
	}
	data_dir = argv[1];
	test_names();
	test_select();
	test_format_files();
	test_format_errors();
	test_errno();
	test_flags();
	test_lines();
	printf("%d passed, %d failed\n", nr - failed, failed);
	return failed ? 1 : 0;
}
