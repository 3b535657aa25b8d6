/* order.c - see order.h */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "order.h"
#include "u64map.h"

#define PENDING_MAX   (4u << 20)    /* pending events before the window is forced shut */
#define SEG_RECORDS   127           /* records a segment holds: with its header, 8 KiB */
#define BATCH         256           /* events handed to the callback at once */
#define MERGE_AHEAD   4             /* records ahead a run asks for: each step waits on the
                                       load of its queue's next record otherwise */

/* A thread's pending records are kept, in arrival (= program) order, which is time order, in
   a list of segments: fixed blocks recycled through a free list, so a record is copied once,
   from the reader's buffer, and never moves while it waits. */
struct seg {
	struct seg *next;
	uint32_t n, pos;              /* records held; the next to hand out */
	uint64_t pad[6];              /* records start on a cache line */
	struct mtrace_record r[SEG_RECORDS];
};

struct queue {
	struct order_ev ev;           /* the first pending event (ev.rec NULL: none, and the
	                                 thread is not in the heap) */
	struct seg *head, *tail;
	uint64_t first_t, last_t;     /* order points of its first event and of the last handed
	                                 out when its queue ran dry (at the end: its last) */
};

/* A heap entry: a thread with pending events, keyed by its first event's order point; ties
   (different threads, same clock tick) go to the lower thread index */
struct hkey {
	uint64_t t;
	uint32_t thread, pad;
};

struct order_merge {
	struct queue *q;              /* per thread */
	struct hkey *heap;
	uint32_t nheap, cap_threads;
	uint64_t pending, watermark, last_t;
	struct seg *free_segs;
	struct seg *held;             /* freed while hold is set: not reused till given back */
	int hold;
	struct u64map tids;           /* tid -> feed << 32 | (thread index + 1): the trace (of
	                                 several split ones) its last first-chunk was met in */
	uint32_t feed;                /* traces fed so far */
	uint32_t last_tid;            /* the thread of the previous record, which is most often */
	uint32_t last_idx;            /* the thread of this one too (a chunk is one thread's) */
	uint32_t nbatch;
	struct order_ev batch[BATCH]; /* handed out, not yet given to the callback; their records
	                                 stay put until the next feed (freed segments are only
	                                 reused by queue_append) */
};

static int oom(struct order *o)
{
	return tool_fail(&o->err, EXIT_SYSTEM, "out of memory");
}

/* ---------------------------------------------------------------------------------------------
   The queues
   ------------------------------------------------------------------------------------------- */

/* the calls with two order points (mtrace-trace.h): realloc, reallocarray and mremap */
static inline int is_realloc(unsigned call)
{
	return mtrace_call_order_is(call, MTRACE_ORDER_BOTH);
}

/* a record that is one event: anything but a realloc that released its block (a failed
   realloc released nothing) */
static inline int is_plain(const struct mtrace_record *r)
{
	return !is_realloc(r->call) || (r->flags & MTRACE_RF_FAILED);
}

/* rec becomes the first pending event of q: a realloc that released its block at its release
   point, anything else at its one point */
static inline void set_first(struct queue *q, const struct mtrace_record *rec)
{
	q->ev.rec = rec;
	q->ev.t = rec->ts;
	q->ev.kind = is_plain(rec) ? ORDER_CALL : ORDER_RELEASE;
}

static struct seg *new_seg(struct order_merge *m)
{
	struct seg *s = m->free_segs;
	if (s)
		m->free_segs = s->next;
	else if ((s = malloc(sizeof *s)) == NULL)
		return NULL;
	s->next = NULL;
	s->n = s->pos = 0;
	return s;
}

static inline void free_seg(struct order_merge *m, struct seg *s)
{
	struct seg **list = m->hold ? &m->held : &m->free_segs;
	s->next = *list;
	*list = s;
}

/* Drop q's first record; the next one (if any) becomes its first event. */
static inline void advance(struct order_merge *m, struct queue *q)
{
	struct seg *s = q->head;
	m->pending--;
	if (++s->pos == s->n) {
		q->head = s->next;
		if (s == q->tail)
			q->tail = NULL;
		free_seg(m, s);
		if ((s = q->head) == NULL) {
			q->last_t = q->ev.t;   /* the event just handed out */
			q->ev.rec = NULL;
			return;
		}
	}
	set_first(q, &s->r[s->pos]);
}

/* Append n records to q, copied in runs; a queue that was empty gets its first event and
   enters the heap. */
