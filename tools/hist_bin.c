// SPDX-License-Identifier: GPL-2.0
/*
 * hist_bin: `kptrace hist NAME` through /dev/kptrace. ioctl(KPT_IOC_HIST)
 * returns the aggregation in binary (the layout is in uapi/kptrace.h): a
 * header with the books, the probe's spec as the text file's "# probe:"
 * line, then the entries merged and sorted as the text file shows them.
 * This file turns it into the struct hist that hist__parse() makes of the
 * text (hist.c), so that every output form works on either.
 *
 * What the text shows of a key, this file computes from the key's words
 * as the module prints them (module/hist.c, kpt_hist_put_key() and
 * kpt_hist_put_range()): .log2 ~ 2^K, .buckets=N and .loglin ranges from
 * the low end the module keeps, "(hidden)" where the module marked a key
 * hidden, stack frames and symbols as its %pS (the probed address) and
 * %pB (a return address: the symbol of the address before it) name them,
 * from kallsyms here.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <uapi/kptrace.h>

#include "hist_bin.h"
#include "ksyms.h"
#include "paths.h"

/* The first buffer; KPTRACE_HIST_BUF (bytes) replaces it, for tests. */
#define HIST_BIN_BUF	65536
/* A live table may grow between the size asked and the next read */
#define HIST_BIN_TRIES	8

static int berr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static char *xstrdup_(const char *s)
{
	char *d = strdup(s);

	if (!d) {
		fputs("kptrace: out of memory\n", stderr);
		exit(1);
	}
	return d;
}

/* Key words of a key field: as the module's kpt_hist_key_width() */
static unsigned int key_width(const struct kpt_spec *spec, unsigned int field)
{
	if (field == KPT_CF_STACKTRACE)
		return KPT_HIST_STACK_DEPTH;
	if (field == KPT_CF_COMM)
		return KPT_COMM_LEN / 8;
	if (field < KPT_CF_RETVAL && kpt_type_is_string(spec->args[field].type))
		return KPT_HIST_STR_LEN / 8;
	return 1;
}

/*
 * An address as the kernel's %pS (@ret false) or %pB (@ret true: a return
 * address, named by the byte before it): sym+0xOFF/0xSIZE [mod], or 0xADDR.
 */
static char *sym_name(const struct ksyms *ks, __u64 addr, bool ret)
{
	const struct ksym *sym;
	char buf[512];
	__u64 off;

	sym = addr ? ksyms__find(ks, addr - ret, &off) : NULL;
	if (!sym)
		snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)addr);
	else
		snprintf(buf, sizeof(buf), "%s+0x%llx/0x%llx%s%s%s", sym->name,
			 (unsigned long long)(off + ret),
			 (unsigned long long)sym->size,
			 sym->module ? " [" : "",
			 sym->module ? sym->module : "",
			 sym->module ? "]" : "");
	return xstrdup_(buf);
}

/* A .buckets=@n range from its bucket @v: as kpt_hist_put_range() */
static void buckets_range(__u64 v, __u32 n, bool is_signed, __u64 *hi)
{
	__s64 lo = (__s64)v;

	if (is_signed && lo == INT64_MIN)
		*hi = (__u64)(lo + (__s64)(INT64_MAX % n));
	else if (is_signed)
		*hi = (__u64)(lo > INT64_MAX - (__s64)(n - 1) ? INT64_MAX :
			      lo + (__s64)(n - 1));
	else
		*hi = v > UINT64_MAX - (n - 1) ? UINT64_MAX : v + (n - 1);
}

static int put_key(struct hist *h, unsigned int k, const __u64 *w,
		   bool hidden, const struct ksyms *ks, struct hist_key *key,
		   char *err, size_t errlen)
{
	const struct kpt_hist_field *hf = &h->spec.hist.keys[k];
	const struct hist_keydef *kd = &h->keys[k];
	unsigned int i, width = key_width(&h->spec, hf->field);
	__u64 v = w[0];

	switch (kd->kind) {
	case HK_STACK:
		if (hidden) {
			key->frames = hist__xrealloc(NULL, sizeof(char *));
			key->frames[key->nframes++] = xstrdup_("(hidden)");
			return 0;
		}
		for (i = 0; i < width && w[i]; i++) {
			key->frames = hist__xrealloc(key->frames, (i + 1) *
						     sizeof(char *));
			key->frames[key->nframes++] = sym_name(ks, w[i], i);
		}
		return 0;
	case HK_STR:
		key->str = hist__xrealloc(NULL, width * 8 + 1);
		memcpy(key->str, w, width * 8);
		key->str[width * 8] = 0;
		return 0;
	}
	if (hidden && kd->kind == HK_SYM) {
		key->str = xstrdup_("(hidden)");
		return 0;
	}
	if (hidden)	/* as hist__parse() says of the text's "(hidden)" */
		return berr(err, errlen,
			    "key %s is hidden (an address?): read as root, kptr_restrict < 2",
			    kd->name);
	switch (hf->mod) {
	case KPT_HM_LOG2:
		if (v > 64)
			return berr(err, errlen, "bad value '~ 2^%llu' of key %s",
				    (unsigned long long)v, kd->name);
		key->num = v;
		hist__log2_range((unsigned int)v, &key->lo, &key->hi);
		return 0;
	case KPT_HM_BUCKETS:
		if (!hf->buckets)
			return berr(err, errlen, "key %s: .buckets=0", kd->name);
		key->lo = v;
		buckets_range(v, hf->buckets, hf->is_signed, &key->hi);
		return 0;
	case KPT_HM_LOGLIN:
		i = v < (1U << KPT_HIST_SUB_BITS) ? 0 :
		    63 - __builtin_clzll(v) - KPT_HIST_SUB_BITS;
		key->lo = v;
		key->hi = v + ((1ULL << i) - 1);
		return 0;
	}
	if (kd->kind == HK_SYM && hf->mod == KPT_HM_HEX) {
		char buf[32];

		snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)v);
		key->str = xstrdup_(buf);
	} else if (kd->kind == HK_SYM) {
		key->str = sym_name(ks, v, false);
	} else {
		key->num = v;
	}
	return 0;
}

