/* convert.c - see convert.h.
 *
 * Slots: a block gets a free slot when allocated and gives it back when freed.  Each thread
 * reuses the slots it freed itself first (last-in first-out, no wait needed); beyond OWN_MAX its
 * freed slots go to a shared pool, which threads with none of their own draw from; slots never
 * used come to a thread FRESH at a time.  So the slot count stays within OWN_MAX + FRESH - 1 per
 * thread of the peak number of live blocks, and threads that do not share blocks never wait for
 * each other.  A realloc keeps its block's slot.
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
#include "convert_int.h"

/* ---------------------------------------------------------------------------------------------
   Emitting operations
   ------------------------------------------------------------------------------------------- */

int convert_wait_other(struct convert *c, struct convert_state *m, uint32_t x, uint32_t target,
		       uint64_t count)
{
	uint64_t key = ((uint64_t)x << 32) | target;
	uint64_t *have = u64map_get(&m->waited, key);
	if (have && *have >= count)
		return 0;   /* already implied */
	if (u64map_put(&m->waited, key, count) < 0)
		return convert_oom(c);
	uint64_t a[2] = { target, count };
	c->st.waits++;
	return wl_writer_op(c->w, x, MTRACE_WL_WAIT, 2, a) < 0 ? convert_write_failed(c) : 0;
}

static __attribute__((noinline)) int too_many_calls(struct convert *c)
{
	return tool_fail(&c->err, EXIT_BADFILE,
			 "more than %llu calls: more than a workload can order",
			 (unsigned long long)TOUCH_COUNT_MAX - 1);
}

/* Never-used slots come to a thread FRESH at a time, a cache line of pointers in a replayer's
   slot table, so threads that do not share blocks do not share the table's lines either (the
   replay of a 2-thread program stalled on them).  At most FRESH - 1 slots a thread go unused. */
#define FRESH 8

static __attribute__((noinline)) int new_block(struct convert_state *m, struct ownlist *l)
{
	uint64_t at = (m->nslots + FRESH - 1) & ~(uint64_t)(FRESH - 1);
	if (at + FRESH > m->cap_slots) {
		uint64_t cap = m->cap_slots * 2;
		struct slotinfo *n = realloc(m->slots, cap * sizeof *n);
		if (!n)
			return -1;
		/* (not cleared: nothing reads a slot before bind() writes it, and pages not
		   touched yet stay out of memory) */
		m->slots = n;
		m->cap_slots = cap;
		live_table(&m->live, n);
	}
	m->nslots = at + FRESH;
	l->fresh = at;
	l->fresh_end = at + FRESH;
	return 0;
}

/* A free slot for thread x: its own most recently freed, else the pool's, else a new one. */
HOT int64_t take_slot(struct convert *c, struct convert_state *m, uint32_t x)
{
	struct ownlist *l = &m->own[x];
	uint64_t s;
	if (l->n)
		return (int64_t)l->s[(l->head + --l->n) & (OWN_MAX - 1)];   /* x released it last */
	if (m->pool) {
		s = m->pool;
		m->pool = m->slots[s].size;
	} else {
		if (l->fresh == l->fresh_end && new_block(m, l) < 0)
			return convert_oom(c);
		return (int64_t)l->fresh++;
	}
	if (wait_for(c, m, x, m->slots[s].touch) < 0)
		return -1;
	return (int64_t)s;
}

HOT void release_slot(struct convert_state *m, uint32_t x, uint64_t s)
{
	m->slots[s].touch = touch(x, m->count[x]);
	struct ownlist *own = &m->own[x];
	if (own->n == OWN_MAX) {
		/* hand the oldest of its own to the pool; keep the newest, likely to be reused */
		uint64_t old = own->s[own->head];
		m->slots[old].size = m->pool;
		m->pool = old;
		own->head = (own->head + 1) & (OWN_MAX - 1);
		own->n--;
	}
	own->s[(own->head + own->n++) & (OWN_MAX - 1)] = s;
}

/* The block at address a (its hash h) is now in slot s, allocated by thread x just now. */
HOT int bind(struct convert *c, struct convert_state *m, uint32_t x, uint64_t a, uint64_t h,
	     uint64_t s, uint64_t size)
{
	uint64_t old;
	m->slots[s] = (struct slotinfo){ size, touch(x, m->count[x]) };
	int k = live_add(&m->live, a, h, s, size, m->total_calls, &old);
	if (k < 0)
		return convert_oom(c);
	/* allocated while still live: its free must be missing or inverted; its slot stays
	   occupied (never reused), the new block gets its own */
	c->st.repaired_live += k & LIVE_REPLACED;
	return 0;
}

