/* follow_prog - a traced program to follow while it runs: phase 1 (three threads allocate, one
 * of them then waits holding its chunk open), a pause until a line arrives on stdin (the test
 * looks at the growing trace then), phase 2, the end.  Prints "paused" when phase 1 is done. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t go = PTHREAD_COND_INITIALIZER;
static int phase2;
static void *kept[4096];

static void churn(unsigned seed, int n)
{
	for (int i = 0; i < n; i++) {
		unsigned k = (seed = seed * 1103515245u + 12345u) >> 8;
		void **slot = &kept[k % 4096];
		free(*slot);
		*slot = NULL;
		if (k & 1)
			*slot = malloc(16 + k % 2000);
		else
			*slot = realloc(malloc(8), 64 + k % 300);
	}
}

static void *worker(void *arg)
{
	unsigned id = (unsigned)(size_t)arg;
	pthread_mutex_lock(&lock);   /* (each thread's churn alone: kept[] is shared) */
	churn(id, 20000);
	pthread_mutex_unlock(&lock);
	if (id == 1) {   /* stays idle with its chunk open until phase 2 */
		pthread_mutex_lock(&lock);
		while (!phase2)
			pthread_cond_wait(&go, &lock);
		pthread_mutex_unlock(&lock);
		free(malloc(100));
	}
	return NULL;
}

int main(void)
{
	pthread_t t[3];
	for (size_t i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, worker, (void *)(i + 1));
	for (int i = 1; i < 3; i++)
		pthread_join(t[i], NULL);
	printf("paused\n");
	fflush(stdout);
	char line[16];
	if (!fgets(line, sizeof line, stdin))
		return 1;
	pthread_mutex_lock(&lock);
	phase2 = 1;
	pthread_cond_broadcast(&go);
	churn(7, 30000);
	pthread_mutex_unlock(&lock);
	pthread_join(t[0], NULL);
	for (int i = 0; i < 4096; i++)
		free(kept[i]);
	printf("done\n");
	return 0;
}
