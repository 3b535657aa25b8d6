/* mkfixture - test helper: synthetic traces and workloads with hand-computed properties.
 *
 *   mkfixture trace-edge OUT      two threads, every edge case (expectations in t_trace2wl.sh)
 *   mkfixture dj-edge OUT         the same calls as an original dj/malloc trace (no
 *                                 aligned_alloc/reallocarray: dj had no such types)
 *   mkfixture trace-inverted OUT  an address allocated again while still live
 *   mkfixture trace-tidreuse OUT  thread id 7 names two threads, one after the other (the
 *                                 kernel reuses an exited thread's id): three threads in all
 *   mkfixture trace-late OUT      a record that precedes its chunk, which the trace says none
 *                                 does: handed out one record late
 *   mkfixture trace-frozen OUT    two threads taking turns, 40 chunks, every timestamp 0 (a
 *                                 clock that stood still): not valid for ordering
 *   mkfixture trace-stalls OUT    the same with an advancing clock but for 3 chunks taken at
 *                                 the value of the chunk before: valid, the 3 reported
 *   mkfixture trace-v2threads OUT two threads, each 8,000 malloc/free pairs (their streams
 *                                 outgrow the writer's buffers), then 1 MiB blocks and a 4 MiB
 *                                 mapping, 8,000 pairs more each, and the blocks and mapping
 *                                 released by the other thread with resident bytes
 *                                 (expectations in t_fidelity.sh)
 *   mkfixture trace-manylive OUT  50,000 blocks live, then each freed in a shuffled order,
 *                                 every 7th twice, every 11th allocated and freed again, and a
 *                                 new block after each (the address map outgrows the caches
 *                                 and is rebuilt while frees go on): 159,092 calls kept,
 *                                 7,143 frees of blocks not live (t_trace2wl.sh)
 *   mkfixture trace-repeat OUT N  N MiB of one record again and again, in chunks of 64 KiB: a
 *                                 compression bomb that is a valid trace
 *   mkfixture wl-ok|wl-racy|wl-deadlock|wl-never|wl-badslot|wl-badthread OUT   small workloads
 *   mkfixture wl-chain|wl-chain-racy|wl-map-racy OUT   a block passed from thread 0 to 2 through
 *                                 thread 1's waits (ordered; not, thread 1 waiting for none),
 *                                 a mapping unmapped by thread 1 with no wait (a race)
 *   mkfixture wl-maps OUT         map ids used as a hostile workload may: unmaps past the
 *                                 mapping's end, twice over, a map into a held id, a remap of
 *                                 a gone one (a replay must survive them unharmed)
 *   mkfixture wl-at OUT           a call marked at 5 s in a workload whose trace lasted 1 ms
 *   mkfixture wl-longchain OUT N  N threads of one call each, thread i waiting for i - 1 and
 *                                 using the slot i - 2 used: every block passed in order, each
 *                                 through a third thread's wait
 *   mkfixture wl-waits|wl-nowaits OUT N   thread 1 makes N free(NULL) calls, each after a
 *                                 WAIT that is already satisfied (or without): the cost of one
 *   mkfixture wl-signals OUT N    thread 0 makes N free(NULL) calls, thread 1 one after each of
 *                                 them, waiting for it: N signal points, no memory
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mtrace-trace.h"
#include "wl_writer.h"

static FILE *out;
static uint64_t nops;   /* the N of the kinds that take one */

static void die(const char *m) { fprintf(stderr, "mkfixture: %s\n", m); exit(1); }

/* ---------------------------------------------------------------------------------------------
   mtrace traces
   ------------------------------------------------------------------------------------------- */

struct call {
	uint32_t tid;
	uint8_t call, flags;
	uint16_t err;
	uint64_t ts, ptr, result, size, arg2, dur;
};

