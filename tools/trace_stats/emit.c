/* emit.c - see emit.h: trace_stats' three output formats */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "emit.h"
#include "tool.h"
#include "units.h"

static void say_nothing(const char *fmt, ...)
{
	(void)fmt;
}

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

/* A key as the text names it: without the unit ("_ns") that its value carries there */
static const char *text_key(char *buf, size_t cap, const char *key, enum unit u)
{
	size_t n = strlen(key);
	if (u == NS && n > 3 && !strcmp(key + n - 3, "_ns"))
		n -= 3;
	snprintf(buf, cap, "%.*s", (int)n, key);
	return buf;
}

/* Bucket k of a power-of-two histogram in the text: "[4 KiB, 8 KiB)", "[1.02 µs, 2.05 µs)";
   counts of calls as ranges */
static void bucket_text(char *buf, size_t cap, int k, enum unit u)
{
	char a[UNITS_CAP], b[UNITS_CAP];
	if (u == COUNT && k >= 2 && k < 64) {
		snprintf(buf, cap, "%s-%s", fmt_commas(a, 1ull << (k - 1)),
			 fmt_commas(b, (1ull << k) - 1));
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

/* On a terminal a sentence is broken at spaces to its width (the terminal would cut a word or
   a number), what follows indented two past its line's own indent */
static void text_vline(const char *fmt, va_list ap)
{
	char buf[8192];
	vsnprintf(buf, sizeof buf, fmt, ap);
	print_wrapped(stdout, buf, tool_tty_width(1), (int)strspn(buf, " ") + 2);
}

void text_line(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	text_vline(fmt, ap);
	va_end(ap);
}

static int text_durations_head;   /* the durations table's heading is written */

static void text_begin(const struct stats *s)
{
	char c1[32], t[UNITS_CAP];
	uint64_t end = s->t_last > s->t0 ? stats_ns(s, s->t_last - s->t0) : 0;
	text_line("%s: %s (pid %d), %u thread%s, %s call%s over %s\n", s->name,
	       s->exe[0] ? s->exe : "?", (int)s->pid, s->nthreads, s->nthreads == 1 ? "" : "s",
	       fmt_commas(c1, s->total), s->total == 1 ? "" : "s",
	       units_ns(t, sizeof t, (double)end));
	if (s->allocator[0])
		text_line("allocator: %s\n", s->allocator);
	if (s->settings[0])
		text_line("settings: %s (the allocators' settings it ran with)\n", s->settings);
	text_durations_head = 0;
}

static void text_section(const char *title)
{
	printf("%s\n", title);
}

static void text_figure(const char *section, const char *key, uint64_t v, enum unit u, int flags)
{
	char t[UNITS_CAP], k[64];
	if (!(flags & FIG_NO_TEXT) && (v || !(flags & FIG_TEXT_NONZERO)))
		printf("  %-26s %s\n", text_key(k, sizeof k, key, u), text_of(t, sizeof t, v, u));
}

static void text_say(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	text_vline(fmt, ap);
	va_end(ap);
}

static void text_durations(const char *name, uint64_t n, uint64_t avg, const uint64_t *pt)
{
	char b[UNITS_CAP];
	if (!text_durations_head++)
		printf("call durations\n    %-9s %11s %8s %8s %8s %8s %8s %8s\n", "call", "count",
		       "avg", "p50", "p90", "p99", "p99.9", "max");
	printf("    %-9s %11s ", name, fmt_commas(b, n));
	cell(units_ns(b, sizeof b, (double)avg), 8);
	for (int k = 0; k < LAT_POINTS; k++) {
		putchar(' ');
		cell(units_ns(b, sizeof b, (double)pt[k]), 8);
	}
	printf("\n");
}

static void text_hist_begin(const char *title, const char *what, int bytes)
{
	printf("%s\n    %-26s %14s%s\n", title, what, "count", bytes ? "           bytes" : "");
}

static void text_bucket(const char *section, int k, enum unit u, uint64_t n, const uint64_t *b)
{
	char r[2 * UNITS_CAP + 8], c1[32], c2[UNITS_CAP];
	bucket_text(r, sizeof r, k, u);
	printf("    ");
	cell(r, -26);
	printf(" %14s", fmt_commas(c1, n));
	if (b)
		printf(" %15s", units_bytes(c2, sizeof c2, *b));
	printf("\n");
}

static void text_top_size(size_t i, uint64_t sz, uint64_t count)
{
	char c1[32], c2[32], r[UNITS_CAP], size[80];
	/* a size is exact (17 is not 16): the readable one beside it from 1 KiB on */
	snprintf(size, sizeof size, "%s B", fmt_commas(c1, sz));
	if (sz >= 1024)
		snprintf(size + strlen(size), sizeof size - strlen(size), " (%s)",
			 units_bytes(r, sizeof r, sz));
	printf("    %-26s %14s\n", size, fmt_commas(c2, count));
}

static void text_largest_live(size_t i, uint64_t size, uint32_t tid, uint64_t at, double sec)
{
	char c1[UNITS_CAP], c2[UNITS_CAP];
	printf("    %-26s %14u ", units_bytes(c1, sizeof c1, size), tid);
	cell(units_ns(c2, sizeof c2, (double)at), 10);
	printf("\n");
}

static void text_thread(const struct tstat *t)
{
	char a[32], b[32], c[32], d[UNITS_CAP];
	printf("    %-10u %14s %14s %14s %16s\n", t->tid, fmt_commas(a, t->calls),
	       fmt_commas(b, t->allocs), fmt_commas(c, t->frees),
	       units_bytes(d, sizeof d, t->bytes));
}

static void text_end(void)
{
}

static void text_diff_begin(void)
{
	printf("%-22s %14s %14s %14s %9s\n", "", "A", "B", "B - A", "B / A");
}

static const char *diff_text(char *buf, size_t cap, uint64_t v, enum unit u)
{
	return v == DIFF_NOT_RECORDED ? "not recorded" : text_of(buf, cap, v, u);
}

static void text_diff_row(size_t i, const char *key, uint64_t a, uint64_t b, enum unit u)
{
	char k[64], c1[UNITS_CAP], c2[UNITS_CAP], c3[UNITS_CAP], c4[UNITS_CAP + 1];
	int both = a != DIFF_NOT_RECORDED && b != DIFF_NOT_RECORDED;
	printf("%-22s ", text_key(k, sizeof k, key, u));
	cell(diff_text(c1, sizeof c1, a, u), 14);
	putchar(' ');
	cell(diff_text(c2, sizeof c2, b, u), 14);
	if (both) {
		int64_t d = (int64_t)(b - a);
		snprintf(c4, sizeof c4, "%s%s", d < 0 ? "-" : "+",
			 text_of(c3, sizeof c3, (uint64_t)(d < 0 ? -d : d), u));
		putchar(' ');
		cell(c4, 14);
		if (a)
			printf(" %8.2fx", (double)b / (double)a);
	}
	printf("\n");
}

static const struct emitter text = {
	text_begin, text_section, text_figure, text_say, text_durations, text_hist_begin,
	text_bucket, text_top_size, text_largest_live, text_thread, text_end, text_diff_begin,
	text_diff_row, text_end,
};

/* ---------------------------------------------------------------------------------------------
   TSV: a line a figure, "section<TAB>key<TAB>value"; JSON: one object, "section_key": value
   ------------------------------------------------------------------------------------------- */

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

static void none(void)
{
}

static void no_section(const char *title)
{
}

static void no_hist_begin(const char *title, const char *what, int bytes)
{
}

static void tsv_begin(const struct stats *s)
{
	printf("trace\tfile\t");
	print_tsv_field(stdout, s->name);
	printf("\ntrace\tthreads\t%u\ntrace\tallocator\t", s->nthreads);
	print_tsv_field(stdout, s->allocator);
	printf("\ntrace\tsettings\t");
	print_tsv_field(stdout, s->settings);
	printf("\n");
}

static void tsv_figure(const char *section, const char *key, uint64_t v, enum unit u, int flags)
{
	printf("%s\t%s\t%" PRIu64 "\n", section, key, v);
}

static void tsv_bucket(const char *section, int k, enum unit u, uint64_t n, const uint64_t *b)
{
	char r[64];
	bucket_key(r, sizeof r, k);
	printf("%s\t%s\t%" PRIu64, section, r, n);
	if (b)
		printf("\t%" PRIu64, *b);
	printf("\n");
}

static void tsv_top_size(size_t i, uint64_t size, uint64_t count)
{
	printf("top_sizes\t%" PRIu64 "\t%" PRIu64 "\n", size, count);
}

static void tsv_largest_live(size_t i, uint64_t size, uint32_t tid, uint64_t at, double sec)
{
	printf("largest_live\t%" PRIu64 "\t%u\t%.9f\n", size, tid, sec);
}

static void tsv_thread(const struct tstat *t)
{
	printf("thread\t%u\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n", t->tid, t->calls,
	       t->allocs, t->frees, t->bytes);
}

/* a figure the trace does not hold: an empty field (TSV), null (JSON) */
static void tsv_diff_row(size_t i, const char *key, uint64_t a, uint64_t b, enum unit u)
{
	printf("diff\t%s\t", key);
	if (a != DIFF_NOT_RECORDED)
		printf("%" PRIu64, a);
	putchar('\t');
	if (b != DIFF_NOT_RECORDED)
		printf("%" PRIu64, b);
	putchar('\t');
	if (a != DIFF_NOT_RECORDED && b != DIFF_NOT_RECORDED)
		printf("%" PRId64, (int64_t)(b - a));
	putchar('\n');
}

static void no_durations(const char *name, uint64_t n, uint64_t avg, const uint64_t *pt)
{
}

static const struct emitter tsv = {
	tsv_begin, no_section, tsv_figure, say_nothing, no_durations, no_hist_begin,
	tsv_bucket, tsv_top_size, tsv_largest_live, tsv_thread, none, none, tsv_diff_row, none,
};

static void json_begin(const struct stats *s)
{
	printf("{\"file\": ");
	print_json_string(stdout, s->name);
	printf(", \"pid\": %d, \"threads\": %u, \"allocator\": ", (int)s->pid, s->nthreads);
	print_json_string(stdout, s->allocator);
	printf(", \"settings\": ");
	print_json_string(stdout, s->settings);
}

/* (every member after begin's first: ", " before it) */
static void json_figure(const char *section, const char *key, uint64_t v, enum unit u, int flags)
{
	printf(", \"%s_%s\": %" PRIu64, section, key, v);
}

static void json_bucket(const char *section, int k, enum unit u, uint64_t n, const uint64_t *b)
{
	char r[64];
	bucket_key(r, sizeof r, k);
	printf(", \"%s_%s\": %" PRIu64, section, r, n);
	if (b)
		printf(", \"%s_%s_bytes\": %" PRIu64, section, r, *b);
}

static void json_top_size(size_t i, uint64_t size, uint64_t count)
{
	printf(", \"top_size_%zu\": [%" PRIu64 ", %" PRIu64 "]", i + 1, size, count);
}

static void json_largest_live(size_t i, uint64_t size, uint32_t tid, uint64_t at, double sec)
{
	printf(", \"largest_live_%zu\": [%" PRIu64 ", %u]", i + 1, size, tid);
}

static void json_thread(const struct tstat *t)
{
	printf(", \"thread_%u\": [%" PRIu64 ", %" PRIu64 ", %" PRIu64 "]", t->tid, t->calls,
	       t->allocs, t->frees);
}

static void json_end(void)
{
	printf("}\n");
}

static void json_diff_row(size_t i, const char *key, uint64_t a, uint64_t b, enum unit u)
{
	printf("%s\"%s\": [", i ? ", " : "{", key);
	if (a == DIFF_NOT_RECORDED)
		printf("null, ");
	else
		printf("%" PRIu64 ", ", a);
	if (b == DIFF_NOT_RECORDED)
		printf("null]");
	else
		printf("%" PRIu64 "]", b);
}

static const struct emitter json = {
	json_begin, no_section, json_figure, say_nothing, no_durations, no_hist_begin,
	json_bucket, json_top_size, json_largest_live, json_thread, json_end, none, json_diff_row,
	json_end,
};

const struct emitter *emitter_of(enum report_format f)
{
	return f == REPORT_TSV ? &tsv : f == REPORT_JSON ? &json : &text;
}
