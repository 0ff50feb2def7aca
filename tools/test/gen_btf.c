// SPDX-License-Identifier: GPL-2.0
/*
 * gen_btf: writes a small BTF for the host tests of the BTF names, as
 * /sys/kernel/btf has them: DIR/vmlinux (raw BTF) and DIR/kpt_test (split
 * BTF on it, as a module's). The bytes are written here, by the format of
 * ../kbtf_format.h: no libbpf.
 *
 *	gen_btf DIR [empty|seed|layout|seed-layout]
 *
 * With "empty", DIR/vmlinux only has an int: BTF that knows no function.
 * With "seed", DIR/seed is the fuzzer's input made of the two files: the
 * size of vmlinux (4 bytes, little-endian), vmlinux, then kpt_test.
 * With "layout", both files have 7.1's header and layout section, and
 * vmlinux a type of kind 20, which no kernel has yet, that the layout
 * section tells a reader how to step over. "seed-layout" is the seed of
 * those.
 *
 * vmlinux (with a type of every kind before the functions, so that a
 * reader has to step over each):
 *	long do_sys_openat2(int dfd, const char *filename, struct open_how *how);
 *	ssize_t vfs_read(struct file *file, char *buf, size_t count, loff_t *pos);
 *	ssize_t vfs_write(struct file *file, const char *buf, size_t count, loff_t *pos);
 *	int many_args(int a, long b, char c, unsigned short d, void *e,
 *		      unsigned long long f, int g, short h);
 *	int big_struct(struct big16 s, int x, struct big32 t, int y);
 *	void with_float(double d, int x);
 *	bool cpu_fn(int cpu, enum sgn e, enum usgn u, bool b);
 *	int printk_like(const char *fmt, ...);
 *	static long tagged(const char __user *ubuf, enum big64 v,
 *			   volatile int *vp, union u8x8 uu, enum ubig64 w,
 *			   int *restrict r, char (*arr)[16], struct fwd *fw);
 *	int fn_ptr(tagged_fn *cb, void *v);
 * kpt_test:
 *	long kpt_test_func(unsigned long a, ..., unsigned long f);
 *	int kpt_test_own(struct kpt_own *o, enum kpt_mode m);
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../kbtf_format.h"

#define GEN_TYPES_MAX	8192
#define GEN_STRS_MAX	4096
/* the made-up kind of "layout": 4 bytes, then vlen times 8 */
#define GEN_KIND_NEW	20

/* A BTF being written: vmlinux's, or a module's split on @base. */
struct gen {
	char types[GEN_TYPES_MAX];
	size_t types_len;
	char strs[GEN_STRS_MAX];
	size_t strs_len;
	__u32 start_id, ntypes, start_str;
	const struct gen *base;
	bool layout;		/* 7.1's header and layout section */
};

static void gen__init(struct gen *g, const struct gen *base)
{
	memset(g, 0, sizeof(*g));
	g->base = base;
	if (base) {
		g->start_id = base->start_id + base->ntypes;
		g->start_str = base->start_str + base->strs_len;
	} else {
		g->start_id = 1;
		g->strs_len = 1;	/* "" at 0 */
	}
}

static void gen__full(void)
{
	fprintf(stderr, "gen_btf: buffer too small\n");
	exit(1);
}

/* The offset of string @s, added if vmlinux's and @g's do not have it. */
static __u32 gen__str(struct gen *g, const char *s)
{
	size_t len = strlen(s) + 1, i;
	const struct gen *b;

	if (!*s)
		return 0;
	for (b = g->base; b; b = b->base)
		for (i = 0; i + len <= b->strs_len; i++)
			if (!memcmp(b->strs + i, s, len))
				return b->start_str + i;
	for (i = 0; i + len <= g->strs_len; i++)
		if (!memcmp(g->strs + i, s, len))
			return g->start_str + i;
	if (g->strs_len + len > sizeof(g->strs))
		gen__full();
	memcpy(g->strs + g->strs_len, s, len);
	g->strs_len += len;
	return g->start_str + g->strs_len - len;
}

static void gen__u32(struct gen *g, __u32 v)
{
	if (g->types_len + sizeof(v) > sizeof(g->types))
		gen__full();
	memcpy(g->types + g->types_len, &v, sizeof(v));
	g->types_len += sizeof(v);
}

