/* convert_prog.c - what a version-2 trace adds to a workload (see convert_int.h): how much of
 * each large block the program had resident, the mappings it made itself, its memory samples,
 * and the times its threads came back from being idle.
 *
 * Resident bytes come with a block's release, long after its allocation was written, or, for a
 * block never released, with its LIVE record at the trace's end: the allocation is followed by a
 * RESIDENT whose operand has room for any value, and the release writes the value there
 * (wl_writer_patch), wherever the stream's bytes are by then.  Only the live large blocks wait
 * so: memory follows them, not the trace.
 *
 * Mappings get ids of their own (a MAP's result goes in a map id, as an allocation's in a
 * slot).  A munmap may cut any part of any mappings; the live ranges are kept in address order
 * (rangemap.h), and each piece cut becomes an UNMAP of its id, at its offset.  An id is free
 * again once every byte of its mapping is unmapped; its RESIDENT learns then what the unmaps
 * said was resident (a piece they said nothing of counts as resident whole).
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include "convert_int.h"
#include "tool.h"

#define RESIDENT_FLOOR 4096u       /* no RESIDENT for blocks under a page: one page is touched */
#define KIB_MAX ((1ull << (7 * WL_FIXED)) - 2)   /* the largest RESIDENT operand, less one */

static uint64_t usec(const struct convert_state *m, uint64_t t)
{
	if (t <= m->t_start || !m->tps)
		return 0;
	return mul_div_u64(t - m->t_start, 1000000u, m->tps);
}

void convert_prog_begin(struct convert *c, struct convert_state *m, const struct trace_reader *r)
{
	if (m->prog_taken)
		return;   /* the first trace of a split one says for all */
	m->prog_taken = 1;
	if (r->format != TRACE_FMT_MTRACE)
		return;   /* dj/malloc's: no clock, nothing of the program's own memory */
	const struct mtrace_file_header *h = &r->hdr;
	m->t_start = h->start_ticks;
	/* a count of order points has no time: no pace, times 0 (not known) */
	m->tps = h->clock == MTRACE_CLOCK_COUNTER ? 0 : h->ticks_per_sec;
	if (h->flags & MTRACE_HF_RESIDENT) {
		m->res_min = h->resident_min > RESIDENT_FLOOR ? h->resident_min : RESIDENT_FLOOR;
		m->flags |= MTRACE_WL_HF_RESIDENT;
	}
	if (h->flags & MTRACE_HF_MAPPINGS)
		m->flags |= MTRACE_WL_HF_MAPPINGS;
	if (c->pace_us && m->tps) {
		uint64_t t = mul_div_u64(c->pace_us, h->ticks_per_sec, 1000000u);
		m->pace_ticks = t > INT64_MAX ? INT64_MAX : t ? t : 1;
		m->flags |= MTRACE_WL_HF_PACE;
	}
}

/* ---------------------------------------------------------------------------------------------
   Resident bytes: RESIDENT kib + 1, or 0 while not known
   ------------------------------------------------------------------------------------------- */

static int patch(struct convert *c, uint64_t at, uint64_t kib1)
{
	uint8_t b[WL_FIXED];
	varint_put_fixed(b, kib1 < KIB_MAX + 1 ? kib1 : KIB_MAX + 1, WL_FIXED);
	return wl_writer_patch(c->w, (uint32_t)(at & ((1u << TOUCH_THREAD_BITS) - 1)),
			       at >> TOUCH_THREAD_BITS, b, WL_FIXED) < 0 ?
		convert_write_failed(c) : 0;
}

static uint64_t kib1(uint64_t bytes)
{
	return bytes / 1024 + (bytes % 1024 != 0) + 1;
}

/* A RESIDENT after thread x's last call, not known yet: where its operand is (touch()'s layout) */
static int64_t mark(struct convert *c, uint32_t x)
{
	int64_t at = wl_writer_op_fixed(c->w, x, MTRACE_WL_RESIDENT, 0);
	if (at < 0)
		return convert_write_failed(c);
	c->st.resident_marks++;
	return (int64_t)touch(x, (uint64_t)at);
}

int convert_resident_mark(struct convert *c, struct convert_state *m, uint32_t x, uint64_t s)
{
	int64_t at = mark(c, x);
	if (at < 0)
		return -1;
	return u64map_put(&m->resident, s, (uint64_t)at) < 0 ? convert_oom(c) : 0;
}

