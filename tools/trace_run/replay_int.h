/* replay_int.h - what the replay's files share (replay.h is trace_run's API): the replay's state,
 * all in mmap'd memory, and the waits the replay loop makes inline.
 *   replay.c         setting up a replay, releasing it, adding up its result
 *   replay_loop.c    the worker threads and the loop that replays a stream
 *   replay_wait.c    a wait that is not already satisfied; signal points
 *   replay_sample.c  the sampler thread: RSS, the program's time the replay is at, the
 *                    timeline, progress, a stalled replay
 *   replay_fill.c    a paced replay's large blocks written as the program's memory rose
 *   replay_crash.c   a crash or a stall: where the replay was
 */
#ifndef REPLAY_INT_H
#define REPLAY_INT_H
#include <linux/futex.h>
#include <limits.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "lat_hist.h"
#include "replay.h"

/* ---------------------------------------------------------------------------------------------
   Replay state, all in mmap'd memory
   ------------------------------------------------------------------------------------------- */

#define SEEN_WAYS 16   /* a power of two */

struct hist { uint64_t b[LAT_CLASSES][HIST_BUCKETS], max[LAT_CLASSES]; };

/* A signal point's futex word (done turns 1 when the thread reaches it) and how many sleep
   on it */
struct sigw { uint32_t done, sleepers; };

struct rthread {
	/* written by the owner, read by waiters: its own cache line */
	uint64_t count;               /* calls completed, published */
	char pad0[56];
	/* set up before the replay, read by waiters */
	const uint64_t *sig0;         /* the counts others wait for (signal points), sorted */
	struct sigw *sigw;            /* a word for each */
	uint64_t nsig;
	/* the owner's alone */
	struct replay_state *x;
	uint32_t idx;
	int64_t live;                 /* requested bytes allocated minus freed by this thread */
	/* last counts seen of the threads waited for, by thread number modulo SEEN_WAYS */
	struct seen { uint32_t u; uint64_t count; } seen[SEEN_WAYS];
	const uint64_t *sig;          /* the next counts to publish */
	uint64_t n[MTRACE_WL_NCOUNTS], cyc[MTRACE_WL_NCOUNTS];
	uint64_t waits, slept, implicit, failed, rfail;
	uint64_t res_told;            /* blocks touched as the program had them resident */
	uint64_t res_unknown, res_unknown_bytes;   /* large blocks written whole, the workload not
	                                 saying what of them the program had resident */
	uint64_t end_ticks;
	/* its first call that failed here only: bytes asked for, its number in the stream
	   (replay_calls_done), its opcode */
	uint64_t fail_bytes, fail_call;
	unsigned fail_op;
	uint32_t waiting;             /* 1 + the thread it sleeps waiting for, or 0 (the sampler
	                                 reads it: a replay that stalls names a stream that does
	                                 not wait) */
} __attribute__((aligned(128)));

struct replay_state {
	struct wl_reader *r;
	const struct replay_opts *o;
	struct rthread *t;
	struct rslot { void *p; uint64_t size; } *slot;   /* block and requested bytes: one
	                              line touched a call, and a thread's fresh slots (trace2wl
	                              hands them out 8 at a time) share no line with another's */
	uint32_t go;                  /* futex: threads start when it turns 1 */
	uint32_t done;                /* the sampler stops */
	uint32_t nt;                  /* streams */
	uint32_t next;                /* the next stream a worker takes */
	uint32_t workers;             /* worker threads created */
	uint32_t running;             /* futex: worker threads not yet finished */
	uint32_t ready;               /* futex: worker threads set up, waiting for `go` */
	int timed;
	struct hist *hist;            /* the workers' histograms, added up */
	struct replay_maps maps;      /* the program's own mappings (replay_prog.h) */
	struct replay_curve curve;    /* the sampler's (calls, anonymous RSS, program's time) */
	/* the program's time a replay is at (replay_sample.c): the program's samples, its end,
	   each stream's ATs (the plan's); on: the workload has times */
	struct prog_clock {
		struct prog_sample { uint64_t calls, us, anon; } *s;
		uint64_t n, end_us;
		const uint64_t *at_start, (*at)[2];
		int on;
	} clock;
	struct fill_pool {            /* blocks filled as the program filled them (replay_fill.c) */
		struct fill {
			void *p;
			uint64_t n, k, done;  /* bytes; to touch (resident); touched */
			uint64_t seq;         /* the order they came in */
			uint32_t state;
			int known;            /* the workload says k */
		} *e;
		uint64_t seq;
		uint32_t hint;                /* where to look for a free entry */
		double credit, last_anon;     /* the sampler's: bytes the program's memory rose by
		                                 and no block has taken yet; its last value */
		int on;
	} fill;
	uint64_t at_sample_us;        /* a fast replay's next sample at an AT: not before this
	                                 time of the program's (UINT64_MAX: none) */
	uint32_t sample_lock;
	uint64_t page;
	int statm;
	uint64_t t0_ns;
	uint64_t peak_live, peak_rss_kb, peak_vsz_kb, samples;
	int log_errno;   /* the first failed write to the timeline; later samples are not written */
	uint64_t progress_ns;         /* when the progress line was last written (0: never) */
	size_t progress_len;          /* columns of the widest one written */
	char progress_line[300];
};

static inline long futex(uint32_t *uaddr, int op, uint32_t val, const struct timespec *timeout)
{
	return syscall(SYS_futex, uaddr, op, val, timeout, NULL, 0);
}

/* bytes of zeroed memory outside the allocator under test, counted in *total; NULL if none */
void *replay_map_zero(size_t bytes, uint64_t *total);
/* The pages of a table the replay writes as it goes, made resident before it starts: their
   growth would be counted as the allocator's (a futex word a signal point: 8 MB over a
   replay of redis's 1.8 million waits) */
