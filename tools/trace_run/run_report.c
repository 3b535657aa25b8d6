/* run_report.c - see run_report.h */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cycles.h"
#include "run_report.h"
#include "tool.h"

/* ---------------------------------------------------------------------------------------------
   One run's figures, as text, CSV or JSON; medians of several
   ------------------------------------------------------------------------------------------- */

const char *const report_field_names[NFIELDS] = {
	"cycles", "wall_usec", "user_usec", "maxrss_growth_kb", "maxrss_start_kb", "maxrss_end_kb",
	"ideal_rss_kb", "malloc_calls", "malloc_avg_cycles", "calloc_calls", "calloc_avg_cycles",
	"realloc_calls", "realloc_avg_cycles", "free_calls", "free_avg_cycles", "memalign_calls",
	"memalign_avg_cycles", "total_call_cycles", "peak_vmrss_kb", "peak_vmsize_kb",
	"peak_live_kb", "waits", "waits_slept", "harness_kb", "threads", "implicit_frees",
	"trace_failed_calls", "replay_failed_calls", "replay_threads",
	"malloc_p50_cycles", "malloc_p90_cycles", "malloc_p99_cycles", "malloc_p999_cycles",
	"malloc_max_cycles", "calloc_p50_cycles", "calloc_p90_cycles", "calloc_p99_cycles",
	"calloc_p999_cycles", "calloc_max_cycles", "realloc_p50_cycles", "realloc_p90_cycles",
	"realloc_p99_cycles", "realloc_p999_cycles", "realloc_max_cycles", "free_p50_cycles",
	"free_p90_cycles", "free_p99_cycles", "free_p999_cycles", "free_max_cycles",
	"memalign_p50_cycles", "memalign_p90_cycles", "memalign_p99_cycles", "memalign_p999_cycles",
	"memalign_max_cycles", "first_failed_op", "first_failed_bytes", "first_failed_stream",
	"first_failed_call",
	"program_rss_growth_kb", "replay_rss_growth_kb", "fidelity_peak_error",
	"fidelity_curve_error", "fidelity_applies", "replay_mapped_kb", "resident_touches",
	"fidelity_time_error", "resident_unknown_kb",
};

