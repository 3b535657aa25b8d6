/* api_cycle - a thread allocates without pause while the main thread stops and starts tracing
 * 20 times (a new file each time): the windows of each earlier file where that thread held a
 * chunk must go once it gives the chunk back.
 *   api_cycle BASE   traces into BASE.PID...; prints "mappings N", the mappings of trace files
 *                    left once the thread has made calls after the last start (its next call
 *                    gives its chunk back: counted, not timed, so a loaded machine waits) and
 *                    the populating thread has unmapped what was given back (a window's
 *                    accessible part and the rest after it are one) */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "mtrace.h"

static volatile int stop_worker;
static unsigned long calls;   /* the worker's, atomically */

static void *worker(void *unused)
{
	(void)unused;
	while (!stop_worker) {
		void *volatile p = malloc(16);
		free(p);
		__atomic_add_fetch(&calls, 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

static int mappings_of(const char *base)
{
	char line[4096];
	int n = 0;
	unsigned long lo, hi, last_hi = 0;
	FILE *m = fopen("/proc/self/maps", "r");
	if (m == NULL)
		return -1;
	while (fgets(line, sizeof line, m))
		if (strstr(line, base) && sscanf(line, "%lx-%lx", &lo, &hi) == 2) {
			n += lo != last_hi;
			last_hi = hi;
		}
	fclose(m);
	return n;
}

int main(int argc, char **argv)
{
	if (argc < 2 || mtrace_init(argv[1]) != 0 || mtrace_start() != 0)
		return 2;
	pthread_t t;
	if (pthread_create(&t, NULL, worker, NULL) != 0)
		return 2;
	for (int i = 0; i < 20; i++) {
		usleep(20000);
		mtrace_stop();
		mtrace_start();
	}
	/* until the worker has made a few calls into the new file: a loaded machine may not have
	   run it since */
	unsigned long at = __atomic_load_n(&calls, __ATOMIC_ACQUIRE);
	while (__atomic_load_n(&calls, __ATOMIC_ACQUIRE) < at + 10)
		usleep(1000);
	/* the populating thread (a file passes 16 MiB in 20 ms here) unmaps windows given back
	   when it next runs: given 30 s on a loaded machine to come down to the current file's
	   window and header page */
	int n = mappings_of(argv[1]);
	for (int i = 0; i < 3000 && n > 2; i++) {
		usleep(10000);
		n = mappings_of(argv[1]);
	}
	printf("mappings %d\n", n);
	if (n > 2) {   /* which, for the failure's message */
		char line[4096];
		FILE *m = fopen("/proc/self/maps", "r");
		while (m && fgets(line, sizeof line, m))
			if (strstr(line, argv[1]))
				fputs(line, stdout);
		if (m)
			fclose(m);
	}
	stop_worker = 1;
	pthread_join(t, NULL);
	mtrace_stop();
	return 0;
}
