// SPDX-License-Identifier: GPL-2.0
/*
 * kptrace: the module parameters. Checked once at load time, into kpt_cfg
 * (config.h), and the probes they name made (name=, address=, probe=).
 *
 *   insmod kptrace.ko name=do_sys_openat2 retprobe=1 stack=16
 *   insmod kptrace.ko probe='r do_sys_openat2 path=+0($arg2):ustring if retval < 0'
 *
 * Every refused parameter fails the load with an errno and exactly one log
 * line naming the value and the reason, and leaves nothing behind.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/kallsyms.h>
#include <linux/ctype.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "config.h"
#include "probe.h"
#include "session.h"
#include "ring.h"

#define KPT_RING_MAX_KB		(1024 * 1024)	/* 1 GiB per CPU */
#define KPT_MAX_PROBES		64	/* name= and address= items */
#define KPT_MAX_REG_ARGS	6	/* args=: x86-64's argument registers */

static char *name;
module_param(name, charp, 0444);
MODULE_PARM_DESC(name, "probe points: comma-separated SYMBOL or SYMBOL+OFFSET");

static char *address;
module_param(address, charp, 0444);
MODULE_PARM_DESC(address, "probe points: comma-separated hex kernel text addresses");

static char *probe;
module_param(probe, charp, 0444);
MODULE_PARM_DESC(probe, "probe specs in the kprobe_events language, ';'-separated");

static unsigned int args = KPT_MAX_REG_ARGS;
module_param(args, uint, 0444);
MODULE_PARM_DESC(args, "register arguments recorded per entry, 0-6 (default 6)");

static bool retprobe;
module_param(retprobe, bool, 0444);
MODULE_PARM_DESC(retprobe, "also record every return: value and latency (default 0)");

static unsigned int stack = 16;
module_param(stack, uint, 0444);
MODULE_PARM_DESC(stack, "kernel stack frames per entry, 0-64 (default 16)");

/* Unset: KPT_RING_AUTO_KB, or less on a small machine (kpt_ring_auto_kb()) */
#define KPT_RING_UNSET		UINT_MAX
#define KPT_RING_AUTO_KB	8192
static unsigned int bufsize_kb = KPT_RING_UNSET;
module_param(bufsize_kb, uint, 0444);
MODULE_PARM_DESC(bufsize_kb, "ring size per possible CPU in KiB, rounded up to a power of two (default 8192, less when all CPUs' rings would take more than 1/32 of RAM; at least 1024)");

static bool overwrite;
module_param(overwrite, bool, 0444);
MODULE_PARM_DESC(overwrite, "when a ring is full: 0 drop new events, 1 overwrite the oldest (default 0)");

static bool wake_net_only;
module_param(wake_net_only, bool, 0444);
MODULE_PARM_DESC(wake_net_only, "for the selftests: writers never wake a sleeping reader, only the timer net does (default 0)");

static unsigned int maxactive;
module_param(maxactive, uint, 0444);
MODULE_PARM_DESC(maxactive, "kretprobe instances in flight, up to 4096 (default max(20, 2 x CPUs))");

static unsigned int strsize = 256;
module_param(strsize, uint, 0444);
MODULE_PARM_DESC(strsize, "bytes kept of each string argument, 1-4096 (default 256)");

static char *clock;
module_param(clock, charp, 0444);
MODULE_PARM_DESC(clock, "the default session's clock: auto, mono (CLOCK_MONOTONIC) or local (sched_clock); default auto: mono unless that reads a device");

static unsigned int mem_max_mb;
module_param(mem_max_mb, uint, 0444);
MODULE_PARM_DESC(mem_max_mb, "MiB of hist tables, return probe instances and sessions' rings over all probes and sessions (default 1/8 of RAM)");

struct kpt_config kpt_cfg __read_mostly;

static int kpt_count_items(const char *list)
{
	int n;

	if (!list || !*list)
		return 0;
	for (n = 1; *list; list++)
		n += *list == ',';
	return n;
}

/*
 * The default ring: 8 MiB per CPU holds a burst of ~87000 four-argument
 * entries while the reader catches up; halved until the rings of all
 * possible CPUs together take at most 1/32 of RAM, down to 1 MiB.
 */
static unsigned int __init kpt_ring_auto_kb(void)
{
	unsigned long budget = (totalram_pages() << PAGE_SHIFT) / 32;
	unsigned int kb = KPT_RING_AUTO_KB;

	while (kb > 1024 && (unsigned long)kb * 1024 * num_possible_cpus() >
			    budget)
		kb /= 2;
	return kb;
}