/* Call type of the trace -> workload opcode */
#define WL_OP_OF_(c, v, n, wl, ...) [MTRACE_CALL_##c] = MTRACE_WL_##wl,
static const uint8_t wl_op_of[MTRACE_CALL_LAST_API + 1] = { MTRACE_CALLS_API(WL_OP_OF_) };
#undef WL_OP_OF_

/* Operands after the result slot (the workload's order: alignment, count, size), and the
   requested bytes */
static int alloc_operands(const struct mtrace_record *r, uint64_t *a, uint64_t *bytes)
{
	int n = 0;
	if (mtrace_call_has(r->call, MTRACE_OPD_ALIGN))
		a[n++] = r->arg2;
	a[n++] = r->size;
	if (mtrace_call_has(r->call, MTRACE_OPD_COUNT))
		a[n++] = r->arg2;
	*bytes = mtrace_record_bytes(r);
	return n;
}

/* ---------------------------------------------------------------------------------------------
   Processing events in global order
   ------------------------------------------------------------------------------------------- */

/* The events' handlers get the hash of the event's address (ev_key), computed when its map
   entry was asked for; each checks it is its own. */
HOT int do_alloc(struct convert *c, struct convert_state *m, const struct order_ev *e, uint64_t h)
{
	const struct mtrace_record *r = e->rec;
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
	if (__builtin_expect(bytes >= m->res_min, 0) &&
	    convert_resident_mark(c, m, x, (uint64_t)s) < 0)
		return -1;
	if (__builtin_expect(r->ptr != 0, 0))
		h = addrmap_hash(r->result);   /* (an allocation with a ptr:
		                                  only in a hostile trace) */
	return bind(c, m, x, r->result, h, (uint64_t)s, bytes);
}

/* at: ptr's map entry, found ahead (NULL: none; it is checked) */
HOT int do_free(struct convert *c, struct convert_state *m, const struct order_ev *e, uint64_t h,
		struct addrmap_entry *at)
{
	uint32_t x = e->thread;
	uint64_t ptr = e->rec->ptr;
	if (ptr == 0) {
		c->st.free_null++;
		uint64_t a[1] = { 0 };
		return emit(c, m, x, MTRACE_WL_FREE, 1, a);
	}
	uint64_t s;
	if (__builtin_expect(e->rec->result != 0, 0))
		h = addrmap_hash(ptr);   /* (a free with a result: only in a hostile trace) */
	/* an entry found ahead (for this event or, stale, an earlier one) is ptr's if it is in
	   today's table (a rehash maps another; entries of both are 16 bytes from a page) and
	   holds ptr */
	const struct addrmap *am = &m->live.addr;
	if (at && (uintptr_t)at - (uintptr_t)am->e < am->cap * sizeof *am->e && at->key == ptr
	    ? !live_remove_at(&m->live, at, &s) : !live_remove(&m->live, ptr, h, &s)) {
		c->st.skipped_free++;
		return 0;
	}
	if (wait_for(c, m, x, m->slots[s].touch) < 0)
		return -1;
	uint64_t a[1] = { s };
	if (emit(c, m, x, MTRACE_WL_FREE, 1, a) < 0)
		return -1;
	/* only a block of res_min bytes or more (its slot's size, res_min set once) has a
	   RESIDENT waiting: no lookup for the others (python's frees, while one large block
	   lived, each probed the map) */
	if (__builtin_expect(m->slots[s].size >= m->res_min, 0) &&
	    convert_resident_release(c, m, s, e->rec) < 0)
		return -1;
	release_slot(m, x, s);
	return 0;
}

/* A failed realloc: the old block stayed where it was; nothing changes but the call is
   replayed (at its one order point, as nothing was released) */
static int do_failed_realloc(struct convert *c, struct convert_state *m, const struct order_ev *e)
{
	const struct mtrace_record *r = e->rec;
	uint32_t x = e->thread;
	uint64_t so = 0;
	if (r->ptr) {
		uint64_t *sp = live_find(&m->live, r->ptr, addrmap_hash(r->ptr));
		if (sp)
			so = *sp;
	}
	c->st.failed++;
	if (so && wait_for(c, m, x, m->slots[so].touch) < 0)
		return -1;
	uint64_t a[4] = { 0, so, r->size, r->arg2 };
	unsigned op = wl_op_of[r->call];
	return emit(c, m, x, op | MTRACE_WL_FAILED, mtrace_wl_operands(op), a);
}

