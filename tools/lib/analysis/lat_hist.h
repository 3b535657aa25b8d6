/* lat_hist.h - call times as distributions: a histogram of timer ticks, log-linear (exact
 * below 16, then 16 buckets a power of two, each 1/16 of it wide), so that percentiles come out
 * within 6% without keeping every call's time, and the points reported of it.
 */
#ifndef LAT_HIST_H
#define LAT_HIST_H
#include <stdint.h>
#include <stdio.h>
#include "mtrace-workload.h"
#include "msg.h"

/* Call classes whose times are kept as distributions (trace_run's replayed calls, trace_stats'
   recorded durations), and the points reported of each: the 50th, 90th, 99th and 99.9th
   percentiles and the largest.  Each allocator call's class is its line's in mtrace-trace.h's
   table (LAT_NONE there: a call whose times are not kept). */
enum { LAT_MALLOC, LAT_CALLOC, LAT_REALLOC, LAT_FREE, LAT_MEMALIGN, LAT_CLASSES,
       LAT_NONE = LAT_CLASSES };
enum { LAT_P50, LAT_P90, LAT_P99, LAT_P999, LAT_MAX, LAT_POINTS };

/* The class of an allocator call: by its trace call type, by its workload opcode (an element
   of a table indexed by opcode: { MTRACE_CALLS_API(LAT_OF_WL) }); LAT_NONE for the others */
static inline unsigned lat_class_of_call(unsigned call)
{
#define LAT_CASE_(c, v, n, wl, order, opd, lat, ...) case MTRACE_CALL_##c: return LAT_##lat;
	switch (call) {
	MTRACE_CALLS_API(LAT_CASE_)
	default: return LAT_NONE;
	}
#undef LAT_CASE_
}
#define LAT_OF_WL(c, v, n, wl, order, opd, lat, ...) [MTRACE_WL_##wl] = LAT_##lat,

#define HIST_BUCKETS ((63 - 4 + 1) * 16)

/* Of u = v + 16 (saturated), whose top bit is e (4 .. 63): the 4 bits below it, and e.  No
   branch: values below 16 land in buckets 0-15, one each. */
static inline unsigned hist_bucket(uint64_t v)
{
	uint64_t u = v + 16;
	if (u < v)
		u = UINT64_MAX;
	unsigned e = 63 - (unsigned)__builtin_clzll(u);
	return (e - 4) * 16 + (unsigned)((u >> (e - 4)) & 15);
}

static inline uint64_t hist_upper(unsigned b)   /* the largest value in bucket b */
{
	unsigned e = b / 16 + 4, sub = b % 16;
	return e == 63 && sub == 15 ? UINT64_MAX : ((uint64_t)(17 + sub) << (e - 4)) - 17;
}

/* The reported points of one class's histogram: each percentile as the upper end of the
   bucket it falls in (the smallest value at least that share of the calls took no more than),
   capped by the exact largest. */
static inline void lat_percentiles(const uint64_t *b, uint64_t max, uint64_t *out)
{
	static const double q[LAT_MAX] = { 0.50, 0.90, 0.99, 0.999 };
	uint64_t total = 0;
	for (unsigned i = 0; i < HIST_BUCKETS; i++)
		total += b[i];
	if (total == 0)
		return;
	for (unsigned k = 0; k < LAT_MAX; k++) {
		double w = q[k] * (double)total;
		uint64_t want = (uint64_t)w, seen = 0;   /* calls at or below it: ceil(q total) */
		if ((double)want < w || want == 0)
			want++;
		unsigned i = 0;
		while (i < HIST_BUCKETS - 1 && (seen += b[i]) < want)
			i++;
		uint64_t v = hist_upper(i);
		out[k] = v < max ? v : max;
	}
	out[LAT_MAX] = max;
}
/* The classes' names, as reports and files spell them */
extern const char *const lat_class_names[LAT_CLASSES];

/* The units a call's time is counted in, as files and reports name them: a cycle counter's
   cycles (x86 TSC), another counter's ticks (aarch64 CNTVCT), or nanoseconds (clock_gettime) */
#define LAT_UNIT_CYCLES "cycles"
#define LAT_UNIT_TICKS  "ticks"
#define LAT_UNIT_NS     "ns"
/* The unit's name for people, capitalised as a line's first word: "Cycles", "Ticks",
   "Nanoseconds" */
const char *lat_unit_title(const char *unit);

/* Write the histograms b (one a class) as TSV to fd: a line "# title", the header
   "class UNIT calls at_or_below" (UNIT: one of LAT_UNIT_*), then a row per non-empty bucket:
   its largest value (the exact largest, max[c], for the last), its calls, and the share of
   the class's calls at or below it (no rows when b is NULL).  What trace_plot's latency chart
   reads.  Formatted in a static buffer, written with write(2): no allocator call.  0, or -1
   with errno. */
int lat_write_tsv(int fd, const char *title, const char *unit,
		  const uint64_t (*b)[HIST_BUCKETS], const uint64_t *max);

/* What lat_write_tsv wrote, read back (trace_plot): each class's rows, by LAT_* class */
#define LAT_ROWS 1024   /* a class's rows at most (lat_write_tsv writes one a bucket: 960) */
struct lat_table {
	char name[64];                  /* what the title names: "NAME, TIMER" -> NAME */
	const char *unit;               /* what the times count: one of LAT_UNIT_* */
	size_t n[LAT_CLASSES];
	double calls[LAT_CLASSES];      /* the class's calls, its rows' sum */
	double time[LAT_CLASSES][LAT_ROWS], share[LAT_CLASSES][LAT_ROWS];
};
/* Read t from f: the header's unit one of LAT_UNIT_*, rows of a known class, numbers from 0 to
   10^18, at least one call a row, each class's times and shares rising, shares at most 1.  0,
   or -1 with err ("line N: ...").  Lines longer than 1,000 bytes are malformed. */
int lat_read_tsv(FILE *f, struct lat_table *t, struct tool_err *err);
#endif
