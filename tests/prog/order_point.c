/* order_point - test helper: the tracer's order-point reads keep a handoff's order.
 *
 * One thread stamps with an order point's read (mt_ticks, as an allocation does) and publishes
 * the stamp without a lock (a release store); the other takes it with an acquire load and
 * stamps with the same read, as a free of a block the first thread allocated and passed on
 * would.  The second stamp must never be the smaller: a read that can execute before the load
 * delivering the stamp completes (a plain RDTSC does, when the load waits for the other core's
 * cache line) breaks it.  The two threads do a varying amount of work between handoffs, so
 * that the taker often waits for a line the giver has just written, which is when the read
 * runs ahead.
 *   order_point [HANDOFFS]      (the clock as the tracer chooses it, MTRACE_CTL_CLOCK)
 * Prints "clock K", "handoffs N", "inversions N" (the order point's read), and "plain N": as
 * many handoffs stamped by a read without a fence (x86's RDTSC; else the same read), to show how
 * often the unfenced read runs ahead on this machine.  Exits 1 if there is any inversion. */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include "clock.h"

#define RING 256
/* the indices beside the first stamps: the taker's loads often wait for the giver's core */
static struct {
	unsigned long tail, head;
	volatile uint64_t ring[RING];
} line __attribute__((aligned(64)));
static unsigned long handoffs;
static unsigned work_give, work_take;     /* this round's steps of work a handoff */
static unsigned long inversions, plain_inversions;

static void wait_turn(unsigned *spins)
{
	if (++*spins % 1024 == 0)
		sched_yield();   /* the other thread may share our core */
}

static inline uint64_t step(uint64_t s)
{
	s = s * 6364136223846793005u + 1442695040888963407u;
	__asm__ volatile("" : "+r"(s));   /* a dependent chain the compiler cannot drop */
	return s;
}

/* steps of work, a few more now and then */
static uint64_t work(unsigned steps, uint64_t s)
{
	steps += (unsigned)(s >> 60);
	for (unsigned k = 0; k < steps; k++)
		s = step(s);
	return s;
}

static uint64_t unfenced(void)
{
#if defined(__x86_64__) || defined(__i386__)
	if (mt_clock_is_tsc(mt_clock_kind))
		return __rdtsc();
#endif
	return mt_ticks();
}

static void *giver(void *arg)
{
	uint64_t s = 1;
	(void)arg;
	for (unsigned long i = 0; i < handoffs; i++) {
		unsigned spins = 0;
		while (i - __atomic_load_n(&line.tail, __ATOMIC_ACQUIRE) >= RING)
			wait_turn(&spins);
		s = work(work_give, s);
		line.ring[i % RING] = mt_ticks();
		__atomic_store_n(&line.head, i + 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

static void *taker(void *arg)
{
	uint64_t s = 7;
	(void)arg;
	for (unsigned long i = 0; i < handoffs; i++) {
		unsigned spins = 0;
		while (__atomic_load_n(&line.head, __ATOMIC_ACQUIRE) <= i)
			wait_turn(&spins);
		uint64_t given = line.ring[i % RING];
		s = step(step(s));   /* (no branch between the load and the read) */
		/* a thousand handoffs each way in turn: both meet the same placement of the
		   threads (it changes over seconds: inversions come in bursts) */
		if ((i >> 10) & 1) {
			if (unfenced() < given)
				plain_inversions++;
		} else if (mt_ticks() < given) {
			inversions++;
		}
		s = work(work_take, s);
		__atomic_store_n(&line.tail, i + 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

/* every pairing of the two threads' work, HANDOFFS split among them */
static void run(unsigned long total)
{
	static const unsigned steps[][2] = {
		{ 10, 10 }, { 20, 15 }, { 15, 20 }, { 5, 5 }, { 25, 20 }, { 12, 8 }, { 30, 30 },
	};
	unsigned n = sizeof steps / sizeof steps[0];
	for (unsigned k = 0; k < n; k++) {
		handoffs = total / n;
		line.head = line.tail = 0;
		work_give = steps[k][0];
		work_take = steps[k][1];
		pthread_t a, b;
		if (pthread_create(&a, NULL, giver, NULL) ||
		    pthread_create(&b, NULL, taker, NULL)) {
			fprintf(stderr, "order_point: cannot start threads\n");
			exit(2);
		}
		pthread_join(a, NULL);
		pthread_join(b, NULL);
	}
}

int main(int argc, char **argv)
{
	unsigned long total = argc > 1 ? strtoul(argv[1], NULL, 10) : 2100000;
	mt_clock_init();
	printf("clock %d\nhandoffs %lu\n", mt_clock_kind, total);
	run(total);
	printf("inversions %lu\nplain %lu\n", inversions, plain_inversions);
	return inversions != 0;
}