/* realloc, first half (its order point before the call): the old block stops being live.
   Its slot waits in re_slot for the second half, the thread's next event. */
static int do_release(struct convert *c, struct convert_state *m, const struct order_ev *e)
{
	const struct mtrace_record *r = e->rec;
	uint64_t so = 0;
	if (r->ptr == 0)
		c->st.realloc_null++;
	else if (live_remove(&m->live, r->ptr, addrmap_hash(r->ptr), &so)) {
		if (m->slots[so].size >= m->res_min && convert_resident_release(c, m, so, r) < 0)
			return -1;
	} else
		c->st.realloc_unknown++;
	m->own[e->thread].re_slot = so;
	return 0;
}

/* realloc, second half (its order point after the call): the result becomes live */
static int do_result(struct convert *c, struct convert_state *m, const struct order_ev *e)
{
	const struct mtrace_record *r = e->rec;
	uint32_t x = e->thread;
	uint64_t so = m->own[x].re_slot;
	unsigned op = wl_op_of[r->call];
	int n = mtrace_wl_operands(op);
	uint64_t bytes = mtrace_record_bytes(r);
	if (so && wait_for(c, m, x, m->slots[so].touch) < 0)
		return -1;
	if (r->result == 0) {
		/* glibc's realloc(p, 0): p freed, NULL returned */
		if (so)
			c->st.realloc_zero++;
		uint64_t a[4] = { 0, so, r->size, r->arg2 };
		if (emit(c, m, x, op, n, a) < 0)
			return -1;
		if (so)
			release_slot(m, x, so);
		return 0;
	}
	int64_t s = so ? (int64_t)so : take_slot(c, m, x);
	if (s < 0)
		return -1;
	uint64_t a[4] = { (uint64_t)s, so, r->size, r->arg2 };
	if (emit(c, m, x, op, n, a) < 0)
		return -1;
	if (bytes >= m->res_min && convert_resident_mark(c, m, x, (uint64_t)s) < 0)
		return -1;
	return bind(c, m, x, r->result, addrmap_hash(r->result), (uint64_t)s, bytes);
}

#define AHEAD 16                       /* events whose map entry is asked for ahead of them */
#define ADDRMAP_CACHED (32u * 1024)   /* entries (512 KiB) a cache keeps: no slot prefetch below */

/* convert_pipe_fn: n events in global order and their keys' hashes (addrmap_hash(ev_key)) */
static int on_events_hashed(void *ctx, const struct order_ev *ev, const uint64_t *hash, size_t n)
{
	struct convert *c = ctx;
	struct convert_state *m = c->state;
	if (__builtin_expect(m->total_calls + n >= TOUCH_COUNT_MAX, 0))
		return too_many_calls(c);   /* (a thread's count is at most the total) */
	/* The map is probed at random, a miss an event (of the first-level cache at least): the
	   load of each event's entry starts AHEAD events before it is needed, from the hash the
	   caller took.  A map that a cache keeps: 4% faster; one of 950 K live blocks: a fifth. */
	struct addrmap_entry *found[AHEAD] = { 0 };   /* a free's map entry, where found ahead */
	uint64_t *last_t = m->last_t;   /* (in registers: the pace check costs a load, a compare */
	const int64_t pace = (int64_t)m->pace_ticks;   /* and a store an event) */
	const int warm = !m->pipe.running;   /* (else the reader's thread warms its input) */
	for (size_t i = 0; i < n && i < AHEAD; i++)
		addrmap_prefetch(&m->live.addr, hash[i]);
	for (size_t i = 0; i < n; i++) {
		const struct order_ev *e = &ev[i];
		uint64_t h = hash[i];
		if (i + AHEAD < n) {
			addrmap_prefetch(&m->live.addr, hash[i + AHEAD]);
			if (m->live.addr.cap > ADDRMAP_CACHED) {
				/* a map larger than the caches: the slot of the block that the
				   event AHEAD/2 on frees too (its entry, asked for AHEAD/2 events
				   ago, is here) */
				const struct mtrace_record *near = e[AHEAD / 2].rec;
				if (near->call == MTRACE_CALL_FREE && near->ptr && !near->result) {
					struct addrmap_entry *x =
						addrmap_find(&m->live.addr, near->ptr,
							     hash[i + AHEAD / 2]);
					if (x->key && x->val != ADDRMAP_DEAD)
						__builtin_prefetch(&m->slots[x->val]);
					found[(i + AHEAD / 2) % AHEAD] = x;   /* (its free
					                                         needs no probe) */
				}
			}
		}
		if (warm)
			order_warm(&m->ord);
		int k;
		unsigned call = e->rec->call;
		/* a mapping call, a sample */
		if (__builtin_expect(call > MTRACE_CALL_LAST_API, 0)) {
			if (convert_prog_event(c, m, e) < 0)
				return -1;
			continue;
		}
		/* pace: the thread's next call after an idle time (a realloc's result is its call's
		   end, not a call after idling) */
		uint64_t *last = &last_t[e->thread];
		if (__builtin_expect((int64_t)(e->t - *last) >= pace, 0) &&
		    e->kind != ORDER_RESULT && convert_pace_mark(c, m, e->thread, e->t) < 0)
			return -1;   /* (one signed compare:
			                a late record's negative gap is none) */
		*last = e->t;
		if (__builtin_expect(e->kind == ORDER_CALL, 1)) {
			if (call == MTRACE_CALL_FREE)
				k = do_free(c, m, e, h, m->live.addr.cap > ADDRMAP_CACHED ?
					    found[i % AHEAD] : NULL);
			else if (mtrace_call_order_is(call, MTRACE_ORDER_BOTH))   /* failed */
				k = do_failed_realloc(c, m, e);
			else
				k = do_alloc(c, m, e, h);
		} else if (e->kind == ORDER_RELEASE)
			k = do_release(c, m, e);
		else
			k = do_result(c, m, e);
		if (k < 0)
			return -1;
	}
	return 0;
}

