/* replay.c - see replay.h: the replay itself (its threads, waits, timer, sampler, crash report);
 * the check before it is in replay_check.c. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>
#include "cycles.h"
#include "lat_hist.h"
#include "replay.h"
#include "replay_prog.h"
#include "tool.h"
#include "varint.h"

int cycles_timer;

/* ---------------------------------------------------------------------------------------------
   Replay state, all in mmap'd memory
   ------------------------------------------------------------------------------------------- */

#define SEEN_WAYS 16   /* a power of two */

/* Call times as distributions (lat_hist.h): each worker thread counts its calls, right after
   the timer's second read, into its own histogram (on its stack), and adds it to the replay's
   when it ends.  About 5 ns a timed call, none of it inside the timed window. */
static const uint8_t lat_class[MTRACE_WL_NCOUNTS] = {
	[MTRACE_WL_MALLOC] = LAT_MALLOC, [MTRACE_WL_CALLOC] = LAT_CALLOC,
	[MTRACE_WL_REALLOC] = LAT_REALLOC, [MTRACE_WL_REALLOCARRAY] = LAT_REALLOC,
	[MTRACE_WL_FREE] = LAT_FREE, [MTRACE_WL_MEMALIGN] = LAT_MEMALIGN,
	[MTRACE_WL_POSIX_MEMALIGN] = LAT_MEMALIGN, [MTRACE_WL_ALIGNED_ALLOC] = LAT_MEMALIGN,
	[MTRACE_WL_VALLOC] = LAT_MEMALIGN, [MTRACE_WL_PVALLOC] = LAT_MEMALIGN,
};

struct hist { uint64_t b[LAT_CLASSES][HIST_BUCKETS], max[LAT_CLASSES]; };

/* A signal point's futex word (done turns 1 when the thread reaches it) and how many sleep
   on it */
struct sigw { uint32_t done, sleepers; };

struct rthread {
	/* written by the owner, read by waiters: its own cache line */
	uint64_t count;               /* calls completed, published */
	char pad0[56];
	/* set up before the replay, read by waiters */
	const uint64_t *sig0;         /* the counts others wait for (signal_points()), sorted */
	struct sigw *sigw;            /* a word for each */
	uint64_t nsig;
	/* the owner's alone */
	struct ctx *x;
	uint32_t idx;
	int64_t live;                 /* requested bytes allocated minus freed by this thread */
	struct seen { uint32_t u; uint64_t count; } seen[SEEN_WAYS];   /* last counts seen of
	                                 the threads waited for, by thread number modulo SEEN_WAYS */
	const uint64_t *sig;          /* the next counts to publish (signal_points()) */
	uint64_t n[MTRACE_WL_NCOUNTS], cyc[MTRACE_WL_NCOUNTS];
	uint64_t waits, slept, implicit, failed, rfail;
	uint64_t res_told;            /* blocks touched as the program had them resident */
	uint64_t end_ticks;
	uint64_t fail_bytes, fail_call;   /* its first call that failed here only: bytes asked */
	unsigned fail_op;             /* for, its number in the stream (calls_done), its opcode */
	uint32_t waiting;             /* 1 + the thread it sleeps waiting for, or 0 (the sampler
	                                 reads it: a replay that stalls names a stream that does
	                                 not wait) */
} __attribute__((aligned(128)));

struct ctx {
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
	int timed;
	struct hist *hist;            /* the workers' histograms, added up */
	struct replay_maps maps;      /* the program's own mappings (replay_prog.h) */
	struct replay_curve curve;    /* the sampler's (calls, anonymous RSS) */
	uint64_t page;
	int statm;
	uint64_t t0_ns;
	uint64_t peak_live, peak_rss_kb, peak_vsz_kb, samples;
	int log_errno;   /* the first failed write to the timeline; later samples are not written */
	uint64_t progress_ns;         /* when the progress line was last written (0: never) */
	size_t progress_len;          /* columns of the widest one written */
	char progress_line[300];
};

static long futex(uint32_t *uaddr, int op, uint32_t val, const struct timespec *timeout)
{
	return syscall(SYS_futex, uaddr, op, val, timeout, NULL, 0);
}

