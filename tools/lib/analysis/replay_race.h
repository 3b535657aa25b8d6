/* replay_race.h - part of a workload's check (replay_check.c): do the waits order every slot and
 * map id that passes between streams?
 *
 * A call of stream B that uses a slot whose last call was stream A's call n is ordered only if B
 * has waited, itself or through other streams' waits, for A's count to reach n: otherwise a
 * replay may run both calls at once, and the allocator sees a block freed twice, or freed while
 * it is reallocated.  The same for map ids.  Checked along the schedule validation finds (one is
 * enough: if every use follows the one before, every interleaving the waits allow orders a
 * slot's uses alike).
 *
 * The first pass checks each use against the waits of B for A itself: trace2wl emits one for
 * every block, slot or mapping it passes (unless an earlier one implied it), and so do dj's
 * SYNC_W/SYNC_R pairs.  The uses no such wait covers are checked again, exactly, with vector
 * clocks over the streams they came from (a column each): a stream's clock says how far it has
 * waited for each column, the clock is kept at every signal point (a count some stream waits
 * for), and a WAIT takes the largest of its own and the one kept where it waits.  That costs
 * (streams + signal points) x columns x 8 bytes: columns are taken RACE_CLOCK_BYTES' worth at a
 * time (one at least), each set a run of the schedule again, at most RACE_PASSES runs; a
 * workload that would need more is refused (no known writer makes one: see above).
 */
#ifndef REPLAY_RACE_H
#define REPLAY_RACE_H
#include <stdint.h>
#include "replay_check.h"
#include "u64map.h"

/* The first pass costs a table lookup a handoff: validating 7 and 12 million calls of trace2wl's
   (9 and 5 streams) took 30% and 25% longer, 0.016 and 0.035 s.  The exact check's bound: a
   chain of 20,000 streams each ordered through a third (t_trace_run_bad) reaches it in 0.2 s,
   70 MB resident; 1,000 take one run. */
#define RACE_CLOCK_BYTES ((uint64_t)64 << 20)
#define RACE_PASSES 8

/* A use of a slot or map id by a stream that did not make its last call */
struct race_site {
	uint64_t offset, call;        /* of the using op; its number in its stream */
	uint64_t id, last;            /* the slot (or map id); its last call: call << 24 | stream */
	uint32_t stream;
	unsigned op;
	int map;                      /* id is a map id */
};

struct race {
	uint64_t *slot, *map;         /* per slot, per map id: its last call (call << 24 | stream, a
	                                 stream < 2^24, a call < 2^40); 0: none yet */
	size_t slot_cap, map_cap;     /* bytes */
	struct u64map direct;         /* stream << 24 | stream it waited for -> the most it did */
	uint8_t *src;                 /* per stream: 1 a use of what it passed needs the exact
	                                 check, 2 it has had it */
	uint64_t nsrc, done;          /* such streams; those the exact check has had as columns */
	struct race_site first;       /* the first use left to the exact check */
	/* the exact check (exact: its pass, from 1): column of each stream (-1: none), its next
	   signal point (an index into the plan's points), the clocks of the streams and of the
	   signal points, w columns each */
	int exact, failed;            /* failed: 1 race holds a use not ordered, 2 more uses to
	                                 check than it can; -1 no memory */
	struct race_site race;
	int32_t *col;
	uint64_t *next, *clock, *kept;
	uint64_t w;
	size_t col_cap, next_cap, clock_cap, kept_cap, src_cap;
	const struct replay_plan *plan;
	uint32_t nt;
};

/* Ready for the first pass over a file of size bytes.  0, or -1 (no memory, or the file is
   2 TiB or more). */
int race_init(struct race *o, uint32_t nt, uint64_t size);
void race_free(struct race *o);
/* After a pass: 0 every use is ordered; 1 the next pass of the exact check is set up (run the
   schedule again from the start); -1 with err: a race, more uses to check than it can, or no
   memory. */
int race_next(struct race *o, struct wl_reader *r, const struct replay_plan *plan,
	      struct tool_err *err);

/* Stream t, past a WAIT for stream u's count k (k > 0).  0, or -1 (no memory). */
int race_waited(struct race *o, uint32_t t, uint32_t u, uint64_t k);
/* The out-of-line halves of race_use and race_call */
int race_handoff(struct race *o, uint32_t t, uint64_t n, const struct wl_op *op, uint64_t id,
		  int map, uint64_t last);
int race_grow(struct race *o, uint64_t id, int map);
void race_keep(struct race *o, uint32_t t, uint64_t n);

/* Stream t's call n (op) uses slot or map id `id`.  0, or -1 (race->failed says why): the schedule
   stops. */
static inline int race_use(struct race *o, uint32_t t, uint64_t n, const struct wl_op *op,
			    uint64_t id, int map)
{
	size_t cap = map ? o->map_cap : o->slot_cap;
	if (__builtin_expect(id >= cap / 8, 0) && race_grow(o, id, map) < 0)
		return -1;
	uint64_t *last = (map ? o->map : o->slot) + id, was = *last;
	*last = n << 24 | t;
	if (was == 0 || (uint32_t)(was & 0xffffff) == t)
		return 0;
	return race_handoff(o, t, n, op, id, map, was);
}

/* Stream t completed its call n (after its uses) */
static inline void race_call(struct race *o, uint32_t t, uint64_t n)
{
	if (o->exact)
		race_keep(o, t, n);
}
#endif
