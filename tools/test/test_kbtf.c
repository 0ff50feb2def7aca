// SPDX-License-Identifier: GPL-2.0
/*
 * test_kbtf: unit tests of the BTF reader (kbtf.c, built here under
 * AddressSanitizer and UBSan), on test/gen_btf's BTF.
 *
 *	test_kbtf BTF_DIR LAYOUT_DIR WORK_DIR
 *
 * Every function of BTF_DIR/vmlinux and BTF_DIR/kpt_test has the expected
 * signature: names, C types, fetches and fetch types, with a type of every
 * BTF kind on the way; the same in LAYOUT_DIR (gen_btf's "layout": 7.1's
 * header and layout section, and a kind no kernel has yet, stepped over).
 * Then the files are input gone wrong, written to WORK_DIR: every cut of
 * each file, every byte of each set to a few values, and headers, kinds,
 * layouts and references made up to be wrong. Nothing
 * may read out of bounds (ASan), a cut file must be refused, and every
 * answer must be 0, -ENOENT or -ENODATA with a reason. Prints "ok N" /
 * "not ok N" lines, then "N passed, N failed"; exit status 1 if any failed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kbtf.h"
#include "kbtf_format.h"
#include "spec.h"
#include "ktap.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static const char *work;

/* The signature of @func as one line: "name ctype fetch:type[,str]; ..." */
static int sig(struct kbtf *kbtf, const char *mod, const char *func,
	       char *buf, size_t len, const char **why)
{
	const struct kbtf_param *p;
	struct kbtf_func fn;
	unsigned int i;
	size_t n = 0;
	int ret;

	*why = "";
	buf[0] = '\0';
	ret = kbtf__func(kbtf, mod, func, &fn, why);
	if (ret)
		return ret;
	n += snprintf(buf + n, len - n, "ret=%s",
		      fn.ret_type < 0 ? "-" : kpt_type_names[fn.ret_type]);
	for (i = 0; i < fn.nparams && n < len; i++) {
		p = &fn.params[i];
		n += snprintf(buf + n, len - n, "; %s %s %s:%s%s", p->name,
			      p->ctype, p->fetch[0] ? p->fetch : "-",
			      p->type < 0 ? "-" : kpt_type_names[p->type],
			      p->char_ptr ? ",str" : "");
	}
	if (fn.vararg && n < len)
		snprintf(buf + n, len - n, "; ...");
	return 0;
}

static void expect(struct kbtf *kbtf, const char *mod, const char *func,
		   const char *want)
{
	char got[1024], name[128];
	const char *why;
	int ret;

	ret = sig(kbtf, mod, func, got, sizeof(got), &why);
	snprintf(name, sizeof(name), "signature of %s%s%s", mod ? mod : "",
		 mod ? ":" : "", func);
	result(!ret && !strcmp(got, want), name,
	       "ret %d (%s)\n# got:  %s\n# want: %s", ret, why, got, want);
}

