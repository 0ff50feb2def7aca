// SPDX-License-Identifier: GPL-2.0
/*
 * syscall_fmt: one system call as text or JSON, for `kptrace syscalls`.
 *
 * Text, perf trace's shape, a line a call (syscall_fmt__line()):
 * 12.345 ( 0.012 ms): cat/215 openat(dfd: CWD, filename: "/etc/passwd", flags: RDONLY|CLOEXEC) = 3
 * 12.400 ( 0.004 ms): ls/9 openat(dfd: CWD, filename: "/x", flags: RDONLY) = -1 ENOENT (No su..
 * Time since the trace began and duration in ms (cut to the µs), comm/tid,
 * then "name: value" per argument: strings quoted ("..." after a cut one,
 * (fault) for an unreadable one, (bad) for one whose bytes are not in the
 * record, as the event reader says), pointers 0x hex or NULL, numbers decimal
 * as their C type is signed or not (0x hex for a type syscalls.c does not
 * know), fds (arguments named *fd) as int, AT_FDCWD in a *dfd as CWD,
 * open's flags, mmap's prot and flags by name, open's mode in octal and
 * only with O_CREAT or O_TMPFILE. Zeros are shown (perf trace needs
 * --show-zeros). Then " = ": an error (-4095..-1) as -1 ENAME (message),
 * ERESTART* included; the addresses of mmap, mremap, brk, shmat in hex;
 * "?" for a call that does not return (exit, exit_group), as perf trace.
 * A call in progress ends in " <unfinished ...>" for " = RET", and its
 * return, when it comes, reads "<... NAME resumed>(ARGS) = RET" (strace's
 * words; "unfinished":true and "resumed":true in JSON).
 * Untrusted text (comm, strings) as everywhere: event__text_bytes().
 *
 * JSON, an object a line (syscall_fmt__json()): "ts", "dur_ns" (ns),
 * "comm", "pid", "tid", "syscall", "args" {name: raw number (cut or
 * sign-extended to its C type), string (json.c's escapes), or null when
 * unreadable; "NAME_truncated":true after a cut one}, "ret" (signed), and
 * "errno" ("ENOENT") on failure only; neither for a call that does not
 * return.
 */
#include <stdlib.h>
#include <string.h>

#include <uapi/kptrace.h>

#include "event.h"
#include "json.h"
#include "syscall_fmt.h"

#define ARRAY_LEN(a)	(sizeof(a) / sizeof((a)[0]))
#define FMT_AT_FDCWD	(-100)
#define FMT_MAX_ERRNO	4095

/*
 * From the kernel's include/uapi/asm-generic/errno-base.h, errno.h (x86
 * uses them) and include/linux/errno.h (kernel-internal codes that can
 * reach a tracer: ERESTART* when a signal interrupts a call, ...).
 * Aliases (EWOULDBLOCK, EDEADLOCK) are left out: the first name wins.
 */
