/* api_cycle - a thread allocates without pause while the main thread stops and starts tracing
 * 20 times (a new file each time): the windows of each earlier file where that thread held a
 * chunk must go once it gives the chunk back.
 *   api_cycle BASE   traces into BASE.PID...; prints "mappings N", the mappings of trace files
 *                    left once the thread has gone on for a while after the last start (a
 *                    window's accessible part and the rest after it are one) */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "mtrace.h"

static volatile int stop_worker;

static void *worker(void *unused)
{
	(void)unused;
	while (!stop_worker) {
		void *volatile p = malloc(16);
		free(p);
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
	usleep(50000);
	printf("mappings %d\n", mappings_of(argv[1]));
	stop_worker = 1;
	pthread_join(t, NULL);
	mtrace_stop();
	return 0;
}
