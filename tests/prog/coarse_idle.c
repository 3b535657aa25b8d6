/* coarse_idle - one thread busy without a call for two ticks of CLOCK_MONOTONIC_COARSE between
 * two calls, the ticks counted by reading that clock (t_solo).
 *   coarse_idle TICKS GAPS
 * First malloc/free pairs until the coarse clock has ticked TICKS times (time for the tracer to
 * see its load of that clock agree with the clock: clock.c); then GAPS times a block of 1000
 * bytes allocated, the clock read without a call until it ticked twice, the block freed.
 * Prints "tick NS" (the clock's resolution) and "gaps N"; exits 3 if the clock did not tick
 * within a bound of reads. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define READS_MAX (1L << 28)   /* reads of the clock a tick may take (seconds at the least) */

static uint64_t coarse_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Wait for the clock to move from *t, making a call at each read when calls is set: 0, or -1
   when it did not within READS_MAX reads. */
static int next_tick(uint64_t *t, int calls)
{
	for (long i = 0; i < READS_MAX; i++) {
		if (calls) {
			void *volatile p = malloc(16 + (size_t)i % 200);
			free(p);
		}
		uint64_t now = coarse_ns();
		if (now != *t) {
			*t = now;
			return 0;
		}
	}
	return -1;
}

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	long ticks = atol(argv[1]), gaps = atol(argv[2]);
	struct timespec res;
	if (clock_getres(CLOCK_MONOTONIC_COARSE, &res) != 0)
		return 1;
	uint64_t t = coarse_ns();
	for (long i = 0; i < ticks; i++)
		if (next_tick(&t, 1) < 0)
			return 3;
	for (long i = 0; i < gaps; i++) {
		char *volatile p = malloc(1000);   /* (a size no other call asks for) */
		p[0] = (char)i;
		if (next_tick(&t, 0) < 0 || next_tick(&t, 0) < 0)
			return 3;
		free(p);
	}
	printf("tick %ld\ngaps %ld\n", (long)res.tv_sec * 1000000000L + res.tv_nsec, gaps);
	return 0;
}