static const char * const errno_names[] = {
	[1] = "EPERM",
	[2] = "ENOENT",
	[3] = "ESRCH",
	[4] = "EINTR",
	[5] = "EIO",
	[6] = "ENXIO",
	[7] = "E2BIG",
	[8] = "ENOEXEC",
	[9] = "EBADF",
	[10] = "ECHILD",
	[11] = "EAGAIN",
	[12] = "ENOMEM",
	[13] = "EACCES",
	[14] = "EFAULT",
	[15] = "ENOTBLK",
	[16] = "EBUSY",
	[17] = "EEXIST",
	[18] = "EXDEV",
	[19] = "ENODEV",
	[20] = "ENOTDIR",
	[21] = "EISDIR",
	[22] = "EINVAL",
	[23] = "ENFILE",
	[24] = "EMFILE",
	[25] = "ENOTTY",
	[26] = "ETXTBSY",
	[27] = "EFBIG",
	[28] = "ENOSPC",
	[29] = "ESPIPE",
	[30] = "EROFS",
	[31] = "EMLINK",
	[32] = "EPIPE",
	[33] = "EDOM",
	[34] = "ERANGE",
	[35] = "EDEADLK",
	[36] = "ENAMETOOLONG",
	[37] = "ENOLCK",
	[38] = "ENOSYS",
	[39] = "ENOTEMPTY",
	[40] = "ELOOP",
	[42] = "ENOMSG",
	[43] = "EIDRM",
	[44] = "ECHRNG",
	[45] = "EL2NSYNC",
	[46] = "EL3HLT",
	[47] = "EL3RST",
	[48] = "ELNRNG",
	[49] = "EUNATCH",
	[50] = "ENOCSI",
	[51] = "EL2HLT",
	[52] = "EBADE",
	[53] = "EBADR",
	[54] = "EXFULL",
	[55] = "ENOANO",
	[56] = "EBADRQC",
	[57] = "EBADSLT",
	[59] = "EBFONT",
	[60] = "ENOSTR",
	[61] = "ENODATA",
	[62] = "ETIME",
	[63] = "ENOSR",
	[64] = "ENONET",
	[65] = "ENOPKG",
	[66] = "EREMOTE",
	[67] = "ENOLINK",
	[68] = "EADV",
	[69] = "ESRMNT",
	[70] = "ECOMM",
	[71] = "EPROTO",
	[72] = "EMULTIHOP",
	[73] = "EDOTDOT",
	[74] = "EBADMSG",
	[75] = "EOVERFLOW",
	[76] = "ENOTUNIQ",
	[77] = "EBADFD",
	[78] = "EREMCHG",
	[79] = "ELIBACC",
	[80] = "ELIBBAD",
	[81] = "ELIBSCN",
	[82] = "ELIBMAX",
	[83] = "ELIBEXEC",
	[84] = "EILSEQ",
	[85] = "ERESTART",
	[86] = "ESTRPIPE",
	[87] = "EUSERS",
	[88] = "ENOTSOCK",
	[89] = "EDESTADDRREQ",
	[90] = "EMSGSIZE",
	[91] = "EPROTOTYPE",
	[92] = "ENOPROTOOPT",
	[93] = "EPROTONOSUPPORT",
	[94] = "ESOCKTNOSUPPORT",
	[95] = "EOPNOTSUPP",
	[96] = "EPFNOSUPPORT",
	[97] = "EAFNOSUPPORT",
	[98] = "EADDRINUSE",
	[99] = "EADDRNOTAVAIL",
	[100] = "ENETDOWN",
	[101] = "ENETUNREACH",
	[102] = "ENETRESET",
	[103] = "ECONNABORTED",
	[104] = "ECONNRESET",
	[105] = "ENOBUFS",
	[106] = "EISCONN",
	[107] = "ENOTCONN",
	[108] = "ESHUTDOWN",
	[109] = "ETOOMANYREFS",
	[110] = "ETIMEDOUT",
	[111] = "ECONNREFUSED",
	[112] = "EHOSTDOWN",
	[113] = "EHOSTUNREACH",
	[114] = "EALREADY",
	[115] = "EINPROGRESS",
	[116] = "ESTALE",
	[117] = "EUCLEAN",
	[118] = "ENOTNAM",
	[119] = "ENAVAIL",
	[120] = "EISNAM",
	[121] = "EREMOTEIO",
	[122] = "EDQUOT",
	[123] = "ENOMEDIUM",
	[124] = "EMEDIUMTYPE",
	[125] = "ECANCELED",
	[126] = "ENOKEY",
	[127] = "EKEYEXPIRED",
	[128] = "EKEYREVOKED",
	[129] = "EKEYREJECTED",
	[130] = "EOWNERDEAD",
	[131] = "ENOTRECOVERABLE",
	[132] = "ERFKILL",
	[133] = "EHWPOISON",
	[512] = "ERESTARTSYS",
	[513] = "ERESTARTNOINTR",
	[514] = "ERESTARTNOHAND",
	[515] = "ENOIOCTLCMD",
	[516] = "ERESTART_RESTARTBLOCK",
	[517] = "EPROBE_DEFER",
	[518] = "EOPENSTALE",
	[519] = "ENOPARAM",
	[521] = "EBADHANDLE",
	[522] = "ENOTSYNC",
	[523] = "EBADCOOKIE",
	[524] = "ENOTSUPP",
	[525] = "ETOOSMALL",
	[526] = "ESERVERFAULT",
	[527] = "EBADTYPE",
	[528] = "EJUKEBOX",
	[529] = "EIOCBQUEUED",
	[530] = "ERECALLCONFLICT",
	[531] = "ENOGRACE",
};

