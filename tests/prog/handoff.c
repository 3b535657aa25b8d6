/* handoff - the count's owner and another thread passing blocks back and forth (t_solo).
 *   handoff ROUNDS
 * The main thread makes a call, then starts a worker, whose first call takes the count over
 * (malloc/clock.c); then ROUNDS times the main thread allocates a block and hands it to the
 * worker without a lock (a release store, an acquire load), which frees it and hands back one it
 * allocated, which the main thread frees.  Each free follows its block's allocation in another
 * thread: the owner's count may not stamp it earlier.  Prints "rounds N"; exits 3 if a wait
 * ran past its bound. */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#define SPINS_MAX (1L << 30)   /* the other thread's answer, waited for at most (yielding) */

static void *to_worker, *to_main;
static long rounds;

static void *take(void **box)
{
	for (long i = 0; i < SPINS_MAX; i++) {
		void *p = __atomic_exchange_n(box, NULL, __ATOMIC_ACQUIRE);
		if (p)
			return p;
		if (i % 1024 == 1023)
			sched_yield();   /* (the other thread may share our core) */
	}
	exit(3);
}

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < 4; i++) {   /* its first calls: the count taken over */
		void *volatile w = malloc(24);
		free(w);
	}
	for (long i = 0; i < rounds; i++) {
		free(take(&to_worker));
		__atomic_store_n(&to_main, malloc(48), __ATOMIC_RELEASE);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	rounds = atol(argv[1]);
	void *volatile m = malloc(16);   /* the first thread to call */
	free(m);
	pthread_t t;
	if (pthread_create(&t, NULL, worker, NULL))
		return 1;
	for (long i = 0; i < rounds; i++) {
		__atomic_store_n(&to_worker, malloc(40), __ATOMIC_RELEASE);
		free(take(&to_main));
	}
	pthread_join(t, NULL);
	printf("rounds %ld\n", rounds);
	return 0;
}
