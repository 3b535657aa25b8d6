/* replay_loop.c - the worker threads, and the loop that replays a stream: each call timed
 * alone, its block kept in its slot and touched, waits and signal points on the way. */
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "cycles.h"
#include "replay_int.h"
#include "tool.h"
#include "varint.h"

/* Call times as distributions (lat_hist.h): each worker thread counts its calls, right after
   the timer's second read, into its own histogram (on its stack), and adds it to the replay's
   when it ends.  About 5 ns a timed call, none of it inside the timed window. */
static const uint8_t lat_class[MTRACE_WL_NCOUNTS] = { MTRACE_CALLS_API(LAT_OF_WL) };

/* ---------------------------------------------------------------------------------------------
   The replay thread
   ------------------------------------------------------------------------------------------- */

/* Touch a new block of n bytes at q as --touch says, or as much as the program had resident
   when the RESIDENT after its call (at *p, consumed) says so; in a paced replay, a block with
   a RESIDENT is filled later instead, as the program filled it (its mark for the slot's size,
   else 0).  done: bytes of it written already (a realloc's copy). */
static inline uint64_t touch(struct rthread *me, void *q, uint64_t n, const uint8_t **p,
			     uint64_t done)
{
	int told;
	struct replay_state *x = me->x;
	int large = **p == MTRACE_WL_RESIDENT;
	uint64_t k = replay_resident(p, n, x->o->touch, &told);
	me->res_told += told > 0;
	uint64_t mark = large && x->fill.on ? replay_fill_add(x, q, n, k, done, told > 0) : 0;
	if (!mark) {
		replay_touch(q, n, k, x->o->touch, x->page);
		if (told < 0)
			me->res_unknown++, me->res_unknown_bytes += n;
	}
	return mark;
}

/* The block in slot s goes (freed, or handed to realloc): a pooled one is filled first */
static inline void *release(struct rthread *me, uint64_t s)
{
	struct rslot *e = &me->x->slot[s];
	if (__builtin_expect(e->size >> FILL_SHIFT, 0))
		replay_fill_release(me->x, e->size);
	me->live -= (int64_t)slot_bytes(e->size);
	e->size = 0;
	void *q = e->p;
	e->p = NULL;
	return q;
}


/* A call that succeeded in the trace failed here: counted, and the first one noted */
static __attribute__((noinline)) void failed_here(struct rthread *me, unsigned op, uint64_t bytes)
{
	if (me->rfail++ == 0) {
		me->fail_op = op;
		me->fail_bytes = bytes;
		me->fail_call = replay_calls_done(me);
	}
}

/* Put a new block in slot s (0: not kept); *sp: the stream after its call. */
static inline void keep(struct rthread *me, uint64_t s, void *p, uint64_t bytes,
			int failed_in_trace, unsigned op, const uint8_t **sp)
{
	struct replay_state *x = me->x;
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
	me->live += (int64_t)bytes;
	x->slot[s].size = bytes | touch(me, p, bytes, sp, 0);
}

/* An allocation's slot must be empty; a dj workload may reuse an occupied one: free it first,
   outside the timed window. */
static inline void clear_slot(struct rthread *me, uint64_t s)
{
	if (s && me->x->slot[s].p) {
		me->implicit++;
		free(release(me, s));
	}
}

/* A call with only itself between the timer's two reads (timed is a constant in each copy of
   replay_loop, so an untimed replay has no trace of the timer).  It is counted first: a crash
   or a stall inside it names it (replay_calls_done), not the call before. */
#define TIMED(OP, EXPR) ({ __atomic_store_n(&me->n[OP], me->n[OP] + 1, __ATOMIC_RELAXED); \
	uint64_t t0_ = timed ? cycles_start() : 0; __typeof__(EXPR) r_ = (EXPR); \
	if (timed) { uint64_t d_ = cycles_end() - t0_; me->cyc[OP] += d_; \
		unsigned c_ = lat_class[OP]; h->b[c_][hist_bucket(d_)]++; \
		if (d_ > h->max[c_]) h->max[c_] = d_; } \
	r_; })