int convert_resident_release(struct convert *c, struct convert_state *m, uint64_t s,
			     const struct mtrace_record *r)
{
	uint64_t at;
	if (!u64map_take(&m->resident, s, &at))
		return 0;
	if (!(r->flags & MTRACE_RF_RESIDENT))
		return 0;   /* released without a word of it: stays "not known" */
	c->st.resident_known++;
	return patch(c, at, kib1(r->arg2));
}

/* A block still allocated when the trace ended (a LIVE record): its RESIDENT, if it still waits,
   learns what was resident then, as from a release.  A record of an address not live (a block
   freed as the trace ended), or live with a larger block, is of no block of ours. */
static int live_at_end(struct convert *c, struct convert_state *m, const struct mtrace_record *r)
{
	uint64_t *sp = live_find(&m->live, r->ptr, addrmap_hash(r->ptr)), at;
	if (sp == NULL || m->slots[*sp].size > r->size || !u64map_take(&m->resident, *sp, &at))
		return 0;
	c->st.resident_known++;
	c->st.resident_live++;
	return patch(c, at, kib1(r->arg2));
}

/* ---------------------------------------------------------------------------------------------
   Pace and samples
   ------------------------------------------------------------------------------------------- */

int convert_pace_mark(struct convert *c, struct convert_state *m, uint32_t x, uint64_t t)
{
	uint64_t a[1] = { usec(m, t) };
	if (t > m->t_last)   /* (the trace's end is never before a mark, late records or not) */
		m->t_last = t;
	c->st.pace_marks++;
	return wl_writer_op(c->w, x, MTRACE_WL_AT, 1, a) < 0 ? convert_write_failed(c) : 0;
}

static int sample(struct convert *c, struct convert_state *m, const struct mtrace_record *r)
{
	struct mtrace_wl_sample s = { m->total_calls, r->size, r->arg2, r->usable, usec(m, r->ts) };
	if (s.time_us < m->sample_us)
		s.time_us = m->sample_us;   /* a sample late (its thread's clock behind):
		                               in its place */
	m->sample_us = s.time_us;
	c->st.samples++;
	return wl_writer_sample(c->w, &s) < 0 ? convert_write_failed(c) : 0;
}

/* ---------------------------------------------------------------------------------------------
   The program's own mappings
   ------------------------------------------------------------------------------------------- */

/* What a munmap cut, collected while the ranges are cut (rangemap_remove's callback), emitted
   after */
static void on_piece(void *ctx, uint64_t start, uint64_t end, uint64_t id)
{
	struct convert_state *m = ctx;
	if (m->npieces == m->cap_pieces) {
		size_t cap = m->cap_pieces ? m->cap_pieces * 2 : 16;
		struct map_piece *p = realloc(m->pieces, cap * sizeof *p);
		if (!p) {
			m->pieces_oom = 1;
			return;
		}
		m->pieces = p;
		m->cap_pieces = cap;
	}
	m->pieces[m->npieces++] = (struct map_piece){ start, end, id };
}

static int64_t new_map(struct convert *c, struct convert_state *m)
{
	if (m->free_maps) {
		uint64_t id = m->free_maps - 1;
		m->free_maps = m->map[id].next;
		return (int64_t)id;
	}
	if (m->nmaps == m->cap_maps) {
		uint64_t cap = m->cap_maps ? m->cap_maps * 2 : 64;
		struct mapinfo *n = realloc(m->map, cap * sizeof *n);
		if (!n)
			return convert_oom(c);
		m->map = n;
		m->cap_maps = cap;
	}
	memset(&m->map[m->nmaps], 0, sizeof *m->map);
	return (int64_t)m->nmaps++;
}

/* Every byte of map id is unmapped: its RESIDENTs learn what was, and the id is free. */
static int map_gone(struct convert *c, struct convert_state *m, uint64_t id)
{
	struct mapinfo *p = &m->map[id];
	if (p->map_at &&
	    patch(c, p->map_at, kib1(p->resident < p->map_len ? p->resident : p->map_len)) < 0)
		return -1;
	if (p->last_at && patch(c, p->last_at, kib1(p->resident)) < 0)
		return -1;
	p->map_at = p->last_at = 0;
	p->next = m->free_maps;
	m->free_maps = id + 1;
	return 0;
}

/* [a, a + len) is no longer the program's (unmapped by anyone, or mapped over): an UNMAP by
   thread x of each piece of its mappings there.  resident: what the munmap said was resident
   of the whole range, or UINT64_MAX not known. */
