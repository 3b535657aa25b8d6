/* plot_trace.c - trace_plot's charts of a trace: one ordered pass gathers live requested
 * bytes over time, the allocation rate, request sizes and block lifetimes. */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "order.h"
#include "plot.h"
#include "tool.h"

/* ---------------------------------------------------------------------------------------------
   From a trace: one ordered pass; memory is the live blocks and fixed bins
   ------------------------------------------------------------------------------------------- */

static int bucket(uint64_t v)
{
	return v == 0 ? 0 : 64 - __builtin_clzll(v);
}

static int bin_of(const struct tracepass *p, uint64_t t)
{
	if (t <= p->t0)
		return 0;
	uint64_t b = (t - p->t0) * (uint64_t)(NBINS - 1) / (p->t1 > p->t0 ? p->t1 - p->t0 : 1);
	return b >= NBINS ? NBINS - 1 : (int)b;
}

static void note(struct tracepass *p, uint64_t t)
{
	int b = bin_of(p, t);
	double v = (double)p->live.bytes;
	if (!p->seen[b] || v < p->lo[b])
		p->lo[b] = v;
	if (!p->seen[b] || v > p->hi[b])
		p->hi[b] = v;
	p->seen[b] = 1;
}

static void gone(struct tracepass *p, uint64_t a, uint64_t t)
{
	uint64_t i;
	if (a && live_remove(&p->live, a, addrmap_hash(a), &i)) {
		uint64_t born = ((const struct plot_block *)live_block(&p->live, i))->born;
		p->life_n[bucket((uint64_t)((double)(t > born ? t - born : 0) * 1e9 / p->tps))]++;
		live_release_block(&p->live, i);
	}
}

static int arrived(struct tracepass *p, uint64_t a, uint64_t bytes, uint64_t t)
{
	int64_t i = live_new_block(&p->live);
	if (i < 0)
		return -1;
	*(struct plot_block *)live_block(&p->live, (uint64_t)i) = (struct plot_block){ bytes, t };
	uint64_t old;
	int k = live_add(&p->live, a, addrmap_hash(a), (uint64_t)i, bytes, 0, &old);
	if (k < 0)
		return -1;
	if (k & LIVE_REPLACED)
		live_release_block(&p->live, old);
	p->size_n[bucket(bytes)]++;
	p->allocs[bin_of(p, t)]++;
	return 0;
}

static int on_event(struct tracepass *p, const struct order_ev *e)
{
	const struct mtrace_record *r = e->rec;
	uint64_t bytes = mtrace_record_bytes(r);
	if (r->call - 1u >= MTRACE_CALL_LAST_API)
		return 0;   /* a mapping call or a memory sample: not requested bytes */
	if (e->kind == ORDER_RELEASE) {   /* a realloc's first half (a failed one is ORDER_CALL) */
		gone(p, r->ptr, e->t);
		note(p, e->t);
		return 0;
	}
	if (r->call == MTRACE_CALL_FREE)
		gone(p, r->ptr, e->t);
	else if (!(r->flags & MTRACE_RF_FAILED) && r->result &&
		 arrived(p, r->result, bytes, e->t) < 0)
		return -1;
	note(p, e->t);
	return 0;
}

/* order.h callback */
static int on_events(void *ctx, const struct order_ev *ev, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (on_event(ctx, &ev[i]) < 0)
			return -1;
	return 0;
}

/* Read the trace at path into p (exe: its program's file name), or exit naming what is wrong;
   progress as tool_progress takes it */
