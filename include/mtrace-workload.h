/* mtrace-workload.h - the workload file format (written by trace2wl, replayed by trace_run),
 * defined once for every writer and reader.
 *
 *     offset 0             struct mtrace_wl_header       (header_size bytes)
 *     header.thread_table  struct mtrace_wl_thread[nthreads]
 *     thread[i].offset     thread i's stream: operations, each an opcode byte and operands
 * (table and streams in any order after the header, none overlapping the table)
 *
 * Unlike traces, a workload has one byte order everywhere: header and thread table are
 * little-endian, and stream operands are unsigned LEB128 variable-length integers (7 bits a
 * byte, least significant group first, 0x80 set on every byte but the last).
 *
 * Replay model.  Blocks live in slots 1..nslots-1 of one table shared by all threads; slot 0
 * means NULL (a free of slot 0 is free(NULL); a result slot 0 means the result is not kept).
 * Each thread runs its stream in order.  A thread's op count is the number of calls it has
 * completed (WAIT, RESIDENT and AT are not calls).  WAIT t k makes the thread wait until thread
 * t's op count is at least k: the converter emits one wherever a block, slot or mapping passes
 * between threads and the order is not already implied, so a replayer needs one counter per
 * thread and nothing else.
 *
 * Version 2 adds what makes a replay's memory the program's: the program's own mappings as
 * calls on a second table of ids (MAP, UNMAP, REMAP), how much of a block or mapping the
 * program had resident (RESIDENT, after the call that made it), when a thread's next call
 * happened after it had been idle (AT), and a table of the program's memory samples.
 * See doc/workload-format.md.
 */
#ifndef MTRACE_WORKLOAD_H
#define MTRACE_WORKLOAD_H

#include <stdint.h>
#include "mtrace-trace.h"   /* MTRACE_SWAP */

#define MTRACE_WL_MAGIC      "MTRACEWL"
#define MTRACE_WL_MAGIC_LEN  8
#define MTRACE_WL_VERSION    2               /* what writers write */
#define MTRACE_WL_OLDEST     1               /* readers read OLDEST..VERSION */
#define MTRACE_WL_HEADER_SIZE 1024u

/* Opcodes: the low 7 bits; MTRACE_WL_FAILED may be or'ed into the call opcodes */
enum mtrace_wl_op {
	MTRACE_WL_END            = 0,   /* end of the stream */
	MTRACE_WL_MALLOC         = 1,   /* slot size */
	MTRACE_WL_CALLOC         = 2,   /* slot count size */
	MTRACE_WL_REALLOC        = 3,   /* newslot oldslot size */
	MTRACE_WL_FREE           = 4,   /* slot */
	MTRACE_WL_MEMALIGN       = 5,   /* slot alignment size */
	MTRACE_WL_POSIX_MEMALIGN = 6,   /* slot alignment size */
	MTRACE_WL_ALIGNED_ALLOC  = 7,   /* slot alignment size */
	MTRACE_WL_VALLOC         = 8,   /* slot size */
	MTRACE_WL_PVALLOC        = 9,   /* slot size */
	MTRACE_WL_REALLOCARRAY   = 10,  /* newslot oldslot count size */
	MTRACE_WL_LAST_CALL      = 10,  /* the allocator calls */
	/* version 2: the program's own anonymous mappings, calls like the others, on map ids */
	MTRACE_WL_MAP            = 11,  /* map length: a new mapping of length bytes in map */
	MTRACE_WL_UNMAP          = 12,  /* map offset length: the program unmapped those bytes of it
	                                   (offset from its start); once all are, it is gone */
	MTRACE_WL_REMAP          = 13,  /* map length: it grew or shrank to length bytes (mremap) */
	MTRACE_WL_LAST_MAP       = 13,
#define MTRACE_WL_MAP_OPS(counts) \
	((counts)[MTRACE_WL_MAP] + (counts)[MTRACE_WL_UNMAP] + (counts)[MTRACE_WL_REMAP])
	MTRACE_WL_WAIT           = 16,  /* thread opcount */
	/* version 2: not calls */
	MTRACE_WL_RESIDENT       = 17,  /* kib: right after a call that made a block or mapping,
	                                   how much of it the program had resident: kib - 1 KiB;
	                                   0 not known (never released while traced) */
	MTRACE_WL_AT             = 18,  /* usec: the thread had been idle; its next call happened
	                                   usec microseconds after the trace's start */
};
/* The traced call failed (NULL result, or posix_memalign returned an error); its result slot
   is 0.  For realloc and reallocarray the old block then stayed allocated. */
