/* mtrace-trace.h - the trace file format, defined once for every writer and reader.
 *
 * A trace is one file per traced process:
 *
 *     offset 0                   struct mtrace_file_header   (header_size bytes, 4096 today)
 *     offset header_size         record, record, record ...  (record_size bytes each: 32 in
 *                                version 3, 64 in versions 1 and 2)
 *
 * Every integer is stored in the writer's byte order; byte_order_mark tells a reader which one
 * (it reads 0x01020304 when the orders agree, 0x04030201 when it must swap).  Pointers are stored
 * in 64-bit fields whatever the writer's pointer size (pointer_size says what it was), so the
 * layout is the same on every architecture.
 *
 * Records are not in global order: each thread reserves a chunk of records at a time and fills it
 * in its own call order, so the file is a patchwork of per-thread runs.  Every chunk starts with an
 * MTRACE_CALL_CHUNK record.  The global order is recovered from the order points (see the
 * timestamp rules below).  A record is written field by field and committed last by storing its
 * first 8 bytes (its commit word: call, flags, ...) with release semantics; a record whose call
 * is MTRACE_CALL_UNWRITTEN was never committed (space a thread reserved and did not fill, the
 * tail of a file whose process was killed) and is skipped.  Readers never trust a record count.
 * Unwritten records come in runs of MTRACE_UNWRITTEN_RUN_MAX bytes at most (below reset_off
 * aside); a longer run is not a trace.
 *
 * Version 3 stores records in 32 bytes (struct mtrace_slot): the thread id is the chunk's, the
 * usable size is kept as its difference from the request, and what does not fit (realloc, rare
 * wide values, durations) takes two consecutive slots in the 64-byte layout (MTRACE_RF_WIDE).
 * Readers decode every version into struct mtrace_record (mtrace_decode below).  Version 4 is
 * version 3 with LIVE records at the end (MTRACE_HF_LIVE).  Version 5 adds the extended records
 * (call stacks, loaded objects, names: see "Extended records" below).  Version 6 lets an
 * allocating record hold its stack's id itself, with no CALLER slot (MTRACE_HF_STACK_IDS).
 *
 * See doc/trace-format.md for the prose version.
 */
#ifndef MTRACE_TRACE_H
#define MTRACE_TRACE_H

#include <stdint.h>

#define MTRACE_MAGIC            "MTRACE\0\x1a"   /* 8 bytes; \x1a stops `type` on DOS-like tools */
#define MTRACE_MAGIC_LEN        8
#define MTRACE_BYTE_ORDER_MARK  0x01020304u
#define MTRACE_FORMAT_VERSION   6               /* what writers write */
#define MTRACE_FORMAT_OLDEST    1               /* readers read versions OLDEST..VERSION */
#define MTRACE_HEADER_SIZE      4096u           /* what writers use; readers honour header_size */
#define MTRACE_RECORD_SIZE      64u             /* struct mtrace_record: versions 1 and 2 */
#define MTRACE_SLOT_SIZE        32u             /* struct mtrace_slot: version 3 */
#define MTRACE_HEADER_MAX       65535u          /* header_size is 16 bits */
/* The longest run of unwritten records (call 0) a trace has at or after reset_off: the tail of
   a chunk (64 KiB at most), chunks taken whose first record was not written yet, and the space
   reserved ahead of the records in the file of a process killed or exec'd (64 MiB at most,
   and the populating thread's 4 MiB ahead, in 2 MiB units).  Readers refuse a longer run. */
#define MTRACE_UNWRITTEN_RUN_MAX ((uint64_t)128 << 20)

/* ---------------------------------------------------------------------------------------------
   Header
   ------------------------------------------------------------------------------------------- */

/* clock: what the timestamps count */
enum mtrace_clock {
	MTRACE_CLOCK_NONE      = 0,
	MTRACE_CLOCK_TSC       = 1,     /* x86 invariant time-stamp counter */
	MTRACE_CLOCK_MONOTONIC = 2,     /* clock_gettime(CLOCK_MONOTONIC), ns */
	MTRACE_CLOCK_CNTVCT    = 3,     /* aarch64 virtual counter */
	MTRACE_CLOCK_COUNTER   = 4,     /* no clock: a count the writer takes at each order point,
	                                   an order without time (ticks_per_sec is nominal).  A
	                                   writer whose clock stopped advancing switches to it
	                                   midway: the count starts above every earlier ts */
	MTRACE_CLOCK_TSC_LFENCE = 5,    /* the x86 invariant TSC as clock 1, read with LFENCE+RDTSC
	                                   on a CPU without RDTSCP: the same cycles */
	MTRACE_CLOCK_MAX       = 5
};

/* header flags */
#define MTRACE_HF_DURATIONS   0x1u  /* duration is filled for every call, not only realloc */
#define MTRACE_HF_GLIBC       0x2u  /* allocator beneath was glibc: MMAP/ARENA/BRK flags
                                       meaningful */
#define MTRACE_HF_PRIVATE     0x4u  /* exe and cmdline deliberately left out */
#define MTRACE_HF_FINISHED    0x8u  /* the writer stopped cleanly (absent after a crash or exec) */
#define MTRACE_HF_CHUNK_BOUND 0x10u /* no record precedes the ts of its chunk (see chunk records) */
#define MTRACE_HF_BYPASSED    0x20u /* some entry points resolve to a definition ahead of the
                                       tracer's (the program's own allocator): not recorded */
#define MTRACE_HF_STOPPED_EARLY 0x40u /* recording stopped before the process did, on a failure
                                       (stop_reason, stop_errno): the records end there */
#define MTRACE_HF_MAPPINGS    0x80u /* version 2: the program's own mappings are recorded (calls
                                       MMAP..BRK); without it a trace says nothing of them */
#define MTRACE_HF_RESIDENT    0x100u /* version 2: frees, reallocs and munmaps of blocks of at least
                                       resident_min bytes say how much of them was resident
                                       (MTRACE_RF_RESIDENT) */
#define MTRACE_HF_MEMORY      0x200u /* version 2: the process's memory is sampled
                                       (MTRACE_CALL_MEMORY records), every memory_interval_ms
                                       at most */