void plot_trace_pass(const char *path, struct tracepass *p, char *exe, size_t cap, int progress)
{
	memset(p, 0, sizeof *p);
	live_init(&p->live, NULL, sizeof(struct plot_block));
	struct trace_reader r;
	struct mtrace_record rec;
	int k;
	if (trace_open(&r, path) < 0)
		tool_die(EXIT_BADFILE, "%s", r.err.msg);
	p->t0 = UINT64_MAX;
	struct tool_progress pr;
	char what[4300];
	snprintf(what, sizeof what, "%s, time range", r.name);
	trace_progress_start(&pr, progress, &r);
	pr.name = what;
	r.progress = tool_progress;
	r.progress_arg = &pr;
	while ((k = trace_next(&r, &rec, NULL)) > 0) {   /* the time range first */
		uint64_t end = rec.ts + rec.duration;
		if (rec.ts < p->t0)
			p->t0 = rec.ts;
		if (end > p->t1)
			p->t1 = end;
	}
	tool_progress_end(&pr);
	if (k < 0)
		tool_die(EXIT_BADFILE, "%s", r.err.msg);
	if (p->t0 == UINT64_MAX)
		p->t0 = p->t1 = 0;
	trace_close(&r);
	if (trace_open(&r, path) < 0)
		tool_die(EXIT_BADFILE, "%s", r.err.msg);
	p->tps = (double)r.hdr.ticks_per_sec;
	const char *base = strrchr(r.exe, '/') ? strrchr(r.exe, '/') + 1 : r.exe;
	size_t bl = strnlen(base, cap - 1);
	memcpy(exe, base, bl);
	exe[bl] = 0;
	struct order o;
	trace_progress_start(&pr, progress, &r);
	r.progress = tool_progress;
	r.progress_arg = &pr;
	if (order_begin(&o, on_events, NULL, p) < 0 || order_feed(&o, &r) < 0 ||
	    order_end(&o) < 0) {
		tool_progress_end(&pr);
		tool_die(EXIT_BADFILE, "%s", o.err.msg[0] ? o.err.msg : "out of memory");
	}
	tool_progress_end(&pr);
	order_free(&o);
	trace_close(&r);
	live_free(&p->live);
}

void plot_live(struct svg *s, const struct tracepass *p, int h)
{
	static double x[2 * NBINS], y[2 * NBINS], rx[NBINS], ry[NBINS];
	size_t n = 0;
	double span = (double)(p->t1 - p->t0) / p->tps, ymax = 0, rmax = 0, binw = span / NBINS;
	for (int b = 0; b < NBINS; b++) {
		double t = span * b / (NBINS - 1);
		rx[b] = t;
		ry[b] = binw > 0 ? (double)p->allocs[b] / binw : 0;
		if (ry[b] > rmax)
			rmax = ry[b];
		if (!p->seen[b])
			continue;
		x[n] = t, y[n++] = p->lo[b];
		x[n] = t, y[n++] = p->hi[b];
		if (p->hi[b] > ymax)
			ymax = p->hi[b];
	}
	double top = SVG_TOP, ph = (h - top) * 0.62;
	s->headings = 1;   /* stacked panels: their titles the same way */
	svg_panel(s, top, ph, 0, span, SVG_SECONDS, NULL, 0, ymax * 1.05, SVG_BYTES,
		  "live requested bytes");
	svg_line(s, x, y, n, svg_colors[0]);
	svg_panel(s, top + ph, h - top - ph, 0, span, SVG_SECONDS, "time since the trace started",
		  0, rmax * 1.05, SVG_RATE, "allocations per second");
	svg_line(s, rx, ry, NBINS, svg_colors[1]);
}

/* A power-of-two histogram: a bar per bucket from the first used to the last, named by its
   lower bound */
void plot_hist(struct svg *s, const uint64_t *n, const char *what, enum svg_unit xu,
	       const char *counted, int h)
{
	int lo = NB, hi = -1;
	for (int k = 0; k < NB; k++)
		if (n[k]) {
			if (k < lo) lo = k;
			hi = k;
		}
	if (hi < 0)
		lo = hi = 0;
	static char labels[NB][40];
	const char *names[NB];
	double v[NB];
	size_t m = 0;
	for (int k = lo; k <= hi; k++) {
		char a[32];
		double from = k == 0 ? 0 : ldexp(1, k - 1);
		if (xu == SVG_SECONDS)
			from /= 1e9;   /* lifetimes are counted in nanoseconds */
		snprintf(labels[m], sizeof labels[m], "%s%s", k == 0 ? "" : "\xe2\x89\xa5",
			 svg_fmt(a, from, xu));
		names[m] = labels[m];
		v[m] = (double)n[k];
		m++;
	}
	svg_bar_panel(s, SVG_TOP, h - SVG_TOP, names, v, m, svg_colors[0], SVG_COUNT, what, counted,
		      1, 1);
}
