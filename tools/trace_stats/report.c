/* report.c - trace_stats: the figures of one trace, or of two side by side, as text for
 * people (bytes in KiB, MiB..., times in µs, ms...: units.h) or as TSV and JSON for scripts
 * (every figure an exact integer: bytes, nanoseconds, counts).
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "stats.h"
#include "tool.h"
#include "units.h"

static enum report_format fmt;

/* What a figure counts: how the text shows it */
enum unit { COUNT, BYTES, NS };

/* ---------------------------------------------------------------------------------------------
   Text: figures in their units, cells aligned by the columns they take (µ is two bytes)
   ------------------------------------------------------------------------------------------- */

static const char *text_of(char *buf, size_t cap, uint64_t v, enum unit u)
{
	if (u == BYTES)
		return units_bytes(buf, cap, v);
	if (u == NS)
		return units_ns(buf, cap, (double)v);
	return fmt_commas(buf, v);
}

/* s in width columns: right-aligned, or left-aligned for a negative width */
static void cell(const char *s, int width)
{
	size_t w = units_width(s), want = (size_t)(width < 0 ? -width : width);
	if (width > 0)
		for (size_t i = w; i < want; i++)
			putchar(' ');
	fputs(s, stdout);
	if (width < 0)
		for (size_t i = w; i < want; i++)
			putchar(' ');
}

static uint64_t ns_since_start(const struct stats *s, uint64_t t)
{
	return t > s->t0 ? stats_ns(s, t - s->t0) : 0;
}

/* A key as the text names it: without the unit ("_ns") that its value carries there */
static const char *text_key(char *buf, size_t cap, const char *key, enum unit u)
{
	size_t n = strlen(key);
	if (u == NS && n > 3 && !strcmp(key + n - 3, "_ns"))
		n -= 3;
	snprintf(buf, cap, "%.*s", (int)n, key);
	return buf;
}

/* ---------------------------------------------------------------------------------------------
   Figures: one scalar, a histogram
   ------------------------------------------------------------------------------------------- */

/* text "  key  value", TSV "section\tkey\tvalue", JSON "section_key": value */
static int json_first;
static void kv(const char *section, const char *key, uint64_t v, enum unit u)
{
	char t[UNITS_CAP], k[64];
	if (fmt == REPORT_TSV)
		printf("%s\t%s\t%" PRIu64 "\n", section, key, v);
	else if (fmt == REPORT_JSON) {
		printf("%s\"%s_%s\": %" PRIu64, json_first ? "" : ", ", section, key, v);
		json_first = 0;
	} else
		printf("  %-26s %s\n", text_key(k, sizeof k, key, u), text_of(t, sizeof t, v, u));
}

/* Bucket k of a power-of-two histogram ([0], [1], [2,4), ...): its key in TSV and JSON */
static void bucket_key(char *buf, size_t cap, int k)
{
	if (k == 0)
		snprintf(buf, cap, "0");
	else if (k == 1)
		snprintf(buf, cap, "1");
	else if (k >= 64)
		snprintf(buf, cap, "2^63-");
	else
		snprintf(buf, cap, "%llu-%llu", 1ull << (k - 1), (1ull << k) - 1);
}

/* ... and in the text: "[4 KiB, 8 KiB)", "[1.02 µs, 2.05 µs)"; counts of calls as ranges */
static void bucket_text(char *buf, size_t cap, int k, enum unit u)
{
	char a[UNITS_CAP], b[UNITS_CAP];
	if (u == COUNT && k >= 2 && k < 64) {
		snprintf(buf, cap, "%s-%s", fmt_commas(a, 1ull << (k - 1)), fmt_commas(b, (1ull << k) - 1));
		return;
	}
	if (u == COUNT || k <= 1) {
		snprintf(buf, cap, "%s%s", k ? "1" : "0", u == BYTES ? " B" : u == NS ? " ns" : "");
		return;
	}
	text_of(a, sizeof a, 1ull << (k - 1), u);
	if (k < 64)
		text_of(b, sizeof b, 1ull << k, u);
	else if (u == BYTES)
		snprintf(b, sizeof b, "16.0 EiB");   /* 2^64 */
	else
		units_ns(b, sizeof b, 0x1p64);
	snprintf(buf, cap, "[%s, %s)", a, b);
}

