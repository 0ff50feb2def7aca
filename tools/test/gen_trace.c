// SPDX-License-Identifier: GPL-2.0
/*
 * gen_trace: writes synthetic kptrace record files, as `kptrace -w` saves
 * them, for the host tests of `kptrace -r`. The addresses match the fake
 * kallsyms in test/data/kallsyms.
 *
 *	gen_trace KIND FILE
 *
 * KIND is one of:
 *	good		every record type and corner the decoder knows
 *	big		COUNT entry/return pairs (env GEN_COUNT, default
 *			100000), records cut across the reader's 1 MiB reads
 *	empty		no record at all
 *	bad-magic	two good records, then one with a wrong magic
 *	bad-size	a record whose size is not a multiple of 8
 *	small-size	a record whose size is smaller than the header
 *	bad-payload	an entry whose nr_args + nr_stack overflow its size
 *	too-many-args	an entry with nr_args > 16 (KPT_MAX_ARGS)
 *	truncated	a good record, then one cut in the middle
 *	short-header	a good record, then 20 bytes
 *	huge-size	a record that claims 4 GiB (over KPT_MAX_RECORD)
 *	random		64 KiB of pseudo-random bytes
 *	ret32		legacy returns of an int function (probes-ret32)
 *	typed		records of spec probes (test/data/probes-typed):
 *			typed numbers, symbols, strings with escapes,
 *			faults, truncation and a bad slot, return records
 *			with arguments, legacy probes for the BTF names, an
 *			unknown probe, a large sparse id
 *	many-ids	COUNT entries (env GEN_COUNT, default 20000), entry
 *			i of probe id i if i is even, else of id 1000000 + i:
 *			many ids that no listing has, each once
 *	names		an entry and a return of probes 0, 1 and 2, for a
 *			crafted listing whose labels and names hold escapes
 *	evil		entries and returns of spec probes (probes-typed)
 *			whose comm and string arguments hold terminal
 *			escapes: ESC [2J, the C1 CSI as UTF-8 (\xc2\x9b),
 *			an OSC ended by BEL, a newline, a backslash
 *	syscalls-stack	a return of openat with 3 frames and its path
 *			after them, an exit_group entry with 1 frame
 *	syscalls	records of a syscalls probe (id 42), for kptrace
 *			syscalls -r: returns of openat (a path, ENOENT, a
 *			fault), execve, write (a comm with an escape),
 *			renameat2 (two strings), the entry of exit_group,
 *			a loss report and an entry of another probe
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uapi/kptrace.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define MAX_RECORD	(sizeof(struct kpt_event) + \
			 (17 + KPT_MAX_STACK) * sizeof(__u64))

static FILE *out;

static void emit(const void *rec, size_t len)
{
	if (fwrite(rec, 1, len, out) != len) {
		perror("gen_trace: write");
		exit(1);
	}
}

static void head(struct kpt_event *e, __u8 type, __u32 size, __u64 ts,
		 __u32 cpu, __u32 probe, __u32 pid, __u32 tid, const char *comm)
{
	static __u64 seq;

	memset(e, 0, size);
	e->magic = KPT_MAGIC;
	e->type = type;
	e->size = size;
	e->seq = ++seq;
	e->ts_ns = ts;
	e->cpu = cpu;
	e->probe_id = probe;
	e->pid = pid;
	e->tid = tid;
	/* up to 16 bytes, not necessarily NUL-terminated */
	memcpy(e->comm, comm, strnlen(comm, KPT_COMM_LEN));
}

static void entry(__u64 ts, __u32 cpu, __u32 probe, __u32 pid, __u32 tid,
		  const char *comm, __u8 flags, unsigned int nr_args,
		  const __u64 *args, unsigned int nr_stack, const __u64 *stack)
{
	__u64 rec[MAX_RECORD / 8];
	struct kpt_event *e = (struct kpt_event *)rec;
	__u32 size = sizeof(*e) + (nr_args + nr_stack) * sizeof(__u64);

	head(e, KPT_EV_ENTRY, size, ts, cpu, probe, pid, tid, comm);
	e->flags = flags;
	e->nr_args = nr_args;
	e->nr_stack = nr_stack;
	memcpy(e->data, args, nr_args * sizeof(__u64));
	memcpy(e->data + nr_args, stack, nr_stack * sizeof(__u64));
	emit(e, size);
}