/* include/linux/errno.h's codes, that libc does not know: from 512 */
#define FMT_ERRNO_INTERNAL	512
static const char * const internal_msgs[] = {
	"To be restarted if SA_RESTART is set",		/* ERESTARTSYS */
	"To be restarted",				/* ERESTARTNOINTR */
	"To be restarted if no handler",		/* ERESTARTNOHAND */
	"No ioctl command",				/* ENOIOCTLCMD */
	"Interrupted by signal",			/* ERESTART_RESTARTBLOCK */
	"Driver requests probe retry",			/* EPROBE_DEFER */
	"Open found a stale dentry",			/* EOPENSTALE */
	"Parameter not supported",			/* ENOPARAM */
	NULL,						/* 520 */
	"Illegal NFS file handle",			/* EBADHANDLE */
	"Update synchronization mismatch",		/* ENOTSYNC */
	"Cookie is stale",				/* EBADCOOKIE */
	"Operation is not supported",			/* ENOTSUPP */
	"Buffer or request is too small",		/* ETOOSMALL */
	"An untranslatable error occurred",		/* ESERVERFAULT */
	"Type not supported by server",			/* EBADTYPE */
	"Request initiated, but will not complete before timeout", /* EJUKEBOX */
	"iocb queued, will get completion event",	/* EIOCBQUEUED */
	"Conflict with recalled state",			/* ERECALLCONFLICT */
	"NFS file lock reclaim refused",		/* ENOGRACE */
};

bool syscall_fmt__is_error(__s64 ret)
{
	return ret < 0 && ret >= -FMT_MAX_ERRNO;
}

const char *syscall_fmt__errno_name(int err)
{
	if (err <= 0 || (size_t)err >= ARRAY_LEN(errno_names))
		return NULL;
	return errno_names[err];
}

const char *syscall_fmt__errno_msg(int err)
{
	size_t i = (size_t)err - FMT_ERRNO_INTERNAL;

	if (err >= FMT_ERRNO_INTERNAL && i < ARRAY_LEN(internal_msgs) &&
	    internal_msgs[i])
		return internal_msgs[i];
	return strerror(err);
}

/* --- flags ---------------------------------------------------------------- */

struct flag {
	__u64 mask;
	const char *name;
};

/* Appends "|" (but first) and @name, or 0x@hex if @name is NULL. */
static size_t flag_add(char *buf, size_t len, size_t pos, const char *name,
		       __u64 hex)
{
	const char *sep = pos ? "|" : "";
	int n;

	if (pos >= len)
		return pos;
	if (name)
		n = snprintf(buf + pos, len - pos, "%s%s", sep, name);
	else
		n = snprintf(buf + pos, len - pos, "%s0x%llx", sep,
			     (unsigned long long)hex);
	return pos + (n > 0 ? n : 0);
}

/*
 * @first if not NULL, then the name of each entry of @tbl whose bits @v
 * all has (a composite entry before its parts), the bits left in hex;
 * "0x0" for nothing at all.
 */
static char *flags_str(char *buf, size_t len, __u64 v, const char *first,
		       const struct flag *tbl, size_t n)
{
	size_t i, pos = 0;

	if (!len)
		return buf;
	buf[0] = '\0';
	if (first)
		pos = flag_add(buf, len, pos, first, 0);
	for (i = 0; i < n; i++) {
		if ((v & tbl[i].mask) == tbl[i].mask) {
			pos = flag_add(buf, len, pos, tbl[i].name, 0);
			v &= ~tbl[i].mask;
		}
	}
	if (v || !pos)
		flag_add(buf, len, pos, NULL, v);
	return buf;
}