/* the edge scenario, in time order; tids 100 and 200 */
static const struct call edge[] = {
	{ 100, MTRACE_CALL_MALLOC, 0, 0, 10, 0, 0x1000, 100, 0, 0 },
	{ 100, MTRACE_CALL_CALLOC, 0, 0, 20, 0, 0x2000, 10, 20, 0 },
	{ 100, MTRACE_CALL_FREE, 0, 0, 30, 0, 0, 0, 0, 0 },                 /* free(NULL) */
	{ 100, MTRACE_CALL_FREE, 0, 0, 40, 0x9000, 0, 0, 0, 0 },            /* before tracing */
	{ 100, MTRACE_CALL_REALLOC, 0, 0, 50, 0, 0x3000, 50, 0, 2 },        /* realloc(NULL, 50) */
	{ 100, MTRACE_CALL_REALLOC, 0, 0, 60, 0x3000, 0, 0, 0, 2 },         /* realloc(p, 0) */
	{ 100, MTRACE_CALL_MALLOC, MTRACE_RF_FAILED, ENOMEM, 70, 0, 0, (uint64_t)1 << 62, 0, 0 },
	{ 100, MTRACE_CALL_MEMALIGN, 0, 0, 80, 0, 0x4000, 128, 64, 0 },
	{ 100, MTRACE_CALL_POSIX_MEMALIGN, 0, 0, 90, 0, 0x5000, 256, 4096, 0 },
	{ 100, MTRACE_CALL_POSIX_MEMALIGN, MTRACE_RF_FAILED, EINVAL, 100, 0, 0, 10, 3, 0 },
	{ 100, MTRACE_CALL_ALIGNED_ALLOC, 0, 0, 110, 0, 0x6000, 64, 32, 0 },
	{ 100, MTRACE_CALL_VALLOC, 0, 0, 120, 0, 0x7000, 10, 0, 0 },
	{ 100, MTRACE_CALL_PVALLOC, 0, 0, 130, 0, 0x8000, 10, 0, 0 },
	{ 200, MTRACE_CALL_FREE, 0, 0, 140, 0x1000, 0, 0, 0, 0 },           /* cross-thread */
	{ 200, MTRACE_CALL_REALLOC, 0, 0, 150, 0x2000, 0x2100, 400, 0, 5 }, /* cross-thread */
	{ 200, MTRACE_CALL_FREE, 0, 0, 160, 0x2100, 0, 0, 0, 0 },
	{ 200, MTRACE_CALL_FREE, 0, 0, 170, 0x2100, 0, 0, 0, 0 },           /* double free */
	{ 100, MTRACE_CALL_REALLOC, 0, 0, 180, 0xdead, 0x9100, 30, 0, 2 },  /* unknown block */
	{ 200, MTRACE_CALL_REALLOCARRAY, 0, 0, 190, 0, 0xa000, 4, 8, 2 },
	{ 100, MTRACE_CALL_MALLOC, 0, 0, 200, 0, 0x1000, 16, 0, 0 },        /* address reused */
};

static const struct call inverted[] = {
	{ 1, MTRACE_CALL_MALLOC, 0, 0, 10, 0, 0x1000, 8, 0, 0 },
	{ 2, MTRACE_CALL_MALLOC, 0, 0, 20, 0, 0x1000, 8, 0, 0 },                 /* still live */
	{ 1, MTRACE_CALL_FREE, 0, 0, 30, 0x1000, 0, 0, 0, 0 },
};

static void put_record(const struct mtrace_record *r)
{
	if (fwrite(r, sizeof *r, 1, out) != 1)
		die("write failed");
}

static uint32_t resident_min;   /* the header's, for version-2 fixtures */

/* A finished trace's header: 64-bit, ticks in nanoseconds */
static void write_header(int32_t pid, uint32_t flags)
{
	static unsigned char page[MTRACE_HEADER_SIZE];
	struct mtrace_file_header h;
	mtrace_header_init(&h);
	h.version = 2;   /* the 64-byte layout: what older writers wrote, read as ever */
	h.record_size = MTRACE_RECORD_SIZE;
	h.pointer_size = 8;
	h.clock = MTRACE_CLOCK_MONOTONIC;
	h.ticks_per_sec = 1000000000;
	h.flags = MTRACE_HF_FINISHED | flags;
	h.resident_min = resident_min;
	h.pid = pid;
	h.ppid = 1;
	memcpy(page, &h, sizeof h);
	fwrite(page, 1, sizeof page, out);
}

