/* convert.c - see convert.h.
 *
 * Slots: a block gets a free slot when allocated and gives it back when freed.  Each thread
 * reuses the slots it freed itself first (last-in first-out, no wait needed); beyond OWN_MAX its
 * freed slots go to a shared pool, which threads with none of their own draw from.  So the slot
 * count stays within OWN_MAX per thread of the peak number of live blocks, and threads that do
 * not share blocks never wait for each other.  A realloc keeps its block's slot.
 *
 * Waits: every block and every free slot remembers which thread touched it last and that
 * thread's call count just after.  A thread about to use a block or slot another thread touched
 * last waits for that count, unless it already waited for as much from that thread: one WAIT
 * per ordering the per-thread order does not already give.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "convert.h"
#include "u64map.h"

#define MAX_THREADS   (1u << 20)
#define HEAP_MAX      (4u << 20)    /* pending events before the window is forced shut */
#define OWN_MAX       64            /* free slots a thread keeps for itself */

enum { EV_CALL, EV_RELEASE, EV_RESULT };

struct ev {
	uint64_t t, seq;
	uint32_t thread;
	uint32_t kind;
	uint64_t old_slot;            /* EV_RESULT: the realloc'd block's slot, or 0 */
	struct mtrace_record rec;
};

/* A thread's pending events, a ring in arrival (= program) order, which is time order. */
struct queue {
	struct ev *e;
	size_t head, n, cap;          /* cap is a power of two */
	int64_t pos;                  /* index in the thread heap, or -1 */
};

struct slotinfo {
	uint64_t size;                /* requested bytes of the block in it */
	uint64_t count;               /* call count of `thread` just after it last touched the slot */
	uint32_t thread;
	uint32_t live;
};

struct impl {
	struct queue *q;              /* per thread */
	struct hkey { uint64_t t, seq; uint32_t kind, thread; } *heap;   /* threads with pending
	                              events, keyed by a copy of their first event's order */
	uint32_t nheap;
	uint64_t pending;             /* events queued in all threads */
	struct u64map addr;           /* address -> slot */
	struct u64map tids;           /* tid -> thread index + 1 */
	struct u64map waited;         /* waiter << 32 | target -> largest count waited for */
	struct slotinfo *slots;
	uint64_t nslots, cap_slots;   /* slot 0 is NULL and never handed out */
	struct slotlist { uint64_t *s; size_t n, cap; } pool, *own;   /* shared, and per thread */
	uint64_t *count;              /* calls emitted, per thread */
	uint32_t nthreads, cap_threads;
	uint64_t seq, watermark, last_t, live, total_calls;
	uint64_t opcounts[MTRACE_WL_NCOUNTS];   /* calls emitted, by opcode */
	int32_t pid;
	char program[256];
	uint32_t flags;
};

static int oom(struct convert *c)
{
	snprintf(c->err, sizeof c->err, "out of memory");
	return -1;
}

/* ---------------------------------------------------------------------------------------------
   Pending events: a queue per thread, merged by a heap of threads keyed by their first event,
   ordered by (order point, file order, kind).  Heap operations cost log(threads), not
   log(events), and events are never moved once queued.
   ------------------------------------------------------------------------------------------- */


static struct ev *first(struct impl *m, uint32_t x)
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
	const struct ev *e = first(m, x);
	struct hkey *k = &m->heap[m->q[x].pos];
	k->t = e->t;
	k->seq = e->seq;
	k->kind = e->kind;
	sift_down(m, (uint32_t)m->q[x].pos);
}