static void signatures(const char *dir, bool all)
{
	struct kbtf *kbtf = kbtf__new(dir);
	const char *why;
	char got[256];
	int ret;

	printf("# %s\n", dir);
	expect(kbtf, NULL, "do_sys_openat2",
	       "ret=s64; dfd int $arg1:s32; filename const char * $arg2:x64,str; how struct open_how * $arg3:x64");
	expect(kbtf, NULL, "vfs_read",
	       "ret=s64; file struct file * $arg1:x64; buf char * $arg2:x64,str; count size_t $arg3:u64; pos loff_t * $arg4:x64");
	expect(kbtf, NULL, "many_args",
	       "ret=s32; a int $arg1:s32; b long int $arg2:s64; c char $arg3:s8; d short unsigned int $arg4:u16; e void * $arg5:x64; f long long unsigned int $arg6:u64; g int $stack1:s32; h short int $stack2:s16");
	expect(kbtf, NULL, "big_struct",
	       "ret=s32; s struct big16 -:-; x int $arg3:s32; t struct big32 -:-; y int $arg4:s32");
	expect(kbtf, NULL, "with_float",
	       "ret=-; d double -:-; x int $arg1:s32");
	expect(kbtf, NULL, "cpu_fn",
	       "ret=u8; cpu int $arg1:s32; e enum sgn $arg2:s32; u enum usgn $arg3:u32; b _Bool $arg4:u8");
	expect(kbtf, NULL, "printk_like",
	       "ret=s32; fmt const char * $arg1:x64,str; ...");
	/* TYPE_TAG, ENUM64, VOLATILE, UNION, RESTRICT, ARRAY, FWD */
	expect(kbtf, NULL, "tagged",
	       "ret=s64; ubuf const char * $arg1:x64,str; v enum big64 $arg2:s64; vp int * $arg3:x64; uu union u8x8 $arg4:x64; w enum ubig64 $arg5:u64; r int * $arg6:x64; arr ? * $stack1:x64; fw fwd * $stack2:x64");
	expect(kbtf, NULL, "fn_ptr",
	       "ret=s32; cb tagged_fn * $arg1:x64; v void * $arg2:x64");
	/* split BTF: vmlinux's types and strings, and the module's own */
	expect(kbtf, "kpt_test", "kpt_test_func",
	       "ret=s64; a long unsigned int $arg1:u64; b long unsigned int $arg2:u64; c long unsigned int $arg3:u64; d long unsigned int $arg4:u64; e long unsigned int $arg5:u64; f long unsigned int $arg6:u64");
	expect(kbtf, "kpt_test", "kpt_test_own",
	       "ret=s32; o struct kpt_own * $arg1:x64; m enum kpt_mode $arg2:u32");
	/* libbpf's order: a module's lookup sees vmlinux's functions first */
	expect(kbtf, "kpt_test", "many_args",
	       "ret=s32; a int $arg1:s32; b long int $arg2:s64; c char $arg3:s8; d short unsigned int $arg4:u16; e void * $arg5:x64; f long long unsigned int $arg6:u64; g int $stack1:s32; h short int $stack2:s16");

	if (!all) {
		kbtf__free(kbtf);
		return;
	}
	ret = sig(kbtf, NULL, "kpt_test_func", got, sizeof(got), &why);
	result(ret == -ENOENT, "a module's function is not vmlinux's",
	       "ret %d", ret);
	ret = sig(kbtf, NULL, "some_var", got, sizeof(got), &why);
	result(ret == -ENOENT, "a VAR is not a function", "ret %d", ret);
	ret = sig(kbtf, NULL, "", got, sizeof(got), &why);
	result(ret == -ENOENT, "no function has an empty name", "ret %d", ret);
	ret = sig(kbtf, "nosuch", "f", got, sizeof(got), &why);
	snprintf(got, sizeof(got),
		 "cannot read %s/nosuch: No such file or directory (module not loaded, or built without BTF)",
		 dir);
	result(ret == -ENODATA && !strcmp(why, got), "missing module BTF",
	       "ret %d why '%s'", ret, why);
	kbtf__free(kbtf);

	kbtf = kbtf__new("/nonexistent");
	ret = sig(kbtf, NULL, "f", got, sizeof(got), &why);
	result(ret == -ENODATA &&
	       !strcmp(why, "cannot read /nonexistent/vmlinux: No such file or directory"),
	       "missing vmlinux BTF", "ret %d why '%s'", ret, why);
	ret = sig(kbtf, "kpt_test", "f", got, sizeof(got), &why);
	result(ret == -ENODATA && strstr(why, "/nonexistent/vmlinux"),
	       "a module's BTF needs vmlinux's", "ret %d why '%s'", ret, why);
	kbtf__free(kbtf);
}

static char *slurp(const char *dir, const char *name, size_t *size)
{
	char path[4096], *buf;
	FILE *f;
	long n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	n = f && !fseek(f, 0, SEEK_END) ? ftell(f) : -1;
	if (n < 0 || fseek(f, 0, SEEK_SET)) {
		perror(path);
		exit(2);
	}
	buf = malloc(n ? n : 1);
	if (!buf || fread(buf, 1, n, f) != (size_t)n) {
		perror(path);
		exit(2);
	}
	fclose(f);
	*size = n;
	return buf;
}

static void put(const char *name, const void *data, size_t size)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", work, name);
	/* a new file, not one cut to 0: ext4 would flush it at close */
	unlink(path);
	f = fopen(path, "w");
	if (!f || fwrite(data, 1, size, f) != size || fclose(f)) {
		perror(path);
		exit(2);
	}
}