static void *map_zero(size_t bytes, uint64_t *total)
{
	*total += bytes;
	void *p = mmap(NULL, bytes ? bytes : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

/* ---------------------------------------------------------------------------------------------
   Waiting
   ------------------------------------------------------------------------------------------- */

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ volatile("yield");
#endif
}

static int add_worker(struct ctx *x);

static __attribute__((noinline)) void wait_slow(struct rthread *me, uint32_t u, uint64_t k)
{
	struct rthread *o = &me->x->t[u];
	struct seen *e = &me->seen[u & (SEEN_WAYS - 1)];
	for (int i = 0; i < 4000; i++) {
		uint64_t c = __atomic_load_n(&o->count, __ATOMIC_ACQUIRE);
		if (c >= k) {
			e->u = u, e->count = c;
			return;
		}
		cpu_relax();
	}
	me->slept++;
	__atomic_store_n(&me->waiting, u + 1, __ATOMIC_RELAXED);
	/* Sleep on the futex word of u's signal point k (every count waited for is one): u sets
	   it and wakes its sleepers when it gets there, and no one else (waking every sleeper of
	   u at each of its signal points made a thousand-thread replay crawl).  We count ourselves
	   in, then the kernel checks the word; u sets the word, then reads the count of sleepers
	   (both sequentially consistent): either u sees us, or we see the word set.  The timeout
	   is a safety net only, growing to 64 ms. */
	size_t lo = 0, hi = o->nsig;   /* lower bound of k in sig0 */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (o->sig0[mid] < k)
			lo = mid + 1;
		else
			hi = mid;
	}
	struct sigw *w = lo < o->nsig && o->sig0[lo] == k ? &o->sigw[lo] : NULL;
	if (w)
		__atomic_fetch_add(&w->sleepers, 1, __ATOMIC_SEQ_CST);
	long ns = 1000000;
	for (;;) {
		uint64_t c = __atomic_load_n(&o->count, __ATOMIC_ACQUIRE);
		if (c >= k)
			break;
		/* a stream no worker has taken yet (more streams than workers, every worker
		   waiting): workers enough to take it, or this wait would be for ever */
		for (uint32_t n = __atomic_load_n(&me->x->next, __ATOMIC_ACQUIRE); u >= n; n++)
			if (!add_worker(me->x))
				break;
		struct timespec ts = { 0, ns };
		if (w)
			futex(&w->done, FUTEX_WAIT_PRIVATE, 0, &ts);
		else
			nanosleep(&ts, NULL);   /* (not a signal point: cannot happen) */
		ns = ns < 32000000 ? ns * 2 : 64000000;
	}
	__atomic_store_n(&me->waiting, 0, __ATOMIC_RELAXED);
	e->u = u, e->count = __atomic_load_n(&o->count, __ATOMIC_ACQUIRE);
}

/* Tell waiters this thread has reached signal point count, and wake those asleep on it.  That
   costs as much as a small malloc, so it is done only at the counts some thread waits for
   (signal_points()). */
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
		wait_slow(me, u, k);   /* else already known: no shared cache line touched */
}

/* ---------------------------------------------------------------------------------------------
   The replay thread
   ------------------------------------------------------------------------------------------- */

/* Touch a new block of n bytes at q as --touch says, or as much as the program had resident
   when the RESIDENT after its call (at *p, consumed) says so */
static inline void touch(struct rthread *me, void *q, uint64_t n, const uint8_t **p)
{
	int told;
	uint64_t k = replay_resident(p, n, me->x->o->touch, &told);
	me->res_told += told;
	replay_touch(q, n, k, me->x->o->touch, me->x->page);
}

static uint64_t calls_done(const struct rthread *me);

/* A call that succeeded in the trace failed here: counted, and the first one noted */
static __attribute__((noinline)) void failed_here(struct rthread *me, unsigned op, uint64_t bytes)
{
	if (me->rfail++ == 0) {
		me->fail_op = op;
		me->fail_bytes = bytes;
		me->fail_call = calls_done(me);
	}
}

/* Put a new block in slot s (0: not kept); *sp: the stream after its call. */
static inline void keep(struct rthread *me, uint64_t s, void *p, uint64_t bytes, int failed_in_trace,
			unsigned op, const uint8_t **sp)
{
	struct ctx *x = me->x;
	if (failed_in_trace || s == 0) {
		/* the trace had no block here: give back whatever this allocator returned */
		if (p) {
			me->failed++;
			free(p);
		}
		return;
	}
	if (!p) {
		failed_here(me, op, bytes);
		return;
	}
	x->slot[s].p = p;
	x->slot[s].size = bytes;
	me->live += (int64_t)bytes;
	touch(me, p, bytes, sp);
}

/* An allocation's slot must be empty; a dj workload may reuse an occupied one: free it first,
   outside the timed window. */
static inline void clear_slot(struct rthread *me, uint64_t s)
{
	struct ctx *x = me->x;
	if (s && x->slot[s].p) {
		me->implicit++;
		me->live -= (int64_t)x->slot[s].size;
		free(x->slot[s].p);
		x->slot[s].p = NULL;
	}
}

/* A call with only itself between the timer's two reads (timed is a constant in each copy of
   replay_loop, so an untimed replay has no trace of the timer).  It is counted first: a crash
   or a stall inside it names it (calls_done), not the call before. */
#define TIMED(OP, EXPR) ({ __atomic_store_n(&me->n[OP], me->n[OP] + 1, __ATOMIC_RELAXED); \
	uint64_t t0_ = timed ? cycles_start() : 0; __typeof__(EXPR) r_ = (EXPR); \
	if (timed) { uint64_t d_ = cycles_end() - t0_; me->cyc[OP] += d_; \
		unsigned c_ = lat_class[OP]; h->b[c_][hist_bucket(d_)]++; if (d_ > h->max[c_]) h->max[c_] = d_; } \
	r_; })

