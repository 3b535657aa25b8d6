/* plot_flame.c - a flame graph of a trace taken with stacks (sites.h): the bytes live at the
 * ideal-RSS peak, or never freed, by call stack; a frame's width is its bytes, its callers
 * below it.  Static boxes with tooltips: readable with no script.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "plot.h"
#include "tool.h"
#include "units.h"

#define ROW 17.0          /* a frame's height */
#define TOP_NOTE 52.0     /* the note under the title */
#define FIRST_ROW 72.0    /* room above the tallest stack */

struct fnode {
	const char *name;
	uint64_t bytes, blocks;
	uint32_t child, next;   /* first child, next sibling: indexes, 0 none */
};

struct flame {
	struct sites s;
	enum sites_what what;
	struct fnode *v;        /* v[0]: every stack ("all") */
	uint32_t n, cap;
	unsigned rows;
};

static uint32_t node_child(struct flame *f, uint32_t parent, const char *name)
{
	uint32_t *at = &f->v[parent].child;
	while (*at && strcmp(f->v[*at].name, name) < 0)
		at = &f->v[*at].next;
	if (*at && !strcmp(f->v[*at].name, name))
		return *at;
	if (f->n == f->cap) {
		f->cap = f->cap ? f->cap * 2 : 1024;
		struct fnode *v = realloc(f->v, f->cap * sizeof *v);
		if (!v)
			tool_die(EXIT_SYSTEM, "out of memory");
		f->v = v;
		at = NULL;   /* (moved: found again below) */
	}
	if (!at) {
		at = &f->v[parent].child;
		while (*at && strcmp(f->v[*at].name, name) < 0)
			at = &f->v[*at].next;
	}
	uint32_t i = f->n++;
	f->v[i] = (struct fnode){ name, 0, 0, 0, *at };
	*at = i;
	return i;
}

struct flame *plot_flame_read(const char *path, enum sites_what what, int progress)
{
	struct flame *f = calloc(1, sizeof *f);
	struct tool_err e;
	if (!f)
		tool_die(EXIT_SYSTEM, "out of memory");
	if (sites_collect(path, &f->s, progress, &e) < 0)
		tool_die_err(&e);
	f->what = what;
	f->v = calloc(1024, sizeof *f->v);
	if (!f->v)
		tool_die(EXIT_SYSTEM, "out of memory");
	f->cap = 1024;
	f->n = 1;
	f->v[0].name = "all";
	for (size_t i = 0; i < f->s.n; i++) {
		const struct site *x = &f->s.v[i];
		uint64_t b = sites_value(x, what), k = what == SITES_PEAK ? x->peak_n : x->end_n;
		if (b == 0)
			continue;
		uint32_t at = 0;
		f->v[0].bytes += b;
		f->v[0].blocks += k;
		for (unsigned d = x->nframes; d-- > 0;) {   /* outermost first */
			at = node_child(f, at, x->frames[d]);
			f->v[at].bytes += b;
			f->v[at].blocks += k;
		}
		if (x->nframes + 1 > f->rows)
			f->rows = x->nframes + 1;
	}
	return f;
}

int plot_flame_height(const struct flame *f)
{
	return (int)(FIRST_ROW + f->rows * ROW + 10);
}

/* A warm colour of its own for each name, the same in every chart */
static void color_of(char *buf, size_t cap, const char *name)
{
	uint32_t h = 2166136261u;
	for (const char *p = name; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	snprintf(buf, cap, "rgb(%u,%u,%u)", 205 + h % 50, 80 + (h >> 8) % 130, 40 + (h >> 16) % 50);
}

static void draw_node(struct svg *s, const struct flame *f, uint32_t i, double x, double w,
		      unsigned depth, double bottom)
{
	const struct fnode *nd = &f->v[i];
	if (w < 0.3)
		return;   /* (narrower than a pixel's third: not drawn, nor its callees) */
	char tip[1200], b[UNITS_CAP], k[32], fill[32];
	double pct = f->v[0].bytes ? 100.0 * (double)nd->bytes / (double)f->v[0].bytes : 0;
	snprintf(tip, sizeof tip, "%s: %s (%.1f%%) in %s block%s", nd->name,
		 units_bytes(b, sizeof b, nd->bytes), pct, fmt_commas(k, nd->blocks),
		 nd->blocks == 1 ? "" : "s");
	color_of(fill, sizeof fill, nd->name);
	svg_box(s, x, bottom - (depth + 1) * ROW, w, ROW, i ? fill : "#c8c8c8", nd->name, tip);
	double at = x;
	for (uint32_t c = nd->child; c; c = f->v[c].next) {
		double cw = w * (double)f->v[c].bytes / (double)nd->bytes;
		draw_node(s, f, c, at, cw, depth + 1, bottom);
		at += cw;
	}
}

void plot_flame(struct svg *s, const struct flame *f, int h)
{
	char note[600], b[UNITS_CAP], k[32], c[32];
	const struct sites *x = &f->s;
	if (f->what == SITES_PEAK)
		snprintf(note, sizeof note, "Bytes live at the ideal-RSS peak: %s in %s blocks, "
			 "at call %s",
			 units_bytes(b, sizeof b, x->peak_b), fmt_commas(k, x->peak_n),
			 fmt_commas(c, x->peak_call));
	else
		snprintf(note, sizeof note, "Bytes never freed (live at the end): %s in %s blocks",
			 units_bytes(b, sizeof b, x->end_b), fmt_commas(k, x->end_n));
	svg_note(s, TOP_NOTE - 10, note);
	svg_note(s, TOP_NOTE + 6, "a frame's width is its bytes, its callers below it; "
		 "hover a frame for its figures");
	if (f->v[0].bytes == 0) {
		svg_note(s, TOP_NOTE + 30, "(none)");
		return;
	}
	draw_node(s, f, 0, 10, s->w - 20, 0, h - 10);
}