static void ret(__u64 ts, __u32 cpu, __u32 probe, __u32 pid, __u32 tid,
		const char *comm, __s64 val, __u64 lat)
{
	__u64 rec[(sizeof(struct kpt_event) + sizeof(struct kpt_ret)) / 8];
	struct kpt_event *e = (struct kpt_event *)rec;
	struct kpt_ret *r = (struct kpt_ret *)e->data;

	head(e, KPT_EV_RETURN, sizeof(rec), ts, cpu, probe, pid, tid, comm);
	r->ret = val;
	r->lat_ns = lat;
	r->entry_ts_ns = ts - lat;
	emit(e, sizeof(rec));
}

static void lost(__u64 ts, __u32 cpu, __u32 cause, __u64 count)
{
	__u64 rec[(sizeof(struct kpt_event) + sizeof(struct kpt_lost)) / 8];
	struct kpt_event *e = (struct kpt_event *)rec;
	struct kpt_lost *l = (struct kpt_lost *)e->data;

	head(e, KPT_EV_LOST, sizeof(rec), ts, cpu, 0, 0, 0, "");
	l->cause = cause;
	l->count = count;
	emit(e, sizeof(rec));
}

/* An argument of a typed record: a number, or a string's bytes. */
struct targ {
	__u64 num;
	const char *str;	/* NULL: a number */
	unsigned int len;
	__u16 flags;		/* KPT_STR_* */
	__u32 bad_off;		/* if not 0: the slot points there */
};

/*
 * An entry (@r NULL) or return record of probe @probe with the arguments
 * @a, as the module writes them: slots, stack (entries; returns of a
 * syscalls probe), string bytes.
 */
static void typed(__u64 ts, __u32 probe, const char *comm,
		  const struct targ *a, unsigned int n, const __u64 *stack,
		  unsigned int nstack, const struct kpt_ret *r)
{
	__u64 rec[1024] = { 0 };
	struct kpt_event *e = (struct kpt_event *)rec;
	__u64 *slots;
	unsigned int i, off;

	head(e, r ? KPT_EV_RETURN : KPT_EV_ENTRY, sizeof(rec), ts, 1, probe,
	     500, 501, comm);
	e->nr_args = n;
	e->nr_stack = nstack;
	slots = e->data;
	if (r) {
		memcpy(e->data, r, sizeof(*r));
		slots = e->data + KPT_RET_SLOTS;
	}
	if (nstack)
		memcpy(slots + n, stack, nstack * sizeof(__u64));
	off = (char *)(slots + n + nstack) - (char *)e;
	for (i = 0; i < n; i++) {
		if (!a[i].str) {
			slots[i] = a[i].num;
			continue;
		}
		memcpy((char *)e + off, a[i].str, a[i].len);
		slots[i] = KPT_STR_SLOT(a[i].bad_off ? a[i].bad_off : off,
					a[i].len, a[i].flags);
		off += a[i].len;
	}
	e->size = (off + 7) & ~7U;
	emit(e, e->size);
}

