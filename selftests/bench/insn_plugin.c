// SPDX-License-Identifier: GPL-2.0
/*
 * insn_plugin: a QEMU TCG plugin (not a kernel module) that gives make bench
 * the exact number of guest instructions its kernel loop executes.
 *
 * Every vCPU counts the instructions it executes: each translation block
 * adds its length to the vCPU's slot of a scoreboard when it starts (an
 * inline add, no callback). kpt_bench.c brackets its loop with markers,
 * 8-byte nops that no compiler emits, with the run's number in %rax:
 *
 *	nopl 0x4b5054NN(%rax,%rax,1)	0f 1f 84 00 NN 54 50 4b
 *
 * NN is 01 before the loop and 02 after it. When a vCPU executes a marker,
 * the plugin logs that vCPU's count to QEMU's log (-d plugin -D FILE):
 *
 *	kpt_insn: vcpu=V mark=M run=R insns=N		(M: 1 or 2, as NN)
 *
 * Only the vCPU that runs the loop is read: what the other one does (the
 * tracer's reader) never counts. A block counts whole when it starts, so a
 * marker's count includes the rest of its block: the same offset in every
 * run, gone once the no-probe run's end - start is subtracted. Interrupts
 * taken on the loop's vCPU count too (and the rest of the block each one
 * interrupted, a second time).
 *
 * With the argument profile=on (bench.sh --profile), each vCPU also counts
 * the instructions of every block it executes between its marks 1 and 2,
 * by the block's guest address, and at mark 2 logs the blocks that took
 * the most, for profile.py to name with the guest's symbols:
 *
 *	kpt_prof: run=R pc=ADDR insns=N execs=E	(PROF_TOP lines at most)
 *
 * That costs a callback per block executed, so the times of a profiled
 * run mean nothing; its marker counts stay exact.
 *
 * Build (API v4, QEMU 9.2 and later; bench.sh fetches the header):
 *	gcc -shared -fPIC -O2 -I DIR $(pkg-config --cflags glib-2.0) ...
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <glib.h>
#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

static const uint8_t insn_mark_head[4] = { 0x0f, 0x1f, 0x84, 0x00 };
static const uint8_t insn_mark_tail[3] = { 0x54, 0x50, 0x4b };

static struct qemu_plugin_scoreboard *insn_board;
static qemu_plugin_u64 insn_count;
static struct qemu_plugin_register *insn_rax;

#define PROF_VCPUS	64
#define PROF_TOP	400
/* A translated block, as profile mode counts it. */
struct prof_tb {
	uint64_t pc, insns;
};
/* What one block cost between the marks. */
struct prof_cnt {
	uint64_t pc, insns, execs;
};
static bool prof_on;
/* Per vCPU, touched by that vCPU's thread only: armed between its marks. */
static GHashTable *prof_tab[PROF_VCPUS];
static bool prof_armed[PROF_VCPUS];

static gint prof_cmp(gconstpointer a, gconstpointer b)
{
	const struct prof_cnt *x = *(struct prof_cnt * const *)a;
	const struct prof_cnt *y = *(struct prof_cnt * const *)b;

	return x->insns < y->insns ? 1 : x->insns > y->insns ? -1 : 0;
}

static void prof_dump(unsigned int vcpu, uint64_t run)
{
	GPtrArray *all = g_ptr_array_new();
	GHashTableIter it;
	gpointer k, v;
	char line[128];
	guint i;

	g_hash_table_iter_init(&it, prof_tab[vcpu]);
	while (g_hash_table_iter_next(&it, &k, &v))
		g_ptr_array_add(all, v);
	g_ptr_array_sort(all, prof_cmp);
	for (i = 0; i < all->len && i < PROF_TOP; i++) {
		struct prof_cnt *c = g_ptr_array_index(all, i);

		snprintf(line, sizeof(line), "kpt_prof: run=%" PRIu64
			 " pc=%" PRIx64 " insns=%" PRIu64 " execs=%" PRIu64 "\n",
			 run, c->pc, c->insns, c->execs);
		qemu_plugin_outs(line);
	}
	g_ptr_array_free(all, TRUE);
}