void report_fields(const struct replay_result *r, uint64_t ideal, int64_t *f)
{
	/* realloc's and memalign's figures: their classes' calls (lat_hist.h) */
	static const uint8_t class_of[MTRACE_WL_NCOUNTS] = { MTRACE_CALLS_API(LAT_OF_WL) };
	uint64_t n_re = 0, c_re = 0, n_ma = 0, c_ma = 0, total = 0;
	for (int i = 1; i <= MTRACE_WL_LAST_CALL; i++) {
		if (class_of[i] == LAT_REALLOC)
			n_re += r->n[i], c_re += r->cyc[i];
		else if (class_of[i] == LAT_MEMALIGN)
			n_ma += r->n[i], c_ma += r->cyc[i];
	}
	for (int i = 0; i < MTRACE_WL_NCOUNTS; i++)
		total += r->cyc[i];
#define AVG(c, n) ((n) ? (int64_t)((c) / (n)) : 0)
	f[F_CYCLES] = (int64_t)r->cycles;
	f[F_WALL] = (int64_t)r->wall_usec;
	f[F_USER] = (int64_t)r->user_usec;
	f[F_RSS_GROWTH] = r->maxrss_end_kb - r->maxrss_start_kb;
	f[F_RSS_START] = r->maxrss_start_kb;
	f[F_RSS_END] = r->maxrss_end_kb;
	f[F_IDEAL_KB] = (int64_t)(ideal / 1024);
	f[F_MALLOC_N] = (int64_t)r->n[MTRACE_WL_MALLOC];
	f[F_MALLOC_AVG] = AVG(r->cyc[MTRACE_WL_MALLOC], r->n[MTRACE_WL_MALLOC]);
	f[F_CALLOC_N] = (int64_t)r->n[MTRACE_WL_CALLOC];
	f[F_CALLOC_AVG] = AVG(r->cyc[MTRACE_WL_CALLOC], r->n[MTRACE_WL_CALLOC]);
	f[F_REALLOC_N] = (int64_t)n_re;
	f[F_REALLOC_AVG] = AVG(c_re, n_re);
	f[F_FREE_N] = (int64_t)r->n[MTRACE_WL_FREE];
	f[F_FREE_AVG] = AVG(r->cyc[MTRACE_WL_FREE], r->n[MTRACE_WL_FREE]);
	f[F_MEMALIGN_N] = (int64_t)n_ma;
	f[F_MEMALIGN_AVG] = AVG(c_ma, n_ma);
	f[F_TOTAL] = (int64_t)total;
	f[F_PEAK_RSS] = (int64_t)r->peak_vmrss_kb;
	f[F_PEAK_VSZ] = (int64_t)r->peak_vmsize_kb;
	f[F_PEAK_LIVE_KB] = (int64_t)(r->peak_live / 1024);
	f[F_WAITS] = (int64_t)r->waits;
	f[F_SLEPT] = (int64_t)r->waits_slept;
	f[F_HARNESS_KB] = (int64_t)r->harness_kb;
	f[F_THREADS] = r->nthreads;
	f[F_IMPLICIT] = (int64_t)r->implicit_frees;
	f[F_FAILED] = (int64_t)r->failed_replayed;
	f[F_RFAIL] = (int64_t)r->replay_failures;
	f[F_WORKERS] = r->workers;
	for (int c = 0; c < LAT_CLASSES; c++)
		for (int k = 0; k < LAT_POINTS; k++)
			f[F_LAT + LAT_POINTS * c + k] = (int64_t)r->lat[c][k];
	f[F_RFAIL_OP] = r->replay_failures ? (int64_t)r->fail_op : 0;
	f[F_RFAIL_BYTES] = r->replay_failures ? (int64_t)r->fail_bytes : 0;
	f[F_RFAIL_STREAM] = r->replay_failures ? (int64_t)r->fail_stream : 0;
	f[F_RFAIL_CALL] = r->replay_failures ? (int64_t)r->fail_call : 0;
}

const char *report_failures(const int64_t *f, char *buf, size_t cap)
{
	const char *op = f[F_RFAIL_OP] > 0 && f[F_RFAIL_OP] < 64
				 ? mtrace_wl_op_name((unsigned)f[F_RFAIL_OP])
				 : NULL;
	snprintf(buf, cap,
		 "%s call%s that succeeded in the program failed (the first: %s %s of %s bytes, "
		 "stream %s, its call %s)",
		 report_num(f[F_RFAIL]), f[F_RFAIL] == 1 ? "" : "s",
		 op && strchr("aeiou", op[0]) ? "an" : "a", op ? op : "call",
		 report_num(f[F_RFAIL_BYTES]), report_num(f[F_RFAIL_STREAM]),
		 report_num(f[F_RFAIL_CALL]));
	return buf;
}

const char *report_num(int64_t v)
{
	static char bufs[8][32];
	static int i;
	char *b = bufs[i++ & 7];
	if (v < 0) {
		b[0] = '-';
		fmt_commas(b + 1, (unsigned long long)-v);
	} else
		fmt_commas(b, (unsigned long long)v);
	return b;
}

const char *report_timer(int untimed)
{
	return untimed ? "off (--no-timing: calls not timed)" : cycles_name();
}