#define MTRACE_HF_CHUNK_PID   0x400u /* version 2: every chunk record holds the writing process's
                                       pid (arg2); a chunk of another process means two processes
                                       wrote the file, which readers refuse */
#define MTRACE_HF_MIDWAY      0x800u /* version 3: recording began in the middle of the process's
                                       life (switched on from outside), with start_threads
                                       threads alive: blocks freed may predate the trace */
#define MTRACE_HF_LIVE        0x1000u /* version 4: a writer that stops ends its trace with a LIVE
                                       record for each block of at least resident_min bytes
                                       still allocated (as many as its table held: see
                                       live_untracked) */
#define MTRACE_HF_STACKS      0x2000u /* version 5: every allocating call's record is preceded by a
                                       CALLER record naming its call stack (STACK records;
                                       version 6: or holds it, MTRACE_HF_STACK_IDS),
                                       stack_depth frames at most; OBJECT records say where
                                       the program's code was loaded */
#define MTRACE_HF_STACK_IDS   0x4000u /* version 6, with MTRACE_HF_STACKS: an allocating call's
                                       record holds its stack's id (mtrace_take_stack); a
                                       CALLER precedes only those whose stack has none */
#define MTRACE_HF_KNOWN       0x7fffu

/* stop_reason: why the writer gave up (MTRACE_HF_STOPPED_EARLY) */
enum mtrace_stop_reason {
	MTRACE_STOP_NONE        = 0,
	MTRACE_STOP_NO_SPACE    = 1,    /* disk blocks could not be reserved (a full disk) */
	MTRACE_STOP_FSIZE       = 2,    /* the file size limit, RLIMIT_FSIZE */
	MTRACE_STOP_MAX_SIZE    = 3,    /* the size cap asked for (MTRACE_CTL_MAX_SIZE) */
	MTRACE_STOP_CLOSED      = 4,    /* the program closed the file; it could not be reopened */
	MTRACE_STOP_MAP         = 5,    /* a window of the file could not be mapped */
	MTRACE_STOP_TOO_LARGE   = 6,    /* the largest trace this build can address */
	MTRACE_STOP_SANDBOX     = 7,    /* the program installed a seccomp filter or strict mode:
	                                   the trace was finished before it took effect */
	MTRACE_STOP_OVERLAP     = 8,    /* the program unmapped, protected or mapped over the
	                                   trace's memory */
	MTRACE_STOP_UNREACHABLE = 9,    /* the program changed its root directory or its user, then
	                                   closed the descriptors the tracer kept for the file */
	MTRACE_STOP_BACKLOG     = 10,   /* what the sender (mtracectl --send) had not delivered
	                                   passed its bound (--backlog): the link was down too long */
	MTRACE_STOP_MAX         = 10
};

/* mallopt parameters (glibc's malloc.h numbers) a header records the program's settings of */
#define MTRACE_MALLOPT_PARAMS 9
static const struct { int param; const char *name; } mtrace_mallopt_params[MTRACE_MALLOPT_PARAMS]
	__attribute__((unused)) = {
	{ 1, "M_MXFAST" }, { -1, "M_TRIM_THRESHOLD" }, { -2, "M_TOP_PAD" },
	{ -3, "M_MMAP_THRESHOLD" }, { -4, "M_MMAP_MAX" }, { -5, "M_CHECK_ACTION" },
	{ -6, "M_PERTURB" }, { -7, "M_ARENA_TEST" }, { -8, "M_ARENA_MAX" },
};

struct mtrace_file_header {
	char     magic[MTRACE_MAGIC_LEN];
	uint32_t byte_order_mark;       /* MTRACE_BYTE_ORDER_MARK in the writer's order */
	uint16_t version;               /* MTRACE_FORMAT_VERSION */
	uint16_t header_size;           /* offset of the first record; >= sizeof this struct */
	uint16_t record_size;           /* >= 64; readers use the first 64 bytes of each */
	uint8_t  pointer_size;          /* 4 or 8 */
	uint8_t  clock;                 /* enum mtrace_clock */
	uint32_t flags;                 /* MTRACE_HF_* */
	uint64_t ticks_per_sec;         /* of clock; refined when the writer stops */
	int64_t  start_time_ns;         /* CLOCK_REALTIME at start, ns since the epoch */
	uint64_t start_ticks;           /* clock value at the same moment */
	int32_t  pid;
	int32_t  ppid;                  /* for a fork child: the process that forked it */
	uint32_t exe_offset;            /* exe path: bytes at header + exe_offset, exe_len long */
	uint32_t exe_len;
	uint32_t cmdline_offset;        /* argv, each argument followed by a NUL */
	uint32_t cmdline_len;
	uint64_t stop_ticks;            /* clock value when the writer stopped; 0 if it did not */
	uint64_t calls_recorded;        /* the tracer's count of allocator calls when it stopped
	                                   (the program's own mapping calls not among them), for
	                                   a summary (readers count the records themselves); 0 if
	                                   it did not stop, or a tool wrote the trace */
	uint32_t stop_reason;           /* enum mtrace_stop_reason, with MTRACE_HF_STOPPED_EARLY */
	int32_t  stop_errno;            /* the error the writer met then (ENOSPC, EFBIG, ...) */
	uint32_t settings_offset;       /* the allocators' settings in the process's environment
	                                   (GLIBC_TUNABLES, MALLOC_*, MIMALLOC_*, TCMALLOC_*), each
	                                   NAME=VALUE followed by a NUL; settings_len 0: none.
	                                   Then, after an empty string, those the program set as
	                                   it ran through its allocator's control interface, as
	                                   its environment would say them (MALLOC_CONF=KEY:VALUE,
	                                   ...; MIMALLOC_NAME=VALUE): readers merge them in */
	uint32_t settings_len;
	uint32_t allocator_offset;      /* the path of the object that served the calls (libc.so.6,
	                                   libjemalloc.so.2, ...); allocator_len 0: unknown */
	uint32_t allocator_len;
	uint32_t mallopt_set;           /* bit i: the program set mallopt parameter
	                                   mtrace_mallopt_params[i], last to mallopt_value[i] */
	int32_t  mallopt_value[MTRACE_MALLOPT_PARAMS];
	uint32_t memory_interval_ms;    /* version 2, with MTRACE_HF_MEMORY: the shortest time
	                                   between two memory samples */
	uint32_t resident_min;          /* version 2, with MTRACE_HF_RESIDENT: the smallest block
	                                   whose resident bytes are recorded */
	uint64_t reset_off;             /* version 3: mtrace_reset discarded the records below this
	                                   offset; readers skip what is left there (calls being
	                                   written at the reset, whose chunk records are gone) */
	uint32_t start_threads;         /* version 3, with MTRACE_HF_MIDWAY: the threads alive when
	                                   recording began */
	uint32_t window;                /* version 3, with MTRACE_HF_MIDWAY: which of the process's
	                                   windows switched on from outside this is (1, 2, ...) */
	uint64_t live_untracked;        /* version 4, with MTRACE_HF_LIVE: large blocks allocated
	                                   while recording that the writer's table had no room for:
	                                   those still allocated at the end have no LIVE record */
	uint32_t stack_depth;           /* version 5, with MTRACE_HF_STACKS: the most frames a
	                                   STACK record holds (the capture's --stacks=DEPTH) */
	uint32_t stacks_dropped;        /* version 5, with MTRACE_HF_STACKS: allocating calls whose
	                                   stack the writer's table had no room for (their CALLER
	                                   names stack 0), at most UINT32_MAX */
	uint64_t reserved[40];          /* zero; room for later fields without a version change */
	/* 512 bytes so far; the strings follow inside header_size */
};

