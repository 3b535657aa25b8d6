/* report.c - trace_stats: the figures of one trace, or of two side by side, in the order and
 * under the names the reports give them; emit.c writes them as text, TSV or JSON.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "emit.h"
#include "stats.h"
#include "tool.h"
#include "units.h"

static const struct emitter *e;

static uint64_t ns_since_start(const struct stats *s, uint64_t t)
{
	return t > s->t0 ? stats_ns(s, t - s->t0) : 0;
}

/* a figure the text says in a sentence of its own (say()), or not at all */
static void data(const char *section, const char *key, uint64_t v, enum unit u)
{
	e->figure(section, key, v, u, FIG_NO_TEXT);
}

/* n[k] counted (and b[k] bytes, unless b is NULL) in each bucket from the first used to the
   last; what: the text's heading of the buckets' column */
static void histogram(const char *section, const char *title, const char *what, enum unit u,
		      const uint64_t *n, const uint64_t *b)
{
	int lo = NB, hi = -1;
	for (int k = 0; k < NB; k++)
		if (n[k]) {
			if (k < lo)
				lo = k;
			hi = k;
		}
	e->hist_begin(title, what, b != NULL);
	for (int k = lo; k <= hi; k++)
		e->bucket(section, k, u, n[k], b ? &b[k] : NULL);
}

/* ---------------------------------------------------------------------------------------------
   Lists: the most frequent sizes, the largest blocks live at the end
   ------------------------------------------------------------------------------------------- */

static int cmp_desc(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;   /* pairs (count, key): by count, then key */
	if (x[0] != y[0])
		return x[0] < y[0] ? 1 : -1;
	return x[1] < y[1] ? -1 : x[1] > y[1];
}

/* The n largest of the m (count, key) pairs all, into out (all is freed): how many */
static size_t keep_largest(uint64_t (*all)[2], size_t m, uint64_t (*out)[2], size_t n)
{
	qsort(all, m, sizeof *all, cmp_desc);
	if (m > n)
		m = n;
	memcpy(out, all, m * sizeof *all);
	free(all);
	return m;
}

/* the n most frequent sizes: (count, size) */
static size_t top_sizes(const struct stats *s, uint64_t (*out)[2], size_t n)
{
	size_t m = 0, cap = s->sizes.n + 1;
	uint64_t (*all)[2] = malloc(cap * sizeof *all);
	if (!all)
		return 0;
	for (size_t i = 0; i < s->sizes.cap; i++)
		if (s->sizes.slots[i].key)
			all[m][0] = s->sizes.slots[i].val, all[m][1] = s->sizes.slots[i].key - 1,
			m++;
	return keep_largest(all, m, out, n);
}

struct live_list { const struct stats *s; uint64_t (*all)[2]; size_t m; };

static void add_live(void *arg, uint64_t block)
{
	struct live_list *l = arg;
	l->all[l->m][0] = live_size(&l->s->live, block), l->all[l->m][1] = block, l->m++;
}

/* the n largest blocks live: (size, block index) */
static size_t largest_live(const struct stats *s, uint64_t (*out)[2], size_t n)
{
	struct live_list l = { s, malloc((s->live.n + 1) * sizeof *l.all), 0 };
	if (!l.all)
		return 0;
	live_each(&s->live, add_live, &l);
	return keep_largest(l.all, l.m, out, n);
}

static void top_sizes_report(const struct stats *s)
{
	uint64_t top[TOP][2];
	size_t nt = top_sizes(s, top, TOP);
	e->say("top sizes\n    %-26s %14s\n", "size", "count");
	for (size_t i = 0; i < nt; i++)
		e->top_size(i, top[i][1], top[i][0]);
}

static void largest_live_report(const struct stats *s)
{
	uint64_t big[LARGEST][2];
	size_t nl = largest_live(s, big, LARGEST);
	if (nl)
		e->say("largest blocks live at the end\n    %-26s %14s %10s\n", "size", "thread",
		       "at");
	for (size_t i = 0; i < nl; i++) {
		const struct block *b = live_block(&s->live, big[i][1]);
		e->largest_live(i, b->size, s->th[b->thread].tid, ns_since_start(s, b->t),
				b->t > s->t0 ? (double)(b->t - s->t0) / (double)s->tps : 0.0);
	}
}