static inline __attribute__((always_inline)) void *replay_loop(struct rthread *me, const int timed,
							       struct hist *h)
{
	struct ctx *x = me->x;
	const struct mtrace_wl_thread *tt = &x->r->threads[me->idx];
	const uint8_t *base = x->r->map, *p = base + tt->offset;
	uintptr_t dropped = ((uintptr_t)p + x->page - 1) & ~(uintptr_t)(x->page - 1);
	uint64_t count = 0, trim = x->o->trim_every;
	for (;;) {
		unsigned code = *p++;
		unsigned op = code & 0x7f;
		int failed = !!(code & MTRACE_WL_FAILED);
		uint64_t s, a, b, c;
		void *q;
		switch (op) {
		case MTRACE_WL_END:
			me->end_ticks = cycles_end();
			return NULL;
		case MTRACE_WL_WAIT:
			a = varint_get_fast(&p);
			b = varint_get_fast(&p);
			wait_for(me, (uint32_t)a, b);
			continue;
		case MTRACE_WL_RESIDENT:   /* after a call that kept no block: nothing to touch */
			varint_get_fast(&p);
			continue;
		case MTRACE_WL_AT:         /* the program's next call came after an idle time */
			a = varint_get_fast(&p);
			if (x->o->pace > 0)
				replay_pace_wait(x->t0_ns, x->o->pace, a);
			continue;
		case MTRACE_WL_MAP: case MTRACE_WL_UNMAP: case MTRACE_WL_REMAP: {   /* the program's own */
			uint64_t len = 0;
			__atomic_store_n(&me->n[op], me->n[op] + 1, __ATOMIC_RELAXED);   /* (as TIMED) */
			p = replay_map_op(&x->maps, op, p, &len);
			if (len)
				failed_here(me, op, len);
			break;
		}
		case MTRACE_WL_MALLOC:
			s = varint_get_fast(&p), a = varint_get_fast(&p);
			clear_slot(me, s);
			q = TIMED(op, malloc(a));
			keep(me, s, q, a, failed, op, &p);
			break;
		case MTRACE_WL_CALLOC:
			s = varint_get_fast(&p), a = varint_get_fast(&p), b = varint_get_fast(&p);
			clear_slot(me, s);
			q = TIMED(op, calloc(a, b));
			keep(me, s, q, a * b, failed, op, &p);
			break;
		case MTRACE_WL_MEMALIGN:
			s = varint_get_fast(&p), a = varint_get_fast(&p), b = varint_get_fast(&p);
			clear_slot(me, s);
			q = TIMED(op, memalign(a, b));
			keep(me, s, q, b, failed, op, &p);
			break;
		case MTRACE_WL_ALIGNED_ALLOC:
			s = varint_get_fast(&p), a = varint_get_fast(&p), b = varint_get_fast(&p);
			clear_slot(me, s);
			q = TIMED(op, aligned_alloc(a, b));
			keep(me, s, q, b, failed, op, &p);
			break;
		case MTRACE_WL_POSIX_MEMALIGN: {
			s = varint_get_fast(&p), a = varint_get_fast(&p), b = varint_get_fast(&p);
			clear_slot(me, s);
			void *out = NULL;
			int e = TIMED(op, posix_memalign(&out, a, b));
			keep(me, s, e == 0 ? out : NULL, b, failed, op, &p);
			break;
		}
		case MTRACE_WL_VALLOC:
			s = varint_get_fast(&p), a = varint_get_fast(&p);
			clear_slot(me, s);
			q = TIMED(op, valloc(a));
			keep(me, s, q, a, failed, op, &p);
			break;
		case MTRACE_WL_PVALLOC:
			s = varint_get_fast(&p), a = varint_get_fast(&p);
			clear_slot(me, s);
			q = TIMED(op, pvalloc(a));
			keep(me, s, q, a, failed, op, &p);
			break;
		case MTRACE_WL_FREE:
			s = varint_get_fast(&p);
			q = x->slot[s].p;
			x->slot[s].p = NULL;
			me->live -= (int64_t)x->slot[s].size;
			x->slot[s].size = 0;
			TIMED(op, (free(q), 0));
			break;
		case MTRACE_WL_REALLOC: case MTRACE_WL_REALLOCARRAY: {
			s = varint_get_fast(&p), a = varint_get_fast(&p), b = varint_get_fast(&p);
			c = op == MTRACE_WL_REALLOCARRAY ? varint_get_fast(&p) : 1;
			void *old = x->slot[a].p;
			q = op == MTRACE_WL_REALLOC ? TIMED(op, realloc(old, b)) : TIMED(op, reallocarray(old, b, c));
			uint64_t bytes = b * c;
			if (q == NULL && (bytes != 0 || old == NULL)) {
				/* failed here (and maybe in the trace): the old block stays */
				if (!failed)
					failed_here(me, op, bytes);
				break;
			}
			if (failed)
				me->failed++;
			/* the old block is gone (moved, or freed by realloc(p, 0)) */
			x->slot[a].p = NULL;
			me->live -= (int64_t)x->slot[a].size;
			x->slot[a].size = 0;
			uint64_t dest = failed ? a : s;   /* a call that failed in the trace keeps its slot */
			if (dest == 0) {
				if (q)
					free(q);   /* result not kept (realloc(NULL, n) of a pre-trace block) */
			} else if (q) {
				clear_slot(me, dest);
				x->slot[dest].p = q;
				x->slot[dest].size = bytes;
				me->live += (int64_t)bytes;
				touch(me, q, bytes, &p);
			}
			break;
		}
		}
		if (__builtin_expect(++count == *me->sig, 0)) {
			publish(me, count);   /* at me->sig, */
			me->sig++;            /* then the next */
		}
		if (trim && count % trim == 0)
			malloc_trim(0);
		/* give back the workload pages already read, so they do not count as the allocator's RSS */
		if ((uintptr_t)p >= dropped && (uintptr_t)p - dropped >= (64u << 10)) {   /* (about 18 K calls) */
			/* (p starts below dropped, its page rounded up: without the first test the
			   difference wraps, and a 32-bit process then zapped its own tables) */
			uintptr_t upto = (uintptr_t)p & ~(uintptr_t)(x->page - 1);
			madvise((void *)dropped, upto - dropped, MADV_DONTNEED);
			dropped = upto;
		}
	}
}

