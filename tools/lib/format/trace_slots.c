/* trace_slots.c - version 3's 32-byte slots, decoded into records a run at a time. */
#include <errno.h>
#include <string.h>
#include "trace_reader_int.h"

/* ---------------------------------------------------------------------------------------------
   Version 3: 32-byte slots, decoded a run at a time.  A record's thread is its chunk's: chunks
   lie end to end, each from its chunk record on, so a reader that meets a chunk record knows
   the thread of every record up to the chunk's end.
   ------------------------------------------------------------------------------------------- */

void trace_swap_slot(struct mtrace_slot *s)
{
	MTRACE_SWAP(s->aux);
	MTRACE_SWAP(s->x);
	MTRACE_SWAP(s->ts);
	MTRACE_SWAP(s->a);
	MTRACE_SWAP(s->b);
}

/* Every byte of the n bytes at p zero? */
static int all_zero(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

/* calls 1 (malloc), 3 (free), 6 (valloc), 7 (pvalloc): fast_slots' */
enum { FAST_CALLS = 1u << MTRACE_CALL_MALLOC | 1u << MTRACE_CALL_FREE |
		    1u << MTRACE_CALL_VALLOC | 1u << MTRACE_CALL_PVALLOC };

/* Is the slot at p (native order) one fast_slots takes, by its call and flags?  A failed call
   is not: so every record it takes passes trace_call_ok with no check of its own. */
static inline int fast_call(const unsigned char *p)
{
	const struct mtrace_slot *sp = (const struct mtrace_slot *)(const void *)p;
	unsigned call = sp->call;
	return call < 8 && (FAST_CALLS >> call & 1) &&
	       !(sp->flags & ~(TRACE_FAST_FLAGS & ~MTRACE_RF_FAILED));
}

/* The common records of a native-order trace, decoded without branches on the call: malloc,
   valloc, pvalloc and free in their compact form, not failed, inside their chunk.  A trace of
   mallocs and frees in random order would mispredict a branch on the call half the time.  The
   slots at [p, end) it took (decoded into r->dec, or skipped); it stops at the first it leaves
   to the general path. */
static size_t fast_slots(struct trace_reader *r, const unsigned char *p, const unsigned char *end)
{
	size_t room = TRACE_DEC - r->dec_n, n = (size_t)(end - p) / MTRACE_SLOT_SIZE;
	if (n > room)
		n = room;
	uint64_t at = r->offset;
	if (at < r->hdr.reset_off || at >= r->chunk_end)
		return 0;
	if (n > (r->chunk_end - at) / MTRACE_SLOT_SIZE)
		n = (size_t)((r->chunk_end - at) / MTRACE_SLOT_SIZE);
	/* version 5's CALLERs that the tool did not ask for: checked and skipped here, so that a
	   trace with stacks keeps this path */
	int skip = (r->hdr.flags & MTRACE_HF_STACKS) && r->hdr.version >= 5 && !r->ext_return &&
		   !r->ext_fn;
	/* version 6's stack ids in the records: cut from the size here when the tool does not
	   want them; a tool that does takes the general path, which hands them on as CALLERs */
	uint64_t size_bits = ~(uint64_t)0;
	if (r->hdr.flags & MTRACE_HF_STACK_IDS) {
		if (!skip)
			return 0;
		size_bits = ((uint64_t)1 << MTRACE_STACK_SIZE_BITS) - 1;
	}
	/* pointers and the thread in locals: the records' stores could alias the reader's fields,
	   which the compiler would load again for every record */
	uint64_t *offs = r->dec_offs + r->dec_n, *o = offs;
	struct mtrace_record *rec = r->dec + r->dec_n;
	const uint32_t tid = r->chunk_tid;
	const struct mtrace_slot *start = (const struct mtrace_slot *)(const void *)p,
				 *sp = start, *send = start + n;
	for (; sp < send; sp++, at += MTRACE_SLOT_SIZE) {
		__builtin_prefetch(sp + TRACE_PREFETCH_AHEAD);
		unsigned call = sp->call, flags = sp->flags;
		if (!fast_call((const unsigned char *)sp)) {
			if (call == MTRACE_CALL_CALLER && skip && (flags | sp->aux) == 0) {
				r->n_ext++;
				continue;
			}
			break;
		}
		uint64_t is_free = -(uint64_t)(call == MTRACE_CALL_FREE), x = sp->x;
		uint64_t a = sp->a, b = sp->b;
		rec->tid = tid;
		rec->call = (uint8_t)call;
		rec->flags = (uint8_t)flags;
		/* (a free has no errno: as mtrace_decode) */
		rec->err = (uint16_t)(sp->aux & ~is_free);
		rec->ts = sp->ts;
		rec->ptr = a & is_free;
		rec->result = a & ~is_free;
		rec->size = b & size_bits & ~is_free;
		rec->arg2 = b & is_free;
		rec->usable = x == MTRACE_X_NO_USABLE ? 0 : ((b & size_bits) + x) & ~is_free;
		rec->duration = 0;
		rec++;
		*o++ = at;
	}
	size_t m = (size_t)(o - offs), k = (size_t)(sp - start);   /* records of the k slots */
	r->dec_n += m;
	r->n_written += m;
	r->buf_pos += k * MTRACE_SLOT_SIZE;
	r->offset += k * MTRACE_SLOT_SIZE;
	return k;
}

/* Version 6's stack id of the allocating record rec at offset at, handed on as the CALLER slot
   version 5 writes just before it (its return address unknown: 0): to ext_fn, or into the run
   before rec, or skipped.  The CALLER takes rec's place in the run and rec the next. */
static int caller_of(struct trace_reader *r, struct mtrace_record *rec, uint32_t stack,
		     uint64_t at)
{
	struct mtrace_record c = trace_caller_record(rec->tid, stack);
	r->n_ext++;
	at -= MTRACE_SLOT_SIZE;
	if (r->ext_fn) {
		if (r->ext_fn(r->ext_arg, &c, NULL, at) < 0) {
			r->failed = 1;
			return tool_fail(&r->err, EXIT_BADFILE, "%s", r->ext_err ? r->ext_err :
					 "stopped");
		}
		return 0;
	}
	if (!r->ext_return)
		return 0;
	rec[1] = *rec;
	*rec = c;
	r->dec_offs[r->dec_n++] = at;
	r->n_written++;
	return 0;
}

int trace_decode_run(struct trace_reader *r)
{
	r->dec_n = r->dec_i = 0;
	for (;;) {
		ssize_t have = trace_fill_record(r, MTRACE_SLOT_SIZE);
		if (have < 0)
			return -1;
		if ((size_t)have < MTRACE_SLOT_SIZE) {
			if (trace_input_failed(r) < 0)
				return -1;
			if (have == 0)
				return (int)r->dec_n;
			return trace_fail(r, r->offset, "truncated record (%zd of %u bytes)", have,
					  MTRACE_SLOT_SIZE);
		}
		/* the slots at hand, without a call to fill for each */
		const unsigned char *p = r->buf + r->buf_pos;
		const unsigned char *end = p + (size_t)have / MTRACE_SLOT_SIZE * MTRACE_SLOT_SIZE;
		if (!r->swap) {
			size_t k = fast_slots(r, p, end);
			p += k * MTRACE_SLOT_SIZE;
			if (r->dec_n == TRACE_DEC)
				return (int)r->dec_n;
		}
		size_t want = 2 * MTRACE_SLOT_SIZE;   /* a record the slots at hand end in */
		while (p < end) {
			struct mtrace_slot s[2];
			memcpy(&s[0], p, MTRACE_SLOT_SIZE);
			uint64_t at = r->offset;
			/* below reset_off, what mtrace_reset discarded: a record there is a call
			   that was being written at the reset (its chunk record is gone) */
			if (s[0].call == MTRACE_CALL_UNWRITTEN || at < r->hdr.reset_off) {
				if (trace_unwritten(r, at, MTRACE_SLOT_SIZE) < 0)
					return -1;
				r->n_unwritten++;
				r->n_torn += !all_zero(p, MTRACE_SLOT_SIZE);
				p += MTRACE_SLOT_SIZE;
				r->buf_pos += MTRACE_SLOT_SIZE;
				r->offset += MTRACE_SLOT_SIZE;
				if (r->dec_n)   /* (a run is of consecutive records) */
					return (int)r->dec_n;
				continue;
			}
			if (r->swap)
				trace_swap_slot(&s[0]);
			unsigned need = 1;
			int ids = (r->hdr.flags & MTRACE_HF_STACK_IDS) &&
				  mtrace_call_has_stack(s[0].call);
			if (s[0].flags & MTRACE_RF_WIDE) {
				need = 2;
				if ((size_t)(end - p) < 2 * MTRACE_SLOT_SIZE)
					break;   /* its second slot: after a refill */
				memcpy(&s[1], p + MTRACE_SLOT_SIZE, MTRACE_SLOT_SIZE);
				if (r->swap)
					trace_swap_slot(&s[1]);
			}
			uint32_t stack = ids ? mtrace_take_stack(s) : 0;
			if (stack && r->dec_n + 1 >= TRACE_DEC && r->ext_return && !r->ext_fn)
				return (int)r->dec_n;   /* (room for its CALLER and itself) */
			if (need == 2) {
				if (!trace_second_slot_ok(s))
					return trace_fail(r, at + MTRACE_SLOT_SIZE, "a wide "
							  "record's second slot that is not one");
			}
			unsigned call = s[0].call;
			int stk = call >= MTRACE_CALL_CALLER && call <= MTRACE_CALL_SYMBOL;
			if (stk) {
				/* an extended record is returned in a run of its own */
				if (call != MTRACE_CALL_CALLER && r->ext_return && r->dec_n)
					return (int)r->dec_n;
				need = 1 + (call == MTRACE_CALL_CALLER ? 0 : s[0].aux);
				if (need > 1 + MTRACE_EXT_SLOTS_MAX)
					return trace_fail(r, at, "a %s record of %u continuation "
							  "slots (at most %u)",
							  mtrace_call_name(call), need - 1,
							  MTRACE_EXT_SLOTS_MAX);
				if ((size_t)(end - p) < need * MTRACE_SLOT_SIZE) {
					want = need * MTRACE_SLOT_SIZE;
					break;   /* the rest of it: after a refill */
				}
				if (trace_ext_read(r, p, need, at) < 0)
					return -1;
			}
			int chunk = call == MTRACE_CALL_CHUNK;
			if (chunk && r->dec_n)
				return (int)r->dec_n;   /* a chunk record comes alone */
			if (!chunk &&
			    (r->chunk_end == 0 || at + need * MTRACE_SLOT_SIZE > r->chunk_end))
				return trace_fail(r, at, r->chunk_end == 0 || at >= r->chunk_end
						  ? "a record outside any chunk" : need > 2
						  ? "an extended record across its chunk's end"
						  : "a wide record across its chunk's end");
			struct mtrace_record *rec = &r->dec[r->dec_n];
			mtrace_decode(stk ? r->ext : s, need, r->chunk_tid, rec);
			if (!trace_fast_ok(rec) && trace_record_check(r, rec, at) < 0)
				return -1;
			if (stk) {
				p += need * MTRACE_SLOT_SIZE;
				r->buf_pos += need * MTRACE_SLOT_SIZE;
				r->offset += need * MTRACE_SLOT_SIZE;
				r->n_ext++;
				if (r->ext_fn && r->ext_fn(r->ext_arg, rec, need > 1 ? r->ext : NULL,
							   at) < 0) {
					r->failed = 1;
					return tool_fail(&r->err, EXIT_BADFILE, "%s", r->ext_err ?
							 r->ext_err : "stopped");
				}
				if (!r->ext_return || r->ext_fn)
					continue;
				r->dec_offs[r->dec_n++] = at;
				r->n_written++;
				if (need > 1 || r->dec_n == TRACE_DEC)
					return (int)r->dec_n;
				continue;
			}
			if (chunk) {
				r->chunk_tid = rec->tid;
				r->chunk_end = at + rec->size;
				trace_chunk_seen(r, rec, at);
			}
			if (stack && caller_of(r, rec, stack, at) < 0)
				return -1;
			r->dec_offs[r->dec_n++] = at;
			r->n_written++;
			p += need * MTRACE_SLOT_SIZE;
			r->buf_pos += need * MTRACE_SLOT_SIZE;
			r->offset += need * MTRACE_SLOT_SIZE;
			if (chunk || r->dec_n == TRACE_DEC)
				return (int)r->dec_n;
			/* back to the fast path after the record it left: one calloc (python makes
			   one call in ten) does not send the rest of the buffer down this path */
			if (!r->swap && p < end && fast_call(p)) {
				p += fast_slots(r, p, end) * MTRACE_SLOT_SIZE;
				if (r->dec_n == TRACE_DEC)
					return (int)r->dec_n;
			}
		}
		if (p < end) {
			/* a wide record's first slot is the last at hand: its second, or the end */
			/* (fewer only at the end of the file) */
			have = trace_fill(r, want);
			if (have < 0)
				return trace_read_failed(r);
			if ((size_t)have < want)
				return trace_fail(r, r->offset, "truncated record (%zd of %zu "
						  "bytes)", have, want);
		}
	}
}
