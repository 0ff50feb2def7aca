// SPDX-License-Identifier: GPL-2.0
/*
 * hist_flame: the stacks of a hist with a stacktrace key. --folded prints
 * them folded (flamegraph.pl, speedscope): a line per stack, outermost
 * frame first, comm and the other keys as root frames, and its count;
 * --svg writes them as an interactive flame graph SVG (no script needed
 * to make it; its own JavaScript zooms on a click).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uapi/kptrace_record.h>

#include "hist.h"

#define SVG_WIDTH	1200
#define SVG_PAD		10
#define SVG_ROW		16

bool hist_flame__offsets;

struct folded {
	char *line;		/* frame;frame;... outermost first */
	unsigned long long count;
};

/* vfs_read+0x9e/0x170 [mod] -> vfs_read [mod], escaped as a folded frame */
static void put_frame(FILE *f, const char *s)
{
	const char *plus = strstr(s, "+0x"), *end;

	if (hist_flame__offsets || !plus || plus == s) {
		hist__put_esc(f, s, ";");
		return;
	}
	end = plus + 3;
	end += strspn(end, "0123456789abcdef");
	if (!strncmp(end, "/0x", 3)) {
		end += 3;
		end += strspn(end, "0123456789abcdef");
	}
	hist__put_esc_n(f, s, plus - s, ";");
	hist__put_esc(f, end, ";");
}

static int cmp_folded(const void *a, const void *b)
{
	return strcmp(((const struct folded *)a)->line,
		      ((const struct folded *)b)->line);
}

/* The merged folded lines of the entries, sorted; their number in *nr. */
static struct folded *fold(const struct hist *h, int sk, size_t *nr)
{
	struct folded *fl = hist__xrealloc(NULL, h->nr * sizeof(*fl));
	size_t n, out = 0, len;
	unsigned int i, j;
	int c;

	for (n = 0; n < h->nr; n++) {
		const struct hist_entry *e = &h->e[n];
		FILE *m = open_memstream(&fl[n].line, &len);
		bool first = true, is_comm, second;

		if (!m) {
			fputs("kptrace: out of memory\n", stderr);
			exit(1);
		}
		/* comm first, then the other keys, as the root frames */
		for (c = 0; c < 2 * (int)h->nkeys; c++) {
			i = (unsigned int)c % h->nkeys;
			is_comm = h->spec.hist.keys[i].field == KPT_CF_COMM;
			second = c >= (int)h->nkeys;
			/* the first round takes comm, the second the others */
			if ((int)i == sk || is_comm == second)
				continue;
			if (!first)
				putc(';', m);
			first = false;
			if (h->spec.hist.keys[i].field == KPT_CF_COMM) {
				hist__put_esc(m, e->keys[i].str, " ;");
			} else {
				fprintf(m, "%s=", h->keys[i].name);
				if (h->keys[i].kind == HK_STR ||
				    h->keys[i].kind == HK_SYM)
					hist__put_esc(m, e->keys[i].str, " ;");
				else
					hist__put_key(m, &h->keys[i],
						      &e->keys[i]);
			}
		}
		for (j = e->keys[sk].nframes; j-- > 0; ) {
			if (!first)
				putc(';', m);
			first = false;
			put_frame(m, e->keys[sk].frames[j]);
		}
		fclose(m);
		fl[n].count = e->hitcount;
	}
	qsort(fl, h->nr, sizeof(*fl), cmp_folded);
	for (n = 0; n < h->nr; n++) {
		if (out && !strcmp(fl[out - 1].line, fl[n].line)) {
			fl[out - 1].count += fl[n].count;
			free(fl[n].line);
		} else {
			fl[out++] = fl[n];
		}
	}
	*nr = out;
	return fl;
}

static void free_folded(struct folded *fl, size_t nr)
{
	size_t n;

	for (n = 0; n < nr; n++)
		free(fl[n].line);
	free(fl);
}

void print_folded(FILE *f, const struct hist *h, int sk)
{
	size_t nr, n;
	struct folded *fl = fold(h, sk, &nr);

	for (n = 0; n < nr; n++)
		fprintf(f, "%s %llu\n", fl[n].line, fl[n].count);
	free_folded(fl, nr);
}

struct fnode {
	char *name;
	unsigned long long count;
	size_t child, next;	/* first child, next sibling; 0: none */
};

struct ftree {
	struct fnode *n;
	size_t nr, cap;
	unsigned int depth;
};