/* Marks 1 and 2 of a vCPU: start its profile, log it. */
static void prof_mark(unsigned int vcpu, unsigned int mark, uint64_t run)
{
	if (vcpu >= PROF_VCPUS)
		return;
	if (mark == 1) {
		if (prof_tab[vcpu])
			g_hash_table_destroy(prof_tab[vcpu]);
		prof_tab[vcpu] = g_hash_table_new_full(g_int64_hash,
						       g_int64_equal, NULL,
						       g_free);
		prof_armed[vcpu] = true;
	} else if (mark == 2 && prof_armed[vcpu]) {
		prof_armed[vcpu] = false;
		prof_dump(vcpu, run);
	}
}

static void prof_tb_exec(unsigned int vcpu, void *udata)
{
	const struct prof_tb *tb = udata;
	struct prof_cnt *c;

	if (vcpu >= PROF_VCPUS || !prof_armed[vcpu])
		return;
	c = g_hash_table_lookup(prof_tab[vcpu], &tb->pc);
	if (!c) {
		c = g_new0(struct prof_cnt, 1);
		c->pc = tb->pc;
		g_hash_table_insert(prof_tab[vcpu], &c->pc, c);
	}
	c->insns += tb->insns;
	c->execs++;
}

static void insn_mark(unsigned int vcpu, void *udata)
{
	GByteArray *buf = g_byte_array_new();
	uint64_t run = 0;
	char line[128];

	if (insn_rax && qemu_plugin_read_register(insn_rax, buf) == 8)
		memcpy(&run, buf->data, 8);	/* x86: little endian, as here */
	g_byte_array_free(buf, TRUE);
	snprintf(line, sizeof(line),
		 "kpt_insn: vcpu=%u mark=%u run=%" PRIu64 " insns=%" PRIu64 "\n",
		 vcpu, (unsigned int)(uintptr_t)udata, run,
		 qemu_plugin_u64_get(insn_count, vcpu));
	qemu_plugin_outs(line);
	if (prof_on)
		prof_mark(vcpu, (unsigned int)(uintptr_t)udata, run);
}

static void insn_tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);
	uint8_t b[8];

	qemu_plugin_register_vcpu_tb_exec_inline_per_vcpu(tb,
							  QEMU_PLUGIN_INLINE_ADD_U64,
							  insn_count, n);
	if (prof_on) {
		/* lives as long as the block may run: never freed */
		struct prof_tb *p = g_new(struct prof_tb, 1);

		p->pc = qemu_plugin_tb_vaddr(tb);
		p->insns = n;
		qemu_plugin_register_vcpu_tb_exec_cb(tb, prof_tb_exec,
						     QEMU_PLUGIN_CB_NO_REGS, p);
	}
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);

		if (qemu_plugin_insn_size(insn) != sizeof(b) ||
		    qemu_plugin_insn_data(insn, b, sizeof(b)) != sizeof(b) ||
		    memcmp(b, insn_mark_head, 4) || memcmp(b + 5, insn_mark_tail, 3))
			continue;
		qemu_plugin_register_vcpu_insn_exec_cb(insn, insn_mark,
						       QEMU_PLUGIN_CB_R_REGS,
						       (void *)(uintptr_t)b[4]);
	}
}

/* The register list exists only in a vCPU's context; vCPU 0 starts first */
static void insn_vcpu_init(qemu_plugin_id_t id, unsigned int vcpu)
{
	GArray *regs;
	guint i;

	if (vcpu)
		return;
	regs = qemu_plugin_get_registers();
	for (i = 0; !insn_rax && i < regs->len; i++) {
		qemu_plugin_reg_descriptor *r;

		r = &g_array_index(regs, qemu_plugin_reg_descriptor, i);
		if (!strcmp(r->name, "rax"))
			insn_rax = r->handle;
	}
	g_array_free(regs, TRUE);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	int i;

	if (strcmp(info->target_name, "x86_64")) {
		fprintf(stderr, "insn_plugin: x86_64 guests only, not %s\n",
			info->target_name);
		return -1;
	}
	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "profile=", 8) &&
		    qemu_plugin_bool_parse("profile", argv[i] + 8, &prof_on))
			continue;
		fprintf(stderr, "insn_plugin: unknown argument %s\n", argv[i]);
		return -1;
	}
	insn_board = qemu_plugin_scoreboard_new(sizeof(uint64_t));
	insn_count = qemu_plugin_scoreboard_u64(insn_board);
	qemu_plugin_register_vcpu_init_cb(id, insn_vcpu_init);
	qemu_plugin_register_vcpu_tb_trans_cb(id, insn_tb_trans);
	return 0;
}