static void gen_typed(void)
{
	static const __u64 stack[] = { 0xffffffff81234500, 0xffffffff812346b0 };
	const struct targ open1[] = {
		{ .num = (__u64)-100LL },
		{ .str = "/etc/passwd", .len = 11 },
		{ .num = 0x8000 },
		{ .num = 0x1a4 },
		{ .num = 0xffffffff812346b0 },	/* do_sys_open+0x10/0x50 */
		{ .str = "cat", .len = 3 },
	};
	const struct targ open2[] = {
		{ .num = 3 },
		{ .str = "a\"b\\c\n\x01\xff\0z", .len = 10,
		  .flags = KPT_STR_TRUNC },
		{ .num = 0xffffffff },
		{ .num = 0 },
		{ .num = 0xffffffffc0400084 },	/* kpt_test_func+0x4 [kpt_test] */
		{ .str = "", .len = 0 },
	};
	const struct targ open3[] = {
		{ .num = 0 },
		{ .str = "", .len = 0, .flags = KPT_STR_FAULT | KPT_STR_USER },
		{ .num = 1 },
		{ .num = 2 },
		{ .num = 0x10 },		/* no symbol */
		{ .str = "x", .len = 1, .bad_off = 4000 },
	};
	const struct targ ret1[] = {
		{ .num = (__u64)-100LL },
		{ .str = "/tmp/x", .len = 6, .flags = KPT_STR_USER },
		{ .num = (__u64)-2LL },
	};
	const struct targ ret2[] = {
		{ .num = 5 },
		{ .str = "/very/long/pa", .len = 13,
		  .flags = KPT_STR_USER | KPT_STR_TRUNC },
		{ .num = 7 },
	};
	const struct targ legacy[] = {
		{ .num = 0xffffff9c }, { .num = 0x7ffc12345678 },
		{ .num = 0xffff888012345678 }, { .num = 4 }, { .num = 5 },
		{ .num = 6 },
	};
	const struct targ test6[] = {
		{ .num = 1 }, { .num = 0x1111 }, { .num = 0x2222 },
		{ .num = 0x3333 }, { .num = 0x4444 }, { .num = 0x5555 },
	};
	struct kpt_ret r1 = { .ret = -2, .lat_ns = 1500,
			      .entry_ts_ns = 2000000000ULL - 1500 };
	struct kpt_ret r2 = { .ret = 7, .lat_ns = 20,
			      .entry_ts_ns = 2000000100ULL - 20 };

	typed(1000000000ULL, 7, "cat", open1, 6, stack, 2, NULL);
	typed(1000000100ULL, 7, "a b", open2, 6, stack, 1, NULL);
	typed(1000000200ULL, 7, "x", open3, 6, NULL, 0, NULL);
	typed(2000000000ULL, 1000000, "cat", ret1, 3, NULL, 0, &r1);
	typed(2000000100ULL, 1000000, "cat", ret2, 3, NULL, 0, &r2);
	typed(3000000000ULL, 3, "ls", legacy, 6, stack, 1, NULL);
	typed(3000000100ULL, 4, "kpt_test", test6, 6, NULL, 0, NULL);
	typed(3000000200ULL, 99, "who", test6, 2, NULL, 0, NULL);
	typed(3000000300ULL, 8, "many", test6, 6, NULL, 0, NULL);
}

/* KPT_STR_SYSARG()'s bits of a syscalls probe's string slot: argument n */
#define SYSARG(n)	((__u16)((n) << 8))
#define SYS_ID		42

/* A return of the syscalls probe: entry at @entry, @lat long. */
static void sys_ret(__u64 entry, __u64 lat, __s64 val, const char *comm,
		    const struct targ *a)
{
	struct kpt_ret r = { .ret = val, .lat_ns = lat, .entry_ts_ns = entry };

	typed(entry + lat, SYS_ID, comm, a, 9, NULL, 0, &r);
}

static void gen_syscalls(void)
{
	const struct targ open_ok[] = {
		{ .num = 257 }, { .num = (__u64)-100LL },
		{ .num = 0x7ffc00001000 }, { .num = 0x80000 }, { .num = 0 },
		{ .num = 0x11 }, { .num = 0x22 },
		{ .str = "/etc/passwd", .len = 11,
		  .flags = KPT_STR_USER | SYSARG(2) },
		{ .num = 0 },
	};
	const struct targ open_enoent[] = {
		{ .num = 257 }, { .num = (__u64)-100LL },
		{ .num = 0x7ffc00001000 }, { .num = 0x241 }, { .num = 0644 },
		{ .num = 0 }, { .num = 0 },
		{ .str = "/nonexistent/x", .len = 14,
		  .flags = KPT_STR_USER | SYSARG(2) },
		{ .num = 0 },
	};
	const struct targ open_fault[] = {
		{ .num = 257 }, { .num = 3 }, { .num = 0x10 }, { .num = 0 },
		{ .num = 0 }, { .num = 0 }, { .num = 0 },
		{ .str = "", .len = 0,
		  .flags = KPT_STR_USER | KPT_STR_FAULT | SYSARG(2) },
		{ .num = 0 },
	};
	const struct targ execve[] = {
		{ .num = 59 }, { .num = 0x55d0c0de0010 },
		{ .num = 0x7ffd00000100 }, { .num = 0x7ffd00000200 },
		{ .num = 0 }, { .num = 0 }, { .num = 0 },
		{ .str = "/usr/bin/ls", .len = 11,
		  .flags = KPT_STR_USER | SYSARG(1) },
		{ .num = 0 },
	};
	const struct targ write[] = {
		{ .num = 1 }, { .num = 0xffffffff00000001ULL },
		{ .num = 0x55d0c0de0000 }, { .num = 6 }, { .num = 0 },
		{ .num = 0 }, { .num = 0 }, { .num = 0 }, { .num = 0 },
	};
	const struct targ rename[] = {
		{ .num = 316 }, { .num = 3 }, { .num = 0x1000 },
		{ .num = (__u64)-100LL }, { .num = 0x2000 }, { .num = 1 },
		{ .num = 0 },
		{ .str = "b\"new", .len = 5, .flags = KPT_STR_USER | SYSARG(4) },
		{ .str = "a\\old\n", .len = 6,
		  .flags = KPT_STR_USER | KPT_STR_TRUNC | SYSARG(2) },
	};
	const struct targ exit_group[] = {
		{ .num = 231 }, { .num = 0 }, { .num = 0x1111 },
		{ .num = 0x2222 }, { .num = 0 }, { .num = 0 }, { .num = 0 },
		{ .num = 0 }, { .num = 0 },
	};
	const struct targ other[] = {
		{ .num = 1 }, { .num = 2 }, { .num = 3 }, { .num = 4 },
		{ .num = 5 }, { .num = 6 },
	};

	sys_ret(1000000000ULL, 12345, 3, "cat", open_ok);
	sys_ret(1001500000ULL, 4000, -2, "cat", open_enoent);
	typed(1001600000ULL, 3, "other", other, 6, NULL, 0, NULL);
	lost(1001700000ULL, 1, KPT_LOST_FULL, 17);
	sys_ret(1002000000ULL, 1000000, 0, "ls", execve);
	sys_ret(1003000000ULL, 2000, 6, "\x1b[2J", write);
	sys_ret(1003100000ULL, 100000, -18, "mv", rename);
	sys_ret(1003200000ULL, 500, 0, "cat", open_fault);
	typed(1004000000ULL, SYS_ID, "cat", exit_group, 9, NULL, 0, NULL);
}