static const char * const funcs[] = {
	"do_sys_openat2", "vfs_read", "vfs_write", "many_args", "big_struct",
	"with_float", "cpu_fn", "printk_like", "tagged", "fn_ptr",
	"kpt_test_func", "kpt_test_own",
};

/*
 * Every function, from vmlinux and from kpt_test, of the files in WORK_DIR.
 * Returns how many answers were 0, -1 if one was not 0, -ENOENT or
 * -ENODATA, or had no reason, or a string without its NUL.
 */
static int ask_all(const char **why)
{
	struct kbtf *kbtf = kbtf__new(work);
	struct kbtf_func fn;
	unsigned int i, m, j;
	int ret, found = 0;

	for (m = 0; m < 2; m++) {
		for (i = 0; i < ARRAY_SIZE(funcs); i++) {
			*why = NULL;
			ret = kbtf__func(kbtf, m ? "kpt_test" : NULL, funcs[i],
					 &fn, why);
			if (ret == -ENODATA && *why && **why)
				continue;
			if (ret == -ENOENT)
				continue;
			if (ret || fn.nparams > KBTF_MAX_PARAMS) {
				found = -1;
				break;
			}
			for (j = 0; j < fn.nparams; j++)
				if (!memchr(fn.params[j].name, 0,
					    sizeof(fn.params[j].name)) ||
				    !memchr(fn.params[j].ctype, 0,
					    sizeof(fn.params[j].ctype)) ||
				    !memchr(fn.params[j].fetch, 0,
					    sizeof(fn.params[j].fetch)))
					found = -1;
			if (found < 0)
				break;
			found++;
		}
	}
	kbtf__free(kbtf);
	return found;
}

/* Loads @vml as vmlinux and @mod as kpt_test; the answer for @func. */
static int load(const void *vml, size_t vsize, const void *mod, size_t msize,
		const char *modname, const char *func, const char **why,
		struct kbtf_func *fn)
{
	static struct kbtf_func dummy;
	struct kbtf *kbtf;
	int ret;

	put("vmlinux", vml, vsize);
	put("kpt_test", mod, msize);
	kbtf = kbtf__new(work);
	ret = kbtf__func(kbtf, modname, func, fn ? fn : &dummy, why);
	/* *why lives in kbtf: keep a copy */
	if (*why) {
		static char copy[4400];

		snprintf(copy, sizeof(copy), "%s", *why);
		*why = copy;
	}
	kbtf__free(kbtf);
	return ret;
}

static void cuts(const char *vml, size_t vsize, const char *mod,
		 size_t msize)
{
	unsigned int bad = 0, n;
	const char *why = NULL;
	char first[256] = "";
	size_t len;
	int ret;

	for (len = 0, n = 0; len < vsize; len++, n++) {
		ret = load(vml, len, mod, msize, NULL, "do_sys_openat2", &why,
			   NULL);
		if (ret != -ENODATA || !strstr(why, "invalid BTF")) {
			if (!bad++)
				snprintf(first, sizeof(first),
					 "cut at %zu: ret %d (%s)", len, ret,
					 why);
		}
	}
	result(!bad, "every cut of vmlinux is refused",
	       "%u of %u not refused; first %s", bad, n, first);

	bad = 0;
	for (len = 0, n = 0; len < msize; len++, n++) {
		ret = load(vml, vsize, mod, len, "kpt_test", "kpt_test_func",
			   &why, NULL);
		if (ret != -ENODATA || !strstr(why, "invalid BTF")) {
			if (!bad++)
				snprintf(first, sizeof(first),
					 "cut at %zu: ret %d (%s)", len, ret,
					 why);
		}
		/* vmlinux is whole: its functions still answer */
		ret = load(vml, vsize, mod, len, NULL, "vfs_read", &why, NULL);
		if (ret && !bad++)
			snprintf(first, sizeof(first),
				 "vfs_read with kpt_test cut at %zu: %d", len,
				 ret);
	}
	result(!bad, "every cut of a module's BTF is refused, vmlinux's stays",
	       "%u of %u wrong; first %s", bad, n, first);
}

