/* trace_follow.h - a trace still being written: which of its records are final, and each
 * record once as it is committed.
 *
 * A writer fills the file a chunk at a time, each chunk by one thread in its call order, so a
 * chunk's committed records are a prefix of it and the rest (its tail) is written later or
 * never.  A chunk's tail is final when its thread took its next chunk, when the thread is gone,
 * or when the writer stopped.  The stable end is the lowest offset below which nothing can
 * change any more: a reader that stops there reads what a reader of the finished file reads.
 *
 * The writer is local when its process maps the file (/proc/PID/maps); then its threads and
 * itself are looked up in /proc.  A file received from another machine (trace_recv) is final
 * when its header says the writer stopped, or when it has not grown for a while (idle_ms).
 */
#ifndef TRACE_FOLLOW_H
#define TRACE_FOLLOW_H

#include <stdint.h>
#include "mtrace-trace.h"

struct trace_follow;

/* Called for each record once, when it is committed, in file order within each chunk: rec in
   host order (tid its chunk's), s its slots (host order: extended records' payload), off its
   offset.  Returns 0, or -1 to stop following. */
typedef int trace_follow_fn(void *arg, const struct mtrace_record *rec,
			    const struct mtrace_slot *s, uint64_t off);

/* Follow the trace open on fd (a plain file; not closed here) whose header h (host order,
   checked) was read, swap set when the writer's byte order is not ours.  NULL: no memory. */
struct trace_follow *trace_follow_new(int fd, const struct mtrace_file_header *h, int swap,
				      unsigned idle_ms);
void trace_follow_free(struct trace_follow *f);

/* Look at the file as it is now: each record committed since the last look given to each
   (NULL: counted only).  1 once the writer is done (every record is final: the last call
   gave every one), 0 if it may still write, -1 if each asked to stop or the file is not a
   trace any more (*why says what, at offset *at). */
int trace_follow_poll(struct trace_follow *f, trace_follow_fn *each, void *arg,
		      const char **why, uint64_t *at);

/* Offset below which the file will not change any more */
uint64_t trace_follow_stable(const struct trace_follow *f);
/* The header as the file holds it now (host order): its flags, stop and counts change when
   the writer stops */
const struct mtrace_file_header *trace_follow_header(const struct trace_follow *f);
/* Chunks whose tails are still open (threads that may write more), and bytes seen so far */
unsigned trace_follow_open_chunks(const struct trace_follow *f);
uint64_t trace_follow_size(const struct trace_follow *f);
#endif