/* --stack's records: a return with frames and a path, exit_group's entry */
static void gen_syscalls_stack(void)
{
	static const __u64 stack[] = {
		0xffffffff81234500,	/* do_sys_openat2+0x0/0x1a0 */
		0xffffffff812346b0,	/* do_sys_open+0x10/0x50 */
		0xffffffffc0400090,	/* kpt_test_func+0x10/0x40 [kpt_test] */
	};
	const struct targ open_enoent[] = {
		{ .num = 257 }, { .num = (__u64)-100LL },
		{ .num = 0x7ffc00001000 }, { .num = 0 }, { .num = 0 },
		{ .num = 0 }, { .num = 0 },
		{ .str = "/nonexistent/x", .len = 14,
		  .flags = KPT_STR_USER | SYSARG(2) },
		{ .num = 0 },
	};
	const struct targ exit_group[] = {
		{ .num = 231 }, { .num = 3 }, { .num = 0 }, { .num = 0 },
		{ .num = 0 }, { .num = 0 }, { .num = 0 }, { .num = 0 },
		{ .num = 0 },
	};
	struct kpt_ret r = { .ret = -2, .lat_ns = 4000,
			     .entry_ts_ns = 1000000000ULL };

	typed(1000004000ULL, SYS_ID, "cat", open_enoent, 9, stack, 3, &r);
	typed(1000100000ULL, SYS_ID, "cat", exit_group, 9, stack, 1, NULL);
}

static const __u64 args6[] = {
	0xffffff9c, 0x7ffc12345678, 0x8000, 0, 0xffffffffffffffff, 1,
};