void report_text(FILE *out, const int64_t *f, const char *alloc, const char *timer, unsigned runs,
		 int dj)
{
	/* the original layout, lines 0-11 with dj (its words whatever the timer counts), else
	   without the sizeof line, the unit named */
	const char *unit = dj ? "cycles" : cycles_unit();
	fprintf(out, "%s %s\n", report_num(f[F_CYCLES]), unit);
	fprintf(out, "%s usec wall time\n", report_num(f[F_WALL]));
	fprintf(out, "%s usec across %s thread%s\n", report_num(f[F_USER]), report_num(f[F_THREADS]),
	       f[F_THREADS] == 1 ? "" : "s");
	fprintf(out, "%s Kb Max RSS (%s -> %s)\n", report_num(f[F_RSS_GROWTH]),
	       report_num(f[F_RSS_START]), report_num(f[F_RSS_END]));
	fprintf(out, "%s Kb Max Ideal RSS\n", report_num(f[F_IDEAL_KB]));
	fprintf(out, "\n");
	if (dj)
		fprintf(out, "sizeof ticks_t is 8\n");
	fprintf(out, "Avg malloc time: %6s in %10s calls\n", report_num(f[F_MALLOC_AVG]),
	       report_num(f[F_MALLOC_N]));
	fprintf(out, "Avg calloc time: %6s in %10s calls\n", report_num(f[F_CALLOC_AVG]),
	       report_num(f[F_CALLOC_N]));
	fprintf(out, "Avg realloc time: %5s in %10s calls\n", report_num(f[F_REALLOC_AVG]),
	       report_num(f[F_REALLOC_N]));
	fprintf(out, "Avg free time: %8s in %10s calls\n", report_num(f[F_FREE_AVG]),
	       report_num(f[F_FREE_N]));
	fprintf(out, "Total call time: %s %s\n", report_num(f[F_TOTAL]), unit);
	/* more: first, on a line of its own, calls that failed here where the program's succeeded
	   (an allocator out of memory, a limit): the figures above then measure another replay */
	if (f[F_RFAIL]) {
		char what[300];
		fprintf(out, "FAILED: %s: the figures above are not comparable\n",
		       report_failures(f, what, sizeof what));
	}
	fprintf(out, "\n");
	fprintf(out, "Avg memalign time: %4s in %10s calls (memalign, posix_memalign, aligned_alloc, "
	       "valloc, pvalloc)\n",
	       report_num(f[F_MEMALIGN_AVG]), report_num(f[F_MEMALIGN_N]));
	static const int calls_of[LAT_CLASSES] = { F_MALLOC_N, F_CALLOC_N, F_REALLOC_N, F_FREE_N,
						   F_MEMALIGN_N };
	for (int c = 0, head = 0; c < LAT_CLASSES; c++) {
		const int64_t *p = f + F_LAT + LAT_POINTS * c;
		if (!f[calls_of[c]] || !p[LAT_MAX])
			continue;   /* no calls, or not timed */
		if (!head++)
			fprintf(out, "%s a call, p50 / p90 / p99 / p99.9 / max:\n",
			       lat_unit_title(cycles_unit()));
		fprintf(out, "  %-9s %s / %s / %s / %s / %s\n", lat_class_names[c],
		       report_num(p[LAT_P50]), report_num(p[LAT_P90]), report_num(p[LAT_P99]),
		       report_num(p[LAT_P999]), report_num(p[LAT_MAX]));
	}
	fprintf(out, "Peak VmRSS %s Kb, peak VmSize %s Kb, peak live requested %s Kb (sampled)\n",
	       report_num(f[F_PEAK_RSS]), report_num(f[F_PEAK_VSZ]), report_num(f[F_PEAK_LIVE_KB]));
	fprintf(out, "Waits: %s, of which %s slept\n", report_num(f[F_WAITS]), report_num(f[F_SLEPT]));
	if (f[F_WORKERS] != f[F_THREADS])
		fprintf(out, "Replay threads: %s for %s streams (streams beyond --threads waited for one "
		       "to come free)\n",
		       report_num(f[F_WORKERS]), report_num(f[F_THREADS]));
	if (f[F_IMPLICIT] || f[F_FAILED] || f[F_RFAIL])
		fprintf(out, "Allocations into occupied slots: %s; calls that failed in the trace: %s; "
		       "failed here only: %s\n",
		       report_num(f[F_IMPLICIT]), report_num(f[F_FAILED]), report_num(f[F_RFAIL]));
	fprintf(out, "Timer: %s\n", timer);
	fprintf(out, "Allocator: %s\n", alloc);
	fprintf(out, "Harness memory: %s Kb (mmap'd tables, not from the allocator)\n",
	       report_num(f[F_HARNESS_KB]));
	fprintf(out, "Units: Kb is KiB; \"usec across N threads\" is the replay threads' user CPU time;\n"
	       "Max RSS: how much the peak resident set grew during the replay "
	       "(START -> END).\n");
	if (runs > 1)
		fprintf(out, "Median of %u runs, each in a fresh process\n", runs);
}

