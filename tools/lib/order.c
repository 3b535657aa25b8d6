/* order.c - see order.h */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "order.h"
#include "u64map.h"

#define MAX_THREADS   (1u << 20)
#define PENDING_MAX   (4u << 20)    /* pending events before the window is forced shut */

/* A thread's pending events, a ring in arrival (= program) order, which is time order. */
struct queue {
	struct order_ev *e;
	size_t head, n, cap;          /* cap is a power of two */
	int in_heap;
};

/* A heap entry: a thread with pending events, keyed by a copy of its first event's order */
struct hkey {
	uint64_t t, seq;
	uint32_t kind, thread;
};

struct impl {
	struct queue *q;              /* per thread */
	struct hkey *heap;
	uint32_t nheap, cap_threads;
	uint64_t pending, seq, watermark, last_t;
	struct u64map tids;           /* tid -> thread index + 1 */
	uint32_t last_tid;            /* the thread of the previous record, which is most often */
	uint32_t last_idx;            /* the thread of this one too (a chunk is one thread's) */
};

static int oom(struct order *o)
{
	snprintf(o->err, sizeof o->err, "out of memory");
	return -1;
}

/* ---------------------------------------------------------------------------------------------
   The heap of threads, ordered by (order point, file order, kind) of their first event
   ------------------------------------------------------------------------------------------- */

static inline int key_less(const struct hkey *a, const struct hkey *b)
{
	if (a->t != b->t)
		return a->t < b->t;
	if (a->seq != b->seq)
		return a->seq < b->seq;
	return a->kind < b->kind;
}

/* does event e come before the first event of the thread keyed k? */
static inline int ev_before(const struct order_ev *e, const struct hkey *k)
{
	if (e->t != k->t)
		return e->t < k->t;
	if (e->seq != k->seq)
		return e->seq < k->seq;
	return e->kind < k->kind;
}