static void threads_report(const struct stats *s)
{
	e->say("threads\n    %-10s %14s %14s %14s %16s\n", "tid", "calls", "allocations", "frees",
	       "bytes");
	for (uint32_t i = 0; i < s->nth && i < 64; i++)
		e->thread(&s->th[i]);
	if (s->nth > 64)
		e->say("    (%u more threads)\n", s->nth - 64);
}

/* ---------------------------------------------------------------------------------------------
   What the program held beside its allocator, where the trace says (version 2): the memory it
   mapped itself, its memory samples, and how much of large blocks it had made resident
   ------------------------------------------------------------------------------------------- */

static void program_memory(const struct stats *s)
{
	const struct progmem *p = &s->pm;
	char a[UNITS_CAP], b[UNITS_CAP], c[UNITS_CAP], d[32], f[32];
	if (!(s->hflags & (MTRACE_HF_MAPPINGS | MTRACE_HF_MEMORY | MTRACE_HF_RESIDENT)))
		return;
	e->say("program memory\n");
	if (s->hflags & MTRACE_HF_MAPPINGS) {
		e->say("  mapped directly by the program: %s at peak, %s mapping%s\n"
		       "  its other mapping calls: munmap %s, mremap %s, brk %s\n",
		       units_bytes(a, sizeof a, p->prog.peak), fmt_commas(d, p->prog.maps),
		       p->prog.maps == 1 ? "" : "s", fmt_commas(b, p->prog.unmaps),
		       fmt_commas(c, p->prog.remaps), fmt_commas(f, p->prog.brks));
		if (p->own.maps || p->own.brks)
			e->say("  mapped by the allocator itself: %s at peak, %s mapping%s "
			       "(its own, apart)\n", units_bytes(a, sizeof a, p->own.peak),
			       fmt_commas(d, p->own.maps), p->own.maps == 1 ? "" : "s");
		data("program", "mapped_peak_bytes", p->prog.peak, BYTES);
		data("program", "mappings", p->prog.maps, COUNT);
		data("program", "unmaps", p->prog.unmaps, COUNT);
		data("program", "remaps", p->prog.remaps, COUNT);
		data("program", "break_moves", p->prog.brks, COUNT);
		data("program", "allocator_mapped_peak_bytes", p->own.peak, BYTES);
		data("program", "allocator_mappings", p->own.maps, COUNT);
	}
	if (s->hflags & MTRACE_HF_MEMORY) {
		uint64_t growth = p->peak_anon > p->first_anon ? p->peak_anon - p->first_anon : 0;
		if (!p->samples)
			e->say("  memory samples: none\n");
		else {
			char t[UNITS_CAP];
			e->say("  memory samples: %s (every %u ms at most)\n",
			       fmt_commas(d, p->samples), s->memory_ms);
			e->say("  peak anonymous RSS: %s at %s, call %s\n"
			       "  anonymous RSS growth: %s from the first sample's %s\n",
			       units_bytes(a, sizeof a, p->peak_anon),
			       units_ns(t, sizeof t, (double)ns_since_start(s, p->peak_anon_t)),
			       fmt_commas(d, s->peak_anon_idx), units_bytes(b, sizeof b, growth),
			       units_bytes(c, sizeof c, p->first_anon));
			/* (statm's resident: the trace's own pages the tracer had mapped count in
			   it, as do the libraries'; the anonymous figures above are the program's) */
			e->say("  peak RSS %s, peak virtual size %s (with the trace's mapped "
			       "pages)\n",
			       units_bytes(a, sizeof a, p->peak_rss),
			       units_bytes(b, sizeof b, p->peak_vsz));
		}
		data("program", "memory_samples", p->samples, COUNT);
		data("program", "anon_rss_first_bytes", p->first_anon, BYTES);
		data("program", "anon_rss_peak_bytes", p->peak_anon, BYTES);
		data("program", "anon_rss_peak_at_ns", ns_since_start(s, p->peak_anon_t), NS);
		data("program", "anon_rss_peak_at_call", s->peak_anon_idx, COUNT);
		data("program", "anon_rss_growth_bytes", growth, BYTES);
		data("program", "rss_peak_bytes", p->peak_rss, BYTES);
		data("program", "vmsize_peak_bytes", p->peak_vsz, BYTES);
	}
	if (s->hflags & MTRACE_HF_RESIDENT) {
		e->say("  resident at release: %s of %s (%.0f%%) in %s blocks of %s or more\n",
		       units_bytes(a, sizeof a, s->res_bytes),
		       units_bytes(b, sizeof b, s->res_size),
		       s->res_size ? 100.0 * (double)s->res_bytes / (double)s->res_size : 0.0,
		       fmt_commas(d, s->res_n), units_bytes(c, sizeof c, s->resident_min));
		data("program", "released_large_blocks", s->res_n, COUNT);
		data("program", "released_large_bytes", s->res_size, BYTES);
		data("program", "released_large_resident_bytes", s->res_bytes, BYTES);
	}
}

