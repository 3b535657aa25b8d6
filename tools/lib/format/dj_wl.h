/* dj_wl.h - the original dj/malloc workload encoding, written from one of ours, so harnesses
 * built on the old trace_run can replay our conversions.
 *
 * That encoding: an opcode byte, then operands as unsigned varints, 7 bits a byte, most
 * significant group first, 0x80 on every byte but the last.  Opcodes: 0 NOP, 1 DONE,
 * 2 MALLOC (slot, size), 3 CALLOC (slot, size), 4 REALLOC (new slot, old slot, size), 5 FREE
 * (slot), 6 SYNC_W (id), 7 SYNC_R (id: wait until SYNC_W id ran), 8 ALLOC_PTRS (n),
 * 9 ALLOC_SYNCS (n), 10 NTHREADS (n), 11 START_THREAD (file offset of the stream), 12 MEMALIGN
 * (slot, alignment, size), 13 VALLOC (slot, size), 14 PVALLOC (slot, size).  The file starts
 * with ALLOC_PTRS, ALLOC_SYNCS, NTHREADS, one START_THREAD per thread and DONE; each stream
 * ends with DONE.  Slot 0 means NULL. */
#ifndef DJ_WL_H
#define DJ_WL_H
#include <stddef.h>
#include <stdint.h>
#include "msg.h"
#include "varint.h"

enum dj_op {
	DJ_NOP = 0, DJ_DONE = 1, DJ_MALLOC = 2, DJ_CALLOC = 3, DJ_REALLOC = 4, DJ_FREE = 5,
	DJ_SYNC_W = 6, DJ_SYNC_R = 7, DJ_ALLOC_PTRS = 8, DJ_ALLOC_SYNCS = 9, DJ_NTHREADS = 10,
	DJ_START_THREAD = 11, DJ_MEMALIGN = 12, DJ_VALLOC = 13, DJ_PVALLOC = 14,
	DJ_NONE = 255,   /* in mtrace-trace.h's call table: a call dj has no opcode for */
};

/* Write dj_path from our workload wl_path (temporary file, then rename).  0, or -1 with err. */
int dj_wl_write(const char *wl_path, const char *dj_path, struct tool_err *err);

/* What dj_wl_scan found in a dj workload. */
struct dj_wl_info {
	unsigned long long ptrs, syncs, nthreads;
	unsigned long long ops[15];            /* by opcode, all streams */
};

/* Read and validate a dj workload: preamble, every stream (offsets inside the file, each ending
   with DONE, operands well formed, slots < ALLOC_PTRS, sync ids <= ALLOC_SYNCS, every SYNC_R id
   written by some SYNC_W).  0, or -1 with err naming the byte offset. */
int dj_wl_scan(const char *path, struct dj_wl_info *info, struct tool_err *err);

/* Is this file a dj workload?  (It starts with ALLOC_PTRS and is not one of ours.) */
int dj_wl_sniff(const char *path);
/* Do the n bytes b begin as a dj/malloc workload does: ALLOC_PTRS, ALLOC_SYNCS and NTHREADS,
   each with its number?  (Strict, where dj_wl_sniff looks at one byte: for telling a workload
   from a trace, or garbage, in a message.  Inline: the trace reader, built alone into some
   test programs, uses it.) */
static inline int dj_wl_head(const unsigned char *b, size_t n)
{
	static const unsigned char want[] = { DJ_ALLOC_PTRS, DJ_ALLOC_SYNCS, DJ_NTHREADS };
	size_t i = 0;
	for (int k = 0; k < 3; k++) {
		if (i >= n || b[i++] != want[k])
			return 0;
		const uint8_t *p = b + i;
		uint64_t v;
		if (varint_be_get(&p, b + n, &v) < 0)
			return 0;
		i = (size_t)(p - b);
	}
	return 1;
}

/* Translate a dj workload into ours (out_path, via a temporary file): SYNC_R id becomes
   WAIT thread count, where the SYNC_W of id ran after that thread's count-th call.  0, or -1.
   progress (if not NULL) is called with arg every 2^16 operations with how many of the
   workload's operations are done (two passes: each counts half) and how many it has. */
int dj_wl_to_ours(const char *dj_path, const char *out_path, struct tool_err *err,
		  void (*progress)(uint64_t done, uint64_t total, void *arg), void *arg);
#endif