/* Check the settings and fill kpt_cfg; one log line for a refusal. */
int __init kpt_params_check(void)
{
	unsigned int reserve = KPT_ENTRY_SIZE(args, stack);
	unsigned long bytes;

	if (args > KPT_MAX_REG_ARGS) {
		pr_err("args=%u: at most %d register arguments (-EINVAL)\n",
		       args, KPT_MAX_REG_ARGS);
		return -EINVAL;
	}
	if (stack > KPT_MAX_STACK) {
		pr_err("stack=%u: at most %d frames (-EINVAL)\n",
		       stack, KPT_MAX_STACK);
		return -EINVAL;
	}
	if (!strsize || strsize > KPT_STRSIZE_MAX) {
		pr_err("strsize=%u: must be 1 to %d bytes (-EINVAL)\n",
		       strsize, KPT_STRSIZE_MAX);
		return -EINVAL;
	}
	if (kpt_count_items(name) + kpt_count_items(address) > KPT_MAX_PROBES) {
		pr_err("name=/address=: %d probe points, at most %d (-E2BIG)\n",
		       kpt_count_items(name) + kpt_count_items(address),
		       KPT_MAX_PROBES);
		return -E2BIG;
	}
	if (maxactive > KPT_MAXACTIVE_MAX) {
		pr_err("maxactive=%u: at most %d instances (-EINVAL)\n",
		       maxactive, KPT_MAXACTIVE_MAX);
		return -EINVAL;
	}
	if (!maxactive)
		maxactive = max(20U, 2 * num_possible_cpus());
	if (!clock || !strcmp(clock, "auto")) {
		kpt_cfg.clock = KPT_CLOCK_AUTO;
	} else if (!strcmp(clock, "mono")) {
		kpt_cfg.clock = KPT_CLOCK_MONO;
	} else if (!strcmp(clock, "local")) {
		kpt_cfg.clock = KPT_CLOCK_LOCAL;
	} else {
		pr_err("clock=%.32s: not auto, mono or local (-EINVAL)\n", clock);
		return -EINVAL;
	}

	if (bufsize_kb == KPT_RING_UNSET)
		bufsize_kb = kpt_ring_auto_kb();	/* shown in sysfs */
	if (bufsize_kb > KPT_RING_MAX_KB) {
		pr_err("bufsize_kb=%u: larger than the %u KiB per CPU limit (-EINVAL)\n",
		       bufsize_kb, KPT_RING_MAX_KB);
		return -EINVAL;
	}
	bytes = roundup_pow_of_two(max_t(unsigned long, bufsize_kb * 1024UL,
					 KPT_RING_MIN));
	if (!bufsize_kb || bytes < 2UL * reserve) {
		pr_err("bufsize_kb=%u: too small, a ring must hold two records of %u bytes (-EINVAL)\n",
		       bufsize_kb, reserve);
		return -EINVAL;
	}
	if ((bytes >> PAGE_SHIFT) * num_possible_cpus() > totalram_pages() / 2) {
		pr_err("bufsize_kb=%u: %u rings of %lu KiB need more than half of RAM (-ENOMEM)\n",
		       bufsize_kb, num_possible_cpus(), bytes >> 10);
		return -ENOMEM;
	}

	kpt_cfg.args = args;
	kpt_cfg.stack = stack;
	kpt_cfg.overwrite = overwrite;
	kpt_cfg.ring_bytes = bytes;
	kpt_cfg.strsize = strsize;
	kpt_cfg.maxactive = maxactive;
	kpt_cfg.wake_net_only = wake_net_only;
	kpt_cfg.bufsize_kb = bufsize_kb;
	if (!mem_max_mb)	/* shown in sysfs */
		mem_max_mb = max(1UL, (totalram_pages() << PAGE_SHIFT) / 8 >> 20);
	kpt_cfg.mem_max = (u64)mem_max_mb << 20;
	return 0;
}

/*
 * name=/address= items: "sym", "sym+off" or a hex address, made into a
 * spec that records args= registers named arg0..: a p probe, or with
 * retprobe=1 a b probe (entry and return records).
 */
