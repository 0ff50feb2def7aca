// SPDX-License-Identifier: GPL-2.0
/*
 * kptrace: hidden addresses, for every reader of the trace: /dev/kptrace,
 * trace and trace_pipe.
 *
 * A reader that may not see kernel addresses (the rule of /proc/kallsyms:
 * without CAP_SYSLOG, or with kptr_restrict=2, decided at open by
 * kpt_addrs_visible()) gets none, in any field. Its records are edited
 * after they left the rings and before they are returned or formatted
 * (kpt_hide_addrs()), by their layout alone, with no probe lookup:
 *  - every stack slot is zeroed: an entry record's, and a return
 *    record's (a syscalls probe's with stack=);
 *  - every 64-bit value slot of an entry or return record, its args[]
 *    and kpt_ret.ret, whose value lies in the kernel half of the address
 *    space (KPT_KERNEL_HALF and up) and is not an error code (-4095..-1,
 *    IS_ERR_VALUE()) is zeroed. That covers x64 and symbol arguments,
 *    %sp, %ip, $stack and pointers returned. A string's slot is a
 *    KPT_STR_SLOT() encoding, whose offset in the record is below 64 KiB:
 *    never in that range. A negative number below -4095 is in it, and
 *    is zeroed too;
 *  - a record where anything was zeroed (one with a stack, always) gets
 *    KPT_F_ADDR_HIDDEN.
 * Narrower values (u32, x32, s16, ...) were zero- or sign-extended by
 * their type and pass unchanged: a kernel address read as s32 comes out
 * sign-extended into the kernel half anyway, and a reader who asked for a
 * pointer cut to u32 gets what was asked for. lat_ns and entry_ts_ns are
 * times. The padding after a record's last string is zeroed for every
 * reader, by the writer (fetch.c).
 */
#include <linux/kernel.h>
#include <linux/bug.h>
#include <linux/capability.h>
#include <linux/err.h>
#include <linux/security.h>
#include <linux/string.h>
#include <uapi/kptrace_record.h>
#include "config.h"
#include "hide.h"
#include "spec.h"

/*
 * Who may read what the probes recorded (records, hists, summaries): a
 * caller with CAP_PERFMON or CAP_SYS_ADMIN, at open; and nobody while the
 * kernel is locked down for confidentiality, at open and at every read,
 * as tracefs refuses its files then (LOCKDOWN_TRACEFS): the lockdown may
 * be raised after the records were made, or while a reader has them
 * open. The probes go on (they were armed before it); their counters, the
 * probes listing and deletes stay open to root. 0 or -EPERM.
 */
int kpt_records_open_check(void)
{
	if (!perfmon_capable())
		return -EPERM;
	return kpt_records_read_check();
}

int kpt_records_read_check(void)
{
	return security_locked_down(LOCKDOWN_TRACEFS);
}

/**
 * kpt_addrs_visible() - may the current task see kernel addresses?
 *
 * The rule of /proc/kallsyms (kallsyms_show_value(), which is not
 * exported): CAP_SYSLOG, and kptr_restrict below 2. %pK applies
 * kptr_restrict: at 2 it prints zeros. The capability is checked without
 * an audit record, as kallsyms does: a reader who is refused the
 * addresses still reads the trace, nothing was denied.
 */
bool kpt_addrs_visible(void)
{
	char probe[24];

	if (!ns_capable_noaudit(&init_user_ns, CAP_SYSLOG))
		return false;
	snprintf(probe, sizeof(probe), "%pK", &kpt_cfg);
	return strspn(probe, "0") != strlen(probe);
}

/*
 * Where the kernel half of x86-64's address space begins with 5-level
 * paging, whose direct map and vmalloc area lie below 0xffff800000000000
 * (the start with 4-level paging: the values in between are not canonical
 * addresses then, and hiding them costs nothing real).
 */
#define KPT_KERNEL_HALF		0xff00000000000000ULL

/* Zero @v if it may be a kernel address. Returns true if it did. */
bool kpt_hide_value(__u64 *v)
{
	if (*v < KPT_KERNEL_HALF || IS_ERR_VALUE(*v))
		return false;
	*v = 0;
	return true;
}

/**
 * kpt_hide_range() - may a value between @min and @max have been a kernel
 * address (as kpt_hide_value() sees one)?
 * @min: the least value, signed or not as @is_signed says
 * @max: the greatest
 * @is_signed: how @min and @max compare
 *
 * For a sum, min and max of many values (an aggregation's): if any of
 * them may have been an address, the three give it away.
 */
bool kpt_hide_range(__u64 min, __u64 max, bool is_signed)
{
	const __u64 lo = KPT_KERNEL_HALF, hi = (__u64)-MAX_ERRNO - 1;

	if (is_signed)
		return (__s64)min <= (__s64)hi && (__s64)max >= (__s64)lo;
	return min <= hi && max >= lo;
}

/**
 * kpt_hide_addrs() - hide the kernel addresses of whole records
 * @buf: the records, as the rings gave them
 * @len: their bytes
 *
 * See the top of this file. A record that kpt_record_check() cannot frame
 * cannot come from the rings; if one does, everything from it on is zeroed
 * and left out. One that is framed but whose content is wrong is hidden
 * whole.
 *
 * Returns the bytes of the whole records in @buf: @len, but after a WARN.
 */
size_t kpt_hide_addrs(void *buf, size_t len)
{
	enum kpt_record_err err;
	struct kpt_event *ev;
	struct kpt_ret *ret;
	unsigned int i;
	__u64 *args;
	size_t off;
	bool hid;

	/* the records this module writes pass kpt_record_check() */
	BUILD_BUG_ON(KPT_SPEC_MAX_ARGS > KPT_MAX_ARGS);
	BUILD_BUG_ON(KPT_RECORD_MAX > KPT_MAX_RECORD);

	for (off = 0; off < len; off += ev->size) {
		ev = buf + off;
		err = kpt_record_check(ev, len - off);
		if (WARN_ON_ONCE(kpt_record_unframed(err))) {
			memset(buf + off, 0, len - off);
			return off;
		}
		if (WARN_ON_ONCE(err)) {
			/* cannot happen; if it does, hide it all */
			memset(ev->data, 0, ev->size - KPT_HDR_SIZE);
			ev->flags |= KPT_F_ADDR_HIDDEN;
			continue;
		}
		if (ev->type == KPT_EV_ENTRY) {
			args = ev->data;
			hid = 0;
		} else if (ev->type == KPT_EV_RETURN) {
			args = ev->data + KPT_RET_SLOTS;
			ret = (struct kpt_ret *)ev->data;
			hid = kpt_hide_value((__u64 *)&ret->ret);
		} else {
			continue;
		}
		/* the stack after the args, in either */
		memset(args + ev->nr_args, 0, ev->nr_stack * sizeof(__u64));
		hid |= ev->nr_stack;
		for (i = 0; i < ev->nr_args; i++)
			hid |= kpt_hide_value(&args[i]);
		if (hid)
			ev->flags |= KPT_F_ADDR_HIDDEN;
	}
	return len;
}