/* asm-generic/fcntl.h, as x86 has it: in the order of the lowest bit */
#define FMT_O_CREAT	0x40
#define FMT_O_TMPFILE	0x410000	/* __O_TMPFILE | O_DIRECTORY */
static const struct flag open_flags[] = {
	{ FMT_O_CREAT, "CREAT" }, { 0x80, "EXCL" }, { 0x100, "NOCTTY" },
	{ 0x200, "TRUNC" }, { 0x400, "APPEND" }, { 0x800, "NONBLOCK" },
	{ 0x101000, "SYNC" }, { 0x1000, "DSYNC" }, { 0x2000, "ASYNC" },
	{ 0x4000, "DIRECT" }, { 0x8000, "LARGEFILE" },
	{ FMT_O_TMPFILE, "TMPFILE" }, { 0x10000, "DIRECTORY" },
	{ 0x20000, "NOFOLLOW" }, { 0x40000, "NOATIME" },
	{ 0x80000, "CLOEXEC" }, { 0x200000, "PATH" },
};

char *syscall_fmt__open_flags(char *buf, size_t len, __u64 flags)
{
	static const char * const acc[] = { "RDONLY", "WRONLY", "RDWR" };
	unsigned int mode = flags & 3;	/* O_ACCMODE */

	if (mode == 3)		/* not an access mode: its bits in hex */
		return flags_str(buf, len, flags, NULL, open_flags,
				 ARRAY_LEN(open_flags));
	return flags_str(buf, len, flags & ~3ULL, acc[mode], open_flags,
			 ARRAY_LEN(open_flags));
}

/* asm-generic/mman-common.h */
static const struct flag prot_flags[] = {
	{ 0x1, "READ" }, { 0x2, "WRITE" }, { 0x4, "EXEC" }, { 0x8, "SEM" },
	{ 0x01000000, "GROWSDOWN" }, { 0x02000000, "GROWSUP" },
};

char *syscall_fmt__mmap_prot(char *buf, size_t len, __u64 prot)
{
	return flags_str(buf, len, prot, prot ? NULL : "NONE", prot_flags,
			 ARRAY_LEN(prot_flags));
}

/* uapi/linux/mman.h, asm-generic/mman*.h, x86's asm/mman.h */
static const struct flag mmap_flags[] = {
	{ 0x10, "FIXED" }, { 0x20, "ANONYMOUS" }, { 0x40, "32BIT" },
	{ 0x80, "ABOVE4G" }, { 0x100, "GROWSDOWN" }, { 0x800, "DENYWRITE" },
	{ 0x1000, "EXECUTABLE" }, { 0x2000, "LOCKED" },
	{ 0x4000, "NORESERVE" }, { 0x8000, "POPULATE" },
	{ 0x10000, "NONBLOCK" }, { 0x20000, "STACK" }, { 0x40000, "HUGETLB" },
	{ 0x80000, "SYNC" }, { 0x100000, "FIXED_NOREPLACE" },
};

char *syscall_fmt__mmap_flags(char *buf, size_t len, __u64 flags)
{
	/* the type, flags & MAP_TYPE: a value, not bits */
	static const char * const types[16] = {
		[1] = "SHARED", [2] = "PRIVATE", [3] = "SHARED_VALIDATE",
		[8] = "DROPPABLE",
	};
	const char *type = types[flags & 0xf];

	return flags_str(buf, len, type ? flags & ~0xfULL : flags, type,
			 mmap_flags, ARRAY_LEN(mmap_flags));
}

/* --- one call ------------------------------------------------------------- */

/* How an argument is shown besides its kind. */
enum fmt_dec {
	DEC_KIND,		/* by its kind */
	DEC_FD,			/* an int */
	DEC_DFD,		/* an int, AT_FDCWD as CWD */
	DEC_OPEN_FLAGS,
	DEC_OPEN_MODE,		/* octal, only with O_CREAT or O_TMPFILE */
	DEC_PROT,
	DEC_MMAP_FLAGS,
};

static bool call_is(const char *call, const char *a, const char *b,
		    const char *c)
{
	return !strcmp(call, a) || (b && !strcmp(call, b)) ||
	       (c && !strcmp(call, c));
}

static enum fmt_dec arg_dec(const char *call, const char *arg)
{
	bool open = call_is(call, "open", "openat", "creat");