#define MTRACE_WL_FAILED 0x80u
#define MTRACE_WL_NCOUNTS 16

/* header flags */
#define MTRACE_WL_HF_FROM_DJ   0x1u   /* converted from an original dj/malloc trace */
#define MTRACE_WL_HF_RESIDENT  0x2u   /* version 2: blocks of resident_min bytes or more carry
                                         RESIDENT (the trace said what was resident) */
#define MTRACE_WL_HF_MAPPINGS  0x4u   /* version 2: the program's own mappings are in it (the
                                         trace recorded them; none is then "none") */
#define MTRACE_WL_HF_SAMPLES   0x8u   /* version 2: the table of memory samples is there */
#define MTRACE_WL_HF_PACE      0x10u  /* version 2: idle times of pace_us or more carry AT */

/* A memory sample of the traced program (version 2), little-endian in the file */
struct mtrace_wl_sample {
	uint64_t calls;                  /* calls completed by all threads when it was taken */
	uint64_t anon;                   /* the program's anonymous resident bytes */
	uint64_t rss;                    /* its resident bytes */
	uint64_t vmsize;                 /* its virtual size in bytes */
	uint64_t time_us;                /* microseconds since the trace's start */
};

struct mtrace_wl_header {
	char     magic[MTRACE_WL_MAGIC_LEN];
	uint32_t version;
	uint32_t header_size;            /* offset of what follows the header */
	uint32_t nthreads;
	uint32_t flags;
	uint64_t nslots;                 /* slot ids are < nslots; slot 0 is NULL */
	uint64_t ncalls;                 /* calls in all streams */
	uint64_t nwaits;                 /* WAIT operations in all streams */
	uint64_t ideal_rss;              /* peak over time of the requested bytes of live blocks */
	uint64_t ideal_rss_call;         /* how many calls (all threads) had run at that peak */
	uint64_t counts[MTRACE_WL_NCOUNTS];   /* calls by opcode; [0] is unused */
	uint64_t failed;                 /* calls flagged MTRACE_WL_FAILED */
	uint64_t thread_table;           /* file offset of the thread table */
	uint64_t file_size;              /* readers check the file is this long */
	int32_t  pid;                    /* of the traced process (0 unknown) */
	uint32_t max_live_threads;       /* the most threads alive at once in the trace (each from
	                                    its first call to its last); 0 unknown (older files) */
	char     program[256];           /* the traced executable, NUL-terminated, may be empty */
	char     settings[384];          /* the allocators' settings the program ran with (the
	                                    trace header's, NAME=VALUE separated by spaces),
	                                    NUL-terminated, may be empty; cut at a setting's end
	                                    when too long.  After its NUL, where they fit whole:
	                                    those of them the program set as it ran (its mallopt
	                                    calls, its allocator's control interface), the same
	                                    way, NUL-terminated; empty in older files */
	char     allocator[64];          /* the file name of the allocator traced (libc.so.6,
	                                    libjemalloc.so.2, ...), NUL-terminated; empty:
	                                    unknown */
	/* version 2 (zero in version 1) */
	uint64_t nmaps;                  /* map ids are < nmaps */
	uint64_t samples;                /* file offset of the sample table
	                                    (MTRACE_WL_HF_SAMPLES) */
	uint64_t nsamples;               /* its entries, in the order taken */
	uint64_t mapped_peak;            /* the most bytes the program had mapped itself at once */
	uint64_t duration_us;            /* from the trace's start to its last record */
	uint32_t pace_us;                /* the idle time an AT marks (MTRACE_WL_HF_PACE) */
	uint32_t resident_min;           /* the smallest block with a RESIDENT
	                                    (MTRACE_WL_HF_RESIDENT) */
	uint64_t reserved[6];            /* zero */
};

