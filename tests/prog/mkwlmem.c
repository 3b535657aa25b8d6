/* mkwlmem - test helper: one-thread workloads whose program's memory samples say, at chosen
 * times, what the program held between its calls (expectations in t_fidelity_time.sh).  The
 * program ran 10 s on glibc; its anonymous RSS starts at 8 MiB.
 *
 *   mkwlmem idle-miss OUT   20 small calls in the first 10 ms; the samples hold 64 MiB more
 *                           until 9 s (memory the calls do not explain), then a burst of
 *                           10,000 calls with memory low: a replay misses the plateau, which
 *                           is 90% of the program's time and 0.2% of its calls
 *   mkwlmem idle-hold OUT   the same, with a block of 64 MiB, resident whole, malloc'd first
 *                           and freed at 9 s: a paced replay holds the plateau
 *   mkwlmem fill OUT        a block of 64 MiB malloc'd at 10 ms that the program fills evenly
 *                           until 8 s without a call (its samples rise), resident whole at its
 *                           free at 9 s
 *   mkwlmem fill-map OUT    the same of a mapping of the program's own (mmap, munmap)
 *   mkwlmem late OUT        two threads: the second makes one call, at 1 s; the first 1,000
 *                           from 2 s to 3 s, then one at 5 s
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "wl_writer.h"

static void die(const char *m) { fprintf(stderr, "mkwlmem: %s\n", m); exit(1); }

#define MiB (1024ull * 1024)
#define BASE (8 * MiB)
#define BURST 10000u

static struct wl_writer w;
static struct mtrace_wl_header h;
static uint32_t stream;   /* where op3 writes */

static void op3(unsigned code, int n, uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t v[3] = { a, b, c };
	if (wl_writer_op(&w, stream, code, n, v) < 0)
		die(w.err.msg);
	if (mtrace_wl_is_call(code))
		h.ncalls++, h.counts[code]++;
}
#define op(code, n, a, b) op3(code, n, a, b, 0)

static void sample(uint64_t calls, uint64_t anon, uint64_t us)
{
	struct mtrace_wl_sample s = { calls, anon, anon + 2 * MiB, anon + 64 * MiB, us };
	if (wl_writer_sample(&w, &s) < 0)
		die(w.err.msg);
}

/* 20 small blocks, kept (calls 1-20, in the first 10 ms) */
static void small_blocks(uint64_t first_slot)
{
	for (uint64_t i = 0; i < 20; i++)
		op(MTRACE_WL_MALLOC, 2, first_slot + i, 48);
}

/* from 9 s: the burst, BURST calls of a small block allocated and freed, memory low; the
   samples every 10 ms to the end at 10 s */
static void burst(uint64_t slot, uint64_t calls0)
{
	op(MTRACE_WL_AT, 1, 9000000, 0);
	sample(calls0, BASE, 9000000);
	for (unsigned i = 0; i < BURST; i++)
		op(i % 2 ? MTRACE_WL_FREE : MTRACE_WL_MALLOC, i % 2 ? 1 : 2, slot, 64);
	for (unsigned k = 1; k <= 100; k++)
		sample(calls0 + BURST * k / 100, BASE, 9000000 + 10000 * k);
}

int main(int argc, char **argv)
{
	if (argc != 3)
		die("usage: mkwlmem idle-miss|idle-hold|fill|fill-map|late OUT");
	const char *kind = argv[1];
	if (wl_writer_open(&w, argv[2]) < 0)
		die(w.err.msg);
	wl_writer_thread(&w, 1);
	memcpy(h.magic, MTRACE_WL_MAGIC, MTRACE_WL_MAGIC_LEN);
	h.version = MTRACE_WL_VERSION;
	h.header_size = MTRACE_WL_HEADER_SIZE;
	h.flags = MTRACE_WL_HF_RESIDENT | MTRACE_WL_HF_PACE;
	h.pace_us = 1000;
	h.resident_min = 65536;
	h.duration_us = 10000000;
	strcpy(h.allocator, "libc.so.6");
	strcpy(h.program, kind);
	h.nslots = 32;
	sample(0, BASE, 0);
	if (!strcmp(kind, "idle-miss") || !strcmp(kind, "idle-hold")) {
		int hold = !strcmp(kind, "idle-hold");
		uint64_t calls = 20;
		if (hold) {
			op(MTRACE_WL_MALLOC, 2, 21, 64 * MiB);
			op(MTRACE_WL_RESIDENT, 1, 64 * 1024 + 1, 0);
			calls++;
		}
		small_blocks(1);
		sample(calls, BASE + 64 * MiB, 10000);
		sample(calls, BASE + 64 * MiB, 8999000);
		if (hold) {   /* the plateau's end: its block freed */
			op(MTRACE_WL_AT, 1, 9000000, 0);
			op(MTRACE_WL_FREE, 1, 21, 0);
			calls++;
		}
		burst(22, calls);
		h.ideal_rss = hold ? 64 * MiB + 20 * 48 : 20 * 48 + 64;
	} else if (!strcmp(kind, "fill") || !strcmp(kind, "fill-map")) {
		int map = !strcmp(kind, "fill-map");
		small_blocks(1);
		op(MTRACE_WL_AT, 1, 10000, 0);
		if (map) {   /* map 0, 64 MiB */
			h.flags |= MTRACE_WL_HF_MAPPINGS;
			h.nmaps = 1;
			h.mapped_peak = 64 * MiB;
			op(MTRACE_WL_MAP, 2, 0, 64 * MiB);
		} else
			op(MTRACE_WL_MALLOC, 2, 21, 64 * MiB);
		op(MTRACE_WL_RESIDENT, 1, 64 * 1024 + 1, 0);
		/* filled evenly from 10 ms to 8 s: no call, so no sample but at the ends */
		sample(21, BASE, 10000);
		op(MTRACE_WL_AT, 1, 9000000, 0);
		sample(21, BASE + 64 * MiB, 8000000);
		sample(21, BASE + 64 * MiB, 8999000);
		if (map)   /* all of map 0 */
			op3(MTRACE_WL_UNMAP, 3, 0, 0, 64 * MiB);
		else
			op(MTRACE_WL_FREE, 1, 21, 0);
		sample(22, BASE, 9000000);
		sample(22, BASE, 10000000);
		h.ideal_rss = 64 * MiB + 20 * 48;
	} else if (!strcmp(kind, "late")) {
		wl_writer_thread(&w, 2);
		stream = 1;
		op(MTRACE_WL_AT, 1, 1000000, 0);
		op(MTRACE_WL_FREE, 1, 0, 0);
		sample(1, BASE, 1000000);
		stream = 0;
		op(MTRACE_WL_AT, 1, 2000000, 0);
		for (unsigned i = 0; i < 1000; i++)
			op(MTRACE_WL_FREE, 1, 0, 0);
		for (unsigned k = 1; k <= 10; k++)
			sample(1 + 100 * k, BASE, 2000000 + 100000 * k);
		op(MTRACE_WL_AT, 1, 5000000, 0);
		op(MTRACE_WL_FREE, 1, 0, 0);
		sample(1002, BASE + MiB, 5000000);
		sample(1002, BASE + MiB, 10000000);
	} else
		die("unknown kind");
	if (wl_writer_finish(&w, &h) < 0)
		die(w.err.msg);
	return 0;
}
