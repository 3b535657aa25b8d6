/* emit.h - trace_stats' output formats: what report.c says, each format writes its own way.
 *
 * Text is for people (bytes in KiB, MiB..., times in µs, ms...: units.h; some figures in
 * sentences, others in aligned tables); TSV and JSON are for scripts (every figure an exact
 * integer, under a section and a key).  report.c calls every operation for every format; an
 * operation a format has no use for does nothing there (say() in TSV and JSON, a figure the text
 * says in a sentence instead: FIG_NO_TEXT).
 */
#ifndef EMIT_H
#define EMIT_H
#include <stddef.h>
#include <stdint.h>
#include "stats.h"

/* What a figure counts: how the text shows it */
enum unit { COUNT, BYTES, NS };
#define DIFF_NOT_RECORDED UINT64_MAX   /* a --diff figure the trace does not hold */

/* figure() flags */
#define FIG_TEXT_NONZERO 1   /* the text leaves it out when 0 */
#define FIG_NO_TEXT      2   /* the text leaves it out (it says it in a sentence: say()) */

struct emitter {
	/* ---- one trace ---- */
	void (*begin)(const struct stats *s);          /* the trace's name, program, threads */
	void (*section)(const char *title);            /* text: a heading */
	/* a figure: text "  key  value", TSV "section\tkey\tvalue", JSON "section_key": value */
	void (*figure)(const char *section, const char *key, uint64_t v, enum unit u, int flags);
	void (*say)(const char *fmt, ...) __attribute__((format(printf, 1, 2)));    /* text only */
	/* text: a row of the durations table, call class name's count, average and LAT_POINTS
	   percentiles (ns); the others have them as figures */
	void (*durations)(const char *name, uint64_t n, uint64_t avg, const uint64_t *pt);
	/* a power-of-two histogram: its heading (text; what: the buckets' column, bytes: a column
	   of bytes follows the counts), then bucket k's count n and bytes b (NULL: none) */
	void (*hist_begin)(const char *title, const char *what, int bytes);
	void (*bucket)(const char *section, int k, enum unit u, uint64_t n, const uint64_t *b);
	/* the lists: the i-th (from 0) most frequent size; the i-th largest block live at the end
	   (tid its thread's, at: nanoseconds since the start, sec the same in seconds); a thread */
	void (*top_size)(size_t i, uint64_t size, uint64_t count);
	void (*largest_live)(size_t i, uint64_t size, uint32_t tid, uint64_t at, double sec);
	void (*thread)(const struct tstat *t);
	void (*end)(void);
	/* ---- two traces side by side: a figure of each (row i from 0) ---- */
	void (*diff_begin)(void);
	void (*diff_row)(size_t i, const char *key, uint64_t a, uint64_t b, enum unit u);
	void (*diff_end)(void);
};

const struct emitter *emitter_of(enum report_format f);
/* A line of the text format (printf's fmt), on a terminal broken at spaces to its width */
void text_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#endif
