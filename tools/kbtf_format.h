/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The BTF format as the kernel writes it to /sys/kernel/btf/ (its
 * include/uapi/linux/btf.h and Documentation/bpf/btf.rst), as of kernel
 * 7.2: every kind, the wider kind and vlen fields and the layout section
 * of 7.1. For kbtf.c and the test generator; our own copy, as the reader
 * needs no libbpf, and no <linux/btf.h> new enough (bullseye's, 5.10's,
 * has no FLOAT, DECL_TAG, TYPE_TAG or ENUM64; bookworm's no layout).
 *
 * A file is a header, a type section, a string section and, from 7.1, a
 * layout section; the sections' offsets count from the end of the header.
 * A type is a struct kbtf_raw_type followed by data whose size its kind
 * and vlen give; type ids count from 1 (0 is void) in the order of the
 * section. A module's BTF is split BTF:
 * its ids continue after vmlinux's and its string offsets after vmlinux's
 * string section.
 */
#ifndef __KPTRACE_KBTF_FORMAT_H
#define __KPTRACE_KBTF_FORMAT_H

#include <stdbool.h>
#include <stddef.h>

#include <linux/types.h>

#define KBTF_MAGIC		0xeB9F
#define KBTF_VERSION		1

struct kbtf_raw_header {
	__u16 magic;
	__u8 version;
	__u8 flags;
	__u32 hdr_len;
	__u32 type_off;
	__u32 type_len;
	__u32 str_off;
	__u32 str_len;
	/* 7.1: in a header of 32 bytes, optional, may be empty */
	__u32 layout_off;
	__u32 layout_len;
};

/* The header before 7.1, with no layout section: 24 bytes */
#define KBTF_HDR_LEN_V1		offsetof(struct kbtf_raw_header, layout_off)

/*
 * 7.1: the layout section, a struct kbtf_raw_layout per kind, by kind,
 * gives the size of what follows a type record of each kind: info_sz,
 * then vlen times elem_sz. A reader can step over a kind it does not know.
 */
struct kbtf_raw_layout {
	__u8 info_sz;
	__u8 elem_sz;
	__u16 flags;
};

#define KBTF_MAX_TYPE		0x000fffff

struct kbtf_raw_type {
	__u32 name_off;
	__u32 info;		/* vlen: bits 0-23, kind: 24-30, kflag: 31 */
	union {
		__u32 size;	/* INT, ENUM, STRUCT, UNION, DATASEC, ENUM64 */
		__u32 type;	/* the others that refer to a type */
	};
};

enum kbtf_kind {
	KBTF_KIND_UNKN,
	KBTF_KIND_INT,		/* + __u32 encoding */
	KBTF_KIND_PTR,
	KBTF_KIND_ARRAY,	/* + struct kbtf_raw_array */
	KBTF_KIND_STRUCT,	/* + vlen struct kbtf_raw_member */
	KBTF_KIND_UNION,	/* + vlen struct kbtf_raw_member */
	KBTF_KIND_ENUM,		/* + vlen struct kbtf_raw_enum */
	KBTF_KIND_FWD,
	KBTF_KIND_TYPEDEF,
	KBTF_KIND_VOLATILE,
	KBTF_KIND_CONST,
	KBTF_KIND_RESTRICT,
	KBTF_KIND_FUNC,		/* vlen: linkage */
	KBTF_KIND_FUNC_PROTO,	/* + vlen struct kbtf_raw_param */
	KBTF_KIND_VAR,		/* + struct kbtf_raw_var */
	KBTF_KIND_DATASEC,	/* + vlen struct kbtf_raw_var_secinfo */
	KBTF_KIND_FLOAT,	/* 5.13 */
	KBTF_KIND_DECL_TAG,	/* 5.16, + struct kbtf_raw_decl_tag */
	KBTF_KIND_TYPE_TAG,	/* 5.17 */
	KBTF_KIND_ENUM64,	/* 6.0, + vlen struct kbtf_raw_enum64 */
	KBTF_NR_KINDS,
};

/*
 * Up to 7.0, kinds had 5 bits and vlen 16, the bits between them unused
 * (0); 7.1 widened both. The wide masks read older BTF the same.
 */
static inline unsigned int kbtf_kind(const struct kbtf_raw_type *t)
{
	return (t->info >> 24) & 0x7f;
}

static inline unsigned int kbtf_vlen(const struct kbtf_raw_type *t)
{
	return t->info & 0xffffff;
}

static inline bool kbtf_kflag(const struct kbtf_raw_type *t)
{
	return t->info >> 31;
}

static inline __u32 kbtf_info(unsigned int kind, unsigned int vlen,
			      bool kflag)
{
	return (__u32)kflag << 31 | (kind & 0x7f) << 24 | (vlen & 0xffffff);
}

/* An INT's encoding word: encoding, bit offset, bits. */
#define KBTF_INT_ENCODING(v)	(((v) & 0x0f000000) >> 24)
#define KBTF_INT_BITS(v)	((v) & 0x000000ff)
#define KBTF_INT_SIGNED		0x1
#define KBTF_INT_CHAR		0x2
#define KBTF_INT_BOOL		0x4

struct kbtf_raw_enum {
	__u32 name_off;
	__s32 val;
};

struct kbtf_raw_array {
	__u32 type;
	__u32 index_type;
	__u32 nelems;
};

struct kbtf_raw_member {
	__u32 name_off;
	__u32 type;
	__u32 offset;
};

struct kbtf_raw_param {
	__u32 name_off;
	__u32 type;
};

struct kbtf_raw_var {
	__u32 linkage;
};

struct kbtf_raw_var_secinfo {
	__u32 type;
	__u32 offset;
	__u32 size;
};

struct kbtf_raw_decl_tag {
	__s32 component_idx;
};

struct kbtf_raw_enum64 {
	__u32 name_off;
	__u32 val_lo32;
	__u32 val_hi32;
};

#define KBTF_FUNC_STATIC	0
#define KBTF_FUNC_GLOBAL	1

#endif /* __KPTRACE_KBTF_FORMAT_H */