/* order.h callback, on one thread: convert_prepare a part of the batch at a time (on two, the
   reader's thread prepares them) */
static int on_events(void *ctx, const struct order_ev *ev, size_t n)
{
	struct convert *c = ctx;
	struct convert_state *m = c->state;
	uint64_t hash[256];
	for (size_t at = 0; at < n; at += 256) {
		size_t k = n - at < 256 ? n - at : 256;
		convert_prepare(m->api_calls, hash, ev + at, k);
		if (on_events_hashed(ctx, ev + at, hash, k) < 0)
			return -1;
	}
	return 0;
}

/* ---------------------------------------------------------------------------------------------
   Feeding traces
   ------------------------------------------------------------------------------------------- */

/* order.h callback: a new thread gets its stream and its state */
static int on_thread(void *ctx, uint32_t idx, uint32_t tid)
{
	struct convert *c = ctx;
	struct convert_state *m = c->state;
	if (idx == m->cap_threads) {
		uint32_t cap = m->cap_threads ? m->cap_threads * 2 : 64;
		uint64_t *n = realloc(m->count, cap * sizeof *n),
			 *lt = realloc(m->last_t, cap * sizeof *lt);
		if (n)
			m->count = n;
		if (lt)
			m->last_t = lt;
		struct ownlist *o = realloc(m->own, cap * sizeof *o);
		if (o)
			m->own = o;
		if (!n || !o || !lt)
			return convert_oom(c);
		m->cap_threads = cap;
	}
	int64_t w = wl_writer_thread(c->w, tid);
	if (w < 0 || (uint32_t)w != idx)
		return convert_oom(c);
	memset(&m->own[idx], 0, sizeof m->own[0]);
	m->last_t[idx] = m->t_start;   /* (pace: a thread that begins late was idle till then) */
	m->count[idx] = 0;
	m->nthreads = idx + 1;
	c->st.threads = m->nthreads;
	return 0;
}

int convert_begin(struct convert *c, struct wl_writer *w)
{
	memset(c, 0, sizeof *c);
	c->w = w;
	struct convert_state *m = calloc(1, sizeof *m);
	if (!m)
		return convert_oom(c);
	c->state = m;
	c->pace_us = 1000;
	m->res_min = UINT64_MAX;
	m->pace_ticks = INT64_MAX;
	/* index 0 of the table: slot 0 is NULL, never handed out */
	if ((m->slots = calloc(4096, sizeof *m->slots)) == NULL)
		return convert_oom(c);
	live_init(&m->live, m->slots, sizeof *m->slots);
	m->cap_slots = 4096;
	m->nslots = 1;
	if (order_begin(&m->ord, convert_pipe_events, convert_pipe_thread, &m->pipe) < 0)
		return convert_oom(c);   /* its only failure */
	convert_pipe_init(&m->pipe, &m->ord, on_events, on_events_hashed, on_thread, c,
			  m->api_calls);
	return 0;
}