/* A type record; what follows it is added by the caller. Its id. */
static __u32 gen__type(struct gen *g, const char *name, unsigned int kind,
		       unsigned int vlen, bool kflag, __u32 size_or_type)
{
	gen__u32(g, gen__str(g, name));
	gen__u32(g, kbtf_info(kind, vlen, kflag));
	gen__u32(g, size_or_type);
	return g->start_id + g->ntypes++;
}

static __u32 gen__int(struct gen *g, const char *name, __u32 size,
		      unsigned int encoding)
{
	__u32 id = gen__type(g, name, KBTF_KIND_INT, 0, false, size);

	gen__u32(g, encoding << 24 | size * 8);
	return id;
}

/* A type that only refers to another: PTR, CONST, TYPEDEF... */
static __u32 gen__ref(struct gen *g, unsigned int kind, const char *name,
		      __u32 type)
{
	return gen__type(g, name, kind, 0, false, type);
}

/* A struct or union of @n members: name, type, bit offset. */
static __u32 gen__struct(struct gen *g, unsigned int kind, const char *name,
			 __u32 size, unsigned int n, ...)
{
	__u32 id = gen__type(g, name, kind, n, false, size);
	va_list ap;

	va_start(ap, n);
	while (n--) {
		gen__u32(g, gen__str(g, va_arg(ap, const char *)));
		gen__u32(g, va_arg(ap, __u32));
		gen__u32(g, va_arg(ap, __u32));
	}
	va_end(ap);
	return id;
}

/* An enum of @n values: name, value; signed (kflag) if a value is < 0. */
static __u32 gen__enum(struct gen *g, const char *name, unsigned int n, ...)
{
	size_t at = g->types_len;
	unsigned int i, vlen = n;
	bool is_signed = false;
	__u32 id, info;
	va_list ap;
	int val;

	id = gen__type(g, name, KBTF_KIND_ENUM, vlen, false, 4);
	va_start(ap, n);
	for (i = 0; i < vlen; i++) {
		gen__u32(g, gen__str(g, va_arg(ap, const char *)));
		val = va_arg(ap, int);
		is_signed |= val < 0;
		gen__u32(g, (__u32)val);
	}
	va_end(ap);
	/* the kflag, known now: the info word of the record at @at */
	info = kbtf_info(KBTF_KIND_ENUM, vlen, is_signed);
	memcpy(g->types + at + 4, &info, sizeof(info));
	return id;
}

/* An 8-byte enum of one value. */
static __u32 gen__enum64(struct gen *g, const char *name, const char *vname,
			 long long val)
{
	__u32 id = gen__type(g, name, KBTF_KIND_ENUM64, 1, val < 0, 8);

	gen__u32(g, gen__str(g, vname));
	gen__u32(g, (__u32)val);
	gen__u32(g, (__u32)((unsigned long long)val >> 32));
	return id;
}

/* A FUNC_PROTO returning @ret, of @n parameters: name, type. */
static __u32 gen__proto(struct gen *g, __u32 ret, unsigned int n, ...)
{
	__u32 id = gen__type(g, "", KBTF_KIND_FUNC_PROTO, n, false, ret);
	va_list ap;

	va_start(ap, n);
	while (n--) {
		gen__u32(g, gen__str(g, va_arg(ap, const char *)));
		gen__u32(g, va_arg(ap, __u32));
	}
	va_end(ap);
	return id;
}

static __u32 gen__func(struct gen *g, const char *name, __u32 proto,
		       unsigned int linkage)
{
	return gen__type(g, name, KBTF_KIND_FUNC, linkage, false, proto);
}

