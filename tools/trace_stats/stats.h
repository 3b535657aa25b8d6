/* stats.h - trace_stats: what one trace says, gathered in its global order (collect.c) and
 * reported as text, TSV or JSON (report.c).
 */
#ifndef STATS_H
#define STATS_H
#include <stdint.h>
#include "lat_hist.h"
#include "live.h"
#include "order.h"
#include "progmem.h"
#include "u64map.h"

#define NB 65                      /* power-of-two buckets: [0], [1], [2,4), ... */
#define TOP 20
#define LARGEST 10
#define MAX_SIZES (1u << 20)       /* distinct sizes counted for the top list */

/* a block live (live.h's table): its requested bytes, birth (time, call) and thread index */
struct block { uint64_t size, t, idx; uint32_t thread; };

struct tstat {
	uint32_t tid;
	uint64_t calls, allocs, frees, bytes;
	uint64_t re_old;   /* its realloc between release and result: old size + 1, 0 unknown */
};

struct stats {
	const char *name;
	struct order *ord;            /* while it is read */
	char exe[256];
	char settings[1400];          /* the allocators' settings the program ran with */
	char allocator[512];          /* and the allocator's path */
	int32_t pid;
	uint64_t tps, t0, t_last;
	int glibc;
	/* counts */
	uint64_t calls[MTRACE_CALL_LAST_API + 1], total, failed, free_null, skipped_free;
	uint64_t size_n[NB], size_b[NB], life_calls[NB], life_ns[NB];
	uint64_t peak_t;                /* when the live bytes peaked (live.peak_at: the call) */
	uint64_t requested, usable;
	uint64_t xfree;
	uint64_t re_moved, re_inplace, re_zero, re_null, re_unknown, re_grew, re_shrank;
	uint64_t mmap_n, brk_n;
	struct progmem pm;              /* the program's own mappings and memory samples */
	uint32_t hflags, resident_min, memory_ms;   /* the header's (version 2 records) */
	uint64_t res_n, res_size, res_bytes;   /* released blocks that say what was resident */
	uint64_t peak_anon_idx;         /* calls handed out at the peak sample */
	uint64_t idx;                   /* calls handed out so far: the lifetime clock in calls */
	/* state */
	struct live live;               /* address -> struct block; the ideal RSS (stamps: idx) */
	struct u64map sizes;            /* size -> count (at most MAX_SIZES sizes) */
	uint64_t sizes_dropped;
	struct tstat *th;
	uint32_t nth, capth;
	uint64_t records, late;
	uint32_t nthreads;
	/* how long calls took, where the trace says (0: nowhere, dj's; 1: realloc's, always
	   recorded; 2: every call's, a trace taken with durations): a histogram per call class
	   (lat_hist.h), in ticks */
	int durations;
	unsigned clock;                 /* the trace's, MTRACE_CLOCK_*: what durations count */
	struct durations {
		uint64_t b[LAT_CLASSES][HIST_BUCKETS], max[LAT_CLASSES], sum[LAT_CLASSES];
	} *dur;
};

/* Read the trace at path into s (zeroed first); progress: tool_progress's on.  0, or -1 with a
   message printed. */
int stats_collect(const char *path, struct stats *s, int progress);
void stats_release(struct stats *s);
/* ticks of the trace's clock in nanoseconds */
uint64_t stats_ns(const struct stats *s, uint64_t ticks);
/* A class's recorded durations in nanoseconds: calls, average, then the LAT_POINTS; 0 calls:
   none recorded */
uint64_t stats_durations(const struct stats *s, int c, uint64_t *avg, uint64_t *pt);

enum report_format { REPORT_TEXT, REPORT_TSV, REPORT_JSON };
void report_trace(const struct stats *s, enum report_format f);
/* A and B side by side (the text's first lines, naming them, are the caller's) */
void report_diff(const struct stats *a, const struct stats *b, enum report_format f);
#endif