static void copy_order_stats(struct convert *c, struct convert_state *m)
{
	c->st.records = m->ord.records;
	c->st.late = m->ord.late;
	c->st.torn = m->ord.torn;
	c->st.ops = m->total_calls;
	for (int t = 0; t <= MTRACE_CALL_LAST_API; t++) {
		c->st.calls[t] += m->api_calls[t];
		m->api_calls[t] = 0;
	}
}

/* the error of a failed order_* call: ours if a callback set one, else order's */
static int failed(struct convert *c, struct convert_state *m)
{
	if (!c->err.msg[0])
		c->err = m->ord.err;
	return -1;
}

/* src's settings (separated by spaces) into dst, whole ones only: cut after the last that fits */
static void copy_settings(char *dst, size_t cap, const char *src)
{
	size_t n = strlen(src);
	if (n >= cap) {
		n = cap - 1;
		while (n > 0 && src[n] != ' ')
			n--;
	}
	memcpy(dst, src, n);
	dst[n] = 0;
}

int convert_feed(struct convert *c, struct trace_reader *r)
{
	struct convert_state *m = c->state;
	if (r->format == TRACE_FMT_DJ)
		m->flags |= MTRACE_WL_HF_FROM_DJ;
	m->pid = r->hdr.pid;
	size_t plen = strnlen(r->exe, sizeof m->program - 1);
	memcpy(m->program, r->exe, plen);
	m->program[plen] = 0;
	if (!m->allocator[0] && r->allocator[0]) {
		const char *slash = strrchr(r->allocator, '/'),
			   *base = slash ? slash + 1 : r->allocator;
		/* (a file name longer is cut) */
		size_t n = strnlen(base, sizeof m->allocator - 1);
		memcpy(m->allocator, base, n);
		m->allocator[n] = 0;
	}
	if (!m->settings[0]) {
		copy_settings(m->settings, sizeof m->settings, r->settings);
		copy_settings(m->settings_set, sizeof m->settings_set, r->settings_set);
	}
	convert_prog_begin(c, m, r);
	if (convert_pipe_wanted(r))
		convert_pipe_start(&m->pipe);
	uint64_t api_before = m->ord.api_calls;
	int rc = order_feed(&m->ord, r);
	if (convert_pipe_stop(&m->pipe) < 0)
		rc = -1;   /* (the converter's error, in c->err) */
	copy_order_stats(c, m);
	if (rc < 0)
		return failed(c, m);
	/* a copy cut at a record's end reads as a whole trace but for its writer's count: a
	   workload of part of the program, as trace_pack, trace_stats and trace_dump refuse it */
	if (trace_cut_short(r, m->ord.api_calls - api_before) < 0)
		return tool_fail(&c->err, EXIT_BADFILE, "%s", r->err.msg);
	c->st.stalls += r->n_stalls;
	/* a workload of calls in an order they never ran in is refused (a replay of it holds
	   memory the program never held: 56 MB for 0.7 MB), not "repaired" call by call */
	if (!trace_clock_stalled(r, m->ord.nthreads, c->err.msg, sizeof c->err.msg))
		return 0;
	c->err.status = EXIT_BADFILE;
	return -1;
}

int convert_end(struct convert *c, struct mtrace_wl_header *h)
{
	struct convert_state *m = c->state;
	if (order_end(&m->ord) < 0)
		return failed(c, m);
	copy_order_stats(c, m);
	c->st.slots = m->nslots;
	c->st.ideal_rss = m->live.peak;
	c->st.ideal_rss_call = m->live.peak_at;
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
	h->max_live_threads = order_max_live_threads(&m->ord);
	snprintf(h->program, sizeof h->program, "%s", m->program);
	snprintf(h->settings, sizeof h->settings, "%s", m->settings);
	/* after it, those the program set as it ran, where they fit whole */
	size_t n = strlen(h->settings), k = strlen(m->settings_set);
	if (k && n + 1 + k < sizeof h->settings)
		memcpy(h->settings + n + 1, m->settings_set, k + 1);
	snprintf(h->allocator, sizeof h->allocator, "%s", m->allocator);
	convert_prog_end(c, m, h);
	if (wl_writer_finish(c->w, h) < 0)
		return convert_write_failed(c);
	return 0;
}

void convert_free(struct convert *c)
{
	struct convert_state *m = c->state;
	if (!m)
		return;
	convert_pipe_free(&m->pipe);
	order_free(&m->ord);
	convert_prog_free(m);
	live_free(&m->live);
	u64map_free(&m->waited);
	free(m->slots);
	free(m->own);
	free(m->count);
	free(m->last_t);
	free(m);
	c->state = NULL;
}