	if (syscalls__ends_with(arg, "dfd"))
		return DEC_DFD;
	if (syscalls__ends_with(arg, "fd"))
		return DEC_FD;
	if (open && !strcmp(arg, "flags"))
		return DEC_OPEN_FLAGS;
	if (open && !strcmp(arg, "mode"))
		return DEC_OPEN_MODE;
	if (!strcmp(arg, "prot") &&
	    call_is(call, "mmap", "mmap2", "mprotect"))
		return DEC_PROT;
	if (!strcmp(arg, "prot") && call_is(call, "pkey_mprotect", NULL, NULL))
		return DEC_PROT;
	if (!strcmp(arg, "flags") && call_is(call, "mmap", "mmap2", NULL))
		return DEC_MMAP_FLAGS;
	return DEC_KIND;
}

/* Argument @i's name and kind: arg<i> in hex without a format. */
static struct syscall_arg arg_of(const struct syscall_call *c, unsigned int i)
{
	struct syscall_arg a = { .kind = SYSCALL_ARG_HEX, .bytes = 8 };

	if (c->args)
		return c->args[i];
	snprintf(a.name, sizeof(a.name), "arg%u", i);
	return a;
}

static __s64 as_signed(__u64 v, unsigned int bytes)
{
	switch (bytes) {
	case 1:
		return (__s8)v;
	case 2:
		return (__s16)v;
	case 4:
		return (__s32)v;
	default:
		return (__s64)v;
	}
}

static __u64 as_unsigned(__u64 v, unsigned int bytes)
{
	return bytes >= 8 ? v : v & ((1ULL << (bytes * 8)) - 1);
}

/* Is open's mode shown: no flags argument, or one with CREAT or TMPFILE? */
static bool mode_shown(const struct syscall_call *c)
{
	unsigned int i;

	for (i = 0; i < c->nr_args; i++)
		if (!strcmp(arg_of(c, i).name, "flags"))
			return (c->vals[i] & FMT_O_CREAT) ||
			       (c->vals[i] & FMT_O_TMPFILE) == FMT_O_TMPFILE;
	return true;
}

/* The string of argument @i, or NULL if it is not one. */
static const struct syscall_str *arg_str(const struct syscall_call *c,
					 unsigned int i,
					 const struct syscall_arg *a)
{
	return a->kind == SYSCALL_ARG_STR && c->strs ? &c->strs[i] : NULL;
}

/* -y: "<PATH>" after an fd, its bytes as a string's */
static void print_fd_path(FILE *f, const char *path)
{
	if (!path)
		return;
	putc_unlocked('<', f);
	event__text_bytes(f, path, strlen(path), '>');
	putc_unlocked('>', f);
}

static void print_value_text(FILE *f, const struct syscall_call *c,
			     unsigned int i, const struct syscall_arg *a,
			     enum fmt_dec dec)
{
	const struct syscall_str *s = arg_str(c, i, a);
	__u64 v = c->vals[i];
	char buf[256];

	if (s && !s->s) {
		fputs(s->bad ? "(bad)" : "(fault)", f);
	} else if (s) {
		putc_unlocked('"', f);
		event__text_bytes(f, s->s, s->len, '"');
		putc_unlocked('"', f);
		if (s->trunc)
			fputs("...", f);
	} else if (dec == DEC_DFD && (__s32)v == FMT_AT_FDCWD) {
		fputs("CWD", f);
	} else if (dec == DEC_DFD || dec == DEC_FD) {
		fprintf(f, "%d", (__s32)v);
		print_fd_path(f, c->fd_paths ? c->fd_paths[i] : NULL);
	} else if (dec == DEC_OPEN_FLAGS) {
		fputs(syscall_fmt__open_flags(buf, sizeof(buf), v), f);
	} else if (dec == DEC_OPEN_MODE) {
		fprintf(f, "%#llo", (unsigned long long)v);
	} else if (dec == DEC_PROT) {
		fputs(syscall_fmt__mmap_prot(buf, sizeof(buf), v), f);
	} else if (dec == DEC_MMAP_FLAGS) {
		fputs(syscall_fmt__mmap_flags(buf, sizeof(buf), v), f);
	} else if (a->kind == SYSCALL_ARG_SIGNED) {
		fprintf(f, "%lld", (long long)as_signed(v, a->bytes));
	} else if (a->kind == SYSCALL_ARG_UNSIGNED) {
		fprintf(f, "%llu", (unsigned long long)as_unsigned(v, a->bytes));
	} else if (a->kind == SYSCALL_ARG_PTR && !v) {
		fputs("NULL", f);
	} else {
		fprintf(f, "0x%llx", (unsigned long long)v);
	}
}

