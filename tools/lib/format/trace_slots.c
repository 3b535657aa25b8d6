/* trace_slots.c - version 3's 32-byte slots, decoded into records a run at a time. */
#include <errno.h>
#include <string.h>
#include "trace_reader_int.h"

/* ---------------------------------------------------------------------------------------------
   Version 3: 32-byte slots, decoded a run at a time.  A record's thread is its chunk's: chunks
   lie end to end, each from its chunk record on, so a reader that meets a chunk record knows
   the thread of every record up to the chunk's end.
   ------------------------------------------------------------------------------------------- */

static void swap_slot(struct mtrace_slot *s)
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

/* The common records of a native-order trace, decoded without branches on the call: malloc,
   valloc, pvalloc and free in their compact form, inside their chunk.  A trace of mallocs and
   frees in random order would mispredict a branch on the call half the time.  The slots at
   [p, end) it decoded (into r->dec); it stops at the first it leaves to the general path. */
static size_t fast_slots(struct trace_reader *r, const unsigned char *p, const unsigned char *end)
{
	/* calls 1 (malloc), 3 (free), 6 (valloc), 7 (pvalloc) */
	enum { FAST_CALLS = 1u << MTRACE_CALL_MALLOC | 1u << MTRACE_CALL_FREE |
			    1u << MTRACE_CALL_VALLOC | 1u << MTRACE_CALL_PVALLOC };
	size_t room = TRACE_DEC - r->dec_n, n = (size_t)(end - p) / MTRACE_SLOT_SIZE, k = 0;
	if (n > room)
		n = room;
	uint64_t at = r->offset;
	if (at < r->hdr.reset_off || at >= r->chunk_end)
		return 0;
	if (n > (r->chunk_end - at) / MTRACE_SLOT_SIZE)
		n = (size_t)((r->chunk_end - at) / MTRACE_SLOT_SIZE);
	struct mtrace_record *rec = r->dec + r->dec_n;
	uint64_t *offs = r->dec_offs + r->dec_n;
	for (; k < n; k++, rec++) {
		const struct mtrace_slot *sp =
			(const struct mtrace_slot *)(const void *)(p + k * MTRACE_SLOT_SIZE);
		__builtin_prefetch(sp + TRACE_PREFETCH_AHEAD);
		unsigned call = sp->call, flags = sp->flags;
		if (!(call < 8 && (FAST_CALLS >> call & 1)) || (flags & ~TRACE_FAST_FLAGS))
			break;
		uint64_t is_free = -(uint64_t)(call == MTRACE_CALL_FREE), x = sp->x;
		rec->tid = r->chunk_tid;
		rec->call = (uint8_t)call;
		rec->flags = (uint8_t)flags;
		/* (a free has no errno: as mtrace_decode) */
		rec->err = (uint16_t)(sp->aux & ~is_free);
		rec->ts = sp->ts;
		rec->ptr = sp->a & is_free;
		rec->result = sp->a & ~is_free;
		rec->size = sp->b & ~is_free;
		rec->arg2 = sp->b & is_free;
		rec->usable = x == MTRACE_X_NO_USABLE ? 0 : (sp->b + x) & ~is_free;
		rec->duration = 0;
		if (!trace_call_ok(rec))
			break;   /* (the general path says what is wrong with it) */
		offs[k] = at + k * MTRACE_SLOT_SIZE;
	}
	r->dec_n += k;
	r->n_written += k;
	r->buf_pos += k * MTRACE_SLOT_SIZE;
	r->offset += k * MTRACE_SLOT_SIZE;
	return k;
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
		unsigned want = 2;   /* slots of the record cut by the end of those at hand */
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
				swap_slot(&s[0]);
			unsigned need = 1;
			if (s[0].flags & MTRACE_RF_WIDE) {
				need = 2;
				if ((size_t)(end - p) < 2 * MTRACE_SLOT_SIZE)
					break;   /* its second slot: after a refill */
				memcpy(&s[1], p + MTRACE_SLOT_SIZE, MTRACE_SLOT_SIZE);
				if (r->swap)
					swap_slot(&s[1]);
				if (s[1].call || s[1].flags || s[1].aux)
					return trace_fail(r, at + MTRACE_SLOT_SIZE, "a wide "
							  "record's second slot that is not one");
			} else if (mtrace_call_is_ext(s[0].call)) {
				/* version 5: a head and its continuation slots, handed out
				   as the head (their payload is read from the file) */
				if (s[0].aux > MTRACE_EXT_SLOTS_MAX)
					return trace_fail(r, at, "an extended record of %u "
							  "slots", 1u + s[0].aux);
				need = 1u + s[0].aux;
				if ((size_t)(end - p) < need * MTRACE_SLOT_SIZE) {
					want = need;
					break;   /* the rest: after a refill */
				}
			}
			int chunk = s[0].call == MTRACE_CALL_CHUNK;
			if (chunk && r->dec_n)
				return (int)r->dec_n;   /* a chunk record comes alone */
			if (!chunk &&
			    (r->chunk_end == 0 || at + need * MTRACE_SLOT_SIZE > r->chunk_end))
				return trace_fail(r, at, r->chunk_end == 0 || at >= r->chunk_end
						  ? "a record outside any chunk"
						  : "a wide record across its chunk's end");
			struct mtrace_record *rec = &r->dec[r->dec_n];
			mtrace_decode(s, need, r->chunk_tid, rec);
			if (!trace_fast_ok(rec) && trace_record_check(r, rec, at) < 0)
				return -1;
			if (chunk) {
				r->chunk_tid = rec->tid;
				r->chunk_end = at + rec->size;
				trace_chunk_seen(r, rec, at);
			}
			r->dec_offs[r->dec_n++] = at;
			r->n_written++;
			p += need * MTRACE_SLOT_SIZE;
			r->buf_pos += need * MTRACE_SLOT_SIZE;
			r->offset += need * MTRACE_SLOT_SIZE;
			if (chunk || r->dec_n == TRACE_DEC)
				return (int)r->dec_n;
		}
		if (p < end) {
			/* a wide record's first slot is the last at hand: its second, or the end */
			/* (fewer only at the end of the file) */
			have = trace_fill(r, want * MTRACE_SLOT_SIZE);
			if (have < 0)
				return trace_read_failed(r);
			if ((size_t)have < want * MTRACE_SLOT_SIZE)
				return trace_fail(r, r->offset, "truncated record (%zd of %u "
						  "bytes)", have, want * MTRACE_SLOT_SIZE);
		}
	}
}