/* Every byte of each file set to each of a few values: no crash. */
static void garbles(const char *vml, size_t vsize, const char *mod,
		    size_t msize)
{
	static const unsigned char vals[] = { 0x00, 0xff, 0x80, 0x13 };
	unsigned int bad = 0, runs = 0, refused = 0;
	char *v = malloc(vsize), *m = malloc(msize);
	const char *why = "";
	size_t i, j, k;
	int found;

	if (!v || !m)
		exit(2);
	for (k = 0; k < 2; k++) {
		size_t size = k ? msize : vsize;

		for (i = 0; i < size; i++) {
			for (j = 0; j < sizeof(vals); j++) {
				memcpy(v, vml, vsize);
				memcpy(m, mod, msize);
				if (k)
					m[i] = vals[j];
				else
					v[i] = vals[j];
				if ((unsigned char)(k ? mod : vml)[i] == vals[j])
					continue;
				put("vmlinux", v, vsize);
				put("kpt_test", m, msize);
				found = ask_all(&why);
				runs++;
				if (found < 0)
					bad++;
				else if (!found)
					refused++;
			}
		}
	}
	free(v);
	free(m);
	result(!bad, "garbled bytes: only 0, -ENOENT or -ENODATA answers",
	       "%u of %u bad", bad, runs);
	printf("# %u garbled files, %u with no function found\n", runs,
	       refused);
}

/* A vmlinux of the header @h (types @types, strings "\0int\0f\0"). */
static int made_up(const struct kbtf_raw_header *h, const void *types,
		   size_t tsize, const char *func, const char **why,
		   struct kbtf_func *fn)
{
	static const char strs[] = "\0int\0f";
	static char buf[512];
	size_t n = sizeof(*h);

	memcpy(buf, h, sizeof(*h));
	memcpy(buf + n, types, tsize);
	n += tsize;
	memcpy(buf + n, strs, sizeof(strs));
	n += sizeof(strs);
	return load(buf, n, "", 0, NULL, func, why, fn);
}