/* ---------------------------------------------------------------------------------------------
   A crash during the replay (the allocator under test, most likely): say where, remove our
   temporary files, and end by the same signal.  Only async-signal-safe calls.
   ------------------------------------------------------------------------------------------- */

static struct ctx *crash_ctx;
static __thread struct rthread *crash_me;   /* the stream this thread replays */

/* v in decimal into b (no terminator); its length.  Async-signal-safe, and the sampler's. */
static size_t fmt_u(char *b, uint64_t v)
{
	char t[24];
	size_t n = 0, i;
	do
		t[n++] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	for (i = 0; i < n; i++)
		b[i] = t[n - 1 - i];
	return n;
}

/* Append s to the line b of cap bytes holding *k; what does not fit is cut.  Async-signal-safe:
   the crash report's and the sampler's progress line's (no stdio, no allocation). */
static void put(char *b, size_t cap, size_t *k, const char *s)
{
	while (*s && *k < cap)
		b[(*k)++] = *s++;
}

/* Calls stream me has completed (n[] is counted when a call returns) */
static uint64_t calls_done(const struct rthread *me)
{
	uint64_t done = 0;
	for (unsigned i = 0; i < MTRACE_WL_NCOUNTS; i++)
		done += __atomic_load_n(&me->n[i], __ATOMIC_RELAXED);
	return done;
}

/* "NAME: WHAT in stream S (thread T), at its call C of N (most likely in the allocator under
   test)", and the trace_dump command that shows the calls before it, on stderr (me: the
   stream, or NULL).  Async-signal-safe: the crash handler's, and the sampler's when the replay
   stalls. */
static void say_where(const char *what, const struct rthread *me)
{
	char msg[400];
	size_t k = 0;
#define PUT(s) put(msg, sizeof msg - 1, &k, (s))
	PUT(tool_name);
	PUT(": ");
	PUT(what);
	if (me && crash_ctx) {
		char num[32];
		const struct mtrace_wl_thread *tt = &crash_ctx->r->threads[me->idx];
		PUT(" in stream ");
		PUT(fmt_commas(num, me->idx));
		PUT(" (thread ");
		num[fmt_u(num, tt->tid)] = 0;
		PUT(num);
		PUT("), at its call ");
		PUT(fmt_commas(num, calls_done(me)));
		PUT(" of ");
		PUT(fmt_commas(num, tt->ncalls));
	}
	PUT(" (most likely in the allocator under test)");
	PUT("\n");
#undef PUT
	ssize_t w = write(2, msg, k);
	if (me && crash_ctx) {
		/* where to look: the stream's calls up to the one in flight */
		static char hint[4600];
		char num[32];
		uint64_t done = calls_done(me);
		k = 0;
		put(hint, sizeof hint - 1, &k, tool_name);
		put(hint, sizeof hint - 1, &k, ": the calls before it: trace_dump -s ");
		num[fmt_u(num, me->idx)] = 0;
		put(hint, sizeof hint - 1, &k, num);
		put(hint, sizeof hint - 1, &k, " --from ");
		num[fmt_u(num, done > 10 ? done - 10 : 1)] = 0;
		put(hint, sizeof hint - 1, &k, num);
		put(hint, sizeof hint - 1, &k, " -n 20 ");
		put(hint, sizeof hint - 1, &k, crash_ctx->r->name ? crash_ctx->r->name : "WORKLOAD");
		put(hint, sizeof hint - 1, &k, "\n");
		w = write(2, hint, k);
	}
	(void)w;
}