static void heap_push(struct order_merge *m, const struct queue *q);
static int queue_append(struct order_merge *m, struct queue *q, const struct mtrace_record *rec,
			size_t n)
{
	int was_empty = q->ev.rec == NULL;
	m->pending += n;
	while (n) {
		struct seg *sg = q->tail;
		if (sg == NULL || sg->n == SEG_RECORDS) {
			struct seg *s = new_seg(m);
			if (s == NULL)
				return -1;
			if (sg)
				sg->next = s;
			else
				q->head = s;
			q->tail = sg = s;
		}
		size_t k = SEG_RECORDS - sg->n < n ? SEG_RECORDS - sg->n : n;
		memcpy(&sg->r[sg->n], rec, k * sizeof *rec);
		sg->n += (uint32_t)k;
		rec += k;
		n -= k;
	}
	if (was_empty) {
		set_first(q, &q->head->r[q->head->pos]);
		heap_push(m, q);
	}
	return 0;
}

/* ---------------------------------------------------------------------------------------------
   The heap of threads, ordered by their first event
   ------------------------------------------------------------------------------------------- */

static inline int key_less(const struct hkey *a, const struct hkey *b)
{
	return a->t != b->t ? a->t < b->t : a->thread < b->thread;
}

/* does q's first event come before the first event of the thread keyed k? */
static inline int ev_before(const struct queue *q, const struct hkey *k)
{
	return q->ev.t != k->t ? q->ev.t < k->t : q->ev.thread < k->thread;
}

static inline int q_less(const struct queue *a, const struct queue *b)
{
	return a->ev.t != b->ev.t ? a->ev.t < b->ev.t : a->ev.thread < b->ev.thread;
}