#define MTRACE_HEADER_STRINGS 512u   /* where writers put the strings */

/* ---------------------------------------------------------------------------------------------
   Records
   ------------------------------------------------------------------------------------------- */

/*
 * The call types, one line each: everything the tracer and the tools know of a call that is
 * not its own code (the wrapper in malloc/, the replay's call in tools/trace_run/replay_loop.c,
 * trace_dump's wording).  Every per-call table and test is generated from these lines:
 *
 *     X(CALL, value, name, wl, order, operands, lat, dj)
 *
 *   CALL      MTRACE_CALL_CALL, of value (values 1..8 match the original dj/malloc traces)
 *   name      for people (mtrace_call_name)
 *   wl        the workload opcode it becomes, MTRACE_WL_wl (mtrace-workload.h), or NONE
 *   order     its order points (the timestamp rules below): MTRACE_ORDER_order
 *   operands  what its fields hold: MTRACE_OPD_* flags
 *   lat       the class of its call times, LAT_lat (the tools' lat_hist.h), or NONE
 *   dj        the nearest original dj/malloc opcode, DJ_dj (the tools' dj_wl.h), or NONE
 *
 * A new call type is a line in MTRACE_CALLS_API (an allocator call: every column filled) or
 * MTRACE_CALLS_MAP (a mapping call of the program's), and its wrapper.
 */
#define MTRACE_CALLS_API(X) \
	X(MALLOC,          1, "malloc",         MALLOC,         AFTER,  MTRACE_OPD_ALLOC, \
	  MALLOC,   MALLOC) \
	X(CALLOC,          2, "calloc",         CALLOC,         AFTER,  MTRACE_OPD_ALLOC | \
	  MTRACE_OPD_COUNT, CALLOC, CALLOC) \
	X(FREE,            3, "free",           FREE,           BEFORE, MTRACE_OPD_PTR | \
	  MTRACE_OPD_RESIDENT, FREE, FREE) \
	X(REALLOC,         4, "realloc",        REALLOC,        BOTH,   MTRACE_OPD_ALLOC | \
	  MTRACE_OPD_PTR | MTRACE_OPD_RESIDENT, REALLOC, REALLOC) \
	X(MEMALIGN,        5, "memalign",       MEMALIGN,       AFTER,  MTRACE_OPD_ALLOC | \
	  MTRACE_OPD_ALIGN, MEMALIGN, MEMALIGN) \
	X(VALLOC,          6, "valloc",         VALLOC,         AFTER,  MTRACE_OPD_ALLOC, \
	  MEMALIGN, VALLOC) \
	X(PVALLOC,         7, "pvalloc",        PVALLOC,        AFTER,  MTRACE_OPD_ALLOC, \
	  MEMALIGN, PVALLOC) \
	X(POSIX_MEMALIGN,  8, "posix_memalign", POSIX_MEMALIGN, AFTER,  MTRACE_OPD_ALLOC | \
	  MTRACE_OPD_ALIGN | MTRACE_OPD_RETURNS_ERR, MEMALIGN, MEMALIGN) \
	X(ALIGNED_ALLOC,   9, "aligned_alloc",  ALIGNED_ALLOC,  AFTER,  MTRACE_OPD_ALLOC | \
	  MTRACE_OPD_ALIGN, MEMALIGN, MEMALIGN) \
	X(REALLOCARRAY,   10, "reallocarray",   REALLOCARRAY,   BOTH,   MTRACE_OPD_ALLOC | \
	  MTRACE_OPD_PTR | MTRACE_OPD_COUNT, REALLOC, REALLOC)
/* version 2: the program's own mappings (with MTRACE_HF_MAPPINGS); anonymous ones only.
   mmap: ptr = address asked for, size = length, arg2 = prot | flags << 32 -> result;
   munmap: ptr, size = length; mremap: ptr, arg2 = old length, size = new length -> result;
   brk (the program moved the break itself, brk or sbrk): ptr = the break before -> result =
   after (its workload opcode follows from which way the break moved) */
#define MTRACE_CALLS_MAP(X) \
	X(MMAP,           11, "mmap",           MAP,            AFTER,  MTRACE_OPD_MAPPING | \
	  MTRACE_OPD_RESULT | MTRACE_OPD_SIZE, NONE, NONE) \
	X(MUNMAP,         12, "munmap",         UNMAP,          BEFORE, MTRACE_OPD_MAPPING | \
	  MTRACE_OPD_PTR | MTRACE_OPD_SIZE | MTRACE_OPD_RESIDENT, NONE, NONE) \
	X(MREMAP,         13, "mremap",         REMAP,          BOTH,   MTRACE_OPD_MAPPING | \
	  MTRACE_OPD_PTR | MTRACE_OPD_RESULT | MTRACE_OPD_SIZE, NONE, NONE) \
	X(BRK,            14, "brk",            NONE,           AFTER,  MTRACE_OPD_MAPPING | \
	  MTRACE_OPD_PTR | MTRACE_OPD_RESULT, NONE, NONE)