/* n[k] counted (and b[k] bytes, unless b is NULL) in each bucket; what: the text's heading
   of the buckets' column */
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
	if (fmt == REPORT_TEXT)
		printf("%s\n    %-26s %14s%s\n", title, what, "count", b ? "           bytes" : "");
	for (int k = lo; k <= hi; k++) {
		char r[2 * UNITS_CAP + 8], c1[32], c2[UNITS_CAP], key[80];
		if (fmt == REPORT_TEXT) {
			bucket_text(r, sizeof r, k, u);
			printf("    ");
			cell(r, -26);
			printf(" %14s", fmt_commas(c1, n[k]));
			if (b)
				printf(" %15s", units_bytes(c2, sizeof c2, b[k]));
			printf("\n");
			continue;
		}
		bucket_key(r, sizeof r, k);
		if (fmt == REPORT_TSV) {
			printf("%s\t%s\t%" PRIu64, section, r, n[k]);
			if (b)
				printf("\t%" PRIu64, b[k]);
			printf("\n");
		} else {
			snprintf(key, sizeof key, "%s_%s", section, r);
			printf(", \"%s\": %" PRIu64, key, n[k]);
			if (b)
				printf(", \"%s_bytes\": %" PRIu64, key, b[k]);
		}
	}
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
			all[m][0] = s->sizes.slots[i].val, all[m][1] = s->sizes.slots[i].key - 1, m++;
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
	if (fmt == REPORT_TEXT)
		printf("top sizes\n    %-26s %14s\n", "size", "count");
	for (size_t i = 0; i < nt; i++) {
		char c1[32], c2[32], r[UNITS_CAP], size[80];
		if (fmt == REPORT_TSV)
			printf("top_sizes\t%" PRIu64 "\t%" PRIu64 "\n", top[i][1], top[i][0]);
		else if (fmt == REPORT_JSON)
			printf(", \"top_size_%zu\": [%" PRIu64 ", %" PRIu64 "]", i + 1, top[i][1], top[i][0]);
		else {
			/* a size is exact (17 is not 16): the readable one beside it from 1 KiB on */
			snprintf(size, sizeof size, "%s B", fmt_commas(c1, top[i][1]));
			if (top[i][1] >= 1024)
				snprintf(size + strlen(size), sizeof size - strlen(size), " (%s)",
					 units_bytes(r, sizeof r, top[i][1]));
			printf("    %-26s %14s\n", size, fmt_commas(c2, top[i][0]));
		}
	}
}

static void largest_live_report(const struct stats *s)
{
	uint64_t big[LARGEST][2];
	size_t nl = largest_live(s, big, LARGEST);
	if (fmt == REPORT_TEXT && nl)
		printf("largest blocks live at the end\n    %-26s %14s %10s\n", "size", "thread", "at");
	for (size_t i = 0; i < nl; i++) {
		const struct block *b = live_block(&s->live, big[i][1]);
		char c1[UNITS_CAP], c2[UNITS_CAP];
		if (fmt == REPORT_TSV)
			printf("largest_live\t%" PRIu64 "\t%u\t%.9f\n", b->size, s->th[b->thread].tid,
			       b->t > s->t0 ? (double)(b->t - s->t0) / (double)s->tps : 0.0);
		else if (fmt == REPORT_JSON)
			printf(", \"largest_live_%zu\": [%" PRIu64 ", %u]", i + 1, b->size, s->th[b->thread].tid);
		else {
			printf("    %-26s %14u ", units_bytes(c1, sizeof c1, b->size), s->th[b->thread].tid);
			cell(units_ns(c2, sizeof c2, (double)ns_since_start(s, b->t)), 10);
			printf("\n");
		}
	}
}