static void sift_up(struct order_merge *m, uint32_t i)
{
	struct hkey k = m->heap[i];
	while (i > 0 && key_less(&k, &m->heap[(i - 1) / 2])) {
		m->heap[i] = m->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	m->heap[i] = k;
}

static void sift_down(struct order_merge *m, uint32_t i)
{
	struct hkey k = m->heap[i];
	for (;;) {
		uint32_t l = 2 * i + 1, r = l + 1, s = i;
		const struct hkey *best = &k;
		if (l < m->nheap && key_less(&m->heap[l], best))
			s = l, best = &m->heap[l];
		if (r < m->nheap && key_less(&m->heap[r], best))
			s = r;
		if (s == i)
			break;
		m->heap[i] = m->heap[s];
		i = s;
	}
	m->heap[i] = k;
}

static uint32_t heap_pop(struct order_merge *m)
{
	uint32_t top = m->heap[0].thread;
	m->heap[0] = m->heap[--m->nheap];
	if (m->nheap)
		sift_down(m, 0);
	return top;
}

static void heap_push(struct order_merge *m, const struct queue *q)
{
	m->heap[m->nheap] = (struct hkey){ q->ev.t, q->ev.thread, 0 };
	sift_up(m, m->nheap++);
}

/* ---------------------------------------------------------------------------------------------
   Handing out
   ------------------------------------------------------------------------------------------- */

static int flush(struct order *o, struct order_merge *m)
{
	uint32_t n = m->nbatch;
	m->nbatch = 0;
	return n ? o->fn(o->ctx, m->batch, n) : 0;
}

/* Hand out q's first event (to the batch).  0 done with it, 1 it stays first (a realloc's
   release became its result), -1 error. */
static inline int hand_out(struct order *o, struct order_merge *m, struct queue *q)
{
	/* older than one handed out already: it came too late to go in its place, a repair (a
	   realloc's result is counted with its release; a mapping call the allocator made inside
	   a traced call follows that call's record in the file, its order point before the
	   call's: nothing to repair, and it is not replayed) */
	o->late += q->ev.t < m->last_t && q->ev.kind != ORDER_RESULT &&
		   !(q->ev.rec->flags & MTRACE_RF_OWN);
	if (q->ev.t > m->last_t)
		m->last_t = q->ev.t;
	m->batch[m->nbatch] = q->ev;
	if (++m->nbatch == BATCH && flush(o, m) < 0)
		return -1;
	if (q->ev.kind == ORDER_RELEASE) {
		/* same event, at its result point: its time moved on */
		uint64_t t = q->ev.t + q->ev.rec->duration;
		q->ev.kind = ORDER_RESULT;
		q->ev.t = t < q->ev.t ? UINT64_MAX : t;
		return 1;
	}
	advance(m, q);
	return 0;
}

/* The common case of drain_some and merge_two: q's first events are plain calls before lim, in
   its head segment.  Hands them out with only the batch written per event, at most max, up to
   the segment's last record (left to advance(), which moves to the next one).  Returns the
   number handed out. */
static size_t run_plain(struct order *o, struct order_merge *m, struct queue *q, uint64_t lim,
			uint64_t max)
{
	if (q->ev.kind != ORDER_CALL)
		return 0;
	struct seg *s = q->head;
	const struct mtrace_record *r = q->ev.rec, *last = &s->r[s->n - 1];
	struct order_ev *out = m->batch + m->nbatch, *start = out, *oend = m->batch + BATCH;
	if ((uint64_t)(oend - out) > max)
		oend = out + max;
	uint64_t last_t = m->last_t, late = 0;
	const uint32_t id = q->ev.thread;
	for (; out < oend && r != last && r->ts < lim && is_plain(r); r++) {
		__builtin_prefetch(r + MERGE_AHEAD);
		uint64_t t = r->ts;
		*out++ = (struct order_ev){ r, t, id, ORDER_CALL };
		late += (t < last_t) & !(r->flags & MTRACE_RF_OWN);   /* (as in hand_out) */
		last_t = t > last_t ? t : last_t;
	}
	size_t n = (size_t)(out - start);
	if (n) {
		set_first(q, r);
		s->pos = (uint32_t)(r - s->r);
		m->nbatch += (uint32_t)n;
		m->pending -= n;
		m->last_t = last_t;
		o->late += late;
	}
	return n;
}

/* Part of merge_two, its common case: the first thread's plain calls up to the other's first
   event, a run at a time, then the other's, while they come before lim.  Threads that call the
   allocator in bursts make long runs (mbench's 2 threads: 90% of the events in runs of 64 or
   more), each event then a store and a compare.  Returns the number handed out; the batch may
   be full. */
static size_t merge_runs(struct order *o, struct order_merge *m, struct queue *a, struct queue *b,
			 uint64_t lim)
{
	size_t total = 0;
	while (m->nbatch < BATCH) {
		if (q_less(b, a)) {
			struct queue *x = a;
			a = b;
			b = x;
		}
		/* a's events before b's first: a tie goes to the lower thread index (key_less) */
		uint64_t until = b->ev.t + (a->ev.thread < b->ev.thread);
		if (until == 0)
			until = UINT64_MAX;   /* (b's at UINT64_MAX, a's index lower: wrapped) */
		size_t k = run_plain(o, m, a, until < lim ? until : lim, UINT64_MAX);
		if (k == 0)
			break;
		total += k;
	}
	return total;
}

/* Part of drain(): the two earliest threads, out of the heap, merged two-way until either
   runs dry or the earliest of both passes upto or the third thread; the heap is touched a few
   times a merge instead of once an event. */
static int merge_two(struct order *o, struct order_merge *m, uint64_t upto)
{
	struct queue *a = &m->q[heap_pop(m)], *b = &m->q[heap_pop(m)];
	const struct hkey *third = m->nheap ? &m->heap[0] : NULL;
	uint64_t lim = third && third->t < upto ? third->t : upto;   /* below it, no need to ask */
	for (;;) {
		if (merge_runs(o, m, a, b, lim) && m->nbatch == BATCH && flush(o, m) < 0)
			return -1;
		if (q_less(b, a)) {   /* b is first now */
			struct queue *t = a;
			a = b;
			b = t;
		}
		if (a->ev.t >= lim && (a->ev.t > upto || (third && !ev_before(a, third))))
			break;
		if (hand_out(o, m, a) < 0)
			return -1;
		if (a->ev.rec == NULL) {
			heap_push(m, b);
			return 0;
		}
	}
	heap_push(m, a);
	heap_push(m, b);
	return 0;
}

/* Hand out events while the first is not after upto, at most max of them. */
static int drain_some(struct order *o, struct order_merge *m, uint64_t upto, uint64_t max)
{
	while (m->nheap && m->heap[0].t <= upto && max) {
		if (m->nheap >= 2 && max == UINT64_MAX) {
			if (merge_two(o, m, upto) < 0)
				return -1;
			continue;
		}
		/* one thread at the top: a run of its events while they precede every other's */
		uint32_t x = m->heap[0].thread;
		struct queue *q = &m->q[x];
		/* the earliest other thread: a child of the root */
		const struct hkey *rival = NULL;
		if (m->nheap > 1) {
			rival = &m->heap[1];
			if (m->nheap > 2 && key_less(&m->heap[2], rival))
				rival = &m->heap[2];
		}
		/* below lim, an event comes before the rival's and is not after upto */
		uint64_t lim = rival && rival->t <= upto ? rival->t
			       : upto == UINT64_MAX ? UINT64_MAX : upto + 1;
		for (;;) {
			size_t k = run_plain(o, m, q, lim, max);
			if (k) {
				max -= k;
				if (m->nbatch == BATCH && flush(o, m) < 0)
					return -1;
				/* (q is not empty: the run left its segment's last record) */
				if (!max || q->ev.t > upto || (rival && !ev_before(q, rival)))
					break;
			}
			if (hand_out(o, m, q) < 0)
				return -1;
			max--;
			if (q->ev.rec == NULL || q->ev.t > upto || !max ||
			    (rival && !ev_before(q, rival)))
				break;
		}
		if (q->ev.rec == NULL)
			m->heap[0] = m->heap[--m->nheap];
		else
			m->heap[0] = (struct hkey){ q->ev.t, x, 0 };
		if (m->nheap)
			sift_down(m, 0);
	}
	return 0;
}

/* The same, and the callback has seen them all. */
static int drain(struct order *o, struct order_merge *m, uint64_t upto, uint64_t max)
{
	if (drain_some(o, m, upto, max) < 0)
		return -1;
	return flush(o, m);
}

/* ---------------------------------------------------------------------------------------------
   Feeding
   ------------------------------------------------------------------------------------------- */

static int64_t thread_of(struct order *o, struct order_merge *m, uint32_t tid, uint64_t first_t)
{
	uint64_t *i = u64map_get(&m->tids, tid);
	if (i && (uint32_t)*i)
		return (int64_t)((uint32_t)*i - 1);
	if (o->nthreads >= ORDER_MAX_THREADS) {
		return tool_fail(&o->err, EXIT_BADFILE, "more than %u threads: not a sane trace",
				 ORDER_MAX_THREADS);
	}
	if (o->nthreads == m->cap_threads) {
		uint32_t cap = m->cap_threads ? m->cap_threads * 2 : 64;
		struct queue *q = realloc(m->q, cap * sizeof *q);
		if (q)
			m->q = q;
		struct hkey *h = realloc(m->heap, cap * sizeof *h);
		if (h)
			m->heap = h;
		if (!q || !h)
			return oom(o);
		m->cap_threads = cap;
	}
	uint32_t idx = o->nthreads;
	memset(&m->q[idx], 0, sizeof m->q[idx]);
	m->q[idx].ev.thread = idx;
	m->q[idx].first_t = m->q[idx].last_t = first_t;
	if (u64map_put(&m->tids, tid, (uint64_t)m->feed << 32 | (idx + 1)) < 0)
		return oom(o);
	if (o->new_thread && o->new_thread(o->ctx, idx, tid) < 0)
		return -1;
	o->nthreads++;
	return idx;
}

/* A chunk that follows no earlier chunk of its thread in this trace.  A thread met in an
   earlier trace (split files of one process) goes on.  A thread met in this one already has
   ended, and the kernel has given its id to a new thread (ids are reused once pid_max is
   reached: 32,768 by default): that one gets a stream of its own, so that it is not counted
   alive all the time between the two. */
static void new_chunk_chain(struct order_merge *m, uint32_t tid)
{
	uint64_t *v = u64map_get(&m->tids, tid);
	if (!v || !(uint32_t)*v)
		return;
	if (*v >> 32 == m->feed)
		*v = (uint64_t)m->feed << 32;   /* index 0: the next record makes a new thread */
	else
		*v = (uint64_t)m->feed << 32 | (uint32_t)*v;
	if (m->last_tid == tid)
		m->last_tid = ~tid;   /* (matches no record: the next one looks its thread up) */
}

int order_begin(struct order *o, order_fn fn, order_thread_fn new_thread, void *ctx)
{
	memset(o, 0, sizeof *o);
	o->fn = fn;
	o->new_thread = new_thread;
	o->ctx = ctx;
	o->merge = calloc(1, sizeof(struct order_merge));
	return o->merge ? 0 : oom(o);
}

int order_feed(struct order *o, struct trace_reader *r)
{
	struct order_merge *m = o->merge;
	/* how far a record may precede its chunk's ts: not at all when the writer reserves before
	   reading the clock (MTRACE_HF_CHUNK_BOUND); otherwise the first record of a chunk may, by
	   one call and the chunk hand-out (which may wait behind another thread's fallocate): 10 ms
	   of this clock.  Anything later is still handed out, and counted as late.  (1 ms saw 2
	   late records in 10 M.) */
	uint64_t slack = (r->hdr.flags & MTRACE_HF_CHUNK_BOUND) ? 0 : r->hdr.ticks_per_sec / 100;
	if (r->format == TRACE_FMT_DJ)
		o->dj = 1;
	m->feed++;
	const struct mtrace_record *run;
	size_t n;
	int k;
	while ((k = trace_next_run(r, &run, &n)) > 0) {
		if (run->call == MTRACE_CALL_CHUNK) {
			if (run->ptr == 0)   /* a thread's first chunk in this trace */
				new_chunk_chain(m, run->tid);
			uint64_t wm = run->ts > slack ? run->ts - slack : 0;
			if (wm > m->watermark)
				m->watermark = wm;
			/* the drain hands out about a chunk's events, while the reader's next
			   chunk waits in memory: the callback loads it, a line an event */
			trace_ahead(r, &o->warm, &o->warm_end);
			int rc = drain(o, m, m->watermark, UINT64_MAX);
			o->warm = o->warm_end = NULL;   /* (the window may go before the next) */
			if (rc < 0)
				return -1;
			continue;
		}
		uint32_t x = m->last_idx;
		if (run->tid != m->last_tid || o->nthreads == 0) {
			int64_t i = thread_of(o, m, run->tid, run->ts);
			if (i < 0)
				return -1;
			x = m->last_idx = (uint32_t)i;
			m->last_tid = run->tid;
		}
		o->records += n;
		for (size_t i = 0; i < n; i++)
			o->api_calls += mtrace_call_is_api(run[i].call);
		if (queue_append(m, &m->q[x], run, n) < 0)
			return oom(o);
		if (r->format == TRACE_FMT_DJ) {
			if (drain(o, m, run->ts, UINT64_MAX) < 0)   /* already in global order */
				return -1;
		} else {
			/* a trace whose chunk clock does not advance: shut the window rather
			   than grow */
			while (m->pending > PENDING_MAX)
				if (drain(o, m, UINT64_MAX, 1) < 0)
					return -1;
		}
	}
	o->torn += r->n_torn;
	if (k < 0)
		return tool_fail(&o->err, EXIT_BADFILE, "%s", r->err.msg);
	return 0;
}

int order_end(struct order *o)
{
	return drain(o, o->merge, UINT64_MAX, UINT64_MAX);
}

static int cmp_edge(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;   /* (time, 0 start or 1 end) */
	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return x[1] < y[1] ? -1 : x[1] > y[1];   /* a start before an end at the same time (a
	                                            thread of one event is alive at it) */
}

void order_hold(struct order *o, int on)
{
	struct order_merge *m = o->merge;
	m->hold = on;
}

void order_take_held(struct order *o, void **into)
{
	struct order_merge *m = o->merge;
	struct seg *h = m->held;
	if (!h)
		return;
	while (h->next)
		h = h->next;
	h->next = *into;
	*into = m->held;
	m->held = NULL;
}

void order_give_back(struct order *o, void *held)
{
	struct order_merge *m = o->merge;
	for (struct seg *s = held, *n; s; s = n) {
		n = s->next;
		s->next = m->free_segs;
		m->free_segs = s;
	}
}

uint32_t order_max_live_threads(const struct order *o)
{
	const struct order_merge *m = o->merge;
	uint64_t (*e)[2] = malloc((size_t)o->nthreads * 2 * sizeof *e + 1);
	if (!e)
		return 0;
	size_t n = 0;
	for (uint32_t i = 0; i < o->nthreads; i++) {
		e[n][0] = m->q[i].first_t, e[n++][1] = 0;
		e[n][0] = m->q[i].last_t, e[n++][1] = 1;
	}
	qsort(e, n, sizeof *e, cmp_edge);
	uint32_t live = 0, most = 0;
	for (size_t i = 0; i < n; i++) {
		live = e[i][1] ? live - 1 : live + 1;
		if (live > most)
			most = live;
	}
	free(e);
	return most;
}

void order_free(struct order *o)
{
	struct order_merge *m = o->merge;
	if (!m)
		return;
	for (uint32_t i = 0; i < o->nthreads; i++)
		for (struct seg *s = m->q[i].head, *n; s; s = n) {
			n = s->next;
			free(s);
		}
	order_give_back(o, m->held);
	for (struct seg *s = m->free_segs, *n; s; s = n) {
		n = s->next;
		free(s);
	}
	free(m->q);
	free(m->heap);
	u64map_free(&m->tids);
	free(m);
	o->merge = NULL;
}