/* Queue an event of thread x (events of one thread arrive in time order). */
static int enqueue(struct convert *c, struct impl *m, const struct ev *e)
{
	struct queue *q = &m->q[e->thread];
	if (q->n == q->cap) {
		size_t cap = q->cap ? q->cap * 2 : 64;
		struct ev *n = malloc(cap * sizeof *n);
		if (!n)
			return oom(c);
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
		c->st.late++;   /* older than what was processed already: processed late, a repair */
	if (q->pos < 0) {
		q->pos = m->nheap++;
		m->heap[q->pos] = (struct hkey){ e->t, e->seq, e->kind, e->thread };
		sift_up(m, (uint32_t)q->pos);
	}
	return 0;
}

/* Done with thread x's first event. */
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

/* ---------------------------------------------------------------------------------------------
   Emitting operations
   ------------------------------------------------------------------------------------------- */

static int wait_for(struct convert *c, struct impl *m, uint32_t x, uint32_t target, uint64_t count)
{
	if (target == x || count == 0)
		return 0;
	uint64_t key = ((uint64_t)x << 32) | target;
	uint64_t *have = u64map_get(&m->waited, key);
	if (have && *have >= count)
		return 0;   /* already implied */
	if (u64map_put(&m->waited, key, count) < 0)
		return oom(c);
	uint64_t a[2] = { target, count };
	c->st.waits++;
	return wl_writer_op(c->w, x, MTRACE_WL_WAIT, 2, a);
}

static int emit(struct convert *c, struct impl *m, uint32_t x, unsigned op, int n, const uint64_t *a)
{
	if (wl_writer_op(c->w, x, op, n, a) < 0) {
		snprintf(c->err, sizeof c->err, "%s", c->w->err);
		return -1;
	}
	m->count[x]++;
	m->total_calls++;
	m->opcounts[op & 0x7f]++;
	c->st.ops++;
	return 0;
}

static int push_slot(struct convert *c, struct slotlist *l, uint64_t s)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;
		uint64_t *n = realloc(l->s, cap * sizeof *n);
		if (!n)
			return oom(c);
		l->s = n;
		l->cap = cap;
	}
	l->s[l->n++] = s;
	return 0;
}

static int64_t take_slot(struct convert *c, struct impl *m, uint32_t x)
{
	struct slotlist *l = m->nthreads ? &m->own[x] : &m->pool;
	if (l->n == 0)
		l = &m->pool;
	if (l->n) {
		uint64_t s = l->s[--l->n];
		if (wait_for(c, m, x, m->slots[s].thread, m->slots[s].count) < 0)
			return -1;
		return (int64_t)s;
	}
	if (m->nslots == m->cap_slots) {
		uint64_t cap = m->cap_slots ? m->cap_slots * 2 : 4096;
		struct slotinfo *s = realloc(m->slots, cap * sizeof *s);
		if (!s)
			return oom(c);
		m->slots = s;
		m->cap_slots = cap;
	}
	memset(&m->slots[m->nslots], 0, sizeof m->slots[0]);
	return (int64_t)m->nslots++;
}

static int release_slot(struct convert *c, struct impl *m, uint32_t x, uint64_t s)
{
	m->slots[s].thread = x;
	m->slots[s].count = m->count[x];
	m->slots[s].live = 0;
	struct slotlist *own = &m->own[x];
	if (own->n >= OWN_MAX) {
		/* hand the oldest of its own to the pool; keep the newest, likely to be reused */
		if (push_slot(c, &m->pool, own->s[0]) < 0)
			return -1;
		memmove(own->s, own->s + 1, (own->n - 1) * sizeof *own->s);
		own->n--;
	}
	return push_slot(c, own, s);
}

/* The block at address a is now in slot s, allocated by thread x just now. */
static int bind(struct convert *c, struct impl *m, uint32_t x, uint64_t a, uint64_t s, uint64_t size)
{
	uint64_t old;
	int had = u64map_swap(&m->addr, a, s, &old);
	if (had < 0)
		return oom(c);
	if (had) {
		/* allocated while still live: its free must be missing or inverted; its slot stays
		   occupied (never reused), the new block gets its own */
		c->st.repaired_live++;
		m->live -= m->slots[old].size;
		m->slots[old].live = 0;
	}
	m->slots[s] = (struct slotinfo){ size, m->count[x], x, 1 };
	m->live += size;
	if (m->live > c->st.ideal_rss) {
		c->st.ideal_rss = m->live;
		c->st.ideal_rss_call = m->total_calls;
	}
	return 0;
}

static uint64_t mul_sat(uint64_t a, uint64_t b)
{
	uint64_t r;
	return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}

/* Call type of the trace -> workload opcode */
static const uint8_t wl_op_of[MTRACE_CALL_LAST_API + 1] = {
	[MTRACE_CALL_MALLOC] = MTRACE_WL_MALLOC, [MTRACE_CALL_CALLOC] = MTRACE_WL_CALLOC,
	[MTRACE_CALL_FREE] = MTRACE_WL_FREE, [MTRACE_CALL_REALLOC] = MTRACE_WL_REALLOC,
	[MTRACE_CALL_MEMALIGN] = MTRACE_WL_MEMALIGN, [MTRACE_CALL_VALLOC] = MTRACE_WL_VALLOC,
	[MTRACE_CALL_PVALLOC] = MTRACE_WL_PVALLOC, [MTRACE_CALL_POSIX_MEMALIGN] = MTRACE_WL_POSIX_MEMALIGN,
	[MTRACE_CALL_ALIGNED_ALLOC] = MTRACE_WL_ALIGNED_ALLOC, [MTRACE_CALL_REALLOCARRAY] = MTRACE_WL_REALLOCARRAY,
};