static void threads_report(const struct stats *s)
{
	if (fmt == REPORT_TEXT)
		printf("threads\n    %-10s %14s %14s %14s %16s\n", "tid", "calls", "allocations", "frees", "bytes");
	for (uint32_t i = 0; i < s->nth && i < 64; i++) {
		const struct tstat *t = &s->th[i];
		char a[32], b[32], c[32], d[UNITS_CAP];
		if (fmt == REPORT_TSV)
			printf("thread\t%u\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n", t->tid, t->calls, t->allocs, t->frees, t->bytes);
		else if (fmt == REPORT_JSON)
			printf(", \"thread_%u\": [%" PRIu64 ", %" PRIu64 ", %" PRIu64 "]", t->tid, t->calls, t->allocs, t->frees);
		else
			printf("    %-10u %14s %14s %14s %16s\n", t->tid, fmt_commas(a, t->calls), fmt_commas(b, t->allocs),
			       fmt_commas(c, t->frees), units_bytes(d, sizeof d, t->bytes));
	}
	if (fmt == REPORT_TEXT && s->nth > 64)
		printf("    (%u more threads)\n", s->nth - 64);
}

/* ---------------------------------------------------------------------------------------------
   What the program held beside its allocator, where the trace says (version 2): the memory it
   mapped itself, its memory samples, and how much of large blocks it had made resident
   ------------------------------------------------------------------------------------------- */

static void program_memory(const struct stats *s)
{
	const struct progmem *p = &s->pm;
	char a[UNITS_CAP], b[UNITS_CAP], c[UNITS_CAP], d[32], e[32];
	if (!(s->hflags & (MTRACE_HF_MAPPINGS | MTRACE_HF_MEMORY | MTRACE_HF_RESIDENT)))
		return;
	if (fmt == REPORT_TEXT)
		printf("program memory\n");
	if (s->hflags & MTRACE_HF_MAPPINGS) {
		if (fmt == REPORT_TEXT) {
			printf("  mapped directly by the program: %s at peak, %s mapping%s\n"
			       "  its other mapping calls: munmap %s, mremap %s, brk %s\n",
			       units_bytes(a, sizeof a, p->prog.peak), fmt_commas(d, p->prog.maps), p->prog.maps == 1 ? "" : "s",
			       fmt_commas(b, p->prog.unmaps), fmt_commas(c, p->prog.remaps),
			       fmt_commas(e, p->prog.brks));
			if (p->own.maps || p->own.brks)
				printf("  mapped by the allocator itself: %s at peak, %s mapping%s (its own, apart)\n",
				       units_bytes(a, sizeof a, p->own.peak), fmt_commas(d, p->own.maps),
				       p->own.maps == 1 ? "" : "s");
		} else {
			kv("program", "mapped_peak_bytes", p->prog.peak, BYTES);
			kv("program", "mappings", p->prog.maps, COUNT);
			kv("program", "unmaps", p->prog.unmaps, COUNT);
			kv("program", "remaps", p->prog.remaps, COUNT);
			kv("program", "break_moves", p->prog.brks, COUNT);
			kv("program", "allocator_mapped_peak_bytes", p->own.peak, BYTES);
			kv("program", "allocator_mappings", p->own.maps, COUNT);
		}
	}
	if (s->hflags & MTRACE_HF_MEMORY) {
		uint64_t growth = p->peak_anon > p->first_anon ? p->peak_anon - p->first_anon : 0;
		if (fmt == REPORT_TEXT && !p->samples)
			printf("  memory samples: none\n");
		else if (fmt == REPORT_TEXT) {
			char t[UNITS_CAP];
			printf("  memory samples: %s (every %u ms at most)\n", fmt_commas(d, p->samples), s->memory_ms);
			printf("  peak anonymous RSS: %s at %s, call %s\n"
			       "  anonymous RSS growth: %s from the first sample's %s\n",
			       units_bytes(a, sizeof a, p->peak_anon), units_ns(t, sizeof t, (double)ns_since_start(s, p->peak_anon_t)),
			       fmt_commas(d, s->peak_anon_idx), units_bytes(b, sizeof b, growth),
			       units_bytes(c, sizeof c, p->first_anon));
			printf("  peak RSS %s, peak virtual size %s\n", units_bytes(a, sizeof a, p->peak_rss),
			       units_bytes(b, sizeof b, p->peak_vsz));
		} else {
			kv("program", "memory_samples", p->samples, COUNT);
			kv("program", "anon_rss_first_bytes", p->first_anon, BYTES);
			kv("program", "anon_rss_peak_bytes", p->peak_anon, BYTES);
			kv("program", "anon_rss_peak_at_ns", ns_since_start(s, p->peak_anon_t), NS);
			kv("program", "anon_rss_peak_at_call", s->peak_anon_idx, COUNT);
			kv("program", "anon_rss_growth_bytes", growth, BYTES);
			kv("program", "rss_peak_bytes", p->peak_rss, BYTES);
			kv("program", "vmsize_peak_bytes", p->peak_vsz, BYTES);
		}
	}
	if (s->hflags & MTRACE_HF_RESIDENT) {
		if (fmt == REPORT_TEXT)
			printf("  resident at release: %s of %s (%.0f%%) in %s blocks of %s or more\n",
			       units_bytes(a, sizeof a, s->res_bytes), units_bytes(b, sizeof b, s->res_size),
			       s->res_size ? 100.0 * (double)s->res_bytes / (double)s->res_size : 0.0,
			       fmt_commas(d, s->res_n), units_bytes(c, sizeof c, s->resident_min));
		else {
			kv("program", "released_large_blocks", s->res_n, COUNT);
			kv("program", "released_large_bytes", s->res_size, BYTES);
			kv("program", "released_large_resident_bytes", s->res_bytes, BYTES);
		}
	}
}