/* After the return value: " (32-bit)", " (seccomp)" */
static void print_marks(FILE *f, const struct syscall_call *c)
{
	if (c->compat)
		fputs(" (32-bit)", f);
	if (c->denied)
		fputs(" (seccomp)", f);
}

static void print_line(FILE *f, const struct syscall_call *c)
{
	const char *sep = "";
	struct syscall_arg a;
	enum fmt_dec dec;
	unsigned int i;
	int err;

	if ((c->unfinished && !c->blocked_known) || c->dur_unknown)
		fprintf(f, "%llu.%03llu (     ? ms): ",
			(unsigned long long)(c->ts_ns / 1000000),
			(unsigned long long)(c->ts_ns / 1000 % 1000));
	else
		fprintf(f, "%llu.%03llu (%2llu.%03llu ms): ",
			(unsigned long long)(c->ts_ns / 1000000),
			(unsigned long long)(c->ts_ns / 1000 % 1000),
			(unsigned long long)(c->dur_ns / 1000000),
			(unsigned long long)(c->dur_ns / 1000 % 1000));
	event__text_comm(f, c->comm);
	fprintf(f, "/%u ", c->tid);
	if (c->resumed)
		fputs("<... ", f);
	event__text_bytes(f, c->name, strlen(c->name), 0);
	if (c->resumed)
		fputs(" resumed>", f);
	putc_unlocked('(', f);
	/* strace's, for a sleep a signal (or a stop) interrupted */
	if (c->unfinished && !strcmp(c->name, "restart_syscall"))
		fputs("<... resuming interrupted call ...>", f);
	for (i = 0; i < c->nr_args; i++) {
		a = arg_of(c, i);
		dec = arg_dec(c->name, a.name);
		if (dec == DEC_OPEN_MODE && !mode_shown(c))
			continue;
		fputs(sep, f);
		sep = ", ";
		event__text_bytes(f, a.name, strlen(a.name), 0);
		fputs(": ", f);
		print_value_text(f, c, i, &a, dec);
	}
	if (c->unfinished) {
		fputs(") <unfinished ...>", f);
		print_marks(f, c);
		return;
	}
	fputs(") = ", f);
	if (c->no_return) {
		putc_unlocked('?', f);
	} else if (syscall_fmt__is_error(c->ret)) {
		err = (int)-c->ret;
		if (syscall_fmt__errno_name(err))
			fprintf(f, "-1 %s", syscall_fmt__errno_name(err));
		else
			fprintf(f, "-1 errno_%d", err);
		fprintf(f, " (%s)", syscall_fmt__errno_msg(err));
	} else if (call_is(c->name, "mmap", "mmap2", "mremap") ||
		   call_is(c->name, "brk", "shmat", NULL)) {
		fprintf(f, "0x%llx", (unsigned long long)c->ret);
	} else {
		fprintf(f, "%lld", (long long)c->ret);
		print_fd_path(f, c->ret_path);
	}
	print_marks(f, c);
}

void syscall_fmt__print(FILE *f, const struct syscall_call *c)
{
	print_line(f, c);
}

int syscall_fmt__line(char *buf, size_t size, const struct syscall_call *c)
{
	char *mem = NULL;
	size_t n = 0;
	FILE *f;

	if (!size)
		return -1;
	buf[0] = '\0';
	f = open_memstream(&mem, &n);
	if (!f)
		return -1;
	print_line(f, c);
	if (fclose(f)) {
		free(mem);
		return -1;
	}
	if (n >= size) {
		memcpy(buf, mem, size - 1);
		buf[size - 1] = '\0';
		free(mem);
		return -1;
	}
	memcpy(buf, mem, n + 1);
	free(mem);
	return (int)n;
}