static void gen_good(void)
{
	static const __u64 stack[] = {
		0xffffffff81234500,	/* do_sys_openat2+0x0/0x1a0 */
		0xffffffff812346b0,	/* do_sys_open+0x10/0x50 */
		0xffffffffc0400090,	/* kpt_test_func+0x10/0x40 [kpt_test] */
		0xffffffffc0400004,	/* kpt_test_call_loop+0x4/0x80 [...] */
		0xffffffff81300020,	/* alias: first name listed */
		0xffffffff80000000,	/* before the first symbol */
		0xffffffffc0500000,	/* past the last symbol */
	};
	static const __u64 hidden[] = { 0, 0 };
	static const __u64 zero_frame[] = { 0xffffffff81234500, 0 };
	static const __u64 trunc[] = { 0xffffffff812346a0 };
	__u64 unknown[10] = { 0 };
	struct kpt_event *u = (struct kpt_event *)unknown;

	entry(1000000123456ULL, 0, 0, 100, 101, "ls", 0, 6, args6, 7, stack);
	ret(1000000124690ULL, 0, 0, 100, 101, "ls", -2, 1234);
	lost(1000000200000ULL, 1, KPT_LOST_FULL, 17);
	entry(1000001000000ULL, 2, 1, 200, 200, "cat", KPT_F_ADDR_HIDDEN, 2,
	      args6, 2, hidden);
	entry(1000001000001ULL, 2, 0, 200, 200, "cat", 0, 1, args6, 2,
	      zero_frame);

	/* a type from the future: skipped by its size */
	head(u, 9, sizeof(unknown), 1000001500000ULL, 0, 0, 1, 1, "future");
	emit(u, sizeof(unknown));

	/* probe id 5 is not in the probes file; 16-byte comm with no NUL */
	entry(1000002000000ULL, 3, 5, 300, 301, "q\"b\\n\n\t\377\200\177abcdefg",
	      0, 0, NULL, 0, NULL);
	ret(1000002000100ULL, 3, 5, 300, 301, "q\"b\\n\n\t\377\200\177abcdefg",
	    0x7fffffffffffffffLL, 100);
	ret(1000002000200ULL, 3, 1, 300, 301, "neg", -0x7fffffffffffffffLL - 1,
	    0);
	entry(1000003000000ULL, 1, 0, 4242, 4243, "kworker/0:1",
	      KPT_F_STACK_TRUNC | KPT_F_SOFTIRQ, 3, args6, 1, trunc);
	lost(1000004000000ULL, 3, KPT_LOST_NESTED, 2);
	lost(1000004000001ULL, 0, KPT_LOST_OVERWRITTEN, 5);
	lost(1000004000002ULL, 0, KPT_LOST_TOO_BIG, 1);
	lost(1000004000003ULL, 0, 7, 1);
	ret(1000005000000ULL, 1, 0, 4242, 4243, "kworker/0:1", 3, 999999999);
}

static void gen_big(void)
{
	static const __u64 stack[] = {
		0xffffffffc0400080, 0xffffffffc0400010, 0xffffffff81234510,
	};
	const char *env = getenv("GEN_COUNT");
	unsigned long i, count = env ? strtoul(env, NULL, 10) : 100000;

	for (i = 1; i <= count; i++) {
		__u64 args[6] = { i, 0x1111, 0x2222, 0x3333,
				  0x4444, 0x5555 };

		/* sizes vary, so the 1 MiB reads cut records */
		entry(i * 1000, i % 4, 1, 77, 78, "kpt_test", 0,
		      i % 7 ? 6 : 1, args, i % 3 + 1, stack);
		ret(i * 1000 + 500, i % 4, 1, 77, 78, "kpt_test", -(long)i,
		    500);
		if (i % 10000 == 0)
			lost(i * 1000 + 600, 1, KPT_LOST_FULL, 3);
	}
}

static void gen_many_ids(void)
{
	const char *env = getenv("GEN_COUNT");
	unsigned long i, count = env ? strtoul(env, NULL, 10) : 20000;

	for (i = 1; i <= count; i++)
		entry(i * 1000, 0, i % 2 ? 1000000 + i : i, 77, 78,
		      "kpt_test", 0, 1, args6, 0, NULL);
}

static void gen_names(void)
{
	__u32 id;

	for (id = 0; id < 3; id++) {
		entry(1000000 + id * 1000, 0, id, 10, 11, "cat", 0, 2, args6,
		      0, NULL);
		ret(1000000 + id * 1000 + 500, 0, id, 10, 11, "cat", -2, 500);
	}
}

/*
 * Untrusted text: each comm, and the same bytes as the string arguments
 * of probe 7 (open: file, c) and 1000000 (ropen: file).
 */
static void gen_evil(void)
{
	static const char * const evil[] = {
		"\x1b[2J", "\xc2\x9b\x33\x31m" /* CSI 31m */, "a\nb", "back\\slash",
		"\x1b]0;pwned\x07",
	};
	struct kpt_ret r = { .ret = -2, .lat_ns = 100 };
	struct targ a[6] = {
		{ .num = (__u64)-100LL }, { .str = "" }, { .num = 0 },
		{ .num = 0 }, { .num = 0x10 }, { .str = "" },
	};
	unsigned int i;
	__u64 ts;

	for (i = 0; i < ARRAY_SIZE(evil); i++) {
		ts = 1000000000ULL + i * 1000;
		a[1].str = evil[i];
		a[1].len = strlen(evil[i]);
		a[5] = a[1];
		typed(ts, 7, evil[i], a, 6, NULL, 0, NULL);
		r.entry_ts_ns = ts;
		typed(ts + 100, 1000000, evil[i], a, 3, NULL, 0, &r);
	}
}

