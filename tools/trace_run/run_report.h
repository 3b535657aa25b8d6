/* run_report.h - trace_run's figures: one replay's result as a row of numbered fields (the
 * same order whether printed, written as CSV or read back from a child run's CSV), printed in
 * the original summary layout (its first 12 lines, line for line, then ours), as CSV or JSON;
 * medians of repeated runs; the --compare table.  Numbers are grouped with commas.
 */
#ifndef RUN_REPORT_H
#define RUN_REPORT_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "replay.h"

enum { F_CYCLES, F_WALL, F_USER, F_RSS_GROWTH, F_RSS_START, F_RSS_END, F_IDEAL_KB, F_MALLOC_N,
       F_MALLOC_AVG, F_CALLOC_N, F_CALLOC_AVG, F_REALLOC_N, F_REALLOC_AVG, F_FREE_N, F_FREE_AVG,
       F_MEMALIGN_N, F_MEMALIGN_AVG, F_TOTAL, F_PEAK_RSS, F_PEAK_VSZ, F_PEAK_LIVE_KB, F_WAITS,
       F_SLEPT, F_HARNESS_KB, F_THREADS, F_IMPLICIT, F_FAILED, F_RFAIL, F_WORKERS,
       F_LAT,   /* F_LAT + LAT_POINTS * class + point: replay_result.lat[class][point] */
       /* the first call that failed here only (F_RFAIL > 0): its opcode, bytes, stream and
          number in the stream; after the percentiles, so that older scripts' columns stay */
       F_RFAIL_OP = F_LAT + LAT_CLASSES * LAT_POINTS, F_RFAIL_BYTES, F_RFAIL_STREAM, F_RFAIL_CALL,
       /* the program's memory beside the replay's (report_fidelity): F_NA where the workload
          has no samples; errors in millionths, printed as fractions */
       F_PROG_GROWTH, F_REPLAY_GROWTH, F_PEAK_ERR, F_CURVE_ERR, F_FID_APPLIES, F_MAPPED_KB,
       F_RESIDENT_TOLD, F_TIME_ERR, F_UNKNOWN_KB, NFIELDS };
#define F_NA INT64_MIN   /* a figure that does not exist: empty in CSV, null in JSON */
extern const char *const report_field_names[NFIELDS];   /* the CSV header and JSON keys */

/* The fields of replay result r, whose workload's ideal RSS is ideal bytes */
void report_fields(const struct replay_result *r, uint64_t ideal, int64_t *f);
/* v with its digits grouped by commas (one of 8 buffers used in turn) */
const char *report_num(int64_t v);
/* The timer's name as printed: the cycle counter's, or "off" for --no-timing */
const char *report_timer(int untimed);

/* The summary (dj: the first 12 lines exactly as dj/malloc's trace_run printed them) */
void report_text(FILE *out, const int64_t *f, const char *alloc, const char *timer, unsigned runs,
		 int dj);
/* What failed in a replay whose calls failed where the program's succeeded (f[F_RFAIL] > 0):
   "3 calls that succeeded in the program failed (the first: a malloc of N bytes, stream S,
   its call C)", into buf (cap bytes); buf. */
const char *report_failures(const int64_t *f, char *buf, size_t cap);
/* Field i's value as --csv or --json writes it (json: 1) */
void report_value(FILE *out, int i, int64_t v, int json);
/* Read field i at *s (as report_value wrote it, up to the next comma): 0, or -1 */
int report_parse_value(int i, char **s, int64_t *v);
/* run_fidelity.c: the fidelity fields from its figures (f: NULL none), the replay's own
   mappings and touches; the lines after the summary */
struct fidelity;
void report_fidelity_fields(const struct fidelity *fid, const struct replay_result *r, int64_t *f);
/* (paced: the replay kept the program's pace) */
void report_fidelity_text(FILE *out, const int64_t *f, const char *traced_alloc, int paced);
/* A --compare cell of a fidelity field (the errors as percentages, "-" where none): 1, or 0
   for the other fields (printed as numbers with ratios) */
int report_fidelity_cell(char *cell, size_t cap, int field, int64_t v);
void report_csv_header(void);
void report_csv_row(const int64_t *f, const char *alloc, const char *timer);
void report_json(const int64_t *f, const char *alloc, const char *timer);
/* each field's median over runs[0..n), and its smallest and largest (lo, hi: NULL or not) */
void report_medians(int64_t (*runs)[NFIELDS], unsigned n, int64_t *med, int64_t *lo, int64_t *hi);
/* The comparison of na allocators (format NULL: the table; "csv" or "json"); failed[a]: its
   replay failed, its column says so and ratios are not taken to it; fails[a]: the figures of
   its first run in which calls failed where the program's succeeded (F_RFAIL > 0), or zeros:
   its figures are then marked '!', no ratio, and a line below says what failed.  lo, hi: each
   column's smallest and largest figures over its reps runs. */
void report_compare(const char *format, const char *const *names, int na, int64_t (*med)[NFIELDS],
		    int64_t (*lo)[NFIELDS], int64_t (*hi)[NFIELDS], const int *failed,
		    int64_t (*fails)[NFIELDS], unsigned reps, const char *timer);
#endif