static inline void replay_prefault(void *p, size_t bytes, size_t page)
{
	for (size_t i = 0; p && i < bytes; i += page)
		((volatile char *)p)[i] = 0;
}

/* ---------------------------------------------------------------------------------------------
   Threads and waits (replay_loop.c, replay_wait.c)
   ------------------------------------------------------------------------------------------- */

/* Start one more worker thread: 1, or 0 if there are as many as streams (exits 3 if it
   cannot). */
int replay_add_worker(struct replay_state *x);
/* Each thread's signal points (the plan's) and a futex word for each.  0, or -1. */
int replay_signal_points(const struct replay_plan *p, struct rthread *t, uint32_t nt,
			 uint64_t *harness);
/* wait_for's slow half: spin, then sleep on u's signal point k */
void replay_wait_slow(struct rthread *me, uint32_t u, uint64_t k);

/* Tell waiters this thread has reached signal point count, and wake those asleep on it.  That
   costs as much as a small malloc, so it is done only at the counts some thread waits for
   (replay_signal_points). */
static inline void publish(struct rthread *me, uint64_t count)
{
	__atomic_store_n(&me->count, count, __ATOMIC_RELEASE);
	struct sigw *w = &me->sigw[me->sig - me->sig0];   /* this signal point's word */
	__atomic_store_n(&w->done, 1, __ATOMIC_SEQ_CST);
	if (__builtin_expect(__atomic_load_n(&w->sleepers, __ATOMIC_SEQ_CST) != 0, 0))
		futex(&w->done, FUTEX_WAKE_PRIVATE, INT_MAX, NULL);
}

/* Wait until thread u has completed k calls. */
static inline void wait_for(struct rthread *me, uint32_t u, uint64_t k)
{
	me->waits++;
	const struct seen *e = &me->seen[u & (SEEN_WAYS - 1)];
	if (__builtin_expect(e->u != u || e->count < k, 0))
		replay_wait_slow(me, u, k);   /* else already known: no shared cache line touched */
}

/* ---------------------------------------------------------------------------------------------
   Where the replay is (replay_crash.c), the sampler (replay_sample.c)
   ------------------------------------------------------------------------------------------- */

extern struct replay_state *replay_crash_state;   /* set when the replay is ready to start */
extern __thread struct rthread *replay_crash_me;  /* the stream this thread replays */

/* v in decimal into b (no terminator); its length.  Async-signal-safe. */
size_t replay_fmt_u(char *b, uint64_t v);
/* Append s to the line b of cap bytes holding *k; what does not fit is cut.  Async-signal-safe. */
void replay_put(char *b, size_t cap, size_t *k, const char *s);
/* Calls stream me has completed (n[] is counted when a call returns) */
uint64_t replay_calls_done(const struct rthread *me);
/* "NAME: WHAT in stream S ..." and the trace_dump command to look with, on stderr.
   Async-signal-safe. */
void replay_say_where(const char *what, const struct rthread *me);

/* One whole line to the timeline; the first failure (a full disk) is kept in x->log_errno. */
void replay_log_line(struct replay_state *x, const char *line, size_t n);
/* A paced replay's large blocks, filled as the program filled them between its calls
   (replay_fill.c).  A block taken into the pool has its entry in its slot's size, above
   FILL_SHIFT (slot_bytes() reads the size alone). */
#define FILL_ENTRIES 4096u
#define FILL_SHIFT 48
static inline uint64_t slot_bytes(uint64_t size)
{
	return size & ((1ull << FILL_SHIFT) - 1);
}
/* The pool on a paced replay of a workload with times and --touch=resident.  0, or -1. */
int replay_fill_init(struct replay_state *x, uint64_t *harness);
/* Block p of n bytes, k of them to touch, done of them written already (a realloc's copy);
   known: the workload says k (else k is n, and the block is written only as far as the
   program's memory rose: that is all there is to go by).  Taken into the pool (its mark, for
   the slot's size), or 0: the caller touches it now. */
uint64_t replay_fill_add(struct replay_state *x, void *p, uint64_t n, uint64_t k, uint64_t done,
			 int known);
/* A pooled block about to go (its slot's size, marked): touched as far as the program had it
   resident, where the workload says, its entry given back */
void replay_fill_release(struct replay_state *x, uint64_t size);
/* The sampler's: the program's anonymous RSS at the replay's clock, bytes; pooled blocks take
   what it rose by since the last */
void replay_fill_tick(struct replay_state *x, double prog_anon);
/* After the replay's last call: blocks the program was still filling touched by its end (as
   far as the workload says they were resident) */
void replay_fill_finish(struct replay_state *x);

/* A fast replay's stream that reaches an AT (the program had been idle: the replay's state
   now stood for all that time, and a sampler may see none of it) takes a sample, at most
   AT_SAMPLES over the program's time; us: the AT's time */
#define AT_SAMPLES 1024
void replay_sample_at(struct replay_state *x, uint64_t us);
/* The program's clock of workload x->r from the plan's ATs, in harness memory.  0, or -1. */
int replay_clock_init(struct replay_state *x, const struct replay_plan *plan, uint64_t *harness);
/* Whether the replay knows the program's time it is at (a timeline's program_ms) */
static inline int replay_clock_known(const struct replay_state *x)
{
	return x->clock.on || x->o->pace > 0;
}
/* The timeline's first row: the process before the first call, at time 0 */
void replay_log_baseline(struct replay_state *x, uint64_t rss_kb, uint64_t vsz_kb,
			 uint64_t anon_kb);
/* The sampler thread: from `go` until `done` */
void *replay_sampler(void *arg);
#endif