static void on_crash(int sig)
{
	/* one report: a thread crashing while another reports waits for the end it brings */
	static int reporting;
	if (__atomic_exchange_n(&reporting, 1, __ATOMIC_ACQ_REL))
		for (;;)
			pause();
	static const struct { int sig; const char *name; } names[] = {
		{ SIGSEGV, "SIGSEGV, a bad memory access" }, { SIGBUS, "SIGBUS, a bad memory access" },
		{ SIGABRT, "SIGABRT, abort()" }, { SIGILL, "SIGILL" }, { SIGFPE, "SIGFPE" },
	};
	char what[100];
	size_t k = 0;
	put(what, sizeof what - 1, &k, crash_ctx ? "the replay crashed (" : "crashed before the replay began (");
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if (names[i].sig == sig)
			put(what, sizeof what - 1, &k, names[i].name);
	put(what, sizeof what - 1, &k, ")");
	what[k] = 0;
	say_where(what, crash_ctx ? crash_me : NULL);
	tool_remove_temps();
	signal(sig, SIG_DFL);
	raise(sig);
}

void replay_catch_crashes(void)
{
#ifdef __SANITIZE_ADDRESS__
	return;   /* ASan's own report of a crash (a stack trace) says more */
#endif
	static const int sigs[] = { SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGFPE };
	for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
		struct sigaction sa = { .sa_handler = on_crash };
		sigemptyset(&sa.sa_mask);
		sigaction(sigs[i], &sa, NULL);
	}
}

/* A worker: once released, replays the next stream nobody has taken, then the next, until
   none is left.  With no more streams than REPLAY_MAX_THREADS each worker takes one: one
   thread a stream, all released together.  More streams (a program that created threads
   through its life) are taken as workers come free, in the order the threads appeared. */
static void *worker(void *arg)
{
	struct ctx *x = arg;
	while (__atomic_load_n(&x->go, __ATOMIC_ACQUIRE) == 0)
		futex(&x->go, FUTEX_WAIT_PRIVATE, 0, NULL);
	struct hist h;
	if (x->timed)
		memset(&h, 0, sizeof h);
	for (;;) {
		uint32_t i = __atomic_fetch_add(&x->next, 1, __ATOMIC_ACQ_REL);
		if (i >= x->nt)
			break;
		crash_me = &x->t[i];
		if (x->timed)
			replay_loop(&x->t[i], 1, &h);
		else
			replay_loop(&x->t[i], 0, NULL);
	}
	if (x->timed)
		for (unsigned c = 0; c < LAT_CLASSES; c++) {
			for (unsigned b = 0; b < HIST_BUCKETS; b++)
				if (h.b[c][b])
					__atomic_fetch_add(&x->hist->b[c][b], h.b[c][b], __ATOMIC_RELAXED);
			for (uint64_t m = __atomic_load_n(&x->hist->max[c], __ATOMIC_RELAXED); h.max[c] > m;)
				if (__atomic_compare_exchange_n(&x->hist->max[c], &m, h.max[c], 0,
								__ATOMIC_RELAXED, __ATOMIC_RELAXED))
					break;
		}
	if (__atomic_sub_fetch(&x->running, 1, __ATOMIC_ACQ_REL) == 0)
		futex(&x->running, FUTEX_WAKE_PRIVATE, 1, NULL);
	return NULL;
}

/* Start one more worker thread (detached: the main thread waits for `running` to reach 0):
   1, or 0 if there are as many as streams.  Failing, the replay cannot go on: one error line,
   exit 3. */
static int add_worker(struct ctx *x)
{
	if (__atomic_fetch_add(&x->workers, 1, __ATOMIC_ACQ_REL) >= x->nt) {
		__atomic_fetch_sub(&x->workers, 1, __ATOMIC_ACQ_REL);
		return 0;   /* as many as streams: each stream has one */
	}
	__atomic_fetch_add(&x->running, 1, __ATOMIC_ACQ_REL);
	pthread_attr_t a;
	pthread_t th;
	int ok = pthread_attr_init(&a) == 0 && pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED) == 0 &&
		 pthread_create(&th, &a, worker, x) == 0;
	if (!ok) {
		char msg[160];
		int n = snprintf(msg, sizeof msg, "trace_run: cannot create a replay thread (%u made): %s\n",
				 __atomic_load_n(&x->workers, __ATOMIC_RELAXED), strerror(errno));
		ssize_t w = write(2, msg, (size_t)n);
		(void)w;
		_exit(3);
	}
	pthread_attr_destroy(&a);
	return 1;
}

/* ---------------------------------------------------------------------------------------------
   The sampler
   ------------------------------------------------------------------------------------------- */

