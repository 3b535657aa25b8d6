/* replay_check.h - a workload checked before it is replayed: every stream decodes, every wait
 * can be satisfied, every slot and map id passed between streams is ordered (replay_race.h); and
 * the plan a replay takes from the check.  trace_run checks before replaying, trace_dump when it
 * shows a workload.  Its memory is mmap'd (replay_vm.h), never the allocator's under test.
 */
#ifndef REPLAY_CHECK_H
#define REPLAY_CHECK_H
#include <stddef.h>
#include <stdint.h>
#include "msg.h"
#include "wl_reader.h"

/* What validation learns that the replay needs (one pass over the workload, not three). */
struct replay_plan {
	uint64_t ideal_rss;           /* bytes: the workload's, or computed along the schedule */
	/* each thread's signal points, the counts other threads wait for (where it must publish
	   its count): points[start[t]], ... count[t] of them, sorted, then UINT64_MAX.  One
	   block, map_bytes long (mapped when large), holds start[], count[] and points[]. */
	uint64_t *start, *count, *points;
	size_t npoints;               /* length of points[], terminators and gaps included */
	size_t map_bytes;
	/* each stream's ATs, for the program's time a replay is at (replay_sample.c): stream t's
	   are at[at_start[t]] .. at[at_start[t + 1]) in stream order, each (the calls the stream
	   has completed before it, usec); kept only when the workload has the program's samples.
	   One block, at_bytes long. */
	uint64_t *at_start, (*at)[2];
	size_t at_bytes;
};

/* Decode every stream, check waits can all be satisfied (no deadlock, no cycle) and order every
   slot and map id passed between streams (replay_race.h), note each thread's signal points
   and, if the workload has no ideal RSS (dj's), compute it along the schedule found.  Also
   lowers r->h.nslots to the largest slot the streams use + 1: tables are then sized by what
   the file holds, not by what its header claims.  0; -1 with err; -2 with err: the streams
   decode, but their waits deadlock or leave a use of a slot unordered (a race). */
int replay_validate(struct wl_reader *r, struct replay_plan *plan, struct tool_err *err);
void replay_plan_free(struct replay_plan *plan);
#endif