/* bookkeeping, not calls.  chunk: the first record of a chunk (see below).  memory (version
   2, MTRACE_HF_MEMORY): a sample of the process's memory: size = anonymous resident bytes
   (statm's resident less shared), arg2 = resident bytes, usable = virtual size.  live
   (version 4, MTRACE_HF_LIVE): a block of at least resident_min bytes still allocated when the
   writer stopped: ptr = the block, size = its usable size, arg2 = its bytes resident then (its
   whole pages; flags MTRACE_RF_RESIDENT) */
#define MTRACE_CALLS_KEPT(X) \
	X(CHUNK,          32, "chunk",          NONE,           KEPT,   0, NONE, NONE) \
	X(MEMORY,         33, "memory",         NONE,           KEPT,   0, NONE, NONE) \
	X(LIVE,           34, "live",           NONE,           KEPT,   0, NONE, NONE) \
	X(CALLER,         35, "caller",         NONE,           KEPT,   0, NONE, NONE) \
	X(STACK,          36, "stack",          NONE,           KEPT,   0, NONE, NONE) \
	X(OBJECT,         37, "object",         NONE,           KEPT,   0, NONE, NONE) \
	X(SYMBOL,         38, "symbol",         NONE,           KEPT,   0, NONE, NONE)
#define MTRACE_CALLS(X) MTRACE_CALLS_API(X) MTRACE_CALLS_MAP(X) MTRACE_CALLS_KEPT(X)

/* operands: what a call's fields hold (struct mtrace_record) */
#define MTRACE_OPD_RESULT      0x01u  /* result: the block (mapping) it returned */
#define MTRACE_OPD_SIZE        0x02u  /* size: the bytes it asked for */
#define MTRACE_OPD_ALLOC       (MTRACE_OPD_RESULT | MTRACE_OPD_SIZE)
#define MTRACE_OPD_PTR         0x04u  /* ptr: the block (mapping) it released or resized */
#define MTRACE_OPD_COUNT       0x08u  /* size is an element count, arg2 the element size */
#define MTRACE_OPD_ALIGN       0x10u  /* arg2: the alignment asked for */
#define MTRACE_OPD_RETURNS_ERR 0x20u  /* it returns an error number, its block through a
                                         pointer (err: what it returned) */
#define MTRACE_OPD_RESIDENT    0x40u  /* arg2 may hold the bytes of ptr resident when it was
                                         released (MTRACE_RF_RESIDENT) */
#define MTRACE_OPD_MAPPING     0x80u  /* a mapping call of the program's (MTRACE_HF_MAPPINGS) */

/* order: a call's order points (the timestamp rules below) */
enum mtrace_order {
	MTRACE_ORDER_AFTER  = 1,   /* ts after the call: it made a block */
	MTRACE_ORDER_BEFORE = 2,   /* ts before the call: it released one */
	MTRACE_ORDER_BOTH   = 3,   /* the release at ts, the result at ts + duration */
	MTRACE_ORDER_KEPT   = 4,   /* bookkeeping: ts says when it was taken */
};

#define MTRACE_CALL_ENUM_(c, v, ...) MTRACE_CALL_##c = v,
enum mtrace_call {
	MTRACE_CALL_UNWRITTEN      = 0,
	MTRACE_CALLS(MTRACE_CALL_ENUM_)
	MTRACE_CALL_LAST_API       = 10,
	MTRACE_CALL_LAST_MAP       = 14,
};
#undef MTRACE_CALL_ENUM_

/* A call's operands (MTRACE_OPD_*), 0 for any other value */
static inline unsigned mtrace_call_operands(unsigned call)
{
#define MTRACE_CASE_(c, v, n, wl, order, opd, ...) case v: return opd;
	switch (call) {
	MTRACE_CALLS(MTRACE_CASE_)
	default: return 0;
	}
#undef MTRACE_CASE_
}

/* A call's order points (enum mtrace_order), 0 for any other value */
static inline unsigned mtrace_call_order(unsigned call)
{
#define MTRACE_CASE_(c, v, n, wl, order, ...) case v: return MTRACE_ORDER_##order;
	switch (call) {
	MTRACE_CALLS(MTRACE_CASE_)
	default: return 0;
	}
#undef MTRACE_CASE_
}

/* Is call one of the allocator's (1 to MTRACE_CALL_LAST_API), not a mapping call or a record
   of the tracer's own? */
static inline int mtrace_call_is_api(unsigned call)
{
	return call - 1u < MTRACE_CALL_LAST_API;
}

/* Has call every operand flag of want?  Has it the order points order?  (The calls that have,
   as a mask: with want or order a constant, one bit test, as the tracer's and the readers' hot
   paths ask.  Every value is below 64.) */
static inline int mtrace_call_has(unsigned call, unsigned want)
{
#define MTRACE_BIT_(c, v, n, wl, order, opd, ...) | (((opd) & want) == want ? 1ull << (v) : 0)
	uint64_t calls = 0 MTRACE_CALLS(MTRACE_BIT_);
#undef MTRACE_BIT_
	return call < 64 && (calls >> call & 1);
}

static inline int mtrace_call_order_is(unsigned call, unsigned order)
{
#define MTRACE_BIT_(c, v, n, wl, o, ...) | (MTRACE_ORDER_##o == order ? 1ull << (v) : 0)
	uint64_t calls = 0 MTRACE_CALLS(MTRACE_BIT_);
#undef MTRACE_BIT_
	return call < 64 && (calls >> call & 1);
}

/* record flags */
#define MTRACE_RF_FAILED     0x01u  /* the call failed (result NULL, or posix_memalign returned
                                       non-zero) */
#define MTRACE_RF_MMAP       0x02u  /* glibc: the result's chunk was served by mmap */
#define MTRACE_RF_ARENA      0x04u  /* glibc: the result's chunk lives in a non-main arena */
#define MTRACE_RF_BRK        0x08u  /* glibc: the brk heap grew during the call (any thread's
                                       doing) */