/* One whole line to the timeline; the first failure (a full disk) is kept for the caller. */
static void log_line(struct ctx *x, const char *line, size_t n)
{
	while (n && !x->log_errno) {
		ssize_t w = write(x->o->log_fd, line, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			x->log_errno = w < 0 ? errno : ENOSPC;
		else
			line += w, n -= (size_t)w;
	}
}

static void sample(struct ctx *x)
{
	uint64_t vsz, rss, anon;
	if (replay_statm(x->statm, x->page, &vsz, &rss, &anon) < 0)
		return;
	uint64_t rss_kb = rss / 1024, vsz_kb = vsz / 1024;
	int64_t live = 0;
	uint64_t calls = 0;   /* completed (n[] counts the one in flight too: close enough) */
	for (uint32_t i = 0; i < x->r->h.nthreads; i++) {
		live += __atomic_load_n(&x->t[i].live, __ATOMIC_RELAXED);
		for (unsigned k = 0; k < MTRACE_WL_NCOUNTS; k++)
			calls += __atomic_load_n(&x->t[i].n[k], __ATOMIC_RELAXED);
	}
	if (live < 0)
		live = 0;
	if ((uint64_t)live > x->peak_live)
		x->peak_live = (uint64_t)live;
	if (rss_kb > x->peak_rss_kb)
		x->peak_rss_kb = rss_kb;
	if (vsz_kb > x->peak_vsz_kb)
		x->peak_vsz_kb = vsz_kb;
	x->samples++;
	replay_curve_add(&x->curve, calls, anon);
	if (x->o->log_fd >= 0) {
		char line[192];
		uint64_t ns = clock_ns() - x->t0_ns;
		size_t k = fmt_u(line, ns / 1000000);
		line[k++] = '\t';
		k += fmt_u(line + k, rss_kb);
		line[k++] = '\t';
		k += fmt_u(line + k, vsz_kb);
		line[k++] = '\t';
		k += fmt_u(line + k, (uint64_t)live / 1024);
		line[k++] = '\t';
		k += fmt_u(line + k, calls);
		line[k++] = '\t';
		k += fmt_u(line + k, anon / 1024);
		line[k++] = '\t';
		int64_t mapped = __atomic_load_n(&x->maps.mapped, __ATOMIC_RELAXED);
		k += fmt_u(line + k, mapped > 0 ? (uint64_t)mapped / 1024 : 0);
		if (x->o->pace > 0) {   /* the program's time the replay is at */
			line[k++] = '\t';
			k += fmt_u(line + k, (uint64_t)((double)ns * x->o->pace / 1e6));
		}
		line[k++] = '\n';
		log_line(x, line, k);
	}
}

/* The progress line, at most once a second: the calls the threads have made (each thread's own
   counters, read without a lock: a figure for the eye).  Written with write(2), as nothing here
   may call the allocator under test; end: clear it. */
static void progress(struct ctx *x, int end)
{
	const struct replay_opts *o = x->o;
	if (!o->progress)
		return;
	uint64_t now = clock_ns();
	if (end) {
		if (x->progress_ns)
			tool_progress_clear(&x->progress_len);
		return;
	}
	if (x->progress_ns ? now - x->progress_ns < 1000000000u
			   : o->progress == 1 && now - x->t0_ns < 1000000000u)
		return;
	x->progress_ns = now;
	uint64_t done = 0, total = x->r->h.ncalls;
	for (uint32_t i = 0; i < x->r->h.nthreads; i++)
		for (unsigned k = 0; k < MTRACE_WL_NCOUNTS; k++)
			done += __atomic_load_n(&x->t[i].n[k], __ATOMIC_RELAXED);
	if (done > total)
		total = done;
	char pct[32], detail[96], num[32];
	size_t k = fmt_u(pct, total ? done * 100 / total : 100);
	pct[k++] = '%';
	pct[k] = 0;
	k = 0;
#define PUT(s) put(detail, sizeof detail - 1, &k, (s))
	PUT(fmt_commas(num, done));
	PUT(" of ");
	PUT(fmt_commas(num, total));
	PUT(" calls");
#undef PUT
	detail[k] = 0;
	k = tool_progress_line(x->progress_line, sizeof x->progress_line,
			       o->progress_name ? o->progress_name : "replaying", pct, detail, &x->progress_len);
	ssize_t w = write(2, x->progress_line, k);
	(void)w;
}

/* A replay in which no call has completed for timeout_s seconds (an allocator that deadlocked,
   most likely) is ended as a crash is: where it stands, then exit 3.  Time is counted in the
   sampler's intervals, which a stopped process (^Z) or a loaded machine only lengthens.
   still_ms: how long no call has completed so far; *last: the calls then. */
static void check_stalled(struct ctx *x, uint64_t *still_ms, uint64_t *last)
{
	unsigned limit = x->o->timeout_s;
	*still_ms += x->o->interval_ms;
	if (!limit || (*still_ms < 1000 && *still_ms < (uint64_t)limit * 1000))
		return;   /* (the calls are added up at most once a second) */
	uint64_t done = 0;
	for (uint32_t i = 0; i < x->nt; i++)
		done += calls_done(&x->t[i]);
	if (done != *last) {
		*last = done;
		*still_ms = 0;
		return;
	}
	if (*still_ms < (uint64_t)limit * 1000)
		return;
	/* the stream to blame: the first one taken, not finished and not waiting for another */
	const struct rthread *stuck = NULL;
	uint32_t taken = __atomic_load_n(&x->next, __ATOMIC_ACQUIRE);
	for (uint32_t i = 0; i < x->nt && i < taken && !stuck; i++)
		if (!__atomic_load_n(&x->t[i].end_ticks, __ATOMIC_RELAXED) &&
		    !__atomic_load_n(&x->t[i].waiting, __ATOMIC_RELAXED))
			stuck = &x->t[i];
	char what[120], num[32];
	size_t k = 0;
	progress(x, 1);
	put(what, sizeof what - 1, &k, "the replay made no progress for ");
	num[fmt_u(num, limit)] = 0;
	put(what, sizeof what - 1, &k, num);
	put(what, sizeof what - 1, &k, " s (--timeout): no call completed");
	what[k] = 0;
	say_where(what, stuck);
	tool_remove_temps();
	_exit(EXIT_SYSTEM);
}

static void *sampler(void *arg)
{
	struct ctx *x = arg;
	struct timespec iv = { x->o->interval_ms / 1000, (long)(x->o->interval_ms % 1000) * 1000000 };
	uint64_t still_ms = 0, last = 0;
	while (__atomic_load_n(&x->go, __ATOMIC_ACQUIRE) == 0)
		futex(&x->go, FUTEX_WAIT_PRIVATE, 0, NULL);
	while (!__atomic_load_n(&x->done, __ATOMIC_ACQUIRE)) {
		sample(x);
		progress(x, 0);
		check_stalled(x, &still_ms, &last);
		nanosleep(&iv, NULL);
	}
	sample(x);
	progress(x, 1);
	return NULL;
}

/* ---------------------------------------------------------------------------------------------
   Running
   ------------------------------------------------------------------------------------------- */

/* Each thread's signal points (the plan's) and a futex word for each. */
static int signal_points(const struct replay_plan *p, struct rthread *t, uint32_t nt, uint64_t *harness)
{
	struct sigw *words = map_zero(p->npoints * sizeof *words, harness);
	if (!words)
		return -1;
	*harness += p->map_bytes;
	for (uint32_t u = 0; u < nt; u++) {
		t[u].sig = t[u].sig0 = p->points + p->start[u];
		t[u].sigw = words + p->start[u];
		t[u].nsig = p->count[u];
	}
	return 0;
}

int replay_run(struct wl_reader *r, const struct replay_plan *plan, const struct replay_opts *o,
	       struct replay_result *res, char *err, size_t cap)
{
	memset(res, 0, sizeof *res);
	cycles_init();
	res->timer = cycles_timer;
	uint32_t nt = r->h.nthreads;
	uint64_t harness = 0;
	struct ctx *x = map_zero(sizeof *x, &harness);
	if (!x)
		goto nomem;
	x->r = r;
	x->o = o;
	x->page = (uint64_t)sysconf(_SC_PAGESIZE);
	x->t = map_zero((size_t)(nt ? nt : 1) * sizeof *x->t, &harness);
	x->hist = map_zero(sizeof *x->hist, &harness);
	x->slot = map_zero(r->h.nslots * sizeof *x->slot, &harness);
	if (!x->t || !x->hist || !x->slot || signal_points(plan, x->t, nt, &harness) < 0 ||
	    replay_maps_init(&x->maps, r->h.nmaps, x->page, o->touch, &harness) < 0 ||
	    replay_curve_init(&x->curve, &harness) < 0)
		goto nomem;
	/* The slot table's pages now, before Max RSS starts, not during the replay as slots come
	   into use: its growth is then the allocator's.  Every slot of a workload from trace2wl is
	   used (numbers are dense); one whose slots are far more than its calls gets no such help
	   (its table would cost more than the replay). */
	if (r->h.nslots <= r->h.ncalls + 1)
		for (size_t i = 0; i < r->h.nslots * sizeof *x->slot; i += x->page)
			((volatile char *)x->slot)[i] = 0;
	x->statm = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
	if (o->log_fd >= 0) {
		/* calls: completed by all threads; a paced replay's program_ms: the program's time
		   it is at (the columns after the first four came later: readers take them by name) */
		static const char head[] = "time_ms\tvmrss_kb\tvmsize_kb\tideal_kb\tcalls\tanon_kb\tmapped_kb";
		log_line(x, head, sizeof head - 1);
		log_line(x, o->pace > 0 ? "\tprogram_ms\n" : "\n", o->pace > 0 ? 12 : 1);
	}
	/* malloc_trim is glibc's even when another allocator serves malloc, and glibc sets up its
	   malloc lazily, without a lock, giving the thread that does it the main arena: two replay
	   threads trimming first at once both take it, and the second to exit trips glibc's
	   attached-threads assertion (seen under ASan).  Set it up here, in the main thread. */
	if (o->trim_every)
		malloc_trim(0);
	x->nt = nt;
	x->timed = !o->no_timing;
	for (uint32_t i = 0; i < nt; i++) {
		x->t[i].x = x;
		x->t[i].idx = i;
		/* (seen[] zeroed: "thread 0 at count 0", which is true) */
	}
	/* as many threads at once as the program had alive at once, unless told (a program whose
	   threads came and went ran 10,000 replay threads, their stacks the harness's RSS) */
	uint32_t most = o->max_threads ? o->max_threads
		      : r->h.max_live_threads && r->h.max_live_threads < REPLAY_MAX_THREADS ? r->h.max_live_threads
		      : REPLAY_MAX_THREADS;
	uint32_t first = nt < most ? nt : most;
	for (uint32_t i = 0; i < first; i++)
		add_worker(x);   /* they wait for `go` */
	crash_ctx = x;   /* a crash now says where */
	pthread_t sampler_th;
	int have_sampler = x->statm >= 0 && pthread_create(&sampler_th, NULL, sampler, x) == 0;

	/* Max RSS is to be the replay's: the workload's pages, all read by validation, go (the
	   replay reads each stream again, and gives back what it has read as it goes), and the
	   high-water mark restarts from here (Linux 4.0 on; elsewhere START keeps what came
	   before) */
	madvise((void *)r->map, r->size, MADV_DONTNEED);
	int cr = open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);
	if (cr >= 0) {
		ssize_t w = write(cr, "5", 1);
		res->hwm_reset = w == 1;
		close(cr);
	}
	struct rusage ru0, ru1;
	struct timeval tv0, tv1;
	uint64_t vsz0, rss0;
	if (x->statm >= 0 && replay_statm(x->statm, x->page, &vsz0, &rss0, &x->curve.anon0) == 0)
		replay_curve_add(&x->curve, 0, x->curve.anon0);   /* where growth starts */
	getrusage(RUSAGE_SELF, &ru0);
	gettimeofday(&tv0, NULL);
	x->t0_ns = clock_ns();
	uint64_t start = cycles_start();
	__atomic_store_n(&x->go, 1, __ATOMIC_RELEASE);
	futex(&x->go, FUTEX_WAKE_PRIVATE, INT_MAX, NULL);
	for (uint32_t n; (n = __atomic_load_n(&x->running, __ATOMIC_ACQUIRE)) != 0;)
		futex(&x->running, FUTEX_WAIT_PRIVATE, n, NULL);
	uint64_t end = start;
	for (uint32_t i = 0; i < nt; i++)
		if (x->t[i].end_ticks > end)
			end = x->t[i].end_ticks;
	gettimeofday(&tv1, NULL);
	getrusage(RUSAGE_SELF, &ru1);
	__atomic_store_n(&x->done, 1, __ATOMIC_RELEASE);
	if (have_sampler)
		pthread_join(sampler_th, NULL);

	res->cycles = end - start;
	res->wall_usec = (uint64_t)((tv1.tv_sec - tv0.tv_sec) * 1000000 + (tv1.tv_usec - tv0.tv_usec));
	res->user_usec = (uint64_t)((ru1.ru_utime.tv_sec - ru0.ru_utime.tv_sec) * 1000000 +
				    (ru1.ru_utime.tv_usec - ru0.ru_utime.tv_usec));
	res->maxrss_start_kb = ru0.ru_maxrss;
	res->maxrss_end_kb = ru1.ru_maxrss;
	res->peak_live = x->peak_live;
	res->peak_vmrss_kb = x->peak_rss_kb;
	res->peak_vmsize_kb = x->peak_vsz_kb;
	res->samples = x->samples;
	res->log_errno = x->log_errno;
	res->nthreads = nt;
	res->workers = x->workers;
	res->harness_kb = harness / 1024;
	for (uint32_t i = 0; i < nt; i++) {
		struct rthread *t = &x->t[i];
		for (unsigned k = 0; k < MTRACE_WL_NCOUNTS; k++) {
			res->n[k] += t->n[k];
			res->cyc[k] += t->cyc[k];
		}
		res->waits += t->waits;
		res->waits_slept += t->slept;
		res->implicit_frees += t->implicit;
		res->failed_replayed += t->failed;
		res->replay_failures += t->rfail;
		if (t->rfail && res->replay_failures == t->rfail) {   /* the first stream with one */
			res->fail_op = t->fail_op;
			res->fail_bytes = t->fail_bytes;
			res->fail_stream = i;
			res->fail_call = t->fail_call;
		}
		res->resident_told += t->res_told;
	}
	res->resident_told += x->maps.resident_told;
	res->mapped_peak = x->maps.peak > 0 ? (uint64_t)x->maps.peak : 0;
	res->curve = &x->curve;
	if (x->timed) {
		for (unsigned c = 0; c < LAT_CLASSES; c++)
			lat_percentiles(x->hist->b[c], x->hist->max[c], res->lat[c]);
		res->hist = (const uint64_t (*)[HIST_BUCKETS])x->hist->b;
		res->hist_max = x->hist->max;
	}
	if (x->statm >= 0)
		close(x->statm);
	return 0;   /* tables are left mapped: the process ends after reporting */
nomem:
	snprintf(err, cap, "cannot map the harness's tables (%llu slots, %u threads): %s",
		 (unsigned long long)r->h.nslots, nt, strerror(errno));
	return -1;
}
