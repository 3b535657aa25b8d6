/* api_busy - start, stop, pause, reset and sync the trace ROUNDS times while 4 threads allocate
 * without pause; or, with "exit" (run under the preload, which started tracing), let them
 * allocate a while and end by exit() with them still allocating.  Every stop's "N entries
 * recorded" must count the records of the chunks the running threads hold.
 *   api_busy BASE ROUNDS | api_busy - MS exit */
#include <mtrace.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define WORKERS 4
static volatile int stop;

static void *worker(void *unused)
{
	(void)unused;
	void *keep[64] = { 0 };
	for (unsigned i = 0; !stop; i++) {
		unsigned k = i % 64;
		free(keep[k]);
		keep[k] = malloc(16 + i % 500);
		if (i % 7 == 0)
			keep[k] = realloc(keep[k], 900);
	}
	for (int k = 0; k < 64; k++)
		free(keep[k]);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	int rounds = atoi(argv[2]), at_exit = argc > 3 && !strcmp(argv[3], "exit");
	if (!at_exit && mtrace_init(argv[1]) != 0) {
		perror("mtrace_init");
		return 1;
	}
	pthread_t t[WORKERS];
	for (int i = 0; i < WORKERS; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	if (at_exit) {
		usleep((useconds_t)rounds * 1000);
		exit(0);   /* the threads still allocating: the preload's destructor stops */
	}
	for (int r = 0; r < rounds; r++) {
		mtrace_start();
		usleep(500);
		if (r % 3 == 0) {
			mtrace_pause();
			usleep(100);
			mtrace_unpause();
		}
		if (r % 5 == 0)
			mtrace_reset();
		if (r % 7 == 0)
			mtrace_sync();
		usleep(300);
		mtrace_stop();
	}
	stop = 1;
	for (int i = 0; i < WORKERS; i++)
		pthread_join(t[i], NULL);
	return 0;
}
