/* anonymize.c - see anonymize.h.  What an anonymized trace keeps of its header: the format's
 * fields, the clock's rate, the flags (with MTRACE_HF_PRIVATE, without MTRACE_HF_STACKS: no
 * call stacks, loaded objects or names), why and when tracing stopped,
 * the program's mallopt calls, the allocators' settings that anon_settings keeps and the
 * allocator's file name.  Its records keep every size, flag, error and duration; addresses,
 * thread ids and times are replaced, consistently, so that conversion and replay give the same
 * result. */
#include <string.h>
#include "anonymize.h"
#include "tool.h"
#include "trace_reader.h"
#include "u64map.h"

/* ---------------------------------------------------------------------------------------------
   Addresses: the high bits replaced by a counter, the low 16 kept; thread ids by a counter
   ------------------------------------------------------------------------------------------- */

#define KEEP_BITS 16

struct anon { struct u64map hi, tids; uint64_t next, next_tid; int ptr32; };

static uint64_t anon_addr(struct anon *a, uint64_t p)
{
	if (p == 0)
		return 0;
	uint64_t hi = p >> KEEP_BITS, *v = u64map_get(&a->hi, hi + 1);
	if (!v) {
		if (u64map_put(&a->hi, hi + 1, ++a->next) < 0)
			tool_die(EXIT_SYSTEM, "out of memory");
		v = u64map_get(&a->hi, hi + 1);
	}
	uint64_t low = p & ((1u << KEEP_BITS) - 1);
	/* a trace of 4-byte pointers keeps them within 32 bits: stand-ins from 0x10000, room for
	   the 0xffff high parts a program can have (nothing is mapped below 64 KiB) */
	if (a->ptr32) {
		if (*v > 0xffff)
			tool_die(EXIT_BADFILE,
				 "--anonymize: addresses in all 65,536 ranges of 64 KiB, "
				 "more than stand-ins of 4 bytes can tell apart");
		return (*v << KEEP_BITS) | low;
	}
	/* stand-ins start at 0x100000000: never NULL, never mistaken for a small number */
	return ((*v + 0xffff) << KEEP_BITS) | low;
}

/* A mapping's range [p, p + len): its 64 KiB parts not met yet get consecutive stand-ins, so
   that a munmap of part of it still falls inside it (up to 4 GiB of it: a larger reservation
   would cost a map entry per 64 KiB) */
static void anon_range(struct anon *a, uint64_t p, uint64_t len)
{
	if (len == 0 || p + len < p)
		return;
	uint64_t first = p >> KEEP_BITS, last = (p + len - 1) >> KEEP_BITS;
	for (uint64_t hi = first; hi <= last && hi - first < (1u << 16); hi++)
		anon_addr(a, hi << KEEP_BITS);
}

/* Thread ids 1, 2, 3 ... in the order met (the main thread's id is the process's pid) */
static uint32_t anon_tid(struct anon *a, uint32_t tid)
{
	uint64_t *v = u64map_get(&a->tids, tid);
	if (!v && u64map_put(&a->tids, tid, ++a->next_tid) < 0)
		tool_die(EXIT_SYSTEM, "out of memory");
	return (uint32_t)(v ? *v : a->next_tid);
}

/* ---------------------------------------------------------------------------------------------
   The header
   ------------------------------------------------------------------------------------------- */

/* r's header cleaned, with its strings, into page (h.header_size bytes); times from base on */
static void anon_header(const struct trace_reader *r, uint64_t base, unsigned char *page)
{
	struct mtrace_file_header h = r->hdr;
	h.exe_offset = h.exe_len = h.cmdline_offset = h.cmdline_len = 0;
	h.flags |= MTRACE_HF_PRIVATE;
	/* the call stacks say what code ran, and the objects' paths where: their records read as
	   unwritten slots (the reader skips them unasked) */
	h.flags &= ~(MTRACE_HF_STACKS | MTRACE_HF_STACK_IDS);
	h.stack_depth = 0;
	h.pid = h.ppid = 0;
	h.start_time_ns = 0;
	/* the clock's readings say how long the machine has been up: they count from base */
	h.start_ticks -= base;
	if (h.stop_ticks)
		h.stop_ticks = h.stop_ticks > base ? h.stop_ticks - base : 1;
	memset(h.reserved, 0, sizeof h.reserved);
	memset(page, 0, h.header_size);
	/* the strings from the header bytes still in the reader's buffer */
	uint32_t at = MTRACE_HEADER_STRINGS, cap = h.header_size - MTRACE_HEADER_STRINGS;
	h.settings_len = (uint32_t)anon_settings(r->buf + h.settings_offset, h.settings_len,
						 (char *)page + at, cap);
	h.settings_offset = h.settings_len ? at : 0;
	at += h.settings_len;
	const unsigned char *path = r->buf + h.allocator_offset, *name = path;
	for (uint32_t i = 0; i < h.allocator_len; i++)
		if (path[i] == '/')
			name = path + i + 1;
	h.allocator_len -= (uint32_t)(name - path);   /* (no longer than the path: it fits) */
	memcpy(page + at, name, h.allocator_len);
	h.allocator_offset = h.allocator_len ? at : 0;
	memcpy(page, &h, sizeof h);
}