int hist_bin__parse(const void *blob, size_t len, const char *name,
		    const struct ksyms *ks, struct hist *h, char *err,
		    size_t errlen)
{
	const struct kpt_hist_hdr *hd = blob;
	unsigned int i, k, words, key_off[KPT_HIST_KEYS];
	const __u64 *w;
	const char *spec;
	size_t n, body;

	memset(h, 0, sizeof(*h));
	if (len < sizeof(*hd))
		return berr(err, errlen, "a table of %zu bytes: less than its header",
			    len);
	if (hd->magic != KPT_HIST_MAGIC)
		return berr(err, errlen, "not a kptrace hist table (magic 0x%x)",
			    hd->magic);
	if (hd->version != KPT_HIST_VERSION)
		return berr(err, errlen, "hist table version %u, this kptrace reads %u",
			    hd->version, KPT_HIST_VERSION);
	if (hd->hdr_size < sizeof(*hd) || hd->hdr_size % 8 || hd->size != len ||
	    hd->spec_size % 8 || !hd->spec_size ||
	    hd->spec_size > len - hd->hdr_size)
		return berr(err, errlen, "bad header: %zu bytes, size %llu, header %u, spec %u",
			    len, (unsigned long long)hd->size, hd->hdr_size,
			    hd->spec_size);
	spec = (const char *)blob + hd->hdr_size;
	if (!memchr(spec, 0, hd->spec_size))
		return berr(err, errlen, "the table's spec is not terminated");
	if (hd->nkeys < 1 || hd->nkeys > KPT_HIST_MAX_KEYS ||
	    hd->nvals > KPT_HIST_MAX_VALS)
		return berr(err, errlen, "a table of %u keys and %u values",
			    hd->nkeys, hd->nvals);
	for (k = 0, words = 2 + 3 * hd->nvals; k < hd->nkeys; k++) {
		key_off[k] = words;
		words += hd->key_words[k];
	}
	body = len - hd->hdr_size - hd->spec_size;
	if (words != hd->entry_words ||
	    body / 8 / words != hd->nr_entries || body % (8 * words))
		return berr(err, errlen, "%u entries of %u words are not the %zu bytes left",
			    hd->nr_entries, hd->entry_words, body);
	h->name = xstrdup_(name);
	h->probe = xstrdup_(spec);
	if (kpt_spec_parse(h->probe, &h->spec)) {
		berr(err, errlen, "cannot parse the probe spec: %s (column %d)",
		     h->spec.err_msg, h->spec.err_pos);
		goto fail;
	}
	if (h->spec.hist.nkeys != hd->nkeys || h->spec.hist.nvals != hd->nvals) {
		berr(err, errlen, "the table has %u keys and %u values, its spec %u and %u",
		     hd->nkeys, hd->nvals, h->spec.hist.nkeys,
		     h->spec.hist.nvals);
		goto fail;
	}
	for (k = 0; k < hd->nkeys; k++) {
		if (hd->key_words[k] !=
		    key_width(&h->spec, h->spec.hist.keys[k].field)) {
			berr(err, errlen, "key %u has %u words, its field %u",
			     k + 1, hd->key_words[k],
			     key_width(&h->spec, h->spec.hist.keys[k].field));
			goto fail;
		}
	}
	hist__setup_fields(h);
	h->live = hd->flags & KPT_HIST_F_LIVE;
	h->totals[HT_HITS] = hd->hits;
	h->totals[HT_ENTRIES] = hd->nr_entries;
	h->totals[HT_AGGREGATED] = hd->aggregated;
	h->totals[HT_FILTERED] = hd->filtered;
	for (i = 0; i < KPT_HD_NR; i++) {
		h->totals[HT_TABLE_FULL + i] = hd->dropped[i];
		h->totals[HT_DROPPED] += hd->dropped[i];
	}
	h->cap = hd->nr_entries;
	h->e = hist__xrealloc(NULL, h->cap * sizeof(*h->e));
	w = (const __u64 *)(spec + hd->spec_size);
	for (n = 0; n < hd->nr_entries; n++, w += words) {
		struct hist_entry *e = &h->e[h->nr++];

		memset(e, 0, sizeof(*e));
		e->order = h->nr;
		e->hitcount = w[1];
		for (i = 0; i < hd->nvals; i++) {
			e->vals[i].sum = w[2 + 3 * i];
			e->vals[i].min = w[3 + 3 * i];
			e->vals[i].max = w[4 + 3 * i];
		}
		for (k = 0; k < hd->nkeys; k++) {
			if (put_key(h, k, &w[key_off[k]],
				    w[0] & KPT_HIST_E_KEY_HIDDEN(k), ks,
				    &e->keys[k], err, errlen))
				goto fail;
		}
	}
	return 0;
fail:
	hist__free(h);
	return -1;
}

