/* exitsample - a thread whose last calls come in its exit, while a sample is due, then a large
 * release.
 *   exitsample MS
 * main writes 64 MiB of a block; a thread makes a call (the tracer's key destructor is then
 * set, and runs before the program's), sleeps 1.5 MS (MTRACE_CTL_MEMORY_MS = MS: a sample is
 * then due, and no call has taken it) and exits, its key's destructor making a malloc and a free
 * while the tracer counts the thread as exiting; main joins it and frees the block at once.
 * The sample due belongs before that release, with the 64 MiB in it.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BLOCK (64u << 20)

static pthread_key_t key;
static long ms;

static void at_exit_of_thread(void *v)
{
	(void)v;
	void *volatile p = malloc(16);
	free(p);
}

static void *thread(void *arg)
{
	(void)arg;
	pthread_setspecific(key, &key);
	void *volatile q = malloc(16);
	free(q);
	struct timespec ts = { ms * 3 / 2 / 1000, (ms * 3 / 2 % 1000) * 1000000 };
	while (nanosleep(&ts, &ts) != 0)
		;
	return NULL;
}

int main(int argc, char **argv)
{
	ms = argc > 1 ? atol(argv[1]) : 200;
	char *volatile p = malloc(BLOCK);
	if (!p || pthread_key_create(&key, at_exit_of_thread) != 0)
		return 1;
	memset(p, 1, BLOCK);
	pthread_t t;
	if (pthread_create(&t, NULL, thread, NULL) != 0 || pthread_join(t, NULL) != 0)
		return 1;
	free(p);
	return 0;
}