static void print_value_json(FILE *f, const struct syscall_call *c,
			     unsigned int i, const struct syscall_arg *a)
{
	const struct syscall_str *s = arg_str(c, i, a);
	enum fmt_dec dec = arg_dec(c->name, a->name);
	__u64 v = c->vals[i];

	if (s && !s->s) {
		fputs("null", f);
	} else if (s) {
		json__bytes(f, s->s, s->len);
		if (s->trunc) {
			fputs(",\"", f);
			json__chars(f, a->name, sizeof(a->name));
			fputs("_truncated\":true", f);
		}
	} else if (dec == DEC_DFD || dec == DEC_FD) {
		fprintf(f, "%d", (__s32)v);
		print_fd_path(f, c->fd_paths ? c->fd_paths[i] : NULL);
	} else if (a->kind == SYSCALL_ARG_SIGNED) {
		fprintf(f, "%lld", (long long)as_signed(v, a->bytes));
	} else if (a->kind == SYSCALL_ARG_UNSIGNED) {
		fprintf(f, "%llu", (unsigned long long)as_unsigned(v, a->bytes));
	} else {
		fprintf(f, "%llu", (unsigned long long)v);
	}
}

/* -y: "fds":{"NAME":"PATH",...}, the fd arguments with a path */
static void print_fds_json(FILE *f, const struct syscall_call *c)
{
	struct syscall_arg a;
	unsigned int i, n = 0;

	for (i = 0; c->fd_paths && i < c->nr_args; i++) {
		if (!c->fd_paths[i])
			continue;
		a = arg_of(c, i);
		fputs(n++ ? "," : ",\"fds\":{", f);
		json__str(f, a.name, sizeof(a.name));
		putc_unlocked(':', f);
		json__str(f, c->fd_paths[i], (size_t)-1);
	}
	if (n)
		putc_unlocked('}', f);
}

void syscall_fmt__json_open(FILE *f, const struct syscall_call *c)
{
	struct syscall_arg a;
	const char *name;
	unsigned int i;
	char buf[32];

	fprintf(f, "{\"ts\":%llu,\"dur_ns\":", (unsigned long long)c->ts_ns);
	if (c->dur_unknown)
		fputs("null", f);
	else
		fprintf(f, "%llu", (unsigned long long)c->dur_ns);
	fputs(",\"comm\":", f);
	json__str(f, c->comm, KPT_COMM_LEN);
	fprintf(f, ",\"pid\":%u,\"tid\":%u,\"syscall\":", c->pid, c->tid);
	json__str(f, c->name, (size_t)-1);
	fputs(",\"args\":{", f);
	for (i = 0; i < c->nr_args; i++) {
		a = arg_of(c, i);
		if (i)
			putc_unlocked(',', f);
		json__str(f, a.name, sizeof(a.name));
		putc_unlocked(':', f);
		print_value_json(f, c, i, &a);
	}
	putc_unlocked('}', f);
	print_fds_json(f, c);
	if (c->compat)
		fputs(",\"compat\":true", f);
	if (c->denied)
		fputs(",\"denied\":true", f);
	if (c->resumed)
		fputs(",\"resumed\":true", f);
	if (c->unfinished) {
		fputs(",\"unfinished\":true,\"blocked_ns\":", f);
		if (c->blocked_known)
			fprintf(f, "%llu", (unsigned long long)c->dur_ns);
		else
			fputs("null", f);
		return;
	}
	if (!c->no_return)
		fprintf(f, ",\"ret\":%lld", (long long)c->ret);
	if (!c->no_return && c->ret_path) {
		fputs(",\"ret_path\":", f);
		json__str(f, c->ret_path, (size_t)-1);
	}
	if (!c->no_return && syscall_fmt__is_error(c->ret)) {
		name = syscall_fmt__errno_name((int)-c->ret);
		if (!name) {
			snprintf(buf, sizeof(buf), "errno_%d", (int)-c->ret);
			name = buf;
		}
		fputs(",\"errno\":", f);
		json__str(f, name, (size_t)-1);
	}
}

void syscall_fmt__json(FILE *f, const struct syscall_call *c)
{
	syscall_fmt__json_open(f, c);
	fputs("}\n", f);
}
