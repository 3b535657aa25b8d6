/* api_stopped - a thread allocates, holding its chunk, while main stops the trace (mtrace_stop
 * cuts the file to what was written): the windows kept mapped for that chunk must not stay
 * readable past the file's new end, where a read (a leak checker's, a core dump's) raises
 * SIGBUS.
 *   api_stopped BASE   traces into BASE.PID; prints "accessible past the end: N bytes"
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "mtrace.h"

static volatile int stop_worker;
static unsigned long calls;

static void *worker(void *unused)
{
	(void)unused;
	while (!stop_worker) {
		void *volatile p = malloc(32);
		free(p);
		__atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 2 || mtrace_init(argv[1]) != 0 || mtrace_start() != 0)
		return 2;
	pthread_t t;
	if (pthread_create(&t, NULL, worker, NULL) != 0)
		return 2;
	while (__atomic_load_n(&calls, __ATOMIC_RELAXED) < 100000)
		sched_yield();
	mtrace_stop();   /* the worker holds its chunk meanwhile */
	char path[4200], line[4096];
	snprintf(path, sizeof path, "%s.%d", argv[1], (int)getpid());
	struct stat st;
	if (stat(path, &st) != 0)
		return 2;
	uint64_t end = ((uint64_t)st.st_size + 4095) & ~(uint64_t)4095, past = 0;
	FILE *m = fopen("/proc/self/maps", "r");
	while (m && fgets(line, sizeof line, m)) {
		unsigned long lo, hi, off;
		char perms[8];
		if (!strstr(line, path) ||
		    sscanf(line, "%lx-%lx %7s %lx", &lo, &hi, perms, &off) != 4 || perms[0] != 'r')
			continue;
		if (off + (hi - lo) > end)   /* (bytes of the file mapped readable past its end) */
			past += off + (hi - lo) - (off > end ? off : end);
	}
	if (m)
		fclose(m);
	stop_worker = 1;
	pthread_join(t, NULL);
	printf("accessible past the end: %llu bytes\n", (unsigned long long)past);
	return 0;
}