/* The file's bytes: header, types, strings, and the layout section. */
static size_t gen__bytes(const struct gen *g, char *buf, size_t len)
{
	struct kbtf_raw_layout layout[GEN_KIND_NEW + 1] = {
		[KBTF_KIND_INT] = { 4, 0 },
		[KBTF_KIND_ARRAY] = { sizeof(struct kbtf_raw_array), 0 },
		[KBTF_KIND_STRUCT] = { 0, sizeof(struct kbtf_raw_member) },
		[KBTF_KIND_UNION] = { 0, sizeof(struct kbtf_raw_member) },
		[KBTF_KIND_ENUM] = { 0, sizeof(struct kbtf_raw_enum) },
		[KBTF_KIND_FUNC_PROTO] = { 0, sizeof(struct kbtf_raw_param) },
		[KBTF_KIND_VAR] = { sizeof(struct kbtf_raw_var), 0 },
		[KBTF_KIND_DATASEC] = {
			0, sizeof(struct kbtf_raw_var_secinfo) },
		[KBTF_KIND_DECL_TAG] = { sizeof(struct kbtf_raw_decl_tag), 0 },
		[KBTF_KIND_ENUM64] = { 0, sizeof(struct kbtf_raw_enum64) },
		[GEN_KIND_NEW] = { 4, 8 },
	};
	size_t hlen = g->layout ? sizeof(struct kbtf_raw_header) :
				  KBTF_HDR_LEN_V1;
	size_t pad = g->layout ? (4 - g->strs_len % 4) % 4 : 0;
	size_t llen = g->layout ? sizeof(layout) : 0;
	struct kbtf_raw_header h = {
		.magic = KBTF_MAGIC,
		.version = KBTF_VERSION,
		.hdr_len = hlen,
		.type_off = 0,
		.type_len = g->types_len,
		.str_off = g->types_len,
		.str_len = g->strs_len,
		.layout_off = g->types_len + g->strs_len + pad,
		.layout_len = llen,
	};
	size_t size = hlen + g->types_len + g->strs_len + pad + llen;

	if (size > len)
		gen__full();
	memset(buf, 0, size);
	memcpy(buf, &h, hlen);
	memcpy(buf + hlen, g->types, g->types_len);
	memcpy(buf + hlen + g->types_len, g->strs, g->strs_len);
	memcpy(buf + hlen + h.layout_off, layout, llen);
	return size;
}

static void save(const char *dir, const char *name, const void *data,
		 size_t size)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f || fwrite(data, 1, size, f) != size || fclose(f)) {
		perror(path);
		exit(1);
	}
}

static struct gen btf, mod;
static char out[2][sizeof(struct gen)], seed[2 * sizeof(struct gen) + 4];