/* How long the calls took (realloc's always recorded; every call's in a trace taken with
   durations), by class: average and percentiles */
static void durations(const struct stats *s)
{
	static const char *const pts[LAT_POINTS] = { "p50", "p90", "p99", "p999", "max" };
	for (int c = 0; c < LAT_CLASSES; c++) {
		uint64_t avg, pt[LAT_POINTS], n = stats_durations(s, c, &avg, pt);
		if (!n)
			continue;
		e->durations(lat_class_names[c], n, avg, pt);
		char key[40];
		snprintf(key, sizeof key, "%s_calls", lat_class_names[c]);
		data("durations_ns", key, n, COUNT);
		snprintf(key, sizeof key, "%s_avg", lat_class_names[c]);
		data("durations_ns", key, avg, NS);
		for (int k = 0; k < LAT_POINTS; k++) {
			snprintf(key, sizeof key, "%s_%s", lat_class_names[c], pts[k]);
			data("durations_ns", key, pt[k], NS);
		}
	}
}

/* ---------------------------------------------------------------------------------------------
   One trace
   ------------------------------------------------------------------------------------------- */

void report_trace(const struct stats *s, enum report_format f)
{
	e = emitter_of(f);
	e->begin(s);
	e->section("calls");
	for (unsigned c = 1; c <= MTRACE_CALL_LAST_API; c++)
		e->figure("calls", mtrace_call_name(c), s->calls[c], COUNT, FIG_TEXT_NONZERO);
	e->figure("calls", "total", s->total, COUNT, 0);
	e->figure("calls", "failed", s->failed, COUNT, 0);
	e->figure("calls", "free_null", s->free_null, COUNT, 0);
	e->figure("calls", "free_of_unknown_block", s->skipped_free, COUNT, 0);
	e->section("memory");
	e->figure("memory", "ideal_rss_peak", s->live.peak, BYTES, 0);
	e->figure("memory", "ideal_rss_peak_at_call", s->live.peak_at, COUNT, 0);
	e->figure("memory", "ideal_rss_peak_at_ns", ns_since_start(s, s->peak_t), NS, 0);
	e->figure("memory", "live_blocks_at_end", s->live.n, COUNT, 0);
	e->figure("memory", "live_bytes_at_end", s->live.bytes, BYTES, 0);
	e->figure("memory", "requested_bytes", s->requested, BYTES, 0);
	e->figure("memory", "overhead_bytes", s->usable, BYTES, 0);
	if (s->requested)
		e->say("  %-26s %.2f%% of requested\n", "overhead",
		       100.0 * (double)s->usable / (double)s->requested);
	e->figure("threads", "cross_thread_frees", s->xfree, COUNT, 0);
	e->section("realloc");
	e->figure("realloc", "moved", s->re_moved, COUNT, 0);
	e->figure("realloc", "in_place", s->re_inplace, COUNT, 0);
	e->figure("realloc", "to_zero", s->re_zero, COUNT, 0);
	e->figure("realloc", "from_null", s->re_null, COUNT, 0);
	e->figure("realloc", "of_unknown_block", s->re_unknown, COUNT, 0);
	e->figure("realloc", "grew", s->re_grew, COUNT, 0);
	e->figure("realloc", "shrank", s->re_shrank, COUNT, 0);
	if (s->glibc) {
		e->section("glibc");
		e->figure("glibc", "served_by_mmap", s->mmap_n, COUNT, 0);
		e->figure("glibc", "grew_the_heap", s->brk_n, COUNT, 0);
	}
	program_memory(s);
	durations(s);
	histogram("sizes", "sizes", "requested size", BYTES, s->size_n, s->size_b);
	histogram("lifetime_calls", "lifetimes in calls", "calls lived", COUNT, s->life_calls,
		  NULL);
	histogram("lifetime_ns", "lifetimes in time", "time lived", NS, s->life_ns, NULL);
	top_sizes_report(s);
	largest_live_report(s);
	threads_report(s);
	char c1[32];
	if (s->late)
		e->say("(%s records came out of order and were taken late)\n",
		       fmt_commas(c1, s->late));
	e->end();
}