/* The fields named *_cycles count the timer's unit, timer_unit: cycles, ns or ticks */
void report_csv_header(void)
{
	for (int i = 0; i < NFIELDS; i++)
		printf("%s,", report_field_names[i]);
	printf("allocator,timer,timer_unit\n");
}

void report_csv_row(const int64_t *f, const char *alloc, const char *timer)
{
	for (int i = 0; i < NFIELDS; i++) {
		report_value(stdout, i, f[i], 0);
		putchar(',');
	}
	print_csv_field(stdout, alloc);
	putchar(',');
	print_csv_field(stdout, timer);
	printf(",%s\n", cycles_unit());
}

void report_json(const int64_t *f, const char *alloc, const char *timer)
{
	printf("{");
	for (int i = 0; i < NFIELDS; i++) {
		printf("\"%s\": ", report_field_names[i]);
		report_value(stdout, i, f[i], 1);
		printf(", ");
	}
	printf("\"allocator\": ");
	print_json_string(stdout, alloc);
	printf(", \"timer\": ");
	print_json_string(stdout, timer);
	printf(", \"timer_unit\": \"%s\"}\n", cycles_unit());
}

static int cmp64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

void report_medians(int64_t (*runs)[NFIELDS], unsigned n, int64_t *med, int64_t *lo, int64_t *hi)
{
	int64_t *col = malloc(n * sizeof *col);
	for (int i = 0; i < NFIELDS; i++) {
		for (unsigned k = 0; k < n; k++)
			col[k] = runs[k][i];
		qsort(col, n, sizeof *col, cmp64);
		med[i] = col[(n - 1) / 2];
		if (lo)
			lo[i] = col[0], hi[i] = col[n - 1];
	}
	free(col);
}

/* ---------------------------------------------------------------------------------------------
   The comparison (--compare): a table, one column an allocator, each figure also as a ratio to
   the first column; or one CSV table, a row an allocator; or a JSON array, an object each
   ------------------------------------------------------------------------------------------- */

/* From 3 runs a column on, a ratio is marked '~' when the two columns' runs overlap (the
   smallest of either is below the largest of the other): a difference the machine's own
   spread could make.  Runs that do not overlap are the stronger sign the more there are: by
   chance alone, 1 time in 10 at 3 runs each, in 126 at 5 (of the ways to interleave two
   sets of runs, the two that keep them apart). */
#define SPREAD_MIN_RUNS 3

/* A row of the --compare table: its label, its field (-1: START -> END), and whether it is a
   time (its label then says the timer's unit) */
struct compare_row {
	const char *label;
	int field, timed;
};

static int overlap(int64_t (*lo)[NFIELDS], int64_t (*hi)[NFIELDS], int a, int b, int field)
{
	return lo[a][field] <= hi[b][field] && lo[b][field] <= hi[a][field];
}

