// SPDX-License-Identifier: GPL-2.0
/*
 * gen_btf: writes a small BTF for the host tests of the BTF names, as
 * /sys/kernel/btf has them: DIR/vmlinux (raw BTF) and DIR/kpt_test (split
 * BTF on it, as a module's). Made with libbpf's BTF writer.
 *
 *	gen_btf DIR [empty]
 *
 * With "empty", DIR/vmlinux only has an int: BTF that knows no function.
 *
 * vmlinux:
 *	long do_sys_openat2(int dfd, const char *filename, struct open_how *how);
 *	ssize_t vfs_read(struct file *file, char *buf, size_t count, loff_t *pos);
 *	ssize_t vfs_write(struct file *file, const char *buf, size_t count, loff_t *pos);
 *	int many_args(int a, long b, char c, unsigned short d, void *e,
 *		      unsigned long long f, int g, short h);
 *	int big_struct(struct big16 s, int x, struct big32 t, int y);
 *	void with_float(double d, int x);
 *	bool cpu_fn(int cpu, enum sgn e, enum usgn u, bool b);
 *	int printk_like(const char *fmt, ...);
 * kpt_test:
 *	long kpt_test_func(unsigned long a, ..., unsigned long f);
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

static int check(int id, const char *what)
{
	if (id < 0) {
		fprintf(stderr, "gen_btf: %s: %s\n", what, strerror(-id));
		exit(1);
	}
	return id;
}

static void save(struct btf *btf, const char *dir, const char *name)
{
	char path[4096];
	const void *data;
	__u32 size;
	FILE *f;

	data = btf__raw_data(btf, &size);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!data || !f || fwrite(data, 1, size, f) != size || fclose(f)) {
		perror(path);
		exit(1);
	}
}

/* A function @name of prototype @proto. */
static void func(struct btf *btf, const char *name, int proto)
{
	check(btf__add_func(btf, name, BTF_FUNC_GLOBAL, proto), name);
}

static void param(struct btf *btf, const char *name, int type)
{
	check(btf__add_func_param(btf, name, type), name);
}