static int kpt_probe_param(const char *param, const char *item,
			   bool retprobe)
{
	char *plus, line[KPT_SPEC_SYM_LEN + 32], label[KSYM_SYMBOL_LEN];
	struct kpt_spec *spec;
	unsigned long addr;
	unsigned int i, off = 0;
	size_t len;
	int ret;

	spec = kzalloc(sizeof(*spec), GFP_KERNEL);
	if (!spec)
		return -ENOMEM;
	spec->kind = retprobe ? KPT_SPEC_BOTH : KPT_SPEC_ENTRY;
	strscpy(spec->group, "kptrace", sizeof(spec->group));
	scnprintf(line, sizeof(line), "%s=%s", param, item);
	if (!strcmp(param, "name")) {
		if (strscpy(spec->sym, item, sizeof(spec->sym)) < 0) {
			pr_err("name=%.32s...: symbol name too long (-EINVAL)\n",
			       item);
			ret = -EINVAL;
			goto err;
		}
		plus = strchr(spec->sym, '+');
		if (plus) {
			if (plus == spec->sym || kstrtouint(plus + 1, 0, &off)) {
				pr_err("name=%s: expected SYMBOL or SYMBOL+OFFSET (-EINVAL)\n",
				       item);
				ret = -EINVAL;
				goto err;
			}
			*plus = '\0';
		}
		if (retprobe && off) {
			pr_err("name=%s: retprobe=1 needs a function entry, not an offset (-EINVAL)\n",
			       item);
			ret = -EINVAL;
			goto err;
		}
		plus = strchr(spec->sym, ':');
		if (plus) {
			*plus = '\0';
			strscpy(spec->mod, spec->sym, sizeof(spec->mod));
			memmove(spec->sym, plus + 1, strlen(plus + 1) + 1);
		}
		spec->offset = off;
	} else {
		if (kstrtoul(item, 16, &addr) || !addr) {
			pr_err("address=%s: not a hexadecimal address (-EINVAL)\n",
			       item);
			ret = -EINVAL;
			goto err;
		}
		spec->addr = addr;
	}
	/*
	 * The name its events carry: the item, or for an address "sym+0xoff"
	 * as given (never the raw address; the kprobe core may move the probe
	 * past an endbr64), made before the probe is armed.
	 */
	strscpy(label, item, sizeof(label));
	if (!spec->sym[0]) {
		sprint_symbol(label, spec->addr);
		plus = strchr(label, '/');
		if (plus)
			*plus = '\0';
	}
	/*
	 * A name the spec language takes back: address items get "a_", and
	 * a point given twice gets "_2", "_3"...
	 */
	scnprintf(spec->name, sizeof(spec->name), "%s%s",
		  spec->sym[0] ? "" : "a_", item);
	for (plus = spec->name; *plus; plus++)
		if (!isalnum(*plus) && *plus != '_')
			*plus = '_';
	len = strlen(spec->name);
	for (i = 2; kpt_probe_find(kpt_default_session, spec->group,
				   spec->name); i++)
		scnprintf(spec->name + min_t(size_t, len, KPT_SPEC_NAME_LEN - 8),
			  8, "_%u", i);
	spec->nargs = kpt_cfg.args;
	for (i = 0; i < spec->nargs; i++) {
		spec->args[i].base = KPT_FB_ARG;
		spec->args[i].index = i + 1;
		spec->args[i].type = KPT_T_X64;
		scnprintf(spec->args[i].name, KPT_SPEC_NAME_LEN, "arg%u", i);
	}
	return kpt_probe_create(kpt_default_session, spec, label, line);

err:
	kfree(spec);
	return ret;
}

/**
 * kpt_probes_add_param() - the probes of the name= or address= parameter
 * @param: "name" or "address"
 * @list: comma-separated items, or NULL
 * @retprobe: the retprobe= parameter
 */
static int kpt_probes_add_param(const char *param, const char *list,
				bool retprobe)
{
	char *copy, *cur, *item;
	int ret = 0;

	if (!list || !*list)
		return 0;
	copy = kstrdup(list, GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	mutex_lock(&kpt_probes_mutex);
	cur = copy;
	while (!ret && (item = strsep(&cur, ","))) {
		item = strim(item);
		if (!*item) {
			pr_err("%s=%s: empty item in the list (-EINVAL)\n",
			       param, list);
			ret = -EINVAL;
			break;
		}
		ret = kpt_probe_param(param, item, retprobe);
	}
	mutex_unlock(&kpt_probes_mutex);
	kfree(copy);
	return ret;
}

/* The probes of name=, address= and probe=, in that order. */
int __init kpt_params_add_probes(void)
{
	int ret;

	ret = kpt_probes_add_param("name", name, retprobe);
	if (!ret)
		ret = kpt_probes_add_param("address", address, retprobe);
	if (!ret && probe)
		ret = kpt_probes_write(kpt_default_session, probe,
				       strlen(probe), ';');
	return ret;
}
