/* clockcost - what the tracer's clock read costs on this machine, and with it the stores of a
 * record: the floor under any capture that timestamps and writes every call in causal order.
 *
 * The capture reads the clock once a call, at the call's order point (malloc/clock.h's
 * mt_ticks): a free's before the allocator runs, an allocation's after it returns, each waiting
 * for earlier loads (RDTSCP on x86).  That read is the floor under the capture's cost whatever
 * else it does, so the bench prints it beside the targets' budgets.
 * This program times the tracer's own inline functions, compiled from the same header and with
 * the clock chosen as the tracer chooses it (clock.c).
 *   clockcost [READS]
 * Prints two lines, "read NS": nanoseconds a read, and "floor NS": two reads (as a malloc and
 * its free take) and the stores of two 32-byte records (include/mtrace-trace.h's slots, written
 * as the tracer writes them: body, clock, commit word with release order) into pages mapped and
 * faulted in beforehand, a call's worth being half of it; each the median of 7 timed loops of
 * READS. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "clock.h"
#include "mtrace-trace.h"

static volatile uint64_t sink;   /* the reads' sum lands here, so no loop is optimised away */

enum { READ, FLOOR };

#define AREA ((size_t)64 << 20)   /* slots written in a stream, as a trace's chunks are */
static struct mtrace_slot *area;

static inline void put(struct mtrace_slot *s, unsigned call, uint64_t ts, uint64_t a, uint64_t b)
{
	s->a = a;
	s->b = b;
	s->ts = ts;
	union { struct { uint8_t call, flags; uint16_t aux; uint32_t x; } f; uint64_t w; } u =
		{ .f = { (uint8_t)call, 0, 0, 16 } };
	__atomic_store_n((uint64_t *)(void *)s, u.w, __ATOMIC_RELEASE);
}

static double ns_a_read(int kind, long reads)
{
	uint64_t sum = 0, t0 = mt_monotonic_ns();
	for (long i = 0; i < reads; i++) {
		if (kind == READ)
			sum += mt_ticks();
		else {
			size_t k = (size_t)i * 2 % (AREA / sizeof *area);
			put(&area[k], MTRACE_CALL_MALLOC, mt_ticks(), (uint64_t)i, 100);
			put(&area[k + 1], MTRACE_CALL_FREE, mt_ticks(), (uint64_t)i, 0);
		}
	}
	uint64_t t1 = mt_monotonic_ns();
	sink = sum;
	return (double)(t1 - t0) / (double)reads;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	long reads = argc > 1 ? atol(argv[1]) : 2000000;
	if (reads < 1) {
		fprintf(stderr, "usage: clockcost [READS]\n");
		return 2;
	}
	mt_clock_init();
	area = mmap(NULL, AREA, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED)
		return 1;
	memset(area, 1, AREA);   /* faulted in: the floor has no page faults in it */
	static const char *const name[] = { "read", "floor" };
	for (int kind = READ; kind <= FLOOR; kind++) {
		double ns[7];
		for (int i = 0; i < 7; i++)
			ns[i] = ns_a_read(kind, reads);
		qsort(ns, 7, sizeof ns[0], cmp_double);
		printf("%s %.1f\n", name[kind], ns[3]);
	}
	return 0;
}