/* One chunk per thread, threads in order of first appearance; ticks are nanoseconds. */
static void write_mtrace_flags(const struct call *c, size_t n, uint32_t flags)
{
	write_header(4242, flags);
	uint32_t done[8];
	size_t ndone = 0;
	for (size_t i = 0; i < n; i++) {
		int seen = 0;
		for (size_t d = 0; d < ndone; d++)
			seen |= done[d] == c[i].tid;
		if (seen)
			continue;
		done[ndone++] = c[i].tid;
		size_t mine = 0;
		for (size_t j = i; j < n; j++)
			mine += c[j].tid == c[i].tid;
		struct mtrace_record r = { .tid = c[i].tid, .call = MTRACE_CALL_CHUNK,
					   .ts = 1 + ndone,
					   .size = (mine + 2) * MTRACE_RECORD_SIZE };
		put_record(&r);
		for (size_t j = i; j < n; j++) {
			if (c[j].tid != c[i].tid)
				continue;
			struct mtrace_record x = { c[j].tid, c[j].call, c[j].flags, c[j].err,
						   c[j].ts, c[j].ptr, c[j].result, c[j].size,
						   c[j].arg2, c[j].result ? c[j].size : 0,
						   c[j].dur };
			put_record(&x);
		}
		struct mtrace_record unwritten = { 0 };
		put_record(&unwritten);   /* reserved, never filled */
	}
}

static void write_mtrace(const struct call *c, size_t n)
{
	write_mtrace_flags(c, n, 0);
}

/* Two threads whose streams spill; blocks and a mapping released by the other thread */
static void write_v2threads(void)
{
	enum { PAIRS = 8000 };
	size_t n = 0;
	struct call *c = calloc(8 * PAIRS + 16, sizeof *c);
	uint64_t t = 10;
	for (int k = 0; k < PAIRS; k++)
		for (uint32_t tid = 100; tid <= 200; tid += 100) {
			uint64_t a = 0x100000 * (tid / 100) + 16 * (uint64_t)k;
			c[n++] = (struct call){ tid, MTRACE_CALL_MALLOC, 0, 0, t++,
						0, a, 16, 0, 0 };
			c[n++] = (struct call){ tid, MTRACE_CALL_FREE, 0, 0, t++, a, 0, 0, 0, 0 };
		}
	const uint64_t MiB = 1 << 20, M = 0x7f0000000000;
	c[n++] = (struct call){ 100, MTRACE_CALL_MALLOC, 0, 0, t++, 0, 0x10000000, MiB, 0, 0 };
	c[n++] = (struct call){ 200, MTRACE_CALL_MALLOC, 0, 0, t++, 0, 0x20000000, MiB, 0, 0 };
	c[n++] = (struct call){ 200, MTRACE_CALL_MMAP, 0, 0, t++,
				0, M, 4 * MiB, 3 | 0x22ull << 32, 0 };
	for (int k = 0; k < PAIRS; k++)   /* (their RESIDENTs move out of the buffers meanwhile) */
		for (uint32_t tid = 100; tid <= 200; tid += 100) {
			uint64_t a = 0x100000 * (tid / 100) + 16 * (uint64_t)k;
			c[n++] = (struct call){ tid, MTRACE_CALL_MALLOC, 0, 0, t++,
						0, a, 16, 0, 0 };
			c[n++] = (struct call){ tid, MTRACE_CALL_FREE, 0, 0, t++, a, 0, 0, 0, 0 };
		}
	c[n++] = (struct call){ 100, MTRACE_CALL_FREE, MTRACE_RF_RESIDENT, 0, t++,
				0x20000000, 0, 0, 512 << 10, 0 };
	c[n++] = (struct call){ 100, MTRACE_CALL_MUNMAP, MTRACE_RF_RESIDENT, 0, t++,
				M, 0, 2 * MiB, MiB, 0 };
	c[n++] = (struct call){ 200, MTRACE_CALL_FREE, MTRACE_RF_RESIDENT, 0, t++,
				0x10000000, 0, 0, 256 << 10, 0 };
	c[n++] = (struct call){ 200, MTRACE_CALL_MUNMAP, 0, 0, t++, M + 2 * MiB, 0, 2 * MiB, 0, 0 };
	resident_min = 65536;
	write_mtrace_flags(c, n, MTRACE_HF_MAPPINGS | MTRACE_HF_RESIDENT);
	free(c);
}