struct mtrace_wl_thread {
	uint64_t offset;                 /* of the stream */
	uint64_t length;                 /* bytes, including the final MTRACE_WL_END */
	uint64_t ncalls;                 /* calls in the stream */
	uint32_t tid;                    /* the traced thread */
	uint32_t reserved;
};

#ifdef __cplusplus
#define MTRACE_WL_STATIC_ASSERT static_assert
#else
#define MTRACE_WL_STATIC_ASSERT _Static_assert
#endif
MTRACE_WL_STATIC_ASSERT(sizeof(struct mtrace_wl_header) == MTRACE_WL_HEADER_SIZE,
			"workload header is 1024 bytes");
MTRACE_WL_STATIC_ASSERT(sizeof(struct mtrace_wl_thread) == 32, "thread entry is 32 bytes");
MTRACE_WL_STATIC_ASSERT(sizeof(struct mtrace_wl_sample) == 40, "sample is 40 bytes");

/* The header and the thread table are little-endian in the file.  These turn them from host
   order to file order and back (the same swap; nothing to do on a little-endian machine). */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define MTRACE_WL_BIG_ENDIAN 1
#endif

static inline void mtrace_wl_header_le(struct mtrace_wl_header *h)
{
#ifdef MTRACE_WL_BIG_ENDIAN
	MTRACE_SWAP(h->version);
	MTRACE_SWAP(h->header_size);
	MTRACE_SWAP(h->nthreads);
	MTRACE_SWAP(h->flags);
	MTRACE_SWAP(h->nslots);
	MTRACE_SWAP(h->ncalls);
	MTRACE_SWAP(h->nwaits);
	MTRACE_SWAP(h->ideal_rss);
	MTRACE_SWAP(h->ideal_rss_call);
	for (unsigned i = 0; i < MTRACE_WL_NCOUNTS; i++)
		MTRACE_SWAP(h->counts[i]);
	MTRACE_SWAP(h->failed);
	MTRACE_SWAP(h->thread_table);
	MTRACE_SWAP(h->file_size);
	MTRACE_SWAP(h->pid);
	MTRACE_SWAP(h->max_live_threads);
	MTRACE_SWAP(h->nmaps);
	MTRACE_SWAP(h->samples);
	MTRACE_SWAP(h->nsamples);
	MTRACE_SWAP(h->mapped_peak);
	MTRACE_SWAP(h->duration_us);
	MTRACE_SWAP(h->pace_us);
	MTRACE_SWAP(h->resident_min);
#else
	(void)h;
#endif
}

static inline void mtrace_wl_sample_le(struct mtrace_wl_sample *s)
{
#ifdef MTRACE_WL_BIG_ENDIAN
	MTRACE_SWAP(s->calls);
	MTRACE_SWAP(s->anon);
	MTRACE_SWAP(s->rss);
	MTRACE_SWAP(s->vmsize);
	MTRACE_SWAP(s->time_us);
#else
	(void)s;
#endif
}

static inline void mtrace_wl_thread_le(struct mtrace_wl_thread *t)
{
#ifdef MTRACE_WL_BIG_ENDIAN
	MTRACE_SWAP(t->offset);
	MTRACE_SWAP(t->length);
	MTRACE_SWAP(t->ncalls);
	MTRACE_SWAP(t->tid);
#else
	(void)t;
#endif
}