static int unmap(struct convert *c, struct convert_state *m, uint32_t x, uint64_t a, uint64_t len,
		 uint64_t resident)
{
	uint64_t end = a + len < a ? UINT64_MAX : a + len;
	m->npieces = 0;
	m->pieces_oom = 0;
	if (rangemap_remove(&m->maps, a, end, on_piece, m) < 0 || m->pieces_oom)
		return convert_oom(c);   /* (a failed piece list leaves ranges cut,
		                            unsaid: give up) */
	for (size_t i = 0; i < m->npieces; i++) {
		const struct map_piece *pc = &m->pieces[i];
		struct mapinfo *p = &m->map[pc->id];
		uint64_t n = pc->end - pc->start;
		if (wait_for(c, m, x, p->touch) < 0)
			return -1;
		uint64_t op[3] = { pc->id, pc->start - p->base, n };
		if (emit(c, m, x, MTRACE_WL_UNMAP, 3, op) < 0)
			return -1;
		p = &m->map[pc->id];
		p->touch = touch(x, m->count[x]);
		p->resident += resident == UINT64_MAX ? n
			     : mul_div_u64(resident, n, end - a);   /* its share */
		p->bytes -= n < p->bytes ? n : p->bytes;
		if (p->bytes == 0 && map_gone(c, m, pc->id) < 0)
			return -1;
	}
	return 0;
}

/* The program mapped [a, a + len) (mmap, a break moved up): a MAP by thread x, in a map id */
static int map(struct convert *c, struct convert_state *m, uint32_t x, uint64_t a, uint64_t len)
{
	if (len == 0 || a + len < a)
		return 0;
	if (unmap(c, m, x, a, len, UINT64_MAX) < 0)
		return -1;
	int64_t id = new_map(c, m);
	if (id < 0 || wait_for(c, m, x, m->map[id].touch) < 0)
		return -1;
	uint64_t op[2] = { (uint64_t)id, len };
	if (emit(c, m, x, MTRACE_WL_MAP, 2, op) < 0)
		return -1;
	int64_t at = 0;
	if ((m->flags & MTRACE_WL_HF_RESIDENT) && (at = mark(c, x)) < 0)
		return -1;
	struct mapinfo *p = &m->map[id];
	*p = (struct mapinfo){ .base = a, .bytes = len, .len = len, .touch = touch(x, m->count[x]),
			       .map_at = (uint64_t)at, .map_len = len };
	return rangemap_insert(&m->maps, a, a + len, (uint64_t)id) < 0 ? convert_oom(c) : 0;
}

/* mremap, first half: a whole mapping (as mapped, or left by earlier remaps) moves as one, a
   REMAP at the second half; anything else is unmapped here and mapped anew there. */
static int remap_release(struct convert *c, struct convert_state *m, uint32_t x,
			 const struct mtrace_record *r)
{
	const struct rangemap_node *n = rangemap_find(&m->maps, r->ptr);
	m->own[x].re_map = 0;
	if (n && n->start == r->ptr && n->end - n->start == r->arg2 &&
	    m->map[n->val].base == r->ptr && m->map[n->val].bytes == r->arg2) {
		uint64_t id = n->val;
		m->own[x].re_map = id + 1;
		return rangemap_remove(&m->maps, r->ptr, r->ptr + r->arg2, NULL, NULL) < 0 ?
			convert_oom(c) : 0;
	}
	return unmap(c, m, x, r->ptr, r->arg2, UINT64_MAX);
}

static int remap_result(struct convert *c, struct convert_state *m, uint32_t x,
			const struct mtrace_record *r)
{
	uint64_t id1 = m->own[x].re_map;
	m->own[x].re_map = 0;
	if (!id1)
		return map(c, m, x, r->result, r->size);
	uint64_t id = id1 - 1, len = r->size;
	if (len == 0 || r->result + len < r->result)
		return 0;
	if (unmap(c, m, x, r->result, len, UINT64_MAX) < 0 ||
	    wait_for(c, m, x, m->map[id].touch) < 0)
		return -1;
	uint64_t op[2] = { id, len };
	if (emit(c, m, x, MTRACE_WL_REMAP, 2, op) < 0)
		return -1;
	struct mapinfo *p = &m->map[id];
	if (m->flags & MTRACE_WL_HF_RESIDENT) {
		/* a remap in between touches nothing: the last one touches what was resident */
		if (p->last_at && patch(c, p->last_at, kib1(0)) < 0)
			return -1;
		int64_t at = mark(c, x);
		if (at < 0)
			return -1;
		p = &m->map[id];
		p->last_at = (uint64_t)at;
	}
	p->base = r->result;
	p->bytes = p->len = len;
	p->touch = touch(x, m->count[x]);
	return rangemap_insert(&m->maps, r->result, r->result + len, id) < 0 ? convert_oom(c) : 0;
}