/* How long the calls took (realloc's always recorded; every call's in a trace taken with
   durations), by class: average and percentiles */
static void durations(const struct stats *s)
{
	static const char *const pts[LAT_POINTS] = { "p50", "p90", "p99", "p999", "max" };
	int head = 0;
	for (int c = 0; c < LAT_CLASSES; c++) {
		uint64_t avg, pt[LAT_POINTS], n = stats_durations(s, c, &avg, pt);
		if (!n)
			continue;
		if (fmt == REPORT_TEXT) {
			char b[UNITS_CAP];
			if (!head++)
				printf("call durations\n    %-9s %11s %8s %8s %8s %8s %8s %8s\n", "call", "count",
				       "avg", "p50", "p90", "p99", "p99.9", "max");
			printf("    %-9s %11s ", lat_class_names[c], fmt_commas(b, n));
			cell(units_ns(b, sizeof b, (double)avg), 8);
			for (int k = 0; k < LAT_POINTS; k++) {
				putchar(' ');
				cell(units_ns(b, sizeof b, (double)pt[k]), 8);
			}
			printf("\n");
			continue;
		}
		char key[40];
		snprintf(key, sizeof key, "%s_calls", lat_class_names[c]);
		kv("durations_ns", key, n, COUNT);
		snprintf(key, sizeof key, "%s_avg", lat_class_names[c]);
		kv("durations_ns", key, avg, NS);
		for (int k = 0; k < LAT_POINTS; k++) {
			snprintf(key, sizeof key, "%s_%s", lat_class_names[c], pts[k]);
			kv("durations_ns", key, pt[k], NS);
		}
	}
}

/* ---------------------------------------------------------------------------------------------
   One trace
   ------------------------------------------------------------------------------------------- */