static inline __attribute__((always_inline)) void *replay_loop(struct rthread *me, const int timed,
							       struct hist *h)
{
	struct replay_state *x = me->x;
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
			else if (a >= __atomic_load_n(&x->at_sample_us, __ATOMIC_RELAXED))
				replay_sample_at(x, a);
			continue;
		case MTRACE_WL_MAP: case MTRACE_WL_UNMAP: case MTRACE_WL_REMAP: {
			/* the program's own */
			uint64_t len = 0;
			/* (as TIMED) */
			__atomic_store_n(&me->n[op], me->n[op] + 1, __ATOMIC_RELAXED);
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
			q = release(me, s);
			TIMED(op, (free(q), 0));
			break;
		case MTRACE_WL_REALLOC: case MTRACE_WL_REALLOCARRAY: {
			s = varint_get_fast(&p), a = varint_get_fast(&p), b = varint_get_fast(&p);
			c = op == MTRACE_WL_REALLOCARRAY ? varint_get_fast(&p) : 1;
			if (__builtin_expect(x->slot[a].size >> FILL_SHIFT, 0)) {
				/* (filled before realloc copies or moves it: the slot keeps it, now
				   an ordinary block) */
				replay_fill_release(x, x->slot[a].size);
				x->slot[a].size = slot_bytes(x->slot[a].size);
			}
			void *old = x->slot[a].p;
			uint64_t had = x->slot[a].size;
			q = op == MTRACE_WL_REALLOC ? TIMED(op, realloc(old, b))
						    : TIMED(op, reallocarray(old, b, c));
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
			release(me, a);
			/* a call that failed in the trace keeps its slot */
			uint64_t dest = failed ? a : s;
			if (dest == 0) {
				if (q)
					/* result not kept: realloc(NULL, n) of a pre-trace block */
					free(q);
			} else if (q) {
				clear_slot(me, dest);
				x->slot[dest].p = q;
				me->live += (int64_t)bytes;
				x->slot[dest].size = bytes | touch(me, q, bytes, &p, had);
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
		/* give back the workload pages already read, so they do not count as the
		   allocator's RSS: every 64 KiB (about 18 K calls) */
		if ((uintptr_t)p >= dropped && (uintptr_t)p - dropped >= (64u << 10)) {
			/* (p starts below dropped, its page rounded up: without the first test the
			   difference wraps, and a 32-bit process would zap its own tables) */
			uintptr_t upto = (uintptr_t)p & ~(uintptr_t)(x->page - 1);
			madvise((void *)dropped, upto - dropped, MADV_DONTNEED);
			dropped = upto;
		}
	}
}

/* A worker: once released, replays the next stream nobody has taken, then the next, until
   none is left.  With no more streams than REPLAY_MAX_THREADS each worker takes one: one
   thread a stream, all released together.  More streams (a program that created threads
   through its life) are taken as workers come free, in the order the threads appeared. */
static void *replay_worker(void *arg)
{
	struct replay_state *x = arg;
	struct hist h;   /* (38 KiB of stack, written before the replay's RSS is counted) */
	if (x->timed)
		memset(&h, 0, sizeof h);
	__atomic_add_fetch(&x->ready, 1, __ATOMIC_RELEASE);
	futex(&x->ready, FUTEX_WAKE_PRIVATE, 1, NULL);
	while (__atomic_load_n(&x->go, __ATOMIC_ACQUIRE) == 0)
		futex(&x->go, FUTEX_WAIT_PRIVATE, 0, NULL);
	for (;;) {
		uint32_t i = __atomic_fetch_add(&x->next, 1, __ATOMIC_ACQ_REL);
		if (i >= x->nt)
			break;
		replay_crash_me = &x->t[i];
		if (x->timed)
			replay_loop(&x->t[i], 1, &h);
		else
			replay_loop(&x->t[i], 0, NULL);
	}
	if (x->timed)
		for (unsigned c = 0; c < LAT_CLASSES; c++) {
			for (unsigned b = 0; b < HIST_BUCKETS; b++)
				if (h.b[c][b])
					__atomic_fetch_add(&x->hist->b[c][b], h.b[c][b],
							   __ATOMIC_RELAXED);
			for (uint64_t m = __atomic_load_n(&x->hist->max[c], __ATOMIC_RELAXED);
			     h.max[c] > m;)
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
int replay_add_worker(struct replay_state *x)
{
	if (__atomic_fetch_add(&x->workers, 1, __ATOMIC_ACQ_REL) >= x->nt) {
		__atomic_fetch_sub(&x->workers, 1, __ATOMIC_ACQ_REL);
		return 0;   /* as many as streams: each stream has one */
	}
	__atomic_fetch_add(&x->running, 1, __ATOMIC_ACQ_REL);
	pthread_attr_t a;
	pthread_t th;
	int ok = pthread_attr_init(&a) == 0 &&
		 pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED) == 0 &&
		 pthread_create(&th, &a, replay_worker, x) == 0;
	if (!ok) {
		char msg[160];
		int n = snprintf(msg, sizeof msg,
				 "trace_run: cannot create a replay thread (%u made): %s\n",
				 __atomic_load_n(&x->workers, __ATOMIC_RELAXED), strerror(errno));
		ssize_t w = write(2, msg, (size_t)n);
		(void)w;
		_exit(3);
	}
	pthread_attr_destroy(&a);
	return 1;
}