/* Operands after the result slot, and the requested bytes */
static int alloc_operands(const struct mtrace_record *r, uint64_t *a, uint64_t *bytes)
{
	switch (r->call) {
	case MTRACE_CALL_CALLOC:
		a[0] = r->size, a[1] = r->arg2;
		*bytes = mul_sat(r->size, r->arg2);
		return 2;
	case MTRACE_CALL_MEMALIGN: case MTRACE_CALL_POSIX_MEMALIGN: case MTRACE_CALL_ALIGNED_ALLOC:
		a[0] = r->arg2, a[1] = r->size;
		*bytes = r->size;
		return 2;
	default:
		a[0] = r->size;
		*bytes = r->size;
		return 1;
	}
}

/* ---------------------------------------------------------------------------------------------
   Processing events in global order
   ------------------------------------------------------------------------------------------- */

static int do_alloc(struct convert *c, struct impl *m, const struct ev *e)
{
	const struct mtrace_record *r = &e->rec;
	uint32_t x = e->thread;
	uint64_t a[4], bytes;
	int n = alloc_operands(r, a + 1, &bytes);
	unsigned op = wl_op_of[r->call];
	if ((r->flags & MTRACE_RF_FAILED) || r->result == 0) {
		a[0] = 0;
		c->st.failed++;
		return emit(c, m, x, op | MTRACE_WL_FAILED, n + 1, a);
	}
	int64_t s = take_slot(c, m, x);
	if (s < 0)
		return -1;
	a[0] = (uint64_t)s;
	if (emit(c, m, x, op, n + 1, a) < 0)
		return -1;
	return bind(c, m, x, r->result, (uint64_t)s, bytes);
}

static int do_free(struct convert *c, struct impl *m, const struct ev *e)
{
	uint32_t x = e->thread;
	uint64_t ptr = e->rec.ptr;
	if (ptr == 0) {
		c->st.free_null++;
		uint64_t a[1] = { 0 };
		return emit(c, m, x, MTRACE_WL_FREE, 1, a);
	}
	uint64_t s;
	if (!u64map_take(&m->addr, ptr, &s)) {
		c->st.skipped_free++;
		return 0;
	}
	if (wait_for(c, m, x, m->slots[s].thread, m->slots[s].count) < 0)
		return -1;
	uint64_t a[1] = { s };
	if (emit(c, m, x, MTRACE_WL_FREE, 1, a) < 0)
		return -1;
	m->live -= m->slots[s].size;
	return release_slot(c, m, x, s);
}

/* realloc, first half (its order point before the call): the old block stops being live.
   Returns 1 when the event became its second half, which stays first in its thread's queue. */
static int do_release(struct convert *c, struct impl *m, struct ev *e)
{
	const struct mtrace_record *r = &e->rec;
	uint32_t x = e->thread;
	uint64_t so = 0;
	if (r->ptr) {
		uint64_t *sp = u64map_get(&m->addr, r->ptr);
		if (sp)
			so = *sp;
	}
	if (r->flags & MTRACE_RF_FAILED) {
		/* the old block stayed where it was; nothing changes but the call is replayed */
		c->st.failed++;
		if (so && wait_for(c, m, x, m->slots[so].thread, m->slots[so].count) < 0)
			return -1;
		uint64_t a[4] = { 0, so, r->size, r->arg2 };
		return emit(c, m, x, wl_op_of[r->call] | MTRACE_WL_FAILED,
			    r->call == MTRACE_CALL_REALLOCARRAY ? 4 : 3, a);
	}
	if (r->ptr == 0)
		c->st.realloc_null++;
	else if (!so)
		c->st.realloc_unknown++;
	else {
		u64map_del(&m->addr, r->ptr);
		m->live -= m->slots[so].size;
		m->slots[so].live = 0;
	}
	e->kind = EV_RESULT;
	e->old_slot = so;
	e->t = e->t + r->duration < e->t ? UINT64_MAX : e->t + r->duration;
	return 1;
}