static void heading(const struct stats *s)
{
	char c1[32], t[UNITS_CAP];
	if (fmt == REPORT_JSON) {
		printf("{\"file\": ");
		print_json_string(stdout, s->name);
		json_first = 0;
		printf(", \"pid\": %d, \"threads\": %u, \"allocator\": ", (int)s->pid, s->nthreads);
		print_json_string(stdout, s->allocator);
		printf(", \"settings\": ");
		print_json_string(stdout, s->settings);
	} else if (fmt == REPORT_TEXT) {
		printf("%s: %s (pid %d), %u thread%s, %s call%s over %s\n", s->name, s->exe[0] ? s->exe : "?",
		       (int)s->pid, s->nthreads, s->nthreads == 1 ? "" : "s", fmt_commas(c1, s->total),
		       s->total == 1 ? "" : "s", units_ns(t, sizeof t, (double)ns_since_start(s, s->t_last)));
		if (s->allocator[0])
			printf("allocator: %s\n", s->allocator);
		if (s->settings[0])
			printf("settings: %s (the allocators' settings it ran with)\n", s->settings);
		printf("calls\n");
	} else {
		printf("trace\tfile\t");
		print_tsv_field(stdout, s->name);
		printf("\ntrace\tthreads\t%u\ntrace\tallocator\t", s->nthreads);
		print_tsv_field(stdout, s->allocator);
		printf("\ntrace\tsettings\t");
		print_tsv_field(stdout, s->settings);
		printf("\n");
	}
}

void report_trace(const struct stats *s, enum report_format f)
{
	fmt = f;
	json_first = 1;
	heading(s);
	for (unsigned c = 1; c <= MTRACE_CALL_LAST_API; c++)
		if (s->calls[c] || fmt != REPORT_TEXT)
			kv("calls", mtrace_call_name(c), s->calls[c], COUNT);
	kv("calls", "total", s->total, COUNT);
	kv("calls", "failed", s->failed, COUNT);
	kv("calls", "free_null", s->free_null, COUNT);
	kv("calls", "free_of_unknown_block", s->skipped_free, COUNT);
	if (fmt == REPORT_TEXT)
		printf("memory\n");
	kv("memory", "ideal_rss_peak", s->live.peak, BYTES);
	kv("memory", "ideal_rss_peak_at_call", s->live.peak_at, COUNT);
	kv("memory", "ideal_rss_peak_at_ns", ns_since_start(s, s->peak_t), NS);
	kv("memory", "live_blocks_at_end", s->live.n, COUNT);
	kv("memory", "live_bytes_at_end", s->live.bytes, BYTES);
	kv("memory", "requested_bytes", s->requested, BYTES);
	kv("memory", "overhead_bytes", s->usable, BYTES);
	if (fmt == REPORT_TEXT && s->requested)
		printf("  %-26s %.2f%% of requested\n", "overhead", 100.0 * (double)s->usable / (double)s->requested);
	kv("threads", "cross_thread_frees", s->xfree, COUNT);
	if (fmt == REPORT_TEXT)
		printf("realloc\n");
	kv("realloc", "moved", s->re_moved, COUNT);
	kv("realloc", "in_place", s->re_inplace, COUNT);
	kv("realloc", "to_zero", s->re_zero, COUNT);
	kv("realloc", "from_null", s->re_null, COUNT);
	kv("realloc", "of_unknown_block", s->re_unknown, COUNT);
	kv("realloc", "grew", s->re_grew, COUNT);
	kv("realloc", "shrank", s->re_shrank, COUNT);
	if (s->glibc) {
		if (fmt == REPORT_TEXT)
			printf("glibc\n");
		kv("glibc", "served_by_mmap", s->mmap_n, COUNT);
		kv("glibc", "grew_the_heap", s->brk_n, COUNT);
	}
	program_memory(s);
	durations(s);
	histogram("sizes", "sizes", "requested size", BYTES, s->size_n, s->size_b);
	histogram("lifetime_calls", "lifetimes in calls", "calls lived", COUNT, s->life_calls, NULL);
	histogram("lifetime_ns", "lifetimes in time", "time lived", NS, s->life_ns, NULL);
	top_sizes_report(s);
	largest_live_report(s);
	threads_report(s);
	char c1[32];
	if (s->late && fmt == REPORT_TEXT)
		printf("(%s records came out of order and were taken late)\n", fmt_commas(c1, s->late));
	if (fmt == REPORT_JSON)
		printf("}\n");
}