/* 50,000 blocks, then the frees described at the top */
static void write_manylive(void)
{
	enum { N = 50000 };
	struct call *c = calloc(5 * N, sizeof *c);
	size_t n = 0;
	uint64_t t = 10, a = 0x10000000, b = 0x40000000;
	if (!c)
		die("out of memory");
	for (uint64_t k = 0; k < N; k++)
		c[n++] = (struct call){ 1, MTRACE_CALL_MALLOC, 0, 0, t++, 0, a + 32 * k, 16, 0, 0 };
	for (uint64_t i = 0; i < N; i++) {
		uint64_t k = i * 7919 % N;   /* (7919 is prime: each k once) */
		c[n++] = (struct call){ 1, MTRACE_CALL_FREE, 0, 0, t++, a + 32 * k, 0, 0, 0, 0 };
		if (k % 7 == 0)
			c[n++] = (struct call){ 1, MTRACE_CALL_FREE, 0, 0, t++, a + 32 * k,
						0, 0, 0, 0 };
		if (k % 11 == 0) {
			c[n++] = (struct call){ 1, MTRACE_CALL_MALLOC, 0, 0, t++,
						0, a + 32 * k, 48, 0, 0 };
			c[n++] = (struct call){ 1, MTRACE_CALL_FREE, 0, 0, t++, a + 32 * k,
						0, 0, 0, 0 };
		}
		c[n++] = (struct call){ 1, MTRACE_CALL_MALLOC, 0, 0, t++, 0, b + 32 * i, 16, 0, 0 };
	}
	write_mtrace(c, n);
	free(c);
}

/* nops MiB of chunks of 64 KiB, each of one malloc again and again */
static void write_repeat(void)
{
	write_header(4244, 0);
	struct mtrace_record chunk = { .tid = 1, .call = MTRACE_CALL_CHUNK, .ts = 1,
				       .size = 1024 * MTRACE_RECORD_SIZE };
	struct mtrace_record m = { .tid = 1, .call = MTRACE_CALL_MALLOC, .ts = 2, .result = 0x1000,
				   .size = 16, .usable = 24 };
	for (uint64_t i = 0; i < nops * 16; i++) {
		put_record(&chunk);
		for (int k = 1; k < 1024; k++)
			put_record(&m);
	}
}

/* Thread 7 allocates and frees; thread 8 allocates; a new thread, given the id 7 again
   (its first chunk in the file: ptr 0), allocates and frees thread 8's block.  Each chunk is
   written where it was taken, so threads 7 and 7' are told apart only by that. */
