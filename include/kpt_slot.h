/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kptrace: the value a number of a probe's type takes in a record's slot,
 * for the module's handlers, which store it so, and the reader, which
 * shows it so. The types are those of the spec language (spec/spec.h), which
 * both build; the record format is in uapi/kptrace.h.
 *
 * In the module it is always inlined (it runs in probe context), as
 * KPT_ABI_INLINE says; elsewhere it is static inline.
 */
#ifndef _KPT_SLOT_H
#define _KPT_SLOT_H

#include <linux/types.h>
#include <uapi/kptrace_record.h>	/* KPT_ABI_INLINE */
#include "spec.h"

/*
 * @v, of which the low bytes of a number of @type (enum kpt_fetch_type)
 * hold the value, zero- or sign-extended to 64 bits as the type says.
 * Other types keep all 64 bits.
 */
static KPT_ABI_INLINE __u64 kpt_slot_extend(__u64 v, unsigned int type)
{
	switch (type) {
	case KPT_T_U8: case KPT_T_X8:
		return (__u8)v;
	case KPT_T_U16: case KPT_T_X16:
		return (__u16)v;
	case KPT_T_U32: case KPT_T_X32:
		return (__u32)v;
	case KPT_T_S8:
		return (__u64)(__s64)(__s8)v;
	case KPT_T_S16:
		return (__u64)(__s64)(__s16)v;
	case KPT_T_S32:
		return (__u64)(__s64)(__s32)v;
	default:
		return v;
	}
}

#endif /* _KPT_SLOT_H */