/* realloc, second half (its order point after the call): the result becomes live */
static int do_result(struct convert *c, struct impl *m, const struct ev *e)
{
	const struct mtrace_record *r = &e->rec;
	uint32_t x = e->thread;
	uint64_t so = e->old_slot;
	int arr = r->call == MTRACE_CALL_REALLOCARRAY;
	uint64_t bytes = arr ? mul_sat(r->size, r->arg2) : r->size;
	if (so && wait_for(c, m, x, m->slots[so].thread, m->slots[so].count) < 0)
		return -1;
	if (r->result == 0) {
		/* glibc's realloc(p, 0): p freed, NULL returned */
		if (so)
			c->st.realloc_zero++;
		uint64_t a[4] = { 0, so, r->size, r->arg2 };
		if (emit(c, m, x, wl_op_of[r->call], arr ? 4 : 3, a) < 0)
			return -1;
		return so ? release_slot(c, m, x, so) : 0;
	}
	int64_t s = so ? (int64_t)so : take_slot(c, m, x);
	if (s < 0)
		return -1;
	uint64_t a[4] = { (uint64_t)s, so, r->size, r->arg2 };
	if (emit(c, m, x, wl_op_of[r->call], arr ? 4 : 3, a) < 0)
		return -1;
	return bind(c, m, x, r->result, (uint64_t)s, bytes);
}

/* 0 done, 1 the event stays (now its second half), -1 error */
static int process(struct convert *c, struct impl *m, struct ev *e)
{
	if (e->t > m->last_t)
		m->last_t = e->t;
	switch (e->kind) {
	case EV_RELEASE: return do_release(c, m, e);
	case EV_RESULT: return do_result(c, m, e);
	}
	return e->rec.call == MTRACE_CALL_FREE ? do_free(c, m, e) : do_alloc(c, m, e);
}

/* Process the earliest pending event. */
static int step(struct convert *c, struct impl *m)
{
	uint32_t x = m->heap[0].thread;
	int k = process(c, m, first(m, x));
	if (k < 0)
		return -1;
	if (k == 1)
		rekey(m, x);   /* its time moved on */
	else
		dequeue(m, x);
	return 0;
}

/* Process every pending event with an order point up to `upto`. */
static int drain(struct convert *c, struct impl *m, uint64_t upto)
{
	while (m->nheap && m->heap[0].t <= upto)
		if (step(c, m) < 0)
			return -1;
	return 0;
}

/* ---------------------------------------------------------------------------------------------
   Feeding traces
   ------------------------------------------------------------------------------------------- */

static int64_t thread_of(struct convert *c, struct impl *m, uint32_t tid)
{
	uint64_t *i = u64map_get(&m->tids, tid);
	if (i)
		return (int64_t)(*i - 1);
	if (m->nthreads >= MAX_THREADS) {
		snprintf(c->err, sizeof c->err, "more than %u threads: not a sane trace", MAX_THREADS);
		return -1;
	}
	if (m->nthreads == m->cap_threads) {
		uint32_t cap = m->cap_threads ? m->cap_threads * 2 : 64;
		uint64_t *n = realloc(m->count, cap * sizeof *n);
		if (n)
			m->count = n;
		struct slotlist *o = realloc(m->own, cap * sizeof *o);
		if (o)
			m->own = o;
		struct queue *q = realloc(m->q, cap * sizeof *q);
		if (q)
			m->q = q;
		struct hkey *h = realloc(m->heap, cap * sizeof *h);
		if (h)
			m->heap = h;
		if (!n || !o || !q || !h)
			return oom(c);
		m->cap_threads = cap;
	}
	memset(&m->own[m->nthreads], 0, sizeof m->own[0]);
	memset(&m->q[m->nthreads], 0, sizeof m->q[0]);
	m->q[m->nthreads].pos = -1;
	int64_t idx = wl_writer_thread(c->w, tid);
	if (idx < 0 || (uint32_t)idx != m->nthreads || u64map_put(&m->tids, tid, (uint64_t)idx + 1) < 0)
		return oom(c);
	m->count[m->nthreads++] = 0;
	c->st.threads = m->nthreads;
	return idx;
}

