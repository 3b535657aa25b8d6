/* trace_record.c - checking one record of a trace against its header, and its chunks' clock. */
#include <stdio.h>
#include "trace_reader_int.h"
#include "units.h"

/* ---------------------------------------------------------------------------------------------
   Records
   ------------------------------------------------------------------------------------------- */

/* Largest page size Linux uses (some aarch64 and ppc64 kernels): a munmap's resident bytes are
   of whole pages, so at most its length rounded up to one */
#define PAGE_MAX (64u * 1024)

/* What is wrong with a record kind of version 2 or later (mapping call, memory sample, live
   block) or one of their flags, or NULL */
static const char *check_memory_record(const struct trace_reader *r,
				       const struct mtrace_record *rec, char *msg, size_t cap)
{
	const struct mtrace_file_header *h = &r->hdr;
	unsigned call = rec->call;
	int mapping = call > MTRACE_CALL_LAST_API && call <= MTRACE_CALL_LAST_MAP;
	if (call >= MTRACE_CALL_CALLER && call <= MTRACE_CALL_SYMBOL)   /* (trace_ext.c) */
		return r->slots ? NULL : "a call-stack record in a trace of 64-byte records";
	if (mapping && (h->version < 2 || !(h->flags & MTRACE_HF_MAPPINGS))) {
		snprintf(msg, cap, "a %s record in a trace that does not record mappings "
			 "(version %u, no mappings flag)", mtrace_call_name(call),
			 (unsigned)h->version);
		return msg;
	}
	if (call == MTRACE_CALL_MEMORY) {
		if (h->version < 2 || !(h->flags & MTRACE_HF_MEMORY))
			return "a memory sample in a trace that does not sample memory "
			       "(no memory flag)";
		if (rec->flags || rec->ptr || rec->result)
			return "a memory sample with flags or pointers";
		if (rec->size > rec->arg2)
			return "a memory sample whose anonymous resident bytes exceed its "
			       "resident bytes";
		return NULL;
	}
	if (call == MTRACE_CALL_LIVE) {
		if (h->version < 4 || !(h->flags & MTRACE_HF_LIVE))
			return "a live block's record in a trace that does not end with them "
			       "(before version 4, or no live flag)";
		if (rec->flags != MTRACE_RF_RESIDENT || rec->ptr == 0 || rec->result)
			return "a live block's record without its address and resident bytes";
		if (rec->arg2 > rec->size)
			return "a live block with more bytes resident than it has";
		return NULL;
	}
	if ((rec->flags & MTRACE_RF_OWN) && !mapping)
		return "the allocator's-own flag on a call that is not a mapping call";
	if (rec->flags & MTRACE_RF_RESIDENT) {
		if (!mtrace_call_has(call, MTRACE_OPD_RESIDENT))
			return "resident bytes on a call other than free, realloc or munmap";
		if (h->version < 2 || !(h->flags & MTRACE_HF_RESIDENT))
			return "resident bytes in a trace that does not record them "
			       "(no resident flag)";
		if (call == MTRACE_CALL_MUNMAP && rec->arg2 > rec->size + PAGE_MAX - 1)
			return "a munmap with more bytes resident than it unmaps";
	}
	if (call == MTRACE_CALL_MUNMAP && rec->result != 0)
		return "munmap with a result";
	return NULL;
}

/* What is wrong with a record, or NULL: a constant, or msg (cap bytes) */
static const char *record_problem(const struct trace_reader *r, const struct mtrace_record *rec,
				  char *msg, size_t cap)
{
	if (mtrace_call_name(rec->call) == NULL || rec->call == MTRACE_CALL_UNWRITTEN) {
		snprintf(msg, cap, "unknown call type %u", rec->call);
		return msg;
	}
	if (rec->tid == 0)
		return "thread id 0";
	if (rec->flags & ~MTRACE_RF_KNOWN) {
		snprintf(msg, cap, "unknown record flags 0x%x", rec->flags);
		return msg;
	}
	if (r->hdr.pointer_size == 4 && ((rec->ptr | rec->result) >> 32))
		return "pointer wider than the trace's 4-byte pointers";
	if (rec->call == MTRACE_CALL_CHUNK) {
		unsigned unit = r->slots ? MTRACE_SLOT_SIZE : MTRACE_RECORD_SIZE;
		if (rec->size < unit || rec->size % unit)
			return "chunk record with a bad length";
		if ((r->hdr.flags & MTRACE_HF_CHUNK_PID) && rec->arg2 != (uint32_t)r->hdr.pid) {
			snprintf(msg, cap, "a chunk written by process %llu in the trace "
				 "of process %d: two processes wrote this file",
				 (unsigned long long)rec->arg2, (int)r->hdr.pid);
			return msg;
		}
		return NULL;
	}
	if (rec->call == MTRACE_CALL_FREE && rec->result != 0)
		return "free with a result";
	if ((rec->flags & MTRACE_RF_FAILED) && rec->result != 0)
		return "failed call with a non-null result";
	if (rec->call > MTRACE_CALL_LAST_API || (rec->flags & (MTRACE_RF_OWN | MTRACE_RF_RESIDENT)))
		return check_memory_record(r, rec, msg, cap);
	return NULL;
}

int trace_record_check(struct trace_reader *r, const struct mtrace_record *rec, uint64_t at)
{
	char msg[200];
	const char *bad = record_problem(r, rec, msg, sizeof msg);
	return bad ? trace_fail(r, at, "%s", bad) : 0;
}

/* ---------------------------------------------------------------------------------------------
   Chunks and the clock
   ------------------------------------------------------------------------------------------- */

void trace_chunk_seen(struct trace_reader *r, const struct mtrace_record *chunk, uint64_t at)
{
	if (r->n_chunks++ && chunk->ts == r->chunk_ts && r->n_stalls++ == 0)
		r->stall_off = at;
	r->chunk_ts = chunk->ts;
}

int trace_clock_stalled(const struct trace_reader *r, uint64_t threads, char *buf, size_t cap)
{
	if (r->n_stalls <= TRACE_STALLS_MAX || r->n_stalls < r->n_chunks / 8 || threads < 2)
		return 0;
	char a[32], b[32];
	snprintf(buf, cap, "%s: offset %llu: not valid for ordering: its order points do not "
		 "advance (%s of %s chunks taken at the clock value of the chunk before: the "
		 "clock, %s, stood still), so the calls of its %llu threads cannot be put in one "
		 "order",
		 r->name, (unsigned long long)r->stall_off, fmt_commas(a, r->n_stalls),
		 fmt_commas(b, r->n_chunks), trace_clock_name(r->hdr.clock),
		 (unsigned long long)threads);
	return 1;
}

const char *trace_stall_note(const struct trace_reader *r, char *buf, size_t cap)
{
	char a[32];
	if (r->n_stalls == 0)
		return "";
	snprintf(buf, cap, "; %s chunk%s taken at the clock value of the chunk before",
		 fmt_commas(a, r->n_stalls), r->n_stalls == 1 ? "" : "s");
	return buf;
}