static size_t ftree_child(struct ftree *t, size_t parent, const char *name,
			  size_t len)
{
	size_t c, *link = &t->n[parent].child;

	for (c = *link; c; c = t->n[c].next) {
		if (strlen(t->n[c].name) == len &&
		    !strncmp(t->n[c].name, name, len))
			return c;
		link = &t->n[c].next;
	}
	if (t->nr == t->cap) {
		t->cap *= 2;
		t->n = hist__xrealloc(t->n, t->cap * sizeof(*t->n));
	}
	c = t->nr++;
	memset(&t->n[c], 0, sizeof(t->n[c]));
	t->n[c].name = hist__xstrndup(name, len);
	/* link may have moved with the realloc: find the end again */
	link = &t->n[parent].child;
	while (*link)
		link = &t->n[*link].next;
	*link = c;
	return c;
}

/*
 * @s, at most @max bytes, in XML text or an attribute value: & < > " '
 * as entities. The names come escaped (fold(), hist__put_esc()): a byte that
 * kpt_byte_escaped() names but a backslash is written as \xHH anyway.
 */
static void xml_text(FILE *f, const char *s, size_t max)
{
	size_t i;

	for (i = 0; s[i] && i < max; i++) {
		if (s[i] != '\\' && kpt_byte_escaped(s[i])) {
			fprintf(f, "\\x%02x", (unsigned char)s[i]);
			continue;
		}
		switch (s[i]) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&#39;", f);
			break;
		default:
			putc(s[i], f);
		}
	}
}

/* Untrusted text (the hist's name) in XML: \xHH, then as xml_text(). */
static void xml_name(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (kpt_byte_escaped(*s))
			fprintf(f, "\\x%02x", (unsigned char)*s);
		else
			xml_text(f, s, 1);
	}
}

static void svg_node(FILE *f, const struct ftree *t, size_t i, double x,
		     unsigned int depth, unsigned long long total, int height)
{
	const struct fnode *n = &t->n[i];
	double w = (double)n->count * (SVG_WIDTH - 2 * SVG_PAD) / total;
	double y = height - 40 - (depth + 1) * SVG_ROW;
	unsigned int hash = 5381, chars;
	size_t c;
	const char *s;
	char tip[64];

	for (s = n->name; *s; s++)
		hash = hash * 33 + (unsigned char)*s;
	snprintf(tip, sizeof(tip), " (%llu samples, %.2f%%)", n->count,
		 100.0 * n->count / total);
	fprintf(f, "<g class=\"f\" data-x=\"%.2f\" data-w=\"%.2f\" data-n=\"",
		x, w);
	xml_text(f, n->name, (size_t)-1);
	fputs("\" data-t=\"", f);
	xml_text(f, n->name, (size_t)-1);
	fprintf(f, "%s\"><title>", tip);
	xml_text(f, n->name, (size_t)-1);
	fprintf(f, "%s</title><rect x=\"%.2f\" y=\"%.0f\" width=\"%.2f\" ",
		tip, x, y, w);
	fprintf(f, "height=\"%d\" fill=\"rgb(%u,%u,%u)\" rx=\"2\"/>",
		SVG_ROW - 1, 200 + hash % 55, 60 + (hash >> 8) % 150,
		30 + (hash >> 16) % 40);
	fprintf(f, "<text x=\"%.2f\" y=\"%.0f\">", x + 3, y + SVG_ROW - 4);
	chars = w > 20 ? (unsigned int)((w - 6) / 7) : 0;
	if (chars >= strlen(n->name)) {
		xml_text(f, n->name, (size_t)-1);
	} else if (chars > 2) {
		xml_text(f, n->name, chars - 2);
		fputs("..", f);
	}
	fputs("</text></g>\n", f);
	for (c = n->child; c; c = t->n[c].next) {
		svg_node(f, t, c, x, depth + 1, total, height);
		x += (double)t->n[c].count * (SVG_WIDTH - 2 * SVG_PAD) / total;
	}
}

