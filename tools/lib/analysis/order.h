/* order.h - a trace's records in one global order, streaming; what trace2wl and trace_stats
 * stand on.
 *
 * Each thread's records arrive in its own order, which is time order; they wait in a queue per
 * thread, and a heap of threads keyed by their first event hands out the earliest.  An event
 * is handed out once the chunks read so far prove nothing earlier can still come: chunk
 * timestamps never decrease in file order, and no record precedes its chunk's (traces flagged
 * MTRACE_HF_CHUNK_BOUND; for older ones a 10 ms slack covers a chunk's first record, whose
 * clock was read before the chunk was taken).  Original dj/malloc traces are already in order.
 * Memory: the threads, and the records not yet provably in order (about a chunk per thread;
 * a 10 ms window without the flag); never the trace's length.
 *
 * realloc, reallocarray and mremap have two order points (mtrace-trace.h): the callback sees
 * such a call twice, as ORDER_RELEASE at the release point and as ORDER_RESULT at the result
 * point, the thread's next event; a failed one (nothing released) once, as ORDER_CALL.  Every
 * other record - allocator and mapping calls, memory samples - is one event at its ts.
 *
 * Events reach the callback in batches, in order: one call per batch instead of one per event.
 */
#ifndef ORDER_H
#define ORDER_H
#include <stddef.h>
#include <stdint.h>
#include "msg.h"
#include "trace_reader.h"

enum order_kind { ORDER_CALL = 0, ORDER_RELEASE = 1, ORDER_RESULT = 2 };

/* a trace with more is refused (thread indexes fit 20 bits) */
#define ORDER_MAX_THREADS (1u << 20)

struct order_ev {
	const struct mtrace_record *rec;   /* valid during the callback */
	uint64_t t;                  /* the order point */
	uint32_t thread;             /* dense thread index, in order of first appearance */
	uint32_t kind;               /* enum order_kind */
};

/* n >= 1 events in order: 0, or -1 to stop. */
typedef int (*order_fn)(void *ctx, const struct order_ev *ev, size_t n);
/* A thread seen for the first time gets index; -1 stop. */
typedef int (*order_thread_fn)(void *ctx, uint32_t index, uint32_t tid);

struct order {
	order_fn fn;
	order_thread_fn new_thread;
	void *ctx;
	uint64_t records;                           /* calls read (not chunk records) */
	uint64_t api_calls;                         /* of them, the allocator's (calls 1 to
	                                               MTRACE_CALL_LAST_API) */
	uint64_t late;                              /* handed out after later ones: repaired */
	uint64_t torn;                              /* partly written records skipped */
	const unsigned char *warm, *warm_end;       /* the input not read yet (order_warm) */
	uint32_t nthreads;
	int dj;                                     /* fed an original dj/malloc trace */
	void *merge;                                /* order.c's queues and heap */
	struct tool_err err;                        /* when a call returns -1 (the callback's own
	                                               errors are the callback's to report):
	                                               EXIT_SYSTEM memory ran out, EXIT_BADFILE
	                                               the trace is wrong */
};

int  order_begin(struct order *o, order_fn fn, order_thread_fn new_thread, void *ctx);
/* Feed one trace (several traces of one process in order). */
int  order_feed(struct order *o, struct trace_reader *r);
/* Hand out everything still pending. */
int  order_end(struct order *o);
/* After order_end: the most threads alive at once, each from its first event to its last
   (a start and an end at the same order point overlap); 0 if memory runs out. */
uint32_t order_max_live_threads(const struct order *o);
void order_free(struct order *o);

/* For a callback that keeps events past its return (trace2wl's second thread): while hold is
   on, the memory of the records handed out is not reused until given back.  order_take_held,
   from the callback, adds to the list *into (NULL: empty) that memory as freed since its last
   call: every record in it was in an event the callback has been given, this time or before;
   order_give_back, once the callback is done with those events, lets it be reused. */
void order_hold(struct order *o, int on);
void order_take_held(struct order *o, void **into);
void order_give_back(struct order *o, void *held);

/* For the callback, once an event: loads the next line of the input not yet read into the
   second-level cache.  The next feed's scan of the mapped trace then finds it there instead
   of waiting for memory, the load hidden behind the callback's work. */
static inline void order_warm(struct order *o)
{
	if (o->warm < o->warm_end) {
		__builtin_prefetch(o->warm, 0, 2);
		o->warm += 64;
	}
}
#endif