/* ---------------------------------------------------------------------------------------------
   Two traces side by side
   ------------------------------------------------------------------------------------------- */

/* of the recorded durations, ns; DIFF_NOT_RECORDED when the trace holds none of that class */
static uint64_t p99(const struct stats *s, int c)
{
	uint64_t avg, pt[LAT_POINTS];
	return stats_durations(s, c, &avg, pt) ? pt[LAT_P99] : DIFF_NOT_RECORDED;
}

void report_diff(const struct stats *a, const struct stats *b, enum report_format f)
{
	struct { const char *k; uint64_t x, y; enum unit u; } rows[] = {
		{ "calls", a->total, b->total, COUNT },
		{ "malloc", a->calls[1], b->calls[1], COUNT },
		{ "calloc", a->calls[2], b->calls[2], COUNT },
		{ "free", a->calls[3], b->calls[3], COUNT },
		{ "realloc", a->calls[4], b->calls[4], COUNT },
		{ "failed", a->failed, b->failed, COUNT },
		{ "threads", a->nthreads, b->nthreads, COUNT },
		{ "ideal_rss_peak", a->live.peak, b->live.peak, BYTES },
		{ "live_bytes_at_end", a->live.bytes, b->live.bytes, BYTES },
		{ "live_blocks_at_end", a->live.n, b->live.n, COUNT },
		{ "requested_bytes", a->requested, b->requested, BYTES },
		{ "overhead_bytes", a->usable, b->usable, BYTES },
		{ "cross_thread_frees", a->xfree, b->xfree, COUNT },
		{ "realloc_moved", a->re_moved, b->re_moved, COUNT },
		{ "served_by_mmap", a->mmap_n, b->mmap_n, COUNT },
		{ "grew_the_heap", a->brk_n, b->brk_n, COUNT },
		{ "malloc_p99_ns", p99(a, LAT_MALLOC), p99(b, LAT_MALLOC), NS },
		{ "free_p99_ns", p99(a, LAT_FREE), p99(b, LAT_FREE), NS },
		{ "realloc_p99_ns", p99(a, LAT_REALLOC), p99(b, LAT_REALLOC), NS },
		{ "mapped_by_program_peak", a->pm.prog.peak, b->pm.prog.peak, BYTES },
		{ "anon_rss_peak", a->pm.peak_anon, b->pm.peak_anon, BYTES },
	};
	e = emitter_of(f);
	e->diff_begin();
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
		e->diff_row(i, rows[i].k, rows[i].x, rows[i].y, rows[i].u);
	e->diff_end();
}