/* ---------------------------------------------------------------------------------------------
   The records
   ------------------------------------------------------------------------------------------- */

void anonymize(const char *in, FILE *out, uint64_t first_ts)
{
	struct trace_reader r;
	trace_reader_decompress = 1;
	if (trace_open(&r, in) < 0)
		tool_die(EXIT_BADFILE, "%s", r.err.msg);
	if (r.format != TRACE_FMT_MTRACE)
		tool_die(EXIT_BADFILE,
			 "%s: --anonymize rewrites mtrace traces; an original dj/malloc trace has "
			 "no header to clean (compress it without --anonymize)",
			 tool_display_name(in));
	static unsigned char page[MTRACE_HEADER_MAX + 1];
	uint64_t base = first_ts < r.hdr.start_ticks ? first_ts : r.hdr.start_ticks;
	anon_header(&r, base, page);
	fwrite(page, 1, r.hdr.header_size, out);
	const struct mtrace_file_header *h = &r.hdr;
	struct anon a = { .ptr32 = h->pointer_size == 4 };
	struct mtrace_record rec;
	uint64_t off, next = h->header_size;
	static const unsigned char zero[256];
	int k;
	/* a version-3 trace's records are encoded again, in as many slots as they took: the
	   encoding depends on nothing anonymizing changes */
	unsigned unit = r.slots ? MTRACE_SLOT_SIZE : h->record_size;
	int durations = (h->flags & MTRACE_HF_DURATIONS) != 0;
	int ids = (h->flags & MTRACE_HF_STACK_IDS) != 0;
	while ((k = trace_next(&r, &rec, &off)) > 0) {
		for (; next < off; next += unit)   /* unwritten records stay unwritten */
			fwrite(zero, 1, unit, out);
		if (rec.call >= MTRACE_CALL_MMAP && rec.call <= MTRACE_CALL_LAST_MAP &&
		    !(rec.flags & MTRACE_RF_FAILED))
			anon_range(&a,
				   rec.call == MTRACE_CALL_BRK
					   ? (rec.ptr < rec.result ? rec.ptr : rec.result)
					   : rec.result,
				   rec.call == MTRACE_CALL_BRK
					   ? (rec.ptr < rec.result ? rec.result - rec.ptr
								   : rec.ptr - rec.result)
					   : rec.size);
		/* a chunk's ptr is a file offset, not an address; its arg2 the pid */
		if (rec.call == MTRACE_CALL_CHUNK)
			rec.arg2 = 0;
		else {
			rec.ptr = anon_addr(&a, rec.ptr);
			rec.result = anon_addr(&a, rec.result);
		}
		rec.tid = anon_tid(&a, rec.tid);
		rec.ts -= base;
		if (r.slots) {
			struct mtrace_slot sl[2];
			/* (version 6 wrote wide what left no room for a stack id: wide again) */
			int wide = ids && mtrace_call_has_stack(rec.call) &&
				   !mtrace_stack_fits(rec.call, rec.size, rec.arg2);
			unsigned n = mtrace_encode(&rec, durations || wide, sl);
			fwrite(sl, sizeof sl[0], n, out);
			next = off + n * MTRACE_SLOT_SIZE;
			continue;
		}
		fwrite(&rec, sizeof rec, 1, out);
		if (h->record_size > sizeof rec)
			fwrite(zero, 1, h->record_size - sizeof rec, out);
		next = off + h->record_size;
	}
	if (k < 0)
		tool_die(EXIT_BADFILE, "%s", r.err.msg);
	trace_close(&r);
	u64map_free(&a.hi);
	u64map_free(&a.tids);
}
