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
	int64_t pos;                  /* index in the thread heap, or -1 */
};

struct impl {
	struct queue *q;              /* per thread */
	struct hkey { uint64_t t, seq; uint32_t kind, thread; } *heap;   /* threads with pending
	                              events, keyed by a copy of their first event's order */
	uint32_t nheap, cap_threads;
	uint64_t pending, seq, watermark, last_t;
	struct u64map tids;           /* tid -> thread index + 1 */
};

static int oom(struct order *o)
{
	snprintf(o->err, sizeof o->err, "out of memory");
	return -1;
}

/* ---------------------------------------------------------------------------------------------
   The heap of threads, ordered by (order point, file order, kind) of their first event
   ------------------------------------------------------------------------------------------- */

static struct order_ev *first(struct impl *m, uint32_t x)
{
	return &m->q[x].e[m->q[x].head];
}

static int key_less(const struct hkey *a, const struct hkey *b)
{
	if (a->t != b->t)
		return a->t < b->t;
	if (a->seq != b->seq)
		return a->seq < b->seq;
	return a->kind < b->kind;
}

static void heap_set(struct impl *m, uint32_t i, const struct hkey *k)
{
	m->heap[i] = *k;
	m->q[k->thread].pos = i;
}

static void sift_up(struct impl *m, uint32_t i)
{
	struct hkey k = m->heap[i];
	while (i > 0 && key_less(&k, &m->heap[(i - 1) / 2])) {
		heap_set(m, i, &m->heap[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	heap_set(m, i, &k);
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
		heap_set(m, i, &m->heap[s]);
		i = s;
	}
	heap_set(m, i, &k);
}

/* The heap entry of thread x after its first event changed (or became a new one). */
static void rekey(struct impl *m, uint32_t x)
{
	const struct order_ev *e = first(m, x);
	struct hkey *k = &m->heap[m->q[x].pos];
	k->t = e->t;
	k->seq = e->seq;
	k->kind = e->kind;
	sift_down(m, (uint32_t)m->q[x].pos);
}

static int enqueue(struct order *o, struct impl *m, const struct order_ev *e)
{
	struct queue *q = &m->q[e->thread];
	if (q->n == q->cap) {
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
	}
	q->e[(q->head + q->n) & (q->cap - 1)] = *e;
	q->n++;
	m->pending++;
	if (e->t < m->last_t)
		o->late++;   /* older than what was handed out already: handed out late, a repair */
	if (q->pos < 0) {
		q->pos = m->nheap++;
		m->heap[q->pos] = (struct hkey){ e->t, e->seq, e->kind, e->thread };
		sift_up(m, (uint32_t)q->pos);
	}
	return 0;
}

static void dequeue(struct impl *m, uint32_t x)
{
	struct queue *q = &m->q[x];
	q->head = (q->head + 1) & (q->cap - 1);
	q->n--;
	m->pending--;
	uint32_t i = (uint32_t)q->pos;
	if (q->n) {
		rekey(m, x);
		return;
	}
	q->pos = -1;
	struct hkey last = m->heap[--m->nheap];
	if (i < m->nheap) {
		heap_set(m, i, &last);
		sift_down(m, i);
		sift_up(m, (uint32_t)m->q[last.thread].pos);
	}
}

/* Hand out the earliest pending event. */
static int step(struct order *o, struct impl *m)
{
	uint32_t x = m->heap[0].thread;
	struct order_ev *e = first(m, x);
	if (e->t > m->last_t)
		m->last_t = e->t;
	int k = o->fn(o->ctx, e);
	if (k < 0)
		return -1;
	if (k == 1 && e->kind == ORDER_RELEASE) {
		e->kind = ORDER_RESULT;
		e->t = e->t + e->rec.duration < e->t ? UINT64_MAX : e->t + e->rec.duration;
		rekey(m, x);   /* its time moved on */
	} else
		dequeue(m, x);
	return 0;
}

static int drain(struct order *o, struct impl *m, uint64_t upto)
{
	while (m->nheap && m->heap[0].t <= upto)
		if (step(o, m) < 0)
			return -1;
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
	m->q[idx].pos = -1;
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
	/* how far a chunk's first record may precede the chunk (one call and the chunk hand-out,
	   which may wait behind another thread's fallocate): 10 ms of this clock.  Anything later
	   is still handed out, and counted as late.  (1 ms saw 2 late records in 10 M.) */
	uint64_t slack = r->hdr.ticks_per_sec / 100;
	if (r->format == TRACE_FMT_DJ)
		o->dj = 1;
	struct order_ev e;
	memset(&e, 0, sizeof e);
	int k;
	while ((k = trace_next(r, &e.rec, NULL)) > 0) {
		const struct mtrace_record *rec = &e.rec;
		if (rec->call == MTRACE_CALL_CHUNK) {
			uint64_t wm = rec->ts > slack ? rec->ts - slack : 0;
			if (wm > m->watermark)
				m->watermark = wm;
			if (drain(o, m, m->watermark) < 0)
				return -1;
			continue;
		}
		int64_t x = thread_of(o, m, rec->tid);
		if (x < 0)
			return -1;
		o->records++;
		o->calls[rec->call]++;
		e.thread = (uint32_t)x;
		e.seq = m->seq++;
		e.t = rec->ts;
		e.user = 0;
		e.kind = (rec->call == MTRACE_CALL_REALLOC || rec->call == MTRACE_CALL_REALLOCARRAY) ? ORDER_RELEASE : ORDER_CALL;
		if (enqueue(o, m, &e) < 0)
			return -1;
		if (r->format == TRACE_FMT_DJ) {
			if (drain(o, m, rec->ts) < 0)   /* already in global order */
				return -1;
		} else if (m->pending > PENDING_MAX) {
			/* a trace whose chunk clock does not advance: shut the window rather than grow */
			if (step(o, m) < 0)
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
	return drain(o, o->impl, UINT64_MAX);
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