#define MTRACE_RF_PTR_MMAP   0x10u  /* glibc: the argument ptr's chunk was mmap-served
                                       (free/realloc) */
#define MTRACE_RF_RESIDENT   0x20u  /* free, realloc, munmap: arg2 = bytes of ptr's block resident
                                       when it was released (its whole pages; MTRACE_HF_RESIDENT);
                                       a LIVE record: when the writer stopped */
#define MTRACE_RF_OWN        0x40u  /* mapping calls: made by the allocator beneath (inside one of
                                       the calls traced, or from the allocator's own code), not
                                       by the program */
#define MTRACE_RF_KNOWN      0x7fu

/*
 * Timestamp rules (what makes a causal global order possible):
 *   - allocating calls (malloc, calloc, memalign family, valloc, pvalloc): ts is read after the
 *     underlying call returned;
 *   - free: ts is read before the underlying free runs, and after the program's loads before
 *     the call (the one that gave it ptr: a block another thread allocated and passed on);
 *   - realloc and reallocarray: ts is read before the call (the order point of releasing ptr) and
 *     ts + duration after it (the order point of result); duration is always filled for them;
 *   - other calls have duration 0 unless the header has MTRACE_HF_DURATIONS; then the call ran
 *     from ts - duration to ts (allocating calls) or from ts to ts + duration (free).
 * Sorting records by their order points gives an order in which no block is used before it was
 * allocated and no address is handed out again before its free.
 *
 *   - mapping calls: mmap and brk are ordered like allocating calls (ts after), munmap like free
 *     (ts before), mremap like realloc (ts before, ts + duration after);
 *   - a memory sample's ts is when /proc/self/statm was read; a LIVE record's, when the
 *     block's resident bytes were (after every call recorded but those still in progress).
 *
 * A chunk record: tid = owner, ts = when the chunk was taken (read under the writer's lock, so
 * chunk timestamps never decrease in file order), size = chunk length in bytes (including this
 * record), ptr = file offset of the same thread's previous chunk (0 if none: a thread's first
 * chunk in this file - for a thread id already met in it, a new thread given a reused id),
 * arg2 = the writing process's pid with MTRACE_HF_CHUNK_PID.  With
 * MTRACE_HF_CHUNK_BOUND (writers reserve a record before reading its clock) every record of a
 * chunk follows the chunk's ts, so once a reader has met a chunk, nothing before that chunk's ts
 * can still come.  Without it, the first record of a chunk may precede the chunk's ts by the time
 * the chunk took to be handed out.
 */
struct mtrace_record {
	/* bytes 0..7 are the commit word, stored last */
	uint32_t tid;           /* kernel thread id, never 0 in a written record */
	uint8_t  call;          /* enum mtrace_call */
	uint8_t  flags;         /* MTRACE_RF_* */
	uint16_t err;           /* errno after a failed call; posix_memalign's return value */
	uint64_t ts;            /* order point, in clock ticks */
	uint64_t ptr;           /* argument pointer */
	uint64_t result;        /* returned pointer; 0 for free and failures */
	uint64_t size;          /* requested size; element count for calloc/reallocarray */
	uint64_t arg2;          /* calloc/reallocarray element size; alignment for the memalign
	                           family */
	uint64_t usable;        /* usable size of result, as the allocator reports it */
	uint64_t duration;      /* ticks the call took, see the timestamp rules */
};

/* Reverse the bytes of an integer field in place, whatever its width (1, 2, 4 or 8 bytes): how
   readers bring a field of the other byte order to their own. */
#define MTRACE_SWAP(x) ((x) = sizeof(x) == 8 ? (__typeof__(x))__builtin_bswap64((uint64_t)(x)) : \
			      sizeof(x) == 4 ? (__typeof__(x))__builtin_bswap32((uint32_t)(x)) : \
			      sizeof(x) == 2 ? (__typeof__(x))__builtin_bswap16((uint16_t)(x)) : \
			      (x))

#ifdef __cplusplus
#define MTRACE_STATIC_ASSERT static_assert
#else
#define MTRACE_STATIC_ASSERT _Static_assert
#endif
MTRACE_STATIC_ASSERT(sizeof(struct mtrace_record) == MTRACE_RECORD_SIZE, "record is 64 bytes");

/* ---------------------------------------------------------------------------------------------
   Version 3: records in 32-byte slots
   ------------------------------------------------------------------------------------------- */

/*
 * A compact record takes one slot:
 *     call, flags, aux (16 bits), x (32 bits)   the commit word, stored last
 *     ts                                         the order point
 *     a                                          result of an allocation; ptr of a free;
 *                                                a chunk's previous chunk
 *     b                                          size asked for (calloc: count | element size
 *                                                << 32); a free's resident bytes; a chunk's
 *                                                length | pid << 32
 * aux: errno of a failed call; for the aligned calls, log2 of the alignment + 1 in the low 8
 * bits (and errno << 8 when they failed).  x: the usable size less the size asked for (an
 * allocation; MTRACE_X_NO_USABLE: the usable size is 0, as it is for a failure), the thread
 * id (a chunk record).  The thread id of the other records is their chunk's.
 *
 * A wide record (flags has MTRACE_RF_WIDE) takes two consecutive slots holding the fields of
 * struct mtrace_record but the thread id:
 *     first slot    call, flags, err (16 bits), duration's low 32 bits; ts; ptr; result
 *     second slot   0, 0, 0 (16 bits), duration's high 32 bits; size; arg2; usable
 * The second slot begins with a zero call byte, so that where its first slot was never committed
 * (a process killed between the two) it reads as unwritten.  It is written before the first
 * slot's commit word.  Writers use wide records for realloc and reallocarray, the mapping calls,
 * memory samples and LIVE records, every call when durations are recorded, and what a compact
 * record cannot hold (calloc's count or element size over 32 bits, an alignment that is not a
 * power of two, a usable size 4 GiB or more over the request).
 */
#define MTRACE_RF_WIDE       0x80u  /* version 3: the record takes two slots (wide layout) */
#define MTRACE_X_NO_USABLE   0xffffffffu

