/* xthread - stress program: threads pass blocks to each other, free them, and allocate again,
 * so an allocator with one shared arena hands a block freed by one thread straight to another.
 *   xthread [THREADS [ROUNDS]] */
#include <pthread.h>
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

int main(int argc, char **argv)
{
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