int main(int argc, char **argv)
{
	__u32 t_int, t_long, t_ulong, t_char, t_cchar, t_pcchar, t_pchar;
	__u32 t_ushort, t_short, t_ull, t_void_p, t_bool, t_double;
	__u32 t_how, t_phow, t_file, t_pfile, t_ssize, t_size, t_loff, t_ploff;
	__u32 t_big16, t_big32, t_sgn, t_usgn, p, f, t_own, t_mode;
	__u32 t_user, t_arr, t_parr, t_u8x8, t_fwd, t_vol, t_pvol, t_pint;
	__u32 t_restrict, t_big64, t_ubig64, t_var, t_fn, t_pfn;
	size_t n0, n1;

	const char *mode = argc == 3 ? argv[2] : "";

	if (argc < 2 || argc > 3 || (*mode && strcmp(mode, "empty") &&
				     strcmp(mode, "seed") &&
				     strcmp(mode, "layout") &&
				     strcmp(mode, "seed-layout"))) {
		fprintf(stderr,
			"usage: gen_btf DIR [empty|seed|layout|seed-layout]\n");
		return 2;
	}
	gen__init(&btf, NULL);
	btf.layout = strstr(mode, "layout");
	t_int = gen__int(&btf, "int", 4, KBTF_INT_SIGNED);
	if (!strcmp(mode, "empty")) {
		save(argv[1], "vmlinux", out[0],
		     gen__bytes(&btf, out[0], sizeof(out[0])));
		return 0;
	}
	if (btf.layout) {
		gen__type(&btf, "new_kind", GEN_KIND_NEW, 2, true, t_int);
		gen__u32(&btf, 0xffffffff);
		gen__u32(&btf, 0xffffffff);
		gen__u32(&btf, 0xffffffff);
		gen__u32(&btf, 0xffffffff);
		gen__u32(&btf, 0xffffffff);
	}
	t_long = gen__int(&btf, "long int", 8, KBTF_INT_SIGNED);
	t_ulong = gen__int(&btf, "long unsigned int", 8, 0);
	t_char = gen__int(&btf, "char", 1, KBTF_INT_SIGNED | KBTF_INT_CHAR);
	t_ushort = gen__int(&btf, "short unsigned int", 2, 0);
	t_short = gen__int(&btf, "short int", 2, KBTF_INT_SIGNED);
	t_ull = gen__int(&btf, "long long unsigned int", 8, 0);
	t_bool = gen__int(&btf, "_Bool", 1, KBTF_INT_BOOL);
	t_double = gen__type(&btf, "double", KBTF_KIND_FLOAT, 0, false, 8);
	t_cchar = gen__ref(&btf, KBTF_KIND_CONST, "", t_char);
	t_pcchar = gen__ref(&btf, KBTF_KIND_PTR, "", t_cchar);
	t_pchar = gen__ref(&btf, KBTF_KIND_PTR, "", t_char);
	t_void_p = gen__ref(&btf, KBTF_KIND_PTR, "", 0);
	t_how = gen__struct(&btf, KBTF_KIND_STRUCT, "open_how", 24, 0);
	t_phow = gen__ref(&btf, KBTF_KIND_PTR, "", t_how);
	t_file = gen__struct(&btf, KBTF_KIND_STRUCT, "file", 256, 0);
	t_pfile = gen__ref(&btf, KBTF_KIND_PTR, "", t_file);
	t_ssize = gen__ref(&btf, KBTF_KIND_TYPEDEF, "ssize_t", t_long);
	t_size = gen__ref(&btf, KBTF_KIND_TYPEDEF, "size_t", t_ulong);
	t_loff = gen__ref(&btf, KBTF_KIND_TYPEDEF, "loff_t", t_long);
	t_ploff = gen__ref(&btf, KBTF_KIND_PTR, "", t_loff);
	t_big16 = gen__struct(&btf, KBTF_KIND_STRUCT, "big16", 16, 2,
			      "a", t_long, 0, "b", t_long, 64);
	t_big32 = gen__struct(&btf, KBTF_KIND_STRUCT, "big32", 32, 0);
	t_sgn = gen__enum(&btf, "sgn", 1, "SGN_NEG", -1);
	t_usgn = gen__enum(&btf, "usgn", 1, "USGN_A", 1);

	/* the kinds the functions above do not use, each once at least */
	t_user = gen__ref(&btf, KBTF_KIND_TYPE_TAG, "user", t_cchar);
	t_arr = gen__type(&btf, "", KBTF_KIND_ARRAY, 0, false, 0);
	gen__u32(&btf, t_char);
	gen__u32(&btf, t_int);
	gen__u32(&btf, 16);
	t_parr = gen__ref(&btf, KBTF_KIND_PTR, "", t_arr);
	t_u8x8 = gen__struct(&btf, KBTF_KIND_UNION, "u8x8", 8, 2,
			     "l", t_long, 0, "c", t_char, 0);
	t_fwd = gen__ref(&btf, KBTF_KIND_FWD, "fwd", 0);
	t_vol = gen__ref(&btf, KBTF_KIND_VOLATILE, "", t_int);
	t_pvol = gen__ref(&btf, KBTF_KIND_PTR, "", t_vol);
	t_pint = gen__ref(&btf, KBTF_KIND_PTR, "", t_int);
	t_restrict = gen__ref(&btf, KBTF_KIND_RESTRICT, "", t_pint);
	t_big64 = gen__enum64(&btf, "big64", "BIG_NEG", -(1LL << 40));
	t_ubig64 = gen__enum64(&btf, "ubig64", "UBIG", 1LL << 40);
	t_var = gen__type(&btf, "some_var", KBTF_KIND_VAR, 0, false, t_int);
	gen__u32(&btf, 1);
	gen__type(&btf, ".data", KBTF_KIND_DATASEC, 1, false, 4);
	gen__u32(&btf, t_var);
	gen__u32(&btf, 0);
	gen__u32(&btf, 4);

	p = gen__proto(&btf, t_long, 3, "dfd", t_int, "filename", t_pcchar,
		       "how", t_phow);
	gen__func(&btf, "do_sys_openat2", p, KBTF_FUNC_GLOBAL);

	p = gen__proto(&btf, t_ssize, 4, "file", t_pfile, "buf", t_pchar,
		       "count", t_size, "pos", t_ploff);
	gen__func(&btf, "vfs_read", p, KBTF_FUNC_GLOBAL);

	p = gen__proto(&btf, t_ssize, 4, "file", t_pfile, "buf", t_pcchar,
		       "count", t_size, "pos", t_ploff);
	gen__func(&btf, "vfs_write", p, KBTF_FUNC_GLOBAL);

	p = gen__proto(&btf, t_int, 8, "a", t_int, "b", t_long, "c", t_char,
		       "d", t_ushort, "e", t_void_p, "f", t_ull, "g", t_int,
		       "h", t_short);
	gen__func(&btf, "many_args", p, KBTF_FUNC_GLOBAL);

	p = gen__proto(&btf, t_int, 4, "s", t_big16, "x", t_int,
		       "t", t_big32, "y", t_int);
	gen__func(&btf, "big_struct", p, KBTF_FUNC_GLOBAL);

	p = gen__proto(&btf, 0, 2, "d", t_double, "x", t_int);
	gen__func(&btf, "with_float", p, KBTF_FUNC_GLOBAL);

	p = gen__proto(&btf, t_bool, 4, "cpu", t_int, "e", t_sgn,
		       "u", t_usgn, "b", t_bool);
	gen__func(&btf, "cpu_fn", p, KBTF_FUNC_GLOBAL);

	p = gen__proto(&btf, t_int, 2, "fmt", t_pcchar, "", 0);
	gen__func(&btf, "printk_like", p, KBTF_FUNC_GLOBAL);

	p = gen__proto(&btf, t_long, 8, "ubuf",
		       gen__ref(&btf, KBTF_KIND_PTR, "", t_user), "v", t_big64,
		       "vp", t_pvol, "uu", t_u8x8, "w", t_ubig64,
		       "r", t_restrict, "arr", t_parr,
		       "fw", gen__ref(&btf, KBTF_KIND_PTR, "", t_fwd));
	f = gen__func(&btf, "tagged", p, KBTF_FUNC_STATIC);
	gen__type(&btf, "user", KBTF_KIND_DECL_TAG, 0, false, f);
	gen__u32(&btf, 0);

	t_fn = gen__ref(&btf, KBTF_KIND_TYPEDEF, "tagged_fn", p);
	t_pfn = gen__ref(&btf, KBTF_KIND_PTR, "", t_fn);
	p = gen__proto(&btf, t_int, 2, "cb", t_pfn, "v", t_void_p);
	gen__func(&btf, "fn_ptr", p, KBTF_FUNC_GLOBAL);

	/* kpt_test: on vmlinux's types and strings, and its own */
	gen__init(&mod, &btf);
	mod.layout = btf.layout;
	p = gen__proto(&mod, t_long, 6, "a", t_ulong, "b", t_ulong,
		       "c", t_ulong, "d", t_ulong, "e", t_ulong, "f", t_ulong);
	gen__func(&mod, "kpt_test_func", p, KBTF_FUNC_GLOBAL);
	t_own = gen__struct(&mod, KBTF_KIND_STRUCT, "kpt_own", 4, 1,
			    "x", t_int, 0);
	t_mode = gen__enum(&mod, "kpt_mode", 2, "KPT_MODE_A", 0,
			   "KPT_MODE_B", 1);
	p = gen__proto(&mod, t_int, 2, "o",
		       gen__ref(&mod, KBTF_KIND_PTR, "", t_own), "m", t_mode);
	gen__func(&mod, "kpt_test_own", p, KBTF_FUNC_GLOBAL);

	n0 = gen__bytes(&btf, out[0], sizeof(out[0]));
	n1 = gen__bytes(&mod, out[1], sizeof(out[1]));
	if (!strncmp(mode, "seed", 4)) {
		seed[0] = n0;
		seed[1] = n0 >> 8;
		seed[2] = n0 >> 16;
		seed[3] = n0 >> 24;
		memcpy(seed + 4, out[0], n0);
		memcpy(seed + 4 + n0, out[1], n1);
		save(argv[1], "seed", seed, 4 + n0 + n1);
		return 0;
	}
	save(argv[1], "vmlinux", out[0], n0);
	save(argv[1], "kpt_test", out[1], n1);
	return 0;
}