static void write_tidreuse(void)
{
	write_header(4243, MTRACE_HF_CHUNK_BOUND);
	static const struct mtrace_record r[] = {
		{ .tid = 7, .call = MTRACE_CALL_CHUNK, .ts = 5, .ptr = 0,
		  .size = 3 * MTRACE_RECORD_SIZE },
		{ .tid = 7, .call = MTRACE_CALL_MALLOC, .ts = 10, .result = 0x1000, .size = 16,
		  .usable = 24 },
		{ .tid = 7, .call = MTRACE_CALL_FREE, .ts = 20, .ptr = 0x1000 },
		{ .tid = 8, .call = MTRACE_CALL_CHUNK, .ts = 25, .ptr = 0,
		  .size = 2 * MTRACE_RECORD_SIZE },
		{ .tid = 8, .call = MTRACE_CALL_MALLOC, .ts = 30, .result = 0x2000, .size = 32,
		  .usable = 40 },
		{ .tid = 7, .call = MTRACE_CALL_CHUNK, .ts = 45, .ptr = 0,
		  .size = 3 * MTRACE_RECORD_SIZE },
		{ .tid = 7, .call = MTRACE_CALL_MALLOC, .ts = 50, .result = 0x3000, .size = 48,
		  .usable = 56 },
		{ .tid = 7, .call = MTRACE_CALL_FREE, .ts = 60, .ptr = 0x2000 },
	};
	for (size_t i = 0; i < sizeof r / sizeof r[0]; i++)
		put_record(&r[i]);
}

/* Thread 3's malloc (ts 30) precedes its own chunk (ts 55) although the trace promises none
   does: by then thread 1's malloc at ts 40 has been handed out, so it is one record late. */
static void write_late(void)
{
	write_header(4244, MTRACE_HF_CHUNK_BOUND);
	static const struct mtrace_record r[] = {
		{ .tid = 1, .call = MTRACE_CALL_CHUNK, .ts = 5, .size = 3 * MTRACE_RECORD_SIZE },
		{ .tid = 1, .call = MTRACE_CALL_MALLOC, .ts = 10, .result = 0x1000, .size = 16,
		  .usable = 24 },
		{ .tid = 1, .call = MTRACE_CALL_MALLOC, .ts = 40, .result = 0x2000, .size = 16,
		  .usable = 24 },
		{ .tid = 2, .call = MTRACE_CALL_CHUNK, .ts = 50, .size = 2 * MTRACE_RECORD_SIZE },
		{ .tid = 2, .call = MTRACE_CALL_FREE, .ts = 60, .ptr = 0x1000 },
		{ .tid = 3, .call = MTRACE_CALL_CHUNK, .ts = 55, .size = 2 * MTRACE_RECORD_SIZE },
		{ .tid = 3, .call = MTRACE_CALL_MALLOC, .ts = 30, .result = 0x3000, .size = 16,
		  .usable = 24 },
	};
	for (size_t i = 0; i < sizeof r / sizeof r[0]; i++)
		put_record(&r[i]);
}

/* Threads 100 and 200 take turns, a chunk each: 100 allocates a block, 200 frees it and
   allocates one more.  Chunk i is taken at ts 100 * i, except that the first `stalls` after
   the first read the clock value of the one before (all of them: every ts 0). */
static void write_stalls(int stalls, int frozen)
{
	write_header(4245, MTRACE_HF_CHUNK_BOUND);
	uint64_t ts = 0;
	for (int i = 0; i < 40; i++) {
		uint32_t tid = i % 2 ? 200 : 100;
		if (!frozen && (i == 0 || i > stalls))
			ts += 100;
		uint64_t a = 0x1000 + 64 * (uint64_t)(i / 2), t = frozen ? 0 : ts;
		struct mtrace_record r[4] = {
			{ .tid = tid, .call = MTRACE_CALL_CHUNK, .ts = t, .ptr = 0,
			  .size = 4 * MTRACE_RECORD_SIZE },
			{ .tid = tid, .call = MTRACE_CALL_MALLOC, .ts = t, .result = a, .size = 16,
			  .usable = 24 },
		};
		if (tid == 200) {
			r[1] = (struct mtrace_record){ .tid = tid, .call = MTRACE_CALL_FREE, .ts = t,
						      .ptr = a };
			r[2] = (struct mtrace_record){ .tid = tid, .call = MTRACE_CALL_MALLOC,
						      .ts = frozen ? 0 : t + 1, .result = a + 32,
						      .size = 16, .usable = 24 };
		}
		r[0].ptr = i >= 2 ? (uint64_t)MTRACE_HEADER_SIZE + (uint64_t)(i - 2) * 4 *
				    MTRACE_RECORD_SIZE : 0;
		for (int k = 0; k < 4; k++)
			put_record(&r[k]);   /* (the rest unwritten) */
	}
}

