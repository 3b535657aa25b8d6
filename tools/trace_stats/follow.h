/* follow.h - trace_stats --follow (follow.c) */
#ifndef STATS_FOLLOW_H
#define STATS_FOLLOW_H

/* how long a received trace (its writer on another machine) may stay still before it is taken
   as complete */
#define FOLLOW_IDLE_MS 10000

/* Print a view of the trace at path every interval_ms while it is written, and a last one when
   its writer is done.  0, or -1 with a message printed. */
int stats_follow(const char *path, unsigned interval_ms);
#endif