/* In the call table (mtrace-trace.h): no opcode stands for the record */
#define MTRACE_WL_NONE 0xffu

/* An allocator call's operands in a workload, from its trace operands (MTRACE_OPD_*): its
   slot (the result's; a free's block), the old block's slot when it has both, then alignment,
   element count or size as the call takes them, the size (bytes) last */
#define MTRACE_WL_OPERANDS_OF(opd) \
	(!!((opd) & MTRACE_OPD_RESULT) + !!((opd) & MTRACE_OPD_PTR) + \
	 !!((opd) & MTRACE_OPD_SIZE) + !!((opd) & MTRACE_OPD_COUNT) + !!((opd) & MTRACE_OPD_ALIGN))

/* The trace operands (MTRACE_OPD_*) of an allocator call's opcode; 0 for the other opcodes */
static inline unsigned mtrace_wl_call_operands(unsigned op)
{
#define MTRACE_CASE_(c, v, n, wl, order, opd, ...) case MTRACE_WL_##wl: return opd;
	switch (op & 0x7f) {
	MTRACE_CALLS_API(MTRACE_CASE_)
	default: return 0;
	}
#undef MTRACE_CASE_
}

/* Is op an allocator call's opcode with every operand flag of want?  (As mtrace_call_has: a
   mask of the opcodes, one bit test with want a constant) */
static inline int mtrace_wl_has(unsigned op, unsigned want)
{
#define MTRACE_BIT_(c, v, n, wl, order, opd, ...) \
	| (((opd) & want) == want ? 1ull << MTRACE_WL_##wl : 0)
	uint64_t ops = 0 MTRACE_CALLS_API(MTRACE_BIT_);
#undef MTRACE_BIT_
	op &= 0x7f;
	return op < 64 && (ops >> op & 1);
}

/* Does opcode op take an old block's slot as its second operand (realloc's kind)? */
static inline int mtrace_wl_resizes(unsigned op)
{
	return mtrace_wl_has(op, MTRACE_OPD_PTR | MTRACE_OPD_RESULT);
}

/* Operand counts of each opcode (-1 for unknown ones). */
static inline int mtrace_wl_operands(unsigned op)
{
#define MTRACE_CASE_(c, v, n, wl, order, opd, ...) \
	case MTRACE_WL_##wl: return MTRACE_WL_OPERANDS_OF(opd);
	switch (op & 0x7f) {
	case MTRACE_WL_END: return 0;
	MTRACE_CALLS_API(MTRACE_CASE_)
	case MTRACE_WL_RESIDENT: case MTRACE_WL_AT: return 1;
	case MTRACE_WL_MAP: case MTRACE_WL_REMAP: return 2;
	case MTRACE_WL_UNMAP: return 3;
	case MTRACE_WL_WAIT: return 2;
	default: return -1;
	}
#undef MTRACE_CASE_
}

/* Is op a call (what a thread's op count counts)? */
static inline int mtrace_wl_is_call(unsigned op)
{
	return (op & 0x7f) - 1u < MTRACE_WL_LAST_MAP;   /* 1 to LAST_MAP, in one compare */
}

static inline const char *mtrace_wl_op_name(unsigned op)
{
#define MTRACE_NAME_(c, v, name, wl, ...) [MTRACE_WL_##wl] = name,
	static const char *const names[] = {
		[MTRACE_WL_END] = "end", MTRACE_CALLS_API(MTRACE_NAME_)
		[MTRACE_WL_MAP] = "map", [MTRACE_WL_UNMAP] = "unmap", [MTRACE_WL_REMAP] = "remap",
		[MTRACE_WL_WAIT] = "wait", [MTRACE_WL_RESIDENT] = "resident", [MTRACE_WL_AT] = "at",
	};
#undef MTRACE_NAME_
	op &= 0x7f;
	return op <= MTRACE_WL_AT ? names[op] : 0;
}

#endif