int convert_prog_event(struct convert *c, struct convert_state *m, const struct order_ev *e)
{
	const struct mtrace_record *r = e->rec;
	uint32_t x = e->thread;
	if (e->t > m->t_last)
		m->t_last = e->t;
	if (!m->pm_failed && progmem_event(&m->pm, e) < 0)
		m->pm_failed = 1;   /* (the summary's figures only: the workload goes on) */
	if (r->call == MTRACE_CALL_MEMORY)
		return sample(c, m, r);
	if (r->call == MTRACE_CALL_LIVE)
		return live_at_end(c, m, r);
	c->st.calls[r->call] += e->kind != ORDER_RESULT;
	if (r->flags & MTRACE_RF_FAILED)
		return 0;   /* nothing changed */
	if (r->flags & MTRACE_RF_OWN) {
		/* the allocator's: not replayed (the replay's allocator makes its own), but what it
		   unmaps or maps over of the program's is gone from the program's */
		if (r->call == MTRACE_CALL_MUNMAP ||
		    (r->call == MTRACE_CALL_MREMAP && e->kind == ORDER_RELEASE))
			return unmap(c, m, x, r->ptr,
				     r->call == MTRACE_CALL_MUNMAP ? r->size : r->arg2, UINT64_MAX);
		if (r->call == MTRACE_CALL_MMAP ||
		    (r->call == MTRACE_CALL_MREMAP && e->kind == ORDER_RESULT))
			return unmap(c, m, x, r->result, r->size, UINT64_MAX);
		return 0;
	}
	/* the program's own call: paced as its allocator calls are (convert.c) */
	uint64_t *last = &m->last_t[x];
	if ((int64_t)(e->t - *last) >= (int64_t)m->pace_ticks && e->kind != ORDER_RESULT &&
	    convert_pace_mark(c, m, x, e->t) < 0)
		return -1;
	*last = e->t;
	switch (r->call) {
	case MTRACE_CALL_MMAP:
		return map(c, m, x, r->result, r->size);
	case MTRACE_CALL_MUNMAP:
		return unmap(c, m, x, r->ptr, r->size,
			     (r->flags & MTRACE_RF_RESIDENT) ? r->arg2 : UINT64_MAX);
	case MTRACE_CALL_MREMAP:
		return e->kind == ORDER_RELEASE ? remap_release(c, m, x, r)
						: remap_result(c, m, x, r);
	default:   /* brk: the break moved from ptr to result */
		if (r->result > r->ptr)
			return map(c, m, x, r->ptr, r->result - r->ptr);
		return unmap(c, m, x, r->result, r->ptr - r->result, UINT64_MAX);
	}
}

void convert_prog_end(struct convert *c, struct convert_state *m, struct mtrace_wl_header *h)
{
	for (uint32_t i = 0; i < m->nthreads; i++)
		if (m->last_t[i] > m->t_last)
			m->t_last = m->last_t[i];
	h->nmaps = m->nmaps;
	h->mapped_peak = m->pm.prog.peak;
	h->duration_us = usec(m, m->t_last);
	if (m->flags & MTRACE_WL_HF_PACE)
		h->pace_us = c->pace_us;
	if (m->flags & MTRACE_WL_HF_RESIDENT)
		h->resident_min = m->res_min > UINT32_MAX ? UINT32_MAX : (uint32_t)m->res_min;
	struct convert_stats *s = &c->st;
	s->nmaps = m->nmaps;
	if (!m->pm_failed) {
		s->prog_maps = m->pm.prog.maps;
		s->prog_unmaps = m->pm.prog.unmaps;
		s->prog_remaps = m->pm.prog.remaps;
		s->prog_brks = m->pm.prog.brks;
		s->mapped_peak = m->pm.prog.peak;
		s->own_peak = m->pm.own.peak;
		s->own_maps = m->pm.own.maps;
		s->anon_first = m->pm.first_anon;
		s->anon_peak = m->pm.peak_anon;
	}
	s->duration_us = h->duration_us;
}

void convert_prog_free(struct convert_state *m)
{
	u64map_free(&m->resident);
	rangemap_free(&m->maps);
	progmem_free(&m->pm);
	free(m->map);
	free(m->pieces);
}