struct mtrace_slot {
	uint8_t  call;                  /* enum mtrace_call */
	uint8_t  flags;                 /* MTRACE_RF_*, MTRACE_RF_WIDE */
	uint16_t aux;
	uint32_t x;
	uint64_t ts;
	uint64_t a;
	uint64_t b;
};
MTRACE_STATIC_ASSERT(sizeof(struct mtrace_slot) == MTRACE_SLOT_SIZE, "slot is 32 bytes");

static inline int mtrace_is_aligned_call(unsigned call)
{
	return mtrace_call_has(call, MTRACE_OPD_ALIGN);
}

/* The slots record rec takes in version 3 (1 compact, 2 wide), with durations recorded or not:
   what a writer decides before it reserves them, from the arguments alone (the usable size is
   known after the call: see mtrace_encode). */
static inline unsigned mtrace_slots_for(unsigned call, uint64_t size, uint64_t arg2, int durations)
{
	if (durations && call != MTRACE_CALL_CHUNK)
		return 2;
	switch (call) {
	case MTRACE_CALL_MALLOC: case MTRACE_CALL_VALLOC: case MTRACE_CALL_PVALLOC:
	case MTRACE_CALL_FREE: case MTRACE_CALL_CHUNK:
		return 1;
	case MTRACE_CALL_CALLOC:
		return (size | arg2) >> 32 ? 2 : 1;
	case MTRACE_CALL_MEMALIGN: case MTRACE_CALL_POSIX_MEMALIGN: case MTRACE_CALL_ALIGNED_ALLOC:
		return arg2 == 0 || (arg2 & (arg2 - 1)) ? 2 : 1;
	default:
		return 2;
	}
}

/* Encode rec (its thread id aside; a chunk record's goes in x) into s[0] or s[0..1]: the slots
   it took.  A record mtrace_slots_for gave one slot to may still need two when its usable size
   is 4 GiB or more over the request: mtrace_encode then returns 2, and a writer that has only
   one slot keeps the compact form with MTRACE_X_NO_USABLE (the usable size lost). */
static inline unsigned mtrace_encode(const struct mtrace_record *rec, int durations,
				     struct mtrace_slot s[2])
{
	unsigned call = rec->call;
	if (mtrace_slots_for(call, rec->size, rec->arg2, durations) == 1) {
		uint64_t asked = call == MTRACE_CALL_CALLOC ? rec->size * rec->arg2 : rec->size;
		s->call = (uint8_t)call;
		s->flags = rec->flags;
		s->ts = rec->ts;
		if (call == MTRACE_CALL_CHUNK) {
			s->aux = 0;
			s->x = rec->tid;
			s->a = rec->ptr;
			s->b = (rec->size & 0xffffffffu) | rec->arg2 << 32;
			return 1;
		}
		if (call == MTRACE_CALL_FREE) {
			s->aux = 0;
			s->x = 0;
			s->a = rec->ptr;
			s->b = rec->arg2;
			return 1;
		}
		s->aux = (uint16_t)(mtrace_is_aligned_call(call)
				    ? (unsigned)__builtin_ctzll(rec->arg2) + 1 +
				      ((unsigned)rec->err << 8)
				    : rec->err);
		s->a = rec->result;
		s->b = call == MTRACE_CALL_CALLOC ? rec->size | rec->arg2 << 32 : rec->size;
		if (rec->usable == 0)
			s->x = MTRACE_X_NO_USABLE;
		else if (rec->usable >= asked && rec->usable - asked < MTRACE_X_NO_USABLE)
			s->x = (uint32_t)(rec->usable - asked);
		else
			goto wide;
		return 1;
	}
wide:
	s[0].call = (uint8_t)call;
	s[0].flags = (uint8_t)(rec->flags | MTRACE_RF_WIDE);
	s[0].aux = rec->err;
	s[0].x = (uint32_t)rec->duration;
	s[0].ts = rec->ts;
	s[0].a = rec->ptr;
	s[0].b = rec->result;
	s[1].call = 0;
	s[1].flags = 0;
	s[1].aux = 0;
	s[1].x = (uint32_t)(rec->duration >> 32);
	s[1].ts = rec->size;
	s[1].a = rec->arg2;
	s[1].b = rec->usable;
	return 2;
}

/* Decode the record at s (n slots at hand) of thread tid into rec: the slots it takes (1 or 2),
   or 0 when a wide record's second slot is not at hand.  Host byte order. */
static inline unsigned mtrace_decode(const struct mtrace_slot *s, uint64_t n, uint32_t tid,
				     struct mtrace_record *rec)
{
	unsigned call = s->call;
	rec->call = (uint8_t)call;
	rec->ts = s->ts;
	if (s->flags & MTRACE_RF_WIDE) {
		if (n < 2)
			return 0;
		rec->tid = tid;
		rec->flags = (uint8_t)(s->flags & ~MTRACE_RF_WIDE);
		rec->err = s->aux;
		rec->ptr = s->a;
		rec->result = s->b;
		rec->size = s[1].ts;
		rec->arg2 = s[1].a;
		rec->usable = s[1].b;
		rec->duration = s->x | (uint64_t)s[1].x << 32;
		return 2;
	}
	rec->flags = s->flags;
	rec->duration = 0;
	if (call >= MTRACE_CALL_CALLER && call <= MTRACE_CALL_SYMBOL) {
		/* CALLER, or an extended record's head: size = x (the id), ptr = a, result = b,
		   arg2 = its continuation slots (read them from the slots: mtrace_ext_word) */
		unsigned cont = call == MTRACE_CALL_CALLER ? 0 : s->aux;
		if (n < 1 + (uint64_t)cont)
			return 0;
		rec->tid = tid;
		rec->err = 0;
		rec->size = s->x;
		rec->ptr = s->a;
		rec->result = s->b;
		rec->arg2 = cont;
		rec->usable = 0;
		return 1 + cont;
	}
	if (call == MTRACE_CALL_CHUNK) {
		rec->tid = s->x;
		rec->err = 0;
		rec->ptr = s->a;
		rec->result = 0;
		rec->size = s->b & 0xffffffffu;
		rec->arg2 = s->b >> 32;
		rec->usable = 0;
		return 1;
	}
	rec->tid = tid;
	if (call == MTRACE_CALL_FREE) {
		rec->err = 0;
		rec->ptr = s->a;
		rec->result = 0;
		rec->size = 0;
		rec->arg2 = s->b;
		rec->usable = 0;
		return 1;
	}
	rec->ptr = 0;
	rec->result = s->a;
	if (call == MTRACE_CALL_CALLOC) {
		rec->size = s->b & 0xffffffffu;
		rec->arg2 = s->b >> 32;
	} else {
		rec->size = s->b;
		rec->arg2 = 0;
	}
	if (mtrace_is_aligned_call(call)) {
		/* (above 64: no alignment a writer makes; read as 0) */
		unsigned lg = s->aux & 0xffu;
		rec->arg2 = lg - 1u < 64u ? (uint64_t)1 << (lg - 1) : 0;
		rec->err = (uint16_t)(s->aux >> 8);
	} else
		rec->err = s->aux;
	uint64_t asked = call == MTRACE_CALL_CALLOC ? rec->size * rec->arg2 : rec->size;
	rec->usable = s->x == MTRACE_X_NO_USABLE ? 0 : asked + s->x;
	return 1;
}
/* ---------------------------------------------------------------------------------------------
   Version 5: call stacks, loaded objects, names
   ------------------------------------------------------------------------------------------- */

