/* progmem.c - see progmem.h */
#include <stdio.h>
#include <string.h>
#include "progmem.h"

/* ---------------------------------------------------------------------------------------------
   Mappings.  Whoever maps a range, it replaces what was there (MAP_FIXED); whoever unmaps one,
   it is gone from both sides (the program may unmap what its allocator mapped, and the other
   way round).
   ------------------------------------------------------------------------------------------- */

static int unmap(struct progmem *p, uint64_t a, uint64_t len)
{
	uint64_t end = a + len < a ? UINT64_MAX : a + len;
	return rangemap_remove(&p->prog.live, a, end, NULL, NULL) < 0 ||
	       rangemap_remove(&p->own.live, a, end, NULL, NULL) < 0 ? -1 : 0;
}

static int map(struct progmem *p, struct progmem_maps *side, uint64_t a, uint64_t len, uint64_t t)
{
	if (unmap(p, a, len) < 0)
		return -1;
	uint64_t end = a + len < a ? UINT64_MAX : a + len;
	if (rangemap_insert(&side->live, a, end, 0) < 0)
		return -1;
	if (side->live.bytes > side->peak) {
		side->peak = side->live.bytes;
		side->peak_t = t;
	}
	return 0;
}

static int mapping(struct progmem *p, const struct order_ev *e)
{
	const struct mtrace_record *r = e->rec;
	struct progmem_maps *side = (r->flags & MTRACE_RF_OWN) ? &p->own : &p->prog;
	if (r->flags & MTRACE_RF_FAILED) {
		p->failed++;
		return 0;
	}
	switch (r->call) {
	case MTRACE_CALL_MMAP:
		side->maps++;
		return map(p, side, r->result, r->size, e->t);
	case MTRACE_CALL_MUNMAP:
		side->unmaps++;
		return unmap(p, r->ptr, r->size);
	case MTRACE_CALL_MREMAP:   /* the old range goes at the release point,
	                              the new comes after */
		if (e->kind == ORDER_RELEASE)
			return unmap(p, r->ptr, r->arg2);
		side->remaps++;
		return map(p, side, r->result, r->size, e->t);
	default:   /* brk: the break moved from ptr to result */
		side->brks++;
		if (r->result > r->ptr)
			return map(p, side, r->ptr, r->result - r->ptr, e->t);
		return unmap(p, r->result, r->ptr - r->result);
	}
}

/* ---------------------------------------------------------------------------------------------
   Samples
   ------------------------------------------------------------------------------------------- */

static void sample(struct progmem *p, const struct mtrace_record *r)
{
	if (p->samples++ == 0) {
		p->first_anon = r->size;
		p->first_rss = r->arg2;
		p->first_t = r->ts;
	}
	if (r->size > p->peak_anon || p->samples == 1) {
		p->peak_anon = r->size;
		p->peak_anon_t = r->ts;
	}
	if (r->arg2 > p->peak_rss)
		p->peak_rss = r->arg2;
	if (r->usable > p->peak_vsz)
		p->peak_vsz = r->usable;
	p->last_anon = r->size;
	p->last_t = r->ts;
}

int progmem_event(struct progmem *p, const struct order_ev *e)
{
	unsigned call = e->rec->call;
	if (call == MTRACE_CALL_MEMORY) {
		sample(p, e->rec);
		return 0;
	}
	return progmem_is_mapping(call) ? mapping(p, e) : 0;
}

void progmem_free(struct progmem *p)
{
	rangemap_free(&p->prog.live);
	rangemap_free(&p->own.live);
}