static void sift_up(struct impl *m, uint32_t i)
{
	struct hkey k = m->heap[i];
	while (i > 0 && key_less(&k, &m->heap[(i - 1) / 2])) {
		m->heap[i] = m->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	m->heap[i] = k;
}

static void sift_down(struct impl *m, uint32_t i)
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

static int grow_queue(struct order *o, struct queue *q)
{
	size_t cap = q->cap ? q->cap * 2 : 64;
	struct order_ev *n = malloc(cap * sizeof *n);
	if (!n)
		return oom(o);
	for (size_t i = 0; i < q->n; i++)
		n[i] = q->e[(q->head + i) & (q->cap - 1)];
	free(q->e);
	q->e = n;
	q->head = 0;
	q->cap = cap;
	return 0;
}

static int drain(struct order *o, struct impl *m, uint64_t upto, uint64_t max);

/* Hand out e, the first event of thread x's queue q.  0 done with it (dequeued), 1 it stays
   first (a realloc's release became its result), -1 error. */
static inline int hand_out(struct order *o, struct impl *m, struct queue *q, struct order_ev *e)
{
	if (e->t > m->last_t)
		m->last_t = e->t;
	int k = o->fn(o->ctx, e);
	if (k < 0)
		return -1;
	if (k == 1 && e->kind == ORDER_RELEASE) {
		/* same event, at its result point: its time moved on */
		e->kind = ORDER_RESULT;
		e->t = e->t + e->rec.duration < e->t ? UINT64_MAX : e->t + e->rec.duration;
		return 1;
	}
	q->head = (q->head + 1) & (q->cap - 1);
	q->n--;
	m->pending--;
	return 0;
}

static inline int ev_less(const struct order_ev *a, const struct order_ev *b)
{
	if (a->t != b->t)
		return a->t < b->t;
	if (a->seq != b->seq)
		return a->seq < b->seq;
	return a->kind < b->kind;
}

static struct hkey heap_pop(struct impl *m)
{
	struct hkey top = m->heap[0];
	m->heap[0] = m->heap[--m->nheap];
	if (m->nheap)
		sift_down(m, 0);
	return top;
}

static void heap_push(struct impl *m, const struct order_ev *e, uint32_t x)
{
	m->heap[m->nheap] = (struct hkey){ e->t, e->seq, e->kind, x };
	sift_up(m, m->nheap++);
}

/* Part of drain(): the two earliest threads, out of the heap, merged two-way until either
   runs dry or the earliest of both passes upto or the third thread; the heap is touched a few
   times a merge instead of once an event. */
static int merge_two(struct order *o, struct impl *m, uint64_t upto)
{
	uint32_t xa = heap_pop(m).thread, xb = heap_pop(m).thread;
	const struct hkey *third = m->nheap ? &m->heap[0] : NULL;
	uint64_t lim = third && third->t < upto ? third->t : upto;   /* below it, no need to ask */
	struct queue *a = &m->q[xa], *b = &m->q[xb];
	struct order_ev *e = &a->e[a->head], *f = &b->e[b->head];
	for (;;) {
		if (ev_less(f, e)) {   /* b is first now */
			struct queue *tq = a; a = b; b = tq;
			struct order_ev *te = e; e = f; f = te;
			uint32_t tx = xa; xa = xb; xb = tx;
		}
		if (e->t >= lim && (e->t > upto || (third && !ev_before(e, third))))
			break;
		int k = hand_out(o, m, a, e);
		if (k < 0)
			return -1;
		if (k == 0) {
			if (a->n == 0) {
				a->in_heap = 0;
				heap_push(m, f, xb);
				return 0;
			}
			e = &a->e[a->head];
		}
	}
	heap_push(m, e, xa);
	heap_push(m, f, xb);
	return 0;
}

/* Hand out events while the first is not after upto, at most max of them.  The thread at the
   top of the heap hands out a run of events, as long as they precede every other thread's
   first: the heap is touched once a run, not once an event. */
static int drain(struct order *o, struct impl *m, uint64_t upto, uint64_t max)
{
	while (m->nheap && m->heap[0].t <= upto && max) {
		if (m->nheap >= 2 && max == UINT64_MAX) {
			if (merge_two(o, m, upto) < 0)
				return -1;
			continue;
		}
		uint32_t x = m->heap[0].thread;
		struct queue *q = &m->q[x];
		const struct hkey *rival = NULL;   /* the earliest other thread: a child of the root */
		if (m->nheap > 1) {
			rival = &m->heap[1];
			if (m->nheap > 2 && key_less(&m->heap[2], rival))
				rival = &m->heap[2];
		}
		struct order_ev *e = &q->e[q->head];
		for (;;) {
			int k = hand_out(o, m, q, e);
			if (k < 0)
				return -1;
			max--;
			if (k == 0) {
				if (q->n == 0)
					break;
				e = &q->e[q->head];
			}
			if (e->t > upto || !max || (rival && !ev_before(e, rival)))
				break;
		}
		if (q->n == 0) {
			q->in_heap = 0;
			m->heap[0] = m->heap[--m->nheap];
		} else
			m->heap[0] = (struct hkey){ e->t, e->seq, e->kind, x };
		if (m->nheap)
			sift_down(m, 0);
	}
	return 0;
}

/* ---------------------------------------------------------------------------------------------
   Feeding
   ------------------------------------------------------------------------------------------- */

static int64_t thread_of(struct order *o, struct impl *m, uint32_t tid)
{
	uint64_t *i = u64map_get(&m->tids, tid);
	if (i)
		return (int64_t)(*i - 1);
	if (o->nthreads >= MAX_THREADS) {
		snprintf(o->err, sizeof o->err, "more than %u threads: not a sane trace", MAX_THREADS);
		return -1;
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
	if (u64map_put(&m->tids, tid, (uint64_t)idx + 1) < 0)
		return oom(o);
	if (o->new_thread && o->new_thread(o->ctx, idx, tid) < 0)
		return -1;
	o->nthreads++;
	return idx;
}

int order_begin(struct order *o, order_fn fn, order_thread_fn new_thread, void *ctx)
{
	memset(o, 0, sizeof *o);
	o->fn = fn;
	o->new_thread = new_thread;
	o->ctx = ctx;
	o->impl = calloc(1, sizeof(struct impl));
	return o->impl ? 0 : oom(o);
}

int order_feed(struct order *o, struct trace_reader *r, void (*progress)(uint64_t, void *), void *arg)
{
	struct impl *m = o->impl;
	/* how far a record may precede its chunk's ts: not at all when the writer reserves before
	   reading the clock (MTRACE_HF_CHUNK_BOUND); otherwise the first record of a chunk may, by
	   one call and the chunk hand-out (which may wait behind another thread's fallocate): 10 ms
	   of this clock.  Anything later is still handed out, and counted as late.  (1 ms saw 2 late
	   records in 10 M.) */
	uint64_t slack = (r->hdr.flags & MTRACE_HF_CHUNK_BOUND) ? 0 : r->hdr.ticks_per_sec / 100;
	if (r->format == TRACE_FMT_DJ)
		o->dj = 1;
	const struct mtrace_record *rec;
	int k;
	while ((k = trace_next_ref(r, &rec, NULL)) > 0) {
		if (rec->call == MTRACE_CALL_CHUNK) {
			uint64_t wm = rec->ts > slack ? rec->ts - slack : 0;
			if (wm > m->watermark)
				m->watermark = wm;
			if (drain(o, m, m->watermark, UINT64_MAX) < 0)
				return -1;
			continue;
		}
		uint32_t x = m->last_idx;
		if (rec->tid != m->last_tid || o->nthreads == 0) {
			int64_t i = thread_of(o, m, rec->tid);
			if (i < 0)
				return -1;
			x = m->last_idx = (uint32_t)i;
			m->last_tid = rec->tid;
		}
		o->records++;
		o->calls[rec->call]++;
		struct queue *q = &m->q[x];
		if (q->n == q->cap && grow_queue(o, q) < 0)
			return -1;
		struct order_ev *e = &q->e[(q->head + q->n) & (q->cap - 1)];
		e->rec = *rec;
		e->t = rec->ts;
		e->seq = m->seq++;
		e->thread = x;
		e->kind = (rec->call == MTRACE_CALL_REALLOC || rec->call == MTRACE_CALL_REALLOCARRAY) ? ORDER_RELEASE : ORDER_CALL;
		e->user = 0;
		q->n++;
		m->pending++;
		if (e->t < m->last_t)
			o->late++;   /* older than what was handed out already: handed out late, a repair */
		if (!q->in_heap) {
			q->in_heap = 1;
			m->heap[m->nheap] = (struct hkey){ e->t, e->seq, e->kind, x };
			sift_up(m, m->nheap++);
		}
		if (r->format == TRACE_FMT_DJ) {
			if (drain(o, m, rec->ts, UINT64_MAX) < 0)   /* already in global order */
				return -1;
		} else if (m->pending > PENDING_MAX) {
			/* a trace whose chunk clock does not advance: shut the window rather than grow */
			if (drain(o, m, UINT64_MAX, 1) < 0)
				return -1;
		}
		if (progress && (o->records & 0xfffff) == 0)
			progress(r->offset, arg);
	}
	o->torn += r->n_torn;
	if (k < 0) {
		snprintf(o->err, sizeof o->err, "%s", r->err);
		return -1;
	}
	return 0;
}

int order_end(struct order *o)
{
	return drain(o, o->impl, UINT64_MAX, UINT64_MAX);
}

void order_free(struct order *o)
{
	struct impl *m = o->impl;
	if (!m)
		return;
	for (uint32_t i = 0; i < o->nthreads; i++)
		free(m->q[i].e);
	free(m->q);
	free(m->heap);
	u64map_free(&m->tids);
	free(m);
	o->impl = NULL;
}