/*
 * CALLER (one compact slot), with MTRACE_HF_STACKS: written in the same reservation as the record
 * of an allocating call (any call with MTRACE_OPD_ALLOC) and immediately before it: x = the id of
 * the call's stack (0: none could be taken), a = the return address of the allocating call (the
 * program's code that called the allocator; 0: unknown), aux = 0, ts = 0, b = 0.  A CALLER
 * belongs to the record that follows it in the same chunk; one followed by anything else (a
 * process killed between the two commits) belongs to nothing.  Frees have no CALLER.
 *
 * Stack ids in the records (version 6, MTRACE_HF_STACK_IDS): every allocating record of an
 * allocator call (mtrace_call_has_stack) holds the id of its stack, 0 if none (then a CALLER slot naming stack 0 may precede it, to give the
 * return address), and is preceded by no CALLER otherwise.  A compact record keeps the id in
 * b's top 24 bits, b's low 40 the size asked for (calloc: the count in bits 0-19, the element
 * size in bits 20-39); a record whose arguments do not fit so is written wide
 * (mtrace_stack_fits).  A wide record keeps the id in its second slot's flags (low 8 bits) and
 * aux (the 16 above).  Readers take the id out first (mtrace_take_stack), which leaves the
 * slots as version 5 lays them out, and hand the call on as a CALLER then the call.
 *
 * STACK, OBJECT and SYMBOL are extended records: a head slot, then aux continuation slots.
 *     head           call, flags, aux = continuation slots (<= MTRACE_EXT_SLOTS_MAX), x; ts; a; b
 *     continuation   8 zero bytes (a zero call byte: where the head was never committed, they
 *                    read as unwritten), then 24 bytes of payload: three 64-bit words
 * A writer writes the continuation slots before the head's commit word.  Payload words are
 * integers, swapped like every field; the bytes of strings in them (paths, names) are kept in
 * order by storing them with mtrace_ext_put_bytes, which a reader undoes with
 * mtrace_ext_get_bytes after swapping.  Each string of a record starts on a word of its own
 * (the word mtrace_ext_put_bytes returns after the one before).
 *
 * STACK: x = the stack id (1.., each written once in a file), ts = when first met, and its frames,
 * the innermost first (the allocating call's return address), in a, b, then the payload words;
 * the first zero ends them.  Frames are return addresses: the call instruction is at frame - 1.
 * A stack is written by the first thread that meets it, in its own chunk: a CALLER of another
 * thread may name it before (in file order) its STACK record.
 *
 * OBJECT: an object of the program's (the executable, a shared library, the vdso) was loaded
 * (flags 0) or unloaded (flags MTRACE_OBJ_UNLOADED): x = object id (1.., an unload names its
 * load's), ts = when, a = load bias (an ELF address + a = the address in the process), b = 0.
 * Payload word 0 = lowest mapped address, word 1 = end of the mapped range, word 2 = build id
 * length (<= 64) | path length << 16; then from word 3 the build id's bytes and the path's (no
 * NUL).  Written at the start of a trace for every object then loaded, and when dlopen or
 * dlclose changed them (before any STACK with a frame in a new object).
 *
 * SYMBOL (written by tools: trace_pack): the name of one address a STACK holds, so the trace
 * reads alike where its binaries are absent: a = the address (as a frame holds it), x = the
 * object id it lies in (0: none), b = its line (0: unknown), ts = 0.  Payload word 0 = function
 * name length | source file name length << 16 | offset of the address in its function << 32
 * (0xffffffff: unknown), then from word 1 the name's bytes and the file's.
 */
#define MTRACE_EXT_SLOTS_MAX   256u          /* continuation slots of one extended record */
#define MTRACE_EXT_WORDS_MAX   (3u * MTRACE_EXT_SLOTS_MAX)
#define MTRACE_STACK_DEPTH_MAX 128u          /* frames of a STACK record, at most */
#define MTRACE_STACK_DEPTH_DEFAULT 64u       /* --stacks without =DEPTH */
#define MTRACE_OBJ_UNLOADED    0x01u         /* OBJECT flags */
#define MTRACE_BUILD_ID_MAX    64u

#define MTRACE_STACK_ID_MAX    0xffffffu     /* ids fit in 24 bits */
#define MTRACE_STACK_SIZE_BITS 40u           /* a compact record's size, with stack ids */
#define MTRACE_STACK_COUNT_BITS 20u          /* calloc's count and element size, so */

/* Does call's record hold a stack id, in a trace with stack ids?  (The allocator's calls that
   allocate: not the mapping calls.) */
static inline int mtrace_call_has_stack(unsigned call)
{
	return call <= MTRACE_CALL_LAST_API && mtrace_call_has(call, MTRACE_OPD_ALLOC);
}

/* With stack ids in the records: may the allocating call's record be compact?  (As
   mtrace_slots_for allows, and its arguments leave room for the id in b.) */