/* The --compare table's columns [a0, a1): their names, then a line a row */
static void report_compare_rows(const struct compare_row *rows, size_t nrows, int a0, int a1,
				const char *const *names, int64_t (*med)[NFIELDS],
				int64_t (*lo)[NFIELDS], int64_t (*hi)[NFIELDS], const int *failed,
				const int *calls_failed, const int *w, unsigned reps, int marks,
				int samples)
{
	/* a single run says nothing of the spread: said where the eye starts */
	printf("%-26s", reps == 1 ? "(a single run each)" : "");
	for (int a = a0; a < a1; a++)
		printf(" %*s", w[a], names[a]);
	printf("\n");
	for (size_t i = 0; i < nrows; i++) {
		if (rows[i].field >= F_PROG_GROWTH && !samples)
			continue;
		char label[64];
		snprintf(label, sizeof label, rows[i].timed ? "%s (%s)" : "%s", rows[i].label,
			 cycles_unit());
		printf("%-26s", label);
		for (int a = a0; a < a1; a++) {
			int f = rows[i].field;
			int64_t v = f < 0 ? 0 : med[a][f], b = f < 0 ? 0 : med[0][f];
			char cell[64];
			if (failed[a])
				printf(" %*s", w[a], "failed");
			else if (f < 0) {
				snprintf(cell, sizeof cell, "%s -> %s%s",
					 report_num(med[a][F_RSS_START]),
					 report_num(med[a][F_RSS_END]), calls_failed[a] ? "!" : "");
				printf(" %*s", w[a], cell);
			} else if (report_fidelity_cell(cell, sizeof cell, f, v))
				printf(" %*s", w[a], cell);
			else if (calls_failed[a]) {
				snprintf(cell, sizeof cell, "%s!", report_num(v));
				printf(" %*s", w[a], cell);
			} else if (a == 0 || b == 0 || failed[0] || calls_failed[0])
				printf(" %*s", w[a], report_num(v));
			else {
				snprintf(cell, sizeof cell, "%s (%.2fx%s)", report_num(v),
					 (double)v / (double)b,
					 marks && overlap(lo, hi, a, 0, rows[i].field) ? "~" : "");
				printf(" %*s", w[a], cell);
			}
		}
		printf("\n");
	}
}

