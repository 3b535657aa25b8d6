/* progmem.h - the program's own memory as a trace shows it, beside its allocator calls: the
 * anonymous memory it mapped itself (mmap, munmap, mremap, brk made by the program), the
 * allocator's own mapping calls apart, and the samples of its memory the tracer took (anonymous
 * resident, resident and virtual bytes over time).  Fed the events of order.h in global order;
 * what trace_stats reports and what trace2wl's summary says of a program whose memory bypassed
 * malloc.  Memory: the mappings alive at once, never the trace's length.
 */
#ifndef PROGMEM_H
#define PROGMEM_H
#include <stdint.h>
#include "order.h"
#include "rangemap.h"

/* One side's mappings: the program's, or the allocator's own (MTRACE_RF_OWN) */
struct progmem_maps {
	struct rangemap live;         /* what is mapped now */
	uint64_t peak, peak_t;        /* bytes mapped at the most, and when (order point) */
	uint64_t maps, unmaps, remaps, brks;   /* successful calls */
};

struct progmem {
	struct progmem_maps prog, own;
	uint64_t failed;              /* mapping calls that failed */
	/* memory samples */
	uint64_t samples;
	uint64_t first_anon, first_rss, first_t;      /* the first sample: where growth starts */
	uint64_t peak_anon, peak_anon_t, peak_rss, peak_vsz;
	uint64_t last_anon, last_t;
};

/* Is call a mapping call / an allocator call? */
static inline int progmem_is_mapping(unsigned call)
{
	return call - MTRACE_CALL_MMAP <= (unsigned)(MTRACE_CALL_LAST_MAP - MTRACE_CALL_MMAP);
}
static inline int progmem_is_api(unsigned call)
{
	return call - 1u < (unsigned)MTRACE_CALL_LAST_API;
}

/* A mapping call or memory sample (anything else is left alone).  0, or -1 out of memory. */
int progmem_event(struct progmem *p, const struct order_ev *e);
void progmem_free(struct progmem *p);
#endif