static inline int mtrace_stack_fits(unsigned call, uint64_t size, uint64_t arg2)
{
	if (call == MTRACE_CALL_CALLOC)
		return ((size | arg2) >> MTRACE_STACK_COUNT_BITS) == 0;
	return (size >> MTRACE_STACK_SIZE_BITS) == 0;
}

/* A compact allocating record's b holding stack id beside the arguments (which fit) */
static inline uint64_t mtrace_stack_b(unsigned call, uint64_t size, uint64_t arg2, uint32_t id)
{
	uint64_t b = call == MTRACE_CALL_CALLOC ? size | arg2 << MTRACE_STACK_COUNT_BITS : size;
	return b | (uint64_t)id << MTRACE_STACK_SIZE_BITS;
}

/* With stack ids in the records, an allocating record at s (both slots of a wide one at hand):
   its stack id, taken out so that s reads as version 5 lays it out */
static inline uint32_t mtrace_take_stack(struct mtrace_slot *s)
{
	uint32_t id;
	if (s->flags & MTRACE_RF_WIDE) {
		id = s[1].flags | (uint32_t)s[1].aux << 8;
		s[1].flags = 0;
		s[1].aux = 0;
		return id;
	}
	id = (uint32_t)(s->b >> MTRACE_STACK_SIZE_BITS);
	uint64_t b = s->b & (((uint64_t)1 << MTRACE_STACK_SIZE_BITS) - 1);
	if (s->call == MTRACE_CALL_CALLOC) {
		uint64_t mask = ((uint64_t)1 << MTRACE_STACK_COUNT_BITS) - 1;
		b = (b & mask) | (b >> MTRACE_STACK_COUNT_BITS) << 32;
	}
	s->b = b;
	return id;
}

static inline int mtrace_call_is_ext(unsigned call)
{
	return call >= MTRACE_CALL_STACK && call <= MTRACE_CALL_SYMBOL;
}

/* The continuation slots a payload of `words` 64-bit words takes */
static inline unsigned mtrace_ext_slots(unsigned words)
{
	return (words + 2) / 3;
}

/* Payload word i of the extended record whose head is at h (h[1 + i/3] at hand) */
static inline uint64_t *mtrace_ext_word(struct mtrace_slot *h, unsigned i)
{
	struct mtrace_slot *c = h + 1 + i / 3;
	return i % 3 == 0 ? &c->ts : i % 3 == 1 ? &c->a : &c->b;
}

/* Store n bytes from src into payload words from word `at` on, in a way that reads back the
   same in either byte order once the words are swapped (each word holds 8 bytes, the first in
   its low byte); the last word's unused bytes are zero.  Returns the word after the last. */
static inline unsigned mtrace_ext_put_bytes(struct mtrace_slot *h, unsigned at,
					    const void *src, unsigned n)
{
	const unsigned char *p = (const unsigned char *)src;
	for (unsigned i = 0; i < n; i += 8, at++) {
		uint64_t w = 0;
		for (unsigned k = 0; k < 8 && i + k < n; k++)
			w |= (uint64_t)p[i + k] << (8 * k);
		*mtrace_ext_word(h, at) = w;
	}
	return at;
}

/* The other way: n bytes from payload words at `at` (host order) into dst; the word after */
static inline unsigned mtrace_ext_get_bytes(const struct mtrace_slot *h, unsigned at,
					    void *dst, unsigned n)
{
	unsigned char *p = (unsigned char *)dst;
	for (unsigned i = 0; i < n; i += 8, at++) {
		uint64_t w = *mtrace_ext_word((struct mtrace_slot *)h, at);
		for (unsigned k = 0; k < 8 && i + k < n; k++)
			p[i + k] = (unsigned char)(w >> (8 * k));
	}
	return at;
}

MTRACE_STATIC_ASSERT(sizeof(struct mtrace_file_header) == MTRACE_HEADER_STRINGS,
		     "header fields fill 512 bytes");

/* The fixed fields of a header as this build writes them: magic, byte-order mark, version,
   sizes, pointer size.  Every writer starts from this (the rest is the writer's to fill). */
static inline void mtrace_header_init(struct mtrace_file_header *h)
{
	__builtin_memset(h, 0, sizeof *h);
	__builtin_memcpy(h->magic, MTRACE_MAGIC, MTRACE_MAGIC_LEN);
	h->byte_order_mark = MTRACE_BYTE_ORDER_MARK;
	h->version = MTRACE_FORMAT_VERSION;
	h->header_size = MTRACE_HEADER_SIZE;
	h->record_size = MTRACE_SLOT_SIZE;
	h->pointer_size = sizeof(void *);
}

/* Is NAME=VALUE (an environ entry) one of the allocators' settings a header's settings field
   holds: GLIBC_TUNABLES, MALLOC_* (glibc's older knobs, jemalloc's MALLOC_CONF), MIMALLOC_*,
   TCMALLOC_* */
static inline int mtrace_is_setting(const char *nv)
{
	static const char *const prefixes[] = { "GLIBC_TUNABLES=", "MALLOC_", "MIMALLOC_",
						"TCMALLOC_" };
	for (unsigned i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
		if (__builtin_strncmp(nv, prefixes[i], __builtin_strlen(prefixes[i])) == 0)
			return __builtin_strchr(nv, '=') != 0;
	return 0;
}

/* The bytes a call requested: size, or count x element size for calloc and reallocarray
   (saturating at UINT64_MAX when the product overflows, as the call itself failed). */
static inline uint64_t mtrace_record_bytes(const struct mtrace_record *r)
{
	uint64_t b;
	if (mtrace_call_has(r->call, MTRACE_OPD_COUNT))
		return __builtin_mul_overflow(r->size, r->arg2, &b) ? UINT64_MAX : b;
	return r->size;
}

/* Name of a call for people, or NULL if the value is not a call. */
static inline const char *mtrace_call_name(unsigned call)
{
#define MTRACE_CASE_(c, v, name, ...) case v: return name;
	switch (call) {
	case MTRACE_CALL_UNWRITTEN: return "unwritten";
	MTRACE_CALLS(MTRACE_CASE_)
	default: return 0;
	}
#undef MTRACE_CASE_
}

#endif
