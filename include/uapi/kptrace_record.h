/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * kptrace: checking a record of the format in kptrace.h before reading it.
 * One routine for every reader: the module (hide.c), tools/kptrace and the
 * selftests' helpers, so that they agree on what a record is.
 *
 * kpt_record_check() looks at a record in two steps:
 *  - framing: a whole header, the magic, a size that is at least the
 *    header, a multiple of 8, at most KPT_MAX_RECORD and within the bytes
 *    the caller has. A record that fails here says nothing reliable about
 *    where the next one starts.
 *  - content, for the types it knows: nr_args and nr_stack within
 *    KPT_MAX_ARGS and KPT_MAX_STACK, and the payload they announce (and a
 *    loss report's) within size. Padding (KPT_EV_PAD) never leaves a ring.
 *    A record that fails only here is framed: size steps over it.
 * Types it does not know pass, to be skipped by size.
 *
 * A string argument's slot is checked where it is read, by
 * kpt_record_str(): only the probe's spec says which slots are strings.
 *
 * In the module these helpers are always inlined (hot paths and code that
 * kprobes must not probe may use them); elsewhere they are static inline.
 */
#ifndef _UAPI_KPTRACE_RECORD_H
#define _UAPI_KPTRACE_RECORD_H

#include "kptrace.h"

/* always inlined in the module: see the top of this file */
#ifndef KPT_ABI_INLINE
#ifdef __KERNEL__
#define KPT_ABI_INLINE		__always_inline
#else
#include <stddef.h>
#define KPT_ABI_INLINE		inline
#endif
#endif

#define KPT_REC__STR(x)		#x
#define KPT_REC_STR(x)		KPT_REC__STR(x)

/* What kpt_record_check() found, in the order it looks. */
enum kpt_record_err {
	KPT_REC_OK = 0,
	/* framing */
	KPT_REC_HDR_CUT,	/* fewer bytes left than a header */
	KPT_REC_MAGIC,
	KPT_REC_SIZE_SMALL,
	KPT_REC_SIZE_ALIGN,
	KPT_REC_SIZE_BIG,
	KPT_REC_CUT,		/* size runs past the bytes there are */
	/* content */
	KPT_REC_PAD,
	KPT_REC_ARGS,
	KPT_REC_STACK,
	KPT_REC_PAYLOAD,
	KPT_REC_ERR_NR
};

/* Is @err about the framing: is the record's size not to be trusted? */
static KPT_ABI_INLINE int kpt_record_unframed(enum kpt_record_err err)
{
	return err != KPT_REC_OK && err < KPT_REC_PAD;
}

/* What @err means, for a message. */
static KPT_ABI_INLINE const char *kpt_record_why(enum kpt_record_err err)
{
	static const char * const why[KPT_REC_ERR_NR] = {
		[KPT_REC_OK]		= "ok",
		[KPT_REC_HDR_CUT]	= "truncated record header",
		[KPT_REC_MAGIC]		= "bad magic",
		[KPT_REC_SIZE_SMALL]	= "size smaller than the header",
		[KPT_REC_SIZE_ALIGN]	= "size not a multiple of 8",
		[KPT_REC_SIZE_BIG]	= "size over " KPT_REC_STR(KPT_MAX_RECORD) " bytes",
		[KPT_REC_CUT]		= "truncated record",
		[KPT_REC_PAD]		= "ring padding outside a ring",
		[KPT_REC_ARGS]	= "more than " KPT_REC_STR(KPT_MAX_ARGS) " args",
		[KPT_REC_STACK]	= "more than " KPT_REC_STR(KPT_MAX_STACK) " frames",
		[KPT_REC_PAYLOAD]	= "size too small for its payload",
	};

	return err < KPT_REC_ERR_NR ? why[err] : "unknown";
}

/*
 * The bytes of record @ev before its strings: the header and the slots
 * (args and stack of an entry; kpt_ret, args and stack of a return), or the
 * header and kpt_lost. Only the header is read. For a type it does not
 * know, the header.
 */
static KPT_ABI_INLINE __u64 kpt_record_fixed(const struct kpt_event *ev)
{
	__u64 n = sizeof(*ev);

	switch (ev->type) {
	case KPT_EV_ENTRY:
		return n + ((__u64)ev->nr_args + ev->nr_stack) * sizeof(__u64);
	case KPT_EV_RETURN:
		return n + sizeof(struct kpt_ret) +
		       ((__u64)ev->nr_args + ev->nr_stack) * sizeof(__u64);
	case KPT_EV_LOST:
		return n + sizeof(struct kpt_lost);
	default:
		return n;
	}
}

/**
 * kpt_record_check() - may the record at @ev be read?
 * @ev: the record, 8-byte aligned
 * @avail: the bytes from @ev to the end of the buffer
 *
 * See the top of this file. Returns KPT_REC_OK, or what is wrong (the first
 * thing found). Only the header is read, and only when @avail holds it.
 */
static KPT_ABI_INLINE enum kpt_record_err
kpt_record_check(const struct kpt_event *ev, size_t avail)
{
	if (avail < sizeof(*ev))
		return KPT_REC_HDR_CUT;
	if (ev->magic != KPT_MAGIC)
		return KPT_REC_MAGIC;
	if (ev->size < sizeof(*ev))
		return KPT_REC_SIZE_SMALL;
	if (ev->size % 8)
		return KPT_REC_SIZE_ALIGN;
	if (ev->size > KPT_MAX_RECORD)
		return KPT_REC_SIZE_BIG;
	if (ev->size > avail)
		return KPT_REC_CUT;

	switch (ev->type) {
	case KPT_EV_PAD:
		return KPT_REC_PAD;
	case KPT_EV_ENTRY:
	case KPT_EV_RETURN:
		if (ev->nr_args > KPT_MAX_ARGS)
			return KPT_REC_ARGS;
		if (ev->nr_stack > KPT_MAX_STACK)
			return KPT_REC_STACK;
		break;
	case KPT_EV_LOST:
		break;
	default:
		return KPT_REC_OK;	/* skipped by size */
	}
	if (kpt_record_fixed(ev) > ev->size)
		return KPT_REC_PAYLOAD;
	return KPT_REC_OK;
}

/*
 * The bytes of the string that @slot (KPT_STR_SLOT()) of the checked
 * entry or return @ev points to, or NULL when they are not all within the
 * record's strings, after its slots.
 */
static KPT_ABI_INLINE const unsigned char *
kpt_record_str(const struct kpt_event *ev, __u64 slot)
{
	__u64 off = KPT_STR_OFF(slot);

	if (off < kpt_record_fixed(ev) || off + KPT_STR_LEN(slot) > ev->size)
		return NULL;
	return (const unsigned char *)ev + off;
}

/*
 * Untrusted text: any process chooses its comm, and strings are user data.
 * Every output escapes them by one rule: a byte that is not printable
 * ASCII (below 0x20 or from 0x7f on: C0 and C1 controls, DEL, and every
 * byte of a UTF-8 sequence, since U+0080..U+009F are C1 controls that
 * terminals obey) or is a backslash is written as an escape, never as
 * itself: \xNN in text (trace, trace_pipe, the reader, hist, folded,
 * SVG), \u00NN in JSON, \\xNN in a Prometheus label value. A format
 * may escape more (its own separators), never less.
 */
static KPT_ABI_INLINE int kpt_byte_escaped(unsigned char c)
{
	return c < 0x20 || c >= 0x7f || c == '\\';
}

#endif /* _UAPI_KPTRACE_RECORD_H */