static void made_up_files(void)
{
	/* 1: int; 2: proto int (int); 3: FUNC f */
	__u32 good[] = {
		1, kbtf_info(KBTF_KIND_INT, 0, 0), 4, KBTF_INT_SIGNED << 24 | 32,
		0, kbtf_info(KBTF_KIND_FUNC_PROTO, 1, 0), 1, 0, 1,
		5, kbtf_info(KBTF_KIND_FUNC, 1, 0), 2,
	};
	__u32 types[sizeof(good) / 4 + 8];
	struct kbtf_raw_header h0 = {
		.magic = KBTF_MAGIC, .version = KBTF_VERSION,
		.hdr_len = sizeof(h0), .type_off = 0, .type_len = sizeof(good),
		.str_off = sizeof(good), .str_len = 7,
	}, h;
	const struct {
		const char *name;
		__u32 *field;
		__u32 val;
		const char *want;
	} hdrs[] = {
		{ "header length past the file", &h.hdr_len, 0xffffffff,
		  "bad header length" },
		{ "header length short", &h.hdr_len, 8, "bad header length" },
		{ "type section wraps 32 bits", &h.type_off, 0xfffffff0,
		  "type section overlaps" },
		{ "string section past the end", &h.str_len, 0xffffffff,
		  "past the end of the file" },
		{ "string offset wraps 32 bits", &h.str_off, 0xfffffffc,
		  "past the end of the file" },
		{ "type section misaligned", &h.type_off, 2, "not aligned" },
		{ "strings without their NUL", &h.str_len, 6,
		  "does not end with a NUL" },
		{ "type section cut", &h.type_len, sizeof(good) - 4,
		  "ends inside a type" },
	};
	struct kbtf_func fn;
	const char *why;
	unsigned int i;
	int ret;

	ret = made_up(&h0, good, sizeof(good), "f", &why, NULL);
	result(!ret, "made up: a good one", "ret %d (%s)", ret, why);

	for (i = 0; i < ARRAY_SIZE(hdrs); i++) {
		h = h0;
		*(__u32 *)((char *)&h + ((char *)hdrs[i].field - (char *)&h)) =
			hdrs[i].val;
		ret = made_up(&h, good, sizeof(good), "f", &why, NULL);
		result(ret == -ENODATA && strstr(why, hdrs[i].want),
		       hdrs[i].name, "ret %d (%s)", ret, why);
	}

	h = h0;
	h.magic = 0x9feb;
	ret = made_up(&h, good, sizeof(good), "f", &why, NULL);
	result(ret == -ENODATA && strstr(why, "other byte order"),
	       "byte-swapped BTF", "ret %d (%s)", ret, why);
	h = h0;
	h.version = 2;
	ret = made_up(&h, good, sizeof(good), "f", &why, NULL);
	result(ret == -ENODATA && strstr(why, "BTF version 2"),
	       "BTF version 2", "ret %d (%s)", ret, why);

	/* kinds unknown (20: after ENUM64; 31: the last) and 0 */
	for (i = 0; i < 3; i++) {
		unsigned int kind = i == 0 ? 20 : i == 1 ? 31 : 0;
		char want[64];

		memcpy(types, good, sizeof(good));
		types[4] = 0;
		types[5] = kbtf_info(kind, 1, 0);
		snprintf(want, sizeof(want), "type 2 is of kind %u, unknown",
			 kind);
		ret = made_up(&h0, types, sizeof(good), "f", &why, NULL);
		result(ret == -ENODATA && strstr(why, want), want,
		       "ret %d (%s)", ret, why);
	}

	/* a vlen far past the section */
	memcpy(types, good, sizeof(good));
	types[5] = kbtf_info(KBTF_KIND_FUNC_PROTO, 0xffff, 0);
	ret = made_up(&h0, types, sizeof(good), "f", &why, NULL);
	result(ret == -ENODATA && strstr(why, "ends inside a type"),
	       "vlen past the section", "ret %d (%s)", ret, why);

	/* references out of range: a name, a type, a parameter's type */
	memcpy(types, good, sizeof(good));
	types[0] = 7;
	ret = made_up(&h0, types, sizeof(good), "f", &why, NULL);
	result(ret == -ENODATA && strstr(why, "type 1 refers past"),
	       "name offset past the strings", "ret %d (%s)", ret, why);
	memcpy(types, good, sizeof(good));
	types[11] = 4;
	ret = made_up(&h0, types, sizeof(good), "f", &why, NULL);
	result(ret == -ENODATA && strstr(why, "type 3 refers past"),
	       "FUNC of a type past the types", "ret %d (%s)", ret, why);
	memcpy(types, good, sizeof(good));
	types[8] = 0x12345678;
	ret = made_up(&h0, types, sizeof(good), "f", &why, NULL);
	result(ret == -ENODATA && strstr(why, "type 2 refers past"),
	       "parameter of a type past the types", "ret %d (%s)", ret, why);

	/* a FUNC whose type is not a FUNC_PROTO: not a function */
	memcpy(types, good, sizeof(good));
	types[11] = 1;
	ret = made_up(&h0, types, sizeof(good), "f", &why, NULL);
	result(ret == -ENOENT, "FUNC of an INT", "ret %d (%s)", ret, why);

	/*
	 * Loops: the parameter a typedef of itself (4), the return a pointer
	 * to itself (5). An answer, in bounded time.
	 */
	memcpy(types, good, sizeof(good));
	types[6] = 5;
	types[8] = 4;
	types[12] = 1;
	types[13] = kbtf_info(KBTF_KIND_TYPEDEF, 0, 0);
	types[14] = 4;
	types[15] = 0;
	types[16] = kbtf_info(KBTF_KIND_PTR, 0, 0);
	types[17] = 5;
	h = h0;
	h.type_len = sizeof(good) + 24;
	h.str_off = h.type_len;
	ret = made_up(&h, types, h.type_len, "f", &why, &fn);
	result(!ret && fn.nparams == 1 && fn.ret_type == KPT_T_X64,
	       "types that refer to themselves", "ret %d (%s)", ret, why);
}

