/* record_int.h - the record fast path: slots reserved, records filled and committed (included
 * by mt_int.h, whose state it reads).
 */
#ifndef MT_RECORD_INT_H
#define MT_RECORD_INT_H

/* ---------------------------------------------------------------------------------------------
   The record fast path
   ------------------------------------------------------------------------------------------- */

/* The next n free slots of this thread (1, or 2 for a wide record), or NULL when nothing may be
   recorded now.  may_start: the call may start the populating thread (see
   mt_populate_wanted). */
static inline struct mtrace_slot *mt_reserve_n(struct mt_thread *t, unsigned n, int may_start)
{
	if (MT_LIKELY(t->end - t->cur >= (ptrdiff_t)n && t->gen == mt_hot->gen)) {
		/* slots are written as a stream of fresh cache lines: ask for ownership of the line
		   32 slots ahead so its fetch overlaps the calls in between (a hint: never
		   faults) */
		__builtin_prefetch(t->cur + 32, 1, 0);
		struct mtrace_slot *r = t->cur;
		t->cur += n;
		return r;
	}
	return mt_writer_reserve_slow(t, n, may_start);
}

static inline struct mtrace_slot *mt_reserve(struct mt_thread *t, int may_start)
{
	return mt_reserve_n(t, 1, may_start);
}

typedef uint64_t __attribute__((may_alias)) mt_u64_alias;
/* A record's commit word is one 8-byte store that a reader of a killed process's file sees
   whole or not at all: a target that needs a lock for it cannot keep that promise. */
_Static_assert(__atomic_always_lock_free(8, 0), "8-byte atomic stores must be lock-free here");

/* Commit: the first 8 bytes go last, with release order, so a reader (even of a killed process's
   file) sees either a complete record or call == MTRACE_CALL_UNWRITTEN. */
static inline void mt_commit(struct mtrace_slot *r, unsigned call, unsigned flags, unsigned aux,
			     uint32_t x)
{
	union {
		struct { uint8_t call, flags; uint16_t aux; uint32_t x; } s;
		uint64_t w;
	} u = { .s = { (uint8_t)call, (uint8_t)flags, (uint16_t)aux, x } };
	__atomic_store_n((mt_u64_alias *)r, u.w, __ATOMIC_RELEASE);
}

/* A compact record (include/mtrace-trace.h): a and b first, so that an allocating call's stores
   overlap its clock read; then the clock, then the commit word. */
static inline void mt_put_body(struct mtrace_slot *r, uint64_t a, uint64_t b)
{
	r->a = a;
	r->b = b;
}

static inline void mt_put_tail(struct mtrace_slot *r, unsigned call, unsigned flags, unsigned aux,
			       uint32_t x, uint64_t ts)
{
	r->ts = ts;
	mt_commit(r, call, flags, aux, x);
}

/* A chunk record's b: its length and the writer's pid. */
static inline uint64_t mt_chunk_word(uint64_t len)
{
	return len | (uint64_t)(uint32_t)mt_file.pid << 32;
}

/* A chunk record (compact): its thread, its previous chunk, its length and the writer's pid. */
static inline void mt_put_chunk(struct mtrace_slot *c, uint32_t tid, uint64_t ts, uint64_t prev,
				uint64_t len)
{
	mt_put_body(c, prev, mt_chunk_word(len));
	mt_put_tail(c, MTRACE_CALL_CHUNK, 0, 0, tid, ts);
}

/* The usable size of an allocation as a compact record's x: its difference from the request. */
static inline uint32_t mt_usable_x(uint64_t usable, uint64_t asked)
{
	if (usable == 0 || usable < asked || usable - asked >= MTRACE_X_NO_USABLE)
		return MTRACE_X_NO_USABLE;   /* (4 GiB over the request: not recorded) */
	return (uint32_t)(usable - asked);
}

/* A wide record in slots r[0..1]: the second slot, the first's body, its commit word last.
   stack: an allocating call's stack id (with stacks recorded), in the second slot. */
static inline void mt_put_wide_stack(struct mtrace_slot *r, unsigned call, unsigned flags,
				     unsigned err, uint64_t ts, uint64_t ptr, uint64_t result,
				     uint64_t size, uint64_t arg2, uint64_t usable,
				     uint64_t duration, uint32_t stack)
{
	r[1].call = 0;   /* (a zero call byte: the slot alone reads as unwritten) */
	r[1].flags = (uint8_t)stack;   /* (mtrace_take_stack) */
	r[1].aux = (uint16_t)(stack >> 8);
	r[1].x = (uint32_t)(duration >> 32);
	r[1].ts = size;
	r[1].a = arg2;
	r[1].b = usable;
	r->a = ptr;
	r->b = result;
	r->ts = ts;
	mt_commit(r, call, flags | MTRACE_RF_WIDE, err, (uint32_t)duration);
}

static inline void mt_put_wide(struct mtrace_slot *r, unsigned call, unsigned flags, unsigned err,
			       uint64_t ts, uint64_t ptr, uint64_t result, uint64_t size,
			       uint64_t arg2, uint64_t usable, uint64_t duration)
{
	mt_put_wide_stack(r, call, flags, err, ts, ptr, result, size, arg2, usable, duration, 0);
}
#endif