int hist_bin__open(const char *dev, bool rw)
{
	struct kpt_hist_req req = {};
	int fd = open(dev, (rw ? O_RDWR : O_RDONLY) | O_CLOEXEC);

	if (fd < 0 && rw && (errno == EACCES || errno == EROFS))
		fd = open(dev, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "kptrace: cannot open %s: %s%s\n", dev,
			strerror(errno),
			errno == ENOENT ? ": is the kptrace module loaded?" :
			errno == EPERM || errno == EACCES ?
			" (it needs root: CAP_PERFMON or CAP_SYS_ADMIN)" : "");
		return -1;
	}
	/* no probe has the empty name: ENOENT, or ENOTTY from an older module */
	if (ioctl(fd, KPT_IOC_HIST, &req) && errno == ENOTTY) {
		close(fd);
		return -2;
	}
	return fd;
}

/* kallsyms when the table names addresses, loaded once */
static const struct ksyms *hist_bin_ksyms(const void *blob, size_t len)
{
	static struct ksyms *ks;
	static bool tried;
	const struct kpt_hist_hdr *hd = blob;
	const char *spec = (const char *)blob + sizeof(*hd);

	if (tried || len < sizeof(*hd) + 8 || hd->hdr_size != sizeof(*hd) ||
	    (hd->flags & KPT_HIST_F_ADDR_HIDDEN) ||
	    !memchr(spec, 0, len - sizeof(*hd)) ||
	    (!strstr(spec, "stacktrace") && !strstr(spec, ":symbol")))
		return ks;
	tried = true;
	ks = ksyms__load(path_from_env("KPTRACE_KALLSYMS", KALLSYMS_PATH));
	if (!ks)
		fprintf(stderr, "kptrace: warning: %s: %s: frames as addresses\n",
			path_from_env("KPTRACE_KALLSYMS", KALLSYMS_PATH),
			strerror(errno));
	return ks;
}

int hist_bin__read(int fd, const char *name, bool clear, struct hist *h,
		   char *err, size_t errlen)
{
	const char *env = getenv("KPTRACE_HIST_BUF");
	struct kpt_hist_req req = {};
	size_t cap = env && *env ? strtoul(env, NULL, 0) : HIST_BIN_BUF;
	void *buf = NULL;
	unsigned int tries;
	int ret;

	memset(h, 0, sizeof(*h));
	if (strlen(name) >= sizeof(req.name))
		return berr(err, errlen, "no aggregation %s (see: kptrace hist)",
			    name);
	strcpy(req.name, name);
	req.flags = clear ? KPT_HIST_REQ_CLEAR : 0;
	for (tries = 0;; tries++) {
		buf = hist__xrealloc(buf, cap);
		req.buf = (uintptr_t)buf;
		req.len = cap;
		if (!ioctl(fd, KPT_IOC_HIST, &req))
			break;
		if (errno == ENOSPC && tries < HIST_BIN_TRIES) {
			/* room to grow; after a clear, its interval (gen) */
			cap = req.size + req.size / 4 + 4096;
			if (clear)
				req.flags = KPT_HIST_REQ_ENDED;
			continue;
		}
		ret = errno;
		free(buf);
		if (ret == ENOENT)
			return berr(err, errlen, "no aggregation %s (see: kptrace hist)",
				    name);
		if (ret == ESTALE)
			return berr(err, errlen, "%s: another clear took the interval first",
				    name);
		if (ret == EBADF)
			return berr(err, errlen, "%s: clearing needs %s open for writing (root)",
				    name,
				    path_from_env("KPTRACE_DEVICE", DEVICE_PATH));
		return berr(err, errlen, "%s: ioctl KPT_IOC_HIST: %s", name,
			    strerror(ret));
	}
	ret = hist_bin__parse(buf, req.size, name,
			      hist_bin_ksyms(buf, req.size), h, err, errlen);
	free(buf);
	if (ret) {
		char msg[512];

		snprintf(msg, sizeof(msg), "%s", err);
		berr(err, errlen, "%s: %s", name, msg);
	}
	return ret;
}