/* 7.1's layout section, made wrong. */
static void layouts(const char *vml, size_t vsize)
{
	const struct kbtf_raw_header *h0 = (const void *)vml;
	struct kbtf_raw_layout *l;
	struct kbtf_raw_header *h;
	const char *why;
	char *v;
	int ret;

	v = malloc(vsize);
	if (!v)
		exit(2);
	h = (void *)v;
	l = (void *)(v + h0->hdr_len + h0->layout_off);

	/* no layout: the new kind cannot be stepped over */
	memcpy(v, vml, vsize);
	h->layout_len = 0;
	ret = load(v, vsize, "", 0, NULL, "tagged", &why, NULL);
	result(ret == -ENODATA &&
	       strstr(why, "kind 20, unknown here (BTF of a kernel newer than 7.2?)"),
	       "a new kind without a layout section is refused",
	       "ret %d (%s)", ret, why);

	/* a layout that leaves the new kind out */
	memcpy(v, vml, vsize);
	h->layout_len = 20 * sizeof(*l);
	ret = load(v, vsize, "", 0, NULL, "tagged", &why, NULL);
	result(ret == -ENODATA && strstr(why, "kind 20, unknown here"),
	       "a new kind the layout section leaves out is refused",
	       "ret %d (%s)", ret, why);

	/* a layout that does not describe INT as it is */
	memcpy(v, vml, vsize);
	l[KBTF_KIND_INT].info_sz = 8;
	ret = load(v, vsize, "", 0, NULL, "tagged", &why, NULL);
	result(ret == -ENODATA && strstr(why, "type 1: the layout section says kind 1"),
	       "a layout that disagrees with a known kind is refused",
	       "ret %d (%s)", ret, why);

	/* a new kind of a size that runs past the type section: its vlen */
	memcpy(v, vml, vsize);
	((struct kbtf_raw_type *)(v + h->hdr_len + h->type_off + 16))->info =
		kbtf_info(20, 0xffffff, 1);
	ret = load(v, vsize, "", 0, NULL, "tagged", &why, NULL);
	result(ret == -ENODATA && strstr(why, "ends inside a type"),
	       "a new kind's size past the type section is refused",
	       "ret %d (%s)", ret, why);

	/* a new kind's size that is not a multiple of 4 */
	memcpy(v, vml, vsize);
	l[20].info_sz = 3;
	ret = load(v, vsize, "", 0, NULL, "tagged", &why, NULL);
	result(ret == -ENODATA && strstr(why, "not a multiple of 4"),
	       "a new kind's size that is not a multiple of 4 is refused",
	       "ret %d (%s)", ret, why);

	/* the layout section past the end, and wrapping 32 bits */
	memcpy(v, vml, vsize);
	h->layout_len = 0x100;
	ret = load(v, vsize, "", 0, NULL, "tagged", &why, NULL);
	result(ret == -ENODATA && strstr(why, "layout section past the end"),
	       "a layout section past the end is refused",
	       "ret %d (%s)", ret, why);
	memcpy(v, vml, vsize);
	h->layout_off = 0xfffffff0;
	ret = load(v, vsize, "", 0, NULL, "tagged", &why, NULL);
	result(ret == -ENODATA && strstr(why, "layout section past the end"),
	       "a layout offset wrapping 32 bits is refused",
	       "ret %d (%s)", ret, why);

	/* a 24-byte header: the layout fields are the types' first bytes */
	memcpy(v, vml, vsize);
	h->hdr_len = KBTF_HDR_LEN_V1;
	h->type_off = 8;
	h->str_off += 8;
	ret = load(v, vsize, "", 0, NULL, "tagged", &why, NULL);
	result(ret == -ENODATA, "an old header is not read past its length",
	       "ret %d (%s)", ret, why);
	free(v);
}

int main(int argc, char **argv)
{
	size_t vsize, msize;
	char *vml, *mod;

	unsigned int i;

	if (argc != 4) {
		fprintf(stderr, "usage: test_kbtf BTF_DIR LAYOUT_DIR WORK_DIR\n");
		return 2;
	}
	work = argv[3];
	setvbuf(stdout, NULL, _IOLBF, 0);
	signatures(argv[1], true);
	signatures(argv[2], false);
	for (i = 1; i <= 2; i++) {
		printf("# %s\n", argv[i]);
		vml = slurp(argv[i], "vmlinux", &vsize);
		mod = slurp(argv[i], "kpt_test", &msize);
		cuts(vml, vsize, mod, msize);
		garbles(vml, vsize, mod, msize);
		if (i == 2)
			layouts(vml, vsize);
		free(vml);
		free(mod);
	}
	made_up_files();
	printf("1..%d\n%d passed, %d failed\n", nr, nr - failed, failed);
	return failed ? 1 : 0;
}
