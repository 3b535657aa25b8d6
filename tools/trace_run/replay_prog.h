/* replay_prog.h - what makes a replay's memory the program's (workload version 2): touching as
 * much of a new block or mapping as the program had resident, the program's own mappings
 * replayed (map, touch, unmap) on a table of their own, the program's pace (waiting for the
 * time of a call that came after an idle time), and the replay's memory as a curve by calls,
 * set beside the program's samples for the fidelity figures.  Everything here is the harness's
 * own memory (mmap'd), never the allocator's under test.
 */
#ifndef REPLAY_PROG_H
#define REPLAY_PROG_H
#include <stdint.h>
#include <string.h>
#include "mtrace-workload.h"
#include "varint.h"

enum { TOUCH_PAGES = 0, TOUCH_FULL = 1, TOUCH_NONE = 2, TOUCH_RESIDENT = 3 };

/* Write to n bytes at q as mode says: every byte (full), nothing (none), or one byte a page
   and the last byte (pages); resident: one byte a page of the first k bytes (of a block the
   program had k bytes of resident), the last byte too when that is all of it. */
static inline void replay_touch(void *q, uint64_t n, uint64_t k, int mode, uint64_t page)
{
	if (!q || !n || mode == TOUCH_NONE)
		return;
	if (mode == TOUCH_FULL) {
		memset(q, 0x5a, n);
		return;
	}
	volatile char *c = q;
	if (k > n || mode == TOUCH_PAGES)
		k = n;
	for (uint64_t i = 0; i < k; i += page)
		c[i] = 1;
	if (k == n)
		c[n - 1] = 1;
}

/* The bytes of a new block (or mapping) of n bytes to touch: what the RESIDENT after its call
   (at *p, consumed) says the program had resident, in TOUCH_RESIDENT mode; else all n.  *told
   is 1 when the workload said, -1 when its RESIDENT says it is not known (the block is large:
   written whole, where the program may have written a part), else 0. */
static inline uint64_t replay_resident(const uint8_t **p, uint64_t n, int mode, int *told)
{
	*told = 0;
	if (**p != MTRACE_WL_RESIDENT)
		return n;
	++*p;
	uint64_t kib1 = varint_get_fast(p);
	if (mode != TOUCH_RESIDENT)
		return n;   /* --touch says otherwise */
	*told = kib1 ? 1 : -1;
	if (!kib1)
		return n;
	uint64_t k = (kib1 - 1) * 1024;   /* (at most 2^52: no overflow) */
	return k < n ? k : n;
}

/* The program's own mappings, replayed */
struct replay_state;
struct replay_maps {
	struct rmap {
		char *p;
		uint64_t len, left;   /* left: bytes not unmapped yet */
		uint64_t fill;        /* written as the program's memory rose (replay_fill.c):
		                         its mark, else 0 */
	} *m;
	struct replay_state *fill;    /* a paced replay's, where its large blocks are so written;
	                                 else NULL */
	uint64_t n, page;
	int mode;                     /* the touch mode */
	int64_t mapped;               /* bytes mapped now (all threads: atomic) */
	int64_t peak;                 /* the most at once (the sampler's view) */
	uint64_t resident_told;       /* mappings touched as the program had them resident */
	uint64_t unknown, unknown_bytes;   /* and those written whole, the trace not saying */
};

/* A table for n map ids (none when n is 0).  0, or -1 (errno). */
int replay_maps_init(struct replay_maps *r, uint64_t n, uint64_t page, int mode, uint64_t *harness);
/* One MAP, UNMAP or REMAP; p points after its opcode, the result after its operands (and the
   RESIDENT it consumed).  A map or remap that failed here sets *failed_len to its length. */
const uint8_t *replay_map_op(struct replay_maps *r, unsigned op, const uint8_t *p,
			     uint64_t *failed_len);

/* The replay's curve as the sampler saw it: calls completed, anonymous resident bytes, the
   program's time the replay was at (usec; 0 where the workload has no times) and the calls the
   program had made by then, at most calls (pcalls: how far the replay is, in the program's
   calls).  Every other point is dropped, and half as many kept from then on, when the table is
   full. */
struct replay_curve {
	struct replay_point { uint64_t calls, anon, us, pcalls; } *pt;
	uint64_t n, cap, stride, seen;
	uint64_t anon0;               /* before the first call */
	uint64_t anon_peak;           /* the most seen (every sample, kept or not) */
};
int replay_curve_init(struct replay_curve *c, uint64_t *harness);
void replay_curve_add(struct replay_curve *c, uint64_t calls, uint64_t anon, uint64_t us,
		      uint64_t pcalls);

/* /proc/self/statm (fd, read from its start) in bytes: virtual size, resident, and anonymous
   resident (resident less shared: what an allocator's heap occupies).  0, or -1. */
int replay_statm(int fd, uint64_t page, uint64_t *vsz, uint64_t *rss, uint64_t *anon);

/* Pace: wait until usec of the program's time, at factor times its speed, have passed since
   t0_ns (CLOCK_MONOTONIC). */
void replay_pace_wait(uint64_t t0_ns, double factor, uint64_t usec);
#endif