static void gen_bad(const char *kind)
{
	__u64 rec[MAX_RECORD / 8];
	struct kpt_event *e = (struct kpt_event *)rec;

	entry(1000, 0, 0, 1, 1, "ok", 0, 2, args6, 0, NULL);
	ret(2000, 0, 0, 1, 1, "ok", 0, 1000);

	if (!strcmp(kind, "bad-magic")) {
		head(e, KPT_EV_LOST, 80, 3000, 0, 0, 0, 0, "");
		e->magic = 0x4b51;
		emit(e, 80);
	} else if (!strcmp(kind, "bad-size")) {
		head(e, KPT_EV_LOST, 84, 3000, 0, 0, 0, 0, "");
		emit(e, 88);
	} else if (!strcmp(kind, "small-size")) {
		head(e, KPT_EV_LOST, 32, 3000, 0, 0, 0, 0, "");
		emit(e, 80);
	} else if (!strcmp(kind, "bad-payload")) {
		head(e, KPT_EV_ENTRY, 64 + 2 * 8, 3000, 0, 0, 1, 1, "x");
		e->nr_args = 3;
		e->nr_stack = 5;
		emit(e, 64 + 2 * 8);
	} else if (!strcmp(kind, "too-many-args")) {
		head(e, KPT_EV_ENTRY, 64 + 17 * 8, 3000, 0, 0, 1, 1, "x");
		e->nr_args = 17;
		emit(e, 64 + 17 * 8);
	} else if (!strcmp(kind, "truncated")) {
		/* the file ends in the middle of a record */
		head(e, KPT_EV_ENTRY, 64 + 4 * 8, 3000, 0, 0, 1, 1, "x");
		e->nr_args = 4;
		emit(e, 64 + 8);
		return;
	} else if (!strcmp(kind, "short-header")) {
		head(e, KPT_EV_ENTRY, 64, 3000, 0, 0, 1, 1, "x");
		emit(e, 20);
		return;
	} else if (!strcmp(kind, "huge-size")) {
		/* sound header of an unknown type, but 4 GiB long */
		head(e, 42, 64, 3000, 0, 0, 1, 1, "x");
		e->size = 0xfffffff8;
		emit(e, 64);
	} else {
		fprintf(stderr, "gen_trace: unknown kind '%s'\n", kind);
		exit(2);
	}
	/* good records after garbage must not be decoded */
	ret(4000, 0, 0, 1, 1, "after", 0, 1000);
}

static void gen_random(void)
{
	unsigned long long x = 0x9e3779b97f4a7c15ULL;
	unsigned char b[65536];
	size_t i;

	for (i = 0; i < sizeof(b); i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		b[i] = x;
	}
	/* a valid magic at the start, so the size is what gets checked */
	b[0] = KPT_MAGIC & 0xff;
	b[1] = KPT_MAGIC >> 8;
	emit(b, sizeof(b));
}

/*
 * A legacy return probe (retprobe=1) on many_args, which returns int: the
 * return register as an int's -2 leaves it, upper half zero.
 */
static void gen_ret32(void)
{
	ret(1000000000ULL, 0, 2, 10, 10, "many", 0xfffffffeLL, 500);
	ret(1000000100ULL, 0, 2, 10, 10, "many", 7, 500);
}

int main(int argc, char **argv)
{
	const char *kind;

	if (argc != 3) {
		fprintf(stderr, "usage: gen_trace KIND FILE\n");
		return 2;
	}
	kind = argv[1];
	out = fopen(argv[2], "w");
	if (!out) {
		perror(argv[2]);
		return 1;
	}
	if (!strcmp(kind, "good"))
		gen_good();
	else if (!strcmp(kind, "big"))
		gen_big();
	else if (!strcmp(kind, "random"))
		gen_random();
	else if (!strcmp(kind, "typed"))
		gen_typed();
	else if (!strcmp(kind, "ret32"))
		gen_ret32();
	else if (!strcmp(kind, "many-ids"))
		gen_many_ids();
	else if (!strcmp(kind, "names"))
		gen_names();
	else if (!strcmp(kind, "evil"))
		gen_evil();
	else if (!strcmp(kind, "syscalls"))
		gen_syscalls();
	else if (!strcmp(kind, "syscalls-stack"))
		gen_syscalls_stack();
	else if (strcmp(kind, "empty"))
		gen_bad(kind);
	if (fclose(out)) {
		perror(argv[2]);
		return 1;
	}
	return 0;
}
