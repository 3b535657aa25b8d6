/* convert.h - turning traces into a workload: trace2wl's core, shared with its fuzz harness.
 *
 * The records come in one global order from order.h; memory is bounded by live blocks, threads
 * and its window, never by the trace's length.
 */
#ifndef CONVERT_H
#define CONVERT_H
#include <stdint.h>
#include "msg.h"
#include "trace_reader.h"
#include "wl_writer.h"

struct convert_stats {
	uint64_t records;                       /* calls read (chunk records not counted) */
	uint64_t calls[MTRACE_CALL_LAST_MAP + 1];   /* by trace call type (mapping calls too) */
	uint64_t samples;                       /* memory samples read */
	uint64_t threads, waits, slots, ops;
	uint64_t ideal_rss, ideal_rss_call;
	uint64_t failed;                        /* failed calls, kept with MTRACE_WL_FAILED */
	uint64_t free_null, realloc_null, realloc_zero;
	uint64_t skipped_free;                  /* free of a block not live:
	                                           before tracing or twice */
	uint64_t realloc_unknown;               /* realloc of a block not live:
	                                           replayed from NULL */
	uint64_t repaired_live;                 /* allocation of an address still live:
	                                           old one dropped */
	uint64_t late;                          /* records older than the window: processed late */
	uint64_t stalls;                        /* chunks taken at the clock value of the chunk
	                                           before (trace_clock_stalled) */
	uint64_t torn;                          /* partly written records skipped (killed writer) */
	/* version 2 */
	uint64_t resident_marks;                /* RESIDENTs written (large blocks and mappings) */
	uint64_t resident_known;                /* of blocks, ones whose release said
	                                           what was resident, or their LIVE record */
	uint64_t resident_live;                 /* of those, the ones still live at the end */
	uint64_t pace_marks;                    /* ATs written */
	uint64_t nmaps;                         /* map ids */
	uint64_t prog_maps, prog_unmaps, prog_remaps, prog_brks;   /* the program's own calls */
	uint64_t mapped_peak;                   /* bytes the program mapped itself, at the most */
	uint64_t own_peak, own_maps;            /* the allocator's own mappings (not replayed) */
	uint64_t anon_first, anon_peak;         /* the samples' anonymous resident bytes */
	uint64_t duration_us;                   /* the trace's start to its last record */
};

struct convert {
	struct wl_writer *w;
	struct convert_stats st;
	uint32_t pace_us;                       /* idle times an AT marks (1,000 unless set after
	                                           convert_begin); 0: none */
	void *state;                            /* private: convert_int.h */
	struct tool_err err;                    /* EXIT_SYSTEM: the system's failing (memory,
	                                           writing the output); EXIT_BADFILE: the trace's */
};

int  convert_begin(struct convert *c, struct wl_writer *w);
/* Feed one trace (several traces of one process are fed in order); progress, if wanted, is the
   reader's (r->progress). */
int  convert_feed(struct convert *c, struct trace_reader *r);
/* Flush everything, fill the header (pid/program from the last trace fed) and finish writing. */
int  convert_end(struct convert *c, struct mtrace_wl_header *h);
void convert_free(struct convert *c);

#endif