/* ---------------------------------------------------------------------------------------------
   dj/malloc traces
   ------------------------------------------------------------------------------------------- */

struct dj { int32_t thread; uint32_t type; uint64_t ptr1, ptr2, size, size2, size3, pad[2]; };

static void write_dj(const struct call *c, size_t n)
{
	struct dj magic = { 0, 255, 0x1234, 0, sizeof(void *), 0, 0, { 0, 0 } };
	fwrite(&magic, sizeof magic, 1, out);
	for (size_t i = 0; i < n; i++) {
		struct dj d = { (int32_t)c[i].tid, c[i].call, 0, 0, c[i].size, 0, 0, { 0, 0 } };
		switch (c[i].call) {
		case MTRACE_CALL_ALIGNED_ALLOC: case MTRACE_CALL_REALLOCARRAY:
			continue;   /* no such dj types */
		case MTRACE_CALL_FREE:
			d.ptr1 = c[i].ptr;
			break;
		case MTRACE_CALL_REALLOC:
			d.ptr1 = c[i].ptr;
			d.ptr2 = c[i].result;
			break;
		case MTRACE_CALL_CALLOC:
			d.size = c[i].size * c[i].arg2;   /* dj's calloc records the total */
			d.ptr2 = c[i].result;
			break;
		case MTRACE_CALL_POSIX_MEMALIGN:
			d.ptr1 = c[i].err;
			d.ptr2 = c[i].result;
			d.size2 = c[i].arg2;
			break;
		default:
			d.ptr2 = c[i].result;
			d.size2 = c[i].arg2;
		}
		fwrite(&d, sizeof d, 1, out);
		if (i == 3) {
			struct dj unused = { 0 };   /* type 0: an unused entry, skipped */
			fwrite(&unused, sizeof unused, 1, out);
		}
	}
}

/* ---------------------------------------------------------------------------------------------
   Workloads
   ------------------------------------------------------------------------------------------- */