/* ---------------------------------------------------------------------------------------------
   Two traces side by side
   ------------------------------------------------------------------------------------------- */

static uint64_t p99(const struct stats *s, int c)   /* of the recorded durations, ns; 0: none */
{
	uint64_t avg, pt[LAT_POINTS];
	stats_durations(s, c, &avg, pt);
	return pt[LAT_P99];
}

void report_diff(const struct stats *a, const struct stats *b, enum report_format f)
{
	struct { const char *k; uint64_t x, y; enum unit u; } rows[] = {
		{ "calls", a->total, b->total, COUNT }, { "malloc", a->calls[1], b->calls[1], COUNT },
		{ "calloc", a->calls[2], b->calls[2], COUNT }, { "free", a->calls[3], b->calls[3], COUNT },
		{ "realloc", a->calls[4], b->calls[4], COUNT }, { "failed", a->failed, b->failed, COUNT },
		{ "threads", a->nthreads, b->nthreads, COUNT }, { "ideal_rss_peak", a->live.peak, b->live.peak, BYTES },
		{ "live_bytes_at_end", a->live.bytes, b->live.bytes, BYTES },
		{ "live_blocks_at_end", a->live.n, b->live.n, COUNT },
		{ "requested_bytes", a->requested, b->requested, BYTES },
		{ "overhead_bytes", a->usable, b->usable, BYTES },
		{ "cross_thread_frees", a->xfree, b->xfree, COUNT },
		{ "realloc_moved", a->re_moved, b->re_moved, COUNT },
		{ "served_by_mmap", a->mmap_n, b->mmap_n, COUNT }, { "grew_the_heap", a->brk_n, b->brk_n, COUNT },
		{ "malloc_p99_ns", p99(a, LAT_MALLOC), p99(b, LAT_MALLOC), NS },
		{ "free_p99_ns", p99(a, LAT_FREE), p99(b, LAT_FREE), NS },
		{ "realloc_p99_ns", p99(a, LAT_REALLOC), p99(b, LAT_REALLOC), NS },
		{ "mapped_by_program_peak", a->pm.prog.peak, b->pm.prog.peak, BYTES },
		{ "anon_rss_peak", a->pm.peak_anon, b->pm.peak_anon, BYTES },
	};
	fmt = f;
	if (fmt == REPORT_TEXT)
		printf("%-22s %14s %14s %14s %9s\n", "", "A", "B", "B - A", "B / A");
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		char k[64], c1[UNITS_CAP], c2[UNITS_CAP], c3[UNITS_CAP], c4[UNITS_CAP + 1];
		int64_t d = (int64_t)(rows[i].y - rows[i].x);
		if (fmt == REPORT_TSV) {
			printf("diff\t%s\t%" PRIu64 "\t%" PRIu64 "\t%" PRId64 "\n", rows[i].k, rows[i].x, rows[i].y, d);
			continue;
		}
		if (fmt == REPORT_JSON) {
			printf("%s\"%s\": [%" PRIu64 ", %" PRIu64 "]", i ? ", " : "{", rows[i].k, rows[i].x, rows[i].y);
			continue;
		}
		snprintf(c4, sizeof c4, "%s%s", d < 0 ? "-" : "+",
			 text_of(c3, sizeof c3, (uint64_t)(d < 0 ? -d : d), rows[i].u));
		printf("%-22s ", text_key(k, sizeof k, rows[i].k, rows[i].u));
		cell(text_of(c1, sizeof c1, rows[i].x, rows[i].u), 14);
		putchar(' ');
		cell(text_of(c2, sizeof c2, rows[i].y, rows[i].u), 14);
		putchar(' ');
		cell(c4, 14);
		if (rows[i].x)
			printf(" %8.2fx", (double)rows[i].y / (double)rows[i].x);
		printf("\n");
	}
	if (fmt == REPORT_JSON)
		printf("}\n");
}
