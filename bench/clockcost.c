/* clockcost - what the tracer's two clock reads cost on this machine, for make bench.
 *
 * The capture reads the clock once a call, at the call's order point (malloc/clock.h): a free
 * before the allocator runs (mt_ticks_before: RDTSC on x86), an allocation after it returns
 * (mt_ticks_after: RDTSCP, which waits for earlier loads).  Those reads are the floor under
 * the capture's cost whatever else it does, so the bench prints them beside the targets'
 * budgets.  This program times the tracer's own inline functions, compiled from the same
 * header and with the clock chosen as the tracer chooses it (clock.c).
 *   clockcost [READS]
 * Prints three lines, "before NS", "after NS", "pair NS": nanoseconds a read (pair: one of
 * each, as a malloc and its free take), each the median of 7 timed loops of READS reads. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "clock.h"

static volatile uint64_t sink;   /* the reads' sum lands here, so no loop is optimised away */

enum { BEFORE, AFTER, PAIR };

static double ns_a_read(int kind, long reads)
{
	uint64_t sum = 0, t0 = mt_monotonic_ns();
	for (long i = 0; i < reads; i++) {
		if (kind == BEFORE)
			sum += mt_ticks_before();
		else if (kind == AFTER)
			sum += mt_ticks_after();
		else
			sum += mt_ticks_before() ^ mt_ticks_after();
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
	static const char *const name[] = { "before", "after", "pair" };
	for (int kind = BEFORE; kind <= PAIR; kind++) {
		double ns[7];
		for (int i = 0; i < 7; i++)
			ns[i] = ns_a_read(kind, reads);
		qsort(ns, 7, sizeof ns[0], cmp_double);
		printf("%s %.1f\n", name[kind], ns[3]);
	}
	return 0;
}