int convert_begin(struct convert *c, struct wl_writer *w)
{
	memset(c, 0, sizeof *c);
	c->w = w;
	struct impl *m = calloc(1, sizeof *m);
	if (!m)
		return oom(c);
	if (take_slot(c, m, 0) < 0) {   /* index 0 of the table: slot 0 is NULL, never handed out */
		free(m);
		return -1;
	}
	c->impl = m;
	return 0;
}

int convert_feed(struct convert *c, struct trace_reader *r, void (*progress)(uint64_t, void *), void *arg)
{
	struct impl *m = c->impl;
	/* how far a chunk's first record may precede the chunk (one call and the chunk hand-out,
	   which may wait behind another thread's fallocate): 10 ms of this clock.  Anything later
	   is still processed, and counted as repaired.  (1 ms saw 2 late records in 10 M.) */
	uint64_t slack = r->hdr.ticks_per_sec / 100;
	if (r->format == TRACE_FMT_DJ)
		m->flags |= MTRACE_WL_HF_FROM_DJ;
	m->pid = r->hdr.pid;
	size_t plen = strnlen(r->exe, sizeof m->program - 1);
	memcpy(m->program, r->exe, plen);
	m->program[plen] = 0;
	struct ev e;
	memset(&e, 0, sizeof e);
	int k;
	while ((k = trace_next(r, &e.rec, NULL)) > 0) {
		const struct mtrace_record *rec = &e.rec;
		if (rec->call == MTRACE_CALL_CHUNK) {
			uint64_t wm = rec->ts > slack ? rec->ts - slack : 0;
			if (wm > m->watermark)
				m->watermark = wm;
			if (drain(c, m, m->watermark) < 0)
				return -1;
			continue;
		}
		int64_t x = thread_of(c, m, rec->tid);
		if (x < 0)
			return -1;
		c->st.records++;
		c->st.calls[rec->call]++;
		e.thread = (uint32_t)x;
		e.seq = m->seq++;
		e.t = rec->ts;
		e.kind = (rec->call == MTRACE_CALL_REALLOC || rec->call == MTRACE_CALL_REALLOCARRAY) ? EV_RELEASE : EV_CALL;
		if (enqueue(c, m, &e) < 0)
			return -1;
		if (r->format == TRACE_FMT_DJ) {
			/* already in global order */
			if (drain(c, m, rec->ts) < 0)
				return -1;
		} else if (m->pending > HEAP_MAX) {
			/* a trace whose chunk clock does not advance: shut the window rather than grow */
			if (step(c, m) < 0)
				return -1;
		}
		if (progress && (c->st.records & 0xfffff) == 0)
			progress(r->offset, arg);
	}
	c->st.torn += r->n_torn;
	if (k < 0) {
		snprintf(c->err, sizeof c->err, "%s", r->err);
		return -1;
	}
	return 0;
}

int convert_end(struct convert *c, struct mtrace_wl_header *h)
{
	struct impl *m = c->impl;
	if (drain(c, m, UINT64_MAX) < 0)
		return -1;
	c->st.slots = m->nslots;
	memset(h, 0, sizeof *h);
	memcpy(h->magic, MTRACE_WL_MAGIC, MTRACE_WL_MAGIC_LEN);
	h->version = MTRACE_WL_VERSION;
	h->header_size = MTRACE_WL_HEADER_SIZE;
	h->flags = m->flags;
	h->nslots = m->nslots;
	h->ncalls = c->st.ops;
	h->nwaits = c->st.waits;
	h->ideal_rss = c->st.ideal_rss;
	h->ideal_rss_call = c->st.ideal_rss_call;
	h->failed = c->st.failed;
	memcpy(h->counts, m->opcounts, sizeof h->counts);
	h->pid = m->pid;
	snprintf(h->program, sizeof h->program, "%s", m->program);
	if (wl_writer_finish(c->w, h) < 0) {
		snprintf(c->err, sizeof c->err, "%s", c->w->err);
		return -1;
	}
	return 0;
}

void convert_free(struct convert *c)
{
	struct impl *m = c->impl;
	if (!m)
		return;
	for (uint32_t i = 0; i < m->nthreads; i++)
		free(m->q[i].e);
	free(m->q);
	free(m->heap);
	u64map_free(&m->addr);
	u64map_free(&m->tids);
	u64map_free(&m->waited);
	free(m->slots);
	free(m->pool.s);
	for (uint32_t i = 0; i < m->nthreads; i++)
		free(m->own[i].s);
	free(m->own);
	free(m->count);
	free(m);
	c->impl = NULL;
}
