/* xthread - stress program: threads pass blocks to each other, free them, and allocate again,
 * so an allocator with one shared arena hands a block freed by one thread straight to another.
 *   xthread [THREADS [ROUNDS]]   through a ring under a mutex
 *   xthread -l [ROUNDS]          without a lock: one thread allocates and publishes each block
 *                                with a release store, another frees it as soon as an acquire
 *                                load shows it (no lock instruction between the two calls) */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RING 64
static void *ring[RING];
static unsigned head, tail;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long rounds = 20000;

static void *worker(void *arg)
{
	unsigned seed = (unsigned)(size_t)arg * 7919u + 1;
	for (long i = 0; i < rounds; i++) {
		seed = seed * 1103515245u + 12345u;
		size_t size = 16 + (seed >> 16) % 128;
		char *p = malloc(size);
		p[0] = 1;
		void *victim = NULL;
		pthread_mutex_lock(&lock);
		if (head - tail == RING)
			victim = ring[tail++ % RING];
		ring[head++ % RING] = p;
		if (head - tail > RING / 2 && (seed & 1))
			victim = victim ? victim : ring[tail++ % RING];
		pthread_mutex_unlock(&lock);
		free(victim);   /* usually a block another thread allocated */
		if ((seed >> 8) % 16 == 0) {
			void *q = realloc(malloc(size), size * 2);
			free(q);
		}
	}
	return NULL;
}

/* ---- the lock-free handoff: a single-producer single-consumer ring ---- */
#define LF_RING 256
static void *lf_ring[LF_RING];
static unsigned long lf_head, lf_tail;   /* written by one thread each */

static void lf_pause(unsigned *spins)
{
	if (++*spins % 1024 == 0)
		sched_yield();   /* the other thread may share our core */
}

static void *lf_producer(void *arg)
{
	(void)arg;
	for (unsigned long i = 0; i < (unsigned long)rounds; i++) {
		unsigned spins = 0;
		while (i - __atomic_load_n(&lf_tail, __ATOMIC_ACQUIRE) >= LF_RING)
			lf_pause(&spins);
		char *p = malloc(16 + i % 48);
		p[0] = 1;
		__atomic_store_n(&lf_ring[i % LF_RING], p, __ATOMIC_RELAXED);
		__atomic_store_n(&lf_head, i + 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

static void *lf_consumer(void *arg)
{
	(void)arg;
	for (unsigned long i = 0; i < (unsigned long)rounds; i++) {
		unsigned spins = 0;
		while (__atomic_load_n(&lf_head, __ATOMIC_ACQUIRE) <= i)
			lf_pause(&spins);
		free(__atomic_load_n(&lf_ring[i % LF_RING], __ATOMIC_RELAXED));
		__atomic_store_n(&lf_tail, i + 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "-l") == 0) {
		if (argc > 2)
			rounds = atol(argv[2]);
		pthread_t a, b;
		pthread_create(&a, NULL, lf_producer, NULL);
		pthread_create(&b, NULL, lf_consumer, NULL);
		pthread_join(a, NULL);
		pthread_join(b, NULL);
		printf("done lock-free handoff\n");
		return 0;
	}
	int n = argc > 1 ? atoi(argv[1]) : 4;
	if (argc > 2)
		rounds = atol(argv[2]);
	pthread_t t[64];
	if (n < 1 || n > 64)
		return 2;
	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, worker, (void *)(size_t)i);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	while (tail != head)
		free(ring[tail++ % RING]);
	printf("done %d threads\n", n);
	return 0;
}