static void workload(const char *kind, const char *path)
{
	struct wl_writer w;
	if (wl_writer_open(&w, path) < 0)
		die(w.err.msg);
	wl_writer_thread(&w, 1);
	wl_writer_thread(&w, 2);
	if (!strncmp(kind, "wl-chain", 8))
		wl_writer_thread(&w, 3);
	struct mtrace_wl_header h = { 0 };
	memcpy(h.magic, MTRACE_WL_MAGIC, MTRACE_WL_MAGIC_LEN);
	h.version = MTRACE_WL_VERSION;
	h.header_size = MTRACE_WL_HEADER_SIZE;
	h.nslots = 3;
	uint64_t a[4];
#define OP(t, op, ...) do { uint64_t v_[] = { __VA_ARGS__ }; memcpy(a, v_, sizeof v_); \
	wl_writer_op(&w, t, op, (int)(sizeof v_ / 8), a); \
	if (mtrace_wl_is_call(op)) h.ncalls++, h.counts[op]++; \
	else if ((op) == MTRACE_WL_WAIT) h.nwaits++; } while (0)
	if (!strcmp(kind, "wl-ok") || !strcmp(kind, "wl-racy") || !strcmp(kind, "wl-badslot") ||
	    !strcmp(kind, "wl-badthread")) {
		OP(0, MTRACE_WL_MALLOC, !strcmp(kind, "wl-badslot") ? 7 : 1, 16);
		OP(0, MTRACE_WL_CALLOC, 2, 4, 8);
		if (strcmp(kind, "wl-racy") != 0)
			OP(1, MTRACE_WL_WAIT, !strcmp(kind, "wl-badthread") ? 5 : 0, 2);
		OP(1, MTRACE_WL_REALLOC, 1, 1, 64);
		OP(1, MTRACE_WL_FREE, 1);
		OP(1, MTRACE_WL_FREE, 2);
		h.ideal_rss = 48;
	} else if (!strcmp(kind, "wl-waits") || !strcmp(kind, "wl-nowaits")) {
		OP(0, MTRACE_WL_MALLOC, 1, 16);
		/* the first waits for real; the rest are satisfied */
		OP(1, MTRACE_WL_WAIT, 0, 1);
		for (uint64_t i = 0; i < nops; i++) {
			if (!strcmp(kind, "wl-waits"))
				OP(1, MTRACE_WL_WAIT, 0, 1);
			OP(1, MTRACE_WL_FREE, 0);
		}
		OP(1, MTRACE_WL_FREE, 1);
	} else if (!strcmp(kind, "wl-signals")) {
		for (uint64_t i = 1; i <= nops; i++) {
			OP(0, MTRACE_WL_FREE, 0);
			OP(1, MTRACE_WL_WAIT, 0, i);
			OP(1, MTRACE_WL_FREE, 0);
		}
	} else if (!strcmp(kind, "wl-maps")) {
		h.version = 2;
		h.nmaps = 2;
		OP(0, MTRACE_WL_MAP, 0, 1 << 20);
		OP(0, MTRACE_WL_UNMAP, 0, 1ull << 40, 1ull << 40);  /* past its end */
		OP(0, MTRACE_WL_UNMAP, 0, 4096, 1ull << 62);        /* too long: to its end */
		OP(0, MTRACE_WL_UNMAP, 0, 0, 8192);                 /* (all of it is gone now) */
		OP(0, MTRACE_WL_REMAP, 0, 1 << 21);                 /* of a gone mapping */
		OP(0, MTRACE_WL_MAP, 1, 1 << 16);
		OP(0, MTRACE_WL_MAP, 1, 1 << 17);                   /* into a held id */
		OP(0, MTRACE_WL_MALLOC, 1, 64);
		OP(0, MTRACE_WL_FREE, 1);
		OP(1, MTRACE_WL_WAIT, 0, 9);
		OP(1, MTRACE_WL_UNMAP, 1, 0, 1 << 17);
	} else if (!strncmp(kind, "wl-chain", 8)) {
		/* slot 1 goes from thread 0 to 2 through thread 1's waits; slot 3, last used by
		   thread 0, is first used by thread 2 (a check run twice must not remember it) */
		h.nslots = 4;
		OP(0, MTRACE_WL_MALLOC, 1, 16);
		OP(0, MTRACE_WL_MALLOC, 2, 16);
		OP(0, MTRACE_WL_WAIT, 2, 3);
		OP(0, MTRACE_WL_FREE, 3);
		if (strcmp(kind, "wl-chain-racy") != 0)
			OP(1, MTRACE_WL_WAIT, 0, 1);
		OP(1, MTRACE_WL_FREE, 0);
		OP(2, MTRACE_WL_WAIT, 1, 1);
		OP(2, MTRACE_WL_FREE, 1);
		OP(2, MTRACE_WL_WAIT, 0, 2);
		OP(2, MTRACE_WL_FREE, 2);
		OP(2, MTRACE_WL_MALLOC, 3, 16);
	} else if (!strcmp(kind, "wl-map-racy")) {
		h.version = 2;
		h.nmaps = 1;
		OP(0, MTRACE_WL_MAP, 0, 1 << 16);
		OP(0, MTRACE_WL_MALLOC, 1, 16);
		OP(1, MTRACE_WL_WAIT, 0, 2);
		OP(1, MTRACE_WL_FREE, 1);
		OP(1, MTRACE_WL_UNMAP, 0, 0, 1 << 16);
		OP(0, MTRACE_WL_MALLOC, 2, 16);
		OP(0, MTRACE_WL_REMAP, 0, 1 << 17);
	} else if (!strcmp(kind, "wl-at")) {
		h.version = 2;
		h.flags = MTRACE_WL_HF_PACE;
		h.pace_us = 1000;
		h.duration_us = 1000;
		OP(0, MTRACE_WL_AT, 5000000);
		OP(0, MTRACE_WL_MALLOC, 1, 16);
	} else if (!strcmp(kind, "wl-never")) {
		OP(0, MTRACE_WL_WAIT, 1, 5);   /* thread 1 makes one call, never a fifth */
		OP(0, MTRACE_WL_MALLOC, 1, 16);
		OP(1, MTRACE_WL_MALLOC, 2, 16);
	} else if (!strcmp(kind, "wl-deadlock")) {
		OP(0, MTRACE_WL_WAIT, 1, 1);
		OP(0, MTRACE_WL_MALLOC, 1, 16);
		OP(1, MTRACE_WL_WAIT, 0, 1);
		OP(1, MTRACE_WL_MALLOC, 2, 16);
	} else
		die("unknown fixture");
	if (wl_writer_finish(&w, &h) < 0)
		die(w.err.msg);
}