void report_compare(const char *format, const char *const *names, int na, int64_t (*med)[NFIELDS],
		    int64_t (*lo)[NFIELDS], int64_t (*hi)[NFIELDS], const int *failed,
		    int64_t (*fails)[NFIELDS], unsigned reps, const char *timer)
{
	int marks = reps >= SPREAD_MIN_RUNS;
	/* Max RSS as a single run means it: the growth, then its two ends (row field -1).  Call
	   times (timed: their label says the timer's unit) as the median call and the 99th
	   percentile first: an average is one outlier's (a 16 ms call among 20,000) */
	static const struct compare_row rows[] = {
		{ "wall time (usec)", F_WALL, 0 }, { "elapsed", F_CYCLES, 1 },
		{ "Max RSS (KiB)", F_RSS_GROWTH, 0 }, { "  START -> END (KiB)", -1, 0 },
		{ "peak VmRSS (KiB)", F_PEAK_RSS, 0 },
		{ "ideal RSS (KiB)", F_IDEAL_KB, 0 },
		{ "p50 malloc", F_LAT + LAT_POINTS * LAT_MALLOC + LAT_P50, 1 },
		{ "p99 malloc", F_LAT + LAT_POINTS * LAT_MALLOC + LAT_P99, 1 },
		{ "p50 free", F_LAT + LAT_POINTS * LAT_FREE + LAT_P50, 1 },
		{ "p99 free", F_LAT + LAT_POINTS * LAT_FREE + LAT_P99, 1 },
		{ "avg malloc", F_MALLOC_AVG, 1 }, { "avg calloc", F_CALLOC_AVG, 1 },
		{ "avg realloc", F_REALLOC_AVG, 1 }, { "avg free", F_FREE_AVG, 1 },
		{ "total call time", F_TOTAL, 1 },
		/* with the program's samples: its memory beside each column's */
		{ "program RSS growth (KiB)", F_PROG_GROWTH, 0 },
		{ "replay RSS growth (KiB)", F_REPLAY_GROWTH, 0 },
		{ "vs the program, at peak", F_PEAK_ERR, 0 },
		{ "vs the program, by time", F_TIME_ERR, 0 },
		{ "vs the program, by call", F_CURVE_ERR, 0 },
	};
	/* some call failed here that succeeded in the program: not comparable */
	int calls_failed[16];
	for (int a = 0; a < na && a < 16; a++)
		calls_failed[a] = !failed[a] && fails[a][F_RFAIL] > 0;
	/* for scripts: one CSV table, a row an allocator; a JSON array, an object each */
	if (format && !strcmp(format, "csv")) {
		report_csv_header();
		for (int a = 0; a < na; a++)
			if (!failed[a])
				report_csv_row(med[a], names[a], timer);
		return;
	}
	if (format && !strcmp(format, "json")) {
		printf("[\n");
		for (int a = 0, n = 0; a < na; a++) {
			if (failed[a])
				continue;
			if (n++)
				printf(",\n");
			report_json(med[a], names[a], timer);
		}
		printf("]\n");
		return;
	}
	int w[16];   /* a column as wide as its name or its START -> END, 22 at least */
	for (int a = 0; a < na && a < 16; a++) {
		char cell[80];
		size_t n = (size_t)snprintf(cell, sizeof cell, "%s -> %s!",
					    report_num(med[a][F_RSS_START]),
					    report_num(med[a][F_RSS_END]));
		if (n < strlen(names[a]))
			n = strlen(names[a]);
		w[a] = n > 22 ? (int)n : 22;
	}
	int samples = 0, other = 0;   /* a column has the program's figures; one not as traced */
	for (int a = 0; a < na; a++)
		if (!failed[a] && med[a][F_PROG_GROWTH] != F_NA) {
			samples = 1;
			other |= !med[a][F_FID_APPLIES];
		}
	/* on a terminal narrower than the table: the columns in groups that fit, each under the
	   labels again (piped, one table of any width) */
	int width = tool_tty_width(1);
	for (int a0 = 0, a1; a0 < na; a0 = a1) {
		int used = 26 + 1 + w[a0];
		for (a1 = a0 + 1; a1 < na && (!width || used + 1 + w[a1] <= width - 1); a1++)
			used += 1 + w[a1];
		if (a0)
			printf("\n");
		report_compare_rows(rows, sizeof rows / sizeof rows[0], a0, a1, names, med, lo, hi,
				    failed, calls_failed, w, reps, marks, samples);
	}
	/* the notes, broken at spaces to fit a terminal */
	char *text = NULL;
	size_t len = 0;
	FILE *o = open_memstream(&text, &len);
	if (!o)
		return;
	char runs[40] = "a single run each";   /* (a median of one is not one) */
	if (reps > 1)
		snprintf(runs, sizeof runs, "median of %u runs each", reps);
	fprintf(o, "(%s, in fresh processes, interleaved; %s %s; timer: %s)\n", runs,
	       failed[0] ? "no ratios: no figures for"
	       : calls_failed[0] ? "no ratios: calls failed with" : "ratios to",
	       names[0], timer);
	for (int a = 0; a < na; a++)
		if (calls_failed[a]) {
			char what[300];
			fprintf(o, "(!: with %s, %s%s: its figures are not comparable)\n", names[a],
			       report_failures(fails[a], what, sizeof what),
			       reps > 1 ? " in a run at least" : "");
		}
	fprintf(o, "(Max RSS: how much the peak resident set grew during the replay, as a single run "
	       "says it)\n");
	if (other)
		fprintf(o, "(RSS growth, in a column not on the traced allocator and settings:\n"
		       " what that allocator would have used, not how faithful the replay is)\n");
	if (marks)
		fprintf(o, "(~: the columns' runs overlap, smallest to largest: a difference within "
		       "this machine's spread)\n");
	else if (na > 1)
		fprintf(o, "(-r %d or more marks the ratios within this machine's spread "
		       "between runs)\n", SPREAD_MIN_RUNS);
	fclose(o);
	print_wrapped(stdout, text, width, 1);
	free(text);
}
