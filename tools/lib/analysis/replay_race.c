/* replay_race.c - see replay_race.h: the waits order every slot and map id passed between
 * streams, or the workload is refused with the use that races. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include "replay_race.h"
#include "replay_vm.h"

int race_init(struct race *o, uint32_t nt, uint64_t size)
{
	memset(o, 0, sizeof *o);
	if (size >> 41)
		return -1;   /* (a call takes 2 bytes or more: its number fits in 40 bits) */
	o->nt = nt;
	o->direct.alloc = replay_vm_alloc;
	o->direct.release = replay_vm_free;
	o->src = replay_vm_grow(NULL, &o->src_cap, nt ? nt : 1);
	return o->src ? 0 : -1;
}

void race_free(struct race *o)
{
	replay_vm_free(o->slot, o->slot_cap);
	replay_vm_free(o->map, o->map_cap);
	u64map_free(&o->direct);
	replay_vm_free(o->src, o->src_cap);
	replay_vm_free(o->col, o->col_cap);
	replay_vm_free(o->next, o->next_cap);
	replay_vm_free(o->clock, o->clock_cap);
	replay_vm_free(o->kept, o->kept_cap);
	memset(o, 0, sizeof *o);
}

int race_grow(struct race *o, uint64_t id, int map)
{
	uint64_t **tab = map ? &o->map : &o->slot;
	size_t *cap = map ? &o->map_cap : &o->slot_cap;
	/* (ids are below the file's size, checked by the caller: a table 8 times as large) */
	void *g = id < SIZE_MAX / 16 ? replay_vm_grow(*tab, cap, (size_t)(id + 1) * 8) : NULL;
	if (!g) {
		o->failed = -1;
		return -1;
	}
	*tab = g;
	return 0;
}

static struct race_site use_of(uint32_t t, uint64_t n, const struct wl_op *op, uint64_t id,
			       int map, uint64_t last)
{
	return (struct race_site){ op->offset, n, id, last, t, op->op, map };
}

int race_handoff(struct race *o, uint32_t t, uint64_t n, const struct wl_op *op, uint64_t id,
		  int map, uint64_t last)
{
	uint32_t a = (uint32_t)(last & 0xffffff);
	uint64_t c = last >> 24;
	if (!o->exact) {
		const uint64_t *d = u64map_get(&o->direct, (uint64_t)t << 24 | a);
		if (d && *d >= c)
			return 0;
		if (!o->src[a]) {
			o->src[a] = 1;
			if (o->nsrc++ == 0)
				o->first = use_of(t, n, op, id, map, last);
		}
		return 0;
	}
	int32_t k = o->col[a];
	if (k < 0 || o->clock[(size_t)t * o->w + (uint32_t)k] >= c)
		return 0;
	o->race = use_of(t, n, op, id, map, last);
	o->failed = 1;
	return -1;
}

int race_waited(struct race *o, uint32_t t, uint32_t u, uint64_t k)
{
	if (!o->exact) {
		uint64_t key = (uint64_t)t << 24 | u, *d = u64map_get(&o->direct, key);
		if (d) {
			if (*d < k)
				*d = k;
		} else if (u64map_put(&o->direct, key, k) < 0) {
			o->failed = -1;
			return -1;
		}
		return 0;
	}
	/* the clock kept at u's signal point k (it is there: u has reached k in this pass) */
	const struct replay_plan *p = o->plan;
	const uint64_t *pt = p->points + p->start[u];
	uint64_t lo = 0, hi = p->count[u];
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (pt[mid] < k)
			lo = mid + 1;
		else
			hi = mid;
	}
	const uint64_t *from = o->kept + (p->start[u] + lo) * o->w;
	uint64_t *to = o->clock + (size_t)t * o->w;
	for (uint64_t j = 0; j < o->w; j++)
		if (from[j] > to[j])
			to[j] = from[j];
	return 0;
}

void race_keep(struct race *o, uint32_t t, uint64_t n)
{
	uint64_t *c = o->clock + (size_t)t * o->w, i = o->next[t];
	if (o->col[t] >= 0)
		c[o->col[t]] = n;
	if (o->plan->points[i] == n) {
		memcpy(o->kept + i * o->w, c, o->w * sizeof *c);
		o->next[t] = i + 1;
	}
}