int main(int argc, char **argv)
{
	int t_int, t_long, t_ulong, t_char, t_cchar, t_pcchar, t_pchar;
	int t_ushort, t_short, t_ull, t_void_p, t_bool, t_double;
	int t_how, t_phow, t_file, t_pfile, t_ssize, t_size, t_loff, t_ploff;
	int t_big16, t_big32, t_sgn, t_usgn, p;
	struct btf *btf, *mod;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: gen_btf DIR [empty]\n");
		return 2;
	}
	btf = btf__new_empty();
	if (!btf)
		return 1;
	t_int = check(btf__add_int(btf, "int", 4, BTF_INT_SIGNED), "int");
	if (argc == 3) {
		save(btf, argv[1], "vmlinux");
		btf__free(btf);
		return 0;
	}
	t_long = check(btf__add_int(btf, "long int", 8, BTF_INT_SIGNED), "l");
	t_ulong = check(btf__add_int(btf, "long unsigned int", 8, 0), "ul");
	t_char = check(btf__add_int(btf, "char", 1, BTF_INT_SIGNED |
				    BTF_INT_CHAR), "char");
	t_ushort = check(btf__add_int(btf, "short unsigned int", 2, 0), "us");
	t_short = check(btf__add_int(btf, "short int", 2, BTF_INT_SIGNED),
			"short");
	t_ull = check(btf__add_int(btf, "long long unsigned int", 8, 0),
		      "ull");
	t_bool = check(btf__add_int(btf, "_Bool", 1, BTF_INT_BOOL), "bool");
	t_double = check(btf__add_float(btf, "double", 8), "double");
	t_cchar = check(btf__add_const(btf, t_char), "const");
	t_pcchar = check(btf__add_ptr(btf, t_cchar), "ptr");
	t_pchar = check(btf__add_ptr(btf, t_char), "ptr");
	t_void_p = check(btf__add_ptr(btf, 0), "void *");
	t_how = check(btf__add_struct(btf, "open_how", 24), "open_how");
	t_phow = check(btf__add_ptr(btf, t_how), "ptr");
	t_file = check(btf__add_struct(btf, "file", 256), "file");
	t_pfile = check(btf__add_ptr(btf, t_file), "ptr");
	t_ssize = check(btf__add_typedef(btf, "ssize_t", t_long), "ssize_t");
	t_size = check(btf__add_typedef(btf, "size_t", t_ulong), "size_t");
	t_loff = check(btf__add_typedef(btf, "loff_t", t_long), "loff_t");
	t_ploff = check(btf__add_ptr(btf, t_loff), "ptr");
	t_big16 = check(btf__add_struct(btf, "big16", 16), "big16");
	check(btf__add_field(btf, "a", t_long, 0, 0), "a");
	check(btf__add_field(btf, "b", t_long, 64, 0), "b");
	t_big32 = check(btf__add_struct(btf, "big32", 32), "big32");
	t_sgn = check(btf__add_enum(btf, "sgn", 4), "sgn");
	check(btf__add_enum_value(btf, "SGN_NEG", -1), "v");
	t_usgn = check(btf__add_enum(btf, "usgn", 4), "usgn");
	check(btf__add_enum_value(btf, "USGN_A", 1), "v");
	/* libbpf marks an enum with a negative value signed (kflag) */

	p = check(btf__add_func_proto(btf, t_long), "proto");
	param(btf, "dfd", t_int);
	param(btf, "filename", t_pcchar);
	param(btf, "how", t_phow);
	func(btf, "do_sys_openat2", p);

	p = check(btf__add_func_proto(btf, t_ssize), "proto");
	param(btf, "file", t_pfile);
	param(btf, "buf", t_pchar);
	param(btf, "count", t_size);
	param(btf, "pos", t_ploff);
	func(btf, "vfs_read", p);

	p = check(btf__add_func_proto(btf, t_ssize), "proto");
	param(btf, "file", t_pfile);
	param(btf, "buf", t_pcchar);
	param(btf, "count", t_size);
	param(btf, "pos", t_ploff);
	func(btf, "vfs_write", p);

	p = check(btf__add_func_proto(btf, t_int), "proto");
	param(btf, "a", t_int);
	param(btf, "b", t_long);
	param(btf, "c", t_char);
	param(btf, "d", t_ushort);
	param(btf, "e", t_void_p);
	param(btf, "f", t_ull);
	param(btf, "g", t_int);
	param(btf, "h", t_short);
	func(btf, "many_args", p);

	p = check(btf__add_func_proto(btf, t_int), "proto");
	param(btf, "s", t_big16);
	param(btf, "x", t_int);
	param(btf, "t", t_big32);
	param(btf, "y", t_int);
	func(btf, "big_struct", p);

	p = check(btf__add_func_proto(btf, 0), "proto");
	param(btf, "d", t_double);
	param(btf, "x", t_int);
	func(btf, "with_float", p);

	p = check(btf__add_func_proto(btf, t_bool), "proto");
	param(btf, "cpu", t_int);
	param(btf, "e", t_sgn);
	param(btf, "u", t_usgn);
	param(btf, "b", t_bool);
	func(btf, "cpu_fn", p);

	p = check(btf__add_func_proto(btf, t_int), "proto");
	param(btf, "fmt", t_pcchar);
	check(btf__add_func_param(btf, "", 0), "...");
	func(btf, "printk_like", p);

	save(btf, argv[1], "vmlinux");

	mod = btf__new_empty_split(btf);
	if (!mod)
		return 1;
	p = check(btf__add_func_proto(mod, t_long), "proto");
	param(mod, "a", t_ulong);
	param(mod, "b", t_ulong);
	param(mod, "c", t_ulong);
	param(mod, "d", t_ulong);
	param(mod, "e", t_ulong);
	param(mod, "f", t_ulong);
	func(mod, "kpt_test_func", p);
	save(mod, argv[1], "kpt_test");

	btf__free(mod);
	btf__free(btf);
	return 0;
}
