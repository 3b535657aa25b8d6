/* solo - one thread making calls, then two (t_solo).
 *   solo CALLS NAPS NAP_MS
 * Alone: CALLS malloc/free pairs, 8 blocks live at a time; then NAPS times a block allocated,
 * NAP_MS of sleep (the program idle between two calls) and the block freed.  Then a second
 * thread: both pass blocks through a ring under a mutex, CALLS rounds each (with one arena and
 * no tcache, a block one frees is handed at once to the other).  Prints what it computed. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define RING 64
static void *ring[RING];
static unsigned head, tail;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long calls;

static void *pass_blocks(void *arg)
{
	unsigned seed = (unsigned)(size_t)arg * 7919u + 1;
	for (long i = 0; i < calls; i++) {
		seed = seed * 1103515245u + 12345u;
		char *p = malloc(16 + (seed >> 16) % 128);
		p[0] = 1;
		void *victim = NULL;
		pthread_mutex_lock(&lock);
		if (head - tail == RING)
			victim = ring[tail++ % RING];
		ring[head++ % RING] = p;
		pthread_mutex_unlock(&lock);
		free(victim);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 4)
		return 2;
	calls = atol(argv[1]);
	long naps = atol(argv[2]), nap_ms = atol(argv[3]);
	void *live[8] = { 0 };
	unsigned long sum = 0;
	for (long i = 0; i < calls; i++) {
		free(live[i % 8]);
		live[i % 8] = malloc(1 + (size_t)i % 200);
		sum += (unsigned long)(i % 200);
	}
	for (int i = 0; i < 8; i++)
		free(live[i]);
	struct timespec nap = { nap_ms / 1000, nap_ms % 1000 * 1000000L };
	for (long i = 0; i < naps; i++) {
		char *p = malloc(1000);   /* (a size no other call asks for) */
		p[0] = (char)i;
		nanosleep(&nap, NULL);
		free(p);
	}
	pthread_t t;
	if (pthread_create(&t, NULL, pass_blocks, (void *)1))
		return 1;
	pass_blocks((void *)2);
	pthread_join(t, NULL);
	while (tail != head)
		free(ring[tail++ % RING]);
	printf("%lu\n", sum);
	return 0;
}