static void longchain(const char *path, uint64_t n)
{
	struct wl_writer w;
	if (wl_writer_open(&w, path) < 0)
		die(w.err.msg);
	struct mtrace_wl_header h = { 0 };
	memcpy(h.magic, MTRACE_WL_MAGIC, MTRACE_WL_MAGIC_LEN);
	h.version = MTRACE_WL_VERSION;
	h.header_size = MTRACE_WL_HEADER_SIZE;
	h.nslots = 3;
	h.ideal_rss = 32;
	for (uint64_t i = 0; i < n; i++)
		wl_writer_thread(&w, (uint32_t)i + 1);
	for (uint64_t i = 0; i < n; i++) {
		uint64_t s = i % 2 + 1, wait[2] = { i - 1, 1 }, call[3] = { s, s, 16 };
		if (i > 0) {
			wl_writer_op(&w, (uint32_t)i, MTRACE_WL_WAIT, 2, wait);
			h.nwaits++;
		}
		unsigned op = i < 2 ? MTRACE_WL_MALLOC : MTRACE_WL_REALLOC;
		if (i < 2)
			call[1] = 16;
		wl_writer_op(&w, (uint32_t)i, op, i < 2 ? 2 : 3, call);
		h.ncalls++;
		h.counts[op]++;
	}
	if (wl_writer_finish(&w, &h) < 0)
		die(w.err.msg);
}

int main(int argc, char **argv)
{
	if (argc == 4)
		nops = strtoull(argv[3], NULL, 10);
	else if (argc != 3)
		die("usage: mkfixture KIND OUT [N]");
	if (!strcmp(argv[1], "wl-longchain")) {
		longchain(argv[2], nops);
		return 0;
	}
	if (!strncmp(argv[1], "wl-", 3)) {
		workload(argv[1], argv[2]);
		return 0;
	}
	out = fopen(argv[2], "wb");
	if (!out)
		die("cannot create the output");
	if (!strcmp(argv[1], "trace-edge"))
		write_mtrace(edge, sizeof edge / sizeof edge[0]);
	else if (!strcmp(argv[1], "dj-edge"))
		write_dj(edge, sizeof edge / sizeof edge[0]);
	else if (!strcmp(argv[1], "trace-inverted"))
		write_mtrace(inverted, sizeof inverted / sizeof inverted[0]);
	else if (!strcmp(argv[1], "trace-tidreuse"))
		write_tidreuse();
	else if (!strcmp(argv[1], "trace-late"))
		write_late();
	else if (!strcmp(argv[1], "trace-v2threads"))
		write_v2threads();
	else if (!strcmp(argv[1], "trace-frozen"))
		write_stalls(39, 1);
	else if (!strcmp(argv[1], "trace-stalls"))
		write_stalls(3, 0);
	else if (!strcmp(argv[1], "trace-manylive"))
		write_manylive();
	else if (!strcmp(argv[1], "trace-repeat"))
		write_repeat();
	else
		die("unknown fixture");
	return fclose(out) != 0;
}