static const char svg_script[] =
"<script><![CDATA[\n"
"(function () {\n"
"	var svg = document.getElementById('kptflame');\n"
"	var det = document.getElementById('kptdetails');\n"
"	var gs = svg.getElementsByTagName('g'), W = svg.width.baseVal.value - 20;\n"
"	function frame(e) {\n"
"		for (var n = e.target; n && n !== svg; n = n.parentNode)\n"
"			if (n.getAttribute && n.getAttribute('class') === 'f')\n"
"				return n;\n"
"		return null;\n"
"	}\n"
"	svg.addEventListener('mouseover', function (e) {\n"
"		var g = frame(e);\n"
"		det.textContent = g ? g.getAttribute('data-t') : ' ';\n"
"	});\n"
"	svg.addEventListener('mouseout', function () {\n"
"		det.textContent = ' ';\n"
"	});\n"
"	/* click: zoom on a frame, its callers full width; elsewhere: reset */\n"
"	svg.addEventListener('click', function (e) {\n"
"		var g = frame(e), x0 = 10, w0 = W;\n"
"		if (g) {\n"
"			x0 = +g.getAttribute('data-x');\n"
"			w0 = +g.getAttribute('data-w');\n"
"		}\n"
"		for (var i = 0; i < gs.length; i++) {\n"
"			var n = gs[i], x = +n.getAttribute('data-x');\n"
"			var w = +n.getAttribute('data-w');\n"
"			var r = n.getElementsByTagName('rect')[0];\n"
"			var t = n.getElementsByTagName('text')[0];\n"
"			var name = n.getAttribute('data-n'), c, nx, nw;\n"
"			if (x + w <= x0 + 1e-6 || x >= x0 + w0 - 1e-6) {\n"
"				n.style.display = 'none';\n"
"				continue;\n"
"			}\n"
"			n.style.display = '';\n"
"			nx = 10 + Math.max(0, x - x0) * W / w0;\n"
"			nw = Math.min(x + w, x0 + w0) - Math.max(x, x0);\n"
"			nw = nw * W / w0;\n"
"			r.setAttribute('x', nx);\n"
"			r.setAttribute('width', nw);\n"
"			t.setAttribute('x', nx + 3);\n"
"			c = nw > 20 ? Math.floor((nw - 6) / 7) : 0;\n"
"			t.textContent = c >= name.length ? name :\n"
"				c > 2 ? name.substring(0, c - 2) + '..' : '';\n"
"		}\n"
"	});\n"
"})();\n"
"]]></script>\n";

int write_svg(const char *path, const struct hist *h, int sk)
{
	struct ftree t = { .cap = 64 };
	size_t nr, n, node;
	struct folded *fl = fold(h, sk, &nr);
	unsigned long long total = 0;
	unsigned int depth;
	const char *s;
	size_t len;
	int height, ret = 0;
	FILE *f;

	t.n = hist__xrealloc(NULL, t.cap * sizeof(*t.n));
	memset(&t.n[0], 0, sizeof(t.n[0]));
	t.n[0].name = hist__xstrndup("all", 3);
	t.nr = 1;
	for (n = 0; n < nr; n++) {
		node = 0;
		depth = 0;
		t.n[0].count += fl[n].count;
		for (s = fl[n].line; *s; s += len + (s[len] == ';')) {
			len = strcspn(s, ";");
			node = ftree_child(&t, node, s, len);
			t.n[node].count += fl[n].count;
			depth++;
		}
		if (depth > t.depth)
			t.depth = depth;
	}
	total = t.n[0].count;
	height = (int)(t.depth + 1) * SVG_ROW + 80;
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "kptrace: cannot write %s: %s\n", path,
			strerror(errno));
		ret = -1;
		goto out;
	}
	fprintf(f, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" id=\"kptflame\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" xmlns=\"http://www.w3.org/2000/svg\">\n"
		"<style>text { font-family: monospace; font-size: 12px; } .f:hover rect { stroke: #000; stroke-width: 0.5; } .f { cursor: pointer; }</style>\n"
		"<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#f8f8f8\"/>\n"
		"<text x=\"%d\" y=\"24\" text-anchor=\"middle\" style=\"font-size: 17px\">kptrace hist ",
		SVG_WIDTH, height, SVG_WIDTH, height, SVG_WIDTH, height,
		SVG_WIDTH / 2);
	xml_name(f, h->name);
	fprintf(f, " (%llu samples)</text>\n<text id=\"kptdetails\" x=\"%d\" y=\"%d\"> </text>\n",
		total, SVG_PAD, height - 14);
	if (total)
		svg_node(f, &t, 0, SVG_PAD, 0, total, height);
	fputs(svg_script, f);
	fputs("</svg>\n", f);
	if (fclose(f)) {
		fprintf(stderr, "kptrace: cannot write %s: %s\n", path,
			strerror(errno));
		ret = -1;
	}
out:
	for (n = 0; n < t.nr; n++)
		free(t.n[n].name);
	free(t.n);
	free_folded(fl, nr);
	return ret;
}