/* Stream t's call n, into op (its offset and opcode) */
static void call_of(struct wl_reader *r, uint32_t t, uint64_t n, struct wl_op *op)
{
	struct wl_cursor c;
	uint64_t k = 0;
	wl_cursor_init(r, t, &c);
	while (wl_next(r, &c, op) > 0)
		if (mtrace_wl_is_call(op->op) && ++k == n)
			return;
	memset(op, 0, sizeof *op);   /* (not there: the schedule met it) */
}

/* The message for a use of a slot that is not shown ordered: the two calls, why, and the
   command to look */
static void refuse(struct wl_reader *r, const struct race_site *u, int race, const char *why,
		   struct tool_err *err)
{
	struct wl_op prev;
	uint32_t a = (uint32_t)(u->last & 0xffffff);
	call_of(r, a, u->last >> 24, &prev);
	tool_fail(err, EXIT_BADFILE, "%s: offset %llu: %sstream %u's call %llu (%s) and stream "
		  "%u's call %llu (%s, at offset %llu) both use %s %llu, %s; the calls before it: "
		  "trace_dump -s %u --from %llu -n 20 %s", r->name, (unsigned long long)u->offset,
		  race ? "a race: " : "", u->stream, (unsigned long long)u->call,
		  mtrace_wl_op_name(u->op), a, (unsigned long long)(u->last >> 24),
		  mtrace_wl_op_name(prev.op), (unsigned long long)prev.offset,
		  u->map ? "map id" : "slot", (unsigned long long)u->id, why, u->stream,
		  (unsigned long long)(u->call > 10 ? u->call - 10 : 1), r->name);
}

/* The exact check's tables for w columns (made for its first pass), and the last uses of the
   slots and map ids forgotten: a pass starts from nothing */
static int clocks_ready(struct race *o)
{
	uint64_t nt = o->nt, np = o->plan->npoints;
	if (o->exact == 0) {
		u64map_free(&o->direct);   /* (the first pass's alone) */
		o->w = RACE_CLOCK_BYTES / ((nt + np) * 8);
		o->w = o->w < 1 ? 1 : o->w > o->nsrc ? o->nsrc : o->w;
		if ((nt + np) * o->w > SIZE_MAX / 16)
			return -1;
		o->col = replay_vm_grow(NULL, &o->col_cap, nt * sizeof *o->col);
		o->next = replay_vm_grow(NULL, &o->next_cap, nt * sizeof *o->next);
		o->clock = replay_vm_grow(NULL, &o->clock_cap, nt * o->w * 8);
		o->kept = replay_vm_grow(NULL, &o->kept_cap, np * o->w * 8 + 8);
		if (!o->col || !o->next || !o->clock || !o->kept)
			return -1;
	} else   /* (the kept clocks are each written before they are read) */
		memset(o->clock, 0, nt * o->w * 8);
	if (o->slot)
		memset(o->slot, 0, o->slot_cap);
	if (o->map)
		memset(o->map, 0, o->map_cap);
	return 0;
}

int race_next(struct race *o, struct wl_reader *r, const struct replay_plan *plan,
	      struct tool_err *err)
{
	if (o->failed < 0) {
		tool_fail(err, EXIT_SYSTEM, "out of memory checking the order of %llu streams",
			  (unsigned long long)o->nt);
		return -1;
	}
	if (o->failed == 1) {
		refuse(r, &o->race, 1, "and no wait orders them, directly or through other "
		       "streams: a replay may run both at once", err);
		return -1;
	}
	if (o->done == o->nsrc)
		return 0;
	if (o->exact == RACE_PASSES) {
		char why[300];
		snprintf(why, sizeof why, "stream %u with no wait of its own for the other; "
			 "whether other streams' waits order such uses is checked for %llu of the "
			 "streams whose blocks are so used, and there are %llu", o->first.stream,
			 (unsigned long long)o->done, (unsigned long long)o->nsrc);
		refuse(r, &o->first, 0, why, err);
		o->failed = 2;
		return -1;
	}
	o->plan = plan;
	if (clocks_ready(o) < 0) {
		o->failed = -1;
		return race_next(o, r, plan, err);
	}
	memset(o->col, 0xff, o->nt * sizeof *o->col);
	uint64_t k = 0;
	for (uint32_t s = 0; s < o->nt && k < o->w; s++)
		if (o->src[s] == 1) {
			o->src[s] = 2;   /* (a column now) */
			o->col[s] = (int32_t)k++;
		}
	o->done += k;
	for (uint32_t t = 0; t < o->nt; t++)
		o->next[t] = plan->start[t];
	o->exact++;
	return 1;
}
